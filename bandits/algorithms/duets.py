"""DUETS: Distributed Uniform Exploration of Trimmed Sets (Pavlovic, Salgia & Zhao, 2024).

Algorithms 1 (agent) and 2 (server) of the paper on a finite candidate set (all the paper's
experiments discretise the domain). Epoch ``j`` with length ``T_j``:

1. Every agent ``n`` draws ``T_j`` points uniformly **with replacement** from the active set
   ``𝒳_j`` with its private coin ``𝒞_n`` and queries them (Alg. 1 l.6; the paper's ``𝒳_{j−1}``
   is a typo for ``𝒳_j``). Footnote 3 (sample each connected component) is moot on a finite
   set: sampling is uniform over the whole active set.
2. The server replays every coin and so knows ``𝒟_j = ∪_n 𝒟_j^{(n)}`` without communication
   (shared randomness). It computes the exact posterior variance ``σ²_j`` (Eq. 4, λ
   regulariser) of ``𝒟_j`` over ``𝒳_j``, ``σ²_{j,max} = max_{x∈𝒳_j} σ²_j(x)``, and builds the
   inducing set ``𝒮_j`` by keeping each of the ``N T_j`` points independently with probability
   ``p_j = min(1, p_0 σ²_{j,max})`` (the clip at 1 is missing in the paper). It broadcasts ``𝒮_j``.
3. Agent n uploads ``v_j^{(n)} = Z_{𝒟_j^{(n)},𝒮_j}ᵀ 𝐘_j^{(n)}`` (Eq. 7), one |𝒮_j|-vector.
4. The server broadcasts ``v̄_j = (λI + Z_{𝒟_j,𝒮_j}ᵀ Z_{𝒟_j,𝒮_j})⁻¹ Σ_n v_j^{(n)}`` (Eq. 8; the
   Gram is over all of ``𝒟_j``, Alg. 2 l.10's ``𝒟_j^{(n)}`` is a typo) and ``σ_{j,max}``.
5. Everyone trims (Eq. 9)::

       𝒳_{j+1} = { x ∈ 𝒳_j : μ̃_j(x) ≥ max_{x'∈𝒳_j} μ̃_j(x') − 2 β σ_{j,max} },
       μ̃_j(x) = z_{𝒮_j}(x)ᵀ v̄_j   (Eq. 5)

   and ``T_{j+1} = ⌊√(T T_j)⌋``. The last epoch is truncated at T; nothing is communicated
   once an agent's step counter reaches T (a resolution of this package: Algorithm 1 l.9–10 stops
   inside the query loop on ``t > T``, Algorithm 2 has no early exit; the authors' code, ``DISUS.py``,
   breaks before communicating).

Named options (paper default first; the DUETS authors' code ("CODE") as an option):

* ``inducing_rule``: ``"variance"`` (``p_j = p_0 σ²_{j,max}``, the paper) or ``"log_proxy"``
  (``p_j = p_0 log(N T_j)/(N T_j)``, the CODE with ``p_0 = 4`` at its last commit).
* ``elim_rule``: ``"paper"`` (Eq. 9), ``"ucb_lcb"`` (CODE default: keep x if
  ``μ̃(x) + βσ̃(x) ≥ max(μ̃ − βσ̃)`` with the pointwise Nyström σ̃ of Eq. 6; agents then need
  ``(λI + G)⁻¹``: ``s(s+1)/2`` extra downlink scalars unless ``public_coins``), or
  ``"paper_nys1"`` (CODE ``else`` branch: ``μ̃ ≥ max μ̃ − β max σ̃``).
* ``elim_factor`` (2 in Eq. 9; our reading of the proof of Lemma 4.2,
  App. A.2: with Lemma A.3's 0.5-accurate inducing set σ̃ can exceed σ by √3, so it needs 2√3), ``rounding`` ("floor" paper,
  "ceil" CODE), ``T1`` (2 paper, 5 CODE), ``send_indices`` (send 𝒮_j as candidate indices).

Communication per non-final epoch, ``s = |𝒮_j|`` (unique points): downlink ``s·d`` (𝒮_j) +
``s + 1`` (v̄_j, σ_{j,max}); uplink ``s`` per agent (v_j^{(n)}). The paper's metric (Eq. 2) is
``C = C_up + C_down`` per agent; the CODE plots the total uplink ``N·s`` per epoch.

The Nyström features use the Cholesky basis ``z = L⁻¹ k_𝒮(x)`` rather than ``K_𝒮𝒮^{-1/2}``:
μ̃ and σ̃ of Eq. 5–6 are invariant to this rotation (a choice of this package; §2.2 writes
``z_𝒮(x) = K_𝒮𝒮^{-1/2} k_𝒮(x)``), and agents and server call one function.
Duplicates in ``𝒮_j`` are removed (same span); ``|𝒮_j|`` counts unique points, the number of
Bernoulli successes is logged as ``s_draws``.
"""
from __future__ import annotations

import math

import numpy as np

