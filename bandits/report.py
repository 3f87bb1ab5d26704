"""Reports built from the notebooks' outputs.

``python -m bandits.report`` (run by ``make figures`` and ``make site``) writes, from
``figures/*/claims.json``:

* ``CLAIMS.md``: one section per paper, one table per notebook, one row per claim: the claim (its
  source in the paper, verbatim or paraphrase), its kind (a paper claim or an implementation check),
  the check, the number, the interval, the verdict and, for a verdict other than PASS, its cause
  (:func:`claims_page`);
* the README's summary between the markers ``<!-- claims-table:start/end -->``: per paper, paper
  claims counted apart from implementation checks, and the headline claim's verdict in one line
  (:func:`readme_summary`).

A ``claims.json`` older than issue 23 has no ``kind``: its claims count as paper claims (the
:class:`~bandits.experiments.claims.Claim` default) until the notebook runs again.
:func:`claims_markdown` (one table, full and quick mode side by side) is the older layout, kept for
a one-page view of both modes.

``python -m bandits.report refresh-notebook notebooks/X.py`` (or ``X.ipynb``) runs the notebook
pair's ``.py`` source in quick mode with papermill and rewrites ``X.ipynb`` with no outputs except
the text of its claims cell (the cell marked ``# NBVAL_CHECK_OUTPUT``), which nbval then compares
on every ``make test``; ``jupytext --sync`` then keeps ``X.py`` and ``X.ipynb`` in step.
"""
from __future__ import annotations

import html
import json
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START, END = "<!-- claims-table:start -->", "<!-- claims-table:end -->"


