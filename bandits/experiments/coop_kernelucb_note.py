"""The ``NOTE.md`` of a Coop-KernelUCB folder (``figures/coop_kernelucb/``), written from the folder's files only: what its runs show beside the claims (:func:`note_markdown`; ``python -m bandits.report note``, and the notebook's last cell through ``bandits.experiments.notebook.NOTE_WRITERS``). Never a run's code: excluded from the run cache's fingerprint (``bandits.runner.NOT_IN_RUNS``)."""

from __future__ import annotations

import math
import numpy as np
from .claims import duration, md_table, repo_path, run_seconds, step_tallies
from .coop_kernelucb import COOPERATIVE, GRAPH_TITLES, PAPER_METHODS, PAPER_RUNS

__all__ = ["note_markdown"]


_GRAPH_SHORT = {"er": "ER", "ego-facebook": "ego-Facebook", "twitch": "Twitch", "as733": "as-733"}
_ROW_NAME = {"linear": "linear", "rbf": "RBF"}
_SHORT = {"Coop-KernelUCB": "Coop", "Dist-KernelUCB": "Dist", "Eager-KernelUCB": "Eager", "Naive Cooperation": "Naive"}
_VERDICTS = ("PASS", "FAIL", "WITHIN", "INCONCLUSIVE")


def _short(m: str) -> str:
    for long, s in _SHORT.items():
        m = m.replace(long, s)
    return m


def _gshort(g: str) -> str:
    return _GRAPH_SHORT.get(g, g)


_fmt_s = duration  # bandits.experiments.claims


def _secs(s: float) -> str:
    """``22 708 s``: whole seconds with a thin grouping space."""
    return f"{float(s):,.0f}".replace(",", " ") + " s"


def _mean_s(x: float) -> str:
    """A mean run time: whole seconds from 10 s, two significant digits below."""
    return f"{x:.0f} s" if x >= 10 else f"{x:.2g} s"


def _workers(n) -> str:
    return f"{n} worker{'' if n == 1 else 's'}"


def _num(x: float) -> str:
    """R̂(T) and the like: two decimals below 10, one above."""
    x = float(x)
    if not np.isfinite(x):
        return "–"
    return f"{x:.2f}" if abs(x) < 10 else f"{x:.1f}"


def _range(x, f: str = ".2f", sep: str = "–") -> str:
    x = np.asarray(list(x), dtype=float)
    x = x[np.isfinite(x)]
    if not len(x):
        return "–"
    lo, hi = (f"{v:{f}}".replace(",", " ") for v in (x.min(), x.max()))
    return lo if lo == hi else f"{lo}{sep}{hi}"


def _and(items) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _counts(verdicts) -> str:
    v = list(verdicts)
    return ", ".join(f"{v.count(k)} {k}" for k in _VERDICTS if v.count(k))


def _cap_of(method: str):
    """The cap of a rank-cap ablation label (``"Coop-KernelUCB (rank ≤ 4)"`` -> 4), else None."""
    import re

    m = re.search(r"\(rank ≤ (\d+)\)", method)
    return int(m.group(1)) if m else None


def _read_csv(path):
    import pandas as pd

    return pd.read_csv(path) if path.exists() else None


def load_folder(folder) -> dict:
    """The files of a Figure-1 folder the note reads, each None when absent: ``prov`` (provenance.json),
    ``runs`` (runs.csv), ``claims`` (claims.json's list), ``seq`` (sequential.json), ``seq_runs``
    (sequential_runs/runs.csv), ``rank_cap`` (rank_cap_diag.csv), ``kz`` (setting_diagnostics/kz_separation.csv),
    ``clusters`` (setting_diagnostics/linear_er_cluster_modes.csv), ``quick_ranks``
    (setting_diagnostics/quick_ranks.csv), ``small`` (``{name: (runs, ranks, claims text)}`` of
    setting_diagnostics/small_*/), ``abl_runs`` / ``abl_prov`` (with_ablations/)."""
    import json
    from pathlib import Path

    folder = Path(folder)

    def js(p):
        return json.loads(p.read_text()) if p.exists() else None

    diag = folder / "setting_diagnostics"
    small = {}
    if diag.is_dir():
        for d in sorted(diag.glob("small_*")):
            r, k = _read_csv(d / "rank_diag_runs.csv"), _read_csv(d / "rank_diag_ranks.csv")
            if r is not None and len(r):
                c = d / "rank_diag_claims.txt"
                small[d.name] = (r, k, c.read_text() if c.exists() else None)
    cj = js(folder / "claims.json")
    return {"folder": folder, "prov": js(folder / "provenance.json") or {}, "runs": _read_csv(folder / "runs.csv"),
            "claims": (cj or {}).get("claims"), "seq": js(folder / "sequential.json"),
            "seq_runs": _read_csv(folder / "sequential_runs" / "runs.csv"),
            "rank_cap": _read_csv(folder / "rank_cap_diag.csv"), "kz": _read_csv(diag / "kz_separation.csv"),
            "clusters": _read_csv(diag / "linear_er_cluster_modes.csv"),
            "cluster_script": (diag / "linear_cluster_modes.py").read_text()
            if (diag / "linear_cluster_modes.py").exists() else None,
            "quick_ranks": _read_csv(diag / "quick_ranks.csv"), "small": small,
            "abl_runs": _read_csv(folder / "with_ablations" / "runs.csv"),
            "abl_prov": js(folder / "with_ablations" / "provenance.json")}


def _kz_label(p: dict) -> str:
    """The row label of setting_diagnostics/kz_separation.csv for the RBF row of parameters ``p``: ``"rbf"``
    (the context laws of the run code's defaults) or ``"rbf (ω = ρ = x)"``."""
    from .coop_kernelucb import _FULL

    om, rho = float(p.get("omega_rbf", _FULL["omega_rbf"])), float(p.get("rho_rbf", _FULL["rho_rbf"]))
    if (om, rho) == (float(_FULL["omega_rbf"]), float(_FULL["rho_rbf"])):
        return "rbf"
    return f"rbf (ω = ρ = {om:g})" if om == rho else f"rbf (ω = {om:g}, ρ = {rho:g})"


