"""Scoring aesthetic interpretations against expert references (AesBench AesI style).

A judge model reads a response (e.g. an MLLM's explanation of why an image
has high aesthetic quality) and an expert's reference explanation, and
grades three dimensions on 0–2: *relevance* (does it address the aesthetic
reasons asked for), *precision* (does it contradict the reference) and
*completeness* (does it cover the reference's points), giving a reason for
each. The reasons are kept with the scores. An answer that cannot be read
is re-asked once with a format reminder, then recorded as invalid with its
raw text; invalid rows have no scores and are counted, never filled in.

Input table: ``id``, ``response``, ``reference`` and optionally
``question`` (default: "Explain the reasons for the aesthetic quality of
this image."); other columns are kept as metadata.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from rrmap.errors import InputError
from rrmap.judge.prompting._sources import input_source, looks_like_jsonl
from rrmap.judge.prompting.parsing import parse_fields, score012, text_field
from rrmap.judge.prompting.prompts import DEFAULT_PROMPTS, Prompts, render
from rrmap.judge.transport._provenance import PROVENANCE_COLUMNS, group_provenance
from rrmap.judge.transport._run import run_all, run_sync
from rrmap.judge.transport.client import CallFailedError, conversation
from rrmap.judge.transport.usage import UsageStats

__all__ = [
    "DIMENSIONS",
    "InterpretResult",
    "interpret_fields",
    "interpretation_summary",
    "read_interpretations",
    "score_interpretations",
    "validate_interpretations",
]

#: The graded dimensions, each 0, 1 or 2.
DIMENSIONS: tuple[str, ...] = ("relevance", "precision", "completeness")
DEFAULT_QUESTION = "Explain the reasons for the aesthetic quality of this image."
_FIELDS = {
    name: conv for d in DIMENSIONS for name, conv in ((d, score012), (f"{d}_reason", text_field))
}
_EXAMPLE = (
    '{"relevance": 2, "relevance_reason": "...", "precision": 1, "precision_reason": '
    '"...", "completeness": 1, "completeness_reason": "..."}'
)


def interpret_fields() -> dict[str, Any]:
    """The fields of a grading answer and their converters (scores 0–2 and reasons).

    Examples
    --------
    >>> sorted(interpret_fields())[:2]
    ['completeness', 'completeness_reason']
    """
    return dict(_FIELDS)


def validate_interpretations(
    table: pd.DataFrame, *, source: str = "<DataFrame>", line_offset: int = 2
) -> pd.DataFrame:
    """Check an interpretations table; every problem is reported at once.

    Examples
    --------
    >>> df = pd.DataFrame({"id": ["a"], "response": ["warm light"], "reference": ["soft light"]})
    >>> validate_interpretations(df)["question"][0]
    'Explain the reasons for the aesthetic quality of this image.'
    """
    if table.empty:
        raise InputError(f"{source}: no responses to grade (the table has no rows)")
    missing = [c for c in ("id", "response", "reference") if c not in table.columns]
    if missing:
        raise InputError(
            f"{source}: missing column(s) {', '.join(missing)}; needs id, "
            "response, reference (and optionally question)"
        )
    df = table.copy()
    if "question" not in df.columns:
        df["question"] = DEFAULT_QUESTION
    problems = []
    for col in ("id", "response", "reference"):
        values = df[col].astype("string").fillna("").str.strip()
        empty = [i + line_offset for i, v in enumerate(values) if v == ""]
        if empty:
            problems.append(
                f"column {col!r} is empty on line(s) " + ", ".join(map(str, empty[:20]))
            )
        df[col] = values.astype(object).map(str)
    dup = df["id"][df["id"].duplicated() & (df["id"] != "")]
    if len(dup):
        problems.append(f"duplicate id(s) {', '.join(map(repr, dup.unique()))}")
    df["question"] = (
        df["question"]
        .astype("string")
        .fillna("")
        .astype(object)
        .map(lambda q: str(q).strip() or DEFAULT_QUESTION)
    )
    if problems:
        raise InputError(f"{source}: {len(problems)} problem(s): " + "; ".join(problems))
    return df.reset_index(drop=True)


def read_interpretations(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a CSV or JSONL interpretations file.

    ``"-"`` reads standard input (JSONL when it starts with ``{``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.csv"
    >>> _ = p.write_text("id,response,reference\\n1,Strong contrast,High contrast and balance\\n")
    >>> read_interpretations(p)["response"].tolist()
    ['Strong contrast']
    """
    src = input_source(path)
    try:
        if looks_like_jsonl(src):
            df = pd.read_json(src.readable(), lines=True, dtype=False)
            offset = 1
        else:
            df = pd.read_csv(src.readable(), dtype=str, keep_default_na=False)
            offset = 2
    except pd.errors.EmptyDataError:
        raise InputError(f"{src.name}: the file is empty") from None
    except (ValueError, pd.errors.ParserError) as exc:
        raise InputError(f"{src.name}: not readable ({exc})") from None
    return validate_interpretations(df, source=src.name, line_offset=offset)


