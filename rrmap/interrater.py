"""Chance-corrected reliability between raters: Krippendorff's α, Fleiss' and Cohen's κ.

The pointwise agreement table (:func:`rrmap.agreement`) counts how often the
raters put a comparison key in the same zone; :func:`reliability` corrects
that for chance, the first figure asked of a rating study:

- **Krippendorff's α** for the zone (nominal, and ordinal in the order excellent,
  fair, stereotype, bad), for Δ and for log R (interval; R itself is kept beside),
  all raters together and every pair. Keys a rater lacks are missing values; a key
  rated by fewer than two of the raters carries no information.
- **Fleiss' κ** on the zones of the keys every rater rated, **Cohen's κ** on
  the zones of each pair.

Each value has a bootstrap interval over the keys (the units of the study): keys
are drawn with replacement, ``n_boot`` times, from the seeded stream
``reliability``; BCa by default (:mod:`rrmap.bootstrap`), the percentile interval
on request. A value that is undefined (no variation at all) is NaN with the reason
in ``note``.

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
``δ² = (x_i − x_j)²``, nominal ``δ² = [x_i ≠ x_j]``, ordinal
``δ²(c, k) = (Σ_{g=c}^{k} n_g − (n_c + n_k) / 2)²`` with ``n_g`` the pairable values
in level g (Krippendorff 2011, p. 6).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from itertools import combinations

import numpy as np
import pandas as pd

from rrmap._io.keys import key_codes
from rrmap._util.escape import join_groups
from rrmap._util.streams import Streams
from rrmap.bootstrap import (
    CI_METHODS,
    bootstrap_interval,
    resample_weights,
    studentized_interval,
)
from rrmap.errors import InputError
from rrmap.limits import MAX_BOOTSTRAP, check_count
from rrmap.points import key_columns
from rrmap.zones import QUALITY_LEVELS

__all__ = ["MAX_STUDENTIZED_UNITS", "RELIABILITY_CI", "RELIABILITY_COLUMNS", "reliability"]

#: Columns of :func:`reliability`'s table.
RELIABILITY_COLUMNS: tuple[str, ...] = (
    "measure",
    "variable",
    "raters",
    "value",
    "ci_low",
    "ci_high",
    "n_units",
    "metric",
    "ci_method",
    "ci_undefined",
    "note",
)

_N_Q = len(QUALITY_LEVELS)

#: How a note names each variable.
_NAMES = {"delta": "Δ", "r": "R", "log_r": "log R"}

#: A measure's values on each weight row, and the units (keys) it uses.
Measure = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def _alpha_interval(x: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Krippendorff's interval α of *x* (units × raters, NaN missing) for each weight row of
    *w* (resamples × units); and the pairable units (rated by at least two raters)."""
    present = ~np.isnan(x)
    m = present.sum(axis=1)
    keep = m >= 2
    if keep.sum() == 0:
        return np.full(len(w), np.nan), keep
    x, present, m, w = x[keep], present[keep], m[keep], w[:, keep]
    centre = x[present].mean()  # α does not change with a shift; centring keeps sums exact-ish
    xc = np.where(present, x - centre, 0.0)
    s1, s2 = xc.sum(axis=1), (xc * xc).sum(axis=1)
    inside = (2.0 * m * s2 - 2.0 * s1 * s1) / (m - 1)
    n = w @ m
    between = 2.0 * n * (w @ s2) - 2.0 * (w @ s1) ** 2
    return _alpha(n, w @ inside, between), keep


def _level_counts(z: np.ndarray, levels: int) -> np.ndarray:
    """How many of each unit's values are in each level, units × levels (−1 counts nowhere)."""
    return np.stack([(z == c).sum(axis=1) for c in range(levels)], axis=1)


def _alpha_nominal(
    z: np.ndarray, w: np.ndarray, levels: int = _N_Q
) -> tuple[np.ndarray, np.ndarray]:
    """Krippendorff's nominal α of codes *z* (units × raters, −1 missing) per weight row."""
    counts = _level_counts(z, levels)
    m = counts.sum(axis=1)
    keep = m >= 2
    if keep.sum() == 0:
        return np.full(len(w), np.nan), keep
    counts, m, w = counts[keep], m[keep], w[:, keep]
    inside = (m * m - (counts * counts).sum(axis=1)) / (m - 1)
    n = w @ m
    totals = w @ counts  # resamples × levels
    between = n * n - (totals * totals).sum(axis=1)
    return _alpha(n, w @ inside, between), keep


