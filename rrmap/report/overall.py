"""The overall tests of an analysis at a glance: the generator effect and the expert effect
overall, as an aligned text table (the terminal), markdown and HTML (Jupyter)."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import TYPE_CHECKING

import pandas as pd

from rrmap._util.escape import html_text, message_text
from rrmap.report.format import (
    LEGEND,
)

if TYPE_CHECKING:  # pragma: no cover
    pass


from rrmap.report.designs import (
    design_frame,
    design_table,
    display_frame,
    side_by_side,
)
from rrmap.stats.adjust import adjusted_columns

__all__ = ["aligned_text", "overall_html", "overall_markdown", "overall_text"]


def _overall_frame(part: pd.DataFrame) -> pd.DataFrame:
    """The overall tests (``within == "all"``) as a design frame; in a study of several
    query corpora, the generator effect and each corpus's expert effect, the corpus (or
    ``all corpora``) in a leading column."""
    frame = design_frame(part, "groups")
    if "query" in part.columns and not frame.empty:
        wide = side_by_side(part)
        corpus = [q if q else "all corpora" for q in wide["query"].astype(str)]
        frame.insert(0, "query corpus", corpus)
    return frame


def _overall_name(tests: pd.DataFrame) -> str:
    if "query" in tests.columns:
        return "Generator effect and each corpus's expert effect, overall"
    return "Expert effect, overall"


def overall_markdown(tests: pd.DataFrame) -> str:
    """The expert effect overall (design 1) as a markdown table with a legend.

    Parameters
    ----------
    tests : DataFrame
        A tests table.

    Returns
    -------
    str

    Examples
    --------
    >>> import rrmap
    >>> from rrmap.stats.designs import expert_effect
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> print(overall_markdown(expert_effect(pts, n_perm=9, rng=0)).splitlines()[2])
    | groups | n | design | E | p (energy) | E share | zone test | statistic | dof | p (zones) |
    zone effect |
    """
    part = tests[tests["within"] == "all"]
    adjusted = bool(adjusted_columns(tests.columns))
    which = "adjusted p < 0.05" if adjusted else "p < 0.05"
    return (
        f"{_overall_name(tests)} ({which} in **bold**: evidence against identical "
        "distributions, not a verdict)\n\n"
        + design_table(_overall_frame(part), "groups")
        + "\n\n"
        + LEGEND
    )


def overall_text(tests: pd.DataFrame, color: bool = False, width: int | None = None) -> str:
    """The expert effect overall (design 1) as an aligned plain-text table: names left,
    numbers right, significant p-values marked ``*`` (and bold with *color*).

    Parameters
    ----------
    tests : DataFrame
        A tests table.
    color : bool, default False
        Bold the significant p-values with ANSI codes (for a terminal).
    width : int, optional
        The most characters a line may take (a terminal's width). A table wider than that
        is wrapped as pandas does: the energy columns, then the zone-test columns, each
        block under its own header and led by the groups' names; a block still too wide
        is wrapped column by column, and long names are cut with "…". Default: one table.

    Returns
    -------
    str

    Examples
    --------
    >>> import rrmap
    >>> from rrmap.stats.designs import expert_effect
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> print(overall_text(expert_effect(pts, n_perm=99, rng=0)).splitlines()[0].split()[:4])
    ['groups', 'n', 'design', 'E']
    >>> text = overall_text(expert_effect(pts, n_perm=99, rng=0), width=80)
    >>> max(len(line) for line in text.splitlines()) <= 80
    True
    >>> [line.split()[:2] for line in text.splitlines() if line.startswith("groups")]
    [['groups', 'n'], ['groups', 'zone']]
    """
    frame = _overall_frame(tests[tests["within"] == "all"])
    if frame.empty:
        return "(no tests)"
    adjusted = bool(adjusted_columns(tests.columns))
    which = "adjusted p" if adjusted else "p"
    bold = (lambda t: f"\x1b[1m{t}*\x1b[0m") if color else (lambda t: f"{t}*")
    shown = display_frame(frame, "groups", bold, message_text)
    left = {"query corpus", "groups", "design", "zone test", "note"}
    if width is None:
        return aligned_text(shown, left) + f"\n* {which} < 0.05"
    blocks = [aligned_text(block, left) for block in _blocks(shown, width)]
    return "\n\n".join(blocks) + f"\n* {which} < 0.05"


_LEAD = ("query corpus", "groups")  # the names that lead every block of a wrapped table
_GAP = 2  # spaces between two columns of aligned_text


def _text_width(values: Collection[object]) -> int:
    return max((len(_ANSI.sub("", "" if _blank(v) else str(v))) for v in values), default=0)


def _col_width(frame: pd.DataFrame, col: str) -> int:
    return max(len(str(col)), _text_width(frame[col].tolist()))


def _cut(text: object, most: int) -> object:
    """*text* cut to *most* characters with "…" (a name too long for a terminal's line)."""
    return text if not isinstance(text, str) or len(text) <= most else text[: most - 1] + "…"


def _blocks(shown: pd.DataFrame, width: int) -> list[pd.DataFrame]:
    """*shown* as tables no wider than *width*: the names that lead it in every block, and
    the other columns in the order given — the energy columns, then those of the zone test
    (from its "zone test" column) — each part whole where it fits, else column by column."""
    lead = [c for c in _LEAD if c in shown.columns]
    shown = shown.copy()
    for col in lead:  # the names may take at most a third of the line
        shown[col] = [_cut(v, max(12, width // 3 // len(lead))) for v in shown[col]]
    rest = [c for c in shown.columns if c not in lead]
    lead_width = sum(_col_width(shown, c) + _GAP for c in lead)
    if lead_width + sum(_col_width(shown, c) + _GAP for c in rest) - _GAP <= width:
        return [shown]
    cut = rest.index("zone test") if "zone test" in rest else len(rest)
    blocks: list[list[str]] = []
    for part in (rest[:cut], rest[cut:]):
        if not part:
            continue
        blocks.append([])
        used = lead_width
        for col in part:
            need = _col_width(shown, col) + _GAP
            if blocks[-1] and used + need - _GAP > width:
                blocks.append([])
                used = lead_width
            blocks[-1].append(col)
            used += need
    return [shown[lead + cols] for cols in blocks]


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def aligned_text(frame: pd.DataFrame, left: Collection[str] = ()) -> str:
    """*frame* as plain text in aligned columns: the *left* ones left-aligned, the others
    right-aligned; ANSI codes take no width.

    Examples
    --------
    >>> import pandas as pd
    >>> print(aligned_text(pd.DataFrame({"rater": ["E1", "E22"], "n": [5, 10]}), {"rater"}))
    rater   n
    E1      5
    E22    10
    """
    cols = [str(c) for c in frame.columns]
    cells = [["" if _blank(v) else str(v) for v in frame[c]] for c in frame.columns]
    widths = [
        max([len(col), *(len(_ANSI.sub("", v)) for v in values)])
        for col, values in zip(cols, cells, strict=True)
    ]

    def pad(text: str, width: int, at_left: bool) -> str:
        room = width - len(_ANSI.sub("", text))
        return text + " " * room if at_left else " " * room + text

    lines = ["  ".join(pad(c, w, c in left) for c, w in zip(cols, widths, strict=True)).rstrip()]
    for row in zip(*cells, strict=True):
        lines.append(
            "  ".join(
                pad(v, w, c in left) for v, w, c in zip(row, widths, cols, strict=True)
            ).rstrip()
        )
    return "\n".join(lines)


def _blank(v: object) -> bool:
    return v is None or (not isinstance(v, str) and bool(pd.isna(v)))


def overall_html(tests: pd.DataFrame) -> str:
    """The expert effect overall (design 1) as an HTML table with its legend, as Jupyter
    shows an analysis: the report's columns, names escaped, significant p-values in bold.

    Examples
    --------
    >>> import rrmap
    >>> from rrmap.stats.designs import expert_effect
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> html = overall_html(expert_effect(pts, n_perm=99, rng=0))
    >>> html.count("<tr"), "<b>0.01</b>" in html
    (5, True)
    """
    import html

    part = tests[tests["within"] == "all"]
    frame = _overall_frame(part)
    if frame.empty:
        return "<p>No tests.</p>"
    shown = display_frame(frame, "groups", lambda t: f"<b>{t}</b>", html_text)
    adjusted = bool(adjusted_columns(tests.columns))
    which = "adjusted p &lt; 0.05" if adjusted else "p &lt; 0.05"
    return (
        f"<p>{_overall_name(tests)} ({which} in <b>bold</b>: evidence against identical "
        "distributions, not a verdict)</p>"
        + shown.to_html(index=False, escape=False)
        + f"<p><small>{html.escape(LEGEND)}</small></p>"
    )
