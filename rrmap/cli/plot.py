"""``rrmap plot``: ratings → an RRMap figure file (PDF, SVG, PNG...)."""

from __future__ import annotations

from pathlib import Path

import click

from rrmap.cli._options import ratings_from_options, ratings_options
from rrmap.cli.common import CONTEXT_SETTINGS, refuse_overwrite
from rrmap.errors import InputError


@click.command("plot", context_settings=CONTEXT_SETTINGS)
@click.argument("ratings", type=click.Path(dir_okay=False, path_type=Path))
@ratings_options
@click.option(
    "--facet",
    type=click.Choice(["expert", "grid", "none"]),
    default="expert",
    help="One panel per rater (paper Fig. 4), raters × categories (Fig. 5), or one panel.",
)
@click.option(
    "--color",
    default=None,
    help="Column colouring the points [default: the first category]. "
    "Ignored by --facet grid, which colours each row by its category.",
)
@click.option(
    "--row",
    "rows",
    multiple=True,
    help="Category drawn as a row of --facet grid (repeatable) "
    "[default: categories with at most 12 options].",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("rrmap.pdf"),
    help="Figure file; the format follows the extension (pdf, svg, png, ...).",
)
@click.option("--dpi", type=click.IntRange(min=10), default=300, help="Resolution of PNG output.")
@click.option("--xlim", nargs=2, type=float, default=(-4.0, 4.0), help="Δ range of the view.")
@click.option("--ylim", nargs=2, type=float, default=(0.0, 2.5), help="R range of the view.")
@click.option(
    "--no-clip",
    is_flag=True,
    help="Leave points beyond the view out (counted) instead of clipping them to its edge.",
)
@click.option(
    "--no-style",
    is_flag=True,
    help="Use your matplotlib defaults instead of the rrmap paper style.",
)
@click.option("--force", is_flag=True, help="Overwrite OUTPUT if it exists.")
def plot_command(
    ratings: Path,
    facet: str,
    color: str | None,
    rows: tuple[str, ...],
    output: Path,
    dpi: int,
    xlim: tuple[float, float],
    ylim: tuple[float, float],
    no_clip: bool,
    no_style: bool,
    force: bool,
    **opts,
) -> None:
    """Draw the RRMap of RATINGS into a figure file (vector PDF/SVG keep text as text)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from rrmap.plot import plot_rrmap, plot_rrmap_by_rater, plot_rrmap_grid
    from rrmap.plot.styles import PAPER_STYLE
    from rrmap.points import points

    fmt = output.suffix.lstrip(".").lower()
    supported = plt.figure().canvas.get_supported_filetypes()
    plt.close("all")
    if fmt not in supported:
        raise InputError(
            f"--output {output}: unknown figure format {fmt!r}; "
            f"use one of {', '.join(sorted(supported))}"
        )
    refuse_overwrite(output, force)
    df, settings = ratings_from_options(ratings, opts)
    pts = points(df, **settings)
    categories = pts.attrs["rrmap"].get("categories") or []
    if color is None and facet != "grid":
        color = categories[0] if categories else None
    if color is not None and color not in pts.columns:
        raise InputError(
            f"--color {color!r}: no such column; use one of "
            f"{', '.join(['expert', *categories, 'quality'])}"
        )
    unknown = [r for r in rows if r not in pts.columns]
    if unknown:
        raise InputError(
            f"--row {', '.join(map(repr, unknown))}: no such column; use one of "
            f"{', '.join(categories)}"
        )
    kw = {"xlim": xlim, "ylim": ylim, "clip": not no_clip}
    style = plt.style.context({} if no_style else PAPER_STYLE)
    with style:
        if facet == "expert":
            fig = plot_rrmap_by_rater(pts, color, **kw)
        elif facet == "grid":
            fig = plot_rrmap_grid(pts, list(rows) or None, **kw)
        else:
            ax = plot_rrmap(pts, color, **kw)
            fig = ax.figure
        try:
            fig.savefig(output, dpi=dpi)
        finally:
            plt.close(fig)
    n_out = int((~pts["delta"].between(*xlim) | ~pts["r"].between(*ylim)).sum())
    what = "outside the view, not shown" if no_clip else "clipped to the edge of the view"
    click.echo(f"wrote {output} ({len(pts)} points, {n_out} {what})", err=True)
