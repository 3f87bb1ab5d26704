"""Benchmarks (``make bench``): per-step cost of kernel UCB as t grows, CPU and GPU side by side.

* exact KernelUCB on a finite candidate set (:class:`CandidatePosterior`, O(t·M) per round);
* exact KernelUCB on fresh contexts (:class:`ExactGP`, Cholesky append, O(t²) per round), a whole
  loop to T = 1000;
* **OneKernelUCB's step at t = 10⁴ with K = 20 fresh arms** (:func:`bench_one_kernel_ucb_step`):
  the factor of t points is built directly at t ∈ {1250, 2500, 5000, 10000}, then a few UCB steps
  (posterior of the 20 arms, argmax, append) are timed; the fitted exponent is the log–log slope
  and the whole-run estimate sums the fitted power law over t = 1..T. On the CPU (numpy, one BLAS
  thread) and, when torch sees a GPU, with ``device="cuda"`` (:class:`TorchExactGP`); the GPU
  column is "n/a" otherwise. Before the blocked level-3 path (``ExactGP``) a T = 10⁴ run took
  about 17 minutes on the 2-core reference machine (README);
* Nyström KernelUCB (ApproxDisKernelUCB with one agent: Sherman–Morrison between dictionary
  rebuilds, O(M·m) per round);
* one run of each Figure-1 algorithm at the paper's size (N = 10, T = 50, M = 2000);
* Async-KernelUCB's step on f1 (N = 100, T = 2000), the server merge eager (the m × m aggregate formed at
  every exchange, as the merge did before it became lazy) against lazy (the default), CPU ms per step
  (:func:`bench_async_exchange`);
* the coming papers' entries (:data:`EXTRA_BENCHMARKS`: Coop-KernelUCB ms per agent-round, FN-UCB
  ms per iteration), filled by :func:`register_benchmark` from their modules;
* ``floor``: each heavy engine against its floor (:class:`Work`, :func:`machine_rates`,
  :data:`FLOOR_ENGINES`): the arithmetic a reduced but representative run must do, counted from its
  sizes, the machine's rates for that kind of work measured in the same run, and the engine's CPU time
  as a ratio to the floor; ``--write`` puts the table in docs/running.md.

Command line: ``python -m bandits.bench --help``; ``--list``; benchmarks selected by name or part of a
name (``python -m bandits.bench floor coop``); ``make bench BENCH_ARGS='floor --write'``. Results are
printed and written to ``results/bench/bench.json``. Timings are wall-clock on this machine unless an
entry says CPU time (the floor and the Coop/FN-UCB entries: the reference machine is shared).
"""
from __future__ import annotations

import json
import time

import numpy as np

from .algorithms import get_algorithm
from .algorithms.kernel_ucb import KernelUCBAgent
from .comm import CommLedger
from .envs import make_env
from .experiments.common import loglog_slope, repo_root
from .kernels import RBF
from .sim import run_regret
from .validation import check, rule


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


def _exact_gp_at(t, K, d, lam, device, rng):
    """An exact GP (``device="cpu"``: :class:`ExactGP`, else :class:`TorchExactGP`) holding t
    random points, its factor computed in one Cholesky (what t appends would give, to round-off)."""
    from .estimators import ExactGP, TorchExactGP
    from .kernels import RBF

    k = RBF.from_gamma(1.0)
    X = rng.normal(size=(t, d)) / np.sqrt(d)
    y = rng.normal(size=t)
    gp = ExactGP(k, lam, d, capacity=t + 16) if device == "cpu" else \
        TorchExactGP(k, lam, d, capacity=t + 16, device=device)
    Kx = k(X)
    Kx[np.diag_indices(t)] += lam
    if device == "cpu":
        gp._L[:t, :t] = np.linalg.cholesky(Kx)
    else:
        import torch

        gp._Lt[:t, :t] = torch.linalg.cholesky(torch.as_tensor(Kx, dtype=torch.float64, device=gp._dev))
    del Kx
    gp._X[:t], gp._y[:t], gp._n = X, y, t
    gp._alpha[:t] = gp._solve_vec(y)  # α = L⁻¹ y
    if device != "cpu":
        import torch

        gp._alpha_t[:t] = torch.as_tensor(gp._alpha[:t], dtype=torch.float64, device=gp._dev)
    return gp, k


