"""Per-annotator reliability: agreement with the consensus ranking, weights, exclusion.

When comparisons carry an ``annotator`` column, each annotator's decisive
judgements (not ties) are checked against the consensus ranking — by
default the ranking fitted *without* that annotator, so nobody agrees with
themselves. The table reports the observed agreement, the agreement the
consensus model itself expects on the same pairs (a close pair is a coin
flip even for a careful annotator), and a z-score of the difference.

Two uses follow: drop annotators below an agreement threshold
(:func:`filter_annotators`, reported like the other filters) or weight each
comparison by its annotator's log-odds of agreeing
(:func:`annotator_weights`): an annotator at chance gets weight 0, one who
agrees three times in four gets ``log 3`` (before normalising) — the weights
of weighted majority voting under a symmetric-accuracy annotator model.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rrmap.errors import InputError
from rrmap.rank.agreement.filters import FilterResult
from rrmap.rank.data.comparisons import validate_comparisons
from rrmap.rank.models.bradley_terry import fit_bradley_terry

__all__ = ["annotator_agreement", "annotator_weights", "filter_annotators"]


def _prefer_probability(model: str, d: np.ndarray, tie: float) -> np.ndarray:
    """P(the higher-scored side wins | the judgement is decisive), ``d = |θ_a − θ_b|``."""
    if model != "rao-kupper" or not np.isfinite(tie) or tie <= 1:
        return 1 / (1 + np.exp(-d))  # Bradley–Terry and Davidson: the tie term cancels
    eta = np.log(tie)
    pa, pb = 1 / (1 + np.exp(-(d - eta))), 1 / (1 + np.exp(d + eta))
    return pa / (pa + pb)


def _score(rows: pd.DataFrame, consensus) -> pd.DataFrame:
    """Each decisive judgement of *rows*: did it agree, and how likely was agreement?"""
    scores = consensus.table.set_index("candidate")["score"]
    info = consensus.fits.iloc[0]
    decisive = rows[rows["winner"] != "tie"]
    sl = decisive["left"].map(scores).to_numpy(float)
    sr = decisive["right"].map(scores).to_numpy(float)
    d = sl - sr
    ok = np.isfinite(d) & (np.abs(d) > 1e-9)
    left_won = (decisive["winner"] == "left").to_numpy()
    agree = np.where(d > 0, left_won, ~left_won)[ok]
    p = _prefer_probability(info["model"], np.abs(d[ok]), info["tie_parameter"])
    return pd.DataFrame({"agree": agree, "p": p})


def annotator_agreement(
    comparisons: pd.DataFrame,
    *,
    model: str = "bradley-terry",
    ties: str | None = None,
    annotator: str = "annotator",
    leave_one_out: bool = True,
) -> pd.DataFrame:
    """Agreement of each annotator with the consensus ranking.

    Parameters
    ----------
    comparisons : DataFrame
        A comparisons table with an annotator column.
    model, ties : str
        The consensus model (see :func:`rrmap.rank.fit_bradley_terry`).
    annotator : str, default "annotator"
        The annotator column. Rows without an annotator take part in the
        consensus but get no row here.
    leave_one_out : bool, default True
        Score each annotator against the consensus fitted without their own
        comparisons.

    Returns
    -------
    DataFrame
        One row per annotator: ``annotator``, ``n_comparisons``, ``n_ties``,
        ``n_decisive`` (non-tie judgements on pairs the consensus orders),
        ``n_agree``, ``agreement`` (``n_agree / n_decisive``), ``expected``
        (mean consensus probability of agreeing on those pairs), ``z``
        (``(n_agree − Σp) / sqrt(Σp(1−p))``), ``weight`` (see
        :func:`annotator_weights`).

    Examples
    --------
    >>> import pandas as pd
    >>> from rrmap.rank import annotator_agreement
    >>> good = pd.DataFrame({"left": ["A", "B", "A"] * 2, "right": ["B", "C", "C"] * 2,
    ...                      "winner": "left", "annotator": "u1"})
    >>> df = pd.concat([good, good.assign(annotator="u2"), good.assign(annotator="u3"),
    ...                 good.assign(annotator="u4", winner="right")]).assign(instance="i")
    >>> annotator_agreement(df)[["annotator", "n_decisive", "agreement", "weight"]].round(3)
      annotator  n_decisive  agreement  weight
    0        u1           6        1.0   1.946
    1        u2           6        1.0   1.946
    2        u3           6        1.0   1.946
    3        u4           6        0.0   0.000
    """
    clean = validate_comparisons(comparisons)
    if annotator not in clean.columns:
        raise InputError(f"column {annotator!r} (annotator) not in the comparisons table")
    has = clean[annotator].notna()
    if not has.any():
        raise InputError(f"column {annotator!r}: no comparison has an annotator")
    pooled = None if leave_one_out else fit_bradley_terry(clean, model=model, ties=ties)
    rows = []
    for name, mine in clean[has].groupby(annotator, sort=True):
        if leave_one_out:
            rest = clean[~clean.index.isin(mine.index)]
            if rest.empty:
                raise InputError(f"annotator {name!r} made every comparison: no consensus "
                                 "without them (use leave_one_out=False)")  # fmt: skip
            consensus = fit_bradley_terry(rest, model=model, ties=ties)
        else:
            consensus = pooled
        s = _score(mine, consensus)
        sp = float(s["p"].sum())
        var = float((s["p"] * (1 - s["p"])).sum())
        n_agree = int(s["agree"].sum())
        rows.append({
            "annotator": name,
            "n_comparisons": len(mine),
            "n_ties": int((mine["winner"] == "tie").sum()),
            "n_decisive": len(s),
            "n_agree": n_agree,
            "agreement": n_agree / len(s) if len(s) else np.nan,
            "expected": sp / len(s) if len(s) else np.nan,
            "z": (n_agree - sp) / np.sqrt(var) if var > 0 else np.nan,
        })  # fmt: skip
    table = pd.DataFrame(rows)
    table["weight"] = _log_odds(table["n_agree"], table["n_decisive"])
    return table


def _log_odds(n_agree: pd.Series, n_decisive: pd.Series) -> np.ndarray:
    """``max(0, logit((agree + 1) / (decisive + 2)))``: Laplace-smoothed log-odds."""
    a = (n_agree.to_numpy(float) + 1) / (n_decisive.to_numpy(float) + 2)
    return np.maximum(0.0, np.log(a / (1 - a)))


def annotator_weights(
    comparisons: pd.DataFrame, agreement: pd.DataFrame, *, annotator: str = "annotator"
) -> np.ndarray:
    """Per-comparison weights from an :func:`annotator_agreement` table, mean 1.

    Rows without an annotator get weight 1 before normalising; the weights are
    scaled so that they sum to the number of comparisons.

    Examples
    --------
    >>> import pandas as pd
    >>> from rrmap.rank import annotator_weights
    >>> df = pd.DataFrame({"annotator": ["u1", "u1", "u2"]})
    >>> table = pd.DataFrame({"annotator": ["u1", "u2"], "weight": [2.0, 0.0]})
    >>> annotator_weights(df, table).tolist()
    [1.5, 1.5, 0.0]
    """
    w = comparisons[annotator].map(agreement.set_index("annotator")["weight"])
    w = w.where(comparisons[annotator].notna(), 1.0).to_numpy(float)
    if np.isnan(w).any():
        missing = sorted(set(comparisons.loc[np.isnan(w), annotator].astype(str)))
        raise InputError(f"annotators without an agreement row: {', '.join(missing)}")
    if w.sum() <= 0:
        raise InputError("every annotator has weight 0 (no better than chance)")
    return w * len(w) / w.sum()


def filter_annotators(
    comparisons: pd.DataFrame,
    *,
    min_agreement: float,
    model: str = "bradley-terry",
    ties: str | None = None,
    annotator: str = "annotator",
) -> FilterResult:
    """Drop the comparisons of annotators whose agreement is below ``min_agreement``.

    Annotators with no decisive judgement on an ordered pair are kept (their
    agreement is unknown). Rows without an annotator are kept.

    Returns
    -------
    FilterResult
        ``dropped`` has one row per dropped annotator, reason
        ``"annotator_agreement"``, with ``annotator``, ``agreement`` and
        ``n_comparisons``; ``instances`` is the agreement table.

    Examples
    --------
    >>> import pandas as pd
    >>> from rrmap.rank import filter_annotators
    >>> good = pd.DataFrame({"left": ["A", "B", "A"] * 2, "right": ["B", "C", "C"] * 2,
    ...                      "winner": "left", "annotator": "u1"})
    >>> df = pd.concat([good, good.assign(annotator="u2"), good.assign(annotator="u3"),
    ...                 good.assign(annotator="u4", winner="right")]).assign(instance="i")
    >>> res = filter_annotators(df, min_agreement=0.5)
    >>> res.summary().values.tolist(), len(res.comparisons)
    ([['annotator_agreement', 1, 6]], 18)
    """
    if not 0 <= min_agreement <= 1:
        raise InputError(f"min_agreement must be between 0 and 1, got {min_agreement!r}")
    clean = validate_comparisons(comparisons)
    table = annotator_agreement(clean, model=model, ties=ties, annotator=annotator)
    low = table[table["agreement"] < min_agreement]
    drop = clean[annotator].isin(low["annotator"]).to_numpy()
    dropped = pd.DataFrame({
        "instance": pd.Series([None] * len(low), dtype=object),
        "candidate_a": None, "candidate_b": None,
        "reason": "annotator_agreement",
        "n_comparisons": low["n_comparisons"].to_numpy(int),
        "p_a": np.nan, "fas_ratio": np.nan,
        "annotator": low["annotator"].to_numpy(), "agreement": low["agreement"].to_numpy(),
    })  # fmt: skip
    return FilterResult(comparisons=clean[~drop].reset_index(drop=True), dropped=dropped,
                        instances=table, reasons=("annotator_agreement",))  # fmt: skip
