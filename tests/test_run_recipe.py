"""The one run recipe (:func:`bandits.runner.run_regret_cell`) and its hooks."""
from __future__ import annotations

import numpy as np
import pytest

from bandits.algorithms import ALGORITHMS
from bandits.envs import make_env
from bandits.runner import RunContext, canonical, run_cell, run_regret_cell
from bandits.sim import Observer

CFG = {"loop": "regret", "env": {"name": "h1", "M": 40}, "env_seed": 0, "algorithm": "N-LinUCB", "N": 3, "T": 15,
       "params": {}}


def test_run_cell_is_the_recipe_without_hooks():
    a, b = run_cell(CFG, 3, 1), run_regret_cell(CFG, 3, 1)
    for k in a["arrays"]:
        np.testing.assert_array_equal(a["arrays"][k], b["arrays"][k])
    assert {k: v for k, v in a["meta"].items() if k not in ("wall_time", "cpu_time")} == \
        {k: v for k, v in b["meta"].items() if k not in ("wall_time", "cpu_time")}


def test_observers_see_every_step_and_do_not_change_the_run():
    seen = []

    class Recorder(Observer):
        def on_step(self, t, agents, arms, choices, rewards, means, policy):
            seen.append((t, len(agents), choices.copy(), rewards.copy()))

    calls = []
    plain = run_regret_cell(CFG, 3, 1)
    watched = run_regret_cell(CFG, 3, 1, observers=[Recorder(), lambda t, *rest: calls.append(t)])
    np.testing.assert_array_equal(plain["arrays"]["regret"], watched["arrays"]["regret"])
    assert [s[0] for s in seen] == list(range(CFG["T"])) and calls == list(range(CFG["T"]))
    assert all(n == CFG["N"] and c.shape == (n,) and r.shape == (n,) for _, n, c, r in seen)
    with pytest.raises(TypeError, match="observer"):
        run_regret_cell(CFG, 3, 1, observers=[42])


def test_collect_wrap_and_policy_class_hooks():
    wrapped = []

    def wrap(policy):
        wrapped.append(type(policy).__name__)
        return policy

    def collect(ctx: RunContext):
        assert ctx.trace is not None and ctx.env.dim == ctx.policy.d and ctx.rep == 1
        return {"double_regret": 2 * ctx.trace.regret}, {"n_messages": len(ctx.ledger.messages)}

    r = run_regret_cell(CFG, 3, 1, wrap_policy=wrap, collect=collect, policy_class=ALGORITHMS["DisLinUCB"])
    assert wrapped == ["DisLinUCB"]
    np.testing.assert_array_equal(r["arrays"]["double_regret"], 2 * r["arrays"]["regret"])
    assert isinstance(r["meta"]["n_messages"], int)
    # the policy class overrides the registry name; make_env replaces the environment factory
    other = run_regret_cell(CFG, 3, 1, policy_class=ALGORITHMS["DisLinUCB"], make_env=lambda spec, s: make_env(spec, s))
    np.testing.assert_array_equal(other["arrays"]["regret"], r["arrays"]["regret"])


def test_divergence_is_recorded_when_asked():
    class Breaks(ALGORITHMS["N-LinUCB"]):
        def select(self, t, agents, arms):
            if t == 4:
                raise FloatingPointError("overflow at t = 4")
            return super().select(t, agents, arms)

    with pytest.raises(FloatingPointError):
        run_regret_cell(CFG, 0, 0, policy_class=Breaks)
    r = run_regret_cell(dict(CFG, on_divergence="record"), 0, 0, policy_class=Breaks,
                        collect=lambda ctx: ({}, {"saw_failure": ctx.trace is None}))
    assert r["meta"]["failed"].startswith("FloatingPointError") and r["meta"]["saw_failure"] is True
    assert np.isnan(r["arrays"]["regret"]).all()
    with pytest.raises(ValueError, match="on_divergence"):
        run_regret_cell(dict(CFG, on_divergence="ignore"), 0, 0)


def test_env_params_hook_wires_a_policy_to_its_environment():
    base = ALGORITHMS["N-LinUCB"]

    class NeedsEnv(base):
        @classmethod
        def env_params(cls, env, params):
            return dict(params, lam=float(env.dim))

        def __init__(self, *args, lam=1.0, **kw):
            self.lam_seen = lam
            super().__init__(*args, **kw)

    got = []
    run_regret_cell(CFG, 0, 0, policy_class=NeedsEnv, collect=lambda ctx: got.append(ctx.policy.lam_seen) or ({}, {}))
    assert got == [float(make_env(CFG["env"], 0).dim)]


def test_canonical_is_stable_json():
    assert canonical({"b": np.float64(1.5), "a": np.arange(3)}) == canonical({"a": [0, 1, 2], "b": 1.5})


# ------------------------------------------------------------------ the pure-exploration recipe and its hook
PE_CFG = {"loop": "pure_exploration", "instance": {"rank": 2, "delta_min": 0.5, "V": 3}, "algorithm": "CoKernelFC",
          "params": {"delta": 0.05}, "max_rounds": 64}


def test_pure_exploration_cell_takes_its_instance_from_a_hook():
    """``run_cell`` on a pure-exploration config is :func:`run_pure_exploration_cell` with the environments'
    default factory; an experiment passes its own factory and gets the same recipe (seeds, ledger, loop,
    canonical result) on its instances."""
    from bandits.envs import make_instance
    from bandits.envs.cope import cope_instance
    from bandits.runner import run_pure_exploration_cell

    a = run_cell(PE_CFG, 3, 1)
    seen = []

    def factory(spec):
        seen.append(spec)
        return cope_instance(**spec)

    b = run_pure_exploration_cell(PE_CFG, 3, 1, make_instance=factory)
    assert seen == [PE_CFG["instance"]]
    for k in a["arrays"]:
        np.testing.assert_array_equal(a["arrays"][k], b["arrays"][k])
    assert {k: v for k, v in a["meta"].items() if k not in ("wall_time", "cpu_time")} == \
        {k: v for k, v in b["meta"].items() if k not in ("wall_time", "cpu_time")}
    assert b["meta"] == canonical_meta(b["meta"])
    with pytest.raises(ValueError, match="spec"):
        make_instance({"rank": 1, "delta_min": 0.5, "noise": 1.0})
    with pytest.raises(ValueError, match="spec"):
        make_instance({"V": 3})


def canonical_meta(meta: dict) -> dict:
    import json

    return json.loads(canonical(meta))
