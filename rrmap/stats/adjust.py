"""Adjusted p-values within each family of tests (docs/tests.md).

A family is one k-sample test and its pairwise follow-ups: the rows of a
tests table sharing the kind of test (energy, or a zone test: χ²,
Stuart–Maxwell or marginal homogeneity), ``by`` and ``within``. Holm's step-down and
Benjamini–Hochberg's FDR adjustment are the closed forms of
:func:`statsmodels.stats.multitest.multipletests` (``"holm"``, ``"fdr_bh"``;
the tests check them against it), written out because importing
statsmodels alone takes most of a second. ``"gatekept"`` is the serial gatekeeping
procedure: the k-sample test at the full level, then Holm over the pairs, reported only
where the k-sample test rejects (a closed testing procedure: it controls the family-wise
error rate of the whole family in the strong sense). :func:`study_pvalues` is
Benjamini–Hochberg over every test of a run (``pvalue_study``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rrmap.errors import InputError
from rrmap.stats.settings import P_ADJUST_METHODS

__all__ = [
    "ADJUST_NAMES",
    "P_ADJUST_METHODS",
    "adjust_pvalues",
    "adjusted",
    "adjusted_columns",
    "smallest_rejectable",
    "study_pvalues",
    "test_kind",
]

#: How the reports name each adjustment.
ADJUST_NAMES = {
    "holm": "Holm",
    "fdr_bh": "Benjamini–Hochberg",
    "gatekept": "gatekept (k-sample test first, then Holm over its pairs)",
    "none": "no",
}

#: Why a pair has no gatekept p-value.
GATE_CLOSED = "gatekept: not tested, the k-sample test did not reject at 0.05"


def adjusted(pvalues: np.ndarray, method: str) -> np.ndarray:
    """Holm (``"holm"``) or Benjamini–Hochberg (``"fdr_bh"``) adjusted p-values.

    Holm: ``p̃_(i) = max_{j ≤ i} min(1, (m − j + 1) p_(j))``;
    BH: ``p̃_(i) = min_{j ≥ i} min(1, m p_(j) / j)`` (``p_(1) ≤ … ≤ p_(m)``).

    Examples
    --------
    >>> adjusted(np.array([0.01, 0.04, 0.03]), "holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    >>> adjusted(np.array([0.01, 0.04, 0.03]), "fdr_bh").round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    p = np.asarray(pvalues, dtype=float)
    m = len(p)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    rank = np.arange(1, m + 1)
    if method == "holm":
        adj = np.maximum.accumulate(np.minimum(1.0, (m - rank + 1) * ranked))
    elif method == "fdr_bh":
        adj = np.minimum.accumulate(np.minimum(1.0, ranked / (rank / m))[::-1])[::-1]
    else:
        raise InputError(f"p_adjust must be holm or fdr_bh here, got {method!r}")
    out = np.empty(m)
    out[order] = adj
    return out


def adjusted_columns(columns) -> list[str]:
    """The family-adjusted p-value columns among *columns* (``pvalue_holm``,
    ``pvalue_fdr_bh``, ``pvalue_gatekept``): not ``pvalue_mid`` nor ``pvalue_study``.

    Examples
    --------
    >>> adjusted_columns(["pvalue", "pvalue_holm", "pvalue_mid", "pvalue_study"])
    ['pvalue_holm']
    """
    names = {f"pvalue_{m}" for m in P_ADJUST_METHODS if m != "none"}
    return [c for c in columns if c in names]


def study_pvalues(pvalues: np.ndarray) -> np.ndarray:
    """Benjamini–Hochberg over every p-value of a run (NaN, skipped tests, left out and
    kept NaN): the false discovery rate of the whole tests table.

    Examples
    --------
    >>> study_pvalues(np.array([0.01, np.nan, 0.04, 0.03])).round(3).tolist()
    [0.03, nan, 0.04, 0.04]
    """
    p = np.asarray(pvalues, dtype=float)
    out = np.full(len(p), np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        out[ok] = adjusted(p[ok], "fdr_bh")
    return out


def smallest_rejectable(family_size: int, method: str, alpha: float = 0.05) -> float:
    """The largest p-value a test can have and still be significant in some family.

    Holm rejects nothing unless the smallest p-value of the family is at most
    ``α / m``, so a family whose p-values are all ``1 / (B + 1)`` rejects only
    if that is at most ``α / m``. Benjamini–Hochberg rejects every test when all
    m p-values are at most ``α`` (its adjusted p-values are then the largest
    of them), so its bound is ``α``, as without adjustment. A permutation
    p-value is at least ``1 / (B + 1)``, so ``B`` must reach ``1 / bound − 1``
    for a test to be able to reject. Gatekept: the pairs are Holm's among themselves,
    ``α / (m − 1)``.

    Examples
    --------
    >>> smallest_rejectable(37, "holm"), smallest_rejectable(37, "fdr_bh")
    (0.0013513513513513514, 0.05)
    >>> smallest_rejectable(37, "gatekept")
    0.001388888888888889
    """
    if method == "holm":
        return alpha / max(1, family_size)
    if method == "gatekept":
        return alpha / max(1, family_size - 1)
    return alpha


def test_kind(test: str) -> str:
    """``"energy"`` for energy tests, ``"zones"`` for the zone tests (χ², Stuart–Maxwell,
    marginal homogeneity): tests of one kind, ``by`` and ``within`` form a family.

    Examples
    --------
    >>> test_kind("energy"), test_kind("stuart_maxwell")
    ('energy', 'zones')
    """
    return "energy" if test == "energy" else "zones"


def adjust_pvalues(
    tests: pd.DataFrame, method: str = "holm", column: str = "pvalue"
) -> pd.DataFrame:
    """Add ``pvalue_<method>``: p-values adjusted within each family of tests.

    A family is one k-sample test and its pairwise follow-ups: the rows
    sharing the kind of test (:func:`test_kind`), ``by`` and ``within`` (and
    ``query``, the query corpus, in a study of several).
    Skipped tests (empty p) are left out. Raw p-values are kept; an existing
    ``pvalue_<method>`` column is computed again.

    Parameters
    ----------
    tests : DataFrame
        A tests table.
    method : {"holm", "fdr_bh", "gatekept", "none"}
        As in :func:`statsmodels.stats.multitest.multipletests` (see
        :func:`adjusted`); ``"gatekept"``: the k-sample test keeps its p-value, each
        pair gets ``max(p of the k-sample test, Holm over the pairs)`` where the k-sample
        test rejects at 0.05, and none elsewhere (``note`` says why); ``"none"`` returns
        *tests* unchanged.
    column : str, default "pvalue"
        The p-values adjusted (``"pvalue_mid"``: the mid-p values).

    Returns
    -------
    DataFrame

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"test": ["chi2"] * 3, "by": ["expert"] * 3,
    ...                   "within": ["all"] * 3, "pvalue": [0.01, 0.04, 0.03]})
    >>> adjust_pvalues(t, "holm")["pvalue_holm"].round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    if method not in P_ADJUST_METHODS:
        raise InputError(f"p_adjust must be one of {list(P_ADJUST_METHODS)}, got {method!r}")
    if method == "none":
        return tests
    col = f"pvalue_{method}"
    out = tests.drop(columns=[col]) if col in tests.columns else tests.copy()
    kind = out["test"].map(test_kind)
    family = [kind, out["by"], out["within"]]
    if "query" in out.columns:
        family.append(out["query"].fillna("").astype(str))
    code = np.zeros(len(out), dtype=np.int64)
    for part in family:  # one number per family, as a factorisation of the columns
        values, uniques = pd.factorize(part.astype(str))
        code, _ = pd.factorize(code * max(len(uniques), 1) + values)
    p = out[column].to_numpy(dtype=float)
    adj = np.full(len(out), np.nan)
    order = np.argsort(code, kind="stable")
    for rows in np.split(order, np.flatnonzero(np.diff(code[order])) + 1):
        if method == "gatekept":
            _gatekept(out, rows, p, adj)
            continue
        rows = rows[~np.isnan(p[rows])]
        if len(rows):
            adj[rows] = adjusted(p[rows], method)
    pos = list(out.columns).index("pvalue") + 1
    if "n_perm" in out.columns:
        pos = list(out.columns).index("n_perm") + 1
    out.insert(pos, col, adj)
    return out


def _gatekept(out: pd.DataFrame, rows: np.ndarray, p: np.ndarray, adj: np.ndarray) -> None:
    """Gatekept p-values of one family, written into *adj*: the k-sample test (the row of
    most groups, when there are more than two) keeps its p-value; the pairs get
    ``max(its p, Holm's)`` where it rejects at 0.05, Holm's alone where it has no p-value
    (skipped), and none where it does not reject (``note`` says so)."""
    if "groups" not in out.columns:
        raise InputError("p_adjust='gatekept' needs the groups column of a tests table")
    if "note" not in out.columns:
        out["note"] = ""
    sizes = out["groups"].iloc[rows].astype(str).str.count(r"\|").to_numpy() + 1
    gate = rows[sizes == sizes.max()] if sizes.max() > 2 else rows[:0]
    pairs = np.setdiff1d(rows, gate)
    adj[gate] = p[gate]
    tested = pairs[~np.isnan(p[pairs])]
    if not len(tested):
        return
    gate_p = p[gate[0]] if len(gate) else np.nan
    if np.isnan(gate_p):  # no k-sample p-value (skipped, or two groups): Holm alone
        adj[tested] = adjusted(p[tested], "holm")
    elif gate_p < 0.05:
        adj[tested] = np.maximum(gate_p, adjusted(p[tested], "holm"))
    else:
        note = out["note"].to_numpy(dtype=object).copy()
        for i in tested:
            note[i] = f"{note[i]}; {GATE_CLOSED}" if note[i] else GATE_CLOSED
        out["note"] = note
