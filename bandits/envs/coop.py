r"""Environments of the cooperative kernel bandit paper (Dubey & Pentland, ICML 2020, §5, Figure 1).

``V`` agents on a graph; every round *all* agents act, each on its own decision set of ``K = 8`` fresh
contexts in ``R^d`` (``d = 10``), and receive ``y = f_v(x) + ε`` with ``f_v(x) = F(x, z_v)`` and
``ε ~ N(0, R²)`` (``R = 0.1``; the paper states no noise law or level: a choice of this package). Regret is
measured against each agent's best arm in its own decision set.

The paper states only ``V = 200``, 8 contexts, ``d = 10`` and the two kernel setups; every other
choice below is a choice of this package where the paper is silent, each a config option:

**Setup 1 (``setup="linear"``): linear ``K_x``, clustered ``K_z``.** The paper: "``K_z`` is a clustering
of the agents given by the independent sets of the γ-th power of ``G``". Read literally (colour classes
of ``G_γ``: mutually far-apart agents) no agent would ever receive same-cluster data, contradicting §5's
"network connectivity and task similarity are correlated", so (our reading) the clusters are the stars ``{c} ∪ π(c)`` around Dist-KernelUCB's central agents (``cluster_mode=
"mis_star"``); ``"clique_cover"`` (cliques of ``G_γ``), ``"coloring"`` (the literal reading: greedy colour
classes of ``G_γ``) and ``"equal"`` (``n_clusters`` equal blocks of node ids, for the heterogeneity check
C4) are options. With ``min_clusters`` (default 2, a choice of this package) the largest cluster is split in two by BFS
order from its centre until there are that many (a BFS sample of a SNAP graph often has a single
centre, which would make the panel fully cooperative). True ``K_z(u, v) = 1{cluster(u) = cluster(v)}``.

* ``θ_c ~ Uniform(S^{d−1})`` per cluster, ``f_v(x) = θ_{c(v)}ᵀ x``;
* contexts ``x = normalise(m_{c(v)} + ξ)``, ``m_c ~ Uniform(S^{d−1})``, ``ξ ~ N(0, (s²/d) I)``, ``s = 1``
  (``‖x‖ = 1``; agent-dependent context laws are what makes the MMD estimate of ``K_z``, Sec. 3.3,
  informative).

**Setup 2 (``setup="rbf"``): RBF ``K_x`` and RBF ``K_z``.** The paper (§5): "The second setup is where
``K_x`` and ``K_z`` are both randomly initialized Gaussian kernels (where ``K_z`` is again unknown to our
method)", "For the kernel estimation task, we set σ=1". It leaves open the network contexts ``z_v``, the
lengthscales, the agents' context laws ``P_v`` and the reward; the learner estimates ``K_z`` by the MMD
of the ``P_v`` in ``H_{K_x}`` (§3.3, Eq. 10–12), so ``K̂_z`` can only see the task structure through
the context laws. Our choice:

* network contexts ``z_v = normalise(m_{c(v)} + ρ ξ_v)``, ``ξ_v ~ N(0, I/d)``, ``ρ = 0.2``, clusters as in
  setup 1 (``z_mode="cluster"``; ``"iid"``: ``z_v ~ Uniform(S^{d−1})``): true ``K_z`` ≈ 0.87 within a
  cluster, 0.06 across (ER(200, 0.7));
* ``K_x(x, x') = exp(−‖x − x'‖²/(2ℓ_x²))``, ``K_z(z, z') = exp(−‖z − z'‖²/(2ℓ_z²))`` with ``ℓ_x = 2``,
  ``ℓ_z = 0.5`` (values of this package's pilot runs) or, with ``"random"``, ``ℓ ~ Uniform[0.5, 2]`` drawn from the
  environment seed;
* contexts ``x = normalise(ω z_v + ξ)``, ``ξ ~ N(0, I/d)``, ``ω = 1``: agent ``v``'s context law is
  centred on its own ``z_v``, so that the MMD in ``H_{K_x}`` at the paper's ``σ_z = 1`` separates
  clusters (:func:`bandits.experiments.coop_kernelucb.kz_separation`; measured on ER(200, 0.7) with 128 RFF of ``K_x`` and i.i.d.
  contexts: ``K̂_z`` 0.96 within a cluster, 0.82 across, every within-cluster pair above every
  across-cluster pair, at 100 samples per agent; the rank that keeps 95 % of an agent's own variance
  falls from ≈ 9 (10 samples) to ≈ 2 (1 000) over an Eager neighbourhood of 129 agents).
  With ``ρ = ω = 0.5`` instead, ``K̂_z`` at σ_z = 1 is 0.94 within and 0.88 across while the true ``K_z``
  is 0.49 within (rank ≈ 49 for the safeguard with the oracle ``K_z``): the estimate cannot see the
  structure that matters for the rewards. With ``K_x`` of lengthscale 2 on
  the unit sphere no context law can push ``K̂_z`` below ``exp(−√(2(1 − e^{−1/2}))/2) ≈ 0.64`` at
  σ_z = 1 (the unsquared MMD of Eq. 11 is at most ``√(2(1 − min K_x))``), so across-cluster pairs keep a
  sizeable estimated similarity at the paper's σ; the separation is in the ordering, not the size;
* ``F(x, z) = Σ_{j=1}^{M} a_j K_x(x, p_j) K_z(z, q_j)``, ``M = 10`` anchors: ``q_j = z_{v_j}`` for uniformly
  drawn agents ``v_j``, ``p_j`` a context drawn from agent ``v_j``'s law, ``a_j ~ N(0, 1)``, rescaled so that
  ``max |F(x, z_v)|`` over 32 contexts per agent (drawn from the environment seed) is 1.

**Fixed arms (``setup="fixed"``, Theorem 2 checks):** one cluster (all ``z_v`` equal, ``K_z ≡ 1``), one fixed
set of ``K`` unit vectors shared by every agent and round; linear reward ``θᵀx`` or an RBF reward
``Σ_j a_j K_x(x, p_j)`` (``M`` anchors on the sphere, ``max_x |f(x)| = 1`` over the arms).

**Public and hidden attributes.** Policies may read ``env.network`` (the :class:`~bandits.graphs.Network`:
distances, ``γ``, clique cover, centres) and ``env.kernel_x`` (the action kernel's spec, known to the
learner in the paper). ``env.kz_true`` (``(V, V)`` true network kernel) is *hidden truth*: an algorithm
may receive it only in its oracle-``K_z`` mode (the paper's algorithms estimate ``K_z`` by MMD); the
cluster labels, ``z`` and reward parameters live in ``env.truth`` for diagnostics and tests only.

**Seeds.** The graph is drawn from ``graph_seed`` (default: ``env_seed``) and the reward parameters,
cluster means and ``z`` from ``env_seed``, through ``SeedSequence([seed, crc32(tag)])``; the contexts and
the noise stream from the run's generators (common random numbers across algorithms). Setting
``graph_seed`` fixes the panel's graph while ``env_seed`` refreshes the bandit parameters per
repetition (the paper: "the bandit contexts were refreshed every trial").
"""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from .. import graphs as gr
from ..kernels import RBF
from .base import REWARDS, Arms, FiniteDomainEnv, draw_rewards
from ..validation import between, check, fail, ge, integer, keys_in, le, one_of, optional, rule

