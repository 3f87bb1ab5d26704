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
    """One panel per (figure, env): R̄(t), mean ± s.e. over runs (``official``: None shows both modes)."""
    from ..plotting import BAND_TEXT, band_plot, color_for, setup_style

    plt = setup_style()
    c = res.curves
    keys = [(f, e) for f in figures for e in c[c.figure == f].env.unique()]
    if not keys:
        return None
    ncol = min(4, len(keys))
    nrow = int(np.ceil(len(keys) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.6 * ncol, 3.0 * nrow), squeeze=False)
    for ax, (f, e) in zip(axes.ravel(), keys):
        s = c[(c.figure == f) & (c.env == e)]
        if official is not None:
            s = s[s.official == official]
        for i, lab in enumerate(dict.fromkeys(s.label)):
            piv = s[s.label == lab].pivot(index="rep", columns="t", values="regret")
            r = res.runs[(res.runs.figure == f) & (res.runs.env == e) & (res.runs.label == lab)]
            n_fail = int(failed_mask(r).sum())
            shown = lab + (f" ({n_fail} of {len(r)} runs diverged)" if n_fail else "")
            band_plot(ax, piv.columns.values, piv.values, shown, color_for(lab, i), band=band, bounds=(0, None),
                      linestyle="--" if "[official]" in lab else "-")
        rr = res.runs[(res.runs.figure == f) & (res.runs.env == e)]
        if official is not None:
            rr = rr[rr.official == official]
        for lab, g in rr.groupby("label", sort=False):
            if lab not in set(s.label):  # every run of this curve diverged: say so in the legend
                ax.plot([], [], color="0.5", label=f"{lab} (all {len(g)} runs diverged)")
        ax.set_title(PANELS.get(f, f) + ("" if f not in ("3", "4") else f": {e}"), fontsize=9)
        ax.set_xlabel("Iterations")
        ax.legend(fontsize=6)
    for ax in axes[:, 0]:
        ax.set_ylabel("Cumulative regret (avg. over agents)")
    for ax in axes.ravel()[len(keys):]:
        ax.set_visible(False)
    fig.suptitle(f"FN-UCB reproduced: T={res.params['T']}, {res.params['n_runs']} runs, {BAND_TEXT[band]}", fontsize=10)
    fig.tight_layout()
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
