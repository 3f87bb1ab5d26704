r"""Single-agent baselines of FN-UCB's experiments (Dai et al. ICLR 2023, Sec. 5 and App. E).

The official code runs them with ``neural_ucb_ts.py`` of the authors' repository
daizhongxiang/Federated-Neural-Bandits (vendored ``NeuralTS/`` learners).

Every policy here runs ``N`` independent learners, one per agent, that never communicate (the
ledger stays empty); FN-UCB's figures run them with N = 1 and compare with FN-UCB's per-agent
average regret. Each agent has its own ``numpy.random.Generator`` (spawned from the policy's
SeedSequence) for tie breaking (uniform among exact ties) and Thompson draws.

Width convention
----------------
All UCB widths and TS standard deviations are ``c · σ(x)`` with a posterior/NTK standard deviation
``σ(x)`` and a coefficient ``c`` from ``(λ, ν)``:

* ``width_form="paper"`` (default): ``c = ν √λ``, FN-UCB's own form (``ν_TKN √λ ‖φ(x)‖_{V⁻¹}``, Algo. 1
  line 5) and Neural TS's (Zhang et al. 2021: ``N(f, ν² λ gᵀU⁻¹g)``);
* ``width_form="official"``: ``c = √(λν)``, the vendored ``NeuralTS`` code (``sqrt(λ·ν·gᵀU⁻¹g)``).
  Its ν = 0.01 with λ = 0.1 gives ``c = 0.0316 = 0.1·√0.1``, the paper's ν = 0.1 in the paper form,
  so the paper's "same set of parameters" for all methods (Sec. 5.1, Sec. 5.2) and the code agree
  (the code's ν = 0.01 for Neural UCB/TS is in ``neural_ucb_ts.py``, not in the paper).

Neural UCB (Zhou et al. 2020) and Neural TS (Zhang et al. 2021), as the official code runs them
-------------------------------------------------------------------------------------------------
(the official code's ``NeuralTSDiag`` in ``NeuralTS/learner_diag.py``, with ``style="ucb"|"ts"``;
the paper names the baselines only, Sec. 5). Agent i has its own network
θ (its own random init), the gradient features at the **current** parameters
``g(x) = ∇_θ f(x; θ_t)`` (:meth:`bandits.neural.MLP.features`), and ``U = λI + Σ_s g_s g_sᵀ``::

    σ²(x) = g(x)ᵀ U⁻¹ g(x)                        (diag: Σ_j g_j(x)² / U_jj)
    UCB:  x_t = argmax_x f(x; θ_t) + c σ(x)
    TS:   x_t = argmax_x r̃(x),   r̃(x) ~ N(f(x; θ_t), c² σ²(x)) independently per arm
    U ← U + g(x_t) g(x_t)ᵀ      (Sherman–Morrison on U⁻¹, O(p0²); diag: U_jj += g_j²)

then ``(x_t, y_t)`` joins the agent's data and, while ``t < stop_train_after`` (2000, 0-based; App. E
"we stop training the NNs after 2000 iterations"), the network takes ``train_steps`` (30)
full-batch gradient steps of lr 0.01 on all its data, warm-started from its current parameters
(App. E, "following Zhang et al. 2021; Zhou et al. 2020") through
:func:`bandits.neural.train_full_batch`. ``U`` keeps being updated after training stops (the code:
the update sits in ``select``). The network parametrisation, feature scaling and loss are the same
options as FN-UCB's (:mod:`bandits.algorithms.fn_ucb`), with the same defaults: ``init="official"``
(N(0,1) weights and biases), ``feature_scale="raw"`` (g, not g/√m), ``objective="official"`` (mean
squared error + weight decay λ/n towards 0), because the paper's published λ, ν were tuned for them
(Sec. 5, App. E; the official code's network, ``NeuralTS/learner_diag.py``, not App. B's);
``init="ntk"``, ``feature_scale="sqrt_m"``, ``objective="paper"`` give Zhou et
al.'s parametrisation (NTK init, ``g/√m``, ``½Σ(f − y)² + ½mλ‖θ − θ0‖²``). ``diag=True`` keeps only
the diagonal of U (the ``_diag`` runs of Fig. 2c, m = 50). The N agents are batched: one (N, p0)
parameter tensor, one (N, p0, p0) array of inverses, one batched training call per step. On block
contexts (the classification bandits: the row in its arm's block) the features vanish off the block's
support, so ``σ²`` and the Sherman–Morrison vector ``U⁻¹g`` are computed on it
(:func:`bandits.neural.feature_blocks`; FN-UCB's module docstring, "Block contexts"): the same to round-off.

Linear UCB / Linear TS (Abbasi-Yadkori et al. 2011; Agrawal & Goyal 2013; App. E: λ = 1, ν ∈ {1, 0.1, 0.01}; Fig. 4)
---------------------------------------------------------------------------------------------------------------------
On the raw contexts, with the package's ridge core (:class:`~bandits.algorithms.linear.LinUCBAgent`,
Sherman–Morrison inverse)::

    A = λI + Σ x xᵀ,   θ̂ = A⁻¹ Σ y x,   σ²(x) = xᵀA⁻¹x
    UCB:  xᵀθ̂ + c σ(x)            (``official_variance_width=True``: xᵀθ̂ + c σ²(x), the vendored bug)
    TS:   θ̃ = θ̂ + c L⁻ᵀ z,  z ~ N(0, I_d),  A = L Lᵀ   ⇒ θ̃ ~ N(θ̂, c² A⁻¹);  score xᵀθ̃

The Cholesky factor L of A is kept by rank-one updates (:func:`bandits.linalg.chol_rank1_update`).

Kernel UCB / Kernel TS (Valko et al. 2013; Chowdhury & Gopalan 2017; App. E, Fig. 4)
-------------------------------------------------------------------------------------
The package's exact kernel core (:class:`~bandits.algorithms.kernel_ucb.KernelUCBAgent`, incremental
Cholesky, GP scale)::

    μ(x) = k_xᵀ (K + λI)⁻¹ y,   σ²(x) = k(x, x) − k_xᵀ (K + λI)⁻¹ k_x
    UCB:  μ(x) + c σ(x);   TS:  r̃(x) ~ N(μ(x), c² σ²(x)) independently per arm

with the code's kernel, the Laplacian ``exp(−‖x − x'‖)`` (Matérn ν = 1/2, ℓ = 1; the code imports
the RBF but does not use it); the code's variance ``λν(1 − k_xᵀ(K + λI)⁻¹k_x)`` is ``c² σ²`` in the
official form.

Updates of the linear and kernel baselines stop after ``stop_update_after`` = 2000 steps (the
official script stops calling ``train()`` at t = 2000; the paper says nothing about these baselines;
``None`` never stops), and the kernel baselines keep at most ``max_history`` = 1000 observations
(the code's cap; ``None``: no cap). Both are the code's choices where the paper is silent.
"""
from __future__ import annotations

