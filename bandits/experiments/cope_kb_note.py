"""The ``NOTE.md`` of a CoPE-KB folder (``figures/cope_kb/``), written from the folder's files only: what its runs show beside the claims (:func:`note_markdown`; ``python -m bandits.report note``, and the notebook's last cell through ``bandits.experiments.notebook.NOTE_WRITERS``). Never a run's code: excluded from the run cache's fingerprint (``bandits.runner.NOT_IN_RUNS``)."""

from __future__ import annotations

import numpy as np
from .claims import md_table, repo_path, run_seconds
from .cope_kb import FB_METHODS, FB_VARIANTS, read_results

__all__ = ["note_markdown", "findings_markdown"]


#: The FB methods in the columns of the note's tables, shortened.
_SHORT = {"CoKernelFB-IndAlloc-A": "IndAlloc A", "CoKernelFB-IndAlloc-B": "IndAlloc B",
          "CoKernelFB [reuse rounds, R within]": "CoKernelFB [reuse, R within]",
          "CoKernel-IndAlloc-A": "IndAlloc A", "CoKernel-IndAlloc-B": "IndAlloc B"}


def _rank_name(rank, V) -> str:
    return "V" if int(rank) == int(V) else str(int(rank))


def _ranks_text(ranks, V) -> str:
    return " / ".join(_rank_name(r, V) for r in ranks)


def _k(x: float) -> str:
    """A sample count in thousands (``55.0k``)."""
    return f"{x / 1000:.1f}k" if x >= 1000 else f"{x:.0f}"


def _T(T) -> str:
    T = int(T)
    return f"{T // 1000}k" if T >= 1000 and T % 1000 == 0 else str(T)


def _signed(x: float) -> str:
    return f"{x:.2f}".replace("-", "−")


def _by_rank(bits: dict, V) -> str:
    """``{rank: text}`` joined as "text at rank 1, ..."; one text when every rank gives the same."""
    if len(bits) > 1 and len(set(bits.values())) == 1:
        return f"{next(iter(bits.values()))} at every rank"
    return "; ".join(f"{t} at rank {_rank_name(r, V)}" for r, t in bits.items())


def _pct(x: float) -> str:
    return f"{100 * x:.0f} %"


def _span(values, f=str) -> str:
    lo, hi = min(values), max(values)
    return f(lo) if f(lo) == f(hi) else f"{f(lo)}–{f(hi)}"


def _runs_per_cell(df, keys) -> str:
    """Runs per cell of ``df`` (a cell: one value of every key and the method), as a number or a range."""
    n = df.groupby(list(keys) + ["method"]).size()
    return _span([int(x) for x in n])


def _note_load(folder):
    """``(prov, results, claims)`` of a cope_kb folder; each may be empty when its file is absent."""
    import json

    import pandas as pd

    prov = json.loads((folder / "provenance.json").read_text()) if (folder / "provenance.json").exists() else {}
    res = read_results(folder)
    cj = folder / "claims.json"
    claims = {c["id"]: c for c in json.loads(cj.read_text()).get("claims", [])} if cj.exists() else {}
    return prov, res, claims


def _parts(res):
    """Figure 2 (the figures' constants), the other constants' panel (its part name), Figure 3; empty frames when
    absent."""
    import pandas as pd

    empty = pd.DataFrame(columns=list(res.columns) or ["method"])
    if "part" not in res:
        return empty, empty, None, empty
    fc = res[res.part == "fig2"]
    other_parts = sorted(p for p in set(res.part) if str(p).startswith("fig2_"))
    other = res[res.part == other_parts[0]] if other_parts else empty
    fb = res[res.part == "fig3"]
    return fc, other, (other_parts[0] if other_parts else None), fb


def _verdict(claims, cid) -> str:
    c = claims.get(cid)
    return f"`{cid}` **{c['verdict']}**" if c else ""


def _fb_errors(fb):
    """Mean error (some agent wrong) per (rank, T, method)."""
    return fb.assign(err=(~fb.all_correct.astype(bool)).astype(float)).groupby(["rank", "T", "method"])["err"].mean()


