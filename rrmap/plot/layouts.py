"""Figures of several RRMap panels (docs/figures.md).

:func:`plot_rrmap_by_rater` draws one panel per rater (paper Fig. 4),
:func:`plot_rrmap_grid` raters as columns and categories as rows (paper
Fig. 5), with one shared colorbar and legend; :func:`save_analysis_figures`
writes both as PDF and PNG for ``rrmap analyze``. Nothing here calls ``show()``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from rrmap.errors import InputError
from rrmap.plot.map import (
    _LABELS,
    _check_points,
    _legend_handles,
    _levels,
    _style_map,
    panel_artists,
    plot_rrmap,
)

__all__ = ["plot_rrmap_by_rater", "plot_rrmap_grid", "save_analysis_figures"]


def _rater_levels(points: pd.DataFrame, rater: str) -> list[Any]:
    return _levels(points[rater], None)


def _panel_title(name: Any, n: int, n_clipped: int, clip: bool) -> str:
    out = f"{name} (n = {n}"
    if n_clipped:
        out += f", {n_clipped} {'clipped' if clip else 'outside'}"
    return out + ")"


def plot_rrmap_by_rater(
    points: pd.DataFrame,
    color: str | None = None,
    *,
    rater: str = "expert",
    ncols: int | None = None,
    panel_size: tuple[float, float] = (2.6, 2.4),
    order: Sequence[Any] | None = None,
    clip: bool = True,
    **panel_kw: Any,
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
    ncols : int, optional
        Panels per row (default all in one row, up to 4).
    panel_size : (float, float)
        Width and height of one panel in inches.
    order : sequence, optional
        Option order of *color*.
    clip : bool, default True
        See :func:`plot_rrmap`; each panel title says how many were clipped.
    **panel_kw
        Passed to :func:`plot_rrmap` (``xlim``, ``ylim``, ``thresholds``, ``palette``...).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import rrmap
    >>> from rrmap.plot import plot_rrmap_by_rater
    >>> fig = plot_rrmap_by_rater(rrmap.points(rrmap.datasets.load_example_ratings()), "movement")
    >>> [ax.get_title() for ax in fig.axes[:3]]
    ['E1 (n = 135, 2 clipped)', 'E2 (n = 135, 12 clipped)', 'E3 (n = 135, 28 clipped)']
    >>> plt.close(fig)
    """
    _check_points(points, [color, rater])
    raters = _rater_levels(points, rater)
    n = len(raters)
    ncols = ncols or min(n, 4)
    nrows = math.ceil(n / ncols)
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(panel_size[0] * ncols + 1.0, panel_size[1] * nrows + 0.7),
        layout="constrained",
        sharex=True,
        sharey=True,
        squeeze=False,
    )
    levels = _levels(points[color], order) if color is not None else None
    total_clipped = 0
    labels = panel_kw.pop("labels", True)
    for k, (ax, name) in enumerate(zip(axes.flat, raters, strict=False)):
        sub = points[points[rater] == name]
        plot_rrmap(
            sub,
            color,
            ax=ax,
            order=levels,
            colorbar=False,
            legend=False,
            clip=clip,
            labels=labels and k == 0,
            **panel_kw,
        )
        drawn = panel_artists(ax)
        total_clipped += drawn.n_clipped
        ax.set_title(_panel_title(name, len(sub), drawn.n_clipped, clip))
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    fig.get_layout_engine().set(wspace=0.07)
    for ax in axes.flat:
        ax.label_outer()
    _finish_figure(fig, axes, points, color, levels, total_clipped, clip, panel_kw)
    return fig


def _finish_figure(
    fig: Figure,
    axes: np.ndarray,
    points: pd.DataFrame,
    color: str | None,
    levels: list[Any] | None,
    total_clipped: int,
    clip: bool,
    panel_kw: Mapping[str, Any],
) -> None:
    first = panel_artists(axes.flat[0])
    if first.background is not None:
        cb = fig.colorbar(
            first.background, ax=axes, label=_LABELS["bc"], shrink=0.9, fraction=0.04, pad=0.01
        )
        cb.solids.set_rasterized(True)
    styles = (
        _style_map(levels, panel_kw.get("palette"), panel_kw.get("markers"), color)
        if levels is not None
        else {}
    )
    handles = _legend_handles(
        styles, panel_kw.get("size", 22.0), None if total_clipped else 0, clip
    )
    if handles:
        fig.legend(
            handles=handles,
            title=color,
            loc="outside lower center",
            ncols=min(len(handles), 6),
        )


