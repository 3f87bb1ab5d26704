"""Tests for bandits.design: optimal experimental designs (G, D, XY) and rounding."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from bandits import design as D

# The six "two-hot" arms of CoPE-KB Sec. 4.1 / App. A, best arm {2,3} last.
TWO_HOT = np.array(
    [[1, 1, 0, 0], [1, 0, 1, 0], [1, 0, 0, 1], [0, 1, 1, 0], [0, 1, 0, 1], [0, 0, 1, 1]], float
)


def two_hot_instance(groups):
    """Agent v holds the six two-hot arms in the coordinates of block groups[v] (agent-major)."""
    g = max(groups) + 1
    X = np.zeros((6 * len(groups), 4 * g))
    for v, b in enumerate(groups):
        X[6 * v : 6 * v + 6, 4 * b : 4 * b + 4] = TWO_HOT
    return X


def slsqp_xy(X, Y, zeta, lam0):
    """Reference: epigraph form min t s.t. y_j^T A(lam)^-1 y_j <= t, lam in simplex (SLSQP)."""
    K = X.shape[0]

    def parts(lam):
        A = zeta * np.eye(X.shape[1]) + (X.T * lam) @ X
        AY = np.linalg.solve(A, Y.T)
        return (Y.T * AY).sum(0), X @ AY

    def cons(z):
        return z[K] - parts(z[:K])[0]

    def jac(z):
        G = parts(z[:K])[1]
        return np.hstack([(G**2).T, np.ones((Y.shape[0], 1))])

    z0 = np.r_[lam0, parts(lam0)[0].max()]
    res = minimize(
        lambda z: z[K],
        z0,
        jac=lambda z: np.r_[np.zeros(K), 1.0],
        method="SLSQP",
        bounds=[(1e-9, 1)] * K + [(0, None)],
        constraints=[
            {"type": "ineq", "fun": cons, "jac": jac},
            {"type": "eq", "fun": lambda z: z[:K].sum() - 1, "jac": lambda z: np.r_[np.ones(K), 0]},
        ],
        options={"maxiter": 500, "ftol": 1e-13},
    )
    lam = np.clip(res.x[:K], 0, None)
    lam /= lam.sum()
    return parts(lam)[0].max()


# --------------------------------------------------------------------------------------------------
# Basic quantities
# --------------------------------------------------------------------------------------------------


def test_design_matrix_and_norms_match_direct_formula():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((7, 3))
    lam = rng.dirichlet(np.ones(7))
    A = D.design_matrix(X, lam, 0.5)
    direct = 0.5 * np.eye(3) + sum(l * np.outer(x, x) for l, x in zip(lam, X))
    np.testing.assert_allclose(A, direct, rtol=1e-12)
    Y = rng.standard_normal((4, 3))
    np.testing.assert_allclose(
        D.design_norms(X, lam, Y, 0.5), np.einsum("ij,jk,ik->i", Y, np.linalg.inv(direct), Y)
    )


def test_design_norms_singular_uses_range():
    X = np.array([[1.0, 0.0], [2.0, 0.0]])
    v = D.design_norms(X, [0.5, 0.5], [[1.0, 0.0], [0.0, 1.0]], 0.0)
    assert np.isclose(v[0], 1 / 2.5) and np.isinf(v[1])


def test_kernel_norms_equal_explicit_norms():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((10, 4))
    lam = rng.dirichlet(np.ones(10))
    pairs = D.all_pairs(10)
    for zeta in (1e-3, 0.3, 2.0):
        explicit = D.design_norms(X, lam, D.pairwise_differences(X, pairs), zeta)
        kernel = D.kernel_design_norms(X @ X.T, lam, pairs, zeta)
        np.testing.assert_allclose(kernel, explicit, rtol=1e-9)
    # general coefficient targets (here the arms themselves)
    np.testing.assert_allclose(
        D.kernel_design_norms(X @ X.T, lam, np.eye(10), 0.3),
        D.design_norms(X, lam, X, 0.3),
        rtol=1e-9,
    )
    with pytest.raises(ValueError):
        D.kernel_design_norms(X @ X.T, lam, pairs, 0.0)


def test_feature_map_from_gram_reproduces_gram():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((9, 3))
    Psi = D.feature_map_from_gram(X @ X.T)
    assert Psi.shape == (9, 3)
    np.testing.assert_allclose(Psi @ Psi.T, X @ X.T, atol=1e-10)


def test_target_helpers():
    np.testing.assert_array_equal(D.all_pairs(3), [[0, 1], [0, 2], [1, 2]])
    np.testing.assert_array_equal(D.all_pairs([4, 7]), [[4, 7]])
    assert D.all_pairs([5]).shape == (0, 2)
    pairs = D.within_group_pairs([np.array([0, 1, 2]), np.array([3]), np.array([4, 5])])
    np.testing.assert_array_equal(pairs, [[0, 1], [0, 2], [1, 2], [4, 5]])
    assert D.within_group_pairs([[1], []]).shape == (0, 2)
    np.testing.assert_array_equal(D.pairs_to_best([0, 2, 3], 2), [[2, 0], [2, 3]])
    X = np.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(D.pairwise_differences(X, [[3, 1]]), [X[3] - X[1]])
    C = D.difference_coefficients([[3, 1]], 4)
    np.testing.assert_array_equal(C @ X, [X[3] - X[1]])


# --------------------------------------------------------------------------------------------------
# G- and D-optimal designs
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["newton", "mirror"])
def test_g_optimal_on_simplex_vertices_is_uniform(method):
    p = 5
    res = D.g_optimal_design(np.eye(p), method=method)
    np.testing.assert_allclose(res.weights, np.full(p, 1 / p), atol=1e-6)
    assert res.value == pytest.approx(p, rel=1e-6)
    assert res.bound <= res.value + 1e-12 and res.bound == pytest.approx(p, rel=1e-3)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kiefer_wolfowitz_equivalence(seed):
    """zeta = 0: the optimal G-value is p and the D-optimal design is G-optimal."""
    rng = np.random.default_rng(seed)
    K, p = 12, 4
    X = rng.standard_normal((K, p))
    g = D.g_optimal_design(X)
    assert g.converged
    assert g.value == pytest.approx(p, rel=1e-5)
    assert g.bound <= p + 1e-9  # certified lower bound below the optimum p
    d = D.d_optimal_design(X)
    assert d.converged and d.gap < 1e-7
    assert D.design_norms(X, d.weights, X).max() == pytest.approx(p, rel=1e-6)
    # both designs give the same (unique) information matrix
    np.testing.assert_allclose(
        D.design_matrix(X, g.weights), D.design_matrix(X, d.weights), rtol=1e-3, atol=1e-4
    )
    np.testing.assert_allclose(g.weights, d.weights, atol=1e-3)


@pytest.mark.parametrize("zeta", [0.0, 0.05, 1.0])
def test_d_optimal_newton_and_frank_wolfe_agree(zeta):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((15, 3))
    a = D.d_optimal_design(X, zeta, method="newton")
    b = D.d_optimal_design(X, zeta, method="frank-wolfe")
    assert a.converged and b.converged
    assert a.value == pytest.approx(b.value, abs=1e-7)
    _, logdet = np.linalg.slogdet(D.design_matrix(X, a.weights, zeta))
    assert a.value == pytest.approx(logdet, abs=1e-10)
    assert a.bound >= a.value and b.bound >= b.value


def test_regularised_d_design_satisfies_lemma3():
    """CoPE-KB Lemma 3: max_x ||x||^2_{A^-1} = sum_x lam_x ||x||^2_{A^-1} at the D-optimum."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((10, 6))
    res = D.d_optimal_design(X, 0.1)
    d = D.design_norms(X, res.weights, X, 0.1)
    assert d.max() == pytest.approx(res.weights @ d, abs=1e-7)


