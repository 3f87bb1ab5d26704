"""FN-UCB theory checks: the hooks of the sequential step (:mod:`bandits.sequential`) for the committed folder
``figures/fn_ucb_theory``.

The claims (:func:`bandits.experiments.fn_ucb_theory.claims.theory_claims`) are called as they are, at the look's
level, on the committed tables (``results.csv``: one row per regret run; ``curves.csv``: E3's R̄(t) and potential
per run; ``alpha.csv`` (E8), ``coverage.csv`` (E12), ``linearisation.csv`` (E14)) and the added runs' rows.

**Cells** ``(check, algorithm, N, D, ν_a, m)`` — one configuration of
:func:`~bandits.experiments.fn_ucb_theory.setting.theory_tasks` (``m`` E14's width, 0 for a regret run). A
claim's cells are found by perturbing each table in turn
(:func:`bandits.experiments.table_sequential.claim_reads`: the values of one cell shifted, the claims rebuilt,
the comparisons that move recorded): ``results.csv``'s ``R_T`` and ``rounds`` (E2, E5, E6), ``curves.csv``'s
``regret`` and ``potential`` (E3, E13), ``coverage.csv``'s ``coverage`` (E12), ``linearisation.csv``'s ``err``
(E14); no list kept by hand. A configuration shared by two checks (E2's N = 4 run is E2N's N = 4 run) is run
once (:func:`bandits.runner.run_key`). The added runs take indices after the committed ones; every
configuration has ``env_seed = 0`` and run r's streams (:func:`bandits.runner.run_seeds`), as
:func:`~bandits.experiments.fn_ucb_theory.runs.run_theory` sets them.

**The claims decided** (paper, Theorem 1 and §4.1): ``E3-only-ucb-a-steeper`` (per-run log–log slopes of R̄(t),
FN-UCB's below only-UCB_a's, paired), ``E2-federation-vs-central`` and its ``-official`` twin (the total regret of
N = 4 over T within [1/3, 3] × one agent's over 4T: Fieller equivalence, paired), ``E2-regret-slope-N`` (one slope
of log N·R̄_T on log N per run, Student t over the runs' slopes). **Not covered** (:func:`bandits.sequential.covered`
says so at look 1, and they keep their committed verdicts): E5's and E6's slopes (an OLS slope through the means
of the grid: more runs do not add points), E8 (a bootstrap statistic), E4 and E7 (implementation counts built
without a comparison).

**Margins** (the within-margin stop), fixed at the first look from the committed runs, before any run is added,
in the unit of each claim's comparison: a claim on per-run slopes of the curves (E3, E13) gets 10 % of the smallest
mean per-run slope among the curves it reads (the claims module's own per-run fit); a one-sample per-run slope
(E2-regret-slope-N) 10 % of its mean slope; any other claim :mod:`~bandits.experiments.table_sequential`'s rule
(a difference: 10 % of the smallest mean of the column it reads; a ratio: log 1.1; an equivalence, E2's
"matches" within [1/3, 3], none: its bounds are its margin). Two significant digits. A choice of this package:
Theorem 1 and §4.1 state rates, not sizes of difference.

**Cost of a run** (the budget; the committed step's stages are priced at its design's fixed costs instead,
:data:`bandits.sequential.COSTS_FILE`): a cell's cost is the mean ``wall_time`` of its added runs when it has
some; else the mean recorded time of its committed runs in the folder's tables (``results.csv`` and
``linearisation.csv``: each run's ``cpu_time``, else its ``wall_time``); for a folder written before the tables
kept them, the run cache's record of its committed runs under the current code
(:func:`bandits.experiments.async_theory_sequential.cached_wall_times`), else the notebook's recorded duration
shared equally among its runs (:func:`~bandits.experiments.async_theory_sequential.untimed_share_s`).

Left out of the run cache's fingerprint (``*_sequential.py``, :func:`bandits.runner.in_runs`).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .async_theory_sequential import cached_wall_times, untimed_share_s
from .table_sequential import RATIO_MARGIN, _comparisons, _leaves, claim_reads, difference_margin

__all__ = ["FNUCBTheorySequential"]

#: the results table's cell columns (a regret run; ``m`` = 0 is appended)
RESULT_CELL = ("check", "algorithm", "N", "D", "nu_a")
#: E14's rows are not bandit runs: their cell's algorithm
LINEAR = "linearisation"
#: the columns of a cell (:func:`_cell_of`) in the kept ``wall`` table
_WALL_CELL = ("group", "algorithm", "N", "D", "nu_a", "m")


def _f(x) -> float:
    return float(f"{float(x):.10g}")


def _cell_of(group: str, cfg: dict) -> tuple:
    """The cell of a task of :func:`~bandits.experiments.fn_ucb_theory.setting.theory_tasks`."""
    if group == "E14":
        return ("E14", LINEAR, int(cfg["N"]), 0.0, 0.0, int(cfg["m"]))
    return (group, cfg["algorithm"], int(cfg["N"]), _f(cfg["params"].get("D", 0.0)), _f(cfg["params"]["nu_a"]), 0)


@dataclass
class FNUCBTheorySequential:
    """The :class:`bandits.sequential.SequentialExperiment` hooks for ``figures/fn_ucb_theory``."""

    name: str = "fn_ucb_theory"
    margins: dict = field(default_factory=dict)
    fn: object = None

    # ---------------------------------------------------------------- load
    def load(self, folder):
        import pandas as pd

        from .fn_ucb_theory import theory_params
        from .fn_ucb_theory.runs import run_theory_cell

        self.fn = run_theory_cell
        folder = Path(folder)
        prov = json.loads((folder / "provenance.json").read_text())
        p = theory_params(prov.get("mode", "full"), **prov["parameters"])
        runs = pd.read_csv(folder / "results.csv")
        runs["D"], runs["nu_a"] = runs.D.map(_f), runs.nu_a.map(_f)
        runs["rounds"] = runs.rounds.astype(float)  # a count, shifted by a float when the cells are found
        state = {"params": p, "seed": int(prov.get("seed", 0)), "runs": runs,
                 "curves": pd.read_csv(folder / "curves.csv"), "alpha": pd.read_csv(folder / "alpha.csv"),
                 "coverage": pd.read_csv(folder / "coverage.csv"), "linear": pd.read_csv(folder / "linearisation.csv"),
                 "wall": {}}
        state["n0"] = state["n"] = int(runs.groupby(list(RESULT_CELL)).rep.nunique().max())
        state["cells"] = self._cells(state)
        self.margins = self._margins(state)
        state["cost"], state["cost_source"] = self._costs(state, folder)
        return state

    def _results(self, state, **tables):
        from .fn_ucb_theory.runs import TheoryResults

        t = {k: tables.get(k, state[k]) for k in ("runs", "curves", "alpha", "coverage", "linear")}
        return TheoryResults(state["params"], t["runs"], t["curves"], 0, 0, t["alpha"], t["coverage"], t["linear"])

    def _claims_with(self, state, level=0.95, **tables):
        from .fn_ucb_theory.claims import theory_claims

        return theory_claims(self._results(state, **tables), level=level)

    def _cells(self, state) -> dict:
        """``{claim id: [cell, ...]}`` by perturbing each table (module docstring); ``state["reads"]``: each
        claim's ``(table, table cell, column)`` reads (for its margin)."""
        runs, p = state["runs"], state["params"]
        result_cells = {tuple(k) + (0,) for k in runs[list(RESULT_CELL)].itertuples(index=False)}
        tables = (  # table, its cell columns, the value columns the claims read, table cell -> cells
            ("runs", RESULT_CELL, ("R_T", "rounds"), lambda c: {c + (0,)}),
            ("curves", ("check", "algorithm", "N"), ("regret", "potential"),
             lambda c: {k for k in result_cells if k[:3] == c}),
            ("coverage", ("nu",), ("coverage",),
             lambda c: {k for k in result_cells if k[0] == "E12" and math.isclose(k[4], float(c[0]))}),
            ("linear", ("m",), ("err",), lambda c: {("E14", LINEAR, int(p["N_E14"]), 0.0, 0.0, int(c[0]))}),
        )
        cells, reads = {}, {}
        for name, cols, values, to_cells in tables:
            got = claim_reads(lambda t: self._claims_with(state, **{name: t}), state[name], cols, values)
            for cid, r in got.items():
                cs, rd = cells.setdefault(cid, set()), reads.setdefault(cid, set())
                for cell, col in r:
                    cs |= to_cells(tuple(cell))
                    rd.add((name, tuple(cell), col))
        state["reads"] = {cid: sorted(r, key=repr) for cid, r in reads.items()}
        return {cid: sorted(c, key=repr) for cid, c in cells.items()}

    def _mean(self, state, name, cell, col) -> float:
        """The mean of what a claim reads in one table cell: the per-run slopes of a curve (the claims module's own
        fit), else the column's mean."""
        from .fn_ucb_theory.claims import _per_run_slopes

        t = state[name]
        if name == "curves":
            return float(np.mean(_per_run_slopes(t[(t.algorithm == cell[1]) & (t.N == cell[2])], cell[0],
                                                 state["params"], col)[0]))
        m = np.ones(len(t), dtype=bool)
        cols = {"runs": RESULT_CELL, "coverage": ("nu",), "linear": ("m",)}[name]
        for k, v in zip(cols, cell):
            m &= (t[k] == v).to_numpy() if isinstance(v, str) else np.isclose(t[k].to_numpy(float), float(v))
        return float(t.loc[m, col].mean())

    def _margins(self, state) -> dict:
        got = _comparisons(lambda _: self._claims_with(state), None)
        out = {}
        for cid, c in got.items():
            leaves = _leaves(c)
            kinds = {q.kind for q in leaves}
            reads = state["reads"].get(cid) or []
            if any(q.bounds is not None for q in leaves) or not reads:
                continue
            if any(name == "curves" for name, _, _ in reads):  # per-run slopes of the curves it reads
                means = [self._mean(state, name, cell, col) for name, cell, col in reads if name == "curves"]
            elif kinds == {"slope"}:  # a one-sample per-run slope: its mean slope
                means = [float(q.effect) for q in leaves]
            elif kinds == {"ratio"}:
                out[cid] = float(f"{RATIO_MARGIN:.2g}")
                continue
            elif kinds == {"difference"}:
                means = [self._mean(state, name, cell, col) for name, cell, col in reads]
            else:
                continue
            m = difference_margin(means)
            if m is not None:
                out[cid] = m
        return out

    # ---------------------------------------------------------------- hooks
    def n_runs(self, state) -> int:
        return state["n"]

    def seed(self, state) -> int:
        return state["seed"]

    def claims(self, state, level: float):
        return self._claims_with(state, level)

    def claim_cells(self, claim_id: str, state) -> list:
        return list(state["cells"].get(claim_id, []))

    def new_reps(self, state, n: int) -> list:
        # after every run index any table holds (a look may add rows to the linearisation table only)
        start = 1 + max(int(state[t].rep.max()) for t in ("runs", "curves", "alpha", "coverage", "linear")
                        if "rep" in state[t] and len(state[t]))
        return list(range(start, start + n - state["n"]))

    def _labelled(self, p, reps):
        """``[(group, cell, config, rep)]`` of every task at run indices ``reps``."""
        from .fn_ucb_theory.setting import theory_tasks

        reps = [int(r) for r in reps]
        out = []
        for g, lst in theory_tasks(dict(p, n_runs=max(reps) + 1)).items():
            for cfg, rep in lst:
                if rep in reps:
                    out.append((g, _cell_of(g, cfg), cfg, int(rep)))
        return out

    def tasks(self, cells, reps, state) -> list:
        from ..runner import run_key

        want = {tuple(c) for c in cells}
        tasks, index, where = [], {}, []
        for g, cell, cfg, rep in self._labelled(state["params"], reps):
            if cell not in want:
                continue
            k = run_key(cfg, state["seed"], rep, self.fn)
            if k not in index:
                index[k] = len(tasks)
                tasks.append((cfg, rep))
            where.append((g, cell, cfg, rep, index[k]))
        state["_where"] = where
        return tasks

    def add_results(self, state, tasks, results):
        """The new runs' rows, as :func:`bandits.experiments.fn_ucb_theory.runs.run_theory` builds its tables."""
        return self.add_rows(state, self.rows_of(state, tasks, results))

    def rows_of(self, state, tasks, results) -> dict:
        """The new runs' rows per table (``runs``, ``curves``, ``alpha``, ``coverage``, ``linear``), and ``wall``:
        each run's recorded time with its cell (the cost of the next look), as the step keeps them in the folder."""
        import pandas as pd

        from .fn_ucb_theory.runs import theory_rows

        done = state["_where"]
        rows, curves, alpha, cover, linear = theory_rows(state["params"],
                                                         [(g, cfg, rep, results[i]) for g, cell, cfg, rep, i in done])
        for row in rows:  # as the committed CSV reads back
            row.update(D=_f(row["D"]), rounds=float(row["rounds"]), nu_a=_f(row["nu_a"]))

        def frame(old, new):
            return pd.DataFrame(new, columns=old.columns)

        wall = pd.DataFrame([dict(zip(_WALL_CELL, cell), rep=rep,
                                  wall_time=float(results[i]["meta"].get("wall_time", math.nan)))
                             for g, cell, cfg, rep, i in done], columns=[*_WALL_CELL, "rep", "wall_time"])
        return {"runs": frame(state["runs"], rows),
                "curves": (pd.concat(curves, ignore_index=True) if curves else state["curves"].iloc[:0]),
                "alpha": frame(state["alpha"], alpha), "coverage": frame(state["coverage"], cover),
                "linear": frame(state["linear"], linear), "wall": wall}

    def add_rows(self, state, tables: dict):
        """``state`` with a look's rows (:meth:`rows_of`, or the same tables read back from the folder) added."""
        import pandas as pd

        def cat(name):
            new = tables.get(name)
            return pd.concat([state[name], new], ignore_index=True) if new is not None and len(new) else state[name]

        wall = {k: list(v) for k, v in state["wall"].items()}
        w = tables.get("wall")
        new_reps = set()
        if w is not None:
            for r in w.itertuples(index=False):
                cell = (str(r.group), str(r.algorithm), int(r.N), _f(r.D), _f(r.nu_a), int(r.m))
                wall.setdefault(cell, []).append(float(r.wall_time))
                new_reps.add(int(r.rep))
        return dict(state, runs=cat("runs"), curves=cat("curves"), alpha=cat("alpha"), coverage=cat("coverage"),
                    linear=cat("linear"), wall=wall, n=state["n"] + len(new_reps))

    # ---------------------------------------------------------------- cost
    def _costs(self, state, folder) -> tuple:
        lab = self._labelled(state["params"], range(state["n"]))
        cells = {cell for _, cell, _, _ in lab}
        table = self._table_times(state, folder)
        rest = [x for x in lab if x[1] not in table]  # cells the tables do not time: the cache, else a share
        rec = cached_wall_times([(cfg, rep) for _, _, cfg, rep in rest], state["seed"], self.fn) if rest else []
        by = {}
        for (_, cell, _, _), w in zip(rest, rec):
            if math.isfinite(w):
                by.setdefault(cell, []).append(w)
        share = untimed_share_s(folder, "fn_ucb_theory.ipynb", len(lab)) if rest else math.nan
        cost = {c: float(np.mean(table[c])) if c in table else float(np.mean(by[c])) if c in by else share
                for c in cells}
        return cost, {c: "table" if c in table else "cache" if c in by else "notebook share" for c in cells}

    @staticmethod
    def _table_times(state, folder) -> dict:
        """Cell → the recorded seconds of its committed runs, from the tables' own ``cpu_time`` (else
        ``wall_time``): ``results.csv`` for the bandit runs, ``linearisation.csv`` for E14's; ``{}`` for a
        folder written before the tables kept them."""
        import pandas as pd

        def secs(df):  # each run's cpu_time, else its wall_time
            cols = [c for c in ("cpu_time", "wall_time") if c in df.columns]
            return df[cols].bfill(axis=1).iloc[:, 0].to_numpy(float) if cols else None

        out = {}
        runs = state["runs"]
        t = secs(runs)
        if t is not None:
            for k, v in zip(runs[list(RESULT_CELL)].itertuples(index=False), t):
                if math.isfinite(v):
                    out.setdefault(tuple(k) + (0,), []).append(float(v))
        path = Path(folder) / "linearisation.csv"
        if path.exists():
            lin = pd.read_csv(path)
            t = secs(lin)
            n = int(state["params"]["N_E14"])
            if t is not None:
                for m, v in zip(lin.m, t):
                    if math.isfinite(v):
                        out.setdefault(("E14", LINEAR, n, 0.0, 0.0, int(m)), []).append(float(v))
        return out

    def cost_s(self, cell, state) -> float:
        w = np.asarray(state["wall"].get(tuple(cell), []), dtype=float)
        w = w[np.isfinite(w)]
        if w.size:
            return float(w.mean())
        c = state["cost"].get(tuple(cell), math.nan)
        return float(c) if math.isfinite(c) else math.inf
