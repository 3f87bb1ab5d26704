"""The Student-t paired computation, in one place for the claims and the run code.

The claims' statistics (:mod:`bandits.claims`) live outside the run cache's key, and a module the key
covers must not import them; yet a tuning rule inside a run (Async-KernelUCB's choice of γ,
:func:`bandits.experiments.async_kernelucb.paired_t_verdict`) decides with the same paired Student-t
interval as :func:`bandits.claims.compare_paired`. Both take it from here, so the two cannot drift.

This module is at the package's floor: numpy and scipy only, nothing from the package.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

__all__ = ["MIN_RUNS", "t_quantile", "t_interval", "paired_t_interval", "verdict_below"]

#: Below this many runs (pairs) there is no interval: ``(mean, nan, nan)``, INCONCLUSIVE.
MIN_RUNS = 3


@lru_cache(maxsize=4096)
def t_quantile(q: float, df: int) -> float:
    """The ``q`` quantile of Student's t with ``df`` degrees of freedom."""
    from scipy.stats import t as student

    return float(student.ppf(q, df))


def t_interval(d: np.ndarray, level: float) -> tuple[float, float, float]:
    """``(mean, lo, hi)``: the Student-t ``level`` interval of the mean of ``d`` (``n >= 2`` values,
    not all equal): ``mean ± t_{(1+level)/2, n−1} · s/√n``."""
    n = d.size
    m = float(d.mean())
    se = float(d.std(ddof=1) / math.sqrt(n))
    h = t_quantile(0.5 + level / 2, n - 1) * se
    return m, m - h, m + h


def paired_t_interval(d: np.ndarray, level: float) -> tuple[float, float, float]:
    """``(mean, lo, hi)`` of the paired differences ``d`` (finite, shape ``(n,)``): no interval
    (``lo = hi = nan``) below :data:`MIN_RUNS`; the common value when every difference is equal;
    else :func:`t_interval`."""
    if d.size < MIN_RUNS:
        return (float(d.mean()) if d.size else math.nan), math.nan, math.nan
    if np.all(d == d[0]):
        return float(d[0]), float(d[0]), float(d[0])
    return t_interval(d, level)


def verdict_below(lo: float, hi: float, threshold: float = 0.0) -> str:
    """The verdict of ``effect < threshold`` from its interval: PASS iff ``hi < threshold``, FAIL iff
    ``lo >= threshold``, INCONCLUSIVE otherwise and when there is no interval (NaN)."""
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return "INCONCLUSIVE"
    return "PASS" if hi < threshold else "FAIL" if lo >= threshold else "INCONCLUSIVE"
