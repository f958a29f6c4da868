"""Bootstrap uncertainty of rankings: resampling, batched refits, intervals, ranks, top-k."""

from __future__ import annotations

import io
import itertools

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from properties import examples

from rrmap.cli import main
from rrmap.errors import InputError
from rrmap.rank import align_rankings, fit_bradley_terry, fit_elo
from rrmap.rank.data.comparisons import validate_comparisons
from rrmap.rank.models._bootstrap import overlap_rank, ranks, resample_counts, unit_types
from rrmap.rank.models._likelihood import newton
from rrmap.rank.models._outcomes import encode


def _simulate(seed, k=5, n=300, tie=0.15, n_instances=30):
    rng = np.random.default_rng(seed)
    theta = np.linspace(1.5, -1.5, k)
    left = rng.integers(0, k, n)
    right = (left + rng.integers(1, k, n)) % k
    p = 1 / (1 + np.exp(-(theta[left] - theta[right])))
    u = rng.random(n)
    winner = np.where(u < tie, "tie", np.where(rng.random(n) < p, "left", "right"))
    names = np.array([f"m{i}" for i in range(k)])
    return pd.DataFrame({"instance": [f"i{j}" for j in rng.integers(0, n_instances, n)],
                         "left": names[left], "right": names[right], "winner": winner})  # fmt: skip


def _materialise(out, pairs, counts):
    """A comparisons table holding exactly the given pair counts."""
    rows = []
    for p, (a, b) in enumerate(zip(pairs.a, pairs.b, strict=True)):
        for outcome, winner in enumerate(("left", "right", "tie")):
            rows += [(out.candidates[a], out.candidates[b], winner)] * int(counts[p, outcome])
    return pd.DataFrame(rows, columns=["left", "right", "winner"]).assign(instance="i")


@pytest.mark.parametrize("model", ["bradley-terry", "davidson", "rao-kupper"])
def test_batched_refits_equal_fits_of_the_materialised_resamples(model):
    df = _simulate(0)
    out = encode(validate_comparisons(df))
    pairs, cell = out.pairs()
    types, mult = unit_types(cell, out.weights(), None, 3 * len(pairs.a))
    counts = resample_counts(types, mult, 6, np.random.default_rng(5))
    assert (counts.sum(axis=(1, 2)) == len(df)).all()  # each resample has n comparisons
    ties = "half" if model == "bradley-terry" else "model"
    folded = counts.copy()
    if ties == "half":
        folded[..., :2] += folded[..., 2:] / 2
        folded[..., 2] = 0
    batch = newton(pairs, folded, model, np.zeros(6)).theta
    for b in range(6):
        one = fit_bradley_terry(_materialise(out, pairs, counts[b]), model=model, ties=ties)
        np.testing.assert_allclose(batch[b], _by_name(one.table)["score"], atol=1e-9)


def test_instance_resamples_are_sums_of_whole_instances():
    df = _simulate(1, n_instances=8)
    out = encode(validate_comparisons(df))
    pairs, cell = out.pairs()
    units = df["instance"].to_numpy(str)
    types, mult = unit_types(cell, out.weights(), units, 3 * len(pairs.a))
    counts = resample_counts(types, mult, 20, np.random.default_rng(3)).reshape(20, -1)
    per_instance = {u: np.bincount(cell[units == u], minlength=counts.shape[1])
                    for u in np.unique(units)}  # fmt: skip
    draws = np.random.default_rng(3).multinomial(8, np.full(8, 1 / 8), size=20)
    names = sorted(per_instance)
    expected = draws @ np.array([per_instance[u] for u in names])
    np.testing.assert_array_equal(counts, expected)


