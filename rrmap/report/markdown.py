"""The markdown report of an analysis (``report.md``), in the spirit of the paper.

Per design a table of p-values, energy (RRMap) and χ² (quality) side by
side, with p < 0.05 in bold — read as evidence against identical
distributions, not as a verdict; then the quality proportions per rater, the
pointwise agreement and the settings that reproduce the run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from rrmap._util.escape import markdown_text
from rrmap.report.format import (
    LEGEND,
)
from rrmap.report.sections import (
    agreement_section,
    generator_section,
    left_out_section,
    proportions_section,
    reliability_section,
    settings_section,
)

if TYPE_CHECKING:  # pragma: no cover
    from rrmap.report.protocol import Result


from rrmap.report.designs import (
    ROW_LIMIT,
    design_frames,
    design_table,
    summarise_families,
)

__all__ = ["render_report", "summary_lines"]


def summary_lines(result: Result, text: Callable[[Any], str] = str) -> list[str]:
    """What ran and what passed, in sentences: the head of the report (rater names
    through *text*, an escaping for the output format).

    Examples
    --------
    >>> import rrmap
    >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=999, rng=0)
    >>> print(summary_lines(res)[0])  # doctest: +NORMALIZE_WHITESPACE
    405 RRMap points from 3 raters (E1, E2, E3). 8 tests ran; 8 pass p < 0.05 after Holm
    adjustment within families (8 on raw p-values). 8 pass at a false discovery rate of
    5 % over the whole table (Benjamini–Hochberg over every test of the run, pvalue_study).
    """
    s, tests = result.settings, result.tests
    sig = result.significance()
    raters = s["raters"]
    ran = f"{sig['tests']} tests ran" + (f" ({sig['skipped']} skipped)" if sig["skipped"] else "")
    # with mid_p the marks follow the mid-p values (adjusted from them, when adjusted)
    of_mid = " of the mid-p values" if s.get("mid_p") else ""
    passing = (
        f"{sig['significant']} pass p < 0.05 after {_ADJUST[sig['adjustment']]} adjustment"
        f"{of_mid} within families ({sig['significant_raw']} on raw p-values)"
        if sig["adjustment"] != "none"
        else f"{sig['significant']} have p < 0.05 (not adjusted for multiplicity)"
    )
    corpora = s.get("queries") or []
    of_corpora = (
        f" and {len(corpora)} query corpora ({', '.join(text(q) for q in corpora)})"
        if len(corpora) > 1
        else ""
    )
    study = (
        f" {sig['significant_study']} pass at a false discovery rate of 5 % over the whole "
        "table (Benjamini–Hochberg over every test of the run, pvalue_study)."
        if sig.get("significant_study") is not None
        else ""
    )
    out = [
        f"{s['n_points']} RRMap points from {len(raters)} rater{'s' if len(raters) != 1 else ''}"
        f" ({', '.join(text(r) for r in raters)}){of_corpora}. {ran}; {passing}.{study}"
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


def _design_part(frame: pd.DataFrame, first: str) -> list[str]:
    """One design's table; past :data:`~rrmap.report.designs.ROW_LIMIT` rows, one row per family
    (its k-sample test and how many of its pairs pass), as report.html shows it, under a line
    that says so: the report stays readable at any size, every test is in tests.csv."""
    if len(frame) <= ROW_LIMIT:
        return [design_table(frame, first)]
    summary = summarise_families(frame, first)
    return [
        f"{len(frame)} comparisons in {len(summary)} families, past {ROW_LIMIT} rows: each "
        "family's test of all its groups at once, and how many of its pairs pass p < 0.05. "
        "Every test, pairs included: `tests.csv`.",
        "",
        design_table(summary, first),
    ]


_ADJUST = {"holm": "Holm", "fdr_bh": "Benjamini–Hochberg", "gatekept": "gatekept"}
_P_WORDS = {
    "asymptotic": "asymptotic",
    "monte_carlo": "Monte Carlo (Cochran's rule failed)",
    "exact": "exact",
    "permutation": "within-key permutation",
}


def render_report(result: Result, figures: Sequence[str | os.PathLike[str]] = ()) -> str:
    """The markdown report of an :class:`~rrmap.analysis.AnalysisResult`.

    Parameters
    ----------
    result : Result
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
        parts += [*_design_part(frame, first), ""]
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
