"""Every figure function, drawn at the size it is saved at, has readable text.

Each figure is drawn from the committed tables (``figures/<folder>/*.csv``) through the loaders of
``tools/redraw_figures.py`` (the same inputs the notebooks hand the plot functions), where those tables
hold what it needs; where they do not, the missing part is made up here (network statistics in panel
titles, C1's dictionary curves, random play's line), since only the layout is tested. Then
:func:`bandits.plotting.text_problems` asks matplotlib's renderer for each text's extent and fails on
tick labels of one axis that overlap, a legend over another text or over the plotted data, annotations
over each other, text outside the figure, legend entries drawn alike (an ``[official]`` twin in another
method's colour), and an image more than :data:`bandits.plotting.MAX_ASPECT` times as wide as tall.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from bandits.plotting import MAX_ASPECT, line_styles, setup_style, text_problems  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIG = ROOT / "figures"


def _tool():
    spec = importlib.util.spec_from_file_location("redraw_figures", ROOT / "tools" / "redraw_figures.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("redraw_figures", mod)
    spec.loader.exec_module(mod)
    mod.OPTIONS["random"] = False  # random play's line is added below from made-up numbers (no data sets)
    return mod


TOOL = _tool()


def _assert_readable(fig, what):
    try:
        probs = text_problems(fig)
    finally:
        plt.close(fig)
    assert not probs, f"{what}: " + "; ".join(probs[:8]) + (f" (and {len(probs) - 8} more)" if len(probs) > 8 else "")


# ------------------------------------------------------------------------------ figures from the committed tables
#: drawn by the same function with the same layout as a figure tested here (left out to keep the file fast)
SAME_AS = {"duets/fig1_code_convention": "duets/fig1", "arena/pareto_sync_messages": "arena/pareto_sync",
           "arena/pareto_sync_rounds": "arena/pareto_sync", "arena/pareto_async": "arena/pareto_async_rounds",
           "arena/pareto_async_messages": "arena/pareto_async_rounds", "arena/map_shuttle": "arena/map_hartmann4"}


def _committed(folder):
    try:
        figs = TOOL.figures_of(folder)
    except Exception:  # the loader itself fails: one case that says so when it runs
        return [pytest.param(folder, "*", id=f"{folder}/*")]
    return [pytest.param(folder, name, id=f"{folder}/{name}") for name in figs if f"{folder}/{name}" not in SAME_AS]


CASES = []
for _folder in ("duets", "duets_theory", "fn_ucb", "arena", "cope_kb", "cope_theory", "fn_ucb_theory"):
    if (FIG / _folder / "provenance.json").exists():
        CASES += _committed(_folder)


@pytest.fixture(scope="module")
def committed():
    cache = {}

    def get(folder):
        if folder not in cache:
            cache[folder] = TOOL.figures_of(folder)
        return cache[folder]
    return get


@pytest.mark.parametrize("folder,name", CASES)
def test_committed_figure_text_is_readable(committed, folder, name):
    figs = committed(folder)
    if name == "*":
        pytest.fail(f"{folder}: the loader of tools/redraw_figures.py failed")
    fig = figs[name]()
    if fig is not None:
        _assert_readable(fig, f"{folder}/{name}")


# ------------------------------------------------------------------------------ figures whose tables lack a part
def _random_play(res):
    """Random play's line, made up: a straight line to 1.3 × the worst mean R(T) (layout only)."""
    rows = []
    for env in res.params["envs"]:
        worst = res.runs[res.runs.env == env].R_T.mean() * 1.3
        ts = np.unique(res.curves[res.curves.env == env].t)
        for rep in range(2):
            rows.append(pd.DataFrame({"env": env, "method": "random", "rep": rep, "t": ts,
                                      "regret": worst * ts / ts.max()}))
    return pd.concat(rows, ignore_index=True)


@pytest.fixture(scope="module")
def async_results():
    cache = {}

    def get(folder):
        if folder not in cache:
            res = TOOL._async_results(FIG / folder)
            res.random = _random_play(res)  # the panel notes ("near random play: ...") drawn as in the notebook
            cache[folder] = res
        return cache[folder]
    return get


@pytest.mark.parametrize("folder", ["async_kernelucb"])
@pytest.mark.parametrize("name", ["fig2", "tradeoff", "gamma_sensitivity"])
def test_async_figures_text_is_readable(async_results, folder, name):
    from bandits.experiments import async_kernelucb_plots as pl

    if not (FIG / folder / "provenance.json").exists():
        pytest.skip("not committed")
    res = async_results(folder)
    if name == "gamma_sensitivity":
        fig = pl.plot_gamma_sensitivity(TOOL.gsens_table(FIG / folder), res)
    else:
        fig = getattr(pl, f"plot_{name}")(res)
    _assert_readable(fig, f"{folder}/{name}")


def _coop_panels(p):
    from bandits.experiments.coop_kernelucb import GRAPH_TITLES

    return {(row, g): {"title": GRAPH_TITLES.get(g, g), "gamma": 2, "cover": 48, "n_c": 6}
            for row in p["rows"] for g in p["graphs"]}


