"""LinUCB core, DisLinUCB, FedLinUCB and FedGLB-UCB against direct computations."""
import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

from bandits.algorithms.linear import (
    DisLinUCB,
    FedGLBUCB,
    FedLinUCB,
    LinUCBAgent,
    NLinUCB,
    agd_logistic,
    default_threshold,
    logistic_objective,
    project_ball_mnorm,
)
from bandits.comm import SERVER, CommLedger
from bandits.envs import ContextualEnv
from bandits.envs.base import Arms
from bandits.envs.functions import get_function, sample_ball
from bandits.sim import Policy, run_regret

LAM = 0.7


def _env(d=5, K=10, f=None, noise=0.1, schedule="uniform", reward="gaussian", seed=5):
    if f is None:
        th = np.random.default_rng(seed).standard_normal(d)
        th /= np.linalg.norm(th)
        f = lambda X: X @ th  # noqa: E731
    return ContextualEnv(sampler=lambda r, n: sample_ball(r, n, d), f=f, n_arms=K, dim=d,
                         noise_std=noise, schedule=schedule, reward=reward)


class Recorder:
    """Wraps a policy's update to record (t, agent, x, y) of every observation."""

    def __init__(self, policy):
        self.p, self.log = policy, []
        orig = policy.update

        def update(t, agents, arms, choices, rewards):
            for k, n in enumerate(agents):
                self.log.append((t, int(n), arms.for_agent(k)[choices[k]].copy(), float(rewards[k])))
            orig(t, agents, arms, choices, rewards)
        policy.update = update


def _run(pol, env, T, N, seed=0):
    rec = Recorder(pol)
    tr = run_regret(pol, env, T, N, np.random.default_rng(seed), np.random.default_rng(seed + 1))
    return rec, tr


def _ld(M):
    return np.linalg.slogdet(M)[1]


# ------------------------------------------------------------------------------ LinUCB core
def test_linucb_agent_equals_closed_form_ridge():
    rng = np.random.default_rng(0)
    d, n, alpha = 4, 30, 1.3
    X, y = rng.standard_normal((n, d)), rng.standard_normal(n)
    ag = LinUCBAgent(d, LAM, alpha, np.random.default_rng(1))
    for i in range(n):
        A_prev = LAM * np.eye(d) + X[:i].T @ X[:i]
        lev = ag.observe(X[i], y[i])
        assert lev == pytest.approx(X[i] @ np.linalg.solve(A_prev, X[i]), rel=1e-10)
    A = LAM * np.eye(d) + X.T @ X
    theta = np.linalg.solve(A, X.T @ y)
    np.testing.assert_allclose(ag.theta, theta, atol=1e-10)
    Xq = rng.standard_normal((7, d))
    ucb = Xq @ theta + alpha * np.sqrt(np.einsum("ij,ij->i", Xq, np.linalg.solve(A, Xq.T).T))
    np.testing.assert_allclose(ag.scores(Xq), ucb, atol=1e-10)
    assert ag.choose(Xq) == int(np.argmax(ucb))
    assert ag.logdet == pytest.approx(_ld(A) - d * np.log(LAM), rel=1e-10)
    other = LinUCBAgent(d, LAM, alpha, np.random.default_rng(2))
    other.load(X.T @ X, X.T @ y, n)
    np.testing.assert_allclose(other.scores(Xq), ucb, atol=1e-10)
    assert other.logdet == pytest.approx(ag.logdet, rel=1e-10)


def test_n_linucb_never_communicates():
    N, T = 3, 60
    led = CommLedger(N, T)
    pol = NLinUCB(N, T, 5, np.random.SeedSequence(0), led, lam=LAM)
    rec, tr = _run(pol, _env(), T, N)
    assert led.messages == [] and tr.comm_curve()[-1] == 0
    for n in range(N):
        Xn = np.array([x for _, a, x, _ in rec.log if a == n]).reshape(-1, 5)
        yn = np.array([y for _, a, _, y in rec.log if a == n])
        np.testing.assert_allclose(pol.agents[n].theta,
                                   np.linalg.solve(LAM * np.eye(5) + Xn.T @ Xn, Xn.T @ yn), atol=1e-9)


