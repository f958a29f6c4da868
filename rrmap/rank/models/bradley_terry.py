"""Bradley–Terry rankings, with ties as data and bootstrap uncertainty.

The model: candidate *i* beats *j* with probability
``exp(θ_i) / (exp(θ_i) + exp(θ_j))`` (ArtCoT paper eq. 2 with ``Q_i = exp(θ_i)``).
Scores are on the natural-log odds scale and centred to sum to zero, so a
difference of 1 between two candidates means odds of e ≈ 2.72 to 1.

Ties ("both", "neither", or a judge whose two orders disagree) enter in one
of three ways, always named in the output: ``"drop"`` (left out, still
counted), ``"half"`` (half a win each, the convention of several public
leaderboards) or ``"model"``, with a tie parameter:

* **Davidson** (1970): ``P(i ≻ j) = π_i / (π_i + π_j + ν√(π_i π_j))`` and
  ``P(tie) = ν√(π_i π_j) / (…)``, with ``π = e^θ``. ``ν = 0`` is
  Bradley–Terry; at equal scores ``P(tie) = ν / (2 + ν)``.
* **Rao–Kupper** (1967): ``P(i ≻ j) = π_i / (π_i + θ π_j)`` with
  ``θ ≥ 1``; ``θ = 1`` is Bradley–Terry; at equal scores
  ``P(tie) = (θ − 1) / (θ + 1)``.

The maximum-likelihood estimate exists if and only if no direction of the
parameters raises the probability of every observed outcome. For
Bradley–Terry that is strong connectivity of the "beat" graph (Zermelo 1929;
Ford 1957); with ties it is decided by a small linear programme. When the
estimate does not exist — a candidate that never loses, say — some scores
run off to ±∞. The fit then says so and, unless told otherwise, maximises a
penalised likelihood instead (a Gaussian prior ``N(0, 1/alpha)`` on every
parameter), which always has a unique, finite solution.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import ndtri

from rrmap._util.streams import Streams
from rrmap.errors import InputError
from rrmap.rank.data.comparisons import group_sizes
from rrmap.rank.limits import check_memory
from rrmap.rank.models._bootstrap import (
    MIN_BOOTSTRAP_UNITS,
    BootstrapWarning,
    bootstrap_problems,
    progress_bar,
    ranks,
    summarise,
)
from rrmap.rank.models._existence import bradley_terry_existence, tie_model_existence
from rrmap.rank.models._fit import (
    TITLES,
    Options,
    bootstrap_group,
    fit_group,
    group_table,
    jackknife_group,
    memory_needed,
)
from rrmap.rank.models._likelihood import MODELS
from rrmap.rank.models._outcomes import by_rank, encode, group_identity, groups, prepare
from rrmap.rank.models.intervals import check_ci

__all__ = [
    "MIN_BOOTSTRAP_UNITS",
    "MODELS",
    "BootstrapWarning",
    "BradleyTerryFit",
    "fit_bradley_terry",
    "mle_existence",
]


@dataclass(frozen=True)
class BradleyTerryFit:
    """Result of :func:`fit_bradley_terry`.

    Attributes
    ----------
    table : DataFrame
        One row per candidate (and group, when fitted ``by`` a column), in
        reading order — by group, then rank (best first), then name, as the
        command line writes it:
        ``candidate``, ``score`` (θ, centred), ``se`` (its standard error),
        ``ci_low``/``ci_high`` (score ± z·se at ``level``), ``rank`` (1 =
        best; equal scores share the lowest rank), ``rank_ci`` (1 + the
        number of candidates whose interval lies entirely above this one's:
        candidates with overlapping intervals share a rank; the bootstrap
        interval when there is one, else ``ci_low``/``ci_high``); with a
        bootstrap also ``boot_low``/``boot_high`` (interval of the score by the
        ``ci`` method), ``rank_low``/``rank_high`` (interval of the rank by the
        same method, best to worst) and ``p_top{k}`` (share of resamples in which the
        candidate ranks k-th or better); then ``wins``, ``losses``,
        ``ties``, ``n_comparisons``.
    fits : DataFrame
        One row per group: ``model``, ``n_candidates``, ``n_comparisons``,
        ``n_ties``, ``ties`` (how ties entered the fit, ``"none"`` if there
        were none), ``mle_exists``, ``problem`` (why the MLE does not exist,
        empty if it does), ``regularized``, ``alpha``, ``tie_parameter``
        (Davidson's ν or Rao–Kupper's θ, NaN for Bradley–Terry) and
        ``tie_parameter_se``, ``log_likelihood`` (unpenalised),
        ``iterations``, ``converged``, ``level``, ``n_bootstrap``,
        ``bootstrap_by``, ``n_bootstrap_no_mle`` (resamples without an MLE,
        fitted with ``fallback_alpha``), ``ci`` (the interval method; ``"wald"``
        without a bootstrap) and ``seed``.
    covariance : dict
        Group key (``None`` when not grouped) → covariance matrix of the
        scores as a DataFrame indexed by candidate.
    by : str or None
        The grouping column.
    draws : DataFrame or None
        With a bootstrap, every resample's scores: ``[by,] resample,
        candidate, score, rank`` — for custom intervals and plots.

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
    draws: pd.DataFrame | None = field(default=None, repr=False)

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
            if row["model"] != "bradley-terry" and row["n_ties"] == 0:
                where = f"{self.by}={row[self.by]}: " if self.by else ""
                lines.append(f"{where}no ties: the tie parameter is at its boundary and "
                             f"{row['model']} equals Bradley-Terry")  # fmt: skip
            if row["n_bootstrap_no_mle"]:
                where = f"{self.by}={row[self.by]}: " if self.by else ""
                lines.append(f"{where}bootstrap: {row['n_bootstrap_no_mle']} of "
                             f"{row['n_bootstrap']} resamples had no maximum-likelihood "
                             "estimate and were fitted with the fallback penalty")  # fmt: skip
        return lines


