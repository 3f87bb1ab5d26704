"""The arena's neural runs on the classification bandits, standardised rows against FN-UCB's unit-norm rows.

    python tools/arena_divergence.py            # about 2 minutes on one core

Runs every synchronous FN-UCB and NeuralUCB run of the arena's full mode on MAGIC and shuttle (tuning runs and
tested runs, the same configurations and seeds) with T = 30, since the committed full-mode runs diverged at
t = 2 to 4, once on the official code's standardised rows (the rows of an earlier full-mode run, 17 of whose runs
failed: 12 tuning, 5 tested) and once on the unit-norm rows the arena uses now, and prints each failed run and the
count per stage. Measured: on standardised rows 12 of 24 tuning runs and 5 of 50 tested runs fail (that earlier
run's failures exactly), on unit-norm rows none of the 74; the full-mode run on unit-norm rows has no failed run
(figures/arena/NOTE.md).
"""
from __future__ import annotations

from bandits.experiments import arena as A


def main() -> None:
    base = A.env_spec
    for standardize in (True, False):
        rows = "standardised" if standardize else "unit-norm"

        def spec(env, p, _s=standardize):
            d = base(env, p)
            return dict(d, standardize=_s) if env in ("magic", "shuttle") else d

        A.env_spec = spec
        try:
            p = A.arena_params("full", envs=["magic", "shuttle"], protocols=["sync"],
                               sync_methods=["FN-UCB", "NeuralUCB"], T_sync=30)
            for stage in ("tune", "test"):
                tasks, labels = A.arena_tasks(p, stage)
                failed = 0
                for (cfg, rep), lab in zip(tasks, labels):
                    why = A.arena_cell(cfg, 0, rep)["meta"].get("failed")
                    if why:
                        failed += 1
                        print(f"failed ({rows} rows): {stage} {lab['env']} {lab['method']} value {lab['value']:g} "
                              f"g {lab['explore']:g} rep {rep}: {str(why)[:70]}", flush=True)
                print(f"{rows} rows, {stage}: {failed} of {len(tasks)} runs failed", flush=True)
        finally:
            A.env_spec = base


if __name__ == "__main__":
    main()
