"""A run's recorded time, read from one row of a run table: the one rule of every reader of the committed
folders' times (``tools/nbtools.py times``, which writes figures/TIMES.md, and the floor table's last column,
:func:`bandits.floor.full_mode_sums`). Standard library only: ``tools/nbtools.py`` imports it without numpy.

A row's time is its ``cpu_time`` (the CPU seconds of the process that ran the run) where it has one, else its
``wall_time`` (rows recorded before the runner recorded CPU time; a loaded machine inflates them). Rows that
agree on :data:`RUN_IDENTITY` (the columns of it a table has) are one run, shown in two figures or at several
steps, and count once. The generated notes read the same rule column-wise
(:func:`bandits.experiments.claims.run_seconds`)."""
from __future__ import annotations

#: The columns that identify a run across the rows of a run table (or, in a per-step table, the rows one
#: run wrote): rows that agree on those the table has are one run.
RUN_IDENTITY = ("wall_time", "rep", "R_T", "T", "N", "S")


def seconds(value) -> float | None:
    """``value`` as seconds: a finite number ≥ 0, else ``None`` (empty, NaN, negative, not a number)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if x == x and 0 <= x < float("inf") else None


def row_seconds(row) -> tuple[float | None, bool]:
    """``(seconds, by_wall_clock)`` of a run table's row (a mapping of column to text or number): its
    ``cpu_time``, else its ``wall_time`` (``by_wall_clock`` True), else ``(None, False)``."""
    s = seconds(row.get("cpu_time"))
    if s is not None:
        return s, False
    s = seconds(row.get("wall_time"))
    return (s, True) if s is not None else (None, False)


def run_key(row) -> tuple:
    """The row's values of :data:`RUN_IDENTITY` (``None`` where the table lacks the column)."""
    return tuple(row.get(c) for c in RUN_IDENTITY)
