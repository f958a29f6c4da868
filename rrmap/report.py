"""The markdown report of an analysis (``report.md``), in the spirit of the paper.

Per design a table of p-values, energy (RRMap) and χ² (quality) side by
side, with p < 0.05 in bold — read as evidence against identical
distributions, not as a verdict; then the quality proportions per rater, the
pointwise agreement and the settings that reproduce the run.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rrmap._markdown import markdown_table
from rrmap.stats.designs import split_within
from rrmap.zones import QUALITY_LEVELS

if TYPE_CHECKING:  # pragma: no cover
    from rrmap.analysis import AnalysisResult

__all__ = [
    "design_frame",
    "design_frames",
    "design_sections",
    "format_pvalue",
    "is_pvalue_column",
    "overall_markdown",
    "render_report",
    "side_by_side",
]

_ALPHA = 0.05


def format_pvalue(p: float, alpha: float = _ALPHA) -> str:
    """Format a p-value for the report: 3 significant digits, bold when p < alpha.

    Parameters
    ----------
    p : float
        A p-value (NaN gives an empty string).
    alpha : float, default 0.05
        Marking threshold.

    Returns
    -------
    str

    Examples
    --------
    >>> format_pvalue(0.0312), format_pvalue(0.2), format_pvalue(1.2e-9)
    ('**0.0312**', '0.2', '**1.2e-09**')
    """
    if p is None or (isinstance(p, float) and np.isnan(p)) or pd.isna(p):
        return ""
    text = f"{p:.3g}"
    return f"**{text}**" if p < alpha else text


def side_by_side(tests: pd.DataFrame) -> pd.DataFrame:
    """Energy and χ² rows of the same comparison on one row.

    Parameters
    ----------
    tests : DataFrame
        Rows of a tests table.

    Returns
    -------
    DataFrame
        ``by``, ``within``, ``groups``, ``n``, ``energy``, ``energy_p``,
        ``chi2``, ``chi2_dof``, ``chi2_p``, the adjusted p-value columns if
        any (``energy_p_<method>``, ``chi2_p_<method>``) and ``note``, in the
        order of the tests table.

    Examples
    --------
    >>> import rrmap
    >>> from rrmap.stats.designs import expert_effect
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> list(side_by_side(expert_effect(pts, n_perm=9, rng=0)).columns)[:6]
    ['by', 'within', 'groups', 'n', 'energy', 'energy_p']
    """
    keys = ["by", "within", "groups"]
    adj = [c for c in tests.columns if c.startswith("pvalue_")]
    joined = tests["by"].astype(str)
    for k in keys[1:]:
        joined = joined + "\x1f" + tests[k].astype(str)
    codes, uniques = pd.factorize(joined.to_numpy())
    first = np.unique(codes, return_index=True)[1]  # first row of each comparison
    out = tests.iloc[first][[*keys, "n"]].reset_index(drop=True)
    notes = np.full((len(uniques), 2), "", dtype=object)
    for i, kind in enumerate(("energy", "chi2")):
        mask = (tests["test"] == kind).to_numpy()
        at = codes[mask]
        part = tests.loc[mask]
        cols = {"statistic": kind}
        if kind == "chi2":
            cols["dof"] = "chi2_dof"
        cols["pvalue"] = f"{kind}_p"
        for a in adj:
            cols[a] = f"{kind}_p_{a.removeprefix('pvalue_')}"
        for src, dst in cols.items():
            if src == "dof":
                col = pd.array([pd.NA] * len(uniques), dtype="Int64")
                col[at] = pd.array(part[src], dtype="Int64")
            else:
                col = np.full(len(uniques), np.nan)
                col[at] = part[src].to_numpy(dtype=float, na_value=np.nan)
            out[dst] = col
        for j, v in zip(at, part["note"].to_numpy(), strict=True):
            if isinstance(v, str) and v:
                notes[j, i] = f"{kind}: {v}"
    out["note"] = ["; ".join(x for x in row if x) for row in notes]
    return out


def design_frame(tests: pd.DataFrame, first: str) -> pd.DataFrame:
    """One design's tests as a table of values: the compared option (or rater), groups,
    n, then energy and χ² statistics and p-values side by side (adjusted ones too).

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
        Columns *first* (unless ``"groups"``), ``groups``, ``n`` and, as
        present, ``energy``, ``energy_p``, ``chi2``, ``chi2_dof``,
        ``chi2_p``, ``<kind>_p_<method>`` and ``note``.

    Examples
    --------
    >>> import rrmap
    >>> from rrmap.stats.designs import expert_effect
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> list(design_frame(expert_effect(pts, n_perm=9, rng=0), "groups").columns)[:4]
    ['groups', 'n', 'energy', 'energy_p']
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
    for col in wide.columns:
        if col not in ("by", "within", "groups", "n", "note"):
            out[col] = wide[col]
    if wide["note"].str.len().gt(0).any():
        out["note"] = wide["note"]
    return out


