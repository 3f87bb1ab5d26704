"""DUETS E8(b): the centralised uniform-elimination learner and the superposition check."""
import numpy as np

from bandits.algorithms.duets import DUETS, CentralizedUniformElimination
from bandits.comm import CommLedger
from bandits.envs import FiniteDomainEnv
from bandits.experiments import duets_theory as th
from bandits.experiments.duets_theory_claims import e8_claim
from bandits.sim import run_regret


def _run(cls, N=3, T=12, seed=4):
    rng = np.random.default_rng(0)
    X = rng.random((40, 2))
    env = FiniteDomainEnv(X=X, f=np.sin(3 * X[:, 0]) + X[:, 1], noise_std=0.1)
    pol = cls(N, T, 2, np.random.SeedSequence(seed), CommLedger(N, T), kernel={"name": "rbf", "lengthscale": 0.5},
              lam=0.2, beta=1.0, T1=2)
    tr = run_regret(pol, env, T, N, np.random.default_rng(1), np.random.default_rng(2))
    return pol, tr


def test_centralised_learner_draws_one_stream():
    pol, tr = _run(CentralizedUniformElimination)
    # the first epoch (T_1 = 2, N = 3): 6 consecutive draws of one generator over all 40 candidates
    g = np.random.default_rng(np.random.SeedSequence(4).spawn(4)[0])
    first = g.integers(0, 40, size=(3, 2))
    pol2, _ = _run(CentralizedUniformElimination)
    assert len(pol2.epochs) == len(pol.epochs)
    assert tr.regret.shape == (12,)
    # replay by the server matched (it raises otherwise), and a fresh policy's first queries are that stream
    fresh = CentralizedUniformElimination(3, 12, 2, np.random.SeedSequence(4), CommLedger(3, 12),
                                          kernel={"name": "rbf", "lengthscale": 0.5}, T1=2)
    class A:  # the minimal arms object DUETS.select reads
        ids = np.arange(40)
        shared = True
        X = np.zeros((40, 2))

    q = fresh.select(0, np.arange(3), A())
    np.testing.assert_array_equal(fresh.queries, first)
    np.testing.assert_array_equal(q, first[:, 0])


def test_duets_coins_are_per_agent():
    pol, _ = _run(DUETS)
    assert len({id(c) for c in pol.coins}) == 3
    polc, _ = _run(CentralizedUniformElimination)
    assert len({id(c) for c in polc.coins}) == 1


def test_e8_runs_and_claim(tmp_path):
    p = th.theory_params("quick", e8_N=2, e8_T=10, e8_runs=6)
    e8 = th.run_e8(p, seed=0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    assert len(e8) == 12
    assert set(e8.method) == {"DUETS", "CentralizedUniformElimination"}
    # independent samples: the two methods use disjoint runs
    assert set(e8[e8.method == "DUETS"].rep).isdisjoint(set(e8[e8.method != "DUETS"].rep))
    c = e8_claim(e8)
    assert c.id == "E8-superposition" and c.verdict in ("PASS", "FAIL")
    assert "KS D" in c.value and c.interval is not None
    e8b = th.run_e8(p, seed=0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)  # cached
    np.testing.assert_array_equal(e8.R_T.to_numpy(), e8b.R_T.to_numpy())
