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
    type=click.Choice(["expert", "query", "grid", "none"]),
    default="expert",
    help="One panel per rater (paper Fig. 4), one per query corpus (generator: ratings "
    "with several), raters × categories (Fig. 5), or one panel.",
)
@click.option(
    "--color",
    default=None,
    help="Column colouring the points [default: the first category]; 'query' colours "
    "them by query corpus (generator) when the ratings hold several. Not with "
    "--facet grid, which colours each row by its own category.",
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
    help="Figure file; the format follows the extension (pdf, svg, png, eps, ..., or html "
    "for an interactive map with the 'interactive' extra).",
)
@click.option(
    "--width",
    default="7in",
    show_default=True,
    help="Printed width (3.5in, 7in, 180mm, 8.9cm); the height follows the layout. An "
    ".html map fills the window unless --width is given.",
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
    width: str,
    dpi: int,
    xlim: tuple[float, float],
    ylim: tuple[float, float],
    no_clip: bool,
    no_style: bool,
    force: bool,
    **opts,
) -> None:
    """Draw the RRMap of RATINGS into a figure file laid out for its printed --width.

    Vector formats (PDF, SVG, EPS) keep text as text (TrueType fonts); EPS
    draws the background as filled contours, as PostScript would store the
    raster uncompressed. An .html output is an interactive map (hover shows
    each point's rater, categories and intervals).
    """
    import matplotlib

    matplotlib.use("Agg")

    from rrmap.plot import parse_width
    from rrmap.points import points

    fmt = _check_output(output, force)
    inches = parse_width(width, 7.0)
    if facet == "grid" and color is not None:
        raise InputError(
            "--color does not apply to --facet grid: each row is coloured by its own "
            "category (choose rows with --row)"
        )
    df, settings = ratings_from_options(ratings, opts)
    from rrmap.limits import check_figure  # before the points are made (rrmap.limits)

    check_figure(df, df["expert"].nunique() if facet != "none" else 1, [color], f"--facet {facet}")
    pts = points(df, **settings)
    categories = pts.attrs["rrmap"].get("categories") or []
    if color is None and facet != "grid":
        color = categories[0] if categories else None
    _check_columns(pts, color, rows, categories)
    if facet == "query" and "query" not in pts.columns:
        raise InputError(
            "--facet query: the ratings hold one query corpus; one panel per corpus needs "
            "an origin column naming several (see --query)"
        )
    kw = {"xlim": xlim, "ylim": ylim, "clip": not no_clip}
    if fmt == "html":
        # an interactive map fills the window unless a width was asked for
        given = click.get_current_context().get_parameter_source("width")
        html_inches = None if given is click.core.ParameterSource.DEFAULT else inches
        _write_html(pts, color, facet, output, html_inches, kw)
    else:
        _write_figure(pts, color, facet, rows, output, inches, dpi, fmt, no_style, kw)
    n_out = int((~pts["delta"].between(*xlim) | ~pts["r"].between(*ylim)).sum())
    what = "outside the view, not shown" if no_clip else "clipped to the edge of the view"
    click.echo(f"wrote {output} ({len(pts)} points, {n_out} {what})", err=True)


def _check_output(output: Path, force: bool) -> str:
    import matplotlib.pyplot as plt

    fmt = output.suffix.lstrip(".").lower()
    supported = {*plt.figure().canvas.get_supported_filetypes(), "html"}
    plt.close("all")
    if fmt not in supported:
        raise InputError(
            f"--output {output}: unknown figure format {fmt!r}; "
            f"use one of {', '.join(sorted(supported))}"
        )
    refuse_overwrite(output, force)
    return fmt


def _check_columns(pts, color: str | None, rows: tuple[str, ...], categories: list[str]) -> None:
    several = ["query"] if "query" in pts.columns else []
    if color == "query" and not several:
        raise InputError(
            "--color 'query': the ratings hold one query corpus; it colours by corpus when "
            "the origin column names several (see --query)"
        )
    if color is not None and color not in pts.columns:
        raise InputError(
            f"--color {color!r}: no such column; use one of "
            f"{', '.join(['expert', *several, *categories, 'quality'])}"
        )
    unknown = [r for r in rows if r not in pts.columns]
    if unknown:
        raise InputError(
            f"--row {', '.join(map(repr, unknown))}: no such column; use one of "
            f"{', '.join(categories)}"
        )


def _write_figure(pts, color, facet, rows, output, inches, dpi, fmt, no_style, kw) -> None:
    import matplotlib.pyplot as plt

    from rrmap.plot import plot_rrmap, plot_rrmap_by_rater, plot_rrmap_grid, save
    from rrmap.plot.styles import PAPER_STYLE

    if fmt in ("eps", "ps"):  # no compressed images and no transparency in PostScript
        kw = {**kw, "background": "contour", "alpha": 1.0}
    with plt.style.context({} if no_style else PAPER_STYLE):
        if facet in ("expert", "query"):
            fig = plot_rrmap_by_rater(pts, color, rater=facet, width=inches, **kw)
        elif facet == "grid":
            fig = plot_rrmap_grid(pts, list(rows) or None, width=inches, **kw)
        else:
            fig = plot_rrmap(pts, color, width=inches, **kw).figure
        try:
            save(fig, output, dpi=dpi)
        finally:
            plt.close(fig)


def _write_html(pts, color, facet, output, inches: float | None, kw) -> None:
    if facet == "grid":
        raise InputError(
            f"--output {output}: the interactive map has one panel per rater "
            "(--facet expert) or one panel (--facet none), not the grid"
        )
    try:
        from rrmap.plot.interactive import interactive_rrmap, save_html
    except ImportError as exc:
        raise InputError(
            f"--output {output}: interactive maps need plotly; pip install 'rrmap[interactive]'"
        ) from exc
    fig = interactive_rrmap(
        pts, color, facet=facet if facet != "none" else None, width=inches, **kw
    )
    save_html(fig, output)