def bench_one_kernel_ucb_step(ts=(1250, 2500, 5000, 10000), K=20, d=20, steps=5, device="cpu", T=10000, seed=0):
    """Seconds per OneKernelUCB step (posterior of K fresh arms, UCB argmax, append) at each t.

    Returns ``{"per_step_s": {t: s}, "exponent": slope, "run_estimate_s": Σ_{t≤T} c·t^slope}``."""
    rng = np.random.default_rng(seed)
    out = {}
    for t in ts:
        gp, _ = _exact_gp_at(t, K, d, 1.0, device, rng)
        times = []
        for s in range(steps + 1):
            A = rng.normal(size=(K, d)) / np.sqrt(d)
            t0 = time.perf_counter()
            mu, var = gp.predict(A)
            i = int(np.argmax(mu + np.sqrt(var)))
            gp.add(A[i], rng.normal())
            if device == "cuda":
                import torch

                torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
        out[t] = float(np.median(times[1:]))  # the first step warms caches / kernels
        del gp
    slope = loglog_slope(list(out), list(out.values()))
    t_max = max(out)
    c = out[t_max] / t_max**slope
    run = float(c * np.sum(np.arange(1, T + 1, dtype=float) ** slope))
    return {"per_step_s": out, "exponent": slope, "run_estimate_s": run}


# Coming papers' entries: name -> {"fn": callable(device) -> seconds per unit, or None until the
# owning module provides it, "unit": str, "owner": str}. Register with register_benchmark.
EXTRA_BENCHMARKS: dict[str, dict] = {
    "coop_kernel_ucb": {"fn": None, "unit": "ms per agent-round", "owner": "Coop-KernelUCB (V = 200)"},
    "fn_ucb": {"fn": None, "unit": "ms per iteration", "owner": "FN-UCB (T = 5000)"},
}


def register_benchmark(name: str, fn, unit: str, owner: str = "") -> None:
    """Add or fill an entry of :data:`EXTRA_BENCHMARKS`: ``fn(device)`` with ``device`` "cpu" or
    "cuda" returns the cost in ``unit`` (milliseconds per agent-round, per iteration, ...)."""
    check("fn", fn, rule(callable, "callable"))
    EXTRA_BENCHMARKS[name] = {"fn": fn, "unit": unit, "owner": owner or name}


def bench_coop_kernel_ucb(device: str = "cpu", row: str = "linear", T: int | None = None, V: int = 200,
                          seed: int = 0, features: str = "rff", r_limit: int | None = 4) -> float:
    """Milliseconds of **process CPU time** per agent-round of Eager-KernelUCB (primal path) on
    ER(200, 0.7) (γ = 1, ``|N_γ(v)|`` ≈ 141), 8 arms, d = 10, one BLAS thread: linear row ``T = 30``,
    ``r_max = r_limit = 10``; RBF row ``T = 12``, 128 random features, ``r_max = r_limit = 4``;
    ``K̂_z`` by MMD every 10 rounds (the sizes of the engine's first measurements); ``features="nystroem"``:
    the RBF row of the figure, 32 Nyström landmarks, ``T = 30``; ``r_limit=None`` (with
    ``features="nystroem"``): the RBF row at the ranks of the figure (no cap: the rank
    raised until every agent keeps ≥ 95 % of its own variance), ``T = 40``: the first rounds, where the
    MMD estimate from a few samples is noisy and the safeguard asks for ranks up to ≈ 90, dominate it
    (measured: 3.4 ms uncapped against 0.31 ms with the cap of 4; over whole T = 1000 runs
    Eager took 0.56 ms (ER) and 0.65 ms (as-733) of CPU per agent-round uncapped). CPU time rather than
    wall-clock because the 2-core reference machine is shared; the numpy engine has no GPU path
    (``device="cuda"`` gives NaN). Targets: ≤ 1 ms (linear), ≤ 5 ms (RBF)."""
    if device != "cpu":
        return float("nan")
    from .algorithms.coop_kernel_ucb import EagerKernelUCB

    env = make_env({"kind": "coop", "setup": row, "graph": "er", "V": V, "p": 0.7, "graph_seed": seed}, seed)
    if row == "linear":
        T = 30 if T is None else T
        prm = dict(kernel={"name": "linear"}, eta=1.0, sigma_z=1.0, r_max=10, r_limit=10)
    elif features == "nystroem":
        T = (30 if r_limit is not None else 40) if T is None else T
        prm = dict(kernel=env.kernel_x, eta=0.1, sigma_z=1.0, r_max=4, r_limit=r_limit, features="nystroem",
                   n_features=32, n_embed=128)
    else:
        T = 12 if T is None else T
        prm = dict(kernel=env.kernel_x, eta=0.1, sigma_z=0.5, r_max=4, r_limit=4, n_features=128, n_embed=128)
    pol = EagerKernelUCB(env.V, T, env.dim, np.random.SeedSequence(seed), CommLedger(env.V, T),
                         network=env.network, kz_every=10, R=0.1, **prm)
    t0 = time.process_time()
    run_regret(pol, env, T, env.V, np.random.default_rng(seed + 1), np.random.default_rng(seed + 2))
    return 1e3 * (time.process_time() - t0) / (env.V * T)


