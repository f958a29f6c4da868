"""What reading one file may cost (docs/ratings.md, "Limits"): files and streams read once
within MAX_FILE_BYTES, binary and over-long input refused where it starts, workbooks
checked before they are unpacked, UTF-16/UTF-32 told by their marks or their NUL bytes.
"""

from __future__ import annotations

import io
import os
import threading
import zipfile
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import rrmap
from rrmap._io import reading_limits as _reading_limits
from rrmap.cli import main
from rrmap.errors import RatingsError
from rrmap.ratings import load_ratings

EXPORTS = Path(__file__).parent / "data" / "exports"
STUDY = EXPORTS / "study.csv"


@pytest.fixture(scope="module")
def reference_points() -> pd.DataFrame:
    return rrmap.points(load_ratings(STUDY)).drop(columns=["line_ref", "line_query"])


def same_points(path: Path | str, reference: pd.DataFrame, **kw) -> None:
    got = rrmap.points(load_ratings(path, **kw)).drop(columns=["line_ref", "line_query"])
    pd.testing.assert_frame_equal(got, reference)


class Writer(threading.Thread):
    """Writes *data* into a FIFO or a pipe's end once the reader opens it, then closes it."""

    def __init__(self, target: Path | int, data: bytes) -> None:
        super().__init__(daemon=True)
        self.target, self.data, self.broken = target, data, False

    def run(self) -> None:
        try:
            if isinstance(self.target, int):
                with os.fdopen(self.target, "wb") as fh:
                    fh.write(self.data)
            else:
                with open(self.target, "wb") as fh:  # blocks until the reader opens it
                    fh.write(self.data)
        except BrokenPipeError:  # the reader stopped early, as it should past a limit
            self.broken = True


def fifo(tmp_path: Path, data: bytes, name: str = "ratings") -> tuple[Path, Writer]:
    path = tmp_path / name
    os.mkfifo(path)
    writer = Writer(path, data)
    writer.start()
    return path, writer


# --- streams: pipes and FIFOs are read once ---------------------------------------------


def test_a_fifo_is_read_when_its_writer_writes(tmp_path, reference_points):
    path, writer = fifo(tmp_path, STUDY.read_bytes())
    same_points(path, reference_points)
    writer.join(10)
    assert not writer.is_alive() and not writer.broken


def test_a_pipe_reads_like_the_file_it_carries(reference_points):
    """``rrmap points <(cat study.csv)``: the shell gives a /dev/fd path of a pipe."""
    read_end, write_end = os.pipe()
    writer = Writer(write_end, STUDY.read_bytes())
    writer.start()
    try:
        same_points(f"/dev/fd/{read_end}", reference_points)
    finally:
        os.close(read_end)
    writer.join(10)
    assert not writer.broken


def test_a_workbook_through_a_fifo_reads_like_the_workbook(tmp_path):
    expected = rrmap.points(load_ratings(EXPORTS / "study.xlsx"))
    path, writer = fifo(tmp_path, (EXPORTS / "study.xlsx").read_bytes())
    got = rrmap.points(load_ratings(path))
    writer.join(10)
    pd.testing.assert_frame_equal(got, expected)
    assert got.attrs["rrmap"]["read"]["format"] == "sheet"


def test_the_command_line_reads_a_fifo(tmp_path):
    path, writer = fifo(tmp_path, STUDY.read_bytes())
    res = CliRunner().invoke(main, ["points", str(path)])
    writer.join(10)
    assert res.exit_code == 0, res.output
    assert len(res.output.splitlines()) == 1 + len(load_ratings(STUDY)) // 2


# --- sizes ---------------------------------------------------------------------------------


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path, monkeypatch):
    monkeypatch.setattr(_reading_limits, "MAX_FILE_BYTES", 1000)
    path = tmp_path / "big.csv"
    path.write_bytes(STUDY.read_bytes()[:5000])
    with pytest.raises(RatingsError, match=r"the file is 5,000 bytes, more than rrmap reads "):
        load_ratings(path)


