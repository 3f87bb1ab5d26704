"""The notebooks as jupytext pairs: in sync, in the house convention, paired in JupyterLab; the
nbval skip hook for missing data (root conftest.py); ``bandits.report.refresh_notebook`` on pairs.

Every notebook under notebooks/ is discovered (``notebooks/<name>.py`` and ``.ipynb``), so new ones
are checked as soon as they are added.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import shutil
import sys
import types
from pathlib import Path

import jupytext
import jupytext.cli
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"
NAMES = sorted({p.stem for p in NB_DIR.glob("*.ipynb")} | {p.stem for p in NB_DIR.glob("*.py")})
CLAIMS_MARK = "# NBVAL_CHECK_OUTPUT"
REQUIRED_PARAMETERS = ("mode", "seed", "n_jobs", "backend", "out")


def _cells(nb):
    """What a pair must agree on: each cell's type, source and tags."""
    return [(c.cell_type, c.source.strip(), tuple(c.metadata.get("tags", ()))) for c in nb.cells]


def _load_root_conftest():
    spec = importlib.util.spec_from_file_location("bandits_root_conftest", ROOT / "conftest.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_notebooks_are_discovered():
    assert len(NAMES) >= 5, NAMES
    assert not (ROOT / "tools" / "make_notebooks.py").exists(), "the notebook generator is retired"


# ----------------------------------------------------------------------------------------------
# The pairs
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_pair_exists_and_is_declared(name):
    py, ipynb = NB_DIR / f"{name}.py", NB_DIR / f"{name}.ipynb"
    fix = f"run `.venv/bin/jupytext --sync notebooks/{name}.py` (or --set-formats ipynb,py:percent)"
    assert py.exists(), f"notebooks/{name}.py is missing: {fix}"
    assert ipynb.exists(), f"notebooks/{name}.ipynb is missing: {fix}"
    assert py.read_text().startswith("# ---\n# jupyter:"), f"notebooks/{name}.py lacks the jupytext header"
    for path in (py, ipynb):
        fmt = jupytext.read(path).metadata.get("jupytext", {}).get("formats")
        assert fmt == "ipynb,py:percent", f"{path.name}: jupytext formats {fmt!r}; {fix}"
    text = jupytext.read(py).metadata["jupytext"].get("text_representation", {})
    assert text.get("format_name") == "percent", f"notebooks/{name}.py is not in percent format"


@pytest.mark.parametrize("name", NAMES)
def test_pair_in_sync(name):
    py = jupytext.read(NB_DIR / f"{name}.py")
    ipynb = jupytext.read(NB_DIR / f"{name}.ipynb")
    a, b = _cells(py), _cells(ipynb)
    hint = f"notebooks/{name}.py and .ipynb differ: run `.venv/bin/jupytext --sync notebooks/{name}.py`"
    assert len(a) == len(b), f"{hint} ({len(a)} vs {len(b)} cells)"
    for i, (ca, cb) in enumerate(zip(a, b)):
        assert ca == cb, f"{hint} (cell {i}: {ca[1][:60]!r} vs {cb[1][:60]!r})"
    assert py.metadata.get("bandits") == ipynb.metadata.get("bandits"), f"{hint} (metadata 'bandits')"


@pytest.mark.parametrize("name", NAMES)
def test_convention_parameters_and_claims_cell(name):
    nb = jupytext.read(NB_DIR / f"{name}.py")
    code = [c for c in nb.cells if c.cell_type == "code"]
    params = [c for c in code if "parameters" in c.metadata.get("tags", ())]
    assert len(params) == 1, f"notebooks/{name}.py: {len(params)} cells tagged 'parameters' (need one)"
    assigned = {}
    for node in ast.parse(params[0].source).body:
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    assigned[t.id] = node.value
    lacking = [p for p in REQUIRED_PARAMETERS if p not in assigned]
    assert not lacking, f"notebooks/{name}.py: the parameters cell lacks {lacking}"
    assert ast.literal_eval(assigned["mode"]) == "quick", f"notebooks/{name}.py: default mode must be 'quick'"
    assert nb.cells[-1].cell_type == "code" and nb.cells[-1].source.lstrip().startswith(CLAIMS_MARK), (
        f"notebooks/{name}.py: the last cell must be code starting with '{CLAIMS_MARK}' (the claims table)")
    datasets = nb.metadata.get("bandits", {}).get("datasets")
    assert isinstance(datasets, list), (
        f"notebooks/{name}.py: the header needs `bandits: datasets: [...]` (the datasets it reads, [] if none)")


@pytest.mark.parametrize("name", NAMES)
def test_the_claims_cell_holds_the_reference_nbval_compares(name):
    """The committed .ipynb keeps one output, the claims table, on its last cell (the one nbval compares under
    --nbval-lax): a cell moved or split by an edit can leave the reference on another cell, and nbval then
    compares nothing, silently (`python -m bandits.report refresh-notebook notebooks/<name>.py` rewrites it)."""
    import json

    cells = json.loads((NB_DIR / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"]
    with_out = [i for i, c in enumerate(cells) if c.get("outputs")]
    hint = f"run `.venv/bin/python -m bandits.report refresh-notebook notebooks/{name}.py`"
    assert with_out == [len(cells) - 1], f"notebooks/{name}.ipynb: outputs on cells {with_out}, not only the last: {hint}"
    last = cells[-1]
    assert CLAIMS_MARK in "".join(last["source"]) and "".join(
        "".join(o.get("text", "")) for o in last["outputs"]).strip(), f"notebooks/{name}.ipynb: no claims text: {hint}"


@pytest.mark.parametrize("name", NAMES)
def test_papermill_parses_every_parameter(name, caplog):
    """papermill's own parser (``--help-notebook``, unknown-parameter warnings) finds every name of the
    parameters cell, without "Unable to parse line" (an '=' inside a comment breaks its parser), and the
    validation call checks the datasets the notebook declares."""
    from papermill.translators import PythonTranslator

    nb = jupytext.read(NB_DIR / f"{name}.py")
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", ()))
    with caplog.at_level("WARNING", logger="papermill"):
        found = [p.name for p in PythonTranslator.inspect(cell)]
    assert not [r for r in caplog.records if "Unable to parse" in r.getMessage()], caplog.text
    assigned = [t.id for n in ast.parse(cell.source).body if isinstance(n, ast.Assign)
                for t in n.targets if isinstance(t, ast.Name)]
    assert found == assigned, f"notebooks/{name}.py: papermill sees {found}, the cell assigns {assigned}"
    declared = nb.metadata.get("bandits", {}).get("datasets") or []
    checks = ("validate_common", "start_notebook")  # start_notebook calls validate_common
    calls = [n for c in nb.cells if c.cell_type == "code" and any(f"{f}(" in c.source for f in checks)
             for n in ast.walk(ast.parse(c.source))
             if isinstance(n, ast.Call) and getattr(n.func, "id", None) in checks]
    assert len(calls) == 1, f"notebooks/{name}.py: one validate_common(...) or start_notebook(...) call expected"
    kw = {k.arg: k.value for k in calls[0].keywords}
    given = ast.literal_eval(kw["datasets"]) if "datasets" in kw else []
    assert sorted(given) == sorted(declared), (
        f"notebooks/{name}.py: {calls[0].func.id}(..., datasets=...) must name the declared datasets {declared}")


@pytest.mark.parametrize("name", NAMES)
def test_committed_ipynb_keeps_only_the_claims_output(name):
    nb = nbformat.read(NB_DIR / f"{name}.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    for c in code[:-1]:
        assert not c.outputs, f"notebooks/{name}.ipynb keeps outputs outside the claims cell: " \
            f"`.venv/bin/python -m bandits.report refresh-notebook notebooks/{name}.py`"
    last = code[-1]
    assert last.outputs and all(o.output_type == "stream" and o.name == "stdout" for o in last.outputs), (
        f"notebooks/{name}.ipynb: the claims cell must keep its printed table (refresh-notebook)")
    assert "claim" in "".join(o.text for o in last.outputs)


# ----------------------------------------------------------------------------------------------
# Pairing in JupyterLab (jupytext's contents manager, which `make lab` loads)
# ----------------------------------------------------------------------------------------------
def _tiny_pair(folder: Path, name: str = "tiny") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.py").write_text(
        "# ---\n# jupyter:\n#   bandits:\n#     datasets: []\n#   jupytext:\n#     formats: ipynb,py:percent\n"
        "#     notebook_metadata_filter: bandits\n#   kernelspec:\n#     display_name: Python 3\n"
        "#     language: python\n#     name: python3\n# ---\n\n"
        "# %% [markdown]\n# # Tiny\n\n"
        '# %% tags=["parameters"]\nmode = "quick"\nseed = 0\nn_jobs = 1\nbackend = "serial"\nout = "x"\n\n'
        "# %%\nvalue = seed + 41\n\n"
        "# %%\n# NBVAL_CHECK_OUTPUT\nprint('| claim |', value + 1)\n")
    jupytext.cli.jupytext(["--sync", "--quiet", str(folder / f"{name}.py")])


def test_jupytext_config_pairs_notebooks_folder_only():
    from jupytext.config import find_jupytext_configuration_file, load_jupytext_configuration_file

    path = find_jupytext_configuration_file(str(NB_DIR))
    assert path is not None and Path(path).resolve() == (ROOT / "jupytext.toml").resolve()
    config = load_jupytext_configuration_file(path)
    assert config.default_formats("notebooks/new.ipynb") is not None
    assert config.default_formats("figures/duets/duets.ipynb") is None
    assert config.default_formats("results/quick/duets/duets.ipynb") is None


def test_lab_save_updates_both_files(tmp_path):
    """The contents manager the jupytext server extension installs in Lab (async, on Lab's own
    AsyncLargeFileManager), saving either file of a pair."""
    pytest.importorskip("jupyter_server")
    import asyncio

    from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
    from jupytext.async_contentsmanager import build_async_jupytext_contents_manager_class

    shutil.copy(ROOT / "jupytext.toml", tmp_path / "jupytext.toml")
    _tiny_pair(tmp_path / "notebooks")
    cm = build_async_jupytext_contents_manager_class(AsyncLargeFileManager)(root_dir=str(tmp_path))
    new = {"type": "notebook", "content": json.loads(json.dumps(   # as Lab sends it: sources as strings
        nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])))}

    async def session():
        # Edit the .py opened as a notebook in Lab and save: the .ipynb follows.
        model = await cm.get("notebooks/tiny.py")
        model["content"]["cells"][2]["source"] = "value = seed + 1"
        await cm.save(model, "notebooks/tiny.py")
        assert "value = seed + 1" in (tmp_path / "notebooks" / "tiny.ipynb").read_text()
        # Edit the .ipynb and save: the .py follows.
        model = await cm.get("notebooks/tiny.ipynb")
        model["content"]["cells"][2]["source"] = "value = seed + 2"
        await cm.save(model, "notebooks/tiny.ipynb")
        assert "value = seed + 2" in (tmp_path / "notebooks" / "tiny.py").read_text()
        # A new notebook saved in notebooks/ gets its .py through jupytext.toml ...
        await cm.save(new, "notebooks/fresh.ipynb")
        assert (tmp_path / "notebooks" / "fresh.py").exists()
        # ... an executed copy elsewhere (figures/) does not.
        (tmp_path / "figures").mkdir()
        await cm.save(new, "figures/run.ipynb")
        assert not (tmp_path / "figures" / "run.py").exists()

    asyncio.run(session())


# ----------------------------------------------------------------------------------------------
# refresh-notebook on a pair (runs a kernel once: a few seconds)
# ----------------------------------------------------------------------------------------------
def test_refresh_notebook_rewrites_pair_from_py(tmp_path):
    from bandits.report import refresh_notebook

    folder = tmp_path / "notebooks"
    _tiny_pair(folder)
    # The .py is the source: an edit there reaches the .ipynb, with only the claims output kept.
    py = folder / "tiny.py"
    py.write_text(py.read_text().replace("value = seed + 41", "value = seed + 1"))
    refresh_notebook(str(py))
    nb = nbformat.read(folder / "tiny.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == [1, 2, 3]
    assert code[1].source == "value = seed + 1" and not code[0].outputs and not code[1].outputs
    assert [o.text for o in code[2].outputs] == ["| claim | 2\n"]
    assert _cells(jupytext.read(py)) == _cells(jupytext.read(folder / "tiny.ipynb"))
    ids = [c.id for c in nb.cells]
    refresh_notebook(str(folder / "tiny.ipynb"))  # either file names the pair; cell ids are kept
    assert [c.id for c in nbformat.read(folder / "tiny.ipynb", as_version=4).cells] == ids
    # A new notebook written as a .py alone: refresh-notebook creates its .ipynb, paired.
    (folder / "tiny.ipynb").unlink()
    refresh_notebook(str(py))
    created = jupytext.read(folder / "tiny.ipynb")
    assert created.metadata["jupytext"]["formats"] == "ipynb,py:percent"
    assert _cells(created) == _cells(jupytext.read(py))
    assert [o.text for o in created.cells[-1].outputs] == ["| claim | 2\n"]


def test_refresh_notebook_rejects_other_files(tmp_path):
    from bandits.report import refresh_notebook

    with pytest.raises(SystemExit, match="neither a .py nor an .ipynb"):
        refresh_notebook(str(tmp_path / "x.txt"))
    with pytest.raises(SystemExit, match="neither .* exists"):
        refresh_notebook(str(tmp_path / "absent.py"))


# ----------------------------------------------------------------------------------------------
# The nbval skip hook (root conftest.py), against the data package's `missing(names)` interface
# ----------------------------------------------------------------------------------------------
class _File:
    def __init__(self, path, url):
        self.path, self.url = path, url


@pytest.fixture
def fake_data(monkeypatch, tmp_path):
    """A stand-in ``bandits.data`` with ``missing(names)``; records the names it is asked for."""
    mod = types.ModuleType("bandits.data")
    mod.asked = []
    mod.absent = {"magic": [_File("magic/magic04.data", "https://example.org/magic04.data")]}

    def missing(names):
        mod.asked.append(list(names))
        return [f for n in names for f in mod.absent.get(n, [])]

    mod.missing = missing
    mod.data_home = lambda: tmp_path / "home"
    monkeypatch.setitem(sys.modules, "bandits.data", mod)
    monkeypatch.delenv("BANDITS_DATA_DIR", raising=False)
    return mod


def test_skip_reason_names_files_addresses_and_variable(fake_data, tmp_path):
    hook = _load_root_conftest()
    meta = {"bandits": {"datasets": ["magic", "mushroom"]}}
    reason = hook.skip_reason("notebooks/x.ipynb", meta)
    assert fake_data.asked == [["magic", "mushroom"]]
    for part in ("notebooks/x.ipynb", "magic/magic04.data", "https://example.org/magic04.data",
                 "BANDITS_DATA_DIR", str(tmp_path / "home"), "make data"):
        assert part in reason, part
    fake_data.absent = {}
    assert hook.skip_reason("notebooks/x.ipynb", meta) is None
    assert hook.skip_reason("notebooks/y.ipynb", {}) is None  # no datasets declared: always runs
    assert len(fake_data.asked) == 2


def test_skip_reason_with_variable_set(fake_data, monkeypatch):
    monkeypatch.setenv("BANDITS_DATA_DIR", "/nowhere/data")
    fake_data.data_home = lambda: Path("/nowhere/data")
    reason = _load_root_conftest().skip_reason("nb.ipynb", {"bandits": {"datasets": ["magic"]}})
    assert "data home /nowhere/data (from BANDITS_DATA_DIR)" in reason


def test_notebook_datasets_validates():
    hook = _load_root_conftest()
    assert hook.notebook_datasets({}) == []
    assert hook.notebook_datasets({"bandits": {"datasets": ["yelp"]}}) == ["yelp"]
    with pytest.raises(ValueError, match="bandits.datasets"):
        hook.notebook_datasets({"bandits": {"datasets": "yelp"}})


def test_declared_datasets_are_registry_names():
    """Every dataset a notebook declares is a dataset of the data registry."""
    try:
        from bandits.data import DATASETS
    except ImportError as exc:  # the data package is being rebuilt
        pytest.skip(f"bandits.data not importable: {exc}")
    for name in NAMES:
        declared = jupytext.read(NB_DIR / f"{name}.py").metadata.get("bandits", {}).get("datasets", [])
        unknown = [d for d in declared if d not in DATASETS]
        assert not unknown, f"notebooks/{name}.py declares unknown datasets {unknown}"


def test_nbval_skips_notebook_with_missing_data(fake_data, tmp_path):
    """An in-process pytest run under nbval: every cell of a notebook whose declared data are
    missing is skipped with the message (and no kernel is started)."""
    pytest.importorskip("nbval")
    hook = _load_root_conftest()
    folder = tmp_path / "notebooks"
    _tiny_pair(folder)
    nb = nbformat.read(folder / "tiny.ipynb", as_version=4)
    nb.metadata["bandits"] = {"datasets": ["magic"]}
    nb.cells[-1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="| claim | 42\n")]
    nbformat.write(nb, folder / "tiny.ipynb")

    class Reports:
        def __init__(self):
            self.skipped = []

        def pytest_runtest_logreport(self, report):
            if report.skipped:
                self.skipped.append(report)

    reports = Reports()
    rc = pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path), "--nbval-lax",
                      "--nbval-current-env", str(folder / "tiny.ipynb")], plugins=[hook, reports])
    assert rc == 0
    assert len(reports.skipped) == 3  # the three code cells
    reason = reports.skipped[0].longrepr[2]
    assert reason.startswith("Skipped: data missing for datasets magic in the data home")
    assert "magic/magic04.data" in reason and "BANDITS_DATA_DIR" in reason
    assert fake_data.asked == [["magic"]]  # asked once per notebook


