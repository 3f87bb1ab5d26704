r"""Coop-KernelUCB (Dubey & Pentland, ICML 2020): Figure 1's parameters and runs (its claims:
:mod:`bandits.experiments.coop_kernelucb_claims`; its figure: :mod:`bandits.experiments.coop_kernelucb_plots`).

Figure 1: per-agent cumulative regret ``R̂(t) = (1/V) Σ_v Σ_{s≤t} (f_v(x*_{v,s}) − f_v(x_{v,s}))`` vs ``t``,
2 rows (linear ``K_x`` with clustered ``K_z``; RBF ``K_x`` and RBF ``K_z``) × 4 networks (Erdős–Rényi
``(200, 0.7)``, ego-Facebook, musae-Twitch, as-Skitter), ``V = 200``, 8 contexts in ``R^10`` per agent
and round, ``λ = 1``, ``σ = 1``, 100 trials (paper §5). Methods: linear row LinUCB, OFUL, Naive
Cooperation (LinUCB), Coop-, Dist-, Eager-KernelUCB; RBF row KernelUCB, IGP-UCB, Naive Cooperation
(IGP-UCB), Coop-, Dist-, Eager-KernelUCB. Optional ablations that are not in the paper
(``ablations=True``, drawn dashed): Coop- and Eager-KernelUCB with the oracle ``K_z`` (Theorems 1–2 assume
``K_z`` known, Figure 1 estimates it: no stated guarantee covers the plotted runs), and on the RBF row Eager
with ``σ_z = 0.5``. They are off by default in both modes: in full mode they add 200 runs (1.7 h on 2
cores), and leaving them out keeps ``make figures`` within its 12-hour budget without cutting a paper's
repetitions. A full-mode figure with them, under an earlier setting of the RBF row (rank of ``K̂_z``
capped at 4, context laws ``ω = ρ = 0.5``), is kept in ``figures/coop_kernelucb/with_ablations/``.

Choices of this package where the paper is silent (environment details in :mod:`bandits.envs.coop`):

* horizon ``T = 1000`` (full); noise ``N(0, 0.1²)``; η = 1 (linear row), 0.1 (RBF row), the same η for
  every method of a row; ``σ_z = 1`` on both rows (the paper's "for the kernel estimation task, we set
  σ = 1"); the σ_z = 0.5 variant (with ``ablations=True``) is a separate dashed curve (with σ_z = 1 the
  RBF-row MMD estimate is nearly constant, our pilot runs);
* the SNAP graphs are BFS/snowball samples of ``V`` nodes of the largest component; the as-733
  snapshot stands in for as-Skitter (not in the shared data), and every label says so;
  the Twitch language graph is ENGB (not stated);
* the graph of a panel is fixed (``graph_seed``); each trial redraws the bandit (cluster means,
  θ or z and the reward anchors: ``env_seed = rep``) and the context/noise streams; trial ``r`` of
  every method shares them (common random numbers), so the claims are paired over trials;
* primal path (the dual form while it is cheaper, ``dual_when_smaller="auto"``), ``K̂_z`` refreshed every 10
  rounds (full), **no rank cap** on either row: the factor of ``K̂_z`` keeps at least ``r_max``
  (10 linear / 4 RBF) eigenpairs and is raised until every agent keeps ≥ 95 % of its own variance
  (``‖L_v‖² ≥ 0.95 W_vv``, this package's safeguard, :mod:`bandits.algorithms.coop_kz`). Every run records its ranks and the smallest
  kept own variance (``runs``: ``rank_mean``, ``rank_last``, ``rank_max``, ``min_kept_var``, ``capped``;
  :func:`rank_table`), and the implementation check ``fig1-safeguard-{row}`` asserts it held;
* the **rank-cap ablation** (``rank_cap_ablation``, off (0) in both modes; ``rank_cap_ablation=4`` runs it):
  Coop, Eager and Dist on the RBF row with the rank of ``K̂_z`` capped at 4 (``r_limit = 4``), drawn dashed
  in their colours beside the faithful curves and in no claim. The committed full-mode run (10 trials per
  panel, ``figures/coop_kernelucb/runs.csv``) ran it and its figure draws it: the cap moves no mean R̂(T) by
  more than 0.13 (the largest, Dist-KernelUCB on as-733, 1.73 → 1.85; 0.12 between the rounded means), since the
  uncapped rank settles at about 4 after the first rounds, so it has left the default full mode (its runs
  took 5 031 of the notebook's 22 708 s of run time, ``figures/TIMES.md``). The cap overrides the safeguard
  (in the committed run some agents keep 66 % of their own variance: ``min_kept_var`` in ``runs.csv``), so
  it warns and counts the agent-refreshes it cut short (``capped``);
* the RBF row's environment (:mod:`bandits.envs.coop`): contexts ``x = normalise(ω z_v + ξ)``
  with ``ω = 1`` (``omega_rbf``) and network contexts ``z_v`` spread ``ρ = 0.2`` (``rho_rbf``) around
  their cluster's mean, so that the MMD at the paper's ``σ_z = 1`` orders within-cluster pairs above
  across-cluster pairs (:func:`kz_separation`, reported per panel by
  :func:`rank_table`); with ``ω = ρ = 0.5`` ``K̂_z`` is nearly constant at ``σ_z = 1``
  (``figures/coop_kernelucb/setting_diagnostics/kz_separation.csv``);
* ``K_x`` (RBF row) by **Nyström features on 32 landmarks** drawn uniformly on the unit sphere
  (``features_rbf="nystroem"``, ``n_features=32``; every context of this environment is a unit
  vector; :class:`bandits.algorithms.coop_kernel_ucb.NystroemFeatures`), the MMD embedding by 128
  random Fourier features. The paper uses the exact kernel, whose primal systems are infinite.
  Measured on 400 uniform unit vectors (ℓ = 2, d = 10): mean ``|k̂ − k|`` 0.003 with 32 Nyström
  landmarks, 0.058 with 128 RFF; ``features_rbf="rff"`` with ``n_features=128`` uses the random features;
* the agents' clusters (``cluster_mode``): ``"mis_star"`` (Dist-KernelUCB's stars around its centres,
  our reading of §5's clusters "given by the independent sets" of ``G_γ``; default) or ``"clique_cover"`` (Coop-KernelUCB's cliques). With Dist's stars a Dist
  centre's γ-neighbourhood holds its whole cluster while a Coop clique (≈ 10 agents on ER(200, 0.7))
  holds part of one, which is why on the linear row's ER panel Coop's regret is 2.1× Dist's in the
  committed full run (``figures/coop_kernelucb/setting_diagnostics/linear_er_cluster_modes.csv``
  compares the two modes);
* full mode runs ``n_runs = 10`` of the paper's 100 trials per panel (what the 12-hour budget of
  ``make figures`` on 2 cores allows; the figure title and every claim say how many); ``n_runs`` raises it (Dask backend on a cluster);
* quick mode: ``V = 32``, ``T = 120`` (linear) / 100 (RBF), 4 trials, 32 Nyström landmarks, RFF 64 for
  the embedding, ``K̂_z`` every round, ``r_max = 5`` (linear), no rank-cap ablation.

Cost. Full mode with the rank-cap ablation's 120 runs (600 runs, 2 workers): 22 708 s of run wall time,
3.2 h on 2 cores (linear row 8 507 s, RBF row 14 202 s, of which the ablation 5 031 s; every run's wall
time is in ``figures/coop_kernelucb/runs.csv``). On the RBF row without a cap, CPU seconds per run
(V = 200, T = 1000): Eager 112 s (ER) / 130 s (as-733), Dist 43 / 58 s, Coop 10 / 82 s.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..runner import sweep
from .common import mode_params
from ..validation import ParameterError, between, boolean, check, integer, number, one_of, subset_of

__all__ = ["ROWS", "GRAPHS", "ROW_METHODS", "PAPER_METHODS", "ABLATIONS", "PAPER_RUNS", "SIGMA_Z_ABLATION", "row_methods",
           "fig1_params", "validate_fig1", "fig1_tasks", "run_fig1", "Fig1Results",
           "summary_table", "panel_table", "rank_table", "kz_separation", "CAP_LABEL", "RANK_CAP_ABLATION"]

ROWS = ("linear", "rbf")
GRAPHS = ("er", "ego-facebook", "twitch", "as733")
GRAPH_TITLES = {"er": "Erdős–Rényi (p = 0.7)", "ego-facebook": "ego-Facebook", "twitch": "musae-Twitch",
                "as733": "as-733 (stand-in for as-Skitter)"}
ORACLE = "Eager-KernelUCB (oracle K_z)"
ORACLE_COOP = "Coop-KernelUCB (oracle K_z)"
SIGMA_VARIANT = "Eager-KernelUCB (σ_z = {:g})"
#: the rank-cap ablation of the RBF row: the cooperative methods with ``r_limit = k``
CAP_LABEL = "{} (rank ≤ {})"
#: the cap the ablation uses when it is asked for (``rank_cap_ablation=RANK_CAP_ABLATION``): the RBF row's
#: ``r_max``, the smallest rank its factor of ``K̂_z`` keeps (module docstring)
RANK_CAP_ABLATION = 4
#: label -> (algorithm, extra params) per row; the two oracle curves are an ablation of this package
ROW_METHODS = {
    "linear": {"LinUCB": ("Ind-LinUCB", {}), "OFUL": ("Ind-OFUL", {}),
               "Naive Cooperation": ("Naive-LinUCB", {}), "Coop-KernelUCB": ("Coop-KernelUCB", {}),
               "Dist-KernelUCB": ("Dist-KernelUCB", {}), "Eager-KernelUCB": ("Eager-KernelUCB", {}),
               ORACLE_COOP: ("Coop-KernelUCB", {"kz": "oracle"}), ORACLE: ("Eager-KernelUCB", {"kz": "oracle"})},
    "rbf": {"KernelUCB": ("Ind-KernelUCB", {}), "IGP-UCB": ("Ind-IGP-UCB", {}),
            "Naive Cooperation": ("Naive-IGP-UCB", {}), "Coop-KernelUCB": ("Coop-KernelUCB", {}),
            "Dist-KernelUCB": ("Dist-KernelUCB", {}), "Eager-KernelUCB": ("Eager-KernelUCB", {}),
            ORACLE_COOP: ("Coop-KernelUCB", {"kz": "oracle"}), ORACLE: ("Eager-KernelUCB", {"kz": "oracle"})},
}
ABLATIONS = (ORACLE_COOP, ORACLE)
#: the six curves of the paper's Figure 1 per row (the claims are about these)
PAPER_METHODS = {row: tuple(m for m in ROW_METHODS[row] if m not in ABLATIONS) for row in ROWS}
INDEPENDENT = {"linear": ("LinUCB", "OFUL"), "rbf": ("KernelUCB", "IGP-UCB")}
COOPERATIVE = ("Coop-KernelUCB", "Dist-KernelUCB", "Eager-KernelUCB")

_FULL = dict(V=200, T_linear=1000, T_rbf=1000, n_runs=10, K=8, d=10, p=0.7, noise_std=0.1, lam=1.0,
             rows=list(ROWS), graphs=list(GRAPHS), sampler="bfs", lang="ENGB", graph_seed=0,
             min_clusters=2, eta_linear=1.0, eta_rbf=0.1, sigma_z_linear=1.0, sigma_z_rbf=1.0,
             sigma_z_variant=0, r_max_linear=10, r_max_rbf=4, r_limit=None, r_limit_rbf=None, kz_every=10,
             features_rbf="nystroem", n_features=32, n_embed=128, oracle=False, csv_stride=25,
             rank_cap_ablation=0, cluster_mode="mis_star", omega_rbf=1.0, rho_rbf=0.2)
_QUICK = dict(_FULL, V=32, T_linear=120, T_rbf=100, n_runs=4, r_max_linear=5, kz_every=1,
              n_features=32, n_embed=64, csv_stride=1)
#: ``csv_stride``: ``results.csv`` keeps every ``csv_stride``-th round and each row's last (full mode: 40
#: of the 1000 rounds per curve, about 1.2 MB for the 680 runs instead of 37 MB); the figure and the
#: claims use every round (:func:`bandits.experiments.notebook.write_results_csv`).
PAPER_RUNS = 100  # "Each experiment is averaged over 100 trials" (Figure 1 caption)
#: σ_z of the RBF-row variant curve that ``ablations=True`` adds (a choice of this package)
SIGMA_Z_ABLATION = 0.5


def fig1_params(mode: str = "quick", ablations: bool | None = None, **overrides) -> dict:
    """The Figure-1 parameters of ``mode`` ("quick" or "full"), with overrides applied
    (``None`` keeps the mode's value; ``sigma_z_variant=0`` drops the σ_z-variant curve).

    ``ablations=True`` adds the dashed curves that are not in the paper: ``oracle=True`` (Coop and
    Eager with the oracle ``K_z``, both rows) and ``sigma_z_variant = SIGMA_Z_ABLATION`` (RBF row), unless
    those are given explicitly; ``False`` or ``None`` keeps the mode's values (no ablations)."""
    if ablations is not None:
        check("ablations", ablations, boolean())
        if ablations:
            if overrides.get("oracle") is None:
                overrides["oracle"] = True
            if overrides.get("sigma_z_variant") is None:
                overrides["sigma_z_variant"] = SIGMA_Z_ABLATION
    p = mode_params(mode, _FULL, _QUICK, overrides, "Figure-1")
    validate_fig1(p)
    return p


def validate_fig1(p: dict) -> None:
    for k in ("V", "T_linear", "T_rbf", "n_runs", "K", "d", "r_max_linear", "r_max_rbf", "kz_every",
              "n_features", "n_embed", "min_clusters", "csv_stride"):
        check(k, p[k], integer(ge=1))
    check("graph_seed", p["graph_seed"], integer(ge=0))
    for k in ("lam", "eta_linear", "eta_rbf", "sigma_z_linear", "sigma_z_rbf"):
        check(k, p[k], number(gt=0))
    check("sigma_z_variant", p["sigma_z_variant"], number(ge=0), note="0: no variant curve")
    check("noise_std", p["noise_std"], number())
    check("p", p["p"], between(0, 1, "both"))
    check("rows", p["rows"], subset_of(*ROWS))
    check("graphs", p["graphs"], subset_of(*GRAPHS))
    check("features_rbf", p["features_rbf"], one_of("nystroem", "rff"))
    check("sampler", p["sampler"], one_of("bfs", "rw"))
    check("oracle", p["oracle"], boolean())
    for k in ("r_limit", "r_limit_rbf"):
        if p.get(k) is not None:
            check(k, p[k], integer(ge=1))
    check("rank_cap_ablation", p["rank_cap_ablation"], integer(ge=0))
    check("cluster_mode", p["cluster_mode"], one_of("mis_star", "clique_cover"))
    for k in ("omega_rbf", "rho_rbf"):
        check(k, p[k], number())


def row_methods(p: dict, row: str) -> dict:
    """label -> (algorithm, extra params) of a row under ``p``: the six methods of the paper, the
    oracle-``K_z`` curves (``oracle``) and, on the RBF row, Eager with ``σ_z = sigma_z_variant``
    (with the paper's σ_z = 1 the RBF-row MMD estimate is nearly constant: our pilot runs)."""
    out = {k: v for k, v in ROW_METHODS[row].items() if p["oracle"] or k not in ABLATIONS}
    sv = p["sigma_z_variant"]
    if row == "rbf" and sv and sv != p["sigma_z_rbf"]:
        out[SIGMA_VARIANT.format(sv)] = ("Eager-KernelUCB", {"sigma_z": float(sv)})
    cap = p.get("rank_cap_ablation", 0)
    if row == "rbf" and cap:
        for m in COOPERATIVE:
            out[CAP_LABEL.format(m, cap)] = (m, {"r_limit": int(cap)})
    return out


def env_spec(p: dict, row: str, graph: str) -> dict:
    spec = {"kind": "coop", "setup": row, "graph": graph, "V": p["V"], "p": p["p"], "K": p["K"], "d": p["d"],
            "noise_std": p["noise_std"], "sampler": p["sampler"], "lang": p["lang"],
            "graph_seed": p["graph_seed"], "min_clusters": p["min_clusters"]}
    if p.get("cluster_mode", "mis_star") != "mis_star":
        spec["cluster_mode"] = p["cluster_mode"]
    if row == "rbf":  # the agents' context laws and z spread (bandits.envs.coop)
        spec.update(omega=float(p.get("omega_rbf", 1.0)), rho=float(p.get("rho_rbf", 0.2)))
    return spec


def method_params(p: dict, row: str, extra: dict) -> dict:
    if row == "linear":
        prm = {"kernel": {"name": "linear"}, "eta": p["eta_linear"], "sigma_z": p["sigma_z_linear"],
               "r_max": p["r_max_linear"], "r_limit": p["r_limit"]}
    else:
        from ..envs.coop import COOP_KEYS

        prm = {"kernel": {"name": "rbf", "lengthscale": float(COOP_KEYS["lengthscale_x"])}, "eta": p["eta_rbf"],
               "sigma_z": p["sigma_z_rbf"], "r_max": p["r_max_rbf"],
               "r_limit": p["r_limit_rbf"] if p.get("r_limit_rbf") is not None else p["r_limit"],
               "features": p["features_rbf"], "n_features": p["n_features"], "n_embed": p["n_embed"]}
    return {**prm, "lam": p["lam"], "R": p["noise_std"], "kz_every": p["kz_every"], **extra}


def fig1_tasks(p: dict) -> tuple[list[tuple[dict, int]], list[dict]]:
    """``(config, rep)`` tasks and their labels (row, graph, method, rep)."""
    tasks, labels = [], []
    for row in p["rows"]:
        T = p["T_linear"] if row == "linear" else p["T_rbf"]
        for graph in p["graphs"]:
            for label, (alg, extra) in row_methods(p, row).items():
                for rep in range(p["n_runs"]):
                    cfg = {"loop": "regret", "env": env_spec(p, row, graph), "env_seed": rep, "algorithm": alg,
                           "params": method_params(p, row, extra), "N": p["V"], "T": T}
                    tasks.append((cfg, rep))
                    labels.append({"row": row, "graph": graph, "method": label, "rep": rep})
    return tasks, labels


@dataclass
class Fig1Results:
    params: dict
    curves: object  # DataFrame: row, graph, method, rep, t, regret (per-agent cumulative)
    runs: object  # DataFrame: one row per run, R_T, wall_time, comm_scalars, accepted_deliveries
    panels: dict  # (row, graph) -> network stats, cluster sizes and the K̂_z separation
    cached: int
    computed: int


def run_fig1(p: dict, seed: int = 0, n_jobs: int = 1, backend: str = "loky", cache_dir: str | None = None,
             progress: bool = True) -> Fig1Results:
    import pandas as pd

    from ..envs import make_env

    tasks, labels = fig1_tasks(p)
    results, stats = sweep(tasks, seed, n_jobs=n_jobs, backend=backend, cache_dir=cache_dir,
                           progress=progress, desc="Coop-KernelUCB Fig. 1")
    panels = {}
    for row in p["rows"]:
        for graph in p["graphs"]:
            env = make_env(env_spec(p, row, graph), 0)
            sz = p["sigma_z_linear"] if row == "linear" else p["sigma_z_rbf"]
            T = p["T_linear"] if row == "linear" else p["T_rbf"]
            sep = kz_separation(env, T, sz, n_embed=p["n_embed"], seed=0)
            panels[(row, graph)] = {**env.network.stats(), "cluster_sizes": env.info.get("cluster_sizes"),
                                    "title": GRAPH_TITLES[graph], "kz_sep": sep}
    curve_rows, run_rows = [], []
    for lab, res in zip(labels, results):
        reg = np.asarray(res["arrays"]["regret"], dtype=float)
        R = np.cumsum(reg) / p["V"]
        curve_rows.append(pd.DataFrame({**lab, "t": np.arange(1, R.size + 1), "regret": R}))
        info = res["meta"]["info"]
        run_rows.append({**lab, "R_T": R[-1], "wall_time": res["meta"]["wall_time"],
                         "cpu_time": res["meta"].get("cpu_time"),
                         "comm_scalars": float(np.sum(res["arrays"]["comm_up"]) + np.sum(res["arrays"]["comm_down"])),
                         "accepted_deliveries": info.get("accepted_deliveries"),
                         # the truncation of K̂_z: mean rank over refreshes and at the last one,
                         # the smallest kept own variance ‖L_v‖²/W_vv, and the agent-refreshes a cap cut short
                         "rank_mean": info.get("rank_mean"), "rank_max": info.get("rank_max"),
                         "rank_last": info.get("rank_last"), "min_kept_var": info.get("min_Lv2"),
                         "capped": info.get("capped_agent_refreshes")})
    return Fig1Results(p, pd.concat(curve_rows, ignore_index=True), pd.DataFrame(run_rows), panels,
                       stats.cached, stats.computed)


def rank_table(res: Fig1Results):
    """Per panel and cooperative method (the rank-cap ablation included): the rank of the factor of
    ``K̂_z`` (mean over refreshes, at the last refresh, largest), the smallest kept own variance
    ``‖L_v‖²/W_vv`` over agents, refreshes and trials, the agent-refreshes a cap cut short, and the
    panel's ``K̂_z`` separation (:func:`kz_separation` at ``n = T`` samples per agent:
    mean within- and across-cluster ``K̂_z``, AUC of within over across; the true ``K_z``'s means)."""
    import pandas as pd

    r = res.runs[res.runs.method.str.startswith(COOPERATIVE)]
    g = r.groupby(["row", "graph", "method"], sort=False).agg(
        rank_mean=("rank_mean", "mean"), rank_last=("rank_last", "mean"), rank_max=("rank_max", "max"),
        min_kept_var=("min_kept_var", "min"), capped=("capped", "sum")).reset_index()
    sep = pd.DataFrame([{"row": row, "graph": graph, **{f"kz_{k}": v for k, v in s["kz_sep"].items()
                                                       if k in ("within", "across", "auc", "true_within", "true_across")}}
                        for (row, graph), s in res.panels.items() if "kz_sep" in s])
    out = g.merge(sep, on=["row", "graph"], how="left") if len(sep) else g
    return out.round(3)


def summary_table(res: Fig1Results):
    """Mean R̂(T) per (row, graph, method)."""
    return res.runs.groupby(["row", "graph", "method"]).R_T.agg(["mean", "sem", "count"]).reset_index()


def panel_table(res: Fig1Results):
    """One row per panel: the network statistics behind the titles (``γ``, diameter, the greedy clique
    cover size ``|𝐂|`` ≥ χ̄(G_γ), the number of centres ``|𝒱_C|`` ≤ α(G_γ), mean ``|N_γ(v)|``) and the
    cluster sizes of the panel's bandit (setup 1's ``K_z``; setup 2's ``z`` means)."""
    import pandas as pd

    rows = []
    for (row, graph), s in res.panels.items():
        rows.append({"row": row, "graph": s["title"], "network": s["name"], "V": s["V"], "diam": s["diam"],
                     "gamma": s["gamma"], "cover": s["cover"], "max_clique": s["max_clique"], "centres": s["n_c"],
                     "mean_nbhd": round(s["mean_nbhd"], 1), "cluster_sizes": s["cluster_sizes"]})
    return pd.DataFrame(rows)


def kz_separation(env, n: int, sigma_z: float = 1.0, n_embed: int = 128, seed: int = 0,
                  squared: bool = False) -> dict:
    """How well the MMD estimate of ``K_z`` (Eq. 10–12, ``k_P = K_x`` through ``n_embed`` random Fourier
    features, as the algorithms compute it) separates within- from across-cluster pairs after ``n``
    i.i.d. contexts per agent (one per round; the algorithms see their *chosen* contexts, so this is
    the estimate's law, not a run's). ``env``: a clustered :class:`bandits.envs.coop.CoopEnv`.

    Returns ``{"within", "across"}`` (mean ``K̂_z`` over same-cluster and different-cluster pairs,
    ``u ≠ v``), ``"auc"`` (probability that a within-cluster pair exceeds an across-cluster pair; 1 =
    perfect ordering), ``"true_within"``, ``"true_across"`` (the same means of the true ``K_z``) and ``n``.
    """
    from ..algorithms.coop_features import RandomFourierFeatures, kz_from_mmd, mmd_from_embeddings
    from ..envs import env_seed_sequence

    check("env.setup", getattr(env, "setup", None), one_of("linear", "rbf"), note="a clustered environment")
    rng = np.random.default_rng(env_seed_sequence("coop-kz-separation", seed))
    V, d = env.V, env.dim
    ell = env.kernel_x.get("lengthscale", 1.0) if env.kernel_x["name"] == "rbf" else None
    emb = np.zeros((V, n_embed if ell is not None else d))
    rf = RandomFourierFeatures(d, n_embed, ell, rng) if ell is not None else (lambda X: X)
    for _ in range(int(n)):
        X = env.sample_contexts(rng)[:, 0, :]  # one context per agent and round
        emb += rf(X)
    Kh = kz_from_mmd(mmd_from_embeddings(emb / n), sigma_z, squared)
    cl = np.asarray(env.truth["clusters"])
    same, off = cl[:, None] == cl[None, :], ~np.eye(V, dtype=bool)
    wi, ac = Kh[same & off], Kh[~same]
    if len(wi) and len(ac):
        a = np.sort(ac)
        auc = float((np.searchsorted(a, wi, "left") + np.searchsorted(a, wi, "right")).mean() / (2 * len(a)))
    else:
        auc = float("nan")
    kt = env.kz_true
    return {"n": int(n), "sigma_z": float(sigma_z), "within": float(wi.mean()) if len(wi) else float("nan"),
            "across": float(ac.mean()) if len(ac) else float("nan"), "auc": auc,
            "true_within": float(kt[same & off].mean()) if len(wi) else float("nan"),
            "true_across": float(kt[~same].mean()) if len(ac) else float("nan")}
