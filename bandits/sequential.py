r"""A calibrated sequential rule: add runs in stages until a claim is decided, at 2.5 % one-sided across all looks.

**The design** (Jennison & Turnbull, *Group Sequential Methods*, 2000, ch. 7; Lan & DeMets 1983). A claim
``effect side threshold`` whose statistic reduces to per-run values :math:`d_1, d_2, \dots` (a paired
difference, :math:`a - \rho_0 b` for a ratio, a per-run log ratio or slope) is looked at after
:math:`n_1 < n_2 < \dots < n_K` runs (the *schedule*, e.g. 5, 10, 20, 40). At look :math:`k` the one-sided
nominal level :math:`p_k` comes from an **alpha-spending function** :math:`\alpha(\tau)`, :math:`\tau_k =
n_k / n_K` the information fraction:

* O'Brien–Fleming type (``"obf"``, the default): :math:`\alpha(\tau) = 2\,(1 - \Phi(z_{1-\alpha/2}/\sqrt\tau))`;
* Pocock type (``"pocock"``): :math:`\alpha(\tau) = \alpha \ln(1 + (e - 1)\tau)`.

The boundaries :math:`z_k` solve :math:`P_0(Z_1 < z_1, \dots, Z_{k-1} < z_{k-1}, Z_k \ge z_k) = \alpha(\tau_k)
- \alpha(\tau_{k-1})` for the standardised partial sums of normal data (the canonical joint distribution,
:math:`\operatorname{Corr}(Z_j, Z_k) = \sqrt{n_j / n_k}`), by the recursive numerical integration of
Armitage, McPherson & Rowe (1969) on a grid; :math:`p_k = 1 - \Phi(z_k)`. The variance is estimated, so the
rule applies these **nominal levels to Student's t** at each look ("significance level approach",
Jennison & Turnbull §3.8, after Pocock 1977): the interval at look :math:`k` is Student's interval at the
two-sided level :math:`1 - 2 p_k`,

.. math::  \bar d_k \pm t_{n_k - 1,\,1 - p_k}\; s_k / \sqrt{n_k},

and the look's verdict is :func:`bandits.claims.verdict` of that interval (the same three-valued rule as a
fixed-size claim). Both directions at :math:`\alpha = 2.5\,\%` each: **PASS** when the interval lies on the
claimed side of the threshold, **FAIL** when it lies on the other side. A claim stopped at look :math:`k` keeps
that verdict; a claim undecided at the last look is INCONCLUSIVE.

**Settled within a margin** (a non-binding futility/equivalence stop). With a margin :math:`m > 0` fixed per
claim before the runs, a claim whose look-:math:`k` interval lies inside :math:`(t - m, t + m)` (for a ratio:
:math:`(\rho_0 e^{-m}, \rho_0 e^{m})`, :math:`m` on the log scale) stops as **"no difference beyond m"**. Its
error (saying "within m" when the effect is :math:`t \pm m`) is that of two one-sided group-sequential tests
with the same boundaries, so at most :math:`\alpha` per side; stopping for it never adds a false PASS or FAIL.

**Aimed: stopped for futility** (optional, non-binding; ``futility=True``, ``--futility``). At a look before the
last (from look 1, or from a later look ``futility=k``, ``--futility k``: the looks before it run as the design
without the stop, e.g. to repeat a committed look exactly and aim only the looks after it), a claim still open whose observed effect and spread say that more runs than the schedule's last look would
be needed to decide it even with 10 % power (:data:`FUTILITY_POWER`; :func:`bandits.claims.runs_to_decide`, a
one-sided t-test at the look's level, noncentral t), or that lies exactly on its threshold (a tie), stops
INCONCLUSIVE "stopped for futility", and its
cells get no more runs: the budget goes to the claims the schedule can decide. A non-binding futility stop only
removes sequences from later looks, so it never adds a false PASS or FAIL (:func:`simulate` with ``futility``:
the same stop on the simulated sequences, with the normal approximation
:math:`n = ((z_{1-p} + z_{0.1})\, s / |\bar d|)^2` for the runs needed); it costs power where the early
effect understates the truth.

**Which claim statistics it covers.** Every statistic whose interval is Student's on per-run values:
:func:`~bandits.claims.compare_paired` (``method=None``/``"t"``), :func:`~bandits.claims.compare_ratio` with the
default Fieller interval (decided by the paired t-test of :math:`a - \rho_0 b`; its Fieller interval at the
look's level is the set that test does not reject) or ``statistic="mean_log_ratio"`` (Student on the log
ratios), :func:`~bandits.claims.compare_equivalent` (TOST, Student or Fieller), per-run slopes compared with
those functions, and :func:`~bandits.claims.combine` of such parts ("all": intersection–union, each part at
the look's level; "any": the parts at the Bonferroni level of the look's level, which the experiments'
claims already compute with :func:`~bandits.claims.bonferroni_level`). **Not covered**: the hull intervals
(:func:`~bandits.claims.compare_statistic`, slopes with ``se="bootstrap"``: no exact t law, and infinite at
n = 3), percentile/BCa bootstraps, sign and Wilcoxon intervals, Welch's unpaired interval, and an OLS slope
fitted through points that are not runs (``se="ols"`` on m points: more runs do not add points). The
driver leaves such claims as they are and says so.

**Calibration** is measured by simulation through this module (:func:`simulate`, :func:`calibration`) at
the schedules used, for normal, Student-t (3 d.o.f.) and centred-lognormal nulls at the threshold;
``tests/test_claims_calibration.py`` fails above the level, docs/statistics.md holds the tables
(``python -m bandits.sequential tables``).

**The step** (:func:`decide`): for a committed full-mode folder and an experiment's hooks
(:class:`SequentialExperiment`; the smallest example: :mod:`bandits.experiments.toy_sequential`), judge every claim the rule covers at look 1 on the committed runs, then add
runs in stages to the cells behind the claims not yet decided (only those), through the run cache
(:func:`bandits.runner.sweep`: resumable, and a dask cluster can take it), within a budget, and write
``sequential.json``. **The budget takes no reading of the machine into a verdict**: a committed step's
stages are estimated and charged at each cell's cost per run fixed with its design (:data:`COSTS_FILE`, the
committed folders' recorded seconds when the table was built), so which looks a re-run takes depends on the
runs' outcomes only, never on how fast or how loaded the machine is; any other step (a budget or schedule of
the user's) estimates from its folder's recorded times and charges what its runs record. Every claim is judged by the design from its
first look (a claim that PASSed the fixed-size 95 % rule at look 1 but not the stricter look-1 boundary
continues): a rule that kept the fixed-size verdicts and added looks only for the INCONCLUSIVE ones would
spend more than 2.5 %. :func:`step` runs it by the folder's name (:data:`HOOKS`): it is what ``make decide``
(:func:`main`) and the notebooks' ``decide_schedule`` / ``decide_budget_s`` / ``decide_spending`` parameters
(:func:`bandits.experiments.notebook.run_sequential`) call, with the same checks (:func:`check_step`) and defaults.

This module is left out of the run cache's code fingerprint (:data:`bandits.runner.NOT_IN_RUNS`): it
decides claims, it never runs inside a cell.

Length (≈ 1 270 lines): one module on purpose. The design (boundaries, t adjustment), its calibration by
simulation, the tables docs/statistics.md prints, and the step that applies it to a folder (by hooks object or by
name, for ``make decide`` and the notebooks, with the committed steps' designs and their cost table) share
:class:`Design` and the look's verdict rule; kept together, the rule the step applies is the rule the calibration
measures.
"""
from __future__ import annotations

import json
import math
import time
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from .validation import check, integer, one_of, optional, real, rule

__all__ = ["FULL_MODE_DESIGNS", "FUTILITY_POWER", "papermill_args", "used_schedules", "SPENDING", "NULLS", "Design", "spending", "nominal_levels", "look_verdict", "simulate", "calibration",
           "power", "t_adjustment", "capture_comparisons", "decide_comparison", "covered", "SequentialExperiment", "decide",
           "summary", "HOOKS", "hooks_for", "STORED", "stored_state", "tables", "main", "calibration_table", "power_table_md", "boundary_table", "futility_table",
           "check_step", "default_schedule", "step", "read_claims", "read_committed", "fixed_size_verdicts", "next_reps", "round_margin",
           "COSTS_FILE", "design_costs", "committed_design", "freeze_costs", "replay_budget"]

SPENDING = ("obf", "pocock")
#: the nulls of the calibration: normal, Student t with 3 d.o.f. (heavy tails), lognormal(0, 1) centred (skewed)
NULLS = ("normal", "t3", "lognormal")
ALPHA = 0.025
#: the verdict of a claim stopped within its margin
WITHIN = "WITHIN"
#: interval methods of a Comparison whose interval is Student's on per-run values (see the module docstring)
_T_METHODS = ("t", "fieller", "t-runs")


