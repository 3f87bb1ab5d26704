"""CoPE-KB policies (bandits/algorithms/cope_kb.py): estimator, designs, sample sizes, FB rounds,
communication, determinism, and the Figure-1 information-sharing example (spec cope-kb §2, §4, §5.4)."""
from __future__ import annotations

import numpy as np
import pytest

from bandits.algorithms.cope_kb import (
    CoKernelFB,
    CoKernelFBIndAlloc,
    CoKernelFC,
    CoKernelIndAlloc,
    clear_design_cache,
    distinct_feature_ids,
)
from bandits.algorithms.pe_common import kernel_estimate
from bandits.comm import SERVER, CommLedger
from bandits.design import pairwise_differences, rounding_contract_ratio, within_group_pairs
from bandits.envs.cope import cope_instance, toy_instance
from bandits.sim import run_pure_exploration


class _Public:
    """What a policy may see: V, n and the Gram matrix (no F, no best)."""

    def __init__(self, inst):
        self.V, self.n, self._K = inst.V, inst.n, inst.gram()

    def gram(self):
        return self._K


def _run(cls, inst, seed=0, noise_seed=None, **kw):
    pol = cls(_Public(inst), seed, **kw)
    tr = run_pure_exploration(pol, inst, np.random.default_rng(seed if noise_seed is None else noise_seed))
    return pol, tr


def _explicit_features(inst):
    """φ(z_v, x) = z_v ⊗ x for the paper's instance (linear kernels)."""
    return np.array([np.kron(inst.Z[v], inst.X[v, i]) for v in range(inst.V) for i in range(inst.n)])


# ------------------------------------------------------------------------------ estimator
@pytest.mark.parametrize("rank", [1, 2, 5])
def test_estimator_equals_explicit_and_raw_ridge(rank):
    inst = cope_instance(rank, 0.3)
    K = inst.gram()
    Phi = _explicit_features(inst)
    np.testing.assert_allclose(Phi @ Phi.T, K, atol=1e-12)
    rng = np.random.default_rng(rank)
    xi = 1e-6
    counts = rng.integers(0, 6, size=inst.V * inst.n)
    counts[:3] = 0  # some pairs unsampled
    Fv = inst.F.ravel()
    raw = [Fv[i] + rng.standard_normal(c) for i, c in enumerate(counts)]
    means = np.array([r.mean() if r.size else np.nan for r in raw])
    N = counts.sum()
    # kernel form, from (count, mean) only
    F_kernel = kernel_estimate(K, counts, means, xi)
    # explicit features: θ̂ = (NξI + Σ N_i φ_iφ_iᵀ)⁻¹ Σ N_i ȳ_i φ_i
    m0 = np.where(counts > 0, means, 0.0)
    A = N * xi * np.eye(Phi.shape[1]) + (Phi.T * counts) @ Phi
    F_explicit = Phi @ np.linalg.solve(A, Phi.T @ (counts * m0))
    # raw samples: argmin Nξ‖θ‖² + Σ_j (y_j − φ(s_j)ᵀθ)²
    S = np.repeat(Phi, counts, axis=0)
    y = np.concatenate(raw)
    theta = np.linalg.solve(N * xi * np.eye(Phi.shape[1]) + S.T @ S, S.T @ y)
    F_raw = Phi @ theta
    np.testing.assert_allclose(F_kernel, F_explicit, rtol=0, atol=1e-8)
    np.testing.assert_allclose(F_kernel, F_raw, rtol=0, atol=1e-8)
    # the policy's estimator is the same function
    pol = CoKernelFC(_Public(inst), 0)
    np.testing.assert_allclose(pol.estimate(counts, means), F_kernel, atol=1e-12)


# ------------------------------------------------------------------------------ designs
@pytest.mark.parametrize("rank,rho", [(1, 12.0), (2, 24.0), (5, 60.0)])
def test_round1_design_value(rank, rho):
    inst = cope_instance(rank, 0.1)
    pol = CoKernelFC(_Public(inst), 0)
    lam, val = pol.global_design(pol._active_groups())
    assert val == pytest.approx(rho, rel=1e-3)
    assert lam.sum() == pytest.approx(1.0) and np.all(lam >= 0)
    # value re-evaluated at the (symmetrised) design
    assert pol.max_norm(lam, pol._active_groups()) == pytest.approx(rho, rel=1e-3)
    # identical copies carry identical mass
    fid = distinct_feature_ids(inst.gram())
    for f in np.unique(fid):
        assert np.ptp(lam[fid == f]) < 1e-12
    # literal ω(ξ, X̃) with cross-agent pairs gives the same values (spec §2.4)
    assert pol.omega(np.arange(inst.V * inst.n)) == pytest.approx(rho, rel=1e-3)


