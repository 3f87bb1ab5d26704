r"""Communication graphs for the cooperative kernel bandits of Dubey & Pentland (ICML 2020).

Everything the Coop-KernelUCB family needs to know about the network, built on networkx:

* hop distances ``d(u, v)`` (all pairs; ``-1`` where unreachable), the γ-neighbourhood
  ``N_γ(v) = {u : d(u, v) ≤ γ}`` (``v`` included) and the γ-th graph power ``G_γ`` (edge ``(i, j)`` iff
  ``1 ≤ d(i, j) ≤ γ``; paper footnote 1 / §3.1);
* the clique cover ``𝐂_γ`` of ``G_γ`` used by Coop-KernelUCB (Algorithm 1): a minimum cover is NP-hard,
  so (a choice of this package: §3.2 and Algorithm 1 only ask for "a clique covering of the γ-power of
  G") every colour class of a greedy DSATUR colouring of the complement of ``G_γ`` is taken as one clique (a colour class of the complement is an independent set there,
  hence a clique of ``G_γ``);
* the central agents of Dist-KernelUCB (Algorithm 3, §4 "Fully-Cooperative Setting"): a greedy maximal
  weighted independent set of ``G_γ`` with weight ``w_v = |N_γ(v)|``, and the centre assignment
  ``cent(p)`` / ``π(c)``;
* exact independence number ``α`` and clique-cover number ``χ̄`` for small graphs (tests, theory
  checks), the BFS/snowball and random-walk-with-restart subsamplers (a choice of this package: the paper,
  §5 "Network Structures", only says "we subsample V nodes and their corresponding edges"), connected Erdős–Rényi graphs, Mycielski
  graphs and their complements (a family with ``α ≪ χ̄`` for the Dist-vs-Coop check of Theorem 2, §4), and the SNAP graphs of Figure 1 read through the
  checksummed data registry (:mod:`bandits.data`).

The algorithms consume the frozen :class:`Network` (distances, γ, clique cover, centres), built by
:func:`network_from_graph`. Nodes of every graph handed to it must be ``0..V-1``.

Randomness only through an explicit :class:`numpy.random.Generator`.
"""
from __future__ import annotations

import functools
import os
import time
from collections import deque
from dataclasses import dataclass

import networkx as nx
import numpy as np
from .validation import between, check, fail, integer, le, one_of, rule

__all__ = [
    "Network",
    "network_from_graph",
    "hop_distances",
    "graph_diameter",
    "default_gamma",
    "graph_power",
    "power_adjacency",
    "greedy_clique_cover",
    "greedy_weighted_mis",
    "assign_centres",
    "exact_independence_number",
    "exact_clique_cover_number",
    "is_clique_cover",
    "is_independent_set",
    "is_maximal_independent_set",
    "largest_component",
    "bfs_subsample",
    "random_walk_subsample",
    "subsample",
    "SAMPLERS",
    "connected_erdos_renyi",
    "mycielski",
    "mycielski_complement",
    "SNAP_GRAPHS",
    "SNAP_LABELS",
    "load_snap_graph",
    "relabel_consecutive",
]

SAMPLERS = ("bfs", "rw")

#: Registry names of the SNAP graphs of Figure 1, and the label every figure must use.
SNAP_GRAPHS = ("ego-facebook", "twitch", "as733")
SNAP_LABELS = {
    "ego-facebook": "ego-Facebook",
    "twitch": "musae-Twitch",
    "as733": "as-733 (stand-in for as-Skitter)",
}


# --------------------------------------------------------------------------------------------------
# Distances, graph powers
# --------------------------------------------------------------------------------------------------
def _check_nodes(G: nx.Graph) -> int:
    V = G.number_of_nodes()
    check("G", G, rule(lambda g: V > 0, "a graph with at least one node"),
          rule(lambda g: set(g.nodes) == set(range(V)), "a graph with nodes 0..V-1 (use relabel_consecutive)"),
          rule(lambda g: not g.is_directed(), "undirected"))
    return V


