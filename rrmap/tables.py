"""Quality proportion tables and pointwise agreement across raters (docs/method.md)."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from rrmap._util.escape import join_groups, split_escaped
from rrmap.errors import InputError
from rrmap.gaussian import z_value
from rrmap.points import key_columns
from rrmap.zones import QUALITY_DTYPE, QUALITY_LEVELS

__all__ = ["agreement", "agreement_summary", "match_shares", "proportions", "wilson_interval"]

#: The quality levels that count as a match of the reference (the paper's excellent and
#: fair matches).
MATCH_LEVELS = ("excellent", "fair")


def proportions(points: pd.DataFrame, by: str | None = None, *, wide: bool = False) -> pd.DataFrame:
    """Counts and shares of the four quality levels per rater (× category option).

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points`.
    by : str, optional
        A category column (e.g. ``"movement"``): shares per rater × option.
        With several query corpora (column ``query``), every share is per corpus too.
    wide : bool, default False
        Return one row per group with ``n`` and one share column per level,
        in the order excellent, fair, stereotype, bad (the paper's layout).

    Returns
    -------
    DataFrame
        Tidy: [``query``,] ``expert`` [, ``by``], ``quality``, ``count``, ``n``, ``share``,
        ``ci_low``, ``ci_high`` (the Wilson 95 % interval of the share,
        :func:`wilson_interval`); all four levels always present (zero counts
        included).

    Examples
    --------
    >>> import rrmap
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> tab = proportions(pts)
    >>> tab.groupby("expert")["share"].sum().round(12).unique().tolist()
    [1.0]
    >>> list(proportions(pts, wide=True).columns)
    ['expert', 'n', 'excellent', 'fair', 'stereotype', 'bad']
    """
    groups = ["expert"] if by is None else ["expert", by]
    if "query" in points.columns and by != "query":  # several query corpora: each its own
        groups.insert(0, "query")
    for col in [*groups, "quality"]:
        if col not in points.columns:
            raise KeyError(
                f"column {col!r} not in the points table (columns: {list(points.columns)})"
            )
    counts = _level_counts(points, groups)
    if not wide:
        return counts
    table = counts.pivot_table(
        index=[*groups, "n"], columns="quality", values="share", observed=False
    ).reset_index()
    table.columns.name = None
    return table[[*groups, "n", *QUALITY_LEVELS]]


def _level_counts(points: pd.DataFrame, groups: list[str]) -> pd.DataFrame:
    """Tidy counts of each quality level per combination of *groups* present in *points*.

    Combinations in sorted order (each column's own order), the four levels
    in order within each; rows with a missing group value are left out.
    """
    n_q = len(QUALITY_LEVELS)
    key = np.zeros(len(points), dtype=np.int64)
    valid = np.ones(len(points), dtype=bool)
    uniques = []
    for col in groups:
        codes, levels = pd.factorize(points[col], sort=True)
        valid &= codes >= 0
        key = key * len(levels) + codes
        uniques.append(levels)
    quality = pd.Categorical(points["quality"], dtype=QUALITY_DTYPE).codes
    present, combo = np.unique(key[valid], return_inverse=True)
    rated = quality[valid] >= 0  # a point without a level counts in no level
    counts = np.bincount(combo[rated] * n_q + quality[valid][rated], minlength=len(present) * n_q)
    out = {}
    rest = present
    for col, levels in reversed(list(zip(groups, uniques, strict=True))):
        rest, code = np.divmod(rest, len(levels))
        out[col] = levels.take(np.repeat(code, n_q))
    table = pd.DataFrame({col: out[col] for col in groups})
    table["quality"] = pd.Categorical.from_codes(np.tile(np.arange(n_q), len(present)),
                                                 dtype=QUALITY_DTYPE)  # fmt: skip
    table["count"] = counts.astype(np.int64)
    n = counts.reshape(-1, n_q).sum(axis=1)
    table["n"] = np.repeat(n, n_q).astype(np.int64)
    table["share"] = table["count"] / table["n"]
    table["ci_low"], table["ci_high"] = wilson_interval(
        table["count"].to_numpy(), table["n"].to_numpy()
    )
    return table


def match_shares(points: pd.DataFrame, by: str | list[str] | None = None) -> pd.DataFrame:
    """The share of points that match the reference (excellent or fair), per query corpus:
    on all points, per rater and per option of each category of *by*.

    The headline number of a comparison of generators: which one puts more of its
    comparisons in the excellent or fair zone, with the Wilson 95 % interval of that
    share (:func:`wilson_interval`). The subsets are labelled as the ``within`` column
    of the tests table (``all``, ``expert=E1``, ``movement=cubism``), so a row lines up
    with the generator-effect test of the same subset.

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points` (with a ``query`` column when there are several
        query corpora; one corpus otherwise).
    by : str or list of str, optional
        Categories whose options get a row each.

    Returns
    -------
    DataFrame
        ``query``, ``within``, ``matches`` (excellent + fair points), ``n``, ``share``,
        ``ci_low``, ``ci_high``; subsets in the order all, raters, options, and the
        corpora in their order within each.

    Examples
    --------
    >>> import rrmap
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings(generators=2))
    >>> tab = match_shares(pts, by="modality")
    >>> tab[["query", "within", "matches", "n"]].head(3).values.tolist()
    [['gen-A', 'all', 168, 405], ['gen-B', 'all', 220, 405], ['gen-A', 'expert=E1', 53, 135]]
    """
    from rrmap._util.labels import within_label
    from rrmap.points import query_corpora

    by = [by] if isinstance(by, str) else list(by or [])
    for col in ["expert", "quality", *by]:
        if col not in points.columns:
            raise InputError(f"column {col!r} not in the points table")
    corpora = query_corpora(points)
    corpus = (
        points["query"].astype(str).to_numpy(dtype=object)
        if "query" in points.columns
        else np.full(len(points), corpora[0], dtype=object)
    )
    match = points["quality"].astype(str).isin(MATCH_LEVELS).to_numpy()
    subsets = [("all", np.ones(len(points), dtype=bool))]
    experts = points["expert"].astype(str).to_numpy(dtype=object)
    subsets += [(within_label("expert", e), experts == e) for e in sorted(set(experts))]
    for cat in by:
        values = points[cat].astype(str).to_numpy(dtype=object)
        subsets += [(within_label(cat, v), values == v) for v in sorted(set(values))]
    rows = [
        (q, label, int((match & mask & (corpus == q)).sum()), int((mask & (corpus == q)).sum()))
        for label, mask in subsets
        for q in corpora
    ]
    out = pd.DataFrame(rows, columns=["query", "within", "matches", "n"])
    with np.errstate(invalid="ignore", divide="ignore"):
        out["share"] = out["matches"] / out["n"].where(out["n"] > 0)
    out["ci_low"], out["ci_high"] = wilson_interval(out["matches"].to_numpy(), out["n"].to_numpy())
    return out


def wilson_interval(
    count: np.ndarray, n: np.ndarray, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of the proportions ``count / n``.

    ``(p̂ + z²/2n ± z·sqrt(p̂(1 − p̂)/n + z²/4n²)) / (1 + z²/n)`` with
    ``z = Φ⁻¹(1 − (1 − level)/2)`` (:func:`rrmap.z_value`), as statsmodels'
    ``proportion_confint(method="wilson")``. Unlike the Wald interval it stays
    inside [0, 1] and is not empty at 0 or n counts, which small zone shares
    often are.

    Parameters
    ----------
    count, n : array_like of int
        Successes and trials (``n > 0``; NaN where ``n == 0``).
    level : float, default 0.95

    Returns
    -------
    low, high : ndarray

    Examples
    --------
    >>> low, high = wilson_interval(np.array([0, 5]), np.array([20, 20]))
    >>> low.round(4).tolist(), high.round(4).tolist()
    ([0.0, 0.1119], [0.1611, 0.4687])
    """
    z = z_value(level)  # the quantile rated intervals use too: Φ⁻¹(1 − (1 − level)/2)
    count = np.asarray(count, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = count / n
        denom = 1.0 + z * z / n
        centre = (p + z * z / (2.0 * n)) / denom
        half = z * np.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n)) / denom
    # at 0 and n the bounds are exactly 0 and 1 (the formula leaves rounding residue)
    low = np.where(count == 0, 0.0, np.clip(centre - half, 0.0, 1.0))
    high = np.where(count == n, 1.0, np.clip(centre + half, 0.0, 1.0))
    return np.where(n > 0, low, np.nan), np.where(n > 0, high, np.nan)


