"""Every claim marked ``quote="verbatim"`` is the paper's own words.

The claims come from every committed ``figures/**/claims.json`` and from the claims tables printed
in the executed quick-mode references ``notebooks/*.ipynb`` (a ``claim: "..."`` line without
``(paraphrase)`` is verbatim; only tables that mark paraphrases, ending in "paper claims: ...",
are read). Each is looked up in its paper's text
(``../shared/papers/<text>``, the manifest's text file of the folder's paper, :mod:`bandits.papers`, next to
the repository, or ``$BANDITS_PAPERS_DIR``), both sides
normalised (:func:`normalise`): Unicode NFKC (ligatures ﬁ → fi, mathematical italic letters →
plain), case, every kind of dash and quote mark unified, a hyphen at a line break joined, and
whitespace collapsed. A verbatim quote must be one contiguous span: no "..." inside. The arena has
no paper, so none of its claims may be verbatim. Without the papers the tests skip, saying why.
"""
import json
import os
import re
import unicodedata
from pathlib import Path

import pytest

from bandits import papers as manifest

ROOT = Path(__file__).resolve().parents[1]
PAPERS = Path(os.environ.get("BANDITS_PAPERS_DIR", ROOT.parent / "shared" / "papers"))
#: figures/<folder> or notebooks/<name> -> the paper's text file (None: no paper, nothing verbatim), from the
#: manifest (bandits/papers.py: each paper's notebooks and text file)
PAPER_OF = {folder: p.text for p in manifest.PAPERS for folder in p.folders}

_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"), "-")
_QUOTES = {**dict.fromkeys(map(ord, "\u2018\u2019\u201a\u201b\u2032`"), "'"),
           **dict.fromkeys(map(ord, "\u201c\u201d\u201e\u201f\u2033"), '"')}


def normalise(text: str) -> str:
    """NFKC, dashes and quotes unified, line-break hyphenation joined, whitespace collapsed, lower case."""
    t = unicodedata.normalize("NFKC", text).translate(_DASHES).translate(_QUOTES)
    t = t.replace("\u00ad", "")  # soft hyphen
    t = re.sub(r"(\w)-\s*\n\s*(\w)", r"\1\2", t)  # hyphenation at a line break
    t = re.sub(r"\s+", " ", t)
    return t.strip().lower()


def _claims_json():
    out = []
    for p in sorted((ROOT / "figures").glob("**/claims.json")):
        folder = p.relative_to(ROOT / "figures").parts[0]
        for c in json.loads(p.read_text()).get("claims", []):
            out.append((f"{p.relative_to(ROOT)}:{c.get('id')}", folder, c.get("claim", ""), c.get("quote", "paraphrase")))
    return out


_CLAIM_LINE = re.compile(r'^\s*claim: "(?P<text>.*)"(?P<rest>[^"]*)$')


def _notebook_claims():
    out = []
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        try:
            cells = json.loads(nb.read_text()).get("cells", [])
        except (json.JSONDecodeError, OSError):
            continue
        for cell in cells:
            for o in cell.get("outputs", []) or []:
                text = o.get("text") or (o.get("data") or {}).get("text/plain") or ""
                text = "".join(text) if isinstance(text, list) else text
                if "paper claims:" not in text:  # an older table marks no paraphrase: skip it
                    continue
                cid = "?"
                for line in text.splitlines():
                    m = re.match(r"^\[(PASS|FAIL|INCONCLUSIVE)\] (\S+)", line)
                    if m:
                        cid = m.group(2)
                    m = _CLAIM_LINE.match(line)
                    if m:
                        quote = "paraphrase" if "(paraphrase)" in m.group("rest") else "verbatim"
                        out.append((f"{nb.relative_to(ROOT)}:{cid}", nb.stem, m.group("text"), quote))
    return out


def _verbatim(items):
    return [it for it in items if it[3] == "verbatim"]


def test_normalise_handles_the_text_quirks():
    assert normalise("Dis\ufb01ne  the\n re-\n gret \u2013 “x”") == "disfine the regret - \"x\""
    assert normalise("𝑁 agents") == "n agents"


def test_every_folder_and_notebook_maps_to_a_paper():
    names = {it[1] for it in _claims_json() + _notebook_claims()}
    assert names <= set(PAPER_OF), (f"unknown folders/notebooks {sorted(names - set(PAPER_OF))}: add them to their "
                                    "paper's notebooks in bandits/papers.py")


def test_no_verbatim_claim_without_a_paper_or_with_an_ellipsis():
    bad = [it[0] for it in _verbatim(_claims_json() + _notebook_claims()) if PAPER_OF.get(it[1]) is None]
    assert not bad, f"claims marked verbatim where there is no paper (the arena's hypotheses are the package's): {bad}"
    dots = [it[0] for it in _verbatim(_claims_json() + _notebook_claims()) if "..." in it[2] or "\u2026" in it[2]]
    assert not dots, f"a verbatim quote must be one contiguous span, no '...': {dots}"


@pytest.mark.parametrize("source", ["claims.json", "notebooks"])
def test_verbatim_claims_occur_in_their_paper(source):
    if not PAPERS.is_dir():
        pytest.skip(f"the papers' texts are not here ({PAPERS}); set BANDITS_PAPERS_DIR to check the quotes")
    items = _verbatim(_claims_json() if source == "claims.json" else _notebook_claims())
    texts = {}
    missing = []
    for where, folder, claim, _ in items:
        paper = PAPER_OF.get(folder)
        if paper is None:
            continue
        if paper not in texts:
            f = PAPERS / paper
            if not f.is_file():
                pytest.skip(f"{f} is missing")
            texts[paper] = normalise(f.read_text(encoding="utf-8", errors="replace"))
        if normalise(claim) not in texts[paper]:
            missing.append(f"{where} ({paper}): {claim!r}")
    assert not missing, "claims marked verbatim that do not occur in the paper:\n" + "\n".join(missing)


def test_the_lookup_finds_a_known_sentence_and_rejects_a_changed_one():
    f = PAPERS / "duets.txt"
    if not f.is_file():
        pytest.skip(f"{f} is not here")
    text = normalise(f.read_text(encoding="utf-8", errors="replace"))
    q = "DUETS also incurs a smaller communication overhead as compared to other algorithms"
    assert normalise(q) in text
    assert normalise(q.replace("smaller", "much smaller")) not in text
