"""How far a sheet reaches, read from its workbook's archive before any grid is built.

The spreadsheet reader (python-calamine) builds one dense grid from the sheet's first to
its farthest cell with a value, and rrmap then holds every cell of it as a Python object
from A1. A 7 kB ``.xlsx`` with one value at XFD1048576 asks for 17 billion cells (512 GiB:
the reader aborts the process). So the cells of the chosen sheet are scanned first, as
text from the archive, without building anything: the farthest row and column of a cell
with a value, for ``.xlsx``/``.xlsm`` (``<c r="…">`` and cells without a reference, as the
reader places them) and ``.ods`` (repeated rows and cells counted as repeated); ``.xls``
sheets are measured by :mod:`rrmap._io.xls_extent`. The ``<dimension ref=…>`` a sheet
declares is not used: the reader ignores it too, and it may claim less, or more, than the
cells hold. The readers of ``.ods`` and ``.xls`` build every sheet when they open the
workbook, so all of their sheets are measured before it is opened. An ``.xlsb`` sheet's
binary records are walked the same way (a row header, then cells that start with their
column).
"""

from __future__ import annotations

import html
import io
import posixpath
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO
from xml.etree import ElementTree

import numpy as np

from rrmap._io.reading_limits import limit_text, reading_limit
from rrmap._io.xls_extent import xls_extents
from rrmap.errors import RatingsError

__all__ = [
    "check_sheet_extent",
    "check_workbook_extent",
    "column_letters",
    "ods_extents",
    "sheet_extent",
]

#: Bytes of a sheet's XML read at a time.
_CHUNK = 8 * 1024**2
#: Bytes kept past a chunk's last tag so that what follows a tag is seen with it.
_AHEAD = 64
#: Bytes of a workbook's list of sheets (``xl/workbook.xml`` and its relations) read.
_INDEX_BYTES = 16 * 1024**2

_P = rb"(?:[A-Za-z_][\w.\-]*:)?"  # a namespace prefix
_PREFIXED_CELL = re.compile(rb"<[A-Za-z_][\w.\-]*:c[\s/>]")
#: Bytes that may follow a tag's name: blanks, ``/`` and ``>``.
_AFTER_NAME = np.zeros(256, dtype=bool)
_AFTER_NAME[list(b" \t\n\r/>")] = True
_TAG = re.compile(rb"<" + _P + rb"(row|c)(?=[\s/>])([^>]*)>")
_REF = re.compile(rb"(?:^|\s)r\s*=\s*[\"']\$?([A-Za-z]{1,3})\$?(\d+)[\"']")
_ROW_REF = re.compile(rb"(?:^|\s)r\s*=\s*[\"'](\d+)[\"']")
_CLOSE_CELL = re.compile(rb"\s*</" + _P + rb"c\s*>")

