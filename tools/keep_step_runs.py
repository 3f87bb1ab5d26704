"""Keep a committed sequential step's added runs in its folder, from the run cache, without running anything.

    python tools/keep_step_runs.py async_kernelucb --fingerprint 33520b015d11e498
    python tools/keep_step_runs.py NAME --check        # only the check below, on what the folder keeps

The step (`bandits.sequential.decide`) now keeps each look's runs in `figures/<name>/sequential_runs/` as the look
ends. A folder stepped before it did holds only `sequential.json`; its added runs live in the run cache, under the
code fingerprint of the code that ran them (the cache key holds it). For each look `sequential.json` records (its
cells, its run indices, its recorded seconds), this tool rebuilds the look's tasks with the folder's hooks, reads
every result from the cache (under the current fingerprint or one named with `--fingerprint`, tried in order),
turns them into the hooks' rows (`rows_of`) and keeps them as the step would have. `sequential.json` and
`claims.json` are not touched. A look whose results are not all in the cache stops the tool, naming how many are
missing: nothing is computed.

Then (and with `--check` alone) every claim `sequential.json` judged last at a look after the first is built again
from the folder's files (`bandits.sequential.stored_state` up to its look, at its look's level) and compared with
the recorded verdict and effect; a difference is printed and the exit status is 1.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import bandits.runner as R  # noqa: E402
from bandits import sequential as S  # noqa: E402


def _load(cache, cfg, seed, rep, fn, fingerprints):
    for fp in fingerprints:
        orig = R.code_fingerprint
        R.code_fingerprint = (lambda f=fp: f) if fp else orig
        try:
            key = R.run_key(cfg, seed, rep, fn)
        finally:
            R.code_fingerprint = orig
        res = cache.load(key)
        if res is not None:
            return res
    return None


def keep(name: str, folder: Path, fingerprints: list, cache_dir: Path) -> int:
    exp = S.hooks_for(name)
    if not (hasattr(exp, "rows_of") and hasattr(exp, "add_rows")):
        raise SystemExit(f"{name}: its hooks keep no rows (no rows_of/add_rows)")
    sj = json.loads((folder / "sequential.json").read_text())
    state = exp.load(folder)
    cache = R.Cache(cache_dir)
    n = 0
    for st in sj["stages"]:
        if "refused" in st:
            continue
        cells = sorted({c for cid in st["claims"] for c in exp.claim_cells(cid, state)}, key=repr)
        if [repr(c) for c in cells] != st["cells"]:
            raise SystemExit(f"{name} look {st['look']}: the hooks give other cells than sequential.json records")
        tasks = exp.tasks(cells, st["reps"], state)
        results = [_load(cache, cfg, exp.seed(state), rep, exp.fn, fingerprints) for cfg, rep in tasks]
        missing = sum(r is None for r in results)
        if missing:
            raise SystemExit(f"{name} look {st['look']}: {missing} of {len(tasks)} results are not in {cache_dir} under "
                             f"the fingerprints {fingerprints}; nothing kept from this look on")
        rows = exp.rows_of(state, tasks, results)
        state = exp.add_rows(state, rows)
        S._store_rows(folder, int(st["look"]), st["cells"], st["reps"], rows, float(st.get("recorded_s", 0.0)),
                      int(st.get("failed", 0) or 0))
        n += len(tasks)
        print(f"{name} look {st['look']}: {len(tasks)} runs kept")
    return n


def check_folder(name: str, folder: Path) -> list[str]:
    """The claims sequential.json decided after look 1, built again from the folder's files: the differences."""
    exp = S.hooks_for(name)
    sj = json.loads((folder / "sequential.json").read_text())
    bad = []
    by_look = {}
    for cid, r in sj["claims"].items():
        if int(r["look"]) > 1 and not r.get("stopped"):
            by_look.setdefault(int(r["look"]), []).append((cid, r))
    for look, items in sorted(by_look.items()):
        state = S.stored_state(exp, folder, upto_look=look)
        built = {c.id: c for c in exp.claims(state, items[0][1]["level"])}
        for cid, r in items:
            c = built.get(cid)
            eff = getattr(c, "effect", None)
            same_effect = (eff is not None and r.get("effect") is not None
                           and abs(float(eff) - float(r["effect"])) <= 1e-9 * max(1.0, abs(float(r["effect"]))))
            # WITHIN is the step's own stop (a margin); the claim itself then reads INCONCLUSIVE
            same_verdict = c is not None and c.verdict == ("INCONCLUSIVE" if r["verdict"] == "WITHIN" else r["verdict"])
            if not (same_verdict and same_effect):
                bad.append(f"{cid}: recorded {r['verdict']} (effect {r.get('effect')}) at n = {r['decided_at_n']}, from "
                           f"the kept runs {getattr(c, 'verdict', None)} (effect {eff})")
    return bad


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="+")
    ap.add_argument("--fingerprint", action="append", default=[], help="a code fingerprint to try (repeatable; the "
                    "current one is tried first)")
    ap.add_argument("--figures", default=str(ROOT / "figures"))
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--check", action="store_true", help="only check what the folder keeps")
    a = ap.parse_args(argv)
    from bandits.experiments.notebook import default_cache_dir

    cache_dir = Path(a.cache_dir or default_cache_dir())
    status = 0
    for name in a.names:
        folder = Path(a.figures) / name
        if not a.check:
            keep(name, folder, [None] + a.fingerprint, cache_dir)
        bad = check_folder(name, folder)
        print(f"{name}: " + ("every claim judged after look 1 is rebuilt from the kept runs (verdict and effect)" if not bad else
                             "differences:\n  " + "\n  ".join(bad)))
        status |= bool(bad)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
