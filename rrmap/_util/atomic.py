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

Only regular files are ever replaced (:func:`check_output_file`): a device,
a FIFO, a socket, a link to one of them or a file of ``/proc`` or ``/sys`` is
refused. Lock and temporary files are never opened through a symbolic link,
and the names of temporary files and folders are matched literally, never as
glob patterns, so a run only ever tidies its own.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import re
import secrets
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import ClassVar

from rrmap.errors import InputError

__all__ = [
    "FolderLock",
    "atomic_path",
    "check_output_file",
    "check_replaceable",
    "staged_folder",
    "write_bytes",
    "write_text",
]


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


#: Never follow a symbolic link when opening (0 where the system has no such flag).
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

_KINDS = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str | None:
    """What a file of *mode* is when it is neither a regular file nor a folder, else None."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "a special file")


@functools.cache
def _kernel_devices() -> frozenset[int]:
    """The devices of ``/proc`` and ``/sys`` (none where they are not mounted)."""
    devices = set()
    for root in ("/proc", "/sys"):
        with contextlib.suppress(OSError):
            devices.add(os.stat(root).st_dev)
    return frozenset(devices)


def _in_kernel_fs(folder: Path) -> bool:
    """Whether *folder* is on the file system of ``/proc`` or ``/sys`` (not files to write)."""
    try:
        return os.stat(folder).st_dev in _kernel_devices()
    except OSError:
        return False


def _not_a_file(path: Path) -> str | None:
    """Why *path* is no target for an output file, or None (missing, a regular file, a
    folder, a link to a regular file or to nothing: the write itself says what fails)."""
    try:
        st = os.lstat(path)
    except OSError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        with contextlib.suppress(OSError):
            kind = _kind(os.stat(path).st_mode)
            if kind:
                return f"a symbolic link to {kind}"
        if _links_into_kernel_fs(path):
            return "a symbolic link into /proc or /sys"
    elif st is not None and _kind(st.st_mode):
        return _kind(st.st_mode)
    if _in_kernel_fs(path.parent):
        return "a file of the kernel (/proc, /sys)"
    return None


def _links_into_kernel_fs(link: Path) -> bool:
    """Whether the chain of symbolic links from *link* passes through ``/proc`` or ``/sys``
    (``/dev/stdout`` → ``/proc/self/fd/1``: the file behind it is another process's)."""
    current = str(link)
    for _ in range(40):
        try:
            target = os.readlink(current)
        except OSError:  # not a link (any more): the end of the chain
            return False
        current = os.path.join(os.path.dirname(current), target)
        if _in_kernel_fs(Path(os.path.dirname(current) or ".")):
            return True
    return False


def check_output_file(path: str | os.PathLike[str]) -> None:
    """Refuse *path* as an output file if it is a device, a FIFO, a socket, a symbolic link
    to one of them, or a file of ``/proc`` or ``/sys``.

    rrmap replaces its outputs (a new file renamed over the old one), which
    would turn ``/dev/null`` or a named pipe into a regular file. A missing
    file, a regular file and a link to a regular file (the link is replaced,
    not written through) pass.

    Raises
    ------
    InputError
        Naming *path* and what it is.

    Examples
    --------
    >>> check_output_file("new-results.csv")
    >>> try:
    ...     check_output_file("/dev/null")
    ... except ValueError as err:
    ...     print(str(err).split(":")[0])
    /dev/null is a character device, not a regular file
    """
    why = _not_a_file(Path(path))
    if why:
        raise InputError(
            f"{path} is {why}, not a regular file: rrmap writes its outputs only to regular files"
        )


def check_replaceable(
    folder: str | os.PathLike[str], replace: Callable[[Path, str], bool] | None
) -> None:
    """Refuse *folder* if it holds an entry, at any depth, for which *replace* is False.

    *replace* is called with *folder* and each entry's name relative to it
    (``figures/a.pdf``); a subfolder is looked into only if it may be
    replaced itself. ``None`` accepts everything.

    Raises
    ------
    InputError
        Naming the first five such entries.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     (pathlib.Path(d) / "sub").mkdir()
    ...     _ = (pathlib.Path(d) / "sub" / "mine.txt").write_text("x")
    ...     try:
    ...         check_replaceable(d, lambda folder, name: name == "sub")
    ...     except ValueError as err:
    ...         print(str(err).split(" holds ")[1])
    files rrmap did not write (sub/mine.txt); choose a new or empty folder
    """
    if replace is None:
        return
    folder = Path(folder)
    foreign: list[str] = []
    todo = [""]
    while todo and len(foreign) <= 5:
        inner = todo.pop()
        with os.scandir(folder / inner) as entries:
            for entry in entries:
                name = f"{inner}/{entry.name}" if inner else entry.name
                if not replace(folder, name):
                    foreign.append(name)
                elif entry.is_dir(follow_symlinks=False):
                    todo.append(name)
    if foreign:
        foreign.sort()
        raise InputError(
            f"{folder} holds files rrmap did not write ({', '.join(foreign[:5])}"
            f"{', ...' if len(foreign) > 5 else ''}); choose a new or empty folder"
        )


#: Errors of the disk a writing library may hide behind its own (see :func:`_unmasked`).
_DISK_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO}


