"""The sequential step's hooks for Async-KernelUCB Figure 2, Coop-KernelUCB Figure 1 and the arena (hypotheses and
map): look 1 on the committed folders (no run added: a budget of 0 s refuses the first stage), the cells behind
each INCONCLUSIVE claim, the cost estimate from the recorded run times; the map's certainty table; and the step
end to end on a small map folder whose runs come from a stand-in cell (the engines are not run here)."""
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bandits import sequential as S

ROOT = Path(__file__).resolve().parents[1]
FIG = ROOT / "figures"


def _committed(name):
    folder = FIG / name
    if not (folder / "claims.json").exists():
        pytest.skip(f"figures/{name} not committed")
    return folder, S.fixed_size_verdicts(folder)  # a step's rewrite of claims.json read back to look 1's


@pytest.fixture(scope="module")
def async_hooks():
    from bandits.experiments.async_kernelucb_sequential import AsyncKernelUCBSequential

    folder, committed = _committed("async_kernelucb")
    h = AsyncKernelUCBSequential()
    return h, h.load(folder), folder, committed


@pytest.fixture(scope="module")
def coop_hooks():
    from bandits.experiments.coop_kernelucb_sequential import CoopKernelUCBSequential

    folder, committed = _committed("coop_kernelucb")
    h = CoopKernelUCBSequential()
    return h, h.load(folder), folder, committed


@pytest.fixture(scope="module")
def arena_hooks():
    from bandits.experiments.arena_sequential import ArenaSequential

    folder, committed = _committed("arena")
    h = ArenaSequential()
    return h, h.load(folder), folder, committed


def _look1(h, state, committed):
    """The claims at the nominal 95 % reproduce the committed verdicts; returns the INCONCLUSIVE ids."""
    built = {c.id: c.verdict for c in h.claims(state, 0.95)}
    assert built == committed
    return [cid for cid, v in built.items() if v == "INCONCLUSIVE"]


def _cost(h, state, folder, name):
    """The step at budget 0: the first stage is refused, its estimate is the cells' recorded seconds × runs."""
    n0 = h.n_runs(state)
    des = S.Design((n0, 2 * n0, 4 * n0, 8 * n0))
    out = S.decide(h, folder, des, budget_s=0.0, write=False)
    assert out["stopped"] == "budget" and out["cpu_s"] == 0 and all(r["decided_at_n"] == n0 for r in out["claims"].values())
    st = out["stages"][0]
    cells = {c for cid in st["claims"] for c in h.claim_cells(cid, state)}
    assert st["estimated_s"] == pytest.approx(sum(h.cost_s(c, state) for c in cells) * n0)
    assert st["estimated_s"] > 0
    covered = list(out["claims"])
    inc = [cid for cid in covered if out["claims"][cid]["committed_verdict"] == "INCONCLUSIVE"]
    worst = {n: (h.stage_cost(state, n, inc), h.stage_cost(state, n, covered)) for n in (10, 20) if n > n0}
    print(f"\n{name}: n0 = {n0}; first stage (to n = {2 * n0}) estimated {st['estimated_s']:.0f} s for "
          f"{len(st['claims'])} open claims of {len(covered)} covered on {len(cells)} cells; "
          + "; ".join(f"to n = {n}: {a:.0f} s (cells of the fixed-size INCONCLUSIVE claims), {b:.0f} s (every covered "
                      f"claim)" for n, (a, b) in worst.items()))
    return out


# ------------------------------------------------------------------------------ Async-KernelUCB
def test_async_look1_reproduces_the_committed_verdicts_and_maps_cells(async_hooks):
    h, state, folder, committed = async_hooks
    inc = _look1(h, state, committed)
    assert inc  # the committed folder has INCONCLUSIVE claims
    expect = {  # the methods each claim's text names, on its environment
        "fig2-async-vs-approx-comm": {"Async-KernelUCB", "Approx-DisKernelUCB"},
        "fig2-async-vs-approx-regret": {"Async-KernelUCB", "Approx-DisKernelUCB"},
        "fig2-kernel-vs-linear-regret": {"Async-KernelUCB", "Approx-DisKernelUCB", "DisLinUCB", "FedLinUCB",
                                         "FedGLB-UCB"},
        "fig2-kernel-vs-linear-comm": {"Async-KernelUCB", "Approx-DisKernelUCB", "OneKernelUCB"},
        "fig2-extremes": {"OneKernelUCB", "Async-KernelUCB", "NKernelUCB"},
    }
    for cid in committed:
        prefix, env = cid.rsplit("-", 1)
        cells = h.claim_cells(cid, state)
        assert {c[0] for c in cells} == {env}, cid
        assert {c[1] for c in cells} == expect[prefix], cid
    assert h.new_reps(state, 20) == list(range(10, 20))
    assert set(h.margins) == set(committed)


