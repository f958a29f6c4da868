from pathlib import Path

import pytest

from rrmap.cli._reference_docs import api_reference, cli_reference

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize(("name", "render"), [("cli.md", cli_reference), ("api.md", api_reference)])
def test_reference_pages_are_up_to_date(name, render):
    assert (DOCS / name).read_text(encoding="utf-8") == render(), (
        f"docs/{name} is stale: run `python -m rrmap.cli._reference_docs`"
    )


def test_references_list_commands_and_functions():
    assert "## `rrmap points`" in cli_reference() and "--reference TEXT" in cli_reference()
    api = api_reference()
    assert '| <autoref identifier="rrmap.points.points" optional><code>points(ratings, *,' in api
    assert "RRMap points" in api
    assert "## `rrmap.rank`" in api and "## `rrmap.judge`" in api