@pytest.mark.parametrize("folder", ["coop_kernelucb", "coop_kernelucb/with_ablations"])
def test_coop_figure1_text_is_readable(folder):
    """Figure 1 from the committed curves; the titles' network statistics made up (the networks are not
    built here: the data sets are not needed for a layout test)."""
    from bandits.experiments import coop_kernelucb as ex, coop_kernelucb_plots as pl

    f = FIG / folder
    p = TOOL._params(f, ex, ex.fig1_params)
    res = ex.Fig1Results(p, TOOL._csv(f, "results.csv"), TOOL._csv(f, "runs.csv"), _coop_panels(p), 0, 0)
    _assert_readable(pl.plot_fig1(res), f"{folder}/fig1")


def test_coop_theory_text_is_readable():
    from bandits.experiments import coop_theory as ex, coop_theory_plots as pl

    f = FIG / "coop_theory"
    p = TOOL._params(f, ex, ex.theory_params)
    nets = {("C2", g): {"cover": int(np.ceil(p["path_V"] / (g + 1)))} for g in p["gammas"]}
    res = ex.TheoryResults(p, TOOL._csv(f, "results.csv"), TOOL._csv(f, "c5_curves.csv"), {},
                           TOOL._csv(f, "c6_lemma3.csv"), TOOL._csv(f, "c7_lemma4.csv"), TOOL._csv(f, "c8_mmd.csv"),
                           nets, 0, 0)
    _assert_readable(pl.plot_theory(res), "coop_theory/theory")


def test_async_theory_text_is_readable():
    """C2–C10 from the committed tables; C1's dictionary curves (not committed) made up: |S| growing like
    √t to each (q, D)'s committed final size."""
    from bandits.experiments.async_theory import plots as pl

    figs = TOOL.figures_of("async_theory")
    for name, thunk in figs.items():
        _assert_readable(thunk(), f"async_theory/{name}")
    r = TOOL._csv(FIG / "async_theory", "results.csv")
    c1 = r[r.check == "c1"].drop(columns="check").dropna(axis=1, how="all").reset_index(drop=True)
    t = np.linspace(10, 3000, 60)
    cur = pd.concat([pd.DataFrame({"q": q, "D": D, "rep": rep, "t": t, "dict_size": s * np.sqrt(t / t[-1])})
                     for (q, D, rep), s in c1.groupby(["q", "D", "rep"]).dict_size.mean().items()], ignore_index=True)
    from bandits.experiments.async_theory.runs import TheoryResults

    _assert_readable(pl.plot_c1(TheoryResults(TOOL._prov(FIG / "async_theory")["parameters"], c1=c1, c1_curves=cur)),
                     "async_theory/c1_dictionary")


# ------------------------------------------------------------------------------ the check itself
def test_the_check_sees_overlapping_tick_labels_and_a_covering_legend():
    setup_style()
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0.2, 0.5, 1, 2, 5], [1, 2, 3, 4, 5], label="a curve under its legend")
    ax.set_xscale("log")  # less than two decades: matplotlib labels the minor ticks, and they collide
    ax.legend(loc="center")
    probs = text_problems(fig, max_aspect=None)
    plt.close(fig)
    assert any("tick labels" in p for p in probs) and any("covers" in p for p in probs)


def test_the_check_sees_text_outside_and_a_wide_strip():
    setup_style()
    fig, axes = plt.subplots(1, 6, figsize=(18, 3))
    fig.suptitle("a title far wider than the figure it is the title of " * 8)
    probs = text_problems(fig)
    plt.close(fig)
    assert any("outside the figure" in p for p in probs)
    assert any(f"at most {MAX_ASPECT:g}" in p for p in probs)


def test_the_check_sees_an_official_twin_in_another_methods_colour():
    setup_style()
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1], [0, 1], color="C0", label="NeuralUCB")
    ax.plot([0, 1], [0, 2], color="C1", label="NeuralTS")
    ax.plot([0, 1], [0, 3], color="C1", ls="--", label="NeuralUCB [official]")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    probs = text_problems(fig, max_aspect=None)
    plt.close(fig)
    assert any("not drawn in the colour of 'NeuralUCB'" in p for p in probs)
    assert any("has the colour of another method" in p for p in probs)


def test_line_styles_pair_each_official_twin_and_keep_methods_apart():
    labels = ["NeuralUCB", "NeuralTS", "FN-UCB (N=1)", "FN-UCB (N=2)", "FN-UCB (N=5)", "FN-UCB (N=10)",
              "NeuralUCB [official]", "FN-UCB (N=2) [official]", "LinearUCB (ν=1)", "LinearUCB (ν=0.1)"]
    st = line_styles(labels)
    assert st["NeuralUCB [official]"] == (st["NeuralUCB"][0], "--")
    assert st["FN-UCB (N=2) [official]"] == (st["FN-UCB (N=2)"][0], "--")
    plain = [lab for lab in labels if not lab.endswith("[official]")]
    assert len({st[lab][0] for lab in plain}) == len(plain)  # no two methods share a colour
