"""bandits.bench at toy sizes: structure and the registry of coming papers' entries (no timing checks)."""
import pytest

from bandits import bench


def test_one_kernel_ucb_step_bench_structure():
    r = bench.bench_one_kernel_ucb_step(ts=(30, 60), K=5, d=3, steps=2, T=100)
    assert set(r) == {"per_step_s", "exponent", "run_estimate_s"}
    assert list(r["per_step_s"]) == [30, 60] and all(v > 0 for v in r["per_step_s"].values())
    assert r["run_estimate_s"] > 0


def test_exact_gp_built_directly_equals_appends():
    import numpy as np

    from bandits.estimators import ExactGP

    gp, k = bench._exact_gp_at(25, 4, 3, 1.0, "cpu", np.random.default_rng(0))
    ref = ExactGP(k, 1.0, 3)
    ref.add(gp.X, gp.y)
    np.testing.assert_allclose(gp.L, ref.L, atol=1e-10)
    Xq = np.random.default_rng(1).normal(size=(4, 3))
    for a, b in zip(gp.predict(Xq), ref.predict(Xq)):
        np.testing.assert_allclose(a, b, atol=1e-10)


def test_register_benchmark():
    assert {"coop_kernel_ucb", "fn_ucb"} <= set(bench.EXTRA_BENCHMARKS)
    with pytest.raises(ValueError, match="parameter 'fn' must be callable"):
        bench.register_benchmark("x", None, "ms")
    old = dict(bench.EXTRA_BENCHMARKS)
    try:
        bench.register_benchmark("fn_ucb", lambda device: 1.0, "ms per iteration", "FN-UCB")
        assert bench.EXTRA_BENCHMARKS["fn_ucb"]["fn"]("cpu") == 1.0
    finally:
        bench.EXTRA_BENCHMARKS.clear()
        bench.EXTRA_BENCHMARKS.update(old)


def test_coop_rbf_uncapped_entry_registered_and_runs_at_toy_size():
    """make bench reports Eager's ms per agent-round on the RBF row at the uncapped ranks."""
    import math

    e = bench.EXTRA_BENCHMARKS["coop_kernel_ucb_rbf_uncapped"]
    assert e["unit"] == "ms per agent-round" and callable(e["fn"])
    ms = bench.bench_coop_kernel_ucb("cpu", row="rbf", features="nystroem", r_limit=None, T=3, V=12)
    assert math.isfinite(ms) and ms > 0
