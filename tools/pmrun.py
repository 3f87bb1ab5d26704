"""Run papermill for ``make quick`` / ``make figures``: progress in the terminal, no noise, no orphans.

Usage::

    python tools/pmrun.py [--label NAME] [--quiet] -- NOTEBOOK OUTPUT [papermill options ...]

What it adds to ``papermill NOTEBOOK OUTPUT ...``:

* **Progress.** The sweeps of :func:`bandits.runner.sweep` append one JSON line per event to the
  file named by ``$BANDITS_PROGRESS`` (set here, inherited by the kernel; only the kernel writes it,
  whatever the backend: loky and dask workers send their results back to it). On a terminal, one
  status line is redrawn twice a second: the notebook, the cell (papermill's counter), the current
  sweep's runs done / total with cached and computed apart, elapsed time and the sweep's ETA.
  Warnings (an unreadable cache file recomputed, a diverged run) are printed as they happen, on a
  terminal or not; when stderr is not a terminal (CI, a log file) nothing else is printed but one
  summary line per notebook. ``--quiet`` prints only warnings and errors.
* **No noise.** papermill's "Unable to parse line ..." (also fixed at the source: no ``=`` in the
  comments of a parameters cell), the kernel's "KeyboardInterrupt caught in kernel" (jupyter_client
  interrupts the kernel before it shuts it down) and the kernel's warning about unencrypted TCP
  (the kernel is started with CurveZMQ keys when pyzmq supports it, so the warning has no cause)
  are dropped; every other line of papermill's output passes through.
* **No orphans.** This process is a child subreaper (Linux ``PR_SET_CHILD_SUBREAPER``): the kernel,
  loky's workers and resource trackers, dask's local cluster stay its descendants even when
  papermill dies (``kill -9``). When papermill exits, for whatever reason, every descendant still
  alive gets SIGTERM, then SIGKILL after 3 s. SIGINT (Ctrl-C) and SIGTERM sent to this process
  reach papermill (with SIGINT's default action restored: a shell without job control starts
  background commands with it ignored) and end the same way; a second signal, or papermill still
  running 10 s after the first, becomes SIGTERM, then SIGKILL. papermill itself gets ``PR_SET_PDEATHSIG`` (SIGTERM) so that it
  does not outlive this process. And if this process is itself killed with SIGKILL (no cleanup can
  run then), a guardian forked at the start, which records the process tree every second, ends
  every process it last saw below it and every process below those (started since its last look),
  pid and start time checked, so a reused pid is never hit.

The exit status is papermill's (128 + signal number when a signal ended it).
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

NOISE = (
    re.compile(r"Unable to parse line \d+ "),
    re.compile(r"KeyboardInterrupt caught in kernel"),
    re.compile(r"Kernel is running over TCP without encryption"),
)
CELL = re.compile(r"Executing:\s+\d+%\|[^|]*\|\s*(\d+)/(\d+)(\s*\[[^\]]*\])?")
# papermill's own lines: make prints the notebook and its output folder already
INFO = re.compile(r"^(Input Notebook|Output Notebook|Working directory|Executing notebook with kernel):")
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36

# papermill, with the kernel started with CurveZMQ keys when the kernelspec and pyzmq support them.
BOOT = r"""
import sys
try:
    import zmq
    from jupyter_client.manager import KernelManager
    if zmq.has("curve"):
        KernelManager.transport_encryption.default_value = "auto"
except Exception:
    pass
