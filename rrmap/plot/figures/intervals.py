"""Example intervals beside their RRMap points (paper Fig. 2; docs/figures.md)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from rrmap.comparison import compare
from rrmap.errors import InputError
from rrmap.gaussian import interval_to_gaussian
from rrmap.plot.base._glyphs import gathers_glyph_warnings
from rrmap.plot.base._keywords import lists_keywords
from rrmap.plot.base._sizing import freeze_ticks, lay_out, new_figure, text_width_pt
from rrmap.plot.base._style import QUALITY_COLORS, rc_points, style_map, typography
from rrmap.plot.base._widths import parse_width
from rrmap.plot.base.geometry import DEFAULT_XLIM, DEFAULT_YLIM
from rrmap.plot.figures._user_axes import drawing_into
from rrmap.plot.figures.map import panel_artists, plot_rrmap
from rrmap.plot.figures.panel import legend_handles
from rrmap.zones import QUALITY_LEVELS, Thresholds, classify

__all__ = ["example_interval_pairs", "plot_interval_examples"]


def example_interval_pairs() -> pd.DataFrame:
    """The nine interval pairs of paper Fig. 2: reference [30, 50], query shifted/scaled.

    Rows: query dilated (width 40), same width, compressed (width 10);
    columns: shifted by −5, not shifted, shifted by +5 rating points. On the
    RRMap they give 1 excellent, 2 fair, 3 stereotype and 3 bad points, the
    paper's "1/9 Excel., 2/9 Fair, 3/9 Stereo., 3/9 Bad".

    Returns
    -------
    DataFrame
        Columns ``label``, ``low_ref``, ``high_ref``, ``low_query``, ``high_query``.

    Examples
    --------
    >>> pairs = example_interval_pairs()
    >>> pairs.loc[4, "label"], pairs.loc[4, ["low_query", "high_query"]].tolist()
    ('same width, centred', [30.0, 50.0])
    """
    rows = []
    for width, wname in ((40.0, "dilated"), (20.0, "same width"), (10.0, "compressed")):
        for shift, sname in ((-5.0, "shifted down"), (0.0, "centred"), (5.0, "shifted up")):
            centre = 40.0 + shift
            rows.append(
                {
                    "label": f"{wname}, {sname}",
                    "low_ref": 30.0,
                    "high_ref": 50.0,
                    "low_query": centre - width / 2,
                    "high_query": centre + width / 2,
                }
            )
    return pd.DataFrame(rows)


def _pairs_frame(pairs: pd.DataFrame | Sequence[Any] | None) -> pd.DataFrame:
    if pairs is None:
        return example_interval_pairs()
    if isinstance(pairs, pd.DataFrame):
        need = ["low_ref", "high_ref", "low_query", "high_query"]
        missing = [c for c in need if c not in pairs.columns]
        if missing:
            raise InputError(f"interval pairs have no column {', '.join(map(repr, missing))}")
        out = pairs.reset_index(drop=True).copy()
    else:
        rows = []
        problems = []
        for i, pair in enumerate(pairs):
            try:
                (a1, b1), (a2, b2) = pair
                rows.append({"low_ref": a1, "high_ref": b1, "low_query": a2, "high_query": b2})
            except (TypeError, ValueError):
                problems.append(f"pair {i + 1}: {pair!r} is not ((low, high), (low, high))")
        if problems:
            raise InputError("; ".join(problems))
        out = pd.DataFrame(rows, columns=["low_ref", "high_ref", "low_query", "high_query"])
    if out.empty:
        raise InputError("no interval pairs given")
    if "label" not in out:
        out["label"] = [f"pair {i + 1}" for i in range(len(out))]
    cols = ["low_ref", "high_ref", "low_query", "high_query"]
    for col in cols:
        out[col] = pd.to_numeric(out[col], errors="coerce")
    vals = out[cols].to_numpy(dtype=float)
    bad = ~((vals[:, 1] > vals[:, 0]) & (vals[:, 3] > vals[:, 2]) & np.isfinite(vals).all(axis=1))
    if bad.any():
        raise InputError(
            "intervals need finite numbers with low < high; not so in pair(s) "
            + ", ".join(str(i + 1) for i in np.flatnonzero(bad))
        )
    return out


@lists_keywords()
@gathers_glyph_warnings
def plot_interval_examples(
    pairs: pd.DataFrame | Sequence[Any] | None = None,
    *,
    gaussians: bool = False,
    ncols: int | None = None,
    coverage: float = 0.95,
    z: float | None = None,
    thresholds: Thresholds | None = None,
    xlim: tuple[float, float] = DEFAULT_XLIM,
    ylim: tuple[float, float] = DEFAULT_YLIM,
    width: float | str | None = None,
    ax: Any = None,
    fig: Any = None,
) -> Any:
    """Example intervals beside their points on the RRMap (paper Fig. 2).

    Left (above, in figures narrower than 5 in), one small panel per pair:
    the reference interval (grey) and the query interval (coloured by its
    quality zone), as bars or, with ``gaussians=True``, as the normal
    densities they stand for. Right (below), the RRMap with each pair's point
    numbered like its panel.

    Parameters
    ----------
    pairs : DataFrame or sequence of ((low, high), (low, high)), optional
        Reference and query intervals; a DataFrame needs ``low_ref``,
        ``high_ref``, ``low_query``, ``high_query`` (and may have ``label``).
        Default :func:`example_interval_pairs` (the paper's nine).
    gaussians : bool, default False
        Draw the Gaussians instead of the intervals.
    ncols : int, optional
        Columns of the small panels (default ⌈√n⌉).
    coverage, z : float
        Interval → Gaussian convention (see :func:`rrmap.interval_to_gaussian`).
    thresholds : Thresholds, optional
        Zone thresholds.
    xlim, ylim : (float, float)
        View of the RRMap.
    width : float or str, optional
        Printed width (``"3.5in"``, ``"180mm"``), default 7 in; the height follows.
    ax : Axes, optional
        Draw only the RRMap of the pairs, each point numbered, on this Axes of your own
        figure, and return it.
    fig : Figure or SubFigure, optional
        Draw the whole figure (small panels beside or above the map) into this (part of
        your own) figure, as it is sized, and return it.

    Returns
    -------
    matplotlib.figure.Figure, SubFigure or Axes
        The new figure, *fig*, or *ax*.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from rrmap.plot import plot_interval_examples
    >>> fig = plot_interval_examples([((30, 50), (35, 45)), ((30, 50), (20, 60))], width=3.5)
    >>> len(fig.subfigs[0].axes), float(fig.get_figwidth())
    (2, 3.5)
    >>> fig, ax = plt.subplots(figsize=(3.5, 3), layout="constrained")
    >>> plot_interval_examples(ax=ax) is ax
    True
    >>> plt.close("all")
    """
    df = _pairs_frame(pairs)
    th = thresholds or Thresholds()
    m1, s1 = interval_to_gaussian(df["low_ref"], df["high_ref"], coverage=coverage, z=z)
    m2, s2 = interval_to_gaussian(df["low_query"], df["high_query"], coverage=coverage, z=z)
    delta, r, bc = compare(m1, s1, m2, s2)
    pts = df.assign(delta=delta, r=r, bc=bc, quality=classify(delta, r, bc, th))
    pts["number"] = np.arange(1, len(pts) + 1)
    ncols = ncols or math.ceil(math.sqrt(len(pts)))
    if ax is not None or fig is not None:
        if width is not None or (ax is not None and fig is not None):
            raise InputError(
                "give one of ax= (the map on your Axes), fig= (the whole figure in your "
                "Figure or SubFigure) and width= (a new figure)"
            )
        if ax is not None:
            _numbered_map(ax, pts, th, xlim, ylim, title=False)
            return ax
        with drawing_into(fig) as w:
            _two_parts(fig, pts, (m1, s1, m2, s2), gaussians, ncols, th, xlim, ylim, w < 5.0)
        return fig
    w = parse_width(width, 7.0)
    typ = typography(w)
    with mpl.rc_context(typ):
        fig = new_figure(w, w)
        stacked = w < 5.0
        left, right, ax = _two_parts(
            fig, pts, (m1, s1, m2, s2), gaussians, ncols, th, xlim, ylim, stacked
        )
        freeze_ticks(fig, typ["xtick.labelsize"])
        _fit_map_height(fig, left, right, ax, stacked)
    return fig


def _two_parts(
    fig: Any,
    pts: pd.DataFrame,
    gauss: tuple[Any, ...],
    gaussians: bool,
    ncols: int,
    th: Thresholds,
    xlim: tuple[float, float],
    ylim: tuple[float, float],
    stacked: bool,
) -> tuple[Any, Any, Any]:
    """The small panels (above the map when *stacked*, else left of it) and the map."""
    if stacked:
        left, right = fig.subfigures(2, 1, height_ratios=[1.0, 1.3])
    else:
        left, right = fig.subfigures(1, 2, width_ratios=[1.0, 1.25])
    _small_panels(left, pts, gauss, gaussians, ncols)
    ax = right.subplots()
    _numbered_map(ax, pts, th, xlim, ylim)
    return left, right, ax


def _small_panels(
    sub: Any, pts: pd.DataFrame, gauss: tuple[Any, ...], gaussians: bool, ncols: int
) -> None:
    """One small panel per pair: reference and query as bars or as their Gaussians."""
    m1, s1, m2, s2 = gauss
    n = len(pts)
    nrows = math.ceil(n / ncols)
    small = sub.subplots(nrows, ncols, sharex=True, sharey=True, squeeze=False)
    lo = float(min(pts["low_ref"].min(), pts["low_query"].min()))
    hi = float(max(pts["high_ref"].max(), pts["high_query"].max()))
    pad = 0.08 * (hi - lo)
    grid_x = np.linspace(lo - pad, hi + pad, 300)
    for k, ax in enumerate(small.flat):
        if k >= n:
            ax.set_visible(False)
            continue
        row = pts.iloc[k]
        qcol = QUALITY_COLORS[str(row["quality"])]
        if gaussians:
            for m, s, col, lw in ((m1[k], s1[k], "0.45", 1.0), (m2[k], s2[k], qcol, 1.6)):
                dens = np.exp(-0.5 * ((grid_x - m) / s) ** 2) / (s * math.sqrt(2 * math.pi))
                ax.plot(grid_x, dens, color=col, linewidth=lw)
                ax.fill_between(grid_x, dens, color=col, alpha=0.15, linewidth=0)
            ax.set_yticks([])
        else:
            ax.hlines(1, row["low_ref"], row["high_ref"], color="0.45", linewidth=4)
            ax.hlines(0, row["low_query"], row["high_query"], color=qcol, linewidth=4)
            ax.set_ylim(-0.8, 1.8)
            ax.set_yticks([0, 1], ["query", "ref."])
        ax.set_title(f"{row['number']}", fontweight="bold", pad=2)
        ax.xaxis.set_major_locator(mpl.ticker.MaxNLocator(nbins=3, prune="both"))
    small.flat[0].set_xlim(lo - pad, hi + pad)
    for j in range(ncols):
        column = [small[i, j] for i in range(nrows) if i * ncols + j < n]
        if column:
            column[-1].set_xlabel("rating")
    head, size = "(a) reference (grey) and query ratings", rc_points("axes.titlesize")
    if text_width_pt(head, size) > 0.95 * sub.bbox.width / sub.get_figure(root=True).dpi * 72:
        head = "(a) reference (grey)\nand query ratings"  # wider than its part of the figure
    sub.suptitle(head, fontsize=size)


def _numbered_map(
    ax: Any,
    pts: pd.DataFrame,
    th: Thresholds,
    xlim: tuple[float, float],
    ylim: tuple[float, float],
    title: bool = True,
) -> None:
    """The RRMap of the pairs, coloured by quality, each point numbered like its panel
    (and, with *title*, the map's title over its part of the figure)."""
    size = rc_points("xtick.labelsize")
    # on a user's Axes (no title) the legend is fitted beside or under the map, where it
    # covers no point; in the figure it sits in the map's empty top right corner
    kw = {"thresholds": th, "xlim": xlim, "ylim": ylim, "size": 30.0}
    plot_rrmap(pts, "quality", ax=ax, legend=not title, **kw)
    for _, row in pts.iterrows():
        x = float(np.clip(row["delta"], *xlim))
        y = float(np.clip(row["r"], *ylim))
        ax.annotate(
            str(row["number"]),
            (x, y),
            xytext=(4, -3),
            textcoords="offset points",
            va="top",
            fontsize=size,
            fontweight="bold",
            zorder=5,
        )
    if not title:
        return
    present = set(pts["quality"].astype(str))
    styles = style_map([q for q in QUALITY_LEVELS if q in present], None, None, "quality")
    ax.legend(
        handles=legend_handles(styles, 30.0, panel_artists(ax).n_clipped, True),
        loc="upper right",
        framealpha=0.85,
        frameon=True,
    )
    ax.figure.suptitle("(b) their points on the RRMap", fontsize=mpl.rcParams["axes.titlesize"])


def _fit_map_height(fig: Figure, left: Any, right: Any, ax: Any, stacked: bool) -> None:
    """Figure height giving the map panel a height of 0.8 × its width."""
    width = fig.get_figwidth()
    for _ in range(5):
        lay_out(fig)  # drawing it (draw_without_rendering) walked every artist once more
        box = ax.get_window_extent()
        target = 0.8 * box.width / fig.dpi
        got = box.height / fig.dpi
        if abs(got - target) < 0.01:
            return
        grow = (target - got) * (2.3 / 1.3 if stacked else 1.0)
        fig.set_size_inches(width, fig.get_figheight() + grow, forward=False)
