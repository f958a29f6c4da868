"""Tests for rrmap.rank.models.bradley_terry against statsmodels, choix and closed forms."""

from __future__ import annotations

import choix
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from properties import examples
from statsmodels.genmod import families
from statsmodels.genmod.generalized_linear_model import GLM

from rrmap.errors import InputError
from rrmap.rank.models.bradley_terry import fit_bradley_terry, mle_existence


def _simulate(seed, k=6, n=300, tie_rate=0.0):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=k)
    left = rng.integers(0, k, n)
    right = (left + rng.integers(1, k, n)) % k
    p = 1 / (1 + np.exp(-(theta[left] - theta[right])))
    u = rng.random(n)
    winner = np.where(u < p, "left", "right")
    winner[rng.random(n) < tie_rate] = "tie"
    names = np.array([f"m{i}" for i in range(k)])
    df = pd.DataFrame(
        {"instance": "x", "left": names[left], "right": names[right], "winner": winner}
    )
    return df, left, right, winner


def _glm(left, right, y, k):
    """Logit GLM on a ±1 design (candidate 0 is the reference)."""
    x = np.zeros((len(left), k))
    x[np.arange(len(left)), left] = 1.0
    x[np.arange(len(left)), right] = -1.0
    return GLM(y, x[:, 1:], family=families.Binomial()).fit(tol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("tie_rate", [0.0, 0.2])
def test_matches_statsmodels_glm(seed, tie_rate):
    k = 6
    df, left, right, winner = _simulate(seed, k=k, tie_rate=tie_rate)
    fit = fit_bradley_terry(df)
    assert not fit.regularized
    y = np.where(winner == "left", 1.0, np.where(winner == "right", 0.0, 0.5))
    res = _glm(left, right, y, k)
    s = _by_name(fit.table)["score"].to_numpy()
    cov = fit.covariance[None].to_numpy()
    np.testing.assert_allclose(s[1:] - s[0], res.params, rtol=1e-6, atol=1e-8)
    se_diff = np.sqrt(np.diag(cov)[1:] + cov[0, 0] - 2 * cov[1:, 0])
    np.testing.assert_allclose(se_diff, res.bse, rtol=1e-5)
    if tie_rate == 0:  # with fractional outcomes statsmodels adds binomial-coefficient terms
        np.testing.assert_allclose(fit.fits["log_likelihood"].iloc[0], res.llf, rtol=1e-9)
    assert abs(s.sum()) < 1e-9


@pytest.mark.parametrize("alpha", [0.05, 1.0])
def test_penalised_matches_choix(alpha):
    df, left, right, winner = _simulate(3, k=5, n=60)
    fit = fit_bradley_terry(df, alpha=alpha)
    assert fit.regularized and fit.fits["alpha"].iloc[0] == alpha
    data = [(a, b) if w == "left" else (b, a) for a, b, w in zip(left, right, winner, strict=True)]
    # choix penalises alpha * sum(theta^2); here the penalty is alpha/2 * sum(theta^2)
    ref = choix.opt_pairwise(5, data, alpha=alpha / 2, tol=1e-12)
    np.testing.assert_allclose(_by_name(fit.table)["score"], ref - ref.mean(), atol=1e-6)


def test_matches_choix_mle_on_many_candidates():
    df, left, right, winner = _simulate(4, k=12, n=2000)
    fit = fit_bradley_terry(df)
    data = [(a, b) if w == "left" else (b, a) for a, b, w in zip(left, right, winner, strict=True)]
    ref = choix.ilsr_pairwise(12, data, alpha=0.0, tol=1e-12)
    order = np.argsort([int(c[1:]) for c in fit.table["candidate"]])
    np.testing.assert_allclose(fit.table["score"].to_numpy()[order], ref - ref.mean(), atol=1e-6)


@pytest.mark.parametrize(("wins", "losses"), [(3, 1), (7, 2), (5, 5), (1, 9)])
def test_two_candidates_closed_form(wins, losses):
    df = pd.DataFrame(
        {
            "instance": "i",
            "left": ["A"] * (wins + losses),
            "right": ["B"] * (wins + losses),
            "winner": ["left"] * wins + ["right"] * losses,
        }
    )
    t = fit_bradley_terry(df).table.set_index("candidate")
    assert t.loc["A", "score"] - t.loc["B", "score"] == pytest.approx(np.log(wins / losses))
    # var of the log-odds of a binomial proportion: 1/w + 1/l; each score is half the difference
    assert t.loc["A", "se"] == pytest.approx(0.5 * np.sqrt(1 / wins + 1 / losses))
    assert (t.loc["A", "wins"], t.loc["A", "losses"], t.loc["B", "wins"]) == (wins, losses, losses)


def test_tie_halves_equal_one_win_each_in_two_ties():
    two_ties = pd.DataFrame({"instance": "i", "left": ["A", "A"], "right": ["B", "B"],
                             "winner": ["tie", "tie"]})  # fmt: skip
    t = fit_bradley_terry(two_ties).table
    np.testing.assert_allclose(t["score"], [0.0, 0.0], atol=1e-12)
    assert t["ties"].tolist() == [2, 2]
    # half a win each is the same likelihood as one win and one loss
    split = two_ties.assign(winner=["left", "right"])
    np.testing.assert_allclose(
        fit_bradley_terry(two_ties).table["se"], fit_bradley_terry(split).table["se"]
    )


def test_ties_drop_equals_dropping_them():
    df, *_ = _simulate(5, tie_rate=0.3)
    a = fit_bradley_terry(df, ties="drop")
    b = fit_bradley_terry(df[df["winner"] != "tie"])
    np.testing.assert_allclose(a.table["score"], b.table["score"])
    assert a.fits["n_ties"].iloc[0] == (df["winner"] == "tie").sum() > 0
    assert a.table["ties"].sum() == 2 * (df["winner"] == "tie").sum()


@pytest.mark.parametrize(
    ("left", "right", "winner", "problem"),
    [
        (["A", "A"], ["B", "C"], ["left", "left"], "never wins: B, C; never loses: A"),
        (["A", "B", "C"], ["B", "C", "A"], ["left", "left", "left"], ""),
        (
            ["A", "B", "C", "D"],
            ["B", "A", "D", "C"],
            ["left"] * 4,
            "comparison graph has 2 disconnected parts",
        ),
        (
            # {A,B} beat each other, {C,D} beat each other, A beat C: nobody never wins/loses
            ["A", "B", "C", "D", "A"],
            ["B", "A", "D", "C", "C"],
            ["left"] * 5,
            "win graph not strongly connected (2 components)",
        ),
    ],
)
def test_mle_existence(left, right, winner, problem):
    df = pd.DataFrame({"instance": "i", "left": left, "right": right, "winner": winner})
    fit = fit_bradley_terry(df)
    row = fit.fits.iloc[0]
    assert row["problem"] == problem
    assert row["mle_exists"] == (problem == "")
    assert row["regularized"] == (problem != "")
    assert np.isfinite(fit.table["score"]).all()
    if problem:
        assert fit.notes == [
            f"maximum-likelihood estimate does not exist ({problem}); "
            "fitted with a Gaussian penalty, alpha=0.1"
        ]
        with pytest.raises(InputError, match="maximum-likelihood estimate does not exist"):
            fit_bradley_terry(df, alpha=0)


def test_mle_existence_matrix_and_tie_makes_it_exist():
    assert mle_existence(np.array([[0, 1], [0, 0]])) == (False, "never wins: 1; never loses: 0")
    df = pd.DataFrame({"instance": "i", "left": ["A", "A"], "right": ["B", "B"],
                       "winner": ["left", "tie"]})  # fmt: skip
    assert fit_bradley_terry(df).fits["mle_exists"].iloc[0]
    assert not fit_bradley_terry(df, ties="drop").fits["mle_exists"].iloc[0]


def test_regularised_never_winner_ranks_last():
    df = pd.DataFrame(
        {
            "instance": "i",
            "left": ["A", "B", "A", "C", "B"],
            "right": ["B", "A", "C", "A", "C"],
            "winner": ["left", "left", "left", "right", "left"],
        }
    )
    t = fit_bradley_terry(df).table.set_index("candidate")
    assert t.loc["C", "rank"] == 3 and t.loc["C", "wins"] == 0


def test_by_instance_equals_separate_fits():
    a, *_ = _simulate(6, k=4, n=80)
    b, *_ = _simulate(7, k=5, n=80)
    df = pd.concat([a.assign(instance="a"), b.assign(instance="b")], ignore_index=True)
    fit = fit_bradley_terry(df, by="instance")
    assert fit.fits["instance"].tolist() == ["a", "b"]
    for name, part in (("a", a), ("b", b)):
        sep = fit_bradley_terry(part).table
        got = fit.table[fit.table["instance"] == name]
        np.testing.assert_allclose(got["score"], sep["score"])
        np.testing.assert_allclose(got["se"], sep["se"])


def test_rank_and_interval_columns():
    df, *_ = _simulate(8)
    t = fit_bradley_terry(df).table
    assert t.columns.tolist() == ["candidate", "score", "se", "ci_low", "ci_high", "rank",
                                  "rank_ci", "wins", "losses", "ties", "n_comparisons"]  # fmt: skip
    assert (t.sort_values("rank")["score"].diff().dropna() <= 0).all()
    np.testing.assert_allclose(t["ci_high"] - t["score"], 1.959963984540054 * t["se"])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"ties": "both"}, "ties must be one of drop, half, model, got 'both'"),
        ({"alpha": -1.0}, "alpha must be a finite number >= 0, got -1.0"),
        ({"fallback_alpha": 0.0}, "fallback_alpha must be > 0, got 0.0"),
        ({"by": "movement"}, "column 'movement' \\(by\\) not in the comparisons table"),
    ],
)
def test_bad_options(kwargs, match):
    df, *_ = _simulate(0, n=20)
    with pytest.raises(InputError, match=match):
        fit_bradley_terry(df, **kwargs)