import importlib

import numpy as np

from ..comm import CommLedger
from ..kernels import make_kernel
from ..linalg import chol_rank1_update
from ..sim import Policy
from .fn_ucb import sherman_morrison_inplace
from .kernel_ucb import KernelUCBAgent, argmax_ties
from .linear import LinUCBAgent
from ..validation import check, ge, gt, one_of, optional, rule

__all__ = [
    "WIDTH_FORMS",
    "STYLES",
    "width_coefficient",
    "NeuralBandit",
    "NeuralUCB",
    "NeuralTS",
    "NeuralUCBDiag",
    "NeuralTSDiag",
    "LinearBandit",
    "LinearUCB",
    "LinearTS",
    "KernelBandit",
    "KernelUCBFN",
    "KernelTS",
]

WIDTH_FORMS = ("paper", "official")
STYLES = ("ucb", "ts")
LAPLACIAN = {"name": "matern", "nu": 0.5, "lengthscale": 1.0}


def width_coefficient(lam: float, nu: float, width_form: str = "paper") -> float:
    """``c = ν √λ`` ("paper") or ``√(λν)`` ("official"); see the module docstring."""
    check("width_form", width_form, one_of(*WIDTH_FORMS))
    check("lam", lam, gt(0))
    check("nu", nu, ge(0))
    return float(nu * np.sqrt(lam)) if width_form == "paper" else float(np.sqrt(lam * nu))


def _check_stop(name, value):
    check(name, value, optional(rule(lambda v: int(v) >= 0, ">= 0")))
    return None if value is None else int(value)


def _decision_sets(arms, n_active: int) -> np.ndarray:
    """(n_active, K, d) from an :class:`~bandits.envs.base.Arms`."""
    X = np.asarray(arms.X, dtype=float)
    return np.broadcast_to(X, (n_active,) + X.shape) if arms.shared else X


