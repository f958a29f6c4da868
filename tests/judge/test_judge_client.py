"""rrmap.judge.transport.client against a real chat-completions server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import sys
import time

import pytest
from chat_server import API_KEY, MODEL, ChatServer

from rrmap.errors import InputError
from rrmap.judge.transport._reply import _retry_after
from rrmap.judge.transport.client import CallFailedError, ChatClient, Endpoint, EndpointError

KEY_ENV = "RRMAP_TEST_JUDGE_KEY"
HELLO = [{"role": "user", "content": "Which is better? Step 3 of 3: summary."}]


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, API_KEY)


def _endpoint(server: ChatServer, **kw) -> Endpoint:
    kw.setdefault("backoff", 0.01)
    return Endpoint(server.base_url, kw.pop("model", MODEL), api_key_env=KEY_ENV, **kw)


async def _ask(client: ChatClient, messages=HELLO, n: int = 1):
    async with client:
        return await asyncio.gather(*(client.chat(messages) for _ in range(n)))


def test_answer_and_usage_are_returned():
    with ChatServer(lambda body: "{'winner': 1}") as server:
        client = ChatClient(_endpoint(server, temperature=0.3, max_tokens=50))
        (res,) = asyncio.run(_ask(client))
    assert res.text == "{'winner': 1}"
    assert res.completion_tokens == 2
    assert res.prompt_tokens > 0
    body = server.answered[0]
    assert body["model"] == MODEL
    assert body["temperature"] == 0.3
    assert body["max_tokens"] == 50
    assert client.stats.calls == 1 and client.stats.requests == 1


@pytest.mark.parametrize("fault", ["429", "500", "drop", "garbage"])
def test_transient_failure_is_retried(fault):
    with ChatServer(lambda body: "ok", faults={1: fault}, retry_after=0.05) as server:
        client = ChatClient(_endpoint(server))
        (res,) = asyncio.run(_ask(client))
    assert res.text == "ok"
    assert res.attempts == 2
    assert client.stats.retries == 1
    assert client.stats.requests == 2
    assert server.received == 2


def test_retry_after_is_honoured():
    # backoff alone would wait ~1 ms; the server asks for 0.4 s
    with ChatServer(lambda body: "ok", faults={1: "429"}, retry_after=0.4) as server:
        client = ChatClient(_endpoint(server, backoff=0.001))
        start = time.monotonic()
        asyncio.run(_ask(client))
        waited = time.monotonic() - start
    assert waited >= 0.4


@pytest.mark.parametrize(
    ("value", "expected"),
    [("2", 2.0), ("0.5", 0.5), ("-3", 0.0), ("1000", 300.0), ("soon", None), (None, None)],
)
def test_retry_after_values(value, expected):
    assert _retry_after(value, 300.0) == expected


def test_retry_after_http_date_in_the_past_is_zero():
    assert _retry_after("Wed, 21 Oct 2015 07:28:00 GMT", 300.0) == 0.0


def test_slow_answer_times_out_and_is_retried():
    """Once the endpoint has answered, a call that times out is retried (the first request
    of a run timing out stops it instead: tests/judge/test_judge_failures.py)."""

    async def two(client):
        async with client:
            first = await client.chat(HELLO)
            return first, await client.chat([{"role": "user", "content": "again"}])

    with ChatServer(lambda body: "ok", faults={2: "slow"}, slow_seconds=1.5) as server:
        client = ChatClient(_endpoint(server, timeout=0.3))
        _, res = asyncio.run(two(client))
    assert res.text == "ok"
    assert client.stats.retries == 1


def test_retries_are_exhausted_then_call_fails():
    with ChatServer(lambda body: "ok", faults={1: "500", 2: "500", 3: "500"}) as server:
        client = ChatClient(_endpoint(server, max_retries=2))
        with pytest.raises(CallFailedError, match="HTTP 500 after 3 attempts"):
            asyncio.run(_ask(client))
    assert server.received == 3
    assert client.stats.failed == 1


def test_wrong_key_stops_at_once_without_leaking_the_key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-wrong-secret-value")
    with ChatServer(lambda body: "ok") as server:
        client = ChatClient(_endpoint(server))
        with pytest.raises(EndpointError, match=rf"HTTP 401: .*\${KEY_ENV}") as info:
            asyncio.run(_ask(client))
    assert server.received == 1
    assert "sk-wrong-secret-value" not in str(info.value)
    assert info.value.status == 401


def test_wrong_model_stops_at_once():
    with ChatServer(lambda body: "ok") as server:
        client = ChatClient(_endpoint(server, model="no-such-model"))
        with pytest.raises(EndpointError, match="HTTP 404: model 'no-such-model'"):
            asyncio.run(_ask(client))
    assert server.received == 1


def test_missing_key_variable_is_a_clear_error(monkeypatch):
    monkeypatch.delenv(KEY_ENV)
    with ChatServer(lambda body: "ok") as server:
        client = ChatClient(_endpoint(server))
        with pytest.raises(InputError, match=f"environment variable {KEY_ENV}"):
            asyncio.run(_ask(client))
    assert server.received == 0


def test_no_key_variable_sends_no_authorization():
    with ChatServer(lambda body: "ok", api_key=None) as server:
        client = ChatClient(Endpoint(server.base_url, MODEL, api_key_env=None))
        (res,) = asyncio.run(_ask(client))
    assert res.text == "ok"


@pytest.mark.first_case_by_default
@pytest.mark.parametrize("concurrency", [1, 4])
def test_concurrency_limit_is_respected(concurrency):
    with ChatServer(lambda body: "ok", latency=0.05) as server:
        client = ChatClient(_endpoint(server, concurrency=concurrency))
        msgs = [[{"role": "user", "content": f"q{i}"}] for i in range(12)]

        async def run():
            async with client:
                return await asyncio.gather(*(client.chat(m) for m in msgs))

        asyncio.run(run())
    assert server.max_active == concurrency


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"base_url": "localhost:8000"}, "must start with http"),
        (
            {"base_url": "http://h/v1?q=1"},
            r"has a query \(\?\.\.\.\): give the path only, e\.g\. http://h/v1$",
        ),
        ({"base_url": "http://h/v1?"}, r"has a query"),
        ({"base_url": "https://h/v1#frag"}, r"has a fragment \(#\.\.\.\)"),
        ({"base_url": "http:///v1"}, "has no host"),
        ({"base_url": "http://h:port/v1"}, "is not a valid URL"),
        ({"base_url": "http://h/v1\n/x"}, "contains blanks or control characters"),
        ({"base_url": "file:///etc"}, "must start with http:// or https://"),
        ({"max_reply_bytes": 0}, "max_reply_bytes must be at least 1"),
        ({"concurrency": 0}, "concurrency must be at least 1"),
        ({"timeout": 0}, "timeout must be positive"),
    ],
)
def test_bad_endpoint_settings(kwargs, message):
    args = {"base_url": "http://127.0.0.1:1/v1", "model": "m", **kwargs}
    with pytest.raises(InputError, match=message):
        Endpoint(**args)


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8000/v1", "https://api.example.com/v1/", "HTTPS://h", "http://[::1]:80"],
)
def test_good_base_urls_are_accepted(url):
    assert Endpoint(url, "m").url == url.rstrip("/") + "/chat/completions"


def test_bad_base_url_is_one_line_in_the_cli_before_any_request():
    from pathlib import Path

    from click.testing import CliRunner

    from rrmap.cli import main

    example = Path(__file__).resolve().parents[2] / "data" / "judge_example"
    with ChatServer() as server:
        r = CliRunner().invoke(main, ["judge", "interpret", str(example / "interpretations.csv"),
                                      "--model", MODEL, "--base-url", server.base_url + "?q=1"])  # fmt: skip
        assert server.received == 0
    assert r.exit_code == 1
    assert r.stderr.startswith("Error: endpoint: base URL ") and "has a query" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_endpoint_repr_names_the_variable_not_the_key():
    ep = Endpoint("http://127.0.0.1:1/v1", "m", api_key_env=KEY_ENV)
    assert KEY_ENV in repr(ep)
    assert API_KEY not in repr(ep)


def test_wrong_model_costs_one_request_even_with_many_calls_queued():
    with ChatServer(lambda body: "ok") as server:
        client = ChatClient(_endpoint(server, model="no-such-model", concurrency=8))
        msgs = [[{"role": "user", "content": f"q{i}"}] for i in range(10)]

        async def run():
            async with client:
                return await asyncio.gather(*(client.chat(m) for m in msgs), return_exceptions=True)

        outcomes = asyncio.run(run())
    assert server.received == 1
    assert all(isinstance(o, EndpointError) for o in outcomes)


def test_missing_http_library_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "httpx", None)  # as if rrmap[judge] were not installed
    client = ChatClient(Endpoint("http://127.0.0.1:9/v1", MODEL, api_key_env=None))

    async def enter():
        async with client:
            pass

    with pytest.raises(
        InputError, match=r"needs httpx, which is not installed: pip install 'rrmap\[judge\]'"
    ):
        asyncio.run(enter())


# --- replies larger than max_reply_bytes ---------------------------------------------------


@pytest.mark.parametrize("encoding", [None, "gzip", "deflate", "raw-deflate"])
def test_reply_within_the_cap_is_read_whatever_its_encoding(encoding):
    with ChatServer(lambda body: "y" * 5_000, encoding=encoding) as server:
        client = ChatClient(_endpoint(server, max_reply_bytes=6_000))
        (res,) = asyncio.run(_ask(client))
    assert res.text == "y" * 5_000


@pytest.mark.parametrize("encoding", [None, "gzip", "deflate", "raw-deflate"])
def test_reply_over_the_cap_fails_its_call_once(encoding):
    with ChatServer(lambda body: "y" * 7_000, encoding=encoding) as server:
        client = ChatClient(_endpoint(server, max_reply_bytes=6_000, max_retries=3))
        with pytest.raises(CallFailedError, match=r"the reply is larger than 6,000 bytes"):
            asyncio.run(_ask(client))
    assert server.received == 1  # not retried: the same request would get the same reply
    assert client.stats.failed == 1 and client.stats.calls == 0


def test_reply_in_an_encoding_not_asked_for_is_not_read():
    with ChatServer(lambda body: "ok", encoding="br") as server:
        client = ChatClient(_endpoint(server, max_retries=1))
        with pytest.raises(CallFailedError, match="not a chat completion after 2 attempts"):
            asyncio.run(_ask(client))
    assert server.received == 2


_MEASURE = """
import asyncio, resource, sys
from rrmap.judge.transport.client import CallFailedError, ChatClient, Endpoint

def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

async def main():
    client = ChatClient(Endpoint(sys.argv[1], sys.argv[2], api_key_env=None))
    async with client:
        await client.chat([{"role": "user", "content": "small"}])
        before = rss_mb()
        try:
            await client.chat([{"role": "user", "content": "big"}])
            print("read", rss_mb() - before)
        except CallFailedError as exc:
            print("failed", rss_mb() - before, exc)

asyncio.run(main())
"""


@pytest.mark.first_case_by_default
@pytest.mark.parametrize("encoding", [None, "gzip"])
def test_a_huge_reply_is_never_held_in_memory(encoding):
    import subprocess

    huge = "x" * 60_000_000  # 60 MB; gzip makes it about 60 kB on the wire

    def answer(body):
        return huge if body["messages"][0]["content"] == "big" else "small"

    with ChatServer(answer, api_key=None, encoding=encoding) as server:
        out = subprocess.run(
            [sys.executable, "-c", _MEASURE, server.base_url, MODEL],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert out.returncode == 0, out.stderr
    what, grown, *message = out.stdout.split(maxsplit=2)
    assert what == "failed", out.stdout
    assert "larger than 4,194,304 bytes" in message[0]
    assert float(grown) < 30, f"the client grew by {grown} MB reading a refused reply"
