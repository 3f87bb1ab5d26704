r"""Coop-KernelUCB, Eager-KernelUCB, Dist-KernelUCB (Dubey & Pentland, ICML 2020) and baselines.

V agents on a graph G exchange raw observations by message passing: observation ``(u, s)`` is
usable by ``v`` at decision round ``t`` iff ``d(u,v) ≤ γ`` and ``s ≤ t − τ(u,v)``,
``τ(u,v) = max(1, d(u,v))`` (:mod:`bandits.network`). Every method here is kernel UCB on the
augmented input ``x̃ = (z_u, x)`` with the product kernel ``K = K_z ⊙ K_x`` over an
acceptance set of sources (spec ``coop-kernelucb.md`` §2.1–2.2):

=====================  =========================  ====================================
method                 ``Accept_v``               network kernel ``W``
=====================  =========================  ====================================
Coop-KernelUCB         ``C(v)`` (own clique of     ``K̂_z`` (MMD, Eq. 10–12) or oracle
(Alg. 1)               the cover of ``G_γ``)
Eager-KernelUCB        ``N_γ(v)``                 ``K̂_z`` or oracle
(Alg. 2)
Dist-KernelUCB         centres: ``N_γ(c)``;       ``K̂_z`` or oracle
(Alg. 3)               peripherals imitate
Ind-* (LinUCB, OFUL,   ``{v}``                    none
KernelUCB, IGP-UCB)
Naive-* (LinUCB,       ``N_γ(v)``                 ``W ≡ 1``
IGP-UCB, KernelUCB)
=====================  =========================  ====================================

Agent ``v``'s model at round ``t`` (paper Eq. 9, Alg. 1 l.7, l.34–35)::

    K_ij = W[u_i,u_j] K_x(x_i,x_j),   κ(x)_i = W[v,u_i] K_x(x,x_i)
    μ(x)  = κ(x)ᵀ (K + λI)⁻¹ y
    σ²(x) = W[v,v] K_x(x,x) − κ(x)ᵀ (K + λI)⁻¹ κ(x)
    x_{v,t} = argmax_{x∈D_{v,t}} μ(x) + (η/√λ) σ(x)          (t = 0: uniformly random, Alg. 1 l.5)

(Eq. 8's ``1/n_v(t)`` factor is inconsistent with Eq. 9; Eq. 9 is implemented, spec §7 item 12.)

Widths (``width``; spec §2.6, §3; the paper's typos in Lemma 1/Eq. 30 resolved as in §2.6):

* ``"eta"`` (Alg. 1 l.7): bonus ``(η/√λ)·σ``. For a linear kernel and ``W = [1]`` this is LinUCB
  with ``α = η`` (``σ² = λ xᵀA⁻¹x``).
* ``"theory"``: ``β_{v,t}σ`` with ``β_{v,t} = B + R√(2(½ log det(I + K/λ) + 1 + ln(V/δ)))``.
* ``"igp"`` (IGP-UCB, Chowdhury & Gopalan 2017): ``β_t σ``, ``β_t = B + R√(2(γ̂ + 1 + ln(1/δ)))``,
  ``γ̂ = ½ log det(I + K/λ)``; the IGP classes default to ``λ = 1 + 2/T``.
* ``"oful"`` (Abbasi-Yadkori et al. 2011): ``β_t ‖ψ‖_{A⁻¹}``,
  ``β_t = R√(2 ln(det(A)^{1/2} det(λI)^{−1/2}/δ)) + √λ S``.

Network kernel (``kz``): ``"mmd"`` (default; Sec. 3.3) estimates, *for each agent from what it
has seen*, ``K̂_z(u,u') = exp(−MMD(P̂_u, P̂_u')/(2σ_z²))`` (Eq. 11, the **unsquared** distance;
``squared=True`` squares it) with the normalised V-statistic (Eq. 12 with its missing
``1/(n n')`` factors, spec §2.8 and §7 item 3)::

    MMD² = (1/n²)Σ k_P(x_i,x_j) + (1/n'²)Σ k_P(x'_i,x'_j) − (2/(n n'))Σ k_P(x_i,x'_j)
         = ‖φ̄_u − φ̄_{u'}‖²   for a finite feature map φ_P of k_P

on the *chosen* contexts (what messages carry); source ``u``'s samples up to ``t − τ(u,v)``,
``v``'s own up to ``t − 1``. ``k_P = K_x`` (``embed_kernel="kx"``; for the RBF kernel through a
random-Fourier map of ``n_embed`` features) or any ``{"name": "rbf", "lengthscale": ℓ}``.
``"oracle"``: the true ``K_z`` handed in by the runner as ``kz_oracle`` (ablation and theory
checks); ``"ones"``: Naive Cooperation. ``K̂_z`` is refreshed every ``kz_every`` rounds and,
so that every source is in the factor once its data arrive, at every round ``t ≤ τ_max + m − 1``.

``kz_min_samples = m`` (default 1 = the paper's algorithm; our option, the paper is silent on how
the estimate starts): a source enters agent ``v``'s ``K̂_z`` — and so ``v``'s model — only once
``m`` of its samples are visible to ``v``; until then ``v`` holds its data back (the agent's own data
are used from round 1). Motivation: with 1–10 samples per source the MMD estimates are mostly noise, so
``K̂_z`` is close to full rank and the ``‖L_v‖² ≥ 0.95`` safeguard raises ``r`` towards ``|A|``
(measured on ER(200, 0.7), γ = 1, linear row: mean ``r`` ≈ 107 after one sample, 36 after 10, 16
after 20, < 10 after 50), i.e. primal systems of size ``r·d`` ≈ 1 000 in the first rounds. **Not
recommended for the figures**: holding data back costs far more regret than the noisy early
estimate (one ER(200, 0.7) linear run, T = 50: per-run regret 176 with ``m = 1``, 313 with ``m = 5``,
632 with ``m = 20``); ``truncation="own_residual"`` bounds the cost instead (178 at ``r_max = 10``).

Two paths, equal to 1e-8 when nothing is truncated (tests):

* ``path="dual"``: the exact dual above, rebuilt from the raw visible observations every round
  (Cholesky of ``K + λI``; O(n³)). The reference for small graphs. (The paper's incremental
  Schur update of Alg. 1 l.24–31 is only valid between ``K̂_z`` refreshes, spec §7 item 16; the
  reference recomputes from scratch, which is simpler and exact.)
* ``path="primal"`` (default; spec §2.7): factor ``W_A = K̂_z[A,A] ≈ L Lᵀ`` (eigendecomposition,
  eigenvalues below ``rank_tol · max`` dropped, at most ``r_max`` kept, but raised until
  ``‖L_v‖² ≥ min_var · W[v,v]`` — the safeguard against a truncation that merges agent groups
  and silently shrinks the agent's prior variance — up to ``r_limit``); features
  ``ψ(u,x) = L_u ⊗ φ(x)`` with ``φ`` the identity (linear ``K_x``) or random Fourier features
  ``φ(x) = √(2/D) cos(Ωᵀx + b)``, ``Ω ~ N(0, ℓ⁻²I)``, ``b ~ U[0, 2π]`` (RBF ``K_x``)::

      A_p = λI + Σ_{u∈A} (L_u L_uᵀ) ⊗ M_u(t − τ(u,v)),   b_p = Σ_u L_u ⊗ b_u(t − τ(u,v))
      μ(x) = ψ(v,x)ᵀ A_p⁻¹ b_p,   σ²(x) = λ ψ(v,x)ᵀ A_p⁻¹ ψ(v,x),   ½ log det(A_p/λ) = γ̂

  with per-source cumulative statistics ``M_u = Σ φφᵀ``, ``b_u = Σ yφ`` read from a ring buffer
  (:class:`bandits.network.CumulativeStatsBuffer`). Agents are batched by rank: for the agents
  of one rank ``r`` a single GEMM ``(n·r(r+1)/2, n_levels·V) @ (n_levels·V, D(D+1)/2)`` over every
  (delay level, source) pair gives the distinct blocks ``Σ_u L_ua L_ub M_u`` (``a ≤ b``) on the packed
  upper triangles of the symmetric ``M_u`` — a quarter of the flops of the full ``r²·D²`` product —,
  one gather lays them out as the ``(n, p, p)`` stack, and LAPACK ``potrf``/``trtrs`` factor and
  solve each system in place. Chunks bound the memory (``chunk``; 1 = the per-agent loop, used by
  the tests to check the batching). Measured (ER(200, 0.7), γ = 1, one core, CPU time per
  agent-round of Eager): linear ``r = 10`` 0.80 → 0.49 ms, RBF ``r = 4``, ``D = 128`` 8.9 → ~4 ms
  (``bandits.bench``, entries ``coop_kernel_ucb*``). Every agent's arms go through ``φ`` in one call
  and the models of a chunk are scored together (one triangular solve per model over its members'
  arms, the UCB of all agents in one step). With ``r_limit`` the factor of ``K̂_z`` needs only the
  ``r_limit`` largest eigenpairs (LAPACK ``dsyevr``, :func:`_top_eigh`). Together, with 32 Nyström
  features (RBF row, ER(200, 0.7), T = 100, CPU seconds on a shared 2-core machine): Eager
  13.7–15.6 → 9.0–10.5 s, IGP-UCB and Naive Cooperation about 4× less (the cost model below).

``truncation="own_residual"`` (our option, not in the paper or spec): instead of raising ``r``, keep
``r ≤ r_max`` (and ``r_limit``) and give each agent one more column, ``√(W_vv − ‖L_v‖²)`` on its own row
only, i.e. use ``W̃ = L Lᵀ + (W_vv − ‖L_v‖²) e_v e_vᵀ`` (PSD): the agent's own prior variance and the
weight of its own data are then exact and only the cross-source covariances are truncated, at the cost
of ``p = (r + 1)·D``. Where the ``‖L_v‖² ≥ 0.95`` safeguard cannot be afforded — the RBF row, whose
estimated ``K̂_z`` needs ``r`` ≈ 65 of ~141 for it at any ``t`` on ER(200, 0.7) (``p`` ≈ 8 300), or the
first rounds of the MMD estimate — this keeps what the safeguard protects (the exploration scale at
the agent's own ``z_v``) instead of silently shrinking it as a bare ``r_limit`` does.
``info()["min_Lv2"]`` reports the low-rank part ``min_v ‖L_v‖²/W_vv`` in both modes (over every refresh;
``min_Lv2_last`` and ``rank_last`` at the last one). ``r_limit`` is ``None`` by default (no cap: the
safeguard always holds); a cap is applied only when asked for and never silently: the first refresh it
leaves an agent below ``min_var`` raises a ``RuntimeWarning``, and ``info()["capped_agent_refreshes"]``
counts the (agent, refresh) pairs it cut short (issue 29: the RBF row of Figure 1 capped the rank at 4
until 2026-11-27, below the safeguard, unseen).

Shared models (``share_models=True``, spec §2.7 item 4): agents with identical ``(Accept_v, τ(·, v))``
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

The feature map of ``K_x`` — random Fourier features (``features="rff"``) or Nyström features on
landmarks uniform on the unit sphere (``features="nystroem"``, :class:`NystroemFeatures`, for
unit-norm contexts: far more accurate per feature on a smooth kernel, so far smaller systems) — is
drawn **once per run** from a key of the run's algorithm seed that does not depend on the method
(``SeedSequence(entropy, spawn_key + (crc32("coop-rff"),))``), so every RBF-row method of a run uses
the same map (spec §2.7 item 2). Exact-RBF dual runs
(``features="exact"``, ``path="dual"`` only) measure the RFF floor at small sizes.

Dist-KernelUCB (Alg. 3; spec §2.5): centres (``network.centres``, the greedy maximal weighted
independent set of ``G_γ``) run Eager. A peripheral ``p`` with centre ``c`` at distance ``Δ``
runs single-agent KernelUCB (own data, ``K = K_x``, same η; Alg. 3 l.8 allows KernelUCB or
IGP-UCB, spec picks KernelUCB) while ``t < Δ``, then imitates ``c``:

* ``"copy_policy"`` (default for random decision sets, spec §7 item 7): UCB on ``D_{p,t}`` of the
  centre's model as it was at round ``t − Δ``, evaluated at ``z_p`` (row ``p`` of the centre's
  factor). A protocol extension: the centre's snapshot (``w = L_c⁻¹b_p`` and the Cholesky factor
  of ``A_p``, ``p + p(p+1)/2`` scalars, plus ``R`` scalars per assigned peripheral) rides on its
  messages and is charged as ``"model_snapshot"``. While the centre's snapshot has no row for
  ``p`` (with ``kz="mmd"``, before ``p``'s data reached the centre) ``p`` keeps its own KernelUCB
  [our choice];
* ``"copy_arm"`` (Alg. 3 l.10, the fully-cooperative fixed-arm setting of Thm 2): the arm the
  centre pulled at ``t − Δ`` (needs a shared, fixed decision set);
* ``"nearest_arm"``: the arm of ``D_{p,t}`` nearest to that one.

Communication: every delivery of a message ``⟨t, v, x, y⟩`` (``d + 3`` scalars: round, sender id,
context, reward; ``z_v`` is identified by the sender id) is charged in the ledger
(:meth:`bandits.comm.CommLedger.deliver`, ``kind="observation"``) by flooding with duplicate drop
(:func:`bandits.network.deliveries_per_round`), for every cooperative method alike (Coop filters
on receipt, as Alg. 1 l.20); ``info()["accepted_deliveries"]`` counts the deliveries an agent
keeps. Independent methods send nothing.

Length (≈ 920 lines, 150 of them this docstring): one file on purpose. Every method above is the same
:class:`NetworkKernelUCB` with a different acceptance set, network kernel and width; the baselines at the
end are a few lines of defaults each, and splitting them off would scatter one algorithm.
"""
from __future__ import annotations

