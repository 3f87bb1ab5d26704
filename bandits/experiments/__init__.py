"""Experiments (layer 9): per paper, each figure's quick and full parameters, its runs, claims and plots.

**The experiment protocol.** Every notebook ``notebooks/<name>.py`` has an experiment here with four
kinds of function (docs/adding_a_paper.md §4), written down in :class:`Experiment` and registered in
:data:`EXPERIMENTS` (a test checks that every notebook has an entry and every entry resolves):

* ``params(mode, **overrides) -> dict``: the ``"quick"`` and ``"full"`` parameters
  (:func:`bandits.experiments.common.mode_params`; an unknown override is an error naming it);
* ``run(params, seed, n_jobs, backend, cache_dir, ...)``: the runs, through :func:`bandits.runner.sweep`
  and the one run recipe (:func:`bandits.runner.run_regret_cell`, or the pure-exploration loop);
* ``claims(results, ...) -> list[Claim]``: each claim (:class:`bandits.experiments.claims.Claim`) with
  its kind, quote, source and cause;
* ``plot(results, ...)``: matplotlib figures.

**Where they live: claims and plots outside the run cache's key.** The parameters and runs of
experiment ``<name>`` are in ``<name>.py``; its claims in ``<name>_claims.py`` and its figures in
``<name>_plots.py`` (a package experiment: ``<name>/claims.py`` and ``<name>/plots.py``). The run cache's
code fingerprint (:func:`bandits.runner.code_fingerprint`) leaves every module so named out
(:func:`bandits.runner.in_runs`), so a claim's text, threshold or statistic and a figure can change
without recomputing a cached run. The rule that keeps this safe: **a module the fingerprint covers never
imports one it leaves out** (not lazily in a function, not as a re-export from a package ``__init__``;
``tests/test_package_structure.py``): the claims and plots modules import the run module, the
notebooks import all three. Shared: :mod:`bandits.experiments.common` (parameter checks, in the
fingerprint), :mod:`bandits.experiments.claims` (:class:`~bandits.experiments.claims.Claim`, the claims
table) and :mod:`bandits.experiments.notebook` (the notebooks' set-up and finish), both left out.

A module with several figures has several of each (the registry names the main ones); the notebooks call
them between :func:`~bandits.experiments.notebook.start_notebook` and
:func:`~bandits.experiments.notebook.finish_notebook`.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from importlib.util import find_spec
from typing import Callable, Protocol
from ..validation import check, one_of

__all__ = ["Experiment", "ExperimentEntry", "EXPERIMENTS", "get_experiment"]


class Experiment(Protocol):
    """What an experiment offers a notebook (the protocol; see the module docstring)."""

    def params(self, mode: str = "quick", **overrides) -> dict: ...

    def run(self, params: dict, seed: int = 0, n_jobs: int = 1, backend: str = "loky", cache_dir=None): ...

    def claims(self, results, *args, **kwargs) -> list: ...

    def plot(self, results, *args, **kwargs): ...


@dataclass(frozen=True)
class ExperimentEntry:
    """A notebook's experiment: its run module, the names of its four main functions, and the modules that
    hold the claims and plot functions.

    ``claims_module`` / ``plots_module`` (relative to :mod:`bandits.experiments`) default to the
    convention of the module docstring: ``<module>_claims`` / ``<module>_plots`` for a module,
    ``<module>.claims`` / ``<module>.plots`` for a package (:meth:`where`)."""

    module: str
    params: str
    run: str
    claims: str
    plot: str | None  # None: the notebook draws its figures itself
    claims_module: str | None = None
    plots_module: str | None = None

    def _is_package(self) -> bool:
        spec = find_spec(f"{__name__}.{self.module}")
        return spec is not None and spec.submodule_search_locations is not None

    def conventional(self, kind: str) -> str:
        """The module (relative to :mod:`bandits.experiments`) that should hold the ``kind``
        (``"claims"`` or ``"plot"``) function: the entry's ``claims_module`` / ``plots_module``, else the
        convention."""
        given = self.claims_module if kind == "claims" else self.plots_module
        suffix = "claims" if kind == "claims" else "plots"
        return given or (f"{self.module}.{suffix}" if self._is_package() else f"{self.module}_{suffix}")

    def where(self, kind: str) -> str:
        """The module (relative to :mod:`bandits.experiments`) the ``kind`` function (``"params"``,
        ``"run"``, ``"claims"``, ``"plot"``) is taken from: the run module for params and run, else
        :meth:`conventional` (every experiment is split into run, claims and plots modules)."""
        return self.module if kind in ("params", "run") else self.conventional(kind)

    def resolve(self) -> dict[str, Callable | None]:
        """The four functions (importing their modules); ``plot`` is None where the notebook draws."""
        return {k: (getattr(import_module(f"{__name__}.{self.where(k)}"), getattr(self, k)) if getattr(self, k)
                    else None)
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
    check("name", name, one_of(*EXPERIMENTS))
    return EXPERIMENTS[name].resolve()
