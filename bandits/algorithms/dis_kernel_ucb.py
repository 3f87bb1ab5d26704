"""DisKernelUCB and Approx-DisKernelUCB (Li, Wang, Wang & Wang, NeurIPS 2022).

Both are the baselines of DUETS Fig. 1; Approx-DisKernelUCB is also a baseline of
Async-KernelUCB. The text of Li et al. 2022 could not be read from here: the protocol below
is the reconstruction of the DUETS spec §3.2–3.3, which agrees on every structural point with
the DUETS authors' implementation. Where it is a choice it is a named parameter.

Synchronous protocol: at each step every *active* agent chooses by UCB on its own current
model, observes, then the trigger is checked for the active agents; a synchronisation involves
all N agents (as in the authors' simulators when only one client is active per step).

DisKernelUCB (exact kernel regression, raw-data sharing)
--------------------------------------------------------
Agent n's model is the exact GP (Eq. 3–4, λ regulariser) on ``D_glob ∪ ΔD_n``: the data
synchronised at the last sync plus its own data since. With ``ld = log det(I + λ⁻¹K)``::

    ld_n += log(1 + σ²_n(x_t)/λ)            (matrix determinant lemma; σ² before adding x_t)
    trigger: (t − t_last) · (ld_n − ld_glob) > D        (t − t_last counts the current round)

At a sync every agent uploads ``ΔD_n`` (``|ΔD_n|(d+1)`` scalars: points and rewards) and
downloads the other agents' new data (``Σ_{m≠n} |ΔD_m|(d+1)``); ``D_glob`` absorbs everything.
On a finite candidate set each agent's model is a :meth:`CandidatePosterior.fork` of the
global one, so the global posterior is never copied.

Approx-DisKernelUCB (shared Nyström dictionary)
-----------------------------------------------
Shared dictionary ``S`` with features ``z(x)`` (:class:`NystromDictionary`); agent statistics
``A_n = λI + Σ z zᵀ`` (inverse kept by Sherman–Morrison), ``b_n = Σ z y`` over the last
synchronised statistics plus the agent's own new data::

    μ̃_n(x)  = z(x)ᵀ A_n⁻¹ b_n
    σ̃²_n(x) = (k(x,x) − ‖z(x)‖²)/λ + z(x)ᵀ A_n⁻¹ z(x)          (DUETS Eq. 6, 1/λ scale)
    x_t = argmax μ̃_n + β σ̃_n                                   (S = ∅: uniform at random)

Trigger (``trigger="var_sum"``, default): ``Σ_{s ∈ ΔD_n} σ̃²_last(x_s) > D``, with σ̃²_last the
synchronised global model (before the first sync the prior k(x,x)/λ).
``trigger="dislinucb_logdet"``: ``(t − t_last) · Σ_{s∈ΔD_n} log(1 + σ̃²_last(x_s)) > D``.

Sync: (1) every agent samples each point of its **whole** history with probability
``min(1, q̄ σ̃²_last(x))`` (ridge-leverage-score sampling, as in BKB) and uploads the chosen
points (d scalars each); (2) the server broadcasts the union ``S`` (|S|·d); (3) every agent
re-embeds its history and uploads ``Z_nᵀZ_n`` and ``Z_nᵀY_n`` (|S|² + |S|, or
|S|(|S|+1)/2 + |S| with ``symmetric_packing``); (4) the server broadcasts ``A = λI + Σ Z_nᵀZ_n``
and ``b = Σ Z_nᵀY_n``; agents reset their statistics and trigger sums.
"""
from __future__ import annotations

import numpy as np

from ..comm import SERVER, CommLedger
from ..estimators import CandidatePosterior, NystromDictionary
from ..kernels import make_kernel
from ..sim import Policy
from .kernel_ucb import argmax_ties, ucb_width

__all__ = ["DisKernelUCB", "ApproxDisKernelUCB"]


def _require_finite(arms, name):
    if arms.ids is None or not arms.shared:
        raise NotImplementedError(
            f"{name} is implemented for a fixed finite candidate set shared by all agents "
            "(FiniteDomainEnv); this environment gives per-agent contexts")


