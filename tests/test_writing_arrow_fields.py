"""Arrow-held text columns are written by a vectorised path: only the values a spreadsheet
or CSV quoting would change go through the field function one by one. The text is that of
the one-value-at-a-time path for every separator, with and without formula escaping."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from properties import examples

import rrmap._io.writing as writing
from rrmap._io.keys import nfc_labels
from rrmap._util.escape import LINE_BREAKS, SPREADSHEET_TRIGGERS

#: Characters that matter to the escaping and the quoting, and some that do not.
ALPHABET = st.sampled_from([*LINE_BREAKS, *SPREADSHEET_TRIGGERS, ",", ";", "|", '"', "'",
                            "a", "\u00e9", "\u0301", " ", "x"])  # fmt: skip


def _one_by_one(df, raw, sep):
    saved = writing._arrow_fields
    writing._arrow_fields = lambda col, field: None
    try:
        return writing.csv_text(df, raw=raw, sep=sep)
    finally:
        writing._arrow_fields = saved


LABELS = st.lists(st.one_of(st.none(), st.text(ALPHABET, max_size=5)), min_size=1, max_size=25)


@settings(max_examples=examples(150), deadline=None)
@given(LABELS)
def test_the_vectorised_fields_are_the_one_by_one_fields(labels):
    df = pd.DataFrame(
        {
            "a": pd.array(labels, dtype="str"),
            "b": pd.array(labels[::-1], dtype="string[pyarrow]"),
            "n": range(len(labels)),
        }
    )
    for raw in (False, True):
        for sep in writing.SEPARATORS:
            assert writing.csv_text(df, raw=raw, sep=sep) == _one_by_one(df, raw, sep)


def test_the_vectorised_path_escapes_formulas_and_quotes():
    df = pd.DataFrame({"k": pd.array(["=1+1", "a\n@b", "x,y", "plain", None], dtype="str"),
                       "n": [1, 2, 3, 4, 5]})  # fmt: skip
    assert writing._arrow_fields(df["k"], writing._Field(False, ",")) is not None
    assert writing.csv_text(df) == 'k,n\n\'=1+1,1\n"a\n\'@b",2\n"x,y",3\nplain,4\n,5\n'


@pytest.mark.parametrize("dtype", ["str", "string[pyarrow]", "object"])
def test_labels_become_nfc_whatever_holds_them(dtype):
    text = pd.Series(["Caf\u00e9", "Cafe\u0301", "Bar", None], dtype=dtype)
    out, merged = nfc_labels(text)
    assert out.tolist()[:3] == ["Caf\u00e9", "Caf\u00e9", "Bar"]
    assert merged == [("Caf\u00e9", ["Caf\u00e9", "Cafe\u0301"])]
    nfc = pd.Series(["Caf\u00e9", "Bar"], dtype=dtype)
    assert nfc_labels(nfc)[0] is nfc  # nothing to change: the column itself