def mle_existence(
    win_matrix: np.ndarray, names: Any = None, tie_matrix: np.ndarray | None = None
) -> tuple[bool, str]:
    """Whether the maximum-likelihood estimate exists for a win matrix, and if not, why.

    Parameters
    ----------
    win_matrix : (k, k) array
        ``W[i, j]`` = number of wins of i over j (ties may be halves).
    names : sequence, optional
        Candidate names for the message (default: indices).
    tie_matrix : (k, k) array, optional
        Symmetric tie counts, for a tie model (Davidson, Rao–Kupper). Without
        it (or with no ties) the Bradley–Terry condition applies.

    Returns
    -------
    exists : bool
        Bradley–Terry: True iff the graph with an arc i → j whenever
        ``W[i, j] > 0`` is strongly connected. Tie models: True iff no
        direction of scores and tie parameter raises the probability of every
        observed outcome (a linear programme; see the module notes).
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

    One win and one tie of A against B: A never loses, the tie parameter and
    A's lead grow together without bound.

    >>> mle_existence(np.array([[0, 1], [0, 0]]), names=["A", "B"],
    ...               tie_matrix=np.array([[0, 1], [1, 0]]))
    (False, 'wins and ties admit no finite maximum: A only win or tie against the others; \
never loses: A')
    """
    w = np.asarray(win_matrix, dtype=float)
    names = list(range(w.shape[0])) if names is None else list(names)
    if tie_matrix is None:
        return bradley_terry_existence(w, names)
    return tie_model_existence(w, np.asarray(tie_matrix, dtype=float), names)


def _check(opts: Options, weights: str | None, df: pd.DataFrame, by: str | None) -> None:
    problems = []
    if opts.model not in MODELS:
        problems.append(f"model must be one of {', '.join(MODELS)}, got {opts.model!r}")
    elif opts.ties == "model" and opts.model == "bradley-terry":
        problems.append("ties='model' needs a tie model: model='davidson' or 'rao-kupper'")
    if opts.alpha is not None and (not np.isfinite(opts.alpha) or opts.alpha < 0):
        problems.append(f"alpha must be a finite number >= 0, got {opts.alpha!r}")
    if not np.isfinite(opts.fallback_alpha) or opts.fallback_alpha <= 0:
        problems.append(f"fallback_alpha must be > 0, got {opts.fallback_alpha!r}")
    problems += bootstrap_problems(opts.n_boot, opts.boot_by, opts.level, opts.top_k, df, by)
    problems += check_ci(opts.ci)
    if weights is not None:
        problems.extend(_weight_problems(df, weights))
    if problems:
        raise InputError("; ".join(problems))


