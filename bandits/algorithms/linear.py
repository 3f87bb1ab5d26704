r"""Linear and generalised-linear (federated) bandit baselines of Async-KernelUCB (Fig. 2).

All of them run in the one-active-client-per-step environment of the Async-KernelUCB paper
(§3.1 and §5.1): the environment names the active client and its decision set
``A_t`` (K × d, fresh every step); the policy chooses, observes, and communicates through its
:class:`~bandits.comm.CommLedger` (sizes in scalars). Context vectors are used raw (no feature
map). Ties in every argmax are broken uniformly at random.

Single-agent core (LinUCB / OFUL; Li et al. 2010, Abbasi-Yadkori et al. 2011)
------------------------------------------------------------------------------
:class:`LinUCBAgent` wraps the package's one ridge estimator, :class:`bandits.estimators.LinearRidge`
(Sherman–Morrison inverse), and adds the UCB rule and a log-determinant accumulator::

    A = λI + Σ_s x_s x_sᵀ,   b = Σ_s y_s x_s,   θ̂ = A⁻¹ b
    UCB(x) = xᵀθ̂ + α ‖x‖_{A⁻¹}                          (α constant: the paper grid-searches it)
    log det(A/λ) += log(1 + xᵀA⁻¹x)                       (matrix determinant lemma, A before x)

:class:`NLinUCB`: N independent copies, no communication.

DisLinUCB (Wang, Hu, Chen, Wang, ICLR 2020, "Distributed bandit learning: near-optimal regret
with efficient communication") — synchronous
-------------------------------------------------------------------------------------------------
Client i decides with everything it knows: the statistics synchronised at the last sync plus
its own new data, ``A_i = λI + W_g + ΔW_i``, ``θ_i = A_i⁻¹(U_g + ΔU_i)``. After its step the
active client checks::

    n · log( det(λI + W_g + ΔW_i) / det(λI + W_g) ) > D

with ``n = t − t_last`` (the paper; ``trigger_count="rounds"``: global steps since the last
sync, the current one included) or ``n = |ΔD_i|`` (the client's own new observations; the
authors' code ``cyrilli/BanditLib`` and ``cyrilli/FedGLB-UCB`` ``DisLinUCB.syncRoundTriggered``,
this package's default; ``trigger_count="client"``). The log-det ratio is accumulated exactly with
the determinant lemma. A sync involves all N clients (``sync_seen_only=True``: only clients
that have been active, as the authors' code, which creates clients lazily): every client
uploads ``(ΔW_i, ΔU_i)`` (``d² + d`` scalars), the server adds them to ``(W_g, U_g)`` and sends
the aggregate back to every client (``d² + d`` each); with ``count_n=True`` the observation
counts travel too (+1 per message, the FedGLB-UCB repository's ``d² + d + 1``).
Default ``D = T/(N d log T)`` (BanditLib ``Simulation.py``); :func:`default_threshold` also gives
the paper's ``T log(NT)/(dN)``.

FedLinUCB (He, Wang, Min, Gu, NeurIPS 2022, "A simple and provably efficient algorithm for
asynchronous federated contextual linear bandits") — asynchronous
-------------------------------------------------------------------------------------------------
Server: ``W_s = Σ_{uploaded} x xᵀ``, ``U_s``. Client m keeps the server statistics it last
downloaded, ``(W_m^ser, U_m^ser)``, and a buffer of its data since (``W_m^loc``, ``U_m^loc``).
It decides with the downloaded statistics only (``use_local=False``, a reading of this package; the buffer is
used too with ``use_local=True``)::

    A_m = λI + W_m^ser,   x_t = argmax xᵀA_m⁻¹U_m^ser + α‖x‖_{A_m⁻¹}

After its step the active client alone checks the determinant-ratio trigger::

    det(λI + W_m^ser + W_m^loc) > (1 + D) · det(λI + W_m^ser)

(He et al.'s α is called ``D`` here to avoid the clash with the UCB α; default ``1/N²``, the
value of their theory). If it fires, the client uploads ``(W^loc, U^loc)`` (``d² + d``), the server
adds them, the client downloads ``(W_s, U_s)`` (``d² + d``) and empties its buffer. No other
client is contacted.

FedGLB-UCB (Li & Wang, NeurIPS 2022, "Communication efficient federated learning for generalized
linear bandits"; constants from the official code ``cyrilli/FedGLB-UCB``
``lib/FedGLB_UCB.py`` and ``RunSyntheticDataset.py``) — synchronous
-------------------------------------------------------------------------------------------------
Model ``E[y|x] = μ(xᵀθ*)`` with the sigmoid link ``μ(z) = 1/(1+e^{−z})``, ``c_μ = μ'(S)`` (code:
``dsigmoid(S)``, S = 1 → 0.1966). Client i keeps ``A_i = λ/c_μ·I + W_i`` (``W_i`` the Gram of all
data it knows), an ONS iterate ``θ_i^ONS``, pseudo-label sums ``b_i`` and the ridge centre
``θ̂_i = A_i⁻¹ b_i``. The confidence-set part is a :class:`LinUCBAgent` with regulariser
``λ/c_μ`` fitted on the pseudo-labels. Local step (no sync)::

    z = xᵀθ^ONS (before the update);   b += z x;   A += x xᵀ            (online-to-confidence-set)
    g = μ(z) − y;   θ' = θ^ONS − (g/c_μ) A⁻¹ x;   θ^ONS = Proj_A(θ')      (online Newton step)
    UCB(x) = xᵀθ̂ + α ‖x‖_{A⁻¹},   θ̂ = A⁻¹ b

``Proj_A`` (``projection="ball"``, the theory's set) is the A-norm projection onto
``{‖θ‖₂ ≤ S}``, solved exactly through the secular equation of ``(A + νI)θ = Aθ'``; the official
code projects onto the probability simplex with cvxopt instead (a quirk; not
implemented); ``projection="none"`` skips it. The trigger is DisLinUCB's on ``A``:
``n · log(det A_i / det A_i^sync) > D`` (``n`` as above; code default: the client's own count).
The triggering step gets no ONS update (the code's order): a global update follows —

1. every participant uploads its Gram buffer ``ΔW_i`` (``d²``; +1 with ``count_n``);
2. federated Nesterov AGD (:func:`agd_logistic`) on the regularised logistic loss of **all**
   data so far, ``f(θ) = (1/n)[Σ_s (log(1+e^{x_sᵀθ}) − y_s x_sᵀθ) + (λ/2)‖θ‖²]``: each gradient
   evaluation costs every participant ``d`` up (its local gradient) and ``d`` down (the iterate);
   step ``0.1/(0.25 + λ/n)``, start 0, stop when ``‖∇f‖ ≤ sqrt(2λ/n³)`` or after ``2n`` gradient
   evaluations (code) — capped here at ``agd_max_iters`` (default 200, a choice of this package);
3. the server sends ``(W_g, θ_g)`` (``d² + d``; +1 with ``count_n``); every participant resets
   ``A = λ/c_μ·I + W_g``, ``b = W_g θ_g`` (the code's ``b_g = (A_g − λ/c_μ I)θ_g``, i.e. every
   past point relabelled ``x_sᵀθ_g``), ``θ^ONS = θ_g``.

Real-valued rewards: nothing changes. The logistic loss ``log(1+e^z) − y z`` is convex for any
real ``y`` and the ``λ`` term makes ``f`` strongly convex, so AGD and ONS are well defined; the
estimate is then the logistic *quasi*-MLE (the θ whose μ(xᵀθ) best matches ``y`` in the
Bernoulli-deviance sense), a mis-specified fit when rewards leave [0, 1]. Since μ is monotone
the UCB still ranks arms by ``xᵀθ̂``. (The f2 rewards of §5.1 (≈ 2–3) push ``θ`` to large norms;
FedGLB-UCB is expected to do badly there: our expectation, not the paper's.)

Communication everywhere is counted per message in scalars; all participants of a synchronous
sync are counted (also the triggering client and clients without new data). The authors'
FedGLB-UCB code skips the triggering client's messages; we do not.
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit

from ..comm import SERVER, CommLedger
from ..estimators import LinearRidge
from ..sim import Policy
from .kernel_ucb import argmax_ties
from ..validation import check, fail, ge, gt, one_of, optional

__all__ = [
    "default_threshold",
    "LinUCBAgent",
    "NLinUCB",
    "DisLinUCB",
    "FedLinUCB",
    "FedGLBUCB",
    "agd_logistic",
    "logistic_objective",
    "project_ball_mnorm",
]

TRIGGER_COUNTS = ("client", "rounds")


def default_threshold(form: str, horizon: int, n_agents: int, dim: int) -> float:
    """Communication thresholds used by the baselines' sources.

    * ``"banditlib"``: ``T/(N d log T)`` — ``cyrilli/BanditLib`` federated ``Simulation.py`` (``D2``),
      for DisLinUCB and FedGLB-UCB with one client per step (this package's default);
    * ``"wang2020"``: ``T log(NT)/(dN)`` — Wang et al. 2020, DisLinUCB's theory;
    * ``"fedglb_repo"``: ``T/(N d log(NT))`` — ``cyrilli/FedGLB-UCB`` ``RunSyntheticDataset.py`` (there
      T counts rounds in which all N clients act);
    * ``"he2022"``: ``1/N²`` — He et al. 2022, FedLinUCB's determinant-ratio threshold α.
    """
    T, N, d = float(horizon), float(n_agents), float(dim)
    if form == "banditlib":
        return float(T / (N * d * np.log(T)))
    if form == "wang2020":
        return float(T * np.log(N * T) / (d * N))
    if form == "fedglb_repo":
        return float(T / (N * d * np.log(N * T)))
    if form == "he2022":
        return 1.0 / N**2
    fail("form", form, one_of("banditlib", "wang2020", "fedglb_repo", "he2022"))


def _check_common(lam, alpha, D, trigger_count=None):
    check("lam", lam, gt(0))
    check("alpha", alpha, ge(0))
    check("D", D, optional(gt(0)))
    check("trigger_count", trigger_count, optional(one_of(*TRIGGER_COUNTS)))


# ------------------------------------------------------------------------------ single agent
class LinUCBAgent:
    """One agent's LinUCB / OFUL state on top of :class:`LinearRidge` (see module docstring).

    Attributes:
        ridge: the ridge estimator (``ridge.Ainv = A⁻¹``, ``ridge.b``, ``ridge.n``).
        logdet: ``log det(A/λ)`` of the current ``A``.
    """

    def __init__(self, dim: int, lam: float, alpha: float, rng: np.random.Generator,
                 tie_break: str = "random"):
        self.dim, self.alpha, self.rng, self.tie_break = int(dim), float(alpha), rng, tie_break
        self.ridge = LinearRidge(dim, lam)
        self.logdet = 0.0

    @property
    def lam(self) -> float:
        return self.ridge.lam

    @property
    def theta(self) -> np.ndarray:
        return self.ridge.theta

    def scores(self, X: np.ndarray) -> np.ndarray:
        """``xᵀθ̂ + α‖x‖_{A⁻¹}`` for every row of ``X`` (K × d)."""
        mu, w2 = self.ridge.predict(X)
        return mu + self.alpha * np.sqrt(np.maximum(w2, 0.0))

    def choose(self, X: np.ndarray) -> int:
        return argmax_ties(self.scores(X), self.rng, self.tie_break)

    def leverage(self, x: np.ndarray) -> float:
        """``xᵀA⁻¹x`` under the current ``A``."""
        return float(x @ self.ridge.Ainv @ x)

    def observe(self, x: np.ndarray, y: float) -> float:
        """Add ``(x, y)``; returns ``xᵀA⁻¹x`` before the update (the log-det increment is its log1p)."""
        lev = self.leverage(x)
        self.ridge.add(x, float(y))
        self.logdet += np.log1p(lev)
        return lev

    def load(self, W: np.ndarray, U: np.ndarray, n: int = 0) -> None:
        """Replace the state by ``A = λI + W``, ``b = U`` (a download)."""
        A = self.lam * np.eye(self.dim) + W
        Ainv = np.linalg.inv(A)
        self.ridge.Ainv = 0.5 * (Ainv + Ainv.T)
        self.ridge.b = np.array(U, dtype=float)
        self.ridge.n = int(n)
        self.logdet = float(np.linalg.slogdet(A)[1] - self.dim * np.log(self.lam))

    def copy_state(self, other: "LinUCBAgent") -> None:
        """Take ``other``'s statistics (same λ); used to hand one download to many clients."""
        self.ridge.Ainv = other.ridge.Ainv.copy()
        self.ridge.b = other.ridge.b.copy()
        self.ridge.n = other.ridge.n
        self.logdet = other.logdet


def _agents(n_agents, dim, lam, alpha, seed, tie_break):
    rngs = [np.random.default_rng(s) for s in seed.spawn(n_agents)]
    return [LinUCBAgent(dim, lam, alpha, r, tie_break) for r in rngs], rngs


class NLinUCB(Policy):
    """N-LinUCB: every client runs LinUCB on its own data; no communication."""

    name = "N-LinUCB"

    def __init__(self, n_agents, horizon, dim, seed, ledger: CommLedger, lam=1.0, alpha=1.0,
                 tie_break="random"):
        super().__init__(n_agents, horizon, dim, seed, ledger)
        _check_common(lam, alpha, None)
        self.agents, _ = _agents(n_agents, dim, lam, alpha, seed, tie_break)

    def select(self, t, agents, arms):
        return np.array([self.agents[n].choose(arms.for_agent(k)) for k, n in enumerate(agents)])

    def update(self, t, agents, arms, choices, rewards):
        for k, n in enumerate(agents):
            self.agents[n].observe(arms.for_agent(k)[choices[k]], rewards[k])


# ------------------------------------------------------------------------------ DisLinUCB
class DisLinUCB(Policy):
    """DisLinUCB (synchronous, log-det trigger); see the module docstring.

    Args:
        lam: ridge λ. alpha: UCB width α. D: sync threshold (``None``: ``T/(N d log T)``).
        trigger_count: ``"client"`` (client's own new observations; authors' code, default) or
            ``"rounds"`` (``t − t_last``; Wang et al. 2020).
        count_n: add the observation count to every message (+1 scalar).
        sync_seen_only: a sync involves only the clients that have been active so far.
    """

    name = "DisLinUCB"

    def __init__(self, n_agents, horizon, dim, seed, ledger: CommLedger, lam=1.0, alpha=1.0,
                 D=None, trigger_count="client", count_n=False, sync_seen_only=False,
                 tie_break="random"):
        super().__init__(n_agents, horizon, dim, seed, ledger)
        _check_common(lam, alpha, D, trigger_count)
        self.lam, self.alpha = float(lam), float(alpha)
        self.D = float(D) if D is not None else default_threshold("banditlib", horizon, n_agents, dim)
        self.trigger_count = trigger_count
        self.count_n, self.sync_seen_only = bool(count_n), bool(sync_seen_only)
        self.agents, _ = _agents(n_agents, dim, lam, alpha, seed, tie_break)
        d = self.d
        self.W_g, self.U_g, self.n_g = np.zeros((d, d)), np.zeros(d), 0
        self.dW = np.zeros((n_agents, d, d))
        self.dU = np.zeros((n_agents, d))
        self.n_new = np.zeros(n_agents, dtype=np.int64)
        self.ld_new = np.zeros(n_agents)  # log det(λI + W_g + ΔW_i) − log det(λI + W_g)
        self.seen = np.zeros(n_agents, dtype=bool)
        self.t_last = -1
        self.sync_times: list[int] = []

    def select(self, t, agents, arms):
        return np.array([self.agents[n].choose(arms.for_agent(k)) for k, n in enumerate(agents)])

    def trigger_value(self, t: int, n: int) -> float:
        count = self.n_new[n] if self.trigger_count == "client" else t - self.t_last
        return float(count * self.ld_new[n])

    def update(self, t, agents, arms, choices, rewards):
        for k, n in enumerate(agents):
            x, y = arms.for_agent(k)[choices[k]], float(rewards[k])
            self.ld_new[n] += np.log1p(self.agents[n].observe(x, y))
            self.dW[n] += np.outer(x, x)
            self.dU[n] += y * x
            self.n_new[n] += 1
            self.seen[n] = True
        if any(self.trigger_value(t, n) > self.D for n in agents):
            self._sync(t)

    def _sync(self, t):
        d = self.d
        part = np.flatnonzero(self.seen) if self.sync_seen_only else np.arange(self.N)
        size = d * d + d + int(self.count_n)
        for n in part:
            self.ledger.send(t, int(n), SERVER, "local_stats", size)
        self.W_g += self.dW[part].sum(axis=0)
        self.U_g += self.dU[part].sum(axis=0)
        self.n_g += int(self.n_new[part].sum())
        self.ledger.broadcast(t, "global_stats", size, n_receivers=len(part))
        src = self.agents[int(part[0])]
        src.load(self.W_g, self.U_g, self.n_g)
        for n in part[1:]:
            self.agents[n].copy_state(src)
        self.dW[part] = 0.0
        self.dU[part] = 0.0
        self.n_new[part] = 0
        self.ld_new[part] = 0.0
        self.t_last = t
        self.sync_times.append(int(t))

    def info(self):
        return {"n_syncs": len(self.sync_times), "sync_times": list(self.sync_times), "D": self.D}


# ------------------------------------------------------------------------------ FedLinUCB
class FedLinUCB(Policy):
    """FedLinUCB (asynchronous, determinant-ratio trigger, active client only).

    Args:
        lam: ridge λ. alpha: UCB width α. D: the determinant-ratio threshold (He et al.'s α;
            ``None``: ``1/N²``). use_local: decide with downloaded + buffered data (default: the
            downloaded statistics only). count_n: +1 scalar per message for the count.
    """

    name = "FedLinUCB"

    def __init__(self, n_agents, horizon, dim, seed, ledger: CommLedger, lam=1.0, alpha=1.0,
                 D=None, use_local=False, count_n=False, tie_break="random"):
        super().__init__(n_agents, horizon, dim, seed, ledger)
        _check_common(lam, alpha, D)
        self.lam, self.alpha = float(lam), float(alpha)
        self.D = float(D) if D is not None else default_threshold("he2022", horizon, n_agents, dim)
        self.log_ratio = float(np.log1p(self.D))
        self.use_local, self.count_n = bool(use_local), bool(count_n)
        # ``local[m]``: downloaded + buffered data (the trigger's determinant); ``dec[m]``: the model
        # used to decide (the downloaded statistics, or ``local[m]`` itself with use_local)
        self.local, rngs = _agents(n_agents, dim, lam, alpha, seed, tie_break)
        self.dec = self.local if self.use_local else \
            [LinUCBAgent(dim, lam, alpha, r, tie_break) for r in rngs]
        d = self.d
        self.W_s, self.U_s, self.n_s = np.zeros((d, d)), np.zeros(d), 0
        self.dW = np.zeros((n_agents, d, d))
        self.dU = np.zeros((n_agents, d))
        self.n_buf = np.zeros(n_agents, dtype=np.int64)
        self.ld_buf = np.zeros(n_agents)  # log det(λI + W^ser + W^loc) − log det(λI + W^ser)
        self.exchange_times: list[int] = []
        self.exchange_clients: list[int] = []

    def select(self, t, agents, arms):
        return np.array([self.dec[n].choose(arms.for_agent(k)) for k, n in enumerate(agents)])

    def update(self, t, agents, arms, choices, rewards):
        for k, n in enumerate(agents):
            x, y = arms.for_agent(k)[choices[k]], float(rewards[k])
            self.ld_buf[n] += np.log1p(self.local[n].observe(x, y))
            self.dW[n] += np.outer(x, x)
            self.dU[n] += y * x
            self.n_buf[n] += 1
            if self.ld_buf[n] > self.log_ratio:
                self._exchange(t, int(n))

    def _exchange(self, t, n):
        size = self.d * self.d + self.d + int(self.count_n)
        self.ledger.send(t, n, SERVER, "local_stats", size)
        self.W_s += self.dW[n]
        self.U_s += self.dU[n]
        self.n_s += int(self.n_buf[n])
        self.ledger.send(t, SERVER, n, "server_stats", size)
        self.local[n].load(self.W_s, self.U_s, self.n_s)
        if not self.use_local:
            self.dec[n].copy_state(self.local[n])
        self.dW[n] = 0.0
        self.dU[n] = 0.0
        self.n_buf[n] = 0
        self.ld_buf[n] = 0.0
        self.exchange_times.append(int(t))
        self.exchange_clients.append(n)

    def info(self):
        return {"n_exchanges": len(self.exchange_times), "exchange_times": list(self.exchange_times),
                "exchange_clients": list(self.exchange_clients), "D": self.D}


# ------------------------------------------------------------------------------ FedGLB-UCB
def logistic_objective(theta: np.ndarray, X: np.ndarray, y: np.ndarray, lam: float):
    """``f(θ) = (1/n)[Σ (log(1+e^{xᵀθ}) − y xᵀθ) + (λ/2)‖θ‖²]`` and its gradient."""
    n = len(y)
    z = X @ theta
    f = (np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * lam * theta @ theta) / n
    g = (X.T @ (expit(z) - y) + lam * theta) / n
    return float(f), g


def agd_logistic(X: np.ndarray, y: np.ndarray, lam: float, x0: np.ndarray | None = None,
                 max_iters: int | None = None, step: float | None = None, tol: float | None = None,
                 step_scale: float = 0.1):
    """Nesterov's accelerated gradient descent on :func:`logistic_objective` (FedGLB-UCB's global
    update; the server sums the clients' local gradients, which is the full gradient).

    Scheme (Nesterov 1983 for smooth convex f, in Bubeck 2015 §3.7's form)::

        y_{s+1} = x_s − η ∇f(x_s),   x_{s+1} = (1 − γ_s) y_{s+1} + γ_s y_s,
        λ_0 = 0, λ_s = (1 + sqrt(1 + 4λ_{s−1}²))/2, γ_s = (1 − λ_s)/λ_{s+1}

    Defaults from ``cyrilli/FedGLB-UCB`` ``lib/FedGLB_UCB.py``: ``η = step_scale/L`` with
    ``L = 0.25·max(1, max‖x‖²) + λ/n`` (the code's ``0.1/(0.25 + λ/n)`` for ‖x‖ ≤ 1), stop when
    ``‖∇f‖ ≤ sqrt(2λ/n³)`` (then ``f − f* ≤ 1/n²`` by the λ/n-strong convexity) or after
    ``2n`` gradient evaluations. (The code's momentum sequence lags by one step; we use the
    textbook one.)

    Returns:
        ``(θ, n_evals, grad_norm)``: the last iterate at which the gradient was evaluated, the
        number of gradient evaluations (each one is one round of federated communication) and
        ``‖∇f(θ)‖``.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    n, d = X.shape
    if n == 0:
        return (np.zeros(d) if x0 is None else np.array(x0, dtype=float)), 0, 0.0
    if step is None:
        L = 0.25 * max(1.0, float(np.max(np.einsum("ij,ij->i", X, X)))) + lam / n
        step = step_scale / L
    if tol is None:
        tol = np.sqrt(2.0 * lam / n**3)
    if max_iters is None:
        max_iters = 2 * n
    x = np.zeros(d) if x0 is None else np.array(x0, dtype=float)
    y_prev = x.copy()
    lam_s, lam_next = 1.0, (1.0 + np.sqrt(5.0)) / 2.0  # λ_1, λ_2
    evals, gnorm = 0, np.inf
    for _ in range(int(max_iters)):
        g = (X.T @ (expit(X @ x) - y) + lam * x) / n
        evals += 1
        gnorm = float(np.linalg.norm(g))
        if gnorm <= tol:
            break
        y_next = x - step * g
        gamma = (1.0 - lam_s) / lam_next
        x = (1.0 - gamma) * y_next + gamma * y_prev
        y_prev = y_next
        lam_s, lam_next = lam_next, (1.0 + np.sqrt(1.0 + 4.0 * lam_next**2)) / 2.0
    return x, evals, gnorm


def project_ball_mnorm(theta: np.ndarray, M: np.ndarray, S: float, tol: float = 1e-12,
                       max_iter: int = 100) -> np.ndarray:
    """``argmin_{‖v‖₂ ≤ S} (v − θ)ᵀM(v − θ)`` for symmetric positive definite ``M``.

    If ``‖θ‖ ≤ S`` it is ``θ``. Otherwise KKT gives ``v(ν) = (M + νI)⁻¹Mθ`` with ``‖v(ν)‖ = S``;
    with ``M = QΛQᵀ`` and ``c = Qᵀθ``, ``‖v(ν)‖² = Σ (Λ_i c_i/(Λ_i + ν))²``. Newton's method on the
    secular function ``1/‖v(ν)‖ − 1/S`` from ``ν = 0`` converges monotonically (the trust-region
    argument of Moré & Sorensen 1983: the function is concave and increasing in ν).
    """
    theta = np.asarray(theta, dtype=float)
    if theta @ theta <= S * S:
        return theta.copy()
    lam_, Q = np.linalg.eigh(M)
    a = lam_ * (Q.T @ theta)  # Λ c
    nu = 0.0
    for _ in range(max_iter):
        w = a / (lam_ + nu)
        r = float(np.sqrt(w @ w))
        if abs(r - S) <= tol * S:
            break
        dr = -float(w @ (w / (lam_ + nu))) / r  # d‖v‖/dν
        nu = max(nu - (1.0 / r - 1.0 / S) / (-dr / r**2), 0.0)
    return Q @ (a / (lam_ + nu))


class FedGLBUCB(Policy):
    """FedGLB-UCB (synchronous GLB: local ONS, federated AGD at each sync); module docstring.

    Args:
        lam: λ of the logistic loss (the ellipsoid's regulariser is ``λ/c_μ``). alpha: UCB width.
        D: sync threshold (``None``: ``T/(N d log T)``). S: norm bound of θ* (ONS ball, c_μ).
        c_mu: ``None`` → ``μ'(S)``. projection: ``"ball"`` | ``"none"``.
        agd_max_iters: cap on gradient evaluations per sync (``None``: the code's ``2n``).
        agd_step_scale: η·L (code: 0.1). agd_tol: ``None`` → ``sqrt(2λ/n³)``.
        agd_init: ``"zero"`` (code) or ``"warm"`` (the last global θ).
        trigger_count, count_n, sync_seen_only: as :class:`DisLinUCB`.
    """

    name = "FedGLB-UCB"

    def __init__(self, n_agents, horizon, dim, seed, ledger: CommLedger, lam=0.1, alpha=1.0,
                 D=None, S=1.0, c_mu=None, projection="ball", agd_max_iters=200,
                 agd_step_scale=0.1, agd_tol=None, agd_init="zero", trigger_count="client",
                 count_n=False, sync_seen_only=False, tie_break="random"):
        super().__init__(n_agents, horizon, dim, seed, ledger)
        _check_common(lam, alpha, D, trigger_count)
        check("S", S, gt(0))
        check("projection", projection, one_of("ball", "none"))
        check("agd_init", agd_init, one_of("zero", "warm"))
        check("agd_max_iters", agd_max_iters, optional(ge(1)))
        self.lam, self.alpha, self.S = float(lam), float(alpha), float(S)
        self.c_mu = float(c_mu) if c_mu is not None else float(expit(S) * (1.0 - expit(S)))
        check("c_mu", self.c_mu, gt(0))
        self.lam_c = self.lam / self.c_mu
        self.D = float(D) if D is not None else default_threshold("banditlib", horizon, n_agents, dim)
        self.projection, self.agd_init = projection, agd_init
        self.agd_max_iters, self.agd_step_scale, self.agd_tol = agd_max_iters, float(agd_step_scale), agd_tol
        self.trigger_count = trigger_count
        self.count_n, self.sync_seen_only = bool(count_n), bool(sync_seen_only)
        self.agents, _ = _agents(n_agents, dim, self.lam_c, alpha, seed, tie_break)
        d = self.d
        self.theta_ons = np.zeros((n_agents, d))
        self.W = np.zeros((n_agents, d, d))  # Gram of the data each client knows
        self.dW = np.zeros((n_agents, d, d))  # upload buffer
        self.n_new = np.zeros(n_agents, dtype=np.int64)
        self.ld_new = np.zeros(n_agents)
        self.seen = np.zeros(n_agents, dtype=bool)
        self.X = np.zeros((max(self.T, 1), d))  # every observation (kept by its client; the AGD
        self.y = np.zeros(max(self.T, 1))       # gradient sum over clients is one product here)
        self.owner = np.zeros(max(self.T, 1), dtype=np.int64)
        self.n_data = 0
        self.W_g = np.zeros((d, d))
        self.theta_g = np.zeros(d)
        self.n_g = 0
        self.t_last = -1
        self.sync_times: list[int] = []
        self.agd_evals: list[int] = []
        self.agd_grad_norms: list[float] = []

    def select(self, t, agents, arms):
        return np.array([self.agents[n].choose(arms.for_agent(k)) for k, n in enumerate(agents)])

    def trigger_value(self, t: int, n: int) -> float:
        count = self.n_new[n] if self.trigger_count == "client" else t - self.t_last
        return float(count * self.ld_new[n])

    def _store(self, n, x, y):
        if self.n_data == self.X.shape[0]:
            self.X = np.vstack([self.X, np.zeros_like(self.X)])
            self.y = np.concatenate([self.y, np.zeros_like(self.y)])
            self.owner = np.concatenate([self.owner, np.zeros_like(self.owner)])
        self.X[self.n_data], self.y[self.n_data], self.owner[self.n_data] = x, y, n
        self.n_data += 1

    def update(self, t, agents, arms, choices, rewards):
        for k, n in enumerate(agents):
            x, y = arms.for_agent(k)[choices[k]], float(rewards[k])
            self._store(n, x, y)
            agent = self.agents[n]
            self.ld_new[n] += np.log1p(agent.leverage(x))
            xx = np.outer(x, x)
            self.W[n] += xx
            self.dW[n] += xx
            self.n_new[n] += 1
            self.seen[n] = True
            if self.trigger_value(t, n) > self.D:
                self._sync(t)
                continue
            # local online Newton step
            z = float(x @ self.theta_ons[n])
            agent.observe(x, z)  # A += x xᵀ, b += z x (pseudo-label)
            g = float(expit(z)) - y
            theta = self.theta_ons[n] - (g / self.c_mu) * (agent.ridge.Ainv @ x)
            if self.projection == "ball":
                theta = project_ball_mnorm(theta, self.W[n] + self.lam_c * np.eye(self.d), self.S)
            self.theta_ons[n] = theta

    def _sync(self, t):
        d = self.d
        part = np.flatnonzero(self.seen) if self.sync_seen_only else np.arange(self.N)
        P = len(part)
        for n in part:
            self.ledger.send(t, int(n), SERVER, "gram_buffer", d * d + int(self.count_n))
        self.W_g += self.dW[part].sum(axis=0)
        self.n_g = self.n_data
        x0 = self.theta_g if self.agd_init == "warm" else None
        theta, evals, gnorm = agd_logistic(self.X[: self.n_data], self.y[: self.n_data], self.lam,
                                           x0=x0, max_iters=self.agd_max_iters,
                                           tol=self.agd_tol, step_scale=self.agd_step_scale)
        if evals:
            for n in part:
                self.ledger.send(t, int(n), SERVER, "agd_gradient", evals * d)
            self.ledger.broadcast(t, "agd_iterate", evals * d, n_receivers=P)
        self.ledger.broadcast(t, "global_model", d * d + d + int(self.count_n), n_receivers=P)
        self.theta_g = theta
        src = self.agents[int(part[0])]
        src.load(self.W_g, self.W_g @ theta, self.n_g)
        for n in part[1:]:
            self.agents[n].copy_state(src)
        self.theta_ons[part] = theta
        self.W[part] = self.W_g
        self.dW[part] = 0.0
        self.n_new[part] = 0
        self.ld_new[part] = 0.0
        self.t_last = t
        self.sync_times.append(int(t))
        self.agd_evals.append(int(evals))
        self.agd_grad_norms.append(float(gnorm))

    def info(self):
        return {"n_syncs": len(self.sync_times), "sync_times": list(self.sync_times), "D": self.D,
                "agd_evals": list(self.agd_evals), "agd_grad_norms": list(self.agd_grad_norms),
                "agd_max_iters": self.agd_max_iters, "c_mu": self.c_mu}
