"""Async-KernelUCB (Algorithm 1) against direct computations (spec §2.5–2.7, checks C3)."""
import numpy as np
import pytest

from bandits.algorithms.async_kernel_ucb import (
    AsyncKernelUCB,
    approx_posterior,
    change_of_dictionary,
    dict_size_curve,
    dictionary_size_bound,
    effective_dimension,
    embedding_matrix,
    exchange_scalars,
    lemma41_q,
    merge_statistics,
    printed_change_of_dictionary,
    projected_embedding,
)
from bandits.comm import SERVER, CommLedger
from bandits.envs import Arms, ContextualEnv, make_env
from bandits.envs.functions import sample_ball
from bandits.estimators import ExactGP, information_gain
from bandits.kernels import RBF
from bandits.linalg import cholesky_jitter
from bandits.sim import run_regret

KSPEC = {"name": "rbf", "gamma": 1.0}
KER = RBF.from_gamma(1.0)
LEGS = ("a_dictionary", "a_statistics", "d_dictionary", "d_statistics", "f_statistics")


def _env(d=5, K=10, seed=0):
    rng = np.random.default_rng(seed)
    theta = sample_ball(rng, 1, d)[0]
    return ContextualEnv(sampler=lambda r, n: sample_ball(r, n, d), f=lambda X: np.cos(3 * X @ theta),
                         n_arms=K, dim=d, noise_std=0.1, schedule="uniform")


def _run(N=5, T=200, d=5, seed=0, env_seed=0, **params):
    led = CommLedger(N, T)
    pol = AsyncKernelUCB(N, T, d, np.random.SeedSequence(seed), led, kernel=KSPEC, **params)
    rec = []
    orig = pol.update

    def update(t, agents, arms, choices, rewards):  # record (t, client, x, y)
        for j, i in enumerate(agents):
            rec.append((t, int(i), arms.for_agent(j)[choices[j]].copy(), float(rewards[j])))
        orig(t, agents, arms, choices, rewards)

    pol.update = update
    tr = run_regret(pol, _env(d=d, seed=env_seed), T, N, np.random.default_rng(seed + 10),
                    np.random.default_rng(seed + 20))
    return pol, led, tr, rec


def _posterior_direct(S, A, b, lam, X):
    """Eq. 2 as printed: μ̃ = zᵀ(Ã+λI)⁻¹b, σ̃² = λ⁻¹[k − zᵀÃ(Ã+λI)⁻¹z], Cholesky basis."""
    if len(S) == 0:
        return np.zeros(len(X)), KER.diag(X) / lam
    Z = np.linalg.solve(np.linalg.cholesky(KER(S)), KER(S, X)).T
    M = A + lam * np.eye(len(A))
    mu = Z @ np.linalg.solve(M, b)
    s2 = (KER.diag(X) - np.einsum("ij,ij->i", Z @ A, np.linalg.solve(M, Z.T).T)) / lam
    return mu, s2


# ------------------------------------------------------------------------------ the transformation
def test_corrected_T_is_identity_and_printed_T_is_not():
    S = sample_ball(np.random.default_rng(0), 7, 3)
    T = change_of_dictionary(KER, S, S)
    np.testing.assert_allclose(T, np.eye(7), atol=1e-10)
    P = printed_change_of_dictionary(KER, S, S)
    w = np.linalg.eigvalsh(KER(S))
    np.testing.assert_allclose(P, np.diag(w), atol=1e-10)  # the erratum gives Λ, not I
    assert np.abs(P - np.eye(7)).max() > 0.3
    # in the Cholesky basis the corrected T for a prefix dictionary is [I 0] (zero-padding)
    S2 = np.vstack([S, sample_ball(np.random.default_rng(1), 4, 3)])
    Tc = change_of_dictionary(KER, S, S2, basis="chol")
    np.testing.assert_allclose(Tc, np.hstack([np.eye(7), np.zeros((7, 4))]), atol=1e-10)
    # composition T_{S',S''} = T_{S',S} T_{S,S''}
    S3 = np.vstack([S2, sample_ball(np.random.default_rng(2), 3, 3)])
    B1, B2, B3 = (embedding_matrix(KER, s, "eig") for s in (S, S2, S3))
    np.testing.assert_allclose(change_of_dictionary(KER, S, S3, B1, B3),
                               change_of_dictionary(KER, S, S2, B1, B2) @ change_of_dictionary(KER, S2, S3, B2, B3),
                               atol=1e-9)


