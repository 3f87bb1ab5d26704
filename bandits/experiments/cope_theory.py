r"""CoPE-KB theorem checks beside the figures' (:mod:`bandits.experiments.cope_kb`): C7 (the three bounds of
Corollary 1), C9 (a nonlinear RKHS instance) and Peace's Gaussian-width complexity beside the ω
proxy (Peace is the baseline IndPeaceFB of App. A, after Katz-Samuels et al., 2020; the CoPE-KB
paper does not restate its complexity).

Every check and its threshold is fixed here, before any run; the notebook ``cope_theory`` calls
:func:`c7_table`, :func:`peace_width_table`, :func:`run_c9` and the claims of
:mod:`bandits.experiments.cope_theory_claims` (:func:`~bandits.experiments.cope_theory_claims.c7_claims`,
:func:`~bandits.experiments.cope_theory_claims.peace_claims`, :func:`~bandits.experiments.cope_theory_claims.c9_claims`).

**C7 (Corollary 1, App. D.2).** With the hardness

.. math::

    \rho^*(\xi) = \min_{\lambda\in\Delta(\tilde{\mathcal X})}\max_{v,\,x\in\tilde{\mathcal X}_v
    \setminus x_{v,*}} \frac{\|\phi(x_{v,*})-\phi(x)\|^2_{A(\xi,\lambda)^{-1}}}{(F(x_{v,*})-F(x))^2},

(an XY design with targets :math:`(\phi(x_{v,*})-\phi(x))/\text{gap}`,
:func:`bandits.design.kernel_xy_optimal_design`), :math:`\Upsilon=\max_\lambda\log\det(I+\xi^{-1}
K_\lambda)` and its maximiser :math:`\lambda^*` (:func:`bandits.design.max_information_gain`),
:math:`d_{\rm eff}` (:func:`bandits.design.effective_dimension`) and
:math:`K_{\mathcal X,\lambda^*} = [\sqrt{\lambda^*_i\lambda^*_j}k_{\mathcal X}(x_i,x_j)]`, the
proof of Corollary 1 shows

* (a) Eq. (16): :math:`\rho^*(\xi)\le 8\Upsilon/\Delta_{\min}^2`;
* (b) Eq. (17): :math:`\rho^*(\xi)\le \frac{8}{\Delta_{\min}^2} d_{\rm eff}\log\big(2nV(1+
  \operatorname{Tr}(K_{\lambda^*})/(\xi d_{\rm eff}))\big)`;
* (c) Eq. (18): :math:`\rho^*(\xi)\le \frac{8}{\Delta_{\min}^2}\operatorname{rank}(K_Z)
  \operatorname{rank}(K_{\mathcal X,\lambda^*})\log\big(\operatorname{Tr}(I+\xi^{-1}K_{\lambda^*})/
  \operatorname{rank}(K_{\lambda^*})\big)`.

The check computes both sides on the three similarity cases (and the C9 instances) and PASSes a
bound when the certified upper end of :math:`\rho^*` (the XY solver's value) lies below the bound
evaluated at the certified *lower* end of Υ (D-design value; Υ's duality gap is reported); the
interval shown is the certified range of the smallest slack bound/ρ*.  **Weak by construction**:
the bounds are proved inequalities with slack 17-100x on these instances, so the check can only
catch an implementation error (wrong gap normalisation, a Υ off by a factor), not test the paper.
Ranks are numerical (``numpy.linalg.matrix_rank``, default tolerance); (b) and (c) are evaluated
at the returned λ* (Newton D-design, duality gap < 1e-8), not the exact maximiser.

**Peace's Gaussian width (Katz-Samuels et al., 2020; IndPeaceFB, App. A).** :math:`\gamma(\mathcal Z)=\inf_\lambda(\mathbb E\sup_{z\in
\mathcal Z}z^\top A(\xi,\lambda)^{-1/2}\eta)^2` over the agent's own arms, designed as the official
code does (:func:`bandits.design.gaussian_width_design`: Adam, 500 steps, 1000 draws) from the ω
design, and re-estimated on 20000 fresh draws; the sup is taken after centring Z at its mean (same
expectation, smaller variance; the official uncentred objective lets Adam exploit its fixed draws,
see :func:`bandits.design.gaussian_width`); γ̂ is the smaller width of the Adam design and its
start (both are upper estimates of the infimum).  Reported beside ω(ξ, ·) for the sorted prefixes
(best first) of one agent's arms, with the two numbers of rounds, ⌈max(log2 γ, 2)⌉ (official) and
⌈log2 ω⌉ (the ω variant, this companion's default: a choice of this package, mirroring Line 2 of
CoKernelFB's Algorithm 2, App. C.4, so that IndPeaceFB differs from CoKernelFB by collaboration only).  Check, fixed in advance:
:math:`\omega/(2\pi)\le\gamma\le 2\log|\mathcal Z|\cdot\omega` for every prefix (for any λ,
:math:`\mathbb E\sup_z X_z\ge\frac12\mathbb E|X_a-X_b|=\|a-b\|_{A^{-1}}/\sqrt{2\pi}`; at the ω
design, the Gaussian maximal inequality gives the upper end; for two arms γ = ω/(2π) exactly).
**Weak by construction**: a mathematical sandwich, it checks the Monte-Carlo implementation, not a
claim of either paper.

**C9 (nonlinear RKHS; a check of this package, not in the paper, which has no nonlinear experiment).** See :func:`nonlinear_instance` and :func:`run_c9_cell`.
"""
from __future__ import annotations

