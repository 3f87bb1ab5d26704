"""The one declarative validation style: :mod:`bandits.validation`'s rules and messages, the
package floor it stands on, and an ast scan that refuses a new imperative argument check
(``if x < 0: raise ValueError(...)``) anywhere in ``bandits/``."""
from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest

from bandits.validation import (ParameterError, between, boolean, check, check_all, each, fail, ge, gt, integer,
                                keys_in, le, lt, number, one_of, optional, real, rule, subset_of)

ROOT = Path(__file__).resolve().parents[1] / "bandits"


def test_a_message_names_the_parameter_what_is_allowed_and_what_was_given():
    with pytest.raises(ParameterError, match=r"^parameter 'lam' must be > 0, got -1\.0$"):
        check("lam", -1.0, gt(0))
    with pytest.raises(ParameterError, match=r"^parameter 'rule' must be one of \['paper', 'ucb_lcb'\], got 'x'$"):
        check("rule", "x", one_of("paper", "ucb_lcb"))
    with pytest.raises(ParameterError, match=r"must be 'dual', got 'primal' \(features='exact'\)$"):
        check("path", "primal", one_of("dual"), note="features='exact'")
    with pytest.raises(ParameterError, match=r"parameter 'X' must be a 2-d array, got an array of shape \(3,\)"):
        check("X", np.zeros(3), rule(lambda a: a.ndim == 2, "a 2-d array"))
    with pytest.raises(ParameterError, match=r"unknown keys \['bad'\]"):
        check("spec", {"name": "rbf", "bad": 1}, keys_in("name", "lengthscale"))
    with pytest.raises(ParameterError, match=r"parameter 'kind' must be one of \['a', 'b'\], got 'c'"):
        fail("kind", "c", one_of("a", "b"))
    assert issubclass(ParameterError, ValueError)
    from bandits.experiments.common import ParameterError as FromCommon

    assert FromCommon is ParameterError


def test_check_returns_the_value_and_check_all_checks_each():
    x = np.arange(3)
    assert check("x", x, rule(lambda a: a.size == 3, "3 values")) is x
    check_all(lam=(1.0, gt(0)), T=(5, integer(ge=1)))
    with pytest.raises(ParameterError, match="'T' must be an integer >= 1, got 0"):
        check_all(lam=(1.0, gt(0)), T=(0, integer(ge=1)))


@pytest.mark.parametrize("r, good, bad", [
    (gt(0), [1e-9, 3, np.float32(2)], [0, -1, math.nan]),
    (ge(0), [0, 2.5], [-1e-9, math.nan]),
    (lt(1), [0.99, -5], [1, math.nan]),
    (le(1), [1, 0], [1.01, math.nan]),
    (between(0, 1), [0.5], [0, 1, math.nan]),
    (between(0, 1, "both"), [0, 1], [1.1, math.nan]),
    (between(0, 1, "left"), [0], [1]),
    (between(0, 1, "right"), [1], [0]),
    (integer(ge=1), [1, np.int64(7)], [0, 1.0, True, "1"]),
    (number(gt=0), [0.5, np.float64(2), np.int32(3)], [0, True, math.inf, math.nan, "1"]),
    (real(gt=0), [0.5, 3, math.inf], [0, True, np.int64(3), math.nan]),
    (boolean(), [True, False], [0, 1, np.bool_(True), None]),
    (optional(gt(0)), [None, 1], [0]),
    (one_of(0, 1), [0, 1, 1.0], [2, None]),
    (subset_of("a", "b"), [["a"], ("a", "b")], [[], "a", ["c"], 3]),
    (each(integer(ge=1)), [[1, 2], (3,)], [[], [0], "12", 5]),
    (keys_in("a", "b"), [{}, {"a": 1}], [{"c": 1}, ["a"]]),
])
def test_rules_accept_and_refuse(r, good, bad):
    for v in good:
        assert r.ok(v), (r, v)
    for v in bad:
        assert not r.ok(v), (r, v)


def test_rule_words_are_made_only_on_failure():
    calls = []

    def words():
        calls.append(1)
        return "fine"
    r = rule(lambda v: v == 1, words)
    check("x", 1, r)
    assert calls == []
    with pytest.raises(ParameterError, match="must be fine"):
        check("x", 2, r)
    assert calls == [1]


def _floor_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Import):
            found |= {a.name.split(".")[0] for a in n.names}
        elif isinstance(n, ast.ImportFrom):
            found.add("." if n.level else n.module.split(".")[0])
    return found


def test_validation_and_stats_are_at_the_package_floor():
    """Every module may import them: they import nothing from the package (numpy, scipy, the stdlib)."""
    assert _floor_imports(ROOT / "validation.py") <= {"__future__", "math", "typing", "numpy"}
    assert _floor_imports(ROOT / "stats.py") <= {"__future__", "math", "functools", "numpy", "scipy"}