register_benchmark("coop_kernel_ucb", bench_coop_kernel_ucb, "ms per agent-round",
                   "Coop-KernelUCB: Eager, V = 200, linear row (CPU time)")
register_benchmark("coop_kernel_ucb_rbf", lambda device: bench_coop_kernel_ucb(device, row="rbf"),
                   "ms per agent-round", "Coop-KernelUCB: Eager, V = 200, RBF row, D = 128 (CPU time)")
register_benchmark("coop_kernel_ucb_rbf_nystroem",
                   lambda device: bench_coop_kernel_ucb(device, row="rbf", features="nystroem"),
                   "ms per agent-round", "Coop-KernelUCB: Eager, V = 200, RBF row, 32 Nyström landmarks, rank of "
                   "K̂_z capped at 4 (the ablation; CPU time)")
register_benchmark("coop_kernel_ucb_rbf_uncapped",
                   lambda device: bench_coop_kernel_ucb(device, row="rbf", features="nystroem", r_limit=None),
                   "ms per agent-round", "Coop-KernelUCB: Eager, V = 200, RBF row as in Figure 1: "
                   "32 Nyström landmarks, no rank cap (the ≥ 95 % own-variance safeguard), T = 40 (CPU time)")


def bench_fn_ucb(device: str = "cpu", N: int = 2, T: int = 5000, seed: int = 0, detail: bool = False, **kw):
    """Milliseconds per iteration of one FN-UCB run at the official code's settings: the
    cosine function (the code's sampler and fixed ``a``), d = 10, K = 4, N agents, m = 20, λ = ν = 0.1,
    every-round communication (D = 0), Less Comm., training 30 steps per round until t = 2000, T = 5000,
    one thread (BLAS and torch); other FN-UCB keywords through ``kw`` (e.g. ``nn_mode``, ``nn_dtype``).

    On the CPU the number is **process CPU time** per iteration (the 2-core reference machine is
    shared, so wall-clock is inflated by other jobs); with ``device="cuda"`` (network and training
    on the GPU, linear algebra on the CPU) it is wall-clock. Target: ≤ 10 ms on one CPU
    thread; the official code takes about 65 ms. ``detail=True`` returns a dict with CPU and wall
    time per iteration over the whole run and over the training (t < 2000) and later phases."""
    import torch

    from .algorithms.fn_ucb import FNUCB

    if device == "cuda" and not torch.cuda.is_available():
        return float("nan")
    env = make_env({"kind": "fn_synthetic", "function": "cosine", "sampler": "cube_normalized", "a": "official"}, seed)
    params = dict(lam=0.1, nu_a=0.1, nu_b=0.1, D=0.0, width=20, device=device, **kw)
    pol = FNUCB(N, T, env.dim, np.random.SeedSequence(seed), CommLedger(N, T), **params)
    agents = np.arange(N)
    rng_e, rng_n = np.random.default_rng(seed + 1), np.random.default_rng(seed + 2)
    cut = min(T, pol.stop_train_after)
    marks = []
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for t in range(T):
            if t in (0, cut):
                marks.append((time.process_time(), time.perf_counter()))
            _, arms, means = env.round(t, N, rng_e)
            c = pol.select(t, agents, arms)
            pol.update(t, agents, arms, c, env.rewards(means[agents, c], rng_n))
        if device == "cuda":
            torch.cuda.synchronize()
        marks.append((time.process_time(), time.perf_counter()))
    finally:
        torch.set_num_threads(threads)
    (c0, w0), (c1, w1) = marks[0], marks[-1]
    per = (w1 - w0 if device == "cuda" else c1 - c0) * 1e3 / T
    if not detail:
        return per
    out = {"ms_per_iteration": per, "cpu_ms": (c1 - c0) * 1e3 / T, "wall_ms": (w1 - w0) * 1e3 / T, "N": N, "T": T}
    if len(marks) == 3 and cut < T:
        (ca, wa) = marks[1]
        out.update(train_phase_cpu_ms=(ca - c0) * 1e3 / cut, train_phase_wall_ms=(wa - w0) * 1e3 / cut,
                   after_cpu_ms=(c1 - ca) * 1e3 / (T - cut), after_wall_ms=(w1 - wa) * 1e3 / (T - cut))
    return out