def test_empty_table():
    empty = pd.DataFrame(columns=["instance", "left", "right", "winner"])
    with pytest.raises(InputError, match="the comparisons table is empty"):
        fit_bradley_terry(empty)


@settings(max_examples=examples(40), deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    k=st.integers(2, 6),
    n=st.integers(1, 40),
    ties=st.sampled_from(["drop", "half"]),
)
def test_invariant_to_sides_and_row_order(seed, k, n, ties):
    rng = np.random.default_rng(seed)
    names = np.array([f"c{i}" for i in range(k)])
    left = rng.integers(0, k, n)
    right = (left + rng.integers(1, k, n)) % k
    winner = rng.choice(["left", "right", "tie"], size=n)
    df = pd.DataFrame({"instance": "i", "left": names[left], "right": names[right],
                       "winner": winner})  # fmt: skip
    if ties == "drop" and (winner != "tie").sum() == 0:
        return
    base = fit_bradley_terry(df, ties=ties)
    swapped = df.assign(left=df["right"], right=df["left"],
                        winner=df["winner"].map({"left": "right", "right": "left", "tie": "tie"}))  # fmt: skip
    shuffled = df.sample(frac=1.0, random_state=1)
    for other in (swapped, shuffled):
        fit = fit_bradley_terry(other, ties=ties)
        pd.testing.assert_frame_equal(fit.table, base.table, atol=1e-7)
        assert fit.fits["mle_exists"].iloc[0] == base.fits["mle_exists"].iloc[0]
    # centred scores; wins + losses + ties = comparisons per candidate
    assert abs(base.table["score"].sum()) < 1e-7
    t = base.table
    assert (t["wins"] + t["losses"] + t["ties"] == t["n_comparisons"]).all()


