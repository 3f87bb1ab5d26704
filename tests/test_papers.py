"""The manifest (bandits/papers.py) agrees with the rest of the repository: every notebook of the experiments
registry belongs to exactly one paper and every paper's notebook is registered and has its notebook source; the
figures it lists exist, each once, and every committed image of a paper's folders is listed; slugs and names are
unique; every paper has a link and a text file; the claims-recomputation tool accounts for every folder; every
panel pattern compiles and names a claim that exists."""
from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from bandits import papers
from bandits.experiments import EXPERIMENTS

ROOT = Path(__file__).resolve().parent.parent
TEXTS = Path(os.environ.get("BANDITS_PAPERS_DIR", ROOT.parent / "shared" / "papers"))


def test_names_and_slugs_are_unique_and_pages_are_named_by_slug():
    names = [p.name for p in papers.PAPERS]
    slugs = [p.slug for p in papers.PAPERS]
    assert len(set(names)) == len(names) and len(set(slugs)) == len(slugs)
    assert all(re.fullmatch(r"[a-z0-9_]+", s) for s in slugs)
    assert [p.page for p in papers.PAPERS] == [f"papers/{s}" for s in slugs]


def test_every_registered_notebook_belongs_to_one_paper_and_back():
    folders = papers.folders()
    assert len(folders) == len(set(folders)), "a notebook is listed by two papers"
    assert set(EXPERIMENTS) == set(folders), (f"registry without a paper: {sorted(set(EXPERIMENTS) - set(folders))}; "
                                              f"paper notebooks not registered: {sorted(set(folders) - set(EXPERIMENTS))}")
    for nb in folders:
        assert (ROOT / "notebooks" / f"{nb}.py").exists(), f"notebooks/{nb}.py is missing"


def test_papers_have_a_link_a_text_and_deviations_tied_to_a_section():
    for p in papers.PAPERS:
        if p.kind == "paper":
            assert p.url and p.url.startswith("https://"), p.name
            assert p.text and p.text.endswith(".txt"), p.name
            if TEXTS.is_dir():
                assert (TEXTS / p.text).is_file(), f"{TEXTS / p.text} is missing"
        else:
            assert p.text is None, f"{p.name} has no paper, so no text"
        for d in p.deviations:
            assert d.section.strip() and len(d.text) > 20, (p.name, d)
            assert not re.search(r"\bissue \d+", d.text + d.section), "no tracker numbers in the product"
        assert p.summary and p.title and p.authors and p.venue


def test_figures_exist_once_each_and_every_committed_image_is_listed():
    listed = [f.file for p in papers.PAPERS for f in p.figures]
    assert len(listed) == len(set(listed)), "an image listed twice"
    for p in papers.PAPERS:
        for f in p.figures:
            assert f.notebook in p.folders, f"{f.file}: not in one of {p.name}'s folders"
            assert (ROOT / "figures" / f.file).exists(), f"figures/{f.file} is missing"
            assert len(f.caption) > 30 and "figures/" not in f.caption, f"{f.file}: the caption says what it shows"
        for folder in p.folders:
            for png in sorted((ROOT / "figures" / folder).glob("*.png")):
                assert f"{folder}/{png.name}" in listed, f"figures/{folder}/{png.name} has no caption in bandits/papers.py"


def test_panel_patterns_compile_and_name_existing_claims():
    for p in papers.PAPERS:
        for f in p.figures:
            f_claims = ROOT / "figures" / f.notebook / "claims.json"
            ids = [c["id"] for c in json.loads(f_claims.read_text())["claims"]] if f_claims.exists() else []
            for pattern, _panel in f.panels:
                rx = re.compile(pattern)
                if ids:
                    assert any(rx.search(i) for i in ids), f"{f.file}: the panel pattern {pattern!r} names no claim"


def test_the_recompute_tool_accounts_for_every_folder():
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import recompute_claims
    finally:
        sys.path.pop(0)
    assert recompute_claims.unaccounted() == {"no loader": [], "not a paper's": []}


def test_lookups():
    assert papers.by_name("DUETS").slug == "duets"
    assert papers.paper_of_notebook("fn_ucb_theory").name == "FN-UCB"
    assert papers.paper_of_notebook("nope") is None
    assert papers.text_of_folder("arena") is None and papers.text_of_folder("cope_theory") == "cope-kb.txt"
    with pytest.raises(KeyError):
        papers.text_of_folder("nope")
    f = papers.by_name("Coop-KernelUCB").figures[0]
    assert f.panel_of("fig1-coop-vs-ind-rbf-as733") == "RBF, as-733"
    assert papers.by_name("DUETS").figures[0].panel_of("fig1-regret-h2") == "regret, h2"
