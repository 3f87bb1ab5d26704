"""Approx-DisKernelUCB's agents keep a low-rank correction of the shared inverse, not a copy each: the
same runs as a dense m × m inverse per agent (the storage it replaced, kept here as the reference)."""
import numpy as np
import pytest
from scipy.linalg.blas import dger

from bandits.algorithms import dis_kernel_ucb as dk
from bandits.runner import run_regret_cell


class DenseAgents(dk.ApproxDisKernelUCB):
    """The storage before the low-rank correction: every agent's own ``A_n⁻¹`` (shared with the broadcast
    one until the agent's first update copies it, then Sherman–Morrison in place)."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.Ainv = [np.zeros((0, 0)) for _ in range(self.N)]
        self._own = np.zeros(self.N, dtype=bool)

    def _apply(self, n, v):
        return (self.Ainv_g if n is None else self.Ainv[n]) @ v

    def _quad(self, n, Z):
        return np.sum((Z @ (self.Ainv_g if n is None else self.Ainv[n])) * Z, axis=1)

    def _rank1_downdate(self, n, u, den):
        if not self._own[n]:
            self.Ainv[n] = self.Ainv[n].copy()
            self._own[n] = True
        dger(-1.0 / den, u, u, a=self.Ainv[n].T, overwrite_a=1)

    def _reset_agents(self, b):
        for n in range(self.N):
            self.Ainv[n], self.b[n] = self.Ainv_g, b
        self._own[:] = False


class Recorder:
    """Observer: every step's choices (the loop calls ``on_step`` after the update)."""

    def __init__(self):
        self.choices = []

    def on_step(self, t, agents, arms, choices, rewards, means, policy):  # noqa: ARG002
        self.choices.append(np.array(choices).copy())


def _run(cfg, cls, rep=0):
    rec = Recorder()
    res = run_regret_cell(cfg, 7, rep, policy_class=cls, observers=(rec,))
    return res, rec


F1 = {"loop": "regret", "env": {"name": "f1", "kind": "contextual", "K": 8, "noise_std": 0.1, "schedule": "uniform"},
      "env_seed": 0, "algorithm": "ApproxDisKernelUCB", "N": 8, "T": 300,
      "params": {"kernel": {"name": "rbf", "gamma": 1.0}, "lam": 1.0, "beta": 1.0, "D": 2.0, "qbar": 1.0}}
H1 = {"loop": "regret", "env": {"name": "h1"}, "env_seed": 0, "algorithm": "ApproxDisKernelUCB", "N": 5, "T": 80,
      "params": {"kernel": {"name": "rbf", "gamma": 0.5}, "lam": 0.2, "beta": 1.0, "D": 3.0, "qbar": 4.0}}


def _same_runs(new, old):
    (a, ra), (b, rb) = new, old
    assert len(ra.choices) == len(rb.choices)
    for ca, cb in zip(ra.choices, rb.choices):
        np.testing.assert_array_equal(ca, cb)
    np.testing.assert_allclose(a["arrays"]["regret"], b["arrays"]["regret"], rtol=0, atol=1e-12)
    for k in ("comm_up", "comm_down"):
        np.testing.assert_array_equal(a["arrays"][k], b["arrays"][k])
    assert a["meta"]["info"] == b["meta"]["info"]
    assert a["meta"]["info"]["n_syncs"] > 1


F1_SYNC = dict(F1, N=4, T=80, env=dict(F1["env"], schedule="sync"))


@pytest.mark.parametrize("trigger", ["var_sum", "dislinucb_logdet"])
@pytest.mark.parametrize("cfg", [F1, F1_SYNC, H1], ids=["fresh-one-client", "fresh-all-agents", "finite-domain"])
def test_low_rank_agents_give_the_runs_of_dense_agents(cfg, trigger):
    cfg = dict(cfg, params=dict(cfg["params"], trigger=trigger))
    for rep in (0, 1):
        _same_runs(_run(cfg, dk.ApproxDisKernelUCB, rep), _run(cfg, DenseAgents, rep))


def test_one_client_per_step_many_agents():
    """The asynchronous protocol (Async-KernelUCB §3.1, the arena's map): one agent per step, many agents."""
    cfg = dict(F1, N=60, T=500, params=dict(F1["params"], D=1.0))
    _same_runs(_run(cfg, dk.ApproxDisKernelUCB), _run(cfg, DenseAgents))


class CountSwitches(dk.ApproxDisKernelUCB):
    switches = 0

    def _rank1_downdate(self, n, u, den):
        before = self._dense[n] is None
        super()._rank1_downdate(n, u, den)
        CountSwitches.switches += before and self._dense[n] is not None


