"""Dense linear algebra with incremental updates (layer 1).

Everything is float64. Each update has a test against the direct computation in
``tests/test_linalg.py``.

Conventions
-----------
* ``L`` is always a *lower* triangular Cholesky factor, ``A = L Lᵀ``.
* "append" means the matrix grows by new rows/columns (a new data point enters a Gram
  matrix); "rank-one update" means ``A ← A ± x xᵀ`` at fixed size.
"""
from __future__ import annotations

import ctypes
import warnings

import numpy as np
from scipy.linalg import solve_triangular

__all__ = [
    "LinAlgWarning",
    "cholesky_jitter",
    "chol_append",
    "chol_rank1_update",
    "inv_append",
    "sherman_morrison",
    "logdet_psd",
    "logdet_chol",
    "psd_inv_sqrt",
    "solve_lower",
    "solve_lower_rows",
    "chol_solve",
]


class LinAlgWarning(RuntimeWarning):
    """Raised (as a warning) when jitter had to be added to factor a matrix."""


def cholesky_jitter(A: np.ndarray, jitter: float = 0.0, max_tries: int = 8) -> np.ndarray:
    """Lower Cholesky factor of a symmetric PSD matrix, adding diagonal jitter if needed.

    Tries ``A + j I`` with ``j = jitter`` first, then ``j = 10^k · 1e-12 · mean(diag A)`` for
    ``k = 0..max_tries-1`` until the factorisation succeeds.

    Args:
        A: (n, n) symmetric positive (semi-)definite matrix.
        jitter: diagonal term added on the first try.
    Returns:
        L: (n, n) lower triangular with ``L Lᵀ = A + j I``.
    """
    A = np.asarray(A, dtype=float)
    n = A.shape[0]
    if n == 0:
        return np.zeros((0, 0))
    scale = float(np.mean(np.diag(A))) if n else 1.0
    scale = scale if scale > 0 else 1.0
    tries = [jitter] + [jitter + scale * 1e-12 * 10.0**k for k in range(max_tries)]
    for j in tries:
        try:
            L = np.linalg.cholesky(A + j * np.eye(n) if j else A)
        except np.linalg.LinAlgError:
            continue
        if j > jitter:
            warnings.warn(f"added jitter {j:.3g} to factor a {n}x{n} matrix", LinAlgWarning, stacklevel=2)
        return L
    raise np.linalg.LinAlgError(
        f"matrix of size {n} is not positive definite even with jitter {tries[-1]:.3g}; "
        "check the kernel parameters and the regulariser lambda"
    )


