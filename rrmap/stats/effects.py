"""Effect sizes that respect the design, with bootstrap intervals (docs/tests.md, "Effect
sizes").

- **Independent samples**: the between-group share of the energy dispersion of the
  points (R ``energy::disco``, α = 1) and Cramér's V of the groups × zones table, with
  intervals from resampling each group's points on its own (stratified).
- **Matched samples** (the groups rated the same keys): the differences between keys
  are removed first, and the effect is the share of the *within-key* dispersion that the
  groups explain. Each point is moved by its key's effect in the additive fit
  ``point = group effect + key effect`` (least squares; for a complete design, simply
  the key's mean), keys rated by one group only are left out, and the share is the
  energy-dispersion share (DISCO) of the adjusted points: exponent 1 on the (Δ, R)
  points, exponent 2 on the zones' indicator vectors. With exponent 2 the share is the
  partial η² of the zone indicators with the keys as blocks; for two raters and two
  zones it is McNemar's X² divided by the number of keys. The intervals resample keys.

The dispersion of a resample is computed from the pairs of points it holds, with one
rule: a pair of points of one unit (a key, or a point and itself) counts once per draw
of that unit, and a pair of points of two different units once per pair of their draws.
Two copies of one drawn unit are never paired with each other: their distance, zero,
would shrink the within-group dispersion of every resample with a repeated unit and
push the share up (in the example data 99 % of the resamples of a rater's movement
test would lie above the estimate). On the data (every unit drawn once) this is the
usual V-statistic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from rrmap.bootstrap import bootstrap_interval, resample_weights
from rrmap.stats._permutation import distances

__all__ = [
    "MAX_EFFECT_UNITS",
    "EffectSize",
    "cramers_v_effect",
    "dispersion_effect",
    "remove_keys",
]

#: Largest number of points (or units) an interval of an effect size is computed for: the
#: resamples cost the square of it (a test of more points gets the estimate alone).
MAX_EFFECT_UNITS = 3000


@dataclass(frozen=True)
class EffectSize:
    """An effect size and its bootstrap interval.

    Attributes
    ----------
    estimate : float
    low, high : float
        The interval (NaN without one).
    undefined : int
        Resamples on which the effect was undefined (a group not drawn, nothing left to
        vary), left out of the interval.
    method : str
        ``"bca"`` or ``"percentile"`` (empty without an interval).
    note : str
        Why BCa fell back to the percentile interval, or why there is no interval.

    Examples
    --------
    >>> res = dispersion_effect(np.array([[0.0], [1.0], [5.0], [6.0]]), np.array([0, 0, 1, 1]), 2)
    >>> round(res.estimate, 4), res.method
    (0.8182, '')
    """

    estimate: float
    low: float = math.nan
    high: float = math.nan
    undefined: int = 0
    method: str = ""
    note: str = ""


def remove_keys(
    y: np.ndarray, groups: np.ndarray, keys: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Points with the key effects of the additive fit removed, and the points kept.

    Fits ``y = a[group] + b[key] + e`` by least squares (every column of *y* alike) and
    returns ``y − b[key]`` for the points of keys on which at least two groups are
    present (the others carry no within-key information and are left out). The group
    effects and the residuals stay; the constant is arbitrary (distances ignore it).

    Parameters
    ----------
    y : array (n, d)
    groups : array (n,)
        Group codes 0 … k − 1.
    keys : array (n,)
        Key of each point (any integers).
    k : int

    Returns
    -------
    adjusted : array (m, d)
        The kept points, adjusted.
    kept : array (n,) of bool

    Examples
    --------
    >>> y = np.array([[0.0], [1.0], [10.0], [11.0], [5.0]])
    >>> adj, kept = remove_keys(y, np.array([0, 1, 0, 1, 0]), np.array([0, 0, 1, 1, 2]), 2)
    >>> adj.ravel().tolist(), kept.tolist()
    ([-0.5, 0.5, -0.5, 0.5], [True, True, True, True, False])
    """
    y = np.asarray(y, dtype=float).reshape(len(y), -1)
    _, key = np.unique(keys, return_inverse=True)
    counts = np.zeros((key.max(initial=-1) + 1, k))
    np.add.at(counts, (key, groups), 1.0)
    kept = ((counts > 0).sum(axis=1) >= 2)[key]
    y, groups = y[kept], groups[kept]
    _, key = np.unique(key[kept], return_inverse=True)
    counts = counts[((counts > 0).sum(axis=1) >= 2)]
    size = counts.sum(axis=1)
    sums = np.zeros((len(counts), y.shape[1]))
    np.add.at(sums, key, y)
    centred = y - (sums / size[:, None])[key]  # within-key deviations
    if (counts == 1).all():  # complete: every key's mean group effect is the same
        return centred, kept
    lap = np.diag(counts.sum(axis=0)) - (counts.T / size) @ counts
    rhs = np.zeros((k, y.shape[1]))
    np.add.at(rhs, groups, centred)
    effect = np.linalg.lstsq(lap, rhs, rcond=None)[0]  # group effects (up to a constant)
    mean_effect = (counts / size[:, None]) @ effect  # each key's mean group effect
    return centred + mean_effect[key], kept


