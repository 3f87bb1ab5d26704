"""The package's shape: no import cycle among its modules, no module over ~800 lines without a
reason written at its top, every notebook a registered experiment, and the run code never importing the
claims and plots code that the run cache's key leaves out."""
from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1] / "bandits"
MAX_LINES = 800
#: the word that opens the paragraph of a long module's docstring saying why it is long ("Length (≈ 850
#: lines): ...")
REASON = "Length"


def _modules() -> dict[str, Path]:
    out = {}
    for p in sorted(ROOT.rglob("*.py")):
        rel = p.relative_to(ROOT.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


def _imports(name: str, path: Path, known) -> set[str]:
    """The package modules ``name`` imports at module level (function-level imports are deferred and do not
    make an import cycle at import time; they are left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in tree.body:
        nodes = [node]
        if isinstance(node, (ast.If, ast.Try)):
            nodes = list(ast.walk(node))
        for n in nodes:
            if isinstance(n, ast.Import):
                found |= {a.name for a in n.names}
            elif isinstance(n, ast.ImportFrom):
                if n.level:
                    base = pkg.split(".")
                    base = base[: len(base) - (n.level - 1)]
                    mod = ".".join(base + ([n.module] if n.module else []))
                else:
                    mod = n.module or ""
                found.add(mod)
                found |= {f"{mod}.{a.name}" for a in n.names}
    return {m for m in found if m in known and m != name}


def test_no_import_cycle():
    mods = _modules()
    g = nx.DiGraph()
    g.add_nodes_from(mods)
    for name, path in mods.items():
        for dep in _imports(name, path, mods):
            if not name.startswith(dep + ".") and dep != name:  # a submodule importing its own package's __init__
                g.add_edge(name, dep)
    cycles = list(nx.simple_cycles(g))
    assert not cycles, f"import cycles among the package's modules: {cycles[:5]}"


def test_long_modules_say_why():
    long = []
    for name, path in _modules().items():
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > MAX_LINES:
            doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
            if REASON not in doc:
                long.append(f"{name} ({n} lines)")
    assert not long, (f"modules over {MAX_LINES} lines without a '{REASON}' paragraph in their docstring saying why: "
                      f"{long}")


def test_every_notebook_has_a_registered_experiment():
    """The experiment protocol (bandits.experiments.EXPERIMENTS): one entry per notebook, each resolving to
    its params / run / claims / plot functions; params gives both modes and rejects an unknown override."""
    import pytest

    from bandits.experiments import EXPERIMENTS, get_experiment

    notebooks = {p.stem for p in (ROOT.parent / "notebooks").glob("*.py")}
    assert notebooks == set(EXPERIMENTS), f"notebooks without an experiment entry or the reverse: {notebooks ^ set(EXPERIMENTS)}"
    for name in EXPERIMENTS:
        fns = get_experiment(name)
        assert all(callable(fns[k]) for k in ("params", "run", "claims")), name
        assert fns["plot"] is None or callable(fns["plot"]), name
        for mode in ("quick", "full"):
            assert isinstance(fns["params"](mode), dict), (name, mode)
    with pytest.raises(ValueError, match="parameter 'name' must be one of .*'duets'"):
        get_experiment("nope")


# ------------------------------------------------------------------ claims and plots outside the run cache's key
#: Modules the fingerprint covers that may still import claims or plots code while they are being split
#: (their claims and plots into ``<name>_claims.py`` / ``<name>_plots.py``, ``<pkg>/claims.py`` /
#: ``<pkg>/plots.py``): ``{"experiments/<name>.py": "who splits it"}``. Empty: every experiment
#: is split; an entry that no longer imports anything left out is reported (a warning) so
#: that it is removed.
SPLIT_PENDING: dict[str, str] = {}


def _all_imports(rel: str, path: Path, known: dict[str, str]) -> list[tuple[int, str]]:
    """Every package module ``rel`` imports anywhere (module level, inside a function, under ``if``),
    relative or absolute, ``from x import y`` counting both ``x`` and ``x.y``: ``(line, module path)``."""
    parts = ["bandits"] + rel[:-3].split("/")
    pkg = parts[:-1]  # for a package __init__, its package; for a module, the package holding it
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                mod = ".".join(pkg[: len(pkg) - (node.level - 1)] + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            targets = [mod] + [f"{mod}.{a.name}" for a in node.names]
        for t in targets:
            if t in known:
                out.append((node.lineno, known[t]))
    return out


def test_run_code_never_imports_claims_or_plots_code():
    """No module the run cache's code fingerprint covers (:func:`bandits.runner.in_runs`) imports one it
    leaves out (claims, plots, bandits.claims, bandits.plotting, the notebooks' helpers, reports, benchmarks),
    not even lazily in a function or as a package ``__init__``'s re-export: else a run could depend on code
    outside its cache key, and a claim's edit could change a cached run's meaning."""
    import warnings

    from bandits.runner import in_runs

    rels = {p.relative_to(ROOT).as_posix(): p for p in sorted(ROOT.rglob("*.py"))}
    known = {}
    for rel in rels:
        dotted = "bandits." + rel[:-3].replace("/", ".")
        known[dotted[: -len(".__init__")] if dotted.endswith(".__init__") else dotted] = rel
    bad, pending = [], {}
    for rel, path in rels.items():
        if not in_runs(rel):
            continue
        hits = [f"{rel}:{line} imports {dep}" for line, dep in _all_imports(rel, path, known) if not in_runs(dep)]
        if rel in SPLIT_PENDING:
            pending[rel] = hits
        else:
            bad += hits
    assert not bad, "run code importing code outside the cache key:\n" + "\n".join(bad)
    done = [rel for rel, hits in pending.items() if not hits]
    if done:
        warnings.warn(f"SPLIT_PENDING entries no longer needed (remove them): {done}")


def test_the_checker_sees_lazy_relative_and_package_imports(tmp_path):
    """The import scan of the rule above finds a lazy import in a function, a relative ``from ..x import``,
    ``from . import plots`` in a package ``__init__``, and an absolute ``import bandits.plotting``."""
    src = tmp_path / "mod.py"
    src.write_text("def f():\n    from ..claims import combine\n    import bandits.plotting\n")
    init = tmp_path / "__init__.py"
    init.write_text("from . import plots\nfrom .runs import run\n")
    known = {"bandits.claims": "claims.py", "bandits.plotting": "plotting.py",
             "bandits.experiments.pkg.plots": "experiments/pkg/plots.py",
             "bandits.experiments.pkg.runs": "experiments/pkg/runs.py"}
    assert _all_imports("experiments/mod.py", src, known) == [(2, "claims.py"), (3, "plotting.py")]
    assert sorted(_all_imports("experiments/pkg/__init__.py", init, known)) == [
        (1, "experiments/pkg/plots.py"), (2, "experiments/pkg/runs.py")]


def test_claims_and_plots_live_outside_the_run_cache_key():
    """Every registered experiment's claims and plot functions are taken from a module the fingerprint leaves
    out (``<name>_claims.py`` / ``<name>_plots.py``, ``<pkg>/claims.py`` / ``<pkg>/plots.py``), except the
    experiments of :data:`SPLIT_PENDING` not split yet."""
    from bandits.experiments import EXPERIMENTS
    from bandits.runner import in_runs

    pending = {rel.split("/")[1].removesuffix(".py") for rel in SPLIT_PENDING}

    def rel_of(mod: str) -> str:
        base = ROOT / "experiments" / Path(*mod.split("."))
        return (base / "__init__.py" if base.is_dir() else base.with_suffix(".py")).relative_to(ROOT).as_posix()

    wrong = []
    for name, entry in EXPERIMENTS.items():
        for kind in ("claims", "plot"):
            if getattr(entry, kind) is None:
                continue
            mod = entry.where(kind)
            if in_runs(rel_of(mod)) and entry.module not in pending:
                wrong.append(f"{name}: {kind} function {getattr(entry, kind)} in {mod} (want {entry.conventional(kind)})")
    assert not wrong, "\n".join(wrong)


def test_experiment_entries_name_where_claims_and_plots_live():
    """An entry finds its claims and plot functions by the convention (``<module>_claims`` / ``_plots``, a
    package's ``.claims`` / ``.plots``) unless it names the modules."""
    from bandits.experiments import EXPERIMENTS, ExperimentEntry

    duets, pkg = EXPERIMENTS["duets"], EXPERIMENTS["async_theory"]
    assert (duets.conventional("claims"), duets.conventional("plot")) == ("duets_claims", "duets_plots")
    assert (pkg.conventional("claims"), pkg.conventional("plot")) == ("async_theory.claims", "async_theory.plots")
    assert (duets.where("params"), duets.where("run"), duets.where("claims")) == ("duets", "duets", "duets_claims")
    named = ExperimentEntry("duets", "fig1_params", "run_fig1", "split_selection", "plot_fig1",
                            claims_module="duets_claims", plots_module="duets_plots")
    assert named.resolve()["claims"].__module__ == "bandits.experiments.duets_claims"
    no_plot = ExperimentEntry("duets", "fig1_params", "run_fig1", "fig1_claims", None)
    assert no_plot.resolve()["plot"] is None


# ------------------------------------------------------------------ the core knows no paper
#: The core: the loops, the runner, the statistics and the environments. What differs between papers
#: enters them through hooks (an environment or instance factory, a policy wrapper, an observer, a cell
#: function) that the paper's experiment passes in; the core itself imports no paper's algorithms and no
#: experiment.
CORE = ("runner.py", "sim.py", "stats.py", "envs/")
#: Of ``bandits.envs``, what the runner, the loops and the statistics may import: the package (its
#: factories ``make_env`` and ``make_instance`` resolve a spec to a paper's environment) and its generic
#: modules; a paper's environment module (``envs/cope.py``, ``envs/coop.py``, ...) only through them.
GENERIC_ENVS = ("envs/__init__.py", "envs/base.py", "envs/functions.py", "envs/datasets.py")


def _paper_specific(importer: str, dep: str) -> bool:
    """Whether module ``dep`` (a path relative to the package) is paper-specific for core module ``importer``:
    any experiment module, any module of ``bandits.algorithms`` but the registry (its ``__init__``), and,
    for the runner, the loops and the statistics, a paper's environment module."""
    if dep.startswith("experiments/"):
        return True
    if dep.startswith("algorithms/") and dep != "algorithms/__init__.py":
        return True
    return (not importer.startswith("envs/") and dep.startswith("envs/") and dep not in GENERIC_ENVS)


def test_the_core_imports_no_paper():
    """``bandits/runner.py``, ``bandits/sim.py``, ``bandits/stats.py`` and ``bandits/envs/*`` import no
    paper-specific module (``bandits.algorithms.<paper>``, ``bandits.experiments.*``; for the first three, no
    paper's environment module either), not even lazily in a function."""
    rels = {p.relative_to(ROOT).as_posix(): p for p in sorted(ROOT.rglob("*.py"))}
    known = {}
    for rel in rels:
        dotted = "bandits." + rel[:-3].replace("/", ".")
        known[dotted[: -len(".__init__")] if dotted.endswith(".__init__") else dotted] = rel
    core = [rel for rel in rels if rel.startswith(CORE)]
    assert {"runner.py", "sim.py", "stats.py", "envs/cope.py", "envs/coop.py"} <= set(core)
    bad = [f"{rel}:{line} imports {dep}" for rel in core for line, dep in _all_imports(rel, rels[rel], known)
           if _paper_specific(rel, dep)]
    assert not bad, "the core imports a paper's code (pass it in as a hook instead):\n" + "\n".join(bad)


def test_the_paper_check_sees_what_it_should():
    assert _paper_specific("runner.py", "envs/cope.py") and _paper_specific("envs/coop.py", "algorithms/coop_kernel_ucb.py")
    assert _paper_specific("sim.py", "experiments/cope_theory.py")
    assert not _paper_specific("runner.py", "algorithms/__init__.py") and not _paper_specific("runner.py", "envs/__init__.py")
    assert not _paper_specific("envs/__init__.py", "envs/cope.py")
