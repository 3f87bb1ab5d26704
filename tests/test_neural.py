"""bandits.neural: MLP parametrisations, per-sample gradients, local training, FedAvg."""
import math

import numpy as np
import pytest
import torch

from bandits.linalg import sherman_morrison
from bandits.neural import (
    MLP,
    block_width,
    feature_blocks,
    TrainConfig,
    average_params,
    make_generator,
    mirror_inputs,
    sherman_morrison_,
    torch_device,
    train_full_batch,
)


def _autograd_grads(mlp, theta, X):
    """Reference: one plain autograd call per sample."""
    X = torch.as_tensor(X, dtype=mlp.dtype)
    rows = []
    for x in X:
        th = theta.detach().clone().requires_grad_(True)
        (g,) = torch.autograd.grad(mlp.forward(th, x[None])[0], th)
        rows.append(g)
    return torch.stack(rows)


def _X(n, d, seed=0):
    return np.random.default_rng(seed).standard_normal((n, d))


@pytest.mark.parametrize("d,m,expected", [(10, 20, 241), (20, 20, 441), (63, 20, 1301), (63, 50, 3251)])
def test_p0_official(d, m, expected):
    assert MLP(d, m, 1, "official", device="cpu").p0 == expected


def test_p0_ntk_and_depth():
    assert MLP(6, 8, 1, "ntk", device="cpu").p0 == 8 * 6 + 8
    assert MLP(6, 8, 2, "ntk", device="cpu").p0 == 8 * 6 + 64 + 8
    assert MLP(5, 7, 2, "official", device="cpu").p0 == 5 * 7 + 7 + 49 + 7 + 7 + 1


@pytest.mark.parametrize("init", ["official", "ntk"])
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_func_grads_equal_autograd(init, depth):
    mlp = MLP(6, 8, depth, init, device="cpu")
    theta = mlp.init_params(3)
    X = _X(7, 6)
    ref = _autograd_grads(mlp, theta, X)
    G = mlp.per_sample_grads(theta, X, method="func")
    assert G.shape == (7, mlp.p0)
    torch.testing.assert_close(G, ref, rtol=1e-12, atol=1e-12)
    if depth == 1:
        torch.testing.assert_close(mlp.per_sample_grads(theta, X, method="closed_form"), ref, rtol=1e-12, atol=1e-12)
    else:
        with pytest.raises(ValueError, match="closed_form"):
            mlp.per_sample_grads(theta, X, method="closed_form")


@pytest.mark.parametrize("init", ["official", "ntk"])
def test_batched_grads_and_forward(init):
    mlp = MLP(4, 6, 1, init, device="cpu")
    thetas = torch.stack([mlp.init_params(s) for s in range(3)])
    X = np.stack([_X(5, 4, s) for s in range(3)])
    for method in ("closed_form", "func"):
        G = mlp.per_sample_grads(thetas, X, method=method)
        assert G.shape == (3, 5, mlp.p0)
        for b in range(3):
            torch.testing.assert_close(G[b], _autograd_grads(mlp, thetas[b], X[b]), rtol=1e-12, atol=1e-12)
    F = mlp.forward(thetas, X)
    for b in range(3):
        torch.testing.assert_close(F[b], mlp.forward(thetas[b], X[b]))


def test_official_network_matches_nn_linear():
    """The flat order (W1, b1, W2, b2) and the forward pass are those of nn.Linear layers."""
    mlp = MLP(5, 7, 2, "official", device="cpu")
    theta = mlp.init_params(1)
    net = torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.ReLU(), torch.nn.Linear(7, 7), torch.nn.ReLU(),
                              torch.nn.Linear(7, 1)).double()
    torch.nn.utils.vector_to_parameters(theta.clone(), net.parameters())
    X = _X(4, 5)
    torch.testing.assert_close(mlp.forward(theta, X), net(torch.as_tensor(X))[:, 0])


def test_ntk_init_is_zero_on_mirrored_inputs_and_scaled():
    mlp = MLP(8, 64, 2, "ntk", device="cpu")
    theta = mlp.init_params(0)
    X = _X(10, 4)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    Xm = mirror_inputs(X)
    assert np.allclose(np.linalg.norm(Xm, axis=1), 1.0)
    assert np.allclose(Xm[:, :4], Xm[:, 4:])
    assert torch.allclose(mlp.forward(theta, Xm), torch.zeros(10, dtype=torch.float64), atol=1e-12)
    # block structure and variances of App. B
    W1, W2, W3 = mlp.unflatten(theta)
    assert torch.equal(W1[:32, :4], W1[32:, 4:]) and not W1[:32, 4:].any()
    assert torch.equal(W3[0, :32], -W3[0, 32:])
    # phi = g/sqrt(m) has O(1) norm
    phi = mlp.features(theta, Xm, "sqrt_m")
    assert 0.1 < float(phi.norm(dim=1).mean()) < 10.0
    torch.testing.assert_close(phi * math.sqrt(64), mlp.features(theta, Xm, "raw"))


