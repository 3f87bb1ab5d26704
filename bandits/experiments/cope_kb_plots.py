"""CoPE-KB: the figures (Figures 2 and 3, C1's speedup), drawn from the runs of :mod:`bandits.experiments.cope_kb`.

Left out of the run cache's code fingerprint (:func:`bandits.runner.in_runs`): a figure changes without
recomputing a run (docs/adding_a_paper.md §4).
"""
from __future__ import annotations

import numpy as np

from .cope_kb import budget_table, fc_summary

__all__ = ["LEGEND", "CASE_TITLES", "legend_label", "wilson_interval", "plot_fig2", "plot_fig3", "plot_c1"]


CASE_TITLES = {1: "(a) same tasks, rank(K_Z) = 1", 2: "(b) similar tasks, rank(K_Z) = 2",
               5: "(c) different tasks, rank(K_Z) = V"}


#: What the legends say: the reading of each ablation, and "reconstructed" where a baseline is one.
LEGEND = {"CoKernel-IndAlloc-A": "CoKernel-IndAlloc, reading A (averaged local designs)",
          "CoKernel-IndAlloc-B": "CoKernel-IndAlloc, reading B (local batch sizes)",
          "IndPolyALBA": "IndPolyALBA (reconstructed)",
          "IndRAGE/V": "IndRAGE/V (reference)",
          "CoKernelFB-IndAlloc-A": "CoKernelFB-IndAlloc, reading A (averaged local designs)",
          "CoKernelFB-IndAlloc-B": "CoKernelFB-IndAlloc, reading B (local Peace schedules)",
          "IndPeaceFB": "IndPeaceFB (per-round data, as Alg. 2)",
          "IndPeaceFB-pooled": "IndPeaceFB (data pooled over rounds, as Peace's code)",
          "CoKernelFB [reuse rounds, R within]": "CoKernelFB [pooled rounds, R within] (not the paper's)"}


_STYLE = {"CoKernelFC": ("#d62728", "-"), "CoKernel-IndAlloc-A": ("#ff7f0e", "--"),
          "CoKernel-IndAlloc-B": ("#8c564b", "-."), "IndRAGE": ("#1f77b4", "-"),
          "IndRAGE/V": ("#1f77b4", ":"), "IndALBA": ("#2ca02c", "-"), "IndPolyALBA": ("#9467bd", "-"),
          "CoKernelFB": ("#d62728", "-"), "CoKernelFB-IndAlloc-A": ("#ff7f0e", "--"),
          "CoKernelFB-IndAlloc-B": ("#8c564b", "-."), "IndPeaceFB": ("#1f77b4", "-"),
          "IndPeaceFB-pooled": ("#17becf", "--"), "IndUniformFB": ("#7f7f7f", "-"),
          "CoKernelFB [reuse rounds, R within]": ("#d62728", ":")}


def legend_label(m: str) -> str:
    """The legend's name of a method (:data:`LEGEND`; the method's own name otherwise)."""
    return LEGEND.get(m, m)


