"""Which pairs to ask about: global and per-instance sampling designs (ArtCoT §IV).

For one instance the possible questions are the edges of the complete graph
on its candidates. Two designs:

* **global** — sample edges uniformly without replacement from all
  (instance, pair) combinations: wide coverage for a per-method ranking;
* **per instance** — for every instance the same number ``n`` of edges that
  form a connected subgraph with degrees as even as the greedy rule makes
  them (paper Algorithm 1): a random spanning tree (Kruskal on random
  weights), then repeatedly the unchosen edge whose endpoints' degrees after
  adding it have the smallest maximum, then the smallest sum, ties broken at
  random. Connected means every candidate can be placed on one scale.

Both return a design table (``instance``, ``left``, ``right``, ``question``)
whose left/right sides are shuffled by default, ready to be shown to
annotators or a judge; adding a ``winner`` column makes it a comparisons
table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import pandas as pd

from rrmap._util.streams import Streams
from rrmap.errors import InputError
from rrmap.rank.limits import MAX_DESIGN_WORK, MAX_QUESTIONS, check_memory

__all__ = ["degree_uniform_subgraph", "sample_global", "sample_per_instance"]


def _names(values: Sequence[str], what: str) -> list[str]:
    if isinstance(values, str):
        raise InputError(f"{what} must be a list of names, got the string {values!r}")
    names = [str(v) for v in values]
    counts = Counter(names)  # one pass: list.count per name is quadratic
    dup = sorted(v for v, c in counts.items() if c > 1)
    if dup:
        raise InputError(f"{what}: duplicated names: {', '.join(dup)}")
    if any(v.strip() == "" for v in names):
        raise InputError(f"{what}: empty name")
    return names


def _is_int(value: object) -> bool:
    """A whole number, not a bool (infinity and text are not)."""
    try:
        return not isinstance(value, bool) and int(value) == value  # type: ignore[call-overload]
    except (TypeError, ValueError, OverflowError):
        return False


def _check_n(n: int, k: int, what: str = "n_edges") -> int:
    hi = k * (k - 1) // 2
    lo = k - 1
    if not _is_int(n) or not (lo <= n <= hi):
        raise InputError(
            f"{what} must be an integer with |V|-1 <= {what} <= |V|(|V|-1)/2, i.e. between "
            f"{lo} and {hi} for {k} candidates; got {n!r}"
        )
    return int(n)


#: Bytes per candidate pair while the greedy runs: the chosen matrix (both halves), the
#: pair indices and the degree, key and free arrays of one step.
_PAIR_BYTES = 64


def _check_size(n_instances: int, k: int, n: int, per_instance: bool) -> None:
    """Refuse a design too large to build, before anything is built.

    *n* is the number of questions per instance (``per_instance``) or in total.
    """
    total = n_instances * n if per_instance else n
    if total > MAX_QUESTIONS:
        how = f"{n_instances} instances x {n} questions = " if per_instance else ""
        raise InputError(
            f"the design has {how}{total} questions, above the limit of {MAX_QUESTIONS} "
            "(rrmap.rank.limits.MAX_QUESTIONS); ask fewer questions or split the "
            "instances into several designs"
        )
    pairs = k * (k - 1) // 2
    work = n_instances * max(n - (k - 1), 0) * pairs if per_instance else 0
    if work > MAX_DESIGN_WORK:
        raise InputError(
            f"the per-instance design scans {n_instances} instances x {n - (k - 1)} added "
            f"edges x {pairs} pairs = {work} pairs, above the limit of {MAX_DESIGN_WORK} "
            "(rrmap.rank.limits.MAX_DESIGN_WORK); use fewer candidates, fewer questions "
            "per instance, or the global design"
        )
    population = n_instances * pairs
    drawn = 0 if per_instance else 8 * min(population, 50 * n)  # numpy's choice
    check_memory(
        f"a design of {k} candidates and {total} questions",
        _PAIR_BYTES * pairs + drawn + 300 * total,
        "use fewer candidates or questions",
    )


def _random_spanning_tree(k: int, gen: np.random.Generator) -> list[tuple[int, int]]:
    """Kruskal's algorithm on the complete graph with random edge weights."""
    iu, ju = np.triu_indices(k, 1)
    order = gen.permutation(len(iu))
    parent = list(range(k))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    tree = []
    for e in order:
        a, b = int(iu[e]), int(ju[e])
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
            tree.append((a, b))
            if len(tree) == k - 1:
                break
    return tree


