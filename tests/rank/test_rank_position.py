"""The position effect: θ_left − θ_right + δ, against references written from the likelihoods."""

from __future__ import annotations

import subprocess

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from r_packages import need_r_package
from scipy import stats
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from rrmap.cli import main
from rrmap.errors import InputError
from rrmap.rank import fit_bradley_terry


def _simulate(seed, model, k=5, n=800, delta=0.6, tie=0.8):
    """Comparisons drawn from *model* with a position effect, left and right at random."""
    rng = np.random.default_rng(seed)
    theta = np.linspace(1.0, -1.0, k)
    left = rng.integers(0, k, n)
    right = (left + rng.integers(1, k, n)) % k
    d = theta[left] - theta[right] + delta
    if model == "bradley-terry":
        p = np.column_stack([expit(d), expit(-d), np.zeros(n)])
    elif model == "davidson":
        p = np.column_stack([np.exp(d / 2), np.exp(-d / 2), np.full(n, tie)])
    else:  # Rao–Kupper, θ_RK = e^tie
        p = np.column_stack([expit(d - tie), expit(-d - tie), np.zeros(n)])
        p[:, 2] = 1 - p[:, 0] - p[:, 1]
    p /= p.sum(axis=1, keepdims=True)
    u = rng.random(n)[:, None]
    outcome = (u > np.cumsum(p, axis=1)).sum(axis=1)
    names = np.array([f"m{i}" for i in range(k)])
    return pd.DataFrame({"left": names[left], "right": names[right],
                         "winner": np.array(["left", "right", "tie"])[outcome]})  # fmt: skip


def _reference_nll(df, model):
    """Minus the log-likelihood, one term per comparison, from the model's formulas.

    Parameters: k − 1 scores (the last is minus their sum), δ, and log ν (Davidson)
    or log η (Rao–Kupper, θ_RK = exp(η) > 1).
    """
    names = sorted(set(df.left) | set(df.right))
    k = len(names)
    li = df.left.map(names.index).to_numpy()
    ri = df.right.map(names.index).to_numpy()
    w = df.winner.to_numpy()

    def nll(x):
        th = np.r_[x[: k - 1], -x[: k - 1].sum()]
        d = th[li] - th[ri] + x[k - 1]
        if model == "bradley-terry":
            ll = np.where(w == "left", log_expit(d), log_expit(-d))
        elif model == "davidson":
            nu = np.exp(x[k])
            z = np.log(np.exp(d / 2) + np.exp(-d / 2) + nu)
            ll = np.select([w == "left", w == "right"], [d / 2 - z, -d / 2 - z], np.log(nu) - z)
        else:
            eta = np.exp(x[k])
            pl, pr = expit(d - eta), expit(-d - eta)
            ll = np.select([w == "left", w == "right"], [np.log(pl), np.log(pr)],
                           np.log(1 - pl - pr))  # fmt: skip
        return -ll.sum()

    return nll, k


def _reference_fit(df, model):
    nll, k = _reference_nll(df, model)
    x0 = np.zeros(k + (model != "bradley-terry"))
    if model != "bradley-terry":
        x0[-1] = 0.0
    res = minimize(nll, x0, method="BFGS", options={"gtol": 1e-9, "maxiter": 10_000})
    return res, nll, k


def _numeric_hessian(f, x, eps=1e-4):
    n = len(x)
    h = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            e_i, e_j = np.eye(n)[i] * eps, np.eye(n)[j] * eps
            h[i, j] = (f(x + e_i + e_j) - f(x + e_i - e_j) - f(x - e_i + e_j)
                       + f(x - e_i - e_j)) / (4 * eps * eps)  # fmt: skip
    return h


@pytest.mark.parametrize("model", ["bradley-terry", "davidson", "rao-kupper"])
def test_matches_scipy_mle_from_the_likelihood(model):
    df = _simulate(1, model)
    res, nll, k = _reference_fit(df, model)
    fit = fit_bradley_terry(df, model=model, position_effect=True)
    info = fit.fits.iloc[0]
    assert info["mle_exists"] and not info["regularized"] and info["converged"]
    scores = np.r_[res.x[: k - 1], -res.x[: k - 1].sum()]
    np.testing.assert_allclose(fit.table["score"], scores, atol=1e-5)
    assert info["position_effect"] == pytest.approx(res.x[k - 1], abs=1e-5)
    assert info["log_likelihood"] == pytest.approx(-res.fun, abs=1e-8)
    # standard error of δ from the numeric Hessian of the reference likelihood
    cov = np.linalg.inv(_numeric_hessian(nll, res.x))
    assert info["position_effect_se"] == pytest.approx(np.sqrt(cov[k - 1, k - 1]), rel=1e-3)
    if model == "rao-kupper":  # θ_RK = exp(η), the reference fits log η
        assert info["tie_parameter"] == pytest.approx(np.exp(np.exp(res.x[k])), rel=1e-5)
    elif model == "davidson":
        assert info["tie_parameter"] == pytest.approx(np.exp(res.x[k]), rel=1e-5)


