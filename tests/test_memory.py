"""Memory known before the work: a sweep estimates its runs' resident memory from their sizes and refuses,
before any run starts, a sweep that cannot fit at its n_jobs."""
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from bandits import memory as memory_module, runner
from bandits.algorithms.dis_kernel_ucb import ApproxDisKernelUCB
from bandits.runner import MemoryBudgetError, run_memory_bytes, run_sizes, sweep

CALLS = []


def counting_cell(config, seed, rep):
    """A cell that only records that it ran."""
    CALLS.append((config["N"], rep))
    return {"arrays": {"x": np.zeros(1)}, "meta": {"info": {}}}


def _approx(N, T, schedule="uniform", **params):
    return {"loop": "regret", "env": {"name": "f1", "kind": "contextual", "K": 20, "noise_std": 0.1, "schedule": schedule},
            "env_seed": 0, "algorithm": "ApproxDisKernelUCB", "N": N, "T": T,
            "params": dict({"kernel": {"name": "rbf", "gamma": 1.0}, "lam": 1.0, "D": 10.0, "qbar": 1.0}, **params)}


SMALL = {"loop": "regret", "env": {"name": "f1", "kind": "contextual", "K": 4}, "algorithm": "N-LinUCB", "N": 2, "T": 10,
         "params": {}}


def test_sizes_from_the_config():
    s = run_sizes(_approx(1000, 10_000))
    assert (s["N"], s["T"], s["points"], s["dim"], s["M"]) == (1000, 10_000, 10_000, 20, None)
    assert run_sizes(_approx(10, 100, schedule="sync"))["points"] == 1000  # every agent at every step
    fin = run_sizes({"algorithm": "ApproxDisKernelUCB", "N": 5, "T": 50, "env": {"name": "h1", "M": 300}})
    assert fin["M"] == 300 and fin["points"] == 250  # a finite domain's default schedule: every agent
    arena = {"protocol": "async", "env": {"kind": "fn_classification", "dataset": "shuttle"}, "algorithm": "ApproxDisKernelUCB",
             "N": 1000, "T": 10_000, "params": {}}
    assert run_sizes(arena)["points"] == 10_000
    assert run_sizes({"loop": "pure_exploration", "algorithm": "CoKernelFC"}) is None


def test_estimate_grows_with_the_dictionary_bound_not_the_agents():
    assert run_memory_bytes(_approx(10, 5000)) == run_memory_bytes(_approx(1000, 5000))
    assert run_memory_bytes(_approx(10, 5000)) > 3 * run_memory_bytes(_approx(10, 2500)) - 2 * runner.WORKER_BASELINE_BYTES
    # an algorithm without an estimate: the worker's baseline and a small constant
    assert run_memory_bytes(SMALL) == runner.WORKER_BASELINE_BYTES + runner.SMALL_RUN_BYTES


def test_exact_gp_models():
    """OneKernelUCB's factor buffer (T rows to start, doubled) and N-KernelUCB's per-agent posteriors."""
    one = dict(_approx(1000, 10_000), algorithm="OneKernelUCB", params={})
    assert run_memory_bytes(one) - runner.WORKER_BASELINE_BYTES == 8 * (10_000**2 + 5_000**2)
    fin = {"algorithm": "N-KernelUCB", "N": 100, "T": 1000, "env": {"name": "h1", "M": 500}, "params": {}}
    # 100 agents, 1000 points each (every agent at every step): 1024 rows of 500 candidates, +50 % while growing
    assert run_memory_bytes(fin) - runner.WORKER_BASELINE_BYTES == 100 * 8 * 1536 * 500


def test_old_and_new_storage_at_the_arena_map_size():
    """Approx-DisKernelUCB at the arena map's largest size (N = 1000, T = 10⁴, one client per step): the dense
    inverse per agent it replaced is estimated at hundreds of GiB, the shared storage within 8 GiB."""
    kw = dict(points=10_000, M=None, K=7)
    new = ApproxDisKernelUCB.memory_bytes(1000, 10_000, 63, {}, **kw)
    old = ApproxDisKernelUCB.memory_bytes(1000, 10_000, 63, {}, storage="per_agent", **kw)
    assert new + runner.WORKER_BASELINE_BYTES < 8 * 2**30 < 100 * 2**30 < old


@pytest.fixture
def memory(monkeypatch):
    """The machine's available memory, set by the test; the check on (whatever the environment says)."""
    monkeypatch.delenv("BANDITS_MEMORY_CHECK", raising=False)
    CALLS.clear()

    def set_available(b):
        monkeypatch.setattr(memory_module, "_available_memory", lambda: int(b))
    return set_available


