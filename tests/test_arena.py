"""The cross-paper arena: adapters, coverage, fronts, and every method's ledger against its own
paper's accounting after a few steps of each protocol it supports."""
from __future__ import annotations

import math

import numpy as np
import pytest

from bandits.algorithms import get_algorithm
from bandits.algorithms.async_kernel_ucb import exchange_scalars
from bandits.comm import CommLedger
from bandits.envs import make_env
from bandits.envs.arena import CompleteGraphEnv, OneClientEnv
from bandits.experiments import arena as ar
from bandits.experiments import arena_claims as arc
from bandits.experiments import arena_plots as arp
from bandits.experiments.common import ParameterError
from bandits.runner import run_seeds
from bandits.sim import run_regret


def _params(**kw):
    return ar.arena_params("quick", M=40, **kw)


def _run(method, protocol, env, knob, N, T, seed=0):
    """(policy, ledger, env) after T steps of ``method`` in the arena's wrapping of ``env``."""
    p = _params()
    env_o = ar.make_arena_env(ar.env_spec(env, p), protocol, N, 0)
    alg, params = ar.method_config(method, protocol, env, knob, dict(p, N_sync=N, T_sync=T, N_async=N, T_async=T))
    cls = get_algorithm(alg)
    if getattr(cls, "needs_network", False):
        params["network"] = env_o.network
        if params.get("kz") == "oracle":
            params["kz_oracle"] = env_o.kz_true
    env_ss, alg_ss = run_seeds(seed, 0)
    rng_env, rng_noise = (np.random.default_rng(s) for s in env_ss.spawn(2))
    ledger = CommLedger(N, T)
    pol = cls(N, T, env_o.dim, alg_ss, ledger, **params)
    run_regret(pol, env_o, T, N, rng_env, rng_noise)
    return pol, ledger, env_o


# ------------------------------------------------------------------------------ adapters
def test_one_client_env_draws_one_uniform_client_and_keeps_the_arms():
    inner = make_env({"name": "h1", "M": 30, "schedule": "sync"}, 0)
    env = OneClientEnv(inner)
    rng = np.random.default_rng(1)
    seen = [int(env.round(t, 5, rng)[0][0]) for t in range(300)]
    assert set(seen) == set(range(5))
    agents, arms, means = env.round(0, 5, np.random.default_rng(2))
    assert agents.shape == (1,) and arms.X.shape == (30, 10) and np.array_equal(means, inner.f)
    assert env.dim == 10 and env.fstar == inner.fstar
    # fresh contexts: one decision set (1, K, d)
    envc = OneClientEnv(make_env(ar.env_spec("cosine", _params()), 0))
    a, arms, means = envc.round(3, 4, np.random.default_rng(0))
    assert a.shape == (1,) and arms.X.shape == (1, 4, 10) and means.shape == (1, 4)


def test_complete_graph_env_exposes_network_and_all_ones_kz():
    env = CompleteGraphEnv(make_env({"name": "h1", "M": 20, "schedule": "sync"}, 0), 4)
    net = env.network
    assert net.gamma == 1 and net.V == 4
    assert np.array_equal(net.dist, 1 - np.eye(4, dtype=int))
    assert len(set(np.asarray(net.clique_of).tolist())) == 1  # one clique: K_4 itself
    assert np.array_equal(env.kz_true, np.ones((4, 4)))
    with pytest.raises(ValueError, match="n_agents"):
        env.round(0, 3, np.random.default_rng(0))


# ------------------------------------------------------------------------------ coverage
def test_every_method_runs_or_has_a_reason_and_tasks_cover_exactly_the_supported():
    p = _params(n_runs=1)
    tasks, labels = ar.arena_tasks(p)
    ran = {(lab["protocol"], lab["env"], lab["method"]) for lab in labels}
    for method in ar.ALL_METHODS:
        for protocol in ar.PROTOCOLS:
            for env in ar.ENVS:
                why = ar.unsupported(method, protocol, env)
                assert (why is None) == ((protocol, env, method) in ran), (method, protocol, env)
                assert why is None or len(why) > 20
    # the line-ups are all present somewhere; Eager-KernelUCB is Coop-KernelUCB on K_N (run once)
    assert {m for _, _, m in ran} == set(ar.ALL_METHODS) - {"Eager-KernelUCB"}
    assert "Coop-KernelUCB" in ar.unsupported("Eager-KernelUCB", "sync", "h1")
    assert ar.unsupported("FN-UCB", "async", "cosine") is not None  # FN-UCB's protocol refuses it
    assert ar.unsupported("DUETS", "sync", "f1") is not None and ar.unsupported("DUETS", "sync", "h1") is None
    table = ar.support_table()
    assert len(table) == len(ar.ALL_METHODS) * len(ar.PROTOCOLS)
    assert (table["reason"].str.len() > 0).sum() >= 8


