"""The figure workers and their server end with the process that started them, however it
ends; Ctrl-C and ``kill`` stop ``rrmap analyze`` with one line and leave nothing behind.

Every run is a real ``rrmap analyze`` in its own process group, killed while its figure
workers exist. Before, a ``kill -9`` or a ``kill`` left the server, two workers and the
resource tracker alive for good, holding the run's output pipes: ``$(rrmap ...)`` or
``| tee`` never returned; Ctrl-C printed the workers' ``KeyboardInterrupt`` tracebacks,
then ``Aborted!``, with exit code 1.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest
from process_group import GroupRun, rrmap_command

import rrmap

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="processes read from /proc; Linux signals"
)

EXAMPLE = str(rrmap.datasets.example_ratings_path())
#: Long enough to be running while it is killed (it is killed as soon as it has workers).
SLOW = ["--permutations", "5000", "--dpi", "300", "-q"]


@pytest.fixture
def run_in(tmp_path):
    runs: list[GroupRun] = []

    def start(*args: str, **kw) -> GroupRun:
        runs.append(GroupRun(rrmap_command(*args), cwd=tmp_path, **kw))
        return runs[-1]

    yield start
    for run in runs:
        run.kill_group()


def _killed_with_workers(run_in, tmp_path, sig: int, group: bool) -> GroupRun:
    run = run_in("analyze", EXAMPLE, "--out", str(tmp_path / "out"), *SLOW)
    run.wait_for("figure workers", lambda: len(run.workers()) >= 1)  # forked in the command
    (os.killpg if group else os.kill)(run.pgid, sig)
    return run


@pytest.mark.slow
def test_kill_9_leaves_no_process_and_closes_the_output(run_in, tmp_path):
    run = _killed_with_workers(run_in, tmp_path, signal.SIGKILL, group=False)
    code, left, still_open = run.end(within=2.0)
    assert code == -signal.SIGKILL
    assert left == {} and still_open == []  # was: 4 processes, both pipes open for good
    # the resource tracker removed the semaphores of the workers' queues without a word
    assert run.stderr() == ""
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sig", "group", "code", "line"),
    [
        (signal.SIGINT, True, 130, "Interrupted."),  # Ctrl-C: the terminal signals the group
        (signal.SIGTERM, False, 143, "Terminated."),  # kill PID
        pytest.param(  # a CI runner stopping the job's group
            signal.SIGTERM,
            True,
            143,
            "Terminated.",
            # SIGTERM as "kill", sent to the group as Ctrl-C is: a further scenario of the two
            marks=pytest.mark.slow,
        ),
    ],
    ids=["ctrl-c", "kill", "kill-group"],
)
def test_a_stopped_run_says_one_line_and_leaves_nothing(run_in, tmp_path, sig, group, code, line):
    run = _killed_with_workers(run_in, tmp_path, sig, group)
    assert run.end(within=2.0) == (code, {}, [])
    assert run.stderr() == f"{line}\n"  # no traceback from any process, no "Aborted!"
    assert sorted(os.listdir(tmp_path)) == []  # no results, staging folder or lock file


def test_a_run_that_fails_leaves_no_process(run_in, tmp_path):
    """The workers' server starts before the ratings are read: a bad column ends the run
    with the server importing or idle."""
    run = run_in("analyze", EXAMPLE, "--by", "painter", "--out", str(tmp_path / "out"), "-q")
    code, left, still_open = run.end(within=2.0)
    assert (code, left, still_open) == (1, {}, [])
    assert run.stderr().startswith("Error: ") and run.stderr().count("\n") == 1


@pytest.mark.slow  # a whole run with figures (7 s); the failed run above ends the same way
def test_a_finished_run_leaves_no_process(run_in, tmp_path):
    import pandas as pd

    two = tmp_path / "two_raters.csv"  # a whole run, figures and all, in a few seconds
    ratings = pd.read_csv(EXAMPLE)
    ratings[ratings["expert"] != "E3"].to_csv(two, index=False)
    fast = ["--permutations", "99", "--bootstrap", "0", "--chi2-monte-carlo", "0"]
    out = str(tmp_path / "out")
    run = run_in("analyze", str(two), "--by", "modality", "--out", out, "--dpi", "30", *fast)
    assert run.end(within=2.0) == (0, {}, [])
    assert (tmp_path / "out" / "figures" / "rrmap_grid.png").exists()


CALLER = """
import os, sys, threading, time
import rrmap
from rrmap.plot import AnalysisFigures

