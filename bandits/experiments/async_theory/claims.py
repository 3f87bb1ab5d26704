"""The claims of the Async-KernelUCB theory checks (thresholds fixed in the package docstring
before the runs), from the result tables of :mod:`.runs`."""
from __future__ import annotations

import numpy as np

from ...claims import level_text
from ..async_kernelucb import MUCH_SMALLER
from ..claims import Claim
from ..common import fmt, loglog_slope
from .runs import ExtraResults, TheoryResults
from .setting import APPROX, ASYNC, INV_N2, NK, resolve_D


# ------------------------------------------------------------------------------ claims
def _pareto(df):
    """Rows of ``df`` (with C_T, R_T) not dominated (lower C and lower-or-equal R), sorted by C."""
    df = df.sort_values(["C_T", "R_T"])
    keep, best = [], np.inf
    for i, r in df.iterrows():
        if r.R_T < best:
            keep.append(i)
            best = r.R_T
    return df.loc[keep]


def c5_points(c5):
    """Mean (R_T, C_T, B, dict_size) per (method, q, D) over the runs."""
    key = ["method", "q", "D", "D_label"] + (["c"] if "c" in c5 else [])
    return c5.groupby(key, dropna=False)[["R_T", "C_T", "B", "dict_size"]].mean().reset_index()


def c5_matches(c5, tol: float = 1.2):
    """For every Approx point: the cheapest Async point (same q) with mean regret ≤ ``tol`` × its
    regret; ``ratio`` = that point's C_T / Approx's C_T (NaN when none qualifies)."""
    import pandas as pd

    pts = c5_points(c5)
    rows = []
    for r in pts[pts.method == APPROX].itertuples():
        cand = pts[(pts.method == ASYNC) & np.isclose(pts.q, r.q) & (pts.R_T <= tol * r.R_T)]
        if len(cand):
            best = cand.loc[cand.C_T.idxmin()]
            rows.append({"q": r.q, "approx_D": r.D, "approx_c": getattr(r, "c", np.nan), "approx_R": r.R_T,
                         "approx_C": r.C_T, "async_D": best.D, "async_D_label": best.D_label, "async_R": best.R_T,
                         "async_C": best.C_T, "ratio": best.C_T / r.C_T})
        else:
            rows.append({"q": r.q, "approx_D": r.D, "approx_c": getattr(r, "c", np.nan), "approx_R": r.R_T,
                         "approx_C": r.C_T, "async_D": np.nan, "async_D_label": "", "async_R": np.nan,
                         "async_C": np.nan, "ratio": np.nan})
    return pd.DataFrame(rows)


def c5_cause_note(c5, N: int) -> str:
    """C5's cause, from the runs: Approx-DisKernelUCB's threshold D (a setting the paper does not give)
    decides whether an Async point within 1.2× its regret is half as costly; the Approx points where
    none is, with their synchronisation counts against the matched Async point's exchanges."""
    mt = c5_matches(c5)
    pts = c5_points(c5)
    head = ("Approx-DisKernelUCB's threshold D (nor its trigger: here Eq. 4's "
            "variance sum, as in Figure 2; nor either method's q and D, nor this package's S5 environment, d = 5)")
    if not len(mt):
        return head
    good = mt[mt.ratio < MUCH_SMALLER]
    bad = mt[~(mt.ratio < MUCH_SMALLER)]

    def b(method, q, D):
        r = pts[(pts.method == method) & np.isclose(pts.q, q) & np.isclose(pts.D, D)]
        return fmt(float(r.B.mean())) if len(r) else "?"

    parts = [head]
    if len(good):
        parts.append(f"at {len(good)} of the {len(mt)} Approx points (D ≤ {fmt(good.approx_D.max())}) an Async point "
                     f"within 1.2× its regret costs {fmt(good.ratio.min())}–{fmt(good.ratio.max())}× Approx's")
    if len(bad):
        items = []
        for r in bad.itertuples():
            if np.isfinite(r.ratio):
                items.append(f"q = {fmt(r.q)}, D = {fmt(r.approx_D)}: {fmt(r.ratio)}× (Approx {b(APPROX, r.q, r.approx_D)} "
                             f"synchronisations of all N = {N} clients; Async at D = {r.async_D_label}: "
                             f"{b(ASYNC, r.q, r.async_D)} one-client exchanges)")
            else:
                items.append(f"q = {fmt(r.q)}, D = {fmt(r.approx_D)}: no Async point within 1.2× its regret")
        parts.append("but not at " + "; ".join(items))
    return ", ".join(parts[:2]) + ("; " + parts[2] if len(parts) > 2 else "")


