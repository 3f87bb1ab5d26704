r"""FN-UCB: federated neural UCB (Dai, Shu, Verma, Low & Jaillet, ICLR 2023; Algorithms 1–2).

Paper: Sec. 3 (Algorithms 1–2, Less Comm. and diagonalisation in Sec. 3.4), Sec. 5.1 (Fig. 1c
ablations), App. E (practical details); the official code is the authors' repository
daizhongxiang/Federated-Neural-Bandits (``run_fn_ucb.py``, ``NeuralTS/learner_diag.py``). The neural
parts (network, per-sample gradients, local training, FedAvg) come from :mod:`bandits.neural`,
imported when a policy is built, so ``import bandits.algorithms`` does not load torch.

Synchronous protocol: every iteration ``t`` all N agents receive K fresh contexts
``X_{t,i} = {x^k_{t,i}}`` and pick one (``sim.run_regret`` with ``schedule="sync"``).

Per agent i and iteration t (Algorithm 1, with ``φ(x) = g(x; θ0)/√m``; see ``feature_scale``)::

    V_{t,i} = λI + W_sync + W_new,i,     θ_{t,i} = V_{t,i}⁻¹ (B_sync + B_new,i)               (line 4)
    UCB_a(x) = ⟨φ(x), θ_{t,i}⟩ + ν_TKN √λ ‖φ(x)‖_{V_{t,i}⁻¹}                                  (line 5)
    UCB_b(x) = f(x; θ_sync,NN) + ν_TK √λ (1/N) Σ_j ‖φ(x)‖_{(V^local_j)⁻¹}      (line 6, "full")
    UCB_b(x) = f(x; θ_sync,NN) + ν_TK √λ ‖φ(x)‖_{V_sync,NN⁻¹}                    (Sec. 3.4, "less_comm")
    x_{t,i} = argmax_x (1 − α) UCB_a(x) + α UCB_b(x)                                         (line 7)
    W_new,i += φφᵀ,  B_new,i += y φ,  V^local_{t,i} = V^local_{t−1,i} + φφᵀ                 (lines 9–10)
    round if (t − t_last) · log[det(λI + W_sync + W_new,i) / det(V_last)] > D              (line 11)

A round (Algorithm 2) is global: every agent trains its NN on its local data (line 14), uploads
``{W_new,i, B_new,i, θ^i_t, α_{t,i}, (V^local_{t,i})⁻¹}``; the server sets ``θ_sync,NN = (1/N) Σ_i θ^i_t``,
``α = min_i α_{t,i}``, ``W_sync += Σ_i W_new,i``, ``B_sync += Σ_i B_new,i``, and
``V_sync,NN⁻¹ = (1/N) Σ_i (V^local_{t,i})⁻¹`` (Less Comm.) and broadcasts; every agent sets
``V_last = λI + W_sync``, ``t_last = t`` and empties ``W_new,i``, ``B_new,i``. With ``D = 0`` the
strict inequality makes a round happen after every iteration.

Options (a choice of this package; defaults in brackets)
--------------------------------------------------------
* ``nn_mode`` ["own_prev"]: the local training of line 14 at a round.
  ``"own_prev"`` (default, App. E as its text states it: "when training the NN (line 14 of Algo. 1)
  for agent i, we use the NN parameters resulting from the last gradient descent training of agent
  i (instead of θ0) as the initial parameters"): every agent warm-starts from its own previous θ^i,
  trains ``train_steps`` (30) steps of lr 0.01 on its own data, uploads θ^i; the server averages
  (θ_sync,NN = (1/N) Σ_i θ^i, used by UCB_b); features stay at θ0.
  ``"fedavg"``: every agent starts its local training from the last broadcast ``θ_sync,NN`` (θ0 before
  the first round) and the server averages: standard FedAvg, ≈ ``train_steps`` effective steps per
  round whatever N. ``"fedavg_budget"``: the same with ``budget_steps`` local steps per round (None:
  ``train_steps · N``, the number of steps the official code's one network takes per round), the
  budget-matched FedAvg. ``"official_shared"`` replays the official code (``run_fn_ucb.py``): ONE
  parameter tensor held by every agent, by θ_sync,NN and by the "θ0" feature network; at each round it
  is trained in place on agent 1's data, then agent 2's, …, agent N's (``train_steps`` each, so
  ``train_steps · N`` steps of one network per round), and features are gradients at the *current*
  shared parameters. The official code runs it with ``official_train_subset=True``. (In the code every
  agent's network is built with ``init_params=theta_0``, which assigns ``layer.weight.data = theta_0[...]``
  in ``NeuralTS/learner_diag.py``: the tensors share storage, so the agents train one network; not in
  the paper, which describes parallel local training and averaging, Algo. 1 line 14, Algo. 2 line 4.)

  *The trainings, measured* (cosine, N = 5, T = 5000, 3 runs; ``figures/fn_ucb/NOTE.md``): at D = 5
  ``official_shared`` with ``official_train_subset`` gives ≈ 345 rounds and R̄(5000) in the tens (the
  paper: 348 rounds); ``fedavg`` (≈ 30 effective steps per round, a few hundred rounds before t = 2000)
  stays under-fitted, R̄(5000) in the hundreds, and ``fedavg_budget`` (150 steps) is back in the tens;
  ``own_prev`` is in the hundreds at D = 5 and worse than ``fedavg`` at D = 0: its networks see only their
  own agent's data and the average of the never re-synchronised networks predicts badly.
* ``aggregate`` [True]: False is the "no NN aggregation" ablation (Sec. 5.1, Fig. 1c): UCB_b of agent i
  uses its own θ^i and local training warm-starts from θ^i (no parameter exchange).
* ``alpha_mode`` ["linear"]: ``"linear"`` the experiments' ramp ``α_t = clip((t − delay)/ramp, 0, 1)``
  with 0-based t, ramp 700, delay 3 (Sec. 5.1: "linearly increasing (to 1) in the first 700 iterations"; the 3-iteration zero prefix
  is the official code's, ``run_fn_ucb.py``, not in the paper);
  ``"theory"`` ``α = min_i σ_min/σ_max`` with ``σ(x) = √λ ‖φ(x)‖_{(V^local_{t,i})⁻¹}`` computed at
  rounds (Algo. 1 line 15, App. C.4.4) and used for the whole next epoch (App. F);
  ``"theory_first_iter"`` the same α in the first iteration of each epoch and 0 elsewhere (the
  version Theorem 1 analyses); ``"zero"`` (only UCB_a) and ``"one"`` (only UCB_b, from t = 1).
  The theory α needs a candidate set standing in for the domain (``alpha_candidates``, (M, d)),
  to which each agent adds its last ``alpha_recent`` (200) queried contexts (a choice of this package: Sec. 3.3 takes the min and max over the whole domain).
  Without the queried contexts the candidate minimum stays large and α does not increase (an
  observation of a prototype of this package).
* ``local_stats`` [False]: keep each agent's ``(V^local_{t,i})⁻¹`` and its last ``alpha_recent`` queried
  contexts even when the configured α never reads them (``alpha_mode="zero"``), so that
  :meth:`FNUCB.theory_alpha` can be evaluated by an observer of the loop (the theory notebook's E8); it
  changes no choice and sends nothing. With ``alpha_mode="zero"`` and without it, neither is kept.
* ``variant`` ["less_comm"] (all experiments except Fig. 3) or ``"full"``.
* ``diag`` [False]: Sec. 3.4's diagonal approximation (only the diagonals of W_new,i, W_sync,
  V^local; inverses elementwise). ``diag_rescale_mean`` [True]: footnote 4, UCB_a's mean term
  min–max rescaled to [0, 1] over the K current contexts (0 if they are all equal) in diag mode.
* ``criterion`` ["diag"]: the trigger's log-determinants from the diagonals only (App. E: "we
  diagonalize … the two matrices for which we need to calculate the determinant", and the code),
  or ``"exact"`` (matrix determinant lemma, ``log det(V + φφᵀ) = log det V + log(1 + φᵀV⁻¹φ)``).
  With ``diag=True`` the matrices are diagonal and both coincide.
* ``features`` ["ntk"]: NTK features of the network, or ``"identity"`` (φ(x) = x: with
  ``alpha_mode="zero"`` FN-UCB is DisLinUCB with Wang et al.'s ``t − t_last`` trigger).
* ``init`` ["official"], ``feature_scale`` ["raw"], ``objective`` ["official"]: the network's
  parametrisation, feature scaling and training loss (:mod:`bandits.neural`). Defaults are the
  official code's because the paper's published hyperparameters (λ = ν = 0.1 synthetic;
  λ = 10, ν_TKN = 0.1, ν_TK = 0.01 real) were tuned for it (Sec. 5, App. E; the code's network has N(0, 1) weights and biases and raw
  gradient features, ``NeuralTS/learner_diag.py``, unlike App. B's); ``init="ntk"``,
  ``feature_scale="sqrt_m"``, ``objective="paper"`` give App. B / Eq. (1). ``mirror`` (default: on
  with ``init="ntk"``) feeds the network ``[x, x]/√2`` (Assumption 1's mirrored inputs, so that
  ``f(x; θ0) = 0``); the contexts themselves are unchanged.
* Training (App. E): ``train_steps`` 30 full-batch steps of lr 0.01 at every round while
  ``t < stop_train_after`` (2000, 0-based as the code; App. E: "we stop training the NNs after 2000
  iterations"); skipped when the NN is never used (``alpha_mode="zero"``) and, in the linear mode,
  while ``α_{t+1} = 0`` (the code's condition). App. E says "stochastic gradient descent"; the code
  and this package use the full local batch. Every observation joins the agent's training set;
  ``official_train_subset=True`` appends only the point of an iteration that trains (the code's
  behaviour in ``run_fn_ucb.py``: the learner's data grows only in iterations that start a round; not
  in the paper).

Two differences from the official code that the paper does not state
--------------------------------------------------------------------
* **Weight decay.** With ``objective="official"`` the regulariser is the code's SGD weight decay
  ``λ/n`` with n the number of points in the agent's training set (:mod:`bandits.neural`); the code
  divides λ by its number of *training calls* (``self.len`` in ``NeuralTS/learner_diag.py``: one call
  per round). With ``official_train_subset=True`` (one point per call) the two coincide; without it
  and with D > 0 they differ by the number of points per round (≈ 2000/260 ≈ 8–10× at D = 5 before
  t = 2000: this package's decay is the weaker).
* **UCB_b's local inverses (``variant="full"``).** This package scores with the snapshots of
  ``(V^local_j)⁻¹`` broadcast at the last round (Algo. 1 line 6, Algo. 2: they are sent only at
  rounds); the code uses every agent's *current* ``V^local_j`` (``torch.inverse(V_local_list[ii])``,
  updated every iteration). With D = 0 the two are the same; the Less Comm. variant
  (``V_sync,NN⁻¹``, computed at rounds) agrees with the code in both.

Linear algebra (a choice of this package; the official code inverts the matrices every step): float64 numpy, no inverse per step, every update in place through
BLAS (``dger`` / ``dgemm`` with β = 1 on the matrices' own memory: one pass over a p × p matrix
per update, which is what the per-iteration cost is made of when p0 = 1301). ``V_sync⁻¹ =
(λI + W_sync)⁻¹`` takes the pending points of all agents at each round in one Woodbury block
update (:func:`woodbury_inplace`, equal to the sequential Sherman–Morrison updates to round-off);
an agent keeps a private ``V_{t,i}⁻¹`` only once it has unsynchronised data (with ``D = 0`` it
never has), and the agents without one are scored together in one GEMM. Each
``(V^local_{t,i})⁻¹`` takes one rank-one update per own point (:func:`sherman_morrison_inplace`),
and the Less Comm. mean ``(1/N) Σ_i (V^local_{t,i})⁻¹`` is kept as a running mean (the N local
updates change it by ``−Σ_i u_i u_iᵀ/(N(1 + φ_iᵀu_i))``, ``u_i = (V^local_i)⁻¹φ_i``, one rank-N
GEMM) and snapshotted at rounds. Snapshots are copy-on-write: a round makes the broadcast matrix
the running one itself, copied only if the running one changes before the next round, so with
``D = 0`` no p × p copy is ever made. UCB_a's mean reuses ``Φ V⁻¹`` from the width
(``⟨φ, V⁻¹b⟩ = (φᵀV⁻¹) b``). The network's features, predictions and training run in numpy for
one hidden layer on the CPU (:meth:`bandits.neural.MLP.features_numpy`, ``forward_numpy``,
:func:`bandits.neural.train_full_batch`).

*Block contexts* (the classification bandits of Sec. 5.2: the row in its arm's block of a ``K·d``-vector,
zeros elsewhere): a context's NTK features vanish off its block's support ``S`` (the block's columns of
``W1`` and every other parameter: 221 of shuttle's 1 301 at m = 20, :meth:`bandits.neural.MLP.block_support`),
so the quadratic forms are taken as ``φ_Sᵀ M[S, S] φ_S`` and ``u_i = (V^local_i)⁻¹ φ_i`` as ``V[S, :]ᵀ φ_S``
(the matrices are symmetric), UCB_a's mean as ``Φ (V⁻¹ b)``; the rank-one and Woodbury updates stay
dense (``u`` is). Taken when ``S`` is at most a third of ``p`` (:meth:`FNUCB._row_blocks`; MAGIC's two
blocks, 241 of 441, stay dense). The same arithmetic to round-off, not bit for bit (the sums' order
differs). Measured (shuttle, N = 5, m = 20, T = 600, one thread, CPU time): 13.0 s against 16.2 s for the
dense products, with the training's block path (:func:`bandits.neural.train_full_batch`) in both.

Cost (``bandits.bench.bench_fn_ucb``: cosine, m = 20, D = 0, T = 5000, one thread; process CPU
time on the shared 2-core machine, whose load made wall-clock 1–5x that): 3.1–3.4 ms per
iteration for N = 2 (4.2 ms wall at low load; the official code: about 65 ms; this module before
the in-place paths: 6.2–6.9 ms), 6.4–7.7 ms for N = 5, 11–15 ms for N = 10; 2.5 ms for N = 2 with
``nn_dtype="float32"``. Training (30 full-batch steps on all n ≤ 2000 local points per round) is
most of it: about 7 ms per iteration at N = 2 while t < 2000, 0.75 ms after. With both trainings
in place (same bench, load 10–15, CPU time): the default ``own_prev`` 2.6 ms (N = 2) and
5.8 ms (N = 5), ``fedavg`` 2.5 ms, ``official_shared`` with ``official_train_subset`` 2.6 ms (N = 2).

Communication (ledger, scalars; Sec. 3.4, Algo. 1 line 16, Algo. 2 line 6): per round, every agent uploads ``W_new,i`` (p² full, p
diag), ``B_new,i`` (p), ``θ^i`` (p0, when the NN was trained and is aggregated), ``α_{t,i}`` (1,
theory α modes only) and ``(V^local_{t,i})⁻¹`` (p² or p, when UCB_b is used); the server
broadcasts ``W_sync``, ``B_sync``, ``θ_sync,NN``, ``α`` and ``V_sync,NN⁻¹`` (Less Comm.) or all N
local inverses (full) with the same conditions (p is the feature dimension, p0 for NTK
features). Items the configured variant never uses are not sent (our choice; the paper's list is
the full one). FN-UCB's figures count communication **rounds** (``info()["n_rounds"]``,
``ledger.rounds()``).

Regret and time: ``t`` is the loop's 0-based step; the paper's ``t`` is ``t + 1`` and its
``t_last = 0`` is our ``t_last = −1``.

What an observer can read (:class:`bandits.sim.Observer`, called after every ``update``; the theory
checks' recorders use only these): ``round_times`` (the steps that ended in a round), ``dsync``
(``diag(λI + W_sync)``), ``Vsync_inv`` (full mode), ``lam``, ``p``, ``ucb_a_terms`` (UCB_a's mean
``⟨φ(x), θ_{t,i}⟩`` and ``φ(x)ᵀV_{t,i}⁻¹φ(x)`` for every agent and context, as the last ``select``
computed them from the state *before* its update; None when α = 1 skipped UCB_a), and
:meth:`FNUCB.theory_alpha` (Sec. 3.3's α from the current state, for any candidate set).
"""
from __future__ import annotations

