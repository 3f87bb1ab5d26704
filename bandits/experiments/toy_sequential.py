"""A tiny synthetic experiment with the hooks of the sequential step (:class:`bandits.sequential.SequentialExperiment`),
for the tests and as the smallest example of the hooks: arms with true means, runs through the run cache
(:func:`bandits.runner.sweep` with ``fn=toy_cell``), claims "arm A below arm B" by paired t, and one claim the rule
does not cover (a generic statistic, hull interval).

Left out of the run cache's fingerprint (``*_sequential.py``, :func:`bandits.runner.in_runs`).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

__all__ = ["toy_cell", "ToyExperiment"]


def toy_cell(config: dict, seed: int, rep: int) -> dict:
    """One run of the synthetic experiment (for tests and the docs): ``mu + shared + own`` noise, where the
    shared part comes from the run's environment stream (common to every arm under one ``rep``: the runs are
    paired as the package's are) and the own part from the algorithm's stream (its ``index``-th draw: one per arm)."""
    from ..runner import run_seeds

    env_ss, alg_ss = run_seeds(seed, rep)
    shared = np.random.default_rng(env_ss).standard_normal()
    own = np.random.default_rng(alg_ss).standard_normal(int(config["index"]) + 1)[-1]  # one stream per arm
    x = float(config["mu"]) + float(config.get("shared", 1.0)) * shared + float(config.get("sd", 1.0)) * own
    return {"arrays": {"x": np.array([x])}, "meta": {"wall_time": float(config.get("cost_s", 1.0))}}


@dataclass
class ToyExperiment:
    """A synthetic experiment with the hooks of :class:`SequentialExperiment`: arms with true means ``mus``,
    and claims "arm A below arm B" (paired), one per pair in ``pairs``, plus one claim the rule does not cover
    (a generic statistic). ``make_folder`` writes a committed folder (runs.csv, provenance.json,
    claims.json) of ``n0`` runs through the run cache."""

    mus: dict = field(default_factory=lambda: {"A": 0.0, "B": 1.5, "C": 0.0, "D": -1.5})
    pairs: tuple = (("A", "B"), ("A", "C"), ("A", "D"))
    sd: float = 0.5
    cost_s_per_run: float = 1.0
    margins: dict = field(default_factory=dict)
    name: str = "toy"
    fn: object = toy_cell

    def config(self, arm):
        return {"toy": arm, "index": sorted(self.mus).index(arm), "mu": self.mus[arm], "sd": self.sd, "shared": 1.0, "cost_s": self.cost_s_per_run}

    def claim_id(self, a, b):
        return f"toy-{a}-below-{b}"

    # hooks
    def load(self, folder):
        import pandas as pd

        p = json.loads((Path(folder) / "provenance.json").read_text())["parameters"]
        return {"runs": pd.read_csv(Path(folder) / "runs.csv"), "seed": int(p["seed"]), "n_runs": int(p["n_runs"])}

    def n_runs(self, state):
        return int(state["runs"].groupby("arm").rep.nunique().min())

    def seed(self, state):
        return state["seed"]

    def claims(self, state, level):
        from ..claims import compare_paired, compare_statistic
        from .claims import Claim

        r = state["runs"]
        out = []
        for a, b in self.pairs:
            x = r[r.arm == a].sort_values("rep")
            y = r[r.arm == b].sort_values("rep")
            c = compare_paired(x.x.to_numpy(), y.x.to_numpy(), "<", label=f"{a} − {b}", level=level,
                               reps_a=x.rep.to_numpy(), reps_b=y.rep.to_numpy())
            out.append(Claim.from_result(self.claim_id(a, b), f"{a} below {b}", "paired t", c))
        xa = r[r.arm == "A"].sort_values("rep").x.to_numpy()
        c = compare_statistic({"x": xa}, lambda s: np.median(s["x"], axis=-1), "<", 1.0, label="median A",
                              level=level, n_boot=200)
        out.append(Claim.from_result("toy-median-A", "median of A below 1", "hull", c))
        return out

    def claim_cells(self, claim_id, state):
        if claim_id == "toy-median-A":
            return ["A"]
        a, b = claim_id[len("toy-"):].split("-below-")
        return [a, b]

    def new_reps(self, state, n):
        have = int(state["runs"].rep.max()) + 1
        return list(range(have, have + n - self.n_runs(state)))

    def tasks(self, cells, reps, state):
        return [(self.config(c), r) for c in cells for r in reps]

    def rows_of(self, state, tasks, results):
        import pandas as pd

        rows = [{"arm": cfg["toy"], "rep": rep, "x": float(res["arrays"]["x"][0]),
                 "wall_time": res["meta"]["wall_time"]} for (cfg, rep), res in zip(tasks, results)]
        return {"runs": pd.DataFrame(rows, columns=["arm", "rep", "x", "wall_time"])}

    def add_rows(self, state, tables):
        import pandas as pd

        return dict(state, runs=pd.concat([state["runs"], tables["runs"]], ignore_index=True))

    def add_results(self, state, tasks, results):
        return self.add_rows(state, self.rows_of(state, tasks, results))

    def cost_s(self, cell, state):
        r = state["runs"]
        return float(r[r.arm == cell].wall_time.mean())

    def make_folder(self, folder, n0: int = 3, seed: int = 0, cache_dir=None) -> Path:
        """A committed folder of ``n0`` runs per arm (computed through :func:`bandits.runner.sweep`)."""
        import pandas as pd

        from .claims import write_claims
        from ..runner import sweep

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        arms = sorted({a for p in self.pairs for a in p} | {"A"})
        tasks = [(self.config(a), r) for a in arms for r in range(n0)]
        res, _ = sweep(tasks, seed, n_jobs=1, backend="serial", cache_dir=cache_dir, progress=False, fn=toy_cell)
        state = self.add_results({"runs": pd.DataFrame(columns=["arm", "rep", "x", "wall_time"])}, tasks, res)
        state["runs"].to_csv(folder / "runs.csv", index=False)
        (folder / "provenance.json").write_text(json.dumps({"parameters": {"seed": seed, "n_runs": n0}}))
        write_claims(self.claims(state, 0.95), folder, extra={"mode": "full"})
        return folder
