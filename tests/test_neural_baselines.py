"""FN-UCB's baselines (bandits/algorithms/neural_baselines.py): Neural UCB/TS, Linear UCB/TS, Kernel UCB/TS."""
from __future__ import annotations

import numpy as np
import pytest

from bandits.algorithms import ALGORITHMS
from bandits.algorithms.neural_baselines import (KernelTS, KernelUCBFN, LinearTS, LinearUCB, NeuralTS, NeuralUCB,
                                                 NeuralUCBDiag, width_coefficient)
from bandits.comm import CommLedger
from bandits.envs import make_env
from bandits.envs.base import Arms
from bandits.sim import run_regret

COSINE = {"kind": "fn_synthetic", "function": "cosine", "a": "official", "sampler": "cube_normalized"}


def _make(cls, N=1, T=50, d=10, seed=0, **kw):
    return cls(N, T, d, np.random.SeedSequence(seed), CommLedger(N, T), **kw)


def _run(cls, N=1, T=40, seed=0, env=COSINE, **kw):
    e = make_env(env)
    pol = _make(cls, N, T, e.dim, seed, **kw)
    tr = run_regret(pol, e, T, N, np.random.default_rng(11), np.random.default_rng(12))
    return pol, tr


def test_width_coefficient_forms():
    assert width_coefficient(0.1, 0.1, "paper") == pytest.approx(0.1 * np.sqrt(0.1))
    assert width_coefficient(1.0, 0.01, "official") == pytest.approx(0.1)
    # the paper's ν = 0.1 equals the code's ν = 0.01 (spec §2.9), for λ = 0.1 and λ = 10
    for lam in (0.1, 10.0):
        assert width_coefficient(lam, 0.1, "paper") == pytest.approx(width_coefficient(lam, 0.01, "official"))
    with pytest.raises(ValueError, match="width_form"):
        width_coefficient(1.0, 0.1, "both")
    with pytest.raises(ValueError, match="lam"):
        width_coefficient(0.0, 0.1)
    with pytest.raises(ValueError, match="nu"):
        width_coefficient(1.0, -0.1)


def test_registered():
    for name, cls in [("NeuralUCB", NeuralUCB), ("NeuralTS", NeuralTS), ("NeuralUCB [diag]", NeuralUCBDiag),
                      ("LinearUCB", LinearUCB), ("LinearTS", LinearTS), ("KernelUCB (FN)", KernelUCBFN),
                      ("KernelTS", KernelTS)]:
        assert ALGORITHMS[name] is cls
    assert ALGORITHMS["NeuralTS [diag]"].name == "NeuralTS [diag]"


@pytest.mark.parametrize("cls, kw, word", [
    (LinearUCB, {"style": "greedy"}, "style"),
    (LinearUCB, {"stop_update_after": -1}, "stop_update_after"),
    (KernelTS, {"max_history": -5}, "max_history"),
    (KernelUCBFN, {"tie_break": "last"}, "tie_break"),
    (NeuralUCB, {"feature_scale": "m"}, "feature_scale"),
    (NeuralUCB, {"init": "xavier"}, "init"),
])
def test_bad_parameters_name_themselves(cls, kw, word):
    with pytest.raises(ValueError, match=word):
        _make(cls, **kw)


# ------------------------------------------------------------------------------------- linear
def test_linear_ucb_closed_form():
    pol = _make(LinearUCB, d=2, lam=1.0, nu=0.5)
    arms = Arms(np.array([[[1.0, 0.0], [0.0, 1.0]]]), shared=False)
    for y in (1.0, 0.5):
        pol.select(0, np.array([0]), arms)
        pol.update(0, np.array([0]), arms, np.array([0]), np.array([y]))
    # A = diag(3, 1), b = (1.5, 0): θ̂ = (0.5, 0); c = ν√λ = 0.5
    np.testing.assert_allclose(pol.agents[0].theta, [0.5, 0.0])
    np.testing.assert_allclose(pol.scores(0, arms.X[0]), [0.5 + 0.5 / np.sqrt(3.0), 0.5])
    pol2 = _make(LinearUCB, d=2, lam=1.0, nu=0.5, official_variance_width=True)
    for y in (1.0, 0.5):
        pol2.update(0, np.array([0]), arms, np.array([0]), np.array([y]))
    np.testing.assert_allclose(pol2.scores(0, arms.X[0]), [0.5 + 0.5 / 3.0, 0.5])


