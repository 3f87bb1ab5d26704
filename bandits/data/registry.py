"""Datasets of the reproduced papers: registry, verified access, parsers and bandit recipes.

Nothing here downloads during a run. Loaders read files from the data directory named by the
environment variable ``BANDITS_DATA_DIR`` (layout below), check each file's sha256 against the
registry (once per path, size and mtime) and parse it into numpy arrays. The files themselves are
fetched once, beforehand, with ``make data`` or::

    python -m bandits.data download --dest DIR [--only NAME ...] [--base-url URL]

Layout under the data directory (the same as the shared offline copy)::

    magic/magic04.data                         UCI MAGIC Gamma Telescope
    mushroom/agaricus-lepiota.data             UCI Mushroom
    shuttle/shuttle.trn  shuttle/shuttle.tst   UCI Statlog (Shuttle)
    movielens/ml-latest-small/ratings.csv      MovieLens latest-small (also ml-25m/ratings.csv,
                                               ml-100k/u.data)
    yelp/yelp_2000users_10000items_entry.npy   Yelp arrays of Ban et al. (EE-Net, ICLR 2022)
    yelp/yelp_2000users_10000items_features.npy
    yelp/yelp_10000items_2000users_features.npy
    snap/ego-facebook/facebook_combined.txt    SNAP ego-Facebook
    snap/twitch/<LANG>/musae_<LANG>_{edges.csv,target.csv,features.json}   SNAP Twitch (MUSAE)
    snap/as-proxy/as20000102.txt               SNAP as-733 snapshot (small stand-in for as-Skitter)
    snap/as-skitter/as-skitter.txt             SNAP as-Skitter (optional, not in the shared copy)

What the parsers return (all numpy; shapes for the canonical files):

* MAGIC: ``X`` float64 (19020, 10), ``y`` '<U1' in {'g', 'h'} (12332 g / 6688 h).
* Mushroom: ``codes`` int64 (8124, 22), ordinal codes with each attribute's categories in sorted
  order (as OpenML's ARFF / scikit-learn's OrdinalEncoder), '?' (stalk-root, 2480 rows) -> -1;
  ``y`` '<U1' in {'e', 'p'} (4208 e / 3916 p); ``categories`` per attribute.
* Shuttle: ``X`` float64 (58000, 9) (integer-valued), ``y`` int64 classes 1..7; the first 43500 rows
  are shuttle.trn, the last 14500 shuttle.tst.
* MovieLens: ``Ratings(user, item, rating, timestamp)``, raw ids; latest-small has 100836 ratings,
  610 users, 9724 movies.
* Yelp (Ban et al.'s published preprocessing, see ``BanData``): ``entries`` int64 (117907, 3) rows
  (user index, item index, label) with label +1 (rating > 4, 106583 rows) or -1 (rating < 2, 11324
  rows), 2000 users, 9727 distinct items; ``user_features`` float64 (2000, 10) and
  ``item_features`` float64 (10000, 10): rank-9 SVD rows, L2-normalised, a constant 1 appended, divided
  by sqrt(2) (unit norm; 272 items that no kept user rated are [0, ..., 0, 1]/sqrt(2), norm 0.707).
* Graphs: ``Graph(edges, n, node_ids)``: ``edges`` int64 (m, 2), undirected, each edge once with
  u < v, sorted, self-loops and duplicates dropped; nodes relabelled 0..n-1 in increasing order of
  their original ids (``node_ids[i]`` is node i's original id). ego-Facebook: n = 4039, m = 88234.
  as20000102: n = 6474, m = 12572 (1323 self-loop lines dropped).
* Twitch: ``TwitchData``: node i is the target file's ``new_id`` i (the ids the edges file uses),
  so the graph, the target columns and the features line up. FR's target file has 6551 rows but
  only 6549 distinct ``new_id`` (two users are listed twice, once with views differing by one); the
  first row of each is kept, so FR has n = 6549 as in the SNAP README.

Recipes (pure functions of arrays, an explicit ``numpy.random.Generator`` and parameters):

* ``cluster_arms``: Filippi et al. (2010) / Async-KernelUCB: k-means (numpy k-means++ + Lloyd,
  best of ``n_init``) into 20 clusters; centroid = arm context (scaled by the largest centroid norm
  so that ||x|| <= 1); mean of the binarised label over the cluster = arm mean reward.
  ``uci_binary_problem`` documents the per-dataset binarisation: MAGIC label 1 = 'g' (gamma, the
  signal class), features z-scored; Mushroom label 1 = 'e' (edible), the 22 attributes one-hot
  encoded with '?' as its own level (117 columns); Shuttle label 1 = class 1 (Rad Flow, 78.6 %),
  features z-scored.
* ``ban_features`` / ``ban_decision_sets``: Ban et al.'s MovieLens/Yelp recipe (EE-Net notebook
  ``process_movielens.ipynb``): binarise ratings, keep the 3*2000 most active users, the 10000 most
  rated items among them, then the 2000 most active users; 10-d user and item features from one SVD;
  decision sets of 1 positive + 19 negatives; context = user (+) item features (d = 20).
  Default threshold: the Async-KernelUCB paper's "ratings greater than 2 as positive" (> 2 -> +1,
  <= 2 -> -1); ``thresholds="ban"`` gives Ban's notebook rule (> 4 -> +1, < 2 -> -1, others
  dropped), which is how the Yelp arrays were made (their labels cannot be re-binarised).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import hashlib
import io
import json
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.parse
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Mapping, NamedTuple, Sequence

import numpy as np

__all__ = [
    "ENV_VAR",
    "BASE_URL_ENV_VAR",
    "DataError",
    "DataNotFoundError",
    "DataChecksumError",
    "Source",
    "DataFile",
    "REGISTRY",
    "DATASETS",
    "CITATIONS",
    "get_file",
    "data_dir",
    "fetch_path",
    "file_sha256",
    "clear_verification_cache",
    "verify",
    # parsers
    "Graph",
    "Ratings",
    "MushroomData",
    "BanData",
    "TwitchData",
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
    "unlzw",
    # loaders
    "load_magic",
    "load_mushroom",
    "load_shuttle",
    "load_movielens",
    "load_yelp",
    "load_ego_facebook",
    "load_twitch",
    "load_as733",
    "load_as_skitter",
    "TWITCH_LANGUAGES",
    # recipes
    "zscore",
    "one_hot",
    "kmeans",
    "ClusterArms",
    "cluster_arms",
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
    # download
    "DownloadResult",
    "download",
    "main",
]

ENV_VAR = "BANDITS_DATA_DIR"
#: Older spelling used by one spec (fn-ucb.md); read only when ``BANDITS_DATA_DIR`` is unset.
LEGACY_ENV_VARS = ("BANDIT_DATA_DIR",)
#: Overrides the scheme and host of every download address (keeps the path), e.g. a local mirror.
BASE_URL_ENV_VAR = "BANDITS_DATA_BASE_URL"


# --------------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------------
class DataError(Exception):
    """Base class of this module's data errors."""