def _unmasked(exc: BaseException) -> OSError | None:
    """The disk's error behind *exc* when a library raised its own error while handling it
    (matplotlib's PDF writer: zlib's ``Error -2 while flushing`` after a full disk), else
    None. rrmap's own errors (``ValueError``) and OS errors are not looked behind."""
    if not isinstance(exc, Exception) or isinstance(exc, (OSError, ValueError)):
        return None
    seen = exc.__context__
    for _ in range(10):
        if seen is None:
            return None
        if isinstance(seen, OSError) and seen.errno in _DISK_ERRORS:
            return seen
        seen = seen.__context__
    return None


def _own_temporary(tmp: Path, target: Path, sync: bool) -> None:
    """Give the temporary file *tmp* of *target* its mode and sync it, opened without
    following a link (a temporary file replaced by a link is refused, not written through)."""
    try:
        fd = os.open(tmp, os.O_RDWR | _NOFOLLOW)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK) and os.path.islink(tmp):
            raise InputError(
                f"{target}: its temporary file {tmp.name} was replaced by a symbolic link "
                "while rrmap wrote it; nothing written"
            ) from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError(
                f"{target}: its temporary file {tmp.name} was replaced by another kind of "
                "file while rrmap wrote it; nothing written"
            )
        if os.chmod in os.supports_fd:
            os.chmod(fd, _MODE)
        else:  # pragma: no cover - Windows
            os.chmod(tmp, _MODE)
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_path(
    path: str | os.PathLike[str], *, sync: bool = True, own_folder: bool = False
) -> Iterator[Path]:
    """A temporary path beside *path* to write to; renamed over *path* on success.

    On any error (or a kill) the target keeps its previous content and the
    temporary file is removed (a kill leaves a hidden ``.name.*.tmp`` file).
    An error names *path*, never the temporary file. With ``sync=False`` the
    file and its folder are not synced to disk (many small files that can be
    made again, as the judge's cache records): complete or absent after a
    kill, possibly absent after a power cut.

    A *path* that is a device, a FIFO, a socket or a link to one is refused
    (:func:`check_output_file`), unless ``own_folder=True``: *path* is a name
    in a folder of rrmap's own (the judge's cache), where such a file is
    debris that the new file replaces.

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
    check = (lambda _: None) if own_folder else check_output_file
    check(path)
    try:  # O_EXCL: a new file, never an existing one or a link
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    except OSError as exc:  # a missing or read-only folder: about the target, not the temporary
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        _own_temporary(tmp, path, sync)
        check(path)  # once more: it may have changed while the file was made
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        _name_the_target(exc, path, tmp)
        raise
    if sync:
        _fsync_dir(path.parent)


def _name_the_target(exc: BaseException, target: Path, tmp: Path) -> None:
    """Raise an OS error without a file name (a failed write), naming the temporary file,
    or masked by a library's own error (:func:`_unmasked`), again naming *target*."""
    disk = _unmasked(exc)
    if disk is not None:
        named = disk.filename not in (None, "", str(tmp))
        raise OSError(disk.errno, disk.strerror, disk.filename if named else str(target)) from exc
    if isinstance(exc, OSError) and exc.errno and exc.filename in (None, "", str(tmp)):
        raise OSError(exc.errno, exc.strerror, str(target)) from exc


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Write *text* (UTF-8) to *path* all-or-nothing (:func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="")
    return Path(path)


def write_bytes(
    path: str | os.PathLike[str], data: bytes, *, sync: bool = True, own_folder: bool = False
) -> Path:
    """Write *data* to *path* all-or-nothing (:func:`atomic_path`)."""
    with atomic_path(path, sync=sync, own_folder=own_folder) as tmp:
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
            fd = self._open()
            if fd is None:  # removed by its previous owner meanwhile: make a new one
                continue
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
            if _same_file(fd, self.path):
                break
            os.close(fd)
        try:
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        except OSError as exc:  # a full disk: refused, and no lock file left behind
            self._release(fd)
            raise OSError(exc.errno, exc.strerror, str(self.folder)) from None
        self._fd = fd

    def _open(self) -> int | None:
        """The lock file opened (created if missing), or None if it vanished meanwhile.

        Never through a symbolic link, and never a file of another kind or one
        with a second name (a hard link): rrmap writes its PID there.
        """
        flags = os.O_RDWR | os.O_CREAT | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(self.path, flags, 0o644)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK) and os.path.islink(self.path):
                raise InputError(
                    f"{self.path} is a symbolic link, not rrmap's lock file: rrmap never "
                    "writes through a link; remove it"
                ) from None
            raise OSError(exc.errno, exc.strerror, str(self.folder)) from None  # the user's
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode) and st.st_nlink == 1:
            return fd
        os.close(fd)
        if stat.S_ISREG(st.st_mode) and st.st_nlink == 0:
            return None
        what = _kind(st.st_mode) or "a second name of another file (a hard link)"
        raise InputError(f"{self.path} is {what}, not rrmap's lock file: remove it")

    def _release(self, fd: int) -> None:
        """Remove the lock file (if it is still the one *fd* holds) and close *fd*."""
        if _same_file(fd, self.path):
            with contextlib.suppress(OSError):
                self.path.unlink()
        os.close(fd)

    def __exit__(self, *exc: object) -> None:
        self._held[self._key] -= 1
        if self._held[self._key]:
            return
        del self._held[self._key]
        if self._fd is None:
            return
        self._release(self._fd)
        self._fd = None


