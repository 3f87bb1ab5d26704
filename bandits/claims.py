r"""Claims with their uncertainty: paired comparisons, ratios, equivalence and slopes (issue 11).

Every method of a figure sees the same environment stream under one seed (common random numbers:
run ``rep`` of every method draws its contexts and noise from ``SeedSequence(seed, spawn_key=(rep,))``),
so a claim "A has lower regret than B" is tested on the **paired** per-run differences

.. math::  d_r = a_r - b_r, \qquad r = 1, \dots, n,

whose mean :math:`\bar d = \bar a - \bar b` is the difference of the two means the figures show,
but whose spread is much smaller than that of :math:`\bar a - \bar b` computed from two
independent samples whenever :math:`a_r` and :math:`b_r` are positively correlated
(:math:`\operatorname{Var} \bar d = (\sigma_a^2 + \sigma_b^2 - 2\rho\sigma_a\sigma_b)/n`).

Interval methods (``method``), all at a stated two-sided ``level`` (default 95 %):

* ``"percentile"`` (default) and ``"bca"``: bootstrap interval of the statistic over resampled
  runs (the pairs are resampled together), by :func:`scipy.stats.bootstrap` with
  ``n_boot = 10 000`` resamples drawn from a :class:`numpy.random.Generator` seeded with a fixed
  ``seed`` (:data:`SEED` unless given): the same runs always give the same interval, so nbval can
  compare the printed table.
* ``"sign"``: the exact distribution-free interval for the **median** difference from the order
  statistics, :math:`[d_{(k)}, d_{(n-k+1)}]` with the largest :math:`k` such that
  :math:`P(\mathrm{Bin}(n, \tfrac12) \le k-1) \le (1-\text{level})/2`; infinite when no such
  :math:`k \ge 1` exists (:math:`n < 6` at 95 %).
* ``"wilcoxon"``: the Hodges–Lehmann estimate (median of the Walsh averages
  :math:`(d_i + d_j)/2, i \le j`) with its exact interval :math:`[W_{(k)}, W_{(M-k+1)}]`,
  :math:`M = n(n+1)/2`, :math:`k` from the exact null distribution of the signed-rank statistic
  (normal approximation for :math:`n > 60`); infinite when :math:`n` is too small (:math:`n < 6`).
* ``"t"``: Student's interval :math:`\bar d \pm t_{n-1}\, s/\sqrt n` (also used for slopes).

The verdict (:func:`verdict`) is three-valued and fixed by the interval alone: **PASS** when the
interval lies on the claimed side of the threshold, **FAIL** when it lies entirely on the other
side, **INCONCLUSIVE** when it straddles the threshold. Thresholds are arguments fixed before the
runs; a check's threshold is never changed after seeing a result without saying so in the
claim's own text.

Few runs (documented behaviour):

* ``n < MIN_RUNS`` (3) paired runs: no interval is computed (a bootstrap of one or two values
  only reproduces them); the result is INCONCLUSIVE with the interval ``(nan, nan)``, printed
  as "no interval (n = 2 < 3 runs)".
* A bootstrap interval of a mean never leaves the range of the data, so when all :math:`n`
  differences lie on one side the percentile/BCa interval does too, however small :math:`n`
  (from :math:`n = 3`). The exact sign test needs :math:`n \ge 6` for that at 95 %. Every result
  therefore also prints how many runs favour the claim and the exact one-sided sign-test
  p-value (:attr:`Comparison.p_sign`), so "3/3 runs, sign p = 0.125" is visible beside a
  PASS; ``method="sign"`` or ``"wilcoxon"`` give the conservative verdict.
* All differences equal (e.g. a deterministic communication count): the interval is the point
  :math:`[d, d]`.

Several comparisons behind one claim (:func:`combine`): "A below every baseline" is an
intersection of one-sided claims, tested by the intersection–union principle: PASS only if every
part PASSes (no multiplicity correction is needed for that), FAIL if any part FAILs, otherwise
INCONCLUSIVE. An existential claim ("some setting of A beats B") combines with ``how="any"``
and its parts must be computed at the Bonferroni level :func:`bonferroni_level`.

Slopes (:func:`fit_slope`, :func:`slope_check`): the least-squares slope of ``log y`` on
``log x`` with its OLS standard error :math:`\mathrm{SE} = \sqrt{\frac{\sum_i r_i^2/(m-2)}
{\sum_i (u_i - \bar u)^2}}` on the :math:`m` fitted points and the Student interval on
:math:`m-2` degrees of freedom (or a bootstrap over runs, ``se="bootstrap"``). As the issue asks,
a slope/bound check keeps its own test (``rule="point"``: the fitted slope against the threshold,
PASS or FAIL) and reports the slope with its SE and interval; ``rule="interval"`` makes it
three-valued like the comparisons.

No module here uses a global random state; :func:`scipy.stats.bootstrap` receives the Generator.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

__all__ = ["LEVEL", "N_BOOT", "SEED", "MIN_RUNS", "METHODS", "VERDICTS", "SIDES", "Comparison", "SlopeFit",
           "paired", "interval", "verdict", "equivalence_verdict", "compare_paired", "compare_unpaired",
           "compare_ratio", "compare_equivalent", "compare_statistic", "combine", "bonferroni_level",
           "fit_slope", "slope_check", "compare_slopes", "sign_test_p", "format_interval", "fnum"]

LEVEL = 0.95
N_BOOT = 10_000
SEED = 11  # issue 11; fixed so that the same runs always give the same interval
MIN_RUNS = 3
METHODS = ("percentile", "bca", "sign", "wilcoxon", "t")
VERDICTS = ("PASS", "FAIL", "INCONCLUSIVE")
SIDES = ("<", "<=", ">", ">=")
_METHOD_NAMES = {"percentile": "percentile bootstrap", "bca": "BCa bootstrap", "sign": "exact sign-test",
                 "wilcoxon": "exact Wilcoxon (Hodges–Lehmann)", "t": "Student t", "ols": "OLS",
                 "bootstrap": "bootstrap over runs"}


def fnum(x, digits: int = 2) -> str:
    """``x`` rounded to ``digits`` significant digits (``-`` for None/NaN, ``±inf`` kept)."""
    if x is None:
        return "-"
    x = float(x)
    if math.isnan(x):
        return "-"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    return f"{x:.{digits}g}"


def format_interval(lo, hi, digits: int = 2) -> str:
    """``[lo, hi]`` rounded, or ``-`` when there is no interval."""
    if lo is None or hi is None or (math.isnan(float(lo)) and math.isnan(float(hi))):
        return "-"
    return f"[{fnum(lo, digits)}, {fnum(hi, digits)}]"


# ------------------------------------------------------------------------------ checks of inputs
def _check_level(level):
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        raise ValueError(f"parameter 'level' must be a number in (0, 1), got {level!r}")


def _check_method(method, allowed=METHODS):
    if method not in allowed:
        raise ValueError(f"parameter 'method' must be one of {list(allowed)}, got {method!r}")


def _check_side(side):
    if side not in SIDES:
        raise ValueError(f"parameter 'side' must be one of {list(SIDES)}, got {side!r}")


def _vec(name, x) -> np.ndarray:
    a = np.asarray(x, dtype=float).ravel()
    if a.size == 0:
        raise ValueError(f"parameter {name!r} must hold at least one run, got an empty array")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"parameter {name!r} must be finite, got {a!r}")
    return a


def paired(a, b, reps_a=None, reps_b=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Align two per-run samples on their run index (the common-random-numbers pairing).

    Args:
        a, b: per-run values, shapes ``(n_a,)`` and ``(n_b,)``.
        reps_a, reps_b: run indices of ``a`` and ``b`` (shapes as ``a``, ``b``); without them the
            runs are paired by position and ``a``, ``b`` must have the same length.

    Returns:
        ``(a_r, b_r, reps)`` on the runs present in both, sorted by run index.
    """
    a, b = _vec("a", a), _vec("b", b)
    if reps_a is None and reps_b is None:
        if a.shape != b.shape:
            raise ValueError(f"paired samples need the same number of runs, got {a.size} and {b.size}; "
                             "pass reps_a/reps_b to pair them by run index")
        return a, b, np.arange(a.size)
    ra, rb = np.asarray(reps_a).ravel(), np.asarray(reps_b).ravel()
    if ra.shape != a.shape or rb.shape != b.shape:
        raise ValueError("parameters 'reps_a'/'reps_b' must give one run index per value")
    if len(np.unique(ra)) != ra.size or len(np.unique(rb)) != rb.size:
        raise ValueError("parameters 'reps_a'/'reps_b' must not repeat a run index")
    common = np.intersect1d(ra, rb)
    if common.size == 0:
        raise ValueError("the two samples share no run index; they cannot be paired")
    pa = {r: i for i, r in enumerate(ra.tolist())}
    pb = {r: i for i, r in enumerate(rb.tolist())}
    ia = np.array([pa[r] for r in common.tolist()])
    ib = np.array([pb[r] for r in common.tolist()])
    return a[ia], b[ib], common


