"""Effect sizes: the energy dispersion share (R energy::disco) and Cramér's V."""

from __future__ import annotations

import subprocess
from fractions import Fraction

import numpy as np
import pytest
from r_packages import need_r_package
from scipy import stats

import rrmap
from rrmap.stats import compare_groups, cramers_v, energy_dispersion, energy_test, energy_tests
from rrmap.stats.chi2 import chi2_test, fails_cochran


def _disco_by_hand(samples):
    """Between / total from the definitions, with plain loops."""
    pooled = np.vstack(samples)
    n = len(pooled)
    dist = lambda a, b: float(np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)).sum())  # noqa: E731
    total = dist(pooled, pooled) / (2 * n)
    within = sum(dist(s, s) / (2 * len(s)) for s in samples)
    return (total - within) / total, total, within


@pytest.mark.parametrize("seed", range(4))
def test_energy_share_is_between_over_total(seed):
    g = np.random.default_rng(seed)
    samples = [g.normal(i * 0.5, size=(8 + 3 * i, 2)) for i in range(2 + seed % 2)]
    share, total, within = _disco_by_hand(samples)
    d = energy_dispersion(*samples)
    assert d.share == pytest.approx(share, rel=1e-12)
    assert (d.total, d.within) == (
        pytest.approx(total, rel=1e-12),
        pytest.approx(within, rel=1e-12),
    )
    assert energy_test(*samples, n_perm=99, rng=0).effect == pytest.approx(share, rel=1e-10)
    if len(samples) == 2:  # two samples: between = E / 2
        assert d.between == pytest.approx(energy_test(*samples, n_perm=0).statistic / 2, rel=1e-12)
    labels = np.repeat(np.arange(len(samples)), [len(s) for s in samples])
    rows = energy_tests(np.vstack(samples), labels, n_perm=9, rng=0)
    assert rows.effect.iloc[0] == pytest.approx(share, rel=1e-10)


def test_energy_share_equals_r_disco():
    need_r_package("energy", "apt r-cran-energy")
    g = np.random.default_rng(21)
    x = np.vstack([g.normal(size=(9, 2)), g.normal(1.0, size=(7, 2)), g.normal(size=(11, 2))])
    sizes = [9, 7, 11]
    rows = ",".join(repr(float(v)) for v in x.ravel())
    code = (
        f"library(energy); x <- matrix(c({rows}), ncol=2, byrow=TRUE); "
        f"g <- factor(rep(1:3, c({','.join(map(str, sizes))}))); "
        "d <- disco(x, factors=g, distance=FALSE, index=1, R=0); "
        "cat(sprintf('%.17g %.17g %.17g', d$between, d$within, d$total))"
    )
    out = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, check=True)
    between, within, total = map(float, out.stdout.split())
    d = energy_dispersion(x[:9], x[9:16], x[16:])
    assert (d.between, d.within, d.total) == (
        pytest.approx(between, rel=1e-12),
        pytest.approx(within, rel=1e-12),
        pytest.approx(total, rel=1e-12),
    )


@pytest.mark.parametrize(
    "table",
    [[[20, 10, 5, 1], [5, 10, 15, 12]], [[3, 0, 2], [1, 4, 0], [2, 2, 6]], [[9, 1], [2, 8]]],
)
def test_cramers_v_equals_scipy_and_bergsma(table):
    t = np.array(table)
    v, vc = cramers_v(t)
    assert v == pytest.approx(stats.contingency.association(t, method="cramer"), rel=1e-12)
    # Bergsma (2013), in exact arithmetic from X²
    n = Fraction(int(t.sum()))
    x2 = Fraction(stats.chi2_contingency(t, correction=False).statistic)
    r, c = t.shape
    phi2 = max(Fraction(0), x2 / n - Fraction((r - 1) * (c - 1)) / (n - 1))
    rt, ct = r - Fraction((r - 1) ** 2) / (n - 1), c - Fraction((c - 1) ** 2) / (n - 1)
    assert vc == pytest.approx(float(phi2 / (min(rt, ct) - 1)) ** 0.5, rel=1e-9)
    assert chi2_test(t).effect == v and chi2_test(t).effect_corrected == vc


def test_cramers_v_bounds():
    assert cramers_v([[10, 0], [0, 10]])[0] == pytest.approx(1.0)
    assert cramers_v([[5, 5], [5, 5]]) == (0.0, 0.0)
    assert all(np.isnan(cramers_v([[5, 5]])))


@pytest.mark.parametrize(
    ("expected", "fails"),
    [
        ([[5, 5], [5, 5]], False),  # 5 is not below 5
        ([[4.99, 5], [5, 5], [5, 5], [5, 5], [5, 5]], False),  # 1 of 10 cells: 10 %
        ([[4.99, 5], [5, 5], [4.99, 5], [5, 5], [5, 5]], False),  # exactly 20 %: passes
        ([[4.99, 5], [5, 4.99], [4.99, 5], [5, 5], [5, 5]], True),  # 30 %
        ([[1, 50], [50, 50], [50, 50], [50, 50], [50, 50]], False),  # 1 is not below 1
        ([[0.99, 50], [50, 50], [50, 50], [50, 50], [50, 50]], True),  # any below 1
    ],
)
def test_cochran_rule_at_its_edges(expected, fails):
    assert fails_cochran(np.array(expected)) is fails


def test_effects_in_the_tests_table():
    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    res = compare_groups(pts, "expert", n_perm=99, rng=0, design="independent", chi2_n_perm=0)
    energy = res[res.test == "energy"].iloc[0]
    samples = [g[["delta", "r"]].to_numpy() for _, g in pts.groupby("expert")]
    assert energy.effect == pytest.approx(energy_dispersion(*samples).share, rel=1e-10)
    assert np.isnan(energy.effect_corrected)
    chi = res[res.test == "chi2"].iloc[0]
    tab = rrmap.stats.contingency_table(pts.expert, pts.quality)
    assert chi.effect == pytest.approx(cramers_v(tab)[0], rel=1e-12)
    assert chi.effect_corrected == pytest.approx(cramers_v(tab)[1], rel=1e-12)