def test_a_stream_is_read_up_to_the_size_limit_and_no_further(tmp_path, monkeypatch):
    monkeypatch.setattr(_reading_limits, "MAX_FILE_BYTES", 70_000)
    monkeypatch.setattr(_reading_limits, "_BLOCK", 4096)
    data = STUDY.read_bytes() * (1 + 400_000 // len(STUDY.read_bytes()))  # over 400 KB
    path, writer = fifo(tmp_path, data)
    with pytest.raises(RatingsError, match=r"over 70,000 bytes \(read from a stream\)"):
        load_ratings(path)
    writer.join(10)
    assert writer.broken  # the writer had more to write when the reader stopped


def test_dev_zero_stops_at_its_first_block():
    with pytest.raises(
        RatingsError, match=r"/dev/zero: 1 problem: not a text file: a NUL byte at byte offset 0"
    ):
        load_ratings("/dev/zero")


# --- NUL bytes -----------------------------------------------------------------------------


def test_a_file_of_nul_bytes_is_not_a_text_file(tmp_path):
    path = tmp_path / "zeros.csv"
    path.write_bytes(bytes(300_000))
    with pytest.raises(RatingsError) as exc:
        load_ratings(path)
    assert exc.value.problems == [
        "not a text file: a NUL byte at byte offset 0 (line 1): a binary file? save the sheet "
        "as CSV, or give a .xlsx/.xlsm/.xlsb/.xls/.ods file the matching extension"
    ]


def test_a_nul_byte_deep_in_a_text_file_is_named_by_offset_and_line(tmp_path):
    raw = rrmap.datasets.example_ratings_path().read_bytes()
    lines = raw.split(b"\n")
    at = len(b"\n".join(lines[:699])) + 1 + 5  # 6th byte of line 700
    path = tmp_path / "r.csv"
    path.write_bytes(raw[:at] + b"\x00" + raw[at:])
    assert at > 64 * 1024  # past the first block: found in the decoded text
    with pytest.raises(RatingsError, match=rf"a NUL byte at byte offset {at} \(line 700\)"):
        load_ratings(path)


def test_nul_characters_from_a_wrong_forced_encoding_are_named(tmp_path):
    path = tmp_path / "r.csv"
    path.write_bytes(STUDY.read_text(encoding="utf-8").encode("utf-16"))
    with pytest.raises(
        RatingsError,
        match=r"a NUL byte at byte offset 3 \(line 1\): the file is not latin-1\? pass its "
        r"encoding",
    ):
        load_ratings(path, encoding="latin-1")


# --- UTF-16 and UTF-32 ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "codec, detected",
    [
        ("utf-32", "utf-32"),  # a byte-order mark (little-endian here)
        ("utf-16", "utf-16"),
        ("utf-32-be", "utf-32-be"),  # no mark: told by where the NUL bytes are
        ("utf-32-le", "utf-32-le"),
        ("utf-16-be", "utf-16-be"),
        ("utf-16-le", "utf-16-le"),
    ],
)
def test_utf16_and_utf32_read_like_utf8(tmp_path, reference_points, codec, detected):
    path = tmp_path / "r.csv"
    text = STUDY.read_text(encoding="utf-8")
    data = text.encode(codec)
    if codec == "utf-32" and not data.startswith(b"\xff\xfe\x00\x00"):
        data = b"\xff\xfe\x00\x00" + text.encode("utf-32-le")  # a big-endian machine
    path.write_bytes(data)
    same_points(path, reference_points)
    assert load_ratings(path).attrs["rrmap"]["read"]["encoding"] == detected


def test_utf32_with_a_big_endian_mark(tmp_path, reference_points):
    path = tmp_path / "r.csv"
    path.write_bytes(b"\x00\x00\xfe\xff" + STUDY.read_text(encoding="utf-8").encode("utf-32-be"))
    same_points(path, reference_points)


# --- lines and fields ------------------------------------------------------------------------


def test_a_line_over_the_limit_is_named(tmp_path):
    rows = STUDY.read_text(encoding="utf-8").splitlines()
    long = "x" * (_reading_limits.MAX_LINE_BYTES + 10)
    rows[3] = long + rows[3][rows[3].index(",") :]  # the movement of line 4
    path = tmp_path / "r.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    with pytest.raises(
        RatingsError,
        match=r"line 4 is over 1 MiB long, more than rrmap reads in one line "
        r"\(MAX_LINE_BYTES = 1 MiB\): not a table of ratings\?",
    ):
        load_ratings(path)


def test_a_line_over_the_limit_in_utf16_is_measured_once_decoded(tmp_path):
    """UTF-16 writes ASCII in two bytes: 1.5 MiB of bytes is a line of 0.75 MiB, read; a
    line of 1.1 MiB of characters is found after decoding, with its length."""
    from rrmap._io.tabular import read_table

    rows = STUDY.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "r.csv"
    ok = [r + ("x" * 780_000 if i == 3 else "") for i, r in enumerate(rows)]
    path.write_bytes(("\n".join(ok) + "\n").encode("utf-16"))
    assert path.stat().st_size > 1.5 * _reading_limits.MAX_LINE_BYTES
    assert read_table(path).cells.iloc[2, -1].endswith("x" * 780_000)
    long = [r + ("x" * (_reading_limits.MAX_LINE_BYTES + 10) if i == 3 else "") for i, r in
            enumerate(rows)]  # fmt: skip
    path.write_bytes(("\n".join(long) + "\n").encode("utf-16"))
    n = len(long[3].encode("utf-8"))
    with pytest.raises(RatingsError, match=rf"line 4 is {n:,} bytes long, more than rrmap"):
        load_ratings(path)


