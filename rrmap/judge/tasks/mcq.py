"""Multiple-choice aesthetic benchmarks (AesBench / AesTest style).

Question files
--------------
JSONL (one object per line) or CSV (one row per question) with:

``id``
    Unique question id.
``image`` / ``images``
    One image path, or several (a JSON list, or ``|``-separated in CSV);
    relative to the file, and inside its folder (unless ``allow_outside``).
    Left out (or ``null``, or an empty cell in CSV) for a text-only
    question; an empty text (``"image": ""``) is a mistake, not a
    text-only question, and is reported.
``question``
    The question text.
``options``
    A JSON list (or ``{"A": ..., "B": ...}``), or ``|``-separated in CSV; CSV
    may instead have ``option_a``, ``option_b``, ... columns.
``answer``
    The correct option: its letter (``"B"``) or its exact text.

Every other column (``dimension``, ``question_type``, ``source``...) is kept
as metadata to aggregate accuracy by.

Matching a reply to an option
-----------------------------
Rules are tried in this order; the first that applies decides (``match_rule``):

1. ``letter`` — the reply, without surrounding blanks, markdown emphasis,
   quotes, brackets and final punctuation, is one option letter: ``B``,
   ``(B)``, ``B)``, ``**B.**``.
2. ``letter_prefix`` — the reply starts with an upper-case option letter
   followed by ``)``, ``.`` or ``:``: ``B) No``, ``C. Low, because ...``.
3. ``answer_phrase`` — phrases such as ``answer is B``, ``answer: (B)``,
   ``option B``, ``choice C`` name exactly one letter.
4. ``text`` — the reply, lower-cased and without punctuation, equals one
   option's text.
5. ``text_contained`` — exactly one option's text occurs in the reply as
   whole words (and no other option's text does).
6. ``llm`` (optional) — a model is asked which option the reply chooses,
   and answers with a letter or null.

A letter outside the question's options, two different letters, or several
option texts leave the reply *unmatched*: it counts as wrong, and is
reported — never filled in at random.

Scores
------
Accuracy is the share of questions answered correctly; with circular
evaluation (options rotated n times) a question is correct only if every
rotation is. Chance-normalised accuracy per question is
``NAcc = (correct − 1/n) / (1 − 1/n)`` with n its number of options
(AesTest, eq. 1); :func:`mcq_accuracy` averages both over any metadata column.
"""

from __future__ import annotations

import json
import os
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from rrmap._util.escape import message_text
from rrmap.errors import InputError
from rrmap.judge.prompting._option_text import named_options, normalise
from rrmap.judge.prompting._sources import input_source, looks_like_jsonl
from rrmap.judge.prompting.images import data_url, image_part, image_problem
from rrmap.judge.prompting.parsing import extract_mapping
from rrmap.judge.prompting.prompts import DEFAULT_PROMPTS, Prompts, render
from rrmap.judge.transport._provenance import (
    COMBINED_COLUMNS,
    combined_provenance,
    group_provenance,
)
from rrmap.judge.transport._run import run_all, run_sync
from rrmap.judge.transport.client import CallFailedError
from rrmap.judge.transport.usage import UsageStats

__all__ = [
    "MATCH_RULES",
    "McqResult",
    "evaluate_mcq",
    "format_options",
    "match_option",
    "mcq_accuracy",
    "mcq_messages",
    "read_questions",
    "validate_questions",
]

#: The matching rules, in the order they are tried.
MATCH_RULES: tuple[str, ...] = (
    "letter",
    "letter_prefix",
    "answer_phrase",
    "text",
    "text_contained",
    "llm",
)

