"""Private: does the maximum-likelihood estimate of a paired-comparison model exist?

Bradley–Terry (Zermelo 1929; Ford 1957): iff the directed graph with an arc
i → j whenever i beat j is strongly connected.

Davidson and Rao–Kupper with ties: the log-likelihood is concave, so the
maximum is missing exactly when some direction of the parameters (scores δ,
tie parameter c) never lowers the probability of any observed outcome and is
not a shift of all scores. Working through the outcome probabilities, such a
direction satisfies ``δ_i − δ_j ≥ c`` for every win of i over j and
``|δ_i − δ_j| ≤ c`` for every tie of i and j, with ``c ≥ 0`` — the same
conditions for both models (Davidson's ``c`` is twice Rao–Kupper's). A small
linear programme decides whether a non-trivial one exists. Strong
connectivity of the wins alone, with at least one tie, already suffices and
skips the programme.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse.csgraph import connected_components


def _strongly_connected(arcs: np.ndarray) -> bool:
    return connected_components(arcs, directed=True, connection="strong")[0] == 1


def _never(w: np.ndarray, names: list) -> list[str]:
    parts = []
    wins = w.sum(axis=1)
    losses = w.sum(axis=0)
    never_win = [str(names[i]) for i in np.flatnonzero(wins == 0)]
    never_lose = [str(names[i]) for i in np.flatnonzero(losses == 0)]
    if never_win:
        parts.append("never wins: " + ", ".join(never_win))
    if never_lose:
        parts.append("never loses: " + ", ".join(never_lose))
    return parts


def bradley_terry_existence(w: np.ndarray, names: list) -> tuple[bool, str]:
    """Strong connectivity of the win graph, with a message naming the culprits."""
    k = w.shape[0]
    if k < 2:
        return False, "fewer than two candidates"
    if _strongly_connected(w > 0):
        return True, ""
    parts = _never(w, names)
    n_weak = connected_components((w + w.T) > 0, directed=False)[0]
    if n_weak > 1:
        parts.append(f"comparison graph has {n_weak} disconnected parts")
    if not parts:
        n_strong = connected_components(w > 0, directed=True, connection="strong")[0]
        parts.append(f"win graph not strongly connected ({n_strong} components)")
    return False, "; ".join(parts)


def _recession_lp(w: np.ndarray, t: np.ndarray) -> tuple[float, np.ndarray]:
    """Largest ``c + Σ_wins (δ_i − δ_j − c)`` over directions in the unit box.

    The constraints are sparse (three entries a row): a dense matrix would hold
    (wins + 2 ties) × (k + 1) numbers.
    """
    from scipy import sparse
    from scipy.optimize import linprog

    k = w.shape[0]
    wi, wj = np.nonzero(w > 0)
    ti, tj = np.nonzero(np.triu(t > 0, 1))
    n_w, n_t = len(wi), len(ti)
    # δ_j − δ_i + c ≤ 0 for every win; ±(δ_i − δ_j) − c ≤ 0 for every tie
    row = np.r_[np.repeat(np.arange(n_w), 3), np.repeat(n_w + np.arange(2 * n_t), 3)]
    col = np.r_[np.column_stack([wj, wi, np.full(n_w, k)]).ravel(),
                np.column_stack([np.repeat(ti, 2), np.repeat(tj, 2),
                                 np.full(2 * n_t, k)]).ravel()]  # fmt: skip
    sign = np.tile([1.0, -1.0], n_t)
    val = np.r_[np.tile([1.0, -1.0, 1.0], n_w),
                np.column_stack([sign, -sign, -np.ones(2 * n_t)]).ravel()]  # fmt: skip
    a_ub = sparse.csr_matrix((val, (row, col)), shape=(n_w + 2 * n_t, k + 1))
    objective = np.zeros(k + 1)
    np.add.at(objective, wi, -1.0)
    np.add.at(objective, wj, 1.0)
    objective[k] = len(wi) - 1.0
    res = linprog(objective, A_ub=a_ub, b_ub=np.zeros(a_ub.shape[0]),
                  bounds=[(0.0, 1.0)] * (k + 1), method="highs")  # fmt: skip
    return -float(res.fun), res.x


def tie_model_existence(w: np.ndarray, t: np.ndarray, names: list) -> tuple[bool, str]:
    """Existence for Davidson and Rao–Kupper: ``w`` wins (i over j), ``t`` ties (symmetric).

    With no ties at all the tie parameter sits on its boundary (no ties) and
    the scores are those of Bradley–Terry: the Bradley–Terry condition applies.
    """
    k = w.shape[0]
    n_ties = float(np.triu(t, 1).sum())
    if k < 2:
        return False, "fewer than two candidates"
    if n_ties == 0:
        return bradley_terry_existence(w, names)
    if w.sum() == 0:
        return False, "every comparison is a tie: the tie parameter is infinite"
    n_weak = connected_components((w + w.T + t) > 0, directed=False)[0]
    if n_weak > 1:
        return False, f"comparison graph has {n_weak} disconnected parts"
    if _strongly_connected(w > 0):
        return True, ""
    gain, x = _recession_lp(w, t)
    if gain <= 1e-9:
        return True, ""
    top = [str(names[i]) for i in np.flatnonzero(x[:k] >= x[:k].max() - 1e-9)]
    never = [str(names[i]) for i in np.flatnonzero(w.sum(axis=0) == 0)]
    detail = f"; never loses: {', '.join(never)}" if never else ""
    if len(top) == k:  # only the tie parameter moves: ties and wins never between the same sides
        return False, "wins and ties admit no finite maximum (the tie parameter runs off)"
    return False, (
        f"wins and ties admit no finite maximum: {', '.join(top)} only win or tie "
        f"against the others{detail}"
    )
