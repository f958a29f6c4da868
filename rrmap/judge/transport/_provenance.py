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
    The ``model`` the server reported in its answers (several joined by ``|``,
    :func:`rrmap._util.escape.join_groups`).

A table whose rows each combine several answers (the 2AFC comparisons: both
orders of a pair; the MCQ accuracy: every reply of a group) carries them
summed up instead (:func:`combined_provenance`, :data:`COMBINED_COLUMNS`):
how many of its answers were paid, paid through a batch job, shared or
cached, the first and last time an answer arrived, the prompt hashes, the
endpoint(s) and the model version(s), several values joined by ``|``.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import math
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from rrmap._util.escape import join_groups, split_groups
from rrmap.judge.transport.usage import ChatResult

__all__ = [
    "COMBINED_COLUMNS",
    "GROUP_COLUMNS",
    "PROVENANCE_COLUMNS",
    "cache_record",
    "combined_provenance",
    "group_provenance",
    "hashes_digest",
    "record_call",
    "reported_text",
    "row_provenance",
    "tracing",
    "utc_now",
]

#: The provenance columns every judged row carries.
PROVENANCE_COLUMNS = ("answer_source", "answered_at", "prompt_hash", "endpoint", "model_version")

#: The provenance columns of a row that combines several answers (see the module).
COMBINED_COLUMNS = (
    "n_paid",
    "n_paid_batch",
    "n_shared",
    "n_cached",
    "first_answered_at",
    "last_answered_at",
    "prompt_hashes",
    "endpoint",
    "model_version",
)

#: The provenance columns of a summary row over a group of answers (:func:`group_provenance`).
GROUP_COLUMNS = tuple("prompts_sha256" if c == "prompt_hashes" else c for c in COMBINED_COLUMNS)

_CALLS: contextvars.ContextVar[list[ChatResult] | None] = contextvars.ContextVar(
    "rrmap_judge_calls", default=None
)

_SOURCES = {"endpoint": "paid", "batch": "paid (batch)", "shared": "shared", "cache": "cached"}
_COUNTS = {"paid": "n_paid", "paid (batch)": "n_paid_batch", "shared": "n_shared",
           "cached": "n_cached"}  # fmt: skip


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
        "model_version": join_groups(versions),
    }


def _text(value: Any) -> str:
    """A cell as text: missing (None, NaN) is empty."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def _values(field: Any) -> list[str]:
    """The non-empty values of a ``|``-joined cell."""
    return [v for v in split_groups(_text(field)) if v]


def combined_provenance(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The provenance of a row that combines *rows* (see the module and :data:`COMBINED_COLUMNS`).

    *rows* are rows of single answers (:data:`PROVENANCE_COLUMNS`) or rows
    already combined (:data:`COMBINED_COLUMNS`), e.g. a question's replies
    and then a group's questions. An answer without a source (a failed call)
    is counted nowhere. Hashes, endpoints and versions are listed once each,
    in the order met, joined by ``|`` (:func:`rrmap._util.escape.join_groups`).

    Examples
    --------
    >>> rows = [{"answer_source": "paid", "answered_at": "2026-01-02T00:00:00Z",
    ...          "prompt_hash": "ab", "endpoint": "http://h/v1", "model_version": "m-1"},
    ...         {"answer_source": "cached", "answered_at": "2026-01-01T00:00:00Z",
    ...          "prompt_hash": "cd", "endpoint": "http://h/v1", "model_version": "m-2"}]
    >>> c = combined_provenance(rows)
    >>> c["n_paid"], c["n_cached"], c["first_answered_at"], c["last_answered_at"]
    (1, 1, '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z')
    >>> c["prompt_hashes"], c["endpoint"], c["model_version"]
    ('ab|cd', 'http://h/v1', 'm-1|m-2')
    >>> combined_provenance([c, c])["n_paid"]
    2
    """
    out: dict[str, Any] = dict.fromkeys(_COUNTS.values(), 0)
    times: list[str] = []
    lists: dict[str, list[str]] = {"prompt_hashes": [], "endpoint": [], "model_version": []}
    for row in rows:
        if "answer_source" in row:  # one answer
            source = _text(row["answer_source"])
            if source in _COUNTS:
                out[_COUNTS[source]] += 1
            times += [_text(row["answered_at"])]
            lists["prompt_hashes"] += [_text(row["prompt_hash"])]
        else:  # already combined
            for column in _COUNTS.values():
                out[column] += int(row[column])
            times += [_text(row["first_answered_at"]), _text(row["last_answered_at"])]
            lists["prompt_hashes"] += _values(row["prompt_hashes"])
        lists["endpoint"] += _values(row["endpoint"])
        lists["model_version"] += _values(row["model_version"])
    times = [t for t in times if t]
    out["first_answered_at"] = min(times, default="")
    out["last_answered_at"] = max(times, default="")
    for column, values in lists.items():
        out[column] = join_groups(dict.fromkeys(v for v in values if v))
    return {column: out[column] for column in COMBINED_COLUMNS}


def hashes_digest(prompt_hashes: str) -> str:
    """SHA-256 of the distinct hashes of a ``prompt_hashes`` cell, sorted, one per line.

    It names the set of requests behind a combined row in a fixed length, where
    listing them would not fit a cell (an accuracy row over thousands of
    replies); ``""`` when there are none.

    Examples
    --------
    >>> hashes_digest("cd|ab") == hashes_digest("ab|cd|ab")
    True
    >>> hashes_digest("")
    ''
    """
    hashes = sorted(set(_values(prompt_hashes)))
    if not hashes:
        return ""
    return hashlib.sha256("\n".join(hashes).encode("utf-8")).hexdigest()


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

    The usage is ``None`` when the endpoint reported no usable token counts.

    Examples
    --------
    >>> r = cache_record(ChatResult("A", 10, 1, model_version="m-2026"))
    >>> r["text"], r["usage"]["prompt_tokens"], r["model_version"]
    ('A', 10, 'm-2026')
    >>> cache_record(ChatResult("A", usage_problem="no usage"))["usage"] is None
    True
    """
    return {
        "text": result.text,
        "usage": None
        if result.usage_problem is not None
        else {
            "prompt_tokens": result.prompt_tokens,
            "completion_tokens": result.completion_tokens,
        },
        "finish_reason": result.finish_reason,
        "source": result.source,
        "model_version": result.model_version,
        "answered_at": result.answered_at,
        "endpoint": result.endpoint,
    }


def group_provenance(rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """As :func:`combined_provenance`, the prompt hashes as one digest (:data:`GROUP_COLUMNS`).

    For a summary row over a group of any size (an accuracy or mean-score
    row), whose hashes would not fit one cell: ``prompts_sha256`` is
    :func:`hashes_digest` of them.

    Examples
    --------
    >>> row = {"answer_source": "paid", "answered_at": "2026-01-02T00:00:00Z",
    ...        "prompt_hash": "ab", "endpoint": "http://h/v1", "model_version": "m-1"}
    >>> g = group_provenance([row, row])
    >>> g["n_paid"], g["prompts_sha256"] == hashes_digest("ab"), "prompt_hashes" in g
    (2, True, False)
    """
    combined = combined_provenance(rows)
    combined["prompt_hashes"] = hashes_digest(combined["prompt_hashes"])
    return dict(zip(GROUP_COLUMNS, combined.values(), strict=True))
