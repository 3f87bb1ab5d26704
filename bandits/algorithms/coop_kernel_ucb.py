r"""Coop-KernelUCB, Eager-KernelUCB, Dist-KernelUCB (Dubey & Pentland, ICML 2020) and baselines.

V agents on a graph G exchange raw observations by message passing: observation ``(u, s)`` is
usable by ``v`` at decision round ``t`` iff ``d(u,v) ≤ γ`` and ``s ≤ t − τ(u,v)``,
``τ(u,v) = max(1, d(u,v))`` (:mod:`bandits.network`). Every method here is kernel UCB on the
augmented input ``x̃ = (z_u, x)`` with the product kernel ``K = K_z ⊙ K_x`` over an
acceptance set of sources (§3.1–3.2, Eq. 7–9; the visibility rule is this package's reading of §3.1's
message passing, :mod:`bandits.network`):

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

(Eq. 8's ``1/n_v(t)`` factor is inconsistent with its closed form Eq. 9; Eq. 9 is implemented.)

Widths (``width``; Alg. 1 l.7, Remark 1, Lemma 1, Eq. 30; Lemma 1 multiplies ``σ²`` where ``σ`` is meant and
writes ``det(λI + K)`` for ``det(I + K/λ)``, Eq. 30 differs from Lemma 1 in the ``ln V`` term: the
``"theory"`` width below is this package's corrected form):

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
``1/(n n')`` factors: without them ``K̂_z → 0`` as samples accumulate and cooperation vanishes;
which samples feed it is not stated, the chosen contexts are this package's choice)::

    MMD² = (1/n²)Σ k_P(x_i,x_j) + (1/n'²)Σ k_P(x'_i,x'_j) − (2/(n n'))Σ k_P(x_i,x'_j)
         = ‖φ̄_u − φ̄_{u'}‖²   for a finite feature map φ_P of k_P

on the *chosen* contexts (what messages carry); source ``u``'s samples up to ``t − τ(u,v)``,
``v``'s own up to ``t − 1``. ``k_P = K_x`` (``embed_kernel="kx"``; for the RBF kernel through a
random-Fourier map of ``n_embed`` features) or any ``{"name": "rbf", "lengthscale": ℓ}``.
``"oracle"``: the true ``K_z`` handed in as ``kz_oracle`` (by :meth:`NetworkKernelUCB.env_params`) (ablation and theory
checks); ``"ones"``: Naive Cooperation. ``K̂_z`` is refreshed every ``kz_every`` rounds and,
so that every source is in the factor once its data arrive, at every round ``t ≤ τ_max + m − 1``.

Implementation (one module per part; the methods all run the same engine,
:class:`~bandits.algorithms.coop_engine.NetworkKernelUCB`):

* ``K̂_z`` and its truncated factor ``W_A ≈ L Lᵀ`` with the ``‖L_v‖² ≥ min_var·W_vv`` safeguard,
  ``r_max``/``r_limit``, ``truncation="own_residual"`` and ``kz_min_samples``: :mod:`bandits.algorithms.coop_kz`;
* two solvers, equal to 1e-8 when nothing is truncated (tests): ``path="primal"`` (default; features
  ``ψ(u, x) = L_u ⊗ φ(x)``, one model per group of agents with identical ``(Accept_v, τ(·, v))``, a
  model in dual form while it is the smaller system): :mod:`bandits.algorithms.coop_primal`;
  ``path="dual"`` (the exact dual above, the reference for small graphs): :mod:`bandits.algorithms.coop_dual`;
* the feature maps of ``K_x`` (identity, random Fourier or Nyström features, drawn once per run and
  shared by every method of the run) and of the MMD kernel: :mod:`bandits.algorithms.coop_features`;
* the settings, validated once: :class:`~bandits.algorithms.coop_config.CoopConfig`.

Dist-KernelUCB (Alg. 3, §4): centres (``network.centres``, the greedy maximal weighted
independent set of ``G_γ``) run Eager. A peripheral ``p`` with centre ``c`` at distance ``Δ``
runs single-agent KernelUCB (own data, ``K = K_x``, same η; Alg. 3 l.8 allows KernelUCB or
IGP-UCB; KernelUCB keeps Dist comparable with the η-tuned methods, a choice of this package) while
``t < Δ``, then imitates ``c``:

* ``"copy_policy"`` (default: Figure 1's decision sets are random per agent and round, so a peripheral
  cannot play its centre's arm; a choice of this package): UCB on ``D_{p,t}`` of the
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

This module holds the methods, each a few lines of defaults of the engine, and re-exports the
parts' public names.
"""
from __future__ import annotations


from .coop_config import (ACCEPTS, KZ_MODES, PATHS, PERIPHERAL_MODES, TRUNCATIONS, UPDATES,  # noqa: F401
                          WIDTHS, CoopConfig)
from .coop_dual import DualSolver  # noqa: F401
from .coop_engine import NetworkKernelUCB
from .coop_features import (NystroemFeatures, RandomFourierFeatures, _check_map, _Identity,  # noqa: F401
                            _kernel_name, feature_maps, kz_from_mmd, method_seed, mmd_from_embeddings,
                            mmd_vstatistic)
from .coop_kz import NetworkKernelFactor, _top_eigh  # noqa: F401
from .coop_primal import PrimalSolver, _lower_solve  # noqa: F401
from ..validation import check, one_of, rule

__all__ = ["RandomFourierFeatures", "mmd_from_embeddings", "kz_from_mmd", "mmd_vstatistic",
           "NetworkKernelUCB", "CoopKernelUCB", "EagerKernelUCB", "DistKernelUCB", "IndLinUCB",
           "IndOFUL", "IndKernelUCB", "IndIGPUCB", "NaiveLinUCB", "NaiveIGPUCB", "NaiveKernelUCB",
           "method_seed"]


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
        check("accept", kw.get("accept", "neighbourhood"), one_of("neighbourhood"),
              note="Dist-KernelUCB's centres accept their whole gamma-neighbourhood")
        super().__init__(*args, peripheral_mode=peripheral_mode, **kw)


def _linear_only(kw, name):
    k = kw.get("kernel")
    check("kernel", k, rule(lambda k: k is None or _kernel_name(k)[0] == "linear", "{'name': 'linear'}"),
          note=f"{name} is a linear method")
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
    """Naive Cooperation with KernelUCB's same-η width (an ablation of this package; the paper's Naive
    Cooperation runs IGP-UCB in the kernel setting, §5)."""

    name = "Naive-KernelUCB"
    default_accept = "neighbourhood"