class DisKernelUCB(Policy):
    """DisKernelUCB (exact GP per agent, event-triggered raw-data sync); see module docstring."""

    name = "DisKernelUCB"

    def __init__(self, n_agents, horizon, dim, seed, ledger: CommLedger, kernel, lam=0.2,
                 beta=1.0, D=10.0, variance_scale="gp", tie_break="random"):
        super().__init__(n_agents, horizon, dim, seed, ledger)
        if D <= 0:
            raise ValueError(f"D must be > 0, got {D}")
        self.kernel, self.lam, self.beta, self.D = make_kernel(kernel), float(lam), float(beta), float(D)
        self.variance_scale, self.tie_break = variance_scale, tie_break
        self.rngs = [np.random.default_rng(s) for s in seed.spawn(n_agents)]
        self.glob: CandidatePosterior | None = None
        self.local: list[CandidatePosterior] = []
        self.new: list[list[tuple[int, float]]] = [[] for _ in range(n_agents)]
        self.t_last = -1
        self.n_syncs = 0

    def select(self, t, agents, arms):
        _require_finite(arms, self.name)
        if self.glob is None:
            self.glob = CandidatePosterior(self.kernel, arms.X, self.lam)
            self.local = [self.glob.fork() for _ in range(self.N)]
        out = []
        for n in agents:
            p = self.local[n]
            s = p.mean + self.beta * ucb_width(p.var, self.lam, self.variance_scale)
            out.append(argmax_ties(s, self.rngs[n], self.tie_break))
        return np.array(out)

    def update(self, t, agents, arms, choices, rewards):
        for k, n in enumerate(agents):
            i = int(arms.ids[choices[k]])
            self.local[n].add(i, float(rewards[k]))
            self.new[n].append((i, float(rewards[k])))
        rounds = t - self.t_last
        if any(rounds * (self.local[n].logdet - self.glob.logdet) > self.D for n in agents):
            self._sync(t)

    def _sync(self, t):
        size = [len(b) * (self.d + 1) for b in self.new]
        total = sum(size)
        for n in range(self.N):
            if size[n]:
                self.ledger.send(t, n, SERVER, "raw_data", size[n])
            if total - size[n]:
                self.ledger.send(t, SERVER, n, "raw_data", total - size[n])
        for n in range(self.N):
            for i, y in self.new[n]:
                self.glob.add(i, y)
        self.local = [self.glob.fork() for _ in range(self.N)]
        self.new = [[] for _ in range(self.N)]
        self.t_last = t
        self.n_syncs += 1

    def info(self):
        return {"n_syncs": self.n_syncs}


