r"""Async-KernelUCB (Li, Wang, Wang & Wang, ICLR 2023), Algorithm 1 (§4.1), with the details it leaves implicit made explicit below.

Setting (paper §3.1): N clients and a server in a star network. At each step one client ``i_t``
is active, picks ``x_t`` from its decision set ``A_t`` and observes ``y_t = f(x_t) + η_t``. Only
the active client may talk to the server, and only after its own interaction.

Estimators (paper §3.2)
-----------------------
Exact kernel ridge regression on data ``D`` (**Eq. 1**, dual form, 1/λ variance scale)::

    μ(x)  = K_D(x)ᵀ (K_DD + λI)⁻¹ y_D
    σ²(x) = λ⁻¹ [k(x, x) − K_D(x)ᵀ (K_DD + λI)⁻¹ K_D(x)]

Nyström embedding on a dictionary ``S``: ``z(x; S) = B_S K_S(x)`` for any ``B_S`` with
``B_S K_SS B_Sᵀ = I`` (paper: ``B_S = Λ^{-1/2}Uᵀ`` from ``K_SS = UΛUᵀ``; here by default the
Cholesky basis ``B_S = L⁻¹``, ``K_SS = LLᵀ``, a choice of this package; §4.1). With the embedded statistics
``Ã = Ã(D; S) = Σ_{s∈D} z(x_s) z(x_s)ᵀ`` and ``b = b(D; S) = Σ_{s∈D} y_s z(x_s)`` (**Eq. 2**)::

    μ̃(x)  = z(x)ᵀ (Ã + λI)⁻¹ b                    = z(x)ᵀ θ̃
    σ̃²(x) = λ⁻¹ [k(x, x) − z(x)ᵀ Ã (Ã + λI)⁻¹ z(x)]
          = ‖C⁻¹ z(x)‖² + λ⁻¹ (k(x, x) − ‖z(x)‖²),   C Cᵀ = Ã + λI

(the second form is the one evaluated: stable, O(m²) per arm, all arms in one batched
triangular solve; both terms clipped at 0). With ``S = ∅``: ``μ̃ = 0``, ``σ̃² = k(x, x)/λ``.

Algorithm 1
-----------
Each client ``i`` keeps its *stale* model ``(S_{k(i)}, Ã_{k(i)}, b_{k(i)})`` (the statistics it
received at its last exchange ``k(i)``; ``k(i) = 0`` is the prior), a buffer ``ΔD(i)`` of its raw
``(x_s, y_s)`` since then, and ``V_i = Σ_{s∈ΔD(i)} σ̃²_{k(i)}(x_s)``.

* Arm selection (**Eq. 3**, line 5): ``x_t = argmax_{x∈A_t} μ̃_{k(i)}(x) + α σ̃_{k(i)}(x)``,
  exact ties broken uniformly at random.
* Event trigger (**Eq. 4**, line 7): ``V_i = Σ_{s∈ΔD(i)} σ̃²_{k(i)}(x_s) > D`` (the sum includes
  ``x_t``; σ̃_{k(i)} does not change between the client's exchanges, so the running sum is exact).
* Exchange ``k`` (lines 8–14), triggered by client ``i`` with ``ΔD_k = ΔD(i)``:

  (a) server → client: the dictionary points ``S_{k−1}``, ``Ã_{k−1}``, ``b_{k−1}``;
  (b) client: RLS sampling of every buffered point with ``p_s = min(1, q σ̃²_{k−1}(x_s))`` under the
      *fresh* server model (the paper's ``p̃ = q σ̃²`` is clipped at 1); the kept points are appended
      to the dictionary in time order, ``S_k = S_{k−1} ∪ ΔS_k``. A point whose residual
      ``r² = k(x,x) − ‖z(x;S)‖²`` is ``≤ tol · k(x, x)`` lies numerically in span(S) and is skipped
      (it would leave the span, hence μ̃ and σ̃, unchanged; this also drops duplicates);
  (c) client: ``Ã(ΔD_k; S_k)``, ``b(ΔD_k; S_k)``;
  (d) client → server: the new points ``ΔS_k`` and those statistics;
  (e) server (**Eq. 5**): ``Ã_k = T_{k−1,k}ᵀ Ã_{k−1} T_{k−1,k} + Ã(ΔD_k; S_k)``,
      ``b_k = T_{k−1,k}ᵀ b_{k−1} + b(ΔD_k; S_k)``;
  (f) server → client: ``Ã_k``, ``b_k``; the client's model becomes ``(S_k, Ã_k, b_k)``.

Change of dictionary
--------------------
For ``S' ⊆ S`` and embeddings ``z(·;S') = B_{S'} K_{S'}(·)``, ``z(·;S) = B_S K_S(·)``, the matrix
of Eq. 5 is ``T_{S',S} = B_{S'} K_{S',S} B_Sᵀ`` (m' × m). In the paper's eigen basis this is
``Λ'^{-1/2} U'ᵀ K_{S',S} U Λ^{-1/2}`` (:func:`change_of_dictionary`). The printed form
``Λ'^{1/2} U'ᵀ K_{S',S} U Λ^{-1/2}`` is an erratum (it gives ``Λ``, not ``I``, for ``S' = S``;
:func:`printed_change_of_dictionary`; our observation). In the Cholesky basis with an append-only
dictionary ``T = [I_{m'} 0]``: the merge is zero-padding, ``Ã ← [[Ã, 0], [0, 0]]``, ``b ← [b; 0]``.
μ̃ and σ̃ do not depend on the basis (``basis="eig"`` runs the paper's form as a reference).

**The transformation is not an identity** (our observation on Eq. 5): ``Z_{D;S'} T_{S',S}`` embeds the data
*projected on span(S')* into ``S``, i.e. ``z(P_{S'}φ(x); S) = B_S K_{S,S'} K_{S'S'}⁻¹ K_{S'}(x)``
(:func:`projected_embedding`), which equals ``z(x; S)`` only if ``φ(x) ∈ span(S')``. The server has
no raw data, so this information loss is inherent to the method and is reproduced here.

Communication (Algorithm 1's messages; the scalar counts are this package's accounting), scalars per exchange with ``m_{k−1} = |S_{k−1}|``, ``m_k = |S_k|``::

    (a) down  m_{k−1}·d + m_{k−1}² + m_{k−1}
    (d) up    |ΔS_k|·d  + m_k²     + m_k
    (f) down               m_k²     + m_k
    total     d·m_k + (m_{k−1}² + m_{k−1}) + 2(m_k² + m_k)  ≤  3(m_k² + m_k) + d·m_k  (Thm 4.5)

Switches (all off by default): ``count_labels`` (+1 per dictionary point sent: the paper also
sends ``y_s``), ``symmetric_packing`` (``m(m+1)/2`` for the symmetric ``Ã``),
``cache_dictionary`` (leg (a) sends only the points added since the client's last exchange).
Ledger kinds: ``a_dictionary``, ``a_statistics``, ``d_dictionary``, ``d_statistics``,
``f_statistics``; every exchange logs all five (possibly of size 0), so ``ledger.rounds()`` is the
number of exchanges ``B``.

Theory helpers: :func:`effective_dimension` (``Tr K(K+λI)⁻¹``), :func:`dictionary_size_bound`
(Lemma 4.1: ``|S_k| ≤ 12β(1+βD) q γ``, ``β = (1+ε)/(1−ε)``), :func:`lemma41_q` (the theoretical
``q``), :func:`communication_bound` (Theorem 4.5).
"""
from __future__ import annotations

