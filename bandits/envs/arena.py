"""Environment adapters of the cross-paper arena (:mod:`bandits.experiments.arena`).

The arena runs every method of the five papers on the same environments under two protocols. The
environments themselves are the papers' own (``bandits.envs``: DUETS' finite domains, FN-UCB's cosine
and classification bandits, Async-KernelUCB's f1); the two wrappers below only change *who acts* and
*what a graph method may read*, never the arms, the means or the noise:

* :class:`OneClientEnv` (asynchronous protocol, Async-KernelUCB §3.1): at every step one client
  ``i_t ~ U{0, …, N−1}`` is active (drawn from the run's environment generator first), and faces the
  decision set the wrapped *single-agent* environment gives for that step
  (``inner.round(t, 1, rng)``). For FN-UCB's classification bandits this means all clients share one
  shuffled row stream (the inner environment's agent 0), which with ``T ≪ n`` rows is the same in
  distribution as one stream per client [our choice; the papers have no asynchronous classification
  bandit of this construction].
* :class:`CompleteGraphEnv` (synchronous protocol): the wrapped environment unchanged, plus the two
  attributes the Coop-KernelUCB family reads (``needs_network``): ``network``, the complete graph
  ``K_N`` built by :func:`bandits.graphs.network_from_graph` with ``γ = 1`` (every pair one hop apart,
  so an observation made at round ``s`` is usable by every agent from round ``s + 1``: the
  server-equivalent network, zero extra delay), and ``kz_true``, the all-ones ``N × N`` network kernel
  (every agent faces the same reward function, so the true task similarity is 1 for every pair).

Everything else (``dim``, ``fstar``, ``rewards``, ``best_means``, ``info``, ``name``) is read through
from the wrapped environment, so the regret is each paper's own for that environment.
"""
from __future__ import annotations

import numpy as np
from ..validation import check, ge, one_of

__all__ = ["OneClientEnv", "CompleteGraphEnv", "complete_graph_network"]


class _Wrapper:
    def __init__(self, inner):
        self.inner = inner

    def __getattr__(self, name):  # read-through (dim, fstar, info, name, rewards, best_means, ...)
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    @property
    def dim(self) -> int:
        return int(self.inner.dim)


class OneClientEnv(_Wrapper):
    """One uniformly drawn client per step over a synchronous single-agent environment (module docstring).

    Args:
        inner: an environment whose ``round(t, 1, rng)`` gives one agent's decision set (built with
            ``schedule="sync"``).
    """

    protocol = "async"

    def round(self, t: int, n_agents: int, rng: np.random.Generator):
        check("n_agents", n_agents, ge(1))
        client = int(rng.integers(n_agents))
        _, arms, means = self.inner.round(t, 1, rng)
        return np.array([client]), arms, means


def complete_graph_network(n_agents: int):
    """The complete graph ``K_N`` as a :class:`bandits.graphs.Network` with ``γ = 1``."""
    import networkx as nx

    from ..graphs import network_from_graph

    n = int(n_agents)
    check("n", n, ge(1))
    return network_from_graph(nx.complete_graph(n), gamma=1, name=f"complete K_{n}")


class CompleteGraphEnv(_Wrapper):
    """A synchronous environment that also exposes the complete graph and the all-ones ``K_z``.

    Args:
        inner: an environment whose every agent acts every round (``schedule="sync"``).
        n_agents: N, the number of nodes of the graph.
    """

    protocol = "sync"

    def __init__(self, inner, n_agents: int):
        super().__init__(inner)
        self.network = complete_graph_network(n_agents)
        self.kz_true = np.ones((int(n_agents), int(n_agents)))
        self.kz_true.setflags(write=False)

    def round(self, t: int, n_agents: int, rng: np.random.Generator):
        check("n_agents", n_agents, one_of(self.network.V), note="the graph's nodes")
        return self.inner.round(t, n_agents, rng)