# ------------------------------------------------------------------------------ the design
def spending(tau, alpha: float = ALPHA, kind: str = "obf"):
    """The Lan–DeMets alpha-spending function at information fraction ``tau`` (array or float, in [0, 1])."""
    from scipy.stats import norm

    check("kind", kind, one_of(*SPENDING))
    tau = np.asarray(tau, dtype=float)
    if kind == "obf":
        with np.errstate(divide="ignore"):
            return np.where(tau > 0, 2.0 * norm.sf(norm.isf(alpha / 2) / np.sqrt(np.maximum(tau, 1e-300))), 0.0)
    return alpha * np.log1p((math.e - 1.0) * tau)


@lru_cache(maxsize=256)
def nominal_levels(schedule: tuple, alpha: float = ALPHA, kind: str = "obf", grid: int = 2001) -> tuple:
    """One-sided nominal levels ``p_k`` (and the normal boundaries ``z_k``) of the one-sided group-sequential
    design with spending ``kind`` at looks ``schedule`` (run counts), by recursive numerical integration on
    the score scale :math:`S_k = Z_k \\sqrt{\\tau_k}` (increments independent, variance
    :math:`\\tau_k - \\tau_{k-1}`; Armitage, McPherson & Rowe 1969).

    Returns:
        ``((p_1, ..., p_K), (z_1, ..., z_K))``.
    """
    from scipy.optimize import brentq
    from scipy.stats import norm

    n = np.asarray(schedule, dtype=float)
    tau = n / n[-1]
    cum = spending(tau, alpha, kind)
    inc = np.diff(np.concatenate([[0.0], cum]))
    zs, ps = [], []
    x = w = f = None  # grid, quadrature weights and sub-density of S_{k-1} on the continuation region
    for k in range(len(n)):
        if k == 0:
            z = float(norm.isf(inc[0])) if inc[0] > 0 else math.inf
            b = z * math.sqrt(tau[0])
            lo = -8.0 * math.sqrt(tau[0])
            x = np.linspace(lo, min(b, 8.0 * math.sqrt(tau[0])), grid)
            w = _simpson(x)
            f = norm.pdf(x / math.sqrt(tau[0])) / math.sqrt(tau[0])
        else:
            sd = math.sqrt(tau[k] - tau[k - 1])

            def cross(bk):
                return float(np.sum(w * f * norm.sf((bk - x) / sd)))

            if inc[k] <= 0:
                b = math.inf
            else:
                top = x[-1] + 12 * sd
                b = brentq(lambda bk: cross(bk) - inc[k], x[0] - 12 * sd, top, xtol=1e-12) \
                    if cross(top) < inc[k] < cross(x[0] - 12 * sd) else math.inf
            z = b / math.sqrt(tau[k])
            y = np.linspace(-8.0 * math.sqrt(tau[k]), min(b, 8.0 * math.sqrt(tau[k])), grid)
            f = (w * f) @ (norm.pdf((y[None, :] - x[:, None]) / sd) / sd)
            x, w = y, _simpson(y)
        zs.append(float(z))
        ps.append(float(norm.sf(z)))
    return tuple(ps), tuple(zs)


@lru_cache(maxsize=256)
def t_adjustment(schedule: tuple, alpha: float = ALPHA, kind: str = "obf", n_sims: int = 200_000,
                 seed: int = 20_240) -> float:
    r"""The factor :math:`\lambda` by which the nominal levels are scaled (``Design(adjust=True)``, the default)
    so that Student's t at the looks spends ``alpha`` under a normal null. The significance level approach is
    exact at each look alone, but at few degrees of freedom the looks' t statistics are less correlated than
    the z's, and Pocock-type spending then overshoots (measured: 2.63–2.75 % at 2.5 %). Found by bisection
    on ``n_sims`` normal sequences with a fixed seed, both tails pooled (the rate estimated from
    ``2 n_sims`` tails, Monte-Carlo s.e. ≈ 0.025 points at 2.5 %)."""
    from .stats import t_quantile

    p0 = nominal_levels(schedule, alpha, kind)[0]
    ns = schedule
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=tuple(ns)))
    T = np.empty((n_sims, len(ns)))
    for i in range(0, n_sims, 50_000):
        d = rng.standard_normal((min(50_000, n_sims - i), ns[-1]))
        for k, n in enumerate(ns):
            x = d[:, :n]
            T[i:i + x.shape[0], k] = x.mean(axis=1) / (x.std(axis=1, ddof=1) / math.sqrt(n))

    def rate(lam):
        c = np.array([t_quantile(1 - min(lam * p, 0.5), n - 1) for p, n in zip(p0, ns)])
        return ((T >= c).any(axis=1).mean() + (T <= -c).any(axis=1).mean()) / 2

    lo, hi = 0.5, 1.5
    for _ in range(25):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if rate(mid) < alpha else (lo, mid)
    return (lo + hi) / 2


def _simpson(x):
    """Simpson weights on an equally spaced grid of odd length."""
    h = (x[-1] - x[0]) / (x.size - 1)
    w = np.ones(x.size)
    w[1:-1:2], w[2:-1:2] = 4.0, 2.0
    return w * h / 3.0


@dataclass(frozen=True)
class Design:
    """A group-sequential design: looks after ``schedule`` runs (increasing, first ≥ 3), one-sided ``alpha`` per
    direction, spending ``kind``.

    Attributes (derived): ``p`` the one-sided nominal level per look, ``z`` the normal boundary,
    ``level(k)`` the two-sided level of look ``k``'s interval (``1 − 2 p_k``), ``t_bound(k)`` the Student
    critical value at ``n_k − 1`` d.o.f.
    """

    schedule: tuple = (3, 5, 10, 20)
    alpha: float = ALPHA
    kind: str = "obf"
    adjust: bool = True

    def __post_init__(self):
        s = tuple(int(v) for v in self.schedule)
        check("schedule", s, rule(lambda v: len(v) >= 1 and v[0] >= 3 and all(a < b for a, b in zip(v, v[1:])),
                                  "increasing run counts, the first >= 3"))
        check("alpha", self.alpha, rule(lambda v: 0 < v < 0.5, "a one-sided level in (0, 0.5)"))
        check("kind", self.kind, one_of(*SPENDING))
        object.__setattr__(self, "schedule", s)

    @property
    def p(self) -> tuple:
        p = nominal_levels(self.schedule, float(self.alpha), self.kind)[0]
        if not self.adjust:
            return p
        lam = t_adjustment(self.schedule, float(self.alpha), self.kind)
        return tuple(v * lam for v in p)

    @property
    def z(self) -> tuple:
        return nominal_levels(self.schedule, float(self.alpha), self.kind)[1]

    @property
    def K(self) -> int:
        return len(self.schedule)

    def level(self, k: int) -> float:
        """Two-sided level of the interval at look ``k`` (0-based)."""
        return 1.0 - 2.0 * self.p[k]

    def t_bound(self, k: int) -> float:
        from .stats import t_quantile

        return t_quantile(1.0 - self.p[k], self.schedule[k] - 1)

    def spent(self) -> tuple:
        """Cumulative alpha spent at each look."""
        n = np.asarray(self.schedule, float)
        return tuple(float(v) for v in spending(n / n[-1], self.alpha, self.kind))

    def describe(self) -> dict:
        return {"schedule": list(self.schedule), "alpha_one_sided": self.alpha, "spending": self.kind,
                "looks": [{"n": n, "alpha_spent": s, "nominal_p": p, "z": z, "t": self.t_bound(k),
                           "level": self.level(k)}
                          for k, (n, s, p, z) in enumerate(zip(self.schedule, self.spent(), self.p, self.z))]}


def look_verdict(d, design: Design, k: int, side: str = "<", threshold: float = 0.0,
                 margin: float | None = None, final: bool | None = None) -> tuple[str, float, float]:
    """The verdict at look ``k`` of ``mean(d) side threshold`` from the per-run values ``d`` (the first
    ``n_k`` of them are used): ``"PASS"``, ``"FAIL"``, ``"WITHIN"`` (inside ``threshold ± margin``) or
    ``"CONTINUE"`` (``"INCONCLUSIVE"`` at the last look), with the look's interval."""
    from .claims import verdict
    from .stats import paired_t_interval

    n = design.schedule[k]
    d = np.asarray(d, dtype=float)[:n]
    check("d", d, rule(lambda v: v.size == n, f"{n} runs (look {k + 1} of {design.schedule})"))
    _, lo, hi = paired_t_interval(d, design.level(k))
    v = verdict(lo, hi, side, threshold)
    if v == "INCONCLUSIVE" and margin and threshold - margin < lo and hi < threshold + margin:
        v = WITHIN
    last = (k == design.K - 1) if final is None else final
    if v == "INCONCLUSIVE":
        v = "INCONCLUSIVE" if last else "CONTINUE"
    return v, float(lo), float(hi)


# ------------------------------------------------------------------------------ simulation
def _draw(rng, dist, size):
    if dist == "normal":
        return rng.standard_normal(size)
    if dist == "t3":
        return rng.standard_t(3, size) / math.sqrt(3.0)  # unit variance
    if dist == "lognormal":
        return (rng.lognormal(0.0, 1.0, size) - math.exp(0.5)) / math.sqrt((math.e - 1) * math.e)  # mean 0, sd 1
    check("dist", dist, one_of(*NULLS))


