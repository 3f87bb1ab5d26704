"""FN-UCB experiment module (bandits/experiments/fn_ucb.py): parameters and task construction (no runs)."""
from __future__ import annotations

import pytest

from bandits.experiments import fn_ucb as ex
from bandits.experiments.common import ParameterError


def test_modes_and_validation():
    q, f = ex.fn_params("quick"), ex.fn_params("full")
    assert (q["T"], q["n_runs"], q["Ns"]) == (1000, 2, [1, 2, 5])
    assert (f["T"], f["n_runs"], f["Ns"]) == (5000, 3, [1, 2, 5, 10])
    for bad, word in (({"figures": ["7"]}, "figures"), ({"Ns": [0]}, "Ns"), ({"D_cosine": [-1.0]}, "D_cosine"),
                      ({"T": 0}, "T"), ({"device": "tpu"}, "device"), ({"colour": 1}, "colour")):
        with pytest.raises(ParameterError, match=word):
            ex.fn_params("quick", **bad)


def test_tasks_shared_runs_computed_once():
    p = ex.fn_params("quick", figures=["1a", "1d", "2a", "5"])
    tasks, where = ex.fn_tasks(p)
    keys = {(str(c), r) for c, r in tasks}
    assert len(keys) == len(tasks)  # distinct
    assert len(where) > len(tasks)  # 1d's "every round" N=5 run is 1a's; Fig. 5's full run is 2a's N=5
    labels = {c.label for c, _, _ in where}
    assert {"FN-UCB (N=5) [official]", "NeuralTS [official]", "FN-UCB (N=5, D=2.5)"} <= labels
    off = [c for c, _, _ in where if c.official]
    assert off and all(dict(c.params).get("nn_mode", "official_shared") == "official_shared" for c in off
                       if c.algorithm == "FN-UCB")
    cfg = off[0].config(p)
    assert cfg["env"].get("sampler") == "cube_normalized" or cfg["env"].get("official_streams")


def test_paper_hyperparameters():
    p = ex.fn_params("full")
    by = {(c.figure, c.label): dict(c.params) for c in ex.curves(p)}
    assert by[("1a", "FN-UCB (N=2)")]["lam"] == 0.1 and by[("1a", "FN-UCB (N=2)")]["nu_b"] == 0.1
    assert by[("2a", "FN-UCB (N=2)")]["lam"] == 10.0 and by[("2a", "FN-UCB (N=2)")]["nu_b"] == 0.01
    assert by[("2c", "FN-UCB (N=2, diag)")]["width"] == 50 and by[("2c", "FN-UCB (N=2, diag)")]["diag"]
    assert by[("4", "LinearUCB (ν=0.01)")] == {"lam": 1.0, "nu": 0.01}
