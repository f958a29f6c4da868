"""Labels from the user's file are drawn as their characters, inside the figure, silently.

A rater or an option called ``$\\undefinedcmd{$`` used to crash every figure (matplotlib
read it as mathtext), ``$x^2$`` was drawn as math, a 300-character name ran off the
page, and an open right-to-left override turned the rest of a title around (it is shown
as its code, ``\\u202e``, as in every other output).
"""

from __future__ import annotations

import html
import warnings

import matplotlib as mpl
import pytest
from matplotlib.legend import Legend
from matplotlib.text import Text
from plot_helpers import drawn_texts, outside_page

import rrmap
from rrmap._util.escape import display_text, short_label
from rrmap.plot import (
    plot_agreement,
    plot_proportions,
    plot_rrmap,
    plot_rrmap_by_rater,
    save_analysis_figures,
)
from rrmap.plot.base._style import figure_text, fitted_text, option_label

LONG = "L" * 120 + " a very long rater name " + "x" * 156
RTL = "\u202eevil"
RATERS = {"E1": r"$\undefinedcmd{$", "E2": "$x^2$", "E3": LONG}
MOVEMENTS = ["<b>x</b>", "a|b", "{}", "%", "_"]
OPTIONS = [r"$\undefinedcmd{$", "$x^2$", "<b>x</b>", "a|b", "{}", "%", "_", "M" * 300, RTL]
HEADER = "$group_{x}$ <i>%</i>"


