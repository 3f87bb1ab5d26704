"""DUETS Figure 1: the figures, drawn from the runs of :mod:`bandits.experiments.duets`.

Left out of the run cache's code fingerprint (:func:`bandits.runner.in_runs`): a figure changes without
recomputing a run (docs/adding_a_paper.md §4).
"""
from __future__ import annotations

import numpy as np

from .duets import BASE_METHODS, Fig1Results, VARIANTS, at_selected

__all__ = ["PANEL_TITLES", "plot_fig1", "plot_beta_grid", "plot_variants"]

PANEL_TITLES = {"h1": "h1 (cosine)", "h2": "h2 (polynomial)", "branin": "Branin", "hartmann4": "Hartmann-4D"}


def plot_fig1(res: Fig1Results, convention: str = "paper", methods=None, band: str = "se"):
    """The 2 × 4 panels of Figure 1 at each method's selected β: the mean with a standard-error
    band (``band``: see :func:`bandits.plotting.mean_band`) clipped at 0, and every run's final
    value as a point beside the curve's end."""
    from ..plotting import BAND_TEXT, band_plot, color_for, setup_style, suptitle, tight

    plt = setup_style()
    methods = methods or [m for m in BASE_METHODS if m in res.params["methods"]]
    fns = res.params["functions"]
    fig, axes = plt.subplots(2, len(fns), figsize=(3.2 * len(fns), 6.4), squeeze=False)
    sel = res.selected.set_index(["function", "method"])["beta"]
    col = "comm_paper" if convention == "paper" else "comm_code"
    letters = "abcdefghijklmnop"
    for j, fn in enumerate(fns):
        for i, m in enumerate(methods):
            beta = sel.loc[(fn, m)]
            c = res.curves[(res.curves.function == fn) & (res.curves.method == m) & (res.curves.beta == beta)]
            piv_r = c.pivot(index="rep", columns="t", values="regret")
            piv_c = c.pivot(index="rep", columns="t", values=col)
            lab = f"{m} (β={beta:g})"
            band_plot(axes[0, j], piv_r.columns.values, piv_r.values, lab, color_for(m, i), band=band,
                      bounds=(0, None), points=True)
            band_plot(axes[1, j], piv_c.columns.values, piv_c.values, lab, color_for(m, i), band=band,
                      bounds=(0, None), points=True)
        axes[0, j].set_title(f"({letters[j]}) {PANEL_TITLES.get(fn, fn)}")
        axes[1, j].set_title(f"({letters[len(fns) + j]}) {PANEL_TITLES.get(fn, fn)}")
        axes[1, j].set_xlabel("Time")
        # each panel's own β in its legend, under the panel (a legend inside would cover the curves)
        # (the top row's time axis is the bottom row's: its tick labels give way to the legend)
        axes[0, j].tick_params(labelbottom=False)
        axes[0, j].legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.03), ncol=1,
                          borderaxespad=0.0)
    axes[0, 0].set_ylabel("Regret")
    unit = "per agent, up + down (Eq. 2)" if convention == "paper" else "total uplink (authors' code)"
    axes[1, 0].set_ylabel(f"Communication cost\n{unit}")
    p = res.params
    suptitle(fig, f"DUETS Figure 1 reproduced: N={p['N']}, T={p['T']}, M={p['M']} candidates, "
                  f"{p['n_runs']} runs, {BAND_TEXT[band]} (points: single runs at T)")
    tight(fig)
    return fig


def plot_beta_grid(res: Fig1Results):
    """Final regret vs β for every method and function (the whole tuning grid): mean ± 1 s.e. (the bar
    clipped at R = 0), the β grid as the ticks; two panels a row, one legend under them."""
    from ..plotting import color_for, legend_below, setup_style, value_ticks

    plt = setup_style()
    fns = res.params["functions"]
    ncol = min(2, len(fns))
    nrow = int(np.ceil(len(fns) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.6 * ncol, 2.6 * nrow), squeeze=False)
    g = res.runs.groupby(["function", "method", "beta"])["R_T"].agg(["mean", "std", "count"]).reset_index()
    for j, fn in enumerate(fns):
        ax = axes.ravel()[j]
        for i, m in enumerate(res.params["methods"]):
            s = g[(g.function == fn) & (g.method == m)]
            se = (s["std"] / np.sqrt(s["count"])).fillna(0).to_numpy()
            lo = np.minimum(se, s["mean"].to_numpy())  # the bar never goes below R = 0
            ax.errorbar(s.beta, s["mean"], yerr=[lo, se], label=m, color=color_for(m, i),
                        marker="o", ms=3, capsize=2, lw=1)
        ax.set_xscale("log")
        value_ticks(ax, g.beta[g.function == fn])
        ax.set_title(PANEL_TITLES.get(fn, fn))
        if j // ncol == nrow - 1 or j + ncol >= len(fns):
            ax.set_xlabel("β")
        if j % ncol == 0:
            ax.set_ylabel("R(T), mean ± s.e.")
    for ax in axes.ravel()[len(fns):]:
        ax.set_visible(False)
    legend_below(fig, axes, ncol=3)
    return fig


def plot_variants(res: Fig1Results):
    """Paper vs code choices for DUETS: final regret and communication at each variant's β (the
    variants in shades of DUETS' colour)."""
    from ..plotting import legend_below, line_styles, setup_style

    plt = setup_style()
    runs = at_selected(res)
    ms = [m for m in ("DUETS",) + VARIANTS if m in res.params["methods"]]
    fns = res.params["functions"]
    styles = line_styles(ms)
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.4))
    w = 0.8 / len(ms)
    for i, m in enumerate(ms):
        s = runs[runs.method == m].groupby("function")[["R_T", "C_paper", "C_code"]].mean().reindex(fns)
        x = np.arange(len(fns)) + i * w
        for ax, col in zip(axes, ["R_T", "C_paper", "C_code"]):
            ax.bar(x, s[col].values, width=w, label=m, color=styles[m][0])
    for ax, title in zip(axes, ["R(T)", "communication, paper's unit", "communication, code's unit"]):
        ax.set_xticks(np.arange(len(fns)) + 0.4 - w / 2)
        ax.set_xticklabels(fns)
        ax.set_title(title)
    legend_below(fig, axes[:1], ncol=len(ms))
    return fig