def simulate(design: Design, dist: str = "normal", effect: float = 0.0, n_sims: int = 100_000, seed: int = 0,
             margin: float | None = None, chunk: int = 20_000, futility: bool = False) -> dict:
    """The rule simulated on ``n_sims`` sequences of per-run values ``d = effect + ε`` (ε from ``dist``, mean 0,
    sd 1), for the claim ``mean(d) < 0`` (the threshold 0; ``effect`` in standard deviations of d), each
    stopped at its first decisive look. The intervals and verdicts are this module's (the same arithmetic as
    :func:`look_verdict`, vectorised).

    Returns:
        ``{"pass", "fail", "within", "inconclusive"}``: the overall shares; ``"pass_by_look"``, ``"fail_by_look"``,
        ``"within_by_look"``: the cumulative shares at each look; ``"mean_n"`` the average runs used; ``"se"``
        the Monte-Carlo standard error of a rate of ``alpha``; ``n_sims``, ``dist``, ``effect``, ``margin``;
        ``"futile"``: the share stopped for futility (``futility=True``: a sequence still open at a look before
        the last whose runs needed, :func:`_runs_needed_normal` at the look's level, exceed the last look's).
    """
    check("dist", dist, one_of(*NULLS))
    check("n_sims", n_sims, integer(ge=1))
    K, ns = design.K, design.schedule
    cs = [design.t_bound(k) for k in range(K)]
    counts = {v: np.zeros(K, int) for v in ("PASS", "FAIL", WITHIN)}
    futile = 0
    used = 0.0
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(NULLS.index(dist),)))
    done_total = 0
    while done_total < n_sims:
        m = min(chunk, n_sims - done_total)
        d = effect + _draw(rng, dist, (m, ns[-1]))
        alive = np.ones(m, bool)
        for k in range(K):
            x = d[:, :ns[k]]
            mean = x.mean(axis=1)
            se = x.std(axis=1, ddof=1) / math.sqrt(ns[k])
            lo, hi = mean - cs[k] * se, mean + cs[k] * se
            p = alive & (hi < 0)
            f = alive & (lo >= 0)
            wi = alive & ~p & ~f & (lo > -margin) & (hi < margin) if margin else np.zeros(m, bool)
            for v, mask in (("PASS", p), ("FAIL", f), (WITHIN, wi)):
                counts[v][k] += int(mask.sum())
            stop = p | f | wi
            if futility and k < K - 1:
                fu = alive & ~stop & (_runs_needed_normal(mean, x.std(axis=1, ddof=1), design.p[k]) > ns[-1])
                futile += int(fu.sum())
                stop = stop | fu
            used += float(ns[k]) * stop.sum()
            alive &= ~stop
        used += float(ns[-1]) * alive.sum()
        done_total += m
    cum = {v: np.cumsum(c) / n_sims for v, c in counts.items()}
    a = design.alpha
    return {"dist": dist, "effect": float(effect), "margin": margin, "n_sims": int(n_sims),
            "schedule": list(ns), "spending": design.kind,
            "pass": float(cum["PASS"][-1]), "fail": float(cum["FAIL"][-1]), "within": float(cum[WITHIN][-1]),
            "inconclusive": float(1 - cum["PASS"][-1] - cum["FAIL"][-1] - cum[WITHIN][-1]),
            "pass_by_look": [float(v) for v in cum["PASS"]], "fail_by_look": [float(v) for v in cum["FAIL"]],
            "within_by_look": [float(v) for v in cum[WITHIN]], "mean_n": used / n_sims,
            "se": math.sqrt(a * (1 - a) / n_sims), "futility": bool(futility), "futile": futile / n_sims}


#: the power at which the futility stop reads the runs a claim needs (:func:`bandits.claims.runs_to_decide`): a claim
#: stops when even a 10 % chance of deciding it would take more runs than the last look's. Chosen on the simulation
#: (normal d, Pocock, docs/statistics.md's futility table) before any step used it: at the threshold it cuts the
#: mean runs by more than half; a one-s.d. effect keeps 89 % (n₀ = 3) and 99.6 % (n₀ = 10) of its power
FUTILITY_POWER = 0.1


def _runs_needed_normal(mean, sd, p, power: float = FUTILITY_POWER):
    """Runs a one-sided test at level ``p`` needs for ``power`` if the per-run values' mean and sd are as observed:
    the normal approximation ``((z_{1-p} + z_power) sd / |mean|)²`` (infinite for a zero mean); arrays or floats.
    The simulation's stand-in for :func:`bandits.claims.runs_to_decide` (noncentral t), which the step uses."""
    from scipy.stats import norm

    mean, sd = np.asarray(mean, float), np.asarray(sd, float)
    z = norm.isf(p) + norm.isf(1.0 - power)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(mean != 0, (z * sd / np.abs(mean)) ** 2, np.inf)


def calibration(design: Design, n_sims: int = 100_000, seed: int = 0, dists=NULLS) -> list[dict]:
    """False-PASS and false-FAIL rates across all looks, the effect exactly at the threshold, per null."""
    return [simulate(design, dist, 0.0, n_sims, seed) for dist in dists]


def power(design: Design, effects=(0.5, 1.0, 2.0), n_sims: int = 20_000, seed: int = 1, dist: str = "normal") -> list[dict]:
    """The cumulative PASS rate by look of ``mean(d) < 0`` when the true mean is ``-effect`` standard deviations."""
    return [simulate(design, dist, -float(e), n_sims, seed) for e in effects]


# ------------------------------------------------------------------------------ tables (docs/statistics.md)
def boundary_table(design: Design) -> str:
    rows = ["| look | runs n | α spent (cumulative) | nominal one-sided p | z boundary | t boundary (n − 1 d.o.f.) | "
            "interval level |", "|---|---|---|---|---|---|---|"]
    for k, L in enumerate(design.describe()["looks"]):
        rows.append(f"| {k + 1} | {L['n']} | {L['alpha_spent']:.3g} | {L['nominal_p']:.3g} | {L['z']:.3f} | "
                    f"{L['t']:.3f} | {_level_words(L['level'])} |")
    return "\n".join(rows)


def _level_words(level: float) -> str:
    return f"1 − {1 - level:.2g}" if level > 0.9999 else f"{100 * level:.4g} %"


def calibration_table(designs, n_sims: int = 100_000, seed: int = 0) -> str:
    rows = ["| schedule | spending | null | false PASS (%) | false FAIL (%) | MC s.e. (%) | mean runs |",
            "|---|---|---|---|---|---|---|"]
    for des in designs:
        for r in calibration(des, n_sims, seed):
            rows.append(f"| {', '.join(map(str, des.schedule))} | {des.kind} | {r['dist']} | {100 * r['pass']:.2f} | "
                        f"{100 * r['fail']:.2f} | {100 * r['se']:.2f} | {r['mean_n']:.2f} |")
    return "\n".join(rows)


def power_table_md(design: Design, effects=(0.5, 1.0, 2.0), n_sims: int = 20_000, seed: int = 1) -> str:
    head = " | ".join(f"n = {n}" for n in design.schedule)
    rows = [f"| δ (s.d. of d) | {head} | fixed-size t at n = {design.schedule[-1]} |",
            "|---|" + "---|" * (design.K + 1)]
    from scipy.stats import nct

    from .stats import t_quantile

    nK = design.schedule[-1]
    for r in power(design, effects, n_sims, seed):
        e = -r["effect"]
        exact = float(nct.sf(t_quantile(1 - design.alpha, nK - 1), nK - 1, e * math.sqrt(nK)))
        rows.append(f"| {e:g} | " + " | ".join(f"{100 * v:.1f}" for v in r["pass_by_look"]) + f" | {100 * exact:.1f} |")
    return "\n".join(rows)


def futility_table(designs, effects=(0.0, 0.5, 1.0), n_sims: int = 20_000, seed: int = 3) -> str:
    """The optional futility stop (:data:`FUTILITY_POWER`) against none, on the same normal sequences: PASS,
    FAIL, stopped for futility and the mean runs used, per design and true effect (s.d. of d below the threshold)."""
    rows = ["| schedule, spending | δ (s.d. of d) | PASS without / with (%) | FAIL without / with (%) | "
            "stopped for futility (%) | mean runs without / with |", "|---|---|---|---|---|---|"]
    for des in designs:
        for e in effects:
            off = simulate(des, "normal", -float(e), n_sims, seed)
            on = simulate(des, "normal", -float(e), n_sims, seed, futility=True)
            rows.append(f"| {', '.join(map(str, des.schedule))}, {des.kind} | {e:g} | {100 * off['pass']:.1f} / "
                        f"{100 * on['pass']:.1f} | {100 * off['fail']:.2f} / {100 * on['fail']:.2f} | "
                        f"{100 * on['futile']:.1f} | {off['mean_n']:.1f} / {on['mean_n']:.1f} |")
    return "\n".join(rows)


