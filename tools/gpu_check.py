"""The device check of the CUDA paths, as one short script for a lent GPU machine (the package
runs on a GPU where there is one). Not part of `make test` (CI has no GPU); run it where torch sees one:

    PYTHONPATH=. python3 tools/gpu_check.py [OUT_DIR]

1. ``tests/test_cuda.py``: the CUDA paths against their CPU references (TorchExactGP, per-sample gradients,
   training, same-seed determinism of FN-UCB and the neural baselines).
2. The notebooks' ``device`` parameter end to end: FN-UCB's quick Figure 1a (paper mode) through
   :func:`bandits.experiments.fn_ucb.run_fn` with ``device="auto"`` and with ``device="cpu"``, and
   Async-KernelUCB's OneKernelUCB on f1 (quick size) through :func:`run_fig2` both ways: same seeds, final
   regret side by side. Float64 on both devices, so they agree until round-off flips an argmax.
3. One full-size OneKernelUCB run (f1, T = 10⁴, N = 100, K = 20 fresh arms) on CUDA, timed: the figure's
   heaviest run.

Writes ``gpu_check.json`` and prints a summary; without a GPU it says so and exits 1.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _fn(device, cache):
    from bandits.experiments import fn_ucb as ex

    p = ex.fn_params("quick", figures=["1a"], official=False, device=device)
    t0 = time.perf_counter()
    res = ex.run_fn(p, seed=0, n_jobs=1, backend="serial", cache_dir=cache, progress=False)
    wall = time.perf_counter() - t0
    r = res.runs.sort_values(["label", "N", "rep"]).reset_index(drop=True)
    return p["device"], wall, r[["label", "N", "rep", "R_T"]]


def _async(device, cache, **over):
    from bandits.experiments import async_kernelucb as ex

    p = ex.async_params("quick", envs=["f1"], methods=["OneKernelUCB"], device=device, **over)
    t0 = time.perf_counter()
    res = ex.run_fig2(p, seed=0, n_jobs=1, backend="serial", cache_dir=cache, progress=False)
    wall = time.perf_counter() - t0
    r = res.runs.sort_values(["method", "rep"]).reset_index(drop=True)
    return p["device"], wall, r


def main(out: Path) -> int:
    import torch

    if not torch.cuda.is_available():
        print("no CUDA device: nothing to check")
        return 1
    out.mkdir(parents=True, exist_ok=True)
    report = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__}
    t0 = time.perf_counter()
    tests_rc = subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_cuda.py",
                          "tests/test_fn_experiments.py::test_device_auto_is_resolved_before_the_runs_are_keyed"])
    report["pytest"] = {"rc": tests_rc, "wall_s": round(time.perf_counter() - t0, 1)}
    with tempfile.TemporaryDirectory() as cache:
        dg, wg, rg = _fn("auto", cache)
        dc, wc, rc = _fn("cpu", cache)
        assert dg == "cuda" and dc == "cpu", (dg, dc)
        d = (rg.R_T - rc.R_T).abs()
        report["fn_ucb_quick_1a"] = {"runs": len(rg), "wall_s": {"cuda": round(wg, 1), "cpu": round(wc, 1)},
                                     "max_abs_diff_R_T": float(d.max()), "identical_runs": int((d < 1e-6).sum()),
                                     "mean_R_T": {"cuda": float(rg.R_T.mean()), "cpu": float(rc.R_T.mean())}}
        print("FN-UCB quick 1a:", report["fn_ucb_quick_1a"], flush=True)
        ag, wag, ra = _async("auto", cache)
        ac, wac, rb = _async("cpu", cache)
        assert ag == "cuda" and ac == "cpu", (ag, ac)
        d = (ra.R_T - rb.R_T).abs()
        report["async_one_kernel_ucb_quick_f1"] = {
            "runs": len(ra), "T": 1000, "N": 20, "wall_s": {"cuda": round(wag, 1), "cpu": round(wac, 1)},
            "max_abs_diff_R_T": float(d.max()), "mean_R_T": {"cuda": float(ra.R_T.mean()), "cpu": float(rb.R_T.mean())}}
        print("OneKernelUCB quick f1:", report["async_one_kernel_ucb_quick_f1"], flush=True)
        _, wfull, rf = _async("auto", cache, T=10000, N=100, n_runs=1)
        report["async_one_kernel_ucb_full_f1_cuda"] = {"T": 10000, "N": 100, "K": 20, "wall_s": round(wfull, 1),
                                                       "run_wall_time_s": float(rf.wall_time.iloc[0]),
                                                       "R_T": float(rf.R_T.iloc[0])}
        print("OneKernelUCB full f1 on CUDA:", report["async_one_kernel_ucb_full_f1_cuda"], flush=True)
    (out / "gpu_check.json").write_text(json.dumps(report, indent=1))
    return 0 if tests_rc == 0 else 1


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "gpu_check")))
