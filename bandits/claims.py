r"""Claims with their uncertainty: paired comparisons, ratios, equivalence and slopes.

The statistics that decide a verdict. (Three modules carry "claims" in their name: this one, the
statistics; :mod:`bandits.experiments.claims`, the claim record, its table and ``claims.json``; and each
experiment's ``<name>_claims.py``, the claims of one paper's figures, built with the two.)

Every method of a figure sees the same environment stream under one seed (common random numbers:
run ``rep`` of every method draws its contexts and noise from ``SeedSequence(seed, spawn_key=(rep,))``),
so a claim "A has lower regret than B" is tested on the **paired** per-run differences

.. math::  d_r = a_r - b_r, \qquad r = 1, \dots, n,

whose mean :math:`\bar d = \bar a - \bar b` is the difference of the two means the figures show,
but whose spread is much smaller than that of :math:`\bar a - \bar b` computed from two
independent samples whenever :math:`a_r` and :math:`b_r` are positively correlated
(:math:`\operatorname{Var} \bar d = (\sigma_a^2 + \sigma_b^2 - 2\rho\sigma_a\sigma_b)/n`).

Calibrated defaults (``method=None`` everywhere means these)
-------------------------------------------------------------

A verdict is meant to be wrong at most at its nominal rate: a one-sided claim decided by a
two-sided 95 % interval must PASS at most 2.5 % of the time when the claimed effect is absent, at
every run count a committed claim uses (n = 3 upwards). The percentile bootstrap does not do
that at small n (it never leaves the range of the data: at n = 3 a null PASSes about 13 % of the
time), so the defaults are small-sample intervals:

* paired mean differences (:func:`compare_paired`, :func:`compare_equivalent`, :func:`interval`):
  **Student t** on the differences, :math:`\bar d \pm t_{n-1, 1-\alpha/2}\, s_d/\sqrt n`. Exact for
  normal differences; under the null of "no effect" :math:`a_r` and :math:`b_r` are exchangeable,
  so :math:`d_r` is symmetric about 0, and the t-test is conservative for symmetric heavy-tailed
  differences (Efron 1969);
* ratios of means :math:`\bar a / \bar b` (:func:`compare_ratio`, the equivalence ratio form):
  **Fieller**. ":math:`\bar a/\bar b < \rho_0`" is ":math:`\overline{a - \rho_0 b} < 0`", decided by the
  paired t-test of :math:`a - \rho_0 b`; the reported interval is Fieller's, the set of
  :math:`\rho` that the paired t-test of :math:`a - \rho b` does not reject (so the interval and the
  verdict agree); an unbounded Fieller set (:math:`\bar b` not distinguishable from 0) gives
  INCONCLUSIVE;
* unpaired differences (:func:`compare_unpaired`): **Welch** t;
* any other statistic (:func:`compare_statistic`): the hull (smallest interval containing all
  three) of the **jackknife-t** interval (:math:`\hat\theta \pm t_{n-1}\,\mathrm{SE_{jack}}`, which is
  Student's interval for a mean), the **bootstrap-t** interval (studentised by the jackknife SE
  within each resample; infinite at n = 3, where a resample repeating one run has no spread)
  and the percentile bootstrap interval (which guards a statistic whose leave-one-out values do
  not move, e.g. a rank statistic). At n = 3 a generic statistic is therefore INCONCLUSIVE;
* slopes (:func:`slope_check`, :func:`compare_slopes`): decided by their interval
  (``rule="interval"``), the OLS Student interval on :math:`m-2` degrees of freedom, or with
  ``se="bootstrap"`` (runs resampled) the same hull as for a statistic, over runs. Where every run
  has its own curve (runs sharing seeds across the x values), :func:`per_run_slope_check` takes the
  run as the unit: one least-squares slope per run, and Student's t interval over the runs' slopes
  (a paired mean, calibrated as one).

The false-PASS rates and the power of these rules at each run count are measured by
:func:`null_pass_rate` and :func:`power_table` (tests/test_claims_calibration.py, docs/statistics.md).

Other interval methods (``method``), all at a stated two-sided ``level`` (default 95 %):

* ``"percentile"`` and ``"bca"``: bootstrap interval of the statistic over resampled runs (the
  pairs are resampled together), by :func:`scipy.stats.bootstrap` with ``n_boot = 10 000``
  resamples from a :class:`numpy.random.Generator` seeded with a fixed ``seed`` (:data:`SEED`
  unless given). **Not calibrated at small n** (kept for comparison, and for large n).
* ``"sign"``: the exact distribution-free interval for the **median** difference from the order
  statistics, :math:`[d_{(k)}, d_{(n-k+1)}]` with the largest :math:`k` such that
  :math:`P(\mathrm{Bin}(n, \tfrac12) \le k-1) \le (1-\text{level})/2`; infinite when no such
  :math:`k \ge 1` exists (:math:`n < 6` at 95 %).
* ``"wilcoxon"``: the Hodges–Lehmann estimate (median of the Walsh averages
  :math:`(d_i + d_j)/2, i \le j`) with its exact interval :math:`[W_{(k)}, W_{(M-k+1)}]`,
  :math:`M = n(n+1)/2`, :math:`k` from the exact null distribution of the signed-rank statistic
  (normal approximation for :math:`n > 60`); infinite when :math:`n` is too small (:math:`n < 6`).
* ``"t"``: Student's interval (the default).

Verdicts (:func:`verdict`) are three-valued and fixed by the interval alone: **PASS** when the
interval lies strictly on the claimed side of the threshold, **FAIL** when it lies on the other
side, **INCONCLUSIVE** when it straddles or touches the threshold.

* ``"<"``: PASS iff ``hi < t``, FAIL iff ``lo >= t``; ``">"`` mirrored.
* ``"<="``: PASS iff ``hi < t + margin``, FAIL iff ``lo > t + margin``; ``">="`` mirrored
  (``lo > t − margin``, ``hi < t − margin``). **Ties do not pass**: without a margin
  (``margin=None``, i.e. 0) an interval touching the threshold, ``[0, 0]`` included, is
  INCONCLUSIVE. An equivalence margin (``margin=m > 0``, "A at most B, within m") must be fixed
  before the runs and named in the claim's text. An exact identity is an equivalence claim with
  margin 0 (:func:`compare_equivalent`), not an inequality.

Thresholds and margins are arguments fixed before the runs; a check's threshold is never changed
after seeing a result without saying so in the claim's own text.

Diverged runs (``diverged=``): a run whose value is not finite (NaN, inf: a diverged or failed
run) is never silently dropped. ``diverged="error"`` (default) raises; ``"worst"`` counts it as
the worst outcome of the comparison (the worst finite value observed in either sample;
``worse="higher"`` for regrets and costs, ``"lower"`` for rewards); ``"inconclusive"`` makes the
result INCONCLUSIVE. Either way the note says "k of n runs diverged" (:func:`handle_diverged`).

Few runs (documented behaviour):

* ``n < MIN_RUNS`` (3) paired runs: no interval is computed; the result is INCONCLUSIVE with the
  interval ``(nan, nan)``, printed as "no interval (n = 2 < 3 runs)".
* Every result also prints how many runs favour the claim and the exact one-sided sign-test
  p-value (:attr:`Comparison.p_sign`).
* All differences equal (e.g. a deterministic communication count): the interval is the point
  :math:`[d, d]` (for ``"<="`` at the threshold: INCONCLUSIVE, see ties).

Several comparisons behind one claim (:func:`combine`): "A below every baseline" is an
intersection of one-sided claims, tested by the intersection–union principle: PASS only if every
part PASSes (no multiplicity correction is needed for that), FAIL if any part FAILs, otherwise
INCONCLUSIVE. An existential claim ("some setting of A beats B") combines with ``how="any"``
and its parts must be computed at the Bonferroni level :func:`bonferroni_level`.

Slopes (:func:`fit_slope`, :func:`slope_check`): the least-squares slope of ``log y`` on
``log x`` with its OLS standard error :math:`\mathrm{SE} = \sqrt{\frac{\sum_i r_i^2/(m-2)}
{\sum_i (u_i - \bar u)^2}}` on the :math:`m` fitted points and the Student interval on
:math:`m-2` degrees of freedom (or over runs, ``se="bootstrap"``). ``rule="interval"`` (default)
decides by the interval like every comparison; ``rule="point"`` (the fitted slope against the
threshold, PASS or FAIL, uncalibrated) is kept only as an explicit opt-in.

No function here uses a global random state; every resample draws from a seeded Generator.

Length (≈ 1 250 lines, 110 of them this docstring): one module on purpose. Every rule shares the interval
methods, the verdict function, the tie and divergence policies and :class:`Comparison`, and the calibration
helpers (:func:`null_pass_rate`, :func:`power_table`) simulate through the same public functions; a reader
checking how a verdict is reached finds it in one place.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from .stats import MIN_RUNS, paired_t_interval, t_quantile, verdict_below
from .validation import between, check, fail, integer, number, one_of, rule

__all__ = ["LEVEL", "N_BOOT", "SEED", "MIN_RUNS", "METHODS", "DEFAULT_METHOD", "VERDICTS", "SIDES", "DIVERGED",
           "Comparison", "SlopeFit",
           "paired", "interval", "verdict", "equivalence_verdict", "compare_paired", "compare_unpaired",
           "compare_ratio", "compare_equivalent", "compare_statistic", "combine", "bonferroni_level",
           "fit_slope", "slope_check", "compare_slopes", "sign_test_p", "format_interval", "fnum",
           "resolve_method", "method_label", "level_text", "handle_diverged", "fieller_interval", "null_pass_rate",
           "power_table", "per_run_slope_check", "runs_to_decide", "decide_text"]

LEVEL = 0.95
N_BOOT = 10_000
N_BOOT_T = 2_000  # resamples of the studentised part of compare_statistic (each needs n jackknife statistics)
SEED = 11  # fixed so that the same runs always give the same interval
METHODS = ("percentile", "bca", "sign", "wilcoxon", "t")
#: What ``method=None`` means for a paired difference (calibrated at small n).
DEFAULT_METHOD = "t"
VERDICTS = ("PASS", "FAIL", "INCONCLUSIVE")
SIDES = ("<", "<=", ">", ">=")
#: Policies for a non-finite (diverged) run: raise, count it as the worst outcome, or INCONCLUSIVE.
DIVERGED = ("error", "worst", "inconclusive")
_METHOD_NAMES = {"percentile": "percentile bootstrap", "bca": "BCa bootstrap", "sign": "exact sign-test",
                 "wilcoxon": "exact Wilcoxon (Hodges–Lehmann)", "t": "Student t", "ols": "OLS",
                 "bootstrap": "bootstrap over runs", "fieller": "Fieller (paired t)", "welch": "Welch t",
                 "jackknife": "jackknife-t ∪ bootstrap-t ∪ percentile bootstrap",
                 "jackknife-runs": "jackknife-t ∪ bootstrap-t ∪ percentile over runs", "ols-welch": "OLS, Welch t",
                 "t-runs": "Student t over per-run slopes"}


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


def level_text(level: float) -> str:
    """``0.95`` → ``"95%"``, ``0.975`` → ``"97.5%"``, a Bonferroni level ``0.99889`` → ``"99.89%"``,
    ``0.998`` → ``"99.8%"``: as many digits as it takes for a level below 1 never to print as 100%."""
    pct = 100 * float(level)
    for digits in range(4, 12):
        txt = f"{pct:.{digits}g}"
        if pct >= 100 or float(txt) < 100:
            return f"{txt}%"
    return f"{pct!r}%"


def format_interval(lo, hi, digits: int = 2) -> str:
    """``[lo, hi]`` rounded, or ``-`` when there is no interval."""
    if lo is None or hi is None or (math.isnan(float(lo)) and math.isnan(float(hi))):
        return "-"
    return f"[{fnum(lo, digits)}, {fnum(hi, digits)}]"


def resolve_method(method, allowed=METHODS, default: str = DEFAULT_METHOD) -> str:
    """``method`` checked against ``allowed``; ``None`` is the calibrated ``default``."""
    if method is None:
        return default
    _check_method(method, allowed)
    return method


def method_label(method) -> str:
    """Words for an interval method (``None``: the calibrated default), e.g. for a claim's check text."""
    if method is None:
        return "Student t (calibrated default)"
    return _METHOD_NAMES.get(method, str(method))