def test_summaries_equal_the_draws():
    df = _simulate(2)
    fit = fit_bradley_terry(df, bootstrap=200, rng=7, top_k=(1, 2), level=0.9)
    draws = fit.draws
    assert len(draws) == 200 * 5 and fit.fits["seed"].iloc[0] == 7
    for cand, g in draws.groupby("candidate"):
        row = fit.table.set_index("candidate").loc[cand]
        assert row["boot_low"] == pytest.approx(np.quantile(g["score"], 0.05))
        assert row["boot_high"] == pytest.approx(np.quantile(g["score"], 0.95))
        r = np.sort(g["rank"].to_numpy())
        assert row["rank_low"] == r[int(np.ceil(0.05 * 200)) - 1]  # inverted CDF
        assert row["rank_high"] == r[int(np.ceil(0.95 * 200)) - 1]
        assert row["p_top1"] == (g["rank"] == 1).mean()
        assert row["p_top2"] == (g["rank"] <= 2).mean()
    # each resample's ranks are the ranks of its scores
    wide = draws.pivot(index="resample", columns="candidate", values="score")
    ranked = draws.pivot(index="resample", columns="candidate", values="rank")
    np.testing.assert_array_equal(ranks(wide.to_numpy()), ranked.to_numpy())
    assert fit.table["p_top1"].sum() == pytest.approx(1.0)  # no exact ties in continuous scores


def test_seeded_and_reproducible():
    df = _simulate(3)
    a = fit_bradley_terry(df, model="davidson", bootstrap=50, rng=1)
    b = fit_bradley_terry(df, model="davidson", bootstrap=50, rng=1)
    c = fit_bradley_terry(df, model="davidson", bootstrap=50, rng=2)
    pd.testing.assert_frame_equal(a.table, b.table)
    assert not np.allclose(a.table["boot_low"], c.table["boot_low"])


def test_bootstrap_spread_matches_the_standard_errors():
    df = _simulate(4, k=4, n=4000, tie=0.0)
    fit = fit_bradley_terry(df, bootstrap=400, rng=0)
    sd = fit.draws.groupby("candidate")["score"].std().to_numpy()
    np.testing.assert_allclose(sd, fit.table["se"], rtol=0.12)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 4)), min_size=1, max_size=7))
def test_overlap_rank_by_enumeration(intervals):
    low = np.array([lo for lo, _ in intervals], dtype=float)
    high = low + np.array([w for _, w in intervals], dtype=float)
    got = overlap_rank(low, high)
    for i, j in itertools.product(range(len(low)), repeat=2):
        if low[j] > high[i]:  # j is surely better: i's rank is behind j's
            assert got[i] > got[j] or got[i] >= 2
    expected = [1 + sum(low[j] > high[i] for j in range(len(low))) for i in range(len(low))]
    assert got.tolist() == expected
    # touching intervals (low == high) overlap: they share a rank
    assert overlap_rank(np.array([0.0, 1.0]), np.array([1.0, 2.0])).tolist() == [1, 1]


def test_rank_ci_ties_overlapping_candidates():
    df = _simulate(5, k=6, n=200)
    fit = fit_bradley_terry(df, bootstrap=100, rng=0)
    t = fit.table
    np.testing.assert_array_equal(
        t["rank_ci"], overlap_rank(t["boot_low"].to_numpy(), t["boot_high"].to_numpy())
    )
    assert (t["rank_ci"] <= t["rank"]).all()
    wald = fit_bradley_terry(df).table
    np.testing.assert_array_equal(
        wald["rank_ci"], overlap_rank(wald["ci_low"].to_numpy(), wald["ci_high"].to_numpy())
    )


def test_resamples_without_mle_are_counted():
    # C wins once: many resamples lose that win and have no MLE
    df = pd.DataFrame({"instance": "i", "left": ["A", "B", "A", "C", "B", "A"],
                       "right": ["B", "A", "C", "B", "C", "B"],
                       "winner": ["left", "left", "left", "left", "left", "left"]})  # fmt: skip
    fit = fit_bradley_terry(df, bootstrap=100, rng=0)
    n = fit.fits["n_bootstrap_no_mle"].iloc[0]
    assert 0 < n < 100 and fit.fits["mle_exists"].iloc[0]
    assert fit.notes[0] == (
        f"bootstrap: {n} of 100 resamples had no maximum-likelihood "
        "estimate and were fitted with the fallback penalty"
    )
    assert np.isfinite(fit.draws["score"]).all()


