"""DUETS theory checks E1–E8: the claims, decided on the runs and tables of :mod:`bandits.experiments.duets_theory`
(the thresholds are in that module's docstring).

Left out of the run cache's code fingerprint (:func:`bandits.runner.in_runs`): a claim's text, threshold or
statistic changes without recomputing a run (docs/adding_a_paper.md §4).
"""
from __future__ import annotations

import numpy as np

from ..claims import level_text
from .claims import Claim
from .common import fmt, loglog_slope
from .duets_theory import DELTA

__all__ = ["theory_claims", "e8_claim"]


def e8_claim(e8, level: float = 0.95, alpha: float = 0.05) -> Claim:
    """E8(b): the two-sample KS test of the module docstring (PASS iff p > ``alpha``)."""
    from scipy.stats import ks_2samp

    from ..claims import compare_unpaired

    a = e8[e8.method == "DUETS"].R_T.to_numpy(float)
    b = e8[e8.method == "CentralizedUniformElimination"].R_T.to_numpy(float)
    ks = ks_2samp(a, b)
    ka = ks_2samp(e8[e8.method == "DUETS"].final_active, e8[e8.method == "CentralizedUniformElimination"].final_active)
    r = compare_unpaired(a, b, "<", 0.0, label="mean R_T DUETS − centralised", level=level)
    n0 = int(e8["N"].iloc[0])
    return Claim(
        "E8-superposition",
        "the union of the local sets of size t query points obtained at the agents through uniform sampling is "
        "identical (in distribution) to the set of size Nt query points obtained at a centralized decision maker "
        "using the same uniform sampling strategy",
        f"N = {n0}, T = {int(e8['T'].iloc[0])}: regret of DUETS vs a centralised uniform-elimination learner drawing "
        f"N·T_j points per epoch from one stream, {len(a)} + {len(b)} independent runs; two-sample KS test, PASS iff "
        f"p > {alpha:g} (weak by construction: equal in distribution by design, so only an implementation fault can "
        "fail it, and non-rejection is not proof of equality)",
        f"KS D = {fmt(ks.statistic)}, p = {fmt(ks.pvalue)}; mean R_T {fmt(a.mean(), 3)} vs {fmt(b.mean(), 3)}; "
        f"final |X_J| KS p = {fmt(ka.pvalue)}",
        verdict="PASS" if ks.pvalue > alpha else "FAIL", effect=r.effect, interval=(r.lo, r.hi), level=level,
        method="Welch t (unpaired) of the mean difference", detail=[r.text()],
        kind="implementation", quote="paraphrase", source="§1.2",
        cause="open", cause_note="equal in distribution by construction: a FAIL points at an implementation fault")