import functools
import sys
import weakref

import numpy as np
from scipy.linalg.lapack import dtpqrt as _dtpqrt

from ..comm import SERVER, CommLedger
from ..estimators import NystromDictionary, information_gain
from ..kernels import Kernel, make_kernel
from ..linalg import chol_solve, cholesky_jitter, solve_lower, solve_lower_rows
from ..sim import Policy
from .kernel_ucb import argmax_ties
from ..validation import between, check, fail, ge, gt, le, one_of, optional

__all__ = [
    "AsyncKernelUCB",
    "embedding_matrix",
    "change_of_dictionary",
    "printed_change_of_dictionary",
    "projected_embedding",
    "merge_statistics",
    "approx_posterior",
    "effective_dimension",
    "dictionary_size_bound",
    "lemma41_q",
    "communication_bound",
    "exchange_scalars",
    "dict_size_curve",
    "chol_update_rank_k",
]

BASES = ("chol", "eig")


# ------------------------------------------------------------------------------ basis algebra
def embedding_matrix(kernel: Kernel, S: np.ndarray, basis: str = "eig") -> np.ndarray:
    """``B_S`` (m × m) with ``z(x; S) = B_S K_S(x)`` and ``B_S K_SS B_Sᵀ = I`` (paper §3.2).

    ``basis="eig"``: ``Λ^{-1/2} Uᵀ`` from ``K_SS = U Λ Uᵀ`` (the paper's embedding);
    ``"chol"``: ``L⁻¹`` with ``K_SS = L Lᵀ``; ``"sym"``: ``U Λ^{-1/2} Uᵀ = K_SS^{-1/2}``.
    ``K_SS`` must be positive definite (a :class:`NystromDictionary` guarantees it).
    """
    S = np.atleast_2d(np.asarray(S, dtype=float))
    if S.shape[0] == 0:
        return np.zeros((0, 0))
    K = kernel(S)
    if basis == "chol":
        L = np.linalg.cholesky(K)
        return solve_lower(L, np.eye(K.shape[0]))
    w, U = np.linalg.eigh(0.5 * (K + K.T))
    if w.min() <= 0:
        raise np.linalg.LinAlgError(f"K_SS is not positive definite (min eigenvalue {w.min():.3g})")
    if basis == "eig":
        return U.T / np.sqrt(w)[:, None]
    if basis == "sym":
        return (U / np.sqrt(w)) @ U.T
    fail("basis", basis, one_of("eig", "chol", "sym"))


