"""Labels made safe for the format they land in: LaTeX, Markdown, HTML, figures,
spreadsheets, messages, and the ``groups`` field of the test tables.

A label is whatever a user's file holds: a rater called ``[1pt]``, ``$x^2$``,
``=HYPERLINK(...)``, ``**x**`` or ``a|b`` must come out as those characters,
never as a command of the format. Every output boundary goes through one
function here, so that a format is escaped the same way everywhere.

Every format that shows a label (reports, LaTeX tables, figures, the HTML
page) first passes it through :func:`display_text`, the one normaliser of
shown text: line breaks, tabs and other control characters become spaces;
characters drawn as nothing (a byte-order mark, zero-width spaces and
joiners, left-to-right and right-to-left marks, soft hyphens, variation
selectors, tags) are left out, so that they never reach a font's glyph layout;
and the bidirectional embeddings, overrides and isolates (U+202A–U+202E,
U+2066–U+2069) are shown as their code (``\\u202e``), as in messages, so
that none can turn the text after a label around. CSV, JSON and Parquet
keep labels exactly as read.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Sequence

__all__ = [
    "LINE_BREAKS",
    "MESSAGE_LIMIT",
    "SPREADSHEET_TRIGGERS",
    "display_text",
    "html_text",
    "join_groups",
    "latex_text",
    "markdown_text",
    "message_text",
    "plain_figure_text",
    "short_label",
    "split_escaped",
    "split_groups",
    "spreadsheet_cell",
    "template_text",
]

#: Bidirectional embeddings, overrides and isolates, and the characters that end them:
#: one left open (U+202E) would turn the text after the label around ("(n = 135)").
BIDI_CONTROLS = "\u202a-\u202e\u2066-\u2069"
#: Characters drawn as nothing: Unicode's default-ignorable code points (soft hyphen,
#: combining grapheme joiner, Arabic letter mark, Hangul fillers, Khmer inherent vowels,
#: Mongolian variation selectors and vowel separator, zero-width space, non-joiner and
#: joiner, left-to-right and right-to-left marks, word joiner, invisible operators,
#: deprecated format characters, variation selectors, byte-order mark, shorthand and
#: musical format controls, tags) and the other invisible format controls (interlinear
#: annotation, Egyptian hieroglyph format controls). A font lays each out as an empty
#: glyph of no width, which matplotlib's PDF and PostScript text does not place as drawn.
INVISIBLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u2060-\u2065\u206a-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
#: Control characters, line and paragraph separators: shown as one space each.
_BREAKING = "\x00-\x1f\x7f-\x9f\u2028\u2029"
_SURROGATES = "\ud800-\udfff"
_BIDI_RE = re.compile(f"[{BIDI_CONTROLS}]")
_INVISIBLE_RE = re.compile(f"[{INVISIBLE}]")
_SHOWN_RE = re.compile(f"[{_BREAKING}{BIDI_CONTROLS}{INVISIBLE}{_SURROGATES}]")


def _shown(match: re.Match[str]) -> str:
    ch = match.group(0)
    if _BIDI_RE.match(ch):
        return f"\\u{ord(ch):04x}"
    if _INVISIBLE_RE.match(ch):
        return ""
    return "\ufffd" if "\ud800" <= ch <= "\udfff" else " "


def display_text(value: object) -> str:
    r"""*value* as every report, table and figure shows it (the module's docstring):
    control characters and line breaks as spaces, invisible characters left out,
    bidirectional controls as their code, half a surrogate pair as U+FFFD.

    Examples
    --------
    >>> display_text("E\ufeff1"), display_text("a\u200bb\r\nc")
    ('E1', 'ab  c')
    >>> print(display_text("abc\u202edef (n = 12)"))
    abc\u202edef (n = 12)
    """
    text = str(value)
    if _SHOWN_RE.search(text) is None:
        return text
    return _SHOWN_RE.sub(_shown, text)


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


def latex_text(value: object) -> str:
    r"""*value* as LaTeX text that prints its characters (no command, no math, no length).

    Examples
    --------
    >>> print(latex_text("[1pt] a_b & 50% {x} $y$ a|b"))
    {[}1pt{]} a\_b \& 50\% \{x\} \$y\$ a\textbar{}b
    """
    text = display_text(value)
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
    text = _MARKDOWN_RE.sub(r"\\\1", display_text(value))
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
    return display_text(value).replace("$", r"\$")


def short_label(value: object, limit: int = 40) -> str:
    """*value* cut to *limit* characters with an ellipsis (labels in figures).

    Examples
    --------
    >>> short_label("a" * 50, 10)
    'aaaaaaaaa…'
    """
    text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def without_invisible(text: str) -> str:
    r"""*text* without the characters drawn as nothing (:data:`INVISIBLE`), and nothing else
    changed: what a figure's own texts (a title set on its Axes) lay out.

    Examples
    --------
    >>> without_invisible("E\ufeff1\nline two")
    'E1\nline two'
    """
    return _INVISIBLE_RE.sub("", text) if _INVISIBLE_RE.search(text) else text


def html_text(value: object) -> str:
    r"""*value* as HTML text that shows its characters (:func:`display_text`, then escaped).

    Examples
    --------
    >>> html_text("<b>x</b> \u202e12")
    '&lt;b&gt;x&lt;/b&gt; \\u202e12'
    """
    return html.escape(display_text(value))


def template_text(value: object) -> object:
    r"""What an autoescaping template shows of *value* (jinja2's ``finalize``): text
    through :func:`display_text`, then escaped by the template; markup the page made
    itself (anything with ``__html__``) and other values as they are.

    Examples
    --------
    >>> template_text("E\ufeff1"), template_text(3)
    ('E1', 3)
    """
    if isinstance(value, str) and not hasattr(value, "__html__"):
        return display_text(value)
    return value


#: First characters that make a spreadsheet evaluate a cell (OWASP "CSV injection").
SPREADSHEET_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
#: Where a line starts inside a cell: a program that splits the text into lines without
#: reading CSV quotes (or a spreadsheet given one line) sees a cell start there. The line
#: boundaries of :meth:`str.splitlines`.
LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_FORMULA_START = re.compile(f"(?:^|(?<=[{LINE_BREAKS}]))(?=[=+\\-@\t\r])")


def spreadsheet_cell(value: object) -> object:
    r"""*value* with a ``'`` before each place a spreadsheet would start a formula: the
    first character and the first after any line break, when it is one of
    :data:`SPREADSHEET_TRIGGERS`. Anything but text is returned as it is.

    Examples
    --------
    >>> spreadsheet_cell("=HYPERLINK(1)"), spreadsheet_cell("E1"), spreadsheet_cell(-1.5)
    ("'=HYPERLINK(1)", 'E1', -1.5)
    >>> spreadsheet_cell("ok\r=1+1")
    "ok\r'=1+1"
    """
    if isinstance(value, str) and _FORMULA_START.search(value):
        return _FORMULA_START.sub("'", value)
    return value


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