def test_parameter_errors_name_the_parameter():
    with pytest.raises(ParameterError, match="'envs'"):
        ar.arena_params("quick", envs=["h9"])
    with pytest.raises(ParameterError, match="'grids'"):
        ar.arena_params("quick", grids={"DUETS": [-1.0]})
    with pytest.raises(ParameterError, match="'coop_kz'"):
        ar.arena_params("quick", coop_kz="guess")
    with pytest.raises(ParameterError, match="'N_sync'"):
        ar.arena_params("quick", N_sync=0)


# ------------------------------------------------------------------------------ fronts and tables
def test_pareto_mask_closed_form():
    C = np.array([0.0, 10.0, 10.0, 100.0, 5.0, 100.0])
    R = np.array([50.0, 20.0, 30.0, 10.0, 60.0, 10.0])
    # (0,50) front; (10,20) front; (10,30) dominated by (10,20); (100,10) front twice (duplicates kept);
    # (5,60) dominated by (0,50)
    assert ar.pareto_mask(C, R).tolist() == [True, True, False, True, False, True]


def test_budget_table_and_zero_floor():
    import pandas as pd

    pts = pd.DataFrame({"protocol": "sync", "env": "h1", "method": ["A", "A", "B", "C"], "knob": "k",
                        "value": [1.0, 2.0, 1.0, 1.0], "R_mean": [30.0, 10.0, 20.0, 40.0],
                        "C_mean": [0.0, 1e4, 1e3, 1e6], "R_se": 0.0, "on_front": True})
    res = ar.ArenaResults({}, None, pts)
    bt = ar.budget_table(res, budgets=(0.0, 1e3, math.inf))
    b0 = bt[bt.budget == 0.0]
    assert b0.method.tolist() == ["A"]
    b3 = bt[bt.budget == 1e3]
    assert b3.method.tolist() == ["B", "A"] and b3.value.tolist() == [1.0, 1.0]
    binf = bt[np.isinf(bt.budget)]
    assert binf.method.tolist() == ["A", "B", "C"] and binf.R_mean.tolist() == [10.0, 20.0, 40.0]
    assert arp.zero_floor([0.0, 350.0, 2e4]) == 10.0 and arp.zero_floor([0.0]) == 1.0


# ------------------------------------------------------------------------------ ledgers vs each paper
def test_coop_and_eager_on_the_complete_graph_deliver_n_n_minus_1_per_round():
    N, T = 3, 6
    for method in ("Coop-KernelUCB", "Eager-KernelUCB"):
        pol, led, env = _run(method, "sync", "cosine", 1.0, N, T)
        d = env.dim
        assert np.array_equal(led.deliveries(), np.full(T, N * (N - 1)))
        assert led.total_up == T * N * (N - 1) * (d + 3) and led.total_down == 0.0
        assert pol.info()["accepted_deliveries"] == (T - 1) * N * (N - 1) or \
            pol.info()["accepted_deliveries"] == T * N * (N - 1)


def test_coop_equals_eager_on_the_complete_graph():
    a = _run("Coop-KernelUCB", "sync", "h1", 1.0, 3, 5)
    b = _run("Eager-KernelUCB", "sync", "h1", 1.0, 3, 5)
    assert np.array_equal(a[0].Xhist, b[0].Xhist)


def test_duets_ledger_per_epoch():
    N, T = 3, 12
    pol, led, env = _run("DUETS", "sync", "h1", 1.0, N, T)
    d = env.dim
    s = [e["s_unique"] for e in pol.epochs if e.get("communicated")]
    assert s, "at least one communicating epoch"
    assert led.total_up == N * sum(s)  # one |S_j|-vector per agent (Eq. 7)
    assert led.total_down == N * sum(si * d + si + 1 for si in s)  # S_j, v̄_j and σ_{j,max} to every agent


