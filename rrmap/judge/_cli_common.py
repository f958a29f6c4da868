"""What the ``rrmap judge`` commands share: backend options, the client, dry runs, outputs."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pandas as pd

from rrmap.cli.common import refuse_overwrite

_ABBREV = 48


# options several commands share, declared once
_PROMPTS_OPTION = click.option(
    "--prompts",
    "prompts_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="YAML/JSON file replacing some prompts.",
)
_MAX_SIDE_OPTION = click.option(
    "--max-side",
    type=click.IntRange(16),
    default=512,
    help="Downscale each image to this longer side.",
)


def _backend_options(func: Callable[..., Any]) -> Callable[..., Any]:
    opts = [
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
            help="Seconds per HTTP request.",
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
            help="Write the result table here instead of stdout.",
        ),
        click.option("--force", is_flag=True, help="Overwrite existing output files."),
        click.option(
            "--dry-run",
            is_flag=True,
            help="Print the first request (images abbreviated) and send nothing.",
        ),
        click.option("--quiet", is_flag=True, help="No progress bar."),
    ]
    return functools.reduce(lambda f, o: o(f), reversed(opts), func)


def _client(o: dict[str, Any]) -> Any:
    from rrmap.judge.client import ChatClient, Endpoint

    missing = [f"--{k.replace('_', '-')}" for k in ("base_url", "model") if not o[k]]
    if missing:
        raise click.UsageError(f"missing option(s) {', '.join(missing)}")
    ep = Endpoint(
        o["base_url"],
        o["model"],
        api_key_env=o["api_key_env"],
        temperature=o["temperature"],
        max_tokens=o["max_tokens"],
        timeout=o["timeout"],
        concurrency=o["concurrency"],
        max_retries=o["max_retries"],
    )
    if o["cache_dir"] is None and not o["dry_run"]:
        click.echo("note: no --cache given; answers are not kept for a rerun", err=True)
    return ChatClient(ep, cache=None if o["dry_run"] else o["cache_dir"], rng=o["seed"])


def _abbreviate(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _abbreviate(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_abbreviate(v) for v in obj]
    if isinstance(obj, str) and obj.startswith("data:") and len(obj) > _ABBREV:
        head = obj.split(",", 1)[0]
        return f"{head},<{len(obj) - len(head) - 1} base64 characters>"
    return obj


def _dry_run(client: Any, messages: list[dict[str, Any]], note: str) -> None:
    ep = client.endpoint
    auth = f"Bearer ${ep.api_key_env} (not shown)" if ep.api_key_env else "(none)"
    click.echo(f"POST {ep.url}\nAuthorization: {auth}", err=False)
    click.echo(json.dumps(_abbreviate(client.request_body(messages)), indent=2, ensure_ascii=False))
    click.echo(f"dry run: nothing sent; {note}", err=True)


def _emit(
    table: pd.DataFrame, output: Path | None, what: str, writer: Callable | None = None
) -> None:
    if output is None:
        sys.stdout.write(table.to_csv(index=False))
        return
    if writer is not None:
        writer(table, output)
    else:
        table.to_csv(output, index=False)
    click.echo(f"wrote {len(table)} {what} to {output}", err=True)


def _check_outputs(force: bool, *paths: Path | None) -> None:

    for p in paths:
        if p is not None:
            refuse_overwrite(p, force)
