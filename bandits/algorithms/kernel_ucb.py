"""Single-agent kernel UCB (GP-UCB / IGP-UCB) and N independent copies (N-KernelUCB).

One agent's rule (Srinivas et al. 2010; Chowdhury & Gopalan 2017, IGP-UCB; Valko et al. 2013,
KernelUCB)::

    x_t = argmax_{x ∈ A_t}  μ_{t−1}(x) + β σ_{t−1}(x)

with the exact posterior of :mod:`bandits.estimators` (DUETS Eq. 3–4). ``variance_scale``
selects σ² on the GP scale (Eq. 4, the DUETS experiments' baselines) or on the kernel-ridge
scale σ²/λ (KernelUCB, Async-KernelUCB Eq. 1); with a tuned β the two differ only by the
factor √λ in β. IGP-UCB's theoretical width ``β_t = B + R√(2(γ_{t−1} + 1 + ln(1/δ)))`` is
available as ``beta="igp"`` (needs ``B``, ``R``, ``delta``); the experiments use a constant β.

Before any data the posterior is flat, so the first choice is uniform at random (ties are
broken uniformly at random throughout; ``tie_break="first"`` reproduces ``np.argmax``).

:class:`KernelUCBAgent` is the core used by every kernel-UCB method in the package; for a
fixed finite candidate set (``arms.ids`` given) it keeps a :class:`CandidatePosterior`
(O(n·M) per observation), otherwise an :class:`ExactGP` — or, with ``device="cuda"`` (or
``"torch-cpu"``), a :class:`TorchExactGP` whose O(t²K) triangular solves run in torch, on the GPU
when there is one (the cost that dominates OneKernelUCB at T = 10⁴). On the CPU the K fresh arms'
posterior is one level-3 pass over the maintained Cholesky factor (blocked forward substitution,
one GEMM per row block over all arms, float64) and the chosen arm's column is reused to append
it, so a step reads the factor once (see :class:`ExactGP`).
"""
from __future__ import annotations

import numpy as np

from ..comm import CommLedger
from ..estimators import CandidatePosterior, ExactGP, TorchExactGP, resolve_device
from ..kernels import make_kernel
from ..sim import Policy
from ..validation import check, fail, one_of

__all__ = ["argmax_ties", "ucb_width", "KernelUCBAgent", "NKernelUCB"]


def argmax_ties(scores: np.ndarray, rng: np.random.Generator, tie_break: str = "random") -> int:
    """Index of the maximum; exact ties broken uniformly at random (or the first index)."""
    if tie_break == "first":
        return int(np.argmax(scores))
    best = np.flatnonzero(scores == scores.max())
    return int(best[0] if len(best) == 1 else rng.choice(best))


def ucb_width(var: np.ndarray, lam: float, variance_scale: str) -> np.ndarray:
    """σ from an Eq.-4 variance: ``√var`` ("gp") or ``√(var/λ)`` ("ridge")."""
    if variance_scale == "gp":
        return np.sqrt(np.maximum(var, 0.0))
    if variance_scale == "ridge":
        return np.sqrt(np.maximum(var, 0.0) / lam)
    fail("variance_scale", variance_scale, one_of("gp", "ridge"))


class KernelUCBAgent:
    """One agent's exact kernel UCB state (see module docstring)."""

    def __init__(self, kernel, lam: float, beta, dim: int, rng: np.random.Generator,
                 variance_scale: str = "gp", tie_break: str = "random",
                 B: float = 1.0, R: float = 0.2, delta: float = 0.1, device: str = "cpu",
                 capacity: int = 64):
        self.kernel, self.lam, self.beta, self.rng = kernel, float(lam), beta, rng
        self.capacity = max(1, int(capacity))  # initial size of the exact GP's factor buffer
        self.device = resolve_device(device)
        self.variance_scale, self.tie_break = variance_scale, tie_break
        self.B, self.R, self.delta = B, R, delta
        self.dim = dim
        self.post: CandidatePosterior | None = None
        self.gp: ExactGP | None = None

    def current_beta(self) -> float:
        if self.beta == "igp":
            gamma = 0.5 * (self.post.logdet if self.post is not None else 0.0)
            return self.B + self.R * np.sqrt(2.0 * (gamma + 1.0 + np.log(1.0 / self.delta)))
        return float(self.beta)

    def scores(self, X: np.ndarray, ids: np.ndarray | None) -> np.ndarray:
        if ids is not None:
            if self.post is None:
                self.post = CandidatePosterior(self.kernel, X, self.lam)
            mu, var = self.post.mean[ids], self.post.var[ids]
        else:
            if self.gp is None:
                self.gp = ExactGP(self.kernel, self.lam, self.dim, self.capacity) if self.device == "cpu" else \
                    TorchExactGP(self.kernel, self.lam, self.dim, self.capacity, device=self.device)
            mu, var = self.gp.predict(X)
        return mu + self.current_beta() * ucb_width(var, self.lam, self.variance_scale)

    def choose(self, X: np.ndarray, ids: np.ndarray | None) -> int:
        return argmax_ties(self.scores(X, ids), self.rng, self.tie_break)

    def observe(self, X: np.ndarray, ids: np.ndarray | None, choice: int, y: float) -> None:
        if ids is not None:
            self.post.add(int(ids[choice]), y)
        else:
            self.gp.add(X[choice : choice + 1], [y])


