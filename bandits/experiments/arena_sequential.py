"""The arena: the hooks of the sequential step (:mod:`bandits.sequential`) for the committed full-mode folder
``figures/arena``, for its hypotheses (:class:`ArenaSequential`) and for its map (:class:`ArenaMapSequential`,
:func:`map_certainty`).

**The hypotheses** (:func:`bandits.experiments.arena_claims.arena_claims`, the package's own) are called as
they are, at the look's level, on the tested runs (``results.csv``) and the added ones, with the tuning runs
(``tuning.csv``) and the exploration multiplier chosen on them (:func:`bandits.experiments.arena.select_explore`),
as the notebook builds its results. A cell is a point ``(protocol, env, method, value)`` at its chosen
multiplier; a claim's cells are the points whose runs its claims function reads, found by tracing
:func:`bandits.experiments.arena_claims._per_run` while the claims are built, each claim's reads closing at its
:meth:`~bandits.experiments.claims.Claim.from_result` (the claims call it once per claim, after its reads). Which
points a front or comm-pays claim compares depends on the points' mean communication (dominance, "at no more
communication"), which moves as runs are added: the cells are traced again at every look
(:meth:`ArenaSequential.claim_cells` reads the current state). The added runs take indices 5, 6, ... (the
tuning runs, 1000+, stay apart and are not repeated). The break-even check (an implementation check built
without a comparison) is not covered by the rule. Margins: :mod:`~bandits.experiments.table_sequential`.

**The map** (``map.csv``: per run and checkpoint t, R(t) and C(t) of each point of the asynchronous map at
each N) says where it is sure: :func:`map_certainty` gives, per (env, N, t, budget B), the winner of
:func:`bandits.experiments.arena_plots.map_table` (the point with the lowest mean R(t) among those with mean
C(t) ≤ B), the runner-up (the same rule without the winner's method: the best point of another method, the
label the map would show instead), and the paired Student interval of R(t) winner − runner-up over the cell's
runs at the claims' level (95 %); the cell is *separated* when the interval lies below 0, *not separated* when
it contains 0 (the runs do not tell the two apart), *sole* when no other method has a point within the budget.
The winner is picked on the runs that test it, so "separated" reads the interval as two-sided (which of the two
is lower is the sign of the difference): its error is that of a two-sided 95 % interval. :class:`ArenaMapSequential`
makes each (env, N, t, B) cell with a runner-up a claim "winner below runner-up" for the sequential step (the
map has its own run count, so its own hooks and its own output, :func:`decide_map`: ``map_sequential.json`` and
``map_certainty.csv``; it is not in :data:`bandits.sequential.HOOKS`, whose names are folders with one
``sequential.json`` each).

Left out of the run cache's fingerprint (``*_sequential.py``, :func:`bandits.runner.in_runs`).
"""
from __future__ import annotations

import json
import math
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import arena as ex
from .table_sequential import RunsTableHooks

__all__ = ["ArenaSequential", "map_certainty", "ArenaMapSequential", "decide_map", "MAP_LEVEL"]

#: the level of the map's intervals: the claims' nominal level (two-sided 95 %, 2.5 % one-sided per direction)
MAP_LEVEL = 0.95


def _failed_none(df):
    if "failed" in df:
        df["failed"] = df["failed"].where(df["failed"].notna(), None)
    return df


@contextmanager
def _trace():
    """Record the points each claim reads: ``{claim id: {(protocol, env, method, value), ...}}``."""
    from . import arena_claims as ac
    from .claims import Claim

    reads, by_claim = set(), {}
    per_run, orig = ac._per_run, Claim.__dict__["from_result"]

    def _per_run(runs, protocol, env, method, value):
        reads.add((protocol, env, method, float(value)))
        return per_run(runs, protocol, env, method, value)

    def from_result(cls, id, *args, **kwargs):
        by_claim[id] = set(reads)
        reads.clear()
        return orig.__func__(cls, id, *args, **kwargs)

    ac._per_run, Claim.from_result = _per_run, classmethod(from_result)
    try:
        yield by_claim
    finally:
        ac._per_run, Claim.from_result = per_run, orig


