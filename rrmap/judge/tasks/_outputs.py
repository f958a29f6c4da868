"""The judge's output files: complete or absent, and safe to open in a spreadsheet.

Every table and record the judge writes goes through here. A file is
written beside its target and renamed over it once complete
(:func:`rrmap._util.atomic.atomic_path`), so a full disk, a kill or a crash
leaves the previous file, never a truncated one. Tables are written by
rrmap's one CSV writer (:mod:`rrmap._io.writing`): a cell holding a comma, a
quote or a line break (a carriage return too) is quoted, and a text cell that
a spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@``, a tab or a
carriage return at its start or after a line break inside it: a model's
reply, a label) gets a ``'`` there unless *raw* is asked for, for programs
that read the file. A lone surrogate (half of a character, which a reply can
carry) is written as U+FFFD, since UTF-8 cannot hold it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from rrmap._io.writing import csv_text as _csv_text
from rrmap._util.atomic import atomic_path, write_text

__all__ = [
    "csv_cells",
    "csv_text",
    "json_text",
    "naming",
    "write_csv",
    "write_files",
    "write_json",
]

_SURROGATE = re.compile("[\ud800-\udfff]")


def _utf8(text: str) -> str:
    return _SURROGATE.sub("\ufffd", text)


def csv_cells(raw: bool) -> str:
    """How text cells are written, as recorded beside a result.

    Examples
    --------
    >>> csv_cells(False), csv_cells(True)
    ('spreadsheet-safe', 'raw')
    """
    return "raw" if raw else "spreadsheet-safe"


def csv_text(table: pd.DataFrame, raw: bool = False) -> str:
    """*table* as CSV text (no index), formula-like text cells neutralised unless *raw*.

    Examples
    --------
    >>> print(csv_text(pd.DataFrame({"reply": ["=1+1", "B"], "n": [-1, 2]})), end="")
    reply,n
    '=1+1,-1
    B,2
    >>> print(csv_text(pd.DataFrame({"reply": ["=1+1"]}), raw=True), end="")
    reply
    =1+1
    """
    return _csv_text(table, raw=raw)


def json_text(data: Any) -> str:
    """*data* as indented JSON text with a final newline (anything unknown as ``str``).

    Examples
    --------
    >>> print(json_text({"a": 1}), end="")
    {
      "a": 1
    }
    """
    return _utf8(json.dumps(data, indent=2, default=str)) + "\n"


@contextlib.contextmanager
def naming(path: str | os.PathLike[str]) -> Iterator[None]:
    """Re-raise an :class:`OSError` inside (a full disk) as one about *path*, the output,
    when it names the output's temporary file or no file at all.

    Examples
    --------
    >>> import errno
    >>> try:
    ...     with naming("out.csv"):
    ...         raise OSError(errno.ENOSPC, "No space left on device")
    ... except OSError as err:
    ...     print(err.filename, err.errno == errno.ENOSPC)
    out.csv True
    """
    target = Path(path)
    try:
        yield
    except OSError as exc:
        if exc.filename is not None:
            name = Path(os.fsdecode(exc.filename)).name
            if not (name.startswith(f".{target.name}.") and name.endswith(".tmp")):
                raise  # about the output itself, or about another file
        raise OSError(exc.errno, exc.strerror or str(exc), os.fspath(path)) from None


def write_csv(path: str | os.PathLike[str], table: pd.DataFrame, raw: bool = False) -> Path:
    """Write *table* to *path* as CSV, all-or-nothing (see the module).

    Examples
    --------
    >>> import tempfile
    >>> p = write_csv(Path(tempfile.mkdtemp()) / "t.csv", pd.DataFrame({"x": ["@a"]}))
    >>> p.read_text()
    "x\\n'@a\\n"
    """
    text = csv_text(table, raw)
    with naming(path):
        return write_text(path, text)


def write_json(path: str | os.PathLike[str], data: Any) -> Path:
    """Write *data* to *path* as JSON, all-or-nothing.

    Examples
    --------
    >>> import tempfile
    >>> write_json(Path(tempfile.mkdtemp()) / "r.json", {"seed": 1}).read_text()
    '{\\n  "seed": 1\\n}\\n'
    """
    text = json_text(data)
    with naming(path):
        return write_text(path, text)


def write_files(contents: Mapping[Path, str]) -> list[Path]:
    """Write several files that belong together: all are written before any replaces its target.

    A failure while writing (a full disk) leaves every target as it was; each
    file is then renamed into place.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> [p.name for p in write_files({d / "a.csv": "x\\n", d / "a.json": "{}\\n"})]
    ['a.csv', 'a.json']
    """
    with contextlib.ExitStack() as stack:
        for path, text in contents.items():
            stack.enter_context(naming(path))
            tmp = stack.enter_context(atomic_path(path))
            tmp.write_text(_utf8(text), encoding="utf-8", newline="")
    return list(contents)
