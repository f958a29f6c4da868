"""The shared options of ``rrmap judge`` reach each command as one frozen, typed record.

Before, every endpoint command took ``**o`` (a dict of thirty values, read back by
string keys) and passed a ``client: Any`` along; now click's values are read once into
:class:`~rrmap.judge.cli._options.JudgeOptions`, and the checks of the options taken
together still say what they said, in the same order.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing

import click
import pytest
from click.testing import CliRunner

from rrmap.cli import main
from rrmap.judge.cli._commands import judge_group
from rrmap.judge.cli._options import (
    ENDPOINT_OPTIONS,
    JudgeOptions,
    endpoint_options,
    judge_options,
)

URL = ("--base-url", "http://127.0.0.1:9/v1", "--model", "m")


def _seen(args: list[str]) -> JudgeOptions:
    seen: list[JudgeOptions] = []

    @click.command()
    @endpoint_options
    def command(options: JudgeOptions) -> None:
        seen.append(options)

    result = CliRunner().invoke(command, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return seen[0]


def test_the_options_arrive_typed_and_frozen(tmp_path):
    o = _seen(
        [*URL, "--timeout", "7.5", "--max-retries", "2", "--concurrency", "3",
         "--cache", str(tmp_path / "c"), "--max-calls", "10", "--price-in", "2.5",
         "--price-out", "10", "--batch", "--poll-interval", "0.5", "--batch-max-lines", "9",
         "--seed", "4", "-o", str(tmp_path / "out.csv"), "--raw-csv", "--quiet"]
    )  # fmt: skip
    assert (o.backend.base_url, o.backend.model, o.backend.timeout) == (*URL[1::2], 7.5)
    assert (o.backend.max_retries, o.backend.concurrency) == (2, 3)
    assert o.backend.cache_dir == tmp_path / "c" and o.backend.api_key_env is None
    assert (o.budget.max_calls, o.budget.price_in, o.budget.price_out) == (10, 2.5, 10.0)
    assert (o.batch.jobs, o.batch.poll_interval, o.batch.max_lines) == (True, 0.5, 9)
    assert o.batch.results == () and o.batch.max_bytes == 200_000_000
    assert (o.output.path, o.output.raw_csv, o.output.force) == (tmp_path / "out.csv", True, False)
    assert (o.seed, o.quiet, o.dry_run) == (4, True, False)
    for record in (o, o.backend, o.budget, o.batch, o.output):
        with pytest.raises(dataclasses.FrozenInstanceError):
            record.seed = 1  # type: ignore[misc, union-attr]


def test_every_shared_option_has_one_typed_field():
    declared = {p.name for p in click.command()(endpoint_options(lambda options: None)).params}
    assert declared == set(inspect.signature(judge_options).parameters)
    assert len(declared) == len(ENDPOINT_OPTIONS) == 27


@pytest.mark.parametrize("name", ["2afc", "mcq", "interpret", "rate"])
def test_the_commands_take_no_bag_of_options(name):
    callback = inspect.unwrap(judge_group.commands[name].callback)
    params = inspect.signature(callback).parameters.values()
    assert not [p.name for p in params if p.kind is inspect.Parameter.VAR_KEYWORD]
    hints = typing.get_type_hints(callback)
    assert hints["options"] is JudgeOptions


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "Error: missing option(s) --base-url, --model"),
        (["--base-url", "http://127.0.0.1:9/v1"], "Error: missing option(s) --model"),
        ([*URL, "--batch"], "Error: --batch, --batch-file and --batch-results need --cache "
         "DIR: batch answers and job ids are kept there"),
        ([*URL, "--cache", "c", "--batch", "--batch-file", "r.jsonl"],
         "Error: --batch submits jobs itself; --batch-file only writes them"),
        ([*URL, "--price-in", "1"],
         "Error: give both --price-in and --price-out (USD per million tokens)"),
        ([*URL, "--price-in", "1", "--price-out", "2", "--prices", "p.yaml"],
         "Error: give prices either on the command line or in --prices, not both"),
    ],
)  # fmt: skip
def test_the_options_taken_together_say_what_is_wrong(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.jsonl").write_text(
        '{"id": "q1", "question": "Balanced?", "options": ["Yes", "No"], "answer": "A"}\n'
    )
    r = CliRunner().invoke(main, ["judge", "mcq", "q.jsonl", "--dry-run", *args])
    assert r.exit_code == 2 and r.stderr.splitlines()[-1] == message, r.output
