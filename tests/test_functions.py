"""Tests for bandits.envs.functions: maxima, argmax values, samplers, the RKHS draw and the registry."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from bandits.envs.functions import (
    BRANIN_ARGMAX,
    BRANIN_FSTAR,
    DOMAINS,
    F2_ZSTAR,
    FUNCTIONS,
    HARTMANN4_ARGMAX,
    HARTMANN4_FSTAR,
    FunctionSpec,
    Objective,
    UnknownFunctionError,
    branin_rescaled,
    f1,
    f2,
    f2_max,
    get_function,
    h1,
    h2,
    hartmann4,
    rkhs_function,
    sample_ball,
    sample_cube,
    sample_domain,
    sample_sphere,
    se_kernel,
)

FAST = settings(max_examples=25, deadline=None)


def _multistart_max(f, d, n_starts, seed, bounds=(0.0, 1.0)):
    """Best (value, point) of L-BFGS-B maximisation of f from n_starts seeded uniform starts."""
    rng = np.random.default_rng(seed)
    best_val, best_x = -np.inf, None
    for x0 in rng.uniform(bounds[0], bounds[1], size=(n_starts, d)):
        res = minimize(
            lambda x: -float(f(x)), x0, method="L-BFGS-B", bounds=[bounds] * d,
            options={"ftol": 1e-14, "gtol": 1e-10},
        )
        if -res.fun > best_val:
            best_val, best_x = -res.fun, res.x
    return best_val, best_x


# ------------------------------------------------------------------------------------------ samplers
@FAST
@given(n=st.integers(0, 50), d=st.integers(1, 12), seed=st.integers(0, 2**32 - 1))
def test_samplers_shapes_and_ranges(n, d, seed):
    rng = np.random.default_rng(seed)
    S = sample_sphere(rng, n, d)
    B = sample_ball(rng, n, d)
    C = sample_cube(rng, n, d)
    for X in (S, B, C):
        assert X.shape == (n, d)
        assert X.dtype == np.float64
    np.testing.assert_allclose(np.linalg.norm(S, axis=1), 1.0, atol=1e-12)
    assert np.all(np.linalg.norm(B, axis=1) <= 1.0 + 1e-12)
    assert np.all((C >= 0.0) & (C <= 1.0))


def test_ball_radius_distribution():
    # Uniform in the ball: P(‖x‖ ≤ r) = r^d, so ‖x‖^d ~ Uniform[0, 1].
    rng = np.random.default_rng(0)
    d = 5
    r = np.linalg.norm(sample_ball(rng, 4000, d), axis=1)
    assert abs(np.mean(r**d) - 0.5) < 0.02
    # Sphere: mean direction ≈ 0.
    S = sample_sphere(rng, 4000, d)
    assert np.all(np.abs(S.mean(axis=0)) < 0.05)


def test_samplers_reproducible_and_dispatch():
    for dom, fn in zip(DOMAINS, (sample_sphere, sample_ball, sample_cube)):
        a = sample_domain(np.random.default_rng(3), 7, 4, dom)
        b = fn(np.random.default_rng(3), 7, 4)
        np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="sphere.*ball.*cube"):
        sample_domain(np.random.default_rng(0), 3, 2, "torus")


def test_no_global_rng_used():
    np.random.seed(123)
    state = np.random.get_state()[1].copy()
    rng = np.random.default_rng(0)
    sample_sphere(rng, 5, 3), sample_ball(rng, 5, 3), sample_cube(rng, 5, 3)
    for spec in FUNCTIONS.values():
        spec.make(rng)(spec.sample(rng, 4))
    np.testing.assert_array_equal(np.random.get_state()[1], state)


# ------------------------------------------------------------------------------------------ h1, h2
@FAST
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 20))
def test_h2_equals_shifted_cube(seed, n):
    rng = np.random.default_rng(seed)
    theta = sample_sphere(rng, 1, 10)[0]
    X = sample_ball(rng, n, 10)
    z = X @ theta
    np.testing.assert_allclose(h2(X, theta), (z - 1.0) ** 3 + 4.0, rtol=1e-12, atol=1e-12)
    # maximised at θ* with value 4, and nothing on the ball beats it
    assert float(h2(theta, theta)) == pytest.approx(4.0, abs=1e-12)
    assert np.all(h2(X, theta) <= 4.0 + 1e-12)


def test_h2_increasing_in_projection():
    z = np.linspace(-1, 1, 201)
    theta = np.array([1.0, 0.0])
    vals = h2(np.stack([z, np.zeros_like(z)], axis=1), theta)
    assert np.all(np.diff(vals) > 0)
    assert vals[-1] == pytest.approx(4.0)


@FAST
@given(seed=st.integers(0, 2**32 - 1))
def test_h1_max_is_one_on_orthogonal_set(seed):
    rng = np.random.default_rng(seed)
    d = 10
    theta = sample_sphere(rng, 1, d)[0]
    # a point with xᵀθ* = 0 on the sphere: project a random vector and normalise
    g = rng.standard_normal(d)
    x = g - (g @ theta) * theta
    x /= np.linalg.norm(x)
    assert abs(x @ theta) < 1e-12
    assert float(h1(x, theta)) == pytest.approx(1.0, abs=1e-12)
    X = sample_sphere(rng, 200, d)
    vals = h1(X, theta)
    assert vals.shape == (200,)
    assert np.all(vals <= 1.0)
    np.testing.assert_allclose(vals, np.cos(3 * X @ theta))


def test_f1_f2_formulas():
    theta = np.array([0.6, 0.0, 0.0])
    X = np.array([[1.0, 0, 0], [0, 1.0, 0], [-1.0, 0, 0]])
    z = X @ theta
    np.testing.assert_allclose(f1(X, theta), np.cos(3 * z))
    # Async-KernelUCB f2 has the linear term −z (DUETS' h2 has +3z)
    np.testing.assert_allclose(f2(X, theta), z**3 - 3 * z**2 - z + 3)
    assert f2(np.zeros(3), theta) == pytest.approx(3.0)


def test_f2_maximum():
    # g'(z*) = 0 at z* = 1 − 2/√3
    assert 3 * F2_ZSTAR**2 - 6 * F2_ZSTAR - 1 == pytest.approx(0.0, abs=1e-12)
    assert F2_ZSTAR == pytest.approx(-0.1547005, abs=1e-6)
    z = np.linspace(-1, 1, 200001)
    g = z**3 - 3 * z**2 - z + 3
    assert f2_max(1.0) == pytest.approx(g.max(), abs=1e-9)
    assert f2_max(1.0) == pytest.approx(3.0792, abs=1e-4)
    # small ‖θ‖: the constrained max is at z = −r
    r = 0.1
    zz = np.linspace(-r, r, 20001)
    assert f2_max(r) == pytest.approx((zz**3 - 3 * zz**2 - zz + 3).max(), abs=1e-9)


def test_projection_shape_checks():
    with pytest.raises(ValueError):
        h1(np.ones((3, 4)), np.ones(5))
    with pytest.raises(ValueError):
        h2(np.ones((2, 3, 4)), np.ones(4))
    with pytest.raises(ValueError):
        branin_rescaled(np.ones((3, 3)))


# ------------------------------------------------------------------------------------------ Branin
def test_branin_maximisers():
    assert BRANIN_FSTAR == pytest.approx(1.047394, abs=1e-6)
    assert BRANIN_FSTAR == pytest.approx((54.81 - 0.397887) / 51.95, abs=1e-6)
    expected = [(0.123894, 0.818333), (0.542773, 0.151667), (0.961652, 0.165000)]
    np.testing.assert_allclose(np.array(BRANIN_ARGMAX), expected, atol=1e-6)
    vals = branin_rescaled(np.array(BRANIN_ARGMAX))
    assert vals.shape == (3,)
    np.testing.assert_allclose(vals, 1.047394, atol=1e-5)


def test_branin_matches_standard_branin():
    rng = np.random.default_rng(1)
    X = rng.random((50, 2))
    x1, x2 = 15 * X[:, 0] - 5, 15 * X[:, 1]
    a, b, c, r, s, t = 1, 5.1 / (4 * math.pi**2), 5 / math.pi, 6, 10, 1 / (8 * math.pi)
    std = a * (x2 - b * x1**2 + c * x1 - r) ** 2 + s * (1 - t) * np.cos(x1) + s
    np.testing.assert_allclose(branin_rescaled(X), -(std - 10 - 44.81) / 51.95, rtol=1e-12)


def test_branin_nothing_larger():
    g = np.linspace(0, 1, 401)
    G = np.stack(np.meshgrid(g, g), axis=-1).reshape(-1, 2)
    vals = branin_rescaled(G)
    assert vals.max() <= BRANIN_FSTAR + 1e-12
    assert vals.max() > BRANIN_FSTAR - 1e-3
    best, _ = _multistart_max(branin_rescaled, 2, n_starts=30, seed=0)
    assert best <= BRANIN_FSTAR + 1e-8
    assert best == pytest.approx(BRANIN_FSTAR, abs=1e-6)


# ------------------------------------------------------------------------------------------ Hartmann-4
def test_hartmann4_value_at_stated_point():
    x_spec = np.array([0.187395, 0.194152, 0.557918, 0.264780])
    assert float(hartmann4(x_spec)) == pytest.approx(3.72984, abs=1e-4)
    assert HARTMANN4_FSTAR == pytest.approx(3.72984, abs=1e-5)
    np.testing.assert_allclose(HARTMANN4_ARGMAX[0], x_spec, atol=1e-5)
    assert float(hartmann4(np.array(HARTMANN4_ARGMAX[0]))) == pytest.approx(HARTMANN4_FSTAR, abs=1e-9)
    # Picheny rescaling check from the spec: (1.1 − f*)/0.839 = −3.13449
    assert (1.1 - HARTMANN4_FSTAR) / 0.839 == pytest.approx(-3.13449, abs=1e-5)


def test_hartmann4_multistart():
    best, x = _multistart_max(hartmann4, 4, n_starts=25, seed=0)
    assert best == pytest.approx(3.72984, abs=1e-4)
    assert best <= HARTMANN4_FSTAR + 1e-7
    np.testing.assert_allclose(x, HARTMANN4_ARGMAX[0], atol=1e-4)


def test_hartmann4_vectorised_matches_loop():
    from bandits.envs.functions import HARTMANN4_A, HARTMANN4_ALPHA, HARTMANN4_P

    rng = np.random.default_rng(2)
    X = rng.random((10, 4))
    loop = [
        sum(HARTMANN4_ALPHA[i] * math.exp(-sum(HARTMANN4_A[i, j] * (x[j] - HARTMANN4_P[i, j]) ** 2
                                                for j in range(4))) for i in range(4))
        for x in X
    ]
    np.testing.assert_allclose(hartmann4(X), loop, rtol=1e-12)


# ------------------------------------------------------------------------------------------ RKHS
@FAST
@given(
    seed=st.integers(0, 2**32 - 1),
    m=st.integers(1, 25),
    d=st.integers(1, 4),
    ell=st.floats(0.1, 2.0),
    B=st.floats(0.1, 10.0),
)
def test_rkhs_norm_equals_requested(seed, m, d, ell, B):
    g = rkhs_function(np.random.default_rng(seed), m, d, ell, B)
    assert g.centres.shape == (m, d) and g.weights.shape == (m,)
    assert np.all((g.centres >= 0) & (g.centres <= 1))
    K = se_kernel(g.centres, g.centres, ell)
    assert math.sqrt(g.weights @ K @ g.weights) == pytest.approx(B, rel=1e-8)
    assert g.rkhs_norm == pytest.approx(B, rel=1e-8)


def test_rkhs_evaluation_and_reproducibility():
    g = rkhs_function(np.random.default_rng(0), 20, 2, 0.5, 5.0)
    X = np.random.default_rng(1).random((30, 2))
    manual = np.array(
        [sum(a * math.exp(-np.sum((x - c) ** 2) / (2 * 0.5**2)) for a, c in zip(g.weights, g.centres))
         for x in X]
    )
    np.testing.assert_allclose(g(X), manual, rtol=1e-12)
    np.testing.assert_allclose(g.evaluate(X), manual, rtol=1e-12)
    assert g(X[0]).shape == ()
    g2 = rkhs_function(np.random.default_rng(0), 20, 2, 0.5, 5.0)
    np.testing.assert_array_equal(g.centres, g2.centres)
    np.testing.assert_array_equal(g.weights, g2.weights)


def test_se_kernel():
    X = np.array([[0.0, 0.0], [1.0, 0.0]])
    K = se_kernel(X, X, 0.5)
    np.testing.assert_allclose(np.diag(K), 1.0)
    assert K[0, 1] == pytest.approx(math.exp(-1 / (2 * 0.25)))


# ------------------------------------------------------------------------------------------ registry
def test_registry_contents():
    expected = {
        "h1": (10, "sphere", 1.0),
        "h2": (10, "sphere", 1.0),
        "branin": (2, "cube", 0.2),
        "hartmann4": (4, "cube", 1.0),
        "rkhs2d": (2, "cube", 0.5),
        "f1": (20, "ball", 1 / math.sqrt(2)),
        "f2": (20, "ball", 1 / math.sqrt(2)),
    }
    assert set(FUNCTIONS) == set(expected)
    for name, (dim, dom, ell) in expected.items():
        spec = FUNCTIONS[name]
        assert isinstance(spec, FunctionSpec)
        assert spec.name == name and spec.dim == dim and spec.domain == dom
        assert spec.lengthscale == pytest.approx(ell)
    assert FUNCTIONS["branin"].fstar == pytest.approx(1.047394, abs=1e-6)
    assert FUNCTIONS["hartmann4"].fstar == pytest.approx(3.72984, abs=1e-5)
    assert FUNCTIONS["h1"].fstar == 1.0 and FUNCTIONS["h2"].fstar == 4.0
    assert FUNCTIONS["rkhs2d"].fstar is None and FUNCTIONS["f2"].fstar is None
    assert len(FUNCTIONS["branin"].argmax) == 3
    with pytest.raises(AttributeError):
        FUNCTIONS["h1"].dim = 3  # frozen


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_make_and_sample(name):
    spec = FUNCTIONS[name]
    rng = np.random.default_rng(7)
    f = spec.make(rng)
    assert isinstance(f, Objective)
    X = spec.sample(rng, 64)
    assert X.shape == (64, spec.dim)
    y = f(X)
    assert y.shape == (64,) and np.all(np.isfinite(y))
    if f.fstar is not None:
        assert np.all(y <= f.fstar + 1e-9)
    if f.argmax is not None:
        np.testing.assert_allclose(f(np.array(f.argmax)), f.fstar, atol=1e-9)
    # same seed → same function (same parameters and same values)
    fa = spec.make(np.random.default_rng(11))
    fb = spec.make(np.random.default_rng(11))
    np.testing.assert_array_equal(fa(X), fb(X))


def test_theta_draws():
    for name, on_sphere in (("h1", True), ("h2", True), ("f1", False), ("f2", False)):
        thetas = [FUNCTIONS[name].make(np.random.default_rng(s)).theta for s in range(20)]
        norms = np.linalg.norm(thetas, axis=1)
        if on_sphere:
            np.testing.assert_allclose(norms, 1.0, atol=1e-12)
        else:
            assert np.all(norms <= 1.0) and np.any(norms < 1.0 - 1e-6)
    # different seeds give different θ*
    t0 = FUNCTIONS["h1"].make(np.random.default_rng(0)).theta
    t1 = FUNCTIONS["h1"].make(np.random.default_rng(1)).theta
    assert not np.allclose(t0, t1)
    # h2's drawn argmax is θ* with value 4
    f = FUNCTIONS["h2"].make(np.random.default_rng(5))
    np.testing.assert_allclose(f.argmax[0], f.theta)
    assert float(f(f.theta)) == pytest.approx(4.0)


def test_rkhs2d_draw_norm():
    f = FUNCTIONS["rkhs2d"].make(np.random.default_rng(0))
    g = f.params["rkhs"]
    assert g.centres.shape == (20, 2)
    assert g.lengthscale == 0.5
    assert g.rkhs_norm == pytest.approx(5.0, rel=1e-10)


def test_unknown_name_raises_with_allowed_names():
    with pytest.raises(ValueError) as exc:
        get_function("rosenbrock")
    msg = str(exc.value)
    assert "rosenbrock" in msg
    for name in FUNCTIONS:
        assert repr(name) in msg
    with pytest.raises(KeyError):
        FUNCTIONS["rosenbrock"]
    assert isinstance(exc.value, UnknownFunctionError)
