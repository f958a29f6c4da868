"""What rrmap writes to and tidies (rrmap._util.atomic): only regular files are replaced, lock
and temporary files are never opened through a link, leftovers are matched literally,
and a full disk is named even when a library hides it."""

from __future__ import annotations

import errno
import os
import re
import stat
import zlib
from pathlib import Path

import pytest

from rrmap._util.atomic import (
    FolderLock,
    atomic_path,
    check_output_file,
    check_replaceable,
    staged_folder,
    write_bytes,
    write_text,
)
from rrmap.cli import error_line
from rrmap.errors import InputError

REFUSED = ": rrmap writes its outputs only to regular files"


def _device(path: Path) -> Path:
    """A character device like /dev/null (1, 3) at *path*, or a skip where mknod is denied."""
    try:
        os.mknod(path, 0o644 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs CAP_MKNOD")
    return path


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _link(path: Path, to: str) -> Path:
    path.symlink_to(to)
    return path


@pytest.mark.parametrize(
    ("make", "what"),
    [
        (lambda p: _device(p), "a character device"),
        (lambda p: _fifo(p), "a FIFO (named pipe)"),
        (
            lambda p: _link(p, str(_fifo(p.with_name("fifo")))),
            "a symbolic link to a FIFO (named pipe)",
        ),
        (lambda p: _link(p, "/proc/self/fd/1"), "a symbolic link into /proc or /sys"),
        (lambda p: _link(p, "/dev/stdout"), "a symbolic link into /proc or /sys"),
    ],
    ids=["device", "fifo", "link to a fifo", "link to /proc", "link to /dev/stdout"],
)
def test_a_special_file_is_never_replaced(tmp_path, make, what):
    target = make(tmp_path / "out.csv")
    before = os.lstat(target)
    with pytest.raises(InputError) as err:
        write_text(target, "a,b\n")
    assert str(err.value) == f"{target} is {what}, not a regular file{REFUSED}"
    after = os.lstat(target)
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_file_of_proc_is_refused():
    with pytest.raises(InputError) as err:
        check_output_file("/proc/self/fd/1")
    assert str(err.value).startswith("/proc/self/fd/1 is a")  # a link into /proc, or its file
    assert str(err.value).endswith(REFUSED)


def test_regular_files_and_links_to_them_are_replaced_not_written_through(tmp_path):
    kept = tmp_path / "kept.csv"
    kept.write_text("keep me")
    link, dangling = _link(tmp_path / "a.csv", str(kept)), _link(tmp_path / "b.csv", "nowhere")
    for target in (tmp_path / "new.csv", kept, link, dangling):
        check_output_file(target)
    write_text(link, "new")
    write_text(dangling, "new")
    assert kept.read_text() == "keep me" and not (tmp_path / "nowhere").exists()
    assert not link.is_symlink() and link.read_text() == "new"
    assert not dangling.is_symlink() and dangling.read_text() == "new"


def test_a_temporary_file_replaced_by_a_link_is_not_written_through(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    victim.chmod(0o600)
    target = tmp_path / "out.csv"
    with pytest.raises(InputError, match=r"was replaced by a symbolic link while rrmap wrote it"):
        with atomic_path(target) as tmp:
            tmp.unlink()
            tmp.symlink_to(victim)
    assert victim.read_text() == "keep me" and stat.S_IMODE(victim.stat().st_mode) == 0o600
    assert not target.exists() and not os.path.lexists(tmp)


def test_a_disk_error_hidden_behind_a_library_error_names_the_file(tmp_path):
    """matplotlib's PDF writer raised ``zlib.error: Error -2 while flushing`` over ENOSPC;
    the user saw ``unexpected error: Error -2``."""
    target = tmp_path / "map.pdf"
    with pytest.raises(OSError) as err, atomic_path(target):
        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError:
            raise zlib.error("Error -2 while flushing: inconsistent stream state") from None
    assert error_line(err.value) == (
        f"{target}: no space left on the device: free some space or write elsewhere"
    )
    assert list(tmp_path.iterdir()) == []


def test_rrmap_s_own_errors_are_not_taken_for_a_disk_error(tmp_path):
    with pytest.raises(InputError, match="a bad label"), atomic_path(tmp_path / "x.csv"):
        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError:
            raise InputError("a bad label") from None


def test_a_planted_lock_symlink_is_refused_and_its_target_untouched(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    lock = _link(tmp_path / ".out.lock", "victim.txt")
    with pytest.raises(InputError) as err, FolderLock(tmp_path / "out"):
        pass
    assert str(err.value) == (
        f"{lock} is a symbolic link, not rrmap's lock file: rrmap never writes through a "
        "link; remove it"
    )
    assert victim.read_text() == "keep me" and lock.is_symlink()


@pytest.mark.parametrize(
    ("make", "what"),
    [
        (lambda p: os.link(p.with_name("victim.txt"), p), "a second name of another file"),
        (lambda p: _fifo(p), "a FIFO (named pipe)"),
    ],
    ids=["hard link", "fifo"],
)
def test_a_lock_file_of_another_kind_is_refused(tmp_path, make, what):
    (tmp_path / "victim.txt").write_text("keep me")
    make(tmp_path / ".out.lock")
    with pytest.raises(InputError, match=rf"\.out\.lock is {re.escape(what)}.*not rrmap's lock"):
        with FolderLock(tmp_path / "out"):
            pass
    assert (tmp_path / "victim.txt").read_text() == "keep me"


def test_a_lock_is_left_behind_by_no_run(tmp_path):
    with FolderLock(tmp_path / "out") as lock:
        assert lock.path.read_text() == f"{os.getpid()}\n"
    assert not lock.path.exists()


def test_leftovers_are_matched_literally_never_as_a_pattern(tmp_path, monkeypatch):
    """``--out 'r*'`` removed a concurrent run's staged folder ``.rfoo.tmp-…``."""
    monkeypatch.chdir(tmp_path)
    others = [".rfoo.tmp-abcd1234", ".rbar.old-4242", ".r.tmp-0123456789abcdef"]
    for name in others:
        (tmp_path / name).mkdir()
        (tmp_path / name / "tests.csv").write_text("another run's")
    own = [".r*.tmp-0123456789abcdef", ".r*.tmp-abcd_123"]  # a killed run's, this and earlier
    for name in own:
        (tmp_path / name).mkdir()
    with staged_folder(tmp_path / "r*") as stage:
        assert stage.name.startswith(".r*.tmp-") and len(stage.name) == len(".r*.tmp-") + 16
        (stage / "tests.csv").write_text("mine")
    assert (tmp_path / "r*" / "tests.csv").read_text() == "mine"
    for name in others:
        assert (tmp_path / name / "tests.csv").read_text() == "another run's"
    assert not any((tmp_path / name).exists() for name in own)


def test_a_result_moved_aside_by_a_killed_run_is_put_back(tmp_path):
    aside = tmp_path / ".out.old-0123456789abcdef"
    aside.mkdir()
    (aside / "tests.csv").write_text("earlier")
    with pytest.raises(RuntimeError), staged_folder(tmp_path / "out"):
        raise RuntimeError("the new run fails")
    assert (tmp_path / "out" / "tests.csv").read_text() == "earlier"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no lock, nothing aside


def test_a_folder_is_replaced_only_if_every_entry_at_every_depth_may_be(tmp_path):
    out = tmp_path / "out"
    (out / "figures").mkdir(parents=True)
    (out / "figures" / "a.pdf").write_text("rrmap's")
    (out / "figures" / "notes.txt").write_text("mine")
    ours = {"figures", "figures/a.pdf"}
    with pytest.raises(InputError) as err:
        check_replaceable(out, lambda folder, name: name in ours)
    assert str(err.value) == (
        f"{out} holds files rrmap did not write (figures/notes.txt); choose a new or empty folder"
    )
    with pytest.raises(InputError, match=r"\(figures/notes.txt\)"):
        with staged_folder(out, replace=lambda folder, name: name in ours) as stage:
            (stage / "x").write_text("new")
    assert (out / "figures" / "notes.txt").read_text() == "mine"
    (out / "figures" / "notes.txt").unlink()
    with staged_folder(out, replace=lambda folder, name: name in ours) as stage:
        (stage / "x").write_text("new")
    assert sorted(p.name for p in out.iterdir()) == ["x"]


def test_in_a_folder_of_rrmap_s_own_a_special_file_is_debris_replaced(tmp_path):
    """The judge's cache: a FIFO at a record's name is replaced by the record."""
    record = _fifo(tmp_path / "ab.json")
    write_bytes(record, b"{}", sync=False, own_folder=True)
    assert record.is_file() and record.read_bytes() == b"{}"
