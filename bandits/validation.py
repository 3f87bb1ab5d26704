"""Declarative checks of arguments: one style for every parameter the package validates.

A check names the parameter, its value and the rules it must meet::

    check("elim_rule", elim_rule, one_of("paper", "ucb_lcb"))
    check("lam", lam, gt(0))
    check("T", T, integer(ge=1))
    check("r_max", r_max, optional(ge(1)))
    check_all(p0=(p0, gt(0)), lam=(lam, gt(0)))

The first rule the value breaks raises :class:`ParameterError` (a :class:`ValueError`), whose message
always names the parameter, what is allowed and what was given::

    parameter 'lam' must be > 0, got -1.0

Comparison rules (:func:`gt`, :func:`ge`, :func:`lt`, :func:`le`, :func:`between`) pass a value only
when the comparison holds, so NaN never passes. A rule that is not among these is
``rule(predicate, "what is allowed")``; a condition between parameters is a rule on one of them
under an ``if`` (``note=`` says why). What is a parameter error and what is not: ``docs/package.md``
("Errors").

This module is the package's floor: it imports numpy only, nothing from the package.
"""
from __future__ import annotations

import math
from typing import Any, Callable, NoReturn

import numpy as np

__all__ = ["ParameterError", "Rule", "rule", "check", "check_all", "fail", "one_of", "subset_of", "gt", "ge",
           "lt", "le", "between", "integer", "number", "real", "boolean", "each", "keys_in", "optional", "shown"]


class ParameterError(ValueError):
    """An argument (a parameter of a function, class, experiment or notebook) is invalid; the message
    names it, what is allowed and what was given."""


class Rule:
    """A predicate on one value and the words for what it allows (``"> 0"``, ``"one of ['a', 'b']"``;
    a string, or a function making it, called only when a value fails: checks on hot paths stay cheap);
    ``why(value)``, when given, says what is wrong with a value the rule refuses (e.g. which keys)."""

    __slots__ = ("ok", "_allowed", "why")

    def __init__(self, ok: Callable[[Any], bool], allowed: "str | Callable[[], str]",
                 why: Callable[[Any], str] | None = None):
        self.ok, self._allowed, self.why = ok, allowed, why

    @property
    def allowed(self) -> str:
        return self._allowed if isinstance(self._allowed, str) else self._allowed()

    def __repr__(self) -> str:
        return f"Rule({self.allowed!r})"


def rule(ok: Callable[[Any], bool], allowed: str) -> Rule:
    """A rule of one's own: ``ok(value)`` true when the value is allowed; ``allowed`` says what is."""
    return Rule(ok, allowed)


def shown(value) -> str:
    """How a given value is shown in a message: an array by its shape, anything else by ``repr`` (cut)."""
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


def fail(name: str, value, allowed: "str | Rule", note: str | None = None) -> NoReturn:
    """Raise the :class:`ParameterError` of ``name``: ``parameter 'name' must be <allowed>, got <value>``
    (``allowed``: the words, or a rule whose words they are). For the last branch of a dispatch on a
    parameter (``if kind == "a": ... elif kind == "b": ... else: fail("kind", kind, one_of("a", "b"))``),
    where a :func:`check` before it would cost a call on a hot path."""
    words = allowed.allowed if isinstance(allowed, Rule) else allowed
    raise ParameterError(f"parameter {name!r} must be {words}, got {shown(value)}" + (f" ({note})" if note else ""))


def check(name: str, value, *rules: Rule, note: str | None = None):
    """``value`` (of the parameter ``name``) checked against ``rules`` in turn; returns it unchanged.
    ``note`` is appended to the message (why the rule holds, e.g. which other parameter asks for it)."""
    for r in rules:
        if not r.ok(value):
            why = r.why(value) if r.why is not None else None
            fail(name, value, r.allowed, "; ".join(w for w in (why, note) if w) or None)
    return value


def check_all(**named) -> None:
    """``check_all(lam=(lam, gt(0)), T=(T, integer(ge=1)))``: :func:`check` of each, in order."""
    for name, (value, *rules) in named.items():
        check(name, value, *rules)


def _words(values) -> str:
    values = list(values)
    return repr(values[0]) if len(values) == 1 else f"one of {values}"


def one_of(*allowed) -> Rule:
    """The value is one of ``allowed`` (``value in allowed``)."""
    return Rule(allowed.__contains__, lambda: _words(allowed))


