"""Bootstrap interval methods (ci=percentile|basic|bca|wald) against scipy.stats.bootstrap."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats

from rrmap.cli import main
from rrmap.errors import InputError
from rrmap.rank import fit_bradley_terry
from rrmap.rank.models._fit import Options, jackknife_group
from rrmap.rank.models._outcomes import encode, prepare
from rrmap.rank.models.intervals import acceleration, bootstrap_interval

SCIPY_METHOD = {"percentile": "percentile", "basic": "basic", "bca": "BCa"}


def _logit_half(x, axis=-1):
    """Bradley–Terry score of A (scores sum to zero) from A's 0/1 wins against B.

    Rounded to 1e-11: resamples with A's share of wins in the data have the data's
    score, and scipy should see them as ties as the fit does (not as rounding errors).
    """
    p = np.mean(x, axis=axis)
    return np.round(0.5 * np.log(p / (1 - p)), 11)


def _scipy_interval(data, statistic, draws, method, level=0.95):
    """scipy's interval from a given bootstrap distribution (no new resamples)."""
    prior = stats._resampling.BootstrapResult(None, np.asarray(draws), None)
    res = stats.bootstrap((data,), statistic, n_resamples=0, bootstrap_result=prior,
                          method=SCIPY_METHOD[method], confidence_level=level)  # fmt: skip
    return res.confidence_interval


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_interval_formulas_equal_scipy_on_its_own_draws(method):
    rng = np.random.default_rng(3)
    x = rng.exponential(size=40)
    res = stats.bootstrap((x,), np.mean, n_resamples=999, method=SCIPY_METHOD[method], rng=rng)
    jack = np.array([[np.delete(x, i).mean()] for i in range(len(x))])
    low, high = bootstrap_interval(np.array([x.mean()]), res.bootstrap_distribution[:, None],
                                   0.95, method, jackknife=jack)  # fmt: skip
    assert low[0] == pytest.approx(res.confidence_interval.low, rel=1e-12)
    assert high[0] == pytest.approx(res.confidence_interval.high, rel=1e-12)


def test_weighted_acceleration_equals_one_row_per_unit():
    jack = np.array([[1.0, 2.0], [1.0, 2.0], [4.0, 0.5], [2.0, 2.0], [2.0, 2.0], [2.0, 2.0]])
    folded = acceleration(np.array([[1.0, 2.0], [4.0, 0.5], [2.0, 2.0]]), np.array([2, 1, 3]))
    np.testing.assert_allclose(folded, acceleration(jack), rtol=1e-12)
    assert acceleration(np.ones((5, 1)))[0] == 0.0  # equal values: no acceleration


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_two_candidate_fit_equals_scipy_bootstrap_of_the_log_odds(method):
    # with two candidates the Bradley-Terry score is 0.5 log(wins/losses): scipy's
    # interval of that statistic over the same resamples, with its own jackknife over
    # comparisons, is the fit's interval
    wins, losses = 23, 9
    df = pd.DataFrame({"instance": "i", "left": "A", "right": "B",
                       "winner": ["left"] * wins + ["right"] * losses})  # fmt: skip
    fit = fit_bradley_terry(df, bootstrap=400, rng=7, ci=method)
    draws = fit.draws.query("candidate == 'A'")["score"].to_numpy()
    x = np.r_[np.ones(wins), np.zeros(losses)]
    ref = _scipy_interval(x, _logit_half, np.round(draws, 11), method)
    row = fit.table.set_index("candidate").loc["A"]
    assert row["score"] == pytest.approx(_logit_half(x), abs=1e-9)
    assert row["boot_low"] == pytest.approx(ref.low, abs=1e-9)
    assert row["boot_high"] == pytest.approx(ref.high, abs=1e-9)
    assert fit.fits["ci"].iloc[0] == method


def _simulate(seed, k=4, n=40, n_instances=8):
    rng = np.random.default_rng(seed)
    theta = np.linspace(1.0, -1.0, k)
    left = rng.integers(0, k, n)
    right = (left + rng.integers(1, k, n)) % k
    p = 1 / (1 + np.exp(-(theta[left] - theta[right])))
    u = rng.random(n)
    winner = np.where(u < 0.1, "tie", np.where(rng.random(n) < p, "left", "right"))
    names = np.array([f"m{i}" for i in range(k)])
    return pd.DataFrame({"instance": [f"i{j}" for j in rng.integers(0, n_instances, n)],
                         "left": names[left], "right": names[right], "winner": winner})  # fmt: skip


def _loo_acceleration(df, unit_of_rows, model="bradley-terry", position=False):
    """Acceleration from refitting the data with each unit's rows left out (no folding:
    one row of scores per unit, unweighted). Leaving out the same comparisons leaves the
    same data, so each distinct set left out is fitted once (a fit does not depend on the
    order of its rows: test_rank_bradley_terry)."""
    rows, fitted = [], {}
    for unit in pd.unique(unit_of_rows):
        out = unit_of_rows == unit
        left_out = tuple(sorted(map(tuple, df.loc[out, ["left", "right", "winner"]].values)))
        if left_out not in fitted:
            fit = fit_bradley_terry(df[~out], model=model, position_effect=position)
            fitted[left_out] = fit.table.sort_values("candidate")["score"].to_numpy()
        rows.append(fitted[left_out])
    return acceleration(np.array(rows))


