"""The workers' malloc settings (:func:`bandits.runner.tune_malloc`) change where a run's arrays live, not
their values: the same cells give the same arrays to the bit with and without them. ``mallopt`` acts on
the whole process and cannot be undone, so each side runs in its own interpreter."""
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
    print(json.dumps({"tuned": runner.tune_malloc()}))
''')

F1 = {"name": "f1", "kind": "contextual", "K": 20, "noise_std": 0.1, "schedule": "uniform"}
ASYNC = {"kernel": {"name": "rbf", "gamma": 1.0}, "lam": 1.0, "alpha": 1.0, "D": 1.0, "q": 1.0}
# Async-KernelUCB past the size where its factor is updated (m > 128) and in the eigen basis, and
# Approx-DisKernelUCB: runs whose m × m temporaries the settings move from mmap to the heap
CELLS = [
    {"loop": "regret", "env": F1, "env_seed": 0, "algorithm": "AsyncKernelUCB", "params": ASYNC, "N": 20, "T": 700},
    {"loop": "regret", "env": F1, "env_seed": 1, "algorithm": "AsyncKernelUCB", "params": dict(ASYNC, basis="eig"),
     "N": 5, "T": 200},
    {"loop": "regret", "env": F1, "env_seed": 0, "algorithm": "ApproxDisKernelUCB",
     "params": {"kernel": {"name": "rbf", "gamma": 1.0}, "lam": 1.0, "D": 1.0, "qbar": 1.0}, "N": 10, "T": 300},
]


def _run(tmp_path, malloc: str):
    env = dict(os.environ, BANDITS_MALLOC=malloc, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    out = tmp_path / f"{malloc}.npz"
    p = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(CELLS), str(out)], env=env, cwd=ROOT,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    return json.loads(p.stdout.strip().splitlines()[-1])["tuned"], dict(np.load(out))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="mallopt is glibc's")
def test_same_arrays_to_the_bit_with_and_without_the_malloc_settings(tmp_path):
    tuned_on, on = _run(tmp_path, "on")
    tuned_off, off = _run(tmp_path, "off")
    assert tuned_on is True and tuned_off is False
    assert on.keys() == off.keys() and any(k.endswith("regret") for k in on)
    for k in on:
        assert np.array_equal(on[k], off[k]), k
