"""Reliability on log R and on ordered zones, BCa intervals and undefined values, each
against an independent reference (the krippendorff package, scipy.stats.bootstrap)."""

from __future__ import annotations

from types import SimpleNamespace

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rrmap
from rrmap._util.streams import Streams
from rrmap.bootstrap import bootstrap_interval, resample_weights, studentized_interval
from rrmap.interrater import _nominal, _wide

RATERS = ["E1", "E2", "E3"]


@pytest.fixture(scope="module")
def pts():
    return rrmap.points(rrmap.datasets.load_example_ratings())


@pytest.fixture(scope="module")
def rel(pts):
    out = rrmap.reliability(pts, n_boot=400, rng=0)
    return out.set_index(["measure", "variable", "raters"])


def test_alpha_on_log_r_equals_the_package(pts, rel):
    _, _, r = _wide(pts, RATERS)
    ref = krippendorff.alpha(reliability_data=np.log(r).T, level_of_measurement="interval")
    row = rel.loc[("krippendorff_alpha", "log_r", "E1|E2|E3")]
    assert row.value == pytest.approx(ref, rel=1e-10) and row.metric == "interval"
    pair = krippendorff.alpha(reliability_data=np.log(r[:, 1:]).T, level_of_measurement="interval")
    assert rel.loc[("krippendorff_alpha", "log_r", "E2|E3"), "value"] == pytest.approx(
        pair, rel=1e-10
    )


def test_log_r_weighs_a_halving_as_a_doubling():
    """R = 1/2 and R = 2 disagree with R = 1 alike on log R, not on R."""
    rows = [
        {"expert": e, "item": str(k), "delta": d, "r": r, "quality": "fair"}
        for k, (d, pair) in enumerate([(0.0, (1.0, 2.0)), (1.0, (1.0, 0.5)), (2.0, (1.0, 1.0))])
        for e, r in zip(("A", "B"), pair, strict=True)
    ]
    pts = pd.DataFrame(rows)
    pts.attrs["rrmap"] = {"keys": ["expert", "item"]}
    out = rrmap.reliability(pts, n_boot=0).set_index(["measure", "variable"])
    log_r = np.log([[1.0, 2.0], [1.0, 0.5], [1.0, 1.0]])
    ref = krippendorff.alpha(reliability_data=log_r.T, level_of_measurement="interval")
    assert out.loc[("krippendorff_alpha", "log_r"), "value"] == pytest.approx(ref, rel=1e-12)
    swapped = log_r[[1, 0, 2]]  # the halving and the doubling exchanged: α on log R is the same
    assert krippendorff.alpha(reliability_data=swapped.T, level_of_measurement="interval") == (
        pytest.approx(ref, rel=1e-12)
    )


def test_ordinal_alpha_equals_the_package(pts, rel):
    zone, _, _ = _wide(pts, RATERS)
    data = np.where(zone >= 0, zone, np.nan).astype(float).T
    for cols, name in (([0, 1, 2], "E1|E2|E3"), ([0, 2], "E1|E3")):
        ref = krippendorff.alpha(
            reliability_data=data[cols], level_of_measurement="ordinal", value_domain=[0, 1, 2, 3]
        )
        row = rel.loc[("krippendorff_alpha_ordinal", "zone", name)]
        assert row.value == pytest.approx(ref, rel=1e-12) and row.metric == "ordinal"


def test_ordinal_alpha_with_missing_keys_equals_the_package(pts):
    sub = pts.drop(index=pts.index[(pts.expert == "E3") & (pts.movement == "cubism")][:5])
    out = rrmap.reliability(sub, n_boot=0).set_index(["measure", "variable", "raters"])
    zone, _, _ = _wide(sub, RATERS)
    data = np.where(zone >= 0, zone, np.nan).astype(float).T
    ref = krippendorff.alpha(
        reliability_data=data, level_of_measurement="ordinal", value_domain=[0, 1, 2, 3]
    )
    assert out.loc[("krippendorff_alpha_ordinal", "zone", "E1|E2|E3"), "value"] == (
        pytest.approx(ref, rel=1e-12)
    )


