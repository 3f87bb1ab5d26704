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

A policy whose construction needs more of the environment than its dimension (the Coop-KernelUCB family
needs the network) says so with a classmethod ``env_params(env, params) -> params`` that
:func:`bandits.runner.run_regret_cell` calls before constructing it: the paper's wiring lives with the
paper's policy, not in the generic runner.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .comm import CommLedger, comm_curve

__all__ = ["Policy", "Observer", "Trace", "run_regret", "PEPolicy", "PETrace", "run_pure_exploration"]


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
        wall_time: the run's wall-clock seconds; cpu_time: the CPU seconds of the process that ran it
            (``time.process_time``: every thread of the process; a loaded machine inflates it far less than the wall clock, though
            shared caches and memory still do).
    """

    regret: np.ndarray
    comm_up: np.ndarray
    comm_down: np.ndarray
    n_active: np.ndarray
    n_agents: int
    info: dict = field(default_factory=dict)
    wall_time: float = 0.0
    cpu_time: float = 0.0

    def comm_curve(self, convention: str = "paper") -> np.ndarray:
        return comm_curve(self.comm_up, self.comm_down, self.n_agents, convention)


class Observer:
    """Something that watches the loop (a theory check's recorder): :meth:`on_step` is called once per
    step, after the policy's ``update``, with what the loop saw. Observers never change a run: they
    read; the policy and the environment draw nothing for them. Subclass it, or pass any object with
    an ``on_step`` method (or a plain function of the same arguments) to :func:`run_regret`."""

    def on_step(self, t: int, agents: np.ndarray, arms, choices: np.ndarray, rewards: np.ndarray,
                means: np.ndarray, policy: Policy) -> None:  # pragma: no cover
        raise NotImplementedError


def _as_callback(observer):
    fn = getattr(observer, "on_step", observer)
    if not callable(fn):
        raise TypeError(f"an observer must have an on_step method or be callable, got {observer!r}")
    return fn


def run_regret(policy: Policy, env, horizon: int, n_agents: int,
               rng_env: np.random.Generator, rng_noise: np.random.Generator, observers=()) -> Trace:
    """Run ``policy`` on ``env`` for ``horizon`` steps and return its :class:`Trace`.

    ``observers``: :class:`Observer` objects (or callables) told of every step after the policy's update
    (they read; they cannot change the run)."""
    callbacks = [_as_callback(o) for o in observers]
    start, cpu_start = time.perf_counter(), time.process_time()
    regret = np.zeros(horizon)
    n_active = np.zeros(horizon, dtype=np.int64)
    for t in range(horizon):
        agents, arms, means = env.round(t, n_agents, rng_env)
        choices = np.asarray(policy.select(t, agents, arms), dtype=np.int64)
        if choices.shape != (len(agents),):
            raise RuntimeError(f"{policy.name}.select returned shape {choices.shape}, "
                               f"expected ({len(agents)},)")
        chosen = means[choices] if arms.shared else means[np.arange(len(agents)), choices]
        rewards = env.rewards(chosen, rng_noise)
        policy.update(t, agents, arms, choices, rewards)
        for cb in callbacks:
            cb(t, agents, arms, choices, rewards, means, policy)
        regret[t] = float(np.sum(env.best_means(means, len(agents)) - chosen))
        n_active[t] = len(agents)
    ledger: CommLedger = policy.ledger
    return Trace(regret=regret, comm_up=ledger.per_step("up"), comm_down=ledger.per_step("down"),
                 n_active=n_active, n_agents=n_agents, info=policy.info(),
                 wall_time=time.perf_counter() - start, cpu_time=time.process_time() - cpu_start)


# ------------------------------------------------------------------------------ pure exploration
class PEPolicy:
    """Base class for (collaborative) pure-exploration policies, batched by rounds.

    Each round the policy names how many times every agent pulls each of its arms; the loop
    returns the per-arm means of those pulls (the only statistics the CoPE-KB algorithms and their
    baselines use). Agents communicate through ``self.ledger`` (one time step per round).

    Args:
        instance: the public part of the problem (arm features, kernel; never ``F``).
        seed: the policy's SeedSequence.
        ledger: a :class:`CommLedger` whose horizon is the maximum number of rounds.
    """

    name = "pe-policy"

    def __init__(self, instance, seed: np.random.SeedSequence, ledger: CommLedger):
        self.instance, self.seed, self.ledger = instance, seed, ledger

    def next_allocation(self) -> np.ndarray | None:  # pragma: no cover
        """(V, n) non-negative integer pull counts for the next round, or ``None`` to stop."""
        raise NotImplementedError

    def observe(self, counts: np.ndarray, means: np.ndarray) -> None:  # pragma: no cover
        raise NotImplementedError

    def recommend(self) -> np.ndarray:  # pragma: no cover
        """(V,) the arm each agent returns."""
        raise NotImplementedError

    def info(self) -> dict:
        return {}


@dataclass
class PETrace:
    """What one pure-exploration run produced."""

    samples: np.ndarray  # (rounds, V) pulls of each agent in each round
    recommended: np.ndarray  # (V,)
    correct: np.ndarray  # (V,) bool
    comm_scalars: float
    info: dict = field(default_factory=dict)
    wall_time: float = 0.0
    cpu_time: float = 0.0  # as Trace.cpu_time

    @property
    def rounds(self) -> int:
        return int(self.samples.shape[0])

    @property
    def samples_per_agent(self) -> float:
        """CoPE-KB's sample complexity: total pulls over all agents divided by V."""
        return float(self.samples.sum() / self.samples.shape[1]) if self.samples.size else 0.0


def run_pure_exploration(policy: PEPolicy, instance, rng_noise: np.random.Generator,
                         max_rounds: int = 64, raw: bool = False) -> PETrace:
    """Run ``policy`` round by round until it stops (or ``max_rounds``, then raise)."""
    start, cpu_start = time.perf_counter(), time.process_time()
    per_round = []
    while True:
        alloc = policy.next_allocation()
        if alloc is None:
            break
        if len(per_round) >= max_rounds:
            raise RuntimeError(f"{policy.name} did not stop within {max_rounds} rounds")
        alloc = np.asarray(alloc, dtype=np.int64)
        means = instance.sample_means(alloc, rng_noise, raw=raw)
        policy.observe(alloc, means)
        per_round.append(alloc.sum(axis=1))
    rec = np.asarray(policy.recommend(), dtype=np.int64)
    samples = np.array(per_round, dtype=float).reshape(-1, instance.V)
    return PETrace(samples=samples, recommended=rec, correct=rec == instance.best,
                   comm_scalars=policy.ledger.total_up + policy.ledger.total_down, info=policy.info(),
                   wall_time=time.perf_counter() - start, cpu_time=time.process_time() - cpu_start)
