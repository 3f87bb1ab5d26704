"""One conformance test over every registered algorithm (scikit-learn's ``check_estimator`` is the model).

The tests are parametrized over :data:`bandits.algorithms.ALGORITHMS` and :data:`PE_ALGORITHMS`, so a newly
registered algorithm is run at once: on the finite-domain h1 environment with its default parameters, or on
the case :data:`_SPECIAL` gives it (a small environment and the parameters it needs); one that cannot run
that way fails :func:`test_regret_policy_conforms` until it has a case — the "Adding a paper" guide says so.
Each case runs through the one run recipe (:func:`bandits.runner.run_cell`) and is checked for:

* shapes: per-step regret, communication and active-agent arrays of length ``T``; regret finite and >= 0
  up to rounding (regret is computed by the loop from the hidden means, never by the policy);
* the ledger: per-step scalars >= 0 and their sum equal to the ledger's totals by kind;
* seeding: the same ``(seed, rep)`` gives identical arrays and communication (no global random state);
  another ``rep`` runs too;
* the class has a non-empty ``name``.

The cases are tiny (T = 12): the whole module runs in a few seconds.
"""
from __future__ import annotations

import numpy as np
import pytest

from bandits.algorithms import ALGORITHMS, PE_ALGORITHMS, get_pe_algorithm
from bandits.runner import run_cell

T = 12
_KERNEL = {"kernel": {"name": "rbf", "gamma": 1.0}}
_FINITE = {"name": "h1", "M": 40}
_COOP = {"kind": "coop", "graph": "er", "V": 6, "p": 0.5}

#: name -> (environment spec, N, params). Algorithms without an entry and without ``needs_network`` run
#: on the finite-domain h1 environment with their default parameters.
_SPECIAL = {
    "DUETS": (_FINITE, 3, dict(_KERNEL, lam=1.0, beta=1.0, T1=2, p0=10.0)),
    "DisKernelUCB": (_FINITE, 3, dict(_KERNEL, lam=1.0, beta=1.0, D=1.0)),
    "ApproxDisKernelUCB": (_FINITE, 3, dict(_KERNEL, lam=1.0, beta=1.0, D=0.5, qbar=1.0)),
    "N-KernelUCB": (_FINITE, 3, dict(_KERNEL, lam=1.0, beta=1.0)),
    "OneKernelUCB": (_FINITE, 3, dict(_KERNEL, lam=1.0, beta=1.0)),
    "AsyncKernelUCB": (_FINITE, 3, dict(_KERNEL, lam=1.0, alpha=1.0, D=1.0, q=1.0)),
}


def regret_case(name: str):
    if name in _SPECIAL:
        env, N, params = _SPECIAL[name]
    elif getattr(ALGORITHMS[name], "needs_network", False):
        env, N, params = _COOP, _COOP["V"], {}
    else:
        env, N, params = _FINITE, 3, {}
    return {"loop": "regret", "env": env, "env_seed": 0, "algorithm": name, "N": N, "T": T, "params": params}


def pe_case(name: str):
    params = {"T": 600} if "FB" in name else {}  # fixed-budget methods: the budget T
    if "ALBA" in name:  # ALBA's elimination needs the per-agent norms of theta* (as Fig. 2 passes them)
        from bandits.experiments.cope_kb import theta_norms

        params["theta_norms"] = theta_norms(1, 0.5, 3)
    return {"loop": "pure_exploration", "instance": {"rank": 1, "delta_min": 0.5, "V": 3}, "algorithm": name,
            "params": params, "max_rounds": 64}


def _same(r1: dict, r2: dict) -> None:
    assert r1["arrays"].keys() == r2["arrays"].keys()
    for k in r1["arrays"]:
        np.testing.assert_array_equal(np.asarray(r1["arrays"][k]), np.asarray(r2["arrays"][k]), err_msg=k)
    assert _meta(r1["meta"]) == _meta(r2["meta"])


#: Logged values that depend on the process, not the run: the wall and CPU times (the only ones; an algorithm's
#: info() is a function of its configuration and seed).
_PROCESS_STATE = ("wall_time", "cpu_time")


def _meta(m):
    if isinstance(m, dict):
        return {k: _meta(v) for k, v in m.items() if k not in _PROCESS_STATE}
    return m


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_regret_policy_conforms(name):
    cls = ALGORITHMS[name]
    assert isinstance(getattr(cls, "name", None), str) and cls.name, f"{name}: class needs a non-empty 'name'"
    cfg = regret_case(name)
    r = run_cell(cfg, 7, 0)
    a, N = r["arrays"], cfg["N"]
    for key in ("regret", "comm_up", "comm_down", "n_active"):
        assert np.asarray(a[key]).shape == (T,), key
    regret = np.asarray(a["regret"], dtype=float)
    assert np.all(np.isfinite(regret)) and regret.min() > -1e-9, f"{name}: regret must be finite and >= 0"
    n_active = np.asarray(a["n_active"])
    assert np.all((n_active >= 1) & (n_active <= N)), f"{name}: active agents must be in 1..N"
    up, down = np.asarray(a["comm_up"], float), np.asarray(a["comm_down"], float)
    assert up.min() >= 0 and down.min() >= 0, f"{name}: negative communication"
    total = sum(r["meta"]["comm_by_kind"].values())
    assert up.sum() + down.sum() == pytest.approx(total, rel=1e-12, abs=1e-9), \
        f"{name}: per-step scalars {up.sum() + down.sum()} differ from the ledger's totals {total}"
    _same(r, run_cell(cfg, 7, 0))  # same seed, same run: no global random state
    other = run_cell(cfg, 7, 1)
    assert np.asarray(other["arrays"]["regret"]).shape == (T,)


@pytest.mark.parametrize("name", sorted(PE_ALGORITHMS))
def test_pure_exploration_policy_conforms(name):
    cls = get_pe_algorithm(name)
    assert isinstance(getattr(cls, "name", None), str) and cls.name, f"{name}: class needs a non-empty 'name'"
    cfg = pe_case(name)
    r = run_cell(cfg, 7, 0)
    a, m = r["arrays"], r["meta"]
    V = cfg["instance"]["V"]
    assert np.asarray(a["recommended"]).shape == (V,) and np.asarray(a["correct"]).shape == (V,)
    samples = np.asarray(a["samples"])
    assert samples.ndim == 2 and samples.shape[1] == V and samples.min() >= 0
    assert m["rounds"] == samples.shape[0] and m["comm_scalars"] >= 0
    assert m["samples_per_agent"] == pytest.approx(samples.sum() / V)
    _same(r, run_cell(cfg, 7, 0))
