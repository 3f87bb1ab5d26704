r"""Message passing with delays on a graph (layer 5; Coop-KernelUCB, Dubey & Pentland 2020, §3.1).

The LOCAL protocol of the paper: every round each agent first pulls, then sends
``m_{v,t} = ⟨t, v, x̃_{v,t}, y_{v,t}⟩`` to its neighbours; a message is forwarded one hop per
round, at most ``γ`` hops in total, then dropped. Agent ``v`` therefore receives ``m_{u,s}``
iff ``d(u,v) ≤ γ``, at the end of round ``s + d(u,v) − 1``, and can use it for the decision of
round ``s + d(u,v)``; its own observation is usable from round ``s + 1``. With the **usable
delay** ``τ(u,v) = max(1, d(u,v))`` (our reading of §1, messages "available ... after d(v,v′) − 1
trials", and §3.1, "receives m_{v′,t−d(v,v′)}"; the ``max(1, ·)`` for an agent's own data is a choice
of this package)::

    (u, s) usable by v at decision round t   ⇔   d(u,v) ≤ γ   and   s ≤ t − τ(u,v) − e·[u ≠ v]

``e = extra_delay ∈ {0, 1}`` (default 0) is the alternative reading of §3.1 ("at round t agent
v receives m_{u,t−d(u,v)}"): a received message is used one round later; an agent's own
observation is never delayed by it (our choice: the paper's Sec. 3.1 sentence is about received
messages). Rounds are 0-based here, as in :mod:`bandits.sim`.

Three pieces:

* :func:`usable_delays` / :func:`visible_set`: the rule above (the fast path of every
  algorithm);
* :class:`MessageSimulator`: a literal message-by-message simulator (inboxes, forwarding, hop
  counts, duplicate drop by ``(s, u)``) — slow, used in tests only to check the rule;
* :class:`CumulativeStatsBuffer`: per-source *cumulative* sufficient statistics in a ring buffer
  of the last ``τ_max + 1`` rounds (an implementation device of this package, not in the paper): agent ``v`` reads source ``u``'s statistics of
  rounds ``≤ t − τ(u,v)``. Memory ``(τ_max + 1) · V · size``.

Communication (not measured in the paper, which only calls the protocol communication-efficient; the
accounting is a choice of this package, checked by the theory notebook's check C10): every *delivery* — one message reaching one new receiver (flooding
with duplicate drop) — is charged. A message from ``u`` reaches every ``w`` with
``1 ≤ d(u,w) ≤ γ``, at the end of round ``s + d(u,w) − 1``; :func:`deliveries_per_round`
counts them per round (at steady state ``Σ_v (|N_γ(v)| − 1)``). Messages that would arrive
after the horizon are not charged. Forwarding *transmissions* (one per edge use) are more;
the simulator counts them too (``transmissions``), the ledger charges deliveries.
"""
from __future__ import annotations

import numpy as np
from .validation import between, check, ge, le, one_of, rule

__all__ = ["usable_delays", "visible_set", "deliveries_per_round", "MessageSimulator",
           "CumulativeStatsBuffer", "check_gamma"]


def check_gamma(gamma) -> int:
    """γ as an int >= 1 (the graph layer's one check: a bool is refused too)."""
    from .graphs import _check_gamma

    return _check_gamma(gamma)


def _check_extra(extra_delay) -> int:
    check("extra_delay", extra_delay, one_of(0, 1))
    return int(extra_delay)


