"""bandits.bench at toy sizes: structure and the registry of coming papers' entries (no timing checks)."""
import pytest

from bandits import bench


def test_one_kernel_ucb_step_bench_structure():
    r = bench.bench_one_kernel_ucb_step(ts=(30, 60), K=5, d=3, steps=2, T=100)
    assert set(r) == {"per_step_s", "exponent", "run_estimate_s"}
    assert list(r["per_step_s"]) == [30, 60] and all(v > 0 for v in r["per_step_s"].values())
    assert r["run_estimate_s"] > 0


def test_exact_gp_built_directly_equals_appends():
    import numpy as np

    from bandits.estimators import ExactGP

    gp, k = bench._exact_gp_at(25, 4, 3, 1.0, "cpu", np.random.default_rng(0))
    ref = ExactGP(k, 1.0, 3)
    ref.add(gp.X, gp.y)
    np.testing.assert_allclose(gp.L, ref.L, atol=1e-10)
    Xq = np.random.default_rng(1).normal(size=(4, 3))
    for a, b in zip(gp.predict(Xq), ref.predict(Xq)):
        np.testing.assert_allclose(a, b, atol=1e-10)


def test_register_benchmark():
    assert {"coop_kernel_ucb", "fn_ucb"} <= set(bench.EXTRA_BENCHMARKS)
    with pytest.raises(ValueError, match="parameter 'fn' must be callable"):
        bench.register_benchmark("x", None, "ms")
    old = dict(bench.EXTRA_BENCHMARKS)
    try:
        bench.register_benchmark("fn_ucb", lambda device: 1.0, "ms per iteration", "FN-UCB")
        assert bench.EXTRA_BENCHMARKS["fn_ucb"]["fn"]("cpu") == 1.0
    finally:
        bench.EXTRA_BENCHMARKS.clear()
        bench.EXTRA_BENCHMARKS.update(old)


def test_coop_rbf_uncapped_entry_registered_and_runs_at_toy_size():
    """make bench reports Eager's ms per agent-round on the RBF row at the uncapped ranks."""
    import math

    e = bench.EXTRA_BENCHMARKS["coop_kernel_ucb_rbf_uncapped"]
    assert e["unit"] == "ms per agent-round" and callable(e["fn"])
    ms = bench.bench_coop_kernel_ucb("cpu", row="rbf", features="nystroem", r_limit=None, T=3, V=12)
    assert math.isfinite(ms) and ms > 0


# ----------------------------------------------------------------------------------------------
# The command line (no benchmark is run: --help, --list and the selection only)
# ----------------------------------------------------------------------------------------------
def test_help_prints_help_and_runs_nothing(capsys):
    with pytest.raises(SystemExit) as e:
        bench.main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert "usage: python -m bandits.bench" in out and "--list" in out and "floor" in out


def test_list_names_every_benchmark(capsys):
    assert bench.main(["--list"]) == 0
    out = capsys.readouterr().out
    names = [ln.split()[0] for ln in out.splitlines() if ln.strip()]
    assert names == list(bench.benchmarks())
    assert {"floor", "async_exchange", "coop_kernel_ucb", "fn_ucb"} <= set(names)


def test_select_by_name_or_part():
    table = bench.benchmarks()
    assert bench.select(["floor"], table) == ["floor"]
    assert bench.select(["fn_ucb"], table) == ["fn_ucb"]  # exact name first
    coop = bench.select(["coop"], table)
    assert coop and all("coop" in n for n in coop) and "coop_kernel_ucb_rbf_uncapped" in coop
    assert bench.select(["floor", "floor", "fig1"], table) == ["floor", "fig1"]
    with pytest.raises(SystemExit, match="nothing matches 'nope'"):
        bench.select(["nope"], table)
    assert bench.select(["Coop-KernelUCB"], bench.FLOOR_ENGINES) == ["Coop-KernelUCB"]  # exact name first
    assert bench.select(["rbf"], bench.FLOOR_ENGINES) == ["Eager-KernelUCB (RBF row)", "Coop-KernelUCB (RBF row)"]
    assert bench.select(["Neural"], bench.FLOOR_ENGINES) == ["NeuralUCB", "NeuralTS"]
    with pytest.raises(SystemExit, match="go with the benchmark 'floor'"):
        bench.main(["fig1", "--write"])


def test_module_help_from_the_shell():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "bandits.bench", "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "usage: python -m bandits.bench" in out.stdout


# ----------------------------------------------------------------------------------------------
# Work counted from the sizes, on tiny hand-computable cases
# ----------------------------------------------------------------------------------------------
RATES = {"gemm_big_flops": 1e10, "gemm_small_flops": 1e9, "bandwidth_bytes": 1e9, "call_s": 1e-5, "exp_per_s": 1e8}


