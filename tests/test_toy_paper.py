"""The "Adding a paper" guide (docs/adding_a_paper.md), followed for a toy paper (tests/toy_paper/): the
algorithm passes the conformance checks once registered, its experiment runs end to end through the one
run recipe, and its claims carry their kinds and verdicts (issue 22)."""
from __future__ import annotations

import numpy as np
import pytest

from bandits.algorithms import ALGORITHMS
from bandits.experiments.claims import claims_table

import test_conformance as conformance
from toy_paper import PAPER_TEXT
from toy_paper import experiment as toy
from toy_paper.algorithm import ToyFedGreedy


def test_the_toy_algorithm_conforms_once_registered(monkeypatch):
    monkeypatch.setitem(ALGORITHMS, ToyFedGreedy.name, ToyFedGreedy)
    conformance.test_regret_policy_conforms(ToyFedGreedy.name)


def test_the_toy_experiment_end_to_end(tmp_path):
    p = toy.toy_params("quick")
    with pytest.raises(ValueError, match="unknown toy parameters"):
        toy.toy_params("quick", horizon=3)
    runs = toy.run_toy(p, seed=0, cache_dir=str(tmp_path / "cache"))
    assert len(runs) == 2 * p["n_runs"] and np.isfinite(runs.R_T).all()
    again = toy.run_toy(p, seed=0, cache_dir=str(tmp_path / "cache"))  # from the cache: the same numbers
    assert runs.equals(again)
    claims = toy.toy_claims(runs, p)
    by_id = {c.id: c for c in claims}
    assert by_id["toy-ledger"].verdict == "PASS" and by_id["toy-ledger"].kind == "implementation"
    assert by_id["toy-sharing-pays"].kind == "paper" and by_id["toy-sharing-pays"].verdict in ("PASS", "INCONCLUSIVE")
    for c in claims:  # verbatim quotes are the toy paper's words
        assert c.quote != "verbatim" or c.claim in PAPER_TEXT
    text = claims_table(claims)
    assert "(implementation check)" in text and text.splitlines()[-1].startswith("paper claims:")
    assert toy.plot_toy(runs) is not None
