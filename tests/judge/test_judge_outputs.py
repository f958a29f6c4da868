"""The judge's output files: safe to open in a spreadsheet, complete or absent."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from chat_server import API_KEY, MODEL, ChatServer
from click.testing import CliRunner
from PIL import Image

from rrmap.cli import main
from rrmap.judge.tasks.model_ratings import STUDY_COLUMNS, ModelRatings

KEY_ENV = "RRMAP_TEST_JUDGE_KEY"
FORMULA = '=HYPERLINK("http://example.com","x")'


def _run(args: list[str]):
    return CliRunner(env={KEY_ENV: API_KEY}).invoke(main, args)


def _backend(server: ChatServer) -> list[str]:
    return ["--base-url", server.base_url, "--model", MODEL, "--api-key-env", KEY_ENV, "--quiet"]


def _questions(folder: Path) -> Path:
    lines = [
        {"id": "q1", "question": "Tone?", "options": ["Warm", "Cold"], "answer": "A",
         "group": "=SUM(A1)"},
        {"id": "q2", "question": "Light?", "options": ["High", "Low"], "answer": "B",
         "group": "@plain"},
    ]  # fmt: skip
    path = folder / "q.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _read(path_or_text, raw: bool = False) -> pd.DataFrame:
    source = io.StringIO(path_or_text) if isinstance(path_or_text, str) else path_or_text
    return pd.read_csv(source, dtype=str, keep_default_na=False)


@pytest.mark.parametrize("raw", [False, True])
def test_mcq_replies_and_labels_never_become_formulas(tmp_path, raw):
    path = _questions(tmp_path)
    out, replies = tmp_path / "acc.csv", tmp_path / "replies.csv"
    flag = ["--raw-csv"] if raw else []
    with ChatServer(lambda body: FORMULA) as server:
        r = _run(["judge", "mcq", str(path), "--by", "group", "-o", str(out),
                  "--responses", str(replies), *flag, *_backend(server)])  # fmt: skip
        stdout = _run(["judge", "mcq", str(path), "--by", "group", *flag, *_backend(server)])
    # no reply names an option: the outputs are written, and the exit code says so
    assert r.exit_code == 1, r.output
    assert "Error: no usable matched reply: 2 answer(s)" in r.stderr
    prefix = "" if raw else "'"
    assert _read(replies)["reply"].tolist() == [prefix + FORMULA] * 2
    groups = sorted(_read(out)["group"])
    assert groups == sorted([prefix + "=SUM(A1)", prefix + "@plain"])
    assert sorted(_read(stdout.stdout)["group"]) == groups  # stdout too
    record = json.loads((tmp_path / "acc.csv.json").read_text())
    assert record["csv_cells"] == ("raw" if raw else "spreadsheet-safe")
    # numbers stay numbers
    assert pd.read_csv(out)["acc"].dtype.kind == "f"


def _pairs(folder: Path) -> Path:
    Image.new("RGB", (8, 8), (30, 30, 30)).save(folder / "dark.png")
    Image.new("RGB", (8, 8), (230, 230, 230)).save(folder / "bright.png")
    path = folder / "pairs.csv"
    path.write_text(
        "instance,style,source_image,candidate_a,image_a,candidate_b,image_b\n"
        "i1,flat,dark.png,-dim,dark.png,+bright,bright.png\n"
    )
    return path


@pytest.mark.parametrize("raw", [False, True])
def test_2afc_outputs_neutralise_names_and_replies(tmp_path, raw):
    pairs = _pairs(tmp_path)
    out, po, bias = tmp_path / "c.csv", tmp_path / "po.csv", tmp_path / "bias.csv"
    flag = ["--raw-csv"] if raw else []
    with ChatServer() as server:
        r = _run(["judge", "2afc", str(pairs), "--mode", "base", "-o", str(out),
                  "--per-order", str(po), "--bias", str(bias), *flag,
                  *_backend(server)])  # fmt: skip
    assert r.exit_code == 0, r.output
    prefix = "" if raw else "'"
    comps = _read(out)
    assert {comps.loc[0, "left"], comps.loc[0, "right"]} == {prefix + "-dim", prefix + "+bright"}
    assert comps.loc[0, "winner"] == "right"  # the bright one: words are never changed
    per_order = _read(po)
    assert set(per_order["candidate_a"]) == {prefix + "-dim"}
    assert len(_read(bias)) >= 1


def test_interpret_reasons_are_neutralised(tmp_path):
    table = tmp_path / "i.csv"
    table.write_text("id,response,reference,model\n1,Flat,Flat colour,=cmd|' /C calc'!A0\n")
    grade = (
        '{"relevance": 2, "relevance_reason": "-looks fine", "precision": 1, '
        '"precision_reason": "+ok", "completeness": 1, "completeness_reason": "@c"}'
    )
    with ChatServer(lambda body: grade) as server:
        r = _run(["judge", "interpret", str(table), "--summary", str(tmp_path / "s.csv"),
                  *_backend(server)])  # fmt: skip
    assert r.exit_code == 0, r.output
    scores = _read(r.stdout)
    assert scores.loc[0, "model"] == "'=cmd|' /C calc'!A0"  # metadata kept, neutralised
    assert scores.loc[0, "relevance_reason"] == "'-looks fine"
    assert scores.loc[0, "precision_reason"] == "'+ok"
    assert float(scores.loc[0, "relevance"]) == 2


def test_subjectivity_output_is_neutralised_unless_raw(tmp_path):
    po = tmp_path / "po.csv"
    pd.DataFrame({"model": ["=m"], "mode": ["cot"], "instance": ["i"], "order": ["ab"],
                  "answers": ['[{"turn": "cot", "text": "It feels dreamy."}]']}).to_csv(
        po, index=False)  # fmt: skip
    safe = _run(["judge", "subjectivity", str(po)])
    raw = _run(["judge", "subjectivity", str(po), "--raw-csv"])
    assert safe.exit_code == raw.exit_code == 0, safe.output
    assert _read(safe.stdout)["model"].tolist() == ["'=m"]
    assert _read(raw.stdout)["model"].tolist() == ["=m"]


def _model_ratings(answer: str) -> ModelRatings:
    ratings = pd.DataFrame([["cubism", "=model", "balance", "form", "query", "movement",
                             "Cubism", 2.0, 4.0, 3.0, 0.5]], columns=STUDY_COLUMNS)  # fmt: skip
    failures = pd.DataFrame({"run": [0], "criterion": ["balance"], "answer": [answer]})
    return ModelRatings(ratings, ratings.assign(run=0), pd.DataFrame(), failures, {"model": "m"})


def test_model_ratings_are_written_safe_or_raw(tmp_path):
    paths = _model_ratings("+1 is my answer").write(tmp_path / "m.csv")
    assert _read(paths[0])["expert"].tolist() == ["'=model"]
    assert _read(paths[3])["answer"].tolist() == ["'+1 is my answer"]
    assert pd.read_csv(paths[0])["low rating"].tolist() == [2.0]
    assert json.loads(paths[4].read_text())["csv_cells"] == "spreadsheet-safe"
    raw = _model_ratings("+1 is my answer").write(tmp_path / "r.csv", raw_csv=True)
    assert _read(raw[0])["expert"].tolist() == ["=model"]
    assert json.loads(raw[4].read_text())["csv_cells"] == "raw"


def test_reply_with_a_lone_surrogate_is_written(tmp_path):
    path = _questions(tmp_path)
    with ChatServer(lambda body: "A \ud800") as server:
        r = _run(["judge", "mcq", str(path), "--responses", str(tmp_path / "r.csv"),
                  *_backend(server)])  # fmt: skip
    assert "Traceback" not in r.output and r.exit_code in (0, 1), r.output
    assert _read(tmp_path / "r.csv")["reply"].tolist() == ["A \ufffd"] * 2


# --- a disk that fills up mid-write -------------------------------------------------------
# The process's file size limit (RLIMIT_FSIZE) makes a write fail partway, as a full disk
# does (EFBIG instead of ENOSPC); the previous file must survive whole.

_LIMITED = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
limit = int(sys.argv.pop(1))
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
{body}
"""