class DataNotFoundError(DataError, FileNotFoundError):
    """The data directory is not configured, or a dataset file is absent from it."""


class DataChecksumError(DataError, ValueError):
    """A dataset file's sha256 differs from the registry's (corrupt, truncated or another version)."""

    def __init__(self, message: str, *, path=None, expected=None, found=None):
        super().__init__(message)
        self.path = path
        self.expected = expected
        self.found = found


# --------------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Source:
    """Where bytes are served and how they are packed.

    ``kind``: ``"file"`` (the bytes are the file), ``"gzip"`` (gunzip them), ``"zip"`` or ``"tar"``
    (an archive; the file is a member). ``sha256``/``md5`` pin the served bytes when known.
    """

    url: str
    kind: str = "file"
    sha256: str | None = None
    md5: str | None = None


@dataclass(frozen=True)
class DataFile:
    """One canonical file: where it lives under the data directory and how to obtain it.

    ``sha256`` is the checksum of the file as stored (after decompression); ``None`` marks an
    optional file without a public pin (only its existence is checked). ``member`` names the archive
    member (matched on whole trailing path components); ``unlzw`` marks a member packed with Unix
    ``compress`` (.Z).
    """

    name: str
    path: str
    sha256: str | None
    source: Source
    dataset: str
    member: str | None = None
    unlzw: bool = False
    optional: bool = False

    @property
    def url(self) -> str:
        return self.source.url

    @property
    def citation(self) -> str:
        return CITATIONS.get(self.dataset, "")

    def howto(self) -> str:
        """One line saying how the canonical download becomes this file."""
        url = self.source.url
        kind = self.source.kind
        if kind == "file":
            text = f"download {url}"
        elif kind == "gzip":
            text = f"download {url} and decompress it (gunzip)"
        else:
            text = f"download {url} and extract the member '{self.member}'"
            if self.unlzw:
                text += " then decompress it (uncompress, or gzip -d: it is a Unix-compress .Z file)"
        return f"{text}; save it as <data dir>/{self.path}"


_UCI = "https://archive.ics.uci.edu"
_SNAP = "https://snap.stanford.edu/data"
_GROUPLENS = "https://files.grouplens.org/datasets/movielens"
_EENET = (
    "https://github.com/banyikun/EE-Net-ICLR-2022/raw/"
    "08d6ed7bca8f3818dbf4c502887bec2912f614a8/data/Yelp"
)

CITATIONS: dict[str, str] = {
    "magic": "Bock, R. (2004). MAGIC Gamma Telescope [Dataset]. UCI Machine Learning Repository. "
    "https://doi.org/10.24432/C52C8B (CC BY 4.0)",
    "mushroom": "Mushroom [Dataset] (1981). UCI Machine Learning Repository. "
    "https://doi.org/10.24432/C5959T (CC BY 4.0)",
    "shuttle": "Statlog (Shuttle) [Dataset]. UCI Machine Learning Repository. "
    "https://doi.org/10.24432/C5WS31 (CC BY 4.0)",
    "movielens": "F. M. Harper and J. A. Konstan. The MovieLens Datasets: History and Context. "
    "ACM TiiS 5(4):19, 2015. https://doi.org/10.1145/2827872 (GroupLens research terms)",
    "ml-100k": "F. M. Harper and J. A. Konstan. The MovieLens Datasets: History and Context. "
    "ACM TiiS 5(4):19, 2015 (ml-100k: no redistribution without permission)",
    "ml-25m": "F. M. Harper and J. A. Konstan. The MovieLens Datasets: History and Context. "
    "ACM TiiS 5(4):19, 2015",
    "yelp": "Y. Ban, Y. Yan, A. Banerjee, J. He. EE-Net: Exploitation-Exploration Neural Networks in "
    "Contextual Bandits. ICLR 2022; derived from the Yelp Open Dataset (academic use only; never "
    "redistribute or commit)",
    "ego-facebook": "J. McAuley and J. Leskovec. Learning to Discover Social Circles in Ego "
    "Networks. NIPS 2012 (SNAP)",
    "twitch": "B. Rozemberczki, C. Allen, R. Sarkar. Multi-scale Attributed Node Embedding. "
    "Journal of Complex Networks 2021, arXiv:1909.13021 (SNAP)",
    "as-733": "J. Leskovec, J. Kleinberg, C. Faloutsos. Graphs over Time: Densification Laws, "
    "Shrinking Diameters and Possible Explanations. KDD 2005 (SNAP as-733)",
    "as-skitter": "J. Leskovec, J. Kleinberg, C. Faloutsos. Graphs over Time: Densification Laws, "
    "Shrinking Diameters and Possible Explanations. KDD 2005 (SNAP as-Skitter)",
}

TWITCH_LANGUAGES = ("DE", "ENGB", "ES", "FR", "PTBR", "RU", "TW")
#: MUSAE Twitch feature ids run 0..3169 in every language graph.
TWITCH_N_FEATURES = 3170


