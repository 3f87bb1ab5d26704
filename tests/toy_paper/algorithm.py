r"""Federated ε-greedy (the toy paper's only algorithm).

Each agent :math:`n` keeps, per arm :math:`a` of the shared finite set, a reward sum :math:`s_{n,a}` and a
count :math:`c_{n,a}`. It plays the arm maximising :math:`\hat\mu_a = (S_a + s_{n,a}) / (C_a + c_{n,a})`
(unplayed arms first), except with probability :math:`\varepsilon`, when it plays a uniformly random arm.
Every ``period`` steps (the toy paper's "Sharing pays" protocol) each agent uploads its local
:math:`(s_n, c_n)` (:math:`2K` scalars) and receives the pooled :math:`(S, C)` (:math:`2K` scalars); the
local statistics are then folded into the pooled ones. ``period=0`` never communicates.
"""
from __future__ import annotations

import numpy as np

from bandits.comm import SERVER
from bandits.sim import Policy


class ToyFedGreedy(Policy):
    """Federated ε-greedy on a shared finite arm set.

    Args:
        n_agents, horizon, dim, seed, ledger: as every :class:`~bandits.sim.Policy`.
        epsilon: exploration probability in [0, 1].
        period: steps between two exchanges (0: never).
    """

    name = "Toy-FedGreedy"

    def __init__(self, n_agents, horizon, dim, seed, ledger, epsilon: float = 0.1, period: int = 1):
        super().__init__(n_agents, horizon, dim, seed, ledger)
        if not 0.0 <= float(epsilon) <= 1.0:
            raise ValueError(f"parameter 'epsilon' must be in [0, 1], got {epsilon!r}")
        if int(period) < 0:
            raise ValueError(f"parameter 'period' must be >= 0, got {period!r}")
        self.epsilon, self.period = float(epsilon), int(period)
        self.rng = np.random.default_rng(seed)
        self.K = None

    def _init(self, K: int) -> None:
        self.K = K
        self.s, self.c = np.zeros((self.N, K)), np.zeros((self.N, K))
        self.S, self.C = np.zeros(K), np.zeros(K)

    def select(self, t, agents, arms):
        if not arms.shared:
            raise ValueError("Toy-FedGreedy needs a shared finite arm set (a finite-domain environment)")
        if self.K is None:
            self._init(len(arms.X))
        out = np.empty(len(agents), dtype=np.int64)
        for k, n in enumerate(agents):
            cnt = self.C + self.c[n]
            if self.rng.random() < self.epsilon:
                out[k] = self.rng.integers(self.K)
            elif np.any(cnt == 0):
                out[k] = int(np.flatnonzero(cnt == 0)[0])
            else:
                out[k] = int(np.argmax((self.S + self.s[n]) / cnt))
        return out

    def update(self, t, agents, arms, choices, rewards):
        for n, a, r in zip(agents, choices, rewards):
            self.s[n, a] += r
            self.c[n, a] += 1
        if self.period and (t + 1) % self.period == 0:
            for n in range(self.N):
                self.ledger.send(t, n, SERVER, "local_stats", 2 * self.K)
            self.ledger.broadcast(t, "pooled_stats", 2 * self.K, n_receivers=self.N)
            self.S += self.s.sum(axis=0)
            self.C += self.c.sum(axis=0)
            self.s[:], self.c[:] = 0.0, 0.0

    def info(self):
        return {"exchanges": int(self.T // self.period) if self.period else 0}
