"""FN-UCB theory checks: the maths of the checks, pure functions of arrays (UCB_a coverage for E12, the NTK
Gram matrix and the dual ridge/GD solutions and step size for E14, Theorem 2's round bound for E4, rank
correlations for E8)."""
from __future__ import annotations

import math

import numpy as np
from ...validation import check, ge, gt, rule


def coverage_fraction(h, mean, q, nu: float, lam: float, two_sided: bool = False) -> float:
    r"""Fraction of the entries with ``h ≤ UCB_a = mean + ν √λ √q`` (Lemma 3's upper side), or with
    ``|h − mean| ≤ ν √λ √q`` (``two_sided``, Lemma 3 as stated). Arrays of one shape (any)."""
    h, mean, q = (np.asarray(a, dtype=float) for a in (h, mean, q))
    check("h, mean, q", (h, mean, q), rule(lambda a: a[0].shape == a[1].shape == a[2].shape and a[0].size > 0,
                                           "arrays of one non-empty shape"))
    check("nu", nu, ge(0))
    check("lam", lam, gt(0))
    w = nu * math.sqrt(lam) * np.sqrt(np.maximum(q, 0.0))
    ok = np.abs(h - mean) <= w if two_sided else h <= mean + w
    return float(np.mean(ok))


def ntk_gram(mlp, theta0, XA: np.ndarray, XB: np.ndarray | None = None, chunk: int = 512) -> np.ndarray:
    r"""``Φ(XA) Φ(XB)ᵀ`` with the paper's features ``φ(x) = g(x; θ0)/√m`` (``feature_scale="sqrt_m"``),
    i.e. the empirical NTK ``k(x, x') = ⟨g(x; θ0), g(x'; θ0)⟩/m``, built ``chunk`` rows of XA at a time
    (p0 is large). XA (a, d_in), XB (b, d_in) network inputs (XB = XA if None) → (a, b)."""
    XA = np.asarray(XA, dtype=float)
    FB = mlp.features_numpy(theta0, XA if XB is None else np.asarray(XB, dtype=float), "sqrt_m")
    out = np.empty((XA.shape[0], FB.shape[0]))
    for s in range(0, XA.shape[0], chunk):
        out[s:s + chunk] = mlp.features_numpy(theta0, XA[s:s + chunk], "sqrt_m") @ FB.T
    return out


def dual_ridge(K: np.ndarray, Kx: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    r"""``⟨φ(x), θ^local⟩`` for every row of ``Kx`` in dual form: with ``θ^local = (λI + ΦᵀΦ)⁻¹ Φᵀ y``
    (Lemma 4, step 1) and the push-through identity ``(λI + ΦᵀΦ)⁻¹Φᵀ = Φᵀ(λI + ΦΦᵀ)⁻¹``,

    .. math::  \langle \phi(x), \theta^{local}\rangle = k(x)^\top (K + \lambda I)^{-1} y,

    an n × n system instead of p0 × p0. K (n, n) = ΦΦᵀ, Kx (n_x, n) = Φ(x)Φᵀ, y (n,) → (n_x,)."""
    from scipy.linalg import solve

    A = np.asarray(K, dtype=float) + lam * np.eye(K.shape[0])
    return np.asarray(Kx, dtype=float) @ solve(A, np.asarray(y, dtype=float), assume_a="pos")


def dual_gd(K: np.ndarray, Kx: np.ndarray, y: np.ndarray, lam: float, lr: float, steps: int) -> np.ndarray:
    r"""The linear model's gradient descent in dual form: ``steps`` steps of size ``lr`` on
    ``½‖Φw − y‖² + ½λ‖w‖²`` from ``w = 0`` stay in the row space, ``w = Φᵀa``, with

    .. math::  a \leftarrow (1 - \eta'\lambda)\, a - \eta' (K a - y),

    and predict ``⟨φ(x), w⟩ = k(x)ᵀ a``. This is Eq. (1)'s GD on the linearised network
    ``f ≈ ⟨g(x;θ0), θ − θ0⟩`` written in ``w = √m (θ − θ0)``: a step η in θ is ``η' = ηm`` in w."""
    K, y = np.asarray(K, dtype=float), np.asarray(y, dtype=float)
    a = np.zeros_like(y)
    decay = 1.0 - lr * lam
    for _ in range(int(steps)):
        a = decay * a - lr * (K @ a - y)
    return np.asarray(Kx, dtype=float) @ a


def linearisation_step(m: int, n: int, lam: float, tol: float, L: int = 2) -> tuple[float, int]:
    r"""GD step size and step count for E14: the paper's ``η = C4 (mλ + m t L)⁻¹`` (Theorem 1, with
    t = n local points) with ``C4 = 1`` (allowed: ``C4 ≤ 1 + tL``), and ``J`` the smallest number of
    steps with ``(1 − ηmλ)^J ≤ tol`` (the factor of Lemma 4's ``ε_{η,J} = C2 (1 − ηmλ)^J √(tL/λ)``;
    the paper's ``J = Õ(TL/(λC4))`` involves the unknown C2)."""
    eta = 1.0 / (m * (lam + n * L))
    rate = 1.0 - eta * m * lam
    return eta, int(math.ceil(math.log(tol) / math.log(rate)))


def round_bound(T: int, D: float, R: float) -> tuple[float, float]:
    """Theorem 2's proof (App. D): ``(ζ, ⌈T/ζ⌉ + ⌈R ζ/D⌉)`` with ``ζ = √(DT/R)`` (R ≥ 1)."""
    R = max(float(R), 1.0)
    zeta = math.sqrt(D * T / R)
    return zeta, float(math.ceil(T / zeta) + math.ceil(R * zeta / D))


def spearman_rows(A) -> np.ndarray:
    """Spearman ρ between the column order (increasing t) and each row of ``A`` (..., n_t) → (...)
    (average ranks for ties; NaN for a constant row)."""
    from scipy.stats import rankdata

    A = np.asarray(A, dtype=float)
    r = rankdata(A, axis=-1)
    u = np.arange(A.shape[-1], dtype=float)
    u -= u.mean()
    rc = r - r.mean(axis=-1, keepdims=True)
    den = np.sqrt(np.sum(rc * rc, axis=-1) * float(u @ u))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, rc @ u / np.where(den > 0, den, 1.0), np.nan)