def test_a_one_line_file_is_refused_after_its_first_blocks(tmp_path, monkeypatch):
    """A file of one 50 MB line is refused where the line passes the limit: the reading
    stops there (blocks of 1 MiB are read; 3 of them here), nothing is decoded."""
    path = tmp_path / "r.csv"
    path.write_bytes(b"expert,origin\n" + b"x" * 50_000_000)
    reads = []
    real_open = _reading_limits.open_input

    def counting_open(*args):
        fh = real_open(*args)
        read = fh.read
        fh_reads = reads

        class Counted:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                fh.close()

            def read(self, n=-1):
                data = read(n)
                fh_reads.append(len(data))
                return data

        return Counted()

    monkeypatch.setattr(_reading_limits, "open_input", counting_open)
    with pytest.raises(RatingsError, match=r"line 2 is over 1 MiB long, more than rrmap"):
        load_ratings(path)
    assert sum(reads) < 3 * 1024**2


def test_the_command_line_refuses_a_long_line_in_one_line(tmp_path):
    path = tmp_path / "r.csv"
    path.write_bytes(b"expert,origin\r" + b"x" * 3_000_000)  # classic Mac line ends
    result = CliRunner().invoke(main, ["points", str(path)])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {path}: 1 problem: line 2 is over 1 MiB long, more than rrmap reads in one "
        "line (MAX_LINE_BYTES = 1 MiB): not a table of ratings?\n"
    )


def test_a_quoted_field_over_the_limit_is_named(tmp_path):
    field = "\n".join(["y" * 1000] * 1100)  # short lines, one field of 1.1 million characters
    path = tmp_path / "r.csv"
    path.write_text(f'expert,origin,note\nE1,real,"{field}"\n', encoding="utf-8")
    with pytest.raises(
        RatingsError, match=r"line 2: a field longer than 1,048,576 characters, more than"
    ):
        load_ratings(path)


def test_a_quoted_field_longer_than_the_csv_modules_default_is_read(tmp_path):
    """The csv module stops at 131,072 characters by default; rrmap's limit is its own."""
    rows = STUDY.read_text(encoding="utf-8").splitlines()
    header = rows[0].split(",")
    note = "z" * 200_000
    lines = [",".join([*header, "note"])]
    lines += [f'{r},"{note if i == 0 else "n"}"' for i, r in enumerate(rows[1:])]
    path = tmp_path / "r.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    df = load_ratings(path, categories=["movement", "criterion", "modality"])
    assert len(df) == len(rows) - 1


# --- workbooks -------------------------------------------------------------------------------


def _workbook_with_sheet(tmp_path: Path, sheet_xml: bytes, name: str = "r.xlsx") -> Path:
    path = tmp_path / name
    source = zipfile.ZipFile(EXPORTS / "study.xlsx")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            data = source.read(info)
            out.writestr(info.filename, sheet_xml if info.filename.endswith("sheet1.xml") else data)
    return path


def test_a_workbook_that_unpacks_far_beyond_its_size_is_refused_before_parsing(
    tmp_path, monkeypatch
):
    sheet = zipfile.ZipFile(EXPORTS / "study.xlsx").read("xl/worksheets/sheet1.xml")
    padded = sheet.replace(b"</sheetData>", b"</sheetData>" + b" " * 5_000_000)
    path = _workbook_with_sheet(tmp_path, padded)

    import python_calamine

    def never(*args, **kwargs):
        raise AssertionError("the workbook was parsed")

    monkeypatch.setattr(python_calamine.CalamineWorkbook, "from_path", never)
    with pytest.raises(
        RatingsError,
        match=r"the workbook's member 'xl/worksheets/sheet1.xml' unpacks to 5,176,286 bytes, "
        r"\d+ times its compressed size \(MAX_ARCHIVE_RATIO = 100\)",
    ):
        load_ratings(path)


def test_a_workbook_over_the_unpacked_size_limit_is_refused(monkeypatch):
    monkeypatch.setattr(_reading_limits, "MAX_ARCHIVE_BYTES", 100_000)
    total = sum(i.file_size for i in zipfile.ZipFile(EXPORTS / "study.ods").infolist())
    with pytest.raises(
        RatingsError, match=rf"the workbook unpacks to {total:,} bytes, more than rrmap reads"
    ):
        load_ratings(EXPORTS / "study.ods")


def test_a_damaged_archive_is_not_a_readable_spreadsheet(tmp_path):
    path = tmp_path / "r.xlsx"
    path.write_bytes(b"PK\x03\x04" + b"garbage" * 10)
    with pytest.raises(RatingsError, match=r"not a readable spreadsheet \("):
        load_ratings(path)


def test_the_archive_check_reads_the_members_sizes():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("small.xml", b" " * 1000)  # a high ratio, but small: allowed
    src = _reading_limits.Source(buf.getvalue(), True, False)
    assert _reading_limits.check_archive(src, Path("r.xlsx"), "r.xlsx") is None


# --- the command line ------------------------------------------------------------------------


def test_binary_input_is_one_line_and_exit_code_1(tmp_path):
    path = tmp_path / "zeros.csv"
    path.write_bytes(bytes(1000))
    res = CliRunner().invoke(main, ["points", str(path)])
    assert res.exit_code == 1
    assert res.output.startswith("Error: ") and res.output.count("\n") == 1
    assert "not a text file: a NUL byte at byte offset 0 (line 1)" in res.output
