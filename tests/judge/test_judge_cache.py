"""rrmap.judge.cache: keys, atomic records, and resuming after a killed run."""

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

from rrmap.judge.cache import ResponseCache, cache_key, hash_images
from rrmap.judge.client import ChatClient, Endpoint
from rrmap.judge.images import data_url, image_part

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