def change_of_dictionary(kernel: Kernel, S_old: np.ndarray, S_new: np.ndarray,
                         B_old: np.ndarray | None = None, B_new: np.ndarray | None = None,
                         basis: str = "eig") -> np.ndarray:
    """The corrected change-of-dictionary matrix of Eq. 5 (§4.1; the printed form is an erratum, see the module docstring).

    ``T_{S',S} = B_{S'} K_{S',S} B_Sᵀ`` (m' × m), for ``S' = S_old ⊆ S = S_new``. In the eigen
    basis ``T = Λ'^{-1/2} U'ᵀ K_{S',S} U Λ^{-1/2}``. Then ``T_{S,S} = I`` and, for data in
    span(S'), ``Z_{D;S'} T = Z_{D;S}``; in general ``Z_{D;S'} T`` is the embedding of the data
    projected on span(S') (:func:`projected_embedding`). Compose: ``T_{S',S''} = T_{S',S} T_{S,S''}``.

    ``B_old`` / ``B_new`` must be the matrices that define the embeddings in use (an ``eigh``
    eigenvector's sign is arbitrary); by default they are computed with ``basis``.
    """
    S_old = np.atleast_2d(np.asarray(S_old, dtype=float))
    S_new = np.atleast_2d(np.asarray(S_new, dtype=float))
    if B_old is None:
        B_old = embedding_matrix(kernel, S_old, basis)
    if B_new is None:
        B_new = embedding_matrix(kernel, S_new, basis)
    if S_old.shape[0] == 0 or S_new.shape[0] == 0:
        return np.zeros((S_old.shape[0], S_new.shape[0]))
    return B_old @ kernel(S_old, S_new) @ B_new.T


def printed_change_of_dictionary(kernel: Kernel, S_old: np.ndarray, S_new: np.ndarray) -> np.ndarray:
    """The matrix as printed in the paper, ``Λ'^{1/2} U'ᵀ Φ_{S'} Φ_Sᵀ U Λ^{-1/2}`` (**erratum**).

    Kept only to show that it is wrong: for ``S' = S`` it equals ``Λ`` instead of ``I``.
    """
    K1, K2 = kernel(S_old), kernel(S_new)
    w1, U1 = np.linalg.eigh(0.5 * (K1 + K1.T))
    w2, U2 = np.linalg.eigh(0.5 * (K2 + K2.T))
    return (np.sqrt(w1)[:, None] * U1.T) @ kernel(S_old, S_new) @ (U2 / np.sqrt(w2))


def projected_embedding(kernel: Kernel, S_old: np.ndarray, S_new: np.ndarray, X: np.ndarray,
                        B_new: np.ndarray | None = None, basis: str = "chol") -> np.ndarray:
    """Rows ``z(P_{S_old} φ(x); S_new) = B_new K_{S_new,S_old} K_{S_old}⁻¹ K_{S_old}(x)``.

    What the server's merge (Eq. 5) actually embeds for data uploaded under ``S_old`` (our observation):
    ``Z_{X;S_old} T_{S_old,S_new}`` equals this, not ``Z_{X;S_new}``.
    """
    S_old = np.atleast_2d(np.asarray(S_old, dtype=float))
    X = np.atleast_2d(np.asarray(X, dtype=float))
    if B_new is None:
        B_new = embedding_matrix(kernel, S_new, basis)
    if S_old.shape[0] == 0:
        return np.zeros((X.shape[0], B_new.shape[0]))
    coef = np.linalg.solve(kernel(S_old), kernel(S_old, X))  # K_{S'}⁻¹ K_{S'}(x)
    return (B_new @ kernel(S_new, S_old) @ coef).T


