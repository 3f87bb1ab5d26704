"""Coop-KernelUCB theory checks: the hooks of the sequential step (:mod:`bandits.sequential`) for the committed
folder ``figures/coop_theory``.

The claims (:func:`bandits.experiments.coop_theory_claims.theory_claims`) are called as they are, at the look's
level, on the committed runs (``results.csv``: one row per run, ``R_T`` the per-agent regret R̂(T)) and the added
ones, with the committed tables of C5–C8 (``c5_curves.csv``, ``c6_lemma3.csv``, ``c7_lemma4.csv``,
``c8_mmd.csv``) as they are. A cell is ``(check, method, x)`` (``x`` the grid value: V, γ, k or n_c); a claim's
cells are the cells whose runs move its comparison (:func:`bandits.experiments.table_sequential.claim_reads`),
not a list kept by hand. The added runs take indices after the committed ones (run r of every method and
configuration shares its bandit and its context and noise streams: ``env_seed = r``, as
:func:`~bandits.experiments.coop_theory.theory_tasks` sets it). Margins: :mod:`~bandits.experiments.table_sequential`.

**Covered and not covered by the rule** (:func:`bandits.sequential.covered` says which at look 1; a claim not
covered keeps its committed verdict): the slope claims (C1, C4, C5, C8) take the run as the unit, one
least-squares log–log slope per run and Student's t over the runs' slopes
(:func:`~bandits.claims.per_run_slope_check`, method "t-runs"; a range as two one-sided parts, combined), so the
rule covers them, as it covers C3's and C4's paired comparisons. The C2 and C9 correlations are not covered:
they are tested by :func:`~bandits.claims.compare_statistic`, whose interval is not Student's on per-run
values. C6, C7 and C10 are implementation checks built without a :class:`~bandits.claims.Comparison`.

C10 reads C2's per-round deliveries, which the committed folder does not hold: the hooks give it NaN (its
claim is never rewritten by the step, which rewrites only the claims it decides). C5's and C8's tables are not
extended by added runs: their claims read no cell of ``results.csv``, so none gets runs (decided or not, they keep
the committed runs' verdict).

Cost of a run: the mean recorded ``wall_time`` of the cell's runs (``results.csv``).

Left out of the run cache's fingerprint (``*_sequential.py``, :func:`bandits.runner.in_runs`).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .table_sequential import RunsTableHooks

__all__ = ["CoopTheorySequential"]


class _Unrecorded(dict):
    """C2's per-round deliveries (C10), not in the committed folder: NaN for every (method, γ, run)."""

    def __init__(self, T: int):
        super().__init__()
        self.T = int(T)

    def __missing__(self, key):
        return {"per_round": np.full(self.T, np.nan), "by_kind": {}}


@dataclass
class CoopTheorySequential(RunsTableHooks):
    """The :class:`bandits.sequential.SequentialExperiment` hooks for ``figures/coop_theory``."""

    name: str = "coop_theory"
    cell_cols: tuple = ("check", "method", "x")
    value_cols: tuple = ("R_T",)

    def _read(self, folder):
        import pandas as pd

        from . import coop_theory as ex
        from ..envs.coop import coop_network

        folder = Path(folder)
        prov = json.loads((folder / "provenance.json").read_text())
        p = ex.theory_params(prov.get("mode", "full"), **prov["parameters"])
        self._tables = {k: pd.read_csv(folder / f) for k, f in (("curves", "c5_curves.csv"), ("c6", "c6_lemma3.csv"),
                                                                 ("c7", "c7_lemma4.csv"), ("c8", "c8_mmd.csv"))}
        nets = {}
        for (cfg, _), lab in zip(*ex.theory_tasks(dict(p, n_runs=1))):
            key = (lab["check"], lab["x"])
            if key not in nets:
                net = coop_network(cfg["env"])
                nets[key] = {**net.stats(), "clique_of": net.clique_of}
        self._networks = nets
        return p, int(prov.get("seed", 0)), pd.read_csv(folder / "results.csv")

    def _claims(self, state, runs, level):
        from .coop_theory import TheoryResults
        from .coop_theory_claims import theory_claims

        t = self._tables
        n = int(runs.groupby(list(self.cell_cols)).rep.nunique().min())
        p = dict(state["params"], n_runs=n)
        res = TheoryResults(p, runs, t["curves"], _Unrecorded(p["T"]), t["c6"], t["c7"], t["c8"], self._networks, 0, 0)
        return theory_claims(res, level=level)

    def _tasks(self, cells, reps, state):
        from .coop_theory import theory_tasks

        want = {tuple(c) for c in cells}
        reps = [int(r) for r in reps]
        tasks, labels = [], []
        for (cfg, rep), lab in zip(*theory_tasks(dict(state["params"], n_runs=max(reps) + 1))):
            if rep in reps and (lab["check"], lab["method"], lab["x"]) in want:
                tasks.append((cfg, rep))
                labels.append(dict(lab))
        return tasks, labels

    def _rows(self, labels, results, state):
        """One row per run, as :func:`bandits.experiments.coop_theory.run_theory` writes ``results.csv``."""
        import pandas as pd

        rows = []
        for lab, res in zip(labels, results):
            R = np.cumsum(np.asarray(res["arrays"]["regret"], dtype=float)) / lab["V"]
            info = res["meta"].get("info") or {}
            rows.append({**lab, "R_T": float(R[-1]), "accepted_deliveries": info.get("accepted_deliveries"),
                         "wall_time": res["meta"]["wall_time"], "cpu_time": res["meta"].get("cpu_time")})
        return pd.DataFrame(rows)

    def cost_s(self, cell, state) -> float:
        c = super().cost_s(cell, state)
        return c if c > 0 else math.inf
