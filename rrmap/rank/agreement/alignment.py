"""Agreement between a model's ranking and the human one (Spearman's ρ, ArtCoT §V).

Per method (global): one ρ between the two rankings of the candidates.
Per instance: one ρ per instance, their mean, and a combined p-value by
Fisher's method (``−2 Σ log p`` against χ² with 2m degrees of freedom).

With 10 candidates the usual t or normal approximation of the p-value of ρ
is poor, so p-values are exact when there are no ties and at most
:data:`EXACT_SPEARMAN_LIMIT` candidates — from the exact null distribution of
``Σ d²`` over all n! permutations, counted by a dynamic programme — or with
ties and at most :data:`EXACT_TIED_SPEARMAN_LIMIT` candidates, by enumerating
all n! orders of the (mid-)ranks; otherwise from a seeded permutation test.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
import pandas as pd

from rrmap._util.streams import Streams
from rrmap.errors import InputError
from rrmap.rank.limits import check_count

__all__ = [
    "EXACT_SPEARMAN_LIMIT",
    "EXACT_TIED_SPEARMAN_LIMIT",
    "Alignment",
    "align_rankings",
    "spearman_test",
    "split_half_alignment",
]

#: Most candidates for which the exact null distribution is enumerated (12! ≈ 4.8e8 orders).
EXACT_SPEARMAN_LIMIT = 12
#: Most candidates for which, with tied scores, all n! orders are enumerated (9! = 362,880).
EXACT_TIED_SPEARMAN_LIMIT = 9
_ALTERNATIVES = ("two-sided", "greater", "less")
_METHODS = ("auto", "exact", "permutation", "asymptotic")


@cache
def _null_counts(n: int) -> np.ndarray:
    """Number of permutations π of 0..n-1 with Σ (i − π(i))² = D, for every D."""
    max_d = n * (n * n - 1) // 3
    full = 1 << n
    # dp[mask] = polynomial (counts by partial D) for rows 0..popcount(mask)-1 assigned to mask
    dp = np.zeros((full, max_d + 1), dtype=np.int64)
    dp[0, 0] = 1
    masks = np.arange(full)
    pop = np.zeros(full, dtype=np.int64)
    for j in range(n):
        pop += (masks >> j) & 1
    for row in range(n):
        layer = masks[pop == row]
        for col in range(n):
            src = layer[(layer >> col) & 1 == 0]
            if len(src) == 0:
                continue
            shift = (row - col) ** 2
            dst = src | (1 << col)
            dp[dst, shift:] += dp[src, : max_d + 1 - shift]
    return dp[full - 1]


def _exact_p(rho: float, n: int, alternative: str) -> float:
    counts = _null_counts(n)
    d = np.arange(len(counts))
    rhos = 1.0 - 6.0 * d / (n * (n * n - 1))
    total = counts.sum()
    tol = 1e-9
    if alternative == "greater":
        hit = rhos >= rho - tol
    elif alternative == "less":
        hit = rhos <= rho + tol
    else:
        hit = np.abs(rhos) >= abs(rho) - tol
    return float(counts[hit].sum() / total)


@cache
def _all_orders(n: int) -> np.ndarray:
    """Every permutation of 0..n-1, one a row (n! × n, int8)."""
    from itertools import chain, permutations

    flat = np.fromiter(chain.from_iterable(permutations(range(n))), dtype=np.int8)
    return flat.reshape(-1, n)


def _exact_tied_p(x: np.ndarray, y: np.ndarray, rho: float, alternative: str) -> float:
    """Share of all n! orders of *y*'s mid-ranks with a ρ at least as extreme as *rho*."""
    from scipy import stats  # on first use: `rrmap rank fit` never imports it

    rx, ry = stats.rankdata(x), stats.rankdata(y)
    rxc, ryc = rx - rx.mean(), ry - ry.mean()
    den = np.sqrt((rxc @ rxc) * (ryc @ ryc))
    null = (ryc[_all_orders(len(x))] @ rxc) / den
    tol = 1e-9
    if alternative == "greater":
        hit = null >= rho - tol
    elif alternative == "less":
        hit = null <= rho + tol
    else:
        hit = np.abs(null) >= abs(rho) - tol
    return float(hit.mean())


