"""Small helpers the Makefile calls around the notebooks (standard library and bandits.runtimes only, no kernel).

Usage::

    python tools/nbtools.py datasets NOTEBOOK ...        # the datasets they declare, one line, space-separated
    python tools/nbtools.py unpair EXECUTED.ipynb ...    # drop the jupytext pairing from executed copies
    python tools/nbtools.py times OUT_ROOT [--workers N] # every OUT_ROOT/<name>/ folder: its runs' own
                                                         # recorded times, summed, printed and written
                                                         # to OUT_ROOT/TIMES.md
    python tools/nbtools.py params NOTEBOOK              # the names its parameters cell assigns
    python tools/nbtools.py preflight OUT_ROOT NOTEBOOK ... [-- PAPERMILL_OPTIONS]
                                                         # before any run: every OUT_ROOT/<name> a
                                                         # writable folder, every -p/-r NAME known to
                                                         # every notebook; exit 2 naming what is wrong

A notebook's datasets are ``metadata["bandits"]["datasets"]`` (kept in the ``.py`` header by
jupytext); a NOTEBOOK argument may name either file of a pair (``notebooks/X.py`` or ``.ipynb``).
Executed copies (papermill's output under figures/ or results/) keep the source's jupytext metadata;
``unpair`` removes it so that opening one in JupyterLab never writes a ``.py`` beside it.
``times`` reads each run's own recorded time (the ``cpu_time`` column of the run tables, the CSV files
directly in ``OUT_ROOT/<name>/``: the CPU seconds of the process that ran it; rows recorded before the
runner recorded CPU time: their ``wall_time``), so that restarts over a cache, runs found in the cache
and other jobs on the machine do not distort it (a row timed by the wall clock is distorted by a loaded machine); papermill's record of the executed notebook
(``metadata.papermill``) is shown beside it, labelled, and used only where a notebook records no
per-run time. Every folder under OUT_ROOT is read, whichever notebooks the last ``make`` ran.
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


def _small_png(b64: str) -> str:
    """A PNG output re-encoded with a 256-colour palette when that is smaller (matplotlib's line plots use a
    few colours, so the picture is the same to the eye); the figure files beside the notebook keep full colour."""
    import base64
    import io

    from PIL import Image

    raw = base64.b64decode(b64)
    img = Image.open(io.BytesIO(raw)).convert("RGB").quantize(256)
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=True)
    return base64.b64encode(out.getvalue()).decode() + "\n" if out.tell() < len(raw) else b64


def unpair(paths) -> None:
    """Executed copies, rewritten in place: the ``jupytext`` notebook metadata removed, and the embedded PNG
    outputs re-encoded with a palette where that is smaller (:func:`_small_png`), so that an executed notebook
    stays under the repository's 2 MB per file."""
    for path in map(Path, paths):
        nb = _read(path)
        changed = nb.get("metadata", {}).pop("jupytext", None) is not None
        for cell in nb.get("cells", []):
            for o in cell.get("outputs", []):
                data = o.get("data") or {}
                if "image/png" in data:
                    old = "".join(data["image/png"]) if isinstance(data["image/png"], list) else data["image/png"]
                    new = _small_png(old)
                    if new != old:
                        data["image/png"], changed = new, True
        if changed:
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


# The package's rule for a run's recorded time and identity (standard library only, so no numpy is imported).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bandits.runtimes import RUN_IDENTITY, row_seconds, run_key  # noqa: E402


#: Runs a committed folder holds that ``make figures`` does not run at the notebook's defaults: an opt-in
#: parameter's runs, recognised by a mark in their ``method`` label. They are counted apart (named in TIMES.md's
#: row, not in its total): folder → (parameter, its default, the mark).
OPT_IN_RUNS = {"coop_kernelucb": ("rank_cap_ablation", "None", "(rank ≤")}

#: Tables of means whose runs a notebook now writes one row each (with their times) beside them: folder →
#: [(the table of means, the per-run table)]. A folder written before holds the first without the second; its
#: runs ran but recorded no time, and TIMES.md's row says so (they are not in its sums).
UNTIMED_TABLES = {"async_kernelucb": [("D_sensitivity.csv", "D_sensitivity_runs.csv"),
                                      ("gamma_sensitivity.csv", "gamma_sensitivity_runs.csv")]}


