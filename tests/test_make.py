"""The user's side of running notebooks: inputs checked before the work, through make and
through papermill; progress and no noise (tools/pmrun.py); no process left behind by a killed run;
``make lab`` as root.

The papermill tests run small notebooks written here (a kernel start each, a few seconds), never the
papers' notebooks.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
PYTHON = sys.executable
sys.path.insert(0, str(ROOT / "tools"))
import nbtools  # noqa: E402
import pmrun  # noqa: E402


def _make(*args, env=None, timeout=120):
    """``make`` in the repository without rebuilding the environment (-o: the stamp counts as made)."""
    stamp = os.path.relpath(VENV / ".stamp", ROOT)
    return subprocess.run(["make", "--no-print-directory", "-o", stamp, f"VPY={PYTHON}", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, env=env)


def _kernel_env(tmp_path, **extra):
    env = dict(os.environ, JUPYTER_PATH=str(VENV / "share" / "jupyter"), BANDITS_CACHE_DIR=str(tmp_path / "cache"))
    env.update(extra)
    return env


def _notebook(path: Path, params: str, body: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    cell = nbformat.v4.new_code_cell(params)
    cell.metadata["tags"] = ["parameters"]
    nb.cells = [cell, nbformat.v4.new_code_cell(body)]
    nbformat.write(nb, path)
    return path


COMMON = ('mode = "quick"          # "quick" | "full"\nseed = 0\nn_jobs = 1\nbackend = "serial"\n'
          'scheduler = None        # a dask scheduler, used with backend "dask"\nout = "{out}"\n')


# ------------------------------------------------------------------------------------ through make
def test_make_rejects_an_unknown_parameter_before_any_run(tmp_path):
    r = _make("quick", "NOTEBOOKS=notebooks/duets.ipynb", f"QUICK_DIR={tmp_path}", "PM_ARGS=-p modee full")
    assert r.returncode != 0
    assert "unknown parameter 'modee'" in r.stderr and "mode, seed" in r.stderr, r.stderr
    assert "==" not in r.stdout.replace("== data", ""), "a notebook started"  # nothing ran
    assert not (tmp_path / "duets" / "duets.ipynb").exists()


def test_make_rejects_an_output_folder_that_is_a_file(tmp_path):
    (tmp_path / "duets").write_text("not a folder")
    r = _make("quick", "NOTEBOOKS=notebooks/duets.ipynb", f"QUICK_DIR={tmp_path}")
    assert r.returncode != 0
    assert "parameter 'out'" in r.stderr and "is a file" in r.stderr, r.stderr


def test_make_lab_passes_lab_args_and_allow_root_as_root():
    r = _make("-n", "lab", "LAB_ARGS=--port 8899 --no-browser")
    assert r.returncode == 0, r.stderr
    line = [x for x in r.stdout.splitlines() if "jupyter lab" in x][0]
    assert "--port 8899 --no-browser" in line
    assert ("--allow-root" in line) == (os.geteuid() == 0), line
    import zmq

    assert ("--KernelManager.transport_encryption=auto" in line) == zmq.has("curve"), line


def test_nbtools_parameters_and_preflight(tmp_path):
    assert nbtools.parameters(ROOT / "notebooks" / "duets.ipynb")[:6] == \
        ["mode", "seed", "n_jobs", "backend", "scheduler", "out"]
    assert nbtools.papermill_names(["-p", "a", "1", "-r", "b", "x", "--parameters", "c", "2", "-k", "p"]) == \
        ["a", "b", "c"]
    assert nbtools.preflight(tmp_path, ["notebooks/duets.ipynb"], ["-p", "n_runs", "2"]) == []


# ----------------------------------------------------------------------------- through papermill
def _papermill(nb, out_nb, *args, env, timeout=120):
    return subprocess.run([str(VENV / "bin" / "papermill"), str(nb), str(out_nb), "-k", "python3",
                           "--no-progress-bar", *args], capture_output=True, text=True, env=env, timeout=timeout)


def test_papermill_unknown_parameter_read_only_out_and_missing_data(tmp_path):
    """From papermill as from make: ``-p modee full`` fails naming it (papermill only warns); ``out``
    pointing at a file fails naming ``out``; a declared dataset absent from the data home fails with the
    fetch hint, before the (here: marker) run."""
    out = tmp_path / "out"
    marker = tmp_path / "ran"
    nb = _notebook(tmp_path / "nb.ipynb", COMMON.format(out=out),
                   "from bandits.experiments.common import validate_common\n"
                   'validate_common(mode, seed, n_jobs, backend, out, datasets=["magic"])\n'
                   f"open({str(marker)!r}, 'w').write('ran')\n")
    data = tmp_path / "data"
    data.mkdir()
    env = _kernel_env(tmp_path, BANDITS_DATA_DIR=str(data))

    r = _papermill(nb, tmp_path / "a.ipynb", "-p", "modee", "full", env=env)
    assert r.returncode != 0 and "unknown parameter 'modee'" in r.stderr + r.stdout, r.stderr[-2000:]
    (tmp_path / "afile").write_text("x")
    r = _papermill(nb, tmp_path / "b.ipynb", "-p", "out", str(tmp_path / "afile"), env=env)
    assert r.returncode != 0 and "parameter 'out'" in r.stderr and "is a file" in r.stderr, r.stderr[-2000:]
    r = _papermill(nb, tmp_path / "c.ipynb", env=env)
    assert r.returncode != 0 and "DataNotFoundError" in r.stderr and "magic" in r.stderr
    assert "python -m bandits.data ensure --only magic" in r.stderr, r.stderr[-2000:]
    assert not marker.exists()


def test_read_only_out_is_an_error_naming_out_before_any_run(tmp_path):
    """A read-only folder: as a user, chmod 555; as root (which writes anyway), a read-only bind mount in
    a user namespace (``unshare -rm``); skipped where neither can be had."""
    from bandits.experiments.common import ParameterError, validate_common

    ro = tmp_path / "ro"
    ro.mkdir()
    if os.geteuid() != 0:
        ro.chmod(0o555)
        with pytest.raises(ParameterError, match="parameter 'out'.*cannot write"):
            validate_common("quick", 0, 1, "serial", str(ro))
        return
    code = ("from bandits.experiments.common import validate_common\n"
            f"validate_common('quick', 0, 1, 'serial', {str(ro)!r})")
    script = f"mount --bind {ro} {ro} && mount -o remount,bind,ro {ro} && exec {PYTHON} -c \"{code}\""
    try:
        r = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, timeout=60,
                           cwd=ROOT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"no read-only folder can be made here as root (unshare: {exc})")
    if "mount" in r.stderr and "ParameterError" not in r.stderr:
        pytest.skip(f"no read-only bind mount here as root: {r.stderr.strip()[:200]}")
    assert r.returncode != 0 and "ParameterError: parameter 'out'" in r.stderr and "Read-only" in r.stderr, r.stderr


def test_validate_common_out_is_a_file(tmp_path):
    from bandits.experiments.common import ParameterError, validate_common

    f = tmp_path / "f"
    f.write_text("x")
    with pytest.raises(ParameterError, match="parameter 'out' must be a folder"):
        validate_common("quick", 0, 1, "serial", str(f))


def test_injected_parameters_checked_from_history():
    from bandits.experiments.common import ParameterError, check_injected_parameters

    params = "mode = 'quick'\nseed = 0\n"
    check_injected_parameters(["", params, "# Parameters\nmode = \"full\"\n", "validate()"])
    check_injected_parameters(["", params, "validate()"])  # Lab, plain python: nothing injected
    with pytest.raises(ParameterError, match="unknown parameter 'modee'.*mode, seed"):
        check_injected_parameters(["", params, "# Parameters\nmodee = \"full\"\n", "validate()"])


# --------------------------------------------------------------------------- tools/pmrun.py
def test_pmrun_quiet_success_and_progress_lines(tmp_path):
    """A successful run under pmrun (not a terminal): no papermill noise, no kernel warnings, one summary
    line that counts the sweep's runs; the sweep wrote its events to the progress channel."""
    nb = _notebook(tmp_path / "nb.ipynb", COMMON.format(out=tmp_path / "out"),
                   "from bandits.runner import sweep\n"
                   "cfg = {'loop': 'regret', 'env': {'name': 'synthetic', 'kind': 'linear', 'dim': 2, 'K': 3},\n"
                   "       'algorithm': 'linucb', 'params': {}, 'N': 1, 'T': 3}\n"
                   "import bandits.runner as R\n"
                   "R.run_cell = lambda c, s, r: {'arrays': {'x': __import__('numpy').zeros(1)}, 'meta': {}}\n"
                   "res, st = sweep([(cfg, 0), (cfg, 1)], 0, backend='serial', cache_dir=None, desc='toy')\n")
    r = subprocess.run([PYTHON, str(ROOT / "tools" / "pmrun.py"), "--label", "toy", "--", str(nb),
                        str(tmp_path / "o.ipynb"), "-k", "python3"], capture_output=True, text=True,
                       env=_kernel_env(tmp_path), timeout=120)
    assert r.returncode == 0, r.stderr
    for noise in ("Unable to parse", "KeyboardInterrupt caught", "without encryption", "Executing",
                  "Input Notebook"):
        assert noise not in r.stderr + r.stdout, r.stderr
    assert "toy: done in" in r.stderr and "2 runs (0 cached, 2 computed)" in r.stderr, r.stderr