def _note_runs(prov, res, claims, folder) -> list:
    from collections import Counter

    fc, other, other_part, fb = _parts(res)
    pr = prov.get("parameters", {})
    V = pr.get("V", 5)
    git = prov.get("git") or {}
    commit = (git.get("commit") or "unknown")[:7]
    lines = [f"- **Runs.** Commit `{commit}`"
             + (" (the working tree not clean when provenance.json was written: the folder being written counts)"
                if git.get("dirty") else "")
             + f", master seed {prov.get('seed', '?')}, {prov.get('n_jobs', '?')} worker{'' if prov.get('n_jobs') == 1 else 's'} "
             f"({prov.get('backend', '?')}), "
             f"arithmetic `{prov.get('arithmetic', '?')}`, written {prov.get('created', '?')}; V = {V} agents, "
             f"n = 6 two-hot arms each (App. A), ξ = {pr.get('xi', '?')}, ε = {pr.get('eps', '?')}."]
    if len(fc):
        dms = sorted(set(fc.delta_min))
        alba = fc[fc.method.isin(["IndALBA", "IndPolyALBA"])]
        rest = fc[~fc.method.isin(["IndALBA", "IndPolyALBA"])]
        n_rest = _runs_per_cell(rest, ["rank", "delta_min"]) if len(rest) else None
        n_alba = _runs_per_cell(alba, ["rank", "delta_min"]) if len(alba) else None
        runs = (f"{n_rest} runs per cell" if n_rest else f"{n_alba} runs per cell") + (
            "" if not (n_rest and n_alba) else ", the ALBA family too" if n_alba == n_rest else
            f", {n_alba} for the ALBA family")
        lines.append(f"- **Figure 2** (fixed confidence, `fig2.png`; constants `{fc.constants.iloc[0]}`): rank(K_Z) ∈ "
                     f"{{{_ranks_text(sorted(set(fc['rank'])), V)}}}, {len(dms)} gaps Δ_min from {dms[0]:g} to "
                     f"{dms[-1]:g}, δ = {pr.get('delta', '?')}; {', '.join(dict.fromkeys(fc.method))}; {runs} "
                     f"({len(fc)} runs).")
    if len(other):
        lines.append(f"- **The constants panel** (`{other_part}_constants.png`; constants "
                     f"`{other.constants.iloc[0]}`): {', '.join(dict.fromkeys(other.method))} on Figure 2's grid, "
                     f"{_runs_per_cell(other, ['rank', 'delta_min'])} runs per cell ({len(other)} runs).")
    if len(fb):
        Ts = sorted(set(fb["T"]))
        lines.append(f"- **Figure 3** (fixed budget, `fig3.png`): rank(K_Z) ∈ {{{_ranks_text(sorted(set(fb['rank'])), V)}}}, "
                     f"Δ_min = {pr.get('fb_delta_min', '?')}, {len(Ts)} per-agent budgets T from {_T(Ts[0])} to "
                     f"{_T(Ts[-1])}; {', '.join(dict.fromkeys(fb.method))}; {_runs_per_cell(fb, ['rank', 'T'])} runs "
                     f"per cell ({len(fb)} runs).")
    if {"wall_time", "part"} <= set(res.columns) and len(res):
        names = {"fig2": "Figure 2", "fig3": "Figure 3"}
        secs, words = run_seconds(res)
        by = secs.groupby(res["part"], sort=False).sum()
        parts = [f"{names.get(p, 'the constants panel')} {s:.0f} s" for p, s in by.items()]
        lines.append(f"- **Time**, the sum of the runs' own recorded times ({words}; Figure 2's runs in "
                     f"`results.csv`, Figure 3's in `fig3_rank*.csv`, one file per panel): "
                     f"{', '.join(parts)}; {by.sum():.0f} s in all (`figures/TIMES.md` gives the notebook's time).")
    if claims:
        kinds = {}
        for c in claims.values():
            kinds.setdefault(c.get("kind", "paper"), Counter())[c["verdict"]] += 1
        txt = "; ".join(f"{k}: " + ", ".join(f"{v[x]} {x}" for x in ("PASS", "FAIL", "WITHIN", "INCONCLUSIVE") if v[x])
                        for k, v in kinds.items())
        fails = [cid for cid, c in claims.items() if c["verdict"] != "PASS"]
        lines.append(f"- **Claims** (the paper's statements the runs can contradict, and implementation checks that "
                     f"hold by construction here; checks, numbers, intervals and verdicts in `claims.json`): {txt}"
                     + (f"; not PASS: {', '.join(f'`{c}`' for c in fails)}" if fails else "") + ".")
    lines.append("- The theorem checks with runs of their own (C1, C2, C6, C7, Peace's width, C9) are in the "
                 "`cope_theory` notebook's folder.")
    return lines


