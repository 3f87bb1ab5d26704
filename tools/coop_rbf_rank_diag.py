"""Diagnostic for the Coop-KernelUCB RBF row (not a paper figure): does full mode's rank cap on K̂_z
(``r_limit_rbf = 4``) explain why the cooperative methods lose to independent KernelUCB there?

ER(32, 0.7), the quick-mode environment at T = 300, 4 trials, K̂_z every 10 rounds; KernelUCB,
Coop-KernelUCB, Eager-KernelUCB and Eager with the oracle K_z under three truncations of K̂_z: the
cap of 4 (full mode's), a cap of 16, and the cap of 4 with ``truncation="own_residual"`` (each agent's
own prior variance kept exact). Same seeds and environments throughout (common random numbers).

    PYTHONPATH=. python tools/coop_rbf_rank_diag.py [OUT_CSV]      # ≈ 3 min on one core

Result of 2026-11-27: ``figures/coop_kernelucb/rank_cap_diag.csv`` (see that folder's NOTE.md).
"""
import sys
import time

import numpy as np
import pandas as pd

from bandits.experiments import coop_kernelucb as ex
from bandits.runner import sweep

#: variant -> (rank cap of K̂_z, truncation); KernelUCB does not read K̂_z, so it runs in the first only
VARIANTS = {"r_limit=4": (4, "raise"), "r_limit=16": (16, "raise"), "r_limit=4 own_residual": (4, "own_residual")}
METHODS = ("KernelUCB", "Eager-KernelUCB", "Eager-KernelUCB (oracle K_z)", "Coop-KernelUCB")

rows = []
for k, (vname, (r_limit, truncation)) in enumerate(VARIANTS.items()):
    p = ex.fig1_params("quick", rows=["rbf"], graphs=["er"], T_rbf=300, n_runs=4, kz_every=10, r_limit_rbf=r_limit)
    tasks, labels = ex.fig1_tasks(p)
    sel = [i for i, lab in enumerate(labels) if lab["method"] in METHODS and (k == 0 or lab["method"] != "KernelUCB")]
    extra = {} if truncation == "raise" else {"truncation": truncation}  # "raise": the algorithms' default
    tk = [(dict(tasks[i][0], params=dict(tasks[i][0]["params"], **extra)), tasks[i][1]) for i in sel]
    t0 = time.time()
    res, _ = sweep(tk, 0, n_jobs=1, backend="serial", cache_dir=None, progress=False, desc=vname)
    for i, r in zip(sel, res):
        rows.append({"variant": vname, **labels[i], "R_T": float(np.sum(r["arrays"]["regret"]) / p["V"]),
                     "wall": r["meta"].get("wall_time")})
    print(vname, "done in", round(time.time() - t0), "s", flush=True)
d = pd.DataFrame(rows)
d.to_csv(sys.argv[1] if len(sys.argv) > 1 else "rank_cap_diag.csv", index=False)
print(d.groupby(["variant", "method"]).R_T.agg(["mean", "sem", "count"]).round(2))
