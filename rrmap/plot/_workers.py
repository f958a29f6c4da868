"""Worker processes that draw figures, forked from a server that imported matplotlib once.

A worker started with ``spawn`` (as joblib's loky workers are, and every worker on Windows)
imports numpy, pandas, matplotlib and rrmap before it draws anything: about 1.5 s of
CPU per worker, which on two cores ate what drawing in parallel saved. Here the
workers are forked from multiprocessing's *forkserver*, a process that imports those
modules once (:data:`~rrmap.plot._forkserver.DRAWING_MODULES`, through
:data:`~rrmap.plot._forkserver.PRELOAD`) as soon as :func:`start_server` starts it:
begun before the caller's own work (reading the ratings, running the tests), its
imports overlap that work, and each worker starts drawing at once. Where the platform
has no forkserver, the workers are spawned.

A task runs with the rcParams and the fonts of the process that gave it
(:func:`caller_settings`, applied by :func:`call`): a figure drawn in a worker is the
figure the caller would have drawn itself.

The server and the workers end with the caller, however it ends (its normal end, an
error, Ctrl-C, ``kill``, ``kill -9``): they hold its standard output and error, and a
reader of them (``$(rrmap ...)``, ``| tee``, a CI step) waits until the last one ends.

- The multiprocessing forkserver lives until every holder of its "alive" pipe has
  ended, and each worker is given one: a worker waiting for a task of a caller killed
  with ``kill -9`` kept the server, which kept the workers, alive for ever. A worker
  lets its copy go (:func:`_start_worker`): the server sees the pipe close when the
  caller ends.
- Each worker watches a pipe only the caller holds (multiprocessing's parent sentinel)
  and ends when it closes; on Linux it also gets ``SIGKILL`` from the kernel when the
  server ends (``PR_SET_PDEATHSIG``), which reaches it even while it draws. The server
  started from the caller's main thread gets it when the caller ends, even while it
  imports (:data:`~rrmap.plot._forkserver.DIES_WITH_CALLER`).
- None of them takes Ctrl-C: the terminal sends it to every process of the group, and
  a worker then printed a ``KeyboardInterrupt`` traceback. The server starts with
  ``SIGINT`` blocked (:func:`~rrmap._util.children.signals_blocked`), which its workers inherit; the
  caller, on ``KeyboardInterrupt``, stops them (``AnalysisFigures.close``).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from rrmap._util.children import die_with_parent, signals_blocked
from rrmap.plot._forkserver import DIES_WITH_CALLER, PRELOAD, in_forkserver

__all__: list[str] = []

#: rcParams a worker keeps its own: it draws off screen.
_OWN = frozenset({"backend", "backend_fallback", "interactive"})

#: Settings of the caller: (rcParams, font files), or None for matplotlib's defaults.
Settings = tuple[dict[str, Any], list[str]] | None


def start_server() -> Any:
    """Where there is a forkserver, start it now and have it import
    :data:`~rrmap.plot._forkserver.PRELOAD` (this call does not wait for the imports); the
    multiprocessing context of the workers.

    Cheap on purpose (nothing heavy is imported here): ``rrmap analyze`` calls it
    before its own imports. Raises ``OSError`` (or ``ValueError``) where processes
    cannot be started.
    """
    if "forkserver" in mp.get_all_start_methods():
        ctx = mp.get_context("forkserver")
        main = threading.current_thread() is threading.main_thread()
        # no effect if this process already runs a forkserver: its workers then import
        # the modules themselves, when a task needs them
        ctx.set_forkserver_preload([*PRELOAD, DIES_WITH_CALLER] if main else PRELOAD)
        from multiprocessing import forkserver, resource_tracker

        with _quiet_tracker():  # first: it unblocks SIGINT when it starts
            resource_tracker.ensure_running()
        with signals_blocked({signal.SIGINT}):
            forkserver.ensure_running()
        # a server restarted later (it was killed) may be started from another thread
        ctx.set_forkserver_preload(PRELOAD)
        return ctx
    return mp.get_context("spawn")


def start_pool(workers: int, context: Any | None = None) -> ProcessPoolExecutor:
    """A pool of *workers* processes of *context* (default: :func:`start_server`'s); they
    start with the first task given to them, and end with this process (:func:`_start_worker`).

    Raises ``OSError`` (or ``ValueError``) where processes cannot be started.
    """
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=context or start_server(), initializer=_start_worker
    )


#: The warning filter of the resource tracker this module starts: after a caller that ended
#: without its cleanup (``kill -9``, a second Ctrl-C), the tracker removes the semaphores
#: of the workers' queues, as it should, but also said so on the caller's stderr, in two
#: lines with a path into Python's library.
_TRACKER_FILTER = "ignore::UserWarning:multiprocessing.resource_tracker"


@contextlib.contextmanager
def _quiet_tracker() -> Iterator[None]:
    """A resource tracker started meanwhile gets :data:`_TRACKER_FILTER` (on its command
    line, made from ``sys.warnoptions``; this process's own filters were made from them
    at its start and stay as they are)."""
    sys.warnoptions.append(_TRACKER_FILTER)
    try:
        yield
    finally:
        sys.warnoptions.remove(_TRACKER_FILTER)


def block_interrupts() -> None:
    """Block ``SIGINT`` in this thread for good: processes it starts (workers spawned where
    there is no forkserver) never take Ctrl-C. Never call it in the main thread."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def _start_worker() -> None:
    """Run in each worker before its first task: it ignores Ctrl-C and ends with the caller.

    The caller's end closes the pipe of multiprocessing's parent sentinel (only the
    caller holds its other end): a thread waiting on it ends the worker. A worker of
    the server also lets go of the server's "alive" pipe (so that the server sees the
    caller end) and gets ``SIGKILL`` when the server ends (on Linux, see the module's
    documentation).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if in_forkserver():
        die_with_parent()  # the server forks from its one thread: no thread to outlive
        _release_the_server()
    parent = mp.parent_process()
    if parent is None or parent.sentinel is None:
        return
    from multiprocessing.connection import wait

    if wait([parent.sentinel], timeout=0):  # the caller ended before we were bound to it
        os._exit(0)
    threading.Thread(
        target=_end_with, args=(parent.sentinel,), name="rrmap-caller-watch", daemon=True
    ).start()


def _end_with(sentinel: int) -> None:
    """End this process as soon as *sentinel* is ready (the caller ended)."""
    from multiprocessing.connection import wait

    wait([sentinel])
    os._exit(0)


def _release_the_server() -> None:
    """Close this worker's copy of the forkserver's "alive" pipe (it starts no process)."""
    from multiprocessing import forkserver

    server = getattr(forkserver, "_forkserver", None)
    fd = getattr(server, "_forkserver_alive_fd", None)
    if isinstance(fd, int):
        server._forkserver_alive_fd = None  # type: ignore[union-attr]
        with contextlib.suppress(OSError):
            os.close(fd)


def caller_settings() -> Settings:
    """This process's rcParams and font files, for :func:`call` in a worker; None while
    matplotlib is not imported here (its defaults are then the worker's: the same
    matplotlibrc, read from the same folder)."""
    if "matplotlib" not in sys.modules:
        return None
    import matplotlib as mpl

    rc = {k: v for k, v in mpl.rcParams.items() if k not in _OWN}
    manager = sys.modules.get("matplotlib.font_manager")
    fonts = sorted({e.fname for e in manager.fontManager.ttflist}) if manager else []
    return rc, fonts


def call(target: str, settings: Settings, *args: Any) -> Any:
    """``module.function(*args)`` for *target* ``"module:function"``, in a worker, with the
    caller's rcParams and fonts. The function travels by name: the caller need not import
    its module (``rrmap.plot._render`` imports matplotlib)."""
    import importlib

    import matplotlib as mpl

    module, name = target.split(":")
    func = getattr(importlib.import_module(module), name)
    if settings is None:
        return func(*args)
    rc, fonts = settings
    _add_fonts(fonts)
    with mpl.rc_context(rc):
        return func(*args)


def _add_fonts(paths: list[str]) -> None:
    """Register the font files the caller added at run time (``fontManager.addfont``)."""
    from matplotlib import font_manager

    known = {e.fname for e in font_manager.fontManager.ttflist}
    for path in paths:
        if path not in known:
            try:
                font_manager.fontManager.addfont(path)
            except (OSError, RuntimeError, ValueError):  # gone since: drawn with a fallback
                continue
