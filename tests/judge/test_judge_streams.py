"""``-`` for standard input and output in every judge command; messages and bars on stderr.

Against the local chat server: a table read from stdin gives what the same
file gives, a table written to stdout is the file's content, and stdout
holds nothing else.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from chat_server import API_KEY, MODEL, ChatServer, recorded_answer
from click.testing import CliRunner
from rating_model import interval_model

import rrmap
from rrmap.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "judge_example"
ROOT = Path(__file__).resolve().parents[2]
KEY_ENV = "RRMAP_TEST_JUDGE_KEY"
GRADE = (
    '{"relevance": 2, "relevance_reason": "r", "precision": 1, "precision_reason": "p", '
    '"completeness": 1, "completeness_reason": "c"}'
)


def _run(args: list[str], stdin: str | bytes | None = None):
    return CliRunner(env={KEY_ENV: API_KEY}).invoke(main, [str(a) for a in args], input=stdin)


def _backend(server: ChatServer, cache: Path) -> list[str]:
    return ["--cache", str(cache), "--base-url", server.base_url, "--model", MODEL,
            "--api-key-env", KEY_ENV, "--quiet"]  # fmt: skip


def _csv(text: str) -> pd.DataFrame:
    return pd.read_csv(io.StringIO(text), keep_default_na=False)


def test_2afc_reads_pairs_from_stdin_relative_to_the_current_folder(tmp_path, monkeypatch):
    pairs = (EXAMPLE / "PAIRS.csv").read_text()
    with ChatServer(recorded_answer) as server:
        from_file = _run(["judge", "2afc", EXAMPLE / "PAIRS.csv", "--mode", "base",
                          *_backend(server, tmp_path / "c1")])  # fmt: skip
        monkeypatch.chdir(EXAMPLE)  # the images of stdin are relative to the current folder
        piped = _run(["judge", "2afc", "-", "--mode", "base", "-o", "-",
                      *_backend(server, tmp_path / "c2")], pairs)  # fmt: skip
        monkeypatch.chdir(tmp_path)
        elsewhere = _run(["judge", "2afc", "-", "--mode", "base",
                          *_backend(server, tmp_path / "c3")], pairs)  # fmt: skip
    assert from_file.exit_code == 0 and piped.exit_code == 0, piped.output
    compared = ["instance", "left", "right", "winner", "n_paid", "prompt_hashes"]
    assert _csv(piped.stdout)[compared].equals(_csv(from_file.stdout)[compared])
    assert "wrote" not in piped.stderr and "paid calls 24" in piped.stderr
    assert not (tmp_path / "-").exists() and not (EXAMPLE / "-").exists()
    assert elsewhere.exit_code == 1 and elsewhere.stdout == ""
    (error,) = elsewhere.stderr.splitlines()
    assert error.startswith("Error: <stdin>: 14 problems: column 'source_image': image file ")
    assert f"image file {tmp_path / 'images'}" in error  # looked for in the current folder


def test_a_further_table_goes_to_stdout_when_the_result_goes_to_a_file(tmp_path):
    out = tmp_path / "out.csv"
    with ChatServer(recorded_answer) as server:
        r = _run(["judge", "2afc", EXAMPLE / "PAIRS.csv", "--mode", "base", "-o", out,
                  "--per-order", "-", *_backend(server, tmp_path / "c")])  # fmt: skip
        bias = _run(["judge", "2afc", EXAMPLE / "PAIRS.csv", "--mode", "base", "-o", out,
                     "--force", "--bias", "-", *_backend(server, tmp_path / "c")])  # fmt: skip
    assert r.exit_code == 0, r.output
    per_order = _csv(r.stdout)
    assert len(per_order) == 24 and {"order", "answers", "answer_source"} <= set(per_order)
    assert len(pd.read_csv(out)) == 12 and (tmp_path / "out.csv.json").exists()
    assert "wrote 12 comparisons to" in r.stderr and "per-order answers to" not in r.stderr
    assert bias.exit_code == 0 and _csv(bias.stdout)["left_rate"].between(0, 1).all()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--per-order", "-"], "--per-order -: standard output already gets the result table"),
        (["-o", "-", "--bias", "-"], "--bias -: standard output already gets the result table"),
        (["-o", "x.csv", "--per-order", "-", "--bias", "-"],
         "--per-order and --bias are all '-': one table at most goes to standard output"),
        (["--batch-results", "-"],
         "PAIRS and --batch-results: standard input ('-') can be read by one of them only"),
    ],
)  # fmt: skip
def test_two_tables_on_stdout_or_two_inputs_from_stdin_are_refused(extra, message, tmp_path):
    pairs = "-" if "--batch-results" in extra else EXAMPLE / "PAIRS.csv"
    r = _run(["judge", "2afc", pairs, "--cache", tmp_path / "c", "--base-url",
              "http://127.0.0.1:9/v1", "--model", MODEL, *extra], "")  # fmt: skip
    assert r.exit_code == 2 and message in r.stderr, r.stderr
    assert r.stdout == "" and not list(tmp_path.glob("*.csv"))


def test_mcq_reads_jsonl_from_stdin_and_writes_replies_to_stdout(tmp_path, monkeypatch):
    monkeypatch.chdir(EXAMPLE)
    questions = (EXAMPLE / "questions.jsonl").read_text()
    acc = tmp_path / "acc.csv"
    with ChatServer(recorded_answer) as server:
        r = _run(["judge", "mcq", "-", "-o", acc, "--responses", "-",
                  *_backend(server, tmp_path / "c")], questions)  # fmt: skip
        by = _run(["judge", "mcq", "-", "--by", "nope", *_backend(server, tmp_path / "c")],
                  questions)  # fmt: skip
    assert r.exit_code == 0, r.output
    replies = _csv(r.stdout)
    assert replies["id"].tolist() == ["q1", "q2", "q3", "q4"]
    assert pd.read_csv(acc)["n_questions"].tolist() == [4]
    assert by.exit_code == 2 and "--by column(s) not in <stdin>: nope" in by.stderr


@pytest.mark.parametrize("kind", ["csv", "jsonl"])
def test_interpret_reads_stdin_and_writes_its_summary_to_stdout(kind, tmp_path):
    table = pd.read_csv(EXAMPLE / "interpretations.csv")
    text = table.to_csv(index=False) if kind == "csv" else table.to_json(orient="records",
                                                                         lines=True)  # fmt: skip
    scores = tmp_path / "scores.csv"
    with ChatServer(lambda body: GRADE) as server:
        r = _run(["judge", "interpret", "-", "-o", scores, "--summary", "-",
                  *_backend(server, tmp_path / "c")], text)  # fmt: skip
    assert r.exit_code == 0, r.output
    assert _csv(r.stdout)[["n", "relevance", "n_paid"]].values.tolist() == [[2, 2.0, 2]]
    assert pd.read_csv(scores)["id"].tolist() == ["r1", "r2"]


def test_subjectivity_reads_per_order_and_a_lexicon_from_stdin(tmp_path):
    per = tmp_path / "per.csv"
    with ChatServer(recorded_answer) as server:
        r = _run(["judge", "2afc", EXAMPLE / "PAIRS.csv", "--mode", "cot", "-o",
                  tmp_path / "o.csv", "--per-order", per, *_backend(server, tmp_path / "c")])  # fmt: skip
    assert r.exit_code == 0, r.output
    from_file = _run(["judge", "subjectivity", per])
    piped = _run(["judge", "subjectivity", "-", "-o", "-"], per.read_text())
    assert piped.exit_code == 0 and piped.stdout == from_file.stdout != ""
    lexicon = "left\t1\tevaluative\n"
    own = _run(["judge", "subjectivity", per, "--lexicon", "-"], lexicon)
    assert own.exit_code == 0 and _csv(own.stdout)["subjectivity"].notna().all()
    bad = _run(["judge", "subjectivity", per, "--lexicon", "-"], "left\tvery\n")
    assert bad.exit_code == 1 and bad.stderr.startswith("Error: <stdin>: line 1: expected")
    missing = _run(["judge", "subjectivity", "-"], "a,b\n1,2\n")
    assert "Error: <stdin>: no 'answers' column" in missing.stderr


def test_rate_reads_corpora_and_human_ratings_from_stdin(tmp_path, corpora_file, monkeypatch):
    out = tmp_path / "model.csv"
    human = rrmap.datasets.example_ratings_path()
    monkeypatch.chdir(corpora_file.parent)  # the corpora's folders: relative to it
    with ChatServer(interval_model) as server:
        common = ["judge", "rate", "--max-retries", "1", *_backend(server, tmp_path / "c")]
        r = _run([*common, "--corpus", "-", "-o", out, "--merge-with", human,
                  "--merged-output", "-", "--rater", "judge-model"],
                 corpora_file.read_text())  # fmt: skip
        merged_in = _run([*common, "--corpus", corpora_file, "-o", out, "--force",
                          "--merge-with", "-", "--rater", "judge-model"],
                         Path(human).read_text())  # fmt: skip
        to_stdout = _run([*common, "--corpus", corpora_file, "-o", "-"])
    assert r.exit_code == 0, r.output
    merged = _csv(r.stdout)
    assert set(merged["expert"]) == {"E1", "E2", "E3", "judge-model"}
    assert len(pd.read_csv(out)) == 5 * 3 * 8 * 2 and (tmp_path / "model.runs.csv").exists()
    assert merged_in.exit_code == 0, merged_in.output
    merged_file = pd.read_csv(tmp_path / "model.merged.csv", keep_default_na=False)
    assert len(merged_file) == len(merged)
    assert to_stdout.exit_code == 2
    assert "-o -: rate writes its ratings with four files beside them" in to_stdout.stderr


def test_batch_results_read_from_stdin(tmp_path):
    from test_judge_batch import _vllm_output

    cache, reqs = tmp_path / "cache", tmp_path / "req.jsonl"
    with ChatServer(recorded_answer) as server:
        args = ["judge", "2afc", EXAMPLE / "PAIRS.csv", "--mode", "base",
                *_backend(server, cache)]  # fmt: skip
        assert _run([*args, "--batch-file", reqs]).exit_code == 0
        results = _vllm_output(reqs, tmp_path / "out.jsonl").read_text()
        r = _run([*args, "--batch-results", "-"], results)
        assert server.received == 0
    assert r.exit_code == 0, r.output
    assert "read <stdin>: 24 answer(s) into the cache" in r.stderr
    assert len(_csv(r.stdout)) == 12


@pytest.mark.slow  # a further pipe; analyze's table without a bar off a terminal stays
def test_a_pipe_gets_only_the_table_and_stderr_no_bar(tmp_path):
    """Through real pipes: stdout is the table alone; with stderr not a terminal, no bar frames."""
    env = {**os.environ, KEY_ENV: API_KEY, "PYTHONPATH": str(ROOT)}
    with ChatServer(recorded_answer) as server:
        done = subprocess.run(
            [sys.executable, "-m", "rrmap.cli", "judge", "2afc", "-", "--mode", "base",
             *_backend(server, tmp_path / "c")[:-1]],  # without --quiet: the bar is asked for
            input=(EXAMPLE / "PAIRS.csv").read_bytes(), capture_output=True, cwd=EXAMPLE,
            env=env, timeout=120,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(io.BytesIO(done.stdout))
    assert len(table) == 12 and table.columns[0] == "instance"
    assert b"\r" not in done.stderr and b"%|" not in done.stderr
    assert b"paid calls 24" in done.stderr


def test_stdin_is_read_within_the_size_limit_of_an_input_table(tmp_path, monkeypatch):
    import rrmap.rank.data.sources as sources

    monkeypatch.setattr(sources, "MAX_TABLE_BYTES", 64)
    pairs = (EXAMPLE / "PAIRS.csv").read_bytes()
    assert len(pairs) > 64
    r = _run(["judge", "2afc", "-", "--cache", tmp_path / "c", "--base-url",
              "http://127.0.0.1:9/v1", "--model", MODEL, "--dry-run"], pairs)  # fmt: skip
    assert r.exit_code == 1, r.output
    assert r.stderr.startswith("Error: <stdin>: over 64 B, above the limit of 64 B")
    assert "split it" in r.stderr and "Traceback" not in r.output
