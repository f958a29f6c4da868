"""rrmap: Relative Ratings Maps of expert interval ratings.

Compare interval ratings of a reference corpus (e.g. historical paintings)
and a query corpus (e.g. generated images): each pair becomes a point
(Δ, R) of the Relative Ratings Map with its Bhattacharyya overlap BC and a
quality zone (excellent / fair / stereotype / bad).

The package reads in the order of the method: ``ratings`` → ``gaussian`` →
``comparison`` → ``zones`` → ``points`` → ``tables`` → ``interrater``, then ``analysis`` and
its ``report``; the tests are in :mod:`rrmap.stats`, the figures in
:mod:`rrmap.plot`, the command line in :mod:`rrmap.cli`, and the two
companions in :mod:`rrmap.rank` and :mod:`rrmap.judge` (each imported on
first use: ``rrmap.plot.plot_rrmap(...)`` works after ``import rrmap``).
See docs/architecture.md.

Examples
--------
>>> import rrmap
>>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
>>> len(pts)
405
"""

from typing import TYPE_CHECKING

import lazy_loader as _lazy

from rrmap._version import __version__
from rrmap.errors import InputError, PermutationWarning, RatingsError

if TYPE_CHECKING:  # pragma: no cover
    from rrmap import datasets
    from rrmap.analysis import AnalysisResult, analyze
    from rrmap.comparison import bhattacharyya, compare, compare_bounds, compare_intervals
    from rrmap.gaussian import Z_95, interval_to_gaussian, z_value
    from rrmap.interrater import reliability
    from rrmap.points import points
    from rrmap.ratings import RatingsSchema, RatingsWarning, load_ratings
    from rrmap.tables import agreement, agreement_summary, match_shares, proportions
    from rrmap.zones import QUALITY_LEVELS, Thresholds, classify

__all__ = [
    "QUALITY_LEVELS",
    "Z_95",
    "AnalysisResult",
    "InputError",
    "PermutationWarning",
    "RatingsError",
    "RatingsSchema",
    "RatingsWarning",
    "Thresholds",
    "__version__",
    "agreement",
    "agreement_summary",
    "analyze",
    "bhattacharyya",
    "classify",
    "compare",
    "compare_bounds",
    "compare_intervals",
    "datasets",
    "interval_to_gaussian",
    "load_ratings",
    "match_shares",
    "points",
    "proportions",
    "reliability",
    "z_value",
]

# every name loads on first use, and so do the subpackages: importing rrmap imports
# neither numpy nor pandas, so that a command starts its work (analyze: its figure
# workers) before its own imports
__getattr__, _lazy_dir, _ = _lazy.attach(
    __name__,
    submodules=["cli", "datasets", "judge", "plot", "rank", "stats", "tables"],
    submod_attrs={
        "analysis": ["AnalysisResult", "analyze"],
        "comparison": ["bhattacharyya", "compare", "compare_bounds", "compare_intervals"],
        "gaussian": ["Z_95", "interval_to_gaussian", "z_value"],
        "points": ["points"],
        "interrater": ["reliability"],
        "ratings": ["RatingsSchema", "RatingsWarning", "load_ratings"],
        "tables": ["agreement", "agreement_summary", "match_shares", "proportions"],
        "zones": ["QUALITY_LEVELS", "Thresholds", "classify"],
    },
)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_lazy_dir()})