def test_dis_kernel_ucb_raw_data_sharing():
    N, T = 3, 10
    pol, led, env = _run("DisKernelUCB", "sync", "hartmann4", 0.5, N, T)
    d = env.dim
    assert pol.n_syncs >= 1
    assert led.total_up % (d + 1) == 0 and led.total_up > 0
    assert led.total_down == (N - 1) * led.total_up  # every point goes to the N − 1 other agents


@pytest.mark.parametrize("protocol", ["sync", "async"])
def test_approx_dis_kernel_ucb_ledger_per_sync(protocol):
    N, T = 3, 15
    pol, led, env = _run("Approx-DisKernelUCB", protocol, "f1", 0.3, N, T)
    d = env.dim
    ms = pol.info()["dict_sizes"]
    assert len(ms) == pol.n_syncs >= 1 and led.rounds() == pol.n_syncs
    # downlink: the dictionary (m·d) and (A, b) (m² + m) to all N agents; uplink: N·(m² + m) + sampled points
    assert led.total_down == sum(N * (m * d + m * m + m) for m in ms)
    up_stats = sum(N * (m * m + m) for m in ms)
    assert led.total_up >= up_stats and (led.total_up - up_stats) % d == 0


@pytest.mark.parametrize("protocol", ["sync", "async"])
def test_silent_methods_send_nothing(protocol):
    pol, led, _ = _run("N-KernelUCB", protocol, "f1", 1.0, 3, 6)
    assert led.total_up == led.total_down == 0.0 and led.rounds() == 0


def test_neural_ucb_sends_nothing():
    pol, led, _ = _run("NeuralUCB", "sync", "cosine", 0.1, 2, 4)
    assert led.total_up == led.total_down == 0.0


@pytest.mark.parametrize("protocol", ["sync", "async"])
def test_one_kernel_ucb_forwards_every_point(protocol):
    N, T = 3, 7
    pol, led, env = _run("OneKernelUCB", protocol, "f1", 1.0, N, T)
    d = env.dim
    points = T * (N if protocol == "sync" else 1)
    assert led.total_up == points * (d + 1) and led.total_down == points * (N - 1) * (d + 1)


def test_async_kernel_ucb_exchange_formula():
    N, T = 3, 30
    pol, led, env = _run("Async-KernelUCB", "async", "f1", 0.3, N, T)
    info = pol.info()
    ms = info["dict_sizes"]
    assert len(ms) >= 1 and led.rounds() == len(ms)
    prev = [0] + ms[:-1]
    expect = sum(sum(exchange_scalars(a, b, env.dim).values()) for a, b in zip(prev, ms))
    assert led.total_up + led.total_down == expect


@pytest.mark.parametrize("protocol", ["sync", "async"])
def test_dislinucb_sync_costs_two_n_times_d2_plus_d(protocol):
    N, T = 3, 12
    pol, led, env = _run("DisLinUCB", protocol, "f1", 0.1, N, T)
    d = env.dim
    n = pol.info()["n_syncs"]
    assert n >= 1
    assert led.total_up == n * N * (d * d + d) and led.total_down == n * N * (d * d + d)


@pytest.mark.parametrize("protocol", ["sync", "async"])
def test_fedlinucb_exchange_costs_two_times_d2_plus_d(protocol):
    N, T = 3, 12
    pol, led, env = _run("FedLinUCB", protocol, "f1", 0.1, N, T)
    d = env.dim
    n = pol.info()["n_exchanges"]
    assert n >= 1
    assert led.total_up == n * (d * d + d) and led.total_down == n * (d * d + d)


def test_fedglb_ucb_sync_accounting():
    N, T = 3, 12
    pol, led, env = _run("FedGLB-UCB", "async", "f1", 0.1, N, T)
    d = env.dim
    info = pol.info()
    n, evals = info["n_syncs"], sum(info["agd_evals"])
    assert n >= 1
    assert led.total_up == n * N * d * d + N * evals * d
    assert led.total_down == n * N * (d * d + d) + N * evals * d


