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
# # A walk-through of the RRMap study design
#
# This notebook follows the design of the RRMap study (Deliège et al., 2025) on the
# example data shipped with rrmap: experts rate, on a 0–100 scale and as an interval, how
# strongly a criterion (e.g. *sharp–blurry*) holds for a reference corpus (historical
# paintings of a movement, of a painter) and for a query corpus (images generated for the
# same movement or painter). Each pair of intervals becomes one point of the Relative
# Ratings Map.
#
# **The example ratings are simulated**: they mirror the study's design (3 raters × 5
# movements × 3 modalities × 9 criteria) but are random numbers, not the experts' ratings.
# Nothing below says anything about real art or real models.
#
# Steps: load → points → quality proportions → agreement between raters → tests → figures.

# %%
# %matplotlib inline
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display

import rrmap
from rrmap.plot import (
    plot_agreement,
    plot_interval_examples,
    plot_proportions,
    plot_rrmap_by_rater,
    plot_rrmap_grid,
)

pd.set_option("display.width", 120)
# figures are laid out for their printed width (7 in = two journal columns); 110 dpi on
# screen keeps the notebook small (files are saved at 300 dpi)
plt.rcParams["figure.dpi"] = 110

# %% [markdown]
# ## 1. Load the ratings
#
# `load_ratings` validates the file (every problem at once, with line numbers) and returns a
# tidy table with snake_case columns: one row per rated interval, `low`/`high` its bounds,
# `origin` saying reference (`real`) or query (`generated`). Files with other column names or
# scales load by naming the roles (`rater=`, `origin=`, `low=`, `high=`, `scale=`...).

# %%
ratings = rrmap.load_ratings(rrmap.datasets.example_ratings_path())
print(ratings.shape)
ratings[["expert", "movement", "criterion", "modality_name", "origin", "low", "high"]].head(4)

# %% [markdown]
# ## 2. From intervals to RRMap points
#
# Each interval is read as a 95 % range of a Gaussian, `m = (low + high)/2`,
# `s = (high − low)/(2·1.96)`. For one rater and one combination of categories, the query
# Gaussian is compared with the reference one:
#
# - **Δ = (m_query − m_ref) / s_ref**, the relative shift (0 = same centre);
# - **R = s_query / s_ref**, the relative dispersion (1 = same spread, < 1 narrower);
# - **BC**, the Bhattacharyya coefficient, the overlap of the two Gaussians (1 = identical);
# - **quality**: *excellent* if BC > 0.98; else *stereotype* if |Δ| < 2 and R < 2/3 (centred
#   but narrower: the query repeats a reduced version of the reference); else *fair* if
#   |Δ| < 2 and 2/3 ≤ R ≤ 3/2; else *bad*.

# %%
pts = rrmap.points(ratings)
print(len(pts), "points")
pts[["expert", "movement", "criterion", "modality", "delta", "r", "bc", "quality"]].head()

# %% [markdown]
# Δ and R do not depend on where on the scale a rater puts the intervals, only on how the
# two intervals sit relative to each other — the paper's two examples give the same point:

# %%
print(rrmap.compare_intervals((30, 40), (35, 45)))
print(rrmap.compare_intervals((60, 80), (70, 90)))

# %% [markdown]
# The paper's Fig. 2 shows nine such pairs: a reference interval [30, 50] and query
# intervals shifted, compressed or dilated, beside their points on the map — here at the
# width of two journal columns:

# %%
fig = plot_interval_examples(width="7in")

# %% [markdown]
# ## 3. Quality proportions
#
# The share of each rater's points in each zone. Read it as a profile of the rater's
# judgement of the query corpus: many *stereotypes* mean the generated images were judged
# centred on the reference but narrower (less diverse); many *bad* points mean shifted or
# much wider judgements.

# %%
rrmap.proportions(pts, wide=True)

# %% [markdown]
# As a figure, in the colours every rrmap figure gives the quality levels:

# %%
fig = plot_proportions(pts, width="7in")

# %% [markdown]
# The same per option of a category, e.g. per movement (counts and shares, the four levels
# always in the order excellent, fair, stereotype, bad):

# %%
by_movement = rrmap.proportions(pts, by="movement")
by_movement.pivot_table(index=["expert", "movement"], columns="quality", values="share").round(2)

# %% [markdown]
# ## 4. Do the raters agree, comparison by comparison?
#
# Every comparison was rated by all three raters. For each one, `agreement` records the
# zones they put it in; the summary counts comparisons where all agree (and on which zone),
# where all three differ, and where exactly one pair agrees (which pair).

# %%
rrmap.agreement_summary(rrmap.agreement(pts))

# %% [markdown]
# The figure shows the same counts, then for each pair of raters which zone one rater chose
# when the other chose another (the diagonal is where they agree):

# %%
fig = plot_agreement(pts, width="7in")

