"""Zone tests of matched raters: every rater rated the same comparison keys (docs/tests.md).

When the raters of a test all rated every comparison key (movement ×
modality × criterion in the study), their zones are paired data, not
independent samples:

- two raters: the Stuart–Maxwell test of marginal homogeneity of the
  square table "rater A's zone × rater B's zone" (:func:`stuart_maxwell_test`;
  McNemar's test for two zones), asymptotic or exact conditional on the
  discordant keys;
- more raters: a permutation test of the rater × zone χ² statistic, the
  zones of each key shuffled among its raters (:func:`marginal_homogeneity_test`),
  exact when there are few enough within-key relabellings.

Both ask the same question as the χ² test of independent samples — do the
raters put their points in the zones in the same proportions? — but they
only use the keys on which the raters disagree, as a paired test should.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from rrmap.errors import InputError
from rrmap.stats._montecarlo import REL_TOL, exact_pvalues, sequential_pvalue
from rrmap.stats._relabellings import BlockEnumeration, BlockShuffles, enumeration_size
from rrmap.stats.chi2 import _cramers_v_of, _pearson, chi2_sf, cramers_v
from rrmap.stats.effects import dispersion_effect

__all__ = [
    "MatchedTestResult",
    "marginal_homogeneity_test",
    "stuart_maxwell_test",
]

#: With fewer discordant keys than this, the asymptotic Stuart–Maxwell p-value is
#: replaced by the exact conditional one (the rule of thumb of McNemar's test).
MIN_DISCORDANT = 25

#: Largest number of configurations the exact Stuart–Maxwell p-value enumerates.
EXACT_LIMIT = 1_000_000


@dataclass(frozen=True)
class MatchedTestResult:
    """Result of a zone test of matched raters.

    Attributes
    ----------
    statistic : float
        Stuart–Maxwell's statistic, or Pearson's X² of the rater × zone table.
    dof : int or None
        Degrees of freedom of the asymptotic χ² (Stuart–Maxwell only).
    pvalue : float
        The p-value of ``p_method``.
    p_method : str
        ``"asymptotic"``, ``"exact"`` or ``"permutation"``.
    n_keys : int
        Keys compared (rows of the zone matrix).
    n_discordant : int
        Keys on which the raters do not all agree.
    n_perm : int
        Relabellings drawn (``permutation``) or enumerated (``exact``); 0 for
        ``asymptotic``.
    effect : float
        The share of the within-key zone variation that the raters explain: the
        partial η² of the zone indicators with the keys as blocks (keys rated by one
        rater only left out; :func:`rrmap.stats.effects.dispersion_effect`, exponent 2).
        For two raters ``‖d‖² / (2 K n_d)``, d the difference of their zone counts, K the
        keys, n_d the discordant ones; for two zones, McNemar's X² / K.
    effect_corrected : float
        Bergsma's bias-corrected Cramér's V of the rater × zone table.
    pvalue_mid : float
        The mid-p (Lancaster, 1961), ties with the observed statistic counted half; the
        asymptotic p-value itself when ``p_method`` is ``"asymptotic"``.
    effect_pooled : float
        Cramér's V of the rater × zone table (the keys ignored, as for independent
        samples; :func:`rrmap.stats.chi2.cramers_v`).

    Examples
    --------
    >>> res = stuart_maxwell_test([[10, 6], [1, 10]])
    >>> res.p_method, res.n_discordant, res.pvalue, res.pvalue_mid
    ('exact', 7, 0.125, 0.0703125)
    >>> round(res.effect, 6) == round((6 - 1) ** 2 / (27 * 7), 6)  # McNemar's X² / K
    True
    """

    statistic: float
    dof: int | None
    pvalue: float
    p_method: str
    n_keys: int
    n_discordant: int
    n_perm: int
    effect: float
    effect_corrected: float
    pvalue_mid: float = float("nan")
    effect_pooled: float = float("nan")


def _zone_matrix(zones: ArrayLike, n_levels: int | None) -> tuple[np.ndarray, int]:
    z = np.asarray(zones)
    if z.ndim != 2 or z.shape[1] < 2:
        raise InputError(f"zones must be a (keys × raters) matrix with ≥ 2 raters, got {z.shape}")
    if not np.issubdtype(z.dtype, np.integer) or (z < -1).any():
        raise InputError("zones must be non-negative integer level codes (−1: not rated)")
    levels = int(z.max(initial=-1)) + 1 if n_levels is None else int(n_levels)
    if (z >= levels).any():
        raise InputError(f"zone codes must be below n_levels = {levels}")
    return z.astype(np.intp), levels


def _rater_table(z: np.ndarray, levels: int) -> np.ndarray:
    """Counts of each zone per rater, shape (raters, levels); −1 (not rated) counts nowhere."""
    k = z.shape[1]
    cells = (np.arange(k) * levels + z)[z >= 0]
    return np.bincount(cells.ravel(), minlength=k * levels).reshape(k, levels)


def _components(weights: np.ndarray) -> list[list[int]]:
    """Connected components (≥ 2 vertices) of the graph with these symmetric edge weights."""
    r = len(weights)
    seen, out = set(), []
    for start in range(r):
        if start in seen or not weights[start].any():
            continue
        comp, todo = [], [start]
        seen.add(start)
        while todo:
            v = todo.pop()
            comp.append(v)
            for w in np.flatnonzero(weights[v]):
                if int(w) not in seen:
                    seen.add(int(w))
                    todo.append(int(w))
        out.append(sorted(comp))
    return out


def _quadratic_form(square: np.ndarray) -> tuple[np.ndarray, int]:
    """M with Stuart–Maxwell's statistic = dᵀ M d, and the degrees of freedom.

    The covariance of d = row margins − column margins is the Laplacian of the
    graph whose edge weights are the discordant counts ``n_ij + n_ji``. On each
    connected component one category is dropped and the rest inverted (the
    classic statistic when every category has discordant keys and they form
    one component, as in statsmodels' ``SquareTable.homogeneity``); categories
    without discordant keys carry no information and are left out.
    """
    weights = square + square.T
    np.fill_diagonal(weights, 0)
    r = len(square)
    m = np.zeros((r, r))
    dof = 0
    for comp in _components(weights):
        keep = comp[:-1]
        lap = -weights[np.ix_(comp, comp)].astype(float)
        np.fill_diagonal(lap, weights[np.ix_(comp, comp)].sum(axis=1))
        sub = lap[: len(keep), : len(keep)]
        m[np.ix_(keep, keep)] = np.linalg.inv(sub)
        dof += len(keep)
    return m, dof


def stuart_maxwell_test(
    table: ArrayLike,
    *,
    method: str = "auto",
    n_perm: int = 5000,
    rng: int | np.random.Generator | None = None,
    stop_hits: int | None = None,
) -> MatchedTestResult:
    """Stuart–Maxwell test of marginal homogeneity of a square table of paired zones.

    ``table[i, j]`` counts the keys that rater A put in zone i and rater B in
    zone j. With ``d = row totals − column totals`` and ``S`` its covariance
    under H0 (``S_ii = n_i· + n_·i − 2 n_ii``, ``S_ij = −(n_ij + n_ji)``), the
    statistic is ``dᵀ S⁻ d`` on ``dof = r − 1`` degrees of freedom (one zone
    dropped; zones without discordant keys left out). For two zones it is
    McNemar's test without continuity correction.

    Parameters
    ----------
    table : array_like, shape (r, r)
        Non-negative integer counts.
    method : {"auto", "asymptotic", "exact"}
        ``"exact"``: the p-value conditional on the discordant keys (each
        discordant key's two zones swapped between the raters with
        probability 1/2, every configuration enumerated; past
        :data:`EXACT_LIMIT` configurations, *n_perm* random ones).
        ``"auto"``: exact with fewer than 25 discordant keys, else asymptotic.
    n_perm : int, default 5000
        Random configurations when the exact enumeration is too large.
    rng : int, Generator or None
        Seed or generator of those.
    stop_hits : int, optional
        Sequential stopping of the random configurations (as the energy tests).

    Returns
    -------
    MatchedTestResult

    Raises
    ------
    InputError
        Not a square table of counts, or no discordant key (nothing to test).

    Examples
    --------
    >>> res = stuart_maxwell_test([[20, 10, 5], [3, 30, 15], [0, 5, 40]], method="asymptotic")
    >>> round(res.statistic, 4), res.dof, round(res.pvalue, 4)
    (13.7647, 2, 0.001)
    >>> stuart_maxwell_test([[10, 6], [1, 10]]).p_method   # 7 discordant keys: exact
    'exact'
    """
    sq = np.asarray(table)
    if sq.ndim != 2 or sq.shape[0] != sq.shape[1] or sq.shape[0] < 2:
        raise InputError(f"a Stuart–Maxwell test needs a square table, got shape {sq.shape}")
    if not np.isfinite(sq.astype(float)).all() or (sq < 0).any() or (sq != np.round(sq)).any():
        raise InputError("table counts must be finite non-negative integers")
    if method not in ("auto", "asymptotic", "exact"):
        raise InputError(f"method must be auto, asymptotic or exact, got {method!r}")
    sq = sq.astype(np.int64)
    r = len(sq)
    iu, ju = np.triu_indices(r, 1)
    discordant = sq[iu, ju] + sq[ju, iu]
    n_disc = int(discordant.sum())
    if n_disc == 0:
        raise InputError("no discordant keys: both raters put every key in the same zone")
    m, dof = _quadratic_form(sq)
    d = (sq.sum(axis=1) - sq.sum(axis=0)).astype(float)
    stat = float(d @ m @ d)
    p_asym = chi2_sf(stat, dof)
    margins = np.vstack([sq.sum(axis=1), sq.sum(axis=0)])
    v, vc = cramers_v(margins)
    use_exact = method == "exact" or (method == "auto" and n_disc < MIN_DISCORDANT)
    p, p_method, drawn, mid = p_asym, "asymptotic", 0, p_asym
    if use_exact:
        pairs = np.flatnonzero(discordant)
        t, a, b = discordant[pairs], iu[pairs], ju[pairs]
        size = int(np.prod(t + 1, dtype=float))
        if size <= EXACT_LIMIT:
            (p, mid), drawn, p_method = _exact_sm(t, a, b, r, m, stat), size, "exact"
        else:
            gen = np.random.default_rng(rng)

            def simulate(c: int) -> np.ndarray:
                x = gen.binomial(t, 0.5, size=(c, len(t)))
                return _sm_statistics(x, t, a, b, r, m)

            p, drawn, mid = sequential_pvalue(simulate, stat, n_perm, stop_hits)
            p_method = "permutation"
    return MatchedTestResult(
        statistic=stat,
        dof=dof,
        pvalue=float(p),
        p_method=p_method,
        n_keys=int(sq.sum()),
        n_discordant=n_disc,
        n_perm=int(drawn),
        effect=float(d @ d) / (2.0 * float(sq.sum()) * n_disc),
        effect_corrected=vc,
        pvalue_mid=float(mid),
        effect_pooled=v,
    )


def _sm_statistics(
    x: np.ndarray, t: np.ndarray, a: np.ndarray, b: np.ndarray, r: int, m: np.ndarray
) -> np.ndarray:
    """Stuart–Maxwell statistics of tables whose discordant pair (a_l, b_l) has x_l keys
    in cell (a_l, b_l) and t_l − x_l in (b_l, a_l); x has shape (c, pairs)."""
    incidence = np.zeros((len(t), r))  # pair l adds to zone a_l and takes from zone b_l
    incidence[np.arange(len(t)), a] = 1.0
    incidence[np.arange(len(t)), b] = -1.0
    d = (2 * x - t) @ incidence  # n_ab − n_ba of each pair, summed into each zone
    return np.einsum("ci,ij,cj->c", d, m, d)


def _exact_sm(
    t: np.ndarray, a: np.ndarray, b: np.ndarray, r: int, m: np.ndarray, stat: float
) -> tuple[float, float]:
    """P(statistic ≥ observed) over every split of the discordant keys, each split of
    pair l weighted by Binomial(t_l, 1/2), and the mid-p."""
    from math import comb

    grids = np.meshgrid(*[np.arange(n + 1) for n in t], indexing="ij")
    x = np.stack([g.ravel() for g in grids], axis=1)
    weight = np.ones(len(x))
    for col, n in enumerate(t):
        pmf = np.array([comb(int(n), j) for j in range(int(n) + 1)], dtype=float) / 2.0 ** int(n)
        weight *= pmf[x[:, col]]
    stats = _sm_statistics(x, t, a, b, r, m)
    return exact_pvalues(stats, weight, stat, REL_TOL * max(1.0, abs(stat)), 1.0)


def marginal_homogeneity_test(
    zones: ArrayLike,
    *,
    n_levels: int | None = None,
    n_perm: int = 5000,
    rng: int | np.random.Generator | None = None,
    stop_hits: int | None = None,
) -> MatchedTestResult:
    """Within-key permutation test of the rater × zone χ² statistic (matched raters).

    ``zones[j, g]`` is the zone (a code) rater g gave key j, −1 when g did not rate
    j (an incomplete design). The statistic is Pearson's X² of the raters × zones
    table; under H0 (the raters are exchangeable on every key) the zones of each
    key are shuffled among the raters who rated it. Keys on which those raters
    agree, or rated by one only, never change and are kept as they are. The
    p-value is exact (every relabelling enumerated) when there are at most
    *n_perm* relabellings, else from *n_perm* random ones.

    Parameters
    ----------
    zones : array_like of int, shape (keys, raters)
    n_levels : int, optional
        Number of zone levels (default: the largest code + 1).
    n_perm : int, default 5000
        Relabellings (``B``).
    rng : int, Generator or None
    stop_hits : int, optional
        Sequential p-value (Besag & Clifford), as the energy tests.

    Returns
    -------
    MatchedTestResult
        ``dof`` is None (the null distribution is the permutation one).

    Raises
    ------
    InputError
        Not a (keys × raters) matrix of codes, or every key in one zone.

    Examples
    --------
    >>> z = [[0, 0, 1], [1, 1, 1], [0, 1, 1], [2, 2, 1], [0, 0, 0]]
    >>> res = marginal_homogeneity_test(z, n_perm=5000, rng=0)
    >>> res.p_method, res.n_perm, res.n_discordant
    ('exact', 216, 3)
    """
    z, levels = _zone_matrix(zones, n_levels)
    n_keys, k = z.shape
    table = _rater_table(z, levels)
    present = table.sum(axis=0) > 0
    if present.sum() < 2:
        raise InputError("every key in one zone: no marginal homogeneity test")
    obs = table[:, present]
    stat, _, _, expected = _pearson(obs.astype(float))
    if (z < 0).any():
        if not (z >= 0).any(axis=0).all():
            raise InputError("a rater (a column of zones) rated no key")
        return _incomplete_mh(z, levels, present, stat, expected, n_perm, rng, stop_hits)
    informative = np.flatnonzero((z != z[:, :1]).any(axis=1))
    fixed = _rater_table(z[np.setdiff1d(np.arange(n_keys), informative)], levels)[:, present]
    zi = np.searchsorted(np.flatnonzero(present), z[informative])  # codes among present levels
    n_inf = len(informative)
    v, vc = _cramers_v_of(stat, obs.sum(), *obs.shape)
    share = _zone_share(z, levels)
    if n_perm <= 0:
        return MatchedTestResult(stat, None, np.nan, "", n_keys, n_inf, 0, share, vc, np.nan, v)
    total = enumeration_size(k, n_inf, n_perm)
    source = BlockEnumeration(k, n_inf) if total is not None else BlockShuffles(k, n_inf)
    gen = np.random.default_rng(rng)
    n_lv = obs.shape[1]

    def simulate(c: int) -> np.ndarray:
        labels = source.draw(c, gen).reshape(c, k, n_inf).astype(np.intp)  # [b, g, j]
        # relabelling b gives rater labels[b, g, j] the zone that rater g gave key j
        cell = np.arange(c)[:, None, None] * (k * n_lv) + labels * n_lv + zi.T[None, :, :]
        counts = np.bincount(cell.ravel(), minlength=c * k * n_lv).reshape(c, k, n_lv)
        tabs = counts + fixed
        return (((tabs - expected) ** 2) / expected).sum(axis=(1, 2))

    if total is not None:
        sims = simulate(total)
        p, mid = exact_pvalues(sims, np.ones(len(sims)), stat, REL_TOL * abs(stat), total)
        return MatchedTestResult(stat, None, p, "exact", n_keys, n_inf, total, share, vc, mid, v)
    p, drawn, mid = sequential_pvalue(simulate, stat, n_perm, stop_hits)
    return MatchedTestResult(stat, None, p, "permutation", n_keys, n_inf, drawn, share, vc, mid, v)


def _zone_share(z: np.ndarray, levels: int) -> float:
    """The within-key share of the zone variation explained by the raters (exponent 2 on
    the zone indicators; keys as blocks); *z* keys × raters, −1 not rated."""
    key, rater = np.nonzero(z >= 0)
    indicators = np.eye(levels)[z[key, rater]]
    return dispersion_effect(indicators, rater, z.shape[1], key, exponent=2).estimate


def _incomplete_mh(
    z: np.ndarray,
    levels: int,
    present: np.ndarray,
    stat: float,
    expected: np.ndarray,
    n_perm: int,
    rng: int | np.random.Generator | None,
    stop_hits: int | None,
) -> MatchedTestResult:
    """:func:`marginal_homogeneity_test` of a design with keys some raters did not rate:
    each key's zones are shuffled among the raters who rated it."""
    n_keys, k = z.shape
    rated = z >= 0
    codes = np.where(rated, np.searchsorted(np.flatnonzero(present), np.maximum(z, 0)), -1)
    highest = np.where(rated, codes, -1).max(axis=1)
    lowest = np.where(rated, codes, levels).min(axis=1)
    informative = np.flatnonzero((rated.sum(axis=1) >= 2) & (highest != lowest))
    fixed_rows = np.setdiff1d(np.arange(n_keys), informative)
    n_lv = int(present.sum())
    fixed = _rater_table(codes[fixed_rows], n_lv) if len(fixed_rows) else np.zeros((k, n_lv))
    zi, ri = codes[informative], rated[informative]
    # the raters of each informative key in order, and how many
    who = np.argsort(~ri, axis=1, kind="stable")
    count = ri.sum(axis=1)
    slot_ok = np.arange(k)[None, :] < count[:, None]
    n_inf = len(informative)
    obs_tab = _rater_table(codes, n_lv)
    v, vc = _cramers_v_of(stat, obs_tab.sum(), *obs_tab.shape)
    share = _zone_share(z, levels)
    if n_perm <= 0:
        return MatchedTestResult(stat, None, np.nan, "", n_keys, n_inf, 0, share, vc, np.nan, v)

    def tables(order: np.ndarray) -> np.ndarray:
        """Statistics of relabellings *order* (c, keys, k): slot i of key j (its i-th
        rater) gets the zone of rater order[b, j, i]."""
        c = len(order)
        zones = np.take_along_axis(np.broadcast_to(zi, (c, *zi.shape)), order, axis=2)
        cell = np.arange(c)[:, None, None] * (k * n_lv) + who[None] * n_lv + zones
        counts = np.bincount(cell[:, slot_ok].ravel(), minlength=c * k * n_lv)
        tabs = counts.reshape(c, k, n_lv) + fixed
        return (((tabs - expected) ** 2) / expected).sum(axis=(1, 2))

    total = _permutation_count(count, n_perm)
    if total is not None:
        sims = tables(_every_order(who, count, k))
        p, mid = exact_pvalues(sims, np.ones(len(sims)), stat, REL_TOL * abs(stat), total)
        return MatchedTestResult(stat, None, p, "exact", n_keys, n_inf, total, share, vc, mid, v)
    gen = np.random.default_rng(rng)

    def simulate(c: int) -> np.ndarray:
        u = gen.random((c, n_inf, k))
        u[:, ~ri] = np.inf  # raters who did not rate a key come last, never chosen
        return tables(np.argsort(u, axis=2, kind="stable"))

    p, drawn, mid = sequential_pvalue(simulate, stat, n_perm, stop_hits)
    return MatchedTestResult(stat, None, p, "permutation", n_keys, n_inf, drawn, share, vc, mid, v)


def _permutation_count(count: np.ndarray, limit: int) -> int | None:
    """Π n_j! over the keys (n_j raters each) if at most *limit*, else None."""
    from math import factorial

    n = 1
    for c in count:
        n *= factorial(int(c))
        if n > limit:
            return None
    return n


def _every_order(who: np.ndarray, count: np.ndarray, k: int) -> np.ndarray:
    """Every combination of one ordering of each key's raters: (Π n_j!, keys, k)."""
    from itertools import permutations

    per_key = []
    for j, n in enumerate(count):
        raters = who[j, :n]
        rest = who[j, n:]
        per_key.append(np.array([[*p, *rest] for p in permutations(raters)], dtype=np.intp))
    sizes = [len(p) for p in per_key]
    total = int(np.prod(sizes, dtype=np.int64)) if sizes else 1
    index = np.arange(total, dtype=np.int64)
    out = np.empty((total, len(per_key), k), dtype=np.intp)
    for j, options in enumerate(per_key):
        index, digit = np.divmod(index, len(options))
        out[:, j] = options[digit]
    return out