def _limited(body: str, limit: int, *args: str, env: dict | None = None):
    return subprocess.run(
        [sys.executable, "-c", _LIMITED.format(body=body), str(limit), *args],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **(env or {})},
    )  # fmt: skip


def _no_leftovers(folder: Path) -> None:
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.slow
def test_full_disk_never_leaves_a_truncated_output(tmp_path):
    path = _questions(tmp_path)
    replies = tmp_path / "replies.csv"
    replies.write_text("previous,complete\nfile,kept\n")
    cli = "from rrmap.cli import main; sys.argv[0] = 'rrmap'; main()"
    with ChatServer(lambda body: "A " + "long reply " * 2_000) as server:
        proc = _limited(cli, 30_000, "judge", "mcq", str(path), "--responses", str(replies),
                        "--force", *_backend(server), env={KEY_ENV: API_KEY})  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert replies.read_text() == "previous,complete\nfile,kept\n"
    _no_leftovers(tmp_path)
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith(f"Error: {replies}: ") and "file" in last.lower()  # names the output


def test_model_ratings_are_replaced_all_or_nothing(tmp_path):
    old = _model_ratings("short").write(tmp_path / "m.csv")
    before = {p: p.read_bytes() for p in old}
    body = (
        "import pathlib, sys\n"
        "sys.path.insert(0, sys.argv[2])\n"
        "from test_judge_outputs import _model_ratings\n"
        "_model_ratings('long ' * 20_000).write(pathlib.Path(sys.argv[1]), force=True)\n"
    )
    proc = _limited(body, 50_000, str(tmp_path / "m.csv"), str(Path(__file__).parent))
    assert proc.returncode == 1
    assert "OSError" in proc.stderr and "m.failures.csv" in proc.stderr
    assert {p: p.read_bytes() for p in old} == before  # not one of the five replaced
    _no_leftovers(tmp_path)