def test_work_kinds_and_floor():
    w = bench.Work().gemm(2, 3, 4)  # 2·2·3·4 = 48 flops, small
    assert (w.l3_small, w.l3_big) == (48.0, 0.0)
    w.trsm(300, 2)  # 300²·2 = 180 000, order 300 > SMALL_MAX: big
    assert w.l3_big == 180000.0
    w.chol(3)  # 27/3 = 9, small
    w.rank1(10)  # 24·100 bytes
    w.kernel(2, 5, 3)  # 2·2·3·5 = 60 flops and 10 exp
    w.call(7)
    assert w.l3_small == 48 + 9 + 60 and w.bytes == 2400 and w.calls == 7 and w.elem == 10
    assert w.floor(RATES) == pytest.approx(117 / 1e9 + 180000 / 1e10 + 2400 / 1e9 + 7e-5 + 10 / 1e8)


def test_one_kernel_work():
    w = bench.one_kernel_work([10, 300], K=2, d=3)
    # n = 10: kernel 2·2·3·10 = 120 flops + 20 exp, trsm 10²·2 = 200; n = 300: kernel 3600 + 600 exp,
    # trsm 300²·2 = 180 000 (big)
    assert w.l3_small == 120 + 200 and w.l3_big == 3600 + 180000 and w.elem == 620


def test_coop_work_primal_and_dual():
    D, K = 2, 3
    # one model, rank 1 (p = 2), 1 member, 4 sources, 4 observations visible, no refresh:
    # primal min(build = 2·1·4·3 + 8/3, update = 2·4·4 = 32) + scoring 2²·3 = 12; dual = 2·16·2 + 64/3 +
    # (2·3·4·2 + 16·3) = 64 + 21.33 + 96: the primal is cheaper
    w = bench.coop_work([{"refresh": False, "models": [(1, 1, 4, 4)]}], D, K, n_points=5, n_embed=2)
    assert w.l3_small == pytest.approx(min(24 + 8 / 3, 32) + 12)
    # a refresh adds the MMD Gram (2·5·2·5 = 100) and the eigenpairs 4/3·4³, and forces the build
    w = bench.coop_work([{"refresh": True, "models": [(1, 1, 4, 4)]}], D, K, n_points=5, n_embed=2)
    assert w.l3_small == pytest.approx(100 + 4 / 3 * 64 + 24 + 8 / 3 + 12)
    # rank 10 (p = 20) with one observation: the dual (2·2 + 1/3 + 2·3·2 + 3) is cheaper
    w = bench.coop_work([{"refresh": False, "models": [(10, 1, 1, 1)]}], D, K, n_points=5, n_embed=2)
    assert w.l3_small == pytest.approx(4 + 1 / 3 + 12 + 3)


def test_approx_dis_and_async_work():
    w = bench.approx_dis_work([(0, 5), (4, 2)], [], d=3)
    # m = 0: nothing; m = 4, K = 2: kernel 2·2·3·4 = 48 + 8 exp, trsm 16·2 = 32, gemm 2·2·4·4 = 64
    assert w.l3_small == 48 + 32 + 64 and w.elem == 8 and w.bytes == 0
    w = bench.approx_dis_work([], [(6, 0, 2)], d=3)
    # sync, n = 6, m 0 → 2: kernel 2×2 (24 flops, 4 exp), chol 8/3, kernel 6×2 (72, 12 exp), trsm 4·6,
    # ZᵀZ 6·4, inverse 8
    assert w.l3_small == pytest.approx(24 + 8 / 3 + 72 + 24 + 24 + 8) and w.elem == 16
    w = bench.async_work([(2, 3, 4)], [(5, 1, 3)], d=2)
    step = (2 * 4 * 2 * 2) + 4 * 4 + 4 * 4  # kernel, basis, variances
    ex = (2 * 5 * 2 * 1) + 5 + 5 + (2 * 2 * 2 * 3) + 2 * 9 + (2 * 5 * 2 * 3) + 9 * 5 + 2 * 9 * 5 + 9 * 2
    assert w.l3_small == pytest.approx(step + ex) and w.elem == 8 + 5 + 6 + 15


def test_neural_work():
    w = bench.neural_work(T=2, N=1, K=2, d=3, m=4, p=5, train_steps=3, stop_train_after=10, train_rounds=[0, 1])
    # per iteration 4·2·5 + 2·2·25 = 140 flops and 24·25 bytes; training n = 1, 2: 3·6·n·(12 + 4)
    assert w.l3_small == pytest.approx(2 * 140 + 3 * 6 * 16 * (1 + 2))
    assert w.bytes == 2 * 600 and w.calls == 6


