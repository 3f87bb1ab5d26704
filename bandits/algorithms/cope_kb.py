r"""CoPE-KB: collaborative pure exploration in kernel bandits (Du, Chen, Kuroki & Huang, ICLR 2023).

Four policies (:class:`~bandits.sim.PEPolicy`, driven by :func:`~bandits.sim.run_pure_exploration`):

* :class:`CoKernelFC` -- Algorithm 1 (fixed confidence), multi-agent RAGE on the nV task–arm pairs;
* :class:`CoKernelIndAlloc` -- its ablation with locally optimal allocations (§6, one sentence;
  readings (A) and (B) below are this package's);
* :class:`CoKernelFB` -- Algorithm 2 (fixed budget, App. C.4), multi-agent Peace-FB;
* :class:`CoKernelFBIndAlloc` -- its ablation (App. A, one sentence; this package's reading (A)
  applied to Line 4, or reading (B): each agent's own Peace-FB schedule on its arms, data shared).

Setting and notation (paper §3)
-------------------------------
V agents, n arms each; the global set X̃ holds the nV task–arm pairs x̃ = (z_v, x_{v,i}) in
agent-major order (pair ``i = v·n + j``, 0-based).  F(x̃) = φ(x̃)ᵀθ*, k(x̃, x̃') = φ(x̃)ᵀφ(x̃')
is the product kernel k_Z·k_X.  A policy only sees the public part of the instance (the Gram
matrix ``instance.gram()``, ``V``, ``n``); it never reads ``instance.F`` or ``instance.best``.
With a design λ ∈ △(X̃),

    A(ξ, λ) = ξ I + Σ_{x̃} λ_{x̃} φ(x̃)φ(x̃)ᵀ.

Shared building blocks (§4.1–4.2, App. C.2)
-------------------------------------------
* **Design (Line 4 of both algorithms).**  λ*_r, ρ*_r = argmin / min over λ ∈ △(X̃) of
  max_{x̃_i, x̃_j ∈ B_v^(r), v ∈ [V]} ‖φ(x̃_i) − φ(x̃_j)‖²_{A(ξ,λ)⁻¹}: one *global* design on all nV
  pairs, targets = the within-agent pairs of active arms (:func:`bandits.design.xy_optimal_design`
  on the empirical kernel map Ψ, ΨΨᵀ = K; exact for every target in the span: a choice of this
  package, equivalent to App. C.2's kernelised solver since A(ξ, λ) acts as ξI off the span).
  The solution is then **symmetrised**: the mass of each distinct feature vector is split equally
  among its identical copies (several agents holding the same pair feature, e.g. every agent in
  rank(K_Z)=1).  A(ξ, λ) is unchanged and the per-agent loads are balanced.
  Designs are cached (module-wide) by the set of distinct target *feature* pairs (plus the
  Gram matrix, ξ and the solver options); the target list handed to the solver is built from
  that key only, so a cached value never depends on which run filled the cache.
* **ROUND(ξ, λ, N, ε)** = Pukelsheim's efficient rounding
  (:func:`bandits.design.efficient_rounding`): integer counts summing exactly to N.
  τ(ξ, λ, ε) = ⌈d(ξ, λ)/ε²⌉ with d(ξ, λ) = #{eigenvalues of K_λ > ξ}
  (:func:`bandits.design.design_dimension`, :func:`bandits.algorithms.pe_common.tau`).
* **Kernelised estimator** (Line 13 / Line 10; paper Eq. (3), App. C.2), from the nV broadcast
  (count, mean) pairs only (:func:`bandits.algorithms.pe_common.kernel_estimate`)::

      F̂_r(x̃) = k_r(x̃)ᵀ (K^(r) + N ξ I)⁻¹ ȳ^(r),   K^(r) = [√(N_i N_j) k(x̃_i, x̃_j)],
      ȳ^(r) = [√N_i ȳ_i],   k_r(x̃) = [√N_i k(x̃, x̃_i)],   Δ̂_r(x̃, x̃') = F̂_r(x̃) − F̂_r(x̃').

  It equals the ridge estimate argmin_θ Nξ‖θ‖² + Σ_j (y_j − φ(s_j)ᵀθ)² on the raw samples.
* **Communication (Line 10 / Line 8).**  In every round each agent broadcasts its n pairs
  (N_{v,i}^(r), ȳ_{v,i}^(r)), 2n scalars, and receives everybody else's.  Ledger convention: one
  round = one ledger time step (``t = r − 1``); each agent's broadcast is logged **once**, as
  ``ledger.send(r − 1, v, SERVER, "counts_means", 2n)`` -- SERVER stands for the shared broadcast
  channel; the fan-out to the V − 1 peers is not multiplied (the paper: "each agent broadcasts
  one message", of length O(n)).  So the ledger holds exactly 2nV scalars per round and
  ``PETrace.comm_scalars`` = 2nV · #rounds.  ``info()`` also reports the point-to-point
  equivalent 2n·V·(V − 1) per round and the raw-sample-sharing cost Σ_r 2N^(r) (this package's check C4; §4.2 compares O(nV) with
  the O(N^(r)) of sharing raw outcomes).

Options beyond the paper (all documented where used; choices of this package): ``constants``
("practical": c_N = 2(1+ε), the RAGE code, fiezt/Transductive-Linear-Bandit-Code ``RAGE.py``;
"theory": c_N = 32(1+ε)², Algorithm 1 Line 5), the design solver options, the FB flags ``R_mode``
(which pairs enter ω(ξ, X̃) in Line 2 of Algorithm 2) and ``reuse_past_rounds`` (pool all rounds'
data in the estimator; Algorithm 2 uses the round's own).
"""
from __future__ import annotations

