import io
import json

import pandas as pd
import pytest
from click.testing import CliRunner

import rrmap
from rrmap.cli import main

EXAMPLE = str(rrmap.datasets.example_ratings_path())


@pytest.fixture
def runner():
    return CliRunner()


def test_version_and_help(runner):
    res = runner.invoke(main, ["--version"])
    assert res.exit_code == 0 and res.output.strip() == f"rrmap, version {rrmap.__version__}"
    res = runner.invoke(main, ["-h"])
    assert res.exit_code == 0 and "points" in res.output
    res = runner.invoke(main, ["points", "-h"])
    assert res.exit_code == 0 and "--reference" in res.output and "[default: 0.95]" in res.output


def test_points_csv_to_stdout_matches_the_library(runner):
    res = runner.invoke(main, ["points", EXAMPLE])
    assert res.exit_code == 0
    got = pd.read_csv(io.StringIO(res.stdout))
    want = rrmap.points(rrmap.load_ratings(EXAMPLE))
    assert len(got) == 405
    pd.testing.assert_series_equal(got["bc"], want["bc"], check_names=False)
    assert got["quality"].tolist() == want["quality"].astype(str).tolist()


def test_points_json_and_markdown(runner):
    res = runner.invoke(main, ["points", EXAMPLE, "--format", "json"])
    records = json.loads(res.stdout)
    assert len(records) == 405 and {"delta", "r", "bc", "quality"} <= set(records[0])
    res = runner.invoke(main, ["points", EXAMPLE, "--format", "markdown"])
    lines = res.stdout.splitlines()
    assert lines[0].startswith("| expert | movement |") and len(lines) == 2 + 405


def test_output_file_refuses_to_overwrite(runner, tmp_path):
    out = tmp_path / "points.csv"
    assert runner.invoke(main, ["points", EXAMPLE, "-o", str(out)]).exit_code == 0
    assert len(pd.read_csv(out)) == 405
    res = runner.invoke(main, ["points", EXAMPLE, "-o", str(out)])
    assert res.exit_code == 1 and "exists; use --force" in res.output
    assert runner.invoke(main, ["points", EXAMPLE, "-o", str(out), "--force"]).exit_code == 0


def test_options_change_the_computation(runner):
    res = runner.invoke(main, ["points", EXAMPLE, "--z", "1.96", "--delta-bound", "1.96"])
    got = pd.read_csv(io.StringIO(res.stdout))
    want = rrmap.points(EXAMPLE, z=1.96, thresholds=rrmap.Thresholds(delta_bound=1.96))
    assert got["delta"].tolist() == pytest.approx(want["delta"].tolist(), rel=1e-12)
    assert got["quality"].tolist() == want["quality"].astype(str).tolist()


def test_other_schema_through_options(runner, tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("annotator,item,corpus,lo,hi\nA,x,human,2,5\nA,x,model,3,4\n")
    res = runner.invoke(
        main,
        [
            "points",
            str(path),
            "--rater",
            "annotator",
            "--origin",
            "corpus",
            "--low",
            "lo",
            "--high",
            "hi",
            "--reference",
            "human",
            "--query",
            "model",
            "--scale",
            "1",
            "7",
        ],
    )
    assert res.exit_code == 0, res.output
    got = pd.read_csv(io.StringIO(res.stdout))
    assert got["r"].iloc[0] == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("who,origin\nA,real\n", "missing rater column 'expert'"),
        (None, "no such file"),
    ],
)
def test_user_errors_are_one_line_with_exit_1(runner, tmp_path, content, fragment):
    path = tmp_path / "bad.csv"
    if content is not None:
        path.write_text(content)
    res = runner.invoke(main, ["points", str(path)])
    assert res.exit_code == 1
    assert res.exception is None or isinstance(res.exception, SystemExit)
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and fragment in lines[0]
    assert "Traceback" not in res.output


@pytest.mark.slow  # pipes; tests/rank/test_rank_streams.py keeps standard input in the first tier
def test_dash_reads_standard_input_and_writes_standard_output(tmp_path):
    import subprocess
    import sys

    import rrmap

    example = rrmap.datasets.example_ratings_path()
    data = example.read_bytes()
    cmd = [sys.executable, "-m", "rrmap.cli", "points", "-", "-o", "-"]
    res = subprocess.run(cmd, input=data, capture_output=True, timeout=300)
    assert res.returncode == 0, res.stderr
    from_file = subprocess.run(
        [sys.executable, "-m", "rrmap.cli", "points", str(example)],
        capture_output=True,
        timeout=300,
    )
    assert res.stdout == from_file.stdout and res.stdout.count(b"\n") == 406
    assert not (tmp_path / "-").exists() and not list(tmp_path.iterdir())
    bad = subprocess.run(cmd, input=b"expert,low\nE1,x\n", capture_output=True, timeout=300)
    assert bad.returncode == 1 and bad.stderr.decode().startswith("Error: <stdin>:")


@pytest.mark.slow
def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path):
    import subprocess
    import sys

    import rrmap

    # the summary is printed line by line, then the report's path: head has gone by then
    proc = subprocess.run(
        f"{sys.executable} -m rrmap.cli analyze {rrmap.datasets.example_ratings_path()} "
        f"--out {tmp_path / 'o'} --no-figures -q --permutations 999 --bootstrap 0 | "
        "(head -c 7; sleep 2)",
        shell=True,
        capture_output=True,
        text=True,
        executable="/bin/bash",
        timeout=300,
    )
    assert proc.stdout == "405 RRM"
    assert proc.stderr == ""