# ------------------------------------------------------------------------------ the ast scan
_CMP = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _target(node) -> bool:
    """A parameter as the checks read it: a name, ``self.x``, ``p["x"]``, or ``int(...)``/``float(...)`` of one."""
    if isinstance(node, (ast.Name, ast.Attribute)):
        return True
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("int", "float")
            and len(node.args) == 1 and _target(node.args[0]))


def _simple_check(test) -> bool:
    """``x < c``, ``not x > c``, ``not lo < x < hi``, ``x not in (...)``, ``not isinstance(x, bool)``,
    ``x is not None and <one of these>``, or an ``or`` of them: what :func:`bandits.validation.check`
    says declaratively."""
    if isinstance(test, ast.BoolOp):
        if isinstance(test.op, ast.Or):
            return all(_simple_check(v) for v in test.values)
        a, *rest = test.values
        return (len(rest) == 1 and isinstance(a, ast.Compare) and isinstance(a.ops[0], ast.IsNot)
                and _simple_check(rest[0]))
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        t = test.operand
        if isinstance(t, ast.Call) and isinstance(t.func, ast.Name) and t.func.id == "isinstance":
            return isinstance(t.args[1], ast.Name) and t.args[1].id == "bool" and _target(t.args[0])
        if isinstance(t, ast.Compare) and all(isinstance(o, _CMP) for o in t.ops):
            return _target(t.left if len(t.ops) == 1 else t.comparators[0])
        return False
    return (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], _CMP + (ast.NotIn,))
            and _target(test.left))


#: Checks of that shape that are not argument checks (a data file or data set lacks what a recipe needs):
#: (module, the start of the message). They keep ``ValueError`` (``docs/package.md``, "Errors").
NOT_ARGUMENTS = {
    ("bandits/data/parsers.py", "{features_path}: node"),  # a node id outside the Twitch file's nodes
    ("bandits/data/recipes.py", "need at least"),  # too few negatively labelled entries in the data
    ("bandits/data/recipes.py", "user "),  # a user with too few non-rewarded items in the data
}


def _message_start(raise_node) -> str:
    arg = raise_node.exc.args[0] if raise_node.exc.args else None
    if isinstance(arg, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"
                       for v in arg.values)
    return arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else ""


def imperative_argument_checks(source: str, where: str = "") -> list[int]:
    """Lines of ``if <simple check>: raise ValueError/ParameterError(...)`` (nothing else in the branch),
    but for :data:`NOT_ARGUMENTS` of module ``where``."""
    hits = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.If) and not node.orelse and len(node.body) == 1
                and isinstance(node.body[0], ast.Raise) and isinstance(node.body[0].exc, ast.Call)
                and isinstance(node.body[0].exc.func, ast.Name)
                and node.body[0].exc.func.id in ("ValueError", "ParameterError") and _simple_check(node.test)
                and not any(where == w and _message_start(node.body[0]).startswith(m) for w, m in NOT_ARGUMENTS)):
            hits.append(node.lineno)
    return hits


def test_the_scan_sees_imperative_checks_and_spares_the_rest():
    src = '''
def f(lam, rule, p, V, agents, self=None):
    if lam <= 0:
        raise ValueError("lam")
    if rule not in ("a", "b"):
        raise ParameterError("rule")
    if not 0 < p["delta"] < 1:
        raise ValueError("delta")
    if V is not None and int(V) < 1:
        raise ValueError("V")
    if len(agents) != self.N:
        raise ValueError("synchronous: an invariant, not an argument check")
    if lam <= 0:
        raise TypeError("another type")
'''
    assert imperative_argument_checks(src) == [3, 5, 7, 9]


def test_no_imperative_argument_check_in_the_package():
    """Argument checks are written with :func:`bandits.validation.check` (``docs/package.md``, "Errors")."""
    rel = {p: p.relative_to(ROOT.parent).as_posix() for p in sorted(ROOT.rglob("*.py"))}
    bad = [f"{r}:{ln}" for p, r in rel.items() for ln in imperative_argument_checks(p.read_text(encoding="utf-8"), r)]
    kept = {(r, m) for p, r in rel.items() for w, m in NOT_ARGUMENTS if w == r and m in p.read_text(encoding="utf-8")
            .replace('f"', '"')}
    assert len(kept) == len(NOT_ARGUMENTS), f"NOT_ARGUMENTS entries no longer in the code: {NOT_ARGUMENTS - kept}"
    assert not bad, "write these argument checks with bandits.validation.check:\n" + "\n".join(bad)
