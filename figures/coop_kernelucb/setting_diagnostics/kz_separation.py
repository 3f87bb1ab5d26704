"""The MMD estimate of K_z per panel of Figure 1 (full and quick sizes), at the paper's σ_z = 1 and
σ_z = 0.5, with the RBF row's context laws (ω = 1, ρ = 0.2) and, for comparison, ω = ρ = 0.5 (why the
RBF row uses the former: bandits.envs.coop). Writes OUT.csv (committed as
figures/coop_kernelucb/setting_diagnostics/kz_separation.csv).
PYTHONPATH=. python figures/coop_kernelucb/setting_diagnostics/kz_separation.py OUT.csv"""
import numpy as np, pandas as pd
from bandits.experiments import coop_kernelucb as ex
from bandits.envs import make_env
from bandits.experiments.coop_kernelucb import kz_separation
rows=[]
for mode,V in (("full",200),("quick",32)):
    p = ex.fig1_params(mode)
    for row in ("linear","rbf"):
        for g in p["graphs"]:
            env = make_env(ex.env_spec(p,row,g),0)
            T = p["T_linear"] if row=="linear" else p["T_rbf"]
            for sz in ((1.0,) if row=="linear" else (1.0,0.5)):
                s = kz_separation(env, T, sz, n_embed=p["n_embed"])
                rows.append({"mode":mode,"row":row,"graph":g,"V":V,"n":T,"sigma_z":sz,"clusters":env.info["cluster_sizes"],
                             **{k:round(v,3) for k,v in s.items() if k not in ("n","sigma_z")}})
    # the RBF row with ω = ρ = 0.5, for comparison
    for g in p["graphs"]:
        env = make_env({**ex.env_spec(p,"rbf",g),"omega":0.5,"rho":0.5},0)
        s = kz_separation(env, p["T_rbf"], 1.0, n_embed=p["n_embed"])
        rows.append({"mode":mode,"row":"rbf (ω = ρ = 0.5)","graph":g,"V":V,"n":p["T_rbf"],"sigma_z":1.0,"clusters":env.info["cluster_sizes"],
                     **{k:round(v,3) for k,v in s.items() if k not in ("n","sigma_z")}})
d=pd.DataFrame(rows); import sys; d.to_csv(sys.argv[1] if len(sys.argv) > 1 else "kz_separation.csv", index=False); print(d.to_string())
