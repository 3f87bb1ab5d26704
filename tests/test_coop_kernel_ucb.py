"""Coop-/Eager-/Dist-KernelUCB and the baselines (bandits.algorithms.coop_kernel_ucb)."""
from types import SimpleNamespace

import networkx as nx
import numpy as np
import pytest

from bandits.algorithms import ALGORITHMS
from bandits.algorithms.coop_kernel_ucb import (DistKernelUCB, EagerKernelUCB, IndLinUCB, NetworkKernelUCB,
                                                kz_from_mmd, mmd_from_embeddings, mmd_vstatistic)
from bandits.comm import CommLedger
from bandits.envs.base import Arms
from bandits.kernels import RBF
from bandits.sim import run_regret


def make_network(G, gamma):
    """Network fields computed with networkx directly (the GRAPHS layer's contract)."""
    V = G.number_of_nodes()
    dist = np.full((V, V), -1, dtype=np.int64)
    for u, row in nx.all_pairs_shortest_path_length(G):
        for v, d in row.items():
            dist[u, v] = d
    Gg = nx.Graph()
    Gg.add_nodes_from(range(V))
    Gg.add_edges_from((u, v) for u in range(V) for v in range(u + 1, V) if 1 <= dist[u, v] <= gamma)
    col = nx.greedy_color(nx.complement(Gg), strategy="DSATUR")
    clique_of = np.array([col[v] for v in range(V)], dtype=np.int64)
    w = {v: Gg.degree(v) + 1 for v in range(V)}
    centres = []
    for v in sorted(range(V), key=lambda v: (-w[v], v)):
        if not any(Gg.has_edge(v, c) for c in centres):
            centres.append(v)
    centre_of = np.array([v if v in centres else min((c for c in centres if Gg.has_edge(v, c)),
                                                      key=lambda c: (-Gg.degree(c), c)) for v in range(V)])
    return SimpleNamespace(dist=dist, gamma=gamma, clique_of=clique_of, centres=np.array(sorted(centres)),
                           centre_of=centre_of.astype(np.int64), name="test")


class ClusterEnv:
    """Clustered linear (or RBF-anchor) rewards with agent-dependent contexts (spec §4.2, tiny)."""

    def __init__(self, network, n_clusters=2, d=4, K=5, kind="linear", seed=0, noise=0.1):
        rng = np.random.default_rng(seed)
        V = network.dist.shape[0]
        self.network, self.dim, self.K, self.kind, self.noise_std = network, d, K, kind, noise
        self.cluster = np.arange(V) % n_clusters
        self.theta = rng.standard_normal((n_clusters, d))
        self.theta /= np.linalg.norm(self.theta, axis=1, keepdims=True)
        self.m = rng.standard_normal((n_clusters, d))
        self.m /= np.linalg.norm(self.m, axis=1, keepdims=True)
        self.kz_true = (self.cluster[:, None] == self.cluster[None, :]).astype(float)
        self.anchors = rng.standard_normal((n_clusters, 3, d)) / np.sqrt(d)

    def _f(self, X):
        if self.kind == "linear":
            return np.einsum("vkd,vd->vk", X, self.theta[self.cluster])
        A = self.anchors[self.cluster]  # (V, 3, d)
        return np.exp(-((X[:, :, None, :] - A[:, None]) ** 2).sum(-1) / 2).sum(-1)

    def round(self, t, n_agents, rng):
        X = self.m[self.cluster][:, None, :] + rng.standard_normal((n_agents, self.K, self.dim)) / np.sqrt(self.dim)
        X /= np.linalg.norm(X, axis=-1, keepdims=True)
        return np.arange(n_agents), Arms(X, shared=False), self._f(X)

    def rewards(self, chosen, rng):
        return chosen + self.noise_std * rng.standard_normal(len(chosen))

    def best_means(self, means, n):
        return means.max(-1)


@pytest.fixture(scope="module")
def net6():
    G = nx.Graph([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (1, 4), (0, 2)])
    return make_network(G, 2)


def _policy(cls, net, env, T, seed=0, **kw):
    V = net.dist.shape[0]
    return cls(V, T, env.dim, np.random.SeedSequence(seed), CommLedger(V, T), network=net,
               kz_oracle=env.kz_true if kw.get("kz") == "oracle" else None, **kw)


