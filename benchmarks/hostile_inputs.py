"""Hostile inputs through the command line: how many end in a clear error, how many in a
traceback, and the time and memory of the largest accepted inputs.

Each case is one ``rrmap`` process (bad files, pipes and FIFOs, labels that are
commands of an output format, options past every limit, folders that cannot be
written, huge inputs, a hostile chat-completions server: replies without usage
under a budget, malformed usage, answers trickled a byte at a time, a huge
``Retry-After``; the server is ``tests/judge/chat_server.py``, started for the
case on 127.0.0.1). A case ends in one of: ``ok`` (exit 0), ``clear`` (exit
1 or 2 with one ``Error:`` line and no traceback), ``traceback`` (a Python
traceback on stderr), ``hang`` (killed after ``--timeout`` seconds), ``lost``
(a file the case keeps, ``keep``, was changed, replaced or removed: a device
node, a user's file, another run's staged folder), ``leftover`` (a run left a
file on the mounted disk, such as a stale lock), ``wrong`` (a case with a
``check`` of its outputs — a valid input — refused, or its outputs wrong: rows
lost in a CSV, a formula cell, a file missing, a raw control character in a
report) or ``other`` (any other ending). A run stopped by a signal while its
figure workers draw (``kill -9``, ``kill``, Ctrl-C to its process group) is
``clear`` when it ends with exit code 128 + the signal's number and one line
(nothing for ``kill -9``), and no process of it is left and its output pipes are
closed 2 s after it ended; ``orphans`` when some are. With ``--baseline REV`` the
same cases run, in
the same run, against a git worktree of REV (default: the commit before the
outputs work), so the two columns compare like with like.

Run: ``python benchmarks/hostile_inputs.py [--baseline 11a917d] [--timeout 60]
[--match 'judge ']`` (``--match``: only the cases whose name holds the text)
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from hostile_cases import EXAMPLE, ROOT, check_outputs, server, write_cases


def _classify(rc: int | None, err: str) -> str:
    """How a case ended; a clear error is one ``Error:`` line (notes such as what was read
    may stand before it) with exit code 1 or 2 and no traceback."""
    if rc is None:
        return "hang"
    if "Traceback" in err:
        return "traceback"
    if rc == 0:
        return "ok"
    errors = [ln for ln in err.splitlines() if ln.startswith("Error: ")]
    return "clear" if rc in (1, 2) and len(errors) == 1 else "other"


@contextlib.contextmanager
def _mounted(kind: str | None, tmp: Path):
    if kind is None:
        yield {}
        return
    folder = tmp / f"mnt-{kind}-{time.monotonic_ns()}"
    folder.mkdir()
    opts = "size=64k" + (",ro" if kind == "ro" else "")
    ok = (
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(folder)], capture_output=True
        ).returncode
        == 0
    )
    if ok and kind == "filled":  # no byte left: every write fails, even a lock's PID
        with contextlib.suppress(OSError), open(folder / "fill", "wb") as fh:
            while True:
                fh.write(b"\0" * 4096)
                fh.flush()
    try:
        yield {"RO" if kind == "ro" else "FULL": str(folder)} if ok else None
    finally:
        if ok:
            subprocess.run(["umount", str(folder)], check=False)


def _group(pgid: int) -> dict[int, int]:
    """Live processes of process group *pgid* (``/proc``): pid → parent pid."""
    found: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text(errors="replace")
        except (OSError, ValueError):
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            found[int(entry)] = int(fields[1])
    return found


def _ready(pid: int, when: str) -> bool:
    """Whether run *pid* is where its case signals it: figure workers forked (by their
    server), test workers forked (by the command itself), or waiting in a read from a pipe
    (its main thread's kernel wait)."""
    if when == "workers":
        procs = _group(pid)
        return any(ppid in procs and ppid != pid for ppid in procs.values())
    if when == "test workers":
        return sum(ppid == pid for ppid in _group(pid).values()) >= 2
    try:
        return "pipe" in Path(f"/proc/{pid}/wchan").read_text(errors="replace")
    except OSError:
        return False


def _run_signal_case(
    args: list[str], opts: dict, tmp: Path, env: dict, timeout: float
) -> tuple[str, float, float, str]:
    """Start the run in a process group of its own, signal it once it is ready, and see
    what is left of it 2 s after it ended."""
    sig = getattr(signal, opts["signal"])
    read, write = os.pipe()  # a standard input that never ends, for those that read it
    proc = subprocess.Popen(
        [sys.executable, "-m", "rrmap.cli", *args],
        stdin=read if opts.get("stdin_open") else subprocess.DEVNULL,
        cwd=tmp,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )
    os.close(read)
    closed = {name: threading.Event() for name in ("stdout", "stderr")}
    text: dict[str, bytes] = {}

    def drain(name: str) -> None:
        text[name] = getattr(proc, name).read()
        closed[name].set()

    for name in closed:
        threading.Thread(target=drain, args=(name,), daemon=True).start()
    try:
        deadline = time.monotonic() + timeout
        while not _ready(proc.pid, opts["when"]):
            if proc.poll() is not None or time.monotonic() > deadline:
                return "other", 0.0, 0.0, "ended (or hung) before it could be signalled"
            time.sleep(0.01)
        (os.killpg if opts.get("group") else os.kill)(proc.pid, sig)
        start = time.perf_counter()
        _, status, usage = os.wait4(proc.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        ended = time.perf_counter()
        while time.perf_counter() - ended < 2.0:
            if not _group(proc.pid) and all(e.is_set() for e in closed.values()):
                break
            time.sleep(0.01)
        left, still_open = _group(proc.pid), [n for n, e in closed.items() if not e.is_set()]
        wall = time.perf_counter() - start
    finally:
        _end_group(proc)
        os.close(write)
    for event in closed.values():
        event.wait(10)
    err = text.get("stderr", b"").decode("utf-8", "replace")
    lines = err.splitlines()
    said = f"exit {code}, {len(left)} processes left, open: {', '.join(still_open) or 'none'}"
    if left or still_open:
        kind = "orphans"
    elif "Traceback" in err:
        kind = "traceback"
    elif sig == signal.SIGKILL:
        kind = "clear" if code == -signal.SIGKILL else "other"
    else:
        kind = "clear" if code == 128 + sig and len(lines) == 1 else "other"
    return kind, wall, usage.ru_maxrss / 1024, f"{said}; stderr: {' | '.join(lines)[:80]}"


def _end_group(proc: subprocess.Popen) -> None:
    """End what is left of *proc*'s process group (nothing of a run outlives its case):
    the resource tracker last, once it removed the run's semaphores."""

    def tracker(pid: int) -> bool:
        with contextlib.suppress(OSError):
            return b"resource_tracker" in Path(f"/proc/{pid}/cmdline").read_bytes()
        return False

    for pid in [p for p in _group(proc.pid) if not tracker(p)]:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 10
    while _group(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in _group(proc.pid):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _run_case(
    args: list[str], opts: dict, tmp: Path, env: dict, timeout: float
) -> tuple[str, float, float, str]:
    if "signal" in opts:
        return _run_signal_case(args, opts, tmp, env, timeout)
    with _mounted(opts.get("mount"), tmp) as where, server(opts.get("server")) as url:
        if where is None:
            return "skipped", 0.0, 0.0, "cannot mount a tmpfs"
        args = [url if a == "SERVER" else a for a in args]
        args = [
            a.replace("RO/", where.get("RO", "RO") + "/").replace(
                "FULL/", where.get("FULL", "FULL") + "/"
            )
            for a in args
        ]
        stdin = open(opts["stdin"], "rb") if "stdin" in opts else subprocess.DEVNULL
        fifo = tmp / "fifo"
        if opts.get("fifo"):
            with contextlib.suppress(FileNotFoundError):
                fifo.unlink()
            os.mkfifo(fifo)
        if opts.get("fifo") is True:  # else no program writes to it
            threading.Thread(
                target=lambda: fifo.write_bytes(EXAMPLE.read_bytes()), daemon=True
            ).start()
        limit = opts.get("fsize")
        kept = {path: _state(path) for path in opts.get("keep", [])}
        disk = where.get("FULL")
        listed = sorted(os.listdir(disk)) if disk else None

        def _pre() -> None:
            if limit:
                import resource

                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
                resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "rrmap.cli", *args],
            stdin=stdin,
            cwd=tmp,  # not the repository: python -m would import rrmap from there
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**env, **opts.get("env", {})},
            preexec_fn=_pre,
        )
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        err = proc.stderr.read().decode("utf-8", "replace")
        _, status, usage = os.wait4(proc.pid, 0)
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        rc = None if proc.returncode == -signal.SIGKILL else proc.returncode
        if "stdin" in opts:
            stdin.close()
        first = next(
            (ln for ln in err.splitlines() if ln.startswith(opts.get("show", "Error"))),
            err.strip().splitlines()[-1:] or [""],
        )
        first = first if isinstance(first, str) else first[0]
        kind = _classify(rc, err)
        if any(_state(path) != state for path, state in kept.items()):
            kind = "lost"
        elif listed is not None and rc != 0 and sorted(os.listdir(disk)) != listed:
            kind = "leftover"
        elif "check" in opts and kind == "clear":  # a valid input refused
            kind = "wrong"
        elif "check" in opts and kind == "ok":
            wrong = check_outputs(opts["check"])
            if wrong:
                kind, first = "wrong", wrong
        return kind, wall, usage.ru_maxrss / 1024, first[:150]


