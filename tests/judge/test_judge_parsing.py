"""rrmap.judge.prompting.parsing: the reply formats real models produce, and refusing to guess."""

from __future__ import annotations

import pytest

from rrmap.judge.prompting.parsing import (
    choice01,
    extract_mapping,
    parse_fields,
    score012,
    text_field,
)

WINNER = {"winner": choice01}


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"winner": 1}', 1),
        ("{'winner': 0}", 0),
        ('```json\n{"winner": 1}\n```', 1),
        ("```python\n{'winner': 0}\n```", 0),
        ("```\n{'winner': 1}\n```\nLet me know if you need more.", 1),
        ('After weighing both, the answer is {"winner": 0}.', 0),
        ("{'thinking': \"It's the right one: {bold} colours\", 'winner': 1}", 1),
        ('{"winner": "right"}', 1),
        ('{"winner": "1"}', 1),
        ("winner: 1", 1),
        ("Winner = 0", 0),
        ("{'style_winner': 0, 'winner': 1}", 1),
        ("Here: {'reason': 'x'} and then {'winner': 0}", 0),
        ("{'winner': 1", 1),  # cut off by max_tokens, yet the key and value are explicit
    ],
)
def test_readable_replies(reply, expected):
    parsed = parse_fields(reply, WINNER)
    assert parsed.ok, parsed.error
    assert parsed.value == {"winner": expected}


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        ("The left image is better.", "no JSON object or dict with the fields winner"),
        ("", "empty reply"),
        (None, "empty reply"),
        ("{'winner': 2}", "field 'winner': 2 is not 0 or 1"),
        ("{'winner': True}", "field 'winner': True is not 0 or 1"),
        ("{'winner': 'both'}", "field 'winner': 'both' is not 0 or 1"),
        ("winner: 0 ... actually winner: 1", "conflicting values"),
        ("{'style_winner': 1}", "no JSON object or dict with the fields winner"),
    ],
)
def test_unreadable_replies_are_not_guessed(reply, error):
    parsed = parse_fields(reply, WINNER)
    assert not parsed.ok
    assert error in parsed.error


def test_several_fields_are_checked_together():
    fields = {"relevance": score012, "relevance_reason": text_field}
    ok = parse_fields('{"relevance": 2, "relevance_reason": " on topic "}', fields)
    assert ok.value == {"relevance": 2, "relevance_reason": "on topic"}
    bad = parse_fields('{"relevance": 3, "relevance_reason": ""}', fields)
    assert "field 'relevance': 3 is not 0, 1 or 2" in bad.error
    assert "field 'relevance_reason'" in bad.error


def test_extract_mapping_prefers_a_mapping_with_the_required_keys():
    text = "{'a': 1} then {'b': 2}"
    assert extract_mapping(text) == {"a": 1}
    assert extract_mapping(text, ("b",)) == {"b": 2}
    assert extract_mapping("[1, 2]") is None


@pytest.mark.parametrize("value", [0.5, -1, "zero", None, [0]])
def test_choice01_rejects(value):
    with pytest.raises(ValueError, match="is not 0 or 1"):
        choice01(value)


# --- replies as models write them: what each one chooses, or why it chooses nothing -------

THREE = ["High", "Medium", "Low"]
TWO = ["Yes", "No"]

REPLIES = [
    # (reply, options, chosen index or None, rule or the start of the reason)
    ("B", THREE, 1, "letter"),
    ("(c)", THREE, 2, "letter"),
    ("**A**", THREE, 0, "letter"),
    ("B) Medium", THREE, 1, "letter_prefix"),
    ("The answer is B.", THREE, 1, "answer_phrase"),
    ("The answer is A because the palette is harmonious.", THREE, 0, "answer_phrase"),
    ("Answer: (C)", THREE, 2, "answer_phrase"),
    ("answer: b", THREE, 1, "answer_phrase"),
    ("I would pick option A.", THREE, 0, "answer_phrase"),
    ("My answer is B, not C.", THREE, 1, "answer_phrase"),
    ("Medium", THREE, 1, "text"),
    ("It has medium aesthetic appeal.", THREE, 1, "text_contained"),
    ("My choice is a medium one", THREE, 1, "text_contained"),  # "a" is an article
    ("The answer is a bit unclear", THREE, None, "unmatched: no option letter"),
    ("The answer is I think B", THREE, None, "unmatched"),  # "I" is a pronoun
    ("answer is b because of the light", THREE, None, "unmatched"),
    ("Answer: B and C", THREE, None, "unmatched: the reply names several letters ['B', 'C']"),
    ("The answer is B or C.", THREE, None, "unmatched: the reply names several letters"),
    ("Choice: A/B", TWO, None, "unmatched: the reply names several letters ['A', 'B']"),
    ("Answer: D", TWO, None, "unmatched: letter 'D' is not among the 2 options"),
    ("D", TWO, None, "unmatched: letter 'D' is not among the 2 options"),
    ("C) Maybe", TWO, None, "unmatched: letter 'C' is not among the 2 options"),
    ("A) No", TWO, None, "unmatched: letter 'A' but the text of option 'B'"),
    ("Hard to say.", TWO, None, "unmatched: no option letter or option text found"),
    ("", TWO, None, "unmatched: empty reply"),
]


