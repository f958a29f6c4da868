"""What a model rater produced: its ratings, every run, their spread and its failures."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from rrmap.errors import InputError
from rrmap.study import HEADERS

__all__ = ["STUDY_COLUMNS", "ModelRatings"]

#: The study's ratings columns, in its order (the schema of ``ModelRatings.ratings``).
STUDY_COLUMNS = list(HEADERS)


@dataclass
class ModelRatings:
    """What a model rater produced.

    Attributes
    ----------
    ratings : DataFrame
        The study's schema (``movement, expert, criterion, criterion group,
        origin, modality, modality name, low rating, high rating, mean,
        sigma``), one interval per corpus × criterion × origin. With several
        runs, each bound is the median over the runs that answered validly.
    runs : DataFrame
        Every valid interval of every run (columns of ``ratings`` plus
        ``run`` and ``seed``).
    variability : DataFrame
        Per corpus × criterion × origin: ``n_runs`` and the range of each
        bound over runs (``low_min``, ``low_max``, ``high_min``,
        ``high_max``) — the model's own variability around its interval.
    failures : DataFrame
        Sheets that stayed invalid after the re-asks: run, movement,
        criterion, corpora, attempts, problems and the raw last answer.
    settings : dict
        Model, setup, runs, seeds, temperature, prompts hash, rrmap version.

    Examples
    --------
    >>> mr = ModelRatings(pd.DataFrame(columns=STUDY_COLUMNS), pd.DataFrame(),
    ...                   pd.DataFrame(), pd.DataFrame(), {"model": "m"})
    >>> mr.settings["model"]
    'm'
    """

    ratings: pd.DataFrame
    runs: pd.DataFrame
    variability: pd.DataFrame
    failures: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        s = self.settings
        return (
            f"ModelRatings(model={s.get('model')!r}, setup={s.get('setup')!r}, "
            f"runs={s.get('repeats')}, intervals={len(self.ratings)}, "
            f"failed sheets={len(self.failures)})"
        )

    def run_points(self, **kwargs: Any) -> pd.DataFrame:
        """RRMap points of every run: where each run alone puts each comparison.

        Parameters
        ----------
        **kwargs
            Passed to :func:`rrmap.points` (``z``, ``thresholds``, ...).

        Returns
        -------
        DataFrame
            :func:`rrmap.points` output with a ``run`` column; plot it with
            ``rrmap.plot.plot_rrmap(pts, color="run")``.

        Examples
        --------
        >>> runs = pd.DataFrame({
        ...     "movement": "cubism", "expert": "m", "criterion": "left-right",
        ...     "criterion group": "topological", "origin": ["real", "generated"] * 2,
        ...     "modality": "movement", "modality name": "Cubism",
        ...     "low rating": [20, 30, 20, 35], "high rating": [60, 50, 60, 45],
        ...     "run": [1, 1, 2, 2], "seed": [5, 5, 9, 9]})
        >>> mr = ModelRatings(pd.DataFrame(), runs, pd.DataFrame(), pd.DataFrame(), {})
        >>> mr.run_points().set_index("run")["r"].to_dict()
        {1: 0.5, 2: 0.25}
        """
        from rrmap.points import points
        from rrmap.ratings import load_ratings

        cats = ["movement", "criterion", "criterion group", "modality", "modality name", "run"]
        scale = self.settings.get("scale")
        ratings = load_ratings(
            self.runs.drop(columns=["seed"]),
            categories=cats,
            reference=self.settings.get("origins", ["real", "generated"])[0],
            query=self.settings.get("origins", ["real", "generated"])[1],
            scale=tuple(scale) if scale else None,
        )
        pts = points(ratings, **kwargs)
        pts["run"] = pts["run"].astype(int)
        return pts

    def point_spread(self, **kwargs: Any) -> pd.DataFrame:
        """The model's own variability on the map: per comparison, the spread over runs.

        Parameters
        ----------
        **kwargs
            Passed to :func:`rrmap.points`.

        Returns
        -------
        DataFrame
            Per comparison key: ``n_runs``, ``delta_min``, ``delta_max``,
            ``r_min``, ``r_max``, ``zones`` (the zones the runs put it in,
            joined with ``|``) and ``modal_share`` (the share of runs in the
            most frequent zone: 1 when every run agrees).

        Examples
        --------
        >>> runs = pd.DataFrame({
        ...     "movement": "cubism", "expert": "m", "criterion": "left-right",
        ...     "criterion group": "topological", "origin": ["real", "generated"] * 2,
        ...     "modality": "movement", "modality name": "Cubism",
        ...     "low rating": [20, 30, 20, 35], "high rating": [60, 50, 60, 45],
        ...     "run": [1, 1, 2, 2], "seed": [5, 5, 9, 9]})
        >>> mr = ModelRatings(pd.DataFrame(), runs, pd.DataFrame(), pd.DataFrame(), {})
        >>> mr.point_spread()[["n_runs", "r_min", "r_max", "zones", "modal_share"]].values.tolist()
        [[2, 0.25, 0.5, 'stereotype', 1.0]]
        """
        pts = self.run_points(**kwargs)
        keys = ["expert", "movement", "criterion", "criterion_group", "modality", "modality_name"]
        grouped = pts.groupby(keys, sort=False)
        out = grouped.agg(
            n_runs=("run", "nunique"),
            delta_min=("delta", "min"),
            delta_max=("delta", "max"),
            r_min=("r", "min"),
            r_max=("r", "max"),
        )
        zones = grouped["quality"].agg(
            lambda q: "|".join(z for z in q.cat.categories if z in set(q.astype(str)))
        )
        modal = grouped["quality"].agg(lambda q: q.value_counts().max() / len(q))
        out["zones"] = zones
        out["modal_share"] = modal.astype(float)
        return out.reset_index()

    def write(
        self, path: str | os.PathLike[str], force: bool = False, *, raw_csv: bool = False
    ) -> list[Path]:
        """Write the ratings CSV and its sidecars (``.runs.csv``, ``.variability.csv``,
        ``.failures.csv``, ``.json`` settings) next to it.

        The five files are written in full before any of them replaces an
        existing file, so a full disk or a crash leaves the previous ones.
        Text cells a spreadsheet would run as formulas (a criterion, a
        corpus name or a model's answer starting with ``=``, ``+``, ``-``,
        ``@``) get a leading ``'`` unless *raw_csv*.

        Parameters
        ----------
        path : path
            The ratings CSV.
        force : bool, default False
            Replace existing files.
        raw_csv : bool, default False
            Write text cells as they are (for programs, not spreadsheets).

        Returns
        -------
        list of Path

        Examples
        --------
        >>> import tempfile
        >>> mr = ModelRatings(pd.DataFrame(columns=STUDY_COLUMNS), pd.DataFrame(),
        ...                   pd.DataFrame(), pd.DataFrame(), {"model": "m"})
        >>> [p.name for p in mr.write(Path(tempfile.mkdtemp()) / "m.csv")]
        ['m.csv', 'm.runs.csv', 'm.variability.csv', 'm.failures.csv', 'm.json']
        """
        from rrmap.judge.tasks._outputs import csv_cells, csv_text, json_text, write_files

        out = Path(path)
        stem = out.with_suffix("")
        paths = [
            out,
            Path(f"{stem}.runs.csv"),
            Path(f"{stem}.variability.csv"),
            Path(f"{stem}.failures.csv"),
            Path(f"{stem}.json"),
        ]
        if not force:
            existing = [str(p) for p in paths if p.exists()]
            if existing:
                raise InputError(f"{', '.join(existing)} exist(s); use --force to overwrite")
        out.parent.mkdir(parents=True, exist_ok=True)
        tables = [self.ratings, self.runs, self.variability, self.failures]
        texts = [csv_text(t, raw_csv) for t in tables]
        texts.append(json_text({**self.settings, "csv_cells": csv_cells(raw_csv)}))
        return write_files(dict(zip(paths, texts, strict=True)))
