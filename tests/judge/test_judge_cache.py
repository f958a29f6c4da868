"""rrmap.judge.transport.cache: keys, atomic records, and resuming after a killed run."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from chat_server import API_KEY, MODEL, ChatServer

from rrmap.judge.prompting.images import data_url, image_part
from rrmap.judge.transport.cache import (
    CacheWarning,
    ResponseCache,
    cache_key,
    hash_images,
    read_regular,
    record_checksum,
)
from rrmap.judge.transport.client import ChatClient, Endpoint

KEY_ENV = "RRMAP_TEST_JUDGE_KEY"


def _img_msg(color: str) -> list[dict]:
    from PIL import Image

    url = data_url(Image.new("RGB", (4, 4), color))
    return [{"role": "user", "content": [image_part(url), {"type": "text", "text": "rate"}]}]


def test_key_depends_on_image_content_model_and_params():
    red, blue = _img_msg("red"), _img_msg("blue")
    base = {"model": "m", "messages": red, "temperature": 0.0}
    assert cache_key(base) == cache_key({**base, "messages": _img_msg("red")})
    assert cache_key(base) != cache_key({**base, "messages": blue})
    assert cache_key(base) != cache_key({**base, "model": "n"})
    assert cache_key(base) != cache_key({**base, "temperature": 0.7})


def test_hashed_messages_hold_no_image_bytes():
    msgs = _img_msg("red")
    url = msgs[0]["content"][0]["image_url"]["url"]
    hashed = hash_images(msgs)
    import hashlib

    assert hashed[0]["content"][0]["image_url"]["url"] == (
        "sha256:" + hashlib.sha256(url.encode()).hexdigest()
    )
    assert msgs[0]["content"][0]["image_url"]["url"] == url  # input untouched


def test_leftover_temp_file_and_damaged_record_read_as_missing(tmp_path):
    cache = ResponseCache(tmp_path)
    key = "ab" * 32
    (tmp_path / "ab").mkdir()
    (tmp_path / "ab" / f".{key}.123.deadbeef.tmp").write_text('{"key": "ab')  # torn write
    assert cache.get(key) is None and len(cache) == 0
    (tmp_path / "ab" / f"{key}.json").write_text('{"key": "abab')  # damaged by hand
    with pytest.warns(CacheWarning, match=f"{key}.json: cut short or not JSON"):
        assert cache.get(key) is None
    assert cache.unreadable == 1
    cache.put(key, {"model": "m", "messages": []}, {"text": "fine"})
    assert cache.get(key)["text"] == "fine"


def test_second_run_is_served_from_cache_and_key_is_never_stored(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, API_KEY)
    msgs = [_img_msg(c) for c in ("red", "green", "blue")]

    async def run(client):
        async with client:
            return [r.text for r in await asyncio.gather(*(client.chat(m) for m in msgs))]

    with ChatServer(lambda body: "answer " + str(len(json.dumps(body)))) as server:
        ep = Endpoint(server.base_url, MODEL, api_key_env=KEY_ENV)
        first = asyncio.run(run(ChatClient(ep, cache=tmp_path)))
        second_client = ChatClient(ep, cache=tmp_path)
        second = asyncio.run(run(second_client))
    assert first == second
    assert server.received == 3
    assert second_client.stats.cache_hits == 3 and second_client.stats.requests == 0
    stored = "".join(p.read_text() for p in tmp_path.rglob("*.json"))
    assert API_KEY not in stored
    assert "base64," not in stored


def _write_pairs(folder: Path, n_pairs: int) -> Path:
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    rows = ["instance,style,source_image,candidate_a,image_a,candidate_b,image_b"]
    Image.new("RGB", (16, 16), (120, 120, 120)).save(folder / "src.png")
    for i in range(n_pairs):
        Image.new("RGB", (16, 16), (10 + 2 * i, 40, 40)).save(folder / f"a{i}.png")
        Image.new("RGB", (16, 16), (200 - 2 * i, 90, 90)).save(folder / f"b{i}.png")
        rows.append(f"p{i},flat colour,src.png,m_a,a{i}.png,m_b,b{i}.png")
    (folder / "PAIRS.csv").write_text("\n".join(rows) + "\n")
    return folder / "PAIRS.csv"


@pytest.mark.slow  # a killed process; the rerun served from the cache (above) stays in the first tier
def test_killed_run_resumes_without_repeating_completed_calls(tmp_path):
    pairs = _write_pairs(tmp_path / "data", 12)
    cache_dir = tmp_path / "cache"
    out = tmp_path / "out.csv"
    env = {**os.environ, KEY_ENV: API_KEY}
    with ChatServer(latency=0.05) as server:
        args = [
            sys.executable, "-c", "import sys; from rrmap.cli import main; sys.exit(main())",
            "judge", "2afc", str(pairs),
            "--base-url", server.base_url, "--model", MODEL, "--api-key-env", KEY_ENV,
            "--concurrency", "2", "--cache", str(cache_dir), "--mode", "artcot",
            "-o", str(out),
        ]  # fmt: skip
        proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(list(cache_dir.glob("??/*.json"))) < 20:
            if proc.poll() is not None:
                pytest.fail(proc.stderr.read().decode())
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert proc.returncode == -signal.SIGKILL
        assert not out.exists()
        done_before = set(ResponseCache(cache_dir).keys())
        assert 20 <= len(done_before) < 72  # killed mid-way
        while server.active:  # calls of the killed run still sleeping in the server
            time.sleep(0.01)
        first_run_answered = len(server.answered)
        server.latency = 0  # slow only to be killed mid-way: the rerun needs no wait

        from click.testing import CliRunner

        from rrmap.cli import main

        result = CliRunner(env={KEY_ENV: API_KEY}).invoke(main, args[3:])
        assert result.exit_code == 0, result.output
        resumed = [cache_key(b) for b in server.answered[first_run_answered:]]
    # no completed call is asked again; everything missing is asked exactly once
    assert not done_before & set(resumed)
    assert len(resumed) == len(set(resumed)) == 72 - len(done_before)
    cache = ResponseCache(cache_dir)
    assert len(cache) == 72 and all(cache.get(k) is not None for k in cache.keys())
    table = __import__("pandas").read_csv(out)
    assert len(table) == 12
    # brightness judge: b is brighter in every pair and wins in both orders
    assert (table["winner"] == "right").all()


@pytest.mark.parametrize("n", [1, 3])
def test_len_and_keys_count_complete_records(tmp_path, n):
    cache = ResponseCache(tmp_path)
    for i in range(n):
        cache.put(f"{i:064d}", {"model": "m", "messages": []}, {"text": str(i)})
    assert len(cache) == n
    assert cache.keys() == [f"{i:064d}" for i in range(n)]


# --- checksums: a record is trusted only when it is what was stored -----------------------

HI = [{"role": "user", "content": "hi"}]


def _ask_once(server: ChatServer, cache_dir: Path, messages=HI):
    client = ChatClient(Endpoint(server.base_url, MODEL, api_key_env=None), cache=cache_dir)

    async def ask():
        async with client:
            return await client.chat(messages)

    return asyncio.run(ask()), client


def _record_path(server: ChatServer, cache_dir: Path, messages=HI) -> Path:
    body = ChatClient(Endpoint(server.base_url, MODEL, api_key_env=None)).request_body(messages)
    key = cache_key(body)
    return cache_dir / key[:2] / f"{key}.json"


def test_record_carries_a_checksum_of_key_and_content(tmp_path):
    with ChatServer(lambda body: "stored answer", api_key=None) as server:
        _ask_once(server, tmp_path)
        path = _record_path(server, tmp_path)
    record = json.loads(path.read_text())
    assert record["checksum"] == record_checksum(record)
    assert record["key"] == path.stem and record["text"] == "stored answer"
    # the checksum covers the key and the answer
    assert record_checksum({**record, "text": "other"}) != record["checksum"]
    assert record_checksum({**record, "key": "0" * 64}) != record["checksum"]


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda r, raw: json.dumps({**r, "text": "EDITED"}), "checksum mismatch"),
        (lambda r, raw: raw[: len(raw) // 2], "cut short or not JSON"),
        (lambda r, raw: "", "empty"),
        (lambda r, raw: json.dumps({**r, "text": 5}), "not a cache record"),
        (lambda r, raw: '{"a":' * 100_000, "cut short or not JSON"),
    ],
)
def test_damaged_record_is_reported_and_fetched_again(tmp_path, damage, why):
    replies = iter(["first answer", "second answer"])
    with ChatServer(lambda body: next(replies), api_key=None) as server:
        _ask_once(server, tmp_path)
        path = _record_path(server, tmp_path)
        raw = path.read_text()
        path.write_text(damage(json.loads(raw), raw))
        with pytest.warns(CacheWarning, match=f"{path.name}: {why}") as caught:
            result, client = _ask_once(server, tmp_path)
        assert str(path) in str(caught[0].message)
        assert server.received == 2  # asked again, not read from the damaged record
        assert result.text == "second answer" and result.source != "cache"
        assert client.cache.unreadable == 1
        # the record is rewritten, sound: the next run reads it, silently
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("error", CacheWarning)
            again, _ = _ask_once(server, tmp_path)
        assert again.text == "second answer" and again.from_cache
        assert server.received == 2


def test_swapped_records_are_reported_and_fetched_again(tmp_path):
    other = [{"role": "user", "content": "bye"}]
    with ChatServer(lambda body: body["messages"][0]["content"] + "!", api_key=None) as server:
        _ask_once(server, tmp_path)
        _ask_once(server, tmp_path, other)
        a, b = _record_path(server, tmp_path), _record_path(server, tmp_path, other)
        text_a, text_b = a.read_text(), b.read_text()
        a.write_text(text_b)
        b.write_text(text_a)
        with pytest.warns(CacheWarning, match="another key"):
            first, _ = _ask_once(server, tmp_path)
        with pytest.warns(CacheWarning, match="another key"):
            second, _ = _ask_once(server, tmp_path, other)
        assert server.received == 4
    assert (first.text, second.text) == ("hi!", "bye!")


def test_record_without_checksum_is_accepted_and_upgraded(tmp_path):
    import warnings

    with ChatServer(lambda body: "old answer", api_key=None) as server:
        _ask_once(server, tmp_path)
        path = _record_path(server, tmp_path)
        record = json.loads(path.read_text())
        del record["checksum"]  # as an earlier version wrote it
        path.write_text(json.dumps(record))
        with warnings.catch_warnings():
            warnings.simplefilter("error", CacheWarning)
            result, client = _ask_once(server, tmp_path)
        assert result.text == "old answer" and result.from_cache
        assert server.received == 1 and client.cache.upgraded == 1
        upgraded = json.loads(path.read_text())
        assert upgraded["checksum"] == record_checksum(upgraded)
        # from now on an edit is caught
        path.write_text(json.dumps({**upgraded, "text": "edited"}))
        with pytest.warns(CacheWarning, match="checksum mismatch"):
            result, _ = _ask_once(server, tmp_path)
        assert result.text == "old answer" and server.received == 2


def test_legacy_record_of_another_key_is_not_accepted(tmp_path):
    with ChatServer(lambda body: "right", api_key=None) as server:
        path = _record_path(server, tmp_path)
        path.parent.mkdir(parents=True)
        path.write_text(json.dumps({"key": "0" * 64, "text": "wrong"}))
        with pytest.warns(CacheWarning, match="another key"):
            result, _ = _ask_once(server, tmp_path)
    assert result.text == "right" and server.received == 1


def test_fifo_in_the_cache_is_not_read_and_never_blocks(tmp_path):
    import threading

    with ChatServer(lambda body: "answer", api_key=None) as server:
        path = _record_path(server, tmp_path)
        path.parent.mkdir(parents=True)
        os.mkfifo(path)
        (tmp_path / "ff").mkdir()
        os.mkfifo(tmp_path / "ff" / f"{'f' * 64}.json")
        out: list = []

        def run():
            with pytest.warns(CacheWarning, match="not a regular file"):
                out.append(_ask_once(server, tmp_path)[0])

        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        worker.join(30)
        assert not worker.is_alive(), "reading the cache blocked on a FIFO"
    assert out[0].text == "answer" and server.received == 1
    assert path.is_file()  # replaced by the fetched record
    cache = ResponseCache(tmp_path)
    assert cache.keys() == [path.stem] and len(cache) == 1  # the other FIFO is no record


def test_read_regular_refuses_what_is_not_a_small_regular_file(tmp_path):
    (tmp_path / "f").write_bytes(b"x" * 100)
    assert read_regular(tmp_path / "f", limit=100) == b"x" * 100
    with pytest.raises(ValueError, match="100 bytes, more than the 99 allowed"):
        read_regular(tmp_path / "f", limit=99)
    with pytest.raises(ValueError, match="not a regular file"):
        read_regular(tmp_path)
    with pytest.raises(FileNotFoundError):
        read_regular(tmp_path / "missing")


def test_reply_with_a_lone_surrogate_is_stored_and_read_back(tmp_path):
    with ChatServer(lambda body: "odd \ud800 text", api_key=None) as server:
        first, _ = _ask_once(server, tmp_path)
        second, _ = _ask_once(server, tmp_path)
    assert first.text == second.text == "odd \ufffd text"  # half a character: replaced
    assert second.from_cache and server.received == 1


def test_record_holding_a_lone_surrogate_is_written_and_read(tmp_path):
    cache = ResponseCache(tmp_path)
    body = {"model": "m", "messages": [{"role": "user", "content": "\udc80"}]}
    cache.put(cache_key(body), body, {"text": "x \ud800"})
    record = cache.get(cache_key(body))
    assert record["text"] == "x \ud800" and record["messages"][0]["content"] == "\udc80"


def _cli(args: list[str]):
    from click.testing import CliRunner

    from rrmap.cli import main

    return CliRunner().invoke(main, args)


def test_cached_reply_nested_too_deeply_never_stops_a_rerun(tmp_path):
    pairs = _write_pairs(tmp_path / "data", 2)
    # 10 times the recursion limit: json, ast and literal_eval fail on it as on 100,000
    # levels, and the reply is scanned in a tenth of the time
    deep = '{"a":' * 10_000
    with ChatServer(lambda body: deep, api_key=None) as server:
        args = ["judge", "2afc", str(pairs), "--mode", "base", "--base-url", server.base_url,
                "--model", MODEL, "--cache", str(tmp_path / "cache"), "--quiet",
                "--per-order", str(tmp_path / "po.csv"), "--force"]  # fmt: skip
        first = _cli(args)
        sent = server.received
        again = _cli(args)
        assert server.received == sent == 8  # 2 pairs × 2 orders × (ask + one re-ask)
    for run in (first, again):
        # nothing readable: both runs end cleanly, with exit 1 and one line saying why
        assert run.exit_code == 1, run.output
        assert "excluded: p0 m_a vs m_b" in run.stderr
        assert run.stderr.splitlines()[-1].startswith("Error: no usable verdict: 8 answer(s)")
        assert "Traceback" not in run.output
    assert "cached 8" in again.stderr


def test_cli_reports_a_damaged_record_in_one_warning_line(tmp_path):
    pairs = _write_pairs(tmp_path / "data", 1)
    with ChatServer(api_key=None) as server:
        args = ["judge", "2afc", str(pairs), "--mode", "base", "--base-url", server.base_url,
                "--model", MODEL, "--cache", str(tmp_path / "cache"), "--quiet", "--force",
                "-o", str(tmp_path / "out.csv")]  # fmt: skip
        assert _cli(args).exit_code == 0
        record = sorted((tmp_path / "cache").glob("??/*.json"))[0]
        data = json.loads(record.read_text())
        record.write_text(json.dumps({**data, "text": '{"winner": 0}'}))
        again = _cli(args)
        assert server.received == 3  # only the edited call is made again
    assert again.exit_code == 0, again.output
    warning = [line for line in again.stderr.splitlines() if line.startswith("Warning:")]
    assert warning == [
        f"Warning: cache record {record}: checksum mismatch (edited or damaged); not used, "
        "the call is made again"
    ]
