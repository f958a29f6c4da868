"""report.html as a reader's page: key findings, then the maps with how to read them, then
the tests (the overall ones open); every table in a scroll box with its headers linked to a
glossary; long groups labels named; long designs summarised; figures from their files; labels
escaped. In a real browser: tests/test_report_html_browser.py."""

from __future__ import annotations

import re

import pytest

import rrmap
from rrmap.report.format import MEASURE_NAMES
from rrmap.report.html import key_findings, render_html

FAST = {"n_perm": 99, "n_boot": 50, "rng": 0}


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=["modality"], **FAST)
    out = tmp_path_factory.mktemp("html") / "out"
    res.write(out, width="7in", dpi=60)
    return res, out


def test_the_findings_say_what_the_tests_table_says(written):
    res, _ = written
    tests = res.tests
    overall = tests[(tests["within"] == "all") & (tests["groups"] == "E1|E2|E3")]
    energy = overall[overall["test"] == "energy"].iloc[0]
    lines = key_findings(res)
    differ = "differ" if energy["pvalue_holm"] < 0.05 else "show no significant difference"
    assert lines[0].startswith(f"Expert effect overall: on the (Δ, R) points the raters {differ}")
    assert f"{100 * energy['effect']:.1f} %" in lines[0]
    per_rater = tests[(tests["by"] == "modality") & (tests["test"] == "energy")]
    k_sample = per_rater.groupby("within", sort=False).head(1)
    hits = int((k_sample["pvalue_holm"] < 0.05).sum())
    assert f"significant on the (Δ, R) points for {hits} of 3 raters" in lines[1]
    props = res.proportions
    e1 = props[(props["expert"] == "E1") & (props["category"] == "all")]
    share = e1.set_index("quality")["share"]
    assert f"Quality zones of E1: {100 * share['excellent']:.0f} % excellent [" in lines[2]


def test_the_page_shows_the_figures_from_their_files_and_embeds_none(written):
    _, out = written
    page = (out / "report.html").read_text(encoding="utf-8")
    pngs = sorted(p.name for p in (out / "figures").glob("*.png"))
    assert len(pngs) == 4 and '<img src="data:' not in page  # each figure once: its file
    for name in pngs:
        pdf = name.replace(".png", ".pdf")
        assert f'<a class="full" href="figures/{name}" title="Open full size">' in page
        assert f'<img src="figures/{name}" alt="' in page
        assert f'<a href="figures/{pdf}">PDF</a>' in page
    assert not re.search(r"<(script|img|link)[^>]+(src|href)=\"(https?:)?//", page)
    order = ['id="findings"', 'id="maps"', 'id="proportions"', 'id="tests"', 'id="glossary"']
    assert [page.index(s) for s in order] == sorted(page.index(s) for s in order)
    assert page.index("<figure") < page.index("<table")
    assert "plotly" in page.lower()  # the interactive map, plotly being installed for the tests


def test_the_maps_say_how_to_read_them(written):
    _, out = written
    page = (out / "report.html").read_text(encoding="utf-8")
    by_rater = page[page.index('<img src="figures/rrmap_by_rater.png"') :]
    caption = by_rater[: by_rater.index("</figcaption>")]
    assert "<b>The map, per rater.</b> Each point is one" in caption
    assert (
        "excellent (BC &gt; 0.98); the solid rectangle, fair (|Δ| &lt; 2, 2/3 ≤ R ≤ 1.5)" in caption
    )
    assert 'Shading: the <a href="#gl-bc">Bhattacharyya coefficient</a>' in caption
    assert "<b>Quality proportions.</b> For each rater" in page


def test_the_captions_and_the_glossary_use_the_thresholds_of_the_run(example_points, tmp_path):
    from rrmap.zones import Thresholds

    res = rrmap.analyze(
        rrmap.datasets.load_example_ratings(),
        by=[],
        thresholds=Thresholds(excellent_bc=0.95, delta_bound=1.96),
        **FAST,
    )
    png = tmp_path / "m.png"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(16))
    page = render_html(res, {"figures/rrmap_by_rater.png": png}, interactive=False)
    assert "excellent (BC &gt; 0.95); the solid rectangle, fair (|Δ| &lt; 1.96," in page
    assert "<b>excellent</b>: BC &gt; 0.95; <b>stereotype</b>: |Δ| &lt; 1.96 and R &lt; 2/3" in page


def test_embed_figures_puts_the_pngs_into_the_page(written):
    res, out = written
    figures = {f"figures/{p.name}": p for p in (out / "figures").iterdir()}
    page = render_html(res, figures, interactive=False, embed_figures=True)
    assert page.count('<img src="data:image/png;base64,') == 4
    assert 'href="figures/' not in page  # nothing to open beside a page sent alone


def test_the_overall_tests_are_open_and_every_other_design_collapsed(written):
    res, out = written
    page = (out / "report.html").read_text(encoding="utf-8")
    details = re.findall(r'<details class="design" id="design-(\d+)"( open)?>\s*<summary><h3>(.*?)</h3>'
                         r'<span class="count">(.*?)</span>', page)  # fmt: skip
    assert [(title, bool(opened)) for _, opened, title, _ in details] == [
        ("Expert effect, overall", True),
        ("Expert effect per modality", False),
        ("Effect of modality per rater", False),
    ]
    tests = res.tests
    overall = tests[tests["within"] == "all"]
    hits = overall.groupby("groups")["pvalue_holm"].min().lt(0.05).sum()
    assert details[0][3] == f"4 comparisons, {hits} with p &lt; 0.05"


