"""Rating criteria: named continua between two defined poles (RRMap study §2.2.2).

A criteria file (YAML or JSON) holds a ``scale`` and a list of ``criteria``,
each with a ``name``, a ``group`` and two poles ``low`` and ``high``, each
with a ``label`` and a short ``definition``. The study's nine criteria ship
as the default (:func:`study_criteria`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from rrmap.errors import InputError

__all__ = ["Criterion", "Pole", "load_criteria", "study_criteria"]


@dataclass(frozen=True)
class Pole:
    """One end of a criterion's scale.

    Examples
    --------
    >>> Pole("sharp image", "Contours are crisp.").label
    'sharp image'
    """

    label: str
    definition: str


@dataclass(frozen=True)
class Criterion:
    """A criterion rated as an interval on a scale between two poles.

    Parameters
    ----------
    name : str
        Identifier, used as the ``criterion`` value of ratings files.
    group : str
        Criterion group (study: topological, eidetic, chromatic).
    low, high : Pole
        The poles at the bottom and the top of the scale.
    scale : (float, float)
        Scale bounds (study: 0–100).

    Examples
    --------
    >>> c = study_criteria()[0]
    >>> c.name, c.group, c.low.label, c.scale
    ('centered-edges', 'topological', 'centred forms', (0.0, 100.0))
    """

    name: str
    group: str
    low: Pole
    high: Pole
    scale: tuple[float, float] = (0.0, 100.0)


def _parse(data: Any, source: str) -> list[Criterion]:
    problems: list[str] = []
    if not isinstance(data, dict) or "criteria" not in data:
        raise InputError(f"{source}: expected a mapping with a 'criteria' list")
    scale = data.get("scale", [0, 100])
    try:
        lo, hi = (float(scale[0]), float(scale[1]))
        if not lo < hi:
            raise ValueError
    except (TypeError, ValueError, IndexError):
        raise InputError(
            f"{source}: 'scale' must be two numbers low < high, got {scale!r}"
        ) from None
    items = data["criteria"]
    if not isinstance(items, list) or not items:
        raise InputError(f"{source}: 'criteria' must be a non-empty list")
    out: list[Criterion] = []
    seen: set[str] = set()
    for i, item in enumerate(items, start=1):
        where = f"criterion #{i}"
        if not isinstance(item, dict):
            problems.append(f"{where}: expected a mapping, got {item!r}")
            continue
        name = str(item.get("name", "")).strip()
        where = f"criterion #{i} ({name or 'no name'})"
        if not name:
            problems.append(f"{where}: missing 'name'")
        elif name in seen:
            problems.append(f"{where}: duplicated name {name!r}")
        seen.add(name)
        group = str(item.get("group", "")).strip()
        if not group:
            problems.append(f"{where}: missing 'group'")
        poles = []
        for end in ("low", "high"):
            pole = item.get(end)
            if not isinstance(pole, dict) or not str(pole.get("label", "")).strip():
                problems.append(f"{where}: pole '{end}' needs a 'label' (and a 'definition')")
                poles.append(Pole("", ""))
                continue
            definition = str(pole.get("definition", "")).strip()
            if not definition:
                problems.append(f"{where}: pole '{end}' has no 'definition'")
            poles.append(Pole(str(pole["label"]).strip(), " ".join(definition.split())))
        out.append(Criterion(name, group, poles[0], poles[1], (lo, hi)))
    if problems:
        raise InputError(f"{source}: {len(problems)} problem(s): " + "; ".join(problems))
    return out


def load_criteria(path: str | os.PathLike[str]) -> list[Criterion]:
    """Read a criteria file (YAML or JSON) and validate it, reporting all problems at once.

    Parameters
    ----------
    path : path
        The file. See ``rrmap/judge/prompting/_criteria/study.yaml`` for the format.

    Returns
    -------
    list of Criterion

    Examples
    --------
    >>> from rrmap.judge.prompting.criteria import _STUDY
    >>> [c.group for c in load_criteria(_STUDY)][:3]
    ['topological', 'topological', 'topological']
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(2, "no such criteria file", str(p))
    text = p.read_text(encoding="utf-8")
    try:
        data = json.loads(text) if p.suffix.lower() == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise InputError(
            f"{p}: not valid {p.suffix.lstrip('.') or 'YAML'}: " + " ".join(str(exc).split())
        ) from None
    return _parse(data, str(p))


_STUDY = Path(str(resources.files("rrmap.judge.prompting").joinpath("_criteria", "study.yaml")))


def study_criteria() -> list[Criterion]:
    """The RRMap study's nine criteria (three topological, three eidetic, three chromatic).

    Returns
    -------
    list of Criterion

    Examples
    --------
    >>> [c.name for c in study_criteria()][-1]
    'painterly-photographic'
    """
    return load_criteria(_STUDY)