def _note_fig3c(fb, claims, V) -> list:
    if not len(fb):
        return []
    e = _fb_errors(fb)
    ranks = sorted(set(fb["rank"]))
    present = set(fb.method)
    if not {"CoKernelFB", "IndPeaceFB"} <= present:
        out = ["## Figure 3: the budget each method spends"]
    else:
        out = ["## Figure 3(c): CoKernelFB against IndPeaceFB as the tasks differ", "",
               "The paper (App. A): \"from Figures 3(a) to 3(c), the error probability of CoKernelFB gets closer and "
               "closer to that of the single-agent adaption IndPeaceFB\"; §4.3 defines the speedup over V copies of "
               "a single-agent algorithm and states 1 ≤ β ≤ V (for error probabilities as well, §5.2): CoKernelFB's "
               "error approaches IndPeaceFB's, and at rank V (tasks totally different) it should not be above it."]
    if {"CoKernelFB", "IndPeaceFB"} <= present:
        avg = e.groupby(["rank", "method"]).mean()
        gaps = {r: float(avg[(r, "IndPeaceFB")] - avg[(r, "CoKernelFB")]) for r in ranks
                if (r, "IndPeaceFB") in avg.index and (r, "CoKernelFB") in avg.index}
        txt = ", ".join(f"rank {_rank_name(r, V)} {_signed(g)}" for r, g in gaps.items())
        out += ["", f"The gap IndPeaceFB − CoKernelFB (error averaged over the budget grid): {txt}."]
        if V in gaps:
            T_V = sorted(set(fb[fb["rank"] == V]["T"]))
            worse = sum(e.get((V, T, "CoKernelFB"), np.nan) > e.get((V, T, "IndPeaceFB"), np.nan) for T in T_V)
            out[-1] += (f" At rank V CoKernelFB's error is above IndPeaceFB's at {worse} of {len(T_V)} budgets"
                        + (": the gap changes sign." if gaps[V] < 0 < max(gaps.values()) else "."))
        v = [x for x in (_verdict(claims, "fig3-approaches-peace"), _verdict(claims, "fig3c-not-above-peace")) if x]
        if v:
            out[-1] += (" Claims: " + "; ".join(v) + " (`fig3-approaches-peace` asks only that |gap| shrink from rank "
                        "to rank; `fig3c-not-above-peace` tests the rank-V sign at every budget with the margin its "
                        "check states).")
        if V in ranks:
            cols = [m for m in ("CoKernelFB", "IndPeaceFB", "IndPeaceFB-pooled", "IndUniformFB") if m in present]
            rows = [[_T(T)] + [f"{e[(V, T, m)]:.2f}" if (V, T, m) in e.index else "–" for m in cols]
                    for T in sorted(set(fb[fb["rank"] == V]["T"]))]
            out += ["", "Rank V, error per budget (some agent wrong; mean over the runs):", ""]
            out += md_table(["T"] + cols, rows)
    # budget spent, rounds run, rounds planned
    f = fb.assign(share=fb.S / fb["T"])
    g = f.groupby(["rank", "method"])
    share, rmin, rmax = g.share.mean(), g.rounds.min(), g.rounds.max()
    planned = (f.rounds / f.share).groupby([f["rank"], f.method])
    methods = [m for m in list(FB_METHODS) + list(FB_VARIANTS) if m in present]
    rows = []
    for r in ranks:
        row = [_rank_name(r, V)]
        for m in methods:
            if (r, m) not in share.index:
                row.append("–")
                continue
            rr = f"{int(rmin[(r, m)])}" if rmin[(r, m)] == rmax[(r, m)] else f"{int(rmin[(r, m)])}–{int(rmax[(r, m)])}"
            p = planned.get_group((r, m))
            R = np.round(p.to_numpy(float))
            cell = f"{_pct(share[(r, m)])}, {rr} of R = "
            if np.all(np.abs(p - R) <= 0.01) and len(set(R)) == 1:
                cell += f"{int(R[0])}"
            else:
                cell += "?"
            row.append(cell)
        rows.append(row)
    run_rounds = sorted(set(int(x) for x in fb[fb.method != "IndUniformFB"].rounds))
    why = "Why: " if {"CoKernelFB", "IndPeaceFB"} <= present else ""
    out += ["", why + "Algorithm 2 plans R = ⌈log2 ω(ξ, X̃)⌉ rounds of N = ⌊TV/R⌋ samples each (line 2) and "
            "keeps, per agent, the best-ranked arms up to half of ω (lines 11–13); on this instance that halving ends "
            "every run of the fixed-budget methods but IndUniformFB after "
            + (f"{run_rounds[0]} rounds" if len(run_rounds) == 1 else f"{_span(run_rounds)} rounds")
            + ", so a method spends the rounds it ran over the R it planned. Per rank (rows) and method (columns): the "
            "mean share of the budget TV spent, the rounds run (`rounds`), and the rounds planned R = rounds / share "
            "(the same for every run; \"?\" where the runs do not give one integer):", ""]
    out += md_table(["rank(K_Z)"] + [_SHORT.get(m, m) for m in methods], rows)
    if {"IndUniformFB", "IndPeaceFB"} <= present:
        bits = {}
        for r in ranks:
            Ts = sorted(set(fb[fb["rank"] == r]["T"]))
            k = sum(e.get((r, T, "IndUniformFB"), np.nan) < e.get((r, T, "IndPeaceFB"), np.nan) for T in Ts)
            bits[r] = f"{k} of {len(Ts)} budgets"
        out += ["", "IndUniformFB, which spends the whole budget on one uniform design, has a lower error than "
                "IndPeaceFB at " + _by_rank(bits, V) + ". Each agent's arms are the six two-hot vectors of its "
                "block (App. A), a set that permuting the block's coordinates maps onto itself; for one agent the "
                "design problem of Algorithm 2 line 4 is convex and invariant under those permutations, which act "
                "transitively on the six arms, so on the full arm set the uniform design is an optimum (average any "
                "optimum over the permutations)."]
    if "CoKernelFB [reuse rounds, R within]" in present and "CoKernelFB" in present:
        avg = e.groupby(["rank", "method"]).mean()
        bits = [f"rank {_rank_name(r, V)} {avg[(r, 'CoKernelFB [reuse rounds, R within]')]:.2f} vs "
                f"{avg[(r, 'CoKernelFB')]:.2f}" for r in ranks
                if (r, "CoKernelFB [reuse rounds, R within]") in avg.index and (r, "CoKernelFB") in avg.index]
        out += ["", "`CoKernelFB [reuse rounds, R within]` (the dotted line of `fig3.png`) is CoKernelFB with two "
                "options the paper does not use: the data pooled over rounds, and R from the pairs within an agent's "
                "arms; error averaged over the budget grid against CoKernelFB: " + ", ".join(bits) + "."]
    return out + [""]


