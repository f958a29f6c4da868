"""RRMap figures (docs/figures.md): matplotlib functions and a plotnine builder.

- :mod:`rrmap.plot.map`: one panel on an Axes (:func:`plot_rrmap`) and what it drew
  (:func:`panel_artists`);
- :mod:`rrmap.plot.layouts`: one panel per rater (paper Fig. 4), raters × categories
  (Fig. 5), and the figures ``rrmap analyze`` writes;
- :mod:`rrmap.plot.intervals`: example intervals beside their points (Fig. 2);
- :mod:`rrmap.plot.ggplot`: :func:`ggrrmap`, a ``ggplot`` to extend with ``+``;
- :mod:`rrmap.plot.styles`: the paper style (:data:`PAPER_STYLE`) and :func:`theme_rrmap`.

The plotnine names (``ggrrmap``, ``rrmap_layers_data``, ``theme_rrmap``) are
imported on first use, so that matplotlib users do not pay for plotnine.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import rrmap, rrmap.plot
>>> ax = rrmap.plot.plot_rrmap(rrmap.points(rrmap.datasets.load_example_ratings()))
>>> ax.get_xlabel()
'relative shift Δ'
"""

from __future__ import annotations

import lazy_loader as _lazy

from rrmap.plot._geometry import DEFAULT_XLIM, DEFAULT_YLIM
from rrmap.plot.intervals import example_interval_pairs, plot_interval_examples
from rrmap.plot.layouts import plot_rrmap_by_rater, plot_rrmap_grid, save_analysis_figures
from rrmap.plot.map import (
    MARKERS,
    OKABE_ITO,
    QUALITY_COLORS,
    PanelArtists,
    background_cmap,
    panel_artists,
    plot_rrmap,
)
from rrmap.plot.styles import PAPER_STYLE

__all__ = [
    "DEFAULT_XLIM",
    "DEFAULT_YLIM",
    "MARKERS",
    "OKABE_ITO",
    "PAPER_STYLE",
    "QUALITY_COLORS",
    "PanelArtists",
    "background_cmap",
    "example_interval_pairs",
    "ggrrmap",
    "panel_artists",
    "plot_interval_examples",
    "plot_rrmap",
    "plot_rrmap_by_rater",
    "plot_rrmap_grid",
    "rrmap_layers_data",
    "save_analysis_figures",
    "theme_rrmap",
]

# the plotnine names load on first use
__getattr__, _lazy_dir, _ = _lazy.attach(
    __name__,
    submodules=["ggplot", "intervals", "layouts", "map", "styles"],
    submod_attrs={"ggplot": ["ggrrmap", "rrmap_layers_data"], "styles": ["theme_rrmap"]},
)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_lazy_dir()})