import importlib
import math

import numpy as np
from scipy.linalg import blas as _blas

from ..comm import SERVER, CommLedger
from ..sim import Policy
from .kernel_ucb import argmax_ties
from ..validation import check, ge, gt, one_of, rule

__all__ = ["FNUCB", "FNUCBOnlyA", "FNUCBOnlyB", "FNUCBNoAggregation", "NN_MODES", "ALPHA_MODES",
           "VARIANTS", "CRITERIA", "FEATURES", "sherman_morrison_inplace", "woodbury_inplace"]

NN_MODES = ("own_prev", "fedavg", "fedavg_budget", "official_shared")
ALPHA_MODES = ("linear", "theory", "theory_first_iter", "zero", "one")
VARIANTS = ("less_comm", "full")
CRITERIA = ("diag", "exact")
FEATURES = ("ntk", "identity")


def _gemm_inplace(A: np.ndarray, alpha: float, L: np.ndarray, R: np.ndarray) -> None:
    """``A += α L R`` in place for a C-contiguous float64 (p, p) ``A``, L (p, k), R (k, p).

    One BLAS ``dgemm`` with ``β = 1`` on ``Aᵀ`` (Fortran order, the same memory), so ``A`` is read and
    written once; numpy's ``A -= L @ R`` writes a temporary and reads it back. Hand-written because
    neither numpy nor scipy's high-level API updates a matrix in place."""
    out = _blas.dgemm(alpha, R.T, L.T, beta=1.0, c=A.T, overwrite_c=True)
    if not np.shares_memory(out, A):  # pragma: no cover - not C-contiguous float64: plain numpy
        A += alpha * (L @ R)


