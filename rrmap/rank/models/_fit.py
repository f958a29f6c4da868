"""Private: one group's paired-comparison fit, its standard errors and its bootstrap."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import ndtri

from rrmap.errors import InputError
from rrmap.rank.models._bootstrap import overlap_rank, resample_counts, unit_types
from rrmap.rank.models._existence import bradley_terry_existence, tie_model_existence
from rrmap.rank.models._likelihood import Pairs, Solution, newton
from rrmap.rank.models._outcomes import (
    Outcomes,
    counts_columns,
    counts_table,
    fold_ties,
    win_and_tie_matrices,
)
from rrmap.rank.models._position import position_existence

TITLES = {"bradley-terry": "Bradley-Terry", "davidson": "Davidson", "rao-kupper": "Rao-Kupper"}


@dataclass(frozen=True)
class Options:
    """What :func:`rrmap.rank.fit_bradley_terry` was asked for."""

    model: str
    ties: str
    alpha: float | None
    fallback_alpha: float
    n_boot: int
    boot_by: str
    top_k: tuple[int, ...]
    level: float
    position: bool = False
    ci: str = "percentile"


def effective_model(model: str, ties: str, counts: np.ndarray) -> str:
    """A tie model with no ties to fit is Bradley–Terry (tie parameter on its boundary)."""
    if model == "bradley-terry" or ties != "model" or counts[..., 2].sum() == 0:
        return "bradley-terry"
    return model


def existence(model: str, pairs: Pairs, counts: np.ndarray, names,
              position: bool = False) -> tuple[bool, str]:  # fmt: skip
    if position:
        return position_existence(pairs, counts, names, model != "bradley-terry")
    w, t = win_and_tie_matrices(pairs, counts)
    if model == "bradley-terry":
        return bradley_terry_existence(w, list(names))
    return tie_model_existence(w, t, list(names))


def _penalty(exists: bool, opts: Options) -> float:
    if opts.alpha is None:
        return 0.0 if exists else opts.fallback_alpha
    return float(opts.alpha)


def _covariance(info: np.ndarray, alpha: float) -> np.ndarray:
    """Observed-information covariance; scores sum to zero (Moore–Penrose inverse)."""
    if alpha == 0:
        return np.linalg.pinv(info, hermitian=True)
    return np.linalg.inv(info + alpha * np.eye(len(info)))


def tie_parameter(model: str, fitted: str, tau: float, var: float) -> tuple[float, float]:
    """ν (Davidson) or θ (Rao–Kupper) and its delta-method standard error."""
    if model == "bradley-terry":
        return np.nan, np.nan
    if fitted == "bradley-terry":  # no ties: ν = 0, θ = 1
        return (0.0 if model == "davidson" else 1.0), np.nan
    value = float(np.exp(tau))  # ν = e^λ; θ = e^η
    return value, value * float(np.sqrt(max(var, 0.0)))


def fit_group(out: Outcomes, opts: Options) -> tuple[np.ndarray, np.ndarray, dict]:
    """Scores, their covariance and the fit's facts for one group."""
    pairs, raw = out.pair_counts(opts.position)
    counts = fold_ties(raw, opts.ties)
    fitted = effective_model(opts.model, opts.ties, counts)
    exists, problem = existence(fitted, pairs, counts, out.candidates, opts.position)
    a = _penalty(exists, opts)
    if a == 0.0 and not exists:
        raise InputError(
            f"the {TITLES[opts.model]} maximum-likelihood estimate does not exist ({problem}); "
            "use alpha > 0 (or the default alpha=None) for a regularised fit"
        )
    sol = newton(pairs, counts[None], fitted, np.array([a]), position=opts.position)
    cov = _covariance(sol.information[0], a)
    k = out.k
    nu, nu_se = tie_parameter(
        opts.model, fitted, sol.tau[0], cov[k, k] if fitted != "bradley-terry" else 0
    )
    info = {
        "model": opts.model,
        "n_candidates": k,
        "n_comparisons": len(out.left),
        "n_ties": out.n_ties,
        "ties": opts.ties if out.n_ties else "none",
        "mle_exists": exists,
        "problem": problem,
        "regularized": a > 0,
        "alpha": a,
        "tie_parameter": nu,
        "tie_parameter_se": nu_se,
        "log_likelihood": float(sol.log_likelihood[0]),
        "iterations": sol.iterations,
        "converged": bool(sol.converged[0]),
    }
    if opts.position:
        info.update(_position_info(out, opts, fitted, sol, cov[-1, -1], a))
    return sol.theta[0], cov[:k, :k], info


