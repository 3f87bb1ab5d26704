"""GP / kernel-ridge posteriors, exact and sparse (layer 3).

Notation (DUETS §2.1–2.2, Async-KernelUCB §3.2; λ is the regulariser):

* Exact posterior on data ``X_m, Y_m`` (DUETS Eq. 3–4)::

      μ_m(x)  = k_{X_m}(x)ᵀ (λ I + K_{X_m X_m})⁻¹ Y_m
      σ²_m(x) = k(x, x) − k_{X_m}(x)ᵀ (λ I + K_{X_m X_m})⁻¹ k_{X_m}(x)

  This is the *GP scale*. Kernel-UCB papers (Valko et al., Async-KernelUCB Eq. 1) use
  ``σ²/λ`` instead; each algorithm says which it uses.
* Nyström features on a dictionary ``S``: ``z_S(x) = B_S k_S(x)`` with any ``B_S`` such that
  ``B_S K_SS B_Sᵀ = I`` on span(S); here ``B_S = L⁻¹`` with ``K_SS = L Lᵀ`` (Cholesky basis; an
  append-only dictionary then only *appends* coordinates, a choice of this package: Async-KernelUCB
  §3.2 uses the eigendecomposition basis). With
  ``G = Σ z zᵀ`` and ``b = Σ z y`` (DUETS Eq. 5–6, Async Eq. 2)::

      μ̃(x)    = z(x)ᵀ (λ I + G)⁻¹ b
      λ σ̃²(x) = k(x, x) − z(x)ᵀ G (λ I + G)⁻¹ z(x)
      ⇔ σ̃²(x) = (k(x, x) − ‖z(x)‖²)/λ + z(x)ᵀ (λ I + G)⁻¹ z(x)

  ``σ̃²`` is on the 1/λ scale: with ``S`` = all data, ``λ σ̃² = σ²`` and ``μ̃ = μ`` exactly.
"""
from __future__ import annotations

import numpy as np

from .kernels import Kernel
from .linalg import cholesky_jitter, solve_lower, solve_lower_rows
from .validation import check, gt, one_of

__all__ = [
    "CandidatePosterior",
    "ExactGP",
    "collapsed_posterior",
    "information_gain",
    "NystromDictionary",
    "nystrom_posterior",
    "LinearRidge",
]


