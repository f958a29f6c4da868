"""Sizes checked before the work they would cost (docs/ratings.md, "Limits"): a sheet's
farthest cell before its grid is built, a table's columns before its cells are parsed, a
FIFO without a writer waited for a bounded time."""

from __future__ import annotations

import os
import struct
import threading
import time
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from rrmap._io import reading_limits as _reading_limits
from rrmap._io.sheet_extent import ods_extents, sheet_extent
from rrmap._io.tabular import read_table
from rrmap._io.xls_extent import xls_extents
from rrmap.cli import main
from rrmap.errors import InputError, RatingsError
from rrmap.ratings import load_ratings

STUDY = Path(__file__).parent / "data" / "exports" / "study.csv"

_TYPES = (
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/'
    'package/2006/content-types"><Default Extension="rels" ContentType="application/'
    'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType='
    '"application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/'
    'vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName='
    '"/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.'
    'spreadsheetml.worksheet+xml"/></Types>'
)
_RELS = (
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>'
)
_BOOK = (
    '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
    '<sheets><sheet name="ratings" sheetId="1" r:id="rId1"/></sheets></workbook>'
)
_BOOK_RELS = (
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>'
)
_HEAD = (
    '<row r="1"><c r="A1" t="inlineStr"><is><t>expert</t></is></c>'
    '<c r="B1" t="inlineStr"><is><t>x</t></is></c></row>'
    '<row r="2"><c r="A2" t="inlineStr"><is><t>E1</t></is></c><c r="B2"><v>1</v></c></row>'
)


def xlsx(path: Path, rows: str, dimension: str = "A1:B2", head: str = _HEAD) -> Path:
    """A workbook of one sheet 'ratings' whose sheetData is *head* + *rows*."""
    sheet = (
        '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        f'<dimension ref="{dimension}"/><sheetData>{head}{rows}</sheetData></worksheet>'
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", _TYPES)
        z.writestr("_rels/.rels", _RELS)
        z.writestr("xl/workbook.xml", _BOOK)
        z.writestr("xl/_rels/workbook.xml.rels", _BOOK_RELS)
        z.writestr("xl/worksheets/sheet1.xml", sheet)
    return path


def ods(path: Path, tables: dict[str, str]) -> Path:
    """An OpenDocument spreadsheet of *tables*: name → the XML of its rows."""
    body = "".join(
        f'<table:table table:name="{n}">{rows}</table:table>' for n, rows in tables.items()
    )
    content = (
        '<?xml version="1.0" encoding="UTF-8"?><office:document-content '
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">'
        f"<office:body><office:spreadsheet>{body}</office:spreadsheet></office:body>"
        "</office:document-content>"
    )
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        z.writestr(
            "META-INF/manifest.xml",
            '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:'
            'manifest:1.0"><manifest:file-entry manifest:full-path="/" manifest:media-type='
            '"application/vnd.oasis.opendocument.spreadsheet"/></manifest:manifest>',
        )
        z.writestr("content.xml", content, compress_type=zipfile.ZIP_DEFLATED)
    return path


def _cell(value: str, repeat: int = 1) -> str:
    rep = f' table:number-columns-repeated="{repeat}"' if repeat > 1 else ""
    return f'<table:table-cell office:value-type="string"{rep}><text:p>{value}</text:p></table:table-cell>'


def _row(cells: str, repeat: int = 1) -> str:
    rep = f' table:number-rows-repeated="{repeat}"' if repeat > 1 else ""
    return f"<table:table-row{rep}>{cells}</table:table-row>"


@pytest.fixture
def no_grid(monkeypatch):
    """The spreadsheet reader's grid is never built (the refusal comes first)."""
    import python_calamine

    def never(*args, **kwargs):
        raise AssertionError("the sheet's grid was built")

    monkeypatch.setattr(python_calamine.CalamineWorkbook, "get_sheet_by_name", never)


@pytest.fixture
def no_open(monkeypatch):
    """The workbook is never opened by the spreadsheet reader (the refusal comes first)."""
    import python_calamine

    def never(*args, **kwargs):
        raise AssertionError("the workbook was opened")

    monkeypatch.setattr(python_calamine.CalamineWorkbook, "from_path", never)


_COLUMNS_NOTE = (
    "MAX_COLUMNS = 1,000; raise it with the environment variable RRMAP_MAX_COLUMNS, or "
    "rrmap._io.reading_limits.MAX_COLUMNS in Python"
)
_CELLS_NOTE = (
    "MAX_SHEET_CELLS = 20,000,000; raise it with the environment variable "
    "RRMAP_MAX_SHEET_CELLS, or rrmap._io.reading_limits.MAX_SHEET_CELLS in Python"
)


# --- sheets -----------------------------------------------------------------------------------


def test_a_far_cell_is_one_line_and_exit_code_1_not_an_abort(tmp_path, no_grid):
    """A 7 kB workbook with one value at XFD1048576 asked the reader for 512 GiB (SIGABRT)."""
    path = xlsx(tmp_path / "far.xlsx", '<row r="1048576"><c r="XFD1048576"><v>1</v></c></row>')
    result = CliRunner().invoke(main, ["points", str(path)])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {path}: 1 problem: sheet 'ratings' reaches column XFD (16,384 columns), more "
        f"than rrmap reads in one table ({_COLUMNS_NOTE}): a value far to the right of the "
        "table? delete it, or save the sheet as CSV\n"
    )


