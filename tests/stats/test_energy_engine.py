"""The permutation engine: sequential p-values, shared relabellings, memory budget."""

from __future__ import annotations

import numpy as np
import pytest
from exact_energy import exact_pvalue, reported_design

from rrmap.errors import InputError
from rrmap.stats._permutation import (
    PlannedTest,
    _Stacked,
    block_sums,
    order_groups,
    run_batch,
    run_tests,
    statistics,
    term_scale,
    tolerance,
)
from rrmap.stats._relabellings import draw
from rrmap.stats.energy import energy_statistic, energy_test, energy_tests, pairwise_distances


def _stream_statistics(x: np.ndarray, sizes: tuple[int, ...], n: int, seed: int):
    """Observed E, its τ and the E of the first *n* relabellings of a seeded stream."""
    codes = np.repeat(np.arange(len(sizes)), sizes)
    order, ssizes = order_groups(codes, len(sizes))
    dist = _Stacked(pairwise_distances(x[order])[None])
    base = np.repeat(np.arange(len(sizes)), ssizes)
    upper, diag = block_sums(dist, base[None], ssizes)
    obs = statistics(upper, diag, ssizes)[0, 0]
    tau = tolerance(np.array([obs]), term_scale(upper[:, 0], diag[:, 0], ssizes), len(x))[0]
    drawn = draw(base, n, np.random.default_rng(seed))
    perm = statistics(*block_sums(dist, drawn, ssizes), ssizes)[0]
    return obs, tau, perm, dist, ssizes


@pytest.mark.parametrize("h", [1, 5, 20])
@pytest.mark.parametrize("chunk_size", [1, 3, 64, None])
def test_sequential_stop_is_the_besag_clifford_rule_on_the_stream(h, chunk_size):
    g = np.random.default_rng(h)
    x = g.normal(size=(23, 2))
    x[:10] += 0.3
    obs, tau, perm, dist, ssizes = _stream_statistics(x, (10, 13), 400, seed=7)
    hits = np.cumsum(perm >= obs - tau)
    stop = int(np.argmax(hits >= h)) + 1 if hits[-1] >= h else None
    res = run_batch(dist, ssizes, 400, np.random.default_rng(7), h, chunk_size)[0]
    if stop is None:
        assert res.n_perm == 400 and res.pvalue == (1 + hits[-1]) / 401
    else:
        assert res.n_perm == stop and res.pvalue == h / stop
    assert res.statistic == obs


def test_full_run_counts_every_hit_of_the_stream():
    g = np.random.default_rng(1)
    x = g.normal(size=(19, 2))
    obs, tau, perm, dist, ssizes = _stream_statistics(x, (4, 6, 9), 250, seed=3)
    res = run_batch(dist, ssizes, 250, np.random.default_rng(3), None, 17)[0]
    assert res.n_perm == 250
    assert res.pvalue == (1 + np.count_nonzero(perm >= obs - tau)) / 251


@pytest.mark.slow  # a statistical simulation: run by .ci/run (pytest -m slow)
def test_sequential_null_calibration():
    """Under H0, P(p ≤ α) ≤ α, with equality at the attainable values h / L (Besag & Clifford)."""
    g = np.random.default_rng(2026)
    ps, used = [], []
    for _ in range(1500):
        x = g.normal(size=(16, 2))
        res = energy_test(x[:7], x[7:], n_perm=999, rng=g, stop_hits=10)
        ps.append(res.pvalue)
        used.append(res.n_perm)
    ps = np.array(ps)
    # at every attainable value α = h / L, P(p ≤ α) = α: valid, and not conservative
    for length in (200, 100, 50, 40, 25, 20, 15, 12, 11):
        alpha = 10 / length
        se = np.sqrt(alpha * (1 - alpha) / len(ps))
        assert abs(np.mean(ps <= alpha) - alpha) < 4 * se, alpha
    # and cheap: most null tests stop after a few dozen relabellings
    assert np.median(used) < 40


@pytest.mark.parametrize("seed", [0, 1])
def test_sequential_pvalues_against_exact_enumeration_with_ties(seed):
    a, b = reported_design(seed)
    p = exact_pvalue([a, b])
    h, n_perm = 400, 20_000
    for samples in ([a, b], [b, a]):
        res = energy_test(*samples, n_perm=n_perm, rng=seed, stop_hits=h)
        assert res.n_perm < n_perm
        # p̂ = h / L with L negative binomial: sd ≈ p √((1 − p) / h)
        assert abs(res.pvalue - p) < 4.5 * p * np.sqrt((1 - p) / h) + 1 / n_perm, (res, p)


def test_significant_tests_draw_every_relabelling():
    g = np.random.default_rng(5)
    res = energy_test(g.normal(size=(30, 2)), g.normal(2.0, size=(30, 2)), n_perm=2000, rng=0)
    assert res.n_perm == 2000 and res.pvalue == 1 / 2001