def usable_delays(dist: np.ndarray, gamma: int, extra_delay: int = 0) -> np.ndarray:
    """Usable delays ``τ(u,v) = max(1, d(u,v)) + e·[u ≠ v]``, ``-1`` where ``v`` never sees ``u``.

    Args:
        dist: (V, V) int hop distances, ``-1`` for unreachable pairs.
        gamma: message time-to-live γ (hops).
        extra_delay: 0 (default) or 1 (see module docstring).
    Returns:
        (V, V) int64 array ``tau[u, v]`` (symmetric; diagonal 1).
    """
    gamma, e = check_gamma(gamma), _check_extra(extra_delay)
    dist = np.asarray(dist, dtype=np.int64)
    check("dist", dist, rule(lambda a: a.ndim == 2 and a.shape[0] == a.shape[1], "a square (V, V) array"))
    tau = np.maximum(dist, 1) + e * (dist > 0)
    tau[(dist < 0) | (dist > gamma)] = -1
    np.fill_diagonal(tau, 1)
    return tau


def visible_set(dist: np.ndarray, gamma: int, v: int, t: int, accept=None,
                extra_delay: int = 0) -> set[tuple[int, int]]:
    """``Visible_v(t) = {(u, s): u ∈ accept, d(u,v) ≤ γ, 0 ≤ s ≤ t − τ(u,v)}`` (the rule of §3.1 with
    ``τ`` as above; the acceptance set is Algorithm 1 l.19–23, the clique filter, or Algorithm 2's "all").

    ``accept`` (iterable of agent ids) defaults to every agent.
    """
    tau = usable_delays(dist, gamma, extra_delay)
    V = tau.shape[0]
    accept = range(V) if accept is None else accept
    out = set()
    for u in accept:
        if tau[u, v] < 0:
            continue
        for s in range(0, t - int(tau[u, v]) + 1):
            out.add((int(u), s))
    return out


def deliveries_per_round(dist: np.ndarray, gamma: int, horizon: int) -> np.ndarray:
    """Deliveries (message × receiver) arriving at the end of each round ``t = 0..T−1``.

    ``n_t = #{(u, w): 1 ≤ d(u,w) ≤ min(γ, t + 1)}`` (the message ``m_{u,s}`` reaches ``w`` at
    the end of round ``s + d(u,w) − 1`` and needs ``s ≥ 0``). Shape (horizon,), int64.
    """
    gamma = check_gamma(gamma)
    dist = np.asarray(dist, dtype=np.int64)
    counts = np.bincount(dist[(dist >= 1) & (dist <= gamma)].ravel(), minlength=gamma + 1)
    cum = np.cumsum(counts)
    t = np.arange(int(horizon))
    return cum[np.minimum(gamma, t + 1)].astype(np.int64)


class MessageSimulator:
    """Literal LOCAL message passing (tests only; §3.1 taken literally).

    Each round ``t``: every agent sends its new message ``⟨s=t, u, hops=1⟩`` to its neighbours;
    every message an agent *first* receives (duplicates by ``(s, u)`` dropped, as are its own)
    is stored with its arrival round and, if ``hops < γ``, forwarded to all its neighbours in the
    next round with ``hops + 1``. Everything sent in round ``t`` arrives at the end of round ``t``.
    ``usable(v, t)`` is what ``v`` may use for its decision at round ``t``: its own messages of
    rounds ``< t`` and received ones that arrived by the end of round ``t − 1 − e``.

    Args:
        adjacency: (V, V) bool/0-1 symmetric adjacency matrix of G.
        gamma: time-to-live γ.
        extra_delay: 0 or 1.
    """

    def __init__(self, adjacency: np.ndarray, gamma: int, extra_delay: int = 0):
        A = np.asarray(adjacency).astype(bool)
        self.V = A.shape[0]
        self.gamma, self.e = check_gamma(gamma), _check_extra(extra_delay)
        self.neighbours = [np.flatnonzero(A[v] & (np.arange(self.V) != v)).tolist() for v in range(self.V)]
        self.t = 0
        self.arrived: list[dict[tuple[int, int], int]] = [dict() for _ in range(self.V)]  # (s,u) -> round
        self._outbox: list[list[tuple[int, int, int]]] = [[] for _ in range(self.V)]  # (s, u, hops)
        self.deliveries: list[int] = []
        self.transmissions: list[int] = []

    def step(self) -> None:
        """Play one round: send own messages and forward the previous round's receipts."""
        t = self.t
        outgoing = [box + [(t, v, 1)] for v, box in enumerate(self._outbox)]
        self._outbox = [[] for _ in range(self.V)]
        n_deliv = n_trans = 0
        for v in range(self.V):
            for (s, u, hops) in outgoing[v]:
                for w in self.neighbours[v]:
                    n_trans += 1
                    if w == u or (s, u) in self.arrived[w]:
                        continue  # duplicate (or own message coming back): dropped
                    self.arrived[w][(s, u)] = t
                    n_deliv += 1
                    if hops < self.gamma:
                        self._outbox[w].append((s, u, hops + 1))
        self.deliveries.append(n_deliv)
        self.transmissions.append(n_trans)
        self.t += 1

    def usable(self, v: int, t: int) -> set[tuple[int, int]]:
        """Observations ``(u, s)`` agent ``v`` may use at decision round ``t`` (needs ``t ≤ self.t``)."""
        check("t", t, le(self.t))
        own = {(v, s) for s in range(t)}
        got = {(u, s) for (s, u), r in self.arrived[v].items() if r <= t - 1 - self.e}
        return own | got


