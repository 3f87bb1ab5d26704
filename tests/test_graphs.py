"""Tests for bandits.graphs: distances, powers, clique cover, MIS/centres, exact α and χ̄, subsamplers,
generators and the SNAP loaders."""
from __future__ import annotations

import itertools
import json

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandits import graphs as gr


def _random_graph(n: int, p: float, seed: int) -> nx.Graph:
    return nx.gnp_random_graph(n, p, seed=np.random.default_rng(seed))


def _brute_alpha(A: np.ndarray) -> int:
    V = A.shape[0]
    for k in range(V, 0, -1):
        for S in itertools.combinations(range(V), k):
            if not A[np.ix_(S, S)].any():
                return k
    return 0


def _brute_clique_cover(A: np.ndarray) -> int:
    """Minimum number of cliques partitioning the nodes, by enumerating set partitions."""
    V = A.shape[0]
    best = [V]

    def rec(v: int, blocks: list[list[int]]):
        if len(blocks) >= best[0]:
            return
        if v == V:
            best[0] = len(blocks)
            return
        for b in blocks:
            if all(A[v, u] for u in b):
                b.append(v)
                rec(v + 1, blocks)
                b.pop()
        blocks.append([v])
        rec(v + 1, blocks)
        blocks.pop()

    rec(0, [])
    return best[0]


# ------------------------------------------------------------------------------------------ distances
def test_hop_distances_match_networkx_and_mark_unreachable():
    G = nx.disjoint_union(nx.path_graph(4), nx.cycle_graph(5))
    D = gr.hop_distances(G)
    assert D.dtype == np.int64 and D.shape == (9, 9)
    assert D[0, 3] == 3 and D[4, 6] == 2 and D[0, 5] == -1 and D[7, 2] == -1
    np.testing.assert_array_equal(np.diag(D), 0)
    np.testing.assert_array_equal(D, D.T)
    for u, lengths in nx.all_pairs_shortest_path_length(G):
        for v, l in lengths.items():
            assert D[u, v] == l


def test_hop_distances_rejects_bad_labels():
    with pytest.raises(ValueError, match="nodes 0..V-1"):
        gr.hop_distances(nx.relabel_nodes(nx.path_graph(3), {0: "a", 1: "b", 2: "c"}))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("gamma", [1, 2, 3, 5])
def test_power_adjacency_equals_nx_power(seed, gamma):
    G = _random_graph(25, 0.12, seed)
    A = gr.power_adjacency(gr.hop_distances(G), gamma)
    P = gr.graph_power(G, gamma)
    B = nx.to_numpy_array(P, nodelist=range(25), dtype=bool, weight=None)
    np.testing.assert_array_equal(A, B)
    assert not A.diagonal().any()


def test_power_of_path_closed_form():
    D = gr.hop_distances(nx.path_graph(6))
    A = gr.power_adjacency(D, 2)
    expected = np.array([[0 < abs(i - j) <= 2 for j in range(6)] for i in range(6)])
    np.testing.assert_array_equal(A, expected)


def test_gamma_validation_and_default():
    with pytest.raises(ValueError, match="gamma"):
        gr.power_adjacency(np.zeros((2, 2), dtype=np.int64), 0)
    assert gr.default_gamma(9) == 4 and gr.default_gamma(9, "ceil") == 5
    assert gr.default_gamma(1) == 1 and gr.default_gamma(0) == 1
    with pytest.raises(ValueError, match="rounding"):
        gr.default_gamma(4, "round")


# ------------------------------------------------------------------------------ clique cover and MIS
@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 14), p=st.floats(0.0, 1.0), seed=st.integers(0, 10_000), gamma=st.integers(1, 3))
def test_clique_cover_and_mis_properties(n, p, seed, gamma):
    G = _random_graph(n, p, seed)
    A = gr.power_adjacency(gr.hop_distances(G), gamma)
    cover = gr.greedy_clique_cover(A)
    assert cover.shape == (n,) and cover.dtype == np.int64
    assert gr.is_clique_cover(A, cover)
    assert set(cover.tolist()) == set(range(cover.max() + 1))  # classes 0..k-1, all nodes covered
    w = A.sum(axis=1) + 1
    mis = gr.greedy_weighted_mis(A, w)
    assert gr.is_maximal_independent_set(A, mis)
    cent = gr.assign_centres(A, mis)
    np.testing.assert_array_equal(cent[mis], mis)
    periph = np.setdiff1d(np.arange(n), mis)
    assert np.all(A[periph, cent[periph]])  # every peripheral is adjacent (in G_γ) to its centre
    # the weak duality α ≤ χ̄ holds between the greedy sets too
    assert len(mis) <= cover.max() + 1