def solve_lower(L: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Solve ``L X = B`` for lower-triangular ``L`` (B may be a vector or a matrix)."""
    if L.shape[0] == 0:
        return np.zeros((0,) + np.shape(B)[1:])
    return solve_triangular(L, B, lower=True, check_finite=False)


def _blas_routine(name: str, *argtypes):
    """The double-precision BLAS routine ``name`` of the library scipy's LAPACK uses (exported by
    ``scipy.linalg.cython_blas``), as a ctypes function; ``None`` if it cannot be had."""
    try:
        import scipy.linalg.cython_blas as cython_blas

        capsule = cython_blas.__pyx_capi__[name]
        get_name = ctypes.pythonapi.PyCapsule_GetName
        get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
        get_ptr = ctypes.pythonapi.PyCapsule_GetPointer
        get_ptr.restype, get_ptr.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
        ptr = get_ptr(capsule, get_name(capsule))
    except Exception:  # pragma: no cover - a scipy without cython_blas
        return None
    return ctypes.CFUNCTYPE(None, *argtypes)(ptr) if ptr else None


_CHR, _INT, _DBL, _PTR = ctypes.c_char_p, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_double), ctypes.c_void_p
_DTRSM = _blas_routine("dtrsm", _CHR, _CHR, _CHR, _CHR, _INT, _INT, _DBL, _PTR, _INT, _PTR, _INT)
_DTRSV = _blas_routine("dtrsv", _CHR, _CHR, _CHR, _INT, _PTR, _INT, _PTR, _INT)


def solve_lower_rows(L: np.ndarray, R: np.ndarray, overwrite: bool = False) -> np.ndarray:
    """Rows ``x_i = L⁻¹ r_i`` of ``X = R L⁻ᵀ`` (R: n × m, L: m × m lower), i.e. ``solve_lower(L, Rᵀ)ᵀ``
    with the same numbers to the last bit, without copying ``L``.

    ``L`` may be a view into a larger row-major buffer (its leading block, rows of stride ``ld``):
    BLAS reads it in place with leading dimension ``ld``, where :func:`solve_lower` (LAPACK ``trtrs``
    through f2py) copies a non-contiguous factor whole. The call is the one ``trtrs`` makes for a
    row-major lower factor (the column-major upper ``Lᵀ``, transposed): ``dtrsm`` for several
    right-hand sides, ``dtrsv`` for one (OpenBLAS's ``trtrs`` takes that path for one right-hand
    side). ``R`` (C-ordered n × m) is, read column-major, the m × n right-hand side ``Rᵀ``; the result
    is written into a C-ordered copy of ``R`` (into ``R`` itself with ``overwrite``, if it is a
    C-contiguous float64 array) and returned. Falls back to :func:`solve_lower` for other layouts.
    """
    R = np.asarray(R)
    m = L.shape[0]
    if R.ndim != 2 or R.shape[1] != m or L.shape != (m, m):
        raise ValueError(f"solve_lower_rows: L {L.shape} and R {R.shape} do not fit (R must be n × m)")
    X = R if (overwrite and R.dtype == np.float64 and R.flags.c_contiguous and R.flags.writeable) \
        else np.array(R, dtype=float, order="C", copy=True)
    n = X.shape[0]
    if m == 0 or n == 0:
        return X
    ok = (_DTRSM is not None and L.dtype == np.float64 and L.strides[1] == 8 and L.strides[0] % 8 == 0
          and L.strides[0] >= 8 * m)
    if not ok:
        X[...] = solve_lower(L, X.T).T
        return X
    if not L.diagonal().all():  # trtrs refuses an exactly singular factor; so does this
        raise np.linalg.LinAlgError("singular matrix: a zero on the diagonal of the triangular factor")
    byref, c_int = ctypes.byref, ctypes.c_int
    ld = c_int(L.strides[0] // 8)
    if n == 1:
        _DTRSV(b"U", b"T", b"N", byref(c_int(m)), L.ctypes.data, byref(ld), X.ctypes.data, byref(c_int(1)))
    else:
        _DTRSM(b"L", b"U", b"T", b"N", byref(c_int(m)), byref(c_int(n)), byref(ctypes.c_double(1.0)),
               L.ctypes.data, byref(ld), X.ctypes.data, byref(c_int(m)))
    return X


def chol_solve(L: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Solve ``(L Lᵀ) X = B`` given the lower Cholesky factor ``L``."""
    Y = solve_lower(L, B)
    return solve_triangular(L.T, Y, lower=False, check_finite=False)


def chol_append(L: np.ndarray, B: np.ndarray, C: np.ndarray, min_pivot: float = 0.0) -> np.ndarray:
    """Cholesky factor of a bordered matrix (block Schur update).

    For ``A = L Lᵀ`` (n×n), returns the lower factor of ``[[A, B], [Bᵀ, C]]``::

        L' = [[L, 0], [Pᵀ, S]],  P = L⁻¹ B,  S Sᵀ = C − Pᵀ P   (Schur complement)

    Cost O(n² k + n k² + k³) instead of O((n+k)³).

    Args:
        L: (n, n) lower factor of A.
        B: (n, k) or (n,) new off-diagonal block.
        C: (k, k) or scalar new diagonal block.
        min_pivot: the Schur complement is floored at this value on its diagonal when
            ``k == 1`` (protects against round-off for nearly dependent points).
    """
    B = np.asarray(B, dtype=float)
    if B.ndim == 1:
        B = B[:, None]
    C = np.atleast_2d(np.asarray(C, dtype=float))
    n, k = B.shape
    P = solve_lower(L, B) if n else np.zeros((0, k))
    Sc = C - P.T @ P
    if k == 1:
        S = np.sqrt(np.maximum(Sc, min_pivot))
        if not np.all(np.isfinite(S)) or S[0, 0] <= 0:
            raise np.linalg.LinAlgError("bordered matrix is not positive definite")
    else:
        S = cholesky_jitter(0.5 * (Sc + Sc.T))
    out = np.zeros((n + k, n + k))
    out[:n, :n] = L
    out[n:, :n] = P.T
    out[n:, n:] = S
    return out