def is_pvalue_column(col: str) -> bool:
    """Whether a :func:`design_frame` column holds p-values (raw or adjusted).

    Examples
    --------
    >>> is_pvalue_column("energy_p"), is_pvalue_column("chi2_p_holm"), is_pvalue_column("chi2")
    (True, True, False)
    """
    return col.endswith("_p") or "_p_" in col


def _design_table(frame: pd.DataFrame, first: str) -> str:
    """A markdown table of one design's :func:`design_frame`, p-values formatted,
    significant ones in bold."""
    if frame.empty:
        return "_No tests._"
    columns: dict[str, Any] = {}  # built whole, then one DataFrame
    for col in frame.columns:
        if col in (first, "groups", "note"):
            columns[col] = frame[col].to_numpy()
        elif col == "n":
            columns["n"] = frame["n"].to_numpy(dtype=int)
        elif is_pvalue_column(col):
            columns[_label(col)] = [format_pvalue(v) for v in frame[col]]
        elif col == "chi2_dof":
            columns["dof"] = ["" if pd.isna(v) else str(int(v)) for v in frame[col]]
        else:
            columns[_label(col)] = [
                "" if np.isnan(v) else f"{v:.3g}" for v in frame[col].to_numpy(dtype=float)
            ]
    return markdown_table(pd.DataFrame(columns))


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


