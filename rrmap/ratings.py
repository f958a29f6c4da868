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
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from rrmap._io import corpora as _corpora
from rrmap._io.keys import MAX_LISTED as _MAX_LINES
from rrmap._io.keys import Rows as _Rows
from rrmap._io.keys import merged_labels_text, nfc_labels
from rrmap._io.keys import nfc_text as _nfc_text
from rrmap._io.keys import pairing as _pairing
from rrmap._io.keys import shown as _shown
from rrmap._io.numbers import numeric, point_numbers
from rrmap._io.tabular import Table, detect_decimal, read_table
from rrmap._util.escape import message_text, quoted_list
from rrmap._util.headers import snake
from rrmap.errors import RatingsError, RatingsWarning
from rrmap.gaussian import interval_to_gaussian

__all__ = ["MIN_WIDTH_FRACTION", "RatingsSchema", "RatingsWarning", "load_ratings"]

#: The narrowest interval taken, as a fraction of the scale's width (of the span of the
#: bounds when there is no scale): 1e-9, 1e-7 on a 0–100 scale. A narrower interval has a
#: standard deviation that rounding can make zero; it is an error unless ``min_width``
#: (at least this wide) floors it.
MIN_WIDTH_FRACTION = 1e-9


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
    reference : str, default "real"
        Value of the origin column for the reference corpus.
    query : str, sequence of str or None, default None
        Value(s) of the origin column for the query corpus or corpora (generators)
        analysed against the reference. None: every value other than the reference (the
        study's file: ``generated``). Rows of other query corpora are left out, counted.
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
    >>> RatingsSchema(query=["midjourney", "sdxl"]).queries
    ('midjourney', 'sdxl')
    """

    rater: str = "expert"
    origin: str = "origin"
    low: str = "low rating"
    high: str = "high rating"
    reference: str = "real"
    query: str | tuple[str, ...] | None = None
    scale: tuple[float, float] | None = (0.0, 100.0)
    categories: tuple[str, ...] | None = None
    derived: tuple[str, ...] = field(default=("mean", "sigma"))

    @property
    def queries(self) -> tuple[str, ...] | None:
        """The query corpora named (None: every origin value but the reference)."""
        if self.query is None:
            return None
        return (self.query,) if isinstance(self.query, str) else tuple(self.query)

    def to_dict(self) -> dict[str, Any]:
        """Return the schema as a plain dict (for result files)."""
        d = asdict(self)
        if self.query is not None and not isinstance(self.query, str):
            d["query"] = list(self.query)
        d["scale"] = list(self.scale) if self.scale is not None else None
        d["categories"] = list(self.categories) if self.categories is not None else None
        d["derived"] = list(self.derived)
        return d


@dataclass
class _Columns:
    """Positions of the roles and categories in the table, by normalised name."""

    by_key: dict[str, int]
    names: dict[str, str]
    rater: str
    origin: str
    low: str
    high: str
    categories: list[str]


# --- step 1: the settings ------------------------------------------------------------


def _schema(base: RatingsSchema, **given: Any) -> RatingsSchema:
    """*base* with the keyword arguments that were given (not None) replacing its fields."""
    scale = given.pop("scale")
    categories = given.pop("categories")
    fields = {k: v for k, v in given.items() if v is not None}
    cats = tuple(categories) if categories is not None else base.categories
    return RatingsSchema(
        rater=_nfc_text(fields.get("rater") or base.rater),
        origin=_nfc_text(fields.get("origin") or base.origin),
        low=_nfc_text(fields.get("low") or base.low),
        high=_nfc_text(fields.get("high") or base.high),
        reference=_nfc_text(fields.get("reference", base.reference)),
        query=_query_setting(fields.get("query", base.query)),
        scale=base.scale if isinstance(scale, str) else scale,
        categories=tuple(_nfc_text(c) for c in cats) if cats is not None else None,
        derived=base.derived,
    )


def _query_setting(query: Any) -> str | tuple[str, ...] | None:
    """``query=`` as the schema keeps it: None, one value, or a tuple of several (NFC)."""
    if query is None or isinstance(query, str):
        return _nfc_text(query)
    values = tuple(_nfc_text(str(q)) for q in query)
    if not values:
        return None
    return values[0] if len(values) == 1 else values


def _check_settings(sch: RatingsSchema, name: str, decimal: str | None) -> None:
    queries = sch.queries or ()
    if sch.reference in queries:
        raise RatingsError(
            name, [f"reference and query origin values are both {_shown(sch.reference)}"]
        )
    twice = sorted({q for q in queries if queries.count(q) > 1})
    if twice:
        raise RatingsError(name, [f"query corpus named twice: {quoted_list(twice)}"])
    if sch.scale is not None:
        lo_s, hi_s = sch.scale
        if not (np.isfinite(lo_s) and np.isfinite(hi_s) and lo_s < hi_s):
            raise RatingsError(
                name, [f"scale must be two finite numbers low < high, got {sch.scale!r}"]
            )
    if decimal not in (None, ".", ","):
        raise RatingsError(name, [f"decimal must be '.' or ',', got {decimal!r}"])


# --- step 2: the table ------------------------------------------------------------------


def _read(
    source: str | os.PathLike[str] | pd.DataFrame,
    sep: str | None,
    encoding: str | None,
    sheet: str | int | None,
) -> Table:
    if isinstance(source, pd.DataFrame):
        cells = source.copy()
        cells.attrs = {}  # else pandas copies them into every column taken from the frame
        header = [_nfc_text(str(c).strip()) for c in cells.columns]
        cells.columns = range(cells.shape[1])
        cells = cells.reset_index(drop=True)
        info = {"format": "dataframe"}
        return Table(header, cells, np.arange(len(cells)), "<DataFrame>", "row", info)
    table = read_table(source, sep=sep, encoding=encoding, sheet=sheet)
    table.header = [_nfc_text(h) for h in table.header]
    info = table.info
    if info.get("not_utf8"):
        sample = ", ".join(message_text(w) for w in info.get("non_ascii_sample") or [])
        enc = info["encoding"]
        warnings.warn(
            f"{table.source} is not UTF-8 ({info['not_utf8']}); read as "
            f"{_encoding_name(enc)}, where its accented text reads: {sample} — if that looks "
            "wrong, pass encoding= (--encoding)",
            RatingsWarning,
            stacklevel=3,
        )
    for where in info.get("mojibake", []):
        warnings.warn(
            f"{table.source}: text looks garbled by an encoding mix-up: {where} — UTF-8 text "
            "once read as Windows-1252 and saved again? rrmap reads it as it is; fix the file",
            RatingsWarning,
            stacklevel=3,
        )
    return table


def _encoding_name(enc: str) -> str:
    from rrmap._io.encodings import ENCODING_NAMES

    return ENCODING_NAMES.get(enc, enc)


# --- step 3: headers, roles and categories ----------------------------------------------


def _match_headers(table: Table, sch: RatingsSchema) -> _Columns:
    by_key: dict[str, int] = {}
    names: dict[str, str] = {}
    problems = []
    for i, col in enumerate(table.header):
        key = snake(col)
        if key in by_key:
            j = by_key[key]
            problems.append(
                f"columns {j + 1} {_shown(names[key])} and {i + 1} {_shown(col)} are the same "
                "header (names match ignoring case, spaces, '_', '-' and how accents are "
                "encoded); rename or remove one"
            )
            continue
        by_key[key] = i
        names[key] = col
    if problems:
        raise RatingsError(table.source, problems)
    roles = {"rater": sch.rater, "origin": sch.origin, "low": sch.low, "high": sch.high}
    missing = [
        f"{role} column {_shown(col)}" for role, col in roles.items() if snake(col) not in by_key
    ]
    found = quoted_list(table.header)
    if missing:
        hint = "(name the roles with rater=/origin=/low=/high=, or --rater/--origin/--low/--high)"
        others = table.info.get("other_sheets")
        if others:
            hint += f" (the workbook has other sheets: {quoted_list(others)}; --sheet)"
        raise RatingsError(
            table.source, [f"missing {', '.join(missing)}; headers found: {found} {hint}"]
        )
    role_keys = {snake(c) for c in roles.values()}
    derived_keys = {snake(c) for c in sch.derived}
    if sch.categories is not None:
        cat_keys = [snake(c) for c in sch.categories]
        unknown = [c for c, k in zip(sch.categories, cat_keys, strict=True) if k not in by_key]
        if unknown:
            raise RatingsError(
                table.source,
                [f"category column(s) [{quoted_list(unknown)}] not found; headers found: {found}"],
            )
        clash = [c for c, k in zip(sch.categories, cat_keys, strict=True) if k in role_keys]
        if clash:
            raise RatingsError(
                table.source,
                [f"column(s) [{quoted_list(clash)}] cannot be both a role and a category"],
            )
    else:
        cat_keys = [k for k in by_key if k not in role_keys and k not in derived_keys]
    reserved = {"expert", "origin", "low", "high", "line"} & set(cat_keys)
    if reserved:
        raise RatingsError(
            table.source,
            [
                f"category column(s) {sorted(reserved)} clash with rrmap's output names; "
                "rename them or name the roles explicitly"
            ],
        )
    return _Columns(
        by_key,
        names,
        snake(sch.rater),
        snake(sch.origin),
        snake(sch.low),
        snake(sch.high),
        cat_keys,
    )


# --- step 4: values -----------------------------------------------------------------------


def _first_pass(
    table: Table, cols: _Columns, derived: set[str]
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The numeric text columns (bounds, ``mean``, ``sigma``) parsed once with a decimal point."""
    keys = [
        cols.low,
        cols.high,
        *[k for k in ("mean", "sigma") if k in derived and k in cols.by_key],
    ]
    return {
        k: point_numbers(table.cells[cols.by_key[k]])
        for k in keys
        if not pd.api.types.is_numeric_dtype(table.cells[cols.by_key[k]])
    }


def _decimal_mark(
    table: Table,
    cols: _Columns,
    first: dict[str, tuple[np.ndarray, np.ndarray]],
    decimal: str | None,
    rows: _Rows,
) -> tuple[str, list[str]]:
    """The decimal mark to parse with (``"either"`` when both occur: a problem)."""
    if decimal is not None:
        return decimal, []
    if not first:
        return ".", []
    text = {cols.names[k]: table.cells[cols.by_key[k]] for k in first}
    parsed = {cols.names[k]: v for k, (v, _) in first.items()}
    mark, problem = detect_decimal(text, rows.lines, rows.unit, parsed)
    if problem:
        return "either", [problem]
    return mark, []


def _bounds(
    table: Table,
    cols: _Columns,
    sch: RatingsSchema,
    decimal: str,
    forced: bool,
    first: dict[str, tuple[np.ndarray, np.ndarray]],
    rows: _Rows,
    drop_blank: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str], np.ndarray]:
    """Interval bounds, the mask of rows with two usable numbers, the problems and the mask
    of rows with a blank bound (a problem unless *drop_blank*)."""
    problems: list[str] = []
    parsed = {}
    for key, label in ((cols.low, sch.low), (cols.high, sch.high)):
        col = table.cells[cols.by_key[key]]
        vals, miss, bad = numeric(col, decimal, first.get(key))
        parsed[key] = (vals, miss, bad)
        if miss.any() and not drop_blank:
            hint = " (drop_incomplete=True, --drop-incomplete, drops such rows, counted)"
            problems.append(f"column {_shown(label)}: missing value on {rows.at(miss)}{hint}")
        if bad.any():
            idx = np.flatnonzero(bad)
            examples = ", ".join(
                f"{_shown(col.iloc[i])} ({rows.unit} {int(rows.lines[i])})"
                for i in idx[:_MAX_LINES]
            )
            more = f" … and {len(idx) - _MAX_LINES} more" if len(idx) > _MAX_LINES else ""
            mark = f" with decimal mark {decimal!r}" if forced or decimal == "," else ""
            problems.append(f"column {_shown(label)}: not a number{mark}: {examples}{more}")
    lo, lo_miss, lo_bad = parsed[cols.low]
    hi, hi_miss, hi_bad = parsed[cols.high]
    inf = np.isinf(lo) | np.isinf(hi)
    if inf.any():
        problems.append(
            f"columns {_shown(sch.low)}/{_shown(sch.high)}: infinite value on {rows.at(inf)}"
        )
    ok = ~(lo_miss | lo_bad | hi_miss | hi_bad | inf)
    blank = (lo_miss | hi_miss) & ~(lo_bad | hi_bad)
    return lo, hi, ok, problems, blank


