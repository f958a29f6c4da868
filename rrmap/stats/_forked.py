"""Test families in processes forked from the caller.

The families' work is many small numpy steps in Python: threads share one interpreter
lock and ran no faster than one thread (the example's 504 tests: 4.81 s with two
threads, 4.76 s with one). Processes run on every core; a *forked* process starts with
the caller's imports in milliseconds, where a spawned one (joblib's loky) imports numpy,
pandas and rrmap first (about 1 s of CPU each, what two cores saved on the example).

Forking is used only where it is safe and ends cleanly:

- on Linux, from the main thread of a process that runs no other thread but idle ones
  (the command line's signal watch, waiting on an event): a fork copies one thread, and
  locks held by another would stay held in the child; Jupyter's kernel runs threads, and
  gets joblib's threads instead;
- each worker asks the kernel to end it with its caller (``kill -9`` included), ignores
  Ctrl-C (the terminal sends it to the whole group; the caller stops the workers), ends
  on ``SIGTERM`` or ``SIGHUP`` without a word (not through the caller's handlers, which
  it inherited), and uses one BLAS thread (the workers fill the cores);
- the pool is ended when the run ends, however it ends: no process outlives it and holds
  the caller's standard output.

Examples
--------
>>> import operator
>>> jobs = [(operator.add, (i, 1), {}) for i in range(4)]
>>> with pool(2 if usable() else 1) as run:
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

from rrmap._util.children import IDLE_MARK, can_end_with_parent, die_with_parent

__all__: list[str] = []

#: A job as :func:`joblib.delayed` makes it: function, positional and keyword arguments.
Job = tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]


def usable() -> bool:
    """Whether workers can be forked from this process now (see the module docstring).

    Examples
    --------
    >>> isinstance(usable(), bool)
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


def _start_worker() -> None:
    """In each worker, before its first job."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    die_with_parent()
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")  # for the worker's life


def _call(job: Job) -> Any:
    fn, args, kwargs = job
    return fn(*args, **kwargs)


@contextlib.contextmanager
def pool(workers: int) -> Iterator[Callable[[Iterable[Job]], Iterator[Any]]]:
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
    with mp.get_context("fork").Pool(workers, initializer=_start_worker) as procs:
        yield lambda jobs: procs.imap_unordered(_call, jobs)
