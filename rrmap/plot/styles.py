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

from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from plotnine import theme

__all__ = ["PAPER_STYLE", "theme_rrmap"]

#: Path of the shipped ``rrmap-paper.mplstyle`` (also usable as ``"rrmap.plot.rrmap-paper"``).
PAPER_STYLE: str = str(resources.files("rrmap.plot").joinpath("rrmap-paper.mplstyle"))


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
    from rrmap.plot._plotnine_theme import _ThemeRRMap

    return _ThemeRRMap(base_size, base_family)
