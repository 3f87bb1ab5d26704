"""bandits.stats: the one Student-t paired computation, shared by the claims and Async-KernelUCB's tuning rule
(the run code may not import bandits/claims.py, so both take it from here and cannot drift)."""
from __future__ import annotations

import math

import numpy as np

from bandits import claims, stats
from bandits.experiments.async_kernelucb import paired_t_verdict


def test_claims_student_t_is_the_shared_one():
    rng = np.random.default_rng(5)
    for n in (3, 4, 9, 30):
        for shift in (-1.0, 0.0, 0.3):
            d = rng.normal(shift, 1.0, n)
            assert claims.interval(d, 0.95, "t") == stats.paired_t_interval(d, 0.95)
    assert claims.interval(np.full(4, -2.0), 0.9, "t") == (-2.0, -2.0, -2.0)
    eff, lo, hi = stats.paired_t_interval(np.array([1.0, 2.0]), 0.95)
    assert eff == 1.5 and math.isnan(lo) and math.isnan(hi)


def test_the_tuning_verdict_is_the_claims_verdict():
    rng = np.random.default_rng(7)
    for n in (2, 3, 5, 12):
        for shift in (-2.0, -0.1, 0.0, 1.0):
            a, b = rng.normal(shift, 1.0, n), rng.normal(0.0, 1.0, n)
            reps = np.arange(n)
            want = claims.compare_paired(a, b, "<", 0.0, reps_a=reps, reps_b=reps).verdict
            assert paired_t_verdict(a, b, reps, reps) == want == stats.verdict_below(
                *stats.paired_t_interval(a - b, claims.LEVEL)[1:])
