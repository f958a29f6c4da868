"""One family of tests: a k-sample test and its pairs, energy and zones (docs/tests.md).

A family compares the groups of one column (the raters, the query corpora, or the
options of a category) within one subset of the points. For each set of compared
groups it first chooses the design:

- **matched** (the raters, or the query corpora, when the points carry comparison
  keys): the groups rated the same keys (a query corpus's points are matched on the
  rater and the key). The energy test permutes the group labels within each key —
  among the groups present on it when some key lacks one (an incomplete design); the
  zones are compared by a Stuart–Maxwell test (two groups, on the keys both rated)
  or a within-key permutation test of the group × zone χ² statistic (more);
- **independent**: the labels are permuted over all points (the study's tests, and
  always for the options of a category), and the zones compared by Pearson's χ²
  test, with a Monte Carlo p-value where Cochran's rule fails.

``design="auto"`` takes matched wherever the groups of a test are linked by keys they
share, and says in ``note`` why a test fell back to independent (no shared key);
``design="matched"`` never falls back (a test without shared keys is not run).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rrmap._io.keys import key_codes
from rrmap._util.escape import join_groups
from rrmap._util.streams import Streams
from rrmap.errors import InputError
from rrmap.stats import _permutation as _engine
from rrmap.stats._relabellings import enumeration_size, strata_enumeration_size
from rrmap.stats.chi2 import chi2_test
from rrmap.stats.effects import EffectSize, cramers_v_effect, dispersion_effect
from rrmap.stats.energy import _energy_streams, _skip_reason, group_sets
from rrmap.stats.matched import marginal_homogeneity_test, stuart_maxwell_test
from rrmap.stats.settings import Settings
from rrmap.zones import QUALITY_LEVELS

#: Values of ``design``.

#: Columns whose groups rated the same comparison keys, and can be matched: the raters,
#: and the query corpora (generators), matched on the rater and the key.
MATCHED_GROUPS: tuple[str, ...] = ("expert", "query")

#: How a note names the groups of a matched column.
_NOUNS = {"expert": "rater", "query": "query corpus"}

_N_Q = len(QUALITY_LEVELS)


@dataclass(frozen=True)
class Columns:
    """The points as the tests read them, coded once for every family.

    ``codes[col][i]`` is the position of point i's label (as text) in
    ``names[col]`` (sorted); ``quality[i]`` is its position in
    :data:`~rrmap.zones.QUALITY_LEVELS`; ``keys[col][i]`` numbers the comparison key
    point i is matched on when the groups of *col* are compared (every category but
    the rater for ``expert``; the rater and every category for ``query``), for the
    matched columns the points carry keys for.
    """

    xy: np.ndarray
    quality: np.ndarray
    codes: dict[str, np.ndarray]
    names: dict[str, list[str]]
    keys: dict[str, np.ndarray]

    def take(self, index: np.ndarray | None, group: str) -> Columns:
        """The points *index* (None: all) with the column *group* only: what one family
        reads, and all a job is sent (a process or a cluster worker gets no more)."""
        keys = {group: self.keys[group]} if group in self.keys else {}
        if index is None:
            return Columns(
                self.xy, self.quality, {group: self.codes[group]}, {group: self.names[group]}, keys
            )
        return Columns(
            self.xy[index],
            self.quality[index],
            {group: self.codes[group][index]},
            {group: self.names[group]},
            {g: k[index] for g, k in keys.items()},
        )


def columns(points: pd.DataFrame, groups: Iterable[str], keys: list[str] | None) -> Columns:
    """Code *points* for the tests: the *groups* columns, the quality, and the keys each
    matched group is matched on (*keys*: the columns of a comparison but the rater)."""
    quality = pd.Index(list(QUALITY_LEVELS)).get_indexer(points["quality"].astype(str))
    if (quality < 0).any():
        bad = points["quality"].astype(str).to_numpy()[quality < 0]
        raise InputError(f"unknown quality level(s): {sorted(set(bad))}")
    codes, names = {}, {}
    for col in dict.fromkeys(groups):
        labels = points[col].astype(str).to_numpy(dtype=object)
        names[col] = sorted(set(labels))
        codes[col] = pd.Index(names[col]).get_indexer(labels)
    # one number per comparison key, as the ratings' pairing numbers them
    matched: dict[str, np.ndarray] = {}
    if keys:
        if "expert" in codes:
            matched["expert"] = key_codes({c: points[c] for c in keys})
        if "query" in codes:
            on = ["expert", *(c for c in keys if c != "query")]
            matched["query"] = key_codes({c: points[c] for c in on})
    xy = points[["delta", "r"]].to_numpy(dtype=float)
    return Columns(xy, quality.astype(np.intp), codes, names, matched)


@dataclass(frozen=True)
class _Plan:
    """One test of a family: its groups, its points and its design.

    ``index`` holds the positions of its points and ``local`` their group
    (0 … k − 1); for a complete matched test they are sorted by group, then by
    key, so that every group lists the same ``blocks`` keys in the same order;
    an incomplete one has ``strata``, the key of each point.
    """

    labels: list
    index: np.ndarray
    local: np.ndarray
    design: str
    blocks: int = 0
    note: str = ""
    skip: bool = False
    strata: np.ndarray | None = None

    @property
    def k(self) -> int:
        return len(self.labels)

    def row(self, test: str) -> dict:
        return {
            "test": test,
            "groups": join_groups(self.labels),
            "design": self.design,
            "n": len(self.index),
            "statistic": np.nan,
            "dof": pd.NA,
            "pvalue": np.nan,
            "p_method": "",
            "n_perm": pd.NA,
            "pvalue_mid": np.nan,
            "effect": np.nan,
            "effect_low": np.nan,
            "effect_high": np.nan,
            "effect_undefined": pd.NA,
            "effect_pooled": np.nan,
            "effect_corrected": np.nan,
            "min_expected": np.nan,
            "share_expected_below_5": np.nan,
            "note": self.note,
        }


def _plan(
    codes: np.ndarray,
    counts: np.ndarray,
    grp: tuple[int, ...],
    names: list,
    keys: np.ndarray | None,
    design: str,
    noun: str = "rater",
) -> _Plan:
    """The points and design of the test of groups *grp* (positions in *names*)."""
    labels = [names[i] for i in grp]
    local = np.full(len(names), -1, dtype=np.intp)
    local[list(grp)] = np.arange(len(grp))
    mapped = local[codes]
    idx = np.flatnonzero(mapped >= 0)
    reason = _skip_reason(labels, [int(counts[i]) for i in grp])
    if reason:
        return _Plan(labels, idx, mapped[idx], "", note=reason, skip=True)
    if keys is None or design == "independent":
        return _Plan(labels, idx, mapped[idx], "independent")
    return _match(labels, idx, mapped[idx], keys[idx], design, noun)


def _match(
    labels: list, idx: np.ndarray, lc: np.ndarray, kk: np.ndarray, design: str, noun: str
) -> _Plan:
    """A matched plan: complete (every group rated every key once: blocks), or
    incomplete (labels permuted within each key among the groups present), or — when the
    groups are not linked by shared keys — independent (``auto``) or not run."""
    k = len(labels)
    uk, inv = np.unique(kk, return_inverse=True)
    per_key = np.bincount(inv * k + lc, minlength=len(uk) * k).reshape(len(uk), k)
    n_keys = len(uk)
    if (per_key == 1).all():
        order = np.lexsort((inv, lc))
        return _Plan(labels, idx[order], lc[order], "matched", blocks=n_keys)
    alone = _unlinked(per_key > 0)
    if alone:
        what = (
            f"the {noun}s of the test share no key"
            if len(alone) == k
            else f"{', '.join(map(str, (labels[g] for g in alone)))} share(s) no key with "
            "the others"
        )
        if design == "auto":
            return _Plan(labels, idx, lc, "independent", note=f"independent design: {what}")
        return _Plan(labels, idx, lc, "matched", note=f"no matched test: {what}", skip=True)
    incomplete = int((per_key != 1).any(axis=1).sum())
    note = (
        f"matched within keys: {incomplete} of {n_keys} keys not rated once by every {noun} "
        f"of the test (labels permuted among the {noun}s present)"
    )
    return _Plan(labels, idx, lc, "matched", note=note, strata=inv)


def _unlinked(present: np.ndarray) -> list[int]:
    """Groups not linked to the first group by a chain of shared keys (all of them when no
    key is shared): *present* is keys × groups.

    Examples
    --------
    >>> _unlinked(np.array([[1, 1, 0], [0, 1, 1]], dtype=bool)), _unlinked(np.eye(2, dtype=bool))
    ([], [0, 1])
    """
    k = present.shape[1]
    shared = present[present.sum(axis=1) >= 2].astype(np.int64)
    if not len(shared):
        return list(range(k))
    link = (shared.T @ shared) > 0
    seen = {0}
    todo = [0]
    while todo:
        g = todo.pop()
        for h in np.flatnonzero(link[g]):
            if int(h) not in seen:
                seen.add(int(h))
                todo.append(int(h))
    return [g for g in range(k) if g not in seen]


def energy_rows(
    cols: Columns,
    plans: list[_Plan],
    settings: Settings,
    streams: Streams,
    by: str,
    within: str,
) -> list[dict]:
    """The energy tests of *plans*, run together (tests with the same group sizes and
    design share one stream of relabellings, made from the family and those sizes)."""
    rows, specs, runs = [], [], []
    for plan in plans:
        row = plan.row("energy")
        rows.append(row)
        if plan.skip:
            continue
        exact = _exact(plan, settings.n_perm)
        specs.append(
            _engine.PlannedTest(plan.index, plan.local, plan.k, plan.blocks, exact, plan.strata)
        )
        runs.append(row)
        row["p_method"] = "exact" if exact else "permutation"
        if settings.n_perm == 0:
            row["p_method"] = ""
            row["note"] = _join(row["note"], "statistic only: no permutations (n_perm = 0)")
    if specs:
        results = _engine.run_tests(
            cols.xy,
            specs,
            settings.n_perm,
            _energy_streams(streams, by, within),
            settings.stop_hits or None,
        )
        for row, res in zip(runs, results, strict=True):
            row.update(statistic=res.statistic, pvalue=res.pvalue, pvalue_mid=res.mid)
            row.update(effect=res.share, effect_pooled=res.share)
            row["n_perm"] = res.n_perm if settings.n_perm > 0 else pd.NA
    with _one_blas_thread(len(cols.xy)):
        for plan, row in zip(plans, rows, strict=True):
            if not plan.skip and np.isfinite(row["statistic"]):
                effect = _effect(cols.xy[plan.index], plan, 1, settings, streams, (by, within))
                _put_effect(row, effect, within_keys=plan.design == "matched")
    return rows


def _one_blas_thread(n: int) -> contextlib.AbstractContextManager:
    """One BLAS thread for the effect intervals and zone tests of a family of *n* points.

    A family of more than :data:`~rrmap.stats._permutation.SINGLE_THREAD_MAX_N` points run
    in one job keeps every BLAS thread for its relabellings; its bootstrap products would
    then split their sums among the threads in another order than in a parallel run (one
    thread per worker), and the interval bounds of a 3,000-point study differed in the
    13th digit between ``n_jobs=1`` and ``n_jobs=2``. Smaller families run on one thread
    already (no call is made).
    """
    if n <= _engine.SINGLE_THREAD_MAX_N:
        return contextlib.nullcontext()
    return _engine.blas_threads(0)


def _keys_of(plan: _Plan) -> np.ndarray | None:
    """The key of each point of a matched plan (None for an independent one)."""
    if plan.design != "matched":
        return None
    if plan.strata is not None:
        return plan.strata
    return np.arange(len(plan.index)) % plan.blocks  # grouped by group, then by key


def _effect(
    x: np.ndarray, plan: _Plan, exponent: int, settings: Settings, streams: Streams, family: tuple
) -> EffectSize:
    """The dispersion share of *x* (within keys for a matched plan), with its interval
    from the stream of the test's identity."""
    test = "energy" if exponent == 1 else "zones"
    gen = streams.generator("effect", test, *family, plan.design, *plan.labels)
    return dispersion_effect(
        x, plan.local, plan.k, _keys_of(plan), exponent=exponent, n_boot=settings.n_boot,
        rng=gen, ci=settings.ci,
    )  # fmt: skip


