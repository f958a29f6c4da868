"""Opt-in styles for paper figures: a matplotlib style and a plotnine theme.

The matplotlib style ``rrmap.plot.rrmap-paper`` sets small journal type
sizes, keeps PDF/PS text as text (TrueType, ``pdf.fonttype: 42``) and SVG text
as text, and saves at 300 dpi at the size the figure was laid out for. Use it globally with
``plt.style.use("rrmap.plot.rrmap-paper")`` or for one block with
``plt.style.context(...)``; the file itself is :data:`PAPER_STYLE`.

Examples
--------
>>> import matplotlib.pyplot as plt
>>> import rrmap.plot.styles
>>> with plt.style.context(rrmap.plot.styles.PAPER_STYLE):
...     plt.rcParams["pdf.fonttype"]
42
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from plotnine import theme

__all__ = ["PAPER_STYLE", "paper_style", "theme_rrmap"]

#: Path of the shipped ``rrmap-paper.mplstyle`` (also usable as ``"rrmap.plot.rrmap-paper"``).
PAPER_STYLE: str = str(resources.files("rrmap.plot").joinpath("rrmap-paper.mplstyle"))


def paper_settings(
    width: float | str | None = None, height: float | str | None = None
) -> dict[str, Any]:
    """The rcParams :func:`paper_style` sets for a figure printed *width* wide.

    Examples
    --------
    >>> rc = paper_settings("85mm")
    >>> rc["pdf.fonttype"], rc["xtick.labelsize"], [round(v, 2) for v in rc["figure.figsize"]]
    (42, 6.0, [3.35, 2.68])
    """
    from rrmap.plot.base._style import typography
    from rrmap.plot.base._widths import parse_width

    w = parse_width(width, 3.5)
    h = parse_width(height, 0.8 * w) if height is not None else 0.8 * w
    return {
        **typography(w),
        "figure.figsize": (w, h),
        "figure.dpi": 100,
        "savefig.dpi": 300,
        "savefig.pad_inches": 0.02,
        "image.cmap": "cividis",
        "lines.linewidth": 1.0,
    }


@contextmanager
def paper_style(
    width: float | str | None = None, height: float | str | None = None
) -> Iterator[dict[str, Any]]:
    """Journal type sizes and text kept as text for your own figures, within a ``with``.

    Inside the block new figures are *width* × *height* (default 3.5 in × 0.8 of
    the width; ``"85mm"``, ``"7in"``), type is in absolute points for that
    width (6–6.5 pt at one column, 7–8 pt at two, as in rrmap's own figures),
    lines are thin, and ``fig.savefig`` writes TrueType (Type 42) fonts in
    PDF/PS (each a subset without the tables only text shaping reads: no viewer
    shapes embedded text) and ``<text>`` in SVG, at 300 dpi for raster formats. Save inside the
    block: matplotlib reads the fonts' settings when it saves. Your rcParams
    are back as they were after the block.

    Parameters
    ----------
    width, height : float or str, optional
        Printed size of new figures.

    Yields
    ------
    dict
        The rcParams set (also :func:`paper_settings`).

    Examples
    --------
    >>> import tempfile
    >>> import matplotlib.pyplot as plt
    >>> import rrmap
    >>> from rrmap.plot import paper_style, plot_rrmap
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> with paper_style("3.5in"):
    ...     fig, ax = plt.subplots(layout="constrained")
    ...     ax = plot_rrmap(pts[pts.expert == "E1"], "movement", ax=ax)
    ...     fig.savefig(tempfile.mkdtemp() + "/e1.pdf")
    >>> float(fig.get_figwidth()), plt.rcParams["pdf.fonttype"] == 42
    (3.5, False)
    >>> plt.close(fig)
    """
    import matplotlib as mpl

    from rrmap.plot.base._subset import lean_font_subsets

    settings = paper_settings(width, height)
    with mpl.rc_context(settings), lean_font_subsets():
        yield settings


def theme_rrmap(base_size: float = 8.0, base_family: str | None = None) -> theme:
    """A plotnine theme for paper figures of the RRMap (opt-in).

    ``theme_bw`` with small type, no minor grid, a light major grid, legends
    at the bottom and facet strips without a fill; it also keeps PDF text as
    text (Type 42) when the plot is saved. Screen resolution stays plotnine's
    (notebooks stay small); :func:`rrmap.plot.save` and the plot's ``save``
    write 300 dpi.

    Parameters
    ----------
    base_size : float, default 8
        Base font size in points (journal figures: 7–9).
    base_family : str, optional
        Font family; plotnine's default if omitted.

    Returns
    -------
    plotnine.theme

    Examples
    --------
    >>> import rrmap
    >>> from rrmap.plot.ggplot import ggrrmap
    >>> p = ggrrmap(rrmap.points(rrmap.datasets.load_example_ratings()), color="movement")
    >>> p = p + theme_rrmap()
    >>> from plotnine import ggplot
    >>> isinstance(p, ggplot)
    True
    """
    from rrmap.plot._plotnine_theme import ThemeRRMap

    return ThemeRRMap(base_size, base_family)