def _lockstep(a, b, env, T, seed=1):
    """Feed both policies the same rounds and choices; return the max score difference."""
    V = env.network.dist.shape[0]
    rng, rng_n = np.random.default_rng(seed), np.random.default_rng(seed + 1)
    worst = 0.0
    for t in range(T):
        agents, arms, means = env.round(t, V, rng)
        if t == 0:
            ch = rng.integers(env.K, size=V)
        else:
            sa, sb = a.scores(t, arms), b.scores(t, arms)
            for x, y in zip(sa, sb):
                worst = max(worst, float(np.max(np.abs(x - y))))
            ch = np.array([int(np.argmax(s)) for s in sa])
        r = env.rewards(means[np.arange(V), ch], rng_n)
        a.update(t, agents, arms, ch, r)
        b.update(t, agents, arms, ch, r)
    return worst


CASES = [
    ("Eager-KernelUCB", {"kz": "mmd"}),
    ("Eager-KernelUCB", {"kz": "oracle"}),
    ("Coop-KernelUCB", {"kz": "mmd"}),
    ("Dist-KernelUCB", {"kz": "mmd"}),
    ("Dist-KernelUCB", {"kz": "oracle"}),
    ("Naive-LinUCB", {}),
    ("Ind-OFUL", {}),
    ("Eager-KernelUCB", {"kz": "mmd", "width": "theory", "extra_delay": 1}),
]


@pytest.mark.parametrize("name,kw", CASES)
def test_primal_equals_exact_dual_linear(net6, name, kw):
    env = ClusterEnv(net6, kind="linear")
    T = 20
    a = _policy(ALGORITHMS[name], net6, env, T, path="primal", **kw)
    b = _policy(ALGORITHMS[name], net6, env, T, path="dual", **kw)
    assert _lockstep(a, b, env, T) < 1e-8


@pytest.mark.parametrize("name,kw", [("Eager-KernelUCB", {"kz": "mmd"}), ("Dist-KernelUCB", {"kz": "oracle"}),
                                     ("Naive-IGP-UCB", {}), ("Ind-KernelUCB", {})])
def test_rff_primal_equals_dual_with_the_rff_kernel(net6, name, kw):
    env = ClusterEnv(net6, kind="rbf")
    T = 12
    k = {"kernel": {"name": "rbf", "lengthscale": 1.0}, "n_features": 16, "n_embed": 8}
    a = _policy(ALGORITHMS[name], net6, env, T, path="primal", **k, **kw)
    b = _policy(ALGORITHMS[name], net6, env, T, path="dual", **k, **kw)
    np.testing.assert_array_equal(a.phi.Omega, b.phi.Omega)  # one map per run, from the run seed
    assert _lockstep(a, b, env, T) < 1e-8


def test_rff_map_shared_by_every_method_of_a_run(net6):
    env = ClusterEnv(net6, kind="rbf")
    k = {"kernel": {"name": "rbf", "lengthscale": 0.7}, "n_features": 32}
    maps = [_policy(ALGORITHMS[n], net6, env, 5, seed=3, **k).phi.Omega
            for n in ("Eager-KernelUCB", "Ind-KernelUCB", "Ind-IGP-UCB", "Naive-IGP-UCB", "Coop-KernelUCB")]
    for M in maps[1:]:
        np.testing.assert_array_equal(M, maps[0])
    other = _policy(ALGORITHMS["Eager-KernelUCB"], net6, env, 5, seed=4, **k).phi.Omega
    assert not np.allclose(other, maps[0])


def test_batched_equals_per_agent_loop(net6):
    env = ClusterEnv(net6, kind="linear")
    a = _policy(EagerKernelUCB, net6, env, 15, r_max=2)
    b = _policy(EagerKernelUCB, net6, env, 15, r_max=2, chunk=1)
    assert _lockstep(a, b, env, 15) < 1e-10


def test_ind_linucb_is_linucb_with_alpha_eta(net6):
    env = ClusterEnv(net6, kind="linear")
    pol = _policy(IndLinUCB, net6, env, 10, eta=0.7, lam=2.0)
    rng = np.random.default_rng(0)
    A, b = [2.0 * np.eye(env.dim) for _ in range(6)], [np.zeros(env.dim) for _ in range(6)]
    for t in range(10):
        agents, arms, means = env.round(t, 6, rng)
        if t:
            sc = pol.scores(t, arms)
            for v in range(6):
                X = arms.X[v]
                Ai = np.linalg.inv(A[v])
                want = X @ Ai @ b[v] + 0.7 * np.sqrt(np.einsum("ij,jk,ik->i", X, Ai, X))
                np.testing.assert_allclose(sc[v], want, rtol=1e-10, atol=1e-12)
        ch = rng.integers(env.K, size=6)
        y = means[np.arange(6), ch]
        pol.update(t, agents, arms, ch, y)
        for v in range(6):
            x = arms.X[v, ch[v]]
            A[v] += np.outer(x, x)
            b[v] += y[v] * x