def main():
    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    pts = pts[pts["expert"] != "E3"]  # two raters: the four figures
    holder = {}
    def start():  # the server started from a thread that ends at once
        holder["figures"] = AnalysisFigures(formats=["png"], dpi=%(dpi)d, jobs=2)
    thread = threading.Thread(target=start) if %(thread)s else None
    if thread:
        thread.start(); thread.join()
    figures = holder.get("figures") or AnalysisFigures(formats=["png"], dpi=%(dpi)d, jobs=2)
    figures.draw(pts, categories=["modality"])  # a grid of 3 panels
    if %(wait)s:
        files = figures.save(sys.argv[1])
        print(len(files), figures.workers, flush=True)
    else:
        print("drawing", flush=True)
        time.sleep(600)

if __name__ == "__main__":
    main()
"""


def _caller(tmp_path, *, thread: bool, wait: bool, dpi: int) -> list[str]:
    script = tmp_path / "caller.py"
    script.write_text(textwrap.dedent(CALLER % {"thread": thread, "wait": wait, "dpi": dpi}))
    return [sys.executable, str(script), str(tmp_path / "figures")]


@pytest.mark.slow
def test_a_script_killed_while_its_workers_draw_leaves_no_process(tmp_path):
    """The library's callers too (a script, a notebook's kernel): the workers end with them."""
    run = GroupRun(_caller(tmp_path, thread=False, wait=False, dpi=600), cwd=tmp_path)
    try:
        run.wait_for("two figure workers", lambda: len(run.workers()) >= 2)
        os.kill(run.pgid, signal.SIGKILL)
        assert run.end(within=2.0) == (-signal.SIGKILL, {}, [])
        assert run.stderr() == ""
    finally:
        run.kill_group()


@pytest.mark.slow
def test_a_server_started_from_a_thread_outlives_the_thread(tmp_path):
    """The kernel's parent-death signal follows the thread that started a process: the
    server is bound to its caller only when started from the main thread, and a thread
    that started it and ended does not take the server (and the workers) along."""
    proc = subprocess.run(
        _caller(tmp_path, thread=True, wait=True, dpi=30),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["4", "2"]  # drawn by two workers, not here after they died


def test_a_process_started_from_the_submitting_thread_ignores_ctrl_c():
    """Where workers are spawned (no forkserver), they are started by the thread that gives
    them their tasks: it blocks SIGINT, which they inherit from their first instruction."""
    from rrmap.plot._workers import block_interrupts

    seen: list[str] = []

    def spawn() -> None:
        block_interrupts()
        code = "print(open('/proc/self/status').read())"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        seen.append(next(ln for ln in out.stdout.splitlines() if ln.startswith("SigBlk:")))

    thread = threading.Thread(target=spawn)
    thread.start()
    thread.join()
    assert int(seen[0].split()[1], 16) & (1 << (signal.SIGINT - 1))
    assert not signal.pthread_sigmask(signal.SIG_BLOCK, [])  # this thread: untouched


@pytest.mark.slow
def test_a_worker_whose_caller_was_killed_before_handing_it_work_says_nothing():
    # the server's workers fork with its excepthook: the EOFError of a worker whose caller
    # died before writing its work to the pipe is not a traceback on the caller's stderr
    code = (
        "# multiprocessing.forkserver import main (what the server's command line holds)\n"
        "import sys\n"
        "import rrmap.plot._server as server\n"
        "print(sys.excepthook is server.quiet_when_caller_gone, flush=True)\n"
        "sys.excepthook(EOFError, EOFError('Ran out of input'), None)\n"
        "sys.excepthook(ConnectionResetError, ConnectionResetError(104, 'reset'), None)\n"
        "sys.excepthook(ValueError, ValueError('a real error'), None)\n"
        "sys.stderr.flush()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout == "True\n"
    assert "EOFError" not in out.stderr and "reset" not in out.stderr
    assert "ValueError: a real error" in out.stderr  # anything else is still printed
