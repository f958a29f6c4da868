"""Async client for any OpenAI-compatible chat-completions endpoint.

OpenAI, vLLM, Ollama, LM Studio and Gemini's OpenAI-compatible endpoint all
accept ``POST {base_url}/chat/completions`` with a ``model`` and a list of
``messages``. :class:`ChatClient` sends such requests with a concurrency
limit, retries transient failures (HTTP 429, 408, 5xx, timeouts, dropped
connections) with exponential backoff and jitter while honouring
``Retry-After``, and stops at once with :class:`EndpointError` on a wrong key
(401/403), a wrong model or URL (404) or a request the server rejects (400,
422). The API key is read from a named environment variable at request time
and is never logged, cached or written anywhere.

The first request of a session goes out alone: when the endpoint cannot be
reached at all (connection refused, unknown host) the run stops within
seconds with :class:`EndpointError` instead of retrying every call for
minutes; later transient failures keep their retries. Identical requests in
flight are sent once (the others wait for that answer), processes sharing a
cache directory do not pay twice for one request, and an optional
:class:`~rrmap.judge.transport.budget.Budget` stops a run before it passes a number of
paid calls or a cost.

A reply is read up to :data:`MAX_REPLY_BYTES` (4 MiB, ``max_reply_bytes``)
and no further: a larger one fails its call at once (counted as failed, not
retried) without ever being held whole in memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from rrmap.errors import InputError
from rrmap.judge.transport._breaker import Breaker
from rrmap.judge.transport._conversation import _CONVERSATION, _Conversation, conversation
from rrmap.judge.transport._provenance import cache_record, record_call, reported_text, utc_now
from rrmap.judge.transport._reply import (
    _DETAIL_BYTES,
    _POOL_SIZE,
    _PROBE_CONNECT_TRIES,
    ACCEPT_ENCODING,
    MAX_REPLY_BYTES,
    ReplyTooLargeError,
    _message_text,
    _retry_after,
    _tls_context,
    _to_stderr,
    _whole_characters,
    _writer,
    base_url_problems,
    public_url,
    read_body,
    redacted_url,
    require_httpx,
)
from rrmap.judge.transport.budget import Budget, BudgetExhausted, Reservation, usage_warning
from rrmap.judge.transport.cache import ResponseCache, cache_key
from rrmap.judge.transport.usage import ChatResult, UsageStats, reported_usage

__all__ = [
    "MAX_REPLY_BYTES",
    "CallFailedError",
    "ChatClient",
    "ChatResult",
    "Endpoint",
    "EndpointError",
    "NotSentError",
    "UsageStats",
    "conversation",
    "public_url",
]

#: Waits at least this long (seconds) are announced on stderr, so a run never looks hung.
ANNOUNCE_WAIT = 5.0

_TRANSIENT_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})


class EndpointError(InputError):
    """The endpoint refused the configuration (key, model, URL or request).

    Raised without retrying for HTTP 401/403 (key), 404 (model or URL) and
    other 4xx answers other than 408/409/425/429.

    Examples
    --------
    >>> err = EndpointError("HTTP 404: model 'x' not found", status=404)
    >>> err.status
    404
    """

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class CallFailedError(RuntimeError):
    """A call still failed after every allowed retry (the last error is in the message).

    Examples
    --------
    >>> str(CallFailedError("HTTP 503 after 7 attempts"))
    'HTTP 503 after 7 attempts'
    """


class NotSentError(CallFailedError):
    """A call was not sent: the budget was reached (or, in a dry run, it is not cached).

    Judging functions record it like a failed call, so a run stops cleanly
    with everything answered so far.

    Examples
    --------
    >>> isinstance(NotSentError("not sent: budget"), CallFailedError)
    True
    """


@dataclass(frozen=True, repr=False)
class Endpoint:
    """Where and how to call a chat-completions model.

    Parameters
    ----------
    base_url : str
        E.g. ``"https://api.openai.com/v1"`` or ``"http://localhost:11434/v1"``;
        ``/chat/completions`` is appended.
    model : str
        Model name as the endpoint knows it.
    api_key_env : str or None
        Name of the environment variable holding the key; ``None`` sends no
        ``Authorization`` header (local servers).
    temperature, max_tokens : float, int
        Sampling parameters sent with every request (part of the cache key).
    timeout : float
        Seconds one HTTP request may take in all: connecting, sending and
        reading the whole reply (a server that sends its answer a byte at a
        time is given up at this deadline, and the attempt retried). Also the
        longest ``Retry-After`` wait honoured. A call makes at most
        ``max_retries + 1`` requests, with a wait between two.
    concurrency : int
        Requests in flight at most.
    max_retries : int
        Retries after the first attempt for transient failures.
    backoff, backoff_cap : float
        First backoff wait in seconds and its ceiling; the wait doubles per
        retry and is multiplied by a random factor in [0.5, 1).
    retry_after_cap : float
        Longest ``Retry-After`` honoured, in seconds (never more than
        *timeout*); a longer one is waited for this long only.
    extra : mapping
        Further body parameters (e.g. ``{"seed": 0}``), part of the cache key.
    max_reply_bytes : int, default :data:`MAX_REPLY_BYTES` (4 MiB)
        Largest reply body read; a larger reply fails its call (not retried).

    Examples
    --------
    >>> ep = Endpoint("http://127.0.0.1:8000/v1", "qwen2-vl", api_key_env=None)
    >>> ep.url
    'http://127.0.0.1:8000/v1/chat/completions'
    >>> ep.params()
    {'temperature': 0.0, 'max_tokens': 1024}
    >>> repr(Endpoint("http://alice:s3cret@127.0.0.1:8000/v1", "m"))[:52]
    "Endpoint(base_url='http://***@127.0.0.1:8000/v1', mo"
    """

    base_url: str
    model: str
    api_key_env: str | None = "OPENAI_API_KEY"
    temperature: float = 0.0
    max_tokens: int = 1024
    timeout: float = 120.0
    concurrency: int = 8
    max_retries: int = 6
    backoff: float = 1.0
    backoff_cap: float = 60.0
    retry_after_cap: float = 300.0
    extra: Mapping[str, Any] = field(default_factory=dict)
    max_reply_bytes: int = MAX_REPLY_BYTES

    def __post_init__(self) -> None:
        problems = base_url_problems(self.base_url)
        if not self.model:
            problems.append("model name is empty")
        if self.concurrency < 1:
            problems.append(f"concurrency must be at least 1, got {self.concurrency}")
        if self.timeout <= 0:
            problems.append(f"timeout must be positive, got {self.timeout}")
        if self.max_retries < 0:
            problems.append(f"max_retries must be >= 0, got {self.max_retries}")
        if self.max_reply_bytes < 1:
            problems.append(f"max_reply_bytes must be at least 1, got {self.max_reply_bytes}")
        if problems:
            raise InputError("endpoint: " + "; ".join(problems))

    def __repr__(self) -> str:
        """The fields, the base URL without its user, password or query values."""
        shown = {f.name: getattr(self, f.name) for f in fields(self)}
        shown["base_url"] = redacted_url(self.base_url)
        return f"Endpoint({', '.join(f'{k}={v!r}' for k, v in shown.items())})"

    @property
    def url(self) -> str:
        """The full chat-completions URL."""
        return self.base_url.rstrip("/") + "/chat/completions"

    def params(self) -> dict[str, Any]:
        """Body parameters other than model and messages."""
        return {"temperature": self.temperature, "max_tokens": self.max_tokens, **self.extra}

    def api_key(self) -> str | None:
        """Read the key from :attr:`api_key_env`; ``None`` when no variable is named.

        Raises
        ------
        InputError
            If the variable is named but not set.
        """
        if self.api_key_env is None:
            return None
        key = os.environ.get(self.api_key_env)
        if not key:
            raise InputError(
                f"environment variable {self.api_key_env} (the API key) is not set; "
                "export it, or pass api_key_env=None for a server without a key"
            )
        return key


class ChatClient:
    """Send chat messages to an :class:`Endpoint`, with cache, retries and a concurrency limit.

    Use it as an async context manager (one HTTP connection pool per
    ``async with``); the judging functions of :mod:`rrmap.judge` do this for
    you.

    Parameters
    ----------
    endpoint : Endpoint
    cache : ResponseCache, path or None
        Where finished calls are stored; a path creates a :class:`ResponseCache`
        (an unwritable directory is an error at once, before any paid call).
    rng : int, numpy Generator or None
        Source of the backoff jitter.
    budget : Budget, optional
        Limits on paid calls and cost, checked before each call is sent.
    notify : callable, optional
        Receives one line when the client waits long (``Retry-After``,
        backoff); default: stderr.
    announce_after : float, default 5
        Waits at least this long (seconds) are announced through *notify*.
    breaker : Breaker, optional
        When to stop a run whose endpoint does not work (default
        :class:`~rrmap.judge.transport._breaker.Breaker`: the first 5 attempts all
        failed, or all of the last 20); it then raises :class:`EndpointError`.

    Attributes
    ----------
    stats : UsageStats
        Counters since construction.

    Examples
    --------
    >>> client = ChatClient(Endpoint("http://127.0.0.1:9/v1", "m", api_key_env=None))
    >>> client.request_body([{"role": "user", "content": "hi"}])["model"]
    'm'
    """

    def __init__(
        self,
        endpoint: Endpoint,
        cache: ResponseCache | str | os.PathLike[str] | None = None,
        rng: int | np.random.Generator | None = None,
        budget: Budget | None = None,
        notify: Callable[[str], None] | None = None,
        announce_after: float = ANNOUNCE_WAIT,
        breaker: Breaker | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.breaker = breaker or Breaker()
        self.announce_after = announce_after
        self.cache = (
            cache if cache is None or isinstance(cache, ResponseCache) else (ResponseCache(cache))
        )
        self.rng = np.random.default_rng(rng)
        self.budget = budget
        self.notify = notify or _to_stderr
        self.stats = UsageStats()
        if budget is not None and budget.prices is not None:
            self.stats.cost = 0.0
        self._http: Any = None
        self._sem: asyncio.Semaphore | None = None
        self._depth = 0
        self._probe: asyncio.Lock | None = None
        self._probed = False
        self._fatal: EndpointError | None = None
        self._inflight: dict[str, asyncio.Future] = {}
        #: answers paid for in this run, by cache key: an identical request is not paid
        #: again, with or without a cache (shared with the twins of with_params)
        self._memo: dict[str, ChatResult] = {}
        #: endpoints already warned of (answers without token counts), shared with twins
        self._warned: set[str] = set()

    @property
    def name(self) -> str:
        """The model name (used in output tables)."""
        return self.endpoint.model

    async def __aenter__(self) -> ChatClient:
        if self._depth == 0:
            httpx = require_httpx()

            n = self.endpoint.concurrency
            # Connections are split into pools of at most _POOL_SIZE: httpx's pool does work
            # quadratic in its connections at every request, which at 32 connections costs
            # more than the request itself.
            sizes = [len(part) for part in np.array_split(np.arange(n), -(-n // _POOL_SIZE))]
            # one TLS context for every pool: building one reads the system's certificates
            tls = _tls_context()
            self._pools = [
                httpx.AsyncClient(
                    timeout=httpx.Timeout(self.endpoint.timeout),
                    limits=httpx.Limits(max_connections=k, max_keepalive_connections=k),
                    verify=tls,
                )
                for k in sizes
            ]
            self._free = list(sizes)
            self._http = self._pools[0]
            self._sem = asyncio.Semaphore(n)
            self._probe = asyncio.Lock()
            self._probed = False
            self._fatal = None
            self._inflight = {}
        self._depth += 1
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0:
            for pool in self._pools:
                await pool.aclose()
            self._http = None

    @contextlib.asynccontextmanager
    async def open_conversation(self, turns: int) -> Any:
        """See :func:`conversation`."""
        conv = _Conversation(turns, budget=self.budget)
        token = _CONVERSATION.set(conv)
        try:
            yield conv
        finally:
            _CONVERSATION.reset(token)
            if conv.reservation is not None and self.budget is not None:
                self.budget.release(conv.reservation)

    def with_params(self, **extra: Any) -> ChatClient:
        """A twin whose requests also carry *extra* body parameters (e.g. ``seed``).

        It shares this client's cache, counters, budget and notices; its
        requests are cached under their own keys.

        Examples
        --------
        >>> c = ChatClient(Endpoint("http://127.0.0.1:9/v1", "m", api_key_env=None))
        >>> c.with_params(seed=3).request_body([])["seed"], c.with_params(seed=3).stats is c.stats
        (3, True)
        """
        ep = replace(self.endpoint, extra={**self.endpoint.extra, **extra})
        twin = ChatClient(
            ep,
            cache=self.cache,
            budget=self.budget,
            notify=self.notify,
            announce_after=self.announce_after,
        )
        twin.rng = self.rng
        twin.stats = self.stats
        twin.breaker = self.breaker
        twin._memo = self._memo
        twin._warned = self._warned
        return twin

    def with_seed(self, seed: int) -> ChatClient:
        """:meth:`with_params` with ``seed=seed``."""
        return self.with_params(seed=seed)

    def request_body(self, messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """The JSON body that :meth:`chat` would send for *messages*."""
        return {"model": self.endpoint.model, "messages": list(messages), **self.endpoint.params()}

    def cached(self, messages: Sequence[Mapping[str, Any]]) -> bool:
        """Whether the answer to *messages* is already in the cache."""
        return self.cache is not None and cache_key(self.request_body(messages)) in self.cache

    def from_cache(self, key: str) -> ChatResult | None:
        """The cached answer stored under *key*, or ``None``."""
        if self.cache is None:
            return None
        record = self.cache.get(key)
        if record is None:
            return None
        prompt, completion, problem = reported_usage(record.get("usage"))
        return ChatResult(
            text=_whole_characters(record["text"]),
            prompt_tokens=prompt,
            completion_tokens=completion,
            usage_problem=problem,
            finish_reason=reported_text(record.get("finish_reason")),
            from_cache=True,
            attempts=0,
            source="cache",
            model_version=reported_text(record.get("model_version")),
            answered_at=reported_text(record.get("answered_at") or record.get("stored_at")),
            endpoint=reported_text(record.get("endpoint")),
        )

    async def chat(self, messages: Sequence[Mapping[str, Any]]) -> ChatResult:
        """Answer *messages* from the cache or the endpoint.

        Identical requests in flight at the same time are sent once; with a
        cache shared by several processes, a request another process is
        sending is waited for, not sent again.

        Parameters
        ----------
        messages : sequence of dict
            Chat-completions messages (``role`` and ``content``; content may
            be a list of ``text`` and ``image_url`` parts).

        Returns
        -------
        ChatResult

        Raises
        ------
        EndpointError
            Wrong key, model, URL, an endpoint that cannot be reached, or a
            rejected request (no retry).
        CallFailedError
            A transient failure persisted through every retry.
        NotSentError
            The budget does not allow the call.
        """
        body = self.request_body(messages)
        key = cache_key(body)
        result = await self._chat(body, key)
        # the row's provenance (transport._provenance): a cached answer keeps its endpoint
        result = replace(
            result, prompt_hash=key, endpoint=result.endpoint or public_url(self.endpoint.base_url)
        )
        record_call(result)
        return result

    async def _chat(self, body: dict[str, Any], key: str) -> ChatResult:
        """:meth:`chat` for the request *body* under its *key*."""
        conv = _CONVERSATION.get()
        if conv is not None:
            conv.made += 1
        cached = self.from_cache(key)
        if cached is not None:
            self.stats.add(cached)
            return cached
        earlier = self._memo.get(key)
        if earlier is not None:  # answered earlier in this run (also without a cache)
            result = replace(earlier, source="shared", attempts=0)
            self.stats.add(result)
            return result
        waiting = self._inflight.get(key)
        if waiting is not None:
            result = replace(await asyncio.shield(waiting), source="shared", attempts=0)
            self.stats.add(result)
            return result
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            result = await self._answer(key, body)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: waiters re-raise it, nobody else has to
            raise
        else:
            future.set_result(result)
            self._memo[key] = result
        finally:
            self._inflight.pop(key, None)
        self.stats.add(result)
        return result

    async def _answer(self, key: str, body: dict[str, Any]) -> ChatResult:
        """Send *body* under the cross-process claim of *key*, and store the answer."""
        if self._http is None:
            raise RuntimeError("use 'async with client:' before calling chat()")
        claim = await self.cache.claim(key) if self.cache is not None else None
        stored = False
        try:
            if claim is not None and claim.waited:
                # another process held the key: its answer is usually cached now
                cached = self.from_cache(key)
                if cached is not None:
                    return cached
            probe = await self._await_probe()
            try:
                reservation = await self._reserve(body)
                try:
                    self._check(reservation, body)
                    result = await self._send_checked(body, probe)
                except BaseException:
                    self._unreserve(reservation)
                    raise
            finally:
                if probe:  # answered or not, the next call may go
                    self._probe.release()
            self._settle(reservation, body, result)
            if self.cache is not None:
                # in a writer thread of its own: file creation can be slow on some file
                # systems, and must wait neither for image work nor block the other calls
                loop = asyncio.get_running_loop()
                record = cache_record(result)
                await loop.run_in_executor(_writer(), self.cache.put, key, body, record)
                stored = True
            return result
        finally:
            if claim is not None:
                claim.release(stored)

    async def _reserve(self, body: dict[str, Any]) -> Reservation | None:
        """What the budget sets aside for this call: the conversation's turns, or this call.

        A conversation's first paid call reserves every turn left (re-asks
        included); a reservation that does not fit waits for the calls in
        flight to settle and is refused only when none is left
        (:meth:`Budget.reserve_waiting`).
        """
        if self.budget is None:
            return None
        conv = _CONVERSATION.get()
        mt = self.endpoint.max_tokens
        try:
            if conv is not None and conv.budget is self.budget:
                if conv.reservation is None:
                    left = max(1, conv.turns - conv.made + 1)
                    conv.reservation = await self.budget.reserve_waiting(body, mt, turns=left)
                if conv.reservation.calls:
                    return conv.reservation
            return await self.budget.reserve_waiting(body, mt)
        except BudgetExhausted as exc:
            self.stats.not_sent += 1
            raise NotSentError(str(exc)) from None

    def _check(self, reservation: Reservation | None, body: dict[str, Any]) -> None:
        """Re-estimate *reservation* from the request about to be sent (:meth:`Budget.check`)."""
        if reservation is None or self.budget is None:
            return
        try:
            self.budget.check(reservation, body)
        except BudgetExhausted as exc:
            self.stats.not_sent += 1
            raise NotSentError(str(exc)) from None

    def _unreserve(self, reservation: Reservation | None) -> None:
        """A call that got no answer gives back its own reservation (not a conversation's)."""
        conv = _CONVERSATION.get()
        if reservation is not None and (conv is None or reservation is not conv.reservation):
            self.budget.release(reservation)

    def _settle(
        self, reservation: Reservation | None, body: dict[str, Any], result: ChatResult
    ) -> None:
        if result.usage_problem is not None:
            self._warn_usage(result.usage_problem)
        if self.budget is None:
            return
        known = result.usage_problem is None
        self.budget.use(
            reservation or Reservation(0, 0.0),
            result.prompt_tokens if known else None,
            result.completion_tokens if known else None,
            body=body,
            batch=result.source == "batch",
        )
        if self.budget.prices is not None:
            self.stats.cost = self.budget.cost

    def _warn_usage(self, problem: str) -> None:
        """Say once per run that the endpoint's answers come without usable token counts."""
        where = public_url(self.endpoint.base_url)
        if where in self._warned:
            return
        self._warned.add(where)
        warning = usage_warning(where, problem, self.budget, self.endpoint.max_tokens)
        self.notify(f"Warning: {warning}")

    async def _await_probe(self) -> bool:
        """Whether this call goes out alone, holding the probe lock (released by the caller).

        Until one request of a session has been answered, requests go out one
        at a time: a wrong key, model or URL, an endpoint that cannot be
        reached or that fails everything then costs a few requests, and every
        other call fails with the same error unsent. The first answer's
        reported tokens also correct the budget's estimate before any other
        call reserves.
        """
        if self._probed:
            return False
        await self._probe.acquire()
        if self._probed or self._fatal is not None:
            self._probe.release()
            if self._fatal is not None:
                raise self._fatal
            return False
        return True

    async def _send_checked(self, body: dict[str, Any], probe: bool = False) -> ChatResult:
        if probe:
            try:
                async with self._sem:
                    result = await self._send(body, probe=True)
            except EndpointError as exc:
                self._fatal = exc
                raise
            self._probed = True
            return result
        async with self._sem:
            if self._fatal is not None:
                raise self._fatal
            try:
                return await self._send(body)
            except EndpointError as exc:
                self._fatal = exc
                raise

    def _backoff(self, attempt: int) -> float:
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
            return await self._send_on(self._pools[slot], body, headers, key, probe)
        finally:
            self._free[slot] += 1

    async def _send_on(
        self, http: Any, body: dict[str, Any], headers: dict[str, str], key: str | None, probe: bool
    ) -> ChatResult:
        import httpx

        ep = self.endpoint
        last = ""
        unreachable = 0
        for attempt in range(ep.max_retries + 1):
            if self._fatal is not None:  # the breaker tripped while this call waited
                raise self._fatal
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
            if self._fatal is not None:
                raise self._fatal
        self.stats.failed += 1
        raise CallFailedError(f"{public_url(ep.url)}: {last} after {ep.max_retries + 1} attempts")

    def _trip(self, why: str) -> EndpointError:
        """Stop the run: every call in flight or waiting fails with the same error."""
        if self._fatal is None:
            self._fatal = EndpointError(f"{public_url(self.endpoint.url)}: stopped: {why}")
        return self._fatal

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
