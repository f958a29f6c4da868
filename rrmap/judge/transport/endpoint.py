"""Where and how to call a chat-completions model, and how a call can fail.

An :class:`Endpoint` names the server (``base_url``, ``model``, the
environment variable holding the key) and how each call is made: sampling
parameters, the deadline of one request, retries and their backoff, requests
in flight, the largest reply read. A call that cannot be made ends in one of
three errors: :class:`EndpointError` (the endpoint refused the configuration:
stop the run), :class:`CallFailedError` (a transient failure outlived its
retries) or :class:`NotSentError` (the budget did not allow it).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from rrmap.errors import InputError
from rrmap.judge.transport._reply import MAX_REPLY_BYTES, base_url_problems, redacted_url

__all__ = ["CallFailedError", "Endpoint", "EndpointError", "NotSentError"]


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