def test_bca_interval_equals_scipy(pts, rel):
    """The same resamples given to scipy.stats.bootstrap (its BCa computes the jackknife
    itself, from the units): the same interval."""
    zone, _, _ = _wide(pts, RATERS)
    n = len(zone)
    gen = Streams(0).generator("reliability")  # the stream reliability draws from
    w = np.vstack([np.ones(n), resample_weights(n, 400, gen)]).astype(float)
    values = _nominal(zone)(w)[0]

    def alpha(units, axis=-1):
        weights = np.apply_along_axis(np.bincount, -1, units, minlength=n).astype(float)
        return _nominal(zone)(np.atleast_2d(weights))[0].reshape(units.shape[:-1])

    prev = SimpleNamespace(bootstrap_distribution=values[1:])
    ref = stats.bootstrap((np.arange(n),), alpha, n_resamples=0, bootstrap_result=prev,
                          method="BCa").confidence_interval  # fmt: skip
    row = rel.loc[("krippendorff_alpha", "zone", "E1|E2|E3")]
    assert row.ci_method == "bca" and row.ci_undefined == 0
    assert row.ci_low == pytest.approx(ref.low, rel=1e-12)
    assert row.ci_high == pytest.approx(ref.high, rel=1e-12)
    assert row.value == pytest.approx(values[0], rel=1e-14)


def test_bca_of_two_samples_equals_scipy():
    """Stratified resamples (independent samples each resampled on its own): scipy's
    acceleration of several samples."""
    g = np.random.default_rng(5)
    x, y = g.exponential(size=14), g.normal(size=9)
    n = len(x) + len(y)
    strata = np.repeat([0, 1], [len(x), len(y)])
    w = resample_weights(n, 999, g, strata=strata).astype(float)
    values = np.concatenate([[x.mean() - y.mean()], w[:, :14] @ x / 14 - w[:, 14:] @ y / 9])
    jack = np.concatenate([(x.sum() - x) / 13 - y.mean(), x.mean() - (y.sum() - y) / 8])
    iv = bootstrap_interval(values[0], values[1:], jack, strata=strata)
    prev = SimpleNamespace(bootstrap_distribution=values[1:])

    def diff(a, b, axis=-1):
        return a.mean(axis=axis) - b.mean(axis=axis)

    ref = stats.bootstrap((x, y), diff, n_resamples=0, bootstrap_result=prev, method="BCa")
    assert iv.low == pytest.approx(ref.confidence_interval.low, rel=1e-12)
    assert iv.high == pytest.approx(ref.confidence_interval.high, rel=1e-12)


def test_a_resample_equal_to_the_estimate_up_to_rounding_ties_with_it():
    # 3 of 8 draws below, one equal in exact arithmetic: the bias share is 3.5 / 8 whether
    # rounding put that draw a little above, a little below, or on the estimate
    from statistics import NormalDist

    est = 0.1 + 0.2  # 0.30000000000000004
    base = np.array([0.1, 0.2, 0.25, 0.4, 0.5, 0.6, 0.7])
    jack = np.array([0.2, 0.3, 0.35, 0.25])
    got = [
        bootstrap_interval(est, np.append(base, tied), jack)
        for tied in (0.3, est, np.nextafter(est, 1.0))
    ]
    assert got[0] == got[1] == got[2]
    nd = NormalDist()
    z0 = nd.inv_cdf(3.5 / 8)
    u = jack.mean() - jack
    a = (u**3).sum() / (6 * (u**2).sum() ** 1.5)
    lo = nd.cdf(z0 + (z0 + nd.inv_cdf(0.025)) / (1 - a * (z0 + nd.inv_cdf(0.025))))
    assert got[0].low == pytest.approx(np.quantile(np.append(base, 0.3), lo), rel=1e-12)
    # a draw 1e-9 away is no tie: 3 of 8 below, or 4
    assert bootstrap_interval(est, np.append(base, est - 1e-9), jack) != got[0]


def test_percentile_on_request_is_the_quantiles_of_the_resamples(pts):
    out = rrmap.reliability(pts, n_boot=300, rng=2, ci="percentile")
    zone, _, _ = _wide(pts, RATERS)
    n = len(zone)
    w = resample_weights(n, 300, Streams(2).generator("reliability")).astype(float)
    draws = _nominal(zone)(w)[0]
    row = out.iloc[0]
    assert (row.measure, row.variable, row.ci_method) == (
        "krippendorff_alpha",
        "zone",
        "percentile",
    )
    assert [row.ci_low, row.ci_high] == pytest.approx(np.quantile(draws, [0.025, 0.975]), rel=1e-12)


