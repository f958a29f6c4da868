"""Private: turn a comparisons table into index arrays and win matrices."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rrmap.errors import InputError
from rrmap.rank.comparisons import validate_comparisons

TIES = ("half", "exclude")


@dataclass
class Outcomes:
    """Comparisons of one group, encoded."""

    candidates: np.ndarray  # names, sorted
    left: np.ndarray  # int index into candidates
    right: np.ndarray
    score_left: np.ndarray  # 1 left won, 0 right won, 0.5 tie
    n_ties: int

    @property
    def k(self) -> int:
        return len(self.candidates)

    def for_fit(self, ties: str) -> Outcomes:
        """The outcomes a model sees: ties kept as halves or excluded."""
        if ties == "half" or self.n_ties == 0:
            return self
        keep = self.score_left != 0.5
        return Outcomes(
            self.candidates, self.left[keep], self.right[keep], self.score_left[keep], 0
        )

    def win_matrix(self) -> np.ndarray:
        """``W[i, j]``: wins of i over j (a tie adds 0.5 to both)."""
        w = np.zeros((self.k, self.k))
        np.add.at(w, (self.left, self.right), self.score_left)
        np.add.at(w, (self.right, self.left), 1.0 - self.score_left)
        return w


def check_ties(ties: str) -> None:
    if ties not in TIES:
        raise InputError(f"ties must be one of {', '.join(TIES)}, got {ties!r}")


def encode(df: pd.DataFrame) -> Outcomes:
    """Encode one group's comparisons (already validated), ties as 0.5."""
    names = np.unique(np.concatenate([df["left"].to_numpy(str), df["right"].to_numpy(str)]))
    left = np.searchsorted(names, df["left"].to_numpy(str))
    right = np.searchsorted(names, df["right"].to_numpy(str))
    winner = df["winner"].to_numpy(str)
    score = np.where(winner == "left", 1.0, np.where(winner == "right", 0.0, 0.5))
    is_tie = winner == "tie"
    return Outcomes(names, left, right, score, int(is_tie.sum()))


def groups(df: pd.DataFrame, by: str | None) -> Iterator[tuple[Any, pd.DataFrame]]:
    """Yield ``(key, sub-table)``; key is ``None`` when *by* is ``None``."""
    if by is None:
        yield None, df
        return
    if by not in df.columns:
        raise InputError(f"column {by!r} (by) not in the comparisons table")
    yield from df.groupby(by, sort=True, observed=True)


def prepare(df: pd.DataFrame, by: str | None, ties: str) -> pd.DataFrame:
    check_ties(ties)
    clean = validate_comparisons(df)
    if len(clean) == 0:
        raise InputError("the comparisons table is empty")
    check_by(clean, by)
    return clean


def check_by(df: pd.DataFrame, by: str | None) -> None:
    """The grouping column exists and has no missing values (no row may vanish)."""
    if by is None:
        return
    if by not in df.columns:
        raise InputError(f"column {by!r} (by) not in the comparisons table")
    missing = df[by].isna().to_numpy()
    if missing.any():
        rows = np.flatnonzero(missing)
        shown = ", ".join(map(str, rows[:20])) + (" ..." if len(rows) > 20 else "")
        raise InputError(f"column {by!r} (by): missing value in {len(rows)} rows ({shown})")


def counts_table(out: Outcomes) -> pd.DataFrame:
    """Wins, losses, ties and comparisons per candidate (ties always counted)."""
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
    return pd.DataFrame(
        {
            "wins": wins.astype(int),
            "losses": losses.astype(int),
            "ties": n_tie.astype(int),
            "n_comparisons": (wins + losses + n_tie).astype(int),
        }
    )