_ODS_TAG = re.compile(
    rb"<(/?)table:(table|table-row|table-cell|covered-table-cell)(?=[\s/>])([^>]*)>"
)
_ODS_NAME = re.compile(rb"table:name\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_ODS_ROWS = re.compile(rb"table:number-rows-repeated\s*=\s*[\"'](\d+)[\"']")
_ODS_COLS = re.compile(rb"table:number-columns-repeated\s*=\s*[\"'](\d+)[\"']")
_ODS_EMPTY = re.compile(rb"\s*</table:(?:table-cell|covered-table-cell)\s*>")

_REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
#: What a damaged archive raises here (the spreadsheet reader then says what is wrong).
_UNREADABLE = (
    zipfile.BadZipFile,
    OSError,
    ValueError,
    EOFError,
    KeyError,
    IndexError,
    ElementTree.ParseError,
)


def column_letters(n: int) -> str:
    """The letters of column *n* (1 → ``A``, 16,384 → ``XFD``).

    Examples
    --------
    >>> column_letters(1), column_letters(28), column_letters(16384)
    ('A', 'AB', 'XFD')
    """
    letters = ""
    while n:
        n, r = divmod(n - 1, 26)
        letters = chr(65 + r) + letters
    return letters


def _column_number(letters: bytes) -> int:
    n = 0
    for ch in letters.upper():
        n = n * 26 + ch - 64
    return n


def _chunks(stream: IO[bytes]) -> Iterator[tuple[bytes, int]]:
    """(text, cut) pieces of *stream*: tags that start before *cut* are whole in *text*,
    with at least :data:`_AHEAD` bytes after them; the rest comes again in the next piece."""
    carry = b""
    while True:
        data = stream.read(_CHUNK)
        buf = carry + data
        if not data:
            if buf:
                yield buf, len(buf)
            return
        cut = buf.rfind(b"<", 0, max(len(buf) - _AHEAD, 0))
        if cut <= 0:  # text without a tag is let go; one tag longer than a chunk is kept
            carry = buf if cut == 0 else buf[-_AHEAD:]
            continue
        yield buf, cut
        carry = buf[cut:]


# --- .xlsx, .xlsm -------------------------------------------------------------------------


def _xlsx_extent(stream: IO[bytes]) -> tuple[int, int] | None:
    """(rows, columns) from A1 to the farthest cell with a value, when every cell is
    written as spreadsheet programs write it (``<c r="B7"…``); ``None`` otherwise (a
    prefix, a cell without its reference: :func:`_xlsx_extent_walked` reads those)."""
    rows = cols = 0
    for buf, cut in _chunks(stream):
        found = _written_cells(buf, cut)
        if found is None:
            return None
        rows, cols = max(rows, found[0]), max(cols, found[1])
    return rows, cols


def _written_cells(buf: bytes, cut: int) -> tuple[int, int] | None:
    """:func:`_xlsx_extent` of the cells that start before *cut* in *buf*, found with array
    operations (no object per cell: a sheet of millions of cells is read in a second)."""
    if b":c" in buf and _PREFIXED_CELL.search(buf, 0, cut):
        return None
    a = np.frombuffer(buf + bytes(_AHEAD), dtype=np.uint8)
    tags = np.flatnonzero(a[:cut] == ord("<"))
    tags = tags[(a[tags + 1] == ord("c")) & _AFTER_NAME[a[tags + 2]]]
    if not all((a[tags + i] == ord(ch)).all() for i, ch in enumerate(' r="', 2)):
        return None  # a cell without its reference first
    start = tags + 6
    refs = _references(a[start[:, None] + np.arange(13)])
    if refs is None:
        return None
    ends = np.flatnonzero(a == ord(">"))
    if not len(ends):
        return None
    end = ends[np.minimum(np.searchsorted(ends, start), len(ends) - 1)]
    closed = a[end - 1] == ord("/")  # <c r="A1"/>
    at_once = np.ones(len(end), dtype=bool)  # <c r="A1"></c>
    for i, ch in enumerate("</c>", 1):
        at_once &= a[end + i] == ord(ch)
    value = ~(closed | at_once) | (end < start)  # a tag never closed counts
    if not value.any():
        return 0, 0
    return int(refs[1][value].max()), int(refs[0][value].max())


def _references(window: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Column and row numbers of references (``XFD1048576"``), one a row of *window*;
    ``None`` when one is not 1–3 capital letters, 1–9 digits and a quote."""
    letter = (window >= ord("A")) & (window <= ord("Z"))
    n_letters = np.argmin(letter, axis=1)
    rest = np.take_along_axis(window, n_letters[:, None] + np.arange(10), axis=1)
    digit = (rest >= ord("0")) & (rest <= ord("9"))
    n_digits = np.argmin(digit, axis=1)
    quote = np.take_along_axis(rest, n_digits[:, None], axis=1)[:, 0] == ord('"')
    if not ((n_letters >= 1) & (n_letters <= 3) & (n_digits >= 1) & quote).all():
        return None
    cols = np.zeros(len(window), dtype=np.int64)
    for k in range(3):
        cols = np.where(k < n_letters, cols * 26 + window[:, k] - ord("A") + 1, cols)
    rows = np.zeros(len(window), dtype=np.int64)
    for k in range(9):
        rows = np.where(k < n_digits, rows * 10 + rest[:, k] - ord("0"), rows)
    return cols, rows


def _xlsx_extent_walked(stream: IO[bytes]) -> tuple[int, int]:
    """:func:`_xlsx_extent` for cells without a reference: each follows the one before it
    in its row, and a row without one follows the row before it."""
    rows = cols = row = col = 0
    for buf, cut in _chunks(stream):
        for m in _TAG.finditer(buf):
            if m.start() >= cut:
                break
            attrs = m.group(2)
            if m.group(1) == b"row":
                ref = _ROW_REF.search(attrs)
                row, col = (int(ref.group(1)) if ref else row + 1), 0
                continue
            ref = _REF.search(attrs)
            if ref:
                col, at = _column_number(ref.group(1)), int(ref.group(2))
            else:
                col, at = col + 1, row
            if not attrs.endswith(b"/") and not _CLOSE_CELL.match(buf, m.end()):
                rows, cols = max(rows, at), max(cols, col)
    return rows, cols


def _xlsx_member(archive: zipfile.ZipFile, sheet: str, index: int) -> str | None:
    """The archive member of *sheet* (else of the *index*-th sheet), from the workbook's
    list of sheets and its relations."""
    try:
        book = ElementTree.fromstring(_read_small(archive, "xl/workbook.xml"))
        rels = ElementTree.fromstring(_read_small(archive, "xl/_rels/workbook.xml.rels"))
    except (KeyError, ElementTree.ParseError, ValueError):
        return None
    targets = {r.get("Id"): r.get("Target") or "" for r in rels.iter() if r.get("Id")}
    sheets = [s for s in book.iter() if s.tag.rsplit("}", 1)[-1] == "sheet"]
    chosen = [s for s in sheets if s.get("name") == sheet] or sheets[index : index + 1]
    if not chosen:
        return None
    target = targets.get(chosen[0].get(f"{{{_REL_NS}}}id"), "")
    path = target.lstrip("/") if target.startswith("/") else posixpath.join("xl", target)
    path = posixpath.normpath(path)
    return path if path in archive.NameToInfo else None


def _read_small(archive: zipfile.ZipFile, name: str) -> bytes:
    with archive.open(name) as fh:
        data = fh.read(_INDEX_BYTES + 1)
    if len(data) > _INDEX_BYTES:
        raise ValueError(f"{name} is over {_INDEX_BYTES} bytes")
    return data


# --- .xlsb -------------------------------------------------------------------------------

#: BIFF12 records: a row's header, the end of the cells; cells with a value (number, error,
#: boolean, real, string, shared string, formulas), each starting with its column.
_ROW_HEADER, _END_CELLS = 0x0000, 0x0092
_XLSB_CELLS = frozenset(range(0x0002, 0x000B))
_XLSB_SHEET, _XLSB_END_SHEETS = 0x009C, 0x0090


def _xlsb_records(stream: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    """(type, data) of every record: a type of one or two bytes, a length of up to four,
    7 bits each."""
    buf, pos = b"", 0
    while True:
        if len(buf) - pos < 16:
            buf, pos = buf[pos:] + stream.read(_CHUNK), 0
            if pos >= len(buf):
                return
        kind = buf[pos] & 0x7F
        if buf[pos] & 0x80:
            kind, pos = kind | (buf[pos + 1] & 0x7F) << 7, pos + 1
        pos, size, shift = pos + 1, 0, 0
        for _ in range(4):
            byte, pos = buf[pos], pos + 1
            size, shift = size | (byte & 0x7F) << shift, shift + 7
            if not byte & 0x80:
                break
        while len(buf) - pos < size:
            more = stream.read(max(_CHUNK, size))
            if not more:
                return
            buf, pos = buf[pos:] + more, 0
        yield kind, buf[pos : pos + size]
        pos += size


def _xlsb_extent(stream: IO[bytes]) -> tuple[int, int]:
    rows = cols = row = 0
    for kind, data in _xlsb_records(stream):
        if kind == _ROW_HEADER and len(data) >= 4:
            row = int.from_bytes(data[:4], "little")
            if row > 0x100000:  # the reader stops there
                break
        elif kind in _XLSB_CELLS and len(data) >= 4:
            rows, cols = max(rows, row + 1), max(cols, int.from_bytes(data[:4], "little") + 1)
        elif kind == _END_CELLS:
            break
    return rows, cols


def _xlsb_member(archive: zipfile.ZipFile, sheet: str, index: int) -> str | None:
    """The archive member of *sheet* (else of the *index*-th), from ``xl/workbook.bin``."""
    rels = ElementTree.fromstring(_read_small(archive, "xl/_rels/workbook.bin.rels"))
    targets = {r.get("Id"): r.get("Target") or "" for r in rels.iter() if r.get("Id")}
    sheets = []
    with archive.open("xl/workbook.bin") as fh:
        for kind, data in _xlsb_records(fh):
            if kind == _XLSB_END_SHEETS:
                break
            if kind == _XLSB_SHEET and len(data) >= 12:
                n = int.from_bytes(data[8:12], "little")
                rel = data[12 : 12 + 2 * n].decode("utf-16-le", "replace")
                m = int.from_bytes(data[12 + 2 * n : 16 + 2 * n], "little")
                name = data[16 + 2 * n : 16 + 2 * n + 2 * m].decode("utf-16-le", "replace")
                sheets.append((name, targets.get(rel, "")))
    chosen = [t for n, t in sheets if n == sheet] or [t for _, t in sheets[index : index + 1]]
    path = posixpath.normpath(posixpath.join("xl", chosen[0])) if chosen else ""
    return path if path in archive.NameToInfo else None


# --- .ods ----------------------------------------------------------------------------------


def _ods_extents(stream: IO[bytes]) -> list[tuple[str, int, int]]:
    """(name, rows, columns) of every ``table:table``, from A1 to its farthest cell with a
    value; repeated rows and cells count as often as they are repeated."""
    tables: list[tuple[str, int, int]] = []
    name, rows, cols, row, col, reps, filled = "", 0, 0, 0, 0, 1, False
    depth = 0  # tables inside tables (in a cell) belong to the outer one
    for buf, cut in _chunks(stream):
        for m in _ODS_TAG.finditer(buf):
            if m.start() >= cut:
                break
            closing, kind, attrs = m.group(1), m.group(2), m.group(3)
            if kind == b"table":
                depth += -1 if closing else 1
                if closing and not depth:
                    tables.append((name, rows, cols))
                elif not closing and depth == 1:
                    found = _ODS_NAME.search(attrs)
                    name = (
                        html.unescape((found.group(1) or found.group(2)).decode()) if found else ""
                    )
                    rows = cols = row = 0
            elif kind == b"table-row":
                if not closing:
                    reps, col, filled = _repeats(_ODS_ROWS, attrs), 0, False
                if closing or attrs.endswith(b"/"):
                    row += reps
                    rows = max(rows, row) if filled else rows
            elif not closing:
                n = _repeats(_ODS_COLS, attrs)
                empty = attrs.endswith(b"/") or _ODS_EMPTY.match(buf, m.end())
                if not empty or b"office:value-type" in attrs:
                    cols, filled = max(cols, col + n), True
                col += n
    return tables


def _repeats(pattern: re.Pattern[bytes], attrs: bytes) -> int:
    found = pattern.search(attrs)
    return int(found.group(1)) if found else 1


# --- entry points --------------------------------------------------------------------------


def _archive(file: Path | bytes) -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO(file) if isinstance(file, bytes) else file)


def sheet_extent(file: Path | bytes, sheet: str, index: int = 0) -> tuple[int, int] | None:
    """Rows and columns a sheet spans from A1 to its farthest cell with a value, read from
    the workbook's archive without building the grid; ``None`` when not known (an ``.xls``
    file, measured by :func:`rrmap._io.xls_extent.xls_extents`; a damaged archive: the
    spreadsheet reader says so).

    Parameters
    ----------
    file : Path or bytes
        The workbook, or its bytes.
    sheet : str
        The sheet's name as the spreadsheet reader gives it.
    index : int, default 0
        Its position (0-based), used when the name is not found as written.

    Examples
    --------
    >>> import io, zipfile
    >>> buf = io.BytesIO()
    >>> with zipfile.ZipFile(buf, "w") as z:
    ...     z.writestr("xl/workbook.xml", '<workbook><sheets><sheet name="S" '
    ...         'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
    ...         'r:id="rId1"/></sheets></workbook>')
    ...     z.writestr("xl/_rels/workbook.xml.rels", '<Relationships><Relationship Id="rId1" '
    ...         'Target="worksheets/sheet1.xml"/></Relationships>')
    ...     z.writestr("xl/worksheets/sheet1.xml", '<worksheet><sheetData><row r="1">'
    ...         '<c r="A1"><v>1</v></c><c r="XFD1048576"><v>2</v></c></row></sheetData>'
    ...         '</worksheet>')
    >>> sheet_extent(buf.getvalue(), "S")
    (1048576, 16384)
    """
    try:
        with _archive(file) as archive:
            if "content.xml" in archive.NameToInfo:
                tables = ods_extents(file) or []
                named = [t[1:] for t in tables if t[0] == sheet] or [t[1:] for t in tables[index:]]
                return named[0] if named else None
            if "xl/workbook.bin" in archive.NameToInfo:
                member = _xlsb_member(archive, sheet, index)
                if member is None:
                    return None
                with archive.open(member) as fh:
                    return _xlsb_extent(fh)
            member = _xlsx_member(archive, sheet, index)
            if member is None:
                return None
            with archive.open(member) as fh:
                extent = _xlsx_extent(fh)
            if extent is None:
                with archive.open(member) as fh:
                    extent = _xlsx_extent_walked(fh)
            return extent
    except _UNREADABLE:
        return None


def ods_extents(file: Path | bytes) -> list[tuple[str, int, int]] | None:
    """(name, rows, columns) of every sheet of an ``.ods`` workbook; ``None`` for another
    file. Its reader builds every sheet when it opens the workbook, so all count.

    Examples
    --------
    >>> import io, zipfile
    >>> buf = io.BytesIO()
    >>> with zipfile.ZipFile(buf, "w") as z:
    ...     z.writestr("content.xml", '<table:table table:name="S"><table:table-row '
    ...         'table:number-rows-repeated="1000"><table:table-cell office:value-type='
    ...         '"float" table:number-columns-repeated="20"/></table:table-row></table:table>')
    >>> ods_extents(buf.getvalue())
    [('S', 1000, 20)]
    """
    try:
        with _archive(file) as archive:
            if "content.xml" not in archive.NameToInfo:
                return None
            with archive.open("content.xml") as fh:
                return _ods_extents(fh)
    except _UNREADABLE:
        return None


def check_workbook_extent(file: Path | bytes, source: str) -> list[tuple[str, int, int]] | None:
    """Before an ``.ods`` or ``.xls`` workbook is opened: refuse sheets that span more than
    ``MAX_SHEET_CELLS`` together (their readers build all of them on opening); returns
    every sheet's (name, rows, columns), ``None`` for another workbook.

    Examples
    --------
    >>> import io, zipfile
    >>> buf = io.BytesIO()
    >>> with zipfile.ZipFile(buf, "w") as z:
    ...     z.writestr("content.xml", '<table:table table:name="S"><table:table-row '
    ...         'table:number-rows-repeated="1048576"><table:table-cell office:value-type='
    ...         '"float" table:number-columns-repeated="1024"/></table:table-row></table:table>')
    >>> check_workbook_extent(buf.getvalue(), "r.ods")
    Traceback (most recent call last):
    ...
    rrmap.errors.RatingsError: r.ods: 1 problem: sheet 'S' reaches cell AMJ1048576 \
(1,048,576 rows × 1,024 columns = 1,073,741,824 cells from A1), more than rrmap reads in \
one workbook (MAX_SHEET_CELLS = 20,000,000; raise it with the environment variable \
RRMAP_MAX_SHEET_CELLS, or rrmap._io.reading_limits.MAX_SHEET_CELLS in Python): a value far \
below the table, or repeated? delete it, or save the sheet as CSV
    """
    tables = ods_extents(file) or xls_extents(file)
    if tables:
        total = sum(rows * cols for _, rows, cols in tables)
        name, rows, cols = max(tables, key=lambda t: t[1] * t[2])
        _check_cells(source, name, rows, cols, total, "one workbook")
    return tables


def check_sheet_extent(
    file: Path | bytes,
    sheet: str,
    index: int,
    source: str,
    tables: list[tuple[str, int, int]] | None = None,
) -> None:
    """Refuse a sheet wider than ``MAX_COLUMNS`` or larger than ``MAX_SHEET_CELLS``
    (:mod:`rrmap._io.reading_limits`), before the spreadsheet reader builds its grid.

    *tables*, from :func:`check_workbook_extent`, gives the extent of an ``.ods`` or
    ``.xls`` sheet.

    Examples
    --------
    >>> check_sheet_extent(b"", "S", 0, "r.ods", [("S", 1_048_576, 16_384)])
    Traceback (most recent call last):
    ...
    rrmap.errors.RatingsError: r.ods: 1 problem: sheet 'S' reaches column XFD \
(16,384 columns), more than rrmap reads in one table (MAX_COLUMNS = 1,000; raise it with \
the environment variable RRMAP_MAX_COLUMNS, or rrmap._io.reading_limits.MAX_COLUMNS in \
Python): a value far to the right of the table? delete it, or save the sheet as CSV
    """
    from rrmap._util.escape import message_text

    if tables is not None:
        known = [t[1:] for t in tables if t[0] == sheet] or [t[1:] for t in tables[index:]]
        rows, cols = known[0] if known else (0, 0)
    else:
        rows, cols = sheet_extent(file, sheet, index) or (0, 0)
    limit = reading_limit("MAX_COLUMNS")
    if cols > limit:
        raise RatingsError(
            source,
            [
                f"sheet {message_text(sheet)!r} reaches column {column_letters(cols)} "
                f"({cols:,} columns), more than rrmap reads in one table "
                f"({limit_text('MAX_COLUMNS', limit)}): a value far to the right of the "
                "table? delete it, or save the sheet as CSV"
            ],
        )
    _check_cells(source, sheet, rows, cols, rows * cols, "one sheet")


def _check_cells(source: str, sheet: str, rows: int, cols: int, total: int, where: str) -> None:
    from rrmap._util.escape import message_text

    limit = reading_limit("MAX_SHEET_CELLS")
    if total > limit:
        together = (
            f"; the workbook's sheets span {total:,} cells together, all read on opening"
            if total > rows * cols
            else ""
        )
        raise RatingsError(
            source,
            [
                f"sheet {message_text(sheet)!r} reaches cell {column_letters(cols)}{rows} "
                f"({rows:,} rows × {cols:,} columns = {rows * cols:,} cells from A1{together}), "
                f"more than rrmap reads in {where} ({limit_text('MAX_SHEET_CELLS', limit)}): "
                "a value far below the table, or repeated? delete it, or save the sheet as CSV"
            ],
        )