def subset_of(*allowed) -> Rule:
    """A non-empty list (any iterable but a string) of values drawn from ``allowed``."""
    def ok(v):
        if isinstance(v, str) or not hasattr(v, "__iter__"):
            return False
        v = list(v)
        return bool(v) and all(x in allowed for x in v)
    return Rule(ok, lambda: f"a non-empty list drawn from {list(allowed)}")


def _cmp(op: str, bound, test) -> Rule:
    return Rule(test, lambda: f"{op} {bound}")


def gt(bound) -> Rule:
    """``value > bound`` (NaN fails)."""
    return _cmp(">", bound, lambda v: v > bound)


def ge(bound) -> Rule:
    """``value >= bound`` (NaN fails)."""
    return _cmp(">=", bound, lambda v: v >= bound)


def lt(bound) -> Rule:
    """``value < bound`` (NaN fails)."""
    return _cmp("<", bound, lambda v: v < bound)


def le(bound) -> Rule:
    """``value <= bound`` (NaN fails)."""
    return _cmp("<=", bound, lambda v: v <= bound)


def between(lo, hi, closed: str = "neither") -> Rule:
    """``lo < value < hi``; ``closed`` ``"left"``, ``"right"`` or ``"both"`` includes those ends."""
    left, right = closed in ("left", "both"), closed in ("right", "both")
    if closed not in ("neither", "left", "right", "both"):
        fail("closed", closed, _words(("neither", "left", "right", "both")))
    if left:
        ok = (lambda v: lo <= v <= hi) if right else (lambda v: lo <= v < hi)
    else:
        ok = (lambda v: lo < v <= hi) if right else (lambda v: lo < v < hi)
    return Rule(ok, lambda: f"in {'[' if left else '('}{lo}, {hi}{']' if right else ')'}")


def _bounds(words: str, ge=None, gt=None, le=None, lt=None):
    parts = [f"{op} {b}" for op, b in ((">=", ge), (">", gt), ("<=", le), ("<", lt)) if b is not None]
    return words + (" " + " and ".join(parts) if parts else "")


def _in_bounds(v, ge=None, gt=None, le=None, lt=None) -> bool:
    return ((ge is None or v >= ge) and (gt is None or v > gt) and (le is None or v <= le)
            and (lt is None or v < lt))


def integer(*, ge=None, gt=None, le=None, lt=None) -> Rule:
    """An ``int`` or numpy integer (not a bool) within the given bounds."""
    def ok(v):
        return not isinstance(v, bool) and isinstance(v, (int, np.integer)) and _in_bounds(v, ge, gt, le, lt)
    return Rule(ok, lambda: _bounds("an integer", ge, gt, le, lt))


def number(*, ge=None, gt=None, le=None, lt=None) -> Rule:
    """A finite real number (``int``, ``float`` or a numpy scalar; not a bool) within the given bounds."""
    def ok(v):
        return (not isinstance(v, bool) and isinstance(v, (int, float, np.integer, np.floating))
                and math.isfinite(v) and _in_bounds(v, ge, gt, le, lt))
    return Rule(ok, lambda: _bounds("a finite number", ge, gt, le, lt))


def keys_in(*allowed) -> Rule:
    """A dict whose keys are all among ``allowed`` (a config dict such as ``{"name": ..., ...}``)."""
    def why(v):
        return f"unknown keys {sorted(set(v) - set(allowed))}" if isinstance(v, dict) else None
    return Rule(lambda v: isinstance(v, dict) and set(v) <= set(allowed), lambda: f"a dict with keys from {sorted(allowed)}",
                why)


def boolean() -> Rule:
    """``True`` or ``False`` (a ``bool``; not 0, 1 or a numpy bool)."""
    return Rule(lambda v: isinstance(v, bool), "True or False")


def each(r: Rule) -> Rule:
    """A non-empty list (any iterable but a string) whose every item ``r`` allows."""
    def ok(v):
        if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
            return False
        v = list(v)
        return bool(v) and all(r.ok(x) for x in v)
    return Rule(ok, lambda: f"a non-empty list of items each {r.allowed}")


def real(*, ge=None, gt=None, le=None, lt=None) -> Rule:
    """A Python ``int`` or ``float`` (not a bool; a numpy float64 is a float) within the given bounds
    (infinity allowed where the bounds allow it, NaN never)."""
    def ok(v):
        return not isinstance(v, bool) and isinstance(v, (int, float)) and _in_bounds(v, ge, gt, le, lt)
    return Rule(ok, lambda: _bounds("a number", ge, gt, le, lt))


def optional(r: Rule) -> Rule:
    """``None``, or a value ``r`` allows."""
    return Rule(lambda v: v is None or r.ok(v), lambda: f"None or {r.allowed}")