# ----------------------------------------------------------------------------------------------
# tools/nbtools.py (what the Makefile calls around papermill)
# ----------------------------------------------------------------------------------------------
def _nbtools():
    spec = importlib.util.spec_from_file_location("nbtools", ROOT / "tools" / "nbtools.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_nbtools_datasets_union_from_either_file(tmp_path):
    tools = _nbtools()
    for name, ds in (("a", ["magic", "yelp"]), ("b", ["yelp", "movielens"]), ("c", [])):
        nb = nbformat.v4.new_notebook(metadata={"bandits": {"datasets": ds}})
        nbformat.write(nb, tmp_path / f"{name}.ipynb")
    paths = [str(tmp_path / "a.py"), str(tmp_path / "b.ipynb"), str(tmp_path / "c.ipynb")]
    assert tools.datasets(paths) == ["magic", "yelp", "movielens"]
    assert tools.datasets([str(tmp_path / "c.ipynb")]) == []
    nbformat.write(nbformat.v4.new_notebook(metadata={"bandits": {"datasets": "magic"}}), tmp_path / "d.ipynb")
    with pytest.raises(SystemExit, match="bandits.datasets must be a list"):
        tools.datasets([str(tmp_path / "d.ipynb")])


def test_nbtools_datasets_of_the_committed_notebooks():
    declared = _nbtools().datasets([str(NB_DIR / f"{n}.ipynb") for n in NAMES])
    assert {"magic", "mushroom", "movielens", "yelp"} <= set(declared)


def test_nbtools_unpair(tmp_path):
    """(``times`` is tested in tests/test_make.py.)"""
    tools = _nbtools()
    out = tmp_path / "figures"
    (out / "x").mkdir(parents=True)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("a = 1")], metadata={
        "jupytext": {"formats": "ipynb,py:percent"}, "papermill": {"duration": 125.25}})
    nbformat.write(nb, out / "x" / "x.ipynb")
    tools.unpair([str(out / "x" / "x.ipynb")])
    kept = nbformat.read(out / "x" / "x.ipynb", as_version=4)
    assert "jupytext" not in kept.metadata and kept.metadata["papermill"]["duration"] == 125.25