def test_linear_incremental_equals_direct_and_ts_draw():
    rng = np.random.default_rng(0)
    d, lam = 4, 1.0
    pol = _make(LinearTS, d=d, T=200, lam=lam, nu=0.1)
    X = rng.normal(size=(60, 1, 3, d))
    ys = rng.normal(size=60)
    for t in range(60):
        arms = Arms(X[t], shared=False)
        pol.update(t, np.array([0]), arms, np.array([1]), np.array([ys[t]]))
    Xs = X[:, 0, 1]
    A = lam * np.eye(d) + Xs.T @ Xs
    theta = np.linalg.solve(A, Xs.T @ ys)
    np.testing.assert_allclose(pol.agents[0].ridge.Ainv, np.linalg.inv(A), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(pol.agents[0].theta, theta, rtol=1e-9, atol=1e-12)
    L = pol.chol[0]
    np.testing.assert_allclose(L @ L.T, A, rtol=1e-10)
    # one TS draw: θ̃ = θ̂ + c L⁻ᵀ z with z from the agent's generator
    state = pol.agents[0].rng.bit_generator.state
    Q = rng.normal(size=(5, d))
    s = pol.scores(0, Q)
    z = np.random.default_rng()
    z.bit_generator.state = state
    th = theta + pol.c * np.linalg.solve(L.T, z.standard_normal(d))
    np.testing.assert_allclose(s, Q @ th, rtol=1e-9)


def test_linear_ts_covariance():
    pol = _make(LinearTS, d=2, lam=1.0, nu=1.0)
    arms = Arms(np.array([[[2.0, 0.0], [0.0, 1.0]]]), shared=False)
    pol.update(0, np.array([0]), arms, np.array([0]), np.array([1.0]))  # A = diag(5, 1)
    E = np.eye(2)
    draws = np.array([pol.scores(0, E) for _ in range(4000)])
    np.testing.assert_allclose(draws.mean(0), [0.4, 0.0], atol=0.05)
    np.testing.assert_allclose(np.cov(draws.T), np.diag([0.2, 1.0]), atol=0.07)


def test_linear_stops_updating():
    pol, _ = _run(LinearUCB, T=30, stop_update_after=10)
    assert pol.agents[0].ridge.n == 10
    pol, _ = _run(LinearUCB, T=30, stop_update_after=None)
    assert pol.agents[0].ridge.n == 30


# ------------------------------------------------------------------------------------- kernel
def test_kernel_ucb_equals_direct_gp_with_laplacian():
    rng = np.random.default_rng(1)
    pol = _make(KernelUCBFN, d=3, T=100, lam=1.0, nu=0.1)
    X = rng.normal(size=(25, 1, 4, 3))
    ys = rng.normal(size=25)
    for t in range(25):
        arms = Arms(X[t], shared=False)
        pol.select(t, np.array([0]), arms)
        pol.update(t, np.array([0]), arms, np.array([2]), np.array([ys[t]]))
    Xs = X[:, 0, 2]
    k = lambda A, B: np.exp(-np.linalg.norm(A[:, None] - B[None], axis=-1))  # noqa: E731
    Q = rng.normal(size=(6, 3))
    Kinv = np.linalg.inv(k(Xs, Xs) + np.eye(25))
    mu = k(Q, Xs) @ Kinv @ ys
    var = 1.0 - np.einsum("ij,jk,ik->i", k(Q, Xs), Kinv, k(Q, Xs))
    np.testing.assert_allclose(pol.scores(0, Q), mu + 0.1 * np.sqrt(var), rtol=1e-8, atol=1e-10)


def test_kernel_history_cap_and_ts_draw():
    pol, _ = _run(KernelTS, T=30, max_history=12)
    assert pol.n_obs.tolist() == [12] and pol.agents[0].gp.n == 12
    ag = pol.agents[0]
    Q = np.random.default_rng(2).normal(size=(5, 10))
    state = ag.rng.bit_generator.state
    s = pol.scores(0, Q)
    mu, var = ag.gp.predict(Q)
    z = np.random.default_rng()
    z.bit_generator.state = state
    np.testing.assert_allclose(s, mu + pol.c * np.sqrt(var) * z.standard_normal(5))


# ------------------------------------------------------------------------------------- neural
def test_neural_ucb_incremental_inverse_and_scores_equal_direct():
    pol = _make(NeuralUCB, d=10, T=60, lam=0.1, nu=0.1, stop_train_after=5)
    env = make_env(COSINE)
    rng_e, rng_n = np.random.default_rng(0), np.random.default_rng(1)
    gs = []
    for t in range(25):
        agents, arms, means = env.round(t, 1, rng_e)
        ch = pol.select(t, agents, arms)
        gs.append(pol._g[0].copy())
        pol.update(t, agents, arms, ch, env.rewards(means[0, ch], rng_n))
    G = np.array(gs)
    U = 0.1 * np.eye(pol.p0) + G.T @ G
    np.testing.assert_allclose(pol.Uinv[0], np.linalg.inv(U), rtol=1e-6, atol=1e-8)
    assert pol.n_train_calls == 5  # training stops at t = 5, U keeps updating
    # the selected features are the gradients at the current parameters; scores = f + c‖g‖_{U⁻¹}
    _, arms, _ = env.round(25, 1, rng_e)
    f, var, Gq = pol._predict(np.array([0]), arms.X)
    import torch

    th = pol.theta[0].detach().clone().requires_grad_(True)
    for k in range(4):
        out = pol.mlp.forward(th, torch.as_tensor(arms.X[0, k:k + 1]))[0]
        (g,) = torch.autograd.grad(out, th)
        np.testing.assert_allclose(Gq[0, k], g.numpy(), rtol=1e-10, atol=1e-12)
        assert f[0, k] == pytest.approx(out.item())
        assert var[0, k] == pytest.approx(g.numpy() @ np.linalg.solve(U, g.numpy()), rel=1e-6)


def test_neural_diag_accumulates_squares():
    pol = _make(NeuralUCBDiag, d=10, T=20, lam=0.1, stop_train_after=3)
    env = make_env(COSINE)
    rng = np.random.default_rng(0)
    gs = []
    for t in range(20):
        agents, arms, means = env.round(t, 1, rng)
        ch = pol.select(t, agents, arms)
        gs.append(pol._g[0].copy())
        pol.update(t, agents, arms, ch, means[0, ch])
    G = np.array(gs)
    assert pol.diag and not hasattr(pol, "Uinv")
    np.testing.assert_allclose(pol.U_diag[0], 0.1 + (G * G).sum(0))
    _, arms, _ = env.round(20, 1, rng)
    _, var, Gq = pol._predict(np.array([0]), arms.X)
    np.testing.assert_allclose(var[0], (Gq[0] ** 2 / pol.U_diag[0]).sum(1))


def test_neural_training_matches_train_full_batch():
    from bandits.neural import train_full_batch

    pol = _make(NeuralUCB, d=10, T=10, lam=0.1, stop_train_after=100)
    env = make_env(COSINE)
    theta = pol.theta0[0].clone()
    rng_e, rng_n = np.random.default_rng(3), np.random.default_rng(4)
    xs, ys = [], []
    for t in range(4):
        agents, arms, means = env.round(t, 1, rng_e)
        ch = pol.select(t, agents, arms)
        y = env.rewards(means[0, ch], rng_n)
        pol.update(t, agents, arms, ch, y)
        xs.append(arms.X[0, ch[0]])
        ys.append(y[0])
        train_full_batch(pol.mlp, theta, np.array(xs), np.array(ys), pol.train_cfg)
    np.testing.assert_allclose(pol.theta[0].numpy(), theta.numpy(), rtol=1e-12, atol=1e-12)


def test_batched_agents_equal_independent_agents():
    """Agent 0 of a 2-agent policy sees what a 1-agent policy with the same seed sees."""
    e = make_env(COSINE)
    T = 12
    two = _make(NeuralTS, N=2, T=T, seed=5)
    one = _make(NeuralTS, N=1, T=T, seed=5)
    rng = np.random.default_rng(0)
    for t in range(T):
        _, arms, means = e.round(t, 2, rng)
        c2 = two.select(t, np.arange(2), arms)
        c1 = one.select(t, np.arange(1), Arms(arms.X[:1], shared=False))
        assert c2[0] == c1[0]
        y = means[np.arange(2), c2]
        two.update(t, np.arange(2), arms, c2, y)
        one.update(t, np.arange(1), Arms(arms.X[:1], shared=False), c1, y[:1])
    np.testing.assert_allclose(two.theta[0].numpy(), one.theta[0].numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(two.Uinv[0], one.Uinv[0], rtol=1e-9, atol=1e-12)


def test_same_seed_same_numbers_and_no_communication():
    for cls in (NeuralUCB, NeuralTS, LinearTS, KernelTS):
        p1, t1 = _run(cls, N=2, T=20, seed=3)
        _, t2 = _run(cls, N=2, T=20, seed=3)
        np.testing.assert_array_equal(t1.regret, t2.regret)
        assert t1.comm_up.sum() == 0 and t1.comm_down.sum() == 0 and p1.ledger.messages == []


# Seeded golden values: cumulative regret of a short run (T = 40, cosine, official a and sampler).
GOLDEN = {
    "LinearUCB": 8.300953017248471,
    "LinearTS": 9.508362201078228,
    "KernelUCB (FN)": 12.352468060742897,
    "KernelTS": 13.661907856895779,
    "NeuralUCB": 15.474969179249179,
    "NeuralTS": 15.070687649595053,
}


@pytest.mark.parametrize("name", list(GOLDEN))
def test_golden_values(name):
    _, tr = _run(ALGORITHMS[name], N=1, T=40, seed=0)
    got = float(tr.regret.sum())
    assert got == pytest.approx(GOLDEN[name], rel=1e-9)


@pytest.mark.parametrize("cls", [NeuralUCB, NeuralUCBDiag])
def test_neural_numpy_scoring_equals_torch_func_route(cls):
    """The CPU numpy closed form (grad_method="auto") and torch.func (grad_method="func") give the
    same choices, networks and inverses."""
    pa, ta = _run(cls, N=2, T=15, seed=4, stop_train_after=8)
    pb, tb = _run(cls, N=2, T=15, seed=4, stop_train_after=8, grad_method="func")
    np.testing.assert_array_equal(ta.regret, tb.regret)
    np.testing.assert_allclose(pa.theta.numpy(), pb.theta.numpy(), rtol=1e-10, atol=1e-12)
    if not pa.diag:
        np.testing.assert_allclose(pa.Uinv, pb.Uinv, rtol=1e-8, atol=1e-10)


def test_neural_float32_close_to_float64():
    import torch

    p64 = _make(NeuralTS, N=1, T=20, seed=6)
    p32 = _make(NeuralTS, N=1, T=20, seed=6, nn_dtype="float32")
    env = make_env(COSINE)
    rng = np.random.default_rng(0)
    for t in range(20):
        agents, arms, means = env.round(t, 1, rng)
        ch = p64.select(t, agents, arms)
        p32.select(t, agents, arms)
        p32._g[0] = p32._predict(agents, arms.X)[2][0, ch[0]]  # its gradient at the float64 run's choice
        p64.update(t, agents, arms, ch, means[0, ch])
        p32.update(t, agents, arms, ch, means[0, ch])
    assert p32.theta.dtype == torch.float32
    np.testing.assert_allclose(p32.theta.double().numpy(), p64.theta.numpy(), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(p32.Uinv, p64.Uinv, rtol=1e-3, atol=1e-4)
    with pytest.raises(ValueError, match="nn_dtype"):
        _make(NeuralTS, nn_dtype="float16")


def test_neural_diverged_network_fails_with_a_clear_message():
    pol = _make(NeuralUCB, T=5)
    pol.theta[:] = float("nan")
    env = make_env(COSINE)
    agents, arms, _ = env.round(0, 1, np.random.default_rng(0))
    with pytest.raises(FloatingPointError, match="NeuralUCB.*diverged.*lower lr"):
        pol.select(0, agents, arms)


@pytest.mark.parametrize("cls", [NeuralUCB, NeuralTS])
def test_block_contexts_sparse_products_equal_dense(cls, monkeypatch):
    """On block contexts (a classification bandit's: the row in its arm's block) the variances φᵀU⁻¹φ and the
    Sherman–Morrison updates on the features' support equal the dense ones to round-off: the same choices."""
    import bandits.neural as nn
    from bandits.envs.fn_ucb import fn_classification_env

    rng = np.random.default_rng(3)
    X, y = rng.standard_normal((200, 2)), rng.integers(0, 8, 200)
    out = {}
    for mode in ("sparse", "dense"):
        if mode == "dense":
            monkeypatch.setattr(nn, "feature_blocks", lambda mlp, X: None)
        env = fn_classification_env("tiny", X=X, y=y)
        pol = _make(cls, 2, 30, env.dim, 0, width=4, lam=1.0, nu=1.0, device="cpu")
        tr = run_regret(pol, env, 30, 2, np.random.default_rng(11), np.random.default_rng(12))
        out[mode] = (tr.regret, pol.Uinv.copy(), pol._g_width)
    assert out["sparse"][2] == 2 and out["dense"][2] is None  # the sparse products were taken, then not
    assert np.array_equal(out["sparse"][0], out["dense"][0])
    np.testing.assert_allclose(out["sparse"][1], out["dense"][1], rtol=1e-9, atol=1e-12)
