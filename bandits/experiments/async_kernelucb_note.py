"""The ``NOTE.md`` of a Async-KernelUCB folder (``figures/async_kernelucb/``), written from the folder's files only: what its runs show beside the claims (:func:`note_markdown`; ``python -m bandits.report note``, and the notebook's last cell through ``bandits.experiments.notebook.NOTE_WRITERS``). Never a run's code: excluded from the run cache's fingerprint (``bandits.runner.NOT_IN_RUNS``).

Length (≈ 960 lines): one module on purpose. The note has a dozen sections (the runs, the tuning and its rule
applied again, the step, the times, the γ/q and D panels, why the communication claims fail), each reading the
same ten tables of the folder through one loader; split by section, every part would import the others' formatting
and the loader, with nothing run or tested apart."""

from __future__ import annotations

import numpy as np
from .async_kernelucb import ENV_DIM, LINEAR_METHODS, MUCH_SMALLER, runs_text
from .async_kernelucb_claims import COMPARABLE, exchange_size, largest_dictionary, lemma41_q_floor
from .claims import decided_at, duration, folder_csv, folder_json, md_table, repo_path, run_seconds, step_tallies

__all__ = ["note_markdown"]


_ENV_NAMES = {"f1": "f1", "f2": "f2", "magic": "Magic", "mushroom": "Mushroom", "movielens": "MovieLens", "yelp": "Yelp"}
_SHORT = {"Async-KernelUCB": "Async", "Approx-DisKernelUCB": "Approx", "OneKernelUCB": "One", "NKernelUCB": "N"}
_CAUSE_SHORT = {"paper": "the paper", "setting": "a setting", "approximation": "an approximation", "open": "open",
                "hypothesis": "hypothesis"}
_CLAIM_KINDS = (("fig2-kernel-vs-linear-regret", "kernel < linear: R(T)"),
                ("fig2-kernel-vs-linear-comm", "kernel < raw sharing: C(T)"),
                ("fig2-async-vs-approx-comm", f"Async / Approx C(T) < {MUCH_SMALLER:g}"),
                ("fig2-async-vs-approx-regret", f"Async / Approx R(T) ≤ {COMPARABLE:g}"),
                ("fig2-extremes", "One ≤ Async ≤ N: R(T)"))
_PAPER = "`../shared/papers/async-kernelucb.txt`"
#: The commit at which the measurement of the section "Measured outside these runs" was made.
_MEASURED_AT = "d49f374"


def _env(e: str) -> str:
    return _ENV_NAMES.get(e, e)


def _and(xs) -> str:
    xs = [str(x) for x in xs]
    return xs[0] if len(xs) == 1 else ", ".join(xs[:-1]) + " and " + xs[-1] if xs else ""


def _n(x, sig: int = 3) -> str:
    """A number for the note: ``sig`` significant digits; thousands grouped by a space below 10⁵, ``2.09e10``
    beyond (and below 0.01)."""
    import math

    try:
        x = float(x)
    except (TypeError, ValueError):
        return "–"
    if not math.isfinite(x):
        return "–"
    if x == 0:
        return "0"
    a = abs(x)
    if a >= 1e5 or a < 1e-2:
        m, e = f"{x:.{sig - 1}e}".split("e")
        return f"{m}e{int(e)}"
    if a >= 100:
        return f"{round(x):,}".replace(",", " ")
    return f"{x:.{sig}g}"


def _pct(x) -> str:
    return f"{100 * float(x):.0f} %"


def _rng_pct(xs) -> str:
    return _rng([100 * float(x) for x in xs], lambda v: f"{v:.0f}") + " %"


def _rng(xs, f=_n) -> str:
    xs = [float(x) for x in xs if np.isfinite(x)]
    if not xs:
        return "–"
    lo, hi = f(min(xs)), f(max(xs))
    return lo if lo == hi else f"{lo}–{hi}"


_secs = duration  # bandits.experiments.claims


def _read(folder):
    """The folder's files: ``dict`` with ``prov``, ``p`` (the run's parameters over the mode's defaults), the
    CSVs as DataFrames (None when absent or empty), ``claims`` (claims.json's list) and ``seq``."""
    from pathlib import Path


    from . import async_kernelucb as ex

    folder = Path(folder)

    def js(name):
        return folder_json(folder, name)

    def csv(name):
        return folder_csv(folder, name)

    prov = js("provenance.json") or {}
    mode = prov.get("mode") or "?"
    p = dict(ex._QUICK if mode == "quick" else ex._FULL)
    p.update(prov.get("parameters") or {})
    runs = csv("runs.csv")
    if runs is not None and "T" in runs and not prov.get("parameters"):
        p["T"] = int(runs["T"].max())
    return {"folder": folder, "prov": prov, "mode": mode, "p": p, "runs": runs, "tune": csv("tuning_grid.csv"),
            "sel": csv("selected.csv"), "comm": csv("comm_table.csv"), "dsens": csv("D_sensitivity.csv"),
            "gsens": csv("gamma_sensitivity.csv"), "dsens_runs": csv("D_sensitivity_runs.csv"),
            "gsens_runs": csv("gamma_sensitivity_runs.csv"), "claims": (js("claims.json") or {}).get("claims", []),
            "seq": js("sequential.json")}


def _envs(d) -> list:
    order = list(d["p"].get("envs") or [])
    seen = list(dict.fromkeys(d["runs"].env)) if d["runs"] is not None else []
    return [e for e in order if e in seen] + [e for e in seen if e not in order]


def _methods(d) -> list:
    from .async_kernelucb import METHODS

    have = set(d["runs"].method) if d["runs"] is not None else set()
    return [m for m in METHODS if m in have]


def _cell(d, env, method):
    r = d["runs"]
    return r[(r.env == env) & (r.method == method)] if r is not None else None


def _m(d, env, method, col) -> float:
    x = _cell(d, env, method)
    return float(x[col].mean()) if x is not None and len(x) and col in x else float("nan")


def _random(d, env) -> float:
    from .async_kernelucb import RANDOM

    c = d["comm"]
    if c is None:
        return float("nan")
    x = c[(c.env == env) & (c.method == RANDOM)]
    return float(x.R_T.iloc[0]) if len(x) else float("nan")


def _one_C(d, env) -> float:
    from .async_kernelucb import ENV_DIM

    one = _m(d, env, "OneKernelUCB", "C_T")
    if not np.isfinite(one):
        p = d["p"]
        one = float((ENV_DIM[env] + 1) * int(p["N"]) * int(p["T"]))
    return one


def _claim(d, cid):
    return next((c for c in d["claims"] if c["id"] == cid), None)


