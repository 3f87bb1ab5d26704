"""The "Adding a paper" guide (docs/adding_a_paper.md), followed end to end for a toy paper in a copy of the
repository: the files it lists are written (an algorithm, an experiment in three modules, the registry entries,
a notebook pair, the paper's manifest entry, a claims-recomputation loader), the notebook runs in full mode (the toy's: seconds) into
``figures/<name>/`` with papermill, the claims are recomputed from the committed files, the report writes the
paper's page and the site builds with it. Nothing else is edited: the test compares what changed in the copy
with the guide's list of files (between ``<!-- files-a-paper-touches:start/end -->``), so that a step the guide
does not name fails here, not later.

The toy's algorithm, experiment, claims and plot are ``tests/toy_paper/`` (``tests/test_toy_paper.py`` runs them
in place); here they are copied to the places the guide names. Slow (about a minute: one papermill run and one
Sphinx build); skipped where papermill, jupytext or Sphinx cannot be had.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NAME = "toy_fed"  # the notebook, figures folder, experiment module and page slug
FAMILY = "toy_fed"  # bandits/algorithms/<family>.py

NOTEBOOK = '''# ---
# jupyter:
#   bandits:
#     datasets: []
#   jupytext:
#     formats: ipynb,py:percent
#     notebook_metadata_filter: bandits
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Toy-FedGreedy: sharing against never sharing

# %% tags=["parameters"]
# parameters
mode = "quick"          # "quick" | "full"
seed = 0                # master seed
n_jobs = 1              # worker processes
backend = "serial"      # "serial" | "loky" | "threading" | "dask"
scheduler = None        # a running dask scheduler, used with backend "dask"
out = "results/quick/toy_fed"   # output folder
cache_dir = None        # None: $BANDITS_CACHE_DIR or cache/

# %%
from bandits.experiments.notebook import start_notebook, finish_notebook, default_cache_dir
from bandits.experiments import toy_fed as ex
from bandits.experiments import toy_fed_claims as cl, toy_fed_plots as pl
from bandits.plotting import save_figure

out_dir = start_notebook(mode=mode, seed=seed, n_jobs=n_jobs, backend=backend, out=out, scheduler=scheduler,
                         datasets=[])
params = ex.toy_params(mode)

# %%
runs = ex.run_toy(params, seed=seed, n_jobs=n_jobs, backend=backend, cache_dir=cache_dir or default_cache_dir())
runs.to_csv(out_dir / "results.csv", index=False)   # one row per run
save_figure(pl.plot_toy(runs), out_dir, "toy")

# %% [markdown]
# ## Claims

# %%
# NBVAL_CHECK_OUTPUT
claims = cl.toy_claims(runs, params)
finish_notebook(claims, params, seed=seed, out_dir=out_dir, notebook="toy_fed.ipynb", mode=mode, n_jobs=n_jobs,
                backend=backend, about={"paper": "Toy-FedGreedy"})
'''

PAPER_ENTRY = '''
PAPERS = PAPERS + (
    Paper(name="Toy-FedGreedy", slug="toy_fed", title="Sharing Pays: a Toy Federated Greedy Bandit",
          authors="A. Toy, B. Toy", venue="the test suite, 2026", url="https://example.org/toy-fed",
          text="toy-fed.txt", notebooks=("toy_fed",),
          summary="A made-up paper: agents that pool their arm statistics reach a lower regret.",
          figures=(Figure("toy_fed/toy.png", "Final regret per protocol, mean ± s.e. over runs: reproduces the toy "
                                             "paper's only figure.", panels=((r"^toy-", "both bars"),)),),
          deviations=(Deviation("§1", "The toy's arms are a finite grid on h1 (the paper names no domain)."),)),
)
'''

LOADER = '''

@register("toy_fed")
def _toy_fed(folder: Path):
    """The toy's claims need every run's final regret and communication: results.csv holds them."""
    from bandits.experiments import toy_fed as ex
    from bandits.experiments.toy_fed_claims import toy_claims

    p = _full_params(ex, folder, ex.toy_params)
    return toy_claims(_csv(folder, "results.csv"), p), ["results.csv", "provenance.json"]
'''


def _guide_files() -> list[str]:
    """The guide's list of the files a new paper touches, ``<name>`` and ``<family>`` filled in."""
    text = (ROOT / "docs" / "adding_a_paper.md").read_text()
    block = text.split("<!-- files-a-paper-touches:start -->", 1)[1].split("<!-- files-a-paper-touches:end -->", 1)[0]
    out = []
    for line in block.splitlines():
        for path in re.findall(r"`([^`\s]+)`", line.split(":", 1)[0] if line.startswith("- ") else ""):
            out.append(path.replace("<name>", NAME).replace("<family>", FAMILY))
    assert out, "the guide lists no files between its markers"
    return out


def _snapshot(root: Path) -> dict:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


def _run(cmd, cwd, env, timeout=600):
    r = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{' '.join(map(str, cmd))} failed ({r.returncode}):\n{r.stdout[-2000:]}\n{r.stderr[-3000:]}"
    return r


