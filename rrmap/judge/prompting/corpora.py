"""Corpora for a model rater: what to rate, and the meta-images that show it.

A corpora file (CSV) has one row per query corpus, in the RRMap study's
terms:

==================  =========================================================
column              meaning
==================  =========================================================
``movement``        the rating sheet the corpus belongs to (study: movement)
``modality``        e.g. ``movement``, ``male painter``, ``female painter``
``modality name``   e.g. ``Cubism``, ``Pablo Picasso``
``query``           folder of the query images (e.g. generated), relative
                    to the corpora file
``reference``       how to name the reference corpus when the model rates it
                    from knowledge, e.g. ``the historical paintings of
                    Pablo Picasso``
``reference images``  optional folder of reference images; when given, the
                    model sees their meta-image instead of rating from
                    knowledge
==================  =========================================================

Headers match case-insensitively with spaces, underscores and hyphens alike.

The folders, and every image in them, must lie inside the folder of the
corpora file (for standard input, the current folder) unless
``allow_outside`` is given, as the images of a pairs or questions file
must: a row such as ``../../home/me`` or a link leading out would otherwise
upload files the table's author chose, not the user. Every image is checked
as theirs are (:func:`~rrmap.judge.prompting.images.image_problem`) before
anything is sent.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from rrmap._util.escape import message_text
from rrmap._util.headers import snake
from rrmap.errors import InputError
from rrmap.judge.prompting._sources import input_source
from rrmap.judge.prompting.images import grid_image, image_problem

__all__ = ["IMAGE_SUFFIXES", "Corpus", "image_files", "load_corpora", "meta_image"]

#: File suffixes read as images.
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".webp", ".bmp", ".tif", ".tiff"})


@dataclass(frozen=True)
class Corpus:
    """One query corpus and the reference it is compared with.

    Examples
    --------
    >>> c = Corpus("cubism", "male painter", "Pablo Picasso", Path("gen/picasso"),
    ...            "the historical paintings of Pablo Picasso")
    >>> c.key
    ('cubism', 'male painter', 'Pablo Picasso')
    """

    movement: str
    modality: str
    modality_name: str
    query: Path
    reference: str
    reference_images: Path | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        """(movement, modality, modality name)."""
        return (self.movement, self.modality, self.modality_name)


def image_files(folder: str | os.PathLike[str]) -> list[Path]:
    """The image files of *folder*, sorted by name (not recursive).

    Examples
    --------
    >>> image_files(".") == sorted(image_files("."))
    True
    """
    p = Path(folder)
    if not p.is_dir():
        raise InputError(f"image folder not found: {p}")
    return sorted(f for f in p.iterdir() if f.is_file() and f.suffix.lower() in IMAGE_SUFFIXES)


def meta_image(
    folder: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    limit: int | None = 20,
    columns: int = 5,
    cell: int = 256,
    rng: int | np.random.Generator | None = None,
) -> Any:
    """A meta-image: a grid of a corpus's images, as the study showed its raters.

    Parameters
    ----------
    folder : path or sequence of paths
        A folder of images, or the image files themselves.
    limit : int or None, default 20
        At most this many images (the study used 20 per prompt). With
        *rng*, a seeded random sample; without, the first ones by name.
    columns : int, default 5
    cell : int, default 256
        Side of each grid cell in pixels.
    rng : int or Generator, optional

    Returns
    -------
    PIL.Image.Image

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> d = Path(tempfile.mkdtemp())
    >>> for i in range(6):
    ...     Image.new("RGB", (8, 8), (40 * i, 0, 0)).save(d / f"{i}.png")
    >>> meta_image(d, columns=3, cell=10).size
    (38, 24)
    """
    if isinstance(folder, str | os.PathLike):
        files = image_files(folder)
        where = str(folder)
    else:
        files = [Path(f) for f in folder]
        where = "the given files"
    if not files:
        raise InputError(f"no images in {where} (looked for {', '.join(sorted(IMAGE_SUFFIXES))})")
    if limit is not None and len(files) > limit:
        if rng is not None:
            idx = np.sort(np.random.default_rng(rng).choice(len(files), limit, replace=False))
            files = [files[i] for i in idx]
        else:
            files = files[:limit]
    return grid_image(files, columns=min(columns, len(files)), cell=cell)


_REQUIRED = ("movement", "modality", "modality_name", "query", "reference")


def _folder_problems(what: str, folder: Path, base: Path, allow_outside: bool) -> list[str]:
    """What is wrong with an image folder of a corpora file whose own folder is *base*."""
    shown = message_text(folder)
    if "\0" in str(folder):
        return [f"{what} folder {shown} has a NUL character in its name"]
    if not folder.is_dir():
        return [f"{what} folder not found: {shown}"]
    outside = image_problem(folder, base, allow_outside=allow_outside, contents=False)
    if outside is not None:
        return [f"{what} folder {shown} {outside}"]
    files = image_files(folder)
    if not files:
        return [f"no images in {what} folder {shown}"]
    problems = []
    for file in files:
        why = image_problem(file, base, allow_outside=allow_outside)
        if why is not None:
            problems.append(f"image file {message_text(file)} {why}")
    return problems


def load_corpora(path: str | os.PathLike[str], *, allow_outside: bool = False) -> list[Corpus]:
    """Read and validate a corpora file, reporting every problem at once.

    Parameters
    ----------
    path : path
        CSV with the columns described in this module's documentation;
        folders are relative to the file (``"-"``: standard input, folders
        relative to the current folder).
    allow_outside : bool, default False
        Accept folders and images outside the file's folder (``../x``,
        absolute paths, links leading out).

    Returns
    -------
    list of Corpus

    Examples
    --------
    >>> import tempfile
    >>> from PIL import Image
    >>> d = Path(tempfile.mkdtemp()); (d / "gen").mkdir()
    >>> Image.new("RGB", (8, 8)).save(d / "gen" / "1.png")
    >>> _ = (d / "c.csv").write_text("movement,modality,modality name,query,reference\\n"
    ...                             "cubism,movement,Cubism,gen,the historical Cubist paintings\\n")
    >>> [c.modality_name for c in load_corpora(d / "c.csv")]
    ['Cubism']
    """
    src = input_source(path)
    p, folder = src.name, src.folder
    try:
        df = pd.read_csv(src.readable(), dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError:
        raise InputError(f"{p}: the file is empty") from None
    except pd.errors.ParserError as exc:
        raise InputError(f"{p}: not a readable CSV ({exc})") from None
    df.columns = [snake(c) for c in df.columns]
    missing = [c for c in _REQUIRED if c not in df.columns]
    if missing:
        raise InputError(
            f"{p}: missing column(s) {', '.join(repr(m.replace('_', ' ')) for m in missing)}; "
            f"headers found: {', '.join(repr(c) for c in df.columns)}"
        )
    if df.empty:
        raise InputError(f"{p}: no corpora to rate (the file has no rows)")
    problems: list[str] = []
    out: list[Corpus] = []
    seen: dict[tuple[str, str, str], int] = {}
    for i, rec in enumerate(df.to_dict("records")):
        line = i + 2
        vals = {k: str(rec.get(k, "")).strip() for k in [*_REQUIRED, "reference_images"]}
        for k in _REQUIRED:
            if not vals[k]:
                problems.append(f"line {line}: column {k.replace('_', ' ')!r} is empty")
        query = (folder / vals["query"]) if vals["query"] else None
        ref_dir = (folder / vals["reference_images"]) if vals["reference_images"] else None
        for what, where in (("query", query), ("reference images", ref_dir)):
            if where is not None:
                found = _folder_problems(what, where, folder, allow_outside)
                problems += [f"line {line}: {problem}" for problem in found]
        key = (vals["movement"], vals["modality"], vals["modality_name"])
        if key in seen:
            problems.append(f"line {line}: duplicates line {seen[key]} ({', '.join(key)})")
        seen[key] = line
        if query is not None:
            out.append(
                Corpus(*key, query=query, reference=vals["reference"], reference_images=ref_dir)
            )
    if problems:
        raise InputError(f"{p}: {len(problems)} problem(s): " + "; ".join(problems))
    return out
