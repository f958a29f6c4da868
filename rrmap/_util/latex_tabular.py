"""A booktabs table that fits its column: the renderer behind :mod:`rrmap.report.latex`.

A table is a list of :class:`Column` and a list of :class:`Row`. Name columns wrap
(ragged right, in a ``p`` column whose width is what the line leaves once the other
columns are set); numbers are aligned on their decimal mark (each number column is a
pair ``r@{}l``: the digits before the mark right-aligned, the rest left-aligned); a
block's label (the rater, the option) is written on the block's first row only. Widths
are estimated from the text, generously, so that the table is at most ``\\linewidth``
wide: the column in a ``table``, the text block in a ``table*``. Long tables are split
into several floats (a ``longtable`` does not work in two-column documents). Only
``booktabs`` is needed in the preamble.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

__all__ = ["Column", "Num", "Row", "render_floats"]

#: Column separation inside the tables (half of it on each side of a column), in pt.
_TABCOLSEP_PT = 2.5
#: Estimated widths of characters in em (Computer Modern, Latin Modern and Times are
#: within these); anything not listed counts as a wide lowercase letter.
_EM = {
    **dict.fromkeys("0123456789", 0.5),
    **dict.fromkeys(".,:;!'|il", 0.28),
    **dict.fromkeys("fjrt()[]-", 0.39),
    **dict.fromkeys("mMW", 0.92),
    **dict.fromkeys("wOQGDHNU%", 0.78),
    " ": 0.33,
}
_UPPER_EM = 0.75
#: What a wrapping cell breaks into: words, a hyphenated word after its hyphens.
_WORD_RE = re.compile(r"[^\s-]*-|[^\s-]+")
_LOWER_EM = 0.53
#: LaTeX commands of the cells and their printed widths in em.
_COMMANDS = {
    r"$<$": 0.78,
    r"$\le$": 0.78,
    r"\,": 0.17,
    r"$\chi^2$": 1.0,
    r"$E$": 0.75,
    r"$V$": 0.75,
    r"$p$": 0.5,
    r"\%": 0.83,
}
_COMMAND_RE = re.compile(
    "|".join(re.escape(c) for c in sorted(_COMMANDS, key=len, reverse=True))
    + r"|\$\^\{?\\?[a-zA-Z]+\}?\$|\\[a-zA-Z]+\{\}|\\[a-zA-Z]+|\\.|[{}$^_]"
)


class Num(NamedTuple):
    """A number cell split at its decimal mark: *left* (up to the mark), *right* (the mark
    and what follows), in bold or not, then a *mark* (a superscript)."""

    left: str
    right: str = ""
    bold: bool = False
    mark: str = ""

    @classmethod
    def of(cls, text: str, bold: bool = False, mark: str = "") -> Num:
        """*text* (a formatted number) split at its first ``.``."""
        left, dot, right = text.partition(".")
        return cls(left, dot + right, bold, mark)


@dataclass(frozen=True)
class Column:
    """One column: its header (LaTeX), its kind and the header spanning it.

    *kind* is ``"wrap"`` (a name: wraps, ragged right), ``"left"``, ``"right"`` or
    ``"num"`` (cells are :class:`Num`, aligned on the decimal mark). *once* is
    ``"block"`` or ``"item"``: the cell is written on the first row of its block (item)
    only, and again on the first row of a float.
    """

    head: str
    kind: str = "right"
    group: str = ""
    once: str = ""


@dataclass
class Row:
    """Cells (LaTeX text, :class:`Num` in number columns) with the block and the item
    (a comparison spanning rows) they belong to, and the block's heading."""

    cells: list[Any]
    block: Any = None
    item: Any = None
    #: LaTeX of a line above the block's first row (the block's label across the table).
    heading: str = ""


@lru_cache(maxsize=8192)
def text_em(text: str) -> float:
    """Estimated printed width of a cell's LaTeX *text*, in em (generous).

    Cached: a table measures the same few texts many times (the example's tables: 17,107
    measures of 952 texts)."""
    width = 0.0
    pos = 0
    for m in _COMMAND_RE.finditer(text):
        width += _plain_em(text[pos : m.start()])
        token = m.group(0)
        if token in _COMMANDS:
            width += _COMMANDS[token]
        elif token.startswith("$^"):
            width += 0.45  # a superscript mark
        elif token.startswith("\\") and len(token) == 2:
            width += _LOWER_EM  # an escaped character (\&, \_, \%)
        elif token.endswith("{}"):
            width += _LOWER_EM  # \textbackslash{}, \textasciicircum{}
        pos = m.end()
    width += _plain_em(text[pos:])
    # other commands (\textbf) and braces print nothing of their own
    return width * 1.15 if "textbf" in text else width


def _plain_em(text: str) -> float:
    return sum(
        _EM.get(ch, _UPPER_EM if ch.isupper() else _LOWER_EM if ord(ch) < 0x2E80 else 1.0)
        for ch in text
    )