class CandidatePosterior:
    """Exact GP posterior (DUETS Eq. 3–4) over a fixed finite candidate set, updated in O(n·M).

    State: with ``L Lᵀ = K_{X_n X_n} + λI`` for the ``n`` observed points, keep
    ``V = L⁻¹ K_{X_n, cand}`` (n × M), ``w = L⁻¹ y``, the mean ``μ = Vᵀ w`` and the variance
    ``σ² = diag K − colsum(V²)`` over all M candidates. Observing candidate ``i`` appends a row::

        l = V[:, i],   r² = k(x_i, x_i) + λ − ‖l‖²   (= λ + σ²(x_i))
        v_new = (k(cand, x_i) − Vᵀ l) / r,   w_new = (y − lᵀ w) / r
        μ += w_new v_new,   σ² −= v_new²,   log det(I + K/λ) += log(r²/λ)

    Repeated points are fine (λ > 0). ``fork()`` returns a child that shares this posterior's
    rows read-only and appends its own: DisKernelUCB's agents condition the last synchronised
    global posterior on their local data without copying it.
    """

    def __init__(self, kernel: Kernel, X: np.ndarray, lam: float, capacity: int = 64):
        check("lam", lam, gt(0))
        self.kernel, self.X, self.lam = kernel, np.asarray(X, dtype=float), float(lam)
        M = self.X.shape[0]
        self.kdiag = kernel.diag(self.X)
        self.mean = np.zeros(M)
        self.var = self.kdiag.copy()
        self.logdet = 0.0  # log det(I + K_{X_n X_n}/λ)
        self._base_V = np.zeros((0, M))
        self._base_w = np.zeros(0)
        self._V = np.zeros((capacity, M))
        self._w = np.zeros(capacity)
        self._n = 0

    @property
    def n(self) -> int:
        return self._base_V.shape[0] + self._n

    def column(self, i: int) -> np.ndarray:
        """``L⁻¹ k_{X_n}(x_i)`` for candidate ``i``."""
        return np.concatenate([self._base_V[:, i], self._V[: self._n, i]])

    def add(self, i: int, y: float) -> float:
        """Condition on observation ``y`` at candidate ``i``; returns σ²(x_i) before the update."""
        lb, lo = self._base_V[:, i], self._V[: self._n, i]
        s2 = max(self.var[i], 0.0)
        r2 = self.lam + s2
        r = np.sqrt(r2)
        kcol = self.kernel(self.X, self.X[i : i + 1])[:, 0]
        row = kcol - self._base_V.T @ lb - self._V[: self._n].T @ lo
        row /= r
        w_new = (y - lb @ self._base_w - lo @ self._w[: self._n]) / r
        if self._n == self._V.shape[0]:
            grow = max(16, self._n)
            self._V = np.vstack([self._V, np.zeros((grow, self._V.shape[1]))])
            self._w = np.concatenate([self._w, np.zeros(grow)])
        self._V[self._n] = row
        self._w[self._n] = w_new
        self._n += 1
        self.mean += w_new * row
        self.var -= row * row
        np.maximum(self.var, 0.0, out=self.var)
        self.logdet += np.log(r2 / self.lam)
        return s2

    def fork(self) -> "CandidatePosterior":
        """A child posterior that starts equal to this one and shares its rows read-only."""
        child = CandidatePosterior.__new__(CandidatePosterior)
        child.kernel, child.X, child.lam, child.kdiag = self.kernel, self.X, self.lam, self.kdiag
        child.mean, child.var, child.logdet = self.mean.copy(), self.var.copy(), self.logdet
        child._base_V = np.vstack([self._base_V, self._V[: self._n]]) if self._base_V.shape[0] else self._V[: self._n]
        child._base_w = np.concatenate([self._base_w, self._w[: self._n]])
        child._V = np.zeros((16, self.X.shape[0]))
        child._w = np.zeros(16)
        child._n = 0
        return child


