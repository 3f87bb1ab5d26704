r"""Coop-KernelUCB's feature maps and MMD (Dubey & Pentland, ICML 2020, §3.3, Eq. 10–12).

* The feature map ``φ`` of the context kernel ``K_x``: the identity (linear ``K_x``), random Fourier
  features (``features="rff"``, :class:`RandomFourierFeatures`) or Nyström features on landmarks
  uniform on the unit sphere (``features="nystroem"``, :class:`NystroemFeatures`, for unit-norm
  contexts: far more accurate per feature on a smooth kernel, so far smaller systems).
* The feature map ``φ_P`` of the MMD kernel ``k_P`` (the agents' mean embeddings, Eq. 10).
* The MMD between two agents' context distributions (Eq. 12 with its ``1/n²`` factors: the normalised
  V-statistic) and the network kernel estimate ``K̂_z = exp(−MMD/(2σ_z²))`` (Eq. 11).

Both maps are drawn **once per run** from a key of the run's algorithm seed that does not depend on
the method (:func:`method_seed`: ``SeedSequence(entropy, spawn_key + (crc32("coop-rff"),))``), so every
RBF-row method of a run uses the same map (a choice of this package: the paper does not say how the
methods' maps relate). Exact-RBF dual runs (``features="exact"``, ``path="dual"`` only) measure the
floor a finite map leaves at small sizes.
"""
from __future__ import annotations

import zlib

import numpy as np
from ..validation import check, ge, gt, keys_in, rule

__all__ = ["method_seed", "RandomFourierFeatures", "NystroemFeatures", "mmd_from_embeddings", "mmd_vstatistic",
           "kz_from_mmd", "feature_maps"]


def method_seed(seed: np.random.SeedSequence, label: str) -> np.random.SeedSequence:
    """A child of ``seed`` keyed by ``label`` only: the same for every method given the same run seed."""
    return np.random.SeedSequence(entropy=seed.entropy,
                                  spawn_key=tuple(seed.spawn_key) + (zlib.crc32(label.encode()),))


def _check_map(n_features: int, lengthscale: float) -> int:
    """Validate an RBF feature map's size and lengthscale; return the size."""
    check("n_features", n_features, ge(1))
    check("lengthscale", lengthscale, gt(0))
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
    check("kernel", kernel, rule(lambda k: isinstance(k, dict) and k.get("name") in ("linear", "rbf"),
                                 "{'name': 'linear'} or {'name': 'rbf', 'lengthscale': l}"), keys_in("name", "lengthscale"))
    ell = float(kernel.get("lengthscale", 1.0))
    check("lengthscale", ell, gt(0))
    return kernel["name"], ell


def feature_maps(cfg, dim: int, seed: np.random.SeedSequence):
    """``(φ, φ_P)`` of a run: the map of ``K_x`` and the MMD embedding's map, for the settings ``cfg``
    (:class:`~bandits.algorithms.coop_config.CoopConfig`), drawn from ``method_seed(seed, "coop-rff")``."""
    rng_feat = np.random.default_rng(method_seed(seed, "coop-rff"))
    rng_kx, rng_emb = (np.random.default_rng(s) for s in rng_feat.bit_generator.seed_seq.spawn(2))
    fmap = NystroemFeatures if cfg.features == "nystroem" else RandomFourierFeatures
    phi = _Identity(dim) if cfg.kname == "linear" else fmap(dim, cfg.n_features, cfg.ell, rng_kx)
    if cfg.embed is None:
        phi_p = _Identity(dim) if cfg.kname == "linear" else RandomFourierFeatures(dim, cfg.n_embed, cfg.ell, rng_emb)
    else:
        ename, eell = cfg.embed
        phi_p = _Identity(dim) if ename == "linear" else RandomFourierFeatures(dim, cfg.n_embed, eell, rng_emb)
    return phi, phi_p
