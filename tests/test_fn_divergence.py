"""FN-UCB's UCI contexts: the paper's unit-norm rows (Assumption 1, Sec. 5.2) keep the code's training finite;
the official code's standardised rows (norms up to 32 on shuttle) make it diverge in the first iterations."""
import numpy as np
import pytest
import torch

from bandits.envs import make_env
from bandits.envs.fn_ucb import fn_classification_env, preprocess_features
from bandits.experiments import fn_ucb as ex
from bandits.neural import MLP, TrainConfig, train_full_batch
from bandits.runner import run_cell

# Fig. 2's real-data settings (Sec. 5.2: λ = 10, ν_TKN = 0.1, ν_TK = 0.01; Fig. 2c: diagonal, m = 50), on the
# bundled breast-cancer data (MAGIC-like, binary, d = 30; no data home needed)
FN_DIAG = {"algorithm": "FN-UCB", "N": 5,
           "params": {"lam": 10.0, "nu_a": 0.1, "nu_b": 0.01, "width": 50, "diag": True, "device": "cpu"}}
NUCB_DIAG = {"algorithm": "NeuralUCB [diag]", "N": 1,
             "params": {"lam": 10.0, "nu": 0.1, "width": 50, "device": "cpu"}}


def _cell(run, standardize, T=8):
    env = {"kind": "fn_classification", "dataset": "breast_cancer"}
    if standardize is not None:
        env["standardize"] = standardize
    return {"loop": "regret", "env": env, "env_seed": 0, "T": T, "on_divergence": "record", **run}


def test_default_contexts_have_unit_norm_and_the_code_s_do_not():
    env = make_env({"kind": "fn_classification", "dataset": "breast_cancer"})
    assert env.info["standardize"] is False
    np.testing.assert_allclose(np.linalg.norm(env.X, axis=1), 1.0)
    _, arms, _ = env.round(0, 3, np.random.default_rng(0))
    np.testing.assert_allclose(np.linalg.norm(arms.X, axis=-1), 1.0)  # every block context
    code = make_env({"kind": "fn_classification", "dataset": "breast_cancer", "standardize": True})
    assert np.linalg.norm(code.X, axis=1).max() > 20  # 27.2: the code's StandardScaler
    X = np.random.default_rng(1).normal(size=(20, 3))
    np.testing.assert_allclose(preprocess_features(X), X / np.linalg.norm(X, axis=1, keepdims=True))


@pytest.mark.parametrize("run, rep", [(FN_DIAG, 0), (NUCB_DIAG, 2)])
def test_standardised_rows_diverge_unit_norm_rows_do_not(run, rep):
    """The old divergence, small: the same run (rows, θ0) diverges at t < 8 on the code's standardised rows
    and stays finite on the paper's unit-norm rows."""
    old = run_cell(_cell(run, True), 0, rep)
    assert "not finite" in old["meta"]["failed"] and "unit norm" in old["meta"]["failed"]
    for r in range(3):
        new = run_cell(_cell(run, None), 0, r)
        assert not new["meta"].get("failed")
        assert np.isfinite(new["arrays"]["regret"]).all()


def test_the_curvature_grows_with_the_context_norm():
    """An agent's first training call (FN-UCB trains at t = 3 on its first four points): the code's network
    (N(0, 1) weights, m = 50), 30 full-batch steps of lr 0.01 on the mean loss with weight decay λ/n = 2.5.
    Four unit-norm points fit at every θ0; the same points with one of norm 9 (MAGIC's standardised rows
    reach 15.7, shuttle's 32) overflow at almost every θ0."""
    mlp = MLP(20, 50, 1, "official", device="cpu")
    X0 = np.random.default_rng(0).normal(size=(4, 20))
    X0 /= np.linalg.norm(X0, axis=1, keepdims=True)
    y = torch.tensor([0.0, 1.0, 0.0, 0.0], dtype=torch.float64)
    cfg = TrainConfig(steps=30, lr=0.01, lam=10.0, objective="official")
    loss = {}
    for scale in (1.0, 9.0):
        X = X0.copy()
        X[2] *= scale
        X = torch.tensor(X)
        loss[scale] = []
        for seed in range(10):
            th = mlp.init_params(seed)
            with np.errstate(all="ignore"):
                train_full_batch(mlp, th, X, y, cfg)
            loss[scale].append(float(((mlp.forward(th, X) - y) ** 2).mean()))
    assert np.isfinite(loss[1.0]).all() and max(loss[1.0]) < 0.1
    assert np.sum(~np.isfinite(loss[9.0])) >= 8


def test_fig2_curves_use_the_paper_s_rows_and_the_official_ones_the_code_s():
    p = ex.fn_params("full")
    envs = {(c.official, c.env): c.config(p)["env"] for c in ex.curves(p) if c.env in ("shuttle", "magic")}
    assert envs[(False, "shuttle")] == {"kind": "fn_classification", "dataset": "shuttle"}  # default: unit norm
    assert envs[(True, "shuttle")]["standardize"] is True and envs[(True, "magic")]["standardize"] is True
    assert fn_classification_env("t", X=np.eye(3) * 5, y=np.arange(3)).info["standardize"] is False
