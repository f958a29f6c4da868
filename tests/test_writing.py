"""The CSV writer gives pandas' text (raw cells without a carriage return); Parquet keeps
every value."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from properties import examples

import rrmap
from rrmap._io.writing import csv_text, write_parquet
from rrmap.cli import main

EXAMPLE = str(rrmap.datasets.example_ratings_path())


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 105)),
            st.text(
                st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"),
                min_size=0,
                max_size=6,
            ),
            st.integers(-(2**40), 2**40),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_csv_text_is_pandas_to_csv(rows):
    df = pd.DataFrame(rows, columns=["x", "label", "k"])
    df["x"] = df["x"].astype(float)
    df["y"] = np.round(df["x"].fillna(0).clip(-1e6, 1e6))  # repeated values: the cached path
    df["c"] = pd.Categorical(df["label"].where(df["k"] % 3 != 0))  # with missing categories
    df["s"] = df["label"].astype("string")
    expected = df.to_csv(index=False)
    assert csv_text(df, raw=True) == expected  # Arrow assembles the rows (the test extra)
    import rrmap._io.writing as writing

    try:  # the same text without pyarrow
        writing._has_pyarrow, saved = (lambda: False), writing._has_pyarrow
        assert csv_text(df, raw=True) == expected
    finally:
        writing._has_pyarrow = saved


def test_points_table_as_pandas_writes_it():
    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    assert csv_text(pts) == pts.to_csv(index=False)


def test_points_cli_writes_parquet_with_the_same_values(tmp_path):
    out = tmp_path / "points.parquet"
    res = CliRunner().invoke(main, ["points", EXAMPLE, "-o", str(out)])
    assert res.exit_code == 0, res.output
    back = pd.read_parquet(out)
    ref = rrmap.points(rrmap.datasets.load_example_ratings())
    assert list(back.columns) == list(ref.columns)
    np.testing.assert_array_equal(back["delta"].to_numpy(), ref["delta"].to_numpy())
    assert back["quality"].tolist() == ref["quality"].astype(str).tolist()
    # the settings travel in the file's metadata
    assert back.attrs["rrmap"]["z"] == pytest.approx(ref.attrs["rrmap"]["z"])


def test_points_cli_csv_is_the_pandas_text(tmp_path):
    out = tmp_path / "points.csv"
    res = CliRunner().invoke(main, ["points", EXAMPLE, "-o", str(out)])
    assert res.exit_code == 0
    ref = rrmap.points(rrmap.datasets.load_example_ratings())
    ref["quality"] = ref["quality"].astype(str)
    assert out.read_text(encoding="utf-8") == ref.to_csv(index=False)


def test_parquet_to_stdout_is_a_one_line_error():
    res = CliRunner().invoke(main, ["points", EXAMPLE, "--format", "parquet"])
    assert res.exit_code == 2
    assert "Parquet is a binary format: give an OUTPUT file (-o)" in res.output


def test_parquet_without_pyarrow_is_a_clear_error(tmp_path, monkeypatch):
    import builtins

    real = builtins.__import__

    def no_pyarrow(name, *args, **kwargs):
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    with pytest.raises(rrmap.InputError, match=r"pip install 'rrmap\[parquet\]'"):
        write_parquet(pd.DataFrame({"a": [1.0]}), tmp_path / "x.parquet")


def test_writing_many_columns_costs_no_copy_of_attrs_per_column(attrs_copies):
    """The CSV writer (spreadsheet-safe) takes columns from a frame whose attrs pandas
    would deep-copy into each: the copies made do not grow with the columns."""
    from rrmap._io.writing import csv_text

    calls = attrs_copies
    counts = {}
    for n in (20, 400):  # a copy per column would count 20 and 400
        df = pd.DataFrame({f"x{i}": ["=a", "b"] for i in range(n)})
        df.attrs = {"rrmap": {"keys": list(df.columns)}}
        calls.clear()
        text = csv_text(df)
        counts[n] = len(calls)
        assert text.splitlines()[1] == ",".join(["'=a"] * n)
    assert counts[400] == counts[20] <= 2
