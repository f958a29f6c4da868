"""How the reports write p-values and name tests and columns (report.md, report.html,
the terminal summary): shared by the report and its sections."""

from __future__ import annotations

import numpy as np
import pandas as pd

from rrmap.stats.settings import ALPHA as _ALPHA

__all__ = [
    "LEGEND",
    "MEASURE_NAMES",
    "P_METHODS",
    "ZONE_TESTS",
    "column_lists",
    "format_fixed",
    "format_pvalue",
    "is_missing",
    "is_pvalue_column",
    "reliability_display",
    "zone_shares",
]

#: How the reports name the measures of the reliability table (its ``measure`` column).
MEASURE_NAMES = {
    "krippendorff_alpha": "Krippendorff's α",
    "krippendorff_alpha_ordinal": "Krippendorff's α (ordinal)",
    "fleiss_kappa": "Fleiss' κ",
    "cohens_kappa": "Cohen's κ",
}


def format_fixed(v: float, digits: int = 3) -> str:
    """*v* with *digits* decimals, without the minus sign of a value that rounds to zero.

    A reliability of −0.0002 reads "0.000", not "-0.000": at the precision shown it is
    zero, and a signed zero looks like a typesetting error. The tables' CSV files keep
    the value itself.

    Parameters
    ----------
    v : float
        The value (NaN gives an empty string).
    digits : int, default 3

    Returns
    -------
    str

    Examples
    --------
    >>> format_fixed(-0.00023), format_fixed(-0.0005), format_fixed(0.1316)
    ('0.000', '-0.001', '0.132')
    >>> format_fixed(float("nan")), format_fixed(-0.04, digits=1)
    ('', '0.0')
    """
    if pd.isna(v):
        return ""
    shown = f"{v:.{digits}f}"
    return shown[1:] if shown.startswith("-") and float(shown) == 0.0 else shown


def reliability_display(rel: pd.DataFrame) -> pd.DataFrame:
    """The reliability table as both reports show it: measures named, values and interval
    ends with three decimals (:func:`format_fixed`), the keys counted.

    Parameters
    ----------
    rel : DataFrame
        ``AnalysisResult.reliability`` (``raters``, ``measure``, ``variable``, ``value``,
        ``ci_low``, ``ci_high``, ``n_units``; ``query`` with several query corpora).

    Returns
    -------
    DataFrame
        Text cells, but ``keys``; labels as given (each report escapes them).

    Examples
    --------
    >>> rel = pd.DataFrame({"raters": ["E1|E2"], "measure": ["cohens_kappa"],
    ...                     "variable": ["zone"], "value": [-0.0002], "ci_low": [-0.06],
    ...                     "ci_high": [0.1], "n_units": [135]})
    >>> reliability_display(rel).to_dict("records")[0]  # doctest: +NORMALIZE_WHITESPACE
    {'raters': 'E1|E2', 'measure': "Cohen's κ", 'variable': 'zone', 'value': '0.000',
     '95 % interval': '[-0.060, 0.100]', 'keys': 135}
    """
    return pd.DataFrame(
        {
            **({"query corpus": rel["query"].astype(str)} if "query" in rel.columns else {}),
            "raters": rel["raters"].astype(str),
            "measure": [MEASURE_NAMES.get(m, m) for m in rel["measure"]],
            "variable": rel["variable"],
            "value": [format_fixed(v) for v in rel["value"]],
            "95 % interval": [
                "" if pd.isna(lo) else f"[{format_fixed(lo)}, {format_fixed(hi)}]"
                for lo, hi in zip(rel["ci_low"], rel["ci_high"], strict=True)
            ],
            "keys": rel["n_units"].astype(int),
        }
    )


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
    if is_missing(p):
        return ""
    text = f"{p:.3g}"
    return f"**{text}**" if p < alpha else text


#: Short names of the zone tests in the report's tables.
ZONE_TESTS = {"chi2": "χ²", "stuart_maxwell": "SM", "marginal_homogeneity": "MH"}

#: How a p-value was obtained, as a suffix in the report (asymptotic ones have none).
P_METHODS = {"monte_carlo": "MC", "exact": "exact", "permutation": "perm."}


def is_pvalue_column(col: str) -> bool:
    """Whether a :func:`design_frame` column holds p-values (raw or adjusted).

    Examples
    --------
    >>> is_pvalue_column("energy_p"), is_pvalue_column("zones_p_holm"), is_pvalue_column("zones")
    (True, True, False)
    """
    return col.endswith("_p") or "_p_" in col


