"""The sections of the markdown report after the tests (report.md): quality proportions,
pointwise agreement, reliability, what was left out of the ratings, and the settings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from rrmap._util.escape import markdown_text
from rrmap._util.markdown import markdown_table
from rrmap.report.format import reliability_display, zone_shares
from rrmap.zones import QUALITY_LEVELS

if TYPE_CHECKING:  # pragma: no cover
    from rrmap.report.protocol import Result


def proportions_section(result: Result) -> str:
    props = result.proportions
    overall = props[props["category"] == "all"]
    keys = ["query", "expert"] if "query" in overall.columns else ["expert"]
    raters = zone_shares(overall, keys, ", ")
    table = pd.DataFrame(
        list(raters),
        columns=["query corpus", "rater"] if len(keys) == 2 else ["rater"],
    )
    table["n"] = [int(n) for n, _ in raters.values()]
    for lv in QUALITY_LEVELS:
        table[lv] = [zones.get(lv, "") for _, zones in raters.values()]
    head = "per query corpus and rater" if len(keys) == 2 else "per rater"
    return (
        f"## Quality proportions {head}\n\n"
        "Share of each rater's points in each quality zone, with its Wilson 95 % interval "
        "(per category option: `proportions.csv`).\n\n" + markdown_table(table)
    )


def reliability_section(result: Result) -> str:
    rel = getattr(result, "reliability", None)
    head = "## Reliability\n\n"
    if rel is None or rel.empty:
        return head + "Not computed: reliability needs at least two raters."
    table = reliability_display(rel)
    boot = result.settings.get("bootstrap")
    return head + (
        "Agreement beyond chance between the raters on the same comparison keys: "
        "Krippendorff's α on the zones (nominal and ordinal) and on Δ and log R "
        "(interval; R is a ratio, so α is on its log), Fleiss' κ (all raters) and "
        "Cohen's κ (pairs) on the zones; 1 is perfect agreement, 0 what chance alone "
        "gives, below 0 systematic disagreement. Intervals: bootstrap over "
        f"keys ({boot} resamples), studentized for α on Δ and log R, BCa for the zones "
        "and κ (`ci_method` in `reliability.csv`). Per rater set: `reliability.csv`.\n\n"
        + markdown_table(table)
    )


def agreement_section(result: Result) -> str:
    if result.agreement.empty:
        note = result.settings.get("agreement", "no pointwise agreement table")
        return f"## Pointwise agreement\n\n{markdown_text(note)}."
    s = result.agreement_summary.copy()
    s = s[(s["count"] > 0) | (s["detail"] == "")]
    table = pd.DataFrame(
        {
            **({"query corpus": s["query"]} if "query" in s.columns else {}),
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


def settings_section(result: Result, figures: Sequence[str]) -> str:
    s = result.settings
    th = s.get("thresholds") or {}
    mc = s.get("chi2_monte_carlo")
    lines = [
        "## Settings",
        "",
        f"- input: {markdown_text(s.get('input'))}"
        + (
            f" (SHA-256 of the {s['input_hashed']}: `{s['input_sha256']}`)"
            if s.get("input_sha256")
            else ""
        ),
        f"- seed: {s['seed']}"
        + (f" ({s['seed_source']})" if s.get("seed_source", "given") != "given" else ""),
        f"- design of the expert-effect tests: {s.get('design', 'independent')}",
        f"- permutations per energy test: at most {s['permutations']}"
        + (
            f" (sequential: a test stops once {s['stop_hits']} of them reached its statistic)"
            if s.get("stop_hits")
            else ""
        ),
        "- zone p-values: "
        + (
            f"Monte Carlo (fixed margins) or permutation, {mc} draws at most, "
            + (
                "for every test"
                if s.get("chi2_monte_carlo_all")
                else "where the asymptotic χ² is unreliable (Cochran's rule)"
            )
            if mc
            else "asymptotic χ² distribution, no continuity correction"
        ),
        f"- p-value adjustment: {s['p_adjust']}"
        + (
            " (within each family: a k-sample test and its pairs)"
            if s["p_adjust"] != "none"
            else ""
        ),
        f"- categories tested: {', '.join(markdown_text(c) for c in s['by']) or '(none)'}",
        f"- reference corpus: {markdown_text(s.get('reference'))}; query corpora: "
        + ", ".join(markdown_text(q) for q in s.get("queries") or [s.get("query")]),
        f"- z: {s.get('z')}, coverage: {s.get('coverage')}",
        "- zone thresholds: " + ", ".join(f"{k} = {v:.6g}" for k, v in th.items()),
        f"- rrmap {s['rrmap_version']}",
    ]
    return "\n".join(lines)


# --- several query corpora ------------------------------------------------------------


def _subset_name(within: str) -> str:
    """``all points``, ``rater E1``, ``movement: cubism`` for a ``within`` label."""
    from rrmap._util.labels import split_within

    if within == "all":
        return "all points"
    col, value = split_within(within)
    return f"rater {value}" if col == "expert" else f"{col}: {value}"


def generator_comparison(result: Result) -> pd.DataFrame:
    """One row per subset of a study of several query corpora (all points, each rater,
    each option of each tested category): each corpus's match share (excellent or fair)
    with its Wilson interval, the corpus with the largest share, and the p-values of the
    generator-effect tests of that subset (adjusted, when the run adjusts).

    Returns an empty frame for a study of one query corpus.

    Examples
    --------
    >>> import rrmap
    >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(generators=2), by=["movement"],
    ...                     n_perm=999, rng=0)
    >>> tab = generator_comparison(res)
    >>> tab[["subset", "closer"]].head(2).values.tolist()
    [['all points', 'gen-B'], ['rater E1', 'gen-B']]
    """
    key = (id(result.tests), len(result.tests), id(result.points))
    cached = getattr(result, "_generator_comparison", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    frame = _generator_comparison(result)
    try:
        result._generator_comparison = (key, frame)  # type: ignore[union-attr]
    except AttributeError:  # pragma: no cover - an object that takes no attributes
        pass
    return frame


def _generator_comparison(result: Result) -> pd.DataFrame:
    """:func:`generator_comparison`, computed."""
    from rrmap._util.escape import join_groups
    from rrmap.points import query_corpora
    from rrmap.tables import match_shares

    pts = result.points
    if "query" not in pts.columns:
        return pd.DataFrame()
    corpora = query_corpora(pts)
    shares = match_shares(pts, by=list(result.settings.get("by", [])))
    tests = result.tests
    tests = tests[(tests["by"] == "query") & (tests["groups"] == join_groups(sorted(corpora)))]
    method = result.settings.get("p_adjust", "none")
    pcol = f"pvalue_{method}" if f"pvalue_{method}" in tests.columns else "pvalue"
    energy = tests["test"] == "energy"
    p_energy = dict(zip(tests.loc[energy, "within"], tests.loc[energy, pcol], strict=True))
    p_zones = dict(zip(tests.loc[~energy, "within"], tests.loc[~energy, pcol], strict=True))
    within = list(dict.fromkeys(shares["within"]))
    out = pd.DataFrame({"within": within, "subset": [_subset_name(w) for w in within]})
    by_corpus = {q: part.set_index("within").reindex(within) for q, part in
                 shares.groupby("query", sort=False)}  # fmt: skip
    for q in corpora:
        part = by_corpus[q]
        out[q] = part["share"].to_numpy()
        out[f"{q}_low"], out[f"{q}_high"] = part["ci_low"].to_numpy(), part["ci_high"].to_numpy()
        out[f"{q}_n"] = part["n"].to_numpy()
    values = out[corpora].to_numpy(dtype=float)
    best = np.nanmax(values, axis=1, initial=-1.0)
    leaders = values == best[:, None]
    out["closer"] = [corpora[int(np.argmax(row))] if row.sum() == 1 else "tie" for row in leaders]
    out["energy_p"] = [float(p_energy.get(w, np.nan)) for w in within]
    out["zones_p"] = [float(p_zones.get(w, np.nan)) for w in within]
    return out


def generator_display(
    frame: pd.DataFrame, corpora: Sequence[str], bold: Any, text: Any = str
) -> pd.DataFrame:
    """:func:`generator_comparison` as the reports show it: shares as ``54 % [49, 59]``,
    p-values with 3 digits, those below 0.05 through *bold*, names through *text*."""
    from rrmap.report.format import _ALPHA

    out = pd.DataFrame({"subset": [text(s) for s in frame["subset"]]})
    for q in corpora:
        out[text(q)] = [
            "" if pd.isna(v) else f"{100 * v:.0f} % [{100 * lo:.0f}, {100 * hi:.0f}]"
            for v, lo, hi in zip(frame[q], frame[f"{q}_low"], frame[f"{q}_high"], strict=True)
        ]
    out["closer"] = [text(c) for c in frame["closer"]]
    for kind in ("energy", "zones"):
        out[f"p ({kind})"] = [
            "" if pd.isna(p) else (bold(f"{p:.3g}") if p < _ALPHA else f"{p:.3g}")
            for p in frame[f"{kind}_p"]
        ]
    return out


def generator_sentences(result: Result, text: Any = str) -> list[str]:
    """The generator comparison in sentences: each corpus's match share overall, and
    where the generator effect passes 0.05 (names through *text*)."""
    frame = generator_comparison(result)
    if frame.empty:
        return []
    from rrmap.points import query_corpora

    corpora = query_corpora(result.points)
    first = frame.iloc[0]
    shares = ", ".join(
        f"{text(q)} on {100 * first[q]:.0f} % [{100 * first[f'{q}_low']:.0f}, "
        f"{100 * first[f'{q}_high']:.0f}] of its points"
        for q in corpora
    )
    passing = frame[(frame["energy_p"] < 0.05) | (frame["zones_p"] < 0.05)]
    where = [
        f"{text(s)} ({text(c)} closer)"
        for s, c in zip(passing["subset"], passing["closer"], strict=True)
        if s != "all points"
    ]
    overall = (
        "passes"
        if len(passing) and passing["subset"].iloc[0] == "all points"
        else ("does not pass")
    )
    adjusted = result.settings.get("p_adjust", "none") != "none"
    return [
        f"{len(corpora)} query corpora ({', '.join(text(q) for q in corpora)}) against the "
        f"reference {text(result.settings.get('reference'))}: each matches it (excellent or "
        f"fair) — {shares}.",
        f"The generator effect (matched on rater and key) {overall} p < 0.05"
        + (" (adjusted)" if adjusted else "")
        + " on all points"
        + (
            f", and passes in {len(where)} of {len(frame) - 1} subsets: " + "; ".join(where)
            if where
            else f", and in none of the {len(frame) - 1} subsets"
        )
        + ".",
    ]


def generator_section(result: Result) -> str:
    """The report's opening section in a study of several query corpora."""
    from rrmap.points import query_corpora

    frame = generator_comparison(result)
    if frame.empty:
        return ""
    corpora = query_corpora(result.points)
    shown = generator_display(frame, corpora, lambda t: f"**{t}**", markdown_text)
    shown.columns = [markdown_text(c) for c in shown.columns]
    return (
        "## Generator comparison\n\n"
        + "\n\n".join(generator_sentences(result, markdown_text))
        + "\n\nShare of each corpus's points that match the reference (excellent or fair), "
        "with its Wilson 95 % interval; *closer*: the corpus with the larger share; p: the "
        "generator-effect tests of the subset (energy on the points, zones by "
        + ("Stuart–Maxwell" if len(corpora) == 2 else "the within-key permutation test")
        + "), p < 0.05 in **bold**. The tests compare the whole distributions of the "
        "points, so a subset can pass with similar match shares.\n\n"
        + markdown_table(shown, escape=False)
    )


def left_out_section(result: Result) -> str:
    """What the ratings file held that the analysis left out: rows of query corpora not
    named, and rows dropped as blank or unpaired (``drop_incomplete``)."""
    s = result.settings
    lines = []
    for value, n in (s.get("excluded") or {}).items():
        lines.append(
            f"- {n} row{'s' if n != 1 else ''} of the query corpus {markdown_text(value)}: "
            "not among the corpora named (query=, --query)"
        )
    dropped = s.get("dropped") or {}
    if dropped.get("rows"):
        shown = dropped.get("lines", [])
        listed = ", ".join(str(n) for n in shown[:100]) + (" …" if len(shown) > 100 else "")
        lines.append(
            f"- {dropped['rows']} row{'s' if dropped['rows'] != 1 else ''} dropped "
            f"(--drop-incomplete): {dropped.get('blank', 0)} with a blank interval bound, "
            f"{dropped.get('unpaired', 0)} without a partner interval; lines {listed}"
        )
        lines += [f"  - {markdown_text(k)}" for k in dropped.get("unpaired_keys", [])]
    if not lines:
        return ""
    return "## Left out of the ratings\n\n" + "\n".join(lines)
