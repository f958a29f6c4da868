"""Loading and validating interval ratings (docs/ratings.md).

A ratings table has one row per rated interval: who rated (the rater), which
corpus (origin: reference or query), the interval bounds, and any number of
category columns (movement, criterion, ...). :func:`load_ratings` reads the
published study's headers with no options and any other schema by naming the
roles, validates everything at once and returns a tidy DataFrame.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rrmap._headers import snake
from rrmap.errors import RatingsError
from rrmap.gaussian import interval_to_gaussian

__all__ = ["RatingsSchema", "RatingsWarning", "load_ratings"]

#: How many line numbers a single problem lists before summarising.
_MAX_LINES = 30


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


@dataclass(frozen=True)
class RatingsSchema:
    """Which columns and values play which role in a ratings table.

    Defaults are the published study's headers and values. Column names are
    matched case-insensitively with spaces, underscores and hyphens treated
    as the same.

    Parameters
    ----------
    rater : str, default "expert"
        Column naming the rater. It is called ``expert`` in rrmap's outputs.
    origin : str, default "origin"
        Column saying which corpus an interval is about.
    low, high : str, default "low rating", "high rating"
        Interval bounds.
    reference, query : str, default "real", "generated"
        Values of the origin column for the reference and the query corpus.
    scale : (float, float) or None, default (0, 100)
        Bounds of the rating scale; intervals outside it are errors.
        ``None`` skips the check.
    categories : sequence of str, optional
        Category columns. Default: every column that is not a role or a
        derived column.
    derived : sequence of str, default ("mean", "sigma")
        Columns recomputed from the interval and ignored (checked for
        consistency when they are ``mean`` and ``sigma``).

    Examples
    --------
    >>> RatingsSchema(rater="annotator", reference="human", query="model", scale=(1, 7)).rater
    'annotator'
    """

    rater: str = "expert"
    origin: str = "origin"
    low: str = "low rating"
    high: str = "high rating"
    reference: str = "real"
    query: str = "generated"
    scale: tuple[float, float] | None = (0.0, 100.0)
    categories: tuple[str, ...] | None = None
    derived: tuple[str, ...] = field(default=("mean", "sigma"))

    def to_dict(self) -> dict[str, Any]:
        """Return the schema as a plain dict (for result files)."""
        d = asdict(self)
        d["scale"] = list(self.scale) if self.scale is not None else None
        d["categories"] = list(self.categories) if self.categories is not None else None
        d["derived"] = list(self.derived)
        return d


def _lines(positions: Iterable[int], offset: int, word: str) -> str:
    nums = [int(p) + offset for p in positions]
    shown = ", ".join(str(n) for n in nums[:_MAX_LINES])
    more = ""
    if len(nums) > _MAX_LINES:
        more = f" … and {len(nums) - _MAX_LINES} more ({len(nums)} in all)"
    return f"{word}{'s' if len(nums) != 1 else ''} {shown}{more}"


def _intervals(idx: np.ndarray, lo: np.ndarray, hi: np.ndarray, offset: int, word: str) -> str:
    """List offending intervals with their line numbers, summarising long lists."""
    shown = ", ".join(f"[{lo[i]:g}, {hi[i]:g}] ({word} {i + offset})" for i in idx[:_MAX_LINES])
    if len(idx) > _MAX_LINES:
        shown += f" … and {len(idx) - _MAX_LINES} more ({len(idx)} in all)"
    return shown


def _read_table(source: str | os.PathLike[str] | pd.DataFrame, sep: str | None):
    if isinstance(source, pd.DataFrame):
        return source.copy(), "<DataFrame>", 0, "row"
    path = Path(source)
    if not path.exists():
        raise FileNotFoundError(2, "no such file", str(path))
    if path.is_dir():
        raise IsADirectoryError(21, "is a directory, expected a ratings file", str(path))
    if sep is None:
        sep = "\t" if path.suffix.lower() in {".tsv", ".tab"} else ","
    try:
        df = pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False, skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise RatingsError(str(path), ["the file is empty (no header line)"]) from None
    except pd.errors.ParserError as exc:
        raise RatingsError(
            str(path), [f"not a readable table: {' '.join(str(exc).split())}"]
        ) from None
    # line numbers as in the file: header = line 1, first record = line 2
    return df, str(path), 2, "line"


def _numeric(col: pd.Series) -> tuple[pd.Series, pd.Series, pd.Series]:
    """Parse a column to float; return values, missing mask, non-numeric mask."""
    if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
        vals = col.astype(float)
        missing = vals.isna()
        return vals, missing, pd.Series(False, index=col.index)
    text = col.astype("string").str.strip()
    missing = text.isna() | (text == "") | text.str.lower().isin(["na", "nan", "null", "none"])
    vals = pd.to_numeric(text.where(~missing), errors="coerce").astype(float)
    bad = vals.isna() & ~missing
    return vals, missing.fillna(True).astype(bool), bad.astype(bool)


def load_ratings(
    source: str | os.PathLike[str] | pd.DataFrame,
    *,
    rater: str | None = None,
    origin: str | None = None,
    low: str | None = None,
    high: str | None = None,
    reference: str | None = None,
    query: str | None = None,
    scale: tuple[float, float] | str | None = "default",
    categories: Sequence[str] | None = None,
    schema: RatingsSchema | None = None,
    min_width: float | None = None,
    coverage: float = 0.95,
    z: float | None = None,
    sep: str | None = None,
) -> pd.DataFrame:
    """Read and validate interval ratings into a tidy DataFrame.

    Every problem in the input is collected and reported at once in a
    :class:`~rrmap.errors.RatingsError` naming the column, the value and the
    line numbers (header = line 1; for a DataFrame, positional rows counted
    from 0). No row is ever dropped.

    Parameters
    ----------
    source : path or DataFrame
        A CSV (``.tsv`` read tab-separated) or a DataFrame.
    rater, origin, low, high : str, optional
        Column names of the roles, if they differ from the study's
        (``expert``, ``origin``, ``low rating``, ``high rating``).
    reference, query : str, optional
        Origin values of the reference and query corpus (study: ``real`` and
        ``generated``).
    scale : (float, float) or None, optional
        Rating scale bounds (default 0–100); ``None`` disables the check.
    categories : sequence of str, optional
        Category columns; default: all columns that are not roles, ``mean``
        or ``sigma``.
    schema : RatingsSchema, optional
        All roles at once; keyword arguments given here override it.
    min_width : float, optional
        Floor interval widths to this value (symmetrically around the
        centre, kept inside the scale) instead of rejecting zero-width
        intervals. Off by default; the number of widened intervals is
        warned about and recorded in ``df.attrs["rrmap"]["widened"]``.
    coverage, z : float, optional
        Only used to check ``mean``/``sigma`` columns against the interval.
    sep : str, optional
        Field separator (default from the file extension).

    Returns
    -------
    pandas.DataFrame
        Columns ``expert``, ``origin``, the category columns (snake_case),
        ``low``, ``high`` and ``line`` (where the row came from). The roles
        are recorded in ``df.attrs["rrmap"]``.

    Raises
    ------
    RatingsError
        Listing every problem found.
    FileNotFoundError
        If *source* is a path that does not exist.

    Warns
    -----
    RatingsWarning
        If ``mean``/``sigma`` disagree with the interval, or widths were floored.

    Examples
    --------
    >>> import rrmap
    >>> df = rrmap.load_ratings(rrmap.datasets.example_ratings_path())
    >>> df.shape
    (810, 10)
    >>> list(df.columns[:4])
    ['expert', 'origin', 'movement', 'criterion']
    """
    base = schema or RatingsSchema()
    sch = RatingsSchema(
        rater=rater or base.rater,
        origin=origin or base.origin,
        low=low or base.low,
        high=high or base.high,
        reference=reference if reference is not None else base.reference,
        query=query if query is not None else base.query,
        scale=base.scale if isinstance(scale, str) else scale,
        categories=tuple(categories) if categories is not None else base.categories,
        derived=base.derived,
    )
    raw, name, offset, word = _read_table(source, sep)
    if sch.reference == sch.query:
        raise RatingsError(name, [f"reference and query origin values are both {sch.reference!r}"])
    if sch.scale is not None:
        lo_s, hi_s = sch.scale
        if not (np.isfinite(lo_s) and np.isfinite(hi_s) and lo_s < hi_s):
            raise RatingsError(
                name, [f"scale must be two finite numbers low < high, got {sch.scale!r}"]
            )

    # --- headers -----------------------------------------------------------
    norm_to_orig: dict[str, str] = {}
    problems: list[str] = []
    for col in raw.columns:
        key = snake(col)
        if key in norm_to_orig:
            problems.append(f"columns {norm_to_orig[key]!r} and {col!r} are the same header")
        norm_to_orig[key] = str(col)
    if problems:
        raise RatingsError(name, problems)
    roles = {"rater": sch.rater, "origin": sch.origin, "low": sch.low, "high": sch.high}
    missing = [
        f"{role} column {col!r}" for role, col in roles.items() if snake(col) not in norm_to_orig
    ]
    if missing:
        found = ", ".join(repr(c) for c in raw.columns)
        raise RatingsError(
            name,
            [
                f"missing {', '.join(missing)}; headers found: {found} "
                "(name the roles with rater=/origin=/low=/high=, or --rater/--origin/--low/--high)"
            ],
        )
    role_keys = {snake(c) for c in roles.values()}
    derived_keys = {snake(c) for c in sch.derived}
    if sch.categories is not None:
        cat_keys = [snake(c) for c in sch.categories]
        unknown = [
            c for c, k in zip(sch.categories, cat_keys, strict=True) if k not in norm_to_orig
        ]
        if unknown:
            raise RatingsError(
                name,
                [
                    f"category column(s) {unknown} not found; headers found: "
                    + ", ".join(repr(c) for c in raw.columns)
                ],
            )
        clash = [c for c, k in zip(sch.categories, cat_keys, strict=True) if k in role_keys]
        if clash:
            raise RatingsError(name, [f"column(s) {clash} cannot be both a role and a category"])
    else:
        cat_keys = [k for k in norm_to_orig if k not in role_keys and k not in derived_keys]
    reserved = {"expert", "origin", "low", "high", "line"} & set(cat_keys)
    if reserved:
        raise RatingsError(
            name,
            [
                f"category column(s) {sorted(reserved)} clash with rrmap's output names; "
                "rename them or name the roles explicitly"
            ],
        )

    df = raw.rename(columns={v: k for k, v in norm_to_orig.items()})
    rk, ok, lk, hk = (snake(sch.rater), snake(sch.origin), snake(sch.low), snake(sch.high))

    # --- values ------------------------------------------------------------
    low_v, low_miss, low_bad = _numeric(df[lk])
    high_v, high_miss, high_bad = _numeric(df[hk])
    pos = np.arange(len(df))
    for label, miss, bad, col in (
        (sch.low, low_miss, low_bad, df[lk]),
        (sch.high, high_miss, high_bad, df[hk]),
    ):
        if miss.any():
            problems.append(
                f"column {label!r}: missing value on {_lines(pos[miss.to_numpy()], offset, word)}"
            )
        if bad.any():
            idx = pos[bad.to_numpy()]
            vals = col.iloc[idx]
            examples = ", ".join(
                f"{v!r} ({word} {i + offset})"
                for i, v in zip(idx[:_MAX_LINES], vals[:_MAX_LINES], strict=False)
            )
            more = f" … and {len(idx) - _MAX_LINES} more" if len(idx) > _MAX_LINES else ""
            problems.append(f"column {label!r}: not a number: {examples}{more}")
    inf = np.isinf(low_v.to_numpy()) | np.isinf(high_v.to_numpy())
    if inf.any():
        problems.append(
            f"columns {sch.low!r}/{sch.high!r}: infinite value on {_lines(pos[inf], offset, word)}"
        )
    ok_num = ~(low_miss | low_bad | high_miss | high_bad).to_numpy() & ~inf
    lo_a, hi_a = low_v.to_numpy(), high_v.to_numpy()
    inverted = ok_num & (lo_a > hi_a)
    if inverted.any():
        idx = pos[inverted]
        ex = _intervals(idx, lo_a, hi_a, offset, word)
        problems.append(f"low > high ({sch.low!r} above {sch.high!r}): {ex}")
    widened = 0
    zero = ok_num & (lo_a == hi_a)
    if min_width is not None:
        if not (np.isfinite(min_width) and min_width > 0):
            raise RatingsError(name, [f"min_width must be a positive number, got {min_width!r}"])
    elif zero.any():
        idx = pos[zero]
        ex = _intervals(idx, lo_a, hi_a, offset, word)
        problems.append(
            f"zero-width interval (low = high gives a zero standard deviation): {ex}; "
            "pass min_width= (--min-width) to floor widths explicitly"
        )
    if sch.scale is not None:
        lo_s, hi_s = sch.scale
        outside = ok_num & ((lo_a < lo_s) | (hi_a > hi_s))
        if outside.any():
            idx = pos[outside]
            ex = _intervals(idx, lo_a, hi_a, offset, word)
            problems.append(f"interval outside the scale [{lo_s:g}, {hi_s:g}]: {ex}")

    # origin values
    org = df[ok].astype("string").str.strip()
    ref_mask = (org == sch.reference).fillna(False).to_numpy()
    qry_mask = (org == sch.query).fillna(False).to_numpy()
    other = ~(ref_mask | qry_mask)
    if other.any():
        vals = pd.Series(org.to_numpy()[other]).fillna("").value_counts()
        listing = "; ".join(
            f"{v!r} on {_lines(pos[other & (org.fillna('').to_numpy() == v)], offset, word)}"
            for v in vals.index
        )
        problems.append(
            f"column {sch.origin!r}: value neither the reference {sch.reference!r} nor the query "
            f"{sch.query!r}: {listing} (name them with reference=/query=, or --reference/--query)"
        )

    # rater and category values must be present
    keys_complete = True
    for key in [rk, *cat_keys]:
        text = df[key].astype("string").str.strip()
        miss = (text.isna() | (text == "")).to_numpy()
        if miss.any():
            problems.append(
                f"column {norm_to_orig[key]!r}: missing value on {_lines(pos[miss], offset, word)}"
            )
            keys_complete = False
        df[key] = text

    # --- pairing: exactly one reference and one query per key ---------------
    keys = [rk, *cat_keys]
    if keys_complete:
        tmp = df[keys].copy()
        tmp["_side"] = np.where(ref_mask, "ref", np.where(qry_mask, "query", "other"))
        tmp["_pos"] = pos
        tmp = tmp[tmp["_side"] != "other"]
        counts = (
            tmp.groupby([*keys, "_side"], sort=False, dropna=False)
            .size()
            .unstack("_side", fill_value=0)
        )
        for side in ("ref", "query"):
            if side not in counts:
                counts[side] = 0
        bad_keys = counts[(counts["ref"] != 1) | (counts["query"] != 1)]
        if len(bad_keys):
            grouped = tmp.groupby(keys, sort=False)["_pos"].apply(list)
            listed = []
            for key_vals, row in bad_keys.iterrows():
                key_vals = key_vals if isinstance(key_vals, tuple) else (key_vals,)
                label = ", ".join(f"{k}={v}" for k, v in zip(keys, key_vals, strict=True))
                where = _lines(
                    grouped.loc[key_vals if len(keys) > 1 else key_vals[0]], offset, word
                )
                n_r, n_q = int(row["ref"]), int(row["query"])
                if n_r == 0:
                    what = f"a query but no reference interval ({n_q} query)"
                elif n_q == 0:
                    what = f"a reference but no query interval ({n_r} reference)"
                else:
                    what = f"duplicated intervals ({n_r} reference, {n_q} query)"
                listed.append(f"[{label}] has {what} on {where}")
            shown = listed[:_MAX_LINES]
            more = (
                f" … and {len(listed) - _MAX_LINES} more keys" if len(listed) > _MAX_LINES else ""
            )
            problems.append(
                f"{len(listed)} comparison key(s) without exactly one {sch.reference!r} and one "
                f"{sch.query!r} interval: " + "; ".join(shown) + more
            )

    if problems:
        raise RatingsError(name, problems)

    # --- optional width floor ------------------------------------------------
    if min_width is not None:
        narrow = (hi_a - lo_a) < min_width
        if narrow.any():
            centre = (lo_a + hi_a) / 2
            new_lo = centre - min_width / 2
            new_hi = centre + min_width / 2
            if sch.scale is not None:
                shift_up = np.clip(sch.scale[0] - new_lo, 0, None)
                shift_dn = np.clip(new_hi - sch.scale[1], 0, None)
                new_lo, new_hi = new_lo + shift_up - shift_dn, new_hi + shift_up - shift_dn
            lo_a = np.where(narrow, new_lo, lo_a)
            hi_a = np.where(narrow, new_hi, hi_a)
            widened = int(narrow.sum())
            warnings.warn(
                f"{name}: {widened} interval(s) narrower than min_width={min_width:g} were widened "
                f"to it ({_lines(pos[narrow], offset, word)})",
                RatingsWarning,
                stacklevel=2,
            )

    # --- derived columns: warn when inconsistent, never trust ---------------
    m, s = interval_to_gaussian(lo_a, hi_a, coverage=coverage, z=z)
    span = (
        (sch.scale[1] - sch.scale[0])
        if sch.scale is not None
        else float(np.nanmax(hi_a) - np.nanmin(lo_a) or 1)
    )
    for col, expected, label in (("mean", m, "mean"), ("sigma", s, "sigma")):
        if col in df.columns and col in derived_keys:
            vals, miss, bad = _numeric(df[col])
            given = vals.to_numpy()
            tol = np.maximum(0.005 * span, 0.01 * np.abs(expected))
            off = ~miss.to_numpy() & ~bad.to_numpy() & (np.abs(given - expected) > tol)
            off |= bad.to_numpy()
            if off.any():
                warnings.warn(
                    f"{name}: column {norm_to_orig[col]!r} disagrees with the interval on "
                    f"{_lines(pos[off], offset, word)}; rrmap recomputes the {label} from the "
                    "interval and ignores this column",
                    RatingsWarning,
                    stacklevel=2,
                )

    out = pd.DataFrame(
        {"expert": df[rk].to_numpy(dtype=object), "origin": org.to_numpy(dtype=object)}
    )
    for key in cat_keys:
        out[key] = df[key].to_numpy(dtype=object)
    out["low"] = lo_a
    out["high"] = hi_a
    out["line"] = pos + offset
    out.attrs["rrmap"] = {
        "source": name,
        "schema": sch.to_dict(),
        "reference": sch.reference,
        "query": sch.query,
        "categories": list(cat_keys),
        "n_rows": len(out),
        "widened": widened,
    }
    return out
