"""Multiple-choice question files: their records read, and each record checked.

:func:`rrmap.judge.tasks.mcq.read_questions` reads a file's records
(:func:`jsonl_records`, :func:`csv_records`) and
:func:`rrmap.judge.tasks.mcq.validate_questions` checks each one
(:func:`question_row`), gathering every problem with its line before any
request is sent. The file format is documented in :mod:`rrmap.judge.tasks.mcq`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from rrmap._util.escape import message_text
from rrmap.errors import InputError
from rrmap.judge.prompting._sources import Source
from rrmap.judge.prompting.images import image_problem
from rrmap.judge.tasks._mcq_matching import LETTERS

__all__ = ["CORE_KEYS", "ImageRules", "csv_records", "jsonl_records", "question_row"]

#: The keys of a question record that are not metadata.
CORE_KEYS = ("id", "image", "images", "question", "options", "answer")
_OPTION_COLUMN = re.compile(r"option_[a-z]")


@dataclass(frozen=True)
class ImageRules:
    """Where a question's images are looked for, and how they are checked.

    Attributes
    ----------
    base : Path
        Folder relative image paths start from.
    folder : Path or None
        Folder the images must lie inside (unless *allow_outside*); ``None``: anywhere.
    check_files : bool
        Open every image (:func:`~rrmap.judge.prompting.images.image_problem`).
    allow_outside : bool
        Accept images outside *folder*.
    """

    base: Path
    folder: Path | None = None
    check_files: bool = True
    allow_outside: bool = False


def _split(value: Any) -> list[str]:
    """A cell or value holding several texts as a list: a list, JSON list text, or ``a|b``.

    Examples
    --------
    >>> _split('["a", "b"]'), _split("a | b"), _split(None)
    (['a', 'b'], ['a', 'b'], [])
    """
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return []
    if isinstance(value, list | tuple):
        return [str(v).strip() for v in value]
    text = str(value).strip()
    if not text:
        return []
    if text.startswith("["):
        try:
            parsed = json.loads(text)
        except (ValueError, RecursionError):
            parsed = None
        if isinstance(parsed, list):
            return [str(v).strip() for v in parsed]
    return [p.strip() for p in text.split("|")]


def _options(rec: dict[str, Any]) -> list[str]:
    """The options of one question record: ``options`` (list, mapping or text) or
    ``option_a``, ``option_b``, ... columns.

    Examples
    --------
    >>> _options({"options": {"B": "No", "A": "Yes"}}), _options({"option_a": "x", "option_b": "y"})
    (['Yes', 'No'], ['x', 'y'])
    """
    opts_raw = rec.get("options")
    if isinstance(opts_raw, dict):
        options = [str(opts_raw[key]).strip() for key in sorted(opts_raw)]
    else:
        options = _split(opts_raw)
    if not options:
        letter_cols = [c for c in rec if _OPTION_COLUMN.fullmatch(str(c))]
        options = [
            str(rec[c]).strip()
            for c in sorted(letter_cols)
            if rec[c] is not None
            and str(rec[c]).strip()
            and not (isinstance(rec[c], float) and pd.isna(rec[c]))
        ]
    return options


def _images(
    rec: dict[str, Any], rules: ImageRules, checked: dict[str, str | None]
) -> tuple[list[str], list[str]]:
    """The resolved image paths of one question record, and what is wrong with them.

    *checked* keeps the verdict on each file, so an image shared by many
    questions is opened once.

    Examples
    --------
    >>> _images({"image": ""}, ImageRules(Path("q")), {})[1]
    ["'image' is empty (leave it out, or write null, for a question without an image)"]
    """
    problems = []
    for key in ("image", "images"):
        value = rec.get(key)
        if isinstance(value, str) and not value.strip():
            problems.append(
                f"{key!r} is empty (leave it out, or write null, for a question without an image)"
            )
    images = _split(rec.get("images")) or _split(rec.get("image"))
    if any(not p for p in images):
        problems.append("an image path is empty")
    images = [p for p in images if p]
    resolved = [str(rules.base / p) if not Path(p).is_absolute() else p for p in images]
    for p in resolved:
        if p not in checked:
            checked[p] = image_problem(
                p, rules.folder, allow_outside=rules.allow_outside, contents=rules.check_files
            )
        if checked[p] is not None:
            problems.append(f"image file {message_text(p)} {checked[p]}")
    return resolved, problems


def _answer_index(answer: str, options: list[str]) -> int | None:
    """The option *answer* names: its letter, or its exact text (in any case).

    Examples
    --------
    >>> _answer_index("b", ["Yes", "No"]), _answer_index("no", ["Yes", "No"])
    (1, 1)
    """
    if len(answer) == 1 and answer.upper() in LETTERS[: len(options)]:
        return LETTERS.index(answer.upper())
    hits = [i for i, o in enumerate(options) if o.lower() == answer.lower()]
    return hits[0] if len(hits) == 1 else None


def question_row(
    rec: dict[str, Any], qid: str, rules: ImageRules, checked: dict[str, str | None]
) -> tuple[dict[str, Any], list[str]]:
    """One question record as a table row, and what is wrong with it (its id aside).

    Examples
    --------
    >>> row, problems = question_row({"question": "Balanced?", "options": "Yes|No",
    ...     "answer": "C", "source": "photo"}, "q1", ImageRules(Path(".")), {})
    >>> row["options"], row["source"], problems
    (['Yes', 'No'], 'photo', ["answer 'C' is neither an option letter (A-B) nor one option's text"])
    """
    problems = []
    question = str(rec.get("question") or "").strip()
    if not question:
        problems.append("'question' is empty")
    options = _options(rec)
    if len(options) < 2:
        problems.append(f"needs at least 2 options, found {len(options)}")
    elif len(options) > len(LETTERS):
        problems.append(f"at most {len(LETTERS)} options, found {len(options)}")
    answer = str(rec.get("answer") if rec.get("answer") is not None else "").strip()
    index = _answer_index(answer, options)
    if index is None and len(options) >= 2:
        problems.append(
            f"answer {answer!r} is neither an option letter "
            f"(A-{LETTERS[len(options) - 1]}) nor one option's text"
        )
    resolved, image_problems = _images(rec, rules, checked)
    meta = {
        c: v for c, v in rec.items() if c not in CORE_KEYS and not _OPTION_COLUMN.fullmatch(str(c))
    }
    row = {
        "id": qid,
        "images": resolved,
        "question": question,
        "options": options,
        "n_options": len(options),
        "answer": LETTERS[index] if index is not None else "",
        "answer_index": index if index is not None else -1,
        **meta,
    }
    return row, problems + image_problems


def jsonl_records(text: str, name: str) -> tuple[list[dict[str, Any]], list[int]]:
    """The records of a JSONL question file and the line of each (blank lines skipped).

    Examples
    --------
    >>> jsonl_records('{"id": "q1"}\\n\\n{"id": "q2"}\\n', "q.jsonl")
    ([{'id': 'q1'}, {'id': 'q2'}], [1, 3])
    >>> jsonl_records('{"id": "q1"}\\n[1]\\n', "q.jsonl")
    Traceback (most recent call last):
    rrmap.errors.InputError: q.jsonl: 1 problem(s): line 2: not a JSON object
    """
    records, numbers, problems = [], [], []
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except (ValueError, RecursionError) as exc:
            why = exc.args[0] if isinstance(exc, ValueError) else "nested too deeply"
            problems.append(f"line {i}: not valid JSON ({why})")
            continue
        if not isinstance(rec, dict):
            problems.append(f"line {i}: not a JSON object")
            continue
        records.append(rec)
        numbers.append(i)
    if problems:
        raise InputError(f"{name}: {len(problems)} problem(s): " + "; ".join(problems))
    return records, numbers


def csv_records(src: Source) -> list[dict[str, Any]]:
    """The records of a CSV question file; an empty image cell is a question without one.

    Examples
    --------
    >>> import io
    >>> from rrmap.judge.prompting._sources import input_source
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "q.csv"
    >>> _ = p.write_text("id,image,question\\nq1,,Balanced?\\n")
    >>> csv_records(input_source(p))
    [{'id': 'q1', 'image': None, 'question': 'Balanced?'}]
    """
    try:
        df = pd.read_csv(src.readable(), dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError:
        raise InputError(f"{src.name}: the file is empty") from None
    except pd.errors.ParserError as exc:
        raise InputError(f"{src.name}: not a readable CSV ({exc})") from None
    records = df.to_dict("records")
    for rec in records:  # an empty cell is how CSV writes a question without an image
        for key in ("image", "images"):
            if key in rec and not str(rec[key]).strip():
                rec[key] = None
    return records
