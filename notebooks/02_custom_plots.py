# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Custom RRMap figures
#
# The figures of `rrmap.plot` and `rrmap.plot.ggplot` are meant to go into a paper unchanged,
# and to be a starting point when a paper needs something else. This notebook shows four
# common changes:
#
# 1. restyling the plotnine map (theme, facets, labels, colours);
# 2. highlighting one movement against the others;
# 3. drawing one rater's points over another's, with the same comparison linked;
# 4. exporting for a journal (column width, vector PDF with text as text, small files).
#
# It uses the simulated example ratings shipped with rrmap (3 raters E1–E3); see
# `docs/figures.md` for how to read an RRMap.

# %%
# %matplotlib inline
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
from IPython.display import display
from plotnine import facet_grid, facet_wrap, labs, scale_color_manual, theme, theme_bw

import rrmap
from rrmap.plot import (
    example_interval_pairs,
    ggrrmap,
    panel_artists,
    plot_interval_examples,
    plot_rrmap,
    plot_rrmap_by_rater,
    save,
    theme_rrmap,
)

plt.rcParams["figure.dpi"] = 110  # on screen; files are saved at 300 dpi
pts = rrmap.points(rrmap.datasets.load_example_ratings())
OUT = Path(tempfile.mkdtemp(prefix="rrmap_figures_"))  # change to a folder of yours
pts[["expert", "movement", "criterion", "delta", "r", "bc", "quality"]].head()

# %% [markdown]
# ## 1. Restyling the ggplot
#
# `ggrrmap` returns an ordinary `ggplot`: add a theme, facets and labels with `+`. The
# background, the zones and the zone names repeat in every facet; the points keep every
# column of the points table, so any category can be a facet. `labs(color=..., shape=...)`
# renames the legend (one legend for colour and shape), as in any ggplot.

# %%
p = (
    ggrrmap(pts, color="movement")
    + facet_wrap("expert")
    + theme_rrmap(base_size=8)
    + theme(figure_size=(7, 3.2))
    + labs(title="Generated vs historical paintings", color="Movement", shape="Movement")
)
display(p)

# %% [markdown]
# Any plotnine theme works too, and themes can be tweaked one element at a time. Here a
# `theme_bw` with the criterion groups as rows of facets, at one journal column (3.5 in):
# the legend asked for on the right does not fit there, so the plot moves it below.

# %%
p2 = (
    ggrrmap(pts, color="criterion_group", zone_labels=False)
    + facet_grid("criterion_group ~ expert")
    + theme_bw(base_size=7)
    + theme(legend_position="right", figure_size=(3.5, 4.2))
)
display(p2)

# %% [markdown]
# Colours are an ordinary scale: replace them with `scale_color_manual` (plotnine will say
# it replaces the existing scale); the markers stay, and colour and shape keep one legend.
# Keep the number of colours small and colour-blind safe.

# %%
p3 = (
    ggrrmap(pts[pts.expert == "E1"], color="criterion_group")
    + scale_color_manual(
        values={"chromatic": "#CC79A7", "eidetic": "#009E73", "topological": "#0072B2"}
    )
    + theme_rrmap()
    + theme(figure_size=(5, 3.6))
)
display(p3)

# %% [markdown]
# ## 2. Highlighting one movement
#
# Draw every point in light grey first, then the highlighted movement on top of the same
# axes, with the map's own elements switched off the second time (`background=False`,
# `zones=False`, ...). The legend then only lists what matters.

# %%
fig, ax = plt.subplots(figsize=(5.5, 4.2), layout="constrained")
plot_rrmap(pts, ax=ax, palette=["0.75"], alpha=0.5, legend=False)
cubism = pts[pts.movement == "cubism"]
plot_rrmap(
    cubism,
    "expert",
    ax=ax,
    background=False,
    zones=False,
    zone_labels=False,
    references=False,
    colorbar=False,
    size=30,
)
ax.set_title(f"cubism ({len(cubism)} comparisons) against all movements (grey)")
plt.show()

# %% [markdown]
# `panel_artists(ax)` tells what was drawn — here, how many cubism points had to be clipped
# to the edge of the view (the triangles):

# %%
print(panel_artists(ax).n_clipped, "cubism points clipped to the edge")

# %% [markdown]
# ## 3. One rater's points over another's
#
# Every comparison (movement × criterion × modality) was rated by every expert, so each E1
# point has an E3 twin. Drawing both and linking the twins shows *how* the raters disagree:
# long horizontal links are disagreements on the shift Δ, vertical ones on the dispersion R.

# %%
keys = ["movement", "criterion", "criterion_group", "modality", "modality_name"]
pair = pts[pts.expert.isin(["E1", "E3"])]
twins = (
    pair[pair.expert == "E1"]
    .merge(pair[pair.expert == "E3"], on=keys, suffixes=("_e1", "_e3"))
    .query("movement == 'impressionism'")
)
fig, ax = plt.subplots(figsize=(5.5, 4.2), layout="constrained")
plot_rrmap(
    pair[pair.movement == "impressionism"],
    "expert",
    ax=ax,
    palette={"E1": "#0072B2", "E3": "#D55E00"},
)
for _, row in twins.iterrows():
    ax.plot(
        [row.delta_e1, row.delta_e3],
        [row.r_e1, row.r_e3],
        color="0.3",
        linewidth=0.5,
        alpha=0.6,
        zorder=2.9,
    )
ax.set_title("impressionism: E1 and E3 on the same comparisons")
plt.show()

# %% [markdown]
# (The links are drawn to the true positions, so a link can leave the view where its E3
# end was clipped to the edge.)
#
# ## 4. The paper's Fig. 2 from your own intervals
#
# `plot_interval_examples` draws any list of (reference, query) interval pairs beside their
# points. The default reproduces the paper's nine examples; here three made-up pairs on a
# 1–7 scale, drawn as Gaussians:

# %%
print(example_interval_pairs().head(3))
fig = plot_interval_examples(
    [((3, 5), (3.5, 4.5)), ((3, 5), (2, 6)), ((3, 5), (4.5, 6.5))],
    gaussians=True,
    width="7in",
)

# %% [markdown]
# ## 5. Exporting for a journal
#
# Journals want figures at the printed width (≈ 85 mm for one column, ≈ 180 mm for two),
# vector files with the text kept as text, and small files. Every rrmap figure takes that
# width and lays itself out for it — type 6–8 pt, legends and colorbar inside the page —
# and `rrmap.plot.save` writes it with TrueType (Type 42) fonts, never Type 3, at exactly
# that size. The BC background is the only raster in the file.

# %%
fig = plot_rrmap_by_rater(pts, "movement", width="85mm")  # one column
pdf = save(fig, OUT / "fig4_one_column.pdf")
save(fig, OUT / "fig4_one_column.svg")
save(fig, OUT / "fig4_one_column.png", dpi=600)
data = pdf.read_bytes()
print(f"{pdf.name}: {pdf.stat().st_size / 1024:.0f} KB, {fig.get_figwidth() * 25.4:.0f} mm wide")
print("TrueType (Type 42) fonts embedded:", b"/FontFile2" in data)
print("Type 3 fonts:", b"/Subtype /Type3" in data)

# %% [markdown]
# The same for the plotnine version: `save` takes the printed size and keeps the text as
# text whatever the theme.

# %%
p = ggrrmap(pts, color="modality") + facet_wrap("expert") + theme_rrmap(base_size=7)
save(p, OUT / "rrmap_gg.pdf", width="180mm", height="70mm")
print(sorted(f.name for f in OUT.iterdir()))
