"""χ² tests of Category × Quality contingency tables (paper §2.2.7; docs/tests.md).

Rows are groups (raters or category options), columns the quality levels.
All-zero rows and columns are dropped before testing and the resulting
degrees of freedom reported; no continuity correction. The minimum expected
count and the share of cells with an expected count below 5 say how far the
asymptotic χ² approximation can be trusted; for small tables a Monte Carlo
p-value with both margins fixed is offered (the quality labels are permuted
over the pooled points, which keeps the row and column totals).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from rrmap.errors import InputError
from rrmap.limits import MAX_MONTE_CARLO, check_count
from rrmap.stats._montecarlo import REL_TOL, exact_pvalues, random_tables, sequential_pvalue
from rrmap.zones import QUALITY_LEVELS

__all__ = [
    "Chi2TestResult",
    "chi2_test",
    "contingency_table",
    "cramers_v",
    "fails_cochran",
]


@dataclass(frozen=True)
class Chi2TestResult:
    """Result of :func:`chi2_test`.

    Attributes
    ----------
    statistic : float
        Pearson's X² on the table without empty rows/columns.
    dof : int
        ``(rows − 1)(columns − 1)`` after dropping empty rows/columns.
    pvalue : float
        The Monte Carlo p-value when ``n_perm > 0``, else the asymptotic one.
    pvalue_mid : float
        The mid-p of ``p_method`` (Lancaster, 1961): ``P(X² > x) + P(X² = x) / 2``;
        the asymptotic p-value itself when ``p_method`` is ``"asymptotic"`` (a continuous
        law has no ties).
    pvalue_asymptotic : float
        p-value from the χ² distribution with ``dof`` degrees of freedom.
    n : int
        Total count.
    n_perm : int
        Monte Carlo tables drawn (0: asymptotic p-value only; fewer than
        asked when a sequential test stopped early), or tables enumerated
        for an exact p-value.
    p_method : str
        ``"exact"``, ``"monte_carlo"`` or ``"asymptotic"``.
    effect : float
        Cramér's V, ``sqrt(X² / (n (min(r, c) − 1)))`` (:func:`cramers_v`).
    effect_corrected : float
        Bergsma's (2013) bias-corrected V.
    min_expected : float
        Smallest expected count under independence.
    share_expected_below_5 : float
        Share of cells with an expected count below 5.
    dropped_rows, dropped_columns : list
        Labels of the all-zero rows/columns removed before testing.

    Examples
    --------
    >>> res = chi2_test([[10, 0, 5], [4, 0, 12]])
    >>> res.dof, res.dropped_columns
    (1, [1])
    """

    statistic: float
    dof: int
    pvalue: float
    pvalue_asymptotic: float
    n: int
    n_perm: int
    min_expected: float
    share_expected_below_5: float
    p_method: str = "asymptotic"
    effect: float = float("nan")
    effect_corrected: float = float("nan")
    dropped_rows: list = field(default_factory=list)
    dropped_columns: list = field(default_factory=list)
    pvalue_mid: float = float("nan")


def contingency_table(
    groups: ArrayLike, quality: ArrayLike, levels: tuple[str, ...] = QUALITY_LEVELS
) -> pd.DataFrame:
    """Counts of each quality level per group (rows sorted, all levels as columns).

    Parameters
    ----------
    groups : array_like
        Group of each point (rater or category option).
    quality : array_like
        Quality level of each point.
    levels : tuple of str
        Column order (default excellent, fair, stereotype, bad).

    Returns
    -------
    DataFrame
        Integer counts; index = groups, columns = levels (zero columns kept).

    Examples
    --------
    >>> contingency_table(["a", "a", "b"], ["fair", "bad", "fair"])
       excellent  fair  stereotype  bad
    a          0     1           0    1
    b          0     1           0    0
    """
    g = pd.Series(np.asarray(groups, dtype=object), name="group")
    q = pd.Series(np.asarray(quality, dtype=object), name="quality")
    if len(g) != len(q):
        raise InputError(f"{len(g)} groups for {len(q)} quality labels")
    unknown = sorted(set(q.dropna().astype(str)) - set(levels))
    if unknown or q.isna().any():
        raise InputError(
            f"quality labels must be one of {list(levels)}; found {unknown or ['missing']}"
        )
    rows = sorted(g.unique(), key=str)
    tab = pd.crosstab(g, q).reindex(index=rows, columns=list(levels), fill_value=0)
    tab.index.name = None
    tab.columns.name = None
    return tab.astype(int)


def chi2_test(
    table: ArrayLike | pd.DataFrame,
    *,
    n_perm: int = 0,
    rng: int | np.random.Generator | None = None,
    stop_hits: int | None = None,
    exact: bool = True,
    cochran: bool = False,
) -> Chi2TestResult:
    """Pearson χ² test of independence on a contingency table.

    Empty rows and columns are dropped first; ``correction=False`` (as
    :func:`scipy.stats.chi2_contingency` with ``correction=False``, which
    this matches).

    Parameters
    ----------
    table : array_like or DataFrame, shape (r, c)
        Non-negative integer counts (rows = groups, columns = levels).
    n_perm : int, default 0
        Monte Carlo draws ``B`` for a p-value with fixed margins (0: asymptotic
        only). p = (1 + #{X²_b ≥ X²_obs}) / (B + 1).
    rng : int, Generator or None
        Seed or generator for the Monte Carlo draws.
    stop_hits : int, optional
        Sequential Monte Carlo p-value (Besag & Clifford): stop once this many
        tables reached X²_obs, with ``p = h / L`` (as the energy tests).
    exact : bool, default True
        With ``n_perm > 0``, a table of two rows whose fixed-margin tables
        number at most :data:`EXACT_TABLES` gets the exact p-value instead of
        a Monte Carlo one: every such table enumerated with its hypergeometric
        probability, ``p = P(X² ≥ X²_obs)`` (``p_method = "exact"``).
    cochran : bool, default False
        With ``n_perm > 0``, only a table that fails Cochran's rule
        (:func:`fails_cochran`) gets the exact or Monte Carlo p-value; the
        others keep the asymptotic one (what the designs do by default).

    Returns
    -------
    Chi2TestResult

    Raises
    ------
    InputError
        Negative or non-integer counts, or fewer than 2 non-empty rows or
        columns (no test is possible: dof would be 0).

    Examples
    --------
    >>> res = chi2_test([[20, 10, 5, 1], [5, 10, 15, 12]])
    >>> res.dof, round(res.statistic, 3), res.pvalue < 0.01
    (3, 22.982, True)
    """
    if isinstance(table, pd.DataFrame):
        row_labels, col_labels = list(table.index), list(table.columns)
        obs = table.to_numpy(dtype=float)
    else:
        obs = np.asarray(table, dtype=float)
        if obs.ndim != 2:
            raise InputError(f"a contingency table must be 2-D, got shape {obs.shape}")
        row_labels, col_labels = list(range(obs.shape[0])), list(range(obs.shape[1]))
    if not np.isfinite(obs).all() or (obs < 0).any() or (obs != np.round(obs)).any():
        raise InputError("contingency table counts must be finite non-negative integers")
    n_perm = check_count("n_perm", n_perm, MAX_MONTE_CARLO)
    keep_r = obs.sum(axis=1) > 0
    keep_c = obs.sum(axis=0) > 0
    dropped_rows = [lab for lab, k in zip(row_labels, keep_r, strict=True) if not k]
    dropped_cols = [lab for lab, k in zip(col_labels, keep_c, strict=True) if not k]
    obs = obs[keep_r][:, keep_c]
    if obs.shape[0] < 2 or obs.shape[1] < 2:
        raise InputError(
            f"χ² test needs at least 2 non-empty rows and 2 non-empty columns, got "
            f"{obs.shape[0]} × {obs.shape[1]} after dropping empty ones"
        )
    stat, p_asym, dof, expected = _pearson(obs)
    n_perm = int(n_perm)
    pvalue, drawn, mid = float(p_asym), 0, float(p_asym)
    method = "asymptotic"
    rows, cols = obs.sum(axis=1).astype(np.int64), obs.sum(axis=0).astype(np.int64)
    if cochran and not fails_cochran(expected):
        n_perm = 0
    if n_perm > 0 and exact and _two_row_tables(rows, cols) <= EXACT_TABLES:
        pvalue, drawn, mid = _exact_two_rows(rows, cols, expected, stat)
        method = "exact"
    elif n_perm > 0:
        gen = np.random.default_rng(rng)

        def simulate(c: int) -> np.ndarray:
            tabs = random_tables(rows, cols, c, gen)
            return (((tabs - expected) ** 2) / expected).sum(axis=(1, 2))

        pvalue, drawn, mid = sequential_pvalue(simulate, stat, n_perm, stop_hits or None)
        method = "monte_carlo"
    v, v_corrected = _cramers_v_of(stat, obs.sum(), *obs.shape)
    return Chi2TestResult(
        statistic=float(stat),
        dof=int(dof),
        pvalue=float(pvalue),
        pvalue_asymptotic=float(p_asym),
        n=int(obs.sum()),
        n_perm=drawn,
        min_expected=float(expected.min()),
        share_expected_below_5=float((expected < 5).mean()),
        p_method=method,
        effect=v,
        effect_corrected=v_corrected,
        dropped_rows=dropped_rows,
        dropped_columns=dropped_cols,
        pvalue_mid=float(mid),
    )


#: Largest number of two-row tables with fixed margins enumerated for an exact p-value.
EXACT_TABLES = 200_000


def _two_row_tables(rows: np.ndarray, cols: np.ndarray) -> float:
    """How many candidate tables the exact enumeration of a two-row table would visit
    (infinite for more rows)."""
    if len(rows) != 2:
        return float("inf")
    return float(np.prod([min(int(c), int(rows[0])) + 1 for c in cols[:-1]], dtype=float))


def _exact_two_rows(
    rows: np.ndarray, cols: np.ndarray, expected: np.ndarray, stat: float
) -> tuple[float, int, float]:
    """Exact P(X² ≥ X²_obs) over every two-row table with the margins *rows*, *cols*, the
    number of tables, and the mid-p P(X² > X²_obs) + P(X² = X²_obs) / 2.

    The first row's counts x_j (the second's follow) have the multivariate
    hypergeometric probability ``∏ C(col_j, x_j) / C(n, row_1)``: the law of the
    table when the quality labels are shuffled over the pooled points.
    """
    n1, n = int(rows[0]), int(cols.sum())
    grids = np.meshgrid(*[np.arange(min(int(c), n1) + 1) for c in cols[:-1]], indexing="ij")
    first = np.stack([g.ravel() for g in grids], axis=1)
    last = n1 - first.sum(axis=1)
    ok = (last >= 0) & (last <= cols[-1])
    first = np.column_stack([first[ok], last[ok]])
    logfact = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1)))])
    logp = (
        (logfact[cols] - logfact[first] - logfact[cols - first]).sum(axis=1)
        - logfact[n]
        + logfact[n1]
        + logfact[n - n1]
    )
    tables = np.stack([first, cols - first], axis=1)
    stats = (((tables - expected) ** 2) / expected).sum(axis=(1, 2))
    prob = np.exp(logp)
    tol = REL_TOL * max(1.0, abs(stat))
    p, mid = exact_pvalues(stats, prob, stat, tol, float(prob.sum()))
    return p, len(first), mid


def fails_cochran(expected: np.ndarray) -> bool:
    """Cochran's rule fails: more than 20 % of the expected counts below 5, or any below 1.

    Then the asymptotic χ² p-value is unreliable (Cochran, 1954); the designs
    use the exact or Monte Carlo fixed-margin p-value instead (docs/tests.md).

    Examples
    --------
    >>> fails_cochran(np.array([[6.0, 6.0], [6.0, 4.0]])), fails_cochran(np.array([[9.0, 0.9]]))
    (True, True)
    >>> fails_cochran(np.array([[6.0, 5.0], [5.0, 5.0]]))
    False
    """
    e = np.asarray(expected, dtype=float)
    return bool((e < 1).any() or (e < 5).mean() > 0.2)


def cramers_v(table: ArrayLike) -> tuple[float, float]:
    """Cramér's V of a contingency table, and Bergsma's (2013) bias-corrected V.

    ``V = sqrt(φ² / (min(r, c) − 1))`` with ``φ² = X² / n`` (empty rows and
    columns dropped first). The corrected V replaces φ² by
    ``max(0, φ² − (r − 1)(c − 1) / (n − 1))`` and r, c by
    ``r − (r − 1)² / (n − 1)``, ``c − (c − 1)² / (n − 1)``; it removes most of
    V's upward bias in small samples. Both are 0 for independence and 1 for a
    perfect association; NaN when undefined (fewer than 2 rows or columns).

    Returns
    -------
    v, v_corrected : float

    Examples
    --------
    >>> v, vc = cramers_v([[10, 0], [0, 10]])
    >>> round(v, 12), round(vc, 4)
    (1.0, 1.0)
    >>> [round(x, 4) for x in cramers_v([[20, 10, 5, 1], [5, 10, 15, 12]])]
    [0.5428, 0.509]
    """
    obs = np.asarray(table, dtype=float)
    obs = obs[obs.sum(axis=1) > 0][:, obs.sum(axis=0) > 0]
    r, c = obs.shape if obs.ndim == 2 else (0, 0)
    if r < 2 or c < 2 or obs.sum() < 2:
        return float("nan"), float("nan")
    return _cramers_v_of(_pearson(obs)[0], obs.sum(), r, c)


def _cramers_v_of(stat: float, n: float, r: int, c: int) -> tuple[float, float]:
    """:func:`cramers_v` from X² of an r × c table of n counts without empty rows or columns."""
    if r < 2 or c < 2 or n < 2:
        return float("nan"), float("nan")
    phi2 = stat / n
    v = float(np.sqrt(phi2 / (min(r, c) - 1)))
    phi2c = max(0.0, phi2 - (r - 1) * (c - 1) / (n - 1))
    rc, cc = r - (r - 1) ** 2 / (n - 1), c - (c - 1) ** 2 / (n - 1)
    denom = min(rc, cc) - 1
    vc = float(np.sqrt(phi2c / denom)) if denom > 0 else float("nan")
    return v, vc


def _pearson(obs: np.ndarray) -> tuple[float, float, int, np.ndarray]:
    """X², its asymptotic p-value, dof and the expected counts (no continuity correction).

    The closed form of :func:`scipy.stats.chi2_contingency` with
    ``correction=False`` (the tests check it against scipy), without
    importing :mod:`scipy.stats`, which alone takes most of a second.
    """
    expected = np.outer(obs.sum(axis=1), obs.sum(axis=0)) / obs.sum()
    stat = float((((obs - expected) ** 2) / expected).sum())
    dof = (obs.shape[0] - 1) * (obs.shape[1] - 1)
    return stat, chi2_sf(stat, dof), dof, expected


def chi2_sf(x: float, dof: int) -> float:
    """P(χ²_dof ≥ x) for a whole number of degrees of freedom, in closed form.

    The upper regularized gamma function at half-integers is a finite sum:
    ``e^{−x/2} Σ_{i<dof/2} (x/2)^i / i!`` for even ``dof``, and
    ``erfc(√(x/2)) + e^{−x/2} Σ_{i=1}^{(dof−1)/2} (x/2)^{i−½} / Γ(i+½)`` for odd
    ``dof``. Each term is formed in logarithms, so nothing overflows. The tests
    check it against :func:`scipy.stats.chi2.sf`; it saves importing
    :mod:`scipy.special` (a tenth of a second) on every analysis.

    Examples
    --------
    >>> round(chi2_sf(3.841458820694124, 1), 12)  # the 95 % point of χ²₁
    0.05
    >>> chi2_sf(0.0, 4)
    1.0
    """
    if dof < 1 or int(dof) != dof:
        raise ValueError(f"dof must be a whole number >= 1, got {dof!r}")
    if not x > 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    half = x / 2
    if half == 0.0:  # the smallest subnormal statistic halves to zero: P = 1
        return 1.0
    log_half = math.log(half)
    if dof % 2 == 0:
        return math.fsum(
            math.exp(-half + i * log_half - math.lgamma(i + 1)) for i in range(dof // 2)
        )
    tail = math.erfc(math.sqrt(half))
    terms = (
        math.exp(-half + (i - 0.5) * log_half - math.lgamma(i + 0.5))
        for i in range(1, (int(dof) - 1) // 2 + 1)
    )
    return tail + math.fsum(terms)