from papermill.cli import papermill
sys.argv[0] = "papermill"
papermill()
"""


def _prctl(option: int, arg: int) -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, arg, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _pdeathsig() -> None:  # runs in the child, before papermill starts
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    # a shell without job control starts background commands with SIGINT ignored; papermill must
    # answer the SIGINT this process forwards to it
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def descendants(root: int) -> list[int]:
    """Every live process below ``root`` (from /proc: parent links), deepest last."""
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:  # no /proc (macOS): nothing to walk; papermill's own shutdown is all there is
        return []
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read().decode(errors="replace")
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [root]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            state = fh.read().decode(errors="replace").rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except (OSError, IndexError):
        return False


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_descendants(grace: float = 3.0, spare=()) -> list[int]:
    """SIGTERM every descendant of this process (but ``spare``), SIGKILL those alive after ``grace``
    seconds; returns the pids found."""
    spare = set(spare)
    mine = lambda: [p for p in descendants(os.getpid()) if p not in spare]
    pids = mine()
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + (grace if sig == signal.SIGTERM else 2.0)
        while time.monotonic() < deadline:
            _reap()
            # orphans reparented to us since the first look are ours to end too
            pids = sorted(set(pids) | set(mine()))
            if not [p for p in pids if _alive(p)]:
                return pids
            time.sleep(0.05)
        pids = [p for p in pids if _alive(p)] + [p for p in mine() if p not in pids]
    _reap()
    return pids


def _starttime(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().decode(errors="replace").rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def start_guardian(interval: float = 1.0) -> int | None:
    """Fork the guardian: it records this process's descendants every ``interval`` seconds and, when
    this process is gone (its pipe closes: normal exit or SIGKILL), ends those still alive. Returns its
    pid (None where fork is not available)."""
    import select

    if not hasattr(os, "fork"):
        return None
    parent = os.getpid()
    r, w = os.pipe()
    pid = os.fork()
    if pid:
        os.close(r)
        os.set_inheritable(w, False)
        _GUARD["fd"] = w
        return pid
    os.close(w)
    for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(s, signal.SIG_IGN)
    me = os.getpid()
    seen: dict[int, str] = {}
    try:
        while True:
            ready, _, _ = select.select([r], [], [], interval)
            if ready and not os.read(r, 1):
                break
            tree = [p for p in descendants(parent) if p != me]
            seen = {p: t for p in tree if (t := _starttime(p)) is not None}
        # processes started since the last look (loky's workers a moment old): the processes seen
        # still hold them as their children, though this process's parent is gone
        for p in [p for p, t in seen.items() if _starttime(p) == t and _alive(p)]:
            for c in descendants(p):
                if c != me and c not in seen and (t := _starttime(c)) is not None:
                    seen[c] = t
        for sig in (signal.SIGTERM, signal.SIGKILL):
            live = [p for p, t in seen.items() if _starttime(p) == t and _alive(p)]
            for p in live:
                try:
                    os.kill(p, sig)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + 3.0
            while live and time.monotonic() < deadline:
                time.sleep(0.05)
                live = [p for p in live if _starttime(p) == seen[p] and _alive(p)]
    finally:
        os._exit(0)


_GUARD: dict = {}


def _fmt(seconds: float | None) -> str:
    if seconds is None or seconds != seconds or seconds == float("inf"):
        return "--:--"
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


class Progress:
    """Reads the progress file and the papermill cell counter; draws the status line."""

    def __init__(self, label: str, path: str, stream, tty: bool, quiet: bool):
        self.label, self.path, self.stream, self.tty, self.quiet = label, path, stream, tty, quiet
        self.t0 = time.monotonic()
        self.cell = None
        self.sweeps = 0
        self.total = self.cached = self.computed = 0  # over the notebook
        self.cur = None  # current sweep: dict(name, total, cached, todo, done, t0)
        self.warnings = 0
        self.pos = 0
        self.lock = threading.Lock()
        self.drawn = False

    def _clear(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.drawn = False

    def line(self, text: str) -> None:
        """Print a whole line above the status line."""
        with self.lock:
            self._clear()
            self.stream.write(text.rstrip("\n") + "\n")
            self.stream.flush()

    def poll(self) -> None:
        try:
            with open(self.path, encoding="utf-8") as fh:
                fh.seek(self.pos)
                data = fh.read()
        except OSError:
            return
        end = data.rfind("\n") + 1
        self.pos += len(data[:end].encode("utf-8"))
        for raw in data[:end].splitlines():
            try:
                ev = json.loads(raw)
            except ValueError:
                continue
            kind = ev.get("ev")
            if kind == "start":
                self.sweeps += 1
                self.total += ev.get("total", 0)
                self.cached += ev.get("cached", 0)
                self.cur = dict(name=ev.get("sweep", "runs"), total=ev.get("total", 0),
                                cached=ev.get("cached", 0), todo=ev.get("todo", 0), done=0,
                                t0=time.monotonic())
            elif kind == "run" and self.cur is not None:
                self.cur["done"] += 1
                self.computed += 1
            elif kind == "warning":
                self.warnings += 1
                self.line(f"  ! {self.label}: {ev.get('message', '')}")

    def status(self) -> str:
        el = time.monotonic() - self.t0
        parts = [f"  {self.label}"]
        if self.cell:
            parts.append(f"cell {self.cell[0]}/{self.cell[1]}")
        c = self.cur
        if c is not None:
            done = c["cached"] + c["done"]
            eta = None
            if c["done"] and c["todo"] > c["done"]:
                eta = (time.monotonic() - c["t0"]) / c["done"] * (c["todo"] - c["done"])
            elif c["todo"] == c["done"]:
                eta = 0.0
            parts.append(f"sweep '{c['name']}' {done}/{c['total']} runs "
                         f"({c['cached']} cached, {c['done']}/{c['todo']} computed), ETA {_fmt(eta)}")
        parts.append(f"{_fmt(el)} elapsed")
        return " | ".join(parts)

    def draw(self) -> None:
        if not self.tty or self.quiet:
            return
        with self.lock:
            width = 200
            try:
                width = os.get_terminal_size(self.stream.fileno()).columns
            except (OSError, ValueError, AttributeError):
                pass
            width = width if width >= 40 else 200
            self.stream.write("\r\x1b[K" + self.status()[: width - 1])
            self.stream.flush()
            self.drawn = True

    def summary(self, rc: int) -> str:
        how = "done" if rc == 0 else f"FAILED (exit {rc})"
        return (f"  {self.label}: {how} in {_fmt(time.monotonic() - self.t0)}; {self.sweeps} sweep(s), "
                f"{self.total} runs ({self.cached} cached, {self.computed} computed), "
                f"{self.warnings} warning(s)")


def _pump_stderr(pipe, prog: Progress, err) -> None:
    """papermill's stderr: cell counter from its bar, noise dropped, other lines passed through."""
    buf = b""
    while True:
        chunk = pipe.read1(4096) if hasattr(pipe, "read1") else pipe.read(4096)
        if not chunk:
            break
        buf += chunk
        pieces = re.split(rb"[\r\n]", buf)
        buf = pieces.pop()
        for piece in pieces:
            _stderr_piece(piece.decode("utf-8", "replace"), prog, err)
    if buf:
        _stderr_piece(buf.decode("utf-8", "replace"), prog, err)


