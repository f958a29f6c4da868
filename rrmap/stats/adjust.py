"""Adjusted p-values within each family of tests (docs/tests.md).

A family is one k-sample test and its pairwise follow-ups: the rows of a
tests table sharing ``test``, ``by`` and ``within``. Holm's step-down and
Benjamini–Hochberg's FDR adjustment come from statsmodels.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rrmap.errors import InputError

__all__ = ["P_ADJUST_METHODS", "adjust_pvalues"]

#: Accepted values of ``p_adjust``.
P_ADJUST_METHODS: tuple[str, ...] = ("none", "holm", "fdr_bh")


def adjust_pvalues(tests: pd.DataFrame, method: str = "holm") -> pd.DataFrame:
    """Add ``pvalue_<method>``: p-values adjusted within each family of tests.

    A family is one k-sample test and its pairwise follow-ups: the rows
    sharing ``test``, ``by`` and ``within``. Skipped tests (empty p) are
    left out. Raw p-values are kept.

    Parameters
    ----------
    tests : DataFrame
        A tests table.
    method : {"holm", "fdr_bh", "none"}
        Passed to :func:`statsmodels.stats.multitest.multipletests`;
        ``"none"`` returns *tests* unchanged.

    Returns
    -------
    DataFrame

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"test": ["chi2"] * 3, "by": ["expert"] * 3,
    ...                   "within": ["all"] * 3, "pvalue": [0.01, 0.04, 0.03]})
    >>> adjust_pvalues(t, "holm")["pvalue_holm"].round(3).tolist()
    [0.03, 0.06, 0.06]
    """
    if method not in P_ADJUST_METHODS:
        raise InputError(f"p_adjust must be one of {list(P_ADJUST_METHODS)}, got {method!r}")
    if method == "none":
        return tests
    from statsmodels.stats.multitest import multipletests

    out = tests.copy()
    col = f"pvalue_{method}"
    adj = pd.Series(np.nan, index=out.index)
    for _, fam in out.groupby(["test", "by", "within"], sort=False):
        ok = fam["pvalue"].notna()
        if ok.any():
            adj.loc[fam.index[ok]] = multipletests(fam.loc[ok, "pvalue"], method=method)[1]
    pos = list(out.columns).index("pvalue") + 1
    if "n_perm" in out.columns:
        pos = list(out.columns).index("n_perm") + 1
    out.insert(pos, col, adj.to_numpy())
    return out
