"""Bandit environments built from real datasets (Async-KernelUCB §5, "UCI Datasets" and "MovieLens and Yelp dataset").

* UCI MagicTelescope and Mushroom (Filippi et al. 2010): k-means into 20 clusters; each centroid
  is an arm's context (scaled so the largest norm is 1) and the fraction of the cluster whose
  binarised label is 1 is its mean reward; the same 20 arms every step; the observed reward is
  Bernoulli(mean) (the paper says only "averaged response as mean reward": the Bernoulli draw, the
  scaling and the seeding are choices of this package). The clustering uses the environment seed
  (k-means random state = run seed), so ``env_seed = rep`` re-clusters per run.
* MovieLens and Yelp (Ban et al.'s recipe): 10-d user and item features from an SVD of the top
  users × items rating matrix; each step's decision set is 1 positive and 19 negative entries,
  context = user ⊕ item (d = 20), reward 1 for the positive arm (deterministic), so the regret of
  a step is 1 − y. MovieLens here is ml-latest-small (610 users), not ML-25M: the recipe is the
  same and the figures say so. Yelp uses the published arrays (labels already ±1).

The datasets are read through :mod:`bandits.data` from ``$BANDITS_DATA_DIR`` (checksummed; a
missing file raises an error naming the variable, the address and ``make data``).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .base import ContextualEnv, FiniteDomainEnv

__all__ = ["DATASET_ENVS", "uci_env", "recommendation_env"]

DATASET_ENVS = ("magic", "mushroom", "movielens", "yelp")


@lru_cache(maxsize=8)
def _uci_arms(name: str, env_seed: int, n_clusters: int):
    from .. import data

    rng = np.random.default_rng(np.random.SeedSequence([int(env_seed), 7]))
    return data.uci_cluster_arms(name, rng, n_clusters=n_clusters)


def uci_env(name: str, env_seed: int = 0, n_clusters: int = 20, schedule: str = "uniform") -> FiniteDomainEnv:
    arms = _uci_arms(name, int(env_seed), int(n_clusters))
    return FiniteDomainEnv(X=np.asarray(arms.contexts, dtype=float), f=np.asarray(arms.mean_rewards, dtype=float),
                           noise_std=0.0, name=name, schedule=schedule, reward="bernoulli",
                           info={"cluster_sizes": np.asarray(arms.sizes).tolist(), "dim": arms.contexts.shape[1]})


@lru_cache(maxsize=4)
def _ban(name: str):
    from .. import data

    if name == "yelp":
        return data.load_yelp()
    r = data.load_movielens("ml-latest-small")
    return data.ban_features(r.user, r.item, r.rating)


def recommendation_env(name: str, n_arms: int = 20, schedule: str = "uniform") -> ContextualEnv:
    from .. import data

    bd = _ban(name)
    d = bd.user_features.shape[1] + bd.item_features.shape[1]

    def decision_sets(rng, n):
        ds = data.ban_decision_sets(bd.entries, bd.user_features, bd.item_features, rng, n, n_arms=n_arms)
        return ds.contexts, ds.rewards

    label = "MovieLens (ml-latest-small substitute for ML-25M)" if name == "movielens" else "Yelp (Ban et al. arrays)"
    return ContextualEnv(sampler=None, f=None, n_arms=n_arms, dim=d, noise_std=0.0, name=name,
                         schedule=schedule, reward="deterministic", decision_sets=decision_sets,
                         info={"label": label, "n_entries": int(len(bd.entries))})