# %% [markdown]
# ## 5. Tests: expert effects and category effects
#
# `rrmap.analyze` runs the study's three designs with two kinds of test:
#
# - the **energy test** compares the 2-D distributions of points (Δ, R) — location, spread and
#   shape — with a permutation p-value;
# - a **zone test** compares the quality proportions (the four zones): Pearson's χ² for
#   independent samples, and, for raters who rated the same comparisons, a test of marginal
#   homogeneity (Stuart–Maxwell for two raters, a within-comparison permutation test for more).
#
# Designs: the *expert effect overall* (all raters, then each pair), the *expert effect per
# option* (the same within each movement, modality...), and the *category effect per expert*
# (for each rater, do the options of a category differ?). Here every rater rated every
# comparison, so the expert-effect tests are *matched*: the rater labels are permuted within
# each comparison, not across all of them (`design="independent"` runs the paper's tests).
#
# The paper uses 5000 permutations; this notebook uses 499 to run in seconds, so the smallest
# possible energy p-value here is 1/500 = 0.002. The seed is recorded with the results.

# %%
res = rrmap.analyze(ratings, by=["movement", "modality"], n_perm=499, rng=0)
display(res)

# %% [markdown]
# **How to read a p-value.** A small p (say < 0.05) is evidence against the hypothesis that
# the groups' points come from one and the same distribution — here, that E1, E2 and E3 put
# the comparisons in the same places of the map. It is not the size of the difference (the
# `effect` column says that: the between-group share of the energy dispersion, or Cramér's V
# of the zones), not the probability that the hypothesis is true, and, with hundreds of tests,
# some small p-values are expected by chance alone: `pvalue_holm` adjusts within each family
# of a k-sample test and its pairs (the default; `p_adjust="none"` as in the paper). A large p
# is not proof of agreement: small groups (27 points per movement and rater here) leave tests
# little power.
#
# The full table has one row per test:

# %%
print(len(res.tests), "tests")
res.tests[
    [
        "test",
        "by",
        "within",
        "groups",
        "design",
        "n",
        "statistic",
        "pvalue",
        "pvalue_holm",
        "effect",
    ]
].head(8)

# %% [markdown]
# For example, the expert effect within each movement (energy tests, all three raters):

# %%
tests = res.tests
mask = (
    (tests.test == "energy")
    & (tests.by == "expert")
    & tests.within.str.startswith("movement=")
    & (tests.groups == "E1|E2|E3")
)
tests.loc[mask, ["within", "n", "statistic", "pvalue", "pvalue_holm", "effect"]]

# %% [markdown]
# and the movement effect for each rater (all options at once, χ² on the zone proportions —
# `dof` is the degrees of freedom after dropping empty zones; `min_expected` says why the
# asymptotic p-value was replaced, `p_method` by what):

# %%
mask = (tests.test == "chi2") & (tests.by == "movement") & ~tests.groups.str.count(r"\|").eq(1)
tests.loc[
    mask,
    ["within", "groups", "n", "statistic", "dof", "pvalue", "p_method", "effect", "min_expected"],
]

# %% [markdown]
# How far do the raters agree beyond chance? Krippendorff's α of the zones (nominal) and of
# Δ and R (interval), Fleiss' and Cohen's κ, with bootstrap intervals over the comparisons
# (the example's raters were simulated independently: α ≈ 0):

# %%
display(res.reliability)

# %% [markdown]
# ## 6. Figures
#
# One RRMap per rater (the paper's Fig. 4), at two journal columns. The background is BC;
# the solid rectangle is the fair zone, the dashed one the stereotype zone, the closed curve
# BC = 0.98 (excellent); the stars mark perfect alignment (0, 1) and the perfect stereotype
# (0, 0); the key under the panels says so. Points beyond the view are drawn on its edge as
# triangles pointing outwards, and counted in each title.

# %%
fig = plot_rrmap_by_rater(pts, "movement", width="7in")

# %% [markdown]
# Raters as columns and categories as rows (the paper's Fig. 5): reading a row across
# compares raters within a category (expert effect per option); reading a column down shows
# how one rater's points spread by category (category effect per expert).

# %%
fig = plot_rrmap_grid(pts, width="7in")

# %% [markdown]
# A single journal column (3.5 in) is too narrow for twelve legible panels: the grid says
# which width it needs (`grid_min_width`), and one figure per category fits the column.

# %%
from rrmap.plot.figures.layouts import grid_min_width

print(
    f"the grid of {pts.expert.nunique()} raters needs {grid_min_width(pts.expert.nunique()):.2f} in"
)
fig = plot_rrmap_by_rater(pts, "modality", width="3.5in")

# %% [markdown]
# ## 7. Write everything for the paper
#
# `write` saves the tests, points, proportions and agreement as CSV, the same tables as
# booktabs LaTeX (`tests.tex`, `proportions.tex`, `agreement.tex`), everything in
# `results.json` (with the seed and settings), a markdown report, and the figures as PDF and
# PNG in `figures/` — the same as `rrmap analyze ratings.csv --by movement --by modality`
# from the shell.

# %%
out = Path(tempfile.mkdtemp(prefix="rrmap_results_"))  # change to a folder of yours
written = res.write(out, force=True, width="7in")
print("\n".join(str(p.relative_to(out)) for p in written))
print((out / "proportions.tex").read_text()[:600])
plt.close("all")
