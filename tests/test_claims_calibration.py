"""Calibration of bandits.claims: with no true effect, a one-sided claim decided by a
two-sided 95 % interval may PASS at most 2.5 % of the time, at every run count a committed claim
uses, for normal and heavy-tailed nulls. The nulls are simulated through the public functions
(:func:`bandits.claims.null_pass_rate`), with fixed seeds (the rates are deterministic).

Run counts: the committed figures/*/claims.json use n = 2 (no interval: INCONCLUSIVE by rule),
3, 4, 5, 6, 10, 11, 12, 20, 50 and 100 paired runs, and slopes on 3 to 11 points (and over 3 to
10 runs); n = 100 behaves like 50 and is left out for time.

Allowed rate: the nominal 2.5 % plus three Monte-Carlo standard errors of a rate of 2.5 %.
"""
import math

import numpy as np

import pytest

from bandits import claims as C

ALPHA = 0.025
RUNS = (3, 4, 5, 6, 10, 12, 20, 50)
DISTS = ("normal", "t2", "lognormal")


def _limit(n_sims):
    return ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / n_sims)


def _check(cells):
    bad = [c for c in cells if c["pass"] > _limit(c["n_sims"]) or c["fail"] > _limit(c["n_sims"])]
    assert not bad, "false-PASS (or false-FAIL) rate above the level:\n" + "\n".join(
        f"{c['kind']} n={c['n']} {c['dist']}: PASS {c['pass']:.4f}, FAIL {c['fail']:.4f} "
        f"(limit {_limit(c['n_sims']):.4f}, {c['n_sims']} sims)" for c in bad)


def test_paired_differences_are_calibrated_at_every_run_count():
    _check([C.null_pass_rate("paired", n, d, n_sims=1000) for n in RUNS for d in DISTS])


def test_ratios_unpaired_equivalence_and_ols_slopes_are_calibrated():
    cells = [C.null_pass_rate("ratio", n, d, n_sims=1000) for n in (3, 4, 5, 10, 20) for d in DISTS]
    cells += [C.null_pass_rate("unpaired", n, d, n_sims=1000) for n in (3, 5, 10) for d in ("normal", "lognormal")]
    # an equivalence claim whose true effect sits on its margin must not PASS
    cells += [C.null_pass_rate("equivalence", n, d, n_sims=1000) for n in (3, 5, 10) for d in DISTS]
    cells += [C.null_pass_rate("slope", m, d, n_sims=1000) for m in (3, 4, 5, 6, 11) for d in DISTS]
    _check(cells)


def test_generic_statistics_and_slopes_over_runs_are_calibrated():
    # a nonlinear statistic (log ratio of two means) of skewed runs; slopes of the mean over runs
    cells = [C.null_pass_rate("statistic", n, d, n_sims=300, n_boot=300) for n in (4, 5, 10)
             for d in ("lognormal", "t2")]
    cells += [C.null_pass_rate("slope-runs", n, "normal", n_sims=300, n_boot=300) for n in (3, 5, 10)]
    _check(cells)
    # at n = 3 a generic statistic has no finite studentised interval: never PASS
    assert C.null_pass_rate("statistic", 3, "lognormal", n_sims=100, n_boot=300)["pass"] == 0


def test_the_check_detects_the_old_percentile_bootstrap():
    # the numbers: the percentile bootstrap PASSes a null about 13 % of the time at n = 3
    r = C.null_pass_rate("paired", 3, "normal", n_sims=400, method="percentile", n_boot=400)
    assert r["pass"] > _limit(400)


@pytest.mark.slow
def test_power_is_reported_and_grows_with_runs():
    rows = C.power_table(ns=(3, 5, 10), effects=(0.0, 1.0, 2.0), n_sims=1000)
    by = {(r["n"], r["effect"]): r for r in rows}
    for n in (3, 5, 10):
        assert by[(n, 0.0)]["pass"] <= _limit(1000)
        assert by[(n, 2.0)]["pass"] >= by[(n, 1.0)]["pass"] >= by[(n, 0.0)]["pass"]
        assert by[(n, 1.0)]["pass"] == pytest.approx(by[(n, 1.0)]["exact_t"], abs=0.05)
    assert by[(10, 1.0)]["pass"] > by[(3, 1.0)]["pass"]


