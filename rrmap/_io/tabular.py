"""Reading a table the way users export it (docs/ratings.md, "Files rrmap reads").

Text files (CSV, TSV, TXT) in any common encoding, separator and quoting, and
spreadsheets (``.xlsx``, ``.xlsm``, ``.xls``, ``.ods``, read with
python-calamine). Every cell comes back as text, as the file shows it; the
caller parses numbers (the decimal mark is detected from the numbers
themselves, see :func:`detect_decimal`). Row numbers are where the records are
in the file: physical lines of a text file (header = line 1 when it is the
first line), rows of a sheet.

Nothing is dropped silently: empty lines and empty trailing columns are
counted in :attr:`Table.info`, and every record whose number of fields differs
from the header's is an error naming its lines.
"""

from __future__ import annotations

import csv
import io
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rrmap._io.encodings import ENCODING_NAMES as _ENCODING_NAMES
from rrmap._io.encodings import decode_text as _decode
from rrmap._io.reading_limits import (
    MAX_LINE_BYTES,
    STDIN,
    Source,
    check_archive,
    check_line_lengths,
    field_limit,
    limit_text,
    nul_problem,
    read_source,
    reading_limit,
)
from rrmap._io.sheet_extent import check_sheet_extent, check_workbook_extent
from rrmap._util.escape import message_text, quoted_list
from rrmap.errors import RatingsError

__all__ = ["Table", "describe_reading", "detect_decimal", "read_table"]

#: Extensions read as spreadsheets (any other file is read as text, unless its
#: content is a spreadsheet).
SHEET_SUFFIXES = (".xlsx", ".xlsm", ".xlsb", ".xls", ".ods")

#: Separators tried, in order of preference when the header is ambiguous.
_SEPARATORS = (",", ";", "\t", "|")
_SEP_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}

#: How many line numbers one problem lists before summarising.
_MAX_LISTED = 30

# a number written with a decimal comma / a decimal point (an optional exponent)
_DEC_COMMA = re.compile(r"^[+-]?\d*,\d+(?:[eE][+-]?\d+)?$")
_DEC_POINT = re.compile(r"^[+-]?\d*\.\d+(?:[eE][+-]?\d+)?$")
_INTEGER = re.compile(r"^[+-]?\d+$")
_THOUSANDS = re.compile(r"^[+-]?\d{1,3},\d{3}$")
# UTF-8 text that was decoded as Windows-1252 and saved again ("MÃ¼nter"): the lead
# byte of a two-byte sequence followed by what cp1252 makes of a continuation byte
_CONTINUATION = bytes(range(0x80, 0xC0)).decode("cp1252", errors="ignore")
_MOJIBAKE = re.compile(f"[\u00c2\u00c3][{re.escape(_CONTINUATION)}]|\u00e2\u20ac")


@dataclass
class Table:
    """A table as read from a file, every cell as text.

    Attributes
    ----------
    header : list of str
        Header cells, stripped, as the file spells them.
    cells : DataFrame
        One column per header cell (positional labels 0, 1, …), one row per
        non-empty record, every cell a stripped ``str``.
    lines : ndarray of int
        Where each row is in the file: a physical line of a text file, a
        row of a sheet (both counted from 1).
    source : str
        The file name, with the sheet for a workbook.
    unit : str
        ``"line"`` (text) or ``"row"`` (sheet): how :attr:`lines` are named.
    info : dict
        How the file was read: ``format``, ``encoding``, ``sep``, ``sheet``,
        ``empty_lines`` (skipped empty records), ``dropped_columns`` (empty
        columns without a header, e.g. from trailing separators) and notes.
    """

    header: list[str]
    cells: pd.DataFrame
    lines: np.ndarray
    source: str
    unit: str
    info: dict[str, Any] = field(default_factory=dict)


def _shown(value: object) -> str:
    """*value* quoted for a message: escaped and cut by :func:`message_text`."""
    return repr(message_text(value))


