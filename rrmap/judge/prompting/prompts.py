"""Every prompt :mod:`rrmap.judge` sends, in one place, and how to replace them.

Prompts are :class:`string.Template` texts: ``${style}``, ``${layout}``,
``${question}``... are filled in when a request is built. The 2AFC prompts
follow the structure and answer keys of ArtCoT (Jiang et al.): the answer is
a small JSON object whose ``winner`` is ``0`` for the left candidate and
``1`` for the right one; ArtCoT's three stages answer with
``style_reason``/``content_reason``/``style_winner``/``content_winner``, then
``reflection``, then ``winner``. The wording is this project's own.

A user can replace any prompt with a YAML or JSON file mapping prompt names
(the fields of :class:`Prompts`) to texts; names left out keep the default.
"""

from __future__ import annotations

import dataclasses
import json
import os
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rrmap.errors import InputError

__all__ = ["DEFAULT_PROMPTS", "Prompts", "load_prompts", "render"]

_LAYOUT_COMPOSITE = (
    "The picture shows a source image at the top and, below it, two stylised versions "
    "of that image: one on the left and one on the right"
)
_LAYOUT_SEPARATE = (
    "You are given three images in this order: the source image, then the left stylised "
    "version, then the right stylised version"
)
_WINNER_KEY = "0 means the left image, 1 means the right image"


@dataclass(frozen=True)
class Prompts:
    """The prompt texts, one field per prompt.

    Placeholders: ``${layout}`` (how the images are shown) and ``${style}``
    (the requested style) in the 2AFC prompts; ``${problem}`` and
    ``${example}`` in the format reminder; ``${question}``, ``${options}`` and
    ``${response}`` in the multiple-choice prompts; ``${question}``,
    ``${reference}`` and ``${response}`` in the interpretation prompt.

    Examples
    --------
    >>> "${style}" in DEFAULT_PROMPTS.base
    True
    >>> sorted(f.name for f in dataclasses.fields(Prompts))[:3]
    ['artcot_analyser', 'artcot_critic', 'artcot_summary']
    """

    layout_composite: str = _LAYOUT_COMPOSITE
    layout_separate: str = _LAYOUT_SEPARATE
    base: str = (
        "You are an expert in fine art judging artistic stylisation. ${layout}, both meant "
        'to be in the style "${style}". Taking into account both how well each keeps the '
        "content of the source and how well it renders the style, which stylised image is "
        "the better artwork overall? Reply with a JSON object and nothing else: "
        '{"winner": 0} if the left image is better, {"winner": 1} if the right image is better.'
    )
    cot: str = (
        "You are an expert in fine art judging artistic stylisation. ${layout}, both meant "
        'to be in the style "${style}". Taking into account both how well each keeps the '
        "content of the source and how well it renders the style, which stylised image is "
        "the better artwork overall? Think it through step by step, briefly, then decide. "
        'Reply with a JSON object and nothing else: {"thinking": "<your reasoning>", '
        f'"winner": <0 or 1>}}, where {_WINNER_KEY}.'
    )
    artcot_analyser: str = (
        "Step 1 of 3: content and style analysis. You are an expert in fine art. ${layout}, "
        'both meant to be in the style "${style}". Compare the two stylised images on two '
        "separate questions: which one better preserves the content of the source, and "
        "which one renders the requested style more faithfully? Describe what you see in "
        'concrete visual terms. Reply with a JSON object and nothing else: {"style_reason": '
        '"...", "content_reason": "...", "style_winner": <0 or 1>, "content_winner": <0 or 1>}, '
        f"where {_WINNER_KEY}."
    )
    artcot_critic: str = (
        "Step 2 of 3: art critic. Look again, closely, at the two stylised images meant to "
        'be in the style "${style}". Do you agree with the analysis above? Work through '
        "these questions: which visual features are essential to this style; is the content "
        "of the source well preserved in that style; does either image show artefacts, "
        "distortions or clashing colours? Use concrete, visual language and correct any "
        "factual error in the analysis. Do not choose a winner yet. Reply with a JSON object "
        'and nothing else: {"reflection": "..."}.'
    )
    artcot_summary: str = (
        "Step 3 of 3: summary. Based on the analysis and the reflection above, which "
        "stylised image is the better painting of the source content in the requested "
        'style, overall? Reply with a JSON object and nothing else: {"winner": 0} for the '
        'left image or {"winner": 1} for the right image.'
    )
    format_reminder: str = (
        "Your previous reply could not be read: ${problem}. Reply again with only the JSON "
        "object that was asked for, for example ${example}, with no other text."
    )
    mcq: str = (
        "${question}\nOptions:\n${options}\nAnswer with the letter of the correct option "
        "only, without explanation."
    )
    mcq_match: str = (
        "A model answered the multiple-choice question below. Decide which single option "
        "its reply chooses. If the reply chooses no option, or more than one, the answer "
        "is null. Do not judge whether the reply is right.\nQuestion: ${question}\n"
        'Options:\n${options}\nReply: """${response}"""\nAnswer with a JSON object and '
        'nothing else: {"option": "<letter>"} or {"option": null}.'
    )
    interpret: str = (
        "You grade an explanation of an image's aesthetic quality against an expert's "
        "reference explanation. Score three dimensions from 0 to 2.\n"
        "relevance: 2 = addresses the aesthetic reasons the question asks for; 1 = partly; "
        "0 = off the topic.\n"
        "precision: 2 = nothing contradicts the reference; 1 = minor contradictions or "
        "unsupported claims; 0 = major contradictions.\n"
        "completeness: 2 = covers every point of the reference; 1 = covers some; 0 = covers "
        'none.\nQuestion: ${question}\nReference: """${reference}"""\n'
        'Explanation to grade: """${response}"""\nReply with a JSON object and nothing else: '
        '{"relevance": <0-2>, "relevance_reason": "...", "precision": <0-2>, '
        '"precision_reason": "...", "completeness": <0-2>, "completeness_reason": "..."}.'
    )