def _state(path: str) -> tuple | None:
    """What a kept file is: its kind, inode and, for a regular file, its bytes' hash."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    digest = None
    if stat.S_ISREG(st.st_mode):
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return st.st_mode, st.st_ino, digest


def _worktree(rev: str, tmp: Path) -> Path:
    path = tmp / f"baseline-{rev}"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), rev],
        check=True,
        capture_output=True,
    )
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default=None, help="git revision to compare with")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--match", default="", help="only the cases whose name holds this text")
    ap.add_argument("--make", type=Path, help=argparse.SUPPRESS)  # write the case files here
    a = ap.parse_args()
    if a.make:
        print(json.dumps(write_cases(a.make), default=str))
        return
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        # the files are made by a child process: a forked case would count this one's memory
        made = subprocess.run(
            [sys.executable, __file__, "--make", str(tmp)],
            capture_output=True,
            text=True,
            check=True,
        )
        cases = [c for c in json.loads(made.stdout) if a.match in c[0]]
        trees = {"now": ROOT}
        if a.baseline:
            trees[a.baseline] = _worktree(a.baseline, tmp)
        tally = {name: Counter() for name in trees}
        rows = []
        for label, args, opts in cases:
            row = [label]
            for name, tree in trees.items():
                env = {**os.environ, "PYTHONPATH": str(tree)}
                env.pop("RRMAP_DEBUG", None)
                kind, wall, rss, first = _run_case(args, opts, tmp, env, a.timeout)
                tally[name][kind] += 1
                row.append(f"{kind} {wall:.1f}s {rss:.0f}MB")
                if name == "now" or "show" in opts:  # what a baseline said, where it matters
                    row.append(first)
            rows.append(row)
            print(" | ".join(row), flush=True)
        print()
        for name, counts in tally.items():
            print(
                f"{name}: {len(cases)} cases: "
                + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
            )
        if a.baseline:
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(trees[a.baseline])],
                check=False,
            )


if __name__ == "__main__":
    main()
