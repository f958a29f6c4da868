"""Generate the tiny SYNTHETIC corpora of ``data/rate_example`` (seed 7).

15 folders (5 movements × 3 modalities), 4 images of 64×64 pixels each, drawn
with numpy and Pillow: coloured rectangles, dots, stripes and blur whose
parameters vary by movement. They are placeholders that exercise the rating
pipeline end to end; they are not generated paintings and not artworks.

Run: ``python data/rate_example/make_images.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from rrmap.study import MODALITIES, MOVEMENTS

HERE = Path(__file__).resolve().parent
STYLE = {  # (number of shapes, blur radius, saturation 0-1)
    "abstract art": (6, 0.0, 1.0),
    "cubism": (14, 0.0, 0.4),
    "expressionism": (9, 0.5, 0.9),
    "impressionism": (40, 1.5, 0.7),
    "surrealism": (4, 0.8, 0.6),
}


def draw(rng: np.random.Generator, shapes: int, blur: float, sat: float) -> Image.Image:
    img = Image.new("RGB", (64, 64), tuple(int(v) for v in rng.integers(150, 255, 3)))
    d = ImageDraw.Draw(img)
    for _ in range(shapes):
        base = rng.integers(0, 255, 3).astype(float)
        grey = base.mean()
        col = tuple(int(grey + sat * (c - grey)) for c in base)
        x0, y0 = rng.integers(0, 56, 2)
        x1, y1 = x0 + rng.integers(4, 30), y0 + rng.integers(4, 30)
        if rng.random() < 0.5:
            d.rectangle([int(x0), int(y0), int(x1), int(y1)], fill=col)
        else:
            d.ellipse([int(x0), int(y0), int(x1), int(y1)], fill=col)
    return img.filter(ImageFilter.GaussianBlur(blur)) if blur else img


def main() -> None:
    rng = np.random.default_rng(7)
    rows = ["movement,modality,modality name,query,reference"]
    for movement, names in MOVEMENTS.items():
        for modality, name in zip(MODALITIES, names, strict=True):
            folder = HERE / "generated" / name.lower().replace(" ", "_")
            folder.mkdir(parents=True, exist_ok=True)
            for i in range(4):
                draw(rng, *STYLE[movement]).save(folder / f"{i + 1:02d}.png", optimize=True)
            what = (
                f"the historical {name} paintings"
                if modality == "movement"
                else f"the historical paintings of {name}"
            )
            rows.append(f"{movement},{modality},{name},generated/{folder.name},{what}")
    (HERE / "corpora.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"wrote 60 images and {HERE / 'corpora.csv'}")


if __name__ == "__main__":
    main()
