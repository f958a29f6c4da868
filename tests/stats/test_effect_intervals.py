"""Effect sizes that respect the design (the within-key share of a matched test) and their
bootstrap intervals over keys, each checked against a reference written from the
definitions: statsmodels' two-way ANOVA, DISCO by hand on the key-centred points, the
resampled data set built out explicitly, and the BCa formula of Efron (1987)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from scipy.special import ndtr, ndtri
from statsmodels.stats.anova import anova_lm
from statsmodels.stats.contingency_tables import mcnemar

import rrmap
from rrmap.bootstrap import resample_weights
from rrmap.stats import Settings, energy_dispersion
from rrmap.stats.designs import run_designs
from rrmap.stats.effects import cramers_v_effect, dispersion_effect, remove_keys
from rrmap.stats.matched import stuart_maxwell_test


def _matched(seed: int, keys: int = 12, k: int = 3, shift: float = 0.4):
    """Points of k groups on the same keys (keys far apart, a shift of group 1)."""
    g = np.random.default_rng(seed)
    key = np.tile(np.arange(keys), k)
    group = np.repeat(np.arange(k), keys)
    x = g.normal(0, 3, (keys, 2))[key] + g.normal(0, 1, (keys * k, 2))
    x[group == 1, 0] += shift
    return x, group, key


def _share(x: np.ndarray, group: np.ndarray, unit: np.ndarray, exponent: int = 1) -> float:
    """1 − within / total dispersion of explicit points, with plain loops over the pairs: a
    pair of points counts unless they are distinct copies of one unit (``unit`` holds
    (unit, copy) pairs)."""

    def disp(rows):
        total, pairs = 0.0, 0
        for i in rows:
            for j in rows:
                if unit[i][0] == unit[j][0] and unit[i][1] != unit[j][1]:
                    continue
                d = float(np.sqrt(((x[i] - x[j]) ** 2).sum()))
                total, pairs = total + d**exponent, pairs + 1
        return len(rows) / 2 * total / pairs

    rows = np.arange(len(x))
    within = sum(disp(rows[group == g]) for g in np.unique(group))
    return 1 - within / disp(rows)


def test_within_key_share_of_squares_is_the_partial_eta_squared_of_the_anova():
    x, group, key = _matched(0)
    df = pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "g": group, "key": key})
    ss_group = ss_resid = 0.0
    for col in ("a", "b"):
        table = anova_lm(smf.ols(f"{col} ~ C(g) + C(key)", df).fit(), typ=2)
        ss_group += table.loc["C(g)", "sum_sq"]
        ss_resid += table.loc["Residual", "sum_sq"]
    res = dispersion_effect(x, group, 3, key, exponent=2)
    assert res.estimate == pytest.approx(ss_group / (ss_group + ss_resid), rel=1e-10)


def test_within_key_energy_share_is_disco_of_the_key_centred_points():
    x, group, key = _matched(1)
    centred = x - pd.DataFrame(x).groupby(key).transform("mean").to_numpy()
    ref = energy_dispersion(*[centred[group == g] for g in range(3)]).share
    pooled = energy_dispersion(*[x[group == g] for g in range(3)]).share
    res = dispersion_effect(x, group, 3, key)
    assert res.estimate == pytest.approx(ref, rel=1e-10)
    assert res.estimate > 2 * pooled  # the spread of the keys no longer dilutes the shift


def test_incomplete_design_removes_the_least_squares_key_effects():
    x, group, key = _matched(2, keys=10)
    drop = np.array([0, 13, 27, 5])  # keys 0, 3, 7, 5 lose a group; key 9 keeps one only
    keep = np.setdiff1d(np.arange(len(x)), np.r_[drop, [9 + 10, 9 + 20]])
    x, group, key = x[keep], group[keep], key[keep]
    adj, kept = remove_keys(x, group, key, 3)
    assert not kept[key == 9].any() and kept[key != 9].all()
    df = pd.DataFrame({"a": x[kept, 0], "g": group[kept], "key": key[kept]})
    fit = smf.ols("a ~ C(g) + C(key)", df).fit()
    key_effect = np.array([fit.params.get(f"C(key)[T.{k}]", 0.0) for k in df["key"]])
    ref = df["a"].to_numpy() - key_effect  # defined up to a constant, as distances are
    np.testing.assert_allclose(adj[:, 0] - adj[0, 0], ref - ref[0], atol=1e-10)


def test_stuart_maxwell_effect_is_mcnemar_over_keys():
    table = np.array([[30, 9], [2, 19]])
    res = stuart_maxwell_test(table, method="asymptotic")
    x2 = mcnemar(table, exact=False, correction=False).statistic
    assert res.effect == pytest.approx(x2 / table.sum(), rel=1e-12)
    z = np.repeat([[0, 0], [0, 1], [1, 0], [1, 1]], table.ravel(), axis=0)  # keys × raters
    key, rater = np.nonzero(np.ones_like(z))
    indicators = np.eye(2)[z[key, rater]]
    share = dispersion_effect(indicators, rater, 2, key, exponent=2).estimate
    assert share == pytest.approx(res.effect, rel=1e-12)


@pytest.mark.parametrize("ci", ["bca", "percentile"])
def test_interval_over_keys_is_the_bootstrap_of_the_explicit_resamples(ci):
    x, group, key = _matched(3, keys=8, k=2, shift=0.8)
    res = dispersion_effect(x, group, 2, key, n_boot=60, rng=np.random.default_rng(5), ci=ci)
    centred = x - pd.DataFrame(x).groupby(key).transform("mean").to_numpy()
    w = resample_weights(8, 60, np.random.default_rng(5))
    draws = []
    for row in w:  # the resampled data set, built out key by key
        units = [(u, c) for u in range(8) for c in range(row[u])]
        idx = [np.flatnonzero(key == u) for u, _ in units]
        unit = [(u, c) for (u, c), i in zip(units, idx, strict=True) for _ in i]
        rows = np.concatenate(idx)
        draws.append(_share(centred[rows], group[rows], unit))
    draws = np.array(draws)
    estimate = _share(centred, group, [(u, 0) for u in key])
    assert res.estimate == pytest.approx(estimate, rel=1e-10)
    levels = [0.025, 0.975]
    if ci == "bca":  # Efron (1987): bias from the resamples, acceleration from the jackknife
        jack = np.array([
            _share(centred[key != u], group[key != u], [(v, 0) for v in key[key != u]])
            for u in range(8)
        ])  # fmt: skip
        tol = 1e-12 * max(1.0, abs(estimate))  # rounding apart, a resample may be the data
        below, reach = (draws < estimate - tol).sum(), (draws <= estimate + tol).sum()
        z0 = ndtri((below + reach) / (2 * len(draws)))
        u = jack.mean() - jack
        a = (u**3).sum() / (6 * ((u**2).sum()) ** 1.5)
        z = z0 + ndtri(np.array(levels))
        levels = ndtr(z0 + z / (1 - a * z))
    low, high = np.quantile(draws, levels)
    assert (res.low, res.high) == (pytest.approx(low, rel=1e-9), pytest.approx(high, rel=1e-9))
    assert res.method == ci and res.undefined == 0


def test_undefined_resamples_are_counted():
    # one group of three points, two of one zone: resamples without the odd one have one
    # zone only (V undefined)
    groups, zones = np.repeat([0, 1], [3, 4]), np.array([0, 0, 1, 1, 1, 1, 1])
    res = cramers_v_effect(groups, zones, 2, 2, n_boot=400, rng=np.random.default_rng(0))
    assert 0 < res.undefined < 400
    assert res.low <= res.high


@pytest.fixture(scope="module")
def run():
    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    return run_designs(pts, by=["modality"], settings=Settings(n_perm=99, seed=0, n_boot=300))


def test_every_effect_of_a_run_has_an_interval_and_energy_ones_hold_the_estimate(run):
    assert run["effect"].notna().all()
    assert run[["effect_low", "effect_high"]].notna().all().all()
    assert (run["effect_low"] <= run["effect_high"]).all()
    assert run["effect_undefined"].dtype == "Int64" and (run["effect_undefined"] >= 0).all()
    energy = run[run["test"] == "energy"]
    assert (
        (energy["effect_low"] <= energy["effect"]) & (energy["effect"] <= energy["effect_high"])
    ).all()


def test_the_pooled_share_is_kept_beside_the_within_key_one(run):
    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    row = run[(run["test"] == "energy") & (run["within"] == "all")].iloc[0]
    assert row["design"] == "matched" and row["groups"] == "E1|E2|E3"
    samples = [pts.loc[pts["expert"] == e, ["delta", "r"]].to_numpy() for e in ("E1", "E2", "E3")]
    assert row["effect_pooled"] == pytest.approx(energy_dispersion(*samples).share, rel=1e-10)
    independent = run[run["design"] == "independent"]
    energy = independent[independent["test"] == "energy"]
    np.testing.assert_array_equal(energy["effect"], energy["effect_pooled"])
    chi2 = independent[independent["test"] == "chi2"]
    np.testing.assert_array_equal(chi2["effect"], chi2["effect_pooled"])


def test_acceleration_of_one_stratum_is_that_of_the_values_and_nothing_is_zero():
    from rrmap.bootstrap import acceleration

    jack = np.array([0.3, 0.1, 0.7, 0.2, 0.9])
    u = (len(jack) - 1) * (jack.mean() - jack)  # Efron & Tibshirani (1993), eq. 14.15
    want = (u**3).sum() / (6.0 * ((u**2).sum()) ** 1.5)
    assert acceleration(jack) == pytest.approx(want, rel=1e-12)
    assert acceleration(jack, np.zeros(5, dtype=int)) == acceleration(jack)
    assert acceleration(np.array([])) == 0.0
