"""Tests for the Coop-KernelUCB environments (bandits/envs/coop.py) and their make_env route."""
from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from bandits import graphs as gr
from bandits.comm import CommLedger
from bandits.envs import make_env
from bandits.envs import coop as C
from bandits.kernels import RBF
from bandits.sim import Policy, run_regret

SMALL = {"kind": "coop", "graph": "er", "V": 30, "p": 0.3}


def _psd_unit_diag(K: np.ndarray):
    np.testing.assert_allclose(K, K.T, atol=0)
    np.testing.assert_allclose(np.diag(K), 1.0)
    assert np.linalg.eigvalsh(K).min() > -1e-10


@pytest.mark.parametrize("setup", ["linear", "rbf"])
def test_shapes_norms_and_kz(setup):
    env = make_env({**SMALL, "setup": setup}, env_seed=1)
    assert isinstance(env, C.CoopEnv) and env.V == 30 and env.dim == 10 and env.n_arms == 8
    agents, arms, means = env.round(0, 30, np.random.default_rng(0))
    np.testing.assert_array_equal(agents, np.arange(30))
    assert arms.X.shape == (30, 8, 10) and not arms.shared and means.shape == (30, 8)
    np.testing.assert_allclose(np.linalg.norm(arms.X, axis=-1), 1.0)
    _psd_unit_diag(env.kz_true)
    assert env.kz_true.shape == (30, 30)
    np.testing.assert_array_equal(env.best_means(means, 30), means.max(axis=1))
    assert env.noise_std == 0.1 and env.network.V == 30
    with pytest.raises(ValueError):
        env.kz_true[0, 1] = 0.3  # read-only


def test_linear_means_and_cluster_kernel():
    env = make_env({**SMALL, "setup": "linear"}, env_seed=2)
    X = env.sample_contexts(np.random.default_rng(3))
    cl, th = env.truth["clusters"], env.truth["theta"]
    for v in (0, 7, 29):
        np.testing.assert_allclose(env.mean_rewards(X)[v], X[v] @ th[cl[v]])
    np.testing.assert_array_equal(env.kz_true, (cl[:, None] == cl[None, :]).astype(float))
    assert env.kernel_x["name"] == "linear"
    np.testing.assert_allclose(np.linalg.norm(th, axis=1), 1.0)
    # contexts concentrate around their cluster mean: mean direction close to m_c
    Xb = np.concatenate([env.sample_contexts(np.random.default_rng(s)) for s in range(30)], axis=1)
    m = env.truth["cluster_means"][cl]
    cos = np.einsum("vd,vd->v", Xb.mean(axis=1), m) / np.linalg.norm(Xb.mean(axis=1), axis=1)
    assert cos.min() > 0.9


def test_rbf_means_are_the_product_kernel_expansion():
    env = make_env({**SMALL, "setup": "rbf"}, env_seed=4)
    t = env.truth
    X = env.sample_contexts(np.random.default_rng(5))
    lx, lz = env.info["lengthscale_x"], env.info["lengthscale_z"]
    assert (lx, lz) == (2.0, 0.5) and env.kernel_x == {"name": "rbf", "lengthscale": 2.0}
    for v in (0, 13):
        direct = sum(t["a"][j] * RBF(lx)(X[v], t["anchors_x"][j:j + 1])[:, 0]
                     * RBF(lz)(t["z"][v:v + 1], t["anchors_z"][j:j + 1])[0, 0] for j in range(len(t["a"])))
        np.testing.assert_allclose(env.mean_rewards(X)[v], direct, atol=1e-12)
    np.testing.assert_allclose(env.kz_true, RBF(lz)(t["z"], t["z"]), atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(t["z"], axis=1), 1.0)
    means = env.mean_rewards(X)
    assert 0.2 < np.abs(means).max() < 2.0  # scaled so max |F| ≈ 1 on a calibration sample


