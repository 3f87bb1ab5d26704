"""Benchmarks (``make bench``): per-round cost of kernel UCB as t grows, and DUETS Figure 1.

* exact KernelUCB on a finite candidate set (:class:`CandidatePosterior`, O(t·M) per round);
* exact KernelUCB on fresh contexts (:class:`ExactGP`, Cholesky append, O(t²) per round);
* Nyström KernelUCB (ApproxDisKernelUCB with one agent: Sherman–Morrison between dictionary
  rebuilds, O(M·m) per round);
* one run of each Figure-1 algorithm at the paper's size (N = 10, T = 50, M = 2000).

The fitted exponent is the log–log slope of the per-round time against t. Results are printed and
written to ``results/bench/bench.json``. Timings are wall-clock on this machine, one BLAS thread.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from .algorithms import get_algorithm
from .algorithms.kernel_ucb import KernelUCBAgent
from .comm import CommLedger
from .envs import make_env
from .experiments.common import loglog_slope, repo_root
from .kernels import RBF
from .sim import run_regret


def _per_round(step, T, checkpoints):
    times, out = [], {}
    for t in range(T):
        t0 = time.perf_counter()
        step(t)
        times.append(time.perf_counter() - t0)
        if t + 1 in checkpoints:
            w = times[max(0, t + 1 - 50): t + 1]
            out[t + 1] = float(np.mean(w))
    return out


def bench_exact_candidates(T=2000, M=2000, d=10, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(M, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    f = np.cos(3 * X @ X[0])
    ids = np.arange(M)
    ag = KernelUCBAgent(RBF(1.0), 0.2, 1.0, d, rng)

    def step(t):
        i = ag.choose(X, ids)
        ag.observe(X, ids, i, f[i] + 0.2 * rng.standard_normal())
    return _per_round(step, T, {125, 250, 500, 1000, 2000})


def bench_exact_contextual(T=1000, K=20, d=20, seed=0):
    rng = np.random.default_rng(seed)
    ag = KernelUCBAgent(RBF(1.0), 0.2, 1.0, d, rng)

    def step(t):
        A = rng.normal(size=(K, d)) / np.sqrt(d)
        i = ag.choose(A, None)
        ag.observe(A, None, i, float(np.cos(3 * A[i, 0])) + 0.2 * rng.standard_normal())
    return _per_round(step, T, {125, 250, 500, 1000})


def bench_nystrom(T=2000, M=2000, seed=0):
    env = make_env({"name": "h1", "M": M}, 0)
    led = CommLedger(1, T)
    pol = get_algorithm("ApproxDisKernelUCB")(1, T, env.dim, np.random.SeedSequence(seed), led,
                                              kernel={"name": "rbf", "lengthscale": 1.0}, lam=0.2,
                                              beta=1.0, D=20.0, qbar=0.5)
    rng_e, rng_n = np.random.default_rng(1), np.random.default_rng(2)
    agents = np.array([0])

    def step(t):
        _, arms, means = env.round(t, 1, rng_e)
        c = pol.select(t, agents, arms)
        pol.update(t, agents, arms, c, env.rewards(means[c], rng_n))
    out = _per_round(step, T, {125, 250, 500, 1000, 2000})
    return out, pol.dict_sizes


def bench_fig1(M=2000):
    rows = {}
    for fn, ell in (("h1", 1.0), ("branin", 0.2)):
        env = make_env({"name": fn, "M": M}, 0)
        for alg, extra in (("DUETS", {}), ("DisKernelUCB", {"D": 10.0}),
                           ("ApproxDisKernelUCB", {"D": 20.0, "qbar": 4.0}), ("N-KernelUCB", {})):
            led = CommLedger(10, 50)
            pol = get_algorithm(alg)(10, 50, env.dim, np.random.SeedSequence(0), led,
                                     kernel={"name": "rbf", "lengthscale": ell}, lam=0.2, beta=0.5, **extra)
            t0 = time.perf_counter()
            run_regret(pol, env, 50, 10, np.random.default_rng(0), np.random.default_rng(1))
            rows[f"{fn}/{alg}"] = time.perf_counter() - t0
    return rows


def main():
    from threadpoolctl import threadpool_limits

    out = {}
    with threadpool_limits(1):
        ex = bench_exact_candidates()
        out["exact_candidates_M2000"] = {"per_round_s": ex, "exponent": loglog_slope(list(ex), list(ex.values()))}
        cx = bench_exact_contextual()
        out["exact_contextual_K20"] = {"per_round_s": cx, "exponent": loglog_slope(list(cx), list(cx.values()))}
        ny, sizes = bench_nystrom()
        out["nystrom_M2000"] = {"per_round_s": ny, "exponent": loglog_slope(list(ny), list(ny.values())),
                                "dictionary_sizes": sizes}
        out["fig1_one_run_s"] = bench_fig1()
    for k in ("exact_candidates_M2000", "exact_contextual_K20", "nystrom_M2000"):
        v = out[k]
        pts = ", ".join(f"t={t}: {1e3 * s:.2f} ms" for t, s in v["per_round_s"].items())
        print(f"{k:24s} exponent {v['exponent']:.2f} | {pts}")
    print("Nyström dictionary sizes at syncs:", out["nystrom_M2000"]["dictionary_sizes"][-5:])
    print("one Figure-1 run (N=10, T=50, M=2000):")
    for k, s in out["fig1_one_run_s"].items():
        print(f"  {k:28s} {s:.2f} s")
    path = repo_root() / "results" / "bench"
    path.mkdir(parents=True, exist_ok=True)
    (path / "bench.json").write_text(json.dumps(out, indent=2))
    print("written", path / "bench.json")


if __name__ == "__main__":
    main()
