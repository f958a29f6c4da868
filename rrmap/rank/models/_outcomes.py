"""Private: turn a comparisons table into index arrays and win matrices."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rrmap.errors import InputError
from rrmap.rank.data.comparisons import STR_DTYPE, check_by, validate_comparisons
from rrmap.rank.models._likelihood import Pairs

#: How ties enter a fit: left out, half a win each, or modelled (Davidson, Rao–Kupper).
TIES = ("drop", "half", "model")


@dataclass
class Outcomes:
    """Comparisons of one group, encoded."""

    candidates: np.ndarray  # names, sorted
    left: np.ndarray  # int index into candidates
    right: np.ndarray
    score_left: np.ndarray  # 1 left won, 0 right won, 0.5 tie
    n_ties: int
    weight: np.ndarray | None = None  # per comparison; None: all 1

    @property
    def k(self) -> int:
        return len(self.candidates)

    def weights(self) -> np.ndarray:
        return np.ones(len(self.left)) if self.weight is None else self.weight

    def pairs(self, oriented: bool = False) -> tuple[Pairs, np.ndarray]:
        """The compared pairs ``a < b`` and each comparison's cell ``3·pair + outcome``.

        Outcome 0: ``a`` won, 1: ``b`` won, 2: tie. ``oriented``: pairs as
        shown, ``a`` left and ``b`` right (A-left-B and B-left-A are two pairs),
        for a position effect.
        """
        if oriented:
            a, b = self.left, self.right
        else:
            a = np.minimum(self.left, self.right)
            b = np.maximum(self.left, self.right)
        keys, pair = np.unique(a * self.k + b, return_inverse=True)
        a_won = np.where(self.left == a, self.score_left == 1.0, self.score_left == 0.0)
        outcome = np.where(self.score_left == 0.5, 2, np.where(a_won, 0, 1))
        return Pairs(self.k, keys // self.k, keys % self.k), pair * 3 + outcome

    def pair_counts(self, oriented: bool = False) -> tuple[Pairs, np.ndarray]:
        """The pairs and their (weighted) counts ``(P, 3)``: a won, b won, tie."""
        pairs, cell = self.pairs(oriented)
        counts = np.bincount(cell, weights=self.weights(), minlength=3 * len(pairs.a))
        return pairs, counts.reshape(-1, 3)


def fold_ties(counts: np.ndarray, ties: str) -> np.ndarray:
    """Counts as a model sees them: ties kept (model), split in halves (half) or dropped."""
    if ties == "model":
        return counts
    out = counts.copy()
    if ties == "half":
        out[..., 0] += counts[..., 2] / 2
        out[..., 1] += counts[..., 2] / 2
    out[..., 2] = 0.0
    return out


def win_and_tie_matrices(pairs: Pairs, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``W[i, j]`` wins of i over j and the symmetric tie counts, from pair counts."""
    w = np.zeros((pairs.k, pairs.k))
    t = np.zeros((pairs.k, pairs.k))
    w[pairs.a, pairs.b] = counts[:, 0]
    w[pairs.b, pairs.a] = counts[:, 1]
    t[pairs.a, pairs.b] = counts[:, 2]
    t[pairs.b, pairs.a] = counts[:, 2]
    return w, t


def check_ties(ties: str) -> None:
    if ties not in TIES:
        raise InputError(f"ties must be one of {', '.join(TIES)}, got {ties!r}")


def encode(df: pd.DataFrame, weights: str | None = None) -> Outcomes:
    """Encode one group's comparisons (already validated), ties as 0.5."""
    names, left, right = _candidate_codes(df["left"], df["right"])
    winner = df["winner"].to_numpy(str)
    score = np.where(winner == "left", 1.0, np.where(winner == "right", 0.0, 0.5))
    is_tie = winner == "tie"
    weight = None if weights is None else df[weights].to_numpy(float)
    return Outcomes(names, left, right, score, int(is_tie.sum()), weight)


