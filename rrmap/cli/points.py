"""``rrmap points``: ratings → RRMap points table."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from rrmap._io.writing import write_csv, write_parquet
from rrmap._util.atomic import atomic_path, write_text
from rrmap._util.markdown import markdown_table
from rrmap.cli._options import ratings_from_options, ratings_options
from rrmap.cli.common import CONTEXT_SETTINGS, raw_csv_option, refuse_overwrite
from rrmap.points import points


@click.command("points", context_settings=CONTEXT_SETTINGS)
@click.argument("ratings", type=click.Path(dir_okay=False, path_type=Path))
@ratings_options
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write here instead of stdout ('-': stdout).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "parquet", "json", "markdown"]),
    default=None,
    help="Output format [from the OUTPUT suffix (.parquet, .json, .md), else csv]. "
    "Parquet needs the 'parquet' extra (pyarrow) and an OUTPUT file.",
)
@click.option("--force", is_flag=True, help="Overwrite OUTPUT if it exists.")
@raw_csv_option
def points_command(
    ratings: Path, output: Path | None, fmt: str | None, force: bool, raw_csv: bool, **opts
) -> None:
    """Compute one RRMap point (Δ, R, BC, quality) per reference/query pair in RATINGS.

    RATINGS '-' reads standard input. OUTPUT is written all-or-nothing (a
    temporary file renamed into place).
    """
    if output is not None and str(output) == "-":  # standard output, as when -o is not given
        output = None
    fmt = fmt or _format_of(output)
    if fmt == "parquet" and output is None:
        raise click.UsageError("Parquet is a binary format: give an OUTPUT file (-o)")
    if output is not None:
        refuse_overwrite(output, force)
    df, settings = ratings_from_options(ratings, opts)
    pts = points(df, **settings)
    if fmt == "parquet":
        with atomic_path(output) as tmp:
            write_parquet(pts, tmp)
    elif fmt == "csv":
        if output is None:
            write_csv(pts, sys.stdout, raw=raw_csv)
        else:
            with atomic_path(output) as tmp:
                write_csv(pts, tmp, raw=raw_csv)
    elif output is None:
        sys.stdout.write(_render(pts, fmt))
    else:
        write_text(output, _render(pts, fmt))
    if output is not None:
        click.echo(f"wrote {len(pts)} points to {output}", err=True)


def _format_of(output: Path | None) -> str:
    suffix = output.suffix.lower() if output is not None else ""
    return {".parquet": "parquet", ".pq": "parquet", ".json": "json", ".md": "markdown"}.get(
        suffix, "csv"
    )


def _render(pts, fmt: str) -> str:
    out = pts.copy()
    out["quality"] = out["quality"].astype(str)
    if fmt == "json":
        return out.to_json(orient="records", indent=1) + "\n"
    return markdown_table(out) + "\n"
