"""Memory known before the work: each sweep's largest runs estimated from their sizes, refused up front.

:func:`run_sizes` reads from a run's configuration (without building it) the sizes its memory depends on:
agents, horizon, observations, dimension, arms, candidates. :func:`run_memory_bytes` turns them into an
estimated peak resident memory: the algorithm's own ``memory_bytes`` classmethod (Approx-DisKernelUCB's
shared inverse and per-agent low-rank corrections, for example), else :data:`MEMORY_MODELS`, else
:data:`SMALL_RUN_BYTES`, plus a worker's baseline. :func:`check_memory` (called by
:func:`bandits.runner.sweep` before it starts any run) adds the largest estimates, one per concurrent
worker, and raises :class:`MemoryBudgetError` naming the run, its estimate, the machine's available memory
and what to change, so that a sweep that cannot fit fails before the work instead of being killed by the
operating system after it.
"""
from __future__ import annotations

import os

__all__ = ["MemoryBudgetError", "run_sizes", "run_memory_bytes", "check_memory", "run_name",
           "WORKER_BASELINE_BYTES", "SMALL_RUN_BYTES", "MEMORY_MODELS"]


class MemoryBudgetError(RuntimeError):
    """A sweep's largest runs, one per concurrent worker, would not fit in the machine's available memory
    (:func:`check_memory`); raised before any run starts."""


#: resident memory of a worker before its run's arrays: the interpreter, numpy, scipy, the package and torch
#: (measured: 71 MiB after ``import bandits.runner, bandits.algorithms, bandits.envs``, 252 MiB with torch),
#: with room for an environment's data set
WORKER_BASELINE_BYTES = 320 * 2**20
#: a run whose algorithm gives no estimate (no ``memory_bytes``): its arrays are small beside the baseline
SMALL_RUN_BYTES = 16 * 2**20


def run_sizes(config) -> dict:
    """The sizes of a regret run that its memory depends on, read from ``config`` without building it:
    ``N``, ``T``, ``points`` (observations: ``T`` with one client per step, the arena's ``"async"``
    protocol or an environment schedule other than ``"sync"``; ``N·T`` with every agent at every step),
    ``dim``, ``K`` (arms per step) and ``M`` (candidates of a finite domain, else ``None``). ``None`` for
    a configuration that is not a regret run of a registered algorithm."""
    if not isinstance(config, dict) or config.get("loop", "regret") != "regret" or "algorithm" not in config:
        return None
    try:
        N, T = int(config["N"]), int(config["T"])
    except (KeyError, TypeError, ValueError):
        return None
    spec = config.get("env") if isinstance(config.get("env"), dict) else {}
    kind = spec.get("kind", "finite")
    dim, M = spec.get("d"), None
    if "name" in spec:
        from .envs.functions import FUNCTIONS

        fs = FUNCTIONS.get(spec["name"])
        dim = dim or (fs.dim if fs is not None else None)
        if kind == "finite" and fs is not None:
            M = int(spec.get("M", 2000))
    default_schedule = "sync" if kind in ("finite", "coop", "fn_synthetic", "fn_classification") else "uniform"
    protocol = config.get("protocol")
    every_agent = protocol == "sync" if protocol else spec.get("schedule", default_schedule) == "sync"
    return {"N": N, "T": T, "points": N * T if every_agent else T, "dim": int(dim or 64),
            "K": int(spec.get("K", 20)), "M": M}


def _doubled(n: int, start: int) -> int:
    """The capacity a buffer of ``start`` rows that doubles when full has after ``n`` rows."""
    cap = max(1, int(start))
    while cap < n:
        cap *= 2
    return cap