import math

import numpy as np

from ..validation import ParameterError, between, check, ge, gt, one_of

__all__ = ["cope_theory_params", "hardness", "c7_row", "c7_table", "peace_width_table",
           "nonlinear_instance", "run_c9_cell", "c9_tasks", "run_c9"]

PAPER_CASES = (1, 2, 5)


def cope_theory_params(mode: str = "quick") -> dict:
    """Settings of C7, the Peace width and C9 (fixed before the runs).

    C7 and the Peace width are deterministic computations and cost seconds, so both modes use the
    same grids; C9 uses fewer random instances and runs in quick mode."""
    check("mode", mode, one_of("quick", "full"))
    full = dict(c7_deltas=[0.1, 0.2, 0.4, 0.8], c7_xis=[1e-6, 1e-2], peace_xi=1e-6, peace_delta=0.02,
                peace_draws=1000, peace_iter=500, peace_eval=20000,
                c9_ell_z=[0.1, 1.0, 10.0], c9_instances=20, c9_runs=3, c9_V=5, c9_n=6, c9_ell_x=0.3,
                c9_delta_min=0.05, c9_xi=1e-6)
    quick = dict(full, c9_instances=8, c9_runs=2)  # 4 instances (a first preview) gave an interval touching 0
    return full if mode == "full" else quick


# ----------------------------------------------------------------------------------------- C7
def hardness(instance, xi: float, **kwargs):
    r""":math:`\rho^*(\xi)` of Theorem 1 (the gap-normalised XY design over all nV pairs).

    Args:
        instance: a :class:`bandits.envs.cope.PEInstance` (V agents, n arms; uses ``F`` for the gaps).
        xi: ridge ξ > 0.

    Returns:
        the :class:`bandits.design.DesignResult` (``value`` ≥ ρ*(ξ) ≥ ``bound``).
    """
    from ..design import kernel_xy_optimal_design

    F = np.asarray(instance.F, dtype=float)
    V, n = F.shape
    best = np.argmax(F, axis=1)
    rows = []
    for v in range(V):
        for i in range(n):
            if i == best[v]:
                continue
            c = np.zeros(V * n)
            c[v * n + best[v]], c[v * n + i] = 1.0, -1.0
            rows.append(c / (F[v, best[v]] - F[v, i]))
    return kernel_xy_optimal_design(instance.gram(), np.array(rows), xi, **kwargs)


def _task_and_arm_grams(instance):
    """(K_Z (V×V), K̃_Z (nV×nV), K_X over the nV pairs) of a product-kernel instance."""
    kern = instance.kernel
    s = kern.split
    Z = np.asarray(instance.Z, dtype=float)
    X = np.asarray(instance.inputs, dtype=float)[:, s:]
    KZ = kern.k_first(Z, Z)
    KX = kern.k_second(X, X)
    rep = np.repeat(np.arange(instance.V), instance.n)
    return KZ, KZ[np.ix_(rep, rep)], KX


