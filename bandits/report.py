"""Reports built from the notebooks' outputs.

``python -m bandits.report`` (run by ``make figures`` and ``make site``) writes, from
``figures/*/claims.json`` and the manifest of papers (:mod:`bandits.papers`: their order and names):

* ``CLAIMS.md``: one section per paper, one table per notebook, one row per claim: the claim (its
  source in the paper, verbatim or paraphrase), its kind (a paper claim, an implementation check, or the
  arena's hypothesis), the check, the number, the interval, the verdict and, for a verdict other than PASS,
  its cause (:func:`claims_page`);
* the README's summary between the markers ``<!-- claims-table:start/end -->``: per paper, paper
  claims counted apart from implementation checks and hypotheses, and the headline claim's verdict in one
  line (:func:`readme_summary`).

``python -m bandits.report site`` writes the website's generated pages (:mod:`bandits.site`).

A ``claims.json`` written before claims had a ``kind`` counts its claims as paper claims (the
:class:`~bandits.experiments.claims.Claim` default) until the notebook runs again; a claim of a notebook the
manifest gives to the arena (no paper) is a hypothesis whatever kind it records; a kind the report does not
know is counted under its own name. :func:`claims_markdown` (one table, full and quick mode side by side) is
the older layout, kept for a one-page view of both modes.

``python -m bandits.report refresh-notebook notebooks/X.py`` (or ``X.ipynb``) runs the notebook
pair's ``.py`` source in quick mode with papermill and rewrites ``X.ipynb`` with no outputs except
the text of its claims cell (the cell marked ``# NBVAL_CHECK_OUTPUT``), which nbval then compares
on every ``make test``; ``jupytext --sync`` then keeps ``X.py`` and ``X.ipynb`` in step.
"""
from __future__ import annotations

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
    """The paper of a notebook (for rows carried over from the README): the manifest's, else the name its
    ``write_claims`` call records."""
    p = paper_of(nb)
    if p is not None:
        return p.name
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


_QUICK_HYPOTHESES = re.compile(r"hypothes[ie]s(?: \([^)]*\))?: (\d+) PASS, (\d+) FAIL, (\d+) INCONCLUSIVE")


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
                    counts = [int(g) for g in m.groups()]
                    h = _QUICK_HYPOTHESES.search(text)  # the arena's: its first column counts hypotheses
                    if h:
                        counts[:3] = [a + int(b) for a, b in zip(counts[:3], h.groups())]
                    out[nb.stem] = tuple(counts)
    return out


def _pfi(v: dict, settled: int = 0) -> str:
    """``PASS / FAIL / INCONCLUSIVE``, and how many of the INCONCLUSIVE a sequential step settled within their
    margin ("no difference beyond m", the claim's note)."""
    out = f"{v['PASS']} / {v['FAIL']} / {v['INCONCLUSIVE']}"
    return out + (f" ({settled} of them settled: no difference beyond a margin)" if settled else "")


def _settled(claims, kind: str) -> int:
    """The INCONCLUSIVE claims of ``kind`` that a sequential step settled within their margin (their note says so)."""
    return sum(1 for n, c in claims if _kind(c, n) == kind and _verdict(c) == "INCONCLUSIVE"
               and "settled: no difference beyond" in str(c.get("note") or ""))


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
            name, first = f"{man.name}: the package's own hypotheses", f"hypotheses: {_pfi(h, _settled(claims, 'hypothesis'))}"
        elif man is not None:
            name, first = man.name, _pfi(p, _settled(claims, "paper"))
        else:
            name, first = f"{paper} (not in `bandits/papers.py`)", _pfi(p, _settled(claims, "paper"))
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
        from .floor import refresh_floor_sums

        write_claims_page()
        update_readme()
        changed = refresh_floor_sums()
        if changed:
            print(f"docs/running.md: the floor table's full-mode sums rewritten from the folders "
                  f"({', '.join(changed)})")
    elif argv == ["site"]:
        from .site import write_site_sources

        write_site_sources()
    elif argv == ["claims"]:
        write_claims_page()
    elif argv[0] == "refresh-notebook" and len(argv) >= 2:
        for p in argv[1:]:
            refresh_notebook(p)
    elif argv[0] == "note" and len(argv) >= 2:
        from .experiments.notebook import NOTE_WRITERS, write_note

        for folder in argv[1:]:
            name = Path(folder).name
            if name not in NOTE_WRITERS:
                raise SystemExit(f"no note writer for {folder!r}: the folders whose NOTE.md is generated are named "
                                 f"{', '.join(NOTE_WRITERS)} (bandits.experiments.notebook.NOTE_WRITERS)")
            print(f"wrote {write_note(name, folder)}")
    else:
        raise SystemExit("usage: python -m bandits.report [site | claims | refresh-notebook NOTEBOOK ... | note FOLDER ...]\n"
                         "  (no argument: CLAIMS.md, the README summary and the floor table's full-mode sums; site: docs/_gen/ for make site;\n"
                         "   claims: CLAIMS.md only; note: FOLDER/NOTE.md written from the folder's files)")


if __name__ == "__main__":
    main()
