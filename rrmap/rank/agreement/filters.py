"""Subjectivity filters: tied pairs and non-transitive instances (ArtCoT §IV).

Two filters, applied per instance:

* **pair disagreement** — a pair of candidates whose aggregated preference
  ``P(a ≻ b)`` (ties count ½) lies in a band around 50 % (default
  ``[0.4, 0.6]``, inclusive, as in the paper) is dropped: annotators do not
  agree on it;
* **non-transitivity** — each remaining pair becomes an arc from the
  majority winner to the loser; a minimum feedback arc set (the fewest arcs
  whose reversal makes the graph acyclic) measures how far the instance is
  from a consistent ranking; the instance is dropped when
  ``|FAS| / |E| ≥ η`` (default η = 0.15).

Every dropped pair or instance is reported with its reason and the number of
comparisons it removed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rrmap.errors import InputError
from rrmap.rank.data.comparisons import check_by, group_sizes, validate_comparisons
from rrmap.rank.limits import check_memory

__all__ = [
    "EXACT_FAS_LIMIT",
    "FeedbackArcSet",
    "FilterResult",
    "filter_nontransitive",
    "filter_subjective",
    "filter_ties",
    "minimum_feedback_arc_set",
    "pair_preferences",
]

#: Largest number of vertices solved exactly (dynamic programme over all 2^n subsets:
#: 65,536 states × 16 vertices); larger graphs use the Eades–Lin–Smyth heuristic.
EXACT_FAS_LIMIT = 16

_DROPPED_COLUMNS = [
    "instance",
    "candidate_a",
    "candidate_b",
    "reason",
    "n_comparisons",
    "p_a",
    "fas_ratio",
]


@dataclass(frozen=True)
class FeedbackArcSet:
    """A feedback arc set and the vertex order it comes from.

    Attributes
    ----------
    arcs : list of (vertex, vertex)
        The feedback arcs (each ``(u, v)`` is an input arc ``u → v`` that
        points backwards in ``order``).
    order : list
        Vertices from first to last; every arc not in ``arcs`` points forward.
    size : float
        Total weight of ``arcs`` (their number when unweighted).
    method : str
        ``"exact"`` or ``"eades"``.

    Examples
    --------
    >>> from rrmap.rank import minimum_feedback_arc_set
    >>> fas = minimum_feedback_arc_set([("a", "b"), ("b", "c"), ("c", "a")])
    >>> fas.size, fas.method, len(fas.arcs)
    (1.0, 'exact', 1)
    """

    arcs: list[tuple]
    order: list
    size: float
    method: str


def _exact_order(w: np.ndarray) -> list[int]:
    """Order minimising the weight of backward arcs (``w[u, v]``: weight of u → v)."""
    n = w.shape[0]
    full = 1 << n
    # cost[v, S]: weight of arcs v -> u with u in S (backward if v is placed after S)
    cost = np.zeros((n, full))
    for j in range(n):
        lo = 1 << j
        cost[:, lo : 2 * lo] = cost[:, :lo] + w[:, j : j + 1]
    best = np.full(full, np.inf)
    best[0] = 0.0
    choice = np.full(full, -1, dtype=np.int64)
    masks = np.arange(full)
    popcount = np.zeros(full, dtype=np.int64)
    for j in range(n):
        popcount += (masks >> j) & 1
    for size in range(1, n + 1):
        layer = masks[popcount == size]
        for v in range(n):
            s = layer[(layer >> v) & 1 == 1]
            prev = s ^ (1 << v)
            cand = best[prev] + cost[v, prev]
            better = cand < best[s]
            best[s[better]] = cand[better]
            choice[s[better]] = v
    order = []
    s = full - 1
    while s:
        v = int(choice[s])
        order.append(v)
        s ^= 1 << v
    return order[::-1]


def _eades_order(w: np.ndarray) -> list[int]:
    """Eades, Lin & Smyth (1993) greedy order for weighted digraphs."""
    n = w.shape[0]
    alive = np.ones(n, dtype=bool)
    w = w.copy()
    np.fill_diagonal(w, 0.0)
    out_w = w.sum(axis=1)
    in_w = w.sum(axis=0)
    head: list[int] = []
    tail: list[int] = []

    def remove(v: int) -> None:
        alive[v] = False
        nonlocal out_w, in_w
        out_w = out_w - w[:, v]
        in_w = in_w - w[v, :]

    while alive.any():
        changed = True
        while changed:
            changed = False
            sinks = np.flatnonzero(alive & (out_w <= 1e-12))
            for v in sinks:
                tail.append(int(v))
                remove(int(v))
                changed = True
            sources = np.flatnonzero(alive & (in_w <= 1e-12))
            for v in sources:
                head.append(int(v))
                remove(int(v))
                changed = True
        if alive.any():
            idx = np.flatnonzero(alive)
            v = int(idx[np.argmax((out_w - in_w)[idx])])
            head.append(v)
            remove(v)
    return head + tail[::-1]


def _fas_bytes(n: int, n_arcs: int, exact: bool) -> int:
    """Memory of a feedback arc set of *n* vertices and *n_arcs* arcs: the subset programme
    keeps about 2^n × (n + 12) numbers, the heuristic three n × n matrices; each arc
    costs its share of the lists and the lookup table."""
    return ((1 << n) * (8 * n + 96) if exact else 24 * n * n) + 160 * n_arcs


def _check_fas_memory(n: int, n_arcs: int, exact: bool) -> None:
    how = "an exact" if exact else "a (heuristic)"
    check_memory(
        f"{how} feedback arc set of {n} vertices and {n_arcs} arcs",
        _fas_bytes(n, n_arcs, exact),
        "use method='eades' (or 'auto')" if exact else "filter candidates",
    )


def minimum_feedback_arc_set(
    arcs: Sequence[tuple],
    *,
    weights: Sequence[float] | None = None,
    method: str = "auto",
) -> FeedbackArcSet:
    """Minimum feedback arc set of a directed graph.

    Parameters
    ----------
    arcs : sequence of (u, v)
        Directed arcs ``u → v`` (here: u was preferred to v). Vertices can be
        any hashable, sortable values.
    weights : sequence of float, optional
        Arc weights (default 1 each); parallel arcs add up.
    method : {"auto", "exact", "eades"}, default "auto"
        ``"exact"``: dynamic programme over vertex subsets (Held–Karp
        style), optimal, O(2^n n²) time and 2^n (8n + 96) bytes of memory
        (refused above :data:`rrmap.rank.limits.MEMORY_LIMIT`: 22 vertices at
        most); ``"eades"``: the Eades–Lin–Smyth heuristic, O(n²) here, not
        always minimal; ``"auto"``: exact up to :data:`EXACT_FAS_LIMIT`
        vertices, Eades beyond.

    Returns
    -------
    FeedbackArcSet

    Examples
    --------
    >>> from rrmap.rank import minimum_feedback_arc_set
    >>> arcs = [("A", "B"), ("B", "C"), ("C", "A"), ("A", "C")]
    >>> fas = minimum_feedback_arc_set(arcs)
    >>> fas.size, fas.arcs, fas.order
    (1.0, [('C', 'A')], ['A', 'B', 'C'])
    """
    if method not in ("auto", "exact", "eades"):
        raise InputError(f"method must be auto, exact or eades, got {method!r}")
    arcs = [tuple(a) for a in arcs]
    if any(len(a) != 2 for a in arcs):
        raise InputError("arcs must be pairs (u, v)")
    wts = np.ones(len(arcs)) if weights is None else np.asarray(weights, dtype=float)
    if len(wts) != len(arcs) or (len(wts) and (not np.isfinite(wts).all() or wts.min() < 0)):
        raise InputError("weights must be finite, >= 0 and one per arc")
    vertices = sorted({v for a in arcs for v in a})
    idx = {v: i for i, v in enumerate(vertices)}
    n = len(vertices)
    exact = method == "exact" or (method == "auto" and n <= EXACT_FAS_LIMIT)
    _check_fas_memory(n, len(arcs), exact)
    w = np.zeros((n, n))
    for (u, v), x in zip(arcs, wts, strict=True):
        if u != v:
            w[idx[u], idx[v]] += x
    use_exact = method == "exact" or (method == "auto" and n <= EXACT_FAS_LIMIT)
    order = (_exact_order(w) if use_exact else _eades_order(w)) if n else []
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n)
    back = [(u, v) for u, v in dict.fromkeys(arcs) if u != v and pos[idx[u]] > pos[idx[v]]]
    size = float(sum(w[idx[u], idx[v]] for u, v in back))
    return FeedbackArcSet(
        arcs=back,
        order=[vertices[i] for i in order],
        size=size,
        method="exact" if use_exact else "eades",
    )


@dataclass(frozen=True)
class FilterResult:
    """Comparisons that passed a filter, and what was dropped.

    Attributes
    ----------
    comparisons : DataFrame
        The rows kept (same columns as the input).
    dropped : DataFrame
        One row per dropped pair or instance: ``instance``, ``candidate_a``,
        ``candidate_b`` (empty for a whole instance), ``reason``
        (``"tie_band"`` or ``"non_transitive"``), ``n_comparisons`` removed,
        ``p_a`` (pair preference for ``candidate_a``), ``fas_ratio``.
    instances : DataFrame
        Per instance (non-transitivity filter only, else empty):
        ``n_arcs``, ``n_feedback``, ``fas_ratio``, ``fas_method``,
        ``n_undecided`` (pairs at exactly 50 %, no arc), ``dropped``.

    Examples
    --------
    >>> import pandas as pd
    >>> from rrmap.rank import filter_ties
    >>> df = pd.DataFrame({"instance": "i", "left": ["A", "B", "A"],
    ...                    "right": ["B", "A", "C"], "winner": ["left", "left", "left"]})
    >>> res = filter_ties(df)
    >>> len(res.comparisons), res.dropped[["candidate_a", "candidate_b", "reason"]].values.tolist()
    (1, [['A', 'B', 'tie_band']])
    """

    comparisons: pd.DataFrame
    dropped: pd.DataFrame
    instances: pd.DataFrame
    reasons: tuple[str, ...] = ()

    def summary(self) -> pd.DataFrame:
        """Counts per reason: ``reason``, ``n_dropped`` (pairs or instances), ``n_comparisons``.

        Every filter that ran has a row, with zeros when it dropped nothing.

        Examples
        --------
        >>> import pandas as pd
        >>> from rrmap.rank import filter_ties
        >>> df = pd.DataFrame({"instance": "i", "left": ["A"], "right": ["B"],
        ...                    "winner": ["tie"]})
        >>> filter_ties(df).summary().values.tolist()
        [['tie_band', 1, 1]]
        """
        reasons = list(dict.fromkeys([*self.reasons, *self.dropped["reason"]]))
        g = self.dropped.groupby("reason", sort=False)
        n_dropped = g.size().reindex(reasons, fill_value=0)
        n_comp = g["n_comparisons"].sum().reindex(reasons, fill_value=0)
        return pd.DataFrame(
            {
                "reason": reasons,
                "n_dropped": n_dropped.to_numpy(dtype=int),
                "n_comparisons": n_comp.to_numpy(dtype=int),
            }
        )


def _prepare(df: pd.DataFrame, by: str) -> pd.DataFrame:
    clean = validate_comparisons(df)
    check_by(clean, by)
    return clean


def _pair_keys(df: pd.DataFrame) -> tuple[pd.Series, pd.Series, np.ndarray]:
    left, right = df["left"].astype(str), df["right"].astype(str)
    a = left.where(left <= right, right)
    b = right.where(left <= right, left)
    winner = df["winner"].to_numpy(str)
    swapped = (left > right).to_numpy()
    # score for candidate a: 1 if a won, 0 if b won, 0.5 tie
    s_left = np.where(winner == "left", 1.0, np.where(winner == "right", 0.0, 0.5))
    s_a = np.where(swapped, 1.0 - s_left, s_left)
    return a, b, s_a


def pair_preferences(comparisons: pd.DataFrame, *, by: str = "instance") -> pd.DataFrame:
    """Aggregate comparisons per unordered pair within each group.

    Parameters
    ----------
    comparisons : DataFrame
        A comparisons table.
    by : str, default "instance"
        Grouping column.

    Returns
    -------
    DataFrame
        ``by``, ``candidate_a`` < ``candidate_b`` (alphabetically),
        ``n_comparisons``, ``wins_a``, ``wins_b``, ``ties``, ``p_a``
        (``(wins_a + ties/2) / n_comparisons``).

    Examples
    --------
    >>> import pandas as pd
    >>> from rrmap.rank import pair_preferences
    >>> df = pd.DataFrame({"instance": "i", "left": ["B", "A", "A"],
    ...                    "right": ["A", "B", "B"], "winner": ["left", "left", "tie"]})
    >>> pair_preferences(df).iloc[0].to_dict()
    {'instance': 'i', 'candidate_a': 'A', 'candidate_b': 'B', 'n_comparisons': 3, \
'wins_a': 1, 'wins_b': 1, 'ties': 1, 'p_a': 0.5}
    """
    clean = _prepare(comparisons, by)
    a, b, s_a = _pair_keys(clean)
    t = pd.DataFrame(
        {
            by: clean[by].to_numpy(),
            "candidate_a": a.to_numpy(),
            "candidate_b": b.to_numpy(),
            "wins_a": (s_a == 1.0).astype(int),
            "wins_b": (s_a == 0.0).astype(int),
            "ties": (s_a == 0.5).astype(int),
            "score_a": s_a,
        }
    )
    g = t.groupby([by, "candidate_a", "candidate_b"], sort=True, observed=True)
    out = g[["wins_a", "wins_b", "ties"]].sum().reset_index()
    out.insert(3, "n_comparisons", g.size().to_numpy())
    out["p_a"] = g["score_a"].sum().to_numpy() / out["n_comparisons"].to_numpy()
    return out


def _empty_dropped(by: str) -> pd.DataFrame:
    cols = [by if c == "instance" else c for c in _DROPPED_COLUMNS]
    return pd.DataFrame({c: pd.Series(dtype=object) for c in cols})


def filter_ties(
    comparisons: pd.DataFrame,
    *,
    band: tuple[float, float] = (0.4, 0.6),
    by: str = "instance",
) -> FilterResult:
    """Drop pairs whose aggregated preference lies in ``band`` (inclusive).

    Parameters
    ----------
    comparisons : DataFrame
        A comparisons table.
    band : (float, float), default (0.4, 0.6)
        Closed interval of ``P(a ≻ b)`` (ties count ½) that counts as
        disagreement. A pair judged once as a tie has P = 0.5 and is dropped;
        a pair judged once with a winner has P = 0 or 1 and is kept.
    by : str, default "instance"
        Pairs are formed within groups of this column.

    Returns
    -------
    FilterResult

    Examples
    --------
    >>> import pandas as pd
    >>> from rrmap.rank import filter_ties
    >>> df = pd.DataFrame({"instance": "i", "left": ["A"] * 5, "right": ["B"] * 5,
    ...                    "winner": ["left", "left", "left", "right", "right"]})
    >>> len(filter_ties(df).comparisons)  # P = 0.6: in the band
    0
    >>> len(filter_ties(df, band=(0.45, 0.55)).comparisons)
    5
    """
    lo, hi = _check_band(band)
    clean = _prepare(comparisons, by)
    if clean.empty:
        return FilterResult(clean, _empty_dropped(by), pd.DataFrame(), ("tie_band",))
    prefs = pair_preferences(clean, by=by)
    eps = 1e-12
    bad = prefs[(prefs["p_a"] >= lo - eps) & (prefs["p_a"] <= hi + eps)]
    a, b, _ = _pair_keys(clean)
    key = pd.MultiIndex.from_arrays([clean[by].to_numpy(), a.to_numpy(), b.to_numpy()])
    bad_key = pd.MultiIndex.from_frame(bad[[by, "candidate_a", "candidate_b"]])
    drop_rows = key.isin(bad_key)
    dropped = pd.DataFrame(
        {
            by: bad[by].to_numpy(),
            "candidate_a": bad["candidate_a"].to_numpy(),
            "candidate_b": bad["candidate_b"].to_numpy(),
            "reason": "tie_band",
            "n_comparisons": bad["n_comparisons"].to_numpy(),
            "p_a": bad["p_a"].to_numpy(),
            "fas_ratio": np.nan,
        }
    )
    if dropped.empty:
        dropped = _empty_dropped(by)
    return FilterResult(
        comparisons=clean[~drop_rows].reset_index(drop=True),
        dropped=dropped.reset_index(drop=True),
        instances=pd.DataFrame(),
        reasons=("tie_band",),
    )


def _check_band(band) -> tuple[float, float]:
    try:
        lo, hi = (float(x) for x in band)
    except (TypeError, ValueError):
        raise InputError(f"band must be two numbers (low, high), got {band!r}") from None
    if not (0.0 <= lo <= hi <= 1.0):
        raise InputError(f"band must satisfy 0 <= low <= high <= 1, got ({lo:g}, {hi:g})")
    return lo, hi


def filter_nontransitive(
    comparisons: pd.DataFrame,
    *,
    eta: float = 0.15,
    by: str = "instance",
    method: str = "auto",
) -> FilterResult:
    """Drop instances whose majority-preference graph is too far from acyclic.

    Parameters
    ----------
    comparisons : DataFrame
        A comparisons table (usually after :func:`filter_ties`).
    eta : float, default 0.15
        An instance is dropped when ``|FAS| / |E| ≥ eta``, with ``E`` the
        arcs (one per pair, majority winner → loser) and ``FAS`` a minimum
        feedback arc set. Pairs at exactly 50 % give no arc (counted in
        ``instances.n_undecided``).
    by : str, default "instance"
        The instance column.
    method : {"auto", "exact", "eades"}
        Passed to :func:`minimum_feedback_arc_set`.

    Returns
    -------
    FilterResult
        ``.instances`` has one row per instance with its FAS statistics.

    Examples
    --------
    >>> import pandas as pd
    >>> from rrmap.rank import filter_nontransitive
    >>> cyc = pd.DataFrame({"instance": "cycle", "left": ["A", "B", "C"],
    ...                     "right": ["B", "C", "A"], "winner": "left"})
    >>> res = filter_nontransitive(cyc)  # 1 of 3 arcs must flip: 0.33 >= 0.15
    >>> res.dropped[["instance", "reason", "n_comparisons"]].values.tolist()
    [['cycle', 'non_transitive', 3]]
    """
    if not np.isfinite(eta) or not (0.0 < eta <= 1.0):
        raise InputError(f"eta must be in (0, 1], got {eta!r}")
    clean = _prepare(comparisons, by)
    if clean.empty:
        return FilterResult(clean, _empty_dropped(by), pd.DataFrame(), ("non_transitive",))
    if method not in ("auto", "exact", "eades"):
        raise InputError(f"method must be auto, exact or eades, got {method!r}")
    sizes = group_sizes(clean, by)  # every instance is checked before the first is solved
    k, n_arcs = int(sizes["k"].max()), int(sizes["n_pairs"].max())
    _check_fas_memory(k, n_arcs, method == "exact" or (method == "auto" and k <= EXACT_FAS_LIMIT))
    prefs = pair_preferences(clean, by=by)
    rows = []
    for key, g in prefs.groupby(by, sort=True, observed=True):
        decided = g[g["p_a"] != 0.5]
        arcs = [
            (a, b) if p > 0.5 else (b, a)
            for a, b, p in zip(decided["candidate_a"], decided["candidate_b"], decided["p_a"],
                               strict=True)
        ]  # fmt: skip
        fas = minimum_feedback_arc_set(arcs, method=method)
        ratio = fas.size / len(arcs) if arcs else 0.0
        rows.append(
            {
                by: key,
                "n_arcs": len(arcs),
                "n_feedback": int(fas.size),
                "fas_ratio": ratio,
                "fas_method": fas.method,
                "n_undecided": int(len(g) - len(decided)),
                "n_comparisons": int(g["n_comparisons"].sum()),
                "dropped": bool(arcs) and ratio >= eta - 1e-12,
            }
        )
    inst = pd.DataFrame(rows)
    gone = inst[inst["dropped"]]
    dropped = pd.DataFrame(
        {
            by: gone[by].to_numpy(),
            "candidate_a": None,
            "candidate_b": None,
            "reason": "non_transitive",
            "n_comparisons": gone["n_comparisons"].to_numpy(),
            "p_a": np.nan,
            "fas_ratio": gone["fas_ratio"].to_numpy(),
        }
    )
    if dropped.empty:
        dropped = _empty_dropped(by)
    keep = ~clean[by].isin(set(gone[by]))
    return FilterResult(
        comparisons=clean[keep].reset_index(drop=True),
        dropped=dropped.reset_index(drop=True),
        instances=inst,
        reasons=("non_transitive",),
    )


def filter_subjective(
    comparisons: pd.DataFrame,
    *,
    band: tuple[float, float] | None = (0.4, 0.6),
    eta: float | None = 0.15,
    by: str = "instance",
    method: str = "auto",
) -> FilterResult:
    """Both filters in the paper's order: tied pairs first, then non-transitive instances.

    Parameters
    ----------
    comparisons : DataFrame
        A comparisons table.
    band : (float, float) or None, default (0.4, 0.6)
        See :func:`filter_ties`; ``None`` skips the pair filter.
    eta : float or None, default 0.15
        See :func:`filter_nontransitive`; ``None`` skips the instance filter.
    by : str, default "instance"
        The instance column.
    method : {"auto", "exact", "eades"}
        Feedback-arc-set method.

    Returns
    -------
    FilterResult
        ``dropped`` holds the rows of both filters.

    Examples
    --------
    >>> import pandas as pd
    >>> from rrmap.rank import filter_subjective
    >>> df = pd.DataFrame({"instance": ["i"] * 4, "left": ["A", "B", "C", "A"],
    ...                    "right": ["B", "C", "A", "B"],
    ...                    "winner": ["left", "left", "left", "right"]})
    >>> filter_subjective(df).summary().values.tolist()  # A-B tied; B>C, C>A remain
    [['tie_band', 1, 2], ['non_transitive', 0, 0]]
    """
    clean = _prepare(comparisons, by)
    parts = []
    reasons: list[str] = []
    instances = pd.DataFrame()
    if band is not None:
        res = filter_ties(clean, band=band, by=by)
        clean = res.comparisons
        parts.append(res.dropped)
        reasons.append("tie_band")
    if eta is not None:
        res = filter_nontransitive(clean, eta=eta, by=by, method=method)
        clean = res.comparisons
        parts.append(res.dropped)
        instances = res.instances
        reasons.append("non_transitive")
    parts = [p for p in parts if not p.empty]
    dropped = pd.concat(parts, ignore_index=True) if parts else _empty_dropped(by)
    return FilterResult(comparisons=clean, dropped=dropped, instances=instances,
                        reasons=tuple(reasons))  # fmt: skip