def _interval_problems(
    lo: np.ndarray,
    hi: np.ndarray,
    ok: np.ndarray,
    sch: RatingsSchema,
    min_width: float | None,
    rows: _Rows,
) -> list[str]:
    problems: list[str] = []
    inverted = ok & (lo > hi)
    if inverted.any():
        ex = rows.intervals(np.flatnonzero(inverted), lo, hi)
        problems.append(f"low > high ({_shown(sch.low)} above {_shown(sch.high)}): {ex}")
    zero = ok & (lo == hi)
    floor, of_what = _narrowest(lo, hi, ok, sch)
    if min_width is not None:
        if not (np.isfinite(min_width) and min_width > 0):
            raise RatingsError(
                rows.source, [f"min_width must be a positive number, got {min_width!r}"]
            )
        if min_width < floor:
            raise RatingsError(
                rows.source,
                [
                    f"min_width={min_width!r} is narrower than the narrowest interval rrmap "
                    f"takes, {floor:g} (MIN_WIDTH_FRACTION = {MIN_WIDTH_FRACTION:g} of {of_what})"
                ],
            )
    elif zero.all() and len(zero) > 1:
        problems.append(
            f"columns {_shown(sch.low)} and {_shown(sch.high)} hold the same value on every "
            f"{rows.unit}: is one a copy of the other? (no interval has a width)"
        )
    elif zero.any():
        ex = rows.intervals(np.flatnonzero(zero), lo, hi)
        problems.append(
            f"zero-width interval (low = high gives a zero standard deviation): {ex}; "
            "pass min_width= (--min-width) to floor widths explicitly"
        )
    narrow = ok & (hi > lo) & (hi - lo < floor)
    if min_width is None and narrow.any():
        ex = rows.intervals(np.flatnonzero(narrow), lo, hi, exact=True)
        problems.append(
            f"columns {_shown(sch.low)}/{_shown(sch.high)}: interval narrower than {floor:g} "
            f"(MIN_WIDTH_FRACTION = {MIN_WIDTH_FRACTION:g} of {of_what}; rounding can make its "
            f"standard deviation zero): {ex}; pass min_width= (--min-width) to floor widths "
            "explicitly"
        )
    if sch.scale is not None:
        lo_s, hi_s = sch.scale
        outside = ok & ((lo < lo_s) | (hi > hi_s))
        if outside.any():
            ex = rows.intervals(np.flatnonzero(outside), lo, hi)
            problems.append(f"interval outside the scale [{lo_s:g}, {hi_s:g}]: {ex}")
    return problems