def _note_runs(d) -> list:
    from .async_kernelucb import LINEAR_METHODS, PAPER_RUNS

    p, prov, runs, tune = d["p"], d["prov"], d["runs"], d["tune"]
    envs, ms = _envs(d), _methods(d)
    git = prov.get("git") or {}
    commit = git.get("commit") or "unknown"
    line = (f"- **What ran.** Figure 2 at T = {_n(p['T'])}, N = {p['N']} clients (one active per step), K = {p['K']} "
            f"arms, on {len(envs)} environment{'s' if len(envs) != 1 else ''} ({_and(_env(e) for e in envs)}), "
            f"{len(ms)} methods ({', '.join(ms)}) and random play's expected regret. Commit `{commit[:7]}`"
            + (" (the working tree not clean when provenance.json was written: the folder being written counts)"
               if git.get("dirty") else "")
            + f", master seed {prov.get('seed', 0)}, {prov.get('n_jobs', '?')} worker"
            f"{'' if prov.get('n_jobs') == 1 else 's'} ({prov.get('backend', '?')}), "
            f"arithmetic `{prov.get('arithmetic', '?')}`, written {prov.get('created', '?')}.")
    counts = runs.groupby(["env", "method"], sort=False).size()
    n0 = int(p.get("n_runs", counts.mode().iloc[0]))
    fewer = {}
    for (e, m), n in counts.items():
        if int(n) != n0:
            fewer.setdefault((m, int(n)), []).append(_env(e))
    every = runs_text(n0) if n0 != PAPER_RUNS else f"the paper's {PAPER_RUNS}"
    line += f" Runs per curve: {every} for every method"
    if fewer:
        line += ", except " + "; ".join(f"**{m}: {runs_text(n)}** on {_and(es)}" for (m, n), es in fewer.items())
    line += f" ({len(runs)} runs, `runs.csv`; the curves in `results.csv`)."
    out = [line]
    if tune is not None:
        gam = sorted(set(tune.gamma.dropna().astype(float)))
        alp = sorted(set(tune.alpha.dropna().astype(float)))
        per = tune.groupby(["env", "method", "gamma", "alpha"], dropna=False).size()
        Ts = sorted(set(tune["T"].astype(int)))
        nl = [m for m in LINEAR_METHODS if m in set(tune.method)]
        out.append(f"- **Tuning** (the paper's grid search, §5: \"a grid search of γ ∈ {{0.1, 1, 4}}\" for the kernel "
                   f"width and \"grid search for α in {{0.1, 1, 4}}\"): γ_k ∈ {{{', '.join(_n(g) for g in gam)}}} × "
                   f"α ∈ {{{', '.join(_n(a) for a in alp)}}}"
                   + (f" (the linear methods: α alone)" if nl else "")
                   + f", {_rng(per.values, lambda x: str(int(x)))} run{'s' if per.max() > 1 else ''} of T = "
                   f"{_and(_n(t) for t in Ts)} per "
                   f"setting (seeds {int(tune.rep.min())}–{int(tune.rep.max())}, apart from the figure's), "
                   f"{len(tune)} runs (`tuning_grid.csv`); the choice by the rule fixed before the runs (`selected.csv`, "
                   f"column `gamma_rule`; `select_settings` in `bandits/experiments/async_kernelucb.py`), in the table "
                   f"below.")
    extra = []
    ds = d["dsens"]
    if ds is not None:
        base = f"Async-KernelUCB (D={float(p['D']):g})"
        other = ds[ds.method.str.startswith("Async-KernelUCB (D=") & (ds.method != base)]
        if len(other):
            extra.append(f"the D table (`D_sensitivity.csv`): {int(other.runs.sum())} runs beyond Figure 2's on "
                         f"{_and(_env(e) for e in dict.fromkeys(other.env))} ({_rng(other.runs, lambda x: str(int(x)))} "
                         f"per D)")
    gs = d["gsens"]
    if gs is not None:
        real = gs[gs.note.isna() | (gs.note.astype(str) == "")] if "note" in gs else gs
        same = _gsens_figure2(d, real)
        if len(real):
            extra.append(f"the γ/q panel (`gamma_sensitivity.csv`, `gamma_sensitivity.png`): "
                         f"{int(real.runs.sum()) - same} runs beyond Figure 2's at T = {_n(p['T'])} on "
                         f"{_and(_env(e) for e in dict.fromkeys(real.env))} "
                         f"({_rng(real.runs, lambda x: str(int(x)))} per point"
                         + (f"; {same} more, at Figure 2's own settings, are its runs" if same else "") + ")")
    if extra:
        out[-1] += " Beside Figure 2: " + "; ".join(extra) + "."
    return out


def _gsens_figure2(d, real) -> int:
    """Runs of the γ/q panel at a (method, γ, α, q) of Figure 2 itself: its first runs, shared through the cache."""
    sel, p = d["sel"], d["p"]
    if sel is None or real is None or not len(real):
        return 0
    n = 0
    for r in real.itertuples():
        s = sel[(sel.env == r.env) & (sel.method == r.method)]
        if len(s) and np.isclose(float(s.gamma.iloc[0]), r.gamma) and np.isclose(float(s.alpha.iloc[0]), r.alpha) \
                and np.isclose(float(r.q), float(p["q"])):
            n += int(r.runs)
    return n


def _note_choices(d) -> list:
    from .async_kernelucb import ENV_DIM

    p = d["p"]
    envs = _envs(d)
    fresh = [e for e in envs if e in ("f1", "f2", "movielens", "yelp")]
    raw = ""
    if fresh:
        dd = ENV_DIM[fresh[0]]
        raw = f" ((d + 1)·N scalars a step, {_n((dd + 1) * int(p['N']) * int(p['T']), 2)} in all at d = {dd})"
    line = ("- **Choices where the paper is silent** (`bandits/experiments/async_kernelucb.py` has all of them): the "
            "comparator of \"relatively lower communication cost for joint kernel estimation\" (§5.2) is OneKernelUCB, "
            f"which sends every raw point{raw}; \"much smaller\" is a ratio of mean communication below "
            f"{MUCH_SMALLER:g}, \"comparable\" a regret ratio at most {COMPARABLE:g}, both fixed before the runs; "
            f"λ = {float(p['lam']):g}, D = {float(p['D']):g}, q = {float(p['q']):g} (Approx-DisKernelUCB: q̄ = q"
            + (" and Async-KernelUCB's variance-sum trigger, Algorithm 1 line 7, with the same D"
               if p.get("approx_trigger", "var_sum") == "var_sum" else f", trigger `{p.get('approx_trigger')}`")
            + "); a kernel width the tuning runs do not decide is one common γ_k for every kernel method of an "
              "environment")
    if p.get("max_dict_frac"):
        line += (f"; a Nyström setting whose tuning dictionaries keep more than {_pct(p['max_dict_frac'])} of the "
                 f"points is not run at T = {_n(p['T'])} (`selected.csv`, `excluded`)")
    return [line + "."]


