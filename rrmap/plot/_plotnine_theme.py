"""The plotnine theme behind :func:`rrmap.plot.styles.theme_rrmap`, and how an
:class:`rrmap.plot.ggplot.RRMapPlot` is laid out for its figure (imports plotnine).

The layout is measured on drafts: quick renders of the plot with a coarse background,
built by plotnine once for all of them and drawn (not shown) without what lies inside the
panels but the names they measure, with each arrangement of the legends until everything
fits. The legends
go on the side the user chose (``+ theme(legend_position=...)``, or a complete theme
whose position is not plotnine's default), else right or below, whichever leaves the
larger panels; beside the panels they start level with the panels' top with a colour bar
shortened to fit the height, below they take as few rows as fit the width. Titles and
captions wrap, rrmap's axis titles shorten, and a single panel's names beside the Δ band
go when they would overlap.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from plotnine import (
    element_blank,
    element_line,
    element_rect,
    element_text,
    ggplot,
    guide_colorbar,
    guide_legend,
    guides,
    labs,
    theme,
    theme_bw,
)

from rrmap.plot.figures.panel import axis_label

__all__: list[str] = []

#: Thickness of a compact colour bar, as a fraction of the theme's legend key size.
_BAR_THICKNESS = 0.6
#: Longest colour bar, in key sizes (plotnine's own length: 1.45 × 5 keys).
_BAR_LONGEST = 7.25
#: Gap between the legends and the panels' labels (inches).
_LEGEND_GAP = 0.12
#: Theme settings that justify the legends.
_JUST = {f"legend_justification{s}" for s in ("", "_right", "_left", "_top", "_bottom")}


class ThemeRRMap(theme_bw):
    """``theme_bw`` for journal figures; keeps PDF/SVG text as text."""

    def __init__(self, base_size: float = 8.0, base_family: str | None = None) -> None:
        super().__init__(base_size, base_family)
        self += theme(
            panel_grid_minor=element_blank(),
            panel_grid_major=element_line(color="#d9d9d9", size=0.3),
            strip_background=element_rect(fill="none", color="none"),
            strip_text=element_text(weight="bold"),
            legend_position="bottom",
            panel_spacing=0.02,
            legend_key=element_blank(),
            plot_caption=element_text(size=base_size * 0.8, ha="left"),
        )
        self._rcParams.update({"pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "none"})


def legend_layout(
    side: str,
    box: str,
    *,
    per_row: int | None,
    bar: float,
    key_size: float,
    width: float,
    set_by_user: Collection[str] = (),
    guides_set: Collection[str] = (),
) -> list:
    """Theme and guides that put the legends on *side* of the panels, taking little room.

    Each legend's title is above its keys, the colour bar is thin (0.6 of a key) and
    *bar* long (:func:`bar_length`), and legends beside the panels start level with their
    top.

    Parameters
    ----------
    side : {"right", "left", "top", "bottom"}
        Where the legends go.
    box : {"vertical", "horizontal"}
        The colour bar above, or beside, the other legends.
    per_row : int, optional
        Keys per row of the colour and shape legend (``None``: plotnine's choice).
    bar : float
        Length of the colour bar (points).
    key_size : float
        The theme's legend key size (points).
    width : float
        The figure's width (inches): the legends keep 0.12 in from the panels' labels
        (plotnine's own gap grows with the width: 0.36 in at 12 in).
    set_by_user : collection of str
        Theme settings the user gave (``+ theme(...)``): those are left as they are.
    guides_set : collection of str
        Aesthetics whose guide the user gave (``+ guides(...)``): those are left too.

    Returns
    -------
    list
        A ``theme`` and a ``guides``, to add to the plot.

    Examples
    --------
    >>> parts = legend_layout("bottom", "horizontal", per_row=3, bar=90.0,
    ...                       key_size=15.84, width=7.0)
    >>> [type(x).__name__ for x in parts]
    ['theme', 'guides']
    """
    thin = max(4.0, round(_BAR_THICKNESS * key_size))
    if side in ("left", "right"):
        sizes = {"legend_key_width": thin, "legend_key_height": round(bar)}
    else:
        sizes = {"legend_key_height": thin, "legend_key_width": round(bar)}
    settings = {
        "legend_box": box,
        "legend_title_position": "top",
        "legend_box_spacing": _LEGEND_GAP / width,
    }
    if side in ("left", "right"):
        # level with the panels' top: a tall legend grows down beside the axis title
        settings[f"legend_justification_{side}"] = "top"
    kept = {
        k: v
        for k, v in settings.items()
        if k not in set_by_user and not (k.startswith("legend_just") and _JUST & {*set_by_user})
    }
    spec = {}
    sized = {"legend_key_size", "legend_key_width", "legend_key_height"}
    if "fill" not in guides_set and not sized & set(set_by_user):
        spec["fill"] = guide_colorbar(theme=theme(**sizes))
    # colour and shape stay one legend only with the same guide: both, or neither
    if per_row is not None and side in ("top", "bottom"):
        if not {"color", "colour", "shape"} & set(guides_set):
            spec.update(color=guide_legend(ncol=per_row), shape=guide_legend(ncol=per_row))
    return [theme(legend_position=side, **kept), guides(**spec)]


def bar_length(side: str, figure_size: tuple[float, float], key_size: float) -> float:
    """Length of a compact colour bar (points): along a side, 0.3 of the figure's height;
    below or above, 0.17 of its width; at least 3 or 4 keys, at most plotnine's own length.

    Examples
    --------
    >>> bar_length("right", (7, 3), 15.84), bar_length("bottom", (3.5, 3.5), 15.84)
    (64.8, 63.36)
    """
    width, height = figure_size
    if side in ("left", "right"):
        return min(max(0.3 * height * 72, 3 * key_size), _BAR_LONGEST * key_size)
    return min(max(0.17 * width * 72, 4 * key_size), _BAR_LONGEST * key_size)


# -- how an RRMapPlot is laid out for its figure ----------------------------------------


#: Panels' height over width that scores best (as the matplotlib figures' panels).
_PANEL_ASPECT = 0.85


@dataclass(frozen=True)
class _Trial:
    """What a draft of the plot measured (inches)."""

    panel: tuple[float, float]  # one panel's width and height
    panels_width: float  # the panels together, as a fraction of the figure's width
    cropped: bool  # a legend reaches beyond the figure
    overflow: float  # how far the legends reach beyond its top or bottom (or titles)
    entry: float  # the widest key of a legend, with its label and the gap to the next key
    entries: int  # keys of the longest legend
    bar: float  # the colour bar with its title and the gap to the next legend
    fixes: list = field(default_factory=list)  # labs() that make the titles fit
    crowded: bool = False  # the names beside the Δ band overlap

    @property
    def score(self) -> float:
        """The side of the largest panel of :data:`_PANEL_ASPECT` the panels hold."""
        width, height = self.panel
        return min(width, height / _PANEL_ASPECT)


class Recipe(NamedTuple):
    """Where the legends go and how: side (``None``: as the theme has them), the colour bar
    above ("vertical") or beside ("horizontal") the keys, keys per row, bar length (pt)."""

    side: Any = None
    box: str = "vertical"
    per_row: int | None = None
    bar: float | None = None


#: The first arrangement tried on each side: the colour bar above, or beside, the keys.
FIRST_BOX = {"right": "vertical", "left": "vertical", "top": "horizontal", "bottom": "horizontal"}


class _Draft(NamedTuple):
    """An arrangement that fits, the labels that make the titles fit, and its measures."""

    recipe: Recipe
    fixes: list
    trial: _Trial
    bare: bool  # without the names beside the Δ band (they would overlap)


def settled(
    sketch: Sketch, recipe: Recipe, user: frozenset[str], beat: float | None = None
) -> _Draft | None:
    """Drafts of *sketch* arranged by *recipe*, with titles wrapped and the legends
    rearranged until everything fits; ``None`` if legends beside the panels cannot fit
    the figure's height or leave the panels under a third of its width.

    With *beat* (the score of a draft already settled), legends below or above the
    panels stop as soon as they cannot score more (``None``): each further draft of them
    wraps titles or keys into more lines, so the panels' height only shrinks, and the
    score is at most the height over :data:`_PANEL_ASPECT`.
    """
    fixes: list = []
    bare = False
    for _ in range(8):
        draft = arranged(sketch.built(bare), recipe, user)
        draft += fixes  # a copy already: no second one
        trial = _trial(draft)
        if beat is not None and recipe.side in ("top", "bottom"):
            if trial.panel[1] / _PANEL_ASPECT <= beat:
                return None
        if trial.crowded and not bare:  # a panel too short for the names beside the band
            # and the titles that do not fit: the names lie inside the panel, so the titles
            # measure the same without them (one draft fewer)
            bare, fixes = True, [*fixes, *trial.fixes]
        elif trial.fixes:
            fixes = [*fixes, *trial.fixes]
        elif recipe.side is None or trial.entry == trial.bar == 0.0:  # no legend drawn
            return _Draft(recipe, fixes, trial, bare)
        elif recipe.side in ("left", "right") and trial.panels_width < 1 / 3:
            return None
        elif not trial.cropped:
            return _Draft(recipe, fixes, trial, bare)
        elif recipe.side in ("left", "right"):
            recipe = _next_beside(sketch.plot, recipe, trial)
            if recipe is None:
                return None
        else:
            rearranged = _next_below(sketch.plot, recipe, trial)
            if rearranged is None:  # as few keys per row as can be: the best there is
                return _Draft(recipe, fixes, trial, bare)
            recipe = rearranged
    return _Draft(recipe, fixes, trial, bare) if recipe.side in ("top", "bottom") else None


def fills_height(draft: _Draft) -> bool:
    """Whether legends below the panels cannot leave larger panels than *draft*'s beside
    them: its panels are as tall as the figure lets them be (their height limits
    :attr:`_Trial.score`) with the titles as given, and legends below take height."""
    width, height = draft.trial.panel
    return not draft.fixes and height / _PANEL_ASPECT <= width


def _next_beside(sketch: ggplot, recipe: Recipe, trial: _Trial) -> Recipe | None:
    """Legends beside the panels (level with their top) that overflow the figure's height:
    a shorter colour bar (down to two keys), then the bar beside the keys, then none."""
    bar = _bar(sketch, recipe.side) - 72 * (trial.overflow + 0.04)
    if recipe.bar is None and recipe.box == "vertical" and trial.overflow > 0:
        if bar >= 2 * _key_size(sketch):  # once: the overflow is measured
            return recipe._replace(bar=bar)
    if recipe.box == "vertical":
        return Recipe(recipe.side, "horizontal")
    return None


def _next_below(sketch: ggplot, recipe: Recipe, trial: _Trial) -> Recipe | None:
    """Legends below (or above) the panels that are wider than the figure: the keys in
    as few rows as fit, the colour bar beside them while they take at most two rows, else
    above them; one key fewer per row at each further try (``None``: no keys to wrap)."""
    if trial.entry == 0.0 or recipe.per_row == 1:
        return None
    if recipe.per_row is not None:
        return recipe._replace(per_row=recipe.per_row - 1)
    room = 0.96 * sketch.theme.getp("figure_size")[0]
    beside = int((room - trial.bar) // trial.entry)
    if beside >= -(-trial.entries // 2):
        return Recipe(recipe.side, "horizontal", max(1, beside))
    return Recipe(recipe.side, "vertical", max(1, int(room // trial.entry)))


def _key_size(plot: ggplot) -> float:
    return float(plot.theme.getp("legend_key_size"))


def _bar(plot: ggplot, side: str) -> float:
    return bar_length(side, plot.theme.getp("figure_size"), _key_size(plot))


def arranged(plot: ggplot, recipe: Recipe, user: frozenset[str]) -> ggplot:
    """A copy of *plot* with its legends arranged by *recipe* (the caller owns it: further
    additions go in place, ``+=``, without another copy)."""
    side = recipe.side
    if side is None:
        return deepcopy(plot)
    bar = recipe.bar or _bar(plot, side)
    given = {a for a in ("color", "colour", "shape", "fill") if getattr(plot.guides, a, None)}
    out = plot + legend_layout(
        side,
        recipe.box,
        per_row=recipe.per_row,
        bar=bar,
        key_size=_key_size(plot),
        width=plot.theme.getp("figure_size")[0],
        set_by_user=user,
        guides_set=given,
    )
    own = getattr(plot, "_rrmap_fill_title", None)
    if side in ("left", "right") and own is not None and out.labels.fill == own:
        out += labs(fill=_two_lines(own))  # narrower beside the panels
    # three labels along a horizontal bar or a short one (five would run together)
    if side in ("top", "bottom") or bar < 4 * _key_size(plot):
        for scale in out.scales:
            if getattr(scale, "_rrmap_role", "") == "bc":
                scale.breaks, scale.labels = [0.0, 0.5, 1.0], ["0.00", "0.50", "1.00"]
    return out


def _two_lines(text: str) -> str:
    """*text* broken at the space nearest its middle (unchanged if short or unbroken)."""
    spaces = [i for i, c in enumerate(text) if c == " "]
    if len(text) < 16 or not spaces:
        return text
    i = min(spaces, key=lambda k: abs(k - len(text) / 2))
    return text[:i] + "\n" + text[i + 1 :]


def without_side_labels(plot: ggplot) -> ggplot:
    """*plot* (changed in place) without the names beside the Δ band and their leaders."""
    kept = [x for x in plot.layers if getattr(x, "_rrmap_role", "") != "side labels"]
    plot.layers = type(plot.layers)(kept)
    return plot


class Sketch:
    """A copy of a plot with a coarse background (laid out as the plot, drawn twice as fast),
    and that copy built by plotnine once for all of its drafts, with and without the names
    beside the Δ band (:meth:`built`)."""

    def __init__(self, plot: ggplot) -> None:
        self.plot = deepcopy(plot)
        for layer in self.plot.layers:
            if getattr(layer, "_rrmap_role", "") == "background":
                bg = layer._data
                keep = [np.unique(bg[c])[:: max(1, bg[c].nunique() // 8)] for c in ("delta", "r")]
                layer._data = bg[bg["delta"].isin(keep[0]) & bg["r"].isin(keep[1])]
        self._built: dict[bool, ggplot] = {}

    def built(self, bare: bool = False) -> ggplot:
        """The sketch (*bare*: without the names beside the Δ band) with its data mapped to
        the panels and its scales trained: the drafts differ from it only in the theme,
        guides, labels and the colour bar's breaks, which plotnine's build does not read
        (it maps the data and trains the scales as it did for each of them)."""
        import matplotlib as mpl

        if bare not in self._built:
            plot = deepcopy(self.plot)
            plot = without_side_labels(plot) if bare else plot
            with mpl.rc_context(plot.theme.rcParams):  # as plotnine builds it when drawn
                plot._build()
            plot._rrmap_built = True  # and so are its copies, the drafts: _trial draws them
            self._built[bare] = plot
        return self._built[bare]


def _trial(trial: ggplot) -> _Trial:
    """Draw *trial* (a draft of its own, changed: not shown) and measure it."""
    import matplotlib.pyplot as plt

    if getattr(trial, "_rrmap_built", False):
        trial._build = lambda: None  # a sketch's draft: built already (Sketch.built)
    # plotnine lays the figure out from its texts, axes and legends, never from what the
    # layers draw inside the panels: of those, a draft draws only the names it measures
    trial._draw_layers = lambda: _draw_measured_layers(trial)
    fig = ggplot.draw(trial)
    try:
        fig.draw_without_rendering()
        return _measured(trial, fig)
    finally:
        plt.close(fig)


def _draw_measured_layers(plot: ggplot) -> None:
    """Draw (as ``ggplot._draw_layers``) only the layers of *plot* whose artists a draft
    measures: the names beside the Δ band (:func:`_side_labels_overlap`)."""
    for layer in plot.layers:
        if getattr(layer, "_rrmap_role", "") == "side labels":
            layer.draw(plot.layout, plot.coordinates)


def _measured(plot: ggplot, fig: Any) -> _Trial:
    """The panels, legends and titles of *plot* as drawn on *fig*."""
    from rrmap.plot.base._sizing import renderer_of

    renderer = renderer_of(fig)
    inches = fig.dpi_scale_trans.inverted()
    page = fig.bbox
    panel = plot.axs[0].get_window_extent(renderer).transformed(inches)
    legends = getattr(plot.theme.targets, "legends", None)
    boxes = list(legends.boxes) if legends is not None else []
    extents = [b.get_window_extent(renderer) for b in boxes]
    overflow = max([0.0] + [_overflow(plot, b, page, renderer) / fig.dpi for b in extents])
    cropped = overflow > 0 or any(b.x0 < page.x0 - 1 or b.x1 > page.x1 + 1 for b in extents)
    entry = bar = 0.0
    entries = 0
    for guide in (g for b in boxes for g in b.get_children()[0].get_children()):
        keys = [k for k in _offsetboxes(guide) if _is_key(k)]
        if keys:
            gap = plot.theme.getp("legend_key_spacing_x", 6.0) / 72 + 0.02
            entry = max(entry, *(k.get_window_extent(renderer).width / fig.dpi + gap for k in keys))
            entries = max(entries, len(keys))
        else:
            spacing = plot.theme.getp("legend_spacing", 10.0) / 72
            bar = max(bar, guide.get_window_extent(renderer).width / fig.dpi + spacing)
    return _Trial(
        panel=(panel.width, panel.height),
        panels_width=_panels_width(plot.axs),
        cropped=cropped,
        overflow=overflow,
        entry=entry,
        entries=entries,
        bar=bar,
        fixes=_title_fix(plot, fig, renderer) or _axis_title_fix(plot, fig, renderer) or [],
        crowded=_side_labels_overlap(plot, renderer),
    )


def _overflow(plot: ggplot, box: Any, page: Any, renderer: Any) -> float:
    """How far (pixels) the legend *box* reaches beyond the figure's top or bottom edge, or
    into the title, subtitle or caption above or below it."""
    floor, ceiling = page.y0 - 1, page.y1 + 1
    for name in ("title", "subtitle", "caption"):
        text = getattr(plot.theme.targets, f"plot_{name}", None)
        if text is None or not text.get_text():
            continue
        t = text.get_window_extent(renderer)
        if t.x0 < box.x1 and box.x0 < t.x1:  # above or below the legend
            if name == "caption":
                floor = max(floor, t.y1)
            else:
                ceiling = min(ceiling, t.y0)
    return max(0.0, floor - box.y0, box.y1 - ceiling)


def _offsetboxes(box: Any) -> Any:
    """*box* and every offset box inside it."""
    from matplotlib.offsetbox import OffsetBox

    yield box
    for child in box.get_children():
        if isinstance(child, OffsetBox):
            yield from _offsetboxes(child)


def _is_key(box: Any) -> bool:
    """Whether *box* is one key of a legend: its glyph and its label side by side."""
    from matplotlib.offsetbox import DrawingArea, HPacker, TextArea

    children = box.get_children() if isinstance(box, HPacker) else []
    return (
        len(children) == 2
        and isinstance(children[0], DrawingArea)
        and isinstance(children[1], TextArea)
    )


def _side_labels_overlap(plot: ggplot, renderer: Any) -> bool:
    """Whether the names beside the Δ band (a single panel's) overlap one another or run
    beyond the panel's edge (where they would be cut)."""
    names = {"excellent", "perfect\nalignment", "perfect\nstereotype"}
    pad = renderer.points_to_pixels(2.0)  # the label's box around the text
    for ax in plot.axs:
        panel = ax.get_window_extent(renderer)
        boxes = [t.get_window_extent(renderer) for t in ax.texts if t.get_text() in names]
        if any(b.x1 + pad > panel.x1 or b.y0 < panel.y0 - 1 or b.y1 > panel.y1 + 1 for b in boxes):
            return True
        if any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :]):
            return True
    return False


def _panels_width(axs: Sequence[Any]) -> float:
    """Width of the panels together, as a fraction of the figure's width."""
    boxes = [ax.get_position() for ax in axs]
    return max(b.x1 for b in boxes) - min(b.x0 for b in boxes)


def _title_fix(plot: ggplot, fig: Any, renderer: Any) -> list | None:
    """The title, subtitle and caption wrapped onto more lines where they run beyond the
    figure or into a legend beside them."""
    import textwrap

    page = fig.bbox
    legends = getattr(plot.theme.targets, "legends", None)
    beside = [b.get_window_extent(renderer) for b in (legends.boxes if legends else [])]
    panels = [ax.get_window_extent(renderer) for ax in plot.axs]
    wrapped = {}
    for name in ("title", "subtitle", "caption"):
        text = getattr(plot.theme.targets, f"plot_{name}", None)
        value = getattr(plot.labels, name, None)
        if text is None or not value or not text.get_text():
            continue
        box = text.get_window_extent(renderer)
        left, right = page.x0 + 1, page.x1 - 1
        for legend in (b for b in beside if b.y0 < box.y1 and box.y0 < b.y1):
            if legend.x0 >= box.x0:
                right = min(right, legend.x0 - 4)
            else:
                left = max(left, legend.x1 + 4)
        if box.x0 >= left - 1 and box.x1 <= right + 1:
            continue
        # plotnine keeps the point at *rel* of the panels' (or the plot's) width fixed
        ha = plot.theme.getp((f"plot_{name}", "ha"), "right" if name == "caption" else "left")
        rel = {"left": 0.0, "center": 0.5, "right": 1.0}.get(ha, ha)
        rel = float(rel) if isinstance(rel, (int, float)) else 0.5
        where = plot.theme.getp(f"plot_{'caption' if name == 'caption' else 'title'}_position")
        a, b = (
            (page.x0, page.x1)
            if where == "plot"
            else (min(p.x0 for p in panels), max(p.x1 for p in panels))
        )
        anchor = a + rel * (b - a)
        room = min(
            (anchor - left) / rel if rel > 0 else np.inf,
            (right - anchor) / (1 - rel) if rel < 1 else np.inf,
        )
        lines = str(value).split("\n")
        longest = max(len(line) for line in lines)
        # characters per line in proportion to the room, with a margin for wide letters
        chars = max(8, int(longest * 0.92 * room / max(box.width, 1.0)) - 1)
        text = "\n".join(textwrap.fill(line, chars) for line in lines)
        if text != str(value):  # else no wrapping makes it fit: another draft would not either
            wrapped[name] = text
    return [labs(**wrapped)] if wrapped else None


def _axis_title_fix(plot: ggplot, fig: Any, renderer: Any) -> list | None:
    """Short axis titles ("Δ", "R") when rrmap's own ones run beyond the figure (panels
    too short for "relative dispersion R"); titles set by the user are left alone."""
    page = fig.bbox
    targets = plot.theme.targets
    short = {}
    for aes_name, attr, default, brief in (
        ("y", "axis_title_y", axis_label("r"), "R"),
        ("x", "axis_title_x", axis_label("delta"), "Δ"),
    ):
        text = getattr(targets, attr, None)
        if text is None or text.get_text() != default:
            continue
        box = text.get_window_extent(renderer)
        if box.y0 < page.y0 - 1 or box.y1 > page.y1 + 1 or box.x0 < page.x0 - 1:
            short[aes_name] = brief
    return [labs(**short)] if short else None
