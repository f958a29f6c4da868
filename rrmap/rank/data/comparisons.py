"""The comparisons table: tidy two-alternative forced-choice (2AFC) records.

One row per judgement: in group ``instance`` (e.g. one content/style pair),
a judge saw candidates ``left`` and ``right`` and chose ``winner`` — one of
``"left"``, ``"right"`` or ``"tie"``. An ``annotator`` column is optional and
any further columns are kept untouched. Human annotations, LLM judges and the
designs of :mod:`rrmap.rank.data.designs` all use this one table.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from rrmap._io.writing import write_csv
from rrmap._util.atomic import atomic_path
from rrmap._util.escape import message_text
from rrmap.errors import InputError
from rrmap.rank.data.sources import Source, read_input, source_name
from rrmap.rank.limits import MAX_FILE_BYTES

__all__ = [
    "COMPARISON_COLUMNS",
    "WINNERS",
    "FineArtBench",
    "check_by",
    "group_sizes",
    "read_comparisons",
    "read_fineartbench",
    "read_json",
    "record_lines",
    "validate_comparisons",
    "write_comparisons",
]

#: The columns of a comparisons table, in output order; ``instance`` may be left out
#: (one global ranking), the others are required.
COMPARISON_COLUMNS: tuple[str, ...] = ("instance", "left", "right", "winner")
_REQUIRED = ("left", "right", "winner")
#: The allowed values of ``winner``.
WINNERS: tuple[str, ...] = ("left", "right", "tie")

_STRING_COLUMNS = ("instance", "left", "right", "winner", "annotator")
#: How many row numbers one problem lists before summarising.
_MAX_ROWS = 20


def _rows_text(rows: Sequence[int], unit: str) -> str:
    shown = ", ".join(str(r) for r in rows[:_MAX_ROWS])
    more = f" and {len(rows) - _MAX_ROWS} more" if len(rows) > _MAX_ROWS else ""
    return f"{unit}{'s' if len(rows) > 1 else ''} {shown}{more}"


def _raise_problems(source: str, problems: Sequence[str]) -> None:
    if problems:
        n = len(problems)
        head = f"{source}: {n} problem{'s' if n != 1 else ''}: "
        raise InputError(head + "; ".join(problems))


def validate_comparisons(
    df: pd.DataFrame, *, source: str = "<DataFrame>", line_offset: int | None = None
) -> pd.DataFrame:
    """Check a comparisons table and return a clean copy.

    Values of ``instance``, ``left``, ``right``, ``winner`` and ``annotator``
    become strings with surrounding blanks removed; ``winner`` is
    lower-cased. Every problem is collected and reported at once.

    Parameters
    ----------
    df : DataFrame
        Columns ``left``, ``right``, ``winner`` and optionally ``instance``
        (needed only to group, filter or resample by instance) and
        ``annotator``; other columns are kept.
    source : str, default "<DataFrame>"
        Name used in error messages (the file name when reading a file).
    line_offset : int, optional
        If given, problems are reported as file lines ``position + line_offset``
        (2 for a CSV file with one header line); otherwise as DataFrame rows
        (0-based positions).

    Returns
    -------
    DataFrame
        The validated table, same rows and column order.

    Raises
    ------
    rrmap.errors.InputError
        Listing every missing column, empty cell, unknown winner and
        self-comparison with its row or line numbers.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"instance": ["a"], "left": ["x"], "right": ["y"],
    ...                    "winner": [" Left "]})
    >>> validate_comparisons(df)["winner"].tolist()
    ['left']
    >>> bad = df.assign(winner="maybe")
    >>> validate_comparisons(bad)
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: <DataFrame>: 1 problem: column 'winner': value 'maybe' \
is not one of left, right, tie (row 0)
    """
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"{source}: expected a pandas DataFrame, got {type(df).__name__}")
    unit = "line" if line_offset is not None else "row"
    numbers = np.arange(len(df)) + (line_offset if line_offset is not None else 0)
    return _validate(df, source, unit, numbers)


def _validate(df: pd.DataFrame, source: str, unit: str, numbers: np.ndarray) -> pd.DataFrame:
    """:func:`validate_comparisons` reporting row ``i`` as ``unit numbers[i]``."""
    missing = [c for c in _REQUIRED if c not in df.columns]
    if missing:
        _raise_problems(
            source,
            [
                f"missing column{'s' if len(missing) > 1 else ''} "
                + ", ".join(repr(c) for c in missing)
                + f" (found: {', '.join(map(str, df.columns))})"
            ],
        )
    out = df.copy().reset_index(drop=True)
    problems: list[str] = []
    clean: dict[str, np.ndarray] = {}
    for col in _STRING_COLUMNS:
        if col not in out.columns:
            continue
        values = out[col]
        if (cells := _clean_cells(values, col)) is not None:
            clean[col] = cells  # cleaning would give the same column: keep it
            continue
        stripped = values.astype(str).str.strip()
        empty = values.isna() | (stripped == "")
        cleaned = stripped.where(~empty, None)
        if col == "winner":
            cleaned = cleaned.str.lower()
        if empty.any() and col != "annotator":
            rows = numbers[empty.to_numpy()].tolist()
            problems.append(f"column {col!r}: empty value ({_rows_text(rows, unit)})")
        out[col] = cleaned.astype("str") if not empty.any() else cleaned
    if "winner" not in clean:
        problems += _winner_problems(out["winner"], numbers, unit)
    if (same := _self_compared(out, clean)) is not None:
        rows = numbers[same].tolist()
        problems.append(
            f"columns 'left' and 'right': a candidate compared with itself "
            f"({_rows_text(rows, unit)})"
        )
    _raise_problems(source, problems)
    return out


def _winner_problems(winners: pd.Series, numbers: np.ndarray, unit: str) -> list[str]:
    """One problem per value of ``winner`` that is not one of :data:`WINNERS`."""
    problems = []
    bad = winners.notna() & ~winners.isin(WINNERS)
    for value, idx in winners[bad].groupby(winners[bad], sort=True).groups.items():
        rows = numbers[np.asarray(idx)].tolist()
        problems.append(
            f"column 'winner': value {value!r} is not one of {', '.join(WINNERS)} "
            f"({_rows_text(rows, unit)})"
        )
    return problems


def _self_compared(out: pd.DataFrame, clean: dict[str, np.ndarray]) -> np.ndarray | None:
    """Which rows compare a candidate with itself, or None if none does."""
    if "left" in clean and "right" in clean:  # no missing value: compare the strings
        same = clean["left"] == clean["right"]
        return same if same.any() else None
    same = out["left"].notna() & (out["left"] == out["right"])
    return same.to_numpy() if same.any() else None


#: The dtype the cleaning gives a string column (``astype("str")``): pandas' strings.
STR_DTYPE = pd.Series([], dtype="str").dtype


def _plain_edge(c: str) -> bool:
    """A character that no definition of white space strips: printable ASCII
    other than the space, or a letter or digit."""
    return "!" <= c <= "~" or c.isalnum()


def _clean_cells(values: pd.Series, col: str) -> np.ndarray | None:
    """The cells of a string column when cleaning it would change nothing and find no
    problem (the usual case, checked on its distinct values), else None.

    That is: the column already has the cleaned dtype, no cell is missing, and no
    cell is empty or starts or ends with a character that stripping could remove;
    for ``winner``, every cell is one of :data:`WINNERS` (lower case already).
    """
    if values.dtype != STR_DTYPE or values.hasnans:  # then every cell is a str
        return None
    cells = values.to_numpy()
    distinct = set(cells.tolist())
    if col == "winner":
        return cells if distinct <= set(WINNERS) else None
    if "" in distinct:
        return None
    edges = {v[0] for v in distinct} | {v[-1] for v in distinct}
    return cells if all(map(_plain_edge, edges)) else None


def _is_blank(row: list[str]) -> bool:
    """A line pandas skips: nothing, or only blanks."""
    return not row or (len(row) == 1 and row[0].strip(" \t") == "")


def record_lines(source: Source) -> np.ndarray:
    """The physical line (1-based) on which each data record of a CSV file starts.

    Checks that every record has as many fields as the header — a name with
    an unquoted comma would otherwise shift the columns silently, or make
    pandas take the first column for an index — and raises an
    :class:`~rrmap.errors.InputError` naming the lines and their field counts.
    Blank lines are skipped, as pandas does.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "x.csv"
    >>> _ = p.write_text('a,b\\n1,2\\n\\n"x\\ny",3\\n')
    >>> record_lines(p).tolist()
    [2, 4]
    >>> _ = p.write_text("a,b\\n1,2,3\\n4\\n")
    >>> record_lines(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: .../x.csv: 2 problems: line 2 has 3 fields, ... line 3 has 1 field...
    """
    return _record_lines(*read_input(source))


def _record_lines(data: bytes, path: str) -> np.ndarray:
    """:func:`record_lines` of a file's bytes; *path* names it in messages."""
    lines: list[int] = []
    bad: dict[int, list[int]] = {}
    width = None
    try:
        # decoded as it is read: a StringIO of the whole text holds 4 bytes per character
        text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline="")
        reader = csv.reader(text)
        start = 1
        for row in reader:
            if _is_blank(row):
                start = reader.line_num + 1
                continue
            if width is None:
                width = len(row)
            elif len(row) != width:
                bad.setdefault(len(row), []).append(start)
            else:
                lines.append(start)
            start = reader.line_num + 1
    except (csv.Error, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a readable CSV file ({message_text(exc)})") from None
    problems = []
    for n, where in sorted(bad.items(), key=lambda item: item[1][0]):
        head = _rows_text(where, "line")
        verb = "has" if len(where) == 1 else "have"
        problems.append(f"{head} {verb} {n} field{'s' if n != 1 else ''}, the header {width}")
    if problems:
        hints = []
        if any(n > (width or 0) for n in bad):
            hints.append("a value with a comma (e.g. a name 'Smith, J.') must be in double quotes")
        if any(n < (width or 0) for n in bad):
            hints.append("every row needs a field for every column (an empty one: ,,)")
        problems.append(" and ".join(hints) + "; nothing was read")
        raise InputError(f"{path}: {len(problems) - 1} problem{'s' if len(problems) > 2 else ''}"
                         ": " + "; ".join(problems))  # fmt: skip
    return np.asarray(lines, dtype=np.int64)


def read_comparisons(path: Source) -> pd.DataFrame:
    """Read and validate a comparisons CSV file.

    Parameters
    ----------
    path : str, path-like or binary file
        A path, or an open binary file such as ``sys.stdin.buffer`` (named in
        messages by its ``name``). CSV with a header line and columns
        ``left``, ``right``, ``winner`` (``left``, ``right`` or ``tie``),
        optionally ``instance`` (leave it out for one global ranking),
        ``annotator`` and anything else. A value with a comma must be in double
        quotes.

    Returns
    -------
    DataFrame
        The validated table (see :func:`validate_comparisons`).

    Raises
    ------
    FileNotFoundError
        If *path* does not exist.
    rrmap.errors.InputError
        With every problem and the physical file line it is on (the header is
        line 1; blank lines and line breaks inside quotes are counted); a
        record with more or fewer fields than the header is an error (see
        :func:`record_lines`), before anything is read.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "prefs.csv"
    >>> _ = p.write_text("instance,left,right,winner\\ni1,A,B,left\\ni1,B,C,tie\\n")
    >>> read_comparisons(p)[["left", "right", "winner"]].values.tolist()
    [['A', 'B', 'left'], ['B', 'C', 'tie']]
    """
    data, name = read_input(path)
    lines = _record_lines(data, name)
    try:
        # names such as "NA" or "None" are candidates, not missing values; other
        # columns get pandas' usual parsing; never a first column taken as the index
        df = pd.read_csv(
            io.BytesIO(data),
            dtype={c: str for c in _STRING_COLUMNS},
            keep_default_na=False,
            na_values={c: [""] for c in _STRING_COLUMNS},
            index_col=False,
        )
        extra = [c for c in df.columns if c not in _STRING_COLUMNS]
        if extra:
            parsed = pd.read_csv(io.BytesIO(data), usecols=extra, index_col=False)
            for c in extra:
                df[c] = parsed[c].to_numpy()
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InputError(f"{name}: not a readable CSV file ({exc})") from None
    if len(df) != len(lines):  # pandas and the csv module disagree about the records
        raise InputError(f"{name}: not a readable CSV file ({len(lines)} records by line, "
                         f"{len(df)} read)")  # fmt: skip
    return _validate(df, name, "line", lines)


def write_comparisons(
    df: pd.DataFrame, path: str | os.PathLike[str], *, raw_csv: bool = False
) -> Path:
    """Validate *df* and write it as CSV (required columns first), all-or-nothing.

    The file is written to a temporary file beside *path* and renamed over it:
    an error, a kill or a full disk leaves any earlier *path* as it was.

    Parameters
    ----------
    df : DataFrame
        A comparisons table.
    path : str or path-like
        Destination; it is overwritten (the command line refuses without
        ``--force``).
    raw_csv : bool, default False
        Write text cells as they are, for programs (and :func:`read_comparisons`)
        that read the file back. By default a cell a spreadsheet would run as a
        formula (starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
        return) gets a leading ``'``.

    Returns
    -------
    Path
        The path written.

    Examples
    --------
    >>> import pandas as pd, tempfile, pathlib
    >>> df = pd.DataFrame({"instance": ["i"], "left": ["=A"], "right": ["B"],
    ...                    "winner": ["right"], "seed": [7]})
    >>> p = write_comparisons(df, pathlib.Path(tempfile.mkdtemp()) / "out.csv")
    >>> print(p.read_text().strip())
    instance,left,right,winner,seed
    i,'=A,B,right,7
    >>> print(write_comparisons(df, p, raw_csv=True).read_text().strip().splitlines()[1])
    i,=A,B,right,7
    """
    clean = validate_comparisons(df)
    first = [c for c in COMPARISON_COLUMNS if c in clean.columns]
    table = clean[[*first, *(c for c in clean.columns if c not in COMPARISON_COLUMNS)]]
    path = Path(path)
    with atomic_path(path) as tmp:
        write_csv(table, tmp, raw=raw_csv)
    return path


def read_json(path: Source) -> object:
    """The JSON value in *path*: at most :data:`~rrmap.rank.limits.MAX_FILE_BYTES` bytes,
    nested no deeper than Python's recursion limit allows.

    Parameters
    ----------
    path : str, path-like or binary file
        A path, or an open binary file such as ``sys.stdin.buffer``.

    Raises
    ------
    FileNotFoundError
        If *path* does not exist.
    rrmap.errors.InputError
        For a file too large, not UTF-8 JSON, or nested too deeply, naming the file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "deep.json"
    >>> _ = p.write_text("[" * 200_000)
    >>> read_json(p)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: .../deep.json: JSON nested too deeply to read (...)
    """
    data, name = read_input(
        path,
        MAX_FILE_BYTES,
        "the limit is rrmap.rank.limits.MAX_FILE_BYTES; split it, or convert it to a "
        "comparisons CSV",
        lines=False,  # JSON may be one line
    )
    try:
        return json.loads(data.decode("utf-8-sig"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{name}: not a JSON file ({message_text(exc)})") from None
    except RecursionError:
        raise InputError(
            f"{name}: JSON nested too deeply to read ([ or {{ inside each other beyond "
            "Python's recursion limit)"
        ) from None


@dataclass(frozen=True)
class FineArtBench:
    """FineArtBench 2AFC annotations as a comparisons table plus what was left out.

    Attributes
    ----------
    comparisons : DataFrame
        One row per answered record: ``instance`` (``"c<content_index>-s<style_index>"``),
        ``left``/``right`` (the stylization methods), ``winner``, and the
        record's ``id``, ``content_index``, ``style_index`` and ``style_prompt``.
    excluded : DataFrame
        Columns ``reason`` (``"skipped"``: the annotator skipped the question;
        ``"unannotated"``: no answer recorded) and ``n_records``; one row per
        reason, zero counts included.
    n_records : int
        Records in the file; equals ``len(comparisons) + excluded.n_records.sum()``.
    source : str
        The file read.

    Examples
    --------
    >>> from rrmap.rank import read_fineartbench
    >>> fab = read_fineartbench("data/fineartbench/instance_annotation.json")
    >>> bool(fab.n_records == len(fab.comparisons) + fab.excluded["n_records"].sum())
    True
    """

    comparisons: pd.DataFrame
    excluded: pd.DataFrame
    n_records: int
    source: str


_FAB_KEYS = (
    *("id", "content_index", "style_index", "method_left", "method_right", "winner"),
    "skipped",
)
_JSON_TYPES = {dict: "an object", list: "a list", str: "a string", bool: "true or false",
               int: "a number", float: "a number", type(None): "null"}  # fmt: skip


def _blank(value: object) -> bool:
    return isinstance(value, str) and value.strip() == ""


def read_fineartbench(path: Source) -> FineArtBench:
    """Read a FineArtBench annotation JSON file (``global_`` or ``instance_annotation.json``).

    Records with ``skipped`` true are excluded with reason ``"skipped"``;
    records not skipped whose winner is the empty string are excluded with
    reason ``"unannotated"`` (as the release records unanswered questions). Both are counted in
    :attr:`FineArtBench.excluded`. The group of a record is its content/style
    pair, written ``"c<content_index>-s<style_index>"``: that pair is what
    the candidates (stylization methods) were run on, so it is the instance
    of the paper's per-instance rankings. The data has no annotator field.

    Parameters
    ----------
    path : str, path-like or binary file
        The JSON file (or an open binary file): a list of records with keys
        ``id``, ``content_index``, ``style_index``, ``style_prompt``,
        ``method_left``, ``method_right``, ``winner`` (``"left"``, ``"right"``,
        ``""`` or null) and ``skipped``.

    Returns
    -------
    FineArtBench
        ``.comparisons`` (the comparisons table) and ``.excluded`` (counts by
        reason).

    Raises
    ------
    rrmap.errors.InputError
        Not JSON, not a list of records, an empty list, or records that are
        not JSON objects, with missing keys (``skipped`` included), null (or
        empty) methods, null indices, a null winner on a record that is not
        skipped, a ``skipped`` that is not a JSON boolean, unknown winners or
        a method compared with itself — all listed by their position in the
        file's list (``record 0`` is the first record, excluded ones counted).

    Examples
    --------
    >>> fab = read_fineartbench("data/fineartbench/global_annotation.json")
    >>> fab.n_records
    5000
    >>> fab.excluded.set_index("reason")["n_records"].to_dict()
    {'skipped': 976, 'unannotated': 1908}
    >>> fab.comparisons["winner"].value_counts().to_dict()
    {'left': 1462, 'right': 654}
    """
    records = read_json(path)
    name = source_name(path)
    if not isinstance(records, list):
        what = _JSON_TYPES.get(type(records), type(records).__name__)
        raise InputError(f"{name}: expected a JSON list of records, got {what}")
    if not records:
        raise InputError(f"{name}: the list of records is empty: nothing to read")
    problems: list[str] = []
    not_object: dict[str, list[int]] = {}
    kept: list[int] = []
    missing: dict[str, list[int]] = {}
    null: dict[str, list[int]] = {}
    bad_skipped: dict[str, list[int]] = {}
    bad_winner: dict[str, list[int]] = {}
    rows = []
    counts = {"skipped": 0, "unannotated": 0}
    for pos, rec in enumerate(records):
        if not isinstance(rec, dict):
            not_object.setdefault(_JSON_TYPES.get(type(rec), "a value"), []).append(pos)
            continue
        absent = [k for k in _FAB_KEYS if k not in rec]
        for k in absent:
            missing.setdefault(k, []).append(pos)
        if absent:
            continue
        skipped = rec["skipped"]
        if not isinstance(skipped, bool):
            bad_skipped.setdefault(repr(skipped), []).append(pos)
            continue
        winner = rec["winner"]
        if skipped:
            counts["skipped"] += 1
            continue
        nulls = [k for k in _FAB_KEYS if k != "winner" and rec[k] is None]
        nulls += [k for k in ("method_left", "method_right") if _blank(rec[k])]
        if winner is None:
            nulls.append("winner")
        for k in nulls:
            null.setdefault(k, []).append(pos)
        if nulls:
            continue
        if isinstance(winner, str) and winner.strip() == "":
            counts["unannotated"] += 1
            continue
        w = str(winner).strip().lower()
        if w not in WINNERS:
            bad_winner.setdefault(repr(winner), []).append(pos)
            continue
        kept.append(pos)
        rows.append(
            {
                "instance": f"c{rec['content_index']}-s{rec['style_index']}",
                "left": str(rec["method_left"]),
                "right": str(rec["method_right"]),
                "winner": w,
                "id": rec["id"],
                "content_index": rec["content_index"],
                "style_index": rec["style_index"],
                "style_prompt": rec.get("style_prompt"),
            }
        )
    for what, positions in not_object.items():
        problems.append(f"not a JSON object but {what} ({_rows_text(positions, 'record')})")
    for key, positions in missing.items():
        problems.append(f"key {key!r} missing ({_rows_text(positions, 'record')})")
    for key, positions in null.items():
        what = "null or empty" if key.startswith("method") else "null"
        extra = " on a record that is not skipped" if key == "winner" else ""
        problems.append(f"key {key!r} is {what}{extra} ({_rows_text(positions, 'record')})")
    for value, positions in bad_skipped.items():
        problems.append(
            f"key 'skipped': {value} is not true or false ({_rows_text(positions, 'record')})"
        )
    for value, positions in bad_winner.items():
        problems.append(
            f"key 'winner': value {value} is not left, right, tie or empty "
            f"({_rows_text(positions, 'record')})"
        )
    _raise_problems(name, problems)
    columns = [*COMPARISON_COLUMNS, "id", "content_index", "style_index", "style_prompt"]
    table = pd.DataFrame(rows, columns=columns)
    table = _validate(table, name, "record", np.asarray(kept, dtype=np.int64))
    excluded = pd.DataFrame(
        {"reason": list(counts), "n_records": [int(v) for v in counts.values()]}
    )
    return FineArtBench(comparisons=table, excluded=excluded, n_records=len(records), source=name)


def check_by(df: pd.DataFrame, by: str | None) -> None:
    """The grouping column exists and has no missing values (no row may vanish).

    Examples
    --------
    >>> check_by(pd.DataFrame({"instance": ["a", None]}), "instance")
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: column 'instance' (by): missing value in 1 rows (1)
    """
    if by is None:
        return
    if by not in df.columns:
        raise InputError(f"column {by!r} (by) not in the comparisons table")
    missing = df[by].isna().to_numpy()
    if missing.any():
        rows = np.flatnonzero(missing)
        shown = ", ".join(map(str, rows[:20])) + (" ..." if len(rows) > 20 else "")
        raise InputError(f"column {by!r} (by): missing value in {len(rows)} rows ({shown})")


def group_sizes(df: pd.DataFrame, by: str | None, units: str | None = None,
                weights: str | None = None) -> pd.DataFrame:  # fmt: skip
    """Per group, before anything is fitted: what the memory of a fit depends on.

    Columns ``k`` (candidates), ``n`` (comparisons), ``n_pairs`` (distinct
    unordered pairs), ``n_types`` (distinct bootstrap units: rows of the
    resampling matrix; ``units=None`` resamples comparisons, which fold into at
    most ``3 × pairs × distinct weights`` types) and ``label`` (bytes of the
    longest candidate name as UTF-32). Linear in the comparisons, nothing k × k.

    Examples
    --------
    >>> df = pd.DataFrame({"left": ["A", "A", "B"], "right": ["B", "C", "A"]})
    >>> group_sizes(df, None)[["k", "n", "n_pairs"]].values.tolist()
    [[3, 3, 2]]
    """
    g, n_groups = _codes(df[by]) if by is not None else (np.zeros(len(df), dtype=np.int64), 1)
    kept = g >= 0  # pandas leaves missing keys out of every group
    g = g[kept]
    n_groups = n_groups if len(g) else 0
    cand, names = pd.factorize(_sides(df, kept))
    n_c = max(len(names), 1)
    left, right = cand[: len(g)], cand[len(g) :]
    pair = _codes(np.minimum(left, right) * n_c + np.maximum(left, right))[0]
    n = np.bincount(g, minlength=n_groups)
    n_pairs = _distinct_per_group(g, pair, n_groups)
    if units is not None:
        unit = _codes(df[units].astype(str))[0][kept]
        n_types = _distinct_per_group(g, unit, n_groups)
    else:
        w = _codes(df[weights])[0][kept] if weights is not None else np.zeros(len(g), np.int64)
        n_types = np.minimum(n, 3 * n_pairs * _distinct_per_group(g, w, n_groups))
    label = 4 * max(map(len, names)) if len(names) else 0
    return pd.DataFrame({
        "k": _distinct_per_group(np.r_[g, g], cand, n_groups),
        "n": n,
        "n_pairs": n_pairs,
        "n_types": n_types,
        "label": np.full(n_groups, label, dtype=np.int64),
    })  # fmt: skip


def _sides(df: pd.DataFrame, kept: np.ndarray) -> np.ndarray | pd.Series:
    """The names in ``left`` then in ``right`` of the rows *kept*, as strings."""
    left, right = df["left"], df["right"]
    if left.dtype == right.dtype == STR_DTYPE and kept.all():  # strings already
        return np.concatenate([left.to_numpy(), right.to_numpy()])
    return pd.concat([left[kept], right[kept]], ignore_index=True).astype(str)


def _codes(values: pd.Series | np.ndarray) -> tuple[np.ndarray, int]:
    """Codes of *values* in order of first appearance (missing: -1), and how many there are."""
    codes, uniques = pd.factorize(values)
    return codes.astype(np.int64), len(uniques)


def _distinct_per_group(group: np.ndarray, code: np.ndarray, n_groups: int) -> np.ndarray:
    """How many distinct codes each group has (codes and groups as integers from 0)."""
    width = int(code.max()) + 1 if len(code) else 1
    distinct = np.unique(group * width + code)
    return np.bincount(distinct // width, minlength=n_groups)
