"""``rrmap points``: ratings → RRMap points table."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from rrmap._markdown import markdown_table
from rrmap.cli._options import ratings_from_options, ratings_options
from rrmap.cli.common import CONTEXT_SETTINGS, refuse_overwrite
from rrmap.points import points


@click.command("points", context_settings=CONTEXT_SETTINGS)
@click.argument("ratings", type=click.Path(dir_okay=False, path_type=Path))
@ratings_options
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write here instead of stdout.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "json", "markdown"]),
    default="csv",
    help="Output format.",
)
@click.option("--force", is_flag=True, help="Overwrite OUTPUT if it exists.")
def points_command(ratings: Path, output: Path | None, fmt: str, force: bool, **opts) -> None:
    """Compute one RRMap point (Δ, R, BC, quality) per reference/query pair in RATINGS."""

    df, settings = ratings_from_options(ratings, opts)
    pts = points(df, **settings)
    if output is not None:
        refuse_overwrite(output, force)
    text = _render(pts, fmt)
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
        click.echo(f"wrote {len(pts)} points to {output}", err=True)


def _render(pts, fmt: str) -> str:
    out = pts.copy()
    out["quality"] = out["quality"].astype(str)
    if fmt == "csv":
        return out.to_csv(index=False)
    if fmt == "json":
        return out.to_json(orient="records", indent=1) + "\n"
    return markdown_table(out) + "\n"
