"""Redraw the committed figures ``figures/<folder>/<name>.png|pdf`` from the tables committed beside them,
with the current plotting code, WITHOUT rerunning anything.

Usage::

    .venv/bin/python tools/redraw_figures.py                  # every registered folder, written in place
    .venv/bin/python tools/redraw_figures.py duets fn_ucb     # only these
    .venv/bin/python tools/redraw_figures.py --out /tmp/figs  # elsewhere (<out>/<folder>/<name>.png|pdf)
    .venv/bin/python tools/redraw_figures.py --check          # and list each figure's text problems
    .venv/bin/python tools/redraw_figures.py --list           # what can be redrawn, and what cannot and why

Each folder has one entry in :data:`REGISTRY`: a function ``folder -> {name: thunk}`` that rebuilds the
notebook's results object from the committed CSV files (and the parameters recorded in
``provenance.json``), the way :mod:`tools.recompute_claims` does for the claims, and whose thunks call the
plot function the notebook calls, with the notebook's arguments. A figure whose inputs are not all in the
committed files is listed in :data:`NOT_REDRAWN` with the reason, and left as it is.

Random play's reference line on Async-KernelUCB's Figure 2 is not a run: it is recomputed from the
environment draws (:func:`bandits.experiments.async_kernelucb.random_reference`, which reads the data sets
under ``$BANDITS_DATA_DIR``) unless ``--no-random`` is given (then the figure is drawn without it and its
panel notes).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

REGISTRY: dict = {}
#: ``"<folder>/<name>"`` -> why that committed figure is not redrawn
NOT_REDRAWN: dict = {}
OPTIONS = {"random": True}


def register(name: str):
    def deco(fn):
        REGISTRY[name] = fn
        return fn
    return deco


def _prov(folder: Path) -> dict:
    return json.loads((folder / "provenance.json").read_text())


def _csv(folder: Path, name: str):
    import pandas as pd

    return pd.read_csv(folder / name)


def _params(folder: Path, mod, maker, **kw) -> dict:
    """``maker(mode, **recorded)``: the recorded parameters that ``mod`` knows, over its defaults (the
    mode recorded in provenance.json); then every recorded parameter as it was."""
    prov = _prov(folder)
    rec = prov["parameters"]
    known = getattr(mod, "_FULL", {})
    try:
        p = maker(prov.get("mode", "full"), **kw, **{k: v for k, v in rec.items() if k in known})
    except Exception:  # a recorded value the current validation no longer accepts: take the record as it is
        p = maker(prov.get("mode", "full"), **kw)
    p.update(rec)
    return p


def _nan_to_none(df, col):
    if col in df:
        df[col] = df[col].astype(object).where(df[col].notna(), None)
    return df


# ------------------------------------------------------------------------------ registered folders
@register("duets")
def _duets(folder: Path):
    """Figure 1 (both conventions), the β grid and the variants: every curve of the β grid (results.csv,
    every round) and every run (runs.csv); each (function, method)'s β chosen as the notebook does."""
    from bandits.experiments import duets as ex, duets_plots as pl

    p = _params(folder, ex, ex.fig1_params)
    runs = _csv(folder, "runs.csv")
    g = runs.groupby(["function", "method", "beta"], as_index=False)["R_T"].mean()
    selected = g.loc[g.groupby(["function", "method"])["R_T"].idxmin()].reset_index(drop=True)
    selected = selected.rename(columns={"R_T": "R_T_mean"})
    res = ex.Fig1Results(p, _csv(folder, "results.csv"), runs, _csv(folder, "duets_epochs.csv"), selected)
    return {"fig1": lambda: pl.plot_fig1(res, convention="paper"),
            "fig1_code_convention": lambda: pl.plot_fig1(res, convention="code"),
            "beta_grid": lambda: pl.plot_beta_grid(res),
            "duets_variants": lambda: pl.plot_variants(res)}


