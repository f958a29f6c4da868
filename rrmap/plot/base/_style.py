"""How options look and how figures are sized: palettes, markers, titles, printed widths.

Shared by every figure of :mod:`rrmap.plot` so that one option (or one
quality level) has the same colour and marker in every figure, titles read as
the user's file spells them, and a figure is laid out for the width it will be
printed at rather than shrunk to it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from rrmap._util.escape import display_text, plain_figure_text, short_label
from rrmap.errors import InputError
from rrmap.zones import QUALITY_LEVELS

#: Okabe–Ito colours (colour-blind safe), in the order options are coloured. Okabe and
#: Ito's yellow (#F0E442) is left out: on the light yellow of the map's centre it is no
#: colour at all.
OKABE_ITO: tuple[str, ...] = (
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    "#000000",
)
#: Point markers, one per option, so maps survive greyscale printing. Shapes with a meaning
#: of their own are left out: triangles mark clipped points, the star the reference points.
#: Past 7 options colours repeat, each time with a marker of another shape (:func:`style_map`),
#: so every option stays distinct for colour-blind readers.
MARKERS: tuple[str, ...] = ("o", "s", "D", "P", "X", "h", "p", "d", "H")
#: The five shapes told apart at a glance; the other markers are variants of them (hexagons
#: and the pentagon read as circles, "d" as "D"). An option whose colour repeats takes a
#: shape its colour has not had yet.
_SHAPES: tuple[str, ...] = ("o", "s", "D", "P", "X")
_SHAPE_OF: dict[str, int] = {"o": 0, "s": 1, "D": 2, "P": 3, "X": 4, "h": 0, "p": 0, "d": 2, "H": 0}
#: Marker shapes reserved for what they mean on the map: never an option's.
RESERVED_MARKERS: tuple[str, ...] = ("*", "^", "v", "<", ">")
#: Colours of the quality levels, the same in every figure. Their lightness (CIELAB L* 34,
#: 70, 89, 54) differs by at least 15 L* between any two, so that every level has its own
#: grey in greyscale print, and they stay apart for deuteranopes
#: (tests/plot/test_print_safe.py, tests/plot/test_grey_and_many.py).
QUALITY_COLORS: dict[str, str] = {
    "excellent": "#005C45",
    "fair": "#56B4E9",
    "stereotype": "#F0E442",
    "bad": "#D55E00",
}
#: Markers of the quality levels, the same in every figure.
QUALITY_MARKERS: dict[str, str] = {
    "excellent": "o",
    "fair": "s",
    "stereotype": "D",
    "bad": "X",
}


def dense_alpha(n: int) -> float:
    """Default opacity of *n* points in one panel: 0.85 up to 100 points, then less (down
    to 0.5), so that a crowded centre shows how crowded it is.

    Examples
    --------
    >>> dense_alpha(50), dense_alpha(135), dense_alpha(405)
    (0.85, 0.73, 0.5)
    """
    return round(max(0.5, min(0.85, 0.85 * math.sqrt(100 / max(n, 1)))), 2)


def typography(width: float, min_size: float = 6.0) -> dict[str, Any]:
    """Matplotlib settings for a figure printed *width* inches wide.

    Type sizes are absolute points (7–8 pt at a full page width, down to
    *min_size* for a narrow column), lines are thin, and text stays text in
    PDF, PS and SVG.

    Examples
    --------
    >>> typography(7.0)["xtick.labelsize"], typography(3.5)["xtick.labelsize"]
    (7.0, 6.0)
    """
    wide = width >= 6.0
    base = 8.0 if wide else max(min_size + 0.5, 6.5)
    small = 7.0 if wide else min_size
    return {
        "font.size": base,
        "axes.titlesize": base,
        "axes.labelsize": base,
        "xtick.labelsize": small,
        "ytick.labelsize": small,
        "legend.fontsize": small,
        "legend.title_fontsize": small if not wide else base,
        "figure.titlesize": base + 1,
        "axes.linewidth": 0.6,
        "xtick.major.width": 0.6,
        "ytick.major.width": 0.6,
        "xtick.major.size": 2.5,
        "ytick.major.size": 2.5,
        "xtick.major.pad": 2.0,
        "ytick.major.pad": 2.0,
        "axes.labelpad": 2.0,
        "axes.titlepad": 3.0,
        "legend.frameon": False,
        "legend.handletextpad": 0.3,
        "legend.columnspacing": 0.9,
        "legend.borderaxespad": 0.2,
        "legend.labelspacing": 0.3,
        "pdf.fonttype": 42,
        "ps.fonttype": 42,
        "svg.fonttype": "none",
    }


def headers(points: Any) -> dict[str, str]:
    """Column name → the header as the ratings file spelt it (``criterion_group`` →
    ``criterion group``), from the points' metadata."""
    meta = getattr(points, "attrs", {}).get("rrmap", {}) if points is not None else {}
    return dict(meta.get("headers") or {})