def sign_test_p(d, side: str = "<", threshold: float = 0.0) -> float:
    """Exact one-sided sign-test p-value of ``median(d) side threshold`` (ties dropped; 1 if none left)."""
    from scipy.stats import binomtest

    _check_side(side)
    d = np.asarray(d, dtype=float) - threshold
    d = d[d != 0]
    if d.size == 0:
        return 1.0
    k = int(np.sum(d < 0)) if side in ("<", "<=") else int(np.sum(d > 0))
    return float(binomtest(k, d.size, 0.5, alternative="greater").pvalue)


# ------------------------------------------------------------------------------ intervals
def _sign_interval(d, level):
    from scipy.stats import binom

    n = d.size
    s = np.sort(d)
    alpha = 1 - level
    k = 0
    for j in range(1, n // 2 + 2):
        if binom.cdf(j - 1, n, 0.5) <= alpha / 2:
            k = j
        else:
            break
    med = float(np.median(d))
    if k == 0:
        return med, -math.inf, math.inf
    return med, float(s[k - 1]), float(s[n - k])


def _signed_rank_cdf(n: int) -> np.ndarray:
    """``P(T+ <= t)`` for t = 0..n(n+1)/2 under the null (exact, by counting subsets of ranks)."""
    M = n * (n + 1) // 2
    c = np.zeros(M + 1)
    c[0] = 1.0
    for r in range(1, n + 1):
        c[r:] = c[r:] + c[:-r].copy()
    c /= 2.0**n
    return np.cumsum(c)


def _wilcoxon_interval(d, level):
    from scipy.stats import norm

    n = d.size
    i, j = np.triu_indices(n)
    w = np.sort((d[i] + d[j]) / 2.0)
    M = w.size
    hl = float(np.median(w))
    alpha = 1 - level
    if n <= 60:
        cdf = _signed_rank_cdf(n)
        ok = np.flatnonzero(cdf <= alpha / 2)  # P(T+ <= t) <= alpha/2  ->  k = t + 1
        k = int(ok[-1]) + 1 if ok.size else 0
    else:
        mu, sd = n * (n + 1) / 4, math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
        k = int(math.floor(mu + norm.ppf(alpha / 2) * sd))
    if k < 1:
        return hl, -math.inf, math.inf
    return hl, float(w[k - 1]), float(w[M - k])


def _t_interval(d, level):
    from scipy.stats import t as student

    n = d.size
    m = float(d.mean())
    se = float(d.std(ddof=1) / math.sqrt(n))
    h = float(student.ppf(0.5 + level / 2, n - 1)) * se
    return m, m - h, m + h


def _bootstrap(samples, statistic, level, method, n_boot, seed):
    """Paired bootstrap interval of ``statistic(*samples, axis=-1)`` by :func:`scipy.stats.bootstrap`."""
    from scipy.stats import bootstrap

    rng = np.random.default_rng(seed)
    res = bootstrap(tuple(samples), statistic, paired=True, vectorized=True, confidence_level=level,
                    n_resamples=n_boot, method={"percentile": "percentile", "bca": "BCa"}[method], random_state=rng)
    lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    if not (math.isfinite(lo) and math.isfinite(hi)) and method == "bca":  # degenerate BCa: use percentile
        res = bootstrap(tuple(samples), statistic, paired=True, vectorized=True, confidence_level=level,
                        n_resamples=n_boot, method="percentile", random_state=np.random.default_rng(seed))
        lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return lo, hi


def _mean_stat(d, axis=-1):
    return np.mean(d, axis=axis)


def interval(d, level: float = LEVEL, method: str = "percentile", n_boot: int = N_BOOT,
             seed: int = SEED) -> tuple[float, float, float]:
    """``(effect, lo, hi)`` for one sample of paired differences ``d`` (shape ``(n,)``).

    The effect is the mean (``percentile``, ``bca``, ``t``), the median (``sign``) or the
    Hodges–Lehmann estimate (``wilcoxon``). ``n < MIN_RUNS`` gives ``(mean, nan, nan)``.
    """
    _check_level(level)
    _check_method(method)
    d = _vec("d", d)
    if d.size < MIN_RUNS:
        return float(d.mean()), math.nan, math.nan
    if method == "sign":
        return _sign_interval(d, level)
    if method == "wilcoxon":
        return _wilcoxon_interval(d, level)
    if np.all(d == d[0]):
        return float(d[0]), float(d[0]), float(d[0])
    if method == "t":
        return _t_interval(d, level)
    return (float(d.mean()),) + _bootstrap([d], _mean_stat, level, method, n_boot, seed)


def verdict(lo: float, hi: float, side: str = "<", threshold: float = 0.0) -> str:
    """Three-valued verdict of the claim ``effect side threshold`` from its interval ``[lo, hi]``.

    ``"<"``: PASS if ``hi < threshold``, FAIL if ``lo >= threshold``; ``"<="``: PASS if
    ``hi <= threshold``, FAIL if ``lo > threshold`` (and mirrored for ``">"``, ``">="``);
    INCONCLUSIVE otherwise, and whenever there is no interval (NaN).
    """
    _check_side(side)
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return "INCONCLUSIVE"
    t = threshold
    if side == "<":
        return "PASS" if hi < t else "FAIL" if lo >= t else "INCONCLUSIVE"
    if side == "<=":
        return "PASS" if hi <= t else "FAIL" if lo > t else "INCONCLUSIVE"
    if side == ">":
        return "PASS" if lo > t else "FAIL" if hi <= t else "INCONCLUSIVE"
    return "PASS" if lo >= t else "FAIL" if hi < t else "INCONCLUSIVE"


def equivalence_verdict(lo: float, hi: float, lower: float, upper: float) -> str:
    """"≈" within ``[lower, upper]``: PASS if the interval lies inside, FAIL if it lies entirely
    outside (no overlap), INCONCLUSIVE otherwise (and when there is no interval)."""
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return "INCONCLUSIVE"
    if lower <= lo and hi <= upper:
        return "PASS"
    if hi < lower or lo > upper:
        return "FAIL"
    return "INCONCLUSIVE"


# ------------------------------------------------------------------------------ results
@dataclass(frozen=True)
class Comparison:
    """One tested quantity: the effect, its interval and the verdict.

    Attributes:
        label: what is compared, e.g. ``"R(T) DUETS − DisKernelUCB"``.
        effect: the point estimate (mean paired difference, ratio, slope, ...).
        lo, hi: the interval at ``level`` (NaN: none, e.g. n < 3).
        level: two-sided confidence level of the interval.
        method: interval method (a key of :data:`METHODS`, ``"ols"`` or ``"bootstrap"`` for slopes).
        n: number of paired runs (or fitted points for a slope).
        verdict: ``"PASS"``, ``"FAIL"`` or ``"INCONCLUSIVE"``.
        side, threshold: the claim tested, ``effect side threshold`` (or ``"in"`` for ≈ claims,
            with ``bounds``).
        kind: ``"difference"``, ``"ratio"``, ``"equivalence"``, ``"slope"`` or ``"statistic"``.
        n_favour: runs whose own difference lies on the claimed side (None for slopes).
        p_sign: exact one-sided sign-test p-value for the claimed side (None for slopes).
        se: standard error (slopes; None otherwise).
        parts: the comparisons combined into this one (:func:`combine`).
        note: free text (e.g. why there is no interval).
    """

    label: str
    effect: float
    lo: float
    hi: float
    level: float
    method: str
    n: int
    verdict: str
    side: str = "<"
    threshold: float = 0.0
    kind: str = "difference"
    n_favour: int | None = None
    p_sign: float | None = None
    se: float | None = None
    bounds: tuple | None = None
    parts: tuple = field(default_factory=tuple)
    note: str = ""

    @property
    def passed(self) -> bool:
        return self.verdict == "PASS"

    @property
    def interval(self) -> tuple[float, float]:
        return (self.lo, self.hi)

    def interval_text(self) -> str:
        """``effect [lo, hi] (95 % percentile bootstrap, n = 5)``, or the reason there is none."""
        if math.isnan(self.lo) and math.isnan(self.hi):
            return f"{fnum(self.effect)}, no interval ({self.note or f'n = {self.n}'})"
        how = _METHOD_NAMES.get(self.method, self.method)
        se = f", SE {fnum(self.se)}" if self.se is not None else ""
        return f"{fnum(self.effect)} {format_interval(self.lo, self.hi)}{se} ({self.level:.0%} {how}, n = {self.n})"

    def text(self) -> str:
        """One line: label, effect, interval, the runs in favour and the sign-test p."""
        tail = ""
        if self.n_favour is not None:
            tail = f"; {self.n_favour}/{self.n} runs favour"
            if self.p_sign is not None:
                tail += f", sign p = {fnum(self.p_sign)}"
        if self.kind == "equivalence" and self.bounds:
            claim = f"in [{fnum(self.bounds[0], 3)}, {fnum(self.bounds[1], 3)}]"
        else:
            claim = f"{self.side} {fnum(self.threshold, 3)}"
        return f"{self.label} = {self.interval_text()} vs claim {claim} -> {self.verdict}{tail}"


def _favour(d, side, threshold):
    if side in ("<",):
        return int(np.sum(d < threshold))
    if side == "<=":
        return int(np.sum(d <= threshold))
    if side == ">":
        return int(np.sum(d > threshold))
    return int(np.sum(d >= threshold))


def _few_note(n):
    return f"n = {n} < {MIN_RUNS} runs"


def compare_paired(a, b, side: str = "<", threshold: float = 0.0, *, scale: float = 1.0, label: str = "A − B",
                   level: float = LEVEL, method: str = "percentile", n_boot: int = N_BOOT, seed: int = SEED,
                   reps_a=None, reps_b=None) -> Comparison:
    r"""The claim ``mean(a − scale·b) side threshold`` on per-run pairs (common random numbers).

    "A has lower regret than B": ``side="<"``, threshold 0. "A at most 1.2 × B":
    ``scale=1.2, side="<="``.

    Args:
        a, b: per-run values of the two methods, shape ``(n,)`` each (or pair them by ``reps_a``,
            ``reps_b``: run indices, see :func:`paired`).
        side: one of ``"<", "<=", ">", ">="``.
        threshold: fixed before the runs.
        level, method, n_boot, seed: see the module docstring.
    """
    _check_side(side)
    a, b, _ = paired(a, b, reps_a, reps_b)
    d = a - scale * b
    eff, lo, hi = interval(d, level, method, n_boot, seed)
    v = verdict(lo, hi, side, threshold)
    return Comparison(label, eff, lo, hi, level, method, int(d.size), v, side, float(threshold), "difference",
                      _favour(d, side, threshold), sign_test_p(d, side, threshold),
                      note=_few_note(d.size) if d.size < MIN_RUNS else "")


def compare_unpaired(a, b, side: str = "<", threshold: float = 0.0, *, label: str = "A − B", level: float = LEVEL,
                     method: str = "percentile", n_boot: int = N_BOOT, seed: int = SEED) -> Comparison:
    """The same claim as :func:`compare_paired` when the runs are *not* paired (independent
    samples, resampled separately): the interval of ``mean(a) − mean(b)``. Kept for runs without a
    shared stream, and to show what pairing gains."""
    from scipy.stats import bootstrap

    _check_side(side)
    _check_level(level)
    _check_method(method, ("percentile", "bca", "t"))
    a, b = _vec("a", a), _vec("b", b)
    eff = float(a.mean() - b.mean())
    if min(a.size, b.size) < MIN_RUNS:
        lo = hi = math.nan
    elif method == "t":  # Welch
        from scipy.stats import ttest_ind

        ci = ttest_ind(a, b, equal_var=False).confidence_interval(level)
        lo, hi = float(ci.low), float(ci.high)
    elif np.all(a == a[0]) and np.all(b == b[0]):
        lo = hi = eff
    else:
        res = bootstrap((a, b), lambda x, y, axis=-1: np.mean(x, axis=axis) - np.mean(y, axis=axis),
                        paired=False, vectorized=True, confidence_level=level, n_resamples=n_boot,
                        method={"percentile": "percentile", "bca": "BCa"}[method],
                        random_state=np.random.default_rng(seed))
        lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    return Comparison(label, eff, lo, hi, level, method, int(min(a.size, b.size)), verdict(lo, hi, side, threshold),
                      side, float(threshold), "difference", note="unpaired")


def compare_ratio(a, b, side: str = "<", bound: float = 1.0, *, label: str = "A / B", level: float = LEVEL,
                  method: str = "percentile", statistic: str = "ratio_of_means", n_boot: int = N_BOOT,
                  seed: int = SEED, reps_a=None, reps_b=None) -> Comparison:
    r"""A ratio claim ``ρ side bound`` tested on the paired log-ratio, reported as a ratio.

    ``statistic="ratio_of_means"`` (default): :math:`\rho = \bar a / \bar b` (the ratio of the
    means the figures show), bootstrapped as :math:`\log \bar a^* - \log \bar b^*` over paired
    resamples. ``"mean_log_ratio"``: :math:`\rho = \exp(\overline{\log(a_r/b_r)})` (the geometric
    mean of per-run ratios; also the only form for ``method`` ``"sign"``, ``"wilcoxon"``, ``"t"``).
    The interval is computed on the log scale and exponentiated.

    Args:
        a, b: per-run values, shape ``(n,)``, all > 0 (a ValueError names the offending one).
        bound: the ratio threshold (> 0), e.g. 1.2 for "at most 1.2 × B".
    """
    _check_side(side)
    _check_level(level)
    _check_method(method)
    if statistic not in ("ratio_of_means", "mean_log_ratio"):
        raise ValueError(f"parameter 'statistic' must be 'ratio_of_means' or 'mean_log_ratio', got {statistic!r}")
    if not (isinstance(bound, (int, float)) and bound > 0):
        raise ValueError(f"parameter 'bound' must be a ratio > 0, got {bound!r}")
    a, b, _ = paired(a, b, reps_a, reps_b)
    for name, x in (("a", a), ("b", b)):
        if np.any(x <= 0):
            raise ValueError(f"parameter {name!r} must be > 0 for a ratio claim, got {x!r}; use compare_paired "
                             "with scale= for values that can be 0")
    n = a.size
    logs = np.log(a) - np.log(b)
    if statistic == "mean_log_ratio" or method in ("sign", "wilcoxon", "t"):
        eff, lo, hi = interval(logs, level, method, n_boot, seed)
    else:
        eff = math.log(a.mean()) - math.log(b.mean())
        if n < MIN_RUNS:
            lo = hi = math.nan
        elif np.all(a == a[0]) and np.all(b == b[0]):
            lo = hi = eff
        else:
            lo, hi = _bootstrap([a, b], lambda x, y, axis=-1: np.log(np.mean(x, axis=axis)) - np.log(
                np.mean(y, axis=axis)), level, method, n_boot, seed)
    lt = math.log(bound)
    v = verdict(lo, hi, side, lt)
    return Comparison(label, math.exp(eff), math.exp(lo), math.exp(hi), level, method, int(n), v, side, float(bound),
                      "ratio", _favour(logs, side, lt), sign_test_p(logs, side, lt),
                      note=_few_note(n) if n < MIN_RUNS else "")


def compare_equivalent(a, b=None, margin: float | None = None, *, ratio_bounds: tuple | None = None,
                       label: str = "A − B", level: float = LEVEL, method: str = "percentile", n_boot: int = N_BOOT,
                       seed: int = SEED, reps_a=None, reps_b=None) -> Comparison:
    r"""An "≈" claim: the effect lies within a stated margin.

    Difference form (``margin``): :math:`\bar d = \overline{a - b} \in [-m, m]`. Ratio form
    (``ratio_bounds=(lo, hi)``, e.g. (0.8, 1.25)): :math:`\bar a / \bar b \in [lo, hi]`, the
    interval computed on the paired log-ratio as in :func:`compare_ratio`. PASS if the interval
    lies inside, FAIL if entirely outside, else INCONCLUSIVE (:func:`equivalence_verdict`). The
    interval is the two-sided ``level`` one, i.e. a TOST at (1 − level)/2 per side.

    Args:
        a: per-run values (or the per-run differences themselves when ``b`` is None), shape ``(n,)``.
        b: per-run values of the reference, shape ``(n,)``.
    """
    if (margin is None) == (ratio_bounds is None):
        raise ValueError("give exactly one of 'margin' (difference form) or 'ratio_bounds' (ratio form)")
    if ratio_bounds is not None:
        lo_b, hi_b = ratio_bounds
        if not 0 < lo_b < hi_b:
            raise ValueError(f"parameter 'ratio_bounds' must be (lo, hi) with 0 < lo < hi, got {ratio_bounds!r}")
        if b is None:
            raise ValueError("the ratio form needs both 'a' and 'b'")
        r = compare_ratio(a, b, "<", 1.0, label=label, level=level, method=method, n_boot=n_boot, seed=seed,
                          reps_a=reps_a, reps_b=reps_b)
        v = equivalence_verdict(r.lo, r.hi, lo_b, hi_b)
        return replace(r, verdict=v, side="in", threshold=math.nan, kind="equivalence", bounds=(lo_b, hi_b),
                       n_favour=None, p_sign=None)
    if not (isinstance(margin, (int, float)) and margin >= 0):
        raise ValueError(f"parameter 'margin' must be a number >= 0, got {margin!r}")
    if b is None:
        d = _vec("a", a)
    else:
        x, y, _ = paired(a, b, reps_a, reps_b)
        d = x - y
    eff, lo, hi = interval(d, level, method, n_boot, seed)
    return Comparison(label, eff, lo, hi, level, method, int(d.size), equivalence_verdict(lo, hi, -margin, margin),
                      "in", math.nan, "equivalence", bounds=(-float(margin), float(margin)),
                      note=_few_note(d.size) if d.size < MIN_RUNS else "")


def compare_statistic(samples: dict, statistic, side: str = "<", threshold: float = 0.0, *, label: str = "statistic",
                      level: float = LEVEL, method: str = "percentile", n_boot: int = N_BOOT,
                      seed: int = SEED) -> Comparison:
    """Any claim ``statistic(samples) side threshold`` with runs resampled jointly.

    Args:
        samples: name → per-run array, all of shape ``(n, ...)`` with row r = run r (paired by run
            across every entry: one bootstrap resample picks the same runs in all of them).
        statistic: ``f(dict of arrays with a leading resample axis (B, n, ...)) -> (B,)``; it is
            also called on the original data with ``B = 1``.
    """
    _check_side(side)
    _check_level(level)
    _check_method(method, ("percentile", "bca"))
    names = list(samples)
    arrs = [np.asarray(samples[k], dtype=float) for k in names]
    n = arrs[0].shape[0]
    if n == 0 or any(x.shape[0] != n for x in arrs):
        raise ValueError("parameter 'samples' must give the same (non-zero) number of runs for every entry")
    eff = float(np.asarray(statistic({k: x[None] for k, x in zip(names, arrs)})).ravel()[0])
    if n < MIN_RUNS:
        lo = hi = math.nan
    else:
        rng = np.random.default_rng(seed)
        idx = rng.integers(0, n, size=(n_boot, n))
        boots = np.asarray(statistic({k: x[idx] for k, x in zip(names, arrs)}), dtype=float).ravel()
        alpha = 1 - level
        if method == "bca":
            from scipy.stats import norm

            z0 = norm.ppf(np.clip(np.mean(boots < eff), 1e-12, 1 - 1e-12))
            jack = np.array([float(np.asarray(statistic({k: np.delete(x, i, axis=0)[None]
                                                         for k, x in zip(names, arrs)})).ravel()[0])
                             for i in range(n)])
            dj = jack.mean() - jack
            den = 6.0 * np.sum(dj**2) ** 1.5
            acc = float(np.sum(dj**3) / den) if den > 0 else 0.0
            z = norm.ppf([alpha / 2, 1 - alpha / 2])
            q = norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z)))
        else:
            q = np.array([alpha / 2, 1 - alpha / 2])
        lo, hi = (float(v) for v in np.quantile(boots, q))
    return Comparison(label, eff, lo, hi, level, method, int(n), verdict(lo, hi, side, threshold), side,
                      float(threshold), "statistic", note=_few_note(n) if n < MIN_RUNS else "")


