"""rrmap.judge.tasks.mcq over real HTTP: option matching rules, circular evaluation, Acc and NAcc."""

from __future__ import annotations

import json
import re

import pytest
from chat_server import API_KEY, MODEL, ChatServer

from rrmap.errors import InputError
from rrmap.judge.tasks.mcq import (
    evaluate_mcq,
    match_option,
    mcq_accuracy,
    read_questions,
    validate_questions,
)
from rrmap.judge.transport.client import ChatClient, Endpoint

KEY_ENV = "RRMAP_TEST_JUDGE_KEY"

QUESTIONS = [
    {"id": "q1", "question": "Is the colour balanced?", "options": ["Yes", "No"],
     "answer": "No", "dimension": "color"},
    {"id": "q2", "question": "How is the aesthetic quality?", "options": ["High", "Medium", "Low"],
     "answer": "C", "dimension": "quality"},
    {"id": "q3", "question": "Which emotion does it convey?",
     "options": ["Joy", "Sadness", "Calm", "Anger"], "answer": "Calm", "dimension": "emotion"},
    {"id": "q4", "question": "Is the light soft?", "options": ["Yes", "No"], "answer": "A",
     "dimension": "color"},
    {"id": "q5", "question": "Is the horizon level?", "options": ["Yes", "No"], "answer": "Yes",
     "dimension": "color"},
    {"id": "q6", "question": "Which crop is best?", "options": ["Wide", "Square", "Tall"],
     "answer": "A", "dimension": "quality"},
]  # fmt: skip
KNOWN = {"Is the colour balanced?": "No", "How is the aesthetic quality?": "Low",
         "Is the horizon level?": "Yes"}  # fmt: skip


def _shown_options(text: str) -> dict[str, str]:
    return dict(re.findall(r"^([A-Z])\) (.+)$", text, re.MULTILINE))


def responder(body: dict) -> str:
    """A recorded 'model' answering each question in its own style."""
    text = body["messages"][-1]["content"]
    text = text if isinstance(text, str) else text[-1]["text"]
    if text.startswith("A model answered"):  # LLM-assisted matching
        opts = _shown_options(text)
        if "certainly is level" in text:
            return json.dumps({"option": next(k for k, v in opts.items() if v == "Yes")})
        return '{"option": null}'
    opts = _shown_options(text)
    letter_of = {v: k for k, v in opts.items()}
    if "colour balanced" in text:
        return letter_of["No"]
    if "aesthetic quality" in text:
        return f"The answer is ({letter_of['Low']})."
    if "emotion" in text:
        return "I'd say calm, given the muted blues."
    if "light soft" in text:
        return "Hard to say from this image."
    if "horizon level" in text:
        return "It certainly is level, so I agree."
    return "A"  # always the first letter


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, API_KEY)


def _run(**kw):
    table = validate_questions(QUESTIONS, check_files=False)
    with ChatServer(responder) as server:
        client = ChatClient(Endpoint(server.base_url, MODEL, api_key_env=KEY_ENV))
        res = evaluate_mcq(table, client, **kw)
    return res, server


def _nacc(acc: float, n: int) -> float:
    return (acc - 1 / n) / (1 - 1 / n)  # AesTest eq. 1


def test_plain_run_rules_and_accuracy():
    res, server = _run()
    assert len(server.answered) == 6
    r = res.responses.set_index("id")
    assert r["match_rule"].to_dict() == {
        "q1": "letter", "q2": "answer_phrase", "q3": "text_contained",
        "q4": "unmatched: no option letter or option text found",
        "q5": "unmatched: no option letter or option text found", "q6": "letter",
    }  # fmt: skip
    assert res.per_question["correct"].tolist() == [True, True, True, False, False, True]
    assert sorted(res.unmatched()["id"]) == ["q4", "q5"]
    acc = mcq_accuracy(res.per_question, by="dimension").set_index("dimension")
    # color: 1 of 3 (n = 2); quality: 2 of 2 (n = 3); emotion: 1 of 1 (n = 4)
    assert acc.loc["color", "acc"] == pytest.approx(1 / 3)
    assert acc.loc["color", "nacc"] == pytest.approx(_nacc(1 / 3, 2))
    assert acc.loc["color", "n_unmatched"] == 2
    assert acc.loc["quality", "nacc"] == pytest.approx(1.0)
    assert acc.loc["emotion", "chance"] == pytest.approx(0.25)
    overall = mcq_accuracy(res.per_question).iloc[0]
    assert overall["acc"] == pytest.approx(4 / 6)
    assert overall["nacc"] == pytest.approx(res.per_question["nacc"].mean())


def test_llm_assisted_matching_resolves_only_what_the_model_names():
    res, server = _run(llm_match=True)
    assert len(server.answered) == 6 + 2  # one matching call per unmatched reply
    r = res.responses.set_index("id")
    assert r.loc["q5", "match_rule"] == "llm" and bool(r.loc["q5", "correct"])
    assert r.loc["q4", "matched"] == ""
    assert r.loc["q4", "match_rule"].startswith("unmatched: no option letter")
    assert mcq_accuracy(res.per_question).iloc[0]["acc"] == pytest.approx(5 / 6)


