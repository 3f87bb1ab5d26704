"""What a notebook does around its experiment: the set-up cell (:func:`start_notebook`), the output
folder's files (``results.csv``: :func:`write_results_csv`; ``provenance.json``: :func:`write_provenance`)
and the last cell (:func:`finish_notebook`: ``claims.json``, ``provenance.json``, the sequential step when asked,
the claims table).

**The sequential step from a notebook.** A notebook whose folder has hooks (:data:`bandits.sequential.HOOKS`) has
three parameters: ``decide_schedule`` (``None``, the default in both modes: no step; ``"auto"``: n0, 2 n0, 4 n0,
8 n0; or run counts such as ``"3,6,12"``, the first the runs each claim is tested on), ``decide_budget_s`` (CPU
seconds of the added runs, as each stage is estimated: at the committed design's fixed costs for the step ``make
figures`` passes, :func:`bandits.sequential.committed_design`; ``None``: no limit) and ``decide_spending``
(``"obf"``, the default, or ``"pocock"``).
Its set-up cell checks them with the others (:func:`check_decide`, before any run, the first look against the
runs the parameters give); its last cell, after ``claims.json`` is written, runs the step on its own ``out``
folder (:func:`run_sequential`, which calls :func:`bandits.sequential.step`, as ``make decide`` does) and prints
the claims table of the rewritten ``claims.json``. With ``decide_schedule=None`` the last cell is what it was
without the parameters: nothing is run, written or printed besides the claims table.

None of this runs inside a cell: the module is left out of the run cache's code fingerprint
(``"experiments/notebook.py"`` in :data:`bandits.runner.NOT_IN_RUNS`), so it may import the claims
(:mod:`bandits.experiments.claims`); no module the fingerprint covers may import it
(``tests/test_package_structure.py``). The parameter checks a notebook's first cell runs
(:func:`~bandits.experiments.common.validate_common`) stay in :mod:`bandits.experiments.common`.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from ..runner import provenance, resolve_scheduler
from .claims import Claim, claims_table, write_claims
from .common import resolve_out, validate_common

__all__ = ["start_notebook", "finish_notebook", "default_cache_dir", "write_provenance", "CSV_FLOAT_FORMAT",
           "results_rows", "write_results_csv", "check_decide", "run_sequential", "NOTE_WRITERS", "write_note"]


def default_cache_dir() -> str:
    """``$BANDITS_CACHE_DIR`` or ``cache/`` at the repository root."""
    env = os.environ.get("BANDITS_CACHE_DIR")
    if env:
        return env
    return str(Path(__file__).resolve().parents[2] / "cache")


#: Number format of the ``results.csv`` files (:func:`write_results_csv`): six significant digits.
CSV_FLOAT_FORMAT = "%.6g"


def results_rows(curves, every: int = 1, keys=None):
    """The rows of a tidy curves table (a column ``t``) that ``results.csv`` keeps: ``t`` a multiple of
    ``every``, and each curve's last ``t`` (the largest ``t`` among rows with equal ``keys`` columns;
    ``keys=None``: the table's largest ``t``). ``every = 1`` keeps every row."""
    t = curves["t"].to_numpy()
    if int(every) <= 1:
        return curves
    last = curves.groupby(list(keys))["t"].transform("max").to_numpy() if keys else t.max()
    return curves[(t % int(every) == 0) | (t == last)]


def write_results_csv(curves, path: str | os.PathLike, every: int = 1, keys=None) -> Path:
    """Write ``results.csv``: :func:`results_rows` of ``curves`` with :data:`CSV_FLOAT_FORMAT`.

    The figures and claims are computed from the full in-memory curves; the file keeps the rows the
    notebook's ``csv_stride`` names (one in ``every`` rounds and each curve's last round), so a
    full-mode table stays under the project's 2 MB limit for a tracked file. Final values are in
    ``runs.csv`` at full precision."""
    path = Path(path)
    results_rows(curves, every, keys).to_csv(path, index=False, float_format=CSV_FLOAT_FORMAT)
    return path



def write_provenance(parameters: dict, seed: int, out: str | os.PathLike, extra: dict | None = None) -> Path:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    p = out / "provenance.json"
    p.write_text(json.dumps(provenance(parameters, seed, extra), indent=2))
    return p


# ------------------------------------------------------------------------------ the notebooks' set-up and finish
def start_notebook(*, mode, seed, n_jobs, backend, out, scheduler=None, datasets=()) -> Path:
    """The first cell after ``parameters`` of every notebook: :func:`validate_common` (every common
    parameter, ``out`` writable, the declared ``datasets`` present, no unknown injected parameter),
    then the dask ``scheduler`` resolved (:func:`bandits.runner.resolve_scheduler`; every dask sweep
    then uses that cluster), then the output folder created. Returns the output folder (a relative
    ``out`` is taken from the repository root)."""
    validate_common(mode, seed, n_jobs, backend, out, datasets=datasets)
    resolve_scheduler(scheduler, backend)
    out_dir = resolve_out(out)
    out_dir.mkdir(parents=True, exist_ok=True)
    return out_dir


#: Notebooks whose output folder gets a ``NOTE.md`` written from the folder's own files (never by hand), after the
#: claims and the sequential step: notebook name → ``"module:function"``, the function taking the folder and
#: returning the note's markdown. ``python -m bandits.report note FOLDER`` writes the same.
NOTE_WRITERS = {"arena": "bandits.experiments.arena_claims:note_markdown",
                **{name: f"bandits.experiments.{name}_note:note_markdown"
                   for name in ("async_kernelucb", "coop_kernelucb", "cope_kb", "fn_ucb")}}