def bonferroni_level(level: float, k: int) -> float:
    """The per-part level for an existential claim over ``k`` alternatives: ``1 − (1 − level)/k``."""
    _check_level(level)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"parameter 'k' must be an integer >= 1, got {k!r}")
    return 1.0 - (1.0 - level) / k


def combine(parts, how: str = "all", label: str | None = None) -> Comparison:
    """One verdict for several comparisons.

    ``how="all"`` (every part must hold; intersection–union test): PASS if every part PASSes,
    FAIL if any FAILs, else INCONCLUSIVE. ``how="any"`` (some part must hold; compute the parts at
    :func:`bonferroni_level`): PASS if any PASSes, FAIL if all FAIL, else INCONCLUSIVE.

    The returned comparison carries the numbers of the part that decides: for ``all``, the first
    failing part, else the first inconclusive one, else the part whose interval lies closest to
    its threshold (the weakest PASS); for ``any``, the first passing part, else the first
    inconclusive one, else the first.
    """
    parts = list(parts)
    if not parts:
        raise ValueError("parameter 'parts' must hold at least one comparison")
    if how not in ("all", "any"):
        raise ValueError(f"parameter 'how' must be 'all' or 'any', got {how!r}")
    vs = [p.verdict for p in parts]
    if how == "all":
        v = "PASS" if all(x == "PASS" for x in vs) else "FAIL" if "FAIL" in vs else "INCONCLUSIVE"
        if "FAIL" in vs:
            dec = parts[vs.index("FAIL")]
        elif "INCONCLUSIVE" in vs:
            dec = parts[vs.index("INCONCLUSIVE")]
        else:
            dec = min(parts, key=_margin)
    else:
        v = "PASS" if "PASS" in vs else "FAIL" if all(x == "FAIL" for x in vs) else "INCONCLUSIVE"
        dec = parts[vs.index("PASS")] if "PASS" in vs else (
            parts[vs.index("INCONCLUSIVE")] if "INCONCLUSIVE" in vs else parts[0])
    return replace(dec, verdict=v, parts=tuple(parts), label=label or dec.label)