def test_fn_ucb_round_payloads():
    N, T = 2, 5
    pol, led, env = _run("FN-UCB", "sync", "cosine", 0.0, N, T)  # D = 0: a round every iteration
    p = pol.p
    kinds = led.by_kind()
    assert led.rounds() == T
    assert kinds["W_new"] == N * T * p * p and kinds["B_new"] == N * T * p
    assert kinds["W_sync"] == N * T * p * p


def test_arena_cell_meta_units_and_common_random_numbers():
    p = _params(N_sync=2, T_sync=6, N_async=3, T_async=8)
    cfg = {"protocol": "sync", "env": ar.env_spec("h1", p), "env_seed": 0, "algorithm": "OneKernelUCB",
           "params": ar.method_config("OneKernelUCB", "sync", "h1", 1.0, p)[1], "N": 2, "T": 6}
    r = ar.arena_cell(cfg, 0, 0)
    m = r["meta"]
    assert m["total_up"] == 2 * 6 * 11 and m["total_down"] == 2 * 6 * 11
    # batch="fantasy" (sync): per round client 1 sends x, then y (2 uploads), client 2 (x, y); the server forwards
    # x early, then y, to client 2 and (x, y) to client 1 — 6 messages, the scalars of one (x, y) each way
    assert m["messages"] == 6 * (3 + 3) and m["rounds"] == 6
    again = ar.arena_cell(cfg, 0, 0)
    np.testing.assert_array_equal(r["arrays"]["regret"], again["arrays"]["regret"])


def test_claims_on_a_tiny_arena(tmp_path):
    p = _params(protocols=["async"], envs=["h1"], async_methods=["Async-KernelUCB", "N-KernelUCB", "DisLinUCB"],
                N_async=2, T_async=15, n_runs=3)
    res = ar.run_arena(p, seed=0, n_jobs=1, backend="serial", cache_dir=str(tmp_path), progress=False)
    # tested: Async 2 D values + N-KernelUCB 1 point + DisLinUCB 2 values, 3 runs each
    assert len(res.runs) == 3 * 5 and res.points.on_front.any()
    assert (res.tune.rep >= ar.TUNE_REP0).all() and (res.runs.rep < 3).all()
    claims = arc.arena_claims(res)
    ids = [c.id for c in claims]
    assert "async-front-h1" in ids and "comm-pays-async-h1" in ids and "kernel-beats-linear-async-h1" in ids
    assert all(c.verdict in ("PASS", "FAIL", "INCONCLUSIVE") for c in claims)
    for unit in ar.UNITS:
        fig = arp.plot_pareto(res, "async", unit)
        assert fig.axes


def test_a_run_that_breaks_down_is_reported_not_dropped(monkeypatch, tmp_path):
    import bandits.sim

    def boom(*a, **k):
        raise FloatingPointError("overflow encountered in matmul")

    monkeypatch.setattr(bandits.sim, "run_regret", boom)
    p = _params(protocols=["async"], envs=["h1"], async_methods=["N-KernelUCB"], N_async=2, T_async=5, n_runs=3)
    res = ar.run_arena(p, seed=0, n_jobs=1, backend="serial", cache_dir=None, progress=False)
    f = ar.failures(res)
    # 2 tuning runs (g = 0.5, 2) and 3 tested runs
    assert len(f) == 5 and f.failed.str.contains("FloatingPointError").all()
    assert res.points.empty


def _constructed_runs(failed_rep=None):
    import pandas as pd

    rng = np.random.default_rng(0)
    pts = [("Async-KernelUCB", "D", 1.0, 100.0, 1e4), ("Async-KernelUCB", "D", 10.0, 110.0, 1e3),
           ("N-KernelUCB", "beta", 1.0, 300.0, 0.0), ("N-KernelUCB", "beta", 2.0, 250.0, 0.0),
           ("DisLinUCB", "c", 1.0, 400.0, 1e3)]
    rows = []
    for rep in range(4):
        shared = rng.normal(0, 5)
        for m, k, v, R, C in pts:
            rows.append({"protocol": "async", "env": "h1", "method": m, "knob": k, "value": v, "rep": rep,
                         "R_T": R + shared + rng.normal(0, 2), "C": C, "messages": 1, "rounds": 1,
                         "wall_time": 0.0, "failed": None})
    runs = pd.DataFrame(rows)
    if failed_rep is not None:
        i = runs[(runs.method == "Async-KernelUCB") & (runs.value == 1.0) & (runs.rep == failed_rep)].index
        runs.loc[i, "R_T"] = np.nan
        runs.loc[i, "failed"] = "FloatingPointError"
    return runs