__all__ = ["CoopEnv", "CoopFixedArmEnv", "make_coop_env", "coop_network", "coop_clusters",
           "split_clusters", "GRAPHS", "SETUPS", "CLUSTER_MODES", "COOP_KEYS"]

SETUPS = ("linear", "rbf", "fixed")
GRAPHS = ("er", "complete", "path", "cycle", "star", "mycielski-complement") + gr.SNAP_GRAPHS
CLUSTER_MODES = ("mis_star", "clique_cover", "coloring", "equal")

#: Every key a ``{"kind": "coop", ...}`` spec may hold, with its default.
COOP_KEYS = {
    "kind": "coop", "name": None, "setup": "linear",
    # graph
    "graph": "er", "V": 200, "p": 0.7, "k": 5, "sampler": "bfs", "restart": 0.15, "lang": "ENGB",
    "gamma": None, "gamma_rounding": "floor", "graph_seed": None,
    # bandit
    "K": 8, "d": 10, "noise_std": 0.1, "reward": "gaussian",
    "cluster_mode": "mis_star", "min_clusters": 2, "n_clusters": None, "s": 1.0,
    "rho": 0.2, "omega": 1.0, "z_mode": "cluster", "lengthscale_x": 2.0, "lengthscale_z": 0.5,
    "M": 10, "kernel": "linear",
}