def _listing(numbers, unit: str) -> str:
    nums = [int(n) for n in numbers]
    shown = ", ".join(str(n) for n in nums[:_MAX_LISTED])
    more = f" … and {len(nums) - _MAX_LISTED} more ({len(nums)} in all)" if len(nums) > 30 else ""
    return f"{unit}{'s' if len(nums) != 1 else ''} {shown}{more}"


# --- text files ---------------------------------------------------------------


def _first_line(text: str) -> tuple[int, str]:
    """Index (0-based) and content of the first non-blank physical line."""
    for i, line in enumerate(text.split("\n", 200)[:200]):
        if line.strip().strip("".join(_SEPARATORS)):
            return i, line.rstrip("\r")
    return 0, ""


def _sniff_sep(text: str, start: int) -> str:
    """The separator that splits the header line into the most fields.

    A tie is broken by the next lines: the separator that gives them the
    header's number of fields wins; then the order , ; tab |.
    """
    lines = [ln.rstrip("\r") for ln in text.split("\n", start + 60)[start : start + 60]]
    header, sample = lines[0], [ln for ln in lines[1:] if ln.strip()]

    def nfields(line: str, sep: str) -> int:
        return len(next(csv.reader([line], delimiter=sep), []))

    counts = {sep: nfields(header, sep) for sep in _SEPARATORS}
    top = max(counts.values())
    tied = [sep for sep in _SEPARATORS if counts[sep] == top]
    if len(tied) > 1 and top > 1:

        def agreement(sep: str) -> int:
            return sum(nfields(line, sep) == top for line in sample)

        tied.sort(key=lambda s: -agreement(s))
    return tied[0]


def _layout_fast(encoded: bytes, sep: str) -> tuple[np.ndarray, np.ndarray]:
    """Line number and field count of every record of a text without quotes (UTF-8 bytes)."""
    data = np.frombuffer(encoded, dtype=np.uint8)
    newlines = np.flatnonzero(data == 10)
    seps = np.flatnonzero(data == ord(sep))
    ends = newlines
    if len(data) and data[-1] != 10:
        ends = np.append(newlines, len(data))
    counts = np.diff(np.searchsorted(seps, ends), prepend=0) + 1
    return np.arange(1, len(ends) + 1), counts