# ----------------------------------------------------------------------------------------------
# Makefile wiring (dry runs: `make -n` prints the recipes without running them)
# ----------------------------------------------------------------------------------------------
def _make_n(*args, env_extra=None):
    import os
    import subprocess

    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    env = {k: v for k, v in os.environ.items()
           if k not in ("BANDITS_DATA_DIR", "SCHEDULER", "NOTEBOOKS", "DASK_SCHEDULER_ADDRESS", "MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES")}
    env.update(env_extra or {})
    out = subprocess.run(["make", "--no-print-directory", "-n", "-o", ".venv/.stamp", *args], cwd=ROOT, env=env, text=True,
                         capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_make_figures_recipe():
    text = _make_n("figures", "NOTEBOOKS=notebooks/async_kernelucb.py notebooks/duets.ipynb")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    ensure = next(i for i, ln in enumerate(lines) if 'ds="magic mushroom movielens yelp"' in ln)
    assert "bandits.data ensure --only $ds;" in lines[ensure]  # strict: a failure stops make figures
    pre = next(i for i, ln in enumerate(lines) if "nbtools.py preflight" in ln)  # checks before any run
    runs = next(i for i, ln in enumerate(lines) if "tools/pmrun.py" in ln)  # papermill under pmrun
    assert ensure < pre < runs
    assert "notebooks/async_kernelucb.ipynb notebooks/duets.ipynb" in lines[runs]  # .py named -> its .ipynb
    assert "-p mode full" in lines[runs] and "scheduler" not in lines[runs].split("pmrun.py", 1)[1]
    assert "tools/nbtools.py times figures" in lines[-1]  # the wall-time table comes last
    assert "shared/data" not in text and "BANDITS_DATA_DIR=" not in text


def test_make_scheduler_and_test_recipe():
    text = _make_n("figures", "NOTEBOOKS=notebooks/duets.py", "SCHEDULER=tcp://10.0.0.5:8786")
    assert "-p backend dask -p scheduler tcp://10.0.0.5:8786" in text
    text = _make_n("test", "NOTEBOOKS=notebooks/async_kernelucb.ipynb")
    assert 'ds="magic mushroom movielens yelp"' in text
    assert "bandits.data ensure --only $ds ||" in text  # never fatal for make test
    assert "pytest -rs -p no:cacheprovider --nbval-lax --nbval-current-env notebooks/async_kernelucb.ipynb" in text
    # the unit tests and nbval side by side (two jobs), each one's output printed whole
    assert "-j2 --output-sync=target test-unit test-nbval" in text and "MAKEOVERRIDES .venv/bin/python -m pytest tests" in text
    assert "-j1 " in _make_n("test", "NOTEBOOKS=notebooks/duets.ipynb", "TEST_JOBS=1")
    text = _make_n("test", "NOTEBOOKS=notebooks/duets.ipynb")
    assert 'ds=""' in text
