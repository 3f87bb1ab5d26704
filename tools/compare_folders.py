"""Compare a re-run figures folder with the committed one before replacing it.

    python tools/compare_folders.py NEW OLD

Every CSV of OLD (its top level and ``sequential_runs/``) must be in NEW with the same rows and, in every column
OLD has except the run times (``wall_time``, ``cpu_time``), the same values exactly; NEW may add columns. Every
claim of OLD's ``claims.json`` must be in NEW's with the same verdict, effect, interval and note. Where OLD has a
``sequential.json``, NEW's must take the same looks (cells, run indices, refused or not) and reach the same verdicts
at the same run counts. Prints one line per check and ``ALL SAME`` or ``DIFFERS``; exits 0 only when all agree.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

TIMES = ("wall_time", "cpu_time")
CLAIM_KEYS = ("verdict", "effect", "lo", "hi", "note")


def compare_tables(new: Path, old: Path) -> list[tuple[str, bool, str]]:
    """``(file, same, words)`` for every CSV of ``old`` (top level and ``sequential_runs/``)."""
    import pandas as pd

    out = []
    for f in sorted(list(old.glob("*.csv")) + list(old.glob("sequential_runs/*.csv"))):
        rel = f.relative_to(old)
        if not (new / rel).exists():
            out.append((str(rel), False, "missing in the re-run"))
            continue
        a, b = pd.read_csv(new / rel), pd.read_csv(f)
        gone = [c for c in b.columns if c not in a.columns]
        if len(a) != len(b) or gone:
            out.append((str(rel), False, f"rows {len(a)} vs {len(b)}; columns missing: {gone}"))
            continue
        cols = [c for c in b.columns if c not in TIMES]
        try:
            pd.testing.assert_frame_equal(a[cols], b[cols], check_exact=True, check_dtype=False)
        except AssertionError as e:
            out.append((str(rel), False, str(e).replace("\n", " ")[:300]))
            continue
        added = [c for c in a.columns if c not in b.columns]
        out.append((str(rel), True, "identical" + (f"; new columns {added}" if added else "")))
    return out


def compare_claims(new: Path, old: Path) -> tuple[bool, str]:
    if not (old / "claims.json").exists():
        return True, "no claims.json"
    ca = {c["id"]: c for c in json.loads((new / "claims.json").read_text())["claims"]}
    cb = {c["id"]: c for c in json.loads((old / "claims.json").read_text())["claims"]}
    dif = [k for k in cb if k not in ca or any(ca[k].get(x) != cb[k].get(x) for x in CLAIM_KEYS)]
    return not dif, f"{len(cb)} claims, differing: {dif}"


def compare_steps(new: Path, old: Path) -> tuple[bool, str]:
    if not (old / "sequential.json").exists():
        return True, "no sequential step"
    sa, sb = (json.loads((d / "sequential.json").read_text()) for d in (new, old))

    def looks(s):
        return [(x["look"], x["n"], x["cells"], x["reps"], "refused" in x) for x in s["stages"]]

    def verdicts(s):
        return {k: (v["verdict"], v["decided_at_n"]) for k, v in s["claims"].items()}

    same_looks, same_v = looks(sa) == looks(sb), verdicts(sa) == verdicts(sb)
    return same_looks and same_v, f"looks same: {same_looks}; verdicts same: {same_v}"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print(__doc__)
        return 2
    new, old = Path(argv[0]), Path(argv[1])
    ok = True
    for rel, same, words in compare_tables(new, old):
        print(f"{rel}: {words}")
        ok &= same
    for what, (same, words) in (("claims", compare_claims(new, old)), ("sequential step", compare_steps(new, old))):
        print(f"{what}: {words}")
        ok &= same
    print("ALL SAME" if ok else "DIFFERS")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
