"""Runner: pure runs, seeding across workers, the cache, and clear parameter errors."""
import numpy as np
import pytest

from bandits import runner
from bandits.experiments import duets as ex
from bandits.experiments import duets_claims, duets_plots
from bandits.experiments.common import ParameterError, validate_common
from bandits.experiments.duets_theory import theory_params
from bandits.runner import Cache, CacheWarning, run_cell, run_key, sweep

CFG = {"loop": "regret", "env": {"name": "branin", "M": 60}, "env_seed": 0, "algorithm": "DUETS",
       "params": {"kernel": {"name": "rbf", "lengthscale": 0.2}, "beta": 0.5}, "N": 3, "T": 12}


def _tasks():
    nk = dict(CFG, algorithm="N-KernelUCB", params={"kernel": {"name": "rbf", "lengthscale": 0.2}})
    return [(CFG, r) for r in range(3)] + [(nk, r) for r in range(3)]


def _same(a, b):
    for k in a["arrays"]:
        np.testing.assert_array_equal(a["arrays"][k], b["arrays"][k])


def test_run_is_a_pure_function_of_config_seed_rep():
    a, b = run_cell(CFG, 7, 1), run_cell(CFG, 7, 1)
    _same(a, b)
    c = run_cell(CFG, 7, 2)
    assert not np.array_equal(a["arrays"]["regret"], c["arrays"]["regret"])


def test_a_run_records_its_cpu_and_wall_time():
    meta = run_cell(CFG, 7, 1)["meta"]
    assert meta["cpu_time"] > 0 and meta["wall_time"] > 0
    assert runner.recorded_time(meta) == meta["cpu_time"]
    assert runner.recorded_time({"wall_time": 3.0}) == 3.0  # a run cached before the CPU time was recorded
    assert runner.recorded_time({"failed": "x", "wall_time": None, "cpu_time": None}) is None


def test_same_results_with_one_and_two_workers(tmp_path):
    r1, _ = sweep(_tasks(), 3, n_jobs=1, backend="serial", cache_dir=None, progress=False)
    r2, _ = sweep(_tasks(), 3, n_jobs=2, backend="loky", cache_dir=None, progress=False)
    for a, b in zip(r1, r2):
        _same(a, b)