def untimed_tables(folder) -> list[str]:
    """The tables of means in ``folder`` whose runs recorded no time (:data:`UNTIMED_TABLES`)."""
    folder = Path(folder)
    return [m for m, per_run in UNTIMED_TABLES.get(folder.name, []) if (folder / m).exists() and not (folder / per_run).exists()]


def run_times(folder) -> dict:
    """The runs a notebook's folder records: ``{"tables": [file names], "runs": n, "sum_s": s,
    "untimed_rows": rows of those tables with no time (failed runs), "repeated_rows": rows that
    repeat a run already counted, "wall_rows": rows timed by their wall clock (no ``cpu_time``: runs
    recorded before the runner recorded CPU time), "opt_in": (parameter, default, runs, s) or None}``.
    A run's time is its ``cpu_time`` (CPU seconds) where the row has one, else its ``wall_time``. Run tables are the CSV
    files directly in ``folder`` with a ``wall_time`` column (sub-folders hold kept earlier runs and are not
    read); runs of an opt-in parameter (:data:`OPT_IN_RUNS`) are counted in ``opt_in``, not in ``runs``."""
    import csv

    seen: dict[tuple, float] = {}
    opt: dict[tuple, float] = {}
    param, default, mark = OPT_IN_RUNS.get(Path(folder).name, (None, None, None))
    tables, untimed, rows, wall_rows = [], 0, 0, 0
    for path in sorted(Path(folder).glob("*.csv")):
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            if "wall_time" not in (reader.fieldnames or []):
                continue
            tables.append(path.name)
            for row in reader:
                w, by_wall = row_seconds(row)  # the run's CPU seconds where it recorded them, else its wall clock
                if w is None:
                    untimed += 1
                    continue
                wall_rows += by_wall
                rows += 1
                key = run_key(row)
                if mark is not None and mark in (row.get("method") or ""):
                    opt[key] = w
                else:
                    seen[key] = w
    return {"tables": tables, "runs": len(seen), "sum_s": float(sum(seen.values())),
            "untimed_rows": untimed, "repeated_rows": rows - len(seen) - len(opt), "wall_rows": wall_rows,
            "opt_in": (param, default, len(opt), float(sum(opt.values()))) if opt else None}


def sequential_time(folder) -> float:
    """The recorded seconds of the runs a folder's sequential step added (``sequential.json``'s ``cpu_s``:
    the added runs' own times; they are in the run cache, not in the folder's run tables); 0 without one."""
    path = Path(folder) / "sequential.json"
    if not path.exists():
        return 0.0
    return float(json.loads(path.read_text(encoding="utf-8")).get("cpu_s") or 0.0)


def papermill_record(executed) -> dict | None:
    """Papermill's record of an executed notebook: mode, wall time (its last start), end time."""
    executed = Path(executed)
    if not executed.exists():
        return None
    meta = _read(executed).get("metadata", {})
    pm = meta.get("papermill", {})
    return {"mode": pm.get("parameters", {}).get("mode"), "duration_s": _duration(meta),
            "end_time": str(pm.get("end_time") or "")[:19] or None}


def machine_of(folder) -> dict | None:
    """The machine a folder's runs were timed on: ``provenance.json``'s ``machine`` (its CPU and rates, measured
    as the notebook finished), or None for a folder written before the notebooks recorded it."""
    p = Path(folder) / "provenance.json"
    try:
        m = json.loads(p.read_text(encoding="utf-8")).get("machine") if p.exists() else None
    except (OSError, ValueError):
        return None
    return m if isinstance(m, dict) and m.get("cpu") else None


def machine_kind(m: dict) -> str:
    """``AMD EPYC (family 25, model 1, avx2, 2 cores)``: the record's ``kind``, written by
    ``bandits.bench.cpu_words`` (this file imports no numpy: of the package, only the standard-library module bandits.runtimes)."""
    return m.get("kind") or m["cpu"]


def machine_words(m: dict | None) -> str:
    """The column of TIMES.md: the machine's kind and its measured rates, or why there is none."""
    if m is None:
        return "not recorded (the folder predates the record)"
    r = m.get("rates", {})
    rates = ", ".join(f"{v} {u}" for k, u in (("gemm_small_gflops", "GFLOP/s small GEMM"),
                                               ("call_numpy_us", "µs a tiny network's step"))
                      if (v := r.get(k)) is not None)
    return machine_kind(m) + (f": {rates}" if rates else "")