@pytest.mark.parametrize("basis", ["eig", "chol"])
def test_merge_equals_direct_embedding_of_projected_data(basis):
    rng = np.random.default_rng(3)
    d, lam = 3, 1.0
    S_old = sample_ball(rng, 5, d)
    S_new = np.vstack([S_old, sample_ball(rng, 4, d)])
    X1, y1 = sample_ball(rng, 12, d), rng.standard_normal(12)  # uploaded under S_old
    X2, y2 = sample_ball(rng, 8, d), rng.standard_normal(8)  # uploaded under S_new
    B_old, B_new = embedding_matrix(KER, S_old, basis), embedding_matrix(KER, S_new, basis)
    Z1 = (B_old @ KER(S_old, X1)).T
    Z2 = (B_new @ KER(S_new, X2)).T
    T = change_of_dictionary(KER, S_old, S_new, B_old, B_new)
    A, b = merge_statistics(Z1.T @ Z1, Z1.T @ y1, Z2.T @ Z2, Z2.T @ y2, T)
    # direct: the old data projected on span(S_old), embedded in S_new, plus the new data
    P1 = projected_embedding(KER, S_old, S_new, X1, B_new)
    np.testing.assert_allclose(A, P1.T @ P1 + Z2.T @ Z2, atol=1e-9)
    np.testing.assert_allclose(b, P1.T @ y1 + Z2.T @ y2, atol=1e-9)
    # ... which is not the direct embedding of the raw old data (the projection loss, spec E2)
    Z1n = (B_new @ KER(S_new, X1)).T
    assert np.abs(A - (Z1n.T @ Z1n + Z2.T @ Z2)).max() > 1e-2
    # but it is for data in span(S_old) (here: the dictionary points themselves)
    Zs = (B_old @ KER(S_old, S_old)).T
    Zsn = (B_new @ KER(S_new, S_old)).T
    np.testing.assert_allclose(T.T @ (Zs.T @ Zs) @ T, Zsn.T @ Zsn, atol=1e-9)
    # unchanged dictionary: the merge is the plain sum (T = I), i.e. the direct computation
    Tid = change_of_dictionary(KER, S_new, S_new, B_new, B_new)
    A2, b2 = merge_statistics(Z2.T @ Z2, Z2.T @ y2, Z1n.T @ Z1n, Z1n.T @ y1, Tid)
    Z = np.vstack([Z2, Z1n])
    np.testing.assert_allclose(A2, Z.T @ Z, atol=1e-10)
    np.testing.assert_allclose(b2, Z.T @ np.concatenate([y2, y1]), atol=1e-10)
    Ap, bp = merge_statistics(Z2.T @ Z2, Z2.T @ y2, Z1n.T @ Z1n, Z1n.T @ y1, None)
    np.testing.assert_allclose(Ap, Z.T @ Z, atol=1e-12)


