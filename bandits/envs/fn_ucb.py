r"""Environments of the neural-bandit experiments (FN-UCB, Dai et al. ICLR 2023, Sec. 5 and App. E).

Where the paper is silent this module follows the authors' code (repository
daizhongxiang/Federated-Neural-Bandits: ``run_fn_ucb.py``, ``NeuralTS/data_multi.py``) and says so.

Both are synchronous: every step ``t`` all ``N`` agents act, each with its own ``K`` fresh contexts
(``Arms(X (N, K, d), shared=False)``), and the loop (:func:`bandits.sim.run_regret`) computes the
regret of agent ``i`` from the hidden means, ``r_{t,i} = h(x*_{t,i}) − h(x_{t,i})`` with
``x*_{t,i} = argmax_{x ∈ X_{t,i}} h(x)`` (Sec. 2). FN-UCB's figures plot the average over agents,
``R̄(t) = (1/N) Σ_i Σ_{s ≤ t} r_{s,i}``.

Synthetic functions (Sec. 5.1, after Zhou et al. 2020)
------------------------------------------------------
::

    cosine:  h(x) = cos(3 ⟨a, x⟩)          square:  h(x) = 10 ⟨a, x⟩²
    y = h(x) + ε,   ε ~ N(0, 0.01²),   d = 10,   K = 4

* ``sampler="sphere"`` (default, the paper: contexts "randomly sampled from the unit hypersphere"):
  ``x = z/‖z‖``, ``z ~ N(0, I_d)``, i.e. uniform on the sphere; ``sampler="cube_normalized"`` (the
  official code): ``x = u/‖u‖``, ``u ~ U[−0.5, 0.5]^d`` (unit norm, not uniform on the sphere).
* ``a="random"`` (default, the paper: "randomly sampled from the unit hypersphere"): drawn once per
  ``env_seed`` (fixed across Monte Carlo runs); ``a="official"``: the fixed vector of the official
  code's ``a_groundtruth_synth.pkl`` (:data:`OFFICIAL_A`, d = 10, unit norm, positive entries).
* The regret uses the noiseless ``h`` (the paper's definition); the official code subtracts the
  *noisy* observed reward (bias 0, SD 0.01 per step; ``run_fn_ucb.py``, not in the paper), which is not reproduced.
* ``mirror=True`` turns each context into ``[x, x]/√2`` (2d, unit norm; Assumption 1's mirrored
  inputs for the NTK-initialised network, :func:`bandits.neural.mirror_inputs`); ``h`` is evaluated
  on the original ``x``. Off by default (Assumption 1, Sec. 2, is for the theory; the official code does not enforce it).

Classification bandits (Sec. 5.2; UCI Statlog Shuttle, MAGIC Gamma Telescope)
------------------------------------------------------------------------------
A K-class dataset becomes a K-armed contextual bandit (the neural-bandit family's recipe, Zhou et
al. 2020, Zhang et al. 2021): each step an agent draws a row ``x ∈ R^{d_raw}`` and faces the K block
contexts ::

    x^1 = [x; 0; …; 0],  x^2 = [0; x; …; 0],  …,  x^K = [0; …; 0; x]      (dimension K·d_raw)

with reward 1 for the arm of the true class and 0 otherwise (deterministic; regret = 1 − reward).
Preprocessing. The paper's (default, ``standardize=False``): NaN → −1, then every row
L2-normalised (``sklearn.preprocessing.normalize``), so every block context has ``‖x‖₂ = 1``. Sec. 5.2
constructs the experiments "following a widely used protocol in previous works (Li et al., 2010a;
Zhang et al., 2021; Zhou et al., 2020)", whose code (``NeuralTS/data_multi.py`` of Zhang et al., vendored
in the authors' repository) does exactly this, and Assumption 1 (Sec. 2) states "all contexts satisfy
‖x‖₂ = 1" (the synthetic contexts of Sec. 5.1 are on the unit sphere too). ``standardize=True`` is the
official FN-UCB code's addition (its ``data_multi.py`` imports ``StandardScaler`` with the comment
"added by us" and applies it to shuttle and MagicTelescope after the row normalisation; not in the
paper): every feature centred and scaled to unit variance over the whole dataset. The rows are then
no longer unit norm: shuttle's have norms up to 32.4 (median 2.0, 11 % above 4), MAGIC's up to 15.7
(median 2.3, 15 % above 4). With the code's network (N(0, 1) weights, :mod:`bandits.neural`) the
curvature of the training loss grows with ``‖x‖²``: one such row among an agent's first few points
puts ``lr · λ_max`` of the loss Hessian far above 2 at lr = 0.01, and gradient descent diverges in
a few steps (``tests/test_fn_divergence.py``). The official code itself, run on the rows and θ0 of a
diverged run of this package, diverges at the same training call (its Neural UCB [diag] on shuttle), and
with its own preprocessing its Neural UCB / TS [diag] diverge in 3 of 40 row orders. Labels → ``0..K−1`` in sorted order of the distinct labels (the code's
``OrdinalEncoder``). Shuttle: 58000 × 9, K = 7, context dim 63; MAGIC: 19020 × 10, K = 2, context dim 20.

Row streams: every agent walks its own shuffled copy of the dataset (``stream="permutation"``, the
code; the paper's "an input x is randomly drawn from the dataset" reads either way, and with
T·N ≪ n the two coincide in distribution). The permutations come from the run's environment
generator (a new one per agent, drawn at ``t = 0`` in agent order, and a fresh one whenever an agent
has used up all n rows), so runs differ and every algorithm under one seed sees the same rows
(common random numbers). ``official_streams=True`` uses the code's fixed streams instead: agent i's
order is ``sklearn.utils.shuffle(arange(n), random_state=i)`` in every run (cycled if exhausted);
our rows are in UCI file order, not OpenML's, so the rows themselves differ from the code's.
``stream="iid"`` draws each agent's row uniformly with replacement every step.

Offline substitutes (a choice of this package, not in the paper; labelled in ``info["substitute"]``): ``"breast_cancer"`` and ``"wine"``
from scikit-learn's bundled datasets (no download), for tests and quick runs without the data home.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .base import Arms, ContextualEnv
from ..validation import check, fail, ge, keys_in, one_of, rule

__all__ = [
    "OFFICIAL_A",
    "SYNTHETIC_FUNCTIONS",
    "SAMPLERS",
    "CLASSIFICATION_DATASETS",
    "STREAMS",
    "synthetic_reward",
    "sample_contexts",
    "fn_synthetic_env",
    "preprocess_features",
    "encode_labels",
    "block_contexts",
    "ClassificationBanditEnv",
    "load_classification",
    "fn_classification_env",
    "make_fn_env",
]

#: The official code's fixed ``a`` (``a_groundtruth_synth.pkl`` in the authors' repository; not in the paper), d = 10.
OFFICIAL_A = np.array([0.32325954, 0.2133327, 0.51375494, 0.20780836, 0.10867534, 0.41889169,
                       0.37378859, 0.25781819, 0.1154268, 0.36887927])

SYNTHETIC_FUNCTIONS = ("cosine", "square")
SAMPLERS = ("sphere", "cube_normalized")
_FUNCTION, _SAMPLER = one_of(*SYNTHETIC_FUNCTIONS), one_of(*SAMPLERS)  # checked at every step
A_CHOICES = ("random", "official")
CLASSIFICATION_DATASETS = ("shuttle", "magic", "breast_cancer", "wine")
STREAMS = ("permutation", "iid")


# ---------------------------------------------------------------------------------- synthetic
def synthetic_reward(function: str, a: np.ndarray, X: np.ndarray) -> np.ndarray:
    """``h(x)`` for every row: ``cos(3⟨a, x⟩)`` (cosine) or ``10⟨a, x⟩²`` (square).

    Args:
        function: "cosine" or "square".
        a: (d,) the hidden direction.
        X: (n, d) contexts.
    Returns:
        (n,) noiseless rewards.
    """
    check("function", function, _FUNCTION)
    z = np.asarray(X, dtype=float) @ np.asarray(a, dtype=float)
    return np.cos(3.0 * z) if function == "cosine" else 10.0 * z * z


def sample_contexts(rng: np.random.Generator, n: int, d: int, sampler: str = "sphere") -> np.ndarray:
    """(n, d) unit-norm contexts: ``"sphere"`` (z/‖z‖, z ~ N(0, I), the paper) or
    ``"cube_normalized"`` (u/‖u‖, u ~ U[−0.5, 0.5]^d, the official code)."""
    check("sampler", sampler, _SAMPLER)
    Z = rng.standard_normal((n, d)) if sampler == "sphere" else rng.uniform(-0.5, 0.5, size=(n, d))
    return Z / np.linalg.norm(Z, axis=1, keepdims=True)


def fn_synthetic_env(function: str = "cosine", d: int = 10, K: int = 4, noise_std: float = 0.01,
                     sampler: str = "sphere", a="random", mirror: bool = False,
                     env_seed: int = 0) -> ContextualEnv:
    """The synthetic cosine / square bandit of FN-UCB Sec. 5.1 (module docstring).

    Args:
        function: "cosine" or "square".
        d: input dimension (10 in the paper; ``a="official"`` needs d = 10).
        K: contexts per agent per step (4).
        noise_std: SD of the Gaussian observation noise (0.01).
        sampler: "sphere" (paper) or "cube_normalized" (code).
        a: "random" (paper; drawn once from ``env_seed``), "official" (the code's fixed vector) or a
            (d,) array (normalised to unit length).
        mirror: contexts ``[x, x]/√2`` of dimension 2d (Assumption 1); h is evaluated on x.
        env_seed: seeds ``a`` when random (``SeedSequence([env_seed, crc32("fn_<function>")])``).
    """
    from . import env_seed_sequence

    check("function", function, _FUNCTION)
    check("sampler", sampler, _SAMPLER)
    d, K = int(d), int(K)
    check("d", d, ge(1))
    check("K", K, ge(1))
    check("noise_std", noise_std, ge(0))
    if isinstance(a, str):
        check("a", a, one_of(*A_CHOICES))
        if a == "official":
            check("d", d, one_of(10), note="a='official' is the code's 10-d vector")
            avec = OFFICIAL_A.copy()
        else:
            rng_a = np.random.default_rng(env_seed_sequence(f"fn_{function}", env_seed))
            avec = sample_contexts(rng_a, 1, d, "sphere")[0]
        a_label = a
    else:
        avec = np.asarray(a, dtype=float).reshape(-1)
        check("a", avec, rule(lambda v: v.shape == (d,) and np.linalg.norm(v) > 0,
                              f"'random', 'official' or a nonzero ({d},) array"))
        avec = avec / np.linalg.norm(avec)
        a_label = "given"
    scale = np.sqrt(2.0)

    if mirror:
        def sampler_fn(rng, n):
            X = sample_contexts(rng, n, d, sampler)
            return np.concatenate([X, X], axis=1) / scale

        def f(X):
            return synthetic_reward(function, avec, np.asarray(X)[:, :d] * scale)
    else:
        def sampler_fn(rng, n):
            return sample_contexts(rng, n, d, sampler)

        def f(X):
            return synthetic_reward(function, avec, X)

    return ContextualEnv(sampler=sampler_fn, f=f, n_arms=K, dim=2 * d if mirror else d,
                         noise_std=float(noise_std), name=function, schedule="sync",
                         info={"a": avec.tolist(), "a_choice": a_label, "sampler": sampler,
                               "mirror": bool(mirror), "function": function})


# ---------------------------------------------------------------------------- classification
def preprocess_features(X: np.ndarray, standardize: bool = False) -> np.ndarray:
    """NaN → −1, rows L2-normalised (the paper's protocol: unit-norm contexts, Assumption 1 and Sec. 5.2),
    then, with ``standardize`` (the official code's addition, not in the paper), each feature centred and
    scaled to unit variance over the whole dataset (module docstring).

    Args:
        X: (n, d_raw) raw features.
    Returns:
        (n, d_raw) float64.
    """
    from sklearn.preprocessing import StandardScaler, normalize

    X = np.nan_to_num(np.asarray(X, dtype=float), nan=-1.0)
    X = normalize(X, norm="l2", axis=1)
    if standardize:
        X = StandardScaler().fit_transform(X)
    return X


def encode_labels(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Labels → ``0..K−1`` in the sorted order of the distinct labels. Returns (codes (n,), classes (K,))."""
    classes, codes = np.unique(np.asarray(y), return_inverse=True)
    return codes.astype(np.int64).reshape(-1), classes


def block_contexts(X: np.ndarray, K: int) -> np.ndarray:
    """The K block contexts of every row: ``out[..., a, a·d:(a+1)·d] = x``, zeros elsewhere.

    Args:
        X: (..., d) rows.
        K: number of arms (classes).
    Returns:
        (..., K, K·d).
    """
    X = np.asarray(X, dtype=float)
    d = X.shape[-1]
    out = np.zeros(X.shape[:-1] + (K, K * d))
    for a in range(K):
        out[..., a, a * d:(a + 1) * d] = X
    return out


@dataclass
class ClassificationBanditEnv:
    """A K-class dataset as a synchronous K-armed contextual bandit, one row stream per agent.

    Follows the environment interface of :mod:`bandits.envs.base` (``round``, ``rewards``,
    ``best_means``; see the module docstring for the construction and the streams).

    Attributes:
        X: (n, d_raw) preprocessed rows.
        labels: (n,) class codes in ``0..K−1``.
        n_arms: K (number of classes).
        stream: "permutation" or "iid".
        official_streams: agent i's permutation is ``sklearn.utils.shuffle(arange(n), random_state=i)``.
    """

    X: np.ndarray
    labels: np.ndarray
    n_arms: int
    name: str = "classification"
    stream: str = "permutation"
    official_streams: bool = False
    info: dict = field(default_factory=dict)
    noise_std: float = 0.0
    reward: str = "deterministic"
    schedule: str = "sync"

    def __post_init__(self):
        check("stream", self.stream, one_of(*STREAMS))
        self.X = np.asarray(self.X, dtype=float)
        self.labels = np.asarray(self.labels, dtype=np.int64).reshape(-1)
        n = self.labels.shape[0]
        check("X", self.X, rule(lambda X: X.ndim == 2 and X.shape[0] == n and n > 0,
                                f"an (n, d) array with n = len(labels) = {n} >= 1"))
        self.n_arms = check("n_arms", int(self.n_arms), ge(2))
        check("labels", self.labels, rule(lambda y: y.min() >= 0 and y.max() < self.n_arms,
                                          f"in 0..n_arms-1 = {self.n_arms - 1}"))
        self._perms: list[list[np.ndarray]] = []

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def dim(self) -> int:
        return self.n_arms * self.X.shape[1]

    def _official_perm(self, i: int) -> np.ndarray:
        from sklearn.utils import shuffle

        return shuffle(np.arange(self.n), random_state=i)

    def _reset(self, n_agents: int, rng: np.random.Generator) -> None:
        if self.official_streams:
            self._perms = [[self._official_perm(i)] for i in range(n_agents)]
        else:
            self._perms = [[rng.permutation(self.n)] for _ in range(n_agents)]

    def rows(self, t: int, n_agents: int, rng: np.random.Generator) -> np.ndarray:
        """(N,) the dataset row of every agent at step t (draws from ``rng`` as the module says)."""
        if self.stream == "iid":
            return rng.integers(0, self.n, size=n_agents)
        if t == 0 or len(self._perms) != n_agents:
            self._reset(n_agents, rng)
        e, pos = divmod(int(t), self.n)
        out = np.empty(n_agents, dtype=np.int64)
        for i in range(n_agents):
            perms = self._perms[i]
            while len(perms) <= e:  # an agent that used up all n rows starts a new pass
                perms.append(perms[0] if self.official_streams else rng.permutation(self.n))
            out[i] = perms[e][pos]
        return out

    def round(self, t: int, n_agents: int, rng: np.random.Generator):
        """Returns ``(agents (N,), Arms(X (N, K, K·d_raw)), means (N, K))``; means are one-hot of the class."""
        idx = self.rows(t, n_agents, rng)
        X = block_contexts(self.X[idx], self.n_arms)
        means = np.zeros((n_agents, self.n_arms))
        means[np.arange(n_agents), self.labels[idx]] = 1.0
        return np.arange(n_agents), Arms(X, ids=None, shared=False), means

    def rewards(self, chosen: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return np.asarray(chosen, dtype=float).copy()

    def best_means(self, means: np.ndarray, n_active: int) -> np.ndarray:
        return means.max(axis=-1)


def load_classification(dataset: str) -> tuple[np.ndarray, np.ndarray, dict]:
    """Raw ``(X, y, info)`` of a dataset: "shuttle" and "magic" through :mod:`bandits.data` (the data
    home; never downloads), "breast_cancer" and "wine" from scikit-learn's bundled copies."""
    check("dataset", dataset, one_of(*CLASSIFICATION_DATASETS))
    if dataset == "shuttle":
        from ..data import load_shuttle

        X, y = load_shuttle()
        return X, y, {"substitute": None}
    if dataset == "magic":
        from ..data import load_magic

        X, y = load_magic()
        return X, y, {"substitute": None}
    from sklearn import datasets as skd

    loader = skd.load_breast_cancer if dataset == "breast_cancer" else skd.load_wine
    b = loader()
    sub = "magic-like (binary)" if dataset == "breast_cancer" else "shuttle-like (multi-class)"
    return np.asarray(b.data, dtype=float), np.asarray(b.target), {"substitute": sub}


@lru_cache(maxsize=8)
def _prepared(dataset: str, standardize: bool):
    X, y, info = load_classification(dataset)
    codes, classes = encode_labels(y)
    Xp = preprocess_features(X, standardize=standardize)
    Xp.setflags(write=False)
    codes.setflags(write=False)
    return Xp, codes, classes, info


def fn_classification_env(dataset: str = "shuttle", stream: str = "permutation",
                          official_streams: bool = False, standardize: bool = False,
                          X: np.ndarray | None = None, y: np.ndarray | None = None) -> ClassificationBanditEnv:
    """The classification bandit of FN-UCB Sec. 5.2 (module docstring).

    Args:
        dataset: "shuttle", "magic" (data home) or "breast_cancer", "wine" (bundled substitutes);
            ignored (used as the name only) when ``X`` and ``y`` are given.
        stream: "permutation" (a shuffled copy per agent) or "iid" (rows drawn with replacement).
        official_streams: the code's fixed per-agent permutations (seed = agent index).
        standardize: apply the StandardScaler after the row normalisation (the official code; the
            default False keeps the paper's unit-norm rows).
        X, y: (n, d_raw) raw features and (n,) labels, instead of a named dataset (tests).
    """
    check("stream", stream, one_of(*STREAMS))
    check("y", y, rule(lambda y: (X is None) == (y is None), "given exactly when X is"))
    if X is None:
        Xp, codes, classes, info = _prepared(dataset, bool(standardize))
    else:
        info = {"substitute": "given arrays"}
        codes, classes = encode_labels(y)
        Xp = preprocess_features(X, standardize=standardize)
    counts = np.bincount(codes, minlength=len(classes))
    info = dict(info, dataset=dataset, n=int(Xp.shape[0]), d_raw=int(Xp.shape[1]), classes=[str(c) for c in classes],
                class_counts=counts.tolist(), standardize=bool(standardize), stream=stream,
                official_streams=bool(official_streams))
    return ClassificationBanditEnv(X=Xp, labels=codes, n_arms=len(classes), name=dataset, stream=stream,
                                   official_streams=bool(official_streams), info=info)


_SYNTH_KEYS = {"kind", "function", "d", "K", "noise_std", "sampler", "a", "mirror", "name"}
_CLASS_KEYS = {"kind", "dataset", "stream", "official_streams", "standardize", "name"}


def make_fn_env(spec: dict, env_seed: int = 0):
    """Build from a JSON-able spec (registered in :func:`bandits.envs.make_env`):

    * ``{"kind": "fn_synthetic", "function": "cosine"|"square", "d": 10, "K": 4, "noise_std": 0.01,
      "sampler": "sphere"|"cube_normalized", "a": "random"|"official"|[...], "mirror": False}``;
    * ``{"kind": "fn_classification", "dataset": "shuttle"|"magic"|"breast_cancer"|"wine",
      "stream": "permutation"|"iid", "official_streams": False, "standardize": False}``.

    ``name`` is accepted and ignored (a label for tables).
    """
    kind = spec.get("kind")
    if kind == "fn_synthetic":
        check("spec", spec, keys_in(*_SYNTH_KEYS))
        return fn_synthetic_env(spec.get("function", "cosine"), spec.get("d", 10), spec.get("K", 4),
                                spec.get("noise_std", 0.01), spec.get("sampler", "sphere"), spec.get("a", "random"),
                                bool(spec.get("mirror", False)), env_seed)
    if kind == "fn_classification":
        check("spec", spec, keys_in(*_CLASS_KEYS))
        return fn_classification_env(spec.get("dataset", "shuttle"), spec.get("stream", "permutation"),
                                     bool(spec.get("official_streams", False)), bool(spec.get("standardize", False)))
    fail("kind", kind, one_of("fn_synthetic", "fn_classification"))