def test_full_mode_sums_dedupe(tmp_path):
    (tmp_path / "coop_kernelucb").mkdir()
    (tmp_path / "coop_kernelucb" / "runs.csv").write_text(
        "method,rep,R_T,wall_time\nEager-KernelUCB,0,1.0,10.0\nEager-KernelUCB,1,2.0,20.0\n"
        "Coop-KernelUCB,0,1.0,5.0\nEager-KernelUCB (rank ≤ 4),0,1.0,7.0\nEager-KernelUCB,2,,\n")
    r = bench.full_mode_sums("Eager-KernelUCB", tmp_path)
    assert r == {"runs": 0, "sum_s": 0.0, "by": {}}  # no row column: not the linear row
    (tmp_path / "coop_kernelucb" / "runs.csv").write_text(
        "row,method,rep,R_T,wall_time\nlinear,Eager-KernelUCB,0,1.0,10.0\nlinear,Eager-KernelUCB,1,2.0,20.0\n"
        "rbf,Eager-KernelUCB,0,1.0,40.0\nlinear,Coop-KernelUCB,0,1.0,5.0\n"
        "linear,Eager-KernelUCB (rank ≤ 4),0,1.0,7.0\nlinear,Eager-KernelUCB,2,,\n")
    r = bench.full_mode_sums("Eager-KernelUCB", tmp_path)
    assert r == {"runs": 2, "sum_s": 30.0, "by": {"coop_kernelucb": 30.0}}
    assert bench.full_mode_sums("Eager-KernelUCB (RBF row)", tmp_path)["sum_s"] == 40.0