def _kz_panels(f) -> dict:
    """``{(row, graph): kz_separation.csv row}`` at the folder's own setting (mode, V, T and σ_z of the row)."""
    kz, p, mode = f["kz"], f["prov"].get("parameters", {}), f["prov"].get("mode")
    if kz is None or not p:
        return {}
    out = {}
    for row in p.get("rows", []):
        lab = "linear" if row == "linear" else _kz_label(p)
        T, sz = p.get(f"T_{row}"), p.get(f"sigma_z_{row}")
        sel = kz[(kz["mode"] == mode) & (kz.row == lab) & (kz.V == p.get("V")) & (kz.n == T) & (kz.sigma_z == sz)]
        for r in sel.itertuples():
            out[(row, r.graph)] = r
    return out


def _note_runs(f) -> list:
    from .coop_kernelucb import _FULL, _QUICK, GRAPH_TITLES, PAPER_METHODS, PAPER_RUNS

    prov, runs = f["prov"], f["runs"]
    p = prov.get("parameters", {})
    git = prov.get("git") or {}
    commit = git.get("commit") or "unknown"
    rows, graphs = p.get("rows", sorted(set(runs.row))), p.get("graphs", list(dict.fromkeys(runs.graph)))
    T = sorted({int(p[f"T_{r}"]) for r in rows if f"T_{r}" in p})
    Ttxt = f"T = {T[0]}" if len(T) == 1 else ", ".join(f"T = {p[f'T_{r}']} ({_ROW_NAME.get(r, r)} row)" for r in rows)
    n_per = runs.groupby(["row", "graph", "method"]).rep.nunique()
    n = int(p.get("n_runs", n_per.max()))
    paper = runs[[m in PAPER_METHODS.get(r, ()) for r, m in zip(runs.row, runs.method)]]
    extra = runs.drop(paper.index)
    capped = extra[[_cap_of(m) is not None for m in extra.method]]
    other = extra.drop(capped.index)
    n_curves = {r: len(set(paper[paper.row == r].method)) for r in rows}
    curves = (f"the paper's {n_curves[rows[0]]} curves per row" if len(set(n_curves.values())) == 1 else
              "the paper's curves (" + ", ".join(f"{_ROW_NAME.get(r, r)} row {c}" for r, c in n_curves.items()) + ")")
    lines = [f"- **What ran.** Figure 1 of the paper (§5), {prov.get('mode', '?')} mode: V = {p.get('V', '?')}, {Ttxt}, "
             f"K = {p.get('K', '?')} arms, d = {p.get('d', '?')}; {len(rows)} row{'s' if len(rows) != 1 else ''} "
             f"({', '.join(_ROW_NAME.get(r, r) for r in rows)}) × {len(graphs)} network{'s' if len(graphs) != 1 else ''} "
             f"({', '.join(GRAPH_TITLES.get(g, g) for g in graphs)}), **{n} of the paper's {PAPER_RUNS} trials** per "
             f"panel; {curves}: {len(paper)} runs (`runs.csv`, {len(runs)} rows in all)."]
    default_cap = {m: int(d.get("rank_cap_ablation", 0) or 0) for m, d in (("full", _FULL), ("quick", _QUICK))}
    off = ("`make figures` does not run it by default (`rank_cap_ablation` is "
           + (f"{default_cap['full']} in both modes)" if default_cap["full"] == default_cap["quick"] else
              f"{default_cap['full']} in full mode, {default_cap['quick']} in quick mode)"))
    if len(capped):
        caps = sorted({_cap_of(m) for m in capped.method})
        who = _and([_short(m.split(" (rank")[0]) for m in dict.fromkeys(capped.method)])
        rws = " and ".join(_ROW_NAME.get(r, r) for r in dict.fromkeys(capped.row))
        lines[-1] += (f" The opt-in rank-cap ablation (`rank_cap_ablation = {p.get('rank_cap_ablation', caps[0])}`): "
                      f"{who} on the {rws} row with the rank of K̂_z capped at {'/'.join(str(c) for c in caps)}, drawn "
                      f"dashed and in no claim, {len(capped)} runs present here; " + off
                      + (f", so a default run draws the {len(paper) + len(other)} runs of "
                         + ("the other curves" if len(other) else "the paper's curves") + "."
                         if default_cap["full"] == 0 else "."))
    elif default_cap["full"] == 0 and default_cap["quick"] == 0:
        lines[-1] += " The opt-in rank-cap ablation (`rank_cap_ablation`, off by default in both modes) did not run."
    if len(other):
        lines[-1] += (" Other dashed curves, not in the paper and in no claim: "
                      + "; ".join(f"{m} ({_ROW_NAME.get(r, r)} row, {len(g)} runs)"
                                  for (r, m), g in other.groupby(["row", "method"], sort=False)) + ".")
    if p.get("csv_stride", 1) and int(p.get("csv_stride", 1)) > 1:
        lines[-1] += (f" `results.csv` keeps every {p['csv_stride']}th round of each curve and its last; the figure and "
                      "the claims used every round.")
    dirty = (" (the working tree not clean when provenance.json was written: the folder being written counts)"
             if git.get("dirty") else "")
    lines.append(f"- **Code.** Commit `{commit[:7]}`{dirty}, master seed {prov.get('seed', 0)}, "
                 f"{_workers(prov.get('n_jobs', '?'))} ({prov.get('backend', '?')}), arithmetic `{prov.get('arithmetic', '?')}`, "
                 f"written {prov.get('created', '?')}. The run cache's key holds a fingerprint of the run code: `make "
                 "figures` loads these runs from a cache only while the run code is the same, and recomputes them otherwise.")
    return lines


