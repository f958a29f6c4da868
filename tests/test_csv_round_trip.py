"""Every CSV rrmap writes reads back as the rows it wrote, with no cell a spreadsheet runs.

Labels holding a bare carriage return (``ok\\r=1+1``), line feeds, quotes, the
separator and formula triggers go through each writer: the one writer
(:mod:`rrmap._io.writing`), ``rrmap points -o``, the tables of ``rrmap analyze``,
``rrmap rank fit``/``filter`` and :func:`rrmap.rank.write_comparisons`. pandas and
Python's :mod:`csv` module read the same rows and cells back; spreadsheet-safe
cells have a ``'`` before each formula trigger at their start or after a line
break, and ``--raw-csv`` gives the labels back exactly. (The judge's writers:
``tests/judge/test_judge_csv_round_trip.py``.)
"""

from __future__ import annotations

import contextlib
import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from properties import examples

import rrmap
from rrmap._io.writing import csv_text, write_csv
from rrmap.cli import main
from rrmap.rank import read_comparisons, write_comparisons

#: Raters of the hostile ratings file: a bare CR before a formula, line breaks before
#: triggers, a formula with a comma and quotes.
RATERS = {"E1": "ok\r=1+1", "E2": "a\n@b\r\n-c", "E3": '=HYPERLINK("x"),"y"'}
MOVEMENT = "tab\there;semi|pipe\r+x"
BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
#: A formula trigger at a cell's start or after a line break inside it.
FORMULA = re.compile(f"(?:^|(?<=[{BREAKS}]))[=+\\-@\t\r]")
FAST = ["--permutations", "99", "--p-adjust", "none", "--bootstrap", "0", "-q"]


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_back(text: str, sep: str = ",") -> tuple[pd.DataFrame, list[list[str]]]:
    """*text* read by pandas and by the csv module: the same header, rows and cells."""
    frame = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False)
    rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=sep))
    assert rows[0] == [str(c) for c in frame.columns]
    assert rows[1:] == frame.to_numpy().tolist()
    return frame, rows


def formula_cells(rows: list[list[str]]) -> list[str]:
    """Cells (header included) a spreadsheet would run: a trigger at the start or after a
    line break; a number (``-1.5``) is no formula."""
    return [c for row in rows for c in row if FORMULA.search(c) and not _number(c)]


# --- the writer itself -------------------------------------------------------------------


@contextlib.contextmanager
def _rows_assembled_by(arrow: bool) -> Iterator[None]:
    """Within the block the writer assembles rows with Arrow (pyarrow is in the test
    extra) or in Python."""
    import rrmap._io.writing as writing

    saved = writing._has_pyarrow
    writing._has_pyarrow = (lambda: True) if arrow else (lambda: False)
    try:
        yield
    finally:
        writing._has_pyarrow = saved


#: Text without ``'`` (so that the writer's own ``'`` can be taken out again).
_TEXT = st.text(
    st.sampled_from(list('ab =+-@\t\r\n,;|"\u2028 '))
    | st.characters(codec="utf-8", exclude_characters="'"),
    max_size=8,
)


@settings(max_examples=examples(150), deadline=None)
@given(
    st.lists(st.tuples(_TEXT, _TEXT, st.floats(allow_nan=True)), min_size=1, max_size=12),
    st.sampled_from([",", ";", "\t", "|"]),
    st.booleans(),
    st.booleans(),
)
def test_the_writer_round_trips_every_text(rows, sep, raw, arrow):
    df = pd.DataFrame(rows, columns=["=label", "other", "x"])
    df["cat"] = pd.Categorical(df["other"])
    with _rows_assembled_by(arrow):
        text = csv_text(df, raw=raw, sep=sep)
    frame, back = read_back(text, sep)
    assert frame.shape == df.shape
    if raw:
        assert back[0] == list(df.columns)
        assert frame["=label"].tolist() == df["=label"].tolist()
        assert frame["cat"].tolist() == df["other"].tolist()
    else:
        assert formula_cells(back) == []
        # each ' the writer put in front of a trigger taken out again: the label itself
        undone = [re.sub(f"(?:^|(?<=[{BREAKS}]))'(?=[=+\\-@\t\r])", "", v) for v in frame["other"]]
        assert undone == df["other"].tolist()
    assert [float(v) if v else None for v in frame["x"]] == [
        None if pd.isna(v) else v for v in df["x"]
    ]