def test_async_cost_estimate(async_hooks):
    h, state, folder, _ = async_hooks
    _cost(h, state, folder, "async_kernelucb")


def test_async_tasks_are_the_selected_settings_at_the_new_runs(async_hooks):
    h, state, _, _ = async_hooks
    tasks = h.tasks([("f2", "Async-KernelUCB"), ("magic", "DisLinUCB")], [10, 11], state)
    assert [(lab["env"], lab["method"], lab["rep"]) for lab in state["_labels"]] == [
        ("f2", "Async-KernelUCB", 10), ("f2", "Async-KernelUCB", 11), ("magic", "DisLinUCB", 10), ("magic", "DisLinUCB", 11)]
    r = state["runs"]
    sel = r[(r.env == "f2") & (r.method == "Async-KernelUCB")].iloc[0]
    assert tasks[0][0]["params"]["kernel"]["gamma"] == sel.gamma and tasks[0][0]["params"]["alpha"] == sel.alpha
    assert tasks[0][0]["env_seed"] == 10 and tasks[0][1] == 10 and tasks[0][0]["T"] == state["params"]["T"]


# ------------------------------------------------------------------------------ Coop-KernelUCB
def test_coop_look1_reproduces_the_committed_verdicts_and_maps_cells(coop_hooks):
    from bandits.experiments.coop_kernelucb import COOPERATIVE, INDEPENDENT, PAPER_METHODS

    h, state, folder, committed = coop_hooks
    inc = _look1(h, state, committed)
    assert inc
    for cid in committed:
        if cid.startswith("fig1-safeguard"):
            assert h.claim_cells(cid, state) == []  # an implementation check without a comparison
            continue
        row = "linear" if "-linear-" in cid else "rbf"
        graph = cid.split(f"-{row}-", 1)[1]
        kind = cid[len("fig1-"):cid.index(f"-{row}-")]
        want = {"coop-vs-ind": set(COOPERATIVE) | set(INDEPENDENT[row]),
                "eager-best": set(PAPER_METHODS[row]),
                "coop-approx-dist": {"Coop-KernelUCB", "Dist-KernelUCB"},
                "beat-naive": {"Coop-KernelUCB", "Dist-KernelUCB", "Naive Cooperation"}}[kind]
        assert set(h.claim_cells(cid, state)) == {(row, graph, m) for m in want}, cid
    assert "fig1-coop-approx-dist-linear-er" not in h.margins  # an equivalence: its bounds are its margin


def test_coop_cost_estimate(coop_hooks):
    h, state, folder, _ = coop_hooks
    out = _cost(h, state, folder, "coop_kernelucb")
    assert not any(k.startswith("fig1-safeguard") for k in out["claims"]) and not out["not_covered"]


def test_coop_tasks_take_the_trial_index_as_the_env_seed(coop_hooks):
    h, state, _, _ = coop_hooks
    tasks = h.tasks([("rbf", "as733", "Eager-KernelUCB")], [10, 11], state)
    assert [(t[0]["env_seed"], t[1]) for t in tasks] == [(10, 10), (11, 11)]
    assert [lab["method"] for lab in state["_labels"]] == ["Eager-KernelUCB"] * 2


