"""What every rrmap command shares: help options and the overwrite guard.

Kept apart from :mod:`rrmap.cli` so that command modules can import it at
module level without importing the main group (``python -m rrmap.cli``
would otherwise import that module twice).
"""

from __future__ import annotations

from pathlib import Path

import click

#: ``-h``/``--help`` everywhere, and defaults shown in every help text.
CONTEXT_SETTINGS: dict = {"help_option_names": ["-h", "--help"], "show_default": True}


#: ``--raw-csv``: text cells as they are instead of spreadsheet-safe (docs/ratings.md).
raw_csv_option = click.option(
    "--raw-csv",
    is_flag=True,
    help="Write CSV text cells as they are. By default a cell a spreadsheet would run as "
    "a formula (starting with = + - @, a tab or a carriage return) gets a leading '.",
)


def refuse_overwrite(path: Path, force: bool) -> None:
    """Raise a click error if *path* exists and ``--force`` was not given."""
    if path.exists() and not force:
        raise click.ClickException(f"{path} exists; use --force to overwrite it")
