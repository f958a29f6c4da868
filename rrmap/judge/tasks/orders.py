"""Both orders of a pair into one verdict, and how much a judge prefers a position."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from rrmap.judge.transport._provenance import (
    COMBINED_COLUMNS,
    PROVENANCE_COLUMNS,
    combined_provenance,
)

__all__ = ["combine_orders", "position_bias", "sign_test"]


def _verdict_name(row: Mapping[str, Any]) -> str | None:
    if not row["valid"]:
        return None
    if row["winner"] == "tie":
        return "tie"
    return row["left"] if row["winner"] == "left" else row["right"]


def combine_orders(per_order: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Merge the orders of each pair into one verdict.

    Both orders valid and naming the same candidate: that candidate wins
    (``agreement = "agree"``). Naming different candidates: ``"tie"``
    (``"disagree"``). One valid order: its verdict (``"single"``). No valid
    order: the pair goes to the excluded table. When *per_order* carries the
    provenance of its answers (:data:`~rrmap.judge.transport._provenance.PROVENANCE_COLUMNS`),
    each comparison carries that of both orders, combined
    (:data:`~rrmap.judge.transport._provenance.COMBINED_COLUMNS`).

    Parameters
    ----------
    per_order : DataFrame
        :attr:`PairwiseResult.per_order`.

    Returns
    -------
    comparisons, excluded : DataFrame

    Examples
    --------
    >>> po = pd.DataFrame({"pair": [0, 0], "instance": ["i", "i"], "order": ["ab", "ba"],
    ...     "candidate_a": ["m1", "m1"], "candidate_b": ["m2", "m2"],
    ...     "left": ["m1", "m2"], "right": ["m2", "m1"], "winner": ["left", "left"],
    ...     "valid": [True, True], "mode": ["base"] * 2, "model": ["x"] * 2,
    ...     "style": ["s"] * 2, "answers": ["[]"] * 2})
    >>> comp, excl = combine_orders(po)
    >>> comp.loc[0, ["left", "right", "winner", "agreement"]].tolist()
    ['m1', 'm2', 'tie', 'disagree']
    """
    rows, excluded = [], []
    traced = set(PROVENANCE_COLUMNS) <= set(per_order.columns)
    # the rows read once as records, grouped by pair in their order: a groupby whose every
    # group is read row by row (iloc, iterrows, to_dict) took ~30 ms a pair
    groups: dict[Any, list[dict[str, Any]]] = {}
    for record in per_order.to_dict("records"):
        groups.setdefault(record["pair"], []).append(record)
    for pair in sorted(groups):
        grp = groups[pair]
        first = grp[0]
        verdicts = {r["order"]: _verdict_name(r) for r in grp}
        answers = {r["order"]: r["answers"] for r in grp}
        valid = [v for v in verdicts.values() if v is not None]
        a, b = first["candidate_a"], first["candidate_b"]
        if not valid:
            errors = "; ".join(sorted({str(r["error"]) for r in grp}))
            excluded.append(
                {
                    "instance": first["instance"],
                    "candidate_a": a,
                    "candidate_b": b,
                    "mode": first["mode"],
                    "model": first["model"],
                    "reason": errors,
                }
            )
            continue
        if len(valid) == 1:
            verdict, agreement = valid[0], "single"
        elif len(set(valid)) == 1:
            verdict, agreement = valid[0], "agree"
        else:
            verdict, agreement = "tie", "disagree"
        winner = "tie" if verdict == "tie" else ("left" if verdict == a else "right")
        rows.append(
            {
                "instance": first["instance"],
                "left": a,
                "right": b,
                "winner": winner,
                "mode": first["mode"],
                "model": first["model"],
                "style": first["style"],
                "n_valid_orders": len(valid),
                "agreement": agreement,
                "verdict_ab": verdicts.get("ab") or "",
                "verdict_ba": verdicts.get("ba") or "",
                "answers_ab": answers.get("ab", ""),
                "answers_ba": answers.get("ba", ""),
                **(combined_provenance(grp) if traced else {}),
            }
        )
    comp_cols = [
        "instance",
        "left",
        "right",
        "winner",
        "mode",
        "model",
        "style",
        "n_valid_orders",
        "agreement",
        "verdict_ab",
        "verdict_ba",
        "answers_ab",
        "answers_ba",
        *(COMBINED_COLUMNS if traced else ()),
    ]
    excl_cols = ["instance", "candidate_a", "candidate_b", "mode", "model", "reason"]
    return pd.DataFrame(rows, columns=comp_cols), pd.DataFrame(excluded, columns=excl_cols)