def test_a_cell_far_below_is_refused_by_the_cells_it_spans(tmp_path, no_grid):
    path = xlsx(tmp_path / "low.xlsx", '<row r="1000000"><c r="Z1000000"><v>1</v></c></row>')
    with pytest.raises(RatingsError) as info:
        load_ratings(path)
    assert str(info.value) == (
        f"{path}: 1 problem: sheet 'ratings' reaches cell Z1000000 (1,000,000 rows × 26 "
        f"columns = 26,000,000 cells from A1), more than rrmap reads in one sheet "
        f"({_CELLS_NOTE}): a value far below the table, or repeated? delete it, or save the "
        "sheet as CSV"
    )


def test_the_limits_are_raised_from_the_environment_or_in_python(tmp_path, monkeypatch):
    far = '<c r="ALN1" t="inlineStr"><is><t>note</t></is></c></row>'
    path = xlsx(tmp_path / "wide.xlsx", "", head=_HEAD.replace("</row>", far, 1))
    with pytest.raises(RatingsError, match=r"reaches column ALN \(1,002 columns\)"):
        read_table(path)
    monkeypatch.setenv("RRMAP_MAX_COLUMNS", "1002")
    assert read_table(path).header == ["expert", "x", "note"]  # empty columns dropped
    monkeypatch.setenv("RRMAP_MAX_COLUMNS", "")
    monkeypatch.setattr(_reading_limits, "MAX_COLUMNS", 2000)
    assert read_table(path).header == ["expert", "x", "note"]
    monkeypatch.setenv("RRMAP_MAX_COLUMNS", "many")
    with pytest.raises(InputError) as info:
        read_table(path)
    assert str(info.value) == (
        "the environment variable RRMAP_MAX_COLUMNS='many' is not a whole number >= 0 (it "
        "raises rrmap._io.reading_limits.MAX_COLUMNS = 2,000)"
    )


def test_the_declared_dimension_is_not_trusted_either_way(tmp_path, no_grid):
    lying_big = xlsx(tmp_path / "big.xlsx", "", dimension="A1:XFD1048576")
    assert sheet_extent(lying_big, "ratings") == (2, 2)
    lying_small = xlsx(
        tmp_path / "small.xlsx", '<row r="1048576"><c r="XFD1048576"><v>1</v></c></row>'
    )
    assert sheet_extent(lying_small, "ratings") == (1_048_576, 16_384)


def test_empty_and_styled_cells_do_not_count(tmp_path):
    rows = '<row r="1048576"><c r="XFD1048576" s="1"/><c r="XFC1048576" s="1"></c></row>'
    path = xlsx(tmp_path / "styled.xlsx", rows)
    assert sheet_extent(path, "ratings") == (2, 2)
    assert read_table(path).header == ["expert", "x"]