def merge_statistics(A_old: np.ndarray, b_old: np.ndarray, A_new: np.ndarray, b_new: np.ndarray,
                     T: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The server update, **Eq. 5**: ``(Tᵀ Ã_old T + Ã_new, Tᵀ b_old + b_new)``.

    ``T=None`` is the Cholesky basis with an append-only dictionary, ``T = [I 0]``: zero-padding of
    the old statistics to the new size.
    """
    m = A_new.shape[0]
    if T is None:
        mo = A_old.shape[0]
        check("mo", mo, le(m))
        A = A_new.copy()
        A[:mo, :mo] += A_old
        b = b_new.copy()
        b[:mo] += b_old
        return A, b
    return T.T @ A_old @ T + A_new, T.T @ b_old + b_new


def approx_posterior(Z: np.ndarray, kdiag: np.ndarray, C: np.ndarray, theta: np.ndarray | None,
                     lam: float) -> tuple[np.ndarray | None, np.ndarray]:
    """**Eq. 2** at query features ``Z`` (n × m) from the cached ``C`` (``CCᵀ = Ã + λI``) and
    ``θ̃ = (Ã + λI)⁻¹ b``: returns ``(μ̃ = Zθ̃, σ̃² = ‖C⁻¹z‖² + (k − ‖z‖²)/λ)`` (1/λ scale)."""
    if Z.shape[1] == 0:
        return (np.zeros(Z.shape[0]) if theta is not None else None), kdiag / lam
    V = solve_lower_rows(C, Z).T  # C⁻¹ Zᵀ (m × n), one BLAS call, Z's rows the right-hand sides
    s2 = np.maximum((kdiag - np.einsum("ij,ij->i", Z, Z)) / lam, 0.0) + np.einsum("ij,ij->j", V, V)
    return (Z @ theta if theta is not None else None), s2


def chol_update_rank_k(C: np.ndarray, W: np.ndarray, block: int = 32, overwrite: bool = False) -> np.ndarray:
    """Lower Cholesky factor of ``C Cᵀ + W Wᵀ`` (C: m × m lower, W: m × n), O(m² n).

    With ``R = Cᵀ`` (upper), ``C Cᵀ + W Wᵀ = [R; Wᵀ]ᵀ [R; Wᵀ]`` and the triangle ``R'`` of the QR
    factorisation of ``[R; Wᵀ]`` gives ``C' = R'ᵀ`` (orthogonal transformations only: backward stable).
    LAPACK ``tpqrt`` computes that triangle in place, blocked (``block`` columns at a time), on the
    Fortran view of the C-ordered factor; the columns are then signed so that ``C'`` has a positive
    diagonal (the factor ``numpy.linalg.cholesky`` returns). Used for the server's
    ``Ã_k + λI = [[Ã_{k−1} + λI, 0], [0, λI]] + Z_ΔᵀZ_Δ`` instead of an O(m³) refactorisation.
    (A Python loop of numpy QRs per column block does the same at ≈ 25 % of Async-KernelUCB's CPU
    time on f1 at T = 5000.)
    """
    C = np.ascontiguousarray(C, dtype=float) if overwrite else np.array(C, dtype=float, copy=True, order="C")
    m, n = np.shape(W)
    if m == 0 or n == 0:
        return C
    W = np.array(W, dtype=float, copy=True, order="C")  # W.T: the (n, m) Fortran-ordered B of tpqrt
    R, _, _, info = _dtpqrt(0, max(1, min(int(block), m)), C.T, W.T, overwrite_a=1, overwrite_b=1)
    if info != 0:
        raise np.linalg.LinAlgError(f"tpqrt failed in the rank-{n} Cholesky update (info {info})")
    if R.ctypes.data != C.ctypes.data:  # not written in place (never with this layout)
        C[...] = np.tril(R.T)
    s = np.sign(np.diagonal(C)).copy()
    s[s == 0] = 1.0
    C *= s[None, :]
    return C


# ------------------------------------------------------------------------------ theory helpers
def effective_dimension(K: np.ndarray, lam: float) -> float:
    """``d_eff = Tr(K (K + λI)⁻¹) = Σ_j w_j/(w_j + λ)`` over the eigenvalues of the Gram ``K``."""
    K = np.asarray(K, dtype=float)
    if K.shape[0] == 0:
        return 0.0
    w = np.clip(np.linalg.eigvalsh(0.5 * (K + K.T)), 0.0, None)
    return float(np.sum(w / (w + lam)))


def _beta(eps: float) -> float:
    check("eps", eps, between(0, 1))
    return (1.0 + eps) / (1.0 - eps)


def dictionary_size_bound(q: float, K: np.ndarray, lam: float, D: float, eps: float = 0.5,
                          gamma: str = "lambda") -> float:
    """Lemma 4.1's size bound ``|S_k| ≤ 12 β (1 + βD) q γ̂``, ``β = (1+ε)/(1−ε)`` (Lemma 4.1; check C1 of bandits.experiments.async_theory).

    ``K`` is the Gram matrix of the data (e.g. the uploaded ``D_B``); ``γ̂ = ½ log det(I + K/λ)``
    (``gamma="lambda"``, a choice of this package), or with Lemma 4.4's definition
    ``½ log det(I + K/(Dβλ))`` (``gamma="lemma44"``: the paper defines γ_T only there, with the
    threshold D inside). The lemma assumes ``λ ≤ k(x, x)``; the bound holds w.p. ≥ 1−δ for the
    theoretical ``q`` (:func:`lemma41_q`).
    """
    beta = _beta(eps)
    if gamma == "lambda":
        g = information_gain(K, lam)
    elif gamma == "lemma44":
        g = information_gain(K, D * beta * lam)
    else:
        fail("gamma", gamma, one_of("lambda", "lemma44"))
    return float(12.0 * beta * (1.0 + beta * D) * q * g)


def lemma41_q(T: int, delta: float = 0.1, eps: float = 0.5) -> float:
    """The oversampling constant of Lemma 4.1, ``q = 4 ln(2√2 T/δ) β (1 + ε/3)/ε²``
    (≈ 703 for T = 10⁴, δ = 0.1, ε = 0.5)."""
    beta = _beta(eps)
    return float(4.0 * np.log(2.0 * np.sqrt(2.0) * T / delta) * beta * (1.0 + eps / 3.0) / eps**2)


def communication_bound(gamma_T: float, N: int, D: float, dict_size: int, dim: int,
                        eps: float = 0.5) -> float:
    """Theorem 4.5: ``C_T ≤ 2γ_T (N + 4β/D) · (3(|S_B|² + |S_B|) + d|S_B|)``."""
    beta = _beta(eps)
    m = float(dict_size)
    return float(2.0 * gamma_T * (N + 4.0 * beta / D) * (3.0 * (m * m + m) + dim * m))


def exchange_scalars(m_prev: int, m_new: int, dim: int, count_labels: bool = False,
                     symmetric_packing: bool = False, m_client: int = 0,
                     cache_dictionary: bool = False) -> dict[str, int]:
    """Scalars of the five messages of one exchange (this package's accounting; see module docstring).

    ``m_client`` is the dictionary size of the client's previous model (used only with
    ``cache_dictionary``). The default total is ``d·m_k + (m_{k−1}² + m_{k−1}) + 2(m_k² + m_k)``.
    """
    per_point = dim + (1 if count_labels else 0)

    def stats(m):
        return (m * (m + 1) // 2 if symmetric_packing else m * m) + m

    down_pts = (m_prev - m_client) if cache_dictionary else m_prev
    return {"a_dictionary": down_pts * per_point, "a_statistics": stats(m_prev),
            "d_dictionary": (m_new - m_prev) * per_point, "d_statistics": stats(m_new),
            "f_statistics": stats(m_new)}


def dict_size_curve(info: dict, horizon: int) -> np.ndarray:
    """``|S|`` after each step (shape (T,)) from :meth:`AsyncKernelUCB.info`'s exchange log."""
    out = np.zeros(horizon, dtype=np.int64)
    for t, m in zip(info["comm_steps"], info["dict_sizes"]):
        out[t:] = m
    return out


# ------------------------------------------------------------------------------ the policy
class _Model:
    """One (stale) copy of the server model after exchange ``k``: ``(S_k, Ã_k, b_k)`` with caches.

    ``m = |S_k|``; ``C`` the lower Cholesky factor of ``Ã_k + λI``; ``theta = θ̃ = (Ã_k + λI)⁻¹ b_k``.
    In the Cholesky basis the dictionary is read from the server's append-only factor (its
    leading ``m × m`` block *is* the factor of ``K_{S_k S_k}``), so a model stores O(m²), not 2·O(m²).
    In the eigen basis it keeps its own ``B`` and points.
    """

    __slots__ = ("k", "m", "C", "theta", "B", "points")

    def __init__(self, k, m, C, theta, B=None, points=None):
        self.k, self.m, self.C, self.theta, self.B, self.points = k, m, C, theta, B, points


class _FactorPool:
    """Buffers for the models' factors ``C``, reused once nothing holds them (speed only: a factor is written
    entry by entry either way, so the numbers are the same to the last bit).

    Each exchange makes a new m × m factor and the clients keep their stale models, so up to N + 1 factors live at
    once, and each new one used to be a fresh allocation: at m ≈ 2 800 (f1 at T = 10⁴) 63 MB of fresh pages per
    exchange, which the kernel faults in and zeroes (measured: 26 ms of CPU for a 2 000 × 2 000 factor with
    numpy's huge-page advice, 3 ms into a reused buffer). A factor's buffer is noted when the factor array is
    collected (its model's last holder, a client or the server, has moved on: about N exchanges later) and taken
    back at the next :meth:`take` if no other array views it then; it serves a later factor that fits (a buffer
    has up to :attr:`headroom` spare rows, :meth:`size`: late in a run the dictionary grows by about one point
    per exchange). A buffer smaller than the largest factor asked for so far is dropped (the dictionary only
    grows), and at most :attr:`spare` are kept. Measured on f1 (N = 100, T = 10 000, CPU time on the shared 2-core
    machine): 989 of 2 453 factors into a reused buffer, 132 → 118 s, every regret and scalar the same."""

    __slots__ = ("free", "live", "dead", "headroom", "spare", "need", "reused", "made", "__weakref__")

    def __init__(self, headroom: int = 160, spare: int = 2):
        self.free: list[np.ndarray] = []
        self.live: dict = {}  # id(buffer) -> (buffer, weak reference to its factor array)
        self.dead: list[int] = []  # buffers whose factor array was collected, not yet taken back
        self.headroom, self.spare = int(headroom), int(spare)
        self.need = self.reused = self.made = 0

    def take(self, m: int) -> np.ndarray:
        """An uninitialised C-ordered (m, m) array on a pooled buffer (a freed one that fits, else a new one)."""
        need = m * m
        self.need = max(self.need, need)
        self._collect()
        fit = [j for j, b in enumerate(self.free) if b.size >= need]
        if fit:
            buf = self.free.pop(min(fit, key=lambda j: self.free[j].size))
            self.reused += 1
        else:
            buf = np.empty(self.size(m))
            self.made += 1
        C = buf[:need].reshape(m, m)
        self.live[id(buf)] = (buf, weakref.ref(C, functools.partial(_factor_collected, weakref.ref(self), id(buf))))
        return C

    def size(self, m: int) -> int:
        """Entries of a new buffer for an m × m factor: ``(m + h)²`` with ``h = min(headroom, m // 8)`` spare
        rows (a small factor is cheap to allocate and its dictionary grows fast; at most 27 % more address space:
        the spare rows' pages stay untouched, so not resident, until a larger factor uses them)."""
        return (m + min(self.headroom, m // 8)) ** 2

    def _collect(self) -> None:
        """Take back the buffers whose factor array is gone, unless another array still views them."""
        while self.dead:
            buf, _ = self.live.pop(self.dead.pop())
            if sys.getrefcount(buf) > 2 or buf.size < self.need:  # 2: ``buf`` here and getrefcount's argument
                continue
            self.free.append(buf)
        if len(self.free) > self.spare:
            self.free.sort(key=lambda b: b.size)
            del self.free[: len(self.free) - self.spare]


def _factor_collected(pool_ref, key, _ref) -> None:
    """Weak-reference callback of a pooled factor array: note its buffer for :meth:`_FactorPool._collect` (not
    taken back here: the dying array still holds its buffer while the callback runs)."""
    pool = pool_ref()
    if pool is not None:
        pool.dead.append(key)


class AsyncKernelUCB(Policy):
    """Async-KernelUCB, Algorithm 1 (see the module docstring for the equations).

    Args:
        n_agents, horizon, dim, seed, ledger: see :class:`bandits.sim.Policy`.
        kernel: kernel spec dict or :class:`Kernel` (paper: ``{"name": "rbf", "gamma": γ}``).
        lam: ridge regulariser λ (default 1.0, a choice of this package; Lemma 4.1 wants λ ≤ k(x, x)).
        alpha: exploration coefficient α of Eq. 3.
        D: communication threshold of Eq. 4 (> 0).
        q: RLS oversampling constant (p = min(1, q σ̃²)); ``q = inf`` keeps every point.
        tol: relative residual below which a sampled point is skipped as dependent (a numerical safeguard of this package).
        max_dict: cap on |S| (a safeguard of this package; ``None`` = no cap); refused points are counted.
        count_labels, symmetric_packing, cache_dictionary: accounting switches (this package's accounting; module docstring).
        basis: ``"chol"`` (default: zero-padding merge) or ``"eig"`` (the paper's eigen
            embedding with the corrected ``T``; O(m³) more per exchange, a reference).
        tie_break: ``"random"`` (uniform among exact ties) or ``"first"``.
        keep_client_records: also keep the server's per-client records (paper §4.1) so that
            :meth:`per_client_aggregate` can be checked against the incremental aggregate.
    """

    name = "AsyncKernelUCB"
    #: the cached factor of Ã_k + λI is updated (rank |ΔD_k|) rather than refactorised when
    #: m_k > chol_update_min_m and |ΔD_k| ≤ chol_update_max_rank (speed only; same numbers)
    chol_update_min_m = 128
    chol_update_max_rank = 64

    def __init__(self, n_agents, horizon, dim, seed, ledger: CommLedger, kernel, lam=1.0, alpha=1.0,
                 D=1.0, q=1.0, tol=1e-10, max_dict=None, count_labels=False, symmetric_packing=False,
                 cache_dictionary=False, basis="chol", tie_break="random", keep_client_records=False):
        super().__init__(n_agents, horizon, dim, seed, ledger)
        check("lam", lam, gt(0))
        check("D", D, gt(0))
        check("q", q, gt(0))
        check("alpha", alpha, ge(0))
        check("basis", basis, one_of(*BASES))
        check("max_dict", max_dict, optional(ge(0)))
        self.kernel = make_kernel(kernel)
        self.lam, self.alpha, self.D, self.q = float(lam), float(alpha), float(D), float(q)
        self.max_dict = None if max_dict is None else int(max_dict)
        self.count_labels, self.symmetric_packing = bool(count_labels), bool(symmetric_packing)
        self.cache_dictionary, self.basis, self.tie_break = bool(cache_dictionary), basis, tie_break
        ss_tie, ss_rls = seed.spawn(2)
        self.rng_tie = np.random.default_rng(ss_tie)  # argmax ties (Eq. 3)
        self.rng_rls = np.random.default_rng(ss_rls)  # RLS Bernoulli draws (line 9)
        # server state: the dictionary S_k and the aggregate Ã_k, b_k (incremental Eq. 5)
        self.dic = NystromDictionary(self.kernel, self.d, tol)
        self._A = np.zeros((0, 0))  # Ã_k, formed when read (see the A property)
        self._A_pending: list[np.ndarray] = []  # features Z of the exchanges not yet merged into _A
        self.b = np.zeros(0)
        self.B_server = np.zeros((0, 0))  # eigen basis only
        self.k = 0
        self.server_model = _Model(0, 0, np.zeros((0, 0)), np.zeros(0), np.zeros((0, 0)),
                                   np.zeros((0, self.d)))
        self._factors = _FactorPool()  # the models' factor buffers, reused (speed only)
        # client state
        self.models = [self.server_model] * self.N
        self.buf_X: list[list[np.ndarray]] = [[] for _ in range(self.N)]
        self.buf_y: list[list[float]] = [[] for _ in range(self.N)]
        self.V = np.zeros(self.N)  # running trigger sums (Eq. 4)
        self.keep_client_records = bool(keep_client_records)
        self.records = [(np.zeros((0, 0)), np.zeros(0), self.server_model) for _ in range(self.N)]
        self._pending: dict[tuple[int, int], float] = {}
        self._pending_t = -1
        # logs
        self.comm_steps: list[int] = []
        self.comm_clients: list[int] = []
        self.dict_sizes: list[int] = []
        self.n_added: list[int] = []
        self.buffer_sizes: list[int] = []
        self.rls_prob_sum = 0.0
        self.n_sampled = 0
        self.n_capped = 0
        # warm-up: the steps whose active client had not yet exchanged (it chose on the prior
        # μ̃ = 0, σ̃² = k(x, x)/λ, i.e. uniformly among ties); at D = 1 and k(x, x) = λ each client
        # makes two such pulls (its trigger sum reaches 2 > D at the second)
        self._exchanged = np.zeros(self.N, dtype=bool)
        self.prior_steps: list[int] = []

    # -- the server aggregate ---------------------------------------------------------------------
    @property
    def A(self) -> np.ndarray:
        """The server's aggregate ``Ã_k`` (Eq. 5). In the Cholesky basis it is merged when read, from
        the features of the exchanges since the last read, in exchange order with the same products and
        sums as an eager merge (``Ã ← pad(Ã) + ZᵀZ``: the same numbers to the last bit). Only the
        factor's fallback (a small dictionary, or a rank above ``chol_update_max_rank``) and the checks
        read it, so at large m the N-th m × m aggregate is never formed (speed only)."""
        for Z in self._A_pending:
            A_new = Z.T @ Z
            mo = self._A.shape[0]
            A_new[:mo, :mo] += self._A
            self._A = A_new
        self._A_pending.clear()
        return self._A

    @A.setter
    def A(self, value: np.ndarray) -> None:
        self._A_pending.clear()
        self._A = value

    # -- posterior of a model -------------------------------------------------------------------
    def _embed(self, model: _Model, X: np.ndarray) -> np.ndarray:
        """``Z = [z(x; S_k)]`` (n × m) in the model's basis."""
        m = model.m
        if self.basis == "eig":
            return (model.B @ self.kernel(model.points, X)).T
        M = self.dic.m
        if M * M <= 1.5 * m * m:
            # forward substitution: the first m coordinates of L_M⁻¹ K_{S_M}(x) are L_m⁻¹ K_{S_m}(x)
            # (mathematically; the two solves round differently, so the choice between them is kept)
            return self.dic.features(X)[:, :m]
        return self.dic.features(X, m)  # the leading m × m block of the factor, read in place

    def posterior(self, model: _Model, X: np.ndarray, mean: bool = True):
        """``(μ̃, σ̃²)`` of ``model`` at the rows of ``X`` (Eq. 2, 1/λ scale)."""
        X = np.atleast_2d(np.asarray(X, dtype=float))
        kd = self.kernel.diag(X)
        if model.m == 0:
            return (np.zeros(X.shape[0]) if mean else None), kd / self.lam
        return approx_posterior(self._embed(model, X), kd, model.C, model.theta if mean else None,
                                self.lam)

    def _make_model(self, prev: _Model | None = None, Z: np.ndarray | None = None) -> _Model:
        """Cache ``C`` (``CCᵀ = Ã_k + λI``) and ``θ̃``. In the Cholesky basis ``Ã_k + λI`` is
        ``[[Ã_{k−1} + λI, 0], [0, λI]] + ZᵀZ`` (``Z``: the new points' features), so ``C`` is a
        rank-|ΔD_k| update of ``[[C_{k−1}, 0], [0, √λ I]]`` (O(m²) instead of O(m³))."""
        m = self.b.shape[0]
        if (prev is not None and Z is not None and m > self.chol_update_min_m
                and Z.shape[0] <= self.chol_update_max_rank):
            pm = prev.m  # [[C_{k−1}, 0], [0, √λ I]], every entry written once (no zero-fill pass)
            C = self._factors.take(m)  # a reused buffer where one fits (_FactorPool)
            C[:pm, :pm] = prev.C
            C[:pm, pm:] = 0.0
            C[pm:, :pm] = 0.0
            C[pm:, pm:] = np.sqrt(self.lam) * np.eye(m - pm)
            C = chol_update_rank_k(C, Z.T, block=32, overwrite=True)  # in place
        else:
            C = cholesky_jitter(self.A + self.lam * np.eye(m))
        theta = chol_solve(C, self.b) if m else np.zeros(0)
        if self.basis == "eig":
            return _Model(self.k, m, C, theta, self.B_server, self.dic.points.copy())
        return _Model(self.k, m, C, theta)

    # -- protocol -------------------------------------------------------------------------------
    def select(self, t, agents, arms):
        """Line 5 / Eq. 3 with each active client's stale model."""
        out = np.empty(len(agents), dtype=np.int64)
        self._pending = {}
        self._pending_t = t
        for j, i in enumerate(agents):
            mu, s2 = self.posterior(self.models[i], arms.for_agent(j))
            c = argmax_ties(mu + self.alpha * np.sqrt(s2), self.rng_tie, self.tie_break)
            out[j] = c
            self._pending[(j, int(i))] = float(s2[c])
        return out

    def update(self, t, agents, arms, choices, rewards):
        """Line 6 (buffer, running sum) and line 7 (trigger, Eq. 4); an exchange if it fires."""
        for j, i in enumerate(agents):
            i = int(i)
            x = np.asarray(arms.for_agent(j)[int(choices[j])], dtype=float)
            s2 = self._pending.get((j, i)) if self._pending_t == t else None
            if s2 is None:
                s2 = float(self.posterior(self.models[i], x[None], mean=False)[1][0])
            if not self._exchanged[i]:
                self.prior_steps.append(int(t))
            self.buf_X[i].append(x)
            self.buf_y[i].append(float(rewards[j]))
            self.V[i] += s2
            if self.V[i] > self.D:
                self._exchange(t, i)
        self._pending = {}

    def _exchange(self, t: int, i: int) -> None:
        """Lines 8–14: legs (a)–(f) of exchange k between client ``i`` and the server."""
        d = self.d
        old = self.server_model  # (S_{k−1}, Ã_{k−1}, b_{k−1}) with its caches
        own = self.models[i]
        m_prev = self.dic.m
        Xb = np.vstack(self.buf_X[i])
        yb = np.asarray(self.buf_y[i])
        # (b) RLS sampling under the fresh server model σ̃_{k−1}
        _, s2 = self.posterior(old, Xb, mean=False)
        p = np.minimum(1.0, self.q * s2)
        draw = self.rng_rls.random(len(p)) < p
        self.rls_prob_sum += float(p.sum())
        self.n_sampled += int(draw.sum())
        cand = Xb[draw]
        if self.max_dict is None:
            self.dic.add(cand)
        else:
            for r in range(cand.shape[0]):
                if self.dic.m >= self.max_dict:
                    self.n_capped += cand.shape[0] - r
                    break
                self.dic.add(cand[r : r + 1])
        m_new = self.dic.m
        # (c) the client's new statistics on S_k;  (e) the server merge (Eq. 5)
        if self.basis == "eig":
            B_new = embedding_matrix(self.kernel, self.dic.points, "eig") if m_new != m_prev else self.B_server
            Z = (B_new @ self.kernel(self.dic.points, Xb)).T if m_new else np.zeros((len(yb), 0))
            T = change_of_dictionary(self.kernel, old.points, self.dic.points, old.B, B_new)
            self.B_server = B_new
        else:
            Z = self.dic.features(Xb)
            T = None
        b_new = Z.T @ yb
        if self.basis == "chol" and not self.keep_client_records:
            # Eq. 5 with T = [I 0]: b now; Ã_k only when read (A property): the cached factor is
            # updated from Z itself (_make_model), so at large m the m × m aggregate is never formed
            b = b_new.copy()
            b[: self.b.shape[0]] += self.b
            self.b = b
            self._A_pending.append(Z)
        else:
            A_new = Z.T @ Z
            self.A, self.b = merge_statistics(self.A, self.b, A_new, b_new, T)
        if self.keep_client_records:
            A_i, b_i, frm = self.records[i]
            A_i, b_i = merge_statistics(A_i, b_i, A_new, b_new, self._transform_matrix(frm))
        self.k += 1
        model = self._make_model(old, Z) if self.basis == "chol" else self._make_model()
        if self.keep_client_records:
            self.records[i] = (A_i, b_i, model)
        # ledger: (a) down, (d) up, (f) down
        sizes = exchange_scalars(m_prev, m_new, d, self.count_labels, self.symmetric_packing,
                                 own.m, self.cache_dictionary)
        for kind in ("a_dictionary", "a_statistics"):
            self.ledger.send(t, SERVER, i, kind, sizes[kind])
        for kind in ("d_dictionary", "d_statistics"):
            self.ledger.send(t, i, SERVER, kind, sizes[kind])
        self.ledger.send(t, SERVER, i, "f_statistics", sizes["f_statistics"])
        # line 14: the client's model, buffer and trigger sum
        self.server_model = model
        self.models[i] = model
        self.buf_X[i], self.buf_y[i] = [], []
        self.V[i] = 0.0
        self._exchanged[i] = True
        self.comm_steps.append(int(t))
        self.comm_clients.append(int(i))
        self.dict_sizes.append(int(m_new))
        self.n_added.append(int(m_new - m_prev))
        self.buffer_sizes.append(int(len(yb)))

    def _transform_matrix(self, frm: _Model):
        """``T_{frm, current}`` (``None`` = zero-padding in the Cholesky basis)."""
        if self.basis == "chol":
            return None
        return change_of_dictionary(self.kernel, frm.points, self.dic.points, frm.B, self.B_server)

    def per_client_aggregate(self) -> tuple[np.ndarray, np.ndarray]:
        """The paper's per-client form of the server aggregate (§4.1):
        ``Ã(D_k; S_k) = Σ_i T_{k(i),k}ᵀ Ã(N_{t_{k(i)}}(i); S_{k(i)}) T_{k(i),k}`` (needs
        ``keep_client_records``). Equals the incremental aggregate ``self.A, self.b``."""
        if not self.keep_client_records:
            raise RuntimeError("construct the policy with keep_client_records=True")
        m = self.A.shape[0]
        A, b = np.zeros((m, m)), np.zeros(m)
        for A_i, b_i, frm in self.records:
            A, b = merge_statistics(A_i, b_i, A, b, self._transform_matrix(frm))
        return A, b

    def info(self) -> dict:
        return {
            "n_comms": int(self.k),
            "comm_steps": list(self.comm_steps),
            "comm_clients": list(self.comm_clients),
            "dict_sizes": list(self.dict_sizes),
            "n_added": list(self.n_added),
            "buffer_sizes": list(self.buffer_sizes),
            "dict_size": int(self.dic.m),
            "n_skipped": int(self.dic.n_skipped),
            "n_capped": int(self.n_capped),
            "n_sampled": int(self.n_sampled),
            "rls_prob_sum": float(self.rls_prob_sum),
            "prior_steps": list(self.prior_steps),
        }
