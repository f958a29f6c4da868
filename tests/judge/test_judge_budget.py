"""A paid budget: fail fast, say the truth in the exit code, never pay twice, stop in budget.

Every test talks to a real HTTP server on 127.0.0.1 (tests/judge/chat_server.py) or
to a port where nothing listens; no client function is patched.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from chat_server import API_KEY, MODEL, ChatServer, recorded_answer
from click.testing import CliRunner
from test_judge_pairwise import _pairs

from rrmap.cli import main
from rrmap.errors import InputError
from rrmap.judge.tasks.pairwise import judge_pairs
from rrmap.judge.transport.budget import Budget, Prices
from rrmap.judge.transport.client import ChatClient, Endpoint, EndpointError

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "judge_example"
KEY_ENV = "RRMAP_TEST_JUDGE_KEY"
N_PAIRS = 12  # in data/judge_example/PAIRS.csv


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again: nothing listens there


def _backend(base_url: str, *extra: str) -> list[str]:
    return ["--base-url", base_url, "--model", MODEL, "--api-key-env", KEY_ENV, "--quiet",
            *extra]  # fmt: skip


def _run(args: list[str]):
    return CliRunner(env={KEY_ENV: API_KEY}).invoke(main, args)


def _2afc(base_url: str, tmp_path: Path, *extra: str):
    return _run(["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "--mode", "base",
                 "--cache", str(tmp_path / "cache"), *_backend(base_url, *extra)])  # fmt: skip


# --- fail fast, and say the truth in the exit code ------------------------------------------


@pytest.mark.first_case_by_default
@pytest.mark.parametrize(
    "base_url",
    [lambda: f"http://127.0.0.1:{_free_port()}/v1", lambda: "http://rrmap-no-such-host.invalid/v1"],
    ids=["connection refused", "unknown host"],
)
def test_an_unreachable_endpoint_stops_the_run_at_once(base_url, tmp_path):
    url = base_url()
    client = ChatClient(Endpoint(url, MODEL, api_key_env=None, max_retries=6, backoff=5))
    with pytest.raises(EndpointError, match=r"cannot reach .* check --base-url"):
        judge_pairs(_pairs(n=4), client, mode="base")
    # the first request tried twice and three times at most; nothing else was attempted
    assert client.stats.requests <= 3 and client.stats.failed == 0
    r = _2afc(url, tmp_path)
    assert r.exit_code == 1
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("Error: cannot reach")


def test_a_run_where_no_call_succeeds_exits_1_and_a_partial_run_exits_0(tmp_path):
    every = {i: "500" for i in range(1, 100)}
    with ChatServer(faults=every) as server:
        none = _2afc(server.base_url, tmp_path, "--max-retries", "0")
        assert server.received == 5  # the breaker: the first 5 attempts all failed
    assert none.exit_code == 1
    assert "stopped: the first 5 attempts all failed; the last: HTTP 500" in none.stderr
    some = {i: "500" for i in (1, 2, 3)}  # three calls fail (no retry), the others answer
    with ChatServer(faults=some) as server:
        part = _2afc(server.base_url, tmp_path / "b", "--max-retries", "0", "--per-order",
                     str(tmp_path / "po.csv"))  # fmt: skip
    assert part.exit_code == 0, part.output
    assert f"3 call(s) failed after their retries; recorded in {tmp_path / 'po.csv'}" in (
        part.stderr
    )
    po = pd.read_csv(tmp_path / "po.csv")
    assert (po["error"].fillna("").str.startswith("call failed")).sum() == 3


def test_an_unwritable_cache_is_refused_before_any_call(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with ChatServer() as server:
        r = _run(["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "--cache", str(blocker / "cache"),
                  *_backend(server.base_url)])  # fmt: skip
        assert server.received == 0
    assert r.exit_code == 1
    assert r.stderr.startswith(f"Error: cache directory {blocker / 'cache'} cannot be written")
    assert r.stderr.count("\n") == 1


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_cache_folder_is_refused(tmp_path):  # pragma: no cover - not root
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    with pytest.raises(InputError, match="cannot be written"):
        ChatClient(Endpoint("http://127.0.0.1:9/v1", MODEL), cache=ro / "cache")


def test_a_long_retry_after_is_announced(tmp_path):
    said: list[str] = []
    with ChatServer(faults={2: "429"}, retry_after=0.3) as server:
        client = ChatClient(
            Endpoint(server.base_url, MODEL, api_key_env=None),
            notify=said.append,
            announce_after=0.2,
        )
        server.api_key = None
        judge_pairs(_pairs(n=2), client, mode="base", orders="ab")
    assert said == [f"{MODEL}: HTTP 429; waiting 0 s (Retry-After) before attempt 2 of 7"]


def test_rate_records_a_call_that_failed_and_goes_on(tmp_path, corpora_file):
    from rating_model import interval_model

    every_third = {i: "500" for i in range(3, 400, 3)}
    with ChatServer(interval_model, faults=every_third) as server:
        r = CliRunner(env={KEY_ENV: API_KEY}).invoke(
            main,
            ["judge", "rate", "--corpus", str(corpora_file), "-o", str(tmp_path / "m.csv"),
             "--cache", str(tmp_path / "c"), "--max-retries", "0",
             *_backend(server.base_url)],
        )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "Traceback" not in r.output
    failures = pd.read_csv(tmp_path / "m.failures.csv")
    # calls that failed sit beside the sheets the model answered invalidly (a criterion it fumbles)
    assert failures["problems"].str.startswith("call failed").sum() >= 10
    assert f"call(s) failed after their retries; recorded in {tmp_path / 'm.failures.csv'}" in (
        r.stderr
    )


# --- never pay twice -------------------------------------------------------------------------


def test_identical_requests_in_one_run_are_sent_once():
    pairs = _pairs(n=3)
    twice = pd.concat([pairs, pairs], ignore_index=True)  # every pair listed twice
    with ChatServer() as server:
        client = ChatClient(Endpoint(server.base_url, MODEL, api_key_env=None, concurrency=8))
        server.api_key = None
        res = judge_pairs(twice, client, mode="artcot")
    assert len(server.answered) == 3 * 2 * 3
    assert client.stats.paid == 18 and client.stats.shared == 18
    assert res.per_order["valid"].all() and len(res.per_order) == 12


def test_identical_requests_after_the_first_answer_are_not_paid_again_without_a_cache():
    """One judgement at a time: the repeats come after the first is answered, not while
    it is in flight, and no cache is given; the run's memory answers them."""
    pairs = _pairs(n=5)
    thrice = pd.concat([pairs, pairs, pairs], ignore_index=True)
    with ChatServer(api_key=None) as server:
        client = ChatClient(Endpoint(server.base_url, MODEL, api_key_env=None))
        res = judge_pairs(thrice, client, mode="base", in_flight=1)
    assert len(server.answered) == 5 * 2  # 10 unique requests of 30
    assert (client.stats.paid, client.stats.shared, client.stats.cache_hits) == (10, 20, 0)
    assert res.per_order["valid"].all() and len(res.per_order) == 30


