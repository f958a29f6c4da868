"""All-or-nothing single files (rrmap._util.atomic): synced by default, named in every error."""

from __future__ import annotations

import errno
import os

import pytest

from rrmap._util import atomic as _atomic
from rrmap._util.atomic import atomic_path, write_bytes


def test_a_failed_rename_names_the_target_not_the_temporary_file(tmp_path):
    target = tmp_path / "out.json"
    target.mkdir()  # a folder holding a file: the rename over it fails
    (target / "inside").write_text("x")
    with pytest.raises(OSError) as err:
        write_bytes(target, b"{}")
    assert err.value.errno in (errno.EISDIR, errno.ENOTEMPTY, errno.EEXIST)
    assert err.value.filename == str(target)
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]  # no temporary file left


@pytest.mark.parametrize(("sync", "synced"), [(True, 2), (False, 0)])
def test_sync_false_writes_the_same_file_without_syncing(tmp_path, monkeypatch, sync, synced):
    """The judge's cache writes many small records that can be made again: complete or
    absent, not synced (a sync per record cost more than the record)."""
    calls = []
    real = os.fsync
    monkeypatch.setattr(_atomic.os, "fsync", lambda fd: calls.append(fd) or real(fd))
    with atomic_path(tmp_path / "r.json", sync=sync) as tmp:
        tmp.write_bytes(b'{"a": 1}')
    assert (tmp_path / "r.json").read_bytes() == b'{"a": 1}'
    assert len(calls) == synced  # the file, then its folder