def _rename(values, names):
    order = sorted(values.unique())
    return values.map(
        {v: names[i % len(names)] + "." * (i // len(names)) for i, v in enumerate(order)}
    )


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """The example ratings with the raters, options and a header renamed to hostile labels."""
    r = rrmap.datasets.load_example_ratings()
    r["expert"] = r["expert"].map(RATERS)
    r["movement"] = _rename(r["movement"], MOVEMENTS)
    r["criterion"] = _rename(r["criterion"], OPTIONS)
    r["criterion_group"] = _rename(r["criterion_group"], OPTIONS[::-1])
    r = r.drop(columns="line").rename(
        columns={"low": "low rating", "high": "high rating", "criterion_group": HEADER}
    )
    path = tmp_path_factory.mktemp("hostile") / "ratings.csv"
    r.to_csv(path, index=False)
    return rrmap.points(path)


def shown(label, limit=40):
    """What a figure should show of *label*: a bidirectional control as its code, at most
    *limit* characters."""
    return short_label(display_text(label), limit)


def matches(label, drawn):
    """*drawn* is *label* as a figure shows it, in full or cut with "…"."""
    full = display_text(label)
    return drawn == full or (drawn.endswith("…") and len(drawn) > 1 and full.startswith(drawn[:-1]))


def plain(text: Text) -> str:
    """The characters *text* draws, checking that matplotlib does not read it as math."""
    s, math = text._preprocess_math(text.get_text())
    assert math is False, text.get_text()
    return s


def legends(fig):
    """Legend title → entries, as drawn (plain text checked)."""
    found = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]
    found += [a for ax in fig.axes for a in ax.get_children() if isinstance(a, Legend)]
    return {plain(leg.get_title()): [plain(t) for t in leg.get_texts()] for leg in found}


def check_figure(fig):
    """Every drawn text is plain (no mathtext) and everything lies inside the figure."""
    texts = drawn_texts(fig)
    assert texts
    for text in fig.findobj(Text):
        if text.get_visible() and text.get_text():
            plain(text)
    assert outside_page(fig, texts=texts) == []
    return [t for t, _, _ in texts]


def test_every_analysis_figure_draws_hostile_labels_as_text(hostile, tmp_path, monkeypatch):
    from rrmap.plot import _render

    kept = []
    freeze = _render.freeze_layout

    def keep(fig):  # every analysis figure is frozen once, before it is saved
        kept.append(fig)
        freeze(fig)

    monkeypatch.setattr(_render, "freeze_layout", keep)  # keep the figures to look at them
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # one process: the figures stay here to be looked at
        files = save_analysis_figures(hostile, tmp_path, formats=["png", "pdf"], dpi=60, jobs=1)
    assert [str(w.message) for w in caught] == []
    assert sorted(f.name for f in files) == sorted(
        f"{s}.{e}"
        for s in ("rrmap_by_rater", "rrmap_grid", "proportions", "agreement")
        for e in ("png", "pdf")
    )
    by_rater, grid, proportions, agreement = kept
    for fig in kept:
        check_figure(fig)

    # panel titles: the rater as written (cut with … when longer than the panel)
    titles = [ax.get_title() for ax in by_rater.axes if ax.get_title()]
    assert titles[0] == r"\$\undefinedcmd{\$ (n = 135, 2 clipped)" or titles[0].startswith(
        r"\$\undefinedcmd{\$" + "\n"
    )
    for ax, name in zip(by_rater.axes, RATERS.values(), strict=False):
        first = plain(ax.title).split("\n")[0].split(" (n = ")[0]
        assert matches(name, first), (name, first)
    assert plain(by_rater.axes[2].title).split("\n")[0].endswith("…")
    assert legends(by_rater)["movement"] == sorted(MOVEMENTS)

    # the grid: a legend per category, headed as the file spelt it
    grid_legends = legends(grid)
    assert set(grid_legends) >= {"movement", "criterion", HEADER, "modality", "zones"}
    assert grid_legends["movement"] == sorted(MOVEMENTS)
    criteria = sorted({shown(o, 300) for o in hostile["criterion"].unique()}, key=str)
    drawn = grid_legends["criterion"]
    assert len(drawn) == len(criteria)
    assert all(any(matches(o, d) for o in criteria) for d in drawn), drawn
    assert "\\u202eevil" in drawn and RTL not in drawn  # the override shown as its code
    assert any(d.startswith("MMMM") and d.endswith("…") for d in drawn)

    # proportions: one bar per rater, named in the tick labels
    ticks = [plain(t) for t in proportions.axes[0].get_yticklabels()]
    assert ticks == [f"{shown(n, 30)} (n = 135)" for n in RATERS.values()]

    # agreement: pairs in the bars' ticks and in the matrices' titles and axis labels
    bar_ticks = [plain(t) for t in agreement.axes[0].get_yticklabels()]
    assert r"$\undefinedcmd{$ = $x^2$ ≠ " + shown(LONG, 20) in bar_ticks
    heads = [plain(ax.title) for ax in agreement.axes[1:4]]
    assert heads[0].startswith(r"$\undefinedcmd{$ × $x^2$")
    assert plain(agreement.axes[1].xaxis.label) == "$x^2$"
    assert all(matches(LONG, plain(ax.xaxis.label)) for ax in agreement.axes[2:4])


def test_labels_mapping_and_single_panel_are_plain_text(hostile):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ax = plot_rrmap(
            hostile,
            "movement",
            width="3.5in",
            labels={"movement": r"$\Delta$ {", "%": "$100$", "delta": "$\\delta$"},
        )
        check_figure(ax.figure)
    assert [str(w.message) for w in caught] == []
    leg = legends(ax.figure)
    n = int((~hostile.delta.between(-4, 4) | ~hostile.r.between(0, 2.5)).sum())
    assert leg[r"$\Delta$ {"] == [
        "$100$",
        "<b>x</b>",
        "_",
        "a|b",
        "{}",
        f"clipped to the edge ({n})",
    ]
    assert plain(ax.xaxis.label) == "$\\delta$"


@pytest.mark.parametrize(
    "width",
    ["3.5in", pytest.param("7in", marks=pytest.mark.slow)],  # 7 in: a further size
)
def test_proportions_by_a_hostile_category_fit_the_page(hostile, width):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = plot_proportions(hostile, HEADER.replace(" ", "_"), width=width)
        check_figure(fig)
        narrow = plot_rrmap_by_rater(hostile, "criterion", width=width)
        check_figure(narrow)
    assert [str(w.message) for w in caught] == []
    assert plain(fig._suptitle) == HEADER
    ticks = [plain(t) for t in fig.axes[0].get_yticklabels()]
    assert ticks[-1] == shown(OPTIONS[-1], 30)


def test_agreement_counts_do_not_depend_on_the_raters_names(pts):
    """Pairs are counted from the raters' zones: "|" and ";" in names change nothing."""
    renamed = pts.assign(expert=pts["expert"].map({"E1": "a|b", "E2": "b;c", "E3": "c|a;b"}))
    before = plot_agreement(pts)
    after = plot_agreement(renamed)
    widths = [[p.get_width() for p in fig.axes[0].patches] for fig in (before, after)]
    assert widths[0] == widths[1]
    assert sum(widths[0][4:7]) > 0
    assert [plain(t) for t in after.axes[0].get_yticklabels()][4] == "a|b = b;c ≠ c|a;b"


def test_an_option_called_clipped_stays_in_the_legend(pts):
    named = pts.assign(movement=pts["movement"].map(lambda m: f"clipped {m}"))
    fig = plot_rrmap_by_rater(named, "movement")
    assert legends(fig)["movement"] == sorted(named["movement"].unique())


def test_missing_glyphs_come_as_one_clear_warning(pts):
    odd = pts.assign(expert=pts["expert"].map({"E1": "专家", "E2": "E2", "E3": "E3"}))
    with mpl.rc_context({"font.family": "DejaVu Sans"}):
        with pytest.warns(UserWarning) as caught:
            fig = plot_rrmap_by_rater(odd, "movement")
        messages = [str(w.message) for w in caught]
        assert len(messages) == 1, messages
        assert "'专' (U+4E13), '家' (U+5BB6)" in messages[0]
        assert "DejaVu Sans" in messages[0] and "Glyph" not in messages[0]
        assert caught[0].filename == __file__  # points at the call, not into matplotlib
        with pytest.warns(UserWarning, match="U\\+4E13") as again:
            fig.savefig(__import__("io").BytesIO(), format="png", dpi=40)
        assert len(again) == 1


def test_style_helpers_escape_cut_and_fit():
    assert figure_text("$x^2$\n") == r"\$x^2\$ "
    assert figure_text("a\u202eb\u2066c") == r"a\u202eb\u2066c"
    assert figure_text("x" * 50, 10) == "x" * 9 + "…"
    assert figure_text("x" * 50, None) == "x" * 50
    assert option_label("E1", {"E1": "$E_1$"}) == r"\$E_1\$"
    from rrmap.plot.base._sizing import text_width_pt

    cut = fitted_text("W" * 100, 8.0, 1.0)
    assert cut.endswith("…") and text_width_pt(cut, 8.0) <= 72.0
    assert text_width_pt("W" + cut, 8.0) > 72.0 or len(cut) == 40
    assert fitted_text("$a$", 8.0, 1.0) == r"\$a\$"


@pytest.mark.slow
def test_ggrrmap_strips_and_legend_are_plain_text(hostile):
    from plotnine import facet_wrap, theme

    from rrmap.plot import ggrrmap

    # 40 background cells a side (200 by default): the labels do not depend on them
    labels = {"<b>x</b>": "$bold$"}
    p = ggrrmap(hostile, "movement", labels=labels, resolution=40) + facet_wrap("expert")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = (p + theme(figure_size=(7, 3.5))).draw()
        texts = check_figure(fig)
    assert [str(w.message) for w in caught] == []
    # the strips: the raters as written, the long one cut at 30 characters
    assert r"\$\undefinedcmd{\$" in texts and r"\$x^2\$" in texts
    assert figure_text(shown(LONG, 30)) in texts
    for name in ["$bold$", "a|b", "{}", "%", "_"]:
        assert figure_text(name) in texts


def test_interactive_labels_are_html_text(hostile):
    from rrmap.plot.interactive import html_text, interactive_rrmap

    fig = interactive_rrmap(hostile, "criterion", facet="expert")
    titles = [html.unescape(a.text) for a in fig.layout.annotations]
    assert titles[:2] == [r"$\undefinedcmd{$", "$x^2$"]
    assert titles[2].endswith("…") and LONG.startswith(titles[2][:-1])
    names = {t.name for t in fig.data if t.showlegend}
    assert "&lt;b&gt;x&lt;/b&gt;" in names and "<b>x</b>" not in names
    assert all("$" not in n and "<" not in n for n in names)
    assert {html.unescape(n) for n in names} >= {"<b>x</b>", "$x^2$", "\\u202eevil", "%", "a|b"}
    trace = next(t for t in fig.data if t.customdata is not None)
    assert "&#36;group_{x}&#36; &lt;i&gt;&#37;&lt;/i&gt;: %{customdata[3]}" in trace.hovertemplate
    cells = [c for row in trace.customdata for c in row[:4]]
    assert all("<" not in c and "$" not in c for c in cells if isinstance(c, str))
    assert html_text(RTL + " %{x}") == "\\u202eevil &#37;{x}"
