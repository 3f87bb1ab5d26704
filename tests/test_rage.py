"""Single-agent pure-exploration baselines of CoPE-KB (bandits.algorithms.rage)."""
from __future__ import annotations

import numpy as np
import pytest

from bandits.algorithms.pe_common import kernel_estimate, sample_size_constant
from bandits.algorithms.rage import (ALBACore, IndALBA, IndPeaceFB, IndPolyALBA, IndRAGE,
                                     IndUniformFB, PeaceFBCore, RAGECore, agent_features,
                                     oracle_theta_norms, ridge_estimate)
from bandits.comm import CommLedger
from bandits.design import all_pairs, feature_map_from_gram, pairwise_differences, xy_optimal_design
from bandits.envs.cope import cope_instance
from bandits.sim import run_pure_exploration


class PublicView:
    """The public part of an instance: reading F raises (policies must never look at it)."""

    def __init__(self, inst):
        self._inst = inst
        self.X, self.Z, self.V, self.n, self.kernel = inst.X, inst.Z, inst.V, inst.n, inst.kernel

    def gram(self):
        return self._inst.gram()

    @property
    def F(self):
        raise AssertionError("policy read the hidden rewards F")


def run(cls, inst, seed, noise_seed=None, max_rounds=500, **params):
    ledger = CommLedger(inst.V, max_rounds)
    pol = cls(PublicView(inst), np.random.SeedSequence(seed), ledger, **params)
    rng = np.random.default_rng(1000 + seed if noise_seed is None else noise_seed)
    tr = run_pure_exploration(pol, inst, rng, max_rounds=max_rounds)
    return tr, pol, ledger


# ------------------------------------------------------------------------------------ helpers
def test_agent_features_reproduce_gram_blocks():
    inst = cope_instance(2, 0.3)
    G = inst.gram()
    n = inst.n
    for v, Psi in enumerate(agent_features(inst)):
        assert Psi.shape == (n, 4)
        np.testing.assert_allclose(Psi @ Psi.T, G[v * n:(v + 1) * n, v * n:(v + 1) * n], atol=1e-10)


def test_ridge_matches_kernel_estimator_and_raw_samples():
    rng = np.random.default_rng(0)
    inst = cope_instance(1, 0.3)
    Gv = inst.gram()[:6, :6]
    Psi = feature_map_from_gram(Gv)
    counts = np.array([3, 0, 5, 2, 7, 1])
    raw = [inst.F[0, i] + rng.standard_normal(c) for i, c in enumerate(counts)]
    means = np.array([r.mean() if r.size else np.nan for r in raw])
    xi = 1e-3
    Fh = Psi @ ridge_estimate(Psi, counts, means, xi)
    np.testing.assert_allclose(Fh, kernel_estimate(Gv, counts, means, xi), atol=1e-8)
    Xr = np.repeat(Psi, counts, axis=0)
    y = np.concatenate(raw)
    theta = np.linalg.solve(Xr.T @ Xr + counts.sum() * xi * np.eye(Psi.shape[1]), Xr.T @ y)
    np.testing.assert_allclose(Fh, Psi @ theta, atol=1e-8)


def test_oracle_theta_norms_equal_block_norms():
    for rank in (1, 2, 5):
        inst = cope_instance(rank, 0.2)
        theta = inst.info["theta"]
        groups = inst.info["groups"]
        expect = [np.linalg.norm(theta[4 * g:4 * g + 4]) for g in groups]
        np.testing.assert_allclose(oracle_theta_norms(inst), expect, rtol=1e-9)


