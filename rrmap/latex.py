"""Former home of :mod:`rrmap.report.latex` (the booktabs tables); its names are importable
from here as before."""

from rrmap.report.latex import (
    agreement_latex,
    latex_pvalue,
    proportions_latex,
    result_latex,
    tests_latex,
)

__all__ = ["agreement_latex", "latex_pvalue", "proportions_latex", "result_latex", "tests_latex"]


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
