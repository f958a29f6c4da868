"""Batch input and output files: requests within a provider's limits, answers into the cache.

A batch input file is JSONL, one ``{"custom_id", "method", "url", "body"}``
line per request, the ``custom_id`` being the request's cache key
(:func:`batch_text`). Providers cap one file (OpenAI and Azure
OpenAI: 50,000 requests and 200 MB), so the requests of a turn are split in
order into files within ``--batch-max-lines`` and ``--batch-max-bytes``
(:func:`split_requests`): one job each in a batch run, one numbered file each
with ``--batch-file`` (:func:`write_batch_files`). An output file (a job's,
or ``vllm run-batch``'s) is read back into the cache by
:func:`read_batch_results`.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from rrmap._util.atomic import atomic_path
from rrmap._util.escape import message_text
from rrmap.errors import InputError
from rrmap.judge.transport._provenance import cache_record, reported_text, utc_now
from rrmap.judge.transport._reply import MAX_REPLY_BYTES, _message_text
from rrmap.judge.transport.cache import ResponseCache, cache_key
from rrmap.judge.transport.usage import ChatResult, reported_usage

__all__ = [
    "MAX_BATCH_BYTES",
    "MAX_BATCH_LINES",
    "BatchReport",
    "batch_file_parts",
    "batch_text",
    "chat_path",
    "read_batch_results",
    "split_requests",
    "write_batch_files",
]


def chat_path(base_url: str) -> str:
    """The ``url`` of a batch line: the path of the chat endpoint (``/v1/chat/completions``).

    Examples
    --------
    >>> chat_path("https://api.openai.com/v1/")
    '/v1/chat/completions'
    """
    return urlsplit(base_url.rstrip("/")).path + "/chat/completions"


#: Lines of one batch input file at most (OpenAI's and Azure OpenAI's limit: 50,000 requests).
MAX_BATCH_LINES = 50_000
#: Bytes of one batch input file at most (OpenAI's and Azure OpenAI's limit: 200 MB).
MAX_BATCH_BYTES = 200_000_000


def batch_file_parts(path: str | os.PathLike[str], n: int) -> list[Path]:
    """The names of *n* batch input files for *path*: itself when one, else numbered parts.

    ``turn1.jsonl`` in 3 parts is ``turn1.part1.jsonl`` … ``turn1.part3.jsonl``;
    the numbers are padded to one width, so the parts sort in order.

    Examples
    --------
    >>> [p.name for p in batch_file_parts("turn1.jsonl", 1)]
    ['turn1.jsonl']
    >>> [p.name for p in batch_file_parts("out/turn1.jsonl", 10)][::9]
    ['turn1.part01.jsonl', 'turn1.part10.jsonl']
    """
    out = Path(path)
    if n == 1:
        return [out]
    width = len(str(n))
    return [out.with_name(f"{out.stem}.part{i:0{width}d}{out.suffix}") for i in range(1, n + 1)]


def write_batch_files(
    path: str | os.PathLike[str],
    bodies: Mapping[str, Mapping[str, Any]],
    base_url: str,
    max_lines: int = MAX_BATCH_LINES,
    max_bytes: int = MAX_BATCH_BYTES,
) -> list[Path]:
    """Write request bodies as batch JSONL within the limits of one input file, all or none.

    The requests are split as a batch run splits them (:func:`split_requests`,
    in order); one part is written to *path*, several to numbered parts
    beside it (:func:`batch_file_parts`). Every part is complete before any
    replaces its target: a full disk or a kill leaves none of them changed. Parts an
    earlier call left under the same name (more of them, or the single file before a
    split) are then removed, so that the files named like *path* are this call's.

    Parameters
    ----------
    path : path
        The JSONL file, or the name the parts are numbered after.
    bodies : mapping of str to dict
        Cache key → chat-completions request body.
    base_url : str
        The endpoint's base URL (its path prefixes ``/chat/completions``).
    max_lines, max_bytes : int
        The limits of one file (``--batch-max-lines``, ``--batch-max-bytes``).

    Returns
    -------
    list of Path
        The files written, in the order of the requests.

    Raises
    ------
    InputError
        One request alone is larger than *max_bytes* (nothing is written).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "req.jsonl"
    >>> bodies = {f"k{i}": {"model": "m", "messages": []} for i in range(5)}
    >>> [f.name for f in write_batch_files(p, bodies, "http://h/v1", max_lines=2)]
    ['req.part1.jsonl', 'req.part2.jsonl', 'req.part3.jsonl']
    >>> len((p.parent / "req.part3.jsonl").read_text().splitlines())
    1
    """
    groups = _split_lines(bodies, base_url, max_lines, max_bytes)
    paths = batch_file_parts(path, len(groups))
    with contextlib.ExitStack() as stack:  # every part written before any is renamed into place
        for target, group in zip(paths, groups, strict=True):
            tmp = stack.enter_context(atomic_path(target))
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.writelines(group.values())
    for stale in _earlier_parts(Path(path), paths):
        stale.unlink(missing_ok=True)
    return paths


def _earlier_parts(path: Path, written: list[Path]) -> list[Path]:
    """Files an earlier ``--batch-file`` *path* left beside the new ones and that this one
    did not write: its numbered parts (``NAME.part4.jsonl`` after a split in three, or all
    of them after one file) and *path* itself after a split. Uploaded with the new ones,
    they would ask, and pay for, requests of another turn."""
    pattern = re.compile(rf"{re.escape(path.stem)}\.part[0-9]+{re.escape(path.suffix)}")
    keep = {p.name for p in written}
    beside = path.parent.glob(f"{glob.escape(path.stem)}.part*")
    found = [p for p in beside if pattern.fullmatch(p.name)]
    if path.name not in keep:
        found.append(path)
    return sorted(p for p in found if p.name not in keep and p.is_file())


def _batch_line(key: str, body: Mapping[str, Any], url: str) -> str:
    """One request as a line of a batch input file (newline included)."""
    line = {"custom_id": key, "method": "POST", "url": url, "body": dict(body)}
    return json.dumps(line, ensure_ascii=False) + "\n"


def batch_text(bodies: Mapping[str, Mapping[str, Any]], base_url: str) -> str:
    """The text of a batch input file holding *bodies* (cache key → request body).

    Examples
    --------
    >>> text = batch_text({"k1": {"model": "m", "messages": []}}, "http://h/v1")
    >>> json.loads(text)["custom_id"], text.endswith("\\n")
    ('k1', True)
    """
    url = chat_path(base_url)
    return "".join(_batch_line(key, body, url) for key, body in bodies.items())


def split_requests(
    bodies: Mapping[str, Mapping[str, Any]],
    base_url: str,
    max_lines: int = MAX_BATCH_LINES,
    max_bytes: int = MAX_BATCH_BYTES,
) -> list[dict[str, Mapping[str, Any]]]:
    """*bodies* in groups whose batch input files have at most *max_lines* lines and
    *max_bytes* bytes (UTF-8), in order: one job each.

    Parameters
    ----------
    bodies : mapping of str to dict
        Cache key → request body.
    base_url : str
        The endpoint's base URL (part of every line).
    max_lines, max_bytes : int
        The limits of one input file.

    Returns
    -------
    list of dict

    Raises
    ------
    InputError
        One request alone is larger than *max_bytes*.

    Examples
    --------
    >>> bodies = {f"k{i}": {"model": "m", "messages": []} for i in range(5)}
    >>> [len(g) for g in split_requests(bodies, "http://h/v1", max_lines=2)]
    [2, 2, 1]
    >>> [len(g) for g in split_requests(bodies, "http://h/v1", max_bytes=330)]  # 109 each
    [3, 2]
    """
    parts = _split_lines(bodies, base_url, max_lines, max_bytes)
    return [{key: bodies[key] for key in part} for part in parts]


def _split_lines(
    bodies: Mapping[str, Mapping[str, Any]], base_url: str, max_lines: int, max_bytes: int
) -> list[dict[str, str]]:
    """:func:`split_requests` as the lines of each file (key → line), each encoded once."""
    url = chat_path(base_url)
    groups: list[dict[str, str]] = []
    group: dict[str, str] = {}
    size = 0
    for key, body in bodies.items():
        line = _batch_line(key, body, url)
        n = len(line.encode("utf-8"))
        if n > max_bytes:
            raise InputError(
                f"request {key} is {n:,} bytes as a batch line, more than the {max_bytes:,} "
                "bytes a batch input file may hold (--batch-max-bytes)"
            )
        if group and (len(group) >= max_lines or size + n > max_bytes):
            groups.append(group)
            group, size = {}, 0
        group[key] = line
        size += n
    if group:
        groups.append(group)
    return groups


@dataclass
class BatchReport:
    """What reading batch output did: answers stored, requests failed, lines skipped.

    Examples
    --------
    >>> BatchReport(stored=["k1"], failed={"k2": "batch: HTTP 500"}).failed["k2"]
    'batch: HTTP 500'
    """

    stored: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    unknown: int = 0


def _detail(value: Any) -> str:
    """An error detail of a batch output line as one short line of text (its ``message``
    when it has one), whatever it holds.

    Examples
    --------
    >>> _detail({"message": "server error"}), _detail(None), _detail([1, 2])
    ('server error', 'None', '[1, 2]')
    """
    if isinstance(value, Mapping) and "message" in value:
        value = value["message"]
    return message_text(" ".join(str(value).split()), 300)


def _answer_of(line: Mapping[str, Any]) -> tuple[ChatResult | None, str | None]:
    """The answer in one output line, or why there is none."""
    if line.get("error"):
        return None, f"batch: {_detail(line['error'])}"
    response = line.get("response")
    response = response if isinstance(response, Mapping) else {}
    status = response.get("status_code")
    body = response.get("body")
    if status != 200 or not isinstance(body, Mapping):
        detail = _detail(body.get("error")) if isinstance(body, Mapping) else _detail(body)
        return None, f"batch: HTTP {_detail(status)}: {detail}"
    try:
        text, finish = _message_text(body)
    except (KeyError, IndexError, TypeError, AttributeError, ValueError):
        return None, "batch: an answer that is not a chat completion"
    prompt, completion, problem = reported_usage(body.get("usage"))
    return (
        ChatResult(
            text,
            prompt_tokens=prompt,
            completion_tokens=completion,
            usage_problem=problem,
            finish_reason=finish,
            source="batch",
            model_version=reported_text(body.get("model")),
            answered_at=utc_now(),
        ),
        None,
    )


def read_batch_results(
    lines: Iterable[str],
    cache: ResponseCache,
    requests: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    max_reply_bytes: int = MAX_REPLY_BYTES,
) -> BatchReport:
    """Store the answers of batch output lines in *cache*; collect the failures.

    Parameters
    ----------
    lines : iterable of str
        JSONL lines of a batch output (or error) file: ``custom_id`` with a
        ``response`` or an ``error``.
    cache : ResponseCache
    requests : mapping, optional
        Cache key → request body of the submitted requests. Without it (a
        results file from elsewhere), each line must carry its request body
        (``vllm run-batch`` output does not: pass the requests file too).
    max_reply_bytes : int, default 4 MiB
        A line longer than this is a failed request, as a reply this large
        is for a call (``Endpoint.max_reply_bytes``).

    Returns
    -------
    BatchReport

    Examples
    --------
    >>> import tempfile
    >>> cache = ResponseCache(tempfile.mkdtemp())
    >>> body = {"model": "m", "messages": []}
    >>> key = cache_key(body)
    >>> line = json.dumps({"custom_id": key, "response": {"status_code": 200, "body":
    ...     {"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]}}})
    >>> read_batch_results([line], cache, {key: body}).stored == [key]
    True
    >>> cache.get(key)["text"]
    'hi'
    """
    report = BatchReport()
    for raw in lines:
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
            key = str(line["custom_id"])
        except (ValueError, KeyError, TypeError, RecursionError):
            report.unknown += 1
            continue
        body = (requests or {}).get(key) or line.get("body")
        if not isinstance(body, Mapping) or cache_key(body) != key:
            report.unknown += 1
            continue
        if len(raw) > max_reply_bytes:
            report.failed[key] = f"batch: the answer is larger than {max_reply_bytes:,} bytes"
            continue
        result, error = _answer_of(line)
        if result is None:
            report.failed[key] = error or "batch: no answer"
            continue
        cache.put(key, body, cache_record(result))
        report.stored.append(key)
    return report
