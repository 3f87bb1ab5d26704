"""The budget of a committed sequential step takes no reading of the machine into a verdict: its stages are
estimated and charged at costs fixed with the design (``bandits/step_costs.json``), and the committed steps
take and refuse the same looks under that table as they did."""
import json
import shutil
from pathlib import Path

import pytest

from bandits import sequential as S

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", list(S.FULL_MODE_DESIGNS))
def test_every_committed_step_takes_the_same_looks_under_its_cost_table(name):
    """Replayed on the cost table at its design's budget, each committed step takes exactly the looks it took
    (and refuses the one it refused), and the table prices every cell those looks ran."""
    folder = ROOT / "figures" / name
    if not (folder / "sequential.json").exists():
        pytest.skip(f"figures/{name} has no committed step")
    costs = S.design_costs(name)
    assert costs, f"{S.COSTS_FILE.name} has no costs for {name}: python -m bandits.sequential costs --write {name}"
    rows = S.replay_budget(name, folder)
    assert rows and all(r["estimated_s"] == r["estimated_s"] for r in rows), rows  # no cell left unpriced (NaN)
    assert [r["takes"] for r in rows] == [r["took"] for r in rows], rows
    assert all(v >= 0 for v in costs.values())


def test_fixed_costs_make_the_looks_independent_of_the_machine(tmp_path):
    """The same runs timed on a machine three times slower: charged at their recorded seconds, a budget that
    admitted every look refuses one; at fixed costs both take the same looks, reach the same verdicts, and charge
    the budget their estimates while still recording what the runs took."""
    from bandits.experiments.toy_sequential import ToyExperiment

    des = S.Design((3, 5, 10, 20), kind="pocock")
    fast, slow = ToyExperiment(cost_s_per_run=1.0), ToyExperiment(cost_s_per_run=3.0)
    f_fast = fast.make_folder(tmp_path / "fast", n0=3, cache_dir=tmp_path / "c1")
    f_slow = slow.make_folder(tmp_path / "slow", n0=3, cache_dir=tmp_path / "c3")
    free = S.decide(fast, f_fast, des, cache_dir=tmp_path / "c1", write=False)
    taken = [st for st in free["stages"] if "refused" not in st]
    assert len(taken) >= 2, free["stages"]
    budget = free["cpu_s"] + 0.5  # every look the fast machine took
    on_fast = S.decide(fast, f_fast, des, budget_s=budget, cache_dir=tmp_path / "c1", write=False)
    on_slow = S.decide(slow, f_slow, des, budget_s=budget, cache_dir=tmp_path / "c3", write=False)
    assert not on_fast["stopped"] and on_slow["stopped"] == "budget"  # the machine entered the verdicts
    costs = {repr(c): 1.0 for c in ("A", "B", "C", "D")}
    a = S.decide(fast, f_fast, des, budget_s=budget, cache_dir=tmp_path / "c1", write=False, costs=costs)
    b = S.decide(slow, f_slow, des, budget_s=budget, cache_dir=tmp_path / "c3", write=False, costs=costs)
    assert [(st["look"], "refused" in st) for st in a["stages"]] == [(st["look"], "refused" in st) for st in b["stages"]]
    assert {k: (v["verdict"], v["decided_at_n"]) for k, v in a["claims"].items()} == \
           {k: (v["verdict"], v["decided_at_n"]) for k, v in b["claims"].items()}
    assert a["costs"] == b["costs"] == "design" and all(st["cost"] == "design" for st in b["stages"])
    assert b["spent_s"] == pytest.approx(a["spent_s"]) and b["cpu_s"] == pytest.approx(3 * a["cpu_s"])
    # a cell the table lacks: that stage falls back to the recorded times and says so
    part = S.decide(slow, f_slow, des, budget_s=budget, cache_dir=tmp_path / "c3", write=False,
                    costs={"'A'": 1.0})
    assert part["stages"][0]["cost"] == "recorded"


def test_step_uses_the_fixed_costs_for_the_committed_step_only(tmp_path, monkeypatch):
    """``step`` passes the design's costs when its arguments are the committed design (FULL_MODE_DESIGNS) of a
    full-mode folder; another budget, schedule or a quick-mode folder gets none."""
    name = "duets"
    src = ROOT / "figures" / name
    if not (src / "runs.csv").exists():
        pytest.skip("figures/duets not committed")
    folder = tmp_path / name
    shutil.copytree(src, folder)
    seen = {}
    monkeypatch.setattr(S, "decide", lambda *a, **k: seen.update(k) or {})
    sch, kind, budget, *_ = S.FULL_MODE_DESIGNS[name]
    S.step(name, folder, ",".join(map(str, sch)), budget, kind, write=False, progress=False)
    assert seen["costs"] == S.design_costs(name) and seen["costs"]
    S.step(name, folder, ",".join(map(str, sch)), budget + 1, kind, write=False, progress=False)
    assert seen["costs"] is None
    prov = json.loads((folder / "provenance.json").read_text())
    (folder / "provenance.json").write_text(json.dumps(dict(prov, mode="quick")))
    S.step(name, folder, ",".join(map(str, sch)), budget, kind, write=False, progress=False)
    assert seen["costs"] is None


def test_the_costs_command_replays_the_committed_steps(capsys):
    assert S.main(["costs", "async_kernelucb"]) == 0
    out = capsys.readouterr().out
    assert "async_kernelucb (budget" in out and "look 2" in out and "differs" not in out
