"""What the reports read of an analysis: its tables and settings (the fields of
:class:`rrmap.analysis.AnalysisResult`), as a protocol, so that the report layer renders any
object that has them and never imports the analysis that makes them."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import pandas as pd

__all__ = ["Result"]


@runtime_checkable
class Result(Protocol):
    """The tables and settings of an analysis, as the reports read them.

    Examples
    --------
    >>> import rrmap
    >>> res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=9, rng=0)
    >>> isinstance(res, Result)
    True
    """

    tests: pd.DataFrame
    points: pd.DataFrame
    proportions: pd.DataFrame
    agreement: pd.DataFrame
    agreement_summary: pd.DataFrame
    reliability: pd.DataFrame
    settings: dict[str, Any]

    def significance(self) -> dict[str, Any]:
        """How many tests ran and how many pass 0.05 (see ``AnalysisResult.significance``)."""
        ...
