"""The analysis as one HTML page (``report.html``), in the order a reader looks: key
findings, the maps with how to read them, the tests (the overall ones open, every other
design collapsed), quality proportions, reliability, a glossary that every column header
links to, and the settings that reproduce the run.

The page needs no network: styles and the small script that sorts tables and shows
where a table scrolls are inline, and with plotly installed the interactive map is in
the page (its script included once). Figures are shown from their files beside it
(``figures/*.png``, written by ``rrmap analyze``), each opening full size on a click, so
that a study of many raters gives a page of bounded size; ``embed_figures=True`` puts
them into the page instead. A design with more than
:data:`~rrmap.report.designs.ROW_LIMIT` tests is shown as one row per family, every test
being in ``tests.csv``. Every label from the data is escaped by the template engine
(jinja2, autoescaping) or, in the cells built here, by
:func:`rrmap._util.escape.html_text`.
"""

from __future__ import annotations

import datetime as _dt
import functools
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rrmap._util.escape import html_text
from rrmap._util.labels import split_within
from rrmap._version import __version__
from rrmap.report.designs import design_frames
from rrmap.report.format import LEGEND, reliability_display, zone_shares
from rrmap.report.markdown import summary_lines
from rrmap.report.page import figure_caption, figure_entries, page_table
from rrmap.stats.settings import ALPHA as _ALPHA

if TYPE_CHECKING:  # pragma: no cover
    from rrmap.report.protocol import Result

__all__ = ["MAP_LIMIT", "key_findings", "render_html"]


def _pcol(tests: pd.DataFrame, method: str) -> str:
    col = f"pvalue_{method}"
    return col if col in tests.columns else "pvalue"


def _p(p: float) -> str:
    return "n/a" if pd.isna(p) else (f"{p:.2g}" if p >= 0.001 else "< 0.001")


def _overall_finding(tests: pd.DataFrame, col: str) -> str | None:
    overall = tests[(tests["within"] == "all") & tests["pvalue"].notna()]
    if overall.empty:
        return None
    k_sample = overall[overall["groups"] == overall["groups"].iloc[0]]  # all raters at once
    parts = []
    for _, row in k_sample.iterrows():
        what = "the (Δ, R) points" if row["test"] == "energy" else "the quality zones"
        size = (
            f"between-rater share of the dispersion {100 * row['effect']:.1f} %"
            + (" within keys" if row.get("design") == "matched" else "")
            if row["test"] == "energy"
            else (
                f"within-key share {100 * row['effect']:.1f} %"
                if row.get("design") == "matched"
                else f"Cramér's V = {row['effect']:.2f}"
            )
        )
        verdict = "differ" if row[col] < _ALPHA else "show no significant difference"
        parts.append(f"on {what} the raters {verdict} (p {_p(row[col])}; {size})")
    return "Expert effect overall: " + "; ".join(parts) + "."


def _category_findings(tests: pd.DataFrame, col: str, by: Sequence[str]) -> list[str]:
    # each category's k-sample tests (the first test of each rater) found in one pass over
    # the columns as lists, not by a groupby per category and kind of test
    tested = tests["pvalue"].notna().to_numpy()
    first: dict[tuple[Any, bool, Any], float] = {}  # (by, energy?, within) → p, in order
    for key in zip(
        tests["by"].to_numpy(dtype=object)[tested].tolist(),
        (tests["test"] == "energy").to_numpy(dtype=bool)[tested].tolist(),
        tests["within"].to_numpy(dtype=object)[tested].tolist(),
        tests[col].to_numpy(dtype=float, na_value=np.nan)[tested].tolist(),
        strict=True,
    ):
        first.setdefault(key[:3], key[3])
    out = []
    for cat in by:
        parts = []
        for kind, what in ((True, "the (Δ, R) points"), (False, "the zones")):
            per_rater = [(w, p) for (b, e, w), p in first.items() if b == cat and e == kind]
            if not per_rater:
                continue
            raters = [str(split_within(w)[1]) for w, p in per_rater if p < _ALPHA]
            parts.append(
                f"on {what} for {len(raters)} of {len(per_rater)} raters"
                + (f" ({', '.join(raters)})" if raters else "")
            )
        if parts:
            out.append(
                f"Effect of {cat} (per rater, all options at once): significant "
                + "; ".join(parts)
                + "."
            )
    return out


