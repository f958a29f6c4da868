"""Where the commands write: special files, planted locks, a user's files in a results
folder, glob characters in --out, full disks, and targets of the wrong kind — each a
one-line ``Error:`` with exit code 1 that loses nothing."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

import rrmap
from rrmap.cli import main

EXAMPLE = str(rrmap.datasets.example_ratings_path())
FAST = ["--permutations", "9", "--p-adjust", "none", "--bootstrap", "0", "-q", "--no-figures"]
REFUSED = "not a regular file: rrmap writes its outputs only to regular files"
PREFS = "instance,left,right,winner\ni1,a,b,left\ni1,b,c,left\ni1,a,c,right\n"


@pytest.fixture
def runner():
    return CliRunner()


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """A results folder (for ``rrmap table``)."""
    folder = tmp_path_factory.mktemp("results") / "out"
    with warnings.catch_warnings():  # too few permutations for significance: not the point
        warnings.simplefilter("ignore")
        res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=9, rng=0)
    res.write(folder, figures=False)
    return folder


def _error(res) -> str:
    """The one ``Error:`` line of a refused run (exit code 1, no traceback)."""
    assert res.exit_code == 1, res.output
    lines = [ln for ln in res.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), res.output
    return lines[0]


def _device(path: Path) -> Path:
    try:
        os.mknod(path, 0o644 | stat.S_IFCHR, os.makedev(1, 3))  # what /dev/null is
    except PermissionError:
        pytest.skip("making a device node needs CAP_MKNOD")
    return path


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _proc_link(path: Path) -> Path:
    path.symlink_to("/proc/self/fd/1")
    return path


@pytest.mark.parametrize(
    ("make", "what"),
    [
        (_device, "a character device"),
        (_fifo, "a FIFO (named pipe)"),
        (_proc_link, "a symbolic link into /proc or /sys"),
    ],
    ids=["device", "fifo", "link to /proc/self/fd/1"],
)
@pytest.mark.parametrize(
    "command",
    [
        ["points", EXAMPLE],
        ["plot", EXAMPLE],
        ["rank", "fit", "PREFS"],
        ["table", "RESULTS", "tests"],
    ],
    ids=["points", "plot", "rank fit", "table"],
)
def test_a_special_file_as_output_is_refused_even_with_force(
    runner, tmp_path, results, make, what, command
):
    """``points -o fakenull --force`` turned a device node into a regular file."""
    prefs = tmp_path / "prefs.csv"
    prefs.write_text(PREFS)
    args = [{"PREFS": str(prefs), "RESULTS": str(results)}.get(a, a) for a in command]
    target = make(tmp_path / ("out.pdf" if command[0] == "plot" else "out.csv"))
    before = os.lstat(target)
    line = _error(runner.invoke(main, [*args, "-o", str(target), "--force"]))
    option = "--output " if command[0] == "rank" else ""  # checked as the option is read
    assert line == f"Error: {option}{target} is {what}, {REFUSED}"
    after = os.lstat(target)
    assert (after.st_mode, after.st_ino, after.st_size) == (
        before.st_mode,
        before.st_ino,
        before.st_size,
    )


def test_a_special_file_as_a_rank_report_is_refused(runner, tmp_path):
    prefs = tmp_path / "prefs.csv"
    prefs.write_text(PREFS)
    fifo = _fifo(tmp_path / "dropped.csv")
    line = _error(
        runner.invoke(
            main, ["rank", "filter", str(prefs), "--dropped", str(fifo), "-o", "-", "--force"]
        )
    )
    assert line == f"Error: --dropped {fifo} is a FIFO (named pipe), {REFUSED}"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_rank_fit_into_a_folder_is_one_line_with_exit_code_1(runner, tmp_path):
    """It was a usage error with exit code 2."""
    prefs = tmp_path / "prefs.csv"
    prefs.write_text(PREFS)
    line = _error(runner.invoke(main, ["rank", "fit", str(prefs), "-o", str(tmp_path)]))
    assert line == f"Error: --output {tmp_path} is a folder; give a file name"


def test_analyze_into_a_file_is_one_line_with_exit_code_1(runner, tmp_path):
    """``--out FILE`` was a usage error with exit code 2."""
    target = tmp_path / "afile"
    target.write_text("mine")
    line = _error(runner.invoke(main, ["analyze", EXAMPLE, "--out", str(target), *FAST]))
    assert line == f"Error: --out {target} exists and is not a folder"
    assert target.read_text() == "mine"


def test_a_planted_lock_symlink_is_not_written_through(runner, tmp_path):
    """``ln -s victim.txt .out.lock``: victim.txt got the run's PID."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    lock = tmp_path / ".out.lock"
    lock.symlink_to("victim.txt")
    line = _error(runner.invoke(main, ["analyze", EXAMPLE, "--out", str(tmp_path / "out"), *FAST]))
    assert line == (
        f"Error: {lock} is a symbolic link, not rrmap's lock file: rrmap never writes "
        "through a link; remove it"
    )
    assert victim.read_text() == "keep me" and lock.is_symlink()
    assert not (tmp_path / "out").exists()


