from pathlib import Path

from rrmap._cli_docs import cli_reference

DOC = Path(__file__).resolve().parents[1] / "docs" / "cli.md"


def test_cli_reference_is_up_to_date():
    assert DOC.read_text(encoding="utf-8") == cli_reference(), (
        "docs/cli.md is stale: run `python -m rrmap._cli_docs > docs/cli.md`"
    )


def test_reference_lists_every_command():
    text = cli_reference()
    assert "## `rrmap points`" in text and "--reference TEXT" in text
