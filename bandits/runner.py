"""Runs, seeds, cache, sweeps and provenance (layer 8).

A run is a pure function of ``(config, seed, rep)``:

* ``config`` is a JSON-able dict: ``{"loop": "regret", "env": {...}, "env_seed": int,
  "algorithm": name, "params": {...}, "N": agents, "T": horizon}``, or for pure exploration
  ``{"loop": "pure_exploration", "instance": {...}, "algorithm": name, "params": {...}}``;
* the run's randomness is ``SeedSequence(seed, spawn_key=(rep,))`` (the ``rep``-th child of
  the master seed), split into an environment stream (arm sets, client schedule, noise) and
  the algorithm's seed. The environment stream does not depend on the algorithm, so every
  algorithm in a comparison sees the same arm sets and noise (common random numbers).

:func:`sweep` maps runs over a joblib backend (``serial``, ``loky``, ``threading`` or
``dask``), with a tqdm bar and an on-disk cache keyed by ``sha256(config, seed, rep, package
version, source fingerprint)`` (a code change invalidates cached runs): each finished run is written atomically by the worker that computed it, so an
interrupted sweep loses no finished run and a re-run recomputes only what is missing. A cache
file that cannot be read (truncated, corrupt) is reported and recomputed. Workers run with one
BLAS thread each, so the results do not depend on ``n_jobs``.
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

__all__ = ["run_cell", "run_key", "Cache", "sweep", "provenance", "BACKENDS", "CacheWarning",
           "run_seeds", "validate_backend"]

BACKENDS = ("serial", "loky", "threading", "dask")


class CacheWarning(UserWarning):
    """A cache entry could not be read and is being recomputed."""


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


def code_fingerprint() -> str:
    """sha256 of the package's source files: a code change invalidates cached runs, even
    within one version number (the cache must never return what the current code would not)."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        h = hashlib.sha256()
        root = Path(__file__).resolve().parent
        for p in sorted(root.rglob("*.py")):
            h.update(str(p.relative_to(root)).encode())
            h.update(p.read_bytes())
        _FINGERPRINT = h.hexdigest()[:16]
    return _FINGERPRINT


def run_key(config: dict, seed: int, rep: int, fn=None) -> str:
    """Cache key: hash of (config, seed, rep, package version, source fingerprint[, cell function])."""
    body = {"config": config, "seed": int(seed), "rep": int(rep), "version": __version__,
            "code": code_fingerprint()}
    if fn is not None and fn is not run_cell:
        body["fn"] = f"{fn.__module__}.{fn.__qualname__}"
    payload = _canonical(body)
    return hashlib.sha256(payload.encode()).hexdigest()[:32]


def run_seeds(seed: int, rep: int):
    """``(env_stream_seq, algorithm_seq)`` for run ``rep`` under master ``seed``."""
    run_ss = np.random.SeedSequence(int(seed), spawn_key=(int(rep),))
    env_ss, alg_ss = run_ss.spawn(2)
    return env_ss, alg_ss


def run_cell(config: dict, seed: int, rep: int) -> dict:
    """Run one cell and return ``{"arrays": {...}, "meta": {...}}`` (pure function)."""
    loop = config.get("loop", "regret")
    if loop == "pure_exploration":
        return _run_pure_exploration_cell(config, seed, rep)
    if loop != "regret":
        raise ValueError(f"unknown loop {loop!r}; allowed: regret, pure_exploration")
    from .algorithms import get_algorithm
    from .comm import CommLedger
    from .envs import make_env
    from .sim import run_regret

    N, T = int(config["N"]), int(config["T"])
    if N < 1 or T < 1:
        raise ValueError(f"N and T must be >= 1, got N={N}, T={T}")
    env = make_env(config["env"], config.get("env_seed", 0))
    env_ss, alg_ss = run_seeds(seed, rep)
    rng_env, rng_noise = (np.random.default_rng(s) for s in env_ss.spawn(2))
    ledger = CommLedger(N, T)
    policy = get_algorithm(config["algorithm"])(N, T, env.dim, alg_ss, ledger, **config.get("params", {}))
    trace = run_regret(policy, env, T, N, rng_env, rng_noise)
    arrays = {"regret": trace.regret, "comm_up": trace.comm_up, "comm_down": trace.comm_down,
              "n_active": trace.n_active}
    meta = {"info": trace.info, "wall_time": trace.wall_time, "fstar": getattr(env, "fstar", None),
            "comm_by_kind": ledger.by_kind(), "comm_rounds": ledger.rounds(), "n_agents": N}
    return {"arrays": arrays, "meta": json.loads(_canonical(meta))}