def test_cholesky_zero_padding_agrees_with_corrected_eigen_T():
    rng = np.random.default_rng(4)
    d, lam = 4, 0.5
    S = [sample_ball(rng, 3, d)]
    for n in (4, 0, 5):
        S.append(np.vstack([S[-1], sample_ball(rng, n, d)]))
    batches = [(sample_ball(rng, 10, d), rng.standard_normal(10)) for _ in S]
    Xq = sample_ball(rng, 30, d)
    state = {}
    for basis in ("chol", "eig"):
        A, b, B_prev, S_prev = np.zeros((0, 0)), np.zeros(0), np.zeros((0, 0)), np.zeros((0, d))
        for Sk, (X, y) in zip(S, batches):
            Bk = embedding_matrix(KER, Sk, basis)
            Z = (Bk @ KER(Sk, X)).T
            T = None if basis == "chol" else change_of_dictionary(KER, S_prev, Sk, B_prev, Bk)
            A, b = merge_statistics(A, b, Z.T @ Z, Z.T @ y, T)
            B_prev, S_prev = Bk, Sk
        C = cholesky_jitter(A + lam * np.eye(len(A)))
        Zq = (B_prev @ KER(S_prev, Xq)).T
        state[basis] = approx_posterior(Zq, KER.diag(Xq), C, np.linalg.solve(A + lam * np.eye(len(A)), b), lam)
    np.testing.assert_allclose(state["chol"][0], state["eig"][0], atol=1e-10)
    np.testing.assert_allclose(state["chol"][1], state["eig"][1], atol=1e-10)


def test_policy_runs_agree_in_the_cholesky_and_eigen_bases():
    pc, lc, tc, _ = _run(N=4, T=150, d=4, seed=1, q=2.0, D=1.0)
    pe, le, te, _ = _run(N=4, T=150, d=4, seed=1, q=2.0, D=1.0, basis="eig")
    assert pc.info()["n_comms"] > 10 and pc.dic.m > 10
    np.testing.assert_array_equal(tc.regret, te.regret)  # the same choices
    ic, ie = pc.info(), pe.info()
    assert ic.pop("rls_prob_sum") == pytest.approx(ie.pop("rls_prob_sum"), rel=1e-12)
    assert ic == ie
    assert lc.messages == le.messages
    Xq = sample_ball(np.random.default_rng(5), 40, 4)
    for i in range(4):
        mc, sc = pc.posterior(pc.models[i], Xq)
        me, se = pe.posterior(pe.models[i], Xq)
        np.testing.assert_allclose(mc, me, atol=1e-10)
        np.testing.assert_allclose(sc, se, atol=1e-10)


@pytest.mark.parametrize("basis", ["chol", "eig"])
def test_incremental_aggregate_equals_per_client_form(basis):
    pol, *_ = _run(N=5, T=200, d=3, seed=2, q=0.5, basis=basis, keep_client_records=True)
    assert pol.info()["n_comms"] > 20
    A, b = pol.per_client_aggregate()
    np.testing.assert_allclose(A, pol.A, atol=1e-9)
    np.testing.assert_allclose(b, pol.b, atol=1e-9)