def test_progress_channel_events(tmp_path, monkeypatch):
    from bandits import runner

    log = tmp_path / "p.jsonl"
    monkeypatch.setenv("BANDITS_PROGRESS", str(log))
    monkeypatch.setattr(runner, "run_cell", lambda c, s, r: {"arrays": {"x": __import__("numpy").zeros(2)},
                                                            "meta": {"failed": "FloatingPointError: x"} if r else {}})
    runner.sweep([({"a": 1}, 0), ({"a": 1}, 1)], 0, backend="serial", cache_dir=tmp_path / "c", progress=False,
                 desc="toy")
    (tmp_path / "c" / f"{runner.run_key({'a': 1}, 0, 0)}.npz").write_text("bad")  # rep 0's run: recomputed
    with pytest.warns(runner.CacheWarning):
        runner.sweep([({"a": 1}, 0), ({"a": 1}, 1)], 0, backend="serial", cache_dir=tmp_path / "c",
                     progress=False, desc="toy")
    evs = [json.loads(x) for x in log.read_text().splitlines()]
    kinds = [e["ev"] for e in evs]
    assert kinds[:5] == ["start", "run", "run", "warning", "end"]
    assert evs[0]["total"] == 2 and evs[0]["cached"] == 0 and "diverged" in evs[3]["message"]
    assert kinds[5:] == ["start", "warning", "run", "end"] and "unreadable" in evs[6]["message"]
    assert evs[5]["cached"] == 1 and evs[5]["todo"] == 1
    prog = pmrun.Progress("toy", str(log), open(os.devnull, "w"), tty=False, quiet=True)
    prog.poll()
    assert prog.sweeps == 2 and prog.total == 4 and prog.cached == 1 and prog.computed == 3 and prog.warnings == 2


