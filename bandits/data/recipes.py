"""Bandit recipes: pure functions of arrays, an explicit ``numpy.random.Generator`` and parameters.

(a) UCI classification data -> fixed arms by k-means (Filippi et al. 2010, as in Async-KernelUCB
    §5.1): ``zscore``, ``one_hot``, ``kmeans``, ``cluster_arms``, ``uci_binary_problem``,
    ``uci_cluster_arms``.
(b) Ban et al.'s MovieLens / Yelp construction (EE-Net, ICLR 2022, notebook
    ``process_movielens.ipynb``): ``binarize_ratings``, ``ban_rating_matrix``, ``svd_features``,
    ``ban_features``, ``ban_decision_sets``.

Library routines are used where one exists: scikit-learn's ``StandardScaler``, ``OneHotEncoder`` and
``KMeans``. Two routines stay hand-written, each saying why in its docstring: ``_top_singular``
(exact truncated SVD from the smaller Gram matrix) and ``_rows_without_replacement`` (batched draws
without replacement, which numpy has no vectorised call for). scikit-learn is imported on first
use: importing it takes seconds, and the loaders and the command line do not need it.
"""

from __future__ import annotations

from typing import Mapping, NamedTuple

import numpy as np

from .loaders import load_magic, load_mushroom, load_shuttle
from .parsers import BanData
from ..validation import between, check, fail, ge, le, one_of, rule

__all__ = [
    "zscore",
    "one_hot",
    "kmeans",
    "ClusterArms",
    "cluster_arms",
    "UCI_POSITIVE_CLASS",
    "uci_binary_problem",
    "uci_cluster_arms",
    "PAPER_THRESHOLDS",
    "BAN_THRESHOLDS",
    "binarize_ratings",
    "ban_rating_matrix",
    "svd_features",
    "ban_features",
    "DecisionSets",
    "ban_decision_sets",
]


# --------------------------------------------------------------------------------------------------
# Recipe (a): UCI -> k-means arms (Filippi et al. 2010; Async-KernelUCB §5.1)
# --------------------------------------------------------------------------------------------------
def _as_rng(rng) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    check("rng", rng, rule(lambda r: r is not None, "an explicit numpy.random.Generator (or an int seed)"))
    return np.random.default_rng(rng)


def zscore(X) -> np.ndarray:
    """Standardise columns (mean 0, population sd 1; ``sklearn.preprocessing.StandardScaler``);
    constant columns become 0.

    Args:
        X: (n, d) array.
    """
    X = np.asarray(X, dtype=np.float64)
    check("X", X, rule(lambda a: a.ndim == 2, "a 2-d (n_samples, n_features) array"))
    if X.shape[0] == 0:
        return X.copy()
    from sklearn.preprocessing import StandardScaler

    return StandardScaler().fit_transform(X)


def one_hot(codes, missing_as_level: bool = True) -> np.ndarray:
    """One-hot encode integer category codes column by column (float64;
    ``sklearn.preprocessing.OneHotEncoder``).

    Each column contributes one indicator per distinct value present, in increasing order; the
    missing code -1 is its own level (first) when ``missing_as_level``, else an all-zero row.

    Args:
        codes: (n, m) integer codes, -1 = missing.

    Returns:
        (n, sum of the columns' level counts) float64.
    """
    codes = np.asarray(codes)
    check("codes", codes, rule(lambda a: a.ndim == 2, "a 2-d (n_samples, n_attributes) array"))
    levels = [np.unique(col) for col in codes.T]
    if not missing_as_level:
        levels = [lv[lv != -1] for lv in levels]
    keep = [j for j, lv in enumerate(levels) if lv.size]  # a column of only '?' adds no column
    if not keep or codes.shape[0] == 0:
        return np.zeros((codes.shape[0], sum(lv.size for lv in levels)))
    from sklearn.preprocessing import OneHotEncoder

    encoder = OneHotEncoder(categories=[levels[j] for j in keep], handle_unknown="ignore",
                            sparse_output=False, dtype=np.float64)
    return encoder.fit_transform(codes[:, keep])