def _rho(x: np.ndarray, y: np.ndarray) -> float:
    from scipy import stats  # on first use: `rrmap rank fit` never imports it

    rx, ry = stats.rankdata(x), stats.rankdata(y)
    rx = rx - rx.mean()
    ry = ry - ry.mean()
    den = np.sqrt((rx @ rx) * (ry @ ry))
    return float(rx @ ry / den) if den > 0 else float("nan")


def spearman_test(
    x,
    y,
    *,
    alternative: str = "two-sided",
    method: str = "auto",
    n_permutations: int = 9999,
    rng: int | np.random.Generator | None = None,
) -> tuple[float, float, str]:
    """Spearman's ρ with an exact, permutation or asymptotic p-value.

    Parameters
    ----------
    x, y : array-like
        Paired scores (any monotone scale; ranks are taken, ties get mean
        ranks).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        ``"greater"`` tests for positive agreement — the question alignment
        asks, and the sensible choice before Fisher's combination.
    method : {"auto", "exact", "permutation", "asymptotic"}, default "auto"
        ``"exact"``: exact null distribution (no ties and n ≤
        :data:`EXACT_SPEARMAN_LIMIT`, or ties and n ≤
        :data:`EXACT_TIED_SPEARMAN_LIMIT`: all n! orders of the mid-ranks of
        ``y``); ``"permutation"``: ``n_permutations``
        random permutations of ``y``, p = (b + 1)/(B + 1);
        ``"asymptotic"``: scipy's t approximation; ``"auto"``: exact when
        possible, else permutation for n ≤ 50, else asymptotic.
    n_permutations : int, default 9999
        Permutations for the permutation test.
    rng : int, Generator or None
        Seed of the permutation test, or a generator that one seed is drawn
        from; the permutations draw from the stream ``("permutation",
        "spearman")`` of the seed (see docs/rank.md, "Random streams").

    Returns
    -------
    rho : float
    p_value : float
    method : str
        The method actually used.

    Examples
    --------
    >>> from rrmap.rank import spearman_test
    >>> spearman_test([1, 2, 3, 4], [1, 2, 3, 4], alternative="greater")  # 1 order in 4! = 24
    (1.0, 0.041666666666666664, 'exact')
    >>> rho, p, how = spearman_test([1, 2, 3, 4, 5], [2, 1, 4, 3, 5])
    >>> round(rho, 2), round(p, 4), how
    (0.8, 0.1333, 'exact')

    With ties, all 4! = 24 orders of the mid-ranks: 2 of them reach ρ = 0.9487.

    >>> rho, p, how = spearman_test([1, 2, 3, 4], [1, 1, 2, 3], alternative="greater")
    >>> round(rho, 4), p, how
    (0.9487, 0.08333333333333333, 'exact')
    """
    return _spearman(x, y, alternative, method, n_permutations, Streams.of(rng), ("", ""))