import hashlib
import math

import numpy as np

from ..comm import SERVER, CommLedger
from ..design import (
    all_pairs,
    design_dimension,
    design_norms,
    efficient_rounding,
    feature_map_from_gram,
    xy_optimal_design,
)
from ..sim import PEPolicy
from .pe_common import delta_r, kernel_estimate, sample_size, tau
from ..validation import between, check, ge, gt, le, one_of, rule

__all__ = ["CoKernelFC", "CoKernelIndAlloc", "CoKernelFB", "CoKernelFBIndAlloc",
           "distinct_feature_ids", "clear_design_cache"]

# ----------------------------------------------------------------------------- design cache
_CACHE: dict = {}
_CACHE_MAX = 50_000


def clear_design_cache() -> None:
    """Empty the module-wide design / ω cache."""
    _CACHE.clear()


def _cached(key, compute):
    try:
        return _CACHE[key]
    except KeyError:
        pass
    val = compute()
    if len(_CACHE) >= _CACHE_MAX:
        _CACHE.clear()
    _CACHE[key] = val
    return val


def distinct_feature_ids(gram: np.ndarray, rtol: float = 1e-9) -> np.ndarray:
    """Group identical feature vectors: ``ids[i] == ids[j]`` iff ‖φ_i − φ_j‖² = K_ii + K_jj − 2K_ij
    ≤ rtol · max_i K_ii.  Ids are the index of the first member of each group (canonical)."""
    K = np.asarray(gram, dtype=float)
    d = np.diag(K)
    dist = d[:, None] + d[None, :] - 2.0 * K
    same = dist <= rtol * max(float(d.max(initial=0.0)), 1e-300)
    ids = np.empty(K.shape[0], dtype=np.int64)
    for i in range(K.shape[0]):
        ids[i] = int(np.argmax(same[i]))  # first j with the same feature
    return ids


