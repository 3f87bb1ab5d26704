"""Communication accounting (layer 5).

Every algorithm reports each message it sends to a :class:`CommLedger`: the time step, the
sender and receiver(s), the direction (``"up"``: agent → server or agent → agent, ``"down"``:
server → agent), a ``kind`` label and the payload size in **scalars** (real numbers). Figures
then choose the unit the paper used:

* ``total_up`` / ``total_down``: scalars summed over all messages (a broadcast to N agents
  counts N times in ``total_down``);
* DUETS' definition (its Eq. 2): ``C = C_up + C_down`` with ``C_up`` the uplink averaged over
  agents and ``C_down`` the scalars each agent receives, i.e. ``(total_up + total_down) / N``
  when every broadcast reaches all N agents (:meth:`CommLedger.curve` with ``"paper"``);
* the DUETS authors' code: total uplink summed over agents (``"code_uplink"``).

Nothing is counted twice: algorithms never write totals by hand, they log messages.

Aggregated deliveries (:meth:`CommLedger.deliver`). Peer-to-peer message passing on a graph
(Coop-KernelUCB's LOCAL protocol) delivers tens of millions of messages at V = 200, so one
Python object per message is out of reach. ``deliver(t, n_messages, scalars_each, kind)`` adds
``n_messages`` deliveries of ``scalars_each`` scalars at step ``t`` to per-step numpy arrays;
``per_step``, ``total_up``/``total_down``, ``by_kind`` and ``rounds`` include them exactly as if
each delivery had been logged with :meth:`CommLedger.send`. A peer-to-peer delivery (agent →
agent) counts as ``"up"`` (the module's convention: only the server sends ``"down"``); every
*delivery* (one message arriving at one receiver) is counted once, so a message flooded to
``k`` receivers counts ``k`` times. :meth:`CommLedger.deliveries` returns the per-step delivery
counts (messages, not scalars).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from .validation import between, check, fail, ge, one_of

__all__ = ["Message", "CommLedger", "SERVER", "payload_size", "comm_curve", "CONVENTIONS"]

CONVENTIONS = ("paper", "code_uplink", "total")


def comm_curve(up: np.ndarray, down: np.ndarray, n_agents: int, convention: str = "paper") -> np.ndarray:
    """Cumulative communication from per-step uplink/downlink totals, in a named unit:
    ``"paper"`` (DUETS Eq. 2: (uplink + downlink) / N per agent), ``"code_uplink"`` (total uplink,
    the DUETS code) or ``"total"`` (every scalar sent)."""
    up, down = np.asarray(up, dtype=float), np.asarray(down, dtype=float)
    if convention == "paper":
        return np.cumsum(up + down) / n_agents
    if convention == "code_uplink":
        return np.cumsum(up)
    if convention == "total":
        return np.cumsum(up + down)
    fail("convention", convention, one_of(*CONVENTIONS))

SERVER = -1
# rules checked on every message, built once
_DIRECTION, _NON_NEGATIVE = one_of("up", "down"), ge(0)


def payload_size(*arrays) -> int:
    """Number of scalars in the given arrays / numbers (the unit of communication)."""
    return int(sum(np.size(a) for a in arrays))


@dataclass(frozen=True)
class Message:
    t: int
    sender: int
    receiver: int  # agent id, SERVER, or -2 for "all agents" (n_receivers says how many)
    direction: str  # "up" or "down"
    kind: str
    scalars: int
    n_receivers: int = 1


class CommLedger:
    """Append-only log of messages with per-step aggregates."""

    ALL = -2

    def __init__(self, n_agents: int, horizon: int):
        self.n_agents, self.horizon = int(n_agents), int(horizon)
        self._in_horizon = between(0, self.horizon, "left")
        self.messages: list[Message] = []
        # aggregated deliveries: (direction, kind) -> per-step scalars / per-step message counts
        self._agg_scalars: dict[tuple[str, str], np.ndarray] = {}
        self._agg_count: dict[tuple[str, str], np.ndarray] = {}

    # -- recording -------------------------------------------------------------------------
    def send(self, t: int, sender: int, receiver: int, kind: str, scalars: int) -> None:
        """One point-to-point message. Direction is "down" when the server sends."""
        direction = "down" if sender == SERVER else "up"
        self._check(t, scalars)
        self.messages.append(Message(int(t), int(sender), int(receiver), direction, kind, int(scalars)))

    def broadcast(self, t: int, kind: str, scalars: int, n_receivers: int | None = None) -> None:
        """The server sends the same ``scalars`` to ``n_receivers`` agents (default: all)."""
        n = self.n_agents if n_receivers is None else int(n_receivers)
        self._check(t, scalars)
        self.messages.append(Message(int(t), SERVER, self.ALL, "down", kind, int(scalars), n))

    def deliver(self, t: int, n_messages: int, scalars_each: int, kind: str, direction: str = "up") -> None:
        """``n_messages`` deliveries of ``scalars_each`` scalars each at step ``t`` (aggregated).

        Equivalent, for every aggregate of the ledger, to ``n_messages`` calls of :meth:`send`
        (peer-to-peer deliveries are ``"up"``, see the module docstring), but O(1) in memory.
        """
        check("direction", direction, _DIRECTION)
        check("n_messages", n_messages, _NON_NEGATIVE)
        self._check(t, scalars_each)
        key = (direction, str(kind))
        if key not in self._agg_scalars:
            self._agg_scalars[key] = np.zeros(self.horizon)
            self._agg_count[key] = np.zeros(self.horizon, dtype=np.int64)
        self._agg_scalars[key][int(t)] += float(n_messages) * float(scalars_each)
        self._agg_count[key][int(t)] += int(n_messages)

    def deliveries(self, kind: str | None = None) -> np.ndarray:
        """Per-step number of aggregated deliveries (messages, not scalars), shape (horizon,)."""
        out = np.zeros(self.horizon, dtype=np.int64)
        for (_, k), c in self._agg_count.items():
            if kind is None or k == kind:
                out += c
        return out

    def _check(self, t, scalars):
        check("t", t, self._in_horizon)
        check("scalars", scalars, _NON_NEGATIVE)

    # -- aggregates --------------------------------------------------------------------------
    def per_step(self, direction: str, kind: str | None = None) -> np.ndarray:
        """Scalars per time step (summed over senders and receivers), shape (horizon,)."""
        out = np.zeros(self.horizon)
        for m in self.messages:
            if m.direction == direction and (kind is None or m.kind == kind):
                out[m.t] += m.scalars * m.n_receivers
        for (dirn, k), arr in self._agg_scalars.items():
            if dirn == direction and (kind is None or k == kind):
                out += arr
        return out

    @property
    def total_up(self) -> float:
        return float(sum(m.scalars * m.n_receivers for m in self.messages if m.direction == "up")
                     + sum(float(a.sum()) for (d, _), a in self._agg_scalars.items() if d == "up"))

    @property
    def total_down(self) -> float:
        return float(sum(m.scalars * m.n_receivers for m in self.messages if m.direction == "down")
                     + sum(float(a.sum()) for (d, _), a in self._agg_scalars.items() if d == "down"))

    def rounds(self) -> int:
        """Number of distinct time steps at which anything was communicated."""
        steps = {m.t for m in self.messages}
        for c in self._agg_count.values():
            steps.update(np.flatnonzero(c).tolist())
        return len(steps)

    def curve(self, convention: str = "paper") -> np.ndarray:
        """Cumulative communication vs time under a named convention (see module docstring)."""
        return comm_curve(self.per_step("up"), self.per_step("down"), self.n_agents, convention)

    def by_kind(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for m in self.messages:
            out[m.kind] = out.get(m.kind, 0.0) + m.scalars * m.n_receivers
        for (_, k), arr in self._agg_scalars.items():
            out[k] = out.get(k, 0.0) + float(arr.sum())
        return out
