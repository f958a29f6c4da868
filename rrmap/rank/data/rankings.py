"""Rankings tables: k-way orderings, one per row, best first (``"A > B > C"``).

The input of :func:`rrmap.rank.fit_plackett_luce`: a judge ordered several candidates
at once. Read from a CSV (or standard input) with every problem reported at its line.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

from rrmap.errors import InputError
from rrmap.rank.data.comparisons import _raise_problems, _record_lines, _rows_text
from rrmap.rank.data.sources import Source, read_input

__all__ = ["SEPARATOR", "read_rankings", "split_rankings"]

#: What separates the candidates of a ranking, best first: ``"A > B > C"``.
SEPARATOR = ">"


def split_rankings(
    values: pd.Series, unit: str, numbers: np.ndarray, source: str
) -> list[list[str]]:
    """Each ranking as a list of names, every problem collected (empty, one name, repeats).

    *unit* and *numbers* say where each value is (``"line"`` and file lines, or
    ``"row"`` and row numbers) and *source* names the table in the message.

    Examples
    --------
    >>> split_rankings(pd.Series(["A > B", "C>A>B"]), "row", np.arange(2), "rankings")
    [['A', 'B'], ['C', 'A', 'B']]
    """
    out: list[list[str]] = []
    empty, single, repeated = [], [], []
    for n, value in zip(numbers.tolist(), values.tolist(), strict=True):
        names = [] if not isinstance(value, str) else [x.strip() for x in value.split(SEPARATOR)]
        if not names or any(x == "" for x in names):
            empty.append(n)
        elif len(names) < 2:
            single.append(n)
        elif len(set(names)) < len(names):
            repeated.append(n)
        out.append(names)
    problems = []
    if empty:
        problems.append(f"column 'ranking': empty ranking or empty name between "
                        f"'{SEPARATOR}' ({_rows_text(empty, unit)})")  # fmt: skip
    if single:
        problems.append(f"column 'ranking': fewer than two candidates ({_rows_text(single, unit)})")
    if repeated:
        where = _rows_text(repeated, unit)
        problems.append(f"column 'ranking': a candidate listed twice ({where})")
    _raise_problems(source, problems)
    return out


def read_rankings(path: Source) -> pd.DataFrame:
    """Read a rankings CSV: ``ranking`` (candidates best first, separated by ``>``).

    Parameters
    ----------
    path : str, path-like or binary file
        A path or an open binary file (such as ``sys.stdin.buffer``): a CSV
        with a header line and a column ``ranking``, optionally ``instance``
        and anything else. Every row must have as many fields as
        the header (see :func:`rrmap.rank.data.comparisons.record_lines`); quote a
        ranking whose names contain commas.

    Returns
    -------
    DataFrame
        The table, ``ranking`` normalised to ``"A > B > C"``.

    Raises
    ------
    rrmap.errors.InputError
        A missing ``ranking`` column, an empty ranking or name, a ranking of
        one candidate, a candidate listed twice — every problem with its line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.csv"
    >>> _ = p.write_text("instance,ranking\\ni1,A > B > C\\ni1,C>A\\n")
    >>> read_rankings(p)["ranking"].tolist()
    ['A > B > C', 'C > A']
    """
    data, name = read_input(path)
    lines = _record_lines(data, name)
    try:
        df = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False, index_col=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InputError(f"{name}: not a readable CSV file ({exc})") from None
    if "ranking" not in df.columns:
        raise InputError(f"{name}: missing column 'ranking' (found: {', '.join(df.columns)})")
    names = split_rankings(df["ranking"], "line", lines, name)
    return df.assign(ranking=[f" {SEPARATOR} ".join(x) for x in names])
