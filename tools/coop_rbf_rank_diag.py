"""Diagnostic for the Coop-KernelUCB RBF row (not a paper figure): does full mode's rank cap on K̂_z
(``r_limit_rbf = 4``) explain why the cooperative methods lose to independent KernelUCB there?

ER(32, 0.7), the quick-mode environment at T = 300, 4 trials, K̂_z every 10 rounds; KernelUCB,
Coop-KernelUCB, Eager-KernelUCB and Eager with the oracle K_z under three truncations of K̂_z: the
cap of 4 (full mode's), a cap of 16, and the cap of 4 with ``truncation="own_residual"`` (each agent's
own prior variance kept exact). Same seeds and environments throughout (common random numbers).

    PYTHONPATH=. python tools/coop_rbf_rank_diag.py [OUT_CSV]      # ≈ 3 min on one core

Result of 2026-11-27: ``figures/coop_kernelucb/rank_cap_diag.csv`` (see that folder's NOTE.md).
"""
import sys, json, time
import numpy as np, pandas as pd
from bandits.experiments import coop_kernelucb as ex
from bandits.runner import sweep

rows = []
variants = {"r_limit=4": dict(r_limit_rbf=4), "r_limit=16": dict(r_limit_rbf=16),
            "r_limit=4 own_residual": dict(r_limit_rbf=4)}
keep = {"KernelUCB", "Eager-KernelUCB", "Eager-KernelUCB (oracle K_z)", "Coop-KernelUCB"}
for vname, over in variants.items():
    p = ex.fig1_params("quick", rows=["rbf"], graphs=["er"], T_rbf=300, n_runs=4, kz_every=10, **over)
    tasks, labels = ex.fig1_tasks(p)
    sel = [i for i, l in enumerate(labels) if l["method"] in keep and not (vname != "r_limit=4" and l["method"] == "KernelUCB")]
    tk = []
    for i in sel:
        cfg, rep = tasks[i]
        if "own_residual" in vname:
            cfg = dict(cfg, params=dict(cfg["params"], truncation="own_residual"))
        tk.append((cfg, rep))
    t0 = time.time()
    res, _ = sweep(tk, 0, n_jobs=1, backend="serial", cache_dir=None, progress=False, desc=vname)
    for i, r in zip(sel, res):
        rows.append({"variant": vname, **labels[i], "R_T": float(np.sum(r["arrays"]["regret"]) / p["V"]),
                     "wall": r["meta"].get("wall_time")})
    print(vname, "done in", round(time.time() - t0), "s", flush=True)
d = pd.DataFrame(rows)
d.to_csv(sys.argv[1] if len(sys.argv) > 1 else "rank_cap_diag.csv", index=False)
print(d.groupby(["variant", "method"]).R_T.agg(["mean", "sem", "count"]).round(2))