def sign_test(k: int, n: int) -> float:
    """Exact two-sided binomial test of *k* successes in *n* trials against p = 1/2.

    ``min(1, 2 · P(X ≤ min(k, n − k)))`` with X ~ Binomial(n, 1/2), in exact
    integer arithmetic: the p-value of ``scipy.stats.binomtest(k, n, 0.5)``
    (tested), without importing scipy.stats (a second of start-up for one test).

    Examples
    --------
    >>> sign_test(9, 10), sign_test(5, 10)
    (0.021484375, 1.0)
    """
    tail = sum(math.comb(n, i) for i in range(min(k, n - k) + 1))
    return min(1.0, 2 * tail / 2**n)


def position_bias(per_order: pd.DataFrame) -> pd.DataFrame:
    """Left-preference rate and consistency across orders, per model and mode.

    ``left_rate`` is the share of valid left/right verdicts that chose the left
    position, with a two-sided exact binomial test against 1/2
    (``left_rate_p``). ``consistency`` is the share of pairs with both orders
    valid whose two verdicts name the same candidate; a judge that always
    picks one position has consistency 0, a judge that only looks at the
    images has 1.

    Parameters
    ----------
    per_order : DataFrame
        :attr:`PairwiseResult.per_order`.

    Returns
    -------
    DataFrame
        ``model``, ``mode``, ``n_answers``, ``n_valid``, ``left_rate``,
        ``left_rate_p``, ``n_pairs_both_valid``, ``consistency``.

    Examples
    --------
    >>> po = pd.DataFrame({"pair": [0, 0, 1, 1], "order": ["ab", "ba"] * 2,
    ...     "left": ["a", "b", "c", "d"], "right": ["b", "a", "d", "c"],
    ...     "winner": ["left", "right", "left", "left"], "valid": [True] * 4,
    ...     "mode": ["base"] * 4, "model": ["x"] * 4})
    >>> position_bias(po)[["left_rate", "consistency"]].iloc[0].tolist()
    [0.75, 0.5]
    """
    out = []
    for (model, mode), grp in per_order.groupby(["model", "mode"], sort=True):
        valid = grp[grp["valid"].astype(bool)]
        lr = valid[valid["winner"].isin(["left", "right"])]
        n_left = int((lr["winner"] == "left").sum())
        n_lr = len(lr)
        names = valid.assign(
            name=[_verdict_name(r) for _, r in valid.iterrows()] if len(valid) else []
        )
        both = names.groupby("pair")["name"].agg(list)
        both = both[both.map(len) == 2]
        same = sum(1 for v in both if v[0] == v[1])
        out.append(
            {
                "model": model,
                "mode": mode,
                "n_answers": len(grp),
                "n_valid": len(valid),
                "left_rate": n_left / n_lr if n_lr else float("nan"),
                "left_rate_p": sign_test(n_left, n_lr) if n_lr else float("nan"),
                "n_pairs_both_valid": len(both),
                "consistency": same / len(both) if len(both) else float("nan"),
            }
        )
    cols = [
        "model",
        "mode",
        "n_answers",
        "n_valid",
        "left_rate",
        "left_rate_p",
        "n_pairs_both_valid",
        "consistency",
    ]
    return pd.DataFrame(out, columns=cols)
