"""The figures of the Async-KernelUCB theory checks."""
from __future__ import annotations

import numpy as np

from ..common import fmt, loglog_slope
from .claims import _pareto, c5_points
from .runs import ExtraResults, TheoryResults
from .setting import APPROX, ASYNC, NK, ONE


# ------------------------------------------------------------------------------ figures
def _log_ticks(ax, values):
    """Major ticks at ``values`` on a log axis, no minor labels."""
    from matplotlib.ticker import NullFormatter

    ax.set_xticks(list(values))
    ax.set_xticklabels([fmt(v, 3) for v in values])
    ax.xaxis.set_minor_formatter(NullFormatter())


_QCOL = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]


def plot_c1(res: TheoryResults):
    """C1: |S_B| and the Lemma 4.1 bound vs q (log y), with d_eff; |S| against t per q."""
    from ...plotting import band_plot, legend_right, setup_style

    plt = setup_style()
    c1, cur = res.c1, res.c1_curves
    fig, (a0, a1) = plt.subplots(1, 2, figsize=(10.5, 3.6))
    for j, D in enumerate(sorted(c1.D.unique())):
        s = c1[c1.D == D].groupby("q")[["dict_size", "size_bound", "d_eff", "expected_size"]].mean()
        col = _QCOL[j % len(_QCOL)]
        a0.plot(s.index, s.dict_size, "o-", color=col, label=f"|S_B|, D={fmt(D)}")
        a0.plot(s.index, s.size_bound, "s--", color=col, alpha=0.6, label=f"12β(1+βD)qγ̂, D={fmt(D)}")
        a0.plot(s.index, s.expected_size, "x:", color=col, alpha=0.8)
    s = c1.groupby("q").d_eff.mean()
    a0.plot(s.index, s.values, "k^-", label="d_eff on uploaded data")
    a0.set_xscale("log")
    a0.set_yscale("log")
    _log_ticks(a0, sorted(c1.q.unique()))
    a0.set_xlabel("q (RLS oversampling)")
    a0.set_ylabel("size")
    a0.set_title("C1: dictionary size vs Lemma 4.1 (x: Σp̃)")
    legend_right(a0, fontsize=6)
    D0 = sorted(cur.D.unique())[len(cur.D.unique()) // 2]
    for j, q in enumerate(sorted(cur.q.unique())):
        c = cur[(cur.q == q) & (cur.D == D0)]
        pv = c.pivot(index="rep", columns="t", values="dict_size")
        band_plot(a1, pv.columns.values, pv.values, f"q={fmt(q)}", _QCOL[j % len(_QCOL)], bounds=(0, None))
    a1.set_xlabel("t")
    a1.set_ylabel("|S_k|")
    a1.set_title(f"C1: dictionary growth (D={fmt(D0)}), mean ± 1 s.e.")
    a1.legend()
    fig.tight_layout()
    return fig


def plot_c4(res: TheoryResults):
    """C4: B vs D (log-log) with 2γ̂(N + 4β/D), and C_T vs D with Theorem 4.5's bound."""
    from ...plotting import setup_style

    plt = setup_style()
    c4 = res.c4
    m = c4.groupby("D")[["B", "B_bound", "C_T", "C_bound"]].mean().sort_index()
    fig, (a0, a1) = plt.subplots(1, 2, figsize=(9, 3.4))
    a0.scatter(c4.D, c4.B, s=10, color="#d62728", alpha=0.5)
    a0.plot(m.index, m.B, "o-", color="#d62728", label="B (Async-KernelUCB)")
    a0.plot(m.index, m.B_bound, "s--", color="k", label="2γ̂(N + 4β/D)")
    a0.axhline(res.params["T"], color="grey", lw=0.8, ls=":", label="T")
    a0.set_xscale("log")
    a0.set_yscale("log")
    a0.set_xlabel("threshold D")
    a0.set_ylabel("communications B")
    a0.set_title("C4: Lemma D.1")
    a0.legend(fontsize=7)
    a1.scatter(c4.D, c4.C_T, s=10, color="#d62728", alpha=0.5)
    a1.plot(m.index, m.C_T, "o-", color="#d62728", label="C_T (scalars)")
    a1.plot(m.index, m.C_bound, "s--", color="k", label="Theorem 4.5 bound")
    a1.set_xscale("log")
    a1.set_yscale("log")
    a1.set_xlabel("threshold D")
    a1.set_ylabel("C_T")
    a1.set_title("C4: communication cost")
    a1.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_c5(res: TheoryResults):
    """C5: final (C_T, R_T) per setting (means over runs) with Pareto fronts per (method, q)."""
    from ...plotting import place_labels, setup_style

    plt = setup_style()
    pts = c5_points(res.c5)
    fig, ax = plt.subplots(figsize=(6, 4))
    styles = {ASYNC: ("o", "-"), APPROX: ("s", "--")}
    labels = []  # Async's points, labelled with their D once the layout is final
    for j, q in enumerate(sorted(pts.q.dropna().unique())):
        col = _QCOL[j % len(_QCOL)]
        for m, (mk, ls) in styles.items():
            s = pts[(pts.method == m) & np.isclose(pts.q, q)]
            if not len(s):
                continue
            ax.scatter(s.C_T, s.R_T, marker=mk, color=col, s=28, facecolors="none" if m == APPROX else col)
            f = _pareto(s)
            ax.plot(f.C_T, f.R_T, ls, color=col, lw=1.2, label=f"{m}, q={fmt(q)}")
            if m == ASYNC:
                labels.append(s)
    for m, col in ((ONE, "k"), (NK, "grey")):
        s = pts[pts.method == m]
        if len(s):
            ax.scatter(np.maximum(s.C_T, 1.0), s.R_T, marker="*", s=90, color=col, label=f"{m}"
                       + (" (C=0 at floor)" if m == NK else ""))
    ax.set_xscale("log")
    ax.set_xlabel("C_T (scalars, both directions)")
    ax.set_ylabel("R_T")
    p = res.params
    ax.set_title(f"C5: regret–communication trade-off (d={p['d']}, N={p['N']}, T={p['T']})")
    ax.legend(fontsize=6.5)
    fig.tight_layout()
    for s in labels:  # placed apart (neighbouring D nearly coincide on the log axis)
        place_labels(ax, s.C_T, s.R_T, [f"D={d}" for d in s.D_label], fontsize=5, alpha=0.8)
    return fig


def plot_scaling(res: TheoryResults):
    """C6 (B, R_T vs N) and C7 (R_T vs T, log-log)."""
    from ...plotting import setup_style, value_ticks

    plt = setup_style()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    if res.c6 is not None:
        for j, lab in enumerate(sorted(res.c6.D_label.unique())):
            g = res.c6[res.c6.D_label == lab].groupby("N")[["B", "R_T"]].mean()
            axes[0].plot(g.index, g.B, "o-", color=_QCOL[j], label=f"B, D={lab}")
            axes[0].plot(g.index, g.R_T, "s--", color=_QCOL[j], label=f"R_T, D={lab}")
        axes[0].set_xscale("log")
        axes[0].set_yscale("log")
        _log_ticks(axes[0], sorted(res.c6.N.unique()))
        axes[0].set_xlabel("N")
        axes[0].set_ylabel("B (o) and R_T (s)")
        axes[0].set_title("C6: scaling with N")
        axes[0].legend(fontsize=7)
    if res.c7 is not None:
        for j, (key, s) in enumerate(res.c7.groupby(["method", "D_label"], dropna=False)):
            g = s.groupby("T").R_T.mean()
            lab = key[0] + (f", D={key[1]}" if key[0] == ASYNC else "")
            axes[1].plot(g.index, g.values, "o-", color=_QCOL[j % len(_QCOL)],
                         label=f"{lab} (slope {fmt(loglog_slope(g.index, g.values))})")
        axes[1].set_xscale("log")
        axes[1].set_yscale("log")
        value_ticks(axes[1], sorted(res.c7["T"].unique()))
        axes[1].set_xlabel("T")
        axes[1].set_ylabel("R_T")
        axes[1].set_title("C7: regret growth")
        axes[1].legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_extra(ext: ExtraResults):
    """C2 (ε̂ vs q), C8 (Lemma C.1 ratio and per-client ratio vs D with 1 + ND), C9 (coverage),
    C10 (R_T under uniform vs Zipf arrivals)."""
    from ...plotting import setup_style

    plt = setup_style()
    fig, ax = plt.subplots(2, 2, figsize=(9.5, 6.4))  # 2 × 2: a 1 × 4 strip is unreadable at a page's width
    ax = ax.ravel()
    if ext.c2 is not None and len(ext.c2):
        g = ext.c2.groupby("q").eps_hat
        ax[0].errorbar(g.mean().index, g.mean().values, g.std().fillna(0).values, marker="o", label="ε̂ (mean ± s.d.)")
        ax[0].axhline(ext.params["eps"], color="k", ls=":", label="ε = 0.5")
        ax[0].set_xscale("log")
        ax[0].set_xlabel("q")
        ax[0].set_title("C2: spectral accuracy ε̂")
        ax[0].legend(fontsize=7)
    if ext.c8 is not None and len(ext.c8):
        g = ext.c8.groupby("D")[["max_ratio", "client_max_ratio", "bound"]].mean()
        ax[1].plot(g.index, g.max_ratio, "o-", label="Lemma C.1 ratio (server data)")
        ax[1].plot(g.index, g.client_max_ratio, "s--", label="per-client stale ratio")
        ax[1].plot(g.index, g.bound, "k:", label="1 + N·D")
        ax[1].set_xscale("log")
        ax[1].set_yscale("log")
        ax[1].set_xlabel("D")
        ax[1].set_title("C8: staleness (max over run)")
        ax[1].legend(fontsize=7)
    if ext.c9 is not None and len(ext.c9):
        c9 = ext.c9
        for kind, s in c9.groupby("alpha_kind"):
            ax[2].scatter(s.R_T, s.coverage, label=f"α {kind} ({fmt(float(s.alpha.iloc[0]), 3)})")
        ax[2].set_xlabel("R_T")
        ax[2].set_ylabel("coverage")
        ax[2].set_title(f"C9: smallest covering α {fmt(float(c9.alpha_full.max()), 2)}")
        ax[2].legend(fontsize=7)
    if ext.c10 is not None and len(ext.c10):
        g = ext.c10.groupby(["method", "schedule"]).R_T.mean().unstack("schedule")
        g.plot.bar(ax=ax[3], rot=0)
        ax[3].set_ylabel("mean R_T")
        ax[3].set_title("C10: uniform vs Zipf arrivals")
        ax[3].legend(fontsize=7)
    fig.tight_layout()
    return fig
