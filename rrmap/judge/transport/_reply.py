"""An endpoint's reply and the HTTP around it: where it comes from, its size limit, its
wait, its text; the httpx import (with its install hint), the TLS context, pool sizes and
the threads that write cache records.

A reply body is read piece by piece and given up as soon as it passes the
limit (:data:`MAX_REPLY_BYTES` by default), so a runaway or hostile endpoint
costs at most that much memory per call in flight. Compressed bodies
(``gzip``, ``deflate``) are inflated in bounded steps: the limit applies to
the inflated size, and a small compressed body that would inflate to
gigabytes is stopped at the limit too. A reply's text keeps whole
characters only: a lone surrogate (half a character, which a ``\ud800``
escape can carry) becomes U+FFFD, since it could be written nowhere.
"""

from __future__ import annotations

import concurrent.futures
import email.utils
import functools
import re
import sys
import time
import zlib
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from rrmap._util.escape import message_text
from rrmap._util.lazy import optional_module

__all__ = [
    "MAX_REPLY_BYTES",
    "ReplyTooLargeError",
    "base_url_problems",
    "public_url",
    "read_body",
    "redacted_url",
    "require_httpx",
]

#: Largest reply body read from an endpoint, in bytes (``Endpoint.max_reply_bytes``).
MAX_REPLY_BYTES = 4 * 1024 * 1024

#: Encodings asked for; others are refused (they could not be inflated in bounded steps).
ACCEPT_ENCODING = "gzip, deflate"


class ReplyTooLargeError(Exception):
    """A reply body passed the size limit; what was read of it is dropped.

    Examples
    --------
    >>> str(ReplyTooLargeError(10))
    'the reply is larger than 10 bytes'
    """

    def __init__(self, limit: int, what: str = "the reply") -> None:
        super().__init__(f"{what} is larger than {limit:,} bytes")
        self.limit = limit


class _Inflate:
    """``gzip`` or ``deflate`` decoding that never produces more than it is asked for."""

    def __init__(self, encoding: str) -> None:
        self._raw_fallback = encoding == "deflate"  # zlib-wrapped, or raw as some servers send
        wbits = zlib.MAX_WBITS if self._raw_fallback else 16 + zlib.MAX_WBITS
        self._z = zlib.decompressobj(wbits)

    def feed(self, data: bytes, room: int) -> bytes:
        """The inflated bytes of *data*, at most ``room + 1`` of them (more: too large)."""
        try:
            out = self._z.decompress(data, room + 1)
        except zlib.error:
            if not self._raw_fallback:
                raise
            self._z = zlib.decompressobj(-zlib.MAX_WBITS)
            out = self._z.decompress(data, room + 1)
        self._raw_fallback = False
        return out


def _decoder(encoding: str) -> _Inflate | None:
    """The decoder of a ``Content-Encoding`` header; ``None`` for an identity body."""
    names = [e.strip().lower() for e in encoding.split(",") if e.strip()]
    names = [e for e in names if e != "identity"]
    if not names:
        return None
    if len(names) == 1 and names[0] in ("gzip", "x-gzip", "deflate"):
        return _Inflate("deflate" if names[0] == "deflate" else "gzip")
    raise ValueError(f"the reply is encoded as {message_text(encoding)!r}, which was not asked for")


async def read_body(resp: Any, limit: int, *, truncate: bool = False) -> bytes:
    """The body of a streamed httpx response, inflated, holding at most *limit* bytes.

    Parameters
    ----------
    resp : httpx.Response
        A response opened with ``stream(...)``, its body not read yet.
    limit : int
        Bytes of body at most (after inflating).
    truncate : bool
        Return the first *limit* bytes instead of raising (for error details).

    Raises
    ------
    ReplyTooLargeError
        The body is longer than *limit* (and *truncate* is false).
    ValueError
        The body is compressed in a way that was not asked for, or is damaged.
    """
    length = resp.headers.get("content-length", "")
    decoder = _decoder(resp.headers.get("content-encoding", ""))
    if decoder is None and length.isdigit() and int(length) > limit and not truncate:
        raise ReplyTooLargeError(limit)
    parts: list[bytes] = []
    size = 0
    async for chunk in resp.aiter_raw():
        if decoder is not None:
            try:
                chunk = decoder.feed(chunk, limit - size)
            except zlib.error as exc:
                raise ValueError(f"the compressed reply is damaged ({exc})") from None
        if size + len(chunk) > limit:
            if truncate:
                parts.append(chunk[: limit - size])
                break
            raise ReplyTooLargeError(limit)
        parts.append(chunk)
        size += len(chunk)
    return b"".join(parts)


