"""The statistical tests of the RRMap and their designs (docs/tests.md).

- :mod:`rrmap.stats.energy`: the k-sample energy distance permutation test on
  (Δ, R) points (:func:`energy_test`, :func:`energy_tests`, :func:`energy_statistic`);
- :mod:`rrmap.stats.chi2`: the χ² test of a groups × quality-levels table (:func:`chi2_test`);
- :mod:`rrmap.stats.designs`: the paper's three designs, run for both tests into one tidy
  table (:func:`run_designs` and its parts);
- :mod:`rrmap.stats.adjust`: p-values adjusted within each family (:func:`adjust_pvalues`).

Examples
--------
>>> import rrmap, rrmap.stats
>>> pts = rrmap.points(rrmap.datasets.load_example_ratings())
>>> res = rrmap.stats.expert_effect(pts, n_perm=199, rng=0)
>>> res.groupby("test").size().to_dict()
{'chi2': 4, 'energy': 4}
"""

from typing import TYPE_CHECKING

import lazy_loader as _lazy

if TYPE_CHECKING:  # pragma: no cover - the names load on first use (below)
    from rrmap.stats.adjust import P_ADJUST_METHODS, adjust_pvalues
    from rrmap.stats.chi2 import Chi2TestResult, chi2_test, contingency_table
    from rrmap.stats.designs import (
        EXTRA_COLUMNS,
        TESTS_COLUMNS,
        category_effect_per_expert,
        compare_groups,
        default_categories,
        expert_effect,
        expert_effect_per_option,
        run_designs,
        split_within,
        within_label,
    )
    from rrmap.stats.energy import (
        EnergyTestResult,
        energy_statistic,
        energy_test,
        energy_tests,
        pairwise_distances,
    )

__all__ = [
    "EXTRA_COLUMNS",
    "P_ADJUST_METHODS",
    "TESTS_COLUMNS",
    "Chi2TestResult",
    "EnergyTestResult",
    "adjust_pvalues",
    "category_effect_per_expert",
    "chi2_test",
    "compare_groups",
    "contingency_table",
    "default_categories",
    "energy_statistic",
    "energy_test",
    "energy_tests",
    "expert_effect",
    "expert_effect_per_option",
    "pairwise_distances",
    "run_designs",
    "split_within",
    "within_label",
]

# every name is imported from its module on first use: importing the package is cheap
__getattr__, _lazy_dir, _ = _lazy.attach(
    __name__,
    submodules=["adjust", "chi2", "designs", "energy"],
    submod_attrs={
        "adjust": ["P_ADJUST_METHODS", "adjust_pvalues"],
        "chi2": ["Chi2TestResult", "chi2_test", "contingency_table"],
        "designs": [
            "EXTRA_COLUMNS",
            "TESTS_COLUMNS",
            "category_effect_per_expert",
            "compare_groups",
            "default_categories",
            "expert_effect",
            "expert_effect_per_option",
            "run_designs",
            "split_within",
            "within_label",
        ],
        "energy": [
            "EnergyTestResult",
            "energy_statistic",
            "energy_test",
            "energy_tests",
            "pairwise_distances",
        ],
    },
)


def __dir__() -> list[str]:
    return sorted({*__all__, *_lazy_dir()})