def _method_suffix(method: str, p: float, usual: str) -> str:
    """`` (MC)``, `` (exact)`` or `` (perm.)`` after a p-value obtained otherwise than
    *usual* (permutation for energy tests, asymptotic for zone tests)."""
    if not method or method == usual or pd.isna(p):
        return ""
    return f" ({P_METHODS.get(method, method)})"


def _label(col: str) -> str:
    names = {
        "energy": "E",
        "energy_p": "p (energy)",
        "energy_effect": "E share",
        "zones": "statistic",
        "zones_p": "p (zones)",
        "zones_effect": "zone effect",
    }
    if col in names:
        return names[col]
    kind, _, method = col.partition("_p_")
    method = {"holm": "Holm", "fdr_bh": "BH"}.get(method, method)
    return f"p {method} ({'energy' if kind == 'energy' else 'zones'})"


#: What the columns of the design tables mean (report and terminal summary).
LEGEND = (
    "E: energy statistic of the (Δ, R) points; E share: between-group share of their energy "
    "dispersion, within keys for a matched test (0 = alike). Zone tests on the quality "
    "levels: χ² (independent samples), SM = Stuart–Maxwell (two matched raters), MH = "
    "within-key permutation test of marginal homogeneity (more matched raters); zone effect: "
    "Cramér's V of the groups × zones table (χ²), or the share of the within-key zone "
    "variation the groups explain (SM, MH). "
    "p-values are permutation p-values for energy and asymptotic for zones unless marked "
    "(MC = Monte Carlo, exact, perm. = permutation)."
)


def zone_shares(
    overall: pd.DataFrame, keys: list[str], sep: str
) -> dict[tuple[str, ...], tuple[int, dict[str, str]]]:
    """Each rater's n and the text of its share of each zone ("31 %", with its Wilson
    interval "[24<sep>39]" where the table has one), from the rows of the proportions
    table over all options; raters (named by the columns *keys*) in order of appearance.
    One pass over the rows as lists (no groupby, no row Series).

    Examples
    --------
    >>> t = pd.DataFrame({"expert": ["E1", "E1"], "n": [10, 10], "quality": ["fair", "bad"],
    ...                   "share": [0.3, 0.7], "ci_low": [0.1, 0.4], "ci_high": [0.6, 0.9]})
    >>> zone_shares(t, ["expert"], "–")
    {('E1',): (10, {'fair': '30 % [10–60]', 'bad': '70 % [40–90]'})}
    """
    ci = "ci_low" in overall.columns
    nan = [np.nan] * len(overall)
    rows = zip(
        zip(*(overall[k].astype(str).tolist() for k in keys), strict=True),
        overall["n"].tolist(),
        overall["quality"].astype(str).tolist(),
        overall["share"].tolist(),
        overall["ci_low"].tolist() if ci else nan,
        overall["ci_high"].tolist() if ci else nan,
        strict=True,
    )
    raters: dict[tuple[str, ...], tuple[int, dict[str, str]]] = {}
    for name, n, quality, share, low, high in rows:
        zones = raters.setdefault(name, (int(n), {}))[1]
        if quality in zones:  # a rater's first row of each zone
            continue
        text = f"{100 * share:.0f} %"
        if ci and pd.notna(low):
            text += f" [{100 * low:.0f}{sep}{100 * high:.0f}]"
        zones[quality] = text
    return raters


def is_missing(v: object) -> bool:
    """``pd.isna`` of one value, without its cost for the plain floats of a table's cells.

    Examples
    --------
    >>> is_missing(float("nan")), is_missing(None), is_missing(pd.NA), is_missing(0.5)
    (True, True, True, False)
    """
    if v is None or v is pd.NA:
        return True
    if type(v) is float:
        return v != v
    return bool(pd.isna(v))


def column_lists(columns: list[object]) -> tuple[list[bool], list[list[object]]]:
    """Whether each column of a table given as columns is numeric (a NumPy array of a
    numeric dtype; a list holds text), and its values as a Python list.

    Examples
    --------
    >>> column_lists([["E1"], np.array([12])])
    ([False, True], [['E1'], [12]])
    """
    numeric = [isinstance(v, np.ndarray) and v.dtype.kind in "biufc" for v in columns]
    values = [v.tolist() if isinstance(v, np.ndarray) else list(v) for v in columns]
    return numeric, values
