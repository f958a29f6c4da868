"""Figures of the tables: quality proportions per rater and agreement across raters.

:func:`plot_proportions` draws the quality proportions (docs/method.md) as
stacked bars, one per rater (or per rater × option), in the colours the
quality levels have in every figure (:data:`rrmap.plot.QUALITY_COLORS`).
:func:`plot_agreement` shows where the raters agree — how many comparisons
all raters put in the same zone, and which — and, for each pair of raters,
in which zones one put what the other put elsewhere. Both are laid out for a
printed width like the maps.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from rrmap.errors import InputError
from rrmap.plot.base._contrast import text_color
from rrmap.plot.base._glyphs import gathers_glyph_warnings
from rrmap.plot.base._keywords import lists_keywords
from rrmap.plot.base._sizing import (
    Footer,
    fit_with_footer,
    freeze_ticks,
    lay_out,
    legend_ncols,
    new_figure,
    text_width_pt,
)
from rrmap.plot.base._style import (
    QUALITY_COLORS,
    fitted_text,
    option_label,
    option_name,
    rc_points,
    title,
    typography,
)
from rrmap.plot.base._widths import parse_width
from rrmap.plot.figures._user_axes import attach, drawing_into
from rrmap.plot.figures.layouts import panel_title
from rrmap.tables import agreement, proportions, wilson_interval
from rrmap.zones import QUALITY_LEVELS

__all__ = ["plot_agreement", "plot_proportions", "quality_handles"]

_BAR = 0.17  # printed bar thickness (inches)
#: Printed height of one proportions bar with its gap (inches): the bar takes
#: :data:`_FILL` of it, its whiskers sit in the gap under it, clear of the percentages.
_ROW = 0.21
_FILL = 0.62
#: Where the whiskers of a bar at y are drawn: in the gap under the bar, the caps clear
#: of its edge.
_WHISKER_DROP = 0.45
#: Characters of a rater or an option in a tick label (beyond: "…").
_TICK_LIMIT = 30
#: Characters of each rater in the agreement bars' labels ("a = b ≠ c").
_PAIR_LIMIT = 20


def _quality_legend(footer: Footer, width: float, intervals: bool = False) -> None:
    handles = quality_handles(intervals)
    size = rc_points("legend.fontsize")
    footer.legend(
        handles=handles,
        title="quality",
        ncols=legend_ncols([h.get_label() for h in handles], size, width - 0.1),
    )


def _stacked_bars(ax: Any, shares: pd.DataFrame, names: list[str]) -> None:
    """Horizontal bars (top to bottom in *names* order), segments per quality level, and a
    whisker at each boundary between two levels, in the gap under the bar: the Wilson 95 %
    interval of the share up to it. The segments' percentages are written once the figure
    is laid out (:func:`_label_shares`), in those wide enough to hold them."""
    segments = []
    y = np.arange(len(names))[::-1]
    left = np.zeros(len(names))
    _boundary_intervals(ax, shares, y)
    for q in QUALITY_LEVELS:
        vals = shares[q].to_numpy(dtype=float) * 100.0
        ax.barh(
            y,
            vals,
            left=left,
            height=_FILL,
            color=QUALITY_COLORS[q],
            edgecolor="black",
            linewidth=0.4,
            label=q,
            gid=f"rrmap.bar.{q}",
        )
        segments += [
            (li, yi, v, QUALITY_COLORS[q]) for yi, li, v in zip(y, left, vals, strict=True)
        ]
        left += vals
    ax._rrmap_shares = segments
    ax.set_yticks(y, names)
    ax.set_xlim(0, 100)
    ax.set_ylim(-0.6, len(names) - 0.4)
    ax.set_xticks([0, 25, 50, 75, 100])
    ax.tick_params(axis="y", length=0)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def _label_shares(axes: Sequence[Any]) -> None:
    """Write each segment's percentage inside it where the number fits (with a 1 pt margin
    each side), whatever the share: a 4 % segment of a wide bar is labelled, a 12 % one of
    a narrow panel may not be. Black or white, whichever contrasts more with the fill."""
    size = rc_points("xtick.labelsize")
    for ax in axes:
        fig = ax.get_figure(root=True)
        span_pt = ax.get_position().width * fig.get_figwidth() * 72.0
        for left, y, v, fill in getattr(ax, "_rrmap_shares", []):
            label = f"{v:.0f}"
            if v < 0.5 or text_width_pt(label, size) + 2.0 > span_pt * v / 100.0:
                continue
            ax.text(
                left + v / 2,
                y,
                label,
                ha="center",
                va="center",
                fontsize=size,
                color=text_color(fill),
                gid="rrmap.share",
            )


def _boundary_intervals(ax: Any, shares: pd.DataFrame, y: np.ndarray) -> None:
    """Whiskers at the boundaries between quality levels of each bar: the Wilson 95 %
    interval of the share of points up to the boundary (excellent; excellent + fair;
    everything but bad), drawn in the gap under the bar, clear of the percentages inside
    it (they sat on them when drawn across the bar's lower part)."""
    n = shares["n"].to_numpy(dtype=float)
    counts = np.column_stack([shares[q].to_numpy(dtype=float) for q in QUALITY_LEVELS]) * n[:, None]
    cumulative = np.rint(np.cumsum(counts, axis=1)[:, :-1])  # the three inner boundaries
    low, high = wilson_interval(cumulative, np.repeat(n[:, None], 3, axis=1))
    share = cumulative / np.where(n > 0, n, np.nan)[:, None]
    rows = np.repeat(y[:, None] - _WHISKER_DROP, 3, axis=1)
    ok = np.isfinite(share) & (n[:, None] > 0)
    ax.errorbar(
        (100 * share)[ok],
        rows[ok],
        xerr=np.vstack([(100 * (share - low))[ok], (100 * (high - share))[ok]]),
        fmt="none",
        ecolor="black",
        elinewidth=0.6,
        capsize=1.2,
        capthick=0.6,
        zorder=3,
        gid="rrmap.intervals",
    )


@lists_keywords()
@gathers_glyph_warnings
def plot_proportions(
    points: pd.DataFrame,
    by: str | None = None,
    *,
    ax: Axes | None = None,
    width: float | str | None = None,
    labels: Mapping[str, str] | None = None,
    legend: bool = True,
) -> Any:
    """Quality proportions as stacked bars: per rater, or per rater × option of *by*.

    Each bar splits 100 % of a rater's points into excellent, fair,
    stereotype and bad, in the quality colours of every rrmap figure;
    every segment wide enough to hold its percentage carries it. A whisker at each
    boundary between two levels spans the Wilson 95 % interval of the share
    of points up to that boundary (:func:`rrmap.tables.wilson_interval`):
    how far the boundary could move with another sample of the same size.
    The numbers are those of :func:`rrmap.proportions`.

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points`.
    by : str, optional
        A category: one panel per rater, one bar per option. With several query
        corpora (a ``query`` column), ``by="query"`` compares them: one panel per
        rater, one bar per corpus; without *by* a bar per corpus and rater.
    ax : Axes, optional
        Draw the bars on this Axes of your own figure (one rater's points with *by*: one
        panel), their legend beside or under it where the Axes' room allows, and return
        the Axes; a new figure *width* wide if omitted.
    width : float or str, optional
        Printed width, default 7 in (panels wrap below 1.6 in each). Not with *ax*.
    labels : mapping, optional
        Display names of raters, options and columns.
    legend : bool, default True
        Draw the legend of the quality colours (with *ax*: ``False`` leaves it to
        :func:`rrmap.plot.add_legend`, one for a figure of several panels).

    Returns
    -------
    matplotlib.figure.Figure or matplotlib.axes.Axes
        The new figure, or *ax*.

    Examples
    --------
    >>> import rrmap
    >>> from rrmap.plot import plot_proportions
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> fig = plot_proportions(pts, width="3.5in")
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['E1 (n = 135)', 'E2 (n = 135)', 'E3 (n = 135)']
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(3.5, 2.5), layout="constrained")
    >>> plot_proportions(pts, ax=ax) is ax
    True
    >>> plt.close("all")
    """
    several = "query" in points.columns
    if several and by not in (None, "query"):
        raise InputError(
            f"the points hold several query corpora: draw the shares of {by!r} for one "
            "(points[points['query'] == ...]), or compare the corpora with by='query'"
        )
    tab = proportions(points, by, wide=True)
    if ax is not None:
        return _proportions_on(ax, tab, by, width, labels, legend)
    w = parse_width(width, 7.0)
    typ = typography(w)
    raters = list(dict.fromkeys(tab["expert"]))
    with mpl.rc_context(typ):
        fig = new_figure(w, 2.0)
        if by is None:
            axes = [fig.add_subplot()]
            names = _bar_names(tab, labels)
            _stacked_bars(axes[0], tab, names)
            n_bars, nrows = len(names), 1
        else:
            axes, n_bars, nrows = _proportion_panels(fig, tab, by, raters, w, labels)
        for ax in axes:
            if ax.xaxis.get_tick_params().get("labelbottom", True) or by is None:
                ax.set_xlabel("share of points (%)")
        if by is not None:
            fig.suptitle(title(by, points, labels), fontsize=typ["axes.titlesize"])
        footer = Footer(fig)
        _quality_legend(footer, w, intervals=True)
        freeze_ticks(fig, typ["xtick.labelsize"])
        fit_with_footer(fig, axes[:1], None, nrows, footer, panel_height=_ROW * n_bars + 0.1)
        _label_shares(axes)
    return fig


def _bar_names(tab: pd.DataFrame, labels: Mapping[str, str] | None) -> list[str]:
    """The label of each bar of one panel per rater: ``E1 (n = 135)``, and the corpus."""
    corpus = tab["query"] if "query" in tab.columns else [None] * len(tab)
    return [
        (f"{option_label(q, labels, _TICK_LIMIT)} · " if q is not None else "")
        + f"{option_label(r, labels, _TICK_LIMIT)} (n = {n})"
        for q, r, n in zip(corpus, tab.expert, tab.n, strict=True)
    ]


def quality_handles(intervals: bool = True) -> list[Any]:
    """Legend entries of the quality colours (and of the 95 % whiskers).

    Examples
    --------
    >>> [h.get_label() for h in quality_handles()][-2:]
    ['bad', '95 % interval']
    """
    handles: list[Any] = [
        Patch(facecolor=QUALITY_COLORS[q], edgecolor="black", linewidth=0.4, label=q)
        for q in QUALITY_LEVELS
    ]
    if intervals:
        handles.append(
            Line2D([], [], color="black", linewidth=0.6, marker="|", markersize=4,
                   markeredgewidth=0.6, label="95 % interval")
        )  # fmt: skip
    return handles


def _proportions_on(
    ax: Axes,
    tab: pd.DataFrame,
    by: str | None,
    width: Any,
    labels: Mapping[str, str] | None,
    legend: bool,
) -> Axes:
    """:func:`plot_proportions` on a user's *ax*: one rater's bars per option (*by*), or
    every rater's bar; the legend fitted into the room *ax* has."""
    if width is not None:
        raise InputError("width sizes a new figure; with ax=, size your own figure")
    if by is None:
        names = _bar_names(tab, labels)
        _stacked_bars(ax, tab, names)
    else:
        raters = list(dict.fromkeys(tab["expert"]))
        if len(raters) > 1:
            raise InputError(
                f"by={by!r} draws one panel per rater and the points have {len(raters)}: "
                "draw one rater's points on ax (points[points['expert'] == ...]), or let "
                "plot_proportions make the figure (width=)"
            )
        names = [option_label(o, labels, _TICK_LIMIT) for o in tab[by]]
        _stacked_bars(ax, tab.reset_index(drop=True), names)
        n = int(tab["n"].sum())
        ax.set_title(f"{option_label(raters[0], labels, _TICK_LIMIT)} (n = {n})")
    ax.set_xlabel("share of points (%)")
    handles = quality_handles() if legend else []
    attach(ax, None, handles, "quality", "", min_height=0.22 * len(names) + 0.1)
    _label_shares([ax])
    return ax


def _proportion_panels(
    fig: Figure,
    tab: pd.DataFrame,
    by: str,
    raters: list[Any],
    width: float,
    labels: Mapping[str, str] | None,
) -> tuple[list[Any], int, int]:
    """One panel per rater (wrapping to rows), one bar per option; y labels on the first
    column only."""
    options = list(dict.fromkeys(tab[by]))
    size = rc_points("ytick.labelsize")
    names = [option_label(o, labels, _TICK_LIMIT) for o in options]
    label_w = max(text_width_pt(name, size) for name in names) / 72 + 0.15
    ncols = max(1, min(len(raters), int((width - label_w) // 1.6)))
    nrows = math.ceil(len(raters) / ncols)
    grid = fig.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False)
    for k, ax in enumerate(grid.flat):
        if k >= len(raters):
            ax.set_visible(False)
            continue
        sub = tab[tab["expert"] == raters[k]].set_index(by).reindex(options).fillna(0.0)
        _stacked_bars(ax, sub.reset_index(), names)
        n = int(sub["n"].sum())
        panel_w = (width - label_w) / ncols - 0.1
        ax.set_title(panel_title(option_name(raters[k], labels), n, 0, True, panel_w))
        below = k + ncols < len(raters)  # another panel under this one
        ax.tick_params(labelleft=k % ncols == 0, labelbottom=not below)
    return [ax for ax in grid.flat if ax.get_visible()], len(options), nrows


def _pair_matrix(table: pd.DataFrame, a: str, b: str) -> np.ndarray:
    """Counts of comparisons put in zone i by rater *a* and zone j by rater *b*."""
    both = table[[a, b]].dropna()
    ia = pd.Categorical(both[a], categories=QUALITY_LEVELS).codes
    ib = pd.Categorical(both[b], categories=QUALITY_LEVELS).codes
    out = np.zeros((4, 4), dtype=int)
    np.add.at(out, (ia, ib), 1)
    return out


@lists_keywords()
@gathers_glyph_warnings
def plot_agreement(
    points: pd.DataFrame,
    *,
    ax: Axes | None = None,
    fig: Any = None,
    width: float | str | None = None,
    labels: Mapping[str, str] | None = None,
) -> Any:
    """Pointwise agreement across raters: where they agree, and on which zones they differ.

    Top: for every comparison (the same categories, rated by every rater),
    how the raters' zones relate — all in the same zone (per zone, in its
    quality colour), two raters agreeing (per pair), all different. Below,
    one matrix per rater pair (pooled over all pairs past 6 pairs): row =
    the first rater's zone, column = the second's, diagonal = agreement. The
    counts are those of :func:`rrmap.agreement`.

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points` with at least two raters.
    ax : Axes, optional
        Draw only the bars (where the raters agree) on this Axes of your own figure, and
        return it.
    fig : Figure or SubFigure, optional
        Draw the bars and the matrices into this (part of your own) figure, as it is
        sized and laid out, and return it.
    width : float or str, optional
        Printed width of a new figure, default 7 in. Not with *ax* or *fig*.
    labels : mapping, optional
        Display names of raters.

    Returns
    -------
    matplotlib.figure.Figure, SubFigure or Axes
        The new figure, *fig*, or *ax*.

    Examples
    --------
    >>> import rrmap
    >>> from rrmap.plot import plot_agreement
    >>> fig = plot_agreement(rrmap.points(rrmap.datasets.load_example_ratings()))
    >>> [ax.get_title() for ax in fig.axes[1:4]]
    ['E1 × E2: 24 % same zone', 'E1 × E3: 38 % same zone', 'E2 × E3: 16 % same zone']
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(3.5, 2.5), layout="constrained")
    >>> plot_agreement(rrmap.points(rrmap.datasets.load_example_ratings()), ax=ax) is ax
    True
    >>> plt.close("all")
    """
    if points["expert"].nunique() < 2:
        raise InputError("agreement needs at least two raters; the points have one")
    table = agreement(points)
    raters = [c for c in table.columns if c in set(map(str, points["expert"].unique()))]
    pairs = list(combinations(raters, 2))
    if ax is not None or fig is not None:
        return _agreement_on(ax, fig, width, table, pairs, labels)
    w = parse_width(width, 7.0)
    typ = typography(w)
    n_mat = len(pairs) if len(pairs) <= 6 else 1
    ncols = max(1, min(n_mat, int((w - 0.3) // 1.3)))
    mat_rows = math.ceil(n_mat / ncols)
    side = min(1.5, (w - 0.3) / ncols - 0.45)
    with mpl.rc_context(typ):
        fig = new_figure(w, 3.0)
        n_bars = _agreement_bar_count(table, pairs)
        heights = [_BAR * n_bars + 0.5, mat_rows * (side + 0.6)]
        top, bottom = fig.subfigures(2, 1, height_ratios=heights)
        bars = top.add_subplot()
        _agreement_bars(bars, table, pairs, labels)
        mats = bottom.subplots(mat_rows, ncols, squeeze=False)
        _pair_matrices(mats, table, pairs, labels, side, (w - 0.3) / ncols - 0.1)
        freeze_ticks(fig, typ["xtick.labelsize"])
        _fit_stack(fig, [top, bottom], heights, bars, _BAR * n_bars)
    return fig


def _agreement_on(
    ax: Axes | None,
    fig: Any,
    width: Any,
    table: pd.DataFrame,
    pairs: list[tuple[str, str]],
    labels: Mapping[str, str] | None,
) -> Any:
    """:func:`plot_agreement` on a user's *ax* (the bars) or into a user's *fig* (the bars
    over the matrices, in the room *fig* has)."""
    if width is not None or (ax is not None and fig is not None):
        raise InputError(
            "give one of ax= (the bars on your Axes), fig= (the whole figure in your Figure "
            "or SubFigure) and width= (a new figure)"
        )
    if ax is not None:
        _agreement_bars(ax, table, pairs, labels)
        attach(ax, None, [], None, "")  # its labels inside the room it has
        return ax
    with drawing_into(fig) as w:
        n_mat = len(pairs) if len(pairs) <= 6 else 1
        ncols = max(1, min(n_mat, int((w - 0.3) // 1.3)))
        mat_rows = math.ceil(n_mat / ncols)
        side = min(1.5, (w - 0.3) / ncols - 0.45)
        top, bottom = fig.subfigures(2, 1, height_ratios=[1.0, 1.2 * mat_rows])
        _agreement_bars(top.add_subplot(), table, pairs, labels)
        mats = bottom.subplots(mat_rows, ncols, squeeze=False)
        _pair_matrices(mats, table, pairs, labels, side, (w - 0.3) / ncols - 0.1)
    return fig


def _fit_stack(fig: Figure, parts: list[Any], heights: list[float], ax: Any, target: float) -> None:
    """Heights of stacked subfigures so that *ax* (in the first) is *target* inches tall."""
    width = fig.get_figwidth()
    for _ in range(4):
        fig.set_size_inches(width, sum(heights), forward=False)
        parts[0]._subplotspec.get_gridspec().set_height_ratios(heights)
        lay_out(fig)
        got = ax.get_window_extent().height / fig.dpi
        if abs(got - target) < 0.01:
            return
        heights[0] += target - got


def _agreement_bar_count(table: pd.DataFrame, pairs: list[tuple[str, str]]) -> int:
    return 4 + len(pairs) + 1 + int((table["pattern"] == "incomplete").any())


def _agreement_bars(
    ax: Any, table: pd.DataFrame, pairs: list[tuple[str, str]], labels: Mapping[str, str] | None
) -> None:
    """One bar per pattern: all agree in each zone, each pair agreeing alone, all different."""
    total = len(table)
    rows: list[tuple[str, int, str]] = []
    agree = table["pattern"] == "all agree"
    for q in QUALITY_LEVELS:
        rows.append(
            (f"all agree: {q}", int((agree & (table["zone"] == q)).sum()), QUALITY_COLORS[q])
        )
    partial = table[table["pattern"] == "partial"]
    for a, b in pairs:
        # from the raters' zones, not the "agreeing" text: a name may hold "|" or ";"
        same = partial[a].notna() & (partial[a].astype(object) == partial[b].astype(object))
        count = int(same.sum())
        name = f"{option_label(a, labels, _PAIR_LIMIT)} = {option_label(b, labels, _PAIR_LIMIT)}"
        if len(pairs) == 3:  # three raters: the third put it elsewhere
            (other,) = {x for p in pairs for x in p} - {a, b}
            name += f" ≠ {option_label(other, labels, _PAIR_LIMIT)}"
        rows.append((name if len(pairs) > 1 else "agree", count, "0.7"))
    rows.append(("all different", int((table["pattern"] == "all different").sum()), "0.35"))
    incomplete = int((table["pattern"] == "incomplete").sum())
    if incomplete:
        rows.append(("not rated by all", incomplete, "white"))
    y = np.arange(len(rows))[::-1]
    counts = np.array([r[1] for r in rows], dtype=float)
    ax.barh(y, counts, color=[r[2] for r in rows], edgecolor="black", linewidth=0.4, height=0.75)
    size = rc_points("xtick.labelsize")
    for yi, c in zip(y, counts, strict=True):
        ax.text(c, yi, f" {int(c)} ({100 * c / max(total, 1):.0f} %)", va="center", fontsize=size)
    ax.set_yticks(y, [r[0] for r in rows])
    ax.set_xlim(0, counts.max() * 1.3 if counts.max() else 1)
    ax.set_xlabel(f"comparisons (of {total})")
    ax.tick_params(axis="y", length=0)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def _pair_matrices(
    mats: np.ndarray,
    table: pd.DataFrame,
    pairs: list[tuple[str, str]],
    labels: Mapping[str, str] | None,
    side: float,
    cell: float,
) -> None:
    """Zone × zone counts per rater pair (or pooled), the diagonal outlined; titles fit the
    *cell* width of a column of matrices, axis labels the *side* of a matrix (inches)."""
    size = rc_points("xtick.labelsize")
    label_size = rc_points("axes.labelsize")
    short = ["exc.", "fair", "ster.", "bad"]
    if len(pairs) <= 6:
        blocks = [(a, b, _pair_matrix(table, a, b)) for a, b in pairs]
    else:
        pooled = sum(_pair_matrix(table, a, b) for a, b in pairs)
        blocks = [("rater", "other rater", pooled + pooled.T - np.diag(np.diag(pooled)))]
    for k, ax in enumerate(mats.flat):
        if k >= len(blocks):
            ax.set_visible(False)
            continue
        a, b, m = blocks[k]
        edges = np.arange(5) - 0.5
        # vector cells (an image would be resampled to the dpi in PostScript)
        mesh = ax.pcolormesh(edges, edges, m, cmap="Blues", vmin=0, vmax=max(m.max(), 1) * 1.25)
        ax.set_xlim(-0.5, 3.5)
        ax.set_ylim(3.5, -0.5)
        ax.set_aspect("equal")
        fills = mesh.cmap(mesh.norm(m))
        for i in range(4):
            for j in range(4):
                ink = text_color(fills[i, j])
                ax.text(j, i, str(m[i, j]), ha="center", va="center", fontsize=size, color=ink)
            ax.add_patch(
                mpl.patches.Rectangle(
                    (i - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="black", lw=0.9
                )
            )
        same = np.trace(m) / max(m.sum(), 1)
        ax.set_title(_pair_title(option_name(a, labels), option_name(b, labels), same, cell))
        ax.set_xticks(range(4), short)
        ax.set_yticks(range(4), short if k % mats.shape[1] == 0 else [])
        ax.set_xlabel(fitted_text(option_name(b, labels), label_size, side))
        ax.set_ylabel(fitted_text(option_name(a, labels), label_size, side))
        ax.tick_params(length=0)


def _pair_title(a: str, b: str, same: float, width: float) -> str:
    """``E1 × E2: 31 % same zone``, or the pair over the share when that is wider than
    *width* inches; names are cut with "…" (each to half the width) only when the pair
    itself does not fit."""
    size = rc_points("axes.titlesize")
    share = f"{100 * same:.0f} % same zone"
    pair = f"{option_label(a, None)} × {option_label(b, None)}"
    if text_width_pt(f"{pair}: {share}", size) <= 72.0 * width:
        return f"{pair}: {share}"
    if text_width_pt(pair, size) <= 72.0 * width:
        return f"{pair}\n{share}"
    half = (width - text_width_pt(" × ", size) / 72.0) / 2.0
    return f"{fitted_text(a, size, half)} × {fitted_text(b, size, half)}\n{share}"
