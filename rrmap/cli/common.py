"""What every rrmap command shares: help options, output paths and the overwrite guard.

Kept apart from :mod:`rrmap.cli` so that command modules can import it at
module level without importing the main group (``python -m rrmap.cli``
would otherwise import that module twice).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import click

from rrmap._util.atomic import check_output_file
from rrmap.errors import InputError

#: ``-h``/``--help`` everywhere, and defaults shown in every help text.
CONTEXT_SETTINGS: dict = {"help_option_names": ["-h", "--help"], "show_default": True}


#: Code in a help text, as docstrings write it (``rrmap rank fit``, `--per-order`).
_CODE = re.compile(r"``(.+?)``|`([^`]+)`", flags=re.S)


def plain_help(text: str) -> str:
    """*text* as a terminal shows it: code spans without their backticks.

    An option stays bare (``--by`` → --by); anything else is put in single
    quotes (``rrmap rank fit`` → 'rrmap rank fit'), so that it still stands
    out of the sentence. A span the source wrapped over two lines is one again,
    and the opening backticks of a span cut short (a command's one-line summary
    in its group's list) are a quote too.

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Examples
    --------
    >>> plain_help("Group with ``--by``; read by `rrmap rank\\n  align`.")
    "Group with --by; read by 'rrmap rank align'."
    >>> plain_help("Replies (from `2afc...")
    "Replies (from '2afc..."
    """

    def one(match: re.Match[str]) -> str:
        code = " ".join((match.group(1) or match.group(2)).split())
        return code if code.startswith("-") else f"'{code}'"

    return re.sub("`+", "'", _CODE.sub(one, text))


class HelpFormatter(click.HelpFormatter):
    """click's help formatter, with :func:`plain_help` applied to every text it writes."""

    def write_text(self, text: str) -> None:
        super().write_text(plain_help(text))

    def write_dl(self, rows: Sequence[tuple[str, str]], *args: Any, **kwargs: Any) -> None:
        super().write_dl([(term, plain_help(desc)) for term, desc in rows], *args, **kwargs)


class HelpContext(click.Context):
    """The context of every rrmap command: its help goes through :class:`HelpFormatter`."""

    formatter_class = HelpFormatter


def use_help_context(commands: Iterable[click.Command]) -> None:
    """Give *commands*, and the sub-commands of the groups among them, :class:`HelpContext`."""
    for cmd in commands:
        cmd.context_class = HelpContext
        if isinstance(cmd, click.Group):
            use_help_context(cmd.commands.values())


#: ``--raw-csv``: text cells as they are instead of spreadsheet-safe (docs/ratings.md).
raw_csv_option = click.option(
    "--raw-csv",
    is_flag=True,
    help="Write CSV text cells as they are. By default a cell a spreadsheet would run as "
    "a formula (starting with = + - @, a tab or a carriage return, or holding one after a "
    "line break inside the cell) gets a ' there.",
)


def refuse_overwrite(path: Path, force: bool) -> None:
    """Raise a click error if *path* is no file to write (a folder, a device, a FIFO, a
    socket, a link to one of them: :func:`~rrmap._util.atomic.check_output_file`), or if it
    exists and ``--force`` was not given."""
    if str(path) != "-":
        _check_file(path)
    if path.exists() and not force:
        raise click.ClickException(f"{path} exists; use --force to overwrite it")


def _check_file(path: Path, option: str = "") -> None:
    """A click error (one line, exit code 1) if *path* cannot be an output file."""
    where = f"{option} " if option else ""
    if path.is_dir():
        raise click.ClickException(f"{where}{path} is a folder; give a file name")
    try:
        check_output_file(path)
    except InputError as exc:
        raise click.ClickException(f"{where}{exc}") from None


class OutputPath(click.Path):
    """An output file (``folder=False``) or folder: what can never be written to is one
    ``Error:`` line with exit code 1, not a usage error with exit code 2 (the command
    line is right, the file is not).

    A file must not be a folder, a device, a FIFO, a socket or a link to one
    of them; a folder must not be anything but a folder. ``-`` (standard
    output) passes.

    Examples
    --------
    >>> import click
    >>> from click.testing import CliRunner
    >>> @click.command()
    ... @click.option("-o", type=OutputPath())
    ... def cmd(o):
    ...     pass
    >>> res = CliRunner().invoke(cmd, ["-o", "/dev/null"])
    >>> res.exit_code, res.output.split(":")[:2]
    (1, ['Error', ' -o /dev/null is a character device, not a regular file'])
    """

    def __init__(self, *, folder: bool = False) -> None:
        super().__init__(file_okay=not folder, dir_okay=folder, path_type=Path)
        self.folder = folder

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        path = Path(value)
        option = max(param.opts, key=len) if param is not None and param.opts else ""
        if str(path) != "-" and self.folder:
            if path.exists() and not path.is_dir():
                raise click.ClickException(f"{option} {path} exists and is not a folder".strip())
        elif str(path) != "-":
            _check_file(path, option)
        return super().convert(value, param, ctx)
