"""DisKernelUCB and Approx-DisKernelUCB (Li, Wang, Wang & Wang, NeurIPS 2022).

Both are the baselines of DUETS Fig. 1; Approx-DisKernelUCB is also a baseline of
Async-KernelUCB. The text of Li et al. 2022 could not be read from here: the protocol below
is this package's reconstruction from the DUETS paper's description, which agrees on every structural point with
the DUETS authors' implementation. Where it is a choice it is a named parameter.

Synchronous protocol: at each step every *active* agent chooses by UCB on its own current
model, observes, then the trigger is checked for the active agents; a synchronisation involves
all N agents (as in the authors' simulators when only one client is active per step).

DisKernelUCB (exact kernel regression, raw-data sharing)
--------------------------------------------------------
Agent n's model is the exact GP (Eq. 3–4, λ regulariser) on ``D_glob ∪ ΔD_n``: the data
synchronised at the last sync plus its own data since. With ``ld = log det(I + λ⁻¹K)``::

    ld_n += log(1 + σ²_n(x_t)/λ)            (matrix determinant lemma; σ² before adding x_t)
    trigger: (t − t_last) · (ld_n − ld_glob) > D        (t − t_last counts the current round)

At a sync every agent uploads ``ΔD_n`` (``|ΔD_n|(d+1)`` scalars: points and rewards) and
downloads the other agents' new data (``Σ_{m≠n} |ΔD_m|(d+1)``); ``D_glob`` absorbs everything.
On a finite candidate set each agent's model is a :meth:`CandidatePosterior.fork` of the
global one, so the global posterior is never copied.

Approx-DisKernelUCB (shared Nyström dictionary)
-----------------------------------------------
Shared dictionary ``S`` with features ``z(x)`` (:class:`NystromDictionary`); agent statistics
``A_n = λI + Σ z zᵀ`` (inverse kept by Sherman–Morrison), ``b_n = Σ z y`` over the last
synchronised statistics plus the agent's own new data::

    μ̃_n(x)  = z(x)ᵀ A_n⁻¹ b_n
    σ̃²_n(x) = (k(x,x) − ‖z(x)‖²)/λ + z(x)ᵀ A_n⁻¹ z(x)          (DUETS Eq. 6, 1/λ scale)
    x_t = argmax μ̃_n + β σ̃_n                                   (S = ∅: uniform at random)

Trigger (``trigger="var_sum"``, default): ``Σ_{s ∈ ΔD_n} σ̃²_last(x_s) > D``, with σ̃²_last the
synchronised global model (before the first sync the prior k(x,x)/λ).
``trigger="dislinucb_logdet"``: ``(t − t_last) · Σ_{s∈ΔD_n} log(1 + σ̃²_last(x_s)) > D``.

Sync: (1) every agent samples each point of its **whole** history with probability
``min(1, q̄ σ̃²_last(x))`` (ridge-leverage-score sampling, as in BKB) and uploads the chosen
points (d scalars each); (2) the server broadcasts the union ``S`` (|S|·d); (3) every agent
re-embeds its history and uploads ``Z_nᵀZ_n`` and ``Z_nᵀY_n`` (|S|² + |S|, or
|S|(|S|+1)/2 + |S| with ``symmetric_packing``); (4) the server broadcasts ``A = λI + Σ Z_nᵀZ_n``
and ``b = Σ Z_nᵀY_n``; agents reset their statistics and trigger sums.

Thresholds. Neither trigger's threshold for Approx-DisKernelUCB is stated in the papers read here
(DUETS, Async-KernelUCB). With ``"dislinucb_logdet"`` a threshold below log 2 makes every step a
sync whenever (t − t_last) = 1 and the new point is far from the dictionary (each summand is at
most log(1 + k(x,x)/λ) = log 2 for k(x,x) = λ = 1): the DisLinUCB-style D_sync = T/(N d log T) (a reconstruction of this package) is
0.54 at T = 10⁴, N = 100, d = 20, and 0.07 at T = 1000; measured on f1 with N = 100, T = 1000:
1000 syncs in 1000 steps, 120 s, against 46 syncs and 7 s with ``"var_sum"`` at D = 1 (same
regret to 1.5 %). A sync costs O(t·|S|·(|S| + d)): RLS sampling of every history under the old
model, the incremental-Cholesky dictionary, the re-embedding of every history, one |S|³ inverse.

Cost. Every agent's history is kept in one buffer in arrival order (context, reward, agent,
candidate id, k(x,x)) with, on fresh contexts, its features under the current dictionary
(appended as points arrive, rebuilt by the re-embedding at a sync). A sync therefore embeds each
point once, and its three passes over the history are single level-3 products over all agents at
once: the RLS probabilities ``σ̃²_last`` of every point (one GEMM with the cached features; each
agent then draws its coins from its own stream, in agent then time order, as before), the
re-embedding under the new dictionary, and the server's ``Σ_n Z_nᵀZ_n`` and ``Σ_n Z_nᵀY_n`` (the same
sums, formed as ``ZᵀZ`` over the stacked histories). Within a step the chosen arm's features are the
row of its scoring pass, and only the variance the trigger uses is computed. After a sync all agents
share the broadcast ``A⁻¹`` and ``b``; between syncs an agent keeps only its own Sherman–Morrison vectors
(a low-rank correction of the shared ``A⁻¹``, :class:`ApproxDisKernelUCB`), so no agent copies an
|S| × |S| matrix unless it has taken |S| steps since the sync. Measured against per-agent loops (the reference path of
``tests/test_dis_kernel_ucb_speed.py``; f1, N = 100, T = 1500, one thread): the same runs to the last bit (regret, communication, syncs) and
1.4× less CPU with ``"var_sum"``, 1.75× with ``"dislinucb_logdet"``
(``tests/test_dis_kernel_ucb_speed.py`` checks each shortcut against the direct computation).
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular
from scipy.linalg.blas import dger
from scipy.linalg.lapack import dpotrf, dpotri

from ..comm import SERVER, CommLedger
from ..estimators import CandidatePosterior, NystromDictionary
from ..kernels import make_kernel
from ..sim import Policy
from .kernel_ucb import argmax_ties, ucb_width
from ..validation import check, gt, one_of

__all__ = ["DisKernelUCB", "ApproxDisKernelUCB", "fresh_dictionary", "chol_inverse"]


def fresh_dictionary(kernel, dim: int, X: np.ndarray, margin: float = 100.0) -> NystromDictionary:
    """A new :class:`NystromDictionary` on the rows of ``X`` (distinct points), built by one LAPACK
    Cholesky of ``K_XX`` instead of the row-by-row incomplete Cholesky of ``NystromDictionary.add``.

    Both give the same factor when ``add`` would keep every row (its pivots are the Cholesky
    pivots); ``add`` skips a row whose residual is at most ``tol·k(x, x)``, so when any squared pivot
    is within ``margin × tol·k(x, x)``, or the factorisation fails, ``add`` builds it instead (same
    rows kept, same order). One level-3 factorisation replaces |S| level-2 passes."""
    dic = NystromDictionary(kernel, dim)
    if not len(X):
        return dic
    L, info = dpotrf(kernel(X), lower=1, clean=1, overwrite_a=1)
    kd = kernel.diag(X)
    if info != 0 or np.any(np.diag(L) ** 2 <= margin * dic.tol * kd):
        dic.add(X)
        return dic
    dic.L, dic.points = L, np.array(X, dtype=float)
    return dic


def chol_inverse(A: np.ndarray, overwrite: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``(L, A⁻¹)`` for symmetric positive definite ``A``: LAPACK ``dpotrf`` then ``dpotri`` (about
    half the work of ``np.linalg.inv``'s LU), the inverse symmetrised from its lower triangle.
    ``overwrite=True`` factors ``A`` in place (``L`` is then ``A``'s memory): with the inverse and one
    temporary, three ``m × m`` arrays at the peak instead of five."""
    if A.shape[0] == 0:  # an empty dictionary: nothing to factor (LAPACK rejects a 0 × 0 array)
        return np.zeros((0, 0)), np.zeros((0, 0))
    L, info = dpotrf(A, lower=1, clean=1, overwrite_a=int(overwrite))
    if info != 0:
        raise np.linalg.LinAlgError(f"dpotrf failed (info={info}): the merged statistics are not positive definite")
    inv, info = dpotri(L, lower=1)
    if info != 0:
        raise np.linalg.LinAlgError(f"dpotri failed (info={info})")
    # dpotri writes the lower triangle only; the strict upper one is L's, zeroed by ``clean``
    inv += np.tril(inv, -1).T
    return L, inv


