"""All-or-nothing outputs: files and folders appear complete or not at all.

A single file is written to a temporary file beside it, flushed to disk and
renamed over the target (:func:`atomic_path`, :func:`write_text`). A folder
of results is written into a temporary folder beside it and then swapped in
as a whole (:func:`staged_folder`): a kill, a crash or a full disk leaves
the previous complete result untouched, and ``--force`` never leaves a file
of an older run behind. Renames replace a symbolic link rather than write
through it. A lock file beside the folder (:class:`FolderLock`) refuses a
second writer while the first runs; the kernel releases it when its owner
dies, so a killed run never leaves a stale lock.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import ClassVar

from rrmap.errors import InputError

__all__ = ["FolderLock", "atomic_path", "staged_folder", "write_bytes", "write_text"]


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


_MODE = 0o666 & ~_umask()


def _fsync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], *, sync: bool = True) -> Iterator[Path]:
    """A temporary path beside *path* to write to; renamed over *path* on success.

    On any error (or a kill) the target keeps its previous content and the
    temporary file is removed (a kill leaves a hidden ``.name.*.tmp`` file).
    An error names *path*, never the temporary file. With ``sync=False`` the
    file and its folder are not synced to disk (many small files that can be
    made again, as the judge's cache records): complete or absent after a
    kill, possibly absent after a power cut.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     target = pathlib.Path(d) / "x.txt"
    ...     with atomic_path(target) as tmp:
    ...         _ = tmp.write_text("done")
    ...     target.read_text()
    'done'
    """
    path = Path(path)
    try:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    except OSError as exc:  # a missing or read-only folder: about the target, not the temporary
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        os.chmod(tmp, _MODE)
        if sync:
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        _name_the_target(exc, path, tmp)
        raise
    if sync:
        _fsync_dir(path.parent)


def _name_the_target(exc: BaseException, target: Path, tmp: Path) -> None:
    """Raise an OS error without a file name (a failed write), or naming the temporary
    file, again naming *target*."""
    if isinstance(exc, OSError) and exc.errno and exc.filename in (None, "", str(tmp)):
        raise OSError(exc.errno, exc.strerror, str(target)) from exc


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write *text* (UTF-8) to *path* all-or-nothing (:func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="")
    return Path(path)


def write_bytes(path: str | os.PathLike[str], data: bytes, *, sync: bool = True) -> Path:
    """Write *data* to *path* all-or-nothing (:func:`atomic_path`)."""
    with atomic_path(path, sync=sync) as tmp:
        tmp.write_bytes(data)
    return Path(path)


class FolderLock:
    """An exclusive lock on writing *folder*: ``.<name>.lock`` beside it, holding the PID.

    A second process asking for it gets an :class:`~rrmap.errors.InputError`
    naming the owner's PID. The lock is an ``flock`` on that file, so the
    kernel releases it when the owner exits or is killed. Within one process
    it may be taken again (a command holds it from start to end, the final
    write takes it once more).
    """

    #: Locks this process holds (lock file → how many times taken): taking one again is free.
    _held: ClassVar[dict[Path, int]] = {}

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(os.path.abspath(folder))  # "." has a name and a parent
        if self.folder.is_symlink() and self.folder.is_dir():
            self.folder = self.folder.resolve()
        self.path = self.folder.parent / f".{self.folder.name}.lock"
        self._fd: int | None = None
        self._key = self.path.absolute()

    def __enter__(self) -> FolderLock:
        if self._key in self._held:
            self._held[self._key] += 1
            return self
        self._acquire()
        self._held[self._key] = 1
        return self

    def _acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:  # named by the folder the user asked for
                raise OSError(exc.errno, exc.strerror, str(self.folder)) from None
            try:
                _lock_now(fd)
            except OSError:
                os.lseek(fd, 0, os.SEEK_SET)
                owner = os.read(fd, 64).decode("ascii", "replace").strip() or "unknown"
                os.close(fd)
                raise InputError(
                    f"{self.folder}: another rrmap run (PID {owner}) is writing there; "
                    "wait for it to finish or choose another --out"
                ) from None
            # the file may have been removed by its previous owner between open and lock
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        self._fd = fd

    def __exit__(self, *exc: object) -> None:
        self._held[self._key] -= 1
        if self._held[self._key]:
            return
        del self._held[self._key]
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()
        os.close(self._fd)
        self._fd = None


def _lock_now(fd: int) -> None:
    """An exclusive lock on *fd* or ``OSError`` at once (``flock``; on Windows ``msvcrt``)."""
    try:
        import fcntl
    except ImportError:  # Windows: lock the file's first byte
        import msvcrt

        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
        return
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux ``renameat2(RENAME_EXCHANGE)``); False if unsupported."""
    libc_name = ctypes.util.find_library("c")
    if libc_name is None:
        return False
    libc = ctypes.CDLL(libc_name, use_errno=True)
    fn = getattr(libc, "renameat2", None)
    if fn is None:
        return False
    at_fdcwd, rename_exchange = -100, 2
    rc = fn(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EPERM):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _clean_leftovers(folder: Path) -> None:
    """Tidy up after killed runs (only called while holding the lock): a previous result
    moved aside just before a kill is put back, temporary folders are removed."""
    olds = sorted(folder.parent.glob(f".{folder.name}.old-*"))
    if olds and not folder.exists() and olds[0].is_dir() and not olds[0].is_symlink():
        os.rename(olds[0], folder)
    for pattern in (f".{folder.name}.tmp-*", f".{folder.name}.old-*"):
        for leftover in folder.parent.glob(pattern):
            if leftover.is_dir() and not leftover.is_symlink():
                shutil.rmtree(leftover, ignore_errors=True)


@contextlib.contextmanager
def staged_folder(
    folder: str | os.PathLike[str], *, replace: Callable[[Path], bool] | None = None
) -> Iterator[Path]:
    """A temporary folder beside *folder* to write a result into, swapped in on success.

    Holds :class:`FolderLock` throughout. On success the staged folder
    replaces *folder* as a whole (in one step where the system can swap two
    folders); on any error it is removed and *folder* is left as it was.

    Parameters
    ----------
    folder : path
        The final folder; its parent is created if missing. A symbolic link
        to a folder is followed once (the result goes where it points).
    replace : callable, optional
        Called with each entry of an existing *folder*; an entry for which
        it returns False (a file rrmap did not write) makes the swap refused
        with an :class:`~rrmap.errors.InputError` before anything is written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     out = pathlib.Path(d) / "out"
    ...     with staged_folder(out) as stage:
    ...         _ = (stage / "a.txt").write_text("1")
    ...     sorted(p.name for p in out.iterdir())
    ['a.txt']
    """
    folder = Path(os.path.abspath(folder))  # "." has a name and a parent
    if folder.is_symlink() and folder.is_dir():
        folder = folder.resolve()
    cwd = Path.cwd()
    if folder == cwd or folder in cwd.parents:
        raise InputError(
            f"{folder} is the current folder (or holds it): an output folder is replaced as a "
            "whole; give a folder of its own, e.g. results"
        )
    folder.parent.mkdir(parents=True, exist_ok=True)
    with FolderLock(folder):
        _clean_leftovers(folder)
        if folder.exists():
            if not folder.is_dir():
                raise InputError(f"{folder} exists and is not a folder")
            foreign = sorted(p.name for p in folder.iterdir() if replace and not replace(p))
            if foreign:
                raise InputError(
                    f"{folder} holds files rrmap did not write ({', '.join(foreign[:5])}"
                    f"{', ...' if len(foreign) > 5 else ''}); choose a new or empty folder"
                )
        stage = Path(tempfile.mkdtemp(prefix=f".{folder.name}.tmp-", dir=folder.parent))
        try:
            yield stage
            os.chmod(stage, 0o777 & ~_umask())
            _swap_in(stage, folder)
        except BaseException as exc:
            shutil.rmtree(stage, ignore_errors=True)
            _name_the_target(exc, folder, stage)
            raise


def _swap_in(stage: Path, folder: Path) -> None:
    if not folder.exists():
        os.rename(stage, folder)
    elif _exchange(stage, folder):
        shutil.rmtree(stage)  # now the previous result
    else:
        old = folder.parent / f".{folder.name}.old-{os.getpid()}"
        os.rename(folder, old)
        os.rename(stage, folder)
        shutil.rmtree(old, ignore_errors=True)
    _fsync_dir(folder.parent)
