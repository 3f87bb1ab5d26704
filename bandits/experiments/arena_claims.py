r"""The arena's claims, headline and break-even table, computed from the runs of
:func:`bandits.experiments.arena.run_arena`.

Left out of the run-cache key (its name ends in ``_claims``): a claim's text, threshold or statistic can
change without recomputing a run. The run module :mod:`bandits.experiments.arena` never imports this one.

Every claim here is **the package's own hypothesis** about the methods, fixed before the runs it is tested
on; a paper is cited only for context. They carry ``kind="hypothesis"`` (counted apart from the papers'
claims): paired comparisons over the shared runs (common random numbers) with the calibrated Student t
interval (``method=None``), three-valued. The one ``kind="implementation"`` check is the break-even rule
of the communication accounting.

**No point is picked on the runs that test it.** The exploration multiplier of every method was chosen on
the tuning runs (``arena.TUNE_REP0`` …, seeds apart). Where the tuning runs are in the results,
``comm-pays`` tests the communicating method that had the lowest mean R(T) on them (a held-out
selection); without them it tests every communicating point, and its check text says which of the two it
did. The "some point" parts are existential at the Bonferroni level, the "every" parts
intersection–union. The front claims and ``kernel-beats-linear`` are existential / universal statements
over all points. A failed run counts as the worst outcome of its comparison.

Thresholds are in the check texts and were fixed before the runs: R(T) differences against 0; the
break-even check's 10 % margin.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .arena import FINITE_ENVS, REAL_ENVS, SILENT, UNITS, ArenaResults, _env_dim
from .claims import Claim

__all__ = ["CLAIMS", "arena_claims", "headline", "headline_text", "front_ends", "break_even_table"]

_HYP = "the package's own hypothesis, not a paper's claim: "
#: The arena's claims: ``{key: (the hypothesis, the check)}``; comm-pays's check has a second form,
#: :data:`COMM_PAYS_EVERY`, for results without tuning runs.
CLAIMS = {
    "async-front": (_HYP + "Async-KernelUCB lies on the regret-communication front (scalars) on every "
                    "asynchronous environment",
                    "some communication value D of Async-KernelUCB is not dominated: its R(T) is below that of "
                    "every point of another method whose mean C is <= its own (paired over runs, every part at "
                    "the 95% level, intersection-union; across its D values an existential claim at the "
                    "Bonferroni level)"),
    "duets-front": (_HYP + "DUETS lies on the synchronous regret-communication front (scalars) on the finite "
                    "domains (context: DUETS §5 compares it with DisKernelUCB and Approx-DisKernelUCB only)",
                    "as async-front, for DUETS (its exploration β chosen on the tuning runs) on h1 and "
                    "Hartmann-4, synchronous protocol"),
    "comm-pays": (_HYP + "communication pays: on every environment and protocol some communicating method "
                  "has a lower regret than every method that never communicates",
                  "the communicating method with the lowest mean R(T) on the tuning runs (held out: runs apart "
                  "from the tested ones) has some communication value whose R(T) is below that of every silent "
                  "point (N-KernelUCB, NeuralUCB): paired difference < 0 against each (intersection-union), "
                  "existential over the selected method's values at the Bonferroni level"),
    "kernel-beats-linear": (_HYP + "on the nonlinear synthetic environments (h1, Hartmann-4, cosine, f1) a "
                            "kernel method beats every linear method at no more communication (context: "
                            "Async-KernelUCB §5.2 compares kernel and linear methods in its own protocol)",
                            "for every linear point (DisLinUCB, FedLinUCB, FedGLB-UCB, every knob value), some "
                            "kernel point whose mean C is <= the linear point's (N-KernelUCB's C = 0 always "
                            "qualifies) has a lower R(T): paired difference kernel − linear < 0, existential over "
                            "the eligible kernel points at the Bonferroni level, every linear point must hold "
                            "(intersection-union)"),
    "break-even": ("the communication accounting: Async-KernelUCB costs less than OneKernelUCB's raw sharing "
                   "iff Σ_k (3 m_k² + d·m_k) < N·T·(d + 1) (m_k: its dictionary size at exchange k)",
                   "for every Async-KernelUCB point whose two sides of the rule differ by more than 10 %, the "
                   "rule's prediction (cheaper or not) agrees with the measured mean C of Async-KernelUCB against "
                   "OneKernelUCB's on the same environment"),
}
#: comm-pays's check when the results hold no tuning runs (no held-out selection): every point is tested.
COMM_PAYS_EVERY = ("some communicating point (every method and communication value in the table; no tuning runs "
                   "to select one method on) has an R(T) below that of every silent point (N-KernelUCB, NeuralUCB): "
                   "paired difference < 0 against each (intersection-union), existential over all the "
                   "communicating points at the Bonferroni level")
_SOURCES = {"async-front": "", "duets-front": "context: DUETS §5", "comm-pays": "",
            "kernel-beats-linear": "context: Async-KernelUCB §5.2", "break-even": ""}
_KERNEL_METHODS = ("DUETS", "DisKernelUCB", "Approx-DisKernelUCB", "Async-KernelUCB", "N-KernelUCB",
                   "OneKernelUCB", "Coop-KernelUCB", "Eager-KernelUCB")
_LINEAR_METHODS = ("DisLinUCB", "FedLinUCB", "FedGLB-UCB")


def _cause_note(res: ArenaResults) -> str:
    n = int(res.params.get("n_runs", 0)) if res.params else 0
    return (f"{n} runs per point: the Student t interval needs a mean paired difference of several standard "
            "deviations of the per-run differences, more at the Bonferroni levels of the existential parts")


_FAIL_NOTE = "the runs contradict it at the arena's sizes; the number gives the deciding comparison"


def _async_fail_note(table, env: str) -> str:
    """Why async-front fails on ``env``: the dictionary size and the cost against raw sharing
    (``table``: :func:`break_even_table`)."""
    be = table[(table.env == env) & np.isfinite(table.measured_ratio)]
    if be.empty:
        return _FAIL_NOTE
    return (f"Async-KernelUCB's final dictionary holds m = {be.m.min():.0f}–{be.m.max():.0f} points on {env}; its "
            f"statistics cost {be.measured_ratio.min():.2g}–{be.measured_ratio.max():.2g}× OneKernelUCB's raw "
            f"sharing (break-even table) and at no more communication another method's point has a lower R(T)")


def _per_run(runs, protocol, env, method, value):
    """R(T) per run of one point, sorted by run; a failed run is kept as NaN (the worst outcome)."""
    r = runs[(runs.protocol == protocol) & (runs.env == env) & (runs.method == method) & (runs.value == value)]
    r = r.sort_values("rep")
    return r.R_T.to_numpy(float), r.rep.to_numpy()


def _label(p) -> str:
    knob = "" if p.knob == "-" else f"{p.knob}={p.value:g}"
    g = getattr(p, "explore", None)
    gtxt = "" if g is None or (isinstance(g, float) and math.isnan(g)) else f"g={g:g}"
    inner = ", ".join(x for x in (knob, gtxt) if x)
    return f"{p.method} ({inner})" if inner else p.method


def _trivial(label: str, n: int, note: str, level: float):
    from ..claims import Comparison

    return Comparison(label, math.nan, math.nan, math.nan, level, "none", n, "PASS", "<", 0.0, "statistic",
                      note=note)


def _beats(res, protocol, env, k, l, level, stat_method):
    """Paired ``R_T(k) − R_T(l) < 0`` of two points (rows of the points table)."""
    from ..claims import compare_paired

    a, ra = _per_run(res.runs, protocol, env, k.method, k.value)
    b, rb = _per_run(res.runs, protocol, env, l.method, l.value)
    return compare_paired(a, b, "<", 0.0, label=f"R(T) {_label(k)} − {_label(l)}", level=level, reps_a=ra,
                          reps_b=rb, method=stat_method, diverged="worst")


def _points_of(res, protocol, env):
    pts = res.points
    return pts[(pts.protocol == protocol) & (pts.env == env)]


def _front_claim(res: ArenaResults, protocol: str, env: str, method: str, level: float = 0.95,
                 stat_method: str | None = None):
    """PASS when some value of ``method`` is significantly non-dominated (see CLAIMS)."""
    from ..claims import bonferroni_level, combine

    pts = _points_of(res, protocol, env)
    own = pts[pts.method == method]
    if own.empty:
        return None
    lvl = bonferroni_level(level, len(own))
    per_value = []
    for o in own.itertuples():
        cheaper = pts[(pts.method != method) & (pts.C_mean <= o.C_mean)]
        parts = [_beats(res, protocol, env, o, c, lvl, stat_method) for c in cheaper.itertuples()]
        if not parts:
            parts = [_trivial(f"{_label(o)}: no other point communicates as little", int(o.n),
                              "cheapest point: on the front by definition", lvl)]
        per_value.append(combine(parts, "all", label=f"{_label(o)} not dominated"))
    return combine(per_value, "any", label=f"{method} on the front")


def _tuned_best_talker(res, protocol, env):
    """The communicating method with the lowest mean R(T) on the tuning runs at its chosen g (None without
    tuning runs)."""
    t = res.tune
    if t is None or len(t) == 0:
        return None
    t = t[(t.protocol == protocol) & (t.env == env) & ~t.method.isin(SILENT)]
    best, best_r = None, math.inf
    for method, grp in t.groupby("method", sort=False):
        g = res.explore.get((protocol, env, method))
        sel = grp[grp.explore == g] if g is not None else grp
        r = float(sel.R_T.fillna(np.inf).mean()) if len(sel) else math.inf
        if r < best_r:
            best, best_r = method, r
    return best


def _comm_pays(res, protocol, env, level, stat_method):
    """Some point of the held-out-selected communicating method below every silent point; None without
    both kinds of point."""
    from ..claims import bonferroni_level, combine

    pts = _points_of(res, protocol, env)
    silent, talk = pts[pts.method.isin(SILENT)], pts[~pts.method.isin(SILENT)]
    if silent.empty or talk.empty:
        return None, None
    chosen = _tuned_best_talker(res, protocol, env)
    if chosen is not None and (talk.method == chosen).any():
        talk = talk[talk.method == chosen]
    else:
        chosen = None
    lvl = bonferroni_level(level, len(talk))
    per = [combine([_beats(res, protocol, env, t, s_, lvl, stat_method) for s_ in silent.itertuples()], "all",
                   label=f"{_label(t)} below every silent point") for t in talk.itertuples()]
    return combine(per, "any", label="some communicating point below every silent point"), chosen


def _kernel_beats_linear(res, protocol, env, level, stat_method):
    """Every linear point beaten by some kernel point at no more mean communication; None without
    linear points."""
    from ..claims import bonferroni_level, combine

    pts = _points_of(res, protocol, env)
    lin, ker = pts[pts.method.isin(_LINEAR_METHODS)], pts[pts.method.isin(_KERNEL_METHODS)]
    if lin.empty or ker.empty:
        return None
    per = []
    for l_ in lin.itertuples():
        ok = ker[ker.C_mean <= l_.C_mean]
        lab = f"some kernel point below {_label(l_)} at no more communication"
        if ok.empty:
            per.append(replace(_trivial(lab, 0, "no kernel point communicates as little", level), verdict="FAIL"))
            continue
        lvl = bonferroni_level(level, len(ok))
        per.append(combine([_beats(res, protocol, env, k, l_, lvl, stat_method) for k in ok.itertuples()], "any",
                           label=lab))
    return combine(per, "all", label="every linear point beaten by a kernel point at no more communication")


# ------------------------------------------------------------------------------ break-even rule
def break_even_table(res: ArenaResults):
    """Per asynchronous environment and Async-KernelUCB point: ``Σ_k (3 m_k² + d·m_k)`` (mean over runs),
    ``N·T·(d + 1)``, their ratio (the rule's prediction of C_Async / C_raw), the measured mean C of
    Async-KernelUCB over OneKernelUCB's, and the final dictionary size m."""
    import pandas as pd

    pts = res.points
    p = res.params or {}
    rows = []
    a = pts[(pts.protocol == "async") & (pts.method == "Async-KernelUCB")]
    for r in a.itertuples():
        one = pts[(pts.protocol == "async") & (pts.env == r.env) & (pts.method == "OneKernelUCB")]
        d = _env_dim(r.env)
        N, T = int(p.get("N_async", 0)), int(p.get("T_async", 0))
        lhs = 3.0 * r.m_sq_sum + d * r.m_sum
        rhs = float(N * T * (d + 1))
        c_one = float(one.C_mean.iloc[0]) if len(one) else math.nan
        rows.append({"env": r.env, "D": r.value, "m": r.m, "exchanges": r.exchanges, "sum_3m2_dm": lhs,
                     "N_T_d1": rhs, "rule_ratio": lhs / rhs if rhs else math.nan,
                     "C_Async": r.C_mean, "C_One": c_one, "measured_ratio": r.C_mean / c_one if c_one else math.nan,
                     "R_Async": r.R_mean, "R_One": float(one.R_mean.iloc[0]) if len(one) else math.nan})
    return pd.DataFrame(rows, columns=["env", "D", "m", "exchanges", "sum_3m2_dm", "N_T_d1", "rule_ratio", "C_Async",
                                       "C_One", "measured_ratio", "R_Async", "R_One"])


def _break_even_claim(res: ArenaResults):
    be = break_even_table(res)
    be = be[np.isfinite(be.rule_ratio) & np.isfinite(be.measured_ratio)]
    if be.empty:
        return None
    decided = be[(be.rule_ratio < 1 / 1.1) | (be.rule_ratio > 1.1)]
    agree = ((decided.rule_ratio < 1) == (decided.measured_ratio < 1))
    bad = decided[~agree.to_numpy()]
    value = (f"{int(agree.sum())} of {len(decided)} decided points agree ({len(be) - len(decided)} within 10 % "
             f"of break-even); rule ratio {be.rule_ratio.min():.2g}–{be.rule_ratio.max():.2g}, measured "
             f"{be.measured_ratio.min():.2g}–{be.measured_ratio.max():.2g}")
    if len(bad):
        value += "; disagree: " + ", ".join(f"{r.env} D={r.D:g}" for r in bad.itertuples())
    return Claim("break-even-async", CLAIMS["break-even"][0], CLAIMS["break-even"][1], value,
                 verdict="PASS" if len(bad) == 0 else "FAIL", kind="implementation", quote="paraphrase",
                 source="", cause="open" if len(bad) else None,
                 cause_note="the rule drops the statistics' linear terms and the previous dictionary's download")


# ------------------------------------------------------------------------------ claims
def arena_claims(res: ArenaResults, level: float = 0.95, method: str | None = None) -> list[Claim]:
    """The checks of :data:`CLAIMS` on the tested runs of ``res`` (one claim per protocol/environment);
    ``method=None``: the calibrated Student t interval. See the module docstring."""
    claims: list[Claim] = []
    pts = res.points
    envs = list(dict.fromkeys(pts.env))
    note = _cause_note(res)

    def add(cid, key, prefix, r, extra="", fail_note="", check=None):
        # PASS: no cause; INCONCLUSIVE: open (more runs decide); FAIL: the hypothesis does not hold here
        cause = None if r.verdict == "PASS" else ("hypothesis" if r.verdict == "FAIL" else "open")
        why = {None: None, "open": note, "hypothesis": fail_note or _FAIL_NOTE}[cause]
        claims.append(Claim.from_result(cid, CLAIMS[key][0], prefix + (check or CLAIMS[key][1]), r,
                                        value=r.text() + extra, kind="hypothesis", quote="paraphrase",
                                        source=_SOURCES[key], cause=cause, cause_note=why))

    be = break_even_table(res)
    for env in envs:
        r = _front_claim(res, "async", env, "Async-KernelUCB", level, method)
        if r is not None:
            add(f"async-front-{env}", "async-front", f"{env}: ", r, fail_note=_async_fail_note(be, env))
    for env in envs:
        if env in FINITE_ENVS:
            r = _front_claim(res, "sync", env, "DUETS", level, method)
            if r is not None:
                add(f"duets-front-{env}", "duets-front", f"{env}: ", r)
    pairs = list(dict.fromkeys(zip(pts.protocol, pts.env)))
    for protocol, env in pairs:
        r, chosen = _comm_pays(res, protocol, env, level, method)
        if r is not None:
            add(f"comm-pays-{protocol}-{env}", "comm-pays", f"{protocol}/{env}: ", r,
                f"; selected on the tuning runs: {chosen}" if chosen else "",
                check=None if chosen else COMM_PAYS_EVERY)
    for protocol, env in pairs:
        if env in REAL_ENVS:
            continue
        r = _kernel_beats_linear(res, protocol, env, level, method)
        if r is not None:
            add(f"kernel-beats-linear-{protocol}-{env}", "kernel-beats-linear", f"{protocol}/{env}: ", r,
                fail_note="some linear point has a lower R(T) than every kernel point at no more communication; "
                          "the number gives the deciding comparison")
    be = _break_even_claim(res)
    if be is not None:
        claims.append(be)
    return claims


# ------------------------------------------------------------------------------ headline
def front_ends(res: ArenaResults):
    """Per unit and (protocol, env): the front's low-regret end (lowest mean R(T)), its cheapest point,
    and the methods on the front."""
    import pandas as pd

    rows = []
    for unit, (col, _, front) in UNITS.items():
        for (protocol, env), grp in res.points.groupby(["protocol", "env"], sort=False):
            f = grp[grp[front]]
            if f.empty:
                continue
            low_r = f.sort_values(["R_mean", col]).iloc[0]
            cheap = f.sort_values([col, "R_mean"]).iloc[0]
            rows.append({"unit": unit, "protocol": protocol, "env": env, "low_regret_end": low_r.method,
                         "R_low": low_r.R_mean, "cheapest_end": cheap.method, "cost_cheapest": cheap[col],
                         "on_front": ", ".join(dict.fromkeys(f.sort_values(col).method))})
    return pd.DataFrame(rows)


def headline(res: ArenaResults):
    """Per unit and method: on how many fronts it holds the low-regret end, the cheapest end, or any point
    (out of the number of fronts)."""
    import pandas as pd

    fe = front_ends(res)
    rows = []
    for unit, grp in fe.groupby("unit", sort=False):
        n = len(grp)
        methods = dict.fromkeys(m for s in grp.on_front for m in s.split(", "))
        for m in methods:
            rows.append({"unit": unit, "method": m, "fronts": n,
                         "low_regret_end": int((grp.low_regret_end == m).sum()),
                         "cheapest_end": int((grp.cheapest_end == m).sum()),
                         "on_front": int(sum(m in s.split(", ") for s in grp.on_front))})
    return pd.DataFrame(rows).sort_values(["unit", "low_regret_end", "on_front"], ascending=[True, False, False])


def headline_text(res: ArenaResults) -> str:
    """The headline per unit, computed from the runs: the method that most often holds the low-regret end of
    a front (with the exceptions, front by front) and the method on most fronts."""
    fe = front_ends(res)
    if fe.empty:
        return "no fronts"
    lines = []
    for unit, grp in fe.groupby("unit", sort=False):
        n = len(grp)
        top = grp.low_regret_end.value_counts()
        lead = top.index[0]
        exc = grp[grp.low_regret_end != lead]
        counts = {}
        for s in grp.on_front:
            for m in s.split(", "):
                counts[m] = counts.get(m, 0) + 1
        most = max(counts, key=counts.get)
        line = f"{unit}: {lead} holds the low-regret end of {int(top.iloc[0])} of {n} fronts"
        if len(exc):
            line += " (not on " + "; ".join(f"{r.protocol} {r.env}: {r.low_regret_end}" for r in exc.itertuples()) + ")"
        line += f"; {most} is on the most fronts ({counts[most]} of {n})"
        lines.append(line)
    return "\n".join(lines)