# ------------------------------------------------------------------------------ DisLinUCB
@pytest.mark.parametrize("count,D", [("client", 1.0), ("rounds", 8.0)])
def test_dislinucb_sync_statistics_and_trigger_replay(count, D):
    N, T, d = 4, 150, 5
    led = CommLedger(N, T)
    pol = DisLinUCB(N, T, d, np.random.SeedSequence(1), led, lam=LAM, alpha=1.0, D=D, trigger_count=count)
    rec, _ = _run(pol, _env(d), T, N)
    assert len(pol.sync_times) >= 3
    # replay the protocol from the recorded observations with determinants computed from scratch
    W_s, U_s = np.zeros((d, d)), np.zeros(d)
    new = {n: [] for n in range(N)}
    t_last, syncs = -1, []
    for t, n, x, y in rec.log:
        new[n].append((x, y))
        Xn = np.array([v for v, _ in new[n]])
        ratio = _ld(LAM * np.eye(d) + W_s + Xn.T @ Xn) - _ld(LAM * np.eye(d) + W_s)
        cnt = len(new[n]) if count == "client" else t - t_last
        if cnt * ratio > D:
            for m in range(N):
                for v, w in new[m]:
                    W_s += np.outer(v, v)
                    U_s += w * v
                new[m] = []
            t_last = t
            syncs.append(t)
    assert syncs == pol.sync_times
    # the global statistics are the sums over all data up to the last sync
    upto = [(x, y) for t, _, x, y in rec.log if t <= syncs[-1]]
    Xa, ya = np.array([x for x, _ in upto]), np.array([y for _, y in upto])
    np.testing.assert_allclose(pol.W_g, Xa.T @ Xa, atol=1e-10)
    np.testing.assert_allclose(pol.U_g, Xa.T @ ya, atol=1e-10)
    np.testing.assert_allclose(pol.W_g, W_s, atol=1e-10)
    # each client decides with the global statistics plus its own data since the last sync
    for n in range(N):
        loc = [(x, y) for t, a, x, y in rec.log if a == n and t > syncs[-1]]
        Xl = np.array([x for x, _ in loc]).reshape(-1, d)
        yl = np.array([y for _, y in loc])
        A = LAM * np.eye(d) + Xa.T @ Xa + Xl.T @ Xl
        np.testing.assert_allclose(pol.agents[n].theta, np.linalg.solve(A, Xa.T @ ya + Xl.T @ yl), atol=1e-8)
        assert pol.agents[n].logdet - (_ld(LAM * np.eye(d) + W_s) - d * np.log(LAM)) == \
            pytest.approx(pol.ld_new[n], abs=1e-8)
    # every sync: all N upload d²+d and receive d²+d
    assert led.total_up == led.total_down == len(syncs) * N * (d * d + d)


# ------------------------------------------------------------------------------ FedLinUCB
@pytest.mark.parametrize("use_local", [False, True])
def test_fedlinucb_only_active_client_communicates(use_local):
    N, T, d, D = 4, 200, 5, 0.5
    led = CommLedger(N, T)
    pol = FedLinUCB(N, T, d, np.random.SeedSequence(2), led, lam=LAM, D=D, use_local=use_local)
    rec, _ = _run(pol, _env(d), T, N)
    active = {t: n for t, n, _, _ in rec.log}
    assert len(pol.exchange_times) >= 5
    for m in led.messages:
        assert m.receiver != CommLedger.ALL
        assert active[m.t] in (m.sender, m.receiver) and SERVER in (m.sender, m.receiver)
    # replay: determinant-ratio trigger; the server holds the sum of the uploaded data
    W_s, U_s = np.zeros((d, d)), np.zeros(d)
    W_dl = {n: np.zeros((d, d)) for n in range(N)}
    U_dl = {n: np.zeros(d) for n in range(N)}
    buf = {n: [] for n in range(N)}
    ex = []
    for t, n, x, y in rec.log:
        buf[n].append((x, y))
        Xb = np.array([v for v, _ in buf[n]])
        A_dl = LAM * np.eye(d) + W_dl[n]
        if np.linalg.det(A_dl + Xb.T @ Xb) > (1 + D) * np.linalg.det(A_dl):
            for v, w in buf[n]:
                W_s += np.outer(v, v)
                U_s += w * v
            W_dl[n], U_dl[n], buf[n] = W_s.copy(), U_s.copy(), []
            ex.append((t, n))
    assert ex == list(zip(pol.exchange_times, pol.exchange_clients))
    np.testing.assert_allclose(pol.W_s, W_s, atol=1e-10)
    np.testing.assert_allclose(pol.U_s, U_s, atol=1e-10)
    uploaded = [(x, y) for t, n, x, y in rec.log
                if any(t2 >= t and n2 == n for t2, n2 in ex)]
    Xu = np.array([x for x, _ in uploaded])
    np.testing.assert_allclose(pol.W_s, Xu.T @ Xu, atol=1e-10)
    for n in range(N):
        Xb = np.array([v for v, _ in buf[n]]).reshape(-1, d)
        yb = np.array([w for _, w in buf[n]])
        W, U = (W_dl[n] + Xb.T @ Xb, U_dl[n] + Xb.T @ yb) if use_local else (W_dl[n], U_dl[n])
        np.testing.assert_allclose(pol.dec[n].theta, np.linalg.solve(LAM * np.eye(d) + W, U), atol=1e-8)
    assert led.total_up == led.total_down == len(ex) * (d * d + d)


