"""The test settings of a run as one typed value: checked once, taken by the designs and
the analysis, recorded in results.json and read back from it."""

from __future__ import annotations

import dataclasses

import pytest

import rrmap
from rrmap.analysis import load_result
from rrmap.errors import InputError
from rrmap.stats import Settings, compare_groups, run_designs


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"design": "paired"}, r"design must be one of \['auto', 'matched', 'independent'\]"),
        (
            {"p_adjust": "bonferroni"},
            r"p_adjust must be one of \['none', 'holm', 'fdr_bh', 'gatekept'\]",
        ),
        ({"tests": ["energy", "t"]}, r"tests must be among \['energy', 'chi2'\]"),
        ({"tests": []}, r"tests must be among"),
        ({"n_perm": -1}, "n_perm must be a non-negative integer, got -1"),
        ({"n_perm": 10**9}, r"n_perm 1000000000 is above the limit of 10000000 \(rrmap.limits\)"),
        ({"chi2_n_perm": 1.5}, "chi2_n_perm must be a non-negative integer, got 1.5"),
        ({"stop_hits": -3}, "stop_hits must be a non-negative integer or None, got -3"),
        ({"seed": -1}, "seed must be a non-negative integer or None, got -1"),
        ({"seed": True}, "seed must be a non-negative integer or None, got True"),
    ],
)
def test_settings_refuse_what_no_run_can_take(kwargs, message):
    with pytest.raises(InputError, match=message):
        Settings(**kwargs)


def test_settings_are_frozen_and_normalised():
    s = Settings(tests=["chi2", "energy", "chi2"], stop_hits=0, chi2_mc_all=1)
    assert s.tests == ("chi2", "energy") and s.stop_hits is None and s.chi2_mc_all is True
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.n_perm = 3  # type: ignore[misc]
    assert Settings.from_dict(s.to_dict()) == s
    assert s.to_dict()["permutations"] == 5000 and s.to_dict()["chi2_monte_carlo"] == 5000


def test_settings_or_keywords_not_both():
    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    kw = {"by": [], "n_perm": 99}
    with pytest.raises(InputError, match="as settings= or as keywords, not both: n_perm=99"):
        run_designs(pts, settings=Settings(), **kw)
    with pytest.raises(InputError, match=r"rng=1 and settings.seed=2 disagree"):
        compare_groups(pts, "expert", rng=1, settings=Settings(seed=2))
    with pytest.raises(InputError, match=r"settings must be a rrmap\.stats\.Settings, got dict"):
        rrmap.analyze(pts, by=[], settings={"n_perm": 9})  # type: ignore[arg-type]


def test_the_same_run_from_keywords_or_from_settings():
    pts = rrmap.points(rrmap.datasets.load_example_ratings())
    a = run_designs(pts, by=["modality"], n_perm=199, design="independent", rng=4)
    b = run_designs(pts, by=["modality"], settings=Settings(n_perm=199, design="independent",
                                                               seed=4))  # fmt: skip
    assert a.equals(b)


def test_results_json_gives_back_the_settings_of_the_run(tmp_path):
    s = Settings(n_perm=99, stop_hits=None, chi2_n_perm=199, design="matched", p_adjust="fdr_bh",
                 seed=11)  # fmt: skip
    res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], settings=s, n_boot=0)
    assert Settings.from_dict(res.settings) == s
    res.write(tmp_path / "out", figures=False)
    back = load_result(tmp_path / "out" / "results.json")
    assert Settings.from_dict(back.settings) == s
    again = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[],
                          settings=Settings.from_dict(back.settings), n_boot=0)  # fmt: skip
    assert again.tests["pvalue"].equals(res.tests["pvalue"])
    # a seed drawn when none was given is recorded, and reproduces the run
    drawn = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=99, n_boot=0)
    assert Settings.from_dict(drawn.settings).seed == drawn.settings["seed"] is not None