def test_cells_without_references_are_placed_as_the_reader_places_them(tmp_path, no_grid):
    """A row of 1,500 cells without ``r`` spans 1,500 columns; a prefix changes nothing."""
    row = "<row>" + "<c><v>1</v></c>" * 1500 + "</row>"
    path = xlsx(tmp_path / "norefs.xlsx", row)
    assert sheet_extent(path, "ratings") == (3, 1500)
    with pytest.raises(RatingsError, match=r"reaches column BER \(1,500 columns\)"):
        read_table(path)
    head = _HEAD.replace("<c ", "<x:c ").replace("</c>", "</x:c>")
    far = '<row r="9"><x:c r="C9"><v>1</v></x:c></row>'
    assert sheet_extent(xlsx(tmp_path / "prefixed.xlsx", far, head=head), "ratings") == (9, 3)


def test_a_large_sheet_is_measured_in_array_operations(tmp_path):
    """Every cell written by a spreadsheet program (``<c r="…">``): no Python loop."""
    rows = "".join(
        f'<row r="{r}">'
        + "".join(f'<c r="{c}{r}"><v>{r}</v></c>' for c in "ABCDEFGHIJK")
        + "</row>"
        for r in range(3, 30_003)
    )
    path = xlsx(tmp_path / "large.xlsx", rows)
    assert sheet_extent(path, "ratings") == (30_002, 11)
    assert sheet_extent(path.read_bytes(), "ratings") == (30_002, 11)


def test_an_ods_bomb_is_refused_before_the_workbook_is_opened(tmp_path, no_open):
    """Its reader builds every sheet on opening: a 1 kB file asked for 82 million cells."""
    head = _row(_cell("expert") + _cell("x"))
    path = ods(tmp_path / "bomb.ods", {"S1": head + _row(_cell("E1") + _cell("1", 16382), 5000)})
    assert path.stat().st_size < 2000
    with pytest.raises(RatingsError) as info:
        load_ratings(path)
    assert str(info.value) == (
        f"{path}: 1 problem: sheet 'S1' reaches cell XFC5001 (5,001 rows × 16,383 columns = "
        f"81,931,383 cells from A1), more than rrmap reads in one workbook ({_CELLS_NOTE}): a "
        "value far below the table, or repeated? delete it, or save the sheet as CSV"
    )


def test_ods_sheets_count_together_and_empty_repeats_do_not(tmp_path):
    head = _row(_cell("expert") + _cell("x"))
    empty = '<table:table-cell table:number-columns-repeated="16382"/>'
    tables = {
        "a": head + _row(_cell("E1") + _cell("1") + empty)
        + _row('<table:table-cell table:number-columns-repeated="16384"/>', 1_048_574),
        "b": head + _row(_cell("E1") + _cell("2", 9), 1_500_000),
        "c &amp; d": head + _row(_cell("E1") + _cell("2", 9), 1_500_000),
    }  # fmt: skip
    path = ods(tmp_path / "three.ods", tables)
    assert ods_extents(path) == [("a", 2, 2), ("b", 1_500_001, 10), ("c & d", 1_500_001, 10)]
    with pytest.raises(RatingsError, match=r"sheet 'b' reaches cell J1500001 \(1,500,001 rows "
                       r"× 10 columns = 15,000,010 cells from A1; the workbook's sheets span "
                       r"30,000,024 cells together, all read on opening\), more than rrmap "
                       r"reads in one workbook"):  # fmt: skip
        read_table(path, sheet="a")


def test_an_xls_far_cell_is_refused_before_the_workbook_is_opened(no_open):
    """Its reader builds every sheet on opening: a 6 kB file asked for 34 GB and aborted."""
    path = Path(__file__).parent / "data" / "hostile" / "far_cell.xls"
    assert xls_extents(path) == [("S", 65_536, 16_384)]
    with pytest.raises(RatingsError) as info:
        load_ratings(path)
    assert str(info.value) == (
        f"{path}: 1 problem: sheet 'S' reaches cell XFD65536 (65,536 rows × 16,384 columns = "
        f"1,073,741,824 cells from A1), more than rrmap reads in one workbook ({_CELLS_NOTE}): "
        "a value far below the table, or repeated? delete it, or save the sheet as CSV"
    )


