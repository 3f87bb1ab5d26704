r"""The cross-paper arena: every method of the five papers, regret against communication.

No paper compares all of these methods: DUETS is compared with DisKernelUCB, Async-KernelUCB with
Approx-DisKernelUCB, FN-UCB with neural baselines, Coop-KernelUCB with independent learners, each on
its own environments and in its own unit. Here they share environments, kernels, seeds (common random
numbers: run ``r`` of every method sees the same arms and noise) and the same three communication units.

This module holds the parameters, the runs and the tables the runs make (the run-cache key covers it);
the claims are in :mod:`bandits.experiments.arena_claims` and the figures in
:mod:`bandits.experiments.arena_plots` (both left out of the key; this module imports neither).

Protocols
---------
* ``"sync"`` (synchronous federated): N agents, a server, every agent acts every round. DUETS,
  DisKernelUCB, Approx-DisKernelUCB, N-KernelUCB, OneKernelUCB, FN-UCB, NeuralUCB, DisLinUCB,
  FedLinUCB, and Coop-KernelUCB on the complete graph ``K_N`` with ``γ = 1`` and no extra delay
  (the server-equivalent network; :class:`bandits.envs.arena.CompleteGraphEnv`). Eager-KernelUCB is not
  run: on ``K_N`` with ``K_z = 1`` the clique cover has one clique, so it accepts the same messages as
  Coop-KernelUCB and its runs are identical (``tests/test_arena.py`` checks it): running it would plot one
  set of runs twice.
* ``"async"`` (one client per step, Async-KernelUCB §3.1): Async-KernelUCB, Approx-DisKernelUCB,
  OneKernelUCB, N-KernelUCB, FedGLB-UCB, FedLinUCB, DisLinUCB (:class:`bandits.envs.arena.OneClientEnv`).

A method that cannot run in a protocol or an environment is listed with the reason
(:func:`unsupported`, :func:`support_table`), never silently dropped.

Environments (each paper's own construction, :func:`env_spec`)
---------------------------------------------------------------
``h1`` and ``hartmann4`` (DUETS §5: finite domain of ``M`` random candidates, noise s.d. 0.2, regret
against the discrete maximum), ``cosine`` (FN-UCB §5.1: ``h(x) = cos(3⟨a, x⟩)``, d = 10, K = 4 fresh
contexts per agent on the sphere, noise 0.01), ``f1`` (Async-KernelUCB §5.1: ``cos(3xᵀθ*)``, d = 20,
K = 20 fresh arms in the unit ball, noise 0.1), ``magic`` and ``shuttle`` (FN-UCB §5.2 classification
bandits: block contexts, reward 1 for the true class). The regret of a step is the environment's
own (sum over the agents active at that step of ``f* − f(x)``); R(T) is its sum over the run.

Communication: three units
--------------------------
From the ledger of every run: **scalars** ``C = total_up + total_down`` (a server broadcast to k agents
counts k times; every peer-to-peer delivery once), **messages** (each point-to-point message and each
delivery once, a broadcast once per receiver) and **rounds** (steps at which anything was sent). Each run
also records the method's number of **exchanges** (its own count of syncs / exchanges / communication
rounds / epochs, from its ``info()``) and, for the methods with a Nyström dictionary (Async-KernelUCB,
Approx-DisKernelUCB), its final size ``m`` and ``Σ_k m_k``, ``Σ_k m_k²`` over the exchanges (the
break-even rule of :mod:`bandits.experiments.arena_claims`).

Tuning: one exploration grid, chosen on runs apart
--------------------------------------------------
Every method has an **exploration multiplier** ``g`` from one shared grid (:data:`EXPLORE`, DUETS §5's
β grid widened below to 0.1): the UCB width of every UCB method is ``g`` times its default, DUETS'
elimination width β = g. What ``g`` sets per method:

====================  ====================================  ==========================  ====================
method                exploration (= g × default)           communication knob          reference value
====================  ====================================  ==========================  ====================
DUETS                 β (Eq. 9)                             — (T₁ = 2, p₀ = 10)         —
DisKernelUCB          β                                     D (log-det trigger)         10 (DUETS §5)
Approx-DisKernelUCB   β                                     D (variance-sum trigger)    10 (DUETS §5: 20)
Async-KernelUCB       α                                     D (Eq. 4)                   1
N-KernelUCB           β                                     —                           —
OneKernelUCB          β                                     —                           —
DisLinUCB             α                                     c: D = c·T/(N d log T)      1
FedLinUCB             α                                     D (He et al.'s α, directly) 1
FedGLB-UCB            α                                     c: D = c·T/(N d log T)      1
FN-UCB                ν_a, ν_b (FN-UCB §5 values × g)       D (Alg. 1 l.11)             2.5 / 0.01
NeuralUCB             ν (FN-UCB §5's ν_a × g)               —                           —
Coop-KernelUCB        η (Alg. 1 l.7, its UCB width)         — (every round on K_N)      —
====================  ====================================  ==========================  ====================

**Two stages** (:func:`run_arena`). (1) *Tuning*: every method runs every ``g`` of :data:`EXPLORE` at
its reference communication value, on ``n_tune`` runs whose seeds (``rep = TUNE_REP0 + i``) are apart
from the tested runs; the ``g`` with the lowest mean R(T) is kept per (protocol, environment, method)
(:func:`select_explore`). (2) *Tested runs*: every communication value of the method's grid with its
chosen ``g``, on runs ``0 … n_runs − 1``. No claim is tested on a run that chose a knob. (A ``g`` per
communication value would be fairer still and costs ``|grid|`` times the tuning; see the NOTE.)

The communication grids are each method's own, wide enough that a smaller full-mode run's optimum
sat inside them (DisKernelUCB D up to 1000, Async-KernelUCB D down to 0.03, Approx-DisKernelUCB 1 to
100, the linear methods' c to 0.03–30). FedLinUCB's threshold is He et al.'s determinant ratio ``D``
itself, swept over five decades (a threshold ``c/N²`` fired at nearly every step at N = 50 for every
c tried, so five values of c gave one point).

λ: 0.2 (DUETS' value) on the synchronous protocol, 1 (Async-KernelUCB's) on the asynchronous one,
for every kernel method of that protocol; ``variance_scale`` "gp" (DUETS' baselines) on sync,
"ridge" (Async-KernelUCB Eq. 1) on async. Kernels (:data:`KERNELS`): RBF, ℓ = 1 on h1, Hartmann-4 and
cosine (DUETS' ℓ; cosine is h1's function family), γ_k = 1 on f1 (the centre of Async-KernelUCB's
grid, ℓ = 1/√2), and on the classification bandits the median distance between their rows (our choice, the
median heuristic; no paper runs a kernel method on this construction): 0.3 on shuttle, 0.4 on MAGIC (measured:
0.29 and 0.43 over 2 000 of the environment's rows, drawn with seed 0). Those rows are FN-UCB's (§5.2, Assumption 1): NaN → −1 and
L2-normalised, unit norm, without the official code's StandardScaler, whose rows (norms up to 32 on shuttle, 16
on MAGIC) make full-batch network training at App. E's lr 0.01 diverge within a few rounds (the FN-UCB
notebook's NOTE); the same rows for every method, so the arena stays common ground. FN-UCB and NeuralUCB
use the diagonal approximation on the classification bandits (FN-UCB's Fig. 2 setting, whose exact
p₀ × p₀ matrices are out of reach at d = 63).

Coop-KernelUCB's network kernel: the arena gives the true ``K_z`` (all ones, ``kz="oracle"``), since
the arena's agents share one reward function; the MMD estimate (the paper's Sec. 3.3) is
``coop_kz="mmd"``.

OneKernelUCB's synchronous clients: a batch rule. With the rule of Async-KernelUCB's
OneKernelUCB (one client per step, :class:`bandits.algorithms.kernel_ucb.OneKernelUCB` ``batch="none"``)
every agent of a synchronous round chooses with the one shared model as it was at the start of the round;
over one finite domain the argmax is the same for all (ties are broken at random only when exact): in the
committed full-mode run the 10 agents queried one candidate in 199 of 200 rounds. Giving the agents different candidate sets would change
the problem for every method (DUETS needs one fixed domain). The arena therefore runs OneKernelUCB in the
``"sync"`` protocol with ``batch="fantasy"``, GP-BUCB's rule (Desautels, Krause & Burdick 2014): the agents
of a round choose in turn, each with the mean of the data at the start of the round and the variance
conditioned on the round's earlier choices too (a variance needs no y), so a chosen candidate's width
shrinks for the agents after it. This is a choice of this package: no paper runs OneKernelUCB synchronously
on a shared domain. Its accounting (the class docstring): the same scalars and rounds, more messages (each
x travels ahead of its y). ``"async"`` keeps ``batch="none"`` (one client per step: the two rules are the
same). Each run records ``same_query``, the number of rounds in which every active agent queried one
candidate (:class:`QueryDiversity`), so the effect stays measured (``points.csv``, column ``same_query``).

Regret–communication fronts and budgets
---------------------------------------
Each tested (method, communication value) is one point ``(mean cost, mean R(T))`` over the runs. A point
is on the **front** of a unit when no other point has ``cost' ≤ cost`` and ``R' ≤ R`` with one of them
strict (:func:`pareto_mask`); ``on_front`` (scalars), ``on_front_messages`` and ``on_front_rounds``.
:func:`budget_table` ranks the methods by their best mean R(T) among their points with mean C ≤ B.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .common import mode_params
from ..validation import ParameterError, check, each, fail, integer, le, one_of, real, rule, subset_of

__all__ = ["PROTOCOLS", "ENVS", "SYNC_METHODS", "ASYNC_METHODS", "ALL_METHODS", "KNOBS", "KERNELS", "EXPLORE",
           "REFERENCE", "TUNE_REP0", "UNITS", "BUDGETS", "arena_params", "validate_arena", "env_spec",
           "make_arena_env", "unsupported", "support_table", "knob_values", "method_config", "arena_tasks",
           "arena_cell", "QueryDiversity", "run_arena", "select_explore", "ArenaResults", "pareto_mask",
           "front_table", "budget_table", "budget_winners", "failures", "summarise", "task_counts",
           "projected_cost", "map_params", "map_tasks", "run_map"]

PROTOCOLS = ("sync", "async")
ENVS = ("h1", "hartmann4", "cosine", "f1", "magic", "shuttle")
FINITE_ENVS = ("h1", "hartmann4")
REAL_ENVS = ("magic", "shuttle")
ENV_TITLES = {"h1": "h1 (finite, d = 10)", "hartmann4": "Hartmann-4 (finite)", "cosine": "cosine (FN-UCB, d = 10)",
              "f1": "f1 (Async, d = 20)", "magic": "MAGIC (classification)", "shuttle": "shuttle (classification)"}
SYNC_METHODS = ("DUETS", "DisKernelUCB", "Approx-DisKernelUCB", "N-KernelUCB", "OneKernelUCB", "FN-UCB",
                "NeuralUCB", "DisLinUCB", "FedLinUCB", "Coop-KernelUCB")
ASYNC_METHODS = ("Async-KernelUCB", "Approx-DisKernelUCB", "OneKernelUCB", "N-KernelUCB", "FedGLB-UCB",
                 "FedLinUCB", "DisLinUCB")
ALL_METHODS = ("DUETS", "DisKernelUCB", "Approx-DisKernelUCB", "Async-KernelUCB", "N-KernelUCB", "OneKernelUCB",
               "FN-UCB", "NeuralUCB", "DisLinUCB", "FedLinUCB", "FedGLB-UCB", "Coop-KernelUCB",
               "Eager-KernelUCB")
#: each method's communication knob ("-": none; the method then has one tested point per environment)
KNOBS = {"DUETS": "-", "DisKernelUCB": "D", "Approx-DisKernelUCB": "D", "Async-KernelUCB": "D",
         "N-KernelUCB": "-", "OneKernelUCB": "-", "FN-UCB": "D", "NeuralUCB": "-", "DisLinUCB": "c",
         "FedLinUCB": "D", "FedGLB-UCB": "c", "Coop-KernelUCB": "-", "Eager-KernelUCB": "-"}
#: the communication value at which the exploration multiplier is tuned (None: the method has no knob;
#: FN-UCB: per environment kind, see :func:`reference_value`)
REFERENCE = {"DisKernelUCB": 10.0, "Approx-DisKernelUCB": 10.0, "Async-KernelUCB": 1.0, "DisLinUCB": 1.0,
             "FedLinUCB": 1.0, "FedGLB-UCB": 1.0,
             "FN-UCB": {"synthetic": 2.5, "real": 0.01}}
#: methods that never communicate (their points sit at C = 0)
SILENT = ("N-KernelUCB", "NeuralUCB")
KERNELS = {"h1": {"name": "rbf", "lengthscale": 1.0}, "hartmann4": {"name": "rbf", "lengthscale": 1.0},
           "cosine": {"name": "rbf", "lengthscale": 1.0}, "f1": {"name": "rbf", "lengthscale": 1.0 / math.sqrt(2.0)},
           "magic": {"name": "rbf", "lengthscale": 0.4},
           "shuttle": {"name": "rbf", "lengthscale": 0.3}}
#: the units of communication: (points column, runs column, front column)
UNITS = {"scalars": ("C_mean", "C", "on_front"), "messages": ("messages", "messages", "on_front_messages"),
         "rounds": ("rounds", "rounds", "on_front_rounds")}
#: budgets (scalars, both directions, whole run) of the ranking table; inf = no budget
BUDGETS = (0.0, 1e3, 1e4, 1e5, 1e6, math.inf)
#: the shared exploration grid (full mode): DUETS §5's β grid {0.2, 0.5, 1, 2, 5}, widened below to 0.1
#: (the committed DUETS optimum sat on 0.2)
EXPLORE = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
#: the tuning runs are runs TUNE_REP0, TUNE_REP0 + 1, ... (seeds apart from the tested runs 0 … n_runs − 1)
TUNE_REP0 = 1000

_GRIDS_FULL = {"DisKernelUCB": [3.0, 10.0, 30.0, 100.0, 300.0, 1000.0],
               "Approx-DisKernelUCB": [1.0, 3.0, 10.0, 30.0, 100.0],
               "Async-KernelUCB": [0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0],
               "FN-UCB": "paper", "DisLinUCB": [0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0],
               "FedLinUCB": [0.01, 0.1, 1.0, 10.0, 100.0], "FedGLB-UCB": [0.1, 0.3, 1.0, 3.0, 10.0, 30.0]}
_GRIDS_QUICK = {"DisKernelUCB": [3.0, 100.0], "Approx-DisKernelUCB": [1.0, 30.0], "Async-KernelUCB": [0.1, 10.0],
                "FN-UCB": "paper_quick", "DisLinUCB": [0.1, 10.0], "FedLinUCB": [0.1, 10.0],
                "FedGLB-UCB": [0.1, 10.0]}
#: FN-UCB's D values (its Figs. 1d and 2d: cosine {0, 2.5, 4, 5}, shuttle {0, 0.01, 0.03, 0.05})
_FN_D = {"paper": {"synthetic": [0.0, 2.5, 4.0, 5.0], "real": [0.0, 0.01, 0.03, 0.05]},
         "paper_quick": {"synthetic": [0.0, 5.0], "real": [0.0, 0.05]}}

_FULL = dict(protocols=list(PROTOCOLS), envs=list(ENVS), sync_methods=list(SYNC_METHODS),
             async_methods=list(ASYNC_METHODS), N_sync=10, T_sync=200, N_async=50, T_async=2000, n_runs=5,
             n_tune=1, explore=list(EXPLORE), M=2000, env_seed=0, grids=_GRIDS_FULL, coop_kz="oracle",
             nn_width=20)
# quick: small N, T and grids (two values per knob), 3 tested runs (the fewest with an interval), one
# tuning run, 300 candidates on the finite domains
_QUICK = dict(_FULL, N_sync=4, T_sync=40, N_async=5, T_async=150, n_runs=3, n_tune=1, explore=[0.5, 2.0], M=300,
              grids=_GRIDS_QUICK)


def arena_params(mode: str = "quick", **overrides) -> dict:
    """The arena's parameters of ``mode`` ("quick" or "full") with overrides (``None`` = keep);
    ``grids`` overrides single methods' communication grids."""
    p = mode_params(mode, _FULL, _QUICK, overrides, "arena")
    p["grids"] = dict(_GRIDS_FULL if mode == "full" else _GRIDS_QUICK, **(overrides.get("grids") or {}))
    p["explore"] = [float(g) for g in p["explore"]] if isinstance(p["explore"], (list, tuple)) else p["explore"]
    validate_arena(p)
    return p


