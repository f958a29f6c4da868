"""The judge's CSV outputs read back as the rows written, whatever a reply or a label holds.

A model's reply and the labels of a question set hold a bare carriage return
before a formula (``ok\\r=1+1``) and line breaks before triggers: pandas and
Python's :mod:`csv` module read the rows back as written, no spreadsheet-safe
cell starts a formula (at its start or after a line break), and ``--raw-csv``
gives the text back exactly.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from chat_server import API_KEY, MODEL, ChatServer
from click.testing import CliRunner

from rrmap.cli import main
from rrmap.judge.tasks.model_ratings import STUDY_COLUMNS, ModelRatings

KEY_ENV = "RRMAP_TEST_JUDGE_KEY"
REPLY = "ok\r=1+1\r\n@x\nAnswer: A"
GROUPS = ["g\r=SUM(A1)", "h\n-1+1"]
BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
FORMULA = re.compile(f"(?:^|(?<=[{BREAKS}]))[=+\\-@\t\r]")


def _read_back(path: Path) -> tuple[pd.DataFrame, list[list[str]]]:
    text = path.read_bytes().decode("utf-8")
    frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows[0] == list(frame.columns) and rows[1:] == frame.to_numpy().tolist()
    return frame, rows


def _formulas(rows: list[list[str]]) -> list[str]:
    def number(c: str) -> bool:
        try:
            float(c)
        except ValueError:
            return False
        return True

    return [c for row in rows for c in row if FORMULA.search(c) and not number(c)]


def _questions(folder: Path) -> Path:
    lines = [
        {"id": "q1", "question": "Tone?", "options": ["Warm", "Cold"], "answer": "A",
         "group": GROUPS[0]},
        {"id": "q2", "question": "Light?", "options": ["High", "Low"], "answer": "B",
         "group": GROUPS[1]},
    ]  # fmt: skip
    path = folder / "q.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.mark.parametrize("raw", [False, True])
def test_mcq_outputs_read_back_whole(tmp_path, raw):
    out, replies = tmp_path / "acc.csv", tmp_path / "replies.csv"
    backend = ["--base-url", "", "--model", MODEL, "--api-key-env", KEY_ENV, "--quiet"]
    with ChatServer(lambda body: REPLY) as server:
        backend[1] = server.base_url
        res = CliRunner(env={KEY_ENV: API_KEY}).invoke(
            main,
            ["judge", "mcq", str(_questions(tmp_path)), "--by", "group", "-o", str(out),
             "--responses", str(replies), *(["--raw-csv"] if raw else []), *backend],
        )  # fmt: skip
    assert res.exit_code == 0, res.output
    answers, rows = _read_back(replies)
    assert len(answers) == 2 and {len(r) for r in rows} == {answers.shape[1]}
    accuracy, acc_rows = _read_back(out)
    if raw:
        assert answers["reply"].tolist() == [REPLY] * 2
        assert sorted(accuracy["group"]) == sorted(GROUPS)
    else:
        assert answers["reply"].tolist() == ["ok\r'=1+1\r\n'@x\nAnswer: A"] * 2
        assert sorted(accuracy["group"]) == ["g\r'=SUM(A1)", "h\n'-1+1"]
        assert _formulas(rows) == _formulas(acc_rows) == []


def test_model_ratings_read_back_whole(tmp_path):
    ratings = pd.DataFrame([["cubism", "ok\r=model", "balance", "form", "query", "movement",
                             "Cubism", 2.0, 4.0, 3.0, 0.5]], columns=STUDY_COLUMNS)  # fmt: skip
    failures = pd.DataFrame({"run": [0], "criterion": ["balance"], "answer": ["x\r\n+1"]})
    result = ModelRatings(ratings, ratings.assign(run=0), pd.DataFrame(), failures, {})
    paths = result.write(tmp_path / "m.csv")
    table, rows = _read_back(paths[0])
    assert table["expert"].tolist() == ["ok\r'=model"] and _formulas(rows) == []
    assert float(table["low rating"].iloc[0]) == 2.0
    failed, rows = _read_back(paths[3])
    assert failed["answer"].tolist() == ["x\r\n'+1"] and _formulas(rows) == []
    raw = result.write(tmp_path / "r.csv", raw_csv=True)
    assert _read_back(raw[0])[0]["expert"].tolist() == ["ok\r=model"]