def _put_effect(row: dict, effect: EffectSize, within_keys: bool) -> None:
    """An effect size and its interval into *row* (the estimate too, when it is the
    within-key share of a matched test; an independent test keeps its own)."""
    if within_keys:
        row["effect"] = effect.estimate
    row.update(effect_low=effect.low, effect_high=effect.high)
    row["effect_undefined"] = effect.undefined if effect.method else pd.NA
    if effect.note:
        row["note"] = _join(row["note"], f"effect interval: {effect.note}")


def _exact(plan: _Plan, n_perm: int) -> bool:
    """Whether a matched test has at most *n_perm* relabellings (enumerated, exact p)."""
    if n_perm <= 0:
        return False
    if plan.strata is not None:
        return strata_enumeration_size(plan.local, plan.strata, n_perm) is not None
    return bool(plan.blocks) and enumeration_size(plan.k, plan.blocks, n_perm) is not None


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def zone_row(
    cols: Columns, plan: _Plan, settings: Settings, streams: Streams, by: str, within: str
) -> dict:
    """The zone test of one plan: χ² (independent), Stuart–Maxwell (two matched raters)
    or the within-key permutation test of marginal homogeneity (more)."""
    if plan.design != "matched":
        return _chi2_row(cols, plan, settings, streams, by, within)
    test = "stuart_maxwell" if plan.k == 2 else "marginal_homogeneity"
    row = plan.row(test)
    if plan.skip:
        return row
    zones = _zone_matrix(cols, plan)  # keys × groups; −1 where a group did not rate a key
    if plan.k == 2 and (zones < 0).any():  # Stuart–Maxwell: the keys both groups rated
        both = (zones >= 0).all(axis=1)
        row["note"] = _join(row["note"], f"zone test on the {int(both.sum())} keys rated by both")
        zones = zones[both]
        if not len(zones):
            row["note"] = _join(row["note"], "no key rated by both: no test")
            return row
    gen = streams.generator(test, by, within, "matched", *plan.labels)
    try:
        if plan.k == 2:
            square = np.bincount(zones[:, 0] * _N_Q + zones[:, 1], minlength=_N_Q * _N_Q)
            method = "asymptotic" if settings.chi2_n_perm == 0 else "auto"
            method = "exact" if settings.chi2_mc_all and settings.chi2_n_perm else method
            res = stuart_maxwell_test(
                square.reshape(_N_Q, _N_Q),
                method=method,
                n_perm=settings.chi2_n_perm,
                rng=gen,
                stop_hits=settings.stop_hits,
            )
        else:
            res = marginal_homogeneity_test(
                zones,
                n_levels=_N_Q,
                n_perm=settings.chi2_n_perm,
                rng=gen,
                stop_hits=settings.stop_hits,
            )
    except InputError as err:  # no discordant key, or one zone only: nothing to test
        row["note"] = _join(row["note"], f"{err}: no test")
        return row
    row.update(
        statistic=res.statistic,
        dof=res.dof if res.dof is not None else pd.NA,
        pvalue=res.pvalue,
        p_method=res.p_method,
        n_perm=res.n_perm if res.p_method in ("exact", "permutation") else pd.NA,
        pvalue_mid=res.pvalue_mid,
        effect=res.effect,
        effect_pooled=res.effect_pooled,
        effect_corrected=res.effect_corrected,
    )
    if not res.p_method:
        row["note"] = _join(row["note"], "statistic only: no permutations (chi2_n_perm = 0)")
    indicators = np.eye(_N_Q)[cols.quality[plan.index]]
    _put_effect(row, _effect(indicators, plan, 2, settings, streams, (by, within)), False)
    return row