def validate_arena(p: dict) -> None:
    for k in ("N_sync", "T_sync", "N_async", "T_async", "n_runs", "n_tune", "M", "nn_width"):
        check(k, p[k], integer(ge=1))
    check("n_runs", p["n_runs"], le(TUNE_REP0))
    check("env_seed", p["env_seed"], integer(ge=0))
    check("protocols", p["protocols"], subset_of(*PROTOCOLS))
    check("envs", p["envs"], subset_of(*ENVS))
    check("sync_methods", p["sync_methods"], subset_of(*SYNC_METHODS))
    check("async_methods", p["async_methods"], subset_of(*ASYNC_METHODS))
    check("coop_kz", p["coop_kz"], one_of("oracle", "mmd"))
    check("explore", p["explore"], rule(lambda g: isinstance(g, (list, tuple)), "a list"), each(real(gt=0)))
    knobbed = sorted(m for m, k in KNOBS.items() if k != "-")
    check("grids", p["grids"], rule(lambda g: set(g) <= set(knobbed), f"methods with a communication knob: {knobbed}"))
    for m, g in p["grids"].items():
        if m == "FN-UCB" and g in _FN_D:
            continue
        check(f"grids[{m!r}]", g, each(real(ge=0) if m == "FN-UCB" else real(gt=0)),
              note=f"FN-UCB: >= 0, or one of {list(_FN_D)}")


