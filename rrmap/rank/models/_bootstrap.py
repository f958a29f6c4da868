"""Private: bootstrap resamples as count arrays, and what a leaderboard shows of them.

Resampling comparisons (or whole instances) with replacement only changes how
often each (pair, outcome) cell is counted, so a resample is a vector of cell
counts. Identical units are exchangeable: the units are first folded into
distinct types with their multiplicities, and a resample draws how many of
each type it takes from one multinomial. Comparisons fold into at most
``3 × pairs × distinct weights`` types, so even 100,000 comparisons and 1,000
resamples cost one small multinomial draw and one sparse product.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import sparse

from rrmap.errors import InputError
from rrmap.rank.limits import check_count
from rrmap.rank.models.intervals import bootstrap_interval

#: Fewer resampling units than this (``bootstrap_by`` a column) give a warning: with
#: few units the bootstrap distribution is coarse and its intervals too narrow.
MIN_BOOTSTRAP_UNITS = 20


class BootstrapWarning(UserWarning):
    """A bootstrap that runs but whose intervals are not to be trusted (too few units)."""


def bootstrap_problems(n_boot, boot_by: str, level: float, top_k: tuple[int, ...],
                       df: pd.DataFrame, by: str | None) -> list[str]:  # fmt: skip
    """What is wrong with bootstrap options (``fit_bradley_terry`` and ``fit_elo`` alike)."""
    problems = []
    try:
        check_count("bootstrap", n_boot, "MAX_RESAMPLES")
    except InputError as exc:
        problems.append(str(exc))
        n_boot = 0
    if not 0 < level < 1:
        problems.append(f"level must be between 0 and 1, got {level!r}")
    if not all(_whole(k) and k >= 1 for k in top_k):
        problems.append(f"top_k must be integers >= 1, got {top_k!r}")
    if n_boot and boot_by != "comparison":
        if boot_by not in df.columns:
            problems.append(f"column {boot_by!r} (bootstrap_by) not in the comparisons table")
        elif boot_by == by:
            problems.append(f"bootstrap_by={boot_by!r} is the grouping column (by): each "
                            "group has one value of it; resample comparisons instead")  # fmt: skip
        elif df[boot_by].isna().any():
            rows = np.flatnonzero(df[boot_by].isna().to_numpy())
            problems.append(f"column {boot_by!r} (bootstrap_by): missing value in "
                            f"{len(rows)} rows ({', '.join(map(str, rows[:20]))})")  # fmt: skip
        elif by is None or by in df.columns:
            problems += _unit_problems(df, boot_by, by)
    return problems


def _unit_problems(df: pd.DataFrame, boot_by: str, by: str | None) -> list[str]:
    """One unit (per group) is an error; fewer than :data:`MIN_BOOTSTRAP_UNITS` a warning."""
    if by is None:
        units = pd.Series([df[boot_by].nunique()], index=[None])
    else:
        units = df.groupby(by, sort=True, observed=True)[boot_by].nunique()
    if units.empty:
        return []
    where = "" if by is None else f" in {by}={units.idxmin()}"
    fewest = int(units.min())
    if fewest < 2:
        n_one = int((units < 2).sum())
        groups = "" if by is None else f" ({n_one} of {len(units)} groups)"
        return [f"bootstrap_by={boot_by!r}: only one {boot_by}{where}{groups}: every resample "
                "is the data itself and the intervals would have width 0; resample "
                "comparisons (bootstrap_by='comparison') or collect more units"]  # fmt: skip
    if fewest < MIN_BOOTSTRAP_UNITS:
        warnings.warn(
            f"bootstrap_by={boot_by!r}: only {fewest} units{where} (fewer than "
            f"{MIN_BOOTSTRAP_UNITS}): a bootstrap over so few units has a coarse distribution "
            "and intervals that are often much too narrow; compare them with the Wald "
            "interval (ci_low/ci_high)",
            BootstrapWarning,
            stacklevel=4,
        )
    return []


def _whole(value: object) -> bool:
    """Whether *value* is a whole number (no bool, no infinity)."""
    try:
        return not isinstance(value, bool) and int(value) == value  # type: ignore[call-overload]
    except (TypeError, ValueError, OverflowError):
        return False


def progress_bar(total: int, show: bool):
    """A tqdm bar of resamples on stderr, or None."""
    if not show:
        return None
    import sys

    from tqdm import tqdm

    return tqdm(total=total, desc="bootstrap", unit="resample", file=sys.stderr)


def unit_types(cell: np.ndarray, weight: np.ndarray, unit: np.ndarray | None, n_cells: int):
    """Distinct resampling units as rows of a sparse ``types × cells`` count matrix.

    ``unit`` gives each comparison's unit code (``None``: every comparison is
    its own unit). Returns the matrix and each type's multiplicity.
    """
    if unit is None:
        w_codes, w_inv = np.unique(weight, return_inverse=True)
        keys, mult = np.unique(cell * len(w_codes) + w_inv, return_counts=True)
        cells, w = keys // len(w_codes), w_codes[keys % len(w_codes)]
        m = sparse.csr_matrix((w, (np.arange(len(keys)), cells)), shape=(len(keys), n_cells))
        return m, mult
    codes, inv = np.unique(unit, return_inverse=True)
    m = sparse.csr_matrix((weight, (inv, cell)), shape=(len(codes), n_cells))
    m.sum_duplicates()
    return m, np.ones(len(codes), dtype=np.int64)


def resample_counts(types: sparse.csr_matrix, mult: np.ndarray, n_boot: int,
                    gen: np.random.Generator) -> np.ndarray:  # fmt: skip
    """``(n_boot, P, 3)`` counts: each resample draws as many units as there are."""
    n_units = int(mult.sum())
    draws = gen.multinomial(n_units, mult / n_units, size=n_boot)
    if np.all(np.diff(types.indptr) == 1):  # each type is one cell: scatter, no product
        counts = np.zeros((n_boot, types.shape[1]))
        np.add.at(counts.T, types.indices, (draws * types.data).T)
    else:
        counts = np.asarray((types.T @ sparse.csr_matrix(draws.T)).T.todense())
    return counts.reshape(n_boot, -1, 3)


def ranks(scores: np.ndarray) -> np.ndarray:
    """Rank 1 = best in each row; equal scores (to 1e-10) share the lowest rank.

    One sort per row: memory of a few copies of *scores*, never rows × k × k.
    """
    s = np.round(scores, 10)
    k = s.shape[1]
    order = np.argsort(-s, axis=1, kind="stable")
    ordered = np.take_along_axis(s, order, axis=1)
    first = np.ones(ordered.shape, dtype=bool)
    first[:, 1:] = ordered[:, 1:] != ordered[:, :-1]  # a new score starts a new rank
    start = np.maximum.accumulate(np.where(first, np.arange(k), 0), axis=1)
    out = np.empty(s.shape, dtype=np.int64)
    np.put_along_axis(out, order, start + 1, axis=1)
    return out


def summarise(scores: np.ndarray, level: float, top_k: tuple[int, ...], ci: str = "percentile",
              estimate: np.ndarray | None = None, jackknife: np.ndarray | None = None,
              weights: np.ndarray | None = None) -> pd.DataFrame:  # fmt: skip
    """Intervals of scores and ranks, and top-k probabilities, per candidate.

    ``ci`` is the interval method (:func:`rrmap.rank.models.intervals.bootstrap_interval`;
    ``"wald"`` gives percentile intervals here, the caller puts the Wald ones in
    ``boot_low``/``boot_high``). ``estimate`` (the data's scores) is needed by
    ``"basic"`` and ``"bca"``, ``jackknife`` (and its ``weights``) by ``"bca"``;
    the ranks' intervals use the same method on the ranks, as integers in ``1..k``.
    """
    method = "percentile" if ci == "wald" else ci
    r = ranks(scores)
    est_r = None if estimate is None else ranks(np.asarray(estimate)[None])[0]
    jack_r = None if jackknife is None else ranks(jackknife)
    low, high = bootstrap_interval(estimate, scores, level, method, jackknife=jackknife,
                                   weights=weights)  # fmt: skip
    r_low, r_high = bootstrap_interval(est_r, r, level, method, jackknife=jack_r,
                                       weights=weights, discrete=True)  # fmt: skip
    k = scores.shape[1]
    out = {
        "boot_low": low,
        "boot_high": high,
        "rank_low": np.clip(np.round(r_low), 1, k).astype(int),
        "rank_high": np.clip(np.round(r_high), 1, k).astype(int),
    }
    for k in top_k:
        out[f"p_top{k}"] = (r <= k).mean(axis=0)
    return pd.DataFrame(out)


def overlap_rank(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """1 + the number of candidates whose whole interval lies above this one's.

    Candidates whose intervals overlap share a rank, as leaderboards show it. A sort
    and a binary search: memory of k, never k × k.
    """
    lows = np.sort(low[~np.isnan(low)])
    return 1 + len(lows) - np.searchsorted(lows, high, side="right")