def _note_sequential(d) -> list:
    s, folder = d["seq"], d["folder"]
    if not s:
        return []
    des = s.get("design", {})
    sch = [lk["n"] for lk in des.get("looks", [])] or list(des.get("schedule", []))
    stages = s.get("stages", [])
    added, failed, refused = step_tallies(s)
    at = decided_at(s)
    per = "; ".join(f"look {st.get('look')} (n = {st.get('n')}): {int(st.get('runs', 0))} runs on "
                    f"{len(st.get('cells', []))} cells, {_secs(st.get('recorded_s', 0.0))}" for st in stages
                    if int(st.get("runs", 0)))
    if s.get("stopped"):
        why = f"Stopped: {s['stopped']}" + (f" ({refused[-1]['refused']})" if refused else "") + "."
    elif stages and sch and max(int(st.get("n", 0)) for st in stages) >= max(sch):
        why = f"Stopped: after its last look (n = {max(sch)})."
    else:
        why = "Stopped: no claim left open."
    still = [f"`{cid}` ({r['verdict']} at n = {r.get('decided_at_n')}"
             + (f": {r['within']}" if r.get("within") else "") + ")"
             for cid, r in s.get("claims", {}).items() if r.get("verdict") in ("WITHIN", "INCONCLUSIVE")]
    budget = s.get("budget_s")
    line = (f"- **The sequential step** (`bandits.sequential`, {des.get('spending', '?')} spending, looks at "
            f"n = {', '.join(str(n) for n in sch)} runs, budget {_n(budget) + ' CPU-s' if budget else 'none'}): "
            f"{added} runs added ({_secs(s.get('cpu_s', 0.0))} of recorded run time, {failed} failed) to the cells "
            f"behind the claims still open" + (f" ({per})" if per else "") + f"; claims decided at {at}. {why}")
    if still:
        line += " Not PASS or FAIL after it: " + "; ".join(still) + "."
    line += ((" The added runs are kept in `sequential_runs/` (a row per run, with its look); "
              if (folder / "sequential_runs" / "manifest.json").exists() else " The added runs are in the run cache only; ")
             + "`claims.json` judges each claim on the runs its look had; `runs.csv` holds the notebook's runs, which "
               "the figures and the tables below show.")
    return [line]


def _not_in_fig2(extra, runs):
    """The rows of a sensitivity table's runs (``D_sensitivity_runs.csv``, ``gamma_sensitivity_runs.csv``) that
    are not Figure 2's own runs (a run at Figure 2's setting is found in the run cache: the same repetition,
    R(T) and recorded time, compared at six significant digits); None when the folder
    lacks the file."""
    key = ["rep", "R_T", "wall_time"]
    if extra is None or runs is None or not (set(key) <= set(extra.columns) and set(key) <= set(runs.columns)):
        return extra

    def rows(df):
        return [tuple(float(f"{float(v):.6g}") for v in r) for r in df[key].itertuples(index=False, name=None)]

    seen = set(rows(runs))
    return extra[[r not in seen for r in rows(extra)]]


def _note_time(d) -> list:
    runs, tune, s = d["runs"], d["tune"], d["seq"]
    parts = []
    secs, words = run_seconds(runs)
    if tune is not None and "wall_time" in tune:
        tsecs, twords = run_seconds(tune)
        parts.append(f"the {len(tune)} tuning runs {_secs(tsecs.sum(skipna=True))}"
                     + (f" ({twords})" if twords != words else ""))
    parts.append(f"Figure 2's {len(runs)} runs {_secs(secs.sum(skipna=True))} (by environment and method "
                 "below)")
    for key, what in (("dsens_runs", "the D table's"), ("gsens_runs", "the γ/q panel's")):
        extra = _not_in_fig2(d.get(key), runs)
        if extra is not None and "wall_time" in extra:
            esecs, ewords = run_seconds(extra)
            parts.append(f"{what} {len(extra)} runs beyond Figure 2's {_secs(esecs.sum(skipna=True))}"
                         + (f" ({ewords})" if ewords != words else ""))
    if s and s.get("cpu_s"):
        parts.append(f"the sequential step's {sum(int(st.get('runs', 0)) for st in s.get('stages', []))} added runs "
                     f"{_secs(s['cpu_s'])} (`sequential.json`)")
    line = f"- **Time**, from the runs' own recorded times ({words}): {_and(parts)}"
    missing = [w for key, runs_key, w in (("dsens", "dsens_runs", "the D table's"), ("gsens", "gsens_runs", "the γ/q panel's"))
               if d[key] is not None and d.get(runs_key) is None]
    if missing:
        line += (f"; {_and(missing)} runs have no recorded times in this folder's files: they were written before the "
                 "notebook kept them, one row per run, in `D_sensitivity_runs.csv` and `gamma_sensitivity_runs.csv`")
    return [line + " (`figures/TIMES.md` gives the time on 2 cores)."]


def _note_claims(d) -> list:
    from collections import Counter

    cl = d["claims"]
    if not cl:
        return [], []
    v = Counter(c["verdict"] for c in cl)
    head = [f"- **Claims** (§5.2, each half of a compound sentence a claim of its own; numbers, intervals, verdicts, "
            f"causes and notes in `claims.json` and on the paper's page): "
            + ", ".join(f"{v[k]} {k}" for k in ("PASS", "FAIL", "WITHIN", "INCONCLUSIVE") if v[k]) + "."]
    envs = list(dict.fromkeys(c["id"].rsplit("-", 1)[1] for c in cl if c["id"].startswith("fig2-")))
    kinds = [(k, lab) for k, lab in _CLAIM_KINDS if any(c["id"].startswith(k + "-") for c in cl)]
    rows = []
    for e in envs:
        row = [_env(e)]
        for k, _ in kinds:
            c = _claim(d, f"{k}-{e}")
            if c is None:
                row.append("–")
            elif c["verdict"] == "PASS" or not c.get("cause"):
                row.append(c["verdict"])
            else:
                row.append(f"{c['verdict']} ({_CAUSE_SHORT.get(c['cause'], c['cause'])})")
        rows.append(row)
    body = ["## The claims' verdicts", "",
            "Per environment and claim (`claims.json`; the cause in brackets where a claim is not PASS: \"the paper\", "
            "the paper's statement does not hold here; \"a setting\", it depends on a setting the paper does not give; "
            "\"open\", not explained):", ""]
    body += md_table(["env"] + [lab for _, lab in kinds], rows)
    return head, body + [""]