def _position_info(out: Outcomes, opts: Options, fitted: str, sol: Solution, var: float,
                   alpha: float) -> dict:  # fmt: skip
    """δ, its standard error and the likelihood-ratio test against the fit without it.

    The test needs both maximum-likelihood estimates: with a penalty it is NaN.
    """
    lr = p = np.nan
    if alpha == 0.0:
        pairs, raw = out.pair_counts()
        counts = fold_ties(raw, opts.ties)
        if existence(fitted, pairs, counts, out.candidates)[0]:
            base = newton(pairs, counts[None], fitted, np.array([0.0]))
            lr = max(0.0, 2.0 * float(sol.log_likelihood[0] - base.log_likelihood[0]))
            from scipy.stats import chi2  # on first use: importing it costs 1.3 s

            p = float(chi2.sf(lr, 1))
    return {
        "position_effect": float(sol.delta[0]),
        "position_effect_se": float(np.sqrt(max(var, 0.0))),
        "position_lr_statistic": lr,
        "position_lr_p": p,
    }


#: Resamples refitted together at most; fewer when their (chunk, m, m) arrays would
#: need more than _CHUNK_BYTES.
_CHUNK = 256
_CHUNK_BYTES = 256_000_000
#: Dense (m, m) float64 arrays alive at once in a Newton step and the covariance
#: (information, its copy, the centring, the identity, the system, the solver's copy...).
_DENSE = 10


def _fit_bytes(m: int, n_pairs: int, batch: int) -> int:
    """Memory of one Newton batch: dense information arrays and per-pair terms."""
    return batch * (_DENSE * 8 * m * m + 20 * 8 * n_pairs)


