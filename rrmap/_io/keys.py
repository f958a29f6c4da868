"""Comparison keys of a ratings table (docs/ratings.md): labels as text in Unicode NFC,
where rows are for messages, and the pairing of reference and query intervals.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from rrmap._util.escape import message_text

__all__ = [
    "MAX_LISTED",
    "SHOWN_KEYS",
    "Pairing",
    "Rows",
    "key_codes",
    "merged_labels_text",
    "nfc_labels",
    "nfc_text",
    "pairing",
    "shown",
]

#: How many line numbers, values or keys a single problem lists before summarising.
MAX_LISTED = 30
#: Characters of one key's label in a message before it is cut.
_LABEL_LIMIT = 400


def shown(value: object) -> str:
    """*value* quoted for a message: control and direction characters escaped, long values
    cut (:func:`rrmap._util.escape.message_text`).

    Examples
    --------
    >>> print(shown("a\\u202eb"), shown("x" * 1000)[-18:])
    'a\\\\u202eb' (1000 characters)'
    """
    return repr(message_text(value))


@dataclass
class Rows:
    """Where the rows of the table being validated are, for messages.

    Examples
    --------
    >>> Rows("r.csv", np.array([2, 5, 9]), "line").at(np.array([True, False, True]))
    'lines 2, 9'
    """

    source: str
    lines: np.ndarray
    unit: str

    def at(self, mask_or_idx: np.ndarray) -> str:
        """``lines 2, 5, 9`` (or ``rows …``) for the selected rows, summarised past 30."""
        idx = np.asarray(mask_or_idx)
        nums = self.lines[idx]
        listed = ", ".join(str(int(n)) for n in nums[:MAX_LISTED])
        more = ""
        if len(nums) > MAX_LISTED:
            more = f" … and {len(nums) - MAX_LISTED} more ({len(nums)} in all)"
        return f"{self.unit}{'s' if len(nums) != 1 else ''} {listed}{more}"

    def intervals(
        self, idx: np.ndarray, lo: np.ndarray, hi: np.ndarray, exact: bool = False
    ) -> str:
        """``[60, 40] (line 6), …`` for the rows *idx*, summarised past 30 (every digit of
        the bounds when *exact*)."""
        fmt = repr if exact else "{:g}".format
        listed = ", ".join(
            f"[{fmt(float(lo[i]))}, {fmt(float(hi[i]))}] ({self.unit} {int(self.lines[i])})"
            for i in idx[:MAX_LISTED]
        )
        if len(idx) > MAX_LISTED:
            listed += f" … and {len(idx) - MAX_LISTED} more ({len(idx)} in all)"
        return listed


# --- labels ------------------------------------------------------------------------------


def nfc_text(value: Any) -> Any:
    """A name or label in Unicode NFC (``é`` one character); other values unchanged.

    Examples
    --------
    >>> nfc_text("Cafe\\u0301") == "Caf\\u00e9", nfc_text(None)
    (True, None)
    """
    return unicodedata.normalize("NFC", value) if isinstance(value, str) else value


def nfc_labels(text: pd.Series) -> tuple[pd.Series, list[tuple[str, list[str]]]]:
    """*text* with every label in Unicode NFC (``é`` one character, not ``e`` and an accent),
    and the labels that became one.

    Labels that look the same but are encoded differently (``Café`` typed on one
    computer, ``Cafe`` + U+0301 pasted from another) are the same label. Only the
    distinct labels are looked at; a column of ASCII or NFC labels is returned as it is.

    Returns
    -------
    text : Series
        In the dtype of *text*.
    merged : list of (str, list of str)
        Each label (NFC) that several spellings became, with those spellings.

    Examples
    --------
    >>> out, merged = nfc_labels(pd.Series(["Caf\\u00e9", "Cafe\\u0301", "Bar"]))
    >>> out.tolist() == ["Caf\\u00e9", "Caf\\u00e9", "Bar"], [len(m[1]) for m in merged]
    (True, [2])
    """
    codes, uniques = pd.factorize(text)
    if _arrow_all_nfc(uniques):
        return text, []
    labels = [str(u) for u in uniques]
    if all(u.isascii() or unicodedata.is_normalized("NFC", u) for u in labels):
        return text, []
    normal = [unicodedata.normalize("NFC", u) for u in labels]
    spellings: dict[str, list[str]] = {}
    for label, norm in zip(labels, normal, strict=True):
        spellings.setdefault(norm, []).append(label)
    merged = [(norm, forms) for norm, forms in spellings.items() if len(forms) > 1]
    values = np.asarray([*normal, None], dtype=object)[codes]  # code -1 (missing) → None
    return pd.Series(values, dtype=text.dtype), merged


def _arrow_all_nfc(uniques: object) -> bool:
    """Whether distinct labels held by Arrow are all NFC, checked in Arrow (a column of a
    million keys made as many Python strings to check); False when they are not in Arrow,
    or not all NFC (then looked at one by one)."""
    if getattr(getattr(uniques, "dtype", None), "storage", None) != "pyarrow":
        return False
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = pa.array(uniques)
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        return False
    if pc.all(pc.string_is_ascii(arr)).as_py() is not False:
        return True
    return pc.all(pc.equal(pc.utf8_normalize(arr, "NFC"), arr)).as_py() is not False


def merged_labels_text(merged: list[tuple[str, list[str]]]) -> str:
    """The labels :func:`nfc_labels` made one, for a warning: each as read and as written
    (in ASCII, so that the spellings differ on screen).

    Examples
    --------
    >>> print(merged_labels_text([("Caf\\u00e9", ["Caf\\u00e9", "Cafe\\u0301"])]))
    'Café' (written 'Caf\\xe9' and 'Cafe\\u0301')
    """
    listing = "; ".join(
        f"{shown(norm)} (written " + " and ".join(ascii(message_text(f)) for f in forms) + ")"
        for norm, forms in merged[:MAX_LISTED]
    )
    more = f" … and {len(merged) - MAX_LISTED} more" if len(merged) > MAX_LISTED else ""
    return listing + more


# --- pairing -----------------------------------------------------------------------------

#: Comparison keys a pairing problem lists before summarising (each with its lines).
SHOWN_KEYS = 3


def key_codes(columns: dict[str, pd.Series]) -> np.ndarray:
    """One group id per row for the combined key, numbered in order of first appearance
    (missing values form a group): a factorisation per column, then of the combined codes.

    Examples
    --------
    >>> key_codes({"a": pd.Series(["x", "y", "x"]), "b": pd.Series([1, 1, 1])}).tolist()
    [0, 1, 0]
    """
    gid = np.zeros(len(next(iter(columns.values()))), dtype=np.int64)
    for col in columns.values():
        codes, uniques = pd.factorize(col, use_na_sentinel=False)
        gid, _ = pd.factorize(gid * len(uniques) + codes)
    return gid.astype(np.int64, copy=False)


def _key_label(keys: dict[str, pd.Series], at: int) -> str:
    """``expert=E1, movement=cubism, …`` for row *at*, escaped, cut after about 400
    characters (a value is looked up only when it is shown)."""
    parts: list[str] = []
    size = 0
    for name, col in keys.items():
        part = f"{message_text(name)}={message_text(col.iloc[at])}"
        if size + len(part) > _LABEL_LIMIT and parts:
            parts.append(f"… ({len(keys)} key columns)")
            break
        parts.append(part)
        size += len(part) + 2
    return ", ".join(parts)


@dataclass
class Pairing:
    """How the reference and query intervals of a table pair up.

    ``problems`` lists keys with duplicated intervals (always an error) and, unless
    unpaired rows are to be dropped, the keys without a partner; ``unpaired`` marks the
    rows of keys without a partner (a query interval without a reference, or a reference
    without any query interval) and ``listing`` describes those keys, for the report.
    """

    problems: list[str]
    unpaired: np.ndarray
    listing: list[str]


def _corpora_text(reference: str, queries: list[str]) -> str:
    if len(queries) == 1:
        return f"one {shown(reference)} and one {shown(queries[0])} interval"
    names = ", ".join(shown(q) for q in queries)
    return f"one {shown(reference)} interval and one of each query corpus ({names})"


def pairing(
    keys: dict[str, pd.Series],
    ref: np.ndarray,
    corpus: np.ndarray,
    queries: list[str],
    reference: str,
    rows: Rows,
    *,
    drop: bool = False,
) -> Pairing:
    """Pair every reference interval with the query intervals of the same key.

    A key needs one reference interval and, in each query corpus that rated it, one query
    interval; a query corpus may leave a key out. Duplicates are errors; a key without a
    partner is an error too, unless *drop* (its rows are then marked ``unpaired``).
    Group ids come from one hash grouping; labels are built only for the keys shown
    (the first :data:`SHOWN_KEYS`), so a file with many bad keys fails fast.

    Parameters
    ----------
    keys : dict of Series
        The key columns (rater and categories) of every row.
    ref : ndarray of bool
        Rows holding a reference interval (usable ones only).
    corpus : ndarray of int
        For each row, the position of its query corpus in *queries*, or −1.
    queries, reference : the origin values, for messages.
    rows : Rows
    drop : bool, default False

    Examples
    --------
    >>> keys = {"expert": pd.Series(["E1", "E1"]), "item": pd.Series(["a", "b"])}
    >>> rows = Rows("r.csv", np.array([2, 3]), "line")
    >>> res = pairing(keys, np.array([True, True]), np.array([-1, -1]), ["generated"], "real",
    ...               rows)
    >>> res.problems[0][:52]
    "2 comparison key(s) without one 'real' and one 'gene"
    >>> pairing(keys, np.array([True, True]), np.array([-1, -1]), ["generated"], "real",
    ...         rows, drop=True).unpaired.tolist()
    [True, True]
    """
    n_c = len(queries)
    unpaired = np.zeros(len(ref), dtype=bool)
    sided = ref | (corpus >= 0)
    if not sided.any():
        return Pairing([], unpaired, [])
    every = bool(sided.all())  # the usual case: no copy of the key columns
    gid = key_codes({k: v if every else v[sided] for k, v in keys.items()})
    n_groups = int(gid.max()) + 1
    r_s, c_s = ref[sided], corpus[sided]
    n_ref = np.bincount(gid[r_s], minlength=n_groups)
    n_qry = np.bincount(gid[c_s >= 0] * n_c + c_s[c_s >= 0], minlength=n_groups * n_c)
    n_qry = n_qry.reshape(n_groups, n_c)
    dup = (n_ref > 1) | (n_qry > 1).any(axis=1)
    alone = ~dup & ((n_ref == 0) | (n_qry.sum(axis=1) == 0))
    positions = np.flatnonzero(sided)
    problems = []
    if dup.any():
        problems.append(_duplicates(keys, gid, dup, n_ref, n_qry, queries, reference, positions,
                                    rows))  # fmt: skip
    listing = [
        _unpaired_text(keys, gid, g, n_ref, n_qry, positions, rows)
        for g in np.flatnonzero(alone)[:SHOWN_KEYS]
    ]
    if alone.any():
        unpaired[positions[alone[gid]]] = True
        if not drop:
            n_rows = int(unpaired.sum())
            problems.append(
                f"{int(alone.sum())} comparison key(s) without {_corpora_text(reference, queries)} "
                f"({n_rows} row{'s' if n_rows != 1 else ''}): "
                + "; ".join(listing)
                + _more(int(alone.sum()))
                + " — drop_incomplete=True (--drop-incomplete) drops them, counted and listed"
            )
    return Pairing(problems, unpaired, listing)


def _more(n: int) -> str:
    return f" … and {n - SHOWN_KEYS} more keys" if n > SHOWN_KEYS else ""


def _unpaired_text(
    keys: dict[str, pd.Series],
    gid: np.ndarray,
    g: int,
    n_ref: np.ndarray,
    n_qry: np.ndarray,
    positions: np.ndarray,
    rows: Rows,
) -> str:
    members = np.flatnonzero(gid == g)
    label = _key_label(keys, positions[members[0]])
    if n_ref[g] == 0:
        q = int(n_qry[g].sum())
        what = f"a query but no reference interval ({q} query)"
    else:
        what = "a reference but no query interval"
    return f"[{label}] has {what} on {rows.at(positions[members])}"


def _duplicates(
    keys: dict[str, pd.Series],
    gid: np.ndarray,
    dup: np.ndarray,
    n_ref: np.ndarray,
    n_qry: np.ndarray,
    queries: list[str],
    reference: str,
    positions: np.ndarray,
    rows: Rows,
) -> str:
    bad = np.flatnonzero(dup)
    listed = []
    for g in bad[:SHOWN_KEYS]:
        members = np.flatnonzero(gid == g)
        counts = [f"{int(n_ref[g])} reference"] + [
            f"{int(n)} {shown(q)}" if len(queries) > 1 else f"{int(n)} query"
            for q, n in zip(queries, n_qry[g], strict=True)
            if n or len(queries) == 1
        ]
        label = _key_label(keys, positions[members[0]])
        listed.append(
            f"[{label}] has duplicated intervals ({', '.join(counts)}) on "
            f"{rows.at(positions[members])}"
        )
    return (
        f"{len(bad)} comparison key(s) with more than {_corpora_text(reference, queries)}: "
        + "; ".join(listed)
        + _more(len(bad))
    )