@dataclass(frozen=True)
class _PairSums:
    """Sums of distances between the points of each pair of units, per group and in all.

    ``blocks[0]`` holds every point (the total dispersion), ``blocks[1 + g]`` the points of
    group g: each as (the units it spans, the unit × unit sums of distances, the number of
    its points in each of those units). With squared distances (exponent 2) ``factors``
    holds, per block, each unit's sum of squared norms and sum of points: the sums are
    ``c_u Q_v + c_v Q_u − 2 X_u · X_v``, and a resample's total is had from them in
    O(units · d) rather than O(units²).
    """

    n_units: int
    blocks: list[tuple[np.ndarray, np.ndarray, np.ndarray]]
    factors: list[tuple[np.ndarray, np.ndarray]] | None = None


def _unit_order(units: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The points sorted by unit, the units spanned, and where each unit's run starts."""
    if len(units) < 2 or (units[1:] > units[:-1]).all():  # one point per unit, in order
        every = np.arange(len(units))
        return every, units, every, np.ones(len(units), dtype=np.intp)
    order = np.argsort(units, kind="stable")
    span, starts, count = np.unique(units[order], return_index=True, return_counts=True)
    return order, span, starts, count


def _pair_sums(dist: np.ndarray, groups: np.ndarray, units: np.ndarray, k: int) -> _PairSums:
    """Unit × unit sums of *dist* per block: the points sorted by unit and each unit's run
    of rows and columns added up (O(points²), not a product with the indicators)."""
    n_units = int(units.max(initial=-1)) + 1
    blocks = []
    for members in [np.ones(len(units), dtype=bool), *(groups == g for g in range(k))]:
        idx = np.flatnonzero(members)
        order, span, starts, count = _unit_order(units[idx])
        sub = dist[np.ix_(idx[order], idx[order])]
        if len(span) < len(idx):  # several points per unit: add up each unit's run
            sub = np.add.reduceat(np.add.reduceat(sub, starts, axis=0), starts, axis=1)
        blocks.append((span, sub, count.astype(float)))
    return _PairSums(n_units, blocks)


def _squared_pair_sums(x: np.ndarray, groups: np.ndarray, units: np.ndarray, k: int) -> _PairSums:
    """:func:`_pair_sums` of the squared distances of *x*, from each unit's count, sum of
    squared norms and sum of points (no points × points matrix)."""
    n_units = int(units.max(initial=-1)) + 1
    x = x - x.mean(axis=0)  # distances do not change; the sums below cancel less
    norms = (x * x).sum(axis=1)
    blocks, factors = [], []
    for members in [np.ones(len(units), dtype=bool), *(groups == g for g in range(k))]:
        span, local, count = np.unique(units[members], return_inverse=True, return_counts=True)
        q = np.bincount(local, weights=norms[members], minlength=len(span))
        xs = np.stack(
            [np.bincount(local, weights=col, minlength=len(span)) for col in x[members].T], axis=1
        )
        c = count.astype(float)
        sums = c[:, None] * q[None, :] + q[:, None] * c[None, :] - 2.0 * (xs @ xs.T)
        blocks.append((span, sums, c))
        factors.append((q, xs))
    return _PairSums(n_units, blocks, factors)


def _merged(ps: _PairSums) -> _PairSums:
    """*ps* with the groups that span the same units with the same counts added up into one
    block (each group of a complete matched design: one point per key).

    Such groups have the same size and number of pairs under every weight row, so the sum
    of their dispersions is the dispersion formula applied to the sum of their pair sums:
    one product per resample instead of one per group. Distances only (with squared
    distances the blocks' factors do not add up).
    """
    if ps.factors is not None or len(ps.blocks) <= 2:
        return ps
    merged: dict[tuple[bytes, bytes], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for span, sums, count in ps.blocks[1:]:
        key = (span.tobytes(), count.tobytes())
        if key in merged:
            merged[key] = (span, merged[key][1] + sums, count)
        else:
            merged[key] = (span, sums, count)
    return _PairSums(ps.n_units, [ps.blocks[0], *merged.values()])


def _dispersions(ps: _PairSums, w: np.ndarray) -> np.ndarray:
    """``size / 2 · mean distance`` of each block under each weight row, shape (R, k + 1);
    pairs counted by the rule of the module docstring; NaN where a block has no pair.

    The extra draws ``w² − w`` are made once for every block, a block spanning every unit
    reads the weights without a copy, and the within-unit term is left out where it is
    zero (one point per unit). The weights are read in column order, the order a block's
    columns taken from them have: every product sums in the same order whichever block it
    is, so the values do not depend on these shortcuts.
    """
    w = np.asfortranarray(w)
    out = np.empty((len(w), len(ps.blocks)))
    extra_all = w * w - w  # copies of one unit are not paired with each other
    for b, (span, sums, count) in enumerate(ps.blocks):
        whole = len(span) == w.shape[1]  # the units spanned are sorted and distinct
        ws = w if whole else w[:, span]
        extra = extra_all if whole else extra_all[:, span]
        size = ws @ count
        if ps.factors is None:
            pair_sum = ((ws @ sums) * ws).sum(axis=1)
        else:  # Σ w_u w_v (c_u Q_v + c_v Q_u − 2 X_u · X_v)
            q, xs = ps.factors[b]
            wx = ws @ xs
            pair_sum = 2.0 * size * (ws @ q) - 2.0 * (wx * wx).sum(axis=1)
        within_units = np.diag(sums)
        if within_units.any():  # subtracting zeros changes nothing
            pair_sum = pair_sum - extra @ within_units
        pairs = size * size - extra @ (count * count)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, b] = np.where(pairs > 0, size / 2.0 * pair_sum / pairs, np.nan)
    return out


def _shares(ps: _PairSums, w: np.ndarray) -> np.ndarray:
    disp = _dispersions(ps, w)
    total, within = disp[:, 0], disp[:, 1:].sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, 1.0 - within / total, np.nan)


