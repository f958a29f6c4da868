"""The plotnine theme behind :func:`rrmap.plot.styles.theme_rrmap` (imports plotnine)."""

from __future__ import annotations

from plotnine import element_blank, element_line, element_rect, element_text, theme, theme_bw

__all__: list[str] = []


class _ThemeRRMap(theme_bw):
    """``theme_bw`` for journal figures; keeps PDF/SVG text as text."""

    def __init__(self, base_size: float = 8.0, base_family: str | None = None) -> None:
        super().__init__(base_size, base_family)
        self += theme(
            panel_grid_minor=element_blank(),
            panel_grid_major=element_line(color="#d9d9d9", size=0.3),
            strip_background=element_rect(fill="none", color="none"),
            strip_text=element_text(weight="bold"),
            legend_position="bottom",
            panel_spacing=0.02,
            legend_key=element_blank(),
            plot_caption=element_text(size=base_size * 0.8, ha="left"),
        )
        self._rcParams.update({"pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "none"})
