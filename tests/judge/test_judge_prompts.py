"""rrmap.judge.prompting.prompts: defaults follow ArtCoT's answer keys; user files replace prompts."""

from __future__ import annotations

import pytest

from rrmap.errors import InputError
from rrmap.judge.prompting.prompts import DEFAULT_PROMPTS, load_prompts, render


@pytest.mark.parametrize(
    ("name", "keys"),
    [
        ("base", ['"winner"']),
        ("cot", ['"thinking"', '"winner"']),
        (
            "artcot_analyser",
            ['"style_reason"', '"content_reason"', '"style_winner"', '"content_winner"'],
        ),
        ("artcot_critic", ['"reflection"']),
        ("artcot_summary", ['"winner"']),
    ],
)
def test_answer_keys_of_the_2afc_prompts(name, keys):
    text = getattr(DEFAULT_PROMPTS, name)
    for k in keys:
        assert k in text
    if "winner" in " ".join(keys):
        assert "left" in text and "right" in text


def test_render_fills_and_reports_unknown_placeholders():
    assert render("a ${style} b", style="x") == "a x b"
    with pytest.raises(InputError, match=r"placeholder \$\{colour\} is unknown here"):
        render("${colour}", style="x")


def test_user_file_replaces_only_named_prompts(tmp_path):
    p = tmp_path / "p.json"
    p.write_text('{"artcot_critic": "Be a critic of ${style}."}')
    prompts = load_prompts(p)
    assert prompts.artcot_critic == "Be a critic of ${style}."
    assert prompts.base == DEFAULT_PROMPTS.base


def test_user_file_problems_are_listed_together(tmp_path):
    p = tmp_path / "p.yaml"
    p.write_text("bse: hello\ncot: 3\n")
    with pytest.raises(
        InputError, match=r"unknown prompt name 'bse'; prompt 'cot' is not a string"
    ):
        load_prompts(p)
    p.write_text("- a list\n")
    with pytest.raises(InputError, match="expected a mapping"):
        load_prompts(p)


def test_unparseable_prompt_file(tmp_path):
    p = tmp_path / "p.json"
    p.write_text("{not json")
    with pytest.raises(InputError, match=r"p\.json: cannot parse prompts file"):
        load_prompts(p)
