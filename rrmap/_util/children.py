"""Child processes: ending with the process that started them, and workers forked from it.

Imports nothing but the standard library at import time: a process started only to
serve others (the figure workers' server) reads it before anything else.

:func:`forked_pool` runs jobs in processes forked from the caller (the test families of
``rrmap analyze``): their work is many small numpy steps in Python, and threads share
one interpreter lock (the example's 504 tests: 4.81 s with two threads, 4.76 s with one);
a forked process starts with the caller's imports at once, where a spawned one (joblib's
loky) imports numpy, pandas and rrmap first (about 1 s of CPU each, what two cores saved
on the example). Each worker asks the kernel to end it with its caller (``kill -9``
included), ignores Ctrl-C (the terminal sends it to the whole group; the caller stops the
workers), ends on ``SIGTERM`` or ``SIGHUP`` without a word (not through the caller's
handlers, which it inherited) and uses one BLAS thread (the workers fill the cores). The
pool ends when it is left, however: no process outlives it holding the caller's output.

Examples
--------
>>> import operator, sys
>>> can_end_with_parent() == sys.platform.startswith("linux")
True
>>> jobs = [(operator.add, (i, 1), {}) for i in range(4)]
>>> with forked_pool(2 if can_fork_workers() else 1) as run:
...     sorted(run(jobs))
[1, 2, 3, 4]
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = [
    "IDLE_MARK",
    "can_end_with_parent",
    "can_fork_workers",
    "die_with_parent",
    "forked_pool",
    "signals_blocked",
]

#: What stops a command (Ctrl-C, ``kill``, a closed terminal): blocked while workers are
#: forked, so that none reaches a worker before it has set its own handling.
_STOPS = frozenset(
    getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n)
)

#: Begins the name of a thread that waits on an event holding no lock until it is set (the
#: command line's signal watch): a process may fork beside it (:func:`can_fork_workers`).
IDLE_MARK = "rrmap-idle: "

#: ``prctl`` option: the signal this process gets when its parent ends (Linux).
_PR_SET_PDEATHSIG = 1


def can_end_with_parent() -> bool:
    """Whether :func:`die_with_parent` can work here (Linux; elsewhere a child outlives a
    parent killed with ``kill -9``).

    Examples
    --------
    >>> isinstance(can_end_with_parent(), bool)
    True
    """
    return sys.platform.startswith("linux")


def die_with_parent() -> bool:
    """Ask the kernel to kill this process (``SIGKILL``) when its parent ends (Linux's
    ``PR_SET_PDEATHSIG``; the parent being the *thread* that started this process);
    whether it could.

    Not run in the examples: the process that runs them would stay asked for the rest of
    its life.
    """
    if not can_end_with_parent():
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):  # no libc prctl (another C library)
        return False


#: A job as :func:`joblib.delayed` makes it: function, positional and keyword arguments.
Job = tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]


def can_fork_workers() -> bool:
    """Whether workers can be forked from this process now: on Linux, from the main thread
    of a process that runs no other thread but idle ones (marked :data:`IDLE_MARK`, as the
    command line's signal watch): a fork copies one thread, and locks held by another would
    stay held in the child (Jupyter's kernel runs threads).

    Examples
    --------
    >>> isinstance(can_fork_workers(), bool)
    True
    """
    return (
        can_end_with_parent()
        and "fork" in mp.get_all_start_methods()
        and threading.current_thread() is threading.main_thread()
        and all(
            t is threading.main_thread() or t.name.startswith(IDLE_MARK)
            for t in threading.enumerate()
        )
        and not mp.current_process().daemon  # a daemonic process may not have children
    )


@contextlib.contextmanager
def signals_blocked(signals: Iterable[int]) -> Iterator[None]:
    """*signals* blocked in this thread meanwhile: a process started here starts with them
    blocked (the mask survives ``fork`` and ``exec``), and so do the processes it forks.

    A signal that comes meanwhile is not lost: it is delivered when the block ends.

    Examples
    --------
    >>> with signals_blocked({signal.SIGINT}):
    ...     pass
    """
    if not hasattr(signal, "pthread_sigmask"):  # Windows: nothing to block
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, set(signals))
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _start_worker() -> None:
    """In each worker, before its first job; it starts with :data:`_STOPS` blocked, and
    takes them once its own handling is set (a Ctrl-C that reached it first went through
    the caller's handler it inherited: a ``KeyboardInterrupt`` traceback)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    die_with_parent()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPS)
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")  # for the worker's life


def _call(job: Job) -> Any:
    fn, args, kwargs = job
    return fn(*args, **kwargs)


@contextlib.contextmanager
def forked_pool(workers: int) -> Iterator[Callable[[Iterable[Job]], Iterator[Any]]]:
    """*workers* forked processes; what it gives runs jobs on them and yields each
    result as it is done (any order). With one worker, the jobs run here, in order.

    The processes are forked when the pool is entered (enter it before starting any
    thread) and ended when it is left.
    """
    if workers <= 1:
        yield lambda jobs: map(_call, jobs)
        return
    import threadpoolctl  # noqa: F401 - imported once here, not by each worker

    for stream in (sys.stdout, sys.stderr):  # a child must not write the caller's buffer
        with contextlib.suppress(Exception):  # closed, or no stream at all
            stream.flush()
    with signals_blocked(_STOPS):  # the workers start with them blocked (_start_worker)
        procs = mp.get_context("fork").Pool(workers, initializer=_start_worker)
    with procs:
        yield lambda jobs: procs.imap_unordered(_call, jobs)