def kmeans(X, n_clusters: int, rng, *, n_init: int = 10, max_iter: int = 300,
           tol: float = 1e-4) -> tuple[np.ndarray, np.ndarray, float]:
    """k-means by ``sklearn.cluster.KMeans`` (k-means++ seeding, Lloyd iterations), best of
    ``n_init`` runs by inertia.

    Seeding: one draw ``random_state = int(rng.integers(2**31 - 1))`` from the run's generator, so
    the clustering is a deterministic function of ``rng``'s state. A run stops when the squared
    centre shift is at most ``tol`` times the mean feature variance (scikit-learn's rule) or after
    ``max_iter`` iterations; scikit-learn moves an emptied cluster to a far point, so no cluster
    ends empty unless the data have fewer than ``n_clusters`` distinct points.

    The fit runs with one thread (``threadpoolctl.threadpool_limits(1)``): scikit-learn's Lloyd
    step adds the threads' partial centre sums in the order the threads take a lock, so with several
    threads the centres can differ in their last bits from one run to the next; with one they are
    bit-identical for a fixed seed (the recipe's sizes take well under a second per ``n_init``).

    Args:
        X: (n, d) points.
        n_clusters: k, with 1 <= k <= n.
        rng: ``numpy.random.Generator`` (or an int seed).

    Returns:
        centers (k, d), labels (n,) int64, inertia (sum of squared distances to the centres).
    """
    rng = _as_rng(rng)
    X = np.asarray(X, dtype=np.float64)
    check("X", X, rule(lambda a: a.ndim == 2, "a 2-d (n_samples, n_features) array"))
    n = X.shape[0]
    k = int(n_clusters)
    check("n_clusters", k, between(1, n, "both"))
    check("n_init", int(n_init), ge(1))
    check("max_iter", int(max_iter), ge(1))
    from sklearn.cluster import KMeans
    from threadpoolctl import threadpool_limits

    seed = int(rng.integers(2**31 - 1))
    model = KMeans(n_clusters=k, init="k-means++", n_init=int(n_init), max_iter=int(max_iter),
                   tol=float(tol), algorithm="lloyd", random_state=seed)
    with threadpool_limits(limits=1):
        model.fit(X)
    return (np.asarray(model.cluster_centers_, dtype=np.float64),
            model.labels_.astype(np.int64), float(model.inertia_))


class ClusterArms(NamedTuple):
    """Fixed arms from k-means: ``contexts`` (k, d) (centroids, scaled), ``mean_rewards`` (k,) in
    [0, 1], ``assignment`` (n,), ``sizes`` (k,), unscaled ``centers`` (k, d), ``inertia``."""

    contexts: np.ndarray
    mean_rewards: np.ndarray
    assignment: np.ndarray
    sizes: np.ndarray
    centers: np.ndarray
    inertia: float


