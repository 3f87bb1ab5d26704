"""FN-UCB experiment modules (bandits/experiments/fn_ucb.py, the fn_ucb_theory package): parameters, task
construction, claims on hand-made results, and one tiny recorded run (no timing)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from bandits.experiments import fn_ucb as ex
from bandits.experiments import fn_ucb_claims as ex_claims
from bandits.experiments import fn_ucb_plots as ex_plots
from bandits.experiments import fn_ucb_theory as th
from bandits.experiments.common import ParameterError
from bandits.experiments import fn_ucb_note


def test_modes_and_validation():
    q, f = ex.fn_params("quick"), ex.fn_params("full")
    assert (q["T"], q["n_runs"], q["Ns"]) == (500, 3, [1, 2, 5])
    assert (f["T"], f["n_runs"], f["Ns"]) == (5000, 3, [1, 2, 5, 10])
    assert f["figures"] == list(ex.FIGURES) and ex.not_run(f) == []
    assert ex.not_run(q) == ["2a", "2b", "2d", "5"]
    assert q["official_figures"] == ["1a", "1d"] and f["official_figures"] == list(ex.OFFICIAL_FIGURES)
    assert set(ex.OFFICIAL_FIGURES) == {"1a", "1b", "1d", "2a", "2b", "2c", "2d"}  # every figure with N or D varying
    for bad, word in (({"figures": ["7"]}, "figures"), ({"Ns": [0]}, "Ns"), ({"D_cosine": [-1.0]}, "D_cosine"),
                      ({"T": 0}, "T"), ({"device": "tpu"}, "device"), ({"colour": 1}, "colour"),
                      ({"official_figures": ["1c"]}, "official_figures"), ({"fig4_envs": ["mnist"]}, "fig4_envs"),
                      ({"official": "yes"}, "official")):
        with pytest.raises(ParameterError, match=word):
            ex.fn_params("quick", **bad)


def test_tasks_shared_runs_computed_once():
    p = ex.fn_params("quick", figures=["1a", "1c", "1d", "3", "2a", "5"], official_figures=["1a"])
    tasks, where = ex.fn_tasks(p)
    keys = {(str(c), r) for c, r in tasks}
    assert len(keys) == len(tasks)  # distinct
    # 1d's "every round" N=5 run is 1a's; 1c's and 3's Less Comm. N=2 runs are 1a's; Fig. 5's full run is 2a's N=5
    idx = {(c.figure, c.env, c.label, r): i for c, r, i in where}
    assert idx[("1d", "cosine", "FN-UCB (N=5, comm. every round)", 0)] == idx[("1a", "cosine", "FN-UCB (N=5)", 0)]
    assert idx[("1c", "cosine", "FN-UCB (N=2)", 1)] == idx[("1a", "cosine", "FN-UCB (N=2)", 1)]
    assert idx[("3", "cosine", "FN-UCB (N=2, Less Comm.)", 2)] == idx[("1a", "cosine", "FN-UCB (N=2)", 2)]
    assert idx[("5", "shuttle", "FN-UCB (N=5, m=20)", 0)] == idx[("2a", "shuttle", "FN-UCB (N=5)", 0)]
    labels = {c.label for c, _, _ in where}
    assert {"FN-UCB (N=5) [official]", "NeuralTS [official]", "FN-UCB (N=5, D=2.5)"} <= labels
    assert not any(c.official for c, _, _ in where if c.figure == "2a")  # official only beside 1a here
    off = [c for c, _, _ in where if c.official]
    assert off and all(dict(c.params).get("nn_mode") == "official_shared" and dict(c.params)["official_train_subset"]
                       for c in off if c.algorithm == "FN-UCB")
    # the text's training is FN-UCB's default (own_prev), so the plain curves leave nn_mode out
    assert all("nn_mode" not in dict(c.params) for c, _, _ in where if not c.official and c.algorithm == "FN-UCB")
    cfg = off[0].config(p)
    assert cfg["env"].get("sampler") == "cube_normalized" or cfg["env"].get("official_streams")


def test_quick_set_covers_the_quick_figures():
    p = ex.fn_params("quick")
    figs = {c.figure for c in ex.curves(p)}
    assert figs == {"1a", "1b", "1c", "1d", "2c", "3", "4"}  # 6 is drawn from 1a/1b's runs
    envs4 = {c.env for c in ex.curves(p) if c.figure == "4"}
    assert envs4 == {"cosine", "square"}


def test_paper_hyperparameters():
    p = ex.fn_params("full")
    by = {(c.figure, c.label): dict(c.params) for c in ex.curves(p)}
    assert by[("1a", "FN-UCB (N=2)")]["lam"] == 0.1 and by[("1a", "FN-UCB (N=2)")]["nu_b"] == 0.1
    assert by[("2a", "FN-UCB (N=2)")]["lam"] == 10.0 and by[("2a", "FN-UCB (N=2)")]["nu_b"] == 0.01
    assert by[("2c", "FN-UCB (N=2, diag)")]["width"] == 50 and by[("2c", "FN-UCB (N=2, diag)")]["diag"]
    assert by[("4", "LinearUCB (ν=0.01)")] == {"lam": 1.0, "nu": 0.01}
    assert by[("3", "FN-UCB (N=2, full)")]["variant"] == "full" and "variant" not in by[("3", "FN-UCB (N=2, Less Comm.)")]


def _fake_1c(T):
    """Hand-made per-run R̄(T) for Fig. 1c: only UCB_a clearly worst, only UCB_b below it."""
    p = ex.fn_params("quick", figures=["1c"], T=T)
    rows = []
    vals = {"FN-UCB (N=2)": [30, 32, 31], "only UCB_a": [60, 62, 64], "only UCB_b": [40, 41, 45],
            "no NN aggregation": [35, 36, 38]}
    for lab, v in vals.items():
        for rep, x in enumerate(v):
            rows.append({"figure": "1c", "env": "cosine", "label": lab, "N": 2, "rep": rep, "R_T": float(x),
                         "official": False})
    return ex.FNResults(p, pd.DataFrame(), pd.DataFrame(rows))


def test_long_run_claims_not_judged_before_the_alpha_ramp_ends():
    short = {c.id: c for c in ex_claims.fn_claims(_fake_1c(500), method="t")}
    long = {c.id: c for c in ex_claims.fn_claims(_fake_1c(ex.ALPHA_FULL_T), method="t")}
    for cid in ("fig1c-only-ucb-a-worst", "fig1c-only-ucb-b-below-a"):
        assert short[cid].verdict == "INCONCLUSIVE" and "not judged at T = 500" in short[cid].value
        assert "(the interval's own verdict: PASS)" in short[cid].value
        assert long[cid].verdict == "PASS"
    assert short["fig1c-aggregation-helps"].verdict == "PASS"  # not a long-run claim


# ------------------------------------------------------------------------------ theory module
def test_theory_params_and_tasks():
    q, f = th.theory_params("quick"), th.theory_params("full")
    assert (q["T"], q["n_runs"]) == (500, 3) and (f["T"], f["T_E3"]) == (1000, 2000)
    assert f["D_grid"] == [0.5, 1.0, 2.5, 5.0, 10.0, 20.0]
    for bad, word in (({"D_grid": [1.0, 2.0]}, "D_grid"), ({"N_grid": [0, 1, 2]}, "N_grid"), ({"c_N": 0}, "c_N"),
                      ({"T": 0}, "T"), ({"device": "tpu"}, "device")):
        with pytest.raises(ParameterError, match=word):
            th.theory_params("quick", **bad)
    tasks = th.theory_tasks(q)
    assert len(tasks["E5"]) == len(q["D_grid"]) * 3 and len(tasks["E6"]) == len(q["N_grid"]) * 3
    d6 = {c["N"]: c["params"]["D"] for c, _ in tasks["E6"]}
    assert all(math.isclose(d6[N], th.C_N * q["T"] / N) for N in q["N_grid"])
    assert all("D" not in c["params"] for c, _ in tasks["E3"] + tasks["E3a"])  # every round
    assert {c["algorithm"] for c, _ in tasks["E3a"]} == {"FN-UCB [only UCB_a]"}


def test_round_bound_closed_form():
    zeta, b = th.round_bound(100, 4.0, 25.0)  # ζ = √(4·100/25) = 4: ⌈100/4⌉ + ⌈25·4/4⌉ = 25 + 25
    assert zeta == 4.0 and b == 50.0
    assert th.round_bound(100, 1.0, 0.2)[0] == 10.0  # R floored at 1


def test_recorded_run_potential_and_theorem2_bound():
    cfg = th._config(th.theory_params("quick", m=4), "FN-UCB", 2, 40, D=2.0)
    r = th.run_theory_cell(cfg, 0, 0)
    info, pot, fin = r["meta"]["info"], np.asarray(r["arrays"]["potential"]), r["meta"]["final"]
    assert pot.size == info["n_rounds"] == len(info["round_times"]) > 0
    assert np.all(np.diff(pot) >= 0) and math.isclose(pot[-1], fin["potential_diag"])
    # the exact log det never exceeds the diagonal one (Hadamard's inequality)
    assert fin["potential_exact"] <= fin["potential_diag"] + 1e-9
    _, bound = th.round_bound(40, 2.0, math.ceil(fin["potential_diag"]))
    assert info["n_rounds"] <= bound
    again = th.run_theory_cell(cfg, 0, 0)
    assert np.array_equal(again["arrays"]["regret"], r["arrays"]["regret"])  # same seed, same numbers


def test_a_diverged_run_is_reported_and_left_out_of_curves_and_claims(monkeypatch, tmp_path):
    from bandits.experiments import fn_ucb as ex

    real = ex.sweep

    def sweep_with_one_failure(tasks, seed, **kw):
        results, stats = real(tasks, seed, **kw)
        assert all(cfg["on_divergence"] == "record" for cfg, _ in tasks)
        T = tasks[0][0]["T"]
        results[0] = {"arrays": {k: np.full(T, np.nan) for k in ("regret", "comm_up", "comm_down", "n_active")},
                      "meta": {"failed": "FloatingPointError: scores are not finite at t=4", "info": {},
                               "wall_time": None, "n_agents": tasks[0][0]["N"]}}
        return results, stats

    monkeypatch.setattr(ex, "sweep", sweep_with_one_failure)
    p = ex.fn_params("quick", figures=["1c"], T=12, n_runs=3)
    res = ex.run_fn(p, cache_dir=str(tmp_path), progress=False)
    fails = ex.failed_runs(res)
    assert len(fails) == 1 and fails.failed[0].startswith("FloatingPointError")
    lab, rep = fails.label[0], fails.rep[0]
    assert not ((res.curves.label == lab) & (res.curves.rep == rep)).any()
    assert res.curves.regret.notna().all()
    claims = ex_claims.fn_claims(res)  # runs on the complete pairs only
    assert claims
    fig = ex_plots.plot_panels(res, ["1c"])
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert any("1 of 3 runs diverged" in t for t in legend)


def test_results_csv_keeps_every_csv_stride_th_round_and_the_last(tmp_path):
    from bandits.experiments.notebook import results_rows, write_results_csv

    p = ex.fn_params("full", T=1050)
    assert p["stride"] == 10 and p["csv_stride"] == 100
    t = np.arange(10, 1051, 10)  # the rounds the curves keep (stride 10) up to T
    curves = pd.DataFrame({"t": t, "regret": t * 0.5})
    kept = results_rows(curves, p["csv_stride"])["t"].tolist()
    assert kept[:3] == [100, 200, 300] and kept[-2:] == [1000, 1050] and len(kept) == 11
    assert results_rows(curves, 1) is curves
    quick = ex.fn_params("quick")
    assert quick["csv_stride"] == quick["stride"]  # quick mode: every stored point
    with pytest.raises(ParameterError, match="csv_stride"):
        ex.fn_params("full", csv_stride=15)
    # each curve's own last round (curves of different lengths), six significant digits
    two = pd.DataFrame({"row": ["a"] * 5 + ["b"] * 3, "t": [1, 2, 3, 4, 5, 1, 2, 3],
                        "regret": [1 / 3, 2 / 3, 1.0, 4 / 3, 5 / 3, 0.1, 0.2, 0.3]})
    path = write_results_csv(two, tmp_path / "results.csv", 2, keys=["row"])
    back = pd.read_csv(path)
    assert list(zip(back.row, back.t)) == [("a", 2), ("a", 4), ("a", 5), ("b", 2), ("b", 3)]
    assert path.read_text().splitlines()[1] == "a,2,0.666667"


@pytest.mark.parametrize("make", [ex.fn_params, th.theory_params])
def test_device_auto_is_resolved_before_the_runs_are_keyed(make):
    """``device="auto"`` becomes the concrete device in the parameters (and so in every run's cache key):
    a run computed on a GPU is never loaded as a CPU run, or the reverse."""
    import torch

    assert make("quick")["device"] == "cpu"
    assert make("quick", device="auto")["device"] == ("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ParameterError, match="device"):
        make("quick", device="gpu")


def test_quick_mode_runs_both_trainings_beside_1a_and_1d():
    p = ex.fn_params("quick")
    labels = {(c.figure, c.label) for c in ex.curves(p)}
    for D in (2.5, 5):
        assert ("1d", f"FN-UCB (N=5, D={D:g})") in labels and ("1d", f"FN-UCB (N=5, D={D:g}) [official]") in labels
    f = ex.fn_params("full")
    flab = {(c.figure, c.label) for c in ex.curves(f)}
    assert ("2d", "FN-UCB (N=5, diag, D=0.05) [official]") in flab and ("2c", "NeuralTS [diag] [official]") in flab


def test_fig4_nu_selected_on_disjoint_runs():
    p = ex.fn_params("full", figures=["4"], fig4_envs=["cosine"])
    tasks, where = ex.fn_tasks(p)
    test_reps = {r for c, r, _ in where if c.figure == "4"}
    sel_reps = {r for c, r, _ in where if c.figure == "4-select"}
    assert test_reps == {0, 1, 2} and sel_reps == {3, 4} and not test_reps & sel_reps
    # claims: ν picked on the selection runs, the claim tested on the others
    rows = []
    for lab, (sel, test) in {"NeuralUCB": (None, [10, 11, 12]), "NeuralTS": (None, [10, 12, 11]),
                             "LinearUCB (ν=1)": ([5, 5], [50, 51, 52]), "LinearUCB (ν=0.1)": ([90, 90], [1, 2, 3])
                             }.items():
        for rep, x in enumerate(test):
            rows.append({"figure": "4", "env": "cosine", "label": lab, "N": 1, "rep": rep, "R_T": float(x)})
        for rep, x in enumerate(sel or []):
            rows.append({"figure": "4-select", "env": "cosine", "label": lab, "N": 1, "rep": 3 + rep, "R_T": float(x)})
    res = ex.FNResults(dict(p, nu_grid=[1.0, 0.1]), pd.DataFrame(), pd.DataFrame(rows))
    (c,) = ex_claims.fn_claims(res, method="t")
    assert "LinearUCB (ν=1)" in c.detail[0] and c.verdict == "PASS"  # ν = 1 won the selection runs


def _fake_1d(fail_rep=None):
    p = ex.fn_params("quick", figures=["1d"], D_cosine=[5.0, 2.5])
    rows = []
    base = {"FN-UCB (N=5, comm. every round)": [30, 32, 31], "FN-UCB (N=5, D=2.5)": [60, 62, 64],
            "FN-UCB (N=5, D=5)": [90, 91, 95]}
    for tag in ("", " [official]"):
        for lab, v in base.items():
            for rep, x in enumerate(v):
                bad = fail_rep is not None and rep == fail_rep and lab.endswith("D=5)") and not tag
                rows.append({"figure": "1d", "env": "cosine", "label": lab + tag, "N": 5, "rep": rep,
                             "R_T": float("nan") if bad else float(x), "official": bool(tag),
                             "failed": "FloatingPointError: diverged" if bad else ""})
    return ex.FNResults(p, pd.DataFrame(), pd.DataFrame(rows))


def test_both_trainings_claimed_and_diverged_runs_count():
    ok = {c.id: c for c in ex_claims.fn_claims(_fake_1d(), method="t")}
    assert ok["fig1d-smaller-D-less-regret"].verdict == "PASS"
    assert ok["fig1d-smaller-D-less-regret-official"].verdict == "PASS"
    bad = {c.id: c for c in ex_claims.fn_claims(_fake_1d(fail_rep=1), method="t")}
    c = bad["fig1d-smaller-D-less-regret"]
    assert c.verdict == "INCONCLUSIVE" and "1 of 3 runs of FN-UCB (N=5, D=5) diverged" in c.value
    assert c.cause == "open"
    assert bad["fig1d-smaller-D-less-regret-official"].verdict == "PASS"


def _norm(text):
    import re

    return re.sub(r"\s+", " ", text).strip()


def test_claim_labels_and_verbatim_quotes():
    from pathlib import Path

    paper = Path("/work/shared/papers/fn-ucb.txt")
    for quote, source in ex_claims.Q.values():
        assert source
        if paper.is_file():
            assert _norm(quote) in _norm(paper.read_text()), quote
    # fig3 compares two variants that make identical choices here: an implementation check
    p = ex.fn_params("quick", figures=["3"])
    rows = [{"figure": "3", "env": e, "label": f"FN-UCB (N=2, {v})", "N": 2, "rep": r, "R_T": 10.0 + r}
            for e in ("cosine", "square") for v in ("Less Comm.", "full") for r in range(3)]
    cl = ex_claims.fn_claims(ex.FNResults(p, pd.DataFrame(), pd.DataFrame(rows)), method="t")
    assert {c.kind for c in cl} == {"implementation"} and all(c.quote == "verbatim" for c in cl)
    ok = {c.id: c for c in ex_claims.fn_claims(_fake_1d(), method="t")}
    assert all(c.cause is None for c in ok.values())  # PASS: no cause


def test_theory_official_twins():
    q = th.theory_params("quick")
    tasks = th.theory_tasks(q)
    for g in th.OFFICIAL_CHECKS:
        assert len(tasks[g + "o"]) == len(tasks[g])
        assert all(c["params"]["nn_mode"] == "official_shared" and c["env"]["sampler"] == "cube_normalized"
                   for c, _ in tasks[g + "o"])
        assert all("nn_mode" not in c["params"] for c, _ in tasks[g])
    assert "E5o" not in th.theory_tasks(th.theory_params("quick", official=False))


def test_committed_note_is_written_from_the_folder():
    """figures/fn_ucb/NOTE.md is what `python -m bandits.report note figures/fn_ucb` writes from the folder's files
    (so no number in it can go stale)."""
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "figures" / "fn_ucb"
    assert (folder / "NOTE.md").read_text() == fn_ucb_note.note_markdown(folder)


def test_note_reads_whatever_the_sequential_step_wrote(tmp_path):
    """The note reads the stages and stop reasons sequential.json holds (a futility stop included), and leaves out
    the sequential section in a folder without it (quick mode)."""
    import json
    import shutil
    from pathlib import Path

    src = Path(__file__).resolve().parents[1] / "figures" / "fn_ucb"
    for name in ("runs.csv", "claims.json", "provenance.json"):
        shutil.copy(src / name, tmp_path / name)
    note = fn_ucb_note.note_markdown(tmp_path)
    assert "## The sequential step" not in note and "Measured outside these runs" in note
    s = json.loads((src / "sequential.json").read_text())
    s["futility"], s["futility_from_look"] = True, 2
    # an open claim (stopped by the budget, or INCONCLUSIVE at the schedule's last look) turned into a futility stop
    cid = next(c for c, r in s["claims"].items() if r["verdict"] == "INCONCLUSIVE" and r.get("stopped") != "futility")
    n_fut = 1 + sum(r.get("stopped") == "futility" for r in s["claims"].values())
    s["claims"][cid].update(stopped="futility", futility="a tie at its threshold: no number of runs decides it")
    s["stages"] = [st for st in s["stages"] if not st.get("refused")]  # a stored look in place of a refused one
    k = s["stages"][-1]["look"] + 1
    if k <= len(s["design"]["schedule"]):
        s["stages"].append({"look": k, "n": s["design"]["schedule"][k - 1], "cells": [], "reps": [], "claims": [cid],
                            "runs": 3, "stored": 3, "computed": 0, "cached": 0, "recorded_s": 1.0, "failed": 1})
    else:  # the schedule's last look ran: it is read back from the folder instead
        s["stages"][-1].update(runs=3, stored=3, computed=0, cached=0)
    (tmp_path / "sequential.json").write_text(json.dumps(s))
    note = fn_ucb_note.note_markdown(tmp_path)
    assert "the futility stop from look 2 on" in note and f"{n_fut} stopped for futility" in note
    assert f"| `{cid}` | " in note and "futility: a tie at its threshold" in note
    assert "3 read back from `sequential_runs/`" in note