def _layout_csv(text: str, sep: str, source: str) -> tuple[np.ndarray, np.ndarray]:
    """Line number and field count of every record, quoted fields understood."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep, strict=True)
    lines, counts = [], []
    start = 1
    try:
        with field_limit():
            for row in reader:
                lines.append(start)
                counts.append(max(len(row), 1))
                start = reader.line_num + 1
    except csv.Error as exc:
        if "field limit" in str(exc):
            raise RatingsError(
                source,
                [
                    f"line {start}: a field longer than {MAX_LINE_BYTES:,} characters, more "
                    "than rrmap reads in one field (MAX_LINE_BYTES): a quote that is never "
                    "closed?"
                ],
            ) from None
        raise RatingsError(
            source,
            [
                f"not a readable table: line {start}: {exc} (a quote that is never closed? "
                'quote characters inside a field are written twice: "")'
            ],
        ) from None
    return np.asarray(lines, dtype=np.int64), np.asarray(counts, dtype=np.int64)


def _parse_text(encoded: bytes, sep: str, ncols: int) -> pd.DataFrame:
    # UTF-8 bytes, not a StringIO: that holds four bytes per character
    return pd.read_csv(
        io.BytesIO(encoded),
        encoding="utf-8",
        sep=sep,
        header=None,
        names=range(ncols),
        index_col=False,
        dtype=str,
        keep_default_na=False,
        na_filter=False,
        skip_blank_lines=False,
        engine="c",
    )


def _parse_csv_module(text: str, sep: str, ncols: int) -> pd.DataFrame:
    with field_limit():
        rows = [
            r + [""] * (ncols - len(r))
            for r in csv.reader(io.StringIO(text, newline=""), delimiter=sep)
        ]
    return pd.DataFrame(rows, columns=range(ncols), dtype=object)


def _padded(text: str, sep: str, encoded: bytes | None = None) -> bool:
    """Whether some field may start or end with blanks (then every cell is stripped).

    One vectorised pass over the bytes when the separator is ASCII (blanks,
    separators, line ends and quotes are single bytes in UTF-8), a few
    substring searches otherwise.
    """
    blanks = " " if sep == "\t" else " \t"
    edges = (sep, "\n", "\r", '"')
    if text[:1] in blanks or text[-1:] in blanks:
        return True
    if ord(sep) < 128:
        data = text.encode("utf-8") if encoded is None else encoded
        return _padded_bytes(np.frombuffer(data, dtype=np.uint8), blanks, edges)
    return any(b + e in text or e + b in text for b in blanks for e in edges)


def _padded_bytes(data: np.ndarray, blanks: str, edges: tuple[str, ...]) -> bool:
    """A blank byte beside an edge byte, in blocks of 16 MB (bounded temporaries)."""
    is_blank = np.zeros(256, dtype=bool)
    is_blank[[ord(b) for b in blanks]] = True
    is_edge = np.zeros(256, dtype=bool)
    is_edge[[ord(e) for e in edges]] = True
    step = 1 << 24
    for start in range(0, len(data), step):
        block = data[start : start + step + 1]  # one byte of overlap joins the blocks
        blank = is_blank[block]
        edge = is_edge[block]
        if (blank[:-1] & edge[1:]).any() or (edge[:-1] & blank[1:]).any():
            return True
    return False


def _read_text(path: Path, src: Source, sep: str | None, encoding: str | None) -> Table:
    """A text table. Its bytes and then its text are let go as soon as they are read:
    a million-row file is held once, not three times, while pandas parses it."""
    raw, src.data = src.data or b"", None
    text, enc, info = _decode(path, raw, encoding)
    if "\x00" in text:
        raise RatingsError(str(path), [nul_problem(raw, enc, text) or ""])
    del raw
    if "\r" in text and "\n" not in text:  # classic Mac line ends
        text = text.replace("\r", "\n")
    encoded = text.encode("utf-8")  # once, for the layout, the blank scan and pandas
    check_line_lengths(encoded, str(path))
    skip = 0
    first_i, first = _first_line(text)
    declared = re.fullmatch(r"\s*sep=(.)\s*", first)
    if declared:  # Excel's "sep=;" line
        sep = sep or declared.group(1)
        skip = first_i + 1
        first_i, _ = _first_line("\n".join(text.split("\n")[skip:]))
        first_i += skip
    if sep is not None and len(sep) != 1:
        raise RatingsError(str(path), [f"the separator must be one character, got {_shown(sep)}"])
    sep_detected = sep is None
    if sep is None:
        with field_limit():
            sep = _sniff_sep(text, first_i)
    if '"' in text:
        lines, counts = _layout_csv(text, sep, str(path))
    else:
        lines, counts = _layout_fast(encoded, sep)
    ncols = int(counts.max(initial=1))
    _check_width(str(path), ncols, lambda: f"line {int(lines[np.argmax(counts)])} has", sep)
    info.update(
        format="text",
        encoding=enc,
        sep=sep,
        sep_detected=sep_detected,
        sep_declared=bool(declared),
        padded=_padded(text, sep, encoded),
        mojibake_suspect=enc in ("utf-8", "utf-8-sig")
        and ("\u00c3" in text or "\u00c2" in text or "\u00e2\u20ac" in text)
        and _MOJIBAKE.search(text) is not None,
    )
    try:
        cells = _parse_text(encoded, sep, ncols)
    except pd.errors.ParserError:
        cells = _parse_csv_module(text, sep, ncols)
    if len(cells) != len(lines):  # quoting the fast parser reads differently
        lines, counts = _layout_csv(text, sep, str(path))
        cells = _parse_csv_module(text, sep, int(counts.max(initial=1)))
    del text, encoded
    if skip:  # lines before an Excel "sep=" line
        keep = lines > skip
        cells, lines, counts = cells[keep], lines[keep], counts[keep]
    return _tidy(path, str(path), "line", cells, lines, counts, info)


def _check_width(source: str, ncols: int, where: Any, sep: str | None = None) -> None:
    """Refuse a table of more than ``MAX_COLUMNS`` columns before its cells are parsed;
    *where* names the widest record (a function that says it, for a text file)."""
    limit = reading_limit("MAX_COLUMNS")
    if ncols > limit:
        where = where() if callable(where) else where
        kind = f" ({_SEP_NAMES.get(sep, repr(sep))}-separated)" if sep else ""
        raise RatingsError(
            source,
            [
                f"{where} {ncols:,} {'fields' if sep else 'columns'}{kind}, more than rrmap "
                f"reads in one table ({limit_text('MAX_COLUMNS', limit)}): a table of "
                "ratings has a column per variable, one row per rating"
            ],
        )


# --- spreadsheets --------------------------------------------------------------


def _cell_text(value: Any) -> str:
    """A sheet cell as a CSV export shows it (numbers to 15 significant digits)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not np.isfinite(value):
            return str(value)
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.15g}"
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def _pick_sheet(path: Path, names: list[str], sheet: str | int | None) -> str:
    if sheet is None:
        return names[0]
    if isinstance(sheet, int) or (
        isinstance(sheet, str) and sheet.isdigit() and sheet not in names
    ):
        i = int(sheet)
        if 1 <= i <= len(names):
            return names[i - 1]
    elif sheet in names:
        return sheet
    listed = ", ".join(f"{i + 1}: {_shown(n)}" for i, n in enumerate(names[:_MAX_LISTED]))
    more = f" … and {len(names) - _MAX_LISTED} more" if len(names) > _MAX_LISTED else ""
    raise RatingsError(str(path), [f"no sheet {_shown(sheet)}; the workbook has {listed}{more}"])