def _margin(c: Comparison) -> float:
    """How far the interval lies inside its claimed region (on the log scale for ratios); NaN
    intervals count as no margin."""
    lo, hi = c.lo, c.hi
    if math.isnan(lo) or math.isnan(hi):
        return -math.inf
    logs = c.kind in ("ratio", "equivalence") and lo > 0 and (c.bounds is None or c.bounds[0] > 0)
    f = math.log if logs else (lambda v: v)
    if c.bounds:
        b0, b1 = c.bounds
        return min(f(lo) - f(b0), f(b1) - f(hi))
    t = c.threshold
    if c.side in ("<", "<="):
        return f(t) - f(hi)
    return f(lo) - f(t)


# ------------------------------------------------------------------------------ slopes
@dataclass(frozen=True)
class SlopeFit:
    """A fitted slope with its standard error and interval (``method``: ``"ols"`` or ``"bootstrap"``)."""

    slope: float
    se: float
    lo: float
    hi: float
    level: float
    n: int
    method: str


def _ols(u, v):
    m = u.size
    ub = u.mean()
    sxx = float(np.sum((u - ub) ** 2))
    if m < 2 or sxx == 0:
        return math.nan, math.nan
    s = float(np.sum((u - ub) * (v - v.mean())) / sxx)
    if m < 3:
        return s, math.nan
    r = v - v.mean() - s * (u - ub)
    return s, math.sqrt(float(np.sum(r**2)) / (m - 2) / sxx)


