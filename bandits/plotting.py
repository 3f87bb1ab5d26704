"""One plotting style for every paper (layer 10): mean curves with honest bands, per-run points, saving.

Figures are drawn from the tidy results tables, never from in-memory state, so a figure can be
redrawn from ``results.csv`` alone.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from .validation import check, one_of

__all__ = ["setup_style", "PALETTE", "color_for", "BANDS", "BAND_TEXT", "mean_band", "band_plot", "final_points",
           "save_figure"]

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


BANDS = ("se", "bootstrap", "sd", "none")


def mean_band(runs: np.ndarray, band: str = "se", bounds: tuple | None = None, level: float = 0.95,
              n_boot: int = 2000, seed: int = 11) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The mean curve of ``runs`` and its band, clipped to the quantity's range.

    Args:
        runs: shape ``(n_runs, n_points)``, one curve per run.
        band: ``"se"`` (default): mean ± one standard error :math:`s/\sqrt{n}`; ``"bootstrap"``:
            the percentile bootstrap interval of the mean at ``level`` (runs resampled with a
            Generator seeded by ``seed``, so the figure is reproducible); ``"sd"``: mean ± one
            standard deviation (the spread of single runs, not the uncertainty of the mean);
            ``"none"``.
        bounds: ``(lower, upper)`` of the quantity (``None`` = unbounded), e.g. ``(0, None)``
            for a cumulative regret or a communication count: the band never leaves it.

    Returns:
        ``(mean, lower, upper)``, each shape ``(n_points,)`` (lower = upper = mean with one run
        or ``band="none"``).
    """
    check("band", band, one_of(*BANDS))
    runs = np.atleast_2d(np.asarray(runs, dtype=float))
    n = runs.shape[0]
    mean = runs.mean(axis=0)
    lo, hi = mean.copy(), mean.copy()
    if n > 1 and band in ("se", "sd"):
        h = runs.std(axis=0, ddof=1) / (np.sqrt(n) if band == "se" else 1.0)
        lo, hi = mean - h, mean + h
    elif n > 1 and band == "bootstrap":
        rng = np.random.default_rng(seed)
        idx = rng.integers(0, n, size=(n_boot, n))
        boots = runs[idx].mean(axis=1)  # (n_boot, n_points)
        lo, hi = np.quantile(boots, [(1 - level) / 2, (1 + level) / 2], axis=0)
    if bounds is not None:
        b0, b1 = bounds
        lo, hi = np.clip(lo, b0, b1), np.clip(hi, b0, b1)
    return mean, lo, hi


def final_points(ax, x_end, values, color=None, offset: float = 0.015, spread: float = 0.01, **kw):
    """The per-run final values as small points just right of ``x_end`` (a heavy tail, e.g. one
    stuck run, shows as an outlying point). Points are spread horizontally by their rank (no
    randomness). ``offset`` and ``spread`` are fractions of the x-axis span."""
    v = np.asarray(values, dtype=float).ravel()
    if v.size == 0:
        return None
    x0, x1 = ax.get_xlim()
    span = x1 - x0 if x1 > x0 else max(abs(float(x_end)), 1.0)
    if ax.get_xscale() == "log":
        xs = float(x_end) * np.exp(np.log(10) * (offset + spread * np.linspace(0, 1, v.size)))
    else:
        xs = float(x_end) + span * (offset + spread * np.linspace(0, 1, v.size))
    order = np.argsort(v)
    return ax.scatter(xs[np.argsort(order)], v, s=kw.pop("s", 7), color=color, alpha=kw.pop("alpha", 0.7),
                      lw=0, zorder=3, clip_on=False, **kw)


def band_plot(ax, x, runs: np.ndarray, label: str, color: str | None = None, band: str = "se",
              linestyle: str = "-", bounds: tuple | None = None, points: bool = False, level: float = 0.95,
              seed: int = 11):
    """Plot the mean of ``runs`` (n_runs × len(x)) with a band (:func:`mean_band`: standard error
    by default, or a bootstrap interval of the mean, or ±1 s.d.), clipped to ``bounds``; with
    ``points=True`` the per-run final values are drawn beside the curve's end (:func:`final_points`)."""
    runs = np.atleast_2d(np.asarray(runs, dtype=float))
    mean, lo, hi = mean_band(runs, band, bounds, level=level, seed=seed)
    line, = ax.plot(x, mean, label=label, color=color, linestyle=linestyle, lw=1.6)
    if band != "none" and runs.shape[0] > 1:
        ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.18, lw=0)
    if points and runs.shape[0] > 1:
        final_points(ax, np.asarray(x)[-1], runs[:, -1], color=line.get_color())
    return line


BAND_TEXT = {"se": "mean ± 1 s.e.", "bootstrap": "mean, 95% bootstrap interval", "sd": "mean ± 1 s.d.",
             "none": "mean"}


def save_figure(fig, out: str | Path, name: str) -> list[Path]:
    """Write ``<out>/<name>.png`` and ``.pdf``; returns the paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{name}.png", out / f"{name}.pdf"]
    for p in paths:
        fig.savefig(p, bbox_inches="tight", metadata={"CreationDate": None} if p.suffix == ".pdf" else None)
    return paths