def _rater_shares(
    result: Result, sep: str, corpus: str | None = None
) -> list[tuple[str, int, dict[str, str]]]:
    """(rater, n, quality → "31 %" with its Wilson interval "[24<sep>39]") per rater (of
    the query corpus *corpus*, in a study of several)."""
    props = result.proportions
    overall = props[props["category"] == "all"]
    if corpus is not None:
        overall = overall[overall["query"].astype(str) == corpus]
    raters = zone_shares(overall, ["expert"], sep)
    return [(rater, n, shares) for (rater,), (n, shares) in raters.items()]


def _zone_findings(result: Result, corpus: str | None = None) -> list[str]:
    return [
        f"{rater}: " + ", ".join(t.replace(" %", f" % {q}", 1) for q, t in shares.items()) + "."
        for rater, _, shares in _rater_shares(result, "–", corpus)
    ]


def _of_corpus(frame: pd.DataFrame, corpus: str | None) -> pd.DataFrame:
    """The rows of *frame* about query corpus *corpus* (all of them when None)."""
    if corpus is None or "query" not in frame.columns:
        return frame
    return frame[frame["query"].astype(str) == corpus].drop(columns="query")


def _agreement_finding(result: Result, corpus: str | None = None) -> str | None:
    s = _of_corpus(result.agreement_summary, corpus)
    agreement = _of_corpus(result.agreement, corpus)
    if s.empty or not len(agreement):
        return None
    total = s[s["detail"] == ""].set_index("pattern")["share"]
    rel = _of_corpus(result.reliability, corpus)
    alpha = rel[(rel["measure"] == "krippendorff_alpha") & (rel["variable"] == "zone")]
    text = (
        f"All raters put a comparison in the same zone for {100 * total.get('all agree', 0):.0f} %"
        f" of the {len(agreement)} comparisons, and in all different zones for "
        f"{100 * total.get('all different', 0):.0f} %."
    )
    if len(alpha):
        row = alpha.iloc[0]
        ci = f" [{row['ci_low']:.2f}, {row['ci_high']:.2f}]" if pd.notna(row["ci_low"]) else ""
        text += f" Krippendorff's α on the zones (all raters): {row['value']:.2f}{ci}."
    return text


def key_findings(result: Result) -> list[str]:
    """The findings of an analysis in plain sentences: the expert effect and its size, the
    category effects per rater, each rater's zone shares with their intervals, agreement.

    Significance follows the p-values the run marks (adjusted when adjusted).

    Parameters
    ----------
    result : Result

    Returns
    -------
    list of str

    Examples
    --------
    >>> import rrmap
    >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=999, rng=0)
    >>> key_findings(res)[0][:52]
    'Expert effect overall: on the (Δ, R) points the rate'
    """
    col = _pcol(result.tests, result.settings.get("p_adjust", "none"))
    if "query" not in result.tests.columns:
        return _findings_of(result, result.tests, col, None)
    from rrmap.points import query_corpora
    from rrmap.report.sections import generator_sentences

    out = generator_sentences(result)
    for q in query_corpora(result.points):
        tests = _of_corpus(result.tests, q)
        out += [f"{q} — {line}" for line in _findings_of(result, tests, col, q)]
    return out


def _findings_of(result: Result, tests: pd.DataFrame, col: str, corpus: str | None) -> list[str]:
    """:func:`key_findings` of one query corpus (*tests*: its rows)."""
    out = [f for f in [_overall_finding(tests, col)] if f]
    out += _category_findings(tests, col, result.settings.get("by", []))
    out += ["Quality zones of " + line for line in _zone_findings(result, corpus)]
    agreement = _agreement_finding(result, corpus)
    if agreement:
        out.append(agreement)
    return out