def _candidate_codes(left: pd.Series, right: pd.Series) -> tuple[np.ndarray, ...]:
    """The sorted names (as numpy strings) and each side's index into them.

    String columns without a missing value are encoded through their distinct
    values (the names converted once each, not once per row); the result is that
    of converting every cell.
    """
    if left.dtype == right.dtype == STR_DTYPE:
        codes, distinct = pd.factorize(np.concatenate([left.to_numpy(), right.to_numpy()]))
        if len(codes) and codes.min() >= 0:
            as_str = np.asarray(distinct, dtype=object).astype(str)
            names = np.unique(as_str)
            where = np.searchsorted(names, as_str)[codes]
            return names, where[: len(left)], where[len(left) :]
    names = np.unique(np.concatenate([left.to_numpy(str), right.to_numpy(str)]))
    return (
        names,
        np.searchsorted(names, left.to_numpy(str)),
        np.searchsorted(names, right.to_numpy(str)),
    )


def groups(df: pd.DataFrame, by: str | None) -> Iterator[tuple[Any, pd.DataFrame]]:
    """Yield ``(key, sub-table)``; key is ``None`` when *by* is ``None``."""
    if by is None:
        yield None, df
        return
    if by not in df.columns:
        raise InputError(f"column {by!r} (by) not in the comparisons table")
    yield from df.groupby(by, sort=True, observed=True)


def group_identity(by: str | None, key: Any) -> tuple[str, str]:
    """A group's part of the identity of its random streams: the column and the value.

    With it a group draws the same numbers whichever other groups are fitted
    with it, and in whichever order (:class:`rrmap._util.streams.Streams`).

    Examples
    --------
    >>> group_identity("instance", 3), group_identity(None, None)
    (('instance', '3'), ('', ''))
    """
    return ("", "") if by is None else (str(by), str(key))


def prepare(df: pd.DataFrame, by: str | None, ties: str) -> pd.DataFrame:
    check_ties(ties)
    clean = validate_comparisons(df)
    if len(clean) == 0:
        raise InputError("the comparisons table is empty")
    check_by(clean, by)
    return clean


def counts_table(out: Outcomes) -> pd.DataFrame:
    """Wins, losses, ties and comparisons per candidate (ties always counted)."""
    return pd.DataFrame(counts_columns(out))


def counts_columns(out: Outcomes) -> dict[str, np.ndarray]:
    """The columns of :func:`counts_table`."""
    k = out.k
    won_left = out.score_left == 1.0
    won_right = out.score_left == 0.0
    tie = out.score_left == 0.5
    wins = np.bincount(out.left[won_left], minlength=k) + np.bincount(
        out.right[won_right], minlength=k
    )
    losses = np.bincount(out.left[won_right], minlength=k) + np.bincount(
        out.right[won_left], minlength=k
    )
    n_tie = np.bincount(out.left[tie], minlength=k) + np.bincount(out.right[tie], minlength=k)
    return {
        "wins": wins.astype(int),
        "losses": losses.astype(int),
        "ties": n_tie.astype(int),
        "n_comparisons": (wins + losses + n_tie).astype(int),
    }


def by_rank(table: pd.DataFrame, by: str | None) -> pd.DataFrame:
    """A ranking table in reading order: by group, then rank (best first), then name.

    Examples
    --------
    >>> t = pd.DataFrame({"candidate": ["A", "B", "C"], "rank": [2, 1, 2]})
    >>> by_rank(t, None)["candidate"].tolist()
    ['B', 'A', 'C']
    """
    if table["candidate"].dtype != STR_DTYPE:
        table = table.assign(candidate=table["candidate"].astype("str"))
    rank = table["rank"].to_numpy()
    if by is None and rank.dtype.kind == "i":  # the stable sort below, on the keys' codes
        names = pd.factorize(table["candidate"], sort=True)[0]
        return table.take(np.lexsort((names, rank))).reset_index(drop=True)
    keys = ([by] if by is not None else []) + ["rank", "candidate"]
    return table.sort_values(keys, kind="stable", ignore_index=True)
