"""Small helpers the Makefile calls around the notebooks (standard library only, no kernel).

Usage::

    python tools/nbtools.py datasets NOTEBOOK ...        # the datasets they declare, one line, space-separated
    python tools/nbtools.py unpair EXECUTED.ipynb ...    # drop the jupytext pairing from executed copies
    python tools/nbtools.py times OUT_ROOT NOTEBOOK ...  # wall time and cells of each executed copy
                                                         # (OUT_ROOT/<name>/<name>.ipynb), printed and
                                                         # written to OUT_ROOT/TIMES.md
    python tools/nbtools.py params NOTEBOOK              # the names its parameters cell assigns
    python tools/nbtools.py preflight OUT_ROOT NOTEBOOK ... [-- PAPERMILL_OPTIONS]
                                                         # before any run: every OUT_ROOT/<name> a
                                                         # writable folder, every -p/-r NAME known to
                                                         # every notebook; exit 2 naming what is wrong

A notebook's datasets are ``metadata["bandits"]["datasets"]`` (kept in the ``.py`` header by
jupytext); a NOTEBOOK argument may name either file of a pair (``notebooks/X.py`` or ``.ipynb``).
Executed copies (papermill's output under figures/ or results/) keep the source's jupytext metadata;
``unpair`` removes it so that opening one in JupyterLab never writes a ``.py`` beside it.
``times`` reads what papermill records in the executed notebook (``metadata.papermill``: start,
end and duration; per cell ``metadata.papermill.duration``).
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path


def _ipynb(path: str) -> Path:
    p = Path(path)
    return p.with_suffix(".ipynb") if p.suffix == ".py" else p


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise SystemExit(f"nbtools: cannot read notebook {path}: {exc}") from exc


def datasets(notebooks) -> list[str]:
    """The union of the datasets the notebooks declare, in first-seen order."""
    seen: dict[str, None] = {}
    for nb in notebooks:
        names = _read(_ipynb(nb)).get("metadata", {}).get("bandits", {}).get("datasets", []) or []
        if isinstance(names, str) or not all(isinstance(n, str) for n in names):
            raise SystemExit(f"nbtools: {nb}: metadata bandits.datasets must be a list of names, got {names!r}")
        seen.update(dict.fromkeys(names))
    return list(seen)


def parameters(notebook) -> list[str]:
    """The names the notebook's ``parameters`` cell assigns (what ``-p NAME VALUE`` may set)."""
    import ast

    cells = [c for c in _read(_ipynb(notebook)).get("cells", [])
             if c.get("cell_type") == "code" and "parameters" in (c.get("metadata", {}).get("tags") or [])]
    if not cells:
        return []
    src = cells[0].get("source", "")
    src = "".join(src) if isinstance(src, list) else src
    names = []
    for node in ast.parse(src).body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) else []
        names += [t.id for t in targets if isinstance(t, ast.Name)]
    return names


def papermill_names(options) -> list[str]:
    """The parameter names papermill options set (``-p/--parameters NAME VALUE``, ``-r/--parameters_raw
    NAME VALUE``); ``-y``/``-f`` (YAML) are not looked into."""
    names, opts = [], list(options)
    for i, o in enumerate(opts):
        if o in ("-p", "--parameters", "-r", "--parameters_raw") and i + 1 < len(opts):
            names.append(opts[i + 1])
    return names


def _writable_folder(path: Path) -> str | None:
    """None when ``path`` is (or can be made) a folder this process can write into, else why not."""
    import tempfile

    if path.exists() and not path.is_dir():
        return "is a file, not a folder"
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=path, prefix=".write-probe-")
        import os

        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        return f"cannot be written ({exc.strerror or exc})"
    return None


def preflight(out_root, notebooks, options) -> list[str]:
    """What is wrong before any notebook runs: output folders and unknown parameters (one line each)."""
    problems = []
    for nb in notebooks:
        name = _ipynb(nb).stem
        why = _writable_folder(Path(out_root) / name)
        if why:
            problems.append(f"output folder (parameter 'out') {Path(out_root) / name} {why}")
        known = parameters(nb)
        for n in papermill_names(options):
            if n not in known:
                problems.append(f"unknown parameter {n!r} for {_ipynb(nb)}; its parameters: {', '.join(known)}")
    return problems


