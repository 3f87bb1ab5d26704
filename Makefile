# bandits: build the environment, regenerate the figures, run the tests.  GNU make.
#
#   make figures    fetch the missing data, run every notebook in full mode into figures/<name>/
#   make quick      the same in quick mode into results/quick/<name>/ (minutes)
#   make test       unit tests and the notebooks under nbval (claims cells), side by side
#   make site       the companion website (Sphinx + myst-nb) into docs/_build/html
#   make help       list the targets
#
# Every variable below can be overridden: `make figures N_JOBS=8 NOTEBOOKS=notebooks/foo.ipynb`.
# Notebooks are jupytext pairs: notebooks/<name>.py (the source) and notebooks/<name>.ipynb (what
# papermill and nbval run); NOTEBOOKS may name either file of a pair.
#
# Data: BANDITS_DATA_DIR is not set here. When the environment (or the command line) sets it, as
# CI's .ci/run does, that folder is the data home; otherwise the package's per-user cache folder is
# (`python -m bandits.data --help` prints it).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
N_JOBS ?= 2
TORCH_VERSION ?= 2.13.0
# A running dask.distributed scheduler ("tcp://host:port"): when set, the notebooks run with
# backend=dask and scheduler=$(SCHEDULER), and DASK_SCHEDULER_ADDRESS is exported (dask's own variable).
SCHEDULER ?=
# More papermill options for every notebook run by figures/quick, e.g. PM_ARGS='-p n_runs 3'. Every
# -p/-r NAME is checked against each notebook's parameters cell before anything runs.
PM_ARGS ?=
# More options for `make lab` (e.g. LAB_ARGS='--port 8890 --no-browser'); --allow-root is added as root.
LAB_ARGS ?=
# One BLAS/OpenMP thread per process: parallelism comes from joblib workers (N_JOBS).
OMP_NUM_THREADS ?= 1
OPENBLAS_NUM_THREADS ?= 1
MKL_NUM_THREADS ?= 1
export OMP_NUM_THREADS OPENBLAS_NUM_THREADS MKL_NUM_THREADS
# One arithmetic path on every x86-64 machine. numpy's AVX-512 loops and OpenBLAS's AVX-512 (SkylakeX)
# kernels round differently from their AVX2 versions; a last-bit difference flips an argmax now and
# then, a bandit run then takes another path, and the claims text nbval compares changes (measured:
# 4 of 10 notebooks differ between an AVX-512 and an AVX2 machine, and agree with these settings).
# AVX2 (x86-64-v3) is on every x86-64 machine of the last decade; set them empty to use the native path.
NPY_DISABLE_CPU_FEATURES ?= X86_V4 AVX512_ICL AVX512_SPR
OPENBLAS_CORETYPE ?= Haswell
export NPY_DISABLE_CPU_FEATURES OPENBLAS_CORETYPE
# Exported to the notebook runs only (figures, quick), not to the unit tests.
ifneq ($(strip $(SCHEDULER)),)
figures quick: export DASK_SCHEDULER_ADDRESS := $(strip $(SCHEDULER))
endif

