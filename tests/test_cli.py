"""The ``rrmap`` entry point: every command registered, runnable as a module."""

import subprocess
import sys

from click.testing import CliRunner

import rrmap
from rrmap.cli import main


def test_every_command_is_registered():
    res = CliRunner().invoke(main, ["-h"])
    assert res.exit_code == 0
    for name in ("analyze", "judge", "plot", "points", "rank"):
        assert f"  {name} " in res.output
    judge = CliRunner().invoke(main, ["judge", "-h"])
    for name in ("2afc", "interpret", "mcq", "rate", "subjectivity"):
        assert f"  {name} " in judge.output
    rank = CliRunner().invoke(main, ["rank", "-h"])
    for name in ("align", "filter", "fit", "sample"):
        assert f"  {name} " in rank.output


def test_runs_as_a_module():
    out = subprocess.run(
        [sys.executable, "-m", "rrmap.cli", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"rrmap, version {rrmap.__version__}"


def test_unknown_command_is_a_usage_error():
    res = CliRunner().invoke(main, ["analyse"])
    assert res.exit_code == 2 and "No such command 'analyse'" in res.output
