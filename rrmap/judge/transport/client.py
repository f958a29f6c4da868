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

A call goes through three steps, each in its own module: the client answers
it from the cache or from an identical call of this run, or reserves its
place in the budget (here); the session of the ``async with`` sends it and
retries it (:mod:`~rrmap.judge.transport._session`); what is sent where, and
how a call fails, is the :class:`Endpoint` (:mod:`~rrmap.judge.transport.endpoint`,
whose names are importable from here too).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from rrmap.judge.transport._breaker import Breaker
from rrmap.judge.transport._conversation import _CONVERSATION, _Conversation, conversation
from rrmap.judge.transport._provenance import cache_record, record_call, reported_text
from rrmap.judge.transport._reply import (
    MAX_REPLY_BYTES,
    _to_stderr,
    _whole_characters,
    _writer,
    public_url,
)
from rrmap.judge.transport._session import Session
from rrmap.judge.transport.budget import Budget, BudgetExhausted, Reservation, usage_warning
from rrmap.judge.transport.cache import ResponseCache, cache_key
from rrmap.judge.transport.endpoint import CallFailedError, Endpoint, EndpointError, NotSentError
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
        #: the HTTP side of the current ``async with`` (None outside one)
        self._session: Session | None = None
        self._depth = 0
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
            self._session = Session(
                self.endpoint,
                self.stats,
                self.breaker,
                self.rng,
                self.notify,
                self.announce_after,
            )
            self._inflight = {}
        self._depth += 1
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0 and self._session is not None:
            session, self._session = self._session, None
            await session.aclose()

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
        session = self._session
        if session is None:
            raise RuntimeError("use 'async with client:' before calling chat()")
        claim = await self.cache.claim(key) if self.cache is not None else None
        stored = False
        try:
            if claim is not None and claim.waited:
                # another process held the key: its answer is usually cached now
                cached = self.from_cache(key)
                if cached is not None:
                    return cached
            async with session.turn() as probe:  # the first request of a session goes alone
                reservation = await self._reserve(body)
                try:
                    self._check(reservation, body)
                    result = await session.send(body, probe)
                except BaseException:
                    self._unreserve(reservation)
                    raise
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
