"""Coop-KernelUCB's engine speed-ups give the models of the reference computation.

The eigenpairs of ``K̂_z`` are computed on each group's active block and only as many as the factor can
use (:func:`bandits.algorithms.coop_kz._group_eigh`, with a full recomputation when a group's safeguard
needs more): the factor, ranks and scores equal those of the full eigendecomposition of the padded
matrices (``_eig_adaptive = False``) to round-off.
"""
from __future__ import annotations

import numpy as np
import pytest

from bandits.algorithms.coop_kz import _group_eigh
from tests.test_coop_kernel_ucb import ALGORITHMS, ClusterEnv, _lockstep, _policy, net6  # noqa: F401


def test_group_eigh_active_block_equals_the_padded_eigendecomposition():
    rng = np.random.default_rng(0)
    G, A = 6, 11
    W = np.zeros((G, A, A))
    sizes = [0, 1, 3, 7, 11, 9]
    for g, n in enumerate(sizes):
        ii = np.sort(rng.choice(A, n, replace=False))
        X = rng.standard_normal((n, 4))
        W[g][np.ix_(ii, ii)] = np.exp(-np.abs(X @ X.T) / 4)
    wf, Uf = np.linalg.eigh(W)
    wf, Uf = wf[:, ::-1], Uf[:, :, ::-1]
    for k_of in (None, [2] * G, [1, 1, 5, 3, 20, 9]):
        w, U, k, n = _group_eigh(W, k_of)
        assert list(n) == sizes
        for g in range(G):
            kk = int(k[g])
            assert kk == (sizes[g] if k_of is None else min(k_of[g], sizes[g]))
            # the positive pairs (all the factor uses) come first in both, in the same order; the block's
            # negative eigenvalues (K̂_z need not be PSD) rank below the padding's zeros in the padded matrix
            nz = wf[g, :kk] > 1e-8
            np.testing.assert_allclose(w[g, :kk][nz], wf[g, :kk][nz], atol=1e-10)
            assert np.all(w[g, :kk][~nz] <= 1e-8)
            assert np.all(w[g, kk:] == 0) and np.all(U[g, :, kk:] == 0)
            np.testing.assert_allclose(np.abs(np.einsum("ik,ik->k", U[g][:, :kk][:, nz], Uf[g][:, :kk][:, nz])), 1.0,
                                       atol=1e-8)
            assert np.all(U[g][~np.any(W[g] != 0, axis=1)] == 0)  # inactive rows exactly zero
    # recomputing some groups in full into a narrower result widens it
    w, U, k, n = _group_eigh(W, [1] * G)
    w2, U2, k2, _ = _group_eigh(W, [1, 1, 1, None, 1, 1], w, U, [3])
    assert w2.shape[1] == 7 and k2[3] == 7
    pos = wf[3, :7] > 1e-8
    np.testing.assert_allclose(w2[3, :7][pos], wf[3, :7][pos], atol=1e-10)
    np.testing.assert_array_equal(w2[4, :1], w[4, :1])


@pytest.mark.parametrize("name", ["Coop-KernelUCB", "Eager-KernelUCB", "Dist-KernelUCB"])
@pytest.mark.parametrize("r_max", [1, 2])
def test_adaptive_eigenpairs_give_the_reference_models(net6, name, r_max):
    """At the safeguard's ranks (no cap): the same ranks, kept variances and scores as the full
    eigendecomposition of the padded matrices, every round."""
    env = ClusterEnv(net6, kind="rbf", n_clusters=3)
    kw = dict(kz="mmd", kernel={"name": "rbf", "lengthscale": 1.0}, n_features=8, n_embed=16, r_max=r_max)
    a = _policy(ALGORITHMS[name], net6, env, 16, **kw)
    b = _policy(ALGORITHMS[name], net6, env, 16, **kw)
    b._eig_adaptive = False
    assert _lockstep(a, b, env, 16) < 1e-8
    assert a.log["rank_max"] == b.log["rank_max"] and a.log["rank_mean"] == b.log["rank_mean"]
    np.testing.assert_allclose(a.log["min_Lv2"], b.log["min_Lv2"], rtol=0, atol=1e-12)
    assert min(a.log["min_Lv2"]) >= 0.95 - 1e-12


def test_a_short_hint_is_recomputed_in_full(net6):
    """A hint below what the safeguard needs: the group is recomputed with every pair (counted)."""
    env = ClusterEnv(net6, kind="rbf", n_clusters=3)
    kw = dict(kz="mmd", kernel={"name": "rbf", "lengthscale": 1.0}, n_features=8, n_embed=16, r_max=1)
    a = _policy(ALGORITHMS["Eager-KernelUCB"], net6, env, 12, **kw)
    b = _policy(ALGORITHMS["Eager-KernelUCB"], net6, env, 12, **kw)
    a._eig_hint = lambda: [1] * len(a.reps)  # always too short where a rank above 1 is needed
    b._eig_adaptive = False
    assert _lockstep(a, b, env, 12) < 1e-8
    assert a.log["rank_max"] == b.log["rank_max"] and max(a.log["rank_max"]) >= 2
    assert a.log.get("eig_full", 0) > 0