def _note_tuning(d) -> list:
    from .async_kernelucb import KERNEL_METHODS, NYSTROM_METHODS

    import re

    sel, tune, p = d["sel"], d["tune"], d["p"]
    if sel is None:
        return []

    ms = [m for m in _methods(d) if m in set(sel.method)]
    rows = []
    for e in _envs(d):
        s = sel[sel.env == e].set_index("method")
        row = [_env(e)]
        for m in ms:
            if m not in s.index:
                row.append("–")
                continue
            g, a = s.loc[m, "gamma"], s.loc[m, "alpha"]
            row.append(f"{_n(g)}, {_n(a)}" if m in KERNEL_METHODS and np.isfinite(float(g)) else _n(a))
        rules = [str(x) for m, x in s.get("gamma_rule", {}).items() if m in KERNEL_METHODS and isinstance(x, str)]
        common = next((re.search(r"common γ = ([^ ]+) .*?best: ([^)]+)\)", x) for x in rules if "common γ" in x), None)
        if common:
            row.append(f"common γ_k = {common.group(1)} (score {common.group(2)})")
        elif rules and all(x.startswith("decided") for x in rules):
            row.append("each method's own γ_k (decided)")
        else:
            row.append("–")
        rows.append(row)
    out = ["## Tuning: the (γ_k, α) chosen", "",
           "Kernel methods γ_k, α; linear methods α (`selected.csv`). Rule (`select_settings`): a kernel method keeps "
           "the γ_k of its smallest mean tuning regret only if it beats every other γ_k in a paired comparison over the "
           "tuning runs; where any kernel method's γ_k is undecided, every kernel method of the environment takes the "
           "γ_k with the smallest mean over them of min_α R(γ, α) / min_{γ,α} R (its score), each at its best α.", ""]
    out += md_table(["env"] + [_SHORT.get(m, m) for m in ms] + ["γ_k"], rows)
    frac = p.get("max_dict_frac")
    if tune is not None and frac:
        t = tune.assign(dict_frac=tune.dict_size / tune["T"])
        g = t.groupby(["env", "method", "gamma", "alpha"], sort=False).dict_frac.mean().reset_index()
        bad = g[g.method.isin(NYSTROM_METHODS) & (g.dict_frac > frac)]
        if len(bad):
            bits = []
            for e, ge in bad.groupby("env", sort=False):
                bits.append(f"{_env(e)}: " + ", ".join(
                    f"{_SHORT[m]} at γ_k = {_and(_n(x) for x in sorted(set(gm.gamma)))} "
                    f"({_rng_pct(gm.dict_frac)}, α = {_and(_n(x) for x in sorted(set(gm.alpha)))})"
                    for m, gm in ge.groupby("method", sort=False)))
            out += ["", f"Not selectable at T = {_n(p['T'])} (tuning dictionary above {_pct(frac)} of the "
                        f"{_and(_n(x) for x in sorted(set(tune['T'])))} points): " + "; ".join(bits) + "."]
    out += _note_rule_check(d)
    return out + [""]


def _gamma_scores(d, env):
    """Rule 4's scores ``{γ: mean over the kernel methods of min_α R(γ, α) / min R}`` on ``env``'s tuning runs (0/0
    read as 1, x/0 as ∞: :func:`bandits.experiments.async_kernelucb._relative_regret`), the feasible settings per
    method, and the kernel methods whose best tuning regret is 0."""
    from .async_kernelucb import KERNEL_METHODS, NYSTROM_METHODS, _relative_regret

    p, tune = d["p"], d["tune"]
    r = tune[tune.env == env]
    r = r.assign(dict_frac=r.dict_size / r["T"])
    g = r.groupby(["method", "gamma", "alpha"])[["R_T", "dict_frac"]].mean().reset_index()
    frac = p.get("max_dict_frac")
    feas = {}
    for m in [m for m in KERNEL_METHODS if m in set(g.method)]:
        x = g[g.method == m]
        if frac and m in NYSTROM_METHODS:
            ok = x[~(x.dict_frac > frac)]
            x = ok if len(ok) else x.loc[[x.dict_frac.idxmin()]]
        feas[m] = x
    if not feas:
        return {}, feas, []
    common = set.intersection(*(set(np.round(f.gamma.astype(float), 12)) for f in feas.values()))
    score = {gm: float(np.mean([_relative_regret(f[np.isclose(f.gamma, gm)].R_T.min(), f.R_T.min())
                                for f in feas.values()])) for gm in sorted(common)}
    zero = [m for m, f in feas.items() if f.R_T.min() == 0]
    return score, feas, zero


def _note_rule_check(d) -> list:
    """The selection rule applied again to ``tuning_grid.csv`` by the code; where it differs from ``selected.csv``,
    why (a score of 0/0 recorded as nan), with the scores."""
    import warnings

    from .async_kernelucb import NYSTROM_METHODS, select_settings

    sel, tune, p = d["sel"], d["tune"], d["p"]
    if tune is None or sel is None or not len(tune):
        return []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            now, _ = select_settings(p, tune, int(tune["T"].max()))
    except Exception:  # noqa: BLE001 - a folder the rule cannot read: no section
        return []
    differ = {}
    for (e, m), (g, a) in now.items():
        s = sel[(sel.env == e) & (sel.method == m)]
        if not len(s):
            continue
        g0, a0 = s.gamma.iloc[0], s.alpha.iloc[0]
        same_g = (g is None and not np.isfinite(float(g0))) or (g is not None and np.isclose(float(g), float(g0)))
        if not (same_g and np.isclose(float(a), float(a0))):
            differ.setdefault(e, []).append((m, (g, a), (g0, a0)))
    if not differ:
        return ["", "`select_settings` applied to `tuning_grid.csv` gives the choices of `selected.csv` on every "
                    "environment."]
    out = []
    for e, diffs in differ.items():
        score, feas, zero = _gamma_scores(d, e)
        rule_txt = " ".join(str(x) for x in sel[sel.env == e].gamma_rule.dropna())
        g_old = sorted(set(float(x[2][0]) for x in diffs if x[2][0] is not None and np.isfinite(float(x[2][0]))))
        g_new = sorted(set(float(x[1][0]) for x in diffs if x[1][0] is not None))
        bits = [f"**The tuning rule on {_env(e)}.**"]
        if zero and "nan" in rule_txt:
            zs = []
            for m in zero:
                f = feas[m]
                z = f[f.R_T == 0]
                al = sorted(set(z.alpha))
                every = all(set(np.round(z[z.alpha == a].gamma, 12)) >= set(np.round(f.gamma, 12)) for a in al)
                zs.append(f"{m}'s best mean tuning regret is 0 (at α = {_and(_n(a) for a in al)}"
                          + (", every γ_k" if every else f", γ_k = {_and(_n(x) for x in sorted(set(z.gamma)))}") + ")")
            bits.append(f"{_and(zs)}, so its score min_α R(γ, α) / min R is 0/0 at every γ_k that reaches it; "
                        f"`selected.csv` records the score as nan and γ_k = {_and(_n(x) for x in g_old)}, the grid's "
                        "first, without a comparison.")
        else:
            bits.append(f"`selected.csv` has γ_k = {_and(_n(x) for x in g_old)}.")
        if score:
            bits.append("`select_settings`, which reads 0/0 as 1 and x/0 as ∞ (`_relative_regret`), applied to "
                        "`tuning_grid.csv` scores " + ", ".join(f"{_n(v)} (γ_k = {_n(gm)})" for gm, v in score.items())
                        + f" and picks γ_k = {_and(_n(x) for x in g_new)}")
            cmp_ = []
            for m in [m for m in NYSTROM_METHODS if m in feas]:
                f = feas[m]
                at = lambda gm: float(f[np.isclose(f.gamma, gm)].R_T.min())  # noqa: E731
                if g_new and g_old:
                    cmp_.append(f"{m}'s mean tuning regret {_n(at(g_new[0]))} at γ_k = {_n(g_new[0])} against "
                                f"{_n(at(g_old[0]))} at {_n(g_old[0])}")
            bits[-1] += (" (" + "; ".join(cmp_) + ")" if cmp_ else "") + "."
        others = [_env(x) for x in _envs(d) if x not in differ]
        if others:
            bits.append(f"On {_and(others)} it gives the choices of `selected.csv`.")
        out += ["", " ".join(bits)]
    return out


