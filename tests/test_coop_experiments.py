"""Tests for bandits/experiments/coop_kernelucb.py (Figure 1 of Coop-KernelUCB) on a tiny grid."""
from __future__ import annotations

import pytest

from bandits.experiments import coop_kernelucb as E
from bandits.experiments import coop_kernelucb_claims as EC, coop_kernelucb_plots as EP
from bandits.experiments.common import ParameterError
from bandits.experiments import coop_kernelucb_note


def test_params_and_validation():
    q, f = E.fig1_params("quick"), E.fig1_params("full")
    assert f["V"] == 200 and f["T_linear"] == 1000 and f["n_runs"] >= 10 and f["graphs"] == list(E.GRAPHS)
    assert q["n_runs"] >= 3 and q["V"] < f["V"]
    with pytest.raises(ParameterError, match="graphs"):
        E.fig1_params("quick", graphs=["skitter"])
    with pytest.raises(ParameterError, match="V"):
        E.fig1_params("quick", V=0)
    with pytest.raises(ParameterError, match="sigma_z_variant"):
        E.fig1_params("quick", sigma_z_variant=-1.0)
    assert f["sigma_z_linear"] == f["sigma_z_rbf"] == 1.0  # the paper: "we set σ = 1"
    assert f["csv_stride"] == 25 and q["csv_stride"] == 1  # results.csv: 40 of 1000 rounds in full mode
    with pytest.raises(ParameterError, match="csv_stride"):
        E.fig1_params("full", csv_stride=0)


def test_ablations_are_opt_in():
    for mode in ("quick", "full"):
        p = E.fig1_params(mode)
        assert p["oracle"] is False and p["sigma_z_variant"] == 0  # the paper's six curves per row ...
        assert p["rank_cap_ablation"] == 0  # the rank-cap ablation has made its point: off in both modes
        assert set(E.row_methods(p, "linear")) == set(E.PAPER_METHODS["linear"])
        assert set(E.row_methods(p, "rbf")) == set(E.PAPER_METHODS["rbf"])
        assert p["r_limit_rbf"] is None and p["r_limit"] is None  # no cap on the paper's curves
    cap = E.fig1_params("full", rank_cap_ablation=E.RANK_CAP_ABLATION)  # the committed figure's dashed curves
    caps = {E.CAP_LABEL.format(m, 4) for m in E.COOPERATIVE}
    assert set(E.row_methods(cap, "rbf")) == set(E.PAPER_METHODS["rbf"]) | caps
    assert set(E.row_methods(cap, "linear")) == set(E.PAPER_METHODS["linear"])
    a = E.fig1_params("full", ablations=True)
    assert a["oracle"] is True and a["sigma_z_variant"] == E.SIGMA_Z_ABLATION
    assert E.fig1_params("full", ablations=True, sigma_z_variant=0.25)["sigma_z_variant"] == 0.25
    assert E.fig1_params("full", ablations=False) == E.fig1_params("full")
    with pytest.raises(ParameterError, match="ablations"):
        E.fig1_params("quick", ablations="yes")


def test_tasks_cover_rows_graphs_methods_runs():
    p = E.fig1_params("quick", graphs=["er"], n_runs=2, ablations=True)
    tasks, labels = E.fig1_tasks(p)
    n_lin, n_rbf = len(E.row_methods(p, "linear")), len(E.row_methods(p, "rbf"))
    assert (n_lin, n_rbf) == (8, 9)  # six paper methods + two oracle-K_z curves (+ the RBF σ_z variant)
    assert len(tasks) == (n_lin + n_rbf) * 2
    cfg = tasks[0][0]
    assert cfg["env"]["kind"] == "coop" and cfg["env"]["graph_seed"] == p["graph_seed"]
    assert {lab["method"] for lab in labels if lab["row"] == "rbf"} >= {"IGP-UCB", "Naive Cooperation", E.ORACLE,
                                                                         E.ORACLE_COOP, "Eager-KernelUCB (σ_z = 0.5)"}
    # the paper's σ_z = 1 is the default of both rows; the variant carries its own σ_z
    by_label = {lab["method"]: cfg for (cfg, _), lab in zip(tasks, labels) if lab["row"] == "rbf"}
    assert by_label["Eager-KernelUCB"]["params"]["sigma_z"] == 1.0
    assert by_label["Eager-KernelUCB (σ_z = 0.5)"]["params"]["sigma_z"] == 0.5
    assert by_label[E.ORACLE_COOP]["params"]["kz"] == "oracle"
    q = E.fig1_params("quick", graphs=["er"], n_runs=2, oracle=False, sigma_z_variant=0)
    assert len(E.fig1_tasks(q)[0]) == 6 * 2 * 2
    assert len({c["env_seed"] for c, _ in tasks}) == 2  # fresh bandit per trial, same graph


