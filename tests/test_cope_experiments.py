"""CoPE-KB through the runner: seeding across workers, the pipeline on a tiny grid, claim labels, errors."""
import re

import numpy as np
import pytest

from bandits.experiments import cope_kb as ex
from bandits.experiments import cope_kb_claims as cl, cope_kb_plots as pl
from bandits.experiments.common import ParameterError
from bandits.runner import run_cell, sweep
from bandits.experiments import cope_kb_note


def _tiny():
    return ex.cope_params("quick", deltas=[0.4, 0.8], fc_runs=2, alba_runs=1, budgets=[7000, 30000],
                          fb_runs=3, fc_methods=["CoKernelFC", "IndRAGE", "IndALBA"],
                          fb_methods=["CoKernelFB", "IndPeaceFB", "IndUniformFB"])


def test_same_sample_counts_with_one_and_two_workers():
    tasks, _ = ex.fc_tasks(_tiny())
    r1, _ = sweep(tasks, 4, n_jobs=1, backend="serial", progress=False)
    r2, _ = sweep(tasks, 4, n_jobs=2, backend="loky", progress=False)
    for a, b in zip(r1, r2):
        np.testing.assert_array_equal(a["arrays"]["samples"], b["arrays"]["samples"])
        np.testing.assert_array_equal(a["arrays"]["recommended"], b["arrays"]["recommended"])