def test_max_information_gain_and_dimensions():
    rng = np.random.default_rng(5)
    Z = rng.uniform(size=(12, 2))
    gram = np.exp(-((Z[:, None] - Z[None]) ** 2).sum(-1) / (2 * 0.3**2))
    zeta = 1e-2
    ups, res = D.max_information_gain(gram, zeta)
    sq = np.sqrt(res.weights)
    _, direct = np.linalg.slogdet(np.eye(12) + sq[:, None] * gram * sq[None, :] / zeta)
    assert ups == pytest.approx(direct, abs=1e-8)
    uni = np.full(12, 1 / 12)
    _, at_uniform = np.linalg.slogdet(np.eye(12) + gram / 12 / zeta)
    assert ups >= at_uniform - 1e-12
    # d(xi, lam) and d_eff on a hand-checkable case: gram = diag(1, 1, 0.001, 0)
    G = np.diag([1.0, 1.0, 0.001, 0.0])
    w = np.full(4, 0.25)
    assert D.design_dimension(G, w, 0.01) == 2  # eigenvalues 0.25, 0.25, 0.00025, 0
    # d_eff = min{j : j * 0.01 * log 4 >= sum_{i>j} alpha_i}: j = 2 (0.0277 >= 0.00025)
    assert D.effective_dimension(G, w, 0.01) == 2
    assert D.effective_dimension(G, w, 1.0) == 1  # log 4 >= 0.25 + 0.00025
    assert D.design_dimension(gram, uni, 1e-12) <= 12


