"""Fetching: download the canonical files into the data home, verify them, unpack archives.

Nothing here runs during an experiment: loaders only read (``registry.fetch_path``). Two entry
points:

* ``ensure(names)``: verify every needed file under the data home; when all are present with the
  right sha256 it returns at once without touching the network (the CI case, where
  ``$BANDITS_DATA_DIR`` points at a verified copy); otherwise it downloads exactly the missing or
  invalid files and raises ``DataUnavailableError`` (naming the files, their canonical addresses,
  the data home and ``$BANDITS_DATA_DIR``) when any cannot be had.
* ``download(dest, only)``: the lower-level fetcher (also used by ``make data``).

Each distinct address is fetched once (an archive feeds several files) with ``urllib``, pinned
served bytes are checked (sha256 or md5), members are unpacked with ``gzip``/``zipfile``/``tarfile``
and Unix ``compress`` (.Z, LZW) members with the ``ncompress`` package; every stored file is
checked against its sha256 and moved into place atomically. (``pooch`` would cover part of this but
is not a dependency; the registry's archive members, shared archives and .Z members need the code
here anyway.)
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import tarfile
import tempfile
import urllib.parse
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

import ncompress

from .errors import DataChecksumError, DataError, DataNotFoundError, DataUnavailableError
from .registry import (BASE_URL_ENV_VAR, ENSURE_COMMAND, ENV_VAR, REGISTRY, DataFile,
                       _describe_home, data_dir, file_sha256, missing, select_files)

__all__ = ["DownloadResult", "download", "ensure", "unlzw"]


@dataclass
class DownloadResult:
    """What ``download`` did with one file: ``status`` "present" | "downloaded" | "failed"."""

    name: str
    path: Path
    status: str
    url: str
    detail: str = ""
    error: BaseException | None = None


def unlzw(data: bytes) -> bytes:
    """Decompress a Unix ``compress`` (.Z, LZW) stream with ``ncompress.decompress``.

    UCI serves ``shuttle.trn`` only as ``shuttle.trn.Z`` inside its zip.

    Raises:
        ValueError: the bytes are not a valid .Z stream (bad magic bytes, corrupt codes).
    """
    try:
        return ncompress.decompress(bytes(data))
    except ValueError as exc:
        raise ValueError(f"not a valid Unix-compress (.Z) stream: {exc}") from exc


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
        with open(out, "wb") as dst:
            try:
                ncompress.decompress(src, dst)
            except ValueError as exc:
                raise ValueError(f"not a valid Unix-compress (.Z) member: {exc}") from exc
        return
    with open(out, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)


def download(dest: str | os.PathLike | None = None, only: Iterable[str] | None = None, *,
             base_url: str | None = None, force: bool = False, include_optional: bool = False,
             registry: Sequence[DataFile] | None = None, timeout: float = 120.0,
             log: Callable[[str], None] | None = print) -> list[DownloadResult]:
    """Download canonical files into ``dest`` (the data-directory layout), verifying checksums.

    Each distinct address is fetched once (archives feed several files), checked against its pin
    when there is one, unpacked (gunzip / zip or tar member / Unix-compress .Z via ``ncompress``), checked against the
    file's sha256 and moved into place atomically (temporary file + ``os.replace``). A failed file
    leaves nothing behind. Files already present with the right checksum are kept unless ``force``.

    Args:
        dest: the folder to fill; default the data home (``data_dir()``), created if needed.
        only: dataset names (``magic``, ``twitch``, ``movielens``, ...), file names
            (``twitch-ENGB-edges``; ``twitch-ENGB`` selects that language) or relative paths.
            Default: every non-optional file (optional: ml-100k, ml-25m, as-skitter).
        base_url: replaces scheme and host of every address, keeping the path (a mirror, or a
            local test server); default ``$BANDITS_DATA_BASE_URL``.

    Returns:
        One ``DownloadResult`` per selected file ("present", "downloaded" or "failed"); a failure
        is reported, not raised (``ensure`` raises).
    """
    registry = REGISTRY if registry is None else tuple(registry)
    dest = Path(dest) if dest is not None else data_dir(create=True)
    base_url = base_url if base_url is not None else (os.environ.get(BASE_URL_ENV_VAR) or None)
    say = log or (lambda _msg: None)
    files = select_files(only, registry, include_optional=include_optional or bool(only))
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


def ensure(names: Iterable[str] | str | None = None, *, root: str | os.PathLike | None = None,
           base_url: str | None = None, include_optional: bool = False,
           registry: Sequence[DataFile] | None = None, timeout: float = 120.0,
           log: Callable[[str], None] | None = print) -> list[DownloadResult]:
    """Make sure the needed files are in the data home, downloading only what is missing.

    Every needed file is verified first (sha256, cached per path/size/mtime). When all are present
    and valid nothing else happens: no folder is created, no address is contacted, and the result
    is empty. Otherwise the missing or invalid files (and only those) are downloaded with
    ``download`` (checksums verified, atomic writes; a file with a wrong checksum is replaced).

    Args:
        names: dataset names, file names or relative paths (as ``select_files``), e.g.
            ``["shuttle", "magic"]``; default every non-optional file.
        root: data home; default ``data_dir()`` (``$BANDITS_DATA_DIR``, else the user cache),
            created when something has to be downloaded.
        base_url: a mirror replacing scheme and host of every address (default
            ``$BANDITS_DATA_BASE_URL``).
        include_optional: with ``names=None``, also the optional files (ml-100k, ml-25m,
            as-skitter).
        registry: default ``REGISTRY``.
        timeout: seconds per connection.
        log: progress lines (``None``: silent).

    Returns:
        The ``DownloadResult`` of each file fetched (empty when everything was already there).

    Raises:
        DataUnavailableError: some file could not be obtained (no network, server error, checksum
            mismatch); the message names each file, its canonical address, the data home and
            ``$BANDITS_DATA_DIR``, and ``.files`` lists them.
        KeyError: an unknown name.
    """
    say = log or (lambda _msg: None)
    registry = REGISTRY if registry is None else tuple(registry)
    base = Path(root) if root is not None else data_dir()
    home = _describe_home(base, root is not None)
    files = select_files(names, registry, include_optional=include_optional)
    todo = missing(files, root=base, registry=registry)
    if not todo:
        say(f"all {len(files)} needed files present and valid in {home}; nothing to download")
        return []
    say(f"{len(todo)} of {len(files)} needed files missing or invalid in {home}: "
        f"{', '.join(f.name for f in todo)}")
    if root is None:
        base = data_dir(create=True)
    try:
        results = download(base, todo, base_url=base_url, registry=registry, timeout=timeout,
                           log=log)
    except OSError as exc:  # the data home cannot be written
        results = [DownloadResult(f.name, base / f.path, "failed", f.url, str(exc), exc)
                   for f in todo]
    failed = {r.name: r for r in results if r.status == "failed"}
    still = missing(todo, root=base, registry=registry)
    if still:
        lines = []
        for f in still:
            r = failed.get(f.name)
            why = r.detail if r is not None else "not obtained"
            tried = f" (tried {r.url})" if r is not None and r.url != f.url else ""
            lines.append(f"  - {f.path} ({f.name}): {f.url}{tried}: {why}")
        raise DataUnavailableError(
            f"Could not obtain {len(still)} dataset file(s) into the data home {home}:\n"
            + "\n".join(lines)
            + f"\nLoaders never download during a run. Fix: with network access run "
              f"`{ENSURE_COMMAND}` (or `make data`); or download the files from the addresses "
              f"above into {base} (layout <data home>/<path>; `python -m bandits.data list` says "
              f"how each is unpacked); or set {ENV_VAR} to a folder that already holds them.",
            files=still, root=base)
    say(f"{len(results)} file(s) downloaded into {home}")
    return results
