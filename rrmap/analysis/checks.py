"""What :func:`rrmap.analyze` checks before any test runs: that no energy test is doomed by
too few permutations, and that the run's size is within :mod:`rrmap.limits`."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd

from rrmap.errors import InputError, PermutationWarning
from rrmap.stats.adjust import smallest_rejectable
from rrmap.stats.energy import group_sets
from rrmap.stats.settings import ALPHA

__all__ = ["check_size", "warn_if_too_few_permutations"]


def _largest_family(points: pd.DataFrame, by: Sequence[str]) -> int:
    """Tests in the largest family of the designs: a k-sample test and its pairs."""
    ks = [points["expert"].nunique()] + [points[c].nunique() for c in by]
    return max(len(group_sets(k, True)) for k in ks)


def warn_if_too_few_permutations(
    points: pd.DataFrame, by: Sequence[str], n_perm: int, p_adjust: str
) -> None:
    """Warn when no energy p-value can ever pass the (adjusted) 0.05 threshold.

    Examples
    --------
    >>> import warnings
    >>> import rrmap
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_if_too_few_permutations(pts, ["movement"], 9, "holm")
    ...     warn_if_too_few_permutations(pts, ["movement"], 9999, "holm")
    >>> [str(w.message)[:62] for w in caught]
    ['with 9 permutations the smallest energy p-value is 1/10 ≈ 0.1,']
    """
    if n_perm <= 0:
        return
    family = _largest_family(points, by)
    bound = smallest_rejectable(family, p_adjust, ALPHA)
    if 1.0 / (n_perm + 1) <= bound:
        return
    need = int(np.ceil(1.0 / bound - 1))
    what = (
        f"{p_adjust} within families of up to {family} tests needs p ≤ {bound:.2g}"
        if p_adjust != "none"
        else f"significance needs p ≤ {bound:.2g}"
    )
    warnings.warn(
        f"with {n_perm} permutations the smallest energy p-value is 1/{n_perm + 1} ≈ "
        f"{1.0 / (n_perm + 1):.2g}, but {what}: some energy tests can never be "
        f"significant; use at least {need} permutations",
        PermutationWarning,
        stacklevel=3,
    )


def check_size(pts: pd.DataFrame, by: Sequence[str], n_boot: int) -> None:
    """Refuse an analysis past :data:`rrmap.limits.MAX_TESTS` before any test runs.

    Examples
    --------
    >>> import rrmap
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> check_size(pts, ["movement", "criterion"], 1000)  # within the limits: no error
    >>> check_size(pts, [], 10**9)
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: ...
    """
    from rrmap.limits import MAX_BOOTSTRAP, MAX_TESTS, check_count, planned_tests

    check_count("n_boot", n_boot, MAX_BOOTSTRAP)
    n_raters = int(pts["expert"].nunique())
    options = [int(pts[c].nunique()) for c in by]
    corpora = int(pts["query"].nunique()) if "query" in pts.columns else 1
    planned = planned_tests(n_raters, options, corpora)
    if planned > MAX_TESTS:
        sizes = ", ".join(f"{c}: {o} options" for c, o in zip(by, options, strict=True))
        raise InputError(
            f"{n_raters} raters ({sizes or 'no categories'}) make {planned} tests, above the "
            f"limit of {MAX_TESTS} (rrmap.limits): test fewer categories (--by) or compare "
            "fewer raters at once"
        )