def _async_results(folder: Path):
    import pandas as pd

    from bandits.experiments import async_kernelucb as ex

    p = _params(folder, ex, ex.async_params)
    curves = _csv(folder, "results.csv")
    runs = _csv(folder, "runs.csv")
    tuning = _csv(folder, "tuning_grid.csv") if (folder / "tuning_grid.csv").exists() else None
    selected = _csv(folder, "selected.csv")
    random = None
    if OPTIONS["random"]:
        seed = int(_prov(folder).get("seed", 0))
        random = pd.concat([ex.random_reference(p, env, range(int(p["n_runs"])), p["T"], seed, max(1, p["T"] // 100))
                            for env in p["envs"]], ignore_index=True)
    return ex.Fig2Results(p, curves, runs, selected, tuning, random)


def gsens_table(folder: Path):
    """gamma_sensitivity.csv as the notebook held it (an empty note is "", not NaN; an empty file: no rows)."""
    import pandas as pd

    try:
        t = _csv(folder, "gamma_sensitivity.csv")
    except pd.errors.EmptyDataError:  # no environment of gsens_envs was run: the notebook wrote an empty table
        return pd.DataFrame()
    if "note" in t:
        t["note"] = t["note"].fillna("")
    return t


def _async_figures(folder: Path):
    from bandits.experiments import async_kernelucb_plots as pl

    cache = {}

    def res():
        if "res" not in cache:
            cache["res"] = _async_results(folder)
        return cache["res"]

    def gsens():
        return pl.plot_gamma_sensitivity(gsens_table(folder), res())

    return {"fig2": lambda: pl.plot_fig2(res()), "tradeoff": lambda: pl.plot_tradeoff(res()),
            "gamma_sensitivity": gsens}


@register("async_kernelucb")
def _async_kernelucb(folder: Path):
    """Figure 2, the trade-off and the γ/q panel: every curve at the stored points (results.csv), every run
    (runs.csv), the tuning's choice (selected.csv), the γ/q table (gamma_sensitivity.csv); random play
    recomputed from the environment draws (see the module's docstring)."""
    return _async_figures(folder)


@register("fn_ucb")
def _fn_ucb(folder: Path):
    """Figures 1–6: every curve at every ``csv_stride``-th round (results.csv) and every run (runs.csv)."""
    from bandits.experiments import fn_ucb as ex, fn_ucb_plots as pl

    p = _params(folder, ex, ex.fn_params)
    runs = _csv(folder, "runs.csv")
    runs = _nan_to_none(runs, "failed")
    res = ex.FNResults(p, _csv(folder, "results.csv"), runs)
    figs = {}
    for name, fs in (("fig1", ["1a", "1b", "1c", "1d"]), ("fig2", ["2a", "2b", "2c", "2d"])):
        figs[name] = (lambda fs=fs: pl.plot_panels(res, [f for f in fs if f in p["figures"]], official=None))
    figs["fig3_4_5"] = lambda: pl.plot_panels(res, [f for f in ("3", "4", "5") if f in p["figures"]])
    figs["fig6"] = lambda: pl.plot_fig6(res)
    return figs


@register("arena")
def _arena(folder: Path):
    """The Pareto plots (every protocol and unit) from points.csv (the means, s.e. and fronts the notebook
    computed) and the maps from map.csv (every run at every checkpoint)."""
    from bandits.experiments import arena as ex, arena_plots as pl

    p = _prov(folder)["parameters"]
    runs = _nan_to_none(_csv(folder, "results.csv"), "failed")
    res = ex.ArenaResults(p, runs, _csv(folder, "points.csv"))
    figs = {}
    for protocol in p["protocols"]:
        for unit in ex.UNITS:
            name = f"pareto_{protocol}" if unit == "scalars" else f"pareto_{protocol}_{unit}"
            figs[name] = (lambda protocol=protocol, unit=unit: pl.plot_pareto(res, protocol, unit))
    mruns = _csv(folder, "map.csv")
    mruns = mruns.assign(failed=mruns["failed"].astype(object).where(mruns["failed"].notna(), None))
    for env in dict.fromkeys(mruns.env):
        figs[f"map_{env}"] = (lambda env=env: pl.plot_map(mruns, env))
    return figs


def _coop_figures(folder: Path):
    from bandits.experiments import coop_kernelucb as ex, coop_kernelucb_plots as pl
    from bandits.envs import make_env

    p = _params(folder, ex, ex.fig1_params)
    curves = _csv(folder, "results.csv")
    runs = _csv(folder, "runs.csv")

    def fig():
        panels = {}  # the network statistics of each panel's title: the environment is built, nothing is run
        for row in p["rows"]:
            for graph in p["graphs"]:
                env = make_env(ex.env_spec(p, row, graph), 0)  # as run_fig1 builds it
                panels[(row, graph)] = {**env.network.stats(), "title": ex.GRAPH_TITLES[graph]}
        return pl.plot_fig1(ex.Fig1Results(p, curves, runs, panels, 0, 0))

    return {"fig1": fig}


@register("coop_kernelucb")
def _coop_kernelucb(folder: Path):
    """Figure 1: every curve at every ``csv_stride``-th round (results.csv); the panel titles' network
    statistics (γ, clique cover, centres) from the networks, built again from the recorded parameters."""
    return _coop_figures(folder)


@register("coop_kernelucb/with_ablations")
def _coop_ablations(folder: Path):
    """Figure 1 with the ablations: as ``coop_kernelucb``."""
    return _coop_figures(folder)


@register("cope_kb")
def _cope_kb(folder: Path):
    """Figures 2 and 3 and the other constants' Figure 2: every run (results.csv and fig3_rank*.csv, column
    ``part``; ``cope_kb.read_results``)."""
    from bandits.experiments import cope_kb as ex, cope_kb_plots as pl

    p = _params(folder, ex, ex.cope_params)
    r = ex.read_results(folder)
    fc, fb = r[r.part == "fig2"], r[r.part == "fig3"]
    figs = {"fig2": lambda: pl.plot_fig2(fc, p), "fig3": lambda: pl.plot_fig3(fb, p)}
    for part in sorted(set(r.part) - {"fig2", "fig3"}):
        other = part.split("_", 1)[1]
        fo = r[r.part == part]
        ms = [m for m in p["fc_methods"] if m in set(fo.method)]  # the notebook's order (its fc_methods)
        ms += [m for m in dict.fromkeys(fo.method) if m not in ms]
        figs[f"fig2_{other}_constants"] = (lambda fo=fo, other=other, ms=ms: pl.plot_fig2(
            fo, dict(p, fc_methods=ms), constants=other))
    return figs


@register("cope_theory")
def _cope_theory(folder: Path):
    """C1's speedup: the C1 runs (results.csv, ``part == "C1"``)."""
    from bandits.experiments import cope_kb as ex, cope_kb_plots as pl

    p = _params(folder, ex, ex.cope_params)
    r = _csv(folder, "results.csv")
    return {"c1_speedup_vs_similarity": lambda: pl.plot_c1(r[r.part == "C1"], p)}


@register("coop_theory")
def _coop_theory(folder: Path):
    """The 2 × 4 theory panels: the runs (results.csv), C5's curves (c5_curves.csv), C6–C8's tables
    (c6_lemma3.csv, c7_lemma4.csv, c8_mmd.csv); panel C2's clique-cover sizes from the path networks, built
    again from the recorded parameters (nothing is run)."""
    from bandits.envs.coop import coop_network
    from bandits.experiments import coop_theory as ex, coop_theory_plots as pl

    p = _params(folder, ex, ex.theory_params)

    def fig():
        nets = {}
        tasks, labels = ex.theory_tasks(p)
        for (cfg, _), lab in zip(tasks, labels):
            key = (lab["check"], lab["x"])
            if lab["check"] == "C2" and key not in nets:
                nets[key] = coop_network(cfg["env"]).stats()
        res = ex.TheoryResults(p, _csv(folder, "results.csv"), _csv(folder, "c5_curves.csv"), {},
                               _csv(folder, "c6_lemma3.csv"), _csv(folder, "c7_lemma4.csv"),
                               _csv(folder, "c8_mmd.csv"), nets, 0, 0)
        return pl.plot_theory(res)

    return {"theory": fig}


@register("async_theory")
def _async_theory(folder: Path):
    """C4, C5, C6–C7 from results.csv (column ``check``) and C2/C8/C9/C10 from extra_c*.csv."""
    from bandits.experiments.async_theory import plots as pl
    from bandits.experiments.async_theory.runs import ExtraResults, TheoryResults

    p = _prov(folder)["parameters"]
    r = _csv(folder, "results.csv")
    parts = {k: r[r.check == k].drop(columns="check").dropna(axis=1, how="all").reset_index(drop=True)
             for k in ("c1", "c4", "c5", "c6", "c7")}
    res = TheoryResults(p, **{k: (v if len(v) else None) for k, v in parts.items()})
    ext = {}
    for k in ("c2", "c3", "c8", "c9", "c10"):
        f = folder / f"extra_{k}.csv"
        if f.exists():
            ext[k] = _csv(folder, f.name).drop(columns="check")
    extra = ExtraResults(p, **ext)
    return {"c4_communications": lambda: pl.plot_c4(res), "c5_tradeoff": lambda: pl.plot_c5(res),
            "c6_c7_scaling": lambda: pl.plot_scaling(res), "c2_c8_c9_c10": lambda: pl.plot_extra(extra)}


NOT_REDRAWN["async_theory/c1_dictionary"] = (
    "its right panel (|S| against t per q) needs the dictionary-size curves (TheoryResults.c1_curves), which no "
    "committed file holds")


@register("fn_ucb_theory")
def _fn_ucb_theory(folder: Path):
    """E5/E6 rounds, E3/E13 regret and potential, E2/E8/E12/E14: results.csv, curves.csv, alpha.csv,
    coverage.csv, linearisation.csv."""
    from bandits.experiments.fn_ucb_theory import plots as pl
    from bandits.experiments.fn_ucb_theory.runs import TheoryResults

    p = _prov(folder)["parameters"]
    res = TheoryResults(p, _csv(folder, "results.csv"), _csv(folder, "curves.csv"), alpha=_csv(folder, "alpha.csv"),
                        coverage=_csv(folder, "coverage.csv"), linear=_csv(folder, "linearisation.csv"))
    return {"rounds": lambda: pl.plot_rounds(res), "regret_potential": lambda: pl.plot_regret(res),
            "more_checks": lambda: pl.plot_more(res)}


@register("duets_theory")
def _duets_theory(folder: Path):
    """E1–E2, E3–E4, E5, E8: results.csv, epochs.csv, e3_variance.csv, e4_accuracy.csv, e8_superposition.csv
    (the plot functions of :mod:`bandits.experiments.duets_theory_plots`, which hold the drawing code of the
    notebook's cells)."""
    from bandits.experiments import duets_theory_plots as pl

    p = _prov(folder)["parameters"]
    runs, epochs = _csv(folder, "results.csv"), _csv(folder, "epochs.csv")
    return {"e1_e2_scaling": lambda: pl.plot_scaling(runs, p),
            "e3_e4": lambda: pl.plot_e3_e4(_csv(folder, "e3_variance.csv"), _csv(folder, "e4_accuracy.csv")),
            "e5_inducing_sets": lambda: pl.plot_inducing_sets(epochs),
            "e8_superposition": lambda: pl.plot_superposition(_csv(folder, "e8_superposition.csv"), p)}


# ------------------------------------------------------------------------------ the rest
def figures_of(name: str, figures: Path = ROOT / "figures") -> dict:
    """``{figure name: thunk returning the matplotlib figure}`` of folder ``name``."""
    return REGISTRY[name](figures / name)


def redraw(name: str, out: Path | None = None, check: bool = False, only=None, figures: Path = ROOT / "figures"):
    """Redraw folder ``name``'s figures into ``out/<name>`` (default: in place); returns
    ``{figure: text problems}``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bandits.plotting import save_figure, text_problems

    dest = (out / name) if out is not None else figures / name
    found = {}
    for fig_name, thunk in figures_of(name, figures).items():
        if only and fig_name not in only:
            continue
        fig = thunk()
        if fig is None:
            continue
        found[fig_name] = text_problems(fig) if check else []
        save_figure(fig, dest, fig_name)
        plt.close(fig)
        print(f"{name}/{fig_name}: redrawn" + (f", {len(found[fig_name])} text problems" if check else ""))
        for pr in found[fig_name]:
            print(f"    {pr}")
    return found


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="folders under figures/ (default: every registered one)")
    ap.add_argument("--out", type=Path, default=None, help="write under this folder instead of figures/")
    ap.add_argument("--only", nargs="*", default=None, help="only these figure names")
    ap.add_argument("--check", action="store_true", help="list each figure's text problems (text_problems)")
    ap.add_argument("--no-random", action="store_true", help="skip random play's reference on Async Figure 2")
    ap.add_argument("--list", action="store_true", help="what can be redrawn, and what cannot and why")
    a = ap.parse_args(argv)
    if a.list:
        for name in sorted(REGISTRY):
            print(f"{name}: {REGISTRY[name].__doc__.split(chr(10))[0]}")
        for k, v in sorted(NOT_REDRAWN.items()):
            print(f"{k}: NOT redrawn: {v}")
        return 0
    OPTIONS["random"] = not a.no_random
    for name in a.names or sorted(REGISTRY):
        redraw(name, a.out, a.check, a.only)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