def _degree_uniform(k: int, n: int, gen: np.random.Generator) -> list[tuple[int, int]]:
    edges = _random_spanning_tree(k, gen)
    deg = np.zeros(k, dtype=np.int64)
    chosen = np.zeros((k, k), dtype=bool)
    for a, b in edges:
        deg[a] += 1
        deg[b] += 1
        chosen[a, b] = chosen[b, a] = True
    iu, ju = np.triu_indices(k, 1)
    for _ in range(n - len(edges)):
        free = ~chosen[iu, ju]
        du, dv = deg[iu] + 1, deg[ju] + 1
        big = k * k + 1
        key = np.maximum(du, dv) * (2 * big) + (du + dv)
        key = np.where(free, key, np.iinfo(np.int64).max)
        best = np.flatnonzero(key == key.min())
        e = int(best[gen.integers(len(best))])
        a, b = int(iu[e]), int(ju[e])
        edges.append((a, b))
        chosen[a, b] = chosen[b, a] = True
        deg[a] += 1
        deg[b] += 1
    return edges


def degree_uniform_subgraph(
    candidates: Sequence[str],
    n_edges: int,
    *,
    rng: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """Sample a connected subgraph with ``n_edges`` edges and even degrees (Algorithm 1).

    Parameters
    ----------
    candidates : sequence of str
        The vertices (distinct names).
    n_edges : int
        Number of edges, ``|V| - 1 <= n_edges <= |V|(|V| - 1)/2``.
    rng : int, Generator or None
        Seed, or a generator that one seed is drawn from (the stream
        ``("design", "subgraph")`` of the seed).

    Returns
    -------
    DataFrame
        ``left``, ``right`` (the pair, in candidate-list order), ``stage``
        (``"spanning_tree"`` for the first ``|V| - 1`` edges, ``"balance"``
        for the greedy additions), in the order they were chosen.

    Raises
    ------
    rrmap.errors.InputError
        For duplicated names or ``n_edges`` out of range.

    Examples
    --------
    >>> from rrmap.rank import degree_uniform_subgraph
    >>> g = degree_uniform_subgraph(list("ABCDEF"), 9, rng=0)
    >>> len(g), g["stage"].value_counts().to_dict()
    (9, {'spanning_tree': 5, 'balance': 4})
    >>> import pandas as pd
    >>> int(pd.concat([g.left, g.right]).value_counts().max())  # 9 edges, 6 vertices: 3 each
    3
    """
    names = _names(candidates, "candidates")
    k = len(names)
    if k < 1:
        raise InputError("candidates: need at least one candidate")
    n = _check_n(n_edges, k)
    _check_size(1, k, n, per_instance=True)
    edges = _degree_uniform(k, n, Streams.of(rng).generator("design", "subgraph"))
    return pd.DataFrame(
        {
            "left": pd.Series([names[a] for a, _ in edges], dtype="str"),
            "right": pd.Series([names[b] for _, b in edges], dtype="str"),
            "stage": pd.Series(
                ["spanning_tree"] * (k - 1) + ["balance"] * (n - (k - 1)), dtype="str"
            ),
        }
    )


def _design(rows: list[tuple[str, str, str]], swap: np.ndarray | None) -> pd.DataFrame:
    """The design table, the sides of the rows where *swap* is true exchanged."""
    df = pd.DataFrame(rows, columns=["instance", "left", "right"]).astype("str")
    if swap is not None and len(df):
        left = df["left"].where(~swap, df["right"])
        right = df["right"].where(~swap, df["left"])
        df["left"], df["right"] = left, right
    df["question"] = np.arange(1, len(df) + 1)
    return df


def sample_per_instance(
    instances: Sequence[str],
    candidates: Sequence[str],
    n_edges: int,
    *,
    rng: int | np.random.Generator | None = None,
    randomize_sides: bool = True,
) -> pd.DataFrame:
    """Per-instance design: a degree-uniform connected subgraph for every instance.

    Parameters
    ----------
    instances : sequence of str
        Instance names (e.g. ``"c75-s548"``).
    candidates : sequence of str
        The candidates compared within every instance (e.g. methods).
    n_edges : int
        Questions per instance, ``k - 1 <= n_edges <= k(k - 1)/2`` for ``k``
        candidates; the paper uses O(k log k) (20 for 10 methods).
    rng : int, Generator or None
        Seed, or a generator that one seed is drawn from. Each instance draws
        its questions and their sides from the stream ``("design",
        "instance", name)`` of the seed: its questions are the same whichever
        other instances are in the design, in whichever order.
    randomize_sides : bool, default True
        Show each pair's members on random sides (position-bias control).

    Returns
    -------
    DataFrame
        ``instance``, ``left``, ``right``, ``question`` (1, 2, ...).

    Examples
    --------
    >>> from rrmap.rank import sample_per_instance
    >>> d = sample_per_instance(["i1", "i2"], list("ABCD"), 4, rng=1)
    >>> d.groupby("instance").size().to_dict()
    {'i1': 4, 'i2': 4}
    """
    inst = _names(instances, "instances")
    names = _names(candidates, "candidates")
    n = _check_n(n_edges, len(names))
    _check_size(len(inst), len(names), n, per_instance=True)
    streams = Streams.of(rng)
    rows, swaps = [], []
    for i in inst:
        gen = streams.generator("design", "instance", i)
        for a, b in _degree_uniform(len(names), n, gen):
            rows.append((i, names[a], names[b]))
        swaps.append(gen.random(n) < 0.5)
    return _design(rows, np.concatenate(swaps) if randomize_sides else None)


def sample_global(
    instances: Sequence[str],
    candidates: Sequence[str],
    n_questions: int,
    *,
    rng: int | np.random.Generator | None = None,
    randomize_sides: bool = True,
) -> pd.DataFrame:
    """Global design: ``n_questions`` (instance, pair) combinations, uniformly without replacement.

    Parameters
    ----------
    instances : sequence of str
        Instance names.
    candidates : sequence of str
        Candidates compared within each instance.
    n_questions : int
        How many questions in total, ``1 <= n_questions <= |instances| · k(k-1)/2``.
    rng : int, Generator or None
        Seed, or a generator that one seed is drawn from (the stream
        ``("design", "global")`` of the seed).
    randomize_sides : bool, default True
        Show each pair's members on random sides.

    Returns
    -------
    DataFrame
        ``instance``, ``left``, ``right``, ``question``, in random order.

    Examples
    --------
    >>> from rrmap.rank import sample_global
    >>> d = sample_global(["i1", "i2", "i3"], list("ABCD"), 10, rng=0)
    >>> len(d), int(d.duplicated(["instance", "left", "right"]).sum())
    (10, 0)
    """
    inst = _names(instances, "instances")
    names = _names(candidates, "candidates")
    k = len(names)
    per = k * (k - 1) // 2
    total = len(inst) * per
    if not _is_int(n_questions) or not (1 <= n_questions <= total):
        raise InputError(
            f"n_questions must be an integer between 1 and {total} "
            f"({len(inst)} instances x {per} pairs); got {n_questions!r}"
        )
    _check_size(len(inst), k, int(n_questions), per_instance=False)
    gen = Streams.of(rng).generator("design", "global")
    picks = gen.choice(total, size=int(n_questions), replace=False)
    iu, ju = np.triu_indices(k, 1)
    rows = [(inst[p // per], names[iu[p % per]], names[ju[p % per]]) for p in picks.tolist()]
    return _design(rows, gen.random(len(rows)) < 0.5 if randomize_sides else None)
