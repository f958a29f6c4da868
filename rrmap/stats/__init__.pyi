"""Names of :mod:`rrmap.stats`, each imported from its module on first use (see ``rrmap._lazy``)."""

from . import adjust, chi2, designs, energy
from .adjust import P_ADJUST_METHODS, adjust_pvalues
from .chi2 import Chi2TestResult, chi2_test, contingency_table
from .designs import (
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
from .energy import (
    EnergyTestResult,
    energy_statistic,
    energy_test,
    energy_tests,
    pairwise_distances,
)
