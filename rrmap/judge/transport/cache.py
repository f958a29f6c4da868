"""A persistent, crash-safe cache of chat-completion calls.

One record per call, stored as its own JSON file under the cache directory
and named by the call's key: the SHA-256 of the model name, the messages (with
every embedded image replaced by a hash of its encoded bytes) and the
sampling parameters. A record is written to a temporary file and then
renamed into place, so a process killed at any moment leaves either the
complete record or none: a resumed run never repeats a completed call and
never reads a half-written one. Leftover temporary files are ignored.
Records are not forced to the disk one by one (an ``fsync`` per call cost a
tenth of a run's throughput): after a crash of the whole machine the last
records may be missing or damaged, and a damaged record reads as missing,
so those few calls are made again — never read wrong. The API key is never
part of a record.

Each record carries ``checksum``: the SHA-256 of the rest of the record (its
key, request and answer) in a canonical JSON form. A record whose checksum
does not match (edited by hand, damaged on the disk), that cannot be read
(cut short, not JSON), that belongs to another key (moved or swapped), that
is larger than :data:`MAX_RECORD_BYTES`, or that is not a regular file (a
FIFO, a device, a folder) is never trusted: a :class:`CacheWarning` names
its file, and the call is made again and the record rewritten. Records
written before checksums existed are accepted when they are otherwise
sound (their key and answer in place) and rewritten once with their
checksum; :attr:`ResponseCache.upgraded` counts them. The checksum detects
damage and edits; it is not a signature: whoever can write the cache folder
can write a record with a matching checksum.

Several processes may share one cache directory: a call is made under a
lock (``fcntl.flock`` on one of 256 files ``.locks/<key[:2]>.lock``), so
while one process pays for a request the others wait for its answer
instead of paying again.
The operating system releases the lock of a process that dies, so a crash
never blocks the others. (Where ``fcntl`` does not exist, e.g. on Windows,
processes are not coordinated; one process never sends a request twice.)
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import os
import stat
import time
import uuid
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from rrmap._util.atomic import write_bytes
from rrmap.errors import InputError

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "MAX_RECORD_BYTES",
    "CacheWarning",
    "KeyClaim",
    "ResponseCache",
    "cache_key",
    "hash_images",
    "record_checksum",
]

_DATA_URL_PREFIX = "data:"

#: Largest cache record read, in bytes; a larger file is reported and ignored.
MAX_RECORD_BYTES = 64 * 1024 * 1024


class CacheWarning(UserWarning):
    """A cache record was not trusted (damaged, edited, misplaced); its call is made again.

    Examples
    --------
    >>> issubclass(CacheWarning, UserWarning)
    True
    """


def record_checksum(record: Mapping[str, Any]) -> str:
    """The checksum of a cache record: SHA-256 of its canonical JSON without ``checksum``.

    Examples
    --------
    >>> a = record_checksum({"key": "k", "text": "hi"})
    >>> a == record_checksum({"text": "hi", "key": "k", "checksum": "x"}), a[:7]
    (True, 'sha256:')
    >>> a == record_checksum({"key": "k", "text": "hi!"})
    False
    """
    rest = {k: v for k, v in record.items() if k != "checksum"}
    text = json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def read_regular(path: str | os.PathLike[str], limit: int = MAX_RECORD_BYTES) -> bytes:
    """The bytes of *path* if it is a regular file of at most *limit* bytes.

    The file is opened without blocking, so a FIFO or a device never makes
    a run wait; only then is it looked at.

    Raises
    ------
    FileNotFoundError
        *path* does not exist.
    ValueError
        *path* is not a regular file, or is larger than *limit*.
    OSError
        It cannot be read.

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> os.mkfifo(os.path.join(d, "pipe"))
    >>> try:
    ...     read_regular(os.path.join(d, "pipe"))
    ... except ValueError as err:
    ...     print(err)
    not a regular file
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError("not a regular file")
        if st.st_size > limit:
            raise ValueError(f"{st.st_size:,} bytes, more than the {limit:,} allowed")
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:  # grew while being read
                raise ValueError(f"more than the {limit:,} bytes allowed")
        return b"".join(chunks)
    finally:
        os.close(fd)


