"""The pixels of a figure's PNG, drawn from its PDF by PDFium: the figure is drawn once.

An analysis figure written as PDF and PNG was drawn twice by matplotlib: once for
each format, every artist visited again in Python. The PNG pass was about a
third of the CPU the figures took (0.73 s of the four figures' 2.3 s at 7 in and
300 dpi). Here the PNG is the page of the PDF just written, rasterized by PDFium
(the PDF engine of Chromium, through pypdfium2) in C++: 0.12 s for the four.

The pixels are those a PDF viewer shows: the same text (the embedded fonts), lines,
markers and colours as matplotlib's own rasterizer gives, anti-aliased by another
engine (edges differ by a fraction of a pixel). The size is matplotlib's: the
figure's inches times the dpi, rounded down.
"""

from __future__ import annotations

import threading

import numpy as np

__all__: list[str] = []

#: PDFium is not thread-safe: one page at a time in a process.
_lock = threading.Lock()


def page_pixels(pdf: bytes, width_px: int, height_px: int, dpi: float) -> np.ndarray | None:
    """The first page of *pdf* at *dpi*, white under it, as RGB (rows × columns × 3), cut to
    *width_px* × *height_px* (matplotlib's size of the figure at *dpi*); ``None`` without
    pypdfium2 or when PDFium cannot draw it (the caller then draws the PNG itself).

    Examples
    --------
    >>> import io
    >>> import matplotlib.pyplot as plt
    >>> fig = plt.figure(figsize=(2, 1))
    >>> pdf = io.BytesIO()
    >>> fig.savefig(pdf, format="pdf")
    >>> rgb = page_pixels(pdf.getvalue(), 200, 100, 100)
    >>> rgb is None or (rgb.shape, int(rgb.min()))
    ((100, 200, 3), 255)
    >>> plt.close(fig)
    """
    try:
        import pypdfium2
    except ImportError:
        return None
    with _lock:
        try:
            document = pypdfium2.PdfDocument(pdf)
        except pypdfium2.PdfiumError:
            return None
        try:
            page = document[0]
            bitmap = page.render(
                scale=dpi / 72.0, rev_byteorder=True, fill_color=(255, 255, 255, 255)
            )
            pixels = bitmap.to_numpy()
            if pixels.ndim != 3 or pixels.shape[0] < height_px or pixels.shape[1] < width_px:
                return None
            rgb = np.array(pixels[:height_px, :width_px, :3])  # owned: the bitmap is freed next
        finally:
            document.close()
    return rgb