def _read_sheet(path: Path, sheet: str | int | None, data: bytes | None = None) -> Table:
    import python_calamine

    workbook = path if data is None else data
    # the grids the reader builds are bounded before they are built (a 7 kB file can ask
    # for 512 GiB); .ods and .xls sheets are all built on opening
    tables = check_workbook_extent(workbook, str(path))
    try:
        book = (
            python_calamine.CalamineWorkbook.from_path(str(path))
            if data is None  # a pipe's workbook, read once, from memory
            else python_calamine.CalamineWorkbook.from_filelike(io.BytesIO(data))
        )
        names = list(book.sheet_names)
        if not names:
            raise RatingsError(str(path), ["the workbook has no sheets"])
        name = _pick_sheet(path, names, sheet)
        check_sheet_extent(workbook, name, names.index(name), str(path), tables)
        values = book.get_sheet_by_name(name).to_python(skip_empty_area=False)
    except python_calamine.CalamineError as exc:
        raise RatingsError(str(path), [f"not a readable spreadsheet ({exc})"]) from None
    width = max((len(r) for r in values), default=0)
    _check_width(str(path), width, f"sheet {_shown(name)} has")
    rows = [[_cell_text(v).strip() for v in r] + [""] * (width - len(r)) for r in values]
    cells = pd.DataFrame(rows, columns=range(width), dtype=object)
    lines = np.arange(1, len(rows) + 1)
    counts = np.full(len(rows), width)
    others = [n for n in names if n != name]
    info = {"format": "sheet", "sheet": name, "other_sheets": others, "padded": False}
    shown = f"{path}, sheet {_shown(name)}"
    source = shown if len(names) > 1 or sheet is not None else str(path)
    try:
        return _tidy(path, source, "row", cells, lines, counts, info)
    except RatingsError as exc:
        if not others:
            raise
        hint = f" (the workbook has other sheets: {quoted_list(others)}; --sheet)"
        raise RatingsError(source, [*exc.problems[:-1], exc.problems[-1] + hint]) from None


# --- common checks --------------------------------------------------------------


