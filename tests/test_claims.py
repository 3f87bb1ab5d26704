"""Claims with their uncertainty (bandits.claims), the three-valued Claim, its table, the README report
and the honest bands of bandits.plotting."""
import json
import re
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandits import claims as C
from bandits.experiments.claims import Claim, claims_table, summary_line, write_claims

NB = 2000  # bootstrap resamples in tests (the default 10 000 is for the notebooks)


def _runs(effect, n=10, noise=1.0, spread=30.0, seed=0):
    """Paired runs: a shared per-run level (common random numbers) plus small independent noise."""
    rng = np.random.default_rng(seed)
    base = rng.normal(100.0, spread, n)
    return base + effect + rng.normal(0, noise, n), base + rng.normal(0, noise, n)


# ------------------------------------------------------------------------------ verdicts
def test_clear_effect_passes_its_reverse_fails_noise_is_inconclusive():
    a, b = _runs(-5.0)
    assert C.compare_paired(a, b, n_boot=NB).verdict == "PASS"
    assert C.compare_paired(b, a, n_boot=NB).verdict == "FAIL"
    a0, b0 = _runs(0.0, n=12, noise=3.0, seed=3)
    r = C.compare_paired(a0, b0, n_boot=NB)
    assert r.verdict == "INCONCLUSIVE" and r.lo < 0 < r.hi
    for m in ("bca", "t", "sign", "wilcoxon"):
        assert C.compare_paired(a, b, method=m, n_boot=NB).verdict == "PASS", m
        assert C.compare_paired(b, a, method=m, n_boot=NB).verdict == "FAIL", m


def test_paired_interval_is_narrower_than_unpaired_on_correlated_runs():
    a, b = _runs(-5.0, n=10, noise=1.0, spread=30.0)
    assert np.corrcoef(a, b)[0, 1] > 0.9
    p = C.compare_paired(a, b, n_boot=NB)
    u = C.compare_unpaired(a, b, n_boot=NB)
    assert p.effect == pytest.approx(u.effect)  # same point estimate: difference of the means
    assert (p.hi - p.lo) < 0.2 * (u.hi - u.lo)
    assert p.verdict == "PASS" and u.verdict == "INCONCLUSIVE"


def test_verdict_rule_and_sides():
    assert C.verdict(-2, -1, "<") == "PASS"
    assert C.verdict(1, 2, "<") == "FAIL"
    assert C.verdict(-1, 1, "<") == "INCONCLUSIVE"
    # ties do not pass an inequality: an interval touching the threshold is INCONCLUSIVE
    assert C.verdict(-1, 0, "<") == "INCONCLUSIVE" and C.verdict(-1, 0, "<=") == "INCONCLUSIVE"
    assert C.verdict(0, 0, "<=") == "INCONCLUSIVE" and C.verdict(0, 0, "<") == "FAIL"
    assert C.verdict(0, 0, ">=") == "INCONCLUSIVE" and C.verdict(0.5, 1, "<=") == "FAIL"
    # ... unless an equivalence margin fixed before the runs is given
    assert C.verdict(0, 0, "<=", margin=0.1) == "PASS" and C.verdict(-1, 0, "<=", margin=0.1) == "PASS"
    assert C.verdict(0, 0, ">=", margin=0.1) == "PASS" and C.verdict(0.2, 1, "<=", margin=0.1) == "FAIL"
    with pytest.raises(ValueError, match="margin"):
        C.verdict(-1, 0, "<", margin=0.1)
    with pytest.raises(ValueError, match="margin"):
        C.verdict(-1, 0, "<=", margin=-0.1)
    assert C.verdict(1, 2, ">") == "PASS" and C.verdict(-2, -1, ">") == "FAIL"
    assert C.verdict(1, 2, "<", threshold=3) == "PASS"
    assert C.verdict(math.nan, math.nan, "<") == "INCONCLUSIVE"
    with pytest.raises(ValueError, match="side"):
        C.verdict(0, 1, "=<")


def test_determinism_same_runs_same_interval():
    a, b = _runs(-1.0, n=8, noise=2.0, seed=5)
    r1 = C.compare_paired(a, b, n_boot=NB)
    r2 = C.compare_paired(a, b, n_boot=NB)
    assert (r1.lo, r1.hi) == (r2.lo, r2.hi)
    p1 = C.compare_paired(a, b, n_boot=NB, method="percentile")
    assert (p1.lo, p1.hi) == (C.compare_paired(a, b, n_boot=NB, method="percentile").lo, p1.hi)
    r3 = C.compare_paired(a, b, n_boot=NB, seed=C.SEED + 1, method="percentile")
    assert (r3.lo, r3.hi) != (p1.lo, p1.hi)  # the seed is what fixes a bootstrap interval
    s1 = C.compare_statistic({"a": a, "b": b}, lambda s: s["a"].mean(-1) - s["b"].mean(-1), n_boot=NB)
    s2 = C.compare_statistic({"a": a, "b": b}, lambda s: s["a"].mean(-1) - s["b"].mean(-1), n_boot=NB)
    assert (s1.lo, s1.hi) == (s2.lo, s2.hi)