def _note_beside(d) -> list:
    from .async_kernelucb import HEAVY_ENVS, LINEAR_METHODS, NEAR_RANDOM

    p, envs = d["p"], _envs(d)
    out = []
    if "mushroom" in envs:
        lin = [(m, _cell(d, "mushroom", m)) for m in LINEAR_METHODS]
        lin = [(m, x) for m, x in lin if x is not None and len(x)]
        a = _cell(d, "mushroom", "Async-KernelUCB")
        if _mushroom_linear_zero(d):
            s = (f"- **Mushroom's linear methods have zero regret.** {_and(m + chr(39) + 's' for m, _ in lin)} "
                 "regret is 0 in every run: a linear method's first choice (the widest confidence width under the "
                 "prior) is the arm of largest norm, which has mean reward exactly 1 (below, \"Measured outside these "
                 "runs\").")
            if a is not None and len(a) and a.R_prior.notna().any():
                pp, rp, R = float(a.prior_pulls.mean()), float(a.R_prior.mean()), float(a.R_T.mean())
                sel = d["sel"]
                g = ""
                if sel is not None:
                    x = sel[(sel.env == "mushroom") & (sel.method == "Async-KernelUCB")]
                    g = f" at the selected γ_k = {_n(x.gamma.iloc[0])}" if len(x) else ""
                s += (f" Async-KernelUCB's {_n(R)} is {_n(rp)} of warm-up (at D = {float(p['D']):g} each of the "
                      f"{p['N']} clients makes {_n(pp / int(p['N']))} pulls on the prior before its first exchange, as "
                      f"each adds σ̃² = k(x, x)/λ = {1 / float(p['lam']):g} to the trigger sum of Algorithm 1 line 7: "
                      f"{_n(pp)} pulls, `R_prior`) and {_n(R - rp)} after it{g}.")
            out.append(s)
    near = []
    for e in envs:
        rnd = _random(d, e)
        if not np.isfinite(rnd) or rnd <= 0:
            continue
        Rs = {m: _m(d, e, m, "R_T") for m in _methods(d)}
        Rs = {m: v for m, v in Rs.items() if np.isfinite(v)}
        if Rs and min(Rs.values()) >= NEAR_RANDOM * rnd:
            b = min(Rs, key=Rs.get)
            near.append((e, rnd, b, Rs[b]))
    if near:
        out.append(f"- **Near random play.** On {_and(_env(e) for e, *_ in near)} every method's R(T) is at least "
                   f"{_pct(NEAR_RANDOM)} of random play's expected ({_and(_n(r) for _, r, *_ in near)}); the best: "
                   + "; ".join(f"{_env(e)} {b} {_n(v)} ({_pct(v / r)})" for e, r, b, v in near) + ". The panels say so.")
    fresh = [e for e in envs if e in HEAVY_ENVS and _cell(d, e, "Async-KernelUCB") is not None
             and len(_cell(d, e, "Async-KernelUCB"))]
    fixed = [e for e in envs if e not in HEAVY_ENVS and _cell(d, e, "Async-KernelUCB") is not None
             and len(_cell(d, e, "Async-KernelUCB"))]
    if fresh or fixed:
        s = "- **Dictionaries.** Async-KernelUCB's final dictionary (mean over runs)"
        bits = []
        if fresh:
            bits.append(f"on the fresh contexts ({_and(_env(e) for e in fresh)}) keeps "
                        f"{_rng([_m(d, e, 'Async-KernelUCB', 'dict_size') for e in fresh])} of the {_n(p['T'])} points")
        if fixed:
            mx = max(float(_cell(d, e, "Async-KernelUCB").dict_size.max()) for e in fixed)
            bits.append(f"on {_and(_env(e) for e in fixed)}, whose {p['K']} arms are fixed, at most {_n(mx)} (any run)")
        out.append(s + " " + "; ".join(bits) + "; each exchange moves O(|S|²) scalars (Theorem 4.5).")
    if not out:
        return []
    return ["## What the runs show beside the claims", ""] + out + [""]


def _note_comm(d) -> list:
    from .async_kernelucb import LINEAR_METHODS

    if d["runs"] is None:
        return []
    rows = []
    for e in _envs(d):
        R = {m: _m(d, e, m, "R_T") for m in _methods(d)}
        C = {m: _m(d, e, m, "C_T") for m in _methods(d)}
        lin = {m: R[m] for m in LINEAR_METHODS if m in R and np.isfinite(R[m])}
        bl = min(lin, key=lambda m: (lin[m], C[m])) if lin else None  # ties: the cheaper
        one_runs = len(_cell(d, e, "OneKernelUCB")) if "OneKernelUCB" in R else 0
        a, ap, o = C.get("Async-KernelUCB", np.nan), C.get("Approx-DisKernelUCB", np.nan), C.get("OneKernelUCB", np.nan)
        ratio = lambda x, y: _n(x / y) if np.isfinite(x) and np.isfinite(y) and y > 0 else "–"  # noqa: E731
        rows.append([
            _env(e),
            " · ".join([_n(R.get("Async-KernelUCB")), _n(R.get("Approx-DisKernelUCB")),
                        f"{_n(R.get('OneKernelUCB'))} ({one_runs})", _n(R.get("NKernelUCB")),
                        f"{_n(lin[bl])} ({bl})" if bl else "–", _n(_random(d, e))]),
            " · ".join([_n(a), _n(ap), _n(o), _n(C[bl]) if bl else "–"]),
            " · ".join([ratio(a, o), ratio(ap, o), ratio(a, ap)]),
            f"{_n(_m(d, e, 'Async-KernelUCB', 'prior_pulls'))}, {_n(_m(d, e, 'Async-KernelUCB', 'R_prior'))}"])
    out = ["## Regret and communication", "",
           "Means over each method's runs in `runs.csv` (OneKernelUCB's run count in brackets), communication C(T) in "
           "scalars (up + down), and Async-KernelUCB's warm-up (pulls on the prior before a client's first exchange, "
           "and their regret); `comm_table.csv` has every method:", ""]
    out += md_table(["env", "R(T) Async · Approx · One · N · best linear · random",
                     "C(T) Async · Approx · One (raw) · best-regret linear", "Async/One · Approx/One · Async/Approx",
                     "warm-up: prior pulls, R_prior"], rows)
    return out + [""]