def test_pipeline_and_claims_on_a_tiny_grid(tmp_path):
    p = _tiny()
    fc = ex.run_fc(p, seed=0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    fb = ex.run_fb(p, seed=0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    assert fc.all_correct.all()  # easy gaps: every agent's best arm is found
    s = ex.fc_summary(fc, p["V"])
    assert {"IndRAGE/V", "CoKernelFC"} <= set(s.method)
    ids = [c.id for c in cl.fc_claims(fc, p) + cl.fb_claims(fb, p)]
    assert "fig2a-matches-V-speedup" in ids and "fig3-lowest-error-rank1" in ids and "fig3c-not-above-peace" in ids
    assert len(pl.plot_fig2(fc, p).axes) == 3 and len(pl.plot_fig3(fb, p).axes) == 6  # error and budget rows
    # FB never spends more than the budget
    assert (fb.S <= fb["T"] + 1e-9).all()


def _paper_text():
    from pathlib import Path

    path = Path("/work/shared/papers/cope-kb.txt")
    return re.sub(r"\s+", " ", path.read_text()) if path.exists() else None


def test_every_claim_labelled_and_verbatim_quotes_in_the_paper(tmp_path):
    """Both readings of IndAlloc and both IndPeaceFB variants run; every claim has a kind, a source, and a
    verbatim quote is the paper's words; IndAlloc reading A is never compared with CoKernelFC/FB at rank 1."""
    p = ex.cope_params("quick", deltas=[0.8], fc_runs=2, alba_runs=1, budgets=[7000, 30000], fb_runs=2,
                       fc_methods=["CoKernelFC", "CoKernel-IndAlloc-A", "CoKernel-IndAlloc-B", "IndRAGE"])
    kw = dict(seed=0, n_jobs=1, backend="serial", cache_dir=tmp_path, progress=False)
    fc, fb = ex.run_fc(p, **kw), ex.run_fb(p, **kw)
    assert set(fb.method) == set(ex.FB_METHODS) | set(ex.FB_VARIANTS)
    claims = cl.fc_claims(fc, p) + cl.fb_claims(fb, p) + cl.run_claims(fc, fb, p)
    byid = {c.id: c for c in claims}
    assert byid["fig2-indalloc-A-is-CoKernelFC-rank1"].verdict == "PASS"
    assert byid["fig3-indalloc-A-is-CoKernelFB-rank1"].verdict == "PASS"
    assert "IndAlloc-A" not in byid["fig2-best-rank1"].check.split("(")[1].split(")")[0]
    assert all(not d.startswith("rank 1: error CoKernelFB − CoKernelFB-IndAlloc")
               for d in byid["fig3-lowest-error-rank1"].detail)
    for cid in ("fig2a-matches-V-speedup", "fig2b-between", "fig2c-no-gain", "fig2-speedup-shrinks", "C3-rounds",
                "C4-messages", "fig3-budget-spent"):
        assert byid[cid].kind == "implementation", cid
    for cid in ("fig2-best-rank1", "fig2-best-rank2", "fig3-lowest-error-rank1", "fig3-approaches-peace",
                "fig3c-not-above-peace", "C5-delta-correct", "C8-error-exponent"):
        assert byid[cid].kind == "paper", cid
    text = _paper_text()
    for c in claims:
        assert c.source, c.id
        if c.quote == "verbatim" and text is not None:
            assert "..." not in c.claim and c.claim in text, c.id
    # the budget shares: CoKernelFB 2/R of TV with R = 4 / 5 / 6, reading B and Peace 2/4, uniform all
    b = ex.budget_table(fb).groupby(["rank", "method"]).mean()
    for rank, R in ((1, 4), (2, 5), (5, 6)):
        assert b[(rank, "CoKernelFB")] == pytest.approx(2 / R, rel=1e-3)
        assert b[(rank, "CoKernelFB-IndAlloc-B")] == pytest.approx(0.5, rel=1e-3)
        assert b[(rank, "IndPeaceFB-pooled")] == pytest.approx(0.5, rel=1e-3)
        assert b[(rank, "IndUniformFB")] == pytest.approx(1.0, rel=1e-3)


def test_theorem1_xi_condition_closed_form():
    # rank 1: the round-1 design gives max ‖φ_i − φ_j‖²_{A⁻¹} = ρ*_1 = 12 (ξ → 0); θ* = 0.1 + Δ·(0..3)
    lhs, rhs = cl.theorem1_xi_condition(1, 0.1, 1e-8)
    assert lhs == pytest.approx(np.sqrt(1e-8 * 12), rel=1e-4)
    assert rhs == pytest.approx(0.1 / (32 * 1.1 * np.linalg.norm(0.1 + 0.1 * np.arange(4))), rel=1e-12)
    assert cl.theorem1_xi_condition(1, 0.1, 1e-6)[0] <= rhs < cl.theorem1_xi_condition(1, 0.1, 1e-5)[0]


def test_parameters_are_validated_by_name():
    with pytest.raises(ParameterError, match="constants"):
        ex.cope_params("quick", constants="loose")
    with pytest.raises(ParameterError, match="deltas"):
        ex.cope_params("quick", deltas=[1.5])
    with pytest.raises(ParameterError, match="cases"):
        ex.cope_params("quick", cases=[7])
    with pytest.raises(ValueError, match="parameter 'name' must be one of .*'CoKernelFC'"):
        run_cell({"loop": "pure_exploration", "instance": {"rank": 1, "delta_min": 0.5}, "algorithm": "LUCB"}, 0, 0)


def test_committed_note_is_written_from_the_folder():
    """figures/cope_kb/NOTE.md is what `python -m bandits.report note figures/cope_kb` writes from the folder's files
    (so no number in it can go stale)."""
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "figures" / "cope_kb"
    assert (folder / "NOTE.md").read_text() == cope_kb_note.note_markdown(folder)


def test_note_on_quick_shaped_and_partial_folders(tmp_path):
    """The note of a quick-mode folder (smaller grids, fewer runs), of a folder without claims.json, and of folders
    holding only part of the runs: the sections without data are left out, nothing fails."""
    import json
    import shutil
    from pathlib import Path

    import pandas as pd

    src = Path(__file__).resolve().parents[1] / "figures" / "cope_kb"
    res = ex.read_results(src)
    prov = json.loads((src / "provenance.json").read_text())
    quick = res[(res.delta_min.isin([0.1, 0.2, 0.4, 0.8]) | res.delta_min.isna())
                & (res["T"].isin([7000, 30000, 100000, 300000]) | res["T"].isna())
                & (res.rep < np.where(res.part == "fig3", 40, np.where(res.method.str.contains("ALBA"), 3, 10)))]

    def folder(name, df, claims=True):
        d = tmp_path / name
        d.mkdir()
        df.to_csv(d / "results.csv", index=False)
        (d / "provenance.json").write_text(json.dumps(dict(prov, mode="quick")))
        if claims:
            shutil.copy(src / "claims.json", d / "claims.json")
        return d

    q = cope_kb_note.note_markdown(folder("quick", quick, claims=False))
    assert q.startswith("# quick: quick mode") and "## Figure 3(c)" in q and "## Other findings" in q
    assert "4 per-agent budgets T from 7k to 300k" in q and "40 runs per cell" in q and "**Claims**" not in q
    fig2 = cope_kb_note.note_markdown(folder("fig2", quick[quick.part == "fig2"]))
    assert "## Figure 3(c)" not in fig2 and "IndAlloc, two readings" in fig2 and "sample-size constant" not in fig2
    one = quick[(quick.part == "fig3") & (quick["rank"] == 1) & quick.method.isin(["CoKernelFB", "IndUniformFB"])]
    fb1 = cope_kb_note.note_markdown(folder("fb1", one))
    assert "## Figure 3: the budget each method spends" in fb1 and "| 1 | 50 %, 2 of R = 4 |" in fb1
    assert "## Other findings" not in cope_kb_note.note_markdown(folder("empty", quick.iloc[:0], claims=False))


def test_results_files_split_by_panel_and_read_back(tmp_path):
    """write_results: Figure 2's runs in results.csv, Figure 3's one file per rank(K_Z) (each under the 2 MB a file
    may take in full mode), a stale panel file of an earlier run removed; read_results gives back every row, and reads
    an older folder's single results.csv the same way."""
    import pandas as pd

    fc = pd.DataFrame({"rank": [1, 2], "delta_min": [0.1, 0.1], "method": ["CoKernelFC"] * 2, "rep": [0, 0],
                       "S": [10.0, 20.0], "part": ["fig2"] * 2})
    fb = pd.DataFrame({"rank": [1, 2, 5], "method": ["CoKernelFB"] * 3, "rep": [0, 0, 0], "S": [5.0, 6.0, 7.0],
                       "T": [7000, 7000, 7000], "part": ["fig3"] * 3})
    both = pd.concat([fc, fb], ignore_index=True)
    (tmp_path / "fig3_rank9.csv").write_text("stale\n")
    paths = ex.write_results(tmp_path, both)
    assert [p.name for p in paths] == ["results.csv", "fig3_rank1.csv", "fig3_rank2.csv", "fig3_rank5.csv"]
    assert not (tmp_path / "fig3_rank9.csv").exists()
    assert "T" not in pd.read_csv(tmp_path / "results.csv") and "delta_min" not in pd.read_csv(paths[1])
    back = ex.read_results(tmp_path)
    key = ["part", "rank", "rep"]
    pd.testing.assert_frame_equal(back[both.columns].sort_values(key).reset_index(drop=True),
                                  both.sort_values(key).reset_index(drop=True), check_dtype=False)
    old = tmp_path / "old"
    old.mkdir()
    both.to_csv(old / "results.csv", index=False)
    assert len(ex.read_results(old)) == 5 and ex.read_results(tmp_path / "none").empty


def test_findings_markdown_takes_the_claims_objects_or_their_json(tmp_path):
    """The notebook shows findings_markdown for its own runs and claims (Claim objects); NOTE.md writes it from
    claims.json: the two forms of the same claims give the same text, verdicts included."""
    import json
    from pathlib import Path

    from bandits.experiments.claims import write_claims

    src = Path(__file__).resolve().parents[1] / "figures" / "cope_kb"
    fc, other, _, fb = cope_kb_note._parts(ex.read_results(src))
    fb = fb[fb["rank"] == 5]
    objs = cl.fb_claims(fb, ex.cope_params("full"))
    text = cope_kb_note.findings_markdown(fc.iloc[:0], other.iloc[:0], fb, objs, V=5)
    as_json = {c["id"]: c for c in json.loads(write_claims(objs, tmp_path).read_text())["claims"]}
    assert cope_kb_note.findings_markdown(fc.iloc[:0], other.iloc[:0], fb, as_json, V=5) == text
    verdict = {c.id: c.verdict for c in objs}["fig3c-not-above-peace"]
    assert "## Figure 3(c)" in text and f"`fig3c-not-above-peace` **{verdict}**" in text
