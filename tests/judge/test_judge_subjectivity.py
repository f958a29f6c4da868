"""rrmap.judge.tasks.subjectivity: lexicon score and subjective words per 100 words."""

from __future__ import annotations

import pandas as pd
import pytest

from rrmap.errors import InputError
from rrmap.judge.tasks.subjectivity import (
    load_lexicon,
    reply_texts,
    subjectivity,
    subjectivity_by,
)

# the ArtCoT paper's own examples of sensational and hedge words
PAPER_WORDS = ["feels", "sense", "appears", "somewhat"]


@pytest.mark.parametrize("word", PAPER_WORDS)
def test_papers_examples_are_subjective(word):
    assert subjectivity(word)["n_subjective"] == 1


@pytest.mark.parametrize(
    ("word", "lemma"),
    [("feels", "feel"), ("evoked", "evoke"), ("captivating", "captivate"),
     ("seemed", "seem"), ("beautifully", "beautiful"), ("outlines", "outline")],
)  # fmt: skip
def test_inflections_find_their_lemma(word, lemma):
    lex = load_lexicon()
    assert subjectivity(word)["subjectivity"] == lex[lemma]


def test_score_and_rate_by_hand():
    text = "The left image feels dreamy, with flat red outlines."
    # words: the left image feels dreamy with flat red outlines -> 9
    # lexicon: left 0.0, feels 1.0, dreamy 1.0, flat 0.1, red 0.0, outlines 0.0
    r = subjectivity(text)
    assert (r["n_words"], r["n_lexicon"], r["n_subjective"]) == (9, 6, 2)
    assert r["subjectivity"] == pytest.approx(2.1 / 6)
    assert r["subjective_per_100"] == pytest.approx(200 / 9)
    assert subjectivity("")["subjectivity"] == 0.0


def test_per_mode_table_pools_words():
    t = pd.DataFrame({
        "mode": ["cot", "cot", "artcot"],
        "text": ["It feels somewhat dreamy.", "Beautiful.", "Thick black contours, flat sky."],
    })  # fmt: skip
    out = subjectivity_by(t).set_index("mode")
    assert out.loc["cot", "subjective_per_100"] == pytest.approx(100 * 4 / 5)
    assert out.loc["cot", "subjectivity"] == pytest.approx((0.9 + 1.0) / 2)
    assert out.loc["artcot", "subjective_per_100"] == 0.0
    with pytest.raises(InputError, match="no column"):
        subjectivity_by(t, by="model")


def test_reply_texts_reads_every_turn():
    po = pd.DataFrame({
        "model": ["m", "m"], "mode": ["artcot", "artcot"], "instance": ["i", "i"],
        "order": ["ab", "ba"],
        "answers": ['[{"turn": "artcot_analyser", "text": "a"}, {"turn": "artcot_summary", '
                    '"text": "b"}]', '[{"turn": "artcot_analyser", "text": null}]'],
    })  # fmt: skip
    assert reply_texts(po)["turn"].tolist() == ["artcot_analyser", "artcot_summary"]


def test_own_lexicon_file(tmp_path):
    p = tmp_path / "lex.tsv"
    p.write_text("# mine\nglow\t0.8\taffect\n")
    assert subjectivity("a glow", load_lexicon(p))["n_subjective"] == 1
    p.write_text("glow\thigh\n")
    with pytest.raises(InputError, match="line 1: expected"):
        load_lexicon(p)