# ------------------------------------------------------------------------------ FedGLB-UCB
def _mle(X, y, lam):
    res = minimize(logistic_objective, np.zeros(X.shape[1]), args=(X, y, lam), jac=True,
                   method="BFGS", options={"gtol": 1e-13, "maxiter": 10000})
    return res.x


@pytest.mark.parametrize("binary", [True, False])
def test_agd_converges_to_regularised_logistic_mle(binary):
    rng = np.random.default_rng(3)
    n, d, lam = 300, 5, 0.5
    X = sample_ball(rng, n, d)
    th = 2.0 * sample_ball(rng, 1, d)[0]
    y = (rng.random(n) < expit(X @ th)).astype(float) if binary else X @ th + 0.3 * rng.standard_normal(n)
    theta, evals, gnorm = agd_logistic(X, y, lam, max_iters=20000, tol=1e-10)
    assert gnorm <= 1e-10 and evals < 20000
    np.testing.assert_allclose(theta, _mle(X, y, lam), atol=1e-7)
    # the code's default stopping rule: f − f* ≤ 1/n² (λ/n-strong convexity)
    th2, _, g2 = agd_logistic(X, y, lam)
    assert g2 <= np.sqrt(2 * lam / n**3)
    assert logistic_objective(th2, X, y, lam)[0] - logistic_objective(theta, X, y, lam)[0] <= 1.0 / n**2


def test_project_ball_mnorm_matches_constrained_minimiser():
    rng = np.random.default_rng(4)
    d = 4
    B = rng.standard_normal((d, d))
    M = B @ B.T + 0.3 * np.eye(d)
    th = 3.0 * rng.standard_normal(d)
    v = project_ball_mnorm(th, M, 1.0)
    assert np.linalg.norm(v) == pytest.approx(1.0, rel=1e-9)
    res = minimize(lambda u: (u - th) @ M @ (u - th), np.zeros(d), method="SLSQP",
                   constraints=[{"type": "ineq", "fun": lambda u: 1.0 - u @ u}],
                   options={"ftol": 1e-14, "maxiter": 1000})
    np.testing.assert_allclose(v, res.x, atol=1e-5)
    small = 0.1 * th / np.linalg.norm(th)
    np.testing.assert_array_equal(project_ball_mnorm(small, M, 1.0), small)


def test_fedglb_local_ons_step_by_hand():
    d, lam, S = 3, 0.1, 1.0
    pol = FedGLBUCB(2, 10, d, np.random.SeedSequence(0), CommLedger(2, 10), lam=lam, D=1e9, S=S)
    c = expit(S) * (1 - expit(S))
    x, y = np.array([0.6, -0.3, 0.5]), 1.0
    pol.update(0, np.array([1]), Arms(x[None, None, :], shared=False), np.array([0]), np.array([y]))
    A = lam / c * np.eye(d) + np.outer(x, x)
    th = -((0.5 - y) / c) * np.linalg.solve(A, x)  # z = 0, μ(0) = 1/2
    expected = project_ball_mnorm(th, A, S)
    np.testing.assert_allclose(pol.theta_ons[1], expected, atol=1e-12)
    np.testing.assert_allclose(pol.agents[1].ridge.Ainv, np.linalg.inv(A), atol=1e-10)
    np.testing.assert_allclose(pol.agents[1].theta, np.zeros(d), atol=1e-12)  # b += z x with z = 0
    np.testing.assert_allclose(pol.theta_ons[0], 0.0)