# ------------------------------------------------------------------------------ environments
def env_spec(env: str, p: dict) -> dict:
    """The :func:`bandits.envs.make_env` spec of an arena environment (always ``schedule="sync"``:
    the protocol wrapper decides who acts)."""
    check("env", env, one_of(*ENVS))
    if env in FINITE_ENVS:
        return {"name": env, "M": int(p["M"]), "noise_std": 0.2, "schedule": "sync"}
    if env == "f1":
        return {"name": "f1", "kind": "contextual", "K": 20, "noise_std": 0.1, "schedule": "sync"}
    if env == "cosine":
        return {"kind": "fn_synthetic", "function": "cosine", "d": 10, "K": 4, "noise_std": 0.01}
    return {"kind": "fn_classification", "dataset": env, "standardize": False}  # FN-UCB §5.2's unit-norm rows


def make_arena_env(spec: dict, protocol: str, n_agents: int, env_seed: int = 0):
    """The environment of ``spec`` wrapped for ``protocol`` (:mod:`bandits.envs.arena`)."""
    from ..envs import make_env
    from ..envs.arena import CompleteGraphEnv, OneClientEnv

    check("protocol", protocol, one_of(*PROTOCOLS))
    inner = make_env(spec, env_seed)
    return CompleteGraphEnv(inner, n_agents) if protocol == "sync" else OneClientEnv(inner)


