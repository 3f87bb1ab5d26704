"""The package's shape (issue 22): no import cycle among its modules, and no module over ~800 lines
without a reason written at its top."""
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
    with pytest.raises(ValueError, match="unknown experiment"):
        get_experiment("nope")