def equivalence_table(design: Design, margin: float = 0.5, n_sims: int = 100_000, seed: int = 2) -> str:
    rows = ["| null | P(within m), effect at t + m (%) | P(within m), effect at t (%) | MC s.e. (%) |",
            "|---|---|---|---|"]
    for dist in NULLS:
        r_edge = simulate(design, dist, margin, n_sims, seed, margin=margin)
        r_mid = simulate(design, dist, 0.0, n_sims, seed, margin=margin)
        rows.append(f"| {dist} | {100 * r_edge['within']:.2f} | {100 * r_mid['within']:.1f} | {100 * r_edge['se']:.2f} |")
    return "\n".join(rows)


# ------------------------------------------------------------------------------ claims: capture and decide
@contextmanager
def capture_comparisons():
    """Record the :class:`~bandits.claims.Comparison` behind each claim an experiment's claims function builds.

    Inside the block, :meth:`bandits.experiments.claims.Claim.from_result` also stores its ``result`` in the
    yielded dict under the claim's id (the claims functions are called as they are, at the look's level; a
    claim built without ``from_result`` has no entry and is not covered). Restored on exit."""
    from .experiments.claims import Claim

    got: dict = {}
    orig = Claim.__dict__["from_result"]

    def from_result(cls, id, claim, check, result, *args, **kwargs):
        got[id] = result
        return orig.__func__(cls, id, claim, check, result, *args, **kwargs)

    Claim.from_result = classmethod(from_result)
    try:
        yield got
    finally:
        Claim.from_result = orig


def _leaves(c) -> list:
    out = []
    for p in (c.parts or (c,)):
        out.extend(_leaves(p) if p.parts else [p])
    return out


def covered(c, level: float | None = None) -> tuple[bool, str]:
    """Whether the rule covers a claim's comparison ``c``: every part's interval is Student's on per-run values
    (``method`` "t", "fieller", or "t-runs": Student's t over one fitted slope per run) and, when ``level`` is given, computed at that level or above (the
    Bonferroni level of a part of an "any" claim is above it; a claims function that ignores ``level`` is not
    covered). Returns ``(ok, reason)``."""
    if c is None:
        return False, "the claim is not built from a Comparison (Claim.from_result)"
    for p in _leaves(c):
        if p.method not in _T_METHODS:
            return False, f"part {p.label!r} uses the {p.method!r} interval (not Student's on per-run values)"
        if level is not None and p.level < level - 1e-12:
            return False, f"part {p.label!r} is computed at {p.level:.6g}, not at the look's level {level:.6g}"
    return True, ""


def _within(p, margin: float) -> bool:
    import math as _m

    lo, hi = p.lo, p.hi
    if p.bounds is not None or not (_m.isfinite(lo) and _m.isfinite(hi)):
        return False
    t = p.threshold
    if p.margin and p.side == "<=":
        t += p.margin
    if p.margin and p.side == ">=":
        t -= p.margin
    if p.kind == "ratio":  # the margin on the log scale: (t e^-m, t e^m)
        return lo > 0 and t > 0 and _m.log(t) - margin < _m.log(lo) and _m.log(hi) < _m.log(t) + margin
    return t - margin < lo and hi < t + margin


def decide_comparison(c, margin: float | None = None, final: bool = False) -> tuple[str, str]:
    """The sequential status of a claim's comparison computed at the look's level: its own verdict when PASS
    or FAIL; ``"WITHIN"`` when every undecided part's interval lies within ``margin`` of its threshold (on
    the log scale for a ratio; never for an equivalence part, whose claim is already about a margin);
    otherwise ``"CONTINUE"`` (``"INCONCLUSIVE"`` at the last look). Returns ``(status, words)``."""
    if c.verdict in ("PASS", "FAIL"):
        return c.verdict, ""
    open_parts = [p for p in _leaves(c) if p.verdict == "INCONCLUSIVE"]
    if margin and open_parts and all(_within(p, margin) for p in open_parts):
        names = ", ".join(p.label for p in open_parts)
        return WITHIN, f"no difference beyond {margin:g} ({names})"
    return ("INCONCLUSIVE" if final else "CONTINUE"), ""


# ------------------------------------------------------------------------------ the step
class SequentialExperiment(Protocol):
    """The hooks an experiment provides for :func:`decide` (one object per committed folder).

    * ``load(folder) -> state``: the committed runs (from the folder's per-run files) and parameters;
    * ``n_runs(state) -> int``: the runs each claim is tested on now (the design's first look);
    * ``claims(state, level) -> list[Claim]``: the experiment's own claims function at two-sided ``level``
      (``claims_from_results``);
    * ``claim_cells(claim_id, state) -> list``: the cells (hashable keys) behind a claim (``claim_configs``);
    * ``new_reps(state, n) -> list[int]``: the run indices to add so that every claim has ``n`` tested runs;
    * ``tasks(cells, reps, state) -> list[(config, rep)]`` and ``seed(state)``, ``fn``: what
      :func:`bandits.runner.sweep` runs (``fn`` None: the runner's own cell);
    * ``add_results(state, tasks, results) -> state``: the state with the new runs' rows; or, so that the step
      keeps its runs in the folder (:data:`STORED`) and a later pass resumes from them without the run cache,
      the pair ``rows_of(state, tasks, results) -> {table: DataFrame}`` (the new runs' rows, as the folder's
      tables hold them) and ``add_rows(state, {table: DataFrame}) -> state``;
    * ``cost_s(cell, state) -> float``: the recorded seconds of one run of ``cell`` (for the budget);
    * ``margins``: claim id → margin fixed before the runs (absent: no within-margin stop).
    """

    name: str
    margins: dict
    fn: object

    def load(self, folder): ...
    def n_runs(self, state) -> int: ...
    def claims(self, state, level: float) -> list: ...
    def claim_cells(self, claim_id: str, state) -> list: ...
    def new_reps(self, state, n: int) -> list: ...
    def tasks(self, cells, reps, state) -> list: ...
    def seed(self, state) -> int: ...
    def add_results(self, state, tasks, results): ...
    def cost_s(self, cell, state) -> float: ...


def read_committed(folder, params_fn, full: dict, runs_file: str = "runs.csv") -> tuple:
    """A committed folder as the hooks' ``load`` reads it: the experiment's parameters (``params_fn("full",
    **overrides)`` with the overrides the parameters in ``provenance.json`` that the experiment's full mode
    ``full`` names, so a quick-mode folder reads back as it was run), the master seed, and the per-run table
    ``runs_file``. Returns ``(params, seed, runs)``."""
    import pandas as pd

    folder = Path(folder)
    prov = json.loads((folder / "provenance.json").read_text())
    pr = prov["parameters"]
    params = params_fn("full", **{k: v for k, v in pr.items() if k in full})
    return params, int(prov.get("seed", 0)), pd.read_csv(folder / runs_file)


def next_reps(runs, have: int, n: int) -> list:
    """The run indices a stage adds: after every run index of ``runs`` (a table with a ``rep`` column), as many
    as bring the claims from ``have`` tested runs to ``n``."""
    start = int(runs.rep.max()) + 1
    return list(range(start, start + n - int(have)))


def round_margin(m: float) -> float:
    """A within-margin stop's margin as the hooks fix it: rounded to two significant digits."""
    return float(f"{m:.2g}")


def _claim_row(c, k, design, status, words, committed):
    return {"verdict": status, "decided_at_n": design.schedule[k], "look": k + 1, "level": design.level(k),
            "effect": c.effect, "interval": [c.lo, c.hi], "label": c.label, "within": words,
            "committed_verdict": committed, "detail": [p.text() for p in (c.parts or (c,))]}


def fixed_size_verdicts(folder, fresh: bool = False) -> dict:
    """Claim id → the fixed-size verdict of a committed folder: ``claims.json``'s, except where a step rewrote it
    (``sequential.json``: the verdicts its last pass read at look 1), unless ``fresh`` (``claims.json`` was just
    written from the folder's runs)."""
    folder = Path(folder)
    cj, sj = folder / "claims.json", folder / "sequential.json"
    out = {c["id"]: c.get("verdict") for c in json.loads(cj.read_text())["claims"]} if cj.exists() else {}
    if sj.exists() and not fresh:
        prev = json.loads(sj.read_text()).get("claims", {})
        out.update({cid: r["committed_verdict"] for cid, r in prev.items() if r.get("committed_verdict")})
    return out