_NOT_SYNC = {
    "Async-KernelUCB": "asynchronous by design (Alg. 1: one active client per step, exchanges of the active "
                       "client only); not in the synchronous line-up",
    "FedGLB-UCB": "not in the synchronous line-up; its implementation keeps one observation per step "
                  "(Async-KernelUCB Fig. 2's one-client protocol: the data buffer has T rows)",
    "Eager-KernelUCB": "identical to Coop-KernelUCB here: on the complete graph with K_z = 1 the clique cover "
                       "has one clique, so both accept the same messages and make the same runs "
                       "(tests/test_arena.py); run once, as Coop-KernelUCB",
}
_NOT_ASYNC = {
    "DUETS": "synchronous: every agent queries T_j points per epoch and the server replays every agent's coin "
             "(Alg. 1-2)",
    "DisKernelUCB": "not in the asynchronous line-up (Async-KernelUCB compares with Approx-DisKernelUCB); "
                    "DUETS' baseline, run synchronously",
    "FN-UCB": "synchronous (Alg. 1-2: every agent acts every iteration, and a communication round trains and "
              "averages every agent's network); the implementation refuses a one-client schedule",
    "NeuralUCB": "FN-UCB's single-agent baseline, run in FN-UCB's synchronous protocol only",
    "Coop-KernelUCB": "synchronous message passing (Alg. 1: every agent acts and sends every round)",
    "Eager-KernelUCB": "synchronous message passing (Alg. 2: every agent acts and sends every round)",
}
_FINITE_ONLY = {
    "DUETS": "needs a fixed finite domain: uniform sampling from the active set and elimination (Eq. 9) have "
             "no meaning when every step brings fresh contexts",
    "DisKernelUCB": "implemented on a fixed finite candidate set only (CandidatePosterior, as in DUETS Fig. 1); "
                    "not extended to fresh contexts here",
}


def unsupported(method: str, protocol: str, env: str) -> str | None:
    """Why ``method`` cannot run in ``protocol`` on ``env`` (``None``: it runs)."""
    check("method", method, one_of(*ALL_METHODS))
    check("protocol", protocol, one_of(*PROTOCOLS))
    check("env", env, one_of(*ENVS))
    if protocol == "sync" and method not in SYNC_METHODS:
        return _NOT_SYNC[method]
    if protocol == "async" and method not in ASYNC_METHODS:
        return _NOT_ASYNC[method]
    if env not in FINITE_ENVS and method in _FINITE_ONLY:
        return _FINITE_ONLY[method]
    return None


def support_table(p: dict | None = None):
    """One row per (method, protocol): the environments it runs on, and the reason for every other."""
    import pandas as pd

    envs = list(p["envs"]) if p else list(ENVS)
    rows = []
    for method in ALL_METHODS:
        for protocol in PROTOCOLS:
            reasons = {e: unsupported(method, protocol, e) for e in envs}
            runs = [e for e in envs if reasons[e] is None]
            why = sorted({r for r in reasons.values() if r is not None})
            rows.append({"method": method, "protocol": protocol, "runs on": ", ".join(runs) or "-",
                         "not on": ", ".join(e for e in envs if reasons[e]) or "-", "reason": " / ".join(why) or ""})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ methods
def knob_values(method: str, env: str, p: dict) -> list[float]:
    """The tested communication values of ``method`` on ``env`` (``[0.0]`` for a method without a knob)."""
    if KNOBS[method] == "-":
        return [0.0]
    g = p["grids"][method]
    if method == "FN-UCB" and isinstance(g, str):
        return list(_FN_D[g]["real" if env in REAL_ENVS else "synthetic"])
    return [float(v) for v in g]


def reference_value(method: str, env: str) -> float:
    """The communication value at which ``method``'s exploration multiplier is tuned (0.0 without a knob)."""
    ref = REFERENCE.get(method)
    if ref is None:
        return 0.0
    if isinstance(ref, dict):
        return float(ref["real" if env in REAL_ENVS else "synthetic"])
    return float(ref)