def test_determinism_and_seeds():
    a = make_env({**SMALL, "setup": "rbf"}, env_seed=7)
    b = make_env({**SMALL, "setup": "rbf"}, env_seed=7)
    c = make_env({**SMALL, "setup": "rbf"}, env_seed=8)
    np.testing.assert_array_equal(a.network.dist, b.network.dist)
    np.testing.assert_array_equal(a.kz_true, b.kz_true)
    Xa = a.round(0, 30, np.random.default_rng(1))[1].X
    Xb = b.round(0, 30, np.random.default_rng(1))[1].X
    np.testing.assert_array_equal(Xa, Xb)
    assert not np.array_equal(a.network.dist, c.network.dist)
    # graph_seed fixes the graph while env_seed redraws the bandit parameters
    d = make_env({**SMALL, "setup": "rbf", "graph_seed": 7}, env_seed=9)
    np.testing.assert_array_equal(a.network.dist, d.network.dist)
    assert not np.allclose(a.truth["z"], d.truth["z"])


def test_clusters_mis_star_are_dists_stars_and_min_clusters():
    env = make_env({**SMALL, "setup": "linear", "min_clusters": 1}, env_seed=3)
    net, cl = env.network, env.truth["clusters"]
    for c_idx, c in enumerate(net.centres):
        np.testing.assert_array_equal(np.nonzero(cl == c_idx)[0], np.nonzero(net.centre_of == c)[0])
    # a complete graph has one centre; min_clusters splits it in BFS order
    net1 = gr.network_from_graph(nx.complete_graph(9))
    assert C.coop_clusters(net1, "mis_star").max() == 0
    lab = C.coop_clusters(net1, "mis_star", min_clusters=3)
    assert lab.max() == 2 and sorted(np.bincount(lab).tolist()) == [2, 3, 4]  # 9 -> 5+4 -> (3+2)+4
    with pytest.raises(ValueError, match="min_clusters"):
        C.coop_clusters(net1, "mis_star", min_clusters=10)


def test_split_clusters_on_a_path_follows_bfs_order():
    net = gr.network_from_graph(nx.path_graph(8), gamma=7)  # one centre: node 0 (ties by id)
    lab = C.split_clusters(np.zeros(8, np.int64), net, 2)
    np.testing.assert_array_equal(lab, [0, 0, 0, 0, 1, 1, 1, 1])


@pytest.mark.parametrize("mode", ["clique_cover", "coloring", "equal"])
def test_other_cluster_modes(mode):
    net = gr.network_from_graph(gr.connected_erdos_renyi(20, 0.4, np.random.default_rng(0)))
    lab = C.coop_clusters(net, mode, n_clusters=4)
    assert lab.shape == (20,) and lab.min() == 0
    if mode == "clique_cover":
        np.testing.assert_array_equal(lab, net.clique_of)
    if mode == "coloring":
        assert gr.is_clique_cover(~net.adjacency & ~np.eye(20, dtype=bool), lab)  # independent in G_γ
    if mode == "equal":
        assert np.bincount(lab).tolist() == [5, 5, 5, 5]


def test_fixed_arm_env():
    env = make_env({"kind": "coop", "setup": "fixed", "graph": "complete", "V": 6, "K": 20}, env_seed=0)
    assert isinstance(env, C.CoopFixedArmEnv)
    agents, arms, means = env.round(0, 6, np.random.default_rng(0))
    assert arms.shared and arms.X.shape == (20, 10) and means.shape == (20,)
    np.testing.assert_allclose(means, arms.X @ env.truth["theta"])
    np.testing.assert_array_equal(env.kz_true, np.ones((6, 6)))
    np.testing.assert_allclose(env.best_means(means, 6), means.max())
    rbf = make_env({"kind": "coop", "setup": "fixed", "kernel": "rbf", "graph": "path", "V": 5}, env_seed=0)
    assert np.abs(rbf.f).max() == pytest.approx(1.0) and rbf.kernel_x["name"] == "rbf"
    assert rbf.network.gamma == 2


