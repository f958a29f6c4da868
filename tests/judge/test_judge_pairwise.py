"""rrmap.judge.tasks.pairwise over real HTTP: ArtCoT conversations, both orders, bias, invalid answers."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from chat_server import API_KEY, MODEL, ChatServer
from PIL import Image
from scipy.stats import binomtest

from rrmap.errors import InputError
from rrmap.judge.tasks.judges import FunctionChat, RandomJudge, ScoreJudge
from rrmap.judge.tasks.orders import position_bias
from rrmap.judge.tasks.pairwise import judge_pairs, read_pairs
from rrmap.judge.transport.client import ChatClient, Endpoint
from rrmap.rank import validate_comparisons

KEY_ENV = "RRMAP_TEST_JUDGE_KEY"


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, API_KEY)


def _pairs(styles=("flat colour",), n=3) -> pd.DataFrame:
    """Pairs whose brighter candidate alternates between a and b."""
    rows = []
    for s, style in enumerate(styles):
        for i in range(n):
            # every row its own shades: identical requests would be sent only once
            dark, light = (
                Image.new("RGB", (24, 24), (30 + i, 30, 30 + s)),
                Image.new("RGB", (24, 24), (220 - i, 220, 220 - s)),
            )
            a, b = (light, dark) if i % 2 == 0 else (dark, light)
            rows.append({
                "instance": f"inst{s}", "style": style,
                "source_image": Image.new("RGB", (24, 24), (128, 0, 0)),
                "candidate_a": f"m{i}", "image_a": a, "candidate_b": f"m{i + 1}", "image_b": b,
            })  # fmt: skip
    return pd.DataFrame(rows)


def _client(server: ChatServer, **kw) -> ChatClient:
    kw.setdefault("backoff", 0.01)
    return ChatClient(Endpoint(server.base_url, MODEL, api_key_env=KEY_ENV, **kw))


def _brighter(row) -> str:
    return "left" if row.name % 2 == 0 else "right"  # a is bright on even rows


def test_artcot_verdicts_follow_the_images_not_the_positions():
    pairs = _pairs(n=4)
    with ChatServer() as server:
        res = judge_pairs(pairs, _client(server, concurrency=4), mode="artcot")
    assert len(server.answered) == 4 * 2 * 3
    expected = pairs.apply(_brighter, axis=1).tolist()
    assert res.comparisons["winner"].tolist() == expected
    assert (res.comparisons["agreement"] == "agree").all()
    assert res.comparisons["left"].tolist() == pairs["candidate_a"].tolist()
    bias = res.bias.iloc[0]
    assert bias["left_rate"] == 0.5 and bias["consistency"] == 1.0
    assert bias["left_rate_p"] == pytest.approx(binomtest(4, 8, 0.5).pvalue)
    validate_comparisons(res.comparisons)  # rrmap.rank accepts it
    assert res.stats.calls == 24 and res.stats.prompt_tokens > 0


def test_each_artcot_turn_sees_the_previous_answers():
    with ChatServer() as server:
        judge_pairs(_pairs(n=1), _client(server), mode="artcot", orders="ab")
    bodies = sorted(server.answered, key=lambda b: len(b["messages"]))
    assert [len(b["messages"]) for b in bodies] == [1, 3, 5]
    first, second, third = bodies
    assert "Step 2 of 3" in second["messages"][2]["content"][0]["text"]
    # the analyser's and critic's replies are passed on verbatim as assistant turns
    assert second["messages"][1]["role"] == "assistant"
    assert "'style_reason'" in second["messages"][1]["content"]
    assert third["messages"][1] == second["messages"][1]
    assert '"reflection"' in third["messages"][3]["content"]
    assert "Step 3 of 3" in third["messages"][4]["content"][0]["text"]
    # the image is sent once, in the first turn
    assert [p["type"] for p in first["messages"][0]["content"]] == ["image_url", "text"]


def test_always_left_judge_is_inconsistent_and_pairs_become_ties():
    with ChatServer() as server:
        res = judge_pairs(_pairs(styles=("LEFTY pop art",)), _client(server), mode="base")
    assert (res.per_order["winner"] == "left").all()
    assert (res.comparisons["winner"] == "tie").all()
    assert (res.comparisons["agreement"] == "disagree").all()
    assert res.bias.loc[0, ["left_rate", "consistency"]].tolist() == [1.0, 0.0]


def test_unreadable_final_answer_is_reasked_once_with_a_reminder():
    with ChatServer() as server:
        res = judge_pairs(_pairs(styles=("UNREADABLE ink",), n=2), _client(server), mode="artcot")
    assert len(server.answered) == 2 * 2 * 4
    assert res.per_order["valid"].all()
    reminders = [b for b in server.answered if len(b["messages"]) == 7]
    assert len(reminders) == 4
    assert "could not be read" in reminders[0]["messages"][6]["content"]
    turns = [t["turn"] for t in json.loads(res.per_order["answers"][0])]
    assert turns == ["artcot_analyser", "artcot_critic", "artcot_summary", "format_reminder"]


@pytest.mark.parametrize(
    ("style", "retries", "calls"), [("HOPELESS x", 1, 4), ("UNREADABLE", 0, 3)]
)
def test_invalid_answers_are_kept_raw_and_excluded(style, retries, calls):
    with ChatServer() as server:
        res = judge_pairs(
            _pairs(styles=(style,), n=1), _client(server), mode="artcot", format_retries=retries
        )
    assert len(server.answered) == 2 * calls
    assert not res.per_order["valid"].any()
    assert (res.per_order["winner"] == "").all()
    assert res.per_order["error"].str.startswith("unreadable answer: no JSON object").all()
    raw = json.loads(res.per_order["answers"][0])[-1]["text"]
    assert raw.startswith(("Overall I would go with", "As I said"))
    assert len(res.comparisons) == 0
    assert len(res.excluded) == 1
    assert "excluded (no valid answer)" in res.summary()


def test_failed_call_invalidates_only_its_order():
    with ChatServer(faults={1: "500"}) as server:
        res = judge_pairs(
            _pairs(n=2), _client(server, concurrency=1, max_retries=0), mode="base", in_flight=1
        )
    assert len(server.answered) == 3
    po = res.per_order
    assert po["error"].str.startswith("call failed").sum() == 1
    assert sorted(res.comparisons["agreement"]) == ["agree", "single"]
    assert res.stats.failed == 1


@pytest.mark.parametrize(("mode", "parts"), [("base", 4), ("cot", 4)])
def test_separate_images_mode(mode, parts):
    with ChatServer() as server:
        res = judge_pairs(_pairs(n=2), _client(server), mode=mode, composite=False)
    assert [len(b["messages"][0]["content"]) for b in server.answered] == [parts] * 4
    assert res.comparisons["winner"].tolist() == ["left", "right"]


def test_python_function_backend_and_baselines():
    pairs = _pairs(n=4)
    res = judge_pairs(pairs, FunctionChat(lambda m: '{"winner": 1}', "righty"), mode="cot")
    assert res.bias.loc[0, ["left_rate", "consistency"]].tolist() == [0.0, 0.0]
    r1 = judge_pairs(pairs, RandomJudge(rng=7)).per_order["winner"].tolist()
    r2 = judge_pairs(pairs, RandomJudge(rng=7)).per_order["winner"].tolist()
    assert r1 == r2 and set(r1) <= {"left", "right"}
    scorer = ScoreJudge(lambda im: float(np.asarray(im.convert("L")).sum()), "brightness")
    res = judge_pairs(pairs, scorer)
    assert res.comparisons["winner"].tolist() == pairs.apply(_brighter, axis=1).tolist()
    assert (res.per_order["mode"] == "baseline").all()


def test_position_bias_counts_match_a_hand_count():
    po = pd.DataFrame({
        "pair": [0, 0, 1, 1, 2, 2], "order": ["ab", "ba"] * 3,
        "left": ["a", "b", "c", "d", "e", "f"], "right": ["b", "a", "d", "c", "f", "e"],
        "winner": ["left", "left", "right", "left", "left", ""],
        "valid": [True, True, True, True, True, False], "mode": "base", "model": "x",
    })  # fmt: skip
    b = position_bias(po).iloc[0]
    # 4 of 5 valid verdicts are "left"; pair 1 chose c both times, pair 0 chose a then b
    assert (b["n_valid"], b["left_rate"], b["n_pairs_both_valid"]) == (5, 0.8, 2)
    assert b["consistency"] == 0.5


def test_read_pairs_reports_every_problem(tmp_path):
    Image.new("RGB", (4, 4)).save(tmp_path / "s.png")
    (tmp_path / "P.csv").write_text(
        "instance,style,source_image,candidate_a,image_a,candidate_b,image_b\n"
        "i1,ink,s.png,m1,s.png,m2,missing.png\n"
        "i2,,s.png,m1,s.png,m1,s.png\n"
    )
    with pytest.raises(InputError) as info:
        read_pairs(tmp_path / "P.csv")
    msg = str(info.value)
    assert "3 problems" in msg
    assert "column 'style' is empty on line(s) 3" in msg
    assert "line 3: candidate_a and candidate_b are both 'm1'" in msg
    assert "missing.png not found (line(s) 2)" in msg
    (tmp_path / "Q.csv").write_text("instance,style\ni,x\n")
    with pytest.raises(InputError, match=r"missing column.*source_image"):
        read_pairs(tmp_path / "Q.csv")


def test_bad_mode_and_orders():
    with pytest.raises(InputError, match="mode must be one of base, cot, artcot"):
        judge_pairs(_pairs(n=1), RandomJudge(0), mode="fancy")
    with pytest.raises(InputError, match="orders must be 'both' or 'ab'"):
        judge_pairs(_pairs(n=1), RandomJudge(0), orders="ba")
    with pytest.raises(InputError, match=r"missing column\(s\) style, source_image"):
        judge_pairs(_pairs(n=1).drop(columns=["style", "source_image"]), RandomJudge(0))


def test_faults_mid_run_change_nothing_but_the_request_count():
    pairs = _pairs(n=4)
    with ChatServer() as clean_server:
        clean = judge_pairs(pairs, _client(clean_server, concurrency=3), mode="artcot")
    faults = {3: "429", 7: "drop", 12: "500", 15: "slow", 20: "garbage", 21: "drop"}
    with ChatServer(faults=faults, slow_seconds=1.0, retry_after=0.05) as server:
        client = _client(server, concurrency=3, timeout=0.5)
        faulty = judge_pairs(pairs, client, mode="artcot")
    assert server.received == 24 + len(faults)
    assert client.stats.retries == len(faults)
    cols = ["instance", "left", "right", "winner", "agreement"]
    assert faulty.comparisons[cols].equals(clean.comparisons[cols])
    assert faulty.per_order["valid"].all()


def test_empty_pairs_file(tmp_path):
    (tmp_path / "e.csv").write_text("")
    with pytest.raises(InputError, match=r"e\.csv: the file is empty"):
        read_pairs(tmp_path / "e.csv")


@pytest.mark.parametrize(
    "n",
    # further size of the check (n = 200 has every k; scipy takes ~10 ms a k)
    [1, 2, 7, 10, 51, 200, pytest.param(1001, marks=pytest.mark.slow)],
)
def test_sign_test_is_scipys_binomial_test(n):
    from scipy.stats import binomtest

    from rrmap.judge.tasks.orders import sign_test

    # every k up to 200; past that (scipy takes ~10 ms a call) both tails and the middle,
    # where the two-sided p-value's ties and its cap at 1 lie, and every 25th k between
    ks = range(n + 1)
    if n > 200:
        ks = sorted({*range(40), *range(n // 2 - 40, n // 2 + 41), *range(n - 39, n + 1),
                     *range(0, n + 1, 25)})  # fmt: skip
    for k in ks:
        assert sign_test(k, n) == pytest.approx(binomtest(k, n, 0.5).pvalue, rel=1e-12, abs=0)


def test_a_verdict_giving_the_winner_twice_is_reasked_not_read_as_the_last():
    def twice(body):
        reminded = "could not be read" in json.dumps(body["messages"][-1])
        return '{"winner": 0}' if reminded else '{"winner": 0, "winner": 1}'

    with ChatServer(twice) as server:
        res = judge_pairs(_pairs(n=1), _client(server), mode="base", orders="ab")
    assert len(server.answered) == 2  # the answer, then the format reminder
    assert res.per_order["winner"].tolist() == ["left"]
    first = json.loads(res.per_order["answers"][0])[0]
    assert first["text"] == '{"winner": 0, "winner": 1}'
