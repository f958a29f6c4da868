"""Batch jobs (/files + /batches) against the local server: one batch per turn, restartable.

The server answers batch lines with the same recorded model as its chat
endpoint, so a batch run must give exactly the verdicts of an interactive run.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
from chat_server import API_KEY, MODEL, ChatServer, completion, recorded_answer
from click.testing import CliRunner

from rrmap.cli import main
from rrmap.judge.transport.batch import BatchJob
from rrmap.judge.transport.client import ChatClient, Endpoint

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "judge_example"
KEY_ENV = "RRMAP_TEST_JUDGE_KEY"
N_PAIRS = 12
WAITING = "batch: another process is sending some of these requests; waiting for its answers"


def _args(server: ChatServer, cache: Path, *extra: str) -> list[str]:
    return ["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "--cache", str(cache),
            "--base-url", server.base_url, "--model", MODEL, "--api-key-env", KEY_ENV,
            "--quiet", "--poll-interval", "0.01", *extra]  # fmt: skip


def _run(args: list[str]):
    return CliRunner(env={KEY_ENV: API_KEY}).invoke(main, args)


@pytest.fixture(scope="module")
def interactive(tmp_path_factory) -> pd.DataFrame:
    """The verdicts of an ordinary ArtCoT run, to compare the batch runs with."""
    out = tmp_path_factory.mktemp("interactive") / "out.csv"
    with ChatServer() as server:
        r = _run([*_args(server, out.parent / "cache"), "-o", str(out)])
        assert r.exit_code == 0, r.output
    return pd.read_csv(out)


def _states(cache: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((cache / "batches").glob("*.json"))]


def test_artcot_runs_as_one_batch_per_turn_and_gives_the_same_verdicts(tmp_path, interactive):
    out = tmp_path / "out.csv"
    with ChatServer() as server:
        r = _run([*_args(server, tmp_path / "cache", "--batch"), "-o", str(out)])
        assert r.exit_code == 0, r.output
        assert server.received == 0  # not one interactive call
        assert len(server.batches) == 3 and server.uploads == 3
        totals = [b["request_counts"]["total"] for b in server.batches.values()]
        assert totals == [N_PAIRS * 2] * 3  # analyser, critic, summary
        again = _run(_args(server, tmp_path / "cache"))  # interactive: shares the cache
        assert server.received == 0 and again.exit_code == 0
    got = pd.read_csv(out)
    assert got[["instance", "left", "right", "winner"]].equals(
        interactive[["instance", "left", "right", "winner"]]
    )
    assert f"paid calls {N_PAIRS * 6} " in r.stderr and "through batch jobs" in r.stderr
    assert f"cached {N_PAIRS * 6}" in again.stderr
    record = json.loads((tmp_path / "out.csv.json").read_text())
    assert record["batch"] is True and record["calls"]["batched"] == N_PAIRS * 6
    assert [s["batch_status"] for s in _states(tmp_path / "cache")] == ["completed"] * 3


def test_a_batch_that_fails_part_of_its_requests(tmp_path):
    po = tmp_path / "po.csv"
    with ChatServer() as server:
        server.batch_mode = "partial"  # every third line of every job fails
        r = _run([*_args(server, tmp_path / "cache", "--batch", "--mode", "base"),
                  "--per-order", str(po)])  # fmt: skip
        assert len(server.batches) == 1  # failed requests are not resubmitted in the run
    assert r.exit_code == 0, r.output
    failed = pd.read_csv(po)["error"].fillna("").str.contains("batch: HTTP 500").sum()
    assert failed == 8  # lines 3, 6, …, 24 of 24
    assert "8 call(s) failed after their retries" in r.stderr
    with ChatServer() as server:  # a rerun (interactive) pays only for what failed
        again = _run([*_args(server, tmp_path / "cache", "--mode", "base")])
        assert len(server.answered) == 8 and again.exit_code == 0


def test_an_expired_batch_keeps_what_it_answered(tmp_path):
    with ChatServer() as server:
        server.batch_mode = "expire"
        r = _run([*_args(server, tmp_path / "cache", "--batch", "--mode", "base"),
                  "--per-order", str(tmp_path / "po.csv")])  # fmt: skip
    assert r.exit_code == 0, r.output
    po = pd.read_csv(tmp_path / "po.csv")
    assert po["valid"].sum() == 12
    assert (po["error"].fillna("").str.contains("batch job expired")).sum() == 12
    assert _states(tmp_path / "cache")[0]["batch_status"] == "expired"


def test_a_batch_that_fails_validation_is_a_run_without_answers(tmp_path):
    with ChatServer() as server:
        server.batch_mode = "fail"
        r = _run(_args(server, tmp_path / "cache", "--batch", "--mode", "base"))
    assert r.exit_code == 1
    assert "no call got an answer: 24 failed" in r.stderr


def _polled(server: ChatServer) -> bool:
    """Whether a run has looked at its batch job once (its state is kept by then)."""
    return any(b["status"] != "validating" for b in list(server.batches.values()))


@pytest.mark.slow
def test_a_run_killed_while_polling_finds_its_job_again(tmp_path, interactive):
    out = tmp_path / "out.csv"
    cache = tmp_path / "cache"
    with ChatServer() as server:
        server.batch_mode = "hold"
        cmd = [sys.executable, "-m", "rrmap.cli", *_args(server, cache, "--batch"), "-o", str(out)]
        proc = subprocess.Popen(cmd, env={**os.environ, KEY_ENV: API_KEY},
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
        deadline = time.monotonic() + 60
        while not _polled(server) and time.monotonic() < deadline:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)  # while it polls the held job
        proc.wait(timeout=30)
        assert len(server.batches) == 1
        state = _states(cache)[0]
        assert state["batch_id"] == "batch_1" and not state.get("read_back")
        server.batch_mode = "ok"
        server.release_batches()
        r = _run([*_args(server, cache, "--batch"), "-o", str(out)])
        assert r.exit_code == 0, r.output
        # the first turn's job was found again, not submitted twice
        assert len(server.batches) == 3 and server.uploads == 3
    assert "resuming batch job batch_1" in r.stderr
    assert pd.read_csv(out)["winner"].tolist() == interactive["winner"].tolist()


def test_a_run_stopped_after_the_upload_or_after_the_job_ended(tmp_path):
    """Steps already done are not done again: a file uploaded, a job already read back."""
    with ChatServer() as server:
        client = ChatClient(
            Endpoint(server.base_url, MODEL, api_key_env=KEY_ENV), cache=tmp_path / "c"
        )
        os.environ[KEY_ENV] = API_KEY
        body = client.request_body([{"role": "user", "content": "Step 1 of 3 hello"}])
        from rrmap.judge.transport.cache import cache_key

        job = BatchJob(client, {cache_key(body): body})
        job.state = {"keys": sorted(job.requests), "model": MODEL}
        job._keep_requests()
        job._save()
        # stopped after the upload: the state has the file, no job
        from rrmap.judge.transport.batch import _BatchHTTP

        http = _BatchHTTP(client)
        job._upload(http)
        http.close()
        uploads = server.uploads
        resumed = BatchJob.unfinished(client)
        assert [j.state.get("input_file_id") for j in resumed] == ["file-1"]
        report = resumed[0].run(poll_interval=0.01, progress=False)
        assert server.uploads == uploads and len(server.batches) == 1
        assert report.stored == [cache_key(body)]
        assert BatchJob.unfinished(client) == []  # read back: nothing to resume
        assert client.cache.get(cache_key(body))["source"] == "batch"
        # stopped after the job ended, before its answers were read back
        other = client.request_body([{"role": "user", "content": "Step 2 of 3 hello"}])
        job = BatchJob(client, {cache_key(other): other})
        job.state = {"keys": [cache_key(other)], "model": MODEL}
        job._keep_requests()
        http = _BatchHTTP(client)
        job._upload(http)
        job._submit(http)
        assert job._poll(http, 0.01, False)["status"] == "completed"
        http.close()
        batches = len(server.batches)
        (again,) = BatchJob.unfinished(client)
        assert again.run(poll_interval=0.01, progress=False).stored == [cache_key(other)]
        assert len(server.batches) == batches


def test_requests_file_and_results_file_round_trip(tmp_path, interactive):
    """--batch-file writes a turn's requests; their output read with --batch-results; repeat."""
    cache = tmp_path / "cache"
    out = tmp_path / "out.csv"
    with ChatServer() as server:
        for turn in range(3):
            reqs = tmp_path / f"turn{turn}.jsonl"
            extra = ["--batch-file", str(reqs)]
            if turn:
                extra += ["--batch-results", str(tmp_path / f"turn{turn - 1}.out.jsonl")]
            r = _run(_args(server, cache, *extra))
            assert r.exit_code == 0, r.output
            assert f"wrote the next batch of requests to {reqs}" in r.stderr
            lines = [json.loads(x) for x in reqs.read_text().splitlines()]
            assert len(lines) == N_PAIRS * 2 and lines[0]["url"] == "/v1/chat/completions"
            # what `vllm run-batch` writes: custom_id and response, no request body
            answers = [
                {"id": f"r{i}", "custom_id": x["custom_id"], "response": {"status_code": 200,
                 "body": completion(recorded_answer, x["body"], i)}, "error": None}
                for i, x in enumerate(lines)
            ]  # fmt: skip
            (tmp_path / f"turn{turn}.out.jsonl").write_text(
                "".join(json.dumps(a) + "\n" for a in answers)
            )
        last = ["--batch-results", str(tmp_path / "turn2.out.jsonl"), "-o", str(out)]
        r = _run(_args(server, cache, *last))
        assert r.exit_code == 0, r.output
        assert server.received == 0 and not server.batches
    assert f"read {tmp_path / 'turn2.out.jsonl'}: 24 answer(s) into the cache" in r.stderr
    assert pd.read_csv(out)["winner"].tolist() == interactive["winner"].tolist()


