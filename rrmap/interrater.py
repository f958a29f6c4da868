"""Chance-corrected reliability between raters: Krippendorff's α, Fleiss' and Cohen's κ.

The pointwise agreement table (:func:`rrmap.agreement`) counts how often the
raters put a comparison key in the same zone; :func:`reliability` corrects
that for chance, the first figure asked of a rating study:

- **Krippendorff's α** for the zone (nominal), and for Δ and R (interval),
  all raters together and every pair. Keys a rater lacks are missing values;
  a key rated by fewer than two of the raters carries no information.
- **Fleiss' κ** on the zones of the keys every rater rated, **Cohen's κ** on
  the zones of each pair.

Each value has a percentile bootstrap interval over the keys (the units of
the study): keys are drawn with replacement, ``n_boot`` times, from the
seeded stream ``reliability``.

The formulas are the textbook ones (Krippendorff 2011, "Computing
Krippendorff's Alpha-Reliability"; Fleiss 1971; Cohen 1960), written for
bootstrap weights so that all resamples are evaluated at once: a resample is
a vector of how often each key was drawn, and every quantity below is a
weighted sum over keys. The tests check the point values against the
``krippendorff`` package and statsmodels' ``fleiss_kappa`` / ``cohens_kappa``;
those compute one value per call (the package's interval α takes a quarter
of a second on the study's 405 values), which a bootstrap of thousands of
resamples cannot afford.

α per resample with weights ``w_u`` (``m_u`` values in key u, ``n = Σ w_u m_u``)::

    α = 1 − (n − 1) · Σ_u w_u D_u / (m_u − 1)  /  Σ_{i≠j} δ²(i, j)

with ``D_u = Σ_{i≠j in u} δ²`` the disagreement inside key u and the
denominator over all ordered pairs of pairable values; interval
``δ² = (x_i − x_j)²``, nominal ``δ² = [x_i ≠ x_j]``.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd

from rrmap._io.keys import key_codes
from rrmap._util.escape import join_groups
from rrmap._util.streams import Streams
from rrmap.errors import InputError
from rrmap.limits import MAX_BOOTSTRAP, check_count
from rrmap.points import key_columns
from rrmap.zones import QUALITY_LEVELS

__all__ = ["RELIABILITY_COLUMNS", "reliability"]

#: Columns of :func:`reliability`'s table.
RELIABILITY_COLUMNS: tuple[str, ...] = (
    "measure",
    "variable",
    "raters",
    "value",
    "ci_low",
    "ci_high",
    "n_units",
)

_N_Q = len(QUALITY_LEVELS)


def _alpha_interval(x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, int]:
    """Krippendorff's interval α of *x* (units × raters, NaN missing) for each weight row of
    *w* (resamples × units); and the number of pairable units."""
    present = ~np.isnan(x)
    m = present.sum(axis=1)
    keep = m >= 2
    if keep.sum() == 0:
        return np.full(len(w), np.nan), 0
    x, present, m, w = x[keep], present[keep], m[keep], w[:, keep]
    centre = x[present].mean()  # α does not change with a shift; centring keeps sums exact-ish
    xc = np.where(present, x - centre, 0.0)
    s1, s2 = xc.sum(axis=1), (xc * xc).sum(axis=1)
    inside = (2.0 * m * s2 - 2.0 * s1 * s1) / (m - 1)
    n = w @ m
    between = 2.0 * n * (w @ s2) - 2.0 * (w @ s1) ** 2
    return _alpha(n, w @ inside, between), int(keep.sum())


def _alpha_nominal(z: np.ndarray, w: np.ndarray, levels: int = _N_Q) -> tuple[np.ndarray, int]:
    """Krippendorff's nominal α of codes *z* (units × raters, −1 missing) per weight row."""
    counts = np.stack([(z == c).sum(axis=1) for c in range(levels)], axis=1)  # units × levels
    m = counts.sum(axis=1)
    keep = m >= 2
    if keep.sum() == 0:
        return np.full(len(w), np.nan), 0
    counts, m, w = counts[keep], m[keep], w[:, keep]
    inside = (m * m - (counts * counts).sum(axis=1)) / (m - 1)
    n = w @ m
    totals = w @ counts  # resamples × levels
    between = n * n - (totals * totals).sum(axis=1)
    return _alpha(n, w @ inside, between), int(keep.sum())