def test_mmd_estimate_against_closed_form_c8():
    # P_u = N(m_u, s² I): ‖Ψ_u − Ψ_v‖² = 2 (ℓ²/(ℓ²+2s²))^{d/2} (1 − exp(−‖m_u−m_v‖²/(2(ℓ²+2s²))))
    rng = np.random.default_rng(0)
    d, s, ell, n = 2, 0.5, 1.0, 1500
    m = np.array([[0.0, 0.0], [1.0, 0.5]])
    X = [mu + s * rng.standard_normal((n, d)) for mu in m]
    est = mmd_vstatistic(X[0], X[1], RBF(lengthscale=ell))
    c = ell**2 + 2 * s**2
    exact = 2 * (ell**2 / c) ** (d / 2) * (1 - np.exp(-np.sum((m[0] - m[1]) ** 2) / (2 * c)))
    # the V-statistic's bias is O(1/n) and its spread O(1/√n)
    assert abs(est - exact) < 4.0 / np.sqrt(n) * np.sqrt(exact) + 2.0 / n
    Kz_hat, Kz = kz_from_mmd(np.array(est), 1.0), np.exp(-np.sqrt(exact) / 2)
    assert abs(np.log(Kz_hat) - np.log(Kz)) < 0.05
    # the mean-embedding form equals the V-statistic for a finite feature map (linear k_P)
    lin = lambda a, b: a @ b.T  # noqa: E731
    means = np.stack([X[0][:50].mean(0), X[1][:70].mean(0)])
    np.testing.assert_allclose(mmd_from_embeddings(means)[0, 1], mmd_vstatistic(X[0][:50], X[1][:70], lin),
                               rtol=1e-10)
    # Eq. 11 uses the unsquared distance; squared=True squares it
    np.testing.assert_allclose(kz_from_mmd(np.array(0.25), 1.0), np.exp(-0.25))
    np.testing.assert_allclose(kz_from_mmd(np.array(0.25), 1.0, squared=True), np.exp(-0.125))


def test_truncation_safeguard_keeps_own_variance(net6):
    env = ClusterEnv(net6, kind="linear", n_clusters=3)
    pol = _policy(EagerKernelUCB, net6, env, 12, kz="oracle", r_max=1)
    run_regret(pol, env, 12, 6, np.random.default_rng(0), np.random.default_rng(1))
    info = pol.info()
    assert info["min_Lv2"] >= 0.95 and info["rank_max"] >= 2  # r raised above r_max = 1
    capped = _policy(EagerKernelUCB, net6, env, 12, kz="oracle", r_max=1, r_limit=1)
    with pytest.warns(RuntimeWarning, match="overrides"):  # a cap below the safeguard is never silent
        run_regret(capped, env, 12, 6, np.random.default_rng(0), np.random.default_rng(1))
    assert capped.info()["min_Lv2"] < 0.95  # the diagnostic shows what the cap cost


def test_ledger_charges_every_delivery_on_a_path():
    net = make_network(nx.path_graph(4), 2)
    env = ClusterEnv(net, d=3)
    T = 4
    for name in ("Eager-KernelUCB", "Coop-KernelUCB", "Naive-LinUCB"):
        pol = _policy(ALGORITHMS[name], net, env, T)
        run_regret(pol, env, T, 4, np.random.default_rng(0), np.random.default_rng(1))
        np.testing.assert_array_equal(pol.ledger.deliveries("observation"), [6, 10, 10, 10])
        np.testing.assert_array_equal(pol.ledger.per_step("up"), np.array([6, 10, 10, 10]) * (3 + 3))
    pol = _policy(IndLinUCB, net, env, T)
    run_regret(pol, env, T, 4, np.random.default_rng(0), np.random.default_rng(1))
    assert pol.ledger.total_up == 0