class ExactGP:
    """Exact GP / kernel ridge posterior on arbitrary inputs, Cholesky appended incrementally.

    Keeps ``L Lᵀ = K_{X_n X_n} + λ I`` in a preallocated row-major buffer (doubling capacity)
    and ``α = L⁻¹ y``. ``predict(Xq)`` returns the DUETS Eq. 3–4 (Async-KernelUCB Eq. 1 on the
    GP scale) mean and variance::

        V = L⁻¹ K_{X_n, Xq}   (n × q),   μ = Vᵀ α,   σ² = k(x, x) − colsum(V ∘ V)

    Cost per call: one pass over the factor, O(n² q) flops in level-3 BLAS. ``V`` is computed by
    blocked forward substitution (:meth:`forward_solve`), **one GEMM per row block over all q
    query columns** against the in-place buffer (numpy's ``matmul`` hands the strided view to
    BLAS with its leading dimension, so the n × n factor is never copied) and a small triangular
    solve on the block's diagonal part, also read in place (:func:`~bandits.linalg.solve_lower_rows`:
    the BLAS call ``trtrs`` makes, with the buffer's leading dimension). This is hand-written because LAPACK's ``trtrs`` (scipy's
    ``solve_triangular``) needs a contiguous factor: on a view into the growing buffer it copies
    the whole n × n matrix every call, which made the step cost grow like t² in memory traffic
    (480 ms at t = 8000 against 8 ms for this path, one thread, q = 20; ``bandits.bench``).

    Adding a point costs O(n²) in general (``l = L⁻¹ k_X(x)``, ``r = √(k(x,x) + λ − ‖l‖²)``, the
    new row ``[lᵀ, r]`` and ``α_new = (y − lᵀα)/r``), but when ``x`` is one of the rows of the
    last :meth:`predict` call and no point has been added since, ``l`` is that call's column of
    ``V`` and the append costs O(n) (the UCB loop: predict the arms, add the chosen one).
    The result equals a direct Cholesky solve to round-off (``tests/test_estimators.py``).
    """

    block = 512  # rows per block of the forward substitution

    def __init__(self, kernel: Kernel, lam: float, dim: int, capacity: int = 64):
        check("lam", lam, gt(0))
        self.kernel, self.lam = kernel, float(lam)
        self._X = np.zeros((capacity, dim))
        self._L = np.zeros((capacity, capacity))
        self._alpha = np.zeros(capacity)
        self._y = np.zeros(capacity)
        self._n = 0
        self._last = None  # (n, Xq, V) of the last predict, for the O(n) append

    @property
    def n(self) -> int:
        return self._n

    @property
    def X(self) -> np.ndarray:
        return self._X[: self._n]

    @property
    def y(self) -> np.ndarray:
        return self._y[: self._n]

    @property
    def L(self) -> np.ndarray:
        return self._L[: self._n, : self._n]

    @property
    def alpha(self) -> np.ndarray:
        return self._alpha[: self._n]

    def _grow(self, need: int) -> None:
        cap = self._L.shape[0]
        if need <= cap:
            return
        new = max(need, 2 * cap)
        L = np.zeros((new, new))
        L[:cap, :cap] = self._L
        self._L = L
        self._X = np.vstack([self._X, np.zeros((new - cap, self._X.shape[1]))])
        self._alpha = np.concatenate([self._alpha, np.zeros(new - cap)])
        self._y = np.concatenate([self._y, np.zeros(new - cap)])

    def forward_solve(self, B: np.ndarray) -> np.ndarray:
        """``L⁻¹ B`` for ``B`` of shape (n,) or (n, q), by blocked forward substitution (level-3).

        With row blocks ``J`` of :attr:`block` rows: ``V_J = L_JJ⁻¹ (B_J − L_{J,<J} V_{<J})``."""
        n = self._n
        B = np.asarray(B, dtype=float)
        vec = B.ndim == 1
        V = np.array(B[:, None] if vec else B, dtype=float, order="C", copy=True)
        b = self.block
        for j0 in range(0, n, b):
            j1 = min(n, j0 + b)
            if j0:
                V[j0:j1] -= self._L[j0:j1, :j0] @ V[:j0]
            # the diagonal block read in place (solve_lower would copy the strided b × b block);
            # the block's right-hand sides as rows: the same trsm call, the same numbers
            V[j0:j1] = solve_lower_rows(self._L[j0:j1, j0:j1], V[j0:j1].T).T
        return V[:, 0] if vec else V

    def add(self, X: np.ndarray, y: np.ndarray) -> None:
        X = np.atleast_2d(np.asarray(X, dtype=float))
        y = np.atleast_1d(np.asarray(y, dtype=float))
        self._grow(self._n + X.shape[0])
        kd = self.kernel.diag(X)
        for i in range(X.shape[0]):
            n = self._n
            x = X[i : i + 1]
            l = self._cached_column(x[0])
            if l is None:
                l = self._solve_vec(self.kernel(self.X, x)[:, 0]) if n else np.zeros(0)
            r = np.sqrt(max(kd[i] + self.lam - l @ l, self.lam * 1e-12))
            self._set_row(n, l, r, (y[i] - l @ self.alpha) / r)
            self._X[n] = x[0]
            self._y[n] = y[i]
            self._n = n + 1
            self._last = None

    def _cached_column(self, x: np.ndarray) -> np.ndarray | None:
        """``L⁻¹ k_X(x)`` from the last :meth:`predict` if ``x`` was one of its rows and no point
        was added since (rows compared exactly, so the column is the one a new solve would give)."""
        V = self._fresh_V()
        if V is None or self._n == 0:
            return None
        hit = np.flatnonzero(np.all(self._last[1] == x, axis=1))
        return self._column(V, int(hit[0])) if len(hit) else None

    def _column(self, V, i: int) -> np.ndarray:
        return np.array(V[:, i])

    def _fresh_V(self):
        """The last :meth:`predict`'s ``V`` if no point was added since, else None."""
        return self._last[2] if self._last is not None and self._last[0] == self._n else None

    def _last_V(self):
        V = self._fresh_V()
        if V is None:
            raise RuntimeError("no prediction of the current data: call predict() after the last add()")
        return V

    def last_column(self, i: int) -> np.ndarray:
        """``L⁻¹ k_X(x_i)`` for query row ``i`` of the last :meth:`predict`: column ``i`` of its
        ``V = L⁻¹ K_{X, Xq}`` (numpy, length n), what :meth:`add` reuses for the O(n) append.
        Raises ``RuntimeError`` if a point was added since that prediction."""
        return np.asarray(self._column(self._last_V(), int(i)), dtype=float)

    def last_times(self, A: np.ndarray) -> np.ndarray:
        """``A V`` (numpy, m × q) with the last :meth:`predict`'s ``V = L⁻¹ K_{X, Xq}`` (``A``: m × n;
        on the device where ``V`` lives for :class:`TorchExactGP`). Raises ``RuntimeError`` if a point
        was added since that prediction."""
        return np.asarray(A, dtype=float) @ self._last_V()

    def _solve_vec(self, b: np.ndarray) -> np.ndarray:
        return self.forward_solve(b)

    def _set_row(self, n: int, l: np.ndarray, r: float, alpha_n: float) -> None:
        self._L[n, :n] = l
        self._L[n, n] = r
        self._alpha[n] = alpha_n

    def predict(self, Xq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        Xq = np.atleast_2d(np.asarray(Xq, dtype=float))
        kd = self.kernel.diag(Xq)
        if self.n == 0:
            return np.zeros(Xq.shape[0]), kd.copy()
        V = self.forward_solve(self.kernel(self.X, Xq))
        self._last = (self._n, Xq.copy(), V)
        mu = V.T @ self.alpha
        var = np.maximum(kd - np.einsum("ij,ij->j", V, V), 0.0)
        return mu, var


def collapsed_posterior(kernel: Kernel, Xu: np.ndarray, counts: np.ndarray, lam: float,
                        Xq: np.ndarray, ysum: np.ndarray | None = None, with_gain: bool = False):
    """Exact posterior from a multiset given as unique points with counts (DUETS Eq. 3–4;
    the collapsing is an exact rewriting of this package, not in the paper).

    With repeated rows, Eq. 3–4 equal the posterior on the unique points ``u`` with
    heteroscedastic noise ``λ / c_u`` and targets ``ȳ_u = ys_u / c_u``::

        K_uu + λ diag(1/c)  in place of  K_XX + λ I.

    Args:
        Xu: (m, d) unique points; counts: (m,) multiplicities ``c_u ≥ 1``;
        Xq: (q, d) query points; ysum: (m,) reward sums per unique point (optional).
    Returns:
        (mean or None, variance) at ``Xq``; variance on the GP scale (Eq. 4). With
        ``with_gain`` also the information gain of the multiset,
        ``γ̂ = ½ log det(I + λ⁻¹ C^{1/2} K_uu C^{1/2}) = ½ [Σ_u log(c_u/λ) + log det(K_uu + λ C⁻¹)]``,
        read off the same Cholesky factor.
    """
    counts = np.asarray(counts, dtype=float)
    kd = kernel.diag(Xq)
    if len(counts) == 0:
        out = (np.zeros(len(kd)) if ysum is not None else None), kd
        return out + (0.0,) if with_gain else out
    L = cholesky_jitter(kernel(Xu) + np.diag(lam / counts))
    V = solve_lower(L, kernel(Xu, Xq))
    var = np.maximum(kd - np.einsum("ij,ij->j", V, V), 0.0)
    mean = None
    if ysum is not None:
        mean = V.T @ solve_lower(L, np.asarray(ysum, dtype=float) / counts)
    if with_gain:
        gain = 0.5 * (float(np.sum(np.log(counts / lam))) + 2.0 * float(np.sum(np.log(np.diag(L)))))
        return mean, var, gain
    return mean, var


def information_gain(K: np.ndarray, lam: float, counts: np.ndarray | None = None) -> float:
    """``γ = ½ log det(I + λ⁻¹ K)``; for a multiset with unique Gram ``K`` and counts ``c``,
    ``½ log det(I + λ⁻¹ C^{1/2} K C^{1/2})`` (Sylvester's identity; the information gain is DUETS §2.1's
    ``γ_{X_m}``)."""
    K = np.asarray(K, dtype=float)
    if K.shape[0] == 0:
        return 0.0
    if counts is not None:
        c = np.sqrt(np.asarray(counts, dtype=float))
        K = c[:, None] * K * c[None, :]
    sign, ld = np.linalg.slogdet(np.eye(K.shape[0]) + K / lam)
    return 0.5 * float(ld)


class NystromDictionary:
    """Nyström feature map on a dictionary ``S`` in the Cholesky basis, append-only.

    ``z(x) = L⁻¹ k_S(x)`` with ``K_SS = L Lᵀ``. Appending ``x``: ``c = L⁻¹ k_S(x)`` (= z(x)),
    ``r² = k(x, x) − ‖c‖²``; if ``r² ≤ tol · k(x, x)`` the point is numerically in span(S) and is
    skipped (the span, hence μ̃ and σ̃, is unchanged; this also drops exact duplicates),
    otherwise the row ``[cᵀ, r]`` is appended to ``L``. Because the basis only grows, features
    on the old dictionary are the first coordinates of those on the new one: re-expressing
    statistics is zero-padding (in this
    basis the transformation ``T_{k(i),k}`` of Async-KernelUCB §4.1, the server's step, is
    ``[I 0]``: a choice of this package, the paper uses the eigendecomposition basis).
    """

    def __init__(self, kernel: Kernel, dim: int, tol: float = 1e-10, capacity: int = 16):
        self.kernel, self.tol = kernel, float(tol)
        # append-only storage: the factor and the points live in the leading block of buffers grown
        # geometrically, so adding points copies the m × m factor O(log m) times, not at each call
        self._L = np.zeros((capacity, capacity))
        self._P = np.zeros((capacity, dim))
        self._m = 0
        self.n_skipped = 0

    @property
    def m(self) -> int:
        return self._m

    @property
    def L(self) -> np.ndarray:
        """The lower factor of ``K_SS`` (m × m): a read-only view of the leading block of the buffer
        (rows never change once written, so a view taken earlier stays the factor of its points)."""
        v = self._L[: self._m, : self._m]
        v.flags.writeable = False
        return v

    @L.setter
    def L(self, value: np.ndarray) -> None:
        value = np.asarray(value, dtype=float)
        self._L = np.array(value, dtype=float, order="C", copy=True)
        self._m = value.shape[0]
        if self._P.shape[0] != self._m:
            P = np.zeros((self._m, self._P.shape[1]))
            k = min(self._m, self._P.shape[0])
            P[:k] = self._P[:k]
            self._P = P

    @property
    def points(self) -> np.ndarray:
        """The dictionary points ``S`` (m × d), a read-only view."""
        v = self._P[: self._m]
        v.flags.writeable = False
        return v

    @points.setter
    def points(self, value: np.ndarray) -> None:
        """Set with :attr:`L` (the factor of their kernel matrix), as ``fresh_dictionary`` does."""
        value = np.atleast_2d(np.asarray(value, dtype=float))
        self._P = np.array(value, dtype=float, order="C", copy=True)
        if self._L.shape[0] != value.shape[0]:
            self._m = min(self._m, value.shape[0])
            L = np.zeros((value.shape[0], value.shape[0]))
            L[: self._m, : self._m] = self._L[: self._m, : self._m]
            self._L = L
        self._m = value.shape[0]

    def _reserve(self, need: int) -> None:
        cap = self._L.shape[0]
        if need <= cap and need <= self._P.shape[0]:
            return
        new = max(need, 2 * cap, 16)
        L = np.zeros((new, new))
        L[: self._m, : self._m] = self._L[: self._m, : self._m]
        P = np.zeros((new, self._P.shape[1]))
        P[: self._m] = self._P[: self._m]
        self._L, self._P = L, P

    def add(self, X: np.ndarray) -> np.ndarray:
        """Append the rows of ``X`` in order; returns the boolean mask of rows kept.

        Incomplete Cholesky in the given order: with ``C = L⁻¹ K_{S,X}`` kept for every candidate
        row, accepting row j appends ``(k(x_j, X) − c_jᵀ C)/r_j`` to ``C`` and lowers every
        residual ``r²(x) = k(x,x) − ‖C[:, x]‖²`` — O(n·m) per accepted point, no per-point solve.
        The new rows of the factor are written in place into the buffer.
        """
        X = np.atleast_2d(np.asarray(X, dtype=float))
        n = X.shape[0]
        kept = np.zeros(n, dtype=bool)
        if n == 0:
            return kept
        kd = self.kernel.diag(X)
        m0 = self.m
        C = (solve_lower_rows(self._L[:m0, :m0], self.kernel(self.points, X).T).T if m0
             else np.zeros((0, n)))
        res = kd - np.einsum("ij,ij->j", C, C)
        Kxx = self.kernel(X)
        rows = np.empty((n, n))  # new rows of C = L⁻¹ K_{S,X}, one per accepted point
        k = 0
        new_L_rows = []  # [c_jᵀ (over old + new dictionary), r_j]
        for j in range(n):
            if res[j] <= self.tol * kd[j]:
                self.n_skipped += 1
                continue
            r = np.sqrt(res[j])
            c_old = C[:, j]
            c_new = rows[:k, j].copy()
            row = (Kxx[j] - c_old @ C - c_new @ rows[:k]) / r
            rows[k] = row
            k += 1
            new_L_rows.append((c_old, c_new, r))
            res = res - row * row
            res[j] = 0.0
            kept[j] = True
        if k:
            self._reserve(m0 + k)
            for i, (c_old, c_new, r) in enumerate(new_L_rows):
                self._L[m0 + i, :m0] = c_old
                self._L[m0 + i, m0 : m0 + i] = c_new
                self._L[m0 + i, m0 + i] = r
            self._P[m0 : m0 + k] = X[kept]
            self._m = m0 + k
        return kept

    def features(self, X: np.ndarray, m: int | None = None) -> np.ndarray:
        """``Z = [z(x_1), …, z(x_n)]ᵀ``, shape (n, m), C-ordered; with ``m`` (≤ |S|) the features on
        the first ``m`` dictionary points (the leading block of the factor, read in place)."""
        X = np.atleast_2d(X)
        m = self.m if m is None else int(m)
        if m == 0:
            return np.zeros((X.shape[0], 0))
        # the kernel matrix transposed (a small copy) so that its rows are the right-hand sides
        return solve_lower_rows(self._L[:m, :m], self.kernel(self._P[:m], X).T)


def nystrom_posterior(Z: np.ndarray, kdiag: np.ndarray, G: np.ndarray, b: np.ndarray | None,
                      lam: float, chol: np.ndarray | None = None):
    """Sparse posterior (DUETS Eq. 5–6) at query features ``Z`` (q × m).

    Returns ``(μ̃ or None, σ̃²)`` with ``σ̃² = (k − ‖z‖²)/λ + zᵀ(λI + G)⁻¹z`` (1/λ scale).
    ``chol`` may pass a cached lower factor of ``λI + G``.
    """
    m = G.shape[0]
    C = chol if chol is not None else cholesky_jitter(G + lam * np.eye(m))
    if m == 0:
        return (np.zeros(Z.shape[0]) if b is not None else None), kdiag / lam
    Vq = solve_lower(C, Z.T)
    s2 = np.maximum((kdiag - np.einsum("ij,ij->i", Z, Z)) / lam, 0.0) + np.einsum("ij,ij->j", Vq, Vq)
    mu = None
    if b is not None:
        mu = Vq.T @ solve_lower(C, b)
    return mu, s2


class LinearRidge:
    """Ridge regression with a Sherman–Morrison inverse: ``A = λI + Σ x xᵀ``, ``θ = A⁻¹ Σ y x``.

    ``width(X) = sqrt(xᵀ A⁻¹ x)`` is the LinUCB / OFUL confidence width.
    """

    def __init__(self, dim: int, lam: float):
        self.lam = float(lam)
        self.Ainv = np.eye(dim) / lam
        self.b = np.zeros(dim)
        self.n = 0

    def add(self, x: np.ndarray, y: float) -> None:
        Ax = self.Ainv @ x
        self.Ainv -= np.outer(Ax, Ax) / (1.0 + x @ Ax)
        self.b += y * x
        self.n += 1

    @property
    def theta(self) -> np.ndarray:
        return self.Ainv @ self.b

    def predict(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        X = np.atleast_2d(X)
        return X @ self.theta, np.einsum("ij,jk,ik->i", X, self.Ainv, X)


def resolve_device(device: str = "auto") -> str:
    """``"cpu"`` (numpy), ``"torch-cpu"``, ``"cuda"``; ``"auto"`` picks ``"cuda"`` when torch sees a
    GPU and ``"cpu"`` otherwise. Experiments resolve the device before building run configs, so it
    is part of the cache key."""
    check("device", device, one_of("auto", "cpu", "torch-cpu", "cuda"))
    if device != "auto":
        return device
    try:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    except ImportError:  # pragma: no cover
        return "cpu"


class TorchExactGP(ExactGP):
    """:class:`ExactGP` with the factor and the O(n²q) triangular solves in torch (float64), on the
    GPU when ``device="cuda"``. Kernel columns are computed in numpy and moved; the posterior is the
    same as :class:`ExactGP`'s to round-off (tested on the CPU). ``torch.linalg.solve_triangular``
    works on the factor's view in device memory (one copy of the n × n block per call at device
    bandwidth); the chosen arm's column of the last predict is reused on append, as on the CPU."""

    def __init__(self, kernel: Kernel, lam: float, dim: int, capacity: int = 64, device: str = "cuda"):
        import torch

        super().__init__(kernel, lam, dim, capacity)
        self._torch = torch
        self._dev = torch.device("cuda" if device == "cuda" else "cpu")
        self._Lt = torch.zeros((capacity, capacity), dtype=torch.float64, device=self._dev)
        self._alpha_t = torch.zeros(capacity, dtype=torch.float64, device=self._dev)

    def _grow(self, need: int) -> None:
        cap = self._Lt.shape[0]
        super()._grow(need)
        if need > cap:
            new = self._L.shape[0]
            L = self._torch.zeros((new, new), dtype=self._torch.float64, device=self._dev)
            L[:cap, :cap] = self._Lt
            self._Lt = L
            a = self._torch.zeros(new, dtype=self._torch.float64, device=self._dev)
            a[:cap] = self._alpha_t
            self._alpha_t = a

    def _solve(self, B):
        torch = self._torch
        n = self._n
        Bt = torch.as_tensor(np.ascontiguousarray(B), dtype=torch.float64, device=self._dev)
        if Bt.ndim == 1:
            Bt = Bt[:, None]
        return torch.linalg.solve_triangular(self._Lt[:n, :n], Bt, upper=False)

    def _solve_vec(self, b: np.ndarray) -> np.ndarray:
        return self._solve(b)[:, 0].cpu().numpy()

    def _column(self, V, i: int) -> np.ndarray:
        return V[:, i].cpu().numpy()

    def last_times(self, A: np.ndarray) -> np.ndarray:
        V = self._last_V()
        return (self._torch.as_tensor(np.asarray(A, dtype=float), dtype=self._torch.float64, device=V.device)
                @ V).cpu().numpy()

    def _set_row(self, n: int, l: np.ndarray, r: float, alpha_n: float) -> None:
        if n:
            self._Lt[n, :n] = self._torch.as_tensor(l, dtype=self._torch.float64, device=self._dev)
        self._Lt[n, n] = r
        self._alpha_t[n] = alpha_n

    @property
    def L(self) -> np.ndarray:
        return self._Lt[: self._n, : self._n].cpu().numpy()

    @property
    def alpha(self) -> np.ndarray:
        return self._alpha_t[: self._n].cpu().numpy()

    def predict(self, Xq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        Xq = np.atleast_2d(Xq)
        kd = self.kernel.diag(Xq)
        if self.n == 0:
            return np.zeros(Xq.shape[0]), kd.copy()
        V = self._solve(self.kernel(self.X, Xq))
        self._last = (self._n, np.array(Xq, dtype=float), V)
        mu = (V.T @ self._alpha_t[: self._n]).cpu().numpy()
        var = np.maximum(kd - (V * V).sum(0).cpu().numpy(), 0.0)
        return mu, var
