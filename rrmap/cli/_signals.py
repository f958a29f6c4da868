"""How a signal stops an ``rrmap`` command: one line, exit code 128 + its number.

Ctrl-C (``SIGINT``), ``kill`` (``SIGTERM``) and a closed terminal (``SIGHUP``) stop
any command the same way (:func:`stop_on_signals`):

- the first signal while the command runs raises ``KeyboardInterrupt`` (for ``SIGTERM``
  and ``SIGHUP`` its subclass :class:`Stopped`) where the command is: it unwinds,
  releasing its lock, its temporary files and its worker processes, and the main group
  ends it with :func:`stopped`: ``Interrupted.``, ``Terminated.`` or ``Hangup.`` on
  stderr, exit code 130, 143 or 129;
- a signal before the command runs, after it ran, or while it unwinds, ends the
  process at once, with the same line (said once) and exit code: outputs are written
  all-or-nothing, and the next run into the same folder removes what is left;
- raised where Python ignores exceptions (a weakref callback, ``__del__``: it printed
  ``Exception ignored in ...`` and a traceback, and the command ran on), the interrupt
  is raised again, quietly, by the same signal sent again (:func:`_unraisable`);
- if the process still runs :data:`GRACE` seconds after the first signal, it ends at
  once too: an unwinding that hangs, or an interrupt that was lost (C code that calls
  back into Python may clear any error raised there, ``KeyboardInterrupt`` included:
  pandas' compiled modules do, while they are imported).

A signal the caller ignores (``nohup``, a background job) stays ignored.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import ClassVar, NoReturn

import click

from rrmap._util.children import IDLE_MARK

__all__: list[str] = []

#: Seconds a stopped command has to unwind before the process ends anyway.
GRACE = 10.0

#: The one line rrmap prints on stderr when a signal stops it; its exit code is then
#: 128 + the signal's number, as a shell reports it (130, 143, 129).
STOP_LINES: dict[int, str] = {
    signal.SIGINT: "Interrupted.",
    signal.SIGTERM: "Terminated.",
    **({signal.SIGHUP: "Hangup."} if hasattr(signal, "SIGHUP") else {}),
}


class Stopped(KeyboardInterrupt):
    """Raised in the main thread by ``SIGTERM`` or ``SIGHUP``, as ``KeyboardInterrupt`` is by
    Ctrl-C: the command unwinds (its lock, staging folder and worker processes released).

    A ``KeyboardInterrupt``, for the code it passes through: asyncio, for one, re-raises
    only that (and ``SystemExit``) from a callback or a task, and logs any other
    exception there and runs on (a ``kill`` of ``rrmap judge`` then went unheard).
    """


class _Run:
    """The signals the command received (the first decides its line and exit code),
    whether it runs (a signal then unwinds it), whether its line was said, and the
    events of the watch that ends the process :data:`GRACE` seconds after a signal."""

    received: ClassVar[list[int]] = []
    running = False
    said = False
    lost = False  # the first signal's exception was ignored: the next signal raises it
    resend = False  # the watch is to send that signal
    stopping = threading.Event()


def signal_received() -> int | None:
    """The first signal this command received, if any.

    Examples
    --------
    >>> signal_received() is None  # no command runs here
    True
    """
    return _Run.received[0] if _Run.received else None


def stop_line(signum: int) -> str:
    """*signum*'s line; after a new line on a terminal, where Ctrl-C left ``^C``.

    Examples
    --------
    >>> import signal
    >>> stop_line(signal.SIGTERM)
    'Terminated.'
    """
    tty = signum == signal.SIGINT and sys.stderr is not None and sys.stderr.isatty()
    return ("\n" if tty else "") + STOP_LINES.get(signum, "Stopped.")


def stopped(ctx: click.Context, signum: int) -> NoReturn:
    """End the command stopped by *signum*: its one line, exit code 128 + *signum*."""
    with contextlib.suppress(OSError):  # SIGHUP: the terminal may be gone
        click.echo(stop_line(signum), err=True)
    _Run.said = True
    ctx.exit(128 + signum)


@contextlib.contextmanager
def command_running() -> Iterator[None]:
    """Meanwhile a first signal unwinds the command (before and after, it ends the process)."""
    _Run.running = True
    try:
        yield
    finally:
        _Run.running = False


def _end_now(signum: int, *, flush: bool = True) -> NoReturn:
    """End the process at once, with *signum*'s line (unless said) and exit code."""
    if flush:
        with contextlib.suppress(Exception):  # re-entered while it wrote: never mind
            sys.stdout.flush()
    if not _Run.said:
        with contextlib.suppress(OSError):
            os.write(2, f"{stop_line(signum)}\n".encode())
    os._exit(128 + signum)


