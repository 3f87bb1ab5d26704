"""Small instances behind the RBF row's setting (not a paper figure): Figure 1's RBF row with its defaults
(no rank cap: K̂_z truncated so that every agent keeps ≥ 95 % of its own variance; the environment whose
context laws the MMD at σ_z = 1 can separate, ``bandits.envs.coop``) beside the rank-cap-4 ablation
(Coop, Eager, Dist with ``r_limit = 4``).

Full-mode RBF settings (K̂_z every 10 rounds, 128 RFF for the MMD embedding, 32 Nyström features)
at V = 32, T = 600, 4 paired trials, on ER(32, 0.7) and, if the data are there, musae-Twitch.

    PYTHONPATH=. python tools/coop_rbf_rank_diag.py [OUT_DIR] [GRAPHS...] [--omega-rho-0.5]

``--omega-rho-0.5``: the RBF environment with ``ω = ρ = 0.5`` (K̂_z at σ_z = 1 nearly constant), for
comparison. The committed outputs are under ``figures/coop_kernelucb/setting_diagnostics/``.

Writes ``OUT_DIR/rank_diag_runs.csv`` (one row per run: R̂(T), wall time, ranks, smallest kept own
variance), ``rank_diag_ranks.csv`` (per panel and method, with the K̂_z separation) and
``rank_diag_claims.txt`` (the Figure-1 claims on these small instances).
"""
import sys
import time
from pathlib import Path

from bandits.experiments import coop_kernelucb as ex
from bandits.experiments.claims import claims_table
from bandits.experiments.coop_kernelucb_claims import fig1_claims

args = [a for a in sys.argv[1:] if a != "--omega-rho-0.5"]
half = "--omega-rho-0.5" in sys.argv[1:]
out = Path(args[0] if args else "figures/coop_kernelucb/setting_diagnostics/small_er")
graphs = args[1:] or ["er"]
out.mkdir(parents=True, exist_ok=True)
env = dict(omega_rbf=0.5, rho_rbf=0.5) if half else {}
p = ex.fig1_params("full", V=32, rows=["rbf"], graphs=graphs, T_rbf=600, n_runs=4, **env)
t0 = time.time()
res = ex.run_fig1(p, seed=0, n_jobs=1, backend="serial", progress=False)
print(f"{res.computed} runs computed, {res.cached} cached, {time.time() - t0:.0f} s", flush=True)
res.runs.to_csv(out / "rank_diag_runs.csv", index=False)
ranks = ex.rank_table(res)
ranks.to_csv(out / "rank_diag_ranks.csv", index=False)
summ = ex.summary_table(res).round(3)
claims = fig1_claims(res)
(out / "rank_diag_claims.txt").write_text(claims_table(claims) + "\n")
print(summ.to_string())
print(ranks.to_string())
print(claims_table(claims))