def decide(exp, folder, design: Design, budget_s: float = math.inf, cache_dir=None, n_jobs: int = 1,
           backend: str = "loky", scheduler: str | None = None, progress: bool = False, write: bool = True,
           only: list | None = None, state=None, fresh: bool = False, futility: bool | int = False,
           costs: dict | None = None) -> dict:
    """The sequential step on a committed folder (see the module docstring): every claim the rule covers is
    judged at look 1 (the committed runs, ``design.schedule[0]`` of them) at the look's level; the claims not
    decided get runs in stages, on their cells only, through the run cache, each stage refused when its
    estimated cost (the cells' seconds per run × runs to add) would take the step over ``budget_s``.

    ``costs``: ``repr(cell)`` → seconds per run fixed with the design (:func:`design_costs`); a stage whose cells
    are all in it is estimated from it and charged its estimate (``"cost": "design"``), so the looks taken do not
    depend on the machine. Without it, or for a stage with a cell it lacks, the estimate is the hooks'
    ``cost_s`` (the folder's recorded times) and the charge the runs' recorded seconds (``"cost": "recorded"``).

    ``only``: claim ids to consider (default: every claim). With ``write``: writes ``folder/sequential.json`` and
    rewrites ``folder/claims.json`` with the claims decided by the rule (:func:`_rewrite_claims`), and, for hooks
    with ``rows_of``/``add_rows``, keeps each look's runs in ``folder/sequential_runs/`` (:data:`STORED`) as the
    look ends; a look whose runs are kept there (same cells, same run indices) is read back instead of run. ``state``: what
    ``exp.load(folder)`` returned, when the caller has loaded it already (:func:`step`). ``fresh``: ``claims.json`` was
    just written from the folder's runs (a notebook's last cell), so its verdicts are the fixed-size ones even where
    an earlier pass left a ``sequential.json`` (which this pass then overwrites). ``futility``: stop, before the last
    look, a claim whose runs to decide exceed the last look's (the module docstring, "Aimed"); ``True`` (or 1) from
    look 1, an integer ``k`` from look ``k`` on (the earlier looks as without the stop).

    Returns:
        A dict with the keys ``design``, ``claims`` (claim id to its entry), ``not_covered`` (claim id to the
        reason), ``stages``, ``cpu_s`` (the added runs' recorded seconds), ``spent_s`` (what the budget was
        charged), ``costs``, ``budget_s`` and ``stopped``; a claim's entry: ``verdict`` (PASS, FAIL, WITHIN,
        INCONCLUSIVE), ``decided_at_n``, ``look``, ``level``, ``effect``, ``interval``, ``within`` (words), ``committed_verdict``.
    """
    from .runner import recorded_time, sweep

    folder = Path(folder)
    cj, sj = folder / "claims.json", folder / "sequential.json"
    committed = fixed_size_verdicts(folder, fresh=fresh)
    if fresh and write:  # the folder's runs were just rewritten: runs kept by an earlier pass no longer belong
        _clear_stored(folder)
    if state is None:
        state = exp.load(folder)
    n0 = exp.n_runs(state)
    check("design", design, rule(lambda d: d.schedule[0] == n0, f"a schedule starting at the committed {n0} runs"))
    out = {"experiment": exp.name, "folder": _shown_path(folder), "design": design.describe(), "claims": {},
           "not_covered": {}, "stages": [], "cpu_s": 0.0, "spent_s": 0.0,
           "budget_s": None if math.isinf(budget_s) else budget_s, "costs": "design" if costs is not None else "recorded",
           "stopped": "", "futility": bool(futility)}
    fut_from = _futility_from(futility)
    if fut_from:
        out["futility_from_look"] = fut_from
    margins = dict(getattr(exp, "margins", {}) or {})
    open_ids: list = []
    last, final_claims = {}, {}
    for k in range(design.K):
        final = k == design.K - 1
        if k > 0:
            cells = sorted({c for cid in open_ids for c in exp.claim_cells(cid, state)}, key=repr)
            reps = list(exp.new_reps(state, design.schedule[k]))
            fixed = costs is not None and all(repr(c) in costs for c in cells)
            per_run = [float(costs[repr(c)]) if fixed else float(exp.cost_s(c, state)) for c in cells]
            est = float(sum(per_run)) * len(reps)
            stage = {"look": k + 1, "n": design.schedule[k], "cells": [repr(c) for c in cells], "reps": reps,
                     "estimated_s": est, "cost": "design" if fixed else "recorded", "claims": list(open_ids)}
            if out["spent_s"] + est > budget_s:
                stage["refused"] = f"estimated {est:.0f} s would exceed the budget ({budget_s:.0f} s, {out['spent_s']:.0f} s spent)"
                out["stages"].append(stage)
                out["stopped"] = "budget"
                break
            tasks = exp.tasks(cells, reps, state)
            t0 = time.time()
            keeps = hasattr(exp, "rows_of") and hasattr(exp, "add_rows")
            kept, entry = _stored_rows(folder, k + 1, stage["cells"], reps) if keeps else (None, None)
            if kept is not None:  # this look's runs, kept in the folder by an earlier pass
                state = exp.add_rows(state, kept)
                rec, failed = float(entry["recorded_s"]), int(entry["failed"])
                stage.update(runs=len(tasks), cached=0, computed=0, stored=len(tasks), recorded_s=rec,
                             wall_s=time.time() - t0, failed=failed)
            else:
                results, stats = sweep(tasks, exp.seed(state), n_jobs=n_jobs, backend=backend, cache_dir=cache_dir,
                                       progress=progress, desc=f"{exp.name} look {k + 1}", fn=exp.fn,
                                       scheduler=scheduler)
                rec = float(sum(recorded_time(r.get("meta")) or 0.0 for r in results))  # CPU s where recorded
                failed = sum(1 for r in results if (r.get("meta") or {}).get("failed"))  # diverged runs: counted
                if keeps:
                    rows = exp.rows_of(state, tasks, results)
                    state = exp.add_rows(state, rows)
                    if write:
                        _store_rows(folder, k + 1, stage["cells"], reps, rows, rec, failed)
                else:
                    state = exp.add_results(state, tasks, results)
                stage.update(runs=len(tasks), cached=stats.cached, computed=stats.computed, recorded_s=rec,
                             recorded="cpu_time" if all((r.get("meta") or {}).get("cpu_time") is not None
                                                        or (r.get("meta") or {}).get("failed") for r in results)
                             else "wall_time", wall_s=time.time() - t0, failed=failed)
            out["stages"].append(stage)
            out["cpu_s"] += rec
            out["spent_s"] += est if fixed else rec
        level = design.level(k)
        with capture_comparisons() as got:
            built = {c.id: c for c in exp.claims(state, level)}
        if k == 0:
            for cid in got if only is None else [i for i in only if i in got or i in committed]:
                ok, why = covered(got.get(cid), level)
                if ok:
                    open_ids.append(cid)
                else:
                    out["not_covered"][cid] = why
        for cid in list(open_ids):
            c = got[cid]
            last[cid] = (c, k)
            final_claims[cid] = built.get(cid)
            status, words = decide_comparison(c, margins.get(cid), final)
            if status != "CONTINUE":
                out["claims"][cid] = _claim_row(c, k, design, status, words, committed.get(cid))
                out["claims"][cid]["margin"] = margins.get(cid)
                open_ids.remove(cid)
            elif fut_from and k + 1 >= fut_from and not final:
                why = _futile(c, design.schedule[-1])
                if why:
                    out["claims"][cid] = _claim_row(c, k, design, "INCONCLUSIVE", "", committed.get(cid))
                    out["claims"][cid].update(margin=margins.get(cid), stopped="futility", futility=why)
                    open_ids.remove(cid)
        if not open_ids:
            break
    for cid in open_ids:  # stopped by the budget before the last look
        c, k = last[cid]
        out["claims"][cid] = _claim_row(c, k, design, "INCONCLUSIVE", "", committed.get(cid))
        out["claims"][cid].update(margin=margins.get(cid), stopped="budget")
    if write:
        sj.write_text(json.dumps(_json_safe(out), indent=1, allow_nan=False) + "\n")
        if cj.exists():
            _rewrite_claims(cj, out, final_claims)
    return out


def _futility_from(futility) -> int:
    """The first look (1-based) at which the futility stop may act: 0 (never) for ``False``/``None``/0, 1 for
    ``True``, ``k`` for an integer ``k ≥ 1``."""
    if futility is None or futility is False:
        return 0
    if futility is True:
        return 1
    k = int(futility)
    if k < 0 or k != futility:
        raise ValueError(f"futility: False, True or a look number >= 1, not {futility!r}")
    return k


#: The sub-folder of a stepped folder that keeps the runs the step added (hooks with ``rows_of``/``add_rows``):
#: ``<table>.csv`` per table of the hooks, each row with its ``look``, and ``manifest.json`` (per look: the cells,
#: the run indices, the rows per table, the recorded seconds and the failed runs). The folder's files then hold
#: every run a claim was decided on, and a later pass (``make decide``, a notebook's step) takes a look's runs from
#: here when its cells and run indices are the same, whether or not the run cache still has them. A notebook's
#: own pass (``fresh``: its runs were just rewritten) starts it anew. A sub-folder, so that ``figures/TIMES.md``
#: counts these runs once (from ``sequential.json``), not as another run table.
STORED = "sequential_runs"


def _stored_manifest(folder: Path) -> dict:
    f = folder / STORED / "manifest.json"
    return json.loads(f.read_text()) if f.exists() else {"looks": {}}


