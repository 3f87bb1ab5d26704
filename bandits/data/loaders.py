"""Loaders: a verified file of the data home -> its parser's arrays.

Each loader goes through ``fetch_path`` (sha256 checked, cached) and never downloads: a missing
file raises ``DataNotFoundError`` with the fix (``make data`` / ``python -m bandits.data ensure``).
``root`` overrides the data home; ``verify=False`` skips the checksum.
"""

from __future__ import annotations

import numpy as np

from .parsers import (BanData, Graph, MushroomData, Ratings, TwitchData, parse_magic,
                      parse_movielens_ratings, parse_mushroom, parse_shuttle, parse_snap_graph,
                      parse_twitch, parse_yelp)
from .registry import TWITCH_LANGUAGES, fetch_path
from ..validation import check, one_of

__all__ = [
    "load_magic",
    "load_mushroom",
    "load_shuttle",
    "load_movielens",
    "load_yelp",
    "load_ego_facebook",
    "load_twitch",
    "load_as733",
    "load_as_skitter",
]


def load_magic(*, root=None, verify: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """UCI MAGIC: (X float64 (19020, 10), y '<U1' 'g'/'h')."""
    return parse_magic(fetch_path("magic", root=root, verify=verify))


def load_mushroom(*, root=None, verify: bool = True) -> MushroomData:
    """UCI Mushroom: ordinal codes (8124, 22) with '?' = -1, class 'e'/'p', categories."""
    return parse_mushroom(fetch_path("mushroom", root=root, verify=verify))


def load_shuttle(part: str = "all", *, root=None, verify: bool = True):
    """UCI Statlog Shuttle: (X float64 (n, 9), y int64 1..7); ``part`` in all (58000; trn rows
    first), trn (43500), tst (14500)."""
    names = {"all": ("shuttle-trn", "shuttle-tst"), "trn": ("shuttle-trn",),
             "tst": ("shuttle-tst",)}
    check("part", part, one_of(*names))
    return parse_shuttle(*(fetch_path(n, root=root, verify=verify) for n in names[part]))


_MOVIELENS_VARIANTS = {"ml-latest-small": "movielens-ratings", "ml-100k": "ml-100k-ratings",
                       "ml-25m": "ml-25m-ratings"}


def load_movielens(variant: str = "ml-latest-small", *, root=None, verify: bool = True) -> Ratings:
    """MovieLens ratings: ``variant`` in ml-latest-small (shared copy), ml-100k, ml-25m."""
    check("variant", variant, one_of(*_MOVIELENS_VARIANTS))
    return parse_movielens_ratings(fetch_path(_MOVIELENS_VARIANTS[variant], root=root, verify=verify))


def load_yelp(*, root=None, verify: bool = True) -> BanData:
    """Ban et al.'s Yelp arrays (entries (117907, 3), users (2000, 10), items (10000, 10))."""
    return parse_yelp(*(fetch_path(n, root=root, verify=verify)
                        for n in ("yelp-entries", "yelp-user-features", "yelp-item-features")))


def load_ego_facebook(*, root=None, verify: bool = True) -> Graph:
    """SNAP ego-Facebook (4039 nodes, 88234 edges)."""
    return parse_snap_graph(fetch_path("ego-facebook", root=root, verify=verify))


def load_twitch(lang: str = "ENGB", *, root=None, verify: bool = True) -> TwitchData:
    """SNAP Twitch (MUSAE) graph of one language (DE ENGB ES FR PTBR RU TW)."""
    lang = lang.upper()
    check("lang", lang, one_of(*TWITCH_LANGUAGES))
    return parse_twitch(*(fetch_path(f"twitch-{lang}-{k}", root=root, verify=verify)
                          for k in ("edges", "target", "features")))


def load_as733(*, root=None, verify: bool = True) -> Graph:
    """SNAP as-733 snapshot as20000102 (6474 nodes, 12572 edges): a small stand-in for as-Skitter."""
    return parse_snap_graph(fetch_path("as20000102", root=root, verify=verify))


def load_as_skitter(*, root=None, verify: bool = True) -> Graph:
    """SNAP as-Skitter (optional; 1696415 nodes, 11095298 edges; no pinned checksum)."""
    return parse_snap_graph(fetch_path("as-skitter", root=root, verify=verify))
