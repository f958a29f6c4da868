// report.html: sort a table by a click on its header; show where a table scrolls
// sideways; open a collapsed design when a link leads into it.
(function () {
  function key(text) {
    var m = text.replace(/[<≤*\s]/g, "").match(/^-?\d*\.?\d+(e[-+]?\d+)?/i);
    return m ? parseFloat(m[0]) : null;
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("thead th").forEach(function (th, col) {
      th.addEventListener("click", function (event) {
        if (event.target.closest("a")) { return; }  // the glossary link
        var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
        var asc = th.getAttribute("aria-sort") !== "ascending";
        table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
        rows.sort(function (a, b) {
          var x = a.cells[col].textContent, y = b.cells[col].textContent;
          var kx = key(x), ky = key(y), c;
          if (kx !== null && ky !== null) { c = kx - ky; } else { c = x.localeCompare(y); }
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });

  var boxes = Array.prototype.slice.call(document.querySelectorAll(".tablebox"));
  function cue(box) {
    var s = box.querySelector(".scroll");
    if (!s || !s.clientWidth) { return; }  // in a closed design: measured when opened
    var over = s.scrollWidth > s.clientWidth + 1;
    box.classList.toggle("overflows", over);
    box.classList.toggle("more-right", over && s.scrollLeft + s.clientWidth < s.scrollWidth - 1);
  }
  boxes.forEach(function (box) {
    var s = box.querySelector(".scroll");
    if (s) { s.addEventListener("scroll", function () { cue(box); }, { passive: true }); }
    cue(box);
  });
  window.addEventListener("resize", function () { boxes.forEach(cue); });

  document.querySelectorAll("details").forEach(function (d) {
    d.addEventListener("toggle", function () {
      if (!d.open) { return; }
      d.querySelectorAll(".tablebox").forEach(cue);
      window.dispatchEvent(new Event("resize"));  // the interactive map takes its width
    });
  });
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    if (!el) { return; }
    for (var d = el.closest("details"); d; d = d.parentElement.closest("details")) { d.open = true; }
    el.scrollIntoView();
  }
  window.addEventListener("hashchange", openTarget);
  if (location.hash) { openTarget(); }
})();
