"""The BC background as an image that a vector file embeds once for all its panels.

Every panel of a layout shows the same background: the same grid of BC values
(:func:`rrmap.plot.base.geometry.bc_grid`, computed once per view) in the same
colours. Matplotlib's PDF backend writes one image object per image it draws,
so a 12-panel grid carried twelve identical 400 × 400 images, each compressed
anew. :class:`BackgroundImage` hands a vector backend the very same array for
panels whose cells and colours are the same (matched by content), and the PDF
then holds one image, drawn in each panel. Raster outputs (PNG) are unchanged:
their pixels are resampled per panel, as every image's.
"""

from __future__ import annotations

import hashlib
import weakref
from typing import Any

import numpy as np
from matplotlib.image import AxesImage

__all__: list[str] = []

#: Colours of the backgrounds being drawn, by content: kept while a file being written
#: holds them (the PDF's image objects), dropped with it.
_DRAWN: weakref.WeakValueDictionary[tuple[Any, ...], np.ndarray] = weakref.WeakValueDictionary()


class BackgroundImage(AxesImage):
    """An ``AxesImage`` whose unresampled colours (what vector backends embed) are one
    array for every panel that shows the same cells in the same colours."""

    def make_image(
        self, renderer: Any, magnification: float = 1.0, unsampled: bool = False
    ) -> tuple[Any, float, float, Any]:
        im, x, y, trans = super().make_image(renderer, magnification, unsampled)
        if not unsampled or im is None:
            return im, x, y, trans
        digest = hashlib.blake2b(np.ascontiguousarray(im).data, digest_size=16).digest()
        key = (im.shape, im.dtype.str, digest)
        shared = _DRAWN.get(key)
        if shared is None:
            _DRAWN[key] = shared = im
        return shared, x, y, trans