_LETTERS = string.ascii_uppercase
_CORE = ("id", "image", "images", "question", "options", "answer")
# "answer is B", "Option (C)", "my choice: d." — the keyword in any case; the letter is
# checked by _phrase_letter (an English "a" or "I" is not an option letter)
_PHRASE = re.compile(
    r"(?i:answer|option|choice)(?:\s+(?i:is))?\s*[:\-]?\s*(?:(?i:is)\s*)?"
    r"[\(\[*\"']*([A-Za-z])(?![A-Za-z])([\)\]*\"']*)(?=(?P<after>[^\n]{0,24}))"
)
# "B and C", "B or C", "B, C", "B/C" right after a letter: several answers
_MORE = re.compile(r"^\s*(?:,|/|&|\band\b|\bor\b)\s*[\(\[]?([A-Z])(?![A-Za-z])")


def _phrase_letter(m: re.Match[str]) -> str | None:
    """The option letter an "answer is X" phrase names, or ``None`` when X is a word.

    An uppercase letter is a letter, except ``I`` followed by a word ("the
    answer is I think B"); a lowercase one only when nothing but punctuation
    follows it ("answer: b."), never before a word ("the answer is a bit
    unclear", "my choice is a medium one").
    """
    letter, closing, after = m.group(1), m.group(2), m.group("after")
    word_follows = re.match(r"\s+[A-Za-z]", after) is not None and not closing
    if letter.isupper():
        return None if letter == "I" and word_follows else letter
    if word_follows or re.match(r"\s*[A-Za-z]", after):
        return None
    return letter.upper()


def format_options(options: Sequence[str]) -> str:
    """Options as lettered lines, the way the prompt shows them.

    Examples
    --------
    >>> print(format_options(["Yes", "No"]))
    A) Yes
    B) No
    """
    return "\n".join(f"{_LETTERS[i]}) {o}" for i, o in enumerate(options))


def match_option(reply: str | None, options: Sequence[str]) -> tuple[int | None, str]:
    """Find which option *reply* chooses, by the documented rules.

    Parameters
    ----------
    reply : str or None
    options : sequence of str

    Returns
    -------
    index : int or None
        0-based option index, or ``None`` when unmatched.
    rule : str
        The rule that matched, or why nothing did (``"unmatched: ..."``).

    Examples
    --------
    >>> match_option("(B)", ["Yes", "No"])
    (1, 'letter')
    >>> match_option("The answer is A.", ["High", "Medium", "Low"])
    (0, 'answer_phrase')
    >>> match_option("It has medium appeal.", ["High", "Medium", "Low"])
    (1, 'text_contained')
    >>> match_option("Hard to say.", ["Yes", "No"])
    (None, 'unmatched: no option letter or option text found')
    """
    n = len(options)
    if reply is None or not reply.strip():
        return None, "unmatched: empty reply"
    text = reply.strip()

    def letter_index(letter: str) -> int | None:
        i = _LETTERS.find(letter.upper())
        return i if 0 <= i < n else None

    bare = re.sub(r"^[\s*_`\"'(\[]+|[\s*_`\"')\].:,;!]+$", "", text)
    if len(bare) == 1 and bare.isalpha():
        i = letter_index(bare)
        if i is None:
            return None, f"unmatched: letter {bare.upper()!r} is not among the {n} options"
        return i, "letter"
    m = re.match(r"^[\s*_`\"'(\[]*([A-Z])[\)\].:](?:\s|$)", text)
    if m:
        i = letter_index(m.group(1))
        if i is None:
            return None, f"unmatched: letter {m.group(1)!r} is not among the {n} options"
        rest = normalise(text[m.end() :])
        named = [j for j, o in enumerate(options) if rest and normalise(o) == rest]
        if named and named[0] != i:
            return None, (
                f"unmatched: letter {m.group(1)!r} but the text of option {_LETTERS[named[0]]!r}"
            )
        return i, "letter_prefix"
    letters: list[str] = []
    for m in _PHRASE.finditer(text):
        letter = _phrase_letter(m)
        if letter is None:
            continue
        letters.append(letter)
        more = _MORE.match(m.group("after"))
        if more:
            letters.append(more.group(1))
    named = sorted(set(letters))
    if len(named) > 1:
        return None, f"unmatched: the reply names several letters {named}"
    if len(named) == 1:
        i = letter_index(named[0])
        if i is None:
            return None, f"unmatched: letter {named[0]!r} is not among the {n} options"
        return i, "answer_phrase"
    normed = normalise(text)
    exact = [i for i, o in enumerate(options) if normalise(o) == normed]
    if len(exact) == 1:
        return exact[0], "text"
    inside, negated = named_options(text, options)
    # an option contained in a longer option that also matches is not a separate claim
    inside = [
        i
        for i in inside
        if not any(j != i and normalise(options[i]) in normalise(options[j]) for j in inside)
    ]
    if len(inside) == 1:
        return inside[0], "text_contained"
    if len(inside) > 1:
        return None, "unmatched: the reply contains several options' texts"
    if negated:
        names = ", ".join(repr(_LETTERS[i]) for i in negated)
        return None, f"unmatched: the reply names the text of option {names} only to negate it"
    return None, "unmatched: no option letter or option text found"