def _alpha_ordinal(
    z: np.ndarray, w: np.ndarray, levels: int = _N_Q
) -> tuple[np.ndarray, np.ndarray]:
    """Krippendorff's ordinal α of codes *z* (levels in their order; −1 missing) per weight
    row: the nominal coincidences weighted by ``δ²(c, k) = (Σ_{g=c}^{k} n_g − (n_c + n_k)/2)²``,
    the level counts ``n_g`` of the resample's pairable values."""
    counts = _level_counts(z, levels)
    m = counts.sum(axis=1)
    keep = m >= 2
    if keep.sum() == 0:
        return np.full(len(w), np.nan), keep
    counts, m, w = counts[keep].astype(float), m[keep], w[:, keep]
    # coincidences inside each unit: ordered pairs of values in levels (c, k), c ≠ k
    pairs = counts[:, :, None] * counts[:, None, :]
    pairs[:, np.arange(levels), np.arange(levels)] = 0.0
    inside = (w @ (pairs / (m - 1)[:, None, None]).reshape(len(m), -1)).reshape(-1, levels, levels)
    totals = w @ counts  # resamples × levels: n_g
    cum = np.concatenate([np.zeros((len(w), 1)), np.cumsum(totals, axis=1)], axis=1)
    lo = np.minimum.outer(np.arange(levels), np.arange(levels))
    hi = np.maximum.outer(np.arange(levels), np.arange(levels))
    span = cum[:, hi + 1] - cum[:, lo]  # Σ_{g=c}^{k} n_g
    delta2 = (span - (totals[:, :, None] + totals[:, None, :]) / 2.0) ** 2
    n = totals.sum(axis=1)
    between = (totals[:, :, None] * totals[:, None, :] * delta2).sum(axis=(1, 2))
    return _alpha(n, (inside * delta2).sum(axis=(1, 2)), between), keep