def _note_sequential(f) -> list:
    s = f["seq"]
    if not s:
        return []
    d = s.get("design", {})
    sch = [lk["n"] for lk in d.get("looks", [])] or d.get("schedule", [])
    added, failed, refused = step_tallies(s)
    cl = s.get("claims", {})
    decided, undecided = {}, {}
    for cid, r in cl.items():
        v = r.get("verdict")
        at_n = int(r.get("decided_at_n", 0))
        if v == "INCONCLUSIVE":
            undecided.setdefault(at_n, []).append(cid)
        else:
            decided.setdefault(at_n, []).append(v)
    at = "; ".join(f"n = {k}: {_counts(v)}" for k, v in sorted(decided.items()))
    line = (f"- **The sequential step** (`bandits.sequential`, {d.get('spending', '?')} spending, looks at n = "
            f"{', '.join(str(x) for x in sch)} runs per panel, budget "
            f"{_secs(s['budget_s']) + ' of CPU' if s.get('budget_s') is not None else 'none'}; the budget: "
            f"docs/statistics.md, \"The committed budgets\"): {added} runs added "
            f"({_fmt_s(s.get('cpu_s', 0.0))} of recorded run time, {failed} failed) to the panels behind the claims "
            f"still open; verdicts reached at {at or 'no look'}.")
    for k, ids in sorted(undecided.items()):
        line += f" Still INCONCLUSIVE at n = {k}: {', '.join(f'`{i}`' for i in ids)}."
    if refused:
        line += f" Stopped: {s.get('stopped', '?')} ({refused[-1]['refused']})."
    elif s.get("stopped"):
        line += f" Stopped: {s['stopped']}."
    if added:
        line += (" The added runs are kept in `sequential_runs/` (a row per run, with its look); "
                 if f["seq_runs"] is not None else " The added runs are in the run cache only; ")
    else:
        line += " "
    line += "`runs.csv` and `results.csv` hold the notebook's tested runs, which the figure and the tables below show."
    return [line]


def _note_time(f) -> list:
    runs = f["runs"]
    if runs is None or "wall_time" not in runs:
        return []
    capped = np.array([_cap_of(m) is not None for m in runs.method])
    secs, words = run_seconds(runs)
    runs = runs.assign(_s=secs)
    parts = []
    for row, g in runs.groupby("row", sort=False):
        c = capped[g.index]
        s = f"{_ROW_NAME.get(row, row)} row {_secs(g._s.sum())} ({len(g)} runs"
        if c.any():
            s += f"; of which the rank-cap ablation {_secs(g._s[c].sum())} in {int(c.sum())} runs"
        parts.append(s + ")")
    line = (f"- **Time**, from the runs' own recorded time ({words}): the {len(runs)} runs of `runs.csv` sum to "
            f"{_secs(runs._s.sum())} ({_fmt_s(runs._s.sum())}; {_workers(f['prov'].get('n_jobs', '?'))}): "
            + ", ".join(parts) + ".")
    sr = f["seq_runs"]
    if sr is not None and "wall_time" in sr:
        line += f" The sequential step's {len(sr)} added runs: {_secs(run_seconds(sr)[0].sum())} more (`sequential_runs/runs.csv`)."
    line += " `figures/TIMES.md` gives what `make figures` takes on 2 cores."
    means = []
    for row, g in runs.groupby("row", sort=False):
        m = g.groupby("method", sort=False)._s.mean()
        bits = []
        for meth in m.index:
            if _cap_of(meth) is not None:
                continue
            b = f"{_short(meth)} {_mean_s(m[meth])}"
            caps = [k for k in m.index if _cap_of(k) is not None and k.startswith(meth + " (")]
            if caps:
                b += " (" + ", ".join(f"rank ≤ {_cap_of(k)}: {_mean_s(m[k])}" for k in caps) + ")"
            bits.append(b)
        means.append(f"{_ROW_NAME.get(row, row)} row: " + ", ".join(bits))
    line += " Mean per run, " + "; ".join(means) + "."
    return [line]


def _note_claims(f) -> list:
    cl = f["claims"]
    if not cl:
        return []
    from collections import Counter

    kinds = Counter(c.get("kind", "paper") for c in cl)
    v = Counter(c["verdict"] for c in cl)
    by = "; ".join(f"{k}: " + _counts([c["verdict"] for c in cl if c.get("kind", "paper") == k]) for k in kinds)
    return [f"- **Claims** (numbers, intervals, verdicts and causes in `claims.json`): "
            f"{', '.join(f'{v[k]} {k}' for k in _VERDICTS if v[k])} ({by})."]