@pytest.mark.parametrize("reward", ["bernoulli", "gaussian"])
def test_fedglb_sync_is_the_mle_of_the_synced_data(reward):
    N, T, d, lam = 4, 160, 4, 0.5
    th = np.array([1.5, -1.0, 0.5, 0.0])
    f = (lambda X: expit(X @ th)) if reward == "bernoulli" else (lambda X: X @ th)
    led = CommLedger(N, T)
    pol = FedGLBUCB(N, T, d, np.random.SeedSequence(5), led, lam=lam, D=2.0, agd_max_iters=50000,
                    agd_tol=1e-10)
    snaps, orig = [], pol._sync

    def sync(t):
        orig(t)
        snaps.append((t, [a.theta.copy() for a in pol.agents], pol.theta_ons.copy()))
    pol._sync = sync
    rec, _ = _run(pol, _env(d, f=f, reward=reward), T, N)
    assert len(pol.sync_times) >= 3
    ts = pol.sync_times[-1]
    Xs = np.array([x for t, _, x, _ in rec.log if t <= ts])
    ys = np.array([y for t, _, _, y in rec.log if t <= ts])
    if reward == "bernoulli":
        assert set(np.unique(ys)) <= {0.0, 1.0}
    theta = _mle(Xs, ys, lam)
    np.testing.assert_allclose(pol.theta_g, theta, atol=1e-7)
    np.testing.assert_allclose(pol.W_g, Xs.T @ Xs, atol=1e-10)
    # right after a sync every client holds A = λ/c_μ I + W_g, b = W_g θ_g and θ^ONS = θ_g
    t_snap, centres, ons = snaps[-1]
    assert t_snap == ts
    A = pol.lam_c * np.eye(d) + Xs.T @ Xs
    for n in range(N):
        np.testing.assert_allclose(centres[n], np.linalg.solve(A, Xs.T @ Xs @ theta), atol=1e-6)
        np.testing.assert_allclose(ons[n], theta, atol=1e-7)
    # replay of the trigger (client's own count × log-det ratio of A)
    Wsync, new, syncs = np.zeros((d, d)), {n: [] for n in range(N)}, []
    for t, n, x, _ in rec.log:
        new[n].append(x)
        Xn = np.array(new[n])
        A0 = pol.lam_c * np.eye(d) + Wsync
        if len(new[n]) * (_ld(A0 + Xn.T @ Xn) - _ld(A0)) > 2.0:
            Wsync = Wsync + sum(np.outer(v, v) for m in range(N) for v in new[m])
            new = {m: [] for m in range(N)}
            syncs.append(t)
    assert syncs == pol.sync_times


# ------------------------------------------------------------------------------ ledger by hand
def _fake_run(pol, N, T, d, seed=0):
    """Drive ``pol`` with round-robin clients and random arms (no environment)."""
    rng = np.random.default_rng(seed)
    for t in range(T):
        agents = np.array([t % N])
        arms = Arms(sample_ball(rng, 3, d)[None], shared=False)
        ch = pol.select(t, agents, arms)
        pol.update(t, agents, arms, ch, rng.random(1))


def test_ledger_totals_by_hand():
    N, T, d = 3, 4, 2  # every step triggers (tiny D): 4 syncs / exchanges
    led = CommLedger(N, T)
    _fake_run(DisLinUCB(N, T, d, np.random.SeedSequence(0), led, D=1e-12), N, T, d)
    assert (led.total_up, led.total_down) == (4 * 3 * 6, 4 * 3 * 6)  # d² + d = 6 per client
    led = CommLedger(N, T)
    _fake_run(DisLinUCB(N, T, d, np.random.SeedSequence(0), led, D=1e-12, count_n=True,
                        sync_seen_only=True), N, T, d)
    assert led.total_up == led.total_down == (1 + 2 + 3 + 3) * 7  # clients seen: 1, 2, 3, 3
    led = CommLedger(N, T)
    _fake_run(FedLinUCB(N, T, d, np.random.SeedSequence(0), led, D=1e-12), N, T, d)
    assert (led.total_up, led.total_down) == (4 * 6, 4 * 6)
    assert [m.sender for m in led.messages if m.direction == "up"] == [0, 1, 2, 0]
    led = CommLedger(N, T)
    pol = FedGLBUCB(N, T, d, np.random.SeedSequence(0), led, D=1e-12, agd_max_iters=1)
    _fake_run(pol, N, T, d)
    assert pol.agd_evals == [1, 1, 1, 1]
    # up: Gram buffer d² + one gradient d; down: one iterate d + global model d² + d
    assert (led.total_up, led.total_down) == (4 * 3 * (4 + 2), 4 * 3 * (2 + 6))
    assert led.by_kind() == {"gram_buffer": 48.0, "agd_gradient": 24.0, "agd_iterate": 24.0,
                             "global_model": 72.0}


