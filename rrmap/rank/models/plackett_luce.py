"""Plackett–Luce rankings of k-way orderings: a judge orders several candidates at once.

A ranking ``i₁ ≻ i₂ ≻ … ≻ i_m`` of the candidates shown has probability

    ∏_{j<m} exp(θ_{i_j}) / Σ_{l≥j} exp(θ_{i_l})

(Luce 1959; Plackett 1975): the best is chosen from all listed, the next
from the rest, and so on. With two candidates this is Bradley–Terry. Scores
are log-worths centred to sum to zero, on the scale of
:func:`rrmap.rank.fit_bradley_terry`. A partial ranking — only the listed
candidates, best first — uses only the listed order: it is *not* assumed
that the listed candidates beat the ones left out.

The maximum-likelihood estimate exists if and only if the directed graph
with an arc i → j whenever i is ranked above j in some ranking is strongly
connected (Hunter 2004): the Bradley–Terry condition on the implied pairs.
Otherwise the fit says so and maximises a penalised likelihood (a Gaussian
prior ``N(0, 1/alpha)`` on every score).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import logsumexp, ndtri

from rrmap._util.streams import Streams
from rrmap.errors import InputError
from rrmap.rank.data.rankings import split_rankings
from rrmap.rank.limits import check_memory
from rrmap.rank.models._bootstrap import bootstrap_problems, overlap_rank, ranks, summarise
from rrmap.rank.models._existence import bradley_terry_existence
from rrmap.rank.models._outcomes import by_rank, group_identity

__all__ = ["PlackettLuceFit", "fit_plackett_luce"]


@dataclass(frozen=True)
class PlackettLuceFit:
    """Result of :func:`fit_plackett_luce`.

    Attributes
    ----------
    table : DataFrame
        One row per candidate, by rank (best first), then name:
        ``candidate``, ``score`` (centred log-worth), ``se``,
        ``ci_low``/``ci_high``, ``rank``, ``rank_ci``; with a
        bootstrap ``boot_low``/``boot_high``, ``rank_low``/``rank_high``,
        ``p_top{k}``; then ``n_rankings`` (rankings listing it) and
        ``n_first`` (rankings it heads).
    fits : DataFrame
        One row: ``model``, ``n_candidates``, ``n_rankings``, ``mle_exists``,
        ``problem``, ``regularized``, ``alpha``, ``log_likelihood``,
        ``iterations``, ``converged``, ``level``, ``n_bootstrap``,
        ``n_bootstrap_no_mle``, ``seed``.
    covariance : DataFrame
        Covariance of the scores, indexed by candidate.
    draws : DataFrame or None
        With a bootstrap, every resample's scores: ``resample``, ``candidate``, ``score``.

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"ranking": ["A > B > C", "B > A > C", "A > C", "C > B > A"]})
    >>> fit = fit_plackett_luce(r)
    >>> bool(fit.fits["mle_exists"].iloc[0]), list(fit.covariance.index)
    (True, ['A', 'B', 'C'])
    """

    table: pd.DataFrame
    fits: pd.DataFrame
    covariance: pd.DataFrame
    draws: pd.DataFrame | None = None


class _Stages:
    """Every choice of a batch of rankings: chosen item and the set it was chosen from."""

    def __init__(self, rankings: list[np.ndarray], k: int):
        lengths = np.array([len(r) for r in rankings])
        width = int(lengths.max())
        pad = np.full((len(rankings), width), -1)
        for i, r in enumerate(rankings):
            pad[i, : len(r)] = r
        # stage j of ranking i: choose pad[i, j] from pad[i, j:]; the last item is no choice
        rows, cols = np.nonzero(np.arange(width)[None, :] < (lengths - 1)[:, None])
        self.ranking = rows
        self.chosen = pad[rows, cols]
        sets = np.full((len(rows), width), -1)
        for j in range(width):
            shift = cols + j
            ok = shift < width
            sets[ok, j] = pad[rows[ok], shift[ok]]
        self.sets = sets
        self.k = k


def _loglik(theta: np.ndarray, st: _Stages, weight: np.ndarray) -> float:
    th = np.where(st.sets >= 0, theta[np.maximum(st.sets, 0)], -np.inf)
    w = weight[st.ranking]
    return float(np.sum(w * (theta[st.chosen] - logsumexp(th, axis=1))))


def _derivatives(theta: np.ndarray, st: _Stages, weight: np.ndarray):
    k = st.k
    valid = st.sets >= 0
    th = np.where(valid, theta[np.maximum(st.sets, 0)], -np.inf)
    p = np.exp(th - logsumexp(th, axis=1, keepdims=True))
    w = weight[st.ranking]
    grad = np.bincount(st.chosen, weights=w, minlength=k)
    idx = np.maximum(st.sets, 0)
    np.subtract.at(grad, idx[valid], (w[:, None] * p)[valid])
    info = np.zeros((k, k))
    np.add.at(info, (idx[valid], idx[valid]), (w[:, None] * p)[valid])
    # minus the outer products p pᵀ of each stage, summed
    rows = st.sets.shape[1]
    for a in range(rows):
        for b in range(rows):
            ok = valid[:, a] & valid[:, b]
            np.subtract.at(info, (idx[ok, a], idx[ok, b]), w[ok] * p[ok, a] * p[ok, b])
    return grad, info


def _newton(st: _Stages, weight: np.ndarray, alpha: float, tol: float = 1e-10,
            max_iter: int = 200) -> tuple[np.ndarray, np.ndarray, float, int, bool]:  # fmt: skip
    k = st.k
    theta = np.zeros(k)
    f = _loglik(theta, st, weight)
    centring = np.full((k, k), 1.0 / k)
    scale = tol * max(1.0, float(weight.sum()))
    it, converged = 0, False
    for it in range(1, max_iter + 1):  # noqa: B007
        grad, info = _derivatives(theta, st, weight)
        grad = grad - alpha * theta
        if np.max(np.abs(grad)) < scale:
            converged = True
            break
        h = info + (alpha * np.eye(k) if alpha > 0 else centring)
        step = np.linalg.solve(h, grad)
        t = 1.0
        while True:
            cand = theta + t * step
            f_new = _loglik(cand, st, weight) - 0.5 * alpha * cand @ cand
            if f_new >= f - 1e-11 * (1 + abs(f)) or t < 1e-8:
                theta, f = cand, f_new
                break
            t /= 2
    theta = theta - theta.mean()
    _, info = _derivatives(theta, st, weight)
    return theta, info, _loglik(theta, st, weight), it, converged


def _ahead(rankings: list[np.ndarray], k: int) -> np.ndarray:
    """``W[i, j]``: rankings placing i above j."""
    w = np.zeros((k, k))
    by_length: dict[int, list[np.ndarray]] = {}
    for r in rankings:
        by_length.setdefault(len(r), []).append(r)
    for n, same in by_length.items():  # counts: the same sums in any order
        a, b = np.triu_indices(n, 1)
        r = np.asarray(same)
        np.add.at(w, (r[:, a].ravel(), r[:, b].ravel()), 1.0)
    return w


def _fit_once(rankings, weight, k, names, alpha, fallback_alpha):
    exists, problem = bradley_terry_existence(_ahead(rankings, k), names)
    a = (0.0 if exists else fallback_alpha) if alpha is None else float(alpha)
    if a == 0.0 and not exists:
        raise InputError(f"the Plackett-Luce maximum-likelihood estimate does not exist "
                         f"({problem}); use alpha > 0 (or the default alpha=None)")  # fmt: skip
    theta, info, ll, it, conv = _newton(_Stages(rankings, k), weight, a)
    return theta, info, ll, it, conv, exists, problem, a


def fit_plackett_luce(
    rankings: pd.DataFrame,
    *,
    alpha: float | None = None,
    fallback_alpha: float = 0.1,
    bootstrap: int = 0,
    top_k: int | tuple[int, ...] = (1,),
    level: float = 0.95,
    rng: int | np.random.Generator | None = None,
) -> PlackettLuceFit:
    """Fit a Plackett–Luce model to k-way rankings (best first).

    Parameters
    ----------
    rankings : DataFrame
        A column ``ranking`` of ``"A > B > C"`` strings (:func:`rrmap.rank.read_rankings`).
    alpha, fallback_alpha : float
        As in :func:`rrmap.rank.fit_bradley_terry`: ``None`` fits the plain MLE
        when it exists, else a Gaussian penalty ``fallback_alpha``; ``0``
        refuses a fit without an MLE.
    bootstrap : int, default 0
        Resamples of the rankings (with replacement); percentile intervals of
        scores and ranks, top-k probabilities. A resample without an MLE is
        fitted with ``fallback_alpha`` and counted.
    top_k, level, rng
        As in :func:`rrmap.rank.fit_bradley_terry`; the resamples draw from the
        stream ``("bootstrap", "plackett-luce")`` of the seed.

    Returns
    -------
    PlackettLuceFit

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"ranking": ["A > B > C", "B > A > C", "A > C", "C > B > A"]})
    >>> fit = fit_plackett_luce(r)
    >>> fit.table[["candidate", "rank", "n_rankings", "n_first"]]
      candidate  rank  n_rankings  n_first
    0         B     1           3        1
    1         A     2           4        2
    2         C     3           4        1
    """
    if not isinstance(rankings, pd.DataFrame) or "ranking" not in rankings.columns:
        raise InputError("rankings: expected a DataFrame with a 'ranking' column")
    if len(rankings) == 0:
        raise InputError("the rankings table is empty")
    top_k = (int(top_k),) if isinstance(top_k, int | np.integer) else tuple(top_k)
    problems = bootstrap_problems(bootstrap, "comparison", level, top_k, rankings, None)
    if alpha is not None and (not np.isfinite(alpha) or alpha < 0):
        problems.append(f"alpha must be a finite number >= 0, got {alpha!r}")
    if problems:
        raise InputError("; ".join(problems))
    lists = split_rankings(rankings["ranking"], "row", np.arange(len(rankings)), "rankings")
    names = np.unique(np.concatenate([np.asarray(x) for x in lists]))
    k = len(names)
    check_memory(f"a Plackett-Luce fit of {k} candidates", 10 * 8 * k * k,
                 "fewer candidates per fit")  # fmt: skip
    coded = [np.searchsorted(names, x) for x in lists]
    ones = np.ones(len(coded))
    theta, info, ll, it, conv, exists, problem, a = _fit_once(coded, ones, k, list(names), alpha,
                                                              fallback_alpha)  # fmt: skip
    if a == 0:  # the Moore–Penrose inverse of J, whose null space is the shift 1
        ones = np.full((k, k), 1.0 / k)
        cov = np.linalg.inv(info + ones) - ones
    else:
        cov = np.linalg.inv(info + a * np.eye(k))
    boot, drawn, n_no_mle = None, None, 0
    gen = Streams.of(rng).generator("bootstrap", "plackett-luce", *group_identity(None, None))
    if bootstrap:
        scores = np.empty((int(bootstrap), k))
        for b in range(int(bootstrap)):
            w = np.bincount(gen.integers(0, len(coded), len(coded)), minlength=len(coded))
            keep = np.flatnonzero(w)
            sub = [coded[i] for i in keep]
            ok = bradley_terry_existence(_ahead(sub, k), list(names))[0]
            a_b = float(alpha) if alpha else (0.0 if ok else fallback_alpha)
            n_no_mle += int(not ok)
            scores[b] = _newton(_Stages(sub, k), w[keep].astype(float), a_b)[0]
        boot = summarise(scores, level, top_k)
        drawn = pd.DataFrame({"resample": np.repeat(np.arange(int(bootstrap)), k),
                              "candidate": np.tile(names.astype(str), int(bootstrap)),
                              "score": scores.ravel(), "rank": ranks(scores).ravel()})  # fmt: skip
    table = by_rank(_table(names, theta, cov, level, boot, coded), None)
    fits = pd.DataFrame([{
        "model": "plackett-luce", "n_candidates": k, "n_rankings": len(coded),
        "mle_exists": exists, "problem": problem, "regularized": a > 0, "alpha": a,
        "log_likelihood": ll, "iterations": it, "converged": conv, "level": level,
        "n_bootstrap": int(bootstrap), "n_bootstrap_no_mle": n_no_mle,
        "seed": int(rng) if isinstance(rng, int | np.integer) else None,
    }])  # fmt: skip
    cov_df = pd.DataFrame(cov, index=names.astype(str), columns=names.astype(str))
    return PlackettLuceFit(table=table, fits=fits, covariance=cov_df, draws=drawn)


def _table(names, theta, cov, level, boot, coded) -> pd.DataFrame:
    z = float(ndtri((1 + level) / 2))
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    t = pd.DataFrame({"candidate": names.astype(str), "score": theta, "se": se,
                      "ci_low": theta - z * se, "ci_high": theta + z * se})  # fmt: skip
    t["rank"] = (-t["score"].round(10)).rank(method="min").astype(int)
    low, high = (t.ci_low, t.ci_high) if boot is None else (boot.boot_low, boot.boot_high)
    t["rank_ci"] = overlap_rank(low.to_numpy(), high.to_numpy())
    if boot is not None:
        t = pd.concat([t, boot], axis=1)
    k = len(names)
    t["n_rankings"] = np.bincount(np.concatenate(coded), minlength=k)
    t["n_first"] = np.bincount([r[0] for r in coded], minlength=k)
    return t