# --------------------------------------------------------------------------------------------------
# XY designs
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("zeta", [0.0, 0.2])
def test_xy_design_against_scipy(zeta):
    rng = np.random.default_rng(6)
    X = rng.standard_normal((6, 3))
    Y = D.pairwise_differences(X, D.all_pairs(6))
    res = D.xy_optimal_design(X, Y, zeta)
    assert res.converged and res.relative_gap <= 1e-6
    ref = min(
        slsqp_xy(X, Y, zeta, lam0) for lam0 in [np.full(6, 1 / 6), rng.dirichlet(np.ones(6))]
    )
    assert res.value == pytest.approx(ref, rel=1e-5)
    assert res.bound <= ref * (1 + 1e-9)
    assert D.design_norms(X, res.weights, Y, zeta).max() == pytest.approx(res.value, rel=1e-12)


def test_xy_design_against_brute_force_grid():
    """Three arms in R^2: exhaustive search over a fine simplex grid."""
    X = np.array([[1.0, 0.0], [0.0, 1.0], [0.8, 0.9]])
    Y = D.pairwise_differences(X, D.all_pairs(3))
    n = 400
    i, j = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    keep = i + j <= n
    grid = np.stack([i[keep], j[keep], n - i[keep] - j[keep]], axis=1) / n
    A = np.einsum("gk,ki,kj->gij", grid, X, X)
    ok = np.linalg.det(A) > 1e-12
    vals = np.einsum("mi,gij,mj->gm", Y, np.linalg.inv(A[ok]), Y).max(1)
    best = vals.min()
    res = D.xy_optimal_design(X, Y)
    assert res.value <= best + 1e-9
    assert res.value == pytest.approx(best, rel=1e-3)
    # and a case whose optimum is interior
    X2 = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    Y2 = np.array([[1.0, -1.0], [1.0, 2.0]])
    A2 = np.einsum("gk,ki,kj->gij", grid, X2, X2)
    ok2 = np.linalg.det(A2) > 1e-12
    best2 = np.einsum("mi,gij,mj->gm", Y2, np.linalg.inv(A2[ok2]), Y2).max(1).min()
    res2 = D.xy_optimal_design(X2, Y2)
    assert best2 - 1e-3 * best2 <= res2.value <= best2 + 1e-9


@pytest.mark.parametrize(
    "groups, expected",
    [([0, 0, 0, 0, 0], 12.0), ([0, 0, 1, 1, 1], 24.0), ([0, 1, 2, 3, 4], 60.0)],
)
def test_cope_kb_round_one_values(groups, expected):
    """CoPE-KB spec Sec. 2.1(c): rho*_1 = 12, 24, 60 for rank(K_Z) = 1, 2, 5 (global design)."""
    X = two_hot_instance(groups)
    pairs = D.within_group_pairs([np.arange(6 * v, 6 * v + 6) for v in range(5)])
    res = D.kernel_xy_optimal_design(X @ X.T, pairs, 0.0)
    assert res.value == pytest.approx(expected, rel=1e-5)
    # symmetric instance: uniform over the 30 pairs is optimal and stays exactly symmetric
    if groups in ([0] * 5, [0, 1, 2, 3, 4]):
        np.testing.assert_allclose(res.weights, np.full(30, 1 / 30), atol=1e-9)


