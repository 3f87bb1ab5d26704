"""N-KernelUCB, DisKernelUCB and ApproxDisKernelUCB against direct computations."""
import numpy as np
import pytest

from bandits.algorithms import ApproxDisKernelUCB, DisKernelUCB, NKernelUCB
from bandits.comm import SERVER, CommLedger
from bandits.envs import FiniteDomainEnv
from bandits.kernels import RBF
from bandits.sim import run_regret

KERNEL = {"name": "rbf", "lengthscale": 0.4}
LAM = 0.2


def _env(M=40, d=2, seed=0):
    X = np.random.default_rng(seed).random((M, d))
    return FiniteDomainEnv(X=X, f=np.sin(3 * X[:, 0]) + X[:, 1], noise_std=0.1)


def _gp(X, y, Xq, lam=LAM):
    k = RBF(0.4)
    A = k(X) + lam * np.eye(len(X))
    Kq = k(X, Xq)
    return Kq.T @ np.linalg.solve(A, y), 1.0 - np.einsum("ij,ij->j", Kq, np.linalg.solve(A, Kq))


class Recorder:
    """Wraps a policy's update to record (agent, candidate, reward)."""

    def __init__(self, policy):
        self.p, self.log = policy, []
        orig = policy.update

        def update(t, agents, arms, choices, rewards):
            for k, n in enumerate(agents):
                self.log.append((t, int(n), int(arms.ids[choices[k]]), float(rewards[k])))
            orig(t, agents, arms, choices, rewards)
        policy.update = update


def test_n_kernel_ucb_is_independent_gp_ucb_without_communication():
    env = _env()
    N, T = 3, 12
    led = CommLedger(N, T)
    pol = NKernelUCB(N, T, 2, np.random.SeedSequence(0), led, kernel=KERNEL, lam=LAM, beta=1.0)
    rec = Recorder(pol)
    tr = run_regret(pol, env, T, N, np.random.default_rng(0), np.random.default_rng(1))
    assert led.messages == [] and tr.comm_curve()[-1] == 0
    for n in range(N):
        obs = [(i, y) for _, a, i, y in rec.log if a == n]
        ids = np.array([i for i, _ in obs])
        mu, var = _gp(env.X[ids], np.array([y for _, y in obs]), env.X)
        np.testing.assert_allclose(pol.agents[n].post.mean, mu, atol=1e-9)
        np.testing.assert_allclose(pol.agents[n].post.var, var, atol=1e-9)


def test_dis_kernel_ucb_sync_trigger_and_counts():
    env = _env()
    N, T, D, d = 3, 15, 0.5, 2
    led = CommLedger(N, T)
    pol = DisKernelUCB(N, T, d, np.random.SeedSequence(1), led, kernel=KERNEL, lam=LAM, beta=1.0, D=D)
    rec = Recorder(pol)
    run_regret(pol, env, T, N, np.random.default_rng(0), np.random.default_rng(1))
    assert pol.n_syncs >= 2
    k = RBF(0.4)

    def logdet(ids):
        if not ids:
            return 0.0
        K = k(env.X[ids])
        return np.linalg.slogdet(np.eye(len(ids)) + K / LAM)[1]

    # replay the protocol from the recorded observations and check when it must sync
    glob, new, t_last, syncs = [], {n: [] for n in range(N)}, -1, []
    for t in range(T):
        for _, n, i, _ in [r for r in rec.log if r[0] == t]:
            new[n].append(i)
        ld_g = logdet(glob)
        if any((t - t_last) * (logdet(glob + new[n]) - ld_g) > D for n in range(N)):
            syncs.append(t)
            for n in range(N):
                glob += new[n]
            new = {n: [] for n in range(N)}
            t_last = t
    assert sorted({m.t for m in led.messages}) == syncs
    # every agent uploads its new points (d + 1 scalars each) and downloads the others'
    for t in syncs:
        up = {m.sender: m.scalars for m in led.messages if m.t == t and m.direction == "up"}
        down = {m.receiver: m.scalars for m in led.messages if m.t == t and m.direction == "down"}
        total = sum(up.values())
        assert all(s % (d + 1) == 0 for s in up.values())
        assert all(down[n] == total - up.get(n, 0) for n in down)
    # right after the last sync all agents share the GP posterior on all synchronised data
    last = syncs[-1]
    data = [(i, y) for t, _, i, y in rec.log if t <= last]
    mu, var = _gp(env.X[[i for i, _ in data]], np.array([y for _, y in data]), env.X)
    np.testing.assert_allclose(pol.glob.mean, mu, atol=1e-8)
    np.testing.assert_allclose(pol.glob.var, var, atol=1e-8)


