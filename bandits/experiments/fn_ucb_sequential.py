"""FN-UCB (Figures 1–6): the hooks of the sequential step (:mod:`bandits.sequential`) for the committed full-mode folder.

A claim's cells are the curves ``(figure, env, label)`` whose runs its claims function reads: found by tracing
:func:`bandits.experiments.fn_ucb_claims._per_run` while the claims are built (not inside ``_means``, which
only prints), each claim's reads
closing at its :meth:`~bandits.experiments.claims.Claim.from_result` (no list kept by hand that could drift from
the claims). A curve shared by several figures is one configuration, run once (:func:`bandits.runner.run_key`).
The added runs take indices after every committed one (after Figure 4's ν-selection runs, which stay apart).

Margins (the within-margin stop, "no difference beyond m"), fixed at the first look from the committed runs,
before any run is added: 10 % of the smallest mean R̄(T) among the claim's curves, rounded to two significant
digits, in R̄(T) units (the ratio claims here are equivalences within stated bounds, which get no within-margin
stop). A choice of this package: the paper states no size for "less regret".

Figure 4's claims compare the *worse* of NeuralUCB and NeuralTS, picked on the tested runs' means; which one it
is can change as runs are added, so both are among those claims' cells.

Not covered by the rule (left as they are): ``fig6-*`` (an OLS slope through the points of all runs).

Left out of the run cache's fingerprint (``*_sequential.py``, :func:`bandits.runner.in_runs`).
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from . import fn_ucb as ex
from . import fn_ucb_claims as fc
from ..runner import run_key
from ..sequential import next_reps, read_committed, round_margin

__all__ = ["FNUCBSequential", "MARGIN_FRACTION"]

MARGIN_FRACTION = 0.10


@contextmanager
def _trace():
    """Record the curves each claim reads: ``{claim id: {(figure, env, label), ...}}``."""
    from .claims import Claim

    reads, by_claim, quiet = set(), {}, [0]
    per_run, means, orig = fc._per_run, fc._means, Claim.__dict__["from_result"]

    def _per_run(runs, figure, env, label):
        if not quiet[0]:
            reads.add((figure, env, label))
        return per_run(runs, figure, env, label)

    def _means(*args, **kwargs):  # the means printed in a claim's value text decide nothing: not recorded
        quiet[0] += 1
        try:
            return means(*args, **kwargs)
        finally:
            quiet[0] -= 1

    def from_result(cls, id, *args, **kwargs):
        by_claim[id] = set(reads)
        reads.clear()
        return orig.__func__(cls, id, *args, **kwargs)

    fc._per_run, fc._means, Claim.from_result = _per_run, _means, classmethod(from_result)
    try:
        yield by_claim
    finally:
        fc._per_run, fc._means, Claim.from_result = per_run, means, orig


@dataclass
class FNUCBSequential:
    """The :class:`bandits.sequential.SequentialExperiment` hooks for ``figures/fn_ucb``."""

    name: str = "fn_ucb"
    margins: dict = field(default_factory=dict)
    fn: object = None

    def load(self, folder):
        p, seed, runs = read_committed(folder, ex.fn_params, ex._FULL)
        state = {"params": p, "seed": seed, "runs": runs, "n": self.planned_runs(p),
                 "curves": {(c.figure, c.env, c.label): c for c in ex.curves(p)}}
        with _trace() as cells:
            self.claims(state, 0.95)
        for cid in cells:
            if cid.startswith("fig4-"):  # the worse neural method is picked on the tested runs: both stay in
                env = cid.split("-")[-1]
                cells[cid] |= {("4", env, lab) for lab in ("NeuralUCB", "NeuralTS")}
        state["cells"] = {cid: sorted(k for k in keys if k in state["curves"] and k[0] != "4-select")
                          for cid, keys in cells.items()}
        ok = runs[~ex.failed_mask(runs)]
        self.margins = {}
        for cid, keys in state["cells"].items():
            means = [float(ok[(ok.figure == f) & (ok.env == e) & (ok.label == l)].R_T.mean()) for f, e, l in keys]
            means = [m for m in means if math.isfinite(m) and m > 0]
            if means:
                self.margins[cid] = round_margin(MARGIN_FRACTION * min(means))
        return state

    def n_runs(self, state) -> int:
        return state["n"]

    def planned_runs(self, params) -> int:
        """The runs each claim is tested on in a folder the notebook writes with ``params``: ``n_runs``."""
        return int(params["n_runs"])

    def seed(self, state) -> int:
        return state["seed"]

    def claims(self, state, level: float):
        return fc.fn_claims(ex.FNResults(state["params"], None, state["runs"]), level=level)

    def claim_cells(self, claim_id: str, state) -> list:
        return list(state["cells"].get(claim_id, []))

    def new_reps(self, state, n: int) -> list:
        return next_reps(state["runs"], state["n"], n)

    def tasks(self, cells, reps, state) -> list:
        p = state["params"]
        tasks, index, where = [], {}, []
        for cell in cells:
            c = state["curves"][cell]
            cfg = c.config(p)
            for rep in reps:
                k = run_key(cfg, 0, rep)
                if k not in index:
                    index[k] = len(tasks)
                    tasks.append((cfg, rep))
                where.append((c, rep, index[k]))
        state["_where"] = where
        return tasks

    def add_results(self, state, tasks, results):
        return self.add_rows(state, self.rows_of(state, tasks, results))

    def add_rows(self, state, tables):
        import pandas as pd

        new = tables["runs"]
        if "failed" in new:
            new = new.assign(failed=new["failed"].astype(object).where(new["failed"].notna(), ""))
        return dict(state, runs=pd.concat([state["runs"], new], ignore_index=True),
                    n=state["n"] + len(set(new.rep.tolist())))

    def rows_of(self, state, tasks, results):
        import pandas as pd

        rows = []
        for c, rep, i in state["_where"]:
            meta, a = results[i]["meta"], results[i]["arrays"]
            lab = {"figure": c.figure, "env": c.env, "label": c.label, "algorithm": c.algorithm, "N": c.N,
                   "official": c.official, "rep": rep,
                   **{k: v for k, v in c.params if k in ("D", "nu", "diag", "variant", "width")}}
            if meta.get("failed"):
                rows.append({**lab, "R_T": math.nan, "rounds": math.nan, "wall_time": math.nan, "cpu_time": math.nan, "failed": meta["failed"]})
                continue
            R = np.cumsum(a["regret"]) / c.N
            rows.append({**lab, "R_T": float(R[-1]), "rounds": float(meta["info"].get("n_rounds", 0) or 0),
                         "wall_time": meta["wall_time"], "cpu_time": meta.get("cpu_time"), "failed": ""})
        return {"runs": pd.DataFrame(rows)}

    def cost_s(self, cell, state) -> float:
        r = state["runs"]
        w = r[(r.figure == cell[0]) & (r.env == cell[1]) & (r.label == cell[2])].wall_time.to_numpy(float)
        w = w[np.isfinite(w)]
        if w.size:
            return float(w.mean())
        same = r[(r.env == cell[1])].wall_time.to_numpy(float)  # every run of the curve diverged: its env's mean
        same = same[np.isfinite(same)]
        return float(same.mean()) if same.size else 0.0
