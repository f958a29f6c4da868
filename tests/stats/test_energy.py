"""Tests of rrmap.stats.energy against dcor (the reference) and closed forms."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from rrmap.errors import InputError
from rrmap.stats.energy import (
    EnergyTestResult,
    energy_statistic,
    energy_test,
    energy_tests,
    pairwise_distances,
)

SIZES = [
    (2, 2),
    (5, 17),
    (40, 3),
    (10, 10, 10),
    (3, 25, 8),
    (2, 9, 4, 30),
    (12, 5, 7, 2, 20),
    (15,) * 9,
]


@pytest.mark.parametrize("sizes", SIZES)
@pytest.mark.parametrize("seed", range(5))
def test_statistic_equals_dcor(sizes, seed, dcor):
    g = np.random.default_rng(seed)
    samples = [
        g.normal(loc=g.normal(size=2), scale=g.uniform(0.3, 3.0), size=(n, 2)) for n in sizes
    ]
    ours = energy_statistic(*samples)
    ref = float(dcor.homogeneity.energy_test(*samples, num_resamples=0).statistic)
    assert ours == pytest.approx(ref, rel=1e-10, abs=0)


@pytest.mark.parametrize("dim", [1, 3])
def test_statistic_equals_dcor_other_dimensions(dim, dcor):
    g = np.random.default_rng(dim)
    samples = [g.normal(size=(n, dim)) + i for i, n in enumerate((6, 11, 4))]
    ref = float(dcor.homogeneity.energy_test(*samples).statistic)
    assert energy_statistic(*samples) == pytest.approx(ref, rel=1e-10, abs=0)


def test_statistic_closed_form():
    # two points per sample at 0,1 and 2,3 on a line: M11 = M22 = 0.5, M12 = 2
    # E = 2*2/4 * (2*2 - 0.5 - 0.5) = 3
    assert energy_statistic([[0.0], [1.0]], [[2.0], [3.0]]) == pytest.approx(3.0, rel=1e-14)


def test_pairwise_distances():
    d = pairwise_distances([[0, 0], [3, 4], [0, 1]])
    np.testing.assert_allclose(d, [[0, 5, 1], [5, 0, np.sqrt(18)], [1, np.sqrt(18), 0]])


@pytest.mark.parametrize(
    ("sizes", "shift"), [((20, 25), 0.6), ((15, 15, 20), 0.5), ((30, 12), 0.0)]
)
def test_pvalue_matches_dcor_within_monte_carlo_error(sizes, shift, dcor):
    g = np.random.default_rng(11)
    samples = [g.normal(size=(n, 2)) + i * shift for i, n in enumerate(sizes)]
    b = 2000
    ours = energy_test(*samples, n_perm=b, rng=1)
    ref = dcor.homogeneity.energy_test(*samples, num_resamples=b, random_state=2)
    p = 0.5 * (ours.pvalue + ref.pvalue)
    se = np.sqrt(2 * max(p * (1 - p), 1e-4) / b)  # SE of the difference of two estimates
    assert abs(ours.pvalue - ref.pvalue) < 5 * se + 2 / b
    assert ours.statistic == pytest.approx(float(ref.statistic), rel=1e-10)


@pytest.mark.parametrize("sizes", [(5, 10, 8), (7, 4), (3, 4, 5, 6, 2), (2, 2), (9, 9, 9)])
def test_relabelled_statistics_equal_dcor_on_the_same_relabellings(sizes, dcor):
    from rrmap.stats._permutation import _Stacked, block_sums, order_groups, statistics
    from rrmap.stats._relabellings import draw

    g = np.random.default_rng(3)
    n = sum(sizes)
    x = g.normal(size=(n, 2))
    codes = np.repeat(np.arange(len(sizes)), sizes)
    order, sorted_sizes = order_groups(codes, len(sizes))
    xs, base = x[order], codes[order]
    # two tests in one product: the points and their mirror image
    dist = _Stacked(np.stack([pairwise_distances(xs), pairwise_distances(-2.0 * xs)]))
    base = np.repeat(np.arange(len(sizes)), sorted_sizes)
    drawn = draw(base, 12, np.random.default_rng(9))
    ours = statistics(*block_sums(dist, drawn, sorted_sizes), sorted_sizes)
    for b, labels in enumerate(drawn):
        groups = [xs[labels == i] for i in range(len(sizes))]
        ref = float(dcor.homogeneity.energy_test(*groups).statistic)
        assert ours[0, b] == pytest.approx(ref, rel=1e-10)
        assert ours[1, b] == pytest.approx(2.0 * ref, rel=1e-10)


def test_relabellings_are_uniform_permutations():
    from rrmap.stats._relabellings import draw

    labels = draw(np.array([0, 0, 1, 2]), 12000, np.random.default_rng(0))
    assert (np.sort(labels, axis=1) == [0, 0, 1, 2]).all()
    # the 12 distinct arrangements of the labels are equally likely
    _, counts = np.unique(labels, axis=0, return_counts=True)
    assert len(counts) == 12
    assert stats.chisquare(counts).pvalue > 0.001


def test_relabellings_do_not_depend_on_the_chunks():
    from rrmap.stats._relabellings import draw

    g1, g2 = np.random.default_rng(4), np.random.default_rng(4)
    base = np.repeat([0, 1, 2], 3)
    whole = draw(base, 50, g1)
    parts = np.vstack([draw(base, 7, g2), draw(base, 1, g2), draw(base, 42, g2)])
    np.testing.assert_array_equal(whole, parts)


@pytest.mark.parametrize("chunk_size", [1, 7, 100, None])
def test_chunk_size_does_not_change_the_result(chunk_size):
    g = np.random.default_rng(4)
    a, b = g.normal(size=(12, 2)), g.normal(0.4, size=(9, 2))
    ref = energy_test(a, b, n_perm=300, rng=5, chunk_size=300)
    res = energy_test(a, b, n_perm=300, rng=5, chunk_size=chunk_size)
    assert res == ref


def test_pvalue_rule_counts_ties():
    # identical samples: every permutation gives E_b = E_obs = 0 -> p = 1
    a = np.zeros((4, 2))
    res = energy_test(a, a.copy(), n_perm=50, rng=0)
    assert res.statistic == 0.0
    assert res.pvalue == 1.0


def test_pvalue_bounds_for_separated_samples():
    # perfectly separated: only relabellings that keep the split reach E_obs;
    # with 8+8 points that is 2 of C(16, 8) = 12870 labellings.
    a = np.zeros((8, 2))
    b = np.full((8, 2), 10.0)
    res = energy_test(a, b, n_perm=999, rng=0)
    assert res.pvalue < 0.01
    assert res.pvalue >= 1 / 1000


@pytest.mark.slow  # a statistical simulation: run by .ci/run (pytest -m slow)
def test_null_calibration():
    # under H0 the permutation p-values are (discretely) uniform
    g = np.random.default_rng(2024)
    ps = []
    for _ in range(200):
        x = g.normal(size=(30, 2))
        ps.append(energy_test(x[:12], x[12:22], x[22:], n_perm=99, rng=g).pvalue)
    ps = np.array(ps)
    assert stats.kstest(ps, "uniform").pvalue > 0.01
    assert abs(np.mean(ps < 0.05) - 0.05) < 3 * np.sqrt(0.05 * 0.95 / 200) + 0.01


@pytest.mark.slow  # a statistical simulation: run by .ci/run (pytest -m slow)
def test_power_against_a_shift():
    g = np.random.default_rng(7)
    res = energy_test(g.normal(size=(40, 2)), g.normal(1.0, size=(40, 2)), n_perm=199, rng=0)
    assert res.pvalue == pytest.approx(1 / 200)


def test_result_fields():
    res = energy_test(np.zeros((3, 2)), np.ones((4, 2)), n_perm=9, rng=0)
    assert isinstance(res, EnergyTestResult)
    assert res.sizes == (3, 4)
    assert res.n_perm == 9
    # zero permutations: the statistic without a p-value
    res0 = energy_test(np.zeros((3, 2)), np.ones((4, 2)), n_perm=0)
    assert np.isnan(res0.pvalue)


@pytest.mark.parametrize(
    ("samples", "message"),
    [
        (([[0.0, np.nan], [1, 1]], [[0, 0], [2, 2]]), "sample 1: 1 point(s) with NaN or inf"),
        (([[0.0, 1], [1, 1]], [[0, np.inf], [2, 2], [3, 3]]), "sample 2: 1 point(s)"),
        (([[0.0, 1], [1, 1]],), "at least two samples, got 1"),
        (([[0.0, 1]], [[0, 0], [2, 2]]), "sample 1 has 1 point(s)"),
        (([[0.0, 1], [1, 1]], [[0, 0, 1], [2, 2, 1]]), "different dimensions"),
    ],
)
def test_bad_input_messages(samples, message):
    with pytest.raises(InputError) as err:
        energy_test(*samples, n_perm=5)
    assert message in str(err.value)


@pytest.mark.parametrize("n_perm", [-1, 2.5, True])
def test_bad_n_perm(n_perm):
    with pytest.raises(InputError, match="n_perm must be a non-negative integer"):
        energy_test([[0, 0], [1, 1]], [[2, 2], [3, 3]], n_perm=n_perm)


def test_bad_chunk_size():
    with pytest.raises(InputError, match="chunk_size must be a positive integer"):
        energy_test([[0, 0], [1, 1]], [[2, 2], [3, 3]], n_perm=5, chunk_size=0)


def test_energy_tests_design_matches_single_tests(dcor):
    g = np.random.default_rng(8)
    x = g.normal(size=(36, 2))
    labels = np.array(["b"] * 10 + ["a"] * 14 + ["c"] * 12)
    res = energy_tests(x, labels, n_perm=0)
    assert res["groups"].tolist() == ["a|b|c", "a|b", "a|c", "b|c"]
    assert res["pvalue"].isna().all() and (res["n_perm"] == 0).all()
    assert set(res["note"]) == {"statistic only: no permutations (n_perm = 0), no p-value"}
    assert res["n"].tolist() == [36, 24, 26, 22]
    ref_global = dcor.homogeneity.energy_test(
        x[labels == "a"], x[labels == "b"], x[labels == "c"]
    ).statistic
    ref_bc = dcor.homogeneity.energy_test(x[labels == "b"], x[labels == "c"]).statistic
    assert res.statistic.iloc[0] == pytest.approx(float(ref_global), rel=1e-10)
    assert res.statistic.iloc[3] == pytest.approx(float(ref_bc), rel=1e-10)


def test_energy_tests_two_groups_reported_once():
    g = np.random.default_rng(1)
    res = energy_tests(g.normal(size=(10, 2)), ["x"] * 5 + ["y"] * 5, n_perm=19, rng=0)
    assert res["groups"].tolist() == ["x|y"]
    assert res["note"].tolist() == [""]


def test_energy_tests_records_skips():
    g = np.random.default_rng(1)
    res = energy_tests(g.normal(size=(9, 2)), ["a"] * 4 + ["b"] + ["c"] * 4, n_perm=19, rng=0)
    by = res.set_index("groups")
    assert np.isnan(by.loc["a|b|c", "pvalue"])
    assert by.loc["a|b|c", "note"] == "group with < 2 points: b has 1 point"
    assert np.isnan(by.loc["a|b", "pvalue"]) and by.loc["a|b", "n_perm"] == 0
    assert by.loc["a|c", "note"] == "" and 0 < by.loc["a|c", "pvalue"] <= 1
    single = energy_tests(g.normal(size=(4, 2)), ["a"] * 4, n_perm=9)
    assert single["note"].tolist() == ["single group (a): nothing to compare"]
    assert np.isnan(single["pvalue"].iloc[0])


def test_energy_tests_bad_input():
    with pytest.raises(InputError, match="points: 1 point"):
        energy_tests([[0, 0], [np.nan, 1], [2, 2]], ["a", "a", "b"], n_perm=5)
    with pytest.raises(InputError, match="2 labels for 3 points"):
        energy_tests([[0, 0], [1, 1], [2, 2]], ["a", "b"], n_perm=5)


@pytest.mark.parametrize("seed", range(3))
def test_statistic_invariances(seed):
    g = np.random.default_rng(seed)
    samples = [g.normal(size=(n, 2)) + i for i, n in enumerate((7, 12, 5))]
    e = energy_statistic(*samples)
    # order of points within a sample, and of the samples, does not matter
    shuffled = [s[g.permutation(len(s))] for s in samples]
    assert energy_statistic(*shuffled[::-1]) == pytest.approx(e, rel=1e-12)
    # rigid motions leave distances, hence E, unchanged; scaling by c multiplies E by c
    theta = g.uniform(0, 2 * np.pi)
    rot = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    moved = [s @ rot.T + np.array([3.0, -1.0]) for s in samples]
    assert energy_statistic(*moved) == pytest.approx(e, rel=1e-10)
    assert energy_statistic(*[2.5 * s for s in samples]) == pytest.approx(2.5 * e, rel=1e-12)


def test_text_given_as_points_says_what_to_pass(example_points):
    from rrmap.stats import energy_tests

    with pytest.raises(InputError) as err:
        energy_tests(example_points, example_points["expert"])
    text = str(err.value)
    assert "pass points[['delta', 'r']]" in text and "compare_groups(points, by=...)" in text
    with pytest.raises(InputError, match=r"sample 1: an energy test compares numeric points"):
        energy_test([["a", 1.0], ["b", 2.0]], [[0.0, 1.0], [1.0, 2.0]])


@pytest.mark.parametrize("n_perm", [1, 10, 19])
def test_too_few_permutations_warn_as_in_analyze(n_perm):
    from rrmap.errors import PermutationWarning
    from rrmap.stats import energy_tests

    a, b = np.zeros((3, 2)), np.ones((4, 2))
    warns = n_perm < 19  # 1/(B+1) > 0.05 exactly when B < 19
    for call in (
        lambda: energy_test(a, b, n_perm=n_perm, rng=0),
        lambda: energy_tests(np.vstack([a, b]), ["a"] * 3 + ["b"] * 4, n_perm=n_perm, rng=0),
    ):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        mine = [w for w in caught if issubclass(w.category, PermutationWarning)]
        assert len(mine) == int(warns)
        if warns:
            assert f"1/{n_perm + 1}" in str(mine[0].message)
            assert mine[0].filename == __file__  # points at the caller's line