def _same_file(fd: int, path: Path) -> bool:
    """Whether *path* (not followed if a link) is the file open as *fd*."""
    try:
        here, there = os.fstat(fd), os.lstat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


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
    import ctypes
    import ctypes.util

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


def _aside(folder: Path, what: str) -> Path:
    """A new name beside *folder* for its staged (``tmp``) or previous (``old``) version:
    ``.<name>.<what>-<16 hex digits>``."""
    return folder.parent / f".{folder.name}.{what}-{secrets.token_hex(8)}"


def _leftovers(folder: Path, what: str) -> list[Path]:
    """Folders of killed runs into *folder* (``tmp``: staged, ``old``: a previous result
    moved aside), made by this user: names matched literally (a ``*`` or ``[`` in the
    folder's name is a character, never a pattern), oldest first. The names of an earlier
    rrmap (``tempfile.mkdtemp`` suffixes, a PID) are matched too."""
    earlier = r"[a-z0-9_]{8}" if what == "tmp" else r"[0-9]+"
    pattern = re.compile(rf"\.{re.escape(folder.name)}\.{what}-(?:[0-9a-f]{{16}}|{earlier})")
    found = []
    with contextlib.suppress(OSError), os.scandir(folder.parent) as entries:
        for entry in entries:
            if not pattern.fullmatch(entry.name):
                continue
            with contextlib.suppress(OSError):
                st = entry.stat(follow_symlinks=False)
                if stat.S_ISDIR(st.st_mode) and st.st_uid == _uid():
                    found.append((st.st_mtime_ns, Path(entry.path)))
    return [path for _, path in sorted(found)]


def _uid() -> int:
    return os.geteuid() if hasattr(os, "geteuid") else 0


def _clean_leftovers(folder: Path) -> None:
    """Tidy up after killed runs (only called while holding the lock): a previous result
    moved aside just before a kill is put back, their staged folders are removed."""
    olds = _leftovers(folder, "old")
    if olds and not os.path.lexists(folder):
        os.rename(olds.pop(), folder)
    for leftover in [*_leftovers(folder, "tmp"), *olds]:
        shutil.rmtree(leftover, ignore_errors=True)


@contextlib.contextmanager
def staged_folder(
    folder: str | os.PathLike[str], *, replace: Callable[[Path, str], bool] | None = None
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
        Called with an existing *folder* and each entry's name relative to
        it, at every depth (:func:`check_replaceable`); an entry for which it
        returns False (a file rrmap did not write) makes the swap refused
        with an :class:`~rrmap.errors.InputError` before anything is written.
        Without it the whole of *folder* is replaced.

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
            check_replaceable(folder, replace)
        stage = _new_stage(folder)
        try:
            yield stage
            _swap_in(stage, folder)
        except BaseException as exc:
            shutil.rmtree(stage, ignore_errors=True)
            _name_the_target(exc, folder, stage)
            raise


def _new_stage(folder: Path) -> Path:
    """A new, empty folder beside *folder* (:func:`_aside`) with the mode of a folder the
    user makes; ``mkdir`` never reuses an existing name or follows a link."""
    for _ in range(100):
        stage = _aside(folder, "tmp")
        try:
            os.mkdir(stage)
        except FileExistsError:
            continue
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, str(folder)) from None
        return stage
    raise FileExistsError(errno.EEXIST, "no free name for a temporary folder", str(folder))


def _swap_in(stage: Path, folder: Path) -> None:
    if not folder.exists():
        os.rename(stage, folder)
    elif _exchange(stage, folder):
        shutil.rmtree(stage)  # now the previous result
    else:
        old = _aside(folder, "old")
        os.rename(folder, old)
        os.rename(stage, folder)
        shutil.rmtree(old, ignore_errors=True)
    _fsync_dir(folder.parent)