def _exact_gp_bytes(points: int, M, start: int = 64) -> int:
    """One exact GP of ``points`` observations (:mod:`bandits.estimators`): on fresh contexts the factor
    buffer of :class:`~bandits.estimators.ExactGP` (``cap²``, and the old one while it doubles); on a finite
    domain the rows of :class:`~bandits.estimators.CandidatePosterior` (``cap × M``, ``cap`` from 64 rows,
    and the added rows while they grow)."""
    if M:
        cap = _doubled(points, 64)
        return 8 * (cap + cap // 2) * int(M)
    cap = _doubled(points, start)
    return 8 * (cap * cap + (cap // 2) ** 2)


#: estimates for registered algorithms whose classes give none (``memory_bytes`` on the class comes first):
#: name -> ``(N, T, dim, params, points, M) -> bytes``, from the storage of the estimators they keep
MEMORY_MODELS = {
    # one exact GP over every observation (its factor buffer starts at T rows)
    "OneKernelUCB": lambda N, T, dim, params, points, M: _exact_gp_bytes(points, M, start=T),
    # one exact GP per agent over its own observations
    "N-KernelUCB": lambda N, T, dim, params, points, M: N * _exact_gp_bytes(-(-points // N), M),
    # the global posterior over the candidates and every agent's fork (16 rows each to start)
    "DisKernelUCB": lambda N, T, dim, params, points, M: _exact_gp_bytes(points, M) + 8 * 16 * N * int(M or 0),
}


def run_memory_bytes(config) -> int:
    """Estimated peak resident memory of one run of ``config`` in its worker: the algorithm's own estimate
    from the run's sizes (a classmethod ``memory_bytes(N, T, dim, params, *, points, M, K)`` of the
    registered class, else :data:`MEMORY_MODELS`; :func:`run_sizes`), or :data:`SMALL_RUN_BYTES` where
    there is none, plus :data:`WORKER_BASELINE_BYTES`."""
    sizes = run_sizes(config)
    own = SMALL_RUN_BYTES
    if sizes is not None:
        from .algorithms import ALGORITHMS

        name = config["algorithm"]
        hook = getattr(ALGORITHMS.get(name), "memory_bytes", None)
        if hook is None and name in MEMORY_MODELS:
            own = int(MEMORY_MODELS[name](sizes["N"], sizes["T"], sizes["dim"], dict(config.get("params", {})),
                                          sizes["points"], sizes["M"]))
        elif hook is not None:
            own = int(hook(sizes["N"], sizes["T"], sizes["dim"], dict(config.get("params", {})),
                           points=sizes["points"], M=sizes["M"], K=sizes["K"]))
    return WORKER_BASELINE_BYTES + own


def _available_memory() -> int:
    """The machine's available memory now (psutil's ``virtual_memory().available``)."""
    import psutil

    return int(psutil.virtual_memory().available)


def _gib(b) -> str:
    return f"{b / 2**30:.1f} GiB"


def check_memory(tasks, n_jobs: int, desc: str = "runs", available: int | None = None) -> int:
    """Refuse a sweep that cannot fit: the estimates of its largest runs (:func:`run_memory_bytes`), one per
    concurrent worker (``n_jobs``, ``-1``: every core; at most one per run), against the machine's available
    memory. Raises :class:`MemoryBudgetError` naming the largest run, its estimate, the total, the
    available memory and what to change (``n_jobs`` or the run's sizes); returns the total otherwise.
    ``BANDITS_MEMORY_CHECK=off`` skips the check (e.g. a machine whose swap or other jobs psutil
    misjudges)."""
    if os.environ.get("BANDITS_MEMORY_CHECK", "").lower() in ("0", "off", "false", "no"):
        return 0
    if not tasks:
        return 0
    workers = max(1, min(len(tasks), (os.cpu_count() or 1) if n_jobs == -1 else int(n_jobs)))
    est = sorted(((run_memory_bytes(cfg), i) for i, (cfg, _) in enumerate(tasks)), reverse=True)
    need = sum(e for e, _ in est[:workers])
    avail = _available_memory() if available is None else int(available)
    if need > avail:
        big, i = est[0]
        cfg, rep = tasks[i]
        name = run_name(cfg, rep)
        alone = big <= avail
        raise MemoryBudgetError(
            f"the {desc!r} sweep would need about {_gib(need)} ({workers} concurrent worker(s) at n_jobs={n_jobs}, "
            f"the largest run {name} about {_gib(big)}), and the machine has {_gib(avail)} available. "
            + (f"Lower n_jobs (at most {max(1, avail // big)} of these runs fit at once) or the runs' sizes"
               if alone else "That run alone does not fit: lower its sizes (N, T, the candidates M) or run it "
                             "on a larger machine")
            + "; no run was started.")
    return need


def run_name(cfg, rep) -> str:
    cfg = cfg if isinstance(cfg, dict) else {}
    parts = [str(cfg.get("algorithm", "?"))] + [f"{k}={cfg[k]}" for k in ("N", "T") if k in cfg]
    env = cfg.get("env")
    if isinstance(env, dict):
        parts.append("env=" + str(env.get("name") or env.get("dataset") or env.get("function") or env.get("kind")))
    params = cfg.get("params") if isinstance(cfg.get("params"), dict) else {}
    if "D" in params:
        parts.append(f"D={params['D']}")
    return " ".join(parts + [f"rep={rep}"])