def _narrowest(
    lo: np.ndarray, hi: np.ndarray, ok: np.ndarray, sch: RatingsSchema
) -> tuple[float, str]:
    """The narrowest width taken, and what it is a fraction of (for messages).

    Examples
    --------
    >>> floor, of_what = _narrowest(np.array([40.0]), np.array([60.0]), np.array([True]),
    ...                             RatingsSchema())
    >>> print(f"{floor:g} of {of_what}")
    1e-07 of the scale's width [0, 100]
    """
    if sch.scale is not None:
        lo_s, hi_s = sch.scale
        return MIN_WIDTH_FRACTION * (hi_s - lo_s), f"the scale's width [{lo_s:g}, {hi_s:g}]"
    if not ok.any():
        return 0.0, "the span of the bounds"
    a, b = float(lo[ok].min()), float(hi[ok].max())
    return MIN_WIDTH_FRACTION * max(b - a, 0.0), f"the span of the bounds [{a:g}, {b:g}]"


def _key_values(
    table: Table, cols: _Columns, rows: _Rows, skip: np.ndarray | None = None
) -> tuple[dict[str, pd.Series], list[str]]:
    """Rater and category values as stripped text; a missing one is a problem (except on
    the rows *skip* marks: rows dropped anyway)."""
    values: dict[str, pd.Series] = {}
    problems = []
    for key in [cols.rater, *cols.categories]:
        text = _key_text(table, cols.by_key[key])
        miss = (text.isna() | (text == "")).to_numpy(dtype=bool)
        if skip is not None:
            miss = miss & ~skip
        if miss.any():
            problems.append(f"column {_shown(cols.names[key])}: missing value on {rows.at(miss)}")
        values[key] = text
    return values, problems


