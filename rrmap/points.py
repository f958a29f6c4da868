"""RRMap points: one row per reference/query comparison (docs/method.md).

Imports what it needs (pandas, the reader, the zones) when it is called, so
that ``import rrmap`` stays light: :func:`points` is bound on the package at
import, and a module named like its function must not pull the rest in.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from rrmap.comparison import _compare_scaled
from rrmap.gaussian import interval_to_gaussian, z_value

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from rrmap.zones import Thresholds

__all__ = ["key_columns", "points"]


def key_columns(ratings: pd.DataFrame) -> list[str]:
    """The columns identifying one comparison: the rater and every category.

    Parameters
    ----------
    ratings : DataFrame
        Output of :func:`rrmap.load_ratings` (or :func:`points`).

    Returns
    -------
    list of str

    Examples
    --------
    >>> import rrmap
    >>> key_columns(rrmap.datasets.load_example_ratings())
    ['expert', 'movement', 'criterion', 'criterion_group', 'modality', 'modality_name']
    """
    meta = ratings.attrs.get("rrmap", {})
    if "categories" in meta:
        return ["expert", *meta["categories"]]
    derived = {
        "origin",
        "low",
        "high",
        "line",
        "m_ref",
        "s_ref",
        "m_query",
        "s_query",
        "low_ref",
        "high_ref",
        "low_query",
        "high_query",
        "line_ref",
        "line_query",
        "delta",
        "r",
        "bc",
        "quality",
        "mean",
        "sigma",
    }
    return ["expert", *[c for c in ratings.columns if c not in derived and c != "expert"]]


def _without_attrs(frame: pd.DataFrame) -> pd.DataFrame:
    """*frame* sharing its data, with empty ``attrs`` (one copy of them, not one per column).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": [1]})
    >>> df.attrs["rrmap"] = {"n_rows": 1}
    >>> _without_attrs(df).attrs, df.attrs
    ({}, {'rrmap': {'n_rows': 1}})
    """
    import pandas as pd

    plain = pd.DataFrame(frame, copy=False)
    plain.attrs = {}
    return plain


def _pair_rows(ratings: pd.DataFrame, keys: list[str], ref: str, qry: str) -> pd.DataFrame:
    """Each reference row beside the query row with the same key, in reference-row order.

    One factorisation of the keys instead of a join: a validated table has
    exactly one reference and one query row per key.
    """
    import numpy as np

    from rrmap._keys import key_codes

    is_ref = (ratings["origin"] == ref).to_numpy(dtype=bool, na_value=False)
    is_qry = (ratings["origin"] == qry).to_numpy(dtype=bool, na_value=False)
    code = key_codes({k: ratings[k] for k in keys})
    n = int(code.max()) + 1 if len(code) else 0
    c_ref, c_qry = code[is_ref], code[is_qry]
    n_ref = np.bincount(c_ref, minlength=n)
    n_qry = np.bincount(c_qry, minlength=n)
    one_each = (n_ref == 1) & (n_qry == 1)
    if ((n_ref + n_qry > 0) & ~one_each).any():  # keys of other origins alone do not count
        paired = int(one_each.sum())
        raise ValueError(
            f"{len(c_ref)} reference and {len(c_qry)} query intervals paired into "
            f"{paired} comparisons; validate the table with rrmap.load_ratings first"
        )
    where_qry = np.empty(n, dtype=np.int64)
    where_qry[c_qry] = np.flatnonzero(is_qry)
    r_idx = np.flatnonzero(is_ref)
    q_idx = where_qry[c_ref]
    out = ratings[keys].iloc[r_idx].reset_index(drop=True)
    for col in ("low", "high", "line"):
        values = ratings[col].to_numpy()
        out[f"{col}_ref"] = values[r_idx]
        out[f"{col}_query"] = values[q_idx]
    return out


def points(
    ratings: pd.DataFrame | str | os.PathLike[str],
    *,
    coverage: float = 0.95,
    z: float | None = None,
    thresholds: Thresholds | None = None,
    reference: str | None = None,
    query: str | None = None,
) -> pd.DataFrame:
    """Turn ratings into RRMap points, one per (rater, categories) comparison.

    Each key with one reference and one query interval becomes
    ``Δ = (m_query − m_ref)/s_ref``, ``R = s_query/s_ref``, their
    Bhattacharyya coefficient and a quality zone. Fully vectorised.

    Parameters
    ----------
    ratings : DataFrame or path
        Output of :func:`rrmap.load_ratings`; a path or a raw DataFrame in
        the study's schema is loaded (and validated) first.
    coverage : float, default 0.95
        Probability mass of each rated interval.
    z : float, optional
        Quantile override (``1.96`` reproduces the paper's rounding).
    thresholds : Thresholds, optional
        Zone thresholds (paper defaults).
    reference, query : str, optional
        Origin values; default: those recorded by :func:`load_ratings`.

    Returns
    -------
    DataFrame
        Key columns (``expert`` and the categories), ``low_ref``,
        ``high_ref``, ``low_query``, ``high_query``, ``m_ref``, ``s_ref``,
        ``m_query``, ``s_query``, ``delta``, ``r``, ``bc``, ``quality``
        (ordered categorical excellent < fair < stereotype < bad) and
        ``line_ref``/``line_query`` (where the intervals came from).
        Settings are in ``.attrs["rrmap"]``.

    Examples
    --------
    >>> import rrmap
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> pts.shape[0], list(pts.quality.cat.categories)
    (405, ['excellent', 'fair', 'stereotype', 'bad'])
    """
    import pandas as pd

    from rrmap.ratings import load_ratings
    from rrmap.zones import Thresholds, _classify_compared

    if not isinstance(ratings, pd.DataFrame) or "rrmap" not in ratings.attrs:
        ratings = load_ratings(ratings)
    meta = dict(ratings.attrs.get("rrmap", {}))
    keys = key_columns(ratings)
    # pandas deep-copies attrs into every column taken from a frame: with thousands of
    # category columns that is quadratic, so the work is done on a frame without them
    ratings = _without_attrs(ratings)
    ref = reference if reference is not None else meta.get("reference", "real")
    qry = query if query is not None else meta.get("query", "generated")
    th = thresholds or Thresholds()
    zz = z_value(coverage, z)

    merged = _pair_rows(ratings, keys, ref, qry)
    m1, s1 = interval_to_gaussian(merged["low_ref"], merged["high_ref"], z=zz)
    m2, s2 = interval_to_gaussian(merged["low_query"], merged["high_query"], z=zz)
    bounds = [
        merged[c].to_numpy(dtype=float) for c in ("low_ref", "high_ref", "low_query", "high_query")
    ]
    compared = _compare_scaled(*bounds, zz)  # Δ, R, BC once, for the columns and the zones
    delta, r, bc = compared[:3]
    out = merged[keys].reset_index(drop=True)
    for col in ("low_ref", "high_ref", "low_query", "high_query"):
        out[col] = merged[col].to_numpy()
    out["m_ref"], out["s_ref"], out["m_query"], out["s_query"] = m1, s1, m2, s2
    out["delta"], out["r"], out["bc"] = delta, r, bc
    # from the bounds, so that points on a zone boundary are decided exactly
    out["quality"] = _classify_compared(bounds, zz, th, compared)
    out["line_ref"] = merged["line_ref"].to_numpy()
    out["line_query"] = merged["line_query"].to_numpy()
    meta.update(
        {
            "z": zz,
            "coverage": coverage,
            "thresholds": th.to_dict(),
            "reference": ref,
            "query": qry,
            "keys": keys,
        }
    )
    out.attrs["rrmap"] = meta
    return out


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
