"""The markdown report of an analysis (``report.md``), in the spirit of the paper.

Per design a table of p-values, energy (RRMap) and χ² (quality) side by
side, with p < 0.05 in bold — read as evidence against identical
distributions, not as a verdict; then the quality proportions per rater, the
pointwise agreement and the settings that reproduce the run.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rrmap._escape import html_text, markdown_text, message_text, split_groups
from rrmap._markdown import markdown_table
from rrmap._report_format import (
    _ALPHA,
    LEGEND,
    ZONE_TESTS,
    _label,
    _method_suffix,
    format_pvalue,
    is_pvalue_column,
)
from rrmap._report_sections import (
    agreement_section,
    generator_section,
    left_out_section,
    proportions_section,
    reliability_section,
    settings_section,
)
from rrmap.stats.designs import split_within

if TYPE_CHECKING:  # pragma: no cover
    from rrmap.analysis import AnalysisResult

__all__ = [
    "aligned_text",
    "design_frame",
    "design_frames",
    "design_sections",
    "format_pvalue",
    "is_pvalue_column",
    "overall_html",
    "overall_markdown",
    "overall_text",
    "render_report",
    "side_by_side",
    "split_groups",
    "summary_lines",
]


def side_by_side(tests: pd.DataFrame) -> pd.DataFrame:
    """The energy test and the zone test of the same comparison on one row.

    Parameters
    ----------
    tests : DataFrame
        Rows of a tests table.

    Returns
    -------
    DataFrame
        [``query``,] ``by``, ``within``, ``groups``, ``design``, ``n``; then ``energy``
        (E), ``energy_p``, ``energy_p_<method>`` (adjusted, if any),
        ``energy_effect`` (between-sample share of the energy dispersion),
        ``energy_method``; then ``zones_test`` (``chi2``, ``stuart_maxwell``
        or ``marginal_homogeneity``), ``zones`` (its statistic),
        ``zones_dof``, ``zones_p``, ``zones_p_<method>``, ``zones_effect``
        (Cramér's V), ``zones_method``; and ``note``, in the order of the
        tests table.

    Examples
    --------
    >>> import rrmap
    >>> from rrmap.stats.designs import expert_effect
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> list(side_by_side(expert_effect(pts, n_perm=9, rng=0)).columns)[:7]
    ['by', 'within', 'groups', 'design', 'n', 'energy', 'energy_p']
    """
    keys = ["by", "within", "groups"]
    if "query" in tests.columns:  # several query corpora: the same test of each corpus
        keys.insert(0, "query")
    adj = [c for c in tests.columns if c.startswith("pvalue_")]
    joined = tests[keys[0]].astype(str)
    for k in keys[1:]:
        joined = joined + "\x1f" + tests[k].astype(str)
    codes, uniques = pd.factorize(joined.to_numpy())
    first = np.unique(codes, return_index=True)[1]  # first row of each comparison
    cols = [*keys, "design", "n"] if "design" in tests.columns else [*keys, "n"]
    out = tests.iloc[first][cols].reset_index(drop=True)
    if "design" not in out.columns:
        out.insert(3, "design", "")
    energy = (tests["test"] == "energy").to_numpy()
    notes = np.full((len(uniques), 2), "", dtype=object)
    for i, (kind, mask) in enumerate((("energy", energy), ("zones", ~energy))):
        at, part = codes[mask], tests.loc[mask]
        if kind == "zones":
            out["zones_test"] = _column(part.get("test"), at, len(uniques), text=True)
        out[kind] = _column(part["statistic"], at, len(uniques))
        if kind == "zones":
            out["zones_dof"] = _column(part["dof"], at, len(uniques), integer=True)
        out[f"{kind}_p"] = _column(part["pvalue"], at, len(uniques))
        for a in adj:
            out[f"{kind}_p_{a.removeprefix('pvalue_')}"] = _column(part[a], at, len(uniques))
        out[f"{kind}_effect"] = _column(part.get("effect"), at, len(uniques))
        out[f"{kind}_method"] = _column(part.get("p_method"), at, len(uniques), text=True)
        for j, v in zip(at, part["note"].to_numpy(), strict=True):
            if isinstance(v, str) and v:
                notes[j, i] = f"{kind}: {v}"
    out["note"] = ["; ".join(x for x in row if x) for row in notes]
    return out


def _column(values: pd.Series | None, at: np.ndarray, n: int, *, integer: bool = False,
            text: bool = False):  # fmt: skip
    """*values* placed at rows *at* of a column of *n* rows (missing elsewhere)."""
    if text:
        col = np.full(n, "", dtype=object)
        if values is not None:
            col[at] = values.fillna("").astype(str).to_numpy()
        return col
    if integer:
        col = pd.array([pd.NA] * n, dtype="Int64")
        if values is not None:
            col[at] = pd.array(values, dtype="Int64")
        return col
    col = np.full(n, np.nan)
    if values is not None:
        col[at] = values.to_numpy(dtype=float, na_value=np.nan)
    return col


def design_frame(tests: pd.DataFrame, first: str) -> pd.DataFrame:
    """One design's tests as a table of values: the compared option (or rater), groups,
    n, the design, then the energy and zone tests side by side: statistics, p-values
    (adjusted ones too), effect sizes and how each p-value was obtained.

    Parameters
    ----------
    tests : DataFrame
        The rows of one design of a tests table.
    first : str
        The leading column: ``"groups"`` (design 1), a category (expert effect
        per option) or ``"rater"`` (category effect per rater).

    Returns
    -------
    DataFrame
        Columns *first* (unless ``"groups"``), ``groups``, ``n``, ``design``
        (unless every test is independent) and the columns of
        :func:`side_by_side` from ``energy`` on (``note`` only when a test has
        one).

    Examples
    --------
    >>> import rrmap
    >>> from rrmap.stats.designs import expert_effect
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> list(design_frame(expert_effect(pts, n_perm=9, rng=0), "groups").columns)[:5]
    ['groups', 'n', 'design', 'energy', 'energy_p']
    """
    return _design_frame_of(side_by_side(tests), first)


def _design_frame_of(wide: pd.DataFrame, first: str) -> pd.DataFrame:
    """:func:`design_frame` from the design's rows of :func:`side_by_side`."""
    wide = wide.reset_index(drop=True)
    out = pd.DataFrame(index=wide.index)
    if first != "groups":
        out[first] = [split_within(w)[1] if w != "all" else w for w in wide["within"]]
    out["groups"] = wide["groups"]
    out["n"] = wide["n"].astype("Int64")
    if not wide["design"].isin(["independent", ""]).all():
        out["design"] = wide["design"]
    for col in wide.columns:
        if col not in ("query", "by", "within", "groups", "design", "n", "note"):
            out[col] = wide[col]
    if wide["note"].str.len().gt(0).any():
        out["note"] = wide["note"]
    return out


def _design_table(frame: pd.DataFrame, first: str) -> str:
    """A markdown table of one design's :func:`design_frame` (:func:`_display_frame`)."""
    if frame.empty:
        return "_No tests._"
    shown = _display_frame(frame, first, lambda t: f"**{t}**", markdown_text)
    shown.columns = [markdown_text(c) for c in shown.columns]
    return markdown_table(shown, escape=False)


def _display_frame(
    frame: pd.DataFrame, first: str, bold: Callable[[str], str], text: Callable[[Any], Any] = str
) -> pd.DataFrame:
    """One design's :func:`design_frame` as the report shows it: p-values formatted (with
    how they were obtained, when not as usual), the significant ones through *bold* — the
    adjusted p-values when there are any, else the raw ones; names through *text* (an
    escaping for the output format)."""
    adjusted = any("_p_" in c for c in frame.columns)
    columns: dict[str, Any] = {}  # built whole, then one DataFrame
    for col in frame.columns:
        if col in (first, "query corpus", "groups", "design", "note"):
            columns[col] = [text(v) for v in frame[col]]
        elif col in ("energy_method", "zones_method"):
            continue
        elif col == "n":
            columns["n"] = frame["n"].to_numpy(dtype=int)
        elif col == "zones_test":
            columns["zone test"] = [text(ZONE_TESTS.get(v, v)) for v in frame[col]]
        elif is_pvalue_column(col):
            marked = "_p_" in col or not adjusted
            method = frame[f"{col.split('_p')[0]}_method"]
            usual = "permutation" if col.startswith("energy") else "asymptotic"
            columns[_label(col)] = [
                (bold(format_pvalue(v, -1.0)) if marked and v < _ALPHA else format_pvalue(v, -1.0))
                + _method_suffix(m, v, usual)
                for v, m in zip(frame[col], method, strict=True)
            ]
        elif col == "zones_dof":
            columns["dof"] = ["" if pd.isna(v) else str(int(v)) for v in frame[col]]
        else:
            columns[_label(col)] = [
                "" if np.isnan(v) else f"{v:.3g}" for v in frame[col].to_numpy(dtype=float)
            ]
    return pd.DataFrame(columns)


def design_frames(result: AnalysisResult) -> list[tuple[str, str, pd.DataFrame, str]]:
    """:func:`design_sections` with each design's tests as its :func:`design_frame`.

    Computed once per tests table and kept on *result* (the report and the
    LaTeX tables show the same frames).

    Examples
    --------
    >>> import rrmap
    >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by="modality",
    ...                     n_perm=9, rng=0)
    >>> [list(frame.columns)[:2] for _, _, frame, _ in design_frames(res)][1]
    ['modality', 'groups']
    """
    key = (id(result.tests), len(result.tests), tuple(result.tests.columns))
    cached = getattr(result, "_design_frames", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    wide = side_by_side(result.tests)  # once: every design is a subset of its rows
    frames = [
        (h, i, _design_frame_of(wide[mask], f), f)
        for h, i, mask, f in _design_masks(wide, result.settings["by"])
    ]
    try:
        result._design_frames = (key, frames)  # type: ignore[union-attr]
    except AttributeError:  # pragma: no cover - an object that takes no attributes
        pass
    return frames


def design_sections(result: AnalysisResult) -> list[tuple[str, str, pd.DataFrame, str]]:
    """(title, one-line intro, tests, leading column) of every design, in report order.

    Examples
    --------
    >>> import rrmap
    >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by="modality",
    ...                     n_perm=9, rng=0)
    >>> [title for title, *_ in design_sections(res)]
    ['Expert effect, overall', 'Expert effect per modality', 'Effect of modality per rater']
    """
    tests = result.tests
    return [(h, i, tests[mask], f) for h, i, mask, f in _design_masks(tests, result.settings["by"])]


def _design_masks(tests: pd.DataFrame, by: Sequence[str]) -> list[tuple[str, str, np.ndarray, str]]:
    """(title, intro, rows of *tests* in the design, leading column) of every design.

    *tests* is a tests table or its :func:`side_by_side` form (both have
    ``by`` and ``within``).
    """
    if "query" in tests.columns:
        return _corpora_masks(tests, by)
    within = tests["within"].to_numpy(dtype=object)
    of = tests["by"].to_numpy(dtype=object)
    out = [
        (
            "Expert effect, overall",
            "Do the raters' points differ? All raters at once, then every pair.",
            within == "all",
            "groups",
        )
    ]
    within_column = np.array([split_within(w)[0] for w in within], dtype=object)
    for cat in by:
        out.append(
            (
                f"Expert effect per {cat}",
                f"The raters compared on the points of one {cat} at a time.",
                (of == "expert") & (within_column == cat),
                cat,
            )
        )
    for cat in by:
        out.append(
            (
                f"Effect of {cat} per rater",
                f"For each rater, do the options of {cat} differ? All options, then every pair.",
                of == cat,
                "rater",
            )
        )
    return out


def _corpora_masks(
    tests: pd.DataFrame, by: Sequence[str]
) -> list[tuple[str, str, np.ndarray, str]]:
    """:func:`_design_masks` of a study of several query corpora: the generator effect,
    then the designs of each corpus, titled with its name."""
    within = tests["within"].to_numpy(dtype=object)
    of = tests["by"].to_numpy(dtype=object)
    within_column = np.array([split_within(w)[0] for w in within], dtype=object)
    generator = of == "query"
    out = [
        (
            "Generator effect, overall and per rater",
            "Are the query corpora equally close to the reference? Their points are matched "
            "on the rater and the comparison key (labels permuted within each).",
            generator & np.isin(within_column, ["all", "expert"]),
            "rater",
        )
    ]
    for cat in by:
        out.append(
            (
                f"Generator effect per {cat}",
                f"The query corpora compared on the points of one {cat} at a time.",
                generator & (within_column == cat),
                cat,
            )
        )
    corpus = tests["query"].astype(str).to_numpy(dtype=object)
    for q in dict.fromkeys(c for c in corpus if c):
        part = tests.loc[corpus == q].drop(columns="query")
        at = np.flatnonzero(corpus == q)
        for head, intro, mask, first in _design_masks(part, by):
            full = np.zeros(len(tests), dtype=bool)
            full[at[mask]] = True
            out.append((f"{head} — {q}", f"Query corpus {q}. {intro}", full, first))
    return out


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
    | groups | n | design | E | p (energy) | E share | zone test | statistic | dof | p (zones) | V |
    """
    part = tests[tests["within"] == "all"]
    adjusted = any(c.startswith("pvalue_") for c in tests.columns)
    which = "adjusted p < 0.05" if adjusted else "p < 0.05"
    return (
        f"{_overall_name(tests)} ({which} in **bold**: evidence against identical "
        "distributions, not a verdict)\n\n"
        + _design_table(_overall_frame(part), "groups")
        + "\n\n"
        + LEGEND
    )


def overall_text(tests: pd.DataFrame, color: bool = False) -> str:
    """The expert effect overall (design 1) as an aligned plain-text table: names left,
    numbers right, significant p-values marked ``*`` (and bold with *color*).

    Parameters
    ----------
    tests : DataFrame
        A tests table.
    color : bool, default False
        Bold the significant p-values with ANSI codes (for a terminal).

    Examples
    --------
    >>> import rrmap
    >>> from rrmap.stats.designs import expert_effect
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> print(overall_text(expert_effect(pts, n_perm=99, rng=0)).splitlines()[0].split()[:4])
    ['groups', 'n', 'design', 'E']
    """
    frame = _overall_frame(tests[tests["within"] == "all"])
    if frame.empty:
        return "(no tests)"
    adjusted = any(c.startswith("pvalue_") for c in tests.columns)
    which = "adjusted p" if adjusted else "p"
    bold = (lambda t: f"\x1b[1m{t}*\x1b[0m") if color else (lambda t: f"{t}*")
    shown = _display_frame(frame, "groups", bold, message_text)
    left = {"query corpus", "groups", "design", "zone test", "note"}
    return aligned_text(shown, left) + f"\n* {which} < 0.05"


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
    shown = _display_frame(frame, "groups", lambda t: f"<b>{t}</b>", html_text)
    adjusted = any(c.startswith("pvalue_") for c in tests.columns)
    which = "adjusted p &lt; 0.05" if adjusted else "p &lt; 0.05"
    return (
        f"<p>{_overall_name(tests)} ({which} in <b>bold</b>: evidence against identical "
        "distributions, not a verdict)</p>"
        + shown.to_html(index=False, escape=False)
        + f"<p><small>{html.escape(LEGEND)}</small></p>"
    )


def summary_lines(result: AnalysisResult, text: Callable[[Any], str] = str) -> list[str]:
    """What ran and what passed, in sentences: the head of the report (rater names
    through *text*, an escaping for the output format).

    Examples
    --------
    >>> import rrmap
    >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=999, rng=0)
    >>> print(summary_lines(res)[0])  # doctest: +NORMALIZE_WHITESPACE
    405 RRMap points from 3 raters (E1, E2, E3). 8 tests ran; 8 pass p < 0.05 after Holm
    adjustment within families (8 on raw p-values).
    """
    s, tests = result.settings, result.tests
    sig = result.significance()
    raters = s["raters"]
    ran = f"{sig['tests']} tests ran" + (f" ({sig['skipped']} skipped)" if sig["skipped"] else "")
    passing = (
        f"{sig['significant']} pass p < 0.05 after {_ADJUST[sig['adjustment']]} adjustment "
        f"within families ({sig['significant_raw']} on raw p-values)"
        if sig["adjustment"] != "none"
        else f"{sig['significant']} have p < 0.05 (not adjusted for multiplicity)"
    )
    corpora = s.get("queries") or []
    of_corpora = (
        f" and {len(corpora)} query corpora ({', '.join(text(q) for q in corpora)})"
        if len(corpora) > 1
        else ""
    )
    out = [
        f"{s['n_points']} RRMap points from {len(raters)} rater{'s' if len(raters) != 1 else ''}"
        f" ({', '.join(text(r) for r in raters)}){of_corpora}. {ran}; {passing}."
    ]
    expert = tests[(tests["by"] == "expert") & tests["pvalue"].notna()]
    if "design" in tests.columns and len(expert):
        matched = int((expert["design"] == "matched").sum())
        incomplete = int(expert["note"].str.startswith("matched within keys").sum())
        out.append(
            f"Expert-effect tests: {matched} of {len(expert)} matched (the raters rated the "
            "same comparison keys: labels permuted within keys; zones by Stuart–Maxwell or a "
            "within-key permutation test"
            + (
                f"; {incomplete} on keys not every rater rated, permuted among those present"
                if incomplete
                else ""
            )
            + f"), {len(expert) - matched} independent"
            + (
                f" (design '{s.get('design')}'"
                + (
                    "; where a rater lacks keys, the note says so)"
                    if s.get("design") == "auto"
                    else ")"
                )
                if len(expert) - matched
                else ""
            )
            + "."
        )
    if "p_method" in tests.columns:
        zones = tests[(tests["test"] != "energy") & tests["pvalue"].notna()]
        counts = zones["p_method"].value_counts()
        if len(zones):
            out.append(
                "Zone p-values: "
                + ", ".join(f"{n} {_P_WORDS.get(m, m)}" for m, n in counts.items())
                + "."
            )
    return out


_ADJUST = {"holm": "Holm", "fdr_bh": "Benjamini–Hochberg"}
_P_WORDS = {
    "asymptotic": "asymptotic",
    "monte_carlo": "Monte Carlo (Cochran's rule failed)",
    "exact": "exact",
    "permutation": "within-key permutation",
}


def render_report(result: AnalysisResult, figures: Sequence[str | os.PathLike[str]] = ()) -> str:
    """The markdown report of an :class:`~rrmap.analysis.AnalysisResult`.

    Parameters
    ----------
    result : AnalysisResult
        Output of :func:`rrmap.analyze`.
    figures : sequence of paths, optional
        Figure files to list (only files actually written should be given).

    Returns
    -------
    str

    Examples
    --------
    >>> import rrmap
    >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=9, rng=0)
    >>> text = render_report(res)
    >>> "## Expert effect, overall" in text, "## Reliability" in text, "## Settings" in text
    (True, True, True)
    """
    s = result.settings
    adjusted = s.get("p_adjust", "none") != "none"
    parts = ["# RRMap analysis report", "", *summary_lines(result, markdown_text), ""]
    for section in (left_out_section(result), generator_section(result)):
        if section:
            parts += [section, ""]
    parts += [
        "**How to read the tests.** Energy tests compare the distributions of the "
        "(Δ, R) points (location, spread and shape); zone tests compare the proportions of "
        "the four quality levels. A p-value below 0.05 (in **bold**"
        + (", on the adjusted p-value" if adjusted else "")
        + ") is evidence against the hypothesis that the compared groups have identical "
        "distributions; it is not a verdict, and a larger p-value does not show that they "
        "agree. Small groups (e.g. 15 points) give little power; the effect sizes say how "
        "large a difference is. Energy p-values come from at most "
        f"{s['permutations']} permutations (the tests table's n_perm says how many; a "
        "clearly non-significant test stops early): the smallest possible is "
        f"1/{s['permutations'] + 1} ≈ {1 / (s['permutations'] + 1):.2g}.",
        "",
        LEGEND,
        "",
    ]
    for head, intro, frame, first in design_frames(result):
        parts += [f"## {markdown_text(head)}", "", markdown_text(intro), ""]
        parts += [_design_table(frame, first), ""]
    parts.pop()
    parts += ["", proportions_section(result), "", agreement_section(result)]
    parts += ["", reliability_section(result)]
    if figures:
        names = [os.fspath(f) for f in figures]
        parts += ["", "## Figures", ""]
        parts += [f"- [{name}]({name})" for name in names]
        for name in names:
            if name.lower().endswith((".png", ".svg")):
                parts += ["", f"![{name}]({name})"]
    parts += ["", settings_section(result, figures), ""]
    return "\n".join(parts)


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
