"""Single-precision screening of relabellings: a rigorous bound, then double precision.

The engine evaluates a chunk of relabellings in float32 and sends back to
float64 every relabelling whose statistic lies within the rounding bound of
the threshold ``E_obs − τ``. These tests check the bound against the
float64 statistics, the decisions against exact arithmetic on integer
points (where ties are common), and whole runs against the unscreened
engine.
"""

from __future__ import annotations

import numpy as np
import pytest
from exact_energy import _exact_energy, _value, reported_design

from rrmap.stats._permutation import (
    _Stacked,
    block_sums,
    order_groups,
    run_batch,
    screened_statistics,
    screens,
    single_precision_statistics,
    statistics,
    term_scale,
    tolerance,
)
from rrmap.stats._relabellings import draw
from rrmap.stats.energy import pairwise_distances


def _setup(x: np.ndarray, sizes: tuple[int, ...]):
    """Points in group order, screened distances, ascending sizes, base labels, E_obs − τ."""
    codes = np.repeat(np.arange(len(sizes)), sizes)
    order, ssizes = order_groups(codes, len(sizes))
    x = x[order]
    dist = _Stacked(pairwise_distances(x)[None], screen=True)
    base = np.repeat(np.arange(len(sizes)), ssizes)
    upper, diag = block_sums(dist, base[None], ssizes)
    obs = statistics(upper, diag, ssizes)[:, 0]
    tau = tolerance(obs, term_scale(upper[:, 0], diag[:, 0], ssizes), len(x))
    return x, dist, ssizes, base, obs - tau


def _designs():
    g = np.random.default_rng(11)
    yield "normal", g.normal(size=(60, 2)), (25, 35)
    yield (
        "shifted",
        g.normal(size=(90, 2)) + np.repeat([[0, 0], [1, 0], [0, 1]], 30, axis=0),
        (
            30,
            30,
            30,
        ),
    )
    yield "integer grid", g.integers(0, 4, size=(48, 2)).astype(float), (12, 16, 20)
    yield "ratios", np.round(g.uniform(-3, 3, size=(400, 2)), 1), (130, 135, 135)


@pytest.mark.parametrize(("name", "x", "sizes"), list(_designs()), ids=lambda v: str(v)[:12])
def test_the_rounding_bound_holds_and_is_small(name, x, sizes):
    x, dist, ssizes, base, _thr = _setup(x, sizes)
    labels = draw(base, 500, np.random.default_rng(3))
    est, bound = single_precision_statistics(dist, labels, ssizes)
    exact = statistics(*block_sums(dist, labels, ssizes), ssizes)
    err = np.abs(est - exact)
    assert (err <= bound).all(), float((err / bound).max())
    # and it is small enough to decide almost every relabelling in single precision
    spread = np.subtract(*np.percentile(exact, [90, 10]))
    assert np.median(bound) < 0.05 * spread, (np.median(bound), spread)


@pytest.mark.parametrize(("name", "x", "sizes"), list(_designs()), ids=lambda v: str(v)[:12])
def test_screened_decisions_are_the_double_precision_decisions(name, x, sizes):
    x, dist, ssizes, base, thr = _setup(x, sizes)
    labels = draw(base, 800, np.random.default_rng(5))
    upper, diag = block_sums(dist, labels, ssizes)
    exact = statistics(upper, diag, ssizes)
    # a threshold on relabelling 7's own statistic (less its τ, as E_obs − τ): it and
    # every relabelling tied with it reach it
    tied = exact[:, 7] - tolerance(exact[:, 7], term_scale(upper, diag, ssizes)[:, 7], len(x))
    for t in (thr, tied, np.median(exact, axis=1)):
        stats, share = screened_statistics(dist, labels, ssizes, t)
        np.testing.assert_array_equal(stats >= t[:, None], exact >= t[:, None])
    # relabellings close to the threshold went back to double precision, and only those
    _, share = screened_statistics(dist, labels, ssizes, tied)
    assert 0 < share < 0.2, share


def test_distances_below_the_float32_range_all_go_back_to_double_precision():
    x = np.random.default_rng(2).normal(size=(40, 2)) * 1e-42
    x, dist, ssizes, base, thr = _setup(x, (20, 20))
    labels = draw(base, 100, np.random.default_rng(0))
    est, bound = single_precision_statistics(dist, labels, ssizes)
    exact = statistics(*block_sums(dist, labels, ssizes), ssizes)
    assert (np.abs(est - exact) <= bound).all()
    stats, share = screened_statistics(dist, labels, ssizes, thr)
    assert share == 1.0
    np.testing.assert_array_equal(stats, exact)


