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
from .claims import Claim, decided_at, duration, md_table, repo_path, step_tallies

__all__ = ["CLAIMS", "arena_claims", "headline", "headline_text", "front_ends", "break_even_table", "load_folder",
           "note_markdown"]

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


# ------------------------------------------------------------------------------ the folder's note, generated
def _fmt_g(x) -> str:
    return f"{x:g}" if isinstance(x, (int, float)) and math.isfinite(x) else "–"


_fmt_s = duration  # bandits.experiments.claims


def _range(x, f: str = ".2g") -> str:
    lo, hi = float(np.min(x)), float(np.max(x))
    return f"{lo:{f}}" if f"{lo:{f}}" == f"{hi:{f}}" else f"{lo:{f}}–{hi:{f}}"


def _budget_label(b: float) -> str:
    if b == 0:
        return "0"
    if math.isinf(b):
        return "∞"
    return f"1e{int(round(math.log10(b)))}"


_md_table, _repo_path = md_table, repo_path  # shared with the other generated notes


def load_folder(folder):
    """An arena folder read back: ``(res, map_runs, provenance)``: :class:`ArenaResults` rebuilt from
    ``results.csv`` and ``tuning.csv`` (the multipliers chosen again by
    :func:`bandits.experiments.arena.select_explore`) with the parameters of ``provenance.json``, ``map.csv``
    (None without it)."""
    import json
    import warnings
    from pathlib import Path

    import pandas as pd

    from . import arena as ex

    folder = Path(folder)
    prov = json.loads((folder / "provenance.json").read_text())
    pr = prov["parameters"]
    p = ex.arena_params(prov.get("mode") or "full",
                        **{k: v for k, v in pr.items() if k in ex._FULL and k != "grids"})
    if "grids" in pr:
        p["grids"] = pr["grids"]

    def read(name):
        f = folder / name
        if not f.exists():
            return None
        df = pd.read_csv(f)
        if "failed" in df:
            df["failed"] = df["failed"].where(df["failed"].notna(), None)
        return df

    runs, tune, mruns = read("results.csv"), read("tuning.csv"), read("map.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        explore = ex.select_explore(tune) if tune is not None else {}
    return ArenaResults(p, runs, ex.summarise(runs), tune=tune, explore=explore), mruns, prov


def _note_runs(res, mruns, prov, folder) -> list:
    import json

    p, runs, tune = res.params, res.runs, res.tune
    commit = (prov.get("git") or {}).get("commit") or "unknown"
    dirty = (prov.get("git") or {}).get("dirty")
    grid = ", ".join(_fmt_g(g) for g in p.get("explore", []))
    n_tune = 0 if tune is None else len(tune)
    lines = [f"- **Runs.** Commit `{commit[:7]}`{' (the working tree not clean when provenance.json was written: the folder being written counts)' if dirty else ''}, master seed "
             f"{prov.get('seed', 0)}, {prov.get('n_jobs', '?')} workers ({prov.get('backend', '?')}), arithmetic "
             f"`{prov.get('arithmetic', '?')}`, written {prov.get('created', '?')}. Fronts: N = {p['N_sync']}, "
             f"T = {p['T_sync']} (synchronous) and N = {p['N_async']}, T = {p['T_async']} (asynchronous), "
             f"{len(set(runs.env))} environments; every method's exploration multiplier g ∈ {{{grid}}} chosen on "
             f"{p.get('n_tune', 1)} tuning run(s) per g ({n_tune} runs, seeds apart from the tested ones), then "
             f"every communication value on {p['n_runs']} tested runs ({len(runs)} runs, {len(res.points)} points)."]
    if mruns is not None and len(mruns):
        mr = mruns.drop_duplicates(["env", "N", "method", "value", "rep"])
        lines[-1] += (f" The map: N ∈ {{{', '.join(str(n) for n in sorted(set(mr.N)))}}}, checkpoints t ∈ "
                      f"{{{', '.join(str(t) for t in sorted(set(mruns.t)))}}}, "
                      f"{int(mr.groupby(['env', 'N', 'method', 'value']).rep.nunique().max())} runs per point "
                      f"({len(mr)} runs).")
    sj = folder / "sequential.json"
    if sj.exists():
        s = json.loads(sj.read_text())
        d = s.get("design", {})
        sch = [lk["n"] for lk in d.get("looks", [])]
        added, failed, refused = step_tallies(s)
        at = decided_at(s)
        lines.append(f"- **The sequential step** (`bandits.sequential`, {d.get('spending', '?')} spending, looks at "
                     f"n = {', '.join(str(n) for n in sch)} runs, budget "
                     f"{_fmt_g(s['budget_s']) + ' CPU-s' if s.get('budget_s') else 'none'}): {added} runs added "
                     f"({_fmt_s(s.get('cpu_s', 0.0))} of recorded run time, {failed} failed) to the points behind the "
                     f"claims still open; claims decided at {at}."
                     + (f" Stopped: {s['stopped']} ({refused[-1]['refused']})." if refused else "")
                     + (" The added runs are kept in `sequential_runs/` (a row per run, with its look); "
                        if (folder / "sequential_runs" / "manifest.json").exists() else
                        " The added runs are in the run cache only; ")
                     + "`results.csv` holds the notebook's tested runs, which the figures and the tables below show.")
    tuning_s = 0.0 if tune is None else float(tune.wall_time.sum(skipna=True))
    sync = float(runs[runs.protocol == "sync"].wall_time.sum(skipna=True))
    asy = float(runs[runs.protocol == "async"].wall_time.sum(skipna=True))
    parts = [f"tuning {_fmt_s(tuning_s)}", f"tested {_fmt_s(sync + asy)} (synchronous {_fmt_s(sync)}, asynchronous "
                                        f"{_fmt_s(asy)})"]
    total = tuning_s + sync + asy
    if mruns is not None and len(mruns):
        mr = mruns.drop_duplicates(["env", "N", "method", "value", "rep"])
        msum = float(mr.wall_time.sum(skipna=True))
        by = mr.groupby("method").wall_time.sum().sort_values(ascending=False)
        parts.append(f"map {_fmt_s(msum)} ({by.index[0]} {_fmt_s(by.iloc[0])} of it)")
        total += msum
    lines.append(f"- **Time**, from the runs' own recorded times: {', '.join(parts)}; {_fmt_s(total)} in all "
                 f"(`figures/TIMES.md` adds the sequential step's runs and gives the time on 2 cores).")
    nf_t = 0 if tune is None else int(tune.failed.notna().sum())
    nf = int(runs.failed.notna().sum())
    nf_m = 0 if mruns is None else int(mruns.drop_duplicates(["env", "N", "method", "value", "rep"]).failed.notna().sum())
    line = (f"- **Failures** (a run whose numbers broke down, `failed` column): {nf_t} of {n_tune} tuning runs, "
            f"{nf} of {len(runs)} tested runs" + (f", {nf_m} map runs" if mruns is not None else "") + ".")
    if nf_t + nf + nf_m:
        line += (" A failed tuning run counts as +∞ in the selection; a failed tested run is left out of its point's "
                 "mean and counts as the worst outcome of any comparison a claim makes with it.")
    lines.append(line)
    return lines


def _failed_rows(res, mruns) -> list:
    import pandas as pd

    parts = [x.assign(stage=x.get("stage", s)) for x, s in ((res.tune, "tune"), (res.runs, "test")) if x is not None]
    r = pd.concat(parts, ignore_index=True)
    r = r[r.failed.notna()]
    if "explore" not in r:
        r = r.assign(explore=np.nan)
    rows = [(st, f"{pr} {env}", m, _fmt_g(v), _fmt_g(g), int(rep), str(f)[:90])
            for st, pr, env, m, v, g, rep, f in zip(r.stage, r.protocol, r.env, r.method, r.value, r.explore, r.rep,
                                                    r.failed)]
    if mruns is not None and "failed" in mruns:
        m = mruns[mruns.failed.notna()].drop_duplicates(["env", "N", "method", "value", "rep"])
        rows += [("map", f"async {e} N={n}", me, _fmt_g(v), _fmt_g(g), int(rep), str(f)[:90])
                 for e, n, me, v, g, rep, f in zip(m.env, m.N, m.method, m.value, m.explore, m.rep, m.failed)]
    return rows


def _note_tuning(res) -> list:
    ex_ = res.explore
    if not ex_:
        return []
    tune = res.tune
    all_failed = set()
    if tune is not None:
        for key, grp in tune.groupby(["protocol", "env", "method"], sort=False):
            if grp.R_T.isna().all():
                all_failed.add(key)
    envs = list(dict.fromkeys(k[1] for k in ex_))
    rows_keys = list(dict.fromkeys((k[0], k[2]) for k in ex_))
    rows = []
    for pr, m in rows_keys:
        cells = []
        for e in envs:
            g = ex_.get((pr, e, m))
            cells.append("–" if g is None else _fmt_g(g) + (" ᵃ" if (pr, e, m) in all_failed else ""))
        rows.append([pr, m] + cells)
    grid = [float(g) for g in res.params.get("explore", [])]
    vals = [v for k, v in ex_.items() if k not in all_failed]
    lo, hi = (min(grid), max(grid)) if grid else (math.nan, math.nan)
    out = ["## Tuning: the multiplier g chosen per (protocol, environment, method)", "",
           "The g of the shared grid with the lowest mean R(T) on the tuning runs (`tuning.csv`, "
           "`bandits.experiments.arena.select_explore`).", ""]
    out += _md_table(["protocol", "method"] + envs, rows)
    out += [""]
    foot = (f"Of the {len(vals)} choices, {sum(v == lo for v in vals)} sit on the grid's lower edge ({_fmt_g(lo)}) and "
            f"{sum(v == hi for v in vals)} on its upper edge ({_fmt_g(hi)}).")
    if all_failed:
        foot = (f"ᵃ every tuning run failed at every g: g = 1, the method's own width, not a choice "
                f"({len(all_failed)} cells). " + foot)
    return out + [foot, ""]


def _note_fronts(res) -> list:
    fe = front_ends(res)
    if fe.empty:
        return []
    out = ["## The fronts, in three units", "", "`headline_text` on these runs:", ""]
    out += [f"- {ln}" for ln in headline_text(res).splitlines()]
    pts = res.points
    sc = fe[fe.unit == "scalars"]
    lead = sc.low_regret_end.value_counts().index[0]
    exc = sc[sc.low_regret_end != lead]
    if len(exc):
        bits = []
        for r in exc.itertuples():
            g = pts[(pts.protocol == r.protocol) & (pts.env == r.env)]
            a = g[g.method == r.low_regret_end].sort_values("R_mean").iloc[0]
            b = g[g.method == lead].sort_values("R_mean")
            s = f"{r.protocol} {r.env}: {a.method} ({a.knob} = {_fmt_g(a.value)}) {a.R_mean:.1f} ± {a.R_se:.1f}"
            if len(b):
                b = b.iloc[0]
                s += f" against {lead}'s best point {b.R_mean:.1f} ± {b.R_se:.1f}"
            bits.append(s)
        out += ["", f"Where {lead} does not hold the low-regret end in scalars (mean ± s.e. of R(T) over the tested "
                    "runs; the claims test such differences, `claims.json`): " + "; ".join(bits) + "."]
    envs = list(dict.fromkeys(pts.env))
    rows = []
    for pr in dict.fromkeys(pts.protocol):
        row = [pr]
        for e in envs:
            f = sc[(sc.protocol == pr) & (sc.env == e)]
            row.append(f.on_front.iloc[0] if len(f) else "–")
        rows.append(row)
    out += ["", "The methods on each front in scalars, cheapest first (`front_ends`):", ""]
    out += _md_table(["protocol"] + envs, rows)
    same = []
    for (pr, e, m), g in pts.groupby(["protocol", "env", "method"], sort=False):
        if len(g) > 1:
            distinct = len(g[["R_mean", "C_mean"]].round(9).drop_duplicates())
            if distinct < len(g):
                same.append(f"{m} on {pr} {e} ({len(g)} values, {distinct} distinct point{'s' if distinct != 1 else ''})")
    if same:
        out += ["", "Communication values that give the same runs (their points coincide): " + "; ".join(same) + "."]
    return out + [""]


def _note_break_even(res, claims_json) -> list:
    be = break_even_table(res)
    be = be[np.isfinite(be.measured_ratio)]
    if be.empty:
        return []
    rows = []
    for env, g in be.groupby("env", sort=False):
        cheap = g[g.measured_ratio < 1]
        rows.append([env, _range(g.m, ".0f"), _range(g.measured_ratio, ".3g"),
                     ", ".join(_fmt_g(d) for d in cheap.D) or "none",
                     _range(cheap.R_Async / cheap.R_One) if len(cheap) else "–"])
    out = ["## Break-even: when Nyström statistics are cheaper than raw points", "",
           "Async-KernelUCB costs less than OneKernelUCB's raw sharing iff Σ_k (3 m_k² + d·m_k) < N·T·(d + 1) "
           f"(`break_even_table`); the rule's ratio against the measured C_Async / C_One: "
           f"{(be.measured_ratio / be.rule_ratio).min():.2f}–{(be.measured_ratio / be.rule_ratio).max():.2f} over "
           f"its {len(be)} points."]
    c = next((c for c in claims_json if c["id"] == "break-even-async"), None)
    if c is not None:
        out[-1] += f" Implementation check `break-even-async`: {c['verdict']} ({c['value']})."
    out += ["", "Asynchronous protocol, final dictionary size m over Async-KernelUCB's D values:", ""]
    out += _md_table(["env", "m", "C_Async / C_One", "D where C_Async < C_One", "R_Async / R_One there"], rows)
    return out + [""]


def _runs_of(segments) -> str:
    """Consecutive budgets of one label joined: ``[(budget, label), ...] -> "A ≤ 1e3, B 1e4–∞"``."""
    out, i = [], 0
    while i < len(segments):
        j = i
        while j + 1 < len(segments) and segments[j + 1][1] == segments[i][1]:
            j += 1
        lab = segments[i][1]
        b0, b1 = segments[i][0], segments[j][0]
        if lab is not None:
            if i == 0 and j > i:
                rng = f"≤ {_budget_label(b1)}"
            elif j == len(segments) - 1 and j > i:
                rng = f"≥ {_budget_label(b0)}" if not math.isinf(b0) else "∞"
            elif j > i:
                rng = f"{_budget_label(b0)}–{_budget_label(b1)}"
            else:
                rng = _budget_label(b0)
            out.append(f"{lab} {rng}")
        i = j + 1
    return ", ".join(out)


def _note_map(mruns, folder) -> list:
    import json

    from .arena_plots import _MAP_SHORT
    from .arena_sequential import map_certainty

    if mruns is None or not len(mruns):
        return []
    cert = map_certainty(mruns)
    envs = list(dict.fromkeys(mruns.env))
    first = min(set(mruns.t))
    methods = mruns.drop_duplicates(["method", "value"])
    what = "; ".join(f"{m} " + ("" if len(g) == 1 and not np.isfinite(g.value.iloc[0]) else
                                ", ".join(_fmt_g(v) for v in sorted(g.value)))
                     for m, g in methods.groupby("method", sort=False))
    out = ["## The map: which method has the lowest mean R(t) within a budget of B scalars", "",
           f"Asynchronous protocol, each method at the g the tuning chose for it; methods and values: {what}. "
           "Per (N, t), the budgets B from 0 to ∞ with the label of the point with the lowest mean R(t) among those "
           "whose mean C(t) ≤ B (`map_<env>.png`, `map.csv`, `bandits.experiments.arena_plots.map_table`); consecutive "
           "budgets of one winner joined. A `?` marks a winner the runs do not separate from the runner-up (the best "
           "point of another method within B; paired 95 % Student interval of their R(t) difference containing 0: "
           "`bandits.experiments.arena_sequential.map_certainty`, hatched in the figures).", ""]
    rows = []
    for env in envs:
        c = cert[cert.env == env]
        last = max(set(c.t))
        for N in sorted(set(c.N)):
            row = [env, str(N), str(last)]
            for t in (first, last):
                seg = []
                for r in c[(c.N == N) & (c.t == t)].sort_values("budget").itertuples():
                    lab = None if r.winner is None else (
                        _MAP_SHORT.get(r.winner, r.winner)
                        + (f" ({_fmt_g(r.winner_value)})" if np.isfinite(r.winner_value) and r.winner in
                           ("Async-KernelUCB", "Approx-DisKernelUCB", "FedLinUCB", "DisLinUCB") else "")
                        + ("?" if r.status == "not separated" else ""))
                    seg.append((float(r.budget), lab))
                row.append(_runs_of(seg))
            rows.append(row)
    out += _md_table(["env", "N", "final t", f"t = {first}", "final t"], rows)
    counts = []
    for env in envs:
        c = cert[(cert.env == env) & (cert.status != "empty")]
        counts.append(f"{env} {int((c.status == 'not separated').sum())} of {len(c)}")
    out += ["", "(N-K: N-KernelUCB, One: OneKernelUCB, Approx: Approx-DisKernelUCB, Async: Async-KernelUCB, "
                "FedLin/DisLin: FedLinUCB/DisLinUCB; the communication value in brackets.) Cells whose winner is not "
                "separated from the runner-up, over every checkpoint: " + ", ".join(counts) + "."]
    ms = folder / "map_sequential.json"
    if ms.exists():
        s = json.loads(ms.read_text())
        added = step_tallies(s)[0]
        out[-1] += f" The map's sequential step (`map_sequential.json`) added {added} runs."
    return out + [""]


def note_markdown(folder) -> str:
    """``NOTE.md`` of an arena folder, written from its files only (never by hand): the runs (commit, sizes,
    counts), the sequential step, the recorded times, the failures, the multipliers the tuning chose, the fronts
    and the headline, the break-even rule, and the map with the cells it is not sure of. ``python -m
    bandits.report note <folder>`` writes it; so does the notebook's last cell."""
    import json
    from pathlib import Path

    folder = Path(folder)
    res, mruns, prov = load_folder(folder)
    cj = folder / "claims.json"
    claims_json = json.loads(cj.read_text())["claims"] if cj.exists() else []
    mode = prov.get("mode") or "?"
    out = [f"# {folder.name}: {mode} mode", "",
           "Written from this folder's files by `python -m bandits.report note` (the notebook's last cell does the "
           "same); never edited by hand: every number below is read from `results.csv`, `tuning.csv`, `map.csv`, "
           "`claims.json`, `sequential.json` and `provenance.json`. What the arena is, and why it is built so: the "
           "notebook (`arena.ipynb`) and the docstring of `bandits/experiments/arena.py`.", ""]
    out += _note_runs(res, mruns, prov, folder)
    if claims_json:
        from collections import Counter

        v = Counter(c["verdict"] for c in claims_json)
        out.append(f"- **Claims** (the package's own hypotheses and one implementation check; numbers, intervals, "
                   f"verdicts and causes in `claims.json`): " + ", ".join(f"{v[k]} {k}" for k in
                                                                      ("PASS", "FAIL", "WITHIN", "INCONCLUSIVE") if v[k]) + ".")
    fr = _failed_rows(res, mruns)
    if fr:
        out += ["", "The failed runs:", ""]
        out += _md_table(["stage", "protocol, env", "method", "value", "g", "rep", "error"], fr)
    out += [""]
    out += _note_tuning(res)
    out += _note_fronts(res)
    out += _note_break_even(res, claims_json)
    out += _note_map(mruns, folder)
    out += [f"Regenerate the runs with `make figures NOTEBOOKS=notebooks/arena.py`; this note alone with "
            f"`python -m bandits.report note {_repo_path(folder)}`."]
    return "\n".join(out).rstrip() + "\n"