NOTEBOOKS ?= $(sort $(wildcard notebooks/*.ipynb))
# The .ipynb of each pair (papermill and nbval read .ipynb files).
NB_IPYNB = $(patsubst %.py,%.ipynb,$(NOTEBOOKS))
FIGURES_DIR ?= figures
QUICK_DIR ?= results/quick

VPY := $(VENV)/bin/python
STAMP := $(VENV)/.stamp
# Jupyter looks for kernels in the venv before the user's own folders, so papermill and
# the lab start the venv's Python.
export JUPYTER_PATH := $(abspath $(VENV))/share/jupyter$(if $(JUPYTER_PATH),:$(JUPYTER_PATH))

.PHONY: help env figures quick test test-unit test-nbval lab bench decide data lock clean distclean site

help: ## list the targets
	@echo "usage: make TARGET [VAR=value ...]"
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-zA-Z_-]+):.*## (.*)/  \1\t\2/' | expand -t 14
	@echo "variables: PYTHON=$(PYTHON) VENV=$(VENV) N_JOBS=$(N_JOBS) SCHEDULER=$(or $(strip $(SCHEDULER)),(none)) PM_ARGS=$(or $(strip $(PM_ARGS)),(none)) LAB_ARGS=$(or $(strip $(LAB_ARGS)),(none))"
	@echo "data home: $(or $(BANDITS_DATA_DIR),BANDITS_DATA_DIR unset: the per-user cache folder)"
	@echo "notebooks: $(if $(strip $(NOTEBOOKS)),$(NOTEBOOKS),(none yet))"

env: $(STAMP) ## build the virtual environment .venv (torch CPU first, then the package, editable)

# torch goes in first, alone, from the pinned CPU build, so that nothing later pulls the
# CUDA build; requirements.txt pins every transitive package (regenerate with `make lock`).
$(STAMP): pyproject.toml requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --upgrade pip
	$(VPY) -m pip install -c requirements.txt torch==$(TORCH_VERSION)
	$(VPY) -m pip install -c requirements.txt -e '.[dev]'
	$(VPY) -m ipykernel install --prefix $(abspath $(VENV)) --name python3 --display-name 'Python 3 (bandits)'
	@$(VPY) -c "import torch; assert torch.__version__.split('+')[0] == '$(TORCH_VERSION)', torch.__version__; print('torch', torch.__version__, 'cuda:', torch.version.cuda)"
	touch $@

# The datasets the selected notebooks declare (metadata bandits.datasets).
NB_DATASETS = $(shell $(VPY) tools/nbtools.py datasets $(NB_IPYNB))
# Scheduler parameters, only when SCHEDULER is set.
comma := ,
NB_SCHEDULER = $(if $(strip $(SCHEDULER)),-p backend dask -p scheduler $(strip $(SCHEDULER)))

# $(1): mode (full|quick); $(2): output root, one folder per notebook. First, before any run, every
# output folder must be writable and every PM_ARGS parameter known (tools/nbtools.py preflight). Each
# notebook runs under tools/pmrun.py: progress in the terminal (runs done / total, cached and computed,
# ETA, warnings as they happen; one summary line when not a terminal), no kernel noise, and no process
# left behind if papermill dies. The executed copies lose the jupytext pairing metadata (so Lab never
# pairs them).
define run_notebooks
	@if [ -z "$(strip $(NOTEBOOKS))" ]; then echo "no notebooks in notebooks/: nothing to run"; fi
	@$(VPY) tools/nbtools.py preflight "$(2)" $(NB_IPYNB) -- $(PM_ARGS)
	@for nb in $(NB_IPYNB); do \
	  name=$$(basename "$$nb" .ipynb); out="$(2)/$$name"; mkdir -p "$$out"; \
	  echo "== $$nb -> $$out/$$name.ipynb (mode $(1), n_jobs $(N_JOBS)$(if $(strip $(SCHEDULER)),$(comma) scheduler $(strip $(SCHEDULER))))"; \
	  $(VPY) tools/pmrun.py --label "$$name" -- "$$nb" "$$out/$$name.ipynb" -k python3 --cwd . \
	    -p mode $(1) -p n_jobs $(N_JOBS) -p out "$$out" $(NB_SCHEDULER) \
	    $$(if [ "$(1)" = full ]; then $(VPY) -m bandits.sequential papermill-args "$$name"; fi) $(PM_ARGS); \
	  $(VPY) tools/nbtools.py unpair "$$out/$$name.ipynb"; \
	done
endef

# $(1): output root: the time of each notebook from its runs' own recorded times (every folder under
# $(1), not only the notebooks just run; papermill's record beside it), printed and written to $(1)/TIMES.md.
define notebook_times
	@echo "== times (the runs' own recorded times, every folder under $(1))"
	@$(VPY) tools/nbtools.py times $(1)
endef

# $(1): "strict" (a failure stops make) or "lenient" (a failure is reported; nbval then skips the
# notebooks whose data are missing, naming the files). Fetches only what is missing or invalid.
define ensure_data
	@ds="$(strip $(NB_DATASETS))"; \
	if [ -z "$$ds" ]; then echo "== data: the selected notebooks need no datasets"; \
	else echo "== data: python -m bandits.data ensure --only $$ds"; \
	  $(if $(filter strict,$(1)),$(VPY) -m bandits.data ensure --only $$ds, \
	  $(VPY) -m bandits.data ensure --only $$ds || echo "== data: not every dataset could be had (above); nbval skips the notebooks that need them"); \
	fi
endef

figures: $(STAMP) ## fetch missing data, run every notebook in full mode into figures/<name>/ (with its sequential step, bandits.sequential.FULL_MODE_DESIGNS), claims table, times
	$(call ensure_data,strict)
	$(call run_notebooks,full,$(FIGURES_DIR))
	@if $(VPY) -c "import importlib.util as u, sys; sys.exit(u.find_spec('bandits.report') is None)" 2>/dev/null; \
	then $(VPY) -m bandits.report; else echo "bandits.report not there yet: claims table skipped"; fi
	$(call notebook_times,$(FIGURES_DIR))

quick: $(STAMP) ## run every notebook in quick mode into results/quick/<name>/ (never figures/)
	$(call ensure_data,strict)
	$(call run_notebooks,quick,$(QUICK_DIR))
	$(call notebook_times,$(QUICK_DIR))

# The unit tests and nbval run side by side (TEST_JOBS=1: one after the other). Neither reads what the
# other writes: the unit tests write temporary folders (tests/conftest.py), results/site/ and the site's
# sources (tests/test_site.py) and read figures/; nbval's notebooks write results/quick/ and the run cache
# (cache/, each entry written whole, then renamed).
# --output-sync prints each one's output whole when it ends, so the two logs do not interleave.
TEST_JOBS ?= 2
test: $(STAMP) ## fetch missing data (never fatal), then the unit tests and nbval on the notebooks (claims cells), side by side
	$(call ensure_data,lenient)
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target test-unit test-nbval

# Without this make's own variables: the tests that run make start it as a user would (no jobserver of
# this make, no command-line variables of `make test`).
test-unit: $(STAMP) ## the unit tests only (pytest tests)
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES $(VPY) -m pytest tests

test-nbval: $(STAMP) ## nbval on the notebooks only (their claims cells; fetches no data)
ifneq ($(strip $(NOTEBOOKS)),)
	$(VPY) -m pytest -rs -p no:cacheprovider --nbval-lax --nbval-current-env $(NB_IPYNB)
else
	@echo "no notebooks in notebooks/: nbval skipped"
endif

# Served from the repository root (so jupytext finds jupytext.toml) and opened on notebooks/. The
# jupytext server extension installed in the venv pairs each notebooks/<name>.ipynb with its .py:
# saving either updates both.
# As root (containers, many cloud machines) Jupyter refuses to start without --allow-root: it is added
# when the user id is 0. LAB_ARGS passes anything else (--port, --no-browser, --ip ...).
LAB_ROOT = $(if $(filter 0,$(shell id -u)),--allow-root)
# Kernels started with CurveZMQ keys where pyzmq supports them: their traffic is encrypted and the kernel's
# "running over TCP without encryption" warning has no cause.
LAB_CURVE = $(shell $(VPY) -c "import zmq; print('--KernelManager.transport_encryption=auto' if zmq.has('curve') else '')" 2>/dev/null)
lab: $(STAMP) ## JupyterLab on notebooks/, with jupytext pairing (.py and .ipynb saved together); LAB_ARGS=...
	$(VENV)/bin/jupyter lab --ServerApp.root_dir="$(CURDIR)" --LabApp.default_url=/lab/tree/notebooks $(LAB_ROOT) $(LAB_CURVE) $(LAB_ARGS)

# More options for `make bench`: names, --list, floor --write (python -m bandits.bench --help).
BENCH_ARGS ?=
bench: $(STAMP) ## run the benchmarks (bandits.bench); BENCH_ARGS='floor --write', '--list', names ...
	$(VPY) -m bandits.bench $(BENCH_ARGS)

decide: $(STAMP) ## sequential step: runs in stages for the undecided claims of figures/<name> (DECIDE=duets BUDGET_S= SCHEDULE= SPENDING= FUTILITY=1: the futility stop from look 1, FUTILITY=k from look k)
	$(VPY) -m bandits.sequential decide $(or $(strip $(DECIDE)),duets) --figures $(FIGURES_DIR) --n-jobs $(N_JOBS) \
	  $(if $(strip $(BUDGET_S)),--budget-s $(BUDGET_S)) $(if $(strip $(SCHEDULE)),--schedule $(SCHEDULE)) \
	  $(if $(strip $(SPENDING)),--spending $(SPENDING)) $(if $(strip $(FUTILITY)),--futility $(FUTILITY)) \
	  $(if $(strip $(SCHEDULER)),--backend dask --scheduler $(SCHEDULER))

data: $(STAMP) ## fetch the missing datasets into the data home (BANDITS_DATA_DIR, else the user cache)
	$(VPY) -m bandits.data ensure

lock: ## re-resolve pyproject.toml in a scratch venv and rewrite requirements.txt
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(PYTHON) -m venv "$$tmp/venv"; \
	"$$tmp/venv/bin/python" -m pip install -q --upgrade pip; \
	"$$tmp/venv/bin/python" -m pip install -q torch==$(TORCH_VERSION); \
	"$$tmp/venv/bin/python" -m pip install -q -e '.[dev]'; \
	{ echo "# Every package of the environment, pinned. Generated by \`make lock\` from pyproject.toml;"; \
	  echo "# \`make env\` installs with it as a constraints file. torch is the CPU build (local tag dropped)."; \
	  "$$tmp/venv/bin/python" -m pip freeze --all --exclude pip --exclude bandits | sed -E 's/^(torch==[^+]+)\+.*/\1/'; \
	} > requirements.txt
	@echo "requirements.txt: $$(grep -vc '^#' requirements.txt) packages"

clean: ## remove results/ and cache/ (figures/ stays)
	rm -rf results cache

distclean: clean ## also remove the virtual environment
	rm -rf $(VENV)

SITE_DIR ?= docs/_build/html
# The website: Sphinx + myst-nb, execution off (the committed executed notebooks and figures are rendered,
# nothing is recomputed). docs/_gen/ is written first by `python -m bandits.report site`.
site: $(STAMP) ## the companion website into docs/_build/html (Sphinx + myst-nb; renders figures/, runs nothing)
	$(VPY) -m bandits.report site
	$(VPY) -m sphinx -b html -q -j 2 docs $(SITE_DIR)
	@echo "site: $(SITE_DIR)/index.html (serve: $(VPY) -m http.server -d $(SITE_DIR))"
