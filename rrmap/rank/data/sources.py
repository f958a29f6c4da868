"""The bytes of a rank input: a file path, or an open binary file such as standard input.

Every reader of :mod:`rrmap.rank` takes either; this module reads the input
once, within a size limit, and gives the name messages use: the path, the
open file's ``name`` (``<stdin>`` on the command line's ``-``), or
``<buffer>`` for an unnamed one such as :class:`io.BytesIO`. A CSV input is
refused at its first line longer than ``MAX_LINE_BYTES``, as its blocks are
read (as a ratings file is: :class:`rrmap._io.reading_limits.LineWatch`); a FIFO
that no program opens for writing is waited for a bounded time
(:func:`rrmap._io.reading_limits.open_input`).
"""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path
from typing import IO

from rrmap._io.reading_limits import MAX_FILE_BYTES as MAX_TABLE_BYTES
from rrmap._io.reading_limits import STDIN, LineWatch, open_input
from rrmap.errors import InputError
from rrmap.rank.limits import format_bytes

#: What a rank reader takes: a path, or an open binary file.
Source = str | os.PathLike[str] | IO[bytes]

_BLOCK = 1024**2


def source_name(source: Source) -> str:
    """The name of *source* in messages.

    Examples
    --------
    >>> source_name("prefs.csv"), source_name(io.BytesIO(b""))
    ('prefs.csv', '<buffer>')
    """
    if hasattr(source, "read"):
        name = getattr(source, "name", None)
        return name if isinstance(name, str) else "<buffer>"
    return str(Path(source))


def source_suffix(source: Source) -> str:
    """The lower-case extension of a path (``""`` for an open file).

    Examples
    --------
    >>> source_suffix("x/Prefs.JSON"), source_suffix(io.BytesIO(b"[]"))
    ('.json', '')
    """
    return "" if hasattr(source, "read") else Path(source).suffix.lower()


_SPLIT = "split it (e.g. one file per instance)"


def read_input(
    source: Source, limit: int = MAX_TABLE_BYTES, advice: str = _SPLIT, lines: bool = True
) -> tuple[bytes, str]:
    """The bytes of *source* (at most *limit*) and its name for messages.

    Parameters
    ----------
    source : str, path-like or binary file
        A file path, or an open binary file read from where it stands.
    limit : int
        Bytes accepted; a larger input is an error naming the limit.
    advice : str
        What the error for a larger input tells the user to do.
    lines : bool, default True
        Refuse a line longer than ``MAX_LINE_BYTES`` as soon as it is read,
        unless the input starts like JSON (which may be one line).

    Returns
    -------
    (bytes, str)

    Raises
    ------
    FileNotFoundError, IsADirectoryError
        For a path that is not a file.
    rrmap.errors.InputError
        For an input larger than *limit*, a line longer than ``MAX_LINE_BYTES``,
        a FIFO without a writer, or text where bytes were expected.

    Examples
    --------
    >>> read_input(io.BytesIO(b"left,right,winner\\n"))
    (b'left,right,winner\\n', '<buffer>')
    >>> read_input(io.BytesIO(b"left,right,winner\\n" + b"x" * 2**21))
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: <buffer>: line 2 is over 1 MiB long, more than rrmap reads \
in one line (MAX_LINE_BYTES = 1 MiB): not a CSV table? (nothing was read)
    """
    name = source_name(source)
    if hasattr(source, "read"):
        data = _read_limited(source, limit, name, advice, lines)  # type: ignore[arg-type]
        return data, name
    path = Path(source)  # type: ignore[arg-type]
    if not path.exists():
        raise FileNotFoundError(2, "No such file or directory", name)
    if path.is_dir():
        raise IsADirectoryError(21, "is a directory, expected a file", name)
    size = path.stat().st_size
    if path.is_file() and size > limit:
        raise _too_large(name, format_bytes(size), limit, advice)
    with open_input(path, name) as fh:  # a pipe or a file that grows: no more than the limit
        return _read_limited(fh, limit, name, advice, lines), name


def _read_limited(
    fh: IO[bytes], limit: int, name: str, advice: str = _SPLIT, lines: bool = True
) -> bytes:
    """The rest of *fh*, in blocks, refusing more than *limit* bytes and, with *lines*
    and unless it starts like JSON, a line longer than ``MAX_LINE_BYTES``."""
    blocks: list[bytes] = []
    total = 0
    watch: LineWatch | None = None
    while True:
        block = fh.read(min(_BLOCK, limit + 1 - total))
        if isinstance(block, str):
            raise InputError(f"{name}: opened as text; open it in binary mode ('rb')")
        if not blocks and lines and not looks_like_json(block):
            watch = LineWatch()
        problem = watch.feed(block) if watch is not None else None
        if problem:
            raise InputError(f"{name}: {problem}: not a CSV table? (nothing was read)")
        if not block:
            return b"".join(blocks)
        blocks.append(block)
        total += len(block)
        if total > limit:
            raise _too_large(name, f"over {format_bytes(limit)}", limit, advice)


def _too_large(name: str, size: str, limit: int, advice: str) -> InputError:
    return InputError(
        f"{name}: {size}, above the limit of {format_bytes(limit)} for an input read whole; "
        + advice
    )


def named_bytes(data: bytes, name: str) -> io.BytesIO:
    """*data* as an open binary file whose ``name`` is *name* (for messages).

    Examples
    --------
    >>> named_bytes(b"[]", "<stdin>").name
    '<stdin>'
    """
    buffer = io.BytesIO(data)
    buffer.name = name  # type: ignore[attr-defined]
    return buffer


def stdin_input(limit: int | None = None) -> io.BytesIO:
    """Standard input read whole (it can be read once), named ``<stdin>``, within *limit*
    bytes (default :data:`rrmap._io.reading_limits.MAX_FILE_BYTES`, as a ratings file)."""
    limit = MAX_TABLE_BYTES if limit is None else limit
    return named_bytes(_read_limited(sys.stdin.buffer, limit, STDIN), STDIN)


def looks_like_json(data: bytes) -> bool:
    """Whether *data* starts (after blanks and a byte-order mark) like a JSON list or object.

    Examples
    --------
    >>> looks_like_json(b'  [{"a": 1}]'), looks_like_json(b"left,right,winner")
    (True, False)
    """
    return data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"[", b"{")