def test_seeded_golden_values(net6):
    env = ClusterEnv(net6, kind="linear", seed=5)
    out = {}
    for name in ("Eager-KernelUCB", "Coop-KernelUCB", "Dist-KernelUCB", "Naive-LinUCB", "Ind-LinUCB"):
        pol = _policy(ALGORITHMS[name], net6, env, 30, seed=11)
        tr = run_regret(pol, env, 30, 6, np.random.default_rng(2), np.random.default_rng(3))
        out[name] = float(tr.regret.sum())
    assert out == pytest.approx(GOLDEN, abs=1e-5)


GOLDEN = {"Eager-KernelUCB": 16.557713, "Coop-KernelUCB": 12.526852, "Dist-KernelUCB": 19.368106,
          "Naive-LinUCB": 42.129238, "Ind-LinUCB": 10.520761}


def test_parameter_errors(net6):
    env = ClusterEnv(net6)
    with pytest.raises(ValueError, match="accept"):
        _policy(NetworkKernelUCB, net6, env, 5, accept="friends")
    with pytest.raises(ValueError, match="kz_oracle"):
        EagerKernelUCB(6, 5, 4, np.random.SeedSequence(0), CommLedger(6, 5), network=net6, kz="oracle")
    with pytest.raises(ValueError, match="parameter 'accept' must be 'self'.*without a network"):
        EagerKernelUCB(6, 5, 4, np.random.SeedSequence(0), CommLedger(6, 5))
    with pytest.raises(ValueError, match="kernel"):
        _policy(IndLinUCB, net6, env, 5, kernel={"name": "rbf"})
    with pytest.raises(ValueError, match="peripheral_mode"):
        _policy(DistKernelUCB, net6, env, 5, peripheral_mode="guess")
    with pytest.raises(ValueError, match="lam"):
        _policy(EagerKernelUCB, net6, env, 5, lam=0)
    with pytest.raises(ValueError, match="features"):
        _policy(EagerKernelUCB, net6, env, 5, features="exact")
    pol = _policy(DistKernelUCB, net6, env, 6, peripheral_mode="copy_arm")
    with pytest.raises(ValueError, match="copy_arm"):
        run_regret(pol, env, 6, 6, np.random.default_rng(0), np.random.default_rng(1))


def test_runner_passes_network_and_oracle(monkeypatch, net6):
    import bandits.envs
    from bandits.runner import run_cell

    env = ClusterEnv(net6)
    monkeypatch.setattr(bandits.envs, "make_env", lambda spec, seed=0: env)
    res = run_cell({"env": {"name": "x"}, "algorithm": "Eager-KernelUCB", "params": {"kz": "oracle"},
                    "N": 6, "T": 8}, 0, 0)
    assert res["arrays"]["regret"].shape == (8,)
    assert res["meta"]["comm_by_kind"]["observation"] > 0


def test_kz_min_samples_primal_equals_dual_and_holds_sources_back(net6):
    env = ClusterEnv(net6, kind="linear")
    T = 14
    a = _policy(EagerKernelUCB, net6, env, T, path="primal", kz_min_samples=4)
    b = _policy(EagerKernelUCB, net6, env, T, path="dual", kz_min_samples=4)
    assert _lockstep(a, b, env, T) < 1e-8
    # a source that never reaches the minimum is never used: Eager is then independent LinUCB
    c = _policy(EagerKernelUCB, net6, env, T, kz_min_samples=T + 1)
    d = _policy(IndLinUCB, net6, env, T)
    assert _lockstep(c, d, env, T) < 1e-10
    with pytest.raises(ValueError, match="kz_min_samples"):
        _policy(EagerKernelUCB, net6, env, T, kz_min_samples=0)


def test_ranks_grouped_and_chunked_equal_per_agent(net6):
    # agents of different ranks (oracle K_z with 3 clusters, exact rank) in mixed chunks
    env = ClusterEnv(net6, kind="linear", n_clusters=3)
    a = _policy(EagerKernelUCB, net6, env, 12, kz="mmd", chunk=4)
    b = _policy(EagerKernelUCB, net6, env, 12, kz="mmd", path="dual")
    assert _lockstep(a, b, env, 12) < 1e-8


def test_bench_entry_registered_and_runs_at_toy_size():
    from bandits import bench

    assert bench.EXTRA_BENCHMARKS["coop_kernel_ucb"]["fn"] is not None
    assert bench.EXTRA_BENCHMARKS["coop_kernel_ucb_rbf"]["unit"] == "ms per agent-round"
    for row, features in (("linear", "rff"), ("rbf", "rff"), ("rbf", "nystroem")):
        ms = bench.bench_coop_kernel_ucb("cpu", row=row, T=3, V=12, features=features)
        assert np.isfinite(ms) and ms >= 0
    assert bench.EXTRA_BENCHMARKS["coop_kernel_ucb_rbf_nystroem"]["fn"] is not None
    assert np.isnan(bench.bench_coop_kernel_ucb("cuda"))