def plot_rrmap_grid(
    points: pd.DataFrame,
    categories: Sequence[str] | None = None,
    *,
    rater: str = "expert",
    max_options: int = 12,
    panel_size: tuple[float, float] = (2.3, 2.0),
    clip: bool = True,
    **panel_kw: Any,
) -> Figure:
    """Raters as columns × categories as rows, points coloured by option (paper Fig. 5).

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points`.
    categories : sequence of str, optional
        One row per category column. Default: the categories recorded in
        ``points.attrs`` with at most *max_options* options (the study:
        movement, criterion, criterion_group, modality; ``modality_name``
        with its 15 options is left out — pass it explicitly to draw it).
    rater : str, default "expert"
        Column naming the raters, one column of panels each.
    max_options : int, default 12
        Largest number of options of a default row category.
    panel_size : (float, float)
        Width and height of one panel in inches.
    clip : bool, default True
        See :func:`plot_rrmap`; panel titles count clipped points.
    **panel_kw
        Passed to :func:`plot_rrmap`.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import rrmap
    >>> from rrmap.plot import plot_rrmap_grid
    >>> fig = plot_rrmap_grid(rrmap.points(rrmap.datasets.load_example_ratings()))
    >>> [ax.get_legend().get_title().get_text() for ax in fig.axes if ax.get_legend()]
    ['movement', 'criterion', 'criterion_group', 'modality']
    >>> plt.close(fig)
    """
    _check_points(points, [rater, *(categories or [])])
    if categories is None:
        recorded = points.attrs.get("rrmap", {}).get("categories")
        candidates = recorded or [
            c
            for c in points.columns
            if points[c].dtype == object or pd.api.types.is_string_dtype(points[c])
        ]
        categories = [
            c
            for c in candidates
            if c != rater and c in points and points[c].nunique() <= max_options
        ]
    if not categories:
        raise InputError("no category column to draw rows for; pass categories=[...]")
    raters = _rater_levels(points, rater)
    nrows, ncols = len(categories), len(raters)
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(panel_size[0] * ncols + 2.6, panel_size[1] * nrows + 0.9),
        layout="constrained",
        sharex=True,
        sharey=True,
        squeeze=False,
    )
    fig.get_layout_engine().set(wspace=0.07, hspace=0.05)
    clipped_any = False
    for i, cat in enumerate(categories):
        levels = _levels(points[cat], None)
        for j, name in enumerate(raters):
            ax = axes[i, j]
            sub = points[points[rater] == name]
            plot_rrmap(
                sub,
                cat,
                ax=ax,
                order=levels,
                colorbar=False,
                legend=False,
                labels=False,
                references=True,
                clip=clip,
                **panel_kw,
            )
            drawn = panel_artists(ax)
            clipped_any |= drawn.n_clipped > 0
            if i == 0:
                ax.set_title(_panel_title(name, len(sub), drawn.n_clipped, clip))
            elif drawn.n_clipped:
                ax.text(
                    0.98,
                    0.97,
                    f"{drawn.n_clipped} {'clipped' if clip else 'outside'}",
                    transform=ax.transAxes,
                    ha="right",
                    va="top",
                    fontsize="x-small",
                )
        styles = _style_map(levels, panel_kw.get("palette"), panel_kw.get("markers"), cat)
        handles = _legend_handles(styles, panel_kw.get("size", 22.0), 0, clip)
        axes[i, -1].legend(
            handles=handles,
            title=cat,
            loc="center left",
            bbox_to_anchor=(1.05, 0.5),
            ncols=1 if len(handles) <= 10 else 2,
            borderaxespad=0.0,
        )
    for ax in axes.flat:
        ax.label_outer()
    first = panel_artists(axes.flat[0])
    if first.background is not None:
        cb = fig.colorbar(
            first.background,
            ax=axes,
            location="bottom",
            label=_LABELS["bc"],
            shrink=0.5,
            fraction=0.03,
            pad=0.02,
        )
        cb.solids.set_rasterized(True)
    if clipped_any and clip:
        fig.text(
            0.01,
            0.005,
            "▶ points beyond the view, clipped to its edge",
            fontsize="small",
            ha="left",
            va="bottom",
        )
    return fig


def save_analysis_figures(
    points: pd.DataFrame,
    folder: str | Path,
    *,
    color: str | None = None,
    rater: str = "expert",
    categories: Sequence[str] | None = None,
    formats: Sequence[str] = ("pdf", "png"),
    dpi: int = 200,
) -> list[Path]:
    """Write the per-rater and the grid figures of an analysis (paper style).

    Files: ``rrmap_by_rater.<fmt>`` and ``rrmap_grid.<fmt>`` for each format,
    drawn with the ``rrmap-paper`` style (text kept as text in PDF/SVG, the
    background as an embedded raster). Existing files are replaced; figures
    are closed after saving.

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points`.
    folder : str or Path
        Created if missing.
    color : str, optional
        Colour of the per-rater figure; default the first category column.
    rater : str, default "expert"
        Rater column.
    categories : sequence of str, optional
        Rows of the grid figure (see :func:`plot_rrmap_grid`).
    formats : sequence of str, default ("pdf", "png")
        File formats (``pdf``, ``svg``, ``png``...).
    dpi : int, default 200
        Resolution of raster formats.

    Returns
    -------
    list of Path
        The files written.

    Examples
    --------
    >>> import rrmap, tempfile
    >>> from rrmap.plot import save_analysis_figures
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> files = save_analysis_figures(pts, tempfile.mkdtemp())  # doctest: +SKIP
    >>> [f.name for f in files]  # doctest: +SKIP
    ['rrmap_by_rater.pdf', 'rrmap_by_rater.png', 'rrmap_grid.pdf', 'rrmap_grid.png']
    """
    from rrmap.plot.styles import PAPER_STYLE

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if color is None:
        cats = points.attrs.get("rrmap", {}).get("categories") or []
        color = cats[0] if cats else None
    written: list[Path] = []
    with plt.style.context(PAPER_STYLE):
        makers = {
            "rrmap_by_rater": lambda: plot_rrmap_by_rater(points, color, rater=rater),
            "rrmap_grid": lambda: plot_rrmap_grid(points, categories, rater=rater),
        }
        for stem, make in makers.items():
            fig = make()
            try:
                for fmt in formats:
                    path = folder / f"{stem}.{fmt}"
                    fig.savefig(path, dpi=dpi)
                    written.append(path)
            finally:
                plt.close(fig)
    return written