# ------------------------------------------------------------------------------ the hypotheses
@dataclass
class ArenaSequential(RunsTableHooks):
    """The :class:`bandits.sequential.SequentialExperiment` hooks for ``figures/arena`` (its hypotheses)."""

    name: str = "arena"
    cell_cols: tuple = ("protocol", "env", "method", "value")
    value_cols: tuple = ("R_T",)
    fn: object = ex.arena_cell

    def _read(self, folder):
        import pandas as pd

        folder = Path(folder)
        prov = json.loads((folder / "provenance.json").read_text())
        pr = prov["parameters"]
        p = ex.arena_params("full", **{k: v for k, v in pr.items() if k in ex._FULL and k != "grids"})
        if "grids" in pr:
            p["grids"] = pr["grids"]
        runs = _failed_none(pd.read_csv(folder / "results.csv"))
        tune = _failed_none(pd.read_csv(folder / "tuning.csv")) if (folder / "tuning.csv").exists() else None
        self._tune = tune
        self._explore = ex.select_explore(tune) if tune is not None else {}
        return p, int(prov.get("seed", 0)), runs

    def load(self, folder):
        params, seed, runs = self._read(folder)
        state = {"params": params, "seed": int(seed), "runs": runs, "tune": self._tune, "explore": self._explore}
        state["n0"] = state["n"] = self._count(runs)
        state["cells"], state["_cells_n"] = self._cells(state), state["n"]
        self.margins = self._margins(state, {cid: {(c, "R_T") for c in cells} for cid, cells in state["cells"].items()})
        return state

    def _results(self, state, runs):
        p = dict(state["params"], n_runs=int(runs.groupby(list(self.cell_cols)).rep.nunique().max()))
        return ex.ArenaResults(p, runs, ex.summarise(runs), tune=state.get("tune"), explore=state.get("explore") or {})

    def _claims(self, state, runs, level):
        from .arena_claims import arena_claims

        return arena_claims(self._results(state, runs), level=level)

    def _cells(self, state) -> dict:
        with _trace() as reads:
            self._claims(state, state["runs"], 0.95)
        return {cid: sorted(r, key=repr) for cid, r in reads.items()}

    def claim_cells(self, claim_id: str, state) -> list:
        if state.get("_cells_n") != state["n"]:  # the points a claim compares follow the means: traced per look
            state["cells"], state["_cells_n"] = self._cells(state), state["n"]
        return list(state["cells"].get(claim_id, []))

    def _tasks(self, cells, reps, state):
        p = state["params"]
        all_tasks, all_labels = ex.arena_tasks(dict(p, n_runs=1), "test", state.get("explore") or {})
        want = {tuple(c) for c in cells}
        tasks, labels = [], []
        for (cfg, _), lab in zip(all_tasks, all_labels):
            key = (lab["protocol"], lab["env"], lab["method"], float(lab["value"]))
            if key in want:
                for rep in reps:
                    tasks.append((cfg, int(rep)))
                    labels.append(dict(lab, rep=int(rep)))
        return tasks, labels

    def _rows(self, labels, results, state):
        """One row per run, as :func:`bandits.experiments.arena.run_arena` writes ``results.csv``."""
        return _failed_none(ex._rows(labels, results))

    def _from_stored(self, rows):
        return _failed_none(rows)


# ------------------------------------------------------------------------------ the map
def _map_ok(map_runs):
    return map_runs[map_runs.failed.isna()] if "failed" in map_runs else map_runs


def map_certainty(map_runs, level: float = MAP_LEVEL, budgets=None):
    """Where the map is sure: per (env, N, t, budget B) its winner, the runner-up (the best point of another
    method within B), and the paired Student interval of R(t) winner − runner-up over the runs both points
    have (a failed run the worst outcome), at ``level``.

    Args:
        map_runs: ``map.csv`` (one row per run and checkpoint: env, N, method, value, rep, t, R_t, C_t, failed).
        level: two-sided level of the intervals (default the claims' 95 %).
        budgets: the map's budgets (default :data:`bandits.experiments.arena_plots.MAP_BUDGETS`).

    Returns:
        A table, one row per (env, N, t, budget): ``winner``, ``winner_value``, ``runner_up``,
        ``runner_up_value`` (None when no other method has a point within B), ``diff`` (mean paired difference),
        ``lo``, ``hi``, ``n`` (paired runs), ``level``, ``verdict`` (of "winner below runner-up": PASS,
        FAIL or INCONCLUSIVE), ``status``: ``"separated"`` (interval below 0), ``"not separated"``
        (interval containing 0, or fewer than 2 paired runs), ``"sole"`` (no runner-up) or ``"empty"``
        (no point within B).
    """
    import pandas as pd

    from ..claims import compare_paired
    from .arena_plots import MAP_BUDGETS, map_table

    budgets = MAP_BUDGETS if budgets is None else budgets
    keys = ["env", "N", "t", "budget"]
    win = map_table(map_runs, budgets)
    # the runner-up: the map's own rule without the winner's method
    without = {m: map_table(map_runs[map_runs.method != m], budgets).set_index(keys)
               for m in win.method.dropna().unique()}
    rows = []
    for w in win.itertuples():
        row = {"env": w.env, "N": w.N, "t": w.t, "budget": w.budget, "winner": w.method, "winner_value": w.value,
               "runner_up": None, "runner_up_value": np.nan, "diff": np.nan, "lo": np.nan, "hi": np.nan, "n": 0,
               "level": level, "verdict": None, "status": "empty"}
        if w.method is None:
            rows.append(row)
            continue
        ru = without[w.method].loc[(w.env, w.N, w.t, w.budget)]
        if ru.method is None or (isinstance(ru.method, float) and math.isnan(ru.method)):
            rows.append(dict(row, status="sole"))
            continue
        a, ra = _map_point(map_runs, w.env, w.N, w.t, w.method, w.value)
        b, rb = _map_point(map_runs, w.env, w.N, w.t, ru.method, ru.value)
        row.update(runner_up=ru.method, runner_up_value=float(ru.value))
        common = np.intersect1d(ra, rb)
        if common.size < 2:
            rows.append(dict(row, n=int(common.size), status="not separated"))
            continue
        c = compare_paired(a, b, "<", 0.0, label=f"R(t) {w.method} − {ru.method}", level=level, reps_a=ra,
                           reps_b=rb, diverged="worst")
        row.update(diff=c.effect, lo=c.lo, hi=c.hi, n=c.n, verdict=c.verdict,
                   status="separated" if c.hi < 0 or c.lo > 0 else "not separated")
        rows.append(row)
    return pd.DataFrame(rows)


