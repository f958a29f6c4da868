"""Exceptions raised by rrmap for bad user input."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["InputError", "PermutationWarning", "RatingsError", "RatingsWarning"]


class InputError(ValueError):
    """Bad user input (a file, a column, a value, an option).

    Subclasses :class:`ValueError`, so ``except ValueError`` keeps working.
    The command-line interface turns it into a one-line message and exit
    code 1.

    Examples
    --------
    >>> isinstance(InputError("column 'x' not found"), ValueError)
    True
    """


class RatingsError(InputError):
    """One or more problems found while validating a ratings table.

    Every problem found in the input is listed at once, in
    :attr:`problems`, each naming the column, the value and the row
    numbers as they appear in the file (the header is line 1).

    Parameters
    ----------
    source : str
        The file name (or ``"<DataFrame>"``).
    problems : sequence of str
        One human-readable line per problem.

    Examples
    --------
    >>> err = RatingsError("r.csv", ["line 3: column 'low': 'abc' is not a number"])
    >>> print(err)
    r.csv: 1 problem: line 3: column 'low': 'abc' is not a number
    """

    def __init__(self, source: str, problems: Sequence[str]) -> None:
        self.source = source
        self.problems = list(problems)
        n = len(self.problems)
        head = f"{source}: {n} problem{'s' if n != 1 else ''}: "
        super().__init__(head + "; ".join(self.problems))


class PermutationWarning(UserWarning):
    """Too few permutations for a permutation p-value to ever be significant.

    A permutation p-value is at least ``1 / (B + 1)``; with an adjustment
    for multiple tests the threshold of the smallest p-value in a family
    of ``m`` tests is ``0.05 / m``.

    Examples
    --------
    >>> issubclass(PermutationWarning, UserWarning)
    True
    """


class RatingsWarning(UserWarning):
    """A ratings file loaded, but something in it deserves a look.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("column 'mean' disagrees with the interval", RatingsWarning)
    >>> caught[0].category.__name__
    'RatingsWarning'
    """


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