def _stored_rows(folder: Path, look: int, cells: list, reps: list):
    """The stored rows of ``look`` (``{table: DataFrame}`` without the ``look`` column) when the manifest has that
    look with the same cells and run indices, with its manifest entry; else ``(None, None)``."""
    import pandas as pd

    entry = _stored_manifest(folder)["looks"].get(str(look))
    if not entry or entry.get("cells") != cells or [int(r) for r in entry.get("reps", [])] != [int(r) for r in reps]:
        return None, None
    out = {}
    for table, n in entry.get("tables", {}).items():
        f = folder / STORED / f"{table}.csv"
        if int(n) == 0:  # a table the look added no row to (no file when no look did)
            continue
        if not f.exists():
            return None, None
        df = pd.read_csv(f)
        df = df[df["look"] == look].drop(columns=["look"]).reset_index(drop=True)
        if len(df) != int(n):
            return None, None
        out[table] = df
    return out, entry


def _store_rows(folder: Path, look: int, cells: list, reps: list, tables: dict, recorded_s: float,
                failed: int) -> None:
    """Keep ``look``'s rows (and drop any stored look from ``look`` on, which they replace)."""
    import pandas as pd

    d = folder / STORED
    d.mkdir(exist_ok=True)
    man = _stored_manifest(folder)
    man["looks"] = {k: v for k, v in man["looks"].items() if int(k) < look}
    for table in set(tables) | {t for v in man["looks"].values() for t in v.get("tables", {})}:
        f = d / f"{table}.csv"
        old = pd.read_csv(f) if f.exists() else None
        if old is not None:
            old = old[old["look"] < look]
        new = tables.get(table)
        parts = [x for x in (old, None if new is None else new.assign(look=look)) if x is not None and len(x)]
        if parts:
            pd.concat(parts, ignore_index=True).to_csv(f, index=False)
        elif f.exists():
            f.unlink()
    man["looks"][str(look)] = {"cells": cells, "reps": [int(r) for r in reps],
                               "tables": {t: int(len(v)) for t, v in tables.items() if len(v)},
                               "recorded_s": float(recorded_s), "failed": int(failed)}
    (d / "manifest.json").write_text(json.dumps(man, indent=1) + "\n")


def _clear_stored(folder: Path) -> None:
    d = folder / STORED
    if d.exists():
        for f in d.iterdir():
            f.unlink()
        d.rmdir()


def stored_state(exp, folder, upto_look: int | None = None):
    """The hooks' state of ``folder`` with the step's stored runs (:data:`STORED`) added, look by look up to
    ``upto_look`` (default: all): the runs the claims of ``sequential.json`` were decided on, from the folder's
    files alone. Requires hooks with ``add_rows``."""
    import pandas as pd

    folder = Path(folder)
    state = exp.load(folder)
    looks = _stored_manifest(folder)["looks"]
    names = {t for v in looks.values() for t, n in v.get("tables", {}).items() if int(n)}
    kept = {t: pd.read_csv(folder / STORED / f"{t}.csv") for t in names}
    for k in sorted(int(k) for k in looks):
        if upto_look is not None and k > upto_look:
            break
        state = exp.add_rows(state, {t: kept[t][kept[t]["look"] == k].drop(columns=["look"]).reset_index(drop=True)
                                     for t, n in looks[str(k)].get("tables", {}).items() if int(n)})
    return state


def _shown_path(folder: Path) -> str:
    """``folder`` as ``sequential.json`` records it: relative to the repository when inside it (a notebook passes its
    absolute output folder), so that the committed file names no machine's paths."""
    root = Path(__file__).resolve().parent.parent
    try:
        return Path(folder).resolve().relative_to(root).as_posix()
    except ValueError:
        return str(folder)


def _futile(c, n_last: int) -> str:
    """Why an open claim is stopped for futility (``""``: it is not): its runs to decide at
    :data:`FUTILITY_POWER` (:func:`bandits.claims.runs_to_decide`, its observed effect and spread taken as the truth)
    exceed ``n_last``, or it lies on its threshold (a tie). A claim whose runs cannot be read off continues."""
    from .claims import runs_to_decide

    leans, n = runs_to_decide(c, FUTILITY_POWER, n_last)
    if leans == "tie":
        return "a tie at its threshold: no number of runs decides it"
    if leans in ("PASS", "FAIL") and n is None:
        return (f"at the observed effect and spread more than {n_last} runs (the schedule's last look) would be "
                f"needed to decide it ({leans.lower()}ing side, {FUTILITY_POWER:.0%} power)")
    return ""


def _rewrite_claims(path: Path, out: dict, final_claims: dict) -> None:
    """``claims.json`` with each claim the rule decided replaced by the claim its experiment built at the deciding
    look (its interval at that look's level), its note saying so; the other claims, and the file's extra keys
    (paper, figure, mode), as they were. A claim settled within its margin keeps the verdict INCONCLUSIVE, the note
    says "settled: no difference beyond m" (``sequential.json``: verdict ``WITHIN``)."""
    from dataclasses import replace

    from .experiments.claims import write_claims

    old = json.loads(path.read_text())
    sch = ", ".join(str(L["n"]) for L in out["design"]["looks"])
    claims = []
    for d in old["claims"]:
        r, c = out["claims"].get(d["id"]), final_claims.get(d["id"])
        if r is None or c is None:
            claims.append(_claim_from_json(d))
            continue
        what = {"WITHIN": f"settled: {r['within']}", "INCONCLUSIVE": "INCONCLUSIVE"}.get(r["verdict"], r["verdict"])
        if r.get("stopped") == "futility":
            what += f" (stopped for futility: {r['futility']})"
        elif r.get("stopped"):
            what += " (the CPU budget stopped the step)"
        note = (f"sequential rule: {what} at n = {r['decided_at_n']} runs (look {r['look']} of n = {sch}; "
                f"{out['design']['spending']} spending, 2.5 % one-sided per direction; fixed-size verdict at "
                f"n = {out['design']['looks'][0]['n']}: {r['committed_verdict']}; sequential.json)")
        claims.append(replace(c, note=f"{c.note}; {note}" if c.note else note, passed=None))
    write_claims(claims, path.parent, extra={k: v for k, v in old.items()
                                            if k not in ("claims", "summary", "summary_by_kind")})


def _claim_from_json(d: dict):
    """A :class:`~bandits.experiments.claims.Claim` from its entry in ``claims.json`` (JSON's null for a NaN bound of
    the interval read back as NaN)."""
    from .experiments.claims import Claim

    d = dict(d)
    if d.get("interval") is not None:
        d["interval"] = [math.nan if v is None else v for v in d["interval"]]
    return Claim(**d)


def read_claims(path) -> list:
    """The claims of a ``claims.json`` (a folder or the file), as :class:`~bandits.experiments.claims.Claim` objects:
    what a notebook prints after the step rewrote the file."""
    path = Path(path)
    if path.is_dir():
        path = path / "claims.json"
    return [_claim_from_json(d) for d in json.loads(path.read_text())["claims"]]


def _json_safe(x):
    if isinstance(x, dict):
        return {str(k): _json_safe(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_json_safe(v) for v in x]
    if isinstance(x, (float, np.floating)):
        return float(x) if math.isfinite(x) else None
    if isinstance(x, np.integer):
        return int(x)
    return x


# ------------------------------------------------------------------------------ the step by name (make decide, notebooks)
def default_schedule(n0: int) -> tuple:
    """The schedule ``"auto"``: looks after ``n0, 2 n0, 4 n0, 8 n0`` runs, ``n0`` the committed runs."""
    return (n0, 2 * n0, 4 * n0, 8 * n0)


def _parse_schedule(v):
    if v is None or (isinstance(v, str) and v.strip() == "auto"):
        return None if v is None else "auto"
    if isinstance(v, str):
        try:
            return tuple(int(x) for x in v.replace(" ", "").split(",") if x != "")
        except ValueError:
            return v
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return (int(v),)
    if isinstance(v, (list, tuple)) and all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in v):
        return tuple(int(x) for x in v)
    return v


def check_step(schedule, budget_s=None, spending: str = "obf", prefix: str = "") -> tuple:
    """The sequential step's own arguments, checked before any work, in one place for the command line (``make
    decide``) and the notebooks (their ``decide_*`` parameters; ``prefix="decide_"`` names them so):

    * ``schedule``: ``None`` (no step), ``"auto"`` (:func:`default_schedule`), or the looks' run counts, increasing,
      the first at least 3 (a string ``"5,10,20,40"``, a list or a tuple); that the first is the folder's committed
      run count is checked by :func:`step` once the folder is read;
    * ``budget_s``: ``None`` (no limit) or CPU seconds ≥ 0 (the runs' recorded times);
    * ``spending``: one of :data:`SPENDING`.

    Returns ``(schedule, budget_s, spending)``: the schedule ``None``, ``"auto"`` or a tuple of ints, the budget a
    float (``inf`` for ``None``)."""
    sch = _parse_schedule(schedule)
    check(prefix + "schedule", schedule, rule(  # the value as given in the message, the parsed one tested
        lambda _: sch is None or sch == "auto" or (isinstance(sch, tuple) and len(sch) >= 1 and sch[0] >= 3
                                                   and all(a < b for a, b in zip(sch, sch[1:]))),
        "None (no sequential step), 'auto' (n0, 2 n0, 4 n0, 8 n0) or increasing run counts such as '5,10,20,40', "
        "the first the folder's committed run count (>= 3)"))
    check(prefix + "budget_s", budget_s, optional(real(ge=0)), note="CPU seconds of the added runs; None: no limit")
    check(prefix + "spending", spending, one_of(*SPENDING))
    return sch, (math.inf if budget_s is None else float(budget_s)), spending


