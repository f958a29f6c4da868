"""The ``rrmap`` command line: a thin layer over the library.

Every sub-command reports user errors as one line on stderr with exit
code 1; results go to stdout or files, progress and logs to stderr. Ctrl-C
and ``kill`` stop any of them with one line too (exit code 128 + the signal's
number): the command unwinds, so its lock, temporary files and worker
processes are released.
Sub-commands are imported when they are run (or listed by ``--help``), so
the command line starts without loading what other commands need.

Layout: :mod:`rrmap.cli.analyze`, :mod:`rrmap.cli.points`,
:mod:`rrmap.cli.plot` and :mod:`rrmap.cli.table` hold the core commands; :mod:`rrmap.rank.cli` and
:mod:`rrmap.judge.cli` the groups of the two companion packages; what they
all share (help options, the overwrite guard) is in :mod:`rrmap.cli.common`.
"""

from __future__ import annotations

import errno
import importlib
import os
import signal
import sys

import click

from rrmap._util.escape import message_text
from rrmap._version import __version__
from rrmap.cli._signals import command_running, signal_received, stop_on_signals, stopped
from rrmap.cli.common import CONTEXT_SETTINGS, HelpContext, refuse_overwrite, use_help_context

__all__ = ["CONTEXT_SETTINGS", "error_line", "main", "refuse_overwrite"]

# Arrow (pandas' string columns) keeps freed memory in its own allocator by default; the
# command line hands it back to the system, which lowers the peak of large files by about
# 80 MB at no cost in time. A value the user set is kept.
os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")

#: Sub-command → ``module:attribute`` of its click command (imported on first use) and
#: the first line of its help (so that ``rrmap --help`` imports no command; a test checks
#: that it equals the command's own).
_COMMANDS: dict[str, tuple[str, str]] = {
    "analyze": (
        "rrmap.cli.analyze:analyze_command",
        "Test expert and category effects in RATINGS and write tables and a report.",
    ),
    "judge": (
        "rrmap.judge.cli:judge_group",
        "Multimodal LLMs as aesthetic judges (any OpenAI-compatible endpoint).",
    ),
    "plot": (
        "rrmap.cli.plot:plot_command",
        "Draw the RRMap of RATINGS into a figure file laid out for its printed --width.",
    ),
    "points": (
        "rrmap.cli.points:points_command",
        "Compute one RRMap point (Δ, R, BC, quality) per reference/query pair in RATINGS.",
    ),
    "rank": (
        "rrmap.rank.cli:rank_group",
        "Pairwise preferences: rankings (Bradley-Terry, Elo), designs, alignment.",
    ),
    "table": (
        "rrmap.cli.table:table_command",
        "Write one table of an analysis (RESULTS folder) as booktabs LaTeX.",
    ),
}


