"""The toy paper's experiment: the four functions every experiment module has (docs/adding_a_paper.md §4).

Runs go through the one run recipe (:func:`bandits.runner.run_regret_cell`) with the policy class as a
hook, so the toy needs no entry in the package's registry to run in a sweep's workers.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from bandits.claims import compare_paired
from bandits.experiments.claims import Claim
from bandits.experiments.common import check_int, mode_params
from bandits.runner import run_regret_cell, sweep

from . import PAPER_TEXT
from .algorithm import ToyFedGreedy

_FULL = dict(N=8, T=400, M=40, n_runs=10, epsilon=0.1, env_seed=0)
_QUICK = dict(_FULL, T=120, n_runs=6)
PERIODS = {"shared every step": 1, "never shared": 0}


def toy_params(mode: str = "quick", **overrides) -> dict:
    """Quick (seconds) or full parameters; an unknown override is an error naming it."""
    p = mode_params(mode, _FULL, _QUICK, overrides, "toy")
    for k in ("N", "T", "M", "n_runs"):
        check_int(k, p[k], 1)
    return p


def toy_cell(config: dict, seed: int, rep: int) -> dict:
    """One run: the recipe with the toy's policy class."""
    return run_regret_cell(config, seed, rep, policy_class=ToyFedGreedy)


def run_toy(p: dict, seed: int = 0, n_jobs: int = 1, backend: str = "serial", cache_dir=None) -> pd.DataFrame:
    """Every (protocol, run): one row with the final regret and the total scalars."""
    tasks, labels = [], []
    for label, period in PERIODS.items():
        cfg = {"loop": "toy", "env": {"name": "h1", "M": p["M"]}, "env_seed": p["env_seed"],
               "algorithm": ToyFedGreedy.name, "N": p["N"], "T": p["T"],
               "params": {"epsilon": p["epsilon"], "period": period}}
        for rep in range(p["n_runs"]):
            tasks.append((cfg, rep))
            labels.append({"protocol": label, "period": period, "rep": rep})
    results, _ = sweep(tasks, seed, n_jobs=n_jobs, backend=backend, cache_dir=cache_dir, progress=False,
                       desc="toy", fn=toy_cell)
    return pd.DataFrame([{**lab, "R_T": float(np.sum(r["arrays"]["regret"])),
                          "C": float(np.sum(r["arrays"]["comm_up"]) + np.sum(r["arrays"]["comm_down"]))}
                         for lab, r in zip(labels, results)])


def toy_claims(runs: pd.DataFrame, p: dict, method=None) -> list[Claim]:
    """The toy paper's two statements: one claim of the paper, one check of the implementation."""
    shared = runs[runs.period == 1].sort_values("rep")
    alone = runs[runs.period == 0].sort_values("rep")
    regret = compare_paired(shared.R_T.to_numpy(), alone.R_T.to_numpy(), "<", 0.0, label="R(T) shared − alone",
                            method=method)
    expected = 4.0 * p["M"] * p["N"] * p["T"]  # 2K up and 2K down per agent and step
    cost = float(shared.C.iloc[0])
    return [
        Claim.from_result("toy-sharing-pays", "Agents that pool their arm statistics every step reach a lower "
                          "regret than agents that never communicate", "paired R(T) shared − never shared < 0",
                          regret, kind="paper", quote="verbatim", source="the toy paper",
                          cause="paper", cause_note="the toy paper's statement"),
        Claim("toy-ledger", "a communication cost of two scalars per arm per agent and step",
              "ledger total = 4 K N T (2K up, 2K down per agent and step)", f"{cost:g} vs {expected:g}",
              verdict="PASS" if cost == expected else "FAIL", kind="implementation", quote="verbatim",
              source="the toy paper"),
    ]


def plot_toy(runs: pd.DataFrame):
    """Final regret per protocol, mean with one standard error."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    g = runs.groupby("protocol").R_T
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.bar(list(g.mean().index), g.mean().to_numpy(), yerr=(g.std() / np.sqrt(g.count())).to_numpy())
    ax.set_ylabel("R(T)")
    return fig
