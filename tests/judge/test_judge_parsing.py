"""rrmap.judge.parsing: the reply formats real models produce, and refusing to guess."""

from __future__ import annotations

import pytest

from rrmap.judge.parsing import (
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
