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
``MAX_PANELS``          200              panels of one figure (raters, or raters × rows)
``MAX_LEGEND_ENTRIES``  60               options of the column that colours a figure
======================  ===============  =============================================

The figure limits can also be raised from the command line, with the
environment variables ``RRMAP_MAX_PANELS`` and ``RRMAP_MAX_LEGEND_ENTRIES``
(see :func:`limit_value`). Reading limits (file size, line length, columns,
spreadsheets) are in docs/ratings.md; those of :mod:`rrmap.rank` and
:mod:`rrmap.judge` in their pages.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from rrmap.errors import InputError

__all__ = [
    "MAX_BOOTSTRAP",
    "MAX_LEGEND_ENTRIES",
    "MAX_MONTE_CARLO",
    "MAX_PANELS",
    "MAX_PERMUTATIONS",
    "MAX_TESTS",
    "check_count",
    "check_figure",
    "check_legend_entries",
    "check_panels",
    "figure_problem",
    "limit_note",
    "limit_value",
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
#: Panels of one figure: one per rater, or raters × categories in the grid (a panel takes
#: 0.1–0.5 s to draw: 10,000 raters drew for 15 minutes).
MAX_PANELS = 200
#: Options of the column that colours a figure, each an entry of its legend (sixty fill
#: one column of a 7 in figure; a palette tells a few dozen apart at most).
MAX_LEGEND_ENTRIES = 60


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


def limit_value(name: str, value: int, module: str = "rrmap.limits") -> int:
    """The limit *name* in force: the environment variable ``RRMAP_<name>`` when it is set,
    else *value* (the module's constant, which Python code may also change).

    Parameters
    ----------
    name : str
        The constant's name (``"MAX_PANELS"``).
    value : int
        The constant's value now.
    module : str
        Where the constant lives, for the message of a bad variable.

    Examples
    --------
    >>> import os
    >>> limit_value("MAX_PANELS", MAX_PANELS)
    200
    >>> os.environ["RRMAP_MAX_PANELS"] = "500"
    >>> limit_value("MAX_PANELS", MAX_PANELS)
    500
    >>> os.environ["RRMAP_MAX_PANELS"] = "lots"
    >>> limit_value("MAX_PANELS", MAX_PANELS)
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: the environment variable RRMAP_MAX_PANELS='lots' is not a \
whole number >= 0 (it raises rrmap.limits.MAX_PANELS = 200)
    >>> del os.environ["RRMAP_MAX_PANELS"]
    """
    text = os.environ.get(f"RRMAP_{name}", "").strip()
    if not text:
        return value
    try:
        given = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        given = -1
    if given < 0:
        raise InputError(
            f"the environment variable RRMAP_{name}={text!r} is not a whole number >= 0 "
            f"(it raises {module}.{name} = {value:,})"
        )
    return given


def limit_note(name: str, value: int, module: str = "rrmap.limits") -> str:
    """How a message names the limit *name* in force (*value*) and how to raise it.

    Examples
    --------
    >>> limit_note("MAX_PANELS", 200)
    'MAX_PANELS = 200; raise it with the environment variable RRMAP_MAX_PANELS, or \
rrmap.limits.MAX_PANELS in Python'
    """
    return (
        f"{name} = {value:,}; raise it with the environment variable RRMAP_{name}, "
        f"or {module}.{name} in Python"
    )


def check_panels(n: int, what: str = "the figure") -> None:
    """Refuse a figure of more than :data:`MAX_PANELS` panels before any is drawn.

    Examples
    --------
    >>> check_panels(3)
    >>> check_panels(10_000, "one panel per rater")
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: one panel per rater: 10,000 panels, more than rrmap draws in \
one figure (MAX_PANELS = 200; raise it with the environment variable RRMAP_MAX_PANELS, or \
rrmap.limits.MAX_PANELS in Python): draw fewer raters, or all in one panel \
(plot_rrmap; rrmap plot --facet none)
    """
    limit = limit_value("MAX_PANELS", MAX_PANELS)
    if n > limit:
        raise InputError(
            f"{what}: {n:,} panels, more than rrmap draws in one figure "
            f"({limit_note('MAX_PANELS', limit)}): draw fewer raters, or all in one panel "
            "(plot_rrmap; rrmap plot --facet none)"
        )


def check_legend_entries(n: int, column: object) -> None:
    """Refuse to colour a figure by a column of more than :data:`MAX_LEGEND_ENTRIES` options.

    Examples
    --------
    >>> check_legend_entries(5, "movement")
    >>> check_legend_entries(3000, "painting")
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: colour by 'painting': 3,000 options, more than one legend \
shows (MAX_LEGEND_ENTRIES = 60; raise it with the environment variable \
RRMAP_MAX_LEGEND_ENTRIES, or rrmap.limits.MAX_LEGEND_ENTRIES in Python): colour by a \
column of fewer options (color=, --color)
    """
    from rrmap._util.escape import message_text

    limit = limit_value("MAX_LEGEND_ENTRIES", MAX_LEGEND_ENTRIES)
    if n > limit:
        raise InputError(
            f"colour by {message_text(column)!r}: {n:,} options, more than one legend shows "
            f"({limit_note('MAX_LEGEND_ENTRIES', limit)}): colour by a column of fewer "
            "options (color=, --color)"
        )


def check_figure(
    points: Any, panels: int = 1, colours: Iterable[Any] = (), what: str = "the figure"
) -> None:
    """:func:`check_panels` of *panels*, and :func:`check_legend_entries` of every column of
    *colours* (``None`` skipped) by its options in *points* (a DataFrame); *what* names the
    figure in the message.

    Examples
    --------
    >>> import pandas as pd
    >>> check_figure(pd.DataFrame({"m": ["a", "b"]}), panels=3, colours=["m", None])
    """
    check_panels(panels, what)
    for column in colours:
        if column is not None and column in points:
            check_legend_entries(int(points[column].nunique()), column)


def figure_problem(points: Any, panels: int = 1, colours: Iterable[Any] = ()) -> str | None:
    """What :func:`check_figure` would refuse, or ``None`` (to leave a figure out).

    Examples
    --------
    >>> import pandas as pd
    >>> figure_problem(pd.DataFrame({"m": range(100)}), colours=["m"])[:40]
    "colour by 'm': 100 options, more than on"
    """
    try:
        check_figure(points, panels, colours)
    except InputError as exc:
        return str(exc)
    return None


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
