"""Recompute a committed full-mode ``figures/<name>/claims.json`` from the per-run files committed beside
it, with the current claims code (the calibrated statistics of ``bandits.claims``), WITHOUT rerunning anything.

Usage::

    .venv/bin/python tools/recompute_claims.py                 # every registered folder: old -> new, no writes
    .venv/bin/python tools/recompute_claims.py duets arena     # only these
    .venv/bin/python tools/recompute_claims.py duets --write   # and rewrite figures/duets/claims.json
    .venv/bin/python tools/recompute_claims.py --list          # which folders can be recomputed, and why not

Each folder has one entry in :data:`REGISTRY`: a function ``folder -> (claims, inputs)`` that rebuilds the
notebook's results object from the committed CSV files (and the parameters recorded in
``provenance.json``) and calls the notebook's own claims function (from its claims module,
``bandits/experiments/<name>_claims.py``, which the run cache's key leaves out: a claims change needs no
rerun), or the reason it cannot. The written
claims.json keeps the old file's extra keys (paper, figure, mode) and records ``recomputed_from`` (the
files read) and ``recomputed_by``. To add a folder: write ``_name(folder)`` returning the claims and the
list of files read, and register it with :func:`register` (or ``NOT_RECOMPUTABLE[name] = "reason"``).

The folders are the manifest's (:func:`bandits.papers.folders`, each paper's notebooks): :func:`unaccounted`
names a manifest folder with neither a loader nor a reason, and a loader or reason for a folder no paper
declares; ``--list`` prints both and ``tests/test_papers.py`` fails on them.

The figures themselves are not redrawn (the claims table and claims.json only): a change of plotted
quantity still needs the notebook.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

REGISTRY: dict = {}
#: folders whose committed files do not hold what their claims need: the reason
NOT_RECOMPUTABLE: dict = {}


def register(name: str):
    def deco(fn):
        REGISTRY[name] = fn
        return fn
    return deco


def _params(folder: Path) -> dict:
    """The notebook parameters recorded in ``provenance.json``."""
    return json.loads((folder / "provenance.json").read_text())["parameters"]


def _csv(folder: Path, name: str):
    import pandas as pd

    return pd.read_csv(folder / name)


# ------------------------------------------------------------------------------ registered folders
@register("duets")
def _duets(folder: Path):
    """Figure 1's claims need every run's final R(T), C_paper, C_code at every β (runs.csv holds them)."""
    from bandits.experiments import duets as ex
    from bandits.experiments.duets_claims import fig1_claims

    pr = _params(folder)
    p = ex.fig1_params("full", **{k: v for k, v in pr.items() if k in ex._FULL})
    res = ex.Fig1Results(p, None, _csv(folder, "runs.csv"), None, None)
    return fig1_claims(res), ["runs.csv", "provenance.json"]


@register("duets_theory")
def _duets_theory(folder: Path):
    """E1–E8 need the runs (results.csv), the epoch logs (epochs.csv) and the E3, E4, E6, E8 tables."""
    from bandits.experiments.duets_theory_claims import theory_claims

    files = ["results.csv", "epochs.csv", "e3_variance.csv", "e4_accuracy.csv", "e6_epochs.csv",
             "e8_superposition.csv"]
    r, e, e3, e4, e6, e8 = (_csv(folder, f) for f in files)
    return theory_claims(r, e, e3, e4, e6, e8=e8), files


@register("arena")
def _arena(folder: Path):
    """The arena's claims need every run's R(T) and C per (protocol, env, method, knob value): results.csv
    holds them in full (1 428 runs, failed column included); the points are recomputed from it."""
    from bandits.experiments import arena as ex

    runs = _csv(folder, "results.csv")
    runs["failed"] = runs["failed"].where(runs["failed"].notna(), None)
    pr = _params(folder)
    p = ex.arena_params("full", **{k: v for k, v in pr.items() if k in ex._FULL and k != "grids"})
    return _claims_fn("arena")(ex.ArenaResults(p, runs, ex.summarise(runs))), ["results.csv", "provenance.json"]


def _claims_fn(name: str):
    """The main claims function of notebook ``name``'s experiment, wherever it lives (its claims module
    ``<name>_claims``, or the run module while that is not split: the registry, ``bandits.experiments.EXPERIMENTS``)."""
    from bandits.experiments import get_experiment

    return get_experiment(name)["claims"]


def _full_params(mod, folder: Path, maker, skip=()):
    """``maker("full", **recorded)`` with the parameters of provenance.json that the module knows."""
    pr = _params(folder)
    known = getattr(mod, "_FULL", {})
    return maker("full", **{k: v for k, v in pr.items() if k in known and k not in skip
                            and not (isinstance(v, str) and not isinstance(known[k], str))})


# The folders below belong to other helpers: their loaders are here so that the lead or the owner can run
# ``--write`` once their claims code is final; this tool's author did not write their claims.json.
@register("async_kernelucb")
def _async_kernelucb(folder: Path):
    """Figure 2's claims need every run's final R_T and C_T per (env, method): runs.csv (the tuning runs,
    tuning_grid.csv, are not needed: the settings were chosen on separate runs, reps 100+)."""
    from bandits.experiments import async_kernelucb as ex

    p = _full_params(ex, folder, ex.async_params)
    return _claims_fn("async_kernelucb")(ex.Fig2Results(p, None, _csv(folder, "runs.csv"), None, None)), [
        "runs.csv", "provenance.json"]


@register("fn_ucb")
def _fn_ucb(folder: Path):
    """Figures 1–2's claims need every curve's final R̄(T) per run, with the failed column: runs.csv."""
    from bandits.experiments import fn_ucb as ex

    p = _full_params(ex, folder, ex.fn_params)
    return _claims_fn("fn_ucb")(ex.FNResults(p, None, _csv(folder, "runs.csv"))), ["runs.csv", "provenance.json"]


@register("coop_kernelucb")
def _coop_kernelucb(folder: Path):
    """Figure 1's claims need every run's final R̂(T) (runs.csv). The safeguard checks read per-run
    diagnostics (rank, kept variance) that runs.csv holds only if the run wrote them."""
    from bandits.experiments import coop_kernelucb as ex
    from bandits.experiments.coop_kernelucb_claims import fig1_claims

    p = _full_params(ex, folder, ex.fig1_params)
    return fig1_claims(ex.Fig1Results(p, None, _csv(folder, "runs.csv"), {}, 0, 0)), ["runs.csv",
                                                                                        "provenance.json"]


NOT_RECOMPUTABLE["fn_ucb_theory"] = (
    "the committed run (results.csv, curves.csv, alpha.csv, coverage.csv, linearisation.csv) predates checks the "
    "current claims code reads (the E5 'twins' and others: theory_claims fails on an empty comparison list), and "
    "curves.csv is thinned to 200 rounds per run (the notebook fits slopes on every round); rerun, or extend a loader "
    "to the claims the committed tables support")
NOT_RECOMPUTABLE["cope_kb"] = (
    "results.csv holds every fixed-confidence (part fig2) and fixed-budget (part fig3) run, but under method names "
    "the current code has renamed (e.g. 'CoKernel-IndAlloc' -> '-A'/'-B'): a loader needs the owner's name map; "
    "its other parts (C1, C2, C6, C9, fig2_theory) belong to the theory claims")
NOT_RECOMPUTABLE["cope_theory"] = (
    "no loader written yet: its claims (cope_kb_claims.theory_claims, cope_theory_claims.c7_claims, peace_claims, "
    "c9_claims) read the C1/C2/C6/C9 runs (results.csv, column part), c7_corollary1.csv, peace_gaussian_width.csv and "
    "the notebook's theory parameters (provenance.json); whether these suffice for every claim has not been checked")
@register("coop_theory")
def _coop_theory(folder: Path):
    """C1–C9 from the committed tables (results.csv, c5_curves.csv, c6_lemma3.csv, c7_lemma4.csv, c8_mmd.csv)
    and the networks rebuilt from the recorded parameters, as the sequential step's hooks read them
    (:class:`bandits.experiments.coop_theory_sequential.CoopTheorySequential`). C10 (communication per round)
    needs the per-round delivery arrays of the C2 runs, which the folder does not hold: its committed claim is
    kept as it is (read from claims.json, listed among the inputs)."""
    from dataclasses import fields

    from bandits.experiments.claims import Claim
    from bandits.experiments.coop_theory_sequential import CoopTheorySequential

    kept = ("C10-communication",)
    hooks = CoopTheorySequential()
    p, seed, runs = hooks._read(folder)
    claims = hooks._claims({"params": p, "seed": seed, "runs": runs}, runs, 0.95)
    old = {c["id"]: c for c in json.loads((folder / "claims.json").read_text())["claims"]}
    names = {f.name for f in fields(Claim)}
    claims = [Claim(**{k: v for k, v in old[c.id].items() if k in names}) if c.id in kept else c for c in claims]
    return claims, ["results.csv", "c5_curves.csv", "c6_lemma3.csv", "c7_lemma4.csv", "c8_mmd.csv",
                    "provenance.json", "claims.json (C10-communication kept: per-round deliveries not committed)"]


NOT_RECOMPUTABLE["async_theory"] = (
    "results.csv holds the C1, C4, C5, C6, C7 tables (column check) and extra_c*.csv the extra checks, but C1's "
    "dictionary-size curves (c1_curves) and C4's per-epoch exchange counts (c4_epochs) are not committed; a loader "
    "could rebuild every claim that does not read them")


# ------------------------------------------------------------------------------ the rest
def unaccounted(papers=None) -> dict:
    """``{"no loader": [...], "not a paper's": [...]}``: the manifest's folders (:mod:`bandits.papers`) with
    neither a loader in :data:`REGISTRY` nor a reason in :data:`NOT_RECOMPUTABLE`, and the folders registered
    here that no paper declares."""
    from bandits.papers import folders

    declared = folders(papers)
    known = set(REGISTRY) | set(NOT_RECOMPUTABLE)
    return {"no loader": [f for f in declared if f not in known],
            "not a paper's": sorted(f for f in known if f not in declared)}


def recompute(name: str, write: bool = False, figures: Path = ROOT / "figures"):
    """``(old verdicts by id, new claims)`` for one folder; rewrites its claims.json when ``write``."""
    from bandits.experiments.claims import write_claims

    folder = figures / name
    if name not in REGISTRY:
        raise SystemExit(f"{name}: not registered ({NOT_RECOMPUTABLE.get(name, 'no entry')})")
    old = json.loads((folder / "claims.json").read_text())
    claims, inputs = REGISTRY[name](folder)
    if write:
        extra = {k: v for k, v in old.items() if k not in ("claims", "summary", "summary_by_kind")}
        extra["recomputed_from"] = sorted(inputs)
        extra["recomputed_by"] = ("tools/recompute_claims.py (the current claims code, from the committed per-run "
                                  "files; no run was repeated)")
        write_claims(claims, folder, extra)
        if (folder / "sequential.json").exists():
            print(f"{name}: claims.json now holds the fixed-size verdicts of the committed runs; the sequential "
                  f"step's decisions (sequential.json) are restored by `make decide DECIDE={name}` (its added runs "
                  f"come from the run cache, or are recomputed)", file=sys.stderr)
    return {c["id"]: c["verdict"] for c in old["claims"]}, claims


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="folders under figures/ (default: every registered one)")
    ap.add_argument("--write", action="store_true", help="rewrite figures/<name>/claims.json")
    ap.add_argument("--list", action="store_true", help="list the folders and whether they can be recomputed")
    a = ap.parse_args(argv)
    if a.list:
        from bandits.papers import folders

        for name in folders():
            print(f"{name}: " + ("recomputable" if name in REGISTRY else
                                 f"NOT recomputable: {NOT_RECOMPUTABLE.get(name, 'no loader and no reason given')}"))
        bad = unaccounted()
        if bad["not a paper's"]:
            print("registered here but declared by no paper in bandits/papers.py:", bad["not a paper's"])
        return 1 if any(bad.values()) else 0
    from bandits.papers import folders

    for name in a.names or [f for f in folders() if f in REGISTRY]:
        old, claims = recompute(name, a.write)
        print(f"== {name}" + (" (written)" if a.write else ""))
        for c in claims:
            o = old.get(c.id, "new")
            mark = "" if o == c.verdict else "   <- changed"
            print(f"  {c.id}: {o} -> {c.verdict} [{c.kind}, {c.quote}]{mark}")
        gone = [i for i in old if i not in {c.id for c in claims}]
        if gone:
            print(f"  no longer produced: {gone}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