def _by_rep(df, col: str, **filters):
    """``(values, reps)`` of column ``col`` over the rows matching ``filters`` (numbers compared with
    ``np.isclose``), sorted by run index: one value per run, for pairing runs across settings."""
    m = np.ones(len(df), dtype=bool)
    for k, v in filters.items():
        m &= np.isclose(df[k].to_numpy(float), float(v))
    x = df[m].sort_values("rep")
    return x[col].to_numpy(float), x["rep"].to_numpy()


#: Each claim's kind, quote, source and, for a verdict other than PASS, the cause given before the
#: runs. "implementation" where the check holds by construction or its bound is 10× or more from what is
#: observed (the committed full-mode values: C1 size 0.066 of the bound, C4 B 0.062, epochs 0.067, C_T 0.023;
#: C6 at D = 1/N² communicates at nearly every step, so B ≈ T whatever N; C2 at the theoretical q keeps every
#: point; C3 an identity of the merge; C9's α is ≈ 100× the width needed; C10 the protocols' definitions).
CLAIM_LABELS = {
    "C1-size-bound": dict(kind="implementation", source="Lemma 4.1"),
    "C1-grows-with-q": dict(source="Lemma 4.1"),
    "C1-expectation": dict(kind="implementation", source="Lemma A.8, Lemma 4.3"),
    "C4-B-decreasing": dict(source="Lemma D.1"),
    "C4-B-bound": dict(kind="implementation", source="Lemma D.1"),
    "C4-epoch-bound": dict(kind="implementation", source="Lemma D.1"),
    "C4-comm-decreasing": dict(source="Theorem 4.5"),
    "C4-comm-bound": dict(kind="implementation", source="Theorem 4.5"),
    "C5-tradeoff": dict(quote="verbatim", source="§5.2", cause="setting"),  # its note: c5_cause_note
    "C6-B-slope": dict(kind="implementation", source="Theorem 4.5"),
    "C6-regret-flat": dict(source="Theorem 4.5"),
    "C6-B-linear-D": dict(source="Lemma D.1"),
    "C7-sublinear": dict(source="Theorem 4.5"),
    "C7-vs-NKernelUCB": dict(source="§5.2"),
    "C2-eps-shrinks": dict(source="Lemma 4.1"),
    "C2-eps-accuracy": dict(kind="implementation", source="Lemma 4.1"),
    "C2-variance-fidelity": dict(kind="implementation", source="Lemma A.6"),
    "C3-merge-in-runs": dict(kind="implementation", source="Eq. 5"),
    "C8-staleness-bound": dict(source="Lemma C.1"),
    "C8-rises-with-D": dict(source="Lemma C.1"),
    "C9-coverage": dict(kind="implementation", source="Lemma 4.4"),
    "C10-participation": dict(kind="implementation", source="§1, §3.1"),
    "C10-async-regret-unchanged": dict(source="§1"),
}


def label_claims(claims: list[Claim]) -> list[Claim]:
    """``claims`` with :data:`CLAIM_LABELS` applied (matched by id, or by id prefix for the per-D ids)."""
    import dataclasses

    out = []
    for c in claims:
        lab = CLAIM_LABELS.get(c.id) or next((v for k, v in CLAIM_LABELS.items() if c.id.startswith(k)), {})
        lab = {"kind": "paper", "quote": "paraphrase", **lab}
        out.append(dataclasses.replace(c, **lab))
    return out