def _label(col: str) -> str:
    names = {"energy": "E", "energy_p": "p (energy)", "chi2": "χ²", "chi2_p": "p (χ²)"}
    if col in names:
        return names[col]
    kind, _, method = col.partition("_p_")
    method = {"holm": "Holm", "fdr_bh": "BH"}.get(method, method)
    return f"p {method} ({'energy' if kind == 'energy' else 'χ²'})"


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
    | groups | n | E | p (energy) | χ² | dof | p (χ²) |
    """
    part = tests[tests["within"] == "all"]
    return (
        "Expert effect, overall (p < 0.05 in **bold**: evidence against identical "
        "distributions, not a verdict)\n\n" + _design_table(design_frame(part, "groups"), "groups")
    )


def _proportions_section(result: AnalysisResult) -> str:
    props = result.proportions
    overall = props[props["category"] == "all"]
    wide = (
        overall.groupby(["expert", "n", "quality"], sort=True, observed=True)["share"]
        .mean()
        .unstack("quality")
        .reset_index()
    )
    wide.columns.name = None
    table = pd.DataFrame({"rater": wide["expert"].astype(str), "n": wide["n"].astype(int)})
    for lv in QUALITY_LEVELS:
        vals = wide[lv] if lv in wide.columns else pd.Series(0.0, index=wide.index)
        table[lv] = [f"{100 * v:.0f} %" for v in vals]
    return (
        "## Quality proportions per rater\n\n"
        "Share of each rater's points in each quality zone "
        "(per category option: `proportions.csv`).\n\n" + markdown_table(table)
    )


def _agreement_section(result: AnalysisResult) -> str:
    if result.agreement.empty:
        note = result.settings.get("agreement", "no pointwise agreement table")
        return f"## Pointwise agreement\n\n{note}."
    s = result.agreement_summary.copy()
    s = s[(s["count"] > 0) | (s["detail"] == "")]
    table = pd.DataFrame(
        {
            "pattern": s["pattern"],
            "detail": s["detail"].replace("", "(total)"),
            "count": s["count"].astype(int),
            "share": [f"{100 * v:.0f} %" for v in s["share"]],
        }
    )
    n = len(result.agreement)
    return (
        "## Pointwise agreement\n\n"
        f"For each of the {n} comparisons rated by the raters, the zones they put it in: "
        "all in the same zone (and which), all in different zones, or partial agreement "
        "(the rater pair that agrees). Per comparison: `agreement.csv`.\n\n" + markdown_table(table)
    )


def _settings_section(result: AnalysisResult, figures: Sequence[str]) -> str:
    s = result.settings
    th = s.get("thresholds") or {}
    lines = [
        "## Settings",
        "",
        f"- input: `{s.get('input')}`"
        + (
            f" (SHA-256 of the {s['input_hashed']}: `{s['input_sha256']}`)"
            if s.get("input_sha256")
            else ""
        ),
        f"- seed: {s['seed']}",
        f"- permutations per energy test: at most {s['permutations']}"
        + (
            f" (sequential: a test stops once {s['stop_hits']} of them reached its statistic)"
            if s.get("stop_hits")
            else ""
        ),
        "- χ² p-values: "
        + (
            f"Monte Carlo with fixed margins, {s['chi2_monte_carlo']} draws"
            if s.get("chi2_monte_carlo")
            else "asymptotic χ² distribution, no continuity correction"
        ),
        f"- p-value adjustment: {s['p_adjust']}"
        + (
            " (within each family: a k-sample test and its pairs)"
            if s["p_adjust"] != "none"
            else ""
        ),
        f"- categories tested: {', '.join(s['by']) or '(none)'}",
        f"- z: {s.get('z')}, coverage: {s.get('coverage')}",
        "- zone thresholds: " + ", ".join(f"{k} = {v:.6g}" for k, v in th.items()),
        f"- rrmap {s['rrmap_version']}",
    ]
    return "\n".join(lines)


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
    >>> "## Expert effect, overall" in text, "## Settings" in text
    (True, True)
    """
    s = result.settings
    tests = result.tests
    tested = tests["pvalue"].notna()
    n_sig = int((tests.loc[tested, "pvalue"] < _ALPHA).sum())
    parts = [
        "# RRMap analysis report",
        "",
        f"{s['n_points']} RRMap points from {len(s['raters'])} rater(s) "
        f"({', '.join(s['raters'])}); {len(tests)} tests, {int(tested.sum())} with a p-value, "
        f"{n_sig} of them below 0.05.",
        "",
        "**How to read the p-values.** Energy tests compare the distributions of the "
        "(Δ, R) points (location, spread and shape); χ² tests compare the proportions of "
        "the four quality levels. A p-value below 0.05 (in **bold**) is evidence against "
        "the hypothesis that the compared groups have identical distributions; it is not a "
        "verdict, and a larger p-value does not show that they agree. Small groups "
        "(e.g. 15 points) give little power. Pairwise tests are not adjusted for "
        "multiplicity unless stated in the settings. Energy p-values come from at most "
        f"{s['permutations']} permutations (the tests table's n_perm says how many; a "
        "clearly non-significant test stops early): the smallest possible is "
        f"1/{s['permutations'] + 1} ≈ {1 / (s['permutations'] + 1):.2g}.",
        "",
    ]
    for head, intro, frame, first in design_frames(result):
        parts += [f"## {head}", "", intro, "", _design_table(frame, first), ""]
    parts.pop()
    parts += ["", _proportions_section(result), "", _agreement_section(result)]
    if figures:
        names = [os.fspath(f) for f in figures]
        parts += ["", "## Figures", ""]
        parts += [f"- [{name}]({name})" for name in names]
        for name in names:
            if name.lower().endswith((".png", ".svg")):
                parts += ["", f"![{name}]({name})"]
    parts += ["", _settings_section(result, figures), ""]
    return "\n".join(parts)