import warnings
import zlib
from itertools import chain

import numpy as np
from scipy import sparse as _sparse
from scipy.linalg import solve_triangular
from scipy.linalg.lapack import dpotrf as _dpotrf
from scipy.linalg.lapack import dsyevr as _dsyevr
from scipy.linalg.lapack import dtpqrt as _dtpqrt
from scipy.linalg.lapack import dtrtrs as _dtrtrs

from ..comm import CommLedger
from ..network import CumulativeStatsBuffer, check_gamma, deliveries_per_round, usable_delays
from ..sim import Policy
from .kernel_ucb import argmax_ties

__all__ = ["RandomFourierFeatures", "mmd_from_embeddings", "kz_from_mmd", "mmd_vstatistic",
           "NetworkKernelUCB", "CoopKernelUCB", "EagerKernelUCB", "DistKernelUCB", "IndLinUCB",
           "IndOFUL", "IndKernelUCB", "IndIGPUCB", "NaiveLinUCB", "NaiveIGPUCB", "NaiveKernelUCB",
           "method_seed"]

ACCEPTS = ("clique", "neighbourhood", "self")
KZ_MODES = ("mmd", "oracle", "ones")
WIDTHS = ("eta", "theory", "igp", "oful")
PATHS = ("primal", "dual")
PERIPHERAL_MODES = ("copy_policy", "copy_arm", "nearest_arm")
TRUNCATIONS = ("raise", "own_residual")
UPDATES = ("auto", "always", "never")