# ---------------------------------------------------------------- the same arithmetic, fewer passes
def test_pair_products_equal_the_pairwise_gather():
    """The coefficient rows of the packed GEMM, built row by row into a workspace, are the products of the
    pairwise gather bit for bit (one and several delay levels, ranks 1 to 12)."""
    from bandits.algorithms.coop_primal import _pair_products

    rng = np.random.default_rng(3)
    for n, r, m in ((1, 1, 7), (3, 4, 12), (5, 10, 30), (2, 12, 45)):
        Ld = rng.standard_normal((n, r, m)) * (rng.random((n, r, m)) < 0.7)
        Lb = rng.standard_normal((n, r, m))
        ia, ib = np.triu_indices(r)
        out = np.full((n, len(ia), m), np.nan)
        got = _pair_products(Ld, Lb, out)
        assert got is out
        assert np.array_equal(got, Ld[:, ia, :] * Lb[:, ib, :])


def _w_lists_by_gather_and_mask(pol, t, rows):
    """The network-kernel matrices as gathered from ``K̂_z`` over (delay level, source) and then masked to
    the active sources (the direct computation the engine's single masked gather replaces)."""
    from bandits.algorithms.coop_features import kz_from_mmd, mmd_from_embeddings

    V = pol.N
    act, idx = pol._active(t)[rows], pol.idx[rows]
    levels = [dl for dl in pol.delay_levels if t - dl >= 0]
    means = np.stack([pol.stats.read("E", t - dl) / (t - dl + 1) for dl in levels])
    Kg = kz_from_mmd(mmd_from_embeddings(means.reshape(-1, pol.phi_p.D)), pol.sigma_z, pol.squared)
    ii = np.maximum(idx, 0)
    tau = np.take_along_axis(pol.tau_acc[rows], ii, axis=1)
    lev = np.searchsorted(np.array(levels), tau).clip(0, len(levels) - 1)
    fi = lev * V + ii
    return np.where(act[:, :, None] & act[:, None, :], Kg[fi[:, :, None], fi[:, None, :]], 0.0)


@pytest.mark.parametrize("name", ["Coop-KernelUCB", "Eager-KernelUCB", "Dist-KernelUCB"])
@pytest.mark.parametrize("extra_delay", [0, 1])
def test_w_lists_equal_the_gather_then_mask(net6, name, extra_delay):
    """``_W_lists`` (one gather from ``K̂_z`` padded with a zero row and column) equals gathering and then
    masking, bit for bit, at every round of a run, for every agent and for the representatives only."""
    env = ClusterEnv(net6, kind="rbf", n_clusters=3)
    kw = dict(kz="mmd", kernel={"name": "rbf", "lengthscale": 1.0}, n_features=8, n_embed=16, r_max=2,
              extra_delay=extra_delay)
    a = _policy(ALGORITHMS[name], net6, env, 9, **kw)
    b = _policy(ALGORITHMS[name], net6, env, 9, **kw)
    seen = []
    orig = a._W_lists

    def check(t, rows=None):
        got = orig(t, rows)
        r = np.arange(a.N) if rows is None else np.asarray(rows)
        if any(t - dl >= 0 for dl in a.delay_levels):
            assert np.array_equal(got, _w_lists_by_gather_and_mask(a, t, r))
            assert np.array_equal(orig(t), _w_lists_by_gather_and_mask(a, t, np.arange(a.N)))
            seen.append(t)
        else:
            assert not got.any()
        return got

    a._W_lists = check
    _lockstep(a, b, env, 9)
    assert len(seen) >= 3


def test_vectorised_tie_rule_makes_the_row_by_row_choices_and_draws():
    # Coop's select: one generator for every agent's tie-break; the vectorised rule draws only for a row with an
    # exact tie, in row order, so the choices and the generator's state after are those of the row-by-row rule
    from bandits.algorithms.kernel_ucb import argmax_ties, argmax_ties_rows

    rng = np.random.default_rng(5)
    for trial in range(200):
        n, K = int(rng.integers(1, 40)), int(rng.integers(1, 9))
        sc = rng.integers(0, 3, size=(n, K)).astype(float) if trial % 2 else rng.standard_normal((n, K))
        a, b = np.random.default_rng(trial), np.random.default_rng(trial)
        assert np.array_equal([argmax_ties(s, a) for s in sc], argmax_ties_rows(sc, b))
        assert a.random() == b.random()
    assert np.array_equal(argmax_ties_rows(np.array([[1.0, 3.0, 3.0]]), None, "first"), [1])
    with pytest.raises(ValueError):  # a row of NaN: the row-by-row rule's error, not a silent choice
        argmax_ties_rows(np.array([[np.nan, np.nan]]), np.random.default_rng(0))
