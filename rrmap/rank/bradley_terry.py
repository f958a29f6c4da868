"""Bradley–Terry rankings by maximum likelihood, with standard errors.

The model: candidate *i* beats *j* with probability
``exp(θ_i) / (exp(θ_i) + exp(θ_j))`` (ArtCoT paper eq. 2 with ``Q_i = exp(θ_i)``).
Scores are on the natural-log odds scale and centred to sum to zero, so a
difference of 1 between two candidates means odds of e ≈ 2.72 to 1.

The maximum-likelihood estimate exists if and only if the directed "beat"
graph (an arc i → j when i won against j at least once) is strongly
connected (Zermelo 1929; Ford 1957). When it is not — a candidate that never
wins or never loses, or groups of candidates that never lost to the rest —
some scores run off to ±∞. The fit then says so and, unless told
otherwise, maximises a penalised likelihood instead (a Gaussian prior
``θ ~ N(0, 1/alpha)``), which always has a unique, finite solution.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.sparse.csgraph import connected_components
from scipy.special import expit, log_expit

from rrmap.errors import InputError
from rrmap.rank._outcomes import Outcomes, counts_table, encode, groups, prepare

__all__ = ["BradleyTerryFit", "fit_bradley_terry", "mle_existence"]

_Z95 = 1.959963984540054


@dataclass(frozen=True)
class BradleyTerryFit:
    """Result of :func:`fit_bradley_terry`.

    Attributes
    ----------
    table : DataFrame
        One row per candidate (and group, when fitted ``by`` a column):
        ``candidate``, ``score`` (θ, centred), ``se`` (its standard error),
        ``ci_low``/``ci_high`` (score ± 1.96 se), ``rank`` (1 = best; equal
        scores share the lowest rank), ``wins``, ``losses``, ``ties``,
        ``n_comparisons``.
    fits : DataFrame
        One row per group: ``n_candidates``, ``n_comparisons``, ``n_ties``,
        ``ties`` (how ties entered the fit), ``mle_exists``, ``problem`` (why
        the MLE does not exist, empty if it does), ``regularized``,
        ``alpha``, ``log_likelihood`` (unpenalised), ``iterations``,
        ``converged`` (Newton's method reached a vanishing gradient).
    covariance : dict
        Group key (``None`` when not grouped) → covariance matrix of the
        scores as a DataFrame indexed by candidate.
    by : str or None
        The grouping column.

    Examples
    --------
    >>> import pandas as pd
    >>> from rrmap.rank import fit_bradley_terry
    >>> df = pd.DataFrame({"instance": "i", "left": ["A"] * 4, "right": ["B"] * 4,
    ...                    "winner": ["left", "left", "left", "right"]})
    >>> fit = fit_bradley_terry(df)
    >>> fit.regularized
    False
    >>> round(float(fit.table.score.iloc[0] - fit.table.score.iloc[1]), 4)  # log(3/1)
    1.0986
    """

    table: pd.DataFrame
    fits: pd.DataFrame
    covariance: dict[Any, pd.DataFrame] = field(repr=False)
    by: str | None = None

    @property
    def regularized(self) -> bool:
        """Whether any group was fitted with a penalty."""
        return bool(self.fits["regularized"].any())

    @property
    def notes(self) -> list[str]:
        """Human-readable lines about groups whose MLE does not exist."""
        lines = []
        for _, row in self.fits.iterrows():
            if not row["converged"]:
                where = f"{self.by}={row[self.by]}: " if self.by else ""
                lines.append(f"{where}Newton's method did not converge in "
                             f"{row['iterations']} iterations")  # fmt: skip
            if not row["mle_exists"]:
                where = f"{self.by}={row[self.by]}: " if self.by else ""
                how = (
                    f"fitted with a Gaussian penalty, alpha={row['alpha']:g}"
                    if row["regularized"]
                    else "not fitted"
                )
                lines.append(f"{where}maximum-likelihood estimate does not exist "
                             f"({row['problem']}); {how}")  # fmt: skip
        return lines


def mle_existence(win_matrix: np.ndarray, names: Any = None) -> tuple[bool, str]:
    """Whether the Bradley–Terry MLE exists for a win matrix, and if not, why.

    Parameters
    ----------
    win_matrix : (k, k) array
        ``W[i, j]`` = number of wins of i over j (ties may be halves).
    names : sequence, optional
        Candidate names for the message (default: indices).

    Returns
    -------
    exists : bool
        True iff the graph with an arc i → j whenever ``W[i, j] > 0`` is
        strongly connected.
    problem : str
        Empty when the MLE exists; otherwise names the candidates that never
        win or never lose, or the number of strongly connected components
        (and of disconnected pieces, if the comparison graph itself is not
        connected).

    Examples
    --------
    >>> import numpy as np
    >>> mle_existence(np.array([[0, 2], [1, 0]]))
    (True, '')
    >>> mle_existence(np.array([[0, 2], [0, 0]]), names=["A", "B"])
    (False, 'never wins: B; never loses: A')
    """
    w = np.asarray(win_matrix, dtype=float)
    k = w.shape[0]
    names = list(range(k)) if names is None else list(names)
    if k < 2:
        return False, "fewer than two candidates"
    wins = w.sum(axis=1)
    losses = w.sum(axis=0)
    n_strong, _ = connected_components(w > 0, directed=True, connection="strong")
    if n_strong == 1:
        return True, ""
    parts = []
    never_win = [str(names[i]) for i in np.flatnonzero(wins == 0)]
    never_lose = [str(names[i]) for i in np.flatnonzero(losses == 0)]
    if never_win:
        parts.append("never wins: " + ", ".join(never_win))
    if never_lose:
        parts.append("never loses: " + ", ".join(never_lose))
    n_weak, _ = connected_components((w + w.T) > 0, directed=False)
    if n_weak > 1:
        parts.append(f"comparison graph has {n_weak} disconnected parts")
    if not parts:
        parts.append(f"win graph not strongly connected ({n_strong} components)")
    return False, "; ".join(parts)


def _newton(w: np.ndarray, alpha: float, tol: float = 1e-10, max_iter: int = 200):
    """Maximise Σ W_ij log σ(θ_i − θ_j) − α/2 |θ|²; return θ (centred), info, iterations."""
    k = w.shape[0]
    n = w + w.T
    wins = w.sum(axis=1)
    iu = np.triu_indices(k, 1)
    pairs = n[iu] > 0
    ia, ib = iu[0][pairs], iu[1][pairs]
    w_ab, w_ba, n_ab = w[ia, ib], w[ib, ia], n[ia, ib]

    def objective(theta):
        d = theta[ia] - theta[ib]
        ll = float(np.sum(w_ab * log_expit(d) + w_ba * log_expit(-d)))
        return ll - 0.5 * alpha * float(theta @ theta), ll

    def info(theta):
        d = theta[ia] - theta[ib]
        p = expit(d)
        v = n_ab * p * (1 - p)
        lap = np.zeros((k, k))
        lap[ia, ib] = -v
        lap[ib, ia] = -v
        lap[np.diag_indices(k)] = -lap.sum(axis=1)
        expected = np.zeros(k)
        np.add.at(expected, ia, n_ab * p)
        np.add.at(expected, ib, n_ab * (1 - p))
        return lap, wins - expected

    theta = np.zeros(k)
    f, _ = objective(theta)
    ones = np.full((k, k), 1.0 / k)
    # the gradient is a sum over comparisons: scale the tolerance with their number
    tol = tol * max(1.0, float(n_ab.sum()))
    converged = False
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007
        lap, grad = info(theta)
        grad = grad - alpha * theta
        if np.max(np.abs(grad)) < tol:
            converged = True
            break
        h = lap + alpha * np.eye(k) if alpha > 0 else lap + ones
        step = np.linalg.solve(h, grad)
        t = 1.0
        while True:
            cand = theta + t * step
            f_new, _ = objective(cand)
            if f_new >= f - 1e-12 or t < 1e-8:
                break
            t /= 2
        theta, f = cand, f_new
    theta = theta - theta.mean()
    lap, _ = info(theta)
    _, ll = objective(theta)
    return theta, lap, ll, it, converged


def _fit_group(out: Outcomes, alpha: float | None, fallback_alpha: float, ties: str):
    used = out.for_fit(ties)
    w = used.win_matrix()
    exists, problem = mle_existence(w, used.candidates)
    if alpha is None:
        a = 0.0 if exists else fallback_alpha
    else:
        a = float(alpha)
    if a == 0.0 and not exists:
        raise InputError(
            f"the Bradley-Terry maximum-likelihood estimate does not exist ({problem}); "
            "use alpha > 0 (or the default alpha=None) for a regularised fit"
        )
    theta, lap, ll, it, converged = _newton(w, a)
    k = out.k
    cov = np.linalg.pinv(lap, hermitian=True) if a == 0 else np.linalg.inv(lap + a * np.eye(k))
    return (
        theta,
        cov,
        {
            "n_candidates": k,
            "n_comparisons": len(out.left),
            "n_ties": out.n_ties,
            "ties": ties if out.n_ties else "none",
            "mle_exists": exists,
            "problem": problem,
            "regularized": a > 0,
            "alpha": a,
            "log_likelihood": ll,
            "iterations": it,
            "converged": converged,
        },
    )


def fit_bradley_terry(
    comparisons: pd.DataFrame,
    *,
    by: str | None = None,
    ties: str = "half",
    alpha: float | None = None,
    fallback_alpha: float = 0.1,
) -> BradleyTerryFit:
    """Fit a Bradley–Terry model to a comparisons table.

    Parameters
    ----------
    comparisons : DataFrame
        A comparisons table (see :func:`rrmap.rank.validate_comparisons`).
    by : str, optional
        Fit one model per value of this column (e.g. ``"instance"`` for
        per-instance rankings). Default: one model for all rows (e.g. a
        per-method ranking pooled over instances).
    ties : {"half", "exclude"}, default "half"
        ``"half"``: a tie counts as half a win for each side (fractional
        counts in the binomial likelihood); ``"exclude"``: ties are
        left out of the fit — they are still counted in the table's ``ties``
        column and in ``fits.n_ties``.
    alpha : float, optional
        Precision of a Gaussian prior ``θ ~ N(0, 1/alpha)`` (penalty
        ``alpha/2 · Σθ²``). ``None`` (default): plain maximum likelihood when
        the MLE exists, else ``fallback_alpha``. ``0``: maximum likelihood
        only — an :class:`~rrmap.errors.InputError` if it does not exist.
        A positive value: always penalised.
    fallback_alpha : float, default 0.1
        Penalty used when ``alpha`` is None and the MLE does not exist
        (prior sd ≈ 3.2 on the log-odds scale: weak, but keeps scores finite).

    Returns
    -------
    BradleyTerryFit
        ``.table`` (candidate, score, se, ci_low, ci_high, rank, wins,
        losses, ties, n_comparisons), ``.fits`` (one row per group with
        ``mle_exists``, ``problem``, ``regularized``, ``alpha``) and
        ``.covariance``.

    Notes
    -----
    Standard errors come from the observed information (the Hessian of the
    log-likelihood). Under the sum-to-zero constraint the covariance of the
    scores is the Moore–Penrose inverse of the information matrix J; with a
    penalty it is ``(J + alpha·Id)⁻¹``, the Laplace approximation to the
    posterior — an approximation, most of all for candidates that never
    win or never lose. The standard error of a difference ``θ_i − θ_j``
    needs the covariance (``.covariance``), not just the two ``se``.

    Examples
    --------
    >>> import pandas as pd
    >>> from rrmap.rank import fit_bradley_terry
    >>> df = pd.DataFrame({
    ...     "instance": "i",
    ...     "left":   ["A", "A", "B", "B", "C", "C"],
    ...     "right":  ["B", "C", "C", "A", "A", "B"],
    ...     "winner": ["left", "left", "left", "right", "left", "right"]})
    >>> fit = fit_bradley_terry(df)
    >>> fit.table[["candidate", "rank", "wins", "losses"]]
      candidate  rank  wins  losses
    0         A     1     3       1
    1         B     2     2       2
    2         C     3     1       3
    >>> never = df.assign(winner="left").iloc[:2]  # A beats B and C: no MLE
    >>> fit = fit_bradley_terry(never)
    >>> fit.regularized, fit.notes[0]
    (True, 'maximum-likelihood estimate does not exist (never wins: B, C; never loses: A); \
fitted with a Gaussian penalty, alpha=0.1')
    """
    clean = prepare(comparisons, by, ties)
    if alpha is not None and (not np.isfinite(alpha) or alpha < 0):
        raise InputError(f"alpha must be a finite number >= 0, got {alpha!r}")
    if not np.isfinite(fallback_alpha) or fallback_alpha <= 0:
        raise InputError(f"fallback_alpha must be > 0, got {fallback_alpha!r}")
    tables, rows, covs = [], [], {}
    for key, sub in groups(clean, by):
        out = encode(sub)
        try:
            theta, cov, info = _fit_group(out, alpha, fallback_alpha, ties)
        except InputError as exc:
            if by is None:
                raise
            raise InputError(f"{by}={key}: {exc}") from None
        se = np.sqrt(np.clip(np.diag(cov), 0, None))
        t = pd.DataFrame(
            {
                "candidate": out.candidates.astype(object),
                "score": theta,
                "se": se,
                "ci_low": theta - _Z95 * se,
                "ci_high": theta + _Z95 * se,
            }
        )
        t["rank"] = (-t["score"].round(10)).rank(method="min").astype(int)
        t = pd.concat([t, counts_table(out)], axis=1)
        if by is not None:
            t.insert(0, by, key)
            info = {by: key, **info}
        tables.append(t)
        rows.append(info)
        covs[key] = pd.DataFrame(cov, index=out.candidates, columns=out.candidates)
    table = pd.concat(tables, ignore_index=True)
    table["candidate"] = table["candidate"].astype("str")
    return BradleyTerryFit(table=table, fits=pd.DataFrame(rows), covariance=covs, by=by)
