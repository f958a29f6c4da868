"""The sizes rrmap accepts, checked before any work or allocation.

A request past one of these limits fails at once with a message that says
the size asked for, the limit and what to do, instead of running for hours
or exhausting memory. Each limit is far above what a study needs: the
smallest permutation p-value at the largest B is 10⁻⁷, and an analysis at
the largest number of tests runs for minutes, not days.

======================  ===============  =============================================
limit                   value            what it bounds
======================  ===============  =============================================
``MAX_PERMUTATIONS``    10,000,000       permutations per energy test (``n_perm``)
``MAX_MONTE_CARLO``     10,000,000       Monte Carlo / permutation draws of a zone test
``MAX_BOOTSTRAP``       100,000          bootstrap resamples of the reliability intervals
``MAX_TESTS``           200,000          tests one analysis plans (raters² × options)
======================  ===============  =============================================

Reading limits (file size, line length, spreadsheets) are in
docs/ratings.md; those of :mod:`rrmap.rank` and :mod:`rrmap.judge` in their
pages.
"""

from __future__ import annotations

from collections.abc import Iterable

from rrmap.errors import InputError

__all__ = [
    "MAX_BOOTSTRAP",
    "MAX_MONTE_CARLO",
    "MAX_PERMUTATIONS",
    "MAX_TESTS",
    "check_count",
    "planned_tests",
]

#: Permutations per energy test.
MAX_PERMUTATIONS = 10_000_000
#: Monte Carlo (or within-key permutation) draws of one zone test.
MAX_MONTE_CARLO = 10_000_000
#: Bootstrap resamples of the reliability intervals.
MAX_BOOTSTRAP = 100_000
#: Tests planned by one analysis (energy and zone tests of every design).
MAX_TESTS = 200_000


def check_count(name: str, value: object, maximum: int) -> int:
    """*value* as a non-negative integer no larger than *maximum*, or a clear error.

    Examples
    --------
    >>> check_count("n_perm", 999, MAX_PERMUTATIONS)
    999
    >>> check_count("n_perm", 10**30, MAX_PERMUTATIONS)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: n_perm 1000000000000000000000000000000 is above the limit of ...
    """
    ok = not isinstance(value, bool)
    try:
        as_int = int(value)  # type: ignore[call-overload]
        ok = ok and as_int == value and as_int >= 0
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise InputError(f"{name} must be a non-negative integer, got {value!r}")
    if as_int > maximum:
        raise InputError(f"{name} {as_int} is above the limit of {maximum} (rrmap.limits)")
    return as_int


def planned_tests(n_raters: int, options: Iterable[int], corpora: int = 1) -> int:
    """How many tests an analysis plans, from the number of raters, of each category's
    options and of query corpora (energy and zone test of every k-sample comparison and
    every pair: the three designs per corpus, and with several the generator effect on
    all points, per rater and per option).

    Examples
    --------
    >>> planned_tests(3, [5])  # overall 4, per option 5 × 4, per rater 3 × 11: × 2 tests
    114
    >>> planned_tests(3, [5], corpora=2)  # twice that, and 2 × (1 + 3 + 5) × 2
    264
    """

    def family(k: int) -> int:
        return 1 + k * (k - 1) // 2 if k >= 2 else 0

    options = list(options)
    expert = family(n_raters) * (1 + sum(options))
    per_rater = n_raters * sum(family(o) for o in options)
    generators = family(corpora) * (1 + n_raters + sum(options)) if corpora > 1 else 0
    return 2 * (corpora * (expert + per_rater) + generators)


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
