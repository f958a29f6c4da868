"""``--help`` reads as plain text: code without its backticks, defaults as people write them."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from rrmap.cli import main
from rrmap.cli._reference_docs import _walk


def _help(*words: str) -> str:
    res = CliRunner().invoke(main, [*words, "--help"], terminal_width=80)
    assert res.exit_code == 0, res.output
    return res.output


def _commands():
    # get_command loads each command as `rrmap` does, and gives it rrmap's help context
    return [path[1:] for path, _ in _walk(main, ["rrmap"])]


@pytest.mark.parametrize("words", _commands(), ids=lambda w: " ".join(w) or "rrmap")
def test_no_help_text_shows_a_backtick(words):
    assert "`" not in _help(*words)


def test_code_in_a_help_text_is_quoted_and_options_are_bare():
    text = " ".join(_help("rank", "align").split())
    assert "such as the output of 'rrmap rank fit' (CSV or JSON" in text
    assert "(filter comparisons beforehand with 'rrmap rank filter')" in text
    text = " ".join(_help("judge", "subjectivity").split())
    assert "(from '2afc --per-order')" in text


def test_stereotype_r_shows_its_default_as_a_fraction():
    text = " ".join(_help("points").split())
    assert "--stereotype-r FLOAT R below which a centred point is a stereotype" in text
    assert "[default: 2/3]" in text
    assert "0.666" not in text


@pytest.mark.parametrize("value", ["2/3", "0.6666666666666666", " 2/3 "])
def test_stereotype_r_takes_a_fraction_or_a_decimal(value, tmp_path):
    out = tmp_path / "points.csv"
    args = ["points", "data/example_ratings.csv", "--stereotype-r", value, "-o", str(out)]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    assert out.read_text(encoding="utf-8").count("stereotype") > 0


@pytest.mark.parametrize("value", ["1/0", "two thirds", "2/3/4", "1" + "0" * 400 + "/3"])
def test_a_value_that_is_no_number_is_a_usage_error(value):
    res = CliRunner().invoke(main, ["points", "data/example_ratings.csv", "--stereotype-r", value])
    assert res.exit_code == 2
    assert (
        f"Error: Invalid value for '--stereotype-r': '{value}' is not a number (write 0.5 or 2/3)"
        in res.output
    )