def test_default_thresholds():
    assert default_threshold("banditlib", 10000, 100, 20) == pytest.approx(10000 / (100 * 20 * np.log(1e4)))
    assert default_threshold("he2022", 10000, 100, 20) == pytest.approx(1e-4)
    assert default_threshold("wang2020", 100, 10, 2) == pytest.approx(100 * np.log(1000) / 20)
    with pytest.raises(ValueError):
        default_threshold("nope", 1, 1, 1)
    with pytest.raises(ValueError):
        DisLinUCB(2, 10, 2, np.random.SeedSequence(0), CommLedger(2, 10), trigger_count="bad")


# ------------------------------------------------------------------------------ end to end
ALL = [(NLinUCB, {}), (DisLinUCB, {}), (DisLinUCB, {"trigger_count": "rounds"}), (FedLinUCB, {}),
       (FedGLBUCB, {}), (FedGLBUCB, {"projection": "none", "agd_init": "warm"})]


@pytest.mark.parametrize("cls,kw", ALL)
def test_end_to_end_on_f1(cls, kw):
    N, T, d, K = 5, 200, 20, 20
    f = get_function("f1").make(np.random.default_rng(0))
    env = ContextualEnv(sampler=lambda r, n: sample_ball(r, n, d), f=f, n_arms=K, dim=d, noise_std=0.1,
                        schedule="uniform")
    led = CommLedger(N, T)
    pol = cls(N, T, d, np.random.SeedSequence(7), led, **kw)
    rec, tr = _run(pol, env, T, N)
    assert tr.regret.shape == (T,) and np.all(tr.regret >= -1e-12) and np.all(np.isfinite(tr.regret))
    assert np.all(tr.n_active == 1)
    assert tr.comm_up.sum() == led.total_up and tr.comm_down.sum() == led.total_down
    if cls is not NLinUCB:
        assert led.total_up > 0
    if cls is FedLinUCB:
        active = {t: n for t, n, _, _ in rec.log}
        assert all(active[m.t] in (m.sender, m.receiver) for m in led.messages)


class _Uniform(Policy):
    def __init__(self, *a):
        super().__init__(*a)
        self.rng = np.random.default_rng(0)

    def select(self, t, agents, arms):
        return self.rng.integers(arms.X.shape[-2], size=len(agents))

    def update(self, *a):
        pass


@pytest.mark.parametrize("cls", [DisLinUCB, FedLinUCB, FedGLBUCB])
def test_low_regret_on_a_linear_reward(cls):
    N, T, d = 5, 900, 5
    env = _env(d, K=20)
    base = run_regret(_Uniform(N, T, d, None, CommLedger(N, T)), env, T, N,
                      np.random.default_rng(0), np.random.default_rng(1)).regret
    pol = cls(N, T, d, np.random.SeedSequence(8), CommLedger(N, T))
    r = run_regret(pol, env, T, N, np.random.default_rng(0), np.random.default_rng(1)).regret
    assert r[-300:].sum() < 0.05 * base[-300:].sum()


def test_fedglb_low_regret_on_logistic_bernoulli_rewards():
    N, T, d = 5, 900, 5
    th = np.random.default_rng(5).standard_normal(d)
    th *= 3 / np.linalg.norm(th)
    env = _env(d, K=20, f=lambda X: expit(X @ th), reward="bernoulli")
    base = run_regret(_Uniform(N, T, d, None, CommLedger(N, T)), env, T, N,
                      np.random.default_rng(0), np.random.default_rng(1)).regret
    r = run_regret(FedGLBUCB(N, T, d, np.random.SeedSequence(8), CommLedger(N, T)), env, T, N,
                   np.random.default_rng(0), np.random.default_rng(1)).regret
    assert r[-300:].sum() < 0.05 * base[-300:].sum()