@pytest.mark.parametrize(("reply", "options", "index", "rule"), REPLIES)
def test_realistic_replies_choose_what_they_say(reply, options, index, rule):
    from rrmap.judge.tasks.mcq import match_option

    got, why = match_option(reply, options)
    assert got == index
    assert why.startswith(rule)


@pytest.mark.parametrize(
    ("reply", "winner", "error"),
    [
        ('{"winner": 0} on reflection the other one: {"winner": 1}', None, "conflicting answers"),
        ("```json\n{\"winner\": 1}\n```\nSo: {'winner': 1}", 1, None),  # repeated, same answer
        ("{'winner': 0}", 0, None),
        ("winner: 1, and also winner: 0", None, "conflicting values"),
    ],
)
def test_two_different_winners_in_one_reply_are_invalid(reply, winner, error):
    p = parse_fields(reply, {"winner": choice01})
    if winner is None:
        assert p.value is None and error in p.error
    else:
        assert p.value == {"winner": winner}


def test_differing_reasons_with_the_same_winner_are_one_answer():
    reply = '{"winner": 1, "reason": "a"} and again {"winner": 1, "reason": "b"}'
    assert parse_fields(reply, {"winner": choice01, "reason": text_field}).value == {
        "winner": 1,
        "reason": "a",
    }


@pytest.mark.parametrize(
    "reply",
    [
        '{"a":' * 100_000,  # unclosed and deeper than Python reads
        '{"a":' * 20_000 + "1" + "}" * 20_000,  # closed, balanced, still too deep
        "{'a': " * 20_000 + "1" + "}" * 20_000,  # the same as a Python literal
        "[" * 100_000,
    ],
)
def test_nesting_too_deep_is_an_invalid_reply_not_a_crash(reply):
    parsed = parse_fields(reply, WINNER)
    assert parsed.value is None
    assert parsed.error == "no JSON object or dict with the fields winner"
    assert extract_mapping(reply) is None


def test_a_readable_answer_after_a_too_deep_one_is_still_found():
    reply = '{"a":' * 5_000 + ' ... anyway: {"winner": 1}'
    assert parse_fields(reply, WINNER).value == {"winner": 1}


def test_quotes_after_blanks_still_open_strings():
    # the character before a quote is the last one that is not blank
    reply = "{'winner':   'left', 'why': \"it's {cleaner}\"}"
    assert parse_fields(reply, WINNER).value == {"winner": 0}


def test_a_mapping_among_many_spans_is_found():
    reply = "{x} " * 5_000 + "{'winner': 'right'}"
    assert extract_mapping(reply, ("winner",)) == {"winner": "right"}


def test_quotes_take_linear_time():
    import time

    reply = '{"a": "b", ' * 200_000  # 800,000 quotes inside one open brace
    start = time.perf_counter()
    assert parse_fields(reply, WINNER).value is None
    assert time.perf_counter() - start < 10


@pytest.mark.parametrize(
    ("reply", "key"),
    [
        ('{"winner": 0, "winner": 1}', "'winner'"),  # JSON alone would read 1
        ("{'winner': 1, 'winner': 0}", "'winner'"),  # a Python literal likewise
        ('Verdict: ```json\n{"winner": 1,\n "winner": 0}\n```', "'winner'"),
        ('{"reason": "left", "reason": "right", "winner": 0}', "'reason'"),
        ('{"winner": 0, "detail": {"w": 1, "w": 0}}', "'w'"),  # nested, too
    ],
)
def test_a_key_given_twice_with_different_values_is_invalid(reply, key):
    p = parse_fields(reply, {"winner": choice01})
    assert p.value is None
    assert p.error.startswith(f"the reply gives the key {key} twice, with different values")
    assert extract_mapping(reply, ("winner",)) is None


def test_a_key_repeated_with_the_same_value_is_one_answer():
    assert parse_fields('{"winner": 1, "winner": 1}', {"winner": choice01}).value == {"winner": 1}
    assert parse_fields("{'winner': 0, 'winner': 0}", {"winner": choice01}).value == {"winner": 0}


NOISE = ["Grainy noise", "Blur", "Banding"]


@pytest.mark.parametrize(
    ("reply", "index", "rule"),
    [
        ("It has no grainy noise at all.", None, "unmatched: the reply names the text of option 'A' only to negate it"),
        ("Grainy noise is absent.", None, "unmatched: the reply names the text of option 'A'"),
        ("There isn't any grainy noise here.", None, "unmatched: the reply names the text"),
        ("Without banding, I see no blur.", None, "unmatched: the reply names the text of option 'B', 'C'"),
        ("It shows grainy noise, not blur.", 0, "text_contained"),
        ("No blur; the flaw is banding.", 2, "text_contained"),
        ("Plenty of grainy noise in the sky.", 0, "text_contained"),
    ],
)  # fmt: skip
def test_an_option_named_only_to_be_negated_is_not_chosen(reply, index, rule):
    from rrmap.judge.tasks.mcq import match_option

    got, why = match_option(reply, NOISE)
    assert (got, why[: len(rule)]) == (index, rule)


def test_negating_words_inside_an_option_are_its_own():
    from rrmap.judge.tasks.mcq import match_option

    assert match_option("It shows no visible flaws.", ["No visible flaws", "Flaws"]) == (
        0,
        "text_contained",
    )
    assert match_option("No, it is not balanced.", ["Yes", "No"]) == (1, "text_contained")