def _note_choices(f) -> list:
    from ..envs.coop import COOP_KEYS

    p = f["prov"].get("parameters", {})
    if not p:
        return []
    rows = p.get("rows", [])
    out = ["## Choices where the paper is silent", "",
           "The paper is `shared/papers/coop-kernelucb.txt` (beside the repository); the choices are in "
           "`bandits/experiments/coop_kernelucb.py` (its docstring lists them all), `bandits/envs/coop.py` and "
           "`bandits/algorithms/coop_kz.py`.", ""]
    rmax = ", ".join(f"{p[f'r_max_{r}']} {_ROW_NAME.get(r, r)}" for r in rows if f"r_max_{r}" in p)
    cap = p.get("r_limit_rbf") if p.get("r_limit_rbf") is not None else p.get("r_limit")
    if cap is None:
        out.append(f"- *No rank cap.* The factor of K̂_z keeps at least `r_max` eigenpairs ({rmax}) and is raised until "
                   "every agent keeps ≥ 95 % of its own variance (`‖L_v‖² ≥ 0.95 W_vv`), in Coop, Eager and Dist (the "
                   "dual form while it is cheaper). A cap (`r_limit`) is applied only when asked for; it then warns and "
                   "counts the agent-refreshes it left below 95 % (`capped`). The implementation checks "
                   "`fig1-safeguard-linear` / `-rbf` test that no run of the paper's curves fell below 95 %.")
    else:
        out.append(f"- *Rank cap.* This run capped the rank of K̂_z at {cap} on the paper's curves (`r_limit`), below "
                   f"the safeguard that otherwise raises the rank (from `r_max`: {rmax}) until every agent keeps ≥ 95 % "
                   "of its own variance; the capped agent-refreshes are counted (`capped`).")
    if "rbf" in rows:
        om, rho = p.get("omega_rbf", COOP_KEYS["omega"]), p.get("rho_rbf", COOP_KEYS["rho"])
        kzp = _kz_panels(f)
        tr = [r for (row, _), r in kzp.items() if row == "rbf"]
        truth = (f": true K_z {_range([r.true_within for r in tr])} within a cluster, "
                 f"{_range([r.true_across for r in tr])} across, `setting_diagnostics/kz_separation.csv`" if tr else "")
        out.append("- *The RBF row's environment.* The paper: \"The second setup is where K_x and K_z are both randomly "
                   "initialized Gaussian kernels\" and \"For the kernel estimation task, we set σ=1\" (§5); it gives no "
                   "context laws, no z, no lengthscales. The learner sees K_z only through the MMD of the agents' context "
                   "laws in H_{K_x} (§3.3, Eq. 10–12), so agent v's contexts are centred on its own z_v "
                   f"(`x = normalise(ω z_v + ξ)`, ω = {om:g}) and the z of one cluster are close (ρ = {rho:g}{truth}); "
                   f"K_x has lengthscale {COOP_KEYS['lengthscale_x']:g}.")
    cm = p.get("cluster_mode", "mis_star")
    if cm == "mis_star":
        out.append("- *The agents' clusters.* The paper's clusters are \"the independent sets of the γth power\" of the "
                   "graph (§5); read literally (no two agents of a cluster are γ-neighbours) no agent would ever see "
                   "same-cluster data, so the clusters are Dist-KernelUCB's stars around its centres "
                   "(`cluster_mode=\"mis_star\"`). A Dist centre's γ-neighbourhood then holds its whole cluster, while a "
                   "Coop clique holds part of one.")
    else:
        out.append(f"- *The agents' clusters* (`cluster_mode=\"{cm}\"`): the paper's are \"the independent sets of the γth "
                   "power\" of the graph (§5); this run reads them as Coop-KernelUCB's cliques.")
    n = p.get("n_runs")
    feat = {"nystroem": "Nyström landmarks", "rff": "random Fourier features"}.get(p.get("features_rbf"), p.get("features_rbf"))
    bits = [f"*{n} of the paper's 100 trials* per panel"
            + (", what the 12-hour budget of `make figures` on 2 cores allows; titles and claims say so"
               if f["prov"].get("mode") == "full" else " (quick mode)")]
    if "rbf" in rows:
        bits.append(f"K_x on the RBF row by {p.get('n_features')} {feat}, the MMD embedding by {p.get('n_embed')} "
                    "random Fourier features")
    szs = {r: p[f"sigma_z_{r}"] for r in rows if f"sigma_z_{r}" in p}
    sz = (f"{next(iter(szs.values())):g}" + (" on both rows" if len(szs) > 1 else "") if len(set(szs.values())) == 1
          else ", ".join(f"{v:g} ({_ROW_NAME.get(r, r)})" for r, v in szs.items()))
    every = "every round" if p.get("kz_every") == 1 else f"every {p.get('kz_every')} rounds"
    bits.append(f"σ_z = {sz}; K̂_z refreshed {every}; reward noise N(0, {p.get('noise_std'):g}²); "
                "η = " + ", ".join(f"{p[f'eta_{r}']:g} ({_ROW_NAME.get(r, r)})" for r in rows if f"eta_{r}" in p)
                + ", the same for every method of a row")
    out.append("- " + "; ".join(bits) + ".")
    return out + [""]


def _note_panels(f) -> list:
    from .coop_kernelucb import COOPERATIVE

    runs = f["runs"]
    if runs is None or "rank_mean" not in runs:
        return []
    coop = runs[runs.method.isin(COOPERATIVE)]
    if coop.empty:
        return []
    kzp = _kz_panels(f)
    n = runs.groupby(["row", "graph", "method"]).rep.nunique().max()
    methods = [m for m in COOPERATIVE if m in set(coop.method)]
    head = ["row, panel", "rank mean / last / max: " + " · ".join(_short(m) for m in methods), "kept", "capped"]
    if kzp:
        head += ["K̂_z within / across (AUC)", "true K_z within / across"]
    rows = []
    for (row, graph), g in coop.groupby(["row", "graph"], sort=False):
        cells = []
        for m in methods:
            r = g[g.method == m]
            cells.append(f"{r.rank_mean.mean():.1f} / {r.rank_last.mean():.1f} / {r.rank_max.max():.0f}" if len(r) else "–")
        line = [f"{_ROW_NAME.get(row, row)}, {_gshort(graph)}", " · ".join(cells), f"{g.min_kept_var.min():.3f}",
                f"{int(g.capped.fillna(0).sum())}"]
        if kzp:
            k = kzp.get((row, graph))
            line += ([f"{k.within:.3f} / {k.across:.3f} ({k.auc:g})", f"{k.true_within:.3g} / {k.true_across:.3g}"]
                     if k is not None else ["–", "–"])
        rows.append(line)
    out = ["## Per panel: rank of K̂_z, kept own variance" + (", K̂_z separation" if kzp else ""), "",
           f"Ranks are the factor's rank at each agent's refreshes (mean over agents, refreshes and the {n} trials), "
           "\"last\" at the final refresh, \"max\" the largest; \"kept\" the smallest ‖L_v‖²/W_vv over agents, refreshes "
           "and trials (the safeguard asks ≥ 0.95); \"capped\" the agent-refreshes a cap left below it (`runs.csv`: "
           "`rank_mean`, `rank_last`, `rank_max`, `min_kept_var`, `capped`; the paper's curves only)."]
    safe = [c for c in (f["claims"] or []) if c["id"].startswith("fig1-safeguard-")]
    if safe:
        out[-1] += (" Implementation checks: " + ", ".join(f"`{c['id']}` {c['verdict']}" for c in safe)
                    + f"; {int(coop.capped.fillna(0).sum())} capped agent-refreshes in the {len(coop)} cooperative runs.")
    if kzp:
        sz = sorted({float(k.sigma_z) for k in kzp.values()})
        out[-1] += (" K̂_z separation (`setting_diagnostics/kz_separation.csv`, "
                    "`bandits.experiments.coop_kernelucb.kz_separation`): the MMD estimate at σ_z = "
                    + "/".join(f"{s:g}" for s in sz) + " after T i.i.d. samples per agent, mean over same-cluster / "
                    "different-cluster pairs, and the AUC (probability that a same-cluster pair is above a "
                    "different-cluster one); the true K_z beside it.")
    out += [""] + md_table(head, rows)
    capped = runs[[_cap_of(m) is not None for m in runs.method]]
    if len(capped):
        per = capped.groupby(["graph", "method"], sort=False).agg(kept=("min_kept_var", "min"), capped=("capped", "sum"))
        by_m = "; ".join(f"{_short(m.split(' (rank')[0])} {_range(g.kept)}" for m, g in per.groupby(level="method", sort=False))
        caps = "/".join(str(c) for c in sorted({_cap_of(m) for m in capped.method}))
        rws = " and ".join(_ROW_NAME.get(r, r) for r in dict.fromkeys(capped.row))
        out += ["", f"On the {rws} row the ablation (rank ≤ {caps}) kept {_range(per.kept)} of an agent's own variance "
                    f"({by_m}) and cut {_range(per.capped, ',.0f')} agent-refreshes short per panel and method (`runs.csv`: "
                    "`min_kept_var`, `capped`)."]
    return out + [""]


