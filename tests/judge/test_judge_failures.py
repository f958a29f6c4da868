"""Runs that cannot succeed stop: a hanging endpoint, one failing everything, one that dies.

Every test talks to a real HTTP server on 127.0.0.1 (tests/judge/chat_server.py); no
client function is patched.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pandas as pd
import pytest
from chat_server import API_KEY, MODEL, ChatServer
from click.testing import CliRunner
from test_judge_pairwise import _pairs

from rrmap.cli import main
from rrmap.judge.tasks.pairwise import judge_pairs
from rrmap.judge.transport._breaker import Breaker
from rrmap.judge.transport.client import ChatClient, Endpoint, EndpointError

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "judge_example"
KEY_ENV = "RRMAP_TEST_JUDGE_KEY"


def _run(args: list[str]):
    return CliRunner(env={KEY_ENV: API_KEY}).invoke(main, args)


def _2afc(server: ChatServer, *extra: str, pairs: Path = EXAMPLE / "PAIRS.csv"):
    return _run(["judge", "2afc", str(pairs), "--mode", "base", "--base-url", server.base_url,
                 "--model", MODEL, "--api-key-env", KEY_ENV, "--quiet", *extra])  # fmt: skip


def test_a_hanging_endpoint_is_reported_after_one_timeout():
    with ChatServer(faults={i: "slow" for i in range(1, 100)}, slow_seconds=30) as server:
        r = _2afc(server, "--timeout", "1")
        assert server.received == 1  # the first request alone; nothing retried
    assert r.exit_code == 1
    assert r.stderr.count("\n") == 2  # the no-cache note and one error line
    assert "Error: http://127.0.0.1:" in r.stderr
    assert (
        "stopped: no whole answer within --timeout 1 s: the endpoint hangs or sends too slowly "
        "(or the model needs longer: raise --timeout)" in r.stderr
    )


def test_an_endpoint_failing_everything_stops_after_its_first_attempts():
    with ChatServer(faults={i: "500" for i in range(1, 1000)}, api_key=None) as server:
        client = ChatClient(Endpoint(server.base_url, MODEL, api_key_env=None, backoff=0.01))
        with pytest.raises(EndpointError, match=r"stopped: the first 5 attempts all failed; "
                           r"the last: HTTP 500"):  # fmt: skip
            judge_pairs(_pairs(n=20), client, mode="base")
        assert server.received == 5  # 40 calls with 7 attempts each would be 280


def test_the_cli_stops_an_endpoint_failing_everything_with_one_line():
    with ChatServer(faults={i: "500" for i in range(1, 1000)}) as server:
        r = _2afc(server, "--max-retries", "0")
        assert server.received == 5
    assert r.exit_code == 1
    assert r.stderr.splitlines()[-1].endswith("stopped: the first 5 attempts all failed; the "
                                              "last: HTTP 500")  # fmt: skip


def test_a_server_that_dies_during_the_run_stops_it():
    server = ChatServer(latency=0.02, api_key=None).start()
    client = ChatClient(Endpoint(server.base_url, MODEL, api_key_env=None, backoff=0.01))

    run_over = threading.Event()

    def kill_after(n: int) -> None:
        # count what the client received: the server counts an answer before sending it,
        # and a kill can cut the answers still on their way
        while client.stats.paid < n and not run_over.is_set():
            run_over.wait(0.01)
        server.kill()

    killer = threading.Thread(target=kill_after, args=(10,))
    killer.start()
    try:
        with pytest.raises(EndpointError, match=r"stopped: 20 of the last 20 attempts failed"):
            judge_pairs(_pairs(n=40), client, mode="base")
    finally:
        run_over.set()  # a run that ended otherwise fails below, not hangs in the killer
        killer.join()
    assert 10 <= client.stats.paid < 80
    # the failed attempts after the kill: about one window, not every call's retries
    assert client.stats.requests - client.stats.paid < 40


def test_fail_on_error_stops_at_a_failure_rate():
    every_other = {i: "500" for i in range(2, 1000, 2)}
    with ChatServer(faults=every_other, api_key=None) as server:
        client = ChatClient(
            Endpoint(server.base_url, MODEL, api_key_env=None, max_retries=0, concurrency=1),
            breaker=Breaker(rate=0.5),
        )
        with pytest.raises(EndpointError, match=r"10 of the last 20 attempts failed "
                           r"\(--fail-on-error 0.5\)"):  # fmt: skip
            judge_pairs(_pairs(n=40), client, mode="base")
        assert server.received == 20
    # without the option the same run goes on: every other call fails, half are judged
    with ChatServer(faults=every_other, api_key=None) as server:
        client = ChatClient(
            Endpoint(server.base_url, MODEL, api_key_env=None, max_retries=0, concurrency=1)
        )
        res = judge_pairs(_pairs(n=10), client, mode="base")
    assert int(res.per_order["valid"].sum()) == 10


def test_a_run_without_a_usable_verdict_exits_1(tmp_path):
    """Every answer unreadable, even after the re-ask: a header-only table is no success."""
    pairs = pd.read_csv(EXAMPLE / "PAIRS.csv", dtype=str)
    for col in ("source_image", "image_a", "image_b"):
        pairs[col] = [str(EXAMPLE / p) for p in pairs[col]]
    pairs["style"] = "HOPELESS " + pairs["style"]
    path = tmp_path / "pairs.csv"
    pairs.to_csv(path, index=False)
    with ChatServer() as server:
        r = _2afc(server, "--mode", "artcot", "--allow-outside", "-o", str(tmp_path / "o.csv"),
                  pairs=path)  # fmt: skip
    assert r.exit_code == 1
    assert "Error: no usable verdict: 96 answer(s), 0 failed, 0 not sent" in r.stderr
    assert len(pd.read_csv(tmp_path / "o.csv")) == 0  # written, and said to be empty