def test_full_mode_sums_count_a_run_as_times_md_does(tmp_path):
    """The floor table's per-engine sums and figures/TIMES.md (tools/nbtools.py) count the same runs with the same
    seconds: a run shown twice counted once, CPU time before the wall clock, a NaN or missing time no time."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import nbtools

    folder = tmp_path / "coop_kernelucb"
    folder.mkdir()
    (folder / "runs.csv").write_text(
        "row,method,rep,R_T,wall_time,cpu_time\n"
        "linear,Eager-KernelUCB,0,1.0,10.0,8.0\n"
        "linear,Eager-KernelUCB,0,1.0,10.0,8.0\n"   # the same run, shown twice
        "linear,Eager-KernelUCB,1,2.0,20.0,nan\n"   # no CPU time: its wall clock
        "linear,Eager-KernelUCB,2,3.0,,\n")         # no time at all
    floor_sums = bench.full_mode_sums("Eager-KernelUCB", tmp_path)
    times = nbtools.run_times(folder)
    assert floor_sums["runs"] == times["runs"] == 2 and floor_sums["sum_s"] == times["sum_s"] == 28.0
    assert times["wall_rows"] == 1 and times["untimed_rows"] == 1 and times["repeated_rows"] == 1


def test_floor_section_written_between_markers(tmp_path):
    doc = tmp_path / "running.md"
    doc.write_text("# Running\n\ntext\n")
    row = {"engine": "X", "sizes": "tiny", "l3_big_flops": 0.0, "l3_small_flops": 2e9, "bytes": 0.0, "calls": 0.0,
           "exp": 0.0, "floor_s": 2.0, "measured_s": 6.0, "ratio": 3.0,
           "full": {"runs": 2, "sum_s": 30.0, "by": {"a": 30.0}}}
    rates = dict(RATES, small={"gemm_50": 1e9}, bandwidth_ger=1e9, bandwidth_copy=1e9, call_torch_s=1e-4,
                 call_numpy_s=1e-5, machine="m")
    bench.write_floor_section({"rates": rates, "rows": [row]}, doc)
    text = doc.read_text()
    assert text.startswith("# Running\n\ntext\n") and text.count(bench.FLOOR_START) == 1
    assert "| X | tiny | 2 GFLOP (small) | 2 | 6 | **3.0** | 2, 30 |" in text
    row["ratio"] = 4.0
    bench.write_floor_section({"rates": rates, "rows": [row]}, doc)
    again = doc.read_text()
    assert again.count(bench.FLOOR_START) == 1 and "**4.0**" in again and "**3.0**" not in again


def test_floor_sums_column_is_refreshed_from_the_folders(tmp_path):
    # the last column follows the committed folders (python -m bandits.report rewrites it) while the measured
    # columns and the machine line stay as the bench wrote them
    from bandits.floor import refresh_floor_sums

    doc = tmp_path / "running.md"
    doc.write_text("# Running\n\ntext\n")
    row = {"engine": "Eager-KernelUCB", "sizes": "tiny", "l3_big_flops": 0.0, "l3_small_flops": 2e9, "bytes": 0.0,
           "calls": 0.0, "exp": 0.0, "floor_s": 2.0, "measured_s": 6.0, "ratio": 3.0,
           "full": {"runs": 2, "sum_s": 30.0, "by": {"coop_kernelucb": 30.0}}}
    rates = dict(RATES, small={"gemm_50": 1e9}, bandwidth_ger=1e9, bandwidth_copy=1e9, call_torch_s=1e-4,
                 call_numpy_s=1e-5, machine="m")
    bench.write_floor_section({"rates": rates, "rows": [row]}, doc)
    figs = tmp_path / "figures"
    (figs / "coop_kernelucb").mkdir(parents=True)
    (figs / "coop_kernelucb" / "runs.csv").write_text(
        "row,method,rep,R_T,wall_time,cpu_time\nlinear,Eager-KernelUCB,0,1.0,99.0,12.0\n")
    before = doc.read_text()
    assert refresh_floor_sums(doc, figs) == ["Eager-KernelUCB"]
    after = doc.read_text()
    assert "| Eager-KernelUCB | tiny | 2 GFLOP (small) | 2 | 6 | **3.0** | 1, 12 |" in after
    assert after.replace("| 1, 12 |", "| 2, 30 |") == before
    assert refresh_floor_sums(doc, figs) == []  # nothing left to change


def test_committed_floor_table_sums_match_the_committed_folders():
    # docs/running.md's floor table, last column: the committed folders' runs as they are now (a folder landed
    # without `python -m bandits.report` would leave it stale)
    from bandits.experiments.common import repo_root
    from bandits.floor import FLOOR_END, FLOOR_START, _fmt_full, full_mode_sums

    text = (repo_root() / "docs" / "running.md").read_text(encoding="utf-8")
    table = text[text.index(FLOOR_START):text.index(FLOOR_END)]
    seen = 0
    for line in table.splitlines():
        cells = line.split(" | ")
        if line.startswith("| ") and cells[0][2:] in bench.FLOOR_ENGINES:
            assert cells[-1] == _fmt_full(full_mode_sums(cells[0][2:])) + " |", cells[0]
            seen += 1
    assert seen >= 10


def test_floor_engines_run_at_toy_sizes():
    """Each engine's floor entry runs and counts positive work at toy sizes (no timing checked)."""
    outs = [bench.floor_coop("Eager-KernelUCB", T=3, V=12), bench.floor_coop("Coop-KernelUCB", T=3, V=12),
            bench.floor_approx_dis(T=40, N=3), bench.floor_async(T=40, N=3),
            bench.floor_one_kernel(ts=(30, 60), steps=2), bench.floor_fn_ucb(T=6), bench.floor_neural("ts", T=6),
            bench.floor_fn_ucb_shuttle(T=6, N=2)]
    for r in outs:
        assert r["measured_s"] >= 0 and r["work"].floor(RATES) > 0 and r["sizes"]
    assert set(bench.FLOOR_ENGINES) == {"Eager-KernelUCB", "Coop-KernelUCB", "Eager-KernelUCB (RBF row)",
                                        "Coop-KernelUCB (RBF row)", "Coop-KernelUCB (Twitch)",
                                        "Coop-KernelUCB (as-733)", "Approx-DisKernelUCB", "Async-KernelUCB",
                                        "OneKernelUCB", "FN-UCB", "FN-UCB (shuttle, diag)", "NeuralUCB", "NeuralTS"}
    assert "twitch" in bench.floor_coop("Coop-KernelUCB", T=3, V=12, graph="twitch")["sizes"]
    r = bench.floor_coop("Eager-KernelUCB", T=3, V=12, row="rbf")
    assert r["sizes"].startswith("rbf row") and r["work"].elem > 0  # the arms' Nyström features


def test_a_rows_time_is_its_cpu_time_else_its_wall_clock():
    """bandits.runtimes: the rule every reader of the folders' times follows."""
    from bandits.runtimes import row_seconds, run_key, seconds

    assert row_seconds({"cpu_time": "2.5", "wall_time": "9"}) == (2.5, False)
    assert row_seconds({"cpu_time": "", "wall_time": "9"}) == (9.0, True)
    assert row_seconds({"cpu_time": "nan", "wall_time": "9"}) == (9.0, True)  # NaN: not a time
    assert row_seconds({"wall_time": "-1"}) == (None, False) and row_seconds({}) == (None, False)
    assert [seconds(v) for v in ("inf", "x", None, 0, "0.5")] == [None, None, None, 0.0, 0.5]
    assert run_key({"wall_time": "9", "rep": "1", "R_T": "3"}) == ("9", "1", "3", None, None, None)