@pytest.mark.parametrize(("model", "position"),
                         [("bradley-terry", False), ("davidson", False), ("bradley-terry", True)])  # fmt: skip
def test_jackknife_over_comparison_types_equals_leaving_out_each_comparison(model, position):
    df = _simulate(1, n=60)
    ties = "half" if model == "bradley-terry" else "model"
    opts = Options(model, ties, None, 0.1, 10, "comparison", (1,), 0.95, position, "bca")
    out = encode(prepare(df, None, ties))
    jack, mult = jackknife_group(out, None, opts)
    assert mult.sum() == len(df) and len(mult) < len(df)  # identical comparisons folded
    expected = _loo_acceleration(df, np.arange(len(df)), model, position)
    np.testing.assert_allclose(acceleration(jack, mult), expected, atol=1e-8)


def test_jackknife_over_instances_equals_leaving_out_each_instance():
    df = _simulate(2, n=80)
    opts = Options("bradley-terry", "half", None, 0.1, 10, "instance", (1,), 0.95, ci="bca")
    out = encode(prepare(df, None, "half"))
    jack, mult = jackknife_group(out, df["instance"].to_numpy(str), opts)
    assert (mult == 1).all() and len(jack) == df["instance"].nunique()
    expected = _loo_acceleration(df, df["instance"].to_numpy())
    np.testing.assert_allclose(acceleration(jack, mult), expected, atol=1e-8)


def test_basic_is_the_percentile_interval_reflected_and_wald_is_ci():
    df = _simulate(4, n=200)
    fits = {ci: fit_bradley_terry(df, bootstrap=200, rng=3, ci=ci).table
            for ci in ("percentile", "basic", "wald")}  # fmt: skip
    p, b, w = fits["percentile"], fits["basic"], fits["wald"]
    np.testing.assert_allclose(b["boot_low"], 2 * p["score"] - p["boot_high"], atol=1e-12)
    np.testing.assert_allclose(b["boot_high"], 2 * p["score"] - p["boot_low"], atol=1e-12)
    np.testing.assert_allclose(w["boot_low"], w["ci_low"])
    np.testing.assert_allclose(w["boot_high"], w["ci_high"])
    # wald keeps the bootstrap's percentile rank intervals and top-1 shares
    np.testing.assert_array_equal(w["rank_low"], p["rank_low"])
    np.testing.assert_allclose(w["p_top1"], p["p_top1"])
    k = len(b)
    assert b["rank_low"].between(1, k).all() and b["rank_high"].between(1, k).all()
    assert (b["rank_low"] <= b["rank_high"]).all()


def test_bca_rank_interval_hand_computed():
    # estimate rank 2; draws: rank 1 ×3, 2 ×5, 3 ×2 of 10 → z0 = Φ⁻¹((3 + 8)/20)
    est = np.array([2.0])
    draws = np.array([[1.0]] * 3 + [[2.0]] * 5 + [[3.0]] * 2)
    jack = np.array([[2.0], [2.0], [2.0], [3.0]])
    z0 = stats.norm.ppf(11 / 20)
    a = acceleration(jack)[0]
    z = stats.norm.ppf(0.1)
    q = [stats.norm.cdf(z0 + (z0 + zq) / (1 - a * (z0 + zq))) for zq in (z, -z)]
    expect = [np.quantile(draws[:, 0], qi, method="inverted_cdf") for qi in q]
    got = bootstrap_interval(est, draws, 0.8, "bca", jackknife=jack, discrete=True)
    assert [float(g[0]) for g in got] == expect


def test_ci_checks():
    df = _simulate(5)
    with pytest.raises(InputError, match="ci must be one of"):
        fit_bradley_terry(df, ci="student")
    with pytest.raises(InputError, match="jackknife"):
        bootstrap_interval(np.zeros(1), np.zeros((5, 1)), 0.9, "bca")
    assert fit_bradley_terry(df).fits["ci"].iloc[0] == "wald"  # no bootstrap: Wald intervals


def test_cli_ci(tmp_path):
    path = tmp_path / "c.csv"
    _simulate(6, n=120).to_csv(path, index=False)
    runner = CliRunner()
    res = runner.invoke(main, ["rank", "fit", str(path), "--bootstrap", "50", "--ci", "bca",
                               "-q"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "bca" in res.stdout.splitlines()[1]
    res = runner.invoke(main, ["rank", "fit", str(path), "--model", "elo", "--bootstrap", "5",
                               "--ci", "bca", "-q"])  # fmt: skip
    assert res.exit_code != 0 and "likelihood model" in res.output