# ------------------------------------------------------------------------------ the sequential rule
# Simulated through bandits.sequential at the stage schedules it is used with (S.used_schedules(): the committed
# full-mode steps' and the default's at n0 = 3 and 5), both spending functions. 40 000 sequences per null: the Monte-Carlo standard
# error of a rate of 2.5 % is 0.078 points; allowed: 2.5 % + 3 s.e. = 2.73 %.
from bandits import sequential as S  # noqa: E402

SEQ_SIMS = 40_000
SCHEDULES = S.used_schedules()


@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("kind", S.SPENDING)
def test_sequential_rule_false_pass_and_fail_across_looks(schedule, kind):
    des = S.Design(schedule, kind=kind)
    cells = [dict(S.simulate(des, d, 0.0, SEQ_SIMS, seed=7), kind="sequential", n=schedule[-1])
             for d in ("normal", "t3")]
    _check(cells)


def test_sequential_within_margin_stop_is_calibrated():
    # "no difference beyond m" when the effect sits at threshold + m: at most 2.5 % (one side of a TOST per look)
    des = S.Design((5, 10, 20, 40))
    for d in ("normal", "t3"):
        r = S.simulate(des, d, 0.5, SEQ_SIMS, seed=8, margin=0.5)
        assert r["within"] <= _limit(SEQ_SIMS), (d, r["within"])
        # stopping within the margin only removes sequences: no more false FAIL than without it
        assert r["fail"] <= S.simulate(des, d, 0.5, SEQ_SIMS, seed=8)["fail"] + 1e-12


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_sequential_futility_stop_adds_no_false_pass_or_fail(schedule):
    # the non-binding futility stop only removes sequences from later looks: at the threshold the rates stay
    # within the level (and no higher than without it, on the same sequences); under an effect it stops some
    des = S.Design(schedule, kind="pocock")
    for d in ("normal", "t3"):
        on = S.simulate(des, d, 0.0, SEQ_SIMS, seed=10, futility=True)
        off = S.simulate(des, d, 0.0, SEQ_SIMS, seed=10)
        _check([dict(on, kind="sequential", n=schedule[-1])])
        assert on["pass"] <= off["pass"] + 1e-12 and on["fail"] <= off["fail"] + 1e-12, (d, on, off)
        assert on["futile"] > 0.3 and on["mean_n"] < off["mean_n"]  # at the threshold most sequences are futile
    # a one-s.d. effect is rarely stopped: the schedule decides it
    eff = S.simulate(S.Design((10, 20, 40, 80), kind="pocock"), "normal", -1.0, 10_000, seed=11, futility=True)
    assert eff["pass"] > 0.95 and eff["futile"] < 0.02


def test_sequential_skewed_null_no_worse_than_the_t_test_at_its_first_look():
    # a centred lognormal(0, 1) is far from any t-type rule's reach (the fixed-size t-test alone wrongly PASSes
    # 10-18 % at n = 5..40); the looks add nothing beyond the t-test's own error at the smallest n
    from scipy.stats import t as student

    des = S.Design((5, 10, 20, 40))
    r = S.simulate(des, "lognormal", 0.0, SEQ_SIMS, seed=9)
    rng = np.random.default_rng(9)
    x = S._draw(rng, "lognormal", (SEQ_SIMS, 5))
    tt = x.mean(1) / (x.std(1, ddof=1) / math.sqrt(5))
    fixed5 = float(np.mean(tt < -student.ppf(0.975, 4)))
    assert r["pass"] <= fixed5


@pytest.mark.xfail(strict=True, reason="a t-type rule is not calibrated for a strongly skewed (lognormal) per-run value")
def test_sequential_rule_on_a_skewed_null_exceeds_the_level():
    _check([dict(S.simulate(S.Design((5, 10, 20, 40)), "lognormal", 0.0, SEQ_SIMS, seed=7), kind="sequential", n=40)])


def test_sequential_boundaries_spend_alpha_and_power_grows_by_look():
    des = S.Design((5, 10, 20, 40))
    assert des.spent()[-1] == pytest.approx(0.025)
    assert all(a < b for a, b in zip(des.p, des.p[1:]))  # O'Brien-Fleming: strict early, near 2.5 % at the end
    assert des.p[-1] < 0.025
    r = S.simulate(des, "normal", -1.0, 10_000, seed=1)
    assert all(a <= b for a, b in zip(r["pass_by_look"], r["pass_by_look"][1:]))
    assert r["pass"] > 0.95  # one s.d. effect: decided by 40 runs