def _map_point(map_runs, env, N, t, method, value):
    """R(t) per run of one map point, sorted by run (a failed run NaN)."""
    r = map_runs[(map_runs.env == env) & (map_runs.N == N) & (map_runs.t == t) & (map_runs.method == method)
                 & (map_runs.value == value)].sort_values("rep")
    R = r.R_t.to_numpy(float).copy()
    if "failed" in r:
        R[r.failed.notna().to_numpy()] = np.nan
    return R, r.rep.to_numpy()


def _map_claim_id(env, N, t, budget) -> str:
    b = "inf" if math.isinf(budget) else f"{budget:g}"
    return f"map-{env}-N{int(N)}-t{int(t)}-B{b}"


@dataclass
class ArenaMapSequential:
    """The :class:`bandits.sequential.SequentialExperiment` hooks for the arena's map (``figures/arena/map.csv``):
    each (env, N, t, budget) cell with a runner-up is a claim "R(t) of the winner below the runner-up's" (paired,
    Student, at the look's level); its cells are the two points ``(env, N, method, value)`` that are winner and
    runner-up at the current look (they can change as runs are added)."""

    name: str = "arena_map"
    margins: dict = field(default_factory=dict)
    fn: object = ex.arena_cell

    def load(self, folder):
        import pandas as pd

        folder = Path(folder)
        prov = json.loads((folder / "provenance.json").read_text())
        runs = _failed_none(pd.read_csv(folder / "map.csv"))
        tune = _failed_none(pd.read_csv(folder / "tuning.csv")) if (folder / "tuning.csv").exists() else None
        explore = ex.select_explore(tune) if tune is not None else {}
        n = int(runs.groupby(["env", "N", "method", "value"]).rep.nunique().max())
        mp = ex.map_params("full", envs=list(dict.fromkeys(runs.env)), Ns=sorted(int(v) for v in runs.N.unique()),
                           checkpoints=sorted(int(v) for v in runs.t.unique()), n_runs=n)
        return {"params": mp, "explore": explore, "seed": int(prov.get("seed", 0)), "runs": runs, "n": n}

    def n_runs(self, state) -> int:
        return state["n"]

    def seed(self, state) -> int:
        return state["seed"]

    def table(self, state, level: float = MAP_LEVEL):
        key = ("_table", state["n"], level)
        if state.get("_table_key") != key:
            state["_table"], state["_table_key"] = map_certainty(state["runs"], level), key
        return state["_table"]

    def claims(self, state, level: float):
        from ..claims import compare_paired
        from .claims import Claim

        out = []
        for r in self.table(state, level).itertuples():
            if r.runner_up is None or r.status == "sole":
                continue
            a, ra = _map_point(state["runs"], r.env, r.N, r.t, r.winner, r.winner_value)
            b, rb = _map_point(state["runs"], r.env, r.N, r.t, r.runner_up, r.runner_up_value)
            if np.intersect1d(ra, rb).size < 2:
                continue
            c = compare_paired(a, b, "<", 0.0, label=f"R(t) {r.winner} − {r.runner_up}", level=level, reps_a=ra,
                               reps_b=rb, diverged="worst")
            out.append(Claim.from_result(
                _map_claim_id(r.env, r.N, r.t, r.budget),
                "the map's winner within the budget has a lower R(t) than the best point of another method",
                f"{r.env}, N = {r.N}, t = {r.t}, budget {r.budget:g}: R(t) {r.winner} ({r.winner_value:g}) − "
                f"{r.runner_up} ({r.runner_up_value:g}) < 0, paired over runs", c, kind="implementation",
                quote="paraphrase", source=""))
        return out

    def claim_cells(self, claim_id: str, state) -> list:
        for r in self.table(state).itertuples():
            if _map_claim_id(r.env, r.N, r.t, r.budget) == claim_id and r.runner_up is not None:
                return [(r.env, int(r.N), r.winner, float(r.winner_value)),
                        (r.env, int(r.N), r.runner_up, float(r.runner_up_value))]
        return []

    def new_reps(self, state, n: int) -> list:
        start = int(state["runs"].rep.max()) + 1
        return list(range(start, start + n - state["n"]))

    def tasks(self, cells, reps, state) -> list:
        mp = dict(state["params"], n_runs=1)
        all_tasks, all_labels = ex.map_tasks(mp, state["explore"])
        want = {tuple(c) for c in cells}
        tasks, labels = [], []
        for (cfg, _), lab in zip(all_tasks, all_labels):
            if (lab["env"], int(lab["N"]), lab["method"], float(lab["value"])) in want:
                for rep in reps:
                    tasks.append((cfg, int(rep)))
                    labels.append(dict(lab, rep=int(rep)))
        state["_labels"] = labels
        return tasks

    def add_results(self, state, tasks, results):
        """The new runs' rows per checkpoint, as :func:`bandits.experiments.arena.run_map` writes ``map.csv``."""
        import pandas as pd

        rows = []
        for lab, res in zip(state["_labels"], results):
            a, meta = res["arrays"], res["meta"]
            R = np.cumsum(np.asarray(a["regret"], dtype=float))
            C = np.cumsum(np.asarray(a["comm_up"], dtype=float) + np.asarray(a["comm_down"], dtype=float))
            for t in state["params"]["checkpoints"]:
                if t <= lab["T"]:
                    rows.append({**lab, "t": int(t), "R_t": float(R[t - 1]), "C_t": float(C[t - 1]),
                                 "failed": meta.get("failed"), "wall_time": meta.get("wall_time"),
                                 "cpu_time": meta.get("cpu_time")})
        new = _failed_none(pd.DataFrame(rows))
        out = dict(state, runs=pd.concat([state["runs"], new], ignore_index=True),
                   n=state["n"] + len(set(new.rep.tolist())))
        self.last_state = out
        return out

    def cost_s(self, cell, state) -> float:
        env, N, method, value = cell
        r = state["runs"]
        r = r[(r.env == env) & (r.N == N) & (r.method == method) & (r.value == value)].drop_duplicates("rep")
        w = r.wall_time.to_numpy(float)
        w = w[np.isfinite(w)]
        return float(w.mean()) if w.size else 0.0