def _earlier_result(out: Path, figures: list[str], manifest: bool = True) -> None:
    """A results folder as rrmap writes it (tables and figures are stand-ins)."""
    (out / "figures").mkdir(parents=True)
    names = ["tests.csv", *figures, "results.json"]
    for name in names:
        (out / name).write_text("earlier")
    (out / "results.json").write_text(json.dumps({"figures": figures}))
    if manifest:
        (out / ".rrmap-files.json").write_text(json.dumps({"files": names}))


@pytest.mark.parametrize("manifest", [True, False], ids=["manifest", "earlier rrmap"])
def test_force_never_deletes_a_user_s_file_inside_figures(runner, tmp_path, manifest):
    """``--force`` replaced OUT/figures/ whole, a user's notes with it."""
    out = tmp_path / "out"
    _earlier_result(out, ["figures/map.pdf"], manifest=manifest)
    (out / "figures" / "notes.txt").write_text("mine")
    line = _error(runner.invoke(main, ["analyze", EXAMPLE, "--out", str(out), "--force", *FAST]))
    assert line == (
        f"Error: {out} holds files rrmap did not write (figures/notes.txt); choose a new or "
        "empty folder"
    )
    assert (out / "figures" / "notes.txt").read_text() == "mine"
    assert (out / "figures" / "map.pdf").read_text() == "earlier"


@pytest.mark.first_case_by_default
@pytest.mark.parametrize("manifest", [True, False], ids=["manifest", "earlier rrmap"])
def test_force_replaces_what_rrmap_wrote(runner, tmp_path, manifest):
    """Listed in the folder's record, or (a folder of an earlier rrmap) its results.json."""
    out = tmp_path / "out"
    _earlier_result(out, ["figures/map.pdf", "figures/map.png"], manifest=manifest)
    res = runner.invoke(main, ["analyze", EXAMPLE, "--out", str(out), "--force", *FAST])
    assert res.exit_code == 0, res.output
    assert not (out / "figures").exists()
    record = json.loads((out / ".rrmap-files.json").read_text())
    assert record["files"][0] == "tests.csv" and "report.html" in record["files"]


def test_a_glob_character_in_out_removes_no_other_run_s_staged_folder(runner, tmp_path):
    """``--out 'r*'`` removed ``.rfoo.tmp-…``, the staged folder of a run into rfoo."""
    other = tmp_path / ".rfoo.tmp-abcd1234"
    other.mkdir()
    (other / "tests.csv").write_text("another run's")
    res = runner.invoke(main, ["analyze", EXAMPLE, "--out", str(tmp_path / "r*"), *FAST])
    assert res.exit_code == 0, res.output
    assert (other / "tests.csv").read_text() == "another run's"
    assert (tmp_path / "r*" / "tests.csv").exists()


@contextlib.contextmanager
def _full_disk(folder: Path):
    """A tmpfs of 200 KB at *folder*, filled up, or a skip where mounting is not allowed."""
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", str(folder)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({mounted.stderr.decode().strip()})")
    try:
        with contextlib.suppress(OSError), open(folder / "fill", "wb") as fh:
            while True:
                fh.write(b"\0" * 4096)
                fh.flush()
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)


def _rrmap(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rrmap.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=600,
    )


def _one_line(res: subprocess.CompletedProcess) -> str:
    assert res.returncode == 1, res.stderr
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    return lines[0]


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_a_run_refused_on_a_full_disk_leaves_no_lock(tmp_path):
    with _full_disk(tmp_path / "disk") as disk:
        line = _one_line(_rrmap("analyze", EXAMPLE, "--out", disk / "out", *FAST))
        assert line == (
            f"Error: {disk / 'out'}: no space left on the device: free some space or write "
            "elsewhere"
        )
        assert sorted(p.name for p in disk.iterdir()) == ["fill"]


@pytest.mark.slow
@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_plot_on_a_full_disk_names_the_file(tmp_path):
    """It said ``unexpected error: Error -2 while flushing`` (zlib, over the disk's error)."""
    with _full_disk(tmp_path / "disk") as disk:
        line = _one_line(_rrmap("plot", EXAMPLE, "-o", disk / "map.pdf"))
        assert line == (
            f"Error: {disk / 'map.pdf'}: no space left on the device: free some space or "
            "write elsewhere"
        )
        assert sorted(p.name for p in disk.iterdir()) == ["fill"]
