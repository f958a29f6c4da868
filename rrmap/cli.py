"""The ``rrmap`` command line: a thin layer over the library.

Every sub-command reports user errors as one line on stderr with exit
code 1; results go to stdout or files, progress and logs to stderr.
"""

from __future__ import annotations

import os
import sys

import click

from rrmap._cli_common import CONTEXT_SETTINGS, refuse_overwrite
from rrmap._version import __version__

__all__ = ["CONTEXT_SETTINGS", "main", "refuse_overwrite"]


class _Group(click.Group):
    """A click group that turns user errors into one ``Error: ...`` line and exit code 1.

    rrmap reports bad input as ``ValueError`` (:class:`InputError` and the
    parameter checks) or as an ``OSError`` about a file. Set the environment
    variable ``RRMAP_DEBUG=1`` to see the traceback instead.
    """

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (ValueError, FileNotFoundError, IsADirectoryError, PermissionError) as exc:
            if os.environ.get("RRMAP_DEBUG"):
                raise
            raise click.ClickException(_one_line(exc)) from None


def _one_line(exc: BaseException) -> str:
    text = (
        str(exc)
        if not isinstance(exc, OSError) or not exc.filename
        else (f"{exc.filename}: {exc.strerror or exc}")
    )
    return " ".join(text.split())


@click.group(cls=_Group, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, "-V", "--version", prog_name="rrmap")
def main() -> None:
    """rrmap: Relative Ratings Maps of expert interval ratings.

    Turn reference/query interval ratings into RRMap points (relative shift,
    relative dispersion, Bhattacharyya overlap, quality zone), test expert
    and category effects, and draw the maps.

    Exit codes: 0 done; 1 bad input (a file, a column, a value: one line
    "Error: ...", set RRMAP_DEBUG=1 to see a traceback instead); 2 the command
    itself was mistyped (unknown option, missing argument, value out of range),
    with its usage.
    """


def _register() -> None:
    from rrmap._cli_points import points_command

    main.add_command(points_command)
    from rrmap._cli_analyze import analyze_command

    main.add_command(analyze_command)
    from rrmap._cli_plot import plot_command

    main.add_command(plot_command)
    from rrmap.judge._cli import judge_group
    from rrmap.judge._cli_rate import rate_command

    judge_group.add_command(rate_command)

    main.add_command(judge_group)
    from rrmap.rank._cli import rank_group

    main.add_command(rank_group)


_register()

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
