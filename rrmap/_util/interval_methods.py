"""Private: the bootstrap interval methods by name, and their check, without numpy (the
command line validates its settings before pandas and numpy are imported)."""

from __future__ import annotations

from rrmap.errors import InputError

__all__ = ["CI_METHODS", "check_ci"]

#: The interval methods of :mod:`rrmap.bootstrap`: BCa (percentile where BCa is undefined)
#: and the percentile interval.
CI_METHODS: tuple[str, ...] = ("bca", "percentile")


def check_ci(ci: str) -> str:
    """*ci* if it is an interval method, else an :class:`~rrmap.errors.InputError`.

    Examples
    --------
    >>> check_ci("bca")
    'bca'
    >>> check_ci("student")
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: ci must be one of ['bca', 'percentile'], got 'student'
    """
    if ci not in CI_METHODS:
        raise InputError(f"ci must be one of {list(CI_METHODS)}, got {ci!r}")
    return ci