def test_few_runs_are_honest():
    a, b = np.array([1.0, 2.0]), np.array([5.0, 7.0])
    r = C.compare_paired(a, b)
    assert r.verdict == "INCONCLUSIVE" and math.isnan(r.lo) and math.isnan(r.hi)
    assert "n = 2 < 3" in r.text() and "2/2 runs favour" in r.text()
    # three runs all on one side: the bootstrap interval stays on that side (documented), the sign
    # test p (1/8) printed beside it shows how little three runs say; the sign method is conservative
    a3, b3 = np.array([1.0, 2.0, 3.0]), np.array([5.0, 7.0, 6.5])
    r3 = C.compare_paired(a3, b3, n_boot=NB)
    assert r3.verdict == "PASS" and r3.p_sign == pytest.approx(0.125) and "sign p = 0.12" in r3.text()
    assert C.compare_paired(a3, b3, method="sign").verdict == "INCONCLUSIVE"
    assert C.compare_paired(a3, b3, method="wilcoxon").verdict == "INCONCLUSIVE"
    # five identical-sign runs: one-sided sign p = 1/32 < 0.05, two-sided 95% sign interval still infinite
    d = -np.arange(1.0, 6.0)
    e, lo, hi = C.interval(d, method="sign")
    assert lo == -math.inf and hi == math.inf
    e, lo, hi = C.interval(-np.arange(1.0, 7.0), method="sign")  # n = 6: [d_(1), d_(6)]
    assert (lo, hi) == (-6.0, -1.0)
    # deterministic differences: the interval is the point
    r = C.compare_paired([3.0, 3.0, 3.0], [5.0, 5.0, 5.0])
    assert (r.lo, r.hi) == (-2.0, -2.0) and r.verdict == "PASS"


def test_sign_and_wilcoxon_intervals_against_scipy():
    from scipy.stats import binom, wilcoxon


    rng = np.random.default_rng(1)
    d = rng.normal(0.5, 1.0, 12)
    # Wilcoxon: the exact null CDF of T+ agrees with scipy's exact p-values
    cdf = C._signed_rank_cdf(12)
    tplus = float(np.sum(np.argsort(np.argsort(np.abs(d)))[d > 0] + 1))
    assert cdf[int(tplus)] == pytest.approx(wilcoxon(d, alternative="less", method="exact").pvalue)
    # sign interval: order statistics with binomial coverage >= level
    eff, lo, hi = C.interval(d, method="sign")
    s = np.sort(d)
    k = int(np.flatnonzero(s == lo)[0]) + 1
    assert hi == s[12 - k] and binom.cdf(k - 1, 12, 0.5) <= 0.025 < binom.cdf(k, 12, 0.5)
    assert eff == pytest.approx(np.median(d))


# ------------------------------------------------------------------------------ ratio, ≈, statistic
def test_ratio_claims():
    a, b = _runs(0.0, n=10, noise=1.0)
    a = a * 0.5  # A costs half of B
    r = C.compare_ratio(a, b, "<", 1.0, n_boot=NB)
    assert r.kind == "ratio" and r.effect == pytest.approx(a.mean() / b.mean()) and r.hi < 1
    assert r.verdict == "PASS"
    assert C.compare_ratio(a, b, "<=", 0.3, n_boot=NB).verdict == "FAIL"
    g = C.compare_ratio(a, b, "<", 1.0, statistic="mean_log_ratio", n_boot=NB)
    assert g.effect == pytest.approx(math.exp(np.mean(np.log(a / b))))
    with pytest.raises(ValueError, match="'b' must be > 0"):
        C.compare_ratio(a, np.r_[0.0, b[1:]])
    with pytest.raises(ValueError, match="bound"):
        C.compare_ratio(a, b, bound=-1)


def test_equivalence_inside_outside_straddling():
    rng = np.random.default_rng(2)
    d = rng.normal(0.0, 0.1, 20)
    assert C.compare_equivalent(d, margin=0.5, n_boot=NB).verdict == "PASS"
    assert C.compare_equivalent(d + 3.0, margin=0.5, n_boot=NB).verdict == "FAIL"
    assert C.compare_equivalent(d + 0.5, margin=0.5, n_boot=NB).verdict == "INCONCLUSIVE"
    a, b = _runs(0.0)
    assert C.compare_equivalent(a, b, ratio_bounds=(0.8, 1.25), n_boot=NB).verdict == "PASS"
    assert C.compare_equivalent(2 * a, b, ratio_bounds=(0.8, 1.25), n_boot=NB).verdict == "FAIL"
    assert C.equivalence_verdict(0.9, 1.3, 0.8, 1.25) == "INCONCLUSIVE"
    with pytest.raises(ValueError, match="'ratio_bounds' must be given exactly when 'margin' is not"):
        C.compare_equivalent(d, margin=1.0, ratio_bounds=(0.8, 1.25))