def relabel_consecutive(G: nx.Graph, order=None) -> nx.Graph:
    """Copy of ``G`` with nodes relabelled ``0..V-1`` (in ``order``, default sorted node order); the
    original label is kept as node attribute ``"orig"``. Self-loops are dropped."""
    nodes = list(order) if order is not None else sorted(G.nodes)
    check("order", nodes, rule(lambda o: len(o) == G.number_of_nodes() and set(o) == set(G.nodes),
                               "a list of every node of G, each once"))
    index = {u: i for i, u in enumerate(nodes)}
    H = nx.Graph()
    H.add_nodes_from((i, {"orig": u}) for i, u in enumerate(nodes))
    H.add_edges_from((index[u], index[v]) for u, v in G.edges if u != v)
    return H


def hop_distances(G: nx.Graph) -> np.ndarray:
    """All-pairs shortest-path (hop) distances by breadth-first search.

    Args:
        G: undirected graph on nodes ``0..V-1``.

    Returns:
        ``(V, V)`` int64 array, ``d(u, v)``; ``0`` on the diagonal and ``-1`` where ``v`` is not
        reachable from ``u``.
    """
    V = _check_nodes(G)
    D = np.full((V, V), -1, dtype=np.int64)
    for u, lengths in nx.all_pairs_shortest_path_length(G):
        idx = np.fromiter(lengths.keys(), dtype=np.int64, count=len(lengths))
        D[u, idx] = np.fromiter(lengths.values(), dtype=np.int64, count=len(lengths))
    return D


def graph_diameter(dist: np.ndarray) -> int:
    """Largest finite hop distance (the diameter for a connected graph; for a disconnected one the
    largest diameter of its components)."""
    dist = np.asarray(dist)
    return int(dist.max()) if dist.size else 0


