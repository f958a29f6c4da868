"""``-`` in ``rrmap rank``: standard input for every input, standard output for every table;
rank readers take open binary files; Python tables sorted as the command line sorts them."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from rrmap.cli import main
from rrmap.errors import InputError
from rrmap.rank import (
    fit_bradley_terry,
    fit_elo,
    fit_plackett_luce,
    read_comparisons,
    read_fineartbench,
    read_rankings,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "fineartbench"
PREFS = (
    "instance,left,right,winner\n"
    "i1,A,B,left\ni1,B,C,left\ni1,C,A,left\ni1,A,C,left\ni1,B,A,right\n"
    "i2,A,B,left\ni2,B,C,left\ni2,C,A,right\ni2,A,C,left\ni2,B,C,right\n"
)


def _run(args, stdin: bytes, tmp_path):
    """The real command in a process, so that standard input is a pipe."""
    cmd = [sys.executable, "-m", "rrmap.cli", *args]
    return subprocess.run(cmd, input=stdin, capture_output=True, timeout=300, cwd=tmp_path)


def _invoke(args, stdin: bytes, tmp_path):
    """The same command in this process (click's runner), answered as :func:`_run` answers."""
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(tmp_path)
        res = CliRunner().invoke(main, args, input=stdin)
    return subprocess.CompletedProcess(args, res.exit_code, res.stdout_bytes, res.stderr_bytes)


@pytest.fixture(
    params=[
        "in-process",
        # the same command on a real pipe; the pipe itself keeps its check in the default
        # tier (test_fit_reads_standard_input_as_the_file and the FineArtBench one)
        pytest.param("pipe", marks=pytest.mark.slow),
    ]
)
def run(request):
    """Run a command with standard input: in this process, or (slow tier) on a real pipe."""
    return _run if request.param == "pipe" else _invoke


@pytest.mark.slow  # a further pipe: the FineArtBench file on standard input (below) stays
def test_fit_reads_standard_input_as_the_file(tmp_path):
    path = tmp_path / "prefs.csv"
    path.write_text(PREFS)
    piped = _run(["rank", "fit", "-", "--by", "instance"], PREFS.encode(), tmp_path)
    from_file = CliRunner().invoke(main, ["rank", "fit", str(path), "--by", "instance"])
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.decode() == from_file.stdout and piped.stdout.count(b"\n") == 7
    assert piped.stderr.decode().startswith("<stdin>: 10 comparisons")
    assert not (tmp_path / "-").exists()


def test_fineartbench_json_on_standard_input_is_told_by_its_first_character(tmp_path):
    data = (DATA / "global_annotation.json").read_bytes()
    piped = _run(["rank", "fit", "-", "-o", "-", "--format", "json"], data, tmp_path)
    assert piped.returncode == 0, piped.stderr
    assert piped.stderr.decode().startswith(
        "<stdin>: 5000 records, 2116 comparisons used; excluded: skipped 976, unannotated 1908"
    )
    table = pd.read_json(io.StringIO(piped.stdout.decode()))
    ref = fit_bradley_terry(read_fineartbench(DATA / "global_annotation.json").comparisons).table
    assert table["candidate"].tolist() == ref["candidate"].tolist()
    np.testing.assert_allclose(table["score"], ref["score"], atol=1e-12)
    assert not (tmp_path / "-").exists()


def test_errors_on_standard_input_name_it(tmp_path, run):
    bad = run(["rank", "fit", "-"], b"left,right,winner\nA,B,sideways\n", tmp_path)
    assert bad.returncode == 1
    assert bad.stderr.decode().startswith("Error: <stdin>: ")
    assert "line 2" in bad.stderr.decode() and "Traceback" not in bad.stderr.decode()
    empty = CliRunner().invoke(main, ["rank", "fit", "-", "--input-format", "fineartbench"],
                               input=b"{}")  # fmt: skip
    assert empty.exit_code == 1
    assert empty.stderr == "Error: <stdin>: expected a JSON list of records, got an object\n"


def test_filter_writes_standard_output_and_a_report_to_a_file(tmp_path, run):
    res = run(["rank", "filter", "-", "--eta", "0.5", "--dropped", "dropped.csv", "-o", "-"],
               PREFS.encode(), tmp_path)  # fmt: skip
    assert res.returncode == 0, res.stderr
    kept = pd.read_csv(io.BytesIO(res.stdout))
    dropped = pd.read_csv(tmp_path / "dropped.csv")
    assert len(kept) + int(dropped["n_comparisons"].sum()) == 10
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dropped.csv"]


def test_a_report_takes_standard_output_only_when_the_table_goes_to_a_file(tmp_path, run):
    clash = CliRunner().invoke(main, ["rank", "filter", "-", "--dropped", "-"], input=PREFS)
    assert clash.exit_code == 2
    assert "- (standard output) already carries the main output" in clash.stderr
    res = run(["rank", "filter", "-", "--eta", "0.5", "--dropped", "-", "-o", "kept.csv"],
               PREFS.encode(), tmp_path)  # fmt: skip
    assert res.returncode == 0, res.stderr
    dropped = pd.read_csv(io.BytesIO(res.stdout))
    kept = pd.read_csv(tmp_path / "kept.csv")
    assert dropped["reason"].tolist() == ["tie_band", "tie_band"]
    assert len(kept) + int(dropped["n_comparisons"].sum()) == 10
    assert (tmp_path / "kept.csv").is_file() and not (tmp_path / "-").exists()


def test_align_reads_one_input_from_standard_input(tmp_path, monkeypatch, run):
    monkeypatch.chdir(tmp_path)
    human = tmp_path / "human.csv"
    human.write_text(PREFS)
    fitted = CliRunner().invoke(main, ["rank", "fit", str(human), "--by", "instance", "-o",
                                       "model.csv"])  # fmt: skip
    assert fitted.exit_code == 0, fitted.output
    model = (tmp_path / "model.csv").read_bytes()
    piped = run(["rank", "align", str(human), "-", "--by", "instance"], model, tmp_path)
    direct = CliRunner().invoke(main, ["rank", "align", str(human), "model.csv", "--by",
                                       "instance"])  # fmt: skip
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.decode().replace("<stdin>", "model.csv") == direct.stdout
    both = CliRunner().invoke(main, ["rank", "align", "-", "-"], input=PREFS)
    assert both.exit_code == 2
    assert "- (standard input) can stand for one input only" in both.stderr


def test_sample_reads_candidate_names_from_standard_input(tmp_path):
    res = CliRunner().invoke(main, ["rank", "sample", "--design", "global", "--candidates",
                                    "@-", "--instances", "2", "-n", "3", "--seed", "1"],
                             input="A\n\nB\nC\n")  # fmt: skip
    assert res.exit_code == 0, res.output
    table = pd.read_csv(io.StringIO(res.stdout))
    assert len(table) == 3 and set(table["left"]) | set(table["right"]) <= {"A", "B", "C"}


def test_readers_take_open_binary_files_and_name_them():
    df = read_comparisons(io.BytesIO(PREFS.encode()))
    assert len(df) == 10
    ranked = read_rankings(io.BytesIO(b"ranking\nA > B\nB > C > A\n"))
    assert ranked["ranking"].tolist() == ["A > B", "B > C > A"]
    named = io.BytesIO(b"left,right,winner\nA,B,up\n")
    named.name = "upload.csv"
    with pytest.raises(InputError, match=r"^upload\.csv: .*line 2"):
        read_comparisons(named)
    with pytest.raises(InputError, match=r"^<buffer>: opened as text; open it in binary mode"):
        read_comparisons(io.StringIO(PREFS))  # type: ignore[arg-type]


def test_python_tables_are_sorted_as_the_command_line_sorts_them(tmp_path):
    df = pd.read_csv(io.StringIO(PREFS))
    for fit in (fit_bradley_terry(df, by="instance"), fit_elo(df, by="instance", rng=0)):
        t = fit.table
        assert t["instance"].is_monotonic_increasing
        for _, group in t.groupby("instance"):
            assert group["rank"].is_monotonic_increasing
    pl = fit_plackett_luce(pd.DataFrame({"ranking": ["C > B > A", "C > A > B", "B > A"]})).table
    assert pl["rank"].tolist() == sorted(pl["rank"]) and pl["candidate"].iloc[0] == "C"
    path = tmp_path / "prefs.csv"
    path.write_text(PREFS)
    res = CliRunner().invoke(main, ["rank", "fit", str(path), "--by", "instance"])
    cli = pd.read_csv(io.StringIO(res.stdout))
    py = fit_bradley_terry(df, by="instance").table
    assert cli["candidate"].tolist() == py["candidate"].tolist()
    assert cli["instance"].tolist() == py["instance"].tolist()