def _build_registry() -> tuple[DataFile, ...]:
    uci_magic = f"{_UCI}/ml/machine-learning-databases/magic"
    uci_mush = f"{_UCI}/ml/machine-learning-databases/mushroom"
    shuttle_zip = Source(
        f"{_UCI}/static/public/148/statlog+shuttle.zip",
        "zip",
        sha256="a03e1f23755093eff5b8d9656f944ae3240a376065cf4360d090f5fe0aff9bef",
    )
    ml_small_zip = Source(f"{_GROUPLENS}/ml-latest-small.zip", "zip")
    twitch_zip = Source(f"{_SNAP}/twitch.zip", "zip")
    files = [
        DataFile("magic", "magic/magic04.data",
                 "e9314b7ebd4b4b59a3b3d65f7316663963777b16a46786877651dbbaa640b36a",
                 Source(f"{uci_magic}/magic04.data"), "magic"),
        DataFile("magic-names", "magic/magic04.names",
                 "6b74a329008ea6d062d0c0acf34f0a4aa0e7ce7d1aaeebce4ae5995c06a7abc2",
                 Source(f"{uci_magic}/magic04.names"), "magic"),
        DataFile("mushroom", "mushroom/agaricus-lepiota.data",
                 "e65d082030501a3ebcbcd7c9f7c71aa9d28fdfff463bf4cf4716a3fe13ac360e",
                 Source(f"{uci_mush}/agaricus-lepiota.data"), "mushroom"),
        DataFile("mushroom-names", "mushroom/agaricus-lepiota.names",
                 "5eb8d22dcdd3689a8691be48884f48697d535a3293ff333d28b7ac4ecdb0e2b5",
                 Source(f"{uci_mush}/agaricus-lepiota.names"), "mushroom"),
        DataFile("shuttle-trn", "shuttle/shuttle.trn",
                 "87b24ee9fb5137e1d417659cf905d84d0e15342bbaa60770f1ae83da1a38200a",
                 shuttle_zip, "shuttle", member="shuttle.trn.Z", unlzw=True),
        DataFile("shuttle-tst", "shuttle/shuttle.tst",
                 "f776934a628d9b94c482cb058a76ddaa63823e0f74aec065813c9dff3b89d661",
                 shuttle_zip, "shuttle", member="shuttle.tst"),
        DataFile("movielens-zip", "movielens/ml-latest-small.zip",
                 "859da233c6929ebc9202e9516cdefa8a3c695aef67d1878249d6036c3513c023",
                 Source(f"{_GROUPLENS}/ml-latest-small.zip"), "movielens"),
        DataFile("movielens-ratings", "movielens/ml-latest-small/ratings.csv",
                 "aa289ca83157595d0df6aea1be6a4ded676ddc4385472e8313a8ed9805352646",
                 ml_small_zip, "movielens", member="ml-latest-small/ratings.csv"),
        DataFile("movielens-movies", "movielens/ml-latest-small/movies.csv",
                 "5a5f32dd9bb3797b8e728a1b98958789d2b13f294a69fdfbc5727f8a9611aa07",
                 ml_small_zip, "movielens", member="ml-latest-small/movies.csv"),
        DataFile("movielens-tags", "movielens/ml-latest-small/tags.csv",
                 "92a9f8bb7916dceef6151209845788c3643f794dfa79d1feaec7121b5960399d",
                 ml_small_zip, "movielens", member="ml-latest-small/tags.csv"),
        DataFile("movielens-links", "movielens/ml-latest-small/links.csv",
                 "97ad18e4e56a09363c65676b6cb3482ce3e2cea2372a24620c1599c843325f31",
                 ml_small_zip, "movielens", member="ml-latest-small/links.csv"),
        DataFile("movielens-readme", "movielens/ml-latest-small/README.txt",
                 "63d22ac138e80fae37021797ed8e1b9424b5239dc576a137422adf783ae3f404",
                 ml_small_zip, "movielens", member="ml-latest-small/README.txt"),
        DataFile("yelp-entries", "yelp/yelp_2000users_10000items_entry.npy",
                 "9b3a42210f3a3f3d4d0cb55b69a4baa63a13704a1780be4956c891813ad40a9e",
                 Source(f"{_EENET}/yelp_2000users_10000items_entry.npy"), "yelp"),
        DataFile("yelp-user-features", "yelp/yelp_2000users_10000items_features.npy",
                 "5bf46305e85cd518abce70394de91ed57ce5bf306b64e69d08351ce38af67556",
                 Source(f"{_EENET}/yelp_2000users_10000items_features.npy"), "yelp"),
        DataFile("yelp-item-features", "yelp/yelp_10000items_2000users_features.npy",
                 "cc08056aa78457b5742fa956ec931948e12ab4e25b282450d2c4b96f93112c64",
                 Source(f"{_EENET}/yelp_10000items_2000users_features.npy"), "yelp"),
        DataFile("ego-facebook", "snap/ego-facebook/facebook_combined.txt",
                 "f41c026ed8af3cc3359f1ca5573d0605fb09ae0eefa34544b820fd8c6e2ef296",
                 Source(f"{_SNAP}/facebook_combined.txt.gz", "gzip",
                        sha256="125e84db872eeba443d270c70315c256b0af43a502fcfe51f50621166ad035d7"),
                 "ego-facebook"),
        DataFile("twitch-readme", "snap/twitch/README.txt",
                 "be79f746cd8e37916346d7e15ba1bf09ba054e307c596fbce260ae27b27b3dd6",
                 twitch_zip, "twitch", member="twitch/README.txt"),
        DataFile("twitch-citing", "snap/twitch/citing.txt",
                 "36016c1d9f1251594636dba9683198e9d0b0e70d11cbe47f991cc567dfbd0e70",
                 twitch_zip, "twitch", member="twitch/citing.txt"),
    ]
    twitch_sums = {
        "DE": ("54feaf3e3e70a485fe07f8611e4d2677841b97f77b8358204bcf4a48cc884d86",
               "2188f58a093bb9db363d3eaf7c3a52c2adc8ff6b23cbcb4f53875f87061c0321",
               "7b39c42570f05cd46017c765df8d8a1bc03f19787c3eb0f9684f50a52476ae3a"),
        "ENGB": ("5ea4d7f7267454e9523577eb2a9b4dcb7a22dd660a548240f01b815d08e0e3cc",
                 "e9d51399878216d2dd662b0a152b602cccde7b5cbb8452cb91d9379f64114443",
                 "efcd846f7b687d299c9c674f3cda43cd70de8307d2558895bddd3645eb38d500"),
        "ES": ("17801d2cc45fc4909a431ce7a190c0565d4af87b0548ca7705cf2bef7da4c884",
               "f843427bae58289100e78c6c211fa4a1ae0d5fbf2c665841df9e390b00dcffb5",
               "598a610ef7e0469c5ad800c11f7ad89797e6a27d7d66b670782a5516cc344725"),
        "FR": ("9924263f7e8edaa7278dcbc37bd90c8712cb0ea1726d85e054a5588b7959f887",
               "dd0a9e7ba565cbb95ae66003892709742bd08c26387656e3e235fc25205663b4",
               "b6ecbefd5606f46d30a9b4be7b574e5427d9e0314f1bd6a1861942ae718d3573"),
        "PTBR": ("b72d93a3c8a82883771a2f3822fce229885fa0d40367fb105c0535fb36c773b9",
                 "ecba7d1287e72ae7c3f42c922be475283288c0c67346245c72109690460444bd",
                 "12ba6c60ce009b1bec8fd5ad110539775d14a2b96011df19ba9f72ad1393a406"),
        "RU": ("fd307587a550289f746056ea12a7336171ab2053c9e08c42dba77499126ca5b2",
               "db7617528355be994352e491e7b25d060fed466d0d81c09cadd90fa10f15c071",
               "c5357468471545a6169de463ef706f321446dc667d9d62d49e68c0b3feef9675"),
        "TW": ("47c986023f1f434f76026ddfb3ab544be24849011400c99402083d06d3dfa017",
               "65b75f23be40140d2e326813c3f81419f1a94aa1091acfc0279f0403be8165f7",
               "9508cc55f4b891018f278df4cec40d622aba2b04c1bca9451fd9e8ce11321c7b"),
    }
    for lang in TWITCH_LANGUAGES:
        sums = twitch_sums[lang]
        for kind, ext, digest in zip(("edges", "target", "features"), ("csv", "csv", "json"), sums):
            fname = f"musae_{lang}_{kind}.{ext}"
            files.append(DataFile(f"twitch-{lang}-{kind}", f"snap/twitch/{lang}/{fname}", digest,
                                  twitch_zip, "twitch", member=f"{lang}/{fname}"))
    files += [
        DataFile("as20000102", "snap/as-proxy/as20000102.txt",
                 "5a8499bef870e869e96fb20701d30b5fe31940a5448a133b788247692a88e4b9",
                 Source(f"{_SNAP}/as-733.tar.gz", "tar"), "as-733", member="as20000102.txt"),
        # Optional, paper-scale files: not in the shared copy, no public pin of the stored file.
        DataFile("ml-100k-ratings", "movielens/ml-100k/u.data", None,
                 Source(f"{_GROUPLENS}/ml-100k.zip", "zip",
                        sha256="50d2a982c66986937beb9ffb3aa76efe955bf3d5c6b761f4e3a7cd717c6a3229"),
                 "ml-100k", member="ml-100k/u.data", optional=True),
        DataFile("ml-25m-ratings", "movielens/ml-25m/ratings.csv", None,
                 Source(f"{_GROUPLENS}/ml-25m.zip", "zip", md5="6b51fb2759a8657d3bfcbfc42b592ada"),
                 "ml-25m", member="ml-25m/ratings.csv", optional=True),
        DataFile("as-skitter", "snap/as-skitter/as-skitter.txt", None,
                 Source(f"{_SNAP}/as-skitter.txt.gz", "gzip"), "as-skitter", optional=True),
    ]
    return tuple(files)


