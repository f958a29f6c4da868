"""The whole analysis in one call (docs/analyze.md).

- :mod:`rrmap.analysis.run`: :func:`analyze` — ratings → points → every test design, the
  proportions, the agreement and the reliability;
- :mod:`rrmap.analysis.result`: :class:`AnalysisResult`, what a run computed, shown in
  Jupyter and written to a folder; :func:`load_result` reads it back;
- :mod:`rrmap.analysis.folder`: every file of a result, written into a staged folder;
- :mod:`rrmap.analysis.checks`: what a run checks before its tests.

The reports that render a result are :mod:`rrmap.report`.

Examples
--------
>>> import rrmap
>>> res = rrmap.analysis.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=9, rng=0)
>>> type(res).__name__
'AnalysisResult'
"""

from rrmap.analysis.folder import OUTPUT_FILES, existing_outputs
from rrmap.analysis.result import AnalysisResult, file_sha256, load_result
from rrmap.analysis.run import analyze

__all__ = [
    "OUTPUT_FILES",
    "AnalysisResult",
    "analyze",
    "existing_outputs",
    "file_sha256",
    "load_result",
]


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the modules."""
    return sorted(__all__)