def _tidy(
    path: Path,
    source: str,
    unit: str,
    cells: pd.DataFrame,
    lines: np.ndarray,
    counts: np.ndarray,
    info: dict[str, Any],
) -> Table:
    """Header, empty records, trailing separators and field counts, checked."""
    stripped = cells.reset_index(drop=True)
    if info.pop("padded", True):
        stripped = stripped.apply(lambda c: c.astype(str).str.strip())
    blank = (stripped == "").all(axis=1).to_numpy()
    if blank.all():
        raise RatingsError(source, ["the file is empty (no header line)"])
    first = int(np.argmax(~blank))
    header = stripped.iloc[first].tolist()
    n_header = len(header)
    while n_header and header[n_header - 1] == "":  # trailing separators on the header line
        n_header -= 1
    body = ~blank & (np.arange(len(blank)) > first)
    if body[first + 1 :].all():  # no blank record after the header: a slice, not a copy
        data = stripped.iloc[first + 1 :].reset_index(drop=True)
    else:
        data = stripped.loc[body].reset_index(drop=True)
    data_lines, data_counts = lines[body], counts[body]
    problems: list[str] = []

    # fields after the header's last named one are trailing separators while they are empty
    beyond = data.iloc[:, n_header:]
    overfull = (
        (beyond != "").any(axis=1).to_numpy() if beyond.shape[1] else np.zeros(len(data), bool)
    )
    short = data_counts < n_header if unit == "line" else np.zeros(len(data), bool)
    if overfull.any() or short.any():
        problems.append(
            _field_count_problem(
                data, data_lines, data_counts, n_header, overfull | short, info, unit
            )
        )
    dropped = int(beyond.shape[1] > 0)
    header, data = header[:n_header], data.iloc[:, :n_header]

    keep = []
    for i, name in enumerate(header):
        if name:
            keep.append(i)
            continue
        filled = (data.iloc[:, i] != "").to_numpy()
        if not filled.any():
            dropped += 1
            continue
        hint = ""
        nums = pd.to_numeric(data.iloc[:, i], errors="coerce").to_numpy()
        if np.isfinite(nums).all() and (np.diff(nums) == 1).all():
            hint = " (row numbers, as pandas' to_csv writes them? remove the column)"
        problems.append(
            f"column {_column_name(i, unit)} has no header but holds values "
            f"on {_listing(data_lines[filled], unit)}{hint}"
        )
    if not len(data) and not problems:
        problems.append("the file has a header line and no rows of data")
    if problems:
        raise RatingsError(source, problems)
    data = data.iloc[:, keep]
    data.columns = range(len(keep))
    info.update(
        empty_lines=[int(n) for n in lines[blank & (np.arange(len(blank)) > first)]],
        dropped_columns=dropped,
        header_at=int(lines[first]),
    )
    header = [header[i] for i in keep]
    if info.pop("mojibake_suspect", False):
        _check_mojibake(data, header, data_lines, info)
    return Table(header, data, np.asarray(data_lines, dtype=np.int64), source, unit, info)


def _column_name(i: int, unit: str) -> str:
    """A column's position, with its letter in a sheet (1 → ``1 (A)``)."""
    if unit != "row":
        return str(i + 1)
    letters, n = "", i + 1
    while n:
        n, r = divmod(n - 1, 26)
        letters = chr(65 + r) + letters
    return f"{i + 1} ({letters})"


def _field_count_problem(
    data: pd.DataFrame,
    lines: np.ndarray,
    counts: np.ndarray,
    n_header: int,
    wrong: np.ndarray,
    info: dict,
    unit: str,
) -> str:
    """One message for every record whose number of fields differs from the header's."""
    if unit == "row":
        return f"values beyond the last named column, on {_listing(lines[wrong], unit)}"
    parts = []
    for n in sorted(set(counts[wrong].tolist())):
        parts.append(f"{n} fields on {_listing(lines[wrong & (counts == n)], unit)}")
    sep = info.get("sep", ",")
    msg = (
        f"the header has {n_header} fields ({_SEP_NAMES.get(sep, repr(sep))}-separated) but "
        + "; ".join(parts)
    )
    over = wrong & (counts > n_header)
    if sep == "," and over.any():
        # a number written with a decimal comma and not quoted becomes two fields
        for pos in np.flatnonzero(over)[:50]:
            row = data.iloc[pos].tolist()
            split = [
                i for i in range(len(row) - 1) if _INTEGER.match(row[i]) and row[i + 1].isdigit()
            ]
            if split:
                i = split[0]
                msg += (
                    f": unquoted decimal commas split numbers in two ({unit} {int(lines[pos])}: "
                    f"{message_text(row[i])},{message_text(row[i + 1])}?) — export with ';' as "
                    "the separator, quote the "
                    "numbers, or write decimal points"
                )
                break
    return msg


