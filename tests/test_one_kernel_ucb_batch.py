"""OneKernelUCB's batch rule: ``batch="fantasy"`` conditions each client's variance on the step's
earlier choices (GP-BUCB, :class:`bandits.algorithms.kernel_ucb.PendingQueries`).

Checked: the conditioned variance equals the exact posterior variance computed from scratch on data ∪
pending (closed form, finite domain and fresh contexts, CPU and torch), the scores use the data's mean with it
on both variance scales; one client per step makes "fantasy" bit-identical to "none"; with N clients on one
finite domain the queries are no longer all the same; runs are deterministic under the seed; the ledger's
scalars are those of "none" and its messages follow the docstring's sequencing."""
from __future__ import annotations

import numpy as np
import pytest

from bandits.algorithms import OneKernelUCB
from bandits.algorithms.kernel_ucb import KernelUCBAgent, PendingQueries
from bandits.comm import CommLedger
from bandits.envs import make_env
from bandits.experiments import arena as ar
from bandits.kernels import make_kernel
from bandits.runner import run_seeds
from bandits.sim import run_regret

KERNEL = {"name": "rbf", "lengthscale": 0.7}
LAM = 0.2


def _exact(kernel, lam, Xd, yd, Z, Xq):
    """Closed form: the mean on the data (Xd, yd), the variance on the inputs Z (data ∪ pending)."""
    A = kernel(Xd, Xd) + lam * np.eye(len(Xd))
    mu = kernel(Xq, Xd) @ np.linalg.solve(A, yd)
    B = kernel(Z, Z) + lam * np.eye(len(Z))
    kq = kernel(Z, Xq)
    var = kernel.diag(Xq) - np.einsum("ij,ij->j", kq, np.linalg.solve(B, kq))
    return mu, var


@pytest.mark.parametrize("variance_scale", ["gp", "ridge"])
def test_fantasy_variance_is_the_exact_posterior_variance_finite_domain(variance_scale):
    rng = np.random.default_rng(0)
    k = make_kernel(KERNEL)
    X = rng.uniform(-1, 1, (25, 3))
    ids = np.arange(25)
    agent = KernelUCBAgent(k, LAM, 1.3, 3, np.random.default_rng(1), variance_scale)
    data = [3, 7, 7, 11, 20]  # a repeated point too
    ys = rng.normal(size=len(data))
    agent.scores(X, ids)
    for i, y in zip(data, ys):
        agent.observe(X, ids, i, y)
    mean0, var0 = agent.post.mean.copy(), agent.post.var.copy()
    pend = PendingQueries(agent)
    chosen = [7, 2, 2, 15]  # a data point and a repeated pending point
    for j, c in enumerate(chosen):
        s = agent.scores(X, ids, pend)
        mu, var = _exact(k, LAM, X[data], ys, X[data + chosen[:j]], X)
        np.testing.assert_allclose(pend.variance(X, ids, None) if j else agent.post.var, var, atol=1e-10)
        width = np.sqrt(np.maximum(var, 0) / (LAM if variance_scale == "ridge" else 1.0))
        np.testing.assert_allclose(s, mu + 1.3 * width, atol=1e-8)
        pend.add(X, ids, c)
    assert pend.m == len(chosen)
    # the agent's own posterior is untouched
    np.testing.assert_array_equal(agent.post.mean, mean0)
    np.testing.assert_array_equal(agent.post.var, var0)
    assert agent.post.n == len(data)


@pytest.mark.parametrize("device", ["cpu", "torch-cpu"])
@pytest.mark.parametrize("variance_scale", ["gp", "ridge"])
def test_fantasy_variance_is_the_exact_posterior_variance_fresh_contexts(variance_scale, device):
    if device != "cpu":
        pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    k = make_kernel(KERNEL)
    agent = KernelUCBAgent(k, LAM, 0.8, 4, np.random.default_rng(3), variance_scale, device=device)
    Xd = rng.uniform(-1, 1, (6, 4))
    yd = rng.normal(size=6)
    for x, y in zip(Xd, yd):
        agent.scores(x[None, :], None)
        agent.observe(x[None, :], None, 0, y)
    pend = PendingQueries(agent)
    P = []
    for j in range(4):
        Xq = rng.uniform(-1, 1, (7, 4))
        if j == 2:
            Xq[3] = Xd[1]  # a data point offered again
        s = agent.scores(Xq, None, pend)
        mu, var = _exact(k, LAM, Xd, yd, np.vstack([Xd] + P) if P else Xd, Xq)
        width = np.sqrt(np.maximum(var, 0) / (LAM if variance_scale == "ridge" else 1.0))
        np.testing.assert_allclose(s, mu + 0.8 * width, atol=1e-8)
        c = int(np.argmax(s))
        pend.add(Xq, None, c)
        P.append(Xq[c : c + 1])
    assert agent.gp.n == 6