def test_agent_switches_to_its_own_dense_inverse_after_m_steps():
    """Few agents, a large D: agents take more steps between syncs than the dictionary has points, so they
    switch to a dense inverse of their own; the runs are still those of the dense reference."""
    cfg = dict(F1_SYNC, N=2, T=300, params=dict(F1["params"], D=12.0, qbar=0.3))
    CountSwitches.switches = 0
    _same_runs(_run(cfg, CountSwitches), _run(cfg, DenseAgents))
    assert CountSwitches.switches > 0


def test_model_and_storage_after_updates():
    """After a sync and a few updates: each agent's A_n⁻¹ (applied and as a quadratic form) equals the dense
    inverse of its statistics; the shared matrix is untouched; the agents' storage is k_n × m."""
    from bandits.comm import CommLedger

    rng = np.random.default_rng(0)

    class Arms:
        ids, shared = None, False

        def __init__(self, X):
            self.X = X

        def for_agent(self, k):
            return self.X[k]

    pol = dk.ApproxDisKernelUCB(3, 400, 2, np.random.SeedSequence(0), CommLedger(3, 400),
                                {"name": "rbf", "gamma": 1.0}, lam=1.0, D=1e-9, qbar=1.0)
    for t in range(30):  # a sync after every step: a dictionary grows
        arms = Arms(rng.random((1, 4, 2)))
        c = pol.select(t, [t % 3], arms)
        pol.update(t, [t % 3], arms, c, [float(rng.random())])
    m = pol.m
    assert m > 3 and pol.n_syncs > 1
    G = pol.Ainv_g.copy()
    pol.D = 1e9  # no more syncs
    Zs = {0: [], 1: []}
    for t in range(30, 30 + 5):
        for n in (0, 0, 1):
            arms = Arms(rng.random((1, 4, 2)))
            c = pol.select(t, [n], arms)
            pol.update(t, [n], arms, c, [0.5])
            Zs[n].append(pol.dic.features(arms.X[0, c[0]][None])[0])
    np.testing.assert_array_equal(pol.Ainv_g, G)
    A_g = np.linalg.inv(G)
    Zt = rng.normal(size=(6, m))
    for n in (0, 1, 2):
        Z = np.array(Zs.get(n, [])).reshape(-1, m)
        Ainv_n = np.linalg.inv(A_g + Z.T @ Z)
        np.testing.assert_allclose(pol._apply(n, Zt.T), Ainv_n @ Zt.T, atol=1e-8)
        np.testing.assert_allclose(pol._quad(n, Zt), np.einsum("ij,jk,ik->i", Zt, Ainv_n, Zt), atol=1e-8)
        if len(Z) <= m:  # k_n vectors of m numbers
            assert pol._k[n] == len(Z) and pol._dense[n] is None
            assert len(Z) == 0 or pol._U[n].shape[1] == m
        else:  # more updates than m: its own dense inverse
            assert pol._dense[n] is not None and pol._U[n] is None
    assert pol._k[2] == 0 and pol._U[2] is None and pol._dense[2] is None


@pytest.mark.parametrize("cfg", [F1, H1], ids=["fresh-contexts", "finite-domain"])
def test_sync_passes_by_blocks_give_the_same_runs(monkeypatch, cfg):
    """A sync's passes over the history by blocks of rows (its memory) give the runs of one block."""
    whole = _run(cfg, dk.ApproxDisKernelUCB)
    monkeypatch.setattr(dk.ApproxDisKernelUCB, "block", 7)
    _same_runs(_run(cfg, dk.ApproxDisKernelUCB), whole)


def test_memory_estimate_shared_against_per_agent_storage():
    """The class's estimate: the per-agent dense inverses grow like N·m², the shared storage does not grow
    with N (the agents' corrections are bounded by the points since the last sync)."""
    est = dk.ApproxDisKernelUCB.memory_bytes
    kw = dict(points=10_000, M=None, K=7)
    shared = [est(N, 10_000, 63, {}, **kw) for N in (10, 1000)]
    dense = [est(N, 10_000, 63, {}, storage="per_agent", **kw) for N in (10, 1000)]
    assert shared[0] == shared[1]
    m = 10_000
    assert dense[1] - dense[0] == 8 * 990 * m * m  # N·m² doubles (and the agents' corrections drop out)
    assert dense[1] > 100 * shared[1]  # 750 GB against 5 GB at m = T = 10⁴
    # a finite domain bounds the dictionary by its candidates
    assert est(10, 1000, 4, {}, points=10_000, M=300) < est(10, 1000, 4, {}, points=10_000, M=None)