def fit_slope(x, y, *, loglog: bool = True, level: float = LEVEL, se: str = "ols", groups=None,
              n_boot: int = N_BOOT, seed: int = SEED) -> SlopeFit:
    r"""Least-squares slope of ``log y`` on ``log x`` (or ``y`` on ``x``) with its standard error.

    ``se="ols"``: ``x``, ``y`` are the fitted points (usually the means over runs at each x);
    :math:`\mathrm{SE} = \sqrt{\mathrm{RSS}/(m-2) / S_{xx}}` and the Student interval on
    :math:`m - 2` degrees of freedom (none for :math:`m < 3`).

    ``se="bootstrap"``: ``x``, ``y`` are per-run points and ``groups`` their run index (shape as
    ``x``); the slope is fitted to the means over runs at each x (as the figures do) and the runs
    are resampled jointly (one run index → all its x values) to give the SE (s.d. of the
    resampled slopes) and the percentile interval. Needs ≥ 3 runs.

    Non-positive points are dropped on a log–log fit (as :func:`~bandits.experiments.common.loglog_slope`).
    """
    _check_level(level)
    if se not in ("ols", "bootstrap"):
        raise ValueError(f"parameter 'se' must be 'ols' or 'bootstrap', got {se!r}")
    x, y = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if x.shape != y.shape:
        raise ValueError(f"parameters 'x' and 'y' must have the same length, got {x.size} and {y.size}")
    ok = np.isfinite(x) & np.isfinite(y)
    if loglog:
        ok &= (x > 0) & (y > 0)
    if se == "ols":
        u, v = (np.log(x[ok]), np.log(y[ok])) if loglog else (x[ok], y[ok])
        s, e = _ols(u, v)
        m = int(u.size)
        if math.isfinite(e):
            from scipy.stats import t as student

            h = float(student.ppf(0.5 + level / 2, m - 2)) * e
            lo, hi = s - h, s + h
        else:
            lo = hi = math.nan
        return SlopeFit(s, e, lo, hi, level, m, "ols")
    if groups is None:
        raise ValueError("se='bootstrap' needs 'groups' (the run index of every point)")
    g = np.asarray(groups).ravel()
    if g.shape != x.shape:
        raise ValueError("parameter 'groups' must give one run index per point")
    xs = np.unique(x[np.isfinite(x)])
    runs = np.unique(g)
    Y = np.full((runs.size, xs.size), np.nan)
    Y[np.searchsorted(runs, g), np.searchsorted(xs, x)] = y
    if np.isnan(Y).any():
        raise ValueError("se='bootstrap' needs every run at every x")

    def slope_of(Ymat):  # Ymat (B, runs, xs) -> (B,)
        mean = Ymat.mean(axis=1)
        u = np.log(xs) if loglog else xs
        v = np.log(mean) if loglog else mean
        uc = u - u.mean()
        return (v - v.mean(axis=-1, keepdims=True)) @ uc / float(uc @ uc)

    s = float(slope_of(Y[None])[0])
    if runs.size < MIN_RUNS:
        return SlopeFit(s, math.nan, math.nan, math.nan, level, int(runs.size), "bootstrap")
    rng = np.random.default_rng(seed)
    with np.errstate(divide="ignore", invalid="ignore"):
        b = slope_of(Y[rng.integers(0, runs.size, size=(n_boot, runs.size))])
    b = b[np.isfinite(b)]
    lo, hi = (float(q) for q in np.quantile(b, [(1 - level) / 2, (1 + level) / 2]))
    return SlopeFit(s, float(b.std(ddof=1)), lo, hi, level, int(runs.size), "bootstrap")


