"""The hooks of the sequential step (:mod:`bandits.sequential`) for an experiment whose committed folder holds
one table row per run (``runs.csv``-like: the cell's columns, ``rep``, the per-run values the claims read,
``wall_time``): the part shared by :mod:`~bandits.experiments.async_kernelucb_sequential`,
:mod:`~bandits.experiments.coop_kernelucb_sequential` and :mod:`~bandits.experiments.arena_sequential`.

**A claim's cells are found by perturbing the runs, not listed by hand.** The claims functions read the runs
through local helpers (no module-level reader to trace, as :mod:`~bandits.experiments.fn_ucb_sequential` does),
so :func:`claim_reads` calls the experiment's own claims function once on the committed runs and once per
(cell, value column) with that cell's values of that column shifted (every run by the same amount: the
mean of the column's absolute values plus 1, which moves a mean difference, a ratio of means and a log ratio
alike), and records which claims' comparisons (every part's effect and interval,
:func:`bandits.sequential.capture_comparisons`) change. A claim's cells are the cells whose values move its
comparison; a list kept by hand could drift from the claims functions, this cannot.

**Margins** (the within-margin stop, "no difference beyond m"), fixed at the first look from the committed
runs, before any run is added, as the DUETS and FN-UCB hooks fix them: a claim whose parts are all
differences gets 10 % of the smallest mean, over the (cell, column) pairs it reads, of that column, rounded
to two significant digits; a claim whose parts are all ratios gets ``log(1.1)`` on the log scale (a ratio
within 10 % of its threshold); an equivalence claim or a claim mixing kinds gets none (the rule gives an
equivalence part no within-margin stop). A choice of this package: the papers name no size of difference.

Left out of the run cache's fingerprint (``*_sequential.py``, :func:`bandits.runner.in_runs`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

__all__ = ["claim_reads", "RunsTableHooks", "MARGIN_FRACTION", "RATIO_MARGIN", "difference_margin"]

#: a difference claim's margin as a fraction of the smallest mean of the values it reads
MARGIN_FRACTION = 0.10
#: a ratio claim's margin on the log scale: a ratio within 10 % of its threshold
RATIO_MARGIN = math.log(1.1)


def difference_margin(means) -> float | None:
    """A difference claim's within-margin stop: :data:`MARGIN_FRACTION` of the smallest absolute finite,
    non-zero mean among ``means``, to two significant digits (None when there is none)."""
    means = [abs(m) for m in means if math.isfinite(m) and m != 0]
    return float(f"{MARGIN_FRACTION * min(means):.2g}") if means else None


def _leaves(c) -> list:
    out = []
    for p in (c.parts or (c,)):
        out.extend(_leaves(p) if p.parts else [p])
    return out


def _signature(c) -> tuple:
    """What a comparison decides on: every part's effect and interval (NaN-safe: as strings)."""
    return tuple((p.label, repr(float(p.effect)), repr(float(p.lo)), repr(float(p.hi)), p.verdict) for p in _leaves(c))


def _comparisons(claims_fn, runs) -> dict:
    from ..sequential import capture_comparisons

    with capture_comparisons() as got:
        claims_fn(runs)
    return got


def claim_reads(claims_fn, runs, cell_cols, value_cols, rep_col: str = "rep") -> dict:
    """``{claim id: {(cell, column), ...}}``: the (cell, value column) pairs whose values move the claim's
    comparison (see the module docstring). ``claims_fn(runs)`` builds the claims from a runs table; a cell is
    the tuple of ``cell_cols`` of a row."""
    base = {cid: _signature(c) for cid, c in _comparisons(claims_fn, runs).items()}
    reads = {cid: set() for cid in base}
    keys = runs[list(cell_cols)].apply(tuple, axis=1)
    for cell in dict.fromkeys(keys):
        mask = (keys == cell).to_numpy()
        for col in value_cols:
            x = runs.loc[mask, col].to_numpy(float)
            if not np.isfinite(x).any():
                continue
            shift = float(np.nanmean(np.abs(x))) + 1.0
            moved = runs.copy()
            moved.loc[mask, col] = x + shift
            got = _comparisons(claims_fn, moved)
            for cid, sig in base.items():
                if cid not in got or _signature(got[cid]) != sig:
                    reads[cid].add((cell, col))
    return reads