def _seq(tag: str, seed: int) -> np.random.SeedSequence:
    import zlib

    return np.random.SeedSequence([int(seed), zlib.crc32(tag.encode())])


def _normalise(X: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(X, axis=-1, keepdims=True)
    return X / np.where(n > 0, n, 1.0)


def _sphere(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    return _normalise(rng.standard_normal((n, d)))


# --------------------------------------------------------------------------------------------------
# Graph of a panel
# --------------------------------------------------------------------------------------------------
def _build_graph(spec: dict, rng: np.random.Generator) -> tuple[nx.Graph, str]:
    g, V = spec["graph"], spec["V"]
    if g == "er":
        return gr.connected_erdos_renyi(V, spec["p"], rng), f"Erdős–Rényi ({V}, {spec['p']:g})"
    if g == "complete":
        return nx.complete_graph(V), f"complete ({V})"
    if g == "path":
        return nx.path_graph(V), f"path ({V})"
    if g == "cycle":
        return nx.cycle_graph(V), f"cycle ({V})"
    if g == "star":
        return nx.star_graph(V - 1), f"star ({V})"
    if g == "mycielski-complement":
        return gr.mycielski_complement(spec["k"]), f"Mycielski-{spec['k']} complement"
    full = gr.load_snap_graph(g, lang=spec["lang"])
    sample = gr.subsample(full, V, rng, method=spec["sampler"], restart=spec["restart"])
    how = "BFS" if spec["sampler"] == "bfs" else "random walk"
    return sample, f"{full.graph['name']}, {how} sample of {V}"


@functools.lru_cache(maxsize=32)
def _cached_network(graph_json: str, graph_seed: int, data_key) -> gr.Network:
    spec = json.loads(graph_json)
    rng = np.random.default_rng(_seq("coop-graph", graph_seed))
    G, label = _build_graph(spec, rng)
    return gr.network_from_graph(G, gamma=spec["gamma"], name=label, gamma_rounding=spec["gamma_rounding"])


def coop_network(spec: dict, env_seed: int = 0) -> gr.Network:
    """The panel's :class:`~bandits.graphs.Network` for a coop env spec (deterministic in
    ``graph_seed``, default ``env_seed``; cached per process). SNAP graphs are read through the
    checksummed data registry; the cache key includes their files' size and mtime."""
    spec = _complete_spec(spec)
    keys = ("graph", "V", "p", "k", "sampler", "restart", "lang", "gamma", "gamma_rounding")
    gspec = {k: spec[k] for k in keys}
    data_key = None
    if spec["graph"] in gr.SNAP_GRAPHS:
        data_key = gr._snap_stat_key(spec["graph"], str(spec["lang"]).upper(), None)
    seed = spec["graph_seed"] if spec["graph_seed"] is not None else env_seed
    return _cached_network(json.dumps(gspec, sort_keys=True), int(seed), data_key)


# --------------------------------------------------------------------------------------------------
# Clusters
# --------------------------------------------------------------------------------------------------
def split_clusters(labels: np.ndarray, network: gr.Network, min_clusters: int) -> np.ndarray:
    """Split the largest cluster (ties: smallest label) in two until there are ``min_clusters``.

    The members of the cluster are ordered by hop distance from its anchor (its central agent if it
    holds one, else its smallest id; unreachable last), then id: the first ``⌈n/2⌉`` keep the label, the
    rest get a new one (a choice of this package, as is the halving rule). Labels are renumbered ``0..`` in order of first appearance.
    """
    labels = np.asarray(labels, dtype=np.int64).copy()
    V = labels.size
    check("min_clusters", min_clusters, le(V))
    centres = set(network.centres.tolist())
    while np.unique(labels).size < min_clusters:
        sizes = np.bincount(labels)
        big = int(np.argmax(sizes))
        members = np.nonzero(labels == big)[0]
        anchor = next((m for m in members if m in centres), members[0])
        d = network.dist[anchor, members].astype(float)
        d[d < 0] = np.inf
        order = members[np.lexsort((members, d))]
        labels[order[(len(order) + 1) // 2:]] = labels.max() + 1
    _, first = np.unique(labels, return_index=True)
    remap = np.empty(labels.max() + 1, dtype=np.int64)
    remap[labels[np.sort(first)]] = np.arange(first.size)
    return remap[labels]


def coop_clusters(network: gr.Network, mode: str = "mis_star", min_clusters: int = 1,
                  n_clusters: int | None = None) -> np.ndarray:
    """``(V,)`` int64 cluster label of every agent (setup 1's ``K_z``; setup 2's ``z`` means).

    Args:
        network: the panel's network.
        mode: ``"mis_star"`` (``{c} ∪ π(c)`` around each central agent; default), ``"clique_cover"``
            (the cliques of ``G_γ``), ``"coloring"`` (greedy DSATUR colour classes of ``G_γ``, i.e.
            independent sets of ``G_γ``: the paper's literal wording), ``"equal"`` (``n_clusters``
            contiguous, equal-size blocks of node ids).
        min_clusters: split the largest cluster until there are at least this many.
        n_clusters: number of blocks for ``"equal"``.
    """
    V = network.V
    if mode == "mis_star":
        labels = np.searchsorted(network.centres, network.centre_of)
    elif mode == "clique_cover":
        labels = network.clique_of.copy()
    elif mode == "coloring":
        H = nx.Graph()
        H.add_nodes_from(range(V))
        i, j = np.nonzero(np.triu(network.adjacency, 1))
        H.add_edges_from(zip(i.tolist(), j.tolist()))
        col = nx.greedy_color(H, strategy="saturation_largest_first")
        labels = np.array([col[v] for v in range(V)], dtype=np.int64)
    elif mode == "equal":
        check("n_clusters", n_clusters, rule(lambda k: k is not None and 1 <= int(k) <= V, f"in 1..V={V}"),
              note="cluster_mode 'equal'")
        labels = (np.arange(V) * int(n_clusters)) // V
    else:
        fail("cluster_mode", mode, one_of(*CLUSTER_MODES))
    labels = np.asarray(labels, dtype=np.int64)
    if min_clusters is not None and min_clusters > 1:
        labels = split_clusters(labels, network, int(min_clusters))
    return labels


# --------------------------------------------------------------------------------------------------
# Environments
# --------------------------------------------------------------------------------------------------
@dataclass
class CoopEnv:
    """Fresh per-agent decision sets each round, every agent active (Figure 1 setups 1 and 2).

    Attributes:
        network: the communication network (public).
        kz_true: ``(V, V)`` true network kernel ``K_z(z_u, z_v)`` (hidden; oracle mode only).
        kernel_x: the action kernel (public; in the form the coop algorithms take as ``kernel``):
            ``{"name": "linear"}`` or ``{"name": "rbf", "lengthscale": ℓ_x}``.
        n_arms, dim: ``K`` contexts per agent per round, each in ``R^dim``.
        noise_std: ``R``.
        truth: hidden parameters (``clusters``, ``theta`` / ``z``, anchors, ...).
        info: logged statistics (network stats, cluster sizes, lengthscales).
    """

    network: gr.Network
    kz_true: np.ndarray
    kernel_x: dict
    setup: str
    n_arms: int
    dim: int
    noise_std: float
    truth: dict
    name: str = "coop"
    info: dict = field(default_factory=dict)
    reward: str = "gaussian"
    schedule: str = "sync"

    def __post_init__(self):
        check("reward", self.reward, one_of(*REWARDS))
        self.kz_true.setflags(write=False)

    @property
    def V(self) -> int:
        return self.network.V

    def sample_contexts(self, rng: np.random.Generator) -> np.ndarray:
        """``(V, K, d)`` unit-norm contexts, agent ``v``'s drawn from its law ``P_v``."""
        V, K, d = self.V, self.n_arms, self.dim
        centre = self.truth["context_mean"]  # (V, d)
        noise = rng.standard_normal((V, K, d)) * self.truth["context_scale"]
        return _normalise(centre[:, None, :] + noise)

    def mean_rewards(self, X: np.ndarray) -> np.ndarray:
        """``(V, K)`` means ``f_v(x)`` of the ``(V, K, d)`` contexts, row ``v`` for agent ``v``."""
        if self.setup == "linear":
            theta = self.truth["theta"][self.truth["clusters"]]  # (V, d)
            return np.einsum("vkd,vd->vk", X, theta)
        P, W, ell = self.truth["anchors_x"], self.truth["weights"], self.kernel_x["lengthscale"]
        V, K, d = X.shape
        Kx = RBF(ell)(X.reshape(V * K, d), P).reshape(V, K, -1)  # (V, K, M)
        return np.einsum("vkm,vm->vk", Kx, W)

    def round(self, t: int, n_agents: int, rng: np.random.Generator):
        """All ``V`` agents act: ``(agents (V,), Arms((V, K, d), shared=False), means (V, K))``."""
        check("n_agents", n_agents, one_of(self.V), note="the network's V")
        X = self.sample_contexts(rng)
        return np.arange(self.V), Arms(X, ids=None, shared=False), self.mean_rewards(X)

    def rewards(self, chosen: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return draw_rewards(self.reward, chosen, self.noise_std, rng)

    def best_means(self, means: np.ndarray, n_active: int) -> np.ndarray:
        return means.max(axis=-1)


@dataclass
class CoopFixedArmEnv(FiniteDomainEnv):
    """Fully-cooperative fixed-arm environment (Theorem 2; §4, "Fully-Cooperative Setting"): one fixed arm set shared by all
    agents and rounds, identical ``f`` for every agent (``K_z ≡ 1``), every agent active each round.

    Extra attributes: ``network`` (public), ``kz_true`` (hidden, all ones), ``kernel_x`` (public),
    ``truth`` (hidden reward parameters)."""

    network: gr.Network | None = None
    kz_true: np.ndarray | None = None
    kernel_x: dict = field(default_factory=lambda: {"name": "linear"})
    truth: dict = field(default_factory=dict)

    @property
    def V(self) -> int:
        return self.network.V

    def round(self, t: int, n_agents: int, rng: np.random.Generator):
        check("n_agents", n_agents, one_of(self.V), note="the network's V")
        return super().round(t, n_agents, rng)


# --------------------------------------------------------------------------------------------------
# Builder
# --------------------------------------------------------------------------------------------------
def _complete_spec(spec: dict) -> dict:
    check("spec", spec, keys_in(*COOP_KEYS))
    s = {**COOP_KEYS, **spec}
    check("setup", s["setup"], one_of(*SETUPS))
    check("graph", s["graph"], one_of(*GRAPHS))
    check("sampler", s["sampler"], one_of(*gr.SAMPLERS))
    check("cluster_mode", s["cluster_mode"], one_of(*CLUSTER_MODES))
    check("z_mode", s["z_mode"], one_of("cluster", "iid"))
    check("kernel", s["kernel"], one_of("linear", "rbf"))
    for key in ("V", "K", "d", "M", "k"):
        check(key, s[key], integer(ge=1))
    check("p", float(s["p"]), between(0.0, 1.0, "both"))
    for key in ("noise_std", "s", "rho", "omega"):
        check(key, float(s[key]), ge(0))
    for key in ("lengthscale_x", "lengthscale_z"):
        check(key, s[key], rule(lambda v: v == "random" or (isinstance(v, (int, float)) and v > 0), "> 0 or 'random'"))
    check("min_clusters", s["min_clusters"],
          optional(rule(lambda v: isinstance(v, (int, np.integer)) and v >= 1, "an integer >= 1")))
    return s


def make_coop_env(spec: dict, env_seed: int = 0):
    """Build a coop environment from a spec (``make_env`` routes ``{"kind": "coop", ...}`` here).

    Keys and defaults: :data:`COOP_KEYS`. ``graph``: ``"er"`` (``V``, ``p``), ``"ego-facebook"``,
    ``"twitch"`` (``lang``), ``"as733"`` (the as-Skitter stand-in; each subsampled to ``V`` nodes by
    ``sampler`` ``"bfs"`` or ``"rw"`` with ``restart``), ``"complete"``, ``"path"``, ``"cycle"``, ``"star"``
    (``V``), ``"mycielski-complement"`` (``k``; ``V`` ignored). ``gamma``: ``None`` for
    ``max(1, ⌊diam/2⌋)``. Example: ``{"kind": "coop", "setup": "linear", "graph": "er", "V": 200,
    "p": 0.7}``.
    """
    s = _complete_spec(spec)
    net = coop_network(s, env_seed)
    V, K, d = net.V, int(s["K"]), int(s["d"])
    rng = np.random.default_rng(_seq("coop-params", env_seed))
    label = s["name"] or f"{s['setup']} / {net.name}"
    stats = net.stats()

    if s["setup"] == "fixed":
        X = _sphere(rng, K, d)
        if s["kernel"] == "linear":
            theta = _sphere(rng, 1, d)[0]
            f = X @ theta
            kx, truth = {"name": "linear"}, {"theta": theta}
        else:
            ell = _lengthscale(s["lengthscale_x"], rng)
            P = _sphere(rng, int(s["M"]), d)
            a = rng.standard_normal(int(s["M"]))
            f = RBF(ell)(X, P) @ a
            scale = np.max(np.abs(f))
            a, f = a / scale, f / scale
            kx, truth = {"name": "rbf", "lengthscale": ell}, {"anchors_x": P, "a": a}
        return CoopFixedArmEnv(X=X, f=f, noise_std=float(s["noise_std"]), name=label, schedule="sync",
                               reward=s["reward"], network=net, kz_true=np.ones((V, V)), kernel_x=kx,
                               truth=truth, info={"network": stats, "setup": "fixed", "n_clusters": 1})

    clusters = coop_clusters(net, s["cluster_mode"], s["min_clusters"], s["n_clusters"])
    n_c = int(clusters.max()) + 1
    m = _sphere(rng, n_c, d)  # cluster means on the sphere
    info = {"network": stats, "setup": s["setup"], "n_clusters": n_c,
            "cluster_sizes": np.bincount(clusters).tolist(), "cluster_mode": s["cluster_mode"]}
    if s["setup"] == "linear":
        theta = _sphere(rng, n_c, d)
        kz = (clusters[:, None] == clusters[None, :]).astype(float)
        truth = {"clusters": clusters, "theta": theta, "cluster_means": m,
                 "context_mean": m[clusters], "context_scale": float(s["s"]) / np.sqrt(d)}
        return CoopEnv(network=net, kz_true=kz, kernel_x={"name": "linear"}, setup="linear", n_arms=K,
                       dim=d, noise_std=float(s["noise_std"]), truth=truth, name=label, info=info,
                       reward=s["reward"])

    # setup 2: RBF K_x and RBF K_z
    ell_x, ell_z = _lengthscale(s["lengthscale_x"], rng), _lengthscale(s["lengthscale_z"], rng)
    if s["z_mode"] == "cluster":
        z = _normalise(m[clusters] + float(s["rho"]) * rng.standard_normal((V, d)) / np.sqrt(d))
    else:
        z = _sphere(rng, V, d)
    kz = RBF(ell_z)(z, z)
    kz = 0.5 * (kz + kz.T)
    np.fill_diagonal(kz, 1.0)
    omega = float(s["omega"])
    M = int(s["M"])
    src = rng.integers(V, size=M)  # v_j
    Q = z[src]
    P = _normalise(omega * z[src] + rng.standard_normal((M, d)) / np.sqrt(d))
    a = rng.standard_normal(M)
    truth = {"clusters": clusters, "z": z, "anchor_agents": src, "anchors_x": P, "anchors_z": Q,
             "context_mean": omega * z, "context_scale": 1.0 / np.sqrt(d)}
    Wz = RBF(ell_z)(z, Q)  # (V, M): K_z(z_v, q_j)
    truth["weights"] = Wz * a[None, :]
    env = CoopEnv(network=net, kz_true=kz, kernel_x={"name": "rbf", "lengthscale": ell_x}, setup="rbf",
                  n_arms=K, dim=d, noise_std=float(s["noise_std"]), truth=truth, name=label, info=info,
                  reward=s["reward"])
    # rescale a so that max |F(x, z_v)| over 32 contexts per agent is 1
    cal = np.concatenate([env.sample_contexts(rng) for _ in range(-(-32 // K))], axis=1)
    scale = float(np.max(np.abs(env.mean_rewards(cal))))
    truth["a"] = a / scale
    truth["weights"] = Wz * truth["a"][None, :]
    info.update(lengthscale_x=ell_x, lengthscale_z=ell_z, M=M)
    return env


def _lengthscale(value, rng: np.random.Generator) -> float:
    if value == "random":
        return float(rng.uniform(0.5, 2.0))
    return float(value)