def theory_claims(res: TheoryResults, level: float = 0.95) -> list[Claim]:
    """The claims of the module docstring for the checks present in ``res`` (thresholds fixed there).

    Orderings between settings (C1 grows with q, C4 falls with D, C5's trade-off)
    are paired comparisons over the shared runs (run r of every setting has the same environment,
    schedule and noise streams) with ``level`` intervals (:mod:`bandits.claims`); slopes keep
    their point test and report the OLS standard error; the per-run bound checks are unchanged."""
    from ...claims import bonferroni_level, combine, compare_paired, compare_ratio, compare_slopes, slope_check

    claims: list[Claim] = []
    p = res.params
    how = f"paired over runs, {level_text(level)} interval"
    if res.c1 is not None and len(res.c1):
        c1 = res.c1
        ok = bool((c1.dict_size <= c1.size_bound).all())
        claims.append(Claim(
            "C1-size-bound", "|S_k| ≤ 12β(1+βD) q γ_T w.p. ≥ 1−δ  (Lemma 4.1)",
            "every run: |S_B| <= 12β(1+βD) q γ̂ (β = 3, γ̂ = ½ log det(I + K/λ) on the uploaded data)",
            f"max |S_B|/bound {fmt(float((c1.dict_size / c1.size_bound).max()))}; |S_B| {int(c1.dict_size.min())}"
            f"–{int(c1.dict_size.max())}", ok))
        g = c1.groupby(["D", "q"]).dict_size.mean()
        parts, cmp = [], []
        for D in sorted(c1.D.unique()):
            s_ = g.loc[D].sort_index()
            qs = list(s_.index)
            for q0, q1 in zip(qs, qs[1:]):
                a, b = _by_rep(c1, "dict_size", D=D, q=q1), _by_rep(c1, "dict_size", D=D, q=q0)
                cmp.append(compare_paired(a[0], b[0], ">", 0.0, label=f"D={fmt(D)}: |S_B|(q={fmt(q1)}) − |S_B|(q={fmt(q0)})",
                                          reps_a=a[1], reps_b=b[1], level=level))
            parts.append(f"D={fmt(D)}: " + ", ".join(f"q={fmt(q)}→{fmt(v, 3)}" for q, v in s_.items()))
        res_ = combine(cmp)
        claims.append(Claim.from_result(
            "C1-grows-with-q", "|S_k| ≤ 12β(1+βD) q γ_T: the dictionary scales with the oversampling q  (Lemma 4.1)",
            f"for every D, mean |S_B| strictly increasing along the q grid: every consecutive paired difference > 0 "
            f"({how})", res_, value="; ".join(parts) + f"; deciding: {res_.label}"))
        r = c1.dict_size / c1.expected_size
        ok = bool(((r >= 1 / 3) & (r <= 3)).all())
        claims.append(Claim(
            "C1-expectation", "|S_B| concentrates around Σ_s p̃_s  (Lemma A.8 via Lemma 4.3)",
            "every run: |S_B| / Σ_s min(1, q σ̃²_{k−1}(x_s)) in [1/3, 3]",
            f"ratio {fmt(float(r.min()), 3)}–{fmt(float(r.max()), 3)}; |S_B|/d_eff "
            f"{fmt(float(c1.S_over_deff.min()))}–{fmt(float(c1.S_over_deff.max()))}", ok))
    if res.c4 is not None and len(res.c4):
        c4 = res.c4
        m = c4.groupby("D")[["B", "C_T"]].mean().sort_index()
        Ds = list(m.index)

        def steps(col):
            out = []
            for d0, d1 in zip(Ds, Ds[1:]):
                a, b = _by_rep(c4, col, D=d1), _by_rep(c4, col, D=d0)
                out.append(compare_paired(a[0], b[0], "<=", 0.0, label=f"{col}(D={fmt(d1)}) − {col}(D={fmt(d0)})",
                                          reps_a=a[1], reps_b=b[1], level=level))
            return out

        a, b = _by_rep(c4, "B", D=Ds[-1]), _by_rep(c4, "B", D=Ds[0])
        res_ = combine(steps("B") + [compare_paired(a[0], b[0], "<", 0.0, label=f"B(D={fmt(Ds[-1])}) − B(D={fmt(Ds[0])})",
                                                    reps_a=a[1], reps_b=b[1], level=level)])
        claims.append(Claim.from_result(
            "C4-B-decreasing", "B ≤ 2γ_T(N + 4β/D): fewer communications as the threshold D grows  (Lemma D.1)",
            f"mean B non-increasing along the increasing D grid (every consecutive paired difference <= 0), and "
            f"B(max D) < B(min D) ({how})", res_,
            value=", ".join(f"D={fmt(D)}: {fmt(b, 3)}" for D, b in m.B.items()) + f"; deciding: {res_.label}"))
        ok = bool((c4.B <= c4.B_bound).all())
        claims.append(Claim(
            "C4-B-bound", "B ≤ 2γ_T(N + 4β/D)  (Lemma D.1)",
            "every run: B <= 2γ̂(N + 4β/D) (β = 3, γ̂ on the uploaded data)",
            f"max B/bound {fmt(float((c4.B / c4.B_bound).max()))}", ok))
        ok = bool((c4.max_per_epoch <= c4.epoch_bound).all())
        claims.append(Claim(
            "C4-epoch-bound", "each epoch (det(I + K_{D_k}/λ) doubles) has ≤ N + 4β/D communications  (Lemma D.1)",
            "every run, every dyadic det epoch: #exchanges <= N + 4β/D",
            f"max count/bound {fmt(float((c4.max_per_epoch / c4.epoch_bound).max()))}; epochs "
            f"{int(c4.n_epochs.min())}–{int(c4.n_epochs.max())}", ok))
        res_ = combine(steps("C_T"))
        claims.append(Claim.from_result(
            "C4-comm-decreasing", "C_T ≤ 2γ_T(N + 4β/D)(3(|S_B|² + |S_B|) + d|S_B|): cost falls as D grows  (Theorem 4.5)",
            f"mean C_T non-increasing along the increasing D grid: every consecutive paired difference <= 0 ({how})",
            res_, value=", ".join(f"D={fmt(D)}: {fmt(c)}" for D, c in m.C_T.items()) + f"; deciding: {res_.label}"))
        ok = bool((c4.C_T <= c4.C_bound).all())
        claims.append(Claim(
            "C4-comm-bound", "C_T ≤ 2γ_T(N + 4β/D)(3(|S_B|² + |S_B|) + d|S_B|)  (Theorem 4.5)",
            "every run: C_T (scalars, both directions) <= the bound with γ̂ and the final |S_B|",
            f"max C_T/bound {fmt(float((c4.C_T / c4.C_bound).max()))}", ok))
    if res.c5 is not None and len(res.c5) and {ASYNC, APPROX} <= set(res.c5.method):
        mt = c5_matches(res.c5)
        c5 = res.c5
        pts = c5_points(c5)
        per_approx = []
        for r in pts[pts.method == APPROX].itertuples():
            cand = pts[(pts.method == ASYNC) & np.isclose(pts.q, r.q)].sort_values("C_T")
            ap = c5[(c5.method == APPROX) & np.isclose(c5.q, r.q) & np.isclose(c5.D, r.D)]
            lev = bonferroni_level(level, max(1, len(cand)))  # existential over the Async points
            opts = []
            for cd in cand.itertuples():
                asy = c5[(c5.method == ASYNC) & np.isclose(c5.q, r.q) & np.isclose(c5.D, cd.D)]
                ra, rb = _by_rep(asy, "R_T"), _by_rep(ap, "R_T")
                ca, cb = _by_rep(asy, "C_T"), _by_rep(ap, "C_T")
                tag = f"q={fmt(r.q)}, Approx D={fmt(r.c)} vs Async D={cd.D_label}"
                opts.append(combine([
                    compare_ratio(ra[0], rb[0], "<=", 1.2, label=f"{tag}: R ratio", reps_a=ra[1], reps_b=rb[1],
                                  level=lev),
                    compare_ratio(ca[0], cb[0], "<", MUCH_SMALLER, label=f"{tag}: C ratio", reps_a=ca[1],
                                  reps_b=cb[1], level=lev)]))
            if opts:
                per_approx.append(combine(opts, how="any"))
        val = "; ".join(f"q={fmt(r.q)}, Approx D={fmt(r.approx_c)} (R {fmt(r.approx_R, 3)}, C {fmt(r.approx_C)}) → "
                        + (f"Async D={r.async_D_label} (R {fmt(r.async_R, 3)}), C ratio {fmt(r.ratio)}"
                           if np.isfinite(r.ratio) else "no Async point within 1.2×R")
                        for r in mt.itertuples())
        res_ = combine(per_approx) if per_approx else None
        check = ("for every Approx point (variance-sum trigger, as Figure 2), an Async point with the same q has "
                 f"R_T <= 1.2 × Approx's and much smaller C_T: ratio < {MUCH_SMALLER:g} (ratios of means on the "
                 "paired log-ratio; the Async points are alternatives, so each is tested at the Bonferroni level "
                 f"1 − {1 - level:g}/k; {how})")
        quote = ("Async-KernelUCB incurs much smaller communication cost empirically, while having comparable or "
                 "even better regret than Approx-DisKernelUCB")
        if res_ is None:
            claims.append(Claim("C5-tradeoff", quote, check, val or "no Async point", verdict="FAIL",
                                cause_note=c5_cause_note(c5, int(p["N"]))))
        else:
            claims.append(Claim.from_result("C5-tradeoff", quote, check, res_, value=val + f"; deciding: {res_.label}",
                                            cause_note=c5_cause_note(c5, int(p["N"]))))
    if res.c6 is not None and len(res.c6):
        c6 = res.c6
        inv = c6[c6.D_label == INV_N2]
        if len(inv) and inv.N.nunique() >= 2:
            g = inv.groupby("N")[["B", "R_T", "C_T"]].mean()
            rB = slope_check(g.index, g.B, "<=", 2.0, label="log-log slope of B vs N", level=level)
            rR = slope_check(g.index, g.R_T, "<=", 0.5, label="log-log slope of R_T vs N", level=level)
            claims.append(Claim.from_result(
                "C6-B-slope", "B ≤ 2γ_T(N + 4βN²) at D = 1/N², i.e. C_T = Õ(N²γ_T³)  (Theorem 4.5)",
                "log-log slope of mean B vs N at D = 1/N² <= 2 (the fitted slope is tested, its OLS SE reported)", rB,
                value=f"slope {fmt(rB.effect)} (SE {fmt(rB.se)}; C_T slope {fmt(loglog_slope(g.index, g.C_T))})"))
            claims.append(Claim.from_result(
                "C6-regret-flat", "R_T = O(Nγ_T LS + √T(S√γ_T + γ_T)) at D = 1/N²: N enters only the warm-up term "
                "(Theorem 4.5; read here as 'nearly flat in N')",
                "log-log slope of mean R_T vs N at D = 1/N² <= 0.5 (the fitted slope is tested, its OLS SE reported)", rR,
                value=f"slope {fmt(rR.effect)} (SE {fmt(rR.se)}); R_T "
                + ", ".join(f"N={n}: {fmt(v, 3)}" for n, v in g.R_T.items())))
        fixed = c6[c6.D_label != INV_N2]
        for D in sorted(fixed.D.unique()):
            g = fixed[fixed.D == D].groupby("N").B.mean()
            if len(g) >= 2:
                r = slope_check(g.index, g.values, "<=", 1.0, label="log-log slope of B vs N", level=level)
                claims.append(Claim.from_result(
                    f"C6-B-linear-D{fmt(D)}", "B ≤ 2γ_T(N + 4β/D): at fixed D at most linear in N  (Lemma D.1)",
                    f"log-log slope of mean B vs N at D = {fmt(D)} <= 1 (the fitted slope is tested, its OLS SE "
                    "reported)", r, value=f"slope {fmt(r.effect)} (SE {fmt(r.se)})"))
    if res.c7 is not None and len(res.c7):
        c7 = res.c7
        a = c7[c7.method == ASYNC]
        fits, pts = {}, {}
        for lab in sorted(a.D_label.unique(), key=lambda s: resolve_D(s, p["N"])):
            g = a[a.D_label == lab].groupby("T").R_T.mean()
            pts[lab] = g
            fits[lab] = slope_check(g.index, g.values, "<", 1.0, label=f"D={lab}: log-log slope of R_T vs T",
                                    level=level)
        if fits:
            r = combine(list(fits.values()))
            claims.append(Claim.from_result(
                "C7-sublinear", "R_T ≤ 4Nγ_T LS + 4√2 α √(Tβ[1 + Nβ(L²/λ + D)]γ_T)  (Theorem 4.5): sublinear in T",
                "for every D, log-log slope of mean R_T vs T < 1 (the fitted slopes are tested, their OLS SEs reported)",
                r, value=", ".join(f"D={k}: {fmt(v.effect)} (SE {fmt(v.se)})" for k, v in fits.items())))
        n = c7[c7.method == NK]
        if len(n) and fits:
            g = n.groupby("T").R_T.mean()
            first = next(iter(fits))
            r = compare_slopes(pts[first].index, pts[first].values, g.index, g.values, "<",
                               label=f"slope Async (D={first}) − slope NKernelUCB", level=level)
            claims.append(Claim.from_result(
                "C7-vs-NKernelUCB", "NKernelUCB never communicates and is the high-regret extreme (§5; read here as "
                "'NKernelUCB is steeper')",
                f"Async's regret slope at D = {first} below NKernelUCB's (fitted slopes compared; the difference is "
                "reported with SE √(SE_A² + SE_N²))",
                r, value=f"Async {fmt(fits[first].effect)}, NKernelUCB {fmt(loglog_slope(g.index, g.values))}; "
                f"difference SE {fmt(r.se)}"))
    return label_claims(claims)