@dataclass
class InterpretResult:
    """Scores of a run: one row per response.

    Attributes
    ----------
    scores : DataFrame
        ``id``, the three dimensions (``NaN`` when invalid), their
        ``*_reason`` columns, ``overall`` (mean of the three), ``valid``,
        ``error``, ``raw`` (the judge's reply) and the metadata columns.
    stats : UsageStats

    Examples
    --------
    >>> from rrmap.judge.tasks.judges import FunctionChat
    >>> df = pd.DataFrame({"id": ["a"], "response": ["x"], "reference": ["y"]})
    >>> res = score_interpretations(df, FunctionChat(lambda m: "No idea.", "grader"),
    ...                             format_retries=0)
    >>> bool(res.scores["valid"][0]), res.scores["raw"][0]
    (False, 'No idea.')
    """

    scores: pd.DataFrame
    stats: UsageStats = field(default_factory=UsageStats)


async def _score_one(
    backend: Any, row: dict[str, Any], prompts: Prompts, format_retries: int
) -> dict[str, Any]:
    text = render(
        prompts.interpret,
        question=row["question"],
        reference=row["reference"],
        response=row["response"],
    )
    messages: list[dict[str, Any]] = [{"role": "user", "content": text}]
    out: dict[str, Any] = {"valid": False, "error": "", "raw": ""}
    try:
        async with conversation(backend, 1 + format_retries):  # a re-ask is bought with it
            res, parsed = await _ask_until_read(backend, messages, prompts, format_retries)
    except CallFailedError as exc:
        out["error"] = f"call failed: {exc}"
        return out
    out["raw"] = res.text
    if parsed.ok:
        out.update(parsed.value, valid=True)
    else:
        out["error"] = f"unreadable answer: {parsed.error}"
    return out


async def _ask_until_read(
    backend: Any, messages: list[dict[str, Any]], prompts: Prompts, format_retries: int
) -> tuple[Any, Any]:
    """The answer to *messages*, asked again with a format reminder while unreadable."""
    res = await backend.chat(messages)
    parsed = parse_fields(res.text, _FIELDS)
    tries = 0
    while not parsed.ok and tries < format_retries:
        tries += 1
        reminder = render(prompts.format_reminder, problem=parsed.error, example=_EXAMPLE)
        messages += [
            {"role": "assistant", "content": res.text},
            {"role": "user", "content": reminder},
        ]
        res = await backend.chat(messages)
        parsed = parse_fields(res.text, _FIELDS)
    return res, parsed


def score_interpretations(
    table: pd.DataFrame,
    backend: Any,
    *,
    prompts: Prompts | None = None,
    format_retries: int = 1,
    in_flight: int | None = None,
    progress: bool = False,
) -> InterpretResult:
    """Grade every response against its reference with a judge model.

    Parameters
    ----------
    table : DataFrame
        From :func:`read_interpretations` / :func:`validate_interpretations`.
    backend : chat backend
    prompts : Prompts or None
    format_retries : int
    in_flight : int or None
    progress : bool

    Returns
    -------
    InterpretResult

    Examples
    --------
    >>> from rrmap.judge.tasks.judges import FunctionChat
    >>> reply = ('{"relevance": 2, "relevance_reason": "on topic", "precision": 1, '
    ...          '"precision_reason": "one wrong claim", "completeness": 0, '
    ...          '"completeness_reason": "misses the composition"}')
    >>> df = pd.DataFrame({"id": ["a"], "response": ["x"], "reference": ["y"]})
    >>> s = score_interpretations(df, FunctionChat(lambda m: reply, "grader")).scores
    >>> s.loc[0, ["relevance", "precision", "completeness", "overall"]].tolist()
    [2.0, 1.0, 0.0, 1.0]
    """
    df = validate_interpretations(table)
    prompts = prompts or DEFAULT_PROMPTS
    return run_sync(_ascore(df, backend, prompts, format_retries, in_flight, progress))


