"""How far a sheet of an ``.xls`` workbook reaches, read before the spreadsheet reader
builds its grid.

An ``.xls`` file is a compound file (OLE2: sectors chained by a table, a directory of
streams); its ``Workbook`` stream holds BIFF8 records. Every cell record starts with its
row and column (16 bits each), so a 6 kB file can place a value at row 65,536 and column
16,384, beyond what Excel writes, and the reader asks for 34 GB (the process aborts).
The reader builds every sheet when it opens the workbook, so every sheet's records are
walked here first, for the farthest row and column of a cell with a value (blank cells,
which the reader leaves out, do not count).
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

__all__ = ["xls_extents"]

_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_END = 0xFFFFFFFE  # the end of a chain of sectors
_FREE = 0xFFFFFFFF
# BIFF8 records: beginning and end of a substream, a sheet in the workbook's list
_BOF, _EOF, _BOUNDSHEET = 0x0809, 0x000A, 0x0085
# cells with a value: NUMBER, RK, LABELSST, LABEL, BOOLERR, FORMULA, RSTRING; MULRK
_CELLS = frozenset({0x0203, 0x027E, 0x00FD, 0x0204, 0x0205, 0x0006, 0x00D6})
_MULRK = 0x00BD


class _Compound:
    """The streams of a compound file held in memory (an ``.xls`` file is small)."""

    def __init__(self, data: bytes) -> None:
        if not data.startswith(_MAGIC) or len(data) < 512:
            raise ValueError("not a compound file")
        self.data = data
        self.size = 1 << struct.unpack_from("<H", data, 0x1E)[0]
        self.mini = 1 << struct.unpack_from("<H", data, 0x20)[0]
        (fat_count, dir_start, _, self.cutoff, mini_start, _, difat_start, difat_count) = (
            struct.unpack_from("<8I", data, 0x2C)
        )
        fat_sectors = list(struct.unpack_from("<109I", data, 0x4C))
        per = self.size // 4 - 1
        sector = difat_start
        for _ in range(min(difat_count, len(data) // self.size)):  # sectors listing more
            if sector >= _END:
                break
            entries = struct.unpack_from(f"<{per + 1}I", self._sector(sector))
            fat_sectors += entries[:per]
            sector = entries[per]
        fat_sectors = [s for s in fat_sectors[:fat_count] if s < _END]
        self.fat = np.frombuffer(b"".join(self._sector(s) for s in fat_sectors), "<u4")
        self.entries = self._chain(dir_start)
        root = self.entry(0)
        self.ministream = self._chain(root[1])[: root[2]]
        self.minifat = np.frombuffer(self._chain(mini_start), "<u4")

    def _sector(self, n: int) -> bytes:
        start = (n + 1) * self.size
        if start + self.size > len(self.data):
            raise ValueError("a sector past the end of the file")
        return self.data[start : start + self.size]

    def _chain(self, start: int, table: np.ndarray | None = None, mini: bool = False) -> bytes:
        """The sectors chained from *start* (a loop or a broken link is an error)."""
        table = self.fat if table is None else table
        parts, sector, seen = [], start, 0
        while sector < _END:
            if sector >= len(table) or seen > len(table):
                raise ValueError("a broken chain of sectors")
            if mini:
                offset = sector * self.mini
                parts.append(self.ministream[offset : offset + self.mini])
            else:
                parts.append(self._sector(sector))
            sector, seen = int(table[sector]), seen + 1
        return b"".join(parts)

    def entry(self, i: int) -> tuple[str, int, int]:
        """(name, first sector, size) of directory entry *i*."""
        raw = self.entries[i * 128 : (i + 1) * 128]
        length = min(struct.unpack_from("<H", raw, 0x40)[0], 64)
        name = raw[: max(length - 2, 0)].decode("utf-16-le", "replace")
        start, size = struct.unpack_from("<IQ", raw, 0x74)
        return name, start, size if self.size > 512 else size & 0xFFFFFFFF

    def stream(self, name: str) -> bytes | None:
        for i in range(len(self.entries) // 128):
            found, start, size = self.entry(i)
            if found == name and i:
                small = size < self.cutoff
                data = self._chain(start, self.minifat, True) if small else self._chain(start)
                return data[:size]
        return None


def _records(stream: bytes, start: int):
    """(type, position of its data, length) of the records from *start* to an EOF record."""
    pos, end = start, len(stream) - 4
    while pos <= end:
        kind, length = struct.unpack_from("<HH", stream, pos)
        yield kind, pos + 4, length
        if kind == _EOF:
            return
        pos += 4 + length


def _sheets(stream: bytes) -> list[tuple[str, int]]:
    """(name, position of its BOF record) of every sheet the workbook lists."""
    sheets = []
    for kind, at, length in _records(stream, 0):
        if kind == _BOUNDSHEET and length >= 8:
            offset, cch, flags = struct.unpack_from("<I2xBB", stream, at)
            text = stream[at + 8 : at + length]
            name = text[: 2 * cch].decode("utf-16-le", "replace") if flags & 1 else (
                text[:cch].decode("latin-1"))  # fmt: skip
            sheets.append((name, offset))
    return sheets


def xls_extents(file: Path | bytes) -> list[tuple[str, int, int]] | None:
    """(name, rows, columns) of every sheet of an ``.xls`` workbook, from A1 to its
    farthest cell with a value; ``None`` when *file* is not one (the spreadsheet reader
    says what it is). Its reader builds every sheet when it opens the workbook.

    Examples
    --------
    >>> xls_extents(b"not a workbook") is None
    True
    """
    try:
        data = file if isinstance(file, bytes) else Path(file).read_bytes()
        if not data.startswith(_MAGIC):
            return None
        book = _Compound(data)
        stream = book.stream("Workbook") or book.stream("Book")
        if stream is None:
            return None
        return [(name, *_extent(stream, at)) for name, at in _sheets(stream)]
    except (ValueError, struct.error, OSError, IndexError):
        return None


def _extent(stream: bytes, start: int) -> tuple[int, int]:
    rows = cols = 0
    for kind, at, length in _records(stream, start):
        if (kind in _CELLS and length >= 4) or (kind == _MULRK and length >= 6):
            row, col = struct.unpack_from("<HH", stream, at)
            if kind == _MULRK:
                col = struct.unpack_from("<H", stream, at + length - 2)[0]
            rows, cols = max(rows, row + 1), max(cols, col + 1)
    return rows, cols
