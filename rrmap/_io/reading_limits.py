"""What reading one ratings file may cost, and the checks that keep it so (docs/ratings.md,
"Limits").

Every file is read once, as bytes, in at most :data:`MAX_FILE_BYTES`: a regular file's size
is checked before it is read; a pipe, a FIFO or a device is read in blocks until it ends or
passes the limit, so ``<(cat ratings.csv)`` reads like the file and ``/dev/zero`` stops at
its first block (nothing but NUL bytes: not a text file). Text with a NUL character is
refused where the first one is, lines longer than :data:`MAX_LINE_BYTES` where the first
one is (as the blocks arrive: a 1 GB file of one line is refused after its first
megabytes), and a workbook whose archive would unpack to more than :data:`MAX_ARCHIVE_BYTES`
(or one member more than :data:`MAX_ARCHIVE_RATIO` times its compressed size) before
anything in it is parsed. A FIFO that no program opens for writing is waited for
:data:`MAX_FIFO_WAIT` seconds at most, and said so on stderr after the first second.
Tables wider than :data:`MAX_COLUMNS` and sheets larger than :data:`MAX_SHEET_CELLS` are
refused before their cells are parsed (:mod:`rrmap._io.tabular`, :mod:`rrmap._io.sheet_extent`).
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import stat
import sys
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rrmap.errors import RatingsError

__all__ = [
    "MAX_ARCHIVE_BYTES",
    "MAX_ARCHIVE_RATIO",
    "MAX_COLUMNS",
    "MAX_FIFO_WAIT",
    "MAX_FILE_BYTES",
    "MAX_LINE_BYTES",
    "MAX_SHEET_CELLS",
    "LineWatch",
    "Source",
    "check_archive",
    "check_line_lengths",
    "field_limit",
    "limit_text",
    "nul_problem",
    "open_input",
    "read_source",
    "reading_limit",
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
#: The most columns a table may have (fields of its widest record; a sheet's columns up to
#: its last cell with a value). Loading costs a few milliseconds per column and row block.
MAX_COLUMNS = 1_000
#: The most cells a sheet may span, rows × columns from A1 to its farthest cell with a
#: value: every one is held as a Python object (about 120 bytes), empty or not.
MAX_SHEET_CELLS = 20_000_000
#: Seconds a FIFO is waited for when no program has opened it for writing.
MAX_FIFO_WAIT = 60
#: Seconds of waiting for a FIFO's writer before saying so on stderr.
_FIFO_NOTICE = 1.0

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


def reading_limit(name: str) -> int:
    """The reading limit *name* in force: ``RRMAP_<name>`` from the environment when set,
    else this module's constant (see :func:`rrmap.limits.limit_value`).

    Examples
    --------
    >>> reading_limit("MAX_COLUMNS")
    1000
    """
    from rrmap.limits import limit_value

    return limit_value(name, int(globals()[name]), __name__)


def limit_text(name: str, value: int) -> str:
    """The limit *name* (*value*) for a message, with how to raise it.

    Examples
    --------
    >>> limit_text("MAX_COLUMNS", 1000)
    'MAX_COLUMNS = 1,000; raise it with the environment variable RRMAP_MAX_COLUMNS, or \
rrmap._io.reading_limits.MAX_COLUMNS in Python'
    """
    from rrmap.limits import limit_note

    return limit_note(name, value, __name__)


def read_source(path: Path, source: str, sheet_suffix: bool, encoding: str | None = None) -> Source:
    """Read *path* once, within :data:`MAX_FILE_BYTES`, and say whether it is a workbook.

    Parameters
    ----------
    path : Path
        A regular file, a pipe (``<(cat ratings.csv)``), a FIFO or a device.
    source : str
        The name used in messages.
    sheet_suffix : bool
        Whether the extension names a workbook.
    encoding : str, optional
        The encoding the text will be decoded with, when it is forced (a line
        is then measured only after decoding, unless the encoding is one whose
        characters are never fewer bytes in UTF-8: see :class:`LineWatch`).

    Returns
    -------
    Source

    Raises
    ------
    RatingsError
        The file is larger than the limit, is binary (a NUL byte in its first
        block that no UTF-16/UTF-32 text explains), has a line longer than
        :data:`MAX_LINE_BYTES` (found as it is read), or is a FIFO that no
        program opened for writing in :data:`MAX_FIFO_WAIT` seconds.

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
    opened = contextlib.nullcontext(sys.stdin.buffer) if stdin else open_input(path, source)
    with opened as fh:
        first = fh.read(_PROBE)
        sheet = sheet_suffix or first.startswith((ZIP_MAGIC, _OLE2_MAGIC))
        if not sheet:
            problem = nul_problem(first, None)
            if problem:
                raise RatingsError(source, [problem])
        if regular and sheet:
            return Source(None, True, True)
        watch = None if sheet or not LineWatch.measures(encoding) else LineWatch()
        data = _read_rest(fh, first, source, watch, "" if regular else " (read from a stream)")
    return Source(data, sheet, regular)


