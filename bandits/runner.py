"""Runs, seeds, cache, sweeps and provenance (layer 8).

A run is a pure function of ``(config, seed, rep)``:

* ``config`` is a JSON-able dict: ``{"loop": "regret", "env": {...}, "env_seed": int,
  "algorithm": name, "params": {...}, "N": agents, "T": horizon}``, or for pure exploration
  ``{"loop": "pure_exploration", "instance": {...}, "algorithm": name, "params": {...}}``;
* the run's randomness is ``SeedSequence(seed, spawn_key=(rep,))`` (the ``rep``-th child of
  the master seed), split into an environment stream (arm sets, client schedule, noise) and
  the algorithm's seed. The environment stream does not depend on the algorithm, so every
  algorithm in a comparison sees the same arm sets and noise (common random numbers).

:func:`sweep` maps runs over a joblib backend (``serial``, ``loky``, ``threading``) or a dask.distributed
cluster (``dask``), with a tqdm bar and an on-disk cache keyed by ``sha256(config, seed, rep, package
version, code fingerprint)`` (a code change invalidates cached runs; a docstring, a comment or a
figure does not: :func:`code_fingerprint`). Results come back to the
calling process, which alone writes the cache, atomically, one file per run as each run finishes:
a remote worker needs no access to the cache folder, an interrupted sweep loses no finished run,
and a re-run recomputes only what is missing. A cache file that cannot be read (truncated,
corrupt) is reported and recomputed. Workers run with one BLAS thread each, so the results do not
depend on ``n_jobs`` or on where they ran.

Memory is checked before the work: :func:`sweep` estimates each run still to compute from its sizes
(:func:`bandits.memory.run_memory_bytes`: agents, horizon, observations, the dictionary bound, an algorithm's own storage
model) and refuses, before any run starts, a sweep whose largest runs, one per concurrent worker, exceed
the machine's available memory (:class:`~bandits.memory.MemoryBudgetError`, :func:`~bandits.memory.check_memory`), instead of a worker
killed by the operating system after hours.

Dask: ``sweep(..., backend="dask", scheduler="tcp://host:port")`` (or, without ``scheduler``, the
``DASK_SCHEDULER_ADDRESS`` environment variable, dask's own convention) connects a
``Client(address)`` to an existing cluster; without an address it uses the current client or
starts a local cluster of ``n_jobs`` single-threaded worker processes. Before any run the
package version and source fingerprint of every worker are compared with the client's
(:func:`check_workers`), and each run checks them again on the worker that executes it (a worker
may join later): a mismatch is a :class:`WorkerMismatchError` naming the worker. A worker lost
mid-sweep loses no run: the scheduler re-runs its tasks elsewhere. Notebooks take a
``scheduler`` parameter through :func:`resolve_scheduler`.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import warnings
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from . import __version__
from .memory import (MEMORY_MODELS, SMALL_RUN_BYTES, WORKER_BASELINE_BYTES, MemoryBudgetError, check_memory,  # noqa: F401
                     run_memory_bytes, run_sizes)
from .validation import check, fail, ge, one_of, optional, rule

__all__ = ["run_cell", "run_regret_cell", "RunContext", "canonical", "run_pure_exploration_cell", "run_pure_exploration_on", "run_key", "arithmetic_path", "Cache", "sweep", "provenance", "BACKENDS", "CacheWarning",
           "run_seeds", "validate_backend", "resolve_scheduler", "check_workers", "worker_identity",
           "WorkerMismatchError", "code_fingerprint", "NOT_IN_RUNS", "in_runs", "MemoryBudgetError", "run_sizes",
           "run_memory_bytes", "check_memory", "WORKER_BASELINE_BYTES", "MEMORY_MODELS"]

BACKENDS = ("serial", "loky", "threading", "dask")


class CacheWarning(UserWarning):
    """A cache entry could not be read and is being recomputed."""


class WorkerMismatchError(RuntimeError):
    """A dask worker runs another version of the package (or other source) than the client."""


def _canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=_json_default)


def _json_default(o):
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, (np.bool_,)):
        return bool(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


_FINGERPRINT: str | None = None


#: Modules that never run inside a cell (figures, reports, benchmarks, the notebooks' set-up and
#: finish), as paths relative to the package: editing them does not invalidate cached runs. Besides
#: these, every module named ``claims.py`` (the claims' statistics ``bandits/claims.py`` among them),
#: ``plots.py``, ``<name>_claims.py``, ``<name>_plots.py``, ``<name>_sequential.py`` or ``<name>_note.py`` anywhere in the
#: package is left out (:func:`in_runs`): an experiment's claims, figures, step hooks and generated note live there, so a claim's text, threshold or
#: statistic can change without recomputing a run. ``tests/test_package_structure.py`` checks that no module the
#: fingerprint covers imports one it leaves out (else a run could depend on code outside its key).
NOT_IN_RUNS = ("bench.py", "floor.py", "runtimes.py", "plotting.py", "report.py", "site.py", "papers.py", "experiments/notebook.py",
               "sequential.py")
_NOT_IN_RUNS_NAMES = ("claims.py", "plots.py")
_NOT_IN_RUNS_SUFFIXES = ("_claims.py", "_plots.py", "_sequential.py", "_note.py")


def in_runs(rel: str) -> bool:
    """Whether the package module at ``rel`` (a path relative to the package, e.g.
    ``"experiments/duets_claims.py"``) enters :func:`code_fingerprint`: False for :data:`NOT_IN_RUNS`
    and for claims and plots modules (their names end in ``claims.py`` / ``plots.py``)."""
    name = rel.rsplit("/", 1)[-1]
    return not (rel in NOT_IN_RUNS or name in _NOT_IN_RUNS_NAMES or name.endswith(_NOT_IN_RUNS_SUFFIXES))


def _code_text(source: str) -> str:
    """What of a module can change a run: its syntax tree without docstrings (comments, blank lines
    and layout are not in the tree), as ``ast.dump`` prints it."""
    import ast

    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree, include_attributes=False)


def code_fingerprint() -> str:
    """sha256 of the package's code: a code change invalidates cached runs, even within one version
    number (the cache must never return what the current code would not).

    Each module enters as its syntax tree without docstrings (:func:`_code_text`), so editing a
    docstring, a comment or the layout keeps the cache; the modules of :data:`NOT_IN_RUNS` do not
    enter."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        _FINGERPRINT = _fingerprint_tree(Path(__file__).resolve().parent)
    return _FINGERPRINT