def test_the_guide_adds_a_toy_paper_end_to_end(tmp_path):
    for mod in ("papermill", "jupytext", "sphinx", "myst_nb"):
        pytest.importorskip(mod, reason=f"{mod} is not installed (pip install -e '.[dev]')")
    repo = tmp_path / "repo"
    tracked = subprocess.run(["git", "ls-files", "bandits", "tools", "docs", "jupytext.toml"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout: the tracked files cannot be listed")
    for rel in tracked:
        if (ROOT / rel).is_file():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / rel, repo / rel)
    (repo / "figures").mkdir()
    (repo / "notebooks").mkdir()
    before = _snapshot(repo)

    # the files the guide lists, written as a contributor would
    toy = ROOT / "tests" / "toy_paper"
    (repo / "bandits" / "algorithms" / f"{FAMILY}.py").write_text((toy / "algorithm.py").read_text())
    with open(repo / "bandits" / "algorithms" / "__init__.py", "a") as f:
        f.write(f"\nfrom .{FAMILY} import ToyFedGreedy  # noqa: E402\n\nALGORITHMS[ToyFedGreedy.name] = ToyFedGreedy\n")
    exp = repo / "bandits" / "experiments"
    (exp / f"{NAME}.py").write_text((toy / "experiment.py").read_text()
                                    .replace("from .algorithm import", f"from ..algorithms.{FAMILY} import"))
    (exp / f"{NAME}_claims.py").write_text((toy / "experiment_claims.py").read_text())
    (exp / f"{NAME}_plots.py").write_text((toy / "experiment_plots.py").read_text())
    init = (exp / "__init__.py").read_text()
    anchor = '    "arena": ExperimentEntry('
    assert anchor in init, "bandits/experiments/__init__.py: the EXPERIMENTS registry moved; update this test"
    (exp / "__init__.py").write_text(init.replace(
        anchor, f'    "{NAME}": ExperimentEntry("{NAME}", "toy_params", "run_toy", "toy_claims", "plot_toy"),\n' + anchor))
    (repo / "notebooks" / f"{NAME}.py").write_text(NOTEBOOK)
    with open(repo / "bandits" / "papers.py", "a") as f:
        f.write(PAPER_ENTRY)
    tool = (repo / "tools" / "recompute_claims.py").read_text()
    marker = "\n\n# ------------------------------------------------------------------------------ the rest"
    assert marker in tool, "tools/recompute_claims.py: its sections moved; update this test"
    (repo / "tools" / "recompute_claims.py").write_text(tool.replace(marker, LOADER + marker, 1))

    env = dict(os.environ, PYTHONPATH=str(repo), OMP_NUM_THREADS="1", BANDITS_CACHE_DIR=str(tmp_path / "cache"),
               JUPYTER_PATH=str(Path(sys.prefix) / "share" / "jupyter"))
    py = sys.executable
    # the registry resolves, the notebook pair is made and runs (full mode, as `make figures`) into figures/<name>/
    _run([py, "-c", f"from bandits.experiments import get_experiment; assert get_experiment('{NAME}')['claims']"],
         repo, env)
    _run([py, "-m", "jupytext", "--to", "ipynb", f"notebooks/{NAME}.py"], repo, env)
    (repo / "figures" / NAME).mkdir()  # as make figures does
    _run([py, "-m", "papermill", f"notebooks/{NAME}.ipynb", f"figures/{NAME}/{NAME}.ipynb", "-k", "python3",
          "--cwd", ".", "-p", "mode", "full", "-p", "out", f"figures/{NAME}", "--no-progress-bar"], repo, env)
    claims = json.loads((repo / "figures" / NAME / "claims.json").read_text())
    assert {c["id"] for c in claims["claims"]} == {"toy-sharing-pays", "toy-ledger"}
    # the claims recomputed from the committed files; every manifest folder accounted for
    _run([py, "tools/recompute_claims.py", NAME, "--write"], repo, env)
    _run([py, "tools/recompute_claims.py", "--list"], repo, env)
    # the report and the site
    _run([py, "-m", "bandits.report", "site"], repo, env)
    page = (repo / "docs" / "papers" / f"{NAME}.md").read_text()
    assert 'id="toy-ledger"' in page and "reproduces the toy paper's only figure" in page
    assert "https://example.org/toy-fed" in (repo / "docs" / "index.md").read_text()
    _run([py, "-m", "bandits.report", "claims"], repo, env)
    assert "## Toy-FedGreedy" in (repo / "CLAIMS.md").read_text()
    out = tmp_path / "html"
    _run([py, "-m", "sphinx", "-b", "html", "-q", "-j", "1", "docs", str(out)], repo, env, timeout=900)
    html = (out / "papers" / f"{NAME}.html").read_text()
    assert 'id="toy-sharing-pays"' in html and "Final regret per protocol" in html
    assert (out / "data" / NAME / "claims.json").exists() and (out / "data" / NAME / "toy.pdf").exists()

    # nothing was touched but what the guide lists (and what its commands generate)
    generated = (r"^docs/(index|claims)\.md$", r"^docs/papers/", r"^docs/_gen/", r"^CLAIMS\.md$", r"^cache/",
                 rf"^notebooks/{NAME}\.ipynb$", rf"^figures/{NAME}/", r"^results/")
    after = _snapshot(repo)
    changed = sorted(k for k in after if before.get(k) != after[k] and not any(re.match(g, k) for g in generated))
    listed = _guide_files()
    unlisted = [k for k in changed if k not in listed]
    assert not unlisted, f"files a new paper had to touch that docs/adding_a_paper.md does not list: {unlisted}"