def _record(kind: int, data: bytes = b"") -> bytes:
    """A BIFF12 record: its type and length as 7-bit groups, then *data*."""
    head = bytes([kind]) if kind < 0x80 else bytes([(kind & 0x7F) | 0x80, kind >> 7])
    size, n = b"", len(data)
    while True:
        size += bytes([(n & 0x7F) | (0x80 if n > 0x7F else 0)])
        n >>= 7
        if not n:
            return head + size + data


def xlsb(path: Path, cells: list[tuple[int, int, float]]) -> Path:
    """A binary workbook of one sheet 'S' holding *cells* (row, column, number), 0-based."""

    def wide(text: str) -> bytes:
        return struct.pack("<I", len(text)) + text.encode("utf-16-le")

    book = _record(0x83) + _record(0x9C, struct.pack("<II", 0, 1) + wide("rId1") + wide("S"))
    book += _record(0x90) + _record(0x9D, bytes(26)) + _record(0x84)
    sheet = _record(0x81) + _record(0x94, bytes(16)) + _record(0x91)
    for row, col, value in cells:
        sheet += _record(0x00, struct.pack("<I", row) + bytes(13))
        sheet += _record(0x05, struct.pack("<IId", col, 0, value))
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("_rels/.rels", _RELS.replace("xl/workbook.xml", "xl/workbook.bin"))
        z.writestr(
            "xl/_rels/workbook.bin.rels",
            '<Relationships><Relationship Id="rId1" Type="' + rel + '/worksheet" '
            'Target="worksheets/sheet1.bin"/></Relationships>',
        )
        z.writestr("xl/workbook.bin", book)
        z.writestr("xl/worksheets/sheet1.bin", sheet + _record(0x92) + _record(0x82))
    return path


def test_an_xlsb_sheet_is_measured_as_read(tmp_path):
    near = xlsb(tmp_path / "near.xlsb", [(0, 0, 1.0), (0, 1, 2.0), (1, 0, 3.0), (1, 1, 4.0)])
    assert sheet_extent(near, "S") == (2, 2)
    assert read_table(near).header == ["1", "2"]


def test_an_xlsb_far_cell_is_refused_before_the_grid_is_built(tmp_path, no_grid):
    path = xlsb(tmp_path / "far.xlsb", [(0, 0, 1.0), (0, 1, 2.0), (1_048_575, 16_383, 4.0)])
    assert sheet_extent(path, "S") == (1_048_576, 16_384)
    with pytest.raises(RatingsError, match=r"sheet 'S' reaches column XFD \(16,384 columns\)"):
        read_table(path)


@pytest.mark.parametrize("name", ["study.xlsx", "study.ods"])
def test_a_spreadsheet_programs_workbook_is_measured_as_read(name):
    import python_calamine

    path = STUDY.parent / name
    sheet = python_calamine.CalamineWorkbook.from_path(str(path)).sheet_names[0]
    table = read_table(path)
    assert sheet_extent(path, sheet) == (len(table.cells) + 1, len(table.header))


# --- columns of a text file -------------------------------------------------------------------


def test_a_text_file_wider_than_the_limit_is_refused_before_parsing(tmp_path, monkeypatch):
    import pandas as pd

    def never(*args, **kwargs):
        raise AssertionError("the cells were parsed")

    path = tmp_path / "wide.csv"
    header = ",".join(["expert", "origin", *(f"x{i}" for i in range(10_000))])
    path.write_text(header + "\n" + ",".join(["E1", "real", *["0"] * 10_000]) + "\n")
    monkeypatch.setattr(pd, "read_csv", never)
    result = CliRunner().invoke(main, ["points", str(path)])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {path}: 1 problem: line 1 has 10,002 fields (comma-separated), more than "
        f"rrmap reads in one table ({_COLUMNS_NOTE}): a table of ratings has a column per "
        "variable, one row per rating\n"
    )