def test_own_residual_truncation(net6):
    env = ClusterEnv(net6, kind="linear", n_clusters=3)
    # nothing truncated (exact rank): no residual column, still equal to the exact dual
    a = _policy(EagerKernelUCB, net6, env, 12, truncation="own_residual")
    b = _policy(EagerKernelUCB, net6, env, 12, path="dual")
    assert _lockstep(a, b, env, 12) < 1e-8
    # rank 1 of a 3-cluster K_z: the low-rank part loses own variance, the residual column restores it
    Z = np.random.default_rng(7).standard_normal((6, 2))
    W = RBF(lengthscale=1.0)(Z, Z)  # a full-rank K_z with distinct eigenvalues
    pol = EagerKernelUCB(6, 5, env.dim, np.random.SeedSequence(0), CommLedger(6, 5), network=net6, kz="oracle",
                         kz_oracle=W, r_max=1, truncation="own_residual")
    run_regret(pol, env, 5, 6, np.random.default_rng(0), np.random.default_rng(1))
    for v in range(6):
        Lv = pol.L[v, :, : pol.r[v]]
        np.testing.assert_allclose(Lv[v] @ Lv[v], W[v, v], atol=1e-12)  # own prior variance exact
        assert pol.r[v] <= 2 and np.count_nonzero(Lv[:, -1]) <= 1  # the extra column is v's own only
        acc = np.flatnonzero(pol.acc[v])
        w, U = np.linalg.eigh(W[np.ix_(acc, acc)])
        low = w[-1] * np.outer(U[:, -1], U[:, -1])  # the rank-1 truncation, off the diagonal unchanged
        got = Lv[acc] @ Lv[acc].T
        off = ~np.eye(len(acc), dtype=bool)
        np.testing.assert_allclose(got[off], low[off], atol=1e-12)
    assert pol.info()["min_Lv2"] < 0.95
    with pytest.raises(ValueError, match="truncation"):
        _policy(EagerKernelUCB, net6, env, 5, truncation="cut")


@pytest.mark.parametrize("name,G", [("Eager-KernelUCB", nx.complete_graph(6)),
                                    ("Coop-KernelUCB", nx.Graph([(0, 1), (1, 2), (0, 2), (2, 3), (3, 4), (4, 5), (3, 5)]))])
def test_shared_models_equal_per_agent_models(name, G):
    net = make_network(G, 1)
    env = ClusterEnv(net, kind="linear", n_clusters=2)
    a = _policy(ALGORITHMS[name], net, env, 12, kz="mmd")
    b = _policy(ALGORITHMS[name], net, env, 12, kz="mmd", share_models=False)
    assert len(a.reps) < 6 and len(b.reps) == 6
    assert _lockstep(a, b, env, 12) < 1e-8
    a = _policy(ALGORITHMS[name], net, env, 12, kz="mmd")
    c = _policy(ALGORITHMS[name], net, env, 12, kz="mmd", path="dual")
    assert _lockstep(a, c, env, 12) < 1e-8


@pytest.mark.parametrize("kw", [{"kz": "mmd", "r_max": 2}, {"kz": "mmd", "r_max": 1, "truncation": "own_residual"},
                                {"kz": "mmd", "peripheral_mode": "copy_policy", "r_max": 2}])
def test_dual_while_smaller_equals_primal(net6, kw):
    env = ClusterEnv(net6, kind="linear", n_clusters=3)
    cls = DistKernelUCB if "peripheral_mode" in kw else EagerKernelUCB
    a = _policy(cls, net6, env, 14, dual_when_smaller=True, **kw)
    b = _policy(cls, net6, env, 14, dual_when_smaller=False, **kw)
    used = []
    orig = a._dual_smaller
    a._dual_smaller = lambda t, K: used.append(orig(t, K).any()) or orig(t, K)
    assert _lockstep(a, b, env, 14) < 1e-8
    assert any(used) and not all(used)  # both forms were exercised