def _note_times(d) -> list:
    runs, tune = d["runs"], d["tune"]
    if runs is None or "wall_time" not in runs:
        return []
    ms = _methods(d)
    secs, words = run_seconds(runs)
    rows = []
    for e in _envs(d):
        row = [_env(e)]
        for m in ms:
            x = _cell(d, e, m)
            xs = secs.loc[x.index] if x is not None and len(x) else None
            row.append(f"{_n(xs.sum())} ({_n(xs.mean())})" if xs is not None else "–")
        row.append(_n(secs[runs.env == e].sum()))
        rows.append(row)
    tot = ["all"] + [_n(secs[runs.method == m].sum()) for m in ms] + [_n(secs.sum())]
    out = ["## The runs' own recorded times", "",
           f"Seconds per environment and method ({words}), summed over Figure 2's runs (the mean per run in "
           "brackets; `runs.csv`):", ""]
    out += md_table(["env"] + ms + ["sum"], rows + [tot])
    if tune is not None and "wall_time" in tune:
        tsecs, twords = run_seconds(tune)
        by = tune.assign(_s=tsecs).groupby("method", sort=False)._s.agg(["sum", "size"])
        out += ["", f"Tuning (`tuning_grid.csv`, {twords}): {len(tune)} runs, {_n(tsecs.sum())} s; by method "
                    + ", ".join(f"{m} {_n(r['sum'])} s ({int(r['size'])} runs)" for m, r in by.iterrows()) + "."]
    return out + [""]


def _note_gsens(d) -> list:
    gs, p = d["gsens"], d["p"]
    if gs is None:
        return []
    out = [f"## Where the communication story holds: the γ/q panel (`gamma_sensitivity.csv`, T = {_n(p['T'])})", "",
           "Each point: R(T) at C(T) scalars (|S|, the final dictionary), means over the panel's runs; the comparison "
           "is with OneKernelUCB's raw sharing and with NKernelUCB, which never communicates.", ""]
    for e in dict.fromkeys(gs.env):
        g = gs[gs.env == e]
        oR, oC, nR, rnd = _m(d, e, "OneKernelUCB", "R_T"), _one_C(d, e), _m(d, e, "NKernelUCB", "R_T"), _random(d, e)
        bits = []
        for m in dict.fromkeys(g.method):
            x = g[g.method == m].sort_values(["gamma", "q"], ascending=[True, False])
            pts = []
            for r in x.itertuples():
                stand = isinstance(r.note, str) and r.note
                s = (f"γ_k = {_n(r.gamma)}, q = {_n(r.q)}: {_n(r.R_T)} at {_n(r.C_T)} (|S| {_n(r.dict_size)}"
                     + (f" of {_n(r.T)}; the tuning runs at T = {_n(r.T)} stand in, not run at T = {_n(p['T'])}"
                        if stand else "") + ")")
                pts.append(s)
            bits.append(f"{m}: " + "; ".join(pts))
        real = g[g.note.isna() | (g.note.astype(str) == "")] if "note" in g else g
        below = real[real.C_T < oC]
        good = below[below.R_T < nR] if np.isfinite(nR) else below.iloc[0:0]
        ref = (f"OneKernelUCB: R = {_n(oR)} at {_n(oC, 2)} scalars; NKernelUCB: R = {_n(nR)} at 0; random play "
               f"{_n(rnd)}")
        s = f"- **{_env(e)}** ({ref}). " + ". ".join(bits) + "."
        if not len(below):
            s += " No point of the panel sends fewer scalars than raw sharing."
        elif not len(good):
            s += (f" {len(below)} of its {len(real)} points send{'s' if len(below) == 1 else ''} fewer scalars than "
                  "raw sharing, none of them with a "
                  "regret below NKernelUCB's: no setting of the panel gives both lower communication than raw sharing "
                  "and a regret better than not communicating at all; the story does not hold at this size.")
        else:
            b = good.loc[good.R_T.idxmin()]
            s += (f" {len(below)} of its {len(real)} points send{'s' if len(below) == 1 else ''} fewer scalars than "
                  f"raw sharing, {len(good)} of them "
                  f"with a regret below NKernelUCB's; the lowest-regret of those, {b.method} at γ_k = {_n(b.gamma)}, "
                  f"q = {_n(b.q)}: {_n(b.R_T)} at {_n(b.C_T)}, {_n(oC / b.C_T, 2)}× less than OneKernelUCB at "
                  f"{_n(b.R_T / oR, 2)}× its regret. Here the paper's story holds.")
        out.append(s)
    return out + [""]