# ------------------------------------------------------------------------------------- neural
class _Preset:
    """Named variants of a baseline: the keyword arguments in the class attribute ``preset`` are set
    unless the caller passes them (``NeuralUCB`` = ``NeuralBandit(style="ucb")``, and so on)."""

    preset: dict = {}

    def __init__(self, *args, **kwargs):
        for k, v in self.preset.items():
            kwargs.setdefault(k, v)
        super().__init__(*args, **kwargs)


class NeuralBandit(Policy):
    """Neural UCB / Neural TS, N independent batched agents (module docstring).

    Args:
        n_agents, horizon, dim, seed, ledger: see :class:`bandits.sim.Policy`.
        style: "ucb" (Neural UCB) or "ts" (Neural TS).
        width, depth: the MLP (m = 20, one hidden layer; m = 50 for the diagonal Fig. 2c runs).
        lam: λ (0.1 synthetic, 10 real data). nu: ν (0.1 in the paper form).
        width_form: "paper" (c = ν√λ) or "official" (c = √(λν), with the code's ν = 0.01).
        diag: keep only the diagonal of U.
        init, feature_scale, objective: the network's parametrisation (:mod:`bandits.neural`).
        train_steps, lr: local training per step (30, 0.01). stop_train_after: last training step + 1.
        device: torch device of the networks ("auto": CUDA when present). grad_method: per-sample
            gradient route ("auto": the closed form for one hidden layer; on the CPU with one hidden
            layer the features are computed in numpy, :meth:`bandits.neural.MLP.features_numpy`).
        nn_dtype: the networks' dtype, "float64" (default) or "float32" (the official code's; faster
            training, results close but not equal to round-off). U⁻¹ is float64 either way.
    """

    name = "NeuralBandit"

    def __init__(self, n_agents, horizon, dim, seed, ledger: CommLedger, *, style="ucb", width=20, depth=1,
                 lam=0.1, nu=0.1, width_form="paper", diag=False, init="official", feature_scale="raw",
                 objective="official", train_steps=30, lr=0.01, stop_train_after=2000, device="auto",
                 grad_method="auto", tie_break="random", nn_dtype="float64"):
        super().__init__(n_agents, horizon, dim, seed, ledger)
        check("style", style, one_of(*STYLES))
        check("tie_break", tie_break, one_of("random", "first"))
        check("nn_dtype", nn_dtype, one_of("float64", "float32"))
        self.c = width_coefficient(lam, nu, width_form)
        self.style, self.lam, self.diag, self.tie_break = style, float(lam), bool(diag), tie_break
        self.stop_train_after = _check_stop("stop_train_after", stop_train_after)
        nn = importlib.import_module("bandits.neural")
        torch = importlib.import_module("torch")
        self._nn, self._torch = nn, torch
        check("feature_scale", feature_scale, one_of(*nn.FEATURE_SCALES))
        check("grad_method", grad_method, one_of(*nn.GRAD_METHODS))
        self.feature_scale, self.grad_method = feature_scale, grad_method
        self.mlp = nn.MLP(dim, width, depth, init, dtype=getattr(torch, nn_dtype), device=device)
        self.train_cfg = nn.TrainConfig(steps=train_steps, lr=lr, lam=lam, objective=objective)
        N, T, p0 = self.N, self.T, self.mlp.p0
        self.p0 = p0
        self.rngs, inits = [], []
        for child in seed.spawn(N):
            rng_ss, init_ss = child.spawn(2)
            self.rngs.append(np.random.default_rng(rng_ss))
            inits.append(self.mlp.init_params(init_ss))
        self.theta0 = torch.stack(inits)  # (N, p0): every agent's own initialisation
        self.theta = self.theta0.clone()
        if self.diag:
            self.U_diag = np.full((N, p0), self.lam)
        else:
            self.Uinv = np.repeat((np.eye(p0) / self.lam)[None], N, axis=0)
        self._X = torch.zeros((N, T, dim), dtype=self.mlp.dtype, device=self.mlp.device)
        self._y = torch.zeros((N, T), dtype=self.mlp.dtype, device=self.mlp.device)
        self.n_obs = np.zeros(N, dtype=np.int64)
        self._g = np.zeros((N, p0))
        self._blocks = None  # (block width, the contexts' blocks) at the last _predict, block contexts only
        self._g_block = np.full(N, -1)  # the chosen context's block (−1: dense products)
        self._g_width = None
        self.n_train_calls = 0

    # -- scores -------------------------------------------------------------------------------
    def _predict(self, agents: np.ndarray, X: np.ndarray):
        """f (B, K) and σ² (B, K) of the active agents at their current parameters; G (B, K, p0)."""
        nn, mlp = self._nn, self.mlp
        every = len(agents) == self.N and np.array_equal(agents, np.arange(self.N))
        th = self.theta if every else self.theta.index_select(0, self._torch.as_tensor(agents, device=mlp.device))
        if self.grad_method == "func" or not mlp._numpy_ok(th):
            Xt = nn.to_tensor(X, mlp.device, mlp.dtype)
            f = nn.to_numpy(mlp.forward(th, Xt)).astype(np.float64, copy=False)
            G = nn.to_numpy(mlp.features(th, Xt, self.feature_scale, self.grad_method)).astype(np.float64, copy=False)
        else:  # one hidden layer on the CPU: the closed form in numpy (no per-call torch overhead)
            f = mlp.forward_numpy(th, X)
            G = mlp.features_numpy(th, X, self.feature_scale)
        if self.diag:
            var = np.einsum("bkp,bp->bk", G * G, 1.0 / self.U_diag[agents])
        else:
            fb = nn.feature_blocks(mlp, X)
            self._blocks = fb
            if fb is None:
                U = self.Uinv if every else self.Uinv[agents]  # no copy of the N inverses when all act
                var = np.einsum("bkp,bkp->bk", np.matmul(G, U), G)
            else:  # block contexts: φᵀU⁻¹φ = φ_Sᵀ U⁻¹[S, S] φ_S on each context's feature support S
                w, blk = fb
                var = np.empty(G.shape[:2])
                for b, i in enumerate(agents):
                    for a in np.unique(blk[b]):
                        rows = np.flatnonzero(blk[b] == a)
                        Ps = mlp.support_cols(G[b, rows], a, w)
                        var[b, rows] = np.einsum("kp,kp->k", Ps @ mlp.support_square(self.Uinv[i], a, w), Ps)
        return f, np.maximum(var, 0.0), G

    def select(self, t, agents, arms):
        agents = np.asarray(agents)
        X = _decision_sets(arms, len(agents))
        f, var, G = self._predict(agents, X)
        if not (np.isfinite(f).all() and np.isfinite(var).all()):
            cfg = self.train_cfg
            raise FloatingPointError(
                f"{self.name} scores are not finite at t={t}: the network diverged during training "
                + cfg.divergence_advice())
        sd = self.c * np.sqrt(var)
        out = np.empty(len(agents), dtype=np.int64)
        for b, i in enumerate(agents):
            rng = self.rngs[i]
            score = f[b] + sd[b] if self.style == "ucb" else f[b] + sd[b] * rng.standard_normal(f.shape[1])
            out[b] = argmax_ties(score, rng, self.tie_break)
            self._g[i] = G[b, out[b]]
            if not self.diag:
                self._g_block[i] = -1 if self._blocks is None else self._blocks[1][b, out[b]]
                self._g_width = None if self._blocks is None else self._blocks[0]
        return out

    # -- updates ------------------------------------------------------------------------------
    def update(self, t, agents, arms, choices, rewards):
        agents = np.asarray(agents)
        X = _decision_sets(arms, len(agents))
        for b, i in enumerate(agents):
            g = self._g[i]
            if self.diag:
                self.U_diag[i] += g * g
            elif self._g_block[i] < 0:
                sherman_morrison_inplace(self.Uinv[i], g)
            else:  # u = U⁻¹g on g's feature support (block contexts, _predict)
                u = self.mlp.support_matvec(self.Uinv[i], g, int(self._g_block[i]), self._g_width)
                sherman_morrison_inplace(self.Uinv[i], g, u)
            n = self.n_obs[i]
            if self._X.device.type == "cpu":  # numpy views of the CPU buffers
                self._X.numpy()[i, n] = X[b, choices[b]]
                self._y.numpy()[i, n] = float(rewards[b])
            else:
                self._X[i, n] = self._nn.to_tensor(X[b, choices[b]], self.mlp.device, self.mlp.dtype)
                self._y[i, n] = float(rewards[b])
            self.n_obs[i] = n + 1
        if self.stop_train_after is None or t < self.stop_train_after:
            self._train(agents)

    def _train(self, agents: np.ndarray) -> None:
        """One training call (``train_steps`` full-batch steps) for every active agent, batched over
        agents with the same number of observations (all of them under a synchronous schedule)."""
        for n in np.unique(self.n_obs[agents]):
            grp = agents[self.n_obs[agents] == n]
            if len(grp) == self.N and np.array_equal(grp, np.arange(self.N)):
                self._nn.train_full_batch(self.mlp, self.theta, self._X[:, :n], self._y[:, :n], self.train_cfg,
                                          theta0=self.theta0, method=self.grad_method)
            else:
                idx = self._torch.as_tensor(grp, device=self.mlp.device)
                th = self.theta.index_select(0, idx).clone()
                self._nn.train_full_batch(self.mlp, th, self._X.index_select(0, idx)[:, :n],
                                          self._y.index_select(0, idx)[:, :n], self.train_cfg,
                                          theta0=self.theta0.index_select(0, idx), method=self.grad_method)
                self.theta[idx] = th
        self.n_train_calls += 1

    def info(self):
        return {"p0": int(self.p0), "n_train_calls": int(self.n_train_calls), "width_coefficient": self.c,
                "diag": self.diag}