def test_converged_flag_and_note():
    df, *_ = _simulate(9)
    fit = fit_bradley_terry(df)
    assert fit.fits["converged"].all() and fit.notes == []
    assert 1 < fit.fits["iterations"].iloc[0] < 20
    # one Newton step cannot reach the optimum: the flag and the note say so
    from rrmap.rank.models import bradley_terry
    from rrmap.rank.models._likelihood import Pairs, newton

    counts = np.array([[[3.0, 1.0, 0.0], [1.0, 2.0, 0.0], [2.0, 1.0, 0.0]]])
    sol = newton(Pairs(3, np.array([0, 0, 1]), np.array([1, 2, 2])), counts, "bradley-terry",
                 np.zeros(1), max_iter=1)  # fmt: skip
    assert not sol.converged[0]
    fits = fit.fits.assign(converged=False)
    forced = bradley_terry.BradleyTerryFit(fit.table, fits, fit.covariance)
    assert forced.notes == ["Newton's method did not converge in "
                            f"{fits['iterations'].iloc[0]} iterations"]  # fmt: skip


def test_strict_mle_error_names_the_group():
    ok, *_ = _simulate(1, k=3, n=60)
    bad = pd.DataFrame({"left": ["A", "A"], "right": ["B", "C"], "winner": "left"})
    df = pd.concat([ok.assign(instance="good"), bad.assign(instance="bad")], ignore_index=True)
    with pytest.raises(InputError, match=r"^instance=bad: the Bradley-Terry maximum-likelihood"):
        fit_bradley_terry(df, by="instance", alpha=0)


def _by_name(table):
    """The table in candidate order, as the references (and the covariance) list them."""
    return table.sort_values("candidate", ignore_index=True)
