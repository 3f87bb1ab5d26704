"""No tracker issue number in the product: the package, the notebooks' sources, the docs, the figures' notes
and folder names, the README and CLAIMS.md, the tools and the tests.

A person who clones the repository has no tracker: "since issue <n>" or a folder ``issue<n>/`` tells them
nothing. Text says what a choice is and why (the paper's words, a measurement, a setting the paper leaves
open); the history of how it came about lives in the git commit messages.

Generated outputs are not scanned: the executed notebooks (``*.ipynb``) and ``claims.json`` are written from
the sources scanned here (``notebooks/*.py``, ``bandits/``), and ``docs/_gen``, ``docs/_build`` from the
docs and the runs.
"""
from __future__ import annotations

import re
from pathlib import Path

from repo_files import GENERATED, tracked_files

ROOT = Path(__file__).resolve().parents[1]

#: A tracker issue number (case-insensitive): "issue <n>", "Issue <n>:", "issues <n>, <m>", "issue #<n>",
#: "issue<n>" (a folder), "pre-issue-<n>", "issue_<n>"; not "issues" alone, "tissue 3", "an issue with 3 runs".
#: (The examples in this file are written with ``<n>`` and filled in by the tests, so that a plain grep of the
#: repository for tracker numbers finds none here.)
TRACKER_REF = re.compile(r"(?<![A-Za-z])issues?[\s_-]*#?\d+", re.I)

#: Text files of the product, scanned whole. ``figures/`` is scanned for its hand-written and script files
#: (notes, plain-text outputs, the scripts that wrote them) and for its folder names.
SCOPE = ("README.md", "CLAIMS.md", "docs", "bandits", "notebooks", "figures", "tools", "tests")
SUFFIXES = {
    "docs": (".md", ".rst", ".py", ".txt", ".css", ".js", ".html"),
    "bandits": (".py", ".md", ".txt", ".json", ".toml", ".yaml", ".yml"),
    "notebooks": (".py", ".md"),
    "figures": (".md", ".txt", ".py"),
    "tools": (".py", ".md", ".txt", ".sh"),
    "tests": (".py", ".md", ".txt"),
}


def _tracked_files() -> list[str]:
    return tracked_files(SCOPE)


def _scanned(path: str) -> bool:
    top = path.split("/", 1)[0]
    if top not in SUFFIXES:
        return True  # README.md, CLAIMS.md
    return path.endswith(SUFFIXES[top])


def _hits(path: str) -> list[str]:
    try:
        text = (ROOT / path).read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return []
    out = []
    for m in TRACKER_REF.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        out.append(f"{path}:{line}: …{text[max(0, m.start() - 40):m.end() + 40]!r}…")
    return out


def test_pattern_matches_tracker_numbers_and_not_ordinary_words():
    for s in ("since issue <n>", "Issue <n>: the MMD", "(issues <n> and <m>)", "issue #<n>", "figures/x/issue<n>/",
              "the pre-issue-<n> environment", "issue_<n>", "issue <n>'s run", "ISSUE <n>"):
        s = s.replace("<n>", "29").replace("<m>", "8")
        assert TRACKER_REF.search(s), s
    for s in ("issues", "an issue with 3 runs", "tissue 3", "the issue's 12 runs", "reissue", "issuer 2"):
        assert not TRACKER_REF.search(s), s


def test_no_tracker_numbers_in_the_product():
    bad = [h for f in _tracked_files() if _scanned(f) for h in _hits(f)]
    assert not bad, ("Say what changed and why in plain words (history belongs in the git commit messages), "
                     "never a tracker issue number:\n" + "\n".join(bad))


def test_no_tracker_numbers_in_folder_names():
    folders = {str(Path(f).parent) for f in _tracked_files()}
    bad = sorted(d for d in folders if any(TRACKER_REF.search(part) for part in Path(d).parts))
    assert not bad, f"folders named after a tracker issue (name them after what they hold): {bad}"


def test_scope_is_not_empty():
    files = _tracked_files()
    for expected in ("README.md", "CLAIMS.md", "bandits/runner.py", "docs/choices.md", "notebooks/duets.py",
                     "figures/coop_kernelucb/NOTE.md", "tools/nbtools.py", "tests/test_no_tracker_numbers.py"):
        assert expected in files and _scanned(expected), expected
    assert not any(f.startswith(GENERATED) for f in files)
    assert not _scanned("figures/duets/duets.ipynb") and not _scanned("figures/duets/claims.json")
