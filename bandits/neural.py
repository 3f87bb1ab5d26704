r"""The package's one torch module: MLPs, per-sample gradient features, local training, FedAvg.

Everything neural (FN-UCB, Neural UCB/TS) goes through this module; algorithm modules hold the
tensors it returns but never call torch internals for the network themselves.

Parameters as one flat vector
-----------------------------
A network's parameters ``θ`` are one flat tensor of length ``p0`` (or a batch ``(B, p0)``, one
row per agent). :meth:`MLP.unflatten` returns *views* into it, so averaging (FedAvg), the
regulariser ``‖θ − θ0‖²``, message sizes (``p0`` scalars) and the official code's shared storage
(:func:`bandits.algorithms.fn_ucb` ``nn_mode="official_shared"``: several agents holding the
*same* tensor) are plain tensor operations. The flat order is the one of the official code's
``nn.Linear`` layers, weight (row-major, ``out × in``) then bias, layer by layer:
``(W1, b1, W2, b2, …, w_out, b_out)``; without biases ``(W1, …, W_L)`` (FN-UCB App. B).

The two parametrisations (FN-UCB App. B and the official code)
--------------------------------------------------------------
``init="ntk"`` — the paper's network (FN-UCB App. B, after Zhou et al. 2020 / Zhang et al. 2021),
``L = depth + 1`` weight matrices, no biases::

    f_1 = W_1 x,   f_l = W_l ReLU(f_{l−1})  (l = 2..L),   f(x; θ) = √m · f_L
    W_l = [[W, 0], [0, W]],  W_ij ~ N(0, 4/m)  (l = 1..L−1);   W_L = (wᵀ, −wᵀ),  w_j ~ N(0, 2/m)

With mirrored inputs (Assumption 1: ``‖x‖ = 1``, ``[x]_j = [x]_{j+d/2}``; :func:`mirror_inputs`)
the two halves cancel and ``f(x; θ0) = 0``. Requires even ``d`` and ``m``.

``init="official"`` — the official code's network (``daizhongxiang/Federated-Neural-Bandits``,
``NeuralTS/learner_diag.py``): ``depth`` hidden ``nn.Linear`` layers of width ``m`` with biases
and ReLU, then a linear output; **all** weights and biases i.i.d. ``N(0, 1)``; no √m factor.
``p0 = dm + m + (depth−1)(m² + m) + m + 1`` (241 for d = 10, m = 20).

Per-sample gradients and NTK features
-------------------------------------
``g(x; θ) = ∇_θ f(x; θ)`` for every row of ``X``: with ``method="func"`` through
``torch.func.vmap(torch.func.grad(f))`` (any depth); with ``method="closed_form"`` (one hidden
layer only, ``a = W1 x + b1``, ``s = 1[a > 0]``, ``c = √m`` for "ntk" and 1 for "official")::

    ∂f/∂W1 = c (w2 ⊙ s) xᵀ,   ∂f/∂b1 = c (w2 ⊙ s),   ∂f/∂w2 = c ReLU(a),   ∂f/∂b2 = 1

``method="auto"`` takes the closed form when ``depth == 1``. Both are tested against plain
autograd. The NTK feature map (FN-UCB Sec. 2) is ``φ(x) = g(x; θ0)/√m`` (``feature_scale="sqrt_m"``,
the paper) or ``g(x; θ)`` unscaled (``"raw"``, the official code; the published λ, ν are for it).
The two are reparametrisations of each other: ``(λ, ν)`` raw ≡ ``(λ/m, ν√m)`` sqrt_m.

Local training (FN-UCB Eq. 1, App. E vs the official code)
----------------------------------------------------------
Full-batch gradient descent, ``θ ← θ − η ∇L(θ)``, ``steps`` times, with::

    L(θ) = data(θ) + reg(θ)
    data: "sum"  ½ Σ_τ (f(x_τ;θ) − y_τ)²          (paper, Eq. 1)
          "mean" (1/n) Σ_τ (f(x_τ;θ) − y_τ)²       (code: nn.MSELoss)
    reg:  "paper" ½ m λ ‖θ − θ_ref‖²               (Eq. 1, the λ·m scaling)
          "code"  (λ/2n) ‖θ − θ_ref‖²              (code: SGD(weight_decay = λ/n))
    θ_ref: "theta0" (paper: pull towards the shared θ0) or "zero" (code: weight decay)

``objective="paper"`` is (sum, paper, theta0), Eq. (1); ``objective="official"`` is (mean, code,
zero), which is exactly ``torch.optim.SGD(lr, weight_decay=λ/n)`` on ``nn.MSELoss`` (tested).
Here n is the number of points in the training set. The official FN-UCB code divides λ by its
number of *training calls* instead (``weight_decay=self.lamdba / self.len`` in
``NeuralTS/learner_diag.py``, ``self.len`` counting calls); the two agree when one point is added
per call (FN-UCB's ``official_train_subset=True``, or a round every iteration) and differ by the
points per round otherwise (≈ 8–10× at D = 5; :mod:`bandits.algorithms.fn_ucb`).
The paper's App. E says "stochastic gradient descent … 30 iterations with a learning rate of
0.01"; the official code is full-batch (every step uses all local data), which we follow (the
paper is silent on the batch size). For one hidden layer the gradient is the closed form above
contracted with the residuals (no per-sample matrix is formed), run on the CPU tensors' own
memory with numpy's GEMMs and two torch elementwise kernels (``engine="auto"``; packed layout,
13 calls per step, measured about 2x the plain numpy version and faster than torch's batched
GEMMs for these tiny arrays) or in torch on CUDA; otherwise ``torch.func.grad``. Scoring a few
arms per step (features and predictions) likewise runs in numpy on the CPU
(:meth:`MLP.features_numpy`, :meth:`MLP.forward_numpy`). ``dtype=torch.float32`` (the official
code's) trains about 1.3x (n = 250) to 2x (n ≥ 1000) faster than float64 on one CPU thread.
Rows of a batch ``(B, p0)`` (one per agent, all with ``n`` points) are trained independently in
one batched computation; training is in place (``theta`` is overwritten), so agents that share
one storage really share their training.

Parameter averaging (FedAvg, FN-UCB Algo. 2 line 4): ``θ_sync,NN = (1/N) Σ_i θ^i``
(:func:`average_params`).

Devices and randomness
----------------------
``device="auto"`` (:func:`torch_device`) picks CUDA when torch sees a GPU, else the CPU; it is
resolved once per object. Initial parameters are drawn on the CPU from a seeded
``torch.Generator`` (:func:`make_generator`) and then moved, so the same seed gives the same θ0
on every device. No global torch seed is ever set. The network's dtype defaults to float64 (the
official code uses float32; float64 makes CPU and CUDA runs agree to round-off); the p0×p0
matrices of the bandit algorithms are float64 always.

The incremental inverse helpers for torch tensors (:func:`sherman_morrison_`) mirror
:func:`bandits.linalg.sherman_morrison` (numpy), which is the reference in the tests.

Block contexts (the classification bandits' rows, zero outside their arm's block): :func:`block_width`
finds the blocks, the training takes its block path on them (:func:`train_full_batch`), and
:meth:`MLP.block_support` with the ``support_*`` products say where a context's features can be nonzero
and multiply on that support only (used by FN-UCB and the neural baselines).

Length (≈ 890 lines): one module on purpose. It is the package's one torch module, and the network's flat
layout (:meth:`MLP.unflatten`, the offsets) is read by the features, the forward pass, both training engines
and the block-support products alike; split, each part would re-derive it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from .validation import check, check_all, fail, ge, gt, one_of, optional, rule

__all__ = [
    "INITS",
    "FEATURE_SCALES",
    "OBJECTIVES",
    "GRAD_METHODS",
    "torch_device",
    "make_generator",
    "mirror_inputs",
    "MLP",
    "TrainConfig",
    "train_full_batch",
    "block_width",
    "feature_blocks",
    "average_params",
    "sherman_morrison_",
    "to_tensor",
    "to_numpy",
]

INITS = ("official", "ntk")
FEATURE_SCALES = ("raw", "sqrt_m")
OBJECTIVES = ("official", "paper")
GRAD_METHODS = ("auto", "closed_form", "func")
_GRAD_METHOD, _FEATURE_SCALE = one_of(*GRAD_METHODS), one_of(*FEATURE_SCALES)  # checked at every step
LOSS_REDUCTIONS = ("mean", "sum")
REG_SCALES = ("code", "paper")
REG_TARGETS = ("zero", "theta0")


def torch_device(device="auto") -> torch.device:
    """``"auto"``: CUDA when available, else CPU; ``"cpu"``, ``"cuda"`` or a ``torch.device`` as given."""
    if isinstance(device, torch.device):
        return device
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device in ("cpu", "cuda") or (isinstance(device, str) and device.startswith("cuda:")):
        if device.startswith("cuda") and not torch.cuda.is_available():
            fail("device", device, one_of("auto", "cpu"), note="torch sees no CUDA device")
        return torch.device(device)
    fail("device", device, "'auto', 'cpu', 'cuda' or 'cuda:<n>'")


def make_generator(seed) -> torch.Generator:
    """A CPU ``torch.Generator`` seeded from an int, a ``numpy.random.SeedSequence`` or a
    ``numpy.random.Generator`` (one 63-bit draw). Never touches the global torch seed."""
    if isinstance(seed, torch.Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        s = int(seed.generate_state(2, dtype=np.uint32).astype(np.uint64) @ np.array([1, 2**32], dtype=np.uint64))
    elif isinstance(seed, np.random.Generator):
        s = int(seed.integers(0, 2**63 - 1))
    else:
        s = int(seed)
    g = torch.Generator(device="cpu")
    g.manual_seed(s & (2**63 - 1))
    return g


def mirror_inputs(X: np.ndarray) -> np.ndarray:
    """``x ↦ [x, x]/√2`` (Zhou et al. 2020): unit norm is kept and ``[x]_j = [x]_{j+d/2}``
    (FN-UCB Assumption 1). Args: X (..., d). Returns (..., 2d)."""
    X = np.asarray(X, dtype=float)
    return np.concatenate([X, X], axis=-1) / math.sqrt(2.0)


def to_tensor(X, device: torch.device, dtype=torch.float64) -> torch.Tensor:
    if isinstance(X, torch.Tensor):
        return X.to(device=device, dtype=dtype)
    return torch.as_tensor(np.ascontiguousarray(X), dtype=dtype, device=device)


def to_numpy(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy()


class MLP:
    """A ReLU MLP described by its shapes; parameters live in flat tensors (module docstring).

    Args:
        dim: input dimension d (even for ``init="ntk"``).
        width: hidden width m (even for ``init="ntk"``).
        depth: number of hidden layers (the paper's ``L = depth + 1``); the experiments use 1.
        init: ``"official"`` (N(0,1) weights and biases) or ``"ntk"`` (App. B, no biases, √m output).
        dtype: torch dtype of the parameters (default float64).
        device: ``"auto"``, ``"cpu"``, ``"cuda"``.

    Attributes:
        p0: number of parameters; ``shapes``: list of (name, shape) in flat order.
    """

    def __init__(self, dim: int, width: int = 20, depth: int = 1, init: str = "official",
                 dtype=torch.float64, device="auto"):
        check("dim", int(dim), ge(1))
        check("width", int(width), ge(1))
        check("depth", int(depth), ge(1))
        check("init", init, one_of(*INITS))
        if init == "ntk":
            even = rule(lambda n: not n % 2, "even")
            check_all(dim=(dim, even), width=(width, even))
        self.d, self.m, self.depth, self.init = int(dim), int(width), int(depth), init
        self.bias = init == "official"
        self.out_scale = math.sqrt(self.m) if init == "ntk" else 1.0
        self.dtype = dtype
        self.device = torch_device(device)
        shapes = []
        fan_in = self.d
        for l in range(self.depth):
            shapes.append((f"W{l + 1}", (self.m, fan_in)))
            if self.bias:
                shapes.append((f"b{l + 1}", (self.m,)))
            fan_in = self.m
        shapes.append((f"W{self.depth + 1}", (1, self.m)))
        if self.bias:
            shapes.append((f"b{self.depth + 1}", (1,)))
        self.shapes = shapes
        sizes = [int(np.prod(s)) for _, s in shapes]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
        self.p0 = int(self.offsets[-1])

    def __repr__(self):
        return f"MLP(dim={self.d}, width={self.m}, depth={self.depth}, init={self.init!r}, p0={self.p0})"

    # -- parameters -------------------------------------------------------------------------
    def init_params(self, seed) -> torch.Tensor:
        """θ0 ~ init(·), drawn on the CPU from ``make_generator(seed)``; returns (p0,) on the device."""
        g = make_generator(seed)
        parts = []
        if self.init == "official":
            theta = torch.randn(self.p0, generator=g, dtype=torch.float64)
        else:
            h = self.m // 2
            for l, (_, shape) in enumerate(self.shapes):
                if l < self.depth:
                    fan = shape[1] // 2
                    W = torch.randn(h, fan, generator=g, dtype=torch.float64) * math.sqrt(4.0 / self.m)
                    blk = torch.zeros(shape, dtype=torch.float64)
                    blk[:h, :fan] = W
                    blk[h:, fan:] = W
                    parts.append(blk.reshape(-1))
                else:
                    w = torch.randn(h, generator=g, dtype=torch.float64) * math.sqrt(2.0 / self.m)
                    parts.append(torch.cat([w, -w]))
            theta = torch.cat(parts)
        return theta.to(device=self.device, dtype=self.dtype)

    def block_support(self, a: int, w: int) -> np.ndarray:
        """The flat indices of ``θ`` where the gradient ``g(x; θ)`` of a one-hidden-layer network can be
        nonzero when the input ``x`` is zero outside block ``a`` of width ``w`` (:func:`block_width`):
        ``∂f/∂W1[:, j] = c (w2 ⊙ s) x_j`` vanishes for every ``j`` outside the block; every other
        parameter (``b1``, ``w2``, ``b2``) is kept."""
        check("depth", self.depth, rule(lambda d: d == 1, "1 (one hidden layer)"))
        o = self.offsets
        W1 = (np.arange(self.m)[:, None] * self.d + a * w + np.arange(w)[None, :]).ravel()
        return np.concatenate([o[0] + W1, np.arange(o[1], self.p0)])

    # Products restricted to block_support(a, w) = S: the W1 entries j·d + a·w + l (j < m, l < w), then the
    # r = p0 − m·d others. Taken as strided views of the matrices (m runs of w), not by fancy indexing, which
    # costs several times more on a p0 × p0 matrix.
    def support_cols(self, P: np.ndarray, a: int, w: int) -> np.ndarray:
        """``P[:, S]`` for a 2-D ``P`` (R, p0), ``S = block_support(a, w)``."""
        m, d = self.m, self.d
        md = m * d
        out = np.empty((P.shape[0], m * w + P.shape[1] - md))
        out[:, :m * w].reshape(-1, m, w)[...] = P[:, :md].reshape(-1, m, d)[:, :, a * w:(a + 1) * w]
        out[:, m * w:] = P[:, md:]
        return out

    def support_square(self, M: np.ndarray, a: int, w: int) -> np.ndarray:
        """``M[S, S]`` for a (p0, p0) ``M``: only the cache lines of ``S``'s rows and columns are read."""
        m, d = self.m, self.d
        md, mw = m * d, m * w
        r = M.shape[0] - md
        b = slice(a * w, (a + 1) * w)
        out = np.empty((mw + r, mw + r))
        out[:mw, :mw].reshape(m, w, m, w)[...] = M[:md, :md].reshape(m, d, m, d)[:, b, :, b]
        out[:mw, mw:].reshape(m, w, r)[...] = M[:md, md:].reshape(m, d, r)[:, b]
        out[mw:, :mw].reshape(r, m, w)[...] = M[md:, :md].reshape(r, m, d)[:, :, b]
        out[mw:, mw:] = M[md:, md:]
        return out

    def support_matvec(self, V: np.ndarray, phi: np.ndarray, a: int, w: int) -> np.ndarray:
        """``V φ`` for a symmetric (p0, p0) ``V`` and a ``φ`` zero off ``S``, as ``V[S, :]ᵀ φ_S`` (the rows of
        ``S``, contiguous: 221 of shuttle's 1 301 at m = 20)."""
        m, d = self.m, self.d
        md = m * d
        b = slice(a * w, (a + 1) * w)
        u = np.einsum("jl,jlp->p", phi[:md].reshape(m, d)[:, b], V[:md].reshape(m, d, -1)[:, b])
        u += phi[md:] @ V[md:]
        return u

    def unflatten(self, theta: torch.Tensor) -> list[torch.Tensor]:
        """Views ``[W1, b1, …]`` into ``theta`` ((p0,) or (B, p0) → leading batch dim kept)."""
        lead = theta.shape[:-1]
        return [theta[..., a:b].reshape(*lead, *s)
                for (_, s), a, b in zip(self.shapes, self.offsets[:-1], self.offsets[1:])]

    def _layers(self, theta):
        P = self.unflatten(theta)
        if self.bias:
            return [(P[2 * l], P[2 * l + 1]) for l in range(self.depth + 1)]
        return [(W, None) for W in P]

    # -- forward ----------------------------------------------------------------------------
    def forward(self, theta: torch.Tensor, X) -> torch.Tensor:
        """``f(x; θ)`` for every row. theta (p0,), X (n, d) → (n,); theta (B, p0), X (B, n, d) → (B, n)."""
        X = to_tensor(X, self.device, self.dtype)
        h = X
        layers = self._layers(theta)
        for l, (W, b) in enumerate(layers):
            h = h @ W.transpose(-1, -2)
            if b is not None:
                h = h + b.unsqueeze(-2)
            if l < self.depth:
                h = torch.relu(h)
        return self.out_scale * h[..., 0]

    def _f_single(self, theta, x):
        return self.forward(theta, x[None])[0]

    # -- gradients --------------------------------------------------------------------------
    def per_sample_grads(self, theta: torch.Tensor, X, method: str = "auto") -> torch.Tensor:
        """``g(x; θ) = ∇_θ f(x; θ)`` for every row of X.

        Args:
            theta: (p0,) or (B, p0).
            X: (n, d), or (B, n, d) with a batched theta.
            method: ``"auto"`` (closed form for one hidden layer, else func), ``"closed_form"``,
                ``"func"`` (``torch.func.vmap(torch.func.grad(f))``, any depth).
        Returns:
            (n, p0) or (B, n, p0), in the flat parameter order.
        """
        check("method", method, _GRAD_METHOD)
        X = to_tensor(X, self.device, self.dtype)
        if method == "auto":
            method = "closed_form" if self.depth == 1 else "func"
        if method == "closed_form":
            if self.depth != 1:
                fail("method", method, one_of("func", "auto"), note="'closed_form' exists for depth=1 only")
            return self._grads_closed_form(theta, X)
        from torch.func import grad, vmap

        per_x = vmap(grad(self._f_single), in_dims=(None, 0))
        if theta.dim() == 1:
            return per_x(theta, X)
        return vmap(per_x, in_dims=(0, 0))(theta, X)

    def _grads_closed_form(self, theta, X):
        layers = self._layers(theta)
        (W1, b1), (w2, _) = layers
        a = X @ W1.transpose(-1, -2)
        if b1 is not None:
            a = a + b1.unsqueeze(-2)
        c = self.out_scale
        ws = c * (w2 * (a > 0).to(a.dtype))  # (.., n, m): c·(w2 ⊙ s)
        gW1 = (ws.unsqueeze(-1) * X.unsqueeze(-2)).flatten(-2)  # (.., n, m·d), row-major W1
        parts = [gW1]
        if b1 is not None:
            parts.append(ws)
        parts.append(c * torch.relu(a))
        if b1 is not None:
            parts.append(torch.ones_like(a[..., :1]))
        return torch.cat(parts, dim=-1)

    def features(self, theta: torch.Tensor, X, feature_scale: str = "raw", method: str = "auto") -> torch.Tensor:
        """NTK features ``φ(x) = g(x; θ)`` ("raw", code) or ``g(x; θ)/√m`` ("sqrt_m", paper)."""
        check("feature_scale", feature_scale, _FEATURE_SCALE)
        G = self.per_sample_grads(theta, X, method)
        return G / math.sqrt(self.m) if feature_scale == "sqrt_m" else G

    # -- numpy fast paths (CPU, one hidden layer) --------------------------------------------
    def _numpy_ok(self, theta) -> bool:
        return self.depth == 1 and isinstance(theta, torch.Tensor) and theta.device.type == "cpu"

    def _np_params(self, theta):
        """Views ``(W1, b1, w2, b2)`` (``b1 = b2 = None`` without biases) into a CPU theta's memory;
        theta (p0,) or (B, p0) → W1 (…, m, d), b1 (…, m), w2 (…, m), b2 (…)."""
        th = theta.detach().numpy()
        o, lead = self.offsets, th.shape[:-1]
        W1 = th[..., o[0]:o[1]].reshape(*lead, self.m, self.d)
        if self.bias:
            return W1, th[..., o[1]:o[2]], th[..., o[2]:o[3]], th[..., o[3]]
        return W1, None, th[..., o[1]:o[2]], None

    def _np_preact(self, theta, X):
        W1, b1, w2, b2 = self._np_params(theta)
        X = np.asarray(X, dtype=W1.dtype)
        a = X @ np.swapaxes(W1, -1, -2)
        if b1 is not None:
            a += b1[..., None, :]
        return X, a, w2, b2

    def forward_numpy(self, theta: torch.Tensor, X) -> np.ndarray:
        """:meth:`forward` as a float64 numpy array, computed in numpy (in theta's dtype) for one
        hidden layer on the CPU — for the per-step scoring of a few arms, where torch's per-call
        overhead dominates — and through :meth:`forward` otherwise. Same shapes as :meth:`forward`."""
        if not self._numpy_ok(theta):
            return to_numpy(self.forward(theta, X)).astype(np.float64, copy=False)
        _, a, w2, b2 = self._np_preact(theta, X)
        h = np.maximum(a, 0.0, out=a)
        f = (h @ w2[..., :, None])[..., 0]
        if self.out_scale != 1.0:
            f *= self.out_scale
        if b2 is not None:
            f += b2[..., None]
        return f.astype(np.float64, copy=False)

    def features_numpy(self, theta: torch.Tensor, X, feature_scale: str = "raw") -> np.ndarray:
        """:meth:`features` (the closed form of :meth:`per_sample_grads`) as a float64 numpy array,
        computed in numpy for one hidden layer on the CPU, else through :meth:`features`.
        theta (p0,), X (n, d) → (n, p0); theta (B, p0), X (B, n, d) → (B, n, p0)."""
        check("feature_scale", feature_scale, _FEATURE_SCALE)
        if not self._numpy_ok(theta):
            return to_numpy(self.features(theta, X, feature_scale)).astype(np.float64, copy=False)
        X, a, w2, b2 = self._np_preact(theta, X)
        c = self.out_scale
        ws = (a > 0) * (c * w2[..., None, :])  # c (w2 ⊙ s): (…, n, m)
        lead = a.shape[:-1]
        parts = [(ws[..., :, None] * X[..., None, :]).reshape(*lead, self.m * self.d)]
        if self.bias:
            parts.append(ws)
        parts.append(c * np.maximum(a, 0.0))
        if self.bias:
            parts.append(np.ones(lead + (1,), dtype=a.dtype))
        G = np.concatenate(parts, axis=-1)
        if feature_scale == "sqrt_m":
            G /= math.sqrt(self.m)
        return G.astype(np.float64, copy=False)

    def loss_grad(self, theta: torch.Tensor, X, y, c_data: float, method: str = "auto") -> torch.Tensor:
        """``c_data · Σ_τ (f(x_τ;θ) − y_τ) g(x_τ;θ)`` without forming the (n, p0) matrix.

        Args: theta (p0,) or (B, p0); X (n, d) or (B, n, d); y (n,) or (B, n). Returns theta's shape.
        """
        X = to_tensor(X, self.device, self.dtype)
        y = to_tensor(y, self.device, self.dtype)
        if method == "auto":
            method = "closed_form" if self.depth == 1 else "func"
        if method == "closed_form":
            if self.depth != 1:
                fail("method", method, one_of("func", "auto"), note="'closed_form' exists for depth=1 only")
            (W1, b1), (w2, b2) = self._layers(theta)
            a = X @ W1.transpose(-1, -2)
            if b1 is not None:
                a = a + b1.unsqueeze(-2)
            h = torch.relu(a)
            c = self.out_scale
            f = c * (h @ w2.transpose(-1, -2))[..., 0]
            if b2 is not None:
                f = f + b2
            r = c_data * (f - y)  # (.., n)
            delta = c * (r.unsqueeze(-1) * w2) * (a > 0).to(a.dtype)  # (.., n, m)
            parts = [(delta.transpose(-1, -2) @ X).flatten(-2)]
            if b1 is not None:
                parts.append(delta.sum(-2))
            parts.append(c * (r.unsqueeze(-2) @ h)[..., 0, :])
            if b1 is not None:
                parts.append(r.sum(-1, keepdim=True))
            return torch.cat(parts, dim=-1)
        if method != "func":
            fail("method", method, one_of(*GRAD_METHODS))
        from torch.func import grad, vmap

        def data_loss(th, Xb, yb):
            return 0.5 * c_data * ((self.forward(th, Xb) - yb) ** 2).sum()

        if theta.dim() == 1:
            return grad(data_loss)(theta, X, y)
        return vmap(grad(data_loss))(theta, X, y)


@dataclass(frozen=True)
class TrainConfig:
    """Local training (module docstring, FN-UCB Eq. 1 / App. E / the official code's
    ``NeuralTS/learner_diag.py``).

    Attributes:
        steps: gradient steps per training call (paper and code: 30).
        lr: learning rate η (paper App. E and code: 0.01).
        lam: λ in the regulariser.
        objective: ``"official"`` = (mean, code, zero) or ``"paper"`` = (sum, paper, theta0).
        loss_reduction, reg_scale, reg_target: override single parts of the preset (``None``: preset).
    """

    steps: int = 30
    lr: float = 0.01
    lam: float = 0.1
    objective: str = "official"
    loss_reduction: str | None = None
    reg_scale: str | None = None
    reg_target: str | None = None

    def __post_init__(self):
        check("steps", int(self.steps), ge(0))
        check("lr", self.lr, gt(0))
        check("lam", self.lam, ge(0))
        check("objective", self.objective, one_of(*OBJECTIVES))
        for name, allowed in (("loss_reduction", LOSS_REDUCTIONS), ("reg_scale", REG_SCALES),
                              ("reg_target", REG_TARGETS)):
            v = getattr(self, name)
            check(name, v, optional(one_of(*allowed)))

    def resolved(self) -> tuple[str, str, str]:
        preset = ("mean", "code", "zero") if self.objective == "official" else ("sum", "paper", "theta0")
        return (self.loss_reduction or preset[0], self.reg_scale or preset[1], self.reg_target or preset[2])

    def divergence_advice(self) -> str:
        """What to change when training diverged (the policies' non-finite-score errors): full-batch
        gradient descent is stable only for ``lr < 2 / λ_max`` of the loss Hessian; with the summed loss
        ("sum") λ_max grows with the number of local points, with the mean loss ("mean") it does not and
        is set by the squared norm of the network's gradient. For one hidden layer with the code's N(0, 1)
        initialisation, ``E ‖g(x)‖² ≈ m (‖x‖² + 1) + 1`` (half the units active, ``E w2² = 1``,
        ``E ReLU(a)² = (‖x‖² + 1)/2``), so the curvature grows with the contexts' squared norm. Measured at
        θ0 for one point (``lr (2‖g‖² + λ)``, lr = 0.01, λ = 10, 300 draws): unit-norm shuttle contexts
        (FN-UCB Assumption 1) give a median of 0.85 (m = 20) and 2.0 (m = 50), at most 3.7; the official
        code's standardised rows a median of 1.8 / 4.9 and up to 84 / 506 (MAGIC up to 48 / 85)."""
        red = self.resolved()[0]
        why = ("with the summed loss that bound shrinks as the local data grow" if red == "sum" else
               "with the mean loss that bound is set by the squared norm of the network's gradient "
               "(the contexts' scale, the width), not by the number of points")
        return (f"(objective={self.objective!r}, loss_reduction={red!r}, lr={self.lr}, lam={self.lam}); "
                f"full-batch gradient descent needs lr below 2 / (largest eigenvalue of the loss Hessian), "
                f"and {why}; the eigenvalue grows with the squared norm of the contexts, which FN-UCB's "
                f"Assumption 1 (Sec. 2) puts at 1: give the contexts unit norm, or lower lr")


def train_full_batch(mlp: MLP, theta: torch.Tensor, X, y, config: TrainConfig,
                     theta0: torch.Tensor | None = None, method: str = "auto",
                     engine: str = "auto") -> torch.Tensor:
    """Full-batch gradient descent on ``L = data + reg`` (module docstring), **in place**.

    ``θ ← θ − η (c_data Σ_τ (f_τ − y_τ) g_τ + c_reg (θ − θ_ref))`` for ``config.steps`` steps, with
    ``c_data = 2/n`` ("mean") or 1 ("sum"), ``c_reg = λ/n`` ("code") or ``mλ`` ("paper"), and
    ``θ_ref = 0`` or ``θ0``.

    Args:
        mlp: the architecture.
        theta: (p0,) or (B, p0) parameters, overwritten (agents sharing a tensor share training).
        X: (n, d) or (B, n, d) local inputs; y: (n,) or (B, n) rewards. n = 0 does nothing.
        config: :class:`TrainConfig`.
        theta0: (p0,) the shared initialisation (needed when ``reg_target="theta0"``).
        method: gradient route, as in :meth:`MLP.per_sample_grads`.
        engine: for the one-hidden-layer closed form, ``"torch"`` or ``"numpy"`` (on the CPU
            tensors' shared memory, so the update is still in place); ``"auto"`` takes numpy on
            the CPU and torch on CUDA. Measured on one CPU thread (m = 20, d = 10, 2 agents):
            numpy's per-call overhead is several times smaller than torch's for these tiny
            arrays, and its batched matmul about twice as fast at n ≈ 1750.
    Returns:
        ``theta`` (the same tensor).
    """
    X = to_tensor(X, mlp.device, mlp.dtype)
    y = to_tensor(y, mlp.device, mlp.dtype)
    n = X.shape[-2]
    if n == 0 or config.steps == 0:
        return theta
    red, scale, target = config.resolved()
    c_data = 2.0 / n if red == "mean" else 1.0
    c_reg = config.lam / n if scale == "code" else mlp.m * config.lam
    if target == "theta0":
        check("theta0", theta0, rule(lambda t: t is not None, "given"), note="reg_target='theta0'")
        ref = theta0
    else:
        ref = None
    if method == "auto":
        method = "closed_form" if mlp.depth == 1 else "func"
    check("engine", engine, one_of("auto", "torch", "numpy"))
    if method == "closed_form" and mlp.depth == 1:
        if engine == "auto":
            engine = "numpy" if theta.device.type == "cpu" else "torch"
        if engine == "numpy":
            if theta.device.type != "cpu":
                fail("engine", engine, one_of("auto", "torch"), note="'numpy' needs CPU tensors")
            _train_one_hidden_layer_numpy(mlp, theta, X, y, int(config.steps), float(config.lr), c_data, c_reg,
                                          ref)
            return theta
        with torch.no_grad():
            _train_one_hidden_layer(mlp, theta, X, y, int(config.steps), float(config.lr), c_data, c_reg, ref)
        return theta
    with torch.no_grad():
        for _ in range(int(config.steps)):
            g = mlp.loss_grad(theta, X, y, c_data, method)
            if c_reg:
                g = g + c_reg * (theta - ref if ref is not None else theta)
            theta.sub_(config.lr * g)
    return theta


def _train_one_hidden_layer(mlp: MLP, theta, X, y, steps, lr, c_data, c_reg, ref):
    """The fast path of :func:`train_full_batch` for one hidden layer: the closed-form gradient
    of :meth:`MLP.loss_grad` with the parameter views and the data's batch layout prepared once
    (hand-written because torch's per-call overhead dominates these tiny networks: about 16
    kernels per step instead of autograd's graph; tested against autograd and torch's SGD)."""
    batched = theta.dim() == 2
    th = theta if batched else theta.unsqueeze(0)  # a view: in-place updates reach ``theta``
    Xb = X if batched else X.unsqueeze(0)
    yb = y if batched else y.unsqueeze(0)
    if ref is not None and ref.dim() == 1:
        ref = ref.unsqueeze(0)
    B, m, d = th.shape[0], mlp.m, mlp.d
    o = mlp.offsets
    c = mlp.out_scale
    if mlp.bias:
        W1 = th[:, o[0]:o[1]].view(B, m, d)
        b1 = th[:, o[1]:o[2]].unsqueeze(1)  # (B, 1, m)
        w2 = th[:, o[2]:o[3]].unsqueeze(1)  # (B, 1, m)
        b2 = th[:, o[3]:o[4]]  # (B, 1)
    else:
        W1 = th[:, o[0]:o[1]].view(B, m, d)
        w2 = th[:, o[1]:o[2]].unsqueeze(1)
        b1 = b2 = None
    for _ in range(steps):
        a = torch.baddbmm(b1, Xb, W1.transpose(1, 2)) if b1 is not None else torch.bmm(Xb, W1.transpose(1, 2))
        mask = a > 0
        h = a.relu_()
        f = torch.bmm(h, w2.transpose(1, 2)).squeeze(-1)  # (B, n)
        if c != 1.0:
            f = f * c
        if b2 is not None:
            f = f + b2
        r = (f - yb).mul_(c_data)  # c_data (f − y)
        delta = (r.unsqueeze(-1) * w2).mul_(mask)  # (B, n, m)
        if c != 1.0:
            delta = delta * c
        parts = [torch.bmm(delta.transpose(1, 2), Xb).flatten(1)]
        if b1 is not None:
            parts.append(delta.sum(1))
        gw2 = torch.bmm(r.unsqueeze(1), h).squeeze(1)
        parts.append(gw2 * c if c != 1.0 else gw2)
        if b2 is not None:
            parts.append(r.sum(1, keepdim=True))
        g = torch.cat(parts, dim=1)
        if c_reg:
            g.add_(th - ref if ref is not None else th, alpha=c_reg)
        th.add_(g, alpha=-lr)


def _train_one_hidden_layer_numpy(mlp: MLP, theta, X, y, steps, lr, c_data, c_reg, ref):
    r""":func:`_train_one_hidden_layer` in numpy on the memory of the CPU tensors (``Tensor.numpy()``
    shares it), so ``theta`` — and every holder of its storage — is updated in place.

    Hand-written (not autograd) because these networks are tiny: per step the cost is two GEMMs
    with an inner dimension of d + 1, two GEMVs and a few passes over an (m, n) array, and torch's
    per-call overhead and its MKL batched GEMM for these shapes were measured slower (one thread,
    m = 20, d = 10). Layout, chosen to minimise calls and passes over the (m, n) arrays:

    * packed parameters ``W = [W1 | b1]`` (B, m, d+1) and ``v = [w2, b2]`` (B, m+1), written back to
      ``theta``'s flat order once at the end. With biases, ``W`` has one more, constant row
      ``(0, …, 0, 1)``, so the activations get a row of ones and ``f = vᵀ H`` includes ``b2`` and
      ``H r`` includes ``Σ r`` (no biases for ``init="ntk"``: (B, m, d) and (B, m));
    * the data with a column of ones, ``X1 = [X, 1]``, as (B, n, d+1) and its transpose (B, d+1, n),
      so that both GEMMs run on contiguous operands::

          A = W X1ᵀ,  H = ReLU(A),  f = c·(w2ᵀ H) + b2,  ρ = η c_data (f − y)               (B, n)
          η ∂/∂W = c·w2 ⊙ ((1[A > 0] ⊙ ρ) X1),   η ∂/∂w2 = c·H ρ,   η ∂/∂b2 = Σ ρ
          θ ← (1 − η c_reg) θ + η c_reg θ_ref − η ∂

    which is ``θ ← θ − η (∂ + c_reg (θ − θ_ref))`` with the step size folded into the residuals
    and the regulariser into a decay: the same closed form as :meth:`MLP.loss_grad`, so results
    agree with the torch engine to round-off (tested). The ReLU and ``1[A > 0] ⊙ ρ`` run as torch
    kernels on the same buffers (``relu_``, ``threshold_backward``), about 1.5–3x numpy's.

    Block contexts (every row zero outside one block of ``w`` columns, :func:`block_width`: FN-UCB's
    classification bandits, Sec. 5.2) take :func:`_train_blocks` from ``_BLOCK_MIN_ROWS`` points on: the
    two GEMMs on each block's ``w + 1`` columns instead of all ``d + 1``, the same sums to round-off
    (about 2× less CPU per training at n = 2 000 on shuttle's 7 blocks). Dense rows take the path above,
    unchanged."""
    th = theta.detach().numpy()
    th2 = th if th.ndim == 2 else th[None]
    Xb = X.detach().numpy()
    Xb = Xb if Xb.ndim == 3 else Xb[None]
    yb = y.detach().numpy()
    yb = yb if yb.ndim == 2 else yb[None]
    B, n = Xb.shape[0], Xb.shape[1]
    m, d, c, bias = mlp.m, mlp.d, mlp.out_scale, mlp.bias
    o = mlp.offsets
    dt = th.dtype
    d1, m1 = (d + 1, m + 1) if bias else (d, m)

    def pack(t2):
        k = t2.shape[0]
        W = np.zeros((k, m1, d1), dt)  # with biases: the last row (0, …, 0, 1) makes H's row of ones
        W[:, :m, :d] = t2[:, o[0]:o[1]].reshape(k, m, d)
        v = np.empty((k, m1), dt)
        if bias:
            W[:, :m, d] = t2[:, o[1]:o[2]]
            W[:, m, d] = 1.0
            v[:, :m] = t2[:, o[2]:o[3]]
            v[:, m] = t2[:, o[3]]
        else:
            v[:] = t2[:, o[1]:o[2]]
        return W, v

    W, v = pack(th2)
    Wm, w2 = W[:, :m], v[:, :m]  # views: the trainable rows of W, and w2
    decay = 1.0 - lr * c_reg
    Wr = vr = None
    if ref is not None and c_reg:
        rf = ref.detach().cpu().numpy()
        Wr, vr = pack(rf if rf.ndim == 2 else rf[None])
        Wr, vr = (lr * c_reg) * Wr[:, :m], (lr * c_reg) * vr  # η c_reg θ_ref
    yb = np.asarray(yb, dtype=dt)
    w, first = _block_width_first(Xb) if n >= _BLOCK_MIN_ROWS else (None, None)
    if w is not None and d1 >= _BLOCK_MIN_SAVING * (w + 1 if bias else w):  # one GEMM pair per (agent, block)
        _train_blocks(W, v, Wm, w2, Wr, vr, Xb, yb, w, first // w, steps, lr * c_data, decay, c, bias, c_reg)
    else:
        _train_dense(W, v, Wm, w2, Wr, vr, Xb, yb, steps, lr * c_data, decay, c, bias, c_reg)
    th2[:, o[0]:o[1]] = W[:, :m, :d].reshape(B, m * d)
    if bias:
        th2[:, o[1]:o[2]] = W[:, :m, d]
        th2[:, o[2]:o[3]] = v[:, :m]
        th2[:, o[3]] = v[:, m]
    else:
        th2[:, o[1]:o[2]] = v


def _train_dense(W, v, Wm, w2, Wr, vr, Xb, yb, steps, k, decay, c, bias, c_reg):
    """The steps of :func:`_train_one_hidden_layer_numpy` on the full input (two batched GEMMs a step)."""
    B, n, d = Xb.shape
    m1, d1 = W.shape[1], W.shape[2]
    m, dt = w2.shape[1], W.dtype
    X1 = np.empty((B, n, d1), dt)
    X1[..., :d] = Xb
    if bias:
        X1[..., d] = 1.0
    X1T = np.ascontiguousarray(X1.transpose(0, 2, 1))
    A = np.empty((B, m1, n), dt)  # pre-activations, then H in place
    M = np.empty((B, m1, n), dt)
    gW = np.empty((B, m, d1), dt)

    def forward(out):
        np.matmul(W, X1T, out=out)

    def grad_W(M):
        np.matmul(M[:, :m], X1, out=gW)
        return gW

    _steps(W, v, Wm, w2, Wr, vr, yb, A, M, steps, k, decay, c, c_reg, forward, grad_W)


def _steps(W, v, Wm, w2, Wr, vr, yb, A, M, steps, k, decay, c, c_reg, forward, grad_W):
    """The gradient steps, the input's GEMMs given as ``forward(A)`` (``A = W X1ᵀ``) and ``grad_W(M)``
    (``M X1``, the data part of ``η ∂/∂W``)."""
    B, m1, n = A.shape
    dt = A.dtype
    r = np.empty((B, n), dt)
    gv = np.empty((B, m1), dt)
    At, Mt = torch.from_numpy(A), torch.from_numpy(M)
    rt = torch.from_numpy(r)[:, None, :].expand(B, m1, n)
    for _ in range(steps):
        forward(A)
        At.relu_()  # H = ReLU(A) in place (with biases its last row is ones)
        np.matmul(v[:, None, :], A, out=r[:, None, :])  # vᵀH = w2ᵀH (+ b2)
        if c != 1.0:  # no biases here
            r *= c
        r -= yb
        r *= k  # ρ = η c_data (f − y)
        torch.ops.aten.threshold_backward.grad_input(rt, At, 0, grad_input=Mt)  # M = 1[A > 0] ⊙ ρ
        gW = grad_W(M)
        gW *= w2[:, :, None] if c == 1.0 else c * w2[:, :, None]
        np.matmul(A, r[:, :, None], out=gv[:, :, None])  # H ρ (and Σ ρ in the bias slot)
        if c != 1.0:
            gv *= c
        if c_reg:
            Wm *= decay
            v *= decay
            if Wr is not None:
                Wm += Wr
                v += vr
        Wm -= gW
        v -= gv


#: The block path of the training (:func:`block_width`) is taken from this many local points on, and only when
#: it skips at least this factor of the input's columns: below either, the per-block GEMM calls (two per agent
#: and block and step) cost more than the columns they skip. Measured (one thread, 30 steps, CPU time, block
#: path / dense path): 7 blocks of 9 (shuttle), m = 50, 5 agents: 8.0/4.5 ms at n = 64, 11.4/15.1 at 256,
#: 20.3/33.5 at 512, 63/128 at 2 000; m = 20: 7.8/8.0 at 256, 10.6/16.6 at 512; 2 blocks of 10 (MAGIC): no
#: gain up to n = 512 (16.5/16.6 at m = 50, 5 agents).
_BLOCK_MIN_ROWS = 256
_BLOCK_MIN_SAVING = 3


def block_width(X) -> int | None:
    r"""The finest block width ``w < d`` such that every row of ``X`` (…, n, d) has its nonzero entries
    within one block ``[a·w, (a+1)·w)`` (``w`` divides ``d``), or ``None`` when only ``w = d`` does.

    The classification bandits' contexts (FN-UCB Sec. 5.2: the row ``x`` in arm ``a``'s block of a
    ``K·d``-vector, zeros elsewhere) have ``w = d_raw``; the synthetic contexts (dense rows) and mirrored
    inputs (two blocks per row) have none. An all-zero row fits any block."""
    return _block_width_first(X)[0]


def _block_width_first(X) -> tuple[int | None, np.ndarray | None]:
    """:func:`block_width` and each row's first nonzero column (…; 0 for an all-zero row): for block contexts
    a row's block is ``first // w`` (the block holding all its nonzero entries; block 0 for an all-zero row),
    so a caller gets the width and the rows' blocks from one pass over ``X``."""
    X = np.asarray(X)
    D = X.shape[-1]
    if D < 2 or X.size == 0:
        return None, None
    nz = X.reshape(-1, D) != 0
    lo = np.argmax(nz, axis=1)  # 0 for an all-zero row
    hi = D - 1 - np.argmax(nz[:, ::-1], axis=1)  # D − 1 for an all-zero row
    anyz = nz[np.arange(nz.shape[0]), lo]
    if not anyz.any():
        return None, None
    if not anyz.all():
        hi = np.where(anyz, hi, lo)  # an all-zero row fits any block
    first = lo.reshape(X.shape[:-1])
    for w in range(1, D):
        if D % w == 0 and np.array_equal(lo // w, hi // w):
            return (w if D // w >= 2 else None), first
    return None, first


def feature_blocks(mlp: MLP, X) -> tuple[int, np.ndarray] | None:
    """``(w, blk)`` when the inputs ``X`` (…, d) are block contexts (:func:`block_width` ``w``) whose gradient
    features live on at most 1/``_BLOCK_MIN_SAVING`` (a third) of the ``p0`` coordinates
    (:meth:`MLP.block_support`: shuttle's 7 blocks of 9 at m = 20, 221 of 1 301), ``blk`` (…) each input's block
    (:func:`_block_width_first`); else ``None`` (MAGIC's two blocks of 10: 241 of 441). The products on the support
    equal the dense ones to round-off."""
    if mlp.depth != 1:
        return None
    w, first = _block_width_first(X)  # one pass for the width and the blocks
    if w is None or _BLOCK_MIN_SAVING * len(mlp.block_support(0, w)) > mlp.p0:
        return None
    return w, first // w


def _train_blocks(W, v, Wm, w2, Wr, vr, Xb, yb, w, blk, steps, k, decay, c, bias, c_reg):
    r"""The steps of :func:`_train_one_hidden_layer_numpy` for block contexts (:func:`block_width`): each
    agent's rows sorted (stably) by their block ``a``, held as the block's ``w`` columns (and the bias's 1),
    and per (agent, block) ``A[:, rows_a] = [W_{:, a} | b1] [x_a, 1]ᵀ`` and ``∂W_{:, a} = M[:, rows_a] [x_a, 1]``:
    the same sums over the same nonzero products as :func:`_train_dense`'s two GEMMs, which also multiply
    the other ``(K − 1)·w`` zero columns (``K`` times the work for ``K`` blocks). An engine choice: the
    result equals the dense path's to round-off, not bit for bit (the order of the additions differs,
    and ``Σ_τ`` runs over the sorted rows). ``blk`` (B, n): each row's block (:func:`_block_width_first`)."""
    B, n, d = Xb.shape
    m1, d1 = W.shape[1], W.shape[2]
    m, dt = w2.shape[1], W.dtype
    K, w1 = d // w, w + (1 if bias else 0)
    order = np.argsort(blk, axis=1, kind="stable")
    blk = np.take_along_axis(blk, order, axis=1)
    yb = np.take_along_axis(yb, order, axis=1)
    Xc = np.empty((B, n, w1), dt)
    # each sorted row's own block's w entries, gathered in one indexing pass (not whole rows, then the block)
    Xc[..., :w] = Xb[np.arange(B)[:, None, None], order[..., None], blk[..., None] * w + np.arange(w)]
    if bias:
        Xc[..., w] = 1.0
    XcT = np.ascontiguousarray(Xc.transpose(0, 2, 1))
    ends = np.stack([np.searchsorted(blk[b], np.arange(K), side="right") for b in range(B)])
    segs = [[(a, int(ends[b, a - 1]) if a else 0, int(ends[b, a])) for a in range(K)] for b in range(B)]
    segs = [[s for s in sb if s[2] > s[1]] for sb in segs]
    Wg = np.empty((B, K, m1, w1), dt)
    gWg = np.zeros((B, K, m, w1), dt)  # a block without rows keeps a zero gradient
    gW = np.empty((B, m, d1), dt)
    A = np.empty((B, m1, n), dt)
    M = np.empty((B, m1, n), dt)

    def forward(out):
        Wg[..., :w] = W[:, :, :d].reshape(B, m1, K, w).transpose(0, 2, 1, 3)
        if bias:
            Wg[..., w] = W[:, None, :, d]
        for b in range(B):
            for a, s, e in segs[b]:
                np.matmul(Wg[b, a], XcT[b, :, s:e], out=out[b, :, s:e])

    def grad_W(M):
        for b in range(B):
            for a, s, e in segs[b]:
                np.matmul(M[b, :m, s:e], Xc[b, s:e], out=gWg[b, a])
        gW[:, :, :d] = gWg[..., :w].transpose(0, 2, 1, 3).reshape(B, m, d)
        if bias:
            gWg[..., w].sum(axis=1, out=gW[:, :, d])
        return gW

    _steps(W, v, Wm, w2, Wr, vr, yb, A, M, steps, k, decay, c, c_reg, forward, grad_W)


def average_params(thetas) -> torch.Tensor:
    """FedAvg: ``(1/N) Σ_i θ^i`` (FN-UCB Algo. 2 line 4). thetas: (N, p0) tensor or a list of (p0,)."""
    if isinstance(thetas, (list, tuple)):
        thetas = torch.stack(list(thetas))
    if thetas.device.type == "cpu":  # numpy's mean: a fraction of torch's per-call cost on (N, p0)
        return torch.from_numpy(thetas.detach().numpy().mean(axis=0))
    return thetas.mean(dim=0)


def sherman_morrison_(Ainv: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """In place ``A⁻¹ ← (A + u uᵀ)⁻¹ = A⁻¹ − (A⁻¹u)(A⁻¹u)ᵀ/(1 + uᵀA⁻¹u)`` for symmetric ``A⁻¹``
    (torch twin of :func:`bandits.linalg.sherman_morrison`). Ainv (p, p), u (p,)."""
    Au = Ainv @ u
    Ainv.sub_(torch.outer(Au, Au) / (1.0 + u @ Au))
    return Ainv
