"""Async-KernelUCB Figure 2 through the runner on a tiny synthetic setting."""
import numpy as np
import pandas as pd
import pytest

from bandits.experiments import async_kernelucb as ex
from bandits.experiments import async_kernelucb_claims as exc
from bandits.experiments import async_kernelucb_plots as exp
from bandits.experiments.common import ParameterError


def test_fig2_pipeline_tiny(tmp_path):
    p = ex.async_params("quick", envs=["f1"], T=120, N=4, n_runs=3, device="cpu", gammas=[1.0])
    res = ex.run_fig2(p, seed=0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    assert set(res.runs.method) == set(ex.METHODS)
    nk = res.runs[res.runs.method == "NKernelUCB"]
    assert (nk.C_T == 0).all()
    one = res.runs[res.runs.method == "OneKernelUCB"].iloc[0]
    assert one.C_T == pytest.approx(120 * (20 + 1) * 4)  # (d+1) up + (d+1)(N-1) down per step
    claims = exc.fig2_claims(res)
    assert [c.id for c in claims] == ["fig2-kernel-vs-linear-regret-f1", "fig2-kernel-vs-linear-comm-f1",
                                      "fig2-async-vs-approx-comm-f1", "fig2-async-vs-approx-regret-f1",
                                      "fig2-extremes-f1"]
    assert all(c.kind == "paper" and c.source == "§5.2" for c in claims)
    assert sum(c.quote == "verbatim" for c in claims) == 4
    comm = [c for c in claims if c.id == "fig2-kernel-vs-linear-comm-f1"][0]
    assert "OneKernelUCB" in comm.check and len(comm.detail) == 2
    assert f"< {ex.MUCH_SMALLER:g}" in claims[2].check
    assert len(exp.plot_fig2(res).axes) == 2
    # random play's expected regret is on the panel and in the communication table
    rnd = res.random.groupby("rep").regret.last()
    assert len(rnd) == 3 and (rnd > 0).all()
    t = ex.comm_table(res).set_index("method")
    assert t.loc["OneKernelUCB", "C_over_One"] == 1.0 and t.loc["NKernelUCB", "C_T"] == 0
    assert t.loc[ex.RANDOM, "R_T"] == pytest.approx(rnd.mean())
    a = res.runs[res.runs.method == "Async-KernelUCB"]
    assert (a.prior_pulls <= 2 * 4).all() and (a.prior_pulls >= 4).all() and (a.R_prior <= a.R_T + 1e-9).all()


def test_grid_selection_keeps_all_results(tmp_path):
    p = ex.async_params("quick", envs=["f1"], T=60, N=3, n_runs=1, gammas=[0.1, 1.0], alphas=[1.0],
                        methods=["Async-KernelUCB", "DisLinUCB"], device="cpu")
    res = ex.run_fig2(p, seed=0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    assert len(res.tuning) == 2 * 3  # two kernel widths for Async, 3 tuning runs; DisLinUCB's single α is not tuned
    assert set(res.selected.method) == {"Async-KernelUCB", "DisLinUCB"}
    assert res.tuning.rep.min() == 100  # tuning seeds apart from the figure's


def test_parameters_are_validated_by_name():
    with pytest.raises(ParameterError, match="envs"):
        ex.async_params("quick", envs=["netflix"])
    with pytest.raises(ParameterError, match="gammas"):
        ex.async_params("quick", gammas=[-1.0])
    with pytest.raises(ParameterError, match="device"):
        ex.async_params("quick", device="tpu")


@pytest.mark.parametrize("name, dim", [("magic", 10), ("mushroom", 117), ("movielens", 20), ("yelp", 20)])
def test_dataset_environments(name, dim, monkeypatch):
    import os
    from pathlib import Path

    root = os.environ.get("BANDITS_DATA_DIR")
    if not root or not Path(root).is_dir():
        pytest.skip("BANDITS_DATA_DIR is not set to the shared data folder")
    from bandits.envs import make_env

    env = make_env({"name": name}, 0)
    agents, arms, means = env.round(0, 5, np.random.default_rng(0))
    assert len(agents) == 1  # one active client per step
    X = arms.for_agent(0)
    assert X.shape == (20, dim) and np.all((means >= 0) & (means <= 1))
    r = env.rewards(np.asarray(means).reshape(-1)[:1], np.random.default_rng(1))
    assert r[0] in (0.0, 1.0)
    if name in ("movielens", "yelp"):
        assert np.isclose(np.asarray(means).sum(), 1.0)  # exactly one positive arm


def test_threshold_sensitivity_tiny(tmp_path):
    p = ex.async_params("quick", envs=["f1"], T=80, N=3, n_runs=1, device="cpu", gammas=[1.0],
                        methods=["Async-KernelUCB", "Approx-DisKernelUCB"])
    res = ex.run_fig2(p, seed=0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    s = ex.run_D_sensitivity(res, Ds=(0.1, "1/N^2"), n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    methods = set(s.loc["f1"].index)
    assert {"Async-KernelUCB (D=1)", "Async-KernelUCB (D=0.1)", "Async-KernelUCB (D=1/N^2)",
            "Approx-DisKernelUCB"} <= methods
    # a smaller threshold never communicates less
    assert s.loc[("f1", "Async-KernelUCB (D=1/N^2)"), "C_T"] >= s.loc[("f1", "Async-KernelUCB (D=1)"), "C_T"]
    # with_runs: the same table and its own runs, one row each with its recorded times (figures/TIMES.md)
    s2, runs = ex.run_D_sensitivity(res, Ds=(0.1, "1/N^2"), n_jobs=1, backend="serial", cache_dir=tmp_path,
                                    progress=False, with_runs=True)
    pd.testing.assert_frame_equal(s, s2)
    assert len(runs) == 2 and {"wall_time", "cpu_time", "rep", "R_T"} <= set(runs.columns)
    assert runs.cpu_time.notna().all()


def test_full_mode_budget_parameters():
    full = ex.async_params("full", device="cpu")
    assert full["tune_T"] == 2000 and full["tune_runs"] == 3 and full["n_runs"] == ex.PAPER_RUNS == 10
    assert ex.method_runs(full, "f1", "Approx-DisKernelUCB") == 10  # the paper's 10 everywhere
    assert ex.method_runs(full, "magic", "Approx-DisKernelUCB") == 10  # fixed arms: cheap, all runs
    assert ex.method_runs(full, "f1", "Async-KernelUCB") == 10
    assert ex.method_runs(full, "yelp", "OneKernelUCB") == 3  # full mode's budget: 3 of the paper's 10
    assert ex.method_runs(ex.async_params("full", heavy_runs={}, device="cpu"), "yelp", "OneKernelUCB") == 10
    assert ex.method_runs(full, "mushroom", "OneKernelUCB") == 10
    assert ex.method_runs(ex.async_params("full", heavy_runs={}, device="cpu"), "yelp", "Approx-DisKernelUCB") == 10
    assert ex.method_runs(ex.async_params("full", heavy_runs={"Approx-DisKernelUCB": 50}, device="cpu"),
                          "f2", "Approx-DisKernelUCB") == 10  # never more than n_runs
    assert full["sens_runs"] == 3 and full["sens_envs"] == ["magic", "mushroom"]
    assert ex.async_params("quick", device="cpu")["n_runs"] == 3  # paired intervals need >= 3 runs
    assert ex.runs_text(3) == "3 of the paper's 10 runs"


@pytest.mark.parametrize("name, value", [("heavy_runs", {"Approx": 3}), ("heavy_runs", {"NKernelUCB": 0}),
                                         ("heavy_runs", [3]), ("max_dict_frac", 1.5), ("sens_runs", 0),
                                         ("sens_envs", ["netflix"])])
def test_budget_parameters_are_validated_by_name(name, value):
    with pytest.raises(ParameterError, match=name):
        ex.async_params("full", device="cpu", **{name: value})


def test_fewer_runs_for_one_method_are_labelled_and_paired(tmp_path):
    p = ex.async_params("quick", envs=["f1"], T=60, N=3, n_runs=4, device="cpu", gammas=[1.0],
                        methods=["Async-KernelUCB", "Approx-DisKernelUCB", "DisLinUCB"],
                        heavy_runs={"Approx-DisKernelUCB": 3})
    res = ex.run_fig2(p, seed=0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    counts = res.runs.groupby("method").rep.apply(sorted).to_dict()
    assert counts == {"Async-KernelUCB": [0, 1, 2, 3], "Approx-DisKernelUCB": [0, 1, 2], "DisLinUCB": [0, 1, 2, 3]}
    assert dict(zip(res.selected.method, res.selected.runs))["Approx-DisKernelUCB"] == 3
    claims = {c.id: c for c in exc.fig2_claims(res)}
    c = claims["fig2-async-vs-approx-comm-f1"]
    assert "4 of the paper's 10 runs" in c.check
    assert "Approx-DisKernelUCB: 3 of the paper's 10 runs" in c.check and "paired on the 3 common runs" in c.check
    # the paired comparison is the direct one on the three common runs
    from bandits.claims import compare_ratio

    a = res.runs[res.runs.method == "Async-KernelUCB"].sort_values("rep").C_T.to_numpy()[:3]
    b = res.runs[res.runs.method == "Approx-DisKernelUCB"].sort_values("rep").C_T.to_numpy()
    assert c.detail[0] == compare_ratio(a, b, "<", ex.MUCH_SMALLER, label="C(T) Async / Approx").text()
    fig = exp.plot_fig2(res)
    titles = [ax.get_title() for ax in fig.axes]
    assert any("Approx-DisKernelUCB: 3 of the paper's 10 runs" in t for t in titles)
    assert "4 of the paper's 10 runs" in fig._suptitle.get_text()


def test_select_settings_excludes_dense_dictionaries():
    import pandas as pd

    rows = []
    for g, r, m in [(0.1, 50.0, 10), (1.0, 40.0, 300), (4.0, 30.0, 950)]:  # γ = 4: best regret, dense
        for rep in (100, 101):
            rows.append({"env": "f1", "method": "Async-KernelUCB", "gamma": g, "alpha": 1.0, "rep": rep,
                         "T": 1000, "R_T": r + rep - 100, "dict_size": m})
    rows += [{"env": "f1", "method": "DisLinUCB", "gamma": None, "alpha": a, "rep": 100, "T": 1000,
              "R_T": 60.0 - a, "dict_size": np.nan} for a in (0.1, 1.0)]
    runs = pd.DataFrame(rows)
    p = ex.async_params("full", device="cpu")
    sel, table = ex.select_settings(p, runs, 1000)
    assert sel[("f1", "Async-KernelUCB")] == (1.0, 1.0)
    assert sel[("f1", "DisLinUCB")] == (None, 1.0)
    row = table.set_index("method").loc["Async-KernelUCB"]
    assert row.best_gamma == 4.0 and "γ=4" in row.excluded and "95%" in row.excluded
    # without the limit the smallest regret wins; with every setting dense, the smallest dictionary
    sel2, _ = ex.select_settings(dict(p, max_dict_frac=None), runs, 1000)
    assert sel2[("f1", "Async-KernelUCB")] == (4.0, 1.0)
    sel3, t3 = ex.select_settings(dict(p, max_dict_frac=0.005), runs, 1000)
    assert sel3[("f1", "Async-KernelUCB")] == (0.1, 1.0)
    assert "smallest dictionary" in t3.set_index("method").loc["Async-KernelUCB", "excluded"]


def _tuning_rows(spec, reps=(100, 101, 102)):
    """Tuning-table rows from ``{(method, γ): (mean R, spread, dict fraction)}`` (α = 1 only)."""
    import pandas as pd

    rows = []
    for (m, g), (r, sp, f) in spec.items():
        for i, rep in enumerate(reps):
            rows.append({"env": "f1", "method": m, "gamma": g, "alpha": 1.0, "rep": rep, "T": 1000,
                         "R_T": r + sp * (i - 1), "dict_size": f * 1000})
    return pd.DataFrame(rows)


def test_select_settings_rule_decided_and_common_gamma():
    p = ex.async_params("full", device="cpu", max_dict_frac=None)
    # Async separates γ = 1 cleanly (same ordering in every run); OneKernelUCB too: each keeps its own γ
    runs = _tuning_rows({("Async-KernelUCB", 0.1): (80.0, 1.0, 0.1), ("Async-KernelUCB", 1.0): (40.0, 1.0, 0.4),
                         ("OneKernelUCB", 0.1): (30.0, 1.0, 0.0), ("OneKernelUCB", 1.0): (60.0, 1.0, 0.0)})
    sel, table = ex.select_settings(p, runs, 1000)
    assert sel[("f1", "Async-KernelUCB")] == (1.0, 1.0) and sel[("f1", "OneKernelUCB")] == (0.1, 1.0)
    assert table.gamma_rule.str.startswith("decided").all()
    # OneKernelUCB's two γ within noise: undecided, so every kernel method takes one γ, the one with the
    # smallest regret relative to each method's best (γ = 1: Async 1, One 31/30; γ = 0.1: Async 2, One 1)
    runs = _tuning_rows({("Async-KernelUCB", 0.1): (80.0, 1.0, 0.1), ("Async-KernelUCB", 1.0): (40.0, 1.0, 0.4),
                         ("OneKernelUCB", 0.1): (30.0, 20.0, 0.0), ("OneKernelUCB", 1.0): (31.0, -20.0, 0.0)})
    sel, table = ex.select_settings(p, runs, 1000)
    assert sel[("f1", "Async-KernelUCB")] == (1.0, 1.0) and sel[("f1", "OneKernelUCB")] == (1.0, 1.0)
    row = table.set_index("method").loc["OneKernelUCB"]
    assert row.gamma_rule.startswith("undecided") and "common γ = 1" in row.gamma_rule


def test_select_settings_common_gamma_with_a_zero_regret_method():
    """Rule 4 with a method whose best tuning regret is 0 (OneKernelUCB on Mushroom):
    its 0/0 counts as 1 and a positive regret over 0 as ∞, so the other methods decide; the plain quotient
    made every score NaN and took the grid's first γ."""
    p = ex.async_params("full", device="cpu", max_dict_frac=None)
    runs = _tuning_rows({("Async-KernelUCB", 0.1): (180.0, 30.0, 0.1), ("Async-KernelUCB", 1.0): (90.0, 30.0, 0.1),
                         ("OneKernelUCB", 0.1): (0.0, 0.0, 0.0), ("OneKernelUCB", 1.0): (0.0, 0.0, 0.0)})
    sel, table = ex.select_settings(p, runs, 1000)
    assert sel[("f1", "Async-KernelUCB")] == (1.0, 1.0) and sel[("f1", "OneKernelUCB")] == (1.0, 1.0)
    assert "common γ = 1" in table.set_index("method").loc["OneKernelUCB", "gamma_rule"]
    assert ex._relative_regret(0.0, 0.0) == 1.0 and ex._relative_regret(2.0, 0.0) == float("inf")
    assert ex._relative_regret(3.0, 2.0) == 1.5


def test_gamma_sensitivity_tiny(tmp_path):
    p = ex.async_params("quick", envs=["f1"], T=80, N=3, n_runs=2, device="cpu", gammas=[1.0],
                        methods=["Async-KernelUCB", "Approx-DisKernelUCB", "OneKernelUCB"], gsens_envs=["f1"],
                        gsens_gammas=[0.1, 1.0], gsens_q=[2.0], gsens_runs=2)
    res = ex.run_fig2(p, seed=0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    t = ex.run_gamma_sensitivity(res, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    assert len(t) == 2 * 3 and (t.runs == 2).all()
    # the selected setting is Figure 2's run itself
    a = t[(t.method == "Async-KernelUCB") & (t.gamma == 1.0) & (t.q == 1.0)].iloc[0]
    assert a.R_T == pytest.approx(res.runs[res.runs.method == "Async-KernelUCB"].R_T.mean())
    assert len(exp.plot_gamma_sensitivity(t, res).axes) == 1
    # with_runs: the runs at Figure 2's T, one row each; those at Figure 2's own setting are its runs (the
    # same recorded times, from the run cache), which the generated note counts once
    t2, runs = ex.run_gamma_sensitivity(res, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False,
                                        with_runs=True)
    pd.testing.assert_frame_equal(t, t2)
    assert len(runs) == int(t.runs.sum()) and runs.cpu_time.notna().all()
    from bandits.experiments.async_kernelucb_note import _not_in_fig2

    extra = _not_in_fig2(runs, res.runs)
    own = (runs.gamma == 1.0) & (runs.q == 1.0)
    assert len(extra) == int((~own).sum()) == len(runs) - 2 * 2
    # figures/TIMES.md (tools/nbtools.py run_times) counts a Figure-2 run the panel shows once, as the notebook
    # writes both tables (at full precision)
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import nbtools

    folder = tmp_path / "folder"
    folder.mkdir()
    res.runs.to_csv(folder / "runs.csv", index=False)
    runs.to_csv(folder / "gamma_sensitivity_runs.csv", index=False)
    assert nbtools.run_times(folder)["runs"] == len(res.runs) + len(extra)


def test_random_reference_on_fixed_arms():
    import os
    from pathlib import Path

    root = os.environ.get("BANDITS_DATA_DIR")
    if not root or not Path(root).is_dir():
        pytest.skip("BANDITS_DATA_DIR is not set to the shared data folder")
    from bandits.envs import make_env

    p = ex.async_params("quick", device="cpu")
    r = ex.random_reference(p, "mushroom", [0], 50, every=1)
    f = make_env(ex.env_spec("mushroom", p), 0).f
    np.testing.assert_allclose(r.regret.to_numpy(), np.arange(1, 51) * (f.max() - f.mean()), rtol=1e-12)


def test_tuning_rule_verdict_is_compare_paired():
    """select_settings' paired comparison (written out in the run module, which may not import the
    claims modules) gives compare_paired's verdict (side "<", threshold 0, default interval)."""
    from bandits.claims import compare_paired

    rng = np.random.default_rng(3)
    for i in range(300):
        n = int(rng.integers(2, 8))
        a = rng.normal(0, 1, n) + rng.normal(0, 1.5)
        b = a + rng.normal(rng.normal(0, 1), rng.uniform(0.01, 2), n) if i % 7 else a.copy()
        if i % 11 == 0:
            b = a + 0.5  # every difference equal
        ra, rb = np.arange(n) + 100, np.arange(n) + 100 - (i % 3 == 0)
        assert ex.paired_t_verdict(a, b, ra, rb, 0.95) == compare_paired(a, b, "<", 0.0, reps_a=ra, reps_b=rb,
                                                                         level=0.95).verdict


def test_gamma_sensitivity_plot_without_its_environments():
    """A run whose ``envs`` hold none of ``gsens_envs`` (``envs=["mushroom"]``) has an empty γ/q table: the
    plot says so instead of failing (the notebook's γ/q cell runs for every subset of environments)."""
    import pandas as pd

    fig = exp.plot_gamma_sensitivity(pd.DataFrame())
    assert "none of its environments" in fig.axes[0].texts[0].get_text()


def test_committed_note_is_written_from_the_folder():
    """figures/async_kernelucb/NOTE.md is what `python -m bandits.report note figures/async_kernelucb` writes from the
    folder's files (so no number in it can go stale)."""
    from pathlib import Path

    from bandits.experiments.async_kernelucb_note import note_markdown

    folder = Path(__file__).resolve().parents[1] / "figures" / "async_kernelucb"
    assert (folder / "NOTE.md").read_text() == note_markdown(folder)
