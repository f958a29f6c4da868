"""Token counts an endpoint reports: missing, negative or unreadable usage is never free.

A reply whose ``usage`` cannot be used is charged the most its call could cost
(its prompt estimate and a full ``max_tokens`` reply), with one warning naming
the endpoint; a budget is never passed, and no reply, however malformed, ends a
run or loses the answers paid for. Every run talks to the local server of
tests/judge/chat_server.py; nothing is patched.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from chat_server import API_KEY, MODEL, ChatServer
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from rrmap.cli import main
from rrmap.judge.transport.batch_files import read_batch_results
from rrmap.judge.transport.budget import Budget, BudgetExhausted, Prices
from rrmap.judge.transport.cache import ResponseCache, cache_key
from rrmap.judge.transport.usage import reported_usage

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "judge_example"
KEY_ENV = "RRMAP_TEST_JUDGE_KEY"
PRICES = ["--price-in", "2.5", "--price-out", "2.5", "--max-tokens", "64"]

#: usage text the server sends → why the client cannot use it
UNUSABLE = {
    "missing": ("omit", "no usage"),
    "negative": (
        '{"prompt_tokens": -5000, "completion_tokens": -10}',
        "prompt_tokens is negative (-5000)",
    ),
    "zero": (
        '{"prompt_tokens": 0, "completion_tokens": 0}',
        "prompt_tokens is 0: every request has some",
    ),
    "text": ('"lots"', "usage is not an object (str)"),
    "a text count": (
        '{"prompt_tokens": "lots", "completion_tokens": 3}',
        "prompt_tokens is not a number (str)",
    ),
    "1e400": (
        '{"prompt_tokens": 1e400, "completion_tokens": 3}',
        "prompt_tokens is not a finite number (inf)",
    ),
    "a list": ("[1, 2]", "usage is not an object (list)"),
    "a fraction": (
        '{"prompt_tokens": 10, "completion_tokens": 2.5}',
        "completion_tokens is not a whole number (2.5)",
    ),
}


def _2afc(server: ChatServer, tmp_path: Path, *extra: str):
    args = ["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "--mode", "base", "--cache",
            str(tmp_path / "cache"), "--base-url", server.base_url, "--model", MODEL,
            "--api-key-env", KEY_ENV, "--quiet", *extra]  # fmt: skip
    return CliRunner(env={KEY_ENV: API_KEY}).invoke(main, args)


def _spent(stderr: str) -> float:
    return float(stderr.split("budget: ")[1].split("$")[1].split()[0])


def _warning(server: ChatServer, why: str) -> str:
    return (
        f"Warning: {server.base_url} answered without usable token counts ({why}); each such "
        "answer is charged the most it could cost: its prompt estimate and a full "
        "--max-tokens 64 reply"
    )


@pytest.fixture(scope="module")
def honest_calls(tmp_path_factory) -> int:
    """Calls an honest server is paid under --max-cost 0.02 (of the 24 the run needs)."""
    with ChatServer() as server:
        r = _2afc(server, tmp_path_factory.mktemp("honest"), "--max-cost", "0.02", *PRICES)
        n = len(server.answered)
    assert r.exit_code == 0, r.output
    assert 0 < n < 24 and "Warning" not in r.stderr
    return n


@pytest.mark.parametrize(("usage", "why"), UNUSABLE.values(), ids=UNUSABLE.keys())
def test_a_server_without_usable_usage_is_charged_the_worst_case(
    tmp_path, honest_calls, usage, why
):
    """Before: a reply without usage (or with 0 or negative tokens) was free, and the run
    paid all 24 calls under a budget an honest server stops after about 7."""
    with ChatServer(usage=usage) as server:
        r = _2afc(server, tmp_path, "--max-cost", "0.02", *PRICES)
        paid = len(server.answered)
    assert r.exit_code == 0, r.output
    assert 0 < paid <= honest_calls
    assert 0 < _spent(r.stderr) <= 0.02
    assert _warning(server, why) in r.stderr
    assert r.stderr.count("Warning:") == 1  # once per run, not once per answer
    assert f"; {paid} without token counts)" in r.stderr
    assert f"{24 - paid} call(s) not sent: the budget was reached" in r.stderr


@pytest.mark.parametrize("name", ["text", "1e400", "a list", "a text count"])
def test_one_malformed_usage_loses_no_answer(tmp_path, name):
    """Before: `invalid literal for int()` (or an unexpected error) ended the run at the 10th
    answer: no output, 4 of 13 paid answers lost."""
    usage, why = UNUSABLE[name]
    out = tmp_path / "out.csv"
    with ChatServer(faults={10: f"usage={usage}"}) as server:
        r = _2afc(server, tmp_path, "-o", str(out), "--max-cost", "1", *PRICES)
        again = _2afc(server, tmp_path, "-o", str(out), "--force", "--max-tokens", "64")
        assert len(server.answered) == 24  # the rerun paid nothing
    assert r.exit_code == 0, r.output
    assert len(pd.read_csv(out)) == 12
    assert "paid calls 24 (" in r.stderr and "; 1 without token counts)" in r.stderr
    assert _warning(server, why) in r.stderr
    assert again.exit_code == 0 and "paid calls 0 " in again.stderr and "cached 24" in again.stderr


def test_without_a_budget_the_warning_says_the_totals_lack_them(tmp_path):
    with ChatServer(usage="omit") as server:
        r = _2afc(server, tmp_path)
    assert r.exit_code == 0, r.output
    assert (
        f"Warning: {server.base_url} answered without usable token counts (no usage); the "
        "tokens of such answers are not in the totals" in r.stderr
    )
    assert "paid calls 24 (tokens 0 in / 0 out; 24 without token counts)" in r.stderr


def test_batch_answers_without_usage_are_charged_the_worst_case(tmp_path):
    with ChatServer(usage="omit") as server:
        r = _2afc(server, tmp_path, "--batch", "--poll-interval", "0.01", "--max-cost", "0.02",
                  *PRICES)  # fmt: skip
        paid = server.batch_lines
    assert r.exit_code == 0, r.output
    assert 0 < paid < 24 and 0 < _spent(r.stderr) <= 0.02
    assert _warning(server, "no usage") in r.stderr
    assert f"; {paid} through batch jobs; {paid} without token counts)" in r.stderr


def test_a_hostile_batch_output_fails_its_lines_and_keeps_the_others(tmp_path):
    cache = ResponseCache(tmp_path / "cache")
    bodies = [{"model": "m", "messages": [{"role": "user", "content": f"q{i}"}]} for i in range(5)]
    keys = [cache_key(b) for b in bodies]
    answer = {"choices": [{"message": {"content": "A"}, "finish_reason": "stop"}]}
    lines = [
        {"custom_id": keys[0], "response": [1, 2]},
        {"custom_id": keys[1], "response": {"status_code": 500, "body": {"error": "boom"}}},
        {"custom_id": keys[2], "response": {"status_code": 200, "body": {**answer,
                                                                       "usage": "lots"}}},
        {"custom_id": keys[3], "response": {"status_code": 200, "body": answer}},
        {"custom_id": keys[4], "error": ["a", "list"]},
    ]  # fmt: skip
    report = read_batch_results(
        [json.dumps(line) for line in lines], cache, dict(zip(keys, bodies, strict=True))
    )
    assert report.stored == [keys[2], keys[3]]
    assert report.failed == {
        keys[0]: "batch: HTTP None: None",
        keys[1]: "batch: HTTP 500: boom",
        keys[4]: "batch: ['a', 'list']",
    }
    assert cache.get(keys[2])["usage"] is None and cache.get(keys[3])["usage"] is None


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ({"prompt_tokens": 812, "completion_tokens": 7}, (812, 7, None)),
        ({"prompt_tokens": 812.0, "completion_tokens": 0}, (812, 0, None)),
        ({"prompt_tokens": True, "completion_tokens": 7}, (0, 0, "prompt_tokens is not a "
                                                            "number (bool)")),
        ({"prompt_tokens": 8}, (0, 0, "no completion_tokens")),
        ({}, (0, 0, "no prompt_tokens")),
        ({"prompt_tokens": float("nan"), "completion_tokens": 1},
         (0, 0, "prompt_tokens is not a finite number (nan)")),
    ],
)  # fmt: skip
def test_reported_usage(usage, expected):
    assert reported_usage(usage) == expected


@given(
    st.lists(st.tuples(st.integers(1, 3), st.integers(0, 2_000), st.booleans()), max_size=30),
    st.floats(0.0, 0.5),
)
def test_unknown_usage_never_takes_a_budget_past_its_limit(calls, limit):
    """Conversations of 1-3 turns whose answers report no usage, or at most their worst
    case: spent and reserved never pass the limit."""
    b = Budget(max_cost=limit, prices=Prices(10.0, 30.0))
    for turns, chars, known in calls:
        body = {"messages": [{"role": "user", "content": "x" * chars}]}
        try:
            res = b.reserve(body, max_tokens=500, turns=turns)
        except BudgetExhausted:
            continue
        for t in range(turns):
            grown = {"messages": [*body["messages"], {"content": "y" * (900 * t)}]}
            try:
                b.check(res, grown)
            except BudgetExhausted:
                break
            tokens = (1, 1) if known else (None, None)
            b.use(res, *tokens, body=grown)
            assert b.cost + b.reserved_cost <= limit + 1e-9
        b.release(res)
        assert b.cost <= limit + 1e-9
