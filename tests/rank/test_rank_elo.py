"""Tests for rrmap.rank.models.elo: the Elo update rule and averaging over shuffled orders."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from rrmap._util.streams import Streams
from rrmap.errors import InputError
from rrmap.rank.models.elo import elo_ratings, fit_elo


def _reference_elo(rows, k=32.0, initial=1500.0, scale=400.0):
    """Textbook Elo, one comparison at a time, written out plainly."""
    r: dict[str, float] = {}
    for left, right, winner in rows:
        ra, rb = r.get(left, initial), r.get(right, initial)
        ea = 1 / (1 + 10 ** ((rb - ra) / scale))
        sa = {"left": 1.0, "right": 0.0, "tie": 0.5}[winner]
        r[left] = ra + k * (sa - ea)
        r[right] = rb - k * (sa - ea)
    return r


def _random_table(seed, k=5, n=200):
    rng = np.random.default_rng(seed)
    names = np.array(list("ABCDEFGH"[:k]))
    left = rng.integers(0, k, n)
    right = (left + rng.integers(1, k, n)) % k
    winner = rng.choice(["left", "right", "tie"], size=n, p=[0.5, 0.4, 0.1])
    return pd.DataFrame({"instance": "i", "left": names[left], "right": names[right],
                         "winner": winner})  # fmt: skip


@pytest.mark.parametrize(
    ("winner", "a", "b"), [("left", 1516.0, 1484.0), ("right", 1484.0, 1516.0), ("tie", 1500, 1500)]
)
def test_single_comparison_closed_form(winner, a, b):
    df = pd.DataFrame({"instance": "i", "left": ["A"], "right": ["B"], "winner": [winner]})
    assert elo_ratings(df)["rating"].tolist() == [a, b]


def test_scale_400_means_ten_to_one():
    df = pd.DataFrame({"instance": "i", "left": ["B"], "right": ["A"], "winner": ["left"]})
    k_big = 800.0  # one B win with K=800 from equal ratings moves B to 1900, A to 1100
    first = elo_ratings(df, k=k_big)
    assert first["rating"].tolist() == [1100.0, 1900.0]
    two = pd.DataFrame({"instance": "i", "left": ["B", "A"], "right": ["A", "B"],
                        "winner": ["left", "left"]})  # fmt: skip
    # then A (1100) beats B (1900): a 800-point gap means odds 100 to 1, expected 1/101
    got = elo_ratings(two, k=k_big).set_index("candidate")["rating"]
    assert got["A"] == pytest.approx(1100 + k_big * (1 - 1 / 101))
    assert got["B"] == pytest.approx(1900 - k_big * (1 - 1 / 101))


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(("k", "scale"), [(32.0, 400.0), (16.0, 200.0)])
def test_given_order_matches_reference(seed, k, scale):
    df = _random_table(seed)
    got = elo_ratings(df, k=k, scale=scale, initial=1000.0)
    ref = _reference_elo(df[["left", "right", "winner"]].itertuples(index=False), k, 1000.0, scale)
    np.testing.assert_allclose(got["rating"], [ref[c] for c in got["candidate"]])


def test_shuffles_are_reference_runs_on_permuted_orders():
    df = _random_table(2, n=60)
    fit = fit_elo(df, n_shuffles=7, rng=11)
    # every shuffle's final ratings are a plain Elo run over some order: zero-sum, and
    # the mean over shuffles is the table's score
    per = fit.ratings.pivot(index="shuffle", columns="candidate", values="rating")
    np.testing.assert_allclose(per.sum(axis=1), 1500.0 * per.shape[1])
    table = _by_name(fit.table)
    np.testing.assert_allclose(per.mean().to_numpy(), table["score"])
    np.testing.assert_allclose(per.std(ddof=1).to_numpy(), table["spread"])
    assert per.std().gt(0).all()  # orders differ, so ratings differ


def test_shuffle_result_equals_reference_on_the_same_order():
    df = _random_table(3, n=40)
    fit = fit_elo(df, n_shuffles=3, rng=5)
    gen = Streams(5).generator("orders", "elo", "", "")  # the stream of the orders, ungrouped
    order = gen.permuted(np.broadcast_to(np.arange(len(df)), (3, len(df))), axis=1)
    for b in range(3):
        rows = df.iloc[order[b]][["left", "right", "winner"]].itertuples(index=False)
        ref = _reference_elo(rows)
        got = fit.ratings[fit.ratings["shuffle"] == b]
        np.testing.assert_allclose(got["rating"], [ref[c] for c in got["candidate"]])


def test_seeded_and_reproducible():
    df = _random_table(4)
    a = fit_elo(df, n_shuffles=20, rng=3)
    b = fit_elo(df, n_shuffles=20, rng=3)
    c = fit_elo(df, n_shuffles=20, rng=4)
    pd.testing.assert_frame_equal(a.table, b.table)
    assert not np.allclose(a.table["score"], c.table["score"])
    assert a.params == {
        "k": 32.0,
        "initial": 1500.0,
        "scale": 400.0,
        "n_shuffles": 20,
        "seed": 3,
        "ties": "half",
        "bootstrap": 0,
        "bootstrap_by": "",
        "level": 0.95,
    }


def test_strong_candidate_ranks_first_and_quantiles_bracket_mean():
    rows = [("A", "B", "left")] * 20 + [("B", "C", "left")] * 20 + [("A", "C", "left")] * 20
    df = pd.DataFrame(rows, columns=["left", "right", "winner"]).assign(instance="i")
    t = fit_elo(df, n_shuffles=30, rng=0).table
    assert t["rank"].tolist() == [1, 2, 3]
    assert (t["q_low"] <= t["score"]).all() and (t["score"] <= t["q_high"]).all()
    assert t["wins"].tolist() == [40, 20, 0]


def test_by_instance():
    df = pd.concat(
        [_random_table(5, n=30).assign(instance="a"), _random_table(6, n=30).assign(instance="b")]
    )
    fit = fit_elo(df, by="instance", n_shuffles=5, rng=0)
    assert sorted(fit.table["instance"].unique()) == ["a", "b"]
    for _, t in fit.table.groupby("instance"):
        assert t["score"].mean() == pytest.approx(1500.0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"k": 0}, "k must be > 0, got 0"),
        ({"scale": -1}, "scale must be > 0, got -1"),
        ({"n_shuffles": 0}, "n_shuffles must be an integer >= 1, got 0"),
        ({"initial": float("nan"), "k": -2}, "k must be > 0, got -2; initial must be a finite"),
    ],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(InputError, match=match):
        fit_elo(_random_table(0, n=5), **kwargs)


def test_missing_group_values_are_an_error_not_a_silent_drop():
    df = _random_table(1, n=6).assign(session=["a", "a", None, "b", "b", None])
    with pytest.raises(
        InputError, match=r"column 'session' \(by\): missing value in 2 rows \(2, 5\)"
    ):
        fit_elo(df, by="session")


def _by_name(table):
    """The table in candidate order, as the references (and the covariance) list them."""
    return table.sort_values("candidate", ignore_index=True)