def test_small_accept_sets_primal_equals_dual():
    net = make_network(nx.path_graph(12), 1)
    for name, kind, k in (("Ind-LinUCB", "linear", {}),
                          ("Ind-KernelUCB", "rbf", {"kernel": {"name": "rbf", "lengthscale": 1.0}, "n_features": 8})):
        env = ClusterEnv(net, kind=kind)
        a = _policy(ALGORITHMS[name], net, env, 8, **k)
        b = _policy(ALGORITHMS[name], net, env, 8, path="dual", **k)
        assert _lockstep(a, b, env, 8) < 1e-8


@pytest.mark.parametrize("D,r", [(3, 1), (3, 4), (10, 3), (32, 2)])
def test_packed_build_equals_the_direct_sum(D, r):
    """Both forms of the packed build (per model, and over the chunk's union of columns) give
    ``Σ_u L_ua L_ub M_u(t − τ(u,v))`` and ``Σ_u L_u ⊗ b_u`` of the direct computation."""
    from bandits.algorithms.coop_primal import PrimalSolver

    rng = np.random.default_rng(D + r)
    n, V, lev = 5, 9, np.array([1, 3])
    ntri, npair = D * (D + 1) // 2, r * (r + 1) // 2
    F = rng.standard_normal((len(lev), V, 4, D))
    M = np.einsum("lukd,luke->lude", F, F)  # (levels, V, D, D) symmetric statistics
    bs = rng.standard_normal((len(lev) * V, D))
    ii, jj = np.triu_indices(D)
    Mp = M.reshape(-1, D, D)[:, ii, jj]
    Lt = rng.standard_normal((n, r, V)) * (rng.random((n, 1, V)) < 0.7)
    tau = rng.choice([0, 1, 2, 3], size=(n, V))  # 0: not accepted, 2: no statistics at this round
    ia, ib = np.triu_indices(r)
    want_G, want_b = np.zeros((n, npair, ntri)), np.zeros((n, r, D))
    for m in range(n):
        for u in range(V):
            if tau[m, u] in lev:
                k = int(np.searchsorted(lev, tau[m, u]))
                want_G[m] += np.outer(Lt[m, ia, u] * Lt[m, ib, u], Mp[k * V + u])
                want_b[m] += np.outer(Lt[m, :, u], bs[k * V + u])
    solver = PrimalSolver()
    for bias in (0, 10**9):  # the cost rule's choice, then the per-model form forced
        solver._form_bias = bias
        G, bp = solver._packed_build(Lt, tau, lev, Mp, bs, npair)
        assert np.allclose(G, want_G.reshape(n, -1), rtol=1e-12, atol=1e-12)
        assert np.allclose(bp, want_b.reshape(n, -1), rtol=1e-12, atol=1e-12)
    solver._form_bias = -10**9  # the union of columns forced
    G, bp = solver._packed_build(Lt, tau, lev, Mp, bs, npair)
    assert np.allclose(G, want_G.reshape(n, -1), rtol=1e-12, atol=1e-12)
    assert np.allclose(bp, want_b.reshape(n, -1), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,kw", [("Eager-KernelUCB", {"kz": "mmd"}), ("Coop-KernelUCB", {"kz": "mmd"}),
                                     ("Dist-KernelUCB", {"kz": "mmd"}), ("Eager-KernelUCB", {"kz": "oracle"}),
                                     ("Dist-KernelUCB", {"kz": "oracle", "peripheral_mode": "copy_policy"})])
@pytest.mark.parametrize("kind", ["linear", "rbf"])
def test_factor_updates_equal_rebuilds(net6, name, kw, kind):
    """Rank-k updates (tpqrt) of the kept factor between K̂_z refreshes give the models a rebuild from
    the cumulative statistics gives, to round-off; and they are actually used."""
    env = ClusterEnv(net6, kind=kind, n_clusters=3)
    T = 16
    k = {"kernel": {"name": "rbf", "lengthscale": 1.0}, "n_features": 12, "n_embed": 8} if kind == "rbf" else {}
    a = _policy(ALGORITHMS[name], net6, env, T, kz_every=5, factor_updates="always", dual_when_smaller=False, **k, **kw)
    b = _policy(ALGORITHMS[name], net6, env, T, kz_every=5, factor_updates="never", dual_when_smaller=False, **k, **kw)
    assert _lockstep(a, b, env, T) < 1e-8
    assert a.log["updates"] > 0 and b.log["updates"] == 0
    assert a.log["rebuilds"] < b.log["rebuilds"]
    c = _policy(ALGORITHMS[name], net6, env, T, kz_every=5, **k, **kw)  # the default: auto, dual when cheaper
    d = _policy(ALGORITHMS[name], net6, env, T, kz_every=5, factor_updates="never", dual_when_smaller=False, **k, **kw)
    assert _lockstep(c, d, env, T) < 1e-8


