"""Two-alternative forced choice (2AFC) judging of stylised images, ArtCoT style.

A *pairs table* has one row per pair: ``instance`` (e.g. a content/style
combination), ``style`` (the requested style, in words), ``source_image``,
and two candidates ``candidate_a``/``image_a`` and ``candidate_b``/``image_b``.
Each pair is shown in both orders — order ``ab`` puts candidate a on the
left, order ``ba`` on the right — so a judge that prefers a position rather
than an image shows up as inconsistent.

Modes (ArtCoT, Jiang et al.): ``base`` asks for the winner directly; ``cot``
asks for brief step-by-step reasoning and the winner; ``artcot`` runs three
turns of one conversation — a content/style analysis, an art critic's
reflection on that analysis, and a summary that names the winner — each turn
seeing the earlier turns' answers. Only the final answer decides; if it cannot
be read it is asked once more with a reminder of the format
(``format_retries``) and otherwise recorded as invalid with its raw text.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from rrmap._util.escape import message_text
from rrmap.errors import InputError
from rrmap.judge.prompting._sources import input_source
from rrmap.judge.prompting.images import composite_data_url, data_url, image_part, image_problem
from rrmap.judge.prompting.parsing import choice01, parse_fields, text_field
from rrmap.judge.prompting.prompts import DEFAULT_PROMPTS, Prompts, render
from rrmap.judge.tasks.orders import combine_orders, position_bias
from rrmap.judge.transport._provenance import PROVENANCE_COLUMNS, row_provenance
from rrmap.judge.transport._run import run_all, run_sync
from rrmap.judge.transport.client import CallFailedError, conversation
from rrmap.judge.transport.usage import UsageStats

__all__ = [
    "MODES",
    "PAIR_COLUMNS",
    "PairwiseResult",
    "first_messages",
    "judge_pairs",
    "position_bias",
    "read_pairs",
    "stage_fields",
    "validate_pairs",
]

#: Required columns of a pairs table.
PAIR_COLUMNS: tuple[str, ...] = (
    "instance",
    "style",
    "source_image",
    "candidate_a",
    "image_a",
    "candidate_b",
    "image_b",
)
#: Prompting modes.
MODES: tuple[str, ...] = ("base", "cot", "artcot")

_IMAGE_COLUMNS = ("source_image", "image_a", "image_b")


@dataclass(frozen=True)
class _Stage:
    prompt: str
    fields: Mapping[str, Callable[[Any], Any]]
    example: str


_STAGES: dict[str, tuple[_Stage, ...]] = {
    "base": (_Stage("base", {"winner": choice01}, '{"winner": 0}'),),
    "cot": (_Stage("cot", {"winner": choice01}, '{"thinking": "...", "winner": 1}'),),
    "artcot": (
        _Stage(
            "artcot_analyser",
            {
                "style_reason": text_field,
                "content_reason": text_field,
                "style_winner": choice01,
                "content_winner": choice01,
            },
            '{"style_reason": "...", "content_reason": "...", "style_winner": 0, '
            '"content_winner": 1}',
        ),
        _Stage("artcot_critic", {"reflection": text_field}, '{"reflection": "..."}'),
        _Stage("artcot_summary", {"winner": choice01}, '{"winner": 0}'),
    ),
}


def stage_fields(mode: str) -> dict[str, Callable[[Any], Any]]:
    """Every answer field the turns of *mode* ask for (to build a reply each turn accepts).

    Examples
    --------
    >>> sorted(stage_fields("cot"))
    ['winner']
    """
    _check_mode(mode)
    return {name: conv for stage in _STAGES[mode] for name, conv in stage.fields.items()}


def _problem_lines(rows: list[int]) -> str:
    shown = ", ".join(str(r) for r in rows[:20])
    return shown + (f" and {len(rows) - 20} more" if len(rows) > 20 else "")


def validate_pairs(
    pairs: pd.DataFrame,
    *,
    source: str = "<DataFrame>",
    base_dir: str | os.PathLike[str] | None = None,
    check_files: bool = True,
    allow_outside: bool = False,
) -> pd.DataFrame:
    """Check a pairs table and resolve its image paths.

    Every problem is reported at once: missing columns, empty cells, a pair
    whose two candidates have the same name, image files that are missing,
    empty, not regular files, unreadable, larger than the pixel limit or
    outside *base_dir* (:func:`~rrmap.judge.prompting.images.image_problem`). Row
    numbers are file lines (the header is line 1).

    Parameters
    ----------
    pairs : DataFrame
        With the columns of :data:`PAIR_COLUMNS` (others are kept).
    source : str
        Name used in messages.
    base_dir : path or None
        Relative image paths are taken relative to this; when given, every
        image must lie inside it unless *allow_outside*.
    check_files : bool
        Also check every image file (present, regular, not empty, readable,
        within the pixel limit).
    allow_outside : bool, default False
        Accept images outside *base_dir*.

    Returns
    -------
    DataFrame
        A copy, text columns as ``str``, image paths absolute.

    Raises
    ------
    InputError

    Examples
    --------
    >>> df = pd.DataFrame({"instance": ["i1"], "style": ["ukiyo-e"], "source_image": ["s.png"],
    ...     "candidate_a": ["m1"], "image_a": ["a.png"], "candidate_b": ["m1"],
    ...     "image_b": ["b.png"]})
    >>> try:
    ...     validate_pairs(df, check_files=False)
    ... except InputError as err:
    ...     print(err)
    <DataFrame>: 1 problem: line 2: candidate_a and candidate_b are both 'm1'
    """
    if pairs.empty:
        raise InputError(f"{source}: no pairs to judge (the table has no rows)")
    missing = [c for c in PAIR_COLUMNS if c not in pairs.columns]
    if missing:
        raise InputError(
            f"{source}: missing column(s) {', '.join(missing)}; a pairs table needs "
            f"{', '.join(PAIR_COLUMNS)}"
        )
    df = pairs.copy()
    problems: list[str] = []
    for col in PAIR_COLUMNS:
        values = df[col].astype("string").fillna("").str.strip()
        empty = [i + 2 for i, v in enumerate(values) if v == ""]
        if empty:
            problems.append(f"column {col!r} is empty on line(s) {_problem_lines(empty)}")
        df[col] = values.astype(object).map(str)
    for i, (a, b) in enumerate(zip(df["candidate_a"], df["candidate_b"], strict=True)):
        if a and a == b:
            problems.append(f"line {i + 2}: candidate_a and candidate_b are both {a!r}")
    base = Path(base_dir) if base_dir is not None else Path.cwd()
    checked: dict[str, str | None] = {}  # an image of many pairs is opened once
    for col in _IMAGE_COLUMNS:
        resolved = [str(base / p) if p and not Path(p).is_absolute() else p for p in df[col]]
        df[col] = resolved
        bad: dict[tuple[str, str], list[int]] = {}
        for i, p in enumerate(resolved):
            if not p:
                continue
            if p not in checked:
                checked[p] = image_problem(
                    p, base_dir, allow_outside=allow_outside, contents=check_files
                )
            if checked[p] is not None:
                bad.setdefault((p, checked[p]), []).append(i + 2)
        for (p, why), rows in bad.items():
            problems.append(
                f"column {col!r}: image file {message_text(p)} {why} "
                f"(line(s) {_problem_lines(rows)})"
            )
    if problems:
        n = len(problems)
        raise InputError(f"{source}: {n} problem{'s' if n != 1 else ''}: " + "; ".join(problems))
    return df.reset_index(drop=True)


def read_pairs(
    path: str | os.PathLike[str], *, check_files: bool = True, allow_outside: bool = False
) -> pd.DataFrame:
    """Read a pairs CSV; image paths are relative to the file's folder, and inside it.

    Parameters
    ----------
    path : path
        CSV with the columns of :data:`PAIR_COLUMNS` (extra columns are kept);
        ``"-"`` reads standard input, whose image paths are relative to the
        current folder.
    check_files : bool
        Check every image (see :func:`validate_pairs`).
    allow_outside : bool, default False
        Accept images outside the file's folder (``../x.png``, absolute
        paths, links leading out).

    Returns
    -------
    DataFrame

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "p.csv").write_text(
    ...     "instance,style,source_image,candidate_a,image_a,candidate_b,image_b\\n"
    ...     "i1,ukiyo-e,s.png,m1,a.png,m2,b.png\\n")
    >>> read_pairs(d / "p.csv", check_files=False)["image_a"][0] == str(d / "a.png")
    True
    """
    src = input_source(path)
    try:
        df = pd.read_csv(src.readable(), dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError:
        raise InputError(f"{src.name}: the file is empty") from None
    except pd.errors.ParserError as exc:
        raise InputError(f"{src.name}: not a readable CSV ({exc})") from None
    return validate_pairs(
        df,
        source=src.name,
        base_dir=src.folder,
        check_files=check_files,
        allow_outside=allow_outside,
    )


def _image_parts(
    row: Mapping[str, Any], order: str, composite: bool, max_side: int | None, fmt: str
) -> list[dict[str, Any]]:
    left, right = (
        (row["image_a"], row["image_b"])
        if order == "ab"
        else (
            row["image_b"],
            row["image_a"],
        )
    )
    if composite:
        url = composite_data_url(row["source_image"], left, right, max_side=max_side, fmt=fmt)
        return [image_part(url)]
    return [image_part(data_url(p, max_side, fmt=fmt)) for p in (row["source_image"], left, right)]


def _user(images: list[dict[str, Any]], text: str) -> dict[str, Any]:
    return {"role": "user", "content": [*images, {"type": "text", "text": text}]}


def _stage_text(prompts: Prompts, stage: _Stage, style: str, composite: bool) -> str:
    layout = prompts.layout_composite if composite else prompts.layout_separate
    return render(getattr(prompts, stage.prompt), style=style, layout=layout)


def first_messages(
    pairs: pd.DataFrame,
    *,
    mode: str = "artcot",
    prompts: Prompts | None = None,
    composite: bool = True,
    max_side: int | None = 512,
    image_format: str = "PNG",
) -> list[dict[str, Any]]:
    """The messages of the first call :func:`judge_pairs` would make (for a dry run).

    Examples
    --------
    >>> from PIL import Image
    >>> im = Image.new("RGB", (8, 8))
    >>> df = pd.DataFrame([{"instance": "i", "style": "pop art", "source_image": im,
    ...     "candidate_a": "m1", "image_a": im, "candidate_b": "m2", "image_b": im}])
    >>> msgs = first_messages(df, mode="base")
    >>> [p["type"] for p in msgs[0]["content"]]
    ['image_url', 'text']
    """
    _check_mode(mode)
    prompts = prompts or DEFAULT_PROMPTS
    row = pairs.iloc[0]
    images = _image_parts(row, "ab", composite, max_side, image_format)
    stage = _STAGES[mode][0]
    return [_user(images, _stage_text(prompts, stage, str(row["style"]), composite))]


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise InputError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")


@dataclass
class PairwiseResult:
    """Everything a 2AFC run produced.

    Attributes
    ----------
    per_order : DataFrame
        One row per pair and order: ``instance``, ``left``, ``right``,
        ``winner`` (``""`` when invalid), ``valid``, ``order``, ``mode``,
        ``model``, ``error``, ``answers`` (JSON list of every turn's raw reply).
    comparisons : DataFrame
        One row per pair with a verdict, in rrmap.rank's comparisons format
        (``instance``, ``left`` = candidate a, ``right`` = candidate b,
        ``winner``) plus ``mode``, ``model``, ``n_valid_orders``,
        ``agreement``, ``verdict_ab``, ``verdict_ba``, ``answers_ab``, ``answers_ba``.
    bias : DataFrame
        :func:`position_bias` of ``per_order``.
    excluded : DataFrame
        Pairs with no valid verdict in any order, with the reason.
    stats : UsageStats

    Examples
    --------
    >>> from rrmap.judge.tasks.judges import RandomJudge
    >>> from PIL import Image
    >>> im = Image.new("RGB", (8, 8))
    >>> df = pd.DataFrame([{"instance": "i", "style": "s", "source_image": im,
    ...     "candidate_a": "m1", "image_a": im, "candidate_b": "m2", "image_b": im}])
    >>> res = judge_pairs(df, RandomJudge(rng=1))
    >>> len(res.per_order), list(res.comparisons.columns[:4])
    (2, ['instance', 'left', 'right', 'winner'])
    """

    per_order: pd.DataFrame
    comparisons: pd.DataFrame
    bias: pd.DataFrame
    excluded: pd.DataFrame
    stats: UsageStats = field(default_factory=UsageStats)

    def summary(self) -> str:
        """A few lines for a log: verdicts, exclusions, position bias.

        Examples
        --------
        >>> from rrmap.judge.tasks.judges import RandomJudge
        >>> from PIL import Image
        >>> im = Image.new("RGB", (8, 8))
        >>> df = pd.DataFrame([{"instance": "i", "style": "s", "source_image": im,
        ...     "candidate_a": "m1", "image_a": im, "candidate_b": "m2", "image_b": im}])
        >>> print(judge_pairs(df, RandomJudge(rng=0)).summary().splitlines()[0])
        1 pair(s) judged in 2 order(s): 1 verdict(s), 0 pair(s) excluded (no valid answer)
        """
        n_pairs = self.per_order["pair"].nunique() if len(self.per_order) else 0
        n_orders = self.per_order["order"].nunique() if len(self.per_order) else 0
        lines = [
            f"{n_pairs} pair(s) judged in {n_orders} order(s): {len(self.comparisons)} "
            f"verdict(s), {len(self.excluded)} pair(s) excluded (no valid answer)"
        ]
        n_invalid = int((~self.per_order["valid"]).sum()) if len(self.per_order) else 0
        if n_invalid:
            lines.append(f"{n_invalid} answer(s) invalid (kept with raw text in per_order)")
        for r in self.bias.itertuples(index=False):
            lines.append(
                f"{r.model} [{r.mode}]: left-preference rate {r.left_rate:.3f} "
                f"(p = {r.left_rate_p:.3g}), consistency across orders {r.consistency:.3f} "
                f"over {r.n_pairs_both_valid} pair(s)"
            )
        return "\n".join(lines)


async def _judge_chat(
    backend: Any,
    row: Mapping[str, Any],
    order: str,
    mode: str,
    prompts: Prompts,
    composite: bool,
    max_side: int | None,
    image_format: str,
    format_retries: int,
) -> dict[str, Any]:
    images = await asyncio.to_thread(_image_parts, row, order, composite, max_side, image_format)
    # the turns and the format re-asks are one conversation: a budget buys all or none
    async with conversation(backend, len(_STAGES[mode]) + format_retries):
        return await _converse(backend, row, images, mode, prompts, composite, format_retries)


async def _converse(
    backend: Any,
    row: Mapping[str, Any],
    images: list[dict[str, Any]],
    mode: str,
    prompts: Prompts,
    composite: bool,
    format_retries: int,
) -> dict[str, Any]:
    """The turns of one judgement: each sees the earlier ones; the last must be readable."""
    messages: list[dict[str, Any]] = []
    answers: list[dict[str, Any]] = []
    stages = _STAGES[mode]
    parsed = None
    error = ""
    for i, stage in enumerate(stages):
        text = _stage_text(prompts, stage, str(row["style"]), composite)
        messages.append(_user(images if i == 0 else [], text))
        try:
            res = await backend.chat(messages)
        except CallFailedError as exc:
            answers.append({"turn": stage.prompt, "text": None, "error": str(exc)})
            return {
                "winner": "",
                "valid": False,
                "error": f"call failed: {exc}",
                "answers": answers,
            }
        parsed = parse_fields(res.text, stage.fields)
        answers.append({"turn": stage.prompt, "text": res.text, "error": parsed.error})
        final = i == len(stages) - 1
        tries = 0
        while final and not parsed.ok and tries < format_retries:
            tries += 1
            reminder = render(prompts.format_reminder, problem=parsed.error, example=stage.example)
            messages += [
                {"role": "assistant", "content": res.text},
                {"role": "user", "content": reminder},
            ]
            try:
                res = await backend.chat(messages)
            except CallFailedError as exc:
                answers.append({"turn": "format_reminder", "text": None, "error": str(exc)})
                return {
                    "winner": "",
                    "valid": False,
                    "error": f"call failed: {exc}",
                    "answers": answers,
                }
            parsed = parse_fields(res.text, stage.fields)
            answers.append({"turn": "format_reminder", "text": res.text, "error": parsed.error})
        messages.append({"role": "assistant", "content": res.text})
        if final and not parsed.ok:
            error = f"unreadable answer: {parsed.error}"
    if parsed is not None and parsed.ok:
        winner = "left" if parsed.value["winner"] == 0 else "right"
        return {"winner": winner, "valid": True, "error": "", "answers": answers}
    return {"winner": "", "valid": False, "error": error, "answers": answers}


def judge_pairs(
    pairs: pd.DataFrame,
    judge: Any,
    *,
    mode: str = "artcot",
    orders: str = "both",
    prompts: Prompts | None = None,
    composite: bool = True,
    max_side: int | None = 512,
    image_format: str = "PNG",
    format_retries: int = 1,
    in_flight: int | None = None,
    progress: bool = False,
) -> PairwiseResult:
    """Judge every pair with an MLLM (or a Python judge) and combine the orders.

    Parameters
    ----------
    pairs : DataFrame
        A pairs table (see :func:`read_pairs`); images as paths or PIL images.
    judge : ChatClient, FunctionChat or a pair judge
        A chat backend (HTTP or Python) or an object with ``judge_pair``
        (see :mod:`rrmap.judge.tasks.judges`).
    mode : {"base", "cot", "artcot"}
    orders : {"both", "ab"}
        ``"both"`` judges each pair with a on the left and then on the right.
    prompts : Prompts or None
        Replacement prompt texts (:func:`~rrmap.judge.prompting.prompts.load_prompts`).
    composite : bool
        One composite image (source on top, candidates below) or three
        separate images for models that accept several.
    max_side : int or None
        Downscale each image so its longer side is at most this.
    image_format : {"PNG", "JPEG", "WEBP"}
    format_retries : int
        Extra requests with a format reminder when the final answer is unreadable.
    in_flight : int or None
        Pair-orders prepared at once (default: four times the endpoint's
        concurrency).
    progress : bool
        Show a progress bar on stderr.

    Returns
    -------
    PairwiseResult

    Raises
    ------
    EndpointError
        Wrong key, model or URL: the run stops (finished calls stay cached).

    Examples
    --------
    >>> from rrmap.judge.tasks.judges import FunctionChat
    >>> from PIL import Image
    >>> im = Image.new("RGB", (8, 8))
    >>> df = pd.DataFrame([{"instance": "i", "style": "s", "source_image": im,
    ...     "candidate_a": "m1", "image_a": im, "candidate_b": "m2", "image_b": im}])
    >>> res = judge_pairs(df, FunctionChat(lambda m: "{'winner': 0}", "left-lover"), mode="base")
    >>> res.comparisons[["left", "right", "winner", "agreement"]].values.tolist()
    [['m1', 'm2', 'tie', 'disagree']]
    >>> float(res.bias["left_rate"].iloc[0]), float(res.bias["consistency"].iloc[0])
    (1.0, 0.0)
    """
    _check_mode(mode)
    missing = [c for c in PAIR_COLUMNS if c not in pairs.columns]
    if missing:
        raise InputError(
            f"pairs table: missing column(s) {', '.join(missing)}; needs {', '.join(PAIR_COLUMNS)}"
        )
    if orders not in ("both", "ab"):
        raise InputError(f"orders must be 'both' or 'ab', got {orders!r}")
    if format_retries < 0:
        raise InputError(f"format_retries must be >= 0, got {format_retries}")
    prompts = prompts or DEFAULT_PROMPTS
    return run_sync(
        _ajudge_pairs(
            pairs,
            judge,
            mode,
            ("ab", "ba") if orders == "both" else ("ab",),
            prompts,
            composite,
            max_side,
            image_format,
            format_retries,
            in_flight,
            progress,
        )
    )


async def _ajudge_pairs(
    pairs: pd.DataFrame,
    judge: Any,
    mode: str,
    orders: tuple[str, ...],
    prompts: Prompts,
    composite: bool,
    max_side: int | None,
    image_format: str,
    format_retries: int,
    in_flight: int | None,
    progress: bool,
) -> PairwiseResult:
    records = pairs.to_dict("records")
    items = [(i, order) for i in range(len(records)) for order in orders]
    is_pair_judge = hasattr(judge, "judge_pair") and not hasattr(judge, "chat")
    used_mode = "baseline" if is_pair_judge else mode
    stats = getattr(judge, "stats", UsageStats())

    def make_job(i: int, order: str) -> Callable[[], Any]:
        row = records[i]

        async def job() -> dict[str, Any]:
            if is_pair_judge:
                left, right = (
                    (row["image_a"], row["image_b"])
                    if order == "ab"
                    else (row["image_b"], row["image_a"])
                )
                w = judge.judge_pair(row["source_image"], left, right, str(row["style"]))
                if w not in ("left", "right", "tie"):
                    raise InputError(
                        f"judge {judge.name!r} returned {w!r}, not 'left', 'right' or 'tie'"
                    )
                return {"winner": w, "valid": True, "error": "", "answers": []}
            return await _judge_chat(
                judge, row, order, mode, prompts, composite, max_side, image_format, format_retries
            )

        return job

    if in_flight is None:
        conc = getattr(getattr(judge, "endpoint", None), "concurrency", 8)
        in_flight = 4 * conc
    jobs = [make_job(i, o) for i, o in items]
    prov = [row_provenance([]) for _ in jobs]
    if is_pair_judge:
        outcomes = [await j() for j in jobs]
    else:
        async with judge:
            outcomes = await run_all(
                jobs, in_flight=in_flight, progress=progress, desc=f"2afc {mode}", provenance=prov
            )
    rows = []
    for (i, order), out, p in zip(items, outcomes, prov, strict=True):
        r = records[i]
        left, right = (
            (r["candidate_a"], r["candidate_b"])
            if order == "ab"
            else (r["candidate_b"], r["candidate_a"])
        )
        rows.append(
            {
                "pair": i,
                "instance": r["instance"],
                "left": left,
                "right": right,
                "winner": out["winner"],
                "valid": out["valid"],
                "order": order,
                "mode": used_mode,
                "model": judge.name,
                "style": r["style"],
                "candidate_a": r["candidate_a"],
                "candidate_b": r["candidate_b"],
                "error": out["error"],
                "answers": json.dumps(out["answers"], ensure_ascii=False),
                **p,
            }
        )
    cols = [
        "pair",
        "instance",
        "left",
        "right",
        "winner",
        "valid",
        "order",
        "mode",
        "model",
        "style",
        "candidate_a",
        "candidate_b",
        "error",
        "answers",
        *PROVENANCE_COLUMNS,
    ]
    per_order = pd.DataFrame(rows, columns=cols)
    per_order["valid"] = per_order["valid"].astype(bool)
    comparisons, excluded = combine_orders(per_order)
    return PairwiseResult(per_order, comparisons, position_bias(per_order), excluded, stats)