def _check_memory(clean: pd.DataFrame, opts: Options, by: str | None,
                  weights: str | None) -> None:  # fmt: skip
    """Refuse a fit whose dense k × k matrices would not fit in memory, before any is made."""
    units = opts.boot_by if opts.n_boot and opts.boot_by != "comparison" else None
    sizes = group_sizes(clean, by, units, weights)
    needed = memory_needed(sizes, opts.model != "bradley-terry", int(opts.n_boot))
    big = sizes.loc[sizes["k"].idxmax()]
    where = f" (largest of {len(sizes)} groups by {by!r})" if by is not None else ""
    boot = f" with {int(opts.n_boot)} bootstrap resamples" if opts.n_boot else ""
    check_memory(
        f"a {TITLES[opts.model]} fit of {big['k']} candidates and {big['n']} comparisons"
        f"{where}{boot}",
        needed,
        "filter candidates (fewer per fit), split the comparisons into instances and fit "
        "each (by='instance', --by instance)" + (", or use fewer resamples" if boot else ""),
    )


def _weight_problems(df: pd.DataFrame, weights: str) -> list[str]:
    if weights not in df.columns:
        return [f"column {weights!r} (weights) not in the comparisons table"]
    w = pd.to_numeric(df[weights], errors="coerce").to_numpy(float)
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if len(bad):
        shown = ", ".join(map(str, bad[:20])) + (" ..." if len(bad) > 20 else "")
        return [f"column {weights!r} (weights): not a finite number >= 0 in {len(bad)} rows "
                f"({shown})"]  # fmt: skip
    return []


def _seed_of(rng) -> int | None:
    return int(rng) if isinstance(rng, int | np.integer) else None


