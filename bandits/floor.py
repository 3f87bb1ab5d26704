"""The engines against their floor: the arithmetic a run must do, the machine's rate for it, and the
engine's time as a ratio to that floor (``python -m bandits.bench floor``; the table in docs/running.md).

For each heavy engine a reduced but representative run is timed (CPU time, one thread) and the work it
must do is counted from its own recorded sizes (:class:`Work`: level-3 flops on large and on small
matrices, bytes of level-2 updates, calls of a tiny network, kernel ``exp`` evaluations); the machine's
rates for each kind of work are measured in the same run (:func:`machine_rates`), and the floor is the
counted work at those rates. A ratio near 1 is an engine at the machine's limit. Split from
:mod:`bandits.bench`, which keeps the command line and the older benchmarks.
"""
from __future__ import annotations

import time

import numpy as np

from .algorithms import get_algorithm
from .comm import CommLedger
from .envs import make_env
from .experiments.common import repo_root
from .runtimes import row_seconds, run_key
from .sim import run_regret


def _exact_gp_at(*args, **kwargs):
    from .bench import _exact_gp_at as f

    return f(*args, **kwargs)


# ==============================================================================================
# Floors: the arithmetic a run must do, the machine's rate for it, the engine's time as a ratio
# ==============================================================================================
#: matrices up to this order count at the small-matrix rate, larger ones at the large-dgemm rate
SMALL_MAX = 256


class Work:
    """Work a run must do, counted from its sizes, in four kinds, each at its own measured rate:

    * ``l3_big``: flops of level-3 operations (GEMM, triangular solves with many right-hand sides,
      Cholesky) on matrices of order > :data:`SMALL_MAX`, at the large-dgemm rate;
    * ``l3_small``: the same on smaller matrices, at the small-matrix rate;
    * ``bytes``: bytes a level-2 operation must stream (a rank-1 update reads and writes its n × n
      matrix: 16n²; a matrix-vector product reads it: 8n²), at the memory bandwidth;
    * ``calls``: calls of a tiny network's forward/backward pass, each costing at least the per-call
      overhead (small networks are dominated by it);
    * ``elem``: kernel entries (one ``exp`` each), at the measured rate of ``np.exp``.

    Only the operations an algorithm cannot do without are counted (not copies, not re-factorisations
    that an update could replace); other elementwise work (ReLU, clipping) is not counted, so the floor
    is a lower bound. ``floor = l3_big/R_big + l3_small/R_small + bytes/BW + calls·t_call + elem/R_exp``.
    """

    def __init__(self):
        self.l3_big = self.l3_small = self.bytes = self.calls = self.elem = 0.0

    def l3(self, flops: float, n: int) -> "Work":
        """Level-3 flops on matrices whose largest order is ``n``."""
        if n > SMALL_MAX:
            self.l3_big += flops
        else:
            self.l3_small += flops
        return self

    def gemm(self, m: int, k: int, n: int) -> "Work":
        """``(m × k) @ (k × n)``: 2mkn flops."""
        return self.l3(2.0 * m * k * n, max(m, k, n))

    def trsm(self, n: int, nrhs: int) -> "Work":
        """Triangular solve, ``n × n`` factor, ``nrhs`` right-hand sides: n²·nrhs flops."""
        return self.l3(float(n) * n * nrhs, n)

    def chol(self, n: int) -> "Work":
        """Cholesky of an ``n × n`` matrix: n³/3 flops."""
        return self.l3(n**3 / 3.0, n)

    def kernel(self, a: int, b: int, d: int) -> "Work":
        """An ``a × b`` kernel matrix of ``d``-dimensional points: the inner products (2abd flops) and
        one ``exp`` per entry."""
        self.elem += float(a) * b
        return self.gemm(a, d, b)

    def stream(self, nbytes: float) -> "Work":
        self.bytes += float(nbytes)
        return self

    def rank1(self, n: int) -> "Work":
        """Sherman–Morrison / rank-1 update of an ``n × n`` inverse: one matrix-vector product (reads
        8n² bytes) and one rank-1 update (reads and writes 16n²)."""
        return self.stream(24.0 * n * n)

    def call(self, n: int = 1) -> "Work":
        self.calls += n
        return self

    @property
    def flops(self) -> float:
        return self.l3_big + self.l3_small

    def floor(self, rates: dict) -> float:
        return (self.l3_big / rates["gemm_big_flops"] + self.l3_small / rates["gemm_small_flops"]
                + self.bytes / rates["bandwidth_bytes"] + self.calls * rates["call_s"]
                + self.elem / rates["exp_per_s"])

    def as_dict(self) -> dict:
        return {"l3_big_flops": self.l3_big, "l3_small_flops": self.l3_small, "bytes": self.bytes,
                "calls": self.calls, "exp": self.elem}


def _best_rate(fn, work: float, min_s: float = 0.15, reps: int = 3) -> float:
    """``work`` per second of ``fn()``, the best of ``reps`` batches of at least ``min_s`` CPU
    seconds each (the best batch is the machine's rate; the others carry other jobs' noise)."""
    fn()
    best = 0.0
    for _ in range(reps):
        n, t0 = 0, time.process_time()
        while True:
            fn()
            n += 1
            dt = time.process_time() - t0
            if dt >= min_s:
                break
        best = max(best, n * work / dt)
    return best