def test_omega_of_sorted_prefixes():
    inst = cope_instance(1, 0.1)
    pol = CoKernelFC(_Public(inst), 0)
    order = np.argsort(-inst.F[0], kind="stable")  # best first (the test may read F)
    got = [pol.omega(order[:k]) for k in range(2, 7)]
    np.testing.assert_allclose(got, [4.0, 6.0, 8.0, 28.0 / 3.0, 12.0], rtol=1e-3)
    assert pol.omega(order[:1]) == 0.0
    # ω ranges over designs on all of X̃: agent 3's copy of a set has the same ω
    assert pol.omega(2 * inst.n + order[:3]) == pytest.approx(got[1], rel=1e-9)


def test_rounding_contract():
    inst = cope_instance(2, 0.1)
    pol = CoKernelFC(_Public(inst), 0)
    groups = pol._active_groups()
    lam, rho = pol.global_design(groups)
    Y = pairwise_differences(pol.Psi, within_group_pairs(groups))
    for N in (500, 1234, 20000):
        counts = pol.round(lam, N)
        assert counts.sum() == N and counts.dtype.kind == "i"
        assert rounding_contract_ratio(pol.Psi, counts, lam, Y, pol.xi) <= 2 * (1 + pol.eps)


# ------------------------------------------------------------------------------ CoKernelFC
@pytest.mark.parametrize("rank", [1, 5])
def test_fc_finds_best_arms_easy(rank):
    inst = cope_instance(rank, 0.8)
    for seed in range(5):
        pol, tr = _run(CoKernelFC, inst, seed)
        assert tr.correct.all()
        assert tr.rounds >= 1 and pol.info()["stopped"] is None


def test_fc_theory_sample_complexity_and_g_over_V_law():
    S = {}
    for rank in (1, 2, 5):
        for d in (0.1, 0.8):
            pol, tr = _run(CoKernelFC, cope_instance(rank, d), 3, constants="theory")
            assert tr.correct.all()
            S[rank, d] = tr.samples_per_agent
            assert tr.samples_per_agent == pytest.approx(pol.info()["samples_per_agent"])
    # spec §4.2: 4415 at Δ = 0.8 (one round: 38.72·4·12·log(144000)/5) and 196,116 at Δ = 0.1
    assert S[1, 0.8] == pytest.approx(4415, abs=1.0)
    assert S[1, 0.1] == pytest.approx(196116, abs=2.0)
    # g/V law: S_CoKernelFC(rank g) = g · S_CoKernelFC(rank 1) (= (g/V) · S_IndRAGE)
    for g in (2, 5):
        for d in (0.1, 0.8):
            assert S[g, d] / S[1, d] == pytest.approx(g, rel=0.01)


def test_fc_practical_rank1_matches_spec():
    pol, tr = _run(CoKernelFC, cope_instance(1, 0.8), 0)
    assert tr.samples_per_agent == pytest.approx(251, abs=1.0)
    assert tr.rounds == 1
    assert max(pol.info()["loads"]) - min(pol.info()["loads"]) <= 2  # balanced loads


def test_indalloc_reading_A_and_B():
    # rank 2: averaged local designs give the blocks mass 2/5, 3/5 → ρ_1 = 30 instead of 24
    inst = cope_instance(2, 0.8)
    pol, tr = _run(CoKernelIndAlloc, inst, 0)
    assert pol.info()["rho"][0] == pytest.approx(30.0, rel=1e-3)
    assert tr.correct.all()
    fc, trf = _run(CoKernelFC, inst, 0)
    assert tr.samples_per_agent / trf.samples_per_agent == pytest.approx(1.25, rel=0.01)
    # rank 1 and rank 5: identical to CoKernelFC (theory constants: deterministic)
    for rank in (1, 5):
        inst = cope_instance(rank, 0.8)
        a = _run(CoKernelIndAlloc, inst, 1, constants="theory")[1].samples_per_agent
        b = _run(CoKernelFC, inst, 1, constants="theory")[1].samples_per_agent
        assert a == pytest.approx(b, abs=1.0)
    polB, trB = _run(CoKernelIndAlloc, cope_instance(2, 0.8), 0, reading="B")
    assert trB.correct.all()
    # reading B: every agent pays its single-agent RAGE batch (ρ_v = 12 each) → ≈ 5× rank-1 FC
    assert trB.samples_per_agent == pytest.approx(5 * 251, rel=0.01)


