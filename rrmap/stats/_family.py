"""One family of tests: a k-sample test and its pairs, energy and zones (docs/tests.md).

A family compares the groups of one column (the raters, or the options of a
category) within one subset of the points. For each set of compared groups
it first chooses the design:

- **matched** (expert effect only, when the points carry comparison keys):
  every rater of the test rated every key once. The energy test permutes the
  rater labels within each key; the zones are compared by a Stuart–Maxwell
  test (two raters) or a within-key permutation test of the rater × zone χ²
  statistic (more raters);
- **independent**: the labels are permuted over all points (the study's
  tests), and the zones compared by Pearson's χ² test, with a Monte Carlo
  p-value where Cochran's rule fails.

``design="auto"`` takes matched wherever every rater of a test rated every
key of it, and says in ``note`` why a test fell back to independent;
``design="matched"`` leaves out the keys a rater lacks (counted in ``note``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from rrmap._escape import join_groups
from rrmap._streams import Streams
from rrmap.errors import InputError
from rrmap.ratings import _key_codes
from rrmap.stats import _permutation as _engine
from rrmap.stats._relabellings import enumeration_size
from rrmap.stats.chi2 import chi2_test
from rrmap.stats.energy import DEFAULT_STOP_HITS, _energy_streams, _group_sets, _skip_reason
from rrmap.stats.matched import marginal_homogeneity_test, stuart_maxwell_test
from rrmap.zones import QUALITY_LEVELS

#: Values of ``design``.
DESIGNS: tuple[str, ...] = ("auto", "matched", "independent")

_N_Q = len(QUALITY_LEVELS)


@dataclass(frozen=True)
class Columns:
    """The points as the tests read them, coded once for every family.

    ``codes[col][i]`` is the position of point i's label (as text) in
    ``names[col]`` (sorted); ``quality[i]`` is its position in
    :data:`~rrmap.zones.QUALITY_LEVELS`; ``keys[i]`` numbers its comparison key
    (every category but the rater), None when the points carry no keys.
    """

    xy: np.ndarray
    quality: np.ndarray
    codes: dict[str, np.ndarray]
    names: dict[str, list[str]]
    keys: np.ndarray | None = None

    def take(self, index: np.ndarray | None, group: str) -> Columns:
        """The points *index* (None: all) with the column *group* only: what one family
        reads, and all a job is sent (a process or a cluster worker gets no more)."""
        keys = self.keys if group == "expert" else None
        if index is None:
            return Columns(
                self.xy, self.quality, {group: self.codes[group]}, {group: self.names[group]}, keys
            )
        return Columns(
            self.xy[index],
            self.quality[index],
            {group: self.codes[group][index]},
            {group: self.names[group]},
            None if keys is None else keys[index],
        )


def columns(points: pd.DataFrame, groups: Iterable[str], keys: list[str] | None) -> Columns:
    """Code *points* for the tests: the *groups* columns, the quality, the key columns."""
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
    key_codes = _key_codes({c: points[c] for c in keys}) if keys else None
    xy = points[["delta", "r"]].to_numpy(dtype=float)
    return Columns(xy, quality.astype(np.intp), codes, names, key_codes)


@dataclass(frozen=True)
class Settings:
    """What every family of a run shares: the tests and their permutation settings."""

    tests: tuple[str, ...]
    n_perm: int
    chi2_n_perm: int
    pairwise: bool = True
    stop_hits: int | None = DEFAULT_STOP_HITS
    design: str = "auto"
    chi2_mc_all: bool = False


@dataclass(frozen=True)
class _Plan:
    """One test of a family: its groups, its points and its design.

    ``index`` holds the positions of its points and ``local`` their group
    (0 … k − 1); for a matched test they are sorted by group, then by key, so
    that every group lists the same ``blocks`` keys in the same order.
    """

    labels: list
    index: np.ndarray
    local: np.ndarray
    design: str
    blocks: int = 0
    note: str = ""
    skip: bool = False

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
            "effect": np.nan,
            "effect_corrected": np.nan,
            "min_expected": np.nan,
            "share_expected_below_5": np.nan,
            "note": self.note,
        }


def _plan(
    codes: np.ndarray, counts: np.ndarray, grp: tuple[int, ...], names: list, keys, design: str
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
    return _match(labels, idx, mapped[idx], keys[idx], design)


def _match(labels: list, idx: np.ndarray, lc: np.ndarray, kk: np.ndarray, design: str) -> _Plan:
    """A matched plan on the keys every group rated exactly once (or, with ``auto`` and
    a key missing, an independent one that says why)."""
    k = len(labels)
    uk, inv = np.unique(kk, return_inverse=True)
    per_key = np.bincount(inv * k + lc, minlength=len(uk) * k).reshape(len(uk), k)
    complete = (per_key == 1).all(axis=1)
    n_keys, n_complete = len(uk), int(complete.sum())
    missing = n_keys - n_complete
    if design == "auto" and missing:
        note = (
            f"independent design: {missing} of {n_keys} keys not rated exactly once by "
            "every rater of the test"
        )
        return _Plan(labels, idx, lc, "independent", note=note)
    if n_complete == 0:
        note = "no key rated exactly once by every rater of the test: no matched test"
        return _Plan(labels, idx, lc, "matched", note=note, skip=True)
    keep = complete[inv]
    idx, lc, inv = idx[keep], lc[keep], inv[keep]
    order = np.lexsort((inv, lc))
    note = (
        f"matched on {n_complete} of {n_keys} keys ({missing} not rated exactly once by "
        "every rater left out)"
        if missing
        else ""
    )
    return _Plan(labels, idx[order], lc[order], "matched", blocks=n_complete, note=note)


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
        exact = bool(plan.blocks) and settings.n_perm > 0
        exact = exact and enumeration_size(plan.k, plan.blocks, settings.n_perm) is not None
        specs.append(_engine.PlannedTest(plan.index, plan.local, plan.k, plan.blocks, exact))
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
            row.update(statistic=res.statistic, pvalue=res.pvalue, effect=res.share)
            row["n_perm"] = res.n_perm if settings.n_perm > 0 else pd.NA
    return rows


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
    zones = cols.quality[plan.index].reshape(plan.k, plan.blocks).T  # keys × raters
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
        effect=res.effect,
        effect_corrected=res.effect_corrected,
    )
    if not res.p_method:
        row["note"] = _join(row["note"], "statistic only: no permutations (chi2_n_perm = 0)")
    return row


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
        effect=res.effect,
        effect_corrected=res.effect_corrected,
        min_expected=res.min_expected,
        share_expected_below_5=res.share_expected_below_5,
    )
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
    keys = cols.keys if group == "expert" else None
    plans = [
        _plan(codes, counts, grp, names, keys, settings.design)
        for grp in _group_sets(len(names), settings.pairwise)
    ]
    out: list[dict] = []
    for kind in settings.tests:
        if kind == "energy":
            out += energy_rows(cols, plans, settings, streams, group, within)
        else:
            out += [zone_row(cols, p, settings, streams, group, within) for p in plans]
    for rec in out:
        rec["by"] = group
        rec["within"] = within
    return out