def _ger_inplace(A: np.ndarray, alpha: float, u: np.ndarray) -> None:
    """``A += α u uᵀ`` in place (BLAS ``dger`` on ``Aᵀ``: one pass over A instead of three)."""
    out = _blas.dger(alpha, u, u, a=A.T, overwrite_a=True)
    if not np.shares_memory(out, A):  # pragma: no cover - not C-contiguous float64: plain numpy
        A += alpha * np.outer(u, u)


def sherman_morrison_inplace(Ainv: np.ndarray, phi: np.ndarray, u: np.ndarray | None = None) -> float:
    r"""``A⁻¹ ← (A + φφᵀ)⁻¹ = A⁻¹ − u uᵀ/(1 + φᵀu)``, ``u = A⁻¹φ``, in place (the Sherman–Morrison formula); O(p²).

    Args: Ainv (p, p) symmetric, C-contiguous float64; phi (p,); u: ``A⁻¹φ`` when the caller has it
    (computed here otherwise). Returns ``1 + φᵀA⁻¹φ``.
    """
    if u is None:
        u = Ainv @ phi
    c = 1.0 + float(phi @ u)
    _ger_inplace(Ainv, -1.0 / c, u)
    return c


def woodbury_inplace(Ainv: np.ndarray, Phi: np.ndarray, chunk: int = 256) -> None:
    r"""``A⁻¹ ← (A + ΦᵀΦ)⁻¹`` in place for the k rows of Φ (the Woodbury identity, a block of
    Sherman–Morrison updates)::

        U = Φ A⁻¹ (k, p),   S = I_k + U Φᵀ (k, k),   A⁻¹ ← A⁻¹ − Uᵀ S⁻¹ U

    level-3 BLAS (two GEMMs and a k × k solve) instead of k rank-one updates; the rows are
    taken ``chunk`` at a time so that S stays small. Equal to k sequential Sherman–Morrison updates
    to round-off (tested). Args: Ainv (p, p) symmetric C-contiguous float64; Phi (k, p)."""
    Phi = np.asarray(Phi, dtype=np.float64)
    for s in range(0, Phi.shape[0], chunk):
        P = Phi[s:s + chunk]
        U = P @ Ainv
        S = U @ P.T
        S[np.diag_indices_from(S)] += 1.0
        Z = np.linalg.solve(S, U)  # S is SPD and k × k (k ≤ chunk): numpy's LU, less overhead than scipy's
        _gemm_inplace(Ainv, -1.0, U.T, Z)


