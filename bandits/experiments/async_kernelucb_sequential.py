"""Async-KernelUCB Figure 2: the hooks of the sequential step (:mod:`bandits.sequential`) for the committed
full-mode folder ``figures/async_kernelucb``.

The claims (:func:`bandits.experiments.async_kernelucb_claims.fig2_claims`, §5.2) are called as they are, at
the look's level, on the committed runs (``runs.csv``) and the added ones. A cell is ``(env, method)`` at the
(γ, α) the tuning runs selected (one setting per cell in ``runs.csv``; the tuning runs, reps 100+, stay apart
and are not repeated). A claim's cells are the cells whose runs move its comparison
(:func:`bandits.experiments.table_sequential.claim_reads`). Margins: :mod:`~bandits.experiments.table_sequential`.

OneKernelUCB runs ``heavy_runs`` (3) of the 10 on the environments with fresh contexts; a claim that pairs it
there is tested on the runs both methods have, so at a look of ``n`` runs it has ``3 + (n − 10)`` pairs, fewer
than the look's ``n``, at the look's level (the design's level for more runs: stricter than a design on its
own count would set at its later looks, looser than at its first). The added runs take indices 10, 11, ...
for every cell, OneKernelUCB's included, so the pairing by run index holds.

"Comparable or even better regret" (``fig2-async-vs-approx-regret-*``) is a ratio on the log scale while every
run's R(T) is positive and the scaled difference ``A − 1.2·B`` otherwise (a regret of exactly 0 has no log): its
margin is fixed at look 1 for the kind it has there (log(1.1) for the ratio); should an added run bring a zero,
the claim becomes a difference and the margin, fixed on the log scale, no longer applies
(:func:`bandits.sequential.decide_comparison` would read it in R(T) units: a stop only for an interval within
±0.095 of the threshold).

Left out of the run cache's fingerprint (``*_sequential.py``, :func:`bandits.runner.in_runs`).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import async_kernelucb as ex
from .table_sequential import RunsTableHooks

__all__ = ["AsyncKernelUCBSequential"]


@dataclass
class AsyncKernelUCBSequential(RunsTableHooks):
    """The :class:`bandits.sequential.SequentialExperiment` hooks for ``figures/async_kernelucb``."""

    name: str = "async_kernelucb"
    cell_cols: tuple = ("env", "method")
    value_cols: tuple = ("R_T", "C_T")

    def _read(self, folder):
        import pandas as pd

        folder = Path(folder)
        prov = json.loads((folder / "provenance.json").read_text())
        pr = prov["parameters"]
        p = ex.async_params("full", **{k: v for k, v in pr.items() if k in ex._FULL
                                       and not (isinstance(v, str) and not isinstance(ex._FULL[k], str))})
        return p, int(prov.get("seed", 0)), pd.read_csv(folder / "runs.csv")

    def _params_for(self, params, runs) -> dict:
        """The parameters with ``n_runs`` and ``heavy_runs`` as the runs now are (the claims' texts count them)."""
        n = int(runs.groupby(["env", "method"]).rep.nunique().max())
        heavy = {}
        for m in params.get("heavy_runs", {}):
            r = runs[runs.env.isin(ex.HEAVY_ENVS) & (runs.method == m)]
            if len(r):
                heavy[m] = int(r.groupby("env").rep.nunique().min())
        by_cell = {(str(e), str(m)): int(k) for (e, m), k in runs.groupby(["env", "method"]).rep.nunique().items()}
        return dict(params, n_runs=n, heavy_runs=heavy, runs_by_cell=by_cell)

    def _claims(self, state, runs, level):
        from .async_kernelucb_claims import fig2_claims

        p = self._params_for(state["params"], runs)
        return fig2_claims(ex.Fig2Results(p, None, runs, None, None), level=level)

    def _setting(self, state, cell):
        env, method = cell
        r = state["runs"]
        r = r[(r.env == env) & (r.method == method)].iloc[0]
        g = None if (r.gamma is None or (isinstance(r.gamma, float) and math.isnan(r.gamma))) else float(r.gamma)
        return g, float(r.alpha)

    def _tasks(self, cells, reps, state):
        p = state["params"]
        tasks, labels = [], []
        for env, method in cells:
            sel = {(env, method): self._setting(state, (env, method))}
            t, lab = ex.fig2_tasks(dict(p, envs=[env], methods=[method]), p["T"], list(reps), selected=sel)
            tasks += t
            labels += lab
        return tasks, labels

    def _rows(self, labels, results, state):
        """One row per run, as :func:`bandits.experiments.async_kernelucb.run_fig2` writes ``runs.csv``."""
        import pandas as pd

        rows = []
        for lab, res in zip(labels, results):
            a, meta = res["arrays"], res["meta"]
            info = meta.get("info") or {}
            R = np.cumsum(a["regret"])
            C = np.cumsum(a["comm_up"] + a["comm_down"])
            prior = info.get("prior_steps")
            rows.append({**lab, "R_T": float(R[-1]), "C_T": float(C[-1]), "comm_rounds": meta["comm_rounds"],
                         "wall_time": meta["wall_time"], "cpu_time": meta.get("cpu_time"),
                         "dict_size": info.get("dict_size", (info.get("dict_sizes") or [np.nan])[-1]),
                         "prior_pulls": len(prior) if prior is not None else np.nan,
                         "R_prior": float(np.sum(a["regret"][np.asarray(prior, dtype=int)])) if prior is not None
                         else np.nan})
        return pd.DataFrame(rows)