def test_principal_dimension_of_prefixes():
    """omega(xi, prefix) of the best-first sorted two-hot arms: 4, 6, 8, 9.33, 12."""
    order = [5, 4, 2, 3, 1, 0]
    gram = TWO_HOT @ TWO_HOT.T
    for k, expected in zip(range(2, 7), [4, 6, 8, 28 / 3, 12]):
        res = D.kernel_xy_optimal_design(gram, D.all_pairs(order[:k]), 1e-6)
        assert res.value == pytest.approx(expected, rel=1e-3)


@pytest.mark.parametrize("zeta", [0.0, 1e-3, 1.0])
def test_kernel_design_equals_explicit_design(zeta):
    rng = np.random.default_rng(7)
    X = rng.standard_normal((10, 4))
    pairs = D.all_pairs([0, 2, 3, 5, 7, 8])
    explicit = D.xy_optimal_design(X, D.pairwise_differences(X, pairs), zeta)
    kernel = D.kernel_xy_optimal_design(X @ X.T, pairs, zeta)
    assert kernel.value == pytest.approx(explicit.value, rel=1e-6)
    np.testing.assert_allclose(kernel.weights, explicit.weights, atol=1e-4)
    if zeta > 0:  # Woodbury evaluation at the kernel design agrees with the reported value
        assert D.kernel_design_norms(X @ X.T, kernel.weights, pairs, zeta).max() == pytest.approx(
            kernel.value, rel=1e-8
        )
    g_exp, g_ker = D.g_optimal_design(X, zeta), D.kernel_g_optimal_design(X @ X.T, zeta)
    assert g_ker.value == pytest.approx(g_exp.value, rel=1e-6)


def test_mirror_and_rage_solvers():
    rng = np.random.default_rng(8)
    X = rng.standard_normal((12, 5))
    Y = D.pairwise_differences(X, D.all_pairs(12))
    exact = D.xy_optimal_design(X, Y, 1e-6)
    mirror = D.xy_optimal_design(X, Y, 1e-6, method="mirror")
    rage = D.xy_optimal_design(X, Y, 1e-6, method="rage")
    for res in (mirror, rage):
        assert res.value >= exact.bound - 1e-9
        assert res.bound <= exact.value + 1e-9  # every certificate is a valid lower bound
        assert res.weights.sum() == pytest.approx(1.0) and res.weights.min() >= 0
    assert mirror.value == pytest.approx(exact.value, rel=1e-2)
    assert rage.value == pytest.approx(exact.value, rel=0.1)
    assert np.all((rage.weights == 0) | (rage.weights >= 1e-5 / 1.01))


def test_singular_problem_raises_and_degenerate_cases():
    X = np.array([[1.0, 0.0], [2.0, 0.0]])
    with pytest.raises(ValueError):
        D.xy_optimal_design(X, [[0.0, 1.0]], 0.0)
    # with zeta > 0 a component outside span(X) adds the constant ||y_perp||^2 / zeta
    res = D.xy_optimal_design(X, [[0.0, 1.0]], 0.5)
    assert res.value == pytest.approx(2.0)
    empty = D.xy_optimal_design(np.eye(3), np.zeros((0, 3)))
    assert empty.value == 0 and empty.weights.sum() == pytest.approx(1)
    zero = D.xy_optimal_design(np.eye(3), np.zeros((2, 3)))
    assert zero.value == 0
    with pytest.raises(ValueError):
        D.xy_optimal_design(np.eye(3), np.eye(3), method="bogus")