def _note_why(d) -> list:
    from .async_kernelucb import ENV_DIM, NYSTROM_METHODS

    p, gs = d["p"], d["gsens"]
    T, N = int(p["T"]), int(p["N"])
    fails = [c["id"].rsplit("-", 1)[1] for c in d["claims"]
             if c["id"].startswith("fig2-kernel-vs-linear-comm-") and c["verdict"] == "FAIL"]
    passes = [c["id"].rsplit("-", 1)[1] for c in d["claims"]
              if c["id"].startswith("fig2-kernel-vs-linear-comm-") and c["verdict"] == "PASS"]
    aa = [c for c in d["claims"] if c["id"].startswith("fig2-async-vs-approx-comm-")]
    if not fails and all(c["verdict"] == "PASS" for c in aa):
        return []
    out = ["## Why the communication claims fail: their causes in `claims.json`", "",
           "**How the paper counts** (" + _PAPER + "). §3.1: the communication cost C_T \"is measured by the total "
           "number of scalars being transferred across the system up to time T\". Theorem 4.5 counts, per exchange, "
           "the dictionary's points and the embedded m × m statistics: \"C_T ≤ 2γ_T(N + 4β/D)(3(|S_B|² + |S_B|) + "
           "d|S_B|)\", \"where the dictionary size |S_B| ≤ 12β(1 + βD)qγ_T due to Lemma 4.1\". Raw sharing, §3.2: exact "
           "kernel regression's \"communication cost (Li et al., 2022), i.e., O(T) as {(x_s, y_s)}_{s∈D} needs to be "
           "transferred across the clients\"; §5: OneKernelUCB's \"data aggregation happens immediately after each new "
           "data point becomes available\". Figure 2's caption (\"Experiment results on synthetic and real-world "
           "datasets.\") and §5.2 name no other unit. This package's count (`exchange_scalars` in "
           "`bandits/algorithms/async_kernel_ucb.py`, legs (a), (d), (f)) is Theorem 4.5's term by term, without the "
           "labels y_s the paper also sends (Algorithm 1, lines 8 and 11), so it is never above the paper's; packing "
           "the symmetric statistics would halve the m² terms at most. The FAILs are therefore not an accounting "
           "difference.", ""]
    if fails:
        per, Bs, once, atB = [], [], [], []
        for e in fails:
            dd = ENV_DIM[e]
            S, B, one = _m(d, e, "Async-KernelUCB", "dict_size"), _m(d, e, "Async-KernelUCB", "comm_rounds"), _one_C(d, e)
            if not (np.isfinite(S) and np.isfinite(B) and B > 0):
                continue
            per.append((e, S, exchange_size(S, dd) / one))
            Bs.append(B)
            once.append(largest_dictionary(one / N, dd))
            atB.append(largest_dictionary(one / B, dd))
        ids = ", ".join(f"`fig2-kernel-vs-linear-comm-{e}`" for e in fails)
        s = f"**Against raw sharing ({ids}: cause \"the paper\").**"
        if per:
            parts = [f"{_n(r, 2) + '×' if r >= 1 else _pct(r)} ({_env(e)}, |S| = {_n(S)})" for e, S, r in per]
            one_txt = _and(sorted(set(_n(_one_C(d, e), 2) for e, *_ in per)))
            s += (f" At Theorem 4.5's count one exchange at Async-KernelUCB's final dictionary |S| already costs "
                  f"{_and(parts)} of OneKernelUCB's whole run, (d + 1)·N·T = {one_txt}, and Async-KernelUCB makes "
                  f"{_rng(Bs)} exchanges (`comm_table.csv`). Beating raw sharing needs a dictionary of at most "
                  f"{_rng(once, lambda x: str(int(x)))} points even if every client exchanged only once, "
                  f"{_rng(atB, lambda x: str(int(x)))} at the exchanges made (each claim's note gives its numbers).")
        qf = int(lemma41_q_floor(T))
        s += (f" Lemma 4.1, on which Theorem 4.5 rests (\"Under the same condition as Lemma 4.1\"), asks \"q = "
              f"4 ln(2√2T/δ)β(1 + ε/3)/ε²\" (at least {qf} at T = {_n(T)} for every ε, δ ∈ (0, 1)) \"and λ ≤ k(x, x)\" "
              f"(= 1 for the Gaussian kernel; Figure 2 runs at λ = {float(p['lam']):g}): the first keeps every point "
              f"whose approximate variance is above 1/{qf} (a larger dictionary than q = 1's), the second rules out the "
              "ridge that would shrink it.")
        if gs is not None:
            q_bits = []
            for e in [e for e in fails if e in set(gs.env)]:
                g = gs[(gs.env == e) & (gs.method == "Async-KernelUCB")]
                g = g[g.note.isna() | (g.note.astype(str) == "")] if "note" in g else g
                sel = d["sel"]
                if not len(g) or sel is None:
                    continue
                s0 = sel[(sel.env == e) & (sel.method == "Async-KernelUCB")]
                if not len(s0):
                    continue
                g0 = float(s0.gamma.iloc[0])
                at_g = g[np.isclose(g.gamma, g0)]
                if len(at_g) and float(at_g.q.min()) < float(p["q"]):
                    r = at_g.loc[at_g.q.idxmin()]
                    q_bits.append(f"on {_env(e)} q = {_n(r.q)} still leaves {_n(r.dict_size)} points and "
                                  f"{_n(r.C_T / _one_C(d, e))}× raw sharing's scalars")
                at_q = g[np.isclose(g.q, float(p["q"]))]
                nR = _m(d, e, "NKernelUCB", "R_T")
                if len(at_q):
                    r = at_q.loc[at_q.dict_size.idxmin()]
                    if np.isfinite(nR) and r.R_T > nR and not np.isclose(r.gamma, g0):
                        q_bits.append(f"the width with the smallest dictionary there (γ_k = {_n(r.gamma)}, |S| = "
                                      f"{_n(r.dict_size)}) has R(T) {_n(r.R_T)}, above NKernelUCB's {_n(nR)} without "
                                      "any communication")
            if q_bits:
                s += " The γ/q panel above shows the other direction: " + "; ".join(q_bits) + "."
        s += (f" The sentence's communication half can therefore not hold on {_and(_env(e) for e in fails)} at the "
              "paper's T, N, d and kernel grid under the paper's own constants; only a q far below 1, outside what "
              "Lemma 4.1 allows, would shrink the dictionary that far, and the paper gives no such value.")
        if passes:
            mx = max([float(_cell(d, e, m).dict_size.max()) for e in passes for m in NYSTROM_METHODS
                      if _cell(d, e, m) is not None and len(_cell(d, e, m))] or [float("nan")])
            s += f" On {_and(_env(e) for e in passes)} (|S| ≤ {_n(mx)} in every run) it holds."
        out += [s, ""]
    if aa:
        s = ("**Async against Approx-DisKernelUCB (`fig2-async-vs-approx-comm-*`: cause \"a setting\").** Theorem 4.5 "
             "gives both methods the same bound and §5.2 says so (\"despite having the same Õ(N²γ_T³) theoretical "
             "scaling in communication cost, Async-KernelUCB incurs much smaller communication cost empirically\"), so "
             "the paper's theory does not order their costs; the paper gives neither Approx-DisKernelUCB's trigger and "
             "threshold nor either method's q. Their ratio is the number of exchanges (Async: one client each; Approx: "
             "all N at once) times the size of each, and both move with q and D.")
        if gs is not None:
            for e in dict.fromkeys(gs.env):
                g = gs[(gs.env == e) & (gs.note.isna() | (gs.note.astype(str) == ""))] if "note" in gs else gs[gs.env == e]
                a, b = g[g.method == "Async-KernelUCB"], g[g.method == "Approx-DisKernelUCB"]
                sel = d["sel"]
                if not len(a) or not len(b) or sel is None:
                    continue
                sa = sel[(sel.env == e) & (sel.method == "Async-KernelUCB")]
                if not len(sa):
                    continue
                g0 = float(sa.gamma.iloc[0])
                pairs = []
                for q in sorted(set(a[np.isclose(a.gamma, g0)].q), reverse=True):
                    x = a[np.isclose(a.gamma, g0) & np.isclose(a.q, q)]
                    y = b[np.isclose(b.gamma, g0) & np.isclose(b.q, q)]
                    if len(x) and len(y):
                        pairs.append((q, float(x.C_T.iloc[0] / y.C_T.iloc[0]), float(x.R_T.iloc[0] / y.R_T.iloc[0])))
                if len(pairs) < 2:
                    continue
                c = _claim(d, f"fig2-async-vs-approx-comm-{e}")
                s += (f" On {_env(e)} (γ_k = {_n(g0)}) the γ/q panel has the C(T) ratio at "
                      + ", ".join(f"{_n(r, 2)} (q = {_n(q)})" for q, r, _ in pairs)
                      + f" at regret ratios {_rng([rr for *_, rr in pairs], lambda x: f'{x:.2f}')}")
                crossed = [q for q, r, _ in pairs if r < MUCH_SMALLER]
                if c is not None and c["verdict"] != "PASS" and crossed and not np.isclose(max(crossed), float(p["q"])):
                    s += f", so the {MUCH_SMALLER:g} threshold is crossed by q alone"
                s += "."
        for c in aa:
            e = c["id"].rsplit("-", 1)[1]
            Ca, Cp = _m(d, e, "Async-KernelUCB", "C_T"), _m(d, e, "Approx-DisKernelUCB", "C_T")
            if not (np.isfinite(Ca) and np.isfinite(Cp) and Cp > 0 and Ca / Cp >= 1):
                continue
            s += (f" {_env(e)}'s ratio of {_n(Ca / Cp, 2)} comes from Approx-DisKernelUCB's "
                  f"{_n(_m(d, e, 'Approx-DisKernelUCB', 'comm_rounds'), 2)} synchronisations of all N clients at "
                  f"|S| = {_n(_m(d, e, 'Approx-DisKernelUCB', 'dict_size'), 2)} against Async-KernelUCB's "
                  f"{_n(_m(d, e, 'Async-KernelUCB', 'comm_rounds'))} one-client exchanges at "
                  f"|S| = {_n(_m(d, e, 'Async-KernelUCB', 'dict_size'))}.")
        out += [s, ""]
    return out


