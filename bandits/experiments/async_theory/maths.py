"""The mathematics of the Async-KernelUCB theory checks, on recorded data: the server's upload
order, the uploaded data's statistics (Lemma 4.1, Lemma D.1), Lemma 4.4's width, ε̂ (Lemma 4.1),
exact variances, and the staleness ratios (Lemma C.1). Pure functions; no runs."""
from __future__ import annotations

import math

import numpy as np

from ...envs.functions import sample_ball
from ...kernels import make_kernel
from .setting import _beta


def upload_order(clients: np.ndarray, steps: np.ndarray, comm_steps, comm_clients) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the recorded points in the order the server received them, and the number
    received after each exchange (``n_k``, shape (B,)). Exchange k by client c at step t_k uploads
    c's points with steps in (t_{c's previous exchange}, t_k]."""
    clients, steps = np.asarray(clients), np.asarray(steps)
    by_client: dict[int, np.ndarray] = {}
    for c in np.unique(clients):
        by_client[int(c)] = np.flatnonzero(clients == c)  # time order
    ptr = {c: 0 for c in by_client}
    order, n_k = [], []
    for t_k, c in zip(comm_steps, comm_clients):
        idx = by_client[int(c)]
        j = int(np.searchsorted(steps[idx], t_k, side="right"))
        order.extend(idx[ptr[int(c)]:j].tolist())
        ptr[int(c)] = j
        n_k.append(len(order))
    return np.asarray(order, dtype=np.int64), np.asarray(n_k, dtype=np.int64)


def uploaded_statistics(kernel, X: np.ndarray, n_k: np.ndarray, lam: float, with_deff: bool = True) -> dict:
    """On the uploaded data ``X`` (rows in upload order): ``logdet_k = log det(I + K_{D_k}/λ)``
    after each exchange, ``gamma_hat = ½ log det(I + K_{D_B}/λ)`` and ``d_eff = Tr K(K+λI)⁻¹``.

    One Cholesky ``K + λI = LLᵀ``: ``L_ss² = λ(1 + σ²_{s−1}(x_s))``, so the log-det is a
    cumulative sum of ``log(L_ss²/λ)``; ``d_eff = n − λ‖L⁻¹‖²_F``.
    """
    from scipy.linalg import cholesky, solve_triangular

    n = X.shape[0]
    if n == 0:
        return {"logdet_k": np.zeros(len(n_k)), "gamma_hat": 0.0, "d_eff": 0.0, "n_uploaded": 0}
    A = kernel(X)
    A[np.diag_indices(n)] += lam
    L = cholesky(A, lower=True, overwrite_a=True, check_finite=False)
    inc = 2.0 * np.log(np.diag(L)) - math.log(lam)
    cum = np.concatenate([[0.0], np.cumsum(inc)])
    out = {"logdet_k": cum[np.asarray(n_k, dtype=np.int64)], "gamma_hat": 0.5 * float(cum[-1]), "n_uploaded": int(n)}
    if with_deff:
        Linv = solve_triangular(L, np.eye(n), lower=True, check_finite=False)
        out["d_eff"] = float(n - lam * np.sum(Linv * Linv))
    return out


def det_epochs(logdet_k: np.ndarray) -> np.ndarray:
    """Epoch index of every exchange (Lemma D.1): exchange k is in epoch
    ``⌊log₂ det(I + K_{D_{k−1}}/λ)⌋`` (the data the server had before it)."""
    before = np.concatenate([[0.0], np.asarray(logdet_k, dtype=float)[:-1]])
    return np.floor(before / math.log(2.0) + 1e-12).astype(np.int64)


def alpha_lemma44(N: int, D: float, lam: float, S: float, R: float, eps: float, delta: float, gamma: float) -> float:
    """Lemma 4.4's width (main-text form):
    ``α = (1/√(1−ε) + 1)√λ S + 2R(√(1 + NDβ) + N√(2Dβ))·√(ln(1/δ) + γ)``, ``β = (1+ε)/(1−ε)``."""
    beta = (1.0 + eps) / (1.0 - eps)
    return float((1.0 / math.sqrt(1.0 - eps) + 1.0) * math.sqrt(lam) * S
                 + 2.0 * R * (math.sqrt(1.0 + N * D * beta) + N * math.sqrt(2.0 * D * beta))
                 * math.sqrt(math.log(1.0 / delta) + gamma))


def gamma_proxy(p: dict, D: float, n: int, seed: int = 0) -> float:
    """The data-dependent γ of Lemma 4.4, ``½ log det(I + K/(Dβλ))``, fixed *before* the runs on
    ``n`` points drawn uniformly from the context distribution (the unit ball) with a fixed seed.
    (Lemma 4.4's γ_T is a maximum over data sets of size T; the chosen contexts are not uniform,
    so this is a proxy, documented as such.)"""
    kern = make_kernel({"name": "rbf", "gamma": float(p["gamma_k"])})
    X = sample_ball(np.random.default_rng(np.random.SeedSequence([seed, 44])), n, int(p["d"]))
    w = np.clip(np.linalg.eigvalsh(kern(X)), 0.0, None)
    return float(0.5 * np.sum(np.log1p(w / (D * _beta(p) * p["lam"]))))


def _eps_hat(kernel, X: np.ndarray, w: np.ndarray, lam: float) -> float:
    """ε̂ (Lemma 4.1's ε-accuracy, measured): ``ε̂ = ‖(K+λI)^{-1/2} K^{1/2} (diag(w) − I) K^{1/2} (K+λI)^{-1/2}‖₂`` on the uploaded
    data (``K = K_{D_B}``), from one eigendecomposition ``K = UΛUᵀ``:
    ``(K+λI)^{-1/2}K^{1/2} = U diag(√(Λ/(Λ+λ))) Uᵀ``, so ``ε̂ = ‖G (diag(w) − I) Gᵀ‖₂``,
    ``G = diag(√(Λ/(Λ+λ))) Uᵀ``."""
    if X.shape[0] == 0:
        return 0.0
    ev, U = np.linalg.eigh(kernel(X))
    G = np.sqrt(np.clip(ev, 0.0, None) / (np.clip(ev, 0.0, None) + lam))[:, None] * U.T
    M = (G * (w - 1.0)[None, :]) @ G.T
    return float(np.max(np.abs(np.linalg.eigvalsh(0.5 * (M + M.T)))))


def _exact_var(kernel, Xd: np.ndarray, Xq: np.ndarray, lam: float) -> np.ndarray:
    """Exact posterior variance (Eq. 1, 1/λ scale) of the data ``Xd`` at ``Xq``."""
    from scipy.linalg import cho_factor, solve_triangular

    kd = kernel.diag(Xq)
    if Xd.shape[0] == 0:
        return kd / lam
    A = kernel(Xd)
    A[np.diag_indices_from(A)] += lam
    L = cho_factor(A, lower=True)[0]
    V = solve_triangular(L, kernel(Xd, Xq), lower=True, check_finite=False)
    return np.maximum(kd - np.einsum("ij,ij->j", V, V), 0.0) / lam


def _staleness(kernel, rec_x, rec_client, rec_t, info, lam: float, probes: np.ndarray) -> dict:
    """Check C8 with exact bookkeeping (the policy runs with ``q = inf``: the dictionary spans the
    uploaded data, so its σ̃ is the exact σ of the uploaded data and β = 1).

    * ``lemma`` (Lemma C.1, as the paper states it): at every exchange ``k`` (step ``t_k``) and
      every probe ``x`` (the chosen points of the run and fresh uniform probes),
      ``σ²_{D_k}(x) / σ²_{[t_k]}(x)``: the variance under the server's data after the exchange
      over that under *all* data observed up to ``t_k`` by every client (uploaded or not);
      the lemma bounds it by ``1 + NβD``. Returns the max over probes per exchange, shape (B,).
    * ``client`` (a per-client reading of C8): at every step, ``σ²_{D_{k(i_t)}}(x_t) /
      σ²_{<t}(x_t)``, the variance under the data of the *active client's* stale model over that
      under all data before ``t``; shape (T,). Not bounded by the lemma (the regret proof treats
      a client's own staleness separately, by the det-doubling epochs); reported, not checked.

    Two Cholesky factors give every prefix at once: time order (``[t]``) and upload order
    (``D_k``); ``σ²_{prefix n}(x) = (k(x,x) − ‖(L⁻¹k(x))_{:n}‖²)/λ``.
    """
    from scipy.linalg import cholesky, solve_triangular

    X = np.asarray(rec_x, dtype=float)
    T = X.shape[0]
    P = np.vstack([X, probes])
    kdP = kernel.diag(P)

    def prefix_vars(Xd):
        A = kernel(Xd)
        A[np.diag_indices(Xd.shape[0])] += lam
        L = cholesky(A, lower=True, check_finite=False)
        V = solve_triangular(L, kernel(Xd, P), lower=True, check_finite=False)
        cum = np.vstack([np.zeros((1, P.shape[0])), np.cumsum(V * V, axis=0)])
        return np.maximum(kdP[None, :] - cum, 1e-300) / lam  # row n: variance under the first n points

    s2_time = prefix_vars(X)  # (T + 1, P)
    order, n_k = upload_order(rec_client, rec_t, info["comm_steps"], info["comm_clients"])
    s2_up = prefix_vars(X[order]) if len(order) else np.full((1, P.shape[0]), 1.0 / lam) * kdP
    steps, clients = np.asarray(info["comm_steps"], dtype=np.int64), np.asarray(info["comm_clients"])
    t_index = {int(t): s for s, t in enumerate(rec_t)}  # one active client per step
    lemma = np.array([float(np.max(s2_up[n_k[k]] / s2_time[t_index[int(steps[k])] + 1]))
                      for k in range(len(steps))])
    held = np.zeros(T, dtype=np.int64)
    last = {}
    e = 0
    for s_ in range(T):
        while e < len(steps) and steps[e] < rec_t[s_]:
            last[int(clients[e])] = int(n_k[e])
            e += 1
        held[s_] = last.get(int(rec_client[s_]), 0)
    client = s2_up[held, np.arange(T)] / s2_time[np.arange(T), np.arange(T)]
    return {"lemma": lemma, "client": client}
