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
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ..runner import BACKENDS, provenance

__all__ = ["MODES", "ParameterError", "mode_params", "validate_common", "check_choice", "check_int",
           "check_number", "Claim", "claims_table", "write_claims", "write_provenance",
           "fmt", "loglog_slope", "default_cache_dir"]

MODES = ("quick", "full")


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


def validate_common(mode, seed, n_jobs, backend, out) -> None:
    """Validate the parameters every notebook has."""
    check_choice("mode", mode, MODES)
    check_int("seed", seed, 0)
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0 or n_jobs < -1:
        raise ParameterError(f"parameter 'n_jobs' must be a positive integer or -1, got {n_jobs!r}")
    check_choice("backend", backend, BACKENDS)
    if not isinstance(out, (str, os.PathLike)) or not str(out):
        raise ParameterError(f"parameter 'out' must be a folder path, got {out!r}")


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
    """One checked claim: the paper's words, the check, its number and the verdict."""

    id: str
    claim: str  # quoted from the paper (or the spec's restatement, marked as such)
    check: str  # what the code tests, in words, with its threshold
    value: str  # the measured number(s), rounded
    passed: bool
    note: str = ""

    def __post_init__(self):
        self.passed = bool(self.passed)
        self.value = str(self.value)

    @property
    def verdict(self) -> str:
        return "PASS" if self.passed else "FAIL"


def claims_table(claims: list[Claim], width: int = 60) -> str:
    """Plain-text table: id | claim | check | number | PASS/FAIL (the text nbval compares)."""
    lines = []
    for c in claims:
        lines.append(f"[{c.verdict}] {c.id}: {c.value}")
        lines.append(f"    claim: \"{c.claim}\"")
        lines.append(f"    check: {c.check}")
    n_pass = sum(c.passed for c in claims)
    lines.append(f"{n_pass} of {len(claims)} claims PASS")
    return "\n".join(lines)


def write_claims(claims: list[Claim], out: str | os.PathLike, extra: dict | None = None) -> Path:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    payload = {"claims": [dict(asdict(c), verdict=c.verdict) for c in claims]}
    if extra:
        payload.update(extra)
    p = out / "claims.json"
    p.write_text(json.dumps(payload, indent=2))
    return p


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
