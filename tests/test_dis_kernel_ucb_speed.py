"""Approx-DisKernelUCB's fast paths give the runs of the direct computation (round-off only)."""
import numpy as np

from bandits.algorithms import dis_kernel_ucb as dk
from bandits.runner import run_cell

CFG = {"loop": "regret", "env": {"name": "f1", "kind": "contextual", "K": 8, "noise_std": 0.1, "schedule": "uniform"},
       "env_seed": 0, "algorithm": "ApproxDisKernelUCB", "N": 6, "T": 120,
       "params": {"kernel": {"name": "rbf", "gamma": 1.0}, "lam": 1.0, "beta": 1.0, "D": 0.5, "qbar": 1.0}}


def _direct_last_s2(self, n, H):
    """The pre-cache computation: re-embed the agent's whole history under the old dictionary."""
    Z = self.dic.features(H)
    return self._s2_ctx(Z, self.kernel.diag(H), self.Ainv_g)


def test_cached_history_features_match_direct_embedding(monkeypatch):
    for trigger in ("var_sum", "dislinucb_logdet"):
        cfg = dict(CFG, params=dict(CFG["params"], trigger=trigger))
        fast = run_cell(cfg, 3, 0)
        with monkeypatch.context() as m:
            m.setattr(dk.ApproxDisKernelUCB, "_last_s2", _direct_last_s2)
            slow = run_cell(cfg, 3, 0)
        np.testing.assert_allclose(fast["arrays"]["regret"], slow["arrays"]["regret"], rtol=0, atol=1e-12)
        for k in ("comm_up", "comm_down"):
            np.testing.assert_array_equal(fast["arrays"][k], slow["arrays"][k])
        assert fast["meta"]["info"]["n_syncs"] == slow["meta"]["info"]["n_syncs"] > 1