def wilson_interval(k, n, level: float = 0.95):
    r"""Wilson score interval of a binomial proportion k/n (arrays), always inside [0, 1] (the
    Wald interval p ± z√(p(1−p)/n) leaves it for small error rates); the same numbers as
    ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")``, vectorised over the grid:
    :math:`\frac{\hat p + z^2/2n \pm z\sqrt{\hat p(1-\hat p)/n + z^2/4n^2}}{1 + z^2/n}`."""
    from scipy.stats import norm

    k, n = np.rint(np.asarray(k, dtype=float)), np.asarray(n, dtype=float)
    z = float(norm.ppf(0.5 + level / 2))
    ph = k / n
    c = (ph + z * z / (2 * n)) / (1 + z * z / n)
    h = z * np.sqrt(ph * (1 - ph) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return np.clip(c - h, 0.0, 1.0), np.clip(c + h, 0.0, 1.0)


def plot_fig2(fc, p, constants=None):
    from ..plotting import setup_style

    plt = setup_style()
    constants = constants or p["constants"]
    s = fc_summary(fc, p["V"])
    s = s[s.constants == constants]
    fig, axes = plt.subplots(1, len(p["cases"]), figsize=(4 * len(p["cases"]), 4.2), squeeze=False)
    for ax, rank in zip(axes[0], p["cases"]):
        for m in list(p["fc_methods"]) + ["IndRAGE/V"]:
            x = s[(s["rank"] == rank) & (s.method == m)].sort_values("delta_min")
            if not len(x):
                continue
            c, ls = _STYLE.get(m, (None, "-"))
            lo = np.minimum(x.ci95.to_numpy(), 0.999 * x["mean"].to_numpy())  # S > 0 on the log axis
            ax.errorbar(x.delta_min, x["mean"], yerr=[lo, x.ci95.to_numpy()], label=legend_label(m), color=c, ls=ls,
                        marker="o", ms=3, capsize=2)
        ax.set_yscale("log")
        ax.set_xlabel("reward gap Δ_min")
        ax.set_title(CASE_TITLES.get(rank, f"rank(K_Z) = {rank}"), fontsize=9)
    axes[0, 0].set_ylabel("samples per agent (95% CI)")
    h, lab = axes[0, 0].get_legend_handles_labels()
    fig.legend(h, lab, loc="lower center", ncol=min(3, len(lab)), fontsize=7, frameon=False)
    fig.suptitle(f"CoPE-KB Figure 2 reproduced (fixed confidence, δ = {p['delta']}, {constants} constants)", fontsize=10)
    fig.tight_layout(rect=(0, 0.02 + 0.045 * ((len(lab) + 2) // 3), 1, 1))
    return fig


def plot_fig3(fb, p):
    """Figure 3: error probability vs T (top row, 95 % Wilson intervals) and the share of the budget
    TV each method spends (bottom row: Algorithm 2 stops after 2 of its R rounds here)."""
    from ..plotting import setup_style

    plt = setup_style()
    e = fb.assign(err=(~fb.all_correct.astype(bool)).astype(float)).groupby(["rank", "T", "method"])["err"]
    e = e.agg(["mean", "count"]).reset_index()
    spent = budget_table(fb).reset_index()
    nc = len(p["cases"])
    fig, axes = plt.subplots(2, nc, figsize=(4 * nc, 6.4), squeeze=False, sharex="col",
                             gridspec_kw={"height_ratios": [2.2, 1]})
    for k, rank in enumerate(p["cases"]):
        ax, bx = axes[0, k], axes[1, k]
        for m in p["fb_methods"]:
            x = e[(e["rank"] == rank) & (e.method == m)].sort_values("T")
            c, ls = _STYLE.get(m, (None, "-"))
            lo, hi = wilson_interval(x["mean"].to_numpy() * x["count"].to_numpy(), x["count"].to_numpy())
            mu = x["mean"].to_numpy(float)
            ax.errorbar(x["T"], mu, yerr=[np.maximum(mu - lo, 0.0), np.maximum(hi - mu, 0.0)], label=legend_label(m),
                        color=c, ls=ls, marker="o", ms=3, capsize=2)
            y = spent[(spent["rank"] == rank) & (spent.method == m)].sort_values("T")
            bx.plot(y["T"], 100 * y["spent"], color=c, ls=ls, marker="o", ms=3, zorder=3 if m == "CoKernelFB" else 2)
            if m == "CoKernelFB" and len(y):
                bx.annotate(f"CoKernelFB {100 * y['spent'].mean():.0f} %", (y["T"].iloc[0], 100 * y["spent"].mean()),
                            textcoords="offset points", xytext=(0, -11), fontsize=7, color=c)
        ax.set_xscale("log")
        ax.set_title(CASE_TITLES.get(rank, f"rank(K_Z) = {rank}"), fontsize=9)
        bx.set_xscale("log")
        bx.set_ylim(0, 105)
        bx.set_xlabel("budget T per agent")
    axes[0, 0].set_ylabel("error probability (any agent wrong),\n95% Wilson interval")
    axes[1, 0].set_ylabel("budget spent (% of TV)")
    h, lab = axes[0, 0].get_legend_handles_labels()
    fig.legend(h, lab, loc="lower center", ncol=min(3, len(lab)), fontsize=7, frameon=False)
    fig.suptitle(f"CoPE-KB Figure 3 reproduced (fixed budget, Δ_min = {p['fb_delta_min']}, "
                 f"{p['fb_runs']} runs)", fontsize=10)
    fig.tight_layout(rect=(0, 0.02 + 0.035 * ((len(lab) + 2) // 3), 1, 1))
    return fig


def plot_c1(c1, p):
    from ..plotting import setup_style

    plt = setup_style()
    fig, ax = plt.subplots(figsize=(4, 3.3))
    for constants, mk in (("theory", "o"), ("practical", "s")):
        x = c1[c1.constants == constants].groupby(["rank", "delta_min", "method"])["S"].mean().unstack("method")
        r = (x["CoKernelFC"] / x["IndRAGE"]).reset_index(name="ratio")
        for dm, g in r.groupby("delta_min"):
            ax.plot(g["rank"] / p["V"], g.ratio, marker=mk, ls="none", label=f"{constants}, Δ={dm:g}")
    ax.plot([0, 1], [0, 1], "k:", label="g/V")
    ax.set_xlabel("g / V  (rank(K_Z) / V)")
    ax.set_ylabel("S(CoKernelFC) / S(IndRAGE)")
    ax.legend(fontsize=7)
    ax.set_title("C1: speedup vs task similarity")
    fig.tight_layout()
    return fig