def _note_regret(f) -> list:
    from .coop_kernelucb import COOPERATIVE, PAPER_METHODS

    runs = f["runs"]
    if runs is None or runs.empty:
        return []
    graphs = list(dict.fromkeys(runs.graph))
    n = runs.groupby(["row", "graph", "method"]).rep.nunique().max()
    mean = runs.groupby(["row", "method", "graph"]).R_T.mean()
    rows = []
    for row in dict.fromkeys(runs.row):
        present = list(dict.fromkeys(runs[runs.row == row].method))
        paper = [m for m in PAPER_METHODS.get(row, ()) if m in present]
        groups = [[m for m in paper if m in COOPERATIVE], [m for m in paper if m not in COOPERATIVE]]
        caps = sorted({_cap_of(m) for m in present if _cap_of(m) is not None})
        for c in caps:
            groups.insert(1, [m for m in present if _cap_of(m) == c])
        rest = [m for m in present if m not in paper and _cap_of(m) is None]
        groups += [[m] for m in rest]
        for grp in groups:
            if not grp:
                continue
            cap = _cap_of(grp[0])
            label = f"{_ROW_NAME.get(row, row)}{f', rank ≤ {cap}' if cap else ''}: " + " / ".join(
                _short(m.split(" (rank")[0]) for m in grp)
            cells = [" / ".join(_num(mean.get((row, m, g), np.nan)) for m in grp) for g in graphs]
            rows.append([label] + cells)
    return ([f"## Final per-agent regret", "", f"Mean R̂(T) over the {n} trials (`runs.csv`; the claims test paired "
             "differences, `claims.json`):", ""] + md_table(["row, method"] + [_gshort(g) for g in graphs], rows) + [""])


def _note_ablation(f) -> list:
    """What the rank-cap ablation shows, and what the K̂_z estimate's agreement with the true K_z does."""
    from .coop_kernelucb import COOPERATIVE

    runs = f["runs"]
    if runs is None:
        return []
    capped = runs[[_cap_of(m) is not None for m in runs.method]]
    if capped.empty:
        return []
    mean = runs.groupby(["row", "graph", "method"]).R_T.mean()
    diffs = []
    for (row, graph, m), v in mean.items():
        if _cap_of(m) is not None:
            base = m.split(" (rank")[0]
            if (row, graph, base) in mean:
                diffs.append((abs(v - mean[(row, graph, base)]), row, graph, base, mean[(row, graph, base)], v))
    if not diffs:
        return []
    big = max(diffs)
    rows_c = set(capped.row)
    unc = runs[runs.row.isin(rows_c) & runs.method.isin(COOPERATIVE)]
    last = unc.groupby("method").rank_last.agg(["min", "max"])
    lst = ", ".join(f"{_short(m)} {unc[unc.method == m].groupby('graph').rank_last.mean().pipe(_range, '.1f')}"
                    for m in COOPERATIVE if m in last.index)
    top = unc.groupby("graph").rank_max.max()
    caps = "/".join(str(c) for c in sorted({_cap_of(m) for m in capped.method}))
    out = ["**What the ablation shows.** " + (
        f"The cap of {caps} moves no mean R̂(T) by more than {big[0]:.2f} (the largest: {_short(big[3])} on "
        f"{_gshort(big[2])}, {big[4]:.2f} uncapped, {big[5]:.2f} capped), since the uncapped rank at the last refresh "
        f"is {lst} (mean per panel): the cap bites in the first rounds, where the safeguard asks for ranks up to "
        f"{_range(top, '.0f')} (largest per panel).")]
    kz = f["kz"]
    p = f["prov"].get("parameters", {})
    if kz is not None and "rbf" in rows_c:
        mine = _kz_label(p)
        others = [lab for lab in dict.fromkeys(kz.row) if lab.startswith("rbf") and lab != mine]
        sel = kz[(kz["mode"] == f["prov"].get("mode")) & (kz.V == p.get("V")) & (kz.sigma_z == p.get("sigma_z_rbf"))]
        for lab in others:
            o = sel[sel.row == lab]
            if len(o):
                env = lab[len("rbf ("):-1] if lab.startswith("rbf (") else lab
                out[-1] += (f" What decides whether cooperation helps on this row is whether the true K_z and its estimate "
                            f"agree: with context laws {env} the true K_z within a cluster is {_range(o.true_within)} "
                            f"while K̂_z says {_range(o.within)} (across: true {_range(o.true_across)}, K̂_z "
                            f"{_range(o.across)}), so the estimate merges agents whose functions differ.")
    small_other = {k: v for k, v in f["small"].items() if "omega_rho" in k}
    for name, (r, _, _) in small_other.items():
        kern = r[r.method == "KernelUCB"].R_T.mean()
        co = r[r.method.str.startswith(COOPERATIVE)].groupby("method").R_T.mean()
        if len(co) and np.isfinite(kern):
            word = "every cooperative method, capped or not, is above KernelUCB" if (co > kern).all() else (
                "above KernelUCB: " + ", ".join(_short(m) for m in co.index[co > kern]))
            out[-1] += (f" On the small instance in that environment (`setting_diagnostics/{name}/`) {word} "
                        f"(mean R̂(T) {_range(co, '.2f')} against {kern:.2f}).")
    a, ap = f["abl_runs"], f["abl_prov"] or {}
    if a is not None and "rbf" in set(a.row):
        rb = a[a.row == "rbf"]
        m = rb.groupby(["graph", "method"]).R_T.mean().unstack("method")
        if "KernelUCB" in m:
            coop_cols = [c for c in m.columns if c in COOPERATIVE]
            best = all(m.loc[g].idxmin() == "KernelUCB" for g in m.index)
            lim = (ap.get("parameters") or {}).get("r_limit_rbf")
            out[-1] += (f" `with_ablations/` is a full run of an earlier setting of the RBF row (commit "
                        f"`{((ap.get('git') or {}).get('commit') or '?')[:7]}`"
                        + (f", rank of K̂_z capped at `r_limit_rbf = {lim}` on the paper's curves" if lim else "")
                        + "; its NOTE.md gives its context laws): there KernelUCB has "
                        + ("the lowest mean R̂(T) on every RBF panel" if best else "mean R̂(T)")
                        + f" ({_range(m['KernelUCB'], '.1f')} against {_range(m[coop_cols].to_numpy().ravel(), '.1f')} "
                          f"for {', '.join(_short(c) for c in coop_cols)}).")
    return out + [""]


def _note_kz_separation(f) -> list:
    kz = f["kz"]
    if kz is None or kz.empty:
        return []
    from ..envs.coop import COOP_KEYS

    p = f["prov"].get("parameters", {})
    mode = f["prov"].get("mode")
    big = kz[kz["mode"] == mode] if (kz["mode"] == mode).any() else kz[kz.V == kz.V.max()]
    mine = _kz_label(p) if p else "rbf"
    rows = []
    for (lab, sz), g in big.groupby(["row", "sigma_z"], sort=False):
        if lab == "linear":
            env = "linear row"
        elif lab == mine:
            env = (f"RBF row, ω = {p.get('omega_rbf', COOP_KEYS['omega']):g}, ρ = {p.get('rho_rbf', COOP_KEYS['rho']):g} "
                   "(Figure 1)")
        else:
            env = "RBF row, " + (lab[len("rbf ("):-1] if lab.startswith("rbf (") else lab)
        rows.append([f"{env}, σ_z = {sz:g}", _range(g.within), _range(g.across), _range(g.auc, ".3g"),
                     f"{_range(g.true_within)} / {_range(g.true_across)}"])
    V, nn = sorted(set(big.V)), sorted(set(big.n))
    out = ["## The measurements behind the setting (`setting_diagnostics/`)", "",
           f"**K̂_z separation** (`setting_diagnostics/kz_separation.csv`, written by `kz_separation.py` there with "
           f"`bandits.experiments.coop_kernelucb.kz_separation`; every panel, V = {'/'.join(map(str, V))}, n = "
           f"{'/'.join(map(str, nn))} samples per agent; ranges over the panels):", ""]
    out += md_table(["environment, σ_z", "K̂_z within", "K̂_z across", "AUC within > across", "true K_z within / across"], rows)
    rest = kz.drop(big.index)
    if len(rest):
        m = big.merge(rest, on=["row", "graph", "sigma_z"], suffixes=("", "_o"))
        if len(m):
            dev = [(sz, float(np.nanmax(np.abs(np.r_[g.within - g.within_o, g.across - g.across_o]))))
                   for sz, g in m.groupby("sigma_z", sort=False)]
            out += ["", f"The {'/'.join(sorted(set(m.mode_o)))} size (V = {'/'.join(map(str, sorted(set(m.V_o))))}, n = "
                        f"{'/'.join(str(int(x)) for x in sorted(set(m.n_o)))} samples per agent) gives the same panels' "
                        "mean K̂_z within / across to within " + _and([f"{d:.2f} at σ_z = {sz:g}" for sz, d in dev]) + "."]
    ell = COOP_KEYS.get("lengthscale_x")
    szr = p.get("sigma_z_rbf", 1.0)
    if isinstance(ell, (int, float)):
        kmin = math.exp(-2.0 / ell ** 2)  # K_x of two antipodal unit vectors
        mmd = math.sqrt(2 * (1 - kmin))
        auc = big[big.row.str.startswith("rbf")].auc
        out += ["", f"What the paper's σ cannot do in any environment: with K_x of lengthscale {ell:g} on the unit sphere "
                    f"(K_x ≥ e^(−2/ℓ²) = {kmin:.2f}), the unsquared MMD of Eq. 11 is at most √(2(1 − {kmin:.2f})) ≈ "
                    f"{mmd:.2f}, so K̂_z ≥ {math.exp(-mmd / (2 * szr ** 2)):.2f} for every pair at σ_z = {szr:g}; the "
                    f"estimate orders the pairs (AUC {_range(auc, '.3g')} on the RBF rows above) but keeps a large "
                    "similarity across clusters."]
    return out + [""]


def _paired(r, method, ref="KernelUCB"):
    """Mean R̂(T) of ``method``, and its paired difference with ``ref``: (mean, diff, s.e., below, n)."""
    a = r[r.method == method].set_index("rep").R_T
    b = r[r.method == ref].set_index("rep").R_T
    j = a.index.intersection(b.index)
    d = (a[j] - b[j]).to_numpy(float)
    se = float(d.std(ddof=1) / math.sqrt(len(d))) if len(d) > 1 else math.nan
    return float(a.mean()), float(d.mean()) if len(d) else math.nan, se, int((d < 0).sum()), len(d)


