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
import functools
import hashlib
import json
import os
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rrmap.errors import InputError

try:  # POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["KeyClaim", "ResponseCache", "cache_key", "hash_images"]

_DATA_URL_PREFIX = "data:"


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
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResponseCache:
    """Directory of cached chat-completion results, one JSON file per call.

    Parameters
    ----------
    directory : str or path
        Created if missing. Records live in ``<directory>/<key[:2]>/<key>.json``.

    Attributes
    ----------
    unreadable : int
        Records found damaged (e.g. edited by hand) and treated as missing.

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

    def __len__(self) -> int:
        return sum(1 for _ in self.directory.glob("??/*.json"))

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
        return sorted(p.stem for p in self.directory.glob("??/*.json"))

    def get(self, key: str) -> dict[str, Any] | None:
        """Return the record stored under *key*, or ``None``.

        A damaged record counts in :attr:`unreadable` and reads as missing, so
        the call is made again and the record rewritten.

        Examples
        --------
        >>> import tempfile
        >>> ResponseCache(tempfile.mkdtemp()).get("0" * 64) is None
        True
        """
        try:
            with open(self._file(key), encoding="utf-8") as fh:
                data = fh.read()
        except FileNotFoundError:
            return None
        try:
            record = json.loads(data)
        except (json.JSONDecodeError, UnicodeDecodeError):
            self.unreadable += 1
            return None
        if not isinstance(record, dict) or record.get("key") != key or "text" not in record:
            self.unreadable += 1
            return None
        return record

    def put(self, key: str, body: Mapping[str, Any], result: Mapping[str, Any]) -> None:
        """Store *result* for the request *body* under *key*, atomically.

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
        path = self._path(key)
        if path.parent.name not in self._folders:  # 256 folders: made once, not per record
            path.parent.mkdir(parents=True, exist_ok=True)
            self._folders.add(path.parent.name)
        tmp = path.with_name(f".{key}.{os.getpid()}.{uuid.uuid4().hex}.tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(record, fh, ensure_ascii=False)
        os.replace(tmp, path)

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
        if not hasattr(self, "_stripes"):
            self._stripes: dict[str, _Stripe] = {}
        name = key[:2]
        stripe = self._stripes.get(name)
        if stripe is None:
            stripe = self._stripes[name] = _Stripe(self.directory / ".locks" / f"{name}.lock")
        claim = KeyClaim(stripe)
        await claim.acquire()
        return claim


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
