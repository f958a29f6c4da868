"""Running a judging function without sending anything: for dry runs and batch jobs.

A :class:`Planner` stands in for a :class:`~rrmap.judge.transport.client.ChatClient`:
requests whose answer is cached are answered from the cache; the others are
collected (identical requests once) and either answered with a placeholder
reply — so that a multi-turn mode goes on to its later turns and a dry run
can count them — or refused with :class:`~rrmap.judge.transport.client.NotSentError`,
which the judging functions record like a failed call. A batch run collects
the requests of one turn, has a batch job answer them into the cache, and
runs again for the next turn.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rrmap.judge.transport._provenance import record_call
from rrmap.judge.transport.cache import cache_key
from rrmap.judge.transport.client import (
    _CONVERSATION,
    ChatClient,
    ChatResult,
    NotSentError,
    UsageStats,
    _Conversation,
    public_url,
)


@dataclass
class PlanCounts:
    """What a planned run met: cached answers and requests to send, in order."""

    cached: int = 0
    to_send: dict[str, dict[str, Any]] = field(default_factory=dict)
    repeated: int = 0
    #: per request to send: the calls a budget must set aside for it (its conversation's
    #: turns left, re-asks included)
    turns: dict[str, int] = field(default_factory=dict)
    #: requests to send that continue a conversation whose earlier turns are answered
    continuing: set[str] = field(default_factory=set)
    #: format re-asks the conversations with a request to send may still need (at most)
    reasks: int = 0
    #: the worst case in dollars of those re-asks (with prices)
    reask_cost: float = 0.0

    @property
    def needed(self) -> int:
        return self.cached + len(self.to_send)


class Planner:
    """A chat backend that sends nothing (see the module notes).

    Parameters
    ----------
    client : ChatClient
        Builds the request bodies and reads the cache.
    placeholder : str, optional
        Reply given to requests that are not cached (dry runs of multi-turn
        modes); without it they raise :class:`NotSentError`.
    failed : mapping of str to str, optional
        Cache keys whose request already failed in this run (e.g. in a batch
        job), with the reason: answered with a failure, not collected again.
    paid : set of str, optional
        Cache keys answered in this run by a batch job: counted as paid
        (through a batch), not as cache hits.
    counts : PlanCounts, optional
        Shared by the twins of :meth:`with_seed`.
    """

    def __init__(
        self,
        client: ChatClient,
        placeholder: str | None = None,
        failed: Mapping[str, str] | None = None,
        paid: set[str] | None = None,
        counts: PlanCounts | None = None,
        stats: UsageStats | None = None,
    ) -> None:
        self.client = client
        self.placeholder = placeholder
        self.failed = dict(failed or {})
        self.paid = paid or set()
        self.counts = counts or PlanCounts()
        self.stats = stats or UsageStats()
        if client.budget is not None and client.budget.prices is not None:
            self.stats.cost = client.budget.cost

    @property
    def name(self) -> str:
        return self.client.name

    @property
    def endpoint(self) -> Any:
        return self.client.endpoint

    async def __aenter__(self) -> Planner:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    @contextlib.asynccontextmanager
    async def open_conversation(self, turns: int) -> Any:
        """Count the turns of one conversation (see :func:`.client.conversation`)."""
        conv = _Conversation(turns)
        token = _CONVERSATION.set(conv)
        try:
            yield
        finally:
            _CONVERSATION.reset(token)
            if conv.last is not None and conv.turns > conv.made:
                # the turns declared but not made are re-asks of an unreadable answer
                # (a placeholder always reads): counted as needed, an upper bound
                left = conv.turns - conv.made
                self.counts.reasks += left
                budget = self.client.budget
                if budget is not None:
                    self.counts.reask_cost += budget._turns_cost(
                        worst_prompt(conv.last, self.client.endpoint.max_tokens),
                        self.client.endpoint.max_tokens,
                        False,
                        1,
                        left,
                    )

    def with_seed(self, seed: int) -> Planner:
        """A twin whose requests carry *seed* (as a model rater's repeated runs do)."""
        return Planner(
            self.client.with_params(seed=seed),
            self.placeholder,
            self.failed,
            self.paid,
            self.counts,
            self.stats,
        )

    async def chat(self, messages: Sequence[Mapping[str, Any]]) -> ChatResult:
        body = self.client.request_body(messages)
        key = cache_key(body)
        conv = _CONVERSATION.get()
        if conv is not None:
            conv.made += 1
        if key in self.failed:
            reason = self.failed[key]
            if reason.startswith("not sent"):  # the budget refused it
                self.stats.not_sent += 1
            else:
                self.stats.failed += 1
            raise NotSentError(reason)
        cached = self.client.from_cache(key)
        if cached is not None:
            if key in self.paid:
                cached.source, cached.from_cache = "batch", False
                if conv is not None:
                    conv.bought = True
            else:
                self.counts.cached += 1
            self.stats.add(cached)
            cached.prompt_hash = key
            cached.endpoint = cached.endpoint or public_url(self.client.endpoint.base_url)
            record_call(cached)
            return cached
        if conv is not None:
            conv.last = body  # the latest request of a conversation with one to send
        if key in self.counts.to_send:
            self.counts.repeated += 1
        else:
            self.counts.to_send[key] = body
            left = max(1, conv.turns - conv.made + 1) if conv is not None else 1
            self.counts.turns[key] = left
            if conv is not None and conv.made > 1:
                self.counts.continuing.add(key)
        if self.placeholder is None:
            self.stats.not_sent += 1
            raise NotSentError("not sent: no answer yet (dry run or waiting for a batch job)")
        return ChatResult(self.placeholder, source="plan", attempts=0)


def worst_prompt(body: Mapping[str, Any], max_tokens: int) -> int:
    """Prompt tokens of *body* at most, had every earlier reply been *max_tokens* long.

    Examples
    --------
    >>> worst_prompt({"messages": [{"role": "assistant", "content": "ok"}]}, 100)
    108
    """
    from rrmap.judge.transport.budget import estimate_prompt_tokens

    messages = body.get("messages", [])
    replies = sum(1 for m in messages if isinstance(m, Mapping) and m.get("role") == "assistant")
    return estimate_prompt_tokens(body) + replies * max_tokens


def worst_cost(counts: PlanCounts, client: ChatClient) -> float | None:
    """Dollars the requests of *counts* can cost at most, re-asks included (``None``: no prices).

    Every reply is taken as ``max_tokens`` long, also the earlier replies
    a later turn's prompt repeats.

    Examples
    --------
    >>> from rrmap.judge.transport.budget import Budget, Prices
    >>> from rrmap.judge.transport.client import Endpoint
    >>> c = ChatClient(Endpoint("http://127.0.0.1:9/v1", "m", api_key_env=None, max_tokens=10),
    ...                budget=Budget(prices=Prices(1e6, 1e6)))  # a dollar a token
    >>> worst_cost(PlanCounts(to_send={"k": {"messages": []}}), c)  # 4 in, 10 out
    14.0
    """
    budget = client.budget
    if budget is None or budget.prices is None:
        return None
    mt = client.endpoint.max_tokens
    sent = sum(budget.prices.cost(worst_prompt(b, mt), mt) for b in counts.to_send.values())
    return sent + counts.reask_cost


def placeholder_reply(fields: Mapping[str, Any]) -> str:
    """A JSON reply every converter of *fields* accepts (for counting later turns).

    Examples
    --------
    >>> from rrmap.judge.prompting.parsing import choice01, text_field
    >>> placeholder_reply({"winner": choice01, "reason": text_field})
    '{"winner": 0, "reason": "placeholder"}'
    """
    import json

    out: dict[str, Any] = {}
    for name, convert in fields.items():
        for value in (0, 1, "placeholder"):
            try:
                convert(value)
            except (ValueError, TypeError):
                continue
            out[name] = value
            break
    return json.dumps(out)