def _boot_chunk(m: int, n_pairs: int, n_boot: int) -> int:
    return max(1, min(_CHUNK, n_boot, _CHUNK_BYTES // _fit_bytes(m, n_pairs, 1)))


def memory_needed(sizes: pd.DataFrame, tie_model: bool, n_boot: int) -> int:
    """Bytes :func:`rrmap.rank.fit_bradley_terry` needs, from the groups' sizes.

    The largest group's fit, its bootstrap (count arrays of resamples × pairs,
    score arrays of resamples × candidates, one batch of refits) and what is
    kept of every group until the end: its covariance matrix (k × k) and its
    bootstrap draws (resamples × k rows), copied once when the groups are joined.
    """
    k, n, p = sizes["k"].to_numpy(object), sizes["n"].to_numpy(object), sizes["n_pairs"]
    p, types = p.to_numpy(object), sizes["n_types"].to_numpy(object)
    m = k + int(tie_model)
    row = 64 + int(sizes["label"].max())  # one row of the draws table
    work = [_fit_bytes(mi, pi, 1) + 200 * ni for mi, pi, ni in zip(m, p, n, strict=True)]
    kept = [8 * ki * ki + 300 * ki for ki in k]
    if n_boot:
        for i in range(len(work)):
            chunk = _boot_chunk(int(m[i]), int(p[i]), n_boot)
            work[i] += _fit_bytes(m[i], p[i], chunk)
            work[i] += n_boot * (48 * p[i] + 16 * types[i] + 120 * k[i])
            kept[i] += n_boot * k[i] * row
    return int(max(work) + 2 * sum(kept))


def bootstrap_group(out: Outcomes, units: np.ndarray | None, opts: Options,
                    gen: np.random.Generator, bar=None) -> tuple[np.ndarray, int]:  # fmt: skip
    """Scores of ``opts.n_boot`` resamples ``(B, k)``, and how many had no MLE.

    A resample follows the fit's rule (``alpha`` if positive, else plain
    maximum likelihood), except that one whose MLE does not exist is fitted
    with ``fallback_alpha`` even when ``alpha=0``: it is counted instead of
    failing the whole bootstrap.
    """
    pairs, cell = out.pairs(opts.position)
    types, mult = unit_types(cell, out.weights(), units, 3 * len(pairs.a))
    counts = fold_ties(resample_counts(types, mult, opts.n_boot, gen), opts.ties)
    chunk = _boot_chunk(out.k + (opts.model != "bradley-terry") + opts.position, len(pairs.a),
                        opts.n_boot)  # fmt: skip
    scores = np.empty((opts.n_boot, out.k))
    n_no_mle = 0
    for start in range(0, opts.n_boot, chunk):
        part = slice(start, min(start + chunk, opts.n_boot))
        scores[part], missing = _refit(pairs, counts[part], opts, out.k)
        n_no_mle += missing
        if bar is not None:
            bar.update(part.stop - part.start)
    return scores, n_no_mle


def jackknife_group(out: Outcomes, units: np.ndarray | None,
                    opts: Options) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Scores with each resampling unit left out ``(types, k)``, and each type's multiplicity.

    Identical units (comparisons of one pair, outcome and weight) leave the same
    data out, so each distinct type is refitted once and weighted by how many
    units share it: the BCa acceleration of :func:`rrmap.rank.models.intervals.acceleration`.
    A leave-one-out sample that keeps every positive (pair, outcome) cell of an
    existing MLE keeps its existence; the others are checked as resamples are.
    """
    pairs, cell = out.pairs(opts.position)
    types, mult = unit_types(cell, out.weights(), units, 3 * len(pairs.a))
    full = np.asarray(types.T @ mult.astype(float)).ravel()
    n_types = types.shape[0]
    chunk = _boot_chunk(out.k + (opts.model != "bradley-terry") + opts.position, len(pairs.a),
                        n_types)  # fmt: skip
    folded = fold_ties(full.reshape(1, -1, 3), opts.ties)[0]
    model = effective_model(opts.model, opts.ties, folded)
    full_exists = existence(model, pairs, folded, range(out.k), opts.position)[0]
    alpha = _penalty(full_exists, opts)
    sol = newton(pairs, folded[None], model, np.array([alpha]), position=opts.position)
    warm = (model, _parameters(sol))
    scores = np.empty((n_types, out.k))
    for start in range(0, n_types, chunk):
        part = slice(start, min(start + chunk, n_types))
        raw = full[None] - np.asarray(types[part].todense())
        raw = np.clip(raw, 0, None).reshape(len(raw), -1, 3)
        same = ((raw > 0) == (full.reshape(-1, 3) > 0)).all(axis=(1, 2))
        known = np.where(same, int(full_exists), -1)
        scores[part] = _refit(pairs, fold_ties(raw, opts.ties), opts, out.k, known, warm)[0]
    return scores, mult


def _parameters(sol: Solution) -> np.ndarray:
    """The first fit's parameter vector as :func:`newton` orders it: θ, τ (if any), δ (if any)."""
    x = [sol.theta[0]]
    if not np.isnan(sol.tau[0]):
        x.append(sol.tau[:1])
    if sol.delta is not None:
        x.append(sol.delta[:1])
    return np.concatenate(x)


def _refit(pairs: Pairs, counts: np.ndarray, opts: Options, k: int,
           known: np.ndarray | None = None,
           start: tuple[str, np.ndarray] | None = None) -> tuple[np.ndarray, int]:  # fmt: skip
    """Scores of a batch of count arrays ``(n, P, 3)`` and how many had no MLE.

    ``known`` gives, per array, whether its MLE is known to exist (1), not to
    exist (0) or is to be searched (-1, the default). ``start``: a model and the
    parameters Newton starts from for the arrays fitted with that model.
    """
    n = len(counts)
    fitted = np.array([effective_model(opts.model, opts.ties, c) for c in counts])
    # a candidate that never wins or never loses (ties aside) has no Bradley-Terry MLE:
    # a cheap test over the whole batch spares most graph searches on sparse data
    wins = np.zeros((n, k))
    losses = np.zeros((n, k))
    for i, j, c in ((pairs.a, pairs.b, 0), (pairs.b, pairs.a, 1)):
        np.add.at(wins.T, i, counts[..., c].T)
        np.add.at(losses.T, j, counts[..., c].T)
    hopeless = (fitted == "bradley-terry") & ((wins == 0) | (losses == 0)).any(axis=1)
    known = np.full(n, -1) if known is None else known
    rows = zip(fitted, counts, hopeless, known, strict=True)
    exists = np.array([bool(kn) if kn >= 0 else
                       not h and existence(m, pairs, c, range(k), opts.position)[0]
                       for m, c, h, kn in rows])  # fmt: skip
    if opts.alpha:
        alphas = np.full(n, float(opts.alpha))
    else:
        alphas = np.where(exists, 0.0, opts.fallback_alpha)
    scores = np.empty((n, k))
    for model in np.unique(fitted):
        sel = np.flatnonzero(fitted == model)
        x0 = start[1] if start is not None and start[0] == model else None
        scores[sel] = newton(pairs, counts[sel], str(model), alphas[sel],
                             position=opts.position, start=x0).theta  # fmt: skip
    return scores, int((~exists).sum())


def group_table(out: Outcomes, theta: np.ndarray, cov: np.ndarray, level: float,
                boot: pd.DataFrame | None) -> pd.DataFrame:  # fmt: skip
    """One row per candidate: score, se, interval, ranks, bootstrap summaries, counts."""
    z = float(ndtri((1 + level) / 2))
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    columns = {
        "candidate": out.candidates.astype(object),
        "score": theta,
        "se": se,
        "ci_low": theta - z * se,
        "ci_high": theta + z * se,
        "rank": _min_rank(-np.round(theta, 10)),
    }
    low, high = (
        (columns["ci_low"], columns["ci_high"])
        if boot is None
        else (boot.boot_low.to_numpy(), boot.boot_high.to_numpy())
    )
    columns["rank_ci"] = overlap_rank(low, high)
    if boot is None:  # one frame at once: the same as joining the parts below
        return pd.DataFrame({**columns, **counts_columns(out)})
    return pd.concat([pd.DataFrame(columns), boot, counts_table(out)], axis=1)


def _min_rank(x: np.ndarray) -> np.ndarray:
    """Ranks from 1, equal values sharing the lowest (pandas' ``rank(method="min")``)."""
    if np.isnan(x).any():  # pandas' NaN rank, which an int column refuses
        return pd.Series(x).rank(method="min").astype(int).to_numpy()
    return np.searchsorted(np.sort(x), x, side="left") + 1