def method_config(method: str, protocol: str, env: str, knob: float, p: dict, explore: float = 1.0
                  ) -> tuple[str, dict]:
    """Algorithm name (:data:`bandits.algorithms.ALGORITHMS`) and parameters of one arena point:
    communication value ``knob`` (ignored by a method without one) and exploration multiplier ``explore``
    (the module docstring's table)."""
    from ..algorithms.linear import default_threshold

    sync = protocol == "sync"
    N, T = (p["N_sync"], p["T_sync"]) if sync else (p["N_async"], p["T_async"])
    kernel = KERNELS[env]
    lam = 0.2 if sync else 1.0
    vs = "gp" if sync else "ridge"
    real = env in REAL_ENVS
    knob, g = float(knob), float(explore)
    if method == "DUETS":
        return "DUETS", {"kernel": kernel, "lam": lam, "beta": g, "T1": 2, "p0": 10.0}
    if method == "DisKernelUCB":
        return "DisKernelUCB", {"kernel": kernel, "lam": lam, "beta": g, "D": knob}
    if method == "Approx-DisKernelUCB":
        return "ApproxDisKernelUCB", {"kernel": kernel, "lam": lam, "beta": g, "D": knob, "qbar": 1.0,
                                      "trigger": "var_sum"}
    if method == "Async-KernelUCB":
        return "AsyncKernelUCB", {"kernel": kernel, "lam": 1.0, "alpha": g, "D": knob, "q": 1.0}
    if method == "N-KernelUCB":
        return "N-KernelUCB", {"kernel": kernel, "lam": lam, "beta": g, "variance_scale": vs}
    if method == "OneKernelUCB":
        return "OneKernelUCB", {"kernel": kernel, "lam": lam, "beta": g, "variance_scale": vs, "device": "cpu",
                                "batch": "fantasy" if sync else "none"}
    if method in ("DisLinUCB", "FedGLB-UCB"):
        d = _env_dim(env)
        return method, {"alpha": g, "D": knob * default_threshold("banditlib", T, N, d)}
    if method == "FedLinUCB":
        return "FedLinUCB", {"alpha": g, "D": knob}
    hyper = {"lam": 10.0, "nu_a": 0.1, "nu_b": 0.01} if real else {"lam": 0.1, "nu_a": 0.1, "nu_b": 0.1}
    if method == "FN-UCB":
        return "FN-UCB", dict(hyper, nu_a=g * hyper["nu_a"], nu_b=g * hyper["nu_b"], D=knob, width=p["nn_width"],
                              diag=real, device="cpu")
    if method == "NeuralUCB":
        return "NeuralUCB", {"lam": hyper["lam"], "nu": g * hyper["nu_a"], "width": p["nn_width"], "diag": real,
                             "device": "cpu"}
    if method in ("Coop-KernelUCB", "Eager-KernelUCB"):
        return method, {"kernel": kernel, "kz": p["coop_kz"], "eta": g, "lam": 1.0}
    fail("method", method, one_of(*ALL_METHODS))


_ENV_DIMS = {"h1": 10, "hartmann4": 4, "cosine": 10, "f1": 20, "magic": 20, "shuttle": 63}


def _env_dim(env: str) -> int:
    return _ENV_DIMS[env]


def _lineup(p: dict):
    """``(protocol, env, method, N, T, spec)`` of every supported combination, in the arena's order."""
    for protocol in p["protocols"]:
        methods = p["sync_methods"] if protocol == "sync" else p["async_methods"]
        N, T = (p["N_sync"], p["T_sync"]) if protocol == "sync" else (p["N_async"], p["T_async"])
        for env in p["envs"]:
            spec = env_spec(env, p)
            for method in methods:
                if not unsupported(method, protocol, env):
                    yield protocol, env, method, N, T, spec


def _task(protocol, env, method, N, T, spec, knob, g, p):
    alg, params = method_config(method, protocol, env, knob, p, g)
    return {"protocol": protocol, "env": spec, "env_seed": int(p["env_seed"]), "algorithm": alg, "params": params,
            "N": int(N), "T": int(T)}


def arena_tasks(p: dict, stage: str = "test", explore: dict | None = None
                ) -> tuple[list[tuple[dict, int]], list[dict]]:
    """The runs of one stage: ``(config, rep)`` for :func:`arena_cell` and a label for each.

    ``stage="tune"``: every ``g`` of ``p["explore"]`` at the method's reference communication value, runs
    ``TUNE_REP0 … TUNE_REP0 + n_tune − 1`` (none for a one-value grid). ``stage="test"``: every
    communication value with the chosen ``g`` (``explore[(protocol, env, method)]``; default: the only
    value of a one-value grid, else 1), runs ``0 … n_runs − 1``."""
    check("stage", stage, one_of("tune", "test"))
    tasks, labels = [], []
    grid = list(p["explore"])
    for protocol, env, method, N, T, spec in _lineup(p):
        base = {"protocol": protocol, "env": env, "method": method, "knob": KNOBS[method], "stage": stage}
        if stage == "tune":
            if len(grid) < 2:
                continue
            ref = reference_value(method, env)
            for g in grid:
                cfg = _task(protocol, env, method, N, T, spec, ref, g, p)
                for i in range(p["n_tune"]):
                    tasks.append((cfg, TUNE_REP0 + i))
                    labels.append({**base, "value": ref, "explore": float(g), "rep": TUNE_REP0 + i})
            continue
        g = (explore or {}).get((protocol, env, method), grid[0] if len(grid) == 1 else 1.0)
        for knob in knob_values(method, env, p):
            cfg = _task(protocol, env, method, N, T, spec, knob, g, p)
            for rep in range(p["n_runs"]):
                tasks.append((cfg, rep))
                labels.append({**base, "value": float(knob), "explore": float(g), "rep": rep})
    return tasks, labels


class QueryDiversity:
    """Observer: counts the steps with at least two active agents in which every agent queried the same
    candidate of a fixed finite domain (``arms.ids`` given; on fresh contexts nothing is counted)."""

    def __init__(self):
        self.steps = 0
        self.same = 0

    def on_step(self, t, agents, arms, choices, rewards, means, policy):
        ids = getattr(arms, "ids", None)
        if ids is None or len(choices) < 2:
            return
        self.steps += 1
        q = np.asarray(ids)[np.asarray(choices)]
        self.same += int(np.all(q == q[0]))


#: the method's own count of exchanges, first present key of its info()
_EXCHANGE_KEYS = ("n_comms", "n_syncs", "n_exchanges", "n_rounds")


def _exchanges(info: dict):
    for k in _EXCHANGE_KEYS:
        if k in info:
            return int(info[k])
    if "epochs" in info:  # DUETS: the epochs that communicated
        return int(sum(1 for e in info["epochs"] if isinstance(e, dict) and e.get("communicated")))
    return None


