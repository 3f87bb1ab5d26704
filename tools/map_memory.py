"""Peak resident memory of one run of the arena's map, measured, beside its estimate (bandits.memory).

    python tools/map_memory.py shuttle --method Approx-DisKernelUCB --value 10 --N 1000

runs repetition 0 of that map cell (full-mode sizes, explore 1) in this process and prints one JSON line: the
estimate (:func:`bandits.memory.run_memory_bytes`, an upper bound in the dictionary size), the process's peak
resident memory (``ru_maxrss``, the interpreter and imports included), the dictionary size reached and the
number of syncs. docs/running.md quotes its output for the map's largest Approx-DisKernelUCB runs.
"""
from __future__ import annotations

import argparse
import json
import resource
import time


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("env")
    ap.add_argument("--method", default="Approx-DisKernelUCB")
    ap.add_argument("--value", type=float, default=10.0, help="the method's communication knob (D)")
    ap.add_argument("--N", type=int, default=1000)
    a = ap.parse_args(argv)

    from bandits import memory
    from bandits.experiments import arena as A

    tasks, labels = A.map_tasks(A.map_params("full"))
    sel = [(t, lab) for t, lab in zip(tasks, labels) if lab["method"] == a.method and lab["value"] == a.value
           and lab["N"] == a.N and lab["env"] == a.env and lab["rep"] == 0]
    if not sel:
        raise SystemExit(f"no map cell {a.method} {a.value:g} at N = {a.N} on {a.env} (see bandits.experiments.arena)")
    (cfg, rep), lab = sel[0]
    est = memory.run_memory_bytes(cfg)
    t0 = time.perf_counter()
    res = A.arena_cell(cfg, 0, rep)
    wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({"env": a.env, "method": a.method, "value": a.value, "N": a.N, "T": lab["T"],
                      "estimate_GiB": round(est / 2**30, 3), "peak_rss_GiB": round(peak / 2**30, 3),
                      "wall_s": round(wall, 1), "m": res["meta"].get("m"), "exchanges": res["meta"].get("exchanges"),
                      "failed": res["meta"].get("failed")}))


if __name__ == "__main__":
    main()
