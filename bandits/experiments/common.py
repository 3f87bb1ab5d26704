"""What every paper's experiment shares: parameter validation and small helpers of the run modules.

The notebook contract: a ``parameters`` cell with at least ``mode``, ``seed``, ``n_jobs``,
``backend``, ``out``; :func:`validate_common` first (through
:func:`bandits.experiments.notebook.start_notebook`); the output folder gets ``results.csv``,
figures (PNG and PDF), ``claims.json`` and ``provenance.json``; the last cell prints
:func:`bandits.experiments.claims.claims_table`.

This module enters the run cache's code fingerprint (:func:`bandits.runner.in_runs`), so it holds
nothing only claims, figures or notebooks use: :class:`~bandits.experiments.claims.Claim` and the
claims table are in :mod:`bandits.experiments.claims`, the notebooks' set-up, output files and
finish in :mod:`bandits.experiments.notebook` (both left out of the fingerprint; this module must
not import them).
"""
from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from ..runner import BACKENDS
from ..validation import ParameterError, check, fail, integer, keys_in, one_of, rule

__all__ = ["MODES", "ParameterError", "mode_params", "validate_common", "resolve_device_param", "check_out_writable",
           "check_datasets",
           "check_injected_parameters", "fmt", "loglog_slope", "repo_root", "resolve_out"]

MODES = ("quick", "full")


def mode_params(mode: str, full: dict, quick: dict, overrides: dict, what: str) -> dict:
    """The parameters of ``mode`` ("quick" or "full") with ``overrides`` (``None`` = keep) applied;
    an unknown override raises, naming it and the allowed names."""
    check("mode", mode, one_of(*MODES))
    p = dict(full if mode == "full" else quick)
    check("overrides", overrides, keys_in(*p), note=f"the {what} parameters")
    p.update({k: v for k, v in overrides.items() if v is not None})
    return p


def resolve_device_param(p: dict, allowed=("auto", "cpu", "cuda")) -> None:
    """Check ``p["device"]`` against ``allowed`` and resolve ``"auto"`` in place
    (:func:`bandits.estimators.resolve_device`), before any run config is built: the cache key then
    names the device the runs use, so a GPU run is never loaded for a CPU request or the reverse."""
    check("device", p["device"], one_of(*allowed))
    from ..estimators import resolve_device

    p["device"] = resolve_device(p["device"])


def validate_common(mode, seed, n_jobs, backend, out, datasets=()) -> None:
    """Validate the parameters every notebook has, before any run.

    Besides each parameter's type and range: ``out`` must be a folder this process can write (an
    existing file, or a read-only folder, is a :class:`ParameterError` naming ``out``, raised here
    rather than when ``results.csv`` is written after the sweep); ``datasets`` (the names the
    notebook declares in its metadata ``bandits.datasets``) must be in the data home
    (:func:`check_datasets`: a ``DataNotFoundError`` naming the files and the fetch command); and
    under papermill, a parameter injected with ``-p NAME VALUE`` that the notebook's ``parameters``
    cell does not define is a :class:`ParameterError` naming it (:func:`check_injected_parameters`).
    """
    check("mode", mode, one_of(*MODES))
    check("seed", seed, integer(ge=0))
    check("n_jobs", n_jobs, integer(), rule(lambda v: v >= 1 or v == -1, "a positive integer or -1"))
    check("backend", backend, one_of(*BACKENDS))
    check("out", out, rule(lambda v: isinstance(v, (str, os.PathLike)) and bool(str(v)), "a folder path"))
    check_injected_parameters()
    check_out_writable(out)
    if datasets:
        check_datasets(datasets)


