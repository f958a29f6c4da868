"""The parts of ``report.html`` a reader meets: its tables (a header that links each column
to the glossary, long ``groups`` labels shortened with the full list on hover, a family
summary in place of a table too long to read) and its figures (a caption that says how to
read each, a link to the full-size file).

Every label from the data is escaped here (:func:`rrmap._util.escape.html_text`) or by
the page's template; what is built here as markup is only the page's own.
"""

from __future__ import annotations

import base64
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

import pandas as pd
from markupsafe import Markup

from rrmap._util.escape import display_text, html_text, split_groups
from rrmap.report.designs import ROW_LIMIT, passing, summarise_families
from rrmap.report.format import column_lists

__all__ = [
    "ROW_LIMIT",
    "columns_table",
    "design_counts",
    "figure_caption",
    "figure_entries",
    "groups_cell",
    "groups_noun",
    "page_table",
    "passing",
    "reading_order",
    "summarise_families",
    "vocabulary",
]

#: Labels past which a ``groups`` cell reads "all 9 criteria" (the list on hover).
GROUPS_SHOWN = 3

#: Column of a report table → (glossary entry, what a pointer resting on its header shows).
_COLUMNS: dict[str, tuple[str, str]] = {
    "n": ("n", "number of points compared"),
    "groups": ("groups", "the groups compared: raters, options or query corpora"),
    "design": ("design", "matched: the same comparison keys in every group"),
    "E": ("e", "energy statistic of the (Δ, R) points"),
    "E share": (
        "e-share",
        "between-group share of the points' energy dispersion, within keys when matched",
    ),
    "zone test": ("zone-tests", "χ², SM (Stuart–Maxwell) or MH (marginal homogeneity)"),
    "statistic": ("zone-tests", "statistic of the zone test"),
    "dof": ("zone-tests", "degrees of freedom of the zone test"),
    "zone effect": ("v", "Cramér's V (χ²) or within-key share (SM, MH) of the zones"),
    "closer": ("closer", "the query corpus with the larger match share"),
    "value": ("alpha", "1 perfect agreement, 0 chance"),
    "measure": ("alpha", "Krippendorff's α, Fleiss' κ or Cohen's κ"),
    "95 % interval": ("interval", "bootstrap 95 % interval over the comparison keys"),
    "pairs p < 0.05": ("pairs", "pairwise tests of the family that pass p < 0.05"),
}
_QUALITY = ("excellent", "fair", "stereotype", "bad")
#: Plurals the ``groups`` labels need that adding an s does not make.
_PLURALS = {"expert": "raters", "rater": "raters", "query": "query corpora",
            "criterion": "criteria", "corpus": "corpora"}  # fmt: skip


def _column(label: str) -> dict[str, Any]:
    """A header cell: its label, glossary entry and hover text."""
    if label in _COLUMNS:
        gloss, title = _COLUMNS[label]
    elif label.startswith("p ") and ("Holm" in label or "BH" in label):
        gloss, title = "holm", "p-value adjusted within its family (Holm or BH)"
    elif label.startswith("p ("):
        gloss, title = "p", "p-value; (perm.), (exact), (MC): how it was obtained"
    elif label.startswith("pairs p < 0.05"):
        gloss, title = _COLUMNS["pairs p < 0.05"]
    elif label in _QUALITY:
        gloss, title = "interval", f"share of the points in the {label} zone [95 % interval]"
    else:
        gloss, title = None, None
    return {"label": label, "gloss": gloss, "title": title}


def _cell(v: Any, escaped: bool) -> Any:
    if v is None or (not isinstance(v, str | Markup) and pd.isna(v)):
        return ""
    if isinstance(v, float):
        return f"{v:.4g}"
    return Markup(v) if escaped and not isinstance(v, Markup) else v