# ------------------------------------------------------------------------------ the arena's hypotheses
def test_arena_look1_reproduces_the_committed_verdicts_and_maps_cells(arena_hooks):
    from bandits.experiments.arena import SILENT

    h, state, folder, committed = arena_hooks
    inc = _look1(h, state, committed)
    assert inc
    pts = h._results(state, state["runs"]).points
    for cid in inc:
        cells = h.claim_cells(cid, state)
        assert cells, cid
        protocol = "sync" if "-sync-" in cid or cid.startswith("duets-front") else "async"
        env = cid.rsplit("-", 1)[1]
        assert {(c[0], c[1]) for c in cells} == {(protocol, env)}, cid
        here = pts[(pts.protocol == protocol) & (pts.env == env)]
        if cid.startswith(("async-front", "duets-front")):  # the method's points and every point as cheap as one
            m = "DUETS" if cid.startswith("duets") else "Async-KernelUCB"
            own = here[here.method == m]
            want = {(protocol, env, m, float(v)) for v in own.value}
            for o in own.itertuples():
                want |= {(protocol, env, r.method, float(r.value))
                         for r in here[(here.method != m) & (here.C_mean <= o.C_mean)].itertuples()}
            assert set(cells) == want, cid
        if cid.startswith("comm-pays"):  # every silent point is compared
            assert {(protocol, env, r.method, float(r.value)) for r in here[here.method.isin(SILENT)].itertuples()} \
                <= set(cells), cid
        if cid.startswith("kernel-beats-linear"):  # every linear point is compared
            lin = here[here.method.isin(("DisLinUCB", "FedLinUCB", "FedGLB-UCB"))]
            assert {(protocol, env, r.method, float(r.value)) for r in lin.itertuples()} <= set(cells), cid
    assert h.new_reps(state, 10) == list(range(5, 10))


def test_arena_cost_estimate(arena_hooks):
    h, state, folder, _ = arena_hooks
    out = _cost(h, state, folder, "arena")
    assert "break-even-async" not in out["claims"] and not out["not_covered"]  # built without a comparison


def test_arena_tasks_are_the_tested_points_at_the_chosen_exploration(arena_hooks):
    h, state, _, _ = arena_hooks
    cell = ("sync", "h1", "DUETS", 0.0)
    tasks = h.tasks([cell], [5, 6], state)
    assert [t[1] for t in tasks] == [5, 6]
    r = state["runs"]
    g = r[(r.protocol == "sync") & (r.env == "h1") & (r.method == "DUETS")].explore.iloc[0]
    assert all(lab["explore"] == g for lab in state["_labels"])


# ------------------------------------------------------------------------------ the map
def test_map_certainty_on_the_committed_map():
    from bandits.experiments.arena_plots import map_table
    from bandits.experiments.arena_sequential import map_certainty

    folder = FIG / "arena"
    if not (folder / "map.csv").exists():
        pytest.skip("figures/arena/map.csv not committed")
    runs = pd.read_csv(folder / "map.csv")
    tab = map_certainty(runs)
    win = map_table(runs)
    assert len(tab) == len(win) and list(tab.winner) == list(win.method)
    assert set(tab.status) <= {"separated", "not separated", "sole", "empty"}
    sep = tab[tab.status == "separated"]
    assert (sep.hi < 0).all() and (sep.runner_up != sep.winner).all()
    ns = tab[tab.status == "not separated"]
    assert ((ns.lo <= 0) & (ns.hi >= 0)).all() and len(ns) > 0
    # the runner-up is the best point of another method within the budget
    r = tab[tab.runner_up.notna()].iloc[0]
    sub = runs[(runs.env == r.env) & (runs.N == r.N) & (runs.t == r.t) & (runs.method != r.winner)]
    g = sub.groupby(["method", "value"]).agg(R=("R_t", "mean"), C=("C_t", "mean")).reset_index()
    best = g[g.C <= r.budget].sort_values(["R", "C"]).iloc[0]
    assert (best.method, best.value) == (r.runner_up, r.runner_up_value)
    print("\nmap: " + ", ".join(f"{k} {v}" for k, v in tab.status.value_counts().items()))