def agreement(points: pd.DataFrame) -> pd.DataFrame:
    """Pointwise agreement: the zones each rater put each comparison in.

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points` with at least two raters.

    Returns
    -------
    DataFrame
        One row per comparison key (categories without the rater; and query
        corpus, column ``query``, when there are several): one
        column per rater holding its zone, ``n_raters`` (how many rated the
        key), ``n_zones`` (distinct zones), ``pattern`` (``all agree``,
        ``all different``, ``partial`` or ``incomplete`` when a rater has no
        point for the key), ``zone`` (the shared zone when all agree) and
        ``agreeing`` (the rater pairs that agree, ``E1|E2`` joined by ``;``;
        a backslash, ``|`` or ``;`` in a rater's name is escaped with a backslash,
        :func:`rrmap.report.split_groups`).

    Examples
    --------
    >>> import rrmap
    >>> ag = agreement(rrmap.points(rrmap.datasets.load_example_ratings()))
    >>> len(ag), sorted(ag.pattern.unique())[:2]
    (135, ['all agree', 'all different'])
    """
    keys = [k for k in key_columns(points) if k != "expert"]
    raters = sorted(points["expert"].unique(), key=str)
    if len(raters) < 2:
        raise ValueError(f"pointwise agreement needs at least two raters, found {raters}")
    taken = {str(r) for r in raters} & {*map(str, keys), *_AGREEMENT_COLUMNS}
    if taken:
        raise InputError(
            f"rater {sorted(taken)[0]!r} has the name of a column of the agreement table "
            f"({', '.join([*map(str, keys), *_AGREEMENT_COLUMNS])}): rename the rater"
        )
    wide = points.pivot(index=keys, columns="expert", values="quality")
    wide = wide.reindex(columns=raters)
    wide.columns = [str(c) for c in wide.columns]
    vals = wide.to_numpy(dtype=object)
    out = wide.reset_index()
    present = ~pd.isna(vals)
    n_raters = present.sum(axis=1)
    n_zones = np.array([len({v for v in row if not pd.isna(v)}) for row in vals])
    all_present = n_raters == len(raters)
    pattern = np.where(
        ~all_present,
        "incomplete",
        np.where(
            n_zones == 1, "all agree", np.where(n_zones == n_raters, "all different", "partial")
        ),
    )
    agreeing = []
    for row in vals:
        pairs = [
            join_groups([raters[i], raters[j]])
            for i, j in combinations(range(len(raters)), 2)
            if not pd.isna(row[i]) and row[i] == row[j]
        ]
        agreeing.append(";".join(pairs))
    out["n_raters"] = n_raters
    out["n_zones"] = n_zones
    out["pattern"] = pattern
    out["zone"] = pd.Categorical(
        [row[0] if p == "all agree" else None for row, p in zip(vals, pattern, strict=True)],
        dtype=QUALITY_DTYPE,
    )
    out["agreeing"] = agreeing
    for r in raters:
        out[str(r)] = pd.Categorical(out[str(r)], dtype=QUALITY_DTYPE)
    return out


