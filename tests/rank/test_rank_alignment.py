"""Tests for rrmap.rank.agreement.alignment: exact/permutation Spearman p-values and alignment tables."""

from __future__ import annotations

from itertools import permutations
from math import factorial

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from rrmap.errors import InputError
from rrmap.rank.agreement.alignment import align_rankings, spearman_test, split_half_alignment
from rrmap.rank.models.bradley_terry import fit_bradley_terry


def _brute_force_p(x, y, alternative):
    n = len(x)
    rho = stats.spearmanr(x, y).statistic
    # Pearson correlation of ranks over every reordering of y (no ties here)
    rx = stats.rankdata(x) - (n + 1) / 2
    ry = stats.rankdata(y)[np.array(list(permutations(range(n))))] - (n + 1) / 2
    null = (ry @ rx) / (rx @ rx)
    if alternative == "greater":
        return rho, np.mean(null >= rho - 1e-9)
    if alternative == "less":
        return rho, np.mean(null <= rho + 1e-9)
    assert len(null) == factorial(n)
    return rho, np.mean(np.abs(null) >= abs(rho) - 1e-9)


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("seed", [0, 1])
def test_exact_p_equals_enumeration(n, alternative, seed):
    rng = np.random.default_rng(seed + 10 * n)
    x = rng.permutation(n).astype(float)
    y = rng.permutation(n).astype(float)
    rho, p, how = spearman_test(x, y, alternative=alternative)
    ref_rho, ref_p = _brute_force_p(x, y, alternative)
    assert how == "exact"
    assert rho == pytest.approx(ref_rho)
    assert p == pytest.approx(ref_p)


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_exact_matches_scipy_permutation_test(alternative):
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=6), rng.normal(size=6) + np.arange(6) * 0.3
    _, p, _ = spearman_test(x, y, alternative=alternative)
    ref = stats.permutation_test(
        (x,), lambda a: stats.spearmanr(a, y).statistic, permutation_type="pairings",
        alternative=alternative, n_resamples=np.inf,
    )  # fmt: skip
    assert p == pytest.approx(ref.pvalue)


def test_exact_known_values():
    # perfect agreement of 4: one order of 24; n = 10 perfect: 1/10!
    assert spearman_test(range(4), range(4), alternative="greater")[1] == pytest.approx(1 / 24)
    assert spearman_test(range(10), range(10), alternative="greater")[1] == pytest.approx(
        1 / factorial(10)
    )
    assert spearman_test(range(10), range(10))[1] == pytest.approx(2 / factorial(10))


def test_exact_differs_from_asymptotic_at_n10():
    x = np.arange(10)
    y = np.array([1, 0, 3, 2, 6, 4, 5, 9, 7, 8])
    _, p_exact, _ = spearman_test(x, y)
    _, p_asym, how = spearman_test(x, y, method="asymptotic")
    assert how == "asymptotic"
    assert p_asym == pytest.approx(stats.spearmanr(x, y).pvalue)
    assert p_exact != pytest.approx(p_asym, rel=0.05)


def test_permutation_close_to_exact_and_seeded():
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=9), rng.normal(size=9)
    _, p_exact, _ = spearman_test(x, y)
    _, p1, how = spearman_test(x, y, method="permutation", n_permutations=20000, rng=1)
    _, p2, _ = spearman_test(x, y, method="permutation", n_permutations=20000, rng=1)
    assert how == "permutation" and p1 == p2
    assert abs(p1 - p_exact) < 4 * np.sqrt(p_exact * (1 - p_exact) / 20000) + 1e-4


def test_ties_up_to_nine_are_exact_by_enumeration():
    x = [1, 2, 2, 3, 4, 5]
    y = [1, 3, 2, 4, 6, 5]
    rho, p, how = spearman_test(x, y)
    assert how == "exact"
    assert rho == pytest.approx(stats.spearmanr(x, y).statistic)
    # all 720 reorderings of the tied y give the exact conditional p-value
    rx = stats.rankdata(x) - 3.5
    ry = stats.rankdata(y)[np.array(list(permutations(range(6))))] - 3.5
    null = (ry @ rx) / np.sqrt((rx @ rx) * (ry[0] @ ry[0]))
    exact = np.mean(np.abs(null) >= abs(rho) - 1e-9)
    assert p == pytest.approx(exact, abs=1e-15)

    # scipy's exhaustive permutation test agrees (one-sided too)
    def rho_of(a, b, axis=-1):
        ra, rb = stats.rankdata(a, axis=axis), stats.rankdata(b, axis=axis)
        ra, rb = ra - ra.mean(axis, keepdims=True), rb - rb.mean(axis, keepdims=True)
        return (ra * rb).sum(axis) / np.sqrt((ra**2).sum(axis) * (rb**2).sum(axis))

    def rho_with_x(b, axis=-1):  # one sample: its 6! orders against x, not (6!)² pairings
        return rho_of(np.broadcast_to(np.asarray(x, float), np.shape(b)), b, axis)

    ref = stats.permutation_test((y,), rho_with_x, permutation_type="pairings", vectorized=True,
                                 n_resamples=np.inf, alternative="greater")  # fmt: skip
    assert len(ref.null_distribution) == 720
    assert spearman_test(x, y, alternative="greater")[1] == pytest.approx(ref.pvalue, abs=1e-12)