def test_cached_runs_are_not_recomputed(tmp_path, monkeypatch):
    res, st = sweep(_tasks(), 0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    assert st.computed == 6 and len(list(tmp_path.glob("*.npz"))) == 6

    def boom(*a, **k):
        raise AssertionError("a cached run was recomputed")
    monkeypatch.setattr(runner, "run_cell", boom)
    res2, st2 = sweep(_tasks(), 0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    assert st2.cached == 6 and st2.computed == 0
    for a, b in zip(res, res2):
        _same(a, b)
        assert a["meta"] == b["meta"]


def test_a_changed_config_or_seed_is_a_new_run():
    assert run_key(CFG, 0, 0) != run_key(CFG, 1, 0) != run_key(CFG, 0, 1)
    other = dict(CFG, params=dict(CFG["params"], beta=1.0))
    assert run_key(other, 0, 0) != run_key(CFG, 0, 0)


def test_truncated_cache_file_is_detected_and_recomputed(tmp_path):
    res, _ = sweep(_tasks()[:1], 0, backend="serial", cache_dir=tmp_path, progress=False)
    f = next(tmp_path.glob("*.npz"))
    f.write_bytes(f.read_bytes()[: f.stat().st_size // 2])
    with pytest.warns(CacheWarning, match="unreadable"):
        res2, st = sweep(_tasks()[:1], 0, backend="serial", cache_dir=tmp_path, progress=False)
    assert st.computed == 1
    _same(res[0], res2[0])
    assert Cache(tmp_path).load(run_key(CFG, 0, 0)) is not None  # rewritten whole


def test_interrupted_sweep_keeps_finished_runs(tmp_path, monkeypatch):
    calls = {"n": 0}
    real = runner.run_cell

    def flaky(config, seed, rep):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(config, seed, rep)
    monkeypatch.setattr(runner, "run_cell", flaky)
    with pytest.raises(KeyboardInterrupt):
        sweep(_tasks(), 0, backend="serial", cache_dir=tmp_path, progress=False)
    assert len(list(tmp_path.glob("*.npz"))) == 2
    monkeypatch.setattr(runner, "run_cell", real)
    _, st = sweep(_tasks(), 0, backend="serial", cache_dir=tmp_path, progress=False)
    assert st.cached == 2 and st.computed == 4


@pytest.mark.parametrize("kw, word", [
    (dict(mode="fast"), "mode"), (dict(seed=-1), "seed"), (dict(n_jobs=0), "n_jobs"),
    (dict(backend="spark"), "backend"), (dict(out=""), "out")])
def test_notebook_parameters_are_validated_by_name(kw, word):
    base = dict(mode="quick", seed=0, n_jobs=1, backend="loky", out="x")
    with pytest.raises(ParameterError, match=word):
        validate_common(**dict(base, **kw))


def test_experiment_parameters_name_the_bad_one():
    with pytest.raises(ParameterError, match="parameter 'functions' must be a non-empty list drawn from"):
        ex.fig1_params("quick", functions=["rosenbrock"])
    with pytest.raises(ParameterError, match="'T'"):
        ex.fig1_params("quick", T=-5)
    with pytest.raises(ParameterError, match="betas"):
        ex.fig1_params("quick", betas=[0.0])
    with pytest.raises(ParameterError, match="unknown"):
        ex.fig1_params("quick", horizon=50)
    with pytest.raises(ParameterError, match="T_grid"):
        theory_params("quick", T_grid=[0])
    with pytest.raises(ValueError, match="backend"):
        sweep([], 0, backend="spark")
    with pytest.raises(ValueError, match="parameter 'name' must be one of \\['DUETS'"):
        run_cell(dict(CFG, algorithm="UCB9"), 0, 0)
    with pytest.raises(ValueError, match="allowed"):
        run_cell(dict(CFG, env={"name": "nope"}), 0, 0)


def test_fig1_paper_parameters():
    p = ex.fig1_params("full")
    # the paper's 5 runs for the claims, plus 2 that tune β
    assert (p["N"], p["T"], p["M"], p["n_runs"], p["tune_runs"], p["T1"], p["p0"]) == (10, 50, 2000, 7, 2, 2, 10.0)
    assert p["betas"] == [0.2, 0.5, 1.0, 2.0, 5.0] and (p["D_dis"], p["D_approx"]) == (10.0, 20.0)
    tasks, labels = ex.fig1_tasks(p)
    assert len(tasks) == 4 * len(p["methods"]) * 5 * 7


def test_fig1_pipeline_on_a_tiny_grid(tmp_path):
    p = ex.fig1_params("quick", functions=["branin"], n_runs=3, betas=[0.5], M=80, T=12,
                       methods=["DUETS", "DisKernelUCB", "N-KernelUCB"])
    res = ex.run_fig1(p, seed=0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    assert set(res.curves.columns) >= {"function", "method", "beta", "rep", "t", "regret", "comm_paper", "comm_code"}
    assert len(res.curves) == 3 * 3 * 12
    claims = duets_claims.fig1_claims(res)
    assert [c.id for c in claims] == ["fig1-regret-branin", "fig1-comm-branin", "fig1-comm-code-branin"]
    fig = duets_plots.plot_fig1(res)
    assert len(fig.axes) == 2


def test_dask_backend_gives_the_same_numbers():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None):
        r_dask, _ = sweep(_tasks(), 5, n_jobs=2, backend="dask", cache_dir=None, progress=False)
    r_serial, _ = sweep(_tasks(), 5, n_jobs=1, backend="serial", cache_dir=None, progress=False)
    for a, b in zip(r_dask, r_serial):
        _same(a, b)


def test_resolve_scheduler_validates_and_exports(monkeypatch):
    from bandits.runner import resolve_scheduler

    # setenv first so that monkeypatch restores the variable's absence after the test (a bare
    # delenv of an absent variable records nothing, and the export below would leak)
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "")
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS")
    assert resolve_scheduler(None) is None and resolve_scheduler("", "loky") is None
    import os

    assert resolve_scheduler("tcp://10.0.0.7:8786", export=False) == "tcp://10.0.0.7:8786"
    assert "DASK_SCHEDULER_ADDRESS" not in os.environ  # what sweep uses: validated, not exported
    assert resolve_scheduler("tcp://10.0.0.5:8786") == "tcp://10.0.0.5:8786"
    import os

    assert os.environ["DASK_SCHEDULER_ADDRESS"] == "tcp://10.0.0.5:8786"  # reaches sweeps not handed it
    assert resolve_scheduler(None) == "tcp://10.0.0.5:8786"
    assert resolve_scheduler(None, "loky") is None  # the variable only matters for backend="dask"
    assert resolve_scheduler("host:8786") == "host:8786"
    for bad in ("tcp://host", "http://host:8786", "host:port", ":8786", 8786):
        with pytest.raises(ValueError, match="scheduler"):
            resolve_scheduler(bad)
    with pytest.raises(ValueError, match="parameter 'backend' must be 'dask'.*scheduler address"):
        resolve_scheduler("tcp://h:1", "loky")


def test_workers_do_not_write_the_cache(tmp_path, monkeypatch):
    """The calling thread writes every run (remote workers may not see the cache folder)."""
    import threading

    saved = []
    real = Cache.save

    def spy(self, key, result):
        saved.append(threading.get_ident())
        real(self, key, result)
    monkeypatch.setattr(Cache, "save", spy)
    sweep(_tasks(), 0, n_jobs=2, backend="threading", cache_dir=tmp_path, progress=False)
    assert len(saved) == 6 and set(saved) == {threading.get_ident()}
    assert len(list(tmp_path.glob("*.npz"))) == 6


def test_on_divergence_record_returns_a_failed_run_and_raise_is_the_default(monkeypatch):
    import bandits.sim

    def diverge(*a, **k):
        raise FloatingPointError("scores are not finite at t=4")

    monkeypatch.setattr(bandits.sim, "run_regret", diverge)
    with pytest.raises(FloatingPointError, match="not finite"):
        run_cell(CFG, 0, 0)
    out = run_cell(dict(CFG, on_divergence="record"), 0, 0)
    assert out["meta"]["failed"].startswith("FloatingPointError: scores are not finite")
    assert out["arrays"]["regret"].shape == (CFG["T"],) and np.isnan(out["arrays"]["regret"]).all()
    with pytest.raises(ValueError, match="on_divergence"):
        run_cell(dict(CFG, on_divergence="ignore"), 0, 0)


def test_a_killed_worker_gives_a_message_naming_memory_and_the_runs_in_flight(tmp_path):
    import os
    import signal

    def killer(config, seed, rep):  # a closure: cloudpickle sends it by value to the loky workers
        if rep == 1:
            os.kill(os.getpid(), signal.SIGKILL)  # what the OS does to a process out of memory
        return {"arrays": {"regret": np.zeros(2)}, "meta": {}}

    tasks = [(dict(CFG, algorithm="Killer"), r) for r in range(4)]
    with pytest.raises(RuntimeError, match=r"(?s)killed.*no cache_dir.*out of memory.*lower n_jobs.*Killer.*rep=1"):
        sweep(tasks, 0, n_jobs=2, backend="loky", cache_dir=None, progress=False, fn=killer)
    with pytest.raises(RuntimeError, match=r"(?s)killed.*they are cached and a re-run starts from them"):
        sweep(tasks, 0, n_jobs=2, backend="loky", cache_dir=tmp_path, progress=False, fn=killer)


def test_the_cache_key_depends_on_the_arithmetic_path(monkeypatch):
    path = runner.arithmetic_path()
    assert path.startswith("numpy:") and "|openblas:" in path
    k = run_key(CFG, 0, 0)
    monkeypatch.setattr(runner, "_ARITH", path + "+other")
    assert run_key(CFG, 0, 0) != k


def test_code_fingerprint_ignores_docstrings_comments_and_figure_code(tmp_path):
    """A docstring, a comment, the layout or a figure edit keeps cached runs; a code edit does not."""
    import shutil
    from pathlib import Path

    import bandits
    from bandits import runner

    root = tmp_path / "bandits"
    shutil.copytree(Path(bandits.__file__).parent, root, ignore=shutil.ignore_patterns("__pycache__"))
    base = runner._fingerprint_tree(root)
    assert base == runner.code_fingerprint()
    mod = root / "kernels.py"
    src = mod.read_text()
    mod.write_text(src.replace('"""', '"""An edited docstring. ', 1) + "\n# a new comment\n\n")
    assert runner._fingerprint_tree(root) == base
    (root / "plotting.py").write_text((root / "plotting.py").read_text() + "\nX_FIGURE_ONLY = 1\n")
    assert runner._fingerprint_tree(root) == base
    mod.write_text(src + "\nX_CODE = 1\n")
    assert runner._fingerprint_tree(root) != base
    mod.write_text(src)
    (root / "sim.py").write_text((root / "sim.py").read_text().replace("def ", "def  ", 1))  # layout only
    assert runner._fingerprint_tree(root) == base