#: Every canonical file, in download order.
REGISTRY: tuple[DataFile, ...] = _build_registry()
_BY_NAME = {f.name: f for f in REGISTRY}
_BY_PATH = {f.path: f for f in REGISTRY}
#: dataset name -> its files' registry names
DATASETS: dict[str, tuple[str, ...]] = {}
for _f in REGISTRY:
    DATASETS.setdefault(_f.dataset, ())
    DATASETS[_f.dataset] += (_f.name,)
del _f


def get_file(name: str, registry: Sequence[DataFile] | None = None) -> DataFile:
    """The registry entry for a file name (e.g. ``"magic"``) or relative path."""
    if isinstance(name, DataFile):
        return name
    if registry is None:
        by_name, by_path = _BY_NAME, _BY_PATH
    else:
        by_name = {f.name: f for f in registry}
        by_path = {f.path: f for f in registry}
    key = str(name).replace(os.sep, "/")
    if key in by_name:
        return by_name[key]
    if key in by_path:
        return by_path[key]
    raise KeyError(f"unknown dataset file {name!r}; known names: {', '.join(sorted(by_name))}")


# --------------------------------------------------------------------------------------------------
# Data directory, verified paths
# --------------------------------------------------------------------------------------------------
def _fix_hint(file: DataFile | None = None) -> str:
    only = f" --only {file.name}" if file is not None else ""
    return (f"run `make data` (python -m bandits.data download --dest \"${ENV_VAR}\"{only})")


def data_dir() -> Path:
    """The data directory from ``$BANDITS_DATA_DIR`` (``$BANDIT_DATA_DIR`` is read as a fallback).

    Raises:
        DataNotFoundError: the variable is unset or empty, or does not name a directory.
    """
    value = os.environ.get(ENV_VAR, "").strip()
    var = ENV_VAR
    if not value:
        for legacy in LEGACY_ENV_VARS:
            if os.environ.get(legacy, "").strip():
                value, var = os.environ[legacy].strip(), legacy
                break
    if not value:
        raise DataNotFoundError(
            f"{ENV_VAR} is not set. Set it to the folder holding the datasets, e.g. "
            f"`export {ENV_VAR}=/work/shared/data`, or fetch them into a folder of your choice with "
            f"`make data` (python -m bandits.data download --dest DIR) and point {ENV_VAR} at it."
        )
    path = Path(value).expanduser()
    if not path.is_dir():
        raise DataNotFoundError(
            f"{var}={value} is not a directory. Point {ENV_VAR} at the folder holding the datasets, "
            f"or create it with `make data` (python -m bandits.data download --dest {value})."
        )
    return path


_SHA_CACHE: dict[tuple[str, int, int, int], str] = {}


