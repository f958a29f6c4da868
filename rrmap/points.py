"""RRMap points: one row per reference/query comparison (docs/method.md).

Imports what it needs (pandas, the reader, the zones) when it is called, so
that ``import rrmap`` stays light: :func:`points` is bound on the package at
import, and a module named like its function must not pull the rest in.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rrmap.comparison import _compare_scaled
from rrmap.gaussian import interval_to_gaussian, z_value

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from rrmap.zones import Thresholds

__all__ = ["key_columns", "points", "query_corpora"]


def key_columns(ratings: pd.DataFrame) -> list[str]:
    """The columns identifying one comparison: the rater, the query corpus when there are
    several (column ``query``), and every category.

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
    query = ["query"] if "query" in ratings.columns and "origin" not in ratings.columns else []
    if "categories" in meta:
        return ["expert", *query, *meta["categories"]]
    return ["expert", *query, *[c for c in ratings.columns if c not in _DERIVED and c != "expert"]]


#: Columns of ratings and points tables that are not categories.
_DERIVED = frozenset(
    {
        "origin",
        "query",
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
)


def query_corpora(points: pd.DataFrame) -> list[str]:
    """The query corpora of a points table, in their order (one when it has no ``query``
    column: the corpus its metadata names, or ``"query"``).

    Examples
    --------
    >>> import rrmap
    >>> query_corpora(rrmap.points(rrmap.datasets.load_example_ratings()))
    ['generated']
    """
    meta = points.attrs.get("rrmap", {})
    if "query" in points.columns:
        found = [str(q) for q in points["query"].unique()]
        order = [q for q in meta.get("queries", []) if q in found]
        return order + sorted(q for q in found if q not in order)
    named = meta.get("queries") or [meta.get("query") or "query"]
    return [str(q) for q in named]


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


def _pair_rows(
    ratings: pd.DataFrame, keys: list[str], ref: str, queries: list[str]
) -> pd.DataFrame:
    """Each reference row beside the row of each query corpus with the same key: the pairs
    of the first corpus in reference-row order, then those of the next.

    One factorisation of the keys instead of a join: in a validated table a key has one
    reference row and at most one row per query corpus (at least one in all).
    """
    import numpy as np

    from rrmap._io.keys import key_codes

    origin = ratings["origin"]
    is_ref = (origin == ref).to_numpy(dtype=bool, na_value=False)
    code = key_codes({k: ratings[k] for k in keys})
    n = int(code.max()) + 1 if len(code) else 0
    c_ref = code[is_ref]
    n_ref = np.bincount(c_ref, minlength=n)
    has_query = np.zeros(n, dtype=bool)
    pairs = []
    for q in queries:
        is_qry = (origin == q).to_numpy(dtype=bool, na_value=False)
        c_qry = code[is_qry]
        n_qry = np.bincount(c_qry, minlength=n)
        one_each = (n_ref == 1) & (n_qry == 1)
        if (n_qry > 1).any() or ((n_qry > 0) & (n_ref != 1)).any():
            _unvalidated(len(c_ref), len(c_qry), int(one_each.sum()), q, len(queries))
        has_query |= n_qry == 1
        where_qry = np.full(n, -1, dtype=np.int64)
        where_qry[c_qry] = np.flatnonzero(is_qry)
        r_idx = np.flatnonzero(is_ref)
        q_idx = where_qry[c_ref]
        pairs.append((q, r_idx[q_idx >= 0], q_idx[q_idx >= 0]))
    if (n_ref > 1).any() or ((n_ref == 1) & ~has_query).any():
        paired = int(sum(len(p[2]) for p in pairs))
        _unvalidated(len(c_ref), paired, paired - int((n_ref > 1).sum()), "", len(queries))
    r_idx = np.concatenate([p[1] for p in pairs])
    q_idx = np.concatenate([p[2] for p in pairs])
    out = ratings[keys].iloc[r_idx].reset_index(drop=True)
    if len(queries) > 1:
        corpus = np.repeat(np.arange(len(queries)), [len(p[1]) for p in pairs])
        import pandas as pd

        out.insert(1, "query", pd.Categorical.from_codes(corpus, categories=queries))
    for col in ("low", "high", "line"):
        values = ratings[col].to_numpy()
        out[f"{col}_ref"] = values[r_idx]
        out[f"{col}_query"] = values[q_idx]
    return out


def _unvalidated(n_ref: int, n_qry: int, paired: int, query: str, corpora: int) -> None:
    what = f"{query!r}" if query and corpora > 1 else "query"
    raise ValueError(
        f"{n_ref} reference and {n_qry} {what} intervals paired into {paired} comparisons; "
        "validate the table with rrmap.load_ratings first"
    )


def points(
    ratings: pd.DataFrame | str | os.PathLike[str],
    *,
    coverage: float = 0.95,
    z: float | None = None,
    thresholds: Thresholds | None = None,
    reference: str | None = None,
    query: str | Sequence[str] | None = None,
) -> pd.DataFrame:
    """Turn ratings into RRMap points, one per (rater, categories, query corpus) comparison.

    Each key's reference interval paired with a query interval becomes
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
    reference : str, optional
        Origin value of the reference; default: the one recorded by :func:`load_ratings`.
    query : str or sequence of str, optional
        Query corpora to pair with it; default: those recorded by :func:`load_ratings`.

    Returns
    -------
    DataFrame
        Key columns (``expert``, ``query`` when there are several query
        corpora, and the categories), ``low_ref``,
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
    queries = _queries(query, meta)
    th = thresholds or Thresholds()
    zz = z_value(coverage, z)

    merged = _pair_rows(ratings, keys, ref, queries)
    if "query" in merged.columns:
        keys = [keys[0], "query", *keys[1:]]
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
    if "query" in out.columns:  # how figures and tables name the column
        meta["headers"] = {**meta.get("headers", {}), "query": "query corpus"}
    meta.update(
        {
            "z": zz,
            "coverage": coverage,
            "thresholds": th.to_dict(),
            "reference": ref,
            "query": queries[0] if len(queries) == 1 else list(queries),
            "queries": list(queries),
            "keys": keys,
        }
    )
    out.attrs["rrmap"] = meta
    return out


def _queries(query: str | Sequence[str] | None, meta: dict) -> list[str]:
    """The query corpora to pair: *query*, else those :func:`load_ratings` found."""
    if query is not None:
        return [query] if isinstance(query, str) else [str(q) for q in query]
    named = meta.get("queries")
    if named:
        return [str(q) for q in named]
    return [str(meta.get("query", "generated"))]


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