def step(name, folder, schedule="auto", budget_s=None, spending: str = "obf", *, cache_dir=None, n_jobs: int = 1,
         backend: str = "loky", scheduler: str | None = None, progress: bool = True, write: bool = True,
         fresh: bool = False, prefix: str = "", futility: bool | int = False) -> dict:
    """The sequential step on one folder, as ``make decide`` (:func:`main`) and a notebook's ``decide_*``
    parameters (:func:`bandits.experiments.notebook.run_sequential`) run it: the arguments checked
    (:func:`check_step`), the hooks of ``name`` (a name of :data:`HOOKS`, or a hooks object) loaded on ``folder``,
    the schedule's first look checked against the runs each claim is tested on now (before any run is added),
    then :func:`decide` with the design ``Design(schedule, kind=spending)``, and, when this is the committed
    step of a full-mode folder (:func:`committed_design`), that step's fixed costs (:func:`design_costs`).
    Returns :func:`decide`'s dict."""
    sch, budget, spending = check_step(schedule, budget_s, spending, prefix)
    check(prefix + "schedule", schedule, rule(lambda _: sch is not None, "'auto' or run counts (None runs no step)"))
    exp = hooks_for(name) if isinstance(name, str) else name
    folder = Path(folder)
    state = exp.load(folder)
    n0 = exp.n_runs(state)
    if sch == "auto":
        sch = default_schedule(n0)
    check(prefix + "schedule", schedule, rule(lambda _: sch[0] == n0, f"run counts starting at {n0}, the runs each "
                                                                     f"claim in {folder} is tested on now (or 'auto')"))
    costs = design_costs(name) if isinstance(name, str) and committed_design(name, folder, sch, spending, budget,
                                                                             futility) else None
    return decide(exp, folder, Design(sch, kind=spending), budget_s=budget, cache_dir=cache_dir, n_jobs=n_jobs,
                  backend=backend, scheduler=scheduler, progress=progress, write=write, state=state, fresh=fresh,
                  futility=futility, costs=costs)


def summary(out: dict) -> str:
    """One line per claim: verdict, decided at n runs, the committed verdict, and the schedule."""
    sch = ", ".join(str(L["n"]) for L in out["design"]["looks"])
    lines = [f"{out['experiment']}: schedule n = {sch} ({out['design']['spending']} spending, "
             f"{100 * out['design']['alpha_one_sided']:g} % one-sided per direction); CPU {out['cpu_s']:.0f} s recorded"
             + (f"; budget {out.get('spent_s', out['cpu_s']):.0f} of {out['budget_s']:.0f} s"
                + (" (the design's costs)" if out.get("costs") == "design" else "") if out["budget_s"] is not None else "")
             + (f"; stopped: {out['stopped']}" if out["stopped"] else "")]
    for cid, r in out["claims"].items():
        v = r["verdict"] if r["verdict"] != WITHIN else f"SETTLED: {r['within']}"
        lines.append(f"  {cid}: {v}, decided at n = {r['decided_at_n']} runs (look {r['look']}; committed: "
                     f"{r['committed_verdict']})" + (f" [{r['stopped']}]" if r.get("stopped") else ""))
    for cid, why in out["not_covered"].items():
        lines.append(f"  {cid}: not covered by the rule ({why})")
    failed = sum(int(s.get("failed") or 0) for s in out["stages"])
    if failed:
        lines.append(f"  {failed} of the added runs failed (diverged; how a failed run counts is the experiment's claims' rule)")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ command line
#: folder name → the module:class of its hooks (an experiment with INCONCLUSIVE claims adds a line here)
HOOKS = {"duets": "bandits.experiments.duets_sequential:DuetsSequential",
         "fn_ucb": "bandits.experiments.fn_ucb_sequential:FNUCBSequential",
         "async_kernelucb": "bandits.experiments.async_kernelucb_sequential:AsyncKernelUCBSequential",
         "coop_kernelucb": "bandits.experiments.coop_kernelucb_sequential:CoopKernelUCBSequential",
         "arena": "bandits.experiments.arena_sequential:ArenaSequential",
         "async_theory": "bandits.experiments.async_theory_sequential:AsyncTheorySequential",
         "coop_theory": "bandits.experiments.coop_theory_sequential:CoopTheorySequential",
         "fn_ucb_theory": "bandits.experiments.fn_ucb_theory_sequential:FNUCBTheorySequential"}


#: The designs of the committed full-mode folders' sequential steps, each fixed before its step's runs:
#: folder → (schedule, spending, budget in seconds[, the look from which the optional futility stop acts
#: (:func:`decide`'s ``futility``), where the step used it]). ``make figures`` passes them to the notebooks'
#: ``decide_*`` parameters (:func:`papermill_args`), so a full-mode run ends with the same step: its added runs
#: come from the run cache, or are computed again. A stage is estimated, and the budget charged, at each
#: cell's cost per run fixed with the design (:data:`COSTS_FILE`), not at the re-run's own timings, so the
#: looks a re-run takes depend on its runs' outcomes only, whatever the machine. The budgets are in those
#: units; FN-UCB's was restated from 24 000 CPU-s (charged at the runs' recorded seconds, as the steps were
#: then) to 31 000 when the costs were fixed (why, and the looks its committed step takes under it:
#: docs/statistics.md, "The committed budgets"); every other committed step takes and refuses the same
#: looks under the table at its old budget (``python -m bandits.sequential costs``). Every verdict stays calibrated whatever the
#: budget (stopping for the budget only loses power).
FULL_MODE_DESIGNS = {
    "duets": ((5, 10, 20, 40), "obf", 1800.0),
    "async_theory": ((3, 6, 12, 24), "obf", 400.0),
    "fn_ucb": ((3, 6, 12, 24), "pocock", 31000.0, 2),
    "fn_ucb_theory": ((3, 6, 12, 24), "pocock", 2400.0),
    "coop_kernelucb": ((10, 20, 40, 80), "pocock", 0.0),
    "coop_theory": ((10, 20, 40, 80), "pocock", 300.0),
    "async_kernelucb": ((10, 20, 40, 80), "pocock", 5500.0),
    "arena": ((5, 10, 20, 40), "pocock", 2000.0),
}


def papermill_args(name: str) -> list[str]:
    """The papermill options that give notebook ``name`` its full-mode sequential step
    (:data:`FULL_MODE_DESIGNS`); none for a notebook without one."""
    if name not in FULL_MODE_DESIGNS:
        return []
    sch, kind, budget, *rest = FULL_MODE_DESIGNS[name]
    fut = ["-p", "decide_futility", str(int(rest[0]))] if rest and rest[0] else []
    return ["-p", "decide_schedule", ",".join(map(str, sch)), "-p", "decide_spending", kind,
            "-p", "decide_budget_s", f"{budget:g}"] + fut


#: The cost table of the committed steps (:data:`FULL_MODE_DESIGNS`): folder → ``{"costs": {repr(cell): seconds
#: per run}, "built": ...}``, each cell's mean recorded seconds per run in the committed folder (the hooks'
#: ``cost_s``) when the table was built, for every cell a stage of the step can ask for (the cells behind the
#: claims at look 1, and every cell of the folder's runs table where the hooks list them, ``grid_cells``: the
#: arena's claims compare points that move with the means). Part of the design: rebuilt (``python -m bandits.sequential costs --write``)
#: only with a design change, stated before that step's runs, as a budget is.
COSTS_FILE = Path(__file__).with_name("step_costs.json")


def design_costs(name: str) -> dict | None:
    """``repr(cell)`` → seconds per run of the committed step of ``figures/<name>`` (:data:`COSTS_FILE`), or None
    when the table has none for it."""
    if not COSTS_FILE.exists():
        return None
    got = json.loads(COSTS_FILE.read_text(encoding="utf-8")).get(name)
    return dict(got["costs"]) if got else None


def committed_design(name: str, folder, schedule, spending: str, budget_s: float, futility=0) -> bool:
    """Whether a step on ``folder`` with these arguments is ``name``'s committed step (:data:`FULL_MODE_DESIGNS`:
    the same schedule, spending, budget and futility look) on a full-mode folder (``provenance.json``), the step
    whose stages :func:`step` estimates and charges at :func:`design_costs`."""
    if name not in FULL_MODE_DESIGNS:
        return False
    sch, kind, budget, *rest = FULL_MODE_DESIGNS[name]
    same = (tuple(int(n) for n in schedule) == tuple(sch) and spending == kind and float(budget_s) == float(budget)
            and _futility_from(futility) == (int(rest[0]) if rest and rest[0] else 0))
    prov = Path(folder) / "provenance.json"
    return same and prov.exists() and json.loads(prov.read_text()).get("mode") == "full"