def _zone_matrix(cols: Columns, plan: _Plan) -> np.ndarray:
    """The zones of a matched plan as a keys × groups matrix (−1: the group did not rate
    the key)."""
    quality = cols.quality[plan.index]
    if plan.strata is None:
        return quality.reshape(plan.k, plan.blocks).T
    zones = np.full((int(plan.strata.max()) + 1, plan.k), -1, dtype=np.intp)
    zones[plan.strata, plan.local] = quality
    return zones


def _chi2_row(
    cols: Columns, plan: _Plan, settings: Settings, streams: Streams, by: str, within: str
) -> dict:
    row = plan.row("chi2")
    if plan.skip:
        return row
    tab = np.bincount(plan.local * _N_Q + cols.quality[plan.index], minlength=plan.k * _N_Q)
    tab = tab.reshape(plan.k, _N_Q)
    levels = [lv for lv, tot in zip(QUALITY_LEVELS, tab.sum(axis=0), strict=True) if tot]
    if len(levels) < 2:
        row["note"] = _join(row["note"], f"all points in one quality level ({levels[0]}): no test")
        return row
    gen = streams.generator("chi2", by, within, "independent", *plan.labels)
    res = chi2_test(
        tab,
        n_perm=settings.chi2_n_perm,
        rng=gen,
        stop_hits=settings.stop_hits,
        cochran=not settings.chi2_mc_all,
    )
    row.update(
        statistic=res.statistic,
        dof=res.dof,
        pvalue=res.pvalue,
        p_method=res.p_method,
        n_perm=res.n_perm if res.p_method != "asymptotic" else pd.NA,
        pvalue_mid=res.pvalue_mid,
        effect=res.effect,
        effect_pooled=res.effect,
        effect_corrected=res.effect_corrected,
        min_expected=res.min_expected,
        share_expected_below_5=res.share_expected_below_5,
    )
    gen = streams.generator("effect", "zones", by, within, plan.design, *plan.labels)
    effect = cramers_v_effect(
        plan.local, cols.quality[plan.index], plan.k, _N_Q, n_boot=settings.n_boot, rng=gen,
        ci=settings.ci,
    )  # fmt: skip
    _put_effect(row, effect, False)
    return row


def run_family(
    cols: Columns, group: str, within: str, settings: Settings, streams: Streams
) -> list[dict]:
    """One k-sample test and its pairs, for each test kind, on the points of *cols*.

    The groups are every label of column *group* (``cols.names``); one absent
    from the points is a group with 0 points, noted like one with 1 point.
    Every random stream is made from the seed and the test's identity (family,
    design, groups or group sizes), so no p-value depends on which other
    tests run.
    """
    codes = cols.codes[group]
    names = cols.names[group]
    counts = np.bincount(codes, minlength=len(names))
    keys = cols.keys.get(group)
    noun = _NOUNS.get(group, "group")
    plans = [
        _plan(codes, counts, grp, names, keys, settings.design, noun)
        for grp in group_sets(len(names), settings.pairwise)
    ]
    out: list[dict] = []
    for kind in settings.tests:
        if kind == "energy":
            out += energy_rows(cols, plans, settings, streams, group, within)
        else:
            with _one_blas_thread(len(cols.xy)):
                out += [zone_row(cols, p, settings, streams, group, within) for p in plans]
    for rec in out:
        rec["by"] = group
        rec["within"] = within
    return out