def test_arena_claims_are_hypotheses_tested_without_picking_and_count_failures():
    runs = _constructed_runs()
    res = ar.ArenaResults(_params(), runs, ar.summarise(runs))
    claims = {c.id: c for c in arc.arena_claims(res)}
    c = claims["comm-pays-async-h1"]
    assert c.verdict == "PASS" and c.quote == "paraphrase" and "package's own hypothesis" in c.claim
    assert "Bonferroni" in c.check and c.method == "t"
    # every communicating point's parts are listed: 2 Async points (and DisLinUCB) against 2 silent points
    assert len(c.detail) == 3
    k = claims["kernel-beats-linear-async-h1"]
    assert k.verdict == "PASS" and "every linear point" in k.check
    # a failed run is the worst outcome of its comparison, not dropped
    bad = _constructed_runs(failed_rep=0)
    res = ar.ArenaResults(_params(), bad, ar.summarise(bad))
    claims = {c.id: c for c in arc.arena_claims(res)}
    front = claims["async-front-h1"]
    assert any("1 of 4 runs diverged" in d for d in front.detail)


def test_committed_claims_match_a_recompute_from_the_committed_runs():
    """figures/arena/claims.json's fixed-size verdicts are what tools/recompute_claims.py recomputes from results.csv."""
    import json
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "tools"))
    import recompute_claims

    from bandits.sequential import fixed_size_verdicts

    # the fixed-size verdicts: claims.json's, except where the sequential step rewrote it (sequential.json)
    committed = fixed_size_verdicts(root / "figures" / "arena")
    _, claims = recompute_claims.recompute("arena")
    assert committed == {c.id: c.verdict for c in claims}


def test_note_of_a_tiny_folder(tmp_path):
    """The note writer on a folder the notebook's helpers wrote: every section there, failures listed."""
    import json

    from bandits.experiments import arena as ex
    from bandits.experiments.arena_claims import note_markdown
    from bandits.experiments.notebook import write_note

    runs, tune = _constructed_runs(failed_rep=1), None
    runs.to_csv(tmp_path / "results.csv", index=False)
    p = _params()
    (tmp_path / "provenance.json").write_text(json.dumps({"parameters": {k: v for k, v in p.items()}, "seed": 0,
                                                          "mode": "quick", "git": {"commit": "0" * 40}}))
    text = note_markdown(tmp_path)
    assert "quick mode" in text and "## The fronts" in text and "The failed runs" in text
    assert write_note("arena", tmp_path).read_text() == text
    assert write_note("duets", tmp_path) is None


# ------------------------------------------------------------------------------ tuning, units, batch rule, the map
def test_one_exploration_grid_tuned_on_runs_apart_and_each_method_once():
    p = _params(n_runs=2)
    tune, tl = ar.arena_tasks(p, "tune")
    test, ll = ar.arena_tasks(p, "test")
    assert {lab["rep"] for lab in tl} == {ar.TUNE_REP0} and {lab["rep"] for lab in ll} == {0, 1}
    # every supported method is tuned over the same grid
    per = {}
    for lab in tl:
        per.setdefault((lab["protocol"], lab["env"], lab["method"]), set()).add(lab["explore"])
    assert all(v == set(p["explore"]) for v in per.values())
    assert {k for k in per} == {(lab["protocol"], lab["env"], lab["method"]) for lab in ll}
    # each (protocol, env, method, value) is tested once per run; no Eager-KernelUCB
    keys = [(lab["protocol"], lab["env"], lab["method"], lab["value"], lab["rep"]) for lab in ll]
    assert len(keys) == len(set(keys)) and not any(k[2] == "Eager-KernelUCB" for k in keys)
    # the chosen g enters the tested configurations
    chosen = {k: 2.0 for k in per}
    test2, ll2 = ar.arena_tasks(p, "test", chosen)
    assert all(lab["explore"] == 2.0 for lab in ll2)
    cfg = next(c for (c, _), lab in zip(test2, ll2) if lab["method"] == "Async-KernelUCB")
    assert cfg["params"]["alpha"] == 2.0