def test_mis_and_centres_closed_form_path():
    A = gr.power_adjacency(gr.hop_distances(nx.path_graph(5)), 1)
    mis = gr.greedy_weighted_mis(A, A.sum(axis=1) + 1)  # weights 2,3,3,3,2 -> nodes 1, 3
    np.testing.assert_array_equal(mis, [1, 3])
    # node 2 touches centres 1 and 3 (both degree 2): the smallest id wins
    np.testing.assert_array_equal(gr.assign_centres(A, mis), [1, 1, 1, 3, 3])


def test_centre_with_maximum_degree_wins():
    # centres 0 and 4 both adjacent to 2; 4 has the larger degree in G
    G = nx.Graph([(0, 2), (2, 4), (4, 5), (4, 6), (1, 0), (3, 4)])
    A = gr.power_adjacency(gr.hop_distances(G), 1)
    assert gr.assign_centres(A, [0, 4])[2] == 4
    with pytest.raises(ValueError, match="'centres' must be a dominating set"):
        gr.assign_centres(A, [0])


def test_mis_prefers_heavy_nodes_star():
    A = gr.power_adjacency(gr.hop_distances(nx.star_graph(6)), 1)
    np.testing.assert_array_equal(gr.greedy_weighted_mis(A, A.sum(axis=1) + 1), [0])
    with pytest.raises(ValueError, match="weights"):
        gr.greedy_weighted_mis(A, [1, 2])


def test_is_clique_cover_detects_a_bad_cover():
    A = gr.power_adjacency(gr.hop_distances(nx.path_graph(3)), 1)
    assert not gr.is_clique_cover(A, np.array([0, 0, 0]))
    assert gr.is_clique_cover(A, np.array([0, 0, 1]))


@pytest.mark.parametrize("seed", range(12))
def test_exact_alpha_and_clique_cover_against_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 9))
    G = _random_graph(n, float(rng.uniform(0.2, 0.8)), seed)
    A = gr.power_adjacency(gr.hop_distances(G), 1)
    alpha, chi = gr.exact_independence_number(A), gr.exact_clique_cover_number(A)
    assert alpha == _brute_alpha(A)
    assert chi == _brute_clique_cover(A)
    assert gr.exact_independence_number(G) == alpha
    assert alpha <= chi <= gr.greedy_clique_cover(A).max() + 1


def test_exact_clique_cover_guard():
    with pytest.raises(ValueError, match="parameter 'V' must be <= 60"):
        gr.exact_clique_cover_number(nx.path_graph(70))


@pytest.mark.parametrize("k", [4, 5])
def test_mycielski_complement_has_alpha_2_and_cover_k(k):
    G = gr.mycielski_complement(k)
    assert G.number_of_nodes() == 3 * 2 ** (k - 2) - 1
    net = gr.network_from_graph(G)
    assert net.diameter == 2 and net.gamma == 1
    A = net.adjacency
    assert gr.exact_independence_number(A) == 2
    assert gr.exact_clique_cover_number(A) == k
    assert net.stats()["cover"] == k  # the greedy cover is optimal here
    assert net.stats()["n_c"] == 2


# ------------------------------------------------------------------------------------------- Network
def test_network_from_graph_path():
    net = gr.network_from_graph(nx.path_graph(10), name="path")
    assert net.gamma == 4 and net.diameter == 9 and net.V == 10
    s = net.stats()
    assert s["name"] == "path" and s["V"] == 10 and s["gamma"] == 4 and s["connected"]
    assert s["cover"] == 2  # {0..4}, {5..9}: cliques of the 4th power
    np.testing.assert_array_equal(net.reach, (net.dist >= 0) & (net.dist <= 4))
    np.testing.assert_array_equal(net.neighbourhood_sizes, net.reach.sum(1))
    assert sum(len(c) for c in net.cliques) == 10
    assert set(net.peripherals.tolist()) == set(range(10)) - set(net.centres.tolist())
    with pytest.raises(ValueError):
        net.dist[0, 0] = 5  # read-only
    with pytest.raises(AttributeError):
        net.gamma = 2  # frozen


def test_network_explicit_gamma_and_disconnected_graph():
    G = nx.disjoint_union(nx.path_graph(3), nx.path_graph(5))
    net = gr.network_from_graph(G, gamma=1)
    assert net.gamma == 1 and not net.stats()["connected"]
    assert (net.dist == -1).sum() == 2 * 3 * 5
    assert gr.is_maximal_independent_set(net.adjacency, net.centres)
    assert gr.network_from_graph(G).gamma == 2  # largest component diameter 4
    with pytest.raises(ValueError, match="gamma"):
        gr.network_from_graph(G, gamma=0)


