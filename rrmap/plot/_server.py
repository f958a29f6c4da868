"""The figure workers' server (:data:`rrmap.plot._forkserver.PRELOAD`): it imports the
drawing modules without collecting garbage, freezes them, and ends without tearing
them down.

The server (multiprocessing's forkserver) imports this module alone; this module
imports :data:`~rrmap.plot._forkserver.DRAWING_MODULES`:

- with the cyclic garbage collector off: importing matplotlib, pandas and numpy makes
  some 200,000 objects, and the collector ran about 350 times meanwhile, each pass
  walking what was imported so far (0.1 s of the 0.8 s the imports took);
- then freezes what it imported (``gc.freeze``, as Python's documentation advises
  before forking) and turns the collector back on: the workers' collector never walks
  those objects, and so never copies the memory pages that hold them.

The server holds the standard output and error of the process that started it, and
lives until that process ends. Its interpreter's normal shutdown, freeing matplotlib,
pandas and numpy object by object, took about 0.3 s, and a caller reading ``rrmap
analyze``'s output through a pipe (a script, ``| tee``) waited that long for the pipe
to close after ``rrmap`` itself had finished. The server has nothing to flush or close
(it draws nothing: its children do, and they end with ``os._exit`` already), so it
ends with ``os._exit``.

Started from the caller's main thread (:data:`~rrmap.plot._forkserver.DIES_WITH_CALLER`
on its command line), the server asks the kernel, before its imports, to kill it when the
caller ends (Linux): a caller killed while the server imports (about a second) does not
leave it importing on, holding the caller's output. Otherwise it ends when the caller
closes its end of the server's "alive" pipe, as every forkserver does.

Imported anywhere else (the test suite, a user), this module does nothing.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import os
import sys

from rrmap._util.children import die_with_parent
from rrmap.plot._forkserver import DIES_WITH_CALLER, DRAWING_MODULES, in_forkserver

__all__: list[str] = []


def _preload() -> None:
    """Import the drawing modules with the collector off, then freeze them."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        for name in DRAWING_MODULES:
            try:
                importlib.import_module(name)
            except ImportError:  # as the forkserver's own preloading: a worker that needs
                pass  # the module imports it, and tells what is missing
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _bind_to_caller() -> None:
    """End with the caller, when it started this server from its main thread."""
    if any(DIES_WITH_CALLER in arg for arg in sys.orig_argv):
        die_with_parent()


def quiet_when_caller_gone(kind: type[BaseException], value: BaseException, tb) -> None:
    """The server's and its workers' ``sys.excepthook``: silent on the error of a worker
    forked for a caller that was killed before it handed the worker its work.

    The server forks a worker when the caller asks, then the worker reads its work from
    the caller's pipe. A caller killed in between (``kill -9`` while workers start) leaves
    that pipe empty: the worker's ``EOFError`` (or a reset connection) went through
    multiprocessing's report of a failed start, a traceback on the caller's standard
    error, under a command that was killed. Any other error is printed as before.

    Examples
    --------
    >>> quiet_when_caller_gone(EOFError, EOFError("Ran out of input"), None)
    """
    if issubclass(kind, (EOFError, ConnectionError)):
        return
    sys.__excepthook__(kind, value, tb)


#: Whether this process ends with ``os._exit`` (set on import, in the server only).
FAST_EXIT = in_forkserver()
if FAST_EXIT:
    atexit.register(os._exit, 0)
    sys.excepthook = quiet_when_caller_gone  # the workers fork with it
    _bind_to_caller()
    _preload()
