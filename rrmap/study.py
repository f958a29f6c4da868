"""The design of the published RRMap study (Deliège et al., 2025, §2.1–2.2).

Names used by the shipped example data, the default criteria of model raters
and the tests: the file headers, the five movements with their two painters,
the three modalities and the nine criteria in three groups.
"""

from __future__ import annotations

__all__ = ["CRITERIA", "HEADERS", "MODALITIES", "MOVEMENTS"]

#: Headers of the study's ratings file, in its order.
HEADERS: tuple[str, ...] = (
    "movement",
    "expert",
    "criterion",
    "criterion group",
    "origin",
    "modality",
    "modality name",
    "low rating",
    "high rating",
    "mean",
    "sigma",
)

#: movement → (its display name, its male painter, its female painter).
MOVEMENTS: dict[str, tuple[str, str, str]] = {
    "abstract art": ("Abstract Art", "Wassily Kandinsky", "Hilma af Klint"),
    "cubism": ("Cubism", "Pablo Picasso", "Marie Laurencin"),
    "expressionism": ("Expressionism", "Ernst Ludwig Kirchner", "Gabriele Münter"),
    "impressionism": ("Impressionism", "Claude Monet", "Mary Cassatt"),
    "surrealism": ("Surrealism", "Joan Miró", "Dorothea Tanning"),
}

#: The three modalities rated per movement, in the order of the display names above.
MODALITIES: tuple[str, ...] = ("movement", "male painter", "female painter")

#: criterion → criterion group (three topological, three eidetic, three chromatic).
CRITERIA: dict[str, str] = {
    "centered-edges": "topological",
    "left-right": "topological",
    "top-bottom": "topological",
    "sharp-blurry": "eidetic",
    "parallel-intersecting": "eidetic",
    "dense-sparse": "eidetic",
    "saturated-desaturated": "chromatic",
    "uniform-focalized": "chromatic",
    "painterly-photographic": "chromatic",
}


def __dir__() -> list[str]:
    """The public names only (`dir()` in a notebook), not the imports."""
    return sorted(__all__)