def _dictionary(info: dict):
    """``(m, Σ m_k, Σ m_k²)`` over the exchanges of a method with a Nyström dictionary, else Nones."""
    ms = info.get("dict_sizes")
    if not ms:
        return None, None, None
    ms = np.asarray(ms, dtype=float)
    return int(ms[-1]), float(ms.sum()), float((ms * ms).sum())


def arena_cell(config: dict, seed: int, rep: int) -> dict:
    """One arena run: the one run recipe (:func:`bandits.runner.run_regret_cell`) on the wrapped
    environment (:func:`make_arena_env`): ``{"arrays": regret, comm_up, comm_down, n_active per step,
    "meta": totals, messages, rounds, exchanges, m, ...}``. A run that breaks down numerically (e.g. a
    network whose training overflows to NaN scores: ``ValueError``, ``FloatingPointError``,
    ``LinAlgError``) comes back with ``meta["failed"]`` and NaN arrays and is reported by
    :func:`failures`, never silently dropped."""
    from ..runner import run_regret_cell

    N = int(config["N"])

    def arena_env(spec, env_seed):
        return make_arena_env(spec, config["protocol"], N, env_seed)

    def arena_meta(ctx):
        if ctx.trace is None:
            return {}, {}
        ledger = ctx.ledger
        info = ctx.trace.info or {}
        messages = int(sum(m.n_receivers for m in ledger.messages) + ledger.deliveries().sum())
        m, m_sum, m_sq_sum = _dictionary(info)
        div = ctx.observers[0]
        return {}, {"total_up": ledger.total_up, "total_down": ledger.total_down, "messages": messages,
                    "rounds": ledger.rounds(), "info_keys": sorted(info), "exchanges": _exchanges(info),
                    "m": m, "m_sum": m_sum, "m_sq_sum": m_sq_sum, "same_query": div.same,
                    "multi_steps": div.steps}

    return run_regret_cell(dict(config, on_divergence="record"), seed, rep, make_env=arena_env, collect=arena_meta,
                           observers=(QueryDiversity(),),
                           divergence_errors=(ValueError, FloatingPointError, np.linalg.LinAlgError))


# ------------------------------------------------------------------------------ running
@dataclass
class ArenaResults:
    params: dict
    runs: object  # pandas: one row per tested run (R_T, C, messages, rounds, exchanges, m, ...)
    points: object  # one row per (protocol, env, method, value): means, s.e., front membership per unit
    n_cached: int = 0
    n_computed: int = 0
    tune: object = None  # the tuning runs (same columns as runs), or None
    explore: dict = field(default_factory=dict)  # (protocol, env, method) -> chosen exploration multiplier


def _rows(labels, results):
    import pandas as pd

    rows = []
    for lab, res in zip(labels, results):
        a, meta = res["arrays"], res["meta"]
        if "failed" in meta:
            rows.append({**lab, "R_T": np.nan, "C": np.nan, "failed": meta["failed"]})
            continue
        rows.append({**lab, "R_T": float(np.sum(a["regret"])), "C": float(meta["total_up"] + meta["total_down"]),
                     "C_up": float(meta["total_up"]), "C_down": float(meta["total_down"]),
                     "messages": int(meta["messages"]), "rounds": int(meta["rounds"]),
                     "exchanges": np.nan if meta.get("exchanges") is None else float(meta["exchanges"]),
                     "m": np.nan if meta.get("m") is None else float(meta["m"]),
                     "m_sum": np.nan if meta.get("m_sum") is None else float(meta["m_sum"]),
                     "m_sq_sum": np.nan if meta.get("m_sq_sum") is None else float(meta["m_sq_sum"]),
                     "same_query": float(meta.get("same_query", np.nan)),
                     "multi_steps": float(meta.get("multi_steps", np.nan)),
                     "wall_time": float(meta["wall_time"]), "cpu_time": meta.get("cpu_time"), "failed": None})
    runs = pd.DataFrame(rows)
    if not runs.empty and "failed" not in runs:
        runs["failed"] = None
    return runs


def select_explore(tune) -> dict:
    """``(protocol, env, method) -> g`` with the lowest mean R(T) over the tuning runs (a failed run
    counts as +inf; ties: the first value of the grid). Where every ``g`` failed the runs cannot choose:
    ``g = 1`` (the method's own default width, not a value the grid's order picked), with a warning.
    (Before this rule the tie rule took the grid's first value, 0.1, there: FN-UCB and NeuralUCB on synchronous
    MAGIC in a full-mode run on the official code's standardised rows, where their networks diverged; on the
    unit-norm rows the arena uses no tuning run fails.)"""
    import warnings

    out = {}
    if tune is None or len(tune) == 0:
        return out
    t = tune.assign(R=tune.R_T.fillna(np.inf))
    for key, grp in t.groupby(["protocol", "env", "method"], sort=False):
        means = grp.groupby("explore", sort=False).R.mean()
        if np.isinf(means).all():
            out[key] = 1.0
            warnings.warn(f"arena tuning {key}: every tuning run failed (diverged) at every g of "
                          f"{list(means.index)}; using g = 1, the method's own default", stacklevel=2)
        else:
            out[key] = float(means.idxmin())
    return out


def run_arena(p: dict, seed: int = 0, n_jobs: int = 1, backend: str = "loky", cache_dir=None,
              progress: bool = True, scheduler: str | None = None) -> ArenaResults:
    """The two stages (module docstring): tuning runs, the exploration multiplier chosen on them
    (:func:`select_explore`), then the tested runs."""
    from ..runner import sweep

    kw = dict(n_jobs=n_jobs, backend=backend, cache_dir=cache_dir, progress=progress, fn=arena_cell,
              scheduler=scheduler)
    t_tasks, t_labels = arena_tasks(p, "tune")
    tune, cached, computed = None, 0, 0
    if t_tasks:
        t_res, t_stats = sweep(t_tasks, seed, desc="arena (tuning)", **kw)
        tune = _rows(t_labels, t_res)
        cached, computed = t_stats.cached, t_stats.computed
    explore = select_explore(tune)
    tasks, labels = arena_tasks(p, "test", explore)
    results, stats = sweep(tasks, seed, desc="arena", **kw)
    runs = _rows(labels, results)
    return ArenaResults(p, runs, summarise(runs), cached + stats.cached, computed + stats.computed, tune, explore)


