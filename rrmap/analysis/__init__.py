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

from rrmap._util.lazy import attach_stub

# every name is imported from its module on first use (the command line asks for the
# output folder's file list before pandas is imported); the names are listed once, in
# __init__.pyi
__getattr__, _, __all__ = attach_stub(__name__, __file__)


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the modules."""
    return sorted(__all__)