def test_tests_with_equal_sizes_share_one_stream_and_each_equals_its_own_run():
    g = np.random.default_rng(12)
    x = g.normal(size=(40, 2))
    x[10:20] += 2.0
    labels = np.repeat(["a", "b", "c", "d"], 10)
    res = energy_tests(x, labels, n_perm=500, rng=99, stop_hits=20).set_index("groups")
    # the six 10-vs-10 pairs share the stream of their group sizes, made from the seed and
    # those sizes only: a pair run alone with the same seed draws the same relabellings
    for pair in ("a|b", "a|c", "c|d"):
        left, right = pair.split("|")
        alone = energy_test(x[labels == left], x[labels == right], n_perm=500, rng=99, stop_hits=20)
        assert res.loc[pair, "statistic"] == pytest.approx(alone.statistic, rel=1e-12)
        assert (res.loc[pair, "pvalue"], res.loc[pair, "n_perm"]) == (alone.pvalue, alone.n_perm)
    assert res.loc["a|b", "pvalue"] < 0.01 and res.loc["a|c", "pvalue"] > 0.05


def test_a_batch_split_by_the_memory_budget_gives_the_same_results():
    g = np.random.default_rng(3)
    x = g.normal(size=(600, 2))
    specs = [PlannedTest(np.arange(i, i + 200), np.repeat([0, 1], 100), 2) for i in (0, 200, 400)]
    whole = run_tests(x, specs, 300, lambda key: np.random.default_rng(1), stop_hits=30)
    # 200 × 200 distances take 320 kB: a 700 kB budget holds one test at a time
    split = run_tests(
        x, specs, 300, lambda key: np.random.default_rng(1), stop_hits=30, memory_bytes=700_000
    )
    assert [(r.pvalue, r.n_perm) for r in split] == [(r.pvalue, r.n_perm) for r in whole]
    np.testing.assert_allclose(
        [r.statistic for r in split], [r.statistic for r in whole], rtol=1e-13
    )


@pytest.mark.parametrize("sizes", [(300, 340), (150, 250, 240)])
def test_blockwise_distances_give_the_same_test(sizes):
    g = np.random.default_rng(len(sizes))
    samples = [g.normal(loc=0.05 * i, size=(n, 2)) for i, n in enumerate(sizes)]
    held = energy_test(*samples, n_perm=199, rng=4, stop_hits=None)
    # 640 points: 3.3 MB of distances, more than half of a 1 MiB budget: row blocks
    blocks = energy_test(*samples, n_perm=199, rng=4, stop_hits=None, memory=2**20)
    assert blocks.statistic == pytest.approx(held.statistic, rel=1e-12)
    assert blocks.pvalue == held.pvalue and blocks.n_perm == 199
    assert energy_statistic(*samples) == pytest.approx(held.statistic, rel=1e-12)


def test_blockwise_never_holds_the_distance_matrix():
    import tracemalloc

    g = np.random.default_rng(0)
    a, b = g.normal(size=(2500, 2)), g.normal(size=(2500, 2))
    tracemalloc.start()
    res = energy_test(a, b, n_perm=20, rng=0, stop_hits=None, memory=16 * 2**20, chunk_size=20)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert res.n_perm == 20
    # the full matrix would take 5000² × 8 B = 200 MB; the budget is 16 MiB
    assert peak < 24 * 2**20, peak


def test_a_held_distance_matrix_is_built_without_copies():
    import tracemalloc

    g = np.random.default_rng(1)
    samples = [g.normal(size=(1000, 2)) for _ in range(3)]
    tracemalloc.start()
    energy_test(*samples, n_perm=20, rng=0, stop_hits=None)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # the 3000 × 3000 matrix takes 72 MB and its single-precision copy 36 MB (to screen
    # relabellings); the temporaries used to add two more double-precision copies
    matrix = 3000 * 3000 * (8 + 4)
    assert peak < matrix + 24 * 2**20, (peak, matrix)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"stop_hits": -1}, "stop_hits must be a non-negative integer or None"),
        ({"stop_hits": 2.5}, "stop_hits must be a non-negative integer or None"),
        ({"memory": 1000}, "memory must be at least 1 MiB"),
    ],
)
def test_bad_engine_options(kwargs, message):
    with pytest.raises(InputError, match=message):
        energy_test([[0, 0], [1, 1]], [[2, 2], [3, 3]], n_perm=5, **kwargs)


def test_stop_hits_zero_draws_everything():
    g = np.random.default_rng(2)
    x = g.normal(size=(20, 2))
    res = energy_test(x[:10], x[10:], n_perm=300, rng=0, stop_hits=0)
    assert res.n_perm == 300


@pytest.mark.parametrize("dim", [1, 2, 3])
def test_distances_are_scipy_cdist_to_the_bit(dim):
    from scipy.spatial.distance import cdist

    from rrmap.stats._permutation import distances

    g = np.random.default_rng(dim)
    a, b = g.normal(size=(120, dim)) * 40, g.integers(0, 100, size=(90, dim)).astype(float)
    np.testing.assert_array_equal(distances(a, b), cdist(a, b))
    np.testing.assert_array_equal(distances(a, a), cdist(a, a))
