"""The generated report (bandits.report) without a browser: CLAIMS.md and the README's summary count paper claims,
implementation checks and hypotheses apart, in the manifest's order; causes are worded by verdict; levels are
printed as they are; the site's sources (front page, one page per paper, the claims page, the data files) are
written from the manifest and the runs, each page opening with what holds, fails and cannot be told, every claim
an anchor once."""
from __future__ import annotations

import json
import re
from pathlib import Path

from bandits import report
from bandits import site as sitegen

ROOT = Path(__file__).resolve().parent.parent


def _c(id, verdict, kind="paper", **kw):
    return dict({"id": id, "claim": f"claim {id}", "check": "k", "value": "v", "verdict": verdict, "kind": kind}, **kw)


def test_claims_page_and_readme_summary_count_kinds_apart():
    claims = [
        _c("h", "FAIL", quote="verbatim", source="§5", cause="setting", cause_note="λ not given",
           effect=2.0, interval=[1.0, 3.0], level=0.95, method="t", claim="A beats B", check="paired < 0"),
        _c("i", "PASS", kind="implementation", claim="ledger adds up"),
        _c("p", "INCONCLUSIVE", claim="C | D"),
    ]
    full = {"x_theory": {"paper": "DUETS", "claims": claims[1:]}, "x": {"paper": "DUETS", "claims": claims[:1]},
            "old": {"paper": "Old", "claims": [{"id": "o", "claim": "c", "check": "k", "value": "v", "passed": True}]}}
    summary = report.readme_summary(full, quick={"x": (1, 2, 3, 4, 5), "x_theory": (1, 0, 0, 1, 1)})
    row = next(line for line in summary.splitlines() if line.startswith("| DUETS"))
    assert "| 0 / 1 / 1 | 1 of 1 | 2 / 2 / 3; 5 of 6 | **FAIL**: A beats B (`h`) |" in row
    assert "not labelled yet" in next(line for line in summary.splitlines() if line.startswith("| Old"))
    # an INCONCLUSIVE claim a step settled within its margin is counted apart in the summary
    settled = _c("s", "INCONCLUSIVE", claim="E", note="sequential rule: settled: no difference beyond 3 (d) at n = 6")
    full2 = dict(full, x={"paper": "DUETS", "claims": claims[:1] + [settled]})
    row2 = next(line for line in report.readme_summary(full2, quick={}).splitlines() if line.startswith("| DUETS"))
    assert "| 0 / 1 / 2 (1 of them settled: no difference beyond a margin) |" in row2
    assert "settled" not in row
    page = report.claims_page(full)
    assert page.index("### x (") < page.index("### x_theory (")
    assert "depends on a setting the paper does not give: λ not given" in page
    assert "2 [1, 3] (95% t)" in page and "C \\| D" in page and "| implementation |" in page
    assert "[figures/x](figures/x)" in page and "`figures/x`" in report.claims_page(full, links=False)


def test_the_manifest_orders_the_papers_and_the_arena_counts_hypotheses():
    full = {"arena": {"paper": "arena", "claims": [_c("a1", "PASS"), _c("a2", "FAIL", cause="hypothesis"),
                                                      _c("b", "PASS", kind="implementation")]},
            "fn_ucb": {"paper": "FN-UCB", "claims": [_c("f", "PASS")]},
            "duets_theory": {"paper": "DUETS", "claims": [_c("e", "PASS")]},
            "duets": {"paper": "DUETS", "claims": [_c("d", "INCONCLUSIVE", cause="open")]}}
    groups = report.by_paper(full)
    assert list(groups) == ["DUETS", "FN-UCB", "The arena"]
    assert [nb for nb, _ in groups["DUETS"]] == ["duets", "duets_theory"]
    k = report.kind_counts(report._entries_claims(groups["The arena"]))
    assert k["hypothesis"] == {"PASS": 1, "FAIL": 1, "INCONCLUSIVE": 0} and k["paper"]["PASS"] == 0
    summary = report.readme_summary(full, quick={})
    arena = next(line for line in summary.splitlines() if line.startswith("| The arena"))
    assert "hypotheses: 1 / 1 / 0" in arena and "| 1 of 1 |" in arena
    # a kind the report does not know yet is counted under its own name, not dropped
    line = report.kind_line([_c("z", "PASS", kind="conjecture"), _c("y", "PASS")])
    assert "conjecture claims: 1 PASS" in line and "paper claims: 1 PASS" in line
    assert "hypotheses: 1 PASS, 0 FAIL, 0 INCONCLUSIVE" in report.kind_line([_c("q", "PASS", kind="hypothesis")])