def _key_text(table: Table, position: int) -> pd.Series:
    """A key column as stripped text in Unicode NFC, kept in its string dtype (no Python
    object per cell); a :class:`RatingsWarning` names labels that NFC made one."""
    col = table.cells[position]
    if table.info.get("format") != "dataframe" and isinstance(col.dtype, pd.StringDtype):
        text = col.reset_index(drop=True)
    else:
        text = pd.Series(_text(table, position))  # object cells: the string dtype is inferred
    text, merged = nfc_labels(text)
    if merged:
        warnings.warn(
            f"{table.source}: column {_shown(table.header[position])}: labels that differ "
            "only in how their accents are encoded (Unicode composed or decomposed) are read "
            f"as one: {merged_labels_text(merged)}",
            RatingsWarning,
            stacklevel=4,
        )
    return text


def _text(table: Table, position: int) -> np.ndarray:
    """A column as stripped text (object array; missing values stay missing).

    Cells read from a file are stripped text already; a DataFrame's are
    converted and stripped here.
    """
    col = table.cells[position]
    if table.info.get("format") != "dataframe":
        return col.to_numpy(dtype=object)
    text = col.astype("string").str.strip()
    return text.astype(object).where(text.notna(), None).to_numpy(dtype=object)


# --- step 5: after validation -----------------------------------------------------------


