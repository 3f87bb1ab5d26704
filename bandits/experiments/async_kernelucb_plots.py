"""Async-KernelUCB Figure 2: the figures (regret and communication panels, the trade-off scatter, the γ/q
sensitivity panel) from :func:`bandits.experiments.async_kernelucb.run_fig2`'s results.

Left out of the run cache's code fingerprint (:func:`bandits.runner.in_runs`: the name ends in
``_plots.py``); the run module never imports it, the notebook does.
"""
from __future__ import annotations

import numpy as np

from .async_kernelucb import (ENV_TITLES, LINEAR_METHODS, NEAR_RANDOM, NYSTROM_METHODS, RANDOM, Fig2Results,
                              reduced_runs, runs_text)

__all__ = ["plot_fig2", "plot_tradeoff", "plot_gamma_sensitivity"]

_COLORS = {"Async-KernelUCB": "#d62728", "Approx-DisKernelUCB": "#2ca02c", "OneKernelUCB": "#000000",
           "NKernelUCB": "#7f7f7f", "FedGLB-UCB": "#9467bd", "DisLinUCB": "#1f77b4", "FedLinUCB": "#17becf"}


def plot_fig2(res: Fig2Results, band: str = "se"):
    """Regret (top) and communication (bottom, log) vs t: the mean over runs with a standard-error
    band (``band``: see :func:`bandits.plotting.mean_band`) that never leaves the quantity's range
    (R ≥ 0; C ≥ 1, the log axis' floor), and every run's final value as a point beside the curve's
    end, so a stuck run shows as an outlier instead of a band below zero. Random play's expected
    regret (:func:`random_reference`, dashed) is on every regret panel; a panel where every method's
    mean R(T) is at least :data:`NEAR_RANDOM` (half) of random play's says "near random play"."""
    from ..plotting import BAND_TEXT, band_plot, legend_below, setup_style, suptitle

    plt = setup_style()
    envs = res.params["envs"]
    fig, axes = plt.subplots(2, len(envs), figsize=(max(3.1 * len(envs), 4.4), 6.2), squeeze=False)
    for j, env in enumerate(envs):
        for m in res.params["methods"]:
            c = res.curves[(res.curves.env == env) & (res.curves.method == m)]
            if not len(c):
                continue
            pr = c.pivot(index="rep", columns="t", values="regret")
            pc = c.pivot(index="rep", columns="t", values="comm")
            band_plot(axes[0, j], pr.columns.values, pr.values, m, _COLORS.get(m), band=band, bounds=(0, None),
                      points=True)
            band_plot(axes[1, j], pc.columns.values, np.maximum(pc.values, 1.0), m, _COLORS.get(m), band=band,
                      bounds=(1.0, None), points=True)
        rnd = None
        if res.random is not None and len(res.random[res.random.env == env]):
            c = res.random[res.random.env == env]
            pr = c.pivot(index="rep", columns="t", values="regret")
            axes[0, j].plot(pr.columns.values, pr.values.mean(axis=0), color="#bbbbbb", ls="--", lw=1.2, label=RANDOM)
            rnd = float(pr.values[:, -1].mean())
            fin = res.runs[res.runs.env == env].groupby("method").R_T.mean()
            if len(fin):
                share = float(fin.min()) / rnd if rnd > 0 else np.nan
                near = bool(np.isfinite(share) and share >= NEAR_RANDOM)
                txt = (f"near random play: best R(T) = {share:.0%} of random's" if near else
                       f"best R(T) = {share:.0%} of random's")
                axes[0, j].text(0.02, 0.97, txt, transform=axes[0, j].transAxes, va="top", fontsize=6.5,
                                color="#aa0000" if near else "#555555")
        red = {m: n for m, n in reduced_runs(res.params, env).items() if n != res.params["n_runs"]}
        sub = "".join(f"\n{m}: {runs_text(n)}" for m, n in red.items())
        axes[0, j].set_title(ENV_TITLES[env] + sub, fontsize=9 if not sub else 7.5)
        axes[1, j].set_yscale("log")
        axes[1, j].set_xlabel("t")
    axes[0, 0].set_ylabel("cumulative regret")
    axes[1, 0].set_ylabel("communication (scalars, total)\nN-KernelUCB = 0 at the floor")
    p = res.params
    suptitle(fig, f"Async-KernelUCB Figure 2 reproduced: T={p['T']}, N={p['N']}, {runs_text(p['n_runs'])}, "
                  f"{BAND_TEXT[band]} (points: single runs at T)")
    # one legend under the panels: inside a panel it covers curves and the panel's note on random play
    legend_below(fig, axes, ncol=4 if len(envs) > 2 else 2)
    return fig