def page_table(
    frame: pd.DataFrame,
    *,
    escaped: bool = False,
    note: str | None = None,
    numbers: Sequence[str] = (),
) -> dict[str, Any]:
    """Header and rows of *frame* as the page's template shows a table.

    Parameters
    ----------
    frame : DataFrame
        The table as shown (cells formatted).
    escaped : bool, default False
        Its text cells are HTML already (escaped labels, the page's own markup).
    note : str, optional
        What the table leaves out and where to find it.
    numbers : sequence of str, optional
        Columns of numbers written as text (``"0.100"``), aligned as numbers too.

    Returns
    -------
    dict
        ``columns`` (label, glossary entry, hover text), ``numeric``, ``rows``, ``note``.

    Examples
    --------
    >>> import pandas as pd
    >>> t = page_table(pd.DataFrame({"groups": ["E1|E2"], "E share": [0.012]}))
    >>> [c["gloss"] for c in t["columns"]], t["rows"]
    (['groups', 'e-share'], [['E1|E2', '0.012']])
    """
    return {
        "columns": [_column(str(c)) for c in frame.columns],
        "numeric": [c in numbers or pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns],
        # the columns as lists, then rows: itertuples walks Arrow-held text value by value
        "rows": [
            [_cell(v, escaped) for v in row]
            for row in zip(*(frame.iloc[:, k].tolist() for k in range(frame.shape[1])), strict=True)
        ],
        "note": note,
    }


def columns_table(
    columns: Mapping[str, Any], *, escaped: bool = False, note: str | None = None
) -> dict[str, Any]:
    """:func:`page_table` of the frame *columns* (label → its values, a list or a NumPy
    array) would make, without making it: a list's cells are text, an array is numeric
    when its dtype is.

    Examples
    --------
    >>> import numpy as np
    >>> t = columns_table({"groups": ["E1|E2"], "n": np.array([12])})
    >>> t["numeric"], t["rows"]
    ([False, True], [['E1|E2', 12]])
    """
    numeric, values = column_lists(list(columns.values()))
    return {
        "columns": [_column(str(c)) for c in columns],
        "numeric": numeric,
        "rows": [[_cell(v, escaped) for v in row] for row in zip(*values, strict=True)],
        "note": note,
    }


def _plural(noun: str) -> str:
    """The plural of a category's name (``criterion`` → ``criteria``, ``movement`` →
    ``movements``)."""
    word = display_text(noun)
    if word.lower() in _PLURALS:
        return _PLURALS[word.lower()]
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if len(word) > 1 and word.endswith("y") and word[-2].lower() not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def groups_noun(labels: Sequence[str], vocabulary: Mapping[str, set[str]]) -> str:
    """What the labels of a ``groups`` field are, in the plural: ``raters``, ``query
    corpora`` or the options of a category (``criteria``), from the first entry of
    *vocabulary* (name → its values) that holds them all; ``groups`` otherwise.

    Examples
    --------
    >>> groups_noun(["a", "b"], {"expert": {"E1"}, "criterion": {"a", "b", "c"}})
    'criteria'
    """
    for name, values in vocabulary.items():
        if set(labels) <= values:
            return _plural(name)
    return "groups"


def groups_cell(field: str, vocabulary: Mapping[str, set[str]]) -> Markup:
    """A ``groups`` field as a cell: its labels joined by ``|`` (escaped) up to
    :data:`GROUPS_SHOWN` of them, else ``all 9 criteria`` with the list on hover.

    Examples
    --------
    >>> print(groups_cell("E1|E2", {}))
    E1|E2
    >>> print(groups_cell("a|b|c|<d>", {"criterion": {"a", "b", "c", "<d>"}}))
    <span class="many" title="a&#10;b&#10;c&#10;&lt;d&gt;">all 4 criteria</span>
    """
    labels = split_groups(str(field))
    if len(labels) <= GROUPS_SHOWN:
        return Markup(html_text(field))
    listed = "&#10;".join(html_text(g).replace('"', "&quot;") for g in labels)
    noun = html_text(groups_noun(labels, vocabulary))
    return Markup(f'<span class="many" title="{listed}">all {len(labels)} {noun}</span>')


