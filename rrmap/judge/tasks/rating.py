"""A multimodal model as one more RRMap rater.

The model rates like the study's experts did: for a corpus of query images
(shown as a meta-image) and its reference corpus (shown as a meta-image, or
named so that the model rates it from knowledge), it gives one interval per
criterion meant to hold about 95 % of the works, on the criterion's scale.
In the study's *relative* setup, all corpora of one sheet (one movement: the
movement itself, its male and its female painter) are rated together, one
criterion at a time; the *single* setup asks about one corpus at a time.

Every answer is parsed and validated (two numbers, ordered, inside the
scale, not degenerate); an invalid answer is re-asked with the problems
spelled out, and what stays invalid is recorded as a failure with the raw
text — never guessed. The result is a ratings table in the study's schema
(docs/ratings.md) with the model as the rater, ready for :func:`rrmap.analyze`
together with human ratings.

A model rating "from knowledge" is not an expert: rrmap measures how the
model's intervals agree with the humans', not who is right.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rrmap._util.escape import join_groups
from rrmap._version import __version__
from rrmap.errors import InputError
from rrmap.gaussian import interval_to_gaussian
from rrmap.judge.prompting.corpora import Corpus, meta_image
from rrmap.judge.prompting.criteria import Criterion
from rrmap.judge.prompting.images import data_url, image_part
from rrmap.judge.prompting.parsing import extract_mapping
from rrmap.judge.tasks.model_ratings import STUDY_COLUMNS, ModelRatings
from rrmap.judge.transport._provenance import PROVENANCE_COLUMNS, utc_now
from rrmap.judge.transport._run import run_all, run_sync
from rrmap.judge.transport.client import CallFailedError, conversation, public_url

__all__ = [
    "RATING_PROMPTS",
    "RatingPrompts",
    "merge_ratings",
    "parse_intervals",
    "rate_corpora",
    "sheet_requests",
]


@dataclass(frozen=True)
class RatingPrompts:
    """The wording of the rating conversation (all of it, in one place).

    Fields are ``str.format`` templates; see :data:`RATING_PROMPTS` for the
    default and the placeholders each template receives.

    Examples
    --------
    >>> "{movement}" in RATING_PROMPTS.sheet
    True
    """

    system: str
    criterion: str
    sheet: str
    corpus_knowledge: str
    corpus_images: str
    answer_format: str
    reask: str


RATING_PROMPTS = RatingPrompts(
    system=(
        "You are a specialist in art history and visual semiotics. You rate corpora of images "
        "on visual criteria, each a continuous scale between two opposite poles. For every "
        "corpus you give an interval that holds about 95 % of its works: narrow when the "
        "corpus is homogeneous on the criterion, wide when it varies. You answer with JSON "
        "only."
    ),
    criterion=(
        "Criterion: {name} ({group}). Scale from {lo:g} to {hi:g}.\n"
        "- {lo:g} means {low_label}: {low_definition}\n"
        "- {hi:g} means {high_label}: {high_definition}"
    ),
    sheet=(
        "Rating sheet: {movement}. Rate each corpus below on the criterion, placing the "
        "intervals relative to one another as on one sheet. For each corpus give two "
        "intervals: 'reference' for the historical works and 'generated' for the generated "
        "images shown.\n\n{criterion}\n\n{corpora}"
    ),
    corpus_knowledge=(
        "Corpus {label}: {modality} — {modality_name}. Reference: {reference}, rated from your "
        "knowledge of it. Generated: the grid of images labelled {label}."
    ),
    corpus_images=(
        "Corpus {label}: {modality} — {modality_name}. Reference: {reference}, shown in the "
        "grid labelled {label}-reference. Generated: the grid of images labelled {label}."
    ),
    answer_format=(
        "Reply with JSON only, in exactly this form (numbers on the scale, low < high):\n{example}"
    ),
    reask=(
        "Your answer could not be used: {problems}. Reply again with JSON only, in exactly "
        "this form:\n{example}"
    ),
)


def _example(labels: Sequence[str]) -> str:
    return json.dumps(
        {lab: {"reference": ["low", "high"], "generated": ["low", "high"]} for lab in labels}
    )


def _labels(n: int) -> list[str]:
    return [chr(ord("A") + i) if i < 26 else f"C{i + 1}" for i in range(n)]


_REF_KEYS = ("reference", "real", "historical")
_GEN_KEYS = ("generated", "query", "model")


def _bounds(value: Any) -> tuple[float, float] | str:
    if isinstance(value, Mapping):
        lo = value.get("low", value.get("lo", value.get("min")))
        hi = value.get("high", value.get("hi", value.get("max")))
        value = [lo, hi]
    if isinstance(value, str) or not isinstance(value, Sequence) or len(value) != 2:
        return f"expected [low, high], got {value!r}"
    try:
        lo, hi = float(value[0]), float(value[1])
    except (TypeError, ValueError):
        return f"expected two numbers, got {list(value)!r}"
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"expected finite numbers, got {list(value)!r}"
    return lo, hi


def parse_intervals(
    text: str | None, labels: Sequence[str], scale: tuple[float, float]
) -> tuple[dict[str, dict[str, tuple[float, float]]] | None, list[str]]:
    """Parse and validate a rating answer: two intervals per corpus label.

    Accepted: a JSON object or Python dict literal, bare, fenced or inside
    prose, mapping each label to ``{"reference": [lo, hi], "generated": [lo,
    hi]}`` (``real``/``historical`` and ``query`` are accepted as synonyms,
    and ``{"low": .., "high": ..}`` for an interval). Each interval must be
    two finite numbers with low < high inside the scale.

    Parameters
    ----------
    text : str or None
        The model's answer.
    labels : sequence of str
        The corpus labels asked for.
    scale : (float, float)

    Returns
    -------
    intervals : dict or None
        ``{label: {"reference": (lo, hi), "generated": (lo, hi)}}`` when
        everything is valid, else ``None``.
    problems : list of str
        What is wrong (empty when valid).

    Examples
    --------
    >>> ok, problems = parse_intervals('{"A": {"reference": [20, 60], "generated": [30, 45]}}',
    ...                                ["A"], (0, 100))
    >>> ok, problems
    ({'A': {'reference': (20.0, 60.0), 'generated': (30.0, 45.0)}}, [])
    >>> for p in parse_intervals('{"A": {"reference": [60, 20], "generated": [30, 130]}}',
    ...                          ["A"], (0, 100))[1]:
    ...     print(p)
    A reference: low 60 is not below high 20
    A generated: [30, 130] is outside the scale [0, 100]
    """
    mapping = extract_mapping(text or "")
    if mapping is None:
        return None, ["no JSON object found in the answer"]
    if (
        len(labels) == 1
        and labels[0] not in mapping
        and any(k in mapping for k in (*_REF_KEYS, *_GEN_KEYS))
    ):
        mapping = {labels[0]: mapping}
    lo_s, hi_s = scale
    out: dict[str, dict[str, tuple[float, float]]] = {}
    problems: list[str] = []
    for lab in labels:
        entry = mapping.get(lab)
        if not isinstance(entry, Mapping):
            problems.append(f"corpus {lab} is missing")
            continue
        pair: dict[str, tuple[float, float]] = {}
        for side, keys in (("reference", _REF_KEYS), ("generated", _GEN_KEYS)):
            key = next((k for k in keys if k in entry), None)
            if key is None:
                problems.append(f"{lab} {side}: missing")
                continue
            b = _bounds(entry[key])
            if isinstance(b, str):
                problems.append(f"{lab} {side}: {b}")
            elif not b[0] < b[1]:
                problems.append(f"{lab} {side}: low {b[0]:g} is not below high {b[1]:g}")
            elif b[0] < lo_s or b[1] > hi_s:
                problems.append(
                    f"{lab} {side}: [{b[0]:g}, {b[1]:g}] is outside the scale [{lo_s:g}, {hi_s:g}]"
                )
            else:
                pair[side] = b
        out[lab] = pair
    return (None, problems) if problems else (out, [])


def _with_seed(backend: Any, seed: int) -> Any:
    """A backend whose requests carry *seed* (its own cache entries per seed)."""
    hook = getattr(backend, "with_seed", None)
    return hook(seed) if callable(hook) else backend


def _sheet_messages(
    sheet: Sequence[Corpus],
    criterion: Criterion,
    prompts: RatingPrompts,
    images: Mapping[Path, str],
) -> tuple[list[dict[str, Any]], list[str]]:
    labels = _labels(len(sheet))
    lo, hi = criterion.scale
    crit = prompts.criterion.format(
        name=criterion.name,
        group=criterion.group,
        lo=lo,
        hi=hi,
        low_label=criterion.low.label,
        low_definition=criterion.low.definition,
        high_label=criterion.high.label,
        high_definition=criterion.high.definition,
    )
    corpora = "\n".join(
        (prompts.corpus_images if c.reference_images else prompts.corpus_knowledge).format(
            label=lab, modality=c.modality, modality_name=c.modality_name, reference=c.reference
        )
        for lab, c in zip(labels, sheet, strict=True)
    )
    text = prompts.sheet.format(movement=sheet[0].movement, criterion=crit, corpora=corpora)
    text += "\n\n" + prompts.answer_format.format(example=_example(labels))
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
    for lab, c in zip(labels, sheet, strict=True):
        parts.append({"type": "text", "text": f"Grid {lab}: generated images ({c.modality_name})"})
        parts.append(image_part(images[c.query]))
        if c.reference_images is not None:
            parts.append(
                {
                    "type": "text",
                    "text": f"Grid {lab}-reference: reference works ({c.modality_name})",
                }
            )
            parts.append(image_part(images[c.reference_images]))
    messages = [{"role": "system", "content": prompts.system}, {"role": "user", "content": parts}]
    return messages, labels


async def _ask(
    backend: Any,
    messages: list[dict[str, Any]],
    labels: list[str],
    scale: tuple[float, float],
    prompts: RatingPrompts,
    max_reasks: int,
):
    # the sheet and its re-asks are one conversation: a budget buys all of them or none
    async with conversation(backend, max_reasks + 1):
        return await _ask_turns(backend, messages, labels, scale, prompts, max_reasks)


async def _ask_turns(
    backend: Any,
    messages: list[dict[str, Any]],
    labels: list[str],
    scale: tuple[float, float],
    prompts: RatingPrompts,
    max_reasks: int,
):
    convo = list(messages)
    attempts, raw, problems = 0, "", []
    for attempt in range(max_reasks + 1):
        try:
            result = await backend.chat(convo)
        except CallFailedError as exc:
            # recorded as a failed sheet, like the other judging commands do
            return None, attempt + 1, raw, [f"call failed: {exc}"]
        attempts, raw = attempt + 1, result.text
        parsed, problems = parse_intervals(raw, labels, scale)
        if parsed is not None:
            return parsed, attempts, raw, []
        convo = [
            *convo,
            {"role": "assistant", "content": raw},
            {
                "role": "user",
                "content": prompts.reask.format(
                    problems="; ".join(problems), example=_example(labels)
                ),
            },
        ]
    return None, attempts, raw, problems


def sheet_requests(
    corpora: Sequence[Corpus],
    criteria: Sequence[Criterion],
    *,
    setup: str = "relative",
    grid_limit: int | None = 20,
    grid_columns: int = 5,
    cell: int = 256,
    prompts: RatingPrompts = RATING_PROMPTS,
) -> list[tuple[list[Corpus], Criterion, list[dict[str, Any]], list[str]]]:
    """The requests of one rating run: one per sheet and criterion, in order.

    Sheets are the movements' corpora together (``relative``) or one corpus
    each (``single``); each folder's meta-image is encoded once.

    Parameters
    ----------
    corpora, criteria, setup, grid_limit, grid_columns, cell, prompts
        As in :func:`rate_corpora`.

    Returns
    -------
    list of (sheet, criterion, messages, labels)

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> from rrmap.judge.prompting.criteria import study_criteria
    >>> d = Path(tempfile.mkdtemp())
    >>> Image.new("RGB", (8, 8)).save(d / "1.png")
    >>> corpora = [Corpus("cubism", m, m, d, "the works") for m in ("movement", "male painter")]
    >>> reqs = sheet_requests(corpora, study_criteria()[:2])
    >>> len(reqs), reqs[0][3]
    (2, ['A', 'B'])
    """
    if setup not in ("relative", "single"):
        raise InputError(f"setup must be 'relative' or 'single', got {setup!r}")
    images: dict[Path, str] = {}
    for c in corpora:
        for folder in (c.query, c.reference_images):
            if folder is not None and folder not in images:
                images[folder] = data_url(
                    meta_image(folder, limit=grid_limit, columns=grid_columns, cell=cell)
                )
    if setup == "relative":
        sheets: dict[str, list[Corpus]] = {}
        for c in corpora:
            sheets.setdefault(c.movement, []).append(c)
        sheet_list = list(sheets.values())
    else:
        sheet_list = [[c] for c in corpora]
    out = []
    for sheet in sheet_list:
        for crit in criteria:
            messages, labels = _sheet_messages(sheet, crit, prompts, images)
            out.append((sheet, crit, messages, labels))
    return out


def rate_corpora(
    backend: Any,
    corpora: Sequence[Corpus],
    criteria: Sequence[Criterion],
    *,
    setup: str = "relative",
    repeats: int = 1,
    rng: int | np.random.Generator | None = 0,
    rater: str | None = None,
    origins: tuple[str, str] = ("real", "generated"),
    max_reasks: int = 2,
    grid_limit: int | None = 20,
    grid_columns: int = 5,
    cell: int = 256,
    prompts: RatingPrompts = RATING_PROMPTS,
    concurrency: int | None = None,
    progress: bool = True,
) -> ModelRatings:
    """Ask a multimodal model to rate corpora on criteria with 95 % intervals.

    Parameters
    ----------
    backend : ChatClient or chat backend
        An HTTP client (:class:`rrmap.judge.ChatClient`) or any object with
        ``async chat(messages)`` (e.g. :class:`rrmap.judge.FunctionChat`).
    corpora : sequence of Corpus
        From :func:`rrmap.judge.prompting.corpora.load_corpora`.
    criteria : sequence of Criterion
        From :func:`rrmap.judge.prompting.criteria.load_criteria` or ``study_criteria()``.
    setup : {"relative", "single"}
        ``relative``: all corpora of a movement on one sheet per criterion (the
        study's protocol); ``single``: one corpus per request.
    repeats : int, default 1
        Independent runs; each run sends its own seed (the ``seed`` request
        parameter) so that, with a temperature above 0, the model's own
        variability shows.
    rng : int or Generator, default 0
        Draws the runs' seeds (recorded in the settings).
    rater : str, optional
        Name in the ``expert`` column (default: the backend's model name).
    origins : (str, str)
        Origin values written for the reference and the query corpus.
    max_reasks : int, default 2
        Re-asks of an invalid answer, each listing what was wrong.
    grid_limit, grid_columns, cell
        Meta-image settings (see :func:`rrmap.judge.prompting.corpora.meta_image`).
    prompts : RatingPrompts
        The wording; default :data:`RATING_PROMPTS`.
    concurrency : int, optional
        Sheets in flight (default: the endpoint's concurrency, else 8).
    progress : bool
        A progress bar on stderr.

    Returns
    -------
    ModelRatings

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> from rrmap.judge import FunctionChat
    >>> from rrmap.judge.prompting.criteria import study_criteria
    >>> d = Path(tempfile.mkdtemp())
    >>> Image.new("RGB", (8, 8)).save(d / "1.png")
    >>> corpus = Corpus("cubism", "movement", "Cubism", d, "the historical Cubist paintings")
    >>> model = FunctionChat(lambda m: '{"A": {"reference": [20, 70], "generated": [35, 55]}}',
    ...                      name="fixed")
    >>> out = rate_corpora(model, [corpus], study_criteria()[:2], progress=False)
    >>> out.ratings[["criterion", "origin", "low rating", "high rating"]].values.tolist()[:2]
    [['centered-edges', 'real', 20.0, 70.0], ['centered-edges', 'generated', 35.0, 55.0]]
    """
    if repeats < 1:
        raise InputError(f"repeats must be at least 1, got {repeats}")
    if not corpora or not criteria:
        raise InputError("need at least one corpus and one criterion")
    gen = np.random.default_rng(rng)
    seeds = [int(s) for s in gen.integers(0, 2**31 - 1, size=repeats)]
    name = rater or getattr(backend, "name", "model")
    requests = sheet_requests(
        corpora,
        criteria,
        setup=setup,
        grid_limit=grid_limit,
        grid_columns=grid_columns,
        cell=cell,
        prompts=prompts,
    )
    backends = [_with_seed(backend, s) for s in seeds]
    jobs, meta = _rating_jobs(backends, seeds, requests, prompts, max_reasks)
    in_flight = concurrency or getattr(getattr(backend, "endpoint", None), "concurrency", 8)
    prov: list[dict[str, str]] = []
    answers = run_sync(_run_jobs(backend, backends, jobs, in_flight, progress, name, prov))
    run_rows, fail_rows = _answer_rows(meta, answers, name, origins, prov)
    runs = pd.DataFrame(
        run_rows,
        columns=[*_SHEET_KEYS, "low rating", "high rating", "run", "seed", *PROVENANCE_COLUMNS],
    )
    ratings, variability = _summarise_runs(runs)
    failures = pd.DataFrame(
        fail_rows,
        columns=[
            *("run", "seed", "movement", "criterion", "corpora", "attempts", "problems", "raw"),
            *PROVENANCE_COLUMNS,
        ],
    )
    stats = getattr(backend, "stats", None)
    endpoint = getattr(backend, "endpoint", None)
    prompt_text = json.dumps(asdict(prompts), sort_keys=True, ensure_ascii=False)
    settings = {
        "date": utc_now(),
        "endpoint": public_url(endpoint.base_url) if endpoint is not None else None,
        "prompt_hash": hashlib.sha256(prompt_text.encode("utf-8")).hexdigest(),
        "model": getattr(backend, "name", None),
        "model_versions": list(stats.model_versions) if stats is not None else [],
        "rater": name,
        "setup": setup,
        "repeats": repeats,
        "rng": rng if isinstance(rng, int) else None,
        "seeds": seeds,
        "temperature": getattr(getattr(backend, "endpoint", None), "temperature", None),
        "max_reasks": max_reasks,
        "grid_limit": grid_limit,
        "origins": list(origins),
        "scale": list(criteria[0].scale) if len({c.scale for c in criteria}) == 1 else None,
        "criteria": [c.name for c in criteria],
        "n_corpora": len(corpora),
        "sheets_asked": len(jobs),
        "sheets_failed": len(failures),
        "usage": stats.summary() if stats is not None else None,
        "rrmap_version": __version__,
    }
    return ModelRatings(ratings, runs, variability, failures, settings)


#: The key columns of one rated interval (the study's schema without the bounds).
_SHEET_KEYS = [c for c in STUDY_COLUMNS if c not in ("low rating", "high rating", "mean", "sigma")]


def _rating_jobs(
    backends: list[Any],
    seeds: list[int],
    requests: list[tuple],
    prompts: RatingPrompts,
    max_reasks: int,
) -> tuple[list[Any], list[tuple]]:
    """One coroutine factory per (run, sheet), and what each is about."""
    jobs, meta = [], []
    for run, (b, seed) in enumerate(zip(backends, seeds, strict=True), start=1):
        for sheet, crit, msgs, labels in requests:

            async def job(b=b, msgs=msgs, labels=labels, crit=crit):
                return await _ask(b, msgs, labels, crit.scale, prompts, max_reasks)

            jobs.append(job)
            meta.append((run, seed, sheet, crit, labels))
    return jobs, meta


async def _run_jobs(
    backend: Any,
    backends: list[Any],
    jobs: list[Any],
    in_flight: int,
    progress: bool,
    name: str,
    provenance: list[dict[str, str]],
) -> list[Any]:
    """Run every job, with the per-run seeded backends opened for the run and closed after it."""
    async with backend:
        opened = [b for b in backends if b is not backend]
        for b in opened:
            await b.__aenter__()
        try:
            return await run_all(
                jobs,
                in_flight=in_flight,
                progress=progress,
                desc=f"rating with {name}",
                provenance=provenance,
            )
        finally:
            for b in opened:
                await b.__aexit__(None, None, None)


def _answer_rows(
    meta: list[tuple],
    answers: list[Any],
    name: str,
    origins: tuple[str, str],
    provenance: list[dict[str, str]],
) -> tuple[list[dict], list[dict]]:
    """Rows of rated intervals (one per corpus, side and run) and of failed sheets."""
    run_rows, fail_rows = [], []
    ref_origin, qry_origin = origins
    for (run, seed, sheet, crit, labels), (parsed, attempts, raw, problems), prov in zip(
        meta, answers, provenance, strict=True
    ):
        if parsed is None:
            fail_rows.append(
                {
                    "run": run,
                    "seed": seed,
                    "movement": sheet[0].movement,
                    "criterion": crit.name,
                    "corpora": join_groups(c.modality_name for c in sheet),
                    "attempts": attempts,
                    "problems": "; ".join(problems),
                    "raw": raw,
                    **prov,
                }
            )
            continue
        for lab, c in zip(labels, sheet, strict=True):
            for side, origin in (("reference", ref_origin), ("generated", qry_origin)):
                lo, hi = parsed[lab][side]
                run_rows.append(
                    {
                        "movement": c.movement,
                        "expert": name,
                        "criterion": crit.name,
                        "criterion group": crit.group,
                        "origin": origin,
                        "modality": c.modality,
                        "modality name": c.modality_name,
                        "low rating": lo,
                        "high rating": hi,
                        "run": run,
                        "seed": seed,
                        **prov,
                    }
                )
    return run_rows, fail_rows


def _summarise_runs(runs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ratings (median bounds over runs, in the study's schema) and their spread."""
    agg = (
        runs.groupby(_SHEET_KEYS, sort=False)
        .agg(
            low=("low rating", "median"),
            high=("high rating", "median"),
            n_runs=("run", "nunique"),
            low_min=("low rating", "min"),
            low_max=("low rating", "max"),
            high_min=("high rating", "min"),
            high_max=("high rating", "max"),
        )
        .reset_index()
    )
    ratings = agg[_SHEET_KEYS].copy()
    ratings["low rating"] = agg["low"].to_numpy()
    ratings["high rating"] = agg["high"].to_numpy()
    m, s = interval_to_gaussian(ratings["low rating"], ratings["high rating"])
    ratings["mean"], ratings["sigma"] = m, s
    variability = agg[[*_SHEET_KEYS, "n_runs", "low_min", "low_max", "high_min", "high_max"]]
    return ratings[STUDY_COLUMNS], variability


def merge_ratings(
    human: str | os.PathLike[str] | pd.DataFrame, model: ModelRatings | pd.DataFrame
) -> pd.DataFrame:
    """Stack human ratings (study schema) and a model's ratings into one table.

    The model's ``expert`` name must not be a human rater's name, and the
    model must have rated keys that exist among the human ratings (else the
    comparison would be empty); both are checked.

    Parameters
    ----------
    human : path or DataFrame
        Ratings in the study's schema (e.g. ``data/example_ratings.csv``).
    model : ModelRatings or DataFrame

    Returns
    -------
    DataFrame
        Study schema; load it with :func:`rrmap.load_ratings`.

    Examples
    --------
    >>> import rrmap
    >>> human = pd.read_csv(rrmap.datasets.example_ratings_path())
    >>> model = human[human.expert == "E1"].assign(expert="m")
    >>> merge_ratings(human, model).expert.value_counts().to_dict()
    {'E1': 270, 'E2': 270, 'E3': 270, 'm': 270}
    """
    h = pd.read_csv(human) if not isinstance(human, pd.DataFrame) else human.copy()
    m = model.ratings if isinstance(model, ModelRatings) else model.copy()
    missing = [c for c in STUDY_COLUMNS[:9] if c not in h.columns]
    if missing:
        raise InputError(f"human ratings lack the study's column(s) {missing}")
    clash = sorted(set(h["expert"].astype(str)) & set(m["expert"].astype(str)))
    if clash:
        raise InputError(f"the model's rater name(s) {clash} are already human raters' names")
    key = ["movement", "criterion", "modality", "modality name"]
    shared = h[key].astype(str).drop_duplicates().merge(m[key].astype(str).drop_duplicates())
    if shared.empty:
        raise InputError(
            "the model rated no (movement, criterion, modality) the humans rated; "
            "check the movement, modality and criterion names"
        )
    cols = [c for c in STUDY_COLUMNS if c in h.columns]
    return pd.concat([h[cols], m[cols]], ignore_index=True)