def _check_mojibake(data: pd.DataFrame, header: list[str], lines: np.ndarray, info: dict) -> None:
    for j, name in enumerate(header):
        col = data.iloc[:, j]
        hits = col.str.contains(_MOJIBAKE, regex=True)
        if hits.any():
            i = int(np.argmax(hits.to_numpy()))
            info.setdefault("mojibake", []).append(
                f"column {_shown(name)} holds {_shown(col.iloc[i])} (line {int(lines[i])})"
            )


# --- entry point ----------------------------------------------------------------


def read_table(
    path: str | os.PathLike[str],
    *,
    sep: str | None = None,
    encoding: str | None = None,
    sheet: str | int | None = None,
) -> Table:
    """Read a text or spreadsheet table, every cell as stripped text.

    Parameters
    ----------
    path : path
        A text file (any extension; comma, semicolon, tab or pipe separated)
        or a spreadsheet (``.xlsx``, ``.xlsm``, ``.xls``, ``.ods``; also
        recognised by content).
    sep : str, optional
        Field separator of a text file (default: detected from the header).
    encoding : str, optional
        Encoding of a text file (default: detected — a byte-order mark,
        UTF-8, else the code page, Windows-1252 or Mac Roman, whose letters
        read best).
    sheet : str or int, optional
        Sheet of a workbook, by name or by 1-based position (default: the first).

    Returns
    -------
    Table

    Raises
    ------
    RatingsError
        Listing what cannot be read, with line numbers.
    FileNotFoundError, IsADirectoryError

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.csv"
    >>> _ = p.write_bytes("expert;low\\n\\nE1;40,5\\n".encode("cp1252"))
    >>> t = read_table(p)
    >>> t.header, t.cells.values.tolist(), t.lines.tolist(), t.info["sep"]
    (['expert', 'low'], [['E1', '40,5']], [3], ';')
    """
    path = Path(STDIN if str(path) == "-" else path)
    if str(path) == STDIN:
        pass  # standard input: read once, like a pipe
    elif not path.exists():
        raise FileNotFoundError(2, "no such file", str(path))
    elif path.is_dir():
        raise IsADirectoryError(21, "is a directory, expected a ratings file", str(path))
    src = read_source(path, str(path), path.suffix.lower() in SHEET_SUFFIXES, encoding)
    if src.sheet:
        given = [
            f"{k}={_shown(v)}" for k, v in (("sep", sep), ("encoding", encoding)) if v is not None
        ]
        if given:
            raise RatingsError(
                str(path),
                [f"{', '.join(given)}: only for text files; {path.name} is a spreadsheet"],
            )
        check_archive(src, path, str(path))
        return _read_sheet(path, sheet, src.data)
    if sheet is not None:
        raise RatingsError(
            str(path),
            [f"sheet={_shown(sheet)}: only for spreadsheets; {path.name} is a text file"],
        )
    return _read_text(path, src, sep, encoding)


