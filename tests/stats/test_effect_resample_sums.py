"""The effect sizes' resampled dispersions, all resamples at once, against one resample at a
time from the pairs of points it holds (the rule of rrmap.stats.effects' docstring)."""

from __future__ import annotations

import numpy as np
import pytest

from rrmap.bootstrap import resample_weights
from rrmap.stats import effects
from rrmap.stats._permutation import distances


def _one_resample(dist: np.ndarray, groups: np.ndarray, units: np.ndarray, w: np.ndarray, k: int):
    """(total, group 0, …) dispersions of one weight row: a pair of points of one unit counts
    once per draw of it, of two units once per pair of their draws."""
    same = units[:, None] == units[None, :]
    mult = np.where(same, w[units][:, None], np.outer(w[units], w[units]))
    out = []
    for members in [np.ones(len(groups), dtype=bool), *(groups == g for g in range(k))]:
        m = mult[np.ix_(members, members)]
        size = w[units[members]].sum()
        pairs = m.sum()
        pair_sum = (m * dist[np.ix_(members, members)]).sum()
        out.append(size / 2.0 * pair_sum / pairs if pairs > 0 else np.nan)
    return np.array(out)


def _case(kind: str):
    g = np.random.default_rng(3)
    if kind == "independent":  # one point per unit
        groups = np.repeat(np.arange(3), [7, 9, 5])
        return g.normal(size=(21, 2)), groups, np.arange(21), 3
    if kind == "matched":  # every group once on every key
        groups = np.repeat(np.arange(3), 8)
        return g.normal(size=(24, 2)), groups, np.tile(np.arange(8), 3), 3
    # incomplete, with a group twice on some keys: within-unit pairs in the group blocks
    groups = np.array([0, 1, 0, 1, 1, 0, 2, 2, 0, 1, 2, 0, 0, 1])
    units = np.array([0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4])
    return g.normal(size=(14, 2)), groups, units, 3


@pytest.mark.parametrize("kind", ["independent", "matched", "incomplete"])
@pytest.mark.parametrize("exponent", [1, 2])
def test_all_resamples_at_once_equal_one_resample_at_a_time(kind, exponent):
    x, groups, units, k = _case(kind)
    dist = distances(x, x) ** exponent
    if exponent == 1:
        ps = effects._pair_sums(dist, groups, units, k)
    else:
        ps = effects._squared_pair_sums(x, groups, units, k)
    w = resample_weights(ps.n_units, 40, np.random.default_rng(0)).astype(float)
    got = effects._dispersions(ps, w)
    want = np.array([_one_resample(dist, groups, units, row, k) for row in w])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind", ["independent", "matched", "incomplete"])
def test_the_dispersions_do_not_depend_on_the_layout_of_the_weights(kind):
    """Row- or column-ordered weights give the same bits (the intervals in tests.csv do not
    change with how the weights were stored)."""
    x, groups, units, k = _case(kind)
    ps = effects._pair_sums(distances(x, x), groups, units, k)
    w = resample_weights(ps.n_units, 50, np.random.default_rng(1)).astype(float)
    by_rows = effects._dispersions(ps, np.ascontiguousarray(w))
    by_columns = effects._dispersions(ps, np.asfortranarray(w))
    assert np.array_equal(by_rows, by_columns, equal_nan=True)


@pytest.mark.parametrize("kind", ["independent", "matched", "incomplete"])
def test_groups_on_the_same_keys_share_one_block_with_the_same_shares(kind):
    # a complete matched design: its 3 groups span the same keys once each, one block;
    # groups that differ in keys or counts keep a block each
    x, groups, units, k = _case(kind)
    ps = effects._pair_sums(distances(x, x), groups, units, k)
    merged = effects._merged(ps)
    assert len(merged.blocks) == (2 if kind == "matched" else 1 + k)
    w = resample_weights(ps.n_units, 60, np.random.default_rng(2)).astype(float)
    want = np.array([_one_resample(distances(x, x), groups, units, row, k) for row in w])
    shares = 1.0 - want[:, 1:].sum(axis=1) / want[:, 0]
    np.testing.assert_allclose(effects._shares(merged, w), shares, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(
        effects._jackknife_shares(merged), effects._jackknife_shares(ps), rtol=1e-12, atol=1e-14
    )


@pytest.mark.parametrize(
    "units",
    [np.arange(6), np.array([0, 2, 3, 7]), np.array([4]), np.array([3, 1, 2]), np.array([0, 0, 1])],
)
def test_points_already_one_per_unit_in_order_are_ordered_as_by_sorting(units):
    # the shortcut for one point per unit, in order (independent samples), against the sort
    order = np.argsort(units, kind="stable")
    span, starts, count = np.unique(units[order], return_index=True, return_counts=True)
    got = effects._unit_order(units)
    for a, b in zip(got, (order, span, starts, count), strict=True):
        assert np.array_equal(a, b)
