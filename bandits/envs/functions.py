r"""Closed-form reward functions and domain samplers for the kernel-bandit papers.

Pure numpy. No global random state: every random quantity (domain points, θ*, RKHS weights) is drawn
from an explicit :class:`numpy.random.Generator` passed in by the caller.

Sources
-------
* DUETS (Pavlovic, Salgia, Zhao 2024), Sec. 5 "Empirical Studies": h1, h2 on the unit ball of R^10,
  Branin on [0,1]^2 and Hartmann-4D on [0,1]^4. The paper only names the last two (citing Picheny et
  al. 2013); the exact forms here, the negated Picheny-rescaled Branin and the raw Hartmann-4D sum to
  be maximised, are those of the authors' code (their repository sudeepsalgia/distributed_kernel_bandits,
  ``branin_runscript.py`` and ``hartmann_runscript.py``). The theory environment "rkhs2d" is not in
  the paper: a choice of this package for the checks of Theorem 4.1 and Lemmas 4.2–4.5.
* Async-KernelUCB (Li, Wang, Wang, Wang, ICLR 2023), Sec. 5 "Synthetic dataset": f1, f2 in
  d = 20, arms and θ* "uniformly sampled from a ℓ2 unit ball".

Conventions
-----------
* Every reward function takes ``X`` of shape ``(n, d)`` and returns shape ``(n,)``. A single point of
  shape ``(d,)`` is accepted and gives a numpy scalar.
* All functions are to be **maximised**.
* SE kernel: k(x, x') = exp(−‖x − x'‖² / (2ℓ²)), so k(x, x) = 1. The Async-KernelUCB paper writes the
  same kernel as exp(−γ‖x − y‖²), i.e. γ = 1/(2ℓ²).

Registry
--------
``FUNCTIONS[name]`` (or :func:`get_function`) gives a :class:`FunctionSpec`; ``spec.make(rng)`` draws
the function's own random parameters and returns a callable :class:`Objective`; ``spec.sample(rng, n)``
draws ``n`` points from the function's domain. Names: ``"h1"``, ``"h2"``, ``"branin"``,
``"hartmann4"``, ``"rkhs2d"``, ``"f1"``, ``"f2"``. An unknown name raises :class:`UnknownFunctionError`
(a ``ValueError`` and a ``KeyError``) whose message lists the allowed names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
from ..validation import check, fail, ge, gt, one_of, rule

__all__ = [
    "DOMAINS",
    "sample_sphere",
    "sample_ball",
    "sample_cube",
    "sample_domain",
    "h1",
    "h2",
    "f1",
    "f2",
    "F2_ZSTAR",
    "f2_max",
    "branin_rescaled",
    "BRANIN_FSTAR",
    "BRANIN_ARGMAX",
    "hartmann4",
    "HARTMANN4_A",
    "HARTMANN4_P",
    "HARTMANN4_ALPHA",
    "HARTMANN4_FSTAR",
    "HARTMANN4_ARGMAX",
    "se_kernel",
    "RKHSFunction",
    "rkhs_function",
    "Objective",
    "FunctionSpec",
    "FUNCTIONS",
    "UnknownFunctionError",
    "get_function",
]

DOMAINS: tuple[str, ...] = ("sphere", "ball", "cube")


# ----------------------------------------------------------------------------------------------------
# Domain samplers
# ----------------------------------------------------------------------------------------------------
def _check_nd(n: int, d: int) -> tuple[int, int]:
    n, d = int(n), int(d)
    check("n", n, ge(0))
    check("d", d, ge(1))
    return n, d


def sample_sphere(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    r"""Uniform points on the unit sphere S^{d−1} ⊂ R^d.

    x = g / ‖g‖ with g ~ N(0, I_d) (normalised Gaussians; the DUETS code's candidate set for h1, h2).

    Args:
        rng: the random generator.
        n: number of points.
        d: ambient dimension.

    Returns:
        Array of shape ``(n, d)`` whose rows have ‖x‖ = 1.
    """
    n, d = _check_nd(n, d)
    g = rng.standard_normal((n, d))
    norms = np.linalg.norm(g, axis=1, keepdims=True)
    # A zero Gaussian vector has probability 0; guard anyway so the output is always on the sphere.
    bad = norms[:, 0] == 0.0
    while np.any(bad):
        g[bad] = rng.standard_normal((int(bad.sum()), d))
        norms[bad] = np.linalg.norm(g[bad], axis=1, keepdims=True)
        bad = norms[:, 0] == 0.0
    return g / norms


def sample_ball(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    r"""Uniform points in the closed ℓ2 unit ball of R^d.

    x = r · u with u = g/‖g‖, g ~ N(0, I_d), and radius r = U^{1/d}, U ~ Uniform[0, 1]
    (Async-KernelUCB Sec. 5 "Synthetic dataset": "uniformly sampled from a ℓ2 unit ball"; the
    sampler is a choice of this package; in d = 20 nearly all the mass is close to the sphere).

    Args:
        rng: the random generator.
        n: number of points.
        d: ambient dimension.

    Returns:
        Array of shape ``(n, d)`` whose rows have ‖x‖ ≤ 1.
    """
    n, d = _check_nd(n, d)
    u = sample_sphere(rng, n, d)
    r = rng.random(n) ** (1.0 / d)
    return u * r[:, None]


def sample_cube(rng: np.random.Generator, n: int, d: int) -> np.ndarray:
    r"""Uniform points in the unit cube [0, 1]^d (Branin, Hartmann-4, rkhs2d candidates).

    Args:
        rng: the random generator.
        n: number of points.
        d: dimension.

    Returns:
        Array of shape ``(n, d)`` with entries in [0, 1).
    """
    n, d = _check_nd(n, d)
    return rng.random((n, d))


_SAMPLERS: dict[str, Callable[[np.random.Generator, int, int], np.ndarray]] = {
    "sphere": sample_sphere,
    "ball": sample_ball,
    "cube": sample_cube,
}


def sample_domain(rng: np.random.Generator, n: int, d: int, domain: str) -> np.ndarray:
    """Dispatch to :func:`sample_sphere`, :func:`sample_ball` or :func:`sample_cube`.

    Args:
        rng: the random generator.
        n: number of points.
        d: dimension.
        domain: one of ``"sphere"``, ``"ball"``, ``"cube"``.

    Returns:
        Array of shape ``(n, d)``.

    Raises:
        ValueError: for an unknown domain; the message names the allowed values.
    """
    try:
        sampler = _SAMPLERS[domain]
    except (KeyError, TypeError):
        sampler = None
    if sampler is None:
        fail("domain", domain, one_of(*DOMAINS))
    return sampler(rng, n, d)


# ----------------------------------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------------------------------
def _as_points(X: Any, d: int | None = None) -> tuple[np.ndarray, bool]:
    """Return ``X`` as a float (n, d) array and whether the input was a single point (d,)."""
    X = np.asarray(X, dtype=float)
    single = X.ndim == 1
    if single:
        X = X[None, :]
    check("X", X, rule(lambda a: a.ndim == 2, "an (n, d) or (d,) array"))
    if d is not None:
        check("X", X, rule(lambda a: a.shape[1] == d, f"an array with {d} columns"))
    return X, single


def _finish(values: np.ndarray, single: bool) -> np.ndarray:
    return values[0] if single else values


def _projection(X: Any, theta: Any) -> tuple[np.ndarray, bool]:
    """z = X θ* with shape (n,), after checking that θ* is a vector matching X's columns."""
    theta = np.asarray(theta, dtype=float)
    check("theta", theta, rule(lambda a: a.ndim == 1, "a (d,) array"))
    X, single = _as_points(X, theta.shape[0])
    return X @ theta, single


# ----------------------------------------------------------------------------------------------------
# DUETS h1, h2 and Async-KernelUCB f1, f2
# ----------------------------------------------------------------------------------------------------
def h1(X: Any, theta: Any) -> np.ndarray:
    r"""DUETS synthetic function h1 (Li et al. 2022), Sec. 5 of DUETS.

        h1(x) := cos(3 xᵀθ*)

    θ* is "randomly chosen from the surface of the unit ball" B ⊂ R^10. With ‖x‖ ≤ 1 and ‖θ*‖ = 1 the
    maximum is 1, attained on {x : xᵀθ* = 0} (many maximisers).

    Args:
        X: points, shape ``(n, d)`` (or one point ``(d,)``).
        theta: θ*, shape ``(d,)``.

    Returns:
        Values, shape ``(n,)`` (a numpy scalar for a single point).
    """
    z, single = _projection(X, theta)
    return _finish(np.cos(3.0 * z), single)


def h2(X: Any, theta: Any) -> np.ndarray:
    r"""DUETS synthetic function h2, Sec. 5 of DUETS.

        h2(x) := (xᵀθ*)³ − 3(xᵀθ*)² + 3(xᵀθ*) + 3  =  (xᵀθ* − 1)³ + 4.

    Increasing in z = xᵀθ*; with ‖x‖ ≤ 1 and ‖θ*‖ = 1 the maximum is 4, attained only at x = θ*.

    Args:
        X: points, shape ``(n, d)`` (or one point ``(d,)``).
        theta: θ*, shape ``(d,)``.

    Returns:
        Values, shape ``(n,)`` (a numpy scalar for a single point).
    """
    z, single = _projection(X, theta)
    return _finish(z**3 - 3.0 * z**2 + 3.0 * z + 3.0, single)


def f1(X: Any, theta: Any) -> np.ndarray:
    r"""Async-KernelUCB synthetic reward 1 (Sec. 5, "Synthetic dataset"; d = 20).

        f1(x) = cos(3xᵀθ⋆)

    Arms and θ⋆ are "uniformly sampled from a ℓ2 unit ball". Same formula as :func:`h1`. The maximum
    over the ball is 1, attained on {x : xᵀθ⋆ = 0}; on a finite arm set A_t the best arm is the one
    closest to orthogonal to θ⋆.

    Args:
        X: arms, shape ``(n, d)`` (or one arm ``(d,)``).
        theta: θ⋆, shape ``(d,)``.

    Returns:
        Values, shape ``(n,)`` (a numpy scalar for a single point).
    """
    return h1(X, theta)


#: Interior maximiser of g(z) = z³ − 3z² − z + 3: root of g'(z) = 3z² − 6z − 1, z = 1 − 2/√3 ≈ −0.1547.
F2_ZSTAR: float = 1.0 - 2.0 / math.sqrt(3.0)


def _f2_poly(z: np.ndarray | float) -> np.ndarray | float:
    return z**3 - 3.0 * z**2 - z + 3.0


def f2(X: Any, theta: Any) -> np.ndarray:
    r"""Async-KernelUCB synthetic reward 2 (Sec. 5, "Synthetic dataset"; d = 20).

        f2(x) = (xᵀθ⋆)³ − 3(xᵀθ⋆)² − (xᵀθ⋆) + 3

    Note the linear term is −(xᵀθ⋆), not +3(xᵀθ⋆) as in DUETS' :func:`h2`. As a function of
    z = xᵀθ⋆, g(z) = z³ − 3z² − z + 3 has a local maximum at z* = 1 − 2/√3 ≈ −0.1547 with
    g(z*) ≈ 3.0792 (see :func:`f2_max`), and g(±1) = 0.

    Args:
        X: arms, shape ``(n, d)`` (or one arm ``(d,)``).
        theta: θ⋆, shape ``(d,)``.

    Returns:
        Values, shape ``(n,)`` (a numpy scalar for a single point).
    """
    z, single = _projection(X, theta)
    return _finish(_f2_poly(z), single)


def f2_max(theta_norm: float) -> float:
    r"""Continuous maximum of :func:`f2` over the unit ball, given r = ‖θ⋆‖ ≤ 1.

    z = xᵀθ⋆ ranges over [−r, r]. g is increasing on (−∞, z*] and decreasing on [z*, 1 + 2/√3], so
    max = g(z*) ≈ 3.0792 if r ≥ |z*| ≈ 0.1547, else g(−r).
    """
    r = float(theta_norm)
    return float(_f2_poly(F2_ZSTAR if r >= -F2_ZSTAR else -r))


# ----------------------------------------------------------------------------------------------------
# Branin (negated Picheny et al. 2013 rescaling) on [0, 1]^2
# ----------------------------------------------------------------------------------------------------
#: f* = (54.81 − 5/(4π)) / 51.95 = (54.81 − 0.397887) / 51.95 ≈ 1.047394.
BRANIN_FSTAR: float = (54.81 - 1.25 / math.pi) / 51.95
#: The three maximisers ((5 − π)/15, 12.275/15), ((5 + π)/15, 2.275/15), ((5 + 3π)/15, 2.475/15)
#: ≈ (0.123894, 0.818333), (0.542773, 0.151667), (0.961652, 0.165000).
BRANIN_ARGMAX: tuple[tuple[float, float], ...] = (
    ((5.0 - math.pi) / 15.0, 12.275 / 15.0),
    ((5.0 + math.pi) / 15.0, 2.275 / 15.0),
    ((5.0 + 3.0 * math.pi) / 15.0, 2.475 / 15.0),
)


def branin_rescaled(X: Any) -> np.ndarray:
    r"""Negated Picheny et al. (2013) rescaled Branin on [0, 1]², to be maximised (DUETS
    Sec. 5 names "Branin" only; this form is the authors' code's, ``branin_runscript.py``).

    With u = 15x₁ − 5 and v = 15x₂:

        f(x) = −[ (v − 5.1u²/(4π²) + 5u/π − 6)² + (10 − 10/(8π)) cos(u) − 44.81 ] / 51.95

    i.e. f(x) = −(Branin_std(x̄) − 10 − 44.81)/51.95, where the standard Branin
    a(x̄₂ − b x̄₁² + c x̄₁ − r)² + s(1 − t)cos(x̄₁) + s (a = 1, b = 5.1/(4π²), c = 5/π, r = 6, s = 10,
    t = 1/(8π)) has minimum 0.397887. Maximum f* = (54.81 − 0.397887)/51.95 = 1.047394, attained at
    (0.123894, 0.818333), (0.542773, 0.151667) and (0.961652, 0.165000).

    Args:
        X: points in [0, 1]², shape ``(n, 2)`` (or one point ``(2,)``).

    Returns:
        Values, shape ``(n,)`` (a numpy scalar for a single point).
    """
    X, single = _as_points(X, 2)
    u = 15.0 * X[:, 0] - 5.0
    v = 15.0 * X[:, 1]
    inner = v - 5.1 * u**2 / (4.0 * math.pi**2) + 5.0 * u / math.pi - 6.0
    val = -(inner**2 + (10.0 - 10.0 / (8.0 * math.pi)) * np.cos(u) - 44.81) / 51.95
    return _finish(val, single)


# ----------------------------------------------------------------------------------------------------
# Hartmann-4D on [0, 1]^4 (raw sum, to be maximised)
# ----------------------------------------------------------------------------------------------------
#: A: first 4 columns of the Hartmann-6 matrix.
HARTMANN4_A: np.ndarray = np.array(
    [
        [10.0, 3.0, 17.0, 3.5],
        [0.05, 10.0, 17.0, 0.1],
        [3.0, 3.5, 1.7, 10.0],
        [17.0, 8.0, 0.05, 10.0],
    ]
)
#: P = 10⁻⁴ × (first 4 columns of the Hartmann-6 P).
HARTMANN4_P: np.ndarray = 1e-4 * np.array(
    [
        [1312.0, 1696.0, 5569.0, 124.0],
        [2329.0, 4135.0, 8307.0, 3736.0],
        [2348.0, 1451.0, 3522.0, 2883.0],
        [4047.0, 8828.0, 8732.0, 5743.0],
    ]
)
#: α = (1.0, 1.2, 3.0, 3.2).
HARTMANN4_ALPHA: np.ndarray = np.array([1.0, 1.2, 3.0, 3.2])
for _arr in (HARTMANN4_A, HARTMANN4_P, HARTMANN4_ALPHA):
    _arr.setflags(write=False)
#: Maximum found by 300-start L-BFGS-B (f* ≈ 3.72984; not in the paper; the authors' ``hartmann_runscript.py``
#: defines 3.731 but does not use it).
HARTMANN4_FSTAR: float = 3.7298405844855926
#: Its maximiser, ≈ (0.187395, 0.194152, 0.557918, 0.264780).
HARTMANN4_ARGMAX: tuple[tuple[float, float, float, float], ...] = (
    (0.18739527, 0.19415152, 0.55791778, 0.26477962),
)


def hartmann4(X: Any) -> np.ndarray:
    r"""Hartmann-4D on [0, 1]⁴ as the DUETS code uses it (raw sum, to be maximised; the
    paper, Sec. 5, names "Hartmann-4D" only: this form is the authors' code's, ``hartmann_runscript.py``).

        f(x) = Σ_{i=1}^{4} α_i exp( − Σ_{j=1}^{4} A_{ij} (x_j − P_{ij})² ),   α = (1.0, 1.2, 3.0, 3.2)

    with A = :data:`HARTMANN4_A` and P = :data:`HARTMANN4_P` (first 4 columns of the Hartmann-6
    constants). Maximum f* ≈ 3.72984 at x* ≈ (0.187395, 0.194152, 0.557918, 0.264780). (Picheny's
    rescaled version is f_P = (1.1 − f)/0.839 with minimum −3.13449 for these constants.)

    Args:
        X: points in [0, 1]⁴, shape ``(n, 4)`` (or one point ``(4,)``).

    Returns:
        Values, shape ``(n,)`` (a numpy scalar for a single point).
    """
    X, single = _as_points(X, 4)
    diff = X[:, None, :] - HARTMANN4_P[None, :, :]  # (n, 4 terms i, 4 coords j)
    inner = np.einsum("ij,nij->ni", HARTMANN4_A, diff**2)  # (n, 4)
    return _finish(np.exp(-inner) @ HARTMANN4_ALPHA, single)


# ----------------------------------------------------------------------------------------------------
# Random RKHS function ("rkhs2d")
# ----------------------------------------------------------------------------------------------------
def se_kernel(X: Any, Y: Any, lengthscale: float) -> np.ndarray:
    r"""Squared-exponential kernel matrix k(x, y) = exp(−‖x − y‖²/(2ℓ²)).

    Args:
        X: shape ``(n, d)``.
        Y: shape ``(m, d)``.
        lengthscale: ℓ > 0.

    Returns:
        Shape ``(n, m)``.
    """
    X = np.atleast_2d(np.asarray(X, dtype=float))
    Y = np.atleast_2d(np.asarray(Y, dtype=float))
    sq = (
        np.sum(X**2, axis=1)[:, None] + np.sum(Y**2, axis=1)[None, :] - 2.0 * (X @ Y.T)
    )
    np.maximum(sq, 0.0, out=sq)
    return np.exp(-sq / (2.0 * float(lengthscale) ** 2))


@dataclass(frozen=True, eq=False)
class RKHSFunction:
    r"""f(x) = Σ_{i=1}^{m} a_i k(x, c_i) with the SE kernel k of lengthscale ℓ.

    Its RKHS norm is ‖f‖_ℋ = √(aᵀ K_cc a), with K_cc = [k(c_i, c_j)].

    Attributes:
        centres: c, shape ``(m, d)``.
        weights: a, shape ``(m,)``.
        lengthscale: ℓ.
    """

    centres: np.ndarray
    weights: np.ndarray
    lengthscale: float

    @property
    def dim(self) -> int:
        return int(self.centres.shape[1])

    @property
    def rkhs_norm(self) -> float:
        """√(aᵀ K_cc a)."""
        K = se_kernel(self.centres, self.centres, self.lengthscale)
        return float(math.sqrt(max(float(self.weights @ K @ self.weights), 0.0)))

    def __call__(self, X: Any) -> np.ndarray:
        """Evaluate f at ``X`` of shape ``(n, d)`` (or ``(d,)``); returns ``(n,)`` (or a scalar)."""
        X, single = _as_points(X, self.dim)
        return _finish(se_kernel(X, self.centres, self.lengthscale) @ self.weights, single)

    evaluate = __call__


def rkhs_function(
    rng: np.random.Generator, n_centres: int, d: int, lengthscale: float, norm: float
) -> RKHSFunction:
    r"""Draw a random RKHS function ("rkhs2d" with m = 20, d = 2, ℓ = 0.5, B = 5: not in the
    DUETS paper, a choice of this package for the checks of Theorem 4.1, where ‖f‖_ℋ ≤ B is known).

        f(x) = Σ_{i=1}^{m} a_i k(x, c_i),  c_i ~ Uniform[0, 1]^d,  a_i ~ N(0, 1),

    then a is rescaled so that ‖f‖_ℋ = √(aᵀ K_cc a) = B (``norm``).

    Args:
        rng: the random generator (centres are drawn first, then the weights).
        n_centres: m ≥ 1.
        d: input dimension.
        lengthscale: SE lengthscale ℓ > 0.
        norm: the target RKHS norm B ≥ 0.

    Returns:
        An :class:`RKHSFunction` with ``centres`` ``(m, d)`` and ``weights`` ``(m,)``.
    """
    check("n_centres", n_centres, ge(1))
    check("lengthscale", lengthscale, gt(0))
    check("norm", norm, ge(0))
    centres = sample_cube(rng, n_centres, d)
    a = rng.standard_normal(n_centres)
    K = se_kernel(centres, centres, lengthscale)
    current = math.sqrt(max(float(a @ K @ a), 0.0))
    if current == 0.0:  # probability zero; fall back to a single bump of the right norm
        a = np.zeros(n_centres)
        a[0] = 1.0
        current = 1.0
    weights = a * (float(norm) / current)
    centres.setflags(write=False)
    weights.setflags(write=False)
    return RKHSFunction(centres=centres, weights=weights, lengthscale=float(lengthscale))


# ----------------------------------------------------------------------------------------------------
# Drawn objective + registry
# ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Objective:
    """A reward function with its random parameters fixed; call it on ``X`` of shape ``(n, d)``.

    Attributes:
        name: the registry name.
        dim: input dimension d.
        fn: the function of X alone, ``(n, d) -> (n,)``.
        params: the drawn parameters (``{"theta": θ*}`` for h1/h2/f1/f2, ``{"rkhs": RKHSFunction}``
            for rkhs2d, empty for Branin and Hartmann-4).
        fstar: the continuous maximum over the domain for *this* draw, or None if unknown.
        argmax: tuple of maximisers (each a tuple of d floats) for this draw, or None when the maximiser
            set is not finite (h1, f1, f2) or unknown (rkhs2d).
    """

    name: str
    dim: int
    fn: Callable[[np.ndarray], np.ndarray] = field(repr=False)
    params: Mapping[str, Any] = field(default_factory=dict, repr=False)
    fstar: float | None = None
    argmax: tuple[tuple[float, ...], ...] | None = None

    def __call__(self, X: Any) -> np.ndarray:
        return self.fn(X)

    @property
    def theta(self) -> np.ndarray | None:
        """θ* for the projection-type functions, else None."""
        return self.params.get("theta")


@dataclass(frozen=True)
class FunctionSpec:
    """Static description of a registered reward function.

    Attributes:
        name: registry key.
        dim: input dimension d.
        domain: ``"sphere"``, ``"ball"`` or ``"cube"`` (the candidate-set sampler to use).
        lengthscale: the paper's SE lengthscale ℓ for this function.
        fstar: continuous maximum over the domain, or None if it depends on the random draw.
        argmax: tuple of maximisers, or None (depends on the draw, or not a finite set).
        description: one line: the formula and its source.
    """

    name: str
    dim: int
    domain: str
    lengthscale: float
    fstar: float | None
    argmax: tuple[tuple[float, ...], ...] | None
    description: str = ""
    _factory: Callable[[np.random.Generator], Objective] = field(
        default=None, repr=False, compare=False  # type: ignore[assignment]
    )

    def __post_init__(self) -> None:
        check("domain", self.domain, one_of(*DOMAINS))

    def make(self, rng: np.random.Generator) -> Objective:
        """Draw the function's own random parameters from ``rng`` and return f: (n, d) -> (n,).

        h1, h2: θ* uniform on S^{d−1}; f1, f2: θ* uniform in the unit ball; rkhs2d: centres and
        weights; Branin, Hartmann-4: nothing is drawn (``rng`` is not used).
        """
        return self._factory(rng)

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """Draw ``n`` candidate points of shape ``(n, dim)`` from this function's domain."""
        return sample_domain(rng, n, self.dim, self.domain)


def _readonly(v: np.ndarray) -> np.ndarray:
    v = np.array(v, dtype=float)
    v.setflags(write=False)
    return v


def _make_h1(rng: np.random.Generator, d: int = 10) -> Objective:
    theta = _readonly(sample_sphere(rng, 1, d)[0])
    return Objective("h1", d, lambda X: h1(X, theta), {"theta": theta}, 1.0, None)


def _make_h2(rng: np.random.Generator, d: int = 10) -> Objective:
    theta = _readonly(sample_sphere(rng, 1, d)[0])
    return Objective(
        "h2", d, lambda X: h2(X, theta), {"theta": theta}, 4.0, (tuple(float(t) for t in theta),)
    )


def _make_f1(rng: np.random.Generator, d: int = 20) -> Objective:
    theta = _readonly(sample_ball(rng, 1, d)[0])
    return Objective("f1", d, lambda X: f1(X, theta), {"theta": theta}, 1.0, None)


def _make_f2(rng: np.random.Generator, d: int = 20) -> Objective:
    theta = _readonly(sample_ball(rng, 1, d)[0])
    fstar = f2_max(float(np.linalg.norm(theta)))
    return Objective("f2", d, lambda X: f2(X, theta), {"theta": theta}, fstar, None)


def _make_branin(rng: np.random.Generator) -> Objective:
    return Objective("branin", 2, branin_rescaled, {}, BRANIN_FSTAR, BRANIN_ARGMAX)


def _make_hartmann4(rng: np.random.Generator) -> Objective:
    return Objective("hartmann4", 4, hartmann4, {}, HARTMANN4_FSTAR, HARTMANN4_ARGMAX)


def _make_rkhs2d(rng: np.random.Generator) -> Objective:
    g = rkhs_function(rng, n_centres=20, d=2, lengthscale=0.5, norm=5.0)
    return Objective("rkhs2d", 2, g, {"rkhs": g}, None, None)


class UnknownFunctionError(KeyError, ValueError):
    """Raised for an unknown registry name; a ``ValueError`` (and a ``KeyError`` for dict users)."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class _Registry(dict):
    """A plain dict whose missing-key error names the allowed values."""

    def __missing__(self, key: Any) -> FunctionSpec:
        raise UnknownFunctionError(
            f"unknown function name {key!r}; allowed values: {', '.join(repr(k) for k in self)}"
        )


FUNCTIONS: dict[str, FunctionSpec] = _Registry(
    {
        "h1": FunctionSpec(
            name="h1",
            dim=10,
            domain="sphere",
            lengthscale=1.0,
            fstar=1.0,
            argmax=None,
            description="cos(3 xᵀθ*), θ* ~ Unif(S^9); DUETS Sec. 5",
            _factory=_make_h1,
        ),
        "h2": FunctionSpec(
            name="h2",
            dim=10,
            domain="sphere",
            lengthscale=1.0,
            fstar=4.0,
            argmax=None,
            description="(xᵀθ*)³ − 3(xᵀθ*)² + 3(xᵀθ*) + 3, θ* ~ Unif(S^9); DUETS Sec. 5",
            _factory=_make_h2,
        ),
        "branin": FunctionSpec(
            name="branin",
            dim=2,
            domain="cube",
            lengthscale=0.2,
            fstar=BRANIN_FSTAR,
            argmax=BRANIN_ARGMAX,
            description="negated Picheny-rescaled Branin on [0,1]^2 (DUETS §5; the exact form is the authors' code's)",
            _factory=_make_branin,
        ),
        "hartmann4": FunctionSpec(
            name="hartmann4",
            dim=4,
            domain="cube",
            lengthscale=1.0,
            fstar=HARTMANN4_FSTAR,
            argmax=HARTMANN4_ARGMAX,
            description="Hartmann-4D raw sum on [0,1]^4, maximised (DUETS §5; the form is the authors' code's)",
            _factory=_make_hartmann4,
        ),
        "rkhs2d": FunctionSpec(
            name="rkhs2d",
            dim=2,
            domain="cube",
            lengthscale=0.5,
            fstar=None,
            argmax=None,
            description="Σ_{i≤20} a_i k(x, c_i), ‖f‖_H = 5, ℓ = 0.5 (an RKHS member for the DUETS theory checks; a choice of this package)",
            _factory=_make_rkhs2d,
        ),
        "f1": FunctionSpec(
            name="f1",
            dim=20,
            domain="ball",
            # The paper (Sec. 5) grid-searches the Gaussian-kernel γ ∈ {0.1, 1, 4}; this package's default γ = 1 is
            # ℓ = 1/√(2γ) = 1/√2.
            lengthscale=1.0 / math.sqrt(2.0),
            fstar=1.0,
            argmax=None,
            description="cos(3xᵀθ⋆), arms and θ⋆ uniform in the unit ball of R^20; Async-KernelUCB Sec. 5",
            _factory=_make_f1,
        ),
        "f2": FunctionSpec(
            name="f2",
            dim=20,
            domain="ball",
            lengthscale=1.0 / math.sqrt(2.0),
            fstar=None,  # g(1 − 2/√3) ≈ 3.0792 unless ‖θ⋆‖ < 0.1547; see f2_max
            argmax=None,
            description=(
                "(xᵀθ⋆)³ − 3(xᵀθ⋆)² − (xᵀθ⋆) + 3, arms and θ⋆ uniform in the unit ball of R^20; "
                "Async-KernelUCB Sec. 5"
            ),
            _factory=_make_f2,
        ),
    }
)


def get_function(name: str) -> FunctionSpec:
    """Look up a :class:`FunctionSpec` by name.

    Raises:
        UnknownFunctionError: (a ``ValueError``) naming the allowed values, for an unknown name.
    """
    return FUNCTIONS[name]
