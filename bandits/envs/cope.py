"""Collaborative pure-exploration instances (CoPE-KB, Du et al.; App. A "Experimental Setup" and
Figure 1 / §3).

V agents, each with n arms; agent v's arm i is the task–arm pair ``x̃ = (z_v, x_{v,i})`` with the
product kernel ``k((z,x),(z',x')) = k_Z(z,z') · k_X(x,x')``. In the paper's experiments
(App. A): V = 5, n = 6, every arm a "two-hot" vector in {0,1}⁴, ``z_v`` the one-hot indicator of
the agent's task group, ``k_Z(z,z') = zᵀz'`` and ``k_X(x,x') = xᵀx'``, so ``φ(z_v, x) = z_v ⊗ x``
and ``θ* = [0.1, 0.1 + Δ_min, …, 0.1 + (d−1)Δ_min]``. In block g (0-based), arm {a,b} has
``F = 0.2 + Δ_min(8g + a + b)``: the best arm is {2,3} in every block and Δ_min is the minimum gap.

Observations are ``y = F(x̃) + η`` with η ~ N(0, 1) (the paper's noise law is unstated; its
analysis assumes 1-sub-Gaussian noise). Because every algorithm of the paper only uses per-arm
counts and means, :meth:`PEInstance.sample_means` draws the mean of ``N_i`` pulls directly,
``ȳ_i ~ N(F_i, 1/N_i)`` (exact for Gaussian noise; a shortcut of this package, not in the paper);
``raw=True`` draws the pulls.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from ..kernels import Linear, Product
from ..validation import between, check, gt, rule

__all__ = ["TWO_HOT", "PEInstance", "cope_instance", "toy_instance", "RANK_GROUPS", "balanced_groups"]

TWO_HOT = np.array([[1 if j in c else 0 for j in range(4)] for c in combinations(range(4), 2)], dtype=float)

# task groups of the three similarity cases, V = 5 (App. A: agents {1, 2} | {3, 4, 5} in the rank-2 case)
RANK_GROUPS = {1: [0, 0, 0, 0, 0], 2: [0, 0, 1, 1, 1], 5: [0, 1, 2, 3, 4]}


@dataclass
class PEInstance:
    """A collaborative pure-exploration instance.

    Attributes:
        Z: (V, g) task features; X: (V, n, p) arm features; inputs: (V·n, g + p) the pairs
        ``[z_v, x_{v,i}]`` in agent-major order; kernel: the product kernel on those inputs;
        F: (V, n) expected rewards; noise_std: σ of the Gaussian noise.
    """

    Z: np.ndarray
    X: np.ndarray
    F: np.ndarray
    kernel: object
    noise_std: float = 1.0
    name: str = "cope"
    info: dict = field(default_factory=dict)

    @property
    def V(self) -> int:
        return self.X.shape[0]

    @property
    def n(self) -> int:
        return self.X.shape[1]

    @property
    def inputs(self) -> np.ndarray:
        V, n = self.V, self.n
        return np.concatenate([np.repeat(self.Z, n, axis=0), self.X.reshape(V * n, -1)], axis=1)

    def gram(self) -> np.ndarray:
        """``K = [k(x̃_i, x̃_j)]`` over the nV pairs (agent-major)."""
        return self.kernel(self.inputs)

    @property
    def best(self) -> np.ndarray:
        return np.argmax(self.F, axis=1)

    @property
    def delta_min(self) -> float:
        s = np.sort(self.F, axis=1)
        return float(np.min(s[:, -1] - s[:, -2]))

    def sample_means(self, counts: np.ndarray, rng: np.random.Generator, raw: bool = False) -> np.ndarray:
        """Means of ``counts[v, i]`` fresh pulls of each pair (NaN where no pull)."""
        counts = np.asarray(counts)
        check("counts", counts, rule(lambda c: c.shape == self.F.shape and not np.any(c < 0),
                                     f"a non-negative array of shape {self.F.shape}"))
        out = np.full(self.F.shape, np.nan)
        pos = counts > 0
        if raw:
            for v, i in zip(*np.nonzero(pos)):
                out[v, i] = self.F[v, i] + self.noise_std * rng.standard_normal(int(counts[v, i])).mean()
        else:
            out[pos] = self.F[pos] + self.noise_std * rng.standard_normal(int(pos.sum())) / np.sqrt(counts[pos])
        return out


def balanced_groups(g: int, V: int) -> list[int]:
    """Task group of each agent for ``g`` groups: the paper's rank-2 case for g = 2
    (agents 1–2 | 3–5 when V = 5), otherwise sizes as equal as possible, larger groups first
    (a choice of this package for its check C1 of Corollary 1(c): {5}, {2,3}, {2,2,1}, {2,1,1,1},
    {1,1,1,1,1})."""
    check("g", g, between(1, V, "both"))
    if g == 2:
        return [0] * (V // 2) + [1] * (V - V // 2)
    sizes = [V // g + (1 if i < V % g else 0) for i in range(g)]
    return [i for i, s in enumerate(sizes) for _ in range(s)]


def cope_instance(rank: int, delta_min: float, V: int = 5) -> PEInstance:
    """The paper's instance (App. A) with rank(K_Z) = ``rank`` task groups (1, 2 or V in the
    paper) and minimum gap ``delta_min``."""
    groups = balanced_groups(int(rank), int(V))
    check("delta_min", delta_min, gt(0))
    g = max(groups) + 1
    Z = np.eye(g)[groups]
    X = np.repeat(TWO_HOT[None], V, axis=0)
    pairs = list(combinations(range(4), 2))
    F = np.array([[0.2 + delta_min * (8 * groups[v] + a + b) for a, b in pairs] for v in range(V)])
    kernel = Product(Linear(), Linear(), split=g)
    return PEInstance(Z=Z, X=X, F=F, kernel=kernel, name=f"rank{rank}",
                      info={"rank": rank, "groups": groups, "delta_min": delta_min,
                            "theta": 0.1 + delta_min * np.arange(4 * g)})


def toy_instance() -> PEInstance:
    """Figure 1's illustration (a consistent reconstruction by this package: the paper, §3 and Figure 1, gives the rewards
    3+√2, 4+2√2, 5+3√2 and z_1 = z_2 = 1, but φ, θ* and k only inside the figure): two agents, items
    {1, 2, 3}; agent 1 holds items 1, 2 and agent 2 items 2, 3; z_1 = z_2; polynomial kernel
    ``k_X(x,x') = (1 + x x')²`` with ``F(x) = 2 + (1 + √2) x`` = 3+√2, 4+2√2, 5+3√2."""
    from ..kernels import Kernel

    class Poly2(Kernel):
        def __call__(self, A, B=None):
            A = np.atleast_2d(A)
            B = A if B is None else np.atleast_2d(B)
            return (1.0 + A @ B.T) ** 2

        def diag(self, A):
            A = np.atleast_2d(A)
            return (1.0 + np.einsum("ij,ij->i", A, A)) ** 2

        def spec(self):
            return {"name": "poly2"}

    X = np.array([[[1.0], [2.0]], [[2.0], [3.0]]])
    F = 2.0 + (1.0 + np.sqrt(2.0)) * X[..., 0]
    return PEInstance(Z=np.ones((2, 1)), X=X, F=F, kernel=Product(Linear(), Poly2(), split=1), name="toy")
