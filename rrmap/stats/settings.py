"""How the tests of a run are made, as one typed value (docs/tests.md).

:class:`Settings` holds what every test of a run shares — the test kinds, the
permutations and Monte Carlo draws, sequential stopping, the design, the p-value
adjustment, the seed. The command line builds one from its options; :func:`rrmap.analyze`
and :func:`rrmap.stats.run_designs` take one (or the same values as keywords), and
``results.json`` holds it (:meth:`Settings.to_dict`, :meth:`Settings.from_dict`), so a run
can be repeated from its result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from rrmap._util.interval_methods import CI_METHODS, check_ci
from rrmap.errors import InputError
from rrmap.limits import MAX_BOOTSTRAP, MAX_MONTE_CARLO, MAX_PERMUTATIONS, check_count

__all__ = [
    "ALPHA",
    "CI_METHODS",
    "DEFAULT_CHI2_N_PERM",
    "DEFAULT_STOP_HITS",
    "DESIGNS",
    "P_ADJUST_METHODS",
    "TEST_KINDS",
    "Settings",
    "resolve",
]

#: The level p-values are marked at in every report (evidence, not a verdict).
ALPHA = 0.05

#: Values of ``design``.
DESIGNS: tuple[str, ...] = ("auto", "matched", "independent")

#: Values of ``p_adjust``.
P_ADJUST_METHODS: tuple[str, ...] = ("none", "holm", "fdr_bh", "gatekept")

#: Test kinds (``"chi2"``: the zone tests).
TEST_KINDS: tuple[str, ...] = ("energy", "chi2")

#: Besag–Clifford ``h`` of the sequential p-values (docs/tests.md): a test stops once this
#: many relabellings (or Monte Carlo draws) reached the observed statistic.
DEFAULT_STOP_HITS = 100

#: Monte Carlo draws of the zone tests by default (where a χ² p-value needs them).
DEFAULT_CHI2_N_PERM = 5000

#: How ``results.json`` names each field (the names it has always had).
_RECORDED = {
    "tests": "tests",
    "n_perm": "permutations",
    "stop_hits": "stop_hits",
    "chi2_n_perm": "chi2_monte_carlo",
    "chi2_mc_all": "chi2_monte_carlo_all",
    "design": "design",
    "p_adjust": "p_adjust",
    "pairwise": "pairwise",
    "seed": "seed",
    "n_boot": "effect_bootstrap",
    "ci": "ci",
    "mid_p": "mid_p",
}


@dataclass(frozen=True)
class Settings:
    """How the tests of a run are made: checked once, shared by every test.

    Parameters
    ----------
    tests : sequence of {"energy", "chi2"}, default both
        Test kinds (``"chi2"``: the zone tests).
    n_perm : int, default 5000
        Maximum relabellings per energy test (``B``, at most
        :data:`rrmap.limits.MAX_PERMUTATIONS`).
    stop_hits : int or None, default 100
        Sequential p-values: a test stops once this many draws reached its statistic;
        None (or 0) always draws ``B``.
    chi2_n_perm : int, default 5000
        Monte Carlo draws of zone tests whose asymptotic p-value is unreliable, and of the
        within-key permutation tests; 0: asymptotic everywhere, as the study.
    chi2_mc_all : bool, default False
        Monte Carlo (or exact) p-values for every zone test.
    design : {"auto", "matched", "independent"}, default "auto"
        Matched tests where the groups rated the same keys (see
        :func:`rrmap.stats.compare_groups`).
    p_adjust : {"holm", "fdr_bh", "gatekept", "none"}, default "holm"
        Adjusted p-values within each family (``"gatekept"``: the k-sample test at the
        level, its pairs Holm-adjusted and reported only where it rejects).
    pairwise : bool, default True
        Every pair of groups after the k-sample test.
    seed : int or None, default None
        The root of every random stream (None: drawn from the operating system's entropy
        when the run starts, and recorded).
    n_boot : int, default 1000
        Bootstrap resamples of the intervals of the effect sizes (0: no intervals);
        recorded as ``effect_bootstrap`` (``bootstrap`` is the reliability's, an argument
        of :func:`rrmap.analyze`).
    ci : {"bca", "percentile"}, default "bca"
        Interval method of the effect sizes (:func:`rrmap.bootstrap.bootstrap_interval`).
    mid_p : bool, default False
        Mark (and adjust, and count) the mid-p values (``pvalue_mid``) instead of the
        conventional ones; both are always in the table.

    Raises
    ------
    InputError
        A value out of its range, named with the accepted ones.

    Examples
    --------
    >>> s = Settings(n_perm=999, design="independent", p_adjust="none", seed=3)
    >>> s.n_perm, s.tests
    (999, ('energy', 'chi2'))
    >>> Settings.from_dict(s.to_dict()) == s
    True
    >>> Settings(design="paired")
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: design must be one of ['auto', 'matched', 'independent'], got 'paired'
    """

    tests: tuple[str, ...] = TEST_KINDS
    n_perm: int = 5000
    stop_hits: int | None = DEFAULT_STOP_HITS
    chi2_n_perm: int = DEFAULT_CHI2_N_PERM
    chi2_mc_all: bool = False
    design: str = "auto"
    p_adjust: str = "holm"
    pairwise: bool = True
    seed: int | None = None
    n_boot: int = 1000
    ci: str = "bca"
    mid_p: bool = False

    def __post_init__(self) -> None:
        checked = {
            "tests": _tests(self.tests),
            "n_perm": check_count("n_perm", self.n_perm, MAX_PERMUTATIONS),
            "stop_hits": _stop_hits(self.stop_hits),
            "chi2_n_perm": check_count("chi2_n_perm", self.chi2_n_perm, MAX_MONTE_CARLO),
            "chi2_mc_all": bool(self.chi2_mc_all),
            "pairwise": bool(self.pairwise),
            "seed": _seed(self.seed),
            "n_boot": check_count("n_boot", self.n_boot, MAX_BOOTSTRAP),
            "ci": check_ci(self.ci),
            "mid_p": bool(self.mid_p),
        }
        _one_of("design", self.design, DESIGNS)
        _one_of("p_adjust", self.p_adjust, P_ADJUST_METHODS)
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    def to_dict(self) -> dict[str, Any]:
        """The settings as ``results.json`` records them (``permutations``,
        ``chi2_monte_carlo``, … as they have always been named)."""
        return {
            _RECORDED[f.name]: list(v) if isinstance(v := getattr(self, f.name), tuple) else v
            for f in fields(self)
        }

    @classmethod
    def from_dict(cls, recorded: Mapping[str, Any]) -> Settings:
        """The settings of a run, from its ``results.json`` settings (or :meth:`to_dict`);
        keys it does not hold keep their defaults."""
        given = {f: recorded[k] for f, k in _RECORDED.items() if k in recorded}
        if "tests" in given:
            given["tests"] = tuple(given["tests"])
        return cls(**given)


def resolve(
    settings: Settings | None,
    rng: Any = None,
    **given: Any,
) -> tuple[Settings, Any]:
    """The settings of a call that takes them either as *settings* or as keywords, and its
    seed (*rng* if given, else the settings' seed).

    Keywords left at their defaults are ignored when *settings* is given; any other is an
    error, as is a *rng* that disagrees with ``settings.seed``.

    Examples
    --------
    >>> resolve(None, 0, n_perm=99)[0].n_perm, resolve(Settings(seed=4), None)[1]
    (99, 4)
    >>> resolve(Settings(), None, n_perm=99)
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: give the test settings as settings= or as keywords, not both: n_perm=99
    """
    if settings is None:
        return Settings(**given), rng
    if not isinstance(settings, Settings):
        raise InputError(f"settings must be a rrmap.stats.Settings, got {type(settings).__name__}")
    defaults = Settings()
    changed = [k for k, v in given.items() if v != getattr(defaults, k)]
    if changed:
        raise InputError(
            "give the test settings as settings= or as keywords, not both: "
            + ", ".join(f"{k}={given[k]!r}" for k in changed)
        )
    if rng is not None and settings.seed is not None and rng != settings.seed:
        raise InputError(f"rng={rng!r} and settings.seed={settings.seed!r} disagree")
    return settings, rng if rng is not None else settings.seed


def _one_of(name: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise InputError(f"{name} must be one of {list(choices)}, got {value!r}")


def _tests(tests: Sequence[str] | str) -> tuple[str, ...]:
    kinds = tuple([tests] if isinstance(tests, str) else tests)
    bad = [t for t in kinds if t not in TEST_KINDS]
    if bad or not kinds:
        raise InputError(f"tests must be among {list(TEST_KINDS)}, got {list(kinds)}")
    return tuple(dict.fromkeys(kinds))


def _stop_hits(stop_hits: int | None) -> int | None:
    """*stop_hits* as the engine takes it: a positive integer, or None (0 means None)."""
    if stop_hits is not None and (
        isinstance(stop_hits, bool) or int(stop_hits) != stop_hits or stop_hits < 0
    ):
        raise InputError(f"stop_hits must be a non-negative integer or None, got {stop_hits!r}")
    return int(stop_hits) if stop_hits else None


def _seed(seed: int | None) -> int | None:
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"seed must be a non-negative integer or None, got {seed!r}")
    return int(seed)


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