def detect_decimal(
    columns: dict[str, pd.Series],
    lines: np.ndarray,
    unit: str,
    parsed: dict[str, np.ndarray] | None = None,
) -> tuple[str, str | None]:
    """The decimal mark of numeric text columns, decided from the numbers themselves.

    ``","`` when some values are written like ``40,5`` and none like
    ``40.5``; ``"."`` otherwise — never guessed from the field separator.
    Values of both kinds is a problem, returned with an example of each; so
    is a column whose comma numbers all look like thousands (``1,250``).

    Parameters
    ----------
    columns : dict of str to Series
        Column name → text values (each as long as *lines*).
    lines, unit
        Where the rows are in the file, for the message.
    parsed : dict of str to ndarray, optional
        The columns already parsed with a decimal point (NaN where that
        fails), to save parsing them again.

    Returns
    -------
    mark : str
        ``","`` or ``"."``.
    problem : str or None
        Set when the mark cannot be decided.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> detect_decimal({"low": pd.Series(["40,5", "41"])}, np.array([2, 3]), "line")
    (',', None)
    """
    comma: tuple[str, str, int] | None = None
    point: tuple[str, str, int] | None = None
    thousands_only = True
    for name, col in columns.items():
        values = (parsed or {}).get(name)
        if values is None:
            values = pd.to_numeric(col, errors="coerce").to_numpy(dtype=float)
        if point is None:
            # a number that parses with a point and is not whole was written with one
            frac = np.isfinite(values) & (values != np.round(values))
            if frac.any():
                i = int(np.argmax(frac))
                point = (name, str(col.iloc[i]).strip(), int(lines[i]))
        failed = np.flatnonzero(np.isnan(values))
        if len(failed):
            text = col.iloc[failed].astype("string").str.strip()
            hits = text.str.match(_DEC_COMMA).to_numpy(dtype=bool, na_value=False)
            if hits.any():
                thousands_only &= bool(text[hits].str.match(_THOUSANDS).all())
                if comma is None:
                    i = int(np.argmax(hits))
                    comma = (name, str(text.iloc[i]), int(lines[failed[i]]))
    if comma and point:
        (cn, cv, cl), (pn, pv, pl) = comma, point
        return ",", (
            f"numbers are written with both decimal marks: {_shown(cv)} (column {_shown(cn)}, "
            f"{unit} {cl}) and {_shown(pv)} (column {_shown(pn)}, {unit} {pl}); pass decimal= "
            "(--decimal) to say which "
            "is the decimal mark"
        )
    if comma and thousands_only:
        cn, cv, cl = comma
        return ",", (
            f"{_shown(cv)} (column {_shown(cn)}, {unit} {cl}) and every other number with a "
            "comma has three "
            "digits after it: decimal commas or thousands separators? pass decimal= "
            "(--decimal) to say"
        )
    return ("," if comma else "."), None


def describe_reading(info: dict[str, Any], source: str, n_rows: int) -> str:
    """One line saying how a file was read (the command line prints it on stderr).

    Examples
    --------
    >>> print(describe_reading({"format": "text", "encoding": "cp1252", "sep": ";",
    ...                         "decimal": ",", "empty_lines": [4]}, "r.csv", 10))
    read r.csv: Windows-1252, semicolon-separated, decimal comma, 10 rows; 1 empty line skipped (4)
    """
    parts = []
    if info.get("format") == "sheet":
        parts.append(f"sheet {_shown(info.get('sheet'))}")
        if info.get("other_sheets"):
            parts[-1] += f" (others: {quoted_list(info['other_sheets'])}; --sheet)"
    else:
        enc = info.get("encoding", "utf-8")
        parts.append(_ENCODING_NAMES.get(enc, enc))
        sep = info.get("sep", ",")
        parts.append(f"{_SEP_NAMES.get(sep, repr(sep))}-separated")
    if info.get("decimal") == ",":
        parts.append("decimal comma")
    parts.append(f"{n_rows} rows")
    text = f"read {source}: " + ", ".join(parts)
    empty = info.get("empty_lines") or []
    if empty:
        shown = ", ".join(str(n) for n in empty[:10]) + (" …" if len(empty) > 10 else "")
        text += f"; {len(empty)} empty {'line' if len(empty) == 1 else 'lines'} skipped ({shown})"
    if info.get("dropped_columns"):
        n = info["dropped_columns"]
        text += f"; {n} empty unnamed column{'s' if n != 1 else ''} ignored (trailing separators)"
    return text