DEFAULT_PROMPTS = Prompts()


def render(template: str, **values: Any) -> str:
    """Fill the ``${name}`` placeholders of *template*.

    Raises
    ------
    InputError
        If the template names a placeholder that is not given, or is malformed.

    Examples
    --------
    >>> render('in the style "${style}"', style="ukiyo-e")
    'in the style "ukiyo-e"'
    """
    try:
        return string.Template(template).substitute(**values)
    except KeyError as exc:
        raise InputError(
            f"prompt placeholder ${{{exc.args[0]}}} is unknown here; "
            f"available: {', '.join(sorted(values))}"
        ) from None
    except ValueError as exc:
        raise InputError(f"malformed prompt template: {exc}") from None


def load_prompts(path: str | os.PathLike[str] | None) -> Prompts:
    """Read prompt overrides from a YAML or JSON file; ``None`` gives the defaults.

    Parameters
    ----------
    path : path or None
        A mapping of prompt names (fields of :class:`Prompts`) to texts.

    Raises
    ------
    InputError
        Listing every unknown name and every value that is not a string.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "prompts.yaml"
    >>> _ = p.write_text('base: "Pick one: ${style}. ${layout}"\\n')
    >>> load_prompts(p).base
    'Pick one: ${style}. ${layout}'
    >>> load_prompts(p).cot == DEFAULT_PROMPTS.cot
    True
    """
    if path is None:
        return DEFAULT_PROMPTS
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            import yaml

            data = yaml.safe_load(text)
    except Exception as exc:
        raise InputError(f"{path}: cannot parse prompts file ({exc})") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a mapping of prompt names to texts")
    names = {f.name for f in dataclasses.fields(Prompts)}
    problems = [f"unknown prompt name {k!r}" for k in data if k not in names]
    problems += [
        f"prompt {k!r} is not a string"
        for k, v in data.items()
        if k in names and not isinstance(v, str)
    ]
    if problems:
        raise InputError(
            f"{path}: " + "; ".join(problems) + f" (known names: {', '.join(sorted(names))})"
        )
    return dataclasses.replace(DEFAULT_PROMPTS, **data)