class FNUCB(Policy):
    """FN-UCB and FN-UCB (Less Comm.); see the module docstring for every option.

    Args:
        n_agents, horizon, dim, seed, ledger: see :class:`bandits.sim.Policy`.
        width, depth: the MLP (m = 20, one hidden layer in the paper's experiments).
        lam: λ (0.1 synthetic, 10 real data). nu_a: ν_TKN (UCB_a). nu_b: ν_TK (UCB_b).
        D: communication threshold (≥ 0; 0: a round every iteration).
        nn_mode: the local training ("own_prev", App. E's text, the default; "fedavg"; "fedavg_budget";
            "official_shared", the official code's): module docstring. budget_steps: local steps per
            round of "fedavg_budget" (None: ``train_steps · N``).
        nn_dtype: the network's dtype, ``"float64"`` (default; CPU and CUDA agree to round-off) or
            ``"float32"`` (the official code's; training about 1.3x (n = 250) to 2x (n ≥ 1000)
            faster on one CPU thread; features and parameters within float32 round-off of the
            float64 run, tested, so the choices can differ where two arms nearly tie). The linear
            statistics are float64 either way.
        device: torch device of the network (``"auto"``: CUDA when present).
    """

    name = "FN-UCB"

    def __init__(self, n_agents, horizon, dim, seed, ledger: CommLedger, *, width=20, depth=1,
                 init="official", feature_scale="raw", features="ntk", lam=0.1, nu_a=0.1, nu_b=0.1,
                 D=0.0, variant="less_comm", diag=False, diag_rescale_mean=True, criterion="diag",
                 alpha_mode="linear", alpha_ramp=700, alpha_delay=3, alpha_candidates=None,
                 alpha_recent=200, nn_mode="own_prev", aggregate=True, train_steps=30, lr=0.01,
                 budget_steps=None,
                 objective="official", stop_train_after=2000, official_train_subset=False,
                 mirror=None, nn_dtype="float64", device="auto", tie_break="random", local_stats=False):
        super().__init__(n_agents, horizon, dim, seed, ledger)
        check("nn_mode", nn_mode, one_of(*NN_MODES))
        check("alpha_mode", alpha_mode, one_of(*ALPHA_MODES))
        check("variant", variant, one_of(*VARIANTS))
        check("criterion", criterion, one_of(*CRITERIA))
        check("features", features, one_of(*FEATURES))
        check("tie_break", tie_break, one_of("random", "first"))
        check("nn_dtype", nn_dtype, one_of("float64", "float32"))
        check("lam", lam, gt(0))
        check("nu_a", nu_a, ge(0))
        check("nu_b", nu_b, ge(0))
        check("D", D, ge(0))
        check("alpha_ramp", alpha_ramp, gt(0))
        check("alpha_delay", alpha_delay, ge(0))
        if budget_steps is not None:
            check("budget_steps", budget_steps, rule(lambda b: not isinstance(b, bool) and int(b) == b and b >= 1,
                                                     "a whole number >= 1"))
            check("nn_mode", nn_mode, one_of("fedavg_budget"), note="budget_steps is given")
        check("stop_train_after", stop_train_after, ge(0))
        if alpha_mode.startswith("theory"):
            shape = rule(lambda a: a is not None and np.ndim(a) == 2 and np.shape(a)[1] == dim, f"an (M, {dim}) array")
            note = (f"alpha_mode={alpha_mode!r}: contexts standing in for the domain (Sec. 3.3 takes σ_min, σ_max over "
                    "the whole domain)")
            alpha_candidates = check("alpha_candidates", None if alpha_candidates is None else
                                     np.asarray(alpha_candidates, dtype=float), shape, note=note)
        if features == "identity":
            check("alpha_mode", alpha_mode, one_of("zero"), note="features='identity' has no network: UCB_a only")
        self.lam, self.nu_a, self.nu_b, self.D = float(lam), float(nu_a), float(nu_b), float(D)
        self.variant, self.diag, self.diag_rescale_mean = variant, bool(diag), bool(diag_rescale_mean)
        self.criterion = "diag" if self.diag else criterion
        self.alpha_mode, self.alpha_ramp, self.alpha_delay = alpha_mode, float(alpha_ramp), float(alpha_delay)
        self.alpha_candidates, self.alpha_recent = alpha_candidates, int(alpha_recent)
        self.nn_mode, self.aggregate = nn_mode, bool(aggregate)
        self.stop_train_after, self.official_train_subset = int(stop_train_after), bool(official_train_subset)
        self.features_kind, self.tie_break = features, tie_break
        self.uses_nn = alpha_mode != "zero"
        self.local_stats = bool(local_stats)
        self.mirror = (init == "ntk") if mirror is None else bool(mirror)
        if self.mirror:
            check("features", features, one_of("ntk"), note="mirror=True applies to the network's inputs")
        d_in = 2 * int(dim) if self.mirror else int(dim)
        N, T = self.N, self.T
        children = seed.spawn(N + 1)
        self.rngs = [np.random.default_rng(s) for s in children[:N]]

        # -- the network (bandits.neural) ------------------------------------------------
        self.mlp = None
        if features == "ntk":
            nn = importlib.import_module("bandits.neural")
            self._nn = nn
            import torch

            self.mlp = nn.MLP(d_in, width, depth, init, dtype=getattr(torch, nn_dtype), device=device)
            self.feature_scale = feature_scale
            check("feature_scale", feature_scale, one_of(*nn.FEATURE_SCALES))
            steps = train_steps
            if nn_mode == "fedavg_budget":  # budget-matched FedAvg: the code's train_steps · N per round by default
                steps = int(budget_steps) if budget_steps is not None else int(train_steps) * self.N
            self.train_cfg = nn.TrainConfig(steps=steps, lr=lr, lam=lam, objective=objective)
            self.theta0 = self.mlp.init_params(children[N])
            self.p0 = self.mlp.p0
            if nn_mode == "official_shared":
                shared = self.theta0.clone()
                self.shared = shared
                self.params = [shared] * N  # one storage, held by every agent
                self.theta_feat = shared  # the "θ0" network is the shared one
                self.theta_sync = shared
            else:
                self.shared = None
                self.params = self.theta0.expand(N, -1).clone()  # (N, p0): θ^i
                self.theta_feat = self.theta0
                self.theta_sync = self.theta0.clone()
            if self.uses_nn:
                self._X_buf = torch.zeros((N, T, d_in), dtype=self.mlp.dtype, device=self.mlp.device)
                self._y_buf = torch.zeros((N, T), dtype=self.mlp.dtype, device=self.mlp.device)
        else:
            self.feature_scale = None
            self.p0 = 0
        self.p = self.p0 if features == "ntk" else int(dim)
        p = self.p

        # -- linear statistics (float64 numpy) ----------------------------------------------
        self.B_sync = np.zeros(p)
        self.B_new = np.zeros((N, p))
        self.dsync = np.full(p, self.lam)  # diag(λI + W_sync)
        self.dnew = np.zeros((N, p))  # diag(W_new,i)
        self.dlast = self.dsync.copy()  # diag(V_last)
        self.ld_new = np.zeros(N)  # log det(V_{t,i}) − log det(V_last) under the criterion
        if self.diag:
            self.vloc = np.full((N, p), self.lam)  # diag V^local
            self.vnn = np.full(p, 1.0 / self.lam)  # diag V_sync,NN⁻¹ snapshot
            self.vloc_snap = 1.0 / self.vloc
        else:
            self.Vsync_inv = np.eye(p) / self.lam
            self.Vinv = np.zeros((N, p, p))  # private V_{t,i}⁻¹ (valid where not fresh)
            self.fresh = np.ones(N, dtype=bool)  # V_{t,i} = λI + W_sync (no unsynchronised data)
            self.pending: list[list[np.ndarray]] = [[] for _ in range(N)]
            if self.uses_nn or self.local_stats:
                self.Vloc_inv = np.broadcast_to(np.eye(p) / self.lam, (N, p, p)).copy()
            if self.uses_nn:
                if variant == "less_comm":
                    self.Vnn_run = np.eye(p) / self.lam  # running (1/N) Σ_i (V^local_{t,i})⁻¹
                    self.Vnn = self.Vnn_run  # snapshot at the last round (copy-on-write)
                else:
                    self.Vloc_snap = self.Vloc_inv  # (copy-on-write)
        self.n_obs = 0
        self.n_train = 0
        self.t_last = -1
        self.alpha_theory = 0.0
        self.recent = [[] for _ in range(N)] if alpha_mode.startswith("theory") or self.local_stats else None
        self.round_times: list[int] = []
        self.train_log: list[tuple[int, list[int]]] = []  # (t, agents in training order)
        self.alpha_trace = np.zeros(T)
        self.alpha_rounds: list[float] = []
        self._phi = None
        self._t_sel = None
        self._blk = self._blk_sel = None  # the contexts' blocks at the last select (_row_blocks)
        self._w = None  # the block width of the last block contexts
        self.ucb_a_terms = None  # (mean, q) of UCB_a at the last select, for observers (module docstring)

    # ------------------------------------------------------------------------------ helpers
    def alpha_at(self, t: int) -> float:
        """α used at (0-based) iteration t."""
        m = self.alpha_mode
        if m == "linear":
            return float(min(1.0, max(0.0, (t - self.alpha_delay) / self.alpha_ramp)))
        if m == "zero":
            return 0.0
        if m == "one":
            return 1.0
        if m == "theory":
            return self.alpha_theory
        return self.alpha_theory if (self.t_last >= 0 and t == self.t_last + 1) else 0.0

    def _inputs(self, X: np.ndarray) -> np.ndarray:
        """The network's inputs: the contexts, mirrored ``[x, x]/√2`` when ``mirror`` (App. B)."""
        return self._nn.mirror_inputs(X) if self.mirror else X

    def _features(self, X: np.ndarray) -> np.ndarray:
        """φ for an (n, d) array of network inputs → (n, p) float64 numpy."""
        if self.features_kind == "identity":
            return np.asarray(X, dtype=float)
        return self.mlp.features_numpy(self.theta_feat, X, self.feature_scale)

    def _nn_predict(self, X: np.ndarray) -> np.ndarray:
        """f(x; θ_sync,NN) for X (N, K, d) → (N, K); own θ^i when not aggregating."""
        if self.aggregate or self.nn_mode == "official_shared":
            return self.mlp.forward_numpy(self.theta_sync, X.reshape(-1, X.shape[-1])).reshape(X.shape[:2])
        return self.mlp.forward_numpy(self.params, X)

    def agent_Vinv(self, i: int) -> np.ndarray:
        """V_{t,i}⁻¹ = (λI + W_sync + W_new,i)⁻¹ (full mode) or its diagonal (diag mode)."""
        if self.diag:
            return 1.0 / (self.dsync + self.dnew[i])
        return self.Vsync_inv if self.fresh[i] else self.Vinv[i]

    @staticmethod
    def _quad(Phi, M):
        """φᵀ M φ for every row (M a matrix or the diagonal of one), clipped at 0."""
        if M.ndim == 1:
            q = (Phi * Phi) @ M
        else:
            q = np.einsum("kp,kp->k", Phi @ M, Phi)
        return np.maximum(q, 0.0)

    def _row_blocks(self, X: np.ndarray):
        """Each context's block (N, K) when the network's inputs ``X`` (N, K, d) are block contexts whose
        features live on at most a third of the ``p`` coordinates (:func:`bandits.neural.feature_blocks`),
        else ``None``: then every product runs on all ``p`` coordinates."""
        if self.diag or self.mlp is None:
            return None
        fb = self._nn.feature_blocks(self.mlp, X)
        if fb is None:
            return None
        self._w = fb[0]
        return fb[1]

    def _quad_rows(self, P, M, blk):
        """:meth:`_quad` for the rows P (R, p) with a matrix M, on each row's feature support when ``blk``
        (R,) gives the rows' blocks: ``φᵀMφ = φ_Sᵀ M[S, S] φ_S`` (``φ`` is zero off ``S``)."""
        if blk is None:
            return self._quad(P, M)
        q = np.empty(len(P))
        for a in np.unique(blk):
            rows = np.flatnonzero(blk == a)
            Ps = self.mlp.support_cols(P[rows], a, self._w)
            q[rows] = np.einsum("kp,kp->k", Ps @ self.mlp.support_square(M, a, self._w), Ps)
        return np.maximum(q, 0.0)

    # ------------------------------------------------------------------------------ select
    def _check_agents(self, agents):
        agents = np.asarray(agents)
        if len(agents) != self.N or np.any(agents != np.arange(self.N)):
            raise ValueError("FN-UCB is synchronous: every agent must act every step "
                             "(use an environment with schedule='sync')")

    def _mean_quad_a(self, Phi: np.ndarray):
        """UCB_a's mean ``⟨φ, V_{t,i}⁻¹ b_i⟩`` and ``φᵀ V_{t,i}⁻¹ φ`` (clipped at 0) for Phi (N, K, p) →
        (N, K) each, with ``b_i = B_sync + B_new,i``. The agents without unsynchronised data share
        ``V_sync⁻¹`` and are scored in one GEMM; the mean reuses ``Φ V⁻¹`` (``(ΦV⁻¹) b = Φ(V⁻¹b)``)."""
        N, K, p = Phi.shape
        Bsum = self.B_sync + self.B_new
        if self.diag:
            Vd = 1.0 / (self.dsync + self.dnew)
            mean = np.einsum("nkp,np->nk", Phi, Vd * Bsum)
            q = np.einsum("nkp,np->nk", Phi * Phi, Vd)
            return mean, np.maximum(q, 0.0)
        mean, q = np.empty((N, K)), np.empty((N, K))
        fr = np.flatnonzero(self.fresh)
        blk = self._blk
        if blk is not None:  # sparse features: the quadratic forms on each row's support, the mean from V⁻¹b
            if len(fr):
                P = Phi[fr]
                q[fr] = self._quad_rows(P.reshape(-1, p), self.Vsync_inv, blk[fr].ravel()).reshape(P.shape[:2])
                mean[fr] = np.einsum("nkp,np->nk", P, (self.Vsync_inv @ Bsum[fr].T).T)
            for i in np.flatnonzero(~self.fresh):
                q[i] = self._quad_rows(Phi[i], self.Vinv[i], blk[i])
                mean[i] = Phi[i] @ (self.Vinv[i] @ Bsum[i])
            return mean, q
        if len(fr):
            P = Phi[fr]
            PV = (P.reshape(-1, p) @ self.Vsync_inv).reshape(P.shape)
            q[fr] = np.einsum("nkp,nkp->nk", PV, P)
            mean[fr] = np.einsum("nkp,np->nk", PV, Bsum[fr])
        for i in np.flatnonzero(~self.fresh):
            PV = Phi[i] @ self.Vinv[i]
            q[i] = np.einsum("kp,kp->k", PV, Phi[i])
            mean[i] = PV @ Bsum[i]
        return mean, np.maximum(q, 0.0)

    def select(self, t, agents, arms):
        self._check_agents(agents)
        N = self.N
        X = np.stack([np.asarray(arms.for_agent(k), dtype=float) for k in range(N)])  # (N, K, d)
        if self.mirror:
            X = self._inputs(X)
        K, d = X.shape[1], X.shape[2]
        Phi = self._features(X.reshape(-1, d)).reshape(N, K, self.p)
        self._phi, self._X, self._t_sel = Phi, X, t
        self._blk = self._row_blocks(X)
        alpha = self.alpha_at(t)
        self.alpha_trace[t] = alpha
        sl = math.sqrt(self.lam)
        scores = np.zeros((N, K))
        self.ucb_a_terms = None
        if alpha < 1.0:
            mean, q = self._mean_quad_a(Phi)
            self.ucb_a_terms = (mean, q)
            if self.diag and self.diag_rescale_mean:
                lo, hi = mean.min(axis=1, keepdims=True), mean.max(axis=1, keepdims=True)
                span = hi - lo
                mean = np.divide(mean - lo, span, out=np.zeros_like(mean), where=span > 0)
            scores += (1.0 - alpha) * (mean + self.nu_a * sl * np.sqrt(q))
        if alpha > 0.0:
            f = self._nn_predict(X)
            Pall = Phi.reshape(N * K, self.p)
            ball = None if self._blk is None else self._blk.ravel()
            if self.variant == "less_comm":
                M = self.vnn if self.diag else self.Vnn
                w = np.sqrt(self._quad_rows(Pall, M, ball))
            else:
                snaps = self.vloc_snap if self.diag else self.Vloc_snap
                w = np.mean([np.sqrt(self._quad_rows(Pall, snaps[j], ball)) for j in range(N)], axis=0)
            scores += alpha * (f + self.nu_b * sl * w.reshape(N, K))
        if not np.isfinite(scores).all():
            cfg = getattr(self, "train_cfg", None)
            if cfg is None:
                raise FloatingPointError(f"FN-UCB scores are not finite at t={t} (non-finite contexts or rewards?)")
            raise FloatingPointError(
                f"FN-UCB scores are not finite at t={t}: the network diverged during training "
                + cfg.divergence_advice())
        return np.array([argmax_ties(scores[i], self.rngs[i], self.tie_break) for i in range(N)])

    # ------------------------------------------------------------------------------ update
    def _quad_own(self, phis: np.ndarray) -> np.ndarray:
        """``φ_iᵀ V_{t,i}⁻¹ φ_i`` for one vector per agent, phis (N, p) → (N,) (the exact trigger)."""
        if self.diag:
            return np.maximum(np.einsum("np,np->n", phis * phis, 1.0 / (self.dsync + self.dnew)), 0.0)
        q = np.empty(self.N)
        fr = np.flatnonzero(self.fresh)
        if len(fr):
            q[fr] = self._quad(phis[fr], self.Vsync_inv)
        for i in np.flatnonzero(~self.fresh):
            q[i] = self._quad(phis[i:i + 1], self.Vinv[i])[0]
        return q

    def _local_updates(self, phis: np.ndarray, round_now: bool) -> None:
        """``(V^local_i)⁻¹`` takes each agent's own point (Sherman–Morrison, in place) and the Less
        Comm. running mean ``(1/N) Σ_i (V^local_i)⁻¹`` the N rank-one changes in one GEMM.

        The round snapshots (``Vnn`` / ``Vloc_snap``) are copy-on-write: a round makes them the
        running matrices themselves, and they are copied only when the running matrices change
        before the next round (never with D = 0, where every iteration is a round)."""
        N = self.N
        if not round_now and self.uses_nn:
            if self.variant == "less_comm" and self.Vnn is self.Vnn_run:
                self.Vnn = self.Vnn_run.copy()
            if self.variant == "full" and self.Vloc_snap is self.Vloc_inv:
                self.Vloc_snap = self.Vloc_inv.copy()
        if self._blk_sel is None:
            U = np.matmul(self.Vloc_inv, phis[:, :, None])[..., 0]  # u_i = (V^local_i)⁻¹ φ_i
        else:  # u_i = (V^local_i)⁻¹ φ_i from the rows of the chosen context's feature support S (symmetric)
            U = np.empty_like(phis)
            for i in range(N):
                U[i] = self.mlp.support_matvec(self.Vloc_inv[i], phis[i], self._blk_sel[i], self._w)
        c = 1.0 + np.einsum("np,np->n", phis, U)
        for i in range(N):
            _ger_inplace(self.Vloc_inv[i], -1.0 / c[i], U[i])
        if self.variant == "less_comm" and self.uses_nn:  # −(1/N) Σ_i u_i u_iᵀ / c_i
            _gemm_inplace(self.Vnn_run, -1.0, U.T, U / (N * c)[:, None])

    def update(self, t, agents, arms, choices, rewards):
        self._check_agents(agents)
        if self._t_sel != t:
            raise RuntimeError("FN-UCB.update called without select at the same step")
        N = self.N
        idx = np.arange(N)
        phis = self._phi[idx, choices]  # (N, p)
        self._blk_sel = None if self._blk is None else self._blk[idx, choices]
        xs = self._X[idx, choices]  # (N, d)
        ys = np.asarray(rewards, dtype=float)
        if self.uses_nn and not self.official_train_subset:
            self._append_data(xs, ys)
        if self.recent is not None:
            for i in range(N):
                self.recent[i].append(xs[i])
                del self.recent[i][:-self.alpha_recent]
        if self.criterion == "exact":  # log det(V + φφᵀ) − log det V = log(1 + φᵀV⁻¹φ)
            self.ld_new += np.log1p(self._quad_own(phis))
        self.dnew += phis * phis
        if self.criterion == "diag":
            self.ld_new[:] = np.sum(np.log1p(self.dnew / self.dlast), axis=1)
        self.B_new += ys[:, None] * phis
        self.n_obs += 1
        round_now = bool(np.any((t - self.t_last) * self.ld_new > self.D))
        if self.diag:
            self.vloc += phis * phis
        else:
            for i in range(N):
                self.pending[i].append(phis[i])
            if self.uses_nn or self.local_stats:
                self._local_updates(phis, round_now)
        if round_now:
            self._round(t, xs, ys)
        elif not self.diag:
            for i in range(N):  # private V_{t,i}⁻¹ only for unsynchronised data
                if self.fresh[i]:
                    np.copyto(self.Vinv[i], self.Vsync_inv)
                    self.fresh[i] = False
                sherman_morrison_inplace(self.Vinv[i], phis[i])

    def _append_data(self, xs, ys):
        import torch

        n = self.n_train
        if self._X_buf.device.type == "cpu":  # numpy views of the buffers: no per-call torch overhead
            self._X_buf.numpy()[:, n] = xs
            self._y_buf.numpy()[:, n] = ys
        else:
            self._X_buf[:, n] = torch.as_tensor(xs, dtype=self.mlp.dtype, device=self.mlp.device)
            self._y_buf[:, n] = torch.as_tensor(ys, dtype=self.mlp.dtype, device=self.mlp.device)
        self.n_train = n + 1

    # ------------------------------------------------------------------------------ round
    def _should_train(self, t):
        if not self.uses_nn or t >= self.stop_train_after:
            return False
        if self.alpha_mode == "linear":
            return self.alpha_at(t + 1) > 0.0
        return True

    def _train(self, t, xs, ys):
        nn, cfg = self._nn, self.train_cfg
        if self.official_train_subset:
            self._append_data(xs, ys)
        n = self.n_train
        X, y = self._X_buf[:, :n], self._y_buf[:, :n]
        if self.nn_mode == "official_shared":
            for i in range(self.N):  # one network, trained on agent 1's data, then agent 2's, ...
                nn.train_full_batch(self.mlp, self.params[i], X[i], y[i], cfg, theta0=self.theta0)
            self.train_log.append((int(t), list(range(self.N))))
            return
        if self.nn_mode in ("fedavg", "fedavg_budget") and self.aggregate:
            self.params.copy_(self.theta_sync.expand_as(self.params))
        nn.train_full_batch(self.mlp, self.params, X, y, cfg, theta0=self.theta0)
        if self.aggregate:
            self.theta_sync = nn.average_params(self.params)
        self.train_log.append((int(t), list(range(self.N))))

    def theory_alpha(self, candidates=None) -> float:
        r"""Sec. 3.3's α from the current state (Algo. 1 line 15, App. C.4.4): ``min_i σ_min/σ_max`` with
        ``σ(x) = √λ ‖φ(x)‖_{(V^local_{t,i})⁻¹}``, min and max over ``candidates`` ((M, d) contexts;
        default ``alpha_candidates``) plus the agent's last ``alpha_recent`` queried contexts. Reads the
        state, changes nothing: the rounds of the theory α modes call it, and an observer may (with
        ``local_stats=True`` under ``alpha_mode="zero"``, where the statistics are otherwise not kept)."""
        cand = self.alpha_candidates if candidates is None else candidates
        if cand is None or (not self.diag and not hasattr(self, "Vloc_inv")) or self.recent is None:
            raise ValueError("theory_alpha needs candidates and the local statistics: a theory alpha_mode, "
                             "or local_stats=True")
        cand = np.asarray(cand, dtype=float)
        out = []
        for i in range(self.N):
            C = np.vstack([self._inputs(cand)] + ([np.asarray(self.recent[i])] if self.recent[i] else []))
            Phi = self._features(C)
            M = self.vloc[i] ** -1 if self.diag else self.Vloc_inv[i]
            s = np.sqrt(self.lam * self._quad(Phi, M))
            out.append(float(s.min() / s.max()) if s.max() > 0 else 0.0)
        return float(min(out))

    def _round(self, t, xs, ys):
        N, p, led = self.N, self.p, self.ledger
        mat = p if self.diag else p * p
        trained = False
        if self._should_train(t):
            self._train(t, xs, ys)
            trained = True
        theory = self.alpha_mode.startswith("theory")
        if theory:
            self.alpha_theory = self.theory_alpha()
            self.alpha_rounds.append(self.alpha_theory)
        send_theta = trained and self.aggregate
        # uploads
        for i in range(N):
            led.send(t, i, SERVER, "W_new", mat)
            led.send(t, i, SERVER, "B_new", p)
            if send_theta:
                led.send(t, i, SERVER, "theta_nn", self.p0)
            if theory:
                led.send(t, i, SERVER, "alpha_local", 1)
            if self.uses_nn:
                led.send(t, i, SERVER, "V_local_inv", mat)
        # server aggregation
        self.B_sync += self.B_new.sum(axis=0)
        self.dsync += self.dnew.sum(axis=0)
        if self.diag:
            if self.uses_nn:
                inv = 1.0 / self.vloc
                self.vnn = inv.mean(axis=0)
                self.vloc_snap = inv
        else:
            rows = [phi for i in range(N) for phi in self.pending[i]]
            if rows:  # all agents' pending points in one block update of V_sync⁻¹
                woodbury_inplace(self.Vsync_inv, np.array(rows))
            for i in range(N):
                self.pending[i].clear()
            self.fresh[:] = True
            if self.uses_nn:  # snapshots by reference, copied on write (_local_updates)
                if self.variant == "less_comm":
                    self.Vnn = self.Vnn_run
                else:
                    self.Vloc_snap = self.Vloc_inv
        # broadcast
        led.broadcast(t, "W_sync", mat)
        led.broadcast(t, "B_sync", p)
        if send_theta:
            led.broadcast(t, "theta_sync", self.p0)
        if theory:
            led.broadcast(t, "alpha", 1)
        if self.uses_nn:
            led.broadcast(t, "V_sync_nn_inv" if self.variant == "less_comm" else "V_local_invs",
                          mat if self.variant == "less_comm" else N * mat)
        # agents: V_last = λI + W_sync, t_last = t, W_new = B_new = 0
        self.dlast = self.dsync.copy()
        self.dnew[:] = 0.0
        self.B_new[:] = 0.0
        self.ld_new[:] = 0.0
        self.t_last = t
        self.round_times.append(int(t))

    def info(self):
        return {"n_rounds": len(self.round_times), "round_times": list(self.round_times),
                "alpha": [float(a) for a in self.alpha_trace], "alpha_rounds": list(self.alpha_rounds),
                "p0": int(self.p0), "p": int(self.p), "n_train_calls": len(self.train_log)}