def test_factor_updates_option_validated(net6):
    env = ClusterEnv(net6)
    with pytest.raises(ValueError, match="factor_updates"):
        _policy(EagerKernelUCB, net6, env, 5, factor_updates="sometimes")
    with pytest.raises(ValueError, match="dual_when_smaller"):
        _policy(EagerKernelUCB, net6, env, 5, dual_when_smaller="maybe")


def test_nystroem_features_approximate_the_rbf_kernel_on_the_sphere():
    from bandits.algorithms.coop_kernel_ucb import NystroemFeatures, RandomFourierFeatures

    rng = np.random.default_rng(3)
    X = rng.standard_normal((200, 10))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    K = RBF(lengthscale=2.0)(X, X)
    ny = NystroemFeatures(10, 32, 2.0, np.random.default_rng(0))
    rff = RandomFourierFeatures(10, 128, 2.0, np.random.default_rng(0))
    err_ny, err_rff = np.abs(ny(X) @ ny(X).T - K).mean(), np.abs(rff(X) @ rff(X).T - K).mean()
    assert err_ny < 0.01 and err_ny < err_rff / 5
    # batched shapes: (..., d) -> (..., m), the same rows as one call on the stacked points
    np.testing.assert_allclose(ny(X.reshape(20, 10, 10)).reshape(200, 32), ny(X), atol=1e-13)


@pytest.mark.parametrize("name,kw", [("Eager-KernelUCB", {"kz": "mmd"}), ("Dist-KernelUCB", {"kz": "oracle"})])
def test_nystroem_primal_equals_dual_and_refuses_contexts_off_the_sphere(net6, name, kw):
    env = ClusterEnv(net6, kind="rbf")  # contexts are unit vectors
    T = 12
    k = {"kernel": {"name": "rbf", "lengthscale": 1.0}, "n_features": 12, "n_embed": 8, "features": "nystroem"}
    a = _policy(ALGORITHMS[name], net6, env, T, path="primal", **k, **kw)
    b = _policy(ALGORITHMS[name], net6, env, T, path="dual", **k, **kw)
    np.testing.assert_array_equal(a.phi.landmarks, b.phi.landmarks)  # one map per run, from the run seed
    assert _lockstep(a, b, env, T) < 1e-8
    c = _policy(ALGORITHMS[name], net6, env, T, **k, **kw)
    _, arms, _ = env.round(0, 6, np.random.default_rng(0))
    off = Arms(2.0 * arms.X, shared=False)
    with pytest.raises(ValueError, match="unit sphere"):
        c.update(0, np.arange(6), off, np.zeros(6, dtype=int), np.zeros(6))


def test_top_eigh_gives_the_largest_pairs():
    from bandits.algorithms.coop_kernel_ucb import _top_eigh

    rng = np.random.default_rng(0)
    X = rng.standard_normal((5, 9, 4))
    W = np.exp(-np.abs(X @ X.transpose(0, 2, 1)) / 4)
    wf, Uf = _top_eigh(W, None)
    assert np.all(np.diff(wf, axis=1) <= 1e-12)  # largest first
    np.testing.assert_allclose((Uf * wf[:, None, :]) @ Uf.transpose(0, 2, 1), W, atol=1e-10)
    for k in (1, 3, 9, 20):
        w, U = _top_eigh(W, k)
        kk = min(k, 9)
        assert w.shape == (5, kk) and U.shape == (5, 9, kk)
        np.testing.assert_allclose(w, wf[:, :kk], atol=1e-10)
        # eigenvectors up to sign: the same projectors
        np.testing.assert_allclose(np.abs(np.einsum("gik,gik->gk", U, Uf[:, :, :kk])), 1.0, atol=1e-8)


@pytest.mark.parametrize("kind", ["linear", "rbf"])
def test_rank_limited_factor_from_the_top_pairs_equals_the_full_eigendecomposition(net6, kind):
    """With ``r_limit`` the factor computes only the ``r_limit`` largest eigenpairs of K̂_z (dsyevr);
    the models are those of the full eigendecomposition."""
    env = ClusterEnv(net6, kind=kind, n_clusters=3)
    T = 12
    k = {"kernel": {"name": "rbf", "lengthscale": 1.0}, "n_features": 12, "n_embed": 8} if kind == "rbf" else {}
    a = _policy(EagerKernelUCB, net6, env, T, kz="mmd", r_max=2, r_limit=2, **k)
    b = _policy(EagerKernelUCB, net6, env, T, kz="mmd", r_max=2, r_limit=2, **k)
    b._eig_pairs, b._eig_adaptive = None, False  # the reference: every pair of the padded matrices
    assert _lockstep(a, b, env, T) < 1e-8
    assert a.log["rank_max"] == b.log["rank_max"] and max(a.log["rank_max"]) == 2


