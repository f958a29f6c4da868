"""What reading one ratings file may cost, and the checks that keep it so (docs/ratings.md,
"Limits").

Every file is read once, as bytes, in at most :data:`MAX_FILE_BYTES`: a regular file's size
is checked before it is read; a pipe, a FIFO or a device is read in blocks until it ends or
passes the limit, so ``<(cat ratings.csv)`` reads like the file and ``/dev/zero`` stops at
its first block (nothing but NUL bytes: not a text file). Text with a NUL character is
refused where the first one is, lines longer than :data:`MAX_LINE_BYTES` where the first
one is, and a workbook whose archive would unpack to more than :data:`MAX_ARCHIVE_BYTES`
(or one member more than :data:`MAX_ARCHIVE_RATIO` times its compressed size) before
anything in it is parsed.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import stat
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rrmap.errors import RatingsError

__all__ = [
    "MAX_ARCHIVE_BYTES",
    "MAX_ARCHIVE_RATIO",
    "MAX_FILE_BYTES",
    "MAX_LINE_BYTES",
    "Source",
    "check_archive",
    "check_line_lengths",
    "field_limit",
    "nul_problem",
    "read_source",
    "wide_encoding",
]

#: The largest file read, in bytes (2 GiB); a pipe or device is read up to this many bytes.
MAX_FILE_BYTES = 2 * 1024**3
#: The longest line of a text file, in bytes of UTF-8 (1 MiB); a quoted field that spans
#: several lines is held to the same number of characters.
MAX_LINE_BYTES = 1024**2
#: The most a workbook's archive (``.xlsx``, ``.xlsm``, ``.xlsb``, ``.ods``) may unpack to,
#: all members together, in bytes (1 GiB).
MAX_ARCHIVE_BYTES = 1024**3
#: The most one member of a workbook's archive may unpack to, as a multiple of its
#: compressed size (members under :data:`_RATIO_FLOOR` bytes unpacked are not held to it).
MAX_ARCHIVE_RATIO = 100
_RATIO_FLOOR = 1024**2

#: Bytes looked at before the rest is read: the kind of file, and NUL bytes.
_PROBE = 64 * 1024
_BLOCK = 1024**2

#: Signatures of the workbook formats: a zip archive (xlsx, xlsm, xlsb, ods), OLE2 (xls).
ZIP_MAGIC = b"PK\x03\x04"
_OLE2_MAGIC = b"\xd0\xcf\x11\xe0"


@dataclass
class Source:
    """A file as read once: its bytes, and whether it is a workbook.

    Attributes
    ----------
    data : bytes or None
        The whole content; ``None`` for a workbook that is a regular file (it is read
        from its path).
    sheet : bool
        A workbook by its extension or its signature.
    regular : bool
        A regular file (not a pipe, a FIFO or a device).
    """

    data: bytes | None
    sheet: bool
    regular: bool


def _size_text(n: int) -> str:
    """*n* bytes for a message (``2 GiB``, ``1 MiB``, ``300 bytes``)."""
    for unit, size in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n:,} bytes"


def _too_big(source: str, size: str) -> RatingsError:
    return RatingsError(
        source,
        [
            f"the file is {size}, more than rrmap reads (MAX_FILE_BYTES = "
            f"{_size_text(MAX_FILE_BYTES)}): split it, or give it as a workbook or a "
            "DataFrame"
        ],
    )


#: The name standard input is read under (``-`` on the command line).
STDIN = "<stdin>"


def read_source(path: Path, source: str, sheet_suffix: bool) -> Source:
    """Read *path* once, within :data:`MAX_FILE_BYTES`, and say whether it is a workbook.

    Parameters
    ----------
    path : Path
        A regular file, a pipe (``<(cat ratings.csv)``), a FIFO or a device.
    source : str
        The name used in messages.
    sheet_suffix : bool
        Whether the extension names a workbook.

    Returns
    -------
    Source

    Raises
    ------
    RatingsError
        The file is larger than the limit, or is binary (a NUL byte in its first
        block that no UTF-16/UTF-32 text explains).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.csv"
    >>> _ = p.write_bytes(b"expert,low\\nE1,40\\n")
    >>> read_source(p, str(p), False).data
    b'expert,low\\nE1,40\\n'
    """
    stdin = str(path) == STDIN
    info = os.fstat(sys.stdin.fileno()) if stdin else os.stat(path)  # follows /dev/fd/N
    regular = stat.S_ISREG(info.st_mode) and not stdin
    if regular and info.st_size > MAX_FILE_BYTES:
        raise _too_big(source, f"{info.st_size:,} bytes")
    opened = contextlib.nullcontext(sys.stdin.buffer) if stdin else open(path, "rb")
    with opened as fh:
        first = fh.read(_PROBE)
        sheet = sheet_suffix or first.startswith((ZIP_MAGIC, _OLE2_MAGIC))
        if not sheet:
            problem = nul_problem(first, None)
            if problem:
                raise RatingsError(source, [problem])
        if regular:
            if sheet:
                return Source(None, True, True)
            fh.seek(0)
            data = fh.read()
        else:
            data = _read_stream(fh, first, source)
    if len(data) > MAX_FILE_BYTES:  # a regular file that grew while it was read
        raise _too_big(source, f"over {_size_text(MAX_FILE_BYTES)}")
    return Source(data, sheet, regular)


def _read_stream(fh: io.BufferedReader, first: bytes, source: str) -> bytes:
    """The rest of a pipe, FIFO or device after *first*, in blocks, within the limit."""
    blocks = [first]
    total = len(first)
    while len(blocks[-1]):
        block = fh.read(min(_BLOCK, MAX_FILE_BYTES + 1 - total))
        blocks.append(block)
        total += len(block)
        if total > MAX_FILE_BYTES:
            raise _too_big(source, f"over {_size_text(MAX_FILE_BYTES)} (read from a stream)")
    return b"".join(blocks)


def wide_encoding(head: bytes) -> str | None:
    """UTF-32 or UTF-16 without a byte-order mark, told by where the NUL bytes are.

    ASCII text in UTF-32-LE is each byte followed by three NUL bytes, in UTF-16-LE by
    one. An encoding fits when *head* decodes with it strictly (a unit cut at the end
    aside) to text without a NUL character and at least half ASCII (a table's
    headers, numbers and separators); of those that fit, the one that reads the most
    ASCII characters. ``None`` when none fits (a binary file).

    Examples
    --------
    >>> wide_encoding("expert,low\\n".encode("utf-16-be")), wide_encoding(b"\\0" * 64)
    ('utf-16-be', None)
    """
    best: tuple[int, str] | None = None
    for enc, unit in (("utf-32-le", 4), ("utf-32-be", 4), ("utf-16-le", 2), ("utf-16-be", 2)):
        sample = head[: len(head) - len(head) % unit]
        try:
            text = sample.decode(enc)
        except UnicodeDecodeError as exc:
            if exc.start < len(sample) - 4:
                continue
            text = sample[: exc.start].decode(enc)  # a surrogate pair cut by the block's end
        ascii_count = sum(ch < "\x80" for ch in text)
        if text and "\x00" not in text and 2 * ascii_count >= len(text):
            if best is None or ascii_count > best[0]:
                best = (ascii_count, enc)
    return best[1] if best else None


def nul_problem(
    raw: bytes, encoding: str | None, text: str | None = None, *, wide_ok: bool = True
) -> str | None:
    """A message for the first NUL byte (or NUL character of *text*), or ``None``.

    Parameters
    ----------
    raw : bytes
        The file's bytes (or its first block).
    encoding : str or None
        The encoding *text* was decoded with (``None`` before decoding).
    text : str, optional
        The decoded text.
    wide_ok : bool, default True
        Whether UTF-16 or UTF-32 text may explain NUL bytes of undecoded *raw*.

    Examples
    --------
    >>> nul_problem(b"expert\\nE1\\x00\\x01\\n", None)
    'not a text file: a NUL byte at byte offset 9 (line 2): a binary file? ...'
    """
    if text is None:
        pos = raw.find(b"\x00")
        if pos < 0 or (wide_ok and wide_encoding(raw[:_PROBE]) is not None):
            return None
        line = raw.count(b"\n", 0, pos) + 1
    else:
        pos = text.find("\x00")
        if pos < 0:
            return None
        line = text.count("\n", 0, pos) + 1
        before = text[:pos].encode(_without_bom(encoding or "utf-8"), "surrogatepass")
        pos = _bom_length(raw, encoding or "utf-8") + len(before)
    hint = (
        f"the file is not {encoding}? pass its encoding with encoding= (--encoding)"
        if text is not None
        else "a binary file? save the sheet as CSV, or give a "
        ".xlsx/.xlsm/.xlsb/.xls/.ods file the matching extension"
    )
    return f"not a text file: a NUL byte at byte offset {pos} (line {line}): {hint}"


def _bom_length(raw: bytes, encoding: str) -> int:
    """Bytes of the byte-order mark that starts *raw*, when *encoding* skips it."""
    if encoding.lower().replace("_", "-") not in ("utf-8-sig", "utf-16", "utf-32"):
        return 0
    for bom in (
        b"\xef\xbb\xbf",
        b"\xff\xfe\x00\x00",
        b"\x00\x00\xfe\xff",
        b"\xff\xfe",
        b"\xfe\xff",
    ):
        if raw.startswith(bom):
            return len(bom)
    return 0


def _without_bom(encoding: str) -> str:
    """The codec that writes *encoding*'s characters without a byte-order mark."""
    return {
        "utf-8-sig": "utf-8",
        "utf-16": "utf-16-le",
        "utf-32": "utf-32-le",
    }.get(encoding.lower(), encoding)


