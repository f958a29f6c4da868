"""Which corpus each row of a ratings table is about, and what is left out of it
(docs/ratings.md): the reference, the query corpora (every other origin value, or those
named), the rows of corpora not named, and the blank or unpaired rows dropped on request.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import pandas as pd

from rrmap._io.keys import Rows, shown
from rrmap._io.tabular import Table
from rrmap._util.escape import quoted_list
from rrmap.errors import RatingsWarning


class Roles(Protocol):
    """What this module reads of a :class:`rrmap.ratings.RatingsSchema`."""

    origin: str
    reference: str

    @property
    def queries(self) -> tuple[str, ...] | None: ...


__all__ = [
    "SMALL_CORPUS_SHARE",
    "Origins",
    "Roles",
    "drop_rows",
    "leave_out",
    "origins",
    "warn_left_out",
    "warn_small_corpora",
]


@dataclass
class Origins:
    """Which corpus each row is about.

    ``ref`` marks reference rows; ``corpus[i]`` is the position of row i's query corpus in
    ``queries`` (−1 for the reference, a corpus left out, or a missing value); ``left_out``
    marks rows of query corpora not among those named, counted by value in ``excluded``.
    """

    values: pd.Series
    ref: np.ndarray
    corpus: np.ndarray
    queries: list[str]
    left_out: np.ndarray
    excluded: dict[str, int]
    problems: list[str]


def origins(org: pd.Series, sch: Roles, rows: Rows) -> Origins:
    """The reference and query corpora of every row (*org*: the origin column as text),
    and the problems.

    Every value other than the reference is a query corpus (a generator), unless
    ``query`` names some: rows of the others are left out and counted.

    Examples
    --------
    >>> from rrmap.ratings import RatingsSchema
    >>> rows = Rows("r.csv", np.array([2, 3, 4]), "line")
    >>> ori = origins(pd.Series(["real", "sdxl", "mj"]), RatingsSchema(), rows)
    >>> ori.queries, ori.corpus.tolist()
    (['mj', 'sdxl'], [-1, 1, 0])
    """
    values = org.fillna("").to_numpy(dtype=object)
    missing = values == ""
    ref = values == sch.reference
    found = sorted({str(v) for v in pd.unique(values[~missing & ~ref])})
    named = sch.queries
    problems = []
    if missing.any():
        problems.append(f"column {shown(sch.origin)}: missing value on {rows.at(missing)}")
    if not ref.any() and (~missing).any():
        problems.append(
            f"column {shown(sch.origin)}: no row of the reference corpus {shown(sch.reference)}"
            f"; values found: {quoted_list(found)} (name it with reference=, or --reference)"
        )
    if named is None:
        queries = found
    else:
        queries = list(named)
        absent = [q for q in queries if q not in found]
        if absent:
            problems.append(
                f"column {shown(sch.origin)}: no row of the query corpus "
                f"{', '.join(shown(q) for q in absent)}; values found: "
                f"{quoted_list([sch.reference, *found] if ref.any() else found)} "
                "(name the query corpora with query=, or --query)"
            )
    if not found and ref.any():
        problems.append(
            f"column {shown(sch.origin)}: every row is the reference {shown(sch.reference)}: "
            "no query corpus to compare with it"
        )
    position = {q: i for i, q in enumerate(queries)}
    corpus = np.fromiter((position.get(v, -1) for v in values), dtype=np.intp, count=len(values))
    left_out = ~missing & ~ref & (corpus < 0)
    excluded = pd.Series(values[left_out]).value_counts(sort=False).to_dict()
    excluded = {str(k): int(v) for k, v in sorted(excluded.items(), key=lambda kv: str(kv[0]))}
    return Origins(org, ref, corpus, queries, left_out, excluded, problems)


def leave_out(table: Table, ori: Origins) -> tuple[Table, Origins]:
    """The table and origins without the rows of query corpora that were not named."""
    keep = ~ori.left_out
    cells = table.cells.loc[keep].reset_index(drop=True)
    kept = Table(table.header, cells, table.lines[keep], table.source, table.unit, table.info)
    values = ori.values[keep].reset_index(drop=True)
    return kept, Origins(
        values,
        ori.ref[keep],
        ori.corpus[keep],
        ori.queries,
        ori.left_out[keep],
        ori.excluded,
        ori.problems,
    )


def warn_left_out(source: str, ori: Origins, sch: Roles) -> None:
    listing = ", ".join(f"{shown(v)} ({n} row{'s' if n != 1 else ''})" for v, n in
                        ori.excluded.items())  # fmt: skip
    warnings.warn(
        f"{source}: rows of query corpora not among those named "
        f"({', '.join(shown(q) for q in ori.queries)}) are left out: {listing}",
        RatingsWarning,
        stacklevel=3,
    )


#: A query corpus with fewer rows than this share of the largest one is warned about.
SMALL_CORPUS_SHARE = 0.1


def warn_small_corpora(source: str, ori: Origins, sch: Roles) -> None:
    """Warn about a query corpus far smaller than the largest (a typo in the origin
    column makes a corpus of its own when every other value is a query corpus)."""
    if len(ori.queries) < 2 or sch.queries is not None:
        return
    sizes = np.bincount(ori.corpus[ori.corpus >= 0], minlength=len(ori.queries))
    small = [q for q, n in zip(ori.queries, sizes, strict=True) if n < SMALL_CORPUS_SHARE *
             sizes.max()]  # fmt: skip
    if small:
        listing = ", ".join(f"{shown(q)} ({int(sizes[ori.queries.index(q)])} rows)" for q in small)
        warnings.warn(
            f"{source}: column {shown(sch.origin)}: query corpus {listing} is far smaller "
            f"than the largest ({int(sizes.max())} rows): a typo? Every origin value but the "
            f"reference {shown(sch.reference)} is a query corpus; name them with query= "
            "(--query) to leave others out",
            RatingsWarning,
            stacklevel=3,
        )


def drop_rows(
    out: pd.DataFrame,
    blank: np.ndarray,
    unpaired: np.ndarray,
    paired: Any,
    rows: Rows,
) -> pd.DataFrame:
    """*out* without the blank and unpaired rows, which are counted, listed in
    ``attrs["rrmap"]["dropped"]`` and warned about."""
    meta = out.attrs["rrmap"]
    drop = blank | unpaired
    meta["dropped"] = {
        "rows": int(drop.sum()),
        "blank": int(blank.sum()),
        "unpaired": int((unpaired & ~blank).sum()),
        "lines": [int(n) for n in rows.lines[drop]],
        "blank_lines": [int(n) for n in rows.lines[blank]],
        "unpaired_keys": list(paired.listing) if paired is not None else [],
    }
    if not drop.any():
        return out
    kept = out.loc[~drop].reset_index(drop=True)
    kept.attrs = out.attrs
    meta["n_rows"] = len(kept)
    parts = []
    if blank.any():
        parts.append(f"{int(blank.sum())} with a blank interval bound ({rows.at(blank)})")
    if (unpaired & ~blank).any():
        parts.append(
            f"{int((unpaired & ~blank).sum())} without a partner interval "
            f"({rows.at(unpaired & ~blank)})"
        )
    warnings.warn(
        f"{rows.source}: {int(drop.sum())} row(s) dropped (drop_incomplete): " + "; ".join(parts),
        RatingsWarning,
        stacklevel=3,
    )
    return kept
