"""Names of :mod:`rrmap.stats`, each imported from its module on first use
(see ``rrmap._util.lazy``)."""

from . import adjust, chi2, designs, energy, matched, settings
from .adjust import P_ADJUST_METHODS, adjust_pvalues
from .chi2 import Chi2TestResult, chi2_test, contingency_table, cramers_v, fails_cochran
from .designs import (
    DESIGNS,
    EXTRA_COLUMNS,
    TESTS_COLUMNS,
    category_effect_per_expert,
    compare_groups,
    default_categories,
    expert_effect,
    expert_effect_per_option,
    generator_effect,
    run_designs,
    split_within,
    within_label,
)
from .energy import (
    EnergyDispersion,
    EnergyTestResult,
    energy_dispersion,
    energy_statistic,
    energy_test,
    energy_tests,
    pairwise_distances,
)
from .matched import MatchedTestResult, marginal_homogeneity_test, stuart_maxwell_test
from .settings import Settings
