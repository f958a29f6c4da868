"""Example data shipped with rrmap.

``example_ratings.csv`` is SIMULATED: it mirrors the design and schema of the
RRMap study (3 raters × 5 movements × 3 modalities × 2 origins × 9 criteria =
810 interval ratings) but holds random numbers, not the experts' ratings.
Its generator is ``data/make_example_ratings.py`` in the source repository.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["example_ratings_path", "load_example_ratings"]

_NAME = "example_ratings.csv"


def example_ratings_path() -> Path:
    """Path of the shipped example ratings file (simulated, study schema).

    Works from an installed wheel (``rrmap/_data``) and from a source
    checkout (``data/``).

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> example_ratings_path().name
    'example_ratings.csv'
    """
    packaged = resources.files("rrmap").joinpath("_data", _NAME)
    if packaged.is_file():
        return Path(str(packaged))
    checkout = Path(__file__).resolve().parents[1] / "data" / _NAME
    if checkout.is_file():
        return checkout
    raise FileNotFoundError(2, "example data not found in the package or the checkout", _NAME)


def load_example_ratings() -> pd.DataFrame:
    """Load the simulated example ratings, validated by :func:`rrmap.load_ratings`.

    Returns
    -------
    DataFrame
        810 rows: 3 raters (E1 balanced, E2 generous, E3 harsh), 5
        movements, 3 modalities, 9 criteria in 3 groups, 2 origins.

    Examples
    --------
    >>> df = load_example_ratings()
    >>> sorted(df.expert.unique())
    ['E1', 'E2', 'E3']
    """
    from rrmap.ratings import load_ratings

    return load_ratings(example_ratings_path())


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