def check_line_lengths(encoded: bytes, source: str) -> None:
    """Refuse a text whose longest line passes :data:`MAX_LINE_BYTES` (UTF-8 bytes).

    Examples
    --------
    >>> check_line_lengths(b"expert,low\\nE1,40\\n", "r.csv")
    """
    if len(encoded) <= MAX_LINE_BYTES:
        return
    data = np.frombuffer(encoded, dtype=np.uint8)
    step = 1 << 22  # blocks of 4 MB: bounded temporaries
    last_end, lines, long, first = -1, 0, 0, (0, 0)
    for start in range(0, len(data) + 1, step):
        ends = start + np.flatnonzero(data[start : start + step] == 10)
        if start + step >= len(data):  # the last line, with or without its line end
            ends = np.append(ends, len(data))
        lengths = np.diff(ends, prepend=last_end) - 1
        over = np.flatnonzero(lengths > MAX_LINE_BYTES)
        if len(over) and not long:
            first = (lines + int(over[0]) + 1, int(lengths[over[0]]))
        long += len(over)
        lines += len(ends)
        last_end = int(ends[-1]) if len(ends) else last_end
        if start + step >= len(data):
            break
    if not long:
        return
    raise RatingsError(
        source,
        [
            f"line {first[0]} is {first[1]:,} bytes long, more than rrmap reads "
            f"in one line (MAX_LINE_BYTES = {_size_text(MAX_LINE_BYTES)})"
            + (f"; so are {long - 1} more lines" if long > 1 else "")
            + ": not a table of ratings?"
        ],
    )


