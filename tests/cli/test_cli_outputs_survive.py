"""Outputs that survive kills, concurrent runs, full and read-only disks.

Every run here is a real ``rrmap`` process: kills are ``SIGKILL`` sent while
the run writes, a full disk is a tmpfs of a few KB where one can be mounted
and the process's file-size limit (``RLIMIT_FSIZE``) everywhere else.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import rrmap

EXAMPLE = rrmap.datasets.example_ratings_path()
#: A whole run with its figures, in a few seconds: the outputs, not their statistics, are
#: checked (one category tested, so the figures' grid has one row of 3 panels)
FAST = ["--permutations", "99", "--p-adjust", "none", "--bootstrap", "0", "--by", "modality", "-q"]


def _cmd(*args: object) -> list[str]:
    return [sys.executable, "-m", "rrmap.cli", *map(str, args)]


def _run(*args: object, limit_bytes: int | None = None, **kw) -> subprocess.CompletedProcess:
    def _limit() -> None:  # the file-size limit of this process only: writes past it fail
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    return subprocess.run(
        _cmd(*args),
        capture_output=True,
        text=True,
        preexec_fn=_limit if limit_bytes else None,
        timeout=600,
        **kw,
    )


def _snapshot(folder: Path) -> dict[str, str]:
    """Every file under *folder* (relative name → SHA-256 of its bytes)."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _one_error_line(res: subprocess.CompletedProcess) -> str:
    assert res.returncode == 1, res.stderr
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), res.stderr
    assert "Traceback" not in res.stderr
    return lines[0]


@pytest.fixture(scope="module")
def two_inputs(tmp_path_factory) -> tuple[Path, Path]:
    """The example ratings, and the same without rater E3 (a different result)."""
    folder = tmp_path_factory.mktemp("inputs")
    df = pd.read_csv(EXAMPLE)
    full, part = folder / "all.csv", folder / "two.csv"
    df.to_csv(full, index=False)
    df[df["expert"] != "E3"].to_csv(part, index=False)
    return full, part


@pytest.fixture(scope="module")
def earlier(tmp_path_factory, two_inputs) -> tuple[Path, dict[str, str]]:
    """A complete earlier result with figures, and its snapshot."""
    out = tmp_path_factory.mktemp("earlier") / "out"
    res = _run("analyze", two_inputs[0], "--out", out, *FAST)
    assert res.returncode == 0, res.stderr
    return out, _snapshot(out)


def _copy_of(earlier: tuple[Path, dict[str, str]], tmp_path: Path) -> Path:
    import shutil

    out = tmp_path / "out"
    shutil.copytree(earlier[0], out)
    assert _snapshot(out) == earlier[1]
    return out


def _stage_has(parent: Path, name: str, relative: str) -> bool:
    return any((stage / relative).exists() for stage in parent.glob(f".{name}.tmp-*"))