def test_compare_statistic_joint_resampling():
    rng = np.random.default_rng(4)
    x = rng.normal(0, 1, (15, 3)) + np.array([6.0, 4.0, 2.0])  # decreasing in the column
    stat = lambda s: np.min(-np.diff(s["x"].mean(axis=-2), axis=-1), axis=-1)  # smallest decrement
    r = C.compare_statistic({"x": x}, stat, ">", 0.0, n_boot=NB)
    assert r.verdict == "PASS" and r.effect == pytest.approx(np.min(-np.diff(x.mean(0))))
    r2 = C.compare_statistic({"x": x}, stat, ">", 0.0, n_boot=NB, method="bca")
    assert r2.verdict == "PASS"
    assert C.compare_statistic({"x": x[:2]}, stat, ">", 0.0).verdict == "INCONCLUSIVE"


def test_combine_all_and_any():
    P = C.Comparison("p", -2, -3, -1, 0.95, "percentile", 5, "PASS")
    P2 = C.Comparison("p2", -5, -9, -0.1, 0.95, "percentile", 5, "PASS")
    F = C.Comparison("f", 2, 1, 3, 0.95, "percentile", 5, "FAIL")
    I = C.Comparison("i", 0, -1, 1, 0.95, "percentile", 5, "INCONCLUSIVE")
    assert C.combine([P, P2]).verdict == "PASS" and C.combine([P, P2]).label == "p2"  # the weakest PASS
    assert C.combine([P, I]).verdict == "INCONCLUSIVE" and C.combine([P, I]).label == "i"
    assert C.combine([P, I, F]).verdict == "FAIL" and C.combine([P, I, F]).label == "f"
    assert C.combine([F, I], how="any").verdict == "INCONCLUSIVE"
    assert C.combine([F, P], how="any").verdict == "PASS"
    assert C.combine([F, F], how="any").verdict == "FAIL"
    assert len(C.combine([P, F]).parts) == 2
    assert C.bonferroni_level(0.95, 5) == pytest.approx(0.99)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-100, 100, allow_nan=False), min_size=3, max_size=12), st.sampled_from(C.METHODS))
def test_interval_contains_the_effect_and_the_verdict_is_consistent(d, method):
    d = np.asarray(d)
    eff, lo, hi = C.interval(d, method=method, n_boot=200)
    assert lo <= eff + 1e-9 and eff <= hi + 1e-9
    if method in ("percentile", "bca"):
        assert d.min() - 1e-9 <= lo and hi <= d.max() + 1e-9
    v = C.verdict(lo, hi, "<")
    assert v == "PASS" or not hi < 0
    assert {C.verdict(lo, hi, "<"), C.verdict(lo, hi, ">")} != {"PASS"}


# ------------------------------------------------------------------------------ slopes
def test_slope_with_standard_error():
    x = np.array([1, 2, 4, 8, 16, 32.0])
    y = 3 * x**0.5
    f = C.fit_slope(x, y)
    assert f.slope == pytest.approx(0.5) and f.se == pytest.approx(0.0, abs=1e-12)
    rng = np.random.default_rng(0)
    y2 = y * np.exp(rng.normal(0, 0.1, x.size))
    f2 = C.fit_slope(x, y2)
    from scipy.stats import linregress

    lr = linregress(np.log(x), np.log(y2))
    assert f2.slope == pytest.approx(lr.slope) and f2.se == pytest.approx(lr.stderr)
    c = C.slope_check(x, y2, "<=", 0.75)
    assert c.verdict == "PASS" and c.se == pytest.approx(lr.stderr) and "SE" in c.text()
    assert C.slope_check(x, y2, "<=", 0.3).verdict == "FAIL"
    assert C.slope_check(x, y2, bound=0.3, upper=0.7).verdict == "PASS"
    # the interval rule is three-valued: a threshold inside the interval gives INCONCLUSIVE
    assert C.slope_check(x, y2, "<=", f2.slope, rule="interval").verdict == "INCONCLUSIVE"
    # two points: a slope but no SE
    two = C.fit_slope([1, 2], [1, 2])
    assert two.slope == pytest.approx(1.0) and math.isnan(two.se)


def test_slope_bootstrap_over_runs():
    rng = np.random.default_rng(3)
    xs = np.array([10, 20, 40, 80.0])
    x = np.tile(xs, 6)
    g = np.repeat(np.arange(6), 4)
    y = 2 * x**0.5 * np.exp(rng.normal(0, 0.05, x.size))
    f = C.fit_slope(x, y, se="bootstrap", groups=g, n_boot=500)
    means = y.reshape(6, 4).mean(0)
    assert f.slope == pytest.approx(C.fit_slope(xs, means).slope)
    assert f.se > 0 and f.lo < f.slope < f.hi
    with pytest.raises(ValueError, match="groups"):
        C.fit_slope(x, y, se="bootstrap")