from ..comm import SERVER, CommLedger
from ..estimators import NystromDictionary, collapsed_posterior, nystrom_posterior
from ..kernels import make_kernel
from ..linalg import chol_solve, cholesky_jitter
from ..sim import Policy
from ..validation import check, fail, ge, gt, one_of

__all__ = ["DUETS", "epoch_lengths", "delta_prime", "beta_theory"]


def epoch_lengths(T: int, T1: int, rounding: str = "floor") -> list[int]:
    """Epoch lengths ``T_1, T_2, …`` with ``T_{j+1} = ⌊√(T T_j)⌋`` (or ⌈·⌉), the last one
    truncated so that they sum to ``T``."""
    check("T1", T1, ge(1))
    check("T", T, ge(1))
    rnd = {"floor": math.floor, "ceil": math.ceil}.get(rounding)
    if rnd is None:
        fail("rounding", rounding, one_of("floor", "ceil"))
    out, t, Tj = [], 0, int(T1)
    while t < T:
        L = min(Tj, T - t)
        out.append(L)
        t += L
        Tj = max(1, int(rnd(math.sqrt(T * Tj))))
    return out


def delta_prime(delta: float, N: int, T: int, M: int) -> float:
    """``δ' = δ / (2 M (log log(NT) + 4))`` (App. A.1 and Lemma 4.2; the paper writes δ' in
    several ways (Sec. 3, Lemma 4.2, App. A.1, Lemma 4.5): this form, natural logs and M = |X_cand|
    playing |𝒰_T|, is a choice of this package)."""
    return delta / (2.0 * M * (math.log(max(math.log(N * T), 1e-12)) + 4.0))


def beta_theory(B: float, R: float, lam: float, delta: float) -> float:
    """``β(δ) = B + R √((2/λ) log(2/δ))`` (Lemma 2.5)."""
    return B + R * math.sqrt(2.0 / lam * math.log(2.0 / delta))