def test_warm_start_and_determinism():
    rng = np.random.default_rng(9)
    X = rng.standard_normal((9, 3))
    Y = D.pairwise_differences(X, D.all_pairs(9))
    a = D.xy_optimal_design(X, Y, 0.01)
    b = D.xy_optimal_design(X, Y, 0.01)
    np.testing.assert_array_equal(a.weights, b.weights)
    c = D.xy_optimal_design(X, Y, 0.01, weights0=a.weights)
    assert c.value == pytest.approx(a.value, rel=1e-6)


def test_symmetrize_weights_keeps_design_matrix():
    X = np.vstack([TWO_HOT, TWO_HOT, TWO_HOT])
    lam = np.zeros(18)
    lam[:6] = 1 / 6  # all mass on the first copy (what Frank-Wolfe tie-breaking does)
    sym = D.symmetrize_weights(lam, X)
    np.testing.assert_allclose(sym, np.full(18, 1 / 18))
    np.testing.assert_allclose(D.design_matrix(X, sym), D.design_matrix(X, lam))


# --------------------------------------------------------------------------------------------------
# Rounding
# --------------------------------------------------------------------------------------------------


def rage_rounding_reference(design, n):
    """Independent transcription of the efficient rounding described in the spec (Sec. 2.1(d))."""
    idx = [i for i, w in enumerate(design) if w > 0]
    w = np.array([design[i] for i in idx])
    c = [int(np.ceil((n - 0.5 * len(idx)) * wi)) for wi in w]
    while sum(c) != n:
        if sum(c) < n:
            k = min(range(len(c)), key=lambda k: (c[k] / w[k], k))
            c[k] += 1
        else:
            k = max(range(len(c)), key=lambda k: ((c[k] - 1) / w[k], -k))
            c[k] -= 1
    out = np.zeros(len(design), dtype=int)
    out[idx] = c
    return out


def test_efficient_rounding_matches_reference_and_bounds():
    rng = np.random.default_rng(10)
    for _ in range(50):
        K = int(rng.integers(1, 12))
        lam = rng.dirichlet(np.full(K, 0.7))
        lam[lam < 1e-5] = 0
        lam /= lam.sum()
        n = int(rng.integers(K, 500))
        counts = D.efficient_rounding(lam, n)
        np.testing.assert_array_equal(counts, rage_rounding_reference(lam, n))
        s = int(np.sum(lam > 1e-5))
        assert np.all(counts >= np.floor((n - s) * lam - 1e-9))
        assert np.all(counts <= n * lam + 1 + 1e-9)


def test_rounding_contract_and_minimum_sample_size():
    rng = np.random.default_rng(11)
    X = rng.standard_normal((10, 4))
    Y = D.pairwise_differences(X, D.all_pairs(10))
    eps = 0.1
    for zeta in (0.0, 1e-3):
        lam = D.xy_optimal_design(X, Y, zeta).weights
        s = int(np.sum(lam > 1e-5))
        n_eff = D.min_rounding_samples(lam, eps, rule="efficient")
        assert n_eff == int(np.ceil(s * (1 + eps) / eps))
        assert D.min_rounding_samples(lam, eps, rule="rage") == 20 * s
        for n in (n_eff, 3 * n_eff):
            counts = D.efficient_rounding(lam, n)
            ratio = D.rounding_contract_ratio(X, counts, lam, Y, zeta)
            assert ratio <= n / (n - s) + 1e-9 <= 1 + eps + 1e-9
    gram = X @ X.T
    assert D.min_rounding_samples(lam, eps, rule="cope-kb", gram=gram, zeta=1e-3) == 400


def test_ceil_rounding():
    lam = np.array([0.5, 0.3, 0.2, 0.0])
    np.testing.assert_array_equal(D.ceil_rounding(lam, 10), [5, 3, 2, 0])
    counts = D.ceil_rounding(np.full(3, 1 / 3), 10)
    assert counts.sum() == 10 and set(counts) == {3, 4}
    assert np.array_equal(D.round_design(lam, 10, "ceil"), D.ceil_rounding(lam, 10))
    with pytest.raises(ValueError):
        D.round_design(lam, 10, "nope")


