"""Figures of several RRMap panels, laid out for the width they are printed at.

:func:`plot_rrmap_by_rater` draws one panel per rater (paper Fig. 4),
:func:`plot_rrmap_grid` raters as columns and categories as rows (paper
Fig. 5). Both take a printed ``width`` (3.5 in for one journal column, 7 in
for two): the number of panels per row, the type sizes (never under 6 pt),
where legends go and the height all follow from it. Panels are never
narrower than 1.35 in: where they would be, the grid's raters wrap to more
rows of panels (each category a row per block of raters), and only a width
narrower than one column of panels is refused, naming the one that works
(:func:`grid_min_width`).
Under the panels sit one colorbar, the legend and a zone key. Nothing here
calls ``show()``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.legend_handler import HandlerPatch
from matplotlib.lines import Line2D
from matplotlib.patches import Ellipse, Rectangle

from rrmap.errors import InputError
from rrmap.plot.base._glyphs import gathers_glyph_warnings
from rrmap.plot.base._keywords import lists_keywords
from rrmap.plot.base._sizing import (
    Footer,
    LiveTicks,
    fit_with_footer,
    freeze_ticks,
    lay_out,
    legend_height_in,
    legend_ncols,
    link_panels,
    new_figure,
    renderer_of,
    text_width_pt,
    thin_ticks,
)
from rrmap.plot.base._style import (
    column_name,
    figure_text,
    fitted_text,
    option_name,
    rc_points,
    title,
    typography,
)
from rrmap.plot.base._widths import MIN_PANEL, grid_columns, min_grid_width, parse_width
from rrmap.plot.figures.panel import (
    CLIPPED_GID,
    PANEL_KEYWORDS,
    PanelStyle,
    axis_label,
    check_points,
    draw_panel,
    legend_handles,
    levels_of,
    panel_style,
    record_panel,
    thresholds_of,
)
from rrmap.zones import Thresholds

__all__ = ["grid_min_width", "plot_rrmap_by_rater", "plot_rrmap_grid", "zone_key"]

#: Narrowest panel the layouts draw (inches): below it, panels wrap to a new row (per
#: rater), or the grid is refused.
_MIN_PANEL = MIN_PANEL
#: Width the per-rater figure takes besides its panels (y labels, gaps; inches).
_BY_RATER_MARGIN = 0.55
#: Room kept right of the grid's panels for the legends of its rows (inches).
_RIGHT_LEGEND = 1.6


def _point_size(panel_w: float) -> float:
    """Default marker area (points²) for panels *panel_w* inches wide: 22 from 2.2 in down
    to 10 at 1 in, so that small panels are not covered by their markers."""
    return round(22.0 * min(1.0, max(0.45, panel_w / 2.2)), 1)


def panel_title(name: str, n: int, n_clipped: int, clip: bool, panel_w: float) -> str:
    """``E1 (n = 135, 2 clipped)``, on two lines when one is wider than the panel; the
    rater's *name* (not escaped) is cut with "…" to the panel's width (*panel_w* inches,
    less a margin between neighbouring titles), at the current ``axes.titlesize``.

    Examples
    --------
    >>> with mpl.rc_context({"axes.titlesize": 8.0}):
    ...     print(panel_title("E1", 135, 2, True, 2.0))
    ...     print(panel_title("E1", 135, 2, False, 0.5))
    E1 (n = 135, 2 clipped)
    E1
    n = 135, 2 outside
    """
    detail = f"n = {n}"
    if n_clipped:
        detail += f", {n_clipped} {'clipped' if clip else 'outside'}"
    size = rc_points("axes.titlesize")
    one = f"{figure_text(name)} ({detail})"
    if text_width_pt(one, size) <= 72.0 * panel_w:
        return one
    return f"{fitted_text(name, size, 0.9 * panel_w)}\n{detail}"


def _options_only(handles: Sequence[Any]) -> list[Any]:
    """The legend entries of the options, without the one counting clipped points."""
    return [h for h in handles if h.get_gid() != CLIPPED_GID]


def _show_outer_labels(grid: np.ndarray, visible: np.ndarray) -> None:
    """Tick labels and axis labels only on the outer panels: x on the lowest visible panel
    of each column, y on the first column."""
    nrows, ncols = grid.shape
    for i in range(nrows):
        for j in range(ncols):
            if not visible[i, j]:
                continue
            ax = grid[i, j]
            bottom = i == nrows - 1 or not visible[i + 1 :, j].any()
            ax.tick_params(labelbottom=bottom, labelleft=j == 0)
            if not bottom:
                ax.set_xlabel("")
            if j != 0:
                ax.set_ylabel("")


def _add_footer(
    fig: Figure,
    st: PanelStyle,
    mappable: Any,
    before: Sequence[dict[str, Any] | None],
    after: Sequence[dict[str, Any] | None],
    colorbar: bool,
) -> Footer:
    """Under the panels, in rows that fit the width: the legends *before* (a row's legend
    stays next to its panels), the colorbar, the legends *after* (the zone key)."""
    footer = Footer(fig)
    width = fig.get_figwidth()
    size = rc_points("legend.fontsize")

    def add(kw: dict[str, Any] | None) -> None:
        if kw and kw.get("handles"):
            labels = [h.get_label() for h in kw["handles"]]
            footer.legend(ncols=legend_ncols(labels, size, width - 0.1), **kw)

    for kw in before:
        add(kw)
    if colorbar and mappable is not None:
        footer.colorbar(mappable, axis_label("bc", st.labels), bar_width=min(2.0, 0.45 * width))
    for kw in after:
        add(kw)
    return footer


def _entry_width(labels: Sequence[str], size: float) -> float:
    """Width (inches) of the widest legend entry of *labels*: key, gap and text."""
    rc = mpl.rcParams
    key = rc["legend.handlelength"] + rc["legend.handletextpad"] + 2 * rc["legend.borderpad"]
    return (max(text_width_pt(s, size) for s in labels) + key * size) / 72.0


def _legends_in_slot(
    slot: Any, legends: list[dict[str, Any]], panel_w: float, panel_h: float
) -> list[dict[str, Any]]:
    """Put the first of *legends* that fit into an empty panel slot (stacked, top first);
    return the others."""
    size = rc_points("legend.fontsize")
    used, k = 0.0, 0
    fitted = []
    for kw in legends:
        labels = [h.get_label() for h in kw["handles"]]
        ncols = legend_ncols(labels, size, panel_w - 0.05)
        need = legend_height_in(math.ceil(len(labels) / ncols), size, True) + 0.08
        if used + need > panel_h or _entry_width(labels, size) > panel_w - 0.05:
            break
        used += need
        fitted.append(ncols)
        k += 1
    if not k:
        return legends
    slot.set_axis_off()
    first = None
    for j, (kw, ncols) in enumerate(zip(legends[:k], fitted, strict=True)):
        loc = "upper left" if j == 0 else "lower left"
        leg = slot.legend(loc=loc, ncols=ncols, borderaxespad=0.0, **kw)
        if j == 0:
            first = leg
    if k > 1 and first is not None:
        slot.add_artist(first)
    return legends[k:]


def _key(points: pd.DataFrame, st: PanelStyle, clipped: int) -> dict[str, Any]:
    return {**zone_key(thresholds_of(points, st.thresholds), clipped, st.clip), "title": "zones"}


@lists_keywords(PANEL_KEYWORDS)
@gathers_glyph_warnings
def plot_rrmap_by_rater(
    points: pd.DataFrame,
    color: str | None = None,
    *,
    rater: str = "expert",
    width: float | str | None = None,
    ncols: int | None = None,
    aspect: float = 0.85,
    legend: bool = True,
    colorbar: bool = True,
    key: bool = True,
    **style: Any,
) -> Figure:
    """One RRMap panel per rater, sharing axes, colours, colorbar and legend (paper Fig. 4).

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points`.
    color : str, optional
        Column colouring the points (same colours in every panel).
    rater : str, default "expert"
        Column naming the raters, one panel each.
    width : float or str, optional
        Printed width (``3.5``, ``"3.5in"``, ``"180mm"``); default 7 in. The
        height follows from the panels' *aspect*.
    ncols : int, optional
        Panels per row; default as many as fit at least 1.35 in wide each
        (3 raters: one row at 7 in, 2 + 1 at 3.5 in and down to 3.3 in).
    aspect : float, default 0.85
        Panel height / width.
    legend, colorbar, key : bool, default True
        Draw the legend of *color*, the BC colorbar and the zone key under
        the panels.
    **style
        Passed to :func:`plot_rrmap` (``xlim``, ``ylim``, ``thresholds``,
        ``palette``, ``markers``, ``labels``...). Zone names are in the key;
        ``zone_labels=True`` also writes them in the first panel.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import rrmap
    >>> from rrmap.plot import plot_rrmap_by_rater
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> fig = plot_rrmap_by_rater(pts, "movement", width="3.5in")
    >>> [ax.get_title() for ax in fig.axes[:3]]
    ['E1 (n = 135, 5 clipped)', 'E2 (n = 135, 3 clipped)', 'E3 (n = 135, 29 clipped)']
    >>> float(fig.get_figwidth())
    3.5
    >>> plt.close(fig)
    """
    check_points(points, [color, rater])
    raters = levels_of(points[rater], None)
    from rrmap.limits import check_figure  # sizes past rrmap.limits, before any drawing

    check_figure(points, len(raters), [color], "one panel per rater")
    w = parse_width(width, 7.0)
    n = len(raters)
    ncols = ncols or max(1, min(n, int((w - _BY_RATER_MARGIN) // _MIN_PANEL)))
    nrows = math.ceil(n / ncols)
    panel_w = (w - _BY_RATER_MARGIN) / ncols
    style.setdefault("zone_labels", False)
    style.setdefault("size", _point_size(panel_w))
    st = panel_style(style)
    typ = typography(w)
    with mpl.rc_context(typ):
        fig = new_figure(w, w)
        grid = fig.subplots(nrows, ncols, squeeze=False)  # shared once laid out
        for ax in grid.flat:
            ax.label_outer()  # as a grid of shared panels is made
        st.order = levels_of(points[color], st.order) if color is not None else None
        clipped, mappable, styles = 0, None, []
        first_labels = st.zone_labels
        for k, (ax, name) in enumerate(zip(grid.flat, raters, strict=False)):
            st.zone_labels = first_labels and k == 0
            sub = points[points[rater] == name]
            drawn = draw_panel(ax, sub, color, st)
            record_panel(ax, drawn)
            clipped += drawn.n_clipped
            mappable = mappable or drawn.mappable
            styles = drawn.handles
            label = option_name(name, st.labels)
            ax.set_title(panel_title(label, len(sub), drawn.n_clipped, st.clip, panel_w))
        visible = np.arange(nrows * ncols).reshape(nrows, ncols) < n
        live = thin_ticks(grid.flat[:n])
        _show_outer_labels(grid, visible)
        entries = _options_only(styles)
        options = None
        if legend and color is not None:
            options = {"handles": entries, "title": title(color, points, st.labels)}
        zones = _key(points, st, clipped) if key else None
        legends = [kw for kw in (options, zones) if kw]
        slot = grid.flat[n] if n < grid.size else None
        rest = _legends_in_slot(slot, legends, panel_w, aspect * panel_w) if slot else legends
        for ax in grid.flat[n + (len(rest) < len(legends)) :]:
            ax.set_visible(False)
        before = [options] if options in rest else []
        after = [zones] if zones in rest else []
        footer = _add_footer(fig, st, mappable, before, after, colorbar)
        freeze_ticks(fig, typ["xtick.labelsize"])
        fit_with_footer(fig, [grid.flat[0]], aspect, nrows, footer)
        link_panels(list(grid.flat), live)
    return fig


def default_categories(points: pd.DataFrame, rater: str, max_options: int) -> list[str]:
    """The rows :func:`plot_rrmap_grid` draws by default: the categories recorded in
    ``points.attrs`` (else the text columns), but *rater*, with at most *max_options*
    options.

    Examples
    --------
    >>> import rrmap
    >>> default_categories(rrmap.points(rrmap.datasets.load_example_ratings()), "expert", 12)
    ['movement', 'criterion', 'criterion_group', 'modality']
    """
    recorded = points.attrs.get("rrmap", {}).get("categories")
    candidates = recorded or [
        c
        for c in points.columns
        if points[c].dtype == object or pd.api.types.is_string_dtype(points[c])
    ]
    return [
        c for c in candidates if c != rater and c in points and points[c].nunique() <= max_options
    ]


@lists_keywords(PANEL_KEYWORDS)
@gathers_glyph_warnings
def plot_rrmap_grid(
    points: pd.DataFrame,
    categories: Sequence[str] | None = None,
    *,
    rater: str = "expert",
    max_options: int = 12,
    width: float | str | None = None,
    ncols: int | None = None,
    aspect: float = 0.85,
    legends: str | None = None,
    colorbar: bool = True,
    key: bool = True,
    **style: Any,
) -> Figure:
    """Raters as columns × categories as rows, points coloured by option (paper Fig. 5).

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points`.
    categories : sequence of str, optional
        One row per category column. Default: the categories recorded in
        ``points.attrs`` with at most *max_options* options (the study:
        movement, criterion, criterion group, modality; ``modality_name``
        with its 15 options is left out — pass it explicitly to draw it).
    rater : str, default "expert"
        Column naming the raters, one column of panels each.
    max_options : int, default 12
        Largest number of options of a default row category.
    width : float or str, optional
        Printed width (``"7in"``, ``"180mm"``); default 7 in. Type is 6–8 pt;
        the height follows from the panels' *aspect*. Where the raters' panels
        would be narrower than 1.35 in (:func:`grid_min_width`: 4.75 in for 3
        raters), the raters wrap: as many per row of panels as fit, each block
        of raters drawing every category (10 raters at 180 mm: 4 + 4 + 2).
    ncols : int, optional
        Raters per row of panels (default as many as fit *width*).
    aspect : float, default 0.85
        Panel height / width.
    legends : {"right", "below"}, optional
        Where each row's legend goes: right of the row (default where the
        panels stay 1.35 in wide beside the legends: 6.25 in for 3 raters) or
        under it (narrower figures).
    colorbar, key : bool, default True
        The BC colorbar and the zone key, under the panels.
    **style
        Passed to :func:`plot_rrmap`; ``palette``/``markers`` may be given
        per category (``palette={"movement": {...}, "modality": [...]}``).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import rrmap
    >>> from rrmap.plot import plot_rrmap_grid
    >>> fig = plot_rrmap_grid(rrmap.points(rrmap.datasets.load_example_ratings()))
    >>> [ax.get_legend().get_title().get_text() for ax in fig.axes if ax.get_legend()]
    ['movement', 'criterion', 'criterion group', 'modality']
    >>> plt.close(fig)
    """
    check_points(points, [rater, *(categories or [])])
    if categories is None:
        categories = default_categories(points, rater, max_options)
    if not categories:
        raise InputError("no category column to draw rows for; pass categories=[...]")
    from rrmap.limits import check_figure  # sizes past rrmap.limits, before any drawing

    check_figure(points, max(points[rater].nunique(), 1) * len(categories), categories, "the grid")
    w = parse_width(width, 7.0)
    n = max(points[rater].nunique(), 1)
    if legends is None:
        legends = "right" if w + 1e-9 >= max(5.5, grid_min_width(n, "right")) else "below"
    if legends not in ("right", "below"):
        raise InputError(f"legends must be 'right' or 'below', got {legends!r}")
    _check_grid_width(w, 1, legends)
    k = ncols or grid_columns(n, w, legends)
    if not 1 <= k <= n or (ncols and w + 1e-9 < grid_min_width(k, legends)):
        raise InputError(
            f"ncols={ncols!r}: give 1 to {grid_columns(n, w, legends)} raters per row at "
            f"{w:.2f} in (panels at least {_MIN_PANEL:g} in wide)"
        )
    room = w - (_RIGHT_LEGEND if legends == "right" else 0.45)
    panel_w = room / k
    style.setdefault("zone_labels", False)
    style.setdefault("size", _point_size(panel_w))
    st = panel_style(style)
    typ = typography(w)
    with mpl.rc_context(typ):
        grid = _GridFigure(points, list(categories), rater, st, w, legends == "right", k)
        grid.draw_rows()
        after = [_key(points, st, grid.clipped)] if key else []
        footer = _add_footer(grid.fig, st, grid.mappable, [grid.last_legend], after, colorbar)
        freeze_ticks(grid.fig, typ["xtick.labelsize"])
        grid.fit(aspect, footer)
        link_panels(list(grid.grid.flat), grid.live)
    return grid.fig


def grid_min_width(n_raters: int, legends: str = "below") -> float:
    """Narrowest printed width (inches) of a grid of *n_raters* columns of panels at least
    :data:`_MIN_PANEL` wide, the legends of the rows under them (or right of them).

    Examples
    --------
    >>> round(grid_min_width(3), 2), round(grid_min_width(3, "right"), 2)
    (4.75, 6.25)
    """
    return min_grid_width(n_raters, legends)


def _check_grid_width(width: float, n_raters: int, legends: str) -> None:
    """Refuse a grid whose panels would be narrower than :data:`_MIN_PANEL` with
    *n_raters* per row (one: the raters wrap), naming the width that works and what to
    draw at this one."""
    need = grid_min_width(n_raters, legends)
    if width + 1e-9 >= need:
        return
    where = " with the legends right of the rows" if legends == "right" else ""
    raise InputError(
        f"the grid needs panels at least {_MIN_PANEL:g} in wide, so a width of at least "
        f"{need:.2f} in ({math.ceil(need * 25.4)} mm){where}; {width:.2f} in is too narrow. "
        f"Print it at {math.ceil(need * 25.4)} mm or wider, or draw one figure per category "
        f"at this width: plot_rrmap_by_rater(points, category, width={width:.2f})"
    )


class _GridFigure:
    """The raters × categories figure: panels, one legend per row, spacing for them."""

    def __init__(
        self,
        points: pd.DataFrame,
        categories: list[str],
        rater: str,
        st: PanelStyle,
        width: float,
        right: bool,
        per_row: int,
    ) -> None:
        self.points, self.categories, self.rater, self.st = points, categories, rater, st
        self.raters = levels_of(points[rater], None)
        self.width, self.right = width, right
        # blocks of *per_row* raters; each category takes one row per block (row r is
        # category r // len(blocks), block r % len(blocks)), its legend under its last row
        self.blocks = [self.raters[b : b + per_row] for b in range(0, len(self.raters), per_row)]
        nrows, ncols = len(categories) * len(self.blocks), per_row
        self.fig = new_figure(width, width)
        if not right:
            self.fig.get_layout_engine().set(h_pad=0.02, hspace=0.0)
        # below: an empty spacer row under each panel row but the last holds its legend
        heights = [1.0] if right else [1.0, 0.2]
        n_grid_rows = nrows if right else 2 * nrows - 1
        self.gs = self.fig.add_gridspec(
            n_grid_rows, ncols, height_ratios=(heights * nrows)[:n_grid_rows]
        )
        step = 1 if right else 2
        self.grid = np.empty((nrows, ncols), dtype=object)
        for i in range(nrows):  # linked once laid out (link_panels)
            for j in range(ncols):
                self.grid[i, j] = self.fig.add_subplot(self.gs[i * step, j])
        #: the legend under (or right of) each row that has one, by row
        self.row_legends: dict[int, Any] = {}
        #: the panels' tickers before they were fixed for the layout (thin_ticks)
        self.live: LiveTicks = {}
        self.last_legend: dict[str, Any] | None = None
        self.mappable = None
        self.clipped = 0

    def visible(self) -> np.ndarray:
        """Which cells of the grid hold a panel (the last block of raters may be short)."""
        nb = len(self.blocks)
        rows = [len(self.blocks[r % nb]) for r in range(self.grid.shape[0])]
        return np.arange(self.grid.shape[1])[None, :] < np.array(rows)[:, None]

    def draw_rows(self) -> None:
        size = rc_points("legend.fontsize")
        panel_w = (self.width - (_RIGHT_LEGEND if self.right else 0.45)) / self.grid.shape[1]
        n_cat, nb = len(self.categories), len(self.blocks)
        visible = self.visible()
        for r in range(self.grid.shape[0]):
            i, b = divmod(r, nb)
            cat = self.categories[i]
            self.st.order = levels_of(self.points[cat], None)
            for j, name in enumerate(self.blocks[b]):
                ax = self.grid[r, j]
                sub = self.points[self.points[self.rater] == name]
                drawn = draw_panel(ax, sub, cat, self.st)
                record_panel(ax, drawn)
                self.mappable = self.mappable or drawn.mappable
                label = option_name(name, self.st.labels)
                if i == 0:
                    self.clipped += drawn.n_clipped
                    ax.set_title(
                        panel_title(label, len(sub), drawn.n_clipped, self.st.clip, panel_w)
                    )
                elif nb > 1:  # wrapped: every row says whose panels it holds
                    ax.set_title(fitted_text(label, rc_points("axes.titlesize"), panel_w))
            for ax in self.grid[r, len(self.blocks[b]) :]:
                ax.set_visible(False)
            entries = _options_only(drawn.handles)
            head = title(cat, self.points, self.st.labels)
            if self.right and b == 0:  # right of the first block's rows, full width
                ncols = 1 if len(entries) <= 10 else 2
                head = self._fit_right_legend(entries, cat, ncols)
                leg = self.grid[r, -1].legend(
                    handles=entries,
                    title=head,
                    loc="center left",
                    bbox_to_anchor=(1.04, 0.5),
                    ncols=ncols,
                    borderaxespad=0.0,
                )
                self.row_legends[r] = leg
            elif self.right or b != nb - 1:
                continue  # the legend of the category is under its last row
            elif i == n_cat - 1:
                self.last_legend = {"handles": entries, "title": head}
            else:
                ncols = legend_ncols([h.get_label() for h in entries], size, self.width - 0.1)
                leg = self.fig.legend(
                    handles=entries, title=head, loc="upper center", ncols=ncols, borderaxespad=0.0
                )
                leg.set_in_layout(False)
                self.row_legends[r] = leg
        self.live = thin_ticks(self.grid[visible])
        _show_outer_labels(self.grid, visible)

    def _fit_right_legend(self, entries: list[Any], column: str, ncols: int) -> str:
        """Entries (in place) and title of a legend right of a row, cut with "…" to the
        room the layout keeps there; returns the title."""
        rc = mpl.rcParams
        size = float(rc["legend.fontsize"])
        key = (rc["legend.handlelength"] + rc["legend.handletextpad"]) * size / 72.0
        gap = rc["legend.columnspacing"] * size / 72.0 * (ncols - 1)
        room = (_RIGHT_LEGEND - 0.2 - gap) / ncols - key
        for handle, level in zip(entries, self.st.order or [], strict=False):
            handle.set_label(fitted_text(option_name(level, self.st.labels), size, room))
        name = column_name(column, self.points, self.st.labels)
        return fitted_text(name, float(rc["legend.title_fontsize"]), _RIGHT_LEGEND - 0.2)

    def _spacer_ratios(self) -> float:
        """The spacer rows' height ratios added up (0 with the legends right of the rows)."""
        return 0.0 if self.right else float(sum(self.gs.get_height_ratios()[1::2]))

    def _spacers(self, panel_h: float) -> bool:
        """Height ratios giving each spacer row its legend's height; whether they changed
        (the layout is then out of date)."""
        if self.right:
            return False
        renderer = renderer_of(self.fig)
        ratios = []
        for r in range(self.grid.shape[0]):
            ratios.append(1.0)
            if r == self.grid.shape[0] - 1:
                break
            leg = self.row_legends.get(r)
            leg_h = leg.get_window_extent(renderer).height / self.fig.dpi if leg else 0.0
            ratios.append((leg_h + 0.02) / max(panel_h, 0.1))
        if np.allclose(ratios, self.gs.get_height_ratios(), rtol=1e-9, atol=0.0):
            return False
        self.gs.set_height_ratios(ratios)
        return True

    def fit(self, aspect: float, footer: Footer) -> None:
        """Height for panels of *aspect*, legends in their spacer rows, the footer placed."""
        fig = self.fig
        foot = footer.height()
        engine = fig.get_layout_engine()
        width = fig.get_figwidth()
        nrows = self.grid.shape[0]
        fig.set_size_inches(width, self._first_height(aspect, foot), forward=False)
        stale = True  # the layout does not match the size and the spacer rows
        for _ in range(6):
            height = fig.get_figheight()
            engine.set(rect=(0.0, foot / height, 1.0, 1.0 - foot / height))
            lay_out(fig)
            box = self.grid[0, 0].get_position()
            target = box.width * width * aspect
            panel_h = box.height * height
            laid_out = self._spacer_ratios()  # the ratios this layout was made with
            stale = self._spacers(target)
            if abs(panel_h - target) < 0.01:
                break
            # every row's height is its ratio times the panels' height: the spacer rows
            # took laid_out × panel_h and take (their new ratios) × target
            grow = nrows * (target - panel_h) + self._spacer_ratios() * target - laid_out * panel_h
            fig.set_size_inches(width, max(height + grow, 0.5), forward=False)
            stale = True
        if stale:  # each layout pass measures every panel: none is run twice for nothing
            lay_out(fig)
        self._place_row_legends()
        footer.place()

    def _first_height(self, aspect: float, foot: float) -> float:
        """A first guess of the figure's height (inches): panels of *aspect* with their
        titles, the legends under the rows and the footer, so that the first layout never
        squeezes the panels to nothing (tall legends) and the fit only refines it."""
        panel_w = (self.width - (_RIGHT_LEGEND if self.right else 0.45)) / self.grid.shape[1]
        renderer = renderer_of(self.fig)
        legends = sum(leg.get_window_extent(renderer).height for leg in self.row_legends.values())
        below = 0.0 if self.right else legends / self.fig.dpi
        return self.grid.shape[0] * (aspect * panel_w + 0.3) + 0.6 + below + foot

    def _place_row_legends(self) -> None:
        if self.right:
            return
        for r, leg in self.row_legends.items():  # centred under the full rows' width
            left = self.grid[r, 0].get_position()
            right = self.grid[0, -1].get_position()
            pad = 0.05 / self.fig.get_figheight()
            leg.set_bbox_to_anchor(((left.x0 + right.x1) / 2, left.y0 - pad), self.fig.transFigure)