def _require_finite(arms, name):
    if arms.ids is None or not arms.shared:
        raise NotImplementedError(
            f"{name} is implemented for a fixed finite candidate set shared by all agents "
            "(FiniteDomainEnv); this environment gives per-agent contexts")


class DisKernelUCB(Policy):
    """DisKernelUCB (exact GP per agent, event-triggered raw-data sync); see module docstring."""

    name = "DisKernelUCB"

    def __init__(self, n_agents, horizon, dim, seed, ledger: CommLedger, kernel, lam=0.2,
                 beta=1.0, D=10.0, variance_scale="gp", tie_break="random"):
        super().__init__(n_agents, horizon, dim, seed, ledger)
        check("D", D, gt(0))
        self.kernel, self.lam, self.beta, self.D = make_kernel(kernel), float(lam), float(beta), float(D)
        self.variance_scale, self.tie_break = variance_scale, tie_break
        self.rngs = [np.random.default_rng(s) for s in seed.spawn(n_agents)]
        self.glob: CandidatePosterior | None = None
        self.local: list[CandidatePosterior] = []
        self.new: list[list[tuple[int, float]]] = [[] for _ in range(n_agents)]
        self.t_last = -1
        self.n_syncs = 0

    def select(self, t, agents, arms):
        _require_finite(arms, self.name)
        if self.glob is None:
            self.glob = CandidatePosterior(self.kernel, arms.X, self.lam)
            self.local = [self.glob.fork() for _ in range(self.N)]
        out = []
        for n in agents:
            p = self.local[n]
            s = p.mean + self.beta * ucb_width(p.var, self.lam, self.variance_scale)
            out.append(argmax_ties(s, self.rngs[n], self.tie_break))
        return np.array(out)

    def update(self, t, agents, arms, choices, rewards):
        for k, n in enumerate(agents):
            i = int(arms.ids[choices[k]])
            self.local[n].add(i, float(rewards[k]))
            self.new[n].append((i, float(rewards[k])))
        rounds = t - self.t_last
        if any(rounds * (self.local[n].logdet - self.glob.logdet) > self.D for n in agents):
            self._sync(t)

    def _sync(self, t):
        size = [len(b) * (self.d + 1) for b in self.new]
        total = sum(size)
        for n in range(self.N):
            if size[n]:
                self.ledger.send(t, n, SERVER, "raw_data", size[n])
            if total - size[n]:
                self.ledger.send(t, SERVER, n, "raw_data", total - size[n])
        for n in range(self.N):
            for i, y in self.new[n]:
                self.glob.add(i, y)
        self.local = [self.glob.fork() for _ in range(self.N)]
        self.new = [[] for _ in range(self.N)]
        self.t_last = t
        self.n_syncs += 1

    def info(self):
        return {"n_syncs": self.n_syncs}