def _note_small(f) -> list:
    from .coop_kernelucb import COOPERATIVE

    small = f["small"]
    if not small:
        return []
    names = list(small)

    def env(name, r):
        g = ", ".join(_gshort(x) for x in dict.fromkeys(r.graph))
        return g + (", ω = ρ = " + name.split("omega_rho_")[1] if "omega_rho_" in name else ", Figure 1's setting")

    head = [""] + [env(k, small[k][0]) for k in names]
    ns = {k: small[k][0].groupby("method").rep.nunique().max() for k in names}
    rows = []
    kern = []
    for k in names:
        r = small[k][0]
        x = r[r.method == "KernelUCB"].R_T
        kern.append(f"{x.mean():.2f} ± {x.std(ddof=1) / math.sqrt(len(x)):.2f}" if len(x) > 1 else "–")
    rows.append(["KernelUCB"] + kern)
    caps = sorted({_cap_of(m) for k in names for m in small[k][0].method if _cap_of(m) is not None})
    for cap in [None] + caps:
        for m in COOPERATIVE:
            lab = m if cap is None else f"{m} (rank ≤ {cap})"
            cells = []
            for k in names:
                r = small[k][0]
                if not (r.method == lab).any():
                    cells.append("–")
                    continue
                mu, d, se, below, n = _paired(r, lab)
                cells.append(f"{mu:.2f} ({d:+.2f} ± {se:.2f}, {below}/{n} below)".replace("+-", "−").replace("-", "−"))
            rows.append([_short(lab)] + cells)
    rows.append(["IGP-UCB / Naive (IGP-UCB)"] + [" / ".join(_num(small[k][0][small[k][0].method == m].R_T.mean())
                                                         for m in ("IGP-UCB", "Naive Cooperation")) for k in names])
    ranks = {k: small[k][1] for k in names}
    if all(v is not None for v in ranks.values()):
        def rk(k, col, f_):
            t = ranks[k].set_index("method")
            return " / ".join(f"{t.loc[m, col]:{f_}}" if m in t.index else "–" for m in COOPERATIVE)

        rows.append(["rank at the last refresh (Coop / Dist / Eager)"] + [rk(k, "rank_last", ".1f") for k in names])
        rows.append(["largest rank (Coop / Dist / Eager)"] + [rk(k, "rank_max", ".0f") for k in names])

        def kept(k):
            t = ranks[k]
            c = np.array([_cap_of(m) is not None for m in t.method])
            return f"{t.min_kept_var[~c].min():.3f}" + (f" / {t.min_kept_var[c].min():.2f}" if c.any() else "")

        rows.append(["smallest kept own variance, no cap" + (" / cap " + "/".join(map(str, caps)) if caps else "")]
                    + [kept(k) for k in names])
    n_txt = "/".join(str(ns[k]) for k in names) if len(set(ns.values())) > 1 else str(next(iter(ns.values())))
    out = ["**Small instances** (`tools/coop_rbf_rank_diag.py`, whose docstring gives their size; outputs in "
           f"`setting_diagnostics/small_*`; the RBF row, {n_txt} paired trials; final per-agent regret R̂(T), mean ± s.e., "
           "and minus KernelUCB's, paired, with the trials below it):", ""]
    out += md_table(head, rows)
    below = []
    for k in names:
        if "omega_rho_" in k:
            continue
        r = small[k][0]
        kmean = r[r.method == "KernelUCB"].R_T.mean()
        co = r[r.method.str.startswith(COOPERATIVE)].groupby("method").R_T.mean()
        if len(co) and (co < kmean).all():
            below.append(env(k, r).split(",")[0])
    sent = []
    if below:
        sent.append(f"In Figure 1's setting every cooperative method, with and without the cap, has a mean R̂(T) below "
                    f"KernelUCB's on {' and '.join(below)}.")
    claims = []
    import re

    for k in names:
        txt = small[k][2]
        if txt:
            v = re.findall(r"^\[(PASS|FAIL|INCONCLUSIVE|WITHIN)\]", txt, flags=re.M)
            claims.append(f"{k} {_counts(v)}")
    if claims:
        sent.append("`rank_diag_claims.txt` in each folder gives the Figure-1 claims on these instances ("
                    + "; ".join(claims) + ").")
    if sent:
        out += ["", " ".join(sent)]
    return out + [""]


def _note_rank_cap_diag(f) -> list:
    rc = f["rank_cap"]
    if rc is None or rc.empty or "variant" not in rc:
        return []
    ref = rc[rc.method == "KernelUCB"]
    if ref.empty:
        return []
    methods = [m for m in dict.fromkeys(rc.method) if m != "KernelUCB"]
    rows = []
    for v, g in rc.groupby("variant", sort=False):
        r = g[g.method != "KernelUCB"]
        import pandas as pd

        both = pd.concat([r, ref])
        cells = []
        for m in methods:
            if not (r.method == m).any():
                cells.append("–")
                continue
            _, d, se, below, n = _paired(both, m)
            cells.append(f"{d:+.2f} ± {se:.2f} ({below}/{n} below)".replace("-", "−"))
        rows.append([f"`{v}`"] + cells)
    graphs = ", ".join(_gshort(x) for x in dict.fromkeys(rc.graph))
    n = rc.groupby(["variant", "method"]).rep.nunique().max()
    return (["**Cap or estimate?** `rank_cap_diag.csv` (`tools/coop_rbf_rank_diag.py` in the setting of "
             f"`with_ablations/`, its NOTE.md reads it; RBF row, {graphs}, {n} trials, so indicative only): final "
             "R̂(T) minus KernelUCB's of the same trial (paired, mean ± s.e.), per truncation of K̂_z:", ""]
            + md_table(["variant"] + [_short(m) for m in methods], rows)
            + ["", "`truncation=\"own_residual\"` is an option of the algorithm (`bandits.algorithms.coop_kernel_ucb`).", ""])


