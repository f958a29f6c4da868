"""Elo ratings averaged over shuffled match orders.

Elo is an on-line rule: after each comparison the winner takes
``K · (S − E)`` points from the loser, where ``E = 1 / (1 + 10^((R_j − R_i)/scale))``
is the expected score of *i* and ``S`` is 1 for a win, 0 for a loss and ½
for a tie. The result depends on the order of the comparisons, which for
preference annotations is arbitrary; so ratings are computed on ``n_shuffles``
seeded random orders and averaged, and their spread across orders is
reported. With ``Q_i = 10^(R_i/400)`` the ratings are on the paper's scale.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rrmap.errors import InputError
from rrmap.rank._outcomes import counts_table, encode, groups, prepare

__all__ = ["EloFit", "elo_ratings", "fit_elo"]


@dataclass(frozen=True)
class EloFit:
    """Result of :func:`fit_elo`.

    Attributes
    ----------
    table : DataFrame
        One row per candidate (and group): ``candidate``, ``score`` (mean
        rating over orders), ``spread`` (standard deviation over orders),
        ``q_low``/``q_high`` (2.5 % and 97.5 % quantiles over orders),
        ``rank`` (1 = best, by mean rating), ``wins``, ``losses``, ``ties``,
        ``n_comparisons``.
    ratings : DataFrame
        Long table of every order's final ratings: (group), ``shuffle``,
        ``candidate``, ``rating``.
    params : dict
        ``k``, ``initial``, ``scale``, ``n_shuffles``, ``seed``.

    Examples
    --------
    >>> import pandas as pd
    >>> from rrmap.rank import fit_elo
    >>> df = pd.DataFrame({"instance": "i", "left": ["A", "B"], "right": ["B", "A"],
    ...                    "winner": ["left", "right"]})
    >>> fit_elo(df, n_shuffles=10, rng=0).table[["candidate", "rank"]]
      candidate  rank
    0         A     1
    1         B     2
    """

    table: pd.DataFrame
    ratings: pd.DataFrame
    params: dict


def elo_ratings(
    comparisons: pd.DataFrame,
    *,
    k: float = 32.0,
    initial: float = 1500.0,
    scale: float = 400.0,
) -> pd.DataFrame:
    """Run Elo once over the comparisons in the order given.

    Parameters
    ----------
    comparisons : DataFrame
        A comparisons table; all rows are one rating pool.
    k, initial, scale : float
        K-factor, starting rating and logistic scale (400: a 400-point lead
        means 10-to-1 odds).

    Returns
    -------
    DataFrame
        ``candidate`` and ``rating``, sorted by candidate name.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"instance": "i", "left": ["A"], "right": ["B"],
    ...                    "winner": ["left"]})
    >>> elo_ratings(df)  # equal ratings: expected score 1/2, A gains 32 * 1/2
      candidate  rating
    0         A  1516.0
    1         B  1484.0
    """
    _check_params(k, initial, scale, 1)
    clean = prepare(comparisons, None, "half")
    out = encode(clean)
    r = _run(out.left[None, :], out.right[None, :], out.score_left[None, :], out.k, k, initial,
             scale)  # fmt: skip
    return pd.DataFrame({"candidate": out.candidates.astype("str"), "rating": r[0]})


def _check_params(k: float, initial: float, scale: float, n_shuffles: int) -> None:
    problems = []
    if not np.isfinite(k) or k <= 0:
        problems.append(f"k must be > 0, got {k!r}")
    if not np.isfinite(initial):
        problems.append(f"initial must be a finite number, got {initial!r}")
    if not np.isfinite(scale) or scale <= 0:
        problems.append(f"scale must be > 0, got {scale!r}")
    if int(n_shuffles) != n_shuffles or n_shuffles < 1:
        problems.append(f"n_shuffles must be an integer >= 1, got {n_shuffles!r}")
    if problems:
        raise InputError("; ".join(problems))


def _run(left, right, score, n_cand, k, initial, scale):
    """Elo over B orders at once: ``left``/``right``/``score`` are (B, T) arrays.

    The B orders advance together, one comparison per order per step, on a flat
    rating array (order b's candidate i at ``b * n_cand + i``).
    """
    b, t = left.shape
    ratings = np.full(b * n_cand, float(initial))
    offset = (np.arange(b) * n_cand)[:, None]
    il = np.ascontiguousarray((left + offset).T)
    ir = np.ascontiguousarray((right + offset).T)
    target = np.ascontiguousarray(score.T) * k
    c = -np.log(10.0) / scale
    d = np.empty(b)
    rl = np.empty(b)
    rr = np.empty(b)
    for step in range(t):
        a, z = il[step], ir[step]
        ratings.take(a, out=rl)
        ratings.take(z, out=rr)
        # k * expected score of left = k / (1 + 10^((r_right - r_left) / scale))
        np.subtract(rl, rr, out=d)
        d *= c
        np.exp(d, out=d)
        d += 1.0
        np.divide(k, d, out=d)
        np.subtract(target[step], d, out=d)
        ratings[a] = rl + d
        ratings[z] = rr - d
    return ratings.reshape(b, n_cand)


def fit_elo(
    comparisons: pd.DataFrame,
    *,
    by: str | None = None,
    k: float = 32.0,
    initial: float = 1500.0,
    scale: float = 400.0,
    n_shuffles: int = 100,
    rng: int | np.random.Generator | None = None,
) -> EloFit:
    """Elo ratings averaged over ``n_shuffles`` random orders of the comparisons.

    Parameters
    ----------
    comparisons : DataFrame
        A comparisons table. Ties score ½ for each side.
    by : str, optional
        Rate each value of this column separately (e.g. ``"instance"``).
    k : float, default 32
        K-factor: the most a rating moves after one comparison.
    initial : float, default 1500
        Everyone's starting rating (the mean rating stays equal to it).
    scale : float, default 400
        Logistic scale: a lead of ``scale`` points means 10-to-1 odds.
    n_shuffles : int, default 100
        Number of random orders (B). Order 0 is also random; for the order
        of the file use :func:`elo_ratings`.
    rng : int, Generator or None
        Seed or generator for the orders.

    Returns
    -------
    EloFit
        ``.table``: candidate, score (mean), spread (sd over orders), q_low,
        q_high, rank, wins, losses, ties, n_comparisons; ``.ratings``: every
        order's final ratings.

    Notes
    -----
    The spread measures only the order dependence of Elo, not sampling
    uncertainty of the comparisons themselves; for that use the standard
    errors of :func:`rrmap.rank.fit_bradley_terry`.

    Examples
    --------
    >>> import pandas as pd
    >>> from rrmap.rank import fit_elo
    >>> df = pd.DataFrame({"instance": "i",
    ...     "left": ["A", "A", "B", "C"], "right": ["B", "C", "C", "A"],
    ...     "winner": ["left", "left", "left", "tie"]})
    >>> fit = fit_elo(df, n_shuffles=50, rng=1)
    >>> fit.table[["candidate", "rank"]].values.tolist()
    [['A', 1], ['B', 2], ['C', 3]]
    >>> round(float(fit.table["score"].mean()), 6)  # Elo is zero-sum
    1500.0
    """
    _check_params(k, initial, scale, n_shuffles)
    clean = prepare(comparisons, by, "half")
    gen = np.random.default_rng(rng)
    tables, long = [], []
    for key, sub in groups(clean, by):
        out = encode(sub)
        t = len(out.left)
        order = gen.permuted(np.broadcast_to(np.arange(t), (int(n_shuffles), t)), axis=1)
        r = _run(out.left[order], out.right[order], out.score_left[order], out.k, k, initial,
                 scale)  # fmt: skip
        mean = r.mean(axis=0)
        tab = pd.DataFrame(
            {
                "candidate": out.candidates.astype(object),
                "score": mean,
                "spread": r.std(axis=0, ddof=1) if n_shuffles > 1 else np.nan,
                "q_low": np.quantile(r, 0.025, axis=0),
                "q_high": np.quantile(r, 0.975, axis=0),
            }
        )
        tab["rank"] = (-tab["score"].round(8)).rank(method="min").astype(int)
        tab = pd.concat([tab, counts_table(out)], axis=1)
        lg = pd.DataFrame(
            {
                "shuffle": np.repeat(np.arange(int(n_shuffles)), out.k),
                "candidate": np.tile(out.candidates.astype(object), int(n_shuffles)),
                "rating": r.ravel(),
            }
        )
        if by is not None:
            tab.insert(0, by, key)
            lg.insert(0, by, key)
        tables.append(tab)
        long.append(lg)
    table = pd.concat(tables, ignore_index=True)
    table["candidate"] = table["candidate"].astype("str")
    ratings = pd.concat(long, ignore_index=True)
    ratings["candidate"] = ratings["candidate"].astype("str")
    params = {
        "k": k,
        "initial": initial,
        "scale": scale,
        "n_shuffles": int(n_shuffles),
        "seed": rng if isinstance(rng, int | np.integer) else None,
    }
    return EloFit(table=table, ratings=ratings, params=params)
