"""report.html in a real browser (headless Chromium; skipped with a message when absent, so
that nothing else needs it), measured with the DOM at 1280 and 390 px: a figure above the
first table; every table that is wider than its box scrolls inside it, with its cue shown
and its first column sticky; no page wider than the window; every figure shown; no error.
Measured as the page opens (the designs beyond the overall ones collapsed) and with every
design opened."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

import rrmap

# a real browser renders the page (12 s with Chromium): run in the slow tier (pytest -m slow);
# tests/test_report_html.py checks the page's markup in the README's test command
pytestmark = pytest.mark.slow

FAST = {"n_perm": 99, "n_boot": 50, "rng": 0}

#: Measures the page once loaded, then again with every <details> opened, and posts both
#: to the frame that holds it.
_PROBE = """<script>
window.__errors = [];
window.addEventListener('error', function (e) { window.__errors.push(String(e.message)); });
window.addEventListener('load', function () {
  function top(el) { return el ? el.getBoundingClientRect().top + window.scrollY : null; }
  function measure() {
    var tables = Array.prototype.slice.call(document.querySelectorAll('table'));
    return {
      figure: top(document.querySelector('figure, img')),
      table: top(tables[0]),
      tables: tables.map(function (t) {
        var box = t.parentElement, outer = t.closest('.tablebox');
        var hint = outer && outer.querySelector('.hint');
        var cell = t.querySelector('tbody td');
        return {
          scroll: box.scrollWidth, client: box.clientWidth,
          overflow: getComputedStyle(box).overflowX,
          cue: !!(hint && hint.offsetHeight > 0),
          sticky: cell ? getComputedStyle(cell).position : null
        };
      }),
      page: document.documentElement.scrollWidth,
      width: window.innerWidth
    };
  }
  var closed = measure();
  document.querySelectorAll('details').forEach(function (d) { d.open = true; });
  setTimeout(function () {
    var imgs = Array.prototype.slice.call(document.images);
    parent.postMessage(JSON.stringify({
      errors: window.__errors, closed: closed, opened: measure(), images: imgs.length,
      loaded: imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length
    }), '*');
  }, 200);
});
</script>"""

#: A frame of the width to test (headless Chromium's window may not go below 500 px): the
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
    pytest.skip("no Chromium installed (apt-get install chromium): report.html not measured")


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """An analysis whose report has a design past the row limit (criterion: 111 tests)."""
    res = rrmap.analyze(rrmap.datasets.load_example_ratings(), by=["criterion"], **FAST)
    out = tmp_path_factory.mktemp("browser") / "out"
    res.write(out, width="7in", dpi=60)
    return res, out


def _probe(out, width: int) -> dict:
    """What the probe measured of *out*/report.html in a frame *width* px wide (the probed
    copy sits beside the report, so that its figures load from figures/)."""
    browser = _browser()
    page = (out / "report.html").read_text(encoding="utf-8")
    (out / "probed.html").write_text(page.replace("<head>", "<head>" + _PROBE, 1), "utf-8")
    frame = out / "frame.html"
    frame.write_text(_FRAME.replace("{width}", str(width)), encoding="utf-8")
    try:
        dom = subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--window-size=1400,1000", "--virtual-time-budget=20000", "--dump-dom",
             frame.as_uri()],
            capture_output=True, text=True, timeout=180,
        ).stdout  # fmt: skip
    finally:
        for name in ("probed.html", "frame.html"):  # the folder stays as written
            (out / name).unlink()
    found = re.search(r'<pre id="probe">(.*?)</pre>', dom, re.S)
    assert found, dom[-500:]
    return json.loads(found.group(1).replace("&quot;", '"'))


@pytest.mark.filterwarnings("ignore::rrmap.errors.PermutationWarning")  # 99 permutations
@pytest.mark.parametrize("width", [1280, 390])
def test_the_page_reads_in_a_browser(written, width):
    res, out = written
    probe = _probe(out, width)
    assert probe["errors"] == []
    assert probe["images"] == probe["loaded"] == 4
    designs = len([d for d in rrmap.report.design_frames(res) if not d[2].empty])
    for state in ("closed", "opened"):
        seen = probe[state]
        assert len(seen["tables"]) == designs + 2  # the tests, the proportions, the reliability
        assert seen["figure"] is not None and seen["figure"] < seen["table"], state
        assert seen["page"] <= seen["width"] == width, state
        for i, table in enumerate(seen["tables"]):
            if table["scroll"] > table["client"]:
                assert table["overflow"] in ("auto", "scroll"), (state, i, table)
                assert table["cue"], (state, i, table)
            if table["client"]:
                assert table["sticky"] == "sticky", (state, i, table)
    # the check is not empty: every design open, the wide tables overflow at this width
    wide = [t for t in probe["opened"]["tables"] if t["scroll"] > t["client"] > 0]
    assert len(wide) >= (3 if width == 1280 else designs)
