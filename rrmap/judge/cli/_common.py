"""What the ``rrmap judge`` commands share: the client, the run, outputs.

:func:`_client` builds the run's client from its typed options
(:class:`~rrmap.judge.cli._options.JudgeOptions`), checking them together.
:func:`_execute` runs a judging function one of four ways: a dry run (count
what the run needs and what is cached, send nothing), through batch jobs
(``--batch``, ``--batch-file``), or call by call; ``--batch-results`` first
reads a batch output into the cache. :func:`_finish` turns the outcome into
the exit code: 1 when no call got an answer, 0 otherwise, with the failures
counted and where they are recorded. :func:`_provenance` writes what a result
came from beside it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click
import pandas as pd

from rrmap._util.escape import message_text
from rrmap._version import __version__
from rrmap.cli.common import refuse_overwrite
from rrmap.judge.cli._options import BudgetOptions, JudgeOptions
from rrmap.judge.prompting._sources import STDIN, input_source, is_stdin
from rrmap.judge.tasks._outputs import csv_cells, csv_text, write_csv, write_json

if TYPE_CHECKING:
    from rrmap.judge.prompting.prompts import Prompts
    from rrmap.judge.tasks.judges import ChatBackend, PairJudge
    from rrmap.judge.transport._planner import PlanCounts
    from rrmap.judge.transport.budget import Budget
    from rrmap.judge.transport.client import ChatClient
    from rrmap.judge.transport.usage import UsageStats

_ABBREV = 48

T = TypeVar("T")


def _budget(options: BudgetOptions, model: str) -> Budget | None:
    """The run's :class:`~rrmap.judge.transport.budget.Budget`, or ``None`` without one."""
    from rrmap.judge.transport.budget import Budget, Prices, load_prices

    given = [options.price_in is not None, options.price_out is not None]
    if any(given) and not all(given):
        raise click.UsageError("give both --price-in and --price-out (USD per million tokens)")
    if all(given) and options.prices_file is not None:
        raise click.UsageError("give prices either on the command line or in --prices, not both")
    prices = None
    if options.price_in is not None and options.price_out is not None:
        prices = Prices(options.price_in, options.price_out)
    elif options.prices_file is not None:
        prices = load_prices(options.prices_file, model)
    if prices is None and options.max_calls is None and options.max_cost is None:
        return None
    return Budget(max_calls=options.max_calls, max_cost=options.max_cost, prices=prices)


def _client(options: JudgeOptions) -> ChatClient:
    """The client of the run, once the options are checked together."""
    from rrmap.judge.transport._breaker import Breaker
    from rrmap.judge.transport.client import ChatClient, Endpoint

    backend, batch = options.backend, options.batch
    base_url, model = backend.base_url, backend.model
    if not base_url or not model:
        raise click.UsageError(f"missing option(s) {', '.join(backend.missing())}")
    if batch.used and backend.cache_dir is None:
        raise click.UsageError(
            "--batch, --batch-file and --batch-results need --cache DIR: batch answers "
            "and job ids are kept there"
        )
    if batch.jobs and batch.requests_file is not None:
        raise click.UsageError("--batch submits jobs itself; --batch-file only writes them")
    ep = Endpoint(
        base_url,
        model,
        api_key_env=backend.api_key_env,
        temperature=backend.temperature,
        max_tokens=backend.max_tokens,
        timeout=backend.timeout,
        concurrency=backend.concurrency,
        max_retries=backend.max_retries,
    )
    if backend.cache_dir is None and not options.dry_run:
        click.echo("note: no --cache given; answers are not kept for a rerun", err=True)
    return ChatClient(
        ep,
        cache=backend.cache_dir,
        rng=options.seed,
        budget=_budget(options.budget, model),
        breaker=Breaker(rate=backend.fail_on_error),
    )


def _execute(
    options: JudgeOptions,
    client: ChatClient,
    run: Callable[[ChatBackend], T],
    placeholder: str | None,
    what: str,
) -> tuple[T, ChatBackend] | None:
    """Run *run(backend)*: a dry run, through batch jobs, or call by call (see the module).

    Returns the result and the backend whose ``stats`` count the run, or
    ``None`` when nothing is left to do (a dry run, a requests file written).
    """
    with _cache_warnings_as_lines():
        return _execute_run(options, client, run, placeholder, what)


@contextlib.contextmanager
def _cache_warnings_as_lines() -> Iterator[None]:
    """Show each :class:`~rrmap.judge.transport.cache.CacheWarning` as one ``Warning:`` line
    on stderr."""
    from rrmap.judge.transport._reply import _to_stderr
    from rrmap.judge.transport.cache import CacheWarning

    shown = warnings.showwarning

    def show(message: Any, category: Any, *args: Any, **kwargs: Any) -> None:
        if issubclass(category, CacheWarning):
            _to_stderr(f"Warning: {message_text(message, 1000)}")
        else:
            shown(message, category, *args, **kwargs)

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = shown