def machines_paragraph(rows: list[dict]) -> str:
    """Which machine timed which folders; a total over several machines says that it adds their times."""
    if not rows:
        return "No folder holds runs yet."
    kinds: dict[str, list[str]] = {}
    unknown = []
    for r in rows:
        m = r.get("machine")
        (kinds.setdefault(machine_kind(m), []) if m else unknown).append(r["notebook"])
    parts = [f"{k}: {', '.join(v)}" for k, v in kinds.items()]
    if unknown:
        parts.append(f"not recorded (folders written before the notebooks recorded their machine in "
                     f"provenance.json): {', '.join(unknown)}")
    text = "Machines the runs were timed on (provenance.json's `machine`, the rates measured as the notebook " \
           "finished): " + "; ".join(parts) + "."
    if len(kinds) + bool(unknown) > 1:
        text += (" The same run takes different times on different machines (two processors of one name among "
                 "them), so the total adds times of machines that need not be alike; compare a notebook's times "
                 "with another's only where one machine timed both.")
    return text


def times_rows(out_root, workers: int = 2) -> list[dict]:
    """One entry per folder under ``out_root`` that holds an executed notebook or a run table."""
    rows = []
    for folder in sorted(p for p in Path(out_root).iterdir() if p.is_dir()):
        name = folder.name
        rt = run_times(folder)
        rt["sequential_s"] = sequential_time(folder)
        pm = papermill_record(folder / f"{name}.ipynb")
        if pm is None and not rt["tables"]:
            continue
        if rt["runs"]:
            est, basis = (rt["sum_s"] + rt["sequential_s"]) / workers, "runs"
        elif pm is not None and pm["duration_s"] is not None:
            est, basis = pm["duration_s"] + rt["sequential_s"] / workers, "papermill"
        else:
            est, basis = None, "none"
        rows.append({"notebook": name, **rt, "untimed_tables": untimed_tables(folder), "papermill": pm,
                     "estimate_s": est, "basis": basis, "machine": machine_of(folder)})
    return rows


def times_table(out_root, workers: int = 2) -> str:
    """Markdown table of :func:`times_rows`, the total on ``workers`` cores in its last line, after the paragraph
    of the machines that timed the folders (:func:`machines_paragraph`)."""
    rows = times_rows(out_root, workers)
    out = [machines_paragraph(rows), "",
           f"| notebook | runs | sum of the runs' times | on {workers} cores | from | papermill (last start) | "
           "timed on |", "|---|---|---|---|---|---|---|"]
    total, fallback = 0.0, []
    for r in rows:
        pm = r["papermill"]
        pm_txt = "no executed notebook" if pm is None else \
            f"{_fmt_seconds(pm['duration_s'])}, {pm['mode'] or '-'} mode, ended {pm['end_time'] or '-'}"
        if r["basis"] == "runs":
            extra = []
            if r["repeated_rows"]:
                extra.append(f"{r['repeated_rows']} rows repeat a counted run")
            if r["untimed_rows"]:
                extra.append(f"{r['untimed_rows']} rows without a time")
            if r.get("wall_rows"):
                timed = r["runs"] + r["repeated_rows"] + (r["opt_in"][2] if r.get("opt_in") else 0)
                which = "every row" if r["wall_rows"] >= timed else f"{r['wall_rows']} rows"
                extra.append(f"{which} timed by the wall clock (recorded before the runner recorded CPU time)")
            if r["sequential_s"]:
                extra.append(f"and the sequential step's added runs, {r['sequential_s']:.0f} s (sequential.json)")
            if r.get("untimed_tables"):
                extra.append(f"not counted: the runs behind {', '.join(r['untimed_tables'])}, which recorded no time "
                             "(the folder predates their per-run tables)")
            if r.get("opt_in"):
                par, dflt, n_opt, s_opt = r["opt_in"]
                extra.append(f"not counted: {n_opt} runs of the opt-in `{par}` ({s_opt:.0f} s), "
                             f"which `make figures` does not run (default {dflt})")
            src = ", ".join(r["tables"]) + (f" ({'; '.join(extra)})" if extra else "")
            tot = r["sum_s"] + r["sequential_s"]
            cells = [str(r["runs"]), f"{_fmt_seconds(tot)} ({tot:.0f} s)",
                     f"{_fmt_seconds(r['estimate_s'])}", src]
        else:
            why = "no per-run times recorded" + (": papermill's wall time instead" if r["basis"] == "papermill" else "")
            if r["sequential_s"]:
                why += f"; and the sequential step's added runs, {r['sequential_s']:.0f} s (sequential.json)"
            cells = ["-", "-", "-" if r["estimate_s"] is None else f"{_fmt_seconds(r['estimate_s'])} (papermill)", why]
            fallback.append(r["notebook"])
        total += r["estimate_s"] or 0.0
        out.append(f"| {r['notebook']} | " + " | ".join(cells) + f" | {pm_txt} | {machine_words(r['machine'])} |")
    note = f" ({', '.join(fallback)}: papermill's wall time)" if fallback else ""
    steps = sum(r["sequential_s"] for r in rows if r["estimate_s"] is not None) / workers
    if steps:  # the runs the notebooks make at their defaults, without what the sequential steps added
        note += (f"; without the sequential steps' added runs {_fmt_seconds(total - steps)} "
                 f"({total - steps:.0f} s)")
    out.append(f"| **total `make figures` on {workers} cores** | {sum(r['runs'] for r in rows)} | "
               f"{_fmt_seconds(sum(r['sum_s'] + r['sequential_s'] for r in rows))} | **{_fmt_seconds(total)}** ({total:.0f} s){note} | | | |")
    return "\n".join(out)