# ------------------------------------------------------------------------------ checks of inputs
def _check_level(level):
    check("level", level, rule(lambda v: not isinstance(v, bool) and isinstance(v, (int, float)) and 0 < v < 1,
                               "a number in (0, 1)"))


def _check_method(method, allowed=METHODS):
    check("method", method, one_of(*allowed))


def _check_side(side):
    check("side", side, one_of(*SIDES))


def _check_margin(side, margin):
    if margin is None:
        return 0.0
    check("margin", margin, number(ge=0))
    check("side", side, one_of("<=", ">="), note="a margin only applies to '<=' and '>=' claims")
    return float(margin)


def _vec(name, x, finite: bool = True) -> np.ndarray:
    a = np.asarray(x, dtype=float).ravel()
    check(name, a, rule(lambda v: v.size > 0, "at least one run"))
    if finite and not np.all(np.isfinite(a)):
        raise ValueError(f"parameter {name!r} must be finite, got {a!r}; for diverged runs pass "
                         f"diverged='worst' or 'inconclusive' (never drop them)")
    return a


def paired(a, b, reps_a=None, reps_b=None, *, finite: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Align two per-run samples on their run index (the common-random-numbers pairing).

    Args:
        a, b: per-run values, shapes ``(n_a,)`` and ``(n_b,)``.
        reps_a, reps_b: run indices of ``a`` and ``b`` (shapes as ``a``, ``b``); without them the
            runs are paired by position and ``a``, ``b`` must have the same length.
        finite: raise on a non-finite value (``False``: keep it, for :func:`handle_diverged`).

    Returns:
        ``(a_r, b_r, reps)`` on the runs present in both, sorted by run index.
    """
    a, b = _vec("a", a, finite), _vec("b", b, finite)
    if reps_a is None and reps_b is None:
        check("b", b, rule(lambda v: v.shape == a.shape, f"{a.size} runs, as many as 'a'"),
              note="or pass reps_a/reps_b to pair them by run index")
        return a, b, np.arange(a.size)
    ra, rb = np.asarray(reps_a).ravel(), np.asarray(reps_b).ravel()
    for name, reps, x in (("reps_a", ra, a), ("reps_b", rb, b)):
        check(name, reps, rule(lambda r: r.shape == x.shape, "one run index per value"),
              rule(lambda r: len(np.unique(r)) == r.size, "run indices without repeats"))
    common = np.intersect1d(ra, rb)
    if common.size == 0:
        raise ValueError("the two samples share no run index; they cannot be paired")
    pa = {r: i for i, r in enumerate(ra.tolist())}
    pb = {r: i for i, r in enumerate(rb.tolist())}
    ia = np.array([pa[r] for r in common.tolist()])
    ib = np.array([pb[r] for r in common.tolist()])
    return a[ia], b[ib], common


def handle_diverged(a, b=None, policy: str = "error", worse: str = "higher"):
    """Apply a diverged-run policy to per-run values (non-finite = diverged). Never drops a run.

    Args:
        a, b: per-run values of the two methods (``b`` may be None for one sample), paired by position.
        policy: ``"error"`` (raise if any value is not finite), ``"worst"`` (each non-finite value
            becomes the worst finite value observed in ``a`` and ``b`` together: the largest when
            ``worse="higher"``, e.g. regret or cost, the smallest when ``"lower"``),
            ``"inconclusive"`` (values kept; the caller makes its result INCONCLUSIVE).
        worse: which direction is worse for the metric.

    Returns:
        ``(a, b, k, note)``: the values (non-finite ones replaced under ``"worst"``), the number of
        runs with a diverged value, and a note ``"k of n runs diverged (A: i, B: j) ..."`` (``""``
        when none diverged).
    """
    check("policy", policy, one_of(*DIVERGED))
    check("worse", worse, one_of("higher", "lower"))
    a = np.asarray(a, dtype=float).ravel().copy()
    b = None if b is None else np.asarray(b, dtype=float).ravel().copy()
    bad_a = ~np.isfinite(a)
    bad_b = np.zeros(a.shape, bool) if b is None else ~np.isfinite(b)
    k = int(np.sum(bad_a | bad_b))
    if k == 0:
        return a, b, 0, ""
    n = a.size
    who = f"A: {int(bad_a.sum())}" + ("" if b is None else f", B: {int(bad_b.sum())}")
    if policy == "error":
        raise ValueError(f"{k} of {n} runs diverged ({who}): non-finite values; pass diverged='worst' (count them "
                         "as the worst outcome) or 'inconclusive'; never drop them")
    if policy == "inconclusive":
        return a, b, k, f"{k} of {n} runs diverged ({who}): INCONCLUSIVE"
    fin = np.concatenate([a[~bad_a]] + ([] if b is None else [b[~bad_b]]))
    if fin.size == 0:
        raise ValueError(f"all {n} runs diverged ({who}): no finite value to count them as")
    w = float(fin.max() if worse == "higher" else fin.min())
    a[bad_a] = w
    if b is not None:
        b[bad_b] = w
    return a, b, k, f"{k} of {n} runs diverged ({who}), counted as the worst observed value {fnum(w, 3)}"


def _prepare(a, b, reps_a, reps_b, diverged, worse):
    """Pair ``a`` and ``b`` under the diverged-run policy: ``(a, b, k_diverged, note)``."""
    check("diverged", diverged, one_of(*DIVERGED))
    x, y, _ = paired(a, b, reps_a, reps_b, finite=diverged == "error")
    x, y, k, note = handle_diverged(x, y, diverged, worse)
    return x, y, k, note


@lru_cache(maxsize=4096)
def _binom_sf(k: int, n: int) -> float:
    from scipy.stats import binom

    return float(binom.sf(k - 1, n, 0.5))  # P(Bin(n, 1/2) >= k)


def sign_test_p(d, side: str = "<", threshold: float = 0.0) -> float:
    """Exact one-sided sign-test p-value of ``median(d) side threshold`` (ties dropped; 1 if none left)."""
    _check_side(side)
    d = np.asarray(d, dtype=float) - threshold
    d = d[d != 0]
    if d.size == 0:
        return 1.0
    k = int(np.sum(d < 0)) if side in ("<", "<=") else int(np.sum(d > 0))
    return _binom_sf(k, int(d.size))


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


def interval(d, level: float = LEVEL, method: str | None = None, n_boot: int = N_BOOT,
             seed: int = SEED) -> tuple[float, float, float]:
    """``(effect, lo, hi)`` for one sample of paired differences ``d`` (shape ``(n,)``).

    ``method=None``: :data:`DEFAULT_METHOD` (Student t). The effect is the mean (``percentile``,
    ``bca``, ``t``), the median (``sign``) or the Hodges–Lehmann estimate (``wilcoxon``).
    ``n < MIN_RUNS`` gives ``(mean, nan, nan)``.
    """
    _check_level(level)
    method = resolve_method(method)
    d = _vec("d", d)
    if d.size < MIN_RUNS:
        return float(d.mean()), math.nan, math.nan
    if method == "sign":
        return _sign_interval(d, level)
    if method == "wilcoxon":
        return _wilcoxon_interval(d, level)
    if method == "t":  # the one Student-t paired computation (bandits.stats), shared with the run code
        return paired_t_interval(d, level)
    if np.all(d == d[0]):
        return float(d[0]), float(d[0]), float(d[0])
    return (float(d.mean()),) + _bootstrap([d], _mean_stat, level, method, n_boot, seed)


def verdict(lo: float, hi: float, side: str = "<", threshold: float = 0.0, margin: float | None = None) -> str:
    """Three-valued verdict of the claim ``effect side threshold`` from its interval ``[lo, hi]``.

    ``"<"``: PASS iff ``hi < t``, FAIL iff ``lo >= t``. ``"<="``: PASS iff ``hi < t + margin``,
    FAIL iff ``lo > t + margin`` (``margin`` None = 0: a tie, an interval touching ``t``, does not
    PASS). ``">"``, ``">="`` mirrored (``t − margin``). INCONCLUSIVE otherwise, and whenever there
    is no interval (NaN). ``margin`` (an equivalence margin fixed before the runs) only applies to
    ``"<="`` and ``">="``.
    """
    _check_side(side)
    m = _check_margin(side, margin)
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return "INCONCLUSIVE"
    t = threshold
    if side == "<":
        return verdict_below(lo, hi, t)
    if side == "<=":
        return "PASS" if hi < t + m else "FAIL" if lo > t + m else "INCONCLUSIVE"
    if side == ">":
        return "PASS" if lo > t else "FAIL" if hi <= t else "INCONCLUSIVE"
    return "PASS" if lo > t - m else "FAIL" if hi < t - m else "INCONCLUSIVE"


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
        note: free text (e.g. why there is no interval, or how many runs diverged).
        margin: the equivalence margin of a ``"<="``/``">="`` claim (None: ties do not pass).
        how: for a combination (:func:`combine`), ``"all"`` or ``"any"``; ``""`` otherwise.
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
    margin: float | None = None
    how: str = ""

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
        return f"{fnum(self.effect)} {format_interval(self.lo, self.hi)}{se} ({level_text(self.level)} {how}, n = {self.n})"

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
            if self.margin:
                claim += f" (margin {fnum(self.margin, 3)})"
        shown = not (math.isnan(self.lo) and math.isnan(self.hi))
        if self.note and shown and self.note != "unpaired":
            tail += f"; {self.note}"
        return f"{self.label} = {self.interval_text()} vs claim {claim} -> {self.verdict}{tail}"


def _favour(d, side, threshold):
    d = d[np.isfinite(d)]
    if side in ("<",):
        return int(np.sum(d < threshold))
    if side == "<=":
        return int(np.sum(d <= threshold))
    if side == ">":
        return int(np.sum(d > threshold))
    return int(np.sum(d >= threshold))


def _few_note(n):
    return f"n = {n} < {MIN_RUNS} runs"


def _join(*notes):
    return "; ".join(x for x in notes if x)


def compare_paired(a, b, side: str = "<", threshold: float = 0.0, *, scale: float = 1.0, label: str = "A − B",
                   level: float = LEVEL, method: str | None = None, n_boot: int = N_BOOT, seed: int = SEED,
                   reps_a=None, reps_b=None, margin: float | None = None, diverged: str = "error",
                   worse: str = "higher") -> Comparison:
    r"""The claim ``mean(a − scale·b) side threshold`` on per-run pairs (common random numbers).

    "A has lower regret than B": ``side="<"``, threshold 0. "A at most 1.2 × B":
    ``scale=1.2, side="<"`` (or ``"<="`` with an equivalence ``margin``: a tie does not pass
    without one).

    Args:
        a, b: per-run values of the two methods, shape ``(n,)`` each (or pair them by ``reps_a``,
            ``reps_b``: run indices, see :func:`paired`).
        side: one of ``"<", "<=", ">", ">="``.
        threshold: fixed before the runs.
        method: ``None`` = Student t (calibrated); see the module docstring for the others.
        margin: equivalence margin for ``"<="``/``">="`` (fixed before the runs), see :func:`verdict`.
        diverged, worse: the policy for non-finite (diverged) runs, see :func:`handle_diverged`.
        level, n_boot, seed: see the module docstring.
    """
    _check_side(side)
    m = _check_margin(side, margin)
    method = resolve_method(method)
    a, b, k, dnote = _prepare(a, b, reps_a, reps_b, diverged, worse)
    d = a - scale * b
    fin = d[np.isfinite(d)]
    if fin.size:
        eff, lo, hi = interval(fin, level, method, n_boot, seed)
    else:
        eff, lo, hi = math.nan, math.nan, math.nan
    v = verdict(lo, hi, side, threshold, margin)
    if k and diverged == "inconclusive":
        v = "INCONCLUSIVE"
    return Comparison(label, eff, lo, hi, level, method, int(d.size), v, side, float(threshold), "difference",
                      _favour(d, side, threshold), sign_test_p(fin, side, threshold),
                      note=_join(_few_note(fin.size) if fin.size < MIN_RUNS else "", dnote), margin=m or None)


def compare_unpaired(a, b, side: str = "<", threshold: float = 0.0, *, label: str = "A − B", level: float = LEVEL,
                     method: str | None = None, n_boot: int = N_BOOT, seed: int = SEED, margin: float | None = None,
                     diverged: str = "error", worse: str = "higher") -> Comparison:
    """The same claim as :func:`compare_paired` when the runs are *not* paired (independent
    samples): the interval of ``mean(a) − mean(b)``. ``method=None`` or ``"t"``: Welch's t
    interval (calibrated); ``"percentile"``/``"bca"``: bootstrap, each sample resampled on its own.
    Kept for runs without a shared stream, and to show what pairing gains."""
    from scipy.stats import bootstrap

    _check_side(side)
    _check_level(level)
    _check_margin(side, margin)
    method = resolve_method(method, ("percentile", "bca", "t"))
    check("diverged", diverged, one_of(*DIVERGED))
    a, b = _vec("a", a, diverged == "error"), _vec("b", b, diverged == "error")
    ka, kb = int(np.sum(~np.isfinite(a))), int(np.sum(~np.isfinite(b)))
    k, dnote = ka + kb, ""
    if k:
        both, _, _, _ = handle_diverged(np.concatenate([a, b]), None, diverged, worse)
        a, b = both[:a.size], both[a.size:]
        dnote = f"{ka} of {a.size} runs of A and {kb} of {b.size} runs of B diverged" + (
            ", counted as the worst observed value" if diverged == "worst" else ": INCONCLUSIVE")
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    eff = float(a.mean() - b.mean()) if a.size and b.size else math.nan
    if min(a.size, b.size) < MIN_RUNS:
        lo = hi = math.nan
    elif method == "t":  # Welch: SE² = s_a²/n_a + s_b²/n_b, Welch–Satterthwaite degrees of freedom
        if np.all(a == a[0]) and np.all(b == b[0]):
            lo = hi = eff
        else:
            from scipy.stats import t as student

            va, vb = float(a.var(ddof=1)) / a.size, float(b.var(ddof=1)) / b.size
            df = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
            h = float(student.ppf(0.5 + level / 2, df)) * math.sqrt(va + vb)
            lo, hi = eff - h, eff + h
    elif np.all(a == a[0]) and np.all(b == b[0]):
        lo = hi = eff
    else:
        res = bootstrap((a, b), lambda x, y, axis=-1: np.mean(x, axis=axis) - np.mean(y, axis=axis),
                        paired=False, vectorized=True, confidence_level=level, n_resamples=n_boot,
                        method={"percentile": "percentile", "bca": "BCa"}[method],
                        random_state=np.random.default_rng(seed))
        lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
    v = verdict(lo, hi, side, threshold, margin)
    if k and diverged == "inconclusive":
        v = "INCONCLUSIVE"
    return Comparison(label, eff, lo, hi, level, "welch" if method == "t" else method, int(min(a.size, b.size)), v,
                      side, float(threshold), "difference", note=_join("unpaired", dnote), margin=margin or None)


def fieller_interval(a, b, level: float = LEVEL) -> tuple[float, float, float]:
    r"""``(ratio, lo, hi)``: :math:`\bar a/\bar b` and Fieller's interval from paired runs.

    The interval is :math:`\{\rho : |\bar a - \rho \bar b| \le t_{n-1,1-\alpha/2}\, s(a - \rho b)/\sqrt n\}`,
    the ratios the paired t-test of :math:`a - \rho b` does not reject; ``(-inf, inf)`` when that set
    is unbounded (:math:`\bar b` not distinguishable from 0), ``(nan, nan)`` for ``n < MIN_RUNS``.
    """
    a, b = _vec("a", a), _vec("b", b)
    n = a.size
    ma, mb = float(a.mean()), float(b.mean())
    r = ma / mb if mb != 0 else math.nan
    if n < MIN_RUNS:
        return r, math.nan, math.nan
    c = np.cov(np.vstack([a, b]), ddof=1)
    saa, sbb, sab = float(c[0, 0]), float(c[1, 1]), float(c[0, 1])
    q = t_quantile(0.5 + level / 2, n - 1) ** 2 / n
    A = mb * mb - q * sbb
    B = ma * mb - q * sab
    Cc = ma * ma - q * saa
    if A <= 0:
        return r, -math.inf, math.inf
    s = math.sqrt(max(B * B - A * Cc, 0.0))
    return r, (B - s) / A, (B + s) / A


def compare_ratio(a, b, side: str = "<", bound: float = 1.0, *, label: str = "A / B", level: float = LEVEL,
                  method: str | None = None, statistic: str = "ratio_of_means", n_boot: int = N_BOOT,
                  seed: int = SEED, reps_a=None, reps_b=None, margin: float | None = None, diverged: str = "error",
                  worse: str = "higher") -> Comparison:
    r"""A ratio claim ``ρ side bound``, reported as a ratio.

    ``statistic="ratio_of_means"`` (default): :math:`\rho = \bar a / \bar b` (the ratio of the
    means the figures show). With ``method=None`` (calibrated default) the claim is decided by the
    paired t-test of :math:`a - \text{bound}\cdot b` and reported with Fieller's interval
    (:func:`fieller_interval`; the two agree). ``method="percentile"``/``"bca"``: bootstrapped as
    :math:`\log \bar a^* - \log \bar b^*` over paired resamples (uncalibrated at small n).
    ``"mean_log_ratio"``: :math:`\rho = \exp(\overline{\log(a_r/b_r)})` (the geometric mean of
    per-run ratios; also the form for ``method`` ``"sign"``, ``"wilcoxon"``, ``"t"``), its interval
    computed on the log scale and exponentiated.

    Args:
        a, b: per-run values, shape ``(n,)``, all > 0 (a ValueError names the offending one).
        bound: the ratio threshold (> 0), e.g. 1.2 for "at most 1.2 × B".
        margin: equivalence margin (in ratio units) for ``"<="``/``">="``, see :func:`verdict`.
        diverged, worse: see :func:`handle_diverged` (``"worst"``: before the ratio is formed).
    """
    _check_side(side)
    _check_level(level)
    m = _check_margin(side, margin)
    if method is not None:
        _check_method(method)
    check("statistic", statistic, one_of("ratio_of_means", "mean_log_ratio"))
    check("bound", bound, rule(lambda v: isinstance(v, (int, float)) and v > 0, "a ratio > 0"))
    a, b, k, dnote = _prepare(a, b, reps_a, reps_b, diverged, worse)
    ok = np.isfinite(a) & np.isfinite(b)
    for name, x in (("a", a), ("b", b)):
        if np.any(x[ok] <= 0):
            raise ValueError(f"parameter {name!r} must be > 0 for a ratio claim, got {x!r}; use compare_paired "
                             "with scale= for values that can be 0")
    n = a.size
    a, b = a[ok], b[ok]
    nf = a.size
    logs = np.log(a) - np.log(b)
    note = _join(_few_note(nf) if nf < MIN_RUNS else "", dnote)
    if method is None and statistic == "ratio_of_means":
        used = "fieller"
        eff, lo, hi = fieller_interval(a, b, level) if nf else (math.nan,) * 3
        if math.isinf(lo) or math.isinf(hi):
            v = "INCONCLUSIVE"
            note = _join(note, "Fieller set unbounded (mean of B not distinguishable from 0)")
        else:
            v = verdict(lo, hi, side, float(bound), margin)
    else:
        used = resolve_method(method)
        if statistic == "mean_log_ratio" or used in ("sign", "wilcoxon", "t"):
            eff, lo, hi = interval(logs, level, used, n_boot, seed)
        else:
            eff = math.log(a.mean()) - math.log(b.mean())
            if nf < MIN_RUNS:
                lo = hi = math.nan
            elif np.all(a == a[0]) and np.all(b == b[0]):
                lo = hi = eff
            else:
                lo, hi = _bootstrap([a, b], lambda x, y, axis=-1: np.log(np.mean(x, axis=axis)) - np.log(
                    np.mean(y, axis=axis)), level, used, n_boot, seed)
        eff, lo, hi = math.exp(eff), math.exp(lo), math.exp(hi)
        v = verdict(lo, hi, side, float(bound), margin)
    if k and diverged == "inconclusive":
        v = "INCONCLUSIVE"
    lb = math.log(bound)
    return Comparison(label, eff, lo, hi, level, used, int(n), v, side, float(bound), "ratio",
                      _favour(logs, side, lb), sign_test_p(logs, side, lb), note=note, margin=m or None)


def compare_equivalent(a, b=None, margin: float | None = None, *, ratio_bounds: tuple | None = None,
                       label: str = "A − B", level: float = LEVEL, method: str | None = None, n_boot: int = N_BOOT,
                       seed: int = SEED, reps_a=None, reps_b=None, diverged: str = "error",
                       worse: str = "higher") -> Comparison:
    r"""An "≈" claim: the effect lies within a stated margin (fixed before the runs).

    Difference form (``margin``): :math:`\bar d = \overline{a - b} \in [-m, m]` (Student t by
    default). Ratio form (``ratio_bounds=(lo, hi)``, e.g. (0.8, 1.25)): :math:`\bar a / \bar b \in
    [lo, hi]`, Fieller's interval by default (as :func:`compare_ratio`). PASS if the interval lies
    inside, FAIL if entirely outside, else INCONCLUSIVE (:func:`equivalence_verdict`). The
    interval is the two-sided ``level`` one, i.e. a TOST at (1 − level)/2 per side. An exact
    identity (all differences 0) is ``margin=0``.

    Args:
        a: per-run values (or the per-run differences themselves when ``b`` is None), shape ``(n,)``.
        b: per-run values of the reference, shape ``(n,)``.
    """
    check("ratio_bounds", ratio_bounds, rule(lambda r: (margin is None) != (r is None),
                                             "given exactly when 'margin' is not (ratio form vs difference form)"))
    if ratio_bounds is not None:
        lo_b, hi_b = ratio_bounds
        check("lo_b", lo_b, between(0, hi_b))
        check("b", b, rule(lambda v: v is not None, "given"), note="the ratio form")
        r = compare_ratio(a, b, "<", 1.0, label=label, level=level, method=method, n_boot=n_boot, seed=seed,
                          reps_a=reps_a, reps_b=reps_b, diverged=diverged, worse=worse)
        v = equivalence_verdict(r.lo, r.hi, lo_b, hi_b)
        if "diverged" in r.note and diverged == "inconclusive":
            v = "INCONCLUSIVE"
        return replace(r, verdict=v, side="in", threshold=math.nan, kind="equivalence", bounds=(lo_b, hi_b),
                       n_favour=None, p_sign=None)
    check("margin", margin, rule(lambda v: isinstance(v, (int, float)) and v >= 0, "a number >= 0"))
    method = resolve_method(method)
    if b is None:
        check("diverged", diverged, one_of(*DIVERGED))
        d, _, k, dnote = handle_diverged(_vec("a", a, diverged == "error"), None, diverged, worse)
    else:
        x, y, k, dnote = _prepare(a, b, reps_a, reps_b, diverged, worse)
        d = x - y
    fin = d[np.isfinite(d)]
    eff, lo, hi = interval(fin, level, method, n_boot, seed) if fin.size else (math.nan,) * 3
    v = equivalence_verdict(lo, hi, -margin, margin)
    if k and diverged == "inconclusive":
        v = "INCONCLUSIVE"
    return Comparison(label, eff, lo, hi, level, method, int(d.size), v, "in", math.nan, "equivalence",
                      bounds=(-float(margin), float(margin)),
                      note=_join(_few_note(fin.size) if fin.size < MIN_RUNS else "", dnote))


def _boot_t(eff, se, boots, idx, stat_of_idx, n_boot, alpha):
    """Bootstrap-t bounds: ``T* = (θ* − θ̂)/SE*`` with the jackknife SE* inside each of the first
    ``min(n_boot, N_BOOT_T)`` resamples ``idx`` (rows of run indices); a resample whose SE* is 0
    (one run repeated) counts as T* = ±inf (or 0 when θ* = θ̂), so at n = 3 the interval is infinite."""
    nb = min(n_boot, N_BOOT_T)
    sub = idx[:nb]
    n = sub.shape[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        js = np.stack([np.asarray(stat_of_idx(np.delete(sub, i, axis=1)), dtype=float).ravel() for i in range(n)])
        se_b = np.sqrt((n - 1) / n * np.sum((js - js.mean(axis=0)) ** 2, axis=0))
        dev = boots[:nb] - eff
        tb = np.where(dev == 0, 0.0, dev / se_b)
    tb = np.sort(np.where(np.isnan(tb), np.inf, tb))
    t_lo = float(tb[int(math.floor(alpha / 2 * nb))])
    t_hi = float(tb[int(math.ceil((1 - alpha / 2) * nb)) - 1])
    return eff - t_hi * se, eff - t_lo * se


def compare_statistic(samples: dict, statistic, side: str = "<", threshold: float = 0.0, *, label: str = "statistic",
                      level: float = LEVEL, method: str | None = None, n_boot: int = N_BOOT,
                      seed: int = SEED, margin: float | None = None) -> Comparison:
    """Any claim ``statistic(samples) side threshold`` with runs resampled jointly.

    ``method=None`` or ``"jackknife"`` (calibrated default): the hull of the jackknife-t interval
    :math:`\\hat\\theta \\pm t_{n-1}\\,\\mathrm{SE_{jack}}` (Student's interval when the statistic is a
    mean) and the percentile bootstrap interval (over finite resampled values); ``"percentile"``,
    ``"bca"``: bootstrap only (uncalibrated at small n).

    Args:
        samples: name → per-run array, all of shape ``(n, ...)`` with row r = run r (paired by run
            across every entry: one bootstrap resample picks the same runs in all of them).
        statistic: ``f(dict of arrays with a leading resample axis (B, n, ...)) -> (B,)``; it is
            also called on the original data and on the leave-one-out samples with ``B = 1``.
    """
    _check_side(side)
    _check_level(level)
    _check_margin(side, margin)
    method = resolve_method(method, ("percentile", "bca", "jackknife"), "jackknife")
    names = list(samples)
    arrs = [np.asarray(samples[k], dtype=float) for k in names]
    n = arrs[0].shape[0]
    check("samples", samples, rule(lambda _: n > 0 and all(x.shape[0] == n for x in arrs),
                                   "the same (non-zero) number of runs for every entry"))
    eff = float(np.asarray(statistic({k: x[None] for k, x in zip(names, arrs)})).ravel()[0])

    def jackknife():
        return np.array([float(np.asarray(statistic({k: np.delete(x, i, axis=0)[None]
                                                     for k, x in zip(names, arrs)})).ravel()[0]) for i in range(n)])

    if n < MIN_RUNS:
        lo = hi = math.nan
    else:
        rng = np.random.default_rng(seed)
        idx = rng.integers(0, n, size=(n_boot, n))
        with np.errstate(divide="ignore", invalid="ignore"):
            boots = np.asarray(statistic({k: x[idx] for k, x in zip(names, arrs)}), dtype=float).ravel()
        alpha = 1 - level
        if method == "jackknife":
            with np.errstate(divide="ignore", invalid="ignore"):
                jack = jackknife()
            se = math.sqrt((n - 1) / n * float(np.sum((jack - jack.mean()) ** 2)))
            h = t_quantile(1 - alpha / 2, n - 1) * se
            fb = boots[np.isfinite(boots)]
            if not (math.isfinite(h) and math.isfinite(eff)) or fb.size < 0.9 * boots.size:
                lo = hi = math.nan
            else:
                plo, phi = (float(v) for v in np.quantile(fb, [alpha / 2, 1 - alpha / 2]))
                lo, hi = min(eff - h, plo), max(eff + h, phi)
                if se > 0:  # studentised (bootstrap-t) interval, the jackknife SE within each resample
                    b_lo, b_hi = _boot_t(eff, se, boots, idx, lambda ii: statistic(
                        {k: x[ii] for k, x in zip(names, arrs)}), n_boot, alpha)
                    lo, hi = min(lo, b_lo), max(hi, b_hi)
        else:
            if method == "bca":
                from scipy.stats import norm

                z0 = norm.ppf(np.clip(np.mean(boots < eff), 1e-12, 1 - 1e-12))
                jack = jackknife()
                dj = jack.mean() - jack
                den = 6.0 * np.sum(dj**2) ** 1.5
                acc = float(np.sum(dj**3) / den) if den > 0 else 0.0
                z = norm.ppf([alpha / 2, 1 - alpha / 2])
                q = norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z)))
            else:
                q = np.array([alpha / 2, 1 - alpha / 2])
            lo, hi = (float(v) for v in np.quantile(boots, q))
    return Comparison(label, eff, lo, hi, level, method, int(n), verdict(lo, hi, side, threshold, margin), side,
                      float(threshold), "statistic", note=_few_note(n) if n < MIN_RUNS else "", margin=margin or None)


def bonferroni_level(level: float, k: int) -> float:
    """The per-part level for an existential claim over ``k`` alternatives: ``1 − (1 − level)/k``."""
    _check_level(level)
    check("k", k, integer(ge=1))
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
    check("parts", parts, rule(bool, "at least one comparison"))
    check("how", how, one_of("all", "any"))
    vs = [p.verdict for p in parts]
    if how == "all":
        v = "PASS" if all(x == "PASS" for x in vs) else "FAIL" if "FAIL" in vs else "INCONCLUSIVE"
        if "FAIL" in vs:
            dec = parts[vs.index("FAIL")]
        elif "INCONCLUSIVE" in vs:
            dec = parts[vs.index("INCONCLUSIVE")]
        else:
            dec = min(parts, key=_inside)
    else:
        v = "PASS" if "PASS" in vs else "FAIL" if all(x == "FAIL" for x in vs) else "INCONCLUSIVE"
        dec = parts[vs.index("PASS")] if "PASS" in vs else (
            parts[vs.index("INCONCLUSIVE")] if "INCONCLUSIVE" in vs else parts[0])
    return replace(dec, verdict=v, parts=tuple(parts), label=label or dec.label, how=how)


def _inside(c: Comparison) -> float:
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
    if c.side == "<=" and c.margin:
        t = t + c.margin
    if c.side == ">=" and c.margin:
        t = t - c.margin
    if c.side in ("<", "<="):
        return f(t) - f(hi)
    return f(lo) - f(t)


# ------------------------------------------------------------------------------ slopes
@dataclass(frozen=True)
class SlopeFit:
    """A fitted slope with its standard error and interval (``method``: ``"ols"`` or
    ``"jackknife-runs"``)."""

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
    ``x``); the slope is fitted to the means over runs at each x (as the figures do). Its SE is the
    jackknife over runs (leave one run out), and the interval is the hull of the jackknife-t
    interval (:math:`t` on runs − 1 degrees of freedom), the bootstrap-t interval and the
    percentile interval of the slopes of ``n_boot`` resamples of runs (one run index → all its x
    values), as in :func:`compare_statistic`. Needs ≥ 3 runs (and is infinite at 3).

    Non-positive points are dropped on a log–log fit (as :func:`~bandits.experiments.common.loglog_slope`).
    """
    _check_level(level)
    check("se", se, one_of("ols", "bootstrap"))
    x, y = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    check("y", y, rule(lambda v: v.shape == x.shape, f"{x.size} values, as many as 'x'"))
    ok = np.isfinite(x) & np.isfinite(y)
    if loglog:
        ok &= (x > 0) & (y > 0)
    if se == "ols":
        u, v = (np.log(x[ok]), np.log(y[ok])) if loglog else (x[ok], y[ok])
        s, e = _ols(u, v)
        m = int(u.size)
        if math.isfinite(e):
            h = t_quantile(0.5 + level / 2, m - 2) * e
            lo, hi = s - h, s + h
        else:
            lo = hi = math.nan
        return SlopeFit(s, e, lo, hi, level, m, "ols")
    check("groups", groups, rule(lambda v: v is not None, "the run index of every point"), note="se='bootstrap'")
    g = check("groups", np.asarray(groups).ravel(), rule(lambda v: v.shape == x.shape, "one run index per point"))
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
    R = runs.size
    if R < MIN_RUNS:
        return SlopeFit(s, math.nan, math.nan, math.nan, level, int(R), "jackknife-runs")
    with np.errstate(divide="ignore", invalid="ignore"):
        jack = slope_of(np.stack([np.delete(Y, i, axis=0) for i in range(R)]))
        rng = np.random.default_rng(seed)
        idx = rng.integers(0, R, size=(n_boot, R))
        b_all = slope_of(Y[idx])
    b = b_all[np.isfinite(b_all)]
    e = math.sqrt((R - 1) / R * float(np.sum((jack - jack.mean()) ** 2)))
    if not math.isfinite(e) or b.size < 0.9 * n_boot:
        return SlopeFit(s, e, math.nan, math.nan, level, int(R), "jackknife-runs")
    h = t_quantile(0.5 + level / 2, R - 1) * e
    plo, phi = (float(q) for q in np.quantile(b, [(1 - level) / 2, (1 + level) / 2]))
    lo, hi = min(s - h, plo), max(s + h, phi)
    if e > 0:
        t_lo, t_hi = _boot_t(s, e, b_all, idx, lambda ii: slope_of(Y[ii]), n_boot, 1 - level)
        lo, hi = min(lo, t_lo), max(hi, t_hi)
    return SlopeFit(s, e, lo, hi, level, int(R), "jackknife-runs")


def slope_check(x, y, side: str = "<=", bound: float = 0.0, *, upper: float | None = None, label: str = "slope",
                rule: str = "interval", loglog: bool = True, level: float = LEVEL, se: str = "ols", groups=None,
                n_boot: int = N_BOOT, seed: int = SEED, margin: float | None = None) -> Comparison:
    """A slope claim (``slope side bound``, or ``bound <= slope <= upper`` when ``upper`` is given)
    with the fitted slope, its SE and interval (:func:`fit_slope`).

    ``rule="interval"`` (default): three-valued from the interval like every comparison (a tie at
    the bound does not pass a ``"<="`` claim without a ``margin``). ``rule="point"``: PASS/FAIL from
    the fitted slope alone, ignoring its uncertainty; an explicit opt-in only, not calibrated.
    """
    check("rule", rule, one_of("point", "interval"))
    fit = fit_slope(x, y, loglog=loglog, level=level, se=se, groups=groups, n_boot=n_boot, seed=seed)
    few = "fewer than 3 points" if not math.isfinite(fit.se) else ""
    if upper is not None:
        if rule == "point":
            v = "PASS" if math.isfinite(fit.slope) and bound <= fit.slope <= upper else "FAIL"
        else:
            v = equivalence_verdict(fit.lo, fit.hi, bound, upper)
        return Comparison(label, fit.slope, fit.lo, fit.hi, level, fit.method, fit.n, v, "in", math.nan, "slope",
                          se=fit.se, bounds=(float(bound), float(upper)),
                          note=_join(few, "point rule" if rule == "point" else ""))
    _check_side(side)
    m = _check_margin(side, margin)
    if rule == "point":
        v = verdict(fit.slope, fit.slope, side, bound, margin) if math.isfinite(fit.slope) else "FAIL"
        v = "PASS" if v == "PASS" else "FAIL"
    else:
        v = verdict(fit.lo, fit.hi, side, bound, margin)
    return Comparison(label, fit.slope, fit.lo, fit.hi, level, fit.method, fit.n, v, side, float(bound), "slope",
                      se=fit.se, note=_join(few, "point rule" if rule == "point" else ""), margin=m or None)


def compare_slopes(xa, ya, xb, yb, side: str = "<", *, label: str = "slope A − slope B", rule: str = "interval",
                   loglog: bool = True, level: float = LEVEL, margin: float | None = None) -> Comparison:
    """Slope of A minus slope of B (independent OLS fits), SE = √(SE_A² + SE_B²), Student interval on
    the Welch–Satterthwaite degrees of freedom (from m_A − 2 and m_B − 2). ``rule`` as in
    :func:`slope_check` (``"interval"`` by default)."""
    check("rule", rule, one_of("point", "interval"))
    _check_side(side)
    m = _check_margin(side, margin)
    fa = fit_slope(xa, ya, loglog=loglog, level=level)
    fb = fit_slope(xb, yb, loglog=loglog, level=level)
    eff = fa.slope - fb.slope
    e = math.sqrt(fa.se**2 + fb.se**2) if math.isfinite(fa.se) and math.isfinite(fb.se) else math.nan
    if math.isfinite(e) and e > 0:
        va, vb = fa.se**2, fb.se**2
        df = (va + vb) ** 2 / (va**2 / (fa.n - 2) + vb**2 / (fb.n - 2))
        from scipy.stats import t as student

        h = float(student.ppf(0.5 + level / 2, df)) * e
        lo, hi = eff - h, eff + h
    elif math.isfinite(e):
        lo = hi = eff
    else:
        lo = hi = math.nan
    if rule == "point":
        v = "PASS" if math.isfinite(eff) and verdict(eff, eff, side, 0.0, margin) == "PASS" else "FAIL"
    else:
        v = verdict(lo, hi, side, 0.0, margin)
    return Comparison(label, eff, lo, hi, level, "ols-welch", min(fa.n, fb.n), v, side, 0.0, "slope", se=e,
                      note="point rule" if rule == "point" else "", margin=m or None)


def per_run_slope_check(x, y, groups, side: str = "<", bound: float = 0.0, *, label: str = "slope",
                        loglog: bool = True, level: float = LEVEL, margin: float | None = None) -> Comparison:
    """A slope claim with the run as the unit: one least-squares slope of ``log y`` on ``log x`` per run
    (``groups``: the run index of each point, shape as ``x``), and the claim ``mean slope side bound``
    decided by Student's t interval over the runs' slopes (:func:`interval`, as a paired mean). The
    honest unit when the runs share their seeds across the x values (common random numbers): the
    points of one run are not independent of each other, the runs are. Runs with fewer than two
    usable x values are left out (said in the note).
    """
    _check_side(side)
    m = _check_margin(side, margin)
    x, y = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    g = np.asarray(groups).ravel()
    check("groups", g, rule(lambda v: v.shape == x.shape == y.shape, "one run index per point"))
    slopes, left = [], 0
    for r in np.unique(g):
        k = g == r
        u, v = x[k], y[k]
        ok = np.isfinite(u) & np.isfinite(v)
        if loglog:
            ok &= (u > 0) & (v > 0)
            u, v = np.log(u[ok]), np.log(v[ok])
        else:
            u, v = u[ok], v[ok]
        s, _ = _ols(u, v)
        if math.isfinite(s):
            slopes.append(s)
        else:
            left += 1
    sl = np.array(slopes)
    if sl.size:
        eff, lo, hi = interval(sl, level, "t")
    else:
        eff, lo, hi = math.nan, math.nan, math.nan
    note = _join(_few_note(sl.size) if sl.size < MIN_RUNS else "",
                 f"{left} run(s) without two usable points left out" if left else "")
    return Comparison(label, eff, lo, hi, level, "t-runs", int(sl.size), verdict(lo, hi, side, bound, margin), side,
                      float(bound), "slope", _favour(sl, side, bound) if sl.size else None,
                      sign_test_p(sl, side, bound) if sl.size else None,
                      se=float(sl.std(ddof=1) / math.sqrt(sl.size)) if sl.size > 1 else None, note=note,
                      margin=m or None)


#: Methods whose interval is Student's t over runs (so the runs needed can be read off its width).
_T_LIKE = ("t", "fieller", "t-runs", "welch")


def _runs_needed(delta: float, sd: float, n_max: int, level: float, power: float, two_sided_bounds: bool = False):
    """Smallest run count ``N`` whose one-sided Student t-test at ``(1 − level)/2`` reaches ``power``
    when the true effect is ``delta`` from the threshold in units where one run's spread is ``sd``
    (the noncentral t); ``None`` beyond ``n_max``."""
    from scipy.stats import nct

    if not (math.isfinite(delta) and math.isfinite(sd)) or sd <= 0:
        return None
    for n in range(MIN_RUNS, n_max + 1):
        tc = t_quantile(0.5 + level / 2, n - 1)
        if float(nct.sf(tc, n - 1, abs(delta) * math.sqrt(n) / sd)) >= power:
            return n
    return None


def _part_need(c: Comparison, power: float, n_max: int):
    """``(leans, N)`` for one undecided comparison: the side its effect lies on (``"PASS"``/``"FAIL"``,
    or ``"tie"``) and the runs that would decide it with ``power`` if its observed effect and spread
    were the truth (``None``: cannot be read off, or more than ``n_max``)."""
    if c.verdict != "INCONCLUSIVE" or not (math.isfinite(c.lo) and math.isfinite(c.hi)) or c.method not in _T_LIKE:
        return None, None
    n = max(int(c.n), MIN_RUNS)
    half = (c.hi - c.lo) / 2
    sd = half * math.sqrt(n) / t_quantile(0.5 + c.level / 2, n - 1)
    if c.bounds is not None:  # equivalence: the nearer bound decides
        b0, b1 = c.bounds
        inside = b0 <= c.effect <= b1
        delta = min(c.effect - b0, b1 - c.effect) if inside else min(abs(c.effect - b0), abs(c.effect - b1))
        leans = "PASS" if inside else "FAIL"
    else:
        t = c.threshold + ((c.margin or 0.0) if c.side == "<=" else -(c.margin or 0.0) if c.side == ">=" else 0.0)
        delta = c.effect - t
        if delta == 0:
            return "tie", None
        below = delta < 0
        leans = "PASS" if below == (c.side in ("<", "<=")) else "FAIL"
    return leans, _runs_needed(delta, sd, n_max, c.level, power)


def _decider(c: Comparison, power: float, n_max: int):
    """``(leans, N, part)``: :func:`runs_to_decide` with the undecided part whose runs decide the claim."""
    parts = [p for p in (c.parts or (c,)) if p.verdict == "INCONCLUSIVE"]
    if not parts:
        return None, None, None
    needs = [(*_part_need(p, power, n_max), p) for p in parts]

    def pick(rows, fewest):
        known = [r for r in rows if r[1] is not None]
        if len(known) < len(rows) and not fewest:
            return (rows[0][0], None, next(r for r in rows if r[1] is None)[2])
        if not known:
            return (rows[0][0], None, rows[0][2])
        best = (min if fewest else max)(known, key=lambda r: r[1])
        return best

    if c.how == "any":  # some part must PASS: the fewest runs among those leaning PASS, else all must FAIL
        ok = [r for r in needs if r[0] == "PASS" and r[1] is not None]
        if ok:
            return pick(ok, True)
        if all(r[0] == "FAIL" for r in needs):
            return pick(needs, False)
        return None, None, parts[0]
    fails = [r for r in needs if r[0] == "FAIL"]
    if fails:  # one failing part decides alone
        return pick(fails, True)
    if any(r[0] is None for r in needs):
        return None, None, next(r[2] for r in needs if r[0] is None)
    ties = [r for r in needs if r[0] == "tie"]
    if ties:
        return "tie", None, ties[0][2]
    return pick(needs, False)


def runs_to_decide(c: Comparison, power: float = 0.8, n_max: int = 500):
    """``(leans, N)``: how an INCONCLUSIVE comparison leans (``"PASS"``, ``"FAIL"``, ``"tie"``, or None
    when its interval gives no spread to read) and about how many runs would decide it with ``power``,
    taking its observed effect and spread as the truth (a one-sided t-test at the claim's level,
    noncentral t). For a combination (:func:`combine`, ``how="all"``): a part leaning FAIL decides
    alone (the fewest runs among those), else every undecided part must PASS (the most runs among
    them); ``how="any"`` mirrored. ``N`` is None when it cannot be read off (no interval, a
    statistic's hull, an OLS fit over points) or exceeds ``n_max``. A planning figure, not a verdict:
    the observed effect is itself uncertain at the runs used.
    """
    leans, n, _ = _decider(c, power, n_max)
    return leans, n


def decide_text(c: Comparison, power: float = 0.8, n_max: int = 500) -> str:
    """Plain words for an INCONCLUSIVE comparison: the runs used, the deciding part's interval and its
    width, and about how many runs would decide the claim if the effect is as observed
    (:func:`runs_to_decide`); ``""`` for a decided one."""
    if c.verdict != "INCONCLUSIVE":
        return ""
    undecided = [p for p in (c.parts or (c,)) if p.verdict == "INCONCLUSIVE"]
    leans, n, p = _decider(c, power, n_max)
    p = p or undecided[0]
    lvl = level_text(p.level)
    more = f"; {len(undecided)} of {len(c.parts)} parts undecided" if c.parts and len(undecided) > 1 else ""
    if not (math.isfinite(p.lo) and math.isfinite(p.hi)):
        if math.isnan(p.lo) and math.isnan(p.hi):
            if p.method in ("ols", "ols-welch"):
                return (f"no interval for {p.label}: {p.n} fitted points (an OLS interval needs 3){more}; more points "
                        "on its axis would decide it")
            return (f"no interval at n = {p.n} ({p.note or 'too few runs'}){more}; more runs, or a statistic with an "
                    "interval at this many runs, would decide it")
        return (f"the {lvl} interval of {p.label} is unbounded at n = {p.n}{more}; more runs (or a unit of "
                "analysis with a bounded interval at this many runs) would decide it")
    where = f"{p.label}: {fnum(p.effect)} {format_interval(p.lo, p.hi)} ({lvl}, n = {p.n}, width {fnum(p.hi - p.lo)})"
    if leans == "tie":
        return (f"{where} touches its threshold with no spread{more}: a tie that no number of runs decides; only a "
                "margin fixed in the claim's words could")
    if leans is None:
        if p.method in ("ols", "ols-welch"):
            return (f"{where} straddles its threshold{more}; n counts the fitted points, not runs: more points on its "
                    "axis, or one slope per run, would narrow it")
        if p.method in ("jackknife", "jackknife-runs", "percentile", "bca"):
            return (f"{where} straddles its threshold{more}; a hull (or bootstrap) interval over {p.n} runs: more runs "
                    "would narrow it, the runs needed cannot be read off it")
        return f"{where} straddles its threshold{more}; the runs needed cannot be read off this interval"
    goal = {"PASS": "a PASS", "FAIL": "a FAIL"}[leans]
    if n is None:
        return (f"{where} straddles its threshold{more}; if the effect is as observed, more than {n_max} runs would "
                f"be needed to decide it ({goal}, {power:.0%} power)")
    return (f"{where} straddles its threshold{more}; if the effect and spread are as observed, about {n} runs "
            f"would decide it ({goal}, {power:.0%} power)")


# ------------------------------------------------------------------------------ calibration
NULL_DISTS = ("normal", "t2", "lognormal")
_NULL_KINDS = ("paired", "unpaired", "ratio", "statistic", "slope", "slope-runs", "equivalence", "slope-per-run")


def _draw(rng, dist, size):
    if dist == "normal":
        return rng.normal(0.0, 1.0, size)
    if dist == "t2":
        return rng.standard_t(2, size)
    if dist == "lognormal":
        return rng.lognormal(0.0, 1.0, size)
    fail("dist", dist, one_of(*NULL_DISTS))


def null_pass_rate(kind: str, n: int, dist: str = "normal", n_sims: int = 2000, seed: int = SEED,
                   method: str | None = None, level: float = LEVEL, effect: float = 0.0, n_boot: int = 500) -> dict:
    """Share of PASS and FAIL verdicts of one-sided claims simulated through this module's public
    functions, with no effect (``effect = 0``) or with a shift (power).

    ``kind``:

    * ``"paired"``: a, b i.i.d. (``dist``); ``compare_paired(a − effect, b, "<")`` (under the null,
      a PASS is false; so is a PASS of ``">"`` for the same runs, counted as ``fail``).
    * ``"ratio"``: a, b i.i.d. positive (``dist`` exponentiated when not lognormal: e^X, X clipped to
      ±30), a scaled
      by e^(−effect·0.5); ``compare_ratio(a, b, "<", 1)``.
    * ``"unpaired"``: ``compare_unpaired(a − effect, b, "<")``.
    * ``"statistic"``: ``compare_statistic`` of the log ratio of two column means of positive runs
      (a nonlinear statistic), claim ``< 0``.
    * ``"slope"``: ``n`` points ``x = 1, 2, 4, ...``, ``log y = 0.5 log x + 0.3 ε`` (ε from
      ``dist``, centred), ``slope_check(x, y, "<", 0.5 + effect·0.1)``.
    * ``"slope-runs"``: ``n`` runs at 5 values of x, ``y_r(x) = x^0.5 e^{0.3 ε}``,
      ``slope_check(..., se="bootstrap")`` against 0.5 + effect·0.1.
    * ``"slope-per-run"``: as ``"slope-runs"``, decided by :func:`per_run_slope_check` (one slope per
      run, Student t over the runs).
    * ``"equivalence"``: the effect sits on the margin (d ~ 1 + dist, margin 1):
      ``compare_equivalent(d, margin=1)`` PASSing is false.

    Returns:
        ``{"kind", "n", "dist", "method", "n_sims", "pass", "fail", "se"}``: ``pass`` the share of
        PASS for the claim (false under the null), ``fail`` the share of FAIL (for the two-sided
        kinds: the share of PASS of the opposite claim), ``se`` the Monte-Carlo standard error of
        ``pass`` at its nominal rate (1 − level)/2.
    """
    check("kind", kind, one_of(*_NULL_KINDS))
    check("dist", dist, one_of(*NULL_DISTS))
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_NULL_KINDS.index(kind), int(n),
                                                                        NULL_DISTS.index(dist))))
    npass = nfail = 0
    for _ in range(n_sims):
        if kind == "paired":
            a, b = _draw(rng, dist, n) - effect, _draw(rng, dist, n)
            r = compare_paired(a, b, "<", method=method, level=level, n_boot=n_boot)
            r2 = compare_paired(a, b, ">", method=method, level=level, n_boot=n_boot)
            npass += r.verdict == "PASS"
            nfail += r2.verdict == "PASS"
            continue
        if kind == "unpaired":
            a, b = _draw(rng, dist, n) - effect, _draw(rng, dist, n)
            r = compare_unpaired(a, b, "<", method=method, level=level, n_boot=n_boot)
        elif kind == "ratio":
            x = _draw(rng, dist, (2, n))
            a, b = (x if dist == "lognormal" else np.exp(np.clip(x, -30.0, 30.0)))  # t2: no under/overflow
            a = a * math.exp(-0.5 * effect)
            r = compare_ratio(a, b, "<", 1.0, method=method, level=level, n_boot=n_boot)
        elif kind == "statistic":
            x = _draw(rng, dist, (n, 2))
            x = x if dist == "lognormal" else np.exp(np.clip(x, -30.0, 30.0))
            x[:, 0] *= math.exp(-0.5 * effect)
            r = compare_statistic({"x": x}, lambda s: np.log(s["x"][..., 0].mean(-1)) - np.log(s["x"][..., 1].mean(-1)),
                                  "<", 0.0, method=method, level=level, n_boot=n_boot)
        elif kind == "slope":
            xs = 2.0 ** np.arange(n)
            e = _draw(rng, dist, n)
            e = e - math.exp(0.5) if dist == "lognormal" else e  # centred, skewed
            y = xs**0.5 * np.exp(0.3 * e)
            r = slope_check(xs, y, "<", 0.5 + 0.1 * effect, level=level)
        elif kind == "slope-runs":
            xs = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
            e = _draw(rng, dist, (n, xs.size))
            e = e - math.exp(0.5) if dist == "lognormal" else e
            Y = xs**0.5 * np.exp(0.3 * e)
            r = slope_check(np.tile(xs, n), Y.ravel(), "<", 0.5 + 0.1 * effect, se="bootstrap",
                            groups=np.repeat(np.arange(n), xs.size), level=level, n_boot=n_boot)
        elif kind == "slope-per-run":
            xs = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
            e = _draw(rng, dist, (n, xs.size))
            e = e - math.exp(0.5) if dist == "lognormal" else e
            Y = xs**0.5 * np.exp(0.3 * e)
            r = per_run_slope_check(np.tile(xs, n), Y.ravel(), np.repeat(np.arange(n), xs.size), "<",
                                    0.5 + 0.1 * effect, level=level)
        elif kind == "equivalence":
            e = _draw(rng, dist, n)
            if dist == "lognormal":  # the difference of two lognormals: symmetric, heavy-tailed
                e = e - _draw(rng, dist, n)
            d = 1.0 - effect + e
            r = compare_equivalent(d, margin=1.0, method=method, level=level, n_boot=n_boot)
        else:
            fail("kind", kind, one_of(*_NULL_KINDS))
        npass += r.verdict == "PASS"
        nfail += r.verdict == "FAIL"
    alpha = (1 - level) / 2
    return {"kind": kind, "n": int(n), "dist": dist, "method": method_label(method), "n_sims": int(n_sims),
            "effect": float(effect), "pass": npass / n_sims, "fail": nfail / n_sims,
            "se": math.sqrt(alpha * (1 - alpha) / n_sims)}