def machine_rates(min_s: float = 0.15) -> dict:
    """The machine's rates on one thread (CPU time), measured now: a large dgemm (n = 1000), square
    GEMMs and Cholesky solves of order 50–200 (the small-matrix rate is the best of them), the
    memory bandwidth (a rank-1 update ``dger`` of a 2048 × 2048 matrix: 16n² bytes read and written,
    and a 64 MB copy; the larger counts), and the per-call overhead of a tiny network's forward and
    backward pass (m = 20, d = 10, 32 samples) in torch (autograd) and in numpy (the closed form the
    CPU engines use); the smaller is the floor's."""
    from scipy.linalg import cho_factor, cho_solve
    from scipy.linalg.blas import dger

    rng = np.random.default_rng(0)
    out = {}
    n = 1000
    A, B = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    out["gemm_big_flops"] = _best_rate(lambda: A @ B, 2.0 * n**3, min_s)
    small = {}
    for n in (50, 100, 200):
        A, B = rng.standard_normal((n, n)), rng.standard_normal((n, n))
        small[f"gemm_{n}"] = _best_rate(lambda: A @ B, 2.0 * n**3, min_s)
        S = A @ A.T + n * np.eye(n)
        small[f"chol_solve_{n}"] = _best_rate(lambda: cho_solve(cho_factor(S, check_finite=False), B,
                                                                check_finite=False),
                                              n**3 / 3.0 + 2.0 * n**3, min_s)
    out["small"] = small
    out["gemm_small_flops"] = max(small.values())
    n = 2048
    M = np.asfortranarray(rng.standard_normal((n, n)))
    u = rng.standard_normal(n)
    bw_ger = _best_rate(lambda: dger(1e-12, u, u, a=M, overwrite_a=1), 16.0 * n * n, min_s)
    big = rng.standard_normal(8 << 20)
    dst = np.empty_like(big)
    bw_copy = _best_rate(lambda: np.copyto(dst, big), 2.0 * big.nbytes, min_s)
    out.update(bandwidth_ger=bw_ger, bandwidth_copy=bw_copy, bandwidth_bytes=max(bw_ger, bw_copy))
    x = rng.standard_normal(1 << 20)
    y = np.empty_like(x)
    out["exp_per_s"] = _best_rate(lambda: np.exp(x, out=y), float(x.size), min_s)
    out.update(_call_overheads())
    out["call_s"] = min(out["call_torch_s"], out["call_numpy_s"])
    return out


