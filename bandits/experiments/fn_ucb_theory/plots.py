"""FN-UCB theory checks: the figures."""
from __future__ import annotations

import numpy as np

from .runs import TheoryResults


def plot_rounds(res: TheoryResults):
    """C_T vs D (E5, with Theorem 2's bound) and vs N (E6), log–log, mean ± s.e. over runs; one legend
    under the panels."""
    from ...plotting import legend_below, plain_log_labels, setup_style, value_ticks

    plt = setup_style()
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.6))
    for ax, (chk, x) in zip(axes, (("E5", "D"), ("E6", "N"))):
        r = res.runs[res.runs.check == chk]
        ro = res.runs[res.runs.check == chk + "o"]  # the official code's training, where run
        series = [(r, "rounds", "C_T (App. E text training)", "o"), (r, "bound", "⌈T/ζ⌉ + ⌈R_emp ζ/D⌉", "s")]
        if len(ro):
            series.append((ro, "rounds", "C_T (official code's training)", "^"))
        for rr, col, lab, mk in series:
            s = rr.groupby(x)[col].agg(["mean", "std", "count"])
            se = (s["std"] / np.sqrt(s["count"])).fillna(0)
            ax.errorbar(s.index, s["mean"], yerr=se, marker=mk, capsize=2, label=lab)
        if chk == "E5":
            s = r.groupby("D").rounds.mean()
            ref = s.iloc[0] * (s.index.to_numpy(float) / s.index[0]) ** -0.5
            ax.plot(s.index, ref, "k:", label="∝ D^(−1/2)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        value_ticks(ax, r[x].unique())
        plain_log_labels(ax, "y")
        ax.set_xlabel(x + (" (D = c·T/N)" if chk == "E6" else ""))
        ax.set_title(f"{chk}: communication rounds vs {x}", fontsize=9)
    axes[0].set_ylabel("rounds C_T")
    legend_below(fig, axes, ncol=3)
    return fig


def plot_regret(res: TheoryResults):
    """E3/E13: R̄(t) of FN-UCB and only-UCB_a, and the potential, log–log, mean ± s.e."""
    from ...plotting import band_plot, color_for, setup_style

    plt = setup_style()
    fig, axes = plt.subplots(1, 2, figsize=(8, 3))
    c = res.curves
    for i, (chk, lab) in enumerate((("E3", "FN-UCB"), ("E3a", "only UCB_a"))):
        piv = c[c.check == chk].pivot(index="rep", columns="t", values="regret")
        band_plot(axes[0], piv.columns.values, piv.values, lab, color_for(lab, i), band="se", bounds=(0, None))
    piv = c[c.check == "E3"].pivot(index="rep", columns="t", values="potential")
    band_plot(axes[1], piv.columns.values, piv.values, "Σ_j log(V_sync,jj/λ)", color_for("potential", 0), band="se",
              bounds=(0, None))
    for ax, t in zip(axes, ("E3: R̄(t)", "E13: potential")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("Iterations")
        ax.set_title(t, fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_more(res: TheoryResults):
    """E2 (total regret vs N, with the single agent run N_E2·T steps), E8 (α_t vs t), E12 (coverage vs ν)
    and E14 (linearisation error vs m): means ± s.e. over runs, one panel each."""
    from ...plotting import setup_style, value_ticks

    plt = setup_style()
    fig, axes = plt.subplots(2, 2, figsize=(8.5, 6.2))  # 2 × 2: a 1 × 4 strip is unreadable at a page's width
    axes = axes.ravel()
    p = res.params

    def errbar(ax, g, x, col, label, marker="o", **kw):
        s = g.groupby(x)[col].agg(["mean", "std", "count"])
        ax.errorbar(s.index, s["mean"], yerr=(s["std"] / np.sqrt(s["count"])).fillna(0), marker=marker, capsize=2,
                    label=label, **kw)

    ax = axes[0]
    e2n = res.runs[res.runs.check == "E2N"].assign(total=lambda d: d.N * d.R_T)
    errbar(ax, e2n, "N", "total", f"FN-UCB, T = {p['T_E2']}: R_T = N·R̄_T")
    one = res.runs[(res.runs.check == "E2") & (res.runs.N == 1)]
    ax.errorbar([p["N_E2"]], [one.R_T.mean()], yerr=[one.R_T.std() / np.sqrt(len(one))], marker="*", ms=10,
                ls="none", capsize=2, label=f"N = 1 for {p['N_E2'] * p['T_E2']} steps")
    ax.set_xscale("log")
    ax.set_yscale("log")
    value_ticks(ax, list(e2n.N.unique()) + [p["N_E2"]])
    ax.set_xlabel("N")
    ax.set_title("E2: total regret vs N", fontsize=9)
    ax = axes[1]
    errbar(ax, res.alpha, "t", "alpha", "theory α_t (N = 1, UCB_a only)")
    ax.set_xscale("log")
    ax.set_ylim(0, 1)
    ax.set_xlabel("t")
    ax.set_title("E8: α = σ_min/σ_max", fontsize=9)
    ax = axes[2]
    errbar(ax, res.coverage, "nu", "coverage", "h ≤ UCB_a")
    errbar(ax, res.coverage, "nu", "coverage_abs", "|h − mean| ≤ width", marker="s")
    ax.axhline(0.95, color="k", ls=":", lw=0.8)
    ax.set_xscale("log")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("ν_TKN")
    ax.set_title(f"E12: UCB_a coverage (m = {p['m_E12']})", fontsize=9)
    ax = axes[3]
    errbar(ax, res.linear, "m", "err", "max |f(θ_sync) − mean linear|")
    errbar(ax, res.linear, "m", "err_opt", "GD part (err_opt)", marker="s")
    ax.set_xscale("log")
    ax.set_yscale("log")
    value_ticks(ax, res.linear.m.unique())
    ax.set_xlabel("width m")
    ax.set_title("E14: linearisation error vs m", fontsize=9)
    for ax in axes:
        ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig
