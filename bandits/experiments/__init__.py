"""Experiments (layer 9): per paper, each figure's quick and full parameters, its runs, claims and plots.

**The experiment protocol.** Every notebook ``notebooks/<name>.py`` has an experiment module here with four
kinds of function (docs/adding_a_paper.md §4), written down in :class:`Experiment` and registered in
:data:`EXPERIMENTS` (a test checks that every notebook has an entry and every entry resolves):

* ``params(mode, **overrides) -> dict``: the ``"quick"`` and ``"full"`` parameters
  (:func:`bandits.experiments.common.mode_params`; an unknown override is an error naming it);
* ``run(params, seed, n_jobs, backend, cache_dir, ...)``: the runs, through :func:`bandits.runner.sweep`
  and the one run recipe (:func:`bandits.runner.run_regret_cell`, or the pure-exploration loop);
* ``claims(results, ...) -> list[Claim]``: each claim with its kind, quote, source and cause;
* ``plot(results, ...)``: matplotlib figures.

A module with several figures has several of each (the registry names the main ones); the notebooks call
them between :func:`~bandits.experiments.common.start_notebook` and
:func:`~bandits.experiments.common.finish_notebook`.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Callable, Protocol

__all__ = ["Experiment", "ExperimentEntry", "EXPERIMENTS", "get_experiment"]


class Experiment(Protocol):
    """What an experiment offers a notebook (the protocol; see the module docstring)."""

    def params(self, mode: str = "quick", **overrides) -> dict: ...

    def run(self, params: dict, seed: int = 0, n_jobs: int = 1, backend: str = "loky", cache_dir=None): ...

    def claims(self, results, *args, **kwargs) -> list: ...

    def plot(self, results, *args, **kwargs): ...


@dataclass(frozen=True)
class ExperimentEntry:
    """A notebook's experiment: its module and the names of its four main functions in it."""

    module: str
    params: str
    run: str
    claims: str
    plot: str | None  # None: the notebook still draws its figures itself (to move into the module)

    def resolve(self) -> dict[str, Callable | None]:
        """The four functions (importing the module); ``plot`` is None where the notebook draws."""
        mod = import_module(f"{__name__}.{self.module}")
        return {k: (getattr(mod, getattr(self, k)) if getattr(self, k) else None)
                for k in ("params", "run", "claims", "plot")}


#: notebook name -> its experiment (imported on first use: the registry costs nothing at import time)
EXPERIMENTS: dict[str, ExperimentEntry] = {
    "duets": ExperimentEntry("duets", "fig1_params", "run_fig1", "fig1_claims", "plot_fig1"),
    "duets_theory": ExperimentEntry("duets_theory", "theory_params", "run_theory", "theory_claims", None),
    "cope_kb": ExperimentEntry("cope_kb", "cope_params", "run_fc", "fc_claims", "plot_fig2"),
    "cope_theory": ExperimentEntry("cope_theory", "cope_theory_params", "run_c9", "c9_claims", None),
    "async_kernelucb": ExperimentEntry("async_kernelucb", "async_params", "run_fig2", "fig2_claims", "plot_fig2"),
    "async_theory": ExperimentEntry("async_theory", "theory_params", "run_theory", "theory_claims", "plot_c1"),
    "coop_kernelucb": ExperimentEntry("coop_kernelucb", "fig1_params", "run_fig1", "fig1_claims", "plot_fig1"),
    "coop_theory": ExperimentEntry("coop_theory", "theory_params", "run_theory", "theory_claims", "plot_theory"),
    "fn_ucb": ExperimentEntry("fn_ucb", "fn_params", "run_fn", "fn_claims", "plot_panels"),
    "fn_ucb_theory": ExperimentEntry("fn_ucb_theory", "theory_params", "run_theory", "theory_claims", "plot_rounds"),
    "arena": ExperimentEntry("arena", "arena_params", "run_arena", "arena_claims", "plot_pareto"),
}


def get_experiment(name: str) -> dict[str, Callable | None]:
    """The four main functions of notebook ``name``'s experiment."""
    if name not in EXPERIMENTS:
        raise ValueError(f"unknown experiment {name!r}; allowed: {', '.join(EXPERIMENTS)}")
    return EXPERIMENTS[name].resolve()
