"""What one chat call returned, and the counters of a run (paid, cached, failed, tokens).

An endpoint reports what a call used in its answer's ``usage``
(``prompt_tokens``, ``completion_tokens``). :func:`reported_usage` reads it
without ever failing: tokens that are missing, negative, not whole numbers,
not numbers at all, or a prompt of no tokens (every request has some) make
the usage *unknown*, and a budget then charges the call the most it could
have cost (:meth:`~rrmap.judge.transport.budget.Budget.use`), never nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ChatResult", "UsageStats", "reported_usage"]


def _token_count(usage: dict[str, Any], name: str) -> int | str:
    """The whole, non-negative number of tokens *usage* reports under *name*, or what is
    wrong with it."""
    value = usage.get(name)
    if value is None:
        return f"no {name}"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"{name} is not a number ({type(value).__name__})"
    if not math.isfinite(value):
        return f"{name} is not a finite number ({value!r})"
    if value != int(value):
        return f"{name} is not a whole number ({value!r})"
    if value < 0:
        return f"{name} is negative ({int(value)})"
    return int(value)


def reported_usage(usage: Any) -> tuple[int, int, str | None]:
    """(prompt tokens, completion tokens, why they are unknown) of an answer's ``usage``.

    When the usage cannot be trusted the tokens are ``0, 0`` and the third
    item says why; it is ``None`` for a usable report.

    Examples
    --------
    >>> reported_usage({"prompt_tokens": 812, "completion_tokens": 7})
    (812, 7, None)
    >>> reported_usage(None)
    (0, 0, 'no usage')
    >>> reported_usage({"prompt_tokens": "lots", "completion_tokens": 7})
    (0, 0, 'prompt_tokens is not a number (str)')
    >>> reported_usage({"prompt_tokens": -5, "completion_tokens": 7})
    (0, 0, 'prompt_tokens is negative (-5)')
    >>> reported_usage({"prompt_tokens": 0, "completion_tokens": 0})
    (0, 0, 'prompt_tokens is 0: every request has some')
    """
    if usage is None:
        return 0, 0, "no usage"
    if not isinstance(usage, dict):
        return 0, 0, f"usage is not an object ({type(usage).__name__})"
    prompt = _token_count(usage, "prompt_tokens")
    completion = _token_count(usage, "completion_tokens")
    for count in (prompt, completion):
        if isinstance(count, str):
            return 0, 0, count
    if prompt == 0:
        return 0, 0, "prompt_tokens is 0: every request has some"
    return prompt, completion, None


@dataclass
class ChatResult:
    """The answer to one chat call.

    ``source`` says where it came from: ``"endpoint"`` (paid in this run),
    ``"cache"``, ``"shared"`` (an identical request in flight answered it)
    or ``"batch"`` (a batch job answered it, at the batch price). Its
    provenance: ``model_version``, the ``model`` the server reported in its
    answer; ``answered_at``, when the answer arrived (UTC, ISO 8601; for a
    cached answer, when it was first paid for); ``prompt_hash``, the SHA-256
    of the request (model, messages with images as hashes, sampling
    parameters: the cache key); ``endpoint``, the base URL without
    credentials. ``usage_problem`` says why the endpoint's token counts are
    unknown (:func:`reported_usage`; its tokens are then 0), ``None`` when
    they are known.

    Examples
    --------
    >>> ChatResult("{'winner': 0}", prompt_tokens=812, completion_tokens=7).text
    "{'winner': 0}"
    """

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str | None = None
    from_cache: bool = False
    attempts: int = 1
    source: str = "endpoint"
    model_version: str | None = None
    answered_at: str | None = None
    prompt_hash: str | None = None
    endpoint: str | None = None
    usage_problem: str | None = None


@dataclass
class UsageStats:
    """Counters of one run: paid, cached and shared calls, failures, requests, tokens.

    Tokens of paid calls and of cached answers are counted apart: a cached
    answer costs nothing. ``unknown_usage`` counts the paid calls whose
    endpoint reported no usable token counts (their tokens are not in the
    totals; a budget charged each its worst case).

    Examples
    --------
    >>> s = UsageStats(paid=3, requests=4, retries=1, prompt_tokens=2400, completion_tokens=30)
    >>> s.calls
    3
    >>> s.summary()
    'paid calls 3 (tokens 2400 in / 30 out), cached 0, failed 0; HTTP requests 4 (retries 1)'
    """

    paid: int = 0
    cache_hits: int = 0
    shared: int = 0
    failed: int = 0
    not_sent: int = 0
    requests: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    cached_completion_tokens: int = 0
    batched: int = 0
    unknown_usage: int = 0
    cost: float | None = None
    model_versions: list[str] = field(default_factory=list)

    @property
    def calls(self) -> int:
        """Calls that got an answer: paid, cached or shared."""
        return self.paid + self.cache_hits + self.shared

    def add(self, result: ChatResult) -> None:
        """Count one answered call."""
        version = result.model_version
        if version and version not in self.model_versions:
            self.model_versions.append(version)
        if result.from_cache or result.source == "cache":
            self.cache_hits += 1
            self.cached_prompt_tokens += result.prompt_tokens
            self.cached_completion_tokens += result.completion_tokens
            return
        if result.source == "shared":
            self.shared += 1
            return
        self.paid += 1
        self.batched += result.source == "batch"
        self.unknown_usage += result.usage_problem is not None
        self.prompt_tokens += result.prompt_tokens
        self.completion_tokens += result.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        """The counters as a plain dict (for provenance files)."""
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["model_versions"] = list(self.model_versions)
        out["calls"] = self.calls
        return out

    def summary(self) -> str:
        """One line for the end of a run."""
        paid = (
            f"paid calls {self.paid} (tokens {self.prompt_tokens} in / {self.completion_tokens} out"
        )
        if self.cost is not None:
            paid += f", ${self.cost:.4f}"
        if self.batched:
            paid += f"; {self.batched} through batch jobs"
        if self.unknown_usage:
            paid += f"; {self.unknown_usage} without token counts"
        paid += ")"
        parts = [paid, f"cached {self.cache_hits}"]
        if self.shared:
            parts.append(f"shared {self.shared} (identical requests sent once)")
        parts.append(f"failed {self.failed}")
        if self.not_sent:
            parts.append(f"not sent {self.not_sent} (budget)")
        return ", ".join(parts) + f"; HTTP requests {self.requests} (retries {self.retries})"
