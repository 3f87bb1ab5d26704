"""The toy paper's claims (docs/adding_a_paper.md §4): one claim of the paper, one check of the implementation,
decided on the runs of :mod:`toy_paper.experiment`. In the package this module would be
``bandits/experiments/<name>_claims.py``, which the run cache's code fingerprint leaves out.
"""
from __future__ import annotations

import pandas as pd

from bandits.claims import compare_paired
from bandits.experiments.claims import Claim


def toy_claims(runs: pd.DataFrame, p: dict, method=None) -> list[Claim]:
    """The toy paper's two statements: one claim of the paper, one check of the implementation."""
    shared = runs[runs.period == 1].sort_values("rep")
    alone = runs[runs.period == 0].sort_values("rep")
    regret = compare_paired(shared.R_T.to_numpy(), alone.R_T.to_numpy(), "<", 0.0, label="R(T) shared − alone",
                            method=method)
    expected = 4.0 * p["M"] * p["N"] * p["T"]  # 2K up and 2K down per agent and step
    cost = float(shared.C.iloc[0])
    return [
        Claim.from_result("toy-sharing-pays", "Agents that pool their arm statistics every step reach a lower "
                          "regret than agents that never communicate", "paired R(T) shared − never shared < 0",
                          regret, kind="paper", quote="verbatim", source="the toy paper",
                          cause="paper", cause_note="the toy paper's statement"),
        Claim("toy-ledger", "a communication cost of two scalars per arm per agent and step",
              "ledger total = 4 K N T (2K up, 2K down per agent and step)", f"{cost:g} vs {expected:g}",
              verdict="PASS" if cost == expected else "FAIL", kind="implementation", quote="verbatim",
              source="the toy paper"),
    ]
