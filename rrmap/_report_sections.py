"""The sections of the markdown report after the tests (report.md): quality proportions,
pointwise agreement, reliability, what was left out of the ratings, and the settings."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from rrmap._escape import markdown_text
from rrmap._markdown import markdown_table
from rrmap.zones import QUALITY_LEVELS

if TYPE_CHECKING:  # pragma: no cover
    from rrmap.analysis import AnalysisResult


def proportions_section(result: AnalysisResult) -> str:
    props = result.proportions
    overall = props[props["category"] == "all"]
    table = pd.DataFrame({"rater": overall["expert"].astype(str).unique()})
    by_rater = overall.groupby(overall["expert"].astype(str), sort=False)
    table["n"] = [int(g["n"].iloc[0]) for _, g in by_rater]
    has_ci = "ci_low" in overall.columns
    for lv in QUALITY_LEVELS:
        cells = []
        for _, g in by_rater:
            row = g[g["quality"].astype(str) == lv]
            if row.empty:
                cells.append("")
                continue
            text = f"{100 * row['share'].iloc[0]:.0f} %"
            if has_ci and pd.notna(row["ci_low"].iloc[0]):
                text += f" [{100 * row['ci_low'].iloc[0]:.0f}, {100 * row['ci_high'].iloc[0]:.0f}]"
            cells.append(text)
        table[lv] = cells
    return (
        "## Quality proportions per rater\n\n"
        "Share of each rater's points in each quality zone, with its Wilson 95 % interval "
        "(per category option: `proportions.csv`).\n\n" + markdown_table(table)
    )


def reliability_section(result: AnalysisResult) -> str:
    rel = getattr(result, "reliability", None)
    head = "## Reliability\n\n"
    if rel is None or rel.empty:
        return head + "Not computed: reliability needs at least two raters."
    names = {
        "krippendorff_alpha": "Krippendorff's α",
        "fleiss_kappa": "Fleiss' κ",
        "cohens_kappa": "Cohen's κ",
    }
    table = pd.DataFrame(
        {
            "raters": rel["raters"].to_numpy(),
            "measure": [names.get(m, m) for m in rel["measure"]],
            "variable": rel["variable"].to_numpy(),
            "value": [_num(v) for v in rel["value"]],
            "95 % interval": [
                "" if pd.isna(lo) else f"[{_num(lo)}, {_num(hi)}]"
                for lo, hi in zip(rel["ci_low"], rel["ci_high"], strict=True)
            ],
            "keys": rel["n_units"].astype(int).to_numpy(),
        }
    )
    boot = result.settings.get("bootstrap")
    return head + (
        "Agreement beyond chance between the raters on the same comparison keys: "
        "Krippendorff's α on the zones (nominal) and on Δ and R (interval), Fleiss' κ "
        "(all raters) and Cohen's κ (pairs) on the zones; 1 is perfect agreement, 0 what "
        "chance alone gives, below 0 systematic disagreement. Intervals: percentile "
        f"bootstrap over keys ({boot} resamples). Per rater set: `reliability.csv`.\n\n"
        + markdown_table(table)
    )


def _num(v: float) -> str:
    return "" if pd.isna(v) else f"{v:.3f}"


def agreement_section(result: AnalysisResult) -> str:
    if result.agreement.empty:
        note = result.settings.get("agreement", "no pointwise agreement table")
        return f"## Pointwise agreement\n\n{markdown_text(note)}."
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


def settings_section(result: AnalysisResult, figures: Sequence[str]) -> str:
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
        f"- z: {s.get('z')}, coverage: {s.get('coverage')}",
        "- zone thresholds: " + ", ".join(f"{k} = {v:.6g}" for k, v in th.items()),
        f"- rrmap {s['rrmap_version']}",
    ]
    return "\n".join(lines)
