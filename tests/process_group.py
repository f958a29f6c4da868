"""An ``rrmap`` command run in its own process group, as a terminal or a CI runner runs it,
and the processes of that group (Linux: read from ``/proc``).

Every process a run starts (the figure workers' server, its workers, multiprocessing's
resource tracker) stays in the run's process group, even once its parent is gone: the
group names them all, without a snapshot taken while the parent lived.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path


def group_processes(pgid: int) -> dict[int, int]:
    """Live processes of group *pgid* (zombies left out): pid → parent pid."""
    found: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                stat = fh.read()
        except OSError:  # ended meanwhile
            continue
        # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses
        fields = stat[stat.rindex(")") + 2 :].split()
        state, ppid, pgrp = fields[0], int(fields[1]), int(fields[2])
        if pgrp == pgid and state not in ("Z", "X"):
            found[int(entry)] = ppid
    return found


def as_a_terminal_starts_it() -> None:
    """Run in the child before its program: the stop signals back to their defaults, as a
    shell with job control starts a command. A test suite started in the background
    (``nohup pytest &``) ignores SIGHUP and SIGINT, and its children would inherit that:
    the command would never see the signal the test sends."""
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGQUIT):
        signal.signal(sig, signal.SIG_DFL)


def rrmap_command(*args: str) -> list[str]:
    """The ``rrmap`` command line with *args*."""
    return [sys.executable, "-m", "rrmap.cli", *args]


class GroupRun:
    """*command* in a new session (its own process group), its output read to the end by
    two threads.

    Parameters
    ----------
    command : list of str
    cwd : Path
        Not the repository: ``python -m`` would import rrmap from there.
    env : dict, optional
    stdin : int or file, default: an empty input
    """

    def __init__(
        self, command: list[str], cwd: Path, env: dict[str, str] | None = None, stdin=None
    ) -> None:
        self.proc = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL if stdin is None else stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=as_a_terminal_starts_it,
        )
        self.pgid = self.proc.pid
        self.output: dict[str, bytes] = {}
        self._closed = {name: threading.Event() for name in ("stdout", "stderr")}
        for name in self._closed:
            threading.Thread(target=self._read, args=(name,), daemon=True).start()

    def _read(self, name: str) -> None:
        self.output[name] = getattr(self.proc, name).read()  # until every holder closed it
        self._closed[name].set()

    def wait_for(self, what: str, ready: Callable[[], bool], timeout: float = 300) -> None:
        """Poll until *ready()*; fail (naming *what*) if the run ends first or never gets there."""
        deadline = time.monotonic() + timeout
        while not ready():
            if self.proc.poll() is not None:
                raise AssertionError(
                    f"the run ended (exit code {self.proc.returncode}) before {what}: "
                    f"{self.output.get('stderr', b'')!r}"
                )
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} after {timeout} s")
            time.sleep(0.01)

    def reading_a_pipe(self) -> bool:
        """Whether the command waits in a read from a pipe (its main thread sleeps in the
        kernel's pipe read: ``pipe_read``, ``anon_pipe_read`` or, in older kernels,
        ``pipe_wait``). Signalled then, it is past its imports: an interrupt that lands
        in an import can be lost (C code that looks up an attribute clears any error,
        the ``KeyboardInterrupt`` with it), in any Python program."""
        try:
            with open(f"/proc/{self.proc.pid}/wchan", encoding="ascii") as fh:
                return "pipe" in fh.read()
        except OSError:
            return False

    def workers(self) -> list[int]:
        """Processes of the run forked by another one of it than the command (the figure
        workers, children of their server)."""
        procs = group_processes(self.pgid)
        return [pid for pid, ppid in procs.items() if ppid in procs and ppid != self.pgid]

    def end(self, within: float = 2.0) -> tuple[int, dict[int, int], list[str]]:
        """Wait for the command to end, then up to *within* seconds for every process of its
        group to end and its output pipes to close: its exit code, the processes still
        there and the pipes still open (both empty when all ended in time)."""
        code = self.proc.wait(timeout=600)
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if not group_processes(self.pgid) and all(e.is_set() for e in self._closed.values()):
                break
            time.sleep(0.01)
        left = group_processes(self.pgid)
        still_open = [name for name, e in self._closed.items() if not e.is_set()]
        return code, left, still_open

    def stderr(self) -> str:
        return self.output.get("stderr", b"").decode("utf-8", "replace")

    def kill_group(self) -> None:
        """End whatever is left of the run (a failed test leaves nothing behind): the
        resource tracker last, once it had the time to remove the run's semaphores."""
        tracker = [pid for pid in group_processes(self.pgid) if _is_tracker(pid)]
        for pid in group_processes(self.pgid):
            if pid not in tracker:
                _kill(pid)
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        deadline = time.monotonic() + 10
        while group_processes(self.pgid) and time.monotonic() < deadline:
            time.sleep(0.05)
        for pid in group_processes(self.pgid):
            _kill(pid)


def _is_tracker(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return b"resource_tracker" in fh.read()
    except OSError:
        return False


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:  # ended meanwhile
        pass
