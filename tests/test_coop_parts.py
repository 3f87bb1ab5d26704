"""The parts of the Coop-KernelUCB engine: settings, feature maps, env wiring, layout."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from bandits.algorithms import coop_kernel_ucb as ckb
from bandits.algorithms.coop_config import CoopConfig
from bandits.algorithms.coop_engine import NetworkKernelUCB
from bandits.algorithms.coop_features import feature_maps
from bandits.comm import CommLedger

ALGDIR = Path(ckb.__file__).resolve().parent


def test_config_normalises_and_is_frozen():
    c = CoopConfig(accept="clique", kz="mmd", width="eta", eta=1, lam=2, kz_every=np.int64(3),
                   kernel={"name": "rbf", "lengthscale": 2.0}, embed_kernel={"name": "rbf", "lengthscale": 0.5})
    assert isinstance(c.eta, float) and c.lam == 2.0 and type(c.kz_every) is int and c.kz_every == 3
    assert (c.kname, c.ell, c.embed) == ("rbf", 2.0, ("rbf", 0.5))
    assert CoopConfig(accept="self", kz="ones", width="eta").kname == "linear"
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.eta = 2.0


@pytest.mark.parametrize("kw, name", [({"accept": "all"}, "accept"), ({"lam": 0}, "lam"), ({"eta": -1}, "eta"),
                                      ({"kz_every": 0}, "kz_every"), ({"min_var": 2}, "min_var"),
                                      ({"delta": 1}, "delta"), ({"dual_when_smaller": "x"}, "dual_when_smaller"),
                                      ({"peripheral_mode": "x"}, "peripheral_mode"), ({"features": "x"}, "features"),
                                      ({"features": "exact"}, "features='exact'"), ({"kernel": "poly"}, "kernel")])
def test_config_names_the_bad_setting(kw, name):
    base = dict(accept="neighbourhood", kz="mmd", width="eta")
    with pytest.raises(ValueError, match=name):
        CoopConfig(**{**base, **kw})


def test_policy_validates_through_the_config_and_keeps_it():
    ss = np.random.SeedSequence(0)
    pol = ckb.IndLinUCB(3, 5, 2, ss, CommLedger(3, 5), eta=0.5)
    assert pol.config.accept == "self" and pol.eta == 0.5 and pol.config.kz == "ones"
    with pytest.raises(ValueError, match="lam"):
        ckb.IndLinUCB(3, 5, 2, ss, CommLedger(3, 5), lam=-1.0)


def test_feature_maps_depend_on_the_run_seed_only():
    cfg = CoopConfig(accept="self", kz="ones", width="eta", kernel={"name": "rbf", "lengthscale": 1.0},
                     n_features=6, n_embed=5)
    a, b = feature_maps(cfg, 3, np.random.SeedSequence(7)), feature_maps(cfg, 3, np.random.SeedSequence(7))
    X = np.random.default_rng(0).standard_normal((4, 3))
    assert np.array_equal(a[0](X), b[0](X)) and np.array_equal(a[1](X), b[1](X))
    assert a[0](X).shape == (4, 6) and a[1](X).shape == (4, 5)


def test_env_params_wires_network_and_oracle():
    env = SimpleNamespace(network="NET", kz_true="KZ")
    assert ckb.CoopKernelUCB.env_params(env, {"eta": 1.0}) == {"eta": 1.0, "network": "NET"}
    assert ckb.EagerKernelUCB.env_params(env, {"kz": "oracle"}) == {"kz": "oracle", "network": "NET", "kz_oracle": "KZ"}


def test_runner_has_no_graph_fallback():
    from bandits.runner import _policy_params

    class Plain:  # no env_params: the parameters pass through, whatever attributes the class has
        needs_network = True

    assert _policy_params(Plain, SimpleNamespace(network="NET"), {"a": 1}) == {"a": 1}


def test_public_names_and_layout():
    for name in ckb.__all__ + ["NystroemFeatures", "_top_eigh", "PERIPHERAL_MODES"]:
        assert hasattr(ckb, name), name
    assert ckb.NetworkKernelUCB is NetworkKernelUCB
    for p in sorted(ALGDIR.glob("coop_*.py")):
        assert len(p.read_text(encoding="utf-8").splitlines()) <= 400, p.name