def test_network_validates_fields():
    with pytest.raises(ValueError, match="dist"):
        gr.Network(dist=np.zeros((2, 2)), gamma=1, clique_of=np.zeros(2, np.int64),
                   centres=np.zeros(1, np.int64), centre_of=np.zeros(2, np.int64))


# ----------------------------------------------------------------------------- subsamplers, ER, etc.
def _host_graph() -> nx.Graph:
    G = nx.relaxed_caveman_graph(20, 8, 0.2, seed=np.random.default_rng(3))
    G = nx.disjoint_union(G, nx.complete_graph(4))  # a small extra component, never sampled
    return G


@pytest.mark.parametrize("method", ["bfs", "rw"])
def test_subsamplers_connected_deterministic_induced(method):
    G = _host_graph()
    lcc = gr.largest_component(G)
    S1 = gr.subsample(G, 40, np.random.default_rng(7), method=method)
    S2 = gr.subsample(G, 40, np.random.default_rng(7), method=method)
    S3 = gr.subsample(G, 40, np.random.default_rng(8), method=method)
    assert S1.number_of_nodes() == 40 and sorted(S1.nodes) == list(range(40))
    assert nx.is_connected(S1)
    assert nx.utils.graphs_equal(S1, S2) and [S1.nodes[i]["orig"] for i in range(40)] == \
        [S2.nodes[i]["orig"] for i in range(40)]
    assert {S1.nodes[i]["orig"] for i in range(40)} != {S3.nodes[i]["orig"] for i in range(40)}
    orig = [S1.nodes[i]["orig"] for i in range(40)]
    assert all(o < 160 for o in orig)  # from the largest component only
    # induced subgraph: exactly the host's edges among the sampled nodes
    host = G.subgraph(orig)
    assert S1.number_of_edges() == sum(1 for u, v in host.edges if u != v)  # self-loops dropped
    for u, v in S1.edges:
        assert G.has_edge(orig[u], orig[v])
    assert lcc.number_of_nodes() == 160


def test_bfs_sample_is_a_ball_prefix():
    G = nx.path_graph(30)
    S = gr.bfs_subsample(G, 5, np.random.default_rng(0))
    orig = sorted(S.nodes[i]["orig"] for i in range(5))
    assert orig == list(range(orig[0], orig[0] + 5)) or max(orig) - min(orig) <= 4
    assert nx.is_connected(S)


def test_subsampler_errors():
    G = nx.path_graph(10)
    with pytest.raises(ValueError, match="parameter 'V' must be <= .*largest connected component"):
        gr.bfs_subsample(G, 11, np.random.default_rng(0))
    with pytest.raises(TypeError, match="Generator"):
        gr.bfs_subsample(G, 3, 0)
    with pytest.raises(ValueError, match="sampler"):
        gr.subsample(G, 3, np.random.default_rng(0), method="forest-fire")
    with pytest.raises(ValueError, match="restart"):
        gr.random_walk_subsample(G, 3, np.random.default_rng(0), restart=1.0)


def test_random_walk_stall_restarts_from_visited_nodes():
    # a star with restart probability close to 1 stalls often; the sample must still finish connected
    S = gr.random_walk_subsample(nx.star_graph(30), 20, np.random.default_rng(1), restart=0.9, max_stall=5)
    assert S.number_of_nodes() == 20 and nx.is_connected(S)


def test_connected_erdos_renyi():
    G1 = gr.connected_erdos_renyi(60, 0.1, np.random.default_rng(5))
    G2 = gr.connected_erdos_renyi(60, 0.1, np.random.default_rng(5))
    assert nx.is_connected(G1) and G1.number_of_nodes() == 60
    assert nx.utils.graphs_equal(G1, G2)
    with pytest.raises(ValueError, match="p"):
        gr.connected_erdos_renyi(10, 1.5, np.random.default_rng(0))
    with pytest.raises(RuntimeError, match="connected"):
        gr.connected_erdos_renyi(30, 0.0, np.random.default_rng(0), max_tries=3)


def test_er_200_statistics_as_in_the_spec():
    net = gr.network_from_graph(gr.connected_erdos_renyi(200, 0.7, np.random.default_rng(0)))
    s = net.stats()
    assert s["diam"] == 2 and s["gamma"] == 1
    assert 15 <= s["cover"] <= 23 and 3 <= s["n_c"] <= 6  # spec §4.3: cover 18–20, MIS 4–5
    assert 130 <= s["mean_nbhd"] <= 150