def _six_questions(folder: Path) -> Path:
    lines = [{"id": f"q{i}", "question": f"Tone {i}?", "options": ["Warm", "Cold"], "answer": "A"}
             for i in range(6)]  # fmt: skip
    path = folder / "six.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


_CLI = "from rrmap.cli import main; sys.argv[0] = 'rrmap'; main()"


@pytest.mark.slow  # a further file-size limit: the answers paid before it (below) stay
def test_a_cache_that_cannot_be_written_is_named_in_one_line(tmp_path):
    path, cache = _six_questions(tmp_path), tmp_path / "cache"
    with ChatServer(lambda body: "A " + "long reply " * 2_000) as server:
        proc = _limited(_CLI, 10_000, "judge", "mcq", str(path), "--cache", str(cache),
                        *_backend(server), env={KEY_ENV: API_KEY})  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith(f"Error: {cache}{os.sep}") and last.count(".json: ") == 1, last
    assert "file-size limit" in last
    assert not [p for p in cache.rglob("*") if p.name.endswith(".tmp")]  # no half record


def test_answers_paid_before_a_full_disk_are_kept_in_the_cache(tmp_path):
    path, cache, replies = _six_questions(tmp_path), tmp_path / "cache", tmp_path / "r.csv"
    args = ["judge", "mcq", str(path), "--cache", str(cache), "--responses", str(replies)]
    with ChatServer(lambda body: "A\n\n" + "Warm light. " * 500) as server:
        # each cache record (about 6 KB) fits the limit; the replies file (33 KB) does not
        proc = _limited(_CLI, 15_000, *args, *_backend(server), env={KEY_ENV: API_KEY})
        assert proc.returncode == 1, proc.stderr
        assert proc.stderr.strip().splitlines()[-1].startswith(f"Error: {replies}: ")
        assert not replies.exists()
        paid = server.received
        assert paid == 6 and len(list(cache.glob("*/*.json"))) == 6
        r = _run([*args, *_backend(server)])  # room again: nothing is paid twice
        assert r.exit_code == 0, r.output
        assert server.received == paid
    assert len(_read(replies)) == 6
