"""The simulation loops (layer 7).

:func:`run_regret` is the one regret-minimisation loop. Each step ``t`` the environment names
the active agents (all of them for synchronous protocols, one for asynchronous ones) and their
decision sets; the policy chooses; the loop draws the rewards and computes the regret from the
hidden means, which the policy never sees. Communication is logged by the policy into its
:class:`~bandits.comm.CommLedger`.

Policies implement the :class:`Policy` protocol::

    select(t, agents, arms) -> choices        # (n_active,) row indices into each decision set
    update(t, agents, arms, choices, rewards) # observe; communicate if the protocol says so
    info() -> dict                            # optional logs (epochs, dictionary sizes, ...)
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .comm import CommLedger

__all__ = ["Policy", "Trace", "run_regret"]


class Policy:
    """Base class for multi-agent regret-minimisation policies.

    Args:
        n_agents: number of agents N.
        horizon: number of steps T.
        dim: context dimension d.
        seed: the policy's ``numpy.random.SeedSequence`` (spawn per agent / server inside).
        ledger: where every message is recorded.
    """

    name = "policy"

    def __init__(self, n_agents: int, horizon: int, dim: int, seed: np.random.SeedSequence,
                 ledger: CommLedger):
        self.N, self.T, self.d = int(n_agents), int(horizon), int(dim)
        self.seed = seed
        self.ledger = ledger

    def select(self, t: int, agents: np.ndarray, arms) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def update(self, t, agents, arms, choices, rewards) -> None:  # pragma: no cover
        raise NotImplementedError

    def info(self) -> dict:
        return {}


@dataclass
class Trace:
    """What one run produced.

    Attributes:
        regret: (T,) instantaneous regret summed over the agents active at each step,
            ``Σ_n (f* − f(x_t^{(n)}))`` (DUETS Eq. 1 summand).
        comm_up, comm_down: (T,) scalars sent up / received down at each step (all agents).
        n_active: (T,) number of active agents per step.
        info: the policy's logs.
    """

    regret: np.ndarray
    comm_up: np.ndarray
    comm_down: np.ndarray
    n_active: np.ndarray
    n_agents: int
    info: dict = field(default_factory=dict)
    wall_time: float = 0.0

    def comm_curve(self, convention: str = "paper") -> np.ndarray:
        if convention == "paper":
            return np.cumsum(self.comm_up + self.comm_down) / self.n_agents
        if convention == "code_uplink":
            return np.cumsum(self.comm_up)
        if convention == "total":
            return np.cumsum(self.comm_up + self.comm_down)
        raise ValueError(f"unknown convention {convention!r}; allowed: paper, code_uplink, total")


def run_regret(policy: Policy, env, horizon: int, n_agents: int,
               rng_env: np.random.Generator, rng_noise: np.random.Generator) -> Trace:
    """Run ``policy`` on ``env`` for ``horizon`` steps and return its :class:`Trace`."""
    start = time.perf_counter()
    regret = np.zeros(horizon)
    n_active = np.zeros(horizon, dtype=np.int64)
    for t in range(horizon):
        agents, arms, means = env.round(t, n_agents, rng_env)
        choices = np.asarray(policy.select(t, agents, arms), dtype=np.int64)
        if choices.shape != (len(agents),):
            raise RuntimeError(f"{policy.name}.select returned shape {choices.shape}, "
                               f"expected ({len(agents)},)")
        chosen = means[choices] if arms.shared else means[np.arange(len(agents)), choices]
        rewards = chosen + env.noise(rng_noise, len(agents))
        policy.update(t, agents, arms, choices, rewards)
        regret[t] = float(np.sum(env.best_means(means, len(agents)) - chosen))
        n_active[t] = len(agents)
    ledger: CommLedger = policy.ledger
    return Trace(regret=regret, comm_up=ledger.per_step("up"), comm_down=ledger.per_step("down"),
                 n_active=n_active, n_agents=n_agents, info=policy.info(),
                 wall_time=time.perf_counter() - start)