def _jackknife_shares(ps: _PairSums) -> np.ndarray:
    """The share with each unit left out, in closed form (one pass over the sums)."""
    disp = np.zeros((ps.n_units, len(ps.blocks)))
    for b, (span, sums, count) in enumerate(ps.blocks):
        pair_sum = np.full(ps.n_units, sums.sum())
        size = np.full(ps.n_units, count.sum())
        pair_sum[span] -= 2.0 * sums.sum(axis=1) - np.diag(sums)
        size[span] -= count
        with np.errstate(invalid="ignore", divide="ignore"):
            disp[:, b] = np.where(size > 0, pair_sum / (2.0 * size), np.nan)
    total, within = disp[:, 0], disp[:, 1:].sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, 1.0 - within / total, np.nan)


#: Resampled weights held at once (resamples × units): the draws are made in chunks of
#: ``_CHUNK // units`` resamples, a size that depends on the units only (same seed, same
#: interval).
_CHUNK = 2_000_000


def _resampled_shares(
    ps: _PairSums, n_boot: int, rng: np.random.Generator, strata: np.ndarray | None
) -> np.ndarray:
    """The share on *n_boot* resamples of the units, drawn in chunks."""
    step = max(1, _CHUNK // max(1, ps.n_units))
    out = []
    for start in range(0, n_boot, step):
        w = resample_weights(ps.n_units, min(step, n_boot - start), rng, strata=strata)
        out.append(_shares(ps, np.asfortranarray(w, dtype=float)))
    return np.concatenate(out)


def dispersion_effect(
    x: np.ndarray,
    groups: np.ndarray,
    k: int,
    keys: np.ndarray | None = None,
    *,
    exponent: int = 1,
    n_boot: int = 0,
    rng: np.random.Generator | None = None,
    ci: str = "bca",
    level: float = 0.95,
) -> EffectSize:
    """The between-group share of the dispersion of *x*, within keys when *keys* are given.

    Parameters
    ----------
    x : array (n, d)
        The points (Δ, R), or the zones' indicator vectors.
    groups : array (n,)
        Group codes 0 … k − 1.
    k : int
    keys : array (n,), optional
        The key of each point of a matched design: the key effects are removed first
        (:func:`remove_keys`) and the keys are resampled. Without: independent samples,
        each group's points resampled on their own.
    exponent : {1, 2}
        Distances (energy dispersion, R ``energy::disco`` α = 1) or squared distances
        (sums of squares: η²).
    n_boot : int
        Bootstrap resamples (0: the estimate alone).
    rng : Generator, optional
    ci : {"bca", "percentile"}
    level : float

    Returns
    -------
    EffectSize

    Examples
    --------
    >>> g = np.random.default_rng(0)
    >>> keys = np.tile(np.arange(20), 2)
    >>> base = g.normal(0, 5, (20, 2))[keys]              # keys far apart
    >>> x = base + np.repeat([[0.0, 0.0], [0.5, 0.0]], 20, axis=0) + g.normal(0, 0.1, (40, 2))
    >>> groups = np.repeat([0, 1], 20)
    >>> pooled = dispersion_effect(x, groups, 2).estimate
    >>> within = dispersion_effect(x, groups, 2, keys, n_boot=500, rng=g)
    >>> round(pooled, 3), round(within.estimate, 2), within.method
    (0.003, 0.58, 'bca')
    """
    groups = np.asarray(groups)
    x = np.asarray(x, dtype=float).reshape(len(groups), -1)
    if keys is not None:
        x, kept = remove_keys(x, groups, np.asarray(keys), k)
        groups = groups[kept]
        _, units = np.unique(np.asarray(keys)[kept], return_inverse=True)
        strata = None
    else:
        units, strata = np.arange(len(groups)), groups
    if len(units) > MAX_EFFECT_UNITS:
        return EffectSize(
            math.nan, note=f"no interval: {len(units):,} units, above {MAX_EFFECT_UNITS:,}"
        )
    if exponent == 2:
        ps = _squared_pair_sums(x, groups, units, k)
    else:  # the arithmetic of scipy's cdist, without importing scipy.spatial
        ps = _merged(_pair_sums(distances(x, x), groups, units, k))
    estimate = float(_shares(ps, np.ones((1, ps.n_units)))[0])
    if not n_boot or not math.isfinite(estimate) or rng is None:
        return EffectSize(estimate)
    draws = _resampled_shares(ps, n_boot, rng, strata)
    iv = bootstrap_interval(
        estimate, draws, _jackknife_shares(ps), level=level, method=ci, strata=strata
    )
    return EffectSize(estimate, iv.low, iv.high, iv.undefined, iv.method, iv.note)


def _cramers_v_rows(tables: np.ndarray) -> np.ndarray:
    """Cramér's V of each table (R, r, c), empty rows and columns left out (NaN when fewer
    than two of either remain)."""
    n = tables.sum(axis=(1, 2))
    rows, cols = tables.sum(axis=2), tables.sum(axis=1)
    expected = rows[:, :, None] * cols[:, None, :] / np.where(n > 0, n, 1.0)[:, None, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        cells = np.where(expected > 0, (tables - expected) ** 2 / expected, 0.0)
    r_used, c_used = (rows > 0).sum(axis=1), (cols > 0).sum(axis=1)
    m = np.minimum(r_used, c_used) - 1
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.sqrt(cells.sum(axis=(1, 2)) / (n * m))
    return np.where((m > 0) & (n > 0), v, np.nan)


def cramers_v_effect(
    groups: np.ndarray,
    zones: np.ndarray,
    k: int,
    levels: int,
    *,
    n_boot: int = 0,
    rng: np.random.Generator | None = None,
    ci: str = "bca",
    level: float = 0.95,
) -> EffectSize:
    """Cramér's V of the groups × zones table of independent samples, with an interval
    from resampling each group's points on its own.

    Examples
    --------
    >>> groups, zones = np.repeat([0, 1], 30), np.r_[np.zeros(20), np.ones(10), np.ones(30)]
    >>> res = cramers_v_effect(groups, zones.astype(int), 2, 4, n_boot=500,
    ...                        rng=np.random.default_rng(0))
    >>> round(res.estimate, 4), bool(res.low < res.estimate < res.high)
    (0.7071, True)
    """
    cell = np.asarray(groups) * levels + np.asarray(zones)
    table = np.bincount(cell, minlength=k * levels).reshape(1, k, levels).astype(float)
    estimate = float(_cramers_v_rows(table)[0])
    if not n_boot or not math.isfinite(estimate) or rng is None:
        return EffectSize(estimate)
    # each group's points resampled on their own: its row of the table is multinomial
    rows = table[0].sum(axis=1)
    draws_tab = np.stack(
        [
            rng.multinomial(int(m), t / max(m, 1.0), size=n_boot)
            for m, t in zip(rows, table[0], strict=True)
        ],
        axis=1,
    )
    draws = _cramers_v_rows(draws_tab.astype(float))
    # leaving one point out: the table less one count in its cell (one value per cell)
    less = np.repeat(table, k * levels, axis=0)
    less[
        np.arange(k * levels), np.arange(k * levels) // levels, np.arange(k * levels) % levels
    ] -= 1
    jack = _cramers_v_rows(less)[cell]
    iv = bootstrap_interval(estimate, draws, jack, level=level, method=ci, strata=groups)
    return EffectSize(estimate, iv.low, iv.high, iv.undefined, iv.method, iv.note)


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