def _symmetrize(weights: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Split each distinct feature's mass equally among its copies (A(ξ,λ) unchanged)."""
    tot = np.bincount(ids, weights=weights, minlength=ids.size)
    cnt = np.bincount(ids, minlength=ids.size)
    out = tot[ids] / cnt[ids]
    return out / out.sum()


# ----------------------------------------------------------------------------- base class
class _CoKernelBase(PEPolicy):
    """Shared machinery: public instance data, designs, ω, rounding, estimator, ledger.

    Args:
        instance: a :class:`~bandits.envs.cope.PEInstance`-like object; only ``V``, ``n`` and
            ``gram()`` are read.
        seed: the policy's SeedSequence (or int / None).  The CoPE-KB policies are
            deterministic given the observations (deterministic design solver and rounding),
            so it only seeds ``self.rng`` (a numpy Generator, currently unused).
        ledger: a :class:`~bandits.comm.CommLedger` with one time step per round (created
            when None).
        xi: per-sample regulariser ξ (the estimator uses Nξ).
        eps: rounding accuracy ε (1/10 in the paper).
        design_method, design_tol, design_max_iter, prune_tol: forwarded to
            :func:`bandits.design.xy_optimal_design` ("newton" is certified to a relative gap
            ``design_tol``, default 1e-6).
        symmetrize: split design mass equally among identical feature copies.
    """

    name = "cokernel"
    #: ROUND on distinct features + even split among copies (None: follow ``symmetrize``).
    #: The IndAlloc ablations set False: each agent keeps the mass of its own local design.
    _round_by_feature: bool | None = None

    def __init__(self, instance, seed=None, ledger: CommLedger | None = None, *, xi: float = 1e-6,
                 eps: float = 0.1, design_method: str = "newton", design_tol: float | None = None,
                 design_max_iter: int | None = None, prune_tol: float = 1e-3,
                 symmetrize: bool = True, ledger_horizon: int = 64):
        check("xi", xi, gt(0))
        check("eps", eps, gt(0))
        if ledger is None:
            ledger = CommLedger(int(instance.V), int(ledger_horizon))
        if not isinstance(seed, np.random.SeedSequence):
            seed = np.random.SeedSequence(seed)
        super().__init__(instance, seed, ledger)
        self.rng = np.random.default_rng(seed)
        self.V, self.n = int(instance.V), int(instance.n)
        self.P = self.V * self.n
        self.K = np.asarray(instance.gram(), dtype=float)
        check("instance.gram()", self.K, rule(lambda K: K.shape == (self.P, self.P), f"a ({self.P}, {self.P}) array"))
        self.xi, self.eps = float(xi), float(eps)
        self.symmetrize = bool(symmetrize)
        self.Psi = feature_map_from_gram(self.K)
        if self.Psi.shape[1] == 0:
            self.Psi = np.zeros((self.P, 1))
        self.fid = distinct_feature_ids(self.K)
        self._opts = dict(method=design_method, tol=design_tol, max_iter=design_max_iter,
                          prune_tol=prune_tol)
        self._key0 = (hashlib.sha1(np.ascontiguousarray(self.K).tobytes()).hexdigest(), self.P,
                      self.xi, tuple(sorted(self._opts.items())))
        self.B = [np.arange(self.n) for _ in range(self.V)]  # active arms, local indices
        self.r = 1
        self.F_hat: np.ndarray | None = None
        self._pending: dict | None = None
        self.log: list[dict] = []
        # design solves this policy actually ran: a debug counter, not in info(): the design cache is module-wide
        # (one per process), so a repeat of a run in one worker is a cache hit and the count is not a function of
        # (config, seed)
        self.n_design_solves = 0

    # -- helpers: indices ------------------------------------------------------------------
    def _global(self, v: int, local) -> np.ndarray:
        return v * self.n + np.asarray(local, dtype=int)

    def _active_groups(self) -> list[np.ndarray]:
        """B_v^(r) of every agent in global (agent-major) indices."""
        return [self._global(v, b) for v, b in enumerate(self.B)]

    def _target_key(self, groups) -> frozenset:
        """Set of distinct target feature pairs {fid_a, fid_b} (a ≠ b as features)."""
        key = set()
        for g in groups:
            f = self.fid[np.asarray(g, dtype=int)]
            for a, b in all_pairs(len(f)):
                if f[a] != f[b]:
                    key.add((min(f[a], f[b]), max(f[a], f[b])))
        return frozenset(key)

    def _targets(self, key) -> np.ndarray:
        """Target vectors ψ_a − ψ_b (rows of Ψ) for a canonical (sorted) key."""
        pairs = np.array(sorted(key), dtype=int).reshape(-1, 2)
        return self.Psi[pairs[:, 0]] - self.Psi[pairs[:, 1]]

    # -- designs -----------------------------------------------------------------------------
    def _solve(self, X, Y):
        self.n_design_solves += 1
        return xy_optimal_design(X, Y, self.xi, **self._opts)

    def global_design(self, groups) -> tuple[np.ndarray, float]:
        """(λ*, ρ*) of min_{λ∈△(X̃)} max_{x̃_i,x̃_j ∈ same group} ‖φ_i − φ_j‖²_{A(ξ,λ)⁻¹}
        (design over ALL nV pairs), symmetrised over identical copies.  Empty target set:
        (uniform, 0)."""
        key = self._target_key(groups)
        if not key:
            return np.full(self.P, 1.0 / self.P), 0.0

        def compute():
            res = self._solve(self.Psi, self._targets(key))
            return res.weights.copy(), float(res.value)

        w, rho = _cached(self._key0 + ("xy", key), compute)
        if self.symmetrize:
            w = _symmetrize(w, self.fid)
        return w.copy(), rho

    def omega(self, S) -> float:
        """ω(ξ, S) = min_{λ∈△(X̃)} max_{x̃_i,x̃_j ∈ S} ‖φ_i − φ_j‖²_{A(ξ,λ)⁻¹} (design on ALL of X̃;
        ω := 0 when S holds fewer than two distinct features).  Cached by S's distinct features."""
        feats = frozenset(int(f) for f in self.fid[np.asarray(S, dtype=int)])
        if len(feats) < 2:
            return 0.0

        def compute():
            key = frozenset((a, b) for a in feats for b in feats if a < b)
            return float(self._solve(self.Psi, self._targets(key)).value)

        return _cached(self._key0 + ("omega", feats), compute)

    def local_design(self, v: int, active_local) -> tuple[np.ndarray, float]:
        """Agent v's locally optimal design: λ_v on its own n arms (embedded as an (nV,) vector)
        minimising max_{x̃_i,x̃_j ∈ B_v} ‖φ_i − φ_j‖²_{A(ξ,λ)⁻¹}; returns (λ_v, ρ_v)."""
        rows = self._global(v, np.arange(self.n))
        key = self._target_key([self._global(v, active_local)])
        w = np.zeros(self.P)
        if not key:
            w[rows] = 1.0 / self.n
            return w, 0.0
        own = tuple(int(f) for f in self.fid[rows])

        def compute():
            res = self._solve(self.Psi[rows], self._targets(key))
            return res.weights.copy(), float(res.value)

        wl, rho = _cached(self._key0 + ("local", own, key), compute)
        if self.symmetrize:
            wl = _symmetrize(wl, np.searchsorted(np.unique(self.fid[rows]), self.fid[rows]))
        w[rows] = wl
        return w, rho

    def max_norm(self, weights, groups) -> float:
        """max over within-group pairs of ‖φ_i − φ_j‖²_{A(ξ,λ)⁻¹} at the given design."""
        key = self._target_key(groups)
        if not key:
            return 0.0
        return float(design_norms(self.Psi, weights, self._targets(key), self.xi).max())

    def tau(self, weights) -> int:
        """τ(ξ, λ, ε) = ⌈d(ξ, λ)/ε²⌉."""
        return tau(design_dimension(self.K, weights, self.xi), self.eps)

    def round(self, weights, N: int, by_feature: bool | None = None) -> np.ndarray:
        """ROUND(ξ, λ, N, ε): (nV,) int counts summing to N (efficient rounding).

        With ``by_feature`` (default: ``self.symmetrize``) the design is first summed over
        identical feature copies, rounded on the distinct features (support ≤ #distinct
        features, so the rounding bound N/(N − s) is tighter), and each feature's count is split
        as evenly as possible among its copies, the remainders going round-robin over the
        copies so that per-agent loads differ by at most a few pulls.  The pulled multiset of
        feature vectors -- hence Σ_j φ(s_j)φ(s_j)ᵀ -- is the same as for any other split."""
        N = int(N)
        if by_feature is None:
            by_feature = self.symmetrize
        if not by_feature:
            return efficient_rounding(weights, N)
        agg = np.bincount(self.fid, weights=np.asarray(weights, dtype=float), minlength=self.P)
        cf = efficient_rounding(agg, N)
        out = np.zeros(self.P, dtype=np.int64)
        cursor = 0
        for f in np.flatnonzero(cf):
            copies = np.flatnonzero(self.fid == f)
            q, rem = divmod(int(cf[f]), copies.size)
            out[copies] = q
            if rem:
                out[copies[(cursor + np.arange(rem)) % copies.size]] += 1
                cursor += rem
        return out

    # -- communication and estimation -----------------------------------------------------
    def _broadcast(self, r: int, counts: np.ndarray, means: np.ndarray):
        """Line 10 (Alg. 1) / Line 8 (Alg. 2): every agent broadcasts {(N_{v,i}, ȳ_{v,i})}_{i∈[n]}
        (2n scalars, logged once per agent; see module docstring).  Returns the nV-vectors every
        agent holds after the round (identical for all agents)."""
        for v in range(self.V):
            self.ledger.send(r - 1, v, SERVER, "counts_means", 2 * self.n)
        c = np.asarray(counts, dtype=float).reshape(self.P)
        m = np.asarray(means, dtype=float).reshape(self.P)
        return c, np.where(c > 0, m, 0.0)

    def estimate(self, counts, means) -> np.ndarray:
        """F̂(x̃) = k_r(x̃)ᵀ(K^(r) + NξI)⁻¹ȳ^(r) at all nV pairs, from (count, mean) pairs only."""
        return kernel_estimate(self.K, counts, means, self.xi)

    # -- PEPolicy ------------------------------------------------------------------------------
    def recommend(self) -> np.ndarray:
        """x_{v,*} estimate: the single element of B_v; if several remain (round cap / budget
        exhausted), argmax of the last F̂ over B_v (not in the paper: a choice of this package)."""
        out = np.empty(self.V, dtype=np.int64)
        for v, b in enumerate(self.B):
            if len(b) == 1 or self.F_hat is None:
                out[v] = int(b[0])
            else:
                fh = self.F_hat[self._global(v, b)]
                out[v] = int(b[int(np.argmax(fh))])
        return out

    def _base_info(self) -> dict:
        N = [e["N"] for e in self.log]
        loads = np.array([e["loads"] for e in self.log], dtype=np.int64).reshape(-1, self.V)
        rounds = len(self.log)
        return {
            "rounds": rounds,
            "comm_rounds": rounds,
            "N": N,
            "rho": [e["rho"] for e in self.log],
            "tau": [e["tau"] for e in self.log],
            "active_sizes": [e["active_sizes"] for e in self.log],
            "loads_per_round": loads.tolist(),
            "loads": loads.sum(0).tolist() if rounds else [0] * self.V,
            "total_samples": int(sum(N)),
            "samples_per_agent": float(sum(N)) / self.V,
            "comm_scalars_per_round": 2 * self.n * self.V,
            "comm_scalars": 2 * self.n * self.V * rounds,
            "comm_scalars_p2p": 2 * self.n * self.V * (self.V - 1) * rounds,
            "raw_sharing_scalars": 2 * int(sum(N)),
            "message_length": 2 * self.n,
        }


# ----------------------------------------------------------------------------- Algorithm 1
def _averaged_local_allocation(self) -> tuple[np.ndarray, float]:
    """IndAlloc (this package's reading A of §6's one sentence): the average of the active agents' local designs, and the
    max within-agent norm ρ at that allocation (≥ ρ*_r)."""
    active = [v for v, b in enumerate(self.B) if len(b) > 1]
    lam = np.zeros(self.P)
    for v in active:
        lam += self.local_design(v, self.B[v])[0]
    lam /= lam.sum()
    return lam, self.max_norm(lam, self._active_groups())


class CoKernelFC(_CoKernelBase):
    r"""CoKernelFC (Algorithm 1, fixed confidence; §4.1).

    Per agent v ∈ [V] (all agents compute Lines 4–6 and 12–14 identically, so this class runs
    them once centrally)::

        1: Input: δ, X̃, k(·,·), ξ, ROUND, ε = 1/10
        2: B_v^(1) ← X̃_v for all v;  r ← 1
        3: while ∃v : |B_v^(r)| > 1   (and r ≤ max_rounds = 40):
               δ_r ← δ/(2r²)                                                   [inferred]
        4:     λ*_r, ρ*_r ← argmin / min_{λ∈△(X̃)} max_{x̃_i,x̃_j ∈ B_{v'}^(r), v'∈[V]} ‖φ(x̃_i) − φ(x̃_j)‖²_{A(ξ,λ)⁻¹}
        5:     N^(r) ← max{ ⌈c_N · 4^r · ρ*_r · log(2n²V/δ_r)⌉, τ(ξ, λ*_r, ε) }
                   c_N = 32(1+ε)² ("theory", the paper: 32(2^r)²(1+ε)²) or 2(1+ε) ("practical")
        6:     (s_1..s_{N^(r)}) ← ROUND(ξ, λ*_r, N^(r), ε)
        7:     s_v^(r) ← the sub-sequence of s in X̃_v
        8:     agent v samples s_v^(r)
        9:     N_{v,i}^(r), ȳ_{v,i}^(r) ← count and mean on each own arm x̃_{v,i}
        10:    broadcast {(N_{v,i}^(r), ȳ_{v,i}^(r))}_{i∈[n]}, receive all others'
        11:    k_r(x̃) = [√N_i k(x̃, x̃_i)]_i,  K^(r) = [√(N_iN_j) k(x̃_i, x̃_j)],  ȳ^(r) = [√N_i ȳ_i]_i
        12:    for all v ∈ [V]:
        13:        Δ̂_r(x̃, x̃') ← (k_r(x̃) − k_r(x̃'))ᵀ(K^(r) + N^(r)ξI)⁻¹ȳ^(r)   ∀x̃, x̃' ∈ B_v^(r)
        14:        B_v^(r+1) ← B_v^(r) \ {x̃ ∈ B_v^(r) : ∃x̃' ∈ B_v^(r), Δ̂_r(x̃', x̃) ≥ 2^{−r}}
        15:    r ← r + 1
        16: return B_1^(r), …, B_V^(r)

    Notes: the estimator uses only round r's data (as in the paper).  An agent with
    |B_v| = 1 keeps pulling its arms if λ*_r gives them weight (they may inform other agents).
    The design is symmetrised over identical copies (module docstring), so per-agent loads are
    balanced; the metric S = Σ_r N^(r)/V does not depend on the split.  If N^(r) would exceed
    ``max_samples_per_round`` (1e15) the run stops and ``info()["stopped"] = "overflow"``.

    Args:
        delta: confidence δ (0.005 in the paper's experiments).
        constants: "practical" (default; c_N = 2(1+ε)) or "theory" (c_N = 32(1+ε)²).
        max_rounds: round cap (40).
        Other keyword arguments: see :class:`_CoKernelBase` (xi=1e-6, eps=0.1, design options).
    """

    name = "CoKernelFC"

    def __init__(self, instance, seed=None, ledger: CommLedger | None = None, *, delta: float = 0.005,
                 constants: str = "practical", max_rounds: int = 40,
                 max_samples_per_round: float = 1e15, **kwargs):
        kwargs.setdefault("ledger_horizon", max_rounds)
        super().__init__(instance, seed, ledger, **kwargs)
        check("delta", delta, between(0, 1))
        self.delta, self.constants = float(delta), constants
        self.max_rounds = int(max_rounds)
        self.max_samples_per_round = float(max_samples_per_round)
        self.stopped: str | None = None

    # Line 4 (overridden by the IndAlloc ablation): allocation λ_r and the ρ_r used in Line 5
    def _allocation(self) -> tuple[np.ndarray, float]:
        return self.global_design(self._active_groups())

    def _log_arg(self, r: int) -> float:
        return 2.0 * self.n**2 * self.V / delta_r(self.delta, r)

    def _counts(self) -> tuple[np.ndarray, dict]:
        r = self.r
        lam, rho = self._allocation()                                        # Line 4
        t = self.tau(lam)
        N = sample_size(rho, r, self._log_arg(r), self.constants, self.eps, minimum=t)  # Line 5
        if N > self.max_samples_per_round:
            return None, {}
        counts = self.round(lam, N, self._round_by_feature)                  # Line 6
        return counts, {"N": int(N), "rho": float(rho), "tau": int(t)}

    def next_allocation(self) -> np.ndarray | None:
        if self.stopped is not None or all(len(b) <= 1 for b in self.B):
            return None
        if self.r > self.max_rounds:
            self.stopped = "max_rounds"
            return None
        counts, rec = self._counts()
        if counts is None:
            self.stopped = "overflow"
            return None
        rec["active_sizes"] = [len(b) for b in self.B]
        self._pending = rec
        return counts.reshape(self.V, self.n)                               # Lines 7–8

    def observe(self, counts: np.ndarray, means: np.ndarray) -> None:
        if self._pending is None:
            raise RuntimeError("observe() called without a pending allocation")
        rec, self._pending = self._pending, None
        r = self.r
        c, m = self._broadcast(r, counts, means)                             # Lines 9–10
        rec["N"] = int(c.sum())
        rec["loads"] = c.reshape(self.V, self.n).sum(1).astype(np.int64).tolist()
        F = self.estimate(c, m)                                              # Lines 11, 13
        self.F_hat = F
        thr = 2.0 ** (-r)
        for v in range(self.V):                                              # Line 12
            b = self.B[v]
            if len(b) <= 1:
                continue
            fh = F[self._global(v, b)]
            # Line 14: drop x̃ if ∃x̃' ∈ B_v with Δ̂(x̃', x̃) = F̂(x̃') − F̂(x̃) ≥ 2^{-r}
            self.B[v] = b[~(fh.max() - fh >= thr)]
        self.log.append(rec)
        self.r += 1                                                          # Line 15

    def info(self) -> dict:
        out = self._base_info()
        out.update({"algorithm": self.name, "constants": self.constants, "delta": self.delta,
                    "xi": self.xi, "eps": self.eps, "stopped": self.stopped,
                    "active": [b.tolist() for b in self.B]})
        return out


class CoKernelIndAlloc(CoKernelFC):
    r"""CoKernel-IndAlloc: CoKernelFC with locally optimal allocations (paper §6, one sentence;
    the readings (A) and (B) are this package's).  Only Line 4/5 change; sharing, estimator and elimination are CoKernelFC's.

    Reading (A) (``reading="A"``, default)::

        4a: for each agent v with |B_v^(r)| > 1:
                λ_v ← argmin_{λ∈△(X̃_v)} max_{x̃_i,x̃_j ∈ B_v^(r)} ‖φ_i − φ_j‖²_{A(ξ,λ)⁻¹}   (own n arms)
        4b: λ_r ← average of the λ_v over those agents (embedded in △(X̃))
        4c: ρ_r ← max_{x̃_i,x̃_j ∈ B_{v'}^(r), v'∈[V]} ‖φ_i − φ_j‖²_{A(ξ,λ_r)⁻¹}   (≥ ρ*_r)
        5:  N^(r) ← max{⌈c_N 4^r ρ_r log(2n²V/δ_r)⌉, τ(ξ, λ_r, ε)};  6: ROUND(λ_r, N^(r))

    Reading (B) (``reading="B"``): every active agent sizes its own batch as if it ran RAGE
    alone, N_v^(r) = max{⌈c_N 4^r ρ_v log(2n²V/δ_r)⌉, τ(ξ, λ_v, ε)} (the log factor equals
    IndRAGE's with confidence δ/V per copy), pulls ROUND(λ_v, N_v^(r)) on its own arms, and the
    data are shared for estimation (N^(r) = Σ_v N_v^(r) in the regulariser).
    """

    name = "CoKernel-IndAlloc"
    _round_by_feature = False

    def __init__(self, instance, seed=None, ledger: CommLedger | None = None, *, reading: str = "A",
                 **kwargs):
        check("reading", reading, one_of("A", "B"))
        super().__init__(instance, seed, ledger, **kwargs)
        self.reading = reading

    _allocation = _averaged_local_allocation

    def _counts(self):
        if self.reading == "A":
            return super()._counts()
        r = self.r
        counts = np.zeros(self.P, dtype=np.int64)
        rhos, taus = [], []
        for v, b in enumerate(self.B):
            if len(b) <= 1:
                continue
            lam_v, rho_v = self.local_design(v, b)
            t = self.tau(lam_v)
            N_v = sample_size(rho_v, r, self._log_arg(r), self.constants, self.eps, minimum=t)
            if N_v > self.max_samples_per_round:
                return None, {}
            counts += self.round(lam_v, N_v, by_feature=False)
            rhos.append(float(rho_v))
            taus.append(int(t))
        return counts, {"N": int(counts.sum()), "rho": max(rhos), "rho_local": rhos,
                        "tau": max(taus)}

    def info(self) -> dict:
        out = super().info()
        out["reading"] = self.reading
        return out


# ----------------------------------------------------------------------------- Algorithm 2
class CoKernelFB(_CoKernelBase):
    r"""CoKernelFB (Algorithm 2, fixed budget; paper App. C.4).

    Per agent v ∈ [V] (Lines 4–5 and 9–13 are identical for every agent and run once here)::

        1: Input: ξ, per-agent budget T, X̃, k(·,·), ROUND, ε = 1/10
           (the paper's conditions on ξ, T and ω(ξ,{x_{v,*},x}) ≥ 1 are not enforced; whether
            N ≥ τ(ξ, λ*_1, ε) held is reported in info()["N_ge_tau"])
        2: R ← ⌈log2 ω(ξ, X̃)⌉ (guard R ≥ 1);  N ← ⌊TV/R⌋;  B_v^(1) ← X̃_v for all v;  r ← 1
        3: while r ≤ R and ∃v : |B_v^(r)| > 1:
        4:     λ*_r ← argmin_{λ∈△(X̃)} max_{x̃_i,x̃_j ∈ B_{v'}^(r), v'∈[V]} ‖φ(x̃_i) − φ(x̃_j)‖²_{A(ξ,λ)⁻¹}
        5:     (s_1..s_N) ← ROUND(ξ, λ*_r, N, ε)
        6:     s_v^(r) ← the sub-sequence of s in X̃_v
        7:     agent v samples s_v^(r)
        8:     broadcast {(N_{v,i}^(r), ȳ_{v,i}^(r))}_{i∈[n]}, receive all others'
        9:     for all v ∈ [V]:
        10:        F̂_r(x̃) ← k_r(x̃)ᵀ(K^(r) + NξI)⁻¹ȳ^(r) for all x̃ ∈ B_v^(r)
        11:        sort B_v^(r) by F̂_r decreasing: x̃_(1), …, x̃_(m)
        12:        i_{r+1} ← largest i with ω(ξ, {x̃_(1),…,x̃_(i)}) ≤ ω(ξ, B_v^(r))/2   (ω(one arm) := 0)
        13:        B_v^(r+1) ← {x̃_(1), …, x̃_(i_{r+1})}
        14:    r ← r + 1
        15: return B_1^(r), …, B_V^(r)  (if |B_v| > 1 after R rounds: argmax of the last F̂, inferred)

    Details:
      * ω(ξ, S) always minimises over designs on ALL of X̃ (:meth:`omega`, cached by S's
        distinct features).
      * Line 12 compares with relative tolerance ``cut_rtol`` (1e-3):
        ω(prefix) ≤ (1 + cut_rtol)·ω(B_v)/2 (on the paper's instance ω(top-3) = ω(all 6)/2 = 6
        exactly).  ω of prefixes is non-decreasing in i (a superset of pairs under the same
        min), so the scan stops at the first prefix that fails.
      * ``R_mode="literal"`` (default): ω(ξ, X̃) with all pairs of X̃, cross-agent pairs included
        (12/24/60 → R = 4/5/6 on the three experiment cases); ``"within"``: max_v ω(ξ, X̃_v).
        R = max(1, ⌈log2 ω − 1e-9⌉) (the tiny slack keeps ω = 2^k·(1 − O(ξ)) from flipping R).
      * ``reuse_past_rounds=True`` pools all rounds' (count, mean) pairs in the estimator (still
        O(n) per message); default False (Algorithm 2 uses the round's data).
      * Total samples = (#rounds executed)·N ≤ R·⌊TV/R⌋ ≤ TV.

    Args:
        T: per-agent budget (total TV).
        R_mode: "literal" or "within".
        reuse_past_rounds: pool data over rounds in the estimator.
        cut_rtol: relative tolerance of the Line-12 comparison.
        Other keyword arguments: see :class:`_CoKernelBase`.
    """

    name = "CoKernelFB"

    def __init__(self, instance, seed=None, ledger: CommLedger | None = None, *, T: int,
                 R_mode: str = "literal", reuse_past_rounds: bool = False, cut_rtol: float = 1e-3,
                 **kwargs):
        check("R_mode", R_mode, one_of("literal", "within"))
        super().__init__(instance, seed, ledger, **kwargs)
        self.T = int(T)
        check("T", self.T, ge(1))
        self.R_mode, self.reuse = R_mode, bool(reuse_past_rounds)
        self.cut_rtol = float(cut_rtol)
        # Line 2
        if R_mode == "literal":
            self.omega_X = self.omega(np.arange(self.P))
        else:
            self.omega_X = max(self.omega(self._global(v, np.arange(self.n))) for v in range(self.V))
        self.R = max(1, int(math.ceil(math.log2(self.omega_X) - 1e-9))) if self.omega_X > 0 else 1
        self.N = (self.T * self.V) // self.R
        check("R", self.R, le(self.ledger.horizon))
        self._pool_c = np.zeros(self.P)
        self._pool_s = np.zeros(self.P)
        self.cuts: list[list[int]] = []

    def _allocation(self) -> tuple[np.ndarray, float]:
        return self.global_design(self._active_groups())

    def _cut_omega(self, v: int, local) -> float:
        """ω(ξ, S) of agent v's arms ``local`` (Line 12), the design on all of X̃."""
        return self.omega(self._global(v, local))

    def next_allocation(self) -> np.ndarray | None:
        if self.r > self.R or all(len(b) <= 1 for b in self.B):             # Line 3
            return None
        lam, rho = self._allocation()                                        # Line 4
        counts = self.round(lam, self.N, self._round_by_feature)             # Line 5
        self._pending = {"N": int(self.N), "rho": float(rho), "tau": int(self.tau(lam)),
                         "active_sizes": [len(b) for b in self.B]}
        return counts.reshape(self.V, self.n)                               # Lines 6–7

    def observe(self, counts: np.ndarray, means: np.ndarray) -> None:
        if self._pending is None:
            raise RuntimeError("observe() called without a pending allocation")
        rec, self._pending = self._pending, None
        c, m = self._broadcast(self.r, counts, means)                        # Line 8
        rec["N"] = int(c.sum())
        rec["loads"] = c.reshape(self.V, self.n).sum(1).astype(np.int64).tolist()
        if self.reuse:
            self._pool_c += c
            self._pool_s += c * m
            cc = self._pool_c
            F = self.estimate(cc, np.divide(self._pool_s, cc, out=np.zeros(self.P), where=cc > 0))
        else:
            F = self.estimate(c, m)                                          # Line 10
        self.F_hat = F
        cut = []
        for v in range(self.V):                                              # Line 9
            b = self.B[v]
            if len(b) <= 1:
                cut.append(len(b))
                continue
            order = b[np.argsort(-F[self._global(v, b)], kind="stable")]    # Line 11
            limit = (1.0 + self.cut_rtol) * self._cut_omega(v, b) / 2.0
            i = 1                                                            # Line 12
            while i < len(order) and self._cut_omega(v, order[: i + 1]) <= limit:
                i += 1
            self.B[v] = order[:i]                                            # Line 13
            cut.append(i)
        self.cuts.append(cut)
        self.log.append(rec)
        self.r += 1                                                          # Line 14

    def info(self) -> dict:
        out = self._base_info()
        used = out["total_samples"]
        out.update({"algorithm": self.name, "T": self.T, "R": self.R, "R_mode": self.R_mode,
                    "omega_X": self.omega_X, "N_per_round": self.N,
                    "budget_used_fraction": used / (self.T * self.V),
                    "N_ge_tau": bool(all(self.N >= t for t in out["tau"])),
                    "reuse_past_rounds": self.reuse, "cuts": self.cuts, "xi": self.xi,
                    "active": [b.tolist() for b in self.B]})
        return out


class CoKernelFBIndAlloc(CoKernelFB):
    r"""CoKernelFB-IndAlloc: CoKernelFB with locally optimal allocations (paper App. A, one
    sentence: "agents use locally optimal sample allocations, instead of a globally optimal sample
    allocation").

    Reading (A) (``reading="A"``, default; this package's reading, as for
    :class:`CoKernelIndAlloc`): Line 4 uses the average of the agents'
    locally optimal designs; R = ⌈log2 ω(ξ, X̃)⌉ and N = ⌊TV/R⌋ are CoKernelFB's.  ``rho`` in the
    log is the global max-norm at the averaged design.

    Reading (B) (``reading="B"``; the FB analogue of :class:`CoKernelIndAlloc`'s reading B, our
    choice: the paper defines neither reading; this package's reading B was first made for the
    fixed-confidence ablation):
    every agent runs its own fixed-budget schedule as if it ran Peace-FB alone on its n arms, and
    the data are shared for estimation::

        R_v ← ⌈log2 ω_v(ξ, X̃_v)⌉ (guard ≥ 1),  N_v ← ⌊T/R_v⌋      ω_v: designs on agent v's own arms
        round r (while r ≤ max_v R_v and ∃v : |B_v| > 1):
            each agent v with |B_v| > 1 and r ≤ R_v pulls ROUND(λ_v, N_v) on its own arms,
                λ_v = argmin_{λ∈△(X̃_v)} max_{x̃_i,x̃_j ∈ B_v} ‖φ_i − φ_j‖²_{A(ξ,λ)⁻¹}
            broadcast / estimate as CoKernelFB (Lines 8–10, N = Σ_v pulls in the regulariser)
            cut B_v by Line 12 with ω_v in place of ω

    Each agent spends at most R_v·⌊T/R_v⌋ ≤ T.  On the paper's instances ω_v = 12 for every
    agent, so R_v = 4 at every rank (CoKernelFB's literal R is 4 / 5 / 6)."""

    name = "CoKernelFB-IndAlloc"
    _round_by_feature = False

    def __init__(self, instance, seed=None, ledger: CommLedger | None = None, *, reading: str = "A", **kwargs):
        check("reading", reading, one_of("A", "B"))
        super().__init__(instance, seed, ledger, **kwargs)
        self.reading = reading
        if reading == "B":
            self.omega_v = [self.local_design(v, np.arange(self.n))[1] for v in range(self.V)]
            self.R_v = [max(1, int(math.ceil(math.log2(w) - 1e-9))) if w > 0 else 1 for w in self.omega_v]
            self.N_v = [self.T // R for R in self.R_v]
            self.R = max(self.R_v)
            check("R", self.R, le(self.ledger.horizon))

    _allocation = _averaged_local_allocation

    def _cut_omega(self, v: int, local) -> float:
        if self.reading == "A":
            return super()._cut_omega(v, local)
        return self.local_design(v, np.asarray(local, dtype=int))[1]

    def next_allocation(self) -> np.ndarray | None:
        if self.reading == "A":
            return super().next_allocation()
        if self.r > self.R or all(len(b) <= 1 for b in self.B):
            return None
        counts = np.zeros(self.P, dtype=np.int64)
        rhos, taus = [], []
        for v, b in enumerate(self.B):
            if len(b) <= 1 or self.r > self.R_v[v]:
                continue
            lam_v, rho_v = self.local_design(v, b)
            counts += self.round(lam_v, self.N_v[v], by_feature=False)
            rhos.append(float(rho_v))
            taus.append(int(self.tau(lam_v)))
        if not rhos:
            return None
        self._pending = {"N": int(counts.sum()), "rho": max(rhos), "rho_local": rhos, "tau": max(taus),
                         "active_sizes": [len(b) for b in self.B]}
        return counts.reshape(self.V, self.n)

    def info(self) -> dict:
        out = super().info()
        out["reading"] = self.reading
        if self.reading == "B":
            out.update({"R_v": self.R_v, "N_v": self.N_v, "omega_v": self.omega_v,
                        "N_ge_tau": bool(all(min(self.N_v) >= t for t in out["tau"]))})
        return out