def _ppid(pid):
    return int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])


def _guardians(root):
    """pmrun's guardian: its child that runs no program of its own (a fork of pmrun)."""
    return [p for p in pmrun.descendants(root) if _ppid(p) == root and "pmrun.py" in open(f"/proc/{p}/cmdline").read()]


def test_guardian_ends_processes_started_after_its_last_look(tmp_path):
    """pmrun killed with SIGKILL less than one look after a grandchild started (CI, 2026-11-28: loky's
    workers and resource tracker left behind): the guardian also ends what the processes it saw hold."""
    bfile, afile = tmp_path / "b", tmp_path / "a"
    grandchild = (f"import subprocess, sys, time; time.sleep(3.5); "
                  f"b = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
                  f"open({str(bfile)!r}, 'w').write(str(b.pid)); time.sleep(60)")
    script = (f"import subprocess, sys, time; sys.path.insert(0, {str(ROOT / 'tools')!r}); import pmrun; "
              f"pmrun.start_guardian(interval=3.0); "
              f"a = subprocess.Popen([sys.executable, '-c', {grandchild!r}]); "
              f"open({str(afile)!r}, 'w').write(str(a.pid)); time.sleep(60)")
    parent = subprocess.Popen([PYTHON, "-c", script])
    try:
        deadline = time.monotonic() + 20
        while not bfile.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert bfile.exists(), "the grandchild never started"
        a, b = int(afile.read_text()), int(bfile.read_text())
        os.kill(parent.pid, signal.SIGKILL)  # before the guardian's next look (at 6 s): it saw A, not B
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while (pmrun._alive(a) or pmrun._alive(b)) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [p for p in (a, b) if pmrun._alive(p)]
        for p in left:
            os.kill(p, signal.SIGKILL)
        assert not left, f"left behind: {left} (a={a}, b={b})"
    finally:
        if parent.poll() is None:
            parent.kill()


