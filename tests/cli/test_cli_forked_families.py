"""``rrmap analyze`` runs its test families in processes forked from itself (several jobs,
no figure workers beside them): the same tables as one job, and the processes end with
the command however it ends.

Before, the families ran in threads, which share the interpreter lock: two threads took
as long as one (the example's 504 tests, 4.81 s against 4.76 s).

The runs are real processes in their own process group (Linux: read from ``/proc``),
signalled once the command has children: its forked workers.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest
from process_group import GroupRun, group_processes, rrmap_command

import rrmap
from rrmap._util import children

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="processes read from /proc; Linux signals"
)

EXAMPLE = str(rrmap.datasets.example_ratings_path())


@pytest.fixture
def run_in(tmp_path):
    runs: list[GroupRun] = []

    def start(*args: str) -> GroupRun:
        runs.append(GroupRun(rrmap_command(*args), cwd=tmp_path))
        return runs[-1]

    yield start
    for run in runs:
        run.kill_group()


def _children(run: GroupRun) -> list[int]:
    return [pid for pid, ppid in group_processes(run.pgid).items() if ppid == run.pgid]


def _with_workers(run_in, tmp_path, *extra: str) -> GroupRun:
    run = run_in(
        "analyze", EXAMPLE, "--no-figures", "--jobs", "2", "--out", str(tmp_path / "out"), *extra
    )
    run.wait_for("forked workers", lambda: len(_children(run)) == 2)
    return run


@pytest.mark.slow
def test_two_jobs_write_the_tables_of_one(run_in, tmp_path):
    fast = ["--permutations", "999", "--bootstrap", "200", "-q"]
    two = _with_workers(run_in, tmp_path, *fast)  # the families ran in two forked workers
    assert two.end(within=2.0) == (0, {}, [])
    one = run_in(
        "analyze", EXAMPLE, "--no-figures", "--jobs", "1", "--out", str(tmp_path / "one"), *fast
    )
    assert one.end(within=2.0) == (0, {}, [])
    for name in ("tests.csv", "points.csv", "reliability.csv", "tests.tex", "report.md"):
        assert (tmp_path / "out" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()


def test_kill_9_leaves_no_worker_and_closes_the_output(run_in, tmp_path):
    run = _with_workers(run_in, tmp_path, "-q")
    os.kill(run.pgid, signal.SIGKILL)
    assert run.end(within=2.0) == (-signal.SIGKILL, {}, [])  # the workers ended with it
    assert run.stderr() == ""


@pytest.mark.slow  # a further signal: the kill -9 above stays in the first tier
def test_ctrl_c_says_one_line_and_leaves_nothing(run_in, tmp_path):
    run = _with_workers(run_in, tmp_path, "-q")
    os.killpg(run.pgid, signal.SIGINT)  # the terminal signals the group: the workers too
    assert run.end(within=2.0) == (130, {}, [])
    assert run.stderr() == "Interrupted.\n"  # no worker's KeyboardInterrupt traceback
    assert os.listdir(tmp_path) == []


@pytest.mark.slow  # a further signal of the check above
def test_kill_says_one_line_and_leaves_nothing(run_in, tmp_path):
    run = _with_workers(run_in, tmp_path, "-q")
    os.kill(run.pgid, signal.SIGTERM)  # the command only: it ends its workers
    assert run.end(within=2.0) == (143, {}, [])
    assert run.stderr() == "Terminated.\n"  # not a worker's traceback through our handler
    assert os.listdir(tmp_path) == []


def test_no_fork_beside_a_thread_that_may_hold_a_lock():
    """A fork copies one thread: another one's locks would stay held in the children; an
    idle thread (the command's signal watch, waiting on an event) does not count."""
    stop = threading.Event()
    before = children.can_fork_workers()
    idle = threading.Thread(target=stop.wait, name=f"{children.IDLE_MARK}watch")
    busy = threading.Thread(target=stop.wait, name="busy")
    idle.start()
    try:
        assert children.can_fork_workers() is before
        busy.start()
        assert children.can_fork_workers() is False
    finally:
        stop.set()


def test_a_worker_takes_stop_signals_only_once_its_handling_is_set(tmp_path):
    """A Ctrl-C that reached a worker in its first instructions went through the caller's
    handler it inherited (a ``KeyboardInterrupt`` traceback under ``Interrupted.``): the
    workers start with the stop signals blocked and take them once they ignore Ctrl-C."""
    script = tmp_path / "masks.py"
    script.write_text(
        textwrap.dedent(
            """
            import os, signal
            from rrmap._util import children

            def blocked():
                with open("/proc/self/status") as fh:
                    line = next(x for x in fh if x.startswith("SigBlk:"))
                mask = int(line.split()[1], 16)
                stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
                return [bool(mask & (1 << (s - 1))) for s in stops]

            dies = children.die_with_parent
            def at_start():  # in _start_worker, before it unblocks them
                os.write(1, f"start {blocked()}\\n".encode())  # one write: two workers
                return dies()
            children.die_with_parent = at_start
            assert children.can_fork_workers()
            with children.forked_pool(2) as run:
                print("job", list(run([(blocked, (), {})]))[0], flush=True)
            print("caller", blocked(), flush=True)
            """
        )
    )
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=True, cwd=tmp_path
    ).stdout.splitlines()
    assert sorted(set(out)) == [
        "caller [False, False, False]",
        "job [False, False, False]",
        "start [True, True, True]",
    ]
    assert out.count("start [True, True, True]") == 2