def _num_text(cell: Num) -> tuple[str, str]:
    left, right = cell.left, cell.right
    if cell.bold:
        left = f"\\textbf{{{left}}}" if left else ""
        right = f"\\textbf{{{right}}}" if right else ""
    return left, right + cell.mark


def _widths(columns: list[Column], rows: list[Row]) -> tuple[float, list[tuple[float, float]]]:
    """(em taken by the columns that do not wrap, seps included as em at 8 pt; the longest
    word and the longest cell of each wrapping column in em)."""
    fixed = 0.0
    wraps = []
    for j, col in enumerate(columns):
        cells = [r.cells[j] for r in rows]
        if col.kind == "num":
            texts = [_num_text(c) for c in cells]
            body = max((text_em(t[0]) for t in texts), default=0) + max(
                (text_em(t[1]) for t in texts), default=0
            )
            fixed += max(body, text_em(col.head))
        elif col.kind == "wrap":
            texts = [str(c) for c in cells] + [col.head]
            word = max(text_em(w) for t in texts for w in [*_WORD_RE.findall(t), ""])
            wraps.append((word, max(text_em(t) for t in texts)))
        else:
            fixed += max([text_em(str(c)) for c in cells] + [text_em(col.head)])
    seps = 2 * _TABCOLSEP_PT * (len(columns) - 1) / 8.0  # \footnotesize: 1 em ≈ 8 pt
    return fixed + seps, wraps


def _spec(columns: list[Column], widths: tuple[float, list[tuple[float, float]]]) -> str:
    """The column specification: a wrapping column is as wide as its longest word, and
    takes a share of what the line leaves beyond that (in proportion to the rest of its
    longest cell), up to its longest cell (*widths*: :func:`_widths`)."""
    fixed, wraps = widths
    words = sum(w for w, _ in wraps)
    total = sum(long - word for word, long in wraps) or 1.0
    it = iter(wraps)
    out = []
    for col in columns:
        if col.kind == "wrap":
            word, long = next(it)
            share = max(1, round(1000 * (long - word) / total))
            room = f"(\\linewidth-{fixed + words:.2f}em)*{share}/1000"
            rest = f"{long - word + 0.1:.2f}em"
            out.append(
                f"p{{\\dimexpr{word:.2f}em+\\ifdim\\dimexpr{room}\\relax>{rest} {rest}"
                f"\\else{room}\\fi\\relax}}"
            )
        elif col.kind == "num":
            out.append("r@{}l")
        else:
            out.append(col.kind[0])
    return "@{}" + "".join(out) + "@{}"


def _span(col: Column) -> int:
    return 2 if col.kind == "num" else 1


def _header(columns: list[Column]) -> list[str]:
    """The header lines: a row of spanning headers with their rules (when any column has
    one), then the column names."""
    lines = []
    if any(c.group for c in columns):
        cells, rules, at, j = [], [], 1, 0
        while j < len(columns):
            group = columns[j].group
            k = j
            while k < len(columns) and columns[k].group == group:
                k += 1
            span = sum(_span(c) for c in columns[j:k])
            cells.append(f"\\multicolumn{{{span}}}{{c}}{{{group}}}" if group else "&" * (span - 1))
            if group:
                rules.append(f"\\cmidrule(lr){{{at}-{at + span - 1}}}")
            at += span
            j = k
        lines.append(" & ".join(cells) + " \\\\")
        lines.append(" ".join(rules))
    names = [
        f"\\multicolumn{{2}}{{c}}{{{c.head}}}"
        if c.kind == "num"
        else f"\\raggedright\\hspace{{0pt}}{c.head}"
        if c.kind == "wrap"
        else c.head
        for c in columns
    ]
    lines.append(" & ".join(names) + " \\\\")
    return lines


def _body(columns: list[Column], rows: list[Row]) -> list[str]:
    """The data rows; a block's (an item's) label on its first row only, a block's heading
    above it, a little space between blocks."""
    ncols = sum(_span(c) for c in columns)
    lines = []
    for i, row in enumerate(rows):
        prev = rows[i - 1] if i else None
        if prev is not None and row.block != prev.block:
            lines.append("\\addlinespace[3pt]")
        if row.heading and (prev is None or row.block != prev.block):
            width = f"{text_em(row.heading) + 0.5:.2f}em"
            box = f"\\ifdim{width}>\\linewidth\\linewidth\\else{width}\\fi"
            lines.append(
                f"\\multicolumn{{{ncols}}}{{@{{}}l}}{{\\parbox[t]{{{box}}}"
                f"{{\\raggedright\\itshape {row.heading}}}}} \\\\"
            )
        cells = []
        for col, cell in zip(columns, row.cells, strict=True):
            repeated = prev is not None and (
                (col.once == "block" and row.block == prev.block)
                or (col.once == "item" and row.item == prev.item)
            )
            if col.kind == "num":
                cells.append("&" if repeated else " & ".join(_num_text(cell)))
            elif repeated:
                cells.append("")
            elif col.kind == "wrap":
                cells.append(f"\\raggedright\\hspace{{0pt}}{cell}" if cell else "")
            else:
                cells.append(str(cell))
        lines.append(" & ".join(cells) + " \\\\")
    return lines


