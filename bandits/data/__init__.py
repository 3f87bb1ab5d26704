"""Datasets of the reproduced papers: registry, fetching, parsers and bandit recipes.

The package follows the data's flow, one module per step:

* ``registry``: the canonical files (``DataFile``/``Source``, ``REGISTRY``, ``DATASETS``,
  checksums), the data home (``data_dir``), verified access (``fetch_path``, ``verify``,
  ``missing``);
* ``fetch``: ``ensure`` (verify, then download only what is missing) and ``download`` (addresses,
  archives, Unix-compress members through ``ncompress``);
* ``parsers``: each source's files -> numpy arrays; ``loaders``: verified file -> parser;
* ``recipes``: bandit problems from the arrays (k-means arms, Ban et al.'s features);
* ``cli`` / ``__main__``: ``python -m bandits.data {ensure,download,verify,list}``;
* ``errors``: ``DataError`` and its subclasses.

Nothing here downloads during a run. Loaders read files from the data home, check each file's
sha256 against the registry (once per path, size and mtime) and parse it into numpy arrays. The data
home is ``$BANDITS_DATA_DIR`` when set, else the per-user cache folder
``platformdirs.user_cache_dir("bandits")/data`` (as scikit-learn's ``get_data_home``). The files
are fetched once, beforehand, with ``make data`` or::

    python -m bandits.data ensure [--only NAME ...] [--dir DIR] [--base-url URL]

which does nothing (and contacts no server) when every needed file is present and valid, downloads
the missing or invalid ones otherwise, and exits non-zero naming the files, their addresses, the
data home and ``BANDITS_DATA_DIR`` when some cannot be had.

Layout under the data home (the same as the shared offline copy)::

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

* ``cluster_arms``: Filippi et al. (2010) / Async-KernelUCB: k-means (``sklearn.cluster.KMeans``,
  k-means++ + Lloyd, best of ``n_init``, seeded from the run's generator) into 20 clusters; centroid = arm context (scaled by the largest centroid norm
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

# Each module lists its public names in ``__all__``; the package re-exports them all, so every
# name stays importable from ``bandits.data``.
from . import cli, errors, fetch, loaders, parsers, recipes, registry
from .cli import *  # noqa: F401,F403
from .errors import *  # noqa: F401,F403
from .fetch import *  # noqa: F401,F403
from .loaders import *  # noqa: F401,F403
from .parsers import *  # noqa: F401,F403
from .recipes import *  # noqa: F401,F403
from .registry import *  # noqa: F401,F403

__all__ = [*registry.__all__, *errors.__all__, *fetch.__all__, *parsers.__all__,
           *loaders.__all__, *recipes.__all__, *cli.__all__]