@dataclass
class RunsTableHooks:
    """The :class:`bandits.sequential.SequentialExperiment` hooks over a runs table. A subclass gives
    ``cell_cols`` (the columns naming a cell), ``value_cols`` (the per-run values the claims read) and
    ``_read`` (folder → params, seed, runs), ``_claims`` (state, runs, level → claims), ``_tasks`` (cells, reps,
    state → tasks, labels) and ``_rows`` (labels, results, state → the new rows)."""

    name: str = ""
    margins: dict = field(default_factory=dict)
    fn: object = None
    cell_cols: tuple = ()
    value_cols: tuple = ()

    # ---------------------------------------------------------------- to give
    def _read(self, folder):  # -> (params, seed, runs)
        raise NotImplementedError

    def _claims(self, state, runs, level):
        raise NotImplementedError

    def _tasks(self, cells, reps, state):  # -> (tasks, labels)
        raise NotImplementedError

    def _rows(self, labels, results, state):
        raise NotImplementedError

    def _tested(self, runs):
        """The rows of the tested runs (all, unless a subclass keeps tuning rows apart)."""
        return runs

    # ---------------------------------------------------------------- hooks
    def load(self, folder):
        params, seed, runs = self._read(folder)
        state = {"params": params, "seed": int(seed), "runs": runs}
        state["n0"] = state["n"] = self._count(runs)
        reads = claim_reads(lambda r: self._claims(state, r, 0.95), runs, self.cell_cols, self.value_cols)
        state["reads"] = reads
        state["cells"] = {cid: sorted({cell for cell, _ in r}, key=repr) for cid, r in reads.items()}
        self.margins = self._margins(state, reads)
        return state

    def _count(self, runs) -> int:
        """The runs each claim is tested on: the most runs any cell has (a cell with fewer, an experiment's
        own choice for a costly method, is paired on the runs both have)."""
        t = self._tested(runs)
        return int(t.groupby(list(self.cell_cols)).rep.nunique().max())

    def _margins(self, state, reads) -> dict:
        runs = self._tested(state["runs"])
        keys = runs[list(self.cell_cols)].apply(tuple, axis=1)
        got = _comparisons(lambda r: self._claims(state, r, 0.95), state["runs"])
        out = {}
        for cid, c in got.items():
            kinds = {p.kind for p in _leaves(c)}
            if any(p.bounds is not None for p in _leaves(c)) or not reads.get(cid):
                continue
            if kinds == {"ratio"}:
                out[cid] = float(f"{RATIO_MARGIN:.2g}")
            elif kinds == {"difference"}:
                m = difference_margin([float(np.nanmean(runs.loc[(keys == cell).to_numpy(), col].to_numpy(float)))
                                       for cell, col in reads[cid]])
                if m is not None:
                    out[cid] = m
        return out

    def n_runs(self, state) -> int:
        return state["n"]

    def seed(self, state) -> int:
        return state["seed"]

    def claims(self, state, level: float):
        return self._claims(state, state["runs"], level)

    def claim_cells(self, claim_id: str, state) -> list:
        return list(state["cells"].get(claim_id, []))

    def new_reps(self, state, n: int) -> list:
        """Run indices after every tested one, as many as bring the claims from ``state["n"]`` to ``n`` runs."""
        start = int(self._tested(state["runs"]).rep.max()) + 1
        return list(range(start, start + n - state["n"]))

    def tasks(self, cells, reps, state) -> list:
        tasks, labels = self._tasks(cells, reps, state)
        state["_labels"] = labels
        return tasks

    def _from_stored(self, rows):
        """Rows read back from the step's stored table (:data:`bandits.sequential.STORED`) as ``_rows`` gives
        them (a subclass whose ``_read`` normalises columns does the same here)."""
        return rows

    def rows_of(self, state, tasks, results):
        return {"runs": self._rows(state["_labels"], results, state)}

    def add_rows(self, state, tables):
        import pandas as pd

        new = self._from_stored(tables["runs"])
        runs = pd.concat([state["runs"], new], ignore_index=True)
        return dict(state, runs=runs, n=state["n"] + len(set(new.rep.tolist())))

    def add_results(self, state, tasks, results):
        return self.add_rows(state, self.rows_of(state, tasks, results))

    def grid_cells(self, state) -> list:
        """Every cell of the tested runs (what :func:`bandits.sequential.freeze_costs` prices), as the claims'
        cells are typed (Python scalars)."""
        r = self._tested(state["runs"])
        return sorted({tuple(v.item() if hasattr(v, "item") else v for v in row)
                       for row in r[list(self.cell_cols)].itertuples(index=False, name=None)}, key=repr)

    def cost_s(self, cell, state) -> float:
        """The mean recorded seconds of one run of ``cell`` (its failed runs left out)."""
        r = self._tested(state["runs"])
        keys = r[list(self.cell_cols)].apply(tuple, axis=1)
        w = r.loc[(keys == tuple(cell)).to_numpy(), "wall_time"].to_numpy(float)
        w = w[np.isfinite(w)]
        return float(w.mean()) if w.size else 0.0

    def stage_cost(self, state, n: int, claim_ids=None) -> float:
        """The estimated CPU seconds to bring the cells behind ``claim_ids`` (default: the claims INCONCLUSIVE
        at the nominal 95 % on the committed runs) from ``state["n"]`` to ``n`` runs: what
        :func:`bandits.sequential.decide` estimates for a stage."""
        if claim_ids is None:
            claim_ids = [c.id for c in self.claims(state, 0.95) if c.verdict == "INCONCLUSIVE"]
        cells = {c for cid in claim_ids for c in self.claim_cells(cid, state)}
        return float(sum(self.cost_s(c, state) for c in cells)) * len(self.new_reps(state, n))