def _load(folder: Path) -> dict:
    out = {}
    for p in sorted(folder.glob("*/claims.json")):
        try:
            out[p.parent.name] = json.loads(p.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise SystemExit(f"{p} is unreadable ({exc}); re-run the notebook that writes it") from exc
    return out


def _verdict(c: dict) -> str:
    """The verdict of one claims.json entry: ``verdict`` if present, else from ``passed`` (old files)."""
    v = c.get("verdict")
    if v in ("PASS", "FAIL", "INCONCLUSIVE"):
        return v
    return "PASS" if c.get("passed") else "FAIL"


def _fmt(x) -> str:
    if x is None:
        return "-"
    x = float(x)
    if x != x:
        return "-"
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    return "0" if x == 0 else f"{x:.2g}"


def level_text(level) -> str:
    """A confidence level as it is: ``0.95`` -> ``"95%"``, ``0.998`` -> ``"99.8%"`` (never rounded to 100 %)."""
    return f"{100 * float(level):.4g}%"


def interval_text(c: dict) -> str:
    """``effect [lo, hi] (95% method)`` of one claims.json entry, ``-`` when it has no interval
    (old files: no ``interval`` key)."""
    iv = c.get("interval")
    if not iv or len(iv) != 2 or iv[0] is None or iv[1] is None:
        return "-"
    level = c.get("level")
    how = " ".join(x for x in (level_text(level) if level else "", c.get("method") or "") if x)
    eff = c.get("effect")
    head = f"{_fmt(eff)} " if eff is not None else ""
    return f"{head}[{_fmt(iv[0])}, {_fmt(iv[1])}]" + (f" ({how})" if how else "")


def summary_markdown(full: dict, quick: dict, kept: dict | None = None) -> str:
    """Per paper: PASS / FAIL / INCONCLUSIVE counts in full and in quick mode (``kept``: quick-mode
    cells carried over from the README, see :func:`kept_quick_cells`)."""
    papers: dict[str, dict] = {}
    for mode, data in (("full", full), ("quick", quick)):
        for nb, payload in data.items():
            row = papers.setdefault(_paper(payload, nb), {"full": None, "quick": None})
            cnt = row[mode] or {"PASS": 0, "FAIL": 0, "INCONCLUSIVE": 0}
            for c in payload.get("claims", []):
                cnt[_verdict(c)] += 1
            row[mode] = cnt
    for (nb, _cid), (verdict, _text, _line) in (kept or {}).items():
        row = papers.setdefault(_paper(full[nb], nb) if nb in full else _paper_of_notebook(nb),
                                {"full": None, "quick": None})
        cnt = row["quick"] or {"PASS": 0, "FAIL": 0, "INCONCLUSIVE": 0}
        cnt[verdict] += 1
        row["quick"] = cnt
    lines = ["| paper | full mode: PASS / FAIL / INCONCLUSIVE | quick mode: PASS / FAIL / INCONCLUSIVE |",
             "|---|---|---|"]
    cell = lambda c: "not run" if c is None else f"{c['PASS']} / {c['FAIL']} / {c['INCONCLUSIVE']}"
    for paper in sorted(papers):
        lines.append(f"| {paper} | {cell(papers[paper]['full'])} | {cell(papers[paper]['quick'])} |")
    return "\n".join(lines)


def kept_quick_cells(readme_text: str, quick: dict) -> dict:
    """Quick-mode cells of the README's current table for notebooks with no ``results/quick`` output
    here: ``{(notebook, claim id): (verdict, cell text)}``. ``results/`` is not committed, so a fresh
    checkout has no quick-mode claims; regenerating the table there (``make figures`` writes only
    ``figures/``) must not erase the quick column the last ``make quick`` / ``make test`` filled."""
    if START not in readme_text or END not in readme_text:
        return {}
    body = readme_text.split(START, 1)[1].split(END, 1)[0]
    kept = {}
    for line in body.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if len(cells) != 6 or not cells[2].startswith("`"):
            continue
        nb, cid, q = cells[0], cells[2][1:].split("`", 1)[0], cells[4]
        m = re.match(r"\*\*(PASS|FAIL|INCONCLUSIVE)\*\*", q)
        if nb not in quick and m:
            kept[(nb, cid)] = (m.group(1), q, line.strip())
    return kept


def _paper_of_notebook(nb: str) -> str:
    """The paper name a notebook's ``write_claims`` call records (for rows carried over from the README)."""
    try:
        src = (ROOT / "notebooks" / f"{nb}.py").read_text()
    except OSError:
        return nb
    m = re.search(r"write_claims\(.*?[\"']paper[\"']:\s*[\"']([^\"']+)[\"']", src, flags=re.S)
    return m.group(1) if m else nb


def claims_markdown(full: dict, quick: dict, kept: dict | None = None) -> str:
    """The per-paper summary counts, then one row per claim: verdict, number and interval in full
    and quick mode. Old claims.json files (``passed`` only, no interval) render with interval ``-``.
    ``kept``: quick-mode cells carried over from the current README (:func:`kept_quick_cells`)."""
    kept = kept or {}
    lines = [summary_markdown(full, quick, kept), "",
             "| notebook | claim (quoted) | check | full mode | quick mode | figure |",
             "|---|---|---|---|---|---|"]
    kept_nbs = {nb for nb, _ in kept}
    for nb in sorted(set(full) | set(quick) | kept_nbs):
        if nb not in full and nb not in quick:  # no output here at all: the README's rows, verbatim
            lines.extend(line for (n, _c), (_v, _q, line) in kept.items() if n == nb)
            continue
        fc = {c["id"]: c for c in full.get(nb, {}).get("claims", [])}
        qc = {c["id"]: c for c in quick.get(nb, {}).get("claims", [])}
        kc = [cid for (n, cid) in kept if n == nb]
        for cid in list(dict.fromkeys(list(fc) + list(qc) + [c for c in kc if c in fc])):
            c = fc.get(cid) or qc.get(cid)
            f = fc.get(cid)
            q = qc.get(cid)
            esc = lambda t: str(t).replace("|", "\\|")
            cell = lambda x: (f"**{_verdict(x)}** ({esc(x['value'])}; interval: {esc(interval_text(x))})"
                              if x else "not run")
            fig = f"[figures/{nb}](figures/{nb})" if f else "-"
            claim = esc(c["claim"])
            check = f"`{cid}`: " + esc(c["check"])
            qtext = cell(q) if q or (nb, cid) not in kept else kept[(nb, cid)][1]
            lines.append(f"| {nb} | {claim} | {check} | {cell(f)} | {qtext} | {fig} |")
        if nb not in quick:  # kept quick-only claims (full mode has no such id): the README's rows
            lines.extend(line for (n, c), (_v, _q, line) in kept.items() if n == nb and c not in fc)
    return "\n".join(lines)


def _mode(folder: Path) -> str | None:
    """The ``mode`` parameter recorded in ``folder/provenance.json`` (None when absent)."""
    try:
        prov = json.loads((folder / "provenance.json").read_text())
        return prov.get("mode") or (prov.get("parameters") or {}).get("mode")
    except (OSError, ValueError, AttributeError):
        return None


#: The causes of a verdict other than PASS (``claims.json``'s ``cause``), in plain words, by verdict: a
#: FAIL says the statement does not hold here, an INCONCLUSIVE that the runs cannot tell yet.
CAUSE_WORDS = {
    "paper": {"FAIL": "the paper's statement does not hold here",
              "INCONCLUSIVE": "the paper's statement as given cannot be decided by these runs"},
    "setting": {"FAIL": "depends on a setting the paper does not give",
                "INCONCLUSIVE": "depends on a setting the paper does not give"},
    "approximation": {"FAIL": "an approximation of this package",
                      "INCONCLUSIVE": "an approximation of this package"},
    "hypothesis": {"FAIL": "the package's own hypothesis does not hold here",
                   "INCONCLUSIVE": "the package's own hypothesis is not decided by these runs"},
    "open": {"FAIL": "open: the runs do not yet show why",
             "INCONCLUSIVE": "open: the runs do not yet show why"},
}
#: What each cause means, for the legends of CLAIMS.md and the site (the definition of "open" among them).
CAUSE_LEGEND = (
    ("paper", "the paper's statement itself: it does not hold here, or cannot be decided as stated"),
    ("setting", "the verdict depends on a setting the paper does not give (this package's choice is in the note)"),
    ("approximation", "an approximation this package makes (a rank cap, a Nyström size, fewer runs)"),
    ("hypothesis", "the package's own hypothesis (the arena), not a paper's claim"),
    ("open", "not yet explained: the note says what was tried and what would settle it (more runs, a larger "
             "instance, a setting to vary)"),
)
#: The kinds of claim, counted apart, in the order they are reported; other kinds follow, by name.
KINDS = ("paper", "implementation", "hypothesis")
KIND_WORDS = {"paper": ("paper claim", "paper claims"),
              "implementation": ("implementation check", "implementation checks"),
              "hypothesis": ("hypothesis", "hypotheses")}
VERDICT_WORDS = {"PASS": "holds", "FAIL": "fails", "INCONCLUSIVE": "cannot tell yet"}


def _papers():
    from . import papers

    return papers


def paper_of(nb: str, payload: dict | None = None):
    """The manifest entry (:mod:`bandits.papers`) of notebook ``nb``, or None for a notebook no paper lists."""
    return _papers().paper_of_notebook(nb)


def _paper(payload: dict, nb: str) -> str:
    """The paper's name: from the manifest (:mod:`bandits.papers`), else what claims.json records, else ``nb``."""
    p = paper_of(nb)
    return p.name if p is not None else (payload.get("paper") or nb)


def _kind(c: dict, nb: str | None = None) -> str:
    """A claim's kind: ``kind`` (a claims.json file older than kinds: "paper"); in a notebook of the arena
    (the manifest's ``kind="arena"``: no paper) a claim recorded as "paper" is the package's hypothesis."""
    k = c.get("kind") or "paper"
    if k == "paper" and nb is not None:
        p = paper_of(nb)
        if p is not None and p.kind == "arena":
            return "hypothesis"
    return k


def by_paper(data: dict) -> dict:
    """``{paper name: [(notebook, payload), ...]}`` in the manifest's order (:data:`bandits.papers.PAPERS`),
    each paper's notebooks in its order; notebooks no paper lists follow, by the paper their claims.json names."""
    papers = _papers().PAPERS
    out: dict[str, list] = {}
    for p in papers:
        entries = [(nb, data[nb]) for nb in p.folders if nb in data]
        if entries:
            out[p.name] = entries
    rest: dict[str, list] = {}
    for nb in sorted(data, key=lambda n: (n.endswith("_theory"), n)):
        if paper_of(nb) is None:
            rest.setdefault(data[nb].get("paper") or nb, []).append((nb, data[nb]))
    for name in sorted(rest):
        out.setdefault(name, []).extend(rest[name])
    return out


def _entries_claims(entries, counted_only: bool = True):
    """``[(notebook, claim), ...]`` of a paper's entries (superseded runs left out when ``counted_only``)."""
    return [(nb, c) for nb, payload in entries if not (counted_only and payload.get("superseded"))
            for c in payload.get("claims", [])]


def kind_counts(claims, nb: str | None = None) -> dict:
    """``{kind: {"PASS", "FAIL", "INCONCLUSIVE"}}`` of claims.json entries: "paper", "implementation" and
    "hypothesis" always, any other kind a claims.json names as its own key. ``claims``: dicts, or
    ``(notebook, dict)`` pairs (the notebook decides an arena claim's kind, :func:`_kind`)."""
    out = {k: {"PASS": 0, "FAIL": 0, "INCONCLUSIVE": 0} for k in KINDS}
    for item in claims:
        n, c = item if isinstance(item, tuple) else (nb, item)
        out.setdefault(_kind(c, n), {"PASS": 0, "FAIL": 0, "INCONCLUSIVE": 0})[_verdict(c)] += 1
    return out


def _kind_order(counts: dict) -> list:
    return [k for k in KINDS if k in counts] + sorted(k for k in counts if k not in KINDS)


def _kind_name(k: str, n: int = 2) -> str:
    one, many = KIND_WORDS.get(k, (f"{k} claim", f"{k} claims"))
    return one if n == 1 else many


def kind_line(claims, nb: str | None = None) -> str:
    """``"paper claims: n PASS, n FAIL, n INCONCLUSIVE; implementation checks: k of m PASS"`` (and the
    hypotheses, and any other kind, when there are some); for claims.json files written before claims had a
    ``kind``, the counts of all claims so marked."""
    items = list(claims)
    plain = [it[1] if isinstance(it, tuple) else it for it in items]
    k = kind_counts(items, nb)
    p, i = k["paper"], k["implementation"]
    if plain and not any("kind" in c for c in plain) and k["hypothesis"] == {"PASS": 0, "FAIL": 0, "INCONCLUSIVE": 0}:
        return (f"{p['PASS']} PASS, {p['FAIL']} FAIL, {p['INCONCLUSIVE']} INCONCLUSIVE "
                "(claims.json written before claims had a kind: paper claims and implementation checks "
                "not yet told apart; the next run of the notebook labels them)")
    parts = []
    for kind in _kind_order(k):
        v = k[kind]
        if kind == "paper" and (sum(v.values()) or not sum(sum(x.values()) for x in k.values())):
            parts.append(f"paper claims: {v['PASS']} PASS, {v['FAIL']} FAIL, {v['INCONCLUSIVE']} INCONCLUSIVE")
        elif kind == "implementation":
            parts.append(f"implementation checks: {v['PASS']} of {sum(v.values())} PASS")
        elif sum(v.values()):
            parts.append(f"{_kind_name(kind)}: {v['PASS']} PASS, {v['FAIL']} FAIL, {v['INCONCLUSIVE']} INCONCLUSIVE")
    return "; ".join(parts)


def headline(entries) -> tuple[str, dict] | None:
    """The paper's headline claim: the first paper claim (for the arena: hypothesis) of its main notebook
    (the first notebook of :func:`by_paper`'s list that has one), with that notebook's name."""
    for kind in ("paper", "hypothesis"):
        for nb, payload in entries:
            for c in payload.get("claims", []):
                if _kind(c, nb) == kind:
                    return nb, c
    return None


def _short(text: str, n: int = 110) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def cause_words(c: dict) -> str:
    """The cause of a verdict other than PASS in plain words (its key; ``-`` for a PASS); an unknown cause key
    is printed as it is."""
    v = _verdict(c)
    if v == "PASS":
        return "-"
    key = c.get("cause") or "open"
    return CAUSE_WORDS.get(key, {}).get(v, key)


def cause_text(c: dict) -> str:
    """The cause of a verdict other than PASS, in words, with its note (``-`` for a PASS)."""
    if _verdict(c) == "PASS":
        return "-"
    note = c.get("cause_note") or ""
    return cause_words(c) + (f": {note}" if note else "")


_QUICK_LINE = re.compile(r"paper claims: (\d+) PASS, (\d+) FAIL, (\d+) INCONCLUSIVE; implementation checks: "
                         r"(\d+) of (\d+) PASS")


def quick_counts(notebooks: Path = ROOT / "notebooks") -> dict:
    """Quick-mode counts per notebook, read from the last line of each committed reference's claims
    output (the text ``make test`` compares under nbval): ``{name: (P, F, I, impl_pass, impl_all)}``."""
    out = {}
    for nb in sorted(Path(notebooks).glob("*.ipynb")):
        try:
            cells = json.loads(nb.read_text(encoding="utf-8")).get("cells", [])
        except (OSError, ValueError):
            continue
        for c in cells:
            if c.get("cell_type") == "code" and "NBVAL_CHECK_OUTPUT" in "".join(c.get("source", "")):
                text = "".join("".join(o.get("text", "")) for o in c.get("outputs", []))
                m = _QUICK_LINE.search(text)
                if m:
                    out[nb.stem] = tuple(int(g) for g in m.groups())
    return out


def _pfi(v: dict) -> str:
    return f"{v['PASS']} / {v['FAIL']} / {v['INCONCLUSIVE']}"


def readme_summary(full: dict, quick: dict | None = None) -> str:
    """The README's summary: per paper (the manifest's order), paper claims (PASS / FAIL / INCONCLUSIVE)
    apart from implementation checks (PASS of all) and from the arena's hypotheses, in full mode and, from the
    notebooks' committed references (:func:`quick_counts`), in quick mode; and the headline claim's verdict."""
    quick = quick_counts() if quick is None else quick
    lines = ["| paper | full mode: paper claims PASS / FAIL / INCONCLUSIVE | implementation checks | "
             "quick mode (`make test`): paper claims; implementation checks | headline claim, full mode (verdict) |",
             "|---|---|---|---|---|"]
    esc = lambda t: str(t).replace("|", "\\|")
    superseded = []
    groups = by_paper(full)
    for paper, entries in groups.items():
        current = [(nb, pl) for nb, pl in entries if not pl.get("superseded")]
        superseded += [nb for nb, pl in entries if pl.get("superseded")]
        claims = _entries_claims(entries)
        k = kind_counts(claims)
        p, i, h = k["paper"], k["implementation"], k["hypothesis"]
        if entries and entries[0][1].get("superseded"):
            head = f"- (`{entries[0][0]}`: its full-mode run predates the current code, not counted²)"
        else:
            hl = headline(current)
            head = f"**{_verdict(hl[1])}**: {esc(_short(hl[1]['claim']))} (`{hl[1]['id']}`)" if hl else "-"
        labelled = any("kind" in c for _nb, c in claims)
        impl = f"{i['PASS']} of {sum(i.values())}" if labelled else "not labelled yet¹"
        man = paper_of(entries[0][0])
        if man is not None and man.kind == "arena":
            name, first = f"{man.name}: the package's own hypotheses", f"hypotheses: {_pfi(h)}"
        elif man is not None:
            name, first = man.name, _pfi(p)
        else:
            name, first = f"{paper} (not in `bandits/papers.py`)", _pfi(p)
        q = [quick[nb] for nb, _pl in entries if nb in quick]
        qtext = (f"{sum(x[0] for x in q)} / {sum(x[1] for x in q)} / {sum(x[2] for x in q)}; "
                 f"{sum(x[3] for x in q)} of {sum(x[4] for x in q)}") if q else "-"
        lines.append(f"| {name} | {first} | {impl} | {qtext} | {head} |")
    if any(not any("kind" in c for _nb, pl in e for c in pl.get("claims", [])) for e in groups.values()):
        lines += ["", "¹ Its claims.json files were written before claims had a kind (paper claim or "
                      "implementation check): all its claims are counted in the first column until its "
                      "notebooks run again."]
    if superseded:
        lines += ["", "² Not counted: " + ", ".join(f"`figures/{nb}`" for nb in superseded) + " holds a full-mode "
                      "run made before the current code and claims (its `claims.json` says why, under "
                      "`superseded`); its claims are listed in CLAIMS.md for the record."]
    return "\n".join(lines)


def _legend_md() -> str:
    return ("**kind**: *paper* (a statement of the paper, tested by the runs), *implementation* (a check of this "
            "package: an identity, bookkeeping, a definition, a bound far from what is observed) or *hypothesis* "
            "(the arena's: the package's own, not a paper's); the kinds are counted apart. **interval**: the "
            "tested effect and its confidence interval at the level printed (`docs/statistics.md`). **cause** "
            "(verdicts other than PASS): " + "; ".join(f"*{k}*: {v}" for k, v in CAUSE_LEGEND) + ".")


def claims_page(full: dict, title: str = "# Claims, checked", links: bool = True) -> str:
    """``CLAIMS.md``: one section per paper (the manifest's order), a table per notebook, a row per claim
    (``links``: link each notebook's ``figures/`` folder, as the repository shows it; else name it)."""
    esc = lambda t: " ".join(str(t).split()).replace("|", "\\|")
    out = [title, "",
           "Generated by `python -m bandits.report` (run by `make figures` and `make site`) from "
           "`figures/<notebook>/claims.json`, the committed full-mode runs; do not edit by hand. " + _legend_md()
           + " Quick-mode verdicts are what `make test` checks (nbval, the notebooks' claims cells).", ""]
    for paper, entries in by_paper(full).items():
        claims = _entries_claims(entries)
        line = kind_line(claims)
        man = paper_of(entries[0][0])
        head = f"## {paper}" + (f": {man.title}" if man is not None and man.kind == "paper" else "")
        out += [head, "", line[0].upper() + line[1:] + ".", ""]
        for nb, payload in entries:
            mode = payload.get("mode") or "full"
            where = f"[figures/{nb}](figures/{nb})" if links else f"`figures/{nb}`"
            out += [f"### {nb} ({mode} mode, {where})", ""]
            if payload.get("superseded"):
                out += [f"**Superseded, not counted above:** {esc(payload['superseded'])}", ""]
            out += ["| id | claim | kind | check | number | interval | verdict | cause |",
                    "|---|---|---|---|---|---|---|---|"]
            for c in payload.get("claims", []):
                src = f" [{c['source']}]" if c.get("source") else ""
                para = " *(paraphrase)*" if c.get("quote", "paraphrase") != "verbatim" and "kind" in c else ""
                out.append(f"| `{c['id']}` | {esc(c['claim'])}{para}{esc(src)} | {_kind(c, nb)} | {esc(c['check'])} | "
                           f"{esc(c.get('value', '-'))} | {esc(interval_text(c))} | **{_verdict(c)}** | "
                           f"{esc(cause_text(c))} |")
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def load_full(figures: Path | None = None) -> tuple[dict, dict]:
    """``(full, quick)`` claims of ``figures/`` and ``results/quick/``; a ``figures/`` folder whose
    provenance says quick mode counts as quick."""
    figures = ROOT / "figures" if figures is None else Path(figures)
    full = _load(figures)
    quick = _load(ROOT / "results" / "quick")
    for nb in [nb for nb in full if _mode(figures / nb) == "quick"]:
        quick.setdefault(nb, full.pop(nb))
    return full, quick


def write_claims_page(path: Path = ROOT / "CLAIMS.md") -> Path:
    full, _quick = load_full()
    path.write_text(claims_page(full), encoding="utf-8")
    print(f"{path.name}: {sum(len(v.get('claims', [])) for v in full.values())} full-mode claims, "
          f"{len(by_paper(full))} sections")
    return path


def update_readme(readme: Path = ROOT / "README.md") -> None:
    """The README's per-paper summary (:func:`readme_summary`) between the markers."""
    full, _quick = load_full()
    text = readme.read_text()
    if START not in text or END not in text:
        raise SystemExit(f"README.md lacks the markers {START} / {END}")
    table = readme_summary(full)
    new = re.sub(re.escape(START) + ".*?" + re.escape(END), lambda m: f"{START}\n{table}\n{END}", text,
                 flags=re.S)
    readme.write_text(new)
    print(f"README summary: {len(by_paper(full))} rows")


# ------------------------------------------------------------------------------------------- the website
#: Files of a figures/ folder copied into the site for download (``data/<notebook>/``), besides the PDFs.
DATA_FILES = ("claims.json", "results.csv", "runs.csv", "provenance.json")
#: Pages with claims tables use the whole width (no secondary sidebar).
FRONT_MATTER = "---\nhtml_theme.sidebar_secondary.remove: true\n---"
GENERATED = "<!-- generated by `python -m bandits.report site` from bandits/papers.py and figures/*/claims.json; do not edit -->"


def _h(text) -> str:
    """HTML-escaped text on one line (the generated HTML blocks hold no blank line: MyST ends a block there)."""
    return html.escape(" ".join(str(text).split()))


def _slug(paper: str) -> str:
    """The site page slug of a paper: the manifest's, else derived from the name."""
    for p in _papers().PAPERS:
        if p.name == paper:
            return p.slug
    return re.sub(r"[^a-z0-9]+", "_", paper.lower()).strip("_") or "paper"


def figure_anchor(file: str) -> str:
    """The HTML id of a figure on its page: ``"duets/fig1.png"`` -> ``"fig-duets-fig1"``."""
    return "fig-" + re.sub(r"[^A-Za-z0-9]+", "-", file.rsplit(".", 1)[0]).strip("-").lower()


def claim_anchors(entries) -> dict:
    """``{(notebook, claim id): anchor}``: the claim id itself, or ``<notebook>-<id>`` where two notebooks of a
    page share an id."""
    seen: dict[str, int] = {}
    for _nb, payload in entries:
        for c in payload.get("claims", []):
            seen[c["id"]] = seen.get(c["id"], 0) + 1
    return {(nb, c["id"]): c["id"] if seen[c["id"]] == 1 else f"{nb}-{c['id']}"
            for nb, payload in entries for c in payload.get("claims", [])}


def _figure_of(paper, nb: str, cid: str):
    """``(Figure, panel name)`` of the first manifest figure of notebook ``nb`` that shows claim ``cid``."""
    for f in (paper.figures if paper is not None else ()):
        if f.notebook == nb:
            panel = f.panel_of(cid)
            if panel is not None:
                return f, panel
    return None, None


def _has_claims_heading(ipynb: Path) -> bool:
    try:
        cells = json.loads(ipynb.read_text(encoding="utf-8")).get("cells", [])
    except (OSError, ValueError):
        return False
    return any(c.get("cell_type") == "markdown" and re.search(r"^#+\s*Claims\s*$", "".join(c.get("source", "")), re.M)
               for c in cells)


def _verdict_badge(v: str) -> str:
    return f'<span class="verdict verdict-{v.lower()}">{v}</span>'


def summary_html(entries, anchors: dict) -> str:
    """What holds, what fails, what the runs cannot tell yet: per kind, the counts and the claims by name."""
    claims = _entries_claims(entries)
    k = kind_counts(claims)
    parts = ['<div class="claims-summary">']
    for kind in _kind_order(k):
        n = sum(k[kind].values())
        if not n:
            continue
        parts.append(f'<p class="kind-line"><strong>{html.escape(_kind_name(kind, n).capitalize())} ({n}):</strong> '
                     + ", ".join(f"{VERDICT_WORDS[v]}: {k[kind][v]}" for v in ("PASS", "FAIL", "INCONCLUSIVE")) + ".</p>")
        parts.append("<ul>")
        for v in ("PASS", "FAIL", "INCONCLUSIVE"):
            ids = [(nb, c) for nb, c in claims if _kind(c, nb) == kind and _verdict(c) == v]
            if ids:
                links = ", ".join(f'<a href="#{html.escape(anchors[(nb, c["id"])])}"><code>{html.escape(c["id"])}</code></a>'
                                  for nb, c in ids)
                parts.append(f'<li>{_verdict_badge(v)} {VERDICT_WORDS[v]} ({len(ids)}): {links}</li>')
        parts.append("</ul>")
    superseded = [nb for nb, pl in entries if pl.get("superseded")]
    if superseded:
        parts.append("<p>Not counted: " + ", ".join(f"<code>figures/{html.escape(nb)}</code>" for nb in superseded)
                     + " (a run made before the current code; its claims are listed below for the record).</p>")
    parts.append("</div>")
    return "".join(parts)


def causes_html(entries, anchors: dict) -> str:
    """Each claim that is not PASS: its verdict, what it says, its cause in words and its note."""
    rows = []
    claims = _entries_claims(entries)
    order = {k: i for i, k in enumerate(KINDS)}
    for nb, c in sorted(claims, key=lambda it: (order.get(_kind(it[1], it[0]), 9), _verdict(it[1]) != "FAIL")):
        v = _verdict(c)
        if v == "PASS":
            continue
        note = c.get("cause_note") or ""
        rows.append(f'<li>{_verdict_badge(v)} <a href="#{html.escape(anchors[(nb, c["id"])])}"><code>{html.escape(c["id"])}</code></a> '
                    f'({html.escape(_kind_name(_kind(c, nb), 1))}): {_h(_short(c.get("claim", ""), 160))} '
                    f'<br><em>Cause:</em> {_h(cause_words(c))}'
                    + (f". {_h(note)}" if note else ". <em>No note recorded for this claim yet.</em>") + "</li>")
    if not rows:
        return '<p class="claims-causes">Every claim holds.</p>'
    return '<ul class="claims-causes">' + "".join(rows) + "</ul>"


def cause_legend_html() -> str:
    return ('<details class="cause-legend"><summary>What the causes mean (“open” among them)</summary><dl>'
            + "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in CAUSE_LEGEND)
            + "</dl></details>")


def claims_table_html(paper, nb: str, payload: dict, anchors: dict, notebook_href: str | None,
                      data_href: str | None) -> str:
    """One notebook's claims as an HTML table that fits a 1366 px window: id (an anchor), verdict, number with
    its interval and cause in four columns; the claim, check, value and the links to its figure, notebook and
    data folded under each row."""
    out = ['<table class="claims-table"><colgroup><col class="c-id"><col class="c-verdict"><col class="c-number">'
           '<col class="c-cause"></colgroup><thead><tr><th>claim</th><th>verdict</th><th>number [interval]</th>'
           '<th>cause</th></tr></thead><tbody>']
    for c in payload.get("claims", []):
        v = _verdict(c)
        a = html.escape(anchors[(nb, c["id"])])
        kind = _kind(c, nb)
        iv = interval_text(c)
        number = _h(iv) if iv != "-" else _h(_short(c.get("value", "-"), 90))
        note = c.get("cause_note") or ""
        cause = "-" if v == "PASS" else (_h(cause_words(c)) + (
            f'<details class="note"><summary>note</summary>{_h(note)}</details>' if note else ""))
        out.append(f'<tr id="{a}" class="claim-row verdict-{v.lower()}"><td class="c-id"><a class="claim-id" href="#{a}">'
                   f'<code>{html.escape(c["id"])}</code></a><br><span class="kind">{html.escape(_kind_name(kind, 1))}</span></td>'
                   f'<td>{_verdict_badge(v)}</td><td>{number}</td><td>{cause}</td></tr>')
        fig, panel = _figure_of(paper, nb, c["id"])
        links = []
        if fig is not None:
            name = fig.file.split("/", 1)[1]
            links.append(f'<a href="#{figure_anchor(fig.file)}">figure {html.escape(name)}'
                         + (f", panel {_h(panel)}" if panel else "") + "</a>")
        if notebook_href:
            links.append(f'<a href="{notebook_href}">notebook {html.escape(nb)}</a>')
        if data_href:
            links += [f'<a href="{data_href}/claims.json">claims.json</a>',
                      f'<a href="{data_href}/results.csv">results.csv</a>']
        src = f' [{_h(c["source"])}]' if c.get("source") else ""
        quote = "" if c.get("quote") == "verbatim" else " <em>(paraphrase)</em>"
        out.append(f'<tr class="claim-more"><td colspan="4"><details><summary>{_h(_short(c.get("claim", ""), 150))}</summary>'
                   f'<p><strong>Claim:</strong> {_h(c.get("claim", ""))}{quote}{src}</p>'
                   f'<p><strong>Check:</strong> {_h(c.get("check", ""))}</p>'
                   f'<p><strong>Number:</strong> {_h(c.get("value", "-"))}</p>'
                   + (f"<p><strong>Cause:</strong> {_h(cause_text(c))}</p>" if v != "PASS" else "")
                   + "</details>"
                   + ('<span class="evidence">' + " · ".join(links) + "</span>" if links else "") + "</td></tr>")
    out.append("</tbody></table>")
    return "".join(out)


def paper_page(paper, entries, gen: Path, figures: Path, name: str | None = None) -> str:
    """The site page of one paper (MyST Markdown): header and links; what holds, fails and cannot be told, then
    each non-PASS claim with its cause; the figures (captions from the manifest, its order, each once); the
    claims tables; the deviations from the paper; the runs' notes last, folded."""
    title = paper.name if paper is not None else name
    lines = [FRONT_MATTER, GENERATED, "", f"# {title}", ""]
    if paper is not None:
        if paper.kind == "paper":
            link = f"[read the paper]({paper.url})" if paper.url else "the paper"
            lines += [f"**{paper.title}**. {paper.authors}. *{paper.venue}*; {link} (its text: "
                      f"`shared/papers/{paper.text}`, beside the repository).", ""]
        lines += [paper.summary, ""]
    nb_html = {nb: (gen / "notebooks" / f"{nb}.ipynb").exists() for nb, _ in entries}
    links = [f"[{nb}](../_gen/notebooks/{nb}.ipynb)" for nb, _ in entries if nb_html[nb]]
    if links:
        lines += ["Notebooks (executed, full mode, rendered without running): " + ", ".join(links) + ".", ""]
    anchors = claim_anchors(entries)
    lines += ["## What the runs show", "",
              f"From the committed full-mode runs ({kind_line(_entries_claims(entries))}).", "",
              summary_html(entries, anchors), "", "### Where a claim does not hold, and why", "",
              causes_html(entries, anchors), "", cause_legend_html(), ""]
    shown = set()
    fig_lines = []
    for f in (paper.figures if paper is not None else ()):
        if f.notebook not in nb_html or not (figures / f.file).exists() or f.file in shown:
            continue
        shown.add(f.file)
        fig_lines += [f"```{{figure}} ../_gen/figures/{f.file}", f":name: {figure_anchor(f.file)}", ":width: 100%", "",
                      f"{f.caption} (`figures/{f.file}`)", "```", ""]
        pdf = f.file.rsplit(".", 1)[0] + ".pdf"
        files = [f'<a href="../data/{html.escape(f.file)}">PNG</a>']
        if (figures / pdf).exists():
            files.append(f'<a href="../data/{html.escape(pdf)}">PDF</a>')
        fig_lines += [f'<p class="figure-files">Download: {" · ".join(files)}</p>', ""]
    for nb, _payload in entries:  # committed images the manifest does not list: shown, and said so
        for png in sorted((figures / nb).glob("*.png")):
            key = f"{nb}/{png.name}"
            if key not in shown:
                shown.add(key)
                fig_lines += [f"```{{figure}} ../_gen/figures/{key}", f":name: {figure_anchor(key)}", ":width: 100%", "",
                              f"`figures/{key}` (no caption: not listed in `bandits/papers.py`)", "```", ""]
    if fig_lines:
        lines += ["## Figures", ""] + fig_lines
    lines += ["## Claims", ""]
    for nb, payload in entries:
        mode = payload.get("mode") or "full"
        lines += [f"### {nb}", "", f"{kind_line(payload.get('claims', []), nb)[:1].upper()}"
                  f"{kind_line(payload.get('claims', []), nb)[1:]} ({mode} mode).", ""]
        if payload.get("superseded"):
            lines += [f"**Superseded, not counted above:** {' '.join(str(payload['superseded']).split())}", ""]
        nb_href = None
        if nb_html[nb]:
            nb_href = f"../_gen/notebooks/{nb}.html" + ("#claims" if _has_claims_heading(gen / "notebooks" / f"{nb}.ipynb") else "")
        data_href = f"../data/{nb}" if (gen / "extra" / "data" / nb / "claims.json").exists() else None
        lines += [claims_table_html(paper, nb, payload, anchors, nb_href, data_href), ""]
        if data_href:
            files = [p.name for p in sorted((gen / "extra" / "data" / nb).iterdir()) if p.suffix in (".json", ".csv", ".pdf")]
            lines += ['<p class="data-files">Data of this run: ' + " · ".join(
                f'<a href="{data_href}/{html.escape(n)}">{html.escape(n)}</a>' for n in files) + "</p>", ""]
    if paper is not None and paper.deviations:
        lines += ["## Deviations from the paper" if paper.kind == "paper" else "## Choices of the comparison", ""]
        lines += [f"- **{d.section}**: {d.text}" for d in paper.deviations] + [""]
    notes = [nb for nb, _ in entries if (figures / nb / "NOTE.md").exists()]
    if notes:
        lines += ["## Notes on the runs", ""]
        for nb in notes:
            lines += [f'<details class="run-note"><summary>The run\'s note: <code>figures/{nb}/NOTE.md</code></summary>', "",
                      f"```{{include}} ../../figures/{nb}/NOTE.md", ":heading-offset: 2", "```", "", "</details>", ""]
    return "\n".join(lines).rstrip() + "\n"


def index_page(groups: dict) -> str:
    """The front page: what the companion is, per paper the verdicts (paper claims, implementation checks and
    the arena's hypotheses apart) with links to its page and to the paper, and the table of contents."""
    papers = _papers()
    lines = [GENERATED, "", "# bandits: five papers on distributed kernel bandits, reproduced", "",
             "A reproducible companion to five papers on collaborative, distributed and federated kernel and neural "
             "bandits: one Python package (`bandits/`), parameterised notebooks that reproduce each paper's figures "
             "and check its claims in code that can fail, and the figures those notebooks produced in full mode. "
             "This site renders the committed, executed notebooks and figures; nothing is recomputed when it is "
             "built.", "",
             "## The verdicts, per paper", "",
             "Counted from the committed full-mode runs. A *paper claim* is a statement of the paper tested by the "
             "runs; an *implementation check* tests this package (an identity, bookkeeping, a bound far from what is "
             "observed); a *hypothesis* is the arena's own, not a paper's. **holds** = PASS, **fails** = FAIL, "
             "**cannot tell yet** = INCONCLUSIVE; each page says why, claim by claim.", "",
             "| paper | the paper | paper claims: PASS / FAIL / INCONCLUSIVE | implementation checks: PASS / FAIL / INCONCLUSIVE | hypotheses: PASS / FAIL / INCONCLUSIVE |",
             "|---|---|---|---|---|"]
    pages = []
    for name, entries in groups.items():
        p = papers.paper_of_notebook(entries[0][0])
        slug = p.slug if p is not None else _slug(name)
        pages.append(slug)
        k = kind_counts(_entries_claims(entries))
        cell = lambda kind: _pfi(k[kind]) if sum(k[kind].values()) else "–"
        if p is not None and p.kind == "paper":
            ref = f"[{p.authors.split(',')[0].split()[-1]} et al., {p.venue.split(',')[0]}]({p.url})" if p.url else p.venue
            if len(p.authors.split(",")) == 2:
                a, b = (x.strip().split()[-1] for x in p.authors.split(","))
                ref = f"[{a} & {b}, {p.venue.split(',')[0]}]({p.url})" if p.url else ref
        else:
            ref = "no paper: the package's own comparison"
        label = p.name if p is not None else name
        lines.append(f"| [{label}](papers/{slug}.md) | {ref} | {cell('paper')} | {cell('implementation')} | {cell('hypothesis')} |")
    other = sorted({k for e in groups.values() for k in kind_counts(_entries_claims(e))} - set(KINDS))
    if other:
        lines += ["", "Other kinds of claim (" + ", ".join(other) + ") are counted on the papers' pages."]
    lines += ["", "Every claim, its check, number, interval, verdict and cause: [the claims page](claims.md).", ""]
    if any(p.slug == "arena" for p in papers.PAPERS) and (ROOT / "figures" / "arena" / "pareto_sync.png").exists():
        lines += ["```{figure} _gen/figures/arena/pareto_sync.png", ":width: 100%", "",
                  papers.by_slug("arena").figures[0].caption + " (the arena, full mode)", "```", ""]
    lines += ["```{toctree}", ":maxdepth: 1", ":caption: Papers", ""] + [f"papers/{s}" for s in pages] + ["claims", "```", "",
              "```{toctree}", ":maxdepth: 1", ":caption: Using and extending it", "",
              "running", "statistics", "choices", "package", "adding_a_paper", "api", "notebooks", "```", ""]
    return "\n".join(lines)


def claims_site_page(full: dict) -> str:
    """The site's claims page: every paper's claims tables (the same as on its page), with links to the pages."""
    lines = [FRONT_MATTER, GENERATED, "", "# Claims, checked", "",
             "Every claim of every notebook, from the committed full-mode runs (`figures/<notebook>/claims.json`; "
             "`CLAIMS.md` in the repository is the same in Markdown). " + _legend_md(), ""]
    for name, entries in by_paper(full).items():
        p = paper_of(entries[0][0])
        slug = p.slug if p is not None else _slug(name)
        lines += [f"## {name}", "", f"{kind_line(_entries_claims(entries))[:1].upper()}"
                  f"{kind_line(_entries_claims(entries))[1:]}. The paper's page: [{name}](papers/{slug}.md).", ""]
        for nb, payload in entries:
            lines += [f"### {nb}", "", f'<p>Each claim: <a href="papers/{slug}.html">its page</a>, where it links to its '
                      "figure, notebook and data.</p>", ""]
            anchors = {(nb, c["id"]): f"{nb}-{c['id']}" for c in payload.get("claims", [])}
            lines += [claims_table_html(None, nb, payload, anchors, None, None).replace('href="#', 'href="#'), ""]
    return "\n".join(lines)


def write_site_sources(docs: Path = ROOT / "docs", figures: Path = ROOT / "figures") -> list[Path]:
    """The site's generated sources (``make site``), from the manifest and the committed runs:

    * ``docs/index.md`` (the front page) and ``docs/papers/<slug>.md`` (one page per paper), ``docs/claims.md``;
    * ``docs/_gen/`` (not committed): copies of the executed notebooks (rendered without running), the
      figures, ``extra/data/<notebook>/`` (claims.json, results.csv, runs.csv, provenance.json and the PDFs,
      copied into the built site as downloads by ``html_extra_path``) and ``CLAIMS.md``.

    Returns the files written."""
    import shutil

    gen = docs / "_gen"
    if gen.exists():
        shutil.rmtree(gen)
    (gen / "notebooks").mkdir(parents=True)
    written = []
    full = _load(figures)
    for nb in sorted(full):
        src = figures / nb / f"{nb}.ipynb"
        if src.exists():
            dst = gen / "notebooks" / f"{nb}.ipynb"
            shutil.copyfile(src, dst)
            written.append(dst)
        for png in sorted((figures / nb).glob("*.png")):
            dst = gen / "figures" / nb / png.name
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(png, dst)
            written.append(dst)
        data = gen / "extra" / "data" / nb
        data.mkdir(parents=True, exist_ok=True)
        for f in sorted((figures / nb).iterdir()):
            if f.is_file() and (f.name in DATA_FILES or f.suffix in (".pdf", ".png")):
                shutil.copyfile(f, data / f.name)
                written.append(data / f.name)
    groups = by_paper(full)
    (docs / "papers").mkdir(parents=True, exist_ok=True)
    for name, entries in groups.items():
        p = paper_of(entries[0][0])
        path = docs / "papers" / f"{p.slug if p is not None else _slug(name)}.md"
        path.write_text(paper_page(p, entries, gen, figures, name=name), encoding="utf-8")
        written.append(path)
    for path, text in ((docs / "index.md", index_page(groups)), (docs / "claims.md", claims_site_page(full)),
                       (gen / "CLAIMS.md", claims_page(full, links=False))):
        path.write_text(text, encoding="utf-8")
        written.append(path)
    print(f"docs: {len(written)} files ({len(full)} notebooks, {len(groups)} papers)")
    return written


def refresh_notebook(path: str) -> None:
    """Rewrite a notebook pair from its ``.py`` source, keeping only the claims cell's output.

    ``path`` names either file of a jupytext pair ``notebooks/X.py`` / ``notebooks/X.ipynb``. The
    cells (sources, cell metadata, the notebook's ``bandits`` metadata) come from the ``.py`` file,
    the source of truth; cell ids and the metadata jupytext does not keep in the ``.py`` header
    (``language_info``) come from the existing ``.ipynb`` where its cells still match. The notebook
    runs once in quick mode (its defaults) with papermill; the ``.ipynb`` is written with no outputs
    except the stdout of the cell marked ``# NBVAL_CHECK_OUTPUT`` (which nbval compares on every
    ``make test``) and an execution count on every code cell (nbval wants counts on cells with
    outputs); finally ``jupytext --sync`` brings the two files in step. A notebook without a ``.py``
    yet (an ``.ipynb`` written by hand or in Lab without the pairing) is paired
    (``formats: ipynb,py:percent``) and its ``.py`` created.
    """
    import jupytext
    import nbformat
    import papermill as pm
    from jupytext.cli import jupytext as jupytext_cli
    from jupytext.combine import combine_inputs_with_outputs

    given = Path(path)
    if given.suffix not in (".py", ".ipynb"):
        raise SystemExit(f"refresh-notebook: {path} is neither a .py nor an .ipynb notebook")
    py, ipynb = given.with_suffix(".py"), given.with_suffix(".ipynb")
    if not py.exists() and not ipynb.exists():
        raise SystemExit(f"refresh-notebook: neither {py} nor {ipynb} exists")
    nb = jupytext.read(py if py.exists() else ipynb)
    meta = nb.metadata.setdefault("jupytext", {})
    meta.setdefault("formats", "ipynb,py:percent")
    meta.setdefault("notebook_metadata_filter", "bandits")
    meta.pop("text_representation", None)
    if ipynb.exists():
        nb = combine_inputs_with_outputs(nb, jupytext.read(ipynb), fmt="py:percent")
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    with tempfile.TemporaryDirectory() as tmp:
        src, executed = Path(tmp) / "source.ipynb", Path(tmp) / "executed.ipynb"
        nbformat.write(nb, src)
        pm.execute_notebook(str(src), str(executed), kernel_name="python3", cwd=str(ipynb.parent),
                            progress_bar=False)
        run = nbformat.read(executed, as_version=4)
    outs = [c for c in run.cells if c.cell_type == "code" and "NBVAL_CHECK_OUTPUT" in c.source]
    count = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        count += 1
        cell.execution_count = count
        if "NBVAL_CHECK_OUTPUT" in cell.source and outs:
            cell.outputs = [o for o in outs.pop(0).outputs
                            if o.get("output_type") == "stream" and o.get("name") == "stdout"]
    jupytext.write(nb, ipynb, fmt="ipynb")
    jupytext_cli(["--sync", "--quiet", str(ipynb)])
    print(f"refreshed {ipynb} and {py}: claims output kept, other outputs removed")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        write_claims_page()
        update_readme()
    elif argv == ["site"]:
        write_site_sources()
    elif argv == ["claims"]:
        write_claims_page()
    elif argv[0] == "refresh-notebook" and len(argv) >= 2:
        for p in argv[1:]:
            refresh_notebook(p)
    else:
        raise SystemExit("usage: python -m bandits.report [site | claims | refresh-notebook NOTEBOOK ...]\n"
                         "  (no argument: CLAIMS.md and the README summary; site: docs/_gen/ for make site;\n"
                         "   claims: CLAIMS.md only)")


if __name__ == "__main__":
    main()
