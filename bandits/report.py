"""Reports built from the notebooks' outputs.

``python -m bandits.report`` (run by ``make figures``) fills the README's claims table from
``figures/*/claims.json`` (full mode) and, where present, ``results/quick/*/claims.json``.

``python -m bandits.report refresh-notebook notebooks/X.ipynb`` runs the notebook in quick
mode with papermill and writes it back with no outputs except the text of its claims cell
(the cell marked ``# NBVAL_CHECK_OUTPUT``), which nbval then compares on every ``make test``.
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


def claims_markdown(full: dict, quick: dict) -> str:
    lines = ["| notebook | claim (quoted) | check | full mode | quick mode | figure |",
             "|---|---|---|---|---|---|"]
    for nb in sorted(set(full) | set(quick)):
        fc = {c["id"]: c for c in full.get(nb, {}).get("claims", [])}
        qc = {c["id"]: c for c in quick.get(nb, {}).get("claims", [])}
        for cid in list(dict.fromkeys(list(fc) + list(qc))):
            c = fc.get(cid) or qc.get(cid)
            f = fc.get(cid)
            q = qc.get(cid)
            cell = lambda x: f"**{x['verdict']}** ({x['value']})" if x else "not run"
            fig = f"[figures/{nb}](figures/{nb})" if f else "-"
            claim = c["claim"].replace("|", "\\|")
            check = f"`{cid}`: " + c["check"].replace("|", "\\|")
            lines.append(f"| {nb} | {claim} | {check} | {cell(f)} | {cell(q)} | {fig} |")
    return "\n".join(lines)


def update_readme(readme: Path = ROOT / "README.md") -> None:
    full = _load(ROOT / "figures")
    quick = _load(ROOT / "results" / "quick")
    text = readme.read_text()
    if START not in text or END not in text:
        raise SystemExit(f"README.md lacks the markers {START} / {END}")
    table = claims_markdown(full, quick)
    new = re.sub(re.escape(START) + ".*?" + re.escape(END), lambda m: f"{START}\n{table}\n{END}", text,
                 flags=re.S)
    readme.write_text(new)
    print(f"README claims table: {sum(len(v.get('claims', [])) for v in full.values())} full-mode claims")


def refresh_notebook(path: str) -> None:
    import nbformat
    import papermill as pm

    nb_path = Path(path)
    with tempfile.TemporaryDirectory() as tmp:
        executed = Path(tmp) / nb_path.name
        pm.execute_notebook(str(nb_path), str(executed), kernel_name="python3", cwd=str(nb_path.parent),
                            progress_bar=False)
        run = nbformat.read(executed, as_version=4)
    src = nbformat.read(nb_path, as_version=4)
    outs = [c for c in run.cells if c.cell_type == "code" and "NBVAL_CHECK_OUTPUT" in c.source]
    count = 0
    for cell in src.cells:
        if cell.cell_type != "code":
            continue
        count += 1
        cell.outputs, cell.execution_count = [], count  # nbval wants counts on cells with outputs
        if "NBVAL_CHECK_OUTPUT" in cell.source and outs:
            kept = [o for o in outs.pop(0).outputs if o.get("output_type") == "stream" and o.get("name") == "stdout"]
            cell.outputs = kept
    nbformat.write(src, nb_path)
    print(f"refreshed {nb_path}: claims output kept, other outputs removed")


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