class NeuralUCB(_Preset, NeuralBandit):
    """Neural UCB (Zhou et al. 2020) as the FN-UCB code runs it; full U."""

    name = "NeuralUCB"
    preset = {"style": "ucb"}


class NeuralTS(_Preset, NeuralBandit):
    """Neural TS (Zhang et al. 2021) as the FN-UCB code runs it; full U."""

    name = "NeuralTS"
    preset = {"style": "ts"}


class NeuralUCBDiag(NeuralUCB):
    """Neural UCB with the diagonal of U only (Fig. 2c baselines)."""

    name = "NeuralUCB [diag]"
    preset = {**NeuralUCB.preset, "diag": True}


class NeuralTSDiag(NeuralTS):
    """Neural TS with the diagonal of U only (Fig. 2c baselines)."""

    name = "NeuralTS [diag]"
    preset = {**NeuralTS.preset, "diag": True}


# ------------------------------------------------------------------------------------- linear
class LinearBandit(Policy):
    """Linear UCB / Linear TS, N independent agents on the raw contexts (module docstring).

    Args:
        style: "ucb" or "ts". lam: λ (1 in App. E). nu: ν (grid {1, 0.1, 0.01}).
        width_form: "paper" (c = ν√λ) or "official" (c = √(λν)).
        official_variance_width: UCB width ``c·xᵀA⁻¹x`` instead of ``c·‖x‖_{A⁻¹}`` (the vendored bug).
        stop_update_after: no updates from this step on (2000, the code; None: never stop).
    """

    name = "LinearBandit"

    def __init__(self, n_agents, horizon, dim, seed, ledger: CommLedger, *, style="ucb", lam=1.0, nu=0.1,
                 width_form="paper", official_variance_width=False, stop_update_after=2000, tie_break="random"):
        super().__init__(n_agents, horizon, dim, seed, ledger)
        check("style", style, one_of(*STYLES))
        check("tie_break", tie_break, one_of("random", "first"))
        self.style, self.lam = style, float(lam)
        self.c = width_coefficient(lam, nu, width_form)
        self.official_variance_width = bool(official_variance_width)
        self.stop_update_after = _check_stop("stop_update_after", stop_update_after)
        self.agents = [LinUCBAgent(dim, lam, self.c, np.random.default_rng(s), tie_break) for s in seed.spawn(self.N)]
        self.chol = [np.sqrt(self.lam) * np.eye(dim) for _ in range(self.N)] if style == "ts" else None

    def scores(self, i: int, X: np.ndarray) -> np.ndarray:
        """Agent i's scores of the rows of X (K, d); a TS score draws from the agent's generator."""
        ag = self.agents[i]
        if self.style == "ucb":
            if not self.official_variance_width:
                return ag.scores(X)
            mu, w2 = ag.ridge.predict(X)
            return mu + self.c * np.maximum(w2, 0.0)
        from scipy.linalg import solve_triangular

        z = ag.rng.standard_normal(self.d)
        theta = ag.theta + self.c * solve_triangular(self.chol[i], z, lower=True, trans="T")
        return X @ theta

    def select(self, t, agents, arms):
        X = _decision_sets(arms, len(agents))
        return np.array([argmax_ties(self.scores(i, X[b]), self.agents[i].rng, self.agents[i].tie_break)
                         for b, i in enumerate(agents)], dtype=np.int64)

    def update(self, t, agents, arms, choices, rewards):
        if self.stop_update_after is not None and t >= self.stop_update_after:
            return
        X = _decision_sets(arms, len(agents))
        for b, i in enumerate(agents):
            x = X[b, choices[b]]
            self.agents[i].observe(x, float(rewards[b]))
            if self.chol is not None:
                self.chol[i] = chol_rank1_update(self.chol[i], x)

    def info(self):
        return {"n_obs": [int(a.ridge.n) for a in self.agents], "width_coefficient": self.c}