def default_gamma(diameter: int, rounding: str = "floor") -> int:
    """The paper's message lifetime ``γ = diameter(G)/2`` (§5), rounded: ``max(1, ⌊diam/2⌋)`` by
    default (a choice of this package; the paper does not say how odd diameters are rounded), or
    ``max(1, ⌈diam/2⌉)`` with ``rounding="ceil"``."""
    if rounding == "floor":
        return max(1, int(diameter) // 2)
    if rounding == "ceil":
        return max(1, -(-int(diameter) // 2))
    fail("rounding", rounding, one_of("floor", "ceil"))


def _check_gamma(gamma) -> int:
    check("gamma", gamma, integer(ge=1), note="the message lifetime in hops")
    return int(gamma)


def power_adjacency(dist: np.ndarray, gamma: int) -> np.ndarray:
    """``(V, V)`` bool adjacency of ``G_γ``: ``1 ≤ d(i, j) ≤ γ`` (no self-loops)."""
    gamma = _check_gamma(gamma)
    dist = np.asarray(dist)
    return (dist >= 1) & (dist <= gamma)


def graph_power(G: nx.Graph, gamma: int) -> nx.Graph:
    """The γ-th power ``G_γ`` (networkx ``nx.power``): edge ``(i, j)`` iff ``1 ≤ d(i, j) ≤ γ``."""
    gamma = _check_gamma(gamma)
    return nx.power(G, gamma)


def _graph_from_adjacency(A: np.ndarray) -> nx.Graph:
    """Undirected graph on nodes 0..V-1 (inserted in that order) from a bool adjacency matrix."""
    H = nx.Graph()
    H.add_nodes_from(range(A.shape[0]))
    i, j = np.nonzero(np.triu(A, 1))
    H.add_edges_from(zip(i.tolist(), j.tolist()))
    return H


# --------------------------------------------------------------------------------------------------
# Clique cover, independent sets, centres
# --------------------------------------------------------------------------------------------------
def greedy_clique_cover(adj: np.ndarray) -> np.ndarray:
    """Greedy clique cover of the graph with bool adjacency ``adj`` (normally ``G_γ``).

    A minimum clique cover is NP-hard (the paper's ``χ̄(G_γ)``); as a choice of this package (the paper
    does not say how the cover is found) we colour the complement greedily with networkx's DSATUR (``nx.greedy_color(complement,
    strategy="saturation_largest_first")``): a colour class is independent in the complement, i.e. a
    clique of the graph. Nodes are inserted in id order, so ties are broken by node id and the
    result is deterministic.

    Args:
        adj: ``(V, V)`` bool symmetric adjacency without self-loops.

    Returns:
        ``(V,)`` int64 ``clique_of[v]``, the index of ``v``'s clique, ``0..|𝐂|-1``.
    """
    adj = np.asarray(adj, dtype=bool)
    comp = ~adj
    np.fill_diagonal(comp, False)
    colours = nx.greedy_color(_graph_from_adjacency(comp), strategy="saturation_largest_first")
    out = np.empty(adj.shape[0], dtype=np.int64)
    for v, c in colours.items():
        out[v] = c
    return out


def greedy_weighted_mis(adj: np.ndarray, weights) -> np.ndarray:
    """Greedy maximal weighted independent set (Dist-KernelUCB's central agents, §4 / Algorithm 3).

    The paper asks for "the maximal weighted independent set of ``G_γ``" with ``w_v = |N_γ(v)|``; a
    maximum-weight set is NP-hard, so (a choice of this package) nodes are visited in order of ``(−w_v, v)`` and
    added when none of their neighbours is already in the set. The result is maximal, hence
    dominating: every other node has a neighbour in it. Hand-written because networkx's
    ``maximal_independent_set`` is randomised and unweighted.

    Args:
        adj: ``(V, V)`` bool adjacency (``G_γ``).
        weights: ``(V,)`` node weights.

    Returns:
        ``(n_c,)`` int64 sorted ids of the chosen nodes.
    """
    adj = np.asarray(adj, dtype=bool)
    w = np.asarray(weights, dtype=float)
    check("weights", w, rule(lambda x: x.shape == (adj.shape[0],), f"a ({adj.shape[0]},) array"))
    order = np.lexsort((np.arange(len(w)), -w))
    blocked = np.zeros(len(w), dtype=bool)
    chosen = []
    for v in order:
        if not blocked[v]:
            chosen.append(v)
            blocked |= adj[v]
            blocked[v] = True
    return np.array(sorted(chosen), dtype=np.int64)


def assign_centres(adj: np.ndarray, centres) -> np.ndarray:
    """``cent(v)`` for every node (Algorithm 3; §4 "Fully-Cooperative Setting").

    A central agent is its own centre. A peripheral agent ``p`` is assigned the central agent it is
    connected to in ``G_γ``; "in case any peripheral agent is connected to more than one central
    agent, we assign it to the central agent with maximum degree in ``G_γ``" (paper), ties broken by
    the smallest id (a choice of this package; the paper gives no tie-break).

    Args:
        adj: ``(V, V)`` bool adjacency of ``G_γ``.
        centres: ``(n_c,)`` ids of a maximal independent set of ``G_γ``.

    Returns:
        ``(V,)`` int64 ``centre_of``.

    Raises:
        ValueError: a peripheral node has no adjacent centre (the set is not dominating).
    """
    adj = np.asarray(adj, dtype=bool)
    centres = np.asarray(centres, dtype=np.int64)
    V = adj.shape[0]
    deg = adj.sum(axis=1)
    # rank centres by (−degree, id): the first adjacent one in this order is the assignment
    ranked = centres[np.lexsort((centres, -deg[centres]))]
    centre_of = np.full(V, -1, dtype=np.int64)
    centre_of[centres] = centres
    hit = adj[:, ranked]  # (V, n_c)
    has = hit.any(axis=1)
    first = np.argmax(hit, axis=1)
    periph = centre_of < 0
    if np.any(periph & ~has):
        bad = np.nonzero(periph & ~has)[0]
        fail("centres", centres, "a dominating set (a maximal independent set)",
             note=f"nodes {bad[:10].tolist()} have no adjacent centre")
    centre_of[periph] = ranked[first[periph]]
    return centre_of


def is_clique_cover(adj: np.ndarray, clique_of) -> bool:
    """Every class of ``clique_of`` is a clique of the graph (a partition covers all nodes by
    construction: ``clique_of`` has one entry per node)."""
    adj = np.asarray(adj, dtype=bool)
    clique_of = np.asarray(clique_of)
    if clique_of.shape != (adj.shape[0],):
        return False
    same = clique_of[:, None] == clique_of[None, :]
    np.fill_diagonal(same, False)
    return bool(np.all(adj[same]))


def is_independent_set(adj: np.ndarray, nodes) -> bool:
    nodes = np.asarray(nodes, dtype=np.int64)
    return bool(not np.asarray(adj, dtype=bool)[np.ix_(nodes, nodes)].any())


def is_maximal_independent_set(adj: np.ndarray, nodes) -> bool:
    """Independent, and every other node has a neighbour in the set."""
    adj = np.asarray(adj, dtype=bool)
    nodes = np.asarray(nodes, dtype=np.int64)
    if not is_independent_set(adj, nodes):
        return False
    outside = np.setdiff1d(np.arange(adj.shape[0]), nodes)
    return bool(np.all(adj[np.ix_(outside, nodes)].any(axis=1))) if outside.size else True


def exact_independence_number(G_or_adj) -> int:
    """Exact ``α``: the size of a maximum clique of the complement (networkx ``max_weight_clique``,
    branch and bound; exponential in the worst case, meant for small graphs)."""
    adj = _as_adjacency(G_or_adj)
    comp = ~adj
    np.fill_diagonal(comp, False)
    _, size = nx.max_weight_clique(_graph_from_adjacency(comp), weight=None)
    return int(size)


def exact_clique_cover_number(G_or_adj, max_nodes: int = 60) -> int:
    """Exact clique-cover number ``χ̄`` = chromatic number of the complement.

    networkx has no exact colouring routine, so this is a hand-written DSATUR branch and bound
    (Brélaz 1979): colour the vertex with the most distinct neighbour colours next, try the used
    colours then one new colour, prune when the colour count reaches the best found. The initial
    upper bound is networkx's greedy DSATUR colouring and the lower bound a maximum clique of the
    complement. Exponential in the worst case: ``max_nodes`` guards against accidental use on big
    graphs.
    """
    adj = _as_adjacency(G_or_adj)
    V = adj.shape[0]
    check("V", V, le(max_nodes))
    comp = ~adj
    np.fill_diagonal(comp, False)
    H = _graph_from_adjacency(comp)
    upper = len(set(nx.greedy_color(H, strategy="saturation_largest_first").values())) if V else 0
    lower = nx.max_weight_clique(H, weight=None)[1] if V else 0
    if upper <= lower:
        return int(upper)
    nbrs = [np.nonzero(comp[v])[0] for v in range(V)]
    best = [upper]
    colour = np.full(V, -1, dtype=np.int64)

    def recurse(n_coloured: int, n_used: int) -> bool:
        if n_used >= best[0]:
            return False
        if n_coloured == V:
            best[0] = n_used
            return best[0] <= lower
        # DSATUR choice: max saturation, then max degree in the uncoloured part, then smallest id
        pick, key = -1, None
        for v in range(V):
            if colour[v] >= 0:
                continue
            cs = colour[nbrs[v]]
            sat = len(set(cs[cs >= 0].tolist()))
            k = (sat, int(np.sum(cs < 0)))
            if key is None or k > key:
                pick, key = v, k
        forbidden = set(colour[nbrs[pick]][colour[nbrs[pick]] >= 0].tolist())
        for c in range(min(n_used + 1, best[0] - 1)):
            if c in forbidden:
                continue
            colour[pick] = c
            if recurse(n_coloured + 1, max(n_used, c + 1)):
                return True
            colour[pick] = -1
        return False

    recurse(0, 0)
    return int(best[0])


def _as_adjacency(G_or_adj) -> np.ndarray:
    if isinstance(G_or_adj, nx.Graph):
        V = _check_nodes(G_or_adj)
        A = nx.to_numpy_array(G_or_adj, nodelist=range(V), dtype=bool, weight=None)
        np.fill_diagonal(A, False)
        return A
    A = np.asarray(G_or_adj, dtype=bool).copy()
    check("adjacency", A, rule(lambda a: a.ndim == 2 and a.shape[0] == a.shape[1], "a square matrix"))
    np.fill_diagonal(A, False)
    return A


# --------------------------------------------------------------------------------------------------
# The network the algorithms consume
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Network:
    """The communication network as the Coop-KernelUCB algorithms see it (read-only arrays).

    Attributes:
        dist: ``(V, V)`` int64 hop distances ``d(u, v)``, ``-1`` where unreachable.
        gamma: message lifetime ``γ`` (hops); observation ``(u, s)`` can reach ``v`` iff
            ``0 ≤ d(u, v) ≤ γ``.
        clique_of: ``(V,)`` int64 index of ``v``'s clique ``C(v)`` in the greedy clique cover of ``G_γ``
            (Coop-KernelUCB, Algorithm 1).
        centres: ``(n_c,)`` int64 sorted central agents ``𝒱_C`` (greedy maximal weighted independent set
            of ``G_γ``, weights ``|N_γ(v)|``; Dist-KernelUCB, Algorithm 3).
        centre_of: ``(V,)`` int64 ``cent(v)`` (``= v`` for a centre).
        name: label for figures.

    ``eq=False``: networks compare by identity (their fields are arrays).
    """

    dist: np.ndarray
    gamma: int
    clique_of: np.ndarray
    centres: np.ndarray
    centre_of: np.ndarray
    name: str = ""

    def __post_init__(self):
        V = self.dist.shape[0]
        check("dist", self.dist, rule(lambda a: a.shape == (V, V) and a.dtype == np.int64, "a (V, V) int64 array"))
        _check_gamma(self.gamma)
        for name, arr, shape in (("clique_of", self.clique_of, (V,)), ("centre_of", self.centre_of, (V,))):
            check(name, arr, rule(lambda a: a.shape == shape and a.dtype == np.int64, f"a ({V},) int64 array"))
        check("centres", self.centres, rule(lambda a: a.ndim == 1 and a.dtype == np.int64, "a 1-d int64 array"))
        for arr in (self.dist, self.clique_of, self.centres, self.centre_of):
            arr.setflags(write=False)

    @property
    def V(self) -> int:
        return int(self.dist.shape[0])

    @property
    def reach(self) -> np.ndarray:
        """``(V, V)`` bool, ``reach[u, v] = 0 ≤ d(u, v) ≤ γ`` (``u ∈ N_γ(v)``; diagonal True)."""
        return (self.dist >= 0) & (self.dist <= self.gamma)

    @property
    def adjacency(self) -> np.ndarray:
        """``(V, V)`` bool adjacency of ``G_γ``."""
        return power_adjacency(self.dist, self.gamma)

    @property
    def neighbourhood_sizes(self) -> np.ndarray:
        """``(V,)`` ``|N_γ(v)|`` (``v`` included)."""
        return self.reach.sum(axis=1)

    @property
    def cliques(self) -> list[np.ndarray]:
        """The cliques of the cover, each a sorted int64 array of agents."""
        return [np.nonzero(self.clique_of == c)[0] for c in range(int(self.clique_of.max()) + 1)]

    @property
    def peripherals(self) -> np.ndarray:
        return np.nonzero(self.centre_of != np.arange(self.V))[0]

    @property
    def diameter(self) -> int:
        return graph_diameter(self.dist)

    def stats(self) -> dict:
        """``V``, ``diam``, ``gamma``, ``cover`` (``|𝐂|``, upper bound on ``χ̄(G_γ)``), ``max_clique``
        (largest clique of the cover), ``n_c`` (``|𝒱_C|``, lower bound on ``α(G_γ)``), ``mean_nbhd``
        (mean ``|N_γ(v)|``), ``connected``."""
        sizes = np.bincount(self.clique_of)
        return {"name": self.name, "V": self.V, "diam": self.diameter, "gamma": int(self.gamma),
                "cover": int(sizes.size), "max_clique": int(sizes.max()), "n_c": int(self.centres.size),
                "mean_nbhd": float(self.neighbourhood_sizes.mean()),
                "connected": bool(np.all(self.dist >= 0))}


def network_from_graph(G: nx.Graph, gamma: int | None = None, name: str = "",
                       gamma_rounding: str = "floor") -> Network:
    """Distances, ``γ``, clique cover of ``G_γ``, central agents and centre assignment of ``G``.

    Args:
        G: undirected graph on nodes ``0..V-1``.
        gamma: message lifetime; default ``max(1, ⌊diam(G)/2⌋)`` (paper §5: "γ = diameter(G)/2";
            for a disconnected graph, the largest component diameter).
        name: label for figures.
        gamma_rounding: "floor" (default) or "ceil" for the default γ.
    """
    dist = hop_distances(G)
    if gamma is None:
        gamma = default_gamma(graph_diameter(dist), gamma_rounding)
    gamma = _check_gamma(gamma)
    adj = power_adjacency(dist, gamma)
    clique_of = greedy_clique_cover(adj)
    weights = adj.sum(axis=1) + 1  # |N_γ(v)|
    centres = greedy_weighted_mis(adj, weights)
    centre_of = assign_centres(adj, centres)
    return Network(dist=dist, gamma=gamma, clique_of=clique_of, centres=centres, centre_of=centre_of,
                   name=str(name))


# --------------------------------------------------------------------------------------------------
# Subsamplers and generators
# --------------------------------------------------------------------------------------------------
def _check_rng(rng) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


def _check_V(V, G: nx.Graph | None = None) -> int:
    check("V", V, integer(ge=1), note="the number of nodes to sample")
    if G is not None:
        check("V", V, le(G.number_of_nodes()), note="the nodes of the largest connected component")
    return int(V)


def largest_component(G: nx.Graph) -> nx.Graph:
    """The largest connected component (ties: the one with the smallest node), relabelled
    ``0..n-1`` in sorted order of the original labels (kept in ``"orig"``)."""
    check("G", G, rule(lambda g: g.number_of_nodes() > 0, "a non-empty graph"))
    comps = list(nx.connected_components(G))
    best = max(comps, key=lambda c: (len(c), -min(c)))
    return relabel_consecutive(G.subgraph(best))


def bfs_subsample(G: nx.Graph, V: int, rng: np.random.Generator) -> nx.Graph:
    """Snowball / breadth-first sample of ``V`` nodes (this package's default; the paper, §5, does not say how it subsamples).

    A uniformly random seed node of the largest connected component; breadth-first visit, each
    node's unvisited neighbours enqueued in random order; stop at ``V`` nodes; induced subgraph
    (connected by construction), relabelled ``0..V-1`` in visit order (original labels in
    ``"orig"``). Hand-written because networkx's BFS visits neighbours in insertion order.

    Args:
        G: undirected graph.
        V: number of nodes.
        rng: the sampler's generator.
    """
    rng = _check_rng(rng)
    H = largest_component(G)
    V = _check_V(V, H)
    nodes = np.array(sorted(H.nodes))
    seed = int(nodes[rng.integers(len(nodes))])
    seen = {seed}
    order = [seed]
    queue = deque([seed])
    while queue and len(order) < V:
        u = queue.popleft()
        nb = [w for w in sorted(H.neighbors(u)) if w not in seen]
        for i in rng.permutation(len(nb)):
            w = nb[i]
            seen.add(w)
            order.append(w)
            queue.append(w)
            if len(order) == V:
                break
    S = H.subgraph(order)
    return _relabel_keep_orig(S, H, order)


def _relabel_keep_orig(S: nx.Graph, H: nx.Graph, order) -> nx.Graph:
    index = {u: i for i, u in enumerate(order)}
    out = nx.Graph()
    out.add_nodes_from((i, {"orig": H.nodes[u].get("orig", u)}) for i, u in enumerate(order))
    out.add_edges_from((index[u], index[v]) for u, v in S.edges)
    return out


def random_walk_subsample(G: nx.Graph, V: int, rng: np.random.Generator, restart: float = 0.15,
                          max_stall: int | None = None) -> nx.Graph:
    """Random walk with restart (Leskovec & Faloutsos 2006; an option of this package, restart ``p = 0.15``).

    A uniformly random start node of the largest connected component; each step returns to the
    start with probability ``restart``, otherwise moves to a uniform neighbour; distinct visited nodes
    are collected until there are ``V``. If ``max_stall`` steps (default ``100·V``) bring no new node,
    the walk restarts from a uniformly chosen *visited* node (keeps the sample connected; the
    original method picks a fresh start). Induced subgraph, relabelled ``0..V-1`` in order of first
    visit.
    """
    rng = _check_rng(rng)
    check("restart", restart, between(0.0, 1.0, "left"))
    H = largest_component(G)
    V = _check_V(V, H)
    stall_limit = 100 * V if max_stall is None else int(max_stall)
    nbrs = {u: np.array(sorted(H.neighbors(u))) for u in H.nodes}
    start = int(rng.integers(H.number_of_nodes()))
    cur = start
    order = [start]
    seen = {start}
    stall = 0
    while len(order) < V:
        if rng.random() < restart:
            cur = start
        else:
            nb = nbrs[cur]
            cur = int(nb[rng.integers(len(nb))])
        if cur in seen:
            stall += 1
            if stall >= stall_limit:
                start = cur = order[int(rng.integers(len(order)))]
                stall = 0
        else:
            seen.add(cur)
            order.append(cur)
            stall = 0
    return _relabel_keep_orig(H.subgraph(order), H, order)


def subsample(G: nx.Graph, V: int, rng: np.random.Generator, method: str = "bfs",
              restart: float = 0.15) -> nx.Graph:
    """``bfs_subsample`` (``method="bfs"``, default) or ``random_walk_subsample`` (``"rw"``)."""
    if method == "bfs":
        return bfs_subsample(G, V, rng)
    if method == "rw":
        return random_walk_subsample(G, V, rng, restart=restart)
    fail("sampler", method, one_of(*SAMPLERS))


def connected_erdos_renyi(n: int, p: float, rng: np.random.Generator, max_tries: int = 1000) -> nx.Graph:
    """``G(n, p)`` (networkx ``gnp_random_graph``), redrawn until connected (paper §5: "random
    connected Erdős–Rényi networks of size V = 200 with p = 0.7")."""
    rng = _check_rng(rng)
    n = _check_V(n)
    check("p", p, between(0.0, 1.0, "both"))
    for _ in range(int(max_tries)):
        G = nx.gnp_random_graph(n, p, seed=rng)
        if nx.is_connected(G):
            return G
    raise RuntimeError(f"no connected G({n}, {p}) in {max_tries} draws; raise p")


def mycielski(k: int) -> nx.Graph:
    """The ``k``-th Mycielski graph ``M_k`` (networkx; triangle-free, chromatic number ``k``; 23 nodes
    for k = 5, 47 for k = 6)."""
    check("k", k, rule(lambda v: isinstance(v, (int, np.integer)) and v >= 1, "an integer >= 1"))
    return nx.mycielski_graph(int(k))


def mycielski_complement(k: int) -> nx.Graph:
    """Complement of ``M_k`` (the Dist-vs-Coop check of Theorem 2, §4, in ``notebooks/coop_theory``): for ``k ≥ 4``, diameter 2 (so ``γ = 1``), ``α = ω(M_k) = 2``
    and ``χ̄ = χ(M_k) = k``, a graph family with ``α ≪ χ̄``."""
    return nx.complement(mycielski(k))


# --------------------------------------------------------------------------------------------------
# SNAP graphs through the checksummed data registry
# --------------------------------------------------------------------------------------------------
def _snap_files(name: str, lang: str) -> tuple[str, ...]:
    if name == "twitch":
        return tuple(f"twitch-{lang}-{k}" for k in ("edges", "target", "features"))
    return {"ego-facebook": ("ego-facebook",), "as733": ("as20000102",)}[name]


def _snap_stat_key(name: str, lang: str, root) -> tuple:
    """(path, size, mtime) of the graph's files: the parse cache below is invalidated when a file
    changes, and a missing file skips the cache so the loader raises its own error."""
    from . import data as D

    key = []
    for f in _snap_files(name, lang):
        try:
            path = D.fetch_path(f, root=root, verify=False)
            st = os.stat(path)
        except (OSError, D.DataError):
            return (None, time.monotonic_ns())  # uncached: the loader reports the problem
        key.append((str(path), st.st_size, st.st_mtime_ns))
    return tuple(key)


@functools.lru_cache(maxsize=8)
def _cached_snap_graph(name: str, lang: str, root, verify: bool, stat_key):
    return _snap_graph(name, lang, root, verify)


def _snap_graph(name: str, lang: str, root, verify: bool):
    from . import data as D

    if name == "ego-facebook":
        g = D.load_ego_facebook(root=root, verify=verify)
    elif name == "twitch":
        g = D.load_twitch(lang, root=root, verify=verify).graph
    elif name == "as733":
        g = D.load_as733(root=root, verify=verify)
    else:
        fail("name", name, one_of(*SNAP_GRAPHS))
    return g


def load_snap_graph(name: str, *, lang: str = "ENGB", root=None, verify: bool = True,
                    largest_cc: bool = True) -> nx.Graph:
    """A SNAP graph of Figure 1 as a networkx graph (the paper, §5, only names the networks; the
    preprocessing below is a choice of this package).

    Read through :mod:`bandits.data` (registry, checksums; ``DataNotFoundError`` when the file is
    missing, ``DataChecksumError`` when it was altered), as an undirected simple graph (self-loops and
    duplicates dropped by the parser), restricted to its largest connected component and relabelled
    ``0..n-1`` (original SNAP ids in node attribute ``"orig"``). The graph's ``name`` attribute is the
    figure label (:data:`SNAP_LABELS`; the as-733 snapshot stands in for as-Skitter).

    Args:
        name: ``"ego-facebook"``, ``"twitch"`` (the musae-Twitch language graph ``lang``; which one the
            paper used is not stated, default ENGB) or ``"as733"``.
        lang: Twitch language (DE ENGB ES FR PTBR RU TW).
        root: data directory (default ``$BANDITS_DATA_DIR``).
        verify: check the sha256 against the registry.
        largest_cc: keep only the largest connected component.
    """
    check("name", name, one_of(*SNAP_GRAPHS))
    lang = str(lang).upper()
    g = _cached_snap_graph(name, lang, None if root is None else str(root), bool(verify),
                           _snap_stat_key(name, lang, root))
    G = nx.Graph()
    G.add_nodes_from((i, {"orig": int(o)}) for i, o in enumerate(np.asarray(g.node_ids)))
    G.add_edges_from(np.asarray(g.edges, dtype=np.int64).tolist())
    G.remove_edges_from(nx.selfloop_edges(G))
    if largest_cc:
        G = largest_component(G)
    label = SNAP_LABELS[name] + (f" {lang}" if name == "twitch" else "")
    G.graph["name"] = label
    return G