class ApproxDisKernelUCB(Policy):
    """Approx-DisKernelUCB (shared Nyström dictionary, RLS re-sampling at each sync).

    Works on a fixed candidate set (DUETS: features and the quadratic forms over all candidates
    are cached and updated in O(M·m) per step) and on fresh per-agent contexts (Async-KernelUCB:
    features of the K arms are computed each step). The two triggers are described in the module
    docstring; for ``"dislinucb_logdet"`` the summand is ``log(1 + σ̃²_n(x_s))`` under the agent's
    local model just before adding ``x_s`` (the exact log-det ratio when S spans the data; the
    a reconstruction of this package, not in the Async-KernelUCB paper), and ``t − t_last`` counts global steps.

    Storage of the agents' models. Between syncs agent ``n``'s inverse is the shared one after the last sync
    plus a low-rank correction from its own ``k_n`` new points, the Sherman–Morrison steps kept as vectors
    (Woodbury's identity unrolled)::

        A_n⁻¹ = A⁻¹ − Σ_{j ≤ k_n} u_j u_jᵀ / (1 + z_jᵀ u_j),   u_j = A_{n,j−1}⁻¹ z_j,

    so ``A_n⁻¹ v = A⁻¹ v − U_nᵀ (s_n ∘ U_n v)`` and ``zᵀ A_n⁻¹ z = zᵀ A⁻¹ z − Σ_j s_j (u_jᵀ z)²``: the same
    model and the same sequence of rank-one updates as a dense per-agent copy (round-off aside), in
    ``Σ_n k_n · m`` numbers instead of ``N · m²``. An agent whose ``k_n`` reaches ``m`` switches to its own
    dense ``m × m`` inverse (then no larger than its ``U_n``, and cheaper to apply), updated in place. The
    agents' total is thus at most ``m`` times the points since the last sync (at most ``m·T``), against
    ``N·m²`` for a copy per agent: on shuttle at D = 10 with N = 1000 agents and one client per step (the
    arena's map) the first sync's dictionary holds m = 3432 points, and a copy per agent would be 94 MB each,
    88 GiB for all of them.
    :meth:`memory_bytes` estimates a run's resident memory from its sizes.
    """

    name = "ApproxDisKernelUCB"
    block = 2048  # history rows per block of a sync's passes over the history (memory: block × m temporaries)

    def __init__(self, n_agents, horizon, dim, seed, ledger: CommLedger, kernel, lam=0.2,
                 beta=1.0, D=20.0, qbar=4.0, trigger="var_sum", symmetric_packing=False,
                 tie_break="random"):
        super().__init__(n_agents, horizon, dim, seed, ledger)
        check("D", D, gt(0))
        check("qbar", qbar, gt(0))
        check("trigger", trigger, one_of("var_sum", "dislinucb_logdet"))
        self.kernel, self.lam, self.beta = make_kernel(kernel), float(lam), float(beta)
        self.D, self.qbar, self.trigger, self.sym = float(D), float(qbar), trigger, bool(symmetric_packing)
        self.tie_break = tie_break
        ss = seed.spawn(n_agents)
        self.rngs = [np.random.default_rng(s) for s in ss]
        # every agent's history in one buffer, in arrival order: context, reward, agent, candidate
        # id (finite domain), k(x, x) and (fresh contexts) the features under the current dictionary,
        # appended as points arrive and rebuilt at each sync, so a sync embeds each point once
        cap = max(16, int(horizon))
        self._hX, self._hY = np.zeros((cap, dim)), np.zeros(cap)
        self._hA, self._hI = np.zeros(cap, dtype=np.int64), np.zeros(cap, dtype=np.int64)
        self._hK = np.zeros(cap)
        self._hZ = np.zeros((cap, 0))
        self._nh = 0
        self._Zsel: dict[int, np.ndarray] = {}  # this step's arm features, by position k in `agents`
        self.acc = np.zeros(n_agents)  # trigger accumulators
        self.t_last = -1
        self.n_syncs = 0
        self.dict_sizes: list[int] = []
        self.dic = NystromDictionary(self.kernel, dim)
        self.m = 0
        self.Ainv_g = np.zeros((0, 0))  # synchronised model: (λI + Σ ZᵀZ)⁻¹, shared by every agent
        self._LA = np.zeros((0, 0))  # its Cholesky factor
        # agent n's own correction since the last sync (class docstring): A_n⁻¹ = Ainv_g − U_nᵀ diag(s_n) U_n,
        # U_n's first k_n rows the Sherman–Morrison vectors u = A⁻¹z, s_n = 1/(1 + zᵀu); or, once k_n
        # reaches m, the agent's own dense m × m inverse (no larger than U_n then)
        self._U: list[np.ndarray | None] = [None] * n_agents
        self._s: list[np.ndarray | None] = [None] * n_agents
        self._k = np.zeros(n_agents, dtype=np.int64)
        self._dense: list[np.ndarray | None] = [None] * n_agents
        self.b = [np.zeros(0) for _ in range(n_agents)]
        self.finite: bool | None = None

    # -- model evaluation -----------------------------------------------------------------------
    def _init_finite(self, X):
        self.X = X
        self.kd = self.kernel.diag(X)
        self.Zc = np.zeros((X.shape[0], 0))
        self.znorm2 = np.zeros(X.shape[0])
        self.s2_last = self.kd / self.lam  # σ̃² of the synchronised model (prior before a sync)
        self.q = [np.zeros(X.shape[0]) for _ in range(self.N)]  # zᵀ A_n⁻¹ z over candidates
        self.mu = [np.zeros(X.shape[0]) for _ in range(self.N)]

    def _apply(self, n, v):
        """``A_n⁻¹ v`` for agent ``n`` (``n=None``: the synchronised model) and ``v`` of shape (m,) or (m, r)."""
        if n is None:
            return self.Ainv_g @ v
        if self._dense[n] is not None:
            return self._dense[n] @ v
        out = self.Ainv_g @ v
        k = self._k[n]
        if k:
            U, s = self._U[n][:k], self._s[n][:k]
            P = U @ v
            out -= U.T @ (s * P if P.ndim == 1 else s[:, None] * P)
        return out

    def _quad(self, n, Z):
        """``zᵀ A_n⁻¹ z`` for every row ``z`` of ``Z`` (r × m); ``n=None``: the synchronised model."""
        if n is not None and self._dense[n] is not None:
            return np.sum((Z @ self._dense[n]) * Z, axis=1)
        q = np.sum((Z @ self.Ainv_g) * Z, axis=1)
        k = 0 if n is None else self._k[n]
        if k:
            P = Z @ self._U[n][:k].T
            q -= (P * P) @ self._s[n][:k]
        return q

    def _s2_ctx(self, Z, kd, n=None):
        """σ̃² (module docstring) at the rows of ``Z`` (features) with prior variances ``kd``, under agent
        ``n``'s model (``None``: the synchronised one)."""
        q = self._quad(n, Z) if Z.shape[1] else np.zeros(len(kd))
        return np.maximum((kd - np.einsum("ij,ij->i", Z, Z)) / self.lam, 0.0) + np.maximum(q, 0.0)

    def _scores(self, n, arms, k):
        if self.finite:
            return self.mu[n] + self.beta * np.sqrt(np.maximum((self.kd - self.znorm2) / self.lam, 0.0) + self.q[n])
        X = arms.for_agent(k)
        Z = self.dic.features(X)
        self._Zsel[k] = Z  # the chosen arm's row is its feature vector in update (same dictionary)
        mu = Z @ self._apply(n, self.b[n]) if self.m else np.zeros(len(X))
        return mu + self.beta * np.sqrt(self._s2_ctx(Z, self.kernel.diag(X), n))

    def select(self, t, agents, arms):
        if self.finite is None:
            self.finite = arms.ids is not None and arms.shared
            if self.finite:
                self._init_finite(arms.X)
        self._Zsel.clear()
        return np.array([argmax_ties(self._scores(n, arms, k), self.rngs[n], self.tie_break)
                         for k, n in enumerate(agents)])

    def _append(self, n, x, y, i, kd):
        j = self._nh
        if j == len(self._hY):  # more points than planned (several active agents per step): double
            grow = lambda a: np.concatenate([a, np.zeros_like(a)])  # noqa: E731
            self._hX, self._hY, self._hA, self._hI, self._hK, self._hZ = (
                grow(a) for a in (self._hX, self._hY, self._hA, self._hI, self._hK, self._hZ))
        self._hX[j], self._hY[j], self._hA[j], self._hI[j], self._hK[j] = x, y, n, i, kd
        self._nh = j + 1
        return j

    def _rank1_downdate(self, n, u, den):
        """``A_n⁻¹ ← A_n⁻¹ − u uᵀ/den`` (Sherman–Morrison): ``u`` and ``1/den`` appended to the agent's
        correction (class docstring), never written into the shared matrix; once the agent holds ``m``
        of them, its dense inverse ``A⁻¹ − U_nᵀ diag(s_n) U_n`` is formed once and later updates are in
        place (BLAS ``dger`` on the Fortran view; the matrix is symmetric)."""
        D = self._dense[n]
        if D is None and self._k[n] >= self.m:
            k = self._k[n]
            U = self._U[n][:k]
            D = self.Ainv_g - U.T @ (self._s[n][:k, None] * U)
            self._dense[n], self._U[n], self._s[n], self._k[n] = D, None, None, 0
        if D is not None:
            dger(-1.0 / den, u, u, a=D.T, overwrite_a=1)
            return
        k = self._k[n]
        U = self._U[n]
        if U is None or k == len(U):  # room for twice as many (at most 2 k_n rows), at most m
            grown = np.empty((min(self.m, max(2, 2 * k)), self.m))
            s = np.empty(len(grown))
            if k:
                grown[:k], s[:k] = U[:k], self._s[n][:k]
            self._U[n] = U = grown
            self._s[n] = s
        U[k] = u
        self._s[n][k] = 1.0 / den
        self._k[n] = k + 1

    def _drop_corrections(self):
        for n in range(self.N):
            self._U[n] = self._s[n] = self._dense[n] = None
        self._k[:] = 0

    def _reset_agents(self, b):
        """After a sync every agent's model is the broadcast one: no own correction, ``b_n = b``."""
        for n in range(self.N):
            self.b[n] = b
            self._U[n] = self._s[n] = self._dense[n] = None
        self._k[:] = 0

    def update(self, t, agents, arms, choices, rewards):
        for k, n in enumerate(agents):
            c, y = int(choices[k]), float(rewards[k])
            x = arms.for_agent(k)[c]
            if self.finite:
                i = int(arms.ids[c])
                self._append(n, x, y, i, self.kd[i])
                z = self.Zc[i]
                s2_last = self.s2_last[i]
                s2_local = max((self.kd[i] - self.znorm2[i]) / self.lam, 0.0) + self.q[n][i]
            else:
                kd = self.kernel.diag(x[None])
                j = self._append(n, x, y, -1, kd[0])
                Zk = self._Zsel.get(k)
                z = Zk[c] if Zk is not None and Zk.shape[1] == self.m else self.dic.features(x[None])[0]
                self._hZ[j, : self.m] = z
                # only the trigger's own variance is needed
                s2_last = float(self._s2_ctx(z[None], kd)[0]) if self.trigger == "var_sum" else 0.0
                s2_local = float(self._s2_ctx(z[None], kd, n)[0]) if self.trigger != "var_sum" else 0.0
            self.acc[n] += s2_last if self.trigger == "var_sum" else np.log1p(s2_local)
            if self.m:
                u = self._apply(n, z)
                den = 1.0 + z @ u
                self._rank1_downdate(n, u, den)
                self.b[n] = self.b[n] + y * z
                if self.finite:
                    self.q[n] -= (self.Zc @ u) ** 2 / den
                    np.maximum(self.q[n], 0.0, out=self.q[n])
                    self.mu[n] = self.Zc @ self._apply(n, self.b[n])
        rounds = t - self.t_last
        fire = (lambda n: self.acc[n] > self.D) if self.trigger == "var_sum" else \
            (lambda n: rounds * self.acc[n] > self.D)
        if any(fire(n) for n in agents):
            self._sync(t)

    def _history_s2(self) -> np.ndarray:
        """σ̃² of the synchronised model at every history point (arrival order), one GEMM over all
        of them with the cached features (fresh contexts) or a lookup (finite domain)."""
        nh = self._nh
        if self.finite:
            return self.s2_last[self._hI[:nh]]
        Z = self._hZ[:nh, : self.m]
        base = np.maximum((self._hK[:nh] - np.einsum("ij,ij->i", Z, Z)) / self.lam, 0.0)
        if not self.m:
            return base
        # zᵀ A⁻¹ z = ‖L_A⁻¹ z‖² with the synchronised model's Cholesky factor: one triangular solve
        # (|S|²·n flops) instead of the product Z A⁻¹ (2|S|²·n), by blocks of history rows (memory)
        for a in range(0, nh, self.block):
            W = solve_triangular(self._LA, Z[a: a + self.block].T, lower=True, check_finite=False)
            base[a: a + self.block] += np.einsum("ij,ij->j", W, W)
        return base

    def _sync(self, t):
        d, nh = self.d, self._nh
        # memory: what the sync rebuilds is released as soon as it is no longer read (the agents'
        # corrections now; the old model's matrices after the sampling, the old dictionary before the new)
        self._drop_corrections()
        # (1) ridge-leverage-score sampling of every agent's whole history (old synchronised model):
        # the probabilities of all points at once, then each agent's coins from its own stream, in
        # agent then time order (an agent with no history draws nothing)
        p = np.minimum(1.0, self.qbar * self._history_s2())
        owner = self._hA[:nh]
        order = np.argsort(owner, kind="stable")
        ends = np.cumsum(np.bincount(owner, minlength=self.N))
        chosen = []
        for n in range(self.N):
            rows = order[(ends[n - 1] if n else 0) : ends[n]]
            if not len(rows):
                continue
            keep = self.rngs[n].random(len(rows)) < p[rows]
            if keep.any():
                self.ledger.send(t, n, SERVER, "dictionary_points", int(keep.sum()) * d)
            chosen.append(rows[keep])
        self.Ainv_g = self._LA = self.dic = None
        # (2) the server's fresh dictionary: union in agent then time order, duplicates removed
        allc = self._hX[np.concatenate(chosen)] if chosen else np.zeros((0, d))
        if len(allc):
            _, first = np.unique(allc, axis=0, return_index=True)
            allc = allc[np.sort(first)]
        self.dic = fresh_dictionary(self.kernel, d, allc)
        if len(allc):
            self.ledger.broadcast(t, "dictionary", len(allc) * d)
        self.m = m = self.dic.m
        # (3) embedded statistics from every agent, (4) the merged model broadcast. The server's sum
        # Σ_n Z_nᵀZ_n is formed as one product over all histories (the same sum, another order)
        mat = m * (m + 1) // 2 if self.sym else m * m
        if self.finite:
            self.Zc = self.dic.features(self.X)
            self.znorm2 = np.einsum("ij,ij->i", self.Zc, self.Zc)
            Z = self.Zc[self._hI[:nh]]
        else:
            if self._hZ.shape[1] < m:  # the feature buffer only grows (columns beyond m are unused)
                cols = max(m, int(1.25 * self._hZ.shape[1]))
                self._hZ = None  # every row is embedded again below
                self._hZ = np.zeros((len(self._hY), cols))
            for a in range(0, nh, self.block):  # by blocks of rows: no n × m temporaries
                self._hZ[a: min(a + self.block, nh), :m] = self.dic.features(self._hX[a: min(a + self.block, nh)])
            self._hZ[:, m:] = 0.0
            Z = self._hZ[:nh, :m]
        A = Z.T @ Z
        A[np.diag_indices(m)] += self.lam
        b = Z.T @ self._hY[:nh]
        for n in range(self.N):
            self.ledger.send(t, n, SERVER, "embedded_statistics", mat + m)
        self.ledger.broadcast(t, "global_statistics", mat + m)
        self._LA, self.Ainv_g = chol_inverse(A, overwrite=True)  # A is SPD (λ > 0); L serves the next sampling
        self._reset_agents(b)
        if self.finite:
            ZA = self.Zc @ self.Ainv_g
            q = np.maximum(np.einsum("ij,ij->i", ZA, self.Zc), 0.0)
            mu = ZA @ b
            for n in range(self.N):
                self.q[n], self.mu[n] = q.copy(), mu.copy()
            self.s2_last = np.maximum((self.kd - self.znorm2) / self.lam, 0.0) + q
        self.acc[:] = 0.0
        self.t_last = t
        self.n_syncs += 1
        self.dict_sizes.append(m)

    def info(self):
        return {"n_syncs": self.n_syncs, "dict_sizes": list(self.dict_sizes)}

    @classmethod
    def memory_bytes(cls, N: int, T: int, dim: int, params: dict, *, points: int, M: int | None = None,
                     K: int = 20, storage: str = "shared") -> int:
        """Peak bytes of a run's arrays (beyond a worker's interpreter), from its sizes; an upper bound in
        the dictionary size, ``m ≤ min(points, M)`` (``points``: the observations of the run, ``T`` with
        one client per step, ``N·T`` with every agent at every step; ``M``: candidates of a finite domain,
        ``None`` for fresh contexts). ``storage="per_agent"``: the dense inverse per agent this class
        replaced (``N·m²``), for comparison.

        Counted (float64): the history buffers (``rows·(d + 4)``, ``rows`` the buffer's doubled capacity)
        and, on fresh contexts, its features (``rows × 1.25 m``); then the larger of the time between syncs
        (the dictionary's factor, the shared inverse and its factor, ``3 m²``, and the agents' corrections,
        at most ``2·points·m`` with the buffers' slack, or the dense copies, ``N·m²``) and a sync (the new
        factor, ``A`` factored in place, its inverse and one temporary, ``4 m²``, and blocks of
        :attr:`block` history rows, or on a finite domain the history's rows of the candidates' features,
        ``points·m``); on a finite domain the candidates' features (``3·M·m``) and every agent's means and
        widths over them (``2·N·M``)."""
        points = int(points)
        m = min(points, int(M)) if M else points
        rows = max(16, int(T))
        while rows < points:
            rows *= 2
        n = rows * (dim + 4)
        if M:
            n += 3 * M * m + 2 * N * M
        else:
            n += rows * (5 * m // 4)
        agents = N * m * m if storage == "per_agent" else 2 * points * m
        n += max(3 * m * m + agents, 4 * m * m + (points * m if M else 3 * min(cls.block, points) * m))
        return 8 * n