def test_omega_of_sorted_prefixes():
    """Spec §2.1(c): ω of the best-first prefixes of the 6 two-hot arms = 4, 6, 8, 9.33, 12."""
    inst = cope_instance(1, 0.4)
    Psi = feature_map_from_gram(inst.gram()[:6, :6])
    order = np.argsort(-inst.F[0], kind="stable")
    expect = [4.0, 6.0, 8.0, 28.0 / 3.0, 12.0]
    got = [xy_optimal_design(Psi, pairwise_differences(Psi, all_pairs(order[:k])), 1e-6).value
           for k in range(2, 7)]
    np.testing.assert_allclose(got, expect, rtol=1e-3)
    core = PeaceFBCore(Psi, budget=1000)
    np.testing.assert_allclose([core.omega(order[:k]) for k in range(2, 7)], expect, rtol=1e-3)
    assert core.omega(order[:1]) == 0.0


# ------------------------------------------------------------------------------------ RAGE
def test_rage_finds_best_and_is_deterministic_given_seed():
    inst = cope_instance(1, 0.4)
    for seed in range(4):
        tr, pol, _ = run(IndRAGE, inst, seed)
        assert tr.correct.all()
        tr2, _, _ = run(IndRAGE, inst, seed)
        np.testing.assert_array_equal(tr.samples, tr2.samples)
        assert pol.info()["samples_per_agent"] == tr.samples.sum(axis=0).astype(int).tolist()


def test_rage_theory_vs_practical_sample_sizes():
    """N_r(theory)/N_r(practical) = 32(1+ε)²/(2(1+ε)) = 16(1+ε) = 17.6 (up to the ceilings)."""
    ratio = sample_size_constant("theory", 0.1) / sample_size_constant("practical", 0.1)
    assert ratio == pytest.approx(17.6)
    Psi = feature_map_from_gram(cope_instance(1, 0.4).gram()[:6, :6])
    th = RAGECore(Psi, 0.001, constants="theory")
    pr = RAGECore(Psi, 0.001, constants="practical")
    for r, active in [(1, np.arange(6)), (2, np.array([2, 3, 4, 5])), (3, np.array([4, 5]))]:
        _, rho_t, N_t = th.plan(r, active)
        _, rho_p, N_p = pr.plan(r, active)
        assert rho_t == rho_p
        assert N_t / N_p == pytest.approx(ratio, rel=2e-3)
    # first round on the paper's instance: ρ_1 = 12, log(2n²/δ_1) with δ_1 = (δ/V)/2
    _, rho, N = pr.plan(1, np.arange(6))
    assert rho == pytest.approx(12.0, rel=1e-4)
    assert N == int(np.ceil(2.2 * 4 * rho * np.log(2 * 36 / (0.001 / 2))))


def test_rage_theory_constants_deterministic_path():
    """Theory constants at Δ=0.8: one round of N_1 = ⌈38.72·4·12·log(144000)⌉ per agent
    (= V × CoKernelFC's 4415 per agent, spec §2.6)."""
    tr, _, _ = run(IndRAGE, cope_instance(1, 0.8), 0, constants="theory")
    assert tr.correct.all() and tr.rounds == 1
    assert tr.samples_per_agent == pytest.approx(5 * 4415, abs=5)


# ------------------------------------------------------------------------------------ FB
def test_uniform_uses_exactly_T_per_agent():
    inst = cope_instance(1, 0.02)
    tr, pol, _ = run(IndUniformFB, inst, 0, budget=7001)
    assert tr.rounds == 1
    np.testing.assert_array_equal(tr.samples.sum(axis=0), np.full(inst.V, 7001))
    assert pol.info()["samples_per_agent"] == [7001] * inst.V


def test_peace_budget_and_rounds():
    inst = cope_instance(1, 0.02)
    for reuse in (False, True):
        tr, pol, _ = run(IndPeaceFB, inst, 3, budget=30000, reuse_past_rounds=reuse)
        assert np.all(tr.samples.sum(axis=0) <= 30000)
        for a in pol.info()["agents"]:
            assert a["R"] == 4 and a["N"] == 7500
            assert a["rounds"] <= 4
            # ω(top-3) = ω(all)/2 up to the 1e-3 tolerance: 6 -> 3 -> 1 (spec §2.4)
            assert a["sizes"] == [6, 3, 1]
    tr, _, _ = run(IndPeaceFB, inst, 3, T=7)  # tiny budget: still within T
    assert np.all(tr.samples.sum(axis=0) <= 7)