def test_random_rounding_is_reproducible_with_a_seeded_generator():
    lam = np.array([0.1, 0.2, 0.3, 0.4])
    a = D.sample_design(lam, 1000, np.random.default_rng(123))
    b = D.sample_design(lam, 1000, np.random.default_rng(123))
    c = D.sample_design(lam, 1000, np.random.default_rng(124))
    np.testing.assert_array_equal(a, b)
    assert a.sum() == 1000 and not np.array_equal(a, c)
    seq1 = D.counts_to_sequence(a, np.random.default_rng(5))
    seq2 = D.counts_to_sequence(a, np.random.default_rng(5))
    np.testing.assert_array_equal(seq1, seq2)
    np.testing.assert_array_equal(np.bincount(seq1, minlength=4), a)
    np.testing.assert_array_equal(D.counts_to_sequence([2, 0, 1]), [0, 0, 2])
    with pytest.raises(TypeError):
        D.sample_design(lam, 10, np.random.RandomState(0))


# --------------------------------------------------------------------------------------------------
# Property tests
# --------------------------------------------------------------------------------------------------

_settings = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_settings
@given(
    seed=st.integers(0, 2**32 - 1),
    K=st.integers(2, 7),
    p=st.integers(1, 4),
    zeta=st.sampled_from([0.0, 1e-4, 0.5]),
)
def test_xy_design_is_on_simplex_and_certified(seed, K, p, zeta):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((K, p))
    pairs = D.all_pairs(K)
    Y = D.pairwise_differences(X, pairs)
    res = D.xy_optimal_design(X, Y, zeta)
    assert np.all(res.weights >= 0) and res.weights.sum() == pytest.approx(1.0, abs=1e-12)
    assert res.value >= res.bound - 1e-12
    assert res.relative_gap <= 1e-5
    # any design is at least the certified optimum
    other = rng.dirichlet(np.ones(K))
    assert D.design_norms(X, other, Y, zeta).max() >= res.bound * (1 - 1e-9)
    # and any (design, target mixture) pair gives a lower bound below the achieved value
    w = rng.dirichlet(np.ones(len(Y)))
    assert D.xy_lower_bound(X, Y, other, w, zeta) <= res.value * (1 + 1e-9)


@_settings
@given(seed=st.integers(0, 2**32 - 1), K=st.integers(2, 8), p=st.integers(1, 4))
def test_g_value_at_least_rank(seed, K, p):
    """For zeta = 0, sum_i lam_i x_i^T A^-1 x_i = rank(X), so max_i >= rank(X), with equality at
    the G-optimum (Kiefer-Wolfowitz)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((K, p))
    r = np.linalg.matrix_rank(X)
    lam = rng.dirichlet(np.ones(K))
    assert D.design_norms(X, lam, X).max() >= r * (1 - 1e-9)
    res = D.g_optimal_design(X)
    assert res.value == pytest.approx(r, rel=1e-5)


@_settings
@given(
    weights=st.lists(st.floats(0, 1), min_size=1, max_size=12).filter(lambda w: sum(w) > 0.01),
    n=st.integers(0, 400),
    method=st.sampled_from(["efficient", "ceil"]),
)
def test_rounding_properties(weights, n, method):
    lam = np.asarray(weights) / np.sum(weights)
    counts = D.round_design(lam, n, method)
    assert counts.dtype.kind == "i" and counts.shape == lam.shape
    assert np.all(counts >= 0) and counts.sum() == n
    support = lam > 1e-5
    assert np.all(counts[~support] == 0)
    w = np.where(support, lam, 0) / lam[support].sum()
    assert np.all(np.abs(counts - n * w) <= support.sum() + 1)
    if method == "ceil":
        assert np.all(np.abs(counts - n * w) < 1 + 1e-9)


def test_exhaustive_small_rounding_is_optimal_for_g_criterion():
    """Sanity: rounding the G-optimal design of two orthogonal arms gives the best integer split."""
    X = np.eye(2)
    lam = np.array([0.5, 0.5])
    n = 11
    counts = D.efficient_rounding(lam, n)
    best = min(
        (max(1 / a, 1 / b), (a, b)) for a, b in itertools.product(range(1, n), repeat=2) if a + b == n
    )
    assert D.design_norms(X, counts, X).max() == pytest.approx(best[0])
