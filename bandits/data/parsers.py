"""Parsers: canonical files of each source -> numpy arrays (no network, no checksums here).

Sources: UCI (MAGIC, Mushroom, Statlog Shuttle), MovieLens ratings (every published layout), Ban et
al.'s Yelp arrays, SNAP edge lists (ego-Facebook, as-733, as-Skitter) and the MUSAE Twitch graphs.
Shapes of the canonical files are listed in the package docstring (``bandits.data``).

The text parsers use ``numpy.loadtxt`` and the standard ``csv``/``json`` modules; graphs are kept as
sorted (m, 2) edge arrays (``Graph``) rather than networkx objects, so that the 11-million-edge
as-Skitter list stays a few arrays; ``Graph`` converts to networkx in ``bandits.graphs``.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from typing import NamedTuple

import numpy as np

from .registry import TWITCH_N_FEATURES

__all__ = [
    "Graph",
    "Ratings",
    "MushroomData",
    "BanData",
    "TwitchData",
    "MUSHROOM_ATTRIBUTES",
    "parse_magic",
    "parse_mushroom",
    "parse_shuttle",
    "parse_movielens_ratings",
    "parse_yelp",
    "parse_edge_list",
    "to_undirected_graph",
    "parse_snap_graph",
    "parse_twitch",
    "largest_connected_component",
]


class Graph(NamedTuple):
    """Undirected simple graph: ``edges`` int64 (m, 2) with u < v (sorted, unique), ``n`` nodes
    0..n-1, ``node_ids[i]`` = original id of node i."""

    edges: np.ndarray
    n: int
    node_ids: np.ndarray


class Ratings(NamedTuple):
    """MovieLens-style ratings, one entry per row, raw ids."""

    user: np.ndarray  # int64 (N,)
    item: np.ndarray  # int64 (N,)
    rating: np.ndarray  # float64 (N,)
    timestamp: np.ndarray  # int64 (N,)


class MushroomData(NamedTuple):
    codes: np.ndarray  # int64 (n, 22); -1 = missing ('?')
    y: np.ndarray  # '<U1' (n,), 'e' or 'p'
    categories: tuple  # per attribute, the sorted category letters (code = index)


class BanData(NamedTuple):
    """Ban et al.'s recommendation arrays.

    ``entries`` int64 (m, 3): (user index, item index, label in {+1, -1}); ``user_features``
    (n_users, d) and ``item_features`` (n_items, d) float64; ``user_ids``/``item_ids`` map indices
    back to the raw ids (for the published Yelp arrays they are the indices themselves).
    """

    entries: np.ndarray
    user_features: np.ndarray
    item_features: np.ndarray
    user_ids: np.ndarray
    item_ids: np.ndarray


class TwitchData(NamedTuple):
    """One MUSAE Twitch language graph; node i = ``new_id`` i.

    ``mature`` (the MUSAE node-classification target: the streamer uses explicit language),
    ``partner`` bool (n,); ``days``, ``views``, ``twitch_id`` int64 (n,); binary node features in
    CSR form (``feature_indptr`` (n+1,), ``feature_indices``), ``n_features`` columns.
    """

    edges: np.ndarray
    n: int
    mature: np.ndarray
    days: np.ndarray
    views: np.ndarray
    partner: np.ndarray
    twitch_id: np.ndarray
    feature_indptr: np.ndarray
    feature_indices: np.ndarray
    n_features: int

    @property
    def graph(self) -> Graph:
        return Graph(self.edges, self.n, np.arange(self.n, dtype=np.int64))

    def feature_matrix(self, dtype=np.float64) -> np.ndarray:
        """Dense (n, n_features) 0/1 feature matrix."""
        out = np.zeros((self.n, self.n_features), dtype=dtype)
        rows = np.repeat(np.arange(self.n), np.diff(self.feature_indptr))
        out[rows, self.feature_indices] = 1
        return out


MUSHROOM_ATTRIBUTES = (
    "cap-shape", "cap-surface", "cap-color", "bruises", "odor", "gill-attachment",
    "gill-spacing", "gill-size", "gill-color", "stalk-shape", "stalk-root",
    "stalk-surface-above-ring", "stalk-surface-below-ring", "stalk-color-above-ring",
    "stalk-color-below-ring", "veil-type", "veil-color", "ring-number", "ring-type",
    "spore-print-color", "population", "habitat",
)


def _read_csv_rows(path) -> list[list[str]]:
    with open(path, newline="") as fh:
        rows = [[c.strip() for c in row] for row in csv.reader(fh)]
    return [row for row in rows if any(row)]


def parse_magic(path) -> tuple[np.ndarray, np.ndarray]:
    """``magic04.data`` -> (X float64 (n, 10), y '<U1' in {'g', 'h'})."""
    with open(path) as fh:
        lines = [ln.strip() for ln in fh if ln.strip()]
    parts = [ln.rsplit(",", 1) for ln in lines]
    if any(len(p) != 2 or p[0].count(",") != 9 for p in parts):
        raise ValueError(f"{path}: expected 11 comma-separated fields per line (10 features + class)")
    y = np.array([p[1].strip() for p in parts], dtype="<U1")
    if not np.isin(y, ["g", "h"]).all():
        raise ValueError(f"{path}: class labels must be 'g' or 'h'")
    X = np.loadtxt(io.StringIO("\n".join(p[0] for p in parts)), delimiter=",", dtype=np.float64,
                   ndmin=2).reshape(-1, 10)
    return X, y


def parse_mushroom(path) -> MushroomData:
    """``agaricus-lepiota.data`` -> ordinal codes (categories sorted, '?' -> -1), class e/p."""
    rows = _read_csv_rows(path)
    if any(len(r) != 23 for r in rows):
        raise ValueError(f"{path}: expected 23 comma-separated fields per line (class + 22)")
    raw = np.array(rows, dtype=str).reshape(-1, 23)
    if raw.size and np.char.str_len(raw).max() > 1:
        raise ValueError(f"{path}: every field must be a single letter or '?'")
    raw = raw.astype("<U1")
    y = raw[:, 0].copy()
    if not np.isin(y, ["e", "p"]).all():
        raise ValueError(f"{path}: class labels must be 'e' or 'p'")
    codes = np.full((raw.shape[0], 22), -1, dtype=np.int64)
    categories = []
    for j in range(22):
        col = raw[:, j + 1]
        cats = np.unique(col[col != "?"])
        categories.append(tuple(str(c) for c in cats))
        present = col != "?"
        codes[present, j] = np.searchsorted(cats, col[present])
    return MushroomData(codes, y, tuple(categories))


def _parse_shuttle_file(path) -> tuple[np.ndarray, np.ndarray]:
    data = np.loadtxt(path, dtype=np.int64, ndmin=2)
    if data.size == 0:
        return np.zeros((0, 9)), np.zeros(0, dtype=np.int64)
    if data.shape[1] != 10:
        raise ValueError(f"{path}: expected 10 whitespace-separated integers per line")
    return data[:, :9].astype(np.float64), data[:, 9].copy()


def parse_shuttle(*paths) -> tuple[np.ndarray, np.ndarray]:
    """``shuttle.trn`` [+ ``shuttle.tst``] -> (X float64 (n, 9), y int64 classes 1..7), rows in
    file order (training rows first)."""
    parts = [_parse_shuttle_file(p) for p in paths]
    return (np.concatenate([p[0] for p in parts]).reshape(-1, 9),
            np.concatenate([p[1] for p in parts]).astype(np.int64))


def parse_movielens_ratings(path) -> Ratings:
    """MovieLens ratings in any of the usual layouts.

    * ``ratings.csv`` (ml-latest-small, ml-20m, ml-25m): header ``userId,movieId,rating,timestamp``;
    * ``u.data`` (ml-100k): tab-separated ``user item rating timestamp``, no header;
    * ``ratings.dat`` (ml-1m, ml-10m): ``user::item::rating::timestamp``, no header.
    """
    with open(path, newline="") as fh:
        first = fh.readline()
    if "::" in first:
        with open(path) as fh:
            text = fh.read().replace("::", "\t")
        data = np.loadtxt(io.StringIO(text), delimiter="\t", dtype=np.float64, ndmin=2)
    elif "\t" in first:
        data = np.loadtxt(path, delimiter="\t", dtype=np.float64, ndmin=2)
    else:
        header = first.strip().lower().replace(" ", "")
        skip = 0 if header[:1].isdigit() else 1
        data = np.loadtxt(path, delimiter=",", skiprows=skip, dtype=np.float64, ndmin=2)
    if data.size == 0:
        data = np.zeros((0, 4))
    if data.shape[1] != 4:
        raise ValueError(f"{path}: expected 4 columns (user, item, rating, timestamp)")
    return Ratings(data[:, 0].astype(np.int64), data[:, 1].astype(np.int64),
                   data[:, 2].astype(np.float64), data[:, 3].astype(np.int64))


def parse_yelp(entries_path, user_features_path, item_features_path) -> BanData:
    """The three EE-Net Yelp arrays -> ``BanData`` (ids = indices)."""
    entries = np.load(entries_path, allow_pickle=False).astype(np.int64)
    users = np.load(user_features_path, allow_pickle=False).astype(np.float64)
    items = np.load(item_features_path, allow_pickle=False).astype(np.float64)
    if entries.ndim != 2 or entries.shape[1] != 3:
        raise ValueError(f"{entries_path}: expected an (m, 3) array of (user, item, label)")
    if entries.size and (entries[:, 0].max() >= len(users) or entries[:, 1].max() >= len(items)):
        raise ValueError("Yelp entries index past the feature arrays")
    return BanData(entries, users, items, np.arange(len(users), dtype=np.int64),
                   np.arange(len(items), dtype=np.int64))


def _open_text(path):
    path = str(path)
    if path.endswith(".gz"):
        return gzip.open(path, "rt", newline="")
    return open(path, newline="")


def parse_edge_list(path, delimiter: str | None = None) -> np.ndarray:
    """Raw (m, 2) int64 node pairs of an edge list.

    Lines starting with '#' or '%' are comments; a non-numeric first line (``from,to``) is a header.
    The delimiter is guessed (',' if the first data line has one, else whitespace). '.gz' is read
    transparently. No cleaning: see ``to_undirected_graph``.
    """
    skip = 0
    first_data = None
    with _open_text(path) as fh:
        for i, line in enumerate(fh):
            s = line.strip()
            if not s or s[0] in "#%":
                continue
            first_data = s
            try:
                [int(t) for t in s.replace(",", " ").split()]
            except ValueError:
                skip = i + 1
                first_data = None
                continue
            break
    if first_data is None:
        return np.zeros((0, 2), dtype=np.int64)
    if delimiter is None and "," in first_data:
        delimiter = ","
    data = np.loadtxt(path, dtype=np.int64, delimiter=delimiter, comments=("#", "%"),
                      skiprows=skip, ndmin=2, usecols=(0, 1))
    return data.reshape(-1, 2)


def to_undirected_graph(pairs, nodes=None) -> Graph:
    """Undirected simple graph from node pairs: self-loops and duplicates dropped, each edge once with
    u < v, nodes relabelled 0..n-1 in increasing original id.

    Args:
        pairs: (m, 2) integer node ids.
        nodes: the node universe (e.g. every id of a target file). Default: every id in ``pairs``,
            including ids that only occur in self-loops (they become isolated nodes).
    """
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    node_ids = np.unique(pairs) if nodes is None else np.unique(np.asarray(nodes, dtype=np.int64))
    n = int(node_ids.size)
    if pairs.size == 0:
        return Graph(np.zeros((0, 2), dtype=np.int64), n, node_ids)
    idx = np.searchsorted(node_ids, pairs)
    if nodes is not None:
        bad = (idx >= n) | (node_ids[np.minimum(idx, n - 1)] != pairs)
        if bad.any():
            raise ValueError(f"edge endpoint {pairs[bad][0]} is not among the given nodes")
    lo = np.minimum(idx[:, 0], idx[:, 1])
    hi = np.maximum(idx[:, 0], idx[:, 1])
    keep = lo != hi
    keys = np.unique(lo[keep] * n + hi[keep])
    edges = np.stack([keys // n, keys % n], axis=1).astype(np.int64) if keys.size else \
        np.zeros((0, 2), dtype=np.int64)
    return Graph(edges, n, node_ids)


def parse_snap_graph(path) -> Graph:
    """A SNAP edge list (comments '#', whitespace-separated) -> ``Graph``."""
    return to_undirected_graph(parse_edge_list(path))


def parse_twitch(edges_path, target_path, features_path) -> TwitchData:
    """MUSAE Twitch files of one language -> ``TwitchData`` (node i = target ``new_id`` i).

    Duplicate ``new_id`` rows in the target file (FR has two) keep their first row.
    """
    with open(target_path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    need = {"id", "days", "mature", "views", "partner", "new_id"}
    if rows and not need <= set(rows[0]):
        raise ValueError(f"{target_path}: expected columns {sorted(need)}")
    new_id = np.array([int(r["new_id"]) for r in rows], dtype=np.int64)
    uniq, first = np.unique(new_id, return_index=True)
    n = int(uniq.size)
    if n and (uniq[0] != 0 or uniq[-1] != n - 1):
        raise ValueError(f"{target_path}: new_id values are not 0..n-1")
    rows = [rows[i] for i in first]  # ordered by new_id

    def _bool(v: str) -> bool:
        v = v.strip().lower()
        if v in ("true", "1"):
            return True
        if v in ("false", "0"):
            return False
        raise ValueError(f"{target_path}: not a boolean: {v!r}")

    mature = np.array([_bool(r["mature"]) for r in rows], dtype=bool)
    partner = np.array([_bool(r["partner"]) for r in rows], dtype=bool)
    days = np.array([int(r["days"]) for r in rows], dtype=np.int64)
    views = np.array([int(r["views"]) for r in rows], dtype=np.int64)
    twitch_id = np.array([int(r["id"]) for r in rows], dtype=np.int64)

    graph = to_undirected_graph(parse_edge_list(edges_path), nodes=np.arange(n))

    with open(features_path) as fh:
        feats = json.load(fh)
    lists: list[np.ndarray] = [np.zeros(0, dtype=np.int64)] * n
    for key, vals in feats.items():
        node = int(key)
        if not 0 <= node < n:
            raise ValueError(f"{features_path}: node {node} outside 0..{n - 1}")
        lists[node] = np.unique(np.asarray(vals, dtype=np.int64))
    indptr = np.zeros(n + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(v) for v in lists])
    indices = np.concatenate(lists) if n else np.zeros(0, dtype=np.int64)
    n_features = max(TWITCH_N_FEATURES, int(indices.max()) + 1 if indices.size else 0)
    return TwitchData(graph.edges, n, mature, days, views, partner, twitch_id, indptr, indices,
                      n_features)


def largest_connected_component(graph: Graph) -> Graph:
    """The largest connected component, relabelled 0..n'-1 (``node_ids`` keep the original ids).

    Components from ``scipy.sparse.csgraph.connected_components``; ties between equally large
    components go to the one holding the smallest node index. Edges keep their order.
    """
    from scipy import sparse
    from scipy.sparse import csgraph

    n = graph.n
    if n == 0:
        return graph
    adjacency = sparse.coo_array(
        (np.ones(len(graph.edges), dtype=np.int8), (graph.edges[:, 0], graph.edges[:, 1])),
        shape=(n, n)).tocsr()
    _, lab = csgraph.connected_components(adjacency, directed=False)
    sizes = np.bincount(lab)
    # the component of the smallest node among those of maximal size
    first_node = np.full(sizes.size, n, dtype=np.int64)
    np.minimum.at(first_node, lab, np.arange(n))
    big = np.flatnonzero(sizes == sizes.max())
    root = int(big[np.argmin(first_node[big])])
    keep = np.flatnonzero(lab == root)
    remap = np.full(n, -1, dtype=np.int64)
    remap[keep] = np.arange(keep.size)
    emask = lab[graph.edges[:, 0]] == root
    edges = remap[graph.edges[emask]]
    return Graph(edges.reshape(-1, 2), int(keep.size), graph.node_ids[keep])
