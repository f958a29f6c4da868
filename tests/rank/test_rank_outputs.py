"""Outputs of rrmap.rank: CSV cells safe in a spreadsheet, labels escaped in Markdown,
every file written whole or not at all."""

from __future__ import annotations

import errno
import io
import json
import os

import pandas as pd
import pytest
from click.testing import CliRunner

import rrmap._util.atomic as atomic_module
from rrmap.cli import main
from rrmap.rank import read_comparisons, write_comparisons

LINK = '=HYPERLINK("http://x","y")'


@pytest.fixture
def hostile(tmp_path):
    """Three candidates, one named like a formula and one like Markdown; a cycle at j."""
    rows = [
        ("i", LINK, "B", "left"), ("i", "B", LINK, "right"), ("i", "**b**|c", "B", "left"),
        ("i", "B", "**b**|c", "right"), ("i", LINK, "**b**|c", "right"),
        ("i", "@x", "B", "left"), ("i", "B", "@x", "left"),
        ("j", LINK, "B", "left"), ("j", "B", "@x", "left"), ("j", "@x", LINK, "left"),
    ]  # fmt: skip
    path = tmp_path / "prefs.csv"
    pd.DataFrame(rows, columns=["instance", "left", "right", "winner"]).to_csv(path, index=False)
    return path


def _run(*args):
    return CliRunner().invoke(main, ["rank", *map(str, args)])


def test_fit_csv_is_spreadsheet_safe_unless_raw(hostile, tmp_path):
    res = _run("fit", hostile, "--columns", "candidate,rank")
    assert res.exit_code == 0, res.output
    names = set(pd.read_csv(io.StringIO(res.stdout))["candidate"])
    assert names == {"'" + LINK, "'@x", "**b**|c", "B"}
    raw = _run("fit", hostile, "--columns", "candidate,rank", "--raw-csv")
    assert set(pd.read_csv(io.StringIO(raw.stdout))["candidate"]) == {LINK, "@x", "**b**|c", "B"}
    out = tmp_path / "fit.csv"
    assert _run("fit", hostile, "-o", out).exit_code == 0
    assert "\n'=HYPERLINK" in out.read_text().replace('"', "")


def test_fit_markdown_escapes_labels(hostile):
    res = _run("fit", hostile, "--columns", "candidate,rank", "--format", "markdown")
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0] == "| candidate | rank |"
    assert r"| \*\*b\*\*\|c |" in res.stdout
    assert all(line.count("|") - line.count(r"\|") == 3 for line in lines)


def test_json_output_keeps_labels_as_they_are(hostile):
    res = _run("fit", hostile, "--columns", "candidate", "--format", "json")
    assert {r["candidate"] for r in json.loads(res.stdout)} == {LINK, "@x", "**b**|c", "B"}


def test_reports_of_filter_are_spreadsheet_safe(hostile, tmp_path):
    dropped, report, kept = tmp_path / "d.csv", tmp_path / "r.csv", tmp_path / "k.csv"
    res = _run("filter", hostile, "--tie-band", "0.45", "0.55", "--dropped", dropped,
               "--instances-report", report, "-o", kept)  # fmt: skip
    assert res.exit_code == 0, res.output
    d = pd.read_csv(dropped)
    assert d["reason"].tolist() == ["tie_band", "non_transitive"]
    assert set(d["candidate_a"].dropna()) | set(d["candidate_b"].dropna()) == {"'@x", "B"}
    assert set(pd.read_csv(kept)["left"]) == {"'" + LINK, "B", "**b**|c"}
    raw = tmp_path / "raw.csv"
    assert _run("filter", hostile, "-o", raw, "--raw-csv").exit_code == 0
    assert set(read_comparisons(raw)["left"]) == {LINK, "B", "**b**|c"}


def test_sample_csv_is_spreadsheet_safe():
    res = _run("sample", "--design", "global", "--candidates", "-a,+b", "--instances", "1",
               "-n", "1", "--keep-sides")  # fmt: skip
    assert res.exit_code == 0, res.output
    assert pd.read_csv(io.StringIO(res.stdout))[["left", "right"]].values.tolist() == [
        ["'-a", "'+b"]
    ]


def test_write_comparisons_safe_by_default_and_raw_on_request(tmp_path):
    df = pd.DataFrame({"instance": ["i"], "left": [LINK], "right": ["-B"], "winner": ["left"]})
    path = write_comparisons(df, tmp_path / "c.csv")
    assert read_comparisons(path)[["left", "right"]].values.tolist() == [["'" + LINK, "'-B"]]
    write_comparisons(df, path, raw_csv=True)
    assert read_comparisons(path)[["left", "right"]].values.tolist() == [[LINK, "-B"]]


def _full_disk(*_args, **_kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_full_disk_leaves_the_earlier_file_whole(hostile, tmp_path, monkeypatch):
    out = tmp_path / "fit.csv"
    assert _run("fit", hostile, "-o", out).exit_code == 0
    before = out.read_text()
    monkeypatch.setattr(atomic_module.os, "fsync", _full_disk)
    res = _run("fit", hostile, "-o", out, "--force", "--model", "elo", "--shuffles", "3")
    assert res.exit_code == 1
    assert out.read_text() == before
    assert sorted(os.listdir(tmp_path)) == ["fit.csv", "prefs.csv"]  # no temporary left


def test_write_comparisons_cut_short_keeps_the_earlier_file(tmp_path, monkeypatch):
    df = pd.DataFrame({"instance": ["i"], "left": ["A"], "right": ["B"], "winner": ["left"]})
    path = write_comparisons(df, tmp_path / "c.csv")
    before = path.read_text()

    def half_then_full(table, target, *args, **kwargs):
        with open(target, "w") as fh:
            fh.write("instance,le")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("rrmap.rank.data.comparisons.write_csv", half_then_full)
    with pytest.raises(OSError, match="No space left"):
        write_comparisons(df.assign(left="C"), path)
    assert path.read_text() == before
    assert os.listdir(tmp_path) == ["c.csv"]


def test_existing_output_refused_before_the_fit(hostile, tmp_path, monkeypatch):
    out = tmp_path / "fit.csv"
    out.write_text("keep me")
    import rrmap.rank.cli as cli_module

    def never(*_args, **_kwargs):
        raise AssertionError("fitted although the output was refused")

    monkeypatch.setattr(cli_module, "_fit", never)
    res = _run("fit", hostile, "-o", out)
    assert res.exit_code == 1 and "exists; use --force" in res.stderr
    assert out.read_text() == "keep me"