def reading_order(columns: Sequence[str]) -> list[str]:
    """The columns of a shown design table in the order a reader needs them: what is
    compared (the leading column, groups, n, the pairs of a summary), then the p-values
    the report marks (the adjusted ones when there are) each with its effect size, then
    the rest (design, statistics, raw p-values, notes) as they were.

    Examples
    --------
    >>> reading_order(["rater", "groups", "n", "E", "p (energy)", "p Holm (energy)",
    ...                "E share", "zone test", "p (zones)", "p Holm (zones)", "zone effect"])
    ['rater', 'groups', 'n', 'p Holm (energy)', 'E share', 'p Holm (zones)', 'zone effect',
     'E', 'p (energy)', 'zone test', 'p (zones)']
    """
    cols = list(columns)
    adjusted = [c for c in cols if c.startswith("p ") and not c.startswith("p (")]
    marked = adjusted or [c for c in cols if c.startswith("p (")]
    energy = [c for c in marked if c.endswith("(energy)")]
    zones = [c for c in marked if c.endswith("(zones)")]
    lead = cols[: cols.index("n") + 1] if "n" in cols else cols[:1]
    lead += [c for c in cols if c.startswith("pairs p")]
    sizes = {
        "energy": [c for c in cols if c == "E share"],
        "zones": [c for c in cols if c == "zone effect"],
    }
    lead += energy + sizes["energy"] + zones + sizes["zones"]
    return lead + [c for c in cols if c not in lead]


