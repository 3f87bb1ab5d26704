"""glibc's allocator settings that docs/running.md offers as an opt-in (``MALLOC_MMAP_MAX_=0``,
``MALLOC_TRIM_THRESHOLD_``: fewer page faults, a higher peak) change where a run's arrays live, not their
values: the same cells give the same arrays to the bit with and without them (BLAS kernels may depend on
alignment, so this is checked, not assumed). glibc reads them when a process starts, so each side runs in
its own interpreter; nothing in the package sets them."""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = textwrap.dedent('''
    import json, sys
    import numpy as np
    from bandits import runner
    cells = json.loads(sys.argv[1])
    out = {}
    for i, c in enumerate(cells):
        res = runner._worker(c, 0, 0)
        out.update({f"{i}_{k}": np.asarray(v) for k, v in res["arrays"].items()})
    np.savez(sys.argv[2], **out)
''')

F1 = {"name": "f1", "kind": "contextual", "K": 20, "noise_std": 0.1, "schedule": "uniform"}
ASYNC = {"kernel": {"name": "rbf", "gamma": 1.0}, "lam": 1.0, "alpha": 1.0, "D": 1.0, "q": 1.0}
# Async-KernelUCB past the size where its factor is updated (m > 128) and in the eigen basis, and
# Approx-DisKernelUCB: runs whose m × m temporaries the settings move from mmap to the heap
CELLS = [
    {"loop": "regret", "env": F1, "env_seed": 0, "algorithm": "AsyncKernelUCB", "params": ASYNC, "N": 10, "T": 400},
    {"loop": "regret", "env": F1, "env_seed": 1, "algorithm": "AsyncKernelUCB", "params": dict(ASYNC, basis="eig"),
     "N": 5, "T": 150},
    {"loop": "regret", "env": F1, "env_seed": 0, "algorithm": "ApproxDisKernelUCB",
     "params": {"kernel": {"name": "rbf", "gamma": 1.0}, "lam": 1.0, "D": 1.0, "qbar": 1.0}, "N": 10, "T": 200},
]
OPT_IN = {"MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": str(1 << 30)}


def _run(tmp_path, name: str, extra: dict):
    env = {k: v for k, v in os.environ.items() if k not in OPT_IN}
    env.update(extra, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    out = tmp_path / f"{name}.npz"
    p = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(CELLS), str(out)], env=env, cwd=ROOT,
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-2000:]
    return dict(np.load(out))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the variables are glibc's")
def test_same_arrays_to_the_bit_with_and_without_the_malloc_opt_in(tmp_path):
    on = _run(tmp_path, "on", OPT_IN)
    off = _run(tmp_path, "off", {})
    assert on.keys() == off.keys() and any(k.endswith("regret") for k in on)
    for k in on:
        assert np.array_equal(on[k], off[k]), k