register_benchmark("fn_ucb", bench_fn_ucb, "ms per iteration",
                   "FN-UCB: cosine, N = 2, m = 20, D = 0, T = 5000 (CPU time; GPU: wall)")
register_benchmark("fn_ucb_N5", lambda device: bench_fn_ucb(device, N=5), "ms per iteration",
                   "FN-UCB: as fn_ucb with N = 5")
register_benchmark("fn_ucb_N10", lambda device: bench_fn_ucb(device, N=10), "ms per iteration",
                   "FN-UCB: as fn_ucb with N = 10")


def _gpu_available() -> bool:
    try:
        import torch

        return bool(torch.cuda.is_available())
    except ImportError:  # pragma: no cover
        return False


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


def bench_async_exchange(T=2000, N=100, gamma=1.0, seed=0):
    """Async-KernelUCB on f1 (N clients, γ_k = ``gamma``, α = λ = D = q = 1), CPU ms per step, old and new
    server merge side by side: ``"eager"`` forms the m × m aggregate Ã_k at every exchange (Eq. 5, as
    before the merge became lazy: a subclass that reads ``A`` after each exchange), ``"lazy"``
    only when read (the default: the cached factor is updated from the new features alone). Both runs
    make the same choices (``tests/test_async_kernel_ucb.py``); returns ``{"eager": ms, "lazy": ms,
    "dict_size": |S|, "exchanges": B}``."""
    from .algorithms.async_kernel_ucb import AsyncKernelUCB

    class _Eager(AsyncKernelUCB):
        def _exchange(self, t, i):
            super()._exchange(t, i)
            self.A  # noqa: B018 (forms Ã_k now, as the eager merge did)

    env = make_env({"name": "f1", "kind": "contextual", "K": 20, "noise_std": 0.1, "schedule": "uniform"}, 0)
    out = {}
    for name, cls in (("eager", _Eager), ("lazy", AsyncKernelUCB)):
        led = CommLedger(N, T)
        pol = cls(N, T, env.dim, np.random.SeedSequence(seed), led, kernel={"name": "rbf", "gamma": gamma},
                  lam=1.0, alpha=1.0, D=1.0, q=1.0)
        t0 = time.process_time()
        run_regret(pol, env, T, N, np.random.default_rng(seed), np.random.default_rng(seed + 1))
        out[name] = 1e3 * (time.process_time() - t0) / T
        out["dict_size"], out["exchanges"] = pol.dic.m, pol.k
    return out


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


from .floor import (  # noqa: F401  (the floor's names, re-exported for the command line and the tests)
    FLOOR_END,
    FLOOR_ENGINES,
    FLOOR_INTRO,
    FLOOR_START,
    SMALL_MAX,
    Work,
    _best_rate,
    _call_overheads,
    _f1_env,
    _fmt_work,
    _fn_policy,
    _record_coop,
    _run_threads1,
    _timed,
    approx_dis_work,
    async_work,
    coop_work,
    floor_approx_dis,
    floor_async,
    floor_coop,
    floor_fn_ucb,
    floor_fn_ucb_shuttle,
    floor_markdown,
    floor_neural,
    floor_one_kernel,
    floor_table,
    full_mode_sums,
    machine_rates,
    neural_work,
    one_kernel_work,
    write_floor_section)


