"""Private: likelihoods of paired-comparison models, maximised by a batched Newton method.

The data of one fit are counts per compared pair: for pairs ``(a_p, b_p)``,
``counts[..., p, 0]`` wins of ``a_p``, ``[..., 1]`` wins of ``b_p`` and
``[..., 2]`` ties (weighted counts are fine). A leading axis holds a batch of
fits on the same pairs — bootstrap resamples — which advance together, so a
thousand refits cost a few dozen array operations per Newton step.

With ``d = θ_a − θ_b``, one pair's outcome probabilities are

* Bradley–Terry: ``P(a) = σ(d)``, ``P(b) = σ(−d)`` (no ties);
* Davidson (tie parameter ``ν = e^λ``, the parameter fitted is ``λ``):
  ``P(a) ∝ e^{d/2}``, ``P(b) ∝ e^{−d/2}``, ``P(tie) ∝ ν``;
* Rao–Kupper (``θ_RK = e^η ≥ 1``, the parameter fitted is ``η > 0``):
  ``P(a) = σ(d − η)``, ``P(b) = σ(−d − η)``, ``P(tie) = 1 − P(a) − P(b)``.

With a position effect (``position=True``) the pairs are ordered — ``a_p``
shown on the left, ``b_p`` on the right — and ``d = θ_a − θ_b + δ``: one more
parameter ``δ``, last in the parameter vector, added to every difference.

All three log-likelihoods are concave in the parameters fitted here (``d``
is linear in them), so Newton's method with step halving finds the maximum
when it exists.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.special import expit, log_expit

MODELS = ("bradley-terry", "davidson", "rao-kupper")


@dataclass(frozen=True)
class Pairs:
    """The compared pairs of one group: indices into the candidates, ``a < b``
    (or, for a position effect, ``a`` shown left and ``b`` right)."""

    k: int
    a: np.ndarray
    b: np.ndarray


@dataclass
class Solution:
    """A batch of fits: one row per resample."""

    theta: np.ndarray  # (B, k), centred
    tau: np.ndarray  # (B,), log ν (Davidson), η (Rao–Kupper), nan (Bradley–Terry)
    log_likelihood: np.ndarray  # (B,), without the penalty
    information: np.ndarray  # (B, m, m): minus the Hessian of the log-likelihood
    iterations: int
    converged: np.ndarray  # (B,)
    delta: np.ndarray | None = None  # (B,), the position effect, None without one


def _bradley_terry(d, tau, c, grad):
    wa, wb = c[..., 0], c[..., 1]
    if not grad:
        return wa * log_expit(d) + wb * log_expit(-d)
    p = expit(d)
    zero = np.zeros_like(d)
    return wa - (wa + wb) * p, zero, -(wa + wb) * p * (1 - p), zero, zero


def _davidson(d, lam, c, grad):
    wa, wb, t = c[..., 0], c[..., 1], c[..., 2]
    n = wa + wb + t
    lz = np.logaddexp(np.logaddexp(d / 2, -d / 2), lam)
    if not grad:
        return (wa - wb) * (d / 2) + t * lam - n * lz
    pa, pb, pt = np.exp(d / 2 - lz), np.exp(-d / 2 - lz), np.exp(lam - lz)
    g_d = (wa - wb) / 2 - n * (pa - pb) / 2
    g_t = t - n * pt
    h_dd = -n * ((pa + pb) - (pa - pb) ** 2) / 4
    h_dt = n * (pa - pb) * pt / 2
    h_tt = -n * pt * (1 - pt)
    return g_d, g_t, h_dd, h_dt, h_tt


def _rao_kupper(d, eta, c, grad):
    wa, wb, t = c[..., 0], c[..., 1], c[..., 2]
    if not grad:
        # P(tie) = σ(d + η) σ(η − d) (1 − e^{−2η}): its log splits into three smooth terms
        log_tie = log_expit(d + eta) + log_expit(eta - d) + np.log(-np.expm1(-2 * eta))
        ll = wa * log_expit(d - eta) + wb * log_expit(-d - eta)
        return ll + np.where(t > 0, t * log_tie, 0.0)
    q, v = expit(eta - d), expit(d - eta)  # P(a) = v, 1 - P(a) = q
    s, u = expit(d + eta), expit(-d - eta)  # P(b) = u, 1 - P(b) = s
    r, r2 = v * q, s * u
    g_d = wa * q - wb * s + t * (u - v)
    g_t = -wa * q - wb * s + t * (u + v + 1 / np.tanh(eta) - 1)
    h_dd = -(wa + t) * r - (wb + t) * r2
    h_dt = (wa + t) * r - (wb + t) * r2
    h_tt = -(wa + t) * r - (wb + t) * r2 - t / np.sinh(eta) ** 2
    return g_d, g_t, h_dd, h_dt, h_tt


_TERMS = {"bradley-terry": _bradley_terry, "davidson": _davidson, "rao-kupper": _rao_kupper}


def initial_tau(model: str, counts: np.ndarray) -> np.ndarray:
    """The tie parameter of a tie model that fits the tie rate when all scores are equal."""
    t = counts[..., 2].sum(axis=-1)
    n = counts.sum(axis=(-1, -2))
    rate = np.clip(t / np.where(n > 0, n, 1), 1e-6, 1 - 1e-6)
    if model == "davidson":  # P(tie) = ν / (2 + ν)
        return np.log(2 * rate / (1 - rate))
    return 2 * np.arctanh(rate)  # Rao–Kupper: P(tie) = tanh(η / 2)


class _Problem:
    """Log-likelihood, gradient and information of a batch on fixed pairs."""

    def __init__(self, pairs: Pairs, counts: np.ndarray, model: str, alpha: np.ndarray,
                 position: bool = False):  # fmt: skip
        self.pairs, self.counts, self.model = pairs, counts, model
        self.terms = _TERMS[model]
        self.alpha = alpha
        self.free_tau = model != "bradley-terry"
        self.position = position
        k = pairs.k
        self.m = k + self.free_tau + position
        # sparse: a dense pairs × k incidence matrix alone would be 8 GB for 100,000
        # pairs of 10,000 candidates; transposed, so that products are (k, P) @ (P, B)
        n_pairs = len(pairs.a)
        rows = np.r_[pairs.a, pairs.b]
        cols = np.r_[np.arange(n_pairs), np.arange(n_pairs)]
        vals = np.r_[np.ones(n_pairs), -np.ones(n_pairs)]
        self.incidence_t = sparse.csr_matrix((vals, (rows, cols)), shape=(k, n_pairs))
        # ordered pairs may hold A-left-B and B-left-A: their information terms add up
        # in one unordered cell (a plain assignment would keep only one of them)
        lo, hi = np.minimum(pairs.a, pairs.b), np.maximum(pairs.a, pairs.b)
        keys, inv = np.unique(lo * k + hi, return_inverse=True)
        self.fold = None
        if len(keys) < n_pairs:
            self.fold = sparse.csr_matrix(
                (np.ones(n_pairs), (np.arange(n_pairs), inv)), shape=(n_pairs, len(keys))
            )
            lo, hi = keys // k, keys % k
        self.lo, self.hi = lo, hi

    def _d(self, x):
        th = x[:, : self.pairs.k]
        d = th[:, self.pairs.a] - th[:, self.pairs.b]
        return d + x[:, -1:] if self.position else d

    def _tau(self, x):
        k = self.pairs.k
        return x[:, k : k + 1] if self.free_tau else None

    def value(self, x, rows=slice(None)):
        """(penalised objective, log-likelihood) of batch elements *rows* at *x*."""
        tau = self._tau(x)
        if self.model == "rao-kupper":
            tau = np.where(tau > 0, tau, np.nan)  # outside the parameter space
        with np.errstate(invalid="ignore"):
            ll = self.terms(self._d(x), tau, self.counts[rows], False).sum(axis=1)
        ll = np.where(np.isnan(ll), -np.inf, ll)
        return ll - 0.5 * self.alpha[rows] * np.einsum("bi,bi->b", x, x), ll

    def derivatives(self, x):
        """Gradient of the penalised objective and the unpenalised information J."""
        k = self.pairs.k
        g_d, g_t, h_dd, h_dt, h_tt = self.terms(self._d(x), self._tau(x), self.counts, True)
        nb = x.shape[0]
        grad = np.empty((nb, self.m))
        grad[:, :k] = (self.incidence_t @ g_d.T).T
        info = np.zeros((nb, self.m, self.m))
        h_cell = h_dd if self.fold is None else (self.fold.T @ h_dd.T).T
        info[:, self.lo, self.hi] = h_cell
        info[:, self.hi, self.lo] = h_cell
        diag = np.arange(k)
        info[:, diag, diag] = -info[:, :k, :k].sum(axis=2)
        if self.free_tau:
            grad[:, k] = g_t.sum(axis=1)
            col = -(self.incidence_t @ h_dt.T).T
            info[:, :k, k] = col
            info[:, k, :k] = col
            info[:, k, k] = -h_tt.sum(axis=1)
        if self.position:  # ∂d/∂δ = 1
            grad[:, -1] = g_d.sum(axis=1)
            row = -(self.incidence_t @ h_dd.T).T
            info[:, -1, :k] = row
            info[:, :k, -1] = row
            info[:, -1, -1] = -h_dd.sum(axis=1)
            if self.free_tau:
                info[:, -1, k] = info[:, k, -1] = -h_dt.sum(axis=1)
        grad -= self.alpha[:, None] * x
        return grad, info


def newton(
    pairs: Pairs,
    counts: np.ndarray,
    model: str,
    alpha: np.ndarray,
    tol: float = 1e-10,
    max_iter: int = 200,
    position: bool = False,
    start: np.ndarray | None = None,
) -> Solution:
    """Maximise each batch element's (penalised) log-likelihood.

    ``counts`` is ``(B, P, 3)``; ``alpha`` ``(B,)`` the Gaussian penalty
    ``α/2 |x|²`` on all parameters (scores and, if any, the tie parameter);
    0 means plain maximum likelihood, which must exist. ``position``: ordered
    pairs and a position effect δ (see the module notes). ``start``: the
    parameter vector ``(m,)`` every element starts from (default: zero scores),
    e.g. the data's fit for refits of data with one unit left out.
    """
    counts = np.asarray(counts, dtype=float)
    alpha = np.asarray(alpha, dtype=float)
    prob = _Problem(pairs, counts, model, alpha, position)
    k, m, nb = pairs.k, prob.m, counts.shape[0]
    x = np.zeros((nb, m))
    if start is not None:
        x[:] = start
    elif prob.free_tau:
        x[:, k] = initial_tau(model, counts)
    f, _ = prob.value(x)
    # the gradient is a sum over comparisons: scale the tolerance with their number
    scale = tol * np.maximum(1.0, counts.sum(axis=(1, 2)))
    centring = np.zeros((m, m))
    centring[:k, :k] = 1.0 / k
    converged = np.zeros(nb, dtype=bool)
    eye = np.eye(m)
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007
        grad, info = prob.derivatives(x)
        converged = np.max(np.abs(grad), axis=1) < scale
        if converged.all():
            break
        act = ~converged
        h = info[act] + np.where(alpha[act, None, None] > 0,
                                 alpha[act, None, None] * eye, centring)  # fmt: skip
        step = np.linalg.solve(h, grad[act][..., None])[..., 0]
        x_act, f_act = x[act], f[act]
        t = np.ones(len(step))
        todo = np.ones(len(step), dtype=bool)
        while todo.any():
            cand = x_act[todo] + t[todo, None] * step[todo]
            f_new, _ = prob.value(cand, np.flatnonzero(act)[todo])
            # accept within rounding of the objective, which grows with the comparisons
            slack = 1e-11 * (1.0 + np.abs(f_act[todo]))
            ok = (f_new >= f_act[todo] - slack) | (t[todo] < 1e-8)
            idx = np.flatnonzero(todo)
            x_act[idx[ok]] = cand[ok]
            f_act[idx[ok]] = f_new[ok]
            todo[idx[ok]] = False
            t[todo] /= 2
        x[act], f[act] = x_act, f_act
    x[:, :k] -= x[:, :k].mean(axis=1, keepdims=True)
    _, info = prob.derivatives(x)
    _, ll = prob.value(x)
    tau = x[:, k] if prob.free_tau else np.full(nb, np.nan)
    delta = x[:, -1] if position else None
    return Solution(x[:, :k], tau, ll, info, it, converged, delta)
