"""The arena's figures (issues 12 and 28): regret against communication in each of the three units.

Left out of the run-cache key (its name ends in ``_plots``); the run module never imports it.
"""
from __future__ import annotations

import math

import numpy as np

from .arena import ALL_METHODS, ENV_TITLES, UNITS, ArenaResults
from .common import check_choice

__all__ = ["zero_floor", "plot_pareto"]

_XLABEL = {"scalars": "total communication C (scalars, up + down)",
           "messages": "messages (a broadcast once per receiver)",
           "rounds": "rounds (steps at which anything was sent)"}


def zero_floor(C) -> float:
    """Where C = 0 is drawn on the log axis: a decade below the smallest positive C (1 if none)."""
    C = np.asarray(C, dtype=float)
    pos = C[C > 0]
    return float(10 ** (np.floor(np.log10(pos.min())) - 1)) if pos.size else 1.0


_MARKERS = {"DUETS": "*", "DisKernelUCB": "s", "Approx-DisKernelUCB": "D", "Async-KernelUCB": "P",
            "N-KernelUCB": "o", "OneKernelUCB": "^", "FN-UCB": "X", "NeuralUCB": "h", "DisLinUCB": "v",
            "FedLinUCB": "<", "FedGLB-UCB": ">", "Coop-KernelUCB": "p", "Eager-KernelUCB": "d"}
_COLORS = {m: c for m, c in zip(ALL_METHODS, ["#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#7f7f7f", "#ff7f0e",
                                               "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#393b79", "#637939",
                                               "#e7ba52"])}


def plot_pareto(res: ArenaResults, protocol: str, unit: str = "scalars"):
    """Final regret against communication in ``unit`` (log x; 0 drawn at :func:`zero_floor`), one point per
    tested (method, communication value) with ±1 s.e. bars, the non-dominated front of that unit as a step
    line, one panel per env. Each method appears once per panel and value (Eager-KernelUCB, identical to
    Coop-KernelUCB on the complete graph, is not run)."""
    from ..plotting import setup_style

    check_choice("unit", unit, tuple(UNITS))
    col, _, front = UNITS[unit]

    plt = setup_style()
    pts = res.points[res.points.protocol == protocol]
    envs = list(dict.fromkeys(pts.env))
    ncol = min(3, max(1, len(envs)))
    nrow = int(math.ceil(len(envs) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(4.2 * ncol, 3.4 * nrow), squeeze=False)
    seen = {}
    for ax, env in zip(axes.ravel(), envs):
        grp = pts[pts.env == env]
        cost = grp[col].to_numpy(float)
        floor = zero_floor(cost)
        x = np.where(cost > 0, cost, floor)
        for m in dict.fromkeys(grp.method):
            sel = (grp.method == m).to_numpy()
            h = ax.errorbar(x[sel], grp.R_mean[sel], yerr=grp.R_se[sel], fmt=_MARKERS.get(m, "o"), ms=6,
                            color=_COLORS.get(m), lw=0.8, capsize=2, alpha=0.9, label=m)
            seen.setdefault(m, h)
        f = grp[front].to_numpy(bool)
        order = np.argsort(x[f])
        fx, fy = x[f][order], grp.R_mean.to_numpy()[f][order]
        ax.step(np.r_[fx, fx[-1] * 3], np.r_[fy, fy[-1]], where="post", color="k", lw=1.0, ls="--", zorder=1)
        ax.scatter(fx, fy, s=110, facecolors="none", edgecolors="k", lw=1.0, zorder=4)
        ax.set_xscale("log")
        ax.set_title(ENV_TITLES.get(env, env))
        ax.set_xlabel(_XLABEL[unit])
        ax.set_ylabel("final regret R(T)")
        if (cost == 0).any():
            ax.axvline(floor * 1.8, color="0.6", lw=0.6, ls=":")
            ax.annotate("0", (floor, ax.get_ylim()[1]), fontsize=7, ha="center", va="top", color="0.4")
    for ax in axes.ravel()[len(envs):]:
        ax.axis("off")
    fig.legend(list(seen.values()), list(seen.keys()), loc="lower center", ncol=min(6, len(seen)),
               bbox_to_anchor=(0.5, -0.02 - 0.03 * (len(seen) > 6)))
    N, T = (res.params["N_sync"], res.params["T_sync"]) if protocol == "sync" else (res.params["N_async"],
                                                                                    res.params["T_async"])
    name = "synchronous federated (complete graph for Coop-KernelUCB)" if protocol == "sync" else \
        "asynchronous (one client per step)"
    fig.suptitle(f"Arena, {name}: N = {N}, T = {T}, {res.params['n_runs']} runs; cost in {unit}; front dashed, "
                 "circled")
    fig.tight_layout(rect=(0, 0.06, 1, 0.96))
    return fig
