"""Provenance on every judged row and in every sidecar: paid or cached, when, prompt, who."""

from __future__ import annotations

import hashlib
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


def test_2afc_comparisons_combine_the_provenance_of_both_orders(tmp_path):
    per, out, cache = tmp_path / "per.csv", tmp_path / "out.csv", tmp_path / "cache"
    args = ["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "--mode", "base", "-o", str(out),
            "--per-order", str(per)]  # fmt: skip
    with _versioned() as server:
        assert _run([*args, *_backend(server, cache)]).exit_code == 0
        paid, orders = pd.read_csv(out), pd.read_csv(per, dtype=str, keep_default_na=False)
        assert _run([*args, "--force", *_backend(server, cache)]).exit_code == 0
        cached = pd.read_csv(out)
    assert len(paid) == 12
    assert paid["n_paid"].tolist() == [2] * 12 and paid["n_cached"].sum() == 0
    assert cached["n_cached"].tolist() == [2] * 12 and cached["n_paid"].sum() == 0
    assert (paid[["n_paid_batch", "n_shared"]] == 0).all().all()
    for table in (paid, cached):
        assert set(table["endpoint"]) == {server.base_url}
        assert set(table["model_version"]) == {VERSION}
    # both orders' hashes (their cache keys, ab then ba) and the times of their answers
    for pair, rows in orders.groupby("pair"):
        row = paid.iloc[int(pair)]
        assert row["prompt_hashes"] == "|".join(rows["prompt_hash"])
        assert row["first_answered_at"] == min(rows["answered_at"])
        assert row["last_answered_at"] == max(rows["answered_at"])
    assert cached["prompt_hashes"].tolist() == paid["prompt_hashes"].tolist()
    assert cached["last_answered_at"].tolist() == paid["last_answered_at"].tolist()


def test_mcq_accuracy_counts_paid_and_cached_and_lists_each_reported_version(tmp_path):
    """Two answers bought from version A, the rest from version B, in one accuracy table."""
    out, replies, cache = tmp_path / "acc.csv", tmp_path / "replies.csv", tmp_path / "cache"
    args = ["judge", "mcq", str(EXAMPLE / "questions.jsonl"), "-o", str(out), "--force",
            "--responses", str(replies), "--concurrency", "1"]  # fmt: skip
    with _versioned() as server:
        server.reported_model = "model-a"
        first = _run([*args, "--max-calls", "2", *_backend(server, cache)])
        assert first.exit_code == 0, first.output
        server.reported_model = "model-b"
        again = _run([*args, "--by", "dimension", *_backend(server, cache)])
        assert again.exit_code == 0, again.output
    acc = pd.read_csv(out, keep_default_na=False)
    rows = pd.read_csv(replies, dtype=str, keep_default_na=False)
    assert acc["n_questions"].sum() == 4
    assert acc["n_cached"].sum() == 2 and acc["n_paid"].sum() == 2
    by_dim = acc.set_index("dimension")
    questions = pd.read_json(EXAMPLE / "questions.jsonl", lines=True).set_index("id")
    for dim, group in rows.groupby(rows["id"].map(questions["dimension"])):
        row = by_dim.loc[dim]
        assert row["n_paid"] == (group["answer_source"] == "paid").sum()
        assert row["n_cached"] == (group["answer_source"] == "cached").sum()
        versions = list(dict.fromkeys(group["model_version"]))
        assert row["model_version"] == "|".join(versions)
        digest = hashlib.sha256("\n".join(sorted(group["prompt_hash"])).encode()).hexdigest()
        assert row["prompts_sha256"] == digest
        assert row["first_answered_at"] == min(group["answered_at"])
        assert row["last_answered_at"] == max(group["answered_at"])
    assert {"model-a", "model-b"} == {v for v in by_dim["model_version"] for v in v.split("|")}


def test_interpret_summary_carries_the_provenance_of_its_group(tmp_path):
    summary = tmp_path / "summary.csv"
    grade = ('{"relevance": 2, "relevance_reason": "r", "precision": 1, "precision_reason": '
             '"p", "completeness": 1, "completeness_reason": "c"}')  # fmt: skip
    with _versioned(lambda body: grade) as server:
        r = _run(["judge", "interpret", str(EXAMPLE / "interpretations.csv"), "-o",
                  str(tmp_path / "scores.csv"), "--summary", str(summary),
                  *_backend(server, tmp_path / "cache")])  # fmt: skip
    assert r.exit_code == 0, r.output
    row = pd.read_csv(summary, keep_default_na=False).iloc[0]
    scores = pd.read_csv(tmp_path / "scores.csv", dtype=str, keep_default_na=False)
    assert row["n_paid"] == len(scores) == 2 and row["model_version"] == VERSION
    digest = hashlib.sha256("\n".join(sorted(scores["prompt_hash"])).encode()).hexdigest()
    assert row["prompts_sha256"] == digest and row["endpoint"] == server.base_url