def chol_rank1_update(L: np.ndarray, x: np.ndarray, sign: float = 1.0) -> np.ndarray:
    """Cholesky factor of ``A + sign · x xᵀ`` from the factor of ``A`` in O(n²).

    The classical hyperbolic/Givens recurrence (Golub & Van Loan §6.5.4). A downdate
    (``sign = -1``) raises if the result is not positive definite.
    """
    L = np.array(L, dtype=float, copy=True)
    x = np.array(x, dtype=float, copy=True)
    n = x.shape[0]
    for k in range(n):
        r2 = L[k, k] ** 2 + sign * x[k] ** 2
        if r2 <= 0:
            raise np.linalg.LinAlgError("rank-one downdate makes the matrix indefinite")
        r = np.sqrt(r2)
        c, s = r / L[k, k], x[k] / L[k, k]
        L[k, k] = r
        if k + 1 < n:
            L[k + 1:, k] = (L[k + 1:, k] + sign * s * x[k + 1:]) / c
            x[k + 1:] = c * x[k + 1:] - s * L[k + 1:, k]
    return L


def inv_append(Ainv: np.ndarray, B: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Inverse of the bordered matrix ``[[A, B], [Bᵀ, C]]`` from ``A⁻¹`` (block Schur).

    With ``S = C − Bᵀ A⁻¹ B``::

        [[A⁻¹ + A⁻¹B S⁻¹ BᵀA⁻¹, −A⁻¹B S⁻¹], [−S⁻¹BᵀA⁻¹, S⁻¹]]
    """
    B = np.asarray(B, dtype=float)
    if B.ndim == 1:
        B = B[:, None]
    C = np.atleast_2d(np.asarray(C, dtype=float))
    n, k = B.shape
    AiB = Ainv @ B
    S = C - B.T @ AiB
    Si = np.linalg.inv(S)
    out = np.empty((n + k, n + k))
    out[:n, :n] = Ainv + AiB @ Si @ AiB.T
    out[:n, n:] = -AiB @ Si
    out[n:, :n] = out[:n, n:].T
    out[n:, n:] = Si
    return out


def sherman_morrison(Ainv: np.ndarray, u: np.ndarray, v: np.ndarray | None = None) -> np.ndarray:
    """``(A + u vᵀ)⁻¹ = A⁻¹ − A⁻¹u vᵀA⁻¹ / (1 + vᵀA⁻¹u)`` (``v = u`` by default)."""
    u = np.asarray(u, dtype=float)
    v = u if v is None else np.asarray(v, dtype=float)
    Au = Ainv @ u
    vA = v @ Ainv
    return Ainv - np.outer(Au, vA) / (1.0 + v @ Au)


def logdet_psd(A: np.ndarray) -> float:
    """``log det A`` of a positive-definite matrix via its Cholesky factor (``2 Σ log L_ii``);
    raises ``LinAlgError`` if A is not positive definite (a positive determinant is not enough)."""
    try:
        L = np.linalg.cholesky(np.asarray(A, dtype=float))
    except np.linalg.LinAlgError:
        raise np.linalg.LinAlgError("log-determinant of a matrix that is not positive definite") from None
    return logdet_chol(L)


def logdet_chol(L: np.ndarray) -> float:
    """``log det(L Lᵀ) = 2 Σ log L_ii``."""
    return float(2.0 * np.sum(np.log(np.diag(L))))


def psd_inv_sqrt(K: np.ndarray, rtol: float = 1e-10) -> np.ndarray:
    """Symmetric pseudo-inverse square root ``W = U_r diag(w_r^{-1/2}) U_rᵀ`` via ``eigh``.

    Eigenvalues below ``rtol · max(w)`` are dropped, so ``W K W = P`` (the projector on the
    retained eigenspace) and ``Wᵀ W = K⁺`` on that space.
    """
    w, U = np.linalg.eigh(0.5 * (K + K.T))
    keep = w > rtol * max(float(w.max(initial=0.0)), 0.0)
    Ur = U[:, keep]
    return (Ur / np.sqrt(w[keep])) @ Ur.T
