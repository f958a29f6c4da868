"""Child processes that end with the process that started them (Linux).

Imports nothing but the standard library: a process started only to serve others (the
figure workers' server) reads it before anything else.

Examples
--------
>>> import sys
>>> can_end_with_parent() == sys.platform.startswith("linux")
True
"""

from __future__ import annotations

import signal
import sys

__all__ = ["IDLE_MARK", "can_end_with_parent", "die_with_parent"]

#: Begins the name of a thread that waits on an event holding no lock until it is set (the
#: command line's signal watch): a process may fork beside it (``rrmap.stats._forked``).
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
