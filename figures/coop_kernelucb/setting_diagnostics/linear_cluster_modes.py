"""Linear row, ER(200, 0.7), T = 300, 3 paired trials: Coop- and Dist-KernelUCB with the agents' clusters\nbeing Dist's stars (cluster_mode="mis_star", the default) or Coop's cliques ("clique_cover"): why the agents' clusters are Dist's stars\n(bandits.experiments.coop_kernelucb). Committed as linear_er_cluster_modes.csv.\nPYTHONPATH=. python figures/coop_kernelucb/setting_diagnostics/linear_cluster_modes.py 200 300 3 OUT.csv"""
import sys, time, warnings
warnings.simplefilter("ignore")
import numpy as np, pandas as pd
from bandits.experiments import coop_kernelucb as ex
from bandits.runner import sweep
V, T, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rows = []
for cm in ("mis_star", "clique_cover"):
    p = ex.fig1_params("full", V=V, rows=["linear"], graphs=["er"], T_linear=T, n_runs=n, cluster_mode=cm)
    tasks, labels = ex.fig1_tasks(p)
    sel = [i for i, l in enumerate(labels) if l["method"] in ("Coop-KernelUCB", "Dist-KernelUCB")]
    t0 = time.time()
    res, _ = sweep([tasks[i] for i in sel], 0, n_jobs=1, backend="serial", cache_dir=None, progress=False)
    for i, r in zip(sel, res):
        rows.append({"cluster_mode": cm, **labels[i], "R_T": float(np.sum(r["arrays"]["regret"]) / V),
                     "wall": r["meta"]["wall_time"]})
    print(cm, "done", round(time.time() - t0), "s", flush=True)
d = pd.DataFrame(rows)
d.to_csv(sys.argv[4], index=False)
m = d.pivot_table(index=["cluster_mode", "rep"], columns="method", values="R_T")
m["Coop/Dist"] = m["Coop-KernelUCB"] / m["Dist-KernelUCB"]
print(m.round(3).to_string())
print(m.groupby(level=0).mean().round(3).to_string())
