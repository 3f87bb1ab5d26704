"""Memory known before the work: a sweep estimates its runs' resident memory from their sizes and refuses,
before any run starts, a sweep that cannot fit at its n_jobs."""
import tracemalloc

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


def test_async_kernel_ucb_estimate_is_the_worst_case_of_an_uncapped_dictionary():
    """Without a cap the model takes the largest dictionary (every observation), quadratic in it: a run whose
    dictionary is smaller is estimated above what it uses, never below."""
    small = {"loop": "regret", "env": F1, "env_seed": 0, "algorithm": "AsyncKernelUCB", "params": ASYNC, "N": 10, "T": 400}
    from bandits.memory import async_kernel_ucb_bytes

    assert _own_estimate(small) == async_kernel_ucb_bytes(10, 400, 20, ASYNC, 400, None, m=400)
    assert async_kernel_ucb_bytes(10, 400, 20, ASYNC, 400, None, m=200) < _own_estimate(small) / 3


@pytest.mark.xfail(strict=True, reason="open: the model misses arrays of a small Coop-type run (estimate 3.4 MB, "
                                       "measured peak 13.1 MB); its pool term dominates at larger sizes")
def test_coop_estimate_covers_a_measured_run():
    """Eager-KernelUCB on the linear row (ER(0.7), V = 30, r ≤ 3 with ``truncation="own_residual"``): the
    model (histories, statistics ring, the factors' pools, a chunk's workspaces) at least the arrays' peak
    and within a factor four of it (the model counts the ring at the largest message lifetime, V/2)."""
    env = {"kind": "coop", "setup": "linear", "graph": "er", "V": 30, "p": 0.7, "K": 8, "d": 10, "noise_std": 0.1,
           "sampler": "bfs", "lang": "ENGB", "graph_seed": 0, "min_clusters": 2}
    cfg = {"loop": "regret", "env": env, "env_seed": 0, "algorithm": "Eager-KernelUCB", "N": 30, "T": 60,
           "params": {"kernel": {"name": "linear"}, "eta": 1.0, "sigma_z": 1.0, "r_max": 3, "lam": 1.0, "R": 0.1,
                      "kz_every": 10, "truncation": "own_residual"}}
    peak, _ = _peak_arrays(cfg)
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
