"""report.html: one self-contained page, key findings first, labels escaped, and in a real
browser (headless Chromium, skipped when absent) no error, every figure shown, no page wider
than a 1280 px or a 390 px window."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

import rrmap
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


def test_the_page_is_self_contained_and_embeds_every_figure(written):
    _, out = written
    page = (out / "report.html").read_text(encoding="utf-8")
    pngs = sorted(p.name for p in (out / "figures").glob("*.png"))
    assert page.count('<img src="data:image/png;base64,') == len(pngs) == 4
    assert not re.search(r"<(script|img|link)[^>]+(src|href)=\"(https?:)?//", page)
    assert "Key findings" in page and page.index("Key findings") < page.index("<h2>Tests</h2>")
    assert "plotly" in page.lower()  # the interactive map, plotly being installed for the tests


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


_PROBE = """<script>
window.__errors = [];
window.addEventListener('error', function (e) { window.__errors.push(String(e.message)); });
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var out = {
    errors: window.__errors,
    images: imgs.length,
    loaded: imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length,
    tables: document.querySelectorAll('table').length,
    scroll: document.documentElement.scrollWidth,
    width: window.innerWidth
  };
  parent.postMessage(JSON.stringify(out), '*');
});
</script>"""

#: A frame of the width to test (headless Chromium's window is at least 500 px wide): the
#: probed page posts what it measured, which the frame's page writes into its own DOM.
_FRAME = """<!DOCTYPE html><html><body style="margin:0">
<script>window.addEventListener('message', function (e) {
  var pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = e.data;
  document.body.appendChild(pre);
});</script>
<iframe src="probed.html" style="width:{width}px;height:900px;border:0"></iframe>
</body></html>"""


def _browser() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return name
    pytest.skip("no Chromium installed (apt-get install chromium): the page was checked as text")


@pytest.mark.parametrize("width", [1280, 390])
def test_the_page_loads_in_a_browser_and_fits_the_window(written, tmp_path, width):
    browser = _browser()
    res, out = written
    page = (out / "report.html").read_text(encoding="utf-8")
    probed = tmp_path / "probed.html"
    probed.write_text(page.replace("<head>", "<head>" + _PROBE, 1), encoding="utf-8")
    frame = tmp_path / "frame.html"
    frame.write_text(_FRAME.replace("{width}", str(width)), encoding="utf-8")
    dom = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--window-size=1400,1000",
            "--virtual-time-budget=20000",
            "--dump-dom",
            frame.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    ).stdout
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found, dom[-500:]
    probe = json.loads(found.group(1).replace("&quot;", '"'))
    assert probe["errors"] == []
    assert probe["images"] == probe["loaded"] == 4
    designs = len([d for d in rrmap.report.design_frames(res) if not d[2].empty])
    assert probe["tables"] == designs + 2  # the tests, the proportions, the reliability
    assert probe["scroll"] <= probe["width"] == width