def theory_claims(runs, epochs, e3, e4, e6, level: float = 0.95, e8=None, method: str | None = None) -> list[Claim]:
    """The E1–E7 claims (and E8(b) when ``e8``, :func:`run_e8`'s table, is given) with the thresholds
    of the module docstring. Slopes are the least-squares slopes of the mean over runs, decided by
    their OLS Student interval on m − 2 degrees of freedom (:func:`bandits.claims.slope_check`,
    ``rule="interval"``: a slope passes "<= bound" only when its whole interval lies
    below the bound); the per-agent comparison E1 is paired over runs
    (:func:`bandits.claims.compare_paired`, ``method=None``: Student t). The theorems and lemmas
    are stated in mathematical notation, so the claims paraphrase them (quote="paraphrase") with
    their source; E4, E5 and E8 are implementation checks (E4 met by construction at the
    theoretical p_0, E5's bound more than 10× above every observed |S_j|, E8 equal in distribution
    by design)."""
    from ..claims import compare_paired, method_label, slope_check

    claims = []
    b1 = runs[(runs.beta_kind == "beta=1") & runs.series.isin(["T", "N"])]
    mT = b1[b1.series == "T"].groupby("NT")[["R_T", "C_paper", "sum_S"]].mean()
    mN = b1[b1.series == "N"].groupby("N")[["R_T", "C_paper", "sum_S", "NT"]].mean()
    q1 = "R_DUETS = Õ(√(N T γ_NT) · log(T/δ))  (Theorem 4.1)"
    kw = dict(level=level)
    se_txt = f"; decided by the slope's {level_text(level)} OLS interval (Student t on m − 2 d.o.f.): PASS iff it lies below"

    def slope_claim(cid, quote, check, x, y, bound, extra="", source="Theorem 4.1", cause="open", cause_note=""):
        r = slope_check(x, y, "<=", bound, label="log-log slope", **kw)
        claims.append(Claim.from_result(cid, quote, check + se_txt, r,
                                        value=f"slope {fmt(r.effect)} (SE {fmt(r.se)})" + extra,
                                        quote="paraphrase", source=source, cause=cause, cause_note=cause_note))
        return r

    slope_claim("E1-regret-slope-T", q1, "log-log slope of R vs NT (N fixed, T grows) <= 0.75", mT.index, mT.R_T, 0.75)
    slope_claim("E1-regret-slope-N", q1, "log-log slope of R vs NT (T fixed, N grows) <= 0.75", mN.NT, mN.R_T, 0.75)
    per_agent = mN.R_T / mN.index
    sN = b1[b1.series == "N"]
    n0, n1 = mN.index[0], mN.index[-1]
    a = sN[sN.N == n1].sort_values("rep")
    b = sN[sN.N == n0].sort_values("rep")
    r = compare_paired(a.R_T.to_numpy(float) / n1, b.R_T.to_numpy(float) / n0, "<", 0.0,
                       label=f"R/N at N={n1} − R/N at N={n0}", reps_a=a.rep.to_numpy(), reps_b=b.rep.to_numpy(),
                       method=method, diverged="worst", **kw)
    claims.append(Claim.from_result("E1-per-agent", "achieves the optimal regret order (as defined by centralized learning)",
                                    f"the package's reading: optimality implies R/N = Õ(√(Tγ_NT/N)), which falls as "
                                    f"agents join; per-agent regret R/N at the largest N is below R/N at N = 1 (paired "
                                    f"over runs, {level_text(level)} {method_label(method)} interval)",
                                    r, value=f"R/N: N={n0} {fmt(per_agent.iloc[0])}, N={n1} {fmt(per_agent.iloc[-1])}",
                                    quote="verbatim", source="Abstract"))
    allb = b1.groupby("NT")[["C_paper", "sum_S"]].mean()
    q2 = ("with a communication cost that is sublinear in both N and T [abstract]; "
          "C_DUETS = Õ(γ_NT) (Theorem 4.1)")
    slope_claim("E2-comm-slope-T", q2, "log-log slope of C (paper's unit) vs T, N fixed, <= 0.3", mT.index, mT.C_paper, 0.3)
    slope_claim("E2-comm-slope-N", q2, "log-log slope of C (paper's unit) vs N, T fixed, <= 0.3", mN.NT, mN.C_paper, 0.3)
    slope_claim("E2-inducing-slope", q2, "log-log slope of the total inducing-set size vs NT <= 0.3", allb.index,
                allb.sum_S, 0.3)
    g3 = e3.groupby("n")[["ratio", "sigma2_max"]].mean()
    slope_claim("E3-variance-decay", "sup_x σ²_j(x) ≤ C_{f,X} γ_{NT_j}/(N T_j)  (Lemma 4.3)",
                "n·σ²_max/γ̂_n has no upward trend: log-log slope vs n <= 0.1", g3.index, g3.ratio, 0.1,
                f"; σ²_max slope {fmt(loglog_slope(g3.index, g3.sigma2_max))}", source="Lemma 4.3")
    th = e4[e4.theory_p0]
    frac = float(th.frac_accurate.min())
    claims.append(Claim("E4-accuracy", "with p_0 = 72 log(4NT/δ') every 𝒮_j is 0.5-accurate w.p. 1 − δ  (Lemma A.3)",
                        f"fraction of 0.5-accurate inducing sets at the theoretical p_0 >= {1 - DELTA:g} for every n "
                        "(trivially met whenever that p_0 gives p_j = 1; the informative part is the curve over p_0)",
                        f"min fraction {fmt(frac)}", frac >= 1 - DELTA, kind="implementation", source="Lemma A.3",
                        cause="open", cause_note="met by construction whenever the theoretical p_0 gives p_j = 1"))
    if len(epochs):
        e = epochs[epochs.beta_kind == "beta=1"]
        frac5 = float(np.mean(e.s_unique <= e.S_bound))
        claims.append(Claim("E5-inducing-bound", "|𝒮_j| ≤ (3 + log(1/δ')) p_0 γ_NT  (Lemma 4.5, p_0 restored)",
                            "share of epochs with |S_j| <= (3 + log 1/δ') p0 γ̂_{NT_j} >= 0.95",
                            f"share {fmt(frac5, 3)}; largest |S_j|/bound "
                            f"{fmt(float(np.max(e.s_unique / e.S_bound)) if len(e) else float('nan'))}", frac5 >= 0.95,
                            kind="implementation", source="Lemma 4.5",
                            cause="approximation", cause_note="γ_NT estimated by γ̂ of the sampled points"))
    n_ok, n_all = int(e6.ok.sum()), len(e6)
    claims.append(Claim("E6-epochs", "the number of epochs is < log log max{N, T} + 4  (Lemma 4.4)",
                        "every cell of the T × N × T_1 grid (natural logs)",
                        f"{n_ok}/{n_all} cells; max epochs {int(e6.epochs.max())}", n_ok == n_all,
                        source="Lemma 4.4", cause="paper"))
    tb = runs[runs.beta_kind == "beta(delta')"]
    if len(tb):
        surv = float(tb.xstar_survived.mean())
        claims.append(Claim("E7-survival", "x* ∈ 𝒳_j for all j, w.p. ≥ 1 − δ  (Lemma 4.2, proof)",
                            f"share of runs with beta(δ') where the maximiser is never eliminated >= {1 - DELTA:g}",
                            f"share {fmt(surv, 3)} (beta=1: {fmt(float(b1.xstar_survived.mean()), 3)})",
                            surv >= 1 - DELTA, source="Lemma 4.2", cause="paper"))
    if e8 is not None and len(e8):
        claims.append(e8_claim(e8, level=level))
    return claims