def test_select_explore_takes_the_lowest_mean_on_the_tuning_runs():
    import pandas as pd

    t = pd.DataFrame({"protocol": "sync", "env": "h1", "method": ["A"] * 4 + ["B"] * 2,
                      "explore": [0.5, 0.5, 2.0, 2.0, 0.5, 2.0], "R_T": [10.0, 12.0, 9.0, 20.0, np.nan, 3.0]})
    assert ar.select_explore(t) == {("sync", "h1", "A"): 0.5, ("sync", "h1", "B"): 2.0}


def test_select_explore_takes_the_default_width_when_every_tuning_run_failed():
    import pandas as pd

    t = pd.DataFrame({"protocol": "sync", "env": "magic", "method": ["A"] * 3 + ["B"] * 2,
                      "explore": [0.1, 1.0, 5.0, 0.1, 5.0], "R_T": [np.nan, np.nan, np.nan, 4.0, np.nan]})
    with pytest.warns(UserWarning, match="every tuning run failed.*g = 1"):
        got = ar.select_explore(t)
    assert got == {("sync", "magic", "A"): 1.0, ("sync", "magic", "B"): 0.1}


def test_every_method_scales_its_exploration_by_g():
    p = _params()
    for method, key in [("DUETS", "beta"), ("DisKernelUCB", "beta"), ("Approx-DisKernelUCB", "beta"),
                        ("N-KernelUCB", "beta"), ("OneKernelUCB", "beta"), ("Coop-KernelUCB", "eta")]:
        assert ar.method_config(method, "sync", "h1", 3.0, p, 0.2)[1][key] == 0.2
    assert ar.method_config("Async-KernelUCB", "async", "f1", 3.0, p, 0.2)[1]["alpha"] == 0.2
    for m in ("DisLinUCB", "FedLinUCB", "FedGLB-UCB"):
        assert ar.method_config(m, "async", "f1", 3.0, p, 0.2)[1]["alpha"] == 0.2
    fn = ar.method_config("FN-UCB", "sync", "cosine", 2.5, p, 2.0)[1]
    assert fn["nu_a"] == pytest.approx(0.2) and fn["nu_b"] == pytest.approx(0.2) and fn["D"] == 2.5
    assert ar.method_config("NeuralUCB", "sync", "cosine", 0.0, p, 2.0)[1]["nu"] == pytest.approx(0.2)


def test_fedlinucb_threshold_varies_over_its_grid():
    """Its five values must give different exchange counts (a threshold of c/N² fires at every step)."""
    counts = []
    for D in ar._GRIDS_FULL["FedLinUCB"]:
        pol, led, _ = _run("FedLinUCB", "async", "f1", D, 10, 200)
        counts.append(pol.info()["n_exchanges"])
    assert counts == sorted(counts, reverse=True) and len(set(counts)) == len(counts), counts
    assert counts[-1] < 200 / 2


def test_arena_cell_records_exchanges_dictionary_and_same_queries():
    p = _params(N_async=3, T_async=30, N_sync=3, T_sync=6)
    cfg = {"protocol": "async", "env": ar.env_spec("f1", p), "env_seed": 0, "algorithm": "AsyncKernelUCB",
           "params": ar.method_config("Async-KernelUCB", "async", "f1", 0.3, p)[1], "N": 3, "T": 30}
    m = ar.arena_cell(cfg, 0, 0)["meta"]
    assert m["exchanges"] >= 1 and m["m"] >= 1 and m["m_sq_sum"] >= m["m"] ** 2
    cfg = {"protocol": "sync", "env": ar.env_spec("h1", p), "env_seed": 0, "algorithm": "OneKernelUCB",
           "params": ar.method_config("OneKernelUCB", "sync", "h1", 0.0, p)[1], "N": 3, "T": 6}
    m = ar.arena_cell(cfg, 0, 0)["meta"]
    assert m["multi_steps"] == 6 and m["exchanges"] is None
    # one shared model, one finite domain: with batch="none" every agent queries the same candidate after the
    # first (flat) round; the arena's batch="fantasy" (GP-BUCB) conditions each agent on the earlier choices
    assert m["same_query"] == 0
    cfg["params"] = dict(cfg["params"], batch="none")
    assert ar.arena_cell(cfg, 0, 0)["meta"]["same_query"] >= 5


