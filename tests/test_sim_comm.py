"""The regret loop (common random numbers, regret bookkeeping) and the ledger."""
import numpy as np
import pytest

from bandits.comm import SERVER, CommLedger
from bandits.envs import FiniteDomainEnv
from bandits.sim import Policy, run_regret


class Fixed(Policy):
    name = "fixed"

    def __init__(self, N, T, arm):
        super().__init__(N, T, 1, np.random.SeedSequence(0), CommLedger(N, T))
        self.arm, self.rewards = arm, []

    def select(self, t, agents, arms):
        return np.full(len(agents), self.arm)

    def update(self, t, agents, arms, choices, rewards):
        self.rewards.append(rewards.copy())


def test_noise_stream_is_common_to_all_policies_and_regret_uses_the_means():
    X = np.linspace(0, 1, 5)[:, None]
    env = FiniteDomainEnv(X=X, f=np.array([0.0, 1.0, 2.0, 3.0, 4.0]), noise_std=0.5)
    runs = {}
    for arm in (0, 3):
        p = Fixed(3, 7, arm)
        tr = run_regret(p, env, 7, 3, np.random.default_rng(11), np.random.default_rng(12))
        runs[arm] = (np.array(p.rewards) - env.f[arm], tr)
    np.testing.assert_allclose(runs[0][0], runs[3][0], atol=1e-12)  # same noise draws
    assert runs[0][1].regret.sum() == pytest.approx(7 * 3 * 4.0)
    assert runs[3][1].regret.sum() == pytest.approx(7 * 3 * 1.0)


def test_async_schedule_activates_one_agent():
    X = np.zeros((2, 1))
    env = FiniteDomainEnv(X=X, f=np.array([0.0, 1.0]), noise_std=0.0, schedule="uniform")
    p = Fixed(4, 20, 0)
    tr = run_regret(p, env, 20, 4, np.random.default_rng(0), np.random.default_rng(1))
    assert (tr.n_active == 1).all() and tr.regret.sum() == pytest.approx(20.0)
    with pytest.raises(ValueError, match="schedule"):
        FiniteDomainEnv(X=X, f=np.zeros(2), noise_std=0.0, schedule="weekly")


def test_ledger_totals_and_conventions_by_hand():
    led = CommLedger(n_agents=2, horizon=4)
    led.send(0, 0, SERVER, "x", 3)
    led.send(0, 1, SERVER, "x", 5)
    led.broadcast(2, "y", 4)  # 4 scalars to each of 2 agents
    led.send(3, SERVER, 1, "z", 7)
    assert led.total_up == 8 and led.total_down == 8 + 7
    np.testing.assert_array_equal(led.per_step("up"), [8, 0, 0, 0])
    np.testing.assert_array_equal(led.per_step("down"), [0, 0, 8, 7])
    np.testing.assert_allclose(led.curve("paper"), np.cumsum([8, 0, 8, 7]) / 2)
    np.testing.assert_allclose(led.curve("code_uplink"), [8, 8, 8, 8])
    assert led.rounds() == 3 and led.by_kind() == {"x": 8, "y": 8, "z": 7}
    with pytest.raises(ValueError, match="parameter 't' must be in \\[0, "):
        led.send(4, 0, SERVER, "x", 1)
    with pytest.raises(ValueError, match="convention"):
        led.curve("bytes")