def _note_peace(fb, claims, V) -> list:
    if not {"IndPeaceFB", "IndPeaceFB-pooled"} <= set(fb.method):
        return []
    e = _fb_errors(fb)
    avg = e.groupby(["rank", "method"]).mean()
    bits = {}
    for r in sorted(set(fb["rank"])):
        if (r, "IndPeaceFB") not in avg.index or (r, "IndPeaceFB-pooled") not in avg.index:
            continue
        Ts = sorted(set(fb[fb["rank"] == r]["T"]))
        k = sum(e.get((r, T, "IndPeaceFB-pooled"), np.nan) < e.get((r, T, "IndPeaceFB"), np.nan) for T in Ts)
        bits[r] = (f"{avg[(r, 'IndPeaceFB')]:.2f} vs {avg[(r, 'IndPeaceFB-pooled')]:.2f} (pooled lower at {k} of "
                   f"{len(Ts)} budgets)")
    line = ("* **IndPeaceFB with each round's data only** (the figures' \"IndPeaceFB\": Algorithm 2 estimates from "
            "round r's samples, lines 8–10) against Peace with its data pooled over rounds, as Peace's code does; "
            "error averaged over the budget grid, per-round vs pooled: " + _by_rank(bits, V) + ".")
    tested = [cid for cid in ("fig3-lowest-error-rank1", "fig3-lowest-error-rank2")
              if cid in claims and "IndPeaceFB-pooled" in claims[cid].get("check", "")]
    if tested:
        line += " Both are shown; " + ", ".join(f"`{c}`" for c in tested) + " test CoKernelFB against both."
    return [line]