def _floor_widths(
    lo: np.ndarray, hi: np.ndarray, min_width: float, sch: RatingsSchema, rows: _Rows
) -> tuple[np.ndarray, np.ndarray, int]:
    narrow = (hi - lo) < min_width
    if not narrow.any():
        return lo, hi, 0
    centre = (lo + hi) / 2
    new_lo, new_hi = centre - min_width / 2, centre + min_width / 2
    if sch.scale is not None:
        shift_up = np.clip(sch.scale[0] - new_lo, 0, None)
        shift_dn = np.clip(new_hi - sch.scale[1], 0, None)
        new_lo, new_hi = new_lo + shift_up - shift_dn, new_hi + shift_up - shift_dn
    widened = int(narrow.sum())
    warnings.warn(
        f"{rows.source}: {widened} interval(s) narrower than min_width={min_width:g} were widened "
        f"to it ({rows.at(narrow)})",
        RatingsWarning,
        stacklevel=3,
    )
    return np.where(narrow, new_lo, lo), np.where(narrow, new_hi, hi), widened


def _check_derived(
    table: Table,
    cols: _Columns,
    sch: RatingsSchema,
    lo: np.ndarray,
    hi: np.ndarray,
    decimal: str,
    first: dict[str, tuple[np.ndarray, np.ndarray]],
    coverage: float,
    z: float | None,
    rows: _Rows,
) -> None:
    """Warn where ``mean``/``sigma`` columns disagree with the interval (never trusted)."""
    derived_keys = {snake(c) for c in sch.derived}
    m, s = interval_to_gaussian(lo, hi, coverage=coverage, z=z)
    span = (
        (sch.scale[1] - sch.scale[0])
        if sch.scale is not None
        else float(np.nanmax(hi) - np.nanmin(lo) or 1)
    )
    for col, expected in (("mean", m), ("sigma", s)):
        if col not in cols.by_key or col not in derived_keys:
            continue
        given, miss, bad = numeric(table.cells[cols.by_key[col]], decimal, first.get(col))
        tol = np.maximum(0.005 * span, 0.01 * np.abs(expected))
        with np.errstate(invalid="ignore"):
            off = (~miss & ~bad & (np.abs(given - expected) > tol)) | bad
        if off.any():
            warnings.warn(
                f"{rows.source}: column {_shown(cols.names[col])} disagrees with the interval on "
                f"{rows.at(off)}; rrmap recomputes the {col} from the interval and ignores "
                "this column",
                RatingsWarning,
                stacklevel=3,
            )