def test_circular_evaluation_catches_a_position_habit():
    res, server = _run(circular=True)
    assert len(server.answered) == 2 + 3 + 4 + 2 + 2 + 3
    per = res.per_question.set_index("id")
    # q6 is answered "A" every time: right once, wrong in the other rotations
    assert per["correct"].to_dict() == {
        "q1": True, "q2": True, "q3": True, "q4": False, "q5": False, "q6": False
    }  # fmt: skip
    q6 = res.responses[res.responses["id"] == "q6"]
    assert q6["correct"].tolist() == [True, False, False]
    assert q6["answer"].tolist() == ["A", "C", "B"]


@pytest.mark.parametrize(
    ("reply", "options", "expected"),
    [
        ("B", ["Yes", "No"], (1, "letter")),
        ("**(b).**", ["Yes", "No"], (1, "letter")),
        ("C. Low, the horizon is tilted", ["High", "Medium", "Low"], (2, "letter_prefix")),
        ("Answer: [B]", ["High", "Medium", "Low"], (1, "answer_phrase")),
        ("the correct option is c", ["High", "Medium", "Low"], (2, "answer_phrase")),
        ("no.", ["Yes", "No"], (1, "text")),
        ("A balanced layout.", ["Yes", "No"], (None, "unmatched")),
        ("E", ["Yes", "No"], (None, "unmatched: letter 'E' is not among the 2 options")),
        ("A) No", ["Yes", "No"], (None, "unmatched: letter 'A' but the text of option 'B'")),
        ("Option A or option B", ["Yes", "No"], (None, "unmatched: the reply names several")),
        ("Yes and no.", ["Yes", "No"], (None, "unmatched: the reply contains several")),
        ("Very high contrast", ["High", "Very high"], (1, "text_contained")),
    ],
)
def test_match_rules(reply, options, expected):
    idx, rule = match_option(reply, options)
    assert idx == expected[0]
    assert rule.startswith(expected[1])


def test_question_file_problems_are_listed_together(tmp_path):
    p = tmp_path / "q.jsonl"
    p.write_text(
        '{"id": "q1", "question": "Q?", "options": ["Yes", "No"], "answer": "Maybe"}\n'
        '{"id": "q1", "question": "", "options": ["Only"], "answer": "A", "image": "x.png"}\n'
        "not json\n"
    )
    with pytest.raises(InputError, match=r"line 3: not valid JSON"):
        read_questions(p)
    p.write_text(
        '{"id": "q1", "question": "Q?", "options": ["Yes", "No"], "answer": "Maybe"}\n'
        '{"id": "q1", "question": "", "options": ["Only"], "answer": "A", "image": "x.png"}\n'
    )
    with pytest.raises(InputError) as info:
        read_questions(p)
    msg = str(info.value)
    assert "line 1: answer 'Maybe' is neither an option letter (A-B)" in msg
    assert "line 2: id 'q1' already used on line 1" in msg
    assert "line 2: 'question' is empty" in msg
    assert "line 2: needs at least 2 options, found 1" in msg
    assert re.search(r"line 2: image file .*x\.png not found", msg)


def test_csv_questions_with_option_columns_and_pipes(tmp_path):
    (tmp_path / "q.csv").write_text(
        "id,question,option_a,option_b,option_c,answer,source\na,Quality?,High,Medium,,B,photo\n"
    )
    q = read_questions(tmp_path / "q.csv", check_files=False)
    assert q.loc[0, "options"] == ["High", "Medium"] and q.loc[0, "answer"] == "B"
    assert q.loc[0, "source"] == "photo"
    (tmp_path / "r.csv").write_text("id,question,options,answer\nb,Tone?,Warm|Cold,Cold\n")
    assert read_questions(tmp_path / "r.csv")["answer"].tolist() == ["B"]


def test_accuracy_by_unknown_column():
    res, _ = _run()
    with pytest.raises(
        InputError, match=r"no column\(s\) style to group by; available: id, n_options"
    ):
        mcq_accuracy(res.per_question, by="style")


def test_a_reply_negating_the_right_option_is_not_scored_correct():
    table = validate_questions(
        [{"id": "n1", "question": "Which flaw?", "options": ["Grainy noise", "Blur"],
          "answer": "A"}],
        check_files=False,
    )  # fmt: skip
    with ChatServer(lambda body: "It has no grainy noise at all.") as server:
        client = ChatClient(Endpoint(server.base_url, MODEL, api_key_env=KEY_ENV))
        res = evaluate_mcq(table, client)
    row = res.responses.iloc[0]
    assert row["matched"] == "" and not bool(row["correct"])
    assert (
        row["match_rule"] == "unmatched: the reply names the text of option 'A' only to negate it"
    )
    assert res.per_question["correct"].tolist() == [False]