class _EllipseHandler(HandlerPatch):
    """Legend key of the excellent zone: a small closed curve."""

    def create_artists(
        self, legend, orig_handle, xdescent, ydescent, width, height, fontsize, trans
    ):
        ellipse = Ellipse(
            (0.5 * width - xdescent, 0.5 * height - ydescent),
            width=0.55 * width,
            height=1.25 * height,
            fill=False,
            edgecolor="black",
            linewidth=1.0,
        )
        ellipse.set_transform(trans)
        return [ellipse]


def zone_key(
    thresholds: Thresholds | None = None, clipped: int | None = 0, clip: bool = True
) -> dict[str, Any]:
    """Legend keywords explaining the zone outlines, the reference stars and clipped points.

    For figures without zone labels in the panels (the layouts): pass the
    result to ``legend(**zone_key())``.

    Examples
    --------
    >>> key = zone_key(clipped=3)
    >>> [h.get_label() for h in key["handles"]]  # doctest: +NORMALIZE_WHITESPACE
    ['excellent: BC > 0.98', 'fair', 'stereotype', 'bad: outside these',
     'reference (0, 1), (0, 0)', 'clipped to the edge (3)']
    """
    th = thresholds or Thresholds()
    handles: list[Any] = [
        Ellipse((0, 0), 1, 1, fill=False, label=f"excellent: BC > {th.excellent_bc:g}"),
        Rectangle((0, 0), 1, 1, fill=False, edgecolor="black", linewidth=1.0, label="fair"),
        Rectangle(
            (0, 0),
            1,
            1,
            fill=False,
            edgecolor="black",
            linewidth=1.0,
            linestyle="--",
            label="stereotype",
        ),
        Rectangle((0, 0), 1, 1, fill=False, edgecolor="none", label="bad: outside these"),
        Line2D(
            [],
            [],
            linestyle="none",
            marker="*",
            markersize=8,
            markerfacecolor="white",
            markeredgecolor="black",
            markeredgewidth=0.7,
            label="reference (0, 1), (0, 0)",
        ),
    ]
    handles += legend_handles({}, 22.0, clipped, clip)
    # a wider gap between key and name than in the options' legends: outlines end at the
    # key's edge, and would touch their names
    return {"handles": handles, "handler_map": {Ellipse: _EllipseHandler()}, "handletextpad": 0.8}
