"""No reference to the implementation specs in the package, the notebooks or the docs.

The specs (``/work/shared/specs/*.md``) were a reading aid while this package was written; they are not
part of the repository, so a reader cannot follow "spec §2.3". Docstrings, comments, notebooks and docs
cite the paper instead (section, equation, algorithm line, theorem, appendix), or say in words where
something is not in the paper ("a choice of this package", "the authors' code does X (their repository,
file ...)").

``ALLOW`` lists the files still being converted, each with the number of references it had when this
test was written: a listed file may not gain references, and once it has none it must leave the list.
The list is meant to shrink to empty.
"""
from __future__ import annotations

import re
from pathlib import Path

from repo_files import GENERATED, tracked_files

ROOT = Path(__file__).resolve().parents[1]

#: What counts as a reference to a spec (case-insensitive). Tuned on the repository so that it finds
#: "spec §2.3", "(§4.3 of the spec)", "the spec's", "the spec", "implementation spec", "spec check C3",
#: "spec C10", "spec E8(b)", "spec τ", "spec ``duets.md``", "DUETS spec", "(spec)", "spec picks ...",
#: but not "special", "specific", "spectral", ``FunctionSpec``, ``k.spec()``, "env spec keys",
#: "a JSON-able spec" or "kernel spec dict" (this package's own config dicts), nor code such as
#: ``return spec`` followed by a line ``check(...)`` (the word before a line break).
SPEC_REF = re.compile(r"""
    \bspecs?\s*\(?§                                             # spec §2.3, spec (§2.3)
  | §\s*[\d.]+[\w()-]*\s+of\s+the\s+(?:implementation\s+)?spec\b # §4.3 of the spec
  | \bspec['’]s\b                                               # the spec's
  | \bthe\s+spec\b(?![(\w])                                     # the spec (not the spec() method)
  | \bimplementation[\s-]+specs?\b                              # implementation spec(s)
  | \bspecs?[ \t]+(?:check|setting|item|risk|section|table|default|option|size|value|parameter|grid
                 |threshold|notation|reading|calibration)s?\b  # spec check C3, spec sizes
  | \bshared/specs\b                                            # the specs' folder
  | \b(?:DUETS|CoPE-KB|Async-KernelUCB|Coop-KernelUCB|FN-UCB)\s+spec\b
  | \bspecs?\s+[A-Z]\d                                          # spec C3, spec E8(b), spec R2, spec S5
  | \bspec\s+[^\x00-\x7f]                                       # spec τ, spec §
  | \bspec:\s*["“`]                                             # spec: "..."
  | \bspec\s*:?\s*`*[\w-]+\.md                                  # spec ``duets.md``, Spec: fn-ucb.md
  | \s\(spec\)                                                  # ... (spec)
  | \bspec\s+(?:picks|says|prescribes|flags|calls|gives|recommends|suggests|uses|asks|expects
                |resolution)\b                                  # the spec picks ...
  | \bpapers?\s+(?:or|and|nor)\s+(?:the\s+)?specs?\b            # not in the paper or spec
""", re.I | re.X)

#: Files still being converted (path: number of references when this test was written). Remove an
#: entry once its file is converted; the test fails when a listed file has none left.
ALLOW: dict[str, int] = {}

SCOPE = ("bandits", "notebooks", "docs", "README.md", "CLAIMS.md")


def _tracked_files() -> list[str]:
    return tracked_files(SCOPE)


def _count(path: str) -> tuple[int, list[str]]:
    try:
        text = (ROOT / path).read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return 0, []
    hits = []
    for m in SPEC_REF.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        hits.append(f"{path}:{line}: …{text[max(0, m.start() - 30):m.end() + 30]!r}…")
    return len(hits), hits


def test_pattern_matches_references_and_not_ordinary_words():
    refs = ["spec §2.3", "(§4.3 of the spec: ...)", "the spec's reading", "as the spec prescribes",
            "the implementation spec", "spec check C3", "spec C10", "DUETS spec §4.2", "(spec τ)",
            "spec ``coop-kernelucb.md`` §1.1", "Spec: ``fn-ucb.md``", "label (spec)",
            "spec picks KernelUCB", "not in the paper or spec", "spec §7-B6", "spec sizes: T = 3000"]
    for s in refs:
        assert SPEC_REF.search(s), s
    words = ["special", "specific", "spectral", "specified", "FunctionSpec", "k.spec()",
             "def spec(self)", "make_kernel(spec)", "unknown env spec keys", "a JSON-able spec",
             "kernel spec dict", "spec = {k: v}", "spec.get('M')", "spec: dict", "the spec()",
             "Kernel.spec", "specs = ((", "respect", "inspect"]
    for s in words:
        assert not SPEC_REF.search(s), s


def test_no_spec_references_outside_the_allow_list():
    bad = []
    for f in _tracked_files():
        n, hits = _count(f)
        if f in ALLOW:
            if n > ALLOW[f]:
                bad.append(f"{f}: {n} spec references, more than the {ALLOW[f]} allowed")
        elif n:
            bad.extend(hits)
    assert not bad, ("Cite the paper (section, equation, algorithm line, theorem), or say in words that "
                     "something is not in the paper; never the implementation specs:\n" + "\n".join(bad))


def test_allow_list_has_no_converted_or_missing_files():
    tracked = set(_tracked_files())
    stale = [f for f in ALLOW if f not in tracked or _count(f)[0] == 0]
    assert not stale, f"remove from ALLOW (converted or gone): {stale}"


def test_scope_is_not_empty():
    files = _tracked_files()
    for expected in ("README.md", "CLAIMS.md", "bandits/graphs.py", "docs/choices.md"):
        assert expected in files, expected
    assert not any(f.startswith(GENERATED) for f in files)