def _design_tables(result: Result) -> list[dict[str, Any]]:
    """Every design's table as the page shows it: the overall ones open, the others
    collapsed under a line that counts their tests; past :data:`~rrmap.report.designs.ROW_LIMIT`
    rows, one row per family."""
    from rrmap.report.designs import ROW_LIMIT, display_columns, summarise_families
    from rrmap.report.page import (
        columns_table,
        design_counts,
        groups_cell,
        reading_order,
        vocabulary,
    )

    words = vocabulary(result.settings, result.points)
    tables = []
    for head, intro, frame, first in design_frames(result):
        if frame.empty:
            continue
        note = None
        shown_rows = frame
        if len(frame) > ROW_LIMIT:
            shown_rows = summarise_families(frame, first)
            note = (
                f"{len(frame)} comparisons in {len(shown_rows)} families: each family's test "
                "of all its groups at once, and how many of its pairs pass p < 0.05. Every "
                "test, pairs included: tests.csv."
            )
        pairs = [c for c in shown_rows.columns if c.startswith("pairs_")]
        # the shown columns as lists, ordered and made a table with no frame between
        shown = display_columns(
            shown_rows.drop(columns=pairs), first, lambda t: f"<b>{t}</b>", html_text
        )
        shown["groups"] = [groups_cell(g, words) for g in shown_rows["groups"].tolist()]
        for col in pairs:
            shown[f"pairs p < 0.05 ({col.removeprefix('pairs_')})"] = shown_rows[col].tolist()
        shown = {c: shown[c] for c in reading_order(list(shown))}
        tables.append(
            {
                "title": head,
                "intro": intro,
                "counts": design_counts(frame),
                "open": head.startswith(("Expert effect, overall", "Generator effect, overall")),
                "frame": columns_table(shown, escaped=True, note=note),
            }
        )
    return tables


def _table(frame: pd.DataFrame) -> dict[str, Any]:
    """A table of plain values (escaped by the template)."""
    return page_table(frame)


def _proportions_table(result: Result) -> dict[str, Any]:
    if "query" not in result.proportions.columns:
        rows = [
            {"rater": rater, "n": n, **shares} for rater, n, shares in _rater_shares(result, ", ")
        ]
        return _table(pd.DataFrame(rows))
    from rrmap.points import query_corpora

    rows = [
        {"query corpus": q, "rater": rater, "n": n, **shares}
        for q in query_corpora(result.points)
        for rater, n, shares in _rater_shares(result, ", ", q)
    ]
    return _table(pd.DataFrame(rows))


def _generators_table(result: Result) -> dict[str, Any] | None:
    """The generator comparison of a study of several query corpora (None with one)."""
    from rrmap.points import query_corpora
    from rrmap.report.sections import generator_comparison, generator_display

    frame = generator_comparison(result)
    if frame.empty:
        return None
    corpora = query_corpora(result.points)
    shown = generator_display(frame, corpora, lambda t: f"<b>{t}</b>", html_text)
    shown.columns = ["subset", *corpora, *shown.columns[1 + len(corpora) :]]  # the template escapes
    return page_table(shown, escaped=True)


def _reliability_table(result: Result) -> dict[str, Any] | None:
    rel = result.reliability
    if rel is None or rel.empty:
        return None
    return page_table(reliability_display(rel), numbers=["value"])


#: Characters of the interactive map (plotly.js, about 4.8 million, and the points' data)
#: past which report.html leaves it out and says how to make it: the page stays a page.
MAP_LIMIT = 8_000_000


def _map(result: Result, made: bool | str) -> str | None:
    """The interactive map: *made* when it is one already, else made here (None without
    plotly)."""
    if isinstance(made, str):
        return made
    from rrmap.plot.analysis_figures import map_html

    return map_html(result.points)


def render_html(
    result: Result,
    figures: Mapping[str, str | os.PathLike[str]] | None = None,
    *,
    interactive: bool | str = True,
    embed_figures: bool = False,
) -> str:
    """The HTML report of an analysis as one page: key findings, the maps with how to read
    them, the tests (each design collapsed but the overall ones), proportions,
    reliability, a glossary and the settings.

    Parameters
    ----------
    result : Result
        Output of :func:`rrmap.analyze`.
    figures : mapping, optional
        Figure name (as listed, e.g. ``figures/rrmap_grid.png``: the path of the
        file relative to where the page will be) → file. The page shows the PNG
        files by that name and links each to itself (full size) and to its PDF,
        when listed.
    interactive : bool or str, default True
        Include the interactive map (with figures, when plotly is installed);
        a string is the map already made
        (:func:`rrmap.plot.interactive.html_fragment`).
    embed_figures : bool, default False
        Put the PNG files into the page (data URIs) instead: a page to send
        alone, as large as its figures.

    Returns
    -------
    str

    Examples
    --------
    >>> import rrmap
    >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=99, rng=0)
    >>> page = render_html(res, interactive=False)
    >>> page.startswith("<!DOCTYPE html>"), "Key findings" in page
    (True, True)
    """
    return render_page(
        page_context(result),
        figures,
        interactive=interactive,
        result=result,
        embed_figures=embed_figures,
    )