def _on_signal(signum: int, frame: object) -> None:
    """Unwind the command on its first signal, end the process on any other one."""
    if _Run.lost:
        _Run.lost = False
    elif _Run.received or not _Run.running:
        _end_now(signal_received() or signum)
    else:
        _Run.received.append(signum)
        _Run.stopping.set()  # the watch: GRACE seconds from now
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Stopped(signum)


def _unraisable(hook: object, info: object) -> None:
    """``sys.unraisablehook`` while a command runs: a signal's exception that Python
    ignored (raised in a weakref callback or a ``__del__``) is raised again, without a
    word, by a signal the watch sends (:func:`_watch`: a signal raised from here would
    be raised here, and ignored again); anything else goes to *hook*."""
    if isinstance(getattr(info, "exc_value", None), KeyboardInterrupt) and _Run.received:
        _Run.lost = _Run.resend = True
        return
    hook(info)  # type: ignore[operator]


def _resend(signum: int) -> None:
    """Send *signum* to the main thread (it interrupts a call that waits)."""
    if hasattr(signal, "pthread_kill"):
        signal.pthread_kill(threading.main_thread().ident or 0, signum)
    else:  # Windows
        import _thread

        _thread.interrupt_main(signum)


def _watch(stopping: threading.Event, finished: threading.Event) -> None:
    """From the first signal (*stopping*) on, until *finished*: send it again where its
    exception was ignored (:func:`_unraisable`), and end the process :data:`GRACE`
    seconds after it.

    A thread started before any signal: one started from a signal handler could wait
    for ever for a lock the interrupted code holds (``threading`` takes one to start a
    thread)."""
    import time

    stopping.wait()
    deadline = time.monotonic() + GRACE
    while not finished.wait(0.05):  # also the moment the main thread needs to move on
        if not _Run.received:  # finished (a CliRunner's command)
            return
        if _Run.resend:
            _Run.resend = False
            _resend(_Run.received[0])
        if time.monotonic() > deadline:
            _end_now(_Run.received[0], flush=False)  # stdout's lock may be held: not flushed


@contextlib.contextmanager
def stop_on_signals(*, for_good: bool) -> Iterator[None]:
    """Ctrl-C (``SIGINT``), ``SIGTERM`` and ``SIGHUP`` stop the command with one line and
    exit code 128 + the signal's number, no traceback, whatever it was doing.

    A signal the caller ignores (``nohup``, a background job) stays ignored. Run as the
    program (*for_good*), the handlers stay until the interpreter's end; otherwise (a
    test's ``CliRunner``) the previous ones are put back. Only the main thread can set
    them: elsewhere nothing changes.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _Run.received.clear()
    _Run.said = _Run.lost = _Run.resend = False
    _Run.stopping = stopping = threading.Event()
    finished = threading.Event()
    watch = threading.Thread(
        target=_watch, args=(stopping, finished), name=f"{IDLE_MARK}stop watch", daemon=True
    )
    watch.start()
    before = {sig: signal.getsignal(sig) for sig in STOP_LINES}
    ours = [s for s, h in before.items() if h in (signal.SIG_DFL, signal.default_int_handler)]
    for sig in ours:
        signal.signal(sig, _on_signal)
    hook = sys.unraisablehook
    sys.unraisablehook = functools.partial(_unraisable, hook)
    try:
        yield
    finally:
        if not for_good:
            sys.unraisablehook = hook
            for sig in ours:
                signal.signal(sig, before[sig])
            finished.set()  # the watch ends
            stopping.set()