def _spearman(x, y, alternative: str, method: str, n_permutations: int, streams: Streams,
              group: tuple[str, str]) -> tuple[float, float, str]:  # fmt: skip
    """:func:`spearman_test`, its permutations drawn from the stream of *group*."""
    if alternative not in _ALTERNATIVES:
        raise InputError(
            f"alternative must be one of {', '.join(_ALTERNATIVES)}, got {alternative!r}"
        )
    if method not in _METHODS:
        raise InputError(f"method must be one of {', '.join(_METHODS)}, got {method!r}")
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise InputError(f"x and y must be 1-d and of equal length, got {x.shape} and {y.shape}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise InputError("x and y must be finite numbers")
    n = len(x)
    if n < 2:
        raise InputError(f"need at least 2 pairs for Spearman's rho, got {n}")
    rho = _rho(x, y)
    if np.isnan(rho):
        return rho, float("nan"), "undefined"
    ties = len(np.unique(x)) < n or len(np.unique(y)) < n
    limit = EXACT_TIED_SPEARMAN_LIMIT if ties else EXACT_SPEARMAN_LIMIT
    if method == "auto":
        if n <= limit:
            method = "exact"
        else:
            method = "permutation" if n <= 50 else "asymptotic"
    if method == "exact":
        if n > limit:
            raise InputError(
                f"exact p-values need n <= {EXACT_SPEARMAN_LIMIT} untied scores or n <= "
                f"{EXACT_TIED_SPEARMAN_LIMIT} with ties (n={n}, ties={'yes' if ties else 'no'}); "
                "use method='permutation'"
            )
        if ties:
            return rho, _exact_tied_p(x, y, rho, alternative), "exact"
        return rho, _exact_p(rho, n, alternative), "exact"
    if method == "asymptotic":
        from scipy import stats  # on first use: `rrmap rank fit` never imports it

        res = stats.spearmanr(x, y, alternative=alternative)
        return rho, float(res.pvalue), "asymptotic"
    n_perm = check_count("n_permutations", n_permutations, "MAX_PERMUTATIONS", minimum=1)
    gen = streams.generator("permutation", "spearman", *group)
    return rho, _permutation_p(x, y, rho, alternative, n_perm, gen), "permutation"


#: Numbers drawn per batch of permutations (batches of n_permutations × n would not fit).
_PERM_BATCH = 4_000_000


def _permutation_p(x: np.ndarray, y: np.ndarray, rho: float, alternative: str, n_perm: int,
                   gen: np.random.Generator) -> float:  # fmt: skip
    """``(b + 1) / (B + 1)``: b of B random orders of *y* at least as extreme as *rho*.

    The orders are drawn in batches, each its own rows of one stream, so the
    result equals that of one draw of all of them.
    """
    from scipy import stats  # on first use: `rrmap rank fit` never imports it

    n = len(x)
    rx, ry = stats.rankdata(x), stats.rankdata(y)
    rxc = rx - rx.mean()
    den = np.sqrt((rxc @ rxc) * ((ry - ry.mean()) @ (ry - ry.mean())))
    tol = 1e-12
    b = 0
    step = max(1, _PERM_BATCH // n)
    for start in range(0, n_perm, step):
        perm = np.argsort(gen.random((min(step, n_perm - start), n)), axis=1)
        null = ((ry[perm] - ry.mean()) @ rxc) / den
        if alternative == "greater":
            b += int(np.sum(null >= rho - tol))
        elif alternative == "less":
            b += int(np.sum(null <= rho + tol))
        else:
            b += int(np.sum(np.abs(null) >= abs(rho) - tol))
    return float((b + 1) / (n_perm + 1))


@dataclass(frozen=True)
class Alignment:
    """Result of :func:`align_rankings`.

    Attributes
    ----------
    table : DataFrame
        One row per group (one row in total when not grouped): (``by``),
        ``n_candidates``, ``rho``, ``p_value``, ``p_method``.
    summary : DataFrame
        One row: ``n_groups`` (used), ``mean_rho``, ``median_rho``,
        ``fisher_statistic``, ``fisher_df``, ``fisher_p`` (NaN when not
        grouped), ``alternative``.
    excluded : DataFrame
        What was left out and why: ``reason`` (``"only_in_human"``,
        ``"only_in_model"`` for candidates; ``"too_few_candidates"``,
        ``"constant_scores"`` for groups), ``n``.

    Examples
    --------
    >>> import pandas as pd
    >>> from rrmap.rank import align_rankings
    >>> h = pd.DataFrame({"candidate": list("ABCDE"), "score": [5, 4, 3, 2, 1]})
    >>> m = pd.DataFrame({"candidate": list("ABCDE"), "score": [9, 7, 8, 1, 2]})
    >>> align_rankings(h, m).table[["n_candidates", "rho", "p_method"]]
       n_candidates  rho p_method
    0             5  0.8    exact
    """

    table: pd.DataFrame
    summary: pd.DataFrame
    excluded: pd.DataFrame


def _check_ranking(df: pd.DataFrame, name: str, cols: list[str]) -> None:
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"{name}: expected a DataFrame, got {type(df).__name__}")
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise InputError(
            f"{name}: missing column{'s' if len(missing) > 1 else ''} "
            + ", ".join(repr(c) for c in missing)
            + f" (found: {', '.join(map(str, df.columns))})"
        )
    for key in cols[:-1]:
        gone = df[key].isna().to_numpy()
        if gone.any():
            rows = np.flatnonzero(gone)[:20].tolist()
            raise InputError(f"{name}: column {key!r} has missing values at rows {rows}")
    dup = df.duplicated(cols[:-1])
    if dup.any():
        rows = np.flatnonzero(dup.to_numpy())[:20].tolist()
        raise InputError(f"{name}: duplicated {' / '.join(cols[:-1])} at rows {rows}")
    bad = ~np.isfinite(pd.to_numeric(df[cols[-1]], errors="coerce").to_numpy(dtype=float))
    if bad.any():
        rows = np.flatnonzero(bad)[:20].tolist()
        raise InputError(f"{name}: column {cols[-1]!r} is not a finite number at rows {rows}")


def align_rankings(
    human: pd.DataFrame,
    model: pd.DataFrame,
    *,
    by: str | None = None,
    score: str = "score",
    candidate: str = "candidate",
    alternative: str = "two-sided",
    method: str = "auto",
    n_permutations: int = 9999,
    rng: int | np.random.Generator | None = None,
    labels: tuple[str, str] = ("human", "model"),
) -> Alignment:
    """Spearman agreement of a model ranking with a human ranking, globally or per group.

    Parameters
    ----------
    human, model : DataFrame
        Ranking tables with ``candidate`` and ``score`` columns (higher is
        better), e.g. ``fit_bradley_terry(...).table``; with ``by``, also that
        column. Candidates are matched by name; unmatched ones are counted in
        ``excluded``. Scores equal to 10 decimals count as tied (as in the
        fitted tables' ``rank``): candidates with identical records get
        scores that differ only by rounding.
    by : str, optional
        Group column (e.g. ``"instance"``): one ρ per group, their mean and
        Fisher's combined p. Groups with fewer than 3 shared candidates or
        constant scores are excluded and counted.
    score, candidate : str
        Column names.
    alternative, method, n_permutations, rng
        See :func:`spearman_test`. The default alternative is two-sided, as
        in the paper's tables; ``"greater"`` is the better choice for
        Fisher's combination (a strongly reversed instance then counts
        against alignment, not for it). Each group's permutations draw from
        the stream of its own identity (``"permutation"``, ``"spearman"``,
        ``by`` and the group's value), the same whichever other groups are
        tested with it; not grouped, from the stream of :func:`spearman_test`.
    labels : (str, str), default ("human", "model")
        Names of the two tables in error messages (e.g. their file names).

    Returns
    -------
    Alignment

    Examples
    --------
    >>> import pandas as pd
    >>> from rrmap.rank import align_rankings
    >>> h = pd.DataFrame({"instance": ["a"] * 4 + ["b"] * 4, "candidate": list("WXYZ") * 2,
    ...                   "score": [4, 3, 2, 1, 1, 2, 3, 4]})
    >>> m = h.assign(score=[4, 3, 1, 2, 1, 2, 4, 3])
    >>> res = align_rankings(h, m, by="instance", alternative="greater")
    >>> res.table[["instance", "rho", "p_value"]].round(4).values.tolist()
    [['a', 0.8, 0.1667], ['b', 0.8, 0.1667]]
    >>> float(res.summary["mean_rho"].iloc[0])
    0.8
    """
    keys = [candidate] if by is None else [by, candidate]
    _check_ranking(human, labels[0], [*keys, score])
    _check_ranking(model, labels[1], [*keys, score])
    h = human[[*keys, score]].rename(columns={score: "_h"})
    m = model[[*keys, score]].rename(columns={score: "_m"})
    merged = h.merge(m, on=keys, how="outer", indicator=True)
    excluded = {
        "only_in_human": int((merged["_merge"] == "left_only").sum()),
        "only_in_model": int((merged["_merge"] == "right_only").sum()),
        "too_few_candidates": 0,
        "constant_scores": 0,
    }
    both = merged[merged["_merge"] == "both"]
    streams = Streams.of(rng)
    rows = []
    grouped = [(None, both)] if by is None else both.groupby(by, sort=True, observed=True)
    for key, g in grouped:
        # fitted scores carry rounding noise: equal to 10 decimals is a tie, as in `rank`
        x = np.round(g["_h"].to_numpy(float), 10)
        y = np.round(g["_m"].to_numpy(float), 10)
        if len(g) < 3:
            excluded["too_few_candidates"] += 1
            continue
        if np.ptp(x) == 0 or np.ptp(y) == 0:
            excluded["constant_scores"] += 1
            continue
        group = ("", "") if by is None else (str(by), str(key))
        rho, p, how = _spearman(x, y, alternative, method, n_permutations, streams, group)
        row = {"n_candidates": len(g), "rho": rho, "p_value": p, "p_method": how}
        rows.append(row if by is None else {by: key, **row})
    cols = ([] if by is None else [by]) + ["n_candidates", "rho", "p_value", "p_method"]
    table = pd.DataFrame(rows, columns=cols)
    if by is not None and len(table):
        from scipy import stats  # on first use: `rrmap rank fit` never imports it

        fisher = stats.combine_pvalues(table["p_value"].to_numpy(), method="fisher")
        f_stat, f_p, f_df = float(fisher.statistic), float(fisher.pvalue), 2 * len(table)
    else:
        f_stat = f_p = float("nan")
        f_df = 0
    summary = pd.DataFrame(
        {
            "n_groups": [len(table)],
            "mean_rho": [float(table["rho"].mean()) if len(table) else float("nan")],
            "median_rho": [float(table["rho"].median()) if len(table) else float("nan")],
            "fisher_statistic": [f_stat],
            "fisher_df": [f_df],
            "fisher_p": [f_p],
            "alternative": [alternative],
        }
    )
    exc = pd.DataFrame({"reason": list(excluded), "n": list(excluded.values())})
    return Alignment(table=table, summary=summary, excluded=exc)


def split_half_alignment(
    comparisons: pd.DataFrame,
    fit: Callable[[pd.DataFrame], pd.DataFrame],
    *,
    n_splits: int = 100,
    rng: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """Agreement of rankings fitted on random halves of the same comparisons.

    A ceiling for model–human alignment: how well the human ranking agrees
    with itself when half of the judgements are swapped for the other half.

    Parameters
    ----------
    comparisons : DataFrame
        A comparisons table (one pool; filter or subset it first).
    fit : callable
        Maps a comparisons table to a ranking table with ``candidate`` and
        ``score``, e.g. ``lambda d: fit_bradley_terry(d).table``.
    n_splits : int, default 100
        Number of random half splits.
    rng : int, Generator or None
        Seed, or a generator that one seed is drawn from. Split *s* draws from
        the stream ``("split-half", s)``: the first splits are the same
        whatever ``n_splits``.

    Returns
    -------
    DataFrame
        One row per split: ``split``, ``n_candidates``, ``rho`` (Spearman
        between the two halves' rankings; NaN when undefined).

    Examples
    --------
    >>> import pandas as pd
    >>> from rrmap.rank import fit_bradley_terry, split_half_alignment
    >>> df = pd.DataFrame({"instance": "i", "left": list("ABCABC") * 4,
    ...                    "right": list("BCACAB") * 4, "winner": "left"})
    >>> out = split_half_alignment(df, lambda d: fit_bradley_terry(d).table, n_splits=3, rng=0)
    >>> out.columns.tolist()
    ['split', 'n_candidates', 'rho']
    """
    n_splits = check_count("n_splits", n_splits, "MAX_RESAMPLES", minimum=1)
    if len(comparisons) < 2:
        raise InputError("need at least 2 comparisons to split")
    streams = Streams.of(rng)
    rows = []
    n = len(comparisons)
    for s in range(int(n_splits)):
        idx = streams.generator("split-half", s).permutation(n)
        a = fit(comparisons.iloc[idx[: n // 2]])
        b = fit(comparisons.iloc[idx[n // 2 :]])
        x, y = _matched_scores(a[["candidate", "score"]], b[["candidate", "score"]])
        rho = _rho(x, y) if len(x) >= 2 else float("nan")
        rows.append({"split": s, "n_candidates": len(x), "rho": rho})
    return pd.DataFrame(rows)


def _matched_scores(a: pd.DataFrame, b: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The scores of the candidates in both tables, in *a*'s order (an inner merge)."""
    ca, cb = a["candidate"], b["candidate"]
    if ca.dtype == cb.dtype and ca.is_unique and cb.is_unique:  # the merge, by position
        at = pd.Index(cb).get_indexer(ca)
        keep = at >= 0
        return a["score"].to_numpy(float)[keep], b["score"].to_numpy(float)[at[keep]]
    both = a.merge(b, on="candidate")
    return both["score_x"].to_numpy(float), both["score_y"].to_numpy(float)
