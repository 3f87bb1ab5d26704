"""A real dask.distributed cluster: a `dask scheduler` and two `dask worker` processes on 127.0.0.1.

Started with the venv's `dask` CLI on ephemeral ports (one thread per worker, no nanny, so killing
a worker's process kills the worker); everything is torn down by the fixture. Checks that
`sweep(..., backend="dask", scheduler=ADDRESS)` and `DASK_SCHEDULER_ADDRESS` reach the cluster,
that the numbers are bit-identical to a serial run, that the client alone writes the cache, that
killing one worker mid-sweep loses no run, and that a worker running other code is refused.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

distributed = pytest.importorskip("dask.distributed")

from bandits import runner  # noqa: E402
from bandits.runner import WorkerMismatchError, check_workers, sweep  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DASK = Path(sys.executable).with_name("dask")

ENV = {"name": "f1", "kind": "contextual", "K": 20, "noise_std": 0.1, "schedule": "uniform"}


def _tasks(n_cells=12, T=500):
    """Cells of a few tenths of a second each (OneKernelUCB on fresh contexts)."""
    out = []
    for i in range(n_cells):
        cfg = {"loop": "regret", "env": ENV, "env_seed": i % 3, "algorithm": "OneKernelUCB",
               "params": {"kernel": {"name": "rbf", "gamma": 1.0}, "lam": 1.0, "beta": 1.0 + 0.5 * (i // 3)},
               "N": 5, "T": T}
        out.append((cfg, i % 2))
    return out


def _same(a, b):
    assert set(a["arrays"]) == set(b["arrays"])
    for k in a["arrays"]:
        np.testing.assert_array_equal(a["arrays"][k], b["arrays"][k])
    strip = lambda m: {k: v for k, v in m.items() if k not in ("wall_time", "cpu_time")}  # noqa: E731
    assert strip(a["meta"]) == strip(b["meta"])


def _wait_for(pred, timeout, what):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if pred():
            return
        time.sleep(0.1)
    raise TimeoutError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if not DASK.exists():
        pytest.skip(f"no dask CLI next to {sys.executable}")
    tmp = tmp_path_factory.mktemp("dask")
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    env.pop("DASK_SCHEDULER_ADDRESS", None)
    procs = []

    def start(args, name):
        log = open(tmp / f"{name}.log", "wb")
        p = subprocess.Popen([str(DASK), *args], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        procs.append(p)
        return p

    sched_file = tmp / "scheduler.json"
    try:
        start(["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
               "--scheduler-file", str(sched_file)], "scheduler")
        _wait_for(lambda: sched_file.exists() and sched_file.stat().st_size > 0, 60, "the dask scheduler")
        address = json.loads(sched_file.read_text())["address"]
        workers = [start(["worker", address, "--nthreads", "1", "--nworkers", "1", "--no-nanny",
                          "--no-dashboard", "--host", "127.0.0.1", "--local-directory", str(tmp / f"w{k}"),
                          "--name", f"w{k}"], f"worker{k}") for k in range(2)]
        with distributed.Client(address, timeout="30s") as c:
            c.wait_for_workers(2, timeout=60)
        # the workers fingerprinted the source as they started; so does this process now (the
        # checkout may have been edited since this process first imported the package)
        runner._FINGERPRINT = None
        yield {"address": address, "workers": workers, "tmp": tmp}
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        shutil.rmtree(tmp, ignore_errors=True)


def test_sweep_on_a_remote_cluster_is_bit_identical_to_serial(cluster, tmp_path):
    tasks = _tasks(6, T=150)
    serial, _ = sweep(tasks, 11, n_jobs=1, backend="serial", progress=False)
    remote, st = sweep(tasks, 11, n_jobs=2, backend="dask", scheduler=cluster["address"],
                       cache_dir=tmp_path / "cache", progress=False)
    assert st.computed == 6
    for a, b in zip(serial, remote):
        _same(a, b)
    # the client wrote every run to its cache; a second sweep reads it back without the cluster
    assert len(list((tmp_path / "cache").glob("*.npz"))) == 6
    again, st2 = sweep(tasks, 11, n_jobs=1, backend="serial", cache_dir=tmp_path / "cache", progress=False)
    assert st2.cached == 6
    for a, b in zip(serial, again):
        _same(a, b)


def test_worker_identity_is_checked(cluster):
    with distributed.Client(cluster["address"], timeout="30s") as c:
        found = check_workers(c)
        assert len(found) >= 1 and all(v == runner.worker_identity() for v in found.values())
        with pytest.raises(WorkerMismatchError, match=r"dask worker .*client runs 0\.0\.0-other"):
            check_workers(c, {"version": "0.0.0-other", "code": "0" * 16})


def test_killing_a_worker_mid_sweep_loses_no_run(cluster, tmp_path, monkeypatch):
    """Through DASK_SCHEDULER_ADDRESS (no scheduler argument); this test runs last: it kills w0."""
    tasks = _tasks(12, T=500)
    cache = tmp_path / "cache"
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", cluster["address"])
    victim = cluster["workers"][0]
    killed, at_kill = threading.Event(), []

    def killer():
        try:
            _wait_for(lambda: cache.exists() and any(cache.glob("*.npz")), 60, "the first finished run")
        except TimeoutError:
            return
        victim.kill()
        at_kill.append(len(list(cache.glob("*.npz"))))
        killed.set()

    th = threading.Thread(target=killer, daemon=True)
    th.start()
    remote, st = sweep(tasks, 5, n_jobs=2, backend="dask", cache_dir=cache, progress=False)
    th.join(timeout=5)
    assert killed.is_set() and victim.poll() is not None
    assert at_kill[0] < len(tasks), "the worker was killed after the sweep had finished"
    assert st.computed == 12 and all(r is not None for r in remote)
    assert len(list(cache.glob("*.npz"))) == 12
    serial, _ = sweep(tasks, 5, n_jobs=1, backend="serial", progress=False)
    for a, b in zip(serial, remote):
        _same(a, b)
