"""``rrmap judge 2afc|mcq|interpret`` through click's CliRunner, against a local server."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest
from chat_server import API_KEY, MODEL, ChatServer
from click.testing import CliRunner

from rrmap.cli import main
from rrmap.rank import read_comparisons

EXAMPLE = Path(__file__).resolve().parents[2] / "data" / "judge_example"
KEY_ENV = "RRMAP_TEST_JUDGE_KEY"


def _backend(server: ChatServer, *extra: str) -> list[str]:
    return ["--base-url", server.base_url, "--model", MODEL, "--api-key-env", KEY_ENV,
            "--quiet", *extra]  # fmt: skip


def _run(args: list[str], key: str = API_KEY):
    return CliRunner(env={KEY_ENV: key}).invoke(main, args)


def test_2afc_example_end_to_end_into_rank_align(tmp_path):
    out = tmp_path / "model.csv"
    with ChatServer() as server:
        r = _run(["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "-o", str(out),
                  "--cache", str(tmp_path / "cache"), "--per-order", str(tmp_path / "po.csv"),
                  *_backend(server)])  # fmt: skip
        assert r.exit_code == 0, r.output
        assert len(server.answered) == 12 * 2 * 3
        again = _run(["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "-o", str(out), "--force",
                      "--cache", str(tmp_path / "cache"), *_backend(server)])  # fmt: skip
        assert len(server.answered) == 72  # all from the cache
    assert (
        "paid calls 0 (tokens 0 in / 0 out), cached 72, failed 0; HTTP requests 0" in again.stderr
    )
    assert "consistency across orders 1.000 over 12 pair(s)" in r.stderr
    comps = read_comparisons(out)
    assert len(comps) == 12 and (comps["agreement"] == "agree").all()
    assert set(comps.columns) >= {"instance", "left", "right", "winner", "mode", "model", "seed"}
    assert len(pd.read_csv(tmp_path / "po.csv")) == 24
    aligned = _run(["rank", "align", str(EXAMPLE / "HUMAN.csv"), str(out), "--by", "instance"])
    assert aligned.exit_code == 0, aligned.output
    assert "alignment: 2 group(s)" in aligned.stderr


def test_dry_run_sends_nothing_and_shows_no_key():
    with ChatServer() as server:
        r = _run(["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "--dry-run", "--mode", "base",
                  *_backend(server)])  # fmt: skip
        assert server.received == 0
    assert r.exit_code == 0, r.output
    assert f"Authorization: Bearer ${KEY_ENV} (not shown)" in r.stdout
    assert API_KEY not in r.output
    assert "base64 characters>" in r.stdout
    assert "ukiyo-e woodblock print" in r.stdout
    assert (
        "dry run: 12 pair(s): the run needs 48 call(s) at most: 0 cached, 24 to send and up to "
        "24 format re-ask(s)" in r.stderr
    )


def test_user_errors_are_one_line(tmp_path):
    with ChatServer() as server:
        wrong = _run(["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), *_backend(server)],
                     key="sk-not-the-key")  # fmt: skip
        assert server.received == 1
    assert wrong.exit_code == 1
    assert "Error:" in wrong.stderr and "HTTP 401" in wrong.stderr
    assert "sk-not-the-key" not in wrong.output and "Traceback" not in wrong.output
    missing = _run(["judge", "2afc", str(tmp_path / "nope.csv"), "--baseline", "random"])
    assert missing.exit_code == 1 and "nope.csv" in missing.stderr
    no_model = _run(["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "--base-url", "http://x/v1"])
    assert no_model.exit_code == 2 and "missing option(s) --model" in no_model.stderr
    out = tmp_path / "o.csv"
    out.write_text("keep")
    refuse = _run(["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "--baseline", "random",
                   "-o", str(out)])  # fmt: skip
    assert refuse.exit_code == 1 and "use --force" in refuse.stderr
    assert out.read_text() == "keep"


def test_random_baseline_is_seeded_and_records_the_seed():
    args = ["judge", "2afc", str(EXAMPLE / "PAIRS.csv"), "--baseline", "random", "--quiet"]
    a = pd.read_csv(io.StringIO(_run([*args, "--seed", "5"]).stdout))
    b = pd.read_csv(io.StringIO(_run([*args, "--seed", "5"]).stdout))
    assert a.equals(b)
    assert (a["seed"] == 5).all() and (a["mode"] == "baseline").all()
    dry = _run([*args, "--dry-run"])
    assert dry.stdout == "" and "the random baseline sends no request" in dry.stderr


def _mcq_responder(body: dict) -> str:
    text = body["messages"][-1]["content"][-1]["text"]
    return {"flat areas": "A", "lowers the quality": "The answer is A.",
            "colour temperature": "Cold, I think"}.get(
        next((k for k in ("flat areas", "lowers the quality", "colour temperature")
              if k in text), ""), "Hard to tell.")  # fmt: skip


def test_mcq_command(tmp_path):
    with ChatServer(_mcq_responder) as server:
        r = _run(["judge", "mcq", str(EXAMPLE / "questions.jsonl"), "--by", "dimension",
                  "--responses", str(tmp_path / "replies.csv"), *_backend(server)])  # fmt: skip
    assert r.exit_code == 0, r.output
    acc = pd.read_csv(io.StringIO(r.stdout)).set_index("dimension")
    # color: q1 right, q3 wrong (n = 2 and 3); clarity: q2 right; overall: q4 unmatched
    assert acc.loc["color", "acc"] == pytest.approx(0.5)
    assert acc.loc["color", "nacc"] == pytest.approx((1.0 + (0 - 1 / 3) / (1 - 1 / 3)) / 2)
    assert acc.loc["clarity", "nacc"] == pytest.approx(1.0)
    assert acc.loc["overall", "n_unmatched"] == 1
    assert "1 unmatched (counted wrong)" in r.stderr
    assert "unmatched: q4 (rotation 0)" in r.stderr
    assert len(pd.read_csv(tmp_path / "replies.csv")) == 4
    bad = _run(
        [
            "judge",
            "mcq",
            str(EXAMPLE / "questions.jsonl"),
            "--by",
            "nope",
            "--dry-run",
            "--model",
            "m",
            "--base-url",
            "http://127.0.0.1:1/v1",
        ]
    )
    assert bad.exit_code == 2 and "--by column(s) not in" in bad.stderr


def test_interpret_command(tmp_path):
    grade = (
        '{"relevance": 2, "relevance_reason": "r", "precision": 1, "precision_reason": '
        '"p", "completeness": 1, "completeness_reason": "c"}'
    )
    with ChatServer(lambda body: grade) as server:
        r = _run(["judge", "interpret", str(EXAMPLE / "interpretations.csv"),
                  "--summary", str(tmp_path / "s.csv"), *_backend(server)])  # fmt: skip
    assert r.exit_code == 0, r.output
    scores = pd.read_csv(io.StringIO(r.stdout))
    assert scores["relevance"].tolist() == [2, 2]
    assert scores["judge_model"].tolist() == [MODEL, MODEL]
    assert scores["model"].tolist() == ["example_model"] * 2  # metadata kept
    summary = pd.read_csv(tmp_path / "s.csv")
    assert summary.loc[0, "overall"] == pytest.approx(4 / 3)


def test_subjectivity_command_reads_a_per_order_file(tmp_path):
    po = tmp_path / "po.csv"
    pd.DataFrame({
        "model": ["m", "m"], "mode": ["cot", "artcot"], "instance": ["i", "i"],
        "order": ["ab", "ab"],
        "answers": ['[{"turn": "cot", "text": "It feels somewhat dreamy."}]',
                    '[{"turn": "artcot_critic", "text": "Thick black contours, flat sky."}]'],
    }).to_csv(po, index=False)  # fmt: skip
    r = _run(["judge", "subjectivity", str(po)])
    assert r.exit_code == 0, r.output
    table = pd.read_csv(io.StringIO(r.stdout)).set_index("mode")
    assert table.loc["cot", "subjective_per_100"] == pytest.approx(75.0)
    assert table.loc["artcot", "subjective_per_100"] == 0.0
    only = _run(["judge", "subjectivity", str(po), "--turn", "artcot_critic", "--by", "mode"])
    assert pd.read_csv(io.StringIO(only.stdout))["mode"].tolist() == ["artcot"]
    pd.DataFrame({"x": [1]}).to_csv(tmp_path / "bad.csv", index=False)
    bad = _run(["judge", "subjectivity", str(tmp_path / "bad.csv")])
    assert bad.exit_code == 1 and "no 'answers' column" in bad.stderr
