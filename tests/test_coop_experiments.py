"""Tests for bandits/experiments/coop_kernelucb.py (Figure 1 of Coop-KernelUCB) on a tiny grid."""
from __future__ import annotations

import pytest

from bandits.experiments import coop_kernelucb as E
from bandits.experiments.common import ParameterError


def test_params_and_validation():
    q, f = E.fig1_params("quick"), E.fig1_params("full")
    assert f["V"] == 200 and f["T_linear"] == 1000 and f["n_runs"] >= 10 and f["graphs"] == list(E.GRAPHS)
    assert q["n_runs"] >= 3 and q["V"] < f["V"]
    with pytest.raises(ParameterError, match="graphs"):
        E.fig1_params("quick", graphs=["skitter"])
    with pytest.raises(ParameterError, match="V"):
        E.fig1_params("quick", V=0)


def test_tasks_cover_rows_graphs_methods_runs():
    p = E.fig1_params("quick", graphs=["er"], n_runs=2)
    tasks, labels = E.fig1_tasks(p)
    assert len(tasks) == 2 * 7 * 2
    cfg = tasks[0][0]
    assert cfg["env"]["kind"] == "coop" and cfg["env"]["graph_seed"] == p["graph_seed"]
    assert {lab["method"] for lab in labels if lab["row"] == "rbf"} >= {"IGP-UCB", "Naive Cooperation", E.ORACLE}
    assert len({c["env_seed"] for c, _ in tasks}) == 2  # fresh bandit per trial, same graph


def test_tiny_run_claims_and_plot(tmp_path):
    p = E.fig1_params("quick", V=8, T_linear=8, T_rbf=6, n_runs=3, graphs=["er"], n_features=8, n_embed=8)
    res = E.run_fig1(p, seed=0, n_jobs=1, backend="serial", cache_dir=str(tmp_path), progress=False)
    assert len(res.runs) == 2 * 7 * 3 and (res.runs.R_T >= 0).all()
    claims = E.fig1_claims(res)
    assert len(claims) == 2 * 4 and all(c.verdict in ("PASS", "FAIL", "INCONCLUSIVE") for c in claims)
    assert "γ = " in E.panel_title(res, "linear", "er")
    E.plot_fig1(res)
