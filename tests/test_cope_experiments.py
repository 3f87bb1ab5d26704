"""CoPE-KB through the runner: seeding across workers, the pipeline on a tiny grid, errors."""
import numpy as np
import pytest

from bandits.experiments import cope_kb as ex
from bandits.experiments.common import ParameterError
from bandits.runner import run_cell, sweep


def _tiny():
    return ex.cope_params("quick", deltas=[0.4, 0.8], fc_runs=2, alba_runs=1, budgets=[7000, 30000],
                          fb_runs=3, fc_methods=["CoKernelFC", "IndRAGE", "IndALBA"],
                          fb_methods=["CoKernelFB", "IndPeaceFB", "IndUniformFB"])


def test_same_sample_counts_with_one_and_two_workers():
    tasks, _ = ex.fc_tasks(_tiny())
    r1, _ = sweep(tasks, 4, n_jobs=1, backend="serial", progress=False)
    r2, _ = sweep(tasks, 4, n_jobs=2, backend="loky", progress=False)
    for a, b in zip(r1, r2):
        np.testing.assert_array_equal(a["arrays"]["samples"], b["arrays"]["samples"])
        np.testing.assert_array_equal(a["arrays"]["recommended"], b["arrays"]["recommended"])


def test_pipeline_and_claims_on_a_tiny_grid(tmp_path):
    p = _tiny()
    fc = ex.run_fc(p, seed=0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    fb = ex.run_fb(p, seed=0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    assert fc.all_correct.all()  # easy gaps: every agent's best arm is found
    s = ex.fc_summary(fc, p["V"])
    assert {"IndRAGE/V", "CoKernelFC"} <= set(s.method)
    ids = [c.id for c in ex.fc_claims(fc, p) + ex.fb_claims(fb, p)]
    assert "fig2a-matches-V-speedup" in ids and "fig3-lowest-error-rank1" in ids
    assert len(ex.plot_fig2(fc, p).axes) == 3 and len(ex.plot_fig3(fb, p).axes) == 3
    # FB never spends more than the budget
    assert (fb.S <= fb["T"] + 1e-9).all()


def test_parameters_are_validated_by_name():
    with pytest.raises(ParameterError, match="constants"):
        ex.cope_params("quick", constants="loose")
    with pytest.raises(ParameterError, match="deltas"):
        ex.cope_params("quick", deltas=[1.5])
    with pytest.raises(ParameterError, match="cases"):
        ex.cope_params("quick", cases=[7])
    with pytest.raises(ValueError, match="unknown pure-exploration algorithm"):
        run_cell({"loop": "pure_exploration", "instance": {"rank": 1, "delta_min": 0.5}, "algorithm": "LUCB"}, 0, 0)