def _alpha(n: np.ndarray, inside: np.ndarray, between: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        out = 1.0 - (n - 1.0) * inside / between
    return np.where(between > 0, out, np.nan)


def _fleiss(z: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Fleiss' κ of the units every rater rated, per weight row."""
    complete = (z >= 0).all(axis=1)
    k = z.shape[1]
    if complete.sum() == 0:
        return np.full(len(w), np.nan), complete
    counts = _level_counts(z[complete], _N_Q)
    w = w[:, complete]
    total = w.sum(axis=1)
    agree = ((counts * counts).sum(axis=1) - k) / (k * (k - 1.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        p_bar = (w @ agree) / total
        shares = (w @ counts) / (k * total)[:, None]
        p_e = (shares * shares).sum(axis=1)
        kappa = (p_bar - p_e) / (1.0 - p_e)
    return np.where((total > 0) & (p_e < 1), kappa, np.nan), complete


def _cohen(a: np.ndarray, b: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cohen's κ of two raters' codes on the units both rated, per weight row."""
    both = (a >= 0) & (b >= 0)
    if both.sum() == 0:
        return np.full(len(w), np.nan), both
    a, b, w = a[both], b[both], w[:, both]
    total = w.sum(axis=1)
    ind_a = np.stack([a == c for c in range(_N_Q)], axis=1).astype(float)
    ind_b = np.stack([b == c for c in range(_N_Q)], axis=1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p_o = (w @ (a == b).astype(float)) / total
        p_e = ((w @ ind_a) * (w @ ind_b)).sum(axis=1) / (total * total)
        kappa = (p_o - p_e) / (1.0 - p_e)
    return np.where((total > 0) & (p_e < 1), kappa, np.nan), both


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


#: Interval methods of :func:`reliability`: those of the effect sizes, and the bootstrap-t.
RELIABILITY_CI: tuple[str, ...] = (*CI_METHODS, "studentized")

#: Largest number of keys a studentized interval is computed for (its cost grows as
#: B · n²); above it, BCa.
MAX_STUDENTIZED_UNITS = 1000

#: Weight cells evaluated at once by the jackknife of the resamples.
_JACK_CELLS = 4_000_000


def reliability(
    points: pd.DataFrame,
    *,
    n_boot: int = 1000,
    rng: int | np.random.Generator | None = None,
    level: float = 0.95,
    ci: str = "bca",
    pairs: bool = True,
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
        Coverage of the intervals.
    ci : {"bca", "percentile", "studentized"}, default "bca"
        Interval method (:func:`rrmap.bootstrap.bootstrap_interval`): BCa where it is
        defined (else the percentile interval, and ``note`` says why), the percentile
        interval everywhere, or the studentized (bootstrap-t) interval
        (:func:`rrmap.bootstrap.studentized_interval`, jackknife standard errors; closest
        to its level with few keys, docs/tests.md; BCa above
        :data:`MAX_STUDENTIZED_UNITS` keys).
    pairs : bool, default True
        Every pair of raters besides all raters together (False: all raters only).

    Returns
    -------
    DataFrame
        One row per measure, variable and rater set (and query corpus, column
        ``query`` first, when the points hold several; each corpus's keys are its
        units, resampled from its own stream): ``measure``
        (``krippendorff_alpha``, ``krippendorff_alpha_ordinal``, ``fleiss_kappa``,
        ``cohens_kappa``), ``variable`` (``zone``, ``delta``, ``log_r``, ``r``),
        ``raters`` (joined with ``|``), ``value``, ``ci_low``, ``ci_high``, ``n_units``
        (keys used: rated by at least two of the raters for α, by all of them for κ),
        ``metric`` (``nominal``, ``ordinal``, ``interval``: the distance between two
        values), ``ci_method`` (``bca`` or ``percentile``), ``ci_undefined`` (resamples
        on which the value was undefined, left out of the interval) and ``note`` (why a
        value is undefined, or why BCa fell back). All raters first, then every pair.
        1 is perfect agreement, 0 what chance gives; NaN when undefined.

    Examples
    --------
    >>> import rrmap
    >>> rel = reliability(rrmap.points(rrmap.datasets.load_example_ratings()), n_boot=200, rng=0)
    >>> rel.iloc[0][["measure", "variable", "raters"]].tolist(), int(rel.n_units.iloc[0])
    (['krippendorff_alpha', 'zone', 'E1|E2|E3'], 135)
    >>> rel.measure.value_counts().to_dict()
    {'krippendorff_alpha': 16, 'krippendorff_alpha_ordinal': 4, 'cohens_kappa': 3, ...}
    """
    for col in ("expert", "delta", "r", "quality"):
        if col not in points.columns:
            raise InputError(f"points table lacks column {col!r}")
    n_boot = check_count("n_boot", n_boot, MAX_BOOTSTRAP)
    if not 0 < level < 1:
        raise InputError(f"level must lie in (0, 1), got {level!r}")
    if ci not in RELIABILITY_CI:
        raise InputError(f"ci must be one of {list(RELIABILITY_CI)}, got {ci!r}")
    raters = sorted(points["expert"].astype(str).unique())
    if len(raters) < 2:
        raise InputError(f"reliability needs at least two raters, found {raters}")
    streams = Streams.of(rng)
    if "query" not in points.columns:
        gen = streams.generator("reliability")
        return _reliability(points, raters, n_boot, gen, level, ci, pairs)
    from rrmap.points import query_corpora

    parts = []
    corpus = points["query"].astype(str)
    for q in query_corpora(points):
        part = points.loc[(corpus == q).to_numpy()]
        gen = streams.within("query", q).generator("reliability")
        rows = _reliability(part, raters, n_boot, gen, level, ci, pairs)
        rows.insert(0, "query", q)
        parts.append(rows)
    return pd.concat(parts, ignore_index=True)


def _measures(
    cols: list[int], n_raters: int, zone: np.ndarray, data: dict[str, np.ndarray]
) -> list[tuple[str, str, str, Measure]]:
    """(measure, variable, metric, function of the weights) of one rater set, in order."""
    z = zone[:, cols]
    out: list[tuple[str, str, str, Measure]] = [
        ("krippendorff_alpha", "zone", "nominal", lambda w: _alpha_nominal(z, w)),
        ("krippendorff_alpha_ordinal", "zone", "ordinal", lambda w: _alpha_ordinal(z, w)),
    ]
    for variable in ("delta", "log_r", "r"):
        x = data[variable][:, cols]
        out.append(("krippendorff_alpha", variable, "interval", _bind(_alpha_interval, x)))
    if len(cols) > 2 or n_raters == 2:
        out.append(("fleiss_kappa", "zone", "nominal", lambda w: _fleiss(z, w)))
    if len(cols) == 2:
        a, b = z[:, 0], z[:, 1]
        out.append(("cohens_kappa", "zone", "nominal", lambda w: _cohen(a, b, w)))
    return out


def _bind(fn: Callable, x: np.ndarray) -> Measure:
    return lambda w: fn(x, w)


def _reliability(
    points: pd.DataFrame,
    raters: list[str],
    n_boot: int,
    gen: np.random.Generator,
    level: float,
    ci: str,
    pairs: bool = True,
) -> pd.DataFrame:
    """The rows of :func:`reliability` for one set of comparisons (one query corpus)."""
    zone, delta, r = _wide(points, raters)
    with np.errstate(divide="ignore", invalid="ignore"):
        data = {"delta": delta, "r": r, "log_r": np.log(r)}
    n_units = len(zone)
    weights = np.ones((1, n_units))
    if n_boot:
        weights = np.vstack([weights, resample_weights(n_units, int(n_boot), gen)])
    weights = weights.astype(float)  # products of floats run in BLAS, of integers do not
    rows = []
    sets = [tuple(range(len(raters))), *(combinations(range(len(raters)), 2) if pairs else [])]
    for s in dict.fromkeys(sets):
        cols = list(s)
        name = join_groups(raters[i] for i in cols)
        for measure, variable, metric, fn in _measures(cols, len(raters), zone, data):
            values, used = fn(weights)
            row = {"measure": measure, "variable": variable, "raters": name}
            row.update(value=float(values[0]), n_units=int(used.sum()), metric=metric)
            row.update(_interval_of(fn, values, used, weights, level, ci))
            if np.isnan(row["value"]):
                row["note"] = _undefined(measure, variable, row["n_units"], len(cols))
            rows.append(row)
    out = pd.DataFrame(rows, columns=list(RELIABILITY_COLUMNS))
    out["ci_undefined"] = out["ci_undefined"].astype("int64")
    return out


def _interval_of(
    fn: Measure, values: np.ndarray, used: np.ndarray, weights: np.ndarray, level: float, ci: str
) -> dict:
    """The interval columns of a measure whose values on the data and on its resamples
    (the rows of *weights*) are *values*."""
    n_units = weights.shape[1]
    empty = {"ci_low": np.nan, "ci_high": np.nan, "ci_method": "", "ci_undefined": 0, "note": ""}
    if len(values) < 2 or np.isnan(values[0]):
        return empty
    if ci == "studentized" and used.sum() <= MAX_STUDENTIZED_UNITS:
        jack = _jackknife(fn, n_units)[used]
        m = len(jack)
        se = float(np.sqrt((m - 1) / m * ((jack - jack.mean()) ** 2).sum()))
        draw_se = _resample_se(fn, weights[1:], used)
        iv = studentized_interval(float(values[0]), se, values[1:], draw_se, level=level)
    else:
        method = "bca" if ci == "studentized" else ci
        jack = _jackknife(fn, n_units)[used] if method == "bca" else None
        iv = bootstrap_interval(float(values[0]), values[1:], jack, level=level, method=method)
        if ci == "studentized":
            iv = replace(iv, note=_join(f"studentized needs B·n² evaluations: BCa above "
                                        f"{MAX_STUDENTIZED_UNITS:,} keys", iv.note))  # fmt: skip
    return {
        "ci_low": iv.low,
        "ci_high": iv.high,
        "ci_method": iv.method,
        "ci_undefined": iv.undefined,
        "note": iv.note,
    }


def _resample_se(fn: Measure, resamples: np.ndarray, used: np.ndarray) -> np.ndarray:
    """The jackknife standard error of the measure on each resample: one draw of a used
    unit left out in turn (weight less one), each such value counted as often as the unit
    was drawn. Evaluated in chunks of resamples (memory linear in B, quadratic in units)."""
    units = np.flatnonzero(used)
    n, m = resamples.shape[1], len(units)
    step = max(1, _JACK_CELLS // max(1, n * m))
    drop = np.zeros((m, n))
    drop[np.arange(m), units] = 1.0
    out = np.empty(len(resamples))
    for start in range(0, len(resamples), step):
        w = resamples[start : start + step]
        less = np.maximum(w[:, None, :] - drop[None], 0.0)  # a unit not drawn: masked below
        vals = fn(less.reshape(-1, n))[0].reshape(len(w), m)
        count = w[:, units]
        vals = np.where(count > 0, vals, 0.0)
        size = count.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = (count * vals).sum(axis=1) / size
            var = (size - 1) / size * (count * (vals - mean[:, None]) ** 2).sum(axis=1)
        out[start : start + step] = np.sqrt(var)
    return out


def _join(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


def _jackknife(fn: Measure, n_units: int, chunk: int = 512) -> np.ndarray:
    """The measure with each unit left out in turn (weights 1 but 0 at the unit), evaluated
    in chunks of rows so that memory stays linear in the number of units."""
    return np.concatenate([fn(w)[0] for w in _leave_one_out(n_units, chunk)])


def _leave_one_out(n_units: int, chunk: int) -> Iterator[np.ndarray]:
    for start in range(0, n_units, chunk):
        w = np.ones((min(chunk, n_units - start), n_units))
        w[np.arange(len(w)), start + np.arange(len(w))] = 0.0
        yield w


def _undefined(measure: str, variable: str, used: int, n_raters: int) -> str:
    """Why a value is undefined: no unit to compare, or no variation at all."""
    if not used:
        who = "all" if measure == "fleiss_kappa" or n_raters == 2 else "two"
        return f"no key rated by {who} of these raters"
    if variable == "zone":
        return "no variation: every rating in one zone"
    return f"no variation: every rating has the same {_NAMES.get(variable, variable)}"


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
