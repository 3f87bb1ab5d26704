"""Message passing with delays (bandits.network) and the ledger's aggregated deliveries."""
import networkx as nx
import numpy as np
import pytest

from bandits.comm import CommLedger
from bandits.network import (CumulativeStatsBuffer, MessageSimulator, deliveries_per_round, usable_delays,
                             visible_set)


def _dist(G):
    V = G.number_of_nodes()
    D = np.full((V, V), -1, dtype=np.int64)
    for u, row in nx.all_pairs_shortest_path_length(G):
        for v, d in row.items():
            D[u, v] = d
    return D


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("gamma,extra", [(1, 0), (2, 0), (3, 1), (2, 1)])
def test_visibility_rule_equals_literal_simulator(seed, gamma, extra):
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(9, 0.3, seed=int(rng.integers(1 << 30)))  # possibly disconnected
    dist = _dist(G)
    sim = MessageSimulator(nx.to_numpy_array(G), gamma, extra)
    T = 8
    for t in range(T):
        for v in range(9):
            assert sim.usable(v, t) == visible_set(dist, gamma, v, t, extra_delay=extra), (t, v)
        sim.step()
    # every delivery counted once, per arrival round
    np.testing.assert_array_equal(sim.deliveries, deliveries_per_round(dist, gamma, T))


def test_deliveries_on_a_path_by_hand():
    # path 0-1-2-3, gamma = 2: ordered pairs at distance 1: 6, at distance 2: 4 (0-2, 1-3 both ways)
    dist = _dist(nx.path_graph(4))
    np.testing.assert_array_equal(deliveries_per_round(dist, 2, 4), [6, 10, 10, 10])
    np.testing.assert_array_equal(deliveries_per_round(dist, 1, 3), [6, 6, 6])
    np.testing.assert_array_equal(deliveries_per_round(dist, 3, 4), [6, 10, 12, 12])


def test_usable_delays_and_errors():
    dist = _dist(nx.path_graph(3))
    tau = usable_delays(dist, 1)
    np.testing.assert_array_equal(tau, [[1, 1, -1], [1, 1, 1], [-1, 1, 1]])
    np.testing.assert_array_equal(usable_delays(dist, 2, extra_delay=1), [[1, 2, 3], [2, 1, 2], [3, 2, 1]])
    with pytest.raises(ValueError, match="gamma"):
        usable_delays(dist, 0)
    with pytest.raises(ValueError, match="extra_delay"):
        usable_delays(dist, 1, extra_delay=2)


def test_cumulative_buffer_matches_direct_sums():
    rng = np.random.default_rng(0)
    V, T, depth = 5, 12, 3
    inc = rng.standard_normal((T, V, 2))
    buf = CumulativeStatsBuffer({"b": (2,)}, V, depth)
    delays = np.array([1, 2, 3, 1, 2])
    for t in range(T):
        buf.push(t, b=inc[t])
        for s in range(t - depth + 1, t + 1):
            np.testing.assert_allclose(buf.read("b", s), inc[: s + 1].sum(0) if s >= 0 else 0.0)
        got = buf.read_delayed("b", t + 1, delays)
        want = np.stack([inc[: t + 2 - d, u].sum(0) if t + 1 - d >= 0 else np.zeros(2) for u, d in enumerate(delays)])
        np.testing.assert_allclose(got, want)
    with pytest.raises(ValueError, match="parameter 's' must be in .*rounds in the buffer"):
        buf.read("b", T - depth - 1)
    with pytest.raises(ValueError, match="in order"):
        buf.push(T + 1, b=inc[0])


def test_ledger_deliver_aggregates_like_send():
    a, b = CommLedger(3, 4), CommLedger(3, 4)
    a.send(0, 0, 1, "raw", 5)
    b.send(0, 0, 1, "raw", 5)
    a.deliver(1, 3, 4, "observation")
    for _ in range(3):
        b.send(1, 0, 2, "observation", 4)
    a.deliver(3, 0, 4, "observation")  # nothing delivered: no communication round
    for led in (a, b):
        np.testing.assert_array_equal(led.per_step("up"), [5, 12, 0, 0])
        assert led.total_up == 17 and led.total_down == 0
        assert led.by_kind() == {"raw": 5.0, "observation": 12.0}
        assert led.rounds() == 2
    np.testing.assert_array_equal(a.per_step("up", "observation"), [0, 12, 0, 0])
    np.testing.assert_array_equal(a.deliveries("observation"), [0, 3, 0, 0])
    np.testing.assert_array_equal(a.curve("total"), b.curve("total"))
    with pytest.raises(ValueError, match="n_messages"):
        a.deliver(0, -1, 4, "observation")
    with pytest.raises(ValueError, match="direction"):
        a.deliver(0, 1, 4, "observation", direction="sideways")
    with pytest.raises(ValueError, match="parameter 't' must be in \\[0, "):
        a.deliver(4, 1, 4, "observation")