TIMES_HEADER = """# Time per notebook, from the runs' own recorded times

Generated by `python tools/nbtools.py times {root}` (run by `make figures` and `make quick` after the
notebooks; never edited by hand) from every folder under {root}/, whichever notebooks the last `make` ran.
For each notebook: the runs its run tables record (the CSV files in its folder with a `wall_time` column;
rows that agree on {ident} are one run, shown in two figures or at several steps, counted once) and the
runs a sequential step added (their recorded seconds, from the folder's sequential.json), the sum
of their times, and that sum over {workers} workers: the time the notebook takes on {workers} cores, each
run timed by itself, so that restarts over the run cache and runs found in the cache do not distort it.
A run's time is its CPU time (`cpu_time`: the seconds of the process that ran it, which other jobs on the
machine inflate far less than the wall clock, though they do: shared caches and memory); rows recorded before the runner recorded CPU time have only their wall clock
(`wall_time`, inflated when the machine was loaded), and the row says how many. The notebook's work outside the runs (plots, claims, runs that record no time)
is not in it; a row names the tables whose runs ran without recording a time. Where a notebook records no per-run times, papermill's wall time of its last start stands
in, labelled; papermill's record is shown for every notebook (a start that found runs in the cache took
less than its runs, a loaded machine more). Runs of an opt-in parameter that a committed folder holds but
`make figures` does not run at the notebook's defaults are named in its row and left out of the sums. The
last line is the total and, beside it, the total without the runs the sequential steps added (the notebooks'
own runs at their defaults). The last column names the machine that timed each folder's runs and its rates,
measured as the notebook finished (provenance.json's `machine`): the same run takes different CPU times on
different machines, so a total over folders timed on different machines adds unlike times, and says so.

"""


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
        workers = 2
        if "--workers" in args:
            k = args.index("--workers")
            workers = int(args[k + 1])
            args = args[:k] + args[k + 2:]
        if len(args) != 1 or args[0].startswith("-"):
            raise SystemExit("usage: python tools/nbtools.py times OUT_ROOT [--workers N]")
        out_root = Path(args[0])
        out_root.mkdir(parents=True, exist_ok=True)
        table = times_table(out_root, workers)
        (out_root / "TIMES.md").write_text(
            TIMES_HEADER.format(root=str(out_root).rstrip("/"), workers=workers,
                                ident=", ".join(f"`{c}`" for c in RUN_IDENTITY)) + table + "\n", encoding="utf-8")
        print(table)
        print(f"(written to {out_root / 'TIMES.md'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