def test_undefined_values_carry_a_reason():
    """Raters who agree perfectly on identical points: nothing varies, α and κ are undefined
    (0/0), and the note says why instead of a blank that reads like missing data."""
    rows = [
        {"expert": e, "item": str(k), "delta": 0.5, "r": 1.0, "quality": "fair"}
        for e in ("A", "B", "C")
        for k in range(6)
    ]
    pts = pd.DataFrame(rows)
    pts.attrs["rrmap"] = {"keys": ["expert", "item"]}
    out = rrmap.reliability(pts, n_boot=50, rng=0)
    assert out.value.isna().all()
    notes = out.set_index(["measure", "variable", "raters"]).note
    assert (
        notes[("krippendorff_alpha", "zone", "A|B|C")] == "no variation: every rating in one zone"
    )
    assert notes[("fleiss_kappa", "zone", "A|B|C")] == "no variation: every rating in one zone"
    assert (
        notes[("krippendorff_alpha", "delta", "A|B")] == "no variation: every rating has the same Δ"
    )
    assert notes[("krippendorff_alpha", "log_r", "A|C")] == (
        "no variation: every rating has the same log R"
    )
    assert (out.note != "").all()


def test_undefined_resamples_are_counted():
    """One key alone varies: every resample that misses it has no variation (undefined), is
    left out of the interval and counted."""
    zones = ["fair"] * 8
    rows = [
        {"expert": e, "item": str(k), "delta": 0.0, "r": 1.0,
         "quality": ("bad" if (k == 0 and e == "B") else zones[k])}
        for e in ("A", "B")
        for k in range(8)
    ]  # fmt: skip
    pts = pd.DataFrame(rows)
    pts.attrs["rrmap"] = {"keys": ["expert", "item"]}
    out = rrmap.reliability(pts, n_boot=200, rng=1).set_index(["measure", "variable"])
    row = out.loc[("krippendorff_alpha", "zone")]
    w = resample_weights(8, 200, Streams(1).generator("reliability"))
    assert row.ci_undefined == int((w[:, 0] == 0).sum()) > 0
    # leaving that key out leaves nothing to vary either: BCa's acceleration is undefined,
    # the percentile interval is given and the note says why
    assert row.ci_method == "percentile"
    assert row.note == "BCa undefined (a leave-one-out value is undefined): percentile interval"


def test_studentized_interval_is_the_bootstrap_t_of_the_package_alpha():
    """The bootstrap-t from its definition: the krippendorff package's α on each explicitly
    resampled data set, its jackknife standard error leaving out one drawn key at a time."""
    g = np.random.default_rng(4)
    n = 8
    delta = g.normal(0, 1, (n, 1)) + g.normal(0, 0.7, (n, 3))
    rows = [
        {"expert": e, "item": f"k{k}", "delta": delta[k, i], "r": 1.0, "quality": "fair"}
        for k in range(n)
        for i, e in enumerate(RATERS)
    ]
    out = rrmap.reliability(pd.DataFrame(rows), n_boot=40, rng=3, ci="studentized", pairs=False)
    row = out[(out.measure == "krippendorff_alpha") & (out.variable == "delta")].iloc[0]

    def alpha(keys):
        return krippendorff.alpha(reliability_data=delta[keys].T, level_of_measurement="interval")

    def jack_se(keys):
        jack = np.array([alpha(np.delete(keys, i)) for i in range(len(keys))])
        return np.sqrt((len(keys) - 1) / len(keys) * ((jack - jack.mean()) ** 2).sum())

    keys = np.arange(n)
    w = resample_weights(n, 40, Streams(3).generator("reliability"))
    t = []
    for counts in w:
        drawn = np.repeat(keys, counts)
        t.append((alpha(drawn) - alpha(keys)) / jack_se(drawn))
    q = np.quantile(np.abs(t), 0.95)  # symmetric (Hall 1988): the quantile of |t|
    se = jack_se(keys)
    assert row.value == pytest.approx(alpha(keys), rel=1e-10)
    assert row.ci_method == "studentized"
    assert row.ci_low == pytest.approx(alpha(keys) - q * se, rel=1e-9)
    assert row.ci_high == pytest.approx(alpha(keys) + q * se, rel=1e-9)
    # the equal-tailed interval from the same draws, on request
    values = [alpha(np.repeat(keys, counts)) for counts in w]
    draw_se = [jack_se(np.repeat(keys, counts)) for counts in w]
    tails = studentized_interval(alpha(keys), se, values, draw_se, symmetric=False)
    lo, hi = np.quantile(t, [0.025, 0.975])
    assert [tails.low, tails.high] == pytest.approx(
        [alpha(keys) - hi * se, alpha(keys) - lo * se], rel=1e-9
    )