class DUETS(Policy):
    """DUETS (see module docstring for the equations and options)."""

    name = "DUETS"

    def __init__(self, n_agents, horizon, dim, seed, ledger: CommLedger, kernel, lam=0.2,
                 beta=1.0, T1=2, p0=10.0, inducing_rule="variance", elim_rule="paper",
                 elim_factor=2.0, rounding="floor", send_indices=False, public_coins=False,
                 check_replay=True):
        super().__init__(n_agents, horizon, dim, seed, ledger)
        check("inducing_rule", inducing_rule, one_of("variance", "log_proxy"))
        check("elim_rule", elim_rule, one_of("paper", "ucb_lcb", "paper_nys1"))
        check("p0", p0, gt(0))
        check("lam", lam, gt(0))
        self.kernel, self.lam, self.beta = make_kernel(kernel), float(lam), float(beta)
        self.p0, self.inducing_rule, self.elim_rule = float(p0), inducing_rule, elim_rule
        self.elim_factor, self.send_indices, self.public_coins = float(elim_factor), send_indices, public_coins
        self.check_replay = check_replay
        self.lengths = epoch_lengths(horizon, T1, rounding)
        ss = seed.spawn(n_agents + 1)
        self._coin_seeds = ss[:n_agents]
        self.coins = [np.random.default_rng(s) for s in self._coin_seeds]  # the agents' coins
        self.server_coins = [np.random.default_rng(s) for s in self._coin_seeds]  # server's copies
        self.server_rng = np.random.default_rng(ss[n_agents])
        self.active: np.ndarray | None = None
        self.j = 0
        self.epoch_start = 0
        self.queries: np.ndarray | None = None  # (N, L) candidate ids of the current epoch
        self.rewards: np.ndarray | None = None
        self.epochs: list[dict] = []
        self.active_sets: list[np.ndarray] = []

    # -- agents ---------------------------------------------------------------------------------
    def select(self, t, agents, arms):
        if self.active is None:
            if arms.ids is None or not arms.shared:
                raise NotImplementedError("DUETS runs on a fixed finite candidate set (FiniteDomainEnv)")
            self.X = arms.X
            self.active = np.arange(arms.X.shape[0])
            self.active_sets.append(self.active.copy())
        if len(agents) != self.N:
            raise ValueError("DUETS is synchronous: every agent must be active at every step")
        if t == self.epoch_start:
            L = self.lengths[self.j]
            self.queries = np.stack([self.active[c.integers(0, len(self.active), size=L)]
                                     for c in self.coins])
            self.rewards = np.zeros((self.N, L))
        return self.queries[agents, t - self.epoch_start]

    def update(self, t, agents, arms, choices, rewards):
        pos = t - self.epoch_start
        self.rewards[agents, pos] = rewards
        L = self.queries.shape[1]
        if pos == L - 1:
            if t + 1 < self.T:
                self._communicate(t)
            else:
                self.epochs.append({"j": self.j + 1, "T_j": L, "n_active": len(self.active),
                                    "communicated": False})
            self.j += 1
            self.epoch_start = t + 1

    # -- server + everyone --------------------------------------------------------------------------
    def _communicate(self, t):
        N, L, d = self.N, self.queries.shape[1], self.d
        A = self.active
        # shared randomness: the server replays every agent's coin
        replay = np.stack([A[c.integers(0, len(A), size=L)] for c in self.server_coins])
        if self.check_replay and not np.array_equal(replay, self.queries):
            raise RuntimeError("server replay of the agents' coins differs from their queries")
        draws = replay.ravel()
        u, inv, counts = np.unique(draws, return_inverse=True, return_counts=True)
        _, var, gain = collapsed_posterior(self.kernel, self.X[u], counts, self.lam, self.X[A],
                                           with_gain=True)
        s2max = float(var.max())
        nT = N * L
        if self.inducing_rule == "variance":
            p = min(1.0, self.p0 * s2max)
        else:
            p = min(1.0, self.p0 * math.log(nT) / nT)
        hit = self.server_rng.random(nT) < p
        S = np.unique(draws[hit])
        fallback = False
        if len(S) == 0:
            S = np.array([draws[self.server_rng.integers(nT)]])
            fallback = True
        s = len(S)
        self.ledger.broadcast(t, "inducing_set", s if self.send_indices else s * d)
        dic = NystromDictionary(self.kernel, d)
        dic.add(self.X[S])
        Zu = dic.features(self.X[u])  # features of the unique points of D_j
        # agents: v_j^(n) = Z_{D_j^(n)}ᵀ Y_j^(n)  (Eq. 7)
        Zq = Zu[inv.reshape(N, L)]  # (N, L, m)
        v = np.einsum("nlm,nl->nm", Zq, self.rewards)
        for n in range(N):
            self.ledger.send(t, n, SERVER, "projected_rewards", s)
        # server: v̄ = (λI + G)⁻¹ Σ_n v^(n)  (Eq. 8), G over all of D_j
        G = Zu.T @ (counts[:, None] * Zu)
        m = G.shape[0]
        Creg = cholesky_jitter(G + self.lam * np.eye(m))
        vbar = chol_solve(Creg, v.sum(axis=0))
        self.ledger.broadcast(t, "vbar_sigma_max", s + 1)
        # everyone: μ̃ on the active set and the trim (Eq. 9 or a CODE variant)
        ZA = dic.features(self.X[A])
        mu = ZA @ vbar
        smax = math.sqrt(s2max)
        if self.elim_rule == "paper":
            keep = mu >= mu.max() - self.elim_factor * self.beta * smax
        else:
            _, s2n = nystrom_posterior(ZA, self.kernel.diag(self.X[A]), G, None, self.lam, chol=Creg)
            sn = np.sqrt(s2n)
            if self.elim_rule == "ucb_lcb":
                if not self.public_coins:
                    self.ledger.broadcast(t, "posterior_precision", s * (s + 1) // 2)
                keep = mu + self.beta * sn >= np.max(mu - self.beta * sn)
            else:
                keep = mu >= mu.max() - self.beta * sn.max()
        self.epochs.append({
            "j": self.j + 1, "T_j": L, "n_active": int(len(A)), "n_unique": int(len(u)),
            "sigma2_max": s2max, "gamma_hat": gain, "p_j": p, "s_unique": int(s), "s_draws": int(hit.sum()),
            "dict_rank": int(m), "empty_fallback": fallback, "communicated": True,
        })
        self.active = A[keep]
        self.active_sets.append(self.active.copy())

    def info(self):
        return {"epochs": self.epochs, "active_sets": [a.tolist() for a in self.active_sets],
                "epoch_lengths": list(self.lengths)}


class CentralizedUniformElimination(DUETS):
    """The centralised counterpart of DUETS used by the superposition check (this
    package's check E8(b) in ``notebooks/duets_theory``, of the superposition property of §1.2).

    One decision maker draws all ``N·T_j`` points of epoch ``j`` uniformly with replacement from
    the active set **from a single random stream**, then runs exactly DUETS' server step (Eq. 4
    variance, inducing set, Eq. 5/8 estimate, Eq. 9 trim). The paper's superposition property
    (§1, "the union of the local sets of size t query points obtained at the agents through
    uniform sampling is identical (in distribution) to the set of size Nt query points obtained
    at a centralized decision maker") says that DUETS(N, T) and this policy have the same
    distribution of every statistic, regret included.

    Implementation: the ``N`` per-agent coins of :class:`DUETS` are replaced by ``N`` references
    to one generator (and the server's replay by ``N`` references to an identical copy), so that
    the ``N`` consecutive draws of ``T_j`` points are one stream of ``N·T_j`` draws; nothing else
    differs. The regret loop still calls it with ``N`` "agents" per step: agent ``n``'s query at
    step ``t`` is the ``(n·T_j + t)``-th draw of the epoch. Its communication ledger is kept only
    for bookkeeping (a centralised learner communicates nothing).
    """

    name = "CentralizedUniformElimination"

    def __init__(self, n_agents, horizon, dim, seed, ledger, kernel, **kwargs):
        super().__init__(n_agents, horizon, dim, seed, ledger, kernel, **kwargs)
        one = self._coin_seeds[0]
        stream, replay = np.random.default_rng(one), np.random.default_rng(one)
        self.coins = [stream] * self.N
        self.server_coins = [replay] * self.N
