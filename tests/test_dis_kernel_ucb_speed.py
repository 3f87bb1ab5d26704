"""Approx-DisKernelUCB's fast paths give the runs of the direct computation (round-off only)."""
import numpy as np
import pytest

from bandits.algorithms import dis_kernel_ucb as dk
from bandits.runner import run_cell

CFG = {"loop": "regret", "env": {"name": "f1", "kind": "contextual", "K": 8, "noise_std": 0.1, "schedule": "uniform"},
       "env_seed": 0, "algorithm": "ApproxDisKernelUCB", "N": 6, "T": 120,
       "params": {"kernel": {"name": "rbf", "gamma": 1.0}, "lam": 1.0, "beta": 1.0, "D": 0.5, "qbar": 1.0}}


def _direct_history_s2(self):
    """The pre-cache computation: re-embed every history point under the old dictionary."""
    nh = self._nh
    if self.finite:
        return self.s2_last[self._hI[:nh]]
    X = self._hX[:nh]
    return self._s2_ctx(self.dic.features(X), self.kernel.diag(X))


_scores = dk.ApproxDisKernelUCB._scores


def _scores_without_reuse(self, n, arms, k):
    """Score, then forget the arms' features, so ``update`` embeds the chosen arm again."""
    s = _scores(self, n, arms, k)
    self._Zsel.pop(k, None)
    return s


def _reference_history_s2(self):
    """The reference: the quadratic form through the explicit inverse, ``Σ (Z A⁻¹) ∘ Z``."""
    nh = self._nh
    if self.finite:
        return self.s2_last[self._hI[:nh]]
    return self._s2_ctx(self._hZ[:nh, : self.m], self._hK[:nh])


def _reference_sync(self, t):
    """The reference sync path (row-by-row dictionary, a fresh feature buffer, ``np.linalg.inv``)."""
    from bandits.comm import SERVER
    from bandits.estimators import NystromDictionary

    d, nh = self.d, self._nh
    p = np.minimum(1.0, self.qbar * self._history_s2())
    owner = self._hA[:nh]
    order = np.argsort(owner, kind="stable")
    ends = np.cumsum(np.bincount(owner, minlength=self.N))
    chosen = []
    for n in range(self.N):
        rows = order[(ends[n - 1] if n else 0): ends[n]]
        if not len(rows):
            continue
        keep = self.rngs[n].random(len(rows)) < p[rows]
        if keep.any():
            self.ledger.send(t, n, SERVER, "dictionary_points", int(keep.sum()) * d)
        chosen.append(rows[keep])
    allc = self._hX[np.concatenate(chosen)] if chosen else np.zeros((0, d))
    if len(allc):
        _, first = np.unique(allc, axis=0, return_index=True)
        allc = allc[np.sort(first)]
    self.dic = NystromDictionary(self.kernel, d)
    self.dic.add(allc)
    if len(allc):
        self.ledger.broadcast(t, "dictionary", len(allc) * d)
    self.m = m = self.dic.m
    mat = m * (m + 1) // 2 if self.sym else m * m
    if self.finite:
        self.Zc = self.dic.features(self.X)
        self.znorm2 = np.einsum("ij,ij->i", self.Zc, self.Zc)
        Z = self.Zc[self._hI[:nh]]
    else:
        Z = self.dic.features(self._hX[:nh])
        self._hZ = np.zeros((len(self._hY), m))
        self._hZ[:nh] = Z
    A = Z.T @ Z
    A[np.diag_indices(m)] += self.lam
    b = Z.T @ self._hY[:nh]
    for n in range(self.N):
        self.ledger.send(t, n, SERVER, "embedded_statistics", mat + m)
    self.ledger.broadcast(t, "global_statistics", mat + m)
    Ainv = np.linalg.inv(A)
    self.Ainv_g = 0.5 * (Ainv + Ainv.T)
    self._reset_agents(b)
    if self.finite:
        ZA = self.Zc @ self.Ainv_g
        q = np.maximum(np.einsum("ij,ij->i", ZA, self.Zc), 0.0)
        mu = ZA @ b
        for n in range(self.N):
            self.q[n], self.mu[n] = q.copy(), mu.copy()
        self.s2_last = np.maximum((self.kd - self.znorm2) / self.lam, 0.0) + q
    self.acc[:] = 0.0
    self.t_last = t
    self.n_syncs += 1
    self.dict_sizes.append(m)


def _check_same(fast, slow, atol):
    np.testing.assert_allclose(fast["arrays"]["regret"], slow["arrays"]["regret"], rtol=0, atol=atol)
    for k in ("comm_up", "comm_down"):
        np.testing.assert_array_equal(fast["arrays"][k], slow["arrays"][k])
    assert fast["meta"]["info"]["n_syncs"] == slow["meta"]["info"]["n_syncs"] > 1
    assert fast["meta"]["info"]["dict_sizes"] == slow["meta"]["info"]["dict_sizes"]


@pytest.mark.parametrize("trigger", ["var_sum", "dislinucb_logdet"])
@pytest.mark.parametrize("direct", [
    ("_history_s2", _direct_history_s2),  # cached history features vs embedding the history again
    ("_scores", _scores_without_reuse),  # the chosen arm's features reused from its scoring
], ids=["history-features", "arm-features"])  # the agents' low-rank storage: test_dis_kernel_ucb_storage.py
def test_fast_path_matches_direct_computation(monkeypatch, trigger, direct):
    cfg = dict(CFG, params=dict(CFG["params"], trigger=trigger))
    fast = run_cell(cfg, 3, 0)
    with monkeypatch.context() as m:
        m.setattr(dk.ApproxDisKernelUCB, *direct)
        slow = run_cell(cfg, 3, 0)
    _check_same(fast, slow, 1e-12)