def _alpha(n: np.ndarray, inside: np.ndarray, between: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        out = 1.0 - (n - 1.0) * inside / between
    return np.where(between > 0, out, np.nan)


def _fleiss(z: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, int]:
    """Fleiss' κ of the units every rater rated, per weight row."""
    complete = (z >= 0).all(axis=1)
    k = z.shape[1]
    if complete.sum() == 0:
        return np.full(len(w), np.nan), 0
    counts = np.stack([(z[complete] == c).sum(axis=1) for c in range(_N_Q)], axis=1)
    w = w[:, complete]
    total = w.sum(axis=1)
    agree = ((counts * counts).sum(axis=1) - k) / (k * (k - 1.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        p_bar = (w @ agree) / total
        shares = (w @ counts) / (k * total)[:, None]
        p_e = (shares * shares).sum(axis=1)
        kappa = (p_bar - p_e) / (1.0 - p_e)
    return np.where((total > 0) & (p_e < 1), kappa, np.nan), int(complete.sum())


def _cohen(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, int]:
    """Cohen's κ of two raters' codes on the units both rated, per weight row."""
    both = (a >= 0) & (b >= 0)
    if both.sum() == 0:
        return np.full(len(w), np.nan), 0
    a, b, w = a[both], b[both], w[:, both]
    total = w.sum(axis=1)
    ind_a = np.stack([a == c for c in range(_N_Q)], axis=1).astype(float)
    ind_b = np.stack([b == c for c in range(_N_Q)], axis=1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_o = (w @ (a == b).astype(float)) / total
        p_e = ((w @ ind_a) * (w @ ind_b)).sum(axis=1) / (total * total)
        kappa = (p_o - p_e) / (1.0 - p_e)
    return np.where((total > 0) & (p_e < 1), kappa, np.nan), int(both.sum())


def _wide(points: pd.DataFrame, raters: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Zone codes (−1 missing), Δ and R (NaN missing) as units × raters matrices."""
    keys = [c for c in key_columns(points) if c != "expert" and c in points.columns]
    if not keys:
        raise InputError(
            "reliability needs the comparison keys (category columns) of the points; "
            f"columns: {list(points.columns)}"
        )
    unit = key_codes({c: points[c] for c in keys})  # one unit per comparison key
    rater = pd.Index(raters).get_indexer(points["expert"].astype(str))
    dup = pd.Series(unit * len(raters) + rater).duplicated()
    if dup.any():
        rows = np.flatnonzero(dup.to_numpy())[:20].tolist()
        raise InputError(f"a rater has two points for one comparison key (rows {rows})")
    n_units = int(unit.max(initial=-1)) + 1
    zone = np.full((n_units, len(raters)), -1, dtype=np.intp)
    delta = np.full((n_units, len(raters)), np.nan)
    r = np.full((n_units, len(raters)), np.nan)
    quality = pd.Index(list(QUALITY_LEVELS)).get_indexer(points["quality"].astype(str))
    zone[unit, rater] = quality
    delta[unit, rater] = points["delta"].to_numpy(dtype=float)
    r[unit, rater] = points["r"].to_numpy(dtype=float)
    return zone, delta, r


def reliability(
    points: pd.DataFrame,
    *,
    n_boot: int = 1000,
    rng: int | np.random.Generator | None = None,
    level: float = 0.95,
) -> pd.DataFrame:
    """Chance-corrected reliability of the raters: Krippendorff's α, Fleiss' and Cohen's κ.

    Parameters
    ----------
    points : DataFrame
        Output of :func:`rrmap.points` with at least two raters (the units
        are its comparison keys: every category but the rater).
    n_boot : int, default 1000
        Bootstrap resamples of the keys for the intervals (0: no intervals).
    rng : int, Generator or None
        Seed; the resamples come from the stream ``reliability`` of it, so
        :func:`rrmap.analyze` with the same seed gives the same intervals.
    level : float, default 0.95
        Coverage of the percentile intervals.

    Returns
    -------
    DataFrame
        One row per measure, variable and rater set (and query corpus, column
        ``query`` first, when the points hold several; each corpus's keys are its
        units, resampled from its own stream): ``measure``
        (``krippendorff_alpha``, ``fleiss_kappa``, ``cohens_kappa``),
        ``variable`` (``zone``, ``delta``, ``r``), ``raters`` (joined with
        ``|``), ``value``, ``ci_low``, ``ci_high``, ``n_units`` (keys used:
        rated by at least two of the raters for α, by all of them for κ).
        All raters first, then every pair. 1 is perfect agreement, 0 what
        chance gives; NaN when undefined (no variation at all).

    Examples
    --------
    >>> import rrmap
    >>> rel = reliability(rrmap.points(rrmap.datasets.load_example_ratings()), n_boot=200, rng=0)
    >>> rel.iloc[0][["measure", "variable", "raters"]].tolist(), int(rel.n_units.iloc[0])
    (['krippendorff_alpha', 'zone', 'E1|E2|E3'], 135)
    >>> rel.measure.value_counts().to_dict()
    {'krippendorff_alpha': 12, 'cohens_kappa': 3, 'fleiss_kappa': 1}
    """
    for col in ("expert", "delta", "r", "quality"):
        if col not in points.columns:
            raise InputError(f"points table lacks column {col!r}")
    n_boot = check_count("n_boot", n_boot, MAX_BOOTSTRAP)
    if not 0 < level < 1:
        raise InputError(f"level must lie in (0, 1), got {level!r}")
    raters = sorted(points["expert"].astype(str).unique())
    if len(raters) < 2:
        raise InputError(f"reliability needs at least two raters, found {raters}")
    streams = Streams.of(rng)
    if "query" not in points.columns:
        return _reliability(points, raters, n_boot, streams.generator("reliability"), level)
    from rrmap.points import query_corpora

    parts = []
    corpus = points["query"].astype(str)
    for q in query_corpora(points):
        part = points.loc[(corpus == q).to_numpy()]
        gen = streams.within("query", q).generator("reliability")
        rows = _reliability(part, raters, n_boot, gen, level)
        rows.insert(0, "query", q)
        parts.append(rows)
    return pd.concat(parts, ignore_index=True)


def _reliability(
    points: pd.DataFrame, raters: list[str], n_boot: int, gen: np.random.Generator, level: float
) -> pd.DataFrame:
    """The rows of :func:`reliability` for one set of comparisons (one query corpus)."""
    zone, delta, r = _wide(points, raters)
    n_units = len(zone)
    weights = np.ones((1, n_units))
    if n_boot:
        weights = np.vstack(
            [weights, gen.multinomial(n_units, np.full(n_units, 1.0 / n_units), size=int(n_boot))]
        )
    rows = []
    sets = [tuple(range(len(raters))), *combinations(range(len(raters)), 2)]
    for s in dict.fromkeys(sets):
        cols = list(s)
        name = join_groups(raters[i] for i in cols)
        found = [
            ("krippendorff_alpha", "zone", *_alpha_nominal(zone[:, cols], weights)),
            ("krippendorff_alpha", "delta", *_alpha_interval(delta[:, cols], weights)),
            ("krippendorff_alpha", "r", *_alpha_interval(r[:, cols], weights)),
        ]
        if len(cols) > 2 or len(raters) == 2:
            found.append(("fleiss_kappa", "zone", *_fleiss(zone[:, cols], weights)))
        if len(cols) == 2:
            found.append(
                ("cohens_kappa", "zone", *_cohen(zone[:, cols[0]], zone[:, cols[1]], weights))
            )
        for measure, variable, values, used in found:
            low, high = _interval(values[1:], level)
            rows.append((measure, variable, name, float(values[0]), low, high, used))
    return pd.DataFrame(rows, columns=list(RELIABILITY_COLUMNS))


def _interval(boot: np.ndarray, level: float) -> tuple[float, float]:
    ok = boot[~np.isnan(boot)]
    if not len(ok):
        return float("nan"), float("nan")
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(ok, [tail, 1.0 - tail])
    return float(low), float(high)


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