def test_look_verdict_matches_the_fixed_rule_at_the_looks_level():
    des = S.Design((3, 5, 10))
    d = np.array([-1.0, -1.2, -0.8, -1.1, -0.9, -1.05, -0.95, -1.0, -1.02, -0.98])
    v, lo, hi = S.look_verdict(d, des, 2)
    c = C.compare_paired(d, np.zeros(10), "<", level=des.level(2))
    assert (v, lo, hi) == (c.verdict, c.lo, c.hi)
    assert S.look_verdict(np.array([0.1, -0.1, 0.05, -0.05, 0.0]), des, 1, margin=10.0)[0] == "WITHIN"


def test_sequential_step_end_to_end_on_a_synthetic_experiment(tmp_path):
    from bandits.experiments.toy_sequential import ToyExperiment

    ex = ToyExperiment(margins={"toy-A-below-C": 1.0})
    folder = ex.make_folder(tmp_path / "toy", n0=3, cache_dir=tmp_path / "cache")
    des = S.Design((3, 5, 10, 20))
    out = S.decide(ex, folder, des, cache_dir=tmp_path / "cache")
    cl = out["claims"]
    assert cl["toy-A-below-B"]["verdict"] == "PASS" and cl["toy-A-below-D"]["verdict"] == "FAIL"
    assert cl["toy-A-below-C"]["verdict"] == "WITHIN" and "no difference beyond 1" in cl["toy-A-below-C"]["within"]
    assert "toy-median-A" in out["not_covered"]  # the hull interval is not covered
    assert all(r["decided_at_n"] in des.schedule for r in cl.values())
    # only the cells behind undecided claims get runs: after B and D are decided, only A and C
    last = out["stages"][-1]
    if cl["toy-A-below-B"]["decided_at_n"] < last["n"] and cl["toy-A-below-D"]["decided_at_n"] < last["n"]:
        assert last["cells"] == ["'A'", "'C'"]
    assert (folder / "sequential.json").exists()
    import json

    cj = {c["id"]: c for c in json.loads((folder / "claims.json").read_text())["claims"]}
    assert cj["toy-A-below-B"]["verdict"] == "PASS" and "sequential rule: PASS at n = " in cj["toy-A-below-B"]["note"]
    assert "settled: no difference beyond 1" in cj["toy-A-below-C"]["note"]
    assert cj["toy-A-below-C"]["verdict"] == "INCONCLUSIVE" and cj["toy-median-A"]["note"] == ""
    assert cj["toy-A-below-B"]["level"] == pytest.approx(des.level(des.schedule.index(cl["toy-A-below-B"]["decided_at_n"])))
    # resumable: a second pass finds every run in the cache and decides the same
    again = S.decide(ex, folder, des, cache_dir=tmp_path / "cache")
    assert all(s["computed"] == 0 for s in again["stages"])
    assert {k: v["verdict"] for k, v in again["claims"].items()} == {k: v["verdict"] for k, v in cl.items()}
    assert again["claims"]["toy-A-below-B"]["committed_verdict"] == cl["toy-A-below-B"]["committed_verdict"]
    # a budget that admits the second stage only: the third is refused, the open claims stay INCONCLUSIVE
    cost2 = out["stages"][0]["estimated_s"]
    capped = S.decide(ex, folder, des, budget_s=cost2 + 1, cache_dir=tmp_path / "cache", write=False)
    assert capped["stopped"] == "budget" and "refused" in capped["stages"][-1]
    assert capped["cpu_s"] <= cost2 + 1


