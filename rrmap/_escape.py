"""Labels made safe for the format they land in: LaTeX, Markdown, figures, spreadsheets,
messages, and the ``groups`` field of the test tables.

A label is whatever a user's file holds: a rater called ``[1pt]``, ``$x^2$``,
``=HYPERLINK(...)``, ``**x**`` or ``a|b`` must come out as those characters,
never as a command of the format. Every output boundary goes through one
function here, so that a format is escaped the same way everywhere.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "MESSAGE_LIMIT",
    "SPREADSHEET_TRIGGERS",
    "join_groups",
    "latex_text",
    "markdown_text",
    "message_text",
    "plain_figure_text",
    "short_label",
    "split_escaped",
    "split_groups",
    "spreadsheet_cell",
    "spreadsheet_safe",
]

#: Characters with a meaning in LaTeX text, and what prints them. ``[`` and ``]`` are
#: braced so that a label after ``\\`` (a row end) is never read as ``\\[<length>]``.
_LATEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "|": r"\textbar{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "[": "{[}",
    "]": "{]}",
}
_LATEX_RE = re.compile("|".join(re.escape(k) for k in _LATEX))


def _controls_to_space(text: str) -> str:
    """Line breaks, tabs and other control characters as single spaces."""
    return "".join(" " if unicodedata.category(ch) == "Cc" else ch for ch in text)


def latex_text(value: object) -> str:
    r"""*value* as LaTeX text that prints its characters (no command, no math, no length).

    Examples
    --------
    >>> print(latex_text("[1pt] a_b & 50% {x} $y$ a|b"))
    {[}1pt{]} a\_b \& 50\% \{x\} \$y\$ a\textbar{}b
    """
    text = _controls_to_space(str(value))
    return _LATEX_RE.sub(lambda m: _LATEX[m.group(0)], text)


#: CommonMark lets any ASCII punctuation be escaped with a backslash; these are the ones
#: that start emphasis, links and images (``[``), code, HTML, table cells, strikethrough,
#: math (GitHub) or entities anywhere in a line.
_MARKDOWN_RE = re.compile(r"([\\`*\[\]<>|~&$])")
#: An underscore inside a word (``criterion_group``) cannot start or end emphasis.
_UNDERSCORE_RE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")


def markdown_text(value: object) -> str:
    r"""*value* as Markdown that shows its characters (no emphasis, link, HTML or table cell).

    Examples
    --------
    >>> print(markdown_text("**x** <script> [l](u) a|b"))
    \*\*x\*\* \<script\> \[l\](u) a\|b
    >>> print(markdown_text("_x_ criterion_group"))
    \_x\_ criterion_group
    """
    text = _MARKDOWN_RE.sub(r"\\\1", _controls_to_space(str(value)))
    return _UNDERSCORE_RE.sub(r"\\_", text)


def plain_figure_text(value: object) -> str:
    r"""*value* for a matplotlib text that must never be read as mathtext.

    Matplotlib reads text between two unescaped ``$`` as math; every ``$`` is
    escaped, which matplotlib prints as a plain dollar sign.

    Examples
    --------
    >>> print(plain_figure_text("$x^2$"))
    \$x^2\$
    """
    return _controls_to_space(str(value)).replace("$", r"\$")


def short_label(value: object, limit: int = 40) -> str:
    """*value* cut to *limit* characters with an ellipsis (labels in figures).

    Examples
    --------
    >>> short_label("a" * 50, 10)
    'aaaaaaaaa…'
    """
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: First characters that make a spreadsheet evaluate a cell (OWASP "CSV injection").
SPREADSHEET_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_cell(value: object) -> object:
    """*value* with a leading ``'`` if a spreadsheet would evaluate it as a formula.

    Examples
    --------
    >>> spreadsheet_cell("=HYPERLINK(1)"), spreadsheet_cell("E1"), spreadsheet_cell(-1.5)
    ("'=HYPERLINK(1)", 'E1', -1.5)
    """
    if isinstance(value, str) and value.startswith(SPREADSHEET_TRIGGERS):
        return "'" + value
    return value


def _text_column(col: pd.Series) -> bool:
    import pandas as pd

    dtype = col.dtype
    return (
        pd.api.types.is_object_dtype(dtype)
        or isinstance(dtype, pd.CategoricalDtype)
        or pd.api.types.is_string_dtype(dtype)
    )


def spreadsheet_safe(df: pd.DataFrame) -> pd.DataFrame:
    """*df* with every text cell and column name a spreadsheet would evaluate neutralised.

    Only text columns are looked at (numbers stay numbers); a frame with
    nothing to neutralise is returned as it is, without a copy.

    Examples
    --------
    >>> import pandas as pd
    >>> spreadsheet_safe(pd.DataFrame({"rater": ["=1+1", "E2"], "x": [-1, 2]}))["rater"].tolist()
    ["'=1+1", 'E2']
    """
    import pandas as pd  # not at import: the command line starts without pandas

    changed: dict[str, pd.Series] = {}
    plain = _without_attrs(df)
    for name in plain.columns:
        col = plain[name]
        if not _text_column(col):
            continue
        if isinstance(col.dtype, pd.CategoricalDtype):
            cats = col.cat.categories
            if cats.dtype == object and any(
                isinstance(c, str) and c.startswith(SPREADSHEET_TRIGGERS) for c in cats
            ):
                changed[name] = col.cat.rename_categories([spreadsheet_cell(c) for c in cats])
            continue
        # labels repeat: each distinct value is looked at once, not every cell
        formulas = [
            v for v in pd.unique(col) if isinstance(v, str) and v.startswith(SPREADSHEET_TRIGGERS)
        ]
        if formulas:
            text = col.astype(object)
            changed[name] = text.replace({v: "'" + v for v in formulas})
    names = [spreadsheet_cell(str(c)) for c in df.columns]
    if not changed and names == [str(c) for c in df.columns]:
        return df
    out = df.assign(**changed) if changed else df.copy(deep=False)
    out.columns = names
    out.attrs = {}
    return out


def _without_attrs(df: pd.DataFrame) -> pd.DataFrame:
    """*df* sharing its columns but without ``attrs``: pandas deep-copies a frame's attrs
    into every column taken from it, which makes a loop over many columns quadratic."""
    import pandas as pd

    if not df.attrs:
        return df
    out = pd.DataFrame(df, copy=False)
    out.attrs = {}
    return out


def join_groups(labels: Iterable[object]) -> str:
    r"""Group labels as one ``|``-separated field; a ``\``, ``|`` or ``;`` inside a label
    is escaped with a backslash, so that :func:`split_groups` gives the labels back (and
    fields can be listed with ``;``, :func:`split_escaped`).

    Examples
    --------
    >>> print(join_groups(["a|b", "c"]))
    a\|b|c
    >>> split_groups(join_groups(["a|b", "c\\", "d"]))
    ['a|b', 'c\\', 'd']
    """
    return "|".join(
        str(g).replace("\\", "\\\\").replace("|", "\\|").replace(";", "\\;") for g in labels
    )


def split_groups(field: str) -> list[str]:
    r"""The labels of a ``groups`` field (:func:`join_groups`): ``|`` separates them, a
    backslash makes the next character part of a label.

    Parameters
    ----------
    field : str
        A ``groups`` value of a tests table.

    Returns
    -------
    list of str

    Examples
    --------
    >>> split_groups(r"a\|b|c")
    ['a|b', 'c']
    """
    return split_escaped(field, "|", unescape=True)


def split_escaped(field: str, sep: str, *, unescape: bool = False) -> list[str]:
    r"""*field* split at each *sep* not escaped by a backslash; escapes kept unless
    *unescape*.

    Examples
    --------
    >>> split_escaped(r"a\;b|c;d|e", ";")
    ['a\\;b|c', 'd|e']
    """
    out, cur, i = [], [], 0
    while i < len(field):
        ch = field[i]
        if ch == "\\" and i + 1 < len(field):
            cur.append(field[i + 1] if unescape else field[i : i + 2])
            i += 2
            continue
        if ch == sep:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    out.append("".join(cur))
    return out


#: Characters a message shows at most of one value; a longer value is cut in the middle.
MESSAGE_LIMIT = 200


def message_text(value: object, limit: int = MESSAGE_LIMIT) -> str:
    r"""*value* for an error message: control and direction-override characters escaped
    (``\n``, ``\u202e``), and cut to *limit* characters with the length said.

    Examples
    --------
    >>> message_text("a\u202eb\n")
    'a\\u202eb\\n'
    >>> message_text("x" * 1000, 20)
    'xxxxxxxxxx… (1000 characters)'
    """
    text = str(value)
    cut = len(text) > limit
    if cut:
        text = text[: limit // 2]
    shown = "".join(
        ch
        if unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp")
        else ch.encode("unicode_escape").decode("ascii")
        for ch in text
    )
    return f"{shown}… ({len(str(value))} characters)" if cut else shown


def quoted_list(values: Sequence[object], limit: int = 10) -> str:
    """At most *limit* values for a message, each through :func:`message_text`.

    Examples
    --------
    >>> quoted_list(["a", "b"])
    "'a', 'b'"
    """
    shown = [repr(message_text(v)) for v in values[:limit]]
    more = len(values) - limit
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")
