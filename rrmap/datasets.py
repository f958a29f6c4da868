"""Example data shipped with rrmap.

``example_ratings.csv`` is SIMULATED: it mirrors the design and schema of the
RRMap study (3 raters × 5 movements × 3 modalities × 2 origins × 9 criteria =
810 interval ratings) but holds random numbers, not the experts' ratings.
``example_two_generators.csv`` is the same study with two query corpora (simulated
generators ``gen-A`` and ``gen-B``, rated by the same raters on the same keys, 1215
intervals): gen-A's rows are the ``generated`` rows of the first file.
Their generator is ``data/make_example_ratings.py`` in the source repository.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["example_ratings_path", "load_example_ratings"]

_NAMES = {1: "example_ratings.csv", 2: "example_two_generators.csv"}


def _name(generators: int) -> str:
    if generators not in _NAMES:
        from rrmap.errors import InputError

        raise InputError(f"generators must be 1 or 2 (the shipped examples), got {generators!r}")
    return _NAMES[generators]


def example_ratings_path(generators: int = 1) -> Path:
    """Path of a shipped example ratings file (simulated, study schema).

    Works from an installed wheel (``rrmap/_data``) and from a source
    checkout (``data/``).

    Parameters
    ----------
    generators : {1, 2}, default 1
        The study's design with one query corpus (``generated``), or with two
        (``gen-A`` and ``gen-B``).

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> example_ratings_path().name, example_ratings_path(generators=2).name
    ('example_ratings.csv', 'example_two_generators.csv')
    """
    name = _name(generators)
    packaged = resources.files("rrmap").joinpath("_data", name)
    if packaged.is_file():
        return Path(str(packaged))
    checkout = Path(__file__).resolve().parents[1] / "data" / name
    if checkout.is_file():
        return checkout
    raise FileNotFoundError(2, "example data not found in the package or the checkout", name)


def load_example_ratings(generators: int = 1) -> pd.DataFrame:
    """Load simulated example ratings, validated by :func:`rrmap.load_ratings`.

    Parameters
    ----------
    generators : {1, 2}, default 1
        One query corpus (810 rows) or two (1215 rows, origins ``real``,
        ``gen-A``, ``gen-B``).

    Returns
    -------
    DataFrame
        3 raters (E1 balanced, E2 generous, E3 harsh), 5 movements, 3
        modalities, 9 criteria in 3 groups, the reference and the query
        corpora.

    Examples
    --------
    >>> df = load_example_ratings()
    >>> sorted(df.expert.unique()), len(df)
    (['E1', 'E2', 'E3'], 810)
    >>> load_example_ratings(generators=2).attrs["rrmap"]["queries"]
    ['gen-A', 'gen-B']
    """
    from rrmap.ratings import load_ratings

    return load_ratings(example_ratings_path(generators))


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