def slope_check(x, y, side: str = "<=", bound: float = 0.0, *, upper: float | None = None, label: str = "slope",
                rule: str = "point", loglog: bool = True, level: float = LEVEL, se: str = "ols", groups=None,
                n_boot: int = N_BOOT, seed: int = SEED) -> Comparison:
    """A slope claim (``slope side bound``, or ``bound <= slope <= upper`` when ``upper`` is given)
    reporting the fitted slope with its SE and interval (:func:`fit_slope`).

    ``rule="point"`` (default; the check keeps its own test, as the issue asks): PASS/FAIL from
    the fitted slope against the threshold. ``rule="interval"``: three-valued from the interval.
    """
    if rule not in ("point", "interval"):
        raise ValueError(f"parameter 'rule' must be 'point' or 'interval', got {rule!r}")
    fit = fit_slope(x, y, loglog=loglog, level=level, se=se, groups=groups, n_boot=n_boot, seed=seed)
    if upper is not None:
        if rule == "point":
            v = "PASS" if math.isfinite(fit.slope) and bound <= fit.slope <= upper else "FAIL"
        else:
            v = equivalence_verdict(fit.lo, fit.hi, bound, upper)
        return Comparison(label, fit.slope, fit.lo, fit.hi, level, fit.method, fit.n, v, "in", math.nan, "slope",
                          se=fit.se, bounds=(float(bound), float(upper)),
                          note="fewer than 3 points" if not math.isfinite(fit.se) else "")
    _check_side(side)
    if rule == "point":
        v = verdict(fit.slope, fit.slope, side, bound) if math.isfinite(fit.slope) else "FAIL"
        v = "PASS" if v == "PASS" else "FAIL"
    else:
        v = verdict(fit.lo, fit.hi, side, bound)
    return Comparison(label, fit.slope, fit.lo, fit.hi, level, fit.method, fit.n, v, side, float(bound), "slope",
                      se=fit.se, note="fewer than 3 points" if not math.isfinite(fit.se) else "")


def compare_slopes(xa, ya, xb, yb, side: str = "<", *, label: str = "slope A − slope B", rule: str = "point",
                   loglog: bool = True, level: float = LEVEL) -> Comparison:
    """Slope of A minus slope of B (independent OLS fits), SE = √(SE_A² + SE_B²), normal interval."""
    from scipy.stats import norm

    fa = fit_slope(xa, ya, loglog=loglog, level=level)
    fb = fit_slope(xb, yb, loglog=loglog, level=level)
    eff = fa.slope - fb.slope
    e = math.sqrt(fa.se**2 + fb.se**2) if math.isfinite(fa.se) and math.isfinite(fb.se) else math.nan
    h = float(norm.ppf(0.5 + level / 2)) * e
    lo, hi = (eff - h, eff + h) if math.isfinite(e) else (math.nan, math.nan)
    if rule == "point":
        v = "PASS" if math.isfinite(eff) and verdict(eff, eff, side, 0.0) == "PASS" else "FAIL"
    else:
        v = verdict(lo, hi, side, 0.0)
    return Comparison(label, eff, lo, hi, level, "ols", min(fa.n, fb.n), v, side, 0.0, "slope", se=e)
