"""The analysis tables as booktabs LaTeX, ready for ``\\input`` in a paper.

``rrmap analyze`` writes ``tests.tex``, ``proportions.tex`` and
``agreement.tex`` beside the CSV files; ``rrmap table`` writes one of them
again from a results folder. Each table fits its column (*width* ``"column"``,
a ``table`` float, also in two-column documents) or the text block (``"text"``,
a ``table*`` spanning both columns, with the energy and zone tests side by
side): names wrap, a block's label (the rater, the option) is written once,
numbers are aligned on their decimal mark, long tables are split into several
floats. p-values have one style per column: three significant digits down to
``< 0.001``, ``≤`` where a permutation p-value is at its floor 1/(B + 1), in
bold below 0.05 except asymptotic χ² p-values of tables failing Cochran's rule
(marked ``§``). Captions say what was tested, with how many permutations and
which seed, in the file's own category names; notes under a table explain its
abbreviations and marks. The preamble needs ``\\usepackage{booktabs}`` only
(rendered by :mod:`rrmap._util.latex_tabular`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from rrmap._util.escape import latex_text, split_groups
from rrmap._util.latex_tabular import Column, Num, Row, either, needed_em, render_floats
from rrmap.errors import InputError
from rrmap.report.designs import design_frames, design_masks, wide_tests
from rrmap.report.format import is_missing
from rrmap.stats.settings import ALPHA as _ALPHA
from rrmap.zones import QUALITY_LEVELS

__all__ = ["agreement_latex", "latex_pvalue", "proportions_latex", "result_latex", "tests_latex"]

#: Printed widths a table is made for: its column (``table``) or the text block (``table*``).
WIDTHS = ("column", "text")
#: Rows per float before a table continues in the next one.
_LONG = 46
_ZONE_TESTS = {"chi2": r"$\chi^2$", "stuart_maxwell": "SM", "marginal_homogeneity": "MH"}
_ZONE_WORDS = {
    "chi2": r"$\chi^2$: independent samples",
    "stuart_maxwell": "SM: Stuart--Maxwell (two matched raters)",
    "marginal_homogeneity": "MH: within-key permutation test of marginal homogeneity",
}
#: Marks of p-values not obtained the usual way, and of unreliable ones (§).
_P_MARKS = {
    "monte_carlo": (r"$^{\dagger}$", r"$^{\dagger}$ Monte Carlo"),
    "exact": (r"$^{\ddagger}$", r"$^{\ddagger}$ exact"),
    "permutation": (r"$^{\ast}$", r"$^{\ast}$ within-key permutation"),
    "cochran": (
        r"$^{\S}$",
        r"$^{\S}$ asymptotic $\chi^2$ unreliable (Cochran's rule fails: expected counts "
        "below 5), not in bold",
    ),
}
_METHODS = {"holm": "Holm", "fdr_bh": "BH"}
#: Methods whose p-value has a floor of 1/(B + 1) with B draws.
_DRAWN = ("permutation", "monte_carlo")


def _check_width(width: str) -> bool:
    """Whether *width* asks for the text block (else the column); anything else is an error."""
    if width not in WIDTHS:
        raise InputError(f"width must be one of {', '.join(WIDTHS)}, got {width!r}")
    return width == "text"


def _p_text(p: float, floor: bool = False) -> str:
    """*p* in the one style of a p-value column: three significant digits down to
    ``< 0.001``; at a permutation floor, ``≤`` the value rounded up."""
    if floor:
        digits = 1 if p < 0.001 else 3
        exponent = math.floor(math.log10(p)) - digits + 1
        up = math.ceil(p / 10.0**exponent - 1e-9) * 10.0**exponent
        return f"$\\le$\\,{up:.{max(-exponent, 0)}f}"
    if p < 0.001:
        return "$<$\\,0.001"
    return f"{p:#.3g}".rstrip(".")


def _p_num(
    p: float, alpha: float = _ALPHA, *, floor: bool = False, mark: str = "", cochran: bool = False
) -> Num:
    """A p-value cell: bold below *alpha* unless the asymptotic χ² is unreliable."""
    if is_missing(p):
        return Num("")
    if cochran:
        mark = _P_MARKS["cochran"][0]
    return Num.of(_p_text(float(p), floor), bold=float(p) < alpha and not cochran, mark=mark)


def latex_pvalue(
    p: float, alpha: float = _ALPHA, *, floor: bool = False, unreliable: bool = False
) -> str:
    """A p-value as the tables print it, bold when p < *alpha*.

    Three significant digits down to ``< 0.001``; with *floor* (a permutation
    p-value at its smallest, 1/(B + 1)) ``≤`` the value rounded up; with
    *unreliable* (an asymptotic χ² failing Cochran's rule) never bold.

    Examples
    --------
    >>> latex_pvalue(0.0312), latex_pvalue(0.2), latex_pvalue(1.2e-9), latex_pvalue(float("nan"))
    ('\\\\textbf{0.0312}', '0.200', '\\\\textbf{$<$\\\\,0.001}', '')
    >>> latex_pvalue(1 / 5001, floor=True)
    '\\\\textbf{$\\\\le$\\\\,0.0002}'
    """
    cell = _p_num(p, alpha, floor=floor, cochran=unreliable)
    text = cell.left + cell.right
    return f"\\textbf{{{text}}}" if cell.bold and text else text


def _stat(v: Any) -> Num:
    """A statistic or an effect size: three significant digits, no exponent above 1000."""
    if is_missing(v):
        return Num("")
    v = float(v)
    return Num.of(f"{v:.0f}" if abs(v) >= 1000 else f"{v:.3g}")


def _count(v: Any) -> str:
    return "" if is_missing(v) else str(int(v))


@functools.lru_cache(maxsize=65536)
def _tex_str(text: str) -> str:
    return latex_text(text)


def _tex(v: Any) -> str:
    """:func:`latex_text`, each distinct label escaped once (a table repeats its labels
    on every row)."""
    return _tex_str(v) if type(v) is str else latex_text(v)


@functools.lru_cache(maxsize=65536)
def _groups_str(text: str) -> str:
    labels = split_groups(text)
    return latex_text(", ".join(f"“{g}”" if "," in g or "|" in g else g for g in labels))


def _groups(v: Any) -> str:
    """The compared groups as a list; a label holding a comma or ``|`` is quoted."""
    return _groups_str(str(v))


def _headers(points: Any) -> dict[str, str]:
    """Column name → the header as the ratings file spelt it (the points' metadata)."""
    meta = getattr(points, "attrs", {}).get("rrmap", {}) if points is not None else {}
    return dict(meta.get("headers") or {})


def _name(column: str, headers: Mapping[str, str] | None) -> str:
    """How a category is named in a caption or header: the file's header, else its name
    with underscores read as spaces; escaped."""
    if headers and column in headers:
        return latex_text(headers[column])
    return latex_text(str(column).replace("_", " "))


def _slug(text: str) -> str:
    return "".join(ch.lower() if ch.isalnum() else " " for ch in text)


def _titles(head: str, by: list[str], headers: Mapping[str, str] | None) -> tuple[str, str, str]:
    """(title, intro, what its groups are) of a design in the file's category names
    (escaped); a design of one query corpus of several (``… — gen-A``) says which."""
    base, dash, corpus = head.partition(" — ")
    if dash:
        title, intro, compared = _titles(base, by, headers)
        return (
            f"{title} --- {latex_text(corpus)}",
            f"Query corpus {latex_text(corpus)}. {intro}",
            compared,
        )
    if head == "Generator effect, overall and per rater":
        return (
            latex_text(head),
            "Are the query corpora equally close to the reference? Their points are matched "
            "on the rater and the comparison key.",
            "corpora",
        )
    for cat in by:
        if head == f"Generator effect per {cat}":
            name = _name(cat, headers)
            return (
                f"Generator effect per {name}",
                f"The query corpora compared on the points of one {name} at a time.",
                "corpora",
            )
    for cat in by:
        name = _name(cat, headers)
        if head == f"Expert effect per {cat}":
            return (
                f"Expert effect per {name}",
                f"The raters compared on the points of one {name} at a time.",
                "raters",
            )
        if head == f"Effect of {cat} per rater":
            return (
                f"Effect of {name} per rater",
                f"For each rater, do the options of {name} differ? All options, then every pair.",
                name,
            )
    return (
        latex_text(head),
        "Do the raters' points differ? All raters at once, then every pair.",
        "raters",
    )


def tests_latex(
    tests: pd.DataFrame,
    settings: Mapping[str, Any],
    *,
    result: Any = None,
    width: str = "column",
    headers: Mapping[str, str] | None = None,
) -> str:
    """Every test design as a booktabs table (the tables of ``report.md``).

    With adjusted p-values the tables show those (in bold below 0.05) and
    leave the raw ones to ``tests.csv``; a p-value not obtained the usual way
    (permutation for energy, asymptotic for zone tests) carries a mark
    († Monte Carlo, ‡ exact, * within-key permutation), an asymptotic χ²
    p-value of a table failing Cochran's rule a § (and no bold).

    Parameters
    ----------
    tests : DataFrame
        A tests table (``AnalysisResult.tests``).
    settings : mapping
        ``AnalysisResult.settings`` (categories tested, permutations, seed,
        p-value adjustment).
    result : AnalysisResult, optional
        The analysis these come from: its design frames are reused
        (:func:`rrmap.report.design_frames`) and its points name the categories
        as the ratings file did.
    width : {"column", "text"}, default "column"
        ``"column"``: a ``table`` as wide as a column at most, each comparison
        on two rows (its energy test, its zone test). ``"text"``: a ``table*``
        as wide as the text block at most, the two tests side by side.
    headers : mapping, optional
        Category column → its header in the ratings file (default: from
        ``result.points``; else the name with spaces for underscores).

    Returns
    -------
    str
        One ``table`` (``table*``) per design, labelled ``tab:rrmap-…``; a
        design of more than 36 rows continues in further floats.

    Examples
    --------
    >>> import rrmap
    >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=99, rng=0)
    >>> tex = tests_latex(res.tests, res.settings)
    >>> "\\\\toprule" in tex, "seed 0" in tex, tex.count("\\\\begin{table}")
    (True, True, 1)
    """
    from types import SimpleNamespace

    wide = _check_width(width)
    if result is None or result.tests is not tests:
        result = SimpleNamespace(tests=tests, settings=settings, points=None)
    if headers is None:
        headers = _headers(getattr(result, "points", None))
    adjust = settings.get("p_adjust", "none")
    by = list(settings.get("by") or [])
    side = wide_tests(result)  # the rows design_frames split, computed once
    masks = design_masks(side, by)
    extra = _test_extras(tests)
    # each comparison's key as text, once: rows of it picked per design by position
    names = _KEYS[1:] if "query" not in side else _KEYS
    keys = list(zip(*([str(v) for v in side[k].tolist()] for k in names), strict=True))
    parts = ["% rrmap tests; needs \\usepackage{booktabs}\n"]
    for (head, _, frame, first), (_, _, mask, _) in zip(design_frames(result), masks, strict=True):
        if frame.empty:
            continue
        ext = [extra.get(keys[i], {}) for i in np.flatnonzero(mask).tolist()]
        info = _design_info(frame, ext, adjust)
        title, intro, compared = _titles(head, by, headers)
        label = "tab:rrmap-" + "-".join(_slug(head).split())
        cat = None if first == "groups" else first
        caption = f"{title}. {intro} {_runs(settings, adjust)}"
        columns, rows, notes = _stacked_rows(info, cat, compared, headers)
        kw = {"caption": caption, "label": label, "wide": wide, "limit": _LONG}
        tex = render_floats(columns, rows, notes=notes, **kw)
        if wide:  # side by side where the text block takes it, else as in a column
            pair_columns, pair_rows, pair_notes = _side_rows(info, cat, compared, headers)
            wide_tex = render_floats(pair_columns, pair_rows, notes=pair_notes, **kw)
            tex = either(needed_em(pair_columns, pair_rows) + 1.0, wide_tex, tex)
        parts.append(tex)
    return "\n".join(parts)


def _runs(settings: Mapping[str, Any], adjust: str) -> str:
    """The caption's account of the run: permutations, seed, adjustment, bold."""
    adjusted = (
        f"$p$ adjusted ({_METHODS.get(adjust, latex_text(adjust))}) within each family "
        "(raw $p$ in tests.csv)"
        if adjust != "none"
        else "$p$ not adjusted for multiple tests"
    )
    return (
        f"Energy tests with at most {settings['permutations']} permutations, seed "
        f"{settings['seed']}; {adjusted}; $p < 0.05$ in bold: evidence against identical "
        "distributions, not a verdict."
    )


#: What identifies a comparison of the tests table (``query`` only with several corpora).
_KEYS = ["query", "by", "within", "groups"]


def _test_extras(tests: pd.DataFrame) -> dict[tuple[str, ...], dict[str, Any]]:
    """([query,] by, within, groups) → the draws and raw p-values of its energy and zone
    tests and whether its zone table fails Cochran's rule."""
    out: dict[tuple[str, ...], dict[str, Any]] = {}
    keys = _KEYS if "query" in tests.columns else _KEYS[1:]
    cols = [*keys, "test", "pvalue"]
    more = [c for c in ("n_perm", "min_expected", "share_expected_below_5") if c in tests]
    names = cols + more
    columns = [tests[c].tolist() for c in names]  # lists: not a namedtuple per row
    for row in zip(*columns, strict=True):
        rec = dict(zip(names, row, strict=True))
        kind = "energy" if rec["test"] == "energy" else "zones"
        key = tuple(str(rec[k]) for k in keys)
        entry = out.setdefault(key, {})
        entry[f"{kind}_raw"] = rec["pvalue"]
        entry[f"{kind}_draws"] = rec.get("n_perm")
        if kind == "zones" and rec["test"] == "chi2":
            low, share = rec.get("min_expected"), rec.get("share_expected_below_5")
            entry["cochran_fails"] = bool(
                (low is not None and not pd.isna(low) and low < 1)
                or (share is not None and not pd.isna(share) and share > 0.2)
            )
    return out


def _design_info(frame: pd.DataFrame, extras: list[dict[str, Any]], adjusted: str) -> list[dict]:
    """One record per comparison of a design: names, n, design, note, and per test
    (energy, zones) its statistic, dof, effect and p-value cell."""
    out = []
    # the adjusted p-value columns found once, and plain records: a row as a Series, and
    # the columns searched per row, cost the tests table 0.15 s of lookups
    adjusted_col = {
        kind: next((c for c in frame.columns.tolist() if c.startswith(f"{kind}_p_")), None)
        for kind in ("energy", "zones")
    }
    names = frame.columns.tolist()  # the columns as lists, then rows (to_dict is slower)
    rows = zip(*(frame[c].tolist() for c in names), strict=True)
    for i, row in enumerate(dict(zip(names, values, strict=True)) for values in rows):
        ext = extras[i] if i < len(extras) else {}
        rec: dict[str, Any] = {
            "row": row,
            "groups": row["groups"],
            "n": row.get("n"),
            "design": row.get("design", ""),
            "note": row.get("note", ""),
        }
        for kind in ("energy", "zones"):
            col = adjusted_col[kind] if adjusted != "none" else None
            shown = row[col] if col is not None else row.get(f"{kind}_p")
            method = row.get(f"{kind}_method") or ""
            usual = "permutation" if kind == "energy" else "asymptotic"
            raw, draws = ext.get(f"{kind}_raw"), ext.get(f"{kind}_draws")
            floor = bool(
                method in _DRAWN
                and draws is not None
                and not is_missing(draws)
                and raw is not None
                and not is_missing(raw)
                and raw * (float(draws) + 1) <= 1 + 1e-9
            )
            cochran = kind == "zones" and method == "asymptotic" and ext.get("cochran_fails")
            mark = "" if method in ("", usual) else _P_MARKS.get(method, ("", ""))[0]
            rec[kind] = {
                "stat": row.get(kind),
                "p": _p_num(shown, floor=floor, mark=mark, cochran=bool(cochran)),
                "effect": row.get(f"{kind}_effect"),
                "dof": row.get("zones_dof") if kind == "zones" else None,
                "test": row.get("zones_test") if kind == "zones" else "energy",
                "method": "cochran" if cochran else "" if method == usual else method,
                "ran": not (is_missing(row.get(kind)) and is_missing(shown)),
            }
        out.append(rec)
    return out


def _lead_columns(
    info: list[dict],
    cat: str | None,
    compared: str,
    headers: Mapping[str, str] | None,
    heading: bool = False,
) -> tuple[list[Column], list[list[str]], list[Any], str]:
    """The name columns (the option or rater of a block, unless a *heading* names it; the
    compared groups, n, the design when it varies), their cells, the block of each
    comparison and the notes on them."""
    columns: list[Column] = []
    if cat is not None and not heading:
        columns.append(Column(_name(cat, headers), "wrap", once="block"))
    columns.append(Column(compared, "wrap", once="item"))
    columns.append(Column("$n$", "right", once="item"))
    designs = {r["design"] for r in info}
    vary = len(designs - {""}) > 1
    if vary:
        columns.append(Column("design", "left", once="item"))
    cells, blocks, notes = [], [], []
    for rec in info:
        row = rec["row"]
        lead = [_tex(row[cat])] if cat is not None and not heading else []
        groups = _groups(rec["groups"])
        if rec["note"]:
            notes.append(_tex(rec["note"]))
            groups += f"$^{{\\mathrm{{{_letter(len(notes))}}}}}$"
        lead += [groups, _count(rec["n"])]
        if vary:
            lead.append(_tex(rec["design"]))
        cells.append(lead)
        blocks.append(row[cat] if cat is not None else None)
    text = "; ".join(f"$^{{\\mathrm{{{_letter(i + 1)}}}}}$ {n}" for i, n in enumerate(notes))
    if not vary and designs - {""}:
        text = f"Design: {latex_text(next(iter(designs - {''})))}." + (f" {text}" if text else "")
    return columns, cells, blocks, text


def _zone_test(test: Any) -> str:
    return _ZONE_TESTS[test] if test in _ZONE_TESTS else _tex(test)


def _letter(i: int) -> str:
    return "abcdefghijklmnopqrstuvwxyz"[(i - 1) % 26]


def _notes(info: list[dict], effect: str, lead: str) -> str:
    """What the abbreviations and marks of a design's table mean (those it shows only)."""
    tests = [r["zones"]["test"] for r in info if r["zones"]["ran"]]
    methods = {r[k]["method"] for r in info for k in ("energy", "zones") if r[k]["ran"]}
    words = []
    if any(r["energy"]["ran"] for r in info):
        words.append(r"$E$: energy statistic of the ($\Delta$, $R$) points")
    words += [_ZONE_WORDS[t] for t in _ZONE_TESTS if t in tests]
    words.append(effect)
    text = "; ".join(words) + ". "
    text += "$p$: permutation (energy) and asymptotic (zones) unless marked"
    text += "".join(f"; {_P_MARKS[m][1]}" for m in _P_MARKS if m in methods) + "."
    return f"{text} {lead}".strip()


def _stacked_rows(
    info: list[dict], cat: str | None, compared: str, headers: Mapping[str, str] | None
) -> tuple[list[Column], list[Row], str]:
    """A design as a column-wide table: each comparison on two rows, energy then zones; the
    option or rater of a block as a heading above it."""
    columns, lead, blocks, lead_notes = _lead_columns(info, cat, compared, headers, True)
    label = _name(cat, headers) if cat is not None else ""
    columns += [
        Column("test", "left"),
        Column("stat.", "num"),
        Column("dof", "right"),
        Column("$p$", "num"),
        Column("effect", "num"),
    ]
    rows = []
    for i, rec in enumerate(info):
        for kind in ("energy", "zones"):
            t = rec[kind]
            if not t["ran"]:
                continue
            name = "$E$" if kind == "energy" else _zone_test(t["test"])
            cells = [*lead[i], name, _stat(t["stat"]), _count(t["dof"]), t["p"], _stat(t["effect"])]
            heading = f"{label}: {_tex(blocks[i])}" if cat is not None else ""
            rows.append(Row(cells, block=blocks[i], item=i, heading=heading))
    effect = (
        "effect: between-group share of the energy dispersion ($E$; within keys when matched); "
        "zones: Cram\\'er's $V$ ($\\chi^2$) or the share of the within-key zone variation "
        "(SM, MH)"
    )
    return columns, rows, _notes(info, effect, lead_notes)


def _side_rows(
    info: list[dict], cat: str | None, compared: str, headers: Mapping[str, str] | None
) -> tuple[list[Column], list[Row], str]:
    """A design as a text-wide table: the energy and the zone test side by side."""
    columns, lead, blocks, lead_notes = _lead_columns(info, cat, compared, headers)
    energy = any(r["energy"]["ran"] for r in info)
    zones = any(r["zones"]["ran"] for r in info)
    if energy:
        columns += [
            Column("$E$", "num", "energy"),
            Column("$p$", "num", "energy"),
            Column("share", "num", "energy"),
        ]
    if zones:
        columns += [
            Column("test", "left", "zones"),
            Column("stat.", "num", "zones"),
            Column("dof", "right", "zones"),
            Column("$p$", "num", "zones"),
            Column("effect", "num", "zones"),
        ]
    rows = []
    for i, rec in enumerate(info):
        cells = list(lead[i])
        e, z = rec["energy"], rec["zones"]
        if energy:
            cells += [_stat(e["stat"]), e["p"], _stat(e["effect"])]
        if zones:
            test = _zone_test(z["test"]) if z["ran"] else ""
            cells += [test, _stat(z["stat"]), _count(z["dof"]), z["p"], _stat(z["effect"])]
        rows.append(Row(cells, block=blocks[i], item=i))
    effect = (
        "share: between-group share of the energy dispersion (within keys when matched); "
        "effect: Cram\\'er's $V$ ($\\chi^2$) or the share of the within-key zone variation "
        "(SM, MH)"
    )
    return columns, rows, _notes(info, effect, lead_notes)


def proportions_latex(
    proportions: pd.DataFrame,
    settings: Mapping[str, Any] | None = None,
    *,
    width: str = "column",
    headers: Mapping[str, str] | None = None,
) -> str:
    """Quality proportions per rater (and per rater × option) as booktabs tables.

    Parameters
    ----------
    proportions : DataFrame
        ``AnalysisResult.proportions`` (tidy: ``expert``, ``category``,
        ``option``, ``quality``, ``count``, ``n``, ``share``).
    settings : mapping, optional
        ``AnalysisResult.settings`` (thresholds go into the caption).
    width : {"column", "text"}, default "column"
        A ``table`` at most a column wide, or a ``table*`` at most the text block.
    headers : mapping, optional
        Category column → its header in the ratings file (else the name with
        spaces for underscores).

    Returns
    -------
    str
        One table per category: percentages aligned, the count in brackets.

    Examples
    --------
    >>> import rrmap
    >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by="modality",
    ...                     n_perm=9, rng=0)
    >>> tex = proportions_latex(res.proportions, res.settings)
    >>> tex.count("\\\\begin{table}"), "excellent} & \\\\multicolumn{2}{c}{fair}" in tex
    (2, True)
    """
    wide = _check_width(width)
    parts = ["% rrmap quality proportions; needs \\usepackage{booktabs}\n"]
    th = (settings or {}).get("thresholds") or {}
    zones = (
        f" Zones: excellent BC $> {th['excellent_bc']:g}$, stereotype and fair "
        f"$|\\Delta| < {th['delta_bound']:g}$ with $R < {th['stereotype_r']:.4g}$ and "
        f"${th['stereotype_r']:.4g} \\le R \\le {th['fair_r']:.4g}$."
        if th
        else ""
    )
    several = "query" in proportions.columns
    groups = ["query", "category"] if several else ["category"]
    for name, part in proportions.groupby(groups, sort=False):
        corpus, category = name if several else (None, name[0] if isinstance(name, tuple) else name)
        keys = ["expert"] if category == "all" else ["expert", "option"]
        table = (
            part.groupby([*keys, "n", "quality"], sort=True, observed=True)["count"]
            .sum()
            .unstack("quality")
            .reset_index()
        )
        # per rater and option, a column wide: the rater as a heading above its block
        heading = category != "all" and not wide
        columns = [] if heading else [Column("rater", "wrap", once="block")]
        if category != "all":
            columns.append(Column(_name(str(category), headers), "wrap"))
        columns += [Column("$n$"), *(Column(q, "num") for q in QUALITY_LEVELS)]
        rows = []
        for rec in table.to_dict("records"):  # plain values, not a Series per row
            n = int(rec["n"])
            cells: list[Any] = [latex_text(rec[k]) for k in keys[heading:]] + [str(n)]
            for q in QUALITY_LEVELS:
                c = int(rec[q]) if q in table.columns and not pd.isna(rec[q]) else 0
                cells.append(Num(f"{100 * c / n:.0f}", f"\\,({c})") if n else Num(""))
            rater = f"rater: {latex_text(rec['expert'])}" if heading else ""
            rows.append(Row(cells, block=rec["expert"], item=len(rows), heading=rater))
        what = "per rater" if category == "all" else f"per rater and {_name(category, headers)}"
        of = f" of the query corpus {latex_text(corpus)}" if several else ""
        caption = (
            f"Share of the RRMap points{of} in each quality zone {what}: percent, the count "
            f"in brackets.{zones}"
        )
        label = "tab:rrmap-proportions" + (
            "" if category == "all" else f"-{_slug(str(category)).replace(' ', '-')}"
        )
        if several:
            label += "-" + "-".join(_slug(str(corpus)).split())
        parts.append(
            render_floats(columns, rows, caption=caption, label=label, wide=wide, limit=_LONG)
        )
    return "\n".join(parts)


def agreement_latex(
    summary: pd.DataFrame, n_comparisons: int | None = None, *, width: str = "column"
) -> str:
    """Pointwise agreement across raters (``AnalysisResult.agreement_summary``) as a table.

    Each pattern (all agree, all different, partial, incomplete) is a block:
    its total, then the zones or the rater pairs it holds.

    Examples
    --------
    >>> import rrmap
    >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=9, rng=0)
    >>> print([ln for ln in agreement_latex(res.agreement_summary).splitlines()
    ...        if "(total)" in ln][0])
    \\raggedright\\hspace{0pt}all agree & \\raggedright\\hspace{0pt}(total) & 8 & 6\\,\\% \\\\
    """
    wide = _check_width(width)
    if "query" in summary.columns:  # several query corpora: one table each
        head = "% rrmap pointwise agreement; needs \\usepackage{booktabs}\n"
        corpus = summary["query"].astype(str)
        return head + "\n".join(
            _agreement_float(summary[corpus == q].drop(columns="query"), None, wide, q)
            for q in dict.fromkeys(corpus)
        )
    return "% rrmap pointwise agreement; needs \\usepackage{booktabs}\n" + _agreement_float(
        summary, n_comparisons, wide, None
    )


def _agreement_float(
    summary: pd.DataFrame, n_comparisons: int | None, wide: bool, corpus: str | None
) -> str:
    """The table of :func:`agreement_latex` (of one query corpus of several)."""
    s = summary[(summary["count"] > 0) | (summary["detail"] == "")]
    columns = [
        Column("pattern", "wrap", once="block"),
        Column("detail", "wrap"),
        Column("count"),
        Column("share"),
    ]
    rows = []
    for pattern, detail, count, share in zip(
        s["pattern"], s["detail"], s["count"].astype(int), s["share"].astype(float), strict=True
    ):
        shown = "(total)" if detail == "" else latex_text(str(detail).replace("|", " = "))
        pct = "" if math.isnan(share) else f"{100 * share:.0f}\\,\\%"
        rows.append(Row([latex_text(pattern), shown, str(count), pct], block=pattern))
    total = (
        n_comparisons
        if n_comparisons is not None
        else int(summary.loc[summary["detail"] == "", "count"].sum())
    )
    of = f" of the query corpus {latex_text(corpus)}" if corpus is not None else ""
    caption = (
        f"Pointwise agreement across raters over {total} comparisons{of}: all raters in the "
        "same zone (and which), all in different zones, or two raters agreeing (the pair)."
    )
    for i, row in enumerate(rows):
        row.item = i
    label = "tab:rrmap-agreement"
    if corpus is not None:
        label += "-" + "-".join(_slug(corpus).split())
    return render_floats(columns, rows, caption=caption, label=label, wide=wide, limit=_LONG)


def result_latex(result: Any, table: str, *, width: str = "column") -> str:
    """One table of an analysis as booktabs LaTeX, at *width* (``"column"`` or ``"text"``).

    As ``AnalysisResult.latex`` with the choice of width; categories are named as in
    the ratings file when the result's points carry its headers.

    Examples
    --------
    >>> import rrmap
    >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=9, rng=0)
    >>> "\\\\begin{table*}" in result_latex(res, "proportions", width="text")
    True
    """
    _check_width(width)
    headers = _headers(getattr(result, "points", None))
    if table == "tests":
        return tests_latex(result.tests, result.settings, result=result, width=width)
    if table == "proportions":
        return proportions_latex(result.proportions, result.settings, width=width, headers=headers)
    if table == "agreement":
        if result.agreement.empty:
            note = result.settings.get("agreement", "no pointwise agreement table")
            return f"% rrmap pointwise agreement: {note}\n"
        return agreement_latex(result.agreement_summary, len(result.agreement), width=width)
    raise InputError(f"table must be tests, proportions or agreement, got {table!r}")


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