def _lines(
    columns: list[Column],
    rows: list[Row],
    line_em: float,
    widths: tuple[float, list[tuple[float, float]]],
) -> list[float]:
    """Estimated lines each row takes (its wrapped names; a heading line, a block's space)
    in a table on a line *line_em* wide (*widths*: :func:`_widths`)."""
    fixed, wraps = widths
    room = max(line_em - fixed - sum(w for w, _ in wraps), 0.0)
    rest = sum(long - word for word, long in wraps) or 1.0
    widths = [word + min(long - word, room * (long - word) / rest) for word, long in wraps]
    wrap_at = [j for j, c in enumerate(columns) if c.kind == "wrap"]
    out = []
    for i, row in enumerate(rows):
        n = max(
            [1.0]
            + [
                math.ceil(text_em(str(row.cells[j])) / max(w, 1.0) * 1.15)
                for j, w in zip(wrap_at, widths, strict=True)
            ]
        )
        if i and row.block != rows[i - 1].block:
            n += 0.4 + (1 if row.heading else 0)
        out.append(n)
    return out


def _chunks(rows: list[Row], lines: list[float], limit: float) -> list[list[Row]]:
    """*rows* cut into runs of at most *limit* lines, never inside an item, at the end of a
    block when one ends in the second half of a run."""
    out: list[list[Row]] = []
    start = 0
    while start < len(rows):
        used, cut = 0.0, start
        while cut < len(rows) and used + lines[cut] <= limit:
            used += lines[cut]
            cut += 1
        if cut >= len(rows):
            out.append(rows[start:])
            break
        cut = max(cut, start + 1)
        while cut > start + 1 and rows[cut].item == rows[cut - 1].item:
            cut -= 1
        half = sum(lines[start:cut]) / 2
        for b in range(cut, start + 1, -1):
            if sum(lines[start:b]) < half:
                break
            if rows[b].block != rows[b - 1].block:
                cut = b
                break
        out.append(rows[start:cut])
        start = cut
    return out


def render_floats(
    columns: list[Column],
    rows: list[Row],
    *,
    caption: str,
    label: str,
    notes: str = "",
    wide: bool = False,
    limit: float = 40,
) -> str:
    r"""*rows* as one float (``table``, or ``table*`` when *wide*) per run of at most
    *limit* lines: booktabs rules, ``\footnotesize``, the caption and label on the first,
    "(continued)" on the others, *notes* (LaTeX) under the first.

    Examples
    --------
    >>> cols = [Column("rater", "wrap", once="block"), Column("$p$", "num")]
    >>> tex = render_floats(cols, [Row(["E1", Num.of("0.0312", bold=True)], block="E1")],
    ...                     caption="A table.", label="tab:x")
    >>> "E1 & \\textbf{0} & \\textbf{.0312} \\\\" in tex
    True
    """
    env = "table*" if wide else "table"
    widths = _widths(columns, rows)  # once: the specification and the lines read them
    spec = _spec(columns, widths)
    # lines estimated for a narrow page: 30 em a column, 40 the text block (345 pt)
    lines = _lines(columns, rows, 40.0 if wide else 30.0, widths)
    parts = []
    short = caption.split(". ", 1)[0].rstrip(".")
    for i, run in enumerate(_chunks(rows, lines, limit)):
        first = i == 0
        cap = caption if first else f"{short} (continued)."
        body = [
            f"\\begin{{{env}}}[htbp]",
            "\\centering",
            f"\\caption{{{cap}}}",
            *([f"\\label{{{label}}}"] if first else []),
            f"\\footnotesize\\setlength{{\\tabcolsep}}{{{_TABCOLSEP_PT:g}pt}}",
            f"\\begin{{tabular}}{{{spec}}}",
            "\\toprule",
            *_header(columns),
            "\\midrule",
            *_body(columns, run),
            "\\bottomrule",
            "\\end{tabular}",
        ]
        if notes and first:
            body += ["\\par\\smallskip", f"\\parbox{{\\linewidth}}{{\\raggedright {notes}}}"]
        body.append(f"\\end{{{env}}}")
        parts.append("\n".join(body) + "\n")
    return "\n".join(parts)


def needed_em(columns: list[Column], rows: list[Row]) -> float:
    """Estimated width (em at the tables' size) below which the table no longer fits: the
    columns that do not wrap and the longest word of each that does."""
    fixed, wraps = _widths(columns, rows)
    return fixed + sum(w for w, _ in wraps)


def either(needed: float, wide: str, narrow: str) -> str:
    r"""LaTeX that typesets *wide* where the text block is at least *needed* em (at
    ``\footnotesize``) wide, else *narrow*: chosen when the document is compiled."""
    return (
        f"\\begingroup\\footnotesize\\ifdim\\textwidth<{needed:.2f}em\\endgroup\n"
        f"{narrow}\\else\\endgroup\n{wide}\\fi\n"
    )
