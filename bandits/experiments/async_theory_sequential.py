"""Async-KernelUCB theory checks C2 and C8: the hooks of the sequential step (:mod:`bandits.sequential`) for the
committed folder ``figures/async_theory``.

**Which claims.** The paired claims of the extra checks that are decided on per-run values with Student's
interval: ``C2-eps-shrinks`` (Lemma 4.1: ε̂ falls along the oversampling grid ``c2_q`` plus Lemma 4.1's q,
every consecutive paired difference < 0) and ``C8-rises-with-D`` (Lemma C.1: the run's largest staleness
ratio rises along ``c8_D``, every consecutive paired difference > 0), called as they are
(:func:`bandits.experiments.async_theory.claims.extra_claims`, at the look's level) on the committed runs
(``extra_c2.csv``, ``extra_c8.csv``) and the added ones. Both have ``extra_runs`` runs per cell, the design's
first look. Left out of the step: C10 (``c10_runs`` runs per cell, another count than ``extra_runs``: its
equivalence claim ``C10-async-regret-unchanged`` keeps its fixed-size verdict, a single look), C3 and C9
(implementation checks built without a :class:`~bandits.claims.Comparison`), and the main table's checks
C1, C4–C7 (:func:`~bandits.experiments.async_theory.claims.theory_claims`: other runs, other cells; their slope
claims are OLS fits through means over a grid, which the rule does not cover).

**Cells** ``(check, q, D)`` (``q = inf`` for C8, which runs the exact dictionary): a claim's cells are found by
perturbing the runs (:func:`bandits.experiments.table_sequential.claim_reads`), not listed by hand. The added
runs take indices after the committed ones (run r of every cell shares its θ*, ``env_seed = r``, and its
streams, as :func:`~bandits.experiments.async_theory.runs.run_extra` sets them), through the run cache
(``fn`` :func:`~bandits.experiments.async_theory.runs.run_extra_cell`).

**Margins** (the within-margin stop): :mod:`~bandits.experiments.table_sequential`'s rule (a difference claim:
10 % of the smallest non-zero mean of the values it reads, two significant digits; at the committed runs
``C2-eps-shrinks`` reads ε̂, ``C8-rises-with-D`` the largest Lemma C.1 ratio). Lemma 4.1 and Lemma C.1 are
bounds and state no size of change: a choice of this package, fixed before any run is added.

**Cost of a run** (the budget): the extra tables do not record run times. A cell's cost is the mean recorded
``wall_time`` of its added runs when it has some; else the run cache's record of its committed runs
(:func:`cached_wall_times`, the cache of ``$BANDITS_CACHE_DIR`` or ``cache/``: present when the notebook ran on
the current code); else the notebook's recorded duration (papermill's, × its ``n_jobs``) less the runs the
folder times (``results.csv``), shared equally among the runs it does not time
(:func:`untimed_share_s`). A rough estimate: the budget is a guard, the runs' own times are recorded.

Left out of the run cache's fingerprint (``*_sequential.py``, :func:`bandits.runner.in_runs`).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .async_theory.runs import c2_stats, c8_stats
from .table_sequential import RunsTableHooks

__all__ = ["AsyncTheorySequential", "cached_wall_times", "untimed_share_s"]

#: the extra checks whose claims the step decides (their tables' ``check`` column)
CHECKS = ("c2", "c8")


def _num(x) -> float:
    """A grid value as a cell key: ten significant digits (the CSV's and the parameters' floats agree)."""
    return float(f"{float(x):.10g}")


def cached_wall_times(tasks, seed: int, fn, cache_dir=None) -> list:
    """The recorded ``meta["wall_time"]`` of each ``(config, rep)`` in the run cache (``cache_dir``, default
    :func:`bandits.experiments.notebook.default_cache_dir`) under the current code; NaN where absent."""
    from ..runner import run_key
    from .notebook import default_cache_dir

    root = Path(cache_dir or default_cache_dir())
    out = []
    for cfg, rep in tasks:
        p = root / f"{run_key(cfg, seed, rep, fn)}.npz"
        w = math.nan
        if p.exists():
            try:
                with np.load(p, allow_pickle=False) as z:
                    w = float(json.loads(str(z["__meta__"])).get("wall_time", math.nan))
            except Exception:  # unreadable: no record
                w = math.nan
        out.append(w)
    return out


def untimed_share_s(folder, notebook: str, n_untimed: int, timed_s: float = 0.0) -> float:
    """The notebook's recorded duration (papermill's ``duration`` in ``folder/notebook`` × the provenance's
    ``n_jobs``: CPU seconds at most) less ``timed_s`` (the runs the folder times), shared among ``n_untimed``
    runs; NaN when the notebook holds no duration."""
    folder = Path(folder)
    try:
        nb = json.loads((folder / notebook).read_text())
        dur = float(nb["metadata"]["papermill"]["duration"])
        jobs = int(json.loads((folder / "provenance.json").read_text()).get("n_jobs", 1) or 1)
    except (OSError, KeyError, TypeError, ValueError):
        return math.nan
    return max(dur * jobs - timed_s, 0.0) / max(n_untimed, 1)


@dataclass
class AsyncTheorySequential(RunsTableHooks):
    """The :class:`bandits.sequential.SequentialExperiment` hooks for ``figures/async_theory``."""

    name: str = "async_theory"
    cell_cols: tuple = ("check", "q", "D")
    value_cols: tuple = ("eps_hat", "max_ratio")

    def _read(self, folder):
        import pandas as pd

        from .async_theory import run_extra_cell, theory_params

        folder = Path(folder)
        prov = json.loads((folder / "provenance.json").read_text())
        p = theory_params(prov.get("mode", "full"), **prov["parameters"])
        self.fn = run_extra_cell
        parts = []
        for c in CHECKS:
            df = pd.read_csv(folder / f"extra_{c}.csv")
            df = df.assign(check=c)
            if "q" not in df:  # C8 runs the exact dictionary (q = inf)
                df = df.assign(q=math.inf)
            parts.append(df)
        runs = pd.concat(parts, ignore_index=True)
        runs["q"] = runs.q.map(_num)
        runs["D"] = runs.D.map(_num)
        if "wall_time" not in runs:
            runs["wall_time"] = math.nan
        self._folder = folder
        self._fixed = {c: pd.read_csv(folder / f"extra_{c}.csv").drop(columns=["check"])
                       for c in ("c3", "c9") if (folder / f"extra_{c}.csv").exists()}
        return p, int(prov.get("seed", 0)), runs

    def _claims(self, state, runs, level):
        from .async_theory import ExtraResults
        from .async_theory.claims import extra_claims

        frames = {}
        for c in CHECKS:
            df = runs[runs.check == c].drop(columns=["check", "wall_time"])
            frames[c] = df.drop(columns=["q"]) if c == "c8" else df
        ext = ExtraResults(state["params"], c2=frames["c2"], c8=frames["c8"], **self._fixed)
        return extra_claims(ext, level=level)

    def load(self, folder):
        state = super().load(folder)
        state["cost"] = self._costs(state)
        return state

    # ---------------------------------------------------------------- tasks and rows
    def _labelled(self, p, reps):
        """``[(cell, label, config)]`` of the C2 and C8 runs at run indices ``reps``."""
        from .async_theory.runs import _extra_tasks

        out = []
        for lab, cfg in _extra_tasks(dict(p, extra_runs=max(reps) + 1), ["C2", "C8"]):
            if lab["rep"] not in reps:
                continue
            c = lab["check"].lower()
            cell = (c, _num(lab.get("q", math.inf)) if c == "c2" else math.inf, _num(lab["D"]))
            out.append((cell, lab, cfg))
        return out

    def _tasks(self, cells, reps, state):
        want = {tuple(c) for c in cells}
        tasks, labels = [], []
        for cell, lab, cfg in self._labelled(state["params"], [int(r) for r in reps]):
            if cell in want:
                tasks.append((cfg, int(lab["rep"])))
                labels.append(lab)
        return tasks, labels

    def _rows(self, labels, results, state):
        """One row per run, as :func:`bandits.experiments.async_theory.runs.run_extra` builds the C2 and C8 rows
        (plus the run's ``wall_time``)."""
        import pandas as pd

        p = state["params"]
        rows = []
        for lab, res in zip(labels, results):
            a, m = res["arrays"], res["meta"]
            c = lab["check"].lower()
            row = {k: v for k, v in lab.items() if k != "check"}
            row.update(check=c, R_T=m["R_T"], C_T=m["C_T"], B=m.get("B", np.nan), dict_size=m.get("dict_size", np.nan),
                       wall_time=float(m.get("wall_time", np.nan)))
            if c == "c2":
                row.update(c2_stats(a, m))
            else:
                row.update(q=math.inf, **c8_stats(a, p["N"], lab["D"]))
            row["q"], row["D"] = _num(row["q"]), _num(row["D"])
            rows.append(row)
        return pd.DataFrame(rows)

    def _from_stored(self, rows):
        """Kept rows read back: ``q`` and ``D`` as cell keys, as ``_read`` gives the committed rows."""
        return rows.assign(q=rows.q.map(_num), D=rows.D.map(_num))

    # ---------------------------------------------------------------- cost
    def _costs(self, state) -> dict:
        """Cell → estimated seconds of one run (module docstring): the cache's record of the committed runs,
        else the notebook's untimed share."""
        import pandas as pd

        runs = state["runs"]
        reps = sorted(int(r) for r in runs.rep.unique())
        lab = self._labelled(state["params"], reps)
        rec = cached_wall_times([(cfg, l["rep"]) for _, l, cfg in lab], state["seed"], self.fn)
        by = {}
        for (cell, _, _), w in zip(lab, rec):
            if math.isfinite(w):
                by.setdefault(cell, []).append(w)
        timed = 0.0
        if (self._folder / "results.csv").exists():
            w = pd.read_csv(self._folder / "results.csv").get("wall_time")
            timed = float(np.nansum(w)) if w is not None else 0.0
        n_untimed = sum(len(pd.read_csv(f)) for f in self._folder.glob("extra_*.csv"))
        share = untimed_share_s(self._folder, "async_theory.ipynb", n_untimed, timed)
        cells = {cell for cell, _, _ in lab}
        state["cost_source"] = {c: ("cache" if c in by else "notebook share") for c in cells}
        return {c: (float(np.mean(by[c])) if c in by else share) for c in cells}

    def cost_s(self, cell, state) -> float:
        r = state["runs"]
        keys = r[list(self.cell_cols)].apply(tuple, axis=1)
        w = r.loc[(keys == tuple(cell)).to_numpy(), "wall_time"].to_numpy(float)
        w = w[np.isfinite(w)]
        if w.size:
            return float(w.mean())
        c = float(state["cost"].get(tuple(cell), math.nan))
        return c if math.isfinite(c) else math.inf  # no record at all: refused under any finite budget