class ApproxDisKernelUCB(Policy):
    """Approx-DisKernelUCB (shared Nyström dictionary, RLS re-sampling at each sync)."""

    name = "ApproxDisKernelUCB"

    def __init__(self, n_agents, horizon, dim, seed, ledger: CommLedger, kernel, lam=0.2,
                 beta=1.0, D=20.0, qbar=4.0, trigger="var_sum", symmetric_packing=False,
                 tie_break="random"):
        super().__init__(n_agents, horizon, dim, seed, ledger)
        if D <= 0 or qbar <= 0:
            raise ValueError(f"D and qbar must be > 0, got D={D}, qbar={qbar}")
        if trigger not in ("var_sum", "dislinucb_logdet"):
            raise ValueError(f"trigger must be 'var_sum' or 'dislinucb_logdet', got {trigger!r}")
        self.kernel, self.lam, self.beta = make_kernel(kernel), float(lam), float(beta)
        self.D, self.qbar, self.trigger, self.sym = float(D), float(qbar), trigger, bool(symmetric_packing)
        self.tie_break = tie_break
        ss = seed.spawn(n_agents)
        self.rngs = [np.random.default_rng(s) for s in ss]
        self.hist: list[list[tuple[int, float]]] = [[] for _ in range(n_agents)]
        self.acc = np.zeros(n_agents)  # trigger accumulators
        self.t_last = -1
        self.n_syncs = 0
        self.dict_sizes: list[int] = []
        self._ready = False

    # -- state over the candidate set ---------------------------------------------------------
    def _init(self, X):
        self.X = X
        self.kd = self.kernel.diag(X)
        self.m = 0
        self.Zc = np.zeros((X.shape[0], 0))
        self.znorm2 = np.zeros(X.shape[0])
        self.s2_last = self.kd / self.lam  # σ̃² of the synchronised model (prior before a sync)
        self.Ainv = [np.zeros((0, 0)) for _ in range(self.N)]
        self.b = [np.zeros(0) for _ in range(self.N)]
        self.q = [np.zeros(X.shape[0]) for _ in range(self.N)]  # zᵀ A_n⁻¹ z over candidates
        self.mu = [np.zeros(X.shape[0]) for _ in range(self.N)]
        self._ready = True

    def _s2(self, n):
        return np.maximum((self.kd - self.znorm2) / self.lam, 0.0) + self.q[n]

    def select(self, t, agents, arms):
        _require_finite(arms, self.name)
        if not self._ready:
            self._init(arms.X)
        out = []
        for n in agents:
            s = self.mu[n] + self.beta * np.sqrt(self._s2(n))
            out.append(argmax_ties(s, self.rngs[n], self.tie_break))
        return np.array(out)

    def update(self, t, agents, arms, choices, rewards):
        for k, n in enumerate(agents):
            i, y = int(arms.ids[choices[k]]), float(rewards[k])
            self.hist[n].append((i, y))
            if self.trigger == "var_sum":
                self.acc[n] += self.s2_last[i]
            else:
                self.acc[n] += np.log1p(self.s2_last[i])
            if self.m:
                z = self.Zc[i]
                u = self.Ainv[n] @ z
                den = 1.0 + z @ u
                self.Ainv[n] -= np.outer(u, u) / den
                self.b[n] = self.b[n] + y * z
                self.q[n] -= (self.Zc @ u) ** 2 / den
                np.maximum(self.q[n], 0.0, out=self.q[n])
                self.mu[n] = self.Zc @ (self.Ainv[n] @ self.b[n])
        rounds = t - self.t_last
        fire = (lambda n: self.acc[n] > self.D) if self.trigger == "var_sum" else \
            (lambda n: rounds * self.acc[n] > self.D)
        if any(fire(n) for n in agents):
            self._sync(t)

    def _sync(self, t):
        d = self.d
        # (1) ridge-leverage-score sampling of every agent's whole history
        chosen = []
        for n in range(self.N):
            ids = np.array([i for i, _ in self.hist[n]], dtype=np.int64)
            p = np.minimum(1.0, self.qbar * self.s2_last[ids])
            keep = ids[self.rngs[n].random(len(ids)) < p]
            if len(keep):
                self.ledger.send(t, n, SERVER, "dictionary_points", len(keep) * d)
            chosen.append(keep)
        # (2) the server's dictionary: union, deduplicated, in agent then time order
        allc = np.concatenate(chosen) if chosen else np.zeros(0, dtype=np.int64)
        _, first = np.unique(allc, return_index=True)
        S_ids = allc[np.sort(first)]
        dic = NystromDictionary(self.kernel, self.X.shape[1])
        dic.add(self.X[S_ids])
        m_sent = len(S_ids)
        if m_sent:
            self.ledger.broadcast(t, "dictionary", m_sent * d)
        self.m = dic.m
        self.Zc = dic.features(self.X)
        self.znorm2 = np.einsum("ij,ij->i", self.Zc, self.Zc)
        # (3) embedded statistics from every agent, (4) the merged model broadcast
        m = self.m
        A = self.lam * np.eye(m)
        b = np.zeros(m)
        mat = m * (m + 1) // 2 if self.sym else m * m
        for n in range(self.N):
            ids = np.array([i for i, _ in self.hist[n]], dtype=np.int64)
            ys = np.array([y for _, y in self.hist[n]])
            Zn = self.Zc[ids]
            A += Zn.T @ Zn
            b += Zn.T @ ys
            self.ledger.send(t, n, SERVER, "embedded_statistics", mat + m)
        self.ledger.broadcast(t, "global_statistics", mat + m)
        Ainv = np.linalg.inv(A)
        Ainv = 0.5 * (Ainv + Ainv.T)
        ZA = self.Zc @ Ainv
        q = np.maximum(np.einsum("ij,ij->i", ZA, self.Zc), 0.0)
        mu = ZA @ b
        for n in range(self.N):
            self.Ainv[n], self.b[n], self.q[n], self.mu[n] = Ainv.copy(), b.copy(), q.copy(), mu.copy()
        self.s2_last = np.maximum((self.kd - self.znorm2) / self.lam, 0.0) + q
        self.acc[:] = 0.0
        self.t_last = t
        self.n_syncs += 1
        self.dict_sizes.append(m)

    def info(self):
        return {"n_syncs": self.n_syncs, "dict_sizes": list(self.dict_sizes)}