def _same(a, b, keys, cols):
    j = a.merge(b, on=keys, suffixes=("_a", "_b"))
    ok = np.ones(len(j), bool)
    for c in cols:
        ok &= (j[f"{c}_a"] == j[f"{c}_b"]).to_numpy()
    return int(ok.sum()), len(j)


def _note_indalloc(fc, fb, claims, V) -> list:
    fca = {"CoKernelFC", "CoKernel-IndAlloc-A", "CoKernel-IndAlloc-B"} & set(fc.method)
    fba = {"CoKernelFB-IndAlloc-A", "CoKernelFB-IndAlloc-B"} & set(fb.method)
    if not (("CoKernelFC" in fca and len(fca) > 1) or ("CoKernelFB" in set(fb.method) and fba)):
        return []
    line = ("* **IndAlloc, two readings** of the paper's one sentence (\"agents use locally optimal sample "
            "allocations\", §6 and App. A). Reading A (this package's default) runs the average of the agents' local "
            "designs with CoKernelFC's batch size (FC) or CoKernelFB's R and N (FB); reading B lets each agent size its "
            "own batch as if it ran RAGE alone (FC) or run its own Peace schedule (FB), the data shared "
            "(`bandits/algorithms/cope_kb.py`).")
    ranks = sorted(set(fc["rank"])) if len(fc) else sorted(set(fb["rank"]))
    if "CoKernelFC" in fca and "CoKernel-IndAlloc-A" in fca:
        bits = []
        for r in ranks:
            a = fc[(fc["rank"] == r) & (fc.method == "CoKernelFC")]
            b = fc[(fc["rank"] == r) & (fc.method == "CoKernel-IndAlloc-A")]
            s, n = _same(a, b, ["delta_min", "rep"], ["S"])
            bits.append(f"rank {_rank_name(r, V)} {s} of {n}")
        line += " Figure 2, runs in which reading A's samples equal CoKernelFC's: " + ", ".join(bits) + "."
    if "CoKernelFB" in set(fb.method) and fba:
        bits = []
        for r in sorted(set(fb["rank"])):
            a = fb[(fb["rank"] == r) & (fb.method == "CoKernelFB")]
            parts = []
            if "CoKernelFB-IndAlloc-A" in fba:
                s, n = _same(a, fb[(fb["rank"] == r) & (fb.method == "CoKernelFB-IndAlloc-A")], ["T", "rep"],
                             ["all_correct", "S"])
                parts.append(f"A {s} of {n} (outcome and samples)")
            if "CoKernelFB-IndAlloc-B" in fba:
                s, n = _same(a, fb[(fb["rank"] == r) & (fb.method == "CoKernelFB-IndAlloc-B")], ["T", "rep"],
                             ["all_correct"])
                parts.append(f"B {s} of {n} (outcome)")
            bits.append(f"rank {_rank_name(r, V)}: " + ", ".join(parts))
        line += " Figure 3, runs with CoKernelFB's result: " + "; ".join(bits) + "."
    v = [x for x in (_verdict(claims, "fig2-indalloc-A-is-CoKernelFC-rank1"),
                     _verdict(claims, "fig3-indalloc-A-is-CoKernelFB-rank1")) if x]
    if v:
        line += (" At rank 1 reading A is CoKernelFC / CoKernelFB itself (" + "; ".join(v) + "): the comparisons "
                 "with it there are implementation checks, never evidence.")
    out = [line]
    need = ["CoKernel-IndAlloc-B", "CoKernel-IndAlloc-A", "CoKernelFC", "IndRAGE"]
    have = [m for m in need if m in set(fc.method)]
    if "CoKernel-IndAlloc-B" in have and len(have) > 1:
        dm = min(set(fc.delta_min))
        m = fc[np.isclose(fc.delta_min, dm)].groupby(["rank", "method"]).S.mean()
        rows = [[_SHORT.get(x, x)] + [_k(m[(r, x)]) if (r, x) in m.index else "–" for r in ranks] for x in have]
        out += ["", f"  Figure 2, mean samples per agent at Δ_min = {dm:g}:", ""]
        out += ["  " + ln for ln in md_table(["method"] + [f"rank {_rank_name(r, V)}" for r in ranks], rows)]
        if "IndRAGE" in have:
            rat = [m[(r, "CoKernel-IndAlloc-B")] / m[(r, "IndRAGE")] for r in ranks
                   if (r, "CoKernel-IndAlloc-B") in m.index and (r, "IndRAGE") in m.index]
            if rat:
                out += ["", f"  Reading B costs {_span(rat, lambda x: f'{x:.2f}')} times IndRAGE's samples there."]
        v = [x for x in (_verdict(claims, f"fig2-best-rank{r}") for r in ranks if r < V) if x]
        if v:
            out[-1] += " \"CoKernelFC achieves the best sample complexity\" against both readings: " + "; ".join(v) + "."
    if "CoKernelFB-IndAlloc-B" in fba and "CoKernelFB" in set(fb.method):
        e = _fb_errors(fb).groupby(["rank", "method"]).mean()
        sh = (fb.S / fb["T"]).groupby([fb["rank"], fb.method]).mean()
        rb = sorted(set(fb["rank"]))
        bits = [f"rank {_rank_name(r, V)} {e[(r, 'CoKernelFB-IndAlloc-B')]:.2f} vs {e[(r, 'CoKernelFB')]:.2f}"
                for r in rb if (r, "CoKernelFB-IndAlloc-B") in e.index and (r, "CoKernelFB") in e.index]
        spent = _span([sh[(r, "CoKernelFB-IndAlloc-B")] for r in rb if (r, "CoKernelFB-IndAlloc-B") in sh.index], _pct)
        s = (f"  Figure 3: reading B spends {spent} of the budget at every rank; its error against CoKernelFB's, "
             f"averaged over the budget grid: " + ", ".join(bits) + ".")
        if V in rb and "IndPeaceFB" in set(fb.method):
            b = fb[(fb["rank"] == V) & (fb.method == "CoKernelFB-IndAlloc-B")]
            p = fb[(fb["rank"] == V) & (fb.method == "IndPeaceFB")]
            k, n = _same(b, p, ["T", "rep"], ["all_correct", "S"])
            s += f" At rank V reading B has IndPeaceFB's outcome and samples in {k} of {n} runs."
        v = _verdict(claims, "fig3-lowest-error-rank2")
        if v:
            s += f" {v} (\"our CoKernelFB enjoys a lower error probability than the baselines\", App. A)."
        out += ["", s]
    return out