def _read_rest(
    fh: io.BufferedReader, first: bytes, source: str, watch: LineWatch | None, where: str
) -> bytes:
    """*first* and the rest of *fh*, in blocks, within the limit; *watch* refuses a line
    past :data:`MAX_LINE_BYTES` as soon as its block is read."""
    blocks = [first]
    total = len(first)
    while True:
        problem = watch.feed(blocks[-1]) if watch is not None else None
        if problem:
            raise RatingsError(source, [problem + ": not a table of ratings?"])
        if not blocks[-1]:
            break
        block = fh.read(min(_BLOCK, MAX_FILE_BYTES + 1 - total))
        blocks.append(block)
        total += len(block)
        if total > MAX_FILE_BYTES:  # a stream, or a regular file that grew while read
            raise _too_big(source, f"over {_size_text(MAX_FILE_BYTES)}{where}")
    return b"".join(blocks)


class LineWatch:
    """The first line longer than :data:`MAX_LINE_BYTES`, found block by block as the
    bytes of a text arrive, before the text is decoded.

    A line is measured in bytes of UTF-8 once decoded (:func:`check_line_lengths`); here
    it is measured in the file's own bytes, so that a 1 GB file of one line is refused
    after its first megabytes, not after 1 GB was read and decoded. Without NUL bytes,
    no encoding rrmap detects (UTF-8, UTF-16 and UTF-32 of characters above U+00FF,
    legacy code pages) writes a character in more bytes than UTF-8 does, so a run of
    bytes without a line end (LF or CR) longer than the limit is a line that the check
    after decoding refuses too; with NUL bytes (UTF-16 or UTF-32) the run must pass
    four times the limit. Only the bytes at the blocks' edges are searched (in C), and
    a block longer than the limit is searched whole.

    Examples
    --------
    >>> watch = LineWatch(limit=10)
    >>> watch.feed(b"expert,low\\nE1,40\\n") is None
    True
    >>> watch.feed(b"E2," + b"9" * 20)
    'line 3 is over 10 bytes long, more than rrmap reads in one line (MAX_LINE_BYTES = 10 bytes)'
    """

    #: Forced encodings whose characters are never fewer bytes than in UTF-8 (NUL aside).
    _MEASURED = ("utf-8", "utf_8", "utf-16", "utf_16", "utf-32", "utf_32", "cp", "latin",
                 "iso8859", "iso-8859", "mac", "ascii", "windows-")  # fmt: skip

    def __init__(self, limit: int | None = None) -> None:
        self.limit = MAX_LINE_BYTES if limit is None else limit
        self.seen = 0  # bytes fed
        self.start = 0  # where the line being read starts
        self.nul = False
        self.lf = self.cr = 0  # line ends before the current block

    @classmethod
    def measures(cls, encoding: str | None) -> bool:
        """Whether lines of text in *encoding* (``None``: detected) can be measured raw."""
        if encoding is None:
            return True
        import codecs

        try:
            name = codecs.lookup(encoding).name
        except LookupError:
            return False  # the decoder names the unknown encoding
        return name.startswith(cls._MEASURED)

    def feed(self, block: bytes) -> str | None:
        """The problem of the first line past the limit that *block* ends or continues."""
        self.nul = self.nul or b"\0" in block
        most = self.limit * (4 if self.nul else 1) + 4  # + a byte-order mark
        ends = [i for i in (block.find(b"\n"), block.find(b"\r")) if i >= 0]
        run = self.seen + (min(ends) if ends else len(block)) - self.start
        if run > most:
            return self._problem(self.lf, self.cr, most)
        if ends and len(block) > most:
            gap = _first_long_gap(block, most)
            if gap is not None:
                head = block[:gap]
                return self._problem(self.lf + head.count(b"\n"), self.cr + head.count(b"\r"), most)
        if ends:
            last = max(block.rfind(b"\n"), block.rfind(b"\r"))
            self.start = self.seen + last + 1
            self.lf += block.count(b"\n")
            if not self.lf:
                self.cr += block.count(b"\r")
        self.seen += len(block)
        return None

    def _problem(self, lf: int, cr: int, most: int) -> str:
        line = (lf or cr) + 1  # lines end with LF, or with CR alone (classic Mac)
        return (
            f"line {line} is over {_size_text(most - 4)} long, more than rrmap reads in one "
            f"line (MAX_LINE_BYTES = {_size_text(self.limit)})"
        )