def test_batch_needs_a_cache_and_excludes_batch_file():
    with ChatServer() as server:
        no_cache = _run(["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "--batch",
                         "--base-url", server.base_url, "--model", MODEL])  # fmt: skip
    assert no_cache.exit_code == 2 and "need --cache DIR" in no_cache.stderr


@pytest.mark.first_case_by_default
@pytest.mark.parametrize("command", ["mcq", "interpret", "rate"])
def test_the_other_commands_run_as_batches_too(command, tmp_path, corpora_file):
    from rating_model import interval_model

    inputs = {
        "mcq": [str(EXAMPLE / "questions.jsonl")],
        "interpret": [str(EXAMPLE / "interpretations.csv")],
        "rate": ["--corpus", str(corpora_file)],
    }[command]
    common = ["--cache", str(tmp_path / "c"), "--base-url", None, "--model", MODEL,
              "--api-key-env", KEY_ENV, "--quiet", "--poll-interval", "0.01",
              "-o", str(tmp_path / "out.csv")]  # fmt: skip
    with ChatServer(interval_model if command == "rate" else recorded_answer) as server:
        common[3] = server.base_url
        batch = _run(["judge", command, *inputs, "--batch", *common])
        # the recorded model cannot grade interpretations: no usable score, exit 1
        status = 1 if command == "interpret" else 0
        assert batch.exit_code == status, batch.output
        assert server.received == 0 and len(server.batches) >= 1
        batched = pd.read_csv(tmp_path / "out.csv")
        common[1] = str(tmp_path / "c2")
        live = _run(["judge", command, *inputs, *common, "--force"])
        assert live.exit_code == status, live.output
    live_out = pd.read_csv(tmp_path / "out.csv")
    if command == "interpret":  # rows carry how they were paid for, and when
        assert set(batched["answer_source"]) == {"paid (batch)"}
        assert set(live_out["answer_source"]) == {"paid"}
        assert batched["prompt_hash"].tolist() == live_out["prompt_hash"].tolist()
        when = ["answer_source", "answered_at"]
        batched, live_out = batched.drop(columns=when), live_out.drop(columns=when)
    if command == "mcq":  # the accuracy row counts how its replies were paid for, and when
        assert batched[["n_paid", "n_paid_batch"]].values.tolist() == [[0, 4]]
        assert live_out[["n_paid", "n_paid_batch"]].values.tolist() == [[4, 0]]
        assert batched["prompts_sha256"].tolist() == live_out["prompts_sha256"].tolist()
        when = ["n_paid", "n_paid_batch", "first_answered_at", "last_answered_at"]
        batched, live_out = batched.drop(columns=when), live_out.drop(columns=when)
    pd.testing.assert_frame_equal(batched, live_out)


