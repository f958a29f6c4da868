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

from rrmap._util.streams import Streams
from rrmap.errors import InputError
from rrmap.rank.data.comparisons import group_sizes
from rrmap.rank.limits import check_count, check_memory
from rrmap.rank.models._bootstrap import (
    bootstrap_problems,
    overlap_rank,
    progress_bar,
    ranks,
    summarise,
)
from rrmap.rank.models._outcomes import (
    Outcomes,
    by_rank,
    counts_table,
    encode,
    group_identity,
    groups,
    prepare,
)

__all__ = ["EloFit", "elo_ratings", "fit_elo"]


@dataclass(frozen=True)
class EloFit:
    """Result of :func:`fit_elo`.

    Attributes
    ----------
    table : DataFrame
        One row per candidate (and group), by group, then rank (best first),
        then name: ``candidate``, ``score`` (mean
        rating over orders), ``spread`` (standard deviation over orders),
        ``q_low``/``q_high`` (2.5 % and 97.5 % quantiles over orders),
        ``rank`` (1 = best, by mean rating), ``rank_ci`` (1 + the number of
        candidates whose interval lies entirely above this one's: the
        bootstrap interval when there is one, else the range over orders),
        with a bootstrap ``boot_low``/``boot_high``, ``rank_low``/
        ``rank_high`` and ``p_top{k}`` (as for Bradley–Terry), then
        ``wins``, ``losses``, ``ties``, ``n_comparisons``.
    ratings : DataFrame
        Long table of every order's final ratings: (group), ``shuffle``,
        ``candidate``, ``rating``.
    draws : DataFrame or None
        With a bootstrap, every resample's ratings: (group), ``resample``,
        ``candidate``, ``score``, ``rank``.
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
    draws: pd.DataFrame | None = None


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
    try:
        check_count("n_shuffles", n_shuffles, "MAX_RESAMPLES", minimum=1)
    except InputError as exc:
        problems.append(str(exc))
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


#: Bootstrap resamples that run Elo side by side at most (memory: chunk × comparisons
#: indices); fewer when they would need more than _CHUNK_BYTES.
_CHUNK = 64
_CHUNK_BYTES = 512_000_000
#: Bytes per comparison and order while Elo runs: the order, the gathered sides and
#: scores, and their flat copies.
_RUN_BYTES = 80


def _boot_chunk(n: int, n_boot: int) -> int:
    return max(1, min(_CHUNK, n_boot, _CHUNK_BYTES // (_RUN_BYTES * max(n, 1))))


def _memory_needed(sizes: pd.DataFrame, n_shuffles: int, n_boot: int) -> int:
    """Bytes :func:`fit_elo` needs, from the groups' sizes, before any order is drawn.

    The largest group's run (every order's comparison indices at once), its
    bootstrap batch, and what every group keeps until the end: the ratings of
    every order and the bootstrap draws (orders or resamples × k rows), copied
    once when the groups are joined.
    """
    row = 64 + int(sizes["label"].max())
    work, kept = [], []
    for k, n in zip(sizes["k"].to_numpy(object), sizes["n"].to_numpy(object), strict=True):
        run = _RUN_BYTES * n_shuffles * n + 48 * n_shuffles * k
        if n_boot:
            run += _RUN_BYTES * _boot_chunk(int(n), n_boot) * n + 120 * n_boot * k
        work.append(run)
        kept.append((n_shuffles + n_boot) * k * row)
    return int(max(work) + 2 * sum(kept))


def _keep(out: Outcomes, ties: str) -> Outcomes:
    if ties == "half" or out.n_ties == 0:
        return out
    keep = out.score_left != 0.5
    return Outcomes(out.candidates, out.left[keep], out.right[keep], out.score_left[keep], 0)


def _bootstrap(out: Outcomes, units, n_boot: int, gen: np.random.Generator, run, bar):
    """Arena-style bootstrap: each resample runs Elo once over rows drawn with replacement.

    ``units`` (per comparison, or None for comparisons themselves) are drawn
    whole; the drawn comparisons are then played in a random order. Resamples
    of whole units differ in length: the shorter ones end with comparisons of
    candidate 0 with itself at score ½, which change no rating.
    """
    n = len(out.left)
    if units is not None:
        codes, inv = np.unique(units, return_inverse=True)
        members = np.argsort(inv, kind="stable")
        starts = np.r_[0, np.cumsum(np.bincount(inv, minlength=len(codes)))]
    r = np.empty((n_boot, out.k))
    chunk = _boot_chunk(n, n_boot)
    for start in range(0, n_boot, chunk):
        size = min(chunk, n_boot - start)
        if units is None:
            idx = gen.integers(0, n, size=(size, n))
        else:
            picks = gen.integers(0, len(codes), size=(size, len(codes)))
            rows = [gen.permutation(np.concatenate([members[starts[u]:starts[u + 1]] for u in p]))
                    for p in picks]  # fmt: skip
            length = max(len(x) for x in rows)
            idx = np.full((size, length), n)  # n: the padding no-op
            for b, x in enumerate(rows):
                idx[b, : len(x)] = x
        left, right = np.r_[out.left, 0][idx], np.r_[out.right, 0][idx]
        r[start : start + size] = run(left, right, np.r_[out.score_left, 0.5][idx])
        if bar is not None:
            bar.update(size)
    return r


def fit_elo(
    comparisons: pd.DataFrame,
    *,
    by: str | None = None,
    k: float = 32.0,
    initial: float = 1500.0,
    scale: float = 400.0,
    n_shuffles: int = 100,
    rng: int | np.random.Generator | None = None,
    ties: str = "half",
    bootstrap: int = 0,
    bootstrap_by: str = "comparison",
    top_k: int | tuple[int, ...] = (1,),
    level: float = 0.95,
    progress: bool = False,
) -> EloFit:
    """Elo ratings averaged over ``n_shuffles`` random orders of the comparisons.

    Parameters
    ----------
    comparisons : DataFrame
        A comparisons table.
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
        Seed of the orders and the bootstrap (recorded in ``params``), or a
        generator that one seed is drawn from. Each group draws its orders and
        its resamples from two streams of its own (``"orders"`` and
        ``"bootstrap"``, ``"elo"``, ``by`` and the group's value): the same
        whichever other groups are rated with it, and the resamples the same
        whatever ``n_shuffles`` (see docs/rank.md, "Random streams").
    ties : {"half", "drop"}, default "half"
        A tie scores ½ for each side, or is left out (still counted in the
        ``ties`` column). Elo has no tie parameter: ``"model"`` is refused.
    bootstrap : int, default 0
        Resamples of the sampling uncertainty, as public arenas compute it:
        each resample draws the comparisons (or whole ``bootstrap_by``
        units) with replacement and runs Elo once over them in a random
        order. Elo is sequential, so this costs one pass per resample
        (resamples advance side by side in chunks).
    bootstrap_by : str, default "comparison"
        The resampling unit: ``"comparison"`` or a column resampled whole.
    top_k, level : int or tuple of int, float
        As for :func:`rrmap.rank.fit_bradley_terry`.
    progress : bool, default False
        Show a progress bar of the bootstrap (tqdm, on stderr).

    Returns
    -------
    EloFit
        ``.table``: candidate, score (mean), spread (sd over orders), q_low,
        q_high, rank, wins, losses, ties, n_comparisons; ``.ratings``: every
        order's final ratings.

    Notes
    -----
    The spread measures only the order dependence of Elo, not sampling
    uncertainty of the comparisons themselves; for that use ``bootstrap``
    or the standard errors of :func:`rrmap.rank.fit_bradley_terry`.

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
    top_k = (int(top_k),) if isinstance(top_k, int | np.integer) else tuple(top_k)
    clean = prepare(comparisons, by, "half")
    problems = _check_ties(ties) + bootstrap_problems(bootstrap, bootstrap_by, level, top_k,
                                                      clean, by)  # fmt: skip
    if problems:
        raise InputError("; ".join(problems))
    _check_memory(clean, by, int(n_shuffles), int(bootstrap), bootstrap_by)
    streams = Streams.of(rng)
    n_groups = clean[by].nunique() if by else 1
    bar = progress_bar(bootstrap * n_groups, progress and bootstrap > 0)
    tables, long, draws = [], [], []
    for key, sub in groups(clean, by):
        full = encode(sub)
        out = _keep(full, ties)

        def run(left, right, score, out=out):
            return _run(left, right, score, out.k, k, initial, scale)

        t = len(out.left)
        group = group_identity(by, key)
        gen = streams.generator("orders", "elo", *group)
        order = gen.permuted(np.broadcast_to(np.arange(t), (int(n_shuffles), t)), axis=1)
        r = run(out.left[order], out.right[order], out.score_left[order])
        tab = _order_table(out, r, n_shuffles)
        lg = pd.DataFrame(
            {
                "shuffle": np.repeat(np.arange(int(n_shuffles)), out.k),
                "candidate": np.tile(out.candidates.astype(object), int(n_shuffles)),
                "rating": r.ravel(),
            }
        )
        boot = None
        if bootstrap:
            units = None if bootstrap_by == "comparison" else sub[bootstrap_by].to_numpy(str)
            if units is not None and ties == "drop":
                units = units[full.score_left != 0.5]
            gen = streams.generator("bootstrap", "elo", *group)
            rb = _bootstrap(out, units, int(bootstrap), gen, run, bar)
            boot = summarise(rb, level, top_k)
            drawn = pd.DataFrame({"resample": np.repeat(np.arange(int(bootstrap)), out.k),
                                  "candidate": np.tile(out.candidates.astype(object),
                                                       int(bootstrap)),
                                  "score": rb.ravel(), "rank": ranks(rb).ravel()})  # fmt: skip
            tab["rank_ci"] = overlap_rank(boot.boot_low.to_numpy(), boot.boot_high.to_numpy())
            tab = pd.concat([tab, boot], axis=1)
        tab = pd.concat([tab, counts_table(full)], axis=1)
        if by is not None:
            tab.insert(0, by, key)
            lg.insert(0, by, key)
            if boot is not None:
                drawn.insert(0, by, key)
        tables.append(tab)
        long.append(lg)
        if boot is not None:
            draws.append(drawn)
    if bar is not None:
        bar.close()
    table = by_rank(pd.concat(tables, ignore_index=True), by)
    ratings = pd.concat(long, ignore_index=True)
    ratings["candidate"] = ratings["candidate"].astype("str")
    params = {
        "k": k,
        "initial": initial,
        "scale": scale,
        "n_shuffles": int(n_shuffles),
        "seed": rng if isinstance(rng, int | np.integer) else None,
        "ties": ties,
        "bootstrap": int(bootstrap),
        "bootstrap_by": bootstrap_by if bootstrap else "",
        "level": level,
    }
    drawn = pd.concat(draws, ignore_index=True) if draws else None
    return EloFit(table=table, ratings=ratings, params=params, draws=drawn)


def _check_memory(clean: pd.DataFrame, by: str | None, n_shuffles: int, n_boot: int,
                  boot_by: str) -> None:  # fmt: skip
    """Refuse a run that would not fit in memory before the first order is drawn."""
    sizes = group_sizes(clean, by, boot_by if n_boot and boot_by != "comparison" else None)
    big = sizes.loc[sizes["n"].idxmax()]
    where = f" (largest of {len(sizes)} groups by {by!r})" if by is not None else ""
    boot = f" and {n_boot} bootstrap resamples" if n_boot else ""
    check_memory(
        f"Elo over {n_shuffles} orders{boot} of {big['k']} candidates and {big['n']} "
        f"comparisons{where}",
        _memory_needed(sizes, n_shuffles, n_boot),
        "use fewer orders (n_shuffles, --shuffles)"
        + (" or resamples" if n_boot else "")
        + ", filter candidates, or split the comparisons into instances (by='instance', "
        "--by instance)",
    )


def _order_table(out: Outcomes, r: np.ndarray, n_shuffles: int) -> pd.DataFrame:
    """Mean rating over orders, its spread and range, and the ranks."""
    tab = pd.DataFrame(
        {
            "candidate": out.candidates.astype(object),
            "score": r.mean(axis=0),
            "spread": r.std(axis=0, ddof=1) if n_shuffles > 1 else np.nan,
            "q_low": np.quantile(r, 0.025, axis=0),
            "q_high": np.quantile(r, 0.975, axis=0),
        }
    )
    tab["rank"] = (-tab["score"].round(8)).rank(method="min").astype(int)
    tab["rank_ci"] = overlap_rank(tab["q_low"].to_numpy(), tab["q_high"].to_numpy())
    return tab


def _check_ties(ties: str) -> list[str]:
    if ties == "model":
        return ["Elo has no tie parameter: ties='model' needs model='davidson' or "
                "'rao-kupper' in fit_bradley_terry; use ties='half' or 'drop'"]  # fmt: skip
    if ties not in ("half", "drop"):
        return [f"ties must be one of drop, half, got {ties!r}"]
    return []
