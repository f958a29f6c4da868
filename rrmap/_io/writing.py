"""Writing tables: every CSV rrmap writes (one path), and Parquet.

Every CSV file and CSV text rrmap writes — points, the analysis tables, rank and
judge outputs — comes from :func:`write_csv` or :func:`csv_text`, so that one
rule holds for all of them:

- a text cell holding the separator, a double quote, a line feed or a carriage
  return is quoted (Python's :mod:`csv` and pandas' ``to_csv`` leave a bare
  carriage return unquoted when rows end with a line feed: pandas, Excel and
  the :mod:`csv` module then read a new row there);
- unless *raw*, a text cell (or column name) that a spreadsheet would run as a
  formula gets a ``'`` before each place one would start — its first character
  and the first after any line break inside it
  (:func:`rrmap._util.escape.spreadsheet_cell`); numbers are never changed;
- half a surrogate pair (which UTF-8 cannot hold) is written as U+FFFD.

Otherwise the text is pandas' ``to_csv(index=False)``, rows ended by a line
feed, written faster: pandas formats floats through numpy's ``astype(str)``,
about a microsecond per value (a million RRMap points, a dozen float columns,
took 13 s); Python's ``repr`` gives the same shortest round-trip text in half
the time, and each distinct value — a repeated float, a label — is formatted and
quoted once. Rows are written in chunks, so the whole text is never held in
memory. With pyarrow installed (the ``parquet`` extra) the rows are assembled
by Arrow: each column becomes an Arrow string array (distinct values gathered
with ``take``), the columns are joined element by element, and the chunk's text
is written straight from Arrow's buffer. For large tables, Parquet
(:func:`write_parquet`) is faster still.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import numpy as np
import pandas as pd

from rrmap._util.escape import LINE_BREAKS, SPREADSHEET_TRIGGERS, spreadsheet_cell
from rrmap.errors import InputError

#: Rows formatted and written at a time.
CHUNK_ROWS = 100_000
#: Field separators a table may be written with.
SEPARATORS = (",", ";", "\t", "|")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _re2_class(chars: str) -> str:
    """A character class of *chars* for RE2 (Arrow's regular expressions), each as ``\\x{…}``."""
    return "[" + "".join(f"\\x{{{ord(c):x}}}" for c in chars) + "]"


class _Field:
    """The CSV field of one text value (see the module); :attr:`changes` (RE2) matches every
    text whose field is not the text itself."""

    def __init__(self, raw: bool, sep: str) -> None:
        self.raw = raw
        self._special = re.compile(f'[{re.escape(sep)}"\r\n]')
        quoted = _re2_class(sep + '"\r\n')
        formula = f"(?:^|{_re2_class(LINE_BREAKS)}){_re2_class(''.join(SPREADSHEET_TRIGGERS))}"
        self.changes = quoted if raw else f"{quoted}|{formula}"

    def __call__(self, value: object) -> str:
        text = value if isinstance(value, str) else str(value)
        if not self.raw:
            text = spreadsheet_cell(text) if isinstance(value, str) else text
        if _SURROGATE.search(text):
            text = _SURROGATE.sub("\ufffd", text)
        if self._special.search(text):
            return '"' + text.replace('"', '""') + '"'
        return text


def _number_column(col: pd.Series) -> bool:
    """A numpy integer or float64 column (other numbers, e.g. float32, as the text of each
    value, as pandas writes them)."""
    dtype = col.dtype
    return isinstance(dtype, np.dtype) and (dtype.kind in "iu" or dtype == np.float64)


def _number_text(col: pd.Series) -> list[str]:
    """The CSV text of a numpy float or integer column (missing values empty)."""
    if col.dtype.kind in "iu":
        return [str(v) for v in col.to_numpy().tolist()]
    values = col.to_numpy(dtype=float)
    # distinct bit patterns, so that -0.0 and 0.0 keep their own text
    uniq, inverse = np.unique(values.view(np.int64), return_inverse=True)
    if 2 * len(uniq) < len(values):  # ratings repeat (whole numbers): format each value once
        words = [repr(v) for v in uniq.view(np.float64).tolist()]
        text = [words[i] for i in inverse.tolist()]
    else:
        text = [repr(v) for v in values.tolist()]
    for i in np.flatnonzero(np.isnan(values)).tolist():
        text[i] = ""
    return text


def _text_words(col: pd.Series, field: Callable[[object], str]) -> tuple[np.ndarray, list[str]]:
    """Codes into the fields of a column's distinct values; a missing value is the last."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        codes = col.cat.codes.to_numpy()
        distinct = col.cat.categories.tolist()
    else:
        values = col
        if col.dtype == object:  # every value as text first: 1, 1.0 and True stay apart
            missing = pd.isna(col).to_numpy()
            texts = [v if isinstance(v, str) else str(v) for v in col.tolist()]
            values = pd.Series(np.array(texts, dtype=object)).where(~missing, None)
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
        # numpy scalars print as pandas writes them (float32 0.1 as 0.1, not 0.100000001…)
        distinct = list(np.asarray(uniques) if uniques.dtype.kind == "f" else uniques)
    words = [field(v) for v in distinct] + [""]
    return np.where(codes < 0, len(words) - 1, codes).astype(np.int64), words


def _single(words: list[str]) -> list[str]:
    """A row of one empty field is written ``""`` (an empty line would be no row)."""
    return ['""' if w == "" else w for w in words]


def write_csv(
    df: pd.DataFrame,
    target: str | os.PathLike[str] | TextIO,
    chunk_rows: int = CHUNK_ROWS,
    *,
    raw: bool = False,
    sep: str = ",",
) -> None:
    r"""Write *df* as CSV without its index (see the module for what is quoted and
    neutralised).

    Parameters
    ----------
    df : DataFrame
    target : path or text stream
    chunk_rows : int
        Rows formatted at a time (bounds the memory).
    raw : bool, default False
        Write text cells as they are (for programs), not spreadsheet-safe.
    sep : {",", ";", "\t", "|"}
        Field separator.

    Examples
    --------
    >>> import io, pandas as pd
    >>> buf = io.StringIO()
    >>> write_csv(pd.DataFrame({"a": [0.1, None], "b": ["x,y", "ok\r=1+1"]}), buf)
    >>> print(repr(buf.getvalue()))
    'a,b\n0.1,"x,y"\n,"ok\r\'=1+1"\n'
    """
    if sep not in SEPARATORS:
        raise ValueError(f"sep must be one of {SEPARATORS!r}, not {sep!r}")
    if hasattr(target, "write"):
        _write(df, target, chunk_rows, raw, sep)  # type: ignore[arg-type]
        return
    with open(target, "w", encoding="utf-8", newline="") as fh:
        _write(df, fh, chunk_rows, raw, sep)


def _write(df: pd.DataFrame, fh: TextIO, chunk_rows: int, raw: bool, sep: str) -> None:
    if df.attrs:  # every column taken from a frame deep-copies its attrs: once, not per column
        df = pd.DataFrame(df, copy=False)
        df.attrs = {}
    field = _Field(raw, sep)
    names = [field(str(c)) for c in df.columns]
    fh.write(sep.join(_single(names) if len(names) == 1 else names) + "\n")
    if df.shape[1] == 0:
        fh.write("\n" * len(df))
        return
    arrow = df.shape[1] >= 2 and _has_pyarrow()
    for start in range(0, len(df), chunk_rows):
        part = df.iloc[start : start + chunk_rows]
        fh.write(_arrow_chunk(part, field, sep) if arrow else _chunk(part, field, sep))


def _chunk(part: pd.DataFrame, field: Callable[[object], str], sep: str) -> str:
    """The CSV text of some rows, assembled in Python."""
    columns = []
    for c in part.columns:
        col = part[c]
        if _number_column(col):
            columns.append(_number_text(col))
            continue
        codes, words = _text_words(col, field)
        words = _single(words) if part.shape[1] == 1 else words
        columns.append([words[i] for i in codes.tolist()])
    return "".join(sep.join(row) + "\n" for row in zip(*columns, strict=True))


def _has_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return False
    return True


def _arrow_text(col: pd.Series, field: Callable[[object], str]):
    """One column's CSV fields as an Arrow string array."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if _number_column(col) and col.dtype.kind in "iu":
        return pc.cast(pa.array(col.to_numpy()), pa.string())  # str(int) of every value
    if _number_column(col):
        values = col.to_numpy(dtype=float)
        uniq, inverse = np.unique(values.view(np.int64), return_inverse=True)
        words = pa.array([repr(v) for v in uniq.view(np.float64).tolist()], pa.string())
        text = words.take(pa.array(inverse.astype(np.int64)))
        missing = np.isnan(values)
        if missing.any():
            text = pc.if_else(pa.array(missing), "", text)
        return text
    fields = _arrow_fields(col, field)
    if fields is not None:
        return fields
    codes, words = _text_words(col, field)
    return pa.array(words, pa.string()).take(pa.array(codes))


def _arrow_fields(col: pd.Series, field: Callable[[object], str]):
    """The fields of an Arrow-backed text column, or None for any other column: its distinct
    values stay in Arrow, and only those a spreadsheet or CSV quoting would change (found
    by one vectorised match) go through *field*; the others are their own field, so the
    text is that of :func:`_text_words`. A column of a million distinct keys took 1M calls
    of *field* and as many Python strings."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not isinstance(field, _Field) or not _arrow_strings(col):
        return None
    codes, uniques = pd.factorize(col, use_na_sentinel=True)
    distinct = pa.array(uniques)
    changed = pc.match_substring_regex(distinct, field.changes).fill_null(False)
    if pc.any(changed).as_py():
        picked = distinct.filter(changed).to_pylist()
        fields = pa.array([field(v) for v in picked], distinct.type)
        distinct = pc.replace_with_mask(distinct, changed, fields)
    distinct = pa.concat_arrays([distinct.cast(pa.string()), pa.array([""], pa.string())])
    return distinct.take(pa.array(np.where(codes < 0, len(distinct) - 1, codes)))


def _arrow_strings(col: pd.Series) -> bool:
    """Whether a text column's values are held by Arrow (pandas' ``str``/``string[pyarrow]``
    or an ``ArrowDtype`` of strings)."""
    dtype = col.dtype
    if isinstance(dtype, pd.ArrowDtype):
        import pyarrow as pa

        return pa.types.is_string(dtype.pyarrow_dtype) or pa.types.is_large_string(
            dtype.pyarrow_dtype
        )
    return getattr(dtype, "storage", None) == "pyarrow"


def _arrow_chunk(part: pd.DataFrame, field: Callable[[object], str], sep: str) -> str:
    """The CSV text of some rows, assembled by Arrow."""
    import pyarrow as pa
    import pyarrow.compute as pc

    rows = pc.binary_join_element_wise(*(_arrow_text(part[c], field) for c in part.columns), sep)
    lines = pc.binary_join_element_wise(rows, "", "\n")  # each row followed by a line feed
    if isinstance(lines, pa.ChunkedArray):
        lines = lines.combine_chunks()
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32)
    first, last = offsets[lines.offset], offsets[lines.offset + len(lines)]
    return memoryview(lines.buffers()[2])[first:last].tobytes().decode("utf-8")


def csv_text(df: pd.DataFrame, *, raw: bool = False, sep: str = ",") -> str:
    """:func:`write_csv` into a string.

    Examples
    --------
    >>> print(csv_text(pd.DataFrame({"who": ["=1+1", "E2"], "n": [-1, 2]})), end="")
    who,n
    '=1+1,-1
    E2,2
    """
    buf = io.StringIO()
    write_csv(df, buf, raw=raw, sep=sep)
    return buf.getvalue()


def write_parquet(df: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write *df* as Parquet (pyarrow, from the ``parquet`` extra); ``attrs`` go in its metadata.

    Raises
    ------
    InputError
        pyarrow is not installed.
    """
    if not _has_pyarrow():
        raise InputError("Parquet output needs pyarrow: pip install 'rrmap[parquet]'")
    # categories as text; the other columns are shared, not copied
    categorical = [c for c in df.columns if isinstance(df[c].dtype, pd.CategoricalDtype)]
    out = df.assign(**{c: df[c].astype(str) for c in categorical})
    out.attrs = df.attrs
    out.to_parquet(Path(path), index=False)