def check_out_writable(out) -> Path:
    """``out`` (relative paths from the repository root, as :func:`resolve_out`) must be a folder this
    process can create files in: it is created if missing, and a probe file is written and removed
    (``os.access`` is not enough: root passes it on a read-only folder, a read-only mount fails it
    only on write). Raises :class:`ParameterError` naming ``out``. Returns the resolved folder."""
    import tempfile

    p = resolve_out(out)
    check("out", out, rule(lambda _: not (p.exists() and not p.is_dir()), "a folder"), note=f"{p} is a file")
    try:
        p.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=p, prefix=".write-probe-")
        os.close(fd)
        os.unlink(probe)
    except (OSError, FileExistsError) as exc:
        fail("out", out, "a folder this process can write (-p out PATH)", note=f"cannot write into {p}: "
             f"{exc.strerror or exc}")
    return p


def check_datasets(datasets) -> None:
    """Every dataset of ``datasets`` (registry names: the notebook's metadata ``bandits.datasets``) is
    in the data home with its checksum, else ``DataNotFoundError`` naming the missing files, the data
    home and the command that fetches them (before any run, not when a loader first needs a file)."""
    from ..data import registry
    from ..data.errors import DataNotFoundError

    names = [datasets] if isinstance(datasets, str) else list(datasets)
    gone = registry.missing(names)
    if gone:
        home = os.environ.get("BANDITS_DATA_DIR") or str(registry.default_data_dir())
        files = ", ".join(f.path for f in gone)
        raise DataNotFoundError(
            f"this notebook needs the datasets {', '.join(names)}; missing or invalid in the data home {home}: "
            f"{files}. Fetch them with `make data` or `python -m bandits.data ensure --only {' '.join(names)}` "
            "(or set BANDITS_DATA_DIR to a folder that holds them)")


def _assigned_names(source: str) -> list[str]:
    """The names a cell's top-level assignments bind (``a = 1``, ``a: int = 1``, ``a = b = 1``)."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    names = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) else []
        names += [t.id for t in targets if isinstance(t, ast.Name)]
    return names


def check_injected_parameters(history=None) -> None:
    """Under papermill, an injected parameter the notebook does not define is an error naming it.

    papermill runs the cell it injects (first line ``# Parameters``, the values of ``-p NAME VALUE``)
    right after the notebook's ``parameters`` cell, and only warns about an unknown name; a misspelt
    ``-p modee full`` would then run quick mode and exit 0. This reads the kernel's input history
    (``In``; ``history`` for tests): the last cell that starts with ``# Parameters`` and the cell
    before it (the ``parameters`` cell). Names papermill adds itself (``PM_*``) are allowed. Outside
    IPython, or when no injected cell ran, nothing is checked."""
    if history is None:
        try:
            from IPython import get_ipython
        except ImportError:
            return
        ip = get_ipython()
        history = list(ip.user_ns.get("In", [])) if ip is not None else []
    cells = [h for h in history if isinstance(h, str)]
    idx = [i for i, h in enumerate(cells) if h.lstrip().startswith("# Parameters")]
    if not idx or idx[-1] == 0:
        return
    injected = _assigned_names(cells[idx[-1]])
    defined = set(_assigned_names(cells[idx[-1] - 1]))
    if not defined:
        return
    unknown = [n for n in injected if n not in defined and not n.startswith("PM_")]
    if unknown:
        raise ParameterError(
            f"unknown parameter{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}: this notebook's "
            f"parameters are {', '.join(sorted(defined))} (papermill -p NAME VALUE; "
            "`papermill --help-notebook NOTEBOOK` lists them)")


def fmt(x, digits: int = 2) -> str:
    """A number rounded to ``digits`` significant digits, for tables compared by nbval."""
    if isinstance(x, str):
        return x
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return str(x)
    if x == 0:
        return "0"
    return f"{float(x):.{digits}g}"


def loglog_slope(x, y) -> float:
    """Least-squares slope of ``log y`` against ``log x``."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    ok = (x > 0) & (y > 0)
    if ok.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(x[ok]), np.log(y[ok]), 1)[0])


def repo_root() -> Path:
    """The repository root (the folder holding the ``bandits`` package)."""
    return Path(__file__).resolve().parents[2]


def resolve_out(out: str | os.PathLike) -> Path:
    """A relative ``out`` is taken from the repository root, whatever the notebook's cwd."""
    p = Path(out)
    return p if p.is_absolute() else repo_root() / p
