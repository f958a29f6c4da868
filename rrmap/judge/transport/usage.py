"""What one chat call returned, and the counters of a run (paid, cached, failed, tokens)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ChatResult", "UsageStats"]


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
    credentials.

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


@dataclass
class UsageStats:
    """Counters of one run: paid, cached and shared calls, failures, requests, tokens.

    Tokens of paid calls and of cached answers are counted apart: a cached
    answer costs nothing.

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
        paid += ")"
        parts = [paid, f"cached {self.cache_hits}"]
        if self.shared:
            parts.append(f"shared {self.shared} (identical requests sent once)")
        parts.append(f"failed {self.failed}")
        if self.not_sent:
            parts.append(f"not sent {self.not_sent} (budget)")
        return ", ".join(parts) + f"; HTTP requests {self.requests} (retries {self.retries})"
