"""Reports built from the notebooks' outputs.

``python -m bandits.report`` (run by ``make figures``) fills the README's claims table from
``figures/*/claims.json`` (full mode) and, where present, ``results/quick/*/claims.json``.

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


def interval_text(c: dict) -> str:
    """``effect [lo, hi] (95% method)`` of one claims.json entry, ``-`` when it has no interval
    (old files: no ``interval`` key)."""
    iv = c.get("interval")
    if not iv or len(iv) != 2 or iv[0] is None or iv[1] is None:
        return "-"
    level = c.get("level")
    how = " ".join(x for x in (f"{level:.0%}" if level else "", c.get("method") or "") if x)
    eff = c.get("effect")
    head = f"{_fmt(eff)} " if eff is not None else ""
    return f"{head}[{_fmt(iv[0])}, {_fmt(iv[1])}]" + (f" ({how})" if how else "")


def _paper(payload: dict, nb: str) -> str:
    return payload.get("paper") or nb


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


def update_readme(readme: Path = ROOT / "README.md") -> None:
    full = _load(ROOT / "figures")
    quick = _load(ROOT / "results" / "quick")
    # a figures/ folder written in quick mode (its provenance says so) is not a full-mode result
    for nb in [nb for nb in full if _mode(ROOT / "figures" / nb) == "quick"]:
        quick.setdefault(nb, full.pop(nb))
    text = readme.read_text()
    if START not in text or END not in text:
        raise SystemExit(f"README.md lacks the markers {START} / {END}")
    kept = kept_quick_cells(text, quick)
    if kept:
        print(f"README claims table: {len(kept)} quick-mode cells of {len({n for n, _ in kept})} notebooks kept from "
              "the README (no results/quick/<notebook>/claims.json here; `make quick` or `make test` refreshes them)")
    table = claims_markdown(full, quick, kept)
    new = re.sub(re.escape(START) + ".*?" + re.escape(END), lambda m: f"{START}\n{table}\n{END}", text,
                 flags=re.S)
    readme.write_text(new)
    print(f"README claims table: {sum(len(v.get('claims', [])) for v in full.values())} full-mode claims")


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
        update_readme()
    elif argv[0] == "refresh-notebook" and len(argv) >= 2:
        for p in argv[1:]:
            refresh_notebook(p)
    else:
        raise SystemExit("usage: python -m bandits.report [refresh-notebook NOTEBOOK ...]")


if __name__ == "__main__":
    main()