class _Group(click.Group):
    """The main group: sub-commands loaded lazily, user errors as one line and exit code 1.

    rrmap reports bad input as ``ValueError`` (:class:`InputError` and the
    parameter checks) or as an ``OSError`` about a file; a full or read-only
    disk, a memory limit or too deep an input is one line too
    (:func:`error_line`), and so is any other failure. Set the environment
    variable ``RRMAP_DEBUG=1`` to see the traceback instead. Help texts are
    shown through :class:`~rrmap.cli.common.HelpFormatter` (code without its
    backticks).
    """

    context_class = HelpContext

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*_COMMANDS, *super().list_commands(ctx)})

    def resolve_command(self, ctx: click.Context, args: list[str]):
        """The command named first in *args*; a mistyped name gets the nearest one suggested."""
        name = click.utils.make_str(args[0])
        if self.get_command(ctx, name) is None and not name.startswith("-"):
            import difflib

            near = difflib.get_close_matches(name, self.list_commands(ctx), n=1, cutoff=0.6)
            if near:
                ctx.fail(f"No such command {name!r}. Did you mean {near[0]!r}?")
        return super().resolve_command(ctx, args)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in _COMMANDS and cmd_name not in self.commands:
            module, attr = _COMMANDS[cmd_name][0].split(":")
            cmd = getattr(importlib.import_module(module), attr)
            use_help_context([cmd])
            self.add_command(cmd, cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The list of commands, from the table above: no command is imported for it."""
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = []
        for name in names:
            # a stand-in command with the same help is shortened the way click does it
            cmd = self.commands.get(name) or click.Command(name, help=_COMMANDS[name][1])
            rows.append((name, cmd.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def main(self, args=None, *rest, **kwargs):  # type: ignore[override]
        """Run the command line; Ctrl-C, ``kill`` and a closed terminal stop it with one
        line (:mod:`rrmap.cli._signals`)."""
        with stop_on_signals(for_good=args is None):
            return super().main(args, *rest, **kwargs)

    def invoke(self, ctx: click.Context):
        try:
            with command_running():
                return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except KeyboardInterrupt:  # Ctrl-C, or Stopped by another signal
            stopped(ctx, signal_received() or signal.SIGINT)
        except BrokenPipeError:  # the reader went away (| head): stop quietly, as Unix tools do
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            ctx.exit(141)
        except Exception as exc:  # every failure is one line; RRMAP_DEBUG=1 shows the traceback
            if (signum := signal_received()) is not None:  # the work a signal cut short
                stopped(ctx, signum)
            if os.environ.get("RRMAP_DEBUG"):
                raise
            raise click.ClickException(error_line(exc)) from None


#: What to do about an OS error, by ``errno``.
_OS_ADVICE = {
    errno.ENOSPC: "no space left on the device: free some space or write elsewhere",
    errno.EDQUOT: "disk quota exceeded: free some space or write elsewhere",
    errno.EROFS: "read-only file system: write elsewhere (--out, -o)",
    errno.EFBIG: "file too large for the file system or the file-size limit (ulimit -f)",
    errno.EACCES: "permission denied",
    errno.EPERM: "operation not permitted",
    errno.EMFILE: "too many open files: raise the limit (ulimit -n) or use fewer --jobs",
    errno.ENFILE: "too many open files on the system: try again later",
    errno.ENAMETOOLONG: "file name too long",
    errno.ENOENT: "no such file or folder",
    errno.EISDIR: "is a folder",
    errno.ENOTDIR: "not a folder",
}


def error_line(exc: BaseException) -> str:
    """The one line ``rrmap`` prints for *exc* (after ``Error:``): what failed and what to do.

    Parameters
    ----------
    exc : BaseException

    Returns
    -------
    str

    Examples
    --------
    >>> import errno
    >>> error_line(OSError(errno.ENOSPC, "No space left on device", "out/points.csv"))
    'out/points.csv: no space left on the device: free some space or write elsewhere'
    >>> error_line(MemoryError()).split(":")[0]
    'out of memory'
    """
    if isinstance(exc, OSError):
        what = _OS_ADVICE.get(exc.errno or -1) or (exc.strerror or str(exc) or type(exc).__name__)
        text = f"{message_text(exc.filename)}: {what}" if exc.filename else what
    elif isinstance(exc, MemoryError):
        text = (
            "out of memory: reduce the input (fewer raters, categories or rows) or the number "
            "of permutations/draws"
        )
    elif isinstance(exc, RecursionError):
        text = "input nested too deeply to read (a JSON or text structure without end?)"
    elif isinstance(exc, OverflowError):
        text = f"a number is too large: {message_text(exc, 500)}"
    elif isinstance(exc, ValueError):
        text = message_text(exc, 20_000)
    else:
        text = (
            f"unexpected {type(exc).__name__}: {message_text(exc, 300)} "
            "(set RRMAP_DEBUG=1 to see the traceback; please report it)"
        )
    return " ".join(text.split())


@click.group(cls=_Group, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, "-V", "--version", prog_name="rrmap")
def main() -> None:
    """rrmap: Relative Ratings Maps of expert interval ratings.

    Turn reference/query interval ratings into RRMap points (relative shift,
    relative dispersion, Bhattacharyya overlap, quality zone), test expert
    and category effects, and draw the maps.

    Exit codes: 0 done; 1 bad input or a failure (a file, a column, a value,
    a full or read-only disk, a memory limit: one line "Error: ...", set
    RRMAP_DEBUG=1 to see a traceback instead); 2 the command itself was
    mistyped (unknown option, missing argument, value out of range), with its
    usage; 130 stopped by Ctrl-C, 143 by kill (SIGTERM), 129 by a closed
    terminal (SIGHUP), with one line "Interrupted.", "Terminated." or "Hangup."
    (a second signal, or 10 s without an end, ends it at once); no process of
    the run is left.

    Outputs are all-or-nothing: files are written to a temporary name and
    renamed into place, an analysis folder is swapped in whole and locked
    while a run writes it, so a kill or a full disk never leaves a mix or a
    truncated file. Labels are escaped for each format; CSV cells a
    spreadsheet would run as a formula get a leading ' (--raw-csv keeps
    them). Sizes are checked before any work (rrmap.limits).
    """
