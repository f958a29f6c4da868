"""Colour arithmetic for print-safe figures: luminance, contrast, CIELAB, colour-blind views.

Used to choose black or white text on a filled cell (the one with the higher
WCAG contrast ratio, at least 4.5 : 1 against any fill) and by the tests that
check the quality colours in greyscale and as a deuteranope sees them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.colors import to_rgb
from numpy.typing import NDArray

__all__: list[str] = []

#: Machado, Oliveira & Fernandes (2009): full deuteranopia, in linear RGB.
_DEUTERANOPIA = np.array(
    [
        [0.367322, 0.860646, -0.227968],
        [0.280085, 0.672501, 0.047413],
        [-0.011820, 0.042940, 0.968881],
    ]
)


def linear_rgb(color: Any) -> NDArray[np.float64]:
    """*color* (any matplotlib colour) as linear-light sRGB in [0, 1]."""
    c = np.asarray(to_rgb(color), dtype=float)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def luminance(color: Any) -> float:
    """Relative luminance (WCAG 2) of *color*.

    Examples
    --------
    >>> luminance("white"), luminance("black")
    (1.0, 0.0)
    """
    r, g, b = linear_rgb(color)
    return float(0.2126 * r + 0.7152 * g + 0.0722 * b)


def contrast(a: Any, b: Any) -> float:
    """WCAG contrast ratio of two colours, 1 to 21.

    Examples
    --------
    >>> round(contrast("black", "white"), 1)
    21.0
    """
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def text_color(fill: Any) -> str:
    """Black or white, whichever contrasts more with *fill* (never below 4.58 : 1).

    Examples
    --------
    >>> text_color("#D55E00"), text_color("#005C45")
    ('black', 'white')
    """
    return "black" if contrast(fill, "black") >= contrast(fill, "white") else "white"


def lab_from_linear(rgb: NDArray[np.float64]) -> NDArray[np.float64]:
    """CIELAB (D65) of a linear-light sRGB triple."""
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = m @ np.clip(rgb, 0.0, 1.0) / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def lab(color: Any) -> NDArray[np.float64]:
    """CIELAB (D65) L*, a*, b* of *color*.

    Examples
    --------
    >>> [round(float(v)) for v in lab("#56B4E9")]
    [70, -12, -35]
    """
    return lab_from_linear(linear_rgb(color))


def greyscale(color: Any) -> NDArray[np.float64]:
    """CIELAB of *color* printed in grey (its luminance kept, its hue dropped)."""
    y = luminance(color)
    return lab_from_linear(np.array([y, y, y]))


def deuteranope(color: Any) -> NDArray[np.float64]:
    """CIELAB of *color* as seen with deuteranopia (Machado et al. 2009, severity 1)."""
    return lab_from_linear(_DEUTERANOPIA @ linear_rgb(color))