def cluster_arms(X, y, rng, *, n_clusters: int = 20, n_init: int = 10, max_iter: int = 300,
                 tol: float = 1e-4, scale: str | None = "max_norm") -> ClusterArms:
    """Arms from a classification dataset (Filippi et al. 2010, as in Async-KernelUCB §5.1).

    Partition ``X`` into ``n_clusters`` clusters with k-means; each centroid is an arm's context and
    the mean of the binary label ``y`` over its cluster is the arm's mean reward. ``scale="max_norm"``
    divides all centroids by the largest centroid norm (so ||x|| <= 1; a choice of this package, the paper does not scale
    the centroids); ``None`` keeps them.

    Args:
        X: (n, d) features.
        y: (n,) binary labels in {0, 1}.
        rng: ``numpy.random.Generator`` (or an int seed) for ``kmeans``.

    Returns:
        ``ClusterArms``: contexts (k, d), mean_rewards (k,), assignment (n,), sizes (k,),
        centers (k, d), inertia.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    check("y", y, rule(lambda v: v.shape[0] == X.shape[0], f"{X.shape[0]} labels, one per row of X"),
          rule(lambda v: np.isin(v, (0.0, 1.0)).all(), "binary (0/1): binarise the labels first"))
    centers, labels, inertia = kmeans(X, n_clusters, rng, n_init=n_init, max_iter=max_iter, tol=tol)
    sizes = np.bincount(labels, minlength=n_clusters)
    means = np.bincount(labels, weights=y, minlength=n_clusters) / np.maximum(sizes, 1)
    contexts = centers.copy()
    if scale == "max_norm":
        top = float(np.linalg.norm(centers, axis=1).max())
        if top > 0:
            contexts = centers / top
    elif scale is not None:
        fail("scale", scale, "'max_norm' or None")
    return ClusterArms(contexts, means, labels, sizes, centers, inertia)


#: Binarisation per dataset (label 1): the papers say only "one class as 1, all others 0".
UCI_POSITIVE_CLASS = {"magic": "g", "mushroom": "e", "shuttle": 1}


def uci_binary_problem(dataset: str, *, root=None, verify: bool = True):
    """(features float64, label float64 0/1) for the k-means recipe.

    * magic: z-scored 10 features; label 1 = 'g' (gamma signal; 12332 of 19020).
    * mushroom: one-hot of the 22 attributes with '?' its own level (117 columns); label 1 = 'e'
      (edible; 4208 of 8124).
    * shuttle: z-scored 9 features; label 1 = class 1 (Rad Flow, the majority; 45586 of 58000).
    """
    if dataset == "magic":
        X, y = load_magic(root=root, verify=verify)
        return zscore(X), (y == "g").astype(np.float64)
    if dataset == "mushroom":
        m = load_mushroom(root=root, verify=verify)
        return one_hot(m.codes), (m.y == "e").astype(np.float64)
    if dataset == "shuttle":
        X, y = load_shuttle(root=root, verify=verify)
        return zscore(X), (y == 1).astype(np.float64)
    fail("dataset", dataset, one_of("magic", "mushroom", "shuttle"))


def uci_cluster_arms(dataset: str, rng, *, root=None, verify: bool = True, **kwargs) -> ClusterArms:
    """``cluster_arms`` on ``uci_binary_problem(dataset)``; kwargs go to ``cluster_arms``."""
    X, y = uci_binary_problem(dataset, root=root, verify=verify)
    return cluster_arms(X, y, rng, **kwargs)


# --------------------------------------------------------------------------------------------------
# Recipe (b): Ban et al.'s MovieLens / Yelp construction
# --------------------------------------------------------------------------------------------------
#: Async-KernelUCB §5.1: "We treated ratings greater than 2 as positive" (the rest negative).
PAPER_THRESHOLDS = {"positive_above": 2.0, "negative_below": 2.0, "negative_inclusive": True}
#: Ban et al.'s notebook: rating > 4 -> +1, rating < 2 -> -1, others dropped (the Yelp arrays).
BAN_THRESHOLDS = {"positive_above": 4.0, "negative_below": 2.0, "negative_inclusive": False}


def _thresholds(thresholds) -> dict:
    if isinstance(thresholds, str):
        table = {"paper": PAPER_THRESHOLDS, "ban": BAN_THRESHOLDS}
        check("thresholds", thresholds, one_of(*table))
        return dict(table[thresholds])
    out = dict(PAPER_THRESHOLDS)
    out.update(thresholds)
    return out


def binarize_ratings(rating, thresholds: str | Mapping = "paper") -> np.ndarray:
    """int8 labels: +1 if rating > positive_above, -1 if rating < negative_below (<= when
    ``negative_inclusive``), else 0 (dropped). Presets "paper" (> 2 / <= 2) and "ban" (> 4 / < 2)."""
    t = _thresholds(thresholds)
    r = np.asarray(rating, dtype=np.float64)
    pos = r > t["positive_above"]
    neg = (r <= t["negative_below"]) if t["negative_inclusive"] else (r < t["negative_below"])
    if (pos & neg).any():
        fail("thresholds", thresholds, "thresholds that do not overlap", note="a rating is both positive and negative")
    return (pos.astype(np.int8) - neg.astype(np.int8)).astype(np.int8)


def _top(counts: np.ndarray, candidates: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` candidates with the largest positive counts; ties keep candidate order."""
    c = counts[candidates]
    order = np.argsort(-c, kind="stable")
    order = order[c[order] > 0]
    return candidates[order[:k]]


