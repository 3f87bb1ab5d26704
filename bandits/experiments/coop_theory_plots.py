"""Coop-KernelUCB theory checks: the figure, drawn from the runs of :mod:`bandits.experiments.coop_theory`.

Left out of the run cache's code fingerprint (:func:`bandits.runner.in_runs`): a figure changes without
recomputing a run (docs/adding_a_paper.md §4).
"""
from __future__ import annotations

import math

import numpy as np

from .coop_theory import TheoryResults, _per_x

__all__ = ["plot_theory"]


def plot_theory(res: TheoryResults):
    """2 × 4 panels: C1 (R̂ vs V), C2 (R̂ vs √(|𝐂|/V)), C4 (R̂ vs Υ_z), C5 (R̂(t)), C7, C8, C9, C3."""
    import matplotlib.pyplot as plt

    from ..plotting import setup_style

    setup_style()
    runs, p = res.runs, res.params
    fig, ax = plt.subplots(2, 4, figsize=(17, 7.5))
    ax = ax.ravel()

    def errbar(a, check, method, xf=lambda x: x, **kw):
        xs, Y = _per_x(runs, check, method)
        a.errorbar(xf(xs), Y.mean(0), yerr=Y.std(0, ddof=1) / np.sqrt(Y.shape[0]) if Y.shape[0] > 1 else None,
                   marker="o", capsize=2, label=method, **kw)

    for m in ("Eager-KernelUCB", "Dist-KernelUCB", "LinUCB"):
        errbar(ax[0], "C1", m)
    V = np.array(p["V_grid"], float)
    _, Yc = _per_x(runs, "C1", "Eager-KernelUCB")
    ax[0].plot(V, Yc.mean(0)[-1] * np.sqrt(V[-1] / V), "k:", label="∝ 1/√V")
    ax[0].set(xscale="log", yscale="log", xlabel="V", ylabel="R̂(T)", title="C1: complete graph, one cluster")
    cov = {g: res.networks[("C2", g)]["cover"] for g in p["gammas"]}
    for m in ("Coop-KernelUCB", "Eager-KernelUCB"):
        errbar(ax[1], "C2", m, xf=lambda xs: np.sqrt(np.array([cov[int(g)] for g in xs]) / p["path_V"]))
    ax[1].set(xlabel="√(|C|/V), C the clique cover", ylabel="R̂(T)", title=f"C2: path V = {p['path_V']}, γ grid")
    errbar(ax[2], "C4", "Coop-KernelUCB")
    _, Yl = _per_x(runs, "C4", "LinUCB")
    ax[2].axhline(Yl.mean(), color="gray", ls="--", label="independent LinUCB")
    ax[2].set(xscale="log", yscale="log", xlabel="Υ_z = n_c", ylabel="R̂(T)", title="C4: heterogeneity")
    for m, g in res.curves.groupby("method"):
        mat = g.pivot(index="rep", columns="t", values="regret")
        ax[3].plot(mat.columns, mat.mean(axis=0), label=m)
    ax[3].set(xscale="log", yscale="log", xlabel="t", ylabel="R̂(t)", title=f"C5: ER({p['c5_V']}, 0.7), linear")
    for N, g in res.c7.groupby("N"):
        ax[4].plot(g.n_c, g.logdet, "o-", label=f"log det, N = {N}")
        ax[4].plot(g.n_c, g.bound, "--", label=f"Lemma 4 bound, N = {N}")
    ax[4].set(xscale="log", yscale="log", xlabel="Υ_z = n_c", title="C7: Lemma 4")
    m8 = res.c8.groupby("t").err.mean()
    ax[5].plot(m8.index, m8.values, "o-", label="max |log K̂_z − log K_z|")
    ax[5].plot(m8.index, m8.values[0] * np.sqrt(m8.index[0] / m8.index.to_numpy(float)), "k:", label="∝ 1/√t")
    ax[5].set(xscale="log", yscale="log", xlabel="t (samples per agent)", title="C8: MMD consistency")
    xs9, ys9 = [], []
    for V_ in p["V_grid"]:
        if V_ >= 2:
            r = runs[(runs.check == "C1") & (runs.x == V_) & (runs.method == "Eager-KernelUCB")]
            xs9.append(math.sqrt(2 / V_))
            ys9.append(r.R_T.mean())
    for g in p["gammas"]:
        r = runs[(runs.check == "C2") & (runs.x == g) & (runs.method == "Eager-KernelUCB")]
        xs9.append(math.sqrt((g + math.ceil(p["path_V"] / (g + 1))) / p["path_V"]))
        ys9.append(r.R_T.mean())
    ax[6].scatter(xs9, ys9)
    ax[6].set(xlabel="√((γ + α(G_γ))/V)", ylabel="Eager R̂(T)", title="C9: Eager conjecture")
    c3 = runs[runs.check == "C3"].groupby(["x", "method"]).R_T.mean().unstack()
    c3.plot.bar(ax=ax[7])
    ax[7].set(xlabel="Mycielski k (complement)", ylabel="R̂(T)", title="C3: Dist vs Coop, α = 2 < χ̄ = k")
    for a in ax:
        if a.get_legend_handles_labels()[0]:
            a.legend(fontsize=6)
    fig.suptitle(f"Coop-KernelUCB theory checks ({p['n_runs']} runs, mean ± s.e.)", fontsize=10)
    fig.tight_layout()
    return fig
