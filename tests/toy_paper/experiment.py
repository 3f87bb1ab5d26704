"""The toy paper's experiment: its parameters and runs (docs/adding_a_paper.md §4). Its claims are in
:mod:`toy_paper.experiment_claims` and its figure in :mod:`toy_paper.experiment_plots`, as an experiment of the
package keeps them in ``<name>_claims.py`` and ``<name>_plots.py``: modules the run cache's code fingerprint
leaves out, which this module never imports.

Runs go through the one run recipe (:func:`bandits.runner.run_regret_cell`) with the policy class as a
hook, so the toy needs no entry in the package's registry to run in a sweep's workers.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from bandits.experiments.common import mode_params
from bandits.validation import check, integer
from bandits.runner import run_regret_cell, sweep

from .algorithm import ToyFedGreedy

_FULL = dict(N=8, T=400, M=40, n_runs=10, epsilon=0.1, env_seed=0)
_QUICK = dict(_FULL, T=120, n_runs=6)
PERIODS = {"shared every step": 1, "never shared": 0}


def toy_params(mode: str = "quick", **overrides) -> dict:
    """Quick (seconds) or full parameters; an unknown override is an error naming it."""
    p = mode_params(mode, _FULL, _QUICK, overrides, "toy")
    for k in ("N", "T", "M", "n_runs"):
        check(k, p[k], integer(ge=1))
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