def test_a_bare_carriage_return_is_quoted_and_neutralised():
    df = pd.DataFrame({"rater": ["ok\r=1+1", "E2"], "n": [1, 2]})
    assert csv_text(df) == 'rater,n\n"ok\r\'=1+1",1\nE2,2\n'
    assert csv_text(df, raw=True) == 'rater,n\n"ok\r=1+1",1\nE2,2\n'
    one = pd.DataFrame({"\r=x": ["", None, "\r"]})  # one column: an empty field is ""
    assert csv_text(one) == '"\'\r\'=x"\n""\n""\n"\'\r"\n'


def test_other_column_types_as_pandas_writes_them():
    """float32, nullable integers and floats, booleans, dates and categories: the text
    pandas writes (float32 0.1 as 0.1)."""
    df = pd.DataFrame(
        {
            "f32": np.array([0.1, np.nan, -2.5], dtype=np.float32),
            "i": pd.array([1, None, 3], dtype="Int64"),
            "f": pd.array([0.5, None, 2.0], dtype="Float64"),
            "b": [True, False, True],
            "t": pd.to_datetime(["2024-01-01 10:00", None, "2024-01-02 00:00"]),
            "c": pd.Categorical(["x", None, "y"]),
        }
    )
    assert csv_text(df) == df.to_csv(index=False)


def test_the_writer_refuses_a_separator_it_cannot_quote():
    with pytest.raises(ValueError, match="sep must be one of"):
        write_csv(pd.DataFrame({"a": [1]}), io.StringIO(), sep=".")


# --- the command line and the library -----------------------------------------------------


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    df = pd.read_csv(rrmap.datasets.example_ratings_path())
    df = df.assign(
        expert=df["expert"].map(RATERS),
        movement=df["movement"].where(df["movement"] != "cubism", MOVEMENT),
    )
    path = tmp_path_factory.mktemp("cr") / "cr.csv"
    df.to_csv(path, index=False, quoting=csv.QUOTE_NONNUMERIC)  # read back as written
    assert set(rrmap.load_ratings(path)["expert"]) == set(RATERS.values())
    return path


def _labels_back(frame: pd.DataFrame, column: str) -> set[str]:
    return set(frame[column])


@pytest.mark.parametrize("raw", [False, True])
def test_points_output_reads_back_405_rows(hostile, tmp_path, raw):
    out = tmp_path / "p.csv"
    flag = ["--raw-csv"] if raw else []
    res = CliRunner().invoke(main, ["points", str(hostile), "-o", str(out), *flag])
    assert res.exit_code == 0, res.output
    stdout = CliRunner().invoke(main, ["points", str(hostile), *flag]).stdout_bytes
    assert stdout == out.read_bytes()  # standard output: the same text
    frame, rows = read_back(out.read_bytes().decode("utf-8"))
    assert frame.shape == (405, 20)
    if raw:
        assert _labels_back(frame, "expert") == set(RATERS.values())
        assert MOVEMENT in set(frame["movement"])
    else:
        assert formula_cells(rows) == []
        assert _labels_back(frame, "expert") == {
            "ok\r'=1+1",
            "a\n'@b\r\n'-c",
            '\'=HYPERLINK("x"),"y"',
        }


@pytest.fixture(scope="module")
def analysed(hostile, tmp_path_factory) -> dict[str, Path]:
    out = {}
    for name, extra in (("safe", []), ("raw", ["--raw-csv"])):
        folder = tmp_path_factory.mktemp(name) / "out"
        res = CliRunner().invoke(
            main,
            [
                "analyze",
                str(hostile),
                "--by",
                "movement",
                "--out",
                str(folder),
                "--no-figures",
                *FAST,
                *extra,
            ],
        )
        assert res.exit_code == 0, res.output
        out[name] = folder
    return out


