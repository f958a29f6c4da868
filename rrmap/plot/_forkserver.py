"""What the figure workers' server and its workers share: what the server imports, the
word on its command line that binds it to its caller, and how a process knows it is that
server (how a process asks to end with its parent: :mod:`rrmap._util.children`).

:mod:`rrmap.plot._workers` starts the server and its workers; :mod:`rrmap.plot._server`
is what the server imports. Both read this module, which imports nothing but the
standard library: the server imports it before anything else.

Examples
--------
>>> in_forkserver()  # this process was not started as multiprocessing's forkserver
False
>>> DIES_WITH_CALLER.startswith(PRELOAD[0])
True
"""

from __future__ import annotations

import sys

__all__: list[str] = []

#: Modules the server imports once for all its workers: those every figure needs. Not
#: plotly (0.3 s): only the worker that makes the interactive map imports it, and the
#: workers start drawing that much earlier.
DRAWING_MODULES: list[str] = [
    "matplotlib.backends.backend_agg",
    "matplotlib.backends.backend_pdf",
    "rrmap.plot._render",
    "rrmap.plot.figures.layouts",
    "rrmap.plot.figures.summaries",
    "pypdfium2",  # the PNGs: rasterized from the PDFs
]
#: What the server is told to import: :mod:`rrmap.plot._server`, which imports
#: :data:`DRAWING_MODULES` without collecting garbage, freezes them, and makes the
#: server end without tearing them down.
PRELOAD: list[str] = ["rrmap.plot._server"]
#: Added to :data:`PRELOAD` when the server is started from the caller's main thread: not
#: a module (the server ignores a name it cannot import) but a word on the server's
#: command line, where :mod:`rrmap.plot._server` reads it and asks the kernel to end the
#: server with its caller. Linux ties that signal to the *thread* that started the
#: process: from another thread, the server would end with that thread.
DIES_WITH_CALLER = "rrmap.plot._server.dies_with_caller"


def in_forkserver() -> bool:
    """Whether this process is a multiprocessing forkserver (started as
    ``python -c 'from multiprocessing.forkserver import main; main(...)'``).

    Examples
    --------
    >>> in_forkserver()
    False
    """
    return any("multiprocessing.forkserver import main" in arg for arg in sys.orig_argv)