def note_writer(name: str):
    """The function that writes the ``NOTE.md`` of notebook ``name``'s folder (:data:`NOTE_WRITERS`), or None."""
    import importlib

    spec = NOTE_WRITERS.get(name)
    if spec is None:
        return None
    mod, fn = spec.split(":")
    return getattr(importlib.import_module(mod), fn)


def write_note(name: str, out_dir) -> Path | None:
    """Write ``out_dir/NOTE.md`` from the folder's files when notebook ``name`` has a note writer; the path, or
    None."""
    fn = note_writer(name)
    if fn is None:
        return None
    path = Path(out_dir) / "NOTE.md"
    path.write_text(fn(out_dir))
    return path


def finish_notebook(claims: list[Claim], params: dict, *, seed, out_dir, notebook: str, mode, n_jobs, backend,
                    about: dict, provenance_extra: dict | None = None, decide_schedule=None, decide_budget_s=None,
                    decide_spending: str = "obf", cache_dir=None, decide_futility: int = 0) -> None:
    """The last cell of every notebook: ``claims.json`` (with ``about``, e.g. the paper and figure, and
    the mode), ``provenance.json`` (the parameters, the seed, the notebook, mode, workers and backend, the
    machine (:func:`bandits.bench.machine_record`), plus ``provenance_extra``) and the claims table printed
    (the text nbval compares).

    With ``decide_schedule`` (see the module docstring): after those files, the sequential step on ``out_dir``
    (:func:`run_sequential`, the hooks of the notebook's name), its summary printed, and the claims table of the
    ``claims.json`` it rewrote; ``provenance.json`` then also records the step's parameters."""
    write_claims(claims, out_dir, dict(about, mode=mode))
    from ..bench import machine_record

    # the machine the runs were timed on (its CPU and rates, measured now): figures/TIMES.md names it
    extra = dict({"notebook": notebook, "mode": mode, "n_jobs": n_jobs, "backend": backend,
                  "machine": machine_record()}, **(provenance_extra or {}))
    if decide_schedule is not None:
        extra["sequential"] = {"schedule": decide_schedule, "budget_s": decide_budget_s, "spending": decide_spending}
        if decide_futility:
            extra["sequential"]["futility"] = int(decide_futility)
    write_provenance(params, seed, out_dir, extra)
    if decide_schedule is None:
        write_note(Path(notebook).stem, out_dir)
        print(claims_table(claims))
        return
    from ..sequential import read_claims, summary

    out = run_sequential(Path(notebook).stem, out_dir, decide_schedule, decide_budget_s, decide_spending,
                         n_jobs=n_jobs, backend=backend, cache_dir=cache_dir, futility=decide_futility)
    write_note(Path(notebook).stem, out_dir)
    print(summary(out), end="\n\n")
    print(claims_table(read_claims(Path(out_dir) / "claims.json")))


def check_decide(name: str, params: dict | None, schedule, budget_s=None, spending: str = "obf",
                 futility: int = 0) -> None:
    """The set-up cell's check of the sequential step's parameters (``decide_schedule``, ``decide_budget_s``,
    ``decide_spending``; :func:`bandits.sequential.check_step`; ``decide_futility``: 0, none, or the look from which
    the optional futility stop acts), before any run: their form, that ``name`` has hooks
    when a schedule is given, and that the schedule's first look is the runs each claim will be tested on (the
    hooks' ``planned_runs(params)`` where they have it, else ``params["n_runs"]``). A :class:`ParameterError`
    names the parameter."""
    from ..sequential import HOOKS, check_step, hooks_for
    from ..validation import check, rule

    sch, _, _ = check_step(schedule, budget_s, spending, prefix="decide_")
    check("decide_futility", futility, rule(lambda f: isinstance(f, int) and not isinstance(f, bool) and f >= 0,
                                            "0 (no futility stop) or a look number >= 1"))
    if sch is None:
        return
    check("decide_schedule", schedule, rule(lambda _: name in HOOKS, f"None: {name!r} has no hooks of the sequential "
                                            f"step (the folders that have: {', '.join(HOOKS)})"))
    if not isinstance(sch, tuple) or params is None:
        return
    exp = hooks_for(name)
    plan = getattr(exp, "planned_runs", None)
    n0 = plan(params) if plan is not None else params.get("n_runs")
    if n0 is not None:
        check("decide_schedule", schedule, rule(lambda _: sch[0] == int(n0), f"run counts starting at {int(n0)}, the "
                                                "runs each claim is tested on with these parameters (or 'auto')"))


def run_sequential(name, out_dir, schedule, budget_s=None, spending: str = "obf", *, n_jobs: int = 1,
                   backend: str = "loky", scheduler: str | None = None, cache_dir=None, progress: bool = True,
                   futility: int = 0):
    """The sequential step on a notebook's own ``out_dir``, right after its last cell wrote ``claims.json``:
    :func:`bandits.sequential.step` (what ``make decide`` runs) with the hooks of ``name`` (a notebook name, or a
    hooks object), the run cache ``cache_dir`` (``None``: :func:`default_cache_dir`), and ``claims.json`` read as
    the fixed-size verdicts (``fresh``). ``schedule=None``: nothing is done, ``None`` is returned (the arguments
    are still checked). Otherwise returns the step's dict, having written ``sequential.json`` and rewritten
    ``claims.json``."""
    from ..sequential import check_step, step

    sch, _, _ = check_step(schedule, budget_s, spending, prefix="decide_")
    if sch is None:
        return None
    return step(name, out_dir, sch, budget_s, spending, cache_dir=cache_dir or default_cache_dir(), n_jobs=n_jobs,
                backend=backend, scheduler=scheduler, progress=progress, write=True, fresh=True, prefix="decide_",
                futility=futility)
