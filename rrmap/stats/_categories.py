"""Which categories the designs test by default: all, except relabellings of others."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from rrmap.errors import InputError

__all__ = ["default_categories"]


def default_categories(points: pd.DataFrame) -> list[str]:
    """The categories tested by default: all, except relabellings of others.

    A category is left out when its options are in one-to-one
    correspondence with the options of an earlier category (a duplicate
    under other labels) or with the combinations of options of two or more
    other categories, none of which alone does so (an interaction label,
    e.g. the study's ``modality_name``: one painter or movement per
    movement × modality). A coarser grouping (``criterion_group`` of
    ``criterion``) is kept.
    Its tests would repeat, or mix, the tests of those columns.

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points` (categories read from its attrs).

    Returns
    -------
    list of str

    Examples
    --------
    >>> import rrmap
    >>> default_categories(rrmap.points(rrmap.datasets.load_example_ratings()))
    ['movement', 'criterion', 'criterion_group', 'modality']
    """
    keys = points.attrs.get("rrmap", {}).get("keys")
    cats = [k for k in keys if k not in ("expert", "query")] if keys else []
    if not cats:
        raise InputError(
            "no category columns recorded in the points table; pass by=[...] explicitly"
        )
    codes = {c: pd.factorize(points[c].astype(str).to_numpy())[0] for c in cats}
    kept: list[str] = []
    for i, cat in enumerate(cats):
        others = [c for c in cats if c != cat]
        earlier = cats[:i]
        if any(_bijective(codes, cat, [o]) for o in earlier):
            continue
        if len(others) <= 12 and any(
            _bijective(codes, cat, list(s)) and not _has_bijective_part(codes, cat, s)
            for r in range(2, len(others) + 1)
            for s in combinations(others, r)
        ):
            continue
        kept.append(cat)
    return kept


def _has_bijective_part(codes: dict[str, np.ndarray], col: str, cols: tuple[str, ...]) -> bool:
    """Whether a proper subset of *cols* already relabels *col* (then *cols* is not minimal)."""
    return any(
        _bijective(codes, col, list(part))
        for r in range(1, len(cols))
        for part in combinations(cols, r)
    )


def _combined(codes: dict[str, np.ndarray], cols: list[str]) -> np.ndarray:
    """One integer per distinct combination of the options of *cols*."""
    key = np.zeros(len(codes[cols[0]]), dtype=np.int64)
    for c in cols:
        key = key * (int(codes[c].max(initial=0)) + 1) + codes[c]
        key = np.unique(key, return_inverse=True)[1]  # keep the keys small
    return key


def _bijective(codes: dict[str, np.ndarray], col: str, others: list[str]) -> bool:
    """Whether the options of *col* and the combinations of *others* correspond one to one."""
    a, b = codes[col], _combined(codes, others)
    pairs = np.unique(a * (int(b.max(initial=0)) + 1) + b)
    return len(pairs) == len(np.unique(a)) == len(np.unique(b))