def test_fb_easy_instance_correct():
    inst = cope_instance(1, 0.4)
    for cls in (IndPeaceFB, IndUniformFB):
        tr, _, _ = run(cls, inst, 1, budget=3000)
        assert tr.correct.all()


# ------------------------------------------------------------------------------------ ALBA
def test_alba_designs():
    Psi = feature_map_from_gram(cope_instance(1, 0.8).gram()[:6, :6])
    rng = np.random.default_rng(0)
    alba = ALBACore(Psi, 0.001, 1.0, rng)
    lam = alba._design(np.arange(6))
    np.testing.assert_allclose(lam, np.full(6, 1 / 6))  # uniform is G-optimal here (value 4 = d)
    M = (Psi.T * lam) @ Psi
    assert np.max(np.einsum("ij,jk,ik->i", Psi, np.linalg.inv(M), Psi)) == pytest.approx(4.0)
    poly = ALBACore(Psi, 0.001, 1.0, rng, design="spanner")
    lamp = poly._design(np.arange(6))
    assert np.count_nonzero(lamp) == 4 and np.allclose(lamp[lamp > 0], 0.25)
    assert np.linalg.matrix_rank(Psi[lamp > 0]) == 4


@pytest.mark.parametrize("cls", [IndALBA, IndPolyALBA])
def test_alba_finds_best_and_is_reproducible(cls):
    inst = cope_instance(1, 0.8)
    norms = oracle_theta_norms(inst)
    for seed in range(3):
        tr, pol, _ = run(cls, inst, seed, theta_norms=norms)
        assert tr.correct.all()
        tr2, _, _ = run(cls, inst, seed, theta_norms=norms)
        np.testing.assert_array_equal(tr.samples, tr2.samples)
    with pytest.raises(TypeError):
        cls(inst, np.random.SeedSequence(0), CommLedger(inst.V, 10))


# ------------------------------------------------------------------------------------ wrappers
def test_ind_wrappers_never_communicate():
    inst = cope_instance(2, 0.8)
    norms = oracle_theta_norms(inst)
    for cls, params in [(IndRAGE, {}), (IndALBA, {"theta_norms": norms}),
                        (IndPolyALBA, {"theta_norms": norms}), (IndPeaceFB, {"budget": 2000}),
                        (IndUniformFB, {"budget": 2000})]:
        tr, _, ledger = run(cls, inst, 0, **params)
        assert ledger.messages == [] and tr.comm_scalars == 0.0


def test_finished_copies_pull_nothing():
    inst = cope_instance(1, 0.3)
    led = CommLedger(inst.V, 100)
    pol = IndRAGE(PublicView(inst), np.random.SeedSequence(5), led)
    rng = np.random.default_rng(5)
    while (alloc := pol.next_allocation()) is not None:
        for v, core in enumerate(pol.cores):
            if v not in pol._running:
                assert alloc[v].sum() == 0
        pol.observe(alloc, inst.sample_means(alloc, rng))
    assert all(core.done for core in pol.cores)


def test_sanity_fig2_rank1_delta04():
    """Spec §4.2, rank 1, Δ = 0.4, practical constants: IndRAGE ≈ 3.0k per agent,
    IndALBA ≈ 36k (far above)."""
    inst = cope_instance(1, 0.4)
    norms = oracle_theta_norms(inst)
    rage = np.mean([run(IndRAGE, inst, s)[0].samples_per_agent for s in range(3)])
    alba = np.mean([run(IndALBA, inst, s, theta_norms=norms)[0].samples_per_agent for s in range(3)])
    assert 1500 <= rage <= 6000
    assert alba > 5 * rage