async def _ascore(
    df: pd.DataFrame,
    backend: Any,
    prompts: Prompts,
    format_retries: int,
    in_flight: int | None,
    progress: bool,
) -> InterpretResult:
    recs = df.to_dict("records")
    jobs = [(lambda r=r: _score_one(backend, r, prompts, format_retries)) for r in recs]
    conc = getattr(getattr(backend, "endpoint", None), "concurrency", 8)
    prov: list[dict[str, str]] = []
    async with backend:
        outs = await run_all(
            jobs,
            in_flight=in_flight or 4 * conc,
            progress=progress,
            desc="interpret",
            provenance=prov,
        )
    rows = []
    meta = [c for c in df.columns if c not in ("id", "response", "reference", "question")]
    for r, o, p in zip(recs, outs, prov, strict=True):
        row: dict[str, Any] = {"id": r["id"]}
        for d in DIMENSIONS:
            row[d] = float(o[d]) if o["valid"] else float("nan")
        row["overall"] = (
            (sum(row[d] for d in DIMENSIONS) / len(DIMENSIONS)) if o["valid"] else float("nan")
        )
        for d in DIMENSIONS:
            row[f"{d}_reason"] = o.get(f"{d}_reason", "")
        row.update(valid=o["valid"], error=o["error"], raw=o["raw"], **{c: r[c] for c in meta})
        rows.append({**row, **p})
    return InterpretResult(pd.DataFrame(rows), getattr(backend, "stats", UsageStats()))


def interpretation_summary(
    scores: pd.DataFrame, by: str | Sequence[str] | None = None
) -> pd.DataFrame:
    """Mean score per dimension (valid rows only), overall or by metadata columns.

    When *scores* carry the provenance of their answers (as
    :func:`score_interpretations` returns them), each row carries that of its
    group (:func:`~rrmap.judge.transport._provenance.group_provenance`).

    Returns
    -------
    DataFrame
        The group columns, ``n``, ``n_invalid``, the three dimensions and ``overall``
        (and the provenance columns, above).

    Examples
    --------
    >>> s = pd.DataFrame({"relevance": [2.0, 1.0, float("nan")], "precision": [1.0, 1.0, None],
    ...     "completeness": [2.0, 0.0, None], "overall": [5 / 3, 2 / 3, None],
    ...     "valid": [True, True, False]})
    >>> interpretation_summary(s)[["n", "n_invalid", "relevance", "completeness"]].values.tolist()
    [[3.0, 1.0, 1.5, 1.0]]
    """
    by_cols = [by] if isinstance(by, str) else list(by or [])
    missing = [c for c in by_cols if c not in scores.columns]
    if missing:
        raise InputError(f"no column(s) {', '.join(missing)} to group by")
    cols = [*DIMENSIONS, "overall"]
    traced = set(PROVENANCE_COLUMNS) <= set(scores.columns)

    def agg(g: pd.DataFrame) -> dict[str, Any]:
        valid = g[g["valid"].astype(bool)]
        return {
            "n": len(g),
            "n_invalid": int((~g["valid"].astype(bool)).sum()),
            **{c: valid[c].mean() for c in cols},
            **(group_provenance(g[list(PROVENANCE_COLUMNS)].to_dict("records")) if traced else {}),
        }

    if not by_cols:
        return pd.DataFrame([agg(scores)])
    return pd.DataFrame(
        [
            {**dict(zip(by_cols, k if isinstance(k, tuple) else (k,), strict=True)), **agg(g)}
            for k, g in scores.groupby(by_cols, sort=True)
        ]
    )
