"""Coop-KernelUCB Figure 1: the hooks of the sequential step (:mod:`bandits.sequential`) for the committed
full-mode folder ``figures/coop_kernelucb``.

The claims (:func:`bandits.experiments.coop_kernelucb_claims.fig1_claims`, §5) are called as they are, at the
look's level, on the committed trials (``runs.csv``) and the added ones, with ``n_runs`` the trials each curve
now has (the claims' texts count them). A cell is ``(row, graph, method)``; a claim's cells are the cells whose
runs move its comparison (:func:`bandits.experiments.table_sequential.claim_reads`). The added trials take
indices after the committed ones (trial r of every method shares the bandit and the context and noise streams:
the configuration's ``env_seed`` is the trial index, as :func:`~bandits.experiments.coop_kernelucb.fig1_tasks`
sets it). The safeguard checks (``fig1-safeguard-*``, implementation checks built without a comparison) are not
covered by the rule. Margins: :mod:`~bandits.experiments.table_sequential` (the equivalence claim
``fig1-coop-approx-dist-*`` gets none: its bounds are its margin).

Left out of the run cache's fingerprint (``*_sequential.py``, :func:`bandits.runner.in_runs`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import coop_kernelucb as ex
from .table_sequential import RunsTableHooks

__all__ = ["CoopKernelUCBSequential"]


@dataclass
class CoopKernelUCBSequential(RunsTableHooks):
    """The :class:`bandits.sequential.SequentialExperiment` hooks for ``figures/coop_kernelucb``."""

    name: str = "coop_kernelucb"
    cell_cols: tuple = ("row", "graph", "method")
    value_cols: tuple = ("R_T",)

    def _read(self, folder):
        import pandas as pd

        folder = Path(folder)
        prov = json.loads((folder / "provenance.json").read_text())
        pr = prov["parameters"]
        p = ex.fig1_params("full", **{k: v for k, v in pr.items() if k in ex._FULL
                                      and not (isinstance(v, str) and not isinstance(ex._FULL[k], str))})
        return p, int(prov.get("seed", 0)), pd.read_csv(folder / "runs.csv")

    def _claims(self, state, runs, level):
        from .coop_kernelucb_claims import fig1_claims

        n = int(runs.groupby(["row", "graph", "method"]).rep.nunique().min())
        p = dict(state["params"], n_runs=n)
        return fig1_claims(ex.Fig1Results(p, None, runs, {}, 0, 0), level=level)

    def _tasks(self, cells, reps, state):
        p = state["params"]
        tasks, labels = [], []
        for row, graph, method in cells:
            t, lab = ex.fig1_tasks(dict(p, rows=[row], graphs=[graph], n_runs=1))
            for (cfg, _), lb in zip(t, lab):
                if lb["method"] != method:
                    continue
                for rep in reps:
                    tasks.append((dict(cfg, env_seed=int(rep)), int(rep)))
                    labels.append(dict(lb, rep=int(rep)))
        return tasks, labels

    def _rows(self, labels, results, state):
        """One row per run, as :func:`bandits.experiments.coop_kernelucb.run_fig1` writes ``runs.csv`` (R̂(T): the
        cumulative regret per agent)."""
        import pandas as pd

        V = state["params"]["V"]
        rows = []
        for lab, res in zip(labels, results):
            a, info = res["arrays"], res["meta"].get("info") or {}
            rows.append({**lab, "R_T": float(np.sum(np.asarray(a["regret"], dtype=float))) / V,
                         "wall_time": res["meta"]["wall_time"], "cpu_time": res["meta"].get("cpu_time"),
                         "comm_scalars": float(np.sum(a["comm_up"]) + np.sum(a["comm_down"])),
                         "accepted_deliveries": info.get("accepted_deliveries"),
                         "rank_mean": info.get("rank_mean"), "rank_max": info.get("rank_max"),
                         "rank_last": info.get("rank_last"), "min_kept_var": info.get("min_Lv2"),
                         "capped": info.get("capped_agent_refreshes")})
        return pd.DataFrame(rows)
