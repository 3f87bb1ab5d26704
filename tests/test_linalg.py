"""Tests for bandits.linalg: every incremental update against the direct computation."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bandits.linalg import (
    LinAlgWarning,
    chol_append,
    chol_rank1_update,
    chol_solve,
    cholesky_jitter,
    inv_append,
    logdet_chol,
    logdet_psd,
    psd_inv_sqrt,
    sherman_morrison,
    solve_lower,
)

RTOL = 1e-9
ATOL = 1e-10

seeds = st.integers(min_value=0, max_value=2**32 - 1)
PROPS = settings(max_examples=25, deadline=None)


def spd(n: int, rng: np.random.Generator, ridge: float = 0.5) -> np.ndarray:
    """A well-conditioned symmetric positive definite matrix."""
    M = rng.normal(size=(n, n))
    return M @ M.T / max(n, 1) + ridge * np.eye(n)


def bordered(n: int, k: int, rng: np.random.Generator):
    """A (n+k)×(n+k) SPD matrix split as [[A, B], [Bᵀ, C]]."""
    F = spd(n + k, rng)
    return F, F[:n, :n], F[:n, n:], F[n:, n:]


def low_rank_psd(n: int, r: int, rng: np.random.Generator) -> np.ndarray:
    X = rng.normal(size=(n, r))
    return X @ X.T


# --------------------------------------------------------------------------- cholesky_jitter
def test_cholesky_jitter_pd_matches_numpy():
    A = spd(6, np.random.default_rng(0))
    np.testing.assert_allclose(cholesky_jitter(A), np.linalg.cholesky(A), rtol=1e-12, atol=1e-14)


def test_cholesky_jitter_explicit_jitter_is_added():
    A = spd(4, np.random.default_rng(1))
    L = cholesky_jitter(A, jitter=0.3)
    np.testing.assert_allclose(L @ L.T, A + 0.3 * np.eye(4), rtol=1e-12, atol=1e-12)


def test_cholesky_jitter_empty():
    assert cholesky_jitter(np.zeros((0, 0))).shape == (0, 0)


@pytest.mark.parametrize(
    "A",
    [
        np.ones((3, 3)),  # rank 1, plain Cholesky hits an exact zero pivot
        np.zeros((4, 4)),  # mean diagonal 0: the jitter scale falls back to 1
        low_rank_psd(8, 3, np.random.default_rng(2)),
        100.0 * low_rank_psd(6, 2, np.random.default_rng(3)),
    ],
    ids=["ones", "zeros", "rank3", "rank2-scaled"],
)
def test_cholesky_jitter_singular_psd(A):
    n = A.shape[0]
    scale = float(np.mean(np.diag(A))) or 1.0
    L = cholesky_jitter(A)
    assert np.allclose(L, np.tril(L))
    R = L @ L.T - A
    j = float(np.mean(np.diag(R)))  # the jitter that was added
    # the jitter is small: at most the last try, 1e-12 · 10^7 · mean(diag A)
    assert -1e-12 * scale <= j <= 1e-5 * scale
    # and L reproduces A up to exactly that jitter on the diagonal
    np.testing.assert_allclose(R, j * np.eye(n), atol=1e-10 * scale + 10 * abs(j))
    np.testing.assert_allclose(L @ L.T, A, atol=max(10 * j, 1e-10 * scale))


def test_cholesky_jitter_indefinite_raises():
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        cholesky_jitter(np.diag([1.0, -1.0]))


def test_cholesky_jitter_warns_when_jitter_needed():
    with pytest.warns(LinAlgWarning):
        cholesky_jitter(np.ones((3, 3)))


def test_cholesky_jitter_no_warning_when_not_needed():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cholesky_jitter(spd(3, np.random.default_rng(4)))


# --------------------------------------------------------------------------- solves
@PROPS
@given(n=st.integers(1, 7), k=st.integers(1, 3), seed=seeds)
def test_chol_solve_and_solve_lower(n, k, seed):
    rng = np.random.default_rng(seed)
    A = spd(n, rng)
    L = np.linalg.cholesky(A)
    B = rng.normal(size=(n, k))
    np.testing.assert_allclose(solve_lower(L, B), np.linalg.solve(L, B), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(chol_solve(L, B), np.linalg.solve(A, B), rtol=RTOL, atol=ATOL)
    b = B[:, 0]
    x = chol_solve(L, b)
    assert x.shape == (n,)
    np.testing.assert_allclose(A @ x, b, rtol=RTOL, atol=ATOL)


def test_solve_lower_empty():
    assert solve_lower(np.zeros((0, 0)), np.zeros((0, 3))).shape == (0, 3)
    assert solve_lower(np.zeros((0, 0)), np.zeros(0)).shape == (0,)


# --------------------------------------------------------------------------- chol_append
@PROPS
@given(n=st.integers(0, 7), k=st.integers(1, 4), seed=seeds)
def test_chol_append_block_matches_cholesky(n, k, seed):
    rng = np.random.default_rng(seed)
    F, A, B, C = bordered(n, k, rng)
    L = np.linalg.cholesky(A) if n else np.zeros((0, 0))
    Lp = chol_append(L, B, C)
    assert Lp.shape == (n + k, n + k)
    np.testing.assert_allclose(Lp, np.linalg.cholesky(F), rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(Lp[:n, :n], L)  # the old factor is kept verbatim


@PROPS
@given(n=st.integers(0, 7), seed=seeds)
def test_chol_append_vector_border(n, seed):
    rng = np.random.default_rng(seed)
    F, A, B, C = bordered(n, 1, rng)
    L = np.linalg.cholesky(A) if n else np.zeros((0, 0))
    Lp = chol_append(L, B[:, 0], float(C[0, 0]))  # (n,) border, scalar corner
    np.testing.assert_allclose(Lp, np.linalg.cholesky(F), rtol=RTOL, atol=ATOL)


def test_chol_append_repeated_grows_to_full_factor():
    rng = np.random.default_rng(5)
    F = spd(9, rng)
    L = np.zeros((0, 0))
    for lo, hi in [(0, 1), (1, 4), (4, 5), (5, 9)]:
        L = chol_append(L, F[:lo, lo:hi], F[lo:hi, lo:hi])
    np.testing.assert_allclose(L, np.linalg.cholesky(F), rtol=RTOL, atol=ATOL)


def test_chol_append_not_pd_raises():
    A = np.eye(2)
    with pytest.raises(np.linalg.LinAlgError):
        chol_append(np.linalg.cholesky(A), np.array([1.0, 1.0]), 1.0)  # Schur complement −1


def test_chol_append_min_pivot_floors_schur_complement():
    L = np.linalg.cholesky(np.eye(2))
    Lp = chol_append(L, np.array([1.0, 0.0]), 1.0, min_pivot=1e-12)  # Schur complement 0
    assert Lp[2, 2] == pytest.approx(1e-6)


# --------------------------------------------------------------------------- rank-one update
@PROPS
@given(n=st.integers(1, 8), seed=seeds)
def test_chol_rank1_update_matches_cholesky(n, seed):
    rng = np.random.default_rng(seed)
    A = spd(n, rng)
    x = rng.normal(size=n)
    L = np.linalg.cholesky(A)
    L0 = L.copy()
    x0 = x.copy()
    Lu = chol_rank1_update(L, x)
    np.testing.assert_allclose(Lu, np.linalg.cholesky(A + np.outer(x, x)), rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(L, L0)  # inputs untouched
    np.testing.assert_array_equal(x, x0)


@PROPS
@given(n=st.integers(1, 8), seed=seeds)
def test_chol_rank1_downdate_matches_cholesky(n, seed):
    rng = np.random.default_rng(seed)
    M = spd(n, rng)  # M = A − x xᵀ is positive definite by construction
    x = rng.normal(size=n)
    A = M + np.outer(x, x)
    Ld = chol_rank1_update(np.linalg.cholesky(A), x, sign=-1.0)
    np.testing.assert_allclose(Ld, np.linalg.cholesky(M), rtol=1e-8, atol=1e-9)


def test_chol_rank1_update_then_downdate_roundtrip():
    rng = np.random.default_rng(6)
    A = spd(6, rng)
    L = np.linalg.cholesky(A)
    x = rng.normal(size=6)
    back = chol_rank1_update(chol_rank1_update(L, x), x, sign=-1.0)
    np.testing.assert_allclose(back, L, rtol=1e-9, atol=1e-10)


def test_chol_rank1_downdate_indefinite_raises():
    A = np.eye(3)
    with pytest.raises(np.linalg.LinAlgError, match="indefinite"):
        chol_rank1_update(np.linalg.cholesky(A), np.array([0.0, 2.0, 0.0]), sign=-1.0)
    with pytest.raises(np.linalg.LinAlgError):  # exactly singular is not positive definite
        chol_rank1_update(np.linalg.cholesky(A), np.array([1.0, 0.0, 0.0]), sign=-1.0)


# --------------------------------------------------------------------------- inverses
@PROPS
@given(n=st.integers(0, 7), k=st.integers(1, 4), seed=seeds)
def test_inv_append_matches_inverse(n, k, seed):
    rng = np.random.default_rng(seed)
    F, A, B, C = bordered(n, k, rng)
    Ainv = np.linalg.inv(A) if n else np.zeros((0, 0))
    out = inv_append(Ainv, B, C)
    np.testing.assert_allclose(out, np.linalg.inv(F), rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(out, out.T, atol=1e-12)


def test_inv_append_vector_border():
    rng = np.random.default_rng(7)
    F, A, B, C = bordered(5, 1, rng)
    out = inv_append(np.linalg.inv(A), B[:, 0], float(C[0, 0]))
    np.testing.assert_allclose(out, np.linalg.inv(F), rtol=1e-9, atol=1e-10)


@PROPS
@given(n=st.integers(1, 7), seed=seeds)
def test_sherman_morrison_symmetric(n, seed):
    rng = np.random.default_rng(seed)
    A = spd(n, rng)
    u = rng.normal(size=n)
    out = sherman_morrison(np.linalg.inv(A), u)
    np.testing.assert_allclose(out, np.linalg.inv(A + np.outer(u, u)), rtol=1e-8, atol=1e-9)


@PROPS
@given(n=st.integers(1, 7), seed=seeds)
def test_sherman_morrison_general(n, seed):
    rng = np.random.default_rng(seed)
    A = spd(n, rng, ridge=1.0)
    u = rng.normal(size=n)
    v = 0.3 * rng.normal(size=n)
    target = A + np.outer(u, v)
    if abs(1.0 + v @ np.linalg.solve(A, u)) < 1e-2:  # nearly singular update: skip
        return
    out = sherman_morrison(np.linalg.inv(A), u, v)
    np.testing.assert_allclose(out, np.linalg.inv(target), rtol=1e-7, atol=1e-8)


def test_sherman_morrison_u_ne_v_fixed():
    A = np.diag([2.0, 3.0, 4.0])
    u = np.array([1.0, 0.0, 2.0])
    v = np.array([0.0, 1.0, -1.0])
    out = sherman_morrison(np.linalg.inv(A), u, v)
    np.testing.assert_allclose(out, np.linalg.inv(A + np.outer(u, v)), rtol=1e-12, atol=1e-14)
    assert not np.allclose(out, out.T)  # genuinely non-symmetric case


# --------------------------------------------------------------------------- log-determinants
@PROPS
@given(n=st.integers(1, 8), seed=seeds)
def test_logdet_psd_and_chol_match_slogdet(n, seed):
    rng = np.random.default_rng(seed)
    A = spd(n, rng)
    ref = np.linalg.slogdet(A)[1]
    assert logdet_psd(A) == pytest.approx(ref, rel=1e-12, abs=1e-12)
    assert logdet_chol(np.linalg.cholesky(A)) == pytest.approx(ref, rel=1e-10, abs=1e-10)
    assert isinstance(logdet_psd(A), float) and isinstance(logdet_chol(np.linalg.cholesky(A)), float)


def test_logdet_known_value():
    A = np.diag([1.0, 2.0, 4.0])
    assert logdet_psd(A) == pytest.approx(np.log(8.0))
    assert logdet_chol(np.sqrt(A)) == pytest.approx(np.log(8.0))


@pytest.mark.parametrize("A", [np.diag([1.0, -1.0]), np.diag([1.0, 0.0]), np.array([[1.0, 2.0], [2.0, 1.0]])],
                         ids=["det<0", "singular", "indefinite-sym"])
def test_logdet_psd_raises_det_nonpositive(A):
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        logdet_psd(A)


@pytest.mark.parametrize("A", [-np.eye(2), np.diag([2.0, -1.0, -3.0])], ids=["-I2", "two-negative"])
def test_logdet_psd_raises_even_number_of_negative_eigenvalues(A):
    with pytest.raises(np.linalg.LinAlgError):
        logdet_psd(A)


# --------------------------------------------------------------------------- psd_inv_sqrt
@PROPS
@given(n=st.integers(1, 7), seed=seeds)
def test_psd_inv_sqrt_well_conditioned_is_inverse_sqrt(n, seed):
    rng = np.random.default_rng(seed)
    K = spd(n, rng)
    W = psd_inv_sqrt(K)
    np.testing.assert_allclose(W, W.T, atol=1e-12)
    np.testing.assert_allclose(W @ K @ W, np.eye(n), atol=1e-9)
    np.testing.assert_allclose(W @ W, np.linalg.inv(K), rtol=1e-8, atol=1e-9)
    assert np.linalg.eigvalsh(W).min() > 0  # the principal (PD) root
    # the unique PD square root of K^{-1}, computed independently
    w, U = np.linalg.eigh(K)
    np.testing.assert_allclose(W, (U / np.sqrt(w)) @ U.T, rtol=1e-8, atol=1e-9)


@PROPS
@given(n=st.integers(2, 8), data=st.data(), seed=seeds)
def test_psd_inv_sqrt_low_rank_gives_projector(n, data, seed):
    r = data.draw(st.integers(1, n - 1))
    rng = np.random.default_rng(seed)
    K = low_rank_psd(n, r, rng)
    W = psd_inv_sqrt(K)
    np.testing.assert_allclose(W, W.T, atol=1e-10)
    P = W @ K @ W
    np.testing.assert_allclose(P, P.T, atol=1e-8)
    np.testing.assert_allclose(P @ P, P, atol=1e-8)
    assert np.trace(P) == pytest.approx(r, abs=1e-8)
    # P projects onto range(K): P K = K and the complement is annihilated
    np.testing.assert_allclose(P @ K, K, atol=1e-8 * max(1.0, np.abs(K).max()))
    np.testing.assert_allclose(P, K @ np.linalg.pinv(K, hermitian=True), atol=1e-7)
    # W W = K⁺ on the retained space
    np.testing.assert_allclose(W @ W, np.linalg.pinv(K, rcond=1e-10, hermitian=True), rtol=1e-6, atol=1e-6)


def test_psd_inv_sqrt_drops_small_eigenvalues():
    U = np.linalg.qr(np.random.default_rng(8).normal(size=(4, 4)))[0]
    K = (U * np.array([1.0, 0.5, 1e-13, 0.0])) @ U.T
    W = psd_inv_sqrt(K)
    P = W @ K @ W
    assert np.trace(P) == pytest.approx(2.0, abs=1e-9)
    np.testing.assert_allclose(P, U[:, :2] @ U[:, :2].T, atol=1e-9)


def test_psd_inv_sqrt_zero_matrix():
    np.testing.assert_array_equal(psd_inv_sqrt(np.zeros((3, 3))), np.zeros((3, 3)))


# ------------------------------------------------------------------------------ solve_lower_rows
@pytest.mark.parametrize("n", [1, 2, 3, 20, 41])
@pytest.mark.parametrize("m", [1, 2, 7, 33, 130, 301])
def test_solve_lower_rows_bit_identical_to_solve_lower_on_views(m, n):
    """The rows solve on the leading block of a larger row-major buffer gives solve_lower's numbers
    on the contiguous factor, bit for bit (one and several right-hand sides)."""
    from bandits.linalg import solve_lower_rows

    rng = np.random.default_rng(m * 100 + n)
    M = m + 37
    A = rng.normal(size=(M, M))
    A = A @ A.T / M + np.eye(M)
    buf = np.zeros((M + 11, M + 11))
    buf[:M, :M] = np.linalg.cholesky(A)
    Lc = np.ascontiguousarray(buf[:m, :m])
    R = rng.normal(size=(n, m))
    ref = solve_lower(Lc, R.T).T
    for L in (buf[:m, :m], Lc):
        got = solve_lower_rows(L, R)
        assert got is not R
        assert got.flags.c_contiguous and got.shape == (n, m)
        np.testing.assert_array_equal(got, ref)
    R2 = R.copy()
    out = solve_lower_rows(buf[:m, :m], R2, overwrite=True)
    assert out is R2
    np.testing.assert_array_equal(R2, ref)
    np.testing.assert_allclose(Lc @ ref.T, R.T, rtol=1e-9, atol=1e-9)


def test_solve_lower_rows_edge_cases():
    from bandits.linalg import solve_lower_rows

    assert solve_lower_rows(np.zeros((0, 0)), np.zeros((3, 0))).shape == (3, 0)
    assert solve_lower_rows(np.eye(4), np.zeros((0, 4))).shape == (0, 4)
    L = np.tril(np.ones((4, 4))) + np.eye(4)
    B = np.arange(8.0).reshape(2, 4)
    # a column-major factor (not read in place) falls back to solve_lower: same result
    np.testing.assert_array_equal(solve_lower_rows(np.asfortranarray(L), B), solve_lower(L, B.T).T)
    with pytest.raises(ValueError):
        solve_lower_rows(L, np.zeros((2, 3)))
    Ls = L.copy()
    Ls[2, 2] = 0.0
    with pytest.raises(np.linalg.LinAlgError):
        solve_lower_rows(Ls, B)
