"""The ``rrmap`` entry point: every command registered, runnable as a module."""

import os
import subprocess
import sys

import pytest
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


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--coverage", "1.5"], "Error: coverage must lie strictly between 0 and 1, got 1.5"),
        (["--excellent-bc", "2"], "Error: excellent_bc must lie in (0, 1), got 2.0"),
        (
            ["--stereotype-r", "2", "--fair-r", "1"],
            "Error: need 0 < stereotype_r <= fair_r, got 2.0 and 1.0",
        ),
    ],
)
def test_bad_parameters_are_one_line(option, message):
    example = str(rrmap.datasets.example_ratings_path())
    res = CliRunner().invoke(main, ["points", example, *option])
    assert res.exit_code == 1
    assert res.output.strip() == message


def test_debug_shows_the_traceback(monkeypatch):
    monkeypatch.setenv("RRMAP_DEBUG", "1")
    example = str(rrmap.datasets.example_ratings_path())
    res = CliRunner().invoke(main, ["points", example, "--coverage", "1.5"])
    assert isinstance(res.exception, ValueError)


def test_the_command_list_needs_no_command_imported():
    """`rrmap --help` lists the commands from a table; it must say what each command says."""
    import click

    from rrmap.cli import _COMMANDS

    ctx = click.Context(main)
    for name, (_, short) in _COMMANDS.items():
        cmd = main.get_command(ctx, name)
        assert cmd.get_short_help_str(limit=1000) == short, name


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["points", "--help"]])
def test_start_up_imports_only_what_the_command_needs(args):
    code = (
        "import sys\n"
        "from rrmap.cli import main\n"
        f"try: main({args!r})\n"
        "except SystemExit: pass\n"
        "heavy = [m for m in ('scipy.stats', 'statsmodels', 'matplotlib', 'plotnine', 'httpx')"
        " if m in sys.modules]\n"
        "print('HEAVY:' + ','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "HEAVY:", out.stdout


def test_importing_rrmap_imports_neither_numpy_nor_pandas():
    """Every name of the package loads on first use: a command starts its work before
    its own imports (analyze: the figure workers' server, 0.08 s earlier)."""
    code = (
        "import sys, rrmap\n"
        "print(sorted(m for m in ('numpy', 'pandas', 'scipy') if m in sys.modules))\n"
        "print(rrmap.points.__module__, rrmap.Z_95 > 1.95, rrmap.datasets.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["[]", "rrmap.points True rrmap.datasets"]


@pytest.mark.slow
def test_analyze_starts_its_figure_workers_before_importing_pandas(tmp_path):
    """The workers' server imports matplotlib and pandas (0.8 s of CPU) while this
    process imports its own and reads the ratings: started after pandas (0.3 s) or
    joblib (0.12 s), the figures began that much later."""
    code = (
        "import sys\n"
        "import rrmap.plot._workers as w\n"
        "start = w.start_server\n"
        "def spy():\n"
        "    heavy = [m for m in ('numpy', 'pandas', 'joblib') if m in sys.modules]\n"
        "    print('HEAVY:', *heavy, flush=True)\n"
        "    return start()\n"
        "w.start_server = spy\n"
        "from rrmap.cli import main\n"
        "if __name__ == '__main__':\n"
        "    try: main(sys.argv[1:])\n"
        "    except SystemExit: pass\n"
    )
    script = tmp_path / "spy.py"
    script.write_text(code)
    args = ["analyze", str(rrmap.datasets.example_ratings_path()), "--out", str(tmp_path / "out")]
    args += ["--jobs", "2", "--dpi", "30", "--quiet"]
    # the order of the imports is checked, not the tests: one category, no effects' bootstrap
    args += ["--by", "modality", "--permutations", "99", "--bootstrap", "0"]
    out = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True)
    assert "HEAVY:" in out.stdout.splitlines(), out.stdout + out.stderr
    assert (tmp_path / "out" / "figures" / "rrmap_grid.png").is_file()


def test_the_command_line_hands_arrow_memory_back_to_the_system():
    """The CLI asks Arrow for the system allocator, unless the user chose one."""
    code = "import os, rrmap.cli; print(os.environ['ARROW_DEFAULT_MEMORY_POOL'])"
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "system"
    env["ARROW_DEFAULT_MEMORY_POOL"] = "jemalloc"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "jemalloc"


def test_a_mistyped_command_gets_the_nearest_one():
    from click.testing import CliRunner

    from rrmap.cli import main

    res = CliRunner().invoke(main, ["analyse", "x.csv"])
    assert res.exit_code == 2
    assert "No such command 'analyse'. Did you mean 'analyze'?" in res.output
    res = CliRunner().invoke(main, ["zzzz"])
    assert res.exit_code == 2 and "Did you mean" not in res.output


def test_a_mistyped_category_is_named_as_typed_with_the_nearest_one(tmp_path):
    from click.testing import CliRunner

    import rrmap
    from rrmap.cli import main

    res = CliRunner().invoke(
        main,
        [
            "analyze",
            str(rrmap.datasets.example_ratings_path()),
            "--by",
            "movment",
            "--out",
            str(tmp_path / "o"),
        ],
    )
    assert res.exit_code == 1
    assert res.output.startswith("Error: by movment: not a category column; choose from movement,")
    assert res.output.rstrip().endswith("(did you mean movement?)")


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_shell_completion_scripts_are_what_the_docs_say(shell):
    import subprocess
    import sys
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "getting-started.md").read_text()
    assert f"_RRMAP_COMPLETE={shell}_source rrmap" in docs
    env = {"_RRMAP_COMPLETE": f"{shell}_source", "PATH": ""}
    script = subprocess.run(
        [sys.executable, "-c", "from rrmap.cli import main; main(prog_name='rrmap')"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert "_RRMAP_COMPLETE" in script and "rrmap" in script
