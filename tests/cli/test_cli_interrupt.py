"""Ctrl-C, ``kill`` and a closed terminal stop any ``rrmap`` command with one line and exit
code 128 + the signal's number, no traceback (click's was a blank line, ``Aborted!`` and
exit code 1; ``kill`` ended the process without unwinding, code -15).

The runs are real processes in their own process group, signalled once they run the
command (waiting for input, read from ``/proc``); the analyses' own cases, with
their figure workers, are in ``tests/plot/test_workers_end_with_caller.py``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner
from process_group import GroupRun, as_a_terminal_starts_it, rrmap_command

from rrmap.cli import main
from rrmap.cli._signals import STOP_LINES

linux = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="processes read from /proc; Linux signals"
)


@pytest.mark.first_case_by_default
@linux
@pytest.mark.parametrize(
    ("sig", "code", "line"),
    [
        (signal.SIGINT, 130, "Interrupted."),
        (signal.SIGTERM, 143, "Terminated."),
        (signal.SIGHUP, 129, "Hangup."),
    ],
    ids=["ctrl-c", "kill", "hangup"],
)
def test_rank_waiting_for_its_input_stops_with_one_line(tmp_path, sig, code, line):
    read, write = os.pipe()  # standard input that never ends
    try:
        run = GroupRun(rrmap_command("rank", "fit", "-"), cwd=tmp_path, stdin=read)
        try:
            run.wait_for("a read of standard input", run.reading_a_pipe)
            os.killpg(run.pgid, sig)
            assert run.end(within=2.0) == (code, {}, [])
        finally:
            run.kill_group()
    finally:
        os.close(read)
        os.close(write)
    assert run.stderr() == f"{line}\n"


#: A command whose unwinding (cleaning up after Ctrl-C), or the process's end after it,
#: takes long; it says where it is.
SLOW = """
import atexit, sys, time, weakref
import click
import rrmap.cli._signals
from rrmap.cli import main

rrmap.cli._signals.GRACE = 2.0  # the watch's deadline, 10 s in the command: sooner here

class Thing:
    pass

def callback(ref):  # Python ignores what a weakref callback raises
    print("in a callback", flush=True)
    while True:
        pass
from rrmap.cli._signals import STOP_LINES

def ending():
    print("ending", flush=True)
    time.sleep(600)

@main.command("slow")
@click.option("--slow-end", is_flag=True)
@click.option("--swallow", is_flag=True)
@click.option("--in-callback", is_flag=True)
def slow(slow_end, swallow, in_callback):
    if slow_end:
        atexit.register(ending)
    try:
        print("running", flush=True)
        if in_callback:
            thing = Thing()
            ref = weakref.ref(thing, callback)
            del thing
        time.sleep(600)
    except KeyboardInterrupt:
        if not swallow:
            raise
        print("swallowed", flush=True)  # as C code calling back into Python may do
        time.sleep(600)
    finally:
        print("unwinding", flush=True)
        if not slow_end:
            time.sleep(600)

main()
"""


def _slow(tmp_path, *args: str, **kw) -> subprocess.Popen:
    script = tmp_path / "slow.py"
    script.write_text(textwrap.dedent(SLOW))
    return subprocess.Popen(
        [sys.executable, str(script), "slow", *args],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        **{"preexec_fn": as_a_terminal_starts_it, **kw},
    )


@linux
def test_a_second_ctrl_c_while_unwinding_ends_at_once(tmp_path):
    proc = _slow(tmp_path)
    try:
        assert proc.stdout.readline() == "running\n"
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.stdout.readline() == "unwinding\n"  # the first one unwinds the command
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=600)
    finally:
        proc.kill()
    assert (proc.returncode, out, err) == (130, "", "Interrupted.\n")


@linux
def test_a_signal_while_the_process_ends_ends_it_at_once_and_says_nothing_more(tmp_path):
    proc = _slow(tmp_path, "--slow-end")
    try:
        assert proc.stdout.readline() == "running\n"
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.stdout.readline() == "unwinding\n"
        assert proc.stdout.readline() == "ending\n"  # the command is over, its line said
        os.killpg(proc.pid, signal.SIGTERM)
        err = proc.communicate(timeout=600)[1]
    finally:
        proc.kill()
    assert (proc.returncode, err) == (130, "Interrupted.\n")


@pytest.mark.slow  # 2 s of waiting; the other signal scenarios of this file stay in the first tier
@linux
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "kill"])
def test_a_lost_interrupt_still_ends_the_run(tmp_path, sig):
    """An interrupt some code swallowed (pandas' compiled modules, while they are
    imported, drop the error of what they call): the run still ends, at the latest
    ``GRACE`` seconds after the signal (10 s; 2 s in this script), with its line."""
    proc = _slow(tmp_path, "--swallow")
    try:
        assert proc.stdout.readline() == "running\n"
        os.killpg(proc.pid, sig)
        assert proc.stdout.readline() == "swallowed\n"
        err = proc.communicate(timeout=600)[1]
    finally:
        proc.kill()
    assert (proc.returncode, err) == (128 + sig, f"{STOP_LINES[sig]}\n")


@linux
def test_an_interrupt_python_ignores_is_raised_again(tmp_path):
    """Raised in a weakref callback (as importlib's), an interrupt was printed as
    "Exception ignored in ..." with a traceback, and the command ran on."""
    proc = _slow(tmp_path, "--in-callback")
    try:
        assert proc.stdout.readline() == "running\n"
        assert proc.stdout.readline() == "in a callback\n"
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.stdout.readline() == "unwinding\n"  # the command's own unwinding
        os.killpg(proc.pid, signal.SIGINT)  # without waiting for its end
        err = proc.communicate(timeout=600)[1]
    finally:
        proc.kill()
    assert (proc.returncode, err) == (130, "Interrupted.\n")


@linux
def test_a_signal_the_caller_ignores_stays_ignored(tmp_path):
    """``nohup rrmap ...``: a closed terminal does not stop the run; kill still does."""

    def ignore_hangups() -> None:
        as_a_terminal_starts_it()
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    proc = _slow(tmp_path, preexec_fn=ignore_hangups)
    try:
        assert proc.stdout.readline() == "running\n"
        os.killpg(proc.pid, signal.SIGHUP)  # pending together, SIGHUP (1) comes first
        os.killpg(proc.pid, signal.SIGTERM)
        assert proc.stdout.readline() == "unwinding\n"
        os.killpg(proc.pid, signal.SIGTERM)
        err = proc.communicate(timeout=600)[1]
    finally:
        proc.kill()
    assert (proc.returncode, err) == (143, "Terminated.\n")


def test_an_interrupted_command_says_one_line(monkeypatch, tmp_path):
    """The line and the exit code do not depend on where the interrupt lands, and a test's
    CliRunner gets its own signal handlers back."""
    import rrmap.cli.points as points_cli

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(points_cli, "ratings_from_options", interrupted)
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    example = os.path.join(os.path.dirname(__file__), "..", "..", "data", "example_ratings.csv")
    res = CliRunner().invoke(main, ["points", example])
    assert (res.exit_code, res.stdout, res.stderr) == (130, "", "Interrupted.\n")
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