@functools.lru_cache(maxsize=1024)
def _hash_url(url: str) -> str:
    # memoised: the turns of one conversation carry the same image (the same string)
    if url.startswith(_DATA_URL_PREFIX):
        return "sha256:" + hashlib.sha256(url.encode("ascii", "replace")).hexdigest()
    return url


def hash_images(messages: Any) -> Any:
    """Return a copy of *messages* with every image data URL replaced by its hash.

    Parameters
    ----------
    messages : list of dict
        Chat messages in the chat-completions format.

    Returns
    -------
    list of dict
        The same structure; ``image_url.url`` values that are ``data:`` URLs
        become ``"sha256:<hex>"``. Remote URLs are kept as they are.

    Examples
    --------
    >>> msgs = [{"role": "user", "content": [
    ...     {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]}]
    >>> hash_images(msgs)[0]["content"][0]["image_url"]["url"][:7]
    'sha256:'
    """
    if isinstance(messages, list):
        return [hash_images(m) for m in messages]
    if isinstance(messages, dict):
        out = {}
        for k, v in messages.items():
            if k == "image_url" and isinstance(v, dict) and isinstance(v.get("url"), str):
                out[k] = {**v, "url": _hash_url(v["url"])}
            elif k == "image_url" and isinstance(v, str):
                out[k] = _hash_url(v)
            else:
                out[k] = hash_images(v)
        return out
    return messages


