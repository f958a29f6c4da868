"""How subjective a reply's language is (after ArtCoT, Table III).

ArtCoT reports that replies prompted with zero-shot CoT lean on sensational
words ("feels", "evokes") and hedges ("appears", "somewhat"), and that
ArtCoT's decomposed prompts give more concrete language. Two numbers
measure this here, with a small lexicon written for this project
(``subjectivity_lexicon.tsv`` beside this module, about 200 lemmas, each with
a subjectivity in [0, 1] and a kind: sensation, hedge, evaluative, affect,
intensifier, or descriptive — concrete visual words that count as objective):

- the *subjectivity score* of a text: the mean subjectivity of its words found
  in the lexicon (0 when none is), on the same 0–1 scale as lexicon-based
  tools such as TextBlob;
- the *subjective-word rate*: subjective words (lexicon subjectivity ≥ 0.5)
  per 100 words.

Tokens are lower-cased runs of letters. A token not in the lexicon is looked
up again after removing, in turn, an ending ``s``/``es``, ``ed``/``d``,
``ing`` (also trying a final ``e``) and ``ly``, so "feels", "evoked",
"captivating" and "beautifully" find their lemmas.

The numbers are comparable between prompting modes and models on the same
images; they are not TextBlob's values and the lexicon is not a general
sentiment resource. Supply your own lexicon file to change it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from rrmap.errors import InputError
from rrmap.judge.prompting._sources import input_source

__all__ = [
    "SUBJECTIVE_THRESHOLD",
    "load_lexicon",
    "reply_texts",
    "subjectivity",
    "subjectivity_by",
]

#: Lexicon subjectivity from which a word counts as subjective.
SUBJECTIVE_THRESHOLD = 0.5
_TOKEN = re.compile(r"[a-z]+")
_LEXICON_FILE = Path(__file__).with_name("subjectivity_lexicon.tsv")


def load_lexicon(path: str | os.PathLike[str] | None = None) -> dict[str, float]:
    """Read a lexicon TSV (word, subjectivity, kind; ``#`` comments); default: the shipped one.

    ``"-"`` reads standard input.

    Raises
    ------
    InputError
        Listing every malformed line.

    Examples
    --------
    >>> lex = load_lexicon()
    >>> lex["feel"], lex["brushstroke"]
    (1.0, 0.0)
    """
    if path is None:
        return dict(_default_lexicon())
    src = input_source(path)
    return _read_lexicon(src.text(), src.name)


@lru_cache(maxsize=1)
def _default_lexicon() -> tuple[tuple[str, float], ...]:
    return tuple(_read_lexicon(_LEXICON_FILE.read_text(encoding="utf-8"), "").items())


def _read_lexicon(text: str, name: str) -> dict[str, float]:
    lex: dict[str, float] = {}
    problems = []
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        try:
            value = float(parts[1])
            if not 0.0 <= value <= 1.0:
                raise ValueError
        except (IndexError, ValueError):
            problems.append(f"line {i}: expected 'word<TAB>subjectivity in [0, 1]', got {line!r}")
            continue
        lex[parts[0].strip().lower()] = value
    if problems:
        raise InputError(f"{name or _LEXICON_FILE}: " + "; ".join(problems))
    return lex


def _lookup(token: str, lex: Mapping[str, float]) -> float | None:
    if token in lex:
        return lex[token]
    candidates = []
    if token.endswith("es"):
        candidates.append(token[:-2])
    if token.endswith("s"):
        candidates.append(token[:-1])
    if token.endswith("ed"):
        candidates += [token[:-2], token[:-1]]
    if token.endswith("ing"):
        candidates += [token[:-3], token[:-3] + "e"]
    if token.endswith("ly"):
        candidates.append(token[:-2])
    for c in candidates:
        if c in lex:
            return lex[c]
    return None


def subjectivity(text: str | None, lexicon: Mapping[str, float] | None = None) -> dict[str, float]:
    """Subjectivity score and subjective words per 100 words of one text.

    Parameters
    ----------
    text : str or None
    lexicon : mapping or None
        Word → subjectivity; default :func:`load_lexicon`.

    Returns
    -------
    dict
        ``n_words``, ``n_lexicon`` (words found in the lexicon),
        ``n_subjective``, ``subjectivity`` and ``subjective_per_100``.

    Examples
    --------
    >>> r = subjectivity("It feels somewhat dreamy.")
    >>> r["n_words"], r["n_subjective"], round(r["subjectivity"], 3)
    (4, 3, 0.9)
    >>> subjectivity("Thick black outlines, flat red sky.")["subjective_per_100"]
    0.0
    """
    lex = load_lexicon() if lexicon is None else lexicon
    tokens = _TOKEN.findall((text or "").lower())
    values = [v for v in (_lookup(t, lex) for t in tokens) if v is not None]
    n_sub = sum(1 for v in values if v >= SUBJECTIVE_THRESHOLD)
    return {
        "n_words": len(tokens),
        "n_lexicon": len(values),
        "n_subjective": n_sub,
        "subjectivity": sum(values) / len(values) if values else 0.0,
        "subjective_per_100": 100.0 * n_sub / len(tokens) if tokens else 0.0,
    }


def reply_texts(per_order: pd.DataFrame) -> pd.DataFrame:
    """One row per model reply of a 2AFC run, from the ``answers`` column.

    Parameters
    ----------
    per_order : DataFrame
        :attr:`rrmap.judge.tasks.pairwise.PairwiseResult.per_order` (or its CSV).

    Returns
    -------
    DataFrame
        ``model``, ``mode``, ``instance``, ``order``, ``turn``, ``text``.

    Examples
    --------
    >>> po = pd.DataFrame({"model": ["m"], "mode": ["cot"], "instance": ["i"], "order": ["ab"],
    ...     "answers": ['[{"turn": "cot", "text": "It feels right.", "error": null}]']})
    >>> reply_texts(po)["text"].tolist()
    ['It feels right.']
    """
    rows = []
    for r in per_order.to_dict("records"):
        try:
            turns = json.loads(r["answers"]) if isinstance(r["answers"], str) else []
        except ValueError:
            turns = []
        for t in turns:
            if t.get("text"):
                rows.append(
                    {
                        "model": r.get("model"),
                        "mode": r.get("mode"),
                        "instance": r.get("instance"),
                        "order": r.get("order"),
                        "turn": t.get("turn"),
                        "text": t["text"],
                    }
                )
    return pd.DataFrame(rows, columns=["model", "mode", "instance", "order", "turn", "text"])


def subjectivity_by(
    texts: pd.DataFrame,
    by: str | Sequence[str] = "mode",
    *,
    text_column: str = "text",
    lexicon: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Subjectivity per group (e.g. per prompting mode), as in ArtCoT's Table III.

    ``subjectivity`` is the mean of the texts' scores; ``subjective_per_100``
    pools the words of the group (subjective words / all words × 100).

    Parameters
    ----------
    texts : DataFrame
        A text column and the grouping column(s), e.g. :func:`reply_texts`.
    by : str or sequence of str
    text_column : str
    lexicon : mapping or None

    Returns
    -------
    DataFrame
        The group columns, ``n_texts``, ``n_words``, ``subjectivity``,
        ``subjective_per_100``.

    Examples
    --------
    >>> t = pd.DataFrame({"mode": ["cot", "cot", "artcot"],
    ...     "text": ["It feels dreamy.", "Somewhat evocative.", "Flat red outlines."]})
    >>> subjectivity_by(t)[["mode", "subjectivity"]].values.tolist()
    [['artcot', 0.03333333333333333], ['cot', 0.9]]
    """
    by_cols = [by] if isinstance(by, str) else list(by)
    missing = [c for c in [*by_cols, text_column] if c not in texts.columns]
    if missing:
        raise InputError(
            f"no column(s) {', '.join(missing)}; available: {', '.join(map(str, texts.columns))}"
        )
    lex = load_lexicon() if lexicon is None else lexicon
    scored = pd.DataFrame([subjectivity(t, lex) for t in texts[text_column]], index=texts.index)
    df = pd.concat([texts[by_cols], scored], axis=1)
    rows: list[dict[str, Any]] = []
    for key, g in df.groupby(by_cols, sort=True):
        words = int(g["n_words"].sum())
        rows.append(
            {
                **dict(zip(by_cols, key if isinstance(key, tuple) else (key,), strict=True)),
                "n_texts": len(g),
                "n_words": words,
                "subjectivity": float(g["subjectivity"].mean()),
                "subjective_per_100": 100.0 * g["n_subjective"].sum() / words if words else 0.0,
            }
        )
    return pd.DataFrame(
        rows, columns=[*by_cols, "n_texts", "n_words", "subjectivity", "subjective_per_100"]
    )
