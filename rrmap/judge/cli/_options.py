"""The options of the ``rrmap judge`` commands: declared once for click, read once into types.

Every command that calls an endpoint takes the same options (:data:`ENDPOINT_OPTIONS`).
:func:`endpoint_options` adds them to a command and hands the command one frozen
:class:`JudgeOptions` instead of thirty keyword values: :class:`BackendOptions` (where
and how to call the model), :class:`BudgetOptions` (calls and cost at most, prices),
:class:`BatchOptions` (batch jobs, requests files, results files) and
:class:`OutputOptions` (the result table), with the seed, ``--dry-run`` and
``--quiet``. What the options mean together (a budget needs both prices, batch
jobs need a cache) is checked where the client is built
(:func:`rrmap.judge.cli._common._client`), after the input files are read, so
the messages come in the order a user meets them.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

# options several commands share, declared once
PROMPTS_OPTION = click.option(
    "--prompts",
    "prompts_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="YAML/JSON file replacing some prompts.",
)
ALLOW_OUTSIDE_OPTION = click.option(
    "--allow-outside",
    is_flag=True,
    help="Accept images (and image folders) outside the input file's folder (../, absolute "
    "paths, links).",
)
RAW_CSV_OPTION = click.option(
    "--raw-csv",
    is_flag=True,
    help="Write CSV text cells as they are, for programs: no ' before a cell starting "
    "with = + - @, a tab or a carriage return, or holding one after a line break inside "
    "the cell (which a spreadsheet would run as a formula).",
)
MAX_SIDE_OPTION = click.option(
    "--max-side",
    type=click.IntRange(16),
    default=512,
    help="Downscale each image to this longer side.",
)

#: The options of every command that calls an endpoint, in the order ``--help`` lists them.
ENDPOINT_OPTIONS = [
    click.option(
        "--base-url",
        default=None,
        metavar="URL",
        help="Chat-completions base URL, e.g. https://api.openai.com/v1.",
    ),
    click.option("--model", default=None, metavar="NAME", help="Model name at the endpoint."),
    click.option(
        "--api-key-env",
        default=None,
        metavar="VAR",
        help="Environment variable holding the API key (none: no key sent).",
    ),
    click.option(
        "--concurrency", type=click.IntRange(1), default=8, help="Requests in flight at most."
    ),
    click.option(
        "--cache",
        "cache_dir",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Cache directory: a rerun resumes without repeating finished calls.",
    ),
    click.option(
        "--timeout",
        type=click.FloatRange(min=0, min_open=True),
        default=120.0,
        help="Seconds one HTTP request may take in all: connecting, sending, reading the "
        "whole reply (a reply trickling in is given up then); also the longest Retry-After "
        "waited for. A call makes at most --max-retries + 1 requests.",
    ),
    click.option("--temperature", type=float, default=0.0, help="Sampling temperature."),
    click.option(
        "--max-tokens", type=click.IntRange(1), default=1024, help="Longest reply in tokens."
    ),
    click.option(
        "--max-retries",
        type=click.IntRange(0),
        default=6,
        help="Retries of a call after 429/5xx/timeouts/dropped connections.",
    ),
    click.option(
        "--fail-on-error",
        type=click.FloatRange(0, 1, min_open=True),
        default=1.0,
        metavar="RATE",
        help="Stop (exit 1) when this share of the last 20 HTTP attempts failed (default 1: "
        "all of them); the run also stops when its first 5 attempts all fail.",
    ),
    click.option(
        "--seed",
        type=int,
        default=0,
        help="Seed of the random steps (backoff jitter, random baseline).",
    ),
    click.option(
        "-o",
        "--output",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="Write the result table here instead of stdout ('-': stdout).",
    ),
    click.option("--force", is_flag=True, help="Overwrite existing output files."),
    RAW_CSV_OPTION,
    click.option(
        "--dry-run",
        is_flag=True,
        help="Count the calls the run needs and those cached, print the first request "
        "to send (images abbreviated); send nothing.",
    ),
    click.option("--quiet", is_flag=True, help="No progress bar."),
    click.option(
        "--max-calls",
        type=click.IntRange(0),
        default=None,
        help="Stop before paying for more calls than this (cached answers are free).",
    ),
    click.option(
        "--max-cost",
        type=click.FloatRange(0),
        default=None,
        metavar="USD",
        help="Stop before a call could take the cost past this (needs prices).",
    ),
    click.option(
        "--price-in",
        type=click.FloatRange(0),
        default=None,
        metavar="USD",
        help="Price of a million prompt tokens.",
    ),
    click.option(
        "--price-out",
        type=click.FloatRange(0),
        default=None,
        metavar="USD",
        help="Price of a million completion tokens.",
    ),
    click.option(
        "--prices",
        "prices_file",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="YAML/JSON file of prices per model ({model: {input: USD, output: USD}}).",
    ),
    click.option(
        "--batch",
        is_flag=True,
        help="Send uncached requests as batch jobs (/files + /batches: about half price).",
    ),
    click.option(
        "--batch-file",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="Only write the next batch of requests as JSONL here (e.g. for vllm run-batch); "
        "over --batch-max-lines or --batch-max-bytes, as numbered parts NAME.part1.jsonl, ….",
    ),
    click.option(
        "--batch-results",
        type=click.Path(dir_okay=False, exists=True, allow_dash=True, path_type=Path),
        multiple=True,
        help="Read a batch output JSONL into the cache first (repeatable; '-': stdin).",
    ),
    click.option(
        "--poll-interval",
        type=click.FloatRange(0),
        default=30.0,
        help="Seconds between two looks at a running batch job.",
    ),
    click.option(
        "--batch-max-lines",
        type=click.IntRange(1),
        default=50_000,
        show_default=True,
        help="Requests in one batch input file at most; more make several jobs (files).",
    ),
    click.option(
        "--batch-max-bytes",
        type=click.IntRange(1024),
        default=200_000_000,
        show_default=True,
        help="Bytes of one batch input file at most; more make several jobs (files).",
    ),
]


@dataclass(frozen=True)
class BackendOptions:
    """Where and how to call the model (``--base-url`` … ``--fail-on-error``, ``--cache``).

    *base_url* and *model* may be missing here: a command that needs no endpoint
    (``2afc --baseline random``) does not ask for them.

    Examples
    --------
    >>> b = BackendOptions(base_url="http://127.0.0.1:8000/v1", model="m")
    >>> b.missing(), BackendOptions().missing()
    ([], ['--base-url', '--model'])
    """

    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    concurrency: int = 8
    cache_dir: Path | None = None
    timeout: float = 120.0
    temperature: float = 0.0
    max_tokens: int = 1024
    max_retries: int = 6
    fail_on_error: float = 1.0

    def missing(self) -> list[str]:
        """The options an endpoint needs that were not given, as flags."""
        given = (("--base-url", self.base_url), ("--model", self.model))
        return [flag for flag, value in given if not value]


@dataclass(frozen=True)
class BudgetOptions:
    """Calls and cost at most, and the prices (``--max-calls`` … ``--prices``).

    Examples
    --------
    >>> BudgetOptions().limited, BudgetOptions(max_calls=10).limited
    (False, True)
    """

    max_calls: int | None = None
    max_cost: float | None = None
    price_in: float | None = None
    price_out: float | None = None
    prices_file: Path | None = None

    @property
    def limited(self) -> bool:
        """Whether any budget option was given (then the run keeps a budget)."""
        given = (self.max_calls, self.max_cost, self.price_in, self.price_out, self.prices_file)
        return any(value is not None for value in given)


@dataclass(frozen=True)
class BatchOptions:
    """Batch jobs and batch files (``--batch``, ``--batch-file``, ``--batch-results``, …).

    Attributes
    ----------
    jobs : bool
        ``--batch``: send the uncached requests as batch jobs.
    requests_file : Path or None
        ``--batch-file``: only write the next batch of requests here.
    results : tuple of Path
        ``--batch-results``: batch outputs read into the cache first.
    poll_interval : float
        ``--poll-interval``: seconds between two looks at a running job.
    max_lines, max_bytes : int
        ``--batch-max-lines``, ``--batch-max-bytes``: one batch input file at most.

    Examples
    --------
    >>> BatchOptions().used, BatchOptions(jobs=True).runs_batches
    (False, True)
    """

    jobs: bool = False
    requests_file: Path | None = None
    results: tuple[Path, ...] = ()
    poll_interval: float = 30.0
    max_lines: int = 50_000
    max_bytes: int = 200_000_000

    @property
    def runs_batches(self) -> bool:
        """Whether the run goes through batches (jobs, or a requests file written)."""
        return self.jobs or self.requests_file is not None

    @property
    def used(self) -> bool:
        """Whether any batch option that needs a cache was given."""
        return self.runs_batches or bool(self.results)


@dataclass(frozen=True)
class OutputOptions:
    """The result table: where it goes and how it is written (``-o``, ``--force``,
    ``--raw-csv``).

    Examples
    --------
    >>> OutputOptions().path is None
    True
    """

    path: Path | None = None
    force: bool = False
    raw_csv: bool = False


@dataclass(frozen=True)
class JudgeOptions:
    """Everything the shared options of an endpoint command say, typed.

    Examples
    --------
    >>> o = JudgeOptions(seed=3)
    >>> o.backend.concurrency, o.batch.poll_interval, o.output.raw_csv, o.seed
    (8, 30.0, False, 3)
    """

    backend: BackendOptions = BackendOptions()
    budget: BudgetOptions = BudgetOptions()
    batch: BatchOptions = BatchOptions()
    output: OutputOptions = OutputOptions()
    seed: int = 0
    dry_run: bool = False
    quiet: bool = False


def judge_options(
    *,
    base_url: str | None,
    model: str | None,
    api_key_env: str | None,
    concurrency: int,
    cache_dir: Path | None,
    timeout: float,
    temperature: float,
    max_tokens: int,
    max_retries: int,
    fail_on_error: float,
    seed: int,
    output: Path | None,
    force: bool,
    raw_csv: bool,
    dry_run: bool,
    quiet: bool,
    max_calls: int | None,
    max_cost: float | None,
    price_in: float | None,
    price_out: float | None,
    prices_file: Path | None,
    batch: bool,
    batch_file: Path | None,
    batch_results: tuple[Path, ...],
    poll_interval: float,
    batch_max_lines: int,
    batch_max_bytes: int,
) -> JudgeOptions:
    """The :class:`JudgeOptions` of click's values (one keyword per option of
    :data:`ENDPOINT_OPTIONS`).

    Examples
    --------
    >>> command = click.command()(endpoint_options(lambda options: None))
    >>> values = {p.name: p.default for p in command.params}
    >>> values.update(base_url="http://127.0.0.1:8000/v1", model="m", batch_results=())
    >>> o = judge_options(**values)
    >>> o.backend.base_url, o.backend.timeout, o.batch.max_lines
    ('http://127.0.0.1:8000/v1', 120.0, 50000)
    """
    return JudgeOptions(
        backend=BackendOptions(
            base_url=base_url,
            model=model,
            api_key_env=api_key_env,
            concurrency=concurrency,
            cache_dir=cache_dir,
            timeout=timeout,
            temperature=temperature,
            max_tokens=max_tokens,
            max_retries=max_retries,
            fail_on_error=fail_on_error,
        ),
        budget=BudgetOptions(max_calls, max_cost, price_in, price_out, prices_file),
        batch=BatchOptions(
            jobs=batch,
            requests_file=batch_file,
            results=tuple(batch_results),
            poll_interval=poll_interval,
            max_lines=batch_max_lines,
            max_bytes=batch_max_bytes,
        ),
        output=OutputOptions(path=output, force=force, raw_csv=raw_csv),
        seed=seed,
        dry_run=dry_run,
        quiet=quiet,
    )


_FIELDS = tuple(inspect.signature(judge_options).parameters)


def endpoint_options(command: Callable[..., None]) -> Callable[..., None]:
    """Add :data:`ENDPOINT_OPTIONS` to *command*, which receives them as one
    ``options`` (:class:`JudgeOptions`) beside its own parameters.

    Examples
    --------
    >>> from click.testing import CliRunner
    >>> @click.command()
    ... @endpoint_options
    ... def show(options):
    ...     click.echo(f"{options.backend.model} {options.budget.max_calls}")
    >>> CliRunner().invoke(show, ["--model", "m", "--max-calls", "3"]).output
    'm 3\\n'
    """

    @functools.wraps(command)
    def with_options(*args: Any, **values: Any) -> None:
        shared = {name: values.pop(name) for name in _FIELDS}
        command(*args, options=judge_options(**shared), **values)

    return functools.reduce(lambda f, o: o(f), reversed(ENDPOINT_OPTIONS), with_options)
