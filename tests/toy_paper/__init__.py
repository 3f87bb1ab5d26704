"""A toy "paper" added by following docs/adding_a_paper.md step by step: it shows that the guide is complete.

The paper (made up, its text in :data:`PAPER_TEXT`): federated ε-greedy on a shared finite arm set, whose
agents pool their per-arm statistics every ``period`` steps. It has the guide's parts: an algorithm
(:mod:`.algorithm`, a :class:`bandits.sim.Policy` that charges the ledger), an experiment module
(:mod:`.experiment`, with ``toy_params``, ``run_toy``, ``toy_claims``, ``plot_toy``) whose runs go through
the one run recipe, and claims of both kinds. ``tests/test_toy_paper.py`` registers the algorithm, runs the
conformance checks over it, and runs the experiment end to end in quick mode.
"""

PAPER_TEXT = ("Sharing pays. Agents that pool their arm statistics every step reach a lower regret than agents "
              "that never communicate, at a communication cost of two scalars per arm per agent and step.")
