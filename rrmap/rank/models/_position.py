"""Private: does the maximum-likelihood estimate exist with a position effect?

With a position effect δ every comparison's score difference is
``d = θ_left − θ_right + δ`` (see :mod:`rrmap.rank.models._likelihood`). The
log-likelihood stays concave, so — as without δ (:mod:`rrmap.rank.models._existence`)
— its maximum is missing exactly when some direction ``(u, v, c)`` of the
scores, δ and the tie parameter never lowers the probability of an observed
outcome and is not a shift of all scores:

* ``u_L − u_R + v ≥ c`` for every win of the left candidate L over R,
  ``u_R − u_L − v ≥ c`` for every win of the right one, and
  ``|u_L − u_R + v| ≤ c`` for every tie, with ``c ≥ 0`` (``c = 0`` for
  Bradley–Terry);
* a direction with equality everywhere leaves the likelihood flat: then the
  maximum is not unique. That happens when δ can be absorbed by the scores —
  when the candidates can be given levels ``h`` with ``h_R = h_L + 1`` for
  every pair shown (each candidate always shown on one side, say).

The first condition is the linear programme of the model without δ with one
more free variable; the second a breadth-first levelling of the comparison
graph.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import breadth_first_order, connected_components

from rrmap.rank.models._likelihood import Pairs


def _levelled(pairs: Pairs, shown: np.ndarray) -> bool:
    """Whether levels ``h_b = h_a + 1`` exist for every pair shown (a left, b right)."""
    a, b, k = pairs.a[shown], pairs.b[shown], pairs.k
    arcs = sparse.csr_matrix((np.ones(len(a)), (a, b)), shape=(k, k))
    sign = (arcs - arcs.T).tocsr()  # +1: shown a-left-b; -1: b-left-a; 0: both ways round
    order, pred = breadth_first_order(arcs + arcs.T, 0, directed=False)
    level = np.zeros(k)
    for node in order[1:]:
        level[node] = level[pred[node]] + sign[pred[node], node]
    return bool(np.all(level[b] - level[a] == 1))


def _direction_lp(pairs: Pairs, counts: np.ndarray, tie_model: bool) -> tuple[float, np.ndarray]:
    """Largest ``c + Σ_win cells (gain − c)`` over directions in the box; ``x = (u, v, c)``."""
    from scipy.optimize import linprog

    k = pairs.k
    rows: list[np.ndarray] = []
    # the gain of each outcome cell as a row over (u, v, c): (a, b, sign) means
    # sign · (u_a − u_b + v)
    for col, sign in ((0, 1.0), (1, -1.0)):
        sel = counts[:, col] > 0
        rows.append(np.column_stack([pairs.a[sel], pairs.b[sel], np.full(sel.sum(), sign)]))
    wins = np.concatenate(rows)
    tie = counts[:, 2] > 0
    ties = np.column_stack([pairs.a[tie], pairs.b[tie]])
    n_w, n_t = len(wins), len(ties)
    a_idx = np.r_[wins[:, 0], ties[:, 0], ties[:, 0]].astype(np.int64)
    b_idx = np.r_[wins[:, 1], ties[:, 1], ties[:, 1]].astype(np.int64)
    # win rows: −sign·(u_a − u_b + v) + c ≤ 0; tie rows: ±(u_a − u_b + v) − c ≤ 0
    s = np.r_[-wins[:, 2], np.ones(n_t), -np.ones(n_t)]
    c_coef = np.r_[np.ones(n_w), -np.ones(2 * n_t)]
    n_rows = n_w + 2 * n_t
    r = np.arange(n_rows)
    a_ub = sparse.csr_matrix(
        (np.r_[s, -s, s, c_coef], (np.r_[r, r, r, r], np.r_[a_idx, b_idx, np.full(n_rows, k),
                                                             np.full(n_rows, k + 1)])),
        shape=(n_rows, k + 2),
    )  # fmt: skip
    # maximise Σ_win gains + (1 − n_w) c: minimise the negative, whose (u, v) part is
    # the sum of the win rows
    objective = np.asarray(a_ub[:n_w].sum(axis=0)).ravel()
    objective[k + 1] = n_w - 1.0
    bounds = [(0.0, 1.0)] * k + [(-1.0, 1.0), (0.0, 1.0 if tie_model else 0.0)]
    res = linprog(objective, A_ub=a_ub, b_ub=np.zeros(n_rows), bounds=bounds, method="highs")
    return -float(res.fun), res.x


def position_existence(pairs: Pairs, counts: np.ndarray, names, tie_model: bool
                       ) -> tuple[bool, str]:  # fmt: skip
    """Existence of the MLE of a model with a position effect, and why not.

    ``pairs`` are ordered (``a`` left, ``b`` right) and ``counts`` ``(P, 3)``
    their left wins, right wins and ties as the model sees them.
    """
    names = list(names)
    k = pairs.k
    if k < 2:
        return False, "fewer than two candidates"
    shown = counts.sum(axis=1) > 0
    if tie_model and counts[:, :2].sum() == 0:
        return False, "every comparison is a tie: the tie parameter is infinite"
    graph = sparse.csr_matrix((np.ones(shown.sum()), (pairs.a[shown], pairs.b[shown])),
                              shape=(k, k))  # fmt: skip
    n_parts = connected_components(graph, directed=False)[0]
    if n_parts > 1:
        return False, f"comparison graph has {n_parts} disconnected parts"
    if _levelled(pairs, shown):
        return False, (
            "the position effect is confounded with the scores: the pairs shown admit levels "
            "with every right candidate one above its left one (e.g. each candidate always on "
            "the same side); show pairs both ways round"
        )
    gain, x = _direction_lp(pairs, counts, tie_model)
    if gain <= 1e-9:
        return True, ""
    u, v = x[:k], x[k]
    if np.ptp(u) <= 1e-9:
        side = "left" if v > 0 else "right"
        return False, (f"the {side} candidate never loses (ties aside): the position effect "
                       "runs off")  # fmt: skip
    top = [str(names[i]) for i in np.flatnonzero(u >= u.max() - 1e-9)]
    return False, (f"wins, ties and sides admit no finite maximum: {', '.join(top)} only win "
                   "or tie against the others, given the sides they were shown on")  # fmt: skip