def page_context(result: Result) -> dict[str, Any]:
    """What the HTML report shows besides its figures and its interactive map, and its
    template: made before the figures are drawn (``rrmap analyze`` makes it while the
    workers draw), rendered with them by :func:`render_page`."""
    s = result.settings
    th = s.get("thresholds") or {}
    return {
        "template": _template(),
        "title": f"RRMap analysis of {Path(str(s.get('input', 'ratings'))).name}",
        "summary": summary_lines(result),
        "findings": key_findings(result),
        "generators": _generators_table(result),
        "designs": _design_tables(result),
        "legend": LEGEND,
        "proportions": _proportions_table(result),
        "reliability": _reliability_table(result),
        "settings": _settings_rows(s),
        "thresholds": {k: ("2/3" if abs(v - 2 / 3) < 1e-12 else f"{v:g}") for k, v in th.items()},
        "adjust": {"holm": "Holm", "fdr_bh": "BH"}.get(s.get("p_adjust", "none")),
        "version": __version__,
    }


@functools.cache
def _template() -> Any:
    """The page's template, compiled once per process (0.04 s of jinja2 per compilation)."""
    import jinja2

    from rrmap._util.escape import template_text

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("rrmap", "templates"),
        autoescape=True,
        finalize=template_text,  # every text shown as every format shows a label
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env.get_template("report.html.j2")


def render_page(
    context: Mapping[str, Any],
    figures: Mapping[str, str | os.PathLike[str]] | None,
    *,
    interactive: bool | str,
    result: Result,
    embed_figures: bool = False,
) -> str:
    """The page of :func:`page_context` with *figures* and the interactive map (as
    :func:`render_html`)."""
    thresholds = result.settings.get("thresholds")
    page = {k: v for k, v in context.items() if k != "template"}
    page["figures"] = figure_entries(
        {k: Path(v) for k, v in (figures or {}).items()},
        lambda stem: figure_caption(stem, thresholds),
        embed=embed_figures,
    )
    made = _map(result, interactive) if interactive and figures else None
    page["interactive"] = made if made is None or len(made) <= MAP_LIMIT else None
    page["map_left_out"] = None if made is None or page["interactive"] else len(made)
    page["written"] = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return context["template"].render(**page)


def _settings_rows(s: Mapping[str, Any]) -> list[tuple[str, str]]:
    keys = [
        ("input", "input"),
        ("input_sha256", "SHA-256 of the input"),
        ("seed", "seed"),
        ("design", "design of the expert-effect tests"),
        ("permutations", "permutations per energy test (at most)"),
        ("stop_hits", "sequential stop after hits"),
        ("chi2_monte_carlo", "Monte Carlo draws of zone tests"),
        ("p_adjust", "p-value adjustment"),
        ("bootstrap", "bootstrap resamples (reliability)"),
        ("by", "categories tested"),
        ("reference", "reference corpus"),
        ("queries", "query corpora"),
        ("excluded", "rows of query corpora left out"),
        ("dropped", "rows dropped (blank or unpaired)"),
        ("thresholds", "zone thresholds"),
        ("rrmap_version", "rrmap version"),
    ]
    rows = []
    for key, label in keys:
        if key not in s:
            continue
        v = s[key]
        if key == "dropped" and isinstance(v, Mapping):
            lines = v.get("lines", [])
            v = f"{v.get('rows', 0)} (lines {', '.join(map(str, lines[:100]))}" + (
                " …)" if len(lines) > 100 else ")"
            )
        elif isinstance(v, Mapping):
            v = ", ".join(
                f"{k} = {x:.6g}" if isinstance(x, float) else f"{k} = {x}" for k, x in v.items()
            )
        elif isinstance(v, list | tuple):
            v = ", ".join(map(str, v)) or "(none)"
        rows.append((label, "" if v is None else str(v)))
    return rows


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