def test_a_table_of_exactly_the_limit_is_read(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text(";".join(f"c{i}" for i in range(1000)) + "\n" + ";".join("1" * 1000) + "\n")
    assert len(read_table(path).header) == 1000
    path.write_text(";".join(f"c{i}" for i in range(1001)) + "\n" + ";".join("1" * 1001) + "\n")
    with pytest.raises(RatingsError, match=r"line 1 has 1,001 fields \(semicolon-separated\)"):
        read_table(path)


# --- FIFOs ------------------------------------------------------------------------------------


def test_a_fifo_without_a_writer_is_refused_after_the_wait(tmp_path, monkeypatch, capsys):
    import rrmap._io.reading_limits as limits

    monkeypatch.setenv("RRMAP_MAX_FIFO_WAIT", "1")
    monkeypatch.setattr(limits, "_FIFO_NOTICE", 0.25)  # said after a quarter second, not 1 s
    path = tmp_path / "ratings.csv"
    os.mkfifo(path)
    before = threading.active_count()
    start = time.monotonic()
    with pytest.raises(RatingsError) as info:
        load_ratings(path)
    assert 0.95 < time.monotonic() - start
    assert str(info.value) == (
        f"{path}: 1 problem: a FIFO that no program opened for writing in 1 s (MAX_FIFO_WAIT "
        "= 1; raise it with the environment variable RRMAP_MAX_FIFO_WAIT, or "
        "rrmap._io.reading_limits.MAX_FIFO_WAIT in Python): start the program that writes to "
        "it, or give a file"
    )
    assert capsys.readouterr().err == (
        f"waiting for a program to write to {path}: a FIFO that no program has opened yet "
        "(at most 1 s: MAX_FIFO_WAIT)\n"
    )
    assert threading.active_count() == before  # the thread that waited was let go


@pytest.mark.slow
def test_a_fifo_whose_writer_comes_late_is_read_and_the_wait_said(tmp_path, capsys):
    path = tmp_path / "ratings.csv"
    os.mkfifo(path)

    def write_later():
        time.sleep(1.5)
        with open(path, "wb") as fh:
            fh.write(STUDY.read_bytes())

    writer = threading.Thread(target=write_later, daemon=True)
    writer.start()
    assert len(load_ratings(path)) == len(load_ratings(STUDY))
    writer.join(5)
    assert capsys.readouterr().err.startswith(f"waiting for a program to write to {path}: ")


def test_the_command_line_says_it_waits_and_exits_1(tmp_path):
    path = tmp_path / "ratings.csv"
    os.mkfifo(path)
    result = CliRunner(env={"RRMAP_MAX_FIFO_WAIT": "0"}).invoke(main, ["points", str(path)])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {path}: 1 problem: a FIFO that no program opened for writing in 0 s "
        "(MAX_FIFO_WAIT = 0; raise it with the environment variable RRMAP_MAX_FIFO_WAIT, or "
        "rrmap._io.reading_limits.MAX_FIFO_WAIT in Python): start the program that writes to "
        "it, or give a file\n"
    )


def test_a_pipe_is_not_waited_for(tmp_path):
    """``<(cat ratings.csv)``: an anonymous pipe opens at once, even once its writer left."""
    read_end, write_end = os.pipe()
    with os.fdopen(write_end, "wb") as fh:
        fh.write(b"expert,x\nE1,1\n")
    try:
        table = read_table(f"/dev/fd/{read_end}")
    finally:
        os.close(read_end)
    assert table.header == ["expert", "x"]


def test_line_watch_sees_a_long_run_inside_one_block():
    watch = _reading_limits.LineWatch(limit=10)
    assert watch.feed(b"a\nbb\n" + b"c" * 30 + b"\nd") == (
        "line 3 is over 10 bytes long, more than rrmap reads in one line "
        "(MAX_LINE_BYTES = 10 bytes)"
    )
    wide = _reading_limits.LineWatch(limit=10)  # NUL bytes: UTF-16, four times the limit
    assert wide.feed("a\nbbbbbbbbbbbbbbbbbb\n".encode("utf-16-le")) is None