@pytest.mark.parametrize("seed", [0, 1])
def test_screened_hits_equal_exact_arithmetic_on_integer_points(seed):
    """Integer points: every E is a rational combination of square roots, compared exactly."""
    g = np.random.default_rng(seed)
    values = np.array([[0, 1], [1, 1], [0, 2], [2, 1], [1, 2]])
    x = values[g.integers(0, 5, 18)].astype(float)
    sizes = (6, 12)
    x, dist, ssizes, base, thr = _setup(x, sizes)
    labels = draw(base, 300, np.random.default_rng(seed))
    stats, share = screened_statistics(dist, labels, ssizes, thr)
    pts = [tuple(int(v) for v in p) for p in x]
    uniq = sorted(set(pts))

    def exact_e(lab: np.ndarray) -> dict:
        counts = [[0] * len(uniq) for _ in ssizes]
        for p, gi in zip(pts, lab, strict=True):
            counts[gi][uniq.index(p)] += 1
        return _exact_energy(counts, uniq)

    e_obs = exact_e(base)
    v_obs = _value(e_obs)
    reach = []
    for lab in labels:
        e = exact_e(lab)
        reach.append(e == e_obs or _value(e) > v_obs)
    ties = sum(exact_e(lab) == e_obs for lab in labels)
    assert ties > 0  # the case that matters: relabellings that tie in exact arithmetic
    assert share > 0
    np.testing.assert_array_equal(stats[0] >= thr[0], np.array(reach))


@pytest.mark.parametrize("stop_hits", [None, 20])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_runs_with_and_without_screening_are_identical(seed, stop_hits):
    designs = [
        (np.vstack(reported_design(seed)).astype(float), (150, 2)),
        (np.random.default_rng(seed).normal(size=(300, 2)), (100, 100, 100)),
    ]
    for x, sizes in designs:
        codes = np.repeat(np.arange(len(sizes)), sizes)
        order, ssizes = order_groups(codes, len(sizes))
        d = pairwise_distances(x[order])[None]
        plain = run_batch(_Stacked(d), ssizes, 2000, np.random.default_rng(seed), stop_hits, 97)
        screened = run_batch(
            _Stacked(d, screen=True), ssizes, 2000, np.random.default_rng(seed), stop_hits, 97
        )
        assert screened == plain


def test_distances_past_the_float32_range_all_go_back_to_double_precision():
    x = np.random.default_rng(3).normal(size=(40, 2)) * 1e37
    x, dist, ssizes, base, thr = _setup(x, (20, 20))
    labels = draw(base, 100, np.random.default_rng(0))
    est, _ = single_precision_statistics(dist, labels, ssizes)
    assert not np.isfinite(est).all()  # the single-precision sums overflow
    stats, share = screened_statistics(dist, labels, ssizes, thr)
    assert share == 1.0
    np.testing.assert_array_equal(stats, statistics(*block_sums(dist, labels, ssizes), ssizes))


def test_identical_points_are_all_sent_back_and_the_screen_is_given_up():
    x = np.ones((30, 2))
    x, dist, ssizes, base, thr = _setup(x, (10, 20))
    labels = draw(base, 50, np.random.default_rng(0))
    stats, share = screened_statistics(dist, labels, ssizes, thr)
    assert share == 1.0 and (stats == 0).all()
    # every relabelling ties: p = 1 with and without screening
    res = run_batch(dist, ssizes, 200, np.random.default_rng(0), None, 16)[0]
    assert res.pvalue == 1.0 and res.n_perm == 200


def test_screening_is_chosen_by_memory_at_its_exact_edge():
    m = 1500  # past the 1,024 points that used to bound screening
    budget = 2 * 12 * m * m  # float64 and float32 copies take exactly half of it
    assert screens(m, 5000, budget)
    assert not screens(m, 5000, budget - 2)
    assert not screens(m, 0, budget)  # no relabellings: nothing to screen


@pytest.mark.parametrize("shift", [0.0, 0.4])
def test_a_large_batch_is_screened_with_the_same_result(shift):
    rng = np.random.default_rng(7)
    m, k = 1400, 4
    x = rng.normal(size=(m, 2)) + shift * np.repeat(np.arange(k), m // k)[:, None]
    sizes = np.full(k, m // k)
    d = pairwise_distances(x)[None]
    plain = run_batch(_Stacked(d), sizes, 300, np.random.default_rng(1), None, 60)
    screened = run_batch(_Stacked(d, screen=True), sizes, 300, np.random.default_rng(1), None, 60)
    assert screened == plain
    if shift:  # far from the null: the screen decides (almost) every relabelling itself
        threshold = np.array([plain[0].statistic * (1 - 1e-9)])
        labels = draw(np.repeat(np.arange(k), sizes), 60, np.random.default_rng(2))
        _, share = screened_statistics(_Stacked(d, screen=True), labels, sizes, threshold)
        assert share == 0.0
        assert plain[0].pvalue == 1 / 301