def test_seeded_init_reproducible_and_official_is_standard_normal():
    mlp = MLP(10, 20, 1, "official", device="cpu")
    a = mlp.init_params(np.random.SeedSequence(7))
    b = mlp.init_params(np.random.SeedSequence(7))
    c = mlp.init_params(np.random.SeedSequence(8))
    assert torch.equal(a, b) and not torch.equal(a, c)
    big = MLP(50, 200, 1, "official", device="cpu").init_params(0)
    se = 1.0 / math.sqrt(big.numel())  # 5-standard-error bands for N(0, 1) entries
    assert abs(float(big.mean())) < 5 * se and abs(float(big.std()) - 1.0) < 5 * se * math.sqrt(0.5)
    assert isinstance(make_generator(np.random.default_rng(0)), torch.Generator)


def test_official_training_equals_torch_sgd_weight_decay():
    """objective='official' is SGD(lr, weight_decay=λ/n) on nn.MSELoss, full batch, 30 steps."""
    d, m, n, lam = 5, 7, 13, 0.1
    mlp = MLP(d, m, 1, "official", device="cpu")
    theta = mlp.init_params(2)
    X, y = _X(n, d, 1), np.random.default_rng(3).standard_normal(n)
    net = torch.nn.Sequential(torch.nn.Linear(d, m), torch.nn.ReLU(), torch.nn.Linear(m, 1)).double()
    torch.nn.utils.vector_to_parameters(theta.clone(), net.parameters())
    opt = torch.optim.SGD(net.parameters(), lr=0.01, weight_decay=lam / n)
    Xt, yt = torch.as_tensor(X), torch.as_tensor(y)
    for _ in range(30):
        opt.zero_grad()
        torch.nn.MSELoss()(net(Xt)[:, 0], yt).backward()
        opt.step()
    out = train_full_batch(mlp, theta, X, y, TrainConfig(steps=30, lr=0.01, lam=lam, objective="official"))
    assert out is theta
    torch.testing.assert_close(theta, torch.nn.utils.parameters_to_vector(net.parameters()), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("init,depth,method", [("ntk", 1, "closed_form"), ("ntk", 2, "func"),
                                               ("official", 1, "func")])
def test_paper_objective_gradient(init, depth, method):
    """objective='paper': one step is θ − η ∇[½Σ(f−y)² + ½mλ‖θ−θ0‖²] (Eq. 1)."""
    mlp = MLP(4, 6, depth, init, device="cpu")
    theta0 = mlp.init_params(0)
    theta = theta0 + 0.1 * torch.randn(mlp.p0, generator=make_generator(1), dtype=torch.float64)
    X, y = _X(9, 4, 2), np.random.default_rng(4).standard_normal(9)
    lam = 0.3
    th = theta.clone().requires_grad_(True)
    L = 0.5 * ((mlp.forward(th, X) - torch.as_tensor(y)) ** 2).sum() + 0.5 * mlp.m * lam * ((th - theta0) ** 2).sum()
    (g,) = torch.autograd.grad(L, th)
    expected = theta - 1e-3 * g
    train_full_batch(mlp, theta, X, y, TrainConfig(steps=1, lr=1e-3, lam=lam, objective="paper"), theta0=theta0,
                     method=method)
    torch.testing.assert_close(theta, expected, rtol=1e-12, atol=1e-12)


def test_batched_training_equals_separate_and_fedavg():
    mlp = MLP(4, 6, 1, "official", device="cpu")
    thetas = torch.stack([mlp.init_params(s) for s in range(3)])
    X = np.stack([_X(8, 4, s) for s in range(3)])
    y = np.random.default_rng(0).standard_normal((3, 8))
    cfg = TrainConfig(steps=5, lr=0.01, lam=0.1)
    sep = [train_full_batch(mlp, thetas[b].clone(), X[b], y[b], cfg) for b in range(3)]
    train_full_batch(mlp, thetas, X, y, cfg)
    for b in range(3):
        torch.testing.assert_close(thetas[b], sep[b], rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(average_params(thetas), sum(sep) / 3)
    torch.testing.assert_close(average_params(sep), thetas.mean(0))


def test_training_reduces_loss_and_empty_data_is_noop():
    mlp = MLP(3, 16, 1, "official", device="cpu")
    theta = mlp.init_params(5)
    X = _X(50, 3)
    y = np.cos(X @ np.array([1.0, -0.5, 0.3]))
    before = float(((mlp.forward(theta, X) - torch.as_tensor(y)) ** 2).mean())
    train_full_batch(mlp, theta, X, y, TrainConfig(steps=200, lr=0.002, lam=0.1))
    after = float(((mlp.forward(theta, X) - torch.as_tensor(y)) ** 2).mean())
    assert after < 0.5 * before
    copy = theta.clone()
    train_full_batch(mlp, theta, np.zeros((0, 3)), np.zeros(0), TrainConfig())
    assert torch.equal(theta, copy)


def test_sherman_morrison_torch_equals_direct_after_many_updates():
    rng = np.random.default_rng(0)
    p, lam = 12, 0.5
    A = lam * np.eye(p)
    Ainv_t = torch.eye(p, dtype=torch.float64) / lam
    Ainv_np = np.eye(p) / lam
    for _ in range(200):
        u = rng.standard_normal(p)
        A += np.outer(u, u)
        sherman_morrison_(Ainv_t, torch.as_tensor(u))
        Ainv_np = sherman_morrison(Ainv_np, u)
    np.testing.assert_allclose(Ainv_t.numpy(), np.linalg.inv(A), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(Ainv_np, np.linalg.inv(A), rtol=1e-8, atol=1e-12)


def test_validation_messages():
    with pytest.raises(ValueError, match="init"):
        MLP(4, 4, 1, "xavier")
    with pytest.raises(ValueError, match="even"):
        MLP(5, 4, 1, "ntk")
    with pytest.raises(ValueError, match="depth"):
        MLP(4, 4, 0)
    with pytest.raises(ValueError, match="objective"):
        TrainConfig(objective="adam")
    with pytest.raises(ValueError, match="reg_target"):
        TrainConfig(reg_target="one")
    with pytest.raises(ValueError, match="feature_scale"):
        MLP(4, 4, device="cpu").features(torch.zeros(25, dtype=torch.float64), _X(2, 4), "sqrt")
    with pytest.raises(ValueError, match="device"):
        torch_device("tpu")
    with pytest.raises(ValueError, match="theta0"):
        mlp = MLP(4, 4, device="cpu")
        train_full_batch(mlp, mlp.init_params(0), _X(3, 4), np.zeros(3), TrainConfig(objective="paper"))
    assert torch_device("auto").type in ("cpu", "cuda")


@pytest.mark.parametrize("init,objective", [("official", "official"), ("ntk", "paper"), ("official", "paper"),
                                            ("ntk", "official")])
def test_numpy_and_torch_engines_agree_in_place(init, objective):
    mlp = MLP(4, 6, 1, init, device="cpu")
    theta0 = mlp.init_params(0)
    thetas = torch.stack([mlp.init_params(s) for s in range(1, 4)])
    X = torch.as_tensor(np.stack([_X(9, 4, s) for s in range(3)]))
    y = torch.as_tensor(np.random.default_rng(0).standard_normal((3, 9)))
    cfg = TrainConfig(steps=7, lr=1e-3, lam=0.2, objective=objective)
    a, b = thetas.clone(), thetas.clone()
    alias = a[1]  # a view holding part of the same storage
    train_full_batch(mlp, a, X, y, cfg, theta0=theta0, engine="numpy")
    train_full_batch(mlp, b, X, y, cfg, theta0=theta0, engine="torch")
    torch.testing.assert_close(a, b, rtol=1e-12, atol=1e-13)
    assert torch.equal(alias, a[1]) and not torch.equal(a, thetas)
    single = thetas[0].clone()
    train_full_batch(mlp, single, X[0], y[0], cfg, theta0=theta0, engine="numpy")
    torch.testing.assert_close(single, b[0], rtol=1e-12, atol=1e-13)
    with pytest.raises(ValueError, match="engine"):
        train_full_batch(mlp, single, X[0], y[0], cfg, theta0=theta0, engine="jax")


@pytest.mark.parametrize("init", ["official", "ntk"])
def test_numpy_forward_and_features_equal_torch(init):
    """The CPU numpy fast paths (one hidden layer) equal the torch closed form and autograd."""
    mlp = MLP(4, 6, 1, init, device="cpu")
    thetas = torch.stack([mlp.init_params(s) for s in range(3)])
    X = np.stack([_X(5, 4, s) for s in range(3)])
    for scale in ("raw", "sqrt_m"):
        G = mlp.features_numpy(thetas, X, scale)
        assert G.shape == (3, 5, mlp.p0) and G.dtype == np.float64
        np.testing.assert_allclose(G, mlp.features(thetas, X, scale).numpy(), rtol=1e-12, atol=1e-13)
        np.testing.assert_allclose(mlp.features_numpy(thetas[1], X[1], scale), G[1], rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(mlp.features_numpy(thetas[2], X[2]), _autograd_grads(mlp, thetas[2], X[2]).numpy(),
                               rtol=1e-12, atol=1e-13)
    f = mlp.forward_numpy(thetas, X)
    assert f.shape == (3, 5)
    np.testing.assert_allclose(f, mlp.forward(thetas, X).numpy(), rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(mlp.forward_numpy(thetas[0], X[0]), f[0], rtol=1e-12, atol=1e-13)
    with pytest.raises(ValueError, match="feature_scale"):
        mlp.features_numpy(thetas[0], X[0], "sqrt")
    deep = MLP(4, 6, 2, init, device="cpu")  # no numpy path: falls back to torch.func
    th = deep.init_params(0)
    np.testing.assert_allclose(deep.features_numpy(th, X[0]), _autograd_grads(deep, th, X[0]).numpy(),
                               rtol=1e-10, atol=1e-12)


def test_float32_network_close_to_float64():
    """nn_dtype float32 (the official code's): the packed numpy engine's training and the numpy
    features stay within float32 round-off of the float64 results (relative 1e-4 after 30 steps)."""
    m64 = MLP(10, 20, 1, "official", device="cpu")
    m32 = MLP(10, 20, 1, "official", dtype=torch.float32, device="cpu")
    th64 = torch.stack([m64.init_params(s) for s in range(2)])
    th32 = th64.to(torch.float32)
    X = np.stack([_X(200, 10, s) / 3 for s in range(2)])
    y = np.cos(3 * X @ np.linspace(-1, 1, 10) / 3)
    cfg = TrainConfig(steps=30, lr=0.01, lam=0.1)
    train_full_batch(m64, th64, X, y, cfg)
    train_full_batch(m32, th32, X, y, cfg)
    assert th32.dtype == torch.float32
    np.testing.assert_allclose(th32.double().numpy(), th64.numpy(), rtol=1e-4, atol=1e-4)
    G32, G64 = m32.features_numpy(th32, X[:, :7]), m64.features_numpy(th64, X[:, :7])
    assert G32.dtype == np.float64
    np.testing.assert_allclose(G32, G64, rtol=1e-4, atol=1e-4)


def test_average_params_numpy_path_equals_torch_mean():
    thetas = torch.as_tensor(np.random.default_rng(0).standard_normal((5, 7)))
    out = average_params(thetas)
    assert out.shape == (7,) and out.dtype == torch.float64
    torch.testing.assert_close(out, thetas.mean(0), rtol=1e-15, atol=1e-15)


def _block_rows(B, n, K, w, seed=0):
    """Rows in one of K blocks of width w (the classification bandits' contexts), some entries zero."""
    rng = np.random.default_rng(seed)
    X = np.zeros((B, n, K * w))
    arms = rng.integers(0, K, (B, n))
    for b in range(B):
        for i in range(n):
            X[b, i, arms[b, i] * w:(arms[b, i] + 1) * w] = rng.standard_normal(w) / 2
    X[0, 3] = 0.0  # an all-zero row fits any block
    X[-1, 5, arms[-1, 5] * w] = 0.0  # a zero inside a block
    return X


def test_block_width():
    X = _block_rows(2, 40, 4, 3)
    assert block_width(X) == 3 and block_width(X[0]) == 3
    assert block_width(np.ones((5, 6))) is None  # dense rows
    assert block_width(np.concatenate([X[0], X[0]], axis=1)) is None  # mirrored: two blocks per row
    assert block_width(np.zeros((3, 4))) is None
    Y = np.zeros((3, 8))
    Y[:, 0] = 1.0  # one nonzero column: the finest width is 1
    assert block_width(Y) == 1


def _row_blocks(X, w):
    """The rule, written independently: each row's block of width ``w`` is the one holding its first nonzero
    entry (block 0 for an all-zero row)."""
    nz = np.asarray(X) != 0
    return np.where(nz.any(axis=-1), np.argmax(nz, axis=-1) // w, 0)


def test_block_width_first_gives_the_rows_blocks():
    """The one pass over the inputs that the training and :func:`feature_blocks` take
    (:func:`bandits.neural._block_width_first`) gives the width and, as ``first // w``, each row's block
    (all-zero rows: block 0)."""
    import bandits.neural as N

    X = _block_rows(3, 50, 4, 3)
    w, first = N._block_width_first(X)
    assert w == block_width(X) == 3 and first.shape == (3, 50)
    np.testing.assert_array_equal(first // w, _row_blocks(X, w))
    Z = _block_rows(2, 30, 8, 3)  # 8 blocks: the support is under a third of p0, so FN-UCB's products take it
    wf, blk = feature_blocks(MLP(24, 5, 1, device="cpu"), Z)
    assert wf == 3
    np.testing.assert_array_equal(blk, _row_blocks(Z, 3))
    assert N._block_width_first(np.zeros((3, 4))) == (None, None)
    w1, first1 = N._block_width_first(np.ones((5, 6)))
    assert w1 is None and (first1 == 0).all()


@pytest.mark.parametrize("init", ["official", "ntk"])
@pytest.mark.parametrize("B", [1, 3])
def test_block_training_equals_dense_to_round_off(init, B, monkeypatch):
    """The training's block path (one GEMM pair per agent and block on the block's columns) reaches the same
    parameters as the dense path (two GEMMs on every column) to round-off."""
    import bandits.neural as N

    K, w, n = 4, 3, 300
    X = torch.as_tensor(_block_rows(B, n, K, w))
    y = torch.as_tensor(np.random.default_rng(1).standard_normal((B, n)))
    mlp = MLP(K * w, 6, 1, init, device="cpu")
    theta0 = mlp.init_params(0)
    th = torch.stack([mlp.init_params(s) for s in range(1, B + 1)])
    cfg = TrainConfig(steps=20, lr=1e-4 if init == "ntk" else 1e-2, lam=0.5, objective="paper" if init == "ntk" else "official")
    Xa, ya = (X, y) if B > 1 else (X[0], y[0])
    assert n >= N._BLOCK_MIN_ROWS and K * w + 1 >= N._BLOCK_MIN_SAVING * (w + 1)
    calls = []
    real = N._train_blocks
    monkeypatch.setattr(N, "_train_blocks", lambda *a: calls.append(1) or real(*a))
    a = th.clone() if B > 1 else th[0].clone()
    train_full_batch(mlp, a, Xa, ya, cfg, theta0=theta0, engine="numpy")
    assert calls, "the block path was not taken"
    monkeypatch.setattr(N, "_BLOCK_MIN_ROWS", 10 ** 9)
    b = th.clone() if B > 1 else th[0].clone()
    train_full_batch(mlp, b, Xa, ya, cfg, theta0=theta0, engine="numpy")
    assert len(calls) == 1 and not torch.equal(a, th if B > 1 else th[0])
    assert torch.isfinite(a).all()
    torch.testing.assert_close(a, b, rtol=1e-11, atol=1e-12)


def test_block_support_products_equal_fancy_indexing():
    """MLP.block_support is where a block context's gradient can be nonzero, and the strided support
    products equal fancy indexing (exactly) and the dense matrix-vector product (to round-off)."""
    mlp = MLP(24, 5, 1, "official", device="cpu")
    rng = np.random.default_rng(0)
    X = _block_rows(1, 6, 8, 3, seed=2)[0]
    G = mlp.features_numpy(mlp.init_params(1), X)
    w, blk = feature_blocks(mlp, X)
    assert w == 3
    for x, g, a in zip(X, G, blk):
        S = mlp.block_support(int(a), w)
        off = np.setdiff1d(np.arange(mlp.p0), S)
        assert not np.any(g[off]) and len(S) == 5 * 3 + mlp.p0 - 5 * 24
    M = rng.standard_normal((mlp.p0, mlp.p0))
    M = M + M.T
    for a in range(8):
        S = mlp.block_support(a, 3)
        assert np.array_equal(mlp.support_cols(G, a, 3), G[:, S])
        assert np.array_equal(mlp.support_square(M, a, 3), M[np.ix_(S, S)])
        phi = np.zeros(mlp.p0)
        phi[S] = rng.standard_normal(len(S))
        np.testing.assert_allclose(mlp.support_matvec(M, phi, a, 3), M @ phi, rtol=1e-12, atol=1e-12)
    assert feature_blocks(MLP(4, 5, 1, device="cpu"), _block_rows(1, 6, 2, 2)[0]) is None  # half of p0: dense
