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

import contextlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from rrmap.errors import InputError
from rrmap.judge.prompting._sources import input_source, looks_like_jsonl
from rrmap.judge.prompting.images import data_url, image_part
from rrmap.judge.prompting.parsing import extract_mapping
from rrmap.judge.prompting.prompts import DEFAULT_PROMPTS, Prompts, render
from rrmap.judge.tasks._mcq_matching import LETTERS, RULES
from rrmap.judge.tasks._mcq_questions import (
    ImageRules,
    csv_records,
    jsonl_records,
    question_row,
)
from rrmap.judge.tasks.judges import ChatBackend
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


def format_options(options: Sequence[str]) -> str:
    """Options as lettered lines, the way the prompt shows them.

    Examples
    --------
    >>> print(format_options(["Yes", "No"]))
    A) Yes
    B) No
    """
    return "\n".join(f"{LETTERS[i]}) {o}" for i, o in enumerate(options))


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
    if reply is None or not reply.strip():
        return None, "unmatched: empty reply"
    text = reply.strip()
    for rule in RULES:  # rrmap.judge.tasks._mcq_matching: one function per rule
        decided = rule(text, options)
        if decided is not None:
            return decided
    return None, "unmatched: no option letter or option text found"


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
    rules = ImageRules(base, folder, check_files=check_files, allow_outside=allow_outside)
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
        row, found = question_row(rec, qid, rules, checked)
        problems += [f"{where}: {problem}" for problem in found]
        rows.append(row)
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
    if looks_like_jsonl(src, (".jsonl", ".ndjson", ".json")):
        records, lines = jsonl_records(src.text(), src.name)
    else:
        records = csv_records(src)
        lines = list(range(2, len(records) + 2))  # under the header
    return validate_questions(
        records,
        source=src.name,
        base_dir=src.folder,
        check_files=check_files,
        allow_outside=allow_outside,
        line_numbers=lines,
    )


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
    backend: ChatBackend,
    q: dict[str, Any],
    k: int,
    prompts: Prompts,
    max_side: int | None,
    matcher: ChatBackend | None,
) -> dict[str, Any]:
    """Ask question *q* with its options rotated by *k*, and match the reply (one
    :attr:`McqResult.responses` row, without its provenance)."""
    import asyncio

    options = q["options"][k:] + q["options"][:k]
    answer_index = (q["answer_index"] - k) % q["n_options"]
    messages = await asyncio.to_thread(
        mcq_messages, q["question"], options, q["images"], prompts=prompts, max_side=max_side
    )
    row = {
        "id": q["id"],
        "rotation": k,
        "options": json.dumps(options, ensure_ascii=False),
        "answer": LETTERS[answer_index],
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
    if idx is None and matcher is not None:
        idx, rule, row["error"] = await _llm_match(
            matcher, prompts, q["question"], options, res.text, rule
        )
    row["match_rule"] = rule
    if idx is not None:
        row["matched"] = LETTERS[idx]
        row["correct"] = idx == answer_index
    return row


async def _llm_match(
    matcher: ChatBackend,
    prompts: Prompts,
    question: str,
    options: Sequence[str],
    reply: str,
    rule: str,
) -> tuple[int | None, str, str]:
    """The ``llm`` rule: ask *matcher* which option *reply* chooses (a letter, or null).

    Returns the option's index (or ``None``), the rule (*rule*, the reason the
    other rules gave, with the matcher's reply when it chose none) and the
    error of a matching call that failed (``""`` when it was answered).
    """
    text = render(
        prompts.mcq_match, question=question, options=format_options(options), response=reply
    )
    try:
        judged = await matcher.chat([{"role": "user", "content": text}])
    except CallFailedError as exc:
        return None, rule, f"matching call failed: {exc}"
    mapping = extract_mapping(judged.text, ("option",))
    choice = mapping.get("option") if mapping else None
    if isinstance(choice, str) and len(choice.strip(" ()")) == 1:
        i = LETTERS.find(choice.strip(" ()").upper())
        if 0 <= i < len(options):
            return i, "llm", ""
    return None, f"{rule}; llm: {judged.text.strip()[:80]!r}", ""


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
    backend: ChatBackend,
    circular: bool,
    matcher: ChatBackend | None,
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
    async with contextlib.AsyncExitStack() as opened:
        await opened.enter_async_context(backend)
        if matcher is not None and matcher is not backend:
            await opened.enter_async_context(matcher)
        rows = await run_all(
            jobs, in_flight=in_flight or 4 * conc, progress=progress, desc="mcq", provenance=prov
        )
    responses = pd.DataFrame([{**r, **p} for r, p in zip(rows, prov, strict=True)])
    per = _per_question(questions, recs, responses)
    stats = getattr(backend, "stats", UsageStats())
    return McqResult(responses, per, stats)


def _per_question(
    questions: pd.DataFrame, recs: list[dict[str, Any]], responses: pd.DataFrame
) -> pd.DataFrame:
    """:attr:`McqResult.per_question`: each question's rotations scored together."""
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
    return pd.DataFrame(per)


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