def test_ties_above_nine_use_permutation_and_exact_refuses():
    x = [1, 2, 2, 3, 4, 5, 6, 7, 8, 9]
    y = [1, 3, 2, 4, 6, 5, 8, 7, 10, 9]
    _rho, _p, how = spearman_test(x, y, rng=0, n_permutations=2000)
    assert how == "permutation"
    with pytest.raises(InputError, match="n <= 12 untied scores or n <= 9 with ties"):
        spearman_test(x, y, method="exact")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"x": [1, 2], "y": [1, 2, 3]}, "equal length"),
        ({"x": [1], "y": [1]}, "at least 2 pairs"),
        ({"x": [1, np.nan], "y": [1, 2]}, "finite"),
        ({"alternative": "bigger"}, "alternative must be one of"),
        ({"method": "magic"}, "method must be one of"),
        ({"method": "permutation", "n_permutations": 0}, "n_permutations must be an integer"),
    ],
)
def test_spearman_bad_input(kwargs, match):
    args = {"x": [1, 2, 3], "y": [3, 1, 2], **kwargs}
    with pytest.raises(InputError, match=match):
        spearman_test(**args)


def test_constant_is_undefined():
    rho, p, how = spearman_test([1, 1, 1], [1, 2, 3])
    assert np.isnan(rho) and np.isnan(p) and how == "undefined"


def test_align_global_matches_scipy_and_counts_unmatched():
    rng = np.random.default_rng(3)
    names = [f"m{i}" for i in range(10)]
    h = pd.DataFrame({"candidate": names, "score": rng.normal(size=10)})
    m = pd.DataFrame({"candidate": [*names[1:], "extra"], "score": rng.normal(size=10)})
    res = align_rankings(h, m)
    merged = h.merge(m, on="candidate")
    assert res.table["rho"].iloc[0] == pytest.approx(
        stats.spearmanr(merged.score_x, merged.score_y).statistic
    )
    assert res.table["n_candidates"].iloc[0] == 9
    ex = res.excluded.set_index("reason")["n"]
    assert (ex["only_in_human"], ex["only_in_model"]) == (1, 1)
    assert np.isnan(res.summary["fisher_p"].iloc[0])


def test_align_per_instance_fisher():
    rng = np.random.default_rng(4)
    rows_h, rows_m = [], []
    for i in range(6):
        s = rng.normal(size=5)
        for j, c in enumerate("ABCDE"):
            rows_h.append((f"i{i}", c, s[j]))
            rows_m.append((f"i{i}", c, s[j] + rng.normal(scale=0.8)))
    rows_h.append(("tiny", "A", 1.0))
    rows_m.append(("tiny", "A", 2.0))
    for c, v in zip("ABC", [1.0, 1.0, 1.0], strict=True):
        rows_h.append(("flat", c, v))
        rows_m.append(("flat", c, v + ord(c)))
    cols = ["instance", "candidate", "score"]
    h, m = pd.DataFrame(rows_h, columns=cols), pd.DataFrame(rows_m, columns=cols)
    res = align_rankings(h, m, by="instance", alternative="greater")
    assert len(res.table) == 6
    ps = [spearman_test(g.score_x, g.score_y, alternative="greater")[1]
          for _, g in h.merge(m, on=["instance", "candidate"]).groupby("instance")
          if g.instance.iloc[0].startswith("i")]  # fmt: skip
    np.testing.assert_allclose(res.table["p_value"], ps)
    chi2 = -2 * np.sum(np.log(ps))
    assert res.summary["fisher_statistic"].iloc[0] == pytest.approx(chi2)
    assert res.summary["fisher_p"].iloc[0] == pytest.approx(stats.chi2.sf(chi2, 12))
    assert res.summary["mean_rho"].iloc[0] == pytest.approx(res.table["rho"].mean())
    ex = res.excluded.set_index("reason")["n"]
    assert (ex["too_few_candidates"], ex["constant_scores"]) == (1, 1)


@pytest.mark.parametrize(
    ("human", "match"),
    [
        (pd.DataFrame({"candidate": ["A"]}), "human: missing column 'score'"),
        (pd.DataFrame({"candidate": ["A", "A"], "score": [1, 2]}), "duplicated candidate"),
        (pd.DataFrame({"candidate": ["A", "B"], "score": [1, "x"]}), "not a finite number"),
        ([1, 2], "human: expected a DataFrame, got list"),
        (
            pd.DataFrame({"candidate": ["A", None], "score": [1, 2]}),
            r"human: column 'candidate' has missing values at rows \[1\]",
        ),
    ],
)
def test_align_bad_input(human, match):
    m = pd.DataFrame({"candidate": ["A", "B"], "score": [1.0, 2.0]})
    with pytest.raises(InputError, match=match):
        align_rankings(human, m)


def test_split_half_perfectly_consistent_judges():
    rows = [("A", "B"), ("B", "C"), ("C", "D"), ("A", "C"), ("B", "D"), ("A", "D")] * 10
    df = pd.DataFrame(rows, columns=["left", "right"]).assign(instance="i", winner="left")
    out = split_half_alignment(df, lambda d: fit_bradley_terry(d).table, n_splits=5, rng=0)
    assert out["n_candidates"].tolist() == [4] * 5
    np.testing.assert_allclose(out["rho"], 1.0)
    with pytest.raises(InputError, match="n_splits must be an integer >= 1"):
        split_half_alignment(df, lambda d: fit_bradley_terry(d).table, n_splits=0)