def _fingerprint_tree(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(Path(root).rglob("*.py")):
        rel = p.relative_to(root).as_posix()
        if not in_runs(rel):
            continue
        h.update(rel.encode())
        h.update(_code_text(p.read_text(encoding="utf-8")).encode())
    return h.hexdigest()[:16]


_ARITH: str | None = None


def arithmetic_path() -> str:
    """The SIMD kernels numpy and OpenBLAS dispatch to on this machine, e.g.
    ``"numpy:X86_V4,AVX512_ICL,X86_V3|openblas:SkylakeX"`` (numpy 2 dispatch groups). AVX-512 and AVX2 kernels round differently
    and a last-bit difference can send a bandit run down another path, so a run cached under one path
    is not returned under another (the Makefile pins the AVX2 path: ``NPY_DISABLE_CPU_FEATURES``,
    ``OPENBLAS_CORETYPE``)."""
    global _ARITH
    if _ARITH is None:
        feats = getattr(getattr(getattr(np, "_core", None), "_multiarray_umath", None), "__cpu_features__", {}) or {}
        top = [k for k in ("X86_V4", "AVX512_ICL", "AVX512_SPR", "X86_V3") if feats.get(k)]
        try:
            from threadpoolctl import threadpool_info

            blas = sorted({str(i.get("architecture")) for i in threadpool_info() if i.get("internal_api") == "openblas"})
        except Exception:  # pragma: no cover - threadpoolctl is a dependency; be safe anyway
            blas = []
        _ARITH = "numpy:" + ",".join(top) + "|openblas:" + ",".join(blas)
    return _ARITH


def run_key(config: dict, seed: int, rep: int, fn=None) -> str:
    """Cache key: hash of (config, seed, rep, package version, source fingerprint, arithmetic path
    (:func:`arithmetic_path`)[, cell function])."""
    body = {"config": config, "seed": int(seed), "rep": int(rep), "version": __version__,
            "code": code_fingerprint(), "arith": arithmetic_path()}
    if fn is not None and fn is not run_cell:
        body["fn"] = f"{fn.__module__}.{fn.__qualname__}"
    payload = _canonical(body)
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def run_seeds(seed: int, rep: int):
    """``(env_stream_seq, algorithm_seq)`` for run ``rep`` under master ``seed``."""
    run_ss = np.random.SeedSequence(int(seed), spawn_key=(int(rep),))
    env_ss, alg_ss = run_ss.spawn(2)
    return env_ss, alg_ss


def canonical(obj) -> str:
    """The canonical JSON text of ``obj`` (sorted keys, numpy scalars and arrays as JSON numbers and
    lists): what run keys hash and what a run's ``meta`` is normalised through, so a result loaded from
    the cache equals the one just computed."""
    return _canonical(obj)


@dataclass
class RunContext:
    """What a :func:`run_regret_cell` hook sees of a finished (or failed) run.

    Attributes:
        config, seed, rep: the cell.
        env: the environment the run used; policy: the policy after the run; ledger: its
            :class:`~bandits.comm.CommLedger`; trace: the :class:`~bandits.sim.Trace` (``None`` when
            the run failed); observers: the observers the loop called.
    """

    config: dict
    seed: int
    rep: int
    env: object
    policy: object
    ledger: object
    trace: object
    observers: tuple = ()


def _policy_params(cls, env, params: dict) -> dict:
    """The constructor parameters of ``cls`` on ``env``: a policy that needs more of the environment than
    its dimension says so with a classmethod ``env_params(env, params)`` (the paper's wiring lives with
    its policy, e.g. the Coop-KernelUCB family's network and true task kernel)."""
    hook = getattr(cls, "env_params", None)
    if hook is not None:
        return dict(hook(env, dict(params)))
    return params


def run_regret_cell(config: dict, seed: int, rep: int, *, make_env=None, policy_class=None, wrap_policy=None,
                    observers=(), collect=None, divergence_errors=(FloatingPointError,)) -> dict:
    """The one recipe of a regret-minimisation run: seeds, environment, ledger, policy, loop, canonical
    result. Every regret cell of the package (the runner's own, the arena's, the theory notebooks') is
    this function with hooks; nothing else re-types the recipe.

    Steps: ``N, T`` from ``config``; the environment ``make_env(config["env"], config.get("env_seed",
    0))`` (default :func:`bandits.envs.make_env`); the run's streams :func:`run_seeds` ``(seed, rep)``
    (environment: arm sets, schedule, noise; algorithm: its seed); a :class:`~bandits.comm.CommLedger`;
    the policy ``policy_class`` (default: the registry's ``config["algorithm"]``) built with
    ``config["params"]`` (and the environment's wiring, :func:`_policy_params`), then
    ``wrap_policy(policy)`` if given; :func:`bandits.sim.run_regret` with ``observers``.

    Returns ``{"arrays": {...}, "meta": {...}}`` with ``meta`` passed through :func:`canonical`:
    arrays regret, comm_up, comm_down, n_active (each ``(T,)``); meta info, wall_time, cpu_time, fstar,
    comm_by_kind, comm_rounds, n_agents. ``collect(ctx: RunContext) -> (arrays, meta)`` adds (or
    replaces) entries; it is called on failed runs too (``ctx.trace is None``).

    ``config["on_divergence"]``: ``"raise"`` (default) or ``"record"``: a run whose algorithm raises one of
    ``divergence_errors`` (``FloatingPointError``, an algorithm's signal of a numerical breakdown) comes
    back with ``meta["failed"]`` (the error) and NaN arrays instead of stopping the sweep; it is
    deterministic, so it is cached like any run. The experiment then reports it (never drops it
    silently)."""
    from .algorithms import get_algorithm
    from .comm import CommLedger
    from .envs import make_env as _make_env
    from .sim import run_regret

    N, T = int(config["N"]), int(config["T"])
    check("N", N, ge(1))
    check("T", T, ge(1))
    on_divergence = config.get("on_divergence", "raise")
    check("on_divergence", on_divergence, one_of("raise", "record"))
    env = (make_env or _make_env)(config["env"], config.get("env_seed", 0))
    env_ss, alg_ss = run_seeds(seed, rep)
    rng_env, rng_noise = (np.random.default_rng(s) for s in env_ss.spawn(2))
    ledger = CommLedger(N, T)
    cls = policy_class if policy_class is not None else get_algorithm(config["algorithm"])
    params = _policy_params(cls, env, dict(config.get("params", {})))
    policy = cls(N, T, env.dim, alg_ss, ledger, **params)
    if wrap_policy is not None:
        policy = wrap_policy(policy)
    observers = tuple(observers)
    try:
        trace = run_regret(policy, env, T, N, rng_env, rng_noise, observers=observers)
    except divergence_errors as e:
        if on_divergence != "record":
            raise
        nan = np.full(T, np.nan)
        arrays = {"regret": nan, "comm_up": nan, "comm_down": nan.copy(), "n_active": np.zeros(T)}
        meta = {"failed": f"{type(e).__name__}: {e}", "info": {}, "wall_time": None, "cpu_time": None, "fstar": None,
                "comm_by_kind": ledger.by_kind(), "comm_rounds": ledger.rounds(), "n_agents": N}
        trace = None
    else:
        arrays = {"regret": trace.regret, "comm_up": trace.comm_up, "comm_down": trace.comm_down,
                  "n_active": trace.n_active}
        meta = {"info": trace.info, "wall_time": trace.wall_time, "cpu_time": trace.cpu_time, "fstar": getattr(env, "fstar", None),
                "comm_by_kind": ledger.by_kind(), "comm_rounds": ledger.rounds(), "n_agents": N}
    if collect is not None:
        extra_arrays, extra_meta = collect(RunContext(config, seed, rep, env, policy, ledger, trace, observers))
        arrays.update(extra_arrays or {})
        meta.update(extra_meta or {})
    return {"arrays": arrays, "meta": json.loads(_canonical(meta))}


def recorded_time(meta: dict | None) -> float | None:
    """A run's own recorded time: its CPU seconds (``meta["cpu_time"]``, which a loaded machine inflates
    far less than the wall clock) where the run recorded them, else its wall-clock seconds (``meta["wall_time"]``: runs cached
    before the CPU time was recorded); ``None`` for a run with neither (a failed run)."""
    meta = meta or {}
    for k in ("cpu_time", "wall_time"):
        v = meta.get(k)
        if v is not None:
            return float(v)
    return None


def run_cell(config: dict, seed: int, rep: int) -> dict:
    """Run one cell and return ``{"arrays": {...}, "meta": {...}}`` (pure function): a regret run
    (:func:`run_regret_cell`, no hooks) or, with ``config["loop"] == "pure_exploration"``, a
    pure-exploration run."""
    loop = config.get("loop", "regret")
    if loop == "pure_exploration":
        return run_pure_exploration_cell(config, seed, rep)
    check("loop", loop, one_of("regret", "pure_exploration"))
    return run_regret_cell(config, seed, rep)


def run_pure_exploration_on(inst, config: dict, seed: int, rep: int):
    """Run ``config["algorithm"]`` (with ``config["params"]``, at most ``config["max_rounds"]`` rounds,
    default 64) on the pure-exploration instance ``inst`` with the run streams of ``(seed, rep)``
    (:func:`run_seeds`). Returns ``(trace, ledger, arrays)``, ``arrays`` = samples, recommended, correct;
    the loop of :func:`run_pure_exploration_cell`."""
    from .algorithms import get_pe_algorithm
    from .comm import CommLedger
    from .sim import run_pure_exploration

    max_rounds = int(config.get("max_rounds", 64))
    env_ss, alg_ss = run_seeds(seed, rep)
    ledger = CommLedger(inst.V, max_rounds)
    policy = get_pe_algorithm(config["algorithm"])(inst, alg_ss, ledger, **config.get("params", {}))
    tr = run_pure_exploration(policy, inst, np.random.default_rng(env_ss), max_rounds=max_rounds)
    arrays = {"samples": tr.samples, "recommended": tr.recommended, "correct": tr.correct}
    return tr, ledger, arrays


def run_pure_exploration_cell(config: dict, seed: int, rep: int, *, make_instance=None) -> dict:
    """The one recipe of a pure-exploration run: ``config = {"instance": spec, "algorithm", "params",
    "max_rounds"}``; the instance is ``make_instance(config["instance"])`` (default
    :func:`bandits.envs.make_instance`, as :func:`bandits.envs.make_env` is for regret runs: an experiment
    with its own instances passes its factory), the run is :func:`run_pure_exploration_on`.

    Returns ``{"arrays": {samples, recommended, correct}, "meta": {info, wall_time, rounds,
    samples_per_agent, comm_scalars, comm_rounds, all_correct}}`` with ``meta`` passed through
    :func:`canonical`."""
    from .envs import make_instance as _make_instance

    inst = (make_instance or _make_instance)(config["instance"])
    tr, ledger, arrays = run_pure_exploration_on(inst, config, seed, rep)
    meta = {"info": tr.info, "wall_time": tr.wall_time, "cpu_time": tr.cpu_time, "rounds": tr.rounds,
            "samples_per_agent": tr.samples_per_agent, "comm_scalars": tr.comm_scalars,
            "comm_rounds": ledger.rounds(), "all_correct": bool(np.all(tr.correct))}
    return {"arrays": arrays, "meta": json.loads(_canonical(meta))}


class Cache:
    """Finished runs on disk, one ``<key>.npz`` each, written atomically."""

    def __init__(self, directory: str | os.PathLike | None):
        self.dir = Path(directory) if directory is not None else None
        if self.dir is not None:
            self.dir.mkdir(parents=True, exist_ok=True)

    def path(self, key: str) -> Path:
        return self.dir / f"{key}.npz"

    def load(self, key: str) -> dict | None:
        if self.dir is None:
            return None
        p = self.path(key)
        if not p.exists():
            return None
        try:
            with np.load(p, allow_pickle=False) as z:
                meta = json.loads(str(z["__meta__"]))
                if meta.get("__key__") != key:
                    raise ValueError("key mismatch")
                arrays = {k: z[k] for k in z.files if k != "__meta__"}
            meta.pop("__key__")
            return {"arrays": arrays, "meta": meta}
        except Exception as exc:  # truncated or corrupt: recompute
            warnings.warn(f"cache file {p} is unreadable ({type(exc).__name__}: {exc}); "
                          "recomputing this run", CacheWarning, stacklevel=2)
            try:
                p.unlink()
            except OSError:
                pass
            return None

    def save(self, key: str, result: dict) -> None:
        if self.dir is None:
            return
        meta = dict(result["meta"], __key__=key)
        fd, tmp = tempfile.mkstemp(dir=self.dir, prefix=f".{key}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(fh, __meta__=np.array(_canonical(meta)), **result["arrays"])
            os.replace(tmp, self.path(key))
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


def worker_identity() -> dict:
    """``{"version", "code"}`` of the package in this process (compared across dask workers)."""
    return {"version": __version__, "code": code_fingerprint()}


def _worker(config, seed, rep, fn=None, expected: dict | None = None):
    """One run with one BLAS thread; returns the result (the caller writes the cache)."""
    from threadpoolctl import threadpool_limits

    if expected is not None:
        _check_identity(expected, worker_identity(), where="this worker")
    with threadpool_limits(limits=1):
        return (fn or run_cell)(config, seed, rep)


def _check_identity(expected: dict, found: dict, where: str) -> None:
    if found != expected:
        raise WorkerMismatchError(
            f"{where} runs bandits {found.get('version')} (source fingerprint {found.get('code')}) but the "
            f"client runs {expected['version']} (source fingerprint {expected['code']}): install the same "
            "version of the package on every dask worker (e.g. the same git commit) and restart the workers")


def check_workers(client, expected: dict | None = None) -> dict:
    """Compare every connected dask worker's :func:`worker_identity` with the client's (or
    ``expected``); raises :class:`WorkerMismatchError` naming the first mismatching worker.
    Returns ``{worker address: identity}``."""
    expected = expected or worker_identity()
    found = client.run(worker_identity)
    for addr, ident in sorted(found.items()):
        _check_identity(expected, ident, where=f"dask worker {addr}")
    return found


_SCHEME = ("tcp://", "tls://", "inproc://", "ucx://", "ws://", "wss://")


def resolve_scheduler(scheduler: str | None = None, backend: str = "dask", export: bool = True) -> str | None:
    """The dask scheduler address a sweep should use, validated; ``None`` for none.

    ``scheduler`` (a notebook parameter or ``make figures SCHEDULER=...``) wins; when it is
    ``None`` or ``""`` and ``backend == "dask"``, the ``DASK_SCHEDULER_ADDRESS`` environment
    variable is used (dask's convention). A given address is exported to
    ``DASK_SCHEDULER_ADDRESS`` for this process, so every :func:`sweep` with ``backend="dask"``
    that is not handed a scheduler (the experiment modules) reaches the same cluster;
    ``export=False`` (what :func:`sweep` uses) validates without touching the environment, so a
    sweep handed a scheduler never changes where later sweeps go.

    Raises ``ValueError`` naming ``scheduler`` for an address that is not ``host:port`` or
    ``<protocol>://host:port``, or when it is given with a backend other than ``"dask"``.
    """
    check("scheduler", scheduler, optional(rule(lambda s: isinstance(s, str), "a dask scheduler address such as "
                                                "'tcp://host:8786'")))
    if scheduler:
        check("backend", backend, one_of("dask"), note="a scheduler address sends the runs to a dask cluster")
        addr = scheduler.strip()
        rest = addr.split("://", 1)[1] if "://" in addr else addr
        if ("://" in addr and not addr.startswith(_SCHEME)) or (not addr.startswith("inproc://") and (
                ":" not in rest or not rest.rsplit(":", 1)[1].isdigit() or not rest.rsplit(":", 1)[0])):
            fail("scheduler", scheduler, f"a dask scheduler address '<protocol>://host:port' (protocols "
                 f"{', '.join(p[:-3] for p in _SCHEME)}) or 'host:port', e.g. 'tcp://10.0.0.5:8786'")
        if export:
            os.environ["DASK_SCHEDULER_ADDRESS"] = addr
        return addr
    if backend != "dask":
        return None
    env = os.environ.get("DASK_SCHEDULER_ADDRESS", "").strip()
    return resolve_scheduler(env, backend, export=False) if env else None


def validate_backend(backend: str, n_jobs: int) -> None:
    check("backend", backend, one_of(*BACKENDS))
    check("n_jobs", n_jobs, rule(lambda n: isinstance(n, (int, np.integer)) and (n >= 1 or n == -1),
                                 "a positive integer or -1"))


@dataclass
class SweepStats:
    total: int = 0
    cached: int = 0
    computed: int = 0


def sweep(tasks: list[tuple[dict, int]], seed: int, n_jobs: int = 1, backend: str = "loky",
          cache_dir: str | os.PathLike | None = None, progress: bool = True,
          desc: str = "runs", fn=None, scheduler: str | None = None) -> tuple[list[dict], SweepStats]:
    """Run ``tasks`` (a list of ``(config, rep)``) and return their results in order.

    Cached runs are loaded; the others are computed in-process (``backend="serial"`` or
    ``n_jobs=1`` with a joblib backend), with joblib (``loky``, ``threading``) or on a dask
    cluster (``dask``: ``scheduler`` or ``DASK_SCHEDULER_ADDRESS``, else the current client or a
    local cluster; see the module docstring), and written to the cache by this process as they
    finish. ``fn`` replaces :func:`run_cell` by another pure, module-level
    ``(config, seed, rep) -> {"arrays", "meta"}`` function (its name enters the cache key).
    """
    validate_backend(backend, n_jobs)
    address = resolve_scheduler(scheduler, backend, export=False)
    cache = Cache(cache_dir)
    keys = [run_key(c, seed, r, fn) for c, r in tasks]
    channel = _ProgressChannel.open(desc)
    with warnings.catch_warnings(record=channel is not None) as caught:
        results: list[dict | None] = [cache.load(k) for k in keys]
    todo = [i for i, r in enumerate(results) if r is None]
    if todo and not (backend == "dask" and address):  # a remote cluster's memory is not this machine's
        check_memory([tasks[i] for i in todo], n_jobs if backend != "serial" else 1, desc)
    stats = SweepStats(total=len(tasks), cached=len(tasks) - len(todo), computed=len(todo))
    if channel is not None:
        channel.start(stats)
        for w in caught or ():  # shown in the terminal (make) and, as before, in the notebook
            channel.warn(str(w.message))
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if todo:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(todo), desc=desc, disable=not progress, leave=False)

        def done(i, res):
            cache.save(keys[i], res)
            results[i] = res
            bar.update()
            if channel is not None:
                channel.run_done((res.get("meta") or {}).get("failed"))

        if backend == "dask":
            _sweep_dask(tasks, todo, seed, fn, n_jobs, address, done)
        elif backend == "serial" or n_jobs == 1:
            for i in todo:
                done(i, _worker(tasks[i][0], seed, tasks[i][1], fn))
        else:
            from joblib import Parallel, delayed, parallel_config

            ctx = {"backend": backend}
            if backend == "loky":
                ctx["inner_max_num_threads"] = 1
            from joblib.externals.loky.process_executor import TerminatedWorkerError

            with parallel_config(**ctx):
                gen = Parallel(n_jobs=n_jobs, return_as="generator")(
                    delayed(_worker)(tasks[i][0], seed, tasks[i][1], fn) for i in todo)
                try:
                    for i, res in zip(todo, gen):
                        done(i, res)
                except TerminatedWorkerError as e:
                    raise RuntimeError(_killed_message(desc, tasks, todo, results, n_jobs, cache_dir is not None)) from e
        bar.close()
    if channel is not None:
        channel.close()
    return results, stats


def _killed_message(desc, tasks, todo, results, n_jobs, cached: bool) -> str:
    """What a sweep says when the OS killed one of its worker processes (loky's TerminatedWorkerError)."""
    left = [i for i in todo if results[i] is None]

    def name(i):
        cfg, rep = tasks[i]
        cfg = cfg if isinstance(cfg, dict) else {}
        parts = [str(cfg.get("algorithm", "?"))] + [f"{k}={cfg[k]}" for k in ("N", "T") if k in cfg]
        return " ".join(parts + [f"rep={rep}"])

    kept = ("they are cached and a re-run starts from them" if cached else
            "no cache_dir was given, so a re-run computes them again")
    return (f"a worker process of the {desc!r} sweep was killed ({len(todo) - len(left)} of {len(todo)} runs "
            f"finished; {kept}). A SIGKILL is usually the operating "
            f"system out of memory: lower n_jobs (now {n_jobs}) or the runs' sizes. The killed run is among the "
            f"next ones: {'; '.join(name(i) for i in left[: 2 * n_jobs])}")


class _ProgressChannel:
    """Progress of a sweep as JSON lines appended to the file ``$BANDITS_PROGRESS`` (set by
    ``tools/pmrun.py``, which ``make quick`` / ``make figures`` run papermill under and which shows them
    in the terminal). Only the calling process writes (results come back to it from loky or dask
    workers), one line per event: ``start`` (sweep name, runs, cached), ``run`` (a computed run
    finished; ``failed``: the divergence it recorded), ``warning`` (a cache file recomputed, a
    divergence), ``end``. Without the variable nothing is written; a write error silences the channel."""

    def __init__(self, path: str, desc: str):
        self.path, self.desc = path, desc

    @classmethod
    def open(cls, desc: str):
        path = os.environ.get("BANDITS_PROGRESS")
        return cls(path, desc) if path else None

    def _emit(self, **event) -> None:
        if self.path is None:
            return
        try:
            with open(self.path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(dict(event, sweep=self.desc, pid=os.getpid())) + "\n")
        except OSError:
            self.path = None

    def start(self, stats: "SweepStats") -> None:
        self._emit(ev="start", total=stats.total, cached=stats.cached, todo=stats.computed)

    def run_done(self, failed=None) -> None:
        self._emit(ev="run", failed=failed)
        if failed:
            self.warn(f"a run diverged and is recorded as failed: {failed}")

    def warn(self, message: str) -> None:
        self._emit(ev="warning", message=message)

    def close(self) -> None:
        self._emit(ev="end")


def _sweep_dask(tasks, todo, seed, fn, n_jobs, address, done) -> None:
    """Submit the missing runs to a dask cluster; hand each result to ``done`` as it arrives."""
    from dask.distributed import as_completed

    client = _dask_client(n_jobs, address)
    try:
        expected = worker_identity()
        check_workers(client, expected)
        futures = {}
        for i in todo:
            cfg, rep = tasks[i]
            f = client.submit(_worker, cfg, seed, rep, fn, expected, pure=False,
                              key=f"bandits-run-{run_key(cfg, seed, rep, fn)}-{i}")
            futures[f] = i
        try:
            for f in as_completed(list(futures)):
                done(futures[f], f.result())
        finally:
            client.cancel(list(futures))
    finally:
        if getattr(client, "_bandits_owned", False):
            client.close()
            cluster = getattr(client, "_bandits_cluster", None)
            if cluster is not None:
                cluster.close()


def _dask_client(n_jobs: int, address: str | None = None):
    """A client of the cluster at ``address``, else the current client, else a local cluster with
    ``n_jobs`` single-threaded worker processes. Local-cluster keywords are only ever passed when
    this function starts the cluster itself."""
    try:
        from dask.distributed import Client, get_client
    except ImportError as exc:  # pragma: no cover
        raise ImportError("backend='dask' needs dask.distributed: pip install 'dask[distributed]'") from exc
    if address:
        try:
            client = Client(address, timeout="30s")
        except OSError as exc:
            raise OSError(f"could not reach the dask scheduler at {address!r} (parameter 'scheduler' or "
                          f"DASK_SCHEDULER_ADDRESS): {exc}") from exc
        client._bandits_owned = True
        return client
    try:
        client = get_client()
        if client.status != "running":  # e.g. left behind by a cluster that has since gone away
            raise ValueError(f"current dask client is {client.status}")
        return client
    except ValueError:
        from dask.distributed import LocalCluster

        workers = os.cpu_count() if n_jobs == -1 else n_jobs
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
        client._bandits_owned, client._bandits_cluster = True, cluster
        return client


def _version(pkg: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(pkg)
    except PackageNotFoundError:
        return None


def git_commit(root: str | os.PathLike | None = None) -> dict:
    root = Path(root) if root else Path(__file__).resolve().parent.parent
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                             timeout=10).stdout.strip() or None
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                                    capture_output=True, text=True, timeout=10).stdout.strip())
    except (OSError, subprocess.SubprocessError):
        sha, dirty = None, None
    return {"commit": sha, "dirty": dirty}


def provenance(parameters: dict, seed: int, extra: dict | None = None) -> dict:
    """Parameters, seed, git commit, the versions of python, numpy, scipy and torch, and the arithmetic
    path (:func:`arithmetic_path`)."""
    out = {
        "parameters": parameters,
        "seed": int(seed),
        "git": git_commit(),
        "bandits_version": __version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "arithmetic": arithmetic_path(),
        "versions": {p: _version(p) for p in ("numpy", "scipy", "torch", "pandas", "matplotlib", "joblib")},
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    if extra:
        out.update(extra)
    return json.loads(_canonical(out))
