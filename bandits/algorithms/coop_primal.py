r"""Coop-KernelUCB's primal solver (Dubey & Pentland, ICML 2020, Eq. 9 in feature form).

A mixin of :class:`~bandits.algorithms.coop_engine.NetworkKernelUCB` (it reads the engine's settings,
its factor ``L`` of ``K̂_z`` from :mod:`bandits.algorithms.coop_kz` and its statistics):

* ``path="primal"`` (default; a choice of this package, exact when nothing is truncated): factor ``W_A = K̂_z[A,A] ≈ L Lᵀ`` (eigendecomposition,
  eigenvalues below ``rank_tol · max`` dropped, at most ``r_max`` kept, but raised until
  ``‖L_v‖² ≥ min_var · W[v,v]`` — the safeguard against a truncation that merges agent groups
  and silently shrinks the agent's prior variance — up to ``r_limit``); features
  ``ψ(u,x) = L_u ⊗ φ(x)`` with ``φ`` the identity (linear ``K_x``) or random Fourier features
  ``φ(x) = √(2/D) cos(Ωᵀx + b)``, ``Ω ~ N(0, ℓ⁻²I)``, ``b ~ U[0, 2π]`` (RBF ``K_x``)::

      A_p = λI + Σ_{u∈A} (L_u L_uᵀ) ⊗ M_u(t − τ(u,v)),   b_p = Σ_u L_u ⊗ b_u(t − τ(u,v))
      μ(x) = ψ(v,x)ᵀ A_p⁻¹ b_p,   σ²(x) = λ ψ(v,x)ᵀ A_p⁻¹ ψ(v,x),   ½ log det(A_p/λ) = γ̂

  with per-source cumulative statistics ``M_u = Σ φφᵀ``, ``b_u = Σ yφ`` read from a ring buffer
  (:class:`bandits.network.CumulativeStatsBuffer`). Agents are batched by rank: for the agents
  of one rank ``r`` a GEMM over each model's own (delay level, source) columns
  (:meth:`PrimalSolver._packed_build`) gives the distinct blocks ``Σ_u L_ua L_ub M_u`` (``a ≤ b``) on the packed
  upper triangles of the symmetric ``M_u`` — a quarter of the flops of the full ``r²·D²`` product —,
  one gather lays them out as the ``(n, p, p)`` stack, and LAPACK ``potrf``/``trtrs`` factor and
  solve each system in place. Chunks bound the memory (``chunk``; 1 = the per-agent loop, used by
  the tests to check the batching). Measured (ER(200, 0.7), γ = 1, one core, CPU time per
  agent-round of Eager): linear ``r = 10`` 0.80 → 0.49 ms, RBF ``r = 4``, ``D = 128`` 8.9 → ~4 ms
  (``bandits.bench``, entries ``coop_kernel_ucb*``). Every agent's arms go through ``φ`` in one call
  and the models of a chunk are scored together (one triangular solve per model over its members'
  arms, the UCB of all agents in one step). With ``r_limit`` the factor of ``K̂_z`` needs only the
  ``r_limit`` largest eigenpairs (LAPACK ``dsyevr``, :func:`bandits.algorithms.coop_kz._top_eigh`). Together, with 32 Nyström
  features (RBF row, ER(200, 0.7), T = 100, CPU seconds on a shared 2-core machine): Eager
  13.7–15.6 → 9.0–10.5 s, IGP-UCB and Naive Cooperation about 4× less (the cost model below).

Shared models (``share_models=True``, a choice of this package): agents with identical ``(Accept_v, τ(·, v))``
— e.g. the members of one clique under Coop-KernelUCB when γ = 1 (Erdős–Rényi panels), or every agent
of a complete graph — see the same observations with the same delays and estimate the same ``K̂_z``,
so they hold the same model; it is factored and solved once per group and each member scores its own
arms at its own row. Equal to the per-agent computation to round-off (tests) except that, with the
``‖L_v‖²`` safeguard, the group's rank is the largest any member needs (each member's model is then at
least as exact as its own would be).

Dual while smaller (``dual_when_smaller=True``): the primal model with factor ``L`` *is* kernel ridge
regression with the truncated network kernel ``W̃ = L Lᵀ``; while an agent has fewer visible
observations ``n`` than features ``r·D`` (the first rounds, when the MMD estimate is noisy and the
safeguard asks for large ``r``) its model is computed in that dual form (``n × n`` Cholesky instead of
``r·D × r·D``); same posterior and ``log det`` (Sylvester) to round-off.

Models are rebuilt from the cumulative statistics (:meth:`PrimalSolver._primal`) or updated from last
round's factor (:meth:`PrimalSolver._update`, LAPACK ``tpqrt``) whichever the cost model expects cheaper;
both give the same model to round-off.
"""
from __future__ import annotations

