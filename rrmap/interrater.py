"""Chance-corrected reliability between raters: Krippendorff's α, Fleiss' and Cohen's κ.

The pointwise agreement table (:func:`rrmap.agreement`) counts how often the
raters put a comparison key in the same zone; :func:`reliability` corrects
that for chance, the first figure asked of a rating study:

- **Krippendorff's α** for the zone (nominal, and ordinal in the order excellent,
  fair, stereotype, bad), for Δ and for log R (interval; on R itself on request:
  ``with_r=True``), all raters together and every pair. Keys a rater lacks are missing values; a key
  rated by fewer than two of the raters carries no information.
- **Fleiss' κ** on the zones of the keys every rater rated, **Cohen's κ** on
  the zones of each pair.

Each value has a bootstrap interval over the keys (the units of the study): keys
are drawn with replacement, ``n_boot`` times, from the seeded stream
``reliability``. By default (``ci="auto"``) each measure gets the interval that
reaches its level from 50 keys on (docs/tests.md, "Intervals"): the studentized
(bootstrap-t) interval for the interval α on Δ and log R (and R), BCa for the zone α
and the κ (:mod:`rrmap.bootstrap`); ``ci_method`` says which. BCa, percentile or
studentized intervals for every row on request. A value that is undefined (no
variation at all) is NaN with the reason in ``note``.

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

Every measure is thus a function of weighted sums ``T = w @ A`` of per-key statistics
``A`` (keys × k: values, disagreement inside, Σx and Σx² or the values per level; for
κ the keys, agreements and values per level). Leaving key u out subtracts ``A[u]``
from ``T``: the jackknife of the data (for BCa) costs O(n · k), and that of every
resample (the standard errors of the studentized interval) O(B · n · k), instead of
n and B · n evaluations on whole weight vectors.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
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

__all__ = ["AUTO_CI", "RELIABILITY_CI", "RELIABILITY_COLUMNS", "reliability"]

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

#: Relative size below which the disagreement between all values of the interval α is
#: rounding, not variation (each value the same up to the last digits).
_TINY = 1e-12

#: How a note names each variable.
_NAMES = {"delta": "Δ", "r": "R", "log_r": "log R"}


@dataclass(frozen=True)
class _Linear:
    """A measure as a function of weighted sums over units: its value on weights ``w``
    (resamples × units) is ``of_sums(w @ stats)``, *stats* holding per-unit statistics
    (units × k; zero rows for the units it does not use). Leaving unit u out of a resample
    subtracts ``stats[u]`` from the resample's sums, so the jackknife of every resample
    costs O(B · n · k) instead of B · n evaluations on full weight vectors."""

    stats: np.ndarray
    used: np.ndarray
    of_sums: Callable[[np.ndarray], np.ndarray]

    def __call__(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The measure on each weight row of *w*, and the units it uses."""
        if not self.used.any():
            return np.full(len(w), np.nan), self.used
        return self._of(np.asarray(w, dtype=float) @ self.stats), self.used

    def _of(self, sums: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.of_sums(sums)

    def jackknife(self) -> np.ndarray:
        """The measure on the data with each used unit left out in turn."""
        a = self.stats[self.used]
        return self._of(self.stats.sum(axis=0) - a)

    def resample_se(self, resamples: np.ndarray) -> np.ndarray:
        """The jackknife standard error on each resample: one draw of a used unit left out
        in turn (its sums less the unit's statistics), each such value counted as often as
        the unit was drawn. In chunks of resamples: memory beyond *resamples* bounded."""
        a = self.stats[self.used]
        m, k = a.shape
        step = max(1, _JACK_CELLS // max(1, m * k))
        out = np.empty(len(resamples))
        for start in range(0, len(resamples), step):
            c = np.asarray(resamples[start : start + step], dtype=float)[:, self.used]
            vals = self._of(((c @ a)[:, None, :] - a[None]).reshape(-1, k))
            vals = np.where(c > 0, vals.reshape(len(c), m), 0.0)  # a unit not drawn: none
            size = c.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = (c * vals).sum(axis=1) / size
                var = (size - 1) / size * (c * (vals - mean[:, None]) ** 2).sum(axis=1)
            out[start : start + step] = np.sqrt(var)
        return out


def _interval(x: np.ndarray) -> _Linear:
    """Krippendorff's interval α of *x* (units × raters, NaN missing); the units used are
    those rated by at least two raters. Sums: values, disagreement inside, Σx, Σx²."""
    present = ~np.isnan(x)
    m = present.sum(axis=1)
    keep = m >= 2
    stats = np.zeros((len(x), 4))
    if keep.any():
        centre = x[present & keep[:, None]].mean()  # α does not change with a shift
        xc = np.where(present & keep[:, None], x - centre, 0.0)
        s1, s2 = xc.sum(axis=1), (xc * xc).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            inside = np.where(keep, (2.0 * m * s2 - 2.0 * s1 * s1) / (m - 1), 0.0)
        stats = np.column_stack([np.where(keep, m, 0), inside, s1, s2]).astype(float)

    def of_sums(t: np.ndarray) -> np.ndarray:
        scale = 2.0 * t[:, 0] * t[:, 3]
        between = scale - 2.0 * t[:, 2] ** 2
        # no variation left (one varying key left out): zero, not the rounding of a difference
        between = np.where(between > _TINY * scale, between, 0.0)
        return _alpha(t[:, 0], t[:, 1], between)

    return _Linear(stats, keep, of_sums)


def _level_counts(z: np.ndarray, levels: int) -> np.ndarray:
    """How many of each unit's values are in each level, units × levels (−1 counts nowhere)."""
    return np.stack([(z == c).sum(axis=1) for c in range(levels)], axis=1)


def _nominal(z: np.ndarray, levels: int = _N_Q) -> _Linear:
    """Krippendorff's nominal α of codes *z* (units × raters, −1 missing). Sums: values,
    disagreement inside, values per level."""
    counts = _level_counts(z, levels)
    m = counts.sum(axis=1)
    keep = m >= 2
    counts = np.where(keep[:, None], counts, 0).astype(float)
    m = counts.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        inside = np.where(keep, (m * m - (counts * counts).sum(axis=1)) / (m - 1), 0.0)

    def of_sums(t: np.ndarray) -> np.ndarray:
        totals = t[:, 2:]
        between = t[:, 0] * t[:, 0] - (totals * totals).sum(axis=1)
        return _alpha(t[:, 0], t[:, 1], between)

    return _Linear(np.column_stack([m, inside, counts]), keep, of_sums)


def _ordinal(z: np.ndarray, levels: int = _N_Q) -> _Linear:
    """Krippendorff's ordinal α of codes *z* (levels in their order; −1 missing): the nominal
    coincidences weighted by ``δ²(c, k) = (Σ_{g=c}^{k} n_g − (n_c + n_k)/2)²``, the level
    counts ``n_g`` of the pairable values. Sums: values per level, coincidences inside."""
    counts = _level_counts(z, levels)
    m = counts.sum(axis=1)
    keep = m >= 2
    counts = np.where(keep[:, None], counts, 0).astype(float)
    # coincidences inside each unit: ordered pairs of values in levels (c, k), c ≠ k
    pairs = counts[:, :, None] * counts[:, None, :]
    pairs[:, np.arange(levels), np.arange(levels)] = 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        pairs = np.where(keep[:, None, None], pairs / (m - 1)[:, None, None], 0.0)
    lo = np.minimum.outer(np.arange(levels), np.arange(levels))
    hi = np.maximum.outer(np.arange(levels), np.arange(levels))

    def of_sums(t: np.ndarray) -> np.ndarray:
        totals, inside = t[:, :levels], t[:, levels:].reshape(-1, levels, levels)
        cum = np.concatenate([np.zeros((len(t), 1)), np.cumsum(totals, axis=1)], axis=1)
        span = cum[:, hi + 1] - cum[:, lo]  # Σ_{g=c}^{k} n_g
        delta2 = (span - (totals[:, :, None] + totals[:, None, :]) / 2.0) ** 2
        between = (totals[:, :, None] * totals[:, None, :] * delta2).sum(axis=(1, 2))
        return _alpha(totals.sum(axis=1), (inside * delta2).sum(axis=(1, 2)), between)

    return _Linear(np.column_stack([counts, pairs.reshape(len(z), -1)]), keep, of_sums)


def _alpha(n: np.ndarray, inside: np.ndarray, between: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        out = 1.0 - (n - 1.0) * inside / between
    return np.where(between > 0, out, np.nan)


def _fleiss(z: np.ndarray) -> _Linear:
    """Fleiss' κ of the units every rater rated. Sums: units, their mean agreement, values
    per level."""
    complete = (z >= 0).all(axis=1)
    k = z.shape[1]
    counts = np.where(complete[:, None], _level_counts(z, _N_Q), 0).astype(float)
    agree = np.where(complete, ((counts * counts).sum(axis=1) - k) / (k * (k - 1.0)), 0.0)

    def of_sums(t: np.ndarray) -> np.ndarray:
        total = t[:, 0]
        p_bar = t[:, 1] / total
        shares = t[:, 2:] / (k * total)[:, None]
        p_e = (shares * shares).sum(axis=1)
        return np.where((total > 0) & (p_e < 1), (p_bar - p_e) / (1.0 - p_e), np.nan)

    return _Linear(np.column_stack([complete, agree, counts]).astype(float), complete, of_sums)


def _cohen(a: np.ndarray, b: np.ndarray) -> _Linear:
    """Cohen's κ of two raters' codes on the units both rated. Sums: units, agreements, each
    rater's values per level."""
    both = (a >= 0) & (b >= 0)
    ind_a = np.stack([both & (a == c) for c in range(_N_Q)], axis=1)
    ind_b = np.stack([both & (b == c) for c in range(_N_Q)], axis=1)
    stats = np.column_stack([both, both & (a == b), ind_a, ind_b]).astype(float)

    def of_sums(t: np.ndarray) -> np.ndarray:
        total = t[:, 0]
        p_o = t[:, 1] / total
        p_e = (t[:, 2 : 2 + _N_Q] * t[:, 2 + _N_Q :]).sum(axis=1) / (total * total)
        return np.where((total > 0) & (p_e < 1), (p_o - p_e) / (1.0 - p_e), np.nan)

    return _Linear(stats, both, of_sums)


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


#: Interval methods of :func:`reliability`: ``auto`` (each measure the one that covers),
#: those of the effect sizes, and the bootstrap-t.
RELIABILITY_CI: tuple[str, ...] = ("auto", *CI_METHODS, "studentized")

#: The method ``ci="auto"`` gives each metric: the studentized interval for the interval
#: α (Δ, log R; R on request), BCa for the zone α and κ (docs/tests.md, "Intervals": those reach
#: their level from 50 keys on, the others over- or under-cover there).
AUTO_CI: dict[str, str] = {"interval": "studentized", "nominal": "bca", "ordinal": "bca"}

#: Cells (resamples × used units × sums) the jackknife of the resamples holds at once.
_JACK_CELLS = 4_000_000


def reliability(
    points: pd.DataFrame,
    *,
    n_boot: int = 1000,
    rng: int | np.random.Generator | None = None,
    level: float = 0.95,
    ci: str = "auto",
    pairs: bool = True,
    with_r: bool = False,
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
    ci : {"auto", "bca", "percentile", "studentized"}, default "auto"
        Interval method. ``"auto"``: per measure the one that covers (:data:`AUTO_CI`):
        the studentized interval for the interval α (Δ, log R, R), BCa for the zone α
        and the κ. ``"bca"``: BCa where it is defined, else the percentile interval
        (:func:`rrmap.bootstrap.bootstrap_interval`; ``note`` says why).
        ``"percentile"``: the percentile interval. ``"studentized"``: the bootstrap-t
        (:func:`rrmap.bootstrap.studentized_interval`, jackknife standard errors of the
        data and of each resample; where no standard error is defined, the percentile
        interval and ``note`` says why). Coverage by number of keys: docs/tests.md.
    pairs : bool, default True
        Every pair of raters besides all raters together (False: all raters only).
    with_r : bool, default False
        Also the interval α on R itself (variable ``r``), for comparison with analyses on
        R. Off by default: R is a ratio, and log R (always given) weighs a halving and a
        doubling alike; the intervals of α on R also cover less than their level with few
        keys (0.939–0.942 for 95 % at 50 keys; docs/tests.md, "Intervals").

    Returns
    -------
    DataFrame
        One row per measure, variable and rater set (and query corpus, column
        ``query`` first, when the points hold several; each corpus's keys are its
        units, resampled from its own stream): ``measure``
        (``krippendorff_alpha``, ``krippendorff_alpha_ordinal``, ``fleiss_kappa``,
        ``cohens_kappa``), ``variable`` (``zone``, ``delta``, ``log_r``; ``r`` with
        *with_r*),
        ``raters`` (joined with ``|``), ``value``, ``ci_low``, ``ci_high``, ``n_units``
        (keys used: rated by at least two of the raters for α, by all of them for κ),
        ``metric`` (``nominal``, ``ordinal``, ``interval``: the distance between two
        values), ``ci_method`` (``studentized``, ``bca`` or ``percentile``: the method
        used), ``ci_undefined`` (resamples on which the value was undefined, left out of
        the interval) and ``note`` (why a value is undefined, or why the interval fell
        back). All raters first, then every pair. 1 is perfect agreement, 0 what chance
        gives; NaN when undefined.

    Examples
    --------
    >>> import rrmap
    >>> rel = reliability(rrmap.points(rrmap.datasets.load_example_ratings()), n_boot=200, rng=0)
    >>> rel.iloc[0][["measure", "variable", "raters"]].tolist(), int(rel.n_units.iloc[0])
    (['krippendorff_alpha', 'zone', 'E1|E2|E3'], 135)
    >>> rel.measure.value_counts().to_dict()
    {'krippendorff_alpha': 12, 'krippendorff_alpha_ordinal': 4, 'cohens_kappa': 3, ...}
    >>> sorted(rel.variable.unique())
    ['delta', 'log_r', 'zone']
    >>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
    >>> reliability(pts, n_boot=0, pairs=False, with_r=True).variable.tolist()
    ['zone', 'zone', 'delta', 'log_r', 'r', 'zone']

    By default the interval α on Δ and log R has the studentized interval, the zone
    α and the κ BCa:

    >>> rel.groupby("metric").ci_method.unique().map(list).to_dict()
    {'interval': ['studentized'], 'nominal': ['bca'], 'ordinal': ['bca']}
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
        return _reliability(points, raters, n_boot, gen, level, ci, pairs, with_r)
    from rrmap.points import query_corpora

    parts = []
    corpus = points["query"].astype(str)
    for q in query_corpora(points):
        part = points.loc[(corpus == q).to_numpy()]
        gen = streams.within("query", q).generator("reliability")
        rows = _reliability(part, raters, n_boot, gen, level, ci, pairs, with_r)
        rows.insert(0, "query", q)
        parts.append(rows)
    return pd.concat(parts, ignore_index=True)


def _measures(
    cols: list[int], n_raters: int, zone: np.ndarray, data: dict[str, np.ndarray]
) -> list[tuple[str, str, str, _Linear]]:
    """(measure, variable, metric, the measure's sums) of one rater set, in order; the
    interval α on each variable of *data*."""
    z = zone[:, cols]
    out = [
        ("krippendorff_alpha", "zone", "nominal", _nominal(z)),
        ("krippendorff_alpha_ordinal", "zone", "ordinal", _ordinal(z)),
    ]
    for variable in data:
        out.append(("krippendorff_alpha", variable, "interval", _interval(data[variable][:, cols])))
    if len(cols) > 2 or n_raters == 2:
        out.append(("fleiss_kappa", "zone", "nominal", _fleiss(z)))
    if len(cols) == 2:
        out.append(("cohens_kappa", "zone", "nominal", _cohen(z[:, 0], z[:, 1])))
    return out


def _reliability(
    points: pd.DataFrame,
    raters: list[str],
    n_boot: int,
    gen: np.random.Generator,
    level: float,
    ci: str,
    pairs: bool = True,
    with_r: bool = False,
) -> pd.DataFrame:
    """The rows of :func:`reliability` for one set of comparisons (one query corpus)."""
    zone, delta, r = _wide(points, raters)
    with np.errstate(divide="ignore", invalid="ignore"):
        data = {"delta": delta, "log_r": np.log(r)}
    if with_r:
        data["r"] = r
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
        for measure, variable, metric, lin in _measures(cols, len(raters), zone, data):
            values, used = lin(weights)
            row = {"measure": measure, "variable": variable, "raters": name}
            row.update(value=float(values[0]), n_units=int(used.sum()), metric=metric)
            method = AUTO_CI[metric] if ci == "auto" else ci
            row.update(_interval_of(lin, values, weights, level, method))
            if np.isnan(row["value"]):
                row["note"] = _undefined(measure, variable, row["n_units"], len(cols))
            rows.append(row)
    out = pd.DataFrame(rows, columns=list(RELIABILITY_COLUMNS))
    out["ci_undefined"] = out["ci_undefined"].astype("int64")
    return out


def _interval_of(
    lin: _Linear, values: np.ndarray, weights: np.ndarray, level: float, method: str
) -> dict:
    """The interval columns of a measure whose values on the data and on its resamples
    (the rows of *weights*) are *values*, by *method* (``bca``, ``percentile`` or
    ``studentized``; where the studentized interval is undefined, the percentile one)."""
    empty = {"ci_low": np.nan, "ci_high": np.nan, "ci_method": "", "ci_undefined": 0, "note": ""}
    if len(values) < 2 or np.isnan(values[0]):
        return empty
    jack = None if method == "percentile" else lin.jackknife()
    if method == "studentized":
        iv = studentized_interval(
            float(values[0]), _jack_se(jack), values[1:], lin.resample_se(weights[1:]), level=level
        )
        if not iv.method:  # no standard error: the percentile interval, and why
            iv = bootstrap_interval(float(values[0]), values[1:], level=level, method="percentile")
            why = "a leave-one-out value is undefined" if np.isnan(jack).any() else (
                "no resample has a standard error")  # fmt: skip
            if iv.method:
                iv = replace(iv, note=f"studentized undefined ({why}): percentile interval")
    else:
        iv = bootstrap_interval(float(values[0]), values[1:], jack, level=level, method=method)
    return {
        "ci_low": iv.low,
        "ci_high": iv.high,
        "ci_method": iv.method,
        "ci_undefined": iv.undefined,
        "note": iv.note,
    }


def _jack_se(jack: np.ndarray) -> float:
    """The jackknife standard error from the leave-one-out values."""
    m = len(jack)
    return float(np.sqrt((m - 1) / m * ((jack - jack.mean()) ** 2).sum()))


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
