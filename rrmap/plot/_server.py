"""Imported by the figure workers' server (:data:`rrmap.plot._workers.PRELOAD`): the
server then ends at once, without tearing down the modules it imported.

The server (multiprocessing's forkserver) holds the standard output and error of the
process that started it, and lives until that process ends. Its interpreter's normal
shutdown, freeing matplotlib, pandas and numpy object by object, took about 0.3 s,
and a caller reading ``rrmap analyze``'s output through a pipe (a script, ``| tee``)
waited that long for the pipe to close after ``rrmap`` itself had finished. The server
has nothing to flush or close (it draws nothing: its children do, and they end with
``os._exit`` already), so it ends with ``os._exit`` too.

It is the last module the server imports, and freezes what the server imported
(``gc.freeze``, as Python's documentation advises before forking): the workers'
garbage collector then never walks those objects, and so never copies the memory
pages that hold them.

Imported anywhere else (the test suite, a user), this module does nothing.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys

__all__: list[str] = []


def in_forkserver() -> bool:
    """Whether this process is a multiprocessing forkserver (started as
    ``python -c 'from multiprocessing.forkserver import main; main(...)'``)."""
    return any("multiprocessing.forkserver import main" in arg for arg in sys.orig_argv)


#: Whether this process ends with ``os._exit`` (set on import, in the server only).
FAST_EXIT = in_forkserver()
if FAST_EXIT:
    atexit.register(os._exit, 0)
    gc.freeze()