def cpu_identity() -> dict:
    """The processor, from ``/proc/cpuinfo`` where there is one: its model name, family and model numbers
    (one name covers several generations: "AMD EPYC" is a Zen 3 or a Zen 4, which take different times
    for the same run), clock (MHz as read, not the boost), the widest vector extension and the cores."""
    import os
    import platform

    info = {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            first = f.read().split("\n\n", 1)[0]
    except OSError:
        return info
    kv = dict((k.strip(), v.strip()) for k, _, v in (ln.partition(":") for ln in first.splitlines()) if _)
    info["cpu"] = kv.get("model name", info["cpu"])
    for key, name in (("cpu family", "family"), ("model", "model")):
        if kv.get(key, "").isdigit():
            info[name] = int(kv[key])
    try:
        info["mhz"] = round(float(kv["cpu MHz"]))
    except (KeyError, ValueError):
        pass
    flags = set(kv.get("flags", "").split())
    info["isa"] = next((f for f in ("avx512f", "avx2", "avx", "sse4_2") if f in flags), None)
    return info


def cpu_words(ident: dict) -> str:
    """``AMD EPYC (family 25, model 1, avx2, 2 cores)`` from :func:`cpu_identity`'s record."""
    inner = [f"family {ident['family']}, model {ident['model']}"] if "family" in ident and "model" in ident else []
    inner += [ident["isa"]] if ident.get("isa") else []
    return f"{ident['cpu']} ({', '.join(inner + [str(ident['cores']) + ' cores'])})"


_MACHINE: dict = {}


def machine_record(min_s: float = 0.03) -> dict:
    """Where a folder's run times were taken: :func:`cpu_identity`, its words (``kind``, :func:`cpu_words`,
    which figures/TIMES.md prints) and the machine's rates, measured now (:func:`bandits.floor.machine_rates`
    in short batches, about 2 s once per process: small- and large-matrix GEMM in GFLOP/s, memory bandwidth in
    GB/s, a tiny network's step in µs). The notebooks write it into ``provenance.json`` (``machine``), so that
    times recorded on different machines are told apart."""
    if not _MACHINE:
        r = machine_rates(min_s)
        ident = cpu_identity()
        _MACHINE.update(ident, kind=cpu_words(ident), rates={
            "gemm_small_gflops": round(r["gemm_small_flops"] / 1e9, 1),
            "gemm_big_gflops": round(r["gemm_big_flops"] / 1e9, 1),
            "bandwidth_gbs": round(r["bandwidth_bytes"] / 1e9, 1),
            "call_numpy_us": round(r["call_numpy_s"] * 1e6, 1),
            "call_torch_us": round(r["call_torch_s"] * 1e6, 1)})
    return dict(_MACHINE)


def _machine(gpu: bool) -> dict:
    """Where the numbers were taken: a bench result means nothing without its machine."""
    import platform

    import torch

    ident = cpu_identity()
    return {"cpu": ident["cpu"], "cores": ident["cores"], "python": platform.python_version(), "numpy": np.__version__,
            "torch": torch.__version__, "gpu": torch.cuda.get_device_name(0) if gpu else None,
            **{k: ident[k] for k in ("family", "model", "mhz", "isa") if k in ident}}


def _fmt_ms(v):
    return "n/a" if v is None else f"{1e3 * v:.2f} ms"


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------
def _run_exact_candidates(out, gpu):
    ex = bench_exact_candidates()
    out["exact_candidates_M2000"] = {"per_round_s": ex, "exponent": loglog_slope(list(ex), list(ex.values()))}
    _print_curve("exact_candidates_M2000", out["exact_candidates_M2000"])


def _run_exact_contextual(out, gpu):
    cx = bench_exact_contextual()
    out["exact_contextual_K20"] = {"per_round_s": cx, "exponent": loglog_slope(list(cx), list(cx.values()))}
    _print_curve("exact_contextual_K20", out["exact_contextual_K20"])


def _print_curve(k, v):
    pts = ", ".join(f"t={t}: {1e3 * s:.2f} ms" for t, s in v["per_round_s"].items())
    print(f"{k:24s} exponent {v['exponent']:.2f} | {pts}")


def _run_one_kernel_step(out, gpu):
    one = {"cpu": bench_one_kernel_ucb_step(device="cpu"),
           "gpu": bench_one_kernel_ucb_step(device="cuda") if gpu else None}
    out["one_kernel_ucb_step_K20"] = one
    print("\nOneKernelUCB step, K = 20 fresh arms, d = 20 (posterior + argmax + append):")
    print(f"  {'':22s} {'CPU (numpy, 1 thread)':>24s} {'GPU (torch, cuda)':>20s}")
    for t in one["cpu"]["per_step_s"]:
        g = one["gpu"]["per_step_s"].get(t) if one["gpu"] else None
        print(f"  {'t = ' + str(t):22s} {_fmt_ms(one['cpu']['per_step_s'][t]):>24s} {_fmt_ms(g):>20s}")
    ge = f"{one['gpu']['exponent']:.2f}" if one["gpu"] else "n/a"
    print(f"  {'fitted exponent':22s} {one['cpu']['exponent']:>24.2f} {ge:>20s}")
    gr = f"{one['gpu']['run_estimate_s'] / 60:.1f} min" if one["gpu"] else "n/a"
    print(f"  {'T = 10^4 run (fit)':22s} {one['cpu']['run_estimate_s'] / 60:>20.1f} min {gr:>20s}"
          "   (before the level-3 path: about 17 min on the 2-core reference machine)")


def _run_nystrom(out, gpu):
    ny, sizes = bench_nystrom()
    out["nystrom_M2000"] = {"per_round_s": ny, "exponent": loglog_slope(list(ny), list(ny.values())),
                            "dictionary_sizes": sizes}
    _print_curve("nystrom_M2000", out["nystrom_M2000"])
    print("Nyström dictionary sizes at syncs:", sizes[-5:])


def _run_fig1(out, gpu):
    out["fig1_one_run_s"] = bench_fig1()
    print("one Figure-1 run (N=10, T=50, M=2000):")
    for k, s in out["fig1_one_run_s"].items():
        print(f"  {k:28s} {s:.2f} s")


def _run_async_exchange(out, gpu):
    ax = out["async_exchange_f1"] = bench_async_exchange()
    print(f"\nAsync-KernelUCB on f1 (N = 100, T = 2000, |S| = {ax['dict_size']}, {ax['exchanges']} exchanges), CPU per "
          f"step: server merge eager {ax['eager']:.2f} ms | lazy (default) {ax['lazy']:.2f} ms")


def _extra_runner(name):
    def run(out, gpu):
        e = EXTRA_BENCHMARKS[name]
        if e["fn"] is None:
            r = {"unit": e["unit"], "cpu": None, "gpu": None, "status": "pending: not yet in the package"}
            print(f"  {name:22s} {e['unit']:20s} {r['status']}")
        else:
            r = {"unit": e["unit"], "cpu": float(e["fn"]("cpu")), "gpu": float(e["fn"]("cuda")) if gpu else None,
                 "status": "measured"}
            g = ("n/a" if r["gpu"] is None else "n/a (numpy engine, no GPU path)" if not np.isfinite(r["gpu"])
                 else f"{r['gpu']:.3g}")
            print(f"  {name:22s} {e['unit']:20s} CPU {r['cpu']:.3g} | GPU {g}")
        out.setdefault("extra", {})[name] = r
    return run


def _run_floor(out, gpu, engines=None, write=False):
    res = floor_table(engines)
    res["rates"]["machine"] = (f"{cpu_words(out['machine'])}, numpy "
                               f"{out['machine']['numpy']}, torch {out['machine']['torch']}")
    out["floor"] = {"rates": res["rates"], "rows": res["rows"]}
    print("\nThe engines against their floor (one thread, CPU time):")
    print(floor_markdown(res))
    if write:
        print("written", write_floor_section(res))


def benchmarks() -> dict:
    """name -> (description, runner(out, gpu)), in the order ``python -m bandits.bench`` runs them."""
    b = {
        "exact_candidates": ("exact KernelUCB on M = 2000 candidates, ms per round as t grows", _run_exact_candidates),
        "exact_contextual": ("exact KernelUCB on K = 20 fresh contexts (ExactGP), ms per round to T = 1000",
                             _run_exact_contextual),
        "one_kernel_ucb_step": ("OneKernelUCB's step at t up to 10^4, CPU and GPU, the whole-run estimate",
                                _run_one_kernel_step),
        "nystrom": ("Nyström KernelUCB (Approx-DisKernelUCB, one agent), ms per round", _run_nystrom),
        "fig1": ("one run of each DUETS Figure-1 algorithm (N = 10, T = 50, M = 2000)", _run_fig1),
        "async_exchange": ("Async-KernelUCB's step on f1, server merge eager against lazy", _run_async_exchange),
    }
    for name, e in EXTRA_BENCHMARKS.items():
        b[name] = (f"{e['owner']} ({e['unit']})", _extra_runner(name))
    b["floor"] = ("each heavy engine against its floor: counted work, measured rates, ratio "
                  f"(engines: {', '.join(FLOOR_ENGINES)}); --write puts the table in docs/running.md", _run_floor)
    return b


def select(names, table: dict) -> list[str]:
    """The benchmarks ``names`` select: an exact name, else every name containing it (case-insensitive);
    an unknown one is an error naming the choices."""
    chosen = []
    for n in names:
        hits = [n] if n in table else [k for k in table if n.lower() in k.lower()]
        if not hits:
            raise SystemExit(f"bandits.bench: nothing matches {n!r}; the choices: {', '.join(table)}")
        chosen += [h for h in hits if h not in chosen]
    return chosen


def parse_args(argv=None):
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m bandits.bench",
        description="Benchmarks of the package's engines (one BLAS thread). Without a name every benchmark "
                    "runs; results are printed and written to results/bench/bench.json.",
        epilog="examples: python -m bandits.bench --list | python -m bandits.bench floor --write | "
               "python -m bandits.bench floor --engine OneKernelUCB | python -m bandits.bench coop fn_ucb "
               "| make bench BENCH_ARGS='floor --write'")
    ap.add_argument("names", nargs="*", help="benchmarks to run: a name from --list, or a part of names "
                                              "(e.g. 'coop' selects every coop_kernel_ucb* entry)")
    ap.add_argument("--list", action="store_true", help="list the benchmarks and exit")
    ap.add_argument("--engine", action="append", default=None, metavar="ENGINE",
                    help=f"with floor: only these engines (a name or part of one: {', '.join(FLOOR_ENGINES)}); "
                         "repeatable")
    ap.add_argument("--write", action="store_true",
                    help="with floor: write the table into docs/running.md (between its floor-table markers)")
    ap.add_argument("--out", default=None, help="the JSON file (default results/bench/bench.json)")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    from pathlib import Path

    from threadpoolctl import threadpool_limits

    args = parse_args(argv)
    table = benchmarks()
    if args.list:
        width = max(map(len, table))
        for k, (desc, _) in table.items():
            print(f"{k:{width}s}  {desc}")
        return 0
    chosen = select(args.names, table) if args.names else list(table)
    if (args.engine or args.write) and "floor" not in chosen:
        raise SystemExit("bandits.bench: --engine and --write go with the benchmark 'floor'")
    gpu = _gpu_available()
    out = {"gpu": gpu, "machine": _machine(gpu), "benchmarks": chosen}
    m = out["machine"]
    print(f"machine: {cpu_words(m)}, numpy {m['numpy']}, torch {m['torch']}, GPU {m['gpu'] or 'none'}")
    with threadpool_limits(1):
        for name in chosen:
            run = table[name][1]
            if name == "floor":
                run(out, gpu, engines=args.engine, write=args.write)
            else:
                run(out, gpu)
    path = Path(args.out) if args.out else repo_root() / "results" / "bench" / "bench.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2, default=str))
    print("written", path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