@pytest.mark.slow
def test_two_processes_sharing_a_cache_pay_once(tmp_path):
    with ChatServer(latency=0.3) as server:
        cmd = [sys.executable, "-m", "rrmap.cli", "judge", "2afc", str(EXAMPLE / "PAIRS.csv"),
               "--mode", "base", "--cache", str(tmp_path / "shared"), "--concurrency", "4",
               *_backend(server.base_url)]  # fmt: skip
        env = {**os.environ, KEY_ENV: API_KEY}
        procs = [
            subprocess.Popen([*cmd, "-o", str(tmp_path / f"out{i}.csv")], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for i in range(2)
        ]  # fmt: skip
        outs = [p.communicate(timeout=120) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], outs
        bodies = [json.dumps(b, sort_keys=True) for b in server.answered]
    assert len(bodies) == len(set(bodies)) == N_PAIRS * 2  # each request paid for once
    paid = sum(int(err.split("paid calls ")[1].split()[0]) for _, err in outs)
    assert paid == N_PAIRS * 2
    a, b = (pd.read_csv(tmp_path / f"out{i}.csv") for i in range(2))
    assert a["winner"].tolist() == b["winner"].tolist()


def test_cache_hits_are_not_spent_tokens(tmp_path):
    with ChatServer() as server:
        first = _2afc(server.base_url, tmp_path)
        again = _2afc(server.base_url, tmp_path)
    paid_line = next(ln for ln in first.stderr.splitlines() if ln.startswith("paid calls"))
    assert paid_line.startswith("paid calls 24 (tokens ") and "cached 0" in paid_line
    assert "paid calls 0 (tokens 0 in / 0 out), cached 24" in again.stderr


# --- a budget ----------------------------------------------------------------------------------


def test_max_calls_stops_cleanly_and_a_rerun_goes_on(tmp_path):
    """A base judgement reserves its call and its format re-ask: 10 calls buy 9 of them."""
    out = tmp_path / "out.csv"
    with ChatServer() as server:
        r = _2afc(server.base_url, tmp_path, "--max-calls", "10", "-o", str(out))
        assert len(server.answered) == 9  # a 10th judgement could need 11 calls
        assert r.exit_code == 0, r.output
        assert "15 call(s) not sent: the budget was reached" in r.stderr
        assert "budget: 9 paid call(s) of --max-calls 10" in r.stderr
        assert out.exists()  # everything answered so far is kept
        dry = _2afc(server.base_url, tmp_path, "--dry-run")
        assert (
            "the run needs 39 call(s) at most: 9 cached, 15 to send and up to 15 format "
            "re-ask(s)" in dry.stderr
        )
        assert len(server.answered) == 9  # the dry run sent nothing
        rest = _2afc(server.base_url, tmp_path, "-o", str(out), "--force")
        assert len(server.answered) == 24
    assert "paid calls 15" in rest.stderr and "cached 9" in rest.stderr


def test_max_cost_never_passes_the_budget(tmp_path):
    prices = ["--price-in", "2.5", "--price-out", "10"]
    with ChatServer() as server:
        r = _2afc(server.base_url, tmp_path, "--max-cost", "0.05", *prices)
        n = len(server.answered)
        usage = [json.loads(json.dumps(b)) for b in server.answered]
    assert r.exit_code == 0, r.output
    spent = float(r.stderr.split("budget: ")[1].split("$")[1].split()[0])
    assert 0 < spent <= 0.05 and 0 < n < 24
    assert f"{24 - n} call(s) not sent: the budget was reached" in r.stderr
    # the spent cost is what the endpoint reported, at the given prices
    p = Prices(2.5, 10)
    tokens = [
        (len(json.dumps(b["messages"])) // 40 + 85, len('{"winner": 1}'.split())) for b in usage
    ]
    assert spent == pytest.approx(sum(p.cost(i, 1) for i, _ in tokens), rel=0.2)


def test_budget_reservations_and_prices():
    b = Budget(max_cost=1.0, prices=Prices(1_000_000.0, 0.0))
    body = {"messages": [{"role": "user", "content": "x" * 3}]}  # about 5 prompt tokens
    with pytest.raises(Exception, match=r"over the limit --max-cost 1"):
        b.reserve(body, max_tokens=1)
    with pytest.raises(InputError, match="max_cost needs prices"):
        Budget(max_cost=1.0)
    assert Prices(2.0, 8.0).cost(500_000, 250_000, batch=True) == pytest.approx(1.5)


# --- where results come from ---------------------------------------------------------------------


def test_outputs_record_their_provenance(tmp_path):
    out = tmp_path / "model.csv"
    with ChatServer(api_key=None) as server:
        url = server.base_url.replace("http://", "http://user:secret@")  # credentials in the URL
        r = _run(["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "--mode", "base", "--cache",
                  str(tmp_path / "cache"), "--base-url", url, "--model", MODEL, "--quiet",
                  "-o", str(out), "--seed", "7", "--max-side", "128"])  # fmt: skip
        assert r.exit_code == 0, r.output
        mcq = tmp_path / "acc.csv"
        m = _run(["judge", "mcq", str(EXAMPLE / "questions.jsonl"), "-o", str(mcq), "--cache",
                  str(tmp_path / "cache"), *_backend(server.base_url)])  # fmt: skip
        assert m.exit_code == 0, m.output
    record = json.loads((tmp_path / "model.csv.json").read_text())
    assert record["base_url"] == server.base_url and "secret" not in json.dumps(record)
    assert (record["model"], record["seed"], record["image_max_side"]) == (MODEL, 7, 128)
    assert record["prompts"]["name"] == "default" and len(record["prompts"]["sha256"]) == 64
    assert record["calls"]["paid"] == 24 and record["calls"]["cache_hits"] == 0
    assert {"temperature", "max_tokens", "rrmap_version", "date", "mode"} <= set(record)
    assert json.loads((tmp_path / "acc.csv.json").read_text())["command"] == "rrmap judge mcq"


@pytest.mark.first_case_by_default
@pytest.mark.parametrize("batch", [False, True], ids=["call by call", "batch jobs"])
def test_a_budget_buys_whole_artcot_conversations(tmp_path, batch):
    """30 calls buy 9 complete three-turn judgements (each with room for its format re-ask),
    not 24 first turns."""
    po = tmp_path / "po.csv"
    extra = ["--batch", "--poll-interval", "0.01"] if batch else []
    with ChatServer() as server:
        r = _run(["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "--mode", "artcot", "--cache",
                  str(tmp_path / "cache"), "--max-calls", "30", "--per-order", str(po),
                  *_backend(server.base_url, *extra)])  # fmt: skip
        answered = server.batch_lines if batch else len(server.answered)
    assert r.exit_code == 0, r.output
    assert answered == 27  # a 10th judgement could need 4 more calls
    turns = pd.read_csv(po)["answers"].map(
        lambda a: sum(t["text"] is not None for t in json.loads(a))
    )
    assert turns.value_counts().to_dict() == {3: 9, 0: 15}  # no conversation half-bought
    assert "15 call(s) not sent: the budget was reached" in r.stderr


def test_a_cost_budget_reserves_a_conversations_worst_case():
    from rrmap.judge.transport.budget import Budget

    b = Budget(max_cost=2.0, prices=Prices(1000.0, 1000.0))  # $0.001 a token
    body = {"messages": [{"role": "user", "content": "x" * 30}]}  # "user" + 30: 12 + 4 tokens
    r = b.reserve(body, max_tokens=100, turns=3)
    # turn t: prompt 16 + (400 + 100) t tokens (the turn's text and the earlier replies), reply
    # 100 tokens: (16 + 100) + (516 + 100) + (1016 + 100)
    assert r.cost == pytest.approx((116 + 616 + 1116) * 1e-3)
    assert r.calls == 3 and b.reserved_calls == 3
    b.use(r, prompt_tokens=20, completion_tokens=5, body=body)
    assert (r.calls, b.calls, b.reserved_calls) == (2, 1, 2)
    assert b.cost == pytest.approx(25e-3)
    b.release(r)
    assert (b.reserved_calls, b.reserved_cost) == (0, pytest.approx(0.0))


# --- spent up to the limit, never past it ------------------------------------------------------


def _spent(stderr: str) -> float:
    return float(stderr.split("budget: ")[1].split("$")[1].split()[0])


@pytest.mark.first_case_by_default
@pytest.mark.parametrize(
    ("factor", "limit"),
    [(0.2, 0.04), (1.0, 0.12), (5.0, 0.4)],
    ids=["server reports 5x fewer tokens", "as expected", "server reports 5x more tokens"],
)
def test_a_cost_budget_is_spent_up_to_its_limit_and_never_past_it(tmp_path, factor, limit):
    """More work than budget: the run waits for calls in flight, then stops only when the
    rest cannot buy one more whole judgement (three turns and a re-ask)."""
    prices = ["--price-in", "2.5", "--price-out", "10"]
    with ChatServer(token_factor=factor) as server:
        r = _run(["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "--mode", "artcot",
                  "--max-tokens", "100", "--max-cost", str(limit), *prices,
                  *_backend(server.base_url)])  # fmt: skip
        sent = list(server.answered)
    assert r.exit_code == 0, r.output
    spent = _spent(r.stderr)
    # what the server reported, at the given prices (replies: one token a word)
    reported = sum(
        Prices(2.5, 10).cost(
            int((len(json.dumps(b["messages"])) // 40 + 85) * factor),
            len(recorded_answer(b).split()),
        )
        for b in sent
    )
    assert spent == pytest.approx(reported, abs=1e-4)
    assert 0.75 * limit <= spent <= limit  # never past; at least three quarters
    assert len(sent) % 3 == 0 and len(sent) < 72  # whole judgements, and work was left
    # the first call of each judgement that did not start was not sent
    assert f"{24 - len(sent) // 3} call(s) not sent: the budget was reached" in r.stderr
    print(f"token factor {factor}: spent ${spent:.4f} of ${limit} ({spent / limit:.0%})")


def test_re_asks_are_bought_with_their_judgement(tmp_path):
    """Every final answer needs its format re-ask: 48 calls buy 12 whole judgements."""
    pairs = _pairs(styles=("UNREADABLE ink",), n=12)
    with ChatServer(api_key=None) as server:
        client = ChatClient(
            Endpoint(server.base_url, MODEL, api_key_env=None), budget=Budget(max_calls=48)
        )
        res = judge_pairs(pairs, client, mode="artcot")
    assert len(server.answered) == 48
    assert int(res.per_order["valid"].sum()) == 12
    assert client.stats.not_sent == 12  # the judgements that did not start


def test_a_dry_run_counts_re_asks_and_prices_the_worst_case(tmp_path):
    prices = ["--price-in", "2.5", "--price-out", "10"]
    with ChatServer() as server:
        r = _2afc(server.base_url, tmp_path, "--dry-run", "--mode", "artcot", "--max-tokens",
                  "100", *prices)  # fmt: skip
        assert server.received == 0
    assert r.exit_code == 0, r.output
    assert (
        "the run needs 96 call(s) at most: 0 cached, 72 to send and up to 24 format re-ask(s)"
        in r.stderr
    )
    worst = float(r.stderr.split("cost at most $")[1].split()[0])
    # every call of the run's whole worst case, more than one judgement's turns
    b = Budget(prices=Prices(2.5, 10))
    one = b.worst_case({"messages": []}, max_tokens=100, turns=4)
    assert worst > 24 * one
    assert "(every reply 100 tokens" in r.stderr