def _first_long_gap(block: bytes, most: int) -> int | None:
    """Where in *block* the first run of more than *most* bytes after a line end starts."""
    data = np.frombuffer(block, dtype=np.uint8)
    ends = np.flatnonzero((data == 10) | (data == 13))
    begins = ends + 1
    lengths = np.append(ends[1:], len(data)) - begins
    over = np.flatnonzero(lengths > most)
    return int(begins[over[0]]) if len(over) else None


def open_input(path: Path, source: str) -> io.BufferedReader:
    """*path* opened for reading; a FIFO is waited for while no program opens it to write.

    Opening a FIFO blocks until a writer opens it (``cat`` waits forever). Here the
    opening runs in a thread: after a second without a writer, a line on stderr says
    that rrmap waits and for how long; after :data:`MAX_FIFO_WAIT` seconds the FIFO
    is refused (a :class:`~rrmap.errors.RatingsError`), and the thread let go by
    opening the FIFO's writing end once. Anything else is opened at once.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.csv"
    >>> _ = p.write_bytes(b"expert\\n")
    >>> with open_input(p, "r.csv") as fh:
    ...     fh.read()
    b'expert\\n'
    """
    if not stat.S_ISFIFO(os.stat(path).st_mode):
        return open(path, "rb")
    wait = reading_limit("MAX_FIFO_WAIT")
    got: dict[str, object] = {}

    def opener() -> None:
        try:
            got["fh"] = open(path, "rb")  # handed to the caller, who closes it
        except OSError as exc:
            got["error"] = exc

    thread = threading.Thread(target=opener, name="rrmap-fifo", daemon=True)
    thread.start()
    thread.join(min(_FIFO_NOTICE, wait))
    if thread.is_alive() and wait > _FIFO_NOTICE:
        print(
            f"waiting for a program to write to {source}: a FIFO that no program has "
            f"opened yet (at most {wait:,} s: MAX_FIFO_WAIT)",
            file=sys.stderr,
            flush=True,
        )
        thread.join(wait - _FIFO_NOTICE)
    if thread.is_alive():
        _release(path, thread)
        if "fh" in got:
            got.pop("fh").close()  # type: ignore[attr-defined]
        raise RatingsError(
            source,
            [
                f"a FIFO that no program opened for writing in {wait:,} s "
                f"({limit_text('MAX_FIFO_WAIT', wait)}): start the program that writes "
                "to it, or give a file"
            ],
        )
    if "error" in got:
        raise got["error"]  # type: ignore[misc]
    return got["fh"]  # type: ignore[return-value]


def _release(path: Path, thread: threading.Thread) -> None:
    """Let the thread blocked opening *path* (a FIFO) go: open its writing end once."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:  # no reader any more: the thread got its writer meanwhile
        return
    try:
        thread.join(5)
    finally:
        os.close(fd)


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
    from rrmap._util.escape import message_text

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