def failures(res: ArenaResults):
    """The runs that broke down (see :func:`arena_cell`), tested and tuning runs, with their errors."""
    import pandas as pd

    parts = [r for r in (res.runs, res.tune) if r is not None and len(r)]
    if not parts:
        return pd.DataFrame(columns=["stage", "protocol", "env", "method", "knob", "value", "rep", "failed"])
    r = pd.concat(parts, ignore_index=True)
    if "stage" not in r:
        r["stage"] = "test"
    cols = [c for c in ("stage", "protocol", "env", "method", "knob", "value", "explore", "rep", "failed") if c in r]
    return r[r.failed.notna()][cols]


def summarise(runs):
    """Mean and s.e. per (protocol, env, method, value) and front membership per unit
    (:func:`pareto_mask`: ``on_front`` in scalars, ``on_front_messages``, ``on_front_rounds``)."""
    import pandas as pd

    keys = ["protocol", "env", "method", "knob", "value"]
    cols = keys + ["explore", "R_mean", "R_se", "C_mean", "messages", "rounds", "exchanges", "m", "m_sum",
                   "m_sq_sum", "same_query", "n", "wall"] + [u[2] for u in UNITS.values()]
    runs = runs[runs.R_T.notna()] if len(runs) else runs  # failed runs: listed by failures(), not averaged
    if len(runs) == 0:
        return pd.DataFrame(columns=cols)
    runs = runs.copy()
    for c in ("explore", "exchanges", "m", "m_sum", "m_sq_sum", "same_query"):
        if c not in runs:
            runs[c] = np.nan
    g = runs.groupby(keys, sort=False)
    pts = g.agg(explore=("explore", "first"), R_mean=("R_T", "mean"),
                R_se=("R_T", lambda x: float(np.std(x, ddof=1) / np.sqrt(len(x))) if len(x) > 1 else 0.0),
                C_mean=("C", "mean"), messages=("messages", "mean"), rounds=("rounds", "mean"),
                exchanges=("exchanges", "mean"), m=("m", "mean"), m_sum=("m_sum", "mean"),
                m_sq_sum=("m_sq_sum", "mean"), same_query=("same_query", "mean"),
                n=("R_T", "size"), wall=("wall_time", "mean")).reset_index()
    out = []
    for _, grp in pts.groupby(["protocol", "env"], sort=False):
        grp = grp.copy()
        for unit, (col, _, front) in UNITS.items():
            grp[front] = pareto_mask(grp[col].to_numpy(), grp.R_mean.to_numpy())
        out.append(grp)
    return pd.concat(out, ignore_index=True)[cols]


def pareto_mask(C, R) -> np.ndarray:
    """``True`` for the non-dominated points: no other point has ``C' ≤ C`` and ``R' ≤ R`` with one of
    the two strict. Shapes (n,) → (n,) bool. (Exact duplicates are both kept.)"""
    C, R = np.asarray(C, dtype=float), np.asarray(R, dtype=float)
    le = (C[None, :] <= C[:, None]) & (R[None, :] <= R[:, None])
    strict = (C[None, :] < C[:, None]) | (R[None, :] < R[:, None])
    return ~np.any(le & strict, axis=1)


def front_table(res: ArenaResults, unit: str = "scalars"):
    """The points on each front of ``unit`` ("scalars", "messages" or "rounds"), sorted by that cost."""
    check("unit", unit, one_of(*tuple(UNITS)))
    col, _, front = UNITS[unit]
    pts = res.points
    f = pts[pts[front]].sort_values(["protocol", "env", col])
    return f[["protocol", "env", "method", "knob", "value", "explore", "C_mean", "messages", "rounds", "exchanges",
              "m", "R_mean", "R_se"]]


def budget_table(res: ArenaResults, budgets=BUDGETS):
    """Per (protocol, env, budget B): the methods ranked by their best mean R(T) among their points with
    mean C ≤ B (one row per method that has such a point; ``rank`` 1 = lowest regret)."""
    import pandas as pd

    pts = res.points
    rows = []
    for (protocol, env), grp in pts.groupby(["protocol", "env"], sort=False):
        for B in budgets:
            ok = grp[grp.C_mean <= B]
            if ok.empty:
                continue
            best = ok.loc[ok.groupby("method").R_mean.idxmin()].sort_values("R_mean")
            for rank, r in enumerate(best.itertuples(), 1):
                rows.append({"protocol": protocol, "env": env, "budget": B, "rank": rank, "method": r.method,
                             "value": r.value, "R_mean": r.R_mean, "C_mean": r.C_mean})
    return pd.DataFrame(rows)


def budget_winners(res: ArenaResults, budgets=BUDGETS):
    """Wide table: the rank-1 method (its knob value) per (protocol, env) and budget."""
    bt = budget_table(res, budgets)
    if bt.empty:
        return bt
    top = bt[bt["rank"] == 1].copy()
    top["winner"] = [f"{m} ({v:g})" for m, v in zip(top.method, top.value)]
    top["budget"] = ["inf" if math.isinf(b) else f"{b:.0e}" for b in top.budget]
    return top.pivot_table(index=["protocol", "env"], columns="budget", values="winner", aggfunc="first",
                           sort=False)


# ------------------------------------------------------------------------------ the map
#: the map's methods and their communication values (asynchronous protocol)
#: Approx-DisKernelUCB at D = 1 and 10: between syncs its agents share the synchronised m × m inverse and keep
#: only their own low-rank corrections (Σ_n k_n·m numbers, at most m·T, instead of N·m²), so D = 10 on shuttle at
#: N = 1000 (where the dictionary grows with the points, m ≈ t) fits; with a copy of the inverse per agent it did not
_MAP_METHODS_FULL = {"Async-KernelUCB": [0.1, 1.0, 10.0], "Approx-DisKernelUCB": [1.0, 10.0], "OneKernelUCB": [0.0],
                     "N-KernelUCB": [0.0], "FedLinUCB": [0.1, 10.0], "DisLinUCB": [0.1, 10.0]}
