"""A rank input is refused where it passes a reading limit, not after it was read whole:
a line past MAX_LINE_BYTES as its block arrives (a 1 GB one-line file cost 6 GB of
memory before), a FIFO without a writer after a bounded wait."""

from __future__ import annotations

import io
import json
import os

import pytest
from click.testing import CliRunner

from rrmap.cli import main
from rrmap.errors import InputError
from rrmap.rank.data.comparisons import read_comparisons, read_json
from rrmap.rank.data.sources import read_input


class Counted(io.BytesIO):
    """A binary file that counts the bytes read from it."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.name = "prefs.csv"
        self.given = 0

    def read(self, n: int | None = -1) -> bytes:
        data = super().read(n)
        self.given += len(data)
        return data


def test_a_one_line_comparisons_file_is_refused_after_its_first_blocks():
    source = Counted(b"instance,left,right,winner\n" + b"x" * 50_000_000)
    with pytest.raises(InputError) as info:
        read_comparisons(source)
    assert str(info.value) == (
        "prefs.csv: line 2 is over 1 MiB long, more than rrmap reads in one line "
        "(MAX_LINE_BYTES = 1 MiB): not a CSV table? (nothing was read)"
    )
    assert source.given <= 2 * 1024**2


def test_the_command_line_refuses_it_in_one_line(tmp_path):
    path = tmp_path / "prefs.csv"
    path.write_bytes(b"left,right,winner\n" + b"a," * 2_000_000)
    result = CliRunner().invoke(main, ["rank", "fit", str(path)])
    assert result.exit_code == 1
    assert result.output == (
        f"Error: {path}: line 2 is over 1 MiB long, more than rrmap reads in one line "
        "(MAX_LINE_BYTES = 1 MiB): not a CSV table? (nothing was read)\n"
    )


def test_json_on_one_line_is_not_held_to_the_line_limit():
    records = [{"left": "a" * 100, "right": "b", "winner": "left"}] * 20_000
    data = json.dumps(records).encode()
    assert b"\n" not in data and len(data) > 2 * 1024**2
    assert read_input(io.BytesIO(data))[0] == data  # starts like JSON: one line is fine
    assert len(read_json(io.BytesIO(b" \n" + data))) == 20_000


def test_a_long_comparisons_file_is_read_as_before():
    rows = "".join(f"i{i % 7},c{i % 13},c{(i + 1) % 13},left\n" for i in range(50_000))
    df = read_comparisons(io.BytesIO(("instance,left,right,winner\n" + rows).encode()))
    assert len(df) == 50_000


def test_a_fifo_without_a_writer_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("RRMAP_MAX_FIFO_WAIT", "0")
    path = tmp_path / "prefs.csv"
    os.mkfifo(path)
    with pytest.raises(InputError, match=r"a FIFO that no program opened for writing in 0 s"):
        read_comparisons(path)