def test_bradley_terry_with_position_is_a_logistic_regression():
    """δ and its standard error equal the intercept of a logit on ±1 candidate indicators."""
    import statsmodels.api as sm

    df = _simulate(2, "bradley-terry", k=6, n=1000, delta=-0.4)
    names = sorted(set(df.left) | set(df.right))
    x = np.zeros((len(df), len(names)))
    x[np.arange(len(df)), df.left.map(names.index)] += 1
    x[np.arange(len(df)), df.right.map(names.index)] -= 1
    design = sm.add_constant(x[:, 1:])  # first candidate as the reference
    ref = sm.Logit((df.winner == "left").to_numpy(float), design).fit(disp=0, tol=1e-12)
    fit = fit_bradley_terry(df, position_effect=True)
    info = fit.fits.iloc[0]
    assert info["position_effect"] == pytest.approx(ref.params[0], abs=1e-8)
    assert info["position_effect_se"] == pytest.approx(ref.bse[0], rel=1e-7)
    s = fit.table["score"].to_numpy()
    np.testing.assert_allclose(s[1:] - s[0], ref.params[1:], atol=1e-8)


@pytest.mark.parametrize("model", ["bradley-terry", "davidson", "rao-kupper"])
def test_likelihood_ratio_test(model):
    df = _simulate(3, model, delta=0.3)
    with_d = _reference_fit(df, model)[0]
    nll0, k = _reference_nll(df, model)
    # the model without δ: fix δ = 0 in the same likelihood
    free = [i for i in range(len(with_d.x)) if i != k - 1]

    def nll_no_delta(y):
        x = np.zeros(len(with_d.x))
        x[free] = y
        return nll0(x)

    without = minimize(nll_no_delta, np.zeros(len(free)), method="BFGS", options={"gtol": 1e-9})
    lr = 2 * (without.fun - with_d.fun)
    info = fit_bradley_terry(df, model=model, position_effect=True).fits.iloc[0]
    assert info["position_lr_statistic"] == pytest.approx(lr, abs=1e-6)
    assert info["position_lr_p"] == pytest.approx(stats.chi2.sf(lr, 1), rel=1e-5)


def test_no_position_effect_is_not_significant_and_keeps_scores():
    df = _simulate(4, "bradley-terry", delta=0.0, n=2000)
    fit = fit_bradley_terry(df, position_effect=True)
    plain = fit_bradley_terry(df)
    info = fit.fits.iloc[0]
    assert abs(info["position_effect"]) < 3 * info["position_effect_se"]
    assert info["position_lr_p"] > 0.01
    np.testing.assert_allclose(fit.table["score"], plain.table["score"], atol=0.05)
    assert "position_effect" not in plain.fits.columns


def _rows(*triples):
    return pd.DataFrame(triples, columns=["left", "right", "winner"])


@pytest.mark.parametrize(
    ("df", "problem"),
    [
        # each candidate always on one side: δ and the scores cannot be told apart
        (_rows(("A", "B", "left"), ("A", "B", "right"), ("C", "B", "left"), ("C", "B", "right")),
         "confounded with the scores"),
        # a chain A-left-B, B-left-C: levels 0, 1, 2 absorb δ too
        (_rows(("A", "B", "left"), ("A", "B", "right"), ("B", "C", "left"), ("B", "C", "right")),
         "confounded with the scores"),
        # both ways round, but the left side always wins
        (_rows(("A", "B", "left"), ("B", "A", "left"), ("A", "B", "left"), ("B", "A", "left")),
         "the left candidate never loses"),
        # B and C: the left one always wins; A never loses
        (_rows(("B", "C", "left"), ("C", "B", "left"), ("A", "B", "left"), ("B", "A", "right"),
               ("A", "C", "left"), ("C", "A", "right")),
         "admit no finite maximum: A only win or tie"),
    ],
)  # fmt: skip
def test_existence_conditions(df, problem):
    fit = fit_bradley_terry(df, position_effect=True)
    info = fit.fits.iloc[0]
    assert not info["mle_exists"] and info["regularized"]
    assert problem in info["problem"]
    assert np.isnan(info["position_lr_statistic"])
    with pytest.raises(InputError, match="maximum-likelihood estimate does not exist"):
        fit_bradley_terry(df, position_effect=True, alpha=0)


