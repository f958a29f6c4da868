"""The HTTP side of a :class:`~rrmap.judge.transport.client.ChatClient`, one session long.

A :class:`Session` lives for one ``async with client:``. It holds the
connection pools, lets the first request go out alone (the probe), and makes
the attempts of each request: transient failures (HTTP 429, 408, 5xx,
timeouts, dropped connections) are retried with exponential backoff and
jitter, ``Retry-After`` is honoured up to a cap, and long waits are announced.
A refusal of the configuration (401/403, 404, other 4xx), an endpoint that
cannot be reached on the first request, or the circuit breaker tripping stops
the session: every call in flight or waiting fails with the same
:class:`~rrmap.judge.transport.endpoint.EndpointError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import numpy as np

from rrmap.judge.transport._breaker import Breaker
from rrmap.judge.transport._provenance import reported_text, utc_now
from rrmap.judge.transport._reply import (
    _DETAIL_BYTES,
    _POOL_SIZE,
    _PROBE_CONNECT_TRIES,
    ACCEPT_ENCODING,
    ReplyTooLargeError,
    _message_text,
    _retry_after,
    _tls_context,
    public_url,
    read_body,
    require_httpx,
)
from rrmap.judge.transport.endpoint import CallFailedError, Endpoint, EndpointError
from rrmap.judge.transport.usage import ChatResult, UsageStats, reported_usage

__all__ = ["Session"]

_TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})


class Session:
    """The connection pools, the probe and the attempts of one ``async with`` of a client.

    Parameters
    ----------
    endpoint : Endpoint
    stats : UsageStats
        Counts the requests, retries and failed calls (the client's counters).
    breaker : Breaker
        Trips when too many attempts failed; the session then stops.
    rng : numpy Generator
        Source of the backoff jitter.
    notify : callable
        Receives one line when a wait lasts at least *announce_after* seconds.
    announce_after : float

    Examples
    --------
    >>> import asyncio
    >>> from rrmap.judge.transport.endpoint import Endpoint
    >>> async def probe_first():
    ...     session = Session(Endpoint("http://127.0.0.1:9/v1", "m", api_key_env=None),
    ...                       UsageStats(), Breaker(), np.random.default_rng(0), print, 5.0)
    ...     async with session.turn() as probe:
    ...         first = probe
    ...     await session.aclose()
    ...     return first
    >>> asyncio.run(probe_first())
    True
    """

    def __init__(
        self,
        endpoint: Endpoint,
        stats: UsageStats,
        breaker: Breaker,
        rng: np.random.Generator,
        notify: Callable[[str], None],
        announce_after: float,
    ) -> None:
        httpx = require_httpx()
        self.endpoint = endpoint
        self.stats = stats
        self.breaker = breaker
        self.rng = rng
        self.notify = notify
        self.announce_after = announce_after
        n = endpoint.concurrency
        # Connections are split into pools of at most _POOL_SIZE: httpx's pool does work
        # quadratic in its connections at every request, which at 32 connections costs
        # more than the request itself.
        sizes = [len(part) for part in np.array_split(np.arange(n), -(-n // _POOL_SIZE))]
        # one TLS context for every pool: building one reads the system's certificates
        tls = _tls_context()
        self._pools = [
            httpx.AsyncClient(
                timeout=httpx.Timeout(endpoint.timeout),
                limits=httpx.Limits(max_connections=k, max_keepalive_connections=k),
                verify=tls,
            )
            for k in sizes
        ]
        self._free = list(sizes)
        self._sem = asyncio.Semaphore(n)
        self._probe = asyncio.Lock()
        self._probed = False
        #: the error that stopped the session: every later call fails with it, unsent
        self.fatal: EndpointError | None = None

    async def aclose(self) -> None:
        """Close the connection pools."""
        for pool in self._pools:
            await pool.aclose()

    @contextlib.asynccontextmanager
    async def turn(self) -> AsyncIterator[bool]:
        """Wait for this call's turn; yields whether it goes out alone, as the probe.

        Until one request of a session has been answered, requests go out one
        at a time: a wrong key, model or URL, an endpoint that cannot be
        reached or that fails everything then costs a few requests, and every
        other call fails with the same error unsent. The first answer's
        reported tokens also correct the budget's estimate before any other
        call reserves (the caller reserves inside its turn).
        """
        probe = await self._await_probe()
        try:
            yield probe
        finally:
            if probe:  # answered or not, the next call may go
                self._probe.release()

    async def _await_probe(self) -> bool:
        """Whether this call goes out alone, holding the probe lock (released by :meth:`turn`)."""
        if self._probed:
            return False
        await self._probe.acquire()
        if self._probed or self.fatal is not None:
            self._probe.release()
            if self.fatal is not None:
                raise self.fatal
            return False
        return True

    async def send(self, body: dict[str, Any], probe: bool = False) -> ChatResult:
        """Send *body* within the concurrency limit, retrying as the endpoint allows.

        Raises
        ------
        EndpointError
            The endpoint refused the configuration or could not be reached;
            the session is stopped.
        CallFailedError
            A transient failure persisted through every retry.
        """
        if probe:
            try:
                async with self._sem:
                    result = await self._send(body, probe=True)
            except EndpointError as exc:
                self.fatal = exc
                raise
            self._probed = True
            return result
        async with self._sem:
            if self.fatal is not None:
                raise self.fatal
            try:
                return await self._send(body)
            except EndpointError as exc:
                self.fatal = exc
                raise

    def _backoff(self, attempt: int) -> float:
        """The wait before retry *attempt* + 1: doubling from ``backoff``, capped, jittered."""
        ep = self.endpoint
        return min(ep.backoff_cap, ep.backoff * 2.0**attempt) * (0.5 + 0.5 * self.rng.random())

    def _redact(self, text: str, key: str | None) -> str:
        return text.replace(key, "***") if key else text

    async def _send(self, body: dict[str, Any], probe: bool = False) -> ChatResult:
        key = self.endpoint.api_key()
        headers = {"Accept-Encoding": ACCEPT_ENCODING}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        # the pool with the most free connections (the caller holds a slot of the semaphore)
        slot = max(range(len(self._free)), key=self._free.__getitem__)
        self._free[slot] -= 1
        try:
            return await self._attempts(self._pools[slot], body, headers, key, probe)
        finally:
            self._free[slot] += 1

    async def _attempts(
        self, http: Any, body: dict[str, Any], headers: dict[str, str], key: str | None, probe: bool
    ) -> ChatResult:
        """The attempts of one request on the pool *http*: at most ``max_retries + 1``,
        a backoff (or the ``Retry-After`` asked for) between two."""
        import httpx

        ep = self.endpoint
        last = ""
        unreachable = 0
        for attempt in range(ep.max_retries + 1):
            if self.fatal is not None:  # the breaker tripped while this call waited
                raise self.fatal
            self.stats.requests += 1
            wait: float | None = None
            why = "backoff"
            try:
                async with asyncio.timeout(ep.timeout):  # the whole request, not each read
                    async with http.stream("POST", ep.url, json=body, headers=headers) as resp:
                        result = await self._read_response(resp, attempt, key)
            except ReplyTooLargeError as exc:
                self.stats.failed += 1
                raise CallFailedError(
                    f"{public_url(ep.url)}: {exc} (max_reply_bytes); not read further"
                ) from None
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.UnsupportedProtocol) as exc:
                last = f"connection failed ({type(exc).__name__}: {exc})"
                unreachable += 1
                if probe and (unreachable > _PROBE_CONNECT_TRIES or attempt == ep.max_retries):
                    raise EndpointError(
                        f"cannot reach {public_url(ep.url)}: {type(exc).__name__}: "
                        f"{' '.join(str(exc).split()) or 'no answer'} — check --base-url and "
                        "that the server is running",
                        None,
                    ) from None
                if probe:
                    wait = 0.25 * unreachable
            except (httpx.TimeoutException, TimeoutError):
                last = f"no whole answer within {ep.timeout:g} s"
                if probe:  # the first request: nothing else could have slowed it down
                    raise self._trip(
                        f"no whole answer within --timeout {ep.timeout:g} s: the endpoint hangs "
                        "or sends too slowly (or the model needs longer: raise --timeout)"
                    ) from None
            except httpx.TransportError as exc:
                last = f"connection failed ({type(exc).__name__}: {exc})"
            else:
                if isinstance(result, ChatResult):
                    self.breaker.record(True)
                    return result
                last, wait = result
                why = "Retry-After" if wait is not None else "backoff"
            if not last.startswith("HTTP 429"):  # slow down, not broken
                tripped = self.breaker.record(False)
                if tripped is not None:
                    raise self._trip(f"{tripped}; the last: {last}") from None
            if attempt == ep.max_retries:
                break
            self.stats.retries += 1
            pause = wait if wait is not None else self._backoff(attempt)
            if pause >= self.announce_after:
                self.notify(
                    f"{ep.model}: {last}; waiting {pause:.0f} s ({why}) before attempt "
                    f"{attempt + 2} of {ep.max_retries + 1}"
                )
            await asyncio.sleep(pause)
            if self.fatal is not None:
                raise self.fatal
        self.stats.failed += 1
        raise CallFailedError(f"{public_url(ep.url)}: {last} after {ep.max_retries + 1} attempts")

    def _trip(self, why: str) -> EndpointError:
        """Stop the run: every call in flight or waiting fails with the same error."""
        if self.fatal is None:
            self.fatal = EndpointError(f"{public_url(self.endpoint.url)}: stopped: {why}")
        return self.fatal

    async def _read_response(
        self, resp: Any, attempt: int, key: str | None
    ) -> ChatResult | tuple[str, float | None]:
        """A 200 answer, or (what went wrong, the wait the server asked for) to retry.

        The body is read within ``max_reply_bytes`` (:class:`ReplyTooLargeError`
        beyond); an error answer only for its first few kilobytes of detail.
        """
        ep = self.endpoint
        status = resp.status_code
        if status == 200:
            try:
                data = json.loads(await read_body(resp, ep.max_reply_bytes))
                text, finish = _message_text(data)
            except (ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError):
                return "HTTP 200 with a body that is not a chat completion", None
            prompt, completion, problem = reported_usage(data.get("usage"))
            return ChatResult(
                text=text,
                prompt_tokens=prompt,
                completion_tokens=completion,
                usage_problem=problem,
                finish_reason=finish,
                attempts=attempt + 1,
                model_version=reported_text(data.get("model")),
                answered_at=utc_now(),
                endpoint=public_url(ep.base_url),
            )
        if status in _TRANSIENT_STATUS:
            asked = _retry_after(resp.headers.get("retry-after"), float("inf"))
            cap = min(ep.retry_after_cap, ep.timeout)
            if asked is not None and asked > cap:
                return f"HTTP {status} asking to wait {asked:.0f} s (at most {cap:g} s)", cap
            return f"HTTP {status}", asked
        try:
            raw = await read_body(resp, _DETAIL_BYTES, truncate=True)
        except ValueError:
            raw = b""
        detail = self._redact(" ".join(raw.decode("utf-8", "replace").split())[:300], key)
        if status in (401, 403):
            hint = (
                f"the endpoint refused the API key from ${ep.api_key_env}"
                if ep.api_key_env
                else "the endpoint wants an API key; pass --api-key-env VAR"
            )
        elif status == 404:
            hint = f"model {ep.model!r} or URL {public_url(ep.url)} not found"
        else:
            hint = "the endpoint rejected the request"
        raise EndpointError(f"{public_url(ep.url)}: HTTP {status}: {hint} ({detail})", status)