def load_ratings(
    source: str | os.PathLike[str] | pd.DataFrame,
    *,
    rater: str | None = None,
    origin: str | None = None,
    low: str | None = None,
    high: str | None = None,
    reference: str | None = None,
    query: str | Sequence[str] | None = None,
    scale: tuple[float, float] | str | None = "default",
    categories: Sequence[str] | None = None,
    schema: RatingsSchema | None = None,
    min_width: float | None = None,
    drop_incomplete: bool = False,
    coverage: float = 0.95,
    z: float | None = None,
    sep: str | None = None,
    encoding: str | None = None,
    decimal: str | None = None,
    sheet: str | int | None = None,
) -> pd.DataFrame:
    """Read and validate interval ratings into a tidy DataFrame.

    Every problem in the input is collected and reported at once in a
    :class:`~rrmap.errors.RatingsError` naming the column, the value and the
    line numbers (physical lines of a text file, header = line 1; rows of a
    sheet; for a DataFrame, positional rows counted from 0). No row is ever
    dropped; empty lines are skipped and counted in ``attrs["rrmap"]["read"]``.

    Parameters
    ----------
    source : path or DataFrame
        A text table (CSV, TSV, …: separator, encoding and decimal mark are
        detected), a spreadsheet (``.xlsx``, ``.xlsm``, ``.xls``, ``.ods``)
        or a DataFrame. See docs/ratings.md, "Files rrmap reads".
    rater, origin, low, high : str, optional
        Column names of the roles, if they differ from the study's
        (``expert``, ``origin``, ``low rating``, ``high rating``).
    reference : str, optional
        Origin value of the reference corpus (study: ``real``).
    query : str or sequence of str, optional
        Origin value(s) of the query corpora (generators) to analyse. Default: every
        value other than the reference (study: ``generated``). Rows of the other query
        corpora are left out, counted in ``attrs["rrmap"]["excluded"]`` and warned about.
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
    drop_incomplete : bool, default False
        Drop rows with a blank interval bound and rows without a partner (a
        query interval whose key has no reference interval, a reference interval
        with no query interval), instead of refusing the file. They are counted,
        warned about and listed in ``df.attrs["rrmap"]["dropped"]`` (and in the
        report of :func:`rrmap.analyze`). Duplicated intervals stay an error.
    coverage, z : float, optional
        Only used to check ``mean``/``sigma`` columns against the interval.
    sep : str, optional
        Field separator of a text file (default: detected from the header line).
    encoding : str, optional
        Encoding of a text file (default: detected; see docs/ratings.md).
    decimal : {".", ","}, optional
        Decimal mark of the numbers (default: detected from the numbers).
    sheet : str or int, optional
        Sheet of a workbook, by name or 1-based position (default: the first).

    Returns
    -------
    pandas.DataFrame
        Columns ``expert``, ``origin``, the category columns (snake_case),
        ``low``, ``high`` and ``line`` (where the row came from). The roles,
        the query corpora (``queries``), what was left out or dropped, and how
        the file was read are recorded in ``df.attrs["rrmap"]``.

    Raises
    ------
    RatingsError
        Listing every problem found.
    FileNotFoundError
        If *source* is a path that does not exist.

    Warns
    -----
    RatingsWarning
        If ``mean``/``sigma`` disagree with the interval, widths were floored,
        rows were left out or dropped, a query corpus is much smaller than the
        others (a typo in the origin column?), a file that is not UTF-8 was read
        in a legacy encoding, or text looks garbled by an encoding mix-up.

    Examples
    --------
    >>> import rrmap
    >>> df = rrmap.load_ratings(rrmap.datasets.example_ratings_path())
    >>> df.shape
    (810, 10)
    >>> list(df.columns[:4])
    ['expert', 'origin', 'movement', 'criterion']
    """
    sch = _schema(
        schema or RatingsSchema(),
        rater=rater,
        origin=origin,
        low=low,
        high=high,
        reference=reference,
        query=query,
        scale=scale,
        categories=categories,
    )
    name = "<DataFrame>" if isinstance(source, pd.DataFrame) else str(source)
    _check_settings(sch, name, decimal)
    table = _read(source, sep, encoding, sheet)
    cols = _match_headers(table, sch)
    org = _key_text(table, cols.by_key[cols.origin])
    ori = _corpora.origins(org, sch, _Rows(table.source, table.lines, table.unit))
    if ori.left_out.any():  # rows of query corpora not named: not read further
        table, ori = _corpora.leave_out(table, ori)
        _corpora.warn_left_out(table.source, ori, sch)
    rows = _Rows(table.source, table.lines, table.unit)
    derived = {snake(c) for c in sch.derived}
    first = _first_pass(table, cols, derived)
    mark, problems = _decimal_mark(table, cols, first, decimal, rows)
    problems = ori.problems + problems
    lo, hi, ok, found, blank = _bounds(
        table, cols, sch, mark, decimal is not None, first, rows, drop_incomplete
    )
    problems += found
    problems += _interval_problems(lo, hi, ok, sch, min_width, rows)
    blank &= drop_incomplete
    keys, found = _key_values(table, cols, rows, skip=blank)
    problems += found
    paired = None
    if not found and not ori.problems:
        paired = _pairing(
            keys,
            ori.ref & ~blank,
            np.where(blank, -1, ori.corpus),
            ori.queries,
            sch.reference,
            rows,
            drop=drop_incomplete,
        )
        problems += paired.problems
    if problems:
        raise RatingsError(table.source, problems)
    widened = 0
    if min_width is not None:
        lo, hi, widened = _floor_widths(lo, hi, min_width, sch, rows)
    _check_derived(table, cols, sch, lo, hi, mark, first, coverage, z, rows)
    _corpora.warn_small_corpora(table.source, ori, sch)
    out = _assemble(table, cols, sch, keys, ori, lo, hi, widened, mark)
    if drop_incomplete:
        unpaired = paired.unpaired if paired else np.zeros_like(blank)
        out = _corpora.drop_rows(out, blank, unpaired, paired, rows)
    return out