#: Characters of a label drawn in a legend, a tick label or a title (beyond: "…").
LABEL_LIMIT = 40


def figure_text(value: Any, limit: int | None = LABEL_LIMIT) -> str:
    r"""*value* as a matplotlib text that shows its characters: as every format shows a
    label (:func:`rrmap._util.escape.display_text`: control characters as spaces, invisible
    characters left out of the glyph layout, bidirectional controls as their code), never
    mathtext (``$`` escaped), and cut to *limit* characters with "…" (``None``: in full).

    Examples
    --------
    >>> print(figure_text("$x^2$"), figure_text("a" * 50, 8), figure_text("E\ufeff1"))
    \$x^2\$ aaaaaaa… E1
    >>> print(figure_text("abc\u202edef (n = 12)"))
    abc\u202edef (n = 12)
    """
    text = display_text(value)
    return plain_figure_text(text if limit is None else short_label(text, limit))


def fitted_text(value: Any, size: float, width: float, limit: int = LABEL_LIMIT) -> str:
    """:func:`figure_text` of *value*, cut further until it is at most *width* inches
    wide at *size* points (a panel title over its panel)."""
    from rrmap.plot.base._sizing import text_width_pt

    def fits(n: int) -> bool:
        return text_width_pt(figure_text(value, n), size) <= 72.0 * width

    n = min(len(display_text(value)), limit)
    if fits(n):
        return figure_text(value, n)
    lo, hi = 1, n  # fits(lo) is assumed: one character and "…"
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid)
    return figure_text(value, lo)


def column_name(column: str, points: Any, labels: Mapping[str, str] | None) -> str:
    """How *column* is named: a *labels* entry, else the file's spelling (not escaped)."""
    if labels and column in labels:
        return str(labels[column])
    return headers(points).get(column, column)


def title(
    column: str | None, points: Any, labels: Mapping[str, str] | None, limit: int = LABEL_LIMIT
) -> str | None:
    """The title of *column* in a matplotlib figure (:func:`column_name` as plain text)."""
    if column is None:
        return None
    return figure_text(column_name(column, points, labels), limit)


def option_name(value: Any, labels: Mapping[str, str] | None) -> str:
    """How an option is named (*labels* may rename it), not escaped."""
    if labels and str(value) in labels:
        return str(labels[str(value)])
    return str(value)


def option_label(value: Any, labels: Mapping[str, str] | None, limit: int = LABEL_LIMIT) -> str:
    r"""How an option is named in a legend, a tick label or a title of a matplotlib figure:
    :func:`option_name` as plain text, at most *limit* characters.

    Examples
    --------
    >>> print(option_label("$x^2$", None), option_label("E1", {"E1": "Expert 1"}))
    \$x^2\$ Expert 1
    """
    return figure_text(option_name(value, labels), limit)


def _per_column(spec: Any, column: str | None, columns: Sequence[str]) -> Any:
    """The part of a per-category specification (``{"movement": {...}}``) for *column*."""
    if isinstance(spec, Mapping) and spec and all(k in columns for k in spec):
        return spec.get(column)
    return spec