def file_sha256(path: str | os.PathLike, chunk_size: int = 1 << 20) -> str:
    """The sha256 hex digest of a file (streamed)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(chunk_size), b""):
            h.update(chunk)
    return h.hexdigest()


def _cached_sha256(path: Path) -> str:
    st = path.stat()
    key = (str(path.resolve()), st.st_ino, st.st_size, st.st_mtime_ns)
    digest = _SHA_CACHE.get(key)
    if digest is None:
        digest = file_sha256(path)
        _SHA_CACHE[key] = digest
    return digest


def clear_verification_cache() -> None:
    """Forget the cached checksums (they are keyed by path, inode, size and mtime)."""
    _SHA_CACHE.clear()


def _checksum_error(file: DataFile, path: Path, found: str) -> DataChecksumError:
    return DataChecksumError(
        f"Checksum mismatch for {path} ({file.name}): expected sha256 {file.sha256}, found {found}. "
        f"The file is corrupt, truncated or a different version. Delete it and re-download it: "
        f"{_fix_hint(file)} --force, or {file.howto()}.",
        path=path, expected=file.sha256, found=found,
    )


def fetch_path(name: str | DataFile, *, root: str | os.PathLike | None = None,
               verify: bool = True) -> Path:
    """The path of a canonical file under the data directory, after checking it.

    Args:
        name: registry name (``"magic"``, ``"twitch-ENGB-edges"``, ...) or relative path.
        root: data directory; default ``data_dir()`` (``$BANDITS_DATA_DIR``).
        verify: compare the file's sha256 with the registry (cached per path, size and mtime).

    Raises:
        DataNotFoundError: no data directory, or the file is missing (the message names the
            variable, the canonical download address and ``make data``).
        DataChecksumError: the sha256 differs.
    """
    file = get_file(name)
    base = Path(root) if root is not None else data_dir()
    path = base / file.path
    if not path.is_file():
        where = f"{ENV_VAR}={base}" if root is None else str(base)
        raise DataNotFoundError(
            f"Dataset file {file.path} ({file.name}) was not found in {where}. Set {ENV_VAR} to a "
            f"folder holding it (layout <dir>/{file.path}), or get it: canonical download "
            f"{file.url} ({file.howto()}); or {_fix_hint(file)}. Citation: {file.citation}."
        )
    if verify and file.sha256 is not None:
        found = _cached_sha256(path)
        if found != file.sha256:
            raise _checksum_error(file, path, found)
    return path


def verify(names: Iterable[str] | None = None, *, root: str | os.PathLike | None = None,
           include_optional: bool = False) -> dict[str, str]:
    """Check files; returns ``{name: "ok" | "missing" | "unpinned" | "checksum mismatch ..."}``."""
    base = Path(root) if root is not None else data_dir()
    files = _select(names, REGISTRY, include_optional=include_optional)
    report = {}
    for f in files:
        try:
            fetch_path(f, root=base)
            report[f.name] = "ok" if f.sha256 else "unpinned (exists; no checksum to compare)"
        except DataChecksumError as exc:
            report[f.name] = f"checksum mismatch (found {exc.found})"
        except DataNotFoundError:
            report[f.name] = "missing"
    return report


# --------------------------------------------------------------------------------------------------
# Parsers
# --------------------------------------------------------------------------------------------------
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

    Ties between equally large components go to the one holding the smallest node index.
    """
    n = graph.n
    if n == 0:
        return graph
    u, v = graph.edges[:, 0], graph.edges[:, 1]
    lab = np.arange(n, dtype=np.int64)
    while True:  # min-label propagation with pointer jumping
        m = np.minimum(lab[u], lab[v])
        new = lab.copy()
        np.minimum.at(new, u, m)
        np.minimum.at(new, v, m)
        new = new[new]
        if np.array_equal(new, lab):
            break
        lab = new
    sizes = np.bincount(lab, minlength=n)
    root = int(np.argmax(sizes))
    keep = np.flatnonzero(lab == root)
    remap = np.full(n, -1, dtype=np.int64)
    remap[keep] = np.arange(keep.size)
    emask = lab[u] == root
    edges = remap[graph.edges[emask]]
    return Graph(edges, int(keep.size), graph.node_ids[keep])