def _note_constants(fc, other, claims, V, eps) -> list:
    from ..algorithms.pe_common import sample_size_constant

    if not (len(other) and {"IndALBA", "IndRAGE"} <= set(other.method)):
        return []
    c_o = other.constants.iloc[0]
    c_f = fc.constants.iloc[0] if len(fc) else ("practical" if c_o == "theory" else "theory")
    name = {"theory": "the paper's 32(1+ε)²", "practical": "the RAGE code's 2(1+ε)"}
    ratio = sample_size_constant("theory", eps) / sample_size_constant("practical", eps)
    m = other.groupby(["rank", "delta_min", "method"]).S.mean()
    bits = []
    for r in sorted(set(other["rank"])):
        dms = [d for d in sorted(set(other[other["rank"] == r].delta_min))
               if (r, d, "IndALBA") in m.index and (r, d, "IndRAGE") in m.index]
        if not dms:
            continue
        wins = [d for d in dms if m[(r, d, "IndALBA")] < m[(r, d, "IndRAGE")]]
        b = f"rank {_rank_name(r, V)}: {len(wins)} of {len(dms)}"
        lost = [d for d in dms if d not in wins]
        if 0 < len(lost) <= 2:
            b += " (not at " + ", ".join(f"Δ_min = {d:g}: {_k(m[(r, d, 'IndALBA')])} vs {_k(m[(r, d, 'IndRAGE')])}"
                                        for d in lost) + ")"
        bits.append(b)
    if not bits:
        return []
    n = _runs_per_cell(other, ["rank", "delta_min"])
    line = (f"* **The sample-size constant.** One constant serves every RAGE-family method; {name['theory']} "
            f"(Algorithm 1 line 5) is "
            f"{ratio:.3g} times {name['practical']} at ε = {eps:g}. With {name.get(c_o, c_o)} (the constants panel, "
            f"{n} runs per cell) IndALBA, whose constants are its own, needs fewer samples than IndRAGE at "
            + "; ".join(bits) + " gaps.")
    v = _verdict(claims, "fig2-indrage-best-single-agent")
    if v:
        line += f" With {name.get(c_f, c_f)} (the figures) \"the best single-agent adaption IndRAGE\" (§6): {v}."
    return [line]


