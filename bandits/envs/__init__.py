"""Environments (layer 4): benchmark functions, finite domains, contextual streams.

:func:`make_env` builds an environment from a JSON-able spec and an ``env_seed``. The
environment's own randomness (candidate set, θ*) comes from
``SeedSequence([env_seed, crc32(name)])``, so it is fixed across Monte Carlo runs (as in the
DUETS code) and different functions get independent draws under the same ``env_seed``.
"""
from __future__ import annotations

import zlib

import numpy as np

from .base import SCHEDULES, Arms, ContextualEnv, FiniteDomainEnv
from .functions import FUNCTIONS, get_function, sample_domain
from ..validation import check, fail, ge, keys_in, one_of, rule

__all__ = ["Arms", "FiniteDomainEnv", "ContextualEnv", "FUNCTIONS", "make_env", "make_instance", "env_seed_sequence"]

_FINITE_KEYS = {"name", "M", "noise_std", "domain", "fstar", "schedule"}
_CONTEXTUAL_KEYS = {"name", "kind", "K", "noise_std", "schedule"}


def env_seed_sequence(name: str, env_seed: int) -> np.random.SeedSequence:
    return np.random.SeedSequence([int(env_seed), zlib.crc32(name.encode())])


def make_instance(spec: dict):
    """Build a pure-exploration instance: the default instance factory of
    :func:`bandits.runner.run_pure_exploration_cell`, as :func:`make_env` is of regret runs.

    ``spec``: ``{"rank", "delta_min", "V"}``, CoPE-KB's instance of App. A
    (:func:`bandits.envs.cope.cope_instance`), the one family of instances the environments register; an
    experiment with instances of its own passes its factory to the runner instead.
    """
    check("spec", spec, rule(lambda s: isinstance(s, dict) and {"rank", "delta_min"} <= set(s),
                             "a dict with 'rank' and 'delta_min' (and optionally 'V')"))
    check("spec", spec, keys_in("rank", "delta_min", "V"))
    from .cope import cope_instance

    return cope_instance(**spec)


def make_env(spec: dict, env_seed: int = 0):
    """Build an environment.

    ``spec`` for a finite domain: ``{"name": one of FUNCTIONS, "M": candidates (2000),
    "noise_std": 0.2, "domain": override of the function's domain, "fstar": "discrete"
    (max over the candidates, default) or "continuous" (the function's true maximum),
    "schedule": "sync" | "uniform" | "round_robin"}``.
    """
    if isinstance(spec, dict) and spec.get("kind") == "coop":  # Coop-KernelUCB (bandits/envs/coop.py)
        from .coop import make_coop_env

        return make_coop_env(spec, env_seed)
    if isinstance(spec, dict) and spec.get("kind") in ("fn_synthetic", "fn_classification"):  # FN-UCB (bandits/envs/fn_ucb.py)
        from .fn_ucb import make_fn_env

        return make_fn_env(spec, env_seed)
    from .datasets import DATASET_ENVS, recommendation_env, uci_env

    check("spec", spec, rule(lambda s: isinstance(s, dict) and "name" in s,
                             f"a dict with a 'name' in {sorted(FUNCTIONS) + list(DATASET_ENVS)}"))
    if spec["name"] in DATASET_ENVS:
        check("spec", spec, keys_in("name", "schedule", "n_clusters", "K"),
              note="n_clusters for UCI, K for MovieLens/Yelp")
        if spec["name"] in ("magic", "mushroom"):
            return uci_env(spec["name"], env_seed, spec.get("n_clusters", 20), spec.get("schedule", "uniform"))
        return recommendation_env(spec["name"], spec.get("K", 20), spec.get("schedule", "uniform"))
    if spec.get("kind") == "contextual":
        check("spec", spec, keys_in(*_CONTEXTUAL_KEYS))
        fs = get_function(spec["name"])
        f = fs.make(np.random.default_rng(env_seed_sequence(fs.name, env_seed)))
        K = int(spec.get("K", 20))
        check("K", K, ge(1))
        dom = fs.domain
        return ContextualEnv(sampler=lambda rng, n: sample_domain(rng, n, fs.dim, dom), f=f, n_arms=K,
                             dim=fs.dim, noise_std=float(spec.get("noise_std", 0.1)), name=fs.name,
                             schedule=spec.get("schedule", "uniform"), info={"lengthscale": fs.lengthscale})
    check("kind", spec.get("kind", "finite"), one_of("finite", "contextual"))
    spec = check("spec", {k: v for k, v in spec.items() if k != "kind"}, keys_in(*_FINITE_KEYS))
    fs = get_function(spec["name"])
    M = int(spec.get("M", 2000))
    check("M", M, ge(1))
    noise_std = float(spec.get("noise_std", 0.2))
    check("noise_std", noise_std, ge(0))
    domain = spec.get("domain", fs.domain)
    ss_fun, ss_dom = env_seed_sequence(fs.name, env_seed).spawn(2)
    f = fs.make(np.random.default_rng(ss_fun))
    X = sample_domain(np.random.default_rng(ss_dom), M, fs.dim, domain)
    fvals = np.asarray(f(X), dtype=float)
    which = spec.get("fstar", "discrete")
    if which == "discrete":
        fstar = float(fvals.max())
    elif which == "continuous":
        if f.fstar is None:
            fail("fstar", which, one_of("discrete"), note=f"function {fs.name!r} has no known continuous maximum")
        fstar = float(f.fstar)
    else:
        fail("fstar", which, one_of("discrete", "continuous"))
    return FiniteDomainEnv(X=X, f=fvals, noise_std=noise_std, fstar=fstar, name=fs.name,
                           schedule=spec.get("schedule", "sync"),
                           info={"lengthscale": fs.lengthscale, "domain": domain, "dim": fs.dim})