def _diverges(df, model):
    """Reference for existence: the penalised optimum runs away as the penalty vanishes."""
    fits = [fit_bradley_terry(df, model=model, position_effect=True, alpha=a) for a in (1e-3, 1e-5)]
    size = [np.abs(np.r_[f.table.score, f.fits.position_effect]).max() for f in fits]
    return size[1] > size[0] + 1.0


@pytest.mark.parametrize(
    "model",
    [
        "bradley-terry",
        # a statistical simulation (40 random tables); further model of the check above
        pytest.param("davidson", marks=pytest.mark.slow),
    ],
)
def test_existence_agrees_with_a_vanishing_penalty(model):
    rng = np.random.default_rng(5)
    agree = 0
    for _ in range(40):
        n = int(rng.integers(4, 9))
        left = rng.choice(list("ABC"), n)
        right = np.array([rng.choice([c for c in "ABC" if c != x]) for x in left])
        winner = rng.choice(["left", "right", "tie"] if model == "davidson" else
                            ["left", "right"], n)  # fmt: skip
        df = pd.DataFrame({"left": left, "right": right, "winner": winner})
        ties = "model" if model == "davidson" and (winner == "tie").any() else None
        if ties is None and model == "davidson":
            continue
        exists = bool(fit_bradley_terry(df, model=model, position_effect=True,
                                        ).fits.mle_exists.iloc[0])  # fmt: skip
        converges = not _diverges(df, model)
        agree += exists == converges
        assert exists == converges, df
    assert agree > 10


def test_bootstrap_and_cli(tmp_path):
    df = _simulate(6, "davidson", n=400)
    fit = fit_bradley_terry(df, model="davidson", position_effect=True, bootstrap=100, rng=0)
    assert fit.draws["score"].notna().all()
    assert (fit.table.boot_low <= fit.table.score).all()
    path = tmp_path / "p.csv"
    df.to_csv(path, index=False)
    res = CliRunner().invoke(main, ["rank", "fit", str(path), "--model", "davidson",
                                    "--position-effect"])  # fmt: skip
    assert res.exit_code == 0, res.output
    out = pd.read_csv(pd.io.common.StringIO(res.stdout))
    assert out["position_effect"].iloc[0] == pytest.approx(fit.fits.position_effect.iloc[0])
    assert {"position_effect_se", "position_lr_statistic", "position_lr_p"} <= set(out.columns)
    res = CliRunner().invoke(main, ["rank", "fit", str(path), "--model", "elo",
                                    "--position-effect"])  # fmt: skip
    assert res.exit_code != 0 and "--position-effect needs" in res.output


def test_matches_r_bradleyterry2_home_advantage(tmp_path):
    """BTm(outcome, player1, player2, formula = ~ player + at.home): the left side is home."""
    need_r_package("BradleyTerry2", "apt r-cran-bradleyterry2")
    df = _simulate(7, "bradley-terry", k=5, n=600, delta=0.5)
    path = tmp_path / "pairs.csv"
    df.to_csv(path, index=False)
    script = f"""
    suppressMessages(library(BradleyTerry2))
    d <- read.csv("{path}", stringsAsFactors = FALSE)
    lv <- sort(unique(c(d$left, d$right)))
    p1 <- data.frame(player = factor(d$left, levels = lv), at.home = 1)
    p2 <- data.frame(player = factor(d$right, levels = lv), at.home = 0)
    y <- as.integer(d$winner == "left")
    fit <- BTm(y, p1, p2, formula = ~ player + at.home, id = "player",
               control = glm.control(epsilon = 1e-14))
    s <- summary(fit)$coefficients
    cat(format(c(s[, 1], s[, 2]), digits = 15), sep = "\\n")
    """
    out = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True, check=True)
    values = np.array([float(v) for v in out.stdout.split()])
    est, se = values[:5], values[5:]  # 4 contrasts with the first candidate, then at.home
    fit = fit_bradley_terry(df, position_effect=True)
    s = fit.table["score"].to_numpy()
    np.testing.assert_allclose(s[1:] - s[0], est[:4], atol=1e-8)
    info = fit.fits.iloc[0]
    assert info["position_effect"] == pytest.approx(est[4], abs=1e-8)
    assert info["position_effect_se"] == pytest.approx(se[4], rel=1e-6)