# --------------------------------------------------------------------------------------------------
# Unix compress (.Z) decoder: UCI serves shuttle.trn only as shuttle.trn.Z
# --------------------------------------------------------------------------------------------------
def unlzw(data: bytes) -> bytes:
    """Decompress a Unix ``compress`` (.Z, LZW) stream, as ``gzip -d`` / ncompress do.

    Codes are 9..maxbits bits wide, packed LSB first; each change of width (and each CLEAR code in
    block mode) skips to the next boundary of a group of ``n_bits`` bytes, as the original does.
    """
    data = bytes(data)
    if len(data) < 3 or data[0] != 0x1F or data[1] != 0x9D:
        raise ValueError("not a Unix-compress (.Z) stream: bad magic bytes")
    flags = data[2]
    maxbits = flags & 0x1F
    block_mode = bool(flags & 0x80)
    if flags & 0x60 or not 9 <= maxbits <= 16:
        raise ValueError(f"unsupported .Z header (flags {flags:#04x})")
    buf = data[3:] + b"\x00\x00"
    total = (len(data) - 3) * 8
    maxmaxcode = 1 << maxbits
    table: list[bytes] = [bytes((i,)) for i in range(256)] + [b""] * (maxmaxcode - 256)
    n_bits = 9
    maxcode = (1 << n_bits) - 1
    free_ent = 257 if block_mode else 256
    pos = seg = 0
    out = bytearray()
    prev: bytes | None = None
    from_bytes = int.from_bytes
    while True:
        if free_ent > maxcode:
            group = n_bits * 8
            pos = seg + -(-(pos - seg) // group) * group
            seg = pos
            n_bits += 1
            maxcode = maxmaxcode if n_bits == maxbits else (1 << n_bits) - 1
        if pos + n_bits > total:
            break
        i = pos >> 3
        code = (from_bytes(buf[i:i + 3], "little") >> (pos & 7)) & ((1 << n_bits) - 1)
        pos += n_bits
        if prev is None:
            if code > 255:
                raise ValueError("corrupt .Z stream: the first code is not a literal")
            prev = table[code]
            out += prev
            continue
        if code == 256 and block_mode:
            group = n_bits * 8
            pos = seg + -(-(pos - seg) // group) * group
            seg = pos
            n_bits = 9
            maxcode = (1 << n_bits) - 1
            free_ent = 256
            continue
        if code < free_ent:
            entry = table[code]
        elif code == free_ent:
            entry = prev + prev[:1]
        else:
            raise ValueError("corrupt .Z stream: code out of range")
        out += entry
        if free_ent < maxmaxcode:
            table[free_ent] = prev + entry[:1]
            free_ent += 1
        prev = entry
    return bytes(out)


# --------------------------------------------------------------------------------------------------
# Loaders (verified files -> parsers)
# --------------------------------------------------------------------------------------------------
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
    if part not in names:
        raise ValueError("part must be 'all', 'trn' or 'tst'")
    return parse_shuttle(*(fetch_path(n, root=root, verify=verify) for n in names[part]))


_MOVIELENS_VARIANTS = {"ml-latest-small": "movielens-ratings", "ml-100k": "ml-100k-ratings",
                       "ml-25m": "ml-25m-ratings"}


def load_movielens(variant: str = "ml-latest-small", *, root=None, verify: bool = True) -> Ratings:
    """MovieLens ratings: ``variant`` in ml-latest-small (shared copy), ml-100k, ml-25m."""
    if variant not in _MOVIELENS_VARIANTS:
        raise ValueError(f"variant must be one of {sorted(_MOVIELENS_VARIANTS)}")
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
    if lang not in TWITCH_LANGUAGES:
        raise ValueError(f"lang must be one of {TWITCH_LANGUAGES}")
    return parse_twitch(*(fetch_path(f"twitch-{lang}-{k}", root=root, verify=verify)
                          for k in ("edges", "target", "features")))


def load_as733(*, root=None, verify: bool = True) -> Graph:
    """SNAP as-733 snapshot as20000102 (6474 nodes, 12572 edges): a small stand-in for as-Skitter."""
    return parse_snap_graph(fetch_path("as20000102", root=root, verify=verify))


def load_as_skitter(*, root=None, verify: bool = True) -> Graph:
    """SNAP as-Skitter (optional; 1696415 nodes, 11095298 edges; no pinned checksum)."""
    return parse_snap_graph(fetch_path("as-skitter", root=root, verify=verify))


# --------------------------------------------------------------------------------------------------
# Recipe (a): UCI -> k-means arms (Filippi et al. 2010; Async-KernelUCB §5.1)
# --------------------------------------------------------------------------------------------------
def _as_rng(rng) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        raise ValueError("pass an explicit numpy.random.Generator (or an int seed)")
    return np.random.default_rng(rng)


def zscore(X) -> np.ndarray:
    """Standardise columns (mean 0, population sd 1); constant columns become 0."""
    X = np.asarray(X, dtype=np.float64)
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def one_hot(codes, missing_as_level: bool = True) -> np.ndarray:
    """One-hot encode integer category codes column by column (float64).

    Each column contributes one indicator per distinct value present, in increasing order; the
    missing code -1 is its own level (first) when ``missing_as_level``, else an all-zero row.
    """
    codes = np.asarray(codes)
    blocks = []
    for j in range(codes.shape[1]):
        col = codes[:, j]
        levels = np.unique(col)
        if not missing_as_level:
            levels = levels[levels != -1]
        blocks.append((col[:, None] == levels[None, :]).astype(np.float64))
    return np.concatenate(blocks, axis=1) if blocks else np.zeros((codes.shape[0], 0))


def _sq_dists(XT, X_sq, C) -> np.ndarray:
    """Squared distances, shape (len(C), n), from the contiguous transpose ``XT`` (d, n)."""
    d = X_sq[None, :] - 2.0 * (C @ XT) + np.einsum("ij,ij->i", C, C)[:, None]
    return np.maximum(d, 0.0)


def _kmeans_pp(X, XT, X_sq, k, rng) -> np.ndarray:
    """Greedy k-means++ seeding (2 + log k local trials per centre, as scikit-learn)."""
    n = X.shape[0]
    n_trials = 2 + int(np.log(k))
    centers = np.empty((k, X.shape[1]))
    first = int(rng.integers(n))
    centers[0] = X[first]
    closest = _sq_dists(XT, X_sq, X[first:first + 1])[0]
    pot = closest.sum()
    for c in range(1, k):
        if pot <= 0:
            cand = rng.integers(n, size=n_trials)
        else:
            r = rng.random(n_trials) * pot
            cand = np.minimum(np.searchsorted(np.cumsum(closest), r), n - 1)
        new_closest = np.minimum(closest[None, :], _sq_dists(XT, X_sq, X[cand]))  # (trials, n)
        pots = new_closest.sum(axis=1)
        best = int(np.argmin(pots))
        centers[c] = X[cand[best]]
        closest = new_closest[best]
        pot = pots[best]
    return centers


def _fill_empty(X, C, dmin, empty) -> None:
    """Move each empty cluster's centre to a far point (largest distance to its centre; distinct
    points, in decreasing distance, ties by index)."""
    used: list[np.ndarray] = []
    it = iter(np.argsort(-dmin, kind="stable"))
    for j in np.flatnonzero(empty):
        for idx in it:
            if dmin[idx] <= 0:
                return  # no distinct point left; the cluster stays empty
            if not any(np.array_equal(X[idx], u) for u in used):
                C[j] = X[idx]
                used.append(X[idx])
                break


def kmeans(X, n_clusters: int, rng, *, n_init: int = 10, max_iter: int = 300,
           tol: float = 1e-4) -> tuple[np.ndarray, np.ndarray, float]:
    """k-means (k-means++ seeding, Lloyd iterations), best of ``n_init`` runs by inertia.

    numpy only, deterministic given ``rng``. A run stops when the squared centre shift is at most
    ``tol`` times the mean feature variance (scikit-learn's rule) or after ``max_iter`` iterations.
    An emptied cluster is moved to the point farthest from its centre, so no cluster ends empty
    unless the data have fewer than ``n_clusters`` distinct points.

    Returns:
        centers (k, d), labels (n,) int64, inertia (sum of squared distances to the centres).
    """
    rng = _as_rng(rng)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError("X must be 2-d (n_samples, n_features)")
    n = X.shape[0]
    k = int(n_clusters)
    if not 1 <= k <= n:
        raise ValueError(f"need 1 <= n_clusters <= n_samples, got {k} and {n}")
    XT = np.ascontiguousarray(X.T)
    X_sq = np.einsum("ij,ij->i", X, X)
    tol_abs = tol * float(np.mean(X.var(axis=0)))
    rows = np.arange(n)
    best = None
    for _ in range(max(1, int(n_init))):
        C = _kmeans_pp(X, XT, X_sq, k, rng)
        for _it in range(max_iter):
            D = _sq_dists(XT, X_sq, C)
            labels = np.argmin(D, axis=0)
            counts = np.bincount(labels, minlength=k)
            onehot = np.zeros((k, n))
            onehot[labels, rows] = 1.0
            newC = onehot @ X
            empty = counts == 0
            newC[~empty] /= counts[~empty, None]
            if empty.any():
                _fill_empty(X, newC, D[labels, rows], empty)
            shift = float(((newC - C) ** 2).sum())
            C = newC
            if shift <= tol_abs:
                break
        for _fix in range(k + 1):
            D = _sq_dists(XT, X_sq, C)
            labels = np.argmin(D, axis=0)
            empty = np.bincount(labels, minlength=k) == 0
            if not empty.any():
                break
            _fill_empty(X, C, D[labels, rows], empty)
        inertia = float(D[labels, rows].sum())
        if best is None or inertia < best[2]:
            best = (C.copy(), labels.astype(np.int64), inertia)
    return best


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
    divides all centroids by the largest centroid norm (so ||x|| <= 1; spec §4.3); ``None`` keeps them.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    if y.shape[0] != X.shape[0]:
        raise ValueError("X and y have different numbers of rows")
    if not np.isin(y, (0.0, 1.0)).all():
        raise ValueError("y must be binary (0/1); binarise the labels first")
    centers, labels, inertia = kmeans(X, n_clusters, rng, n_init=n_init, max_iter=max_iter, tol=tol)
    sizes = np.bincount(labels, minlength=n_clusters)
    means = np.bincount(labels, weights=y, minlength=n_clusters) / np.maximum(sizes, 1)
    contexts = centers.copy()
    if scale == "max_norm":
        top = float(np.linalg.norm(centers, axis=1).max())
        if top > 0:
            contexts = centers / top
    elif scale is not None:
        raise ValueError("scale must be 'max_norm' or None")
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
    raise ValueError("dataset must be 'magic', 'mushroom' or 'shuttle'")


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
        if thresholds not in table:
            raise ValueError("thresholds must be 'paper', 'ban' or a mapping")
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
        raise ValueError("thresholds overlap: a rating is both positive and negative")
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
    if not (user.shape == item.shape == lab.shape):
        raise ValueError("user, item and rating must have the same length")
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
    matrix (fast for a 2000 x 10000 matrix); components with a zero singular value are zero."""
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
    """(rows, k) indices in [0, n), distinct within each row, uniform over ordered k-tuples."""
    if k > n:
        raise ValueError(f"cannot draw {k} distinct items from {n}")
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
    if K < 1:
        raise ValueError("n_arms must be >= 1")
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


# --------------------------------------------------------------------------------------------------
# Download (never called during a run)
# --------------------------------------------------------------------------------------------------
@dataclass
class DownloadResult:
    name: str
    path: Path
    status: str  # "present" | "downloaded" | "failed"
    url: str
    detail: str = ""
    error: BaseException | None = None


def _select(only: Iterable[str] | None, registry: Sequence[DataFile], *,
            include_optional: bool = False) -> list[DataFile]:
    if not only:
        return [f for f in registry if include_optional or not f.optional]
    chosen: list[DataFile] = []
    for token in only:
        token = str(token).replace(os.sep, "/").strip("/")
        hits = [f for f in registry
                if token in (f.dataset, f.name, f.path) or f.name.startswith(token + "-")]
        if not hits:
            names = sorted({f.dataset for f in registry} | {f.name for f in registry})
            raise KeyError(f"unknown dataset or file {token!r}; known: {', '.join(names)}")
        chosen += [f for f in hits if f not in chosen]
    return [f for f in registry if f in chosen]


def _with_base(url: str, base_url: str | None) -> str:
    if not base_url:
        return url
    parts = urllib.parse.urlsplit(url)
    out = base_url.rstrip("/") + parts.path
    return out + ("?" + parts.query if parts.query else "")


def _fetch_url(url: str, dest: Path, timeout: float) -> tuple[str, str, int]:
    req = urllib.request.Request(url, headers={"User-Agent": "bandits-data/1 (python urllib)"})
    sha, md5, size = hashlib.sha256(), hashlib.md5(), 0
    with urllib.request.urlopen(req, timeout=timeout) as resp, open(dest, "wb") as out:
        for chunk in iter(lambda: resp.read(1 << 20), b""):
            out.write(chunk)
            sha.update(chunk)
            md5.update(chunk)
            size += len(chunk)
    return sha.hexdigest(), md5.hexdigest(), size


def _find_member(names: Sequence[str], member: str) -> str:
    hits = [n for n in names if n == member or n.endswith("/" + member)]
    if not hits:
        raise DataNotFoundError(f"the archive has no member {member!r}")
    hits.sort(key=lambda n: (n.count("/"), n))
    if len(hits) > 1 and hits[0].count("/") == hits[1].count("/"):
        raise DataError(f"the archive has several members matching {member!r}: {hits}")
    return hits[0]


def _extract(file: DataFile, archive: Path, out: Path) -> None:
    """Write ``file``'s bytes, unpacked from the downloaded ``archive``, to ``out``."""
    kind = file.source.kind
    if kind == "file":
        shutil.copyfile(archive, out)
        return
    if kind == "gzip":
        with gzip.open(archive, "rb") as src, open(out, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        return
    if kind == "zip":
        with zipfile.ZipFile(archive) as zf:
            name = _find_member([n for n in zf.namelist() if not n.endswith("/")], file.member)
            with zf.open(name) as src:
                _write_member(src, out, file.unlzw)
    elif kind == "tar":
        with tarfile.open(archive, "r:*") as tf:
            members = {m.name.lstrip("./"): m for m in tf.getmembers() if m.isfile()}
            name = _find_member(list(members), file.member)
            with tf.extractfile(members[name]) as src:
                _write_member(src, out, file.unlzw)
    else:
        raise ValueError(f"unknown source kind {kind!r}")


def _write_member(src, out: Path, lzw: bool) -> None:
    if lzw:
        out.write_bytes(unlzw(src.read()))
        return
    with open(out, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)


def download(dest: str | os.PathLike, only: Iterable[str] | None = None, *,
             base_url: str | None = None, force: bool = False, include_optional: bool = False,
             registry: Sequence[DataFile] | None = None, timeout: float = 120.0,
             log: Callable[[str], None] | None = print) -> list[DownloadResult]:
    """Download canonical files into ``dest`` (the data-directory layout), verifying checksums.

    Each distinct address is fetched once (archives feed several files), checked against its pin
    when there is one, unpacked (gunzip / zip or tar member / Unix-compress .Z), checked against the
    file's sha256 and moved into place atomically (temporary file + ``os.replace``). A failed file
    leaves nothing behind. Files already present with the right checksum are kept unless ``force``.

    Args:
        only: dataset names (``magic``, ``twitch``, ``movielens``, ...), file names
            (``twitch-ENGB-edges``; ``twitch-ENGB`` selects that language) or relative paths.
            Default: every non-optional file (optional: ml-100k, ml-25m, as-skitter).
        base_url: replaces scheme and host of every address, keeping the path (a mirror, or a
            local test server); default ``$BANDITS_DATA_BASE_URL``.
    """
    registry = REGISTRY if registry is None else tuple(registry)
    dest = Path(dest)
    base_url = base_url if base_url is not None else (os.environ.get(BASE_URL_ENV_VAR) or None)
    say = log or (lambda _msg: None)
    files = _select(only, registry, include_optional=include_optional or bool(only))
    dest.mkdir(parents=True, exist_ok=True)
    results: list[DownloadResult] = []
    pending: dict[str, list[DataFile]] = {}  # by address: an archive feeds several files
    for f in files:
        target = dest / f.path
        if target.is_file() and not force:
            if f.sha256 is None:
                results.append(DownloadResult(f.name, target, "present", f.url, "exists (unpinned)"))
                say(f"present     {f.path} (exists; no checksum pinned)")
                continue
            found = file_sha256(target)
            if found == f.sha256:
                results.append(DownloadResult(f.name, target, "present", f.url, "sha256 ok"))
                say(f"present     {f.path} (sha256 ok)")
                continue
            say(f"replacing   {f.path} (sha256 {found} != expected {f.sha256})")
        pending.setdefault(f.source.url, []).append(f)

    def fail(f: DataFile, url: str, exc: BaseException) -> None:
        results.append(DownloadResult(f.name, dest / f.path, "failed", url, str(exc), exc))
        say(f"FAILED      {f.path}: {exc}")

    for address, group in pending.items():
        url = _with_base(address, base_url)
        tmpdir = Path(tempfile.mkdtemp(prefix=".bandits-download-", dir=dest))
        try:
            archive = tmpdir / "payload"
            try:
                say(f"fetching    {url}")
                sha, md5, _size = _fetch_url(url, archive, timeout)
            except Exception as exc:  # noqa: BLE001 - reported per file
                for f in group:
                    fail(f, url, exc)
                continue
            for f in group:
                source = f.source
                if source.sha256 and sha != source.sha256:
                    fail(f, url, DataChecksumError(
                        f"Checksum mismatch for {url}: expected sha256 {source.sha256}, found "
                        f"{sha}. The server sent other bytes (a new release, a truncated transfer "
                        f"or a wrong mirror); nothing was written.",
                        path=url, expected=source.sha256, found=sha))
                    continue
                if source.md5 and md5 != source.md5:
                    fail(f, url, DataChecksumError(
                        f"Checksum mismatch for {url}: expected md5 {source.md5}, found {md5}; "
                        f"nothing was written.", path=url, expected=source.md5, found=md5))
                    continue
                target = dest / f.path
                target.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part",
                                                dir=target.parent)
                os.close(fd)
                tmp = Path(tmp_name)
                try:
                    _extract(f, archive, tmp)
                    found = file_sha256(tmp)
                    if f.sha256 is not None and found != f.sha256:
                        raise DataChecksumError(
                            f"Checksum mismatch for {f.path} from {url}: expected sha256 "
                            f"{f.sha256}, found {found}. Nothing was written; check the address "
                            f"or mirror (--base-url / ${BASE_URL_ENV_VAR}).",
                            path=target, expected=f.sha256, found=found)
                    os.replace(tmp, target)
                    note = "sha256 ok" if f.sha256 else f"unpinned, sha256 {found}"
                    results.append(DownloadResult(f.name, target, "downloaded", url, note))
                    say(f"downloaded  {f.path} ({target.stat().st_size} bytes, {note})")
                except Exception as exc:  # noqa: BLE001 - reported per file
                    fail(f, url, exc)
                finally:
                    if tmp.exists():
                        tmp.unlink()
        finally:
            shutil.rmtree(tmpdir, ignore_errors=True)
    order = {f.name: i for i, f in enumerate(files)}
    results.sort(key=lambda r: order.get(r.name, 0))
    return results


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m bandits.data {download,verify,list}``."""
    parser = argparse.ArgumentParser(prog="python -m bandits.data",
                                     description="Fetch and check the bandit-paper datasets.")
    sub = parser.add_subparsers(dest="command", required=True)
    p_dl = sub.add_parser("download", help="download, verify and unpack the canonical files")
    p_dl.add_argument("--dest", default=os.environ.get(ENV_VAR),
                      help=f"data directory to fill (default ${ENV_VAR})")
    p_dl.add_argument("--only", nargs="+", metavar="NAME",
                      help="datasets, file names or relative paths (default: all non-optional)")
    p_dl.add_argument("--base-url", default=None,
                      help=f"replace scheme+host of every address (default ${BASE_URL_ENV_VAR})")
    p_dl.add_argument("--force", action="store_true", help="re-download files already present")
    p_dl.add_argument("--include-optional", action="store_true",
                      help="also ml-100k, ml-25m and as-skitter")
    p_dl.add_argument("--timeout", type=float, default=120.0, help="seconds per connection")
    p_ver = sub.add_parser("verify", help="check the files under a data directory")
    p_ver.add_argument("--dir", default=None, help=f"data directory (default ${ENV_VAR})")
    p_ver.add_argument("--only", nargs="+", metavar="NAME")
    p_ver.add_argument("--include-optional", action="store_true")
    sub.add_parser("list", help="list the registry")
    args = parser.parse_args(argv)

    if args.command == "list":
        for f in REGISTRY:
            pin = f.sha256 or "(unpinned)"
            opt = " [optional]" if f.optional else ""
            print(f"{f.name:22s} {f.path}{opt}\n{'':22s} {pin}\n{'':22s} {f.howto()}")
        return 0
    if args.command == "verify":
        try:
            root = Path(args.dir) if args.dir else data_dir()
            report = verify(args.only, root=root, include_optional=args.include_optional)
        except (DataError, KeyError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        for name, status in report.items():
            print(f"{name:22s} {status}")
        bad = [n for n, s in report.items() if s.startswith("checksum")]
        missing = [n for n, s in report.items() if s == "missing"]
        print(f"{len(report) - len(bad) - len(missing)} ok, {len(missing)} missing, {len(bad)} bad")
        return 1 if bad or missing else 0
    if not args.dest:
        print(f"error: give --dest DIR (or set {ENV_VAR})", file=sys.stderr)
        return 2
    try:
        results = download(args.dest, args.only, base_url=args.base_url, force=args.force,
                           include_optional=args.include_optional, timeout=args.timeout)
    except KeyError as exc:
        print(f"error: {exc.args[0]}", file=sys.stderr)
        return 2
    counts = {s: sum(r.status == s for r in results) for s in ("downloaded", "present", "failed")}
    print(f"{counts['downloaded']} downloaded, {counts['present']} already present, "
          f"{counts['failed']} failed (into {Path(args.dest)})")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