def test_indalloc_reading_B_closed_form_rank1():
    # theory constants (deterministic elimination), rank 1: every agent sizes its batch from its local
    # ρ_v = 12 = ρ*_1, so reading B pays V times CoKernelFC's samples, exactly IndRAGE's (δ/V per copy)
    from bandits.algorithms.rage import IndRAGE

    for dm in (0.4, 0.8):
        inst = cope_instance(1, dm)
        a = _run(CoKernelFC, inst, 1, constants="theory")[1]
        b = _run(CoKernelIndAlloc, inst, 1, constants="theory", reading="B")[1]
        c = run_pure_exploration(IndRAGE(_Public(inst), 1, CommLedger(inst.V, 64), constants="theory"), inst,
                                 np.random.default_rng(1))
        assert b.samples_per_agent == pytest.approx(inst.V * a.samples_per_agent, rel=1e-9)
        assert b.samples_per_agent == pytest.approx(c.samples_per_agent, rel=1e-9)
        assert b.rounds == a.rounds and b.correct.all()
    with pytest.raises(ValueError, match="reading"):
        CoKernelIndAlloc(_Public(cope_instance(1, 0.8)), 0, reading="C")


@pytest.mark.parametrize("rank", [1, 2, 5])
def test_fb_indalloc_reading_B_schedule(rank):
    # reading B: each agent's own Peace schedule, ω_v = 12 → R_v = 4, N_v = ⌊T/4⌋ per round on its own
    # arms; 6 → 3 → 1 arms in 2 rounds, so every agent spends exactly 2⌊T/4⌋ of its T
    inst = cope_instance(rank, 0.05)
    T = 7001
    pol, tr = _run(CoKernelFBIndAlloc, inst, 0, T=T, reading="B")
    info = pol.info()
    assert info["reading"] == "B" and info["R_v"] == [4] * inst.V and info["N_v"] == [T // 4] * inst.V
    assert info["omega_v"] == pytest.approx([12.0] * inst.V, rel=1e-4)
    assert tr.rounds == 2 and info["cuts"][0] == [3] * inst.V
    np.testing.assert_array_equal(tr.samples.sum(axis=0), [2 * (T // 4)] * inst.V)  # (rounds, V) pulls
    assert tr.samples_per_agent == 2 * (T // 4) <= T
    # reading A keeps CoKernelFB's literal R = 4 / 5 / 6
    assert CoKernelFBIndAlloc(_Public(inst), 0, T=T).R == {1: 4, 2: 5, 5: 6}[rank]
    with pytest.raises(ValueError, match="reading"):
        CoKernelFBIndAlloc(_Public(inst), 0, T=T, reading="C")


def test_fb_indalloc_reading_A_is_cokernelfb_at_rank1():
    inst = cope_instance(1, 0.05)
    a = _run(CoKernelFB, inst, 3, T=9000)[1]
    b = _run(CoKernelFBIndAlloc, inst, 3, T=9000)[1]
    assert a.samples_per_agent == b.samples_per_agent
    np.testing.assert_array_equal(a.recommended, b.recommended)


# ------------------------------------------------------------------------------ communication
def test_messages_counted_by_hand():
    # toy: V = 2, n = 2 → 2n = 4 scalars per agent per round, 8 per round
    inst = toy_instance()
    ledger = CommLedger(inst.V, 40)
    pol = CoKernelFC(_Public(inst), 0, ledger)
    tr = run_pure_exploration(pol, inst, np.random.default_rng(0))
    R = tr.rounds
    assert R >= 1
    assert len(ledger.messages) == R * inst.V
    for k, msg in enumerate(ledger.messages):
        assert msg.t == k // inst.V and msg.sender == k % inst.V and msg.receiver == SERVER
        assert msg.scalars == 2 * inst.n and msg.kind == "counts_means"
    assert ledger.rounds() == R
    assert tr.comm_scalars == R * 2 * inst.n * inst.V == pol.info()["comm_scalars"]
    # paper instance, theory constants, Δ = 0.4: exactly 2 rounds → 2 · 2·6·5 = 120 scalars
    pol, tr = _run(CoKernelFC, cope_instance(1, 0.4), 0, constants="theory")
    assert tr.rounds == 2 and tr.comm_scalars == 120
    info = pol.info()
    assert info["comm_rounds"] == 2 and info["comm_scalars_per_round"] == 60
    assert info["raw_sharing_scalars"] == 2 * sum(info["N"]) > 100 * info["comm_scalars"]


def test_same_seed_same_counts():
    inst = cope_instance(2, 0.2)
    _, a = _run(CoKernelFC, inst, 7)
    clear_design_cache()
    pol, b = _run(CoKernelFC, inst, 7)
    np.testing.assert_array_equal(a.samples, b.samples)
    np.testing.assert_array_equal(a.recommended, b.recommended)
    assert a.info["N"] == b.info["N"]
    fa = _run(CoKernelFB, inst, 7, T=20000)[1]
    fb = _run(CoKernelFB, inst, 7, T=20000)[1]
    np.testing.assert_array_equal(fa.samples, fb.samples)


# ------------------------------------------------------------------------------ CoKernelFB
@pytest.mark.parametrize("rank,R", [(1, 4), (2, 5), (5, 6)])
def test_fb_rounds_and_budget(rank, R):
    inst = cope_instance(rank, 0.05)
    T = 7000
    pol, tr = _run(CoKernelFB, inst, 0, T=T)
    info = pol.info()
    assert info["R"] == R and info["N_per_round"] == (T * inst.V) // R
    assert tr.samples.sum() <= T * inst.V
    assert 1 <= tr.rounds <= R
    assert all(n == (T * inst.V) // R for n in info["N"])
    # 6 → 3 → 1 arms (every 3-subset of the two-hot arms has ω ≤ 6 = ω(all)/2)
    assert info["cuts"][0] == [3] * inst.V
    # R_mode="within": max_v ω(ξ, X̃_v) = 12 → R = 4 in every case
    assert CoKernelFB(_Public(inst), 0, T=T, R_mode="within").R == 4


def test_fb_variants_respect_budget():
    inst = cope_instance(2, 0.1)
    T = 5000
    for cls, kw in ((CoKernelFB, {"reuse_past_rounds": True}), (CoKernelFBIndAlloc, {})):
        pol, tr = _run(cls, inst, 1, T=T, **kw)
        assert tr.samples.sum() <= T * inst.V
        assert tr.recommended.shape == (inst.V,)
    # easy instance, big budget: correct
    pol, tr = _run(CoKernelFB, cope_instance(1, 0.5), 2, T=5000)
    assert tr.correct.all()


# ------------------------------------------------------------------------------ Figure 1
def test_toy_information_sharing_through_kernel():
    """Figure 1: agent 1 holds items 1, 2 (pairs 0, 1), agent 2 holds items 2, 3 (pairs 2, 3).
    Only agent 1 pulls item 2; agent 2's estimate of its own item 2 moves with that data."""
    inst = toy_instance()
    K = inst.gram()
    assert K[1, 2] == K[1, 1] == K[2, 2]  # the two copies of item 2 are the same feature
    counts = np.array([0, 100, 0, 0])
    before = kernel_estimate(K, np.zeros(4), np.full(4, np.nan), 1e-6)
    ybar = 4.0 + 2.0 * np.sqrt(2.0)
    after = kernel_estimate(K, counts, np.array([np.nan, ybar, np.nan, np.nan]), 1e-6)
    assert before[2] == 0.0
    assert after[2] == pytest.approx(ybar, rel=1e-5)  # agent 2 learned item 2 without pulling it
    assert after[2] == pytest.approx(after[1], rel=1e-12)
    after2 = kernel_estimate(K, counts, np.array([np.nan, ybar + 1.0, np.nan, np.nan]), 1e-6)
    assert after2[2] - after[2] == pytest.approx(1.0, rel=1e-5)
    # the collaborative algorithm solves the toy problem
    pol, tr = _run(CoKernelFC, inst, 0)
    assert tr.correct.all()