def test_tiny_run_claims_and_plot(tmp_path):
    p = E.fig1_params("quick", V=8, T_linear=8, T_rbf=6, n_runs=3, graphs=["er"], n_features=8, n_embed=8,
                      ablations=True)
    res = E.run_fig1(p, seed=0, n_jobs=1, backend="serial", cache_dir=str(tmp_path), progress=False)
    assert len(res.runs) == (8 + 9) * 3 and (res.runs.R_T >= 0).all()
    claims = EC.fig1_claims(res)
    assert len(claims) == 2 * 5 and all(c.verdict in ("PASS", "FAIL", "INCONCLUSIVE") for c in claims)
    paper = [c for c in claims if c.kind == "paper"]
    assert len(paper) == 8 and all("3 of the paper's 100 trials" in c.check for c in paper)
    assert all(c.source and c.quote in ("verbatim", "paraphrase") for c in claims)
    # the safeguard held in every cooperative run (no cap asked for), recorded per run
    safe = {c.id: c for c in claims if c.kind == "implementation"}
    assert set(safe) == {"fig1-safeguard-linear", "fig1-safeguard-rbf"}
    assert all(c.verdict == "PASS" for c in safe.values())
    coop = res.runs[res.runs.method.isin(E.COOPERATIVE)]
    assert (coop.min_kept_var >= 0.95 - 1e-9).all() and (coop.capped == 0).all() and (coop.rank_last >= 1).all()
    rt = E.rank_table(res)
    assert {"rank_last", "min_kept_var", "kz_within", "kz_across", "kz_auc"} <= set(rt.columns)
    assert "γ = " in EP.panel_title(res, "linear", "er")
    # cooperative methods are charged for their deliveries, independent ones are not
    r = res.runs.set_index(["row", "method", "rep"])
    assert r.loc[("linear", "Eager-KernelUCB", 0), "comm_scalars"] > 0
    assert r.loc[("linear", "LinUCB", 0), "comm_scalars"] == 0
    tab = E.panel_table(res)
    assert list(tab.row) == ["linear", "rbf"] and (tab.cover >= tab.centres).all()
    fig = EP.plot_fig1(res)
    assert "3 of the paper's 100 trials" in fig._suptitle.get_text()
    assert "dashed: ablations" in fig._suptitle.get_text()
    res.params = {**res.params, "oracle": False, "sigma_z_variant": 0}  # the default figure: no dashed curves
    assert "dashed" not in EP.plot_fig1(res)._suptitle.get_text()


def test_claims_scoped_to_the_paper_and_cap_ablation(tmp_path):
    """Coop ≈ Dist is checked on the Erdős–Rényi panels only (§5: "for the Erdos-Renyi"); the rank-cap
    ablation runs with r_limit, is recorded as capped, and enters no claim."""
    p = E.fig1_params("quick", V=8, T_rbf=6, n_runs=3, graphs=["er", "twitch"], rows=["rbf"], n_features=8,
                      n_embed=8, rank_cap_ablation=1)
    tasks, labels = E.fig1_tasks(p)
    lab = E.CAP_LABEL.format("Eager-KernelUCB", 1)
    assert {cfg["params"]["r_limit"] for (cfg, _), lb in zip(tasks, labels) if lb["method"] == lab} == {1}
    assert all(cfg["env"]["omega"] == 1.0 and cfg["env"]["rho"] == 0.2 for cfg, _ in tasks)
    p = dict(p, graphs=["er"])
    res = E.run_fig1(p, seed=0, n_jobs=1, backend="serial", cache_dir=str(tmp_path), progress=False)
    ids = [c.id for c in EC.fig1_claims(res)]
    assert "fig1-coop-approx-dist-rbf-er" in ids and not any("approx-dist-rbf-twitch" in i for i in ids)
    assert all(lab not in c.value for c in EC.fig1_claims(res) for lab in [E.CAP_LABEL.format(m, 1) for m in E.COOPERATIVE])
    capped = res.runs[res.runs.method == lab]
    assert (capped.capped > 0).any() and (capped.rank_max <= 1).all()
    with pytest.raises(ParameterError, match="cluster_mode"):
        E.fig1_params("quick", cluster_mode="stars")
    assert E.fig1_tasks(E.fig1_params("quick", graphs=["er"], n_runs=1, cluster_mode="clique_cover"))[0][0][0][
        "env"]["cluster_mode"] == "clique_cover"


def test_committed_note_is_written_from_the_folder():
    """figures/coop_kernelucb/NOTE.md is what `python -m bandits.report note figures/coop_kernelucb` writes from the
    folder's files (so no number in it can go stale)."""
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "figures" / "coop_kernelucb"
    assert (folder / "NOTE.md").read_text() == coop_kernelucb_note.note_markdown(folder)


def test_note_of_a_folder_without_the_extras(tmp_path):
    """A folder with only runs.csv and provenance.json (no claims, no sequential step, no ablation, no
    diagnostics: a quick-mode folder's shape) gets a note with the sections its files give, and no other."""
    import shutil
    from pathlib import Path

    import pandas as pd

    src = Path(__file__).resolve().parents[1] / "figures" / "coop_kernelucb"
    shutil.copy(src / "provenance.json", tmp_path / "provenance.json")
    runs = pd.read_csv(src / "runs.csv")
    runs = runs[~runs.method.str.contains("rank ≤")]
    runs.to_csv(tmp_path / "runs.csv", index=False)
    text = coop_kernelucb_note.note_markdown(tmp_path)
    assert "**What ran.**" in text and "## Final per-agent regret" in text and "## Per panel" in text
    assert "did not run" in text and f"{len(runs)} runs" in text
    for absent in ("sequential step", "setting_diagnostics", "What the ablation shows", "with_ablations",
                   "Claims**", "K̂_z separation"):
        assert absent not in text
