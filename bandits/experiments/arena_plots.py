"""The arena's figures: regret against communication in each of the three units.

Left out of the run-cache key (its name ends in ``_plots``); the run module never imports it.
"""
from __future__ import annotations

import math

import numpy as np

from .arena import ALL_METHODS, ENV_TITLES, UNITS, ArenaResults
from ..validation import check, one_of

__all__ = ["zero_floor", "plot_pareto", "MAP_BUDGETS", "map_table", "plot_map"]

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
    from ..plotting import legend_below, setup_style, suptitle

    check("unit", unit, one_of(*tuple(UNITS)))
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
    N, T = (res.params["N_sync"], res.params["T_sync"]) if protocol == "sync" else (res.params["N_async"],
                                                                                    res.params["T_async"])
    name = "synchronous federated (complete graph for Coop-KernelUCB)" if protocol == "sync" else \
        "asynchronous (one client per step)"
    suptitle(fig, f"Arena, {name}: N = {N}, T = {T}, {res.params['n_runs']} runs; cost in {unit}; front dashed, "
                  "circled", fontsize=11)
    legend_below(fig, handles=list(seen.values()), labels=list(seen.keys()), ncol=min(6, len(seen)), fontsize=8)
    return fig


# ------------------------------------------------------------------------------ the map
#: the map's budgets (scalars, both directions, up to t); inf = no budget
MAP_BUDGETS = (0.0, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, math.inf)


def map_table(map_runs, budgets=MAP_BUDGETS):
    """Per (env, N, t, budget B): the point (method, communication value) with the lowest mean R(t) among
    those whose mean C(t) ≤ B (failed runs left out of the means and counted in ``n_failed``)."""
    import pandas as pd

    r = map_runs
    ok = r[r.failed.isna()] if "failed" in r else r
    g = ok.groupby(["env", "N", "t", "method", "value"], sort=False).agg(R=("R_t", "mean"), C=("C_t", "mean"),
                                                                       n=("R_t", "size")).reset_index()
    rows = []
    for (env, N, t), grp in g.groupby(["env", "N", "t"], sort=False):
        for B in budgets:
            cand = grp[grp.C <= B]
            if cand.empty:
                rows.append({"env": env, "N": N, "t": t, "budget": B, "method": None, "value": np.nan,
                             "R": np.nan, "C": np.nan})
                continue
            best = cand.sort_values(["R", "C"]).iloc[0]
            rows.append({"env": env, "N": N, "t": t, "budget": B, "method": best.method, "value": best.value,
                         "R": best.R, "C": best.C})
    return pd.DataFrame(rows)


#: the map's cell labels (short enough for one cell)
_MAP_SHORT = {"Async-KernelUCB": "Async", "Approx-DisKernelUCB": "Approx", "OneKernelUCB": "One",
              "N-KernelUCB": "N-K", "FedLinUCB": "FedLin", "DisLinUCB": "DisLin", "FedGLB-UCB": "FedGLB"}


def plot_map(map_runs, env: str, budgets=MAP_BUDGETS):
    """One figure per environment: for each checkpoint t a panel, x = budget B (scalars), y = N; each cell
    coloured and labelled by the method with the lowest mean R(t) within the budget (:func:`map_table`).
    A cell whose winner the runs do not separate from the runner-up (the best point of another method
    within B; the paired Student interval of their R(t) difference at 95 % contains 0, or fewer than two
    paired runs: :func:`bandits.experiments.arena_sequential.map_certainty`) is hatched; the title counts
    them."""
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Rectangle

    from .arena_sequential import map_certainty

    from ..plotting import setup_style, suptitle, tight

    plt = setup_style()
    tab = map_table(map_runs[map_runs.env == env], budgets)
    cert = map_certainty(map_runs[map_runs.env == env], budgets=budgets)
    unsure = {(int(r.N), int(r.t), float(r.budget)) for r in cert.itertuples() if r.status == "not separated"}
    ts = sorted(tab.t.unique())
    Ns = sorted(tab.N.unique())
    methods = [m for m in ALL_METHODS if m in set(tab.method.dropna())]
    idx = {m: i for i, m in enumerate(methods)}
    cmap = ListedColormap([_COLORS.get(m, "#cccccc") for m in methods] or ["#cccccc"])
    fig, axes = plt.subplots(1, len(ts), figsize=(4.0 * len(ts), 1.3 + 0.75 * len(Ns)), squeeze=False)
    blabels = ["0" if b == 0 else ("no limit" if math.isinf(b) else f"1e{int(round(math.log10(b)))}")
               for b in budgets]
    for ax, t in zip(axes.ravel(), ts):
        grid = np.full((len(Ns), len(budgets)), np.nan)
        for r in tab[tab.t == t].itertuples():
            if r.method is not None:
                grid[Ns.index(r.N), list(budgets).index(r.budget)] = idx[r.method]
                ax.text(list(budgets).index(r.budget), Ns.index(r.N), _MAP_SHORT.get(r.method, r.method),
                        ha="center", va="center", fontsize=6)
                if (int(r.N), int(t), float(r.budget)) in unsure:
                    ax.add_patch(Rectangle((list(budgets).index(r.budget) - 0.5, Ns.index(r.N) - 0.5), 1, 1,
                                           fill=False, hatch="///", lw=0, edgecolor="#555555", alpha=0.5))
        ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=-0.5, vmax=max(len(methods) - 0.5, 0.5),
                  aspect="auto", origin="lower", alpha=0.6)
        ax.set_xticks(range(len(budgets)), blabels, fontsize=7)
        ax.set_yticks(range(len(Ns)), [str(n) for n in Ns])
        ax.set_xlabel("budget B (scalars up to t)")
        ax.set_ylabel("N (clients)")
        ax.set_title(f"t = {t}")
    sub = map_runs[map_runs.env == env]
    n = int(sub.groupby(["N", "method", "value"]).rep.nunique().max()) if len(sub) and "rep" in sub else 0
    suptitle(fig, f"The map, {ENV_TITLES.get(env, env)}, asynchronous: the lowest mean R(t) within each budget"
                  + (f" (mean of {n} run{'s' if n != 1 else ''} per point)" if n else "")
                  + f"; hatched: winner not separated from the runner-up at 95 % ({len(unsure)} of "
                  f"{int((cert.status != 'empty').sum())} cells)", fontsize=11)
    tight(fig)
    return fig
