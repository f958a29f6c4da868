"""Tie models (Davidson, Rao–Kupper): direct maximisation, closed forms, existence, R."""

from __future__ import annotations

import subprocess
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from properties import examples
from r_packages import need_r_package
from scipy.optimize import minimize

from rrmap.errors import InputError
from rrmap.rank import fit_bradley_terry, fit_elo, mle_existence


def _simulate(seed, model, k=5, n=400, tie=0.8):
    """Comparisons drawn from the model itself (tie: ν or Rao–Kupper's log θ)."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=k)
    left = rng.integers(0, k, n)
    right = (left + rng.integers(1, k, n)) % k
    d = theta[left] - theta[right]
    if model == "davidson":
        z = np.exp(d / 2) + np.exp(-d / 2) + tie
        pa, pb = np.exp(d / 2) / z, np.exp(-d / 2) / z
    else:
        pa, pb = 1 / (1 + np.exp(-(d - tie))), 1 / (1 + np.exp(d + tie))
    u = rng.random(n)
    winner = np.where(u < pa, "left", np.where(u < pa + pb, "right", "tie"))
    names = np.array([f"m{i}" for i in range(k)])
    return pd.DataFrame({"instance": "x", "left": names[left], "right": names[right],
                         "winner": winner})  # fmt: skip


def _direct_loglik(df, model):
    """The log-likelihood written from the models' published probabilities (π = e^θ)."""
    names = sorted(set(df["left"]) | set(df["right"]))
    idx = {c: i for i, c in enumerate(names)}
    li = df["left"].map(idx).to_numpy()
    ri = df["right"].map(idx).to_numpy()
    w = df["winner"].to_numpy()

    def loglik(params):  # params: θ_1..θ_{k-1} (θ_0 = 0), then ν or θ_RK
        pi = np.exp(np.r_[0.0, params[:-1]])
        a, b, tie = pi[li], pi[ri], params[-1]
        if model == "davidson":
            z = a + b + tie * np.sqrt(a * b)
            pa, pb, pt = a / z, b / z, tie * np.sqrt(a * b) / z
        else:
            pa, pb = a / (a + tie * b), b / (b + tie * a)
            pt = (tie**2 - 1) * a * b / ((a + tie * b) * (b + tie * a))
        p = np.where(w == "left", pa, np.where(w == "right", pb, pt))
        return float(np.sum(np.log(p)))

    return loglik, len(names)