def c7_row(instance, xi: float, label: str = "") -> dict:
    """Both sides of Corollary 1 (a)-(c) on one instance (see the module docstring)."""
    from ..design import effective_dimension, max_information_gain

    V, n = instance.V, instance.n
    dmin = instance.delta_min
    rho = hardness(instance, xi)
    ups, dres = max_information_gain(instance.gram(), xi)
    lam = np.clip(dres.weights, 0.0, None)
    lam = lam / lam.sum()
    G = instance.gram()
    sq = np.sqrt(lam)
    Kl = sq[:, None] * G * sq[None, :]
    KZ, _, KX = _task_and_arm_grams(instance)
    KXl = sq[:, None] * KX * sq[None, :]
    d_eff = effective_dimension(G, lam, xi)
    tr = float(np.trace(Kl))
    rank_kz, rank_kxl, rank_kl = (int(np.linalg.matrix_rank(M, hermitian=True)) for M in (KZ, KXl, Kl))
    c = 8.0 / dmin ** 2
    ups_lo, ups_hi = ups, ups + dres.gap
    b_a_lo, b_a_hi = c * ups_lo, c * ups_hi
    b_b = c * d_eff * math.log(2 * n * V * (1 + tr / (xi * d_eff))) if d_eff > 0 else float("nan")
    b_c = c * rank_kz * rank_kxl * math.log((Kl.shape[0] + tr / xi) / rank_kl)
    return {"instance": label or instance.name, "xi": xi, "delta_min": dmin, "rho_star": rho.value,
            "rho_lo": max(rho.bound, 0.0), "upsilon": ups_lo, "upsilon_gap": float(dres.gap), "d_eff": d_eff,
            "rank_KZ": rank_kz, "rank_KX_lam": rank_kxl, "rank_K_lam": rank_kl, "trace_K_lam": tr,
            "bound_a": b_a_lo, "bound_a_hi": b_a_hi, "bound_b": b_b, "bound_c": b_c,
            "slack_a": b_a_lo / rho.value, "slack_b": b_b / rho.value, "slack_c": b_c / rho.value,
            "hadamard_rank_ok": rank_kl <= rank_kz * rank_kxl}


def c7_table(tp: dict, extra_instances=()):
    """C7 on the paper's three cases × ``c7_deltas`` × ``c7_xis`` (plus ``extra_instances``:
    ``(label, instance)`` pairs, e.g. the C9 instances, at every ξ)."""
    import pandas as pd

    from ..envs.cope import cope_instance

    rows = []
    for xi in tp["c7_xis"]:
        for rank in PAPER_CASES:
            for dm in tp["c7_deltas"]:
                rows.append(dict(c7_row(cope_instance(rank, dm), xi, f"rank {rank}"), case=f"rank {rank}", delta=dm))
        for label, inst in extra_instances:
            rows.append(dict(c7_row(inst, xi, label), case=label.split("#")[0].strip(), delta=inst.delta_min))
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------- Peace width
def peace_width_table(tp: dict, seed: int = 0):
    """γ (Gaussian width, official form) beside ω for the best-first prefixes of one agent's arms
    on the paper's instance (rank 1, Δ_min = ``peace_delta``); rounds R under both."""
    import pandas as pd

    from ..algorithms.rage import agent_features, xy_value
    from ..design import design_norms, gaussian_width_design
    from ..envs.cope import cope_instance

    inst = cope_instance(1, tp["peace_delta"])
    Psi = agent_features(inst)[0]
    order = np.argsort(-inst.F[0], kind="stable")
    xi = tp["peace_xi"]
    rows = []
    ss = np.random.SeedSequence([int(seed), 13])
    for m, child in zip(range(2, inst.n + 1), ss.spawn(inst.n - 1)):
        S = np.sort(order[:m])
        lam_w, om = xy_value(Psi, S, xi)
        res = gaussian_width_design(Psi, Psi[S], xi, np.random.default_rng(child), weights0=lam_w,
                                    n_draws=tp["peace_draws"], n_iter=tp["peace_iter"], n_eval=tp["peace_eval"])
        start_better = res["start_width"] < res["width"]
        w = min(res["width"], res["start_width"])
        se = res["width_se"]
        lam = lam_w if start_better else res["weights"]
        # two arms: E max(X_a, X_b) = E X_a + ||a-b||_{A^-1}/sqrt(2 pi), so w(λ)² is known exactly
        exact = float(design_norms(Psi, lam, Psi[S[:1]] - Psi[S[1:2]], xi)[0]) / (2 * np.pi) if m == 2 else float("nan")
        rows.append({"prefix_size": m, "omega": om, "gamma": w * w, "gamma_lo": max(w - 1.96 * se, 0.0) ** 2,
                     "gamma_hi": (w + 1.96 * se) ** 2, "gamma_adam": res["gamma"],
                     "gamma_omega_design": res["start_width"] ** 2, "kept": "ω design" if start_better else "Adam",
                     "lower": om / (2 * np.pi), "upper": 2 * math.log(m) * om, "exact_two_arms": exact})
    t = pd.DataFrame(rows)
    full = t[t.prefix_size == inst.n].iloc[0]
    t.attrs["R_gamma"] = int(math.ceil(max(math.log2(full.gamma), 2)))
    t.attrs["R_omega"] = int(math.ceil(math.log2(full.omega)))
    return t


