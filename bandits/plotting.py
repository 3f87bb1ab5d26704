"""One plotting style for every paper (layer 10): mean ± band curves, log axes, saving.

Figures are drawn from the tidy results tables, never from in-memory state, so a figure can be
redrawn from ``results.csv`` alone.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["setup_style", "PALETTE", "color_for", "band_plot", "save_figure"]

PALETTE = {
    "DUETS": "#d62728",
    "DisKernelUCB": "#1f77b4",
    "ApproxDisKernelUCB": "#2ca02c",
    "N-KernelUCB": "#7f7f7f",
}
_EXTRA = ["#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#bcbd22"]


def setup_style():
    import matplotlib.pyplot as plt  # inline in Jupyter; Agg when there is no display

    plt.rcParams.update({
        "figure.dpi": 110, "savefig.dpi": 150, "font.size": 9, "axes.titlesize": 10,
        "axes.grid": True, "grid.alpha": 0.3, "legend.fontsize": 8, "legend.frameon": False,
        "axes.spines.top": False, "axes.spines.right": False,
    })
    return plt


def color_for(label: str, i: int = 0) -> str:
    for k, c in PALETTE.items():
        if label == k:
            return c
    return _EXTRA[i % len(_EXTRA)]


def band_plot(ax, x, runs: np.ndarray, label: str, color: str | None = None, band: str = "sd",
              linestyle: str = "-"):
    """Plot the mean of ``runs`` (n_runs × len(x)) with a ±1 s.d. band (or ``band="none"``)."""
    runs = np.atleast_2d(np.asarray(runs, dtype=float))
    mean = runs.mean(axis=0)
    line, = ax.plot(x, mean, label=label, color=color, linestyle=linestyle, lw=1.6)
    if band == "sd" and runs.shape[0] > 1:
        sd = runs.std(axis=0, ddof=1)
        ax.fill_between(x, mean - sd, mean + sd, color=line.get_color(), alpha=0.18, lw=0)
    return line


def save_figure(fig, out: str | Path, name: str) -> list[Path]:
    """Write ``<out>/<name>.png`` and ``.pdf``; returns the paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{name}.png", out / f"{name}.pdf"]
    for p in paths:
        fig.savefig(p, bbox_inches="tight", metadata={"CreationDate": None} if p.suffix == ".pdf" else None)
    return paths