def test_fronts_in_three_units_headline_and_break_even():
    import pandas as pd

    pts = pd.DataFrame({"protocol": "async", "env": "f1", "method": ["Async-KernelUCB", "OneKernelUCB", "N-KernelUCB"],
                        "knob": ["D", "-", "-"], "value": [1.0, 0.0, 0.0], "explore": 1.0,
                        "R_mean": [20.0, 10.0, 50.0], "R_se": 0.0, "C_mean": [5e4, 1e5, 0.0],
                        "messages": [400.0, 100.0, 0.0], "rounds": [40.0, 100.0, 0.0], "exchanges": [40.0, np.nan, np.nan],
                        "m": [10.0, np.nan, np.nan], "m_sum": [200.0, np.nan, np.nan],
                        "m_sq_sum": [2000.0, np.nan, np.nan], "n": 5})
    for unit, (col, _, front) in ar.UNITS.items():
        pts[front] = ar.pareto_mask(pts[col].to_numpy(), pts.R_mean.to_numpy())
    res = ar.ArenaResults({"N_async": 10, "T_async": 100}, None, pts)
    # scalars: all three on the front; messages: Async (400) dominated by One (100, lower R)
    assert pts.on_front.all() and pts.on_front_messages.tolist() == [False, True, True]
    fe = arc.front_ends(res)
    assert set(fe.unit) == set(ar.UNITS) and (fe.low_regret_end == "OneKernelUCB").all()
    text = arc.headline_text(res)
    assert text.count("OneKernelUCB holds the low-regret end of 1 of 1 fronts") == 3
    be = arc.break_even_table(res)
    d = 20
    assert be.sum_3m2_dm.iloc[0] == 3 * 2000 + d * 200 and be.N_T_d1.iloc[0] == 10 * 100 * (d + 1)
    assert be.measured_ratio.iloc[0] == pytest.approx(0.5)


def test_run_module_imports_neither_claims_nor_plots():
    import ast
    from pathlib import Path

    tree = ast.parse(Path(ar.__file__).read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names.add(("." * node.level) + (node.module or ""))
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    bad = {n for n in names if n.split(".")[-1] in ("claims", "plotting", "arena_claims", "arena_plots")}
    assert not bad, bad


def test_map_tasks_table_and_figure(tmp_path):
    import pandas as pd

    mp = ar.map_params("quick", Ns=[3], T=20, checkpoints=[10, 20],
                       methods={"Async-KernelUCB": [1.0], "N-KernelUCB": [0.0], "OneKernelUCB": [0.0]})
    tasks, labels = ar.map_tasks(mp, {("async", "hartmann4", "OneKernelUCB"): 2.0})
    assert len(tasks) == 3 and all(c["protocol"] == "async" and c["N"] == 3 and c["T"] == 20 for c, _ in tasks)
    one = next(c for (c, _), lab in zip(tasks, labels) if lab["method"] == "OneKernelUCB")
    assert one["params"]["beta"] == 2.0
    m = ar.run_map(mp, {}, seed=0, n_jobs=1, backend="serial", cache_dir=str(tmp_path), progress=False)
    assert len(m) == 3 * 2 and set(m.t) == {10, 20}
    assert (m[m.method == "N-KernelUCB"].C_t == 0).all()
    tab = arp.map_table(m, budgets=(0.0, math.inf))
    assert (tab[tab.budget == 0.0].method == "N-KernelUCB").all()
    best = m[m.t == 20].groupby("method").R_t.mean().idxmin()
    assert tab[(tab.budget == math.inf) & (tab.t == 20)].method.iloc[0] == best
    assert arp.plot_map(m, "hartmann4").axes
    with pytest.raises(ParameterError, match="'methods'"):
        ar.map_params("quick", methods={"DUETS": [1.0]})
def test_committed_note_is_written_from_the_folder():
    """figures/arena/NOTE.md is what `python -m bandits.report note figures/arena` writes from the folder's files
    (so no number in it can go stale)."""
    from pathlib import Path

    from bandits.experiments.arena_claims import note_markdown

    folder = Path(__file__).resolve().parents[1] / "figures" / "arena"
    assert (folder / "NOTE.md").read_text() == note_markdown(folder)