def unpair(paths) -> None:
    """Remove the ``jupytext`` notebook metadata from executed copies (rewritten in place)."""
    for path in map(Path, paths):
        nb = _read(path)
        if nb.get("metadata", {}).pop("jupytext", None) is not None:
            path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _fmt_seconds(s) -> str:
    if s is None:
        return "-"
    s = round(float(s))  # whole seconds first, so 179.6 s reads "3 min 00 s", not "2 min 60 s"
    if s < 60:
        return f"{s:.0f} s"
    if s < 3600:
        return f"{int(s // 60)} min {s % 60:02.0f} s"
    return f"{int(s // 3600)} h {int(s % 3600 // 60):02d} min"


def _duration(meta: dict):
    pm = meta.get("papermill", {})
    if pm.get("duration") is not None:
        return float(pm["duration"])
    try:
        return (datetime.fromisoformat(pm["end_time"]) - datetime.fromisoformat(pm["start_time"])).total_seconds()
    except (KeyError, TypeError, ValueError):
        return None


def times_table(out_root, notebooks) -> str:
    """Markdown table: each notebook's mode, code cells, slowest cell and wall time (papermill's)."""
    rows = ["| notebook | mode | code cells | slowest cell | wall time | finished |",
            "|---|---|---|---|---|---|"]
    total = 0.0
    for nb in notebooks:
        name = _ipynb(nb).stem
        executed = Path(out_root) / name / f"{name}.ipynb"
        if not executed.exists():
            rows.append(f"| {name} | - | - | - | not run | - |")
            continue
        doc = _read(executed)
        meta = doc.get("metadata", {})
        params = meta.get("papermill", {}).get("parameters", {})
        code = [c for c in doc.get("cells", []) if c.get("cell_type") == "code"]
        cell_times = [c.get("metadata", {}).get("papermill", {}).get("duration") for c in code]
        cell_times = [t for t in cell_times if t is not None]
        wall = _duration(meta)
        total += wall or 0.0
        end = meta.get("papermill", {}).get("end_time") or "-"
        rows.append(f"| {name} | {params.get('mode', '-')} | {len(code)} | "
                    f"{_fmt_seconds(max(cell_times)) if cell_times else '-'} | {_fmt_seconds(wall)} | "
                    f"{str(end)[:19]} |")
    rows.append(f"| **total** | | | | **{_fmt_seconds(total)}** | |")
    return "\n".join(rows)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] not in ("datasets", "unpair", "times", "params", "preflight"):
        raise SystemExit(__doc__)
    cmd, args = argv[0], argv[1:]
    if cmd == "datasets":
        print(" ".join(datasets(args)))
    elif cmd == "unpair":
        unpair(args)
    elif cmd == "params":
        for nb in args:
            print(" ".join(parameters(nb)))
    elif cmd == "preflight":
        if not args:
            raise SystemExit("usage: python tools/nbtools.py preflight OUT_ROOT NOTEBOOK ... [-- OPTIONS]")
        rest, options = (args[:args.index("--")], args[args.index("--") + 1:]) if "--" in args else (args, [])
        problems = preflight(Path(rest[0]), rest[1:], options)
        for p in problems:
            print(f"error: {p}", file=sys.stderr)
        return 2 if problems else 0
    else:
        if not args:
            raise SystemExit("usage: python tools/nbtools.py times OUT_ROOT NOTEBOOK ...")
        out_root, notebooks = Path(args[0]), args[1:]
        table = times_table(out_root, notebooks)
        out_root.mkdir(parents=True, exist_ok=True)
        (out_root / "TIMES.md").write_text(
            "# Notebook wall times\n\nWritten by `make` after papermill ran the notebooks "
            f"(`tools/nbtools.py times`); {len(notebooks)} notebook(s), {out_root}/.\n\n{table}\n",
            encoding="utf-8")
        print(table)
        print(f"(written to {out_root / 'TIMES.md'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