def cache_key(body: Mapping[str, Any]) -> str:
    """Key of one chat-completions request body.

    The key covers the model, the messages (images by content hash) and every
    other body parameter (temperature, max tokens, ...). Keys of two bodies
    are equal exactly when these are equal.

    Parameters
    ----------
    body : mapping
        The JSON body sent to ``/chat/completions``.

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> a = cache_key({"model": "m", "messages": [], "temperature": 0.0})
    >>> b = cache_key({"temperature": 0.0, "messages": [], "model": "m"})
    >>> a == b, len(a)
    (True, 64)
    >>> a == cache_key({"model": "m", "messages": [], "temperature": 1.0})
    False
    """
    canonical = {k: v for k, v in body.items() if k != "stream"}
    canonical["messages"] = hash_images(list(body.get("messages", [])))
    text = json.dumps(canonical, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    # surrogatepass: the same bytes as UTF-8 for any real text; a lone surrogate has a key too
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class ResponseCache:
    """Directory of cached chat-completion results, one JSON file per call.

    Parameters
    ----------
    directory : str or path
        Created if missing. Records live in ``<directory>/<key[:2]>/<key>.json``.

    Attributes
    ----------
    unreadable : int
        Records not trusted (damaged, edited, misplaced, not a regular file),
        each reported with a :class:`CacheWarning` and treated as missing.
    upgraded : int
        Records of an earlier version (without a checksum) rewritten with one.

    Examples
    --------
    >>> import tempfile
    >>> cache = ResponseCache(tempfile.mkdtemp())
    >>> body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    >>> key = cache_key(body)
    >>> cache.get(key) is None
    True
    >>> cache.put(key, body, {"text": "hello", "usage": {}})
    >>> cache.get(key)["text"], len(cache)
    ('hello', 1)
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self._root = os.fspath(self.directory)
        self.unreadable = 0
        self.upgraded = 0
        self._folders: set[str] = set()
        probe = self.directory / f".write-test-{os.getpid()}-{uuid.uuid4().hex}"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            probe.write_bytes(b"")
            probe.unlink()
        except OSError as exc:
            raise InputError(
                f"cache directory {self.directory} cannot be written ({exc.strerror or exc}); "
                "choose another --cache before any call is paid for"
            ) from None

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def _file(self, key: str) -> str:
        """The record's path as a string (cheaper than a Path on every lookup)."""
        return os.path.join(self._root, key[:2], key + ".json")

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._path(key).is_file()

    def _records(self) -> list[Path]:
        return [p for p in self.directory.glob("??/*.json") if p.is_file()]

    def __len__(self) -> int:
        return len(self._records())

    def keys(self) -> list[str]:
        """Keys of all complete records.

        Returns
        -------
        list of str

        Examples
        --------
        >>> import tempfile
        >>> ResponseCache(tempfile.mkdtemp()).keys()
        []
        """
        return sorted(p.stem for p in self._records())

    def _distrust(self, path: str, why: str) -> None:
        self.unreadable += 1
        warnings.warn(
            f"cache record {path}: {why}; not used, the call is made again",
            CacheWarning,
            stacklevel=3,
        )

    def get(self, key: str) -> dict[str, Any] | None:
        """Return the record stored under *key*, or ``None``.

        A record that is not trusted (see the module notes) is reported with a
        :class:`CacheWarning`, counts in :attr:`unreadable` and reads as
        missing, so the call is made again and the record rewritten.

        Examples
        --------
        >>> import tempfile
        >>> ResponseCache(tempfile.mkdtemp()).get("0" * 64) is None
        True
        """
        path = self._file(key)
        try:
            data = read_regular(path)
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            self._distrust(path, f"cannot be read ({getattr(exc, 'strerror', None) or exc})")
            return None
        try:
            record = json.loads(data.decode("utf-8"))
        except (ValueError, RecursionError, MemoryError):
            why = "empty" if not data.strip() else "cut short or not JSON"
            self._distrust(path, why)
            return None
        if not isinstance(record, dict) or not isinstance(record.get("text"), str):
            self._distrust(path, "not a cache record")
            return None
        if record.get("key") != key:
            self._distrust(path, "holds the record of another key (moved or swapped)")
            return None
        checksum = record.get("checksum")
        if checksum is None:
            self._upgrade(key, record)
        elif checksum != record_checksum(record):
            self._distrust(path, "checksum mismatch (edited or damaged)")
            return None
        return record

    def _upgrade(self, key: str, record: dict[str, Any]) -> None:
        """Give a record of an earlier version its checksum (in place, atomically)."""
        record["checksum"] = record_checksum(record)
        try:
            self._write(key, record)
        except OSError:
            return  # still usable; the next run tries again
        self.upgraded += 1

    def put(self, key: str, body: Mapping[str, Any], result: Mapping[str, Any]) -> None:
        """Store *result* for the request *body* under *key*, atomically, with its checksum.

        Parameters
        ----------
        key : str
            :func:`cache_key` of *body*.
        body : mapping
            The request body; stored with images replaced by their hashes.
        result : mapping
            At least ``text``; typically also ``usage`` and ``finish_reason``.

        Examples
        --------
        >>> import tempfile
        >>> c = ResponseCache(tempfile.mkdtemp())
        >>> c.put("ab" * 32, {"model": "m", "messages": []}, {"text": "x"})
        >>> ("ab" * 32) in c
        True
        """
        record = {
            "key": key,
            "model": body.get("model"),
            "params": {k: v for k, v in body.items() if k not in ("model", "messages")},
            "messages": hash_images(list(body.get("messages", []))),
            **dict(result),
            "stored_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        record["checksum"] = record_checksum(record)
        self._write(key, record)

    def _write(self, key: str, record: Mapping[str, Any]) -> None:
        path = self._path(key)
        if path.parent.name not in self._folders:  # 256 folders: made once, not per record
            path.parent.mkdir(parents=True, exist_ok=True)
            self._folders.add(path.parent.name)
        text = json.dumps(record, ensure_ascii=False)
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate in a reply: written as a \u escape
            data = json.dumps(record).encode("ascii")
        # complete or absent after a kill; not synced: a record lost to a power cut is
        # asked again, and a sync per record cost more than the record
        write_bytes(path, data, sync=False, own_folder=True)

    async def claim(self, key: str) -> KeyClaim:
        """Wait until this process holds the lock of *key* (see the module notes).

        Keys share 256 lock files by their first two hex digits: a file is
        created once, not per call. Within this process, the callers of one
        lock file go on together (identical requests are merged before they
        get here); another process waits until none of them is left.

        Parameters
        ----------
        key : str
            A :func:`cache_key`.

        Returns
        -------
        KeyClaim
            Call :meth:`KeyClaim.release` when the call is finished.

        Examples
        --------
        >>> import asyncio, tempfile
        >>> cache = ResponseCache(tempfile.mkdtemp())
        >>> async def once():
        ...     claim = await cache.claim("ab" * 32)
        ...     claim.release(stored=False)
        ...     return claim.waited
        >>> asyncio.run(once())
        False
        """
        claim = KeyClaim(self._stripe(key[:2]))
        await claim.acquire()
        return claim

    def _stripe(self, name: str) -> _Stripe:
        if not hasattr(self, "_stripes"):
            self._stripes: dict[str, _Stripe] = {}
        stripe = self._stripes.get(name)
        if stripe is None:
            stripe = self._stripes[name] = _Stripe(self.directory / ".locks" / f"{name}.lock")
        return stripe

    @contextlib.contextmanager
    def holding(
        self, keys: Iterable[str], on_wait: Callable[[], None] | None = None
    ) -> Iterator[bool]:
        """Hold the locks of every key in *keys* inside (blocking), as :meth:`claim` does one.

        A batch job takes the locks of the requests it submits for as long as
        it runs, so another process (batch or not) waits for its answers
        instead of paying for them again. Lock files are taken in one order
        (sorted), so two processes never wait for each other. Yields whether
        another process held one of them first (then some answers may be in
        the cache by now); *on_wait* is called once when a wait begins.

        Examples
        --------
        >>> import tempfile
        >>> cache = ResponseCache(tempfile.mkdtemp())
        >>> with cache.holding(["ab" * 32, "cd" * 32]) as waited:
        ...     print(waited, sorted(p.name for p in (cache.directory / ".locks").iterdir()))
        False ['ab.lock', 'cd.lock']
        """
        held: list[_Stripe] = []
        waited = False
        try:
            for name in sorted({key[:2] for key in keys}):
                stripe = self._stripe(name)
                pause = 0.02
                while stripe.holders == 0 and not stripe.try_lock():
                    if not waited and on_wait is not None:
                        on_wait()
                    waited = True
                    time.sleep(pause)
                    pause = min(pause * 2, 0.5)
                stripe.holders += 1
                held.append(stripe)
            yield waited
        finally:
            for stripe in held:
                stripe.holders -= 1
                if stripe.holders == 0:
                    stripe.unlock()


class _Stripe:
    """One lock file, and how many callers of this process hold it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.fd: int | None = None
        self.holders = 0

    def try_lock(self) -> bool:
        if fcntl is None:  # pragma: no cover - Windows
            return True
        if self.fd is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def unlock(self) -> None:
        if fcntl is not None and self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)


class KeyClaim:
    """An exclusive, crash-safe lock on a cache key against the other processes.

    Attributes
    ----------
    waited : bool
        Whether another process held the lock first (then its answer may be
        in the cache by now).

    Examples
    --------
    >>> import asyncio, tempfile
    >>> cache = ResponseCache(tempfile.mkdtemp())
    >>> async def twice():
    ...     a = await cache.claim("ab" * 32)
    ...     b = await cache.claim("ab" + "cd" * 31)  # same lock file, same process: no wait
    ...     a.release(stored=True), b.release(stored=True)
    ...     return a.stripe is b.stripe, b.waited
    >>> asyncio.run(twice())
    (True, False)
    """

    def __init__(self, stripe: _Stripe) -> None:
        self.stripe = stripe
        self.waited = False
        self._held = False

    async def acquire(self) -> None:
        stripe = self.stripe
        pause = 0.02
        while stripe.holders == 0 and not stripe.try_lock():
            self.waited = True
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.5)
        stripe.holders += 1
        self._held = True

    def release(self, stored: bool) -> None:
        """Let the other processes go on once no caller of this process holds the lock."""
        if not self._held:
            return
        self._held = False
        self.stripe.holders -= 1
        if self.stripe.holders == 0:
            self.stripe.unlock()
