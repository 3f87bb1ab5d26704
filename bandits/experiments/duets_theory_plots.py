"""DUETS theory checks: the figures (E1–E2 scaling, E3–E4, E5's inducing sets, E8's superposition), drawn
from the tables of :mod:`bandits.experiments.duets_theory` (the notebook's ``results.csv``, ``epochs.csv``,
``e3_variance.csv``, ``e4_accuracy.csv``, ``e8_superposition.csv``).

Left out of the run cache's code fingerprint (:func:`bandits.runner.in_runs`: the name ends in
``_plots.py``); the run module never imports it, the notebook does.
"""
from __future__ import annotations

import numpy as np

from .common import loglog_slope

__all__ = ["plot_scaling", "plot_e3_e4", "plot_inducing_sets", "plot_superposition"]


def plot_scaling(runs, params):
    """E1–E2: R(T), C(T) in the paper's unit and Σ_j |S_j| against N·T (log–log), DUETS at β = 1 with
    N fixed and T growing and with T fixed and N growing (mean ± 1 s.d. on R(T); fitted slopes in the
    legend), DUETS at β(δ'), N-KernelUCB's N × one agent and raw-data sharing's N·T·(d+1) as references.
    Each panel's legend under it (inside, it covers the lines)."""
    from ..plotting import setup_style

    plt = setup_style()
    fig, ax = plt.subplots(1, 3, figsize=(12, 4.6))
    b1 = runs[runs.beta_kind == "beta=1"]
    for series, lab in (("T", f"N={params['N_fixed']}, T grows"), ("N", f"T={params['T_fixed']}, N grows")):
        g = b1[b1.series == series].groupby("NT")[["R_T", "C_paper", "sum_S"]].agg(["mean", "std"])
        x = g.index.values
        s = loglog_slope(x, g[("R_T", "mean")])
        ax[0].errorbar(x, g[("R_T", "mean")], g[("R_T", "std")], marker="o",
                       label=f"DUETS β=1, {lab} (slope {s:.2f})")
        s = loglog_slope(x, g[("C_paper", "mean")])
        ax[1].plot(x, g[("C_paper", "mean")], marker="o", label=f"{lab} (slope {s:.2f})")
        ax[2].plot(x, g[("sum_S", "mean")], marker="o", label=lab)
    tb = runs[runs.beta_kind == "beta(delta')"].groupby("NT")["R_T"].mean()
    if len(tb):
        ax[0].plot(tb.index, tb.values, marker="s", ls="--",
                   label=f"DUETS β(δ') (slope {loglog_slope(tb.index, tb.values):.2f})")
    ref = runs[runs.series.str.startswith("N-KernelUCB")]["R_T"].mean()
    Ns = np.array(params["N_grid"])
    ax[0].plot(Ns * params["T_fixed"], Ns * ref, "k:", label="N-KernelUCB = N × one agent\n(slope 1 in N)")
    xs = np.array(sorted(b1.NT.unique()), dtype=float)
    ax[1].plot(xs, xs * (2 + 1), color="gray", ls=":",
               label="raw-data sharing: ≈ N·T·(d+1) per agent\n(DisKernelUCB's asymptote)")
    for a, t in zip(ax, ["R(T)", "C(T), paper's unit", "Σ_j |S_j|"]):
        a.set_xscale("log")
        a.set_yscale("log")
        a.set_xlabel("N·T")
        a.set_title(t)
        a.legend(fontsize=6.5, loc="upper center", bbox_to_anchor=(0.5, -0.2), borderaxespad=0.0)
    fig.tight_layout()
    return fig


def plot_e3_e4(e3, e4):
    """E3: n σ²_max / γ̂_n against n (Lemma 4.3: no upward trend); E4: the share of 0.5-accurate inducing
    sets against p₀ per n (Lemmas A.2–A.3; the last point the theoretical p₀)."""
    from ..plotting import setup_style

    plt = setup_style()
    fig, ax = plt.subplots(1, 2, figsize=(9, 3.2))
    g = e3.groupby("n")[["ratio", "sigma2_max"]].mean()
    ax[0].plot(g.index, g.ratio, marker="o", label="n σ²_max / γ̂_n")
    ax[0].set_xscale("log")
    ax[0].set_xlabel("n")
    ax[0].set_title("E3: no upward trend expected")
    ax[0].legend()
    for n, s in e4.groupby("n"):
        ax[1].plot(s.p0, s.frac_accurate, marker="o", label=f"n={n}")
    ax[1].set_xscale("log")
    ax[1].set_xlabel("p₀")
    ax[1].set_ylabel("share 0.5-accurate")
    ax[1].set_title("E4 (last point: theoretical p₀)")
    ax[1].legend(loc="lower right")
    fig.tight_layout()
    return fig


def plot_inducing_sets(epochs):
    """E5: each epoch's inducing-set size |S_j| against N·T_j, with Lemma 4.5's bound (β = 1 runs)."""
    from ..plotting import setup_style

    plt = setup_style()
    fig, ax = plt.subplots(1, 1, figsize=(5, 3.4))
    e = epochs[epochs.beta_kind == "beta=1"]
    ax.scatter(e.NT_j, e.s_unique, s=10, label="|S_j|")
    ax.scatter(e.NT_j, e.S_bound, s=10, marker="x", label="(3 + log 1/δ') p₀ γ̂_{NT_j}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("N·T_j")
    ax.set_title("E5: inducing-set size per epoch vs Lemma 4.5")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, borderaxespad=0.0)
    fig.tight_layout()
    return fig


def plot_superposition(e8, params):
    """E8(b): the empirical CDFs of R(T), DUETS against one centralised learner drawing N·T_j points."""
    from ..plotting import setup_style

    plt = setup_style()
    fig, ax = plt.subplots(1, 1, figsize=(5, 3.4))
    for name, s in e8.groupby("method"):
        x = np.sort(s.R_T.values)
        ax.step(x, np.arange(1, len(x) + 1) / len(x), where="post", label=f"{name} ({len(x)} runs)")
    ax.set_xlabel("R(T)")
    ax.set_ylabel("empirical CDF")
    ax.set_title(f"E8: N={params['e8_N']}, T={params['e8_T']}")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig
