"""A persistent, crash-safe cache of chat-completion calls.

One record per call, stored as its own JSON file under the cache directory
and named by the call's key: the SHA-256 of the model name, the messages (with
every embedded image replaced by a hash of its encoded bytes) and the
sampling parameters. A record is written to a temporary file, flushed to
disk and then renamed into place, so a process killed at any moment leaves
either the complete record or none: a resumed run never repeats a completed
call and never reads a half-written one. Leftover temporary files are
ignored. The API key is never part of a record.

Several processes may share one cache directory: a call is made under a
per-key lock (``fcntl.flock`` on ``.locks/<key>.lock``), so while one process
pays for a request the others wait for its answer instead of paying again.
The operating system releases the lock of a process that dies, so a crash
never blocks the others. (Where ``fcntl`` does not exist, e.g. on Windows,
processes are not coordinated; one process never sends a request twice.)
"""

from __future__ import annotations

import asyncio
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


def _hash_url(url: str) -> str:
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
        self.unreadable = 0
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
        path = self._path(key)
        try:
            data = path.read_text(encoding="utf-8")
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
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{key}.{os.getpid()}.{uuid.uuid4().hex}.tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(record, fh, ensure_ascii=False)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)

    async def claim(self, key: str) -> KeyClaim:
        """Wait until this process holds the lock of *key* (see the module notes).

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
        claim = KeyClaim(self.directory / ".locks" / f"{key}.lock")
        await claim.acquire()
        return claim


class KeyClaim:
    """An exclusive, crash-safe lock on one cache key, shared by every process.

    Attributes
    ----------
    waited : bool
        Whether another process held the key first (then its answer is
        usually in the cache by now).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.waited = False
        self._fd: int | None = None

    async def acquire(self) -> None:
        if fcntl is None:  # pragma: no cover - Windows
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        pause = 0.02
        while True:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                self.waited = True
                await asyncio.sleep(pause)
                pause = min(pause * 2, 0.5)

    def release(self, stored: bool) -> None:
        """Let the other processes go on; *stored*: the answer is in the cache.

        The lock file is removed only after a stored answer: a process that
        then takes a fresh lock finds the answer in the cache.
        """
        if self._fd is None:
            return
        try:
            if stored:
                try:
                    self.path.unlink()
                except FileNotFoundError:
                    pass
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        finally:
            os.close(self._fd)
            self._fd = None