def test_bad_bootstrap_options():
    df = _simulate(6)
    with pytest.raises(InputError, match="column 'annotator' \\(bootstrap_by\\) not in"):
        fit_bradley_terry(df, bootstrap=10, bootstrap_by="annotator")
    with pytest.raises(InputError, match="is the grouping column"):
        fit_bradley_terry(df, by="instance", bootstrap=10, bootstrap_by="instance")
    with pytest.raises(InputError, match="bootstrap must be an integer >= 0"):
        fit_bradley_terry(df, bootstrap=-1)
    with pytest.raises(InputError, match="level must be between 0 and 1"):
        fit_bradley_terry(df, level=1.0)
    with pytest.raises(InputError, match=r"top_k must be integers >= 1, got \(0,\)"):
        fit_bradley_terry(df, bootstrap=5, top_k=0)
    with pytest.raises(InputError, match="column 'w' \\(weights\\) not in the comparisons table"):
        fit_bradley_terry(df, weights="w")
    # Elo checks the same options with the same messages
    gap = df.assign(rater=["u1", None] + ["u2"] * (len(df) - 2))
    with pytest.raises(
        InputError, match=r"column 'rater' \(bootstrap_by\): missing value in 1 rows \(1\)"
    ):
        fit_elo(gap, bootstrap=5, bootstrap_by="rater")
    with pytest.raises(InputError, match="is the grouping column"):
        fit_elo(df, by="instance", bootstrap=5, bootstrap_by="instance")


def test_weights_equal_repeated_rows():
    df = _simulate(7, n=80)
    twice = pd.concat([df, df.iloc[:10]], ignore_index=True)
    weighted = df.assign(w=[2.0] * 10 + [1.0] * 70)
    a = fit_bradley_terry(weighted, weights="w", model="davidson")
    b = fit_bradley_terry(twice, model="davidson")
    np.testing.assert_allclose(a.table["score"], b.table["score"], atol=1e-10)
    np.testing.assert_allclose(a.table["se"], b.table["se"], atol=1e-10)
    zero = fit_bradley_terry(df.assign(w=[0.0] * 10 + [1.0] * 70), weights="w")
    rest = fit_bradley_terry(df.iloc[10:])
    np.testing.assert_allclose(zero.table["score"], rest.table["score"], atol=1e-10)
    with pytest.raises(InputError, match="not a finite number >= 0 in 1 rows \\(3\\)"):
        fit_bradley_terry(df.assign(w=[1.0] * 3 + [-1.0] + [1.0] * 76), weights="w")


def test_elo_bootstrap():
    df = _simulate(8, n=150)
    a = fit_elo(df, bootstrap=40, rng=3, n_shuffles=5)
    b = fit_elo(df, bootstrap=40, rng=3, n_shuffles=5)
    pd.testing.assert_frame_equal(a.table, b.table)
    assert {"boot_low", "boot_high", "rank_low", "rank_high", "p_top1"} <= set(a.table.columns)
    assert len(a.draws) == 40 * 5
    # every resample is zero-sum around the initial rating
    np.testing.assert_allclose(a.draws.groupby("resample")["score"].mean(), 1500.0)
    inst = fit_elo(df, bootstrap=40, bootstrap_by="instance", rng=3, n_shuffles=5)
    np.testing.assert_allclose(inst.draws.groupby("resample")["score"].mean(), 1500.0)
    assert inst.params["bootstrap_by"] == "instance"


def test_elo_padding_changes_no_rating():
    from rrmap.rank.models.elo import _run

    left, right, score = np.array([[0, 1, 2]]), np.array([[1, 2, 0]]), np.array([[1.0, 0.5, 0.0]])
    base = _run(left, right, score, 3, 32.0, 1500.0, 400.0)
    padded = _run(np.c_[left, 0, 0], np.c_[right, 0, 0], np.c_[score, 0.5, 0.5], 3, 32.0, 1500.0,
                  400.0)  # fmt: skip
    np.testing.assert_array_equal(base, padded)