def style_map(
    levels: Sequence[Any],
    palette: Sequence[str] | Mapping[Any, Any] | None,
    markers: Sequence[str] | Mapping[Any, Any] | None,
    column: str | None,
    columns: Sequence[str] = (),
) -> dict[Any, tuple[str, str]]:
    """Colour and marker of every option of *column*.

    *palette* (and *markers*) may be a sequence (cycled), a mapping option →
    colour, or a mapping category → either (``{"movement": {"cubism": "k"}}``,
    one per row of a grid; *columns* are the category names it may use). A
    mapping must name only options of *column*, and all of them.

    Examples
    --------
    >>> style_map(["excellent", "bad"], None, None, "quality")["bad"]
    ('#D55E00', 'X')
    >>> len({style_map(list("abcdefghij"), None, None, "c")[k] for k in "abcdefghij"})
    10
    """
    from rrmap.limits import check_legend_entries  # every figure's legend (rrmap.limits)

    check_legend_entries(len(levels), column)
    palette = _per_column(palette, column, columns)
    markers = _per_column(markers, column, columns)
    quality = column == "quality" and set(levels) <= set(QUALITY_LEVELS)
    if palette is None:
        palette = QUALITY_COLORS if quality else OKABE_ITO
    if markers is None:
        markers = QUALITY_MARKERS if quality else MARKERS
    for what, spec in (("palette", palette), ("markers", markers)):
        if isinstance(spec, Mapping):
            _check_keys(what, spec, levels, column, columns)
        elif isinstance(spec, str) or not len(spec):
            raise InputError(f"{what}: give a list or a mapping of options, got {spec!r}")
    if palette is OKABE_ITO and markers is MARKERS:
        return dict(zip(levels, default_styles(len(levels)), strict=True))
    out = {}
    for i, level in enumerate(levels):
        out[level] = (_pick(palette, level, i), _pick(markers, level, i))
    return out


def default_styles(n: int) -> list[tuple[str, str]]:
    """Colour and marker of *n* options in the default palette: the first seven as
    :data:`OKABE_ITO` and :data:`MARKERS` pair them; past them colours repeat, each time
    with a shape (:data:`_SHAPES`) that colour has not had, so that no two options look
    alike up to 35 options, and no two share colour and marker up to 63.

    Examples
    --------
    >>> styles = default_styles(20)
    >>> styles[0], styles[7], styles[14]
    (('#0072B2', 'o'), ('#0072B2', 'D'), ('#0072B2', 'X'))
    >>> len(set(styles))
    20
    """
    out: list[tuple[str, str]] = []
    used: dict[str, set[str]] = {}
    for i in range(n):
        colour, turn = OKABE_ITO[i % len(OKABE_ITO)], i // len(OKABE_ITO)
        if turn == 0:
            marker = MARKERS[i % len(MARKERS)]
        elif turn < len(_SHAPES):
            first = _SHAPE_OF[MARKERS[i % len(OKABE_ITO)]]
            marker = _SHAPES[(first + 2 * turn) % len(_SHAPES)]
        else:  # every shape taken: a variant not yet paired with this colour
            free = [m for m in MARKERS if m not in used.get(colour, set())]
            marker = free[0] if free else MARKERS[i % len(MARKERS)]
        used.setdefault(colour, set()).add(marker)
        out.append((colour, marker))
    return out


def _pick(spec: Sequence[str] | Mapping[Any, Any], level: Any, i: int) -> str:
    if isinstance(spec, Mapping):
        return spec[level] if level in spec else spec[str(level)]
    return spec[i % len(spec)]


def _check_keys(
    what: str,
    spec: Mapping[Any, Any],
    levels: Sequence[Any],
    column: str | None,
    columns: Sequence[str],
) -> None:
    """Every option needs an entry. Keys naming no option are tolerated (a palette made
    for all the data serves a subset) unless an option is then left without one: then
    they are reported as the likely typo."""
    missing = [v for v in levels if v not in spec and str(v) not in spec]
    if not missing:
        return
    names = {str(v) for v in levels}
    unknown = [k for k in spec if k not in levels and str(k) not in names]
    of = f" of {column!r}" if column else ""
    if unknown and all(isinstance(spec[k], Mapping) for k in unknown):
        raise InputError(
            f"{what}: {', '.join(map(repr, unknown))} is not a category "
            f"(categories: {', '.join(map(str, columns))})"
        )
    if unknown:
        raise InputError(
            f"{what}: {', '.join(map(repr, unknown))} is not an option{of} "
            f"(options: {', '.join(map(str, levels))})"
        )
    raise InputError(f"{what}: no entry for {', '.join(map(repr, missing))}{of}")


def rc_points(key: str) -> float:
    """The size in points of the rcParams font size *key*, named ("medium") or numeric, as
    a user's own figure may have it.

    Examples
    --------
    >>> import matplotlib as mpl
    >>> with mpl.rc_context({"font.size": 10, "xtick.labelsize": "medium"}):
    ...     rc_points("xtick.labelsize")
    10.0
    """
    import matplotlib as mpl
    from matplotlib.font_manager import FontProperties

    return float(FontProperties(size=mpl.rcParams[key]).get_size_in_points())