class CumulativeStatsBuffer:
    """Per-source cumulative statistics of the last ``depth`` rounds in a ring buffer (an
    implementation device of this package, not in the paper).

    Every round each of the V sources adds its increment (e.g. ``x xᵀ`` and ``y x``); the buffer
    keeps ``S_u(s) = Σ_{s' ≤ s} increment_u(s')`` for the last ``depth`` rounds ``s``. Reading
    round ``s < 0`` gives zeros; reading a round older than the buffer raises.

    Args:
        shapes: name -> per-source shape, e.g. ``{"M": (d, d), "b": (d,)}``.
        n_sources: V.
        depth: rounds kept, ``τ_max + 1`` (``γ + 1``, or ``γ + 2`` with ``extra_delay = 1``).
    """

    def __init__(self, shapes: dict, n_sources: int, depth: int):
        check("depth", depth, ge(1))
        self.depth, self.V = int(depth), int(n_sources)
        self.buf = {k: np.zeros((self.depth, self.V) + tuple(s)) for k, s in shapes.items()}
        self.last = -1  # last round pushed

    def push(self, t: int, **increments) -> None:
        """Add round ``t``'s increments (arrays of shape (V, *shape)); rounds must come in order."""
        if t != self.last + 1:
            raise ValueError(f"rounds must be pushed in order: expected {self.last + 1}, got {t}")
        cur, prev = t % self.depth, (t - 1) % self.depth
        for k, arr in self.buf.items():
            if t == 0:
                arr[cur] = increments[k]
            else:
                np.add(arr[prev], increments[k], out=arr[cur])
        self.last = t

    def slot(self, s: int) -> int | None:
        """Ring index of round ``s`` (``None`` for ``s < 0``: nothing yet)."""
        if s < 0:
            return None
        check("s", s, between(self.last - self.depth, self.last, "right"), note="the rounds in the buffer")
        return s % self.depth

    def read(self, name: str, s: int) -> np.ndarray:
        """``S_u(s)`` for every source: shape (V, *shape) (zeros for ``s < 0``)."""
        i = self.slot(s)
        arr = self.buf[name]
        return np.zeros(arr.shape[1:]) if i is None else arr[i]

    def read_delayed(self, name: str, t: int, delays: np.ndarray) -> np.ndarray:
        """Source ``u``'s statistics of rounds ``≤ t − delays[u]`` for every ``u`` (V, *shape)."""
        delays = np.asarray(delays)
        out = np.zeros(self.buf[name].shape[1:])
        for dl in np.unique(delays[delays > 0]):
            i = self.slot(t - int(dl))
            if i is not None:
                m = delays == dl
                out[m] = self.buf[name][i][m]
        return out