#: Columns of :func:`agreement` besides the keys and the raters.
_AGREEMENT_COLUMNS = ("n_raters", "n_zones", "pattern", "zone", "agreeing")


def agreement_summary(agreement_table: pd.DataFrame) -> pd.DataFrame:
    """Summarise :func:`agreement`: how often raters agree, and where.

    Rows: ``all agree`` (in total and per zone), ``all different``,
    ``partial`` in total and per rater pair (the pair agrees, the others
    do not), and ``incomplete`` keys. Shares are over all keys.

    Parameters
    ----------
    agreement_table : DataFrame
        Output of :func:`agreement`.

    Returns
    -------
    DataFrame
        Columns ``pattern``, ``detail``, ``count``, ``share`` (after ``query``, one
        summary per query corpus, when the table holds several).

    Examples
    --------
    >>> import rrmap
    >>> s = agreement_summary(agreement(rrmap.points(rrmap.datasets.load_example_ratings())))
    >>> int(s.loc[s.detail == "", "count"].sum())
    135
    """
    if "query" in agreement_table.columns:  # several query corpora: one summary each
        parts = []
        corpus = agreement_table["query"].astype(str)
        for q in dict.fromkeys(corpus):
            part = agreement_summary(agreement_table.loc[(corpus == q).to_numpy()].drop(
                columns="query"))  # fmt: skip
            part.insert(0, "query", q)
            parts.append(part)
        return pd.concat(parts, ignore_index=True)
    ag = agreement_table
    total = len(ag)
    rows: list[tuple[str, str, int]] = []
    for pat in ("all agree", "all different", "partial", "incomplete"):
        rows.append((pat, "", int((ag["pattern"] == pat).sum())))
        if pat == "all agree":
            for z in QUALITY_LEVELS:
                rows.append((pat, z, int(((ag["pattern"] == pat) & (ag["zone"] == z)).sum())))
        if pat == "partial":
            part = ag.loc[ag["pattern"] == "partial", "agreeing"]
            listed = [split_escaped(s, ";") for s in part]
            for p in sorted({p for ps in listed for p in ps if p}):
                rows.append((pat, p, sum(p in ps for ps in listed)))
    out = pd.DataFrame(rows, columns=["pattern", "detail", "count"])
    out["share"] = out["count"] / total if total else np.nan
    return out


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