def test_causes_are_worded_by_verdict_and_levels_printed_as_they_are():
    assert report.cause_words(_c("a", "FAIL", cause="paper")) == "the paper's statement does not hold here"
    assert "does not hold" not in report.cause_words(_c("a", "INCONCLUSIVE", cause="paper"))
    assert report.cause_words(_c("a", "INCONCLUSIVE")).startswith("open")
    assert report.cause_words(_c("a", "FAIL", cause="newcause")) == "newcause"
    assert report.cause_text(_c("a", "PASS", cause="paper")) == "-"
    assert report.level_text(0.998) == "99.8%" and report.level_text(0.9928571) == "99.29%"
    assert "(99.8% t)" in report.interval_text(_c("a", "PASS", effect=1, interval=[0, 2], level=0.998, method="t"))
    assert any(k == "open" and "what would settle it" in v for k, v in report.CAUSE_LEGEND)


def test_site_sources_are_generated(tmp_path):
    figs = tmp_path / "figures"
    for nb, claims in (("fn_ucb", [_c("fig1a-x", "PASS"), _c("shared-id", "FAIL", cause="setting", cause_note="why")]),
                       ("fn_ucb_theory", [_c("E2-y", "INCONCLUSIVE", cause="open"), _c("shared-id", "PASS")])):
        (figs / nb).mkdir(parents=True)
        (figs / nb / "claims.json").write_text(json.dumps({"paper": "FN-UCB", "claims": claims}))
        (figs / nb / f"{nb}.ipynb").write_text(json.dumps({"cells": [{"cell_type": "markdown", "source": "## Claims"}]}))
        (figs / nb / "results.csv").write_text("a\n1\n")
    (figs / "fn_ucb" / "fig1.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (figs / "fn_ucb" / "fig1.pdf").write_bytes(b"%PDF")
    (figs / "fn_ucb" / "extra.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (figs / "fn_ucb" / "NOTE.md").write_text("# A note\n")
    docs = tmp_path / "docs"
    sitegen.write_site_sources(docs=docs, figures=figs)
    gen = docs / "_gen"
    assert (gen / "notebooks" / "fn_ucb.ipynb").exists() and (gen / "figures" / "fn_ucb" / "fig1.png").exists()
    assert (gen / "extra" / "data" / "fn_ucb" / "results.csv").exists() and (gen / "extra" / "data" / "fn_ucb" / "fig1.pdf").exists()
    page = (docs / "papers" / "fn_ucb.md").read_text()
    # the order: summary, causes, figures, claims, deviations, notes
    marks = ["## What the runs show", 'class="claims-summary"', "### Where a claim does not hold", "## Figures",
             "## Claims", "## Deviations from the paper", "## Notes on the runs"]
    assert [page.index(m) for m in marks] == sorted(page.index(m) for m in marks)
    assert "https://openreview.net/forum?id=38m4h8HcNRL" in page
    # every claim an anchor, once; the shared id is prefixed by its notebook
    ids = re.findall(r'<tr id="([^"]+)"', page)
    assert sorted(ids) == sorted(["fig1a-x", "fn_ucb-shared-id", "E2-y", "fn_ucb_theory-shared-id"])
    # links: the figure panel, the notebook's claims cell, the data
    assert '<a href="#fig-fn-ucb-fig1">figure fig1.png, panel (a)</a>' in page
    assert 'href="../_gen/notebooks/fn_ucb.html#claims"' in page and 'href="../data/fn_ucb/results.csv"' in page
    assert "why" in page and "No note recorded for this claim yet" in page
    # the manifest's caption, and the image it does not list said to be so
    assert "Reproduces the paper's Figure 1 (a)–(d)" in page and "not listed in `bandits/papers.py`" in page
    assert "```{include} ../../figures/fn_ucb/NOTE.md" in page
    index = (docs / "index.md").read_text()
    assert "[FN-UCB](papers/fn_ucb.md)" in index and "| 2 / 1 / 1 |" in index and "pareto_sync" not in index and "papers/fn_ucb" in index
    assert 'id="fn_ucb-shared-id"' in (docs / "claims.md").read_text()
    assert (gen / "CLAIMS.md").exists()
