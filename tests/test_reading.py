"""Files as users export them: every variant gives exactly the points of the UTF-8 comma file.

``tests/data/exports`` holds the expressionism and surrealism rows of the example
(``study.csv``, with Münter and Miró) and what LibreOffice Calc made of it
(``make_exports.sh``): an .xlsx, an .ods and a Windows-1252 semicolon CSV with
quoted text. The other variants are written here the way Excel, LibreOffice
and Google Sheets write them in other locales.
"""

from __future__ import annotations

import csv
import io
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from properties import examples

import rrmap
from rrmap.cli import main
from rrmap.errors import RatingsError
from rrmap.ratings import RatingsWarning, load_ratings

EXPORTS = Path(__file__).parent / "data" / "exports"
STUDY = EXPORTS / "study.csv"
NUMERIC = ("low rating", "high rating", "mean", "sigma")


@pytest.fixture(scope="module")
def study_rows() -> list[list[str]]:
    with open(STUDY, encoding="utf-8", newline="") as fh:
        return list(csv.reader(fh))


@pytest.fixture(scope="module")
def reference_points() -> pd.DataFrame:
    return rrmap.points(load_ratings(STUDY))


def write(
    path: Path,
    rows: list[list[str]],
    *,
    sep: str = ",",
    encoding: str = "utf-8",
    decimal: str = ".",
    quote_all: bool = False,
    line_end: str = "\n",
    trailing: str = "",
) -> Path:
    header = rows[0]
    numeric = [header.index(c) for c in NUMERIC if c in header]
    out = io.StringIO()
    writer = csv.writer(
        out,
        delimiter=sep,
        lineterminator=trailing + line_end,
        quoting=csv.QUOTE_NONNUMERIC if quote_all else csv.QUOTE_MINIMAL,
    )
    for i, row in enumerate(rows):
        row = list(row)
        if i and decimal != ".":
            for j in numeric:
                row[j] = row[j].replace(".", decimal)
        writer.writerow(row)
    path.write_bytes(out.getvalue().encode(encoding))
    return path


def same_points(pts: pd.DataFrame, ref: pd.DataFrame, lines: bool = True) -> None:
    drop = [] if lines else ["line_ref", "line_query"]
    pd.testing.assert_frame_equal(
        pts.drop(columns=drop).reset_index(drop=True), ref.drop(columns=drop).reset_index(drop=True)
    )


def read_info(df: pd.DataFrame) -> dict:
    return df.attrs["rrmap"]["read"]


# --- variants that must read with no options ---------------------------------------------


