"""The claims of every experiment: :class:`Claim` (one checked claim with its verdict, interval, kind, quote,
source and cause), the table the notebooks print (:func:`claims_table`, the text nbval compares) and
``claims.json`` (:func:`write_claims`). The statistics that decide a verdict are :mod:`bandits.claims`; the
claims of one paper's figures are in that experiment's ``<name>_claims.py``.

This module is left out of the run cache's code fingerprint (:func:`bandits.runner.in_runs`: its name is
``claims.py``), as are the experiments' ``<name>_claims.py`` / ``<pkg>/claims.py`` modules that build the
claims: a claim's text, threshold or statistic can change without recomputing a cached run. No module the
fingerprint covers may import it (``tests/test_package_structure.py``). The statistics that decide a
verdict are in :mod:`bandits.claims` (also left out).
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from ..validation import check, one_of, optional, rule

__all__ = ["md_table", "repo_path", "duration", "folder_json", "folder_csv", "run_seconds", "step_tallies", "decided_at", "KINDS", "QUOTES", "CAUSES", "CAUSE_WORDS", "OPEN_MEANS", "cause_text", "Claim", "verdict_counts",
           "summary_line", "kind_summary", "claims_table", "write_claims"]

#: What a claim is: a statement of the paper, a check of this package's implementation, or a hypothesis of
#: this package (the arena's comparisons across papers: no paper states them).
KINDS = ("paper", "implementation", "hypothesis")
#: Whether a claim's text is the paper's own words.
QUOTES = ("verbatim", "paraphrase")
#: Why a claim is not PASS: the key, and the words the tables print for a FAIL.
CAUSES = {
    "paper": "the paper's statement does not hold in this reproduction",
    "setting": "depends on a setting the paper does not give",
    "approximation": "an approximation of this package",
    "hypothesis": "the package's own hypothesis (not a paper's claim) does not hold in these runs",
    "open": "open: no cause found yet",
}
#: The words for an INCONCLUSIVE verdict, which says nothing either way about the statement.
_CAUSES_UNDECIDED = {
    "paper": "undecided; where the runs lean, the doubt is about the paper's statement itself",
    "setting": "undecided, in a setting the paper does not give",
    "approximation": "undecided, under an approximation of this package",
    "hypothesis": "undecided: the runs do not yet tell whether the package's own hypothesis holds",
    "open": "open: the runs do not decide it yet",
}
#: ``{verdict: {cause: words}}``: what a table prints after ``cause:`` (:func:`cause_text`).
CAUSE_WORDS = {"FAIL": dict(CAUSES), "INCONCLUSIVE": dict(_CAUSES_UNDECIDED)}
#: What the cause "open" means, for a page's legend.
OPEN_MEANS = ("open: not explained by the paper, a setting it leaves out, or an approximation of this package; for "
              "an INCONCLUSIVE verdict, the runs used do not decide the claim, and the note says what was tried and "
              "what would settle it (about how many runs, if the effect is as observed)")


def cause_text(cause: str, verdict: str) -> str:
    """The words for ``cause`` on a claim whose verdict is ``verdict`` (FAIL or INCONCLUSIVE): an
    INCONCLUSIVE claim never reads as if its statement had failed."""
    check("cause", cause, one_of(*CAUSES))
    return CAUSE_WORDS.get(verdict, CAUSES)[cause]



@dataclass
class Claim:
    """One checked claim: the paper's words, the check, its number, the verdict and its interval.

    The verdict is three-valued (``"PASS"``, ``"FAIL"``, ``"INCONCLUSIVE"``; see
    :mod:`bandits.claims`). Old code passes ``passed=bool`` (→ PASS/FAIL, no interval); new code
    passes ``verdict=`` or builds the claim from a :class:`~bandits.claims.Comparison` with
    :meth:`from_result`. ``passed`` is always ``verdict == "PASS"``.

    Attributes:
        effect: the tested quantity (mean paired difference, ratio, slope, ...), or None.
        interval: ``(lo, hi)`` at ``level``, or None (printed ``-``).
        level: two-sided confidence level of the interval, or None.
        method: how the interval was made (e.g. ``"percentile"``, ``"ols"``).
        detail: one line per tested part (``Comparison.text()``), for the notebook and claims.json.
        kind: ``"paper"`` (a statement of the paper, tested), ``"implementation"`` (a check of this
            package: an identity, bookkeeping, a definition, or a bound 10× or more away from what is
            observed) or ``"hypothesis"`` (the package's own statement, e.g. the arena's comparisons
            across papers). The kinds are counted apart (:func:`kind_summary`, the README, CLAIMS.md).
        quote: ``"verbatim"`` when ``claim`` is the paper's words (a test looks each up in the paper's
            text, whitespace normalised), else ``"paraphrase"`` (the package's restatement).
        source: where in the paper the claim is made ("§5.2", "Theorem 1", "Fig. 3(c)"), or "".
        cause: for a verdict other than PASS, why: one of :data:`CAUSES` (``None`` for a PASS; a
            non-PASS claim given no cause gets ``"open"``). Given before the runs for the case it
            applies, it is dropped when the claim PASSes.
        cause_note: the named setting or approximation, or the reason in words. An INCONCLUSIVE
            claim built by :meth:`from_result` also gets, in ``decide``, what its interval shows and about
            how many runs would decide it (:func:`bandits.claims.decide_text`); a non-PASS claim with no
            note of its own takes that as its note (:meth:`finalise`).
        decide: see ``cause_note`` (``""`` unless the verdict is INCONCLUSIVE).
    """

    id: str
    claim: str  # the paper's words (quote="verbatim") or the package's paraphrase (quote="paraphrase")
    check: str  # what the code tests, in words, with its threshold
    value: str  # the measured number(s), rounded
    passed: bool | None = None
    note: str = ""
    verdict: str | None = None
    effect: float | None = None
    interval: tuple | None = None
    level: float | None = None
    method: str = ""
    detail: list = field(default_factory=list)
    kind: str = "paper"
    quote: str = "paraphrase"
    source: str = ""
    cause: str | None = None
    cause_note: str = ""
    decide: str = ""

    def __post_init__(self):
        from ..claims import VERDICTS

        check("kind", self.kind, one_of(*KINDS))
        check("quote", self.quote, one_of(*QUOTES))
        check("cause", self.cause, optional(one_of(*CAUSES)))

        if self.verdict is None:
            check("passed", self.passed, rule(lambda p: p is not None, f"given, or a verdict in {list(VERDICTS)}"),
                  note=f"claim {self.id!r}")
            self.verdict = "PASS" if bool(self.passed) else "FAIL"
        check("verdict", self.verdict, one_of(*VERDICTS))
        check("passed", self.passed, optional(rule(lambda p: bool(p) == (self.verdict == "PASS"),
                                                   f"{self.verdict == 'PASS'} (verdict={self.verdict!r})")),
              note=f"claim {self.id!r}")
        self.passed = self.verdict == "PASS"
        if self.passed:
            self.cause, self.cause_note = None, ""
        elif self.cause is None:
            self.cause = "open"
        self.value = str(self.value)
        if self.interval is not None:
            lo, hi = (float(v) for v in self.interval)
            self.interval = None if (math.isnan(lo) and math.isnan(hi)) else (lo, hi)
        if self.effect is not None:
            self.effect = float(self.effect)

    @classmethod
    def from_result(cls, id: str, claim: str, check: str, result, value: str | None = None, note: str = "",
                    **labels):
        """A claim whose verdict, effect and interval come from a :class:`bandits.claims.Comparison`
        (its parts, if combined, each give a line of ``detail``); ``value`` defaults to the
        deciding comparison's text; ``labels``: ``kind``, ``quote``, ``source``, ``cause``,
        ``cause_note``."""
        from ..claims import decide_text

        parts = result.parts or (result,)
        labels.setdefault("decide", decide_text(result))
        return cls(id, claim, check, value if value is not None else result.text(), note=note,
                   verdict=result.verdict, effect=result.effect, interval=(result.lo, result.hi),
                   level=result.level, method=result.method, detail=[p.text() for p in parts], **labels)

    def finalise(self) -> "Claim":
        """Make the labels agree with the verdict (which claims code may set after construction): a PASS
        has no cause; a non-PASS has one (``"open"`` if none was given); ``decide`` only on an
        INCONCLUSIVE; a non-PASS claim without a note of its own takes ``decide`` as its note."""
        self.passed = self.verdict == "PASS"
        if self.passed:
            self.cause, self.cause_note, self.decide = None, "", ""
            return self
        if self.cause is None:
            self.cause = "open"
        if self.verdict != "INCONCLUSIVE":
            self.decide = ""
        if not self.cause_note and self.decide:
            self.cause_note, self.decide = self.decide, ""
        return self

    def cause_line(self) -> str:
        """``cause words (note)`` for a non-PASS claim, ``""`` for a PASS."""
        if self.verdict == "PASS" or self.cause is None:
            return ""
        note = f" ({self.cause_note})" if self.cause_note else ""
        return cause_text(self.cause, self.verdict) + note

    def interval_text(self) -> str:
        """``effect [lo, hi] (95%, method)`` or ``-``."""
        from ..claims import fnum, format_interval, level_text, method_label

        if self.interval is None:
            return "-" if self.effect is None else f"{fnum(self.effect)} (no interval)"
        method = method_label(self.method) if self.method else ""
        how = f"{level_text(self.level)} {method}".strip() if self.level else method
        return f"{fnum(self.effect)} {format_interval(*self.interval)} ({how})"


def verdict_counts(verdicts) -> dict:
    """``{"PASS": n, "FAIL": n, "INCONCLUSIVE": n}`` of an iterable of verdict strings."""
    out = {"PASS": 0, "FAIL": 0, "INCONCLUSIVE": 0}
    for v in verdicts:
        out[v] = out.get(v, 0) + 1
    return out


def summary_line(verdicts) -> str:
    """``"n PASS, n FAIL, n INCONCLUSIVE"``."""
    c = verdict_counts(verdicts)
    return f"{c['PASS']} PASS, {c['FAIL']} FAIL, {c['INCONCLUSIVE']} INCONCLUSIVE"


def kind_summary(claims) -> str:
    """``"paper claims: n PASS, n FAIL, n INCONCLUSIVE; implementation checks: k of m PASS"``: the
    kinds counted apart (a check of the implementation is not evidence about the paper), and, where
    there are any, ``"; hypotheses (the package's own, not a paper's): n PASS, ..."``."""
    claims = list(claims)
    paper = [c.verdict for c in claims if c.kind == "paper"]
    impl = [c.verdict for c in claims if c.kind == "implementation"]
    hyp = [c.verdict for c in claims if c.kind == "hypothesis"]
    out = (f"paper claims: {summary_line(paper)}; implementation checks: "
           f"{sum(v == 'PASS' for v in impl)} of {len(impl)} PASS")
    if hyp:
        out += f"; hypotheses (the package's own, not a paper's): {summary_line(hyp)}"
    return out


def claims_table(claims: list[Claim], width: int = 60) -> str:
    """Plain-text table (the text nbval compares), per claim::

        [VERDICT] id
            claim: "quoted claim"
            check: what is tested, with its threshold
            number: the measured number(s)
            interval: effect [lo, hi] (level method)   (or -)

    and a last line :func:`kind_summary`. An implementation check's first line ends in
    ``(implementation check)``; a paraphrase is marked ``(paraphrase)`` after the claim and the
    paper's section follows it; a hypothesis's first line ends in ``(hypothesis: not a paper's claim)``;
    a verdict other than PASS has a ``cause:`` line (words that fit the verdict, :func:`cause_text`) and an
    INCONCLUSIVE one whose note is about something else a ``to decide:`` line.
    """
    lines = []
    for c in claims:
        c.finalise()
        tag = {"implementation": " (implementation check)",
               "hypothesis": " (hypothesis: not a paper's claim)"}.get(c.kind, "")
        lines.append(f"[{c.verdict}] {c.id}{tag}")
        where = f" [{c.source}]" if c.source else ""
        para = " (paraphrase)" if c.quote == "paraphrase" else ""
        lines.append(f"    claim: \"{c.claim}\"{para}{where}")
        lines.append(f"    check: {c.check}")
        lines.append(f"    number: {c.value}")
        lines.append(f"    interval: {c.interval_text()}")
        if c.cause is not None:
            lines.append(f"    cause: {c.cause_line()}")
        if c.decide:
            lines.append(f"    to decide: {c.decide}")
    lines.append(kind_summary(claims))
    return "\n".join(lines)


def _json_safe(x):
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, (list, tuple)):
        return [_json_safe(v) for v in x]
    if isinstance(x, dict):
        return {k: _json_safe(v) for k, v in x.items()}
    return x


def write_claims(claims: list[Claim], out: str | os.PathLike, extra: dict | None = None) -> Path:
    """``<out>/claims.json``: per claim id, claim, check, value, passed, note, verdict, effect,
    interval ``[lo, hi]`` (or null), level, method, detail; plus ``summary`` counts and ``extra``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for c in claims:
        c.finalise()
    payload = {"claims": [_json_safe(asdict(c)) for c in claims],
               "summary": verdict_counts(c.verdict for c in claims),
               "summary_by_kind": {k: verdict_counts(c.verdict for c in claims if c.kind == k) for k in KINDS}}
    if extra:
        payload.update(extra)
    p = out / "claims.json"
    p.write_text(json.dumps(payload, indent=2))
    return p


# ----------------------------------------------------------------------------- generated notes
def md_table(header, rows) -> list:
    """A markdown table as a list of lines (the generated ``NOTE.md`` files)."""
    out = ["| " + " | ".join(str(h) for h in header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def repo_path(folder) -> str:
    """``folder`` relative to the repository when inside it (a committed note names no machine's paths)."""
    root = Path(__file__).resolve().parents[2]
    try:
        return Path(folder).resolve().relative_to(root).as_posix()
    except ValueError:
        return Path(folder).as_posix()


def duration(s: float) -> str:
    """Seconds in words for a generated note: ``2 h 07 min``, ``5 min 03 s``, ``42 s``."""
    s = float(s)
    if s >= 3600:
        return f"{int(s // 3600)} h {int(round(s % 3600 / 60)):02d} min"
    if s >= 60:
        return f"{int(s // 60)} min {int(round(s % 60)):02d} s"
    return f"{s:.0f} s"


def step_tallies(seq: dict):
    """A sequential step's totals for a generated note, from its ``sequential.json`` (``seq``): ``(runs added,
    runs failed, the refused looks)`` over its stages (a refused look adds no run)."""
    stages = seq.get("stages", [])
    return (sum(int(st.get("runs", 0) or 0) for st in stages), sum(int(st.get("failed", 0) or 0) for st in stages),
            [st for st in stages if st.get("refused")])


def decided_at(seq: dict) -> str:
    """The claims' verdicts by the run count they were decided at, in words: ``n = 10: 20 PASS, 5 FAIL; n = 20: 1 PASS``."""
    decided: dict = {}
    for r in seq.get("claims", {}).values():
        decided.setdefault(int(r.get("decided_at_n", 0)), []).append(r.get("verdict"))
    return "; ".join(f"n = {n}: " + ", ".join(f"{v.count(x)} {x}" for x in ("PASS", "FAIL", "WITHIN", "INCONCLUSIVE")
                                              if v.count(x))
                     for n, v in sorted(decided.items()))


def run_seconds(runs):
    """A run table's recorded seconds per row and their words for a generated note: ``(series, words)``.

    :mod:`bandits.runtimes`' rule, column-wise: a row's time is its ``cpu_time`` (the CPU seconds of the process
    that ran it) where it has one, else its ``wall_time`` (rows recorded before the runner recorded CPU time; a
    loaded machine inflates them)."""
    import pandas as pd

    from ..runtimes import seconds

    def col(name):  # the column's times by the rule's test (NaN where a row has none)
        return pd.to_numeric(runs[name].map(seconds), errors="coerce") if name in runs else pd.Series(float("nan"), index=runs.index)

    wall = col("wall_time")
    if "cpu_time" not in runs or runs["cpu_time"].isna().all():
        return wall, "`wall_time`, the wall clock"
    cpu = col("cpu_time")
    n_wall = int((cpu.isna() & wall.notna()).sum())
    words = "`cpu_time`, the CPU seconds of each run" + (f"; {n_wall} rows recorded before it: `wall_time`" if n_wall else "")
    return cpu.fillna(wall), words


def folder_json(folder, name: str):
    """``folder/name`` parsed as JSON, or None when the folder lacks it (a generated note skips what is absent)."""
    f = Path(folder) / name
    return json.loads(f.read_text()) if f.exists() else None


def folder_csv(folder, name: str):
    """``folder/name`` as a DataFrame, or None when the folder lacks it or it holds no row."""
    import pandas as pd

    f = Path(folder) / name
    if not f.exists():
        return None
    try:
        df = pd.read_csv(f)
    except pd.errors.EmptyDataError:
        return None
    return df if len(df) else None