def _run_pure_exploration_cell(config: dict, seed: int, rep: int) -> dict:
    """A pure-exploration run: ``config = {"loop": "pure_exploration", "instance": {"rank",
    "delta_min", "V"}, "algorithm", "params", "max_rounds"}``."""
    from .algorithms import get_pe_algorithm
    from .comm import CommLedger
    from .envs.cope import cope_instance
    from .sim import run_pure_exploration

    inst = cope_instance(**config["instance"])
    max_rounds = int(config.get("max_rounds", 64))
    env_ss, alg_ss = run_seeds(seed, rep)
    ledger = CommLedger(inst.V, max_rounds)
    policy = get_pe_algorithm(config["algorithm"])(inst, alg_ss, ledger, **config.get("params", {}))
    tr = run_pure_exploration(policy, inst, np.random.default_rng(env_ss), max_rounds=max_rounds)
    arrays = {"samples": tr.samples, "recommended": tr.recommended, "correct": tr.correct}
    meta = {"info": tr.info, "wall_time": tr.wall_time, "rounds": tr.rounds,
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


def _worker(config, seed, rep, cache_dir, fn=None):
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        result = (fn or run_cell)(config, seed, rep)
    Cache(cache_dir).save(run_key(config, seed, rep, fn), result)
    return result


def validate_backend(backend: str, n_jobs: int) -> None:
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be a positive integer or -1, got {n_jobs!r}")


@dataclass
class SweepStats:
    total: int = 0
    cached: int = 0
    computed: int = 0


def sweep(tasks: list[tuple[dict, int]], seed: int, n_jobs: int = 1, backend: str = "loky",
          cache_dir: str | os.PathLike | None = None, progress: bool = True,
          desc: str = "runs", fn=None) -> tuple[list[dict], SweepStats]:
    """Run ``tasks`` (a list of ``(config, rep)``) and return their results in order.

    Cached runs are loaded; the others are computed with joblib (or in-process for
    ``backend="serial"`` / ``n_jobs=1``) and cached as they finish. ``fn`` replaces
    :func:`run_cell` by another pure, module-level ``(config, seed, rep) -> {"arrays", "meta"}``
    function (its name enters the cache key).
    """
    validate_backend(backend, n_jobs)
    cache = Cache(cache_dir)
    keys = [run_key(c, seed, r, fn) for c, r in tasks]
    results: list[dict | None] = [cache.load(k) for k in keys]
    todo = [i for i, r in enumerate(results) if r is None]
    stats = SweepStats(total=len(tasks), cached=len(tasks) - len(todo), computed=len(todo))
    if todo:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(todo), desc=desc, disable=not progress, leave=False)
        cdir = str(cache.dir) if cache.dir is not None else None
        if backend == "serial" or n_jobs == 1:
            for i in todo:
                results[i] = _worker(tasks[i][0], seed, tasks[i][1], cdir, fn)
                bar.update()
        else:
            from joblib import Parallel, delayed, parallel_config

            ctx = {"backend": backend}
            if backend == "loky":
                ctx["inner_max_num_threads"] = 1
            client = None
            if backend == "dask":
                client = _dask_client(n_jobs)
            try:
                with parallel_config(**ctx):
                    gen = Parallel(n_jobs=n_jobs, return_as="generator")(
                        delayed(_worker)(tasks[i][0], seed, tasks[i][1], cdir, fn) for i in todo)
                    for i, res in zip(todo, gen):
                        results[i] = res
                        bar.update()
            finally:
                if client is not None and getattr(client, "_bandits_owned", False):
                    client.close()
        bar.close()
    return results, stats


def _dask_client(n_jobs: int):
    """The current dask.distributed client, or a local cluster with ``n_jobs`` workers."""
    try:
        from dask.distributed import Client, get_client
    except ImportError as exc:  # pragma: no cover
        raise ImportError("backend='dask' needs dask.distributed: pip install 'dask[distributed]'") from exc
    try:
        return get_client()
    except ValueError:
        workers = os.cpu_count() if n_jobs == -1 else n_jobs
        client = Client(n_workers=workers, threads_per_worker=1, processes=True,
                        dashboard_address=None)
        client._bandits_owned = True
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
    """Parameters, seed, git commit and the versions of python, numpy, scipy and torch."""
    out = {
        "parameters": parameters,
        "seed": int(seed),
        "git": git_commit(),
        "bandits_version": __version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "versions": {p: _version(p) for p in ("numpy", "scipy", "torch", "pandas", "matplotlib", "joblib")},
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    if extra:
        out.update(extra)
    return json.loads(_canonical(out))