# ---------------------------------------------------------------------------------------- SNAP files
FACEBOOK_TINY = "0 1\n0 2\n1 2\n2 3\n3 3\n7 8\n"
AS_TINY = "# Undirected graph\r\n# FromNodeId\tToNodeId\r\n0\t1\r\n1\t30\r\n30\t4500\r\n4500\t4500\r\n"
TWITCH_EDGES = "from,to\n0,1\n1,2\n2,0\n2,3\n"
TWITCH_TARGET = ("id,days,mature,views,partner,new_id\n11,1,False,1,False,0\n12,1,True,1,False,1\n"
                 "13,1,True,1,True,2\n14,1,True,1,True,3\n")


@pytest.fixture
def tiny_snap(tmp_path, no_data_env):
    root = tmp_path / "data"
    files = {"snap/ego-facebook/facebook_combined.txt": FACEBOOK_TINY,
             "snap/as-proxy/as20000102.txt": AS_TINY,
             "snap/twitch/ENGB/musae_ENGB_edges.csv": TWITCH_EDGES,
             "snap/twitch/ENGB/musae_ENGB_target.csv": TWITCH_TARGET,
             "snap/twitch/ENGB/musae_ENGB_features.json": json.dumps({"0": [1], "1": [], "2": [3], "3": []})}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(text.encode())
    no_data_env.setenv("BANDITS_DATA_DIR", str(root))
    return root


def test_snap_loaders_on_tiny_files(tiny_snap):
    fb = gr.load_snap_graph("ego-facebook", verify=False)
    assert fb.graph["name"] == "ego-Facebook"
    assert fb.number_of_nodes() == 4 and fb.number_of_edges() == 4  # the 7-8 component is dropped
    assert sorted(fb.nodes[i]["orig"] for i in fb.nodes) == [0, 1, 2, 3]
    both = gr.load_snap_graph("ego-facebook", verify=False, largest_cc=False)
    assert both.number_of_nodes() == 6
    asg = gr.load_snap_graph("as733", verify=False)
    assert asg.graph["name"] == "as-733 (stand-in for as-Skitter)"
    assert asg.number_of_nodes() == 4 and asg.number_of_edges() == 3
    tw = gr.load_snap_graph("twitch", lang="engb", verify=False)
    assert tw.graph["name"].startswith("musae-Twitch") and tw.number_of_edges() == 4
    with pytest.raises(ValueError, match="parameter 'name' must be one of .*'ego-facebook'"):
        gr.load_snap_graph("as-skitter")


def test_snap_loader_errors_for_altered_and_missing_files(tiny_snap):
    from bandits.data import DataChecksumError, DataNotFoundError

    with pytest.raises(DataChecksumError):
        gr.load_snap_graph("ego-facebook")  # the tiny file is not the registered one
    (tiny_snap / "snap/as-proxy/as20000102.txt").unlink()
    with pytest.raises(DataNotFoundError):
        gr.load_snap_graph("as733", verify=False)


def test_snap_cache_sees_a_changed_file(tiny_snap):
    assert gr.load_snap_graph("ego-facebook", verify=False).number_of_edges() == 4
    path = tiny_snap / "snap/ego-facebook/facebook_combined.txt"
    path.write_text("0 1\n1 2\n2 3\n3 4\n4 0\n")
    assert gr.load_snap_graph("ego-facebook", verify=False).number_of_edges() == 5


def test_real_ego_facebook(real_file):
    real_file("snap/ego-facebook/facebook_combined.txt")
    G = gr.load_snap_graph("ego-facebook")
    assert G.number_of_nodes() == 4039 and G.number_of_edges() == 88234
    net = gr.network_from_graph(gr.bfs_subsample(G, 200, np.random.default_rng(0)))
    assert net.V == 200 and net.stats()["connected"]


def test_real_as733_and_twitch(real_file):
    real_file("snap/as-proxy/as20000102.txt")
    for kind in ("edges", "target", "features"):
        real_file(f"snap/twitch/ENGB/musae_ENGB_{kind}.{'json' if kind == 'features' else 'csv'}")
    A = gr.load_snap_graph("as733")
    assert A.graph["name"] == "as-733 (stand-in for as-Skitter)"
    assert nx.is_connected(A) and 6000 <= A.number_of_nodes() <= 6474
    T = gr.load_snap_graph("twitch")
    assert T.number_of_nodes() == 7126 and nx.is_connected(T)
    S = gr.random_walk_subsample(T, 200, np.random.default_rng(0))
    assert S.number_of_nodes() == 200 and nx.is_connected(S)