# ----------------------------------------------------------------------------------------- C9
def nonlinear_instance(ell_z: float, instance_seed: int, V: int = 5, n: int = 6, ell_x: float = 0.3,
                       delta_min: float = 0.05, n_centres: int = 10, max_tries: int = 10000):
    r"""A nonlinear RKHS instance (this package's check C9; not in the paper): the product kernel
    :math:`k((z,x),(z',x')) = k_Z(z,z')k_X(x,x')` with RBF :math:`k_Z` (lengthscale ``ell_z``) and
    RBF :math:`k_X` (lengthscale ``ell_x`` = 0.3, a choice of this package), and
    :math:`F = \sum_{m=1}^{10}\alpha_m k(\cdot, c_m)`, a member of the RKHS.

    Choices of this package (the paper has no such instance): the n = 6 arms are uniform in [0, 1]² and
    shared by all agents; the task features are evenly spaced, :math:`z_v = v/(V-1)`; the centres
    :math:`c_m` are uniform in [0, 1] × [0, 1]², :math:`\alpha_m\sim N(0,1)`; F is rescaled to
    :math:`\max|F| = 1`, the draw is repeated (same seed stream) until every agent's best arm is
    unique with gap ≥ ``delta_min``, and F is then scaled down so that Δ_min = ``delta_min`` exactly
    (the check asks for Δ_min ≥ 0.05, resampling otherwise; exact equality gives every ℓ_z the
    same gap scale, so the speedup ratios compare like with like).  rank(K_Z) is reported as the
    number of eigenvalues of K_Z above 1e-3 × the largest (the numerical rank at machine precision is
    V for every ℓ_z used here).
    Larger ``ell_z`` makes the tasks more similar: the numerical rank(K_Z) falls from V toward 1.

    Args:
        ell_z: task-kernel lengthscale > 0; instance_seed: seed of the draw (arms, centres, weights).
        V, n: agents and arms per agent; ell_x: arm-kernel lengthscale; delta_min: the least gap.

    Returns:
        a :class:`bandits.envs.cope.PEInstance` (``info`` holds the seed, the tries and ``ell_z``).
    """
    from ..envs.cope import PEInstance
    from ..kernels import RBF, Product

    check("ell_z", ell_z, gt(0))
    check("ell_x", ell_x, gt(0))
    check("V", int(V), ge(1))
    check("n", int(n), ge(2))
    check("delta_min", delta_min, between(0, 1))
    kern = Product(RBF(lengthscale=float(ell_z)), RBF(lengthscale=float(ell_x)), split=1)
    Z = (np.arange(V, dtype=float) / max(V - 1, 1))[:, None]
    rng = np.random.default_rng(np.random.SeedSequence([int(instance_seed), 9]))
    for tries in range(1, max_tries + 1):
        pts = rng.uniform(0.0, 1.0, (n, 2))
        X = np.repeat(pts[None], V, axis=0)
        centres = np.c_[rng.uniform(0.0, 1.0, (n_centres, 1)), rng.uniform(0.0, 1.0, (n_centres, 2))]
        alpha = rng.standard_normal(n_centres)
        inputs = np.concatenate([np.repeat(Z, n, axis=0), X.reshape(V * n, -1)], axis=1)
        F = (kern(inputs, centres) @ alpha).reshape(V, n)
        F = F / np.abs(F).max()
        srt = np.sort(F, axis=1)
        gap = float(np.min(srt[:, -1] - srt[:, -2]))
        if gap >= delta_min:
            F = F * (delta_min / gap)  # Δ_min = delta_min exactly: the same hardness scale for every ℓ_z
            return PEInstance(Z=Z, X=X, F=F, kernel=kern, name=f"RBF ell_z={ell_z:g} #{instance_seed}",
                              info={"ell_z": float(ell_z), "ell_x": float(ell_x), "instance_seed": int(instance_seed),
                                    "tries": tries, "delta_min_target": float(delta_min)})
    raise RuntimeError(f"no instance with gaps >= {delta_min} in {max_tries} draws")