def test_cli_bootstrap_davidson_and_align(tmp_path):
    df = _simulate(9, n=250)
    path = tmp_path / "prefs.csv"
    df.to_csv(path, index=False)
    runner = CliRunner()
    out_csv, out_json = tmp_path / "rank.csv", tmp_path / "rank.json"
    args = ["rank", "fit", str(path), "--model", "davidson", "--bootstrap", "60",
            "--bootstrap-by", "instance", "--top-k", "1", "--top-k", "3", "--seed", "4", "-q"]  # fmt: skip
    res = runner.invoke(main, [*args, "-o", str(out_csv)])
    assert res.exit_code == 0, res.output
    table = pd.read_csv(out_csv)
    ref = fit_bradley_terry(df, model="davidson", bootstrap=60, bootstrap_by="instance",
                            top_k=(1, 3), rng=4).table  # fmt: skip
    merged = table.merge(ref, on="candidate", suffixes=("", "_ref"))
    for col in ("score", "boot_low", "boot_high", "p_top1", "p_top3", "rank_ci"):
        np.testing.assert_allclose(merged[col], merged[f"{col}_ref"], rtol=1e-9)
    assert set(table["model"]) == {"davidson"} and set(table["tie_handling"]) == {"model"}
    assert set(table["seed"]) == {4} and set(table["bootstrap_by"]) == {"instance"}
    assert table["tie_parameter"].nunique() == 1 and table["tie_parameter"].iloc[0] > 0
    res = runner.invoke(main, [*args, "--format", "json", "-o", str(out_json)])
    assert res.exit_code == 0, res.output
    # rank align takes both outputs as rankings
    for model_file in (out_csv, out_json):
        res = runner.invoke(main, ["rank", "align", str(path), str(model_file), "--summary-only"])
        assert res.exit_code == 0, res.output
        summary = pd.read_csv(io.StringIO(res.stdout))
        direct = align_rankings(fit_bradley_terry(df).table, ref)
        assert summary["mean_rho"].iloc[0] == pytest.approx(direct.summary["mean_rho"].iloc[0])


def test_cli_tie_options_errors(tmp_path):
    path = tmp_path / "prefs.csv"
    _simulate(10).to_csv(path, index=False)
    runner = CliRunner()
    res = runner.invoke(main, ["rank", "fit", str(path), "--ties", "model"])
    assert res.exit_code == 1
    assert res.stderr.strip().splitlines()[-1] == (
        "Error: --ties model needs a tie model (--model davidson or rao-kupper); bt takes "
        "--ties half or drop"
    )
    res = runner.invoke(main, ["rank", "fit", str(path), "--bootstrap", "5", "--bootstrap-by",
                               "rater"])  # fmt: skip
    assert res.exit_code == 1
    assert "column 'rater' (bootstrap_by) not in the comparisons table" in res.stderr
    assert "Traceback" not in res.output


def test_bootstrap_by_one_unit_is_refused():
    """One instance once gave intervals of width 0 and p_top1 = 1 without a word."""
    df = _simulate(0, n_instances=1)
    with pytest.raises(InputError, match="only one instance: every resample is the data"):
        fit_bradley_terry(df, bootstrap=50, bootstrap_by="instance", rng=0)
    with pytest.raises(InputError, match="only one instance"):
        fit_elo(df, bootstrap=5, bootstrap_by="instance", rng=0, n_shuffles=1)
    # grouped: one group with a single annotator is enough to refuse
    other = _simulate(1, n_instances=1).assign(instance="i1")
    two = pd.concat([df.assign(annotator="u1"),
                     other.assign(annotator=np.where(np.arange(len(other)) % 2, "u1", "u2"))])  # fmt: skip
    with pytest.raises(InputError, match=r"only one annotator in instance=i0 \(1 of 2 groups\)"):
        fit_bradley_terry(two, by="instance", bootstrap=10, bootstrap_by="annotator", rng=0)


@pytest.mark.parametrize(("n_units", "warns"), [(3, True), (19, True), (20, False)])
def test_bootstrap_by_few_units_warns(n_units, warns, recwarn):
    from rrmap.rank import BootstrapWarning

    df = _simulate(0, n_instances=n_units)
    assert df["instance"].nunique() == n_units
    fit_bradley_terry(df, bootstrap=20, bootstrap_by="instance", rng=0)
    caught = [w for w in recwarn if issubclass(w.category, BootstrapWarning)]
    assert len(caught) == int(warns)
    if warns:
        assert f"only {n_units} units (fewer than 20)" in str(caught[0].message)


def test_cli_prints_few_units_as_a_warning_line(tmp_path):
    path = tmp_path / "p.csv"
    _simulate(0, n_instances=3).to_csv(path, index=False)
    res = CliRunner().invoke(main, ["rank", "fit", str(path), "--bootstrap", "20",
                                    "--bootstrap-by", "instance", "-q"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "warning: bootstrap_by='instance': only 3 units" in res.stderr


def _by_name(table):
    """The table in candidate order, as the references (and the covariance) list them."""
    return table.sort_values("candidate", ignore_index=True)
