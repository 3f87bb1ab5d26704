"""Async-KernelUCB Figure 2 through the runner on a tiny synthetic setting."""
import numpy as np
import pytest

from bandits.experiments import async_kernelucb as ex
from bandits.experiments.common import ParameterError


def test_fig2_pipeline_tiny(tmp_path):
    p = ex.async_params("quick", envs=["f1"], T=120, N=4, n_runs=1, device="cpu")
    res = ex.run_fig2(p, seed=0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    assert set(res.runs.method) == set(ex.METHODS)
    nk = res.runs[res.runs.method == "NKernelUCB"]
    assert (nk.C_T == 0).all()
    one = res.runs[res.runs.method == "OneKernelUCB"].iloc[0]
    assert one.C_T == pytest.approx(120 * (20 + 1) * 4)  # (d+1) up + (d+1)(N-1) down per step
    ids = [c.id for c in ex.fig2_claims(res)]
    assert ids == ["fig2-kernel-vs-linear-f1", "fig2-async-vs-approx-f1", "fig2-extremes-f1"]
    assert len(ex.plot_fig2(res).axes) == 2


def test_grid_selection_keeps_all_results(tmp_path):
    p = ex.async_params("quick", envs=["f1"], T=60, N=3, n_runs=1, gammas=[0.1, 1.0], alphas=[1.0],
                        methods=["Async-KernelUCB", "DisLinUCB"], device="cpu")
    res = ex.run_fig2(p, seed=0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    assert len(res.tuning) == 2 + 1  # two kernel widths for Async, one α for DisLinUCB
    assert set(res.selected.method) == {"Async-KernelUCB", "DisLinUCB"}


def test_parameters_are_validated_by_name():
    with pytest.raises(ParameterError, match="envs"):
        ex.async_params("quick", envs=["netflix"])
    with pytest.raises(ParameterError, match="gammas"):
        ex.async_params("quick", gammas=[-1.0])
    with pytest.raises(ParameterError, match="device"):
        ex.async_params("quick", device="tpu")


@pytest.mark.parametrize("name, dim", [("magic", 10), ("mushroom", 117), ("movielens", 20), ("yelp", 20)])
def test_dataset_environments(name, dim, monkeypatch):
    import os
    from pathlib import Path

    root = os.environ.get("BANDITS_DATA_DIR")
    if not root or not Path(root).is_dir():
        pytest.skip("BANDITS_DATA_DIR is not set to the shared data folder")
    from bandits.envs import make_env

    env = make_env({"name": name}, 0)
    agents, arms, means = env.round(0, 5, np.random.default_rng(0))
    assert len(agents) == 1  # one active client per step
    X = arms.for_agent(0)
    assert X.shape == (20, dim) and np.all((means >= 0) & (means <= 1))
    r = env.rewards(np.asarray(means).reshape(-1)[:1], np.random.default_rng(1))
    assert r[0] in (0.0, 1.0)
    if name in ("movielens", "yelp"):
        assert np.isclose(np.asarray(means).sum(), 1.0)  # exactly one positive arm


def test_threshold_sensitivity_tiny(tmp_path):
    p = ex.async_params("quick", envs=["f1"], T=80, N=3, n_runs=1, device="cpu",
                        methods=["Async-KernelUCB", "Approx-DisKernelUCB"])
    res = ex.run_fig2(p, seed=0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    s = ex.run_D_sensitivity(res, Ds=(0.1, "1/N^2"), n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    methods = set(s.loc["f1"].index)
    assert {"Async-KernelUCB (D=1)", "Async-KernelUCB (D=0.1)", "Async-KernelUCB (D=1/N^2)",
            "Approx-DisKernelUCB"} <= methods
    # a smaller threshold never communicates less
    assert s.loc[("f1", "Async-KernelUCB (D=1/N^2)"), "C_T"] >= s.loc[("f1", "Async-KernelUCB (D=1)"), "C_T"]