def test_spec_errors():
    with pytest.raises(ValueError, match="parameter 'spec' must be a dict with keys from .*unknown keys"):
        make_env({**SMALL, "arms": 8})
    with pytest.raises(ValueError, match="setup"):
        make_env({**SMALL, "setup": "poly"})
    with pytest.raises(ValueError, match="graph"):
        make_env({**SMALL, "graph": "skitter"})
    with pytest.raises(ValueError, match="cluster_mode"):
        make_env({**SMALL, "cluster_mode": "stars"})
    with pytest.raises(ValueError, match="V"):
        make_env({**SMALL, "V": 0})
    with pytest.raises(ValueError, match="lengthscale_x"):
        make_env({**SMALL, "setup": "rbf", "lengthscale_x": -1})
    env = make_env(SMALL, env_seed=0)
    with pytest.raises(ValueError, match="n_agents"):
        env.round(0, 29, np.random.default_rng(0))


def test_random_lengthscales_and_iid_z():
    env = make_env({**SMALL, "setup": "rbf", "lengthscale_x": "random", "lengthscale_z": "random",
                    "z_mode": "iid"}, env_seed=0)
    assert 0.5 <= env.info["lengthscale_x"] <= 2 and 0.5 <= env.info["lengthscale_z"] <= 2
    _psd_unit_diag(env.kz_true)


def test_mycielski_and_other_graphs():
    env = make_env({"kind": "coop", "graph": "mycielski-complement", "k": 4}, env_seed=0)
    assert env.V == 11 and env.network.gamma == 1
    for g in ("path", "cycle", "star", "complete"):
        assert make_env({"kind": "coop", "graph": g, "V": 7}, env_seed=0).V == 7


class _RandomPolicy(Policy):
    name = "random"

    def select(self, t, agents, arms):
        rng = np.random.default_rng([t, 1])
        return rng.integers(arms.X.shape[1], size=len(agents))

    def update(self, t, agents, arms, choices, rewards):
        assert rewards.shape == (len(agents),)


def test_runs_in_the_regret_loop():
    env = make_env({**SMALL, "setup": "linear"}, env_seed=0)
    pol = _RandomPolicy(30, 5, env.dim, np.random.SeedSequence(0), CommLedger(30, 5))
    tr = run_regret(pol, env, 5, 30, np.random.default_rng(0), np.random.default_rng(1))
    assert tr.regret.shape == (5,) and np.all(tr.regret >= 0) and tr.n_active.tolist() == [30] * 5


def test_real_snap_panel(real_file):
    real_file("snap/ego-facebook/facebook_combined.txt")
    env = make_env({"kind": "coop", "setup": "linear", "graph": "ego-facebook", "V": 60}, env_seed=0)
    assert env.V == 60 and "ego-Facebook" in env.name and env.info["n_clusters"] >= 2
    env2 = make_env({"kind": "coop", "setup": "linear", "graph": "ego-facebook", "V": 60}, env_seed=0)
    np.testing.assert_array_equal(env.network.dist, env2.network.dist)


def test_kz_separation_of_the_rbf_environment():
    """With the default context laws (ω = 1, ρ = 0.2) the MMD estimate at the paper's σ_z = 1 orders every
    within-cluster pair above every across-cluster pair after 100 samples per agent; with ω = ρ = 0.5 the
    within/across gap of K̂_z is about half as large (why the RBF row uses ω = 1, ρ = 0.2)."""
    from bandits.experiments.coop_kernelucb import kz_separation

    spec = {"kind": "coop", "setup": "rbf", "graph": "er", "V": 32, "p": 0.7, "graph_seed": 0}
    s = kz_separation(C.make_coop_env(spec, 0), 100, sigma_z=1.0, n_embed=64)
    assert s["auc"] >= 0.95 and s["within"] - s["across"] >= 0.08
    assert s["true_within"] > 0.8 > 0.2 > s["true_across"]
    old = kz_separation(C.make_coop_env({**spec, "omega": 0.5, "rho": 0.5}, 0), 100, sigma_z=1.0, n_embed=64)
    assert old["within"] - old["across"] < 0.75 * (s["within"] - s["across"])
    assert old["true_within"] < 0.6
    with pytest.raises(ValueError, match="clustered"):
        kz_separation(C.make_coop_env({**spec, "setup": "fixed"}, 0), 10)