import numpy as np
from scipy.linalg.lapack import dpotrf as _dpotrf
from scipy.linalg.lapack import dtpqrt as _dtpqrt
from scipy.linalg.lapack import dtrtrs as _dtrtrs

__all__ = ["PrimalSolver"]


def _lower_solve(Lc: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``Lc⁻¹ B`` for a C-ordered lower-triangular ``Lc`` (p, p) through LAPACK ``trtrs`` on its
    Fortran view ``Lcᵀ`` (upper, transposed): no copy of the factor, no input validation
    (scipy's ``solve_triangular`` costs ~2× more per call on the small systems of the linear row)."""
    x, info = _dtrtrs(Lc.T, B, lower=0, trans=1)
    if info != 0:
        raise np.linalg.LinAlgError(f"singular triangular factor (trtrs info {info})")
    return x


def _pair_products(Ld: np.ndarray, Lb: np.ndarray, out: np.ndarray) -> np.ndarray:
    """``out[:, pair(a, b), :] = Ld[:, a, :] * Lb[:, b, :]`` for every ``a ≤ b`` in ``np.triu_indices(r)``
    order, i.e. ``Ld[:, ia, :] * Lb[:, ib, :]`` with the same products, computed row ``a`` of ``Ld``
    against rows ``a..`` of ``Lb`` (the pairs of one ``a`` are consecutive) straight into ``out``
    (n, r(r+1)/2, m): without the two gathered (n, r(r+1)/2, m) operands. Measured on one core of the
    shared 2-core machine (m = 200): 2.5 → 1.4 ms at n = 80, r = 10 and 60 → 8.4 ms at n = 8, r = 100."""
    r, at = Ld.shape[1], 0
    for a in range(r):
        np.multiply(Ld[:, a, None, :], Lb[:, a:, :], out=out[:, at : at + r - a, :])
        at += r - a
    return out


class PrimalSolver:
    """Primal models ``A_p = λI + Σ ψψᵀ`` of the (shared) agents' groups (module docstring); a mixin."""

    def _chunk_size(self, r: int) -> int:
        if self.chunk is not None:
            return max(1, int(self.chunk))
        p = r * self.D
        per = max(p * p, self._npairs(r) * self._ntri) + 2 * r * r * self.N
        return max(1, int(4e6 // per))

    @property
    def _ntri(self) -> int:
        return self.D * (self.D + 1) // 2

    @staticmethod
    def _npairs(r: int) -> int:
        return r * (r + 1) // 2

    def _gather_map(self, r: int):
        """Index maps of the packed build for rank ``r`` (cached): the block pairs ``a ≤ b`` and,
        for every entry ``(a·D + i, b·D + j)`` of ``A_p``, its position in the packed array
        ``G[pair(a,b), tri(i,j)]`` (``A_p`` is symmetric blockwise and within each block)."""
        cache = self.__dict__.setdefault("_gmaps", {})
        if r not in cache:
            D = self.D
            ia, ib = np.triu_indices(r)
            pair = np.zeros((r, r), dtype=np.int64)
            pair[ia, ib] = pair[ib, ia] = np.arange(len(ia))
            ii, jj = np.triu_indices(D)
            tri = np.zeros((D, D), dtype=np.int64)
            tri[ii, jj] = tri[jj, ii] = np.arange(len(ii))
            gmap = (pair[:, None, :, None] * self._ntri + tri[None, :, None, :]).reshape(-1)  # (p²,) over (a,i,b,j)
            cache[r] = (ia, ib, gmap, (ii * D + jj))
        return cache[r]

    def _primal(self, t: int, agents: np.ndarray):
        """Yield ``(agents, Lc, w, logdet)`` chunk by chunk: Cholesky factors of ``A_p``,
        ``w = Lc⁻¹ b_p`` and ``log det(A_p/λ)`` of the listed agents (module docstring).

        Agents are grouped by their rank ``r_v`` (no padding to the largest rank). A GEMM over each
        model's (delay level, source) columns (:meth:`_packed_build`) builds the ``r(r+1)/2`` distinct blocks
        ``Σ_u L_ua L_ub M_u(t − τ(u,v))`` of ``A_p`` on the packed upper triangles of the symmetric
        ``M_u`` (a quarter of the flops of the full ``r²·D²`` product), one gather lays them out as
        ``(n, p, p)``, and LAPACK ``potrf`` factors each system in place (numpy's batched Cholesky
        copies every matrix and runs ~2× slower at ``p = 512``). A chunk's factors ``Lc`` may live in a
        workspace that the next chunk overwrites: a caller copies what it keeps beyond the chunk."""
        V, D = self.N, self.D
        if len(agents) == 0:
            return
        levels = [dl for dl in self.delay_levels if t - dl >= 0]
        ntri = self._ntri
        tri_flat = self._gather_map(1)[3]
        Mp = np.concatenate([self.stats.read("M", t - dl).reshape(V, D * D)[:, tri_flat] for dl in levels]) \
            if levels else np.zeros((0, ntri))
        bs = np.concatenate([self.stats.read("b", t - dl) for dl in levels]) if levels else np.zeros((0, D))
        lev = np.array(levels, dtype=np.int64)
        r_of = self.r[agents]
        # models whose next round is expected to be an update keep their factor in a persistent slot
        if self.factor_updates == "never" or (t + 1) % self.kz_every == 0 or self._refresh_due(t + 1):
            keep = np.zeros(len(agents), dtype=bool)  # every model is rebuilt next round anyway
        else:
            keep = np.array([self._pool(int(self.r[c])) is not None and self._update_next(int(c), t)
                             for c in agents], dtype=bool)
        for r, kp in sorted({(int(x), bool(y)) for x, y in zip(r_of, keep)}):
            group = agents[(r_of == r) & (keep == kp)]
            ia, ib, gmap, _ = self._gather_map(r)
            npair, p = len(ia), r * D
            cs = self._chunk_size(r)
            for start in range(0, len(group), cs):
                ag = group[start : start + cs]
                n = len(ag)
                # only the r columns of the factor rows are copied (L is (V, V, R), R the largest rank)
                Lt = np.ascontiguousarray(self.L[ag, :, :r].transpose(0, 2, 1))  # (n, r, V)
                if len(levels):
                    G, bp = self._packed_build(Lt, self.tau_acc[ag], lev, Mp, bs, npair)
                else:
                    G, bp = np.zeros((n, npair * ntri)), np.zeros((n, p))
                pool = self._pool(r) if kp else None
                if pool is None:  # a workspace: the caller is done with a chunk before it asks for the next
                    A = np.take(G, gmap, axis=1, out=self._workspace("A", (n, p * p))).reshape(n, p, p)
                else:  # each model's persistent slot: no fresh pages every round
                    A = [pool[self._slot[c]] for c in ag]
                    for i in range(n):
                        np.take(G[i], gmap, out=A[i].reshape(-1))
                Lc, w, ld = A, np.empty((n, p)), np.empty(n)
                stacked = pool is None
                if stacked:  # λI on every model of the chunk at once
                    A.reshape(n, -1)[:, :: p + 1] += self.lam
                for i in range(n):
                    if not stacked:
                        A[i].reshape(-1)[:: p + 1] += self.lam
                    # A[i] is C-ordered and symmetric: as a Fortran array it is A[i] itself; the upper
                    # factor U (UᵀU = A) written in place is, read in C order, the lower L = Uᵀ
                    U, info = _dpotrf(A[i].T, lower=0, clean=1, overwrite_a=1)
                    if info != 0:
                        raise np.linalg.LinAlgError(f"A_p of agent {ag[i]} is not positive definite (potrf info {info})")
                    if U.ctypes.data != A[i].ctypes.data:  # not written in place (never with this layout)
                        A[i][...] = U.T
                    w[i] = _lower_solve(Lc[i], bp[i])
                    if not stacked:
                        ld[i] = 2.0 * np.log(np.diagonal(Lc[i])).sum() - p * np.log(self.lam)
                if stacked:  # the same row sums as one model at a time (pairwise summation per row)
                    ld[:] = 2.0 * np.log(np.diagonal(Lc, axis1=1, axis2=2)).sum(axis=1) - p * np.log(self.lam)
                self.log["rebuilds"] += n
                if pool is not None:  # the state the next rounds update
                    for i, c in enumerate(ag):
                        self._inc[int(c)] = [Lc[i], bp[i], t]
                yield ag, Lc, w, ld

    def _packed_build(self, Lt: np.ndarray, tau: np.ndarray, lev: np.ndarray, Mp: np.ndarray, bs: np.ndarray,
                      npair: int):
        """The packed blocks ``G[m, pair(a,b), tri(i,j)] = Σ_u L_ua L_ub M_u[i,j]`` and ``b_p`` of a chunk.

        Each model's sum runs over its own columns only: the (delay level, source) pairs with
        ``τ(u, v)`` equal to a level in ``lev`` and a nonzero factor row ``L_u`` — of the ``n_levels·V``
        columns of the statistics a model uses one per accepted source (Eager on ER(200, 0.7): ~140 of
        400; a Coop clique or an independent agent: a handful). Two exact forms of the same sums, the
        cheaper by its size: per model, a batched GEMM ``(n, r(r+1)/2, k) @ (n, k, D(D+1)/2)`` over each
        model's ``k ≤ k_max`` columns gathered from the statistics (padded with zero coefficients), or
        for the chunk, one GEMM over the union of the chunk's columns (no per-model gather of the
        statistics: cheaper when ``D(D+1)/2`` is large and ``r`` small, the RBF row).

        Args:
            Lt: (n, r, V) factor rows of the chunk's models, ``Lt[m, a, u] = L_ua``.
            tau: (n, V) delays ``τ(u, v)`` of the chunk's models (0: not accepted).
            lev: (n_levels,) the delay levels whose statistics ``Mp``, ``bs`` hold, ascending.
            Mp: (n_levels·V, D(D+1)/2) packed ``M_u(t − level)``; bs: (n_levels·V, D) ``b_u(t − level)``.
            npair: ``r(r+1)/2``.
        Returns:
            ``G`` (n, npair·D(D+1)/2) and ``b_p`` (n, r·D)."""
        n, r, V = Lt.shape
        ntri, D = Mp.shape[1], bs.shape[1]
        pos = np.minimum(np.searchsorted(lev, tau), len(lev) - 1)
        ok = (lev[pos] == tau) & np.any(Lt != 0, axis=1)  # (n, V): the model's columns
        kmax = max(int(ok.sum(axis=1).max()), 1)
        order = np.argsort(~ok, axis=1, kind="stable")[:, :kmax]  # each model's sources first, ascending
        okc = np.take_along_axis(ok, order, axis=1)  # (n, kmax) False on the padding
        col = np.where(okc, np.take_along_axis(pos, order, axis=1) * V + order, 0)  # (n, kmax) column index
        Lc = np.take_along_axis(Lt, order[:, None, :], axis=2) * okc[:, None, :]  # (n, r, kmax)
        ucols = np.unique(col[okc])
        # per model when cheaper (GEMM flops + ~2 ns per gathered entry); _form_bias: the tests' switch
        if kmax * (npair + 45) < npair * len(ucols) + getattr(self, "_form_bias", 0):
            C = _pair_products(Lc, Lc, self._workspace("C", (n, npair, kmax)))
            G = np.matmul(C, Mp[col], out=self._workspace("G", (n, npair, ntri)))
            bp = np.matmul(Lc, bs[col])
        else:  # the union of the chunk's columns
            Ld = np.zeros((n, r, len(ucols)))
            rows = np.broadcast_to(np.arange(n)[:, None], okc.shape)[okc]
            Ld.transpose(0, 2, 1)[rows, np.searchsorted(ucols, col[okc])] = Lc.transpose(0, 2, 1)[okc]
            C = _pair_products(Ld, Ld, self._workspace("C", (n, npair, len(ucols)))).reshape(n * npair, -1)
            G = np.matmul(C, Mp[ucols], out=self._workspace("G", (n * npair, ntri)))
            bp = Ld @ bs[ucols]
        return G.reshape(n, npair * ntri), bp.reshape(n, r * D)

    def _workspace(self, name: str, shape: tuple) -> np.ndarray:
        """A scratch array of ``shape`` (uninitialised) backed by a buffer kept between calls and grown as
        needed: the hot loop's temporaries reuse their pages instead of faulting in fresh ones every chunk.
        A caller must be done with it before the next call with the same ``name``."""
        ws = self.__dict__.setdefault("_ws", {})
        size = int(np.prod(shape))
        if name not in ws or ws[name].size < size:
            ws[name] = np.empty(size)
        return ws[name][:size].reshape(shape)

    # ----------------------------------------------------------------- incremental primal path
    STATE_BYTES = 768 << 20  # at most this much memory for the factors kept between rounds

    def _pool(self, r: int):
        """(G, p, p) persistent storage of the rank-``r`` models' factors (slot = index in ``reps``),
        or ``None`` (factor updates off, or the factors would need more than ``STATE_BYTES``: then
        every model is rebuilt each round)."""
        if self.factor_updates == "never":
            return None
        if r not in self._pools:
            p = r * self.D
            if len(self.reps) * p * p * 8 > self.STATE_BYTES:
                return None
            self._pools[r] = np.empty((len(self.reps), p, p))
        return self._pools[r]

    def _sources(self, c: int):
        """Model ``c``'s sources with a nonzero row in its current factor: (ids, delays, rows (k, r)),
        cached until the next refresh of the factor."""
        if c not in self._inc_src:
            r = int(self.r[c])
            Lf = self.L[c, :, :r]
            src = np.flatnonzero(self.acc[c] & np.any(Lf != 0, axis=1))
            self._inc_src[c] = (src, self.tau_acc[c, src], np.ascontiguousarray(Lf[src]))
        return self._inc_src[c]

    # Cost estimates (seconds of one core), used only to choose between forms that give the same model
    # to round-off. Fitted to in-run timings of each piece on the reference machine (AMD EPYC, one
    # thread, OpenBLAS Haswell kernels; RBF row, V = 200, D = 128): update ≈ 2p²k flops at 30 GFLOP/s
    # plus 2.5 ns per entry of the factor (it streams the kept factor from memory); rebuild: the GEMM
    # at 25, potrf at 32 GFLOP/s plus the gather; dual: cos of the features (≈ 10 ns each), Gram and
    # Cholesky at 28 GFLOP/s; scoring per agent: a fixed overhead plus the triangular solve.
    def _cost_update(self, p: int, k: int) -> float:
        """Rank-``k`` factor update (``tpqrt``, ≈ 2p²k flops). The fixed 2·10⁻⁴ s is the per-model path
        (an update, then the model's scoring, run one model at a time; rebuilt models are scored a chunk
        at a time): measured with the scoring batched (RBF row, V = 200, 32 Nyström
        features, T = 100: IGP-UCB 5.8 s with updates against 1.6 s rebuilding every round; the fitted
        3·10⁻⁵ made every small model take the slower path)."""
        return 2e-4 + 2.0 * p * p * k / 30e9 + 2.5e-9 * p * p

    def _cost_rebuild(self, p: int, k: int, r: int) -> float:
        """Rebuild from the statistics: the coefficient GEMM over the model's ``k`` (delay, source)
        columns (with the per-model gather of the statistics, :meth:`_packed_build`) + ``potrf``."""
        ncols = min(k * (self._npairs(r) + 45) / self._npairs(r), len(self.delay_levels) * self.N)
        return 6e-5 + 2.0 * self._npairs(r) * ncols * self._ntri / 25e9 + p**3 / 3.0 / 32e9 + 1e-9 * p * p

    def _cost_dual(self, n: int, m: int) -> float:
        """Dual form with ``n`` observations (features, Gram, Cholesky) scored by ``m`` agents."""
        return 1.2e-4 + n * self.D * 10e-9 + (2.0 * n * n * self.D + n**3 / 3.0) / 28e9 + m * (5e-5 + 4.5e-7 * n)

    def _cost_scores_primal(self, p: int, m: int, K: int) -> float:
        return m * (3e-5 + p * p * K / 25e9)

    def _update_next(self, c: int, t: int) -> bool:
        """Whether model ``c``'s factor is expected to be updated (not rebuilt) at round ``t + 1``."""
        if self.factor_updates == "always":
            return True
        _, tau, _ = self._sources(c)
        k, r = int(np.count_nonzero(tau <= t + 1)), int(self.r[c])
        return self._cost_update(r * self.D, k) < self._cost_rebuild(r * self.D, k, r)

    def _split_updates(self, t: int, models: np.ndarray):
        """Split ``models`` (primal, this round) into those updated from their round ``t − 1`` factor
        and those rebuilt from the cumulative statistics."""
        upd, reb = [], []
        for c in models:
            c = int(c)
            st = self._inc.get(c) if self.factor_updates != "never" else None
            if st is None or st[2] != t - 1:
                reb.append(c)
                continue
            (upd if self._update_next(c, t - 1) else reb).append(c)
        return np.array(upd, dtype=np.int64), np.array(reb, dtype=np.int64)

    def _update(self, t: int, models: np.ndarray):
        """Yield ``(agents, Lc, w, logdet)`` per model, updated from its round-``t − 1`` state.

        Between rebuilds the factor ``L`` of ``K̂_z`` is fixed, so the observations that become visible
        to model ``c`` at round ``t`` — one per source ``u`` of its factor, of round ``t − τ(u,c)`` — add
        ``Σ_u ψ_u ψ_uᵀ``, ``ψ_u = L_u ⊗ φ(x_u)``, to ``A_p`` and ``Σ_u y_u ψ_u`` to ``b_p``. With
        ``A_p = RᵀR`` (``R = Lcᵀ`` upper) and ``B`` the (k, p) matrix of the new ``ψ_uᵀ``,
        ``A_p + BᵀB = R'ᵀR'`` where ``R'`` is the triangle of the QR factorisation of ``[R; B]``
        (LAPACK ``tpqrt``, in place, ≈ 2p²k flops; orthogonal, so backward stable). ``R'`` may have
        negative diagonal entries (Householder signs): ``R'ᵀR'`` is the same, and so are the scores
        (``z = Lc⁻¹ψ`` and ``w`` change sign together) and ``log det A_p = 2 Σ log |R'_ii|``."""
        depth = len(self._Fring)
        for c in models:
            c = int(c)
            st = self._inc[c]
            Lc, bp = st[0], st[1]
            src, tau, Lr = self._sources(c)
            s = t - tau
            m = s >= 0
            k, p = int(np.count_nonzero(m)), Lc.shape[0]
            if k:
                slot = s[m] % depth
                F, y = self._Fring[slot, src[m]], self._yring[slot, src[m]]  # (k, D), (k,)
                Bt = (Lr[m].T[:, None, :] * F.T[None, :, :]).reshape(p, k)  # columns ψ_u, (a, i) order
                bp += Bt @ y  # before tpqrt, which overwrites B with its Householder vectors
                R, _, _, info = _dtpqrt(0, min(32, p), Lc.T, Bt.T, overwrite_a=1, overwrite_b=1)
                if info != 0:
                    raise np.linalg.LinAlgError(f"tpqrt failed on the model of agent {c} (info {info})")
                if R.ctypes.data != Lc.ctypes.data:  # not written in place (never with this layout)
                    Lc[...] = R.T
                self.log["updates"] += 1
            st[2] = t
            w = _lower_solve(Lc, bp)
            ld = 2.0 * np.log(np.abs(np.diagonal(Lc))).sum() - p * np.log(self.lam)
            yield np.array([c]), Lc[None], w[None], np.array([ld])

    def _dual_smaller(self, t: int, K: int) -> np.ndarray:
        """(G,) bool per representative: solve its model in dual form this round. ``True``: its visible
        observations from sources in its factor are fewer than its primal dimension ``r·D`` (the dual
        system is the smaller one); ``"auto"``: and the dual form is also expected cheaper than the
        primal one this round (an update of last round's factor where there is one, else a rebuild),
        counting the scoring of the model's ``m`` agents (``K`` arms each)."""
        reps = self.reps
        if getattr(self, "_active_L", (None, None))[0] is not self.L:  # sources in each model's factor, per refresh
            self._active_L = (self.L, np.any(self.L[reps] != 0, axis=2) & self.acc[reps])  # (G, V)
        active = self._active_L[1]
        n_obs = np.where(active, np.maximum(t - self.tau_acc[reps] + 1, 0), 0).sum(axis=1)
        small = n_obs < self.r[reps] * self.D
        if self.dual_when_smaller == "auto":
            k_new = (active & (self.tau_acc[reps] <= t)).sum(axis=1)
            for g in np.flatnonzero(small):
                c, r = int(reps[g]), int(self.r[reps[g]])
                p, k, m = r * self.D, int(k_new[g]), len(self.members[c])
                st = self._inc.get(c) if self.factor_updates != "never" else None
                primal = self._cost_update(p, k) if st is not None and st[2] == t - 1 else self._cost_rebuild(p, k, r)
                if self._cost_dual(int(n_obs[g]), m) > primal + self._cost_scores_primal(p, m, K):
                    small[g] = False
        return small

    def _primal_mu_var(self, Lcs, ws, sizes, Lrows, Phi):
        """μ and GP-scale σ² of the primal models' members, the one place the primal scores are computed.

        Model ``i`` (factor ``Lcs[i]`` of ``λI + Σ ψψᵀ`` with p = r·D, weights ``ws[i]`` = Lc⁻¹Σψy)
        scores its ``sizes[i]`` consecutive members: member ``j`` at its feature row ``Lrows[j]`` (r,)
        of the K̂_z factor on its arms' features ``Phi[j]`` (K, D)::

            ψ = L_j ⊗ φ(x),   z = Lc⁻¹ ψ,   μ = zᵀw,   σ² = λ ‖z‖²

        One triangular solve per model over all its members' arms; returns ``(μ, σ²)``, each (n, K)."""
        n, Kn, D = Phi.shape
        pdim = Lrows.shape[1] * D
        psi = np.einsum("va,vkj->vkaj", Lrows, Phi).reshape(n, Kn, pdim)
        Z = np.empty((n, Kn, pdim))
        at = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        for i in range(len(sizes)):
            blk = psi[at[i]:at[i + 1]].reshape(-1, pdim)
            Z[at[i]:at[i + 1]] = _lower_solve(Lcs[i], blk.T).T.reshape(-1, Kn, pdim)  # rows Lc⁻¹ψ
        wv = np.repeat(np.asarray(ws).reshape(len(sizes), pdim), sizes, axis=0)  # (n, p)
        return np.einsum("vkj,vj->vk", Z, wv), self.lam * np.einsum("vkj,vkj->vk", Z, Z)