def plot_tradeoff(res: Fig2Results):
    """Final R(T) against C(T) (log; C = 0 drawn at 1), the mean over runs per method, one panel per
    environment, three panels a row, one legend under them."""
    from ..plotting import legend_below, setup_style

    plt = setup_style()
    envs = res.params["envs"]
    ncol = min(3, len(envs))
    nrow = int(np.ceil(len(envs) / ncol))
    fig, axes = plt.subplots(nrow, ncol, figsize=(max(3.3 * ncol, 4.4), 2.9 * nrow + 0.4), squeeze=False)
    s = res.runs.groupby(["env", "method"])[["R_T", "C_T"]].mean().reset_index()
    order = [m for m in res.params.get("methods", []) if m in set(s.method)] + \
        [m for m in dict.fromkeys(s.method) if m not in res.params.get("methods", [])]
    for k, (ax, env) in enumerate(zip(axes.ravel(), envs)):
        se = s[s.env == env].set_index("method")
        for m in order:
            if m in se.index:
                ax.scatter(max(se.loc[m, "C_T"], 1.0), se.loc[m, "R_T"], color=_COLORS.get(m), label=m, s=25)
        ax.set_xscale("log")
        if k // ncol == nrow - 1 or k + ncol >= len(envs):
            ax.set_xlabel("C(T), scalars (0 drawn at 1)")
        if k % ncol == 0:
            ax.set_ylabel("R(T)")
        ax.set_title(ENV_TITLES[env], fontsize=9)
    for ax in axes.ravel()[len(envs):]:
        ax.set_visible(False)
    legend_below(fig, axes, ncol=4 if len(order) > 3 else len(order))
    return fig


def plot_gamma_sensitivity(table, res: Fig2Results | None = None):
    """R(T) against C(T) (log) per environment of ``table`` (:func:`run_gamma_sensitivity`): one
    marker per (method, γ) at q = 1 joined by a line in γ order, the q variations as open markers,
    stand-ins from the tuning runs hatched grey; OneKernelUCB, the linear methods and random play
    from Figure 2 (``res``) as references."""
    from ..plotting import place_labels, setup_style

    plt = setup_style()
    if table is None or not len(table) or "env" not in table:  # no environment of gsens_envs among envs
        fig, ax = plt.subplots(figsize=(4.4, 1.6))
        ax.axis("off")
        ax.text(0.5, 0.5, "γ/q panel: none of its environments\n(gsens_envs) is in this run's envs",
                ha="center", va="center", fontsize=9)
        return fig
    envs = list(dict.fromkeys(table.env))
    fig, axes = plt.subplots(1, len(envs), figsize=(4.4 * len(envs), 3.6), squeeze=False)
    marks = {0.1: "v", 1.0: "o", 4.0: "^"}
    todo = []  # the dictionary-size labels, placed apart once the layout is final
    # the other q: open markers, one shape per q (a legend entry per q that the reader can tell apart)
    qmarks = {q: mk for q, mk in zip(sorted({float(q) for q in table.q if not np.isclose(q, 1.0)}),
                                     ["D", "P", "X", "h", "*", "p"] * 4)}
    for ax, env in zip(axes[0], envs):
        t = table[table.env == env]
        for m in NYSTROM_METHODS:
            tm = t[(t.method == m) & np.isclose(t.q, 1.0)].sort_values("gamma")
            full = tm[tm.note == ""]
            ax.plot(np.maximum(full.C_T, 1.0), full.R_T, color=_COLORS[m], lw=0.8, alpha=0.6)
            for r in tm.itertuples():
                stand_in = bool(r.note)
                ax.scatter(max(r.C_T, 1.0), r.R_T, marker=marks.get(r.gamma, "s"), s=36,
                           facecolor="none" if stand_in else _COLORS[m], edgecolor=_COLORS[m],
                           hatch="///" if stand_in else None,
                           label=f"{m} γ={r.gamma:g}" + (f" (T={r.T}, tuning)" if stand_in else ""))
                todo.append((ax, max(r.C_T, 1.0), r.R_T, f"|S|≈{r.dict_size:.0f}", _COLORS[m]))
            for r in t[(t.method == m) & ~np.isclose(t.q, 1.0)].itertuples():
                ax.scatter(max(r.C_T, 1.0), r.R_T, marker=qmarks[float(r.q)], s=24, facecolor="white",
                           edgecolor=_COLORS[m],
                           label=f"{m} q={r.q:g} (γ={r.gamma:g})")
        if res is not None:
            fin = res.runs[res.runs.env == env].groupby("method")[["R_T", "C_T"]].mean()
            for m in ("OneKernelUCB",) + LINEAR_METHODS:
                if m in fin.index:
                    ax.scatter(max(fin.loc[m, "C_T"], 1.0), fin.loc[m, "R_T"], marker="x", color=_COLORS[m], s=30,
                               label=f"{m} (Fig. 2)")
            if res.random is not None and len(res.random[res.random.env == env]):
                rr = res.random[res.random.env == env].groupby("rep").regret.last().mean()
                ax.axhline(rr, color="#bbbbbb", ls="--", lw=1, label=RANDOM)
        ax.set_xscale("log")
        ax.set_xlabel("C(T), scalars")
        ax.set_title(f"{ENV_TITLES[env]}: regret vs communication over γ and q", fontsize=8.5)
    axes[0, 0].set_ylabel("R(T)")
    axes[0, -1].legend(fontsize=5.5, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    for ax in axes[0]:
        mine = [t for t in todo if t[0] is ax]
        place_labels(ax, [t[1] for t in mine], [t[2] for t in mine], [t[3] for t in mine],
                     colors=[t[4] for t in mine], fontsize=5.5)
    return fig
