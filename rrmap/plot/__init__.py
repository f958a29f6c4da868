"""RRMap figures (docs/figures.md): matplotlib functions and a plotnine builder.

- :mod:`rrmap.plot.figures.map`: one panel on an Axes (:func:`plot_rrmap`) and what it drew
  (:func:`panel_artists`);
- :mod:`rrmap.plot.figures.layouts`: one panel per rater (paper Fig. 4), raters × categories
  (Fig. 5), and the figures ``rrmap analyze`` writes;
- :mod:`rrmap.plot.figures.intervals`: example intervals beside their points (Fig. 2);
- :mod:`rrmap.plot.figures.summaries`: quality proportions (stacked bars) and agreement
  across raters;
- :mod:`rrmap.plot.ggplot`: :func:`ggrrmap`, a ``ggplot`` to extend with ``+``;
- :mod:`rrmap.plot.interactive`: :func:`interactive_rrmap`, a plotly figure (hover, HTML);
- :mod:`rrmap.plot.export`: :func:`save` (text as text, exact size) and the analysis figures;
- :mod:`rrmap.plot.styles`: the paper style (:data:`PAPER_STYLE`) and :func:`theme_rrmap`;
- :mod:`rrmap.plot.base`: what every figure is built from (palettes, markers, widths,
  zones, the BC background).

The figures import only ``base``; the builders, the export and the styles import both.

Every figure takes a printed ``width`` (``"3.5in"``, ``"180mm"``) and lays itself
out for it: type never under 6 pt, panels at least 1.35 in wide, legends and
colorbars inside the page, the height following from the panels.

The plotnine and plotly names (``ggrrmap``, ``rrmap_layers_data``,
``theme_rrmap``, ``interactive_rrmap``, ``save_html``) are imported on first
use, so that matplotlib users do not pay for them.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import rrmap, rrmap.plot
>>> ax = rrmap.plot.plot_rrmap(rrmap.points(rrmap.datasets.load_example_ratings()), width="3.5in")
>>> ax.get_xlabel(), float(ax.figure.get_figwidth())
('relative shift Δ', 3.5)
"""

from __future__ import annotations

import lazy_loader as _lazy

__all__ = [
    "DEFAULT_XLIM",
    "DEFAULT_YLIM",
    "MARKERS",
    "OKABE_ITO",
    "PAPER_STYLE",
    "QUALITY_COLORS",
    "QUALITY_MARKERS",
    "RESERVED_MARKERS",
    "AnalysisFigures",
    "PanelArtists",
    "add_legend",
    "background_cmap",
    "check_figure_size",
    "example_interval_pairs",
    "ggrrmap",
    "interactive_rrmap",
    "panel_artists",
    "paper_style",
    "parse_width",
    "plot_agreement",
    "plot_interval_examples",
    "plot_proportions",
    "plot_rrmap",
    "plot_rrmap_by_rater",
    "plot_rrmap_grid",
    "rrmap_layers_data",
    "save",
    "save_analysis_figures",
    "save_html",
    "theme_rrmap",
    "zone_key",
]

# every name loads on first use: a process that only checks a width, or hands the drawing
# to worker processes (rrmap analyze), never imports matplotlib
_lazy_getattr, _lazy_dir, _ = _lazy.attach(
    __name__,
    submodules=[
        "analysis_figures",
        "base",
        "export",
        "figures",
        "ggplot",
        "interactive",
        "styles",
    ],
    submod_attrs={
        "base.geometry": ["DEFAULT_XLIM", "DEFAULT_YLIM"],
        "base._style": [
            "MARKERS",
            "OKABE_ITO",
            "QUALITY_COLORS",
            "QUALITY_MARKERS",
            "RESERVED_MARKERS",
        ],
        "base._widths": ["check_figure_size", "parse_width"],
        "analysis_figures": ["AnalysisFigures"],
        "export": ["save", "save_analysis_figures"],
        "ggplot": ["ggrrmap", "rrmap_layers_data"],
        "interactive": ["interactive_rrmap", "save_html"],
        "figures.intervals": ["example_interval_pairs", "plot_interval_examples"],
        "figures.layouts": ["plot_rrmap_by_rater", "plot_rrmap_grid", "zone_key"],
        "figures.map": ["PanelArtists", "background_cmap", "panel_artists", "plot_rrmap"],
        "styles": ["PAPER_STYLE", "paper_style", "theme_rrmap"],
        "figures.summaries": ["plot_agreement", "plot_proportions"],
        "figures.shared": ["add_legend"],
    },
)


#: The extra that installs each optional module a figure needs.
_EXTRAS = {"plotly": "interactive", "plotnine": "the default install"}


def __getattr__(name: str):
    """A lazily loaded name; a missing optional dependency says how to install it."""
    try:
        return _lazy_getattr(name)
    except ModuleNotFoundError as exc:
        top = (exc.name or "").split(".")[0]
        if top not in _EXTRAS:
            raise
        extra = _EXTRAS[top]
        how = (
            f"pip install 'rrmap[{extra}]'"
            if extra != "the default install"
            else ("pip install plotnine")
        )
        raise ImportError(f"rrmap.plot.{name} needs {top}, which is not installed: {how}") from exc


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_lazy_dir()})