def fit_bradley_terry(
    comparisons: pd.DataFrame,
    *,
    by: str | None = None,
    model: str = "bradley-terry",
    ties: str | None = None,
    alpha: float | None = None,
    fallback_alpha: float = 0.1,
    bootstrap: int = 0,
    bootstrap_by: str = "comparison",
    top_k: int | tuple[int, ...] = (1,),
    level: float = 0.95,
    weights: str | None = None,
    rng: int | np.random.Generator | None = None,
    progress: bool = False,
    position_effect: bool = False,
    ci: str = "percentile",
) -> BradleyTerryFit:
    """Fit a Bradley–Terry model (or Davidson's or Rao–Kupper's, with ties) to comparisons.

    Parameters
    ----------
    comparisons : DataFrame
        A comparisons table (see :func:`rrmap.rank.validate_comparisons`).
    by : str, optional
        Fit one model per value of this column (e.g. ``"instance"`` for
        per-instance rankings). Default: one model for all rows (e.g. a
        per-method ranking pooled over instances).
    model : {"bradley-terry", "davidson", "rao-kupper"}, default "bradley-terry"
        The two tie models add one tie parameter (see the module notes); with
        no ties both equal Bradley–Terry.
    ties : {"drop", "half", "model"}, optional
        ``"drop"``: ties are left out of the fit (still counted in the
        table's ``ties`` column and in ``fits.n_ties``); ``"half"``: a tie
        counts as half a win for each side; ``"model"``: ties are outcomes of
        the tie model. Default: ``"model"`` for a tie model, ``"half"`` for
        Bradley–Terry.
    alpha : float, optional
        Precision of a Gaussian prior ``N(0, 1/alpha)`` on each parameter
        (penalty ``alpha/2 · Σθ²``, plus the same on ``log ν`` or Rao–Kupper's
        ``log θ``). ``None`` (default): plain maximum likelihood when the MLE
        exists, else ``fallback_alpha``. ``0``: maximum likelihood only — an
        :class:`~rrmap.errors.InputError` if it does not exist. A positive
        value: always penalised.
    fallback_alpha : float, default 0.1
        Penalty used when ``alpha`` is None and the MLE does not exist
        (prior sd ≈ 3.2 on the log-odds scale: weak, but keeps scores finite).
    bootstrap : int, default 0
        Number of bootstrap resamples (0: none). Each resample refits the
        model; the table gains percentile intervals of scores and ranks and
        top-k probabilities, and ``rank_ci`` uses the bootstrap intervals.
    bootstrap_by : str, default "comparison"
        The resampling unit: ``"comparison"`` (rows), or a column whose
        values are resampled whole (``"instance"``: comparisons within one
        content/style pair are not independent; ``"annotator"``). One unit
        (in any group) is an :class:`~rrmap.errors.InputError` — every
        resample would be the data itself; fewer than
        :data:`MIN_BOOTSTRAP_UNITS` (20) a :class:`BootstrapWarning`.
    top_k : int or tuple of int, default (1,)
        Ranks for the ``p_top{k}`` columns.
    level : float, default 0.95
        Coverage of ``ci_low``/``ci_high`` and of the bootstrap intervals.
    weights : str, optional
        A column of non-negative comparison weights (e.g. annotator weights
        from :func:`rrmap.rank.annotator_agreement`). Standard errors treat
        weights as counts.
    rng : int, Generator or None
        Seed of the bootstrap (recorded in ``fits.seed`` when an int), or a
        generator that one seed is drawn from. Each group draws from the
        stream of its own identity (``"bootstrap"``, the model, ``by`` and the
        group's value), so its resamples are the same whichever other groups
        are fitted with it (see docs/rank.md, "Random streams").
    progress : bool, default False
        Show a progress bar of the bootstrap (tqdm, on stderr).
    position_effect : bool, default False
        Fit a position effect δ with the scores: every comparison's score
        difference becomes ``θ_left − θ_right + δ`` (BradleyTerry2's
        "home advantage", ``~ player + at.home``). δ is on the log-odds
        scale: for Bradley–Terry and Davidson, between equal candidates the
        odds of a left win against a right win are ``e^δ`` (δ > 0: the judge
        favours the left one). ``fits`` gains ``position_effect``,
        ``position_effect_se`` and the likelihood-ratio test against the same
        model without δ (``position_lr_statistic``, ``position_lr_p``, χ² with
        1 degree of freedom; NaN when either fit needs a penalty). The MLE
        needs pairs shown both ways round in a pattern the scores cannot
        absorb, and no side or candidate that never loses (see
        ``mle_exists``/``problem``).
    ci : {"percentile", "basic", "bca", "wald"}, default "percentile"
        Method of the bootstrap intervals ``boot_low``/``boot_high`` and
        ``rank_low``/``rank_high`` (:func:`rrmap.rank.models.intervals.bootstrap_interval`):
        ``"basic"`` reflects the percentile interval about the estimate
        (``2θ̂ − quantiles``); ``"bca"`` moves its levels by the bias
        correction and the jackknife acceleration over the resampling units
        (whole ``bootstrap_by`` units, else comparisons; one refit per
        distinct unit); ``"wald"`` puts the observed-information interval
        ``ci_low``/``ci_high`` in ``boot_low``/``boot_high`` (and ``rank_ci``),
        the bootstrap then giving only rank intervals (percentile) and top-k
        probabilities. Recorded in ``fits.ci``. See docs/rank.md for the
        coverage of each.

    Returns
    -------
    BradleyTerryFit
        ``.table`` (one row per candidate), ``.fits`` (one row per group),
        ``.covariance`` and, with a bootstrap, ``.draws``.

    Notes
    -----
    Standard errors come from the observed information (the Hessian of the
    log-likelihood). Under the sum-to-zero constraint the covariance of the
    scores is the Moore–Penrose inverse of the information matrix J; with a
    penalty it is ``(J + alpha·Id)⁻¹``, the Laplace approximation to the
    posterior — an approximation, most of all for candidates that never
    win or never lose. The tie parameter's standard error is the delta
    method's, ``ν · se(log ν)``. The standard error of a difference
    ``θ_i − θ_j`` needs the covariance (``.covariance``), not just the two
    ``se``.

    The bootstrap draws each resample's counts of every (pair, outcome)
    cell from one multinomial (comparisons) or a sum over resampled units
    (instances), and refits all resamples together with a batched Newton
    method. Intervals are percentile intervals unless ``ci`` says otherwise;
    BCa refits the data once more per distinct resampling unit (comparisons
    of one pair, outcome and weight are one unit type).

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
    >>> fit.table[["candidate", "rank", "rank_ci", "wins", "losses"]]
      candidate  rank  rank_ci  wins  losses
    0         A     1        1     3       1
    1         B     2        1     2       2
    2         C     3        1     1       3
    >>> never = df.assign(winner="left").iloc[:2]  # A beats B and C: no MLE
    >>> fit = fit_bradley_terry(never)
    >>> fit.regularized, fit.notes[0]
    (True, 'maximum-likelihood estimate does not exist (never wins: B, C; never loses: A); \
fitted with a Gaussian penalty, alpha=0.1')

    Ties as data: with two ties in four comparisons between equals,
    Davidson's ``P(tie) = ν / (2 + ν) = 1/2`` gives ν = 2.

    >>> ties = pd.DataFrame({"instance": "i", "left": "A", "right": "B",
    ...                      "winner": ["left", "right", "tie", "tie"]})
    >>> fit = fit_bradley_terry(ties, model="davidson")
    >>> round(float(fit.fits.tie_parameter.iloc[0]), 6)
    2.0
    """
    if isinstance(top_k, int | np.integer):
        top_k = (int(top_k),)
    if ties is None:
        ties = "half" if model == "bradley-terry" else "model"
    opts = Options(model, ties, alpha, fallback_alpha, bootstrap, bootstrap_by, tuple(top_k),
                   level, bool(position_effect), ci)  # fmt: skip
    clean = prepare(comparisons, by, ties)
    _check(opts, weights, clean, by)
    if weights is not None:
        clean[weights] = pd.to_numeric(clean[weights]).astype(float)
    _check_memory(clean, opts, by, weights)
    streams = Streams.of(rng)
    tables, rows, covs, draws = [], [], {}, []
    bar = progress_bar(
        opts.n_boot * (clean[by].nunique() if by else 1), progress and opts.n_boot > 0
    )
    for key, sub in groups(clean, by):
        where = "" if by is None else f"{by}={key}: "
        stream = streams.within("bootstrap", opts.model, *group_identity(by, key))
        table, info, cov, drawn = _fit_one(sub, opts, weights, stream, where, bar)
        if by is not None:
            table.insert(0, by, key)
            info = {by: key, **info}
            if drawn is not None:
                drawn.insert(0, by, key)
        tables.append(table)
        rows.append({**info, "seed": _seed_of(rng)})
        covs[key] = cov
        if drawn is not None:
            draws.append(drawn)
    if bar is not None:
        bar.close()
    table = by_rank(pd.concat(tables, ignore_index=True) if by is not None else tables[0], by)
    fits = pd.DataFrame(rows)
    drawn = pd.concat(draws, ignore_index=True) if draws else None
    return BradleyTerryFit(table=table, fits=fits, covariance=covs, by=by, draws=drawn)