def _png_size(path: Path) -> tuple[int, int] | None:
    """Width and height of a PNG file, from its header (None when not a readable PNG)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(24)
    except OSError:
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def _href(name: str) -> str:
    """*name* (``figures/rrmap_grid.png``) as a link relative to the page."""
    return urllib.parse.quote(PurePosixPath(str(name).replace("\\", "/")).as_posix(), safe="/")


#: Order of the analysis figures on the page.
_ORDER = ("rrmap_by_rater", "rrmap_by_query", "rrmap_grid", "proportions", "agreement")


def figure_entries(
    figures: Mapping[str, Path],
    captions: Callable[[str], tuple[str, Markup] | None],
    *,
    embed: bool = False,
) -> list[dict[str, Any]]:
    """The PNG figures of *figures* (name as listed → file) as the page shows them, in
    map-first order: ``src`` (the name, relative to the page, or the PNG as a data URI
    when *embed*), ``href`` of the full-size file (None when embedded), ``pdf`` (the
    PDF of the same figure, when listed), ``width``/``height`` in pixels, and the
    ``title`` and ``caption`` that *captions* gives its stem (its name otherwise).

    Examples
    --------
    >>> from pathlib import Path
    >>> entries = figure_entries({"figures/grid.png": Path("missing.png")}, lambda s: None)
    >>> entries[0]["src"], entries[0]["title"]
    ('figures/grid.png', 'figures/grid.png')
    """
    pdfs = {PurePosixPath(n).with_suffix("").as_posix(): n for n in figures
            if str(n).lower().endswith(".pdf")}  # fmt: skip
    out = []
    for name, path in figures.items():
        if Path(path).suffix.lower() != ".png":
            continue
        stem = PurePosixPath(str(name)).stem
        entry: dict[str, Any] = {"name": name, "href": None if embed else _href(name)}
        if embed:
            data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
            entry["src"] = f"data:image/png;base64,{data}"
        else:
            entry["src"] = _href(name)
        pdf = pdfs.get(PurePosixPath(str(name)).with_suffix("").as_posix())
        entry["pdf"] = None if embed or pdf is None else _href(pdf)
        entry["width"], entry["height"] = _png_size(Path(path)) or (None, None)
        entry["title"], entry["caption"] = captions(stem) or (str(name), Markup(""))
        entry["rank"] = _ORDER.index(stem) if stem in _ORDER else len(_ORDER)
        out.append(entry)
    return sorted(out, key=lambda e: e["rank"])


def _num(x: float) -> str:
    """A threshold as the captions write it (2/3 as 2/3)."""
    return "2/3" if abs(x - 2 / 3) < 1e-12 else f"{x:g}"


def figure_caption(stem: str, thresholds: Mapping[str, float] | None) -> tuple[str, Markup] | None:
    """Title and how-to-read caption of an analysis figure (*stem*: its file name without
    suffix), with the zone *thresholds* of the run; None for a figure it does not know.

    Examples
    --------
    >>> title, text = figure_caption("rrmap_by_rater", None)
    >>> title, "BC &gt; 0.98" in text
    ('The map, per rater', True)
    """
    th = {"excellent_bc": 0.98, "delta_bound": 2.0, "stereotype_r": 2 / 3, "fair_r": 1.5}
    th.update(thresholds or {})
    bc, d = _num(th["excellent_bc"]), _num(th["delta_bound"])
    lo, hi = _num(th["stereotype_r"]), _num(th["fair_r"])
    how = (
        'Each point is one <a href="#gl-point">comparison</a>: one rater\'s interval for the '
        "query corpus against the same rater's interval for the reference, for one "
        'combination of categories. Across: <a href="#gl-delta">Δ</a>, how far the query\'s '
        "centre moved, in reference spreads (left of 0: rated lower). Up: "
        "<a href=\"#gl-r\">R</a>, the query's spread over the reference's (below 1: narrower, "
        'less diverse). Shading: the <a href="#gl-bc">Bhattacharyya coefficient</a> BC of the '
        "two intervals read as Gaussians, from blue (0, no overlap) to yellow (1, identical). "
        f'<a href="#gl-zones">Zones</a>: inside the closed curve around the star at (0, 1), '
        f"excellent (BC &gt; {bc}); the solid rectangle, fair (|Δ| &lt; {d}, {lo} ≤ R ≤ {hi}); "
        f"the dashed one below it, stereotype (|Δ| &lt; {d}, R &lt; {lo}: centred but "
        "narrower); anywhere else, bad. Arrowheads on the frame: points beyond the view, "
        "drawn at its edge. Colours and markers: the options named in the legend."
    )
    same = "Axes, shading and zones as in the map per rater."
    texts = {
        "rrmap_by_rater": ("The map, per rater", how),
        "rrmap_by_query": (
            "The map, per query corpus",
            "One panel per query corpus, all raters together: the corpus whose points lie "
            f"nearer the star at (0, 1) matches the reference better. {same}",
        ),
        "rrmap_grid": (
            "The map, per rater and category",
            "One column per rater, one row per category, each row coloured by its own "
            "options: where each option's comparisons lie for each rater, and whether the "
            f"raters see an option alike. {same}",
        ),
        "proportions": (
            "Quality proportions",
            "For each rater (n: its points), the share of its comparisons in each "
            '<a href="#gl-zones">zone</a>, from excellent on the left to bad on the right; '
            'whiskers: Wilson 95 % <a href="#gl-interval">intervals</a> (the table below '
            "gives every share with its interval).",
        ),
        "agreement": (
            "Agreement between the raters",
            "Above: for each comparison every rater rated, whether all put it in the same "
            "zone (and which), only one pair agrees, or all differ. Below, for each pair of "
            "raters: how often a zone of one (rows) meets a zone of the other (columns); the "
            'framed diagonal is agreement (<a href="#gl-alpha">α</a> and '
            '<a href="#gl-kappa">κ</a> in the reliability table).',
        ),
    }
    if stem not in texts:
        return None
    title, text = texts[stem]
    return title, Markup(text)


def vocabulary(settings: Mapping[str, Any], points: pd.DataFrame) -> dict[str, set[str]]:
    """What ``groups`` labels can name, as :func:`groups_noun` reads it: the raters, the
    query corpora, then each tested category's options (as text).

    Examples
    --------
    >>> import pandas as pd
    >>> pts = pd.DataFrame({"expert": ["E1", "E2"], "movement": ["cubism", "surrealism"]})
    >>> vocabulary({"raters": ["E1", "E2"], "by": ["movement"]}, pts)["movement"] == {
    ...     "cubism", "surrealism"}
    True
    """
    out: dict[str, set[str]] = {"expert": {str(r) for r in settings.get("raters", [])}}
    if "query" in points.columns:
        out["query"] = set(points["query"].astype(str))
    for cat in settings.get("by", []):
        if cat in points.columns:
            out[str(cat)] = set(points[cat].astype(str))
    return out


def design_counts(frame: pd.DataFrame) -> str:
    """``20 comparisons, 7 with p < 0.05`` for a design's summary line.

    Examples
    --------
    >>> import pandas as pd
    >>> design_counts(pd.DataFrame({"energy_p": [0.01, 0.5], "zones_p": [0.2, None]}))
    '2 comparisons, 1 with p < 0.05'
    """
    n = len(frame)
    return f"{n} comparison{'s' if n != 1 else ''}, {passing(frame)} with p < 0.05"


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