def test_sequential_step_stops_a_tie_for_futility_and_aims_the_runs(tmp_path):
    from bandits.experiments.toy_sequential import ToyExperiment

    ex = ToyExperiment()  # A and C have the same mean: no number of runs decides "A below C"
    folder = ex.make_folder(tmp_path / "toy", n0=3, cache_dir=tmp_path / "cache")
    des = S.Design((3, 5, 10, 20), kind="pocock")
    plain = S.decide(ex, folder, des, cache_dir=tmp_path / "cache", write=False)
    aimed = S.decide(ex, folder, des, cache_dir=tmp_path / "cache", write=False, futility=True)
    c = aimed["claims"]["toy-A-below-C"]
    assert c["verdict"] == "INCONCLUSIVE" and c["stopped"] == "futility" and c["decided_at_n"] < 20, c
    assert "runs (the schedule's last look)" in c["futility"] or "tie" in c["futility"]
    assert aimed["futility"] is True and plain["futility"] is False
    # the decided claims are the same; the stages after the stop add no runs to C's cell
    for cid in ("toy-A-below-B", "toy-A-below-D"):
        assert aimed["claims"][cid]["verdict"] == plain["claims"][cid]["verdict"]
    later = [s for s in aimed["stages"] if s["n"] > c["decided_at_n"]]
    assert all("'C'" not in s["cells"] for s in later)
    assert "[futility]" in S.summary(aimed)
    # from a later look: the looks before it exactly as without the stop, the stop from that look on
    late = S.decide(ex, folder, des, cache_dir=tmp_path / "cache", write=False, futility=3)
    assert late["futility_from_look"] == 3
    first = plain["stages"][0]
    assert late["stages"][0]["cells"] == first["cells"] and late["stages"][0]["reps"] == first["reps"]
    cl = late["claims"]["toy-A-below-C"]
    assert cl["stopped"] == "futility" and cl["look"] >= 3, cl
    with pytest.raises(ValueError, match="look number"):
        S.decide(ex, folder, des, cache_dir=tmp_path / "cache", write=False, futility=-1)


def test_duets_hooks_on_the_committed_folder_without_runs():
    # look 1 on the committed runs only (a budget of 0 s refuses the first stage): every Figure-1 claim is
    # covered, the cells behind a regret claim are DUETS and its three baselines at the β the tuning runs picked
    from pathlib import Path

    from bandits.experiments.duets_sequential import DuetsSequential

    folder = Path(__file__).resolve().parents[1] / "figures" / "duets"
    if not (folder / "runs.csv").exists():
        pytest.skip("figures/duets not committed")
    ex = DuetsSequential()
    out = S.decide(ex, folder, S.Design((5, 10, 20, 40)), budget_s=0.0, write=False)
    assert not out["not_covered"] and out["stopped"] == "budget" and out["cpu_s"] == 0
    assert len(out["claims"]) == 12 and all(r["decided_at_n"] == 5 for r in out["claims"].values())
    state = ex.load(folder)
    cells = ex.claim_cells("fig1-regret-h2", state)
    assert [c[1] for c in cells] == ["DUETS", "DisKernelUCB", "ApproxDisKernelUCB", "N-KernelUCB"]
    assert ex.new_reps(state, 10) == [7, 8, 9, 10, 11]  # the tuning runs 5 and 6 stay out of the tests
    assert set(ex.margins) == set(out["claims"]) and all(m > 0 for m in ex.margins.values())


def test_fn_ucb_hooks_on_the_committed_folder_without_runs():
    # look 1 only: every claim is covered (the fig6 slopes are Student's t over one slope per run, "t-runs");
    # a claim's cells are the curves its claims function reads, Figure 4's ν-selection runs never among them
    from pathlib import Path

    from bandits.experiments.fn_ucb_sequential import FNUCBSequential

    folder = Path(__file__).resolve().parents[1] / "figures" / "fn_ucb"
    if not (folder / "runs.csv").exists():
        pytest.skip("figures/fn_ucb not committed")
    ex = FNUCBSequential()
    out = S.decide(ex, folder, S.Design((3, 6, 12, 24)), budget_s=0.0, write=False)
    assert not out["not_covered"]
    assert out["stopped"] == "budget" and out["stages"][0]["estimated_s"] > 0
    state = ex.load(folder)
    assert ex.claim_cells("fig1a-n2-beats-baselines", state) == [
        ("1a", "cosine", "FN-UCB (N=2)"), ("1a", "cosine", "NeuralTS"), ("1a", "cosine", "NeuralUCB")]
    assert not any(c[0] == "4-select" for cells in state["cells"].values() for c in cells)
    assert min(ex.new_reps(state, 6)) > int(state["runs"].rep.max())