@pytest.mark.parametrize("trigger", ["var_sum", "dislinucb_logdet"])
@pytest.mark.parametrize("env", ["f1", "f2"])
def test_level3_sync_path_gives_the_old_runs(monkeypatch, trigger, env):
    """The sync path's LAPACK dictionary, Cholesky inverse and triangular-solve sampling give the runs of
    the reference path (same choices, communication, syncs and dictionaries)."""
    cfg = dict(CFG, N=10, T=300, env=dict(CFG["env"], name=env), params=dict(CFG["params"], trigger=trigger))
    fast = run_cell(cfg, 5, 0)
    with monkeypatch.context() as m:
        m.setattr(dk.ApproxDisKernelUCB, "_sync", _reference_sync)
        m.setattr(dk.ApproxDisKernelUCB, "_history_s2", _reference_history_s2)
        slow = run_cell(cfg, 5, 0)
    _check_same(fast, slow, 1e-12)
    assert fast["meta"]["info"]["dict_sizes"][-1] > 20


def test_level3_sync_path_with_empty_dictionaries(monkeypatch):
    """Small q̄ and D: early syncs sample no point (|S| = 0); the old and the new path agree there too."""
    cfg = dict(CFG, N=6, T=150, params=dict(CFG["params"], qbar=0.05, D=0.1))
    fast = run_cell(cfg, 2, 0)
    with monkeypatch.context() as m:
        m.setattr(dk.ApproxDisKernelUCB, "_sync", _reference_sync)
        m.setattr(dk.ApproxDisKernelUCB, "_history_s2", _reference_history_s2)
        slow = run_cell(cfg, 2, 0)
    _check_same(fast, slow, 1e-12)
    assert 0 in fast["meta"]["info"]["dict_sizes"]


def test_fresh_dictionary_equals_incremental_cholesky():
    from bandits.estimators import NystromDictionary
    from bandits.kernels import make_kernel

    k = make_kernel({"name": "rbf", "gamma": 1.0})
    X = np.random.default_rng(0).normal(size=(60, 4))
    ref = NystromDictionary(k, 4)
    ref.add(X)
    new = dk.fresh_dictionary(k, 4, X)
    np.testing.assert_allclose(new.L, ref.L, atol=1e-10)
    np.testing.assert_array_equal(new.points, ref.points)
    # a duplicated row: the incremental path (which skips it) is taken
    Xd = np.vstack([X[:5], X[2:3]])
    dup = dk.fresh_dictionary(k, 4, Xd)
    assert dup.m == 5 and dup.n_skipped == 1
    A = np.cov(np.random.default_rng(1).normal(size=(5, 30))) + np.eye(5)
    L, Ainv = dk.chol_inverse(A)
    np.testing.assert_allclose(L @ L.T, A, atol=1e-12)
    np.testing.assert_allclose(Ainv, np.linalg.inv(A), atol=1e-12)
    np.testing.assert_array_equal(Ainv, Ainv.T)
    L0, A0 = dk.chol_inverse(np.zeros((0, 0)))  # a sync that sampled no point
    assert L0.shape == A0.shape == (0, 0)
    assert dk.fresh_dictionary(k, 4, np.zeros((0, 4))).m == 0


def test_finite_domain_path_uses_the_shared_buffers():
    """DUETS' setting (a fixed candidate set): several syncs, the history kept by candidate id."""
    cfg = {"loop": "regret", "env": {"name": "h1"}, "env_seed": 0, "algorithm": "ApproxDisKernelUCB", "N": 5,
           "T": 60, "params": {"kernel": {"name": "rbf", "gamma": 0.5}, "lam": 0.2, "beta": 1.0, "D": 2.0, "qbar": 4.0}}
    a, b = run_cell(cfg, 1, 0), run_cell(cfg, 1, 0)
    _check_same(a, b, 0.0)


def test_broadcast_model_is_not_written_by_an_agent_update():
    """After a sync every agent shares the broadcast A⁻¹; an agent's own update must copy it first."""
    from bandits.comm import CommLedger

    pol = dk.ApproxDisKernelUCB(3, 50, 2, np.random.SeedSequence(0), CommLedger(3, 50), {"name": "rbf", "gamma": 1.0},
                                lam=1.0, D=1e-9, qbar=1.0)
    rng = np.random.default_rng(0)

    class Arms:
        ids, shared = None, False

        def __init__(self, X):
            self.X = X

        def for_agent(self, k):
            return self.X[k]

    for t in range(6):
        arms = Arms(rng.random((1, 4, 2)))
        c = pol.select(t, [t % 3], arms)
        pol.update(t, [t % 3], arms, c, [float(rng.random())])
    assert pol.m > 0 and pol.n_syncs > 1
    G = pol.Ainv_g.copy()
    arms = Arms(rng.random((1, 4, 2)))
    pol.D = 1e9  # no sync this step
    c = pol.select(6, [0], arms)
    pol.update(6, [0], arms, c, [0.5])
    np.testing.assert_array_equal(pol.Ainv_g, G)
    assert pol._k[0] == 1 and pol._k[1] == pol._k[2] == 0  # agent 0's update is its own correction