@pytest.mark.parametrize("model", ["davidson", "rao-kupper"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_direct_maximisation_of_the_published_likelihood(model, seed):
    df = _simulate(seed, model)
    fit = fit_bradley_terry(df, model=model)
    info = fit.fits.iloc[0]
    assert info["mle_exists"] and not info["regularized"] and info["ties"] == "model"
    loglik, k = _direct_loglik(df, model)
    start = np.r_[np.zeros(k - 1), 1.0 if model == "davidson" else 1.5]
    bounds = [(None, None)] * (k - 1) + [(1e-9, None) if model == "davidson" else (1 + 1e-9, None)]
    res = minimize(lambda x: -loglik(x), start, method="L-BFGS-B", bounds=bounds,
                   options={"ftol": 1e-15, "gtol": 1e-10, "maxiter": 10_000})  # fmt: skip
    theta = np.r_[0.0, res.x[:-1]]
    np.testing.assert_allclose(_by_name(fit.table)["score"], theta - theta.mean(), atol=2e-5)
    assert info["tie_parameter"] == pytest.approx(res.x[-1], abs=2e-5)
    assert info["log_likelihood"] == pytest.approx(-res.fun, abs=1e-7)
    assert info["log_likelihood"] >= -res.fun - 1e-9  # never worse than the general optimiser


@pytest.mark.parametrize("model", ["davidson", "rao-kupper"])
def test_standard_errors_are_the_inverse_observed_information(model):
    df = _simulate(7, model, k=4, n=300)
    fit = fit_bradley_terry(df, model=model)
    loglik, _ = _direct_loglik(df, model)
    s = _by_name(fit.table)["score"].to_numpy()
    x = np.r_[s[1:] - s[0], fit.fits["tie_parameter"].iloc[0]]
    h, m = 1e-4, len(x)
    hess = np.zeros((m, m))
    for i in range(m):
        for j in range(m):
            ei, ej = np.eye(m)[i] * h, np.eye(m)[j] * h
            hess[i, j] = (loglik(x + ei + ej) - loglik(x + ei - ej) - loglik(x - ei + ej)
                          + loglik(x - ei - ej)) / (4 * h * h)  # fmt: skip
    cov = np.linalg.inv(-hess)
    # contrasts with candidate 0 and the tie parameter, in their own scale
    c = fit.covariance[None].to_numpy()
    se_diff = np.sqrt(np.diag(c)[1:] + c[0, 0] - 2 * c[1:, 0])
    np.testing.assert_allclose(se_diff, np.sqrt(np.diag(cov)[:-1]), rtol=1e-4)
    assert fit.fits["tie_parameter_se"].iloc[0] == pytest.approx(np.sqrt(cov[-1, -1]), rel=1e-4)


def _pair(wa, wb, t):
    return pd.DataFrame({"instance": "i", "left": "A", "right": "B",
                         "winner": ["left"] * wa + ["right"] * wb + ["tie"] * t})  # fmt: skip


@pytest.mark.parametrize(("wa", "wb", "t"), [(1, 1, 1), (3, 1, 2), (2, 2, 4), (5, 3, 1), (1, 4, 4)])
def test_two_candidates_closed_forms(wa, wb, t):
    df = _pair(wa, wb, t)
    n = wa + wb + t
    # Davidson: the multinomial MLE P = counts / n gives d = log(wa/wb), ν = t / sqrt(wa·wb)
    dav = fit_bradley_terry(df, model="davidson")
    s = dav.table.set_index("candidate")["score"]
    assert s["A"] - s["B"] == pytest.approx(np.log(wa / wb), abs=1e-10)
    assert dav.fits["tie_parameter"].iloc[0] == pytest.approx(t / np.sqrt(wa * wb), rel=1e-10)
    # Rao–Kupper: σ(d − η) = wa/n and σ(−d − η) = wb/n
    la, lb = np.log(wa / (n - wa)), np.log(wb / (n - wb))
    rk = fit_bradley_terry(df, model="rao-kupper")
    s = rk.table.set_index("candidate")["score"]
    assert s["A"] - s["B"] == pytest.approx((la - lb) / 2, abs=1e-10)
    assert rk.fits["tie_parameter"].iloc[0] == pytest.approx(np.exp(-(la + lb) / 2), rel=1e-10)


def test_equal_counts_give_exact_tie_rates():
    # equal scores: Davidson P(tie) = ν/(2+ν); Rao–Kupper P(tie) = (θ−1)/(θ+1)
    for wa, t in [(1, 2), (2, 2), (3, 1)]:
        rate = Fraction(t, 2 * wa + t)
        df = _pair(wa, wa, t)
        nu = fit_bradley_terry(df, model="davidson").fits["tie_parameter"].iloc[0]
        th = fit_bradley_terry(df, model="rao-kupper").fits["tie_parameter"].iloc[0]
        assert nu == pytest.approx(float(2 * rate / (1 - rate)), rel=1e-12)
        assert th == pytest.approx(float((1 + rate) / (1 - rate)), rel=1e-12)


@pytest.mark.parametrize("model", ["davidson", "rao-kupper"])
def test_no_ties_reduces_to_bradley_terry(model):
    df = _simulate(3, "davidson", tie=0.0)
    assert (df["winner"] != "tie").all()
    fit = fit_bradley_terry(df, model=model)
    bt = fit_bradley_terry(df)
    np.testing.assert_allclose(fit.table["score"], bt.table["score"], atol=1e-12)
    np.testing.assert_allclose(fit.table["se"], bt.table["se"], atol=1e-12)
    assert fit.fits["tie_parameter"].iloc[0] == (0.0 if model == "davidson" else 1.0)
    assert np.isnan(fit.fits["tie_parameter_se"].iloc[0])
    assert fit.notes == [f"no ties: the tie parameter is at its boundary and {model} "
                         "equals Bradley-Terry"]  # fmt: skip


def test_ties_options():
    df = _simulate(4, "davidson")
    no_ties = df[df["winner"] != "tie"]
    dropped = fit_bradley_terry(df, model="davidson", ties="drop")
    np.testing.assert_allclose(dropped.table["score"], fit_bradley_terry(no_ties).table["score"])
    assert dropped.fits["ties"].iloc[0] == "drop"
    assert dropped.table["ties"].sum() == 2 * (df["winner"] == "tie").sum()
    half = fit_bradley_terry(df, model="davidson", ties="half")
    np.testing.assert_allclose(half.table["score"], fit_bradley_terry(df).table["score"])
    assert fit_bradley_terry(df).fits["ties"].iloc[0] == "half"
    with pytest.raises(InputError, match="ties='model' needs a tie model"):
        fit_bradley_terry(df, ties="model")
    with pytest.raises(InputError, match="Elo has no tie parameter"):
        fit_elo(df, ties="model")
    elo = fit_elo(df, ties="drop", rng=0, n_shuffles=5)
    ref = fit_elo(no_ties, rng=0, n_shuffles=5)
    np.testing.assert_allclose(elo.table["score"], ref.table["score"])
    with pytest.raises(
        InputError, match="model must be one of bradley-terry, davidson, rao-kupper"
    ):
        fit_bradley_terry(df, model="thurstone")


def _matrices(rows, k):
    w, t = np.zeros((k, k)), np.zeros((k, k))
    for i, j, kind in rows:
        if kind == "tie":
            t[i, j] += 1
            t[j, i] += 1
        else:
            w[i, j] += 1
    return w, t


@pytest.mark.parametrize(
    ("rows", "k", "exists"),
    [
        ([(0, 1, "win"), (0, 1, "tie")], 2, False),  # A never loses: A's lead and ν diverge
        ([(0, 1, "win"), (1, 0, "win"), (2, 0, "tie"), (2, 1, "tie")], 3, True),  # ties pin C
        ([(0, 1, "tie"), (1, 2, "tie")], 3, False),  # only ties: ν is infinite
        ([(0, 1, "win"), (1, 0, "win"), (2, 3, "win"), (3, 2, "win"), (0, 2, "tie")], 4, True),
        ([(0, 1, "win"), (0, 2, "win"), (1, 2, "win"), (2, 1, "win"), (0, 1, "tie")], 3, True),
        ([(0, 1, "win"), (1, 0, "win"), (2, 3, "tie"), (3, 2, "win")], 4, False),  # two parts
    ],
)
def test_existence_cases(rows, k, exists):
    w, t = _matrices(rows, k)
    got, problem = mle_existence(w, list("ABCD")[:k], tie_matrix=t)
    assert got is exists and (problem == "") is exists


def _connected(edges: list[tuple[str, str]]) -> bool:
    """Whether the candidates of *edges* form one connected comparison graph."""
    nodes = {a for e in edges for a in e}
    seen, todo = set(), [next(iter(nodes))]
    while todo:
        v = todo.pop()
        if v not in seen:
            seen.add(v)
            todo += [b for a, b in edges if a == v] + [a for a, b in edges if b == v]
    return seen == nodes


def test_the_path_property_needs_a_connected_graph():
    """Two unlinked parts: no MLE, yet the penalised path does not move (why the property
    test skips them)."""
    df = pd.DataFrame(
        [("c0", "c3", "left"), ("c2", "c1", "tie"), ("c3", "c0", "left")],
        columns=["left", "right", "winner"],
    ).assign(instance="i")
    assert not _connected(list(zip(df["left"], df["right"], strict=True)))
    assert not bool(fit_bradley_terry(df, model="davidson").fits["mle_exists"].iloc[0])
    moved = np.abs(_penalised(df, "davidson", 1e-7) - _penalised(df, "davidson", 1e-9)).max()
    assert moved < 0.05


def _penalised(df, model, alpha):
    fit = fit_bradley_terry(df, model=model, alpha=alpha)
    return np.r_[_by_name(fit.table)["score"].to_numpy(), np.log(fit.fits["tie_parameter"].iloc[0])]


@settings(max_examples=examples(40), deadline=None)
@given(
    k=st.integers(2, 4),
    outcomes=st.lists(
        st.tuples(st.integers(0, 3), st.integers(1, 3), st.sampled_from(["left", "right", "tie"])),
        min_size=2,
        max_size=9,
    ),
)
def test_existence_agrees_with_the_penalised_path(k, outcomes):
    """The MLE exists iff the penalised fits converge as the penalty vanishes — on a
    connected comparison graph: on two unlinked parts the MLE does not exist (their
    offset is not identified) while the penalty pins that offset, so the path converges
    (test_existence_cases covers them)."""
    rows = [(i % k, (i + s) % k, w) for i, s, w in outcomes if s % k]
    df = pd.DataFrame(rows, columns=["left", "right", "winner"]).assign(instance="i")
    df["left"] = "c" + df["left"].astype(str)
    df["right"] = "c" + df["right"].astype(str)
    if len(df) < 2 or df["left"].nunique() + df["right"].nunique() < 2:
        return
    if not (df["winner"] == "tie").any() or (df["winner"] == "tie").all():
        return
    if not _connected(list(zip(df["left"], df["right"], strict=True))):
        return
    fit = fit_bradley_terry(df, model="davidson")
    exists = bool(fit.fits["mle_exists"].iloc[0])
    moved = np.abs(_penalised(df, "davidson", 1e-7) - _penalised(df, "davidson", 1e-9)).max()
    assert exists == (moved < 0.05), (exists, moved, df)


@pytest.mark.parametrize(
    "model",
    [
        "davidson",
        # further tie model of the same invariance (25 random tables each)
        pytest.param("rao-kupper", marks=pytest.mark.slow),
    ],
)
@settings(max_examples=examples(25), deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_invariant_to_sides_and_row_order(model, seed):
    df = _simulate(seed, model, k=4, n=60)
    base = fit_bradley_terry(df, model=model)
    swapped = df.assign(left=df["right"], right=df["left"],
                        winner=df["winner"].map({"left": "right", "right": "left", "tie": "tie"}))  # fmt: skip
    for other in (swapped, df.sample(frac=1.0, random_state=2)):
        fit = fit_bradley_terry(other, model=model)
        pd.testing.assert_frame_equal(fit.table, base.table, atol=1e-7)
        pd.testing.assert_frame_equal(fit.fits, base.fits, atol=1e-7)


def _r_numbers(df: pd.DataFrame, tmp_path, script: str) -> np.ndarray:
    """Run an R script on ``df`` (written to ``{path}`` in the script); the numbers it prints."""
    path = tmp_path / "pairs.csv"
    df.to_csv(path, index=False)
    code = script.replace("{path}", str(path))
    out = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, check=True)
    return np.array([float(v) for v in out.stdout.split()])


def test_davidson_matches_r_plackettluce(tmp_path):
    """PlackettLuce's tie model reduces to Davidson's for pairs (npseudo = 0: plain MLE)."""
    need_r_package("PlackettLuce", "apt/CRAN r-cran-plackettluce")
    df = _simulate(11, "davidson", k=4, n=300)
    script = """
    suppressMessages(library(PlackettLuce))
    d <- read.csv("{path}", stringsAsFactors = FALSE)
    items <- sort(unique(c(d$left, d$right)))
    R <- matrix(0, nrow(d), length(items), dimnames = list(NULL, items))
    for (r in seq_len(nrow(d))) {
      a <- d$left[r]; b <- d$right[r]
      if (d$winner[r] == "left") { R[r, a] <- 1; R[r, b] <- 2 }
      else if (d$winner[r] == "right") { R[r, a] <- 2; R[r, b] <- 1 }
      else { R[r, a] <- 1; R[r, b] <- 1 }
    }
    fit <- PlackettLuce(as.rankings(R), npseudo = 0, maxit = 1000, epsilon = 1e-10)
    cf <- coef(fit, log = TRUE)
    cat(format(cf, digits = 15), sep = "\\n")
    """
    values = _r_numbers(df, tmp_path, script)
    k = 4
    worth, tie = values[:k], np.exp(values[k])  # log-worths, then log(delta)
    fit = fit_bradley_terry(df, model="davidson")
    np.testing.assert_allclose(_by_name(fit.table)["score"], worth - worth.mean(), atol=1e-6)
    assert fit.fits["tie_parameter"].iloc[0] == pytest.approx(tie, rel=1e-6)


def test_bradley_terry_matches_r_bradleyterry2(tmp_path):
    """Scores and standard errors of contrasts with the first candidate, as BTm reports them."""
    need_r_package("BradleyTerry2", "apt r-cran-bradleyterry2")
    df = _simulate(12, "davidson", k=5, n=400, tie=0.0)
    script = """
    suppressMessages(library(BradleyTerry2))
    d <- read.csv("{path}", stringsAsFactors = FALSE)
    lv <- sort(unique(c(d$left, d$right)))
    d$p1 <- factor(d$left, levels = lv); d$p2 <- factor(d$right, levels = lv)
    d$w1 <- as.integer(d$winner == "left"); d$w2 <- as.integer(d$winner == "right")
    fit <- BTm(cbind(w1, w2), p1, p2, data = d, control = glm.control(epsilon = 1e-14))
    s <- summary(fit)$coefficients
    cat(format(c(s[, 1], s[, 2]), digits = 15), sep = "\\n")
    """
    values = _r_numbers(df, tmp_path, script)
    est, se = values[:4], values[4:]
    fit = fit_bradley_terry(df)
    s = _by_name(fit.table)["score"].to_numpy()
    c = fit.covariance[None].to_numpy()
    np.testing.assert_allclose(s[1:] - s[0], est, atol=1e-10)
    np.testing.assert_allclose(np.sqrt(np.diag(c)[1:] + c[0, 0] - 2 * c[1:, 0]), se, rtol=1e-8)


@pytest.mark.parametrize("model", ["davidson", "rao-kupper"])
def test_only_ties_fall_back_to_the_penalty(model):
    df = pd.DataFrame({"instance": "i", "left": ["A", "A", "B"], "right": ["B", "C", "C"],
                       "winner": "tie"})  # fmt: skip
    fit = fit_bradley_terry(df, model=model)
    info = fit.fits.iloc[0]
    assert not info["mle_exists"] and info["regularized"] and info["alpha"] == 0.1
    assert info["problem"] == "every comparison is a tie: the tie parameter is infinite"
    np.testing.assert_allclose(fit.table["score"], 0.0, atol=1e-12)  # symmetric data
    assert np.isfinite(info["tie_parameter"]) and info["tie_parameter"] > 1
    with pytest.raises(InputError, match=r"^the .* maximum-likelihood estimate does not exist "
                       r"\(every comparison is a tie"):  # fmt: skip
        fit_bradley_terry(df, model=model, alpha=0)


def _by_name(table):
    """The table in candidate order, as the references (and the covariance) list them."""
    return table.sort_values("candidate", ignore_index=True)