def test_fantasy_variance_before_any_data():
    k = make_kernel(KERNEL)
    rng = np.random.default_rng(4)
    agent = KernelUCBAgent(k, LAM, 1.0, 2, np.random.default_rng(5))
    X = rng.uniform(-1, 1, (5, 2))
    pend = PendingQueries(agent)
    agent.scores(X, None, pend)
    pend.add(X, None, 1)
    s = agent.scores(X, None, pend)
    _, var = _exact(k, LAM, np.zeros((0, 2)), np.zeros(0), X[1:2], X)
    np.testing.assert_allclose(s, np.sqrt(var), atol=1e-12)


def _run(env_spec, N, T, seed=0, rep=0, **params):
    """(choices per step, regret, ledger) of OneKernelUCB on ``env_spec``."""
    env = make_env(env_spec, 0)
    env_ss, alg_ss = run_seeds(seed, rep)
    rng_env, rng_noise = (np.random.default_rng(s) for s in env_ss.spawn(2))
    ledger = CommLedger(N, T)
    pol = OneKernelUCB(N, T, env.dim, alg_ss, ledger, **dict({"kernel": KERNEL, "lam": LAM, "beta": 1.0}, **params))
    chosen = []
    select = pol.select

    def recording(t, agents, arms):
        c = select(t, agents, arms)
        chosen.append(np.asarray(arms.ids)[c] if getattr(arms, "ids", None) is not None else c)
        return c

    pol.select = recording
    tr = run_regret(pol, env, T, N, rng_env, rng_noise)
    return chosen, np.asarray(tr.regret), ledger


FINITE = {"name": "h1", "M": 60, "noise_std": 0.2}


@pytest.mark.parametrize("spec", [dict(FINITE, schedule="uniform"), {"name": "f1", "kind": "contextual", "K": 8,
                                                                     "noise_std": 0.1, "schedule": "uniform"}])
@pytest.mark.parametrize("variance_scale", ["gp", "ridge"])
def test_one_client_per_step_is_bit_identical(spec, variance_scale):
    a = _run(spec, 4, 25, variance_scale=variance_scale, batch="none")
    b = _run(spec, 4, 25, variance_scale=variance_scale, batch="fantasy")
    assert all(len(c) == 1 for c in a[0])
    for x, y in zip(a[0], b[0]):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(a[1], b[1])
    assert a[2].messages == b[2].messages


def test_n_clients_on_one_finite_domain_query_different_candidates():
    spec = dict(FINITE, schedule="sync")
    none, _, _ = _run(spec, 5, 12, batch="none")
    fant, _, _ = _run(spec, 5, 12, batch="fantasy")
    same = lambda ch: sum(int(np.all(q == q[0])) for q in ch)  # noqa: E731
    assert same(none) >= 11  # the shared model's one argmax (all but possibly the flat first round)
    assert same(fant) == 0
    assert np.mean([len(set(q.tolist())) for q in fant]) > 3  # most of the 5 queries of a round differ


def test_fantasy_runs_are_deterministic_under_the_seed():
    spec = dict(FINITE, schedule="sync")
    a = _run(spec, 4, 10, batch="fantasy")
    b = _run(spec, 4, 10, batch="fantasy")
    c = _run(spec, 4, 10, rep=1, batch="fantasy")
    for x, y in zip(a[0], b[0]):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[1], c[1])


@pytest.mark.parametrize("download", ["all", "none"])
def test_fantasy_sends_the_same_scalars_and_charges_the_sequencing_in_messages(download):
    N, T = 4, 5
    spec = {"name": "f1", "kind": "contextual", "K": 6, "noise_std": 0.1, "schedule": "sync"}
    _, _, none = _run(spec, N, T, batch="none", download=download)
    _, _, fant = _run(spec, N, T, batch="fantasy", download=download)
    d = 20
    assert fant.total_up == none.total_up == N * T * (d + 1)
    assert fant.total_down == none.total_down == (N * T * (N - 1) * (d + 1) if download == "all" else 0)
    assert fant.rounds() == none.rounds() == T
    n_msg = lambda led: sum(m.n_receivers for m in led.messages)  # noqa: E731
    up = 2 * (N - 1) + 1  # x then y for the first N − 1 clients of a step, (x, y) for the last
    down = N * (N - 1) + N * (N - 1) // 2 if download == "all" else 0  # + the early x to the later clients
    assert n_msg(none) == T * (N + (N * (N - 1) if download == "all" else 0))
    assert n_msg(fant) == T * (up + down)


def test_batch_is_validated():
    with pytest.raises(ValueError, match="batch"):
        OneKernelUCB(2, 3, 2, np.random.SeedSequence(0), CommLedger(2, 3), KERNEL, batch="gp-bucb")


def test_arena_runs_fantasy_in_sync_and_none_in_async():
    p = ar.arena_params("quick")
    assert ar.method_config("OneKernelUCB", "sync", "h1", 0.0, p)[1]["batch"] == "fantasy"
    assert ar.method_config("OneKernelUCB", "async", "h1", 0.0, p)[1]["batch"] == "none"