def _assemble(
    table: Table,
    cols: _Columns,
    sch: RatingsSchema,
    keys: dict[str, pd.Series],
    ori: _corpora.Origins,
    lo: np.ndarray,
    hi: np.ndarray,
    widened: int,
    decimal: str,
) -> pd.DataFrame:
    # one frame from all its columns: inserting them one by one is quadratic in their number
    columns = {"expert": keys[cols.rater], "origin": ori.values}
    columns.update({key: keys[key] for key in cols.categories})
    columns.update(low=lo, high=hi, line=table.lines)
    out = pd.DataFrame({k: pd.Series(v).reset_index(drop=True) for k, v in columns.items()})
    read = dict(table.info)
    if read.get("format") != "dataframe":
        read["decimal"] = decimal
    spelt = {"expert": cols.names[cols.rater], **{k: cols.names[k] for k in cols.categories}}
    queries = list(ori.queries)
    out.attrs["rrmap"] = {
        "source": table.source,
        "headers": spelt,
        "schema": sch.to_dict(),
        "reference": sch.reference,
        "query": queries[0] if len(queries) == 1 else queries,
        "queries": queries,
        "categories": list(cols.categories),
        "n_rows": len(out),
        "widened": widened,
        "excluded": dict(ori.excluded),
        "read": read,
    }
    return out


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
