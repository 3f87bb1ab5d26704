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

:class:`PendingQueries` conditions an agent's variance on points chosen but not yet observed (the
batch rule of :class:`OneKernelUCB` with ``batch="fantasy"``, GP-BUCB).
"""
from __future__ import annotations

import numpy as np

from ..comm import CommLedger
from ..estimators import CandidatePosterior, ExactGP, TorchExactGP, resolve_device
from ..kernels import make_kernel
from ..linalg import solve_lower
from ..sim import Policy
from ..validation import check, fail, one_of

__all__ = ["argmax_ties", "argmax_ties_rows", "ucb_width", "KernelUCBAgent", "PendingQueries", "NKernelUCB", "OneKernelUCB"]


def argmax_ties(scores: np.ndarray, rng: np.random.Generator, tie_break: str = "random") -> int:
    """Index of the maximum; exact ties broken uniformly at random (or the first index)."""
    if tie_break == "first":
        return int(np.argmax(scores))
    best = np.flatnonzero(scores == scores.max())
    return int(best[0] if len(best) == 1 else rng.choice(best))


def argmax_ties_rows(scores: np.ndarray, rng: np.random.Generator, tie_break: str = "random") -> np.ndarray:
    """:func:`argmax_ties` of every row of ``scores`` (shape ``(n, K)``) with one generator, in row order: the
    same choices and the same draws from ``rng`` as calling it row by row (a draw only for a row with an exact
    tie), with the rows without a tie, nearly all of them, resolved in one vectorised pass."""
    scores = np.asarray(scores)
    if tie_break == "first":
        return np.argmax(scores, axis=1).astype(np.int64)
    eq = scores == scores.max(axis=1, keepdims=True)
    if not eq.any(axis=1).all():  # a row without a finite maximum (NaN): the row-by-row rule and its error
        return np.array([argmax_ties(s, rng, tie_break) for s in scores], dtype=np.int64)
    ch = np.argmax(eq, axis=1).astype(np.int64)
    for i in np.flatnonzero(np.count_nonzero(eq, axis=1) > 1):
        ch[i] = int(rng.choice(np.flatnonzero(eq[i])))
    return ch


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

    def scores(self, X: np.ndarray, ids: np.ndarray | None, pending: "PendingQueries | None" = None) -> np.ndarray:
        """UCB scores of the arms ``X``; with ``pending`` (non-empty), the variance is conditioned on the
        pending queries too (:class:`PendingQueries`; the mean and β stay those of the data)."""
        if ids is not None:
            if self.post is None:
                self.post = CandidatePosterior(self.kernel, X, self.lam)
            mu, var = self.post.mean[ids], self.post.var[ids]
        else:
            if self.gp is None:
                self.gp = ExactGP(self.kernel, self.lam, self.dim, self.capacity) if self.device == "cpu" else \
                    TorchExactGP(self.kernel, self.lam, self.dim, self.capacity, device=self.device)
            mu, var = self.gp.predict(X)
        if pending is not None and pending.m:
            var = pending.variance(X, ids, var)
        return mu + self.current_beta() * ucb_width(var, self.lam, self.variance_scale)

    def choose(self, X: np.ndarray, ids: np.ndarray | None, pending: "PendingQueries | None" = None) -> int:
        return argmax_ties(self.scores(X, ids, pending), self.rng, self.tie_break)

    def observe(self, X: np.ndarray, ids: np.ndarray | None, choice: int, y: float) -> None:
        if ids is not None:
            self.post.add(int(ids[choice]), y)
        else:
            self.gp.add(X[choice : choice + 1], [y])


class PendingQueries:
    """The variance of a :class:`KernelUCBAgent` conditioned on pending queries (GP-BUCB).

    Desautels, Krause & Burdick 2014 ("Parallelizing exploration-exploitation tradeoffs in Gaussian
    process bandit optimization", JMLR 15), GP-BUCB: a point chosen but not yet observed enters the
    posterior *variance* at once, since a GP's variance does not depend on the observations, while the
    mean stays that of the data observed so far: ``x = argmax μ_D(x) + β σ_{D∪P}(x)``. With ``D`` the
    data, ``P`` the pending points and ``c_D`` the posterior covariance on ``D`` (GP scale, DUETS Eq. 4)::

        c_D(x, x') = k(x, x') − k_D(x)ᵀ (K_DD + λI)⁻¹ k_D(x')
        σ²_{D∪P}(x) = σ²_D(x) − c_D(x, P) (C_D(P, P) + λI)⁻¹ c_D(P, x)          (Schur complement)

    the exact posterior variance on ``D ∪ P`` (noise λ, as every point of ``D``; repeated points are
    fine). The agent's ``variance_scale`` applies to it as to ``σ²_D`` (``"ridge"``: ``σ²_{D∪P}/λ``).
    Cost per pending point, never a refactorisation of the data's factor:

    * fixed finite domain (``ids`` given): a :meth:`CandidatePosterior.fork` of the agent's posterior
      (its rows shared read-only when it is not itself a fork, as OneKernelUCB's is not; O(M) copied)
      conditioned on each pending candidate with :meth:`CandidatePosterior.add` (O(n·M), one row
      ``u = c_{D∪P_<}(cand, p)/√(λ + σ²_{D∪P_<}(p))``, ``σ² −= u²``; the pseudo-observation is the
      data's mean at ``p``, and the fork's mean is not used);
    * fresh contexts (exact GP, CPU or torch): ``l_p = L⁻¹ k_D(p)`` is the chosen arm's column of the
      agent's last prediction, the pending block ``C_D(P, P) + λI = R Rᵀ`` gains one Cholesky row per
      pending point (O(m²)), and a query of q arms costs ``c_D(P, X) = k(P, X) − L_Pᵀ V`` with the
      prediction's ``V = L⁻¹ K_{D,X}`` (O(n·m·q), on the device with torch) and ``‖R⁻¹ c_D(P, X)‖²``.

    Use: after ``agent.choose(X, ids, pending)``, call ``pending.add(X, ids, choice)`` before the agent
    predicts anything else (the fresh-context path reads the agent's last prediction); the agent's data
    must not change while ``pending`` is in use.
    """

    def __init__(self, agent: KernelUCBAgent):
        self.agent = agent
        self.m = 0
        self._fork: CandidatePosterior | None = None  # finite domain
        self._P: list[np.ndarray] = []  # fresh contexts: pending inputs, their columns L⁻¹k_D(p), R
        self._LP: list[np.ndarray] = []
        self._R = np.zeros((0, 0))

    def add(self, X: np.ndarray, ids: np.ndarray | None, choice: int) -> None:
        """Make arm ``choice`` of ``X`` (the agent's last prediction) a pending point."""
        a = self.agent
        if ids is not None:
            post = a.post
            if self._fork is None:
                self._fork = post.fork()
            i = int(ids[choice])
            self._fork.add(i, float(post.mean[i]))  # the variance update needs no y
        else:
            gp = a.gp
            x = np.asarray(X[choice], dtype=float)
            if gp.n:
                l = gp.last_column(int(choice))  # raises if the agent has not predicted its current data
            else:
                l = np.zeros(0)
            kxx = float(a.kernel.diag(x[None, :])[0])
            if self.m:
                c = a.kernel(np.array(self._P), x[None, :])[:, 0] - np.array(self._LP).reshape(self.m, -1) @ l
                row = solve_lower(self._R, c)
            else:
                row = np.zeros(0)
            r = np.sqrt(max(kxx + a.lam - l @ l - row @ row, a.lam * 1e-12))
            R = np.zeros((self.m + 1, self.m + 1))
            R[: self.m, : self.m] = self._R
            R[self.m, : self.m] = row
            R[self.m, self.m] = r
            self._R = R
            self._P.append(x)
            self._LP.append(l)
        self.m += 1

    def variance(self, X: np.ndarray, ids: np.ndarray | None, var: np.ndarray) -> np.ndarray:
        """``σ²_{D∪P}`` of the arms ``X`` (GP scale) from their ``σ²_D`` ``var`` (the agent's last
        prediction, of these arms)."""
        if not self.m:
            return var
        if ids is not None:
            return self._fork.var[ids]
        a = self.agent
        gp = a.gp
        C = a.kernel(np.array(self._P), np.asarray(X, dtype=float))  # m × q
        if gp.n:  # c_D(P, X) = k(P, X) − L_Pᵀ V: the O(n·m·q) product where V lives (CPU or torch)
            C = C - gp.last_times(np.array(self._LP))
        W = solve_lower(self._R, C)
        return np.maximum(var - np.einsum("ij,ij->j", W, W), 0.0)


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

    **Several clients in one step** (``batch``). With ``batch="none"`` (default; the Async paper's
    protocol has one client per step, where it is the only rule) every active client chooses with
    ``μ_D + β σ_D`` of the data ``D`` at the start of the step; on one finite domain they all pick the
    same argmax. With ``batch="fantasy"`` the step's clients choose in the order of ``agents``, and
    client k uses the GP-BUCB rule (Desautels, Krause & Burdick 2014, JMLR 15; :class:`PendingQueries`)::

        x_k = argmax_x  μ_D(x) + β σ_{D ∪ {x_1, …, x_{k−1}}}(x)

    the mean (and β) of the data at the start of the step, the variance conditioned on the step's
    earlier choices as if they had been observed (a GP variance needs no y), on either
    ``variance_scale``. With one client per step the two rules are the same (and the runs bit-identical).
    A choice of this package: no paper runs OneKernelUCB with several clients per step.

    Communication with ``batch="fantasy"`` (our accounting; the paper is silent). The clients of a step
    choose in sequence through the server: client k must know ``x_1 … x_{k−1}`` before it chooses, and
    their ``y`` do not exist yet, so each of the first m − 1 of the step's m clients uploads its ``x``
    (d scalars, kind ``"pending_x"``) as soon as it has chosen and its ``y`` (1 scalar, ``"raw_y"``)
    after the step; the server forwards ``x`` at once to the m − 1 − k clients still to choose and ``y``
    to them later, and ``(x, y)`` (``"raw_point"``) to the other N − m + k clients after the step. Every
    scalar crosses each link once, as with ``"none"``: scalars (``C``) and rounds are the same; the
    **messages** are more (2 uploads instead of 1, and the early ``x`` to the later clients), charged
    because the sequencing needs them (``download="none"``: the uploads only). The last client of a step
    sends ``(x, y)`` in one message, as with ``"none"``.
    """

    name = "OneKernelUCB"
    BATCH = ("none", "fantasy")

    def __init__(self, n_agents, horizon, dim, seed, ledger: CommLedger, kernel, lam=1.0,
                 beta=1.0, variance_scale="ridge", tie_break="random", download="all", device="cpu",
                 batch="none"):
        super().__init__(n_agents, horizon, dim, seed, ledger)
        check("download", download, one_of("all", "none"))
        check("batch", batch, one_of(*self.BATCH))
        self.download, self.batch = download, batch
        self.rngs = [np.random.default_rng(s) for s in seed.spawn(n_agents)]
        # the factor buffer is sized for one point per step up front (it still grows if more
        # clients act per step): no regrowth copies, and untouched zero pages cost no memory
        self.core = KernelUCBAgent(make_kernel(kernel), lam, beta, dim, self.rngs[0], variance_scale, tie_break,
                                   device=device, capacity=horizon)

    def _fantasy(self, agents) -> bool:
        return self.batch == "fantasy" and len(agents) > 1

    def select(self, t, agents, arms):
        from ..comm import SERVER

        out = []
        pending = PendingQueries(self.core) if self._fantasy(agents) else None
        m = len(agents)
        for k, n in enumerate(agents):
            self.core.rng = self.rngs[n]
            X = arms.for_agent(k)
            out.append(self.core.choose(X, arms.ids, pending))
            if pending is not None and k < m - 1:
                pending.add(X, arms.ids, out[-1])
                self.ledger.send(t, int(n), SERVER, "pending_x", self.d)
                if self.download == "all":
                    self.ledger.broadcast(t, "pending_x", self.d, n_receivers=m - 1 - k)
        return np.array(out)

    def update(self, t, agents, arms, choices, rewards):
        from ..comm import SERVER

        fantasy, m = self._fantasy(agents), len(agents)
        for k, n in enumerate(agents):
            self.core.observe(arms.for_agent(k), arms.ids, choices[k], rewards[k])
            if fantasy and k < m - 1:  # x went ahead in select (to the m − 1 − k clients still to choose)
                self.ledger.send(t, int(n), SERVER, "raw_y", 1)
                if self.download == "all":
                    self.ledger.broadcast(t, "raw_y", 1, n_receivers=m - 1 - k)
                    if self.N - m + k > 0:
                        self.ledger.broadcast(t, "raw_point", self.d + 1, n_receivers=self.N - m + k)
                continue
            self.ledger.send(t, int(n), SERVER, "raw_point", self.d + 1)
            if self.download == "all" and self.N > 1:
                self.ledger.broadcast(t, "raw_point", self.d + 1, n_receivers=self.N - 1)