def _fake_arena_cell(config, seed, rep):
    """A stand-in for the arena's cell (no engine runs): R per step by method (a stream shared by the methods of a
    run and one of each method's own), communication 2 scalars per step except for the silent N-KernelUCB."""
    import zlib

    from bandits.runner import run_seeds

    T, alg = int(config["T"]), config["algorithm"]
    env_ss, alg_ss = run_seeds(seed, rep)
    shared = np.random.default_rng(env_ss).standard_normal(T)
    own = np.random.default_rng(np.random.SeedSequence(alg_ss.entropy, spawn_key=tuple(alg_ss.spawn_key) + (zlib.crc32(alg.encode()),)))
    mu = 0.5 if "N-KernelUCB" in alg else 0.3  # DisLinUCB and FedLinUCB tie
    regret = mu + 0.1 * shared + 0.1 * own.standard_normal(T)
    comm = np.zeros(T) if "N-KernelUCB" in alg else np.ones(T)
    return {"arrays": {"regret": regret, "comm_up": comm, "comm_down": comm}, "meta": {"wall_time": 0.01}}


def test_map_step_end_to_end_with_a_stand_in_cell(tmp_path):
    from bandits import runner
    from bandits.experiments import arena as ex
    from bandits.experiments.arena_sequential import ArenaMapSequential, decide_map

    folder = tmp_path / "arena"
    folder.mkdir()
    (folder / "provenance.json").write_text(json.dumps({"seed": 0, "parameters": {}}))
    mp = ex.map_params("full", envs=["hartmann4"], Ns=[10], checkpoints=[1000, 3000], n_runs=3,
                       methods={"N-KernelUCB": [0.0], "DisLinUCB": [10.0], "FedLinUCB": [10.0]})
    tasks, labels = ex.map_tasks(mp)
    res, _ = runner.sweep(tasks, 0, n_jobs=1, backend="serial", cache_dir=tmp_path / "cache", progress=False,
                          fn=_fake_arena_cell)
    h = ArenaMapSequential()
    state = {"params": mp, "_labels": labels, "runs": pd.DataFrame(), "n": 0}
    runs = h.add_results(state, tasks, res)["runs"]
    runs.to_csv(folder / "map.csv", index=False)
    # the full-mode map has more methods than this folder: tasks only for the cells asked
    state = h.load(folder)
    assert h.n_runs(state) == 3
    t = h.tasks([("hartmann4", 10, "FedLinUCB", 10.0)], [3, 4], state)
    assert len(t) == 2 and all(lab["method"] == "FedLinUCB" for lab in state["_labels"])
    des = S.Design((3, 6, 12))
    out = decide_map(folder, des, cache_dir=tmp_path / "cache", backend="serial",
                     hooks=ArenaMapSequential(fn=_fake_arena_cell))
    assert (folder / "map_sequential.json").exists() and (folder / "map_certainty.csv").exists()
    assert not (folder / "sequential.json").exists()
    added = [s for s in out["stages"] if "refused" not in s]
    assert added, "the tie DisLinUCB vs FedLinUCB is open at look 1"
    for s in added:  # only the points behind open claims get runs
        assert s["cells"] and all("N-KernelUCB" not in c for c in s["cells"])  # separated from both at look 1
        assert s["computed"] == s["runs"]
        assert s["recorded"] == "wall_time"  # the fake runs record a wall clock only: said, not taken for CPU time
    final = out["table"]
    assert final[final.runner_up.notna()].n.max() == added[-1]["n"]
    # resumable: a second pass computes nothing
    again = decide_map(folder, des, cache_dir=tmp_path / "cache", backend="serial", write=False,
                       hooks=ArenaMapSequential(fn=_fake_arena_cell))
    assert all(s["computed"] == 0 for s in again["stages"] if "refused" not in s)


def test_the_hooks_are_registered():
    from bandits.experiments.arena_sequential import ArenaSequential
    from bandits.experiments.async_kernelucb_sequential import AsyncKernelUCBSequential
    from bandits.experiments.coop_kernelucb_sequential import CoopKernelUCBSequential
    from bandits.runner import in_runs

    for name, cls in (("async_kernelucb", AsyncKernelUCBSequential), ("coop_kernelucb", CoopKernelUCBSequential),
                      ("arena", ArenaSequential)):
        h = S.hooks_for(name)
        assert isinstance(h, cls) and h.name == name
    for mod in ("table", "async_kernelucb", "coop_kernelucb", "arena"):  # they decide, they never run in a cell
        assert not in_runs(f"experiments/{mod}_sequential.py")


