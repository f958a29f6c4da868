"""Plackett–Luce for k-way rankings, against choix's opt_rankings and a scipy MLE."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy.optimize import minimize
from scipy.special import logsumexp

from rrmap.cli import main
from rrmap.errors import InputError
from rrmap.rank import fit_bradley_terry, fit_plackett_luce, read_rankings


def _simulate(seed, k=6, n=300, sizes=(2, 5)):
    rng = np.random.default_rng(seed)
    theta = np.linspace(1.0, -1.0, k)
    out = []
    for _ in range(n):
        rest = list(rng.choice(k, int(rng.integers(*sizes)), replace=False))
        order = []
        while rest:
            w = np.exp(theta[rest])
            order.append(rest.pop(int(rng.choice(len(rest), p=w / w.sum()))))
        out.append(order)
    return out


def _frame(orders):
    return pd.DataFrame({"ranking": [" > ".join(f"c{i}" for i in r) for r in orders]})


def test_matches_choix_opt_rankings():
    choix = pytest.importorskip("choix")
    orders = _simulate(0)
    fit = fit_plackett_luce(_frame(orders))
    ref = choix.opt_rankings(6, orders, alpha=0.0)
    np.testing.assert_allclose(fit.table["score"], ref - ref.mean(), atol=1e-7)
    assert fit.fits["mle_exists"].iloc[0] and fit.fits["converged"].iloc[0]


def test_matches_scipy_mle_and_hessian():
    orders = _simulate(1, k=5, n=200)
    # every stage of every ranking: the candidates still in it, and the one chosen first
    stages = [(r[j], np.isin(np.arange(5), r[j:])) for r in orders for j in range(len(r) - 1)]
    chosen = np.array([c for c, _ in stages])
    left = np.array([m for _, m in stages])

    def nll(x):
        th = np.r_[x, -x.sum()]
        return -(th[chosen].sum() - logsumexp(np.where(left, th, -np.inf), axis=1).sum())

    res = minimize(nll, np.zeros(4), method="BFGS", options={"gtol": 1e-9})
    fit = fit_plackett_luce(_frame(orders))
    np.testing.assert_allclose(fit.table["score"], np.r_[res.x, -res.x.sum()], atol=1e-5)
    assert fit.fits["log_likelihood"].iloc[0] == pytest.approx(-res.fun, abs=1e-8)
    # standard errors: the covariance of the first four scores from the reference Hessian
    eps, h = 1e-4, np.zeros((4, 4))
    for i in range(4):
        for j in range(4):
            e_i, e_j = np.eye(4)[i] * eps, np.eye(4)[j] * eps
            h[i, j] = (nll(res.x + e_i + e_j) - nll(res.x + e_i - e_j) - nll(res.x - e_i + e_j)
                       + nll(res.x - e_i - e_j)) / (4 * eps**2)  # fmt: skip
    se = np.sqrt(np.diag(np.linalg.inv(h)))
    np.testing.assert_allclose(fit.table["se"].iloc[:4], se, rtol=1e-3)


def test_pairs_are_bradley_terry():
    orders = _simulate(2, k=4, n=200, sizes=(2, 3))
    pl = fit_plackett_luce(_frame(orders))
    names = np.array([f"c{i}" for i in range(4)])
    df = pd.DataFrame({"left": [names[r[0]] for r in orders],
                       "right": [names[r[1]] for r in orders], "winner": "left"})  # fmt: skip
    bt = fit_bradley_terry(df)
    np.testing.assert_allclose(pl.table["score"], bt.table["score"], atol=1e-8)
    np.testing.assert_allclose(pl.table["se"], bt.table["se"], rtol=1e-6)


def test_partial_rankings_use_only_the_listed_order():
    """'A > B' says nothing about C: the fit equals that of the pairs A≻B alone plus the rest."""
    full = pd.DataFrame({"ranking": ["A > B", "B > C", "C > A", "A > C", "B > A"]})
    fit = fit_plackett_luce(full)
    # top-1-of-3 would differ: 'A > B' read as A ≻ B ≻ C changes C's score
    padded = fit_plackett_luce(full.assign(ranking=["A > B > C", *full.ranking[1:]]))
    assert not np.allclose(fit.table["score"], padded.table["score"])
    pairs = pd.DataFrame({"left": ["A", "B", "C", "A", "B"], "right": ["B", "C", "A", "C", "A"],
                          "winner": "left"})  # fmt: skip
    np.testing.assert_allclose(fit.table["score"], fit_bradley_terry(pairs).table["score"],
                               atol=1e-8)  # fmt: skip


def test_existence_and_fallback():
    never = pd.DataFrame({"ranking": ["A > B > C", "A > C > B", "A > B"]})
    fit = fit_plackett_luce(never)
    info = fit.fits.iloc[0]
    assert not info["mle_exists"] and info["regularized"] and info["alpha"] == 0.1
    assert "never loses: A" in info["problem"]
    with pytest.raises(InputError, match="Plackett-Luce maximum-likelihood estimate does not"):
        fit_plackett_luce(never, alpha=0)


def test_bootstrap_intervals_cover_the_estimate():
    fit = fit_plackett_luce(_frame(_simulate(3, n=150)), bootstrap=200, rng=0, top_k=(1, 2))
    t = fit.table
    assert ((t.boot_low <= t.score) & (t.score <= t.boot_high)).all()
    assert t.p_top1.sum() == pytest.approx(1.0)
    assert len(fit.draws) == 200 * 6
    # bootstrap spread close to the standard errors on this well-connected design
    spread = fit.draws.groupby("candidate")["score"].std().to_numpy()
    np.testing.assert_allclose(spread, t["se"], rtol=0.3)


def test_read_rankings_refuses_what_it_cannot_read(tmp_path):
    p = tmp_path / "r.csv"
    p.write_text("instance,ranking\ni1,A > B\ni2,A > A\ni3,C\ni4,A > > B\ni5,A,B\n")
    with pytest.raises(InputError) as err:
        read_rankings(p)
    assert "line 6 has 3 fields, the header 2" in str(err.value)
    p.write_text("instance,ranking\ni1,A > B\ni2,A > A\ni3,C\ni4,A > > B\n")
    with pytest.raises(InputError) as err:
        read_rankings(p)
    msg = str(err.value)
    assert "empty ranking or empty name between '>' (line 5)" in msg
    assert "fewer than two candidates (line 4)" in msg
    assert "a candidate listed twice (line 3)" in msg


def test_cli(tmp_path):
    p = tmp_path / "r.csv"
    _frame(_simulate(4)).to_csv(p, index=False)
    res = CliRunner().invoke(main, ["rank", "fit", str(p), "--model", "plackett-luce"])
    assert res.exit_code == 0, res.output
    out = pd.read_csv(io.StringIO(res.stdout)).set_index("candidate")
    ref = fit_plackett_luce(read_rankings(p)).table.set_index("candidate")
    np.testing.assert_allclose(out.loc[ref.index, "score"], ref["score"], rtol=1e-9)
    res = CliRunner().invoke(main, ["rank", "fit", str(p), "--model", "plackett-luce",
                                    "--by", "instance"])  # fmt: skip
    assert res.exit_code != 0 and "takes no --by" in res.output