@pytest.mark.parametrize("victim", ["papermill", "pmrun", "interrupt"])
def test_killed_run_leaves_no_process_behind(tmp_path, victim):
    """kill -9 of papermill mid-sweep: pmrun ends the kernel, loky's workers and its resource tracker;
    kill -9 of pmrun itself: its guardian does; SIGINT to pmrun (Ctrl-C): papermill interrupts the cell
    and stops, and pmrun ends the rest."""
    pids = tmp_path / "pids"
    nb = _notebook(tmp_path / "nb.ipynb", "x = 1\n",
                   "import os, time\nfrom joblib import Parallel, delayed\n"
                   "w = Parallel(n_jobs=2, backend='loky')(delayed(os.getpid)() for _ in range(8))\n"
                   f"open({str(pids)!r}, 'w').write(' '.join(map(str, set(w))))\ntime.sleep(120)\n")
    proc = subprocess.Popen([PYTHON, str(ROOT / "tools" / "pmrun.py"), "--", str(nb), str(tmp_path / "o.ipynb"),
                             "-k", "python3"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=_kernel_env(tmp_path))
    try:
        deadline = time.monotonic() + 90
        while not pids.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert pids.exists(), "the notebook never started its loky workers"
        time.sleep(0.5)
        tree = pmrun.descendants(proc.pid)
        workers = [int(p) for p in pids.read_text().split()]
        assert set(workers) <= set(tree) and len(tree) >= 5, (tree, workers)  # guardian, papermill, kernel, workers
        tree = [p for p in tree if "from jupyter_client" in open(f"/proc/{p}/cmdline").read()
                or p not in _guardians(proc.pid)]
        papermill = [p for p in tree if "papermill" in open(f"/proc/{p}/cmdline").read()
                     and _ppid(p) == proc.pid][0]
        if victim == "interrupt":
            os.kill(proc.pid, signal.SIGINT)
        else:
            os.kill(papermill if victim == "papermill" else proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 15
        while [p for p in tree if pmrun._alive(p)] and time.monotonic() < deadline:
            time.sleep(0.2)
        left = [p for p in tree if pmrun._alive(p)]
        assert not left, f"left behind: {left}"
        expected = {"papermill": 128 + signal.SIGKILL, "pmrun": -signal.SIGKILL}.get(victim)
        assert proc.returncode == expected if expected else proc.returncode not in (0, None)
    finally:
        if proc.poll() is None:
            proc.kill()
        for p in pmrun.descendants(proc.pid):
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass


# ----------------------------------------------------------------------------------------------
# TIMES.md: from the runs' own recorded times, every folder under the output root
# ----------------------------------------------------------------------------------------------
def _executed(path: Path, duration: float, mode: str = "full") -> None:
    nb = nbformat.v4.new_notebook(metadata={"papermill": {
        "duration": duration, "start_time": "2026-01-01T00:00:00", "end_time": "2026-01-01T01:00:00",
        "parameters": {"mode": mode}}})
    nbformat.write(nb, path)


def test_times_from_the_runs_own_times_and_every_folder(tmp_path):
    out = tmp_path / "figures"
    for name in ("a", "b", "c"):
        (out / name).mkdir(parents=True)
    # a: two run tables; one run shown in two figures (same time, rep and outcome) counts once, a failed
    # run has no time; a per-step table (rows at several t of one run) counts the run once
    (out / "a" / "runs.csv").write_text("figure,rep,R_T,wall_time\n1,0,2.5,100.0\n1,1,3.0,60.0\n"
                                        "4,0,2.5,100.0\n2,2,,\n")
    (out / "a" / "map.csv").write_text("rep,t,R_t,wall_time\n0,10,1.0,40.0\n0,20,2.0,40.0\n")
    (out / "a" / "summary.csv").write_text("method,wall\nx,999\n")  # no wall_time column: not a run table
    (out / "a" / "old").mkdir()
    (out / "a" / "old" / "runs.csv").write_text("rep,wall_time\n0,5000\n")  # kept earlier runs: not read
    _executed(out / "a" / "a.ipynb", 30.0)  # papermill's last start over a cache: shown, not used
    _executed(out / "b" / "b.ipynb", 75.0)  # no run table: papermill stands in, labelled
    (out / "c" / "runs.csv").write_text("rep,wall_time\n0,10\n1,10\n")  # no executed notebook
    (out / "empty").mkdir()
    assert nbtools.main(["times", str(out)]) == 0
    text = (out / "TIMES.md").read_text()
    rows = {r["notebook"]: r for r in nbtools.times_rows(out)}
    assert set(rows) == {"a", "b", "c"}
    assert rows["a"]["runs"] == 3 and rows["a"]["sum_s"] == 200.0 and rows["a"]["estimate_s"] == 100.0
    assert rows["a"]["tables"] == ["map.csv", "runs.csv"] and rows["a"]["untimed_rows"] == 1
    assert rows["a"]["repeated_rows"] == 2
    assert rows["b"]["basis"] == "papermill" and rows["b"]["estimate_s"] == 75.0
    assert rows["c"]["runs"] == 2 and rows["c"]["papermill"] is None
    assert "| b | - | - | 1 min 15 s (papermill) | no per-run times recorded" in text
    last = text.strip().splitlines()[-1]
    assert last.startswith("| **total `make figures` on 2 cores** | 5 |")
    assert "**3 min 05 s** (185 s)" in last  # a: 200 / 2, b: 75 (papermill), c: 20 / 2
    # a rerun after one notebook changed keeps every other row (nothing is dropped)
    (out / "c" / "runs.csv").write_text("rep,wall_time\n0,20\n1,20\n")
    nbtools.main(["times", str(out)])
    again = (out / "TIMES.md").read_text()
    assert "| a | 3 |" in again and "| b | - |" in again and "| c | 2 |" in again
    assert nbtools.main(["times", str(out), "--workers", "4"]) == 0
    assert "on 4 cores" in (out / "TIMES.md").read_text()


def test_times_name_the_machine_each_folder_was_timed_on(tmp_path):
    # provenance.json's `machine` (written as the notebook finished) is named in each row; a folder without it
    # says so; when the folders were timed on more than one machine, the paragraph above the table says the
    # total adds unlike times. The total stays the last line.
    import json

    out = tmp_path / "figures"
    zen3 = {"cpu": "AMD EPYC", "family": 25, "model": 1, "isa": "avx2", "cores": 2,
            "kind": "AMD EPYC (family 25, model 1, avx2, 2 cores)", "rates": {"gemm_small_gflops": 40.0, "call_numpy_us": 15.3}}
    for name in ("a", "b", "c"):
        (out / name).mkdir(parents=True)
        (out / name / "runs.csv").write_text("rep,wall_time\n0,10\n")
    (out / "a" / "provenance.json").write_text(json.dumps({"seed": 0, "machine": zen3}))
    (out / "b" / "provenance.json").write_text(json.dumps({"seed": 0}))
    rows = {r["notebook"]: r for r in nbtools.times_rows(out)}
    assert rows["a"]["machine"] == zen3 and rows["b"]["machine"] is None and rows["c"]["machine"] is None
    text = nbtools.times_table(out)
    assert "| a | 1 |" in text and "AMD EPYC (family 25, model 1, avx2, 2 cores): 40.0 GFLOP/s small GEMM" in text
    assert "not recorded (the folder predates the record) |" in text
    assert "AMD EPYC (family 25, model 1, avx2, 2 cores): a; not recorded" in text and "need not be alike" in text
    assert text.strip().splitlines()[-1].startswith("| **total `make figures` on 2 cores** | 3 |")
    # one machine for every folder: no warning
    for name in ("b", "c"):
        (out / name / "provenance.json").write_text(json.dumps({"machine": zen3}))
    text = nbtools.times_table(out)
    assert "AMD EPYC (family 25, model 1, avx2, 2 cores): a, b, c." in text and "alike" not in text


def test_times_prefer_each_runs_cpu_time(tmp_path):
    # a row with cpu_time is timed by it (a loaded machine does not inflate it); a row recorded before the
    # runner recorded CPU time keeps its wall clock, and the table says how many rows that is
    out = tmp_path / "figures"
    (out / "a").mkdir(parents=True)
    (out / "a" / "runs.csv").write_text("rep,R_T,wall_time,cpu_time\n0,1.0,30.0,12.0\n1,2.0,40.0,\n2,3.0,50.0,20.0\n")
    (row,) = nbtools.times_rows(out)
    assert row["runs"] == 3 and row["sum_s"] == 72.0 and row["wall_rows"] == 1
    assert "1 rows timed by the wall clock" in nbtools.times_table(out)
    (out / "a" / "runs.csv").write_text("rep,R_T,wall_time\n0,1.0,30.0\n")
    assert "every row timed by the wall clock" in nbtools.times_table(out)


def test_times_count_the_sequential_steps_added_runs(tmp_path):
    # the runs a sequential step added are in the cache, not in the run tables: their recorded seconds
    # (sequential.json's cpu_s) count in the notebook's time, on either basis
    import json

    out = tmp_path / "figures"
    for name in ("a", "b"):
        (out / name).mkdir(parents=True)
    (out / "a" / "runs.csv").write_text("rep,wall_time\n0,10\n1,10\n")
    (out / "a" / "sequential.json").write_text(json.dumps({"cpu_s": 40.0}))
    _executed(out / "b" / "b.ipynb", 75.0)
    (out / "b" / "sequential.json").write_text(json.dumps({"cpu_s": 50.0}))
    rows = {r["notebook"]: r for r in nbtools.times_rows(out)}
    assert rows["a"]["sequential_s"] == 40.0 and rows["a"]["estimate_s"] == 30.0  # (20 + 40) / 2
    assert rows["b"]["estimate_s"] == 100.0  # 75 (papermill) + 50 / 2
    text = nbtools.times_table(out)
    assert "sequential step's added runs, 40 s" in text and "sequential step's added runs, 50 s" in text
    # the last line: the total (30 + 100 s) and, beside it, the total without the steps' added runs (90 / 2 s less)
    last = text.strip().splitlines()[-1]
    assert "**2 min 10 s** (130 s)" in last and "without the sequential steps' added runs 1 min 25 s (85 s)" in last


def test_times_leave_out_an_opt_in_parameters_runs(tmp_path):
    # the committed Coop folder holds the rank-cap ablation's runs, which make figures does not run at the
    # notebook's defaults: they are named in the row, not summed
    out = tmp_path / "figures"
    (out / "coop_kernelucb").mkdir(parents=True)
    (out / "coop_kernelucb" / "runs.csv").write_text(
        "method,rep,wall_time\nCoop-KernelUCB,0,10\nCoop-KernelUCB (rank ≤ 4),0,30\nEager-KernelUCB,0,20\n")
    (row,) = nbtools.times_rows(out)
    assert row["runs"] == 2 and row["sum_s"] == 30.0 and row["estimate_s"] == 15.0
    assert row["opt_in"] == ("rank_cap_ablation", "None", 1, 30.0) and row["repeated_rows"] == 0
    assert "not counted: 1 runs of the opt-in `rank_cap_ablation` (30 s)" in nbtools.times_table(out)


def test_times_name_the_tables_whose_runs_recorded_no_time(tmp_path):
    # a table of means from a folder written before its per-run table: its runs ran untimed, and the row says
    # so; once the per-run table is there, the row no longer names it (and its runs are counted)
    out = tmp_path / "figures"
    f = out / "async_kernelucb"
    f.mkdir(parents=True)
    (f / "runs.csv").write_text("method,rep,R_T,wall_time\nA,0,1.5,10\n")
    (f / "D_sensitivity.csv").write_text("env,method,R_T\nmagic,A,1.0\n")
    (row,) = nbtools.times_rows(out)
    assert row["untimed_tables"] == ["D_sensitivity.csv"] and row["runs"] == 1
    assert "not counted: the runs behind D_sensitivity.csv, which recorded no time" in nbtools.times_table(out)
    (f / "D_sensitivity_runs.csv").write_text("method,rep,R_T,wall_time,cpu_time\nA (D=0.1),0,2.5,7,6\n")
    (row,) = nbtools.times_rows(out)
    assert row["untimed_tables"] == [] and row["runs"] == 2 and row["sum_s"] == 16.0
    # the notebook writes the per-run tables the mapping names
    root = Path(__file__).resolve().parent.parent
    for folder, pairs in nbtools.UNTIMED_TABLES.items():
        src = (root / "notebooks" / f"{folder}.py").read_text(encoding="utf-8")
        assert all(per_run in src for _, per_run in pairs), folder


def test_opt_in_runs_match_the_notebooks_defaults_and_labels():
    # TIMES.md leaves out OPT_IN_RUNS only while the notebook's default really does not run them, and the mark
    # is the label the experiment gives those runs
    import ast
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    for folder, (param, default, mark) in nbtools.OPT_IN_RUNS.items():
        src = (root / "notebooks" / f"{folder}.py").read_text(encoding="utf-8")
        m = re.search(rf"^{param}\s*=\s*(.+?)\s*(#|$)", src, re.M)
        assert m and repr(ast.literal_eval(m.group(1))) == default, (folder, param)
        assert mark in (root / "bandits" / "experiments" / f"{folder}.py").read_text(encoding="utf-8")


def test_make_figures_passes_each_notebooks_sequential_design():
    from bandits import sequential as S

    out = _make("-n", "figures")
    assert out.returncode == 0 and "bandits.sequential papermill-args" in out.stdout
    args = S.papermill_args("fn_ucb")
    sch, kind, budget, *fut = S.FULL_MODE_DESIGNS["fn_ucb"]
    assert args == ["-p", "decide_schedule", ",".join(map(str, sch)), "-p", "decide_spending", kind,
                    "-p", "decide_budget_s", f"{budget:g}"] + (["-p", "decide_futility", str(fut[0])] if fut else [])
    assert "decide_futility" not in S.papermill_args("duets")
    assert S.papermill_args("cope_kb") == []
    # every design is one the calibration test simulates, and its folder has hooks
    assert all(d[0] in S.used_schedules() and name in S.HOOKS for name, d in S.FULL_MODE_DESIGNS.items())


def test_make_decide_passes_spending_and_futility():
    out = _make("-n", "decide", "DECIDE=fn_ucb", "SPENDING=pocock", "FUTILITY=1", "BUDGET_S=100")
    assert out.returncode == 0, out.stderr
    cmd = " ".join(out.stdout.split())
    assert "-m bandits.sequential decide fn_ucb" in cmd and "--spending pocock --futility 1" in cmd
    assert "--budget-s 100" in cmd
    later = " ".join(_make("-n", "decide", "DECIDE=fn_ucb", "FUTILITY=2").stdout.split())
    assert "--futility 2" in later
    assert "--futility" not in " ".join(_make("-n", "decide").stdout.split())


def test_make_bench_passes_bench_args():
    out = _make("-n", "bench", "BENCH_ARGS=floor --write")
    assert out.returncode == 0, out.stderr
    assert "-m bandits.bench floor --write" in out.stdout
    out = _make("-n", "bench")
    assert out.stdout.strip().endswith("-m bandits.bench")


def test_compare_folders_tells_a_rerun_that_only_changed_its_times(tmp_path):
    """tools/compare_folders.py: the same runs timed anew (and a table gaining time columns) are the same; a changed
    number, a missing table or a changed verdict differ."""
    import compare_folders as cf

    old, new = tmp_path / "old", tmp_path / "new"
    for d in (old, new):
        d.mkdir()
        (d / "claims.json").write_text(json.dumps({"claims": [{"id": "c1", "verdict": "PASS", "effect": 1.0,
                                                               "lo": 0.5, "hi": 1.5, "note": ""}]}))
    (old / "runs.csv").write_text("rep,R_T,wall_time\n0,1.5,10.0\n1,2.5,11.0\n")
    (new / "runs.csv").write_text("rep,R_T,wall_time,cpu_time\n0,1.5,7.0,6.5\n1,2.5,8.0,7.9\n")
    assert cf.main([str(new), str(old)]) == 0
    (new / "runs.csv").write_text("rep,R_T,wall_time\n0,1.5,7.0\n1,2.6,8.0\n")
    assert cf.main([str(new), str(old)]) == 1
    (new / "runs.csv").write_text("rep,R_T,wall_time\n0,1.5,7.0\n1,2.5,8.0\n")
    (old / "tuning.csv").write_text("rep,R_T\n0,1.0\n")
    assert cf.main([str(new), str(old)]) == 1
    (old / "tuning.csv").unlink()
    (new / "claims.json").write_text(json.dumps({"claims": [{"id": "c1", "verdict": "INCONCLUSIVE", "effect": 1.0,
                                                             "lo": -0.5, "hi": 1.5, "note": ""}]}))
    assert cf.main([str(new), str(old)]) == 1