def power_table(ns=(3, 4, 5, 6, 10, 20), effects=(0.0, 1.0, 2.0), method: str | None = None, n_sims: int = 4000,
                seed: int = SEED, level: float = LEVEL, dist: str = "normal") -> list[dict]:
    """The PASS rate of a paired ``"<"`` claim (:func:`compare_paired`) at each run count ``n`` and
    ``effect``: the paired differences are d = ε − effect with ε from ``dist`` (unit s.d. for
    "normal", so ``effect`` is the true mean difference in standard deviations of d), simulated
    through the module, beside the exact power of the one-sided Student t-test at the same level
    for normal d (``exact_t``).

    Returns:
        rows ``{"n", "effect", "pass", "exact_t"}`` (``pass`` at ``effect = 0`` is the false-PASS rate).
    """
    from scipy.stats import nct

    rows = []
    for n in ns:
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(7, int(n))))
        for eff in effects:
            k = 0
            for _ in range(n_sims):
                d = _draw(rng, dist, n) - eff
                k += compare_paired(d, np.zeros(n), "<", method=method, level=level, n_boot=500).verdict == "PASS"
            tc = t_quantile(0.5 + level / 2, n - 1)
            exact = float(nct.sf(tc, n - 1, eff * math.sqrt(n))) if eff else (1 - level) / 2
            rows.append({"n": int(n), "effect": float(eff), "pass": k / n_sims, "exact_t": exact})
    return rows