def freeze_costs(name: str, folder, exp=None) -> dict:
    """The cost table entry of ``name``'s committed step, measured on ``folder`` (its committed runs): ``repr(cell)``
    → the hooks' ``cost_s`` at look 1, for the cells behind every covered claim at look 1 and every cell the hooks
    list (``grid_cells``, where they have it). A cell the table lacks makes its stage fall back to the recorded
    times (:func:`decide`); :func:`replay_budget` shows it (NaN), and a test fails on it for every committed step."""
    exp = hooks_for(name) if exp is None else exp
    folder = Path(folder)
    state = exp.load(folder)
    sch, kind = FULL_MODE_DESIGNS[name][:2]
    level = Design(sch, kind=kind).level(0)
    with capture_comparisons() as got:
        exp.claims(state, level)
    cells = {repr(c): c for cid in got if covered(got[cid], level)[0] for c in exp.claim_cells(cid, state)}
    if hasattr(exp, "grid_cells"):
        cells.update({repr(c): c for c in exp.grid_cells(state)})
    return {k: float(exp.cost_s(c, state)) for k, c in sorted(cells.items())}


def replay_budget(name: str, folder, costs: dict | None = None) -> list[dict]:
    """The committed step of ``folder`` (``sequential.json``) replayed on the cost table (``costs``, default
    :func:`design_costs`) under its design's budget: per committed stage, its cells' cost under the table
    (``estimated_s``; NaN when the table lacks a cell), the budget charged before it, whether the replay takes
    it, and whether the committed step took it. A table that keeps the committed decisions has ``takes ==
    took`` on every stage."""
    costs = design_costs(name) if costs is None else costs
    budget = FULL_MODE_DESIGNS[name][2]
    spent, rows = 0.0, []
    for st in json.loads((Path(folder) / "sequential.json").read_text())["stages"]:
        est = float(sum(costs.get(c, math.nan) for c in st["cells"])) * len(st["reps"])
        takes = bool(spent + est <= budget)
        rows.append({"look": st["look"], "n": st["n"], "cells": len(st["cells"]), "estimated_s": est,
                     "spent_before_s": spent, "budget_s": budget, "takes": takes, "took": "refused" not in st,
                     "committed_estimate_s": st["estimated_s"]})
        if not takes:
            break
        spent += est
    return rows


def used_schedules() -> tuple:
    """The schedules the committed steps use (:data:`FULL_MODE_DESIGNS`), with the default's at n₀ = 3 and 5:
    the schedules the calibration is simulated at (tests/test_claims_calibration.py, docs/statistics.md)."""
    return tuple(sorted({d[0] for d in FULL_MODE_DESIGNS.values()} | {default_schedule(3), default_schedule(5)}))


def hooks_for(name: str):
    """The :class:`SequentialExperiment` hooks registered for ``figures/<name>``."""
    from importlib import import_module

    check("name", name, one_of(*HOOKS))
    mod, cls = HOOKS[name].split(":")
    return getattr(import_module(mod), cls)()


def tables(n_sims: int = 100_000) -> str:
    """The markdown tables of docs/statistics.md's sequential section (boundaries, calibration, power)."""
    designs = [Design(s, kind=k) for s in used_schedules() for k in SPENDING]
    parts = []
    for des in designs:
        parts.append(f"Boundaries, schedule {', '.join(map(str, des.schedule))}, {des.kind} spending "
                     f"(λ = {t_adjustment(des.schedule, des.alpha, des.kind):.4f}):\n\n" + boundary_table(des))
    parts.append(f"False PASS / false FAIL across all looks, effect at the threshold ({n_sims} sequences per row, "
                 "seed 0):\n\n" + calibration_table(designs, n_sims))
    for des in designs:
        parts.append(f"Power (cumulative PASS by look, %), schedule {', '.join(map(str, des.schedule))}, {des.kind} "
                     "spending, normal d, 20 000 sequences:\n\n" + power_table_md(des))
    des = Design((5, 10, 20, 40))
    parts.append("Within-margin stop, margin m = 0.5 s.d., schedule 5, 10, 20, 40, obf (100 000 sequences):\n\n"
                 + equivalence_table(des, 0.5, n_sims))
    parts.append(f"The optional futility stop ({FUTILITY_POWER:.0%} power at the last look, non-binding) against none, "
                 "Pocock spending, normal d, the same 20 000 sequences per row (seed 3):\n\n"
                 + futility_table([Design(s, kind="pocock") for s in used_schedules()]))
    return "\n\n".join(parts)


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m bandits.sequential", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("tables", help="print the boundary, calibration and power tables (docs/statistics.md)")
    t.add_argument("--n-sims", type=int, default=100_000)
    pa = sub.add_parser("papermill-args", help="the papermill options of a notebook's full-mode sequential step "
                        "(make figures; nothing for a notebook without one)")
    pa.add_argument("name")
    d = sub.add_parser("decide", help="the sequential step on a committed folder figures/<name>/")
    d.add_argument("names", nargs="+", help=f"folders with hooks: {', '.join(HOOKS)}")
    d.add_argument("--figures", default="figures")
    d.add_argument("--schedule", default="auto", help="run counts, e.g. 5,10,20,40, the first the folder's committed "
                   "run count (default 'auto': n0, 2 n0, 4 n0, 8 n0)")
    d.add_argument("--spending", default="obf", choices=SPENDING)
    d.add_argument("--budget-s", type=float, default=math.inf, help="CPU seconds; a committed design's step (FULL_MODE_DESIGNS) estimates and charges its stages at its fixed costs (step_costs.json), any other at the runs' recorded times")
    d.add_argument("--cache-dir", default=None, help="default: $BANDITS_CACHE_DIR or cache/ (the notebooks' cache)")
    d.add_argument("--n-jobs", type=int, default=1)
    d.add_argument("--backend", default="loky")
    d.add_argument("--scheduler", default=None)
    d.add_argument("--dry-run", action="store_true", help="do not write sequential.json")
    d.add_argument("--futility", nargs="?", type=int, const=1, default=0, metavar="LOOK",
                   help="stop, before the last look, a claim that more runs than the last look's would be needed to "
                   "decide (non-binding: no false PASS or FAIL added); from look 1, or from look LOOK on (the looks "
                   "before it as without the stop)")
    c = sub.add_parser("costs", help="the committed steps replayed on the cost table of their designs "
                       f"({COSTS_FILE.name}); --write rebuilds the table from figures/<name>/ (a design change)")
    c.add_argument("names", nargs="*", help=f"default: every committed step ({', '.join(FULL_MODE_DESIGNS)})")
    c.add_argument("--figures", default="figures")
    c.add_argument("--write", action="store_true")
    a = ap.parse_args(argv)
    if a.cmd == "costs":
        names = a.names or list(FULL_MODE_DESIGNS)
        for name in names:
            check("name", name, one_of(*FULL_MODE_DESIGNS))
        if a.write:
            import subprocess

            table = json.loads(COSTS_FILE.read_text()) if COSTS_FILE.exists() else {}
            rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
            for name in names:
                table[name] = {"built": f"figures/{name} at commit {rev or '?'}",
                               "costs": freeze_costs(name, Path(a.figures) / name)}
            COSTS_FILE.write_text(json.dumps(dict(sorted(table.items())), indent=1) + "\n")
        for name in names:
            print(f"{name} (budget {FULL_MODE_DESIGNS[name][2]:g} s):")
            for r in replay_budget(name, Path(a.figures) / name):
                print(f"  look {r['look']} (n = {r['n']}, {r['cells']} cells): {r['estimated_s']:.0f} s after "
                      f"{r['spent_before_s']:.0f} s: {'taken' if r['takes'] else 'refused'}; committed "
                      f"{'taken' if r['took'] else 'refused'} (estimated then {r['committed_estimate_s']:.0f} s)"
                      + ("" if r["takes"] == r["took"] else "  << differs"))
        return 0
    if a.cmd == "tables":
        print(tables(a.n_sims))
        return 0
    if a.cmd == "papermill-args":
        print(" ".join(papermill_args(a.name)))
        return 0
    if a.cache_dir is None:
        from .experiments.notebook import default_cache_dir

        a.cache_dir = default_cache_dir()
    from .validation import ParameterError

    try:  # every folder's arguments before any folder's work
        check_step(a.schedule or "auto", a.budget_s, a.spending)
        for name in a.names:
            check("name", name, one_of(*HOOKS))
    except ParameterError as e:
        ap.error(str(e))
    for name in a.names:
        out = step(name, Path(a.figures) / name, a.schedule or "auto", a.budget_s, a.spending, cache_dir=a.cache_dir,
                   n_jobs=a.n_jobs, backend=a.backend, scheduler=a.scheduler, progress=True, write=not a.dry_run,
                   futility=a.futility)
        print(summary(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