def findings_markdown(fc, other, fb, claims, V: int = 5, eps: float = 0.1) -> str:
    """What the runs show beside the claims, from the run frames themselves: Figure 3(c) against the paper's "closer
    and closer" with the budget each method spends and the rounds it plans, then IndPeaceFB per round vs pooled, the
    two readings of IndAlloc and the sample-size constant ("Other findings"). ``fc``: Figure 2's runs; ``other``:
    the other constants' panel; ``fb``: Figure 3's (empty frames for parts not run); ``claims``: the claims (a list
    of :class:`~bandits.experiments.claims.Claim`, or claim id to its ``claims.json`` entry). The notebook shows it
    under its figures for its own runs, and :func:`note_markdown` writes it into ``NOTE.md``."""
    from dataclasses import asdict

    if not isinstance(claims, dict):
        for c in claims:
            c.finalise()
        claims = {c.id: asdict(c) for c in claims}
    out = _note_fig3c(fb, claims, V)
    other_lines = _note_peace(fb, claims, V) + _note_indalloc(fc, fb, claims, V) + _note_constants(fc, other, claims,
                                                                                                    V, eps)
    if "IndPolyALBA" in set(fc.method) | set(other.method):
        other_lines.append("* **IndPolyALBA is a reconstruction** (ALBA with a uniform design on a greedy spanning "
                           "subset of the arms, `bandits/algorithms/rage.py`): §6 names it as an adaption of PolyALBA "
                           "in one sentence and no code of it is public; the legends say so.")
    if other_lines:
        out += ["## Other findings", ""] + other_lines + [""]
    return "\n".join(out)


def note_markdown(folder) -> str:
    """``NOTE.md`` of a cope_kb folder, written from its files only (never by hand): what ran (commit, grids, runs per
    cell, the runs' recorded times, the claims' verdicts), Figure 3(c) against the paper's "closer and closer" with
    the budget each method spends and the rounds it plans, IndPeaceFB per round vs pooled, the two readings of
    IndAlloc, and the sample-size constant. Sections whose data the folder lacks are left out (a quick-mode folder
    holds them all, on smaller grids). ``python -m bandits.report note <folder>`` writes it; so does the notebook's
    last cell."""
    from pathlib import Path

    folder = Path(folder)
    prov, res, claims = _note_load(folder)
    pr = prov.get("parameters", {})
    V, eps = int(pr.get("V", 5)), float(pr.get("eps", 0.1))
    fc, other, _, fb = _parts(res)
    out = [f"# {folder.name}: {prov.get('mode') or '?'} mode", "",
           "Written from this folder's files by `python -m bandits.report note` (the notebook's last cell does the "
           "same); never edited by hand: every number below is read from the run tables (`results.csv`, "
           "`fig3_rank*.csv`), `claims.json` and `provenance.json`. What is run, and the choices where the paper is "
           "silent: the notebook (`cope_kb.ipynb`) and the docstring of `bandits/experiments/cope_kb.py`.", ""]
    out += _note_runs(prov, res, claims, folder) + [""]
    out += [findings_markdown(fc, other, fb, claims, V, eps)]
    out += [f"Regenerate the runs with `make figures NOTEBOOKS=notebooks/cope_kb.py`; this note alone with "
            f"`python -m bandits.report note {repo_path(folder)}`."]
    return "\n".join(out).rstrip() + "\n"