def test_sweep_that_cannot_fit_is_refused_before_any_run(memory, tmp_path):
    tasks = [(SMALL, 0), (_approx(1000, 10_000), 0), (SMALL, 1)]
    big = run_memory_bytes(tasks[1][0])
    memory(big // 2)
    with pytest.raises(MemoryBudgetError) as e:
        sweep(tasks, 0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False, fn=counting_cell,
              desc="the test sweep")
    msg = str(e.value)
    assert "ApproxDisKernelUCB N=1000 T=10000 env=f1 D=10.0 rep=0" in msg  # the run
    assert f"{big / 2**30:.1f} GiB" in msg and f"{big / 2 / 2**30:.1f} GiB available" in msg  # estimate, memory
    assert "alone does not fit" in msg and "N, T" in msg  # the parameter to change
    assert "the test sweep" in msg
    assert CALLS == [] and not any(tmp_path.iterdir())  # no run executed, no cache written


def test_n_jobs_decides_and_the_message_says_how_many_fit(memory, tmp_path):
    tasks = [(_approx(10, 3000), r) for r in range(3)]
    one = run_memory_bytes(tasks[0][0])
    memory(int(1.5 * one))
    with pytest.raises(MemoryBudgetError, match=r"n_jobs=2.*Lower n_jobs \(at most 1 of these runs fit at once\)"):
        sweep(tasks, 0, n_jobs=2, backend="loky", cache_dir=tmp_path, progress=False, fn=counting_cell)
    assert CALLS == [] and not any(tmp_path.iterdir())
    results, stats = sweep(tasks, 0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False, fn=counting_cell)
    assert stats.computed == 3 and len(CALLS) == 3
    # cached runs are not run again, so they need no memory: the same sweep at n_jobs=2 now passes
    memory(0)
    _, stats = sweep(tasks, 0, n_jobs=2, backend="loky", cache_dir=tmp_path, progress=False, fn=counting_cell)
    assert stats.cached == 3


def test_check_can_be_switched_off(memory, monkeypatch):
    memory(0)
    monkeypatch.setenv("BANDITS_MEMORY_CHECK", "off")
    sweep([(SMALL, 0)], 0, n_jobs=1, backend="serial", progress=False, fn=counting_cell)
    assert len(CALLS) == 1


def test_estimate_within_a_factor_two_of_a_measured_run():
    """One mid-size run whose dictionary reaches the bound (q̄ large: every point is sampled; the one sync
    near the end): the arrays' peak (tracemalloc, which numpy reports to) against the estimate without the
    worker's baseline."""
    cfg = _approx(1, 700, D=640.0, qbar=1e6)
    cfg["env"]["K"] = 2
    tracemalloc.start()
    try:
        res = runner.run_cell(cfg, 0, 0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    m = res["meta"]["info"]["dict_sizes"][-1]
    assert m > 600
    est = run_memory_bytes(cfg) - runner.WORKER_BASELINE_BYTES
    assert peak / 2 < est < 2 * peak, (est, peak)


# -- the storage models of the engines without their own estimate (bandits.memory.MEMORY_MODELS) -------------
def _peak_arrays(cfg):
    """The run's arrays at their peak (tracemalloc, to which numpy reports) and its result."""
    tracemalloc.start()
    try:
        res = runner.run_cell(cfg, 0, 0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, res


def _own_estimate(cfg):
    return run_memory_bytes(cfg) - runner.WORKER_BASELINE_BYTES


F1 = {"name": "f1", "kind": "contextual", "K": 20, "noise_std": 0.1, "schedule": "uniform"}
ASYNC = {"kernel": {"name": "rbf", "gamma": 1.0}, "lam": 1.0, "alpha": 1.0, "D": 1.0, "q": 1.0}


@pytest.mark.parametrize("N, T, params", [
    (10, 500, {"q": 1e6}),  # every point sampled: the dictionary reaches its bound, m ≈ T
    (40, 800, {"max_dict": 120}),  # the cap binds
])
def test_async_kernel_ucb_estimate_covers_a_measured_run(N, T, params):
    """Async-KernelUCB's model (every client's stale factor, the dictionary, the unmerged features) at a
    dictionary that reaches the bound the model assumes: at least the arrays' peak, at most twice it."""
    cfg = {"loop": "regret", "env": F1, "env_seed": 0, "algorithm": "AsyncKernelUCB", "params": dict(ASYNC, **params),
           "N": N, "T": T}
    peak, res = _peak_arrays(cfg)
    m = res["meta"]["info"]["dict_size"]
    bound = params.get("max_dict", T)
    assert m > 0.9 * bound
    est = _own_estimate(cfg)
    assert peak < est < 2 * peak, (est, peak, m)


def test_async_dictionary_is_estimated_from_the_data_not_bounded_by_every_observation():
    """Without a cap the model takes the dictionary estimated from the environment's contexts (Lemma 4.1's
    expected size), not every observation; a cap (``max_dict``) or q large enough that every point is
    sampled brings it to the bound."""
    from bandits.memory import async_dictionary_estimate, async_kernel_ucb_bytes

    cfg = {"loop": "regret", "env": F1, "env_seed": 0, "algorithm": "AsyncKernelUCB", "params": ASYNC, "N": 100,
           "T": 10_000}
    m = async_dictionary_estimate(cfg)
    assert 1000 < m < 5000  # f1 at γ = 1: the committed runs reached 2 805–2 897
    assert _own_estimate(cfg) == async_kernel_ucb_bytes(100, 10_000, 20, ASYNC, 10_000, None, m=m)
    assert async_dictionary_estimate(dict(cfg, params=dict(ASYNC, max_dict=500))) == 500
    assert async_dictionary_estimate(dict(cfg, params=dict(ASYNC, q=1e6))) == 10_000
    assert async_dictionary_estimate(dict(cfg, params=dict(ASYNC, q=0.5))) < m


# -- the committed full-mode sweeps, from their parameters, without running them --------------------------------
FIG = Path(__file__).resolve().parents[1] / "figures"
GiB = 2**30
#: the machine the full-mode figures are made on (24 GiB) and the Makefile's N_JOBS
MACHINE, N_JOBS = 24 * GiB, 2
#: what that machine has available to the runs (MemAvailable with nothing else running: 21.5 GiB, measured)
AVAILABLE = 21 * GiB


def _async_sweeps():
    """Every sweep of the Async-KernelUCB notebook in full mode, as the notebook builds it: the (γ, α) tuning
    grid, Figure 2 at the committed selection (``selected.csv``), the D table and the γ/q panel
    (their functions called with the sweep replaced by a recorder)."""
    import pandas as pd

    from bandits.experiments import async_kernelucb as ak

    p = ak.async_params("full")
    multi = [m for m in p["methods"] if len(ak._grid(m, p)) > 1]
    sweeps = {"Async tuning": ak.fig2_tasks(dict(p, methods=multi), p["tune_T"], range(100, 100 + p["tune_runs"]))[0]}
    sel = pd.read_csv(FIG / "async_kernelucb" / "selected.csv")
    selected = {(r.env, r.method): (None if pd.isna(r.gamma) else float(r.gamma), float(r.alpha))
                for r in sel.itertuples()}
    sweeps["Async Fig. 2"] = ak.fig2_tasks(p, p["T"], None, selected=selected)[0]
    res = ak.Fig2Results(p, None, None, sel, pd.read_csv(FIG / "async_kernelucb" / "tuning_grid.csv"))

    class Recorded(Exception):
        pass

    def recorder(tasks, *a, desc="", **k):
        sweeps[desc] = list(tasks)
        raise Recorded

    orig = ak.sweep
    ak.sweep = recorder
    try:
        for run in (ak.run_D_sensitivity, ak.run_gamma_sensitivity):
            with pytest.raises(Recorded):
                run(res, progress=False)
    finally:
        ak.sweep = orig
    return sweeps


def test_the_committed_full_mode_sweeps_are_not_refused_on_the_machine_they_ran_on():
    """The Async notebook's sweeps and the arena's map, at the Makefile's N_JOBS = 2 on a 24 GiB machine, with
    the memory it has available to the runs: accepted (they ran there: the largest, Async-KernelUCB's Figure 2
    on f2, at ≈ 6.5 GiB a run)."""
    from bandits.experiments.arena import map_params, map_tasks

    sweeps = _async_sweeps()
    assert {"Async tuning", "Async Fig. 2", "Async D sensitivity", "Async γ/q sensitivity"} <= set(sweeps)
    sweeps["arena map"] = map_tasks(map_params("full"))[0]
    for desc, tasks in sweeps.items():
        assert tasks, desc
        need = memory_module.check_memory(tasks, N_JOBS, desc, available=AVAILABLE)
        assert 0 < need <= AVAILABLE, desc


@pytest.mark.parametrize("N, gamma", [
    (1000, 1.0),  # Figure 2's f1 with 1 000 clients, each keeping a stale factor of the estimated m ≈ 3 100
    (100, 4.0),  # the setting the notebook keeps from the long runs: a kernel near the identity, m ≈ every point
])
def test_an_async_run_that_cannot_fit_is_refused_before_any_run(memory, tmp_path, N, gamma):
    """Async-KernelUCB runs that cannot fit in 24 GiB, in a sweep: refused before any run, naming the run,
    the estimate, the memory and the sizes to change (the dictionary cap among them)."""
    big = {"loop": "regret", "env": F1, "env_seed": 0, "algorithm": "AsyncKernelUCB", "N": N, "T": 10_000,
           "params": dict(ASYNC, kernel={"name": "rbf", "gamma": gamma})}
    memory(MACHINE)
    est = run_memory_bytes(big)
    assert est > 2 * MACHINE
    with pytest.raises(MemoryBudgetError) as e:
        sweep([(SMALL, 0), (big, 3)], 0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False,
              fn=counting_cell, desc="the big sweep")
    msg = str(e.value)
    assert f"AsyncKernelUCB N={N} T=10000 env=f1 D=1.0 rep=3" in msg and "24.0 GiB available" in msg
    assert f"{est / GiB:.1f} GiB" in msg and "alone does not fit" in msg and "max_dict" in msg
    assert CALLS == [] and not any(tmp_path.iterdir())


def test_the_estimate_is_cheap():
    """One environment and kernel: a sample of contexts and one eigendecomposition, then cached."""
    import time

    from bandits.memory import _SPECTRA, async_dictionary_estimate

    cfg = {"loop": "regret", "env": dict(F1, name="f2"), "env_seed": 0, "algorithm": "AsyncKernelUCB",
           "params": dict(ASYNC, kernel={"name": "rbf", "gamma": 0.5}), "N": 100, "T": 10_000}
    _SPECTRA.clear()
    t = time.process_time()
    async_dictionary_estimate(cfg)
    first = time.process_time() - t
    t = time.process_time()
    for rep in range(100):
        async_dictionary_estimate(dict(cfg, env_seed=rep))
    assert first < 1.0 and time.process_time() - t < first


def test_coop_estimate_covers_a_measured_run():
    """Eager-KernelUCB on the linear row (ER(0.7), V = 30, r ≤ 3 with ``truncation="own_residual"``): the
    model (histories, statistics ring, the factors' pools, a chunk's workspaces) at least the run's arrays'
    peak and within a factor four of it (the model counts the ring at the largest message lifetime, V/2).
    The environment is built before the tracing: its graph and data (31 MB traced here, most of it
    networkx's objects) are the worker baseline's allowance (``WORKER_BASELINE_BYTES``), not the
    algorithm's storage (measured: the run's own peak 3.09 MB above it, the model 3.44 MB)."""
    env = {"kind": "coop", "setup": "linear", "graph": "er", "V": 30, "p": 0.7, "K": 8, "d": 10, "noise_std": 0.1,
           "sampler": "bfs", "lang": "ENGB", "graph_seed": 0, "min_clusters": 2}
    cfg = {"loop": "regret", "env": env, "env_seed": 0, "algorithm": "Eager-KernelUCB", "N": 30, "T": 60,
           "params": {"kernel": {"name": "linear"}, "eta": 1.0, "sigma_z": 1.0, "r_max": 3, "lam": 1.0, "R": 0.1,
                      "kz_every": 10, "truncation": "own_residual"}}
    from bandits.envs import make_env

    built = make_env(env, 0)
    tracemalloc.start()
    try:
        kept, _ = tracemalloc.get_traced_memory()
        runner.run_regret_cell(cfg, 0, 0, make_env=lambda spec, seed: built)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    peak -= kept
    est = _own_estimate(cfg)
    assert peak < est < 4 * peak, (est, peak)


@pytest.mark.parametrize("algorithm, params", [
    ("FN-UCB", {"width": 60, "lam": 0.1, "nu_a": 0.1, "nu_b": 0.1, "device": "cpu"}),
    ("NeuralUCB", {"width": 100, "lam": 0.1, "nu": 0.1, "device": "cpu"}),
])
def test_neural_estimates_cover_a_measured_run(algorithm, params):
    """FN-UCB (full matrices: every agent's two p × p inverses) and NeuralUCB (one p0 × p0 inverse per agent)
    at widths where those matrices dominate: the numpy arrays' peak (torch's tensors are not traced, the
    model's torch allowance covers them) at most the estimate, and the estimate within a factor three."""
    pytest.importorskip("torch")
    cfg = {"loop": "regret", "env": {"kind": "fn_synthetic", "function": "cosine"}, "env_seed": 0,
           "algorithm": algorithm, "N": 3 if algorithm == "FN-UCB" else 1, "T": 150, "params": params}
    peak, _ = _peak_arrays(cfg)
    est = _own_estimate(cfg)
    assert peak < est < 3 * peak, (est, peak)