def _stderr_piece(text: str, prog: Progress, err) -> None:
    m = None
    for m in CELL.finditer(text):
        pass
    if m is not None:
        prog.cell = (int(m.group(1)), int(m.group(2)))
        text = CELL.sub("", text)
    text = text.strip("\r\n")
    if not text.strip() or any(p.search(text) for p in NOISE) or INFO.match(text.strip()):
        return
    if prog.quiet and not re.search(r"error|exception|traceback|warning", text, re.I):
        return
    prog.line(text)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    label, quiet = None, False
    while argv and argv[0] != "--":
        opt = argv.pop(0)
        if opt == "--label" and argv:
            label = argv.pop(0)
        elif opt == "--quiet":
            quiet = True
        else:
            raise SystemExit(__doc__)
    if not argv or len(argv) < 3:
        raise SystemExit(__doc__)
    args = argv[1:]
    label = label or os.path.splitext(os.path.basename(args[0]))[0]
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    guardian = start_guardian()
    err = sys.stderr
    tty = err.isatty() and os.environ.get("TERM", "") != "dumb"
    fd, progress_path = tempfile.mkstemp(prefix="bandits-progress-", suffix=".jsonl")
    os.close(fd)
    env = dict(os.environ, BANDITS_PROGRESS=progress_path, PYTHONUNBUFFERED="1")
    prog = Progress(label, progress_path, err, tty, quiet)
    child = subprocess.Popen([sys.executable, "-c", BOOT, *args], stdout=None, stderr=subprocess.PIPE,
                             env=env, preexec_fn=_pdeathsig)
    got = {"sig": None}

    def forward(signum, _frame):
        # a second signal, or one that papermill has not answered in 10 s, becomes SIGTERM, then SIGKILL
        sig = signum if got["sig"] is None else signal.SIGTERM if got.get("escalated") is None else signal.SIGKILL
        if got["sig"] is not None:
            got["escalated"] = sig
        got["sig"], got["at"] = signum, time.monotonic()
        try:
            child.send_signal(sig)
        except ProcessLookupError:
            pass

    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, forward)
    pump = threading.Thread(target=_pump_stderr, args=(child.stderr, prog, err), daemon=True)
    pump.start()
    try:
        while child.poll() is None:
            prog.poll()
            prog.draw()
            time.sleep(0.5)
            if got["sig"] is not None and time.monotonic() - got["at"] > (10 if "escalated" not in got else 5):
                forward(got["sig"], None)
        prog.poll()
    finally:
        kill_descendants(spare=[guardian] if guardian else ())
        if "fd" in _GUARD:
            os.close(_GUARD.pop("fd"))  # the guardian finds nothing left and exits
        pump.join(timeout=5)
        prog.poll()
        with prog.lock:
            prog._clear()
            err.flush()
        try:
            os.unlink(progress_path)
        except OSError:
            pass
    rc = child.returncode
    rc = 128 - rc if rc < 0 else rc
    if not quiet or rc:
        prog.line(prog.summary(rc))
    return rc


if __name__ == "__main__":
    sys.exit(main())