def test_approx_dis_kernel_ucb_with_full_dictionary_is_exact_after_sync():
    # qbar huge: every point enters the dictionary, so the synchronised Nyström model is the
    # exact kernel ridge regression on all data (μ̃ = μ, λσ̃² = σ²)
    env = _env(M=30)
    N, T = 2, 6
    led = CommLedger(N, T)
    pol = ApproxDisKernelUCB(N, T, 2, np.random.SeedSequence(2), led, kernel=KERNEL, lam=LAM,
                             beta=1.0, D=4.0, qbar=1e9)
    rec = Recorder(pol)
    synced = {}
    orig = pol._sync

    def sync(t):
        orig(t)
        synced[t] = (pol.mu[0].copy(), pol.s2_last.copy())
    pol._sync = sync
    run_regret(pol, env, T, N, np.random.default_rng(0), np.random.default_rng(1))
    assert synced, "no synchronisation happened"
    t, (mu_s, s2_s) = sorted(synced.items())[-1]
    data = [(i, y) for tt, _, i, y in rec.log if tt <= t]
    mu, var = _gp(env.X[[i for i, _ in data]], np.array([y for _, y in data]), env.X)
    np.testing.assert_allclose(mu_s, mu, atol=1e-6)
    np.testing.assert_allclose(LAM * s2_s, var, atol=1e-6)
    # the sync sends: chosen points (d each) up, S down, embedded statistics up, A and b down
    kinds = {m.kind for m in led.messages if m.t == t}
    assert kinds == {"dictionary_points", "dictionary", "embedded_statistics", "global_statistics"}
    m = pol.m
    assert all(msg.scalars == m * m + m for msg in led.messages if msg.kind == "global_statistics" and msg.t == t)


def test_approx_trigger_is_the_variance_sum():
    env = _env(M=30)
    N, T, D = 2, 8, 3.0
    led = CommLedger(N, T)
    pol = ApproxDisKernelUCB(N, T, 2, np.random.SeedSequence(3), led, kernel=KERNEL, lam=LAM,
                             beta=1.0, D=D, qbar=2.0)
    run_regret(pol, env, T, N, np.random.default_rng(0), np.random.default_rng(1))
    # before any sync σ̃² = k(x,x)/λ = 5 per point: the first sync is the first step with 5·t > 3
    first = min(m.t for m in led.messages)
    assert first == 0


def test_contextual_arms_are_rejected_with_a_clear_message():
    from bandits.envs import ContextualEnv
    env = ContextualEnv(sampler=lambda rng, n: rng.random((n, 2)), f=lambda X: X[:, 0], n_arms=5, dim=2,
                        noise_std=0.1, schedule="sync")
    pol = DisKernelUCB(2, 3, 2, np.random.SeedSequence(0), CommLedger(2, 3), kernel=KERNEL)
    with pytest.raises(NotImplementedError, match="finite candidate set"):
        run_regret(pol, env, 3, 2, np.random.default_rng(0), np.random.default_rng(1))
    # the single-agent core handles per-agent contexts with the exact GP
    pol = NKernelUCB(2, 3, 2, np.random.SeedSequence(0), CommLedger(2, 3), kernel=KERNEL)
    tr = run_regret(pol, env, 3, 2, np.random.default_rng(0), np.random.default_rng(1))
    assert tr.regret.shape == (3,)