@pytest.mark.slow  # a process scenario: the default tier keeps the full disk's
@pytest.mark.parametrize("moment", ["tables", "figures"])
def test_a_kill_while_writing_leaves_the_earlier_result_whole(
    earlier, two_inputs, tmp_path, moment
):
    out = _copy_of(earlier, tmp_path)
    proc = subprocess.Popen(
        _cmd("analyze", two_inputs[1], "--out", out, "--force", *FAST),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    watch = "tests.csv" if moment == "tables" else "figures/rrmap_by_rater.pdf"
    deadline = time.monotonic() + 300
    while not _stage_has(tmp_path, "out", watch) and proc.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    assert _snapshot(out) == earlier[1]
    # the next run tidies the killed run's temporary folder and writes a whole result
    res = _run("analyze", two_inputs[1], "--out", out, "--force", "--no-figures", *FAST)
    assert res.returncode == 0, res.stderr
    assert not list(tmp_path.glob(".out.*"))
    data = json.loads((out / "results.json").read_text())
    assert data["settings"]["raters"] == ["E1", "E2"]
    assert not (out / "figures").exists()  # replaced whole: no figure of the earlier run


@pytest.mark.slow
def test_a_second_writer_is_refused_and_the_first_result_is_whole(two_inputs, tmp_path):
    out = tmp_path / "out"
    first = subprocess.Popen(
        _cmd("analyze", two_inputs[0], "--out", out, *FAST),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lock = tmp_path / ".out.lock"
    deadline = time.monotonic() + 300
    while not lock.exists():
        assert first.poll() is None and time.monotonic() < deadline
        time.sleep(0.005)
    second = _run("analyze", two_inputs[1], "--out", out, "--force", *FAST)
    line = _one_error_line(second)
    assert f"another rrmap run (PID {first.pid}) is writing there" in line
    assert first.wait(timeout=600) == 0, first.stderr.read()
    data = json.loads((out / "results.json").read_text())
    assert data["settings"]["input"] == str(two_inputs[0])
    assert pd.read_csv(out / "points.csv")["expert"].nunique() == 3
    assert not lock.exists()


@pytest.mark.slow
def test_a_killed_run_leaves_no_lock_behind(two_inputs, tmp_path):
    out = tmp_path / "out"
    proc = subprocess.Popen(
        _cmd("analyze", two_inputs[0], "--out", out, *FAST),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    lock = tmp_path / ".out.lock"
    while not lock.exists():
        assert proc.poll() is None
        time.sleep(0.005)
    assert lock.read_text().strip() in ("", str(proc.pid))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    res = _run("analyze", two_inputs[1], "--out", out, "--no-figures", *FAST)
    assert res.returncode == 0, res.stderr
    assert not out.joinpath("figures").exists()


@pytest.mark.slow
def test_force_replaces_a_symlink_instead_of_writing_through_it(earlier, two_inputs, tmp_path):
    out = _copy_of(earlier, tmp_path)
    elsewhere = tmp_path / "elsewhere.md"
    elsewhere.write_text("keep me")
    (out / "report.md").unlink()
    (out / "report.md").symlink_to(elsewhere)
    res = _run("analyze", two_inputs[1], "--out", out, "--force", "--no-figures", *FAST)
    assert res.returncode == 0, res.stderr
    assert elsewhere.read_text() == "keep me"
    assert not (out / "report.md").is_symlink()
    assert (out / "report.md").read_text().startswith("# RRMap analysis report")


@pytest.mark.slow
def test_a_folder_with_other_files_is_never_replaced(earlier, two_inputs, tmp_path):
    out = _copy_of(earlier, tmp_path)
    (out / "notes.txt").write_text("mine")
    line = _one_error_line(_run("analyze", two_inputs[1], "--out", out, "--force", *FAST))
    assert "holds files rrmap did not write (notes.txt)" in line
    assert (out / "notes.txt").read_text() == "mine"
    assert _snapshot(out) == {**earlier[1], "notes.txt": _snapshot(out)["notes.txt"]}


@pytest.mark.slow
def test_a_file_size_limit_is_one_line_and_loses_nothing(earlier, two_inputs, tmp_path):
    out = _copy_of(earlier, tmp_path)
    line = _one_error_line(
        _run("analyze", two_inputs[1], "--out", out, "--force", *FAST, limit_bytes=20_000)
    )
    assert "file too large" in line
    assert _snapshot(out) == earlier[1]
    assert not list(tmp_path.glob(".out.tmp-*"))


def test_points_output_is_all_or_nothing(tmp_path):
    target = tmp_path / "points.csv"
    target.write_text("earlier\n")
    res = _run("points", EXAMPLE, "-o", target, "--force", limit_bytes=20_000)
    assert "file too large" in _one_error_line(res)
    assert target.read_text() == "earlier\n"
    assert [p.name for p in tmp_path.iterdir()] == ["points.csv"]


@contextlib.contextmanager
def _tmpfs(folder: Path, size: str, readonly: bool = False):
    """A small tmpfs at *folder*, or a skip where mounting is not allowed."""
    folder.mkdir()
    opts = f"size={size}" + (",ro" if readonly else "")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(folder)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({mounted.stderr.decode().strip()})")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)


@pytest.mark.slow  # a further full disk: test_cli_output_targets.py keeps one in the first tier
@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
def test_a_full_disk_is_one_line_and_loses_nothing(two_inputs, tmp_path):
    with _tmpfs(tmp_path / "disk", "64k") as disk:
        out = disk / "out"
        out.mkdir()
        (out / "tests.csv").write_text("earlier\n")
        line = _one_error_line(_run("analyze", two_inputs[1], "--out", out, "--force", *FAST))
        assert "no space left on the device" in line
        assert [p.name for p in out.iterdir()] == ["tests.csv"]
        assert (out / "tests.csv").read_text() == "earlier\n"
        assert sorted(p.name for p in disk.iterdir()) == ["out"]


def test_a_folder_that_cannot_be_written_is_one_line(two_inputs, tmp_path):
    if os.geteuid() == 0:
        ctx = _tmpfs(tmp_path / "ro", "64k", readonly=True)
        expected = "read-only file system"
    else:
        (tmp_path / "ro").mkdir(mode=0o555)
        ctx = contextlib.nullcontext(tmp_path / "ro")
        expected = "permission denied"
    with ctx as ro:
        line = _one_error_line(_run("analyze", two_inputs[1], "--out", ro / "out", *FAST))
        assert expected in line
        assert not (ro / "out").exists()


def _raising_group():
    """A group of the main group's class whose commands fail in every way a run can."""
    import errno

    import click

    from rrmap.cli import _Group

    failures = {
        "full": OSError(errno.ENOSPC, "No space left on device", "out/points.csv"),
        "quota": OSError(errno.EDQUOT, "Disk quota exceeded", "out/points.csv"),
        "readonly": OSError(errno.EROFS, "Read-only file system", "out"),
        "denied": PermissionError(errno.EACCES, "Permission denied", "out"),
        "files": OSError(errno.EMFILE, "Too many open files"),
        "memory": MemoryError(),
        "recursion": RecursionError("maximum recursion depth exceeded"),
        "overflow": OverflowError("int too large to convert to float"),
        "value": ValueError("bad\u202evalue\n" + "x" * 50_000),
        "bug": TypeError("unsupported operand"),
    }
    group = _Group("main")
    for name, exc in failures.items():

        def fail(exc=exc):
            raise exc

        group.add_command(click.Command(name, callback=fail))
    return group


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("full", "Error: out/points.csv: no space left on the device: free some space"),
        ("quota", "Error: out/points.csv: disk quota exceeded"),
        ("readonly", "Error: out: read-only file system: write elsewhere"),
        ("denied", "Error: out: permission denied"),
        ("files", "Error: too many open files: raise the limit (ulimit -n)"),
        ("memory", "Error: out of memory: reduce the input"),
        ("recursion", "Error: input nested too deeply to read"),
        ("overflow", "Error: a number is too large: int too large"),
        ("value", "Error: bad\\u202evalue\\nxxxx"),
        ("bug", "Error: unexpected TypeError: unsupported operand (set RRMAP_DEBUG=1"),
    ],
)
def test_every_failure_class_is_one_line_with_exit_code_1(name, expected, monkeypatch):
    from click.testing import CliRunner

    monkeypatch.delenv("RRMAP_DEBUG", raising=False)
    res = CliRunner().invoke(_raising_group(), [name])
    assert res.exit_code == 1
    lines = res.output.splitlines()
    assert len(lines) == 1 and lines[0].startswith(expected), res.output
    assert len(lines[0]) < 11_000  # a 50,000-character value is cut, its length said
    if name == "value":
        assert lines[0].endswith("… (50010 characters)")


def test_rrmap_debug_shows_the_traceback(monkeypatch):
    from click.testing import CliRunner

    monkeypatch.setenv("RRMAP_DEBUG", "1")
    res = CliRunner().invoke(_raising_group(), ["bug"])
    assert isinstance(res.exception, TypeError)


def test_the_current_folder_is_never_replaced(tmp_path):
    here = tmp_path / "here"
    here.mkdir()
    res = _run("analyze", EXAMPLE, "--out", ".", "--no-figures", *FAST, cwd=here)
    assert "is the current folder (or holds it)" in _one_error_line(res)
    assert here.is_dir() and not list(here.iterdir())
