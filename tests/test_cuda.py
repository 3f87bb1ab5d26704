"""CUDA paths against their CPU references: the package runs on a GPU where there is one, and the same seed
gives the same numbers twice, on CPU (and on CUDA when present).

Every test here skips without a CUDA device: CI has none, and CPU stays the tested default. They run on a
machine with a GPU (``pytest tests/test_cuda.py``). Float64 on both sides, so the tolerances are round-off
(different BLAS and reduction orders), not float32-sized.
"""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")

from bandits.comm import CommLedger  # noqa: E402
from bandits.envs.base import ContextualEnv  # noqa: E402
from bandits.estimators import ExactGP, TorchExactGP, resolve_device  # noqa: E402
from bandits.kernels import RBF  # noqa: E402
from bandits.neural import MLP, TrainConfig, train_full_batch  # noqa: E402
from bandits.sim import run_regret  # noqa: E402


def _X(n, d, seed=0):
    return np.random.default_rng(seed).standard_normal((n, d))


def test_auto_resolves_to_cuda():
    assert resolve_device("auto") == "cuda"


def test_torch_exact_gp_on_cuda_equals_numpy():
    rng = np.random.default_rng(0)
    k = RBF(lengthscale=0.7)
    X, y, Xq = rng.normal(size=(300, 4)), rng.normal(size=300), rng.normal(size=(40, 4))
    a, b = ExactGP(k, 0.3, 4, capacity=8), TorchExactGP(k, 0.3, 4, capacity=8, device="cuda")
    a.add(X[:200], y[:200]); b.add(X[:200], y[:200])
    for i in range(200, 300):  # one at a time: the incremental factor path on the device
        a.add(X[i], y[i]); b.add(X[i], y[i])
    for u, v in zip(a.predict(Xq), b.predict(Xq)):
        np.testing.assert_allclose(u, v, rtol=1e-9, atol=1e-10)
    assert b._Lt.device.type == "cuda"


@pytest.mark.parametrize("init", ["official", "ntk"])
@pytest.mark.parametrize("depth", [1, 2])
def test_per_sample_grads_on_cuda_equal_cpu(init, depth):
    cpu, gpu = MLP(6, 16, depth, init, device="cpu"), MLP(6, 16, depth, init, device="cuda")
    theta_c = cpu.init_params(3)
    theta_g = gpu.init_params(3)
    torch.testing.assert_close(theta_g.cpu(), theta_c, rtol=0, atol=0)  # seeded init is device-independent
    X = _X(11, 6)
    methods = ("func", "closed_form") if depth == 1 else ("func",)
    for method in methods:
        Gc = cpu.per_sample_grads(theta_c, X, method=method)
        Gg = gpu.per_sample_grads(theta_g, X, method=method)
        assert Gg.device.type == "cuda"
        torch.testing.assert_close(Gg.cpu(), Gc, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("objective", ["official", "paper"])
def test_training_on_cuda_equals_cpu(objective):
    init = "ntk" if objective == "paper" else "official"
    cpu, gpu = MLP(4, 10, 1, init, device="cpu"), MLP(4, 10, 1, init, device="cuda")
    theta0_c, theta0_g = cpu.init_params(0), gpu.init_params(0)
    a, b = theta0_c.clone(), theta0_g.clone()
    X, y = _X(25, 4, 1), np.random.default_rng(2).standard_normal(25)
    cfg = TrainConfig(steps=30, lr=0.01, lam=0.1, objective=objective)
    train_full_batch(cpu, a, X, y, cfg, theta0=theta0_c)
    train_full_batch(gpu, b, X, y, cfg, theta0=theta0_g)
    assert b.device.type == "cuda" and not torch.equal(a, theta0_c)
    torch.testing.assert_close(b.cpu(), a, rtol=1e-9, atol=1e-11)


def _cos_env(d=4, K=5):
    a = np.linspace(1.0, 2.0, d)
    a /= np.linalg.norm(a)

    def sampler(r, n):
        Z = r.standard_normal((n, d))
        return Z / np.linalg.norm(Z, axis=1, keepdims=True)

    return ContextualEnv(sampler=sampler, f=lambda X: np.cos(3 * X @ a), n_arms=K, dim=d, noise_std=0.01,
                         schedule="sync")


@pytest.mark.parametrize("name", ["NeuralUCB", "NeuralTS"])
def test_neural_baselines_same_seed_same_numbers_on_cuda(name):
    from bandits.algorithms import get_algorithm

    cls = get_algorithm(name)
    out = []
    for _ in range(2):
        led = CommLedger(2, 20)
        pol = cls(2, 20, 4, np.random.SeedSequence(5), led, width=8, device="cuda", train_steps=3)
        tr = run_regret(pol, _cos_env(), 20, 2, np.random.default_rng(1), np.random.default_rng(2))
        out.append(tr.regret)
    np.testing.assert_array_equal(out[0], out[1])


@pytest.mark.parametrize("variance_scale", ["gp", "ridge"])
def test_fantasy_variance_on_cuda_is_the_exact_posterior_variance(variance_scale):
    # OneKernelUCB's batch rule (PendingQueries) on fresh contexts forms L⁻¹K and the Schur complement on
    # the device: the same closed-form check as on the CPU
    from tests.test_one_kernel_ucb_batch import test_fantasy_variance_is_the_exact_posterior_variance_fresh_contexts as t

    t(variance_scale, "cuda")


def test_exact_gp_last_prediction_on_cuda_equals_numpy():
    # the accessors the batch rule reads (last_column, last_times) return numpy from the device's factor
    k = RBF(lengthscale=0.7)
    rng = np.random.default_rng(11)
    X, Xq, A = rng.normal(size=(30, 3)), rng.normal(size=(6, 3)), rng.normal(size=(4, 30))
    a, b = ExactGP(k, 0.4, 3, capacity=8), TorchExactGP(k, 0.4, 3, capacity=8, device="cuda")
    y = rng.normal(size=30)
    a.add(X, y); b.add(X, y)
    a.predict(Xq); b.predict(Xq)
    for i in range(6):
        col = b.last_column(i)
        assert isinstance(col, np.ndarray)
        np.testing.assert_allclose(col, a.last_column(i), rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(b.last_times(A), a.last_times(A), rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("batch", ["none", "fantasy"])
def test_one_kernel_ucb_on_cuda_chooses_as_on_cpu(batch):
    # fresh contexts, N clients per step (sync): the device's run makes the same choices as the CPU's
    from tests.test_one_kernel_ucb_batch import _run

    spec = {"name": "f1", "kind": "contextual", "K": 8, "noise_std": 0.1, "schedule": "sync"}
    c, rc, _ = _run(spec, 4, 20, batch=batch, device="cpu")
    g, rg, _ = _run(spec, 4, 20, batch=batch, device="cuda")
    for x, y in zip(c, g):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_allclose(rg, rc, rtol=1e-9, atol=1e-9)