def test_every_table_scrolls_in_its_box_and_its_headers_link_to_the_glossary(written):
    _, out = written
    page = (out / "report.html").read_text(encoding="utf-8")
    tables = page.count("<table")
    boxed = re.findall(
        r'<div class="frame"><div class="scroll[^"]*" tabindex="0"[^>]*><table', page
    )
    assert tables == len(boxed) > 0
    assert 'E share<a class="gl" href="#gl-e-share" aria-label="E share: in the glossary">' in page
    assert 'p Holm (energy)<a class="gl" href="#gl-holm"' in page
    linked = set(re.findall(r'href="#(gl-[a-z-]+)"', page))
    assert {"gl-e-share", "gl-v", "gl-holm", "gl-p", "gl-interval", "gl-alpha"} <= linked
    assert all(f'id="{g}"' in page for g in linked), linked - set(
        re.findall(r'id="(gl-[a-z-]+)"', page)
    )
    terms = " / ".join(re.findall(r'<dt id="gl-[a-z-]+">(.*?)</dt>', page))
    for term in ("E share", "SM, MH", "Cramér's V", "α, Krippendorff", "κ, Fleiss", "p Holm",
                 "the bracketed intervals", "(perm.), (exact), (MC)"):  # fmt: skip
        assert term in terms, (term, terms)


@pytest.mark.filterwarnings("ignore::rrmap.errors.PermutationWarning")  # 99 permutations
def test_a_long_groups_label_is_named_and_listed_on_hover():
    labels = rrmap.datasets.load_example_ratings()
    labels["criterion"] = labels["criterion"].replace(
        {"top-bottom": '"><script>alert(1)</script>', "left-right": "abc\u202edef"}
    )
    res = rrmap.analyze(labels, by=["criterion"], **FAST)
    page = render_html(res, interactive=False)
    assert "<script>alert(1)</script>" not in page and "\u202e" not in page
    listed = re.search(r'<span class="many" title="([^"]*)">all 9 criteria</span>', page)
    assert listed, "no shortened groups label"
    shown = listed.group(1).split("&#10;")
    assert len(shown) == 9 and "abc\\u202edef" in shown
    assert "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in shown
    assert "|" not in listed.group(1)


@pytest.mark.filterwarnings("ignore::rrmap.errors.PermutationWarning")  # 99 permutations
def test_a_design_past_the_row_limit_is_summarised_by_family():
    from rrmap.report.page import ROW_LIMIT

    res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=["criterion"], **FAST)
    per_rater = res.tests[res.tests["by"] == "criterion"]
    n = per_rater.groupby(["within", "groups"]).ngroups
    assert n == 111 > ROW_LIMIT
    page = render_html(res, interactive=False)
    section = page[page.index("<h3>Effect of criterion per rater</h3>") :]
    section = section[: section.index("</details>")]
    assert section.count("<tr>") == 1 + 3  # the header, one row per rater
    assert (
        "111 comparisons in 3 families: each family&#39;s test of all its groups at once, and how "
        "many of its pairs pass p &lt; 0.05. Every test, pairs included: tests.csv."
    ) in section
    energy = per_rater[per_rater["test"] == "energy"]
    pairs = energy[energy["groups"].str.count(r"(?<!\\)\|") == 1]
    e1 = pairs[pairs["within"] == "expert=E1"]
    assert f"{int((e1['pvalue_holm'] < 0.05).sum())} of 36" in section


def test_the_interactive_map_past_its_limit_is_left_out_with_a_way_to_make_it(written, monkeypatch):
    import rrmap.report.html as html

    res, out = written
    monkeypatch.setattr(html, "MAP_LIMIT", 100)
    figures = {"figures/proportions.png": out / "figures" / "proportions.png"}
    page = render_html(res, figures, interactive="<div>" + "x" * 2_000_000 + "</div>")
    assert "x" * 1000 not in page
    assert (
        "The interactive map is left out of this page (2.0 MB, over the page's limit); make it "
        "on its own with <code>rrmap plot RATINGS -o map.html</code>."
    ) in page


def test_labels_are_escaped_in_the_page(example_points):
    pts = example_points.assign(
        expert=example_points["expert"].map(
            {"E1": "<script>alert(1)</script>", "E2": "a&b", "E3": '"q"'}
        )
    )
    res = rrmap.analyze(pts, by=[], **FAST)
    page = render_html(res, interactive=False)
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "a&amp;b" in page


def test_a_reliability_that_rounds_to_zero_reads_zero_in_both_reports():
    """−0.0004999 is 0.000 at three decimals (no "-0.000"); −0.0005001 is −0.001."""
    res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=[], n_perm=19, n_boot=20, rng=0)
    rel = res.reliability
    rel.loc[rel.index[0], ["value", "ci_low", "ci_high"]] = [-0.0004999, -0.0005001, -1e-12]
    first = MEASURE_NAMES[rel["measure"].iloc[0]]
    row = next(line for line in res.report().splitlines() if f"| {first} |" in line)
    assert "| 0.000 | \\[-0.001, 0.000\\] |" in row and "-0.000" not in row
    page = render_html(res, interactive=False)
    assert "[-0.001, 0.000]" in page and "-0.000" not in page
    row = next(r for r in page.split("<tr") if "[-0.001, 0.000]" in r)
    cells = re.findall(r"<td([^>]*)>([^<]*)</td>", row)
    # three decimals as in report.md, and aligned as the numbers they are
    assert cells[-3] == (' class="num"', "0.000") and cells[-2][1] == "[-0.001, 0.000]"
