"""``--timeout`` is a deadline for a whole HTTP request, and caps ``Retry-After``.

Before, ``--timeout`` bounded each read only: a server sending its answer a byte
every 2 s was read for 240 s under ``--timeout 10``, and ``Retry-After: 999999``
was waited for 300 s per attempt. Every test talks to the local server of
tests/judge/chat_server.py; the command-line ones run ``rrmap`` in a process of
its own (a guard of 120 s ends it if it hangs; no assertion is on time).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from chat_server import MODEL, ChatServer, completion

from rrmap.judge.transport.client import ChatClient, Endpoint

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "judge_example"
HELLO = [{"role": "user", "content": "hello"}]


def _rrmap(server: ChatServer, *extra: str) -> subprocess.CompletedProcess:
    args = ["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "--mode", "base", "--base-url",
            server.base_url, "--model", MODEL, "--quiet", *extra]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "RRMAP_DEBUG"}
    return subprocess.run([sys.executable, "-m", "rrmap.cli", *args], capture_output=True,
                          text=True, timeout=120, env=env)  # fmt: skip


def _answer_bytes(text: str) -> int:
    return len(json.dumps(completion(lambda body: text, {"model": MODEL, "messages": HELLO}, 1)))


def test_an_endpoint_trickling_its_answer_is_given_up_at_the_deadline():
    with ChatServer(api_key=None, faults={1: "trickle"}, trickle_seconds=0.1) as server:
        r = _rrmap(server, "--timeout", "0.5", "--max-retries", "0")
        sent = server.trickled
    assert r.returncode == 1, r.stderr
    assert r.stderr.splitlines()[-1] == (
        f"Error: {server.base_url}/chat/completions: stopped: no whole answer within --timeout "
        "0.5 s: the endpoint hangs or sends too slowly (or the model needs longer: raise "
        "--timeout)"
    )
    assert 0 < sent < 100  # of an answer of some 400 bytes: the client stopped reading


def test_a_call_trickled_mid_run_is_retried_within_the_deadline():
    async def two(client):
        async with client:
            await client.chat(HELLO)
            return await client.chat([{"role": "user", "content": "again"}])

    with ChatServer(lambda b: "ok", api_key=None, faults={2: "trickle"}) as server:
        ep = Endpoint(server.base_url, MODEL, api_key_env=None, timeout=0.5, backoff=0.01)
        client = ChatClient(ep)
        res = asyncio.run(two(client))
        sent = server.trickled
    assert res.text == "ok" and res.attempts == 2
    assert client.stats.retries == 1 and client.stats.failed == 0
    assert sent < _answer_bytes("ok")


@pytest.mark.slow
def test_a_huge_retry_after_is_waited_for_at_most_the_timeout():
    with ChatServer(api_key=None, faults={1: "429"}, retry_after=999999) as server:
        r = _rrmap(server, "--timeout", "0.5", "--max-retries", "1")
    assert r.returncode == 0, r.stderr  # not waiting 999999 s: the guard would have ended it
    assert "paid calls 24 " in r.stderr
    assert "Retry-After" not in r.stderr  # a wait under 5 s is not announced


@pytest.mark.slow  # the check above, with a wait long enough (5 s) to be announced
def test_a_huge_retry_after_is_announced_with_its_cap():
    with ChatServer(api_key=None, faults={1: "429"}, retry_after=999999) as server:
        r = _rrmap(server, "--timeout", "5", "--max-retries", "1")  # waits of 5 s are said
    assert r.returncode == 0, r.stderr
    assert (
        f"{MODEL}: HTTP 429 asking to wait 999999 s (at most 5 s); waiting 5 s (Retry-After) "
        "before attempt 2 of 2" in r.stderr
    )
    assert "paid calls 24 " in r.stderr


def test_retry_after_cap_is_never_above_the_timeout():
    said: list[str] = []
    with ChatServer(lambda b: "ok", api_key=None, faults={1: "429"}, retry_after=50) as server:
        ep = Endpoint(server.base_url, MODEL, api_key_env=None, timeout=1, retry_after_cap=30)
        client = ChatClient(ep, notify=said.append, announce_after=0)

        async def one():
            async with client:
                return await client.chat(HELLO)

        assert asyncio.run(one()).text == "ok"
    assert said == [
        f"{MODEL}: HTTP 429 asking to wait 50 s (at most 1 s); waiting 1 s (Retry-After) "
        "before attempt 2 of 7"
    ]
