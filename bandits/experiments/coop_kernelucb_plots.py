"""Coop-KernelUCB Figure 1: the figure, drawn from the runs of :mod:`bandits.experiments.coop_kernelucb`.

Left out of the run cache's code fingerprint (:func:`bandits.runner.in_runs`): a figure changes without
recomputing a run (docs/adding_a_paper.md §4).
"""
from __future__ import annotations

from .coop_kernelucb import COOPERATIVE, Fig1Results, PAPER_METHODS, PAPER_RUNS, row_methods

__all__ = ["panel_title", "plot_fig1"]


def panel_title(res: Fig1Results, row: str, graph: str) -> str:
    s = res.panels[(row, graph)]
    return f"{s['title']}\nγ = {s['gamma']}, |cover| = {s['cover']}, centres = {s['n_c']}"


def plot_fig1(res: Fig1Results, band: str = "se"):
    """2 × 4 panels: per-agent cumulative regret vs t, mean ± 1 s.e. over trials; the paper's six
    methods solid, the ablations (oracle ``K_z``, the σ_z variant) dashed."""
    import matplotlib.pyplot as plt

    from ..plotting import BAND_TEXT, band_plot, color_for, legend_right, setup_style, suptitle, tight

    setup_style()
    rows, graphs = res.params["rows"], res.params["graphs"]
    fig, axes = plt.subplots(len(rows), len(graphs), figsize=(4.0 * len(graphs) + 2.2, 3.6 * len(rows)), squeeze=False)
    cur = res.curves
    for i, row in enumerate(rows):
        for j, graph in enumerate(graphs):
            ax = axes[i, j]
            for k, m in enumerate(row_methods(res.params, row)):
                c = cur[(cur.row == row) & (cur.graph == graph) & (cur.method == m)]
                if c.empty:
                    continue
                mat = c.pivot(index="rep", columns="t", values="regret")
                base = next((b for b in COOPERATIVE if m.startswith(b + " (rank ≤")), None)
                names = list(row_methods(res.params, row))
                col = "black" if m.startswith("Eager-KernelUCB (σ_z") else \
                    color_for(base, names.index(base)) if base else color_for(m, k)
                band_plot(ax, mat.columns.to_numpy(), mat.to_numpy(), m, color=col, band=band,
                          linestyle="-" if m in PAPER_METHODS[row] else "--")
            ax.set_title(panel_title(res, row, graph), fontsize=9)
            ax.set_xlabel("round t")
            if j == 0:
                ax.set_ylabel(f"{'linear' if row == 'linear' else 'RBF'} K_x: per-agent regret")
        legend_right(axes[i, -1], fontsize=7)  # the row's methods, once, beside it (inside, it covers curves)
    dashed = any(m not in PAPER_METHODS[row] for row in rows for m in row_methods(res.params, row))
    suptitle(fig, f"Coop-KernelUCB Figure 1: V = {res.params['V']}, {res.params['n_runs']} of the paper's "
                  f"{PAPER_RUNS} trials per panel{' (dashed: ablations, not in the paper)' if dashed else ''}, "
                  f"{BAND_TEXT.get(band, band)}")
    tight(fig)
    return fig