VARIANTS = {
    "semicolon, decimal comma, Windows-1252, CRLF (European Excel)": dict(
        sep=";", decimal=",", encoding="cp1252", line_end="\r\n"
    ),
    "semicolon, decimal point": dict(sep=";"),
    "tab-separated, named .csv": dict(sep="\t"),
    "UTF-8 with BOM (Excel 'CSV UTF-8')": dict(encoding="utf-8-sig"),
    "comma with quoted decimal commas (Google Sheets, comma locale)": dict(
        decimal=",", quote_all=True
    ),
    "UTF-16 with BOM, tab-separated (Excel 'Unicode text')": dict(sep="\t", encoding="utf-16"),
    "Mac Roman, semicolon (old Mac Excel)": dict(sep=";", encoding="mac_roman", line_end="\r"),
    "trailing separator on every line": dict(trailing=","),
    "trailing semicolon, decimal comma": dict(sep=";", decimal=",", trailing=";"),
    "pipe-separated": dict(sep="|"),
}


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variant_gives_the_same_points(name, tmp_path, study_rows, reference_points):
    kw = VARIANTS[name]
    path = write(tmp_path / "ratings.csv", study_rows, **kw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = load_ratings(path)
    same_points(rrmap.points(df), reference_points)
    info = read_info(df)
    assert info["sep"] == kw.get("sep", ",")
    assert info["decimal"] == kw.get("decimal", ".")
    legacy = kw.get("encoding") in ("cp1252", "mac_roman")
    assert info["encoding"].replace("-sig", "") == kw.get("encoding", "utf-8").replace("-sig", "")
    if legacy:
        (warning,) = [w for w in caught if w.category is RatingsWarning]
        assert "is not UTF-8" in str(warning.message)
        assert "Münter, Miró" in str(warning.message)
    else:
        assert not [w for w in caught if w.category is RatingsWarning]


def test_office_exports_give_the_same_points(reference_points):
    for name in ("study.xlsx", "study.ods"):
        df = load_ratings(EXPORTS / name)
        assert read_info(df)["format"] == "sheet"
        same_points(rrmap.points(df), reference_points)
    with pytest.warns(RatingsWarning, match=r"read as Windows-1252, .*Münter.*Miró"):
        df = load_ratings(EXPORTS / "study-libreoffice-cp1252.csv")
    assert (read_info(df)["encoding"], read_info(df)["sep"]) == ("cp1252", ";")
    same_points(rrmap.points(df), reference_points)


def test_a_workbook_with_several_sheets_and_an_offset_table(tmp_path, study_rows, reference_points):
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    notes = book.active
    notes.title = "Notes"
    notes["A1"] = "ratings collected in 2024"
    sheet = book.create_sheet("Ratings")
    numeric = {study_rows[0].index(c) for c in NUMERIC}
    for i, row in enumerate(study_rows):
        for j, value in enumerate(row):
            cell = sheet.cell(row=i + 3, column=j + 2)  # the table starts at B3
            cell.value = float(value) if i and j in numeric else value
    path = tmp_path / "book.xlsx"
    book.save(path)
    # the first sheet has no ratings: the message names the other sheet
    with pytest.raises(
        RatingsError, match=r"\(the workbook has other sheets: 'Ratings'; --sheet\)"
    ):
        load_ratings(path)
    for sheet_arg in ("Ratings", 2):
        df = load_ratings(path, sheet=sheet_arg)
        pts = rrmap.points(df)
        same_points(pts, reference_points, lines=False)
        # rows of the sheet: header on row 3, so each row is one below its CSV line
        assert (pts["line_ref"] == reference_points["line_ref"] + 2).all()
    with pytest.raises(RatingsError, match=r"no sheet 'Rates'; the workbook has 1: 'Notes', 2: "):
        load_ratings(path, sheet="Rates")
    with pytest.raises(RatingsError, match=r"sep=';': only for text files; book.xlsx is a spr"):
        load_ratings(path, sheet="Ratings", sep=";")


def test_spreadsheet_cells_read_as_a_csv_export_shows_them():
    from rrmap._io.tabular import _cell_text

    assert [_cell_text(v) for v in (66.0, 40.5, 3.265, 0.1 + 0.2, 7, True, "E1")] == [
        "66",
        "40.5",
        "3.265",
        "0.3",
        "7",
        "TRUE",
        "E1",
    ]


def test_forced_settings_win(tmp_path, study_rows, reference_points):
    path = write(tmp_path / "r.txt", study_rows, sep=";", decimal=",", encoding="cp1252")
    df = load_ratings(path, sep=";", decimal=",", encoding="cp1252")
    same_points(rrmap.points(df), reference_points)
    assert read_info(df)["encoding_detected"] is False and read_info(df)["sep_detected"] is False


def test_excel_sep_line_is_honoured_and_lines_stay_physical(tmp_path, study_rows):
    path = write(tmp_path / "r.csv", study_rows, sep=";")
    path.write_text("sep=;\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    df = load_ratings(path)
    assert read_info(df)["sep_declared"] is True
    assert df["line"].iloc[0] == 3  # sep line 1, header line 2


# --- physical line numbers --------------------------------------------------------------


def test_blank_lines_do_not_shift_line_numbers(tmp_path, study_rows):
    text = STUDY.read_text(encoding="utf-8").split("\n")
    lines = [*text[:3], "", *text[3:5], ";;", "", *text[5:]]  # blank and separator-only lines
    path = tmp_path / "r.csv"
    path.write_text("\n".join(lines).replace(";;", ",,"), encoding="utf-8")
    df = load_ratings(path)
    assert df["line"].tolist()[:6] == [2, 3, 5, 6, 9, 10]
    assert read_info(df)["empty_lines"] == [4, 7, 8]
    pts = rrmap.points(df)
    first = pts.iloc[0]
    assert (first.line_ref, first.line_query) == (3, 2)
    # and in messages: a bad value on physical line 10
    bad = lines.copy()
    bad[9] = bad[9].replace("generated", "", 1).replace("real", "", 1)
    path.write_text("\n".join(bad).replace(";;", ",,"), encoding="utf-8")
    with pytest.raises(RatingsError, match=r"column 'origin': missing value on line 10$"):
        load_ratings(path)


def test_quoted_newlines_keep_later_line_numbers_physical(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text(
        "expert,origin,note,low rating,high rating\n"
        'E1,real,"two\nlines",10,20\n'
        'E1,generated,"two\nlines",12,25\n'
        "E1,real,x,1,zz\n"
        "E1,generated,x,1,2\n",
        encoding="utf-8",
    )
    with pytest.raises(RatingsError, match=r"not a number: 'zz' \(line 6\)"):
        load_ratings(path)


# --- what must be refused, precisely ----------------------------------------------------


def test_a_duplicated_header_is_an_error_naming_both(tmp_path, study_rows):
    rows = [list(r) for r in study_rows]
    rows[0][0] = "Expert"  # 'movement' renamed: two columns are now the rater
    path = write(tmp_path / "r.csv", rows)
    with pytest.raises(
        RatingsError, match=r"columns 1 'Expert' and 2 'expert' are the same header"
    ):
        load_ratings(path)


def test_header_without_rows(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text(STUDY.read_text(encoding="utf-8").split("\n")[0] + "\n\n", encoding="utf-8")
    with pytest.raises(RatingsError, match=r"r\.csv: 1 problem: the file has a header line and no"):
        load_ratings(path)


def test_an_undecodable_byte_names_line_and_byte(tmp_path, study_rows):
    path = write(tmp_path / "r.csv", study_rows, encoding="cp1252")
    line = next(i for i, r in enumerate(study_rows) if "Münter" in ",".join(r)) + 1
    with pytest.raises(
        RatingsError,
        match=rf"r\.csv: 1 problem: line {line}: byte 0xFC cannot be decoded as utf-8 "
        r"\(in b'.*'\); pass the file's encoding with encoding= \(--encoding\)",
    ):
        load_ratings(path, encoding="utf-8")


def test_unquoted_decimal_commas_say_what_happened(tmp_path, study_rows):
    path = write(tmp_path / "r.csv", study_rows, decimal=",")
    lines = path.read_text(encoding="utf-8").replace('"', "").split("\n")
    path.write_text("\n".join(lines), encoding="utf-8")  # unquote: 66,0 becomes two fields
    with pytest.raises(RatingsError) as exc:
        load_ratings(path)
    msg = str(exc.value)
    assert "the header has 11 fields (comma-separated) but 15 fields on lines 2, 3, 4" in msg
    assert re.search(r"unquoted decimal commas split numbers in two \(line 2: \d+,\d\?\)", msg)
    assert "low > high" not in msg and "comparison key" not in msg


def test_a_bound_column_copied_over_the_other(tmp_path, study_rows):
    rows = [list(r) for r in study_rows]
    lo, hi = rows[0].index("low rating"), rows[0].index("high rating")
    for r in rows[1:]:
        r[hi] = r[lo]
    with pytest.raises(
        RatingsError,
        match=r"columns 'low rating' and 'high rating' hold the same value on every line: is "
        "one a copy of the other",
    ):
        load_ratings(write(tmp_path / "r.csv", rows))


def test_rows_with_too_few_or_too_many_fields(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text(
        "expert,origin,item,low rating,high rating\n"
        "E1,real,a,10,20\n"
        "E1,generated,a,12\n"
        "E1,real,b,10,20,x\n",
        encoding="utf-8",
    )
    with pytest.raises(
        RatingsError,
        match=r"the header has 5 fields \(comma-separated\) but 4 fields on line 3; 6 fields on "
        "line 4",
    ):
        load_ratings(path)


def test_both_decimal_marks_in_one_file(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text(
        "expert;origin;item;low rating;high rating\nE1;real;a;10,5;20\nE1;generated;a;12.5;30\n",
        encoding="utf-8",
    )
    with pytest.raises(
        RatingsError,
        match=r"both decimal marks: '10,5' \(column 'low rating', line 2\) and '12.5' \(column "
        r"'low rating', line 3\); pass decimal= \(--decimal\)",
    ):
        load_ratings(path)
    with pytest.raises(RatingsError, match=r"not a number with decimal mark ',': '12.5' \(line 3"):
        load_ratings(path, decimal=",")


def test_an_unnamed_column_with_values(tmp_path, study_rows):
    buf = io.StringIO()
    pd.read_csv(STUDY, dtype=str).to_csv(buf)  # pandas writes its row numbers, unnamed
    path = tmp_path / "r.csv"
    path.write_text(buf.getvalue(), encoding="utf-8")
    with pytest.raises(
        RatingsError,
        match=r"column 1 has no header but holds values on lines 2, 3, .* \(row numbers, as "
        r"pandas' to_csv writes them\? remove the column\)",
    ):
        load_ratings(path)


def test_binary_and_unterminated_quotes(tmp_path):
    binary = tmp_path / "r.csv"
    binary.write_bytes(b"expert,origin\x00\x01\x02,low\n" * 3)
    with pytest.raises(RatingsError, match="not a text file"):
        load_ratings(binary)
    broken = tmp_path / "q.csv"
    broken.write_text('expert,origin\n"A,real\n', encoding="utf-8")
    with pytest.raises(RatingsError, match=r"not a readable table: line 2: .* never closed"):
        load_ratings(broken)


def test_mojibake_in_a_utf8_file_is_warned_about(tmp_path, study_rows):
    text = STUDY.read_text(encoding="utf-8").replace("Münter", "MÃ¼nter")
    path = tmp_path / "r.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.warns(RatingsWarning, match=r"garbled .*'Gabriele MÃ¼nter' \(line \d+\)"):
        load_ratings(path)


def test_legacy_decoding_picks_the_code_page_whose_letters_read(tmp_path):
    from rrmap._io.tabular import _decode

    text = "expert,movement\nE1,Münter Miró Émile Kubismus über\n"
    for enc in ("cp1252", "mac_roman"):
        decoded, used, info = _decode(tmp_path / "x.csv", text.encode(enc), None)
        assert (decoded, used) == (text, enc)
        assert info["non_ascii_sample"][:2] == ["Münter", "Miró"]


def test_many_bad_keys_are_summarised_not_all_labelled(tmp_path):
    n = 5000
    df = pd.DataFrame(
        {
            "expert": "E1",
            "origin": ["generated"] + ["real"] * (n - 1),  # one query: every other key unpaired
            "item": np.arange(n).astype(str),
            "low rating": 10,
            "high rating": 20,
        }
    )
    with pytest.raises(RatingsError) as exc:
        load_ratings(df)
    msg = str(exc.value)
    assert msg.count("has a reference but no query interval") == 2  # of the first three
    assert msg.count("has a query but no reference interval") == 1
    assert f"{n} comparison key(s) without" in msg and f"… and {n - 3} more keys" in msg
    assert len(msg) < 1000  # the count and the first lines, not one line per key


# --- the command line ---------------------------------------------------------------------


def test_cli_says_how_it_read_a_file_and_warns_in_one_line(tmp_path, study_rows, reference_points):
    path = write(tmp_path / "r.csv", study_rows, sep=";", decimal=",", encoding="cp1252")
    res = CliRunner().invoke(main, ["points", str(path)])
    assert res.exit_code == 0, res.output
    err = res.stderr.splitlines()
    assert err[0] == f"read {path}: Windows-1252, semicolon-separated, decimal comma, 324 rows"
    assert err[1].startswith(f"Warning: {path} is not UTF-8 (byte 0xFC on line ")
    assert len(err) == 2
    pts = pd.read_csv(io.StringIO(res.stdout))
    np.testing.assert_array_equal(pts["r"], reference_points["r"])
    quiet = CliRunner().invoke(main, ["points", str(STUDY)])
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_cli_options_force_the_reading(tmp_path, study_rows):
    path = write(tmp_path / "r.txt", study_rows, sep="\t", decimal=",")
    res = CliRunner().invoke(
        main, ["points", str(path), "--sep", "tab", "--decimal", ",", "--encoding", "utf-8"]
    )
    assert res.exit_code == 0, res.output
    assert res.stderr.startswith(f"read {path}: UTF-8, tab-separated, decimal comma")
    sheet = CliRunner().invoke(main, ["points", str(EXPORTS / "study.ods"), "--sheet", "9"])
    assert sheet.exit_code == 1
    assert sheet.stderr.strip() == (
        f"Error: {EXPORTS / 'study.ods'}: 1 problem: no sheet '9'; the workbook has 1: 'study'"
    )


@pytest.mark.parametrize(
    "args",
    [
        ["points"],
        ["points", str(STUDY), "--decimal", ";"],
        ["points", str(STUDY), "--scale", "1"],
        ["analyze", str(STUDY), "--permutations", "-1"],
        ["nonsense"],
    ],
)
def test_usage_errors_keep_clicks_exit_code_2(args):
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2
    assert "Usage:" in res.stderr or "Error:" in res.stderr


def test_user_errors_are_one_line_with_exit_code_1(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("expert,expert\n1,2\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["analyze", str(path), "--out", str(tmp_path / "o")])
    assert res.exit_code == 1
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("Error: ")


def test_commas_that_may_be_thousands_are_not_guessed(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text(
        "expert;origin;item;low rating;high rating\nE1;real;a;1,250;2,000\nE1;generated;a;300;900\n",
        encoding="utf-8",
    )
    with pytest.raises(
        RatingsError,
        match=r"'1,250' \(column 'low rating', line 2\) and every other number with a comma has "
        r"three digits after it: decimal commas or thousands separators\?",
    ):
        load_ratings(path, scale=None)
    df = load_ratings(path, scale=None, decimal=",")
    assert df["low"].tolist() == [1.25, 300.0]


def test_analyze_gives_the_same_tests_from_every_export(tmp_path):
    """The headline command on the workbook and the Windows-1252 export: same tests.csv."""
    tables = {}
    for name in ("study.csv", "study.xlsx", "study-libreoffice-cp1252.csv"):
        out = tmp_path / name
        args = ["--by", "movement", "--permutations", "99", "--no-figures", "-q"]
        res = CliRunner().invoke(main, ["analyze", str(EXPORTS / name), "--out", str(out), *args])
        assert res.exit_code == 0, res.output
        tables[name] = pd.read_csv(out / "tests.csv")
    first = tables.pop("study.csv")
    assert len(first) > 20
    for table in tables.values():
        pd.testing.assert_frame_equal(table, first)


@settings(max_examples=examples(300), deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from(list('ab ,;\t\n\r"é')), max_size=40),
    sep=st.sampled_from([",", ";", "\t", "|"]),
)
def test_padded_scan_equals_the_substring_rule(text, sep):
    """The byte scan that decides whether cells are stripped agrees with its definition."""
    from rrmap._io.tabular import _padded

    blanks = " " if sep == "\t" else " \t"
    edges = (sep, "\n", "\r", '"')
    rule = (
        text[:1] in blanks
        or text[-1:] in blanks
        or any(b + e in text or e + b in text for b in blanks for e in edges)
    )
    assert _padded(text, sep) == rule


def test_padded_scan_sees_a_pair_across_its_blocks():
    from rrmap._io.tabular import _padded_bytes

    # blocks of 2**24 bytes overlap by one: a blank and a separator straddling the boundary
    data = np.frombuffer(("x" * ((1 << 24) - 1) + " ,").encode(), dtype=np.uint8)
    assert _padded_bytes(data, " \t", (",",)) is True
    assert _padded_bytes(data[:-1], " \t", (",",)) is False


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(
        st.one_of(
            st.floats(allow_nan=False, allow_infinity=False).map(repr),
            st.integers(-(10**20), 10**20).map(str),
            st.from_regex(r"[+-]?[0-9]{0,4}\.?[0-9]{0,19}(e[+-]?[0-9]{1,3})?", fullmatch=True),
            st.sampled_from(["", "NA", "n/a", "-", "nan", "3,5", " 4", "x", "inf", "1_0"]),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_arrow_number_parsing_is_correctly_rounded(cells):
    """The pyarrow fast path reads the numbers it accepts as Python's float() does (correct
    rounding) and finds the same missing cells as the general path."""
    pytest.importorskip("pyarrow")
    from rrmap._io import numbers as N

    fast = N._arrow_point_numbers(pd.Series(cells, dtype="string[pyarrow]"))
    slow = N.point_numbers(pd.Series(cells, dtype=object))
    if fast is None:  # a cell Arrow does not read: the general path decides
        return
    np.testing.assert_array_equal(fast[1], slow[1])
    expected = [np.nan if m else float(c) for c, m in zip(cells, fast[1], strict=True)]
    np.testing.assert_array_equal(fast[0], expected)
    # the general path agrees except in the last bit of numbers longer than 15 digits
    np.testing.assert_allclose(fast[0], slow[0], rtol=4.5e-16)