# ------------------------------------------------------------------------------ the estimator
def test_dictionary_of_all_points_gives_exact_kernel_ridge_posterior():
    lam = 0.5
    pol, led, tr, rec = _run(N=4, T=120, d=5, seed=3, q=1e12, lam=lam, D=1.5)
    info = pol.info()
    assert info["n_skipped"] == 0 and info["n_sampled"] == sum(info["buffer_sizes"]) == pol.dic.m
    last = {}
    for t, i in zip(info["comm_steps"], info["comm_clients"]):
        last[i] = t
    Xq = sample_ball(np.random.default_rng(6), 50, 5)

    def exact(data):
        gp = ExactGP(KER, lam, 5)
        gp.add(np.array([x for _, _, x, _ in data]), np.array([y for *_, y in data]))
        return gp.predict(Xq)

    # the server model: all data uploaded by each client up to its last exchange
    mu, var = exact([r for r in rec if r[1] in last and r[0] <= last[r[1]]])
    mt, s2 = pol.posterior(pol.server_model, Xq)
    np.testing.assert_allclose(mt, mu, atol=1e-8)
    np.testing.assert_allclose(lam * s2, var, atol=1e-8)
    # a stale client model: the data uploaded by everyone up to that client's last exchange
    i = info["comm_clients"][len(info["comm_clients"]) // 2]
    ti = last[i]
    prior = {}
    for t, c in zip(info["comm_steps"], info["comm_clients"]):
        if t <= ti:
            prior[c] = t
    mu, var = exact([r for r in rec if r[1] in prior and r[0] <= prior[r[1]]])
    mt, s2 = pol.posterior(pol.models[i], Xq)
    np.testing.assert_allclose(mt, mu, atol=1e-8)
    np.testing.assert_allclose(lam * s2, var, atol=1e-8)


def test_posterior_matches_eq2_as_printed():
    pol, *_ = _run(N=3, T=150, d=4, seed=4, q=0.7)
    Xq = sample_ball(np.random.default_rng(7), 30, 4)
    mu, s2 = _posterior_direct(pol.dic.points, pol.A, pol.b, pol.lam, Xq)
    mt, st = pol.posterior(pol.server_model, Xq)
    np.testing.assert_allclose(mt, mu, atol=1e-9)
    np.testing.assert_allclose(st, s2, atol=1e-9)


# ------------------------------------------------------------------------------ the trigger
def _step(pol, t, client, x, y=0.0):
    arms = Arms(np.asarray(x, dtype=float)[None, None, :], shared=False)  # one arm: the choice is forced
    c = pol.select(t, np.array([client]), arms)
    assert c.tolist() == [0]
    pol.update(t, np.array([client]), arms, c, np.array([y]))


def test_trigger_fires_exactly_when_running_sum_exceeds_D():
    d, lam, D, T = 3, 0.5, 4.0, 60
    led = CommLedger(2, T)
    pol = AsyncKernelUCB(2, T, d, np.random.SeedSequence(0), led, kernel=KSPEC, lam=lam, D=D, q=1.0)
    rng = np.random.default_rng(8)
    xs = sample_ball(rng, T, d)
    # prior σ̃² = k(x,x)/λ = 2: client 0's running sum is 2, 4 (= D, no trigger: strict), 6 > D
    for t, c in enumerate([0, 1, 0, 1]):
        _step(pol, t, c, xs[t])
        assert led.messages == []
    np.testing.assert_allclose(pol.V, [4.0, 4.0])
    _step(pol, 4, 0, xs[4])
    assert {m.t for m in led.messages} == {4} and pol.info()["comm_clients"] == [0]
    assert pol.V[0] == 0.0 and pol.V[1] == 4.0
    # phase 2: client 0 uses its stale model (S_1, Ã_1, b_1); predict the crossing from scratch
    S1, A1, b1 = pol.dic.points.copy(), pol.A.copy(), pol.b.copy()
    near = S1[rng.integers(len(S1), size=40)] + 0.05 * rng.standard_normal((40, d))  # small σ̃²
    seq = np.vstack([near, xs[20:40]])
    _, s2 = _posterior_direct(S1, A1, b1, lam, seq)
    fire = int(np.flatnonzero(np.cumsum(s2) > D)[0])
    assert fire >= 1
    t = 5
    for r in range(fire + 1):
        np.testing.assert_allclose(pol.V[0], s2[:r].sum(), atol=1e-10)  # running sum = recomputation
        _step(pol, t, 0, seq[r])
        if r < fire:
            assert pol.info()["n_comms"] == 1
        t += 1
    assert pol.info()["n_comms"] == 2 and pol.info()["comm_steps"][-1] == t - 1
    assert pol.info()["buffer_sizes"] == [3, fire + 1]


def test_prior_pulls_are_recorded_two_per_client_at_D1():
    """The warm-up. With k(x, x) = λ = 1 and D = 1 a client's trigger sum is 1 after its
    first pull (no exchange: the trigger is strict) and 2 after its second, so each client makes
    exactly two pulls on the prior, and ``info()["prior_steps"]`` lists them."""
    env = make_env({"name": "f1", "kind": "contextual", "K": 5, "noise_std": 0.1, "schedule": "uniform"}, 0)
    N, T = 4, 80
    pol = AsyncKernelUCB(N, T, env.dim, np.random.SeedSequence(0), CommLedger(N, T), kernel={"name": "rbf", "gamma": 1.0},
                         lam=1.0, alpha=1.0, D=1.0, q=1.0)
    seen = []

    def obs(t, agents, arms, choices, rewards, means, policy):
        seen.append(int(agents[0]))

    run_regret(pol, env, T, N, np.random.default_rng(0), np.random.default_rng(1), observers=[obs])
    info = pol.info()
    first = {c: min(s for s, cc in zip(info["comm_steps"], info["comm_clients"]) if cc == c) for c in range(N)}
    expect = [t for t, c in enumerate(seen) if t <= first[c]]
    assert info["prior_steps"] == expect and len(expect) == 2 * N


def test_rls_probabilities_use_the_fresh_server_model():
    d, lam, q, T = 3, 1.0, 0.6, 40
    pol = AsyncKernelUCB(3, T, d, np.random.SeedSequence(1), CommLedger(3, T), kernel=KSPEC, lam=lam,
                         D=2.5, q=q)
    xs = sample_ball(np.random.default_rng(12), T, d)
    t = 0
    for r in range(3):  # client 0: the first exchange samples with the prior, p = min(1, q k(x,x)/λ)
        _step(pol, t, 0, xs[r])
        t += 1
    assert pol.info()["n_comms"] == 1 and pol.rls_prob_sum == pytest.approx(3 * q)
    S1, A1, b1 = pol.dic.points.copy(), pol.A.copy(), pol.b.copy()
    for r in range(3, 6):  # client 1 (stale model: the prior) exchanges: p uses σ̃²_1 of the server
        _step(pol, t, 1, xs[r])
        t += 1
    assert pol.info()["comm_clients"] == [0, 1]
    _, s2 = _posterior_direct(S1, A1, b1, lam, xs[3:6])
    assert pol.rls_prob_sum == pytest.approx(3 * q + np.minimum(1.0, q * s2).sum(), rel=1e-12)
    assert np.minimum(1.0, q * s2).sum() < 3 * q - 1e-3  # differs from the client's own stale prior


# ------------------------------------------------------------------------------ communication
def test_ledger_totals_from_logged_dictionary_sizes():
    d = 5
    pol, led, tr, _ = _run(N=5, T=250, d=d, seed=5, q=1.0)
    info = pol.info()
    m = np.array([0] + info["dict_sizes"], dtype=float)
    mp, mk = m[:-1], m[1:]
    assert info["n_comms"] == len(mk) > 20 and np.all(np.diff(m) >= 0)
    per = d * mk + (mp**2 + mp) + 2 * (mk**2 + mk)
    assert led.total_up + led.total_down == per.sum()
    assert led.total_up == np.sum(d * (mk - mp) + mk**2 + mk)
    assert np.all(per <= 3 * (mk**2 + mk) + d * mk)  # Theorem 4.5's per-exchange count
    assert led.rounds() == info["n_comms"]
    steps = np.array(info["comm_steps"])
    curve = np.zeros(250)
    np.add.at(curve, steps, per)
    np.testing.assert_array_equal(tr.comm_up + tr.comm_down, curve)
    assert set(led.by_kind()) == set(LEGS)
    np.testing.assert_array_equal(dict_size_curve(info, 250)[steps], mk)
    # the accounting switches change the counts only, not the run
    clients = info["comm_clients"]
    m_client = []  # the dictionary size of each exchanging client's previous model
    last = {}
    for k, c in enumerate(clients):
        m_client.append(last.get(c, 0.0))
        last[c] = mk[k]
    m_client = np.array(m_client)
    for opts, expected in [
        ({"count_labels": True}, per + mk),
        ({"symmetric_packing": True}, d * mk + (mp * (mp + 1) / 2 + mp) + 2 * (mk * (mk + 1) / 2 + mk)),
        ({"cache_dictionary": True}, per - d * m_client),
    ]:
        p2, l2, t2, _ = _run(N=5, T=250, d=d, seed=5, q=1.0, **opts)
        np.testing.assert_array_equal(t2.regret, tr.regret)
        assert p2.info() == info
        assert l2.total_up + l2.total_down == expected.sum()
    assert exchange_scalars(3, 5, 2) == {"a_dictionary": 6, "a_statistics": 12, "d_dictionary": 4,
                                         "d_statistics": 30, "f_statistics": 30}


def test_only_the_active_client_communicates():
    N, T = 6, 250
    led = CommLedger(N, T)
    pol = AsyncKernelUCB(N, T, 4, np.random.SeedSequence(6), led, kernel=KSPEC, D=0.8)
    active = []
    orig = pol.select

    def select(t, agents, arms):
        active.append(agents.tolist())
        return orig(t, agents, arms)

    pol.select = select
    run_regret(pol, _env(d=4), T, N, np.random.default_rng(0), np.random.default_rng(1))
    assert all(len(a) == 1 for a in active)
    assert len(led.messages) == 5 * pol.info()["n_comms"] > 0
    for msg in led.messages:
        i = active[msg.t][0]
        assert {msg.sender, msg.receiver} == {i, SERVER}
    assert [active[t][0] for t in pol.info()["comm_steps"]] == pol.info()["comm_clients"]


def test_max_dict_caps_the_dictionary():
    pol, led, tr, _ = _run(N=4, T=150, d=4, seed=7, q=5.0, max_dict=12)
    info = pol.info()
    assert info["dict_size"] == 12 and info["n_capped"] > 0
    assert info["n_sampled"] == 12 + info["n_capped"] + info["n_skipped"]


# ------------------------------------------------------------------------------ runs
def test_deterministic_under_a_fixed_seed():
    _, l1, t1, _ = _run(N=5, T=150, seed=8)
    p2, l2, t2, _ = _run(N=5, T=150, seed=8)
    p3, l3, t3, _ = _run(N=5, T=150, seed=9)
    np.testing.assert_array_equal(t1.regret, t2.regret)
    assert l1.messages == l2.messages and t1.info == t2.info
    assert not np.array_equal(t1.regret, t3.regret)


def test_end_to_end_on_f1_contextual():
    N, T, d = 20, 300, 20
    env = make_env({"name": "f1", "kind": "contextual", "K": 20, "schedule": "uniform"}, 0)
    assert env.dim == d and env.n_arms == 20
    led = CommLedger(N, T)
    pol = AsyncKernelUCB(N, T, d, np.random.SeedSequence(0), led, kernel=KSPEC, lam=1.0, alpha=1.0,
                         D=1.0, q=1.0)
    tr = run_regret(pol, env, T, N, np.random.default_rng(1), np.random.default_rng(2))
    info = tr.info
    assert tr.regret.shape == (T,) and np.all(np.isfinite(tr.regret)) and np.all(tr.regret >= 0)
    assert np.all(tr.n_active == 1)
    assert 0 < info["n_comms"] <= T and 0 < info["dict_size"] <= sum(info["buffer_sizes"]) <= T
    assert info["dict_sizes"] == sorted(info["dict_sizes"])
    assert led.rounds() == info["n_comms"]


# ------------------------------------------------------------------------------ theory helpers
def test_theory_helpers():
    X = sample_ball(np.random.default_rng(10), 60, 5)
    K = KER(X)
    lam = 0.7
    np.testing.assert_allclose(effective_dimension(K, lam), np.trace(K @ np.linalg.inv(K + lam * np.eye(60))),
                               rtol=1e-10)
    assert lemma41_q(10_000, 0.1, 0.5) == pytest.approx(703, abs=1)
    g = information_gain(K, 1.0)
    assert dictionary_size_bound(2.0, K, 1.0, D=1.0, eps=0.5) == pytest.approx(12 * 3 * 4 * 2 * g)
    assert dictionary_size_bound(2.0, K, 1.0, D=0.5, gamma="lemma44") == pytest.approx(
        12 * 3 * 2.5 * 2 * information_gain(K, 1.5))
    # C1 (i) on a run: |S_B| is below the bound on the uploaded data (expect far below)
    pol, _, _, rec = _run(N=4, T=150, d=4, seed=11, q=1.0)
    info = pol.info()
    last = dict(zip(info["comm_clients"], info["comm_steps"]))
    Xu = np.array([x for t, i, x, _ in rec if i in last and t <= last[i]])
    assert pol.dic.m <= dictionary_size_bound(1.0, KER(Xu), 1.0, D=1.0)


# ------------------------------------------------------------------------------ numerics
def test_rank_k_cholesky_update():
    from bandits.algorithms.async_kernel_ucb import chol_update_rank_k
    rng = np.random.default_rng(13)
    for m, n, block in [(1, 1, 32), (7, 3, 2), (70, 5, 32), (90, 40, 16), (50, 0, 8)]:
        G = rng.standard_normal((m, m + 2))
        A = G @ G.T / m + 0.1 * np.eye(m)
        W = rng.standard_normal((m, n))
        C = chol_update_rank_k(np.linalg.cholesky(A), W, block=block)
        np.testing.assert_allclose(C, np.linalg.cholesky(A + W @ W.T), atol=1e-12)


def test_updated_factor_equals_refactorisation_in_a_run(monkeypatch):
    pr, lr, tr, _ = _run(N=3, T=200, d=6, seed=14, q=3.0)
    monkeypatch.setattr(AsyncKernelUCB, "chol_update_min_m", 0)
    pu, lu, tu, _ = _run(N=3, T=200, d=6, seed=14, q=3.0)
    assert pu.dic.m > 40
    np.testing.assert_array_equal(tr.regret, tu.regret)
    assert lr.messages == lu.messages
    m = pu.A.shape[0]
    C = pu.server_model.C
    np.testing.assert_allclose(C @ C.T, pu.A + pu.lam * np.eye(m), atol=1e-10)
    np.testing.assert_allclose(C, pr.server_model.C, atol=1e-10)


def test_lazy_server_aggregate_is_the_eager_one_to_the_bit():
    """The server's Ã_k is formed only when read: a run that reads it after every
    exchange (the eager merge of Eq. 5) and one that never does make the same choices, send the same
    scalars, and end with the same Ã and b, bit for bit; the factor's rank-k path is taken (small
    chol_update_min_m) and so is its refactorisation fallback (a rank above chol_update_max_rank)."""
    from bandits.algorithms.async_kernel_ucb import AsyncKernelUCB

    class Eager(AsyncKernelUCB):
        def _exchange(self, t, i):
            super()._exchange(t, i)
            self.A  # noqa: B018

    env = make_env({"name": "f1", "kind": "contextual", "K": 10, "noise_std": 0.1, "schedule": "uniform"}, 0)
    out = []
    for cls in (Eager, AsyncKernelUCB):
        for D in (1.0, 6.0):
            led = CommLedger(8, 300)
            pol = cls(8, 300, env.dim, np.random.SeedSequence(5), led, kernel={"name": "rbf", "gamma": 1.0},
                      lam=1.0, alpha=1.0, D=D, q=1.0)
            pol.chol_update_min_m, pol.chol_update_max_rank = 16, 3
            tr = run_regret(pol, env, 300, 8, np.random.default_rng(1), np.random.default_rng(2))
            out.append((tr.regret, tr.comm_up + tr.comm_down, pol.A.copy(), pol.b.copy(), pol.info()))
    for e, lz in zip(out[:2], out[2:]):
        assert all(np.array_equal(a, b) for a, b in zip(e[:4], lz[:4])) and e[4] == lz[4]
    # both factor paths were taken: rank-k updates above m = 16, and refactorisations (buffers > 3) there
    assert any(max(n for n, m in zip(r[4]["buffer_sizes"], r[4]["dict_sizes"]) if m > 16) > 3 for r in out[2:])


def test_stale_model_posterior_reads_the_factor_in_place_with_the_same_numbers():
    """Every client's (stale) model evaluated through the in-place solves equals, bit for bit, the
    same Eq. 2 evaluated with copies of the factors and solve_lower (the computation the policy made
    before the buffers): the leading block of the dictionary's factor when M² > 1.5 m², else the
    whole factor and its first m coordinates; then C⁻¹zᵀ."""
    from bandits.linalg import solve_lower

    made = []
    orig = AsyncKernelUCB._make_model

    def make_model(self, *args, **kwargs):  # every model of the run (the dictionary only grows)
        made.append(orig(self, *args, **kwargs))
        return made[-1]

    AsyncKernelUCB._make_model = make_model
    try:
        pol, _, _, _ = _run(N=8, T=300, d=5, seed=3, D=0.5)
    finally:
        AsyncKernelUCB._make_model = orig
    X = sample_ball(np.random.default_rng(9), 12, 5)
    M = pol.dic.m
    sizes = {model.m for model in made}
    assert any(M * M > 1.5 * m * m for m in sizes if m) and any(M * M <= 1.5 * m * m for m in sizes)
    for model in made[::3]:
        m = model.m
        if m == 0:
            continue
        L = np.ascontiguousarray(pol.dic.L)
        P = pol.dic.points
        if M * M <= 1.5 * m * m:
            Z = solve_lower(L, KER(P, X))[:m].T
        else:
            Z = solve_lower(np.ascontiguousarray(L[:m, :m]), KER(P[:m], X)).T
        V = solve_lower(np.ascontiguousarray(model.C), Z.T)
        s2_ref = np.maximum((KER.diag(X) - np.einsum("ij,ij->i", Z, Z)) / pol.lam, 0.0) + np.einsum("ij,ij->j", V, V)
        mu, s2 = pol.posterior(model, X)
        np.testing.assert_array_equal(mu, Z @ model.theta)
        np.testing.assert_array_equal(s2, s2_ref)


def test_factor_buffers_are_reused_with_the_same_numbers_and_never_while_held():
    """The models' factors lie on pooled buffers, reused once nothing views them (speed only): a run with the
    pool and one whose pool keeps no freed buffer (every factor fresh) make the same choices, send the same
    scalars and end with the same factors, bit for bit, and the pool did reuse buffers; a factor held outside
    the policy, or a view of it (here two of every 20 exchanges', held to the end), is never overwritten."""
    from bandits.algorithms.async_kernel_ucb import AsyncKernelUCB

    held = []

    class Holding(AsyncKernelUCB):
        def _exchange(self, t, i):
            super()._exchange(t, i)
            C = self.models[i].C
            if self.k % 20 == 0:
                held.append((C, C.copy()))  # the factor itself
            elif self.k % 20 == 10:
                held.append((C.T[1:], C.T[1:].copy()))  # a view of it: the model and C may go, the buffer not

    env = make_env({"name": "f1", "kind": "contextual", "K": 10, "noise_std": 0.1, "schedule": "uniform"}, 0)
    out = []
    for cls, spare in ((Holding, 2), (AsyncKernelUCB, 0)):
        pol = cls(8, 600, env.dim, np.random.SeedSequence(5), CommLedger(8, 600), kernel={"name": "rbf", "gamma": 1.0},
                  lam=1.0, alpha=1.0, D=1.0, q=1.0)
        pol.chol_update_min_m = 16
        pol._factors.spare = spare
        tr = run_regret(pol, env, 600, 8, np.random.default_rng(1), np.random.default_rng(2))
        out.append((tr.regret, tr.comm_up + tr.comm_down, pol.server_model.C.copy(), pol._factors))
    (r1, c1, C1, pool), (r0, c0, C0, pool0) = out
    assert np.array_equal(r1, r0) and np.array_equal(c1, c0) and np.array_equal(C1, C0)
    assert pool.reused > 0 and pool0.reused == 0 and len(held) > 3
    assert all(np.array_equal(C, kept) for C, kept in held)
