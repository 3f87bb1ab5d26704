"""DUETS Figure 1: the hooks of the sequential step (:mod:`bandits.sequential`) for the committed full-mode folder.

The claims (:func:`bandits.experiments.duets_claims.fig1_claims`) test the runs that did not tune β: in the
committed folder runs 0–4 test and runs 5–6 tune (``tune_runs = 2`` of ``n_runs = 7``). The step keeps that
split: β stays the one the tuning runs picked, and the added runs (indices 7, 8, ...) are tested runs of the
selected β of each method behind an undecided claim. The claims function is called as it is, at the look's
level, on the runs relabelled so that the tuning runs come last (its own convention,
:func:`~bandits.experiments.duets_claims.tuning_reps`); the pairing (run r of every method shares its
stream) is unchanged by the relabelling.

Margins (the within-margin stop, "no difference beyond m"), fixed at the first look from the committed
tested runs, before any run is added: 10 % of the smallest mean, over the claim's baselines, of the claim's
quantity (R(T), C(T) per agent, or total uplink), rounded to two significant digits. A choice of this
package: the paper's "significantly lower" names no size; a tenth of the baseline's value is the smallest
difference read as a difference here.

Left out of the run cache's fingerprint (``*_sequential.py``, :func:`bandits.runner.in_runs`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from ..comm import comm_curve
from ..sequential import next_reps, read_committed, round_margin
from . import duets as ex
from .duets_claims import fig1_claims, split_selection, tuning_reps

__all__ = ["DuetsSequential", "MARGIN_FRACTION"]

#: the within-margin stop's margin as a fraction of the smallest baseline mean (see the module docstring)
MARGIN_FRACTION = 0.10
_QUANTITY = {"fig1-regret": "R_T", "fig1-comm-code": "C_code", "fig1-comm": "C_paper"}


def _parse(claim_id: str) -> tuple[str, str]:
    """``fig1-comm-code-branin`` → (``"C_code"``, ``"branin"``)."""
    for prefix in ("fig1-comm-code", "fig1-regret", "fig1-comm"):  # longest first
        if claim_id.startswith(prefix + "-"):
            return _QUANTITY[prefix], claim_id[len(prefix) + 1:]
    raise ValueError(f"not a DUETS Figure-1 claim: {claim_id!r}")


@dataclass
class DuetsSequential:
    """The :class:`bandits.sequential.SequentialExperiment` hooks for ``figures/duets``."""

    name: str = "duets"
    margins: dict = field(default_factory=dict)
    fn: object = None

    # ---------------------------------------------------------------- state
    def load(self, folder):
        p, seed, runs = read_committed(folder, ex.fig1_params, ex._FULL)
        test, tune = tuning_reps(p)
        state = {"params": p, "seed": seed, "runs": runs, "tune": tune, "test": sorted(set(test))}
        self.margins = self._margins(state)
        return state

    def n_runs(self, state) -> int:
        return len(state["test"])

    def planned_runs(self, params) -> int:
        """The runs each claim is tested on in a folder the notebook writes with ``params`` (what :meth:`n_runs`
        reads back): the runs that do not tune β."""
        return len(set(tuning_reps(params)[0]))

    def seed(self, state) -> int:
        return state["seed"]

    def _selected(self, state):
        r = state["runs"]
        _, sel = split_selection(r[r.rep.isin(state["test"] + state["tune"])], state["tune"])
        return sel

    def _baselines(self, quantity):
        base = [m for m in ex.BASE_METHODS if m != "DUETS"]
        return base if quantity == "R_T" else [m for m in base if m != "N-KernelUCB"]

    def _margins(self, state) -> dict:
        r = state["runs"]
        r = r[r.rep.isin(state["test"])]
        sel = self._selected(state)
        out = {}
        for fn in state["params"]["functions"]:
            for prefix, q in (("fig1-regret", "R_T"), ("fig1-comm", "C_paper"), ("fig1-comm-code", "C_code")):
                means = []
                for m in self._baselines(q):
                    b = sel[(sel.function == fn) & (sel.method == m)].beta
                    if len(b):
                        means.append(float(r[(r.function == fn) & (r.method == m) & (r.beta == b.iloc[0])][q].mean()))
                if means:
                    out[f"{prefix}-{fn}"] = round_margin(MARGIN_FRACTION * min(means))
        return out

    # ---------------------------------------------------------------- claims at a level
    def claims(self, state, level: float):
        """``fig1_claims`` at ``level`` on the tested runs (committed and added) and the tuning runs, relabelled
        so that the tuning runs are the last ``tune_runs`` indices."""
        test, tune = state["test"], state["tune"]
        order = {r: i for i, r in enumerate(test + tune)}
        runs = state["runs"][state["runs"].rep.isin(order)].copy()
        runs["rep"] = runs.rep.map(order)
        p = dict(state["params"], n_runs=len(order), tune_runs=len(tune))
        claims = fig1_claims(ex.Fig1Results(p, None, runs, None, None), level=level)
        # the check texts name the run indices: the real ones, not the relabelled
        said_test, said_tune = tuning_reps(p)
        for c in claims:
            c.check = c.check.replace(f"per method on runs {said_tune}", f"per method on runs {list(tune)}").replace(
                f"tested on runs {said_test}", f"tested on runs {list(test)}")
        return claims

    # ---------------------------------------------------------------- cells and runs
    def claim_cells(self, claim_id: str, state) -> list:
        q, fn = _parse(claim_id)
        sel = self._selected(state)
        cells = []
        for m in ["DUETS"] + self._baselines(q):
            b = sel[(sel.function == fn) & (sel.method == m)].beta
            if len(b):
                cells.append((fn, m, float(b.iloc[0])))
        return cells

    def new_reps(self, state, n: int) -> list:
        return next_reps(state["runs"], len(state["test"]), n)

    def tasks(self, cells, reps, state) -> list:
        tasks, labels = ex.fig1_tasks(dict(state["params"], n_runs=1))
        want = set(cells)
        out = []
        for (cfg, _), lab in zip(tasks, labels):
            if (lab["function"], lab["method"], lab["beta"]) in want:
                out += [(cfg, r) for r in reps]
                state.setdefault("_labels", {})[json.dumps(cfg, sort_keys=True)] = lab
        return out

    def add_results(self, state, tasks, results):
        return self.add_rows(state, self.rows_of(state, tasks, results))

    def add_rows(self, state, tables):
        import pandas as pd

        new = tables["runs"]
        reps = sorted(set(int(r) for r in new.rep.tolist()) - set(state["test"]))
        return dict(state, runs=pd.concat([state["runs"], new], ignore_index=True), test=state["test"] + reps)

    def rows_of(self, state, tasks, results):
        import pandas as pd

        N = state["params"]["N"]
        rows = []
        for (cfg, rep), res in zip(tasks, results):
            lab = state["_labels"][json.dumps(cfg, sort_keys=True)]
            a, meta = res["arrays"], res["meta"]
            R = np.cumsum(a["regret"])
            rows.append({"function": lab["function"], "method": lab["method"], "beta": lab["beta"], "rep": rep,
                         "R_T": R[-1], "C_paper": comm_curve(a["comm_up"], a["comm_down"], N, "paper")[-1],
                         "C_code": comm_curve(a["comm_up"], a["comm_down"], N, "code_uplink")[-1],
                         "comm_rounds": meta["comm_rounds"], "wall_time": meta["wall_time"],
                         "cpu_time": meta.get("cpu_time"),
                         "n_syncs": (meta.get("info") or {}).get("n_syncs", np.nan)})
        return {"runs": pd.DataFrame(rows)}

    def cost_s(self, cell, state) -> float:
        fn, m, b = cell
        r = state["runs"]
        return float(r[(r.function == fn) & (r.method == m) & (r.beta == b)].wall_time.mean())
