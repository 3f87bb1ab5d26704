"""The command line: ``python -m bandits.data {ensure,download,verify,list}``.

* ``ensure [--only NAME ...] [--dir DIR] [--base-url URL] [--include-optional] [--timeout S]``:
  verify the needed files in the data home and download only the missing or invalid ones; exit 0
  when all are there (nothing is fetched when they already were), 1 when some cannot be had (the
  message names them, their addresses, the data home and ``$BANDITS_DATA_DIR``), 2 on bad usage.
* ``download [--dest DIR] [--only NAME ...] [--base-url URL] [--force] [--include-optional]``:
  fetch into a folder (default the data home), keeping valid files unless ``--force``.
* ``verify [--dir DIR] [--only NAME ...] [--include-optional]``: report each file; exit 1 when any
  is missing or corrupt.
* ``list``: the registry (name, path, sha256, how the canonical download becomes the file).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from .errors import DataError
from .fetch import download, ensure
from .registry import BASE_URL_ENV_VAR, ENV_VAR, REGISTRY, data_dir, default_data_dir, verify

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m bandits.data",
        description=f"Fetch and check the bandit-paper datasets. The data home is ${ENV_VAR} "
                    f"when set, else {default_data_dir()}.")
    sub = parser.add_subparsers(dest="command", required=True)
    only_help = "datasets, file names or relative paths (default: all non-optional files)"
    p_en = sub.add_parser("ensure", help="verify the needed files; download only what is missing")
    p_en.add_argument("--only", nargs="+", metavar="NAME", help=only_help)
    p_en.add_argument("--dir", default=None, help=f"data home (default ${ENV_VAR} or the cache)")
    p_en.add_argument("--base-url", default=None,
                      help=f"replace scheme+host of every address (default ${BASE_URL_ENV_VAR})")
    p_en.add_argument("--include-optional", action="store_true",
                      help="also ml-100k, ml-25m and as-skitter")
    p_en.add_argument("--timeout", type=float, default=120.0, help="seconds per connection")
    p_dl = sub.add_parser("download", help="download, verify and unpack the canonical files")
    p_dl.add_argument("--dest", default=None,
                      help=f"folder to fill (default the data home: ${ENV_VAR} or the cache)")
    p_dl.add_argument("--only", nargs="+", metavar="NAME", help=only_help)
    p_dl.add_argument("--base-url", default=None,
                      help=f"replace scheme+host of every address (default ${BASE_URL_ENV_VAR})")
    p_dl.add_argument("--force", action="store_true", help="re-download files already present")
    p_dl.add_argument("--include-optional", action="store_true",
                      help="also ml-100k, ml-25m and as-skitter")
    p_dl.add_argument("--timeout", type=float, default=120.0, help="seconds per connection")
    p_ver = sub.add_parser("verify", help="check the files under the data home")
    p_ver.add_argument("--dir", default=None, help=f"data home (default ${ENV_VAR} or the cache)")
    p_ver.add_argument("--only", nargs="+", metavar="NAME")
    p_ver.add_argument("--include-optional", action="store_true")
    sub.add_parser("list", help="list the registry")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m bandits.data {ensure,download,verify,list}``; returns the exit status."""
    args = _parser().parse_args(argv)

    if args.command == "list":
        for f in REGISTRY:
            pin = f.sha256 or "(unpinned)"
            opt = " [optional]" if f.optional else ""
            print(f"{f.name:22s} {f.path}{opt}\n{'':22s} {pin}\n{'':22s} {f.howto()}")
        return 0
    if args.command == "ensure":
        try:
            ensure(args.only, root=args.dir, base_url=args.base_url,
                   include_optional=args.include_optional, timeout=args.timeout)
        except DataError as exc:  # DataUnavailableError, or a data home that cannot be created
            print(f"error: {exc}", file=sys.stderr)
            return 1
        except KeyError as exc:
            print(f"error: {exc.args[0]}", file=sys.stderr)
            return 2
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
        absent = [n for n, s in report.items() if s == "missing"]
        print(f"{len(report) - len(bad) - len(absent)} ok, {len(absent)} missing, {len(bad)} bad "
              f"(in {root})")
        return 1 if bad or absent else 0
    try:
        dest = Path(args.dest) if args.dest else data_dir(create=True)
        results = download(dest, args.only, base_url=args.base_url, force=args.force,
                           include_optional=args.include_optional, timeout=args.timeout)
    except KeyError as exc:
        print(f"error: {exc.args[0]}", file=sys.stderr)
        return 2
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    counts = {s: sum(r.status == s for r in results) for s in ("downloaded", "present", "failed")}
    print(f"{counts['downloaded']} downloaded, {counts['present']} already present, "
          f"{counts['failed']} failed (into {dest})")
    return 1 if counts["failed"] else 0
