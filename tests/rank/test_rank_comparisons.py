"""Tests for rrmap.rank.data.comparisons: the comparisons table, CSV and FineArtBench readers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rrmap.errors import InputError
from rrmap.rank.data.comparisons import (
    read_comparisons,
    read_fineartbench,
    validate_comparisons,
    write_comparisons,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "fineartbench"


def _table(**extra):
    base = {
        "instance": ["i1", "i1", "i2"],
        "left": ["A", "B", "A"],
        "right": ["B", "C", "C"],
        "winner": ["left", "tie", "right"],
    }
    base.update(extra)
    return pd.DataFrame(base)


def test_roundtrip_keeps_extra_columns(tmp_path):
    df = _table(annotator=["u1", "u2", "u1"], score=[0.5, 1.5, 2.5])
    path = write_comparisons(df, tmp_path / "c.csv")
    back = read_comparisons(path)
    assert back.columns.tolist() == ["instance", "left", "right", "winner", "annotator", "score"]
    assert back["winner"].tolist() == ["left", "tie", "right"]
    assert back["score"].tolist() == [0.5, 1.5, 2.5]


def test_candidate_named_na_is_a_name_not_missing(tmp_path):
    p = tmp_path / "c.csv"
    p.write_text("instance,left,right,winner,score\nx,NA,None,left,\nx,A,B,left,2.5\n")
    df = read_comparisons(p)
    assert df[["left", "right"]].values.tolist() == [["NA", "None"], ["A", "B"]]
    # other columns are parsed as usual: an empty cell is missing, numbers are numbers
    assert df["score"].isna().tolist() == [True, False] and df["score"].iloc[1] == 2.5


def test_unreadable_csv(tmp_path):
    p = tmp_path / "c.csv"
    p.write_text("")
    with pytest.raises(InputError, match="not a readable CSV file"):
        read_comparisons(p)


def test_winner_normalised():
    df = validate_comparisons(_table(winner=[" LEFT", "Tie ", "right"]))
    assert df["winner"].tolist() == ["left", "tie", "right"]


def test_all_problems_reported_with_file_lines(tmp_path):
    p = tmp_path / "bad.csv"
    p.write_text(
        "instance,left,right,winner\n"
        "i1,A,B,left\n"
        "i1,A,A,right\n"  # line 3: self comparison
        "i1,A,,left\n"  # line 4: empty right
        "i1,A,B,maybe\n"  # line 5
        "i1,A,B,maybe\n"  # line 6
    )
    with pytest.raises(InputError) as err:
        read_comparisons(p)
    msg = str(err.value)
    assert msg.startswith(f"{p}: 3 problems: ")
    assert "column 'right': empty value (line 4)" in msg
    assert "value 'maybe' is not one of left, right, tie (lines 5, 6)" in msg
    assert "compared with itself (line 3)" in msg


def test_missing_columns_listed():
    with pytest.raises(InputError, match=r"missing columns 'left', 'winner' \(found: instance"):
        validate_comparisons(pd.DataFrame({"instance": ["a"], "right": ["b"]}))


def test_dataframe_rows_are_positions():
    df = _table(winner=["left", None, "right"])
    with pytest.raises(InputError, match=r"column 'winner': empty value \(row 1\)"):
        validate_comparisons(df)


def test_not_a_dataframe():
    with pytest.raises(InputError, match="expected a pandas DataFrame, got list"):
        validate_comparisons([1, 2])


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_comparisons(tmp_path / "nope.csv")


@pytest.mark.parametrize(
    ("name", "n", "skipped", "unannotated", "left", "right"),
    [
        # counts computed independently from the raw JSON with pandas (see test below)
        ("global_annotation.json", 5000, 976, 1908, 1462, 654),
        ("instance_annotation.json", 5000, 592, 3280, 755, 373),
    ],
)
def test_fineartbench_counts(name, n, skipped, unannotated, left, right):
    fab = read_fineartbench(DATA / name)
    raw = pd.DataFrame(json.loads((DATA / name).read_text()))
    assert fab.n_records == len(raw) == n
    counts = fab.excluded.set_index("reason")["n_records"].to_dict()
    assert counts == {"skipped": int(raw["skipped"].sum()), "unannotated": unannotated}
    assert counts["skipped"] == skipped
    assert int(((raw["winner"] == "") & ~raw["skipped"]).sum()) == unannotated
    assert fab.comparisons["winner"].value_counts().to_dict() == {"left": left, "right": right}
    assert len(fab.comparisons) + sum(counts.values()) == n
    first = raw[raw["winner"].isin(["left", "right"])].iloc[0]
    row = fab.comparisons.iloc[0]
    assert row["instance"] == f"c{first['content_index']}-s{first['style_index']}"
    assert (row["left"], row["right"], row["id"]) == (
        first["method_left"],
        first["method_right"],
        first["id"],
    )


def test_fineartbench_bad_records(tmp_path):
    recs = [
        {"id": 1, "content_index": 1, "style_index": 2, "method_left": "A",
         "method_right": "B", "winner": "left", "skipped": False},
        {"id": 2, "content_index": 1, "style_index": 2, "method_left": "A",
         "winner": "left", "skipped": False},
        {"id": 3, "content_index": 1, "style_index": 2, "method_left": "A",
         "method_right": "B", "winner": "both", "skipped": False},
    ]  # fmt: skip
    p = tmp_path / "fab.json"
    p.write_text(json.dumps(recs))
    with pytest.raises(InputError) as err:
        read_fineartbench(p)
    msg = str(err.value)
    assert "2 problems" in msg
    assert "key 'method_right' missing (record 1)" in msg
    assert "value 'both' is not left, right, tie or empty (record 2)" in msg


def test_fineartbench_nulls_and_string_booleans_are_errors_not_candidates(tmp_path):
    """A null method once became a candidate named 'None' and got ranked."""
    rec = _fab_record
    recs = [
        rec(0),
        rec(1, method_left=None),
        rec(2, method_right=" "),
        rec(3, content_index=None),
        rec(4, style_index=None, method_left=None),
        rec(5, winner=None),  # not skipped, so an answer is expected
        rec(6, skipped="true"),
        rec(7, winner=None, skipped=True),  # how the release marks a skipped record: fine
        rec(8, winner=""),  # unanswered: excluded and counted
        rec(9, skipped=1),
    ]
    p = tmp_path / "fab.json"
    p.write_text(json.dumps(recs))
    with pytest.raises(InputError) as err:
        read_fineartbench(p)
    problems = str(err.value).split(": ", 2)[2].split("; ")
    assert problems == [
        "key 'method_left' is null or empty (records 1, 4)",
        "key 'method_right' is null or empty (record 2)",
        "key 'content_index' is null (record 3)",
        "key 'style_index' is null (record 4)",
        "key 'winner' is null on a record that is not skipped (record 5)",
        "key 'skipped': 'true' is not true or false (record 6)",
        "key 'skipped': 1 is not true or false (record 9)",
    ]
    good = [recs[i] for i in (0, 7, 8)]
    p.write_text(json.dumps(good))
    fab = read_fineartbench(p)
    assert fab.comparisons[["left", "right", "winner"]].values.tolist() == [["A", "B", "left"]]
    assert fab.excluded.set_index("reason")["n_records"].to_dict() == {
        "skipped": 1,
        "unannotated": 1,
    }


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("{not json", "not a JSON file"),
        ('{"a": 1}', "expected a JSON list of records, got an object"),
    ],
)
def test_fineartbench_not_a_list(tmp_path, text, match):
    p = tmp_path / "fab.json"
    p.write_text(text)
    with pytest.raises(InputError, match=match):
        read_fineartbench(p)


def _fab_record(i, **kw):
    base = {
        "id": i,
        "content_index": 1,
        "style_index": 2,
        "style_prompt": "p",
        "method_left": "A",
        "method_right": "B",
        "winner": "left",
        "skipped": False,
    }
    return {**base, **kw}  # fmt: skip


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        # an unquoted comma in a name: pandas once took the first column for the index
        ("instance,left,right,winner\ni1,Smith, J.,Doe,left\ni1,Doe,Smith, J.,right\n",
         "lines 2, 3 have 5 fields, the header 4; a value with a comma"),
        ("instance,left,right,winner\ni1,A,B,left\ni1,A,B\n",
         "line 3 has 3 fields, the header 4; every row needs a field"),
        # physical lines: a blank line and a quoted line break are counted
        ('instance,left,right,winner\n\ni1,"A\nB",C,left\ni1,A,B,left,x\n',
         "line 5 has 5 fields, the header 4"),
    ],
)  # fmt: skip
def test_rows_with_another_field_count_are_errors_naming_the_line(tmp_path, text, lines):
    p = tmp_path / "c.csv"
    p.write_text(text)
    with pytest.raises(InputError, match="1 problem: " + lines):
        read_comparisons(p)


def test_problem_lines_are_physical_lines(tmp_path):
    p = tmp_path / "c.csv"
    p.write_text('instance,left,right,winner\n\ni1,"A\nB",C,left\n\ni1,A,A,left\n')
    with pytest.raises(InputError, match=r"compared with itself \(line 6\)"):
        read_comparisons(p)
    p.write_text('left,right,winner\n"Smith, J.",Doe,left\n')
    assert read_comparisons(p)[["left", "right"]].values.tolist() == [["Smith, J.", "Doe"]]


def test_instance_column_is_optional(tmp_path):
    from rrmap.rank import fit_bradley_terry

    p = tmp_path / "c.csv"
    p.write_text("left,right,winner\nA,B,left\nB,A,left\nA,B,left\n")
    df = read_comparisons(p)
    assert "instance" not in df.columns
    fit = fit_bradley_terry(df)
    assert fit.table["score"].iloc[0] - fit.table["score"].iloc[1] == pytest.approx(np.log(2))
    out = write_comparisons(df, tmp_path / "out.csv")
    assert out.read_text().splitlines()[0] == "left,right,winner"
    with pytest.raises(InputError, match="column 'instance' \\(bootstrap_by\\) not in"):
        fit_bradley_terry(df, bootstrap=10, bootstrap_by="instance")


def test_fineartbench_records_numbered_as_in_the_file(tmp_path):
    """A self-comparison once pointed at 'row 1' for record 3 (excluded records not counted)."""
    recs = [_fab_record(0), _fab_record(1, skipped=True), _fab_record(2, winner=""),
            _fab_record(3, method_right="A")]  # fmt: skip
    p = tmp_path / "fab.json"
    p.write_text(json.dumps(recs))
    with pytest.raises(InputError, match=r"a candidate compared with itself \(record 3\)$"):
        read_fineartbench(p)


@pytest.mark.parametrize(
    ("records", "match"),
    [
        ([], "the list of records is empty"),
        ([_fab_record(0), 7, [1]],
         r"not a JSON object but a number \(record 1\); not a JSON object but a list \(record 2\)"),
        ([{k: v for k, v in _fab_record(0).items() if k != "skipped"}],
         r"1 problem: key 'skipped' missing \(record 0\)"),
    ],
)  # fmt: skip
def test_fineartbench_empty_non_objects_and_missing_skipped(tmp_path, records, match):
    p = tmp_path / "fab.json"
    p.write_text(json.dumps(records))
    with pytest.raises(InputError, match=match):
        read_fineartbench(p)


@pytest.mark.parametrize("edge", [" ", "\xa0", "\x1c", "\u2003", "\u200b", "é", "\U0001f4a1", ")"])
def test_names_are_cleaned_as_pandas_strips_them_whatever_their_edges(edge):
    """Columns that need no cleaning are kept as they are, checked on their first and last
    characters; any other edge takes the cleaning, so the result is pandas' strip."""
    df = pd.DataFrame({"instance": [f"{edge}i", "i", "j"], "left": [f"{edge}A", "B", f"C{edge}"],
                       "right": ["B", f"{edge}C{edge}", "A"], "winner": ["left", "right", "tie"]})  # fmt: skip
    out = validate_comparisons(df)
    for col in ("instance", "left", "right"):
        assert out[col].tolist() == df[col].str.strip().tolist()
        assert out[col].dtype == pd.Series(["x"]).astype("str").dtype
    assert out["winner"].tolist() == ["left", "right", "tie"]
    upper = validate_comparisons(df.assign(winner=["LEFT", "right", "tie"]))
    assert upper["winner"].tolist() == ["left", "right", "tie"]