def run_c9_cell(config: dict, seed: int, rep: int) -> dict:
    """One C9 run (a pure, module-level cell for ``runner.sweep(fn=run_c9_cell)``):
    ``config = {"instance": nonlinear_instance kwargs, "algorithm", "params", "max_rounds"}``;
    the runner's pure-exploration recipe (:func:`bandits.runner.run_pure_exploration_cell`, run streams
    from (seed, rep)) with :func:`nonlinear_instance` as its instance factory."""
    from ..runner import run_pure_exploration_cell

    return run_pure_exploration_cell(config, seed, rep, make_instance=_c9_instance)


def _c9_instance(spec: dict):
    return nonlinear_instance(**spec)


def c9_tasks(tp: dict, delta: float = 0.005, constants: str = "practical"):
    """(tasks, labels): ``c9_instances`` instances per ℓ_z (instance seeds 0..k-1, the same arms
    and weights draw for every ℓ_z), ``c9_runs`` runs each of CoKernelFC and IndRAGE (δ = 0.005,
    ξ = ``c9_xi``, ε = 0.1, the figures' constants)."""
    tasks, labels = [], []
    for ell in tp["c9_ell_z"]:
        for k in range(tp["c9_instances"]):
            inst = {"ell_z": float(ell), "instance_seed": k, "V": tp["c9_V"], "n": tp["c9_n"],
                    "ell_x": tp["c9_ell_x"], "delta_min": tp["c9_delta_min"]}
            for alg in ("CoKernelFC", "IndRAGE"):
                cfg = {"loop": "cope_c9", "instance": inst, "algorithm": alg,
                       "params": {"delta": delta, "xi": tp["c9_xi"], "eps": 0.1, "constants": constants},
                       "max_rounds": 64}
                for rep in range(tp["c9_runs"]):
                    tasks.append((cfg, rep))
                    labels.append({"ell_z": float(ell), "instance_seed": k, "method": alg, "rep": rep})
    return tasks, labels


def run_c9(tp: dict, seed: int = 0, n_jobs: int = 1, backend: str = "loky", cache_dir=None, progress: bool = True):
    """C9 runs through :func:`bandits.runner.sweep` with :func:`run_c9_cell`; one row per run
    (per-agent samples S, rounds, correctness) plus the instance's numerical rank(K_Z)."""
    import pandas as pd

    from ..runner import sweep

    tasks, labels = c9_tasks(tp)
    results, _ = sweep(tasks, seed, n_jobs=n_jobs, backend=backend, cache_dir=cache_dir, progress=progress,
                       desc="CoPE-KB C9", fn=run_c9_cell)
    ranks = {}
    rows = []
    for lab, res in zip(labels, results):
        m = res["meta"]
        key = (lab["ell_z"], lab["instance_seed"])
        if key not in ranks:
            inst = nonlinear_instance(**tasks[len(rows)][0]["instance"])
            KZ, _, _ = _task_and_arm_grams(inst)
            ev = np.linalg.eigvalsh(KZ)
            ranks[key] = int(np.sum(ev > 1e-3 * ev.max()))
        rows.append({**lab, "S": m["samples_per_agent"], "rounds": m["rounds"], "all_correct": m["all_correct"],
                     "rank_KZ": ranks[key]})
    return pd.DataFrame(rows)
