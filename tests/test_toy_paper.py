"""The "Adding a paper" guide (docs/adding_a_paper.md), followed for a toy paper (tests/toy_paper/): the
algorithm passes the conformance checks once registered, its experiment runs end to end through the one
run recipe, its claims carry their kinds and verdicts, and its claims and figure live apart from its runs."""
from __future__ import annotations

import numpy as np
import pytest

from bandits.algorithms import ALGORITHMS
from bandits.experiments.claims import claims_table

import test_conformance as conformance
from toy_paper import PAPER_TEXT
from toy_paper import experiment as toy
from toy_paper import experiment_claims as toy_claims
from toy_paper import experiment_plots as toy_plots
from toy_paper.algorithm import ToyFedGreedy


def test_the_toy_algorithm_conforms_once_registered(monkeypatch):
    monkeypatch.setitem(ALGORITHMS, ToyFedGreedy.name, ToyFedGreedy)
    conformance.test_regret_policy_conforms(ToyFedGreedy.name)


def test_the_toy_experiment_end_to_end(tmp_path):
    p = toy.toy_params("quick")
    with pytest.raises(ValueError, match=r"parameter 'overrides' must be a dict with keys from .*unknown keys \['horizon'\]; the toy parameters"):
        toy.toy_params("quick", horizon=3)
    runs = toy.run_toy(p, seed=0, cache_dir=str(tmp_path / "cache"))
    assert len(runs) == 2 * p["n_runs"] and np.isfinite(runs.R_T).all()
    again = toy.run_toy(p, seed=0, cache_dir=str(tmp_path / "cache"))  # from the cache: the same numbers
    assert runs.equals(again)
    claims = toy_claims.toy_claims(runs, p)
    by_id = {c.id: c for c in claims}
    assert by_id["toy-ledger"].verdict == "PASS" and by_id["toy-ledger"].kind == "implementation"
    assert by_id["toy-sharing-pays"].kind == "paper" and by_id["toy-sharing-pays"].verdict in ("PASS", "INCONCLUSIVE")
    for c in claims:  # verbatim quotes are the toy paper's words
        assert c.quote != "verbatim" or c.claim in PAPER_TEXT
    text = claims_table(claims)
    assert "(implementation check)" in text and text.splitlines()[-1].startswith("paper claims:")
    assert toy_plots.plot_toy(runs) is not None


def test_the_toy_run_module_imports_neither_its_claims_nor_its_plots():
    """As in the package (docs/adding_a_paper.md §4): the run module never imports claims or plots code (the
    run cache's key leaves that out; the claims and plots modules may import the run module)."""
    import ast
    from pathlib import Path

    def imported(name):
        tree = ast.parse((Path(toy.__file__).parent / f"{name}.py").read_text())
        return {("." * n.level) + (n.module or "") for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | \
            {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}

    run = imported("experiment")
    assert not any(m.endswith(("claims", "plots", "plotting", "notebook")) for m in run), run