@pytest.mark.parametrize("table", ["points", "tests", "proportions", "agreement", "reliability"])
def test_analysis_tables_read_back_whole(analysed, table):
    import json

    for name in ("safe", "raw"):
        records = json.loads((analysed[name] / "results.json").read_text())[table]
        frame, rows = read_back((analysed[name] / f"{table}.csv").read_bytes().decode("utf-8"))
        assert frame.shape == (len(records), len(records[0]))  # results.json: the same rows
        assert {len(r) for r in rows} == {frame.shape[1]}
        if name == "safe":
            assert formula_cells(rows) == [], table
        elif table == "points":
            assert set(frame["expert"]) == set(RATERS.values())
            assert frame["expert"].tolist() == [r["expert"] for r in records]


@pytest.fixture
def prefs(tmp_path) -> Path:
    """Comparisons of four candidates, two named with line breaks before formulas; a tie
    band drops a pair."""
    names = ["ok\r=1+1", "a\n@b\r\n-c", "B", "C"]
    rows = [
        (f"i{k}", names[a], names[b], "left" if (a + k) % 3 else "right")
        for k in range(4)
        for a in range(4)
        for b in range(4)
        if a != b
    ]
    path = tmp_path / "prefs.csv"
    table = pd.DataFrame(rows, columns=["instance", "left", "right", "winner"])
    table.to_csv(path, index=False, quoting=csv.QUOTE_ALL)
    return path


def _rank(*args: object):
    return CliRunner().invoke(main, ["rank", *map(str, args)])


@pytest.mark.parametrize("raw", [False, True])
def test_rank_fit_output_reads_back_one_row_per_candidate(prefs, tmp_path, raw):
    out = tmp_path / "fit.csv"
    res = _rank("fit", prefs, "-o", out, *(["--raw-csv"] if raw else []))
    assert res.exit_code == 0, res.output
    frame, rows = read_back(out.read_bytes().decode("utf-8"))
    assert len(frame) == 4 and {len(r) for r in rows} == {frame.shape[1]}
    if raw:
        assert set(frame["candidate"]) == {"ok\r=1+1", "a\n@b\r\n-c", "B", "C"}
    else:
        assert formula_cells(rows) == []
        assert set(frame["candidate"]) == {"ok\r'=1+1", "a\n'@b\r\n'-c", "B", "C"}


def test_rank_filter_outputs_read_back_whole(prefs, tmp_path):
    kept, dropped = tmp_path / "k.csv", tmp_path / "d.csv"
    res = _rank("filter", prefs, "--tie-band", "0.3", "0.7", "--dropped", dropped, "-o", kept)
    assert res.exit_code == 0, res.output
    said = re.search(r"filters: (\d+) of 48 comparisons kept", res.stderr)
    assert said is not None, res.stderr
    names = {"ok\r'=1+1", "a\n'@b\r\n'-c", "B", "C"}
    frame, rows = read_back(kept.read_bytes().decode("utf-8"))
    assert len(frame) == int(said.group(1)) and {len(r) for r in rows} == {4}
    assert set(frame["left"]) | set(frame["right"]) <= names
    assert formula_cells(rows) == []
    report, rows = read_back(dropped.read_bytes().decode("utf-8"))
    assert set(report["candidate_a"]) | set(report["candidate_b"]) <= names | {""}
    assert formula_cells(rows) == []


def test_write_comparisons_round_trips_raw_and_neutralises_safe(tmp_path):
    df = pd.DataFrame(
        {
            "instance": ["i", "i"],
            "left": ["ok\r=1+1", "B"],
            "right": ["B", "x\n+y"],
            "winner": ["left", "right"],
        }
    )
    raw = write_comparisons(df, tmp_path / "raw.csv", raw_csv=True)
    assert read_comparisons(raw)[["left", "right"]].values.tolist() == [
        ["ok\r=1+1", "B"],
        ["B", "x\n+y"],
    ]
    safe = write_comparisons(df, tmp_path / "safe.csv")
    frame, rows = read_back(safe.read_bytes().decode("utf-8"))
    assert frame[["left", "right"]].values.tolist() == [["ok\r'=1+1", "B"], ["B", "x\n'+y"]]
    assert formula_cells(rows) == []
