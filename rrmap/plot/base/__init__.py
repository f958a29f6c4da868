"""What every figure is built from: palettes and markers (``_style``), text contrast
(``_contrast``), glyphs and text extents (``_glyphs``), printed widths and heights
(``_sizing``), zones, the BC grid and clipping (``geometry``), the BC background raster
(``_raster``) and keyword checks (``_keywords``). Imports nothing else of rrmap.plot.
"""
