"""Environments: what the agents may choose each round, and the hidden reward means.

An environment is built once from ``(spec, env_seed)`` (the candidate set and, e.g., θ* are
fixed across Monte Carlo runs, as in the DUETS code) and then *streams* rounds from the run's
environment generator. The stream never depends on the algorithm, so every algorithm in a
comparison sees the same arm sets and the same noise draws (common random numbers).

Algorithms see :class:`Arms` (contexts, and candidate ids when the arm set is a fixed finite
domain). Only the simulation loop sees the means.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from ..validation import check, fail, one_of

__all__ = ["Arms", "FiniteDomainEnv", "ContextualEnv", "SCHEDULES", "REWARDS", "draw_rewards"]

SCHEDULES = ("sync", "uniform", "round_robin")
REWARDS = ("gaussian", "bernoulli", "deterministic")


def draw_rewards(kind: str, chosen: np.ndarray, noise_std: float, rng: np.random.Generator) -> np.ndarray:
    """Observed rewards of the chosen arms' means, one draw per active agent.

    ``gaussian``: ``μ + σ ε``; ``bernoulli``: ``1[u < μ]`` with ``u ~ U(0,1)``; ``deterministic``:
    ``μ``. The same number of uniform/normal draws is taken whatever was chosen, so every algorithm
    sees the same noise stream (common random numbers).
    """
    n = len(chosen)
    if kind == "gaussian":
        return chosen + noise_std * rng.standard_normal(n)
    if kind == "bernoulli":
        return (rng.random(n) < chosen).astype(float)
    if kind == "deterministic":
        return np.asarray(chosen, dtype=float).copy()
    fail("reward", kind, one_of(*REWARDS))


@dataclass
class Arms:
    """The decision sets of the active agents at one round.

    Attributes:
        X: (K, d) contexts shared by all active agents when ``shared``; else (n_active, K, d).
        ids: (K,) global candidate ids of the rows of X for finite domains (``None`` otherwise);
            algorithms that cache statistics over a fixed candidate set key them by these ids.
        shared: whether all active agents face the same K contexts.
    """

    X: np.ndarray
    ids: np.ndarray | None = None
    shared: bool = True

    def for_agent(self, k: int) -> np.ndarray:
        return self.X if self.shared else self.X[k]


@dataclass
class _Schedule:
    kind: str = "sync"

    def active(self, t: int, n_agents: int, rng: np.random.Generator) -> np.ndarray:
        if self.kind == "sync":
            return np.arange(n_agents)
        if self.kind == "uniform":
            return np.array([rng.integers(n_agents)])
        if self.kind == "round_robin":
            return np.array([t % n_agents])
        fail("schedule", self.kind, one_of(*SCHEDULES))


@dataclass
class FiniteDomainEnv:
    """A fixed finite candidate set ``X`` (M × d) with means ``f(X)`` and Gaussian noise.

    Every active agent may query any candidate each round. ``fstar`` is the discrete maximum
    ``max_i f(x_i)`` unless a continuous value is given (the DUETS paper does not say
    which; a choice of this package: the authors' code uses the discrete maximum, ``kernelbanditclass.py``,
    except for Branin, where ``branin_runscript.py`` passes the continuous 1.0474).
    """

    X: np.ndarray
    f: np.ndarray
    noise_std: float
    fstar: float | None = None
    name: str = "finite"
    schedule: str = "sync"
    info: dict = field(default_factory=dict)
    reward: str = "gaussian"

    def __post_init__(self):
        check("reward", self.reward, one_of(*REWARDS))
        self.X = np.asarray(self.X, dtype=float)
        self.f = np.asarray(self.f, dtype=float)
        if self.fstar is None:
            self.fstar = float(self.f.max())
        check("schedule", self.schedule, one_of(*SCHEDULES))
        self._arms = Arms(self.X, ids=np.arange(self.X.shape[0]), shared=True)
        self._sched = _Schedule(self.schedule)

    @property
    def dim(self) -> int:
        return self.X.shape[1]

    @property
    def argmax(self) -> int:
        return int(np.argmax(self.f))

    def round(self, t: int, n_agents: int, rng: np.random.Generator):
        """Returns ``(agents, arms, means)``; ``means`` has the shape of the decision set."""
        agents = self._sched.active(t, n_agents, rng)
        return agents, self._arms, self.f

    def rewards(self, chosen: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return draw_rewards(self.reward, chosen, self.noise_std, rng)

    def best_means(self, means: np.ndarray, n_active: int) -> np.ndarray:
        return np.full(n_active, self.fstar)


@dataclass
class ContextualEnv:
    """Fresh decision sets each round: ``K`` contexts per active agent from ``sampler``.

    ``sampler(rng, n) -> (n, d)`` draws contexts, ``f(X) -> means``. The best mean is taken
    within each agent's own decision set (contextual regret).
    """

    sampler: object
    f: object
    n_arms: int
    dim: int
    noise_std: float
    name: str = "contextual"
    schedule: str = "uniform"
    info: dict = field(default_factory=dict)
    reward: str = "gaussian"
    decision_sets: object = None  # optional (rng, n) -> (X (n, K, d), means (n, K)) drawn jointly

    def __post_init__(self):
        check("reward", self.reward, one_of(*REWARDS))
        self._sched = _Schedule(self.schedule)

    def round(self, t: int, n_agents: int, rng: np.random.Generator):
        agents = self._sched.active(t, n_agents, rng)
        if self.decision_sets is not None:
            X, means = self.decision_sets(rng, len(agents))
            return agents, Arms(np.asarray(X, dtype=float), ids=None, shared=False), np.asarray(means, dtype=float)
        X = self.sampler(rng, len(agents) * self.n_arms).reshape(len(agents), self.n_arms, self.dim)
        means = np.asarray(self.f(X.reshape(-1, self.dim))).reshape(len(agents), self.n_arms)
        return agents, Arms(X, ids=None, shared=False), means

    def rewards(self, chosen: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return draw_rewards(self.reward, chosen, self.noise_std, rng)

    def best_means(self, means: np.ndarray, n_active: int) -> np.ndarray:
        return means.max(axis=-1)