def test_a_budget_limits_what_a_batch_submits(tmp_path):
    """Each judgement reserves its call and its re-ask; room freed by a job serves the next."""
    prices = ["--price-in", "2", "--price-out", "8"]
    with ChatServer() as server:
        r = _run(_args(server, tmp_path / "cache", "--batch", "--mode", "base", "--max-calls",
                       "10", *prices))  # fmt: skip
        jobs = list(server.batches.values())
        answered = [json.loads(line)["body"] for job in jobs
                    for line in server.files[job["input_file_id"]].decode().splitlines()]  # fmt: skip
    assert r.exit_code == 0, r.output
    # 5 judgements fit with their re-asks; none needed one, so the next job buys 2 more, ...
    assert [job["request_counts"]["total"] for job in jobs] == [5, 2, 1, 1]
    assert "15 call(s) not sent: the budget was reached" in r.stderr
    # batch answers cost half: the prices' default batch discount
    from rrmap.judge.transport.budget import Prices

    p = Prices(2, 8)
    cost = sum(
        p.cost(len(json.dumps(b["messages"])) // 40 + 85, len(recorded_answer(b).split()), True)
        for b in answered
    )
    assert f"budget: 9 paid call(s) of --max-calls 10, ${cost:.4f}" in r.stderr


@pytest.mark.slow
def test_a_lost_answer_to_post_batches_never_creates_a_second_job(tmp_path):
    """The server creates the job but its answer is lost (HTTP 500): the retry lists the
    jobs first, finds this one by its metadata, and submits nothing again."""
    with ChatServer() as server:
        server.lose_batch_answers = 1
        r = _run(_args(server, tmp_path / "cache", "--batch", "--mode", "base"))
        jobs = list(server.batches.values())
    assert r.exit_code == 0, r.output
    assert len(jobs) == 1 and jobs[0]["metadata"]["created_by"] == "rrmap"
    assert server.batch_lines == 24  # each request answered (and paid) once
    assert "paid calls 24" in r.stderr


@pytest.mark.slow  # concurrent runs; one run resuming its job stays in the first tier (above)
@pytest.mark.parametrize("second", ["at once", "once the first saved its job"])
def test_two_batch_runs_on_one_cache_pay_for_every_request_once(tmp_path, second):
    """The second run waits on the cache locks the first holds while its job runs, also
    when it finds the first one's job among the unfinished ones (it resumed it: the job
    would have been submitted twice)."""
    cache = tmp_path / "cache"
    with ChatServer() as server:
        server.batch_mode = "hold"
        procs = []
        for i in range(2):
            if i and second != "at once":
                deadline = time.monotonic() + 60
                while not list((cache / "batches").glob("*.json")):
                    assert time.monotonic() < deadline, "the first run saved no job"
                    time.sleep(0.05)
            cmd = [sys.executable, "-m", "rrmap.cli",
                   *_args(server, cache, "--batch", "--mode", "base"), "-o", str(tmp_path / f"{i}.csv")]  # fmt: skip
            procs.append(subprocess.Popen(cmd, env={**os.environ, KEY_ENV: API_KEY},
                                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))  # fmt: skip
        said: list[list[str]] = [[], []]
        waiting = threading.Event()

        def read(i: int) -> None:
            for line in procs[i].stderr:
                said[i].append(line.decode())
                if WAITING in said[i][-1]:
                    waiting.set()

        readers = [threading.Thread(target=read, args=(i,), daemon=True) for i in range(2)]
        for reader in readers:
            reader.start()
        # one run holds the locks of the requests while its job runs; the other waits
        assert waiting.wait(60), said
        server.batch_mode = "ok"
        server.release_batches()
        codes = [p.wait(timeout=120) for p in procs]
        for reader in readers:
            reader.join(10)
        assert codes == [0, 0], said
        assert [WAITING in "".join(lines) for lines in said].count(True) == 1
        assert len(server.batches) == 1 and server.batch_lines == 2 * N_PAIRS
        assert server.received == 0
    first, second = (pd.read_csv(tmp_path / f"{i}.csv") for i in range(2))
    assert first["winner"].tolist() == second["winner"].tolist() and len(first) == N_PAIRS


@pytest.mark.slow
def test_a_turn_over_the_file_limits_is_split_into_several_jobs(tmp_path, interactive):
    out = tmp_path / "out.csv"
    with ChatServer() as server:
        r = _run([*_args(server, tmp_path / "cache", "--batch", "--batch-max-lines", "10"),
                  "-o", str(out)])  # fmt: skip
        assert r.exit_code == 0, r.output
        files = [f for f in server.files.values() if b'"method"' in f]  # the inputs
        sizes = sorted(len(f.splitlines()) for f in files)
        # three turns of 24 requests, 10 lines per file at most: 10 + 10 + 4 each
        assert sizes == [4] * 3 + [10] * 6 and len(server.batches) == 9
        assert server.batch_lines == 72 and server.received == 0
        line_bytes = max(len(line) for f in files for line in f.splitlines(keepends=True))
        by_bytes = tmp_path / "by_bytes"
        limit = 3 * line_bytes  # at most three of the largest requests per file
        r = _run([*_args(server, by_bytes / "cache", "--batch", "--mode", "base",
                         "--batch-max-bytes", str(limit))])  # fmt: skip
        assert r.exit_code == 0, r.output
        new = [f for f in server.files.values() if b'"method"' in f][len(files) :]
        assert all(len(f) <= limit for f in new) and len(new) > 1
        for full, following in itertools.pairwise(new):  # each file full: the next did not fit
            assert len(full) + len(following.splitlines(keepends=True)[0]) > limit
        assert sum(len(f.splitlines()) for f in new) == 24
        too_small = _run([*_args(server, tmp_path / "c3", "--batch", "--mode", "base",
                                 "--batch-max-bytes", "1024")])  # fmt: skip
    assert pd.read_csv(out)["winner"].tolist() == interactive["winner"].tolist()
    assert too_small.exit_code == 1
    assert "more than the 1,024 bytes a batch input file may hold (--batch-max-bytes)" in (
        too_small.stderr
    )


def _vllm_output(requests: Path, out: Path) -> Path:
    """What `vllm run-batch -i REQUESTS -o OUT` writes: custom_id and response, no body."""
    lines = [json.loads(x) for x in requests.read_text().splitlines()]
    out.write_text("".join(
        json.dumps({"id": f"r{i}", "custom_id": x["custom_id"], "error": None, "response": {
            "status_code": 200, "body": completion(recorded_answer, x["body"], i)}}) + "\n"
        for i, x in enumerate(lines)))  # fmt: skip
    return out


def test_a_batch_file_over_the_limits_is_written_in_numbered_parts(tmp_path):
    cache, reqs, out = tmp_path / "cache", tmp_path / "turn1.jsonl", tmp_path / "out.csv"
    with ChatServer() as server:
        r = _run(_args(server, cache, "--mode", "base", "--batch-file", str(reqs),
                       "--batch-max-lines", "10"))  # fmt: skip
        assert r.exit_code == 0, r.output
        parts = [tmp_path / f"turn1.part{i}.jsonl" for i in (1, 2, 3)]
        assert sorted(tmp_path.glob("turn1*")) == parts and not reqs.exists()
        assert [len(p.read_text().splitlines()) for p in parts] == [10, 10, 4]
        assert "to 3 files (--batch-max-lines, --batch-max-bytes): " in r.stderr
        assert ", ".join(map(str, parts)) in r.stderr
        keys = [json.loads(x)["custom_id"] for p in parts for x in p.read_text().splitlines()]
        assert len(set(keys)) == 24  # every request once, in order, across the parts
        results = [_vllm_output(p, p.with_suffix(".out.jsonl")) for p in parts]
        flags = [x for p in results for x in ("--batch-results", str(p))]
        r = _run(_args(server, cache, "--mode", "base", *flags, "-o", str(out)))
        assert r.exit_code == 0, r.output
        assert server.received == 0 and not server.batches
    assert len(pd.read_csv(out)) == N_PAIRS


def test_a_batch_file_split_by_bytes_keeps_every_part_within_the_limit(tmp_path):
    one = tmp_path / "one" / "req.jsonl"
    with ChatServer() as server:
        missing = _run(_args(server, tmp_path / "c0", "--mode", "base", "--batch-file", str(one)))
        assert f"Error: {one}: no such file or folder" in missing.stderr  # the file named
        one.parent.mkdir()
        r = _run(_args(server, tmp_path / "c1", "--mode", "base", "--batch-file", str(one)))
        assert r.exit_code == 0, r.output
        largest = max(len(x) for x in one.read_bytes().splitlines(keepends=True))
        limit = 3 * largest
        split = tmp_path / "split" / "req.jsonl"
        split.parent.mkdir()
        r = _run(_args(server, tmp_path / "c2", "--mode", "base", "--batch-file", str(split),
                       "--batch-max-bytes", str(limit)))  # fmt: skip
        assert r.exit_code == 0, r.output
        too_small = _run(_args(server, tmp_path / "c3", "--mode", "base", "--batch-file",
                               str(tmp_path / "none.jsonl"), "--batch-max-bytes", "1024"))  # fmt: skip
    parts = sorted(split.parent.glob("req.part*.jsonl"))
    assert len(parts) > 1 and all(p.stat().st_size <= limit for p in parts)
    texts = [p.read_bytes() for p in parts]
    for full, following in itertools.pairwise(texts):  # each part full: the next did not fit
        assert len(full) + len(following.splitlines(keepends=True)[0]) > limit
    lines = b"".join(texts).splitlines()
    assert sorted(lines) == sorted(one.read_bytes().splitlines())  # the same requests, once
    assert too_small.exit_code == 1 and not list(tmp_path.glob("none*"))
    (error,) = [line for line in too_small.stderr.splitlines() if line.startswith("Error:")]
    assert "more than the 1,024 bytes a batch input file may hold (--batch-max-bytes)" in error


def test_batch_file_parts_are_written_all_or_nothing(tmp_path):
    """A write failing in the last part (the file size limit, as a full disk) changes no part."""
    script = tmp_path / "write.py"
    script.write_text(
        "import resource, sys\n"
        "from rrmap.judge.transport.batch_files import write_batch_files\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (4000, 4000))\n"
        "bodies = {f'k{i}': {'model': 'm', 'messages': [], 'pad': 'x' * (i * 1000)}"
        " for i in range(5)}\n"
        "write_batch_files(sys.argv[1], bodies, 'http://h/v1', max_bytes=8000)\n"
    )
    target = tmp_path / "req.jsonl"
    old = {tmp_path / f"req.part{i}.jsonl": f"old {i}\n" for i in (1, 2, 3)}
    for path, text in old.items():
        path.write_text(text)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([sys.executable, str(script), str(target)], capture_output=True,
                          text=True, env=env, preexec_fn=lambda: signal.signal(signal.SIGXFSZ, signal.SIG_IGN))  # fmt: skip
    assert done.returncode != 0 and "File too large" in done.stderr
    assert {p: p.read_text() for p in old} == old  # every part as it was
    assert sorted(p.name for p in tmp_path.glob("*.jsonl")) == sorted(p.name for p in old)
    assert not list(tmp_path.glob(".req*"))  # no temporary file left


@pytest.mark.parametrize(
    ("before", "lines", "after"),
    [
        # five parts, then three: parts 4 and 5 would be uploaded with the new ones
        (["req.part1.jsonl", "req.part2.jsonl", "req.part5.jsonl"], 2, 3),
        # ten parts (padded), then three: every padded name is stale
        (["req.part01.jsonl", "req.part10.jsonl"], 2, 3),
        # parts, then one file: the parts go
        (["req.part1.jsonl", "req.part2.jsonl"], 10, 1),
        # one file, then parts: the single file goes
        (["req.jsonl"], 2, 3),
    ],
)
def test_batch_file_leaves_no_part_of_an_earlier_split(tmp_path, before, lines, after):
    from rrmap.judge.transport.batch_files import write_batch_files

    for name in before:
        (tmp_path / name).write_text("an earlier turn's request\n")
    (tmp_path / "req.part2.jsonl.bak").write_text("kept")  # not a part: left alone
    (tmp_path / "other.part9.jsonl").write_text("kept")
    bodies = {f"k{i}": {"model": "m", "messages": []} for i in range(5)}
    written = write_batch_files(tmp_path / "req.jsonl", bodies, "http://h/v1", max_lines=lines)
    assert len(written) == after
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted([p.name for p in written] + ["req.part2.jsonl.bak", "other.part9.jsonl"])
    texts = "".join(p.read_text() for p in written)
    assert "earlier" not in texts and len(texts.splitlines()) == 5
