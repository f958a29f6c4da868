"""OpenAI-compatible batch jobs: half the price for large runs (docs/judge.md, "Budget and batch").

A batch run answers a judging function's requests through
``/v1/files`` + ``/v1/batches`` instead of one HTTP call each:

1. the function runs with a :class:`~rrmap.judge.transport._planner.Planner`, which
   answers what the cache holds and collects the requests it does not;
2. those requests are written as JSONL (one ``{"custom_id", "method", "url",
   "body"}`` line each, the ``custom_id`` being the cache key), in files
   within the provider's limits (:mod:`~rrmap.judge.transport.batch_files`), each
   uploaded, submitted as one batch job and polled until it ends;
3. its answers go into the same cache as interactive calls, so batch and
   interactive runs share results; failed requests are recorded, not retried
   in the same run;
4. the function runs again: a multi-turn mode (ArtCoT) now finds its first
   turn cached and asks for the next one — one batch per turn — until nothing
   is left, and a last run reads every answer from the cache.

Every step is recorded in ``<cache>/batches/<id>.json`` before the next one
starts, so a run stopped at any point (after the upload, while polling, after
the job ended) finds its job again and goes on; a job is never submitted
twice. ``--batch-file`` writes the requests of the next turn for a manual
upload or ``vllm run-batch`` (in numbered parts within the same limits), and
``--batch-results`` reads such output back into the cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from rrmap._util.atomic import write_bytes
from rrmap.errors import InputError
from rrmap.judge.transport._planner import Planner
from rrmap.judge.transport._reply import _tls_context, require_httpx
from rrmap.judge.transport.batch_files import (
    MAX_BATCH_BYTES,
    MAX_BATCH_LINES,
    BatchReport,
    batch_text,
    chat_path,
    read_batch_results,
    split_requests,
    write_batch_files,
)
from rrmap.judge.transport.budget import BudgetExhausted
from rrmap.judge.transport.cache import read_regular
from rrmap.judge.transport.client import ChatClient, public_url
from rrmap.judge.transport.usage import reported_usage

__all__ = ["BatchJob", "keep_requests", "run_batched"]

#: States after which a batch job changes no more.
TERMINAL = ("completed", "failed", "expired", "cancelled")


class _BatchHTTP:
    """The files and batches endpoints, with retries on transient failures."""

    def __init__(self, client: ChatClient) -> None:
        httpx = require_httpx()

        self.ep = client.endpoint
        self.base = self.ep.base_url.rstrip("/")
        key = self.ep.api_key()
        self._key = key
        self.http = httpx.Client(
            timeout=httpx.Timeout(self.ep.timeout),
            headers={"Authorization": f"Bearer {key}"} if key else {},
            # the process's one TLS context: a new one reads the system's certificates
            # again (about 0.1 s), and a run opens this client once per turn and per job
            verify=_tls_context(),
        )

    def close(self) -> None:
        self.http.close()

    def call(self, method: str, path: str, retries: int | None = None, **kw: Any) -> Any:
        """The answer to one request, retried *retries* times (default: the endpoint's)
        on transient failures; :class:`_TransientError` when they persist."""
        import httpx

        last = ""
        retries = self.ep.max_retries if retries is None else retries
        for attempt in range(retries + 1):
            try:
                resp = self.http.request(method, self.base + path, **kw)
            except httpx.TransportError as exc:
                last = f"{type(exc).__name__}: {exc}"
            else:
                if resp.status_code < 300:
                    return resp
                detail = " ".join(resp.text.split())[:300]
                if self._key:
                    detail = detail.replace(self._key, "***")
                last = f"HTTP {resp.status_code} ({detail})"
                if resp.status_code not in (408, 409, 425, 429) and resp.status_code < 500:
                    raise InputError(f"{public_url(self.base + path)}: {last}")
            if attempt < retries:
                time.sleep(min(self.ep.backoff_cap, self.ep.backoff * 2.0**attempt))
        raise _TransientError(f"{public_url(self.base + path)}: {last} after every retry")


class _TransientError(InputError):
    """A files or batches request still failed after its retries (the server may have
    acted on it: a job may exist although its creation was not confirmed)."""


def _read_json(path: Path) -> Any:
    """The JSON in *path* when it is a sound regular file, else ``None`` (never blocks)."""
    try:
        return json.loads(read_regular(path).decode("utf-8"))
    except (OSError, ValueError, RecursionError, MemoryError):
        return None


def keep_requests(folder: Path, bodies: Mapping[str, Any]) -> None:
    """Keep request bodies as ``folder/KEY.json``, so that a later run can store their
    answers under their cache keys; a body already kept is left as it is (a key is the
    hash of its body).

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp()) / "requests"
    >>> keep_requests(folder, {"k1": {"model": "m"}})
    >>> (folder / "k1.json").read_text()
    '{"model": "m"}'
    """
    folder.mkdir(parents=True, exist_ok=True)
    for key, body in bodies.items():
        path = folder / f"{key}.json"
        if not path.exists():  # complete or absent: a full disk leaves no half body
            write_bytes(path, json.dumps(body).encode("utf-8"), sync=False)


class BatchJob:
    """One batch job, its state kept in ``<cache>/batches/<id>.json`` at every step.

    Parameters
    ----------
    client : ChatClient
        The endpoint and the cache.
    requests : mapping of str to dict
        Cache key → request body.

    Examples
    --------
    >>> import tempfile
    >>> from rrmap.judge.transport.cache import cache_key
    >>> from rrmap.judge.transport.client import Endpoint
    >>> client = ChatClient(Endpoint("http://127.0.0.1:9/v1", "m", api_key_env=None),
    ...                     cache=tempfile.mkdtemp())
    >>> body = client.request_body([{"role": "user", "content": "hi"}])
    >>> job = BatchJob(client, {cache_key(body): body})
    >>> job.path.parent.name, BatchJob.unfinished(client)
    ('batches', [])
    """

    def __init__(self, client: ChatClient, requests: Mapping[str, Mapping[str, Any]]) -> None:
        if client.cache is None:
            raise InputError("a batch run needs a cache directory (--cache): its answers and "
                             "its job ids are kept there")  # fmt: skip
        self.client = client
        self.cache = client.cache
        self.requests = dict(requests)
        digest = hashlib.sha256("\n".join(sorted(self.requests)).encode()).hexdigest()[:20]
        self.path = self.cache.directory / "batches" / f"{digest}.json"
        self.state: dict[str, Any] = {}

    @classmethod
    def unfinished(cls, client: ChatClient) -> list[BatchJob]:
        """Jobs of earlier runs in this cache that were submitted and have not been read back."""
        folder = client.cache.directory / "batches" if client.cache is not None else None
        jobs = []
        for path in sorted(folder.glob("*.json")) if folder and folder.is_dir() else []:
            state = _read_json(path)
            if not isinstance(state, dict):
                continue
            if state.get("read_back") or state.get("model") != client.endpoint.model:
                continue
            requests = {}
            for key in state.get("keys", []):
                body = _read_json(folder / "requests" / f"{key}.json")
                if isinstance(body, dict):
                    requests[key] = body
            job = cls(client, requests)
            job.path, job.state = path, state
            jobs.append(job)
        return jobs

    def _save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_bytes(self.path, json.dumps(self.state, indent=1).encode("utf-8"), sync=False)

    def _keep_requests(self) -> None:
        """The request bodies, so that a later run can store the answers under their keys."""
        keep_requests(self.path.parent / "requests", self.requests)

    def run(self, poll_interval: float = 10.0, progress: bool = True) -> BatchReport:
        """Upload, submit, poll and read back (each step only if not done before)."""
        self.start()
        return self.finish(poll_interval, progress)

    def start(self) -> None:
        """Upload and submit (each step only if not done before): the job runs after this."""
        http = _BatchHTTP(self.client)
        try:
            if not self.state:
                if self.path.exists():
                    state = _read_json(self.path)
                    if not isinstance(state, dict):
                        raise InputError(
                            f"batch job record {self.path} cannot be read; if its job was "
                            "submitted, read its output with --batch-results, then remove it"
                        )
                    self.state = state
                else:
                    self.state = {"keys": sorted(self.requests), "model": self.client.name}
                    self._keep_requests()
                    self._save()
            if not self.state.get("input_file_id"):
                self._upload(http)
            if not self.state.get("batch_id"):
                self._submit(http)
        finally:
            http.close()

    def finish(self, poll_interval: float = 10.0, progress: bool = True) -> BatchReport:
        """Poll the submitted job until it ends and read its answers into the cache."""
        http = _BatchHTTP(self.client)
        try:
            batch = self._poll(http, poll_interval, progress)
            return self._read_back(http, batch)
        finally:
            http.close()

    def _upload(self, http: _BatchHTTP) -> None:
        lines = batch_text(self.requests, self.client.endpoint.base_url)
        resp = http.call(
            "POST",
            "/files",
            data={"purpose": "batch"},
            files={"file": ("rrmap-batch.jsonl", lines.encode("utf-8"), "application/jsonl")},
        )
        self.state["input_file_id"] = resp.json()["id"]
        self._save()

    def _existing(self, http: _BatchHTTP) -> str | None:
        """The id of a job this one already created (its metadata or its input file)."""
        try:
            listed = http.call("GET", "/batches", params={"limit": 100}).json().get("data", [])
        except InputError:  # an endpoint that cannot list its jobs
            return None
        for batch in listed:
            meta = batch.get("metadata") or {}
            mine = isinstance(meta, Mapping) and meta.get("job") == self.path.stem
            if mine or batch.get("input_file_id") == self.state["input_file_id"]:
                return str(batch["id"])
        return None

    def _submit(self, http: _BatchHTTP) -> None:
        """Create the job once: look for it before every attempt (create-after-list).

        A ``POST /batches`` whose answer was lost may have created the job;
        it is never simply sent again: the jobs are listed first, and the one
        whose metadata names this job (or whose input is this file) is taken.
        """
        ep = self.client.endpoint
        body = {
            "input_file_id": self.state["input_file_id"],
            "endpoint": chat_path(ep.base_url),
            "completion_window": "24h",
            "metadata": {"created_by": "rrmap", "job": self.path.stem},
        }
        for attempt in range(ep.max_retries + 1):
            found = self._existing(http)
            if found is not None:  # a run stopped, or an answer lost, after creating it
                self.state["batch_id"] = found
                self._save()
                return
            try:
                resp = http.call("POST", "/batches", retries=0, json=body)
                break
            except _TransientError:
                if attempt == ep.max_retries:
                    raise
                time.sleep(min(ep.backoff_cap, ep.backoff * 2.0**attempt))
        self.state["batch_id"] = resp.json()["id"]
        self.state["submitted_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        self._save()

    def _poll(self, http: _BatchHTTP, interval: float, progress: bool) -> dict[str, Any]:
        from tqdm import tqdm

        from rrmap._util.progress import progress_bar

        batch_id = self.state["batch_id"]
        total = len(self.state.get("keys", [])) or None
        # on stderr, and only on a terminal (or in Jupyter)
        bar = (
            progress_bar(total, f"batch {batch_id}", "request") if progress else tqdm(disable=True)
        )
        try:
            while True:
                batch = http.call("GET", f"/batches/{batch_id}").json()
                counts = batch.get("request_counts") or {}
                done = int(counts.get("completed", 0)) + int(counts.get("failed", 0))
                bar.total = int(counts.get("total") or total or 0) or None
                bar.n = done
                bar.set_postfix_str(str(batch.get("status")))
                bar.refresh()
                if batch.get("status") in TERMINAL:
                    self.state["status"] = batch["status"]
                    self._save()
                    return batch
                time.sleep(interval)
        finally:
            bar.close()

    def _read_back(self, http: _BatchHTTP, batch: dict[str, Any]) -> BatchReport:
        report = BatchReport()
        for file_key in ("output_file_id", "error_file_id"):
            file_id = batch.get(file_key)
            if file_id:
                text = http.call("GET", f"/files/{file_id}/content").text
                part = read_batch_results(
                    text.splitlines(),
                    self.cache,
                    self.requests,
                    max_reply_bytes=self.client.endpoint.max_reply_bytes,
                )
                report.stored += part.stored
                report.failed.update(part.failed)
                report.unknown += part.unknown
        status = batch.get("status")
        why = {
            "failed": "batch job failed: "
            + "; ".join(str(e.get("message")) for e in (batch.get("errors") or {}).get("data", [])),
            "expired": "batch job expired before answering this request",
            "cancelled": "batch job cancelled before answering this request",
        }.get(status, "batch job gave no answer for this request")
        for key in self.requests:
            if key not in report.stored and key not in report.failed:
                report.failed[key] = why
        self.state.update(
            read_back=True,
            stored=len(report.stored),
            failed=len(report.failed),
            batch_status=status,
        )
        self._save()
        return report


def run_batched(
    run: Callable[[Any], Any],
    client: ChatClient,
    *,
    poll_interval: float = 10.0,
    progress: bool = True,
    batch_file: str | os.PathLike[str] | None = None,
    max_rounds: int = 20,
    notify: Callable[[str], None] | None = None,
    max_lines: int = MAX_BATCH_LINES,
    max_bytes: int = MAX_BATCH_BYTES,
) -> tuple[Any, Planner] | tuple[None, list[Path]]:
    """Answer everything *run* asks through batch jobs, one per turn, then run it from the cache.

    Parameters
    ----------
    run : callable
        ``run(backend)`` runs the judging function with a chat backend and
        returns its result.
    client : ChatClient
        The endpoint, cache and budget.
    poll_interval : float
        Seconds between two looks at a running job.
    progress : bool
        Progress bars on stderr.
    batch_file : path, optional
        Write the requests of the next turn here and stop (for a manual
        upload or ``vllm run-batch``), in numbered parts when they pass
        *max_lines* or *max_bytes* (:func:`write_batch_files`); returns
        ``(None, paths)``.
    max_rounds : int
        Turns at most (each multi-turn step and each re-ask is one).
    notify : callable, optional
        Where progress lines go (default: the client's).
    max_lines, max_bytes : int
        Limits of one batch input file; a turn with more requests is several
        jobs (:func:`split_requests`), or several files with *batch_file*.
        The defaults are OpenAI's documented limits (50,000 requests, 200 MB).

    Returns
    -------
    (result, planner) or (None, paths)
        The result of the last run, read from the cache, and the backend it
        used (its ``stats`` count the answers bought through batch jobs as
        paid); or the request files written.

    Examples
    --------
    Writing the first turn's requests for ``vllm run-batch`` (no server needed):

    >>> import tempfile, pathlib
    >>> from rrmap.judge.transport.client import Endpoint
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> client = ChatClient(Endpoint("http://127.0.0.1:9/v1", "m", api_key_env=None),
    ...                     cache=tmp / "cache")
    >>> async def ask(backend):
    ...     return await backend.chat([{"role": "user", "content": "hi"}])
    >>> from rrmap.judge.transport._run import run_sync
    >>> def run(backend):
    ...     try:
    ...         return run_sync(ask(backend))
    ...     except Exception:
    ...         return None
    >>> _, paths = run_batched(run, client, batch_file=tmp / "req.jsonl", progress=False)
    >>> [p.name for p in paths], len(paths[0].read_text().splitlines())
    (['req.jsonl'], 1)
    """
    say = notify or client.notify
    limits = (max_lines, max_bytes)
    failed: dict[str, str] = {}
    bought: set[str] = set()
    reservations: list[Any] = []
    for job in BatchJob.unfinished(client):
        report = _resume(job, say, poll_interval, progress)
        if report is None:
            continue
        bought.update(report.stored)
        failed.update(report.failed)
        _settle_round(client, report.stored, reservations)
    for _ in range(max_rounds):
        planner = Planner(client, failed=failed, paid=bought)
        run(planner)
        todo = dict(planner.counts.to_send)
        if not todo:
            break
        if batch_file is not None:
            return None, write_batch_files(batch_file, todo, client.endpoint.base_url, *limits)
        report = _submit_round(
            client, planner, todo, failed, reservations, say, poll_interval, progress, limits
        )
        if report is None:
            break
        bought.update(report.stored)
        failed.update(report.failed)
        _settle_round(client, report.stored, reservations)
    final = Planner(client, failed=failed, paid=bought)
    result = run(final)
    if client.budget is not None and client.budget.prices is not None:
        final.stats.cost = client.budget.cost
    return result, final


#: Said when another process holds the cache locks of requests this one would send.
_WAITING = "batch: another process is sending some of these requests; waiting for its answers"


def _resume(
    job: BatchJob, say: Callable[[str], None], poll_interval: float, progress: bool
) -> BatchReport | None:
    """Run an unfinished job found in the cache, under the cache locks of its requests.

    The job may be another process's, running now: that process holds the locks of its
    requests until it has read the job back (:func:`_submit_round`). This one waits for
    them, and leaves the job alone (``None``) when the other process read it back
    meanwhile; otherwise (that process ended before it finished) it takes the job up from
    its last saved step. Without the locks, a job listed while its process was still
    submitting it was submitted a second time.
    """
    with job.cache.holding(job.requests, on_wait=lambda: say(_WAITING)) as waited:
        if waited:
            state = _read_json(job.path)
            if not isinstance(state, dict) or state.get("read_back"):
                return None
            job.state = state
        say(f"resuming batch job {job.state.get('batch_id') or '(not yet submitted)'}")
        return job.run(poll_interval, progress)


def _submit_round(
    client: ChatClient,
    planner: Planner,
    todo: dict[str, dict[str, Any]],
    failed: dict[str, str],
    reservations: list[Any],
    say: Callable[[str], None],
    poll_interval: float,
    progress: bool,
    limits: tuple[int, int] = (MAX_BATCH_LINES, MAX_BATCH_BYTES),
) -> BatchReport | None:
    """Submit this round's requests as one job, holding their cache locks while it runs.

    Another process sending some of the same requests (a second ``--batch`` run
    on the cache, or an interactive one) holds their locks; this one waits,
    and then submits only what is still not in the cache, so every request is
    paid for once. The requests go out as one job per input file within
    *limits* (lines, bytes; :func:`split_requests`), all submitted before any
    is waited for. ``None``: nothing left to submit this round.
    """
    cache = client.cache
    if cache is None:
        raise InputError("batch mode needs a cache (--cache DIR)")
    with cache.holding(todo, on_wait=lambda: say(_WAITING)) as waited:
        if waited:  # answered by the other process meanwhile: not asked again
            todo = {k: b for k, b in todo.items() if cache.get(k) is None}
            if not todo:
                return BatchReport()
        todo = _within_budget(client, todo, planner.counts, failed, reservations)
        if not todo:
            return None
        groups = split_requests(todo, client.endpoint.base_url, *limits)
        jobs = [BatchJob(client, group) for group in groups]
        say(f"batch: submitting {len(todo)} request(s) as {len(jobs)} job(s)")
        for job in jobs:  # every job submitted before any is waited for
            job.start()
        report = BatchReport()
        for job in jobs:
            part = job.finish(poll_interval, progress)
            report.stored += part.stored
            report.failed.update(part.failed)
            report.unknown += part.unknown
        return report


def _within_budget(
    client: ChatClient,
    todo: dict[str, dict[str, Any]],
    counts: Any,
    failed: dict[str, str],
    reservations: list[Any],
) -> dict[str, dict[str, Any]]:
    """The requests of this round the budget allows.

    Each request reserves its conversation's turns left (re-asks included),
    conversations already under way first. A request that does not fit now
    waits for a later round, when this round's reservations are settled; it
    fails as not sent only when nothing of this round fits (nothing is in
    flight that could free room).
    """
    budget = client.budget
    if budget is None or not budget.limited:
        return todo
    allowed: dict[str, dict[str, Any]] = {}
    refused: dict[str, str] = {}
    for key in sorted(todo, key=lambda k: k not in counts.continuing):
        try:
            reservations.append(
                budget.reserve(
                    todo[key], client.endpoint.max_tokens, batch=True, turns=counts.turns[key]
                )
            )
        except BudgetExhausted as exc:
            refused[key] = str(exc)
            continue
        allowed[key] = todo[key]
    if not allowed:
        failed.update(refused)
    return allowed


def _settle_round(client: ChatClient, stored: Iterable[str], reservations: list[Any]) -> None:
    """After a batch job: its reservations released, its answers charged at the batch price."""
    budget = client.budget
    if budget is None:
        return
    for reservation in reservations:
        budget.release(reservation)
    reservations.clear()
    for key in stored:
        record = (client.cache.get(key) if client.cache is not None else None) or {}
        prompt, completion, problem = reported_usage(record.get("usage"))
        if problem is not None:  # charged the most it could cost, never nothing
            client._warn_usage(problem)
            budget.charge(None, None, batch=True, body=record,
                          max_tokens=client.endpoint.max_tokens)  # fmt: skip
        else:
            budget.charge(prompt, completion, batch=True)
