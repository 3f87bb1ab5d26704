"""What every paper's notebook shares: parameter validation, claims, and the output folder.

The notebook contract: a ``parameters`` cell with at least ``mode``, ``seed``, ``n_jobs``,
``backend``, ``out``; :func:`validate_common` first; the output folder gets ``results.csv``,
figures (PNG and PDF), ``claims.json`` and ``provenance.json``; the last cell prints
:func:`claims_table`.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..runner import BACKENDS, provenance

__all__ = ["MODES", "KINDS", "QUOTES", "CAUSES", "ParameterError", "mode_params", "validate_common", "check_choice", "check_int",
           "check_number", "Claim", "claims_table", "write_claims", "write_provenance", "verdict_counts",
           "summary_line", "kind_summary", "start_notebook", "finish_notebook",
           "fmt", "loglog_slope", "default_cache_dir", "CSV_FLOAT_FORMAT", "results_rows", "write_results_csv"]

MODES = ("quick", "full")
#: What a claim is: a statement of the paper, or a check of this package's implementation.
KINDS = ("paper", "implementation")
#: Whether a claim's text is the paper's own words.
QUOTES = ("verbatim", "paraphrase")
#: Why a claim is not PASS (issue 23): the key, and the words the tables print.
CAUSES = {
    "paper": "the paper's statement does not hold in this reproduction",
    "setting": "depends on a setting the paper does not give",
    "approximation": "an approximation of this package",
    "open": "open",
}


class ParameterError(ValueError):
    """A notebook/experiment parameter is invalid; the message names it and what is allowed."""


def mode_params(mode: str, full: dict, quick: dict, overrides: dict, what: str) -> dict:
    """The parameters of ``mode`` ("quick" or "full") with ``overrides`` (``None`` = keep) applied;
    an unknown override raises, naming it and the allowed names."""
    check_choice("mode", mode, MODES)
    p = dict(full if mode == "full" else quick)
    unknown = set(overrides) - set(p)
    if unknown:
        raise ParameterError(f"unknown {what} parameters {sorted(unknown)}; allowed: {sorted(p)}")
    p.update({k: v for k, v in overrides.items() if v is not None})
    return p


def check_choice(name: str, value, allowed) -> None:
    if value not in allowed:
        raise ParameterError(f"parameter {name!r} must be one of {list(allowed)}, got {value!r}")


def resolve_device_param(p: dict, allowed=("auto", "cpu", "cuda")) -> None:
    """Check ``p["device"]`` against ``allowed`` and resolve ``"auto"`` in place
    (:func:`bandits.estimators.resolve_device`), before any run config is built: the cache key then
    names the device the runs use, so a GPU run is never loaded for a CPU request or the reverse."""
    check_choice("device", p["device"], allowed)
    from ..estimators import resolve_device

    p["device"] = resolve_device(p["device"])


def check_subset(name: str, values, allowed) -> None:
    if isinstance(values, str) or not hasattr(values, "__iter__"):
        raise ParameterError(f"parameter {name!r} must be a list drawn from {list(allowed)}, got {values!r}")
    bad = [v for v in values if v not in allowed]
    if bad or not list(values):
        raise ParameterError(f"parameter {name!r} has unknown or no values {bad}; allowed: {list(allowed)}")


def check_int(name: str, value, minimum: int | None = None) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ParameterError(f"parameter {name!r} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ParameterError(f"parameter {name!r} must be >= {minimum}, got {value}")


def check_number(name: str, value, positive: bool = True) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value):
        raise ParameterError(f"parameter {name!r} must be a finite number, got {value!r}")
    if positive and value <= 0:
        raise ParameterError(f"parameter {name!r} must be > 0, got {value}")


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
    check_choice("mode", mode, MODES)
    check_int("seed", seed, 0)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0 or n_jobs < -1:
        raise ParameterError(f"parameter 'n_jobs' must be a positive integer or -1, got {n_jobs!r}")
    check_choice("backend", backend, BACKENDS)
    if not isinstance(out, (str, os.PathLike)) or not str(out):
        raise ParameterError(f"parameter 'out' must be a folder path, got {out!r}")
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
    if p.exists() and not p.is_dir():
        raise ParameterError(f"parameter 'out' must be a folder, but {str(out)!r} ({p}) is a file")
    try:
        p.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=p, prefix=".write-probe-")
        os.close(fd)
        os.unlink(probe)
    except (OSError, FileExistsError) as exc:
        raise ParameterError(f"parameter 'out': cannot write into the folder {str(out)!r} ({p}): "
                             f"{exc.strerror or exc}; choose a writable folder (-p out PATH)") from exc
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


def default_cache_dir() -> str:
    """``$BANDITS_CACHE_DIR`` or ``cache/`` at the repository root."""
    env = os.environ.get("BANDITS_CACHE_DIR")
    if env:
        return env
    return str(Path(__file__).resolve().parents[2] / "cache")


def fmt(x, digits: int = 2) -> str:
    """A number rounded to ``digits`` significant digits, for tables compared by nbval."""
    if isinstance(x, str):
        return x
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return str(x)
    if x == 0:
        return "0"
    return f"{float(x):.{digits}g}"


@dataclass
class Claim:
    """One checked claim: the paper's words, the check, its number, the verdict and its interval.

    The verdict is three-valued (``"PASS"``, ``"FAIL"``, ``"INCONCLUSIVE"``; see
    :mod:`bandits.claims`). Old code passes ``passed=bool`` (→ PASS/FAIL, no interval); new code
    passes ``verdict=`` or builds the claim from a :class:`~bandits.claims.Comparison` with
    :meth:`from_result`. ``passed`` is always ``verdict == "PASS"``.

    Attributes:
        effect: the tested quantity (mean paired difference, ratio, slope, ...), or None.
        interval: ``(lo, hi)`` at ``level``, or None (printed ``-``).
        level: two-sided confidence level of the interval, or None.
        method: how the interval was made (e.g. ``"percentile"``, ``"ols"``).
        detail: one line per tested part (``Comparison.text()``), for the notebook and claims.json.
        kind: ``"paper"`` (a statement of the paper, tested) or ``"implementation"`` (a check of this
            package: an identity, bookkeeping, a definition, or a bound 10× or more away from what is
            observed). The two kinds are counted apart (:func:`summary_line`, the README, CLAIMS.md).
        quote: ``"verbatim"`` when ``claim`` is the paper's words (a test looks each up in the paper's
            text, whitespace normalised), else ``"paraphrase"`` (the package's restatement).
        source: where in the paper the claim is made ("§5.2", "Theorem 1", "Fig. 3(c)"), or "".
        cause: for a verdict other than PASS, why: one of :data:`CAUSES` (``None`` for a PASS; a
            non-PASS claim given no cause gets ``"open"``). Given before the runs for the case it
            applies, it is dropped when the claim PASSes.
        cause_note: the named setting or approximation, or the reason in words.
    """

    id: str
    claim: str  # the paper's words (quote="verbatim") or the package's paraphrase (quote="paraphrase")
    check: str  # what the code tests, in words, with its threshold
    value: str  # the measured number(s), rounded
    passed: bool | None = None
    note: str = ""
    verdict: str | None = None
    effect: float | None = None
    interval: tuple | None = None
    level: float | None = None
    method: str = ""
    detail: list = field(default_factory=list)
    kind: str = "paper"
    quote: str = "paraphrase"
    source: str = ""
    cause: str | None = None
    cause_note: str = ""

    def __post_init__(self):
        from ..claims import VERDICTS

        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id!r}: 'kind' must be one of {list(KINDS)}, got {self.kind!r}")
        if self.quote not in QUOTES:
            raise ValueError(f"claim {self.id!r}: 'quote' must be one of {list(QUOTES)}, got {self.quote!r}")
        if self.cause is not None and self.cause not in CAUSES:
            raise ValueError(f"claim {self.id!r}: 'cause' must be one of {list(CAUSES)} or None, got {self.cause!r}")

        if self.verdict is None:
            if self.passed is None:
                raise ValueError(f"claim {self.id!r}: give 'verdict' (one of {list(VERDICTS)}) or 'passed'")
            self.verdict = "PASS" if bool(self.passed) else "FAIL"
        if self.verdict not in VERDICTS:
            raise ValueError(f"claim {self.id!r}: 'verdict' must be one of {list(VERDICTS)}, got {self.verdict!r}")
        if self.passed is not None and bool(self.passed) != (self.verdict == "PASS"):
            raise ValueError(f"claim {self.id!r}: passed={self.passed!r} contradicts verdict={self.verdict!r}")
        self.passed = self.verdict == "PASS"
        if self.passed:
            self.cause, self.cause_note = None, ""
        elif self.cause is None:
            self.cause = "open"
        self.value = str(self.value)
        if self.interval is not None:
            lo, hi = (float(v) for v in self.interval)
            self.interval = None if (math.isnan(lo) and math.isnan(hi)) else (lo, hi)
        if self.effect is not None:
            self.effect = float(self.effect)

    @classmethod
    def from_result(cls, id: str, claim: str, check: str, result, value: str | None = None, note: str = "",
                    **labels):
        """A claim whose verdict, effect and interval come from a :class:`bandits.claims.Comparison`
        (its parts, if combined, each give a line of ``detail``); ``value`` defaults to the
        deciding comparison's text; ``labels``: ``kind``, ``quote``, ``source``, ``cause``,
        ``cause_note``."""
        parts = result.parts or (result,)
        return cls(id, claim, check, value if value is not None else result.text(), note=note,
                   verdict=result.verdict, effect=result.effect, interval=(result.lo, result.hi),
                   level=result.level, method=result.method, detail=[p.text() for p in parts], **labels)

    def interval_text(self) -> str:
        """``effect [lo, hi] (95%, method)`` or ``-``."""
        from ..claims import fnum, format_interval, level_text, method_label

        if self.interval is None:
            return "-" if self.effect is None else f"{fnum(self.effect)} (no interval)"
        method = method_label(self.method) if self.method else ""
        how = f"{level_text(self.level)} {method}".strip() if self.level else method
        return f"{fnum(self.effect)} {format_interval(*self.interval)} ({how})"


def verdict_counts(verdicts) -> dict:
    """``{"PASS": n, "FAIL": n, "INCONCLUSIVE": n}`` of an iterable of verdict strings."""
    out = {"PASS": 0, "FAIL": 0, "INCONCLUSIVE": 0}
    for v in verdicts:
        out[v] = out.get(v, 0) + 1
    return out


def summary_line(verdicts) -> str:
    """``"n PASS, n FAIL, n INCONCLUSIVE"``."""
    c = verdict_counts(verdicts)
    return f"{c['PASS']} PASS, {c['FAIL']} FAIL, {c['INCONCLUSIVE']} INCONCLUSIVE"


def kind_summary(claims) -> str:
    """``"paper claims: n PASS, n FAIL, n INCONCLUSIVE; implementation checks: k of m PASS"``: the
    two kinds counted apart (a check of the implementation is not evidence about the paper)."""
    claims = list(claims)
    paper = [c.verdict for c in claims if c.kind == "paper"]
    impl = [c.verdict for c in claims if c.kind == "implementation"]
    return (f"paper claims: {summary_line(paper)}; implementation checks: "
            f"{sum(v == 'PASS' for v in impl)} of {len(impl)} PASS")


def claims_table(claims: list[Claim], width: int = 60) -> str:
    """Plain-text table (the text nbval compares), per claim::

        [VERDICT] id
            claim: "quoted claim"
            check: what is tested, with its threshold
            number: the measured number(s)
            interval: effect [lo, hi] (level method)   (or -)

    and a last line :func:`kind_summary`. An implementation check's first line ends in
    ``(implementation check)``; a paraphrase is marked ``(paraphrase)`` after the claim and the
    paper's section follows it; a verdict other than PASS has a ``cause:`` line.
    """
    lines = []
    for c in claims:
        tag = " (implementation check)" if c.kind == "implementation" else ""
        lines.append(f"[{c.verdict}] {c.id}{tag}")
        where = f" [{c.source}]" if c.source else ""
        para = " (paraphrase)" if c.quote == "paraphrase" else ""
        lines.append(f"    claim: \"{c.claim}\"{para}{where}")
        lines.append(f"    check: {c.check}")
        lines.append(f"    number: {c.value}")
        lines.append(f"    interval: {c.interval_text()}")
        if c.cause is not None:
            note = f" ({c.cause_note})" if c.cause_note else ""
            lines.append(f"    cause: {CAUSES[c.cause]}{note}")
    lines.append(kind_summary(claims))
    return "\n".join(lines)


def _json_safe(x):
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, (list, tuple)):
        return [_json_safe(v) for v in x]
    if isinstance(x, dict):
        return {k: _json_safe(v) for k, v in x.items()}
    return x


def write_claims(claims: list[Claim], out: str | os.PathLike, extra: dict | None = None) -> Path:
    """``<out>/claims.json``: per claim id, claim, check, value, passed, note, verdict, effect,
    interval ``[lo, hi]`` (or null), level, method, detail; plus ``summary`` counts and ``extra``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    payload = {"claims": [_json_safe(asdict(c)) for c in claims],
               "summary": verdict_counts(c.verdict for c in claims),
               "summary_by_kind": {k: verdict_counts(c.verdict for c in claims if c.kind == k) for k in KINDS}}
    if extra:
        payload.update(extra)
    p = out / "claims.json"
    p.write_text(json.dumps(payload, indent=2))
    return p


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


# ------------------------------------------------------------------------------ the notebooks' set-up and finish
def start_notebook(*, mode, seed, n_jobs, backend, out, scheduler=None, datasets=()) -> Path:
    """The first cell after ``parameters`` of every notebook: :func:`validate_common` (every common
    parameter, ``out`` writable, the declared ``datasets`` present, no unknown injected parameter),
    then the dask ``scheduler`` resolved (:func:`bandits.runner.resolve_scheduler`; every dask sweep
    then uses that cluster), then the output folder created. Returns the output folder (a relative
    ``out`` is taken from the repository root)."""
    from ..runner import resolve_scheduler

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
