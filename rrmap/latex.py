"""The analysis tables as booktabs LaTeX, ready for ``\\input`` in a paper.

``rrmap analyze`` writes ``tests.tex``, ``proportions.tex`` and
``agreement.tex`` beside the CSV files; ``rrmap table`` writes one of them
again from a results folder. Tables are rendered by pandas' ``Styler``
(booktabs rules, ``longtable`` past 40 rows); p-values are formatted as in
``report.md`` (three significant digits) with p < 0.05 in bold; captions say
what was tested, with how many permutations and which seed. The preamble
needs ``\\usepackage{booktabs}`` (and ``longtable`` for long tables).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from rrmap._escape import latex_text, split_groups
from rrmap.report import design_frames, is_pvalue_column
from rrmap.zones import QUALITY_LEVELS

__all__ = ["agreement_latex", "latex_pvalue", "proportions_latex", "tests_latex"]

_ALPHA = 0.05
_LONG = 40  # rows past which a table becomes a longtable (breaks across pages)
#: Column names under the "energy" and "zones" headers of the design tables.
_TEST_HEADERS = {
    "energy": "$E$",
    "energy_effect": "share",
    "zones_test": "test",
    "zones": "stat.",
    "zones_dof": "dof",
    "zones_effect": "$V$",
}
_ZONE_TESTS = {"chi2": r"$\chi^2$", "stuart_maxwell": "SM", "marginal_homogeneity": "MH"}
#: Marks of p-values not obtained the usual way (explained in every caption).
_P_MARKS = {"monte_carlo": r"$^{\dagger}$", "exact": r"$^{\ddagger}$", "permutation": r"$^{\ast}$"}
_METHODS = {"holm": "Holm", "fdr_bh": "BH"}


def latex_pvalue(p: float, alpha: float = _ALPHA) -> str:
    """A p-value as in ``report.md`` (3 significant digits), bold when p < *alpha*.

    Examples
    --------
    >>> latex_pvalue(0.0312), latex_pvalue(0.2), latex_pvalue(1.2e-9), latex_pvalue(float("nan"))
    ('\\\\textbf{0.0312}', '0.2', '$\\\\mathbf{1.2 \\\\times 10^{-9}}$', '')
    """
    if p is None or pd.isna(p):
        return ""
    text = f"{p:.3g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        body = f"{mantissa} \\times 10^{{{int(exponent)}}}"
        return f"$\\mathbf{{{body}}}$" if p < alpha else f"${body}$"
    return f"\\textbf{{{text}}}" if p < alpha else text


def _escape(text: Any) -> str:
    """Plain text made safe for LaTeX (:func:`rrmap._escape.latex_text`)."""
    return latex_text(text)


def _grouped_header(col: str) -> tuple[str, str]:
    """(group, name) of a tests-table column: energy and zone columns under their test,
    p-values as "$p$" (the caption says whether adjusted)."""
    kind = "energy" if col.startswith("energy") else "zones" if col.startswith("zones") else ""
    if not kind:
        return "", _escape(col)
    if col.startswith(f"{kind}_p"):
        return kind, "$p$"
    return kind, _TEST_HEADERS.get(col, _escape(col))


def _styled(
    table: pd.DataFrame,
    formatters: Mapping[str, Any],
    caption: str,
    label: str,
    text: int,
    grouped: bool = False,
) -> str:
    """*table* through pandas' Styler: booktabs rules, caption, label, no index; the first
    *text* columns are names (left-aligned, escaped), the others numbers. With *grouped*,
    a second header row groups the columns of each test (:func:`_grouped_header`)."""
    fmt = {c: _escape for c in table.columns[:text]} | dict(formatters)
    # cells formatted here rather than through Styler.format: a formatter per cell makes
    # every to_latex deep-copy one function per cell; the text comes out the same
    shown = pd.DataFrame(
        {
            col: pd.Series(["" if _missing(v) else fmt[col](v) for v in table[col]], dtype=object)
            if col in fmt
            else table[col].reset_index(drop=True)
            for col in table.columns
        }
    )
    if grouped:
        shown.columns = pd.MultiIndex.from_tuples([_grouped_header(c) for c in table.columns])
        sty = shown.style.hide(axis="index")
    else:
        sty = shown.style.hide(axis="index")
        # relabel_index reads each label as a format string: braces doubled
        sty = sty.relabel_index(
            [_escape(c).replace("{", "{{").replace("}", "}}") for c in table.columns], axis=1
        )
    align = "".join(
        "l" if i < text or c in ("design", "zones_test") else "r"
        for i, c in enumerate(table.columns)
    )
    long = len(table) > _LONG
    return sty.to_latex(
        hrules=True,
        caption=caption,
        label=label,
        column_format=align,
        multicol_align="c",
        position="htbp" if not long else None,
        position_float="centering" if not long else None,
        environment="longtable" if long else None,
    )


def _missing(v: Any) -> bool:
    """Whether a cell is shown empty (Styler's ``na_rep``): NaN, None, NA, NaT."""
    return not isinstance(v, str) and bool(pd.isna(v))


def _number(v: Any) -> str:
    return "" if pd.isna(v) else f"{float(v):.3g}"


def _groups(v: Any) -> str:
    """The compared groups as a list; a label holding a comma or ``|`` is quoted."""
    labels = split_groups(str(v))
    return _escape(", ".join(f"“{g}”" if "," in g or "|" in g else g for g in labels))


def tests_latex(tests: pd.DataFrame, settings: Mapping[str, Any], *, result: Any = None) -> str:
    """Every test design as a booktabs table (the tables of ``report.md``).

    With adjusted p-values the tables show those (in bold below 0.05) and
    leave the raw ones to ``tests.csv``; a p-value not obtained the usual way
    (permutation for energy, asymptotic for zone tests) carries a mark:
    MC (Monte Carlo), exact, perm. (permutation).

    Parameters
    ----------
    tests : DataFrame
        A tests table (``AnalysisResult.tests``).
    settings : mapping
        ``AnalysisResult.settings`` (categories tested, permutations, seed,
        p-value adjustment).
    result : AnalysisResult, optional
        The analysis these come from: its design frames are reused
        (:func:`rrmap.report.design_frames`) rather than rebuilt.

    Returns
    -------
    str
        One ``table`` (or ``longtable``) per design, labelled ``tab:rrmap-…``.

    Examples
    --------
    >>> import rrmap
    >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=99, rng=0)
    >>> tex = tests_latex(res.tests, res.settings)
    >>> "\\\\toprule" in tex, "seed 0" in tex, tex.count("\\\\begin{table}")
    (True, True, 1)
    """
    from types import SimpleNamespace

    if result is None or result.tests is not tests:
        result = SimpleNamespace(tests=tests, settings=settings)
    adjust = settings.get("p_adjust", "none")
    runs = (
        f"Energy tests on the ($\\Delta$, $R$) points, at most {settings['permutations']} "
        f"permutations, seed {settings['seed']}; zone tests on the quality levels: "
        r"$\chi^2$ (independent samples), SM = Stuart--Maxwell (two matched raters), "
        "MH = within-key permutation test of marginal homogeneity (more matched raters). "
        "$E$ share: between-group share of the energy dispersion; $V$: Cram\\'er's $V$. "
        "$p$-values are permutation ones (energy) and asymptotic (zones) unless marked: "
        "$^{\\dagger}$ Monte Carlo, $^{\\ddagger}$ exact, $^{\\ast}$ within-key permutation."
    )
    note = (
        f" $p$: adjusted ({_METHODS.get(adjust, adjust)}) within each family; raw $p$-values "
        "in tests.csv."
        if adjust != "none"
        else " $p$: not adjusted for multiple tests."
    )
    parts = [_TESTS_PREAMBLE]
    for head, intro, frame, first in design_frames(result):
        if frame.empty:
            continue
        shown = _latex_frame(frame, adjust != "none")
        formatters: dict[str, Any] = {"n": lambda v: "" if pd.isna(v) else str(int(v))}
        formatters["groups"] = _groups
        formatters["note"] = _escape
        formatters["zones_test"] = lambda v: _ZONE_TESTS.get(v, _escape(v))
        for col in shown.columns:
            if col == "zones_dof":
                formatters[col] = lambda v: "" if pd.isna(v) else str(int(v))
            elif col in ("energy", "zones", "energy_effect", "zones_effect"):
                formatters[col] = _number
            elif col == "design":
                formatters[col] = _escape
        caption = (
            f"{_escape(head)}. {_escape(intro)} {runs}{note} "
            "$p < 0.05$ in bold: evidence against identical distributions, not a verdict."
        )
        label = "tab:rrmap-" + "-".join(_slug(head).split())
        parts.append(
            _styled(shown, formatters, caption, label, 1 if first == "groups" else 2, grouped=True)
        )
    return "\n".join(parts)


def _latex_frame(frame: pd.DataFrame, adjusted: bool) -> pd.DataFrame:
    """A design frame as the LaTeX tables show it: p-values formatted with their marks
    (the adjusted ones only, when there are any), the method columns folded in."""
    out = pd.DataFrame(index=frame.index)
    for col in frame.columns:
        if col in ("energy_method", "zones_method"):
            continue
        if is_pvalue_column(col):
            if adjusted and "_p_" not in col:
                continue
            kind = col.split("_p")[0]
            usual = "permutation" if kind == "energy" else "asymptotic"
            out[col] = [
                latex_pvalue(v) + _p_mark(m, v, usual)
                for v, m in zip(frame[col], frame[f"{kind}_method"], strict=True)
            ]
        else:
            out[col] = frame[col]
    return out


def _p_mark(method: str, p: float, usual: str) -> str:
    if pd.isna(p) or not method or method == usual:
        return ""
    return _P_MARKS.get(method, f"\\textsuperscript{{{_escape(method)}}}")


_TESTS_PREAMBLE = "% rrmap tests; needs \\usepackage{booktabs} (and longtable for long tables)\n"


def _slug(text: str) -> str:
    return "".join(ch.lower() if ch.isalnum() else " " for ch in text)


def proportions_latex(proportions: pd.DataFrame, settings: Mapping[str, Any] | None = None) -> str:
    """Quality proportions per rater (and per rater × option) as booktabs tables.

    Parameters
    ----------
    proportions : DataFrame
        ``AnalysisResult.proportions`` (tidy: ``expert``, ``category``,
        ``option``, ``quality``, ``count``, ``n``, ``share``).
    settings : mapping, optional
        ``AnalysisResult.settings`` (thresholds go into the caption).

    Returns
    -------
    str
        One table per category, percentages with the count in brackets.

    Examples
    --------
    >>> import rrmap
    >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by="modality",
    ...                     n_perm=9, rng=0)
    >>> tex = proportions_latex(res.proportions, res.settings)
    >>> tex.count("\\\\begin{table}"), "excellent & fair & stereotype & bad" in tex
    (2, True)
    """
    parts = ["% rrmap quality proportions; needs \\usepackage{booktabs}\n"]
    th = (settings or {}).get("thresholds") or {}
    zones = (
        f" Zones: excellent BC $> {th['excellent_bc']:g}$, stereotype and fair "
        f"$|\\Delta| < {th['delta_bound']:g}$ with $R < {th['stereotype_r']:.4g}$ and "
        f"${th['stereotype_r']:.4g} \\le R \\le {th['fair_r']:.4g}$."
        if th
        else ""
    )
    for category, part in proportions.groupby("category", sort=False):
        keys = ["expert"] if category == "all" else ["expert", "option"]
        wide = (
            part.groupby([*keys, "n", "quality"], sort=True, observed=True)["count"]
            .sum()
            .unstack("quality")
            .reset_index()
        )
        wide.columns.name = None
        table = wide[keys].rename(columns={"expert": "rater", "option": str(category)})
        table["n"] = wide["n"].astype(int)
        for q in QUALITY_LEVELS:
            counts = wide[q] if q in wide.columns else 0
            table[q] = [
                f"{100 * c / n:.0f}\\,\\% ({int(c)})" if n else ""
                for c, n in zip(counts, wide["n"], strict=True)
            ]
        what = "per rater" if category == "all" else f"per rater and {category}"
        caption = (
            f"Share of the RRMap points in each quality zone {_escape(what)} "
            f"(count in brackets).{zones}"
        )
        formatters = {"n": str, **{q: str for q in QUALITY_LEVELS}}
        label = "tab:rrmap-proportions" + (
            "" if category == "all" else f"-{_slug(str(category)).replace(' ', '-')}"
        )
        parts.append(_styled(table, formatters, caption, label, len(keys)))
    return "\n".join(parts)


def agreement_latex(summary: pd.DataFrame, n_comparisons: int | None = None) -> str:
    """Pointwise agreement across raters (``AnalysisResult.agreement_summary``) as a table.

    Examples
    --------
    >>> import rrmap
    >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=9, rng=0)
    >>> print(agreement_latex(res.agreement_summary).splitlines()[9])
    all agree & (total) & 5 & 4\\,\\% \\\\
    """
    s = summary[(summary["count"] > 0) | (summary["detail"] == "")]
    table = pd.DataFrame(
        {
            "pattern": s["pattern"].to_numpy(),
            "detail": s["detail"]
            .replace("", "(total)")
            .map(lambda d: d.replace("|", " = "))
            .to_numpy(),
            "count": s["count"].astype(int).to_numpy(),
            "share": [
                "" if math.isnan(v) else f"{100 * v:.0f}\\,\\%" for v in s["share"].astype(float)
            ],
        }
    )
    total = (
        n_comparisons
        if n_comparisons is not None
        else int(summary.loc[summary["detail"] == "", "count"].sum())
    )
    caption = (
        f"Pointwise agreement across raters over {total} comparisons: all raters in the "
        "same zone (and which), all in different zones, or two raters agreeing (the pair)."
    )
    head = "% rrmap pointwise agreement; needs \\usepackage{booktabs}\n"
    return head + _styled(table, {"count": str, "share": str}, caption, "tab:rrmap-agreement", 2)