class LinearUCB(_Preset, LinearBandit):
    name = "LinearUCB"
    preset = {"style": "ucb"}


class LinearTS(_Preset, LinearBandit):
    name = "LinearTS"
    preset = {"style": "ts"}


# ------------------------------------------------------------------------------------- kernel
class KernelBandit(Policy):
    """Kernel UCB / Kernel TS, N independent agents on the raw contexts (module docstring).

    Args:
        style: "ucb" or "ts". lam: λ (1 in App. E). nu: ν (grid {1, 0.1, 0.01}).
        width_form: "paper" (c = ν√λ) or "official" (c = √(λν)).
        kernel: kernel spec (default the code's Laplacian, Matérn-1/2 with ℓ = 1).
        max_history: observations kept per agent (1000, the code; None: all).
        stop_update_after: no updates from this step on (2000, the code; None: never stop).
        device: "cpu" (numpy) or "torch-cpu" / "cuda" / "auto" for the kernel core's torch path.
    """

    name = "KernelBandit"

    def __init__(self, n_agents, horizon, dim, seed, ledger: CommLedger, *, style="ucb", lam=1.0, nu=0.1,
                 width_form="paper", kernel=None, max_history=1000, stop_update_after=2000, device="cpu",
                 tie_break="random"):
        super().__init__(n_agents, horizon, dim, seed, ledger)
        check("style", style, one_of(*STYLES))
        check("tie_break", tie_break, one_of("random", "first"))
        self.style, self.lam = style, float(lam)
        self.c = width_coefficient(lam, nu, width_form)
        self.max_history = _check_stop("max_history", max_history)
        self.stop_update_after = _check_stop("stop_update_after", stop_update_after)
        k = make_kernel(LAPLACIAN if kernel is None else kernel)
        self.agents = [KernelUCBAgent(k, lam, self.c, dim, np.random.default_rng(s), variance_scale="gp",
                                      tie_break=tie_break, device=device) for s in seed.spawn(self.N)]
        self.n_obs = np.zeros(self.N, dtype=np.int64)

    def scores(self, i: int, X: np.ndarray) -> np.ndarray:
        ag = self.agents[i]
        if self.style == "ucb":
            return ag.scores(X, None)
        if ag.gp is None:
            ag.scores(X, None)  # builds the agent's exact GP core
        mu, var = ag.gp.predict(X)
        return mu + self.c * np.sqrt(np.maximum(var, 0.0)) * ag.rng.standard_normal(X.shape[0])

    def select(self, t, agents, arms):
        X = _decision_sets(arms, len(agents))
        return np.array([argmax_ties(self.scores(i, X[b]), self.agents[i].rng, self.agents[i].tie_break)
                         for b, i in enumerate(agents)], dtype=np.int64)

    def update(self, t, agents, arms, choices, rewards):
        if self.stop_update_after is not None and t >= self.stop_update_after:
            return
        X = _decision_sets(arms, len(agents))
        for b, i in enumerate(agents):
            if self.max_history is not None and self.n_obs[i] >= self.max_history:
                continue
            self.agents[i].observe(np.ascontiguousarray(X[b]), None, int(choices[b]), float(rewards[b]))
            self.n_obs[i] += 1

    def info(self):
        return {"n_obs": self.n_obs.tolist(), "width_coefficient": self.c}


class KernelUCBFN(_Preset, KernelBandit):
    """Kernel UCB as in FN-UCB's Fig. 4 (the code's Laplacian kernel, 1000-point cap)."""

    name = "KernelUCB (FN)"
    preset = {"style": "ucb"}


class KernelTS(_Preset, KernelBandit):
    """Kernel TS as in FN-UCB's Fig. 4 (independent per-arm draws, as the code)."""

    name = "KernelTS"
    preset = {"style": "ts"}