def extra_claims(ext: ExtraResults, level: float = 0.95) -> list[Claim]:
    """Claims of checks C2, C3, C8, C9, C10 (thresholds fixed in the module docstring before the runs)."""
    from ...claims import combine, compare_equivalent, compare_paired

    claims: list[Claim] = []
    p = ext.params
    how = f"paired over runs, {level_text(level)} interval"
    eps = p["eps"]
    if ext.c2 is not None and len(ext.c2):
        c2 = ext.c2
        g = c2.groupby("q").agg(eps=("eps_hat", "mean"), acc=("eps_hat", lambda x: float(np.mean(x <= eps))),
                                rmax=("ratio_max", "max"), rmin=("ratio_min", "min"))
        qs = sorted(c2.q.unique())
        cmp = []
        for q0, q1 in zip(qs, qs[1:]):
            a, b = _by_rep(c2, "eps_hat", q=q1), _by_rep(c2, "eps_hat", q=q0)
            cmp.append(compare_paired(a[0], b[0], "<", 0.0, label=f"ε̂(q={fmt(q1)}) − ε̂(q={fmt(q0)})", reps_a=a[1],
                                      reps_b=b[1], level=level))
        r = combine(cmp)
        claims.append(Claim.from_result(
            "C2-eps-shrinks", "S_k is ε-accurate w.r.t. D_k for q = 4 ln(2√2T/δ)β(1+ε/3)/ε²  (Lemma 4.1): the "
            "accuracy improves with the oversampling q",
            f"ε̂ = ‖(K+λI)^-1/2 K^1/2 (diag(q_s/p_s) − I) K^1/2 (K+λI)^-1/2‖ on the uploaded data at the end of each run; "
            f"every consecutive paired difference along the q grid < 0 ({how})", r,
            value="; ".join(f"q={fmt(q)}: mean ε̂ {fmt(v.eps)}, share ε̂ <= {eps:g}: {fmt(v.acc)}" for q, v in g.iterrows())
            + f"; deciding: {r.label}"))
        qt = max(qs)
        share = float(g.loc[qt, "acc"])
        claims.append(Claim(
            "C2-eps-accuracy", "with q = 4 ln(2√2T/δ)β(1+ε/3)/ε², w.p. ≥ 1 − δ, for all k, S_k is ε-accurate w.r.t. D_k "
            "(Lemma 4.1)",
            f"share of runs with ε̂ <= ε = {eps:g} at the largest q of the grid (q = {fmt(qt, 3)}"
            + (", Lemma 4.1's value for T" if p["c2_q_theory"] else "") + f") >= 1 − δ = {1 - p['c9_delta']:g}. Weak by "
            "construction at the theoretical q: p_s = min(1, qσ̃²) is 1 for nearly every point, so nothing is "
            "compressed and ε̂ ≈ 0; the shares at the practical q (above) are the informative part",
            f"share {fmt(share)} of {int((c2.q == qt).sum())} runs; mean ε̂ {fmt(float(g.loc[qt, 'eps']))}",
            share >= 1 - p["c9_delta"]))
        big = c2[c2.q >= 1.0]
        ok = bool((big.frac_in_band >= 1.0).all())
        n_inf = int((big.eps_hat < 1).sum())
        claims.append(Claim(
            "C2-variance-fidelity", "(1−ε)/(1+ε) σ²_k(x) ≤ σ̃²_k(x) ≤ (1+ε)/(1−ε) σ²_k(x) for an ε-accurate S_k  (Lemma A.6)",
            "every run with q >= 1: σ̃²_B/σ²_{D_B} (server model vs exact KRR on the same uploaded data) at 500 fresh "
            "probes lies in [(1−ε̂)/(1+ε̂), (1+ε̂)/(1−ε̂)] with that run's ε̂ (weak where ε̂ >= 1: the band is then "
            "vacuous; the number of runs with a finite band is given)",
            f"{int((big.frac_in_band >= 1).sum())}/{len(big)} runs inside; finite band in {n_inf}/{len(big)} runs; ratios "
            + ", ".join(f"q={fmt(q)}: {fmt(v.rmin, 3)}–{fmt(v.rmax, 3)}" for q, v in g.iterrows()), ok))
    if ext.c3 is not None and len(ext.c3):
        c3 = ext.c3
        ok = bool((c3.agg_err <= 1e-9).all() and (c3.same_choices >= 1.0).all()
                  and (c3.probe_mu_diff <= 1e-6).all() and (c3.probe_s2_diff <= 1e-6).all())
        claims.append(Claim(
            "C3-merge-in-runs", "Ã_k = T_{k−1,k}ᵀÃ_{k−1}T_{k−1,k} + Ã(ΔD_k; S_k)  (Eq. 5; the printed T corrected)",
            "whole S5 runs: the incremental server aggregate equals the paper's per-client sum of transformed records "
            "(relative error <= 1e-9), and the paper's eigen basis with the corrected T picks the same arm at every step "
            "as the Cholesky zero-padding merge, with final μ̃ and σ̃² on 200 probes within 1e-6",
            f"aggregate error {fmt(float(c3.agg_err.max()))}; same choices {fmt(float(c3.same_choices.min()))}; "
            f"max |Δμ̃| {fmt(float(c3.probe_mu_diff.max()))}, |Δσ̃²| {fmt(float(c3.probe_s2_diff.max()))} "
            f"({len(c3)} runs of T = {p['extra_T']})", ok))
    if ext.c8 is not None and len(ext.c8):
        c8 = ext.c8
        ok = bool((c8.max_ratio <= c8.bound).all())
        g = c8.groupby("D")[["max_ratio", "client_max_ratio", "bound"]].max().sort_index()
        claims.append(Claim(
            "C8-staleness-bound", "ϕ(x)ᵀV_k⁻¹ϕ(x) / ϕ(x)ᵀ(Φ_[t_k]ᵀΦ_[t_k] + λI)⁻¹ϕ(x) ≤ 1 + NβD  (Lemma C.1)",
            "q = inf (the dictionary spans the data: exact, β = 1); every run, every exchange k, every probe x (the "
            "chosen points and 200 fresh ones): σ²_{D_k}(x)/σ²_{all data up to t_k}(x) <= 1 + N·D. The "
            "per-client ratio (the active client's stale data vs all data) is reported, not checked: the lemma "
            "does not bound it",
            ", ".join(f"D={fmt(D)}: max {fmt(v.max_ratio, 3)} (bound {fmt(v.bound)}; per-client {fmt(v.client_max_ratio, 3)})"
                      for D, v in g.iterrows()), ok))
        Ds = sorted(c8.D.unique())
        cmp = []
        for d0, d1 in zip(Ds, Ds[1:]):
            a, b = _by_rep(c8, "max_ratio", D=d1), _by_rep(c8, "max_ratio", D=d0)
            cmp.append(compare_paired(a[0], b[0], ">", 0.0, label=f"max ratio(D={fmt(d1)}) − max ratio(D={fmt(d0)})",
                                      reps_a=a[1], reps_b=b[1], level=level))
        if cmp:
            r = combine(cmp)
            claims.append(Claim.from_result(
                "C8-rises-with-D", "the staleness ratio is ≤ 1 + NβD: a larger threshold allows staler models  (Lemma C.1)",
                f"the run's max Lemma C.1 ratio rises along the D grid: every consecutive paired difference > 0 ({how})",
                r, value=", ".join(f"D={fmt(D)}: {fmt(v, 3)}" for D, v in c8.groupby("D").max_ratio.mean().items())
                + f"; deciding: {r.label}"))
    if ext.c9 is not None and len(ext.c9):
        c9 = ext.c9
        th, a1 = c9[c9.alpha_kind == "theory"], c9[c9.alpha_kind == "alpha=1"]
        cov = float(th.coverage.min())
        claims.append(Claim(
            "C9-coverage", "‖θ̃_k − θ⋆‖_Ṽk ≤ α := (1/√(1−ε) + 1)√λ S + 2R(√(1+NDβ) + N√(2Dβ))√(ln(1/δ) + γ_T), "
            "w.p. ≥ 1 − 2δ  (Lemma 4.4)",
            f"RKHS reward (‖f‖_k = 1, 30 centres, R = {p['c9_R']:g}, d = {p['d']}), D = 1: in every run, the share of "
            f"(step, arm) pairs with |f(x) − μ̃(x)| <= α σ̃(x) under the active client's model, at the theoretical α "
            f"(γ_T replaced by ½ log det(I + K/(Dβλ)) on T uniform contexts), is >= 1 − 2δ = {1 - 2 * p['c9_delta']:g}. "
            "Weak by construction: the theoretical α is about 100 times the width needed",
            f"coverage at α = {fmt(float(th.alpha.iloc[0]), 3)}: min {fmt(cov, 3)}; at α = 1: min "
            f"{fmt(float(a1.coverage.min()), 3)}; smallest α covering every pair {fmt(float(c9.alpha_full.max()), 3)}; "
            f"R_T {fmt(float(th.R_T.mean()), 3)} (theory α) vs {fmt(float(a1.R_T.mean()), 3)} (α = 1)",
            cov >= 1 - 2 * p["c9_delta"]))
    if ext.c10 is not None and len(ext.c10):
        c10 = ext.c10
        asy, apx = c10[c10.method == ASYNC], c10[c10.method == APPROX]
        ok = bool((asy.max_participants <= 1).all() and (apx.mean_participants == p["N"]).all())
        z = c10[c10.schedule != "uniform"]
        claims.append(Claim(
            "C10-participation", "the asynchronous protocol needs only the active client at each communication, while "
            "a synchronous protocol needs every client (the asynchronous setting's motivation, §1, §3.1)",
            f"Zipf({p['c10_s']:g}) and uniform client arrivals: every Async-KernelUCB exchange involves exactly 1 client; "
            f"every Approx-DisKernelUCB sync uploads from all N = {p['N']} (weak by construction: both are the "
            "protocols' definitions; the point is the absence, reported)",
            f"Async max participants {int(asy.max_participants.max())}; Approx mean participants "
            f"{fmt(float(apx.mean_participants.mean()), 3)}; under Zipf the longest absence of a client at a sync "
            f"{int(z[z.method == APPROX].max_absence.max()) if len(z[z.method == APPROX]) else 0} steps, the rarest client "
            f"active {int(z.rarest_activity.min()) if len(z) else 0} of {p['extra_T']} steps", ok))
        a_u, a_z = asy[asy.schedule == "uniform"], asy[asy.schedule != "uniform"]
        ra, rb = _by_rep(a_z, "R_T"), _by_rep(a_u, "R_T")
        r = compare_equivalent(ra[0], rb[0], ratio_bounds=(0.8, 1.25), label="R_T Zipf / R_T uniform (Async)",
                               reps_a=ra[1], reps_b=rb[1], level=level)
        claims.append(Claim.from_result(
            "C10-async-regret-unchanged", "Async-KernelUCB does not need all clients to participate (stragglers; §1)",
            "Async-KernelUCB's mean regret under Zipf arrivals within [0.8, 1.25] × its regret under uniform arrivals "
            f"(ratio of means, paired over runs, {level_text(level)} interval)", r,
            value=f"R_T Zipf {fmt(float(a_z.R_T.mean()), 3)} vs uniform {fmt(float(a_u.R_T.mean()), 3)}; Approx "
            f"{fmt(float(apx[apx.schedule != 'uniform'].R_T.mean()), 3)} vs {fmt(float(apx[apx.schedule == 'uniform'].R_T.mean()), 3)}"))
    return label_claims(claims)