def _lower_solve(Lc: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``Lc⁻¹ B`` for a C-ordered lower-triangular ``Lc`` (p, p) through LAPACK ``trtrs`` on its
    Fortran view ``Lcᵀ`` (upper, transposed): no copy of the factor, no input validation
    (scipy's ``solve_triangular`` costs ~2× more per call on the small systems of the linear row)."""
    x, info = _dtrtrs(Lc.T, B, lower=0, trans=1)
    if info != 0:
        raise np.linalg.LinAlgError(f"singular triangular factor (trtrs info {info})")
    return x


def _top_eigh(W: np.ndarray, k: int | None):
    """Eigenpairs of the symmetric stack ``W`` (G, n, n), largest first: all of them (numpy's batched
    ``eigh``) when ``k`` is ``None`` or ``≥ n``, else only the ``k`` largest (LAPACK ``dsyevr``, one
    matrix at a time: the tridiagonal reduction without the full back-transformation, ≈ 2.7× less CPU
    than the full batched ``eigh`` at G = 200, n = 141, k = 4). Everything :meth:`NetworkKernelUCB._factor`
    reads of the spectrum lies within the first ``r_limit`` pairs when ``r_limit`` caps the rank (the
    rank, ``‖L_v‖²`` up to it, the numerical rank up to it), so the factor is the same; an eigenvector's
    sign may differ, which leaves ``L Lᵀ`` and every model unchanged."""
    G, n, _ = W.shape
    if k is None or k >= n:
        w, U = np.linalg.eigh(W)
        return w[:, ::-1], U[:, :, ::-1]
    k = max(int(k), 1)
    w, U = np.empty((G, k)), np.empty((G, n, k))
    for g in range(G):
        wg, Z, m, _, info = _dsyevr(W[g], compute_v=1, range="I", il=n - k + 1, iu=n, lower=1, overwrite_a=0)
        if info != 0 or m != k:
            raise np.linalg.LinAlgError(f"dsyevr failed on the network kernel of model {g} (info {info}, {m} of {k} pairs)")
        w[g], U[g] = wg[:k][::-1], Z[:, :k][:, ::-1]
    return w, U


def method_seed(seed: np.random.SeedSequence, label: str) -> np.random.SeedSequence:
    """A child of ``seed`` keyed by ``label`` only: the same for every method given the same run seed."""
    return np.random.SeedSequence(entropy=seed.entropy,
                                  spawn_key=tuple(seed.spawn_key) + (zlib.crc32(label.encode()),))


def _check_map(n_features: int, lengthscale: float) -> int:
    """Validate an RBF feature map's size and lengthscale; return the size."""
    if n_features < 1:
        raise ValueError(f"n_features must be >= 1, got {n_features}")
    if not lengthscale > 0:
        raise ValueError(f"RBF lengthscale must be > 0, got {lengthscale}")
    return int(n_features)


class RandomFourierFeatures:
    """Random Fourier features of the RBF kernel ``exp(−‖x−x'‖²/(2ℓ²))`` (Rahimi & Recht 2007).

    ``φ(x) = √(2/D) cos(Ωᵀx + b)``, ``Ω ~ N(0, ℓ⁻² I_d)`` (d × D), ``b ~ U[0, 2π]``, so
    ``E[φ(x)ᵀφ(x')] = k(x, x')``. Hand-written (a two-line map): scikit-learn's ``RBFSampler`` has
    the same construction but draws from a global-style ``random_state`` and fits on data.
    """

    def __init__(self, dim: int, n_features: int, lengthscale: float, rng: np.random.Generator):
        self.D = _check_map(n_features, lengthscale)
        self.Omega = rng.standard_normal((dim, self.D)) / float(lengthscale)
        self.b = rng.uniform(0.0, 2.0 * np.pi, self.D)

    def __call__(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        return np.sqrt(2.0 / self.D) * np.cos(X @ self.Omega + self.b)


class NystroemFeatures:
    """Nyström features of the RBF kernel ``exp(−‖x−x'‖²/(2ℓ²))`` on ``m`` landmarks drawn uniformly
    on the unit sphere ``S^{d−1}`` (Williams & Seeger 2001; scikit-learn's
    :class:`~sklearn.kernel_approximation.Nystroem`, fitted on the landmarks, so every landmark is a
    basis point): ``φ(x) = K_mm^{−1/2} k_m(x)`` and ``φ(x)ᵀφ(x') = k_m(x)ᵀ K_mm⁺ k_m(x')``, exact on the
    landmarks' span.

    For the Coop-KernelUCB RBF row (every context is a unit vector, ``ℓ = 2``, ``d = 10``) the
    kernel's spectrum on the sphere decays fast, and ``m`` landmarks approximate it far better than
    ``m`` random Fourier features (measured on 400 uniform unit vectors: mean ``|k̂ − k|`` 0.003 at
    ``m = 32`` and 0.001 at ``m = 64``, against 0.06 for 128 RFF), with systems ``(128/m)²`` times
    smaller. The landmarks are drawn from the run's feature key, not from data: they depend on no
    agent's contexts. Contexts off the sphere are refused (:meth:`check`).
    """

    def __init__(self, dim: int, n_features: int, lengthscale: float, rng: np.random.Generator):
        from sklearn.kernel_approximation import Nystroem

        self.D = _check_map(n_features, lengthscale)
        Z = rng.standard_normal((self.D, dim))
        self.landmarks = Z / np.linalg.norm(Z, axis=1, keepdims=True)
        self.gamma = 0.5 / float(lengthscale) ** 2
        ny = Nystroem(kernel="rbf", gamma=self.gamma, n_components=self.D, random_state=0).fit(self.landmarks)
        # sklearn fits the map (SVD of K_mm, pseudo-inverse square root); applying it is one GEMM,
        # done here without its per-call input validation (most of the cost at 8 contexts per call)
        self.basis, self.normalization = ny.components_, ny.normalization_.T.copy()
        self._bsq = (self.basis**2).sum(axis=1)

    def __call__(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        sq = (X**2).sum(axis=-1)[..., None] + self._bsq - 2.0 * (X @ self.basis.T)
        return np.exp(-self.gamma * np.maximum(sq, 0.0)) @ self.normalization

    @staticmethod
    def check(X: np.ndarray) -> None:
        nrm = np.linalg.norm(X, axis=-1)
        if not np.allclose(nrm, 1.0, atol=1e-6):
            raise ValueError(f"features='nystroem' draws its landmarks on the unit sphere, but contexts here have "
                             f"norms in [{nrm.min():.3g}, {nrm.max():.3g}]: use features='rff' for this environment")


class _Identity:
    def __init__(self, dim):
        self.D = int(dim)

    def __call__(self, X):
        return np.asarray(X, dtype=float)


def mmd_from_embeddings(means: np.ndarray) -> np.ndarray:
    """Pairwise MMD² from mean embeddings: ``‖φ̄_i − φ̄_j‖²``, clipped at 0.

    Args:
        means: (..., n, D) mean feature vectors.
    Returns:
        (..., n, n) squared MMDs.
    """
    G = means @ np.swapaxes(means, -1, -2)
    dg = np.diagonal(G, axis1=-2, axis2=-1)
    return np.maximum(dg[..., :, None] + dg[..., None, :] - 2.0 * G, 0.0)


def mmd_vstatistic(Xa: np.ndarray, Xb: np.ndarray, kernel) -> float:
    """Normalised V-statistic MMD² (Eq. 12 with the ``1/n²`` factors): ``kernel(A, B)`` → Gram."""
    return max(float(kernel(Xa, Xa).mean() + kernel(Xb, Xb).mean() - 2.0 * kernel(Xa, Xb).mean()), 0.0)


def kz_from_mmd(mmd2: np.ndarray, sigma_z: float, squared: bool = False) -> np.ndarray:
    """Eq. 11: ``K̂_z = exp(−MMD/(2σ_z²))`` (unsquared, the paper), or ``exp(−MMD²/(2σ_z²))``."""
    dist = mmd2 if squared else np.sqrt(mmd2)
    return np.exp(-dist / (2.0 * sigma_z**2))


def _kernel_name(kernel) -> tuple[str, float]:
    if isinstance(kernel, str):
        kernel = {"name": kernel}
    if not isinstance(kernel, dict) or kernel.get("name") not in ("linear", "rbf"):
        raise ValueError(f"kernel must be {{'name': 'linear'}} or {{'name': 'rbf', 'lengthscale': l}}, got {kernel!r}")
    extra = set(kernel) - {"name", "lengthscale"}
    if extra:
        raise ValueError(f"unknown kernel keys {sorted(extra)}; allowed: name, lengthscale")
    ell = float(kernel.get("lengthscale", 1.0))
    if not ell > 0:
        raise ValueError(f"kernel lengthscale must be > 0, got {ell}")
    return kernel["name"], ell


class NetworkKernelUCB(Policy):
    """The shared engine of every method of this module (see the module docstring).

    Args:
        n_agents, horizon, dim, seed, ledger: as :class:`bandits.sim.Policy`.
        network: the graph summary (``dist`` (V,V) hops, ``gamma``, ``clique_of`` (V,),
            ``centres`` (n_c,), ``centre_of`` (V,)); may be ``None`` only for ``accept="self"``.
        kz_oracle: (V, V) true ``K_z`` (only with ``kz="oracle"``).
        kernel: ``{"name": "linear"}`` or ``{"name": "rbf", "lengthscale": ℓ_x}`` (``K_x``).
        accept: ``"clique"`` | ``"neighbourhood"`` | ``"self"``.
        kz: ``"mmd"`` | ``"oracle"`` | ``"ones"``.
        eta: exploration parameter η (``width="eta"``).
        lam: regulariser λ.
        width: ``"eta"`` | ``"theory"`` | ``"igp"`` | ``"oful"``.
        B, R, delta, S: constants of the theoretical widths.
        sigma_z, squared: Eq. 11 bandwidth and the squared-distance option.
        embed_kernel: ``"kx"`` or ``{"name": "rbf", "lengthscale": ℓ}`` (MMD kernel ``k_P``).
        n_features, n_embed: RFF dimensions for ``K_x`` and ``k_P`` (RBF only).
        features: ``"rff"`` (default), ``"nystroem"`` (:class:`NystroemFeatures`: ``n_features``
            landmarks on the unit sphere; unit-norm contexts only) or ``"exact"`` (exact RBF; dual
            path only).
        r_max, rank_tol, min_var, r_limit: truncation of ``K̂_z`` (``r_max=None``: numerical rank).
        dual_when_smaller: on the primal path, solve a model in dual form with ``W̃ = L Lᵀ`` while it
            has fewer visible observations than features (module docstring).
        share_models: compute one model per group of agents with identical ``(Accept_v, τ(·, v))``
            (primal path; module docstring).
        truncation: ``"raise"`` (default; spec §2.7: raise ``r`` until ``‖L_v‖² ≥ min_var·W_vv``, at most
            ``r_limit``) or ``"own_residual"`` (keep ``r ≤ r_max``/``r_limit`` and add the agent's own
            residual column, module docstring).
        kz_every: ``K̂_z`` refresh period (rounds).
        kz_min_samples: with ``kz="mmd"``, a source enters an agent's ``K̂_z`` (and so its model) once
            this many of its samples are visible to the agent (default 1: the paper's algorithm).
        extra_delay: 0 or 1 (:mod:`bandits.network`).
        path: ``"primal"`` | ``"dual"``.
        chunk: agents per batch (``None``: automatic by memory; 1: per-agent loop).
    """

    needs_network = True
    name = "NetworkKernelUCB"
    default_accept, default_kz, default_width = "neighbourhood", "mmd", "eta"

    @classmethod
    def env_params(cls, env, params: dict) -> dict:
        """The constructor parameters on ``env`` (:func:`bandits.runner.run_regret_cell`): ``params`` with
        the environment's graph ``network=env.network`` and, when ``params["kz"] == "oracle"``, the true
        task kernel ``kz_oracle=env.kz_true``."""
        params = dict(params, network=env.network)
        if params.get("kz") == "oracle":
            params["kz_oracle"] = env.kz_true
        return params

    def __init__(self, n_agents, horizon, dim, seed, ledger: CommLedger, network=None, kz_oracle=None,
                 kernel=None, accept=None, kz=None, eta=1.0, lam=1.0, width=None, B=1.0, R=0.1,
                 delta=0.05, S=1.0, sigma_z=1.0, squared=False, embed_kernel="kx", n_features=128,
                 n_embed=128, features="rff", r_max=None, rank_tol=1e-8, min_var=0.95, r_limit=None,
                 kz_every=1, extra_delay=0, path="primal", chunk=None, peripheral_mode=None, kz_min_samples=1,
                 truncation="raise", share_models=True, dual_when_smaller="auto", factor_updates="auto"):
        super().__init__(n_agents, horizon, dim, seed, ledger)
        accept = self.default_accept if accept is None else accept
        kz = self.default_kz if kz is None else kz
        width = self.default_width if width is None else width
        for nm, val, allowed in (("accept", accept, ACCEPTS), ("kz", kz, KZ_MODES), ("width", width, WIDTHS),
                                 ("path", path, PATHS), ("features", features, ("rff", "nystroem", "exact")),
                                 ("truncation", truncation, TRUNCATIONS), ("factor_updates", factor_updates, UPDATES)):
            if val not in allowed:
                raise ValueError(f"{nm} must be one of {', '.join(allowed)}, got {val!r}")
        if lam is None or not lam > 0:
            raise ValueError(f"lam must be > 0, got {lam}")
        if eta < 0:
            raise ValueError(f"eta must be >= 0, got {eta}")
        if not sigma_z > 0:
            raise ValueError(f"sigma_z must be > 0, got {sigma_z}")
        if not isinstance(kz_every, (int, np.integer)) or kz_every < 1:
            raise ValueError(f"kz_every must be an integer >= 1, got {kz_every!r}")
        if not isinstance(kz_min_samples, (int, np.integer)) or kz_min_samples < 1:
            raise ValueError(f"kz_min_samples must be an integer >= 1, got {kz_min_samples!r}")
        if r_max is not None and r_max < 1:
            raise ValueError(f"r_max must be None or >= 1, got {r_max}")
        if not 0 <= min_var <= 1:
            raise ValueError(f"min_var must be in [0, 1], got {min_var}")
        if not 0 < delta < 1:
            raise ValueError(f"delta must be in (0, 1), got {delta}")
        self.accept, self.kz, self.width, self.path = accept, kz, width, path
        self.eta, self.lam, self.B, self.R, self.delta, self.S = float(eta), float(lam), float(B), float(R), \
            float(delta), float(S)
        self.sigma_z, self.squared = float(sigma_z), bool(squared)
        self.r_max, self.rank_tol, self.min_var, self.r_limit = r_max, float(rank_tol), float(min_var), r_limit
        self.kz_every, self.chunk, self.kz_min_samples = int(kz_every), chunk, int(kz_min_samples)
        self.truncation = truncation
        self._eig_pairs = r_limit  # eigenpairs of K̂_z the factor needs (None: all; see _top_eigh)
        self.factor_updates = factor_updates
        self.share_models = bool(share_models)
        if dual_when_smaller not in (True, False, "auto"):
            raise ValueError(f"dual_when_smaller must be True, False or 'auto', got {dual_when_smaller!r}")
        self.dual_when_smaller = dual_when_smaller
        self.peripheral_mode = peripheral_mode
        V = self.N
        # --- network, delays, acceptance -------------------------------------------------
        if network is None:
            if accept != "self":
                raise ValueError(f"{self.name} needs a network (accept={accept!r}); "
                                 "env_params passes env.network")
            dist, self.gamma = np.where(np.eye(V, dtype=bool), 0, -1), 1
        else:
            dist, self.gamma = np.asarray(network.dist, dtype=np.int64), check_gamma(network.gamma)
            if dist.shape != (V, V):
                raise ValueError(f"network.dist has shape {dist.shape}, expected ({V}, {V})")
        self.network, self.dist = network, dist
        self.tau = usable_delays(dist, self.gamma, extra_delay).T  # tau[v, u]: viewer v, source u
        self.extra_delay = int(extra_delay)
        acc = self.tau > 0
        if accept == "self":
            acc = np.eye(V, dtype=bool)
        elif accept == "clique":
            cl = np.asarray(network.clique_of)
            acc &= cl[:, None] == cl[None, :]
        self.dist_mode = peripheral_mode is not None
        if self.dist_mode:
            if peripheral_mode not in PERIPHERAL_MODES:
                raise ValueError(f"peripheral_mode must be one of {', '.join(PERIPHERAL_MODES)}, got {peripheral_mode!r}")
            self.centre_of = np.asarray(network.centre_of, dtype=np.int64)
            self.is_centre = self.centre_of == np.arange(V)
            # peripherals learn on their own data only (their fallback KernelUCB)
            acc[~self.is_centre] = np.eye(V, dtype=bool)[~self.is_centre]
            self.delta_c = dist[np.arange(V), self.centre_of]
            if np.any(self.delta_c < 0) or np.any(self.delta_c > self.gamma):
                raise ValueError("every peripheral's centre must be within gamma hops (network.centre_of)")
        self.acc = acc
        self.tau_acc = np.where(acc, self.tau, 0)
        self.tau_max = int(self.tau_acc.max())
        self.delay_levels = [int(x) for x in np.unique(self.tau_acc[self.tau_acc > 0])]
        # padded accept lists, the agent itself first
        lists = [[v] + [int(u) for u in np.flatnonzero(acc[v]) if u != v] for v in range(V)]
        self.Amax = max(len(x) for x in lists)
        self.idx = np.full((V, self.Amax), -1, dtype=np.int64)
        for v, lst in enumerate(lists):
            self.idx[v, : len(lst)] = lst
        # agents with identical (Accept_v, τ(·, v)) see the same data with the same delays and, with
        # K̂_z estimated from what each has seen, the same network kernel: one model per group
        # (spec §2.7 item 4). The agent's own residual column (truncation="own_residual") is
        # agent-specific, so that mode keeps one model per agent.
        if self.share_models and truncation == "raise" and path == "primal":
            _, first, grp = np.unique(self.tau_acc, axis=0, return_index=True, return_inverse=True)
            self.rep_of = first[np.asarray(grp).reshape(-1)]
        else:
            self.rep_of = np.arange(V)
        self.reps = np.unique(self.rep_of)
        self.members = {int(c): np.flatnonzero(self.rep_of == c) for c in self.reps}
        # position of each agent in its representative's accept list
        self.pos_in_rep = np.array([int(np.flatnonzero(self.idx[self.rep_of[v]] == v)[0]) for v in range(V)])
        # --- kernels and feature maps -----------------------------------------------------
        kname, ell = _kernel_name(kernel if kernel is not None else {"name": "linear"})
        self.kname, self.ell = kname, ell
        rng_feat = np.random.default_rng(method_seed(seed, "coop-rff"))
        rng_kx, rng_emb = (np.random.default_rng(s) for s in rng_feat.bit_generator.seed_seq.spawn(2))
        if features == "exact" and (path != "dual" or kname != "rbf"):
            raise ValueError("features='exact' needs path='dual' and an RBF kernel")
        self.features = features
        fmap = NystroemFeatures if features == "nystroem" else RandomFourierFeatures
        self.phi = _Identity(dim) if kname == "linear" else fmap(dim, n_features, ell, rng_kx)
        if embed_kernel == "kx":
            self.phi_p = _Identity(dim) if kname == "linear" else RandomFourierFeatures(dim, n_embed, ell, rng_emb)
        else:
            ename, eell = _kernel_name(embed_kernel)
            self.phi_p = _Identity(dim) if ename == "linear" else RandomFourierFeatures(dim, n_embed, eell, rng_emb)
        self.D = self.phi.D
        self.rng = np.random.default_rng(method_seed(seed, "coop-ties"))
        # --- network kernel ---------------------------------------------------------------
        if kz == "oracle":
            if kz_oracle is None:
                raise ValueError("kz='oracle' needs kz_oracle (the true K_z, passed by the runner)")
            self.W_oracle = np.asarray(kz_oracle, dtype=float)
            if self.W_oracle.shape != (V, V):
                raise ValueError(f"kz_oracle has shape {self.W_oracle.shape}, expected ({V}, {V})")
        # --- state ------------------------------------------------------------------------
        self.stats = CumulativeStatsBuffer({"M": (self.D, self.D), "b": (self.D,), "E": (self.phi_p.D,)},
                                           V, self.tau_max + 1)
        self.Xhist = np.zeros((horizon, V, dim))
        self.yhist = np.zeros((horizon, V))
        self.choice_hist = np.zeros((horizon, V), dtype=np.int64)
        self.L = None  # (V, V, R) dense factor rows, L[v, u] = row of source u in v's factor
        self.W_dual = None  # (V, V, V) dual path: agent v's network kernel, dense over sources
        self.snapshots: dict[int, dict] = {}  # round -> {centre: its model at that round}
        # incremental primal path: per model (representative) [lower factor (p, p) C order, b_p, round]
        self._inc: dict[int, list] = {}
        self._inc_src: dict[int, tuple] = {}  # per model, since the last refresh: sources in its factor
        self._pools: dict[int, np.ndarray] = {}  # rank -> (G, p, p) factor storage (see _pool)
        self._slot = {int(c): g for g, c in enumerate(self.reps)}
        depth = self.tau_max + 1  # the observations of the last τ_max rounds: features and rewards
        self._Fring, self._yring = np.zeros((depth, V, self.D)), np.zeros((depth, V))
        self.log = {"rank_mean": [], "rank_max": [], "min_Lv2": [], "accepted_deliveries": 0,
                    "updates": 0, "rebuilds": 0, "capped": 0, "rank_last": None, "min_Lv2_last": None}
        self._warned_cap = False
        self._deliv = deliveries_per_round(dist, self.gamma, horizon) if accept != "self" else None
        self.msg_scalars = dim + 3
        if accept != "self":
            self._accepted_per_round = deliveries_per_round(np.where(acc, dist, -1), self.gamma, horizon)
        if self.dist_mode:
            cent = np.flatnonzero(self.is_centre)
            self.centres = cent
            dc = dist[cent]
            self._centre_hops = np.stack([np.bincount(row[(row >= 1) & (row <= self.gamma)],
                                                      minlength=self.gamma + 1) for row in dc])

    # ------------------------------------------------------------------ network kernel factor
    def _refresh_due(self, t: int) -> bool:
        return self.L is None or (self.kz == "mmd" and (t % self.kz_every == 0
                                                         or t <= self.tau_max + self.kz_min_samples - 1))

    def _active(self, t: int) -> np.ndarray:
        """(V, Amax) bool: source in v's list with at least ``kz_min_samples`` visible observations at
        round t (at least one for the agent itself)."""
        tau = np.take_along_axis(self.tau_acc, np.maximum(self.idx, 0), axis=1)
        act = (self.idx >= 0) & (tau > 0) & (tau <= t - self.kz_min_samples + 1)
        act[:, 0] = tau[:, 0] <= t  # the agent's own data are used from round 1 on
        return act

    def _W_lists(self, t: int) -> np.ndarray:
        """(V, Amax, Amax) network-kernel matrices over each agent's padded accept list."""
        V, Amax = self.N, self.Amax
        act = self._active(t)
        if self.kz == "ones" or self.accept == "self":
            W = np.ones((V, Amax, Amax))
        elif self.kz == "oracle":
            ii = np.maximum(self.idx, 0)
            W = self.W_oracle[ii[:, :, None], ii[:, None, :]]
            act = self.idx >= 0
        else:
            # every agent's K̂_z entries are MMDs between the mean embeddings of (source, delay) pairs:
            # compute them once over all n_levels·V such points, then gather each agent's matrix
            levels = [dl for dl in self.delay_levels if t - dl >= 0]
            means = np.zeros((len(levels), V, self.phi_p.D))
            for k, dl in enumerate(levels):
                means[k] = self.stats.read("E", t - dl) / (t - dl + 1)
            Kg = kz_from_mmd(mmd_from_embeddings(means.reshape(-1, self.phi_p.D)), self.sigma_z, self.squared)
            ii = np.maximum(self.idx, 0)
            tau = np.take_along_axis(self.tau_acc, ii, axis=1)
            lev = np.searchsorted(np.array(levels, dtype=np.int64), tau).clip(0, max(len(levels) - 1, 0))
            fi = lev * V + ii  # (V, Amax) row of each listed source in Kg (inactive ones masked below)
            W = Kg[fi[:, :, None], fi[:, None, :]] if len(levels) else np.zeros((V, Amax, Amax))
        mask = act[:, :, None] & act[:, None, :]
        return np.where(mask, W, 0.0)

    def _factor(self, t: int) -> None:
        """Refresh ``self.L`` (V, V, R) from the (estimated) network kernel (spec §2.7 item 1)."""
        V = self.N
        if self.path == "dual":
            self.L, self.r = np.zeros((V, V, 0)), np.zeros(V, dtype=np.int64)  # the dual path needs no factor
            return
        if self.accept == "self" or self.kz == "ones":
            L = np.zeros((V, V, 1))
            valid = self.idx >= 0
            L[np.broadcast_to(np.arange(V)[:, None], self.idx.shape)[valid], self.idx[valid], 0] = 1.0
            self.L, self.r = L, np.ones(V, dtype=np.int64)
            self.log["rank_mean"].append(1.0)
            self.log["rank_max"].append(1)
            self.log["min_Lv2"].append(1.0)
            return
        reps = self.reps
        gi = np.searchsorted(reps, self.rep_of)  # (V,) group index of every agent
        W = self._W_lists(t)[reps]  # (G, Amax, Amax)
        w, U = _top_eigh(W, self._eig_pairs)
        wmax = np.maximum(w[:, :1], 0.0)
        pos = w > self.rank_tol * np.where(wmax > 0, wmax, 1.0)
        nrank = pos.sum(axis=1)
        r = nrank.copy() if self.r_max is None else np.minimum(nrank, self.r_max)
        # ‖L_v‖² vs rank for every agent v (its row in its group's factor) and its W_vv
        Uv = U[gi, self.pos_in_rep, :]  # (V, Amax)
        lv2 = np.cumsum(np.where(pos[gi], Uv**2 * np.maximum(w[gi], 0), 0.0), axis=1)
        Wvv = W[gi, self.pos_in_rep, self.pos_in_rep]
        need = np.array([int(np.searchsorted(lv2[v] >= self.min_var * Wvv[v], True)) + 1 for v in range(V)])
        if self.truncation == "raise":
            need_g = np.zeros(len(reps), dtype=np.int64)
            np.maximum.at(need_g, gi, need)  # a shared model serves its most demanding member
            r = np.maximum(r, np.minimum(need_g, nrank))
        if self.r_limit is not None:
            r = np.minimum(r, int(self.r_limit))
        r = np.maximum(r, 1)
        rv = r[gi]
        frac = lv2[np.arange(V), rv - 1] / np.maximum(Wvv, 1e-300)  # ‖L_v‖² / W_vv of the low-rank part
        if self.r_limit is not None:
            # a cap asked for: never silent. Count the agents it left below the safeguard, warn once.
            short = int(np.count_nonzero((frac < self.min_var * (1 - 1e-9)) & (Wvv > 0)))
            self.log["capped"] += short
            if short and not self._warned_cap:
                self._warned_cap = True
                warnings.warn(f"{self.name}: r_limit={self.r_limit} overrides the ‖L_v‖² ≥ {self.min_var:g}·W_vv "
                              f"safeguard for {short} of {V} agents at round {t} (kept own variance down to "
                              f"{float(np.min(frac)):.3f}); recorded in info()['capped_agent_refreshes'] and "
                              f"info()['min_Lv2']", RuntimeWarning, stacklevel=2)
        extra = np.zeros(V)
        if self.truncation == "own_residual":
            # one more column per agent: √(W_vv − ‖L_v‖²) on its own row only (zero when nothing is cut)
            extra = np.maximum(Wvv - lv2[np.arange(V), rv - 1], 0.0)
            extra[extra <= self.rank_tol * np.maximum(Wvv, 1e-300)] = 0.0
        r_tot = rv + (extra > 0)
        R = int(r_tot.max())
        Rl = int(r.max())
        keep = np.arange(Rl)[None, :] < r[:, None]
        F = U[:, :, :Rl] * np.sqrt(np.maximum(w[:, None, :Rl], 0.0)) * keep[:, None, :]  # (G, Amax, Rl)
        # a source whose row of W is zero (no visible data yet) has L_u = 0 exactly, not eigenvector
        # round-off (~1e-16): Dist's peripherals test their centre's row for zero
        F[~np.any(W != 0, axis=2)] = 0.0
        Lg = np.zeros((len(reps), V, R))
        ir = self.idx[reps]
        valid = ir >= 0
        Lg[np.broadcast_to(np.arange(len(reps))[:, None], ir.shape)[valid], ir[valid], :Rl] = F[valid]
        L = Lg[gi]  # members share their representative's factor
        own = np.flatnonzero(extra > 0)
        L[own, own, rv[own]] = np.sqrt(extra[own])
        self.L, self.r = L, r_tot.astype(np.int64)
        self.log["rank_mean"].append(float(r_tot.mean()))
        self.log["rank_max"].append(R)
        self.log["min_Lv2"].append(float(np.min(frac)))
        self.log["rank_last"] = float(r_tot.mean())
        self.log["min_Lv2_last"] = float(np.min(frac))

    # ------------------------------------------------------------------------ primal path
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
        ``w = Lc⁻¹ b_p`` and ``log det(A_p/λ)`` of the listed agents (spec §2.7).

        Agents are grouped by their rank ``r_v`` (no padding to the largest rank). Per group one GEMM
        over every (delay level, source) pair builds the ``r(r+1)/2`` distinct blocks
        ``Σ_u L_ua L_ub M_u(t − τ(u,v))`` of ``A_p`` on the packed upper triangles of the symmetric
        ``M_u`` (a quarter of the flops of the full ``r²·D²`` product), one gather lays them out as
        ``(n, p, p)``, and LAPACK ``potrf`` factors each system in place (numpy's batched Cholesky
        copies every matrix and runs ~2× slower at ``p = 512``)."""
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
                Lg = self.L[ag][:, :, :r]  # (n, V, r)
                # coefficients c[n, pair, (level, u)] = L_ua L_ub 1[τ(u,v) = level]
                Lt = np.ascontiguousarray(Lg.transpose(0, 2, 1))  # (n, r, V)
                sel = self.tau_acc[ag][:, None, :] == lev[:, None]  # (n, nlev, V)
                Ld = (Lt[:, None, :, :] * sel[:, :, None, :]).transpose(0, 2, 1, 3).reshape(n, r, -1)  # (n, r, nlev·V)
                if len(levels):
                    Lb = Lt if len(levels) == 1 else np.tile(Lt, (1, 1, len(levels)))
                    C = Ld[:, ia, :] * Lb[:, ib, :]  # (n, pairs, nlev·V), already in GEMM layout
                    C = C.reshape(n * npair, -1)
                    if np.count_nonzero(C) < 0.1 * C.size:  # small accept sets (Ind, Coop cliques, peripherals)
                        G = np.asarray(_sparse.csr_matrix(C) @ Mp).reshape(n, npair * ntri)
                    else:
                        G = (C @ Mp).reshape(n, npair * ntri)
                    bp = (Ld @ bs).reshape(n, p)
                else:
                    G, bp = np.zeros((n, npair * ntri)), np.zeros((n, p))
                pool = self._pool(r) if kp else None
                if pool is None:
                    A = np.take(G, gmap, axis=1).reshape(n, p, p)
                else:  # each model's persistent slot: no fresh pages every round
                    A = [pool[self._slot[c]] for c in ag]
                    for i in range(n):
                        np.take(G[i], gmap, out=A[i].reshape(-1))
                Lc, w, ld = A, np.empty((n, p)), np.empty(n)
                for i in range(n):
                    A[i].reshape(-1)[:: p + 1] += self.lam
                    # A[i] is C-ordered and symmetric: as a Fortran array it is A[i] itself; the upper
                    # factor U (UᵀU = A) written in place is, read in C order, the lower L = Uᵀ
                    U, info = _dpotrf(A[i].T, lower=0, clean=1, overwrite_a=1)
                    if info != 0:
                        raise np.linalg.LinAlgError(f"A_p of agent {ag[i]} is not positive definite (potrf info {info})")
                    if U.ctypes.data != A[i].ctypes.data:  # not written in place (never with this layout)
                        A[i][...] = U.T
                    w[i] = _lower_solve(Lc[i], bp[i])
                    ld[i] = 2.0 * np.log(np.diagonal(Lc[i])).sum() - p * np.log(self.lam)
                self.log["rebuilds"] += n
                if pool is not None:  # the state the next rounds update
                    for i, c in enumerate(ag):
                        self._inc[int(c)] = [Lc[i], bp[i], t]
                yield ag, Lc, w, ld

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
        at a time): re-measured 2026-11-27 after the scoring was batched (RBF row, V = 200, 32 Nyström
        features, T = 100: IGP-UCB 5.8 s with updates against 1.6 s rebuilding every round; the fitted
        3·10⁻⁵ made every small model take the slower path)."""
        return 2e-4 + 2.0 * p * p * k / 30e9 + 2.5e-9 * p * p

    def _cost_rebuild(self, p: int, k: int, r: int) -> float:
        """Rebuild from the statistics: coefficient GEMM over the (delay, source) columns (sparse when
        under 10 % are used) + ``potrf``."""
        ncols = len(self.delay_levels) * self.N
        if k < 0.1 * ncols:
            ncols = k
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
        Lr = self.L[reps]  # (G, V, R)
        active = np.any(Lr != 0, axis=2) & self.acc[reps]
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

    def _phi_arms(self, arms) -> np.ndarray:
        """(V, K, D) features of every agent's decision set (computed once when the set is shared)."""
        X = np.asarray(arms.X, dtype=float)
        if arms.shared:
            return np.broadcast_to(self.phi(X), (self.N, X.shape[0], self.D))
        if X.shape[0] != self.N:
            raise ValueError(f"{self.name} is synchronous: expected the decision sets of all {self.N} agents, "
                             f"got {X.shape[0]}")
        return self.phi(X.reshape(-1, X.shape[-1])).reshape(self.N, X.shape[1], self.D)

    def _ucb(self, mu, var, logdet):
        var = np.maximum(var, 0.0)
        if self.width == "eta":
            return mu + self.eta / np.sqrt(self.lam) * np.sqrt(var)
        if self.width in ("theory", "igp"):
            logv = np.log(self.N / self.delta) if self.width == "theory" else np.log(1.0 / self.delta)
            beta = self.B + self.R * np.sqrt(2.0 * (0.5 * logdet + 1.0 + logv))
            return mu + beta * np.sqrt(var)
        beta = self.R * np.sqrt(2.0 * (0.5 * logdet + np.log(1.0 / self.delta))) + np.sqrt(self.lam) * self.S
        return mu + beta * np.sqrt(var / self.lam)

    # -------------------------------------------------------------------------- dual path
    def _feat(self, X):
        """What the dual kernel is computed from: ``φ(X)`` (RFF or identity), or ``X`` itself for
        the exact RBF kernel (computed once per model and reused by every agent that scores it)."""
        return np.asarray(X, dtype=float) if self.features == "exact" else self.phi(X)

    def _kx(self, FA, FB):
        """``K_x`` between two sets given by :meth:`_feat`."""
        if self.features == "exact":
            from ..kernels import RBF
            return RBF(lengthscale=self.ell)(FA, FB)
        return FA @ FB.T

    def _dual_model(self, v: int, t: int, W: np.ndarray, sources=None):
        """Agent v's exact dual state at round t under network kernel W (V, V) (``sources``: the
        accepted sources to include, default all; a source whose row of W is zero adds nothing)."""
        us = np.flatnonzero(self.acc[v]) if sources is None else np.asarray(sources, dtype=np.int64)
        last = t - self.tau_acc[v, us]
        us, last = us[last >= 0], last[last >= 0]
        src = np.repeat(us, last + 1)
        rnd = (np.arange(len(src)) - np.repeat(np.cumsum(last + 1) - (last + 1), last + 1)).astype(np.int64)
        FX, y = self._feat(self.Xhist[rnd, src]), self.yhist[rnd, src]
        K = W[src[:, None], src[None, :]] * self._kx(FX, FX) if len(src) else np.zeros((0, 0))
        Lc = np.linalg.cholesky(K + self.lam * np.eye(len(src))) if len(src) else np.zeros((0, 0))
        alpha = solve_triangular(Lc, y, lower=True, check_finite=False) if len(src) else np.zeros(0)
        logdet = 2.0 * np.log(np.diag(Lc)).sum() - len(src) * np.log(self.lam) if len(src) else 0.0
        return src, FX, Lc, alpha, logdet

    def _scores_dual(self, model, W, q: int, Xq):
        src, FX, Lc, alpha, logdet = model
        FQ = self._feat(Xq)
        kqq = W[q, q] * np.diag(self._kx(FQ, FQ))
        if len(src) == 0:
            return self._ucb(np.zeros(len(Xq)), kqq, logdet)
        kap = W[q, src][:, None] * self._kx(FX, FQ)
        Z = solve_triangular(Lc, kap, lower=True, check_finite=False)
        return self._ucb(Z.T @ alpha, kqq - np.einsum("ij,ij->j", Z, Z), logdet)

    # -------------------------------------------------------------------------- protocol
    def scores(self, t: int, arms) -> list[np.ndarray]:
        """UCB scores of every agent's decision set at round ``t ≥ 1`` (list of (K,) arrays)."""
        V = self.N
        if self._refresh_due(t):
            self._factor(t)
            self._inc.clear()  # a new factor of K̂_z: every primal model is rebuilt
            self._inc_src.clear()
            used = set(int(x) for x in self.r[self.reps])
            self._pools = {r: a for r, a in self._pools.items() if r in used}
            if self.path == "dual":
                self.W_dual = self._W_dual(t)
        elif t % self.kz_every == 0:
            self._inc.clear()  # a fixed K_z: rebuilt on the same schedule (bounds the updates' round-off)
        out = [None] * V
        keep = set(self.centres.tolist()) if self.dist_mode else set()
        snap = {}
        if self.path == "primal":
            small = self._dual_smaller(t, len(arms.for_agent(0))) if self.dual_when_smaller \
                else np.zeros(len(self.reps), dtype=bool)
            for c in self.reps[small]:
                # the same (truncated) model in dual form: W̃ = L Lᵀ, fewer observations than features
                c = int(c)
                Lf = self.L[c, :, : int(self.r[c])]
                Wt = Lf @ Lf.T
                model = self._dual_model(c, t, Wt, sources=np.flatnonzero(self.acc[c] & np.any(Lf != 0, axis=1)))
                for v in self.members[c]:
                    out[v] = self._scores_dual(model, Wt, v, arms.for_agent(v))
                    if v in keep:
                        snap[int(v)] = (model, Wt)
            upd, reb = self._split_updates(t, self.reps[~small])
            # every agent's arms through the feature map at once; per model one triangular solve for
            # all its members' arms; the UCB of every primal-scored agent in one vectorised step
            Phi = self._phi_arms(arms)  # (V, K, D)
            Kn = Phi.shape[1]
            mu, var, ldv = np.zeros((V, Kn)), np.zeros((V, Kn)), np.zeros((V, 1))
            done = np.zeros(V, dtype=bool)
            for ag, Lc, w, ld in chain(self._primal(t, reb), self._update(t, upd)):
                # the chunk's models share one rank r (p = r·D): their members at once
                mems = [self.members[int(c)] for c in ag]
                sizes = np.array([len(m) for m in mems])
                vs = np.concatenate(mems)
                rv = int(self.r[ag[0]])  # members share their representative's factor and rank
                mu[vs], var[vs] = self._primal_mu_var(Lc, w, sizes, self.L[vs, vs, :rv], Phi[vs])
                ldv[vs, 0], done[vs] = np.repeat(np.asarray(ld), sizes), True
                for i, c in enumerate(ag):
                    for v in mems[i]:
                        if v in keep:  # a copy: the factor is updated in place in the next rounds
                            snap[int(v)] = (Lc[i].copy(), w[i], ld[i], self.L[v, :, :rv].copy())
            if done.any():
                ucb = self._ucb(mu[done], var[done], ldv[done])
                for v, s_v in zip(np.flatnonzero(done), ucb):
                    out[v] = s_v
        else:
            for v in range(V):
                W = self.W_dual[v]
                model = self._dual_model(v, t, W)
                out[v] = self._scores_dual(model, W, v, arms.for_agent(v))
                if v in keep:
                    snap[v] = (model, W)
        if self.dist_mode:
            self.snapshots[t] = snap
            self.snapshots.pop(t - self.tau_max - 1, None)
            self._dist_scores(t, arms, out, Phi if self.path == "primal" else None)
        return out

    def _W_dual(self, t: int) -> np.ndarray:
        """(V, V, V) dense network kernels for the dual path; with ``kz="mmd"`` from the raw samples
        by the V-statistic (independent of the embedding sums the primal path uses)."""
        V = self.N
        # K̂_z covers the sources with visible data (refreshed until all have some); a fixed
        # kernel (oracle, ones) covers every accepted source once and for all
        act = self._active(t) if self.kz == "mmd" and self.accept != "self" else self.idx >= 0
        Wd = np.zeros((V, V, V))
        for v in range(V):
            ii = self.idx[v][act[v]]
            if self.kz == "mmd" and self.accept != "self":
                kP = lambda a, b: self.phi_p(a) @ self.phi_p(b).T  # noqa: E731
                samples = [self.Xhist[: t - int(self.tau_acc[v, u]) + 1, u] for u in ii]
                M2 = np.array([[mmd_vstatistic(a, b, kP) for b in samples] for a in samples])
                Wv = kz_from_mmd(M2, self.sigma_z, self.squared)
            elif self.kz == "oracle" and self.accept != "self":
                Wv = self.W_oracle[np.ix_(ii, ii)]
            else:
                Wv = np.ones((len(ii), len(ii)))
            Wd[v][np.ix_(ii, ii)] = Wv
        return Wd

    def _dist_scores(self, t, arms, out, Phi=None):
        """Peripherals imitate their centre's model of round t − Δ (copy_policy); ``Phi``: the
        (V, K, D) arm features when :meth:`scores` computed them."""
        if self.peripheral_mode != "copy_policy":
            return
        batch: dict[tuple[int, int], list] = {}  # (snapshot round, centre) -> peripherals (primal form)
        for p in np.flatnonzero(~self.is_centre):
            c, Dl = int(self.centre_of[p]), int(self.delta_c[p])
            if t < Dl or (t - Dl) not in self.snapshots:
                continue
            snap = self.snapshots[t - Dl][c]
            if len(snap) == 4:
                if not np.any(snap[3][p]):
                    continue  # p's data had not reached c yet: keep p's own KernelUCB
                batch.setdefault((t - Dl, c), []).append(int(p))
            else:
                model, W = snap
                if W[p, p] == 0:
                    continue
                out[p] = self._scores_dual(model, W, p, arms.for_agent(p))
        if batch and Phi is None:
            Phi = self._phi_arms(arms)
        for (s, c), ps in batch.items():
            Lc, w, ld, Lrows = self.snapshots[s][c]
            mu, var = self._primal_mu_var([Lc], [w], [len(ps)], Lrows[ps], Phi[ps])
            for p, s_p in zip(ps, self._ucb(mu, var, ld)):
                out[p] = s_p

    def select(self, t, agents, arms):
        V = self.N
        if len(agents) != V:
            raise ValueError(f"{self.name} is synchronous: all {V} agents act every round (got {len(agents)})")
        K = arms.for_agent(0).shape[0]
        if t == 0:
            return self.rng.integers(K, size=V)  # Alg. 1 l.5: Random(D_{v,1})
        sc = self.scores(t, arms)
        ch = np.array([argmax_ties(s, self.rng) for s in sc], dtype=np.int64)
        if self.dist_mode and self.peripheral_mode != "copy_policy":
            for p in np.flatnonzero(~self.is_centre):
                c, Dl = int(self.centre_of[p]), int(self.delta_c[p])
                if t < Dl:
                    continue
                if self.peripheral_mode == "copy_arm":
                    if not arms.shared:
                        raise ValueError("peripheral_mode='copy_arm' needs a shared fixed decision set; "
                                         "use 'copy_policy' or 'nearest_arm'")
                    ch[p] = self.choice_hist[t - Dl, c]
                else:
                    xc = self.Xhist[t - Dl, c]
                    ch[p] = int(np.argmin(np.sum((arms.for_agent(p) - xc) ** 2, axis=1)))
        return ch

    def update(self, t, agents, arms, choices, rewards):
        V = self.N
        X = np.stack([arms.for_agent(k)[choices[k]] for k in range(V)])
        y = np.asarray(rewards, dtype=float)
        self.Xhist[t], self.yhist[t], self.choice_hist[t] = X, y, choices
        if self.features == "nystroem" and self.kname == "rbf":
            NystroemFeatures.check(X)
        F = self.phi(X)
        self.stats.push(t, M=F[:, :, None] * F[:, None, :], b=y[:, None] * F, E=self.phi_p(X))
        self._Fring[t % len(self._Fring)], self._yring[t % len(self._yring)] = F, y
        if self.accept != "self":
            self.ledger.deliver(t, int(self._deliv[t]), self.msg_scalars, "observation")
            self.log["accepted_deliveries"] += int(self._accepted_per_round[t])
            if self.dist_mode and self.peripheral_mode == "copy_policy" and self.L is not None:
                hops = np.cumsum(self._centre_hops, axis=1)[:, min(self.gamma, t + 1)]
                n_per = np.bincount(self.centre_of[~self.is_centre], minlength=V)[self.centres]
                for h, k, R in zip(hops, n_per, self.r[self.centres]):  # each centre's own rank
                    p = int(R) * self.D
                    if h:
                        self.ledger.deliver(t, int(h), int(p + p * (p + 1) // 2 + int(R) * k), "model_snapshot")

    def info(self):
        return {"rank_mean": float(np.mean(self.log["rank_mean"])) if self.log["rank_mean"] else None,
                "rank_max": int(max(self.log["rank_max"])) if self.log["rank_max"] else None,
                "min_Lv2": float(min(self.log["min_Lv2"])) if self.log["min_Lv2"] else None,
                "rank_last": self.log["rank_last"], "min_Lv2_last": self.log["min_Lv2_last"],
                "r_limit": None if self.r_limit is None else int(self.r_limit),
                "capped_agent_refreshes": int(self.log["capped"]),
                "accepted_deliveries": int(self.log["accepted_deliveries"]),
                "gamma": int(self.gamma), "accept_size_mean": float(self.acc.sum(1).mean())}


# ------------------------------------------------------------------------------ the methods
class CoopKernelUCB(NetworkKernelUCB):
    """Coop-KernelUCB (Alg. 1): keeps only messages from its own clique of the cover of ``G_γ``."""

    name = "Coop-KernelUCB"
    default_accept = "clique"


class EagerKernelUCB(NetworkKernelUCB):
    """Eager-KernelUCB (Alg. 2): keeps every message that reaches it (all of ``N_γ(v)``)."""

    name = "Eager-KernelUCB"
    default_accept = "neighbourhood"


class DistKernelUCB(NetworkKernelUCB):
    """Dist-KernelUCB (Alg. 3): centres run Eager, peripherals imitate (``peripheral_mode``)."""

    name = "Dist-KernelUCB"
    default_accept = "neighbourhood"

    def __init__(self, *args, peripheral_mode="copy_policy", **kw):
        if kw.get("accept", "neighbourhood") != "neighbourhood":
            raise ValueError("Dist-KernelUCB's centres accept their whole gamma-neighbourhood; accept is fixed")
        super().__init__(*args, peripheral_mode=peripheral_mode, **kw)


def _linear_only(kw, name):
    k = kw.get("kernel")
    if k is not None and _kernel_name(k)[0] != "linear":
        raise ValueError(f"{name} is a linear method: kernel must be {{'name': 'linear'}}, got {k!r}")
    kw["kernel"] = {"name": "linear"}


class IndLinUCB(NetworkKernelUCB):
    """Independent LinUCB (pooled model per agent, ``α = η``): ``xᵀθ̂ + η‖x‖_{A⁻¹}`` on own data."""

    name = "Ind-LinUCB"
    default_accept, default_kz = "self", "ones"

    def __init__(self, *args, **kw):
        _linear_only(kw, self.name)
        super().__init__(*args, **kw)


class IndOFUL(IndLinUCB):
    """Independent OFUL (Abbasi-Yadkori et al. 2011): width ``β_t‖x‖_{A⁻¹}`` (module docstring)."""

    name = "Ind-OFUL"
    default_width = "oful"


class IndKernelUCB(NetworkKernelUCB):
    """Independent KernelUCB (Valko et al. 2013): ``μ + (η/√λ)σ`` on own data, ``K = K_x``."""

    name = "Ind-KernelUCB"
    default_accept, default_kz = "self", "ones"


class IndIGPUCB(NetworkKernelUCB):
    """Independent IGP-UCB (Chowdhury & Gopalan 2017): ``λ = 1 + 2/T``, ``β_t = B + R√(2(γ̂+1+ln 1/δ))``."""

    name = "Ind-IGP-UCB"
    default_accept, default_kz, default_width = "self", "ones", "igp"

    def __init__(self, n_agents, horizon, *args, lam=None, **kw):
        super().__init__(n_agents, horizon, *args, lam=1.0 + 2.0 / horizon if lam is None else lam, **kw)


class NaiveLinUCB(IndLinUCB):
    """Naive Cooperation, LinUCB-based: own and all received observations as its own (``W ≡ 1``)."""

    name = "Naive-LinUCB"
    default_accept = "neighbourhood"


class NaiveIGPUCB(IndIGPUCB):
    """Naive Cooperation, IGP-UCB-based (the paper's RBF-row Naive)."""

    name = "Naive-IGP-UCB"
    default_accept = "neighbourhood"


class NaiveKernelUCB(IndKernelUCB):
    """Naive Cooperation with KernelUCB's same-η width (the spec's ablation, §3)."""

    name = "Naive-KernelUCB"
    default_accept = "neighbourhood"
