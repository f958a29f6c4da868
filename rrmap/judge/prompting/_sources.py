"""An input table from a file or from standard input (``-``), named as messages name it.

Every table a judge command reads (pairs, questions, responses, corpora,
per-order replies, a lexicon, batch results, human ratings) may come from
standard input: ``-`` reads it once, whole (within the size limit of a ratings
file, :data:`rrmap._io.reading_limits.MAX_FILE_BYTES`), and messages call it
``<stdin>``. Paths inside it (images, image folders) are then relative to
the current folder, as the folder of a file is for a file.
"""

from __future__ import annotations

import errno
import io
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from rrmap._io.reading_limits import STDIN  # how messages name standard input
from rrmap.rank.data.sources import stdin_input

__all__ = ["STDIN", "Source", "input_source", "is_stdin", "looks_like_jsonl"]


def is_stdin(path: str | os.PathLike[str] | None) -> bool:
    """True for ``-``, the name of standard input (and of standard output).

    Examples
    --------
    >>> is_stdin("-"), is_stdin(Path("-")), is_stdin("a.csv"), is_stdin(None)
    (True, True, False, False)
    """
    return path is not None and os.fspath(path) == "-"


@dataclass(frozen=True)
class Source:
    """Where an input table comes from.

    Attributes
    ----------
    name : str
        The path as given, or ``<stdin>``: what messages call it.
    folder : Path
        Where relative paths inside it start: the file's folder, or the
        current folder for standard input.
    path : Path or None
        The file; ``None`` for standard input.
    data : bytes or None
        Standard input, read once; ``None`` for a file.

    Examples
    --------
    >>> s = Source("<stdin>", Path("."), data=b"a,b\\n1,2\\n")
    >>> s.text(), s.suffix
    ('a,b\\n1,2\\n', '')
    """

    name: str
    folder: Path
    path: Path | None = None
    data: bytes | None = None

    @property
    def suffix(self) -> str:
        """The file's suffix, lower case (``""`` for standard input)."""
        return self.path.suffix.lower() if self.path is not None else ""

    def readable(self) -> Path | io.BytesIO:
        """What ``pandas.read_csv`` and friends read: the path, or the bytes read."""
        return self.path if self.path is not None else io.BytesIO(self.data or b"")

    def text(self) -> str:
        """The whole input as text (UTF-8)."""
        if self.path is not None:
            return self.path.read_text(encoding="utf-8")
        return (self.data or b"").decode("utf-8")


def input_source(path: str | os.PathLike[str]) -> Source:
    """*path* as a :class:`Source`; ``-`` reads standard input (once, whole). A path that
    does not exist, or is a folder, is an ``OSError`` naming it.

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp()) / "data"
    >>> folder.mkdir()
    >>> _ = (folder / "pairs.csv").write_text("instance\\n")
    >>> s = input_source(folder / "pairs.csv")
    >>> Path(s.name).name, s.folder.name, s.data is None
    ('pairs.csv', 'data', True)
    """
    if is_stdin(path):
        if getattr(sys.stdin, "buffer", None) is None:  # a text-only stdin (some notebooks)
            return Source(STDIN, Path.cwd(), data=sys.stdin.read().encode("utf-8"))
        # read within the size limit of every input table, as rrmap rank reads it
        return Source(STDIN, Path.cwd(), data=stdin_input().getvalue())
    p = Path(path)
    # checked here, for every reader: a missing input is the same one line whatever the
    # command, before anything else is read or asked
    if not p.exists():
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(p))
    if p.is_dir():
        raise IsADirectoryError(errno.EISDIR, "Is a directory", str(p))
    return Source(str(p), p.parent, path=p)


def looks_like_jsonl(source: Source, suffixes: tuple[str, ...] = (".jsonl", ".ndjson")) -> bool:
    """Whether *source* is JSON lines: by its suffix, or for standard input by its first
    character (``{``).

    Examples
    --------
    >>> looks_like_jsonl(Source("<stdin>", Path("."), data=b'\\n {"id": 1}\\n'))
    True
    >>> looks_like_jsonl(Source("q.csv", Path("."), path=Path("q.csv")))
    False
    """
    if source.path is not None:
        return source.suffix in suffixes
    return (source.data or b"").lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{")