def _split(value: Any) -> list[str]:
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


def _question_options(rec: dict[str, Any]) -> list[str]:
    """The options of one question record: ``options`` (list, mapping or text) or
    ``option_a``, ``option_b``, ... columns."""
    opts_raw = rec.get("options")
    if isinstance(opts_raw, dict):
        options = [str(opts_raw[key]).strip() for key in sorted(opts_raw)]
    else:
        options = _split(opts_raw)
    if not options:
        letter_cols = [c for c in rec if re.fullmatch(r"option_[a-z]", str(c))]
        options = [
            str(rec[c]).strip()
            for c in sorted(letter_cols)
            if rec[c] is not None
            and str(rec[c]).strip()
            and not (isinstance(rec[c], float) and pd.isna(rec[c]))
        ]
    return options


def _question_images(
    rec: dict[str, Any],
    base: Path,
    folder: Path | None,
    check_files: bool,
    allow_outside: bool,
    checked: dict[str, str | None],
) -> tuple[list[str], list[str]]:
    """The resolved image paths of one question record, and what is wrong with them.

    *checked* keeps the verdict on each file, so an image shared by many
    questions is opened once.
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
    resolved = [str(base / p) if not Path(p).is_absolute() else p for p in images]
    for p in resolved:
        if p not in checked:
            checked[p] = image_problem(p, folder, allow_outside=allow_outside, contents=check_files)
        if checked[p] is not None:
            problems.append(f"image file {message_text(p)} {checked[p]}")
    return resolved, problems


def validate_questions(
    records: Sequence[dict[str, Any]],
    *,
    source: str = "<questions>",
    base_dir: str | os.PathLike[str] | None = None,
    first_line: int = 1,
    check_files: bool = True,
    allow_outside: bool = False,
    line_numbers: Sequence[int] | None = None,
) -> pd.DataFrame:
    """Check question records and normalise them into a table.

    Every problem is reported at once with its line number.

    Parameters
    ----------
    records : sequence of dict
        One dict per question (see the module docs for the keys).
    source : str
        File name for messages.
    base_dir : path or None
        Folder relative image paths start from.
    first_line : int
        Line number of the first record (2 for CSV, 1 for JSONL).
    check_files : bool
        Check every image (:func:`~rrmap.judge.prompting.images.image_problem`):
        present, a regular non-empty file, readable, within the pixel limit.
    allow_outside : bool, default False
        Accept images outside *base_dir* (when *base_dir* is given, images
        must otherwise lie inside it).
    line_numbers : sequence of int, optional
        The line of each record, when they do not follow one another (a
        file with blank lines); replaces *first_line*.

    Returns
    -------
    DataFrame
        ``id``, ``images`` (list of paths), ``question``, ``options`` (list),
        ``n_options``, ``answer`` (letter), ``answer_index`` and the metadata
        columns.

    Examples
    --------
    >>> q = validate_questions([{"id": "q1", "question": "Balanced?", "options": ["Yes", "No"],
    ...                          "answer": "No", "dimension": "color"}], check_files=False)
    >>> q.loc[0, ["answer", "dimension"]].tolist(), int(q.loc[0, "n_options"])
    (['B', 'color'], 2)
    """
    if not records:
        raise InputError(f"{source}: no questions to ask (the file has no rows)")
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    folder = Path(base_dir) if base_dir is not None else None
    checked: dict[str, str | None] = {}
    problems: list[str] = []
    rows = []
    seen: dict[str, int] = {}
    for k, rec in enumerate(records):
        line = line_numbers[k] if line_numbers is not None else first_line + k
        where = f"line {line}"
        qid = str(rec.get("id", "") if rec.get("id") is not None else "").strip()
        if not qid:
            problems.append(f"{where}: 'id' is empty")
        elif qid in seen:
            problems.append(f"{where}: id {qid!r} already used on line {seen[qid]}")
        else:
            seen[qid] = line
        question = str(rec.get("question") or "").strip()
        if not question:
            problems.append(f"{where}: 'question' is empty")
        options = _question_options(rec)
        if len(options) < 2:
            problems.append(f"{where}: needs at least 2 options, found {len(options)}")
        elif len(options) > len(_LETTERS):
            problems.append(f"{where}: at most {len(_LETTERS)} options, found {len(options)}")
        answer = str(rec.get("answer") if rec.get("answer") is not None else "").strip()
        answer_index = None
        if len(answer) == 1 and answer.upper() in _LETTERS[: len(options)]:
            answer_index = _LETTERS.index(answer.upper())
        else:
            hits = [i for i, o in enumerate(options) if o.lower() == answer.lower()]
            if len(hits) == 1:
                answer_index = hits[0]
        if answer_index is None and len(options) >= 2:
            problems.append(
                f"{where}: answer {answer!r} is neither an option letter "
                f"(A-{_LETTERS[len(options) - 1]}) nor one option's text"
            )
        resolved, image_problems = _question_images(
            rec, base, folder, check_files, allow_outside, checked
        )
        problems += [f"{where}: {problem}" for problem in image_problems]
        meta = {
            c: v
            for c, v in rec.items()
            if c not in _CORE and not re.fullmatch(r"option_[a-z]", str(c))
        }
        rows.append(
            {
                "id": qid,
                "images": resolved,
                "question": question,
                "options": options,
                "n_options": len(options),
                "answer": _LETTERS[answer_index] if answer_index is not None else "",
                "answer_index": answer_index if answer_index is not None else -1,
                **meta,
            }
        )
    if problems:
        n = len(problems)
        raise InputError(f"{source}: {n} problem{'s' if n != 1 else ''}: " + "; ".join(problems))
    return pd.DataFrame(rows)


def read_questions(
    path: str | os.PathLike[str], *, check_files: bool = True, allow_outside: bool = False
) -> pd.DataFrame:
    """Read a JSONL or CSV question file (see the module docs).

    Every problem is reported at once, with its line, before anything is
    sent: images are checked as :func:`validate_questions` says, and must
    lie inside the file's folder unless *allow_outside*. ``"-"`` reads
    standard input (JSONL when it starts with ``{``, else CSV), whose images
    are relative to the current folder.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "q.jsonl"
    >>> _ = p.write_text('{"id": "q1", "question": "Quality?", "options": ["High", "Low"], '
    ...                  '"answer": "A", "source": "photo"}\\n')
    >>> read_questions(p, check_files=False)[["id", "answer", "source"]].values.tolist()
    [['q1', 'A', 'photo']]
    """
    src = input_source(path)
    settings = {
        "source": src.name,
        "base_dir": src.folder,
        "check_files": check_files,
        "allow_outside": allow_outside,
    }
    if looks_like_jsonl(src, (".jsonl", ".ndjson", ".json")):
        return _read_jsonl_questions(src.text(), src.name, settings)
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
    return validate_questions(records, first_line=2, **settings)


def _read_jsonl_questions(text: str, name: str, settings: dict[str, Any]) -> pd.DataFrame:
    records, problems = [], []
    lines = text.splitlines()
    numbers = []
    for i, line in enumerate(lines, start=1):
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
    return validate_questions(records, line_numbers=numbers, **settings)


def mcq_messages(
    question: str,
    options: Sequence[str],
    images: Sequence[Any] = (),
    *,
    prompts: Prompts | None = None,
    max_side: int | None = 512,
) -> list[dict[str, Any]]:
    """The chat messages asking one multiple-choice question.

    Examples
    --------
    >>> msgs = mcq_messages("Is the image balanced?", ["Yes", "No"])
    >>> print(msgs[0]["content"][-1]["text"])
    Is the image balanced?
    Options:
    A) Yes
    B) No
    Answer with the letter of the correct option only, without explanation.
    """
    prompts = prompts or DEFAULT_PROMPTS
    text = render(prompts.mcq, question=question, options=format_options(options))
    parts = [image_part(data_url(p, max_side)) for p in images]
    return [{"role": "user", "content": [*parts, {"type": "text", "text": text}]}]


@dataclass
class McqResult:
    """Outcome of a multiple-choice run.

    Attributes
    ----------
    responses : DataFrame
        One row per question and rotation: ``id``, ``rotation``, ``options``
        as shown, ``answer`` (letter as shown), ``reply``, ``matched``
        (letter or ``""``), ``match_rule``, ``correct``, ``error`` and the
        provenance columns (:data:`~rrmap.judge.transport._provenance.PROVENANCE_COLUMNS`).
    per_question : DataFrame
        One row per question: ``id``, ``n_options``, ``answer``, ``correct``,
        ``unmatched`` (rotations without a match), ``n_rotations``, ``nacc``,
        the metadata columns and the provenance of its replies, combined
        (:data:`~rrmap.judge.transport._provenance.COMBINED_COLUMNS`).
    stats : UsageStats

    Examples
    --------
    >>> from rrmap.judge.tasks.judges import FunctionChat
    >>> q = validate_questions([{"id": "q1", "question": "Balanced?", "options": ["Yes", "No"],
    ...                          "answer": "A"}], check_files=False)
    >>> res = evaluate_mcq(q, FunctionChat(lambda m: "Perhaps.", "vague"))
    >>> res.unmatched()["id"].tolist(), bool(res.per_question["correct"][0])
    (['q1'], False)
    """

    responses: pd.DataFrame
    per_question: pd.DataFrame
    stats: UsageStats = field(default_factory=UsageStats)

    def unmatched(self) -> pd.DataFrame:
        """Rows of :attr:`responses` whose reply matched no option (counted wrong)."""
        return self.responses[self.responses["matched"] == ""]


async def _ask_one(
    backend: Any, q: dict[str, Any], k: int, prompts: Prompts, max_side: int | None, llm_match: Any
) -> dict[str, Any]:
    import asyncio

    n = q["n_options"]
    options = q["options"][k:] + q["options"][:k]
    answer_index = (q["answer_index"] - k) % n
    messages = await asyncio.to_thread(
        mcq_messages, q["question"], options, q["images"], prompts=prompts, max_side=max_side
    )
    row = {
        "id": q["id"],
        "rotation": k,
        "options": json.dumps(options, ensure_ascii=False),
        "answer": _LETTERS[answer_index],
        "reply": "",
        "matched": "",
        "match_rule": "",
        "correct": False,
        "error": "",
    }
    try:
        res = await backend.chat(messages)
    except CallFailedError as exc:
        row.update(match_rule="unmatched: call failed", error=str(exc))
        return row
    row["reply"] = res.text
    idx, rule = match_option(res.text, options)
    if idx is None and llm_match is not None:
        text = render(
            prompts.mcq_match,
            question=q["question"],
            options=format_options(options),
            response=res.text,
        )
        try:
            judged = await llm_match.chat([{"role": "user", "content": text}])
        except CallFailedError as exc:
            row["error"] = f"matching call failed: {exc}"
        else:
            mapping = extract_mapping(judged.text, ("option",))
            choice = mapping.get("option") if mapping else None
            if isinstance(choice, str) and len(choice.strip(" ()")) == 1:
                i = _LETTERS.find(choice.strip(" ()").upper())
                if 0 <= i < n:
                    idx, rule = i, "llm"
            if idx is None:
                rule = f"{rule}; llm: {judged.text.strip()[:80]!r}"
    row["match_rule"] = rule
    if idx is not None:
        row["matched"] = _LETTERS[idx]
        row["correct"] = idx == answer_index
    return row


def evaluate_mcq(
    questions: pd.DataFrame,
    backend: Any,
    *,
    circular: bool = False,
    llm_match: bool | Any = False,
    prompts: Prompts | None = None,
    max_side: int | None = 512,
    in_flight: int | None = None,
    progress: bool = False,
) -> McqResult:
    """Ask every question and score the replies.

    Parameters
    ----------
    questions : DataFrame
        From :func:`read_questions` / :func:`validate_questions`.
    backend : chat backend
        :class:`~rrmap.judge.transport.client.ChatClient` or
        :class:`~rrmap.judge.tasks.judges.FunctionChat`.
    circular : bool
        Ask each question once per rotation of its options; correct only if
        correct in every rotation.
    llm_match : bool or chat backend
        Ask a model to match replies the rules leave unmatched: ``True``
        uses *backend* itself, or pass another backend.
    prompts : Prompts or None
    max_side : int or None
        Image downscaling.
    in_flight : int or None
    progress : bool

    Returns
    -------
    McqResult

    Examples
    --------
    >>> from rrmap.judge.tasks.judges import FunctionChat
    >>> q = validate_questions([{"id": "q1", "question": "Quality?",
    ...     "options": ["High", "Medium", "Low"], "answer": "C"}], check_files=False)
    >>> res = evaluate_mcq(q, FunctionChat(lambda m: "C) Low", "fixed"), circular=True)
    >>> res.responses["matched"].tolist(), bool(res.per_question["correct"][0])
    (['C', '', ''], False)
    >>> res.unmatched()["match_rule"].tolist()[0]
    "unmatched: letter 'C' but the text of option 'B'"
    """
    if questions.empty:
        raise InputError("questions: no questions to ask (the table has no rows)")
    prompts = prompts or DEFAULT_PROMPTS
    matcher = backend if llm_match is True else (llm_match or None)
    return run_sync(
        _aevaluate(questions, backend, circular, matcher, prompts, max_side, in_flight, progress)
    )


async def _aevaluate(
    questions: pd.DataFrame,
    backend: Any,
    circular: bool,
    matcher: Any,
    prompts: Prompts,
    max_side: int | None,
    in_flight: int | None,
    progress: bool,
) -> McqResult:
    recs = questions.to_dict("records")
    items = [
        (i, k) for i, q in enumerate(recs) for k in (range(q["n_options"]) if circular else [0])
    ]
    jobs = [
        (lambda i=i, k=k: _ask_one(backend, recs[i], k, prompts, max_side, matcher))
        for i, k in items
    ]
    conc = getattr(getattr(backend, "endpoint", None), "concurrency", 8)
    prov: list[dict[str, str]] = []
    run = {"in_flight": in_flight or 4 * conc, "progress": progress, "desc": "mcq"}
    async with backend:
        if matcher is not None and matcher is not backend:
            async with matcher:
                rows = await run_all(jobs, **run, provenance=prov)
        else:
            rows = await run_all(jobs, **run, provenance=prov)
    responses = pd.DataFrame([{**r, **p} for r, p in zip(rows, prov, strict=True)])
    meta = [
        c
        for c in questions.columns
        if c not in ("id", "images", "question", "options", "n_options", "answer", "answer_index")
    ]
    per = []
    for q in recs:
        r = responses[responses["id"] == q["id"]]
        correct = bool(r["correct"].all())
        n = q["n_options"]
        per.append(
            {
                "id": q["id"],
                "n_options": n,
                "answer": q["answer"],
                "correct": correct,
                "unmatched": int((r["matched"] == "").sum()),
                "n_rotations": len(r),
                "nacc": (float(correct) - 1 / n) / (1 - 1 / n),
                **{c: q[c] for c in meta},
                **combined_provenance(r.to_dict("records")),
            }
        )
    stats = getattr(backend, "stats", UsageStats())
    return McqResult(responses, pd.DataFrame(per), stats)


def mcq_accuracy(per_question: pd.DataFrame, by: str | Sequence[str] | None = None) -> pd.DataFrame:
    """Accuracy and chance-normalised accuracy, overall or by metadata columns.

    ``acc`` is the mean of ``correct``; ``nacc`` the mean over questions of
    ``(correct − 1/n) / (1 − 1/n)``, which for questions that all have n
    options equals ``(acc − 1/n) / (1 − 1/n)``. ``chance`` is the mean 1/n.

    When *per_question* carries the provenance of its replies (as
    :func:`evaluate_mcq` returns it), each row carries that of its group:
    the counts of paid, batch, shared and cached replies, the first and last
    answer time, ``prompts_sha256`` (the digest of the group's prompt hashes,
    :func:`~rrmap.judge.transport._provenance.group_provenance`: thousands of hashes
    would not fit a cell), the endpoint(s) and model version(s).

    Parameters
    ----------
    per_question : DataFrame
        :attr:`McqResult.per_question`.
    by : str, sequence of str or None
        Metadata column(s) to group by.

    Returns
    -------
    DataFrame
        The group columns, ``n_questions``, ``n_correct``, ``n_unmatched``,
        ``acc``, ``nacc``, ``chance`` (and the provenance columns, above).

    Examples
    --------
    >>> pq = pd.DataFrame({"correct": [True, False, True, True], "n_options": 4,
    ...                    "unmatched": [0, 1, 0, 0], "dimension": ["a", "a", "b", "b"]})
    >>> pq["nacc"] = (pq["correct"] - 1 / 4) / (1 - 1 / 4)
    >>> mcq_accuracy(pq, by="dimension")[["dimension", "acc", "nacc"]].values.tolist()
    [['a', 0.5, 0.33333333333333337], ['b', 1.0, 1.0]]
    """
    by_cols = [by] if isinstance(by, str) else list(by or [])
    missing = [c for c in by_cols if c not in per_question.columns]
    if missing:
        raise InputError(
            f"no column(s) {', '.join(missing)} to group by; available: "
            f"{', '.join(map(str, per_question.columns))}"
        )
    df = per_question.assign(
        _c=per_question["correct"].astype(float),
        _chance=1.0 / per_question["n_options"],
        _unm=(per_question["unmatched"] > 0).astype(int),
    )
    if "nacc" not in df.columns:
        df["nacc"] = (df["_c"] - df["_chance"]) / (1 - df["_chance"])

    traced = set(COMBINED_COLUMNS) <= set(per_question.columns)

    def agg(g: pd.DataFrame) -> dict[str, Any]:
        return {
            "n_questions": len(g),
            "n_correct": int(g["_c"].sum()),
            "n_unmatched": int(g["_unm"].sum()),
            "acc": g["_c"].mean(),
            "nacc": g["nacc"].mean(),
            "chance": g["_chance"].mean(),
            **(group_provenance(g[list(COMBINED_COLUMNS)].to_dict("records")) if traced else {}),
        }

    if not by_cols:
        return pd.DataFrame([agg(df)])
    rows = [
        {**dict(zip(by_cols, key if isinstance(key, tuple) else (key,), strict=True)), **agg(g)}
        for key, g in df.groupby(by_cols, sort=True)
    ]
    return pd.DataFrame(rows)
