"""FN-UCB theory checks: the runs. Every regret cell is :func:`bandits.runner.run_regret_cell` with
observers (:class:`PotentialRecorder`, :class:`ContextRecorder`) and, where the loop cannot see the
recorded value, a probe subclass whose docstring says why; E14 is its own cell
(:func:`run_linearisation`); :func:`run_theory` sweeps them and builds the tidy tables."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np

from ...runner import canonical, run_key, run_regret_cell, run_seeds, sweep
from ...sim import Observer
from .maths import dual_gd, dual_ridge, linearisation_step, ntk_gram, round_bound
from .setting import theory_tasks


class PotentialRecorder(Observer):
    """Records the potential ``Σ_j log(V_sync,jj/λ)`` after every communication round. The loop calls it
    after each ``update``; a round happened at step t iff the policy's public ``round_times`` ends with t
    (``_round`` is the last thing ``update`` does, so the state read here is the round's)."""

    def __init__(self):
        self.potential: list[float] = []

    def on_step(self, t, agents, arms, choices, rewards, means, policy):
        if policy.round_times and policy.round_times[-1] == t:
            self.potential.append(float(np.sum(np.log(policy.dsync / policy.lam))))


class ContextRecorder(Observer):
    """E12: records every step's raw contexts, ``(N, K, d)`` (what the policy was shown by the loop)."""

    def __init__(self):
        self.contexts: list[np.ndarray] = []

    def on_step(self, t, agents, arms, choices, rewards, means, policy):
        self.contexts.append(np.stack([np.asarray(arms.for_agent(k), dtype=float) for k in range(policy.N)]))


def _alpha_probe(cls):
    r"""E8: ``cls`` (FN-UCB with ``alpha_mode="theory"``) selecting with UCB_a only (α ≡ 0 in line 7)
    while the package's own theory α (:meth:`FNUCB._theory_alpha`, Sec. 3.3)

    .. math::  \alpha_{t,i} = \frac{\min_x \sigma^{local}_{t,i}(x)}{\max_x \sigma^{local}_{t,i}(x)},\qquad
               \sigma^{local}_{t,i}(x) = \sqrt\lambda\, \|\phi(x)\|_{(V^{local}_{t,i})^{-1}},

    min and max over the candidates plus the agent's last ``alpha_recent`` queried contexts, is
    evaluated in the rounds after the logged iterations ``t_log`` (the paper's 1-based t, i.e. with
    ``V^local`` holding t points). The NN is never trained (it does not enter α or UCB_a).

    Why a subclass and not an observer: it changes the policy (α ≡ 0 in selection, no training: a variant,
    not a recording), and the theory α is computed inside ``_round`` from the state of that moment and
    the round's step (``_t_sel``) and is kept only when not zeroed, which the loop never sees."""

    class AlphaProbe(cls):
        def __init__(self, *args, t_log=(), **kw):
            super().__init__(*args, **kw)
            self.probe_steps = {int(t) - 1 for t in t_log}  # paper's t -> the loop's 0-based step
            self.probe_alpha: dict[int, float] = {}

        def alpha_at(self, t):
            return 0.0

        def _should_train(self, t):
            return False

        def _theory_alpha(self):
            t = self._t_sel
            if t not in self.probe_steps:
                return 0.0
            a = super()._theory_alpha()
            self.probe_alpha[int(t) + 1] = a
            return a

    AlphaProbe.__name__ = f"AlphaProbe{cls.__name__}"
    return AlphaProbe


def _coverage_probe(cls):
    """E12: ``cls`` recording, at every step, UCB_a's mean ``⟨φ(x), θ_{t,i}⟩`` and ``φ(x)ᵀ V_{t,i}⁻¹ φ(x)``
    of every (agent, context), as the policy computes them for its choice (the contexts are recorded by
    a :class:`ContextRecorder`).

    Why a subclass and not an observer: both are computed inside ``select`` from the state *before* the
    step's ``update``; an observer is called after the update and sees only the updated state (and the
    policy keeps neither value), so the recording must sit where the policy computes them."""

    class CoverageProbe(cls):
        def __init__(self, *args, **kw):
            super().__init__(*args, **kw)
            self.probe_mean, self.probe_q = [], []

        def _mean_quad_a(self, Phi):
            mean, q = super()._mean_quad_a(Phi)
            self.probe_mean.append(mean.copy())
            self.probe_q.append(q.copy())
            return mean, q

    CoverageProbe.__name__ = f"CoverageProbe{cls.__name__}"
    return CoverageProbe


def run_theory_cell(config: dict, seed: int, rep: int) -> dict:
    """One run (pure function of its arguments): :func:`bandits.runner.run_regret_cell` (the one run
    recipe: same seeds, loop and common random numbers as :func:`bandits.runner.run_cell`) watched by a
    :class:`PotentialRecorder`, returning the regret, the potential after every round
    (``arrays["potential"]``, aligned with ``info["round_times"]``) and, in ``meta["final"]``, the
    diagonal and exact ``log det(V_sync/λ)`` after the last round (the exact one only for p ≤ 2000: a p³
    factorisation); the recipe's communication arrays and meta are not kept (the checks count rounds
    from ``info``). With ``config["probe"]``: ``"theory_alpha"`` (E8, :func:`_alpha_probe`) adds
    ``arrays["alpha_t"]``, ``arrays["alpha"]``; ``"ucb_a_coverage"`` (E12, :func:`_coverage_probe` and a
    :class:`ContextRecorder`) adds the per-step coverage ``arrays["cover"]`` (h ≤ UCB_a) and
    ``arrays["cover_abs"]`` (|h − mean| ≤ width) at the run's own ν. ``config["loop"] ==
    "fn_linearisation"`` is E14 (:func:`run_linearisation`)."""
    if config.get("loop") == "fn_linearisation":
        return run_linearisation(config, seed, rep)
    from ...algorithms import get_algorithm

    probe = config.get("probe", {}).get("kind")
    cls = get_algorithm(config["algorithm"])
    recorder, observers = PotentialRecorder(), []
    if probe == "theory_alpha":
        cls = _alpha_probe(cls)
        ss_cand = run_seeds(seed, rep)[0].spawn(3)[2]  # the environment stream's third child (the recipe uses two)
        n_cand, t_log = int(config["probe"]["n_candidates"]), list(config["probe"]["t_log"])

        class _Cell(cls):
            @classmethod
            def env_params(klass, env, params):
                return {**params, "alpha_candidates": env.sampler(np.random.default_rng(ss_cand), n_cand),
                        "t_log": t_log}

        cls = _Cell
    elif probe == "ucb_a_coverage":
        cls = _coverage_probe(cls)
        observers.append(ContextRecorder())
    elif probe is not None:
        raise ValueError(f"config 'probe' kind must be 'theory_alpha' or 'ucb_a_coverage', got {probe!r}")
    observers.insert(0, recorder)

    def collect(ctx):
        policy, env = ctx.policy, ctx.env
        final = {"potential_diag": float(np.sum(np.log(policy.dsync / policy.lam))), "p0": int(policy.p)}
        if hasattr(policy, "Vsync_inv") and policy.p <= 2000:
            sign, ld = np.linalg.slogdet(policy.Vsync_inv)
            final["potential_exact"] = float(-ld - policy.p * math.log(policy.lam)) if sign > 0 else float("nan")
        info = dict(ctx.trace.info)
        info.pop("alpha", None)  # the ramp is deterministic; not needed here
        info.pop("alpha_rounds", None)  # one per round; E8 keeps its logged values below
        arrays = {"potential": np.asarray(recorder.potential, dtype=float)}
        if probe == "theory_alpha":
            ts = sorted(policy.probe_alpha)
            arrays["alpha_t"] = np.asarray(ts, dtype=float)
            arrays["alpha"] = np.asarray([policy.probe_alpha[t] for t in ts], dtype=float)
        elif probe == "ucb_a_coverage":
            X = np.asarray(ctx.observers[1].contexts)  # (T, N, K, d) raw contexts
            h = np.asarray(env.f(X.reshape(-1, X.shape[-1]))).reshape(X.shape[:3])
            mean, q = np.asarray(policy.probe_mean), np.asarray(policy.probe_q)
            w = policy.nu_a * math.sqrt(policy.lam) * np.sqrt(q)
            arrays["cover"] = np.mean(h <= mean + w, axis=(1, 2))
            arrays["cover_abs"] = np.mean(np.abs(h - mean) <= w, axis=(1, 2))
            arrays["width"] = np.mean(w, axis=(1, 2))
        return arrays, {"info": info, "final": final}

    res = run_regret_cell(config, seed, rep, policy_class=cls, observers=observers, collect=collect)
    for k in ("comm_up", "comm_down", "n_active"):  # not used by the checks: kept out of the cache
        res["arrays"].pop(k)
    for k in ("fstar", "comm_by_kind", "comm_rounds"):
        res["meta"].pop(k)
    return res


def run_linearisation(config: dict, seed: int, rep: int) -> dict:
    r"""E14, one run: N agents each get n fixed points of the cosine bandit (contexts from the
    environment's sampler, ``y = h(x) + ε``); every agent trains the paper's network (``init="ntk"``,
    mirrored inputs so ``f(x; θ0) = 0``) from θ0 by J steps of full-batch GD with step η on Eq. (1)
    (``objective="paper"``: ``½Σ(f − y)² + ½mλ‖θ − θ0‖²``; :func:`linearisation_step`); then, over
    the test points x (every agent's data plus ``n_test`` fresh contexts),

    * ``err``     = max_x |f(x; θ_sync,NN) − (1/N) Σ_i ⟨φ(x), θ^local_i⟩|   (Lemma 4 step 1, the checked one),
    * ``err_lin`` = max_x |f(x; θ_sync,NN) − (1/N) Σ_i ⟨φ(x), w_J,i⟩|     (the linearised model after the same GD),
    * ``err_opt`` = max_x |(1/N) Σ_i ⟨φ(x), w_J,i⟩ − ⟨φ(x), θ^local_i⟩|   (GD not converged; m-free),

    with ``θ^local_i`` and ``w_J,i`` in dual form (:func:`dual_ridge`, :func:`dual_gd`). Also
    ``dist_ratio = max_i ‖θ_i − θ0‖ / (2√(n/(mλ)))`` (Lemma C.1's ball, used by step 1)."""
    from ... import neural as nn
    from ...envs import make_env

    m, n, N, lam = int(config["m"]), int(config["n"]), int(config["N"]), float(config["lam"])
    env = make_env(config["env"], config.get("env_seed", 0))
    d = env.dim
    env_ss, alg_ss = run_seeds(seed, rep)
    rng_x, rng_noise, rng_test = (np.random.default_rng(s) for s in env_ss.spawn(3))
    X = env.sampler(rng_x, N * n).reshape(N, n, d)
    y = np.asarray(env.f(X.reshape(-1, d))).reshape(N, n) + env.noise_std * rng_noise.standard_normal((N, n))
    Xt = np.concatenate([X.reshape(-1, d), env.sampler(rng_test, int(config["n_test"]))])
    Xm, Xtm = nn.mirror_inputs(X), nn.mirror_inputs(Xt)
    mlp = nn.MLP(2 * d, m, 1, "ntk", device=config.get("device", "cpu"))
    theta0 = mlp.init_params(alg_ss)
    eta, J = linearisation_step(m, n, lam, float(config["tol"]), L=mlp.depth + 1)
    theta = theta0.expand(N, -1).clone()
    nn.train_full_batch(mlp, theta, Xm, y, nn.TrainConfig(steps=J, lr=eta, lam=lam, objective="paper"),
                        theta0=theta0)
    f_sync = mlp.forward_numpy(nn.average_params(theta), Xtm)
    if not np.all(np.isfinite(f_sync)):
        raise FloatingPointError(f"E14: GD diverged at m={m} (lr={eta:g}, steps={J})")
    lin, gd = np.zeros(len(Xt)), np.zeros(len(Xt))
    for i in range(N):
        K = ntk_gram(mlp, theta0, Xm[i])
        Kx = ntk_gram(mlp, theta0, Xtm, Xm[i])
        lin += dual_ridge(K, Kx, y[i], lam) / N
        gd += dual_gd(K, Kx, y[i], lam, eta * m, J) / N
    dist = float((theta - theta0).norm(dim=1).max())
    meta = {"err": float(np.max(np.abs(f_sync - lin))), "err_lin": float(np.max(np.abs(f_sync - gd))),
            "err_opt": float(np.max(np.abs(gd - lin))), "scale": float(np.max(np.abs(lin))),
            "f0_max": float(np.max(np.abs(mlp.forward_numpy(theta0, Xtm)))), "p0": int(mlp.p0), "lr": eta,
            "steps": J, "dist_ratio": dist / (2.0 * math.sqrt(n / (m * lam)))}
    return {"arrays": {}, "meta": json.loads(canonical(meta))}


@dataclass
class TheoryResults:
    params: dict
    runs: "object"  # DataFrame: check, algorithm, N, D, rep, T, R_T, rounds, R_emp, bound, bad_epochs, ...
    curves: "object"  # DataFrame: check, algorithm, rep, t, regret (R̄(t)), potential
    n_cached: int = 0
    n_computed: int = 0
    alpha: "object" = None  # DataFrame (E8): rep, t, alpha
    coverage: "object" = None  # DataFrame (E12): nu, rep, coverage, coverage_abs, width_T
    linear: "object" = None  # DataFrame (E14): m, rep, err, err_lin, err_opt, scale, dist_ratio, steps, p0


def run_theory(p: dict, seed: int = 0, n_jobs: int = 1, backend: str = "loky", cache_dir: str | None = None,
               progress: bool = True) -> TheoryResults:
    """Run every check's runs (identical runs once) and return the tidy tables."""
    import pandas as pd

    groups = theory_tasks(p)
    flat = [(g, c, r) for g, lst in groups.items() for c, r in lst]
    keys = [run_key(c, seed, r, run_theory_cell) for _, c, r in flat]
    first: dict[str, int] = {}
    for i, k in enumerate(keys):
        first.setdefault(k, i)
    uniq = list(first)
    results, stats = sweep([(flat[first[k]][1], flat[first[k]][2]) for k in uniq], seed, n_jobs=n_jobs,
                           backend=backend, cache_dir=cache_dir, progress=progress, desc="FN-UCB theory",
                           fn=run_theory_cell)
    by_key = dict(zip(uniq, results))
    rows, curves, alpha, cover, linear = [], [], [], [], []
    for (g, cfg, rep), k in zip(flat, keys):
        res = by_key[k]
        a, meta = res["arrays"], res["meta"]
        if g == "E14":
            linear.append({"m": cfg["m"], "rep": rep, **{c: meta[c] for c in ("err", "err_lin", "err_opt", "scale",
                                                                                "dist_ratio", "steps", "p0")}})
            continue
        if g == "E8":
            alpha += [{"rep": rep, "t": int(t), "alpha": float(v)} for t, v in zip(a["alpha_t"], a["alpha"])]
        if g == "E12":
            cover.append({"nu": cfg["params"]["nu_a"], "rep": rep, "coverage": float(np.mean(a["cover"])),
                          "coverage_abs": float(np.mean(a["cover_abs"])), "width_T": float(a["width"][-1])})
        N, T, D = cfg["N"], cfg["T"], cfg["params"].get("D", 0.0)
        R = np.cumsum(np.asarray(a["regret"])) / N
        pot = np.asarray(a["potential"], dtype=float)
        rt = np.asarray(meta["info"]["round_times"], dtype=int)
        R_emp = float(math.ceil(meta["final"]["potential_diag"]))
        row = {"check": g, "algorithm": cfg["algorithm"], "N": N, "D": D, "rep": rep, "T": T, "R_T": float(R[-1]),
               "rounds": int(meta["info"]["n_rounds"]), "R_emp": R_emp, "p0": meta["final"]["p0"],
               "potential_exact": meta["final"].get("potential_exact", np.nan),
               "nu_a": cfg["params"]["nu_a"]}
        if D > 0:
            zeta, bound = round_bound(T, D, R_emp)
            inc = np.diff(np.r_[0.0, pot])
            row.update(zeta=zeta, bound=bound, bad_epochs=int(np.sum(inc > 1.0)))
        rows.append(row)
        if g in ("E3", "E3a"):
            stride = p["stride"]
            keep = np.unique(np.r_[np.arange(stride - 1, T, stride), T - 1])
            pt = np.full(T, np.nan)
            if pot.size:
                idx = np.searchsorted(rt, np.arange(T), side="right") - 1  # last round at or before t
                pt = np.where(idx >= 0, pot[np.clip(idx, 0, None)], 0.0)
            curves.append(pd.DataFrame({"check": g, "algorithm": cfg["algorithm"], "N": N, "rep": rep,
                                        "t": keep + 1, "regret": R[keep], "potential": pt[keep]}))
    return TheoryResults(p, pd.DataFrame(rows), pd.concat(curves, ignore_index=True), stats.cached, stats.computed,
                         pd.DataFrame(alpha, columns=["rep", "t", "alpha"]),
                         pd.DataFrame(cover, columns=["nu", "rep", "coverage", "coverage_abs", "width_T"]),
                         pd.DataFrame(linear, columns=["m", "rep", "err", "err_lin", "err_opt", "scale", "dist_ratio",
                                                       "steps", "p0"]))