def _note_clusters(f) -> list:
    import re

    c = f["clusters"]
    if c is None or c.empty:
        return []
    piv = c.pivot_table(index=["cluster_mode", "rep"], columns="method", values="R_T")
    if not {"Coop-KernelUCB", "Dist-KernelUCB"} <= set(piv.columns):
        return []
    piv["ratio"] = piv["Coop-KernelUCB"] / piv["Dist-KernelUCB"]
    size = ""
    m = re.search(r"linear_cluster_modes\.py (\d+) (\d+) (\d+)", f["cluster_script"] or "")
    if m:
        size = f"V = {m.group(1)}, T = {m.group(2)}, "
    n = int(c.groupby(["cluster_mode", "method"]).rep.nunique().max())
    parts, ratios = [], {}
    names = {"mis_star": "with Dist's stars (`\"mis_star\"`, Figure 1's)",
             "clique_cover": "with Coop's cliques (`\"clique_cover\"`)"}
    for cm in dict.fromkeys(c.cluster_mode):
        g = piv.loc[cm]
        ratios[cm] = float(g.ratio.mean())
        parts.append(f"{names.get(cm, f'`{cm}`')} Coop / Dist = {g.ratio.mean():.2f} (per trial "
                     f"{', '.join(f'{x:.2f}' for x in g.ratio)}; mean R̂(T) Coop {g['Coop-KernelUCB'].mean():.2f}, Dist "
                     f"{g['Dist-KernelUCB'].mean():.2f})")
    txt = (f"**The agents' clusters** (`setting_diagnostics/linear_er_cluster_modes.csv`, `linear_cluster_modes.py`; linear "
           f"row, ER, {size}{n} paired trials): " + "; ".join(parts) + ".")
    if all(not (0.8 <= r <= 1.25) for r in ratios.values()):
        txt += (f" Neither reading makes the two \"perform similarly\" (R̂_Coop / R̂_Dist within [0.8, 1.25], the "
                "claims' margin), which the paper says of the Erdős–Rényi panels (\"Coop-KernelUCB and Dist-KernelUCB "
                "perform similarly for the Erdos-Renyi\", §5)")
        cl = [x for x in (f["claims"] or []) if x["id"].startswith("fig1-coop-approx-dist-")]
        if cl:
            txt += "; the claim is checked there only (" + ", ".join(
                f"`{x['id']}` {x['verdict']}" + (f", cause \"{x['cause']}\"" if x.get("cause") else "") for x in cl) + ")"
        txt += "."
    return [txt, ""]


def _note_quick_ranks(f) -> list:
    q = f["quick_ranks"]
    if q is None or q.empty:
        return []
    from .coop_kernelucb import COOPERATIVE

    last = ", ".join(f"{_short(m)} {_range(q[q.method == m].rank_last, '.1f')}" for m in COOPERATIVE if (q.method == m).any())
    kz = "; ".join(f"{_ROW_NAME.get(r, r)} row within {_range(g.kz_within)} / across {_range(g.kz_across)}"
                   for r, g in q.groupby("row", sort=False))
    return [f"**Quick mode per panel** (`setting_diagnostics/quick_ranks.csv`, the notebook's `rank_table` in quick mode, "
            f"no cap): rank at the last refresh {last}, largest rank up to {q.rank_max.max():.0f}; smallest kept own variance "
            f"{_range(q.min_kept_var)} ({q.min_kept_var.min():.2f} the least; 1.00 where a clique is an agent or two), "
            f"{int(q.capped.sum())} capped agent-refreshes; K̂_z separation: {kz}, AUC {_range(q.kz_auc, '.3g')} on every "
            "panel.", ""]


def note_markdown(folder) -> str:
    """``NOTE.md`` of a Figure-1 folder, written from its files only (never by hand): what ran (commit, sizes,
    counts, the opt-in rank-cap ablation), the sequential step, the recorded times, the claims' count, the choices
    where the paper is silent (their numbers read from the folder), the ranks, kept variance and K̂_z separation
    per panel, R̂(T) per panel and method, what the ablation shows, and the setting diagnostics
    (``setting_diagnostics/``, ``rank_cap_diag.csv``, ``with_ablations/``) where the folder has them. ``python -m
    bandits.report note <folder>`` writes it; so does the notebook's last cell. A section whose files are absent
    (a quick-mode folder) is left out."""
    f = load_folder(folder)
    if f["runs"] is None:
        raise FileNotFoundError(f"{repo_path(folder)}: no runs.csv to write the note from")
    mode = f["prov"].get("mode") or "?"
    have = [n for n, k in (("runs.csv", "runs"), ("claims.json", "claims"), ("sequential.json", "seq"),
                           ("provenance.json", "prov"), ("rank_cap_diag.csv", "rank_cap")) if f[k] is not None and
            (k != "prov" or f[k])]
    if f["kz"] is not None or f["small"] or f["clusters"] is not None or f["quick_ranks"] is not None:
        have.append("`setting_diagnostics/`")
    if f["abl_runs"] is not None:
        have.append("`with_ablations/`")
    src = ", ".join(h if h.startswith("`") else f"`{h}`" for h in have)
    out = [f"# {f['folder'].name}: Coop-KernelUCB Figure 1, {mode} mode", "",
           "Written from this folder's files by `python -m bandits.report note` (the notebook's last cell does the "
           f"same); never edited by hand: every number below is read from {src}. What the figure is, and why it is "
           "built so: the notebook (`coop_kernelucb.ipynb`) and the docstring of `bandits/experiments/coop_kernelucb.py`.",
           ""]
    out += _note_runs(f)
    out += _note_sequential(f)
    out += _note_time(f)
    out += _note_claims(f)
    out += [""]
    out += _note_choices(f)
    out += _note_panels(f)
    out += _note_regret(f)
    out += _note_ablation(f)
    out += _note_kz_separation(f)
    out += _note_small(f)
    out += _note_rank_cap_diag(f)
    out += _note_clusters(f)
    out += _note_quick_ranks(f)
    out += ["Regenerate the runs with `make figures NOTEBOOKS=notebooks/coop_kernelucb.py`; this note alone with "
            f"`python -m bandits.report note {repo_path(folder)}`."]
    return "\n".join(out).rstrip() + "\n"
