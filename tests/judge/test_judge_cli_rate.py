"""``rrmap judge rate`` end to end through click, against the local chat server."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from chat_server import API_KEY, MODEL, ChatServer
from click.testing import CliRunner
from rating_model import interval_model

import rrmap
from rrmap.cli import main


@pytest.fixture
def server():
    with ChatServer(interval_model) as srv:
        yield srv


def _args(server, tmp_path):
    return [
        "--base-url",
        server.base_url,
        "--model",
        MODEL,
        "--api-key-env",
        "RRMAP_TEST_KEY",
        "--cache",
        str(tmp_path / "cache"),
        "--max-retries",
        "1",
        "--quiet",
    ]


def test_rate_writes_ratings_sidecars_and_merged_file(server, tmp_path, corpora_file, monkeypatch):
    monkeypatch.setenv("RRMAP_TEST_KEY", API_KEY)
    out = tmp_path / "model.csv"
    res = CliRunner().invoke(
        main,
        [
            "judge",
            "rate",
            "--corpus",
            str(corpora_file),
            "-o",
            str(out),
            "--merge-with",
            str(rrmap.datasets.example_ratings_path()),
            "--rater",
            "judge-model",
            *_args(server, tmp_path),
        ],
    )
    assert res.exit_code == 0, res.output
    model = pd.read_csv(out)
    assert len(model) == 5 * 3 * 8 * 2 and set(model.expert) == {"judge-model"}
    failures = pd.read_csv(tmp_path / "model.failures.csv")
    assert set(failures.criterion) == {"top-bottom"}
    assert "5 sheet(s) failed or stayed invalid after 2 re-ask(s)" in res.stderr
    settings = json.loads((tmp_path / "model.json").read_text())
    assert settings["rater"] == "judge-model" and settings["seeds"]
    merged = rrmap.load_ratings(tmp_path / "model.merged.csv")
    assert set(merged.expert) == {"E1", "E2", "E3", "judge-model"}
    assert API_KEY not in "".join(p.read_text() for p in tmp_path.glob("model*"))
    again = CliRunner().invoke(
        main,
        ["judge", "rate", "--corpus", str(corpora_file), "-o", str(out), *_args(server, tmp_path)],
    )
    assert again.exit_code == 1 and "use --force" in again.output


def test_dry_run_sends_nothing(server, tmp_path, corpora_file, monkeypatch):
    monkeypatch.setenv("RRMAP_TEST_KEY", API_KEY)
    res = CliRunner().invoke(
        main,
        ["judge", "rate", "--corpus", str(corpora_file), "--dry-run", *_args(server, tmp_path)],
    )
    assert res.exit_code == 0, res.output
    assert server.received == 0
    assert "Criterion: centered-edges" in res.stdout and "base64 characters" in res.stdout
    assert API_KEY not in res.output


def test_bad_corpus_file_is_one_line(tmp_path, server):
    bad = tmp_path / "c.csv"
    bad.write_text("movement,query\nx,y\n")
    res = CliRunner().invoke(
        main, ["judge", "rate", "--corpus", str(bad), "-o", "x.csv", *_args(server, tmp_path)]
    )
    assert res.exit_code == 1
    assert res.output.count("\n") == 1 and "missing column(s) 'modality'" in res.output


def test_output_is_required_and_merged_file_is_not_overwritten(
    server, tmp_path, corpora_file, monkeypatch
):
    monkeypatch.setenv("RRMAP_TEST_KEY", API_KEY)
    res = CliRunner().invoke(
        main, ["judge", "rate", "--corpus", str(corpora_file), *_args(server, tmp_path)]
    )
    assert res.exit_code == 2 and "give -o/--output" in res.output
    merged = tmp_path / "model.merged.csv"
    merged.write_text("keep me")
    res = CliRunner().invoke(
        main,
        [
            "judge",
            "rate",
            "--corpus",
            str(corpora_file),
            "-o",
            str(tmp_path / "model.csv"),
            "--merge-with",
            str(rrmap.datasets.example_ratings_path()),
            *_args(server, tmp_path),
        ],
    )
    assert res.exit_code == 1 and f"{merged} exists; use --force" in res.output
    assert merged.read_text() == "keep me" and server.received == 0
