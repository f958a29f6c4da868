"""Where each row's answers came from: paid or cached, when, for which prompt, from whom.

The calls a row's job makes (one MCQ question, both ArtCoT turns of one pair
and order, a rating sheet and its re-asks) are collected while the job runs
(:func:`tracing`, :func:`record_call`, used by the backends) and summed up in
the row's provenance columns (:func:`row_provenance`):

``answer_source``
    ``paid`` (a call of this row was paid in this run), ``paid (batch)``
    (bought through a batch job), ``shared`` (an identical request of this
    run paid for it) or ``cached`` (every answer came from ``--cache``).
``answered_at``
    When the latest answer arrived, UTC ISO 8601 (for a cached answer, when
    it was first paid for).
``prompt_hash``
    SHA-256 of the row's last request: model, messages (images as hashes) and
    sampling parameters — the cache key, so ``CACHE/ab/ab….json`` holds it.
``endpoint``
    The base URL, without credentials.
``model_version``
    The ``model`` the server reported in its answers (``;`` between several).
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator, Sequence
from typing import Any

from rrmap.judge.usage import ChatResult

__all__ = [
    "PROVENANCE_COLUMNS",
    "cache_record",
    "record_call",
    "reported_text",
    "row_provenance",
    "tracing",
    "utc_now",
]

#: The provenance columns every judged row carries.
PROVENANCE_COLUMNS = ("answer_source", "answered_at", "prompt_hash", "endpoint", "model_version")

_CALLS: contextvars.ContextVar[list[ChatResult] | None] = contextvars.ContextVar(
    "rrmap_judge_calls", default=None
)

_SOURCES = {"endpoint": "paid", "batch": "paid (batch)", "shared": "shared", "cache": "cached"}


def utc_now() -> str:
    """The time now, UTC, as ISO 8601 to the second.

    Examples
    --------
    >>> utc_now().endswith("Z") and len(utc_now()) == 20
    True
    """
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def record_call(result: ChatResult) -> None:
    """Note *result* as one of the calls of the job running (nothing outside :func:`tracing`).

    Examples
    --------
    >>> with tracing() as calls:
    ...     record_call(ChatResult("A", source="cache"))
    >>> [c.source for c in calls]
    ['cache']
    """
    calls = _CALLS.get()
    if calls is not None:
        calls.append(result)


@contextlib.contextmanager
def tracing() -> Iterator[list[ChatResult]]:
    """Collect the calls made inside (in this task) into the list yielded.

    Examples
    --------
    >>> with tracing() as calls:
    ...     pass
    >>> calls
    []
    """
    calls: list[ChatResult] = []
    token = _CALLS.set(calls)
    try:
        yield calls
    finally:
        _CALLS.reset(token)


def row_provenance(calls: Sequence[ChatResult]) -> dict[str, str]:
    """The provenance columns of a row answered by *calls* (empty strings: no answer).

    Examples
    --------
    >>> first = ChatResult("x", source="cache", answered_at="2026-01-02T03:04:05Z",
    ...                    prompt_hash="ab", endpoint="http://h/v1", model_version="m-1")
    >>> second = ChatResult("y", answered_at="2026-01-03T00:00:00Z", prompt_hash="cd",
    ...                     endpoint="http://h/v1", model_version="m-1")
    >>> row_provenance([first, second])["answer_source"]
    'paid'
    >>> row_provenance([first, second])["answered_at"], row_provenance([first])["prompt_hash"]
    ('2026-01-03T00:00:00Z', 'ab')
    >>> row_provenance([])["answer_source"]
    ''
    """
    answered = [c for c in calls if c.source in _SOURCES]
    if not answered:
        return dict.fromkeys(PROVENANCE_COLUMNS, "")
    kinds = {_SOURCES[c.source] for c in answered}
    source = next(k for k in ("paid", "paid (batch)", "shared", "cached") if k in kinds)
    versions = list(dict.fromkeys(c.model_version for c in answered if c.model_version))
    return {
        "answer_source": source,
        "answered_at": max((c.answered_at or "" for c in answered), default=""),
        "prompt_hash": answered[-1].prompt_hash or "",
        "endpoint": answered[-1].endpoint or "",
        "model_version": ";".join(versions),
    }


def reported_text(value: Any) -> str | None:
    """*value* when it is a text of 1 to 200 characters (a model's name, a time), else None.

    Examples
    --------
    >>> reported_text("gpt-4o-2024-08-06"), reported_text(""), reported_text(7)
    ('gpt-4o-2024-08-06', None, None)
    """
    return value if isinstance(value, str) and 0 < len(value) <= 200 else None


def cache_record(result: ChatResult) -> dict[str, Any]:
    """What the cache keeps of an answer: its text, usage and provenance.

    Examples
    --------
    >>> r = cache_record(ChatResult("A", 10, 1, model_version="m-2026"))
    >>> r["text"], r["usage"]["prompt_tokens"], r["model_version"]
    ('A', 10, 'm-2026')
    """
    return {
        "text": result.text,
        "usage": {
            "prompt_tokens": result.prompt_tokens,
            "completion_tokens": result.completion_tokens,
        },
        "finish_reason": result.finish_reason,
        "source": result.source,
        "model_version": result.model_version,
        "answered_at": result.answered_at,
        "endpoint": result.endpoint,
    }