def test_claim_reads_finds_the_cells_a_claim_compares():
    from bandits.claims import compare_paired, compare_ratio
    from bandits.experiments.claims import Claim
    from bandits.experiments.table_sequential import claim_reads

    rng = np.random.default_rng(3)
    runs = pd.DataFrame([{"arm": a, "rep": r, "x": 1.0 + rng.random(), "y": 2.0 + rng.random()}
                         for a in "ABC" for r in range(4)])

    def claims(r):
        col = {a: r[r.arm == a].sort_values("rep") for a in "ABC"}
        return [Claim.from_result("a-below-b", "", "", compare_paired(col["A"].x.to_numpy(), col["B"].x.to_numpy(), "<")),
                Claim.from_result("c-ratio-a", "", "", compare_ratio(col["C"].y.to_numpy(), col["A"].y.to_numpy(), "<", 1.0))]

    reads = claim_reads(claims, runs, ("arm",), ("x", "y"))
    assert reads == {"a-below-b": {(("A",), "x"), (("B",), "x")}, "c-ratio-a": {(("C",), "y"), (("A",), "y")}}


def _fake_arena_test_cell(config, seed, rep):
    """:func:`_fake_arena_cell` with the ledger totals the arena's rows read (``total_up``, ``messages``, ...)."""
    r = _fake_arena_cell(config, seed, rep)
    up = float(r["arrays"]["comm_up"].sum())
    r["meta"] = {"wall_time": 0.01, "total_up": up, "total_down": up, "messages": int(up), "rounds": int(up)}
    return r


def test_arena_step_keeps_its_runs_in_the_folder_and_resumes_without_the_cache(tmp_path, arena_hooks):
    """On a copy of the committed arena folder with a stand-in cell: each look's runs kept in
    sequential_runs/runs.csv in the folder's own row format; a pass with the run cache gone reads them back and
    decides the same; the kept rows give the claims from the folder's files alone."""
    import shutil

    from bandits.experiments.arena_sequential import ArenaSequential

    h0, state0, folder0, _ = arena_hooks
    folder = tmp_path / "arena"
    folder.mkdir()
    for f in ("results.csv", "tuning.csv", "provenance.json", "claims.json", "sequential.json"):
        if (folder0 / f).exists():
            shutil.copy(folder0 / f, folder / f)
    n0 = h0.n_runs(state0)
    des = S.Design((n0, 2 * n0), kind="pocock")
    first = S.decide(ArenaSequential(fn=_fake_arena_test_cell), folder, des, cache_dir=tmp_path / "c1",
                     backend="serial", write=True)
    ran = [s for s in first["stages"] if "refused" not in s]
    if not ran:
        pytest.skip("every claim decided at look 1: no look to keep")
    kept = pd.read_csv(folder / S.STORED / "runs.csv")
    assert len(kept) == ran[0]["runs"] and set(kept.rep) == set(ran[0]["reps"])
    assert {"protocol", "env", "method", "value", "rep", "R_T", "C", "wall_time", "look"} <= set(kept.columns)
    again = S.decide(ArenaSequential(fn=_fake_arena_test_cell), folder, des, cache_dir=tmp_path / "c_empty",
                     backend="serial", write=False)
    assert again["stages"][0].get("stored") == ran[0]["runs"] and again["stages"][0]["computed"] == 0
    assert {k: v["verdict"] for k, v in again["claims"].items()} == {k: v["verdict"] for k, v in first["claims"].items()}
    h = ArenaSequential()
    state = S.stored_state(h, folder)
    assert h.n_runs(state) == 2 * n0
    level = des.level(1)
    built = {c.id: c.verdict for c in h.claims(state, level)}
    for cid, r in first["claims"].items():
        if r["look"] == 2 and r["verdict"] in ("PASS", "FAIL"):
            assert built[cid] == r["verdict"], cid


@pytest.mark.parametrize("name", sorted(p.parent.parent.name for p in FIG.glob(f"*/{S.STORED}/manifest.json")))
def test_committed_step_verdicts_are_rebuilt_from_the_folders_kept_runs(name):
    """Every claim a committed step judged after look 1 is built again from the folder's files (its runs.csv and
    the step's kept runs, sequential_runs/), at its look's level: the same verdict and effect as sequential.json."""
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    import keep_step_runs

    assert keep_step_runs.check_folder(name, FIG / name) == []