_MAP_METHODS_QUICK = {"Async-KernelUCB": [0.1, 10.0], "Approx-DisKernelUCB": [10.0], "OneKernelUCB": [0.0],
                      "N-KernelUCB": [0.0], "FedLinUCB": [10.0], "DisLinUCB": [10.0]}
#: m levels off on Hartmann-4 (d = 4) and shuttle; it grows on cosine (run to T = 3·10³ only: the exact GP
#: of OneKernelUCB costs like T³ on fresh contexts)
_MAP_FULL = dict(envs=["hartmann4", "shuttle", "cosine"], Ns=[10, 100, 1000], T=10000, T_env={"cosine": 3000},
                 checkpoints=[1000, 3000, 10000], n_runs=3, methods=_MAP_METHODS_FULL, M=2000, env_seed=0)
_MAP_QUICK = dict(envs=["hartmann4"], Ns=[5, 20], T=300, T_env={}, checkpoints=[100, 300], n_runs=1,
                  methods=_MAP_METHODS_QUICK, M=300, env_seed=0)


def map_params(mode: str = "quick", **overrides) -> dict:
    """The map's parameters (which method is best within a communication budget, asynchronous protocol,
    at every N of ``Ns`` and every t of ``checkpoints``)."""
    p = mode_params(mode, _MAP_FULL, _MAP_QUICK, overrides, "map")
    check("envs", p["envs"], subset_of(*ENVS))
    for k in ("T", "n_runs", "M"):
        check(k, p[k], integer(ge=1))
    for n in p["Ns"]:
        check("Ns", n, integer(ge=1))
    check("methods", p["methods"], rule(lambda ms: set(ms) <= set(ASYNC_METHODS),
                                        f"methods of the asynchronous line-up {list(ASYNC_METHODS)}"))
    return p


def map_tasks(mp: dict, explore: dict | None = None) -> tuple[list[tuple[dict, int]], list[dict]]:
    """Every run of the map: ``(config, rep)`` for :func:`arena_cell` and a label for each. ``explore``:
    ``(protocol, env, method) -> g`` (the arena's choice on its tuning runs; default 1)."""
    tasks, labels = [], []
    p = dict(mp, N_async=1, T_async=1, N_sync=1, T_sync=1, nn_width=20, coop_kz="oracle")
    for env in mp["envs"]:
        spec = env_spec(env, p)
        T = int(mp["T_env"].get(env, mp["T"]))
        for N in mp["Ns"]:
            pN = dict(p, N_async=int(N), T_async=T)
            for method, values in mp["methods"].items():
                if unsupported(method, "async", env):
                    continue
                g = (explore or {}).get(("async", env, method), 1.0)
                for knob in values:
                    cfg = _task("async", env, method, N, T, spec, knob, g, pN)
                    for rep in range(mp["n_runs"]):
                        tasks.append((cfg, rep))
                        labels.append({"env": env, "N": int(N), "T": T, "method": method, "knob": KNOBS[method],
                                       "value": float(knob), "explore": float(g), "rep": rep})
    return tasks, labels


def run_map(mp: dict, explore: dict | None = None, seed: int = 0, n_jobs: int = 1, backend: str = "loky",
            cache_dir=None, progress: bool = True, scheduler: str | None = None):
    """The map's runs; returns one row per (run, checkpoint t ≤ T): R(t), C(t) (scalars), wall time."""
    import pandas as pd

    from ..runner import sweep

    tasks, labels = map_tasks(mp, explore)
    results, _ = sweep(tasks, seed, n_jobs=n_jobs, backend=backend, cache_dir=cache_dir, progress=progress,
                       desc="arena map", fn=arena_cell, scheduler=scheduler)
    rows = []
    for lab, res in zip(labels, results):
        a, meta = res["arrays"], res["meta"]
        R = np.cumsum(np.asarray(a["regret"], dtype=float))
        C = np.cumsum(np.asarray(a["comm_up"], dtype=float) + np.asarray(a["comm_down"], dtype=float))
        for t in mp["checkpoints"]:
            if t <= lab["T"]:
                rows.append({**lab, "t": int(t), "R_t": float(R[t - 1]), "C_t": float(C[t - 1]),
                             "failed": meta.get("failed"), "wall_time": meta.get("wall_time"),
                             "cpu_time": meta.get("cpu_time")})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ cost
def task_counts(p: dict):
    """Runs per (stage, protocol, env, method) of parameters ``p`` (nothing is run)."""
    import pandas as pd

    rows = []
    for stage in ("tune", "test"):
        _, labels = arena_tasks(p, stage)
        rows += [{k: lab[k] for k in ("protocol", "env", "method")} | {"stage": stage} for lab in labels]
    df = pd.DataFrame(rows, columns=["stage", "protocol", "env", "method"])
    return df.groupby(["stage", "protocol", "env", "method"], sort=False).size().rename("runs").reset_index()


def projected_cost(p: dict, measured, cores: int = 2):
    """Projected run time of ``p`` from ``measured`` per-run seconds: a table with columns protocol, env,
    method, wall_time (e.g. a committed ``results.csv`` of the same N and T); the mean per (protocol, env,
    method) times the runs :func:`task_counts` gives (a method the table lacks: the mean of its protocol).
    Returns ``(table, total seconds summed over runs, wall seconds on ``cores`` workers)``."""
    counts = task_counts(p)
    w = measured.dropna(subset=["wall_time"])
    per = w.groupby(["protocol", "env", "method"]).wall_time.mean()
    per_protocol = w.groupby("protocol").wall_time.mean()
    secs = [float(per.get((r.protocol, r.env, r.method), per_protocol.get(r.protocol, np.nan)))
            for r in counts.itertuples()]
    counts = counts.assign(sec_per_run=secs, seconds=np.asarray(secs) * counts.runs.to_numpy())
    total = float(counts.seconds.sum())
    return counts, total, total / cores