class NKernelUCB(Policy):
    """N-KernelUCB: every agent runs GP-UCB on its own data only; no communication.

    The baseline of Li et al. 2022 used in DUETS Fig. 1 and Async-KernelUCB Fig. 2. Its
    communication curve is identically zero.
    """

    name = "N-KernelUCB"

    def __init__(self, n_agents, horizon, dim, seed, ledger: CommLedger, kernel, lam=0.2,
                 beta=1.0, variance_scale="gp", tie_break="random"):
        super().__init__(n_agents, horizon, dim, seed, ledger)
        k = make_kernel(kernel)
        rngs = [np.random.default_rng(s) for s in seed.spawn(n_agents)]
        self.agents = [KernelUCBAgent(k, lam, beta, dim, r, variance_scale, tie_break) for r in rngs]

    def select(self, t, agents, arms):
        return np.array([self.agents[n].choose(arms.for_agent(k), arms.ids)
                         for k, n in enumerate(agents)])

    def update(self, t, agents, arms, choices, rewards):
        for k, n in enumerate(agents):
            self.agents[n].observe(arms.for_agent(k), arms.ids, choices[k], rewards[k])


class OneKernelUCB(Policy):
    """OneKernelUCB (Valko et al. 2013, centralised): one shared exact KernelUCB on all data.

    Every new point is aggregated immediately (Async-KernelUCB §5: "shared model ... aggregation
    immediately after each new data point"): the active client uploads ``(x_t, y_t)`` (d + 1
    scalars) and the server forwards it to the other N − 1 clients ((d + 1) each), this package's
    default accounting (the paper, §3.1, measures C_T as "the total number of scalars being
    transferred" but does not count OneKernelUCB's); ``download="none"`` counts the upload only. All clients active in a
    step choose with the model as it was at the start of the step. UCB as in
    :class:`KernelUCBAgent` (``variance_scale="ridge"`` gives Async-KernelUCB's σ² = λ⁻¹[...]).
    """

    name = "OneKernelUCB"

    def __init__(self, n_agents, horizon, dim, seed, ledger: CommLedger, kernel, lam=1.0,
                 beta=1.0, variance_scale="ridge", tie_break="random", download="all", device="cpu"):
        super().__init__(n_agents, horizon, dim, seed, ledger)
        check("download", download, one_of("all", "none"))
        self.download = download
        self.rngs = [np.random.default_rng(s) for s in seed.spawn(n_agents)]
        # the factor buffer is sized for one point per step up front (it still grows if more
        # clients act per step): no regrowth copies, and untouched zero pages cost no memory
        self.core = KernelUCBAgent(make_kernel(kernel), lam, beta, dim, self.rngs[0], variance_scale, tie_break,
                                   device=device, capacity=horizon)

    def select(self, t, agents, arms):
        out = []
        for k, n in enumerate(agents):
            self.core.rng = self.rngs[n]
            out.append(self.core.choose(arms.for_agent(k), arms.ids))
        return np.array(out)

    def update(self, t, agents, arms, choices, rewards):
        from ..comm import SERVER

        for k, n in enumerate(agents):
            self.core.observe(arms.for_agent(k), arms.ids, choices[k], rewards[k])
            self.ledger.send(t, int(n), SERVER, "raw_point", self.d + 1)
            if self.download == "all" and self.N > 1:
                self.ledger.broadcast(t, "raw_point", self.d + 1, n_receivers=self.N - 1)
