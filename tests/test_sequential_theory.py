"""The sequential step's hooks for the theory folders (async_theory, coop_theory, fn_ucb_theory): they load the
committed folders, find the cells behind the claims from the claims code, and a step with no budget refuses its
first stage with an estimate (no run is made here)."""
from __future__ import annotations

import copy
import math
from pathlib import Path

import pytest

from bandits.sequential import HOOKS, Design, decide, hooks_for

ROOT = Path(__file__).resolve().parents[1]

#: the claims INCONCLUSIVE in the committed full-mode folders that the hooks are for
LISTED = {"async_theory": ["C2-eps-shrinks", "C8-rises-with-D"],
          "coop_theory": ["C1-dist-slope"],
          "fn_ucb_theory": ["E3-only-ucb-a-steeper", "E2-federation-vs-central", "E2-regret-slope-N",
                            "E2-federation-vs-central-official"]}


class _Loaded:
    """The hooks with their state loaded once (``decide`` calls ``load``)."""

    def __init__(self, exp, state):
        self.exp, self.state = exp, state
        self.name, self.margins, self.fn = exp.name, exp.margins, exp.fn

    def load(self, folder):
        return copy.deepcopy(self.state)

    def __getattr__(self, k):
        return getattr(self.exp, k)


def _load(name):
    folder = ROOT / "figures" / name
    if not (folder / "claims.json").exists():
        pytest.skip(f"figures/{name} not committed")
    exp = hooks_for(name)
    return exp, exp.load(folder), folder


@pytest.fixture(scope="module")
def async_theory():
    return _load("async_theory")


@pytest.fixture(scope="module")
def fn_ucb_theory():
    return _load("fn_ucb_theory")


@pytest.fixture(scope="module")
def coop_theory():
    return _load("coop_theory")


def test_the_theory_hooks_are_registered():
    for name in LISTED:
        assert name in HOOKS
        exp = hooks_for(name)
        assert exp.name == name


def _cells_found(exp, state, name):
    for cid in LISTED[name]:
        assert exp.claim_cells(cid, state), f"{name}: no cell found for {cid}"


def _refused(exp, state, folder, only, n0):
    return decide(_Loaded(exp, state), folder, Design((n0, 2 * n0)), budget_s=0.0, write=False, only=only)


def test_async_theory_cells_and_refused_stage(async_theory):
    exp, state, folder = async_theory
    _cells_found(exp, state, "async_theory")
    assert exp.n_runs(state) == 3
    # C2's cells are its q grid (with Lemma 4.1's q), C8's its D grid: found by perturbing the runs
    c2 = exp.claim_cells("C2-eps-shrinks", state)
    assert {c[0] for c in c2} == {"c2"} and len(c2) == len(state["params"]["c2_q"]) + 1
    c8 = exp.claim_cells("C8-rises-with-D", state)
    assert {c[0] for c in c8} == {"c8"} and len(c8) == len(state["params"]["c8_D"])
    assert set(exp.margins) >= set(LISTED["async_theory"])
    before = (folder / "claims.json").read_text()
    out = _refused(exp, state, folder, LISTED["async_theory"], 3)
    assert (folder / "claims.json").read_text() == before
    st = out["stages"][0]
    assert "refused" in st and out["stopped"] == "budget"
    assert math.isfinite(st["estimated_s"]) and st["estimated_s"] > 0
    assert set(st["claims"]) == set(LISTED["async_theory"])
    assert st["reps"] == [3, 4, 5]


def test_async_theory_tasks_are_the_extra_runs_at_the_new_indices(async_theory):
    from bandits.experiments.async_theory.runs import _extra_tasks

    exp, state, _ = async_theory
    cells = exp.claim_cells("C8-rises-with-D", state)
    tasks = exp.tasks(cells, [3, 4], state)
    assert len(tasks) == 2 * len(cells)
    ref = [(cfg, lab["rep"]) for lab, cfg in _extra_tasks(dict(state["params"], extra_runs=5), ["C8"])
           if lab["rep"] in (3, 4)]
    assert sorted(map(repr, tasks)) == sorted(map(repr, ref))


def test_fn_ucb_theory_cells_and_refused_stage(fn_ucb_theory):
    exp, state, folder = fn_ucb_theory
    _cells_found(exp, state, "fn_ucb_theory")
    assert exp.n_runs(state) == 3
    assert {c[0] for c in exp.claim_cells("E3-only-ucb-a-steeper", state)} == {"E3", "E3a"}
    assert {c[0] for c in exp.claim_cells("E2-federation-vs-central", state)} == {"E2"}
    assert {c[0] for c in exp.claim_cells("E2-federation-vs-central-official", state)} == {"E2o"}
    assert {c[2] for c in exp.claim_cells("E2-regret-slope-N", state)} == set(state["params"]["N_grid_E2"])
    # an equivalence ("matches" within [1/3, 3]) gets no within-margin stop; a per-run slope claim one in slope units
    assert "E2-federation-vs-central" not in exp.margins
    assert 0 < exp.margins["E3-only-ucb-a-steeper"] < 1
    out = _refused(exp, state, folder, LISTED["fn_ucb_theory"], 3)
    for cid in LISTED["fn_ucb_theory"]:
        assert cid in out["claims"] or cid in out["not_covered"]
    st = out["stages"][0]
    assert "refused" in st and math.isfinite(st["estimated_s"]) and st["estimated_s"] > 0
    assert st["reps"] == [3, 4, 5]
    # a user's step prices each cell at its committed runs' own recorded times in the folder's tables
    import pandas as pd

    assert set(state["cost_source"].values()) == {"table"}
    r = pd.read_csv(folder / "results.csv")
    row = r.iloc[0]
    cell = (row.check, row.algorithm, int(row.N), float(f"{row.D:.10g}"), float(f"{row.nu_a:.10g}"), 0)
    same = (r.check == row.check) & (r.algorithm == row.algorithm) & (r.N == row.N) & (r.D == row.D) \
        & (r.nu_a == row.nu_a)
    assert math.isclose(state["cost"][cell], float(r[same].cpu_time.mean()))


def test_fn_ucb_theory_tasks_run_a_shared_configuration_once(fn_ucb_theory):
    exp, state, _ = fn_ucb_theory
    cells = exp.claim_cells("E2-federation-vs-central", state) + exp.claim_cells("E2-regret-slope-N", state)
    tasks = exp.tasks(cells, [3], state)
    # E2's N = 4 run is E2N's N = 4 run: 2 + 4 cells, 5 distinct configurations
    assert len(tasks) == 5 and all(rep == 3 for _, rep in tasks)
    assert len(state["_where"]) == 6


@pytest.mark.slow  # the claims are rebuilt once per cell to find the cells, each with its bootstraps (minutes)
def test_coop_theory_cells_and_coverage(coop_theory):
    exp, state, folder = coop_theory
    _cells_found(exp, state, "coop_theory")
    cells = exp.claim_cells("C1-dist-slope", state)
    assert {(c[0], c[1]) for c in cells} == {("C1", "Dist-KernelUCB")} and min(c[2] for c in cells) == 4
    n0 = exp.n_runs(state)
    out = _refused(exp, state, folder, LISTED["coop_theory"], n0)
    if "C1-dist-slope" in out["not_covered"]:  # its slope is a bootstrap hull over the runs (module docstring)
        assert "interval" in out["not_covered"]["C1-dist-slope"]
    else:
        st = out["stages"][0]
        assert "refused" in st and math.isfinite(st["estimated_s"]) and st["estimated_s"] > 0