class FNUCBOnlyA(FNUCB):
    """Ablation "only UCB_a" (Fig. 1c, red): α ≡ 0, the NN is never used."""

    name = "FN-UCB [only UCB_a]"

    def __init__(self, *args, **kw):
        kw.setdefault("alpha_mode", "zero")
        super().__init__(*args, **kw)


class FNUCBOnlyB(FNUCB):
    """Ablation "only UCB_b" (Fig. 1c, green): α ≡ 1 from the first iteration (Sec. 5.1
    says only "removing UCB_a"; α ≡ 1 from t = 1 is this package's reading)."""

    name = "FN-UCB [only UCB_b]"

    def __init__(self, *args, **kw):
        kw.setdefault("alpha_mode", "one")
        super().__init__(*args, **kw)


class FNUCBNoAggregation(FNUCB):
    """Ablation "no NN aggregation" (Fig. 1c, yellow): UCB_b uses the agent's own θ^i, trained
    from its own previous parameters; no parameters are exchanged (Sec. 5.1, Fig. 1c: θ^i_t replaces θ_sync,NN
    in UCB_b, "removing the step of aggregating" of Algo. 2 line 4; the warm start from the agent's own
    parameters is this package's reading)."""

    name = "FN-UCB [no aggregation]"

    def __init__(self, *args, **kw):
        kw.setdefault("aggregate", False)
        super().__init__(*args, **kw)