def ban_rating_matrix(user, item, rating, *, n_users: int = 2000, n_items: int = 10000,
                      user_pool_factor: int = 3, thresholds: str | Mapping = "paper"):
    """Ban et al.'s reduced {+1, -1, 0} rating matrix.

    Binarise (``binarize_ratings``; dropped ratings do not count), keep the
    ``user_pool_factor * n_users`` users with the most labelled entries, then the ``n_items`` items
    with the most entries among them, then the ``n_users`` users with the most entries on those items.
    Rows are users in decreasing activity, columns items in decreasing popularity; ties go to the
    smaller raw id. A repeated (user, item) pair keeps its last rating. Sizes are clipped to what
    the data have (ml-latest-small: all 610 users and 9724 items at the defaults).

    Returns:
        (matrix int8 (n_users', n_items'), user_ids (n_users',), item_ids (n_items',)).
    """
    user = np.asarray(user, dtype=np.int64).reshape(-1)
    item = np.asarray(item, dtype=np.int64).reshape(-1)
    lab = binarize_ratings(rating, thresholds)
    check("rating", rating, rule(lambda _: user.shape == item.shape == lab.shape, "as long as user and item"))
    keep = lab != 0
    user, item, lab = user[keep], item[keep], lab[keep]
    uid, uinv = np.unique(user, return_inverse=True)
    iid, iinv = np.unique(item, return_inverse=True)
    ni_all = max(iid.size, 1)
    key = uinv.astype(np.int64) * ni_all + iinv
    _, last_rev = np.unique(key[::-1], return_index=True)
    sel = np.sort(key.size - 1 - last_rev)
    uinv, iinv, lab = uinv[sel], iinv[sel], lab[sel]

    pool = _top(np.bincount(uinv, minlength=uid.size), np.arange(uid.size),
                user_pool_factor * n_users)
    in_pool = np.zeros(uid.size, dtype=bool)
    in_pool[pool] = True
    m1 = in_pool[uinv]
    items = _top(np.bincount(iinv[m1], minlength=iid.size), np.arange(iid.size), n_items)
    item_col = np.full(iid.size, -1, dtype=np.int64)
    item_col[items] = np.arange(items.size)
    m2 = m1 & (item_col[iinv] >= 0)
    users = _top(np.bincount(uinv[m2], minlength=uid.size), pool, n_users)
    user_row = np.full(uid.size, -1, dtype=np.int64)
    user_row[users] = np.arange(users.size)
    m3 = m2 & (user_row[uinv] >= 0)
    M = np.zeros((users.size, items.size), dtype=np.int8)
    M[user_row[uinv[m3]], item_col[iinv[m3]]] = lab[m3]
    return M, uid[users], iid[items]


def _ban_embed(vectors: np.ndarray, dim: int) -> np.ndarray:
    k = dim - 1
    V = np.zeros((vectors.shape[0], k))
    take = min(k, vectors.shape[1])
    V[:, :take] = vectors[:, :take]
    norms = np.linalg.norm(V, axis=1, keepdims=True)
    V = V / np.where(norms > 0, norms, 1.0)
    return np.concatenate([V, np.ones((V.shape[0], 1))], axis=1) / np.sqrt(2.0)