def _execute_run(
    options: JudgeOptions,
    client: ChatClient,
    run: Callable[[ChatBackend], T],
    placeholder: str | None,
    what: str,
) -> tuple[T, ChatBackend] | None:
    from rrmap.judge.transport._planner import Planner
    from rrmap.judge.transport.batch import read_batch_results, run_batched

    batch = options.batch
    kept = _kept_requests(client) if batch.results else {}  # read once for every file
    for path in batch.results:
        src = input_source(path)
        report = read_batch_results(
            src.text().splitlines(),
            client.cache,
            kept,
            max_reply_bytes=client.endpoint.max_reply_bytes,
        )
        click.echo(
            f"read {src.name}: {len(report.stored)} answer(s) into the cache, "
            f"{len(report.failed)} failed request(s), {report.unknown} line(s) not ours",
            err=True,
        )
    if options.dry_run:
        planner = Planner(client, placeholder=placeholder)
        run(planner)
        _dry_run_report(client, planner.counts, what)
        return None
    if batch.runs_batches:
        result, backend = run_batched(
            run,
            client,
            poll_interval=batch.poll_interval,
            progress=not options.quiet,
            batch_file=batch.requests_file,
            max_lines=batch.max_lines,
            max_bytes=batch.max_bytes,
        )
        if result is None:
            _keep_batch_requests(client, backend)
            _say_batch_files(backend, client.name)
            return None
        return result, backend
    return run(client), client


def _kept_requests(client: ChatClient) -> dict[str, Any]:
    from rrmap.judge.transport.batch import _read_json

    folder = client.cache.directory / "batches" / "requests"
    bodies = {p.stem: _read_json(p) for p in folder.glob("*.json")}
    return {key: body for key, body in bodies.items() if isinstance(body, dict)}


def _keep_batch_requests(client: ChatClient, paths: list[Path]) -> None:
    """Keep the bodies of written requests files, to store their answers under their keys."""
    from rrmap.judge.transport.batch import keep_requests

    for path in paths:
        lines = path.read_text(encoding="utf-8").splitlines()
        requests = [json.loads(line) for line in lines]
        keep_requests(client.cache.directory / "batches" / "requests",
                      {req["custom_id"]: req["body"] for req in requests})  # fmt: skip


def _say_batch_files(paths: list[Path], model: str) -> None:
    """Where the next batch of requests was written, and what to do with it."""
    if len(paths) == 1:
        click.echo(
            f"wrote the next batch of requests to {paths[0]}; run them (e.g. `vllm run-batch "
            f"-i {paths[0]} -o results.jsonl --model {model}`) and rerun with "
            "--batch-results results.jsonl",
            err=True,
        )
        return
    first = paths[0]
    click.echo(
        f"wrote the next batch of requests to {len(paths)} files (--batch-max-lines, "
        f"--batch-max-bytes): {', '.join(map(str, paths))}; run each (e.g. `vllm run-batch -i "
        f"{first} -o {first.with_suffix('.out.jsonl')} --model {model}`) and rerun with one "
        "--batch-results per output file",
        err=True,
    )


def _dry_run_report(client: ChatClient, counts: PlanCounts, what: str) -> None:
    from rrmap.judge.transport._planner import worst_cost

    if counts.to_send:
        first = next(iter(counts.to_send.values()))
        _print_request(client, first)
    reasks = f" and up to {counts.reasks} format re-ask(s)" if counts.reasks else ""
    click.echo(
        f"dry run: {what}: the run needs {counts.needed + counts.reasks} call(s) at most: "
        f"{counts.cached} cached, {len(counts.to_send)} to send{reasks} (identical requests "
        "once); nothing was sent"
        + ("; the first request to send is above" if counts.to_send else ""),
        err=True,
    )
    cost = worst_cost(counts, client)
    if cost is not None:
        prices = client.budget.prices
        click.echo(
            f"dry run: the calls to send cost at most ${cost:.4f} (every reply "
            f"{client.endpoint.max_tokens} tokens, the prompt estimated at 3 characters a token "
            f"and 1500 an image; at ${prices.input:g} / ${prices.output:g} per million tokens in "
            "/ out)",
            err=True,
        )


def _finish(
    stats: UsageStats,
    where: str,
    budget: Budget | None = None,
    usable: int | None = None,
    what: str = "verdict",
) -> None:
    """Exit 1 when no call got an answer or nothing usable came of the answers (*usable*
    results, e.g. verdicts, of the run); otherwise say what failed and where it is."""
    failed = stats.failed + stats.not_sent
    if budget is not None:
        click.echo(f"budget: {budget.summary()}", err=True)
    if failed and stats.calls == 0:
        raise click.ClickException(
            f"no call got an answer: {stats.failed} failed, {stats.not_sent} not sent; "
            f"recorded in {where}"
        )
    if usable == 0:
        raise click.ClickException(
            f"no usable {what}: {stats.calls} answer(s), {stats.failed} failed, "
            f"{stats.not_sent} not sent; recorded in {where}"
        )
    if stats.not_sent:
        click.echo(
            f"{stats.not_sent} call(s) not sent: the budget was reached; rerun with a larger "
            "budget to go on (answered calls come from the cache)",
            err=True,
        )
    if stats.failed:
        click.echo(
            f"{stats.failed} call(s) failed after their retries; recorded in {where}; a rerun "
            "tries them again",
            err=True,
        )