def test_sequential_step_keeps_its_runs_in_the_folder_and_resumes_without_the_cache(tmp_path):
    """The step keeps each look's runs in folder/sequential_runs/ as the look ends; a later pass with the run cache
    gone reads them back (nothing computed again) and decides the same; the folder's files alone give the runs the
    claims were decided on; a notebook's fresh pass starts the kept runs anew."""
    import json

    import pandas as pd

    from bandits.experiments.toy_sequential import ToyExperiment

    ex = ToyExperiment()
    folder = ex.make_folder(tmp_path / "toy", n0=3, cache_dir=tmp_path / "cache0")
    des = S.Design((3, 5, 10, 20), kind="pocock")
    first = S.decide(ex, folder, des, cache_dir=tmp_path / "cache1", write=True)
    kept = folder / S.STORED
    man = json.loads((kept / "manifest.json").read_text())
    ran = [st for st in first["stages"] if "refused" not in st]
    assert ran and sorted(int(k) for k in man["looks"]) == [st["look"] for st in ran]
    rows = pd.read_csv(kept / "runs.csv")
    assert len(rows) == sum(st["runs"] for st in ran) and set(rows.look) == {st["look"] for st in ran}
    # the run cache lost: every look read back from the folder, the same verdicts and the same recorded CPU
    again = S.decide(ex, folder, des, cache_dir=tmp_path / "cache_empty", write=True)
    assert all(st.get("stored") == st["runs"] and st["computed"] == 0 for st in again["stages"] if "refused" not in st)
    assert {k: (v["verdict"], v["decided_at_n"]) for k, v in again["claims"].items()} == \
           {k: (v["verdict"], v["decided_at_n"]) for k, v in first["claims"].items()}
    assert again["cpu_s"] == pytest.approx(first["cpu_s"])
    # the folder's files alone: each claim decided at a later look recomputed from the kept runs
    for cid, r in first["claims"].items():
        if r["look"] > 1:
            state = S.stored_state(ex, folder, upto_look=r["look"])
            got = {c.id: c for c in ex.claims(state, r["level"])}[cid]
            assert got.verdict == r["verdict"] or r["verdict"] == "WITHIN", (cid, got.verdict, r)
    # a notebook's own pass (its runs just rewritten) clears them
    S.decide(ex, folder, S.Design((3,), kind="pocock"), cache_dir=tmp_path / "cache1", write=True, fresh=True)
    assert not kept.exists()


@pytest.mark.parametrize("name", ["fn_ucb", "duets"])
def test_stored_rows_read_back_give_the_same_claims(name, tmp_path):
    """The rows a look keeps in the folder (rows_of), written and read back as CSV, give the same claims as the
    rows in memory (stand-in results: the engines are not run here)."""
    from pathlib import Path

    import pandas as pd

    folder = Path(__file__).resolve().parents[1] / "figures" / name
    if not (folder / "runs.csv").exists():
        pytest.skip(f"figures/{name} not committed")
    ex = S.hooks_for(name)
    state = ex.load(folder)
    cells = next(c for c in (ex.claim_cells(k.id, state) for k in ex.claims(state, 0.95)) if c)
    reps = ex.new_reps(state, 2 * ex.n_runs(state))
    tasks = ex.tasks(cells, reps, state)
    rng = np.random.default_rng(0)
    T = int(state["params"]["T"])
    results = [{"arrays": {"regret": rng.random(T), "comm_up": np.ones(T), "comm_down": np.ones(T)},
                "meta": {"wall_time": 1.0, "comm_rounds": 3, "info": {"n_rounds": 5, "n_syncs": 2}}} for _ in tasks]
    rows = ex.rows_of(state, tasks, results)
    rows["runs"].to_csv(tmp_path / "runs.csv", index=False)
    back = {"runs": pd.read_csv(tmp_path / "runs.csv")}
    a = {c.id: (c.verdict, c.value) for c in ex.claims(ex.add_rows(state, rows), 0.95)}
    b = {c.id: (c.verdict, c.value) for c in ex.claims(ex.add_rows(state, back), 0.95)}
    assert a == b and ex.n_runs(ex.add_rows(state, back)) == ex.n_runs(ex.add_rows(state, rows))
