"""FN-UCB's environments (bandits/envs/fn_ucb.py): synthetic cosine/square, classification bandits."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.preprocessing import StandardScaler
from sklearn.utils import shuffle

from bandits.envs import make_env
from bandits.envs.fn_ucb import (OFFICIAL_A, ClassificationBanditEnv, block_contexts, encode_labels,
                                 fn_classification_env, fn_synthetic_env, preprocess_features,
                                 sample_contexts, synthetic_reward)


# ------------------------------------------------------------------------------------ synthetic
def test_synthetic_reward_closed_form():
    a = np.array([1.0, 0.0])
    X = np.array([[0.0, 1.0], [1.0, 0.0], [np.sqrt(0.5), np.sqrt(0.5)]])
    np.testing.assert_allclose(synthetic_reward("cosine", a, X), [1.0, np.cos(3.0), np.cos(3 * np.sqrt(0.5))])
    np.testing.assert_allclose(synthetic_reward("square", a, X), [0.0, 10.0, 5.0])


def test_official_a_is_unit_norm_and_positive():
    assert OFFICIAL_A.shape == (10,)
    assert abs(np.linalg.norm(OFFICIAL_A) - 1.0) < 1e-6 and (OFFICIAL_A > 0).all()


@pytest.mark.parametrize("sampler", ["sphere", "cube_normalized"])
def test_samplers_unit_norm_and_definition(sampler):
    X = sample_contexts(np.random.default_rng(3), 500, 10, sampler)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0)
    rng = np.random.default_rng(3)
    Z = rng.standard_normal((500, 10)) if sampler == "sphere" else rng.uniform(-0.5, 0.5, (500, 10))
    np.testing.assert_allclose(X, Z / np.linalg.norm(Z, axis=1, keepdims=True))


@pytest.mark.parametrize("function", ["cosine", "square"])
def test_synthetic_env_shapes_means_noise(function):
    env = make_env({"kind": "fn_synthetic", "function": function, "a": "official", "sampler": "cube_normalized"})
    agents, arms, means = env.round(0, 3, np.random.default_rng(0))
    assert list(agents) == [0, 1, 2] and not arms.shared
    assert arms.X.shape == (3, 4, 10) and means.shape == (3, 4)
    np.testing.assert_allclose(means, synthetic_reward(function, OFFICIAL_A, arms.X.reshape(-1, 10)).reshape(3, 4))
    np.testing.assert_allclose(env.best_means(means, 3), means.max(axis=1))
    chosen = means[:, 0]
    y = env.rewards(chosen, np.random.default_rng(5))
    np.testing.assert_allclose(y, chosen + 0.01 * np.random.default_rng(5).standard_normal(3))


def test_synthetic_env_deterministic_per_seed_and_random_a():
    e1 = make_env({"kind": "fn_synthetic", "function": "cosine"}, env_seed=4)
    e2 = make_env({"kind": "fn_synthetic", "function": "cosine"}, env_seed=4)
    e3 = make_env({"kind": "fn_synthetic", "function": "cosine"}, env_seed=5)
    a1, a3 = np.array(e1.info["a"]), np.array(e3.info["a"])
    assert np.array_equal(a1, np.array(e2.info["a"])) and not np.allclose(a1, a3)
    assert abs(np.linalg.norm(a1) - 1) < 1e-12 and e1.info["sampler"] == "sphere"
    r1 = [e1.round(t, 2, rng) for rng in [np.random.default_rng(9)] for t in range(3)]
    r2 = [e2.round(t, 2, rng) for rng in [np.random.default_rng(9)] for t in range(3)]
    for (_, x1, m1), (_, x2, m2) in zip(r1, r2):
        assert np.array_equal(x1.X, x2.X) and np.array_equal(m1, m2)


def test_synthetic_mirror_inputs():
    env = fn_synthetic_env("square", a="official", mirror=True)
    _, arms, means = env.round(0, 2, np.random.default_rng(1))
    X = arms.X
    assert env.dim == 20 and X.shape == (2, 4, 20)
    np.testing.assert_allclose(X[..., :10], X[..., 10:])
    np.testing.assert_allclose(np.linalg.norm(X, axis=-1), 1.0)
    x = X[..., :10] * np.sqrt(2.0)
    np.testing.assert_allclose(means, synthetic_reward("square", OFFICIAL_A, x.reshape(-1, 10)).reshape(2, 4))


@pytest.mark.parametrize("spec, word", [
    ({"kind": "fn_synthetic", "function": "sine"}, "function"),
    ({"kind": "fn_synthetic", "sampler": "ball"}, "sampler"),
    ({"kind": "fn_synthetic", "a": "official", "d": 5}, "'d' must be 10"),
    ({"kind": "fn_synthetic", "K": 0}, "K"),
    ({"kind": "fn_synthetic", "noise_std": -1}, "noise_std"),
    ({"kind": "fn_synthetic", "colour": 1}, "colour"),
    ({"kind": "fn_classification", "dataset": "iris"}, "dataset"),
    ({"kind": "fn_classification", "dataset": "wine", "stream": "sorted"}, "stream"),
])
def test_bad_specs_name_the_parameter(spec, word):
    with pytest.raises(ValueError, match=word):
        make_env(spec)


# ------------------------------------------------------------------------------- classification
def _tiny():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 3))
    X[2, 1] = np.nan
    y = np.array(list("cabcabcabcab"))
    return X, y


def test_preprocessing_matches_the_recipe():
    X, _ = _tiny()
    Xn = np.nan_to_num(X, nan=-1.0)
    Xn = Xn / np.linalg.norm(Xn, axis=1, keepdims=True)
    np.testing.assert_allclose(preprocess_features(X, standardize=False), Xn)
    np.testing.assert_allclose(preprocess_features(X), Xn)  # the paper's unit-norm rows by default
    Xs = preprocess_features(X, standardize=True)
    np.testing.assert_allclose(Xs, (Xn - Xn.mean(0)) / Xn.std(0))
    np.testing.assert_allclose(Xs, StandardScaler().fit_transform(Xn))


def test_labels_sorted_ordinal():
    codes, classes = encode_labels(np.array(["h", "g", "g", "h"]))
    assert list(classes) == ["g", "h"] and list(codes) == [1, 0, 0, 1]


def test_block_contexts():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    B = block_contexts(x, 3)
    assert B.shape == (2, 3, 6)
    np.testing.assert_array_equal(B[0], [[1, 2, 0, 0, 0, 0], [0, 0, 1, 2, 0, 0], [0, 0, 0, 0, 1, 2]])
    np.testing.assert_array_equal(B[1, 2], [0, 0, 0, 0, 3, 4])


def test_classification_round_blocks_means_and_regret():
    X, y = _tiny()
    env = fn_classification_env("tiny", X=X, y=y)
    codes, _ = encode_labels(y)
    Xp = preprocess_features(X)
    assert env.n_arms == 3 and env.dim == 9 and env.info["class_counts"] == [4, 4, 4]
    rng = np.random.default_rng(2)
    agents, arms, means = env.round(0, 2, rng)
    assert arms.X.shape == (2, 3, 9) and means.shape == (2, 3)
    for i in range(2):
        row = np.flatnonzero([np.allclose(arms.X[i, 0, :3], r) for r in Xp])
        assert len(row) == 1
        np.testing.assert_allclose(arms.X[i], block_contexts(Xp[row[0]], 3))
        assert means[i].sum() == 1 and means[i, codes[row[0]]] == 1
    np.testing.assert_array_equal(env.rewards(np.array([1.0, 0.0]), rng), [1.0, 0.0])
    np.testing.assert_array_equal(env.best_means(means, 2), [1.0, 1.0])


def test_permutation_streams_cover_every_row_per_pass_and_differ_between_agents():
    X, y = _tiny()
    env = fn_classification_env("tiny", X=X, y=y)
    rng = np.random.default_rng(7)
    rows = np.array([env.rows(t, 3, rng) for t in range(24)])  # two passes over n = 12
    for i in range(3):
        assert sorted(rows[:12, i]) == list(range(12)) and sorted(rows[12:, i]) == list(range(12))
    assert not np.array_equal(rows[:12, 0], rows[:12, 1])
    # t = 0 restarts the streams from the run's generator
    assert np.array_equal(env.rows(0, 3, np.random.default_rng(7)), rows[0])


def test_official_streams_are_fixed_and_seeded_by_agent():
    X, y = _tiny()
    env = fn_classification_env("tiny", X=X, y=y, official_streams=True)
    r1 = np.array([env.rows(t, 2, np.random.default_rng(1)) for t in range(14)])
    r2 = np.array([env.rows(t, 2, np.random.default_rng(99)) for t in range(14)])
    assert np.array_equal(r1, r2)
    for i in range(2):
        perm = shuffle(np.arange(12), random_state=i)
        np.testing.assert_array_equal(r1[:12, i], perm)
        np.testing.assert_array_equal(r1[12:, i], perm[:2])


def test_iid_stream():
    X, y = _tiny()
    env = fn_classification_env("tiny", X=X, y=y, stream="iid")
    np.testing.assert_array_equal(env.rows(3, 4, np.random.default_rng(0)),
                                  np.random.default_rng(0).integers(0, 12, size=4))


def test_classification_env_validates():
    with pytest.raises(ValueError, match="labels"):
        ClassificationBanditEnv(X=np.zeros((3, 2)), labels=np.array([0, 1, 5]), n_arms=2)
    with pytest.raises(ValueError, match="parameter 'y' must be given exactly when X is"):
        fn_classification_env("tiny", X=np.zeros((3, 2)))


def test_bundled_substitute_through_make_env():
    env = make_env({"kind": "fn_classification", "dataset": "breast_cancer"})
    assert env.n_arms == 2 and env.dim == 60 and env.info["substitute"].startswith("magic-like")
    _, arms, means = env.round(0, 2, np.random.default_rng(0))
    assert arms.X.shape == (2, 2, 60)


# ------------------------------------------------------------------------------------ real files
def test_real_shuttle(real_file):
    real_file("shuttle/shuttle.trn")
    real_file("shuttle/shuttle.tst")
    env = make_env({"kind": "fn_classification", "dataset": "shuttle"})
    assert env.n_arms == 7 and env.dim == 63 and env.n == 58000
    assert env.info["class_counts"] == [45586, 50, 171, 8903, 3267, 10, 13]
    np.testing.assert_allclose(np.linalg.norm(env.X, axis=1), 1.0)  # Assumption 1
    code = make_env({"kind": "fn_classification", "dataset": "shuttle", "standardize": True})
    np.testing.assert_allclose(code.X.mean(0), 0.0, atol=1e-10)
    assert 32 < np.linalg.norm(code.X, axis=1).max() < 33  # the official code's rows: up to 32.4
    _, arms, means = env.round(0, 5, np.random.default_rng(0))
    assert arms.X.shape == (5, 7, 63) and (means.sum(1) == 1).all()


def test_real_magic(real_file):
    real_file("magic/magic04.data")
    env = make_env({"kind": "fn_classification", "dataset": "magic"})
    assert env.n_arms == 2 and env.dim == 20 and env.n == 19020
    assert env.info["classes"] == ["g", "h"] and env.info["class_counts"] == [12332, 6688]