def test_bad_parameters_name_themselves():
    with pytest.raises(ValueError, match="level"):
        C.compare_paired([1, 2, 3], [1, 2, 4], level=95)
    with pytest.raises(ValueError, match="method"):
        C.compare_paired([1, 2, 3], [1, 2, 4], method="jackknife")
    with pytest.raises(ValueError, match="'b' must be 3 runs, as many as 'a'"):
        C.compare_paired([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="'a'"):
        C.compare_paired([], [])


def test_pairing_by_run_index():
    a, b, reps = C.paired([10.0, 20.0, 30.0], [2.0, 1.0], reps_a=[0, 1, 2], reps_b=[1, 0])
    assert reps.tolist() == [0, 1] and a.tolist() == [10.0, 20.0] and b.tolist() == [1.0, 2.0]


# ------------------------------------------------------------------------------ Claim and its table
def test_claim_backward_compatible_and_three_valued():
    old = Claim("x", "q", "check", 1.5, True)
    assert old.verdict == "PASS" and old.passed is True and old.value == "1.5" and old.interval is None
    assert Claim("x", "q", "c", "v", False).verdict == "FAIL"
    inc = Claim("x", "q", "c", "v", verdict="INCONCLUSIVE")
    assert inc.passed is False
    with pytest.raises(ValueError, match="verdict"):
        Claim("x", "q", "c", "v", verdict="MAYBE")
    with pytest.raises(ValueError, match="parameter 'passed' must be None or False"):
        Claim("x", "q", "c", "v", True, verdict="FAIL")
    a, b = _runs(-5.0)
    r = C.combine([C.compare_paired(a, b, n_boot=NB, label="R A − B"), C.compare_ratio(a, b, "<=", 1.2, n_boot=NB)])
    c = Claim.from_result("fig-x", "A is better", "paired", r)
    assert c.verdict == "PASS" and c.interval is not None and len(c.detail) == 2 and c.level == 0.95


def test_claims_table_format():
    a, b = _runs(-5.0)
    claims = [Claim.from_result("c1", "A beats B", "A − B < 0", C.compare_paired(a, b, n_boot=NB), value="R: 1 vs 2",
                                quote="verbatim", source="§5"),
              Claim("c2", "old style", "point check", "3", False, cause="setting", cause_note="T not given"),
              Claim("c3", "too few runs", "A − B < 0", "R", verdict="INCONCLUSIVE", kind="implementation")]
    text = claims_table(claims)
    lines = text.splitlines()
    assert lines[0] == "[PASS] c1"
    assert lines[1] == '    claim: "A beats B" [§5]'
    assert lines[2] == "    check: A − B < 0"
    assert lines[3] == "    number: R: 1 vs 2"
    assert lines[4].startswith("    interval: -5.") and "(95% " in lines[4]
    assert lines[5] == "[FAIL] c2" and lines[6] == '    claim: "old style" (paraphrase)' and lines[9] == "    interval: -"
    assert lines[10] == "    cause: depends on a setting the paper does not give (T not given)"
    assert lines[11] == "[INCONCLUSIVE] c3 (implementation check)"
    assert lines[-2] == "    cause: open: the runs do not decide it yet"
    assert lines[-1] == "paper claims: 1 PASS, 1 FAIL, 0 INCONCLUSIVE; implementation checks: 0 of 1 PASS"
    assert claims[0].cause is None and claims[2].cause == "open"
    with pytest.raises(ValueError, match="kind"):
        Claim("x", "q", "c", "v", True, kind="other")
    with pytest.raises(ValueError, match="cause"):
        Claim("x", "q", "c", "v", False, cause="bad luck")
    assert summary_line(["PASS", "PASS"]) == "2 PASS, 0 FAIL, 0 INCONCLUSIVE"


def test_cause_words_fit_the_verdict_and_hypotheses_are_counted_apart():
    """An INCONCLUSIVE claim never prints that the paper's statement does not hold; the package's own
    hypotheses are a kind of their own, counted apart from the papers' claims."""
    from bandits.experiments.claims import cause_text

    fail = Claim("f", "q", "c", "v", verdict="FAIL", cause="paper")
    inc = Claim("i", "q", "c", "v", verdict="INCONCLUSIVE", cause="paper")
    assert "does not hold" in fail.cause_line() and "does not hold" not in inc.cause_line()
    assert cause_text("open", "FAIL") != cause_text("open", "INCONCLUSIVE")
    h = Claim("h", "q", "c", "v", verdict="PASS", kind="hypothesis")
    text = claims_table([fail, inc, h]).splitlines()
    assert "[PASS] h (hypothesis: not a paper's claim)" in text
    assert text[-1] == ("paper claims: 0 PASS, 1 FAIL, 1 INCONCLUSIVE; implementation checks: 0 of 0 PASS; "
                        "hypotheses (the package's own, not a paper's): 1 PASS, 0 FAIL, 0 INCONCLUSIVE")


def test_level_text_never_rounds_a_level_below_one_to_100():
    assert C.level_text(0.95) == "95%" and C.level_text(0.975) == "97.5%"
    assert C.level_text(0.998) == "99.8%" and C.level_text(0.99889) == "99.89%"
    for lv in (0.9999, 0.99999, 0.999999, 1 - 0.05 / 30, 1 - 0.05 / 1000):
        assert C.level_text(lv) != "100%" and float(C.level_text(lv)[:-1]) < 100


def test_per_run_slope_check_takes_the_run_as_the_unit():
    """One slope per run, Student t over the runs: three runs of slope 0.5 ± 0.01 decide "< 1" (an
    OLS or hull interval over three pooled points would not)."""
    x = np.tile([1.0, 2.0, 4.0, 8.0], 3)
    g = np.repeat([0, 1, 2], 4)
    y = np.concatenate([x[:4] ** s for s in (0.49, 0.5, 0.51)])
    r = C.per_run_slope_check(x, y, g, "<", 1.0, label="slope")
    assert r.verdict == "PASS" and r.effect == pytest.approx(0.5) and r.n == 3 and r.method == "t-runs"
    assert C.per_run_slope_check(x, y, g, ">", 1.0).verdict == "FAIL"
    assert C.per_run_slope_check(x, y, g, "<", 0.5).verdict == "INCONCLUSIVE"


@pytest.mark.parametrize("dist", ["normal", "t2"])
def test_per_run_slope_check_is_calibrated_at_three_runs(dist):
    """No effect: the per-run slope rule PASSes (and FAILs) at most at the nominal 2.5 % (plus 3 Monte-Carlo
    standard errors), at n = 3, the run count of the claims that use it."""
    r = C.null_pass_rate("slope-per-run", 3, dist, n_sims=2000)
    assert r["pass"] <= 0.025 + 3 * r["se"] and r["fail"] <= 0.025 + 3 * r["se"]


def test_runs_to_decide_matches_the_t_test_power():
    """An undecided paired claim whose effect is one spread from 0: about 9 runs give a one-sided t-test
    at 2.5 % 80 % power (the exact noncentral-t count); a tie at the threshold is said to be one."""
    d = np.array([-2.2, 0.3, -1.1])  # mean -1, an interval straddling 0
    r = C.compare_paired(d, np.zeros(3), "<")
    assert r.verdict == "INCONCLUSIVE"
    leans, n = C.runs_to_decide(r)
    sd = float(d.std(ddof=1))
    from scipy.stats import nct, t as student
    assert leans == "PASS" and n is not None
    pw = lambda k: nct.sf(student.ppf(0.975, k - 1), k - 1, 1.0 / sd * np.sqrt(k))
    assert pw(n) >= 0.8 > pw(n - 1)
    assert "about" in C.decide_text(r) and str(n) in C.decide_text(r)
    tie = C.compare_paired(np.zeros(3), np.zeros(3), ">=")
    assert C.runs_to_decide(tie)[0] == "tie" and "tie" in C.decide_text(tie)
    assert C.decide_text(C.compare_paired(d - 10, np.zeros(3), "<")) == ""


def test_write_claims_json(tmp_path):
    a, b = _runs(-5.0)
    claims = [Claim.from_result("c1", "q", "chk", C.compare_paired(a, b, n_boot=NB)),
              Claim.from_result("c2", "q", "chk", C.compare_paired(a[:2], b[:2]))]
    p = write_claims(claims, tmp_path, {"paper": "X"})
    d = json.loads(p.read_text())
    c1, c2 = d["claims"]
    assert c1["verdict"] == "PASS" and c1["passed"] is True and len(c1["interval"]) == 2 and c1["level"] == 0.95
    assert c1["method"] == "t" and c1["detail"]  # the calibrated default
    assert c2["verdict"] == "INCONCLUSIVE" and c2["interval"] is None
    assert d["summary"] == {"PASS": 1, "FAIL": 0, "INCONCLUSIVE": 1} and d["paper"] == "X"


# ------------------------------------------------------------------------------ README report
def test_report_renders_old_and_new_claims_json(tmp_path):
    from bandits import report

    old = {"paper": "Old", "claims": [{"id": "o1", "claim": "a | b", "check": "chk", "value": "1", "passed": False,
                                       "note": "", "verdict": "FAIL"},
                                      {"id": "o2", "claim": "c", "check": "chk", "value": "2", "passed": True}]}
    a, b = _runs(-5.0)
    new_claims = [Claim.from_result("n1", "q", "chk", C.compare_paired(a, b, n_boot=NB), value="R 1 vs 2"),
                  Claim("n2", "q", "chk", "v", verdict="INCONCLUSIVE")]
    write_claims(new_claims, tmp_path / "new", {"paper": "New"})
    full = {"old": old, "new": json.loads((tmp_path / "new" / "claims.json").read_text())}
    quick = {"new": json.loads((tmp_path / "new" / "claims.json").read_text())}
    md = report.claims_markdown(full, quick)
    assert "| New | 1 / 0 / 1 | 1 / 0 / 1 |" in md
    assert "| Old | 1 / 1 / 0 | not run |" in md
    assert "**FAIL** (1; interval: -)" in md and "**PASS** (2; interval: -)" in md
    assert "a \\| b" in md
    row = next(line for line in md.splitlines() if "`n1`" in line)
    assert "**PASS** (R 1 vs 2; interval: -5." in row and "(95% t)" in row
    assert "**INCONCLUSIVE** (v; interval: -)" in md


def test_report_reads_the_mode_from_provenance(tmp_path):
    """A figures/ folder written in quick mode (provenance says so) is not shown as full mode."""
    from bandits import report

    for name, prov in {"a": {"mode": "quick"}, "b": {"parameters": {"mode": "quick"}},
                       "c": {"mode": "full"}, "d": None}.items():
        (tmp_path / name).mkdir()
        if prov is not None:
            (tmp_path / name / "provenance.json").write_text(json.dumps(prov))
    assert [report._mode(tmp_path / n) for n in "abcd"] == ["quick", "quick", "full", None]


def test_report_keeps_the_readme_quick_column_without_results_quick():
    """A fresh checkout has no results/quick (not committed): regenerating the table from figures/ alone
    keeps the README's quick cells (claims full mode has too, and quick-only ids and notebooks)."""
    from bandits import report

    full_c = [{"id": "a1", "claim": "A", "check": "ca", "value": "1", "verdict": "PASS"}]
    quick_c = full_c + [{"id": "a2", "claim": "A2", "check": "ca2", "value": "q2", "verdict": "FAIL"}]
    old = report.claims_markdown({}, {"nb": {"paper": "P", "claims": quick_c},
                                      "qo": {"paper": "Q", "claims": [dict(full_c[0], value="7")]}})
    readme = f"x\n{report.START}\n{old}\n{report.END}\n"
    kept = report.kept_quick_cells(readme, quick={})
    assert set(kept) == {("nb", "a1"), ("nb", "a2"), ("qo", "a1")}
    md = report.claims_markdown({"nb": {"paper": "P", "claims": [dict(full_c[0], value="F")]}}, {}, kept)
    row = next(line for line in md.splitlines() if "`a1`" in line and line.startswith("| nb"))
    assert "**PASS** (F; interval: -)" in row and "**PASS** (1; interval: -)" in row  # full new, quick kept
    assert any("`a2`" in line and "**FAIL** (q2" in line for line in md.splitlines())
    assert any(line.startswith("| qo |") and "(7;" in line for line in md.splitlines())
    assert "| P | 1 / 0 / 0 | 1 / 1 / 0 |" in md
    # a notebook with quick output here uses it, not the README's
    assert report.kept_quick_cells(readme, quick={"nb": {}, "qo": {}}) == {}


# ------------------------------------------------------------------------------ bands
def test_bands_stay_in_range_and_se_is_narrower_than_sd():
    from bandits.plotting import mean_band

    rng = np.random.default_rng(0)
    runs = np.cumsum(rng.exponential(1.0, (10, 50)), axis=1)
    runs[0] *= 20  # one stuck run: heavy tail
    m, lo_sd, hi_sd = mean_band(runs, "sd")
    assert lo_sd.min() < 0  # the old band leaves the range
    m, lo, hi = mean_band(runs, "sd", bounds=(0, None))
    assert lo.min() >= 0
    m, lo_se, hi_se = mean_band(runs, "se", bounds=(0, None))
    assert np.all(hi_se - lo_se <= hi_sd - lo_sd + 1e-12) and lo_se.min() >= 0
    np.testing.assert_allclose(m, runs.mean(0))
    m, lo_b, hi_b = mean_band(runs, "bootstrap", bounds=(0, None))
    m2, lo_b2, hi_b2 = mean_band(runs, "bootstrap", bounds=(0, None))
    np.testing.assert_array_equal(lo_b, lo_b2)  # seeded
    assert np.all(lo_b >= runs.min(0) - 1e-9) and np.all(lo_b <= m + 1e-9) and np.all(hi_b >= m - 1e-9)
    with pytest.raises(ValueError, match="band"):
        mean_band(runs, "iqr")


def test_band_plot_draws_final_points():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bandits.plotting import band_plot

    fig, ax = plt.subplots()
    runs = np.abs(np.random.default_rng(1).normal(0, 1, (5, 20))).cumsum(1)
    band_plot(ax, np.arange(1, 21), runs, "A", bounds=(0, None), points=True)
    assert len(ax.collections) == 2  # the band and the per-run points
    offsets = ax.collections[1].get_offsets()
    assert offsets.shape == (5, 2) and np.all(offsets[:, 0] > 20)
    np.testing.assert_allclose(np.sort(offsets[:, 1]), np.sort(runs[:, -1]))
    plt.close(fig)


# ------------------------------------------------------------------------------ experiment claims on constructed runs
def test_fig2_claims_on_constructed_runs():
    import pandas as pd

    from bandits.experiments import async_kernelucb as ex
    from bandits.experiments.async_kernelucb_claims import fig2_claims

    rng = np.random.default_rng(0)
    level = {"Async-KernelUCB": 100, "Approx-DisKernelUCB": 95, "OneKernelUCB": 60, "NKernelUCB": 200,
             "FedGLB-UCB": 300, "DisLinUCB": 280, "FedLinUCB": 290}
    comm = {"Async-KernelUCB": 1e4, "Approx-DisKernelUCB": 1e5, "OneKernelUCB": 1e6, "NKernelUCB": 0.0,
            "FedGLB-UCB": 1e3, "DisLinUCB": 1e3, "FedLinUCB": 1e3}
    rows = []
    for rep in range(8):
        shared = rng.normal(0, 20)  # the run's environment: common to every method
        for m in ex.METHODS:
            rows.append({"env": "f1", "method": m, "rep": rep, "R_T": level[m] + shared + rng.normal(0, 2),
                         "C_T": comm[m] * (1 + 0.01 * rng.normal())})
    p = ex.async_params("quick", envs=["f1"], device="cpu")
    claims = fig2_claims(ex.Fig2Results(p, None, pd.DataFrame(rows), None, None))
    assert len(claims) >= 3 and {c.verdict for c in claims} == {"PASS"}  # the Async module's claims, however split
    assert all(c.interval is not None and c.level == 0.95 for c in claims)
    # with two runs every comparison is INCONCLUSIVE (n < 3)
    two = pd.DataFrame([r for r in rows if r["rep"] < 2])
    assert {c.verdict for c in fig2_claims(ex.Fig2Results(p, None, two, None, None))} == {"INCONCLUSIVE"}


def test_wilson_interval_matches_scipy():
    from scipy.stats import binomtest

    from bandits.experiments.cope_kb_plots import wilson_interval

    k, n = np.array([0, 3, 50, 100]), np.full(4, 100)
    lo, hi = wilson_interval(k, n)
    for i in range(4):
        ci = binomtest(int(k[i]), 100).proportion_ci(method="wilson")
        assert lo[i] == pytest.approx(ci.low, abs=1e-12) and hi[i] == pytest.approx(ci.high, abs=1e-12)
    assert lo.min() >= 0 and hi.max() <= 1


def test_combine_picks_the_weakest_pass_across_kinds():
    x = np.array([1, 2, 4, 8, 16.0])
    s1 = C.slope_check(x, x**0.5 * np.exp([0, .01, -.01, .02, 0]), bound=0.0, upper=1.0)
    s2 = C.slope_check(x, x**0.9 * np.exp([0, .01, -.01, .02, 0]), bound=0.0, upper=1.0)
    r = C.combine([s1, s2])
    assert r.verdict == "PASS" and r.effect == pytest.approx(s2.effect)  # 0.9 lies closer to the bound 1
    a, b = _runs(0.0)
    e1 = C.compare_equivalent(a, b, ratio_bounds=(0.8, 1.25), n_boot=NB)
    e2 = C.compare_equivalent(1.15 * a, b, ratio_bounds=(0.8, 1.25), n_boot=NB)
    assert C.combine([e1, e2]).effect == pytest.approx(e2.effect)


# ------------------------------------------------------------------------------ calibrated defaults
def test_method_none_is_the_calibrated_default():
    a, b = _runs(-1.0, n=6, noise=2.0, seed=7)
    r = C.compare_paired(a, b, method=None)
    t = C.compare_paired(a, b, method="t")
    assert r.method == "t" == C.DEFAULT_METHOD and (r.lo, r.hi) == (t.lo, t.hi)
    from scipy.stats import ttest_rel

    ci = ttest_rel(a, b).confidence_interval(0.95)
    assert (r.lo, r.hi) == pytest.approx((ci.low, ci.high))
    assert C.interval(a - b) == C.interval(a - b, method="t")
    assert C.compare_unpaired(a, b).method == "welch"
    assert C.compare_statistic({"a": a}, lambda s: s["a"].mean(-1), ">", 0.0, n_boot=NB).method == "jackknife"
    assert C.method_label(None).startswith("Student t") and C.resolve_method(None) == "t"
    with pytest.raises(ValueError, match="method"):
        C.resolve_method("jackknife")


def test_three_runs_on_one_side_no_longer_pass_by_themselves():
    # the percentile bootstrap of 3 runs never leaves their range (a PASS from any 3 same-sign runs);
    # Student t needs the effect to be large against the spread
    a3, b3 = np.array([1.0, 2.0, 3.0]), np.array([1.5, 7.0, 3.2])  # d = -0.5, -5, -0.2
    assert C.compare_paired(a3, b3, method="percentile", n_boot=NB).verdict == "PASS"
    r = C.compare_paired(a3, b3)
    assert r.verdict == "INCONCLUSIVE" and r.hi > 0 and "3/3 runs favour, sign p = 0.12" in r.text()
    assert C.compare_paired(a3, np.array([5.0, 7.0, 6.5])).verdict == "PASS"  # d = -4, -5, -3.5


def test_fieller_ratio_interval_and_verdict_agree_with_the_paired_t_test():
    from scipy.stats import ttest_rel

    a, b = _runs(0.0, n=8, noise=3.0, seed=9)
    a = 0.9 * a
    r = C.compare_ratio(a, b, "<", 1.0)
    assert r.method == "fieller" and r.effect == pytest.approx(a.mean() / b.mean())
    assert r.lo < r.effect < r.hi
    # the bounds are the ratios where the paired t-test of a − ρ b is exactly at its critical value
    for rho in (r.lo, r.hi):
        assert ttest_rel(a, rho * b).pvalue == pytest.approx(0.05, abs=1e-6)
    for bound in (r.lo * 0.99, r.hi * 1.01, r.effect):
        p = ttest_rel(a, bound * b, alternative="less").pvalue
        v = C.compare_ratio(a, b, "<", bound).verdict
        assert (v == "PASS") == (p < 0.025)
    # deterministic runs: the point
    d = C.compare_ratio([2.0, 2.0, 2.0], [4.0, 4.0, 4.0], "<", 1.0)
    assert (d.lo, d.hi) == (0.5, 0.5) and d.verdict == "PASS"
    # B not distinguishable from 0: the Fieller set is unbounded -> INCONCLUSIVE
    u = C.compare_ratio([1.0, 2.0, 3.0], [0.01, 5.0, 0.02], "<", 10.0)
    assert u.verdict == "INCONCLUSIVE" and math.isinf(u.hi) and "unbounded" in u.note
    # the old bootstrap stays available
    assert C.compare_ratio(a, b, "<", 1.0, method="percentile", n_boot=NB).method == "percentile"
    e = C.compare_equivalent(a, b, ratio_bounds=(0.5, 2.0))
    assert e.method == "fieller" and e.verdict == "PASS"


def test_ties_need_a_margin():
    same = [3.0, 3.0, 3.0]
    r = C.compare_paired(same, same, "<=")
    assert (r.lo, r.hi) == (0.0, 0.0) and r.verdict == "INCONCLUSIVE"
    r = C.compare_paired(same, same, "<=", margin=0.5)
    assert r.verdict == "PASS" and "margin 0.5" in r.text()
    assert C.compare_equivalent(same, same, margin=0.0).verdict == "PASS"  # an identity is an equivalence
    with pytest.raises(ValueError, match="margin"):
        C.compare_paired(same, same, "<", margin=0.5)


def test_diverged_runs_are_never_dropped():
    a = np.array([1.0, 2.0, np.nan, 1.5, 1.2])
    b = np.array([5.0, 6.0, 5.5, np.inf, 5.2])
    with pytest.raises(ValueError, match="diverged"):
        C.compare_paired(a, b)
    w = C.compare_paired(a, b, diverged="worst")
    # A's diverged run counts as the worst observed value (6.0), so does B's
    x, y, k, note = C.handle_diverged(a, b, "worst")
    assert k == 2 and x[2] == 6.0 and y[3] == 6.0 and "2 of 5 runs diverged (A: 1, B: 1)" in note
    assert w.effect == pytest.approx(np.mean(x - y)) and "diverged" in w.text()
    i = C.compare_paired(a, b, diverged="inconclusive")
    assert i.verdict == "INCONCLUSIVE" and "2 of 5 runs diverged" in i.note
    lower = C.handle_diverged(a, b, "worst", worse="lower")[0]
    assert lower[2] == 1.0
    assert C.compare_ratio(a, b, "<", 1.0, diverged="inconclusive").verdict == "INCONCLUSIVE"
    assert "diverged" in C.compare_unpaired(a, b, diverged="worst").note
    with pytest.raises(ValueError, match="diverged"):
        C.compare_paired(a, b, diverged="drop")


def test_slopes_are_decided_by_their_interval_by_default():
    x = np.array([1, 2, 4, 8, 16.0])
    y = x**0.5 * np.exp([0.2, -0.2, 0.15, -0.1, 0.05])
    f = C.fit_slope(x, y)
    assert f.lo < 0.55 < f.hi
    assert C.slope_check(x, y, "<=", 0.55).verdict == "INCONCLUSIVE"
    assert C.slope_check(x, y, "<=", 0.55, rule="point").verdict in ("PASS", "FAIL")
    assert "point rule" in C.slope_check(x, y, "<=", 0.55, rule="point").note
    d = C.compare_slopes(x, y, x, y * x**0.5, "<")
    assert d.method == "ols-welch" and d.effect == pytest.approx(-0.5) and d.verdict in ("PASS", "INCONCLUSIVE")


def test_null_pass_rate_and_power_table_are_reproducible():
    r1 = C.null_pass_rate("paired", 4, "normal", n_sims=200)
    r2 = C.null_pass_rate("paired", 4, "normal", n_sims=200)
    assert r1 == r2 and 0 <= r1["pass"] <= 1
    rows = C.power_table(ns=(5,), effects=(0.0, 2.0), n_sims=300)
    assert rows[0]["effect"] == 0.0 and rows[1]["pass"] > rows[0]["pass"]
    assert rows[1]["exact_t"] == pytest.approx(rows[1]["pass"], abs=0.1)


def test_every_committed_claim_has_a_kind_and_every_non_pass_a_cause():
    """Every figures/**/claims.json labels each claim (paper claim, implementation check or hypothesis) and
    gives each FAIL / INCONCLUSIVE a cause, archived and superseded runs included."""
    from pathlib import Path

    from bandits.experiments.claims import CAUSES, KINDS

    root = Path(__file__).resolve().parents[1] / "figures"
    files = sorted(root.rglob("claims.json"))
    assert files
    bad = []
    for f in files:
        for c in json.loads(f.read_text())["claims"]:
            if c.get("kind") not in KINDS:
                bad.append(f"{f.relative_to(root)}: {c['id']} has no kind")
            if c.get("verdict") != "PASS" and c.get("cause") not in CAUSES:
                bad.append(f"{f.relative_to(root)}: {c['id']} ({c.get('verdict')}) has no cause")
            if c.get("verdict") != "PASS" and not (c.get("cause_note") or "").strip():
                bad.append(f"{f.relative_to(root)}: {c['id']} ({c.get('verdict')}) has no note saying why")
            if f.parent.name == "arena" and c.get("kind") == "paper":
                bad.append(f"arena: {c['id']} is the package's hypothesis, not a paper's claim")
            if re.search(r"\bissues? ?-?\d", json.dumps(c, ensure_ascii=False), re.I):
                bad.append(f"{f.relative_to(root)}: {c['id']} names a tracker issue")
    assert not bad, bad[:10]
