"""The repository's tracked files under some paths, for the tests that scan the product's text
(tracker numbers, references to the specs)."""
from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: written by `make site`, never committed
GENERATED = ("docs/_gen/", "docs/_build/")


def tracked_files(scope) -> list[str]:
    """Paths (relative to the repository root) git tracks under ``scope``, generated folders left out;
    without git (e.g. an unpacked sdist) the tree is walked instead."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", *scope], cwd=ROOT, capture_output=True,
                             check=True).stdout.decode()
        files = [f for f in out.split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = [str(p.relative_to(ROOT)) for s in scope for p in
                 ([ROOT / s] if (ROOT / s).is_file() else (ROOT / s).rglob("*")) if p.is_file()]
    return sorted(f for f in files if not f.startswith(GENERATED) and (ROOT / f).is_file())
