"""What a notebook does around its experiment: the set-up cell (:func:`start_notebook`), the output
folder's files (``results.csv``: :func:`write_results_csv`; ``provenance.json``: :func:`write_provenance`)
and the last cell (:func:`finish_notebook`: ``claims.json``, ``provenance.json``, the claims table).

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
           "results_rows", "write_results_csv"]


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


def finish_notebook(claims: list[Claim], params: dict, *, seed, out_dir, notebook: str, mode, n_jobs, backend,
                    about: dict, provenance_extra: dict | None = None) -> None:
    """The last cell of every notebook: ``claims.json`` (with ``about``, e.g. the paper and figure, and
    the mode), ``provenance.json`` (the parameters, the seed, the notebook, mode, workers and backend,
    plus ``provenance_extra``) and the claims table printed (the text nbval compares)."""
    write_claims(claims, out_dir, dict(about, mode=mode))
    write_provenance(params, seed, out_dir, dict({"notebook": notebook, "mode": mode, "n_jobs": n_jobs,
                                                  "backend": backend}, **(provenance_extra or {})))
    print(claims_table(claims))