def _note_dsens(d) -> list:
    ds, p = d["dsens"], d["p"]
    if ds is None:
        return []
    base = f"Async-KernelUCB (D={float(p['D']):g})"
    cols = ["Approx-DisKernelUCB", base] + [m for m in dict.fromkeys(ds.method)
                                            if m.startswith("Async-KernelUCB (D=") and m != base]
    cols = [c for c in cols if c in set(ds.method)]
    lab = {c: ("Approx-DisKernelUCB" if c == "Approx-DisKernelUCB" else
               "Async " + c[len("Async-KernelUCB ("):-1].replace("^2", "²").replace("D=", "D = ")) for c in cols}
    rows, lines = [], []
    order = {e: i for i, e in enumerate(_envs(d))}
    for e in sorted(dict.fromkeys(ds.env), key=lambda e: order.get(e, len(order))):
        x = ds[ds.env == e].set_index("method")
        rows.append([_env(e)] + [(("R " if c == cols[0] else "") + f"{_n(x.loc[c, 'R_T'])}, "
                                  + ("C " if c == cols[0] else "") + f"{_n(x.loc[c, 'C_T'], 2)}")
                                 if c in x.index else "–" for c in cols])
        others = [c for c in cols if c not in ("Approx-DisKernelUCB", base) and c in x.index]
        if base in x.index and others:
            last = others[-1]
            s = (f"{_env(e)}, from {lab[base][len('Async '):]} to {lab[last][len('Async '):]}: R(T) {_n(x.loc[base, 'R_T'])} → "
                 f"{_n(x.loc[last, 'R_T'])} for {_n(x.loc[last, 'C_T'] / x.loc[base, 'C_T'], 2)}× the scalars")
            if "Approx-DisKernelUCB" in x.index and x.loc["Approx-DisKernelUCB", "R_T"] > 0:
                ap = x.loc["Approx-DisKernelUCB"]
                s += (f"; there Async-KernelUCB's R(T) is {_n(x.loc[last, 'R_T'] / ap.R_T, 2)}× Approx-DisKernelUCB's at "
                      f"{_n(x.loc[last, 'C_T'] / ap.C_T, 2)}× its communication")
            lines.append(s)
    runs_of = {c: _rng(ds[ds.method == c].runs, lambda v: str(int(v))) for c in cols}
    out = ["## D table (`D_sensitivity.csv`; not a claim)", "",
           f"Async-KernelUCB at its selected (γ_k, α) with other thresholds D (the paper does not give the D of its "
           f"experiments; its theory sets D = 1/N²), R(T) and C(T) means over each column's runs ("
           + ", ".join(f"{lab[c]}: {runs_of[c]}" for c in cols) + f"; D = {float(p['D']):g} is Figure 2's):", ""]
    out += md_table(["env"] + [lab[c] for c in cols], rows)
    if lines:
        out += ["", "A smaller D makes a client exchange sooner (fewer pulls on the prior, less stale models) and more "
                    "often. " + "; ".join(lines) + "."]
    return out + [""]


def _mushroom_linear_zero(d) -> bool:
    """Whether every linear method's regret is 0 in every Mushroom run (the bullet and the measurement it cites)."""
    from .async_kernelucb import LINEAR_METHODS

    if "mushroom" not in _envs(d):
        return False
    lin = [x for x in (_cell(d, "mushroom", m) for m in LINEAR_METHODS) if x is not None and len(x)]
    return bool(lin) and all(float(x.R_T.abs().max()) == 0 for x in lin)


def _note_measured(d) -> list:
    if not _mushroom_linear_zero(d):
        return []
    return ["## Measured outside these runs", "",
            f"- Mushroom's arms (at commit `{_MEASURED_AT}`, from the environment draws env_seed 0–9, which are Figure "
            "2's runs 0–9): 7–11 of the 20 k-means arms have mean reward exactly 1 in every draw, and the arm of "
            "largest norm is always one of them. Reproduce: `python -c \"import numpy as np; from bandits.envs import "
            "make_env; print([(int((e.f == 1).sum()), bool(e.f[np.argmax(np.linalg.norm(e.X, axis=1))] == 1)) for e in "
            "(make_env({'name': 'mushroom'}, r) for r in range(10))])\"`.", ""]


def note_markdown(folder) -> str:
    """``NOTE.md`` of an Async-KernelUCB Figure 2 folder, written from its files only (never by hand): what ran
    (commit, sizes, run counts, tuning), the sequential step, the recorded times, the claims' verdicts, what the runs
    show beside them, the tuning's choices (and the rule applied again to the tuning table), regret and communication
    per method, the γ/q panel, why the communication claims fail (the paper's count, §/Theorem/Algorithm cited), the D
    table. Sections whose files are absent are left out. ``python -m bandits.report note <folder>`` writes it; so
    does the notebook's last cell."""
    d = _read(folder)
    folder = d["folder"]
    if d["runs"] is None:
        return (f"# {folder.name}: {d['mode']} mode\n\nNo `runs.csv` in this folder: nothing to report.\n")
    read = [n for n in ("runs.csv", "results.csv", "tuning_grid.csv", "selected.csv", "comm_table.csv",
                        "D_sensitivity.csv", "gamma_sensitivity.csv", "claims.json", "sequential.json",
                        "provenance.json") if (folder / n).exists()]
    out = [f"# {folder.name}: Figure 2, {d['mode']} mode", "",
           "Written from this folder's files by `python -m bandits.report note` (the notebook's last cell does the "
           "same); never edited by hand: every number below is read from " + _and(f"`{n}`" for n in read)
           + ". The paper (Li, Wang, Wang & Wang, ICLR 2023) is " + _PAPER + "; what the experiment is and why it is "
           "built so: the notebook (`async_kernelucb.ipynb`) and the docstring of "
           "`bandits/experiments/async_kernelucb.py`.", ""]
    out += _note_runs(d)
    out += _note_choices(d)
    out += _note_sequential(d)
    out += _note_time(d)
    head, body = _note_claims(d)
    out += head + [""]
    out += _note_beside(d)
    out += body
    out += _note_comm(d)
    out += _note_tuning(d)
    out += _note_times(d)
    out += _note_gsens(d)
    out += _note_why(d)
    out += _note_dsens(d)
    out += _note_measured(d)
    out += [f"Regenerate the runs with `make figures NOTEBOOKS=notebooks/async_kernelucb.py`; this note alone with "
            f"`python -m bandits.report note {repo_path(folder)}`."]
    return "\n".join(out).rstrip() + "\n"