@contextlib.contextmanager
def field_limit() -> Iterator[None]:
    """The :mod:`csv` module's field limit set to :data:`MAX_LINE_BYTES` while reading.

    Examples
    --------
    >>> with field_limit():
    ...     csv.field_size_limit() == MAX_LINE_BYTES
    True
    """
    old = csv.field_size_limit(MAX_LINE_BYTES)
    try:
        yield
    finally:
        csv.field_size_limit(old)


def check_archive(source: Source, path: Path, name: str) -> None:
    """Refuse a workbook archive that would unpack to more than the limits, before parsing.

    The sizes are the archive's own record of its members (``zipfile.infolist``);
    a workbook that is not a zip archive (``.xls``) is left to the spreadsheet reader.

    Examples
    --------
    >>> import io, zipfile
    >>> buf = io.BytesIO()
    >>> with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
    ...     z.writestr("xl/worksheets/sheet1.xml", b" " * 2_000_000)
    >>> check_archive(Source(buf.getvalue(), True, False), Path("r.xlsx"), "r.xlsx")
    Traceback (most recent call last):
    ...
    rrmap.errors.RatingsError: r.xlsx: 1 problem: the workbook's member ... times its ...
    """
    from rrmap._escape import message_text

    if source.data is not None:
        if not source.data.startswith(ZIP_MAGIC):
            return
        file: Path | io.BytesIO = io.BytesIO(source.data)
    else:
        with open(path, "rb") as fh:
            if not fh.read(4).startswith(ZIP_MAGIC):
                return
        file = path
    try:
        with zipfile.ZipFile(file) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise RatingsError(name, [f"not a readable spreadsheet ({exc})"]) from None
    total = sum(m.file_size for m in members)
    if total > MAX_ARCHIVE_BYTES:
        raise RatingsError(
            name,
            [
                f"the workbook unpacks to {total:,} bytes, more than rrmap reads "
                f"(MAX_ARCHIVE_BYTES = {_size_text(MAX_ARCHIVE_BYTES)}): save the sheet as CSV"
            ],
        )
    for m in members:
        ratio = m.file_size / max(m.compress_size, 1)
        if m.file_size > _RATIO_FLOOR and ratio > MAX_ARCHIVE_RATIO:
            raise RatingsError(
                name,
                [
                    f"the workbook's member {message_text(m.filename)!r} unpacks to "
                    f"{m.file_size:,} bytes, {ratio:,.0f} times its compressed size "
                    f"(MAX_ARCHIVE_RATIO = {MAX_ARCHIVE_RATIO}): an archive built to "
                    "exhaust memory? save the sheet as CSV"
                ],
            )
