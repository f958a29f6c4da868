"""rrmap.judge.tasks.interpret over real HTTP: 0-2 grades with reasons, invalid grades kept raw."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from chat_server import API_KEY, MODEL, ChatServer

from rrmap.errors import InputError
from rrmap.judge.tasks.interpret import (
    interpretation_summary,
    read_interpretations,
    score_interpretations,
)
from rrmap.judge.transport.client import ChatClient, Endpoint

KEY_ENV = "RRMAP_TEST_JUDGE_KEY"

GRADES = {
    "grain": '{"relevance": 2, "relevance_reason": "names the noise", "precision": 2, '
    '"precision_reason": "agrees with the reference", "completeness": 1, '
    '"completeness_reason": "omits the composition"}',
    "dreamy": "```json\n{'relevance': 0, 'relevance_reason': 'mood, not quality', "
    "'precision': 1, 'precision_reason': 'unsupported', 'completeness': 0, "
    "'completeness_reason': 'misses the blur'}\n```",
}


def responder(body: dict) -> str:
    msgs = body["messages"]
    first = msgs[0]["content"]
    if "fixable" in first:
        if len(msgs) == 1:
            return "Relevance is high, precision medium."
        return GRADES["grain"]
    if "hopeless" in first:
        return "I cannot grade this."
    return next(v for k, v in GRADES.items() if k in first)


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, API_KEY)


def test_grades_reasons_retries_and_invalid_rows():
    table = pd.DataFrame({
        "id": ["r1", "r2", "r3", "r4"],
        "response": ["coloured grain", "it feels dreamy", "fixable text", "hopeless text"],
        "reference": ["noise destroys edges"] * 4,
        "model": ["m1", "m1", "m2", "m2"],
    })  # fmt: skip
    with ChatServer(responder) as server:
        client = ChatClient(Endpoint(server.base_url, MODEL, api_key_env=KEY_ENV))
        res = score_interpretations(table, client)
    assert len(server.answered) == 2 + 2 + 2  # r3 and r4 are re-asked once
    s = res.scores.set_index("id")
    assert s.loc["r1", ["relevance", "precision", "completeness"]].tolist() == [2, 2, 1]
    assert s.loc["r1", "overall"] == pytest.approx(5 / 3)
    assert s.loc["r2", "relevance_reason"] == "mood, not quality"
    assert s.loc["r3", "valid"] and s.loc["r3", "completeness"] == 1
    assert not s.loc["r4", "valid"]
    assert math.isnan(s.loc["r4", "relevance"])
    assert s.loc["r4", "raw"] == "I cannot grade this."
    assert s.loc["r4", "error"].startswith("unreadable answer")
    summ = interpretation_summary(res.scores, by="model").set_index("model")
    assert summ.loc["m1", "relevance"] == pytest.approx(1.0)  # (2 + 0) / 2
    assert summ.loc["m2", "n_invalid"] == 1
    assert summ.loc["m2", "precision"] == pytest.approx(2.0)  # only r3 is valid


def test_table_problems(tmp_path):
    p = tmp_path / "r.csv"
    p.write_text("id,response,reference\na,,ref\na,x,\n")
    with pytest.raises(InputError) as info:
        read_interpretations(p)
    msg = str(info.value)
    assert "column 'response' is empty on line(s) 2" in msg
    assert "column 'reference' is empty on line(s) 3" in msg
    assert "duplicate id(s) 'a'" in msg
    p.write_text("id,text\na,b\n")
    with pytest.raises(InputError, match="missing column"):
        read_interpretations(p)


def test_summary_by_unknown_column():
    s = pd.DataFrame({"relevance": [1.0], "precision": [1.0], "completeness": [1.0],
                      "overall": [1.0], "valid": [True]})  # fmt: skip
    with pytest.raises(InputError, match=r"no column\(s\) judge to group by"):
        interpretation_summary(s, by="judge")