def _top_singular(A: np.ndarray, r: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-``r`` left and right singular vectors from the eigendecomposition of the smaller Gram
    matrix (fast for a 2000 x 10000 matrix); components with a zero singular value are zero.

    Kept hand-written (a few lines over LAPACK's ``eigh``) rather than a library truncated SVD:
    it is exact, as Ban's ``np.linalg.svd`` (``sklearn.utils.extmath.randomized_svd`` is
    approximate; ``scipy.sparse.linalg.svds`` is iterative and its vectors depend on the start
    vector), and 10 times faster than ``np.linalg.svd`` on the MovieLens matrix (610 x 9724:
    0.32 s against 3.2 s, one thread, measured).
    """
    n, m = A.shape
    if n == 0 or m == 0 or r == 0:
        return np.zeros((n, r)), np.zeros((m, r))
    small_left = n <= m
    G = A @ A.T if small_left else A.T @ A
    w, Q = np.linalg.eigh(G)
    order = np.argsort(-w, kind="stable")[:r]
    s = np.sqrt(np.maximum(w[order], 0.0))
    Q = Q[:, order]
    tol = max(n, m) * np.finfo(float).eps * (s[0] if s.size else 0.0) * 1e3
    ok = s > tol
    other = (A.T @ Q) if small_left else (A @ Q)
    other = np.where(ok[None, :], other / np.where(ok, s, 1.0)[None, :], 0.0)
    Q = np.where(ok[None, :], Q, 0.0)
    U, V = (Q, other) if small_left else (other, Q)
    pad = r - U.shape[1]
    if pad > 0:
        U = np.concatenate([U, np.zeros((n, pad))], axis=1)
        V = np.concatenate([V, np.zeros((m, pad))], axis=1)
    return U, V


def svd_features(matrix, dim: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """Ban et al.'s SVD features of a rating matrix (rows users, columns items).

    The first ``dim - 1`` left (users) / right (items) singular vectors, each row L2-normalised, a
    constant 1 appended, divided by sqrt(2): unit-norm ``dim``-vectors, except that a row with no
    mass on those vectors (an item nobody kept rated) stays [0, ..., 0, 1]/sqrt(2) (norm 0.707), as
    with Ban's ``sklearn.preprocessing.normalize`` (the Yelp item array has 272 such rows).
    Ban's notebook runs ``np.linalg.svd`` on the matrix and on its transpose; the singular vectors
    are the same (computed here once, from the eigenvectors of the smaller Gram matrix).
    Signs are fixed so that each component's largest-magnitude user entry is positive, so results do
    not depend on the LAPACK build's sign choice.
    """
    A = np.asarray(matrix, dtype=np.float64)
    U, V = _top_singular(A, min(dim - 1, *A.shape) if A.size else 0)
    if U.size:
        big = np.argmax(np.abs(U), axis=0)
        signs = np.sign(U[big, np.arange(U.shape[1])])
        signs[signs == 0] = 1.0
        U = U * signs
        V = V * signs
    return _ban_embed(U, dim), _ban_embed(V, dim)


def ban_features(user, item, rating, *, n_users: int = 2000, n_items: int = 10000, dim: int = 10,
                 user_pool_factor: int = 3, thresholds: str | Mapping = "paper") -> BanData:
    """Ban et al.'s recipe end to end: ``ban_rating_matrix`` then ``svd_features``.

    ``entries`` lists the matrix's nonzero cells row by row as (user index, item index, label),
    the layout of the published Yelp arrays.
    """
    M, uids, iids = ban_rating_matrix(user, item, rating, n_users=n_users, n_items=n_items,
                                      user_pool_factor=user_pool_factor, thresholds=thresholds)
    rows, cols = np.nonzero(M)
    entries = np.stack([rows, cols, M[rows, cols].astype(np.int64)], axis=1).astype(np.int64)
    uf, itf = svd_features(M, dim)
    return BanData(entries, uf, itf, uids, iids)


class DecisionSets(NamedTuple):
    """``contexts`` (T, K, d_user + d_item) = user ⊕ item features; ``rewards`` (T, K) 0/1 with
    exactly one 1 per row at ``best_arm`` (T,); ``users``/``items`` (T, K) indices."""

    contexts: np.ndarray
    rewards: np.ndarray
    best_arm: np.ndarray
    users: np.ndarray
    items: np.ndarray


_DENSE_DRAW_LIMIT = 20_000_000  # largest rows * n drawn as one block of uniforms


def _rows_without_replacement(rng: np.random.Generator, n: int, rows: int, k: int) -> np.ndarray:
    """(rows, k) indices in [0, n), distinct within each row, uniform over ordered k-tuples.

    Kept hand-written: numpy has no batched draw without replacement
    (``Generator.choice(replace=False)`` draws one row per call, a Python loop over T = 10^4
    rounds); this draws every row at once (random-key prefixes, or iid rows redrawn on a clash).
    """
    check("k", k, le(n))
    if k == 0 or rows == 0:
        return np.zeros((rows, k), dtype=np.int64)
    if k * k > n or n * rows <= _DENSE_DRAW_LIMIT:
        # prefix of a uniform random permutation per row, in blocks of rows
        step = max(1, _DENSE_DRAW_LIMIT // n)
        return np.concatenate([
            np.argsort(rng.random((min(step, rows - s), n)), axis=1)[:, :k]
            for s in range(0, rows, step)
        ]).astype(np.int64)
    draw = rng.integers(n, size=(rows, k))  # iid rows, redrawn while they hold a duplicate
    while True:
        s = np.sort(draw, axis=1)
        bad = np.flatnonzero((s[:, 1:] == s[:, :-1]).any(axis=1))
        if bad.size == 0:
            return draw.astype(np.int64)
        draw[bad] = rng.integers(n, size=(bad.size, k))


def ban_decision_sets(entries, user_features, item_features, rng, n_rounds: int, *,
                      n_arms: int = 20, rewarded_label: int = 1,
                      same_user: bool = False) -> DecisionSets:
    """Decision sets of 1 rewarded arm + (n_arms - 1) others (Ban et al.; Async-KernelUCB §5.1).

    Default (Ban-style, independent pairs): the rewarded arm is a uniformly drawn entry labelled
    ``rewarded_label``; the others are distinct uniformly drawn entries labelled ``-rewarded_label``
    (so one step's arms generally belong to different users); positions are shuffled.
    ``same_user=True``: the rewarded entry as before, the others are distinct items of the same
    user that the user did not label ``rewarded_label`` (disliked or unrated).
    ``rewarded_label=-1`` is the reverse reading of Ban's code (the rare label rewarded).
    Reward 1 for the rewarded arm, 0 otherwise.
    """
    rng = _as_rng(rng)
    entries = np.asarray(entries, dtype=np.int64).reshape(-1, 3)
    uf = np.asarray(user_features, dtype=np.float64)
    itf = np.asarray(item_features, dtype=np.float64)
    T, K = int(n_rounds), int(n_arms)
    check("K", K, ge(1))
    pos = np.flatnonzero(entries[:, 2] == rewarded_label)
    if pos.size == 0:
        raise ValueError(f"no entry labelled {rewarded_label}")
    p = pos[rng.integers(pos.size, size=T)]
    users = np.empty((T, K), dtype=np.int64)
    items = np.empty((T, K), dtype=np.int64)
    users[:, 0] = entries[p, 0]
    items[:, 0] = entries[p, 1]
    if K > 1 and not same_user:
        neg = np.flatnonzero(entries[:, 2] == -rewarded_label)
        if neg.size < K - 1:
            raise ValueError(f"need at least {K - 1} entries labelled {-rewarded_label}, "
                             f"found {neg.size}")
        chosen = neg[_rows_without_replacement(rng, neg.size, T, K - 1)]
        users[:, 1:] = entries[chosen, 0]
        items[:, 1:] = entries[chosen, 1]
    elif K > 1:
        n_items = itf.shape[0]
        pe = entries[pos]
        pe = pe[np.lexsort((pe[:, 1], pe[:, 0]))]
        users[:, 1:] = users[:, :1]
        for u in np.unique(users[:, 0]):  # sorted users: a fixed order of rng draws
            rows_u = np.flatnonzero(users[:, 0] == u)
            lo, hi = np.searchsorted(pe[:, 0], [u, u + 1])
            P = np.unique(pe[lo:hi, 1])  # the user's rewarded items, sorted
            free = n_items - P.size
            if free < K - 1:
                raise ValueError(f"user {u} has only {free} non-rewarded items; need {K - 1}")
            j = _rows_without_replacement(rng, free, rows_u.size, K - 1)
            # the j-th item (0-based) outside P
            items[rows_u, 1:] = j + np.searchsorted(P - np.arange(P.size), j, side="right")
    perm = np.argsort(rng.random((T, K)), axis=1)
    users = np.take_along_axis(users, perm, axis=1)
    items = np.take_along_axis(items, perm, axis=1)
    best = np.argmax(perm == 0, axis=1).astype(np.int64)
    contexts = np.concatenate([uf[users], itf[items]], axis=-1)
    rewards = np.zeros((T, K))
    rewards[np.arange(T), best] = 1.0
    return DecisionSets(contexts, rewards, best, users, items)