def decide_map(folder, design, budget_s: float = math.inf, cache_dir=None, n_jobs: int = 1, backend: str = "loky",
               scheduler: str | None = None, progress: bool = False, write: bool = True, hooks=None) -> dict:
    """The sequential step on the map of ``folder`` (``figures/arena``): :func:`bandits.sequential.decide` with
    :class:`ArenaMapSequential`, writing ``map_sequential.json`` (the step's record) and ``map_certainty.csv``
    (:func:`map_certainty` on the committed and added runs, at the claims' level) instead of the hypotheses'
    ``sequential.json``; ``claims.json`` is not touched. ``hooks``: an :class:`ArenaMapSequential` (default a new
    one; a test passes one with a stand-in ``fn``)."""
    from ..sequential import _json_safe, decide

    folder = Path(folder)
    hooks = ArenaMapSequential() if hooks is None else hooks
    out = decide(hooks, folder, design, budget_s=budget_s, cache_dir=cache_dir, n_jobs=n_jobs, backend=backend,
                 scheduler=scheduler, progress=progress, write=False)
    state = getattr(hooks, "last_state", None) or hooks.load(folder)
    table = map_certainty(state["runs"])
    if write:
        (folder / "map_sequential.json").write_text(json.dumps(_json_safe(out), indent=1, allow_nan=False) + "\n")
        table.to_csv(folder / "map_certainty.csv", index=False)
    out["table"] = table
    return out
