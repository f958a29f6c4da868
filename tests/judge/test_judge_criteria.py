import re

import pandas as pd
import pytest

import rrmap
from rrmap.errors import InputError
from rrmap.judge.prompting.criteria import load_criteria, study_criteria


def test_study_criteria_match_the_study_and_the_example_file():
    cs = study_criteria()
    assert len(cs) == 9
    groups = pd.Series([c.group for c in cs]).value_counts().to_dict()
    assert groups == {"topological": 3, "eidetic": 3, "chromatic": 3}
    raw = pd.read_csv(rrmap.datasets.example_ratings_path())
    pairs = set(map(tuple, raw[["criterion", "criterion group"]].drop_duplicates().to_numpy()))
    assert {(c.name, c.group) for c in cs} == pairs
    assert all(c.scale == (0.0, 100.0) for c in cs)
    assert all(c.low.definition and c.high.definition for c in cs)


def test_custom_file_yaml_and_json(tmp_path):
    y = tmp_path / "c.yaml"
    y.write_text(
        "scale: [1, 7]\ncriteria:\n  - name: hair\n    group: face\n"
        "    low: {label: dark hair, definition: Black or dark brown.}\n"
        "    high: {label: light hair, definition: Blond or white.}\n"
    )
    (c,) = load_criteria(y)
    assert (c.name, c.group, c.low.label, c.high.label, c.scale) == (
        "hair",
        "face",
        "dark hair",
        "light hair",
        (1.0, 7.0),
    )
    j = tmp_path / "c.json"
    j.write_text(
        '{"criteria": [{"name": "a", "group": "g", "low": {"label": "x", "definition": "d"},'
        ' "high": {"label": "y", "definition": "e"}}]}'
    )
    assert load_criteria(j)[0].scale == (0.0, 100.0)


def test_all_problems_reported_at_once(tmp_path):
    y = tmp_path / "bad.yaml"
    y.write_text(
        "criteria:\n  - name: a\n    low: {label: x}\n    high: {label: y, definition: d}\n"
        "  - name: a\n    group: g\n    low: {label: x, definition: d}\n"
    )
    with pytest.raises(InputError) as exc:
        load_criteria(y)
    msg = str(exc.value)
    assert "criterion #1 (a): missing 'group'" in msg
    assert "criterion #1 (a): pole 'low' has no 'definition'" in msg
    assert "criterion #2 (a): duplicated name 'a'" in msg
    assert "criterion #2 (a): pole 'high' needs a 'label'" in msg


def test_bad_scale_and_syntax(tmp_path):
    y = tmp_path / "s.yaml"
    y.write_text("scale: [5, 1]\ncriteria: []\n")
    with pytest.raises(InputError, match=r"'scale' must be two numbers low < high, got \[5, 1\]"):
        load_criteria(y)
    y.write_text("criteria: [unclosed\n")
    with pytest.raises(InputError, match="not valid yaml"):
        load_criteria(y)
    with pytest.raises(FileNotFoundError):
        load_criteria(tmp_path / "missing.yaml")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- just a list\n", "expected a mapping with a 'criteria' list"),
        ("criteria: []\n", "'criteria' must be a non-empty list"),
        ("criteria: [plain]\n", "criterion #1: expected a mapping, got 'plain'"),
    ],
)
def test_structure_problems(tmp_path, text, message):
    y = tmp_path / "c.yaml"
    y.write_text(text)
    with pytest.raises(InputError, match=re.escape(message)):
        load_criteria(y)