def test_arm_features_for_every_agent_at_once(net6):
    """The batched scoring maps every agent's decision set through φ in one call: shared sets once,
    per-agent sets all together; a set per agent is required (the methods are synchronous)."""
    env = ClusterEnv(net6, kind="rbf", n_clusters=3)
    pol = _policy(EagerKernelUCB, net6, env, 5, kz="mmd", kernel={"name": "rbf", "lengthscale": 1.0},
                  n_features=12, n_embed=8)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((6, 4, env.dim))
    F = pol._phi_arms(Arms(X, shared=False))
    np.testing.assert_allclose(F, np.stack([pol.phi(x) for x in X]), atol=1e-14)
    Fs = pol._phi_arms(Arms(X[0], shared=True))
    assert Fs.shape == (6, 4, pol.D)
    np.testing.assert_allclose(Fs[3], pol.phi(X[0]), atol=1e-14)
    with pytest.raises(ValueError, match="synchronous"):
        pol._phi_arms(Arms(X[:5], shared=False))


# ---------------------------------------------------------------------------------- the rank safeguard and caps
@pytest.mark.parametrize("name", ["Coop-KernelUCB", "Eager-KernelUCB", "Dist-KernelUCB"])
def test_safeguard_holds_in_every_model_unless_a_cap_is_asked_for(net6, name):
    """No rank cap by default: at every refresh of K̂_z (MMD, from round 1) every agent keeps ≥ 95 % of
    its own variance; a cap below that warns and is recorded, never silent."""
    import warnings

    env = ClusterEnv(net6, kind="rbf", n_clusters=3)
    kw = dict(kz="mmd", kernel={"name": "rbf", "lengthscale": 1.0}, n_features=8, n_embed=16, r_max=1)
    pol = _policy(ALGORITHMS[name], net6, env, 15, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the default never warns
        run_regret(pol, env, 15, 6, np.random.default_rng(0), np.random.default_rng(1))
    info = pol.info()
    assert min(pol.log["min_Lv2"]) >= 0.95 - 1e-12 and info["min_Lv2"] >= 0.95 - 1e-12  # every refresh
    assert info["capped_agent_refreshes"] == 0 and info["r_limit"] is None
    assert info["rank_max"] >= 2 and info["rank_last"] >= 1  # raised above r_max = 1 where needed
    capped = _policy(ALGORITHMS[name], net6, env, 15, r_limit=1, **kw)
    with pytest.warns(RuntimeWarning, match="overrides"):
        run_regret(capped, env, 15, 6, np.random.default_rng(0), np.random.default_rng(1))
    ci = capped.info()
    assert ci["min_Lv2"] < 0.95 and ci["capped_agent_refreshes"] > 0 and ci["r_limit"] == 1


@pytest.mark.parametrize("name", ["Coop-KernelUCB", "Eager-KernelUCB", "Dist-KernelUCB"])
def test_dual_and_primal_agree_at_the_safeguard_ranks(net6, name):
    """RBF K_x (RFF), MMD K̂_z truncated at the safeguard's ranks (raised above r_max = 1): the model in
    dual form with W̃ = L Lᵀ equals the primal model (every round where the dual form is taken)."""
    env = ClusterEnv(net6, kind="rbf", n_clusters=3)
    kw = dict(kz="mmd", kernel={"name": "rbf", "lengthscale": 1.0}, n_features=6, n_embed=16, r_max=1)
    a = _policy(ALGORITHMS[name], net6, env, 14, dual_when_smaller=True, **kw)
    b = _policy(ALGORITHMS[name], net6, env, 14, dual_when_smaller=False, **kw)
    used = []
    orig = a._dual_smaller
    a._dual_smaller = lambda t, K: used.append(orig(t, K).any()) or orig(t, K)
    assert _lockstep(a, b, env, 14) < 1e-8
    assert any(used)
    assert b.info()["rank_max"] >= 2 and b.info()["min_Lv2"] >= 0.95 - 1e-12