def _prompts_identity(prompts: Prompts, prompts_file: Path | None) -> dict[str, str]:
    text = json.dumps(asdict(prompts), sort_keys=True, ensure_ascii=False, default=str)
    return {
        "name": str(prompts_file) if prompts_file is not None else "default",
        "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
    }


def _provenance(
    output: Path | None,
    client: ChatClient | PairJudge,
    stats: UsageStats | None,
    options: JudgeOptions,
    command: str,
    **extra: Any,
) -> Path | None:
    """Write what *output* came from beside it (``OUTPUT.json``); nothing for stdout."""
    from rrmap.judge.transport.client import ChatClient, public_url

    if output is None or is_stdin(output):
        return None
    ep = client.endpoint if isinstance(client, ChatClient) else None
    record = {
        "command": f"rrmap judge {command}",
        "rrmap_version": __version__,
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seed": options.seed,
        "base_url": public_url(ep.base_url) if ep is not None else None,
        "endpoint": public_url(ep.base_url) if ep is not None else None,
        "model": client.name,
        # what the server said answered (its "model" field), cached answers included
        "model_versions": list(stats.model_versions) if stats is not None else [],
        "temperature": ep.temperature if ep is not None else None,
        "max_tokens": ep.max_tokens if ep is not None else None,
        "batch": bool(options.batch.jobs or options.batch.results),
        "csv_cells": csv_cells(options.output.raw_csv),
        **extra,
        "calls": stats.to_dict() if stats is not None else None,
    }
    path = output.with_name(output.name + ".json")
    return write_json(path, record)


def _abbreviate(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _abbreviate(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_abbreviate(v) for v in obj]
    if isinstance(obj, str) and obj.startswith("data:") and len(obj) > _ABBREV:
        head = obj.split(",", 1)[0]
        return f"{head},<{len(obj) - len(head) - 1} base64 characters>"
    return obj


def _print_request(client: ChatClient, body: dict[str, Any]) -> None:
    from rrmap.judge.transport.client import public_url

    ep = client.endpoint
    auth = f"Bearer ${ep.api_key_env} (not shown)" if ep.api_key_env else "(none)"
    click.echo(f"POST {public_url(ep.url)}\nAuthorization: {auth}")
    click.echo(json.dumps(_abbreviate(body), indent=2, ensure_ascii=False))


def _emit(
    table: pd.DataFrame,
    output: Path | None,
    what: str,
    raw: bool = False,
    prepare: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
) -> None:
    """Write the result *table* to *output* (stdout if none or ``-``): complete or not at
    all, formula-like text cells neutralised unless *raw* (see :mod:`rrmap.judge.tasks._outputs`).

    *prepare* (checking a table and ordering its columns) is applied to a file's table.
    """
    if output is None or is_stdin(output):
        sys.stdout.write(csv_text(table, raw))
        return
    write_csv(output, prepare(table) if prepare is not None else table, raw)
    click.echo(f"wrote {len(table)} {what} to {output}", err=True)


def _also_write(path: Path | None, table: pd.DataFrame, raw: bool, said: str | None) -> None:
    """Write a further table (``--per-order``, ``--responses``, …) to *path*, or to stdout for
    ``-``; *said* (``wrote …``) goes to stderr for a file."""
    if path is None:
        return
    if is_stdin(path):
        sys.stdout.write(csv_text(table, raw))
        return
    write_csv(path, table, raw)
    if said:
        click.echo(f"{said} {path}", err=True)


def _check_outputs(force: bool, *paths: Path | None) -> None:
    """Refuse to overwrite an existing output unless *force* (``-``, stdout, is never one)."""
    for p in paths:
        if p is not None and not is_stdin(p):
            refuse_overwrite(p, force)


def _streams(main: Path | None, inputs: dict[str, Any], **outputs: Path | None) -> None:
    """Refuse a command line that reads standard input twice or writes two tables to stdout.

    *inputs* maps each option (or argument) to its value (a path, or a tuple of them);
    *main* is ``-o`` (stdout when not given); *outputs* the further tables, by option.
    """
    dashes = [name for name, value in inputs.items() for v in _values(value) if is_stdin(v)]
    if len(dashes) > 1:
        raise click.UsageError(
            f"{' and '.join(dashes)}: standard input ('-') can be read by one of them only"
        )
    to_stdout = [f"--{k.replace('_', '-')}" for k, v in outputs.items() if is_stdin(v)]
    if len(to_stdout) > 1:
        raise click.UsageError(
            f"{' and '.join(to_stdout)} are all '-': one table at most goes to standard output"
        )
    if to_stdout and (main is None or is_stdin(main)):
        raise click.UsageError(
            f"{to_stdout[0]} -: standard output already gets the result table; give -o FILE for it"
        )


def _values(value: Any) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, list | tuple) else (value,)


def _shown(path: Path | None) -> str:
    """An input as messages name it: its path, or ``<stdin>`` for ``-``."""
    return STDIN if is_stdin(path) else str(path)
