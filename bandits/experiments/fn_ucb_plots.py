"""FN-UCB (Dai et al., ICLR 2023): the figures (R̄(t) panels of Figures 1–5, Figure 6's R̄(T) vs N) drawn from
:func:`bandits.experiments.fn_ucb.run_fn`'s tables.

Left out of the run cache's code fingerprint (:func:`bandits.runner.in_runs`): a change here recomputes no
run. The run module :mod:`bandits.experiments.fn_ucb` never imports this one; the notebook does.
"""
from __future__ import annotations

import numpy as np

from .fn_ucb import FNResults, failed_mask

__all__ = ["PANELS", "plot_panels", "plot_fig6"]

PANELS = {"1a": "(1a) cosine", "1b": "(1b) square", "1c": "(1c) cosine, components", "1d": "(1d) cosine, D values",
          "2a": "(2a) shuttle", "2b": "(2b) magic telescope", "2c": "(2c) shuttle (diag.)", "2d": "(2d) shuttle (diag.), D",
          "3": "(3) Less Comm. vs full", "4": "(4) linear and kernel baselines", "5": "(5) shuttle, diag vs full (m=20)"}


def plot_panels(res: FNResults, figures, official: bool | None = False, band: str = "se"):
    """One panel per (figure, env): R̄(t), mean ± s.e. over runs (``official``: None shows both modes).

    Two panels a row, each with its legend under it (never over the curves). A curve and its
    ``[official]`` twin (the official code's training) share a colour, the twin dashed; the curves of one
    method (e.g. FN-UCB at several N) are shades of one hue, and no two methods share a colour
    (:func:`bandits.plotting.line_styles`, per panel)."""
    from ..plotting import BAND_TEXT, band_plot, line_styles, setup_style, suptitle, tight

    plt = setup_style()
    c = res.curves
    keys = [(f, e) for f in figures for e in c[c.figure == f].env.unique()]
    if not keys:
        return None
    sel = c[c.figure.isin(list(figures))]
    if official is not None:
        sel = sel[sel.official == official]
    rr_all = res.runs[res.runs.figure.isin(list(figures))]
    if official is not None:
        rr_all = rr_all[rr_all.official == official]
    labels = {k: list(dict.fromkeys(list(sel[(sel.figure == k[0]) & (sel.env == k[1])].label)
                                    + list(rr_all[(rr_all.figure == k[0]) & (rr_all.env == k[1])].label)))
              for k in keys}
    # a legend's columns: two where its entries are short (the diverged-runs notes lengthen them)
    leg_cols = {k: 2 if max((len(x) for x in v), default=0) <= 26 else 1 for k, v in labels.items()}
    leg_rows = max(int(np.ceil(len(v) / leg_cols[k])) for k, v in labels.items())
    ncol = min(2, len(keys))
    nrow = int(np.ceil(len(keys) / ncol))
    leg_h = 0.15 * leg_rows + 0.45  # inches under each panel for its legend
    fig, axes = plt.subplots(nrow, ncol, figsize=(5.0 * ncol, (3.0 + leg_h) * nrow), squeeze=False)
    for ax, (f, e) in zip(axes.ravel(), keys):
        s = c[(c.figure == f) & (c.env == e)]
        if official is not None:
            s = s[s.official == official]
        styles = line_styles(labels[(f, e)])
        for lab in dict.fromkeys(s.label):
            piv = s[s.label == lab].pivot(index="rep", columns="t", values="regret")
            r = res.runs[(res.runs.figure == f) & (res.runs.env == e) & (res.runs.label == lab)]
            n_fail = int(failed_mask(r).sum())
            shown = lab + (f" ({n_fail} of {len(r)} runs diverged)" if n_fail else "")
            col, ls = styles[lab]
            band_plot(ax, piv.columns.values, piv.values, shown, col, band=band, bounds=(0, None), linestyle=ls)
        rr = res.runs[(res.runs.figure == f) & (res.runs.env == e)]
        if official is not None:
            rr = rr[rr.official == official]
        for lab, g in rr.groupby("label", sort=False):
            if lab not in set(s.label):  # every run of this curve diverged: say so in the legend
                ax.plot([], [], color=styles[lab][0], ls=":", label=f"{lab} (all {len(g)} runs diverged)")
        ax.set_title(PANELS.get(f, f) + ("" if f not in ("3", "4") else f": {e}"), fontsize=9)
        ax.set_xlabel("Iterations")
        ax.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=leg_cols[(f, e)], borderaxespad=0.0,
                  columnspacing=1.0, handlelength=2.2)
    for ax in axes[:, 0]:
        ax.set_ylabel("Cumulative regret\n(avg. over agents)")
    for ax in axes.ravel()[len(keys):]:
        ax.set_visible(False)
    suptitle(fig, f"FN-UCB reproduced: T={res.params['T']}, {res.params['n_runs']} runs, {BAND_TEXT[band]}"
                  + ("; dashed: the official code's training" if official is None and sel.official.any() else ""))
    tight(fig)
    return fig


def plot_fig6(res: FNResults):
    """Figure 6: R̄(T) vs N (mean ± s.e.) for cosine and square, App. E's text training (and the official
    code's, where run)."""
    from ..plotting import setup_style

    plt = setup_style()
    fig, axes = plt.subplots(1, 2, figsize=(7, 2.8))
    for ax, (env, f) in zip(axes, (("cosine", "1a"), ("square", "1b"))):
        r = res.runs[(res.runs.figure == f) & res.runs.label.str.startswith("FN-UCB")]
        for off, g in r.groupby("official"):
            s = g.groupby("N").R_T.agg(["mean", "std", "count"])
            se = (s["std"] / np.sqrt(s["count"])).fillna(0)
            ax.errorbar(s.index, s["mean"], yerr=se, marker="o", capsize=2,
                        label="official code's training" if off else "App. E's text training")
        ax.set_xscale("log")
        ax.set_xlabel("N")
        ax.set_title(f"(6) {env}")
        ax.legend(fontsize=7)
    axes[0].set_ylabel(f"R̄({res.params['T']})")
    fig.tight_layout()
    return fig