def _call_overheads(reps: int = 300) -> dict:
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        g = torch.Generator().manual_seed(0)
        X = torch.randn(32, 10, generator=g, dtype=torch.float64)
        y = torch.randn(32, dtype=torch.float64)
        W1 = torch.randn(20, 10, generator=g, dtype=torch.float64, requires_grad=True)
        w2 = torch.randn(20, generator=g, dtype=torch.float64, requires_grad=True)

        def torch_step():
            loss = ((torch.relu(X @ W1.T) @ w2 - y) ** 2).sum()
            loss.backward()
            W1.grad = w2.grad = None

        Xn, yn, W1n, w2n = X.numpy(), y.numpy(), W1.detach().numpy().copy(), w2.detach().numpy().copy()

        def numpy_step():
            a = Xn @ W1n.T
            h = np.maximum(a, 0.0)
            r = h @ w2n - yn
            gw2 = h.T @ r
            gW1 = ((a > 0) * (r[:, None] * w2n[None, :])).T @ Xn
            return gw2, gW1

        out = {}
        for name, fn in (("call_torch_s", torch_step), ("call_numpy_s", numpy_step)):
            for _ in range(20):
                fn()
            ts = []
            for _ in range(reps):
                t0 = time.process_time()
                fn()
                ts.append(time.process_time() - t0)
            # process_time ticks coarsely on some systems: the mean of the faster half
            ts = np.sort(ts)[: reps // 2]
            out[name] = float(max(ts.mean(), 1e-7))
        return out
    finally:
        torch.set_num_threads(threads)


def _timed(fn) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


# ---------------------------------------------------------------------------------------------
# Coop-KernelUCB / Eager-KernelUCB (primal path), linear row
# ---------------------------------------------------------------------------------------------
def coop_work(rounds: list[dict], D: int, K: int, n_points: int, n_embed: int) -> Work:
    """Floor of a Coop-type run from its per-round sizes (``rounds``: one dict per scoring round with
    ``refresh`` (K̂_z refreshed) and ``models``: a tuple ``(r, members, sources, n)`` per model: rank,
    agents served, accepted sources visible, observations visible).

    Per refresh: the MMD Gram of the ``n_points`` mean embeddings (2·n_points²·n_embed) and, per model,
    the eigenpairs of its network kernel over its sources (the tridiagonalisation, 4/3·s³). Per model
    and round, the cheaper of two exact forms of the same posterior:

    * primal, ``p = r·D``: absorb the round's new observations (one per visible source; each
      ψ = L_u ⊗ φ(x) is a rank-1 term: a rank-s factor update, 2p²s) or build the model from the
      sources' statistics (the packed GEMM 2·(r(r+1)/2)·s·(D(D+1)/2) and a Cholesky p³/3), the
      cheaper of the two (a refresh changes the features and forces the build); then every member
      scores its K arms (K triangular solves, K·p²);
    * dual, over the n visible observations: their Gram (2n²D) and Cholesky (n³/3), each member's K
      arms against them (2K·n·D and K·n²).
    """
    w = Work()
    ntri = D * (D + 1) // 2
    for rd in rounds:
        if rd["refresh"]:
            w.gemm(n_points, n_embed, n_points)
        for r, members, sources, n in rd["models"]:
            p = r * D
            if rd["refresh"]:
                w.l3(4.0 / 3.0 * sources**3, sources)
            build = 2.0 * (r * (r + 1) // 2) * sources * ntri + p**3 / 3.0
            upd = 2.0 * p * p * sources
            primal = (build if rd["refresh"] else min(build, upd)) + float(p) * p * K * members
            dual = 2.0 * n * n * D + n**3 / 3.0 + members * (2.0 * K * n * D + float(n) * n * K)
            if primal <= dual:
                w.l3(primal, p)
            else:
                w.l3(dual, n)
    return w


def _record_coop(pol) -> list[dict]:
    """Wrap ``pol.scores`` to record the sizes :func:`coop_work` needs (no effect on the run)."""
    rounds = []
    orig = pol.scores

    def scores(t, arms):
        refresh = bool(pol._refresh_due(t))
        out = orig(t, arms)
        models = []
        for c in pol.reps:
            c = int(c)
            tau = pol.tau_acc[c][pol.acc[c]]
            seen = tau[tau <= t]
            models.append((int(pol.r[c]), len(pol.members[c]), len(seen), int(np.sum(t - seen + 1))))
        rounds.append({"refresh": refresh, "models": models})
        return out

    pol.scores = scores
    return rounds


def floor_coop(method: str, T: int = 40, V: int = 200, seed: int = 0, row: str = "linear", graph: str = "er") -> dict:
    """Coop- or Eager-KernelUCB, a row of Figure 1 on ER(V, 0.7) at the full mode's settings (γ = 1,
    8 arms, d = 10, K̂_z every 10 rounds; linear row: r_max = 10; RBF row: 32 Nyström features,
    r_max = 4, no rank cap), its first T rounds: the measured CPU time and the floor
    (:func:`coop_work`; on the RBF row the arms' features, a kernel to the landmarks and a triangular
    solve per arm, are counted too)."""
    from .experiments.coop_kernelucb import env_spec, fig1_params, method_params

    key = "T_linear" if row == "linear" else "T_rbf"
    T_full = fig1_params("full")[key]
    p = fig1_params("full", V=V, **{key: T})
    env = make_env(env_spec(p, row, graph), seed)
    cls = get_algorithm(method)
    params = cls.env_params(env, method_params(p, row, {}))
    pol = cls(V, T, env.dim, np.random.SeedSequence(seed), CommLedger(V, T), **params)
    rounds = _record_coop(pol)
    s = _timed(lambda: run_regret(pol, env, T, V, np.random.default_rng(seed + 1), np.random.default_rng(seed + 2)))
    levels = len(pol.delay_levels)
    w = coop_work(rounds, pol.D, p["K"], levels * V, pol.phi_p.D)
    if row != "linear":  # φ(x) of every agent's arms: kernel to the D landmarks, then the basis
        for _ in rounds:
            w.kernel(V * p["K"], pol.D, env.dim).trsm(pol.D, V * p["K"])
    ranks = [r for rd in rounds for r, *_ in rd["models"]]
    net = "ER(0.7)" if graph == "er" else graph
    sizes = (f"{row} row, V = {V}, {net}, the first T = {T} of {T_full} rounds, K = {p['K']}, d = {env.dim}: "
             f"{len(pol.reps)} models, rank mean {np.mean(ranks):.1f} (p = r·D up to {max(ranks) * pol.D})")
    return {"sizes": sizes, "work": w, "measured_s": s, "T": T, "T_full": T_full}


# ---------------------------------------------------------------------------------------------
# Approx-DisKernelUCB and Async-KernelUCB on fresh contexts (Async-KernelUCB's Figure 2, f1)
# ---------------------------------------------------------------------------------------------
def _f1_env(K: int = 20):
    return make_env({"name": "f1", "kind": "contextual", "K": K, "noise_std": 0.1, "schedule": "uniform"}, 0)


def approx_dis_work(steps: list[tuple], syncs: list[tuple], d: int) -> Work:
    """Floor of an Approx-DisKernelUCB run on fresh contexts. ``steps``: (m, K) per agent-step (the
    dictionary size then, the arms); ``syncs``: (n, m_old, m) per synchronisation (history size, old
    and new dictionary sizes).

    Per step: the arms' Nyström features (kernel to the dictionary 2Kmd, then the basis, a triangular
    solve K·m²) and their variances under the synchronised A⁻¹ (K·2m², which also gives the chosen
    arm's trigger variance and ``A⁻¹z``). An agent's own points since the sync enter as a low-rank
    correction of the shared A⁻¹ (O(m·k) per arm for k own points, not counted), so no m × m update
    per step is needed (the engine does one, a Sherman–Morrison update of its own copy). Per sync: the
    leverage scores of the n history points under the
    old model (n·m_old²), the new dictionary's kernel matrix and factor (m²d, m³/3), the history's
    features (the kernel 2nmd, then n·m²),
    ``ZᵀZ`` (n·m², symmetric) and the inverse of ``A`` (m³/3 + 2m³/3)."""
    w = Work()
    for m, K in steps:
        if m:
            w.kernel(K, m, d).trsm(m, K).gemm(K, m, m)
    for n, m_old, m in syncs:
        if m_old:
            w.trsm(m_old, n)
        w.kernel(m, m, d).chol(m).kernel(n, m, d).trsm(m, n).l3(float(n) * m * m, m).l3(m**3, m)
    return w


def floor_approx_dis(T: int = 2000, N: int = 100, seed: int = 0) -> dict:
    """Approx-DisKernelUCB as in Async-KernelUCB's Figure 2 on f1 (γ = 1, λ = 1, D = 1, q̄ = 1,
    K = 20, ``var_sum`` trigger), T steps of N = 100 clients, one active per step."""
    from .algorithms.dis_kernel_ucb import ApproxDisKernelUCB

    env = _f1_env()
    pol = ApproxDisKernelUCB(N, T, env.dim, np.random.SeedSequence(seed), CommLedger(N, T),
                             kernel={"name": "rbf", "gamma": 1.0}, lam=1.0, beta=1.0, D=1.0, qbar=1.0)
    steps, syncs = [], []
    orig_sel, orig_sync = pol.select, pol._sync

    def select(t, agents, arms):
        steps.extend((pol.m, arms.for_agent(k).shape[0]) for k in range(len(agents)))
        return orig_sel(t, agents, arms)

    def sync(t):
        n, m_old = pol._nh, pol.m
        orig_sync(t)
        syncs.append((n, m_old, pol.m))

    pol.select, pol._sync = select, sync
    s = _timed(lambda: run_regret(pol, env, T, N, np.random.default_rng(seed), np.random.default_rng(seed + 1)))
    w = approx_dis_work(steps, syncs, env.dim)
    sizes = f"f1, N = {N}, T = {T} (of 10 000), K = 20, d = {env.dim}, {len(syncs)} syncs, dictionary up to {pol.m}"
    return {"sizes": sizes, "work": w, "measured_s": s, "T": T, "T_full": 10000}


def async_work(steps: list[tuple], exchanges: list[tuple], d: int) -> Work:
    """Floor of an Async-KernelUCB run (Cholesky basis). ``steps``: (m_model, M, K) per step (the active
    client's model size, the dictionary size, the arms); ``exchanges``: (n, m_prev, m_new) per exchange
    (buffered points, dictionary sizes).

    Per step: the arms' features (kernel to the model's dictionary 2Kmd, basis K·m²) and variances
    (``‖C⁻¹z‖²``: K·m²). Per exchange: the buffered points' variances under the server model
    (2nm_prev d + 2n·m_prev²), the new dictionary points' rows of its factor (Δm·m²), the points'
    features on the new dictionary (2n·m·d + n·m²), the rank-n update of the factor C (2m²n) and θ̃
    (2m²)."""
    w = Work()
    for m, _M, K in steps:
        if m:
            w.kernel(K, m, d).trsm(m, K).trsm(m, K)
    for n, m_prev, m in exchanges:
        if m_prev:
            w.kernel(n, m_prev, d).trsm(m_prev, n).trsm(m_prev, n)
        w.kernel(m - m_prev, m, d).l3(float(m - m_prev) * m * m, m)
        w.kernel(n, m, d).trsm(m, n)
        w.l3(2.0 * m * m * n, m).trsm(m, 2)
    return w


def floor_async(T: int = 2000, N: int = 100, seed: int = 0) -> dict:
    """Async-KernelUCB as in its Figure 2 on f1 (γ = 1, α = λ = D = q = 1, K = 20), T steps, N clients."""
    from .algorithms.async_kernel_ucb import AsyncKernelUCB

    env = _f1_env()
    pol = AsyncKernelUCB(N, T, env.dim, np.random.SeedSequence(seed), CommLedger(N, T),
                         kernel={"name": "rbf", "gamma": 1.0}, lam=1.0, alpha=1.0, D=1.0, q=1.0)
    steps, exchanges = [], []
    orig_sel, orig_ex = pol.select, pol._exchange

    def select(t, agents, arms):
        steps.extend((pol.models[int(i)].m, pol.dic.m, arms.for_agent(j).shape[0]) for j, i in enumerate(agents))
        return orig_sel(t, agents, arms)

    def exchange(t, i):
        n, m_prev = len(pol.buf_y[i]), pol.dic.m
        orig_ex(t, i)
        exchanges.append((n, m_prev, pol.dic.m))

    pol.select, pol._exchange = select, exchange
    s = _timed(lambda: run_regret(pol, env, T, N, np.random.default_rng(seed), np.random.default_rng(seed + 1)))
    w = async_work(steps, exchanges, env.dim)
    sizes = (f"f1, N = {N}, T = {T} (of 10 000), K = 20, d = {env.dim}, {len(exchanges)} exchanges, "
             f"dictionary up to {pol.dic.m}")
    return {"sizes": sizes, "work": w, "measured_s": s, "T": T, "T_full": 10000}


# ---------------------------------------------------------------------------------------------
# OneKernelUCB: the exact GP on fresh contexts
# ---------------------------------------------------------------------------------------------
def one_kernel_work(ns, K: int, d: int) -> Work:
    """Floor of OneKernelUCB steps at the data sizes ``ns``: per step with n points, the kernel
    between the K arms and the data (2Knd), the forward substitution ``L⁻¹ K_{X,A}`` (K·n²; the
    chosen arm's column is the new row of the factor, so the append adds only O(n))."""
    w = Work()
    for n in ns:
        w.kernel(K, n, d).trsm(n, K)
    return w


def floor_one_kernel(ts=(2500, 5000), steps: int = 8, K: int = 20, d: int = 20, seed: int = 0) -> dict:
    """OneKernelUCB's step (posterior of K fresh arms, argmax, append) at t ∈ ``ts`` points (the
    factor built directly, as :func:`bench_one_kernel_ucb_step`), ``steps`` steps at each."""
    rng = np.random.default_rng(seed)
    s, ns = 0.0, []
    for t in ts:
        gp, _ = _exact_gp_at(t, K, d, 1.0, "cpu", rng)
        A0 = rng.normal(size=(K, d)) / np.sqrt(d)
        gp.predict(A0)  # warm
        for _ in range(steps):
            A = rng.normal(size=(K, d)) / np.sqrt(d)
            t0 = time.process_time()
            mu, var = gp.predict(A)
            i = int(np.argmax(mu + np.sqrt(var)))
            gp.add(A[i], rng.normal())
            s += time.process_time() - t0
            ns.append(gp._n - 1)
        del gp
    w = one_kernel_work(ns, K, d)
    sizes = f"K = {K}, d = {d}, {steps} steps at each t ∈ {{{', '.join(map(str, ts))}}} (a run: t = 1 … 10 000)"
    return {"sizes": sizes, "work": w, "measured_s": s, "T": None, "T_full": None}


# ---------------------------------------------------------------------------------------------
# FN-UCB and the neural baselines (one hidden layer, m = 20, cosine, d = 10, K = 4)
# ---------------------------------------------------------------------------------------------
def neural_work(T: int, N: int, K: int, d: int, m: int, p: int, train_steps: int, stop_train_after: int,
                train_rounds, quad_per_arm: int = 1, server_rank: bool = False, diag: bool = False,
                d_train: int | None = None) -> Work:
    """Floor of a neural-bandit run with N agents of a one-hidden-layer MLP (width m, p parameters).

    Per iteration and agent: the K arms' forward pass and gradient features (about 2Kmd + Kp: level 1,
    counted as small-matrix flops, 4Kp), ``quad_per_arm`` quadratic forms ``φᵀV⁻¹φ`` per arm against
    p × p inverses (K·2p² each), the chosen point's Sherman–Morrison update (24p² bytes) and, with
    ``server_rank`` (FN-UCB's rounds), the server's rank-N update of its inverse (2p²N). Per training
    (``train_rounds``: the iterations that train), ``train_steps`` full-batch gradient steps on the
    agent's n = t + 1 points (forward 2n(md + m), backward 4n(md + m)), all agents batched in one call
    per step (the batched remedy: its overhead is paid once per step, not per agent).

    ``diag`` (FN-UCB Sec. 3.4's diagonal approximation): the quadratic forms and the updates are
    elementwise over the p diagonal entries (streamed: K·quad_per_arm + 4 passes over p doubles per
    agent and iteration). ``d_train``: the inputs' nonzero width for the training's products (block
    contexts, whose rows are zero outside one block: the block's width; default d)."""
    w = Work()
    dt = d if d_train is None else d_train
    if diag:
        w.l3(T * N * 4.0 * K * p, p)
        w.stream(T * N * 8.0 * p * (K * quad_per_arm + 4))
    else:
        per_it = N * (4.0 * K * p + K * 2.0 * p * p * quad_per_arm)
        w.l3(T * per_it, p)
        w.stream(T * N * 24.0 * p * p)
        if server_rank:
            w.l3(T * 2.0 * p * p * N, p)
    for t in train_rounds:
        n = t + 1
        w.l3(train_steps * N * 6.0 * n * (m * dt + m), p)
        w.call(train_steps)
    return w


def _fn_policy(N, T, seed=0, **kw):
    from .algorithms.fn_ucb import FNUCB

    env = make_env({"kind": "fn_synthetic", "function": "cosine", "sampler": "cube_normalized", "a": "official"}, seed)
    pol = FNUCB(N, T, env.dim, np.random.SeedSequence(seed), CommLedger(N, T), lam=0.1, nu_a=0.1, nu_b=0.1,
                D=0.0, width=20, device="cpu", **kw)
    return env, pol


def _run_threads1(pol, env, T, N, seed):
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _timed(lambda: run_regret(pol, env, T, N, np.random.default_rng(seed + 1),
                                         np.random.default_rng(seed + 2)))
    finally:
        torch.set_num_threads(threads)


def floor_fn_ucb(T: int = 400, N: int = 2, seed: int = 0) -> dict:
    """FN-UCB at the official code's settings (:func:`bench_fn_ucb`: cosine, d = 10, K = 4, m = 20,
    λ = ν = 0.1, D = 0: a round every iteration, 30 training steps per round while t < 2000), T
    iterations (the full figure runs have T = 5000, training stopping at 2000)."""
    env, pol = _fn_policy(N, T, seed)
    s = _run_threads1(pol, env, T, N, seed)
    K = 4
    trained = [t for t, _ in pol.train_log]
    p = int(pol.p)
    w = neural_work(T, N, K, env.dim, 20, p, pol.train_cfg.steps, pol.stop_train_after, trained,
                    quad_per_arm=2, server_rank=True)
    sizes = f"cosine, N = {N}, T = {T} (of 5 000), K = {K}, d = {env.dim}, m = 20, p = {p}, {len(trained)} trainings"
    return {"sizes": sizes, "work": w, "measured_s": s, "T": T, "T_full": 5000}


def floor_fn_ucb_shuttle(T: int = 600, N: int = 5, seed: int = 0) -> dict:
    """FN-UCB on shuttle with the diagonal approximation at m = 50 (the FN-UCB notebook's Figs. 2c, 2d: its
    costliest runs; λ = 10, ν_TKN = 0.1, ν_TK = 0.01, D = 0), T iterations of 5 000, N agents: the training
    on block contexts (7 blocks of 9 inputs; the floor counts the block's 9 columns,
    :func:`bandits.neural.train_full_batch`'s block path) is nearly all of it."""
    from .algorithms.fn_ucb import FNUCB

    env = make_env({"kind": "fn_classification", "dataset": "shuttle"}, seed)
    pol = FNUCB(N, T, env.dim, np.random.SeedSequence(seed), CommLedger(N, T), lam=10.0, nu_a=0.1, nu_b=0.01,
                D=0.0, width=50, diag=True, device="cpu")
    s = _run_threads1(pol, env, T, N, seed)
    K = int(env.n_arms)
    w_blk = env.dim // K
    trained = [t for t, _ in pol.train_log]
    p = int(pol.p)
    w = neural_work(T, N, K, env.dim, 50, p, pol.train_cfg.steps, pol.stop_train_after, trained,
                    quad_per_arm=2, diag=True, d_train=w_blk)
    sizes = (f"shuttle, diag, N = {N}, T = {T} (of 5 000), K = {K}, d = {env.dim} ({K} blocks of {w_blk}), m = 50, "
             f"p = {p}, {len(trained)} trainings")
    return {"sizes": sizes, "work": w, "measured_s": s, "T": T, "T_full": 5000}


def floor_neural(style: str = "ucb", T: int = 400, seed: int = 0) -> dict:
    """NeuralUCB / NeuralTS (one agent, cosine, d = 10, K = 4, m = 20, 30 training steps per iteration
    while t < 2000, full U⁻¹), T iterations."""
    cls = get_algorithm("NeuralUCB" if style == "ucb" else "NeuralTS")
    env = make_env({"kind": "fn_synthetic", "function": "cosine", "sampler": "cube_normalized", "a": "official"}, seed)
    pol = cls(1, T, env.dim, np.random.SeedSequence(seed), CommLedger(1, T), lam=0.1, nu=0.1, width=20, device="cpu")
    s = _run_threads1(pol, env, T, 1, seed)
    K = 4
    trained = [t for t in range(T) if pol.stop_train_after is None or t < pol.stop_train_after]
    w = neural_work(T, 1, K, env.dim, 20, int(pol.p0), pol.train_cfg.steps, pol.stop_train_after, trained)
    sizes = f"cosine, N = 1, T = {T} (of 5 000), K = {K}, d = {env.dim}, m = 20, p = {pol.p0}"
    return {"sizes": sizes, "work": w, "measured_s": s, "T": T, "T_full": 5000}


# ---------------------------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------------------------
#: engine -> (what measures it, the committed per-run times that count for it: (folder, files, column,
#: the labels of that column))
FLOOR_ENGINES: dict[str, dict] = {
    "Eager-KernelUCB": {"fn": lambda: floor_coop("Eager-KernelUCB"),
                        "runs": [("coop_kernelucb", ["runs.csv"], "method", ["Eager-KernelUCB"], {"row": "linear"})]},
    "Eager-KernelUCB (RBF row)": {"fn": lambda: floor_coop("Eager-KernelUCB", row="rbf"),
                                  "runs": [("coop_kernelucb", ["runs.csv"], "method", ["Eager-KernelUCB"],
                                            {"row": "rbf"})]},
    "Coop-KernelUCB": {"fn": lambda: floor_coop("Coop-KernelUCB"),
                       "runs": [("coop_kernelucb", ["runs.csv"], "method", ["Coop-KernelUCB"], {"row": "linear"}),
                                ("arena", ["results.csv", "tuning.csv"], "method", ["Coop-KernelUCB"])]},
    # the linear row's costliest networks (their runs are in the Coop-KernelUCB row's sum too): many small models
    "Coop-KernelUCB (Twitch)": {"fn": lambda: floor_coop("Coop-KernelUCB", graph="twitch"),
                                "runs": [("coop_kernelucb", ["runs.csv"], "method", ["Coop-KernelUCB"],
                                          {"row": "linear", "graph": "twitch"})]},
    "Coop-KernelUCB (as-733)": {"fn": lambda: floor_coop("Coop-KernelUCB", graph="as733"),
                                "runs": [("coop_kernelucb", ["runs.csv"], "method", ["Coop-KernelUCB"],
                                          {"row": "linear", "graph": "as733"})]},
    "Coop-KernelUCB (RBF row)": {"fn": lambda: floor_coop("Coop-KernelUCB", row="rbf"),
                                 "runs": [("coop_kernelucb", ["runs.csv"], "method", ["Coop-KernelUCB"],
                                           {"row": "rbf"})]},
    "Approx-DisKernelUCB": {"fn": floor_approx_dis,
                            "runs": [("async_kernelucb", ["runs.csv", "tuning_grid.csv"], "method",
                                      ["Approx-DisKernelUCB"]),
                                     ("arena", ["results.csv", "tuning.csv", "map.csv"], "method",
                                      ["Approx-DisKernelUCB"])]},
    "Async-KernelUCB": {"fn": floor_async,
                        "runs": [("async_kernelucb", ["runs.csv", "tuning_grid.csv"], "method", ["Async-KernelUCB"]),
                                 ("arena", ["results.csv", "tuning.csv", "map.csv"], "method", ["Async-KernelUCB"])]},
    "OneKernelUCB": {"fn": floor_one_kernel,
                     "runs": [("async_kernelucb", ["runs.csv", "tuning_grid.csv"], "method", ["OneKernelUCB"]),
                              ("arena", ["results.csv", "tuning.csv", "map.csv"], "method", ["OneKernelUCB"])]},
    "FN-UCB": {"fn": floor_fn_ucb,
               "runs": [("fn_ucb", ["runs.csv"], "algorithm", ["FN-UCB", "FN-UCB [only UCB_a]", "FN-UCB [only UCB_b]",
                                                               "FN-UCB [no aggregation]"]),
                        ("arena", ["results.csv", "tuning.csv"], "method", ["FN-UCB"])]},
    # its costliest runs (their runs are in the FN-UCB row's sum too)
    "FN-UCB (shuttle, diag)": {"fn": floor_fn_ucb_shuttle,
                               "runs": [("fn_ucb", ["runs.csv"], "algorithm", ["FN-UCB"],
                                         {"env": "shuttle", "diag": "True"})]},
    "NeuralUCB": {"fn": lambda: floor_neural("ucb"),
                  "runs": [("fn_ucb", ["runs.csv"], "algorithm", ["NeuralUCB", "NeuralUCB [diag]"]),
                           ("arena", ["results.csv", "tuning.csv"], "method", ["NeuralUCB"])]},
    "NeuralTS": {"fn": lambda: floor_neural("ts"),
                 "runs": [("fn_ucb", ["runs.csv"], "algorithm", ["NeuralTS", "NeuralTS [diag]"])]},
}



def full_mode_sums(engine: str, figures=None) -> dict:
    """The committed per-run times of ``engine`` (its runs in ``figures/<notebook>/``; each run's time and identity
    by :mod:`bandits.runtimes`' rule, which ``tools/nbtools.py times`` follows too: a run shown twice, or at several
    steps, counted once):
    ``{"runs": n, "sum_s": s, "by": {notebook: s}}``."""
    import csv
    from pathlib import Path

    root = Path(figures) if figures is not None else repo_root() / "figures"
    seen, by = {}, {}
    for folder, files, col, labels, *where in FLOOR_ENGINES[engine]["runs"]:
        where = where[0] if where else {}
        for name in files:
            path = root / folder / name
            if not path.exists():
                continue
            with open(path, newline="", encoding="utf-8") as fh:
                for row in csv.DictReader(fh):
                    if row.get(col) not in labels or any(row.get(k) != v for k, v in where.items()):
                        continue
                    w, _ = row_seconds(row)  # its CPU seconds where it recorded them, else its wall clock
                    if w is None:
                        continue
                    key = (folder,) + run_key(row)
                    if key not in seen:
                        seen[key] = w
                        by[folder] = by.get(folder, 0.0) + w
    return {"runs": len(seen), "sum_s": float(sum(seen.values())), "by": by}


def floor_table(names=None, rates=None) -> dict:
    """Measure the rates, then each engine (``names``: a subset of :data:`FLOOR_ENGINES`), and return
    ``{"rates": ..., "rows": [...]}`` (CPU time, one BLAS and torch thread)."""
    from threadpoolctl import threadpool_limits

    from .bench import select

    names = list(FLOOR_ENGINES) if not names else select(names, FLOOR_ENGINES)
    rows = []
    with threadpool_limits(1):
        rates = machine_rates() if rates is None else rates
        for n in names:
            r = FLOOR_ENGINES[n]["fn"]()
            w = r["work"]
            fl = w.floor(rates)
            rows.append({"engine": n, "sizes": r["sizes"], **w.as_dict(), "floor_s": fl,
                         "measured_s": r["measured_s"], "ratio": r["measured_s"] / fl if fl > 0 else float("nan"),
                         "full": full_mode_sums(n)})
    return {"rates": rates, "rows": rows}


def _fmt_work(row) -> str:
    parts = []
    fl = row["l3_big_flops"] + row["l3_small_flops"]
    if fl:
        big, small = row["l3_big_flops"], row["l3_small_flops"]
        parts.append(f"{fl / 1e9:.3g} GFLOP" + (f" ({small / fl:.0%} small)" if big and small else
                                                 " (small)" if small else ""))
    if row["bytes"]:
        parts.append(f"{row['bytes'] / 1e9:.3g} GB streamed")
    if row["calls"]:
        parts.append(f"{row['calls']:.0f} calls")
    if row.get("exp"):
        parts.append(f"{row['exp'] / 1e6:.3g} M exp")
    return ", ".join(parts) or "-"


def _fmt_full(full: dict) -> str:
    """The last column: ``runs, sum s`` of :func:`full_mode_sums`, by notebook where there are several."""
    if not full["runs"]:
        return "-"
    by = ", ".join(f"{k} {v:.0f}" for k, v in sorted(full["by"].items()))
    return f"{full['runs']}, {full['sum_s']:.0f}" + (f" ({by})" if len(full["by"]) > 1 else "")


def floor_markdown(res: dict) -> str:
    r = res["rates"]
    lines = [
        "| engine | sizes (reduced run) | counted work | floor s | measured s (CPU) | ratio | full mode: runs, sum s |",
        "|---|---|---|---|---|---|---|"]
    for row in res["rows"]:
        lines.append(f"| {row['engine']} | {row['sizes']} | {_fmt_work(row)} | {row['floor_s']:.3g} | "
                     f"{row['measured_s']:.3g} | **{row['ratio']:.1f}** | {_fmt_full(row['full'])} |")
    small = ", ".join(f"{k} {v / 1e9:.1f}" for k, v in r["small"].items())
    lines += ["",
              f"Rates measured in the same run (one thread, CPU time): large dgemm (n = 1000) "
              f"{r['gemm_big_flops'] / 1e9:.1f} GFLOP/s; small matrices (the best of: {small} GFLOP/s) "
              f"{r['gemm_small_flops'] / 1e9:.1f} GFLOP/s; memory bandwidth {r['bandwidth_bytes'] / 1e9:.1f} GB/s "
              f"(dger {r['bandwidth_ger'] / 1e9:.1f}, copy {r['bandwidth_copy'] / 1e9:.1f}); a tiny network's "
              f"forward + backward {1e6 * r['call_torch_s']:.0f} µs in torch, {1e6 * r['call_numpy_s']:.0f} µs in "
              f"numpy's closed form (the floor takes the smaller); np.exp {r['exp_per_s'] / 1e6:.0f} M/s."]
    return "\n".join(lines)


FLOOR_START, FLOOR_END = "<!-- floor-table:start -->", "<!-- floor-table:end -->"


def write_floor_section(res: dict, path=None) -> str:
    """Replace the text between :data:`FLOOR_START` and :data:`FLOOR_END` in docs/running.md (appended
    as a new section the first time) with the table; returns the path written."""
    from pathlib import Path

    path = Path(path) if path is not None else repo_root() / "docs" / "running.md"
    text = path.read_text(encoding="utf-8")
    m = res["rates"]
    body = (f"{FLOOR_START}\n<!-- generated by `python -m bandits.bench floor --write`; do not edit by hand -->\n\n"
            f"{floor_markdown(res)}\n\nMachine: {m.get('machine', '')}\n{FLOOR_END}")
    if FLOOR_START in text and FLOOR_END in text:
        a, b = text.index(FLOOR_START), text.index(FLOOR_END) + len(FLOOR_END)
        text = text[:a] + body + text[b:]
    else:
        text = text.rstrip("\n") + "\n\n" + FLOOR_INTRO + "\n\n" + body + "\n"
    path.write_text(text, encoding="utf-8")
    return str(path)


def refresh_floor_sums(path=None, figures=None) -> list[str]:
    """Rewrite the last column of the floor table in docs/running.md (``full mode: runs, sum s``) from the
    committed folders (:func:`full_mode_sums`), leaving the measured columns and their machine as the bench
    wrote them; the engines whose cell changed. ``python -m bandits.report`` (which ``make figures`` runs after
    the notebooks) calls it, so the column follows each re-run folder without a new bench run."""
    from pathlib import Path

    path = Path(path) if path is not None else repo_root() / "docs" / "running.md"
    text = path.read_text(encoding="utf-8")
    if FLOOR_START not in text or FLOOR_END not in text:
        return []
    a, b = text.index(FLOOR_START), text.index(FLOOR_END)
    lines, changed = text[a:b].split("\n"), []
    for i, line in enumerate(lines):
        cells = line.split(" | ")
        engine = cells[0][2:] if line.startswith("| ") else None
        if engine not in FLOOR_ENGINES or len(cells) != 7:
            continue
        new = _fmt_full(full_mode_sums(engine, figures))
        if cells[-1] != new + " |":
            cells[-1] = new + " |"
            lines[i] = " | ".join(cells)
            changed.append(engine)
    if changed:
        path.write_text(text[:a] + "\n".join(lines) + text[b:], encoding="utf-8")
    return changed


FLOOR_INTRO = """## The engines against their floor

`python -m bandits.bench floor` measures, in one run on one thread (CPU time), the machine's rates (a
large dgemm, the best small-matrix GEMM or Cholesky solve of order 50–200, the memory bandwidth, the
per-call overhead of a tiny network's forward and backward pass) and each heavy engine on a reduced but
representative run; it counts the arithmetic that run must do from its sizes (flops of the level-3
linear algebra and the network training, bytes of the level-2 updates, calls of the network;
`bandits.bench.Work` and each engine's `*_work` function say what is counted), and gives the engine's
time as a ratio to that floor, `time / (flops/rate + bytes/bandwidth + calls·overhead + exp/rate)`. A
ratio near 1 is an engine at the machine's limit; kernel entries count one `exp` each, other elementwise
work (ReLU, clipping) is not counted, so the floor is a lower bound. The last column sums the committed
full-mode runs' own recorded times of the engine (CPU time where a run recorded it, else its wall clock),
over all its runs (every row, environment and notebook that runs it under that name; the rank-cap
ablation's labelled runs not included; a run shown twice counted once). `python -m bandits.bench floor --write` regenerates the table below; `python -m bandits.report`
(run by `make figures`) rewrites its last column alone from the committed folders."""