def public_url(url: str) -> str:
    """*url* without credentials (user, password, query string) — safe to write down.

    Examples
    --------
    >>> public_url("https://user:secret@api.example.com/v1?key=abc")
    'https://api.example.com/v1'
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def redacted_url(url: str) -> str:
    """*url* as messages show it: its user and password, the values of its query and its
    fragment as ``***``, whatever else is wrong with it (it need not parse).

    Examples
    --------
    >>> redacted_url("https://alice:s3cret@h/v1?key=abc&token#part")
    'https://***@h/v1?key=***&***#***'
    >>> redacted_url("alice:p@ss@h:x/v1")
    '***@h:x/v1'
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    end = min((i for i in map(rest.find, "/?#") if i >= 0), default=len(rest))
    if "@" in rest[:end]:
        rest = "***@" + rest[rest.rindex("@", 0, end) + 1 :]
    rest, hash_, _ = rest.partition("#")
    rest, question, query = rest.partition("?")
    if question:
        query = "&".join(f"{p.split('=')[0]}=***" if "=" in p else "***" for p in query.split("&"))
    return scheme + sep + rest + question + query + ("#***" if hash_ else "")


def base_url_problems(url: str) -> list[str]:
    """What is wrong with an endpoint's base URL (nothing: an empty list).

    A base URL is ``http://`` or ``https://``, a host, and a path; no query
    (``?``), no fragment (``#``), no blanks: ``/chat/completions`` is added
    to it, and a query would swallow that path.

    Examples
    --------
    >>> base_url_problems("https://api.openai.com/v1")
    []
    >>> base_url_problems("http://h/v1?q=1")
    ["base URL 'http://h/v1?q=***' has a query (?...): give the path only, e.g. http://h/v1"]
    >>> base_url_problems("ftp://h/v1")
    ["base URL 'ftp://h/v1' must start with http:// or https://"]
    """
    shown = repr(message_text(redacted_url(url)))  # never a user's password or key
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        return [f"base URL {shown} contains blanks or control characters"]
    try:
        parts = urlsplit(url)
        _ = parts.port  # a port that is not a number raises here
    except ValueError as exc:
        return [f"base URL {shown} is not a valid URL ({exc})"]
    if parts.scheme.lower() not in ("http", "https"):
        return [f"base URL {shown} must start with http:// or https://"]
    problems = []
    if not parts.hostname:
        problems.append(f"base URL {shown} has no host")
    host = (parts.hostname or "") + (f":{parts.port}" if parts.port else "")
    plain = message_text(f"{parts.scheme}://{host}{parts.path}")  # without user and password
    if "?" in url:
        problems.append(f"base URL {shown} has a query (?...): give the path only, e.g. {plain}")
    if "#" in url:
        problems.append(f"base URL {shown} has a fragment (#...): give the path only, e.g. {plain}")
    return problems


def _retry_after(value: str | None, cap: float) -> float | None:
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return min(max(seconds, 0.0), cap)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _whole_characters(text: str) -> str:
    """*text* with each lone surrogate (half a character, from a ``\\ud800`` escape) as U+FFFD:
    such a string cannot be written as UTF-8, to the cache or to any output."""
    return _SURROGATE.sub("\ufffd", text)


def _message_text(data: Any) -> tuple[str, str | None]:
    choice = data["choices"][0]
    content = choice["message"].get("content")
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if content is not None and not isinstance(content, str):
        raise TypeError("the message content is not text")
    finish = choice.get("finish_reason")
    return _whole_characters(content or ""), finish if isinstance(finish, str) else None


def require_httpx() -> Any:
    """The httpx module, or an :class:`~rrmap.errors.InputError` that says how to install it.

    Examples
    --------
    >>> require_httpx().__name__
    'httpx'
    """
    return optional_module("httpx", "talking to an endpoint needs httpx", "judge")


#: Bytes of an error answer read for its message.
_DETAIL_BYTES = 16 * 1024

#: Connection attempts of the first request before an endpoint counts as unreachable.
_PROBE_CONNECT_TRIES = 2

#: Connections per httpx pool (see ChatClient.__aenter__).
_POOL_SIZE = 8


@functools.cache
def _tls_context() -> Any:
    """The TLS context of https endpoints (certificates read once per process)."""
    import ssl

    return ssl.create_default_context()


@functools.cache
def _writer() -> concurrent.futures.ThreadPoolExecutor:
    """The threads that write cache records (a few: file creation waits on the disk)."""
    return concurrent.futures.ThreadPoolExecutor(4, thread_name_prefix="rrmap-cache")


def _to_stderr(line: str) -> None:
    from tqdm import tqdm

    tqdm.write(line, file=sys.stderr)
