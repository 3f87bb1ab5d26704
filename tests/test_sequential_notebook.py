"""The sequential step from a notebook (bandits.experiments.notebook: check_decide, run_sequential, finish_notebook's
decide_* arguments): schedule None does nothing and prints what the last cell printed before; bad values fail before
any work, naming the parameter; make decide (bandits.sequential.main) and the notebooks call the same function
(bandits.sequential.step); a notebook's parameters give the first look its hooks read back."""
import json
import shutil
from pathlib import Path

import pytest

from bandits import sequential as S
from bandits.experiments import notebook as nbk
from bandits.experiments.claims import claims_table
from bandits.experiments.toy_sequential import ToyExperiment
from bandits.validation import ParameterError

ROOT = Path(__file__).resolve().parents[1]


def _snapshot(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture
def toy(tmp_path):
    ex = ToyExperiment()
    folder = ex.make_folder(tmp_path / "toy", n0=3, cache_dir=tmp_path / "cache")
    return ex, folder


@pytest.fixture
def no_runs(monkeypatch):
    """Any run of the step (bandits.runner.sweep) fails the test."""
    import bandits.runner

    def sweep(*args, **kwargs):
        raise AssertionError("the step ran something")

    monkeypatch.setattr(bandits.runner, "sweep", sweep)


def test_schedule_none_is_a_no_op(toy, tmp_path, no_runs):
    ex, folder = toy
    before = _snapshot(folder)
    assert nbk.run_sequential(ex, folder, None, cache_dir=tmp_path / "other-cache") is None
    # a name whose folder does not exist: nothing is read either
    assert nbk.run_sequential("duets", tmp_path / "absent", None, 60, "pocock") is None
    assert _snapshot(folder) == before and not (tmp_path / "other-cache").exists() and not (tmp_path / "absent").exists()
    nbk.check_decide("duets", None, None)  # nothing to check


def test_finish_notebook_without_a_schedule_prints_what_it_printed(toy, tmp_path, capsys):
    ex, folder = toy
    claims = S.read_claims(folder)
    out = tmp_path / "nb"
    nbk.finish_notebook(claims, {"n_runs": 3}, seed=0, out_dir=out, notebook="duets.ipynb", mode="quick", n_jobs=1,
                        backend="serial", about={"paper": "toy"}, decide_schedule=None, decide_budget_s=None,
                        decide_spending="obf", cache_dir=tmp_path / "cache")
    assert capsys.readouterr().out == claims_table(claims) + "\n"  # the text nbval compares, unchanged
    assert sorted(p.name for p in out.iterdir()) == ["claims.json", "provenance.json"]
    assert "sequential" not in json.loads((out / "provenance.json").read_text())


@pytest.mark.parametrize("kwargs, name, words", [
    (dict(schedule="5,10,20"), "decide_schedule", "starting at 3"),       # not the folder's committed count
    (dict(schedule="3,3,6"), "decide_schedule", "increasing run counts"),
    (dict(schedule="2,4"), "decide_schedule", ">= 3"),
    (dict(schedule="three"), "decide_schedule", "'5,10,20,40'"),
    (dict(schedule="3,6", budget_s=-1.0), "decide_budget_s", ">= 0"),
    (dict(schedule="3,6", budget_s=float("nan")), "decide_budget_s", ">= 0"),
    (dict(schedule="3,6", spending="bonferroni"), "decide_spending", "['obf', 'pocock']"),
])
def test_bad_values_fail_before_any_work(toy, tmp_path, no_runs, kwargs, name, words):
    ex, folder = toy
    before = _snapshot(folder)
    args = {"budget_s": None, "spending": "obf", **kwargs}
    schedule = args.pop("schedule")
    with pytest.raises(ParameterError) as e:
        nbk.run_sequential(ex, folder, schedule, **args, backend="serial", cache_dir=tmp_path / "cache2")
    msg = str(e.value)
    assert f"parameter '{name}'" in msg and words in msg, msg
    assert _snapshot(folder) == before and not (tmp_path / "cache2").exists()
    if name != "decide_schedule" or words != "starting at 3":  # caught before the folder is read
        with pytest.raises(ParameterError, match=name):
            nbk.run_sequential("duets", tmp_path / "absent", schedule, **args)


def test_run_sequential_decides_on_the_notebook_folder(toy, tmp_path):
    ex, folder = toy
    fixed = {c.id: c.verdict for c in S.read_claims(folder)}
    out = nbk.run_sequential(ex, folder, "3,5,10", None, "pocock", backend="serial", cache_dir=tmp_path / "cache",
                             progress=False)
    assert out["design"]["spending"] == "pocock" and [L["n"] for L in out["design"]["looks"]] == [3, 5, 10]
    assert (folder / "sequential.json").exists()
    assert all(r["committed_verdict"] == fixed[cid] for cid, r in out["claims"].items())
    rewritten = {c.id: c for c in S.read_claims(folder)}
    assert set(rewritten) == set(fixed)
    assert all("sequential rule" in rewritten[cid].note for cid in out["claims"])
    # "auto": n0, 2 n0, 4 n0, 8 n0; claims.json is read as the fixed-size verdicts the notebook just wrote (fresh),
    # not the ones an earlier pass left in sequential.json
    again = nbk.run_sequential(ex, folder, "auto", 1e9, backend="serial", cache_dir=tmp_path / "cache", progress=False)
    assert [L["n"] for L in again["design"]["looks"]] == [3, 6, 12, 24]
    assert all(r["committed_verdict"] == rewritten[cid].verdict for cid, r in again["claims"].items())


def test_make_decide_and_the_notebooks_call_the_same_function(monkeypatch, tmp_path):
    calls = []

    def step(name, folder, schedule, budget_s, spending, **kw):
        calls.append((name, Path(folder), schedule, budget_s, spending))
        return {"experiment": name}

    monkeypatch.setattr(S, "step", step)
    monkeypatch.setattr(S, "summary", lambda out: "")
    assert S.main(["decide", "duets", "--figures", str(tmp_path), "--schedule", "5,10", "--budget-s", "60",
                   "--spending", "pocock", "--dry-run"]) == 0
    nbk.run_sequential("duets", tmp_path / "duets", "5,10", 60, "pocock")
    assert calls[0][:2] == calls[1][:2] == ("duets", tmp_path / "duets")
    assert S.check_step(calls[0][2]) == S.check_step(calls[1][2])
    assert calls[0][3:] == (60.0, "pocock") and calls[1][3:] == (60, "pocock")
    # the same defaults: no limit, O'Brien-Fleming, and the CLI's schedule "auto"
    import inspect

    sig = inspect.signature(nbk.run_sequential)
    assert sig.parameters["budget_s"].default is None and sig.parameters["spending"].default == "obf"
    assert S.check_step("auto") == ("auto", float("inf"), "obf")


def test_check_decide_reads_the_first_look_from_the_parameters():
    from bandits.experiments import duets as dx

    quick = dx.fig1_params("quick")  # 5 runs, 2 tune beta: 3 tested
    for ok in (None, "auto", "3,6,12", (3, 6)):
        nbk.check_decide("duets", quick, ok, 600, "pocock")
    with pytest.raises(ParameterError, match="starting at 3"):
        nbk.check_decide("duets", quick, "5,10,20")
    with pytest.raises(ParameterError, match="starting at 5"):
        nbk.check_decide("duets", dx.fig1_params("full"), "3,6")
    with pytest.raises(ParameterError, match="decide_schedule.*no hooks"):
        nbk.check_decide("cope_kb", {"n_runs": 3}, "3,6")
    with pytest.raises(ParameterError, match="decide_budget_s"):
        nbk.check_decide("duets", quick, None, -5)


@pytest.mark.parametrize("name", ["duets", "fn_ucb"])
def test_planned_runs_is_what_the_hooks_read_back(name):
    folder = ROOT / "figures" / name
    if not (folder / "runs.csv").exists():
        pytest.skip(f"figures/{name} not committed")
    h = S.hooks_for(name)
    state = h.load(folder)
    assert h.planned_runs(state["params"]) == h.n_runs(state)
    runs = state["runs"]
    if name == "duets":  # the runs that did not tune beta
        assert h.n_runs(state) == runs.rep.nunique() - state["params"]["tune_runs"]
    else:  # the most runs of a curve (Figure 4's nu-selection runs apart)
        assert h.n_runs(state) == runs[runs.figure != "4-select"].groupby(["figure", "env", "label"]).rep.nunique().max()


def test_the_last_cell_with_a_schedule_on_a_committed_folder(tmp_path, capsys):
    # the duets hooks on a copy of the committed folder, a budget of 0 s: look 1 only, no run added
    src = ROOT / "figures" / "duets"
    if not (src / "runs.csv").exists():
        pytest.skip("figures/duets not committed")
    out = tmp_path / "duets"
    out.mkdir()
    shutil.copy(src / "runs.csv", out / "runs.csv")
    prov = json.loads((src / "provenance.json").read_text())
    claims = S.read_claims(src)
    nbk.finish_notebook(claims, prov["parameters"], seed=prov["seed"], out_dir=out, notebook="duets.ipynb",
                        mode="full", n_jobs=1, backend="serial", about={"paper": "DUETS", "figure": "1"},
                        decide_schedule="5,10,20,40", decide_budget_s=0, decide_spending="obf",
                        cache_dir=tmp_path / "cache")
    text = capsys.readouterr().out
    seq = json.loads((out / "sequential.json").read_text())
    assert seq["stopped"] == "budget" and seq["cpu_s"] == 0
    assert json.loads((out / "provenance.json").read_text())["sequential"] == {
        "schedule": "5,10,20,40", "budget_s": 0, "spending": "obf"}
    after = S.read_claims(out)
    assert text.startswith("duets: schedule n = 5, 10, 20, 40") and text.endswith(claims_table(after) + "\n")
    assert all("sequential rule" in c.note for c in after if c.id in seq["claims"])


def test_decide_futility_is_checked_and_passed_to_the_step(toy, tmp_path, monkeypatch):
    """``decide_futility`` (the look from which the optional futility stop acts; 0: none) is checked in the set-up
    cell and reaches :func:`bandits.sequential.step`; ``make figures`` passes it where a design uses it."""
    for bad in (-1, True, 1.5, "2"):
        with pytest.raises(ParameterError, match="decide_futility"):
            nbk.check_decide("duets", None, None, futility=bad)
    nbk.check_decide("duets", None, None, futility=2)
    seen = {}
    monkeypatch.setattr(S, "step", lambda *a, **k: seen.update(k) or {})
    ex, folder = toy
    nbk.run_sequential(ex, folder, "auto", futility=2, cache_dir=tmp_path / "cache")
    assert seen["futility"] == 2
    for name, (sch, kind, budget, *fut) in S.FULL_MODE_DESIGNS.items():
        args = S.papermill_args(name)
        assert ("decide_futility" in args) == bool(fut and fut[0])
