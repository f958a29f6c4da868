"""Provenance on every judged row and in every sidecar: paid or cached, when, prompt, who."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
from chat_server import API_KEY, MODEL, ChatServer, recorded_answer
from click.testing import CliRunner
from rating_model import interval_model

from rrmap.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "judge_example"
KEY_ENV = "RRMAP_TEST_JUDGE_KEY"
VERSION = "judge-model-2026-05-01"
ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def _run(args: list[str]):
    return CliRunner(env={KEY_ENV: API_KEY}).invoke(main, args)


def _backend(server: ChatServer, cache: Path) -> list[str]:
    return ["--cache", str(cache), "--base-url", server.base_url, "--model", MODEL,
            "--api-key-env", KEY_ENV, "--quiet"]  # fmt: skip


def _versioned(responder=recorded_answer) -> ChatServer:
    server = ChatServer(responder)
    server.reported_model = VERSION
    return server


def test_2afc_rows_say_paid_then_cached_with_the_reported_version(tmp_path):
    per, out, cache = tmp_path / "per.csv", tmp_path / "out.csv", tmp_path / "cache"
    args = ["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "--mode", "base", "-o", str(out),
            "--per-order", str(per)]  # fmt: skip
    with _versioned() as server:
        first = _run([*args, *_backend(server, cache)])
        assert first.exit_code == 0, first.output
        paid = pd.read_csv(per, dtype=str, keep_default_na=False)
        again = _run([*args, "--force", *_backend(server, cache)])
        assert again.exit_code == 0, again.output
        cached = pd.read_csv(per, dtype=str, keep_default_na=False)
        sent = server.received
    assert len(paid) == 24 and sent == 24  # 12 pairs × 2 orders, paid once
    assert set(paid["answer_source"]) == {"paid"} and set(cached["answer_source"]) == {"cached"}
    for rows in (paid, cached):
        assert set(rows["model_version"]) == {VERSION}
        assert set(rows["endpoint"]) == {server.base_url}
        assert rows["answered_at"].str.match(ISO).all()
        assert rows["prompt_hash"].str.fullmatch(r"[0-9a-f]{64}").all()
    # a cached answer keeps the time it was paid for; the hash names its cache record
    assert cached["answered_at"].tolist() == paid["answered_at"].tolist()
    assert cached["prompt_hash"].tolist() == paid["prompt_hash"].tolist()
    assert paid["prompt_hash"].nunique() == 24
    record = json.loads((cache / paid["prompt_hash"][0][:2] / f"{paid['prompt_hash'][0]}.json")
                        .read_text())  # fmt: skip
    assert record["model_version"] == VERSION and record["answered_at"] == paid["answered_at"][0]
    sidecar = json.loads((tmp_path / "out.csv.json").read_text())
    assert sidecar["model_versions"] == [VERSION]
    assert sidecar["endpoint"] == server.base_url and ISO.match(sidecar["date"])
    assert re.fullmatch(r"[0-9a-f]{64}", sidecar["prompts"]["sha256"])
    assert sidecar["calls"]["cache_hits"] == 24 and sidecar["calls"]["paid"] == 0


def test_mcq_replies_carry_their_provenance(tmp_path):
    replies = tmp_path / "replies.csv"
    questions = EXAMPLE / "questions.jsonl"
    with _versioned() as server:
        r = _run(["judge", "mcq", str(questions), "--responses", str(replies),
                  *_backend(server, tmp_path / "cache")])  # fmt: skip
    assert r.exit_code in (0, 1), r.output
    rows = pd.read_csv(replies, dtype=str, keep_default_na=False)
    assert len(rows) == len(questions.read_text().splitlines())
    assert set(rows["answer_source"]) <= {"paid", "shared"} and "paid" in set(rows["answer_source"])
    assert set(rows["model_version"]) == {VERSION}
    assert rows["answered_at"].str.match(ISO).all()


def test_rate_settings_and_runs_carry_date_endpoint_prompt_and_version(tmp_path, corpora_file):
    out = tmp_path / "model.csv"
    with _versioned(interval_model) as server:
        r = _run(["judge", "rate", "--corpus", str(corpora_file), "-o", str(out),
                  "--max-retries", "1", *_backend(server, tmp_path / "cache")])  # fmt: skip
    assert r.exit_code == 0, r.output
    settings = json.loads((tmp_path / "model.json").read_text())
    assert ISO.match(settings["date"]) and settings["endpoint"] == server.base_url
    assert re.fullmatch(r"[0-9a-f]{64}", settings["prompt_hash"])
    assert settings["model_versions"] == [VERSION]
    runs = pd.read_csv(tmp_path / "model.runs.csv", dtype=str, keep_default_na=False)
    assert set(runs["model_version"]) == {VERSION} and set(runs["answer_source"]) == {"paid"}
    failures = pd.read_csv(tmp_path / "model.failures.csv", dtype=str, keep_default_na=False)
    assert len(failures) and set(failures["model_version"]) == {VERSION}