def _fit_one(sub: pd.DataFrame, opts: Options, weights: str | None, stream: Streams,
             where: str, bar):  # fmt: skip
    """One group: the fit, its table and fit facts, and its bootstrap draws (from the
    group's own *stream*)."""
    out = encode(sub, weights)
    try:
        theta, cov, info = fit_group(out, opts)
    except InputError as exc:
        raise InputError(f"{where}{exc}") from None
    boot = drawn = None
    n_no_mle = 0
    if opts.n_boot:
        units = None if opts.boot_by == "comparison" else sub[opts.boot_by].to_numpy(str)
        scores, n_no_mle = bootstrap_group(out, units, opts, stream.generator(), bar)
        jack, mult = jackknife_group(out, units, opts) if opts.ci == "bca" else (None, None)
        boot = summarise(scores, opts.level, opts.top_k, opts.ci, theta, jack, mult)
        if opts.ci == "wald":
            z = float(ndtri((1 + opts.level) / 2))
            se = np.sqrt(np.clip(np.diag(cov), 0, None))
            boot["boot_low"], boot["boot_high"] = theta - z * se, theta + z * se
        drawn = pd.DataFrame({
            "resample": np.repeat(np.arange(opts.n_boot), out.k),
            "candidate": np.tile(out.candidates.astype(str), opts.n_boot),
            "score": scores.ravel(),
            "rank": ranks(scores).ravel(),
        })  # fmt: skip
    table = group_table(out, theta, cov, opts.level, boot)
    info = {
        **info,
        "level": opts.level,
        "n_bootstrap": int(opts.n_boot),
        "bootstrap_by": opts.boot_by if opts.n_boot else "",
        "n_bootstrap_no_mle": n_no_mle,
        "ci": opts.ci if opts.n_boot else "wald",
    }
    cov_df = pd.DataFrame(cov, index=out.candidates, columns=out.candidates)
    return table, info, cov_df, drawn
