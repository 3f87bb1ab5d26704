"""Registry of the canonical dataset files, the data home, and verified access to the files.

Every file the package reads is a ``DataFile``: its place under the data home, its sha256 (of the
file as stored), where its bytes are served (``Source``: a plain file, a gzip stream or a member of
a zip/tar archive) and the dataset it belongs to. ``fetch_path`` is the only way a loader reaches a
file: it checks the sha256 (cached per path, inode, size and mtime) and never downloads; a missing
file raises ``DataNotFoundError`` naming the variable, the address and the fix
(``python -m bandits.data ensure``). ``missing`` lists what is absent or invalid, without a download.

The data home (``data_dir``) is ``$BANDITS_DATA_DIR`` when set, else a per-user cache folder
``platformdirs.user_cache_dir("bandits")/data`` (as scikit-learn's ``get_data_home`` falls back to
``~/scikit_learn_data``).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

import platformdirs

from .errors import DataChecksumError, DataNotFoundError

__all__ = [
    "ENV_VAR",
    "LEGACY_ENV_VARS",
    "BASE_URL_ENV_VAR",
    "Source",
    "DataFile",
    "CITATIONS",
    "TWITCH_LANGUAGES",
    "TWITCH_N_FEATURES",
    "REGISTRY",
    "DATASETS",
    "get_file",
    "select_files",
    "default_data_dir",
    "data_dir",
    "file_sha256",
    "clear_verification_cache",
    "fetch_path",
    "verify",
    "missing",
]

ENV_VAR = "BANDITS_DATA_DIR"
#: Older spelling (used by early notes of this project); read only when ``BANDITS_DATA_DIR`` is unset.
LEGACY_ENV_VARS = ("BANDIT_DATA_DIR",)
#: Overrides the scheme and host of every download address (keeps the path), e.g. a local mirror.
BASE_URL_ENV_VAR = "BANDITS_DATA_BASE_URL"
#: The fix every "not found" message gives.
ENSURE_COMMAND = "python -m bandits.data ensure"


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


def select_files(only: Iterable[str] | str | None = None,
                 registry: Sequence[DataFile] | None = None, *,
                 include_optional: bool = False) -> list[DataFile]:
    """Registry entries named by dataset names, file names or relative paths, in registry order.

    Args:
        only: dataset names (``magic``, ``twitch``, ``movielens``, ...), file names
            (``twitch-ENGB-edges``; a prefix such as ``twitch-ENGB`` selects that language's files),
            relative paths, or ``DataFile`` entries. ``None`` or empty: every file of ``registry``
            except the optional ones (unless ``include_optional``). A named optional file is
            always selected.
        registry: default ``REGISTRY``.

    Raises:
        KeyError: a name matches nothing (the message lists the known names).
    """
    registry = REGISTRY if registry is None else tuple(registry)
    if isinstance(only, (str, DataFile)):
        only = [only]
    if not only:
        return [f for f in registry if include_optional or not f.optional]
    chosen: list[DataFile] = []
    for token in only:
        if isinstance(token, DataFile):
            hits = [token]
        else:
            token = str(token).replace(os.sep, "/").strip("/")
            hits = [f for f in registry
                    if token in (f.dataset, f.name, f.path) or f.name.startswith(token + "-")]
        if not hits:
            names = sorted({f.dataset for f in registry} | {f.name for f in registry})
            raise KeyError(f"unknown dataset or file {token!r}; known: {', '.join(names)}")
        chosen += [f for f in hits if f not in chosen]
    ordered = [f for f in registry if f in chosen]
    return ordered + [f for f in chosen if f not in ordered]


# --------------------------------------------------------------------------------------------------
# Data home, verified paths
# --------------------------------------------------------------------------------------------------
def _fix_hint(file: DataFile | None = None) -> str:
    only = f" --only {file.name}" if file is not None else ""
    return f"run `make data` or `{ENSURE_COMMAND}{only}`"


def default_data_dir() -> Path:
    """The per-user cache folder used when ``$BANDITS_DATA_DIR`` is unset:
    ``platformdirs.user_cache_dir("bandits")/data`` (``~/.cache/bandits/data`` on Linux, honouring
    ``$XDG_CACHE_HOME``; ``~/Library/Caches/bandits/data`` on macOS). Not created here."""
    return Path(platformdirs.user_cache_dir("bandits")) / "data"


def _env_data_dir() -> tuple[str, str] | None:
    """``(variable, value)`` of the first data-home variable set and non-empty, else ``None``."""
    for var in (ENV_VAR, *LEGACY_ENV_VARS):
        value = os.environ.get(var, "").strip()
        if value:
            return var, value
    return None


def data_dir(*, create: bool = False) -> Path:
    """The data home: ``$BANDITS_DATA_DIR`` if set (``$BANDIT_DATA_DIR`` is read as a fallback),
    else ``default_data_dir()`` (the per-user cache, as scikit-learn's ``get_data_home``).

    Unset variables are not an error. Reading never creates anything: a folder that does not exist
    yet simply holds no files (loaders then raise ``DataNotFoundError`` with the fix); ``ensure`` and
    ``download`` create it on demand (``create=True``).

    Args:
        create: make the folder (and its parents) if it does not exist.

    Raises:
        DataNotFoundError: the path exists and is not a directory, or ``create`` failed.
    """
    found = _env_data_dir()
    path = Path(found[1]).expanduser() if found else default_data_dir()
    if path.exists() and not path.is_dir():
        var = found[0] if found else "the default data home"
        raise DataNotFoundError(
            f"{var}={path} is not a directory. Point {ENV_VAR} at the folder holding the datasets "
            f"(or at an empty folder to fill with `{ENSURE_COMMAND}`), or unset it to use "
            f"{default_data_dir()}."
        )
    if create:
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DataNotFoundError(
                f"cannot create the data home {path} ({exc}). Set {ENV_VAR} to a writable folder."
            ) from exc
    return path


def _describe_home(base: Path, explicit_root: bool) -> str:
    """How a message names the data home: the variable and its value, or the default cache."""
    if explicit_root:
        return str(base)
    found = _env_data_dir()
    if found:
        return f"{found[0]}={base}"
    return f"{base} (the default data home; {ENV_VAR} is unset)"


_SHA_CACHE: dict[tuple[str, int, int, int], str] = {}


def file_sha256(path: str | os.PathLike) -> str:
    """The sha256 hex digest of a file (``hashlib.file_digest``, streamed)."""
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


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
        f"{_fix_hint(file)} (it replaces files with a wrong checksum), or {file.howto()}.",
        path=path, expected=file.sha256, found=found,
    )


def fetch_path(name: str | DataFile, *, root: str | os.PathLike | None = None,
               verify: bool = True) -> Path:
    """The path of a canonical file under the data home, after checking it. Never downloads.

    Args:
        name: registry name (``"magic"``, ``"twitch-ENGB-edges"``, ...), relative path or entry.
        root: data home; default ``data_dir()`` (``$BANDITS_DATA_DIR``, else the user cache).
        verify: compare the file's sha256 with the registry (cached per path, size and mtime).

    Raises:
        DataNotFoundError: the file is missing (the message names the variable, the data home,
            the canonical download address and ``python -m bandits.data ensure``).
        DataChecksumError: the sha256 differs.
    """
    file = get_file(name)
    base = Path(root) if root is not None else data_dir()
    path = base / file.path
    if not path.is_file():
        raise DataNotFoundError(
            f"Dataset file {file.path} ({file.name}) was not found in "
            f"{_describe_home(base, root is not None)}. Get it with {_fix_hint(file)} (downloads "
            f"into the data home, checksums verified), or set {ENV_VAR} to a folder holding it "
            f"(layout <dir>/{file.path}); canonical download {file.url} ({file.howto()}). "
            f"Citation: {file.citation}."
        )
    if verify and file.sha256 is not None:
        found = _cached_sha256(path)
        if found != file.sha256:
            raise _checksum_error(file, path, found)
    return path


_UNPINNED = "unpinned (exists; no checksum to compare)"


def _status(file: DataFile, base: Path) -> str:
    """``"ok"``, ``"unpinned"``, ``"missing"`` or ``"checksum mismatch (found ...)"``."""
    try:
        fetch_path(file, root=base)
    except DataChecksumError as exc:
        return f"checksum mismatch (found {exc.found})"
    except DataNotFoundError:
        return "missing"
    return "ok" if file.sha256 else _UNPINNED


def verify(names: Iterable[str] | None = None, *, root: str | os.PathLike | None = None,
           include_optional: bool = False,
           registry: Sequence[DataFile] | None = None) -> dict[str, str]:
    """Check files; returns ``{name: "ok" | "missing" | "unpinned ..." | "checksum mismatch ..."}``."""
    base = Path(root) if root is not None else data_dir()
    files = select_files(names, registry, include_optional=include_optional)
    return {f.name: _status(f, base) for f in files}


def missing(names: Iterable[str] | str | None = None, *, root: str | os.PathLike | None = None,
            include_optional: bool = False,
            registry: Sequence[DataFile] | None = None) -> list[DataFile]:
    """The needed files that are absent from the data home or fail their checksum. No download.

    An optional file without a pinned checksum counts as present when it exists.

    Args:
        names: as ``select_files`` (datasets, file names, paths); default every non-optional
            file. E.g. ``missing(["magic", "mushroom", "movielens", "yelp"])`` (Async-KernelUCB's
            notebook; notebooks declare their datasets in their metadata).
        root: data home; default ``data_dir()``.

    Returns:
        The ``DataFile`` entries to fetch, in registry order (empty: everything is there).
    """
    base = Path(root) if root is not None else data_dir()
    files = select_files(names, registry, include_optional=include_optional)
    return [f for f in files if _status(f, base) not in ("ok", _UNPINNED)]
