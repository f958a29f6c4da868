"""Which families of tests a run of the designs plans, and the points of each
(docs/tests.md, "The designs"): the paper's three designs, per query corpus in a study of
several, and the generator effect first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rrmap._util.labels import within_label

__all__ = ["Family", "plan"]


@dataclass(frozen=True)
class Family:
    """One family of tests: the groups of *group* compared within one subset of the points.

    *index* holds the positions of the subset's points (None: all points); *query* is
    the query corpus whose points they are, in a study of several (None: all corpora,
    or a study of one).
    """

    group: str
    within: str
    index: np.ndarray | None
    query: str | None = None


def plan(points: pd.DataFrame, by: Sequence[str]) -> list[Family]:
    """Every family of tests, in table order: with several query corpora, the generator
    effect first, then the designs of each corpus."""
    if "query" not in points.columns:
        return _corpus_plan(points, by, None, None)
    from rrmap.points import query_corpora

    families = _generator_plan(points, by)
    corpus = points["query"].astype(str).to_numpy(dtype=object)
    for q in query_corpora(points):
        families += _corpus_plan(points, by, np.flatnonzero(corpus == q), q)
    return families


def _corpus_plan(
    points: pd.DataFrame, by: Sequence[str], sub: np.ndarray | None, query: str | None
) -> list[Family]:
    """The paper's three designs on the points *sub* (None: all)."""
    part = points if sub is None else points.iloc[sub]
    at = np.arange(len(points)) if sub is None else sub
    plan = [Family("expert", "all", sub, query)]
    for cat in by:
        codes, options = pd.factorize(part[cat], sort=True)
        for j, opt in enumerate(options):
            index = at[codes == j]
            plan.append(Family("expert", within_label(cat, opt), index, query))
    experts = part["expert"].astype(str).to_numpy(dtype=object)
    for e in sorted(set(experts)):
        index = at[experts == e]
        plan += [Family(cat, within_label("expert", e), index, query) for cat in by]
    return plan


def _generator_plan(points: pd.DataFrame, by: Sequence[str]) -> list[Family]:
    """The generator effect: all points, each rater's, each option's of each category."""
    plan = [Family("query", "all", None)]
    experts = points["expert"].astype(str).to_numpy(dtype=object)
    for e in sorted(set(experts)):
        plan.append(Family("query", within_label("expert", e), np.flatnonzero(experts == e)))
    for cat in by:
        codes, options = pd.factorize(points[cat], sort=True)
        for j, opt in enumerate(options):
            plan.append(Family("query", within_label(cat, opt), np.flatnonzero(codes == j)))
    return plan
