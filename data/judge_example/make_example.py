"""Generate the synthetic judge example (run from anywhere; writes beside this file).

Two "content" images are drawn with numpy (a landscape: sky, sun, hills; a
still life: table, bowl, fruit). Four "stylisation methods" are simple
deterministic filters (posterisation, blur, noise, colour cast), so the
images are stand-ins with no artistic value: they only exercise the pipeline.
The human preferences in HUMAN.csv are made up by a fixed rule (fewer
artefacts preferred) and are NOT real annotations.
"""

from __future__ import annotations

import csv
import itertools
import json
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

HERE = Path(__file__).resolve().parent
SIZE = 96


def landscape() -> np.ndarray:
    y, x = np.mgrid[0:SIZE, 0:SIZE]
    img = np.zeros((SIZE, SIZE, 3))
    img[...] = np.stack([110 + 0 * x, 160 + 0.6 * y, 235 + 0 * x], -1)  # sky
    sun = (x - 70) ** 2 + (y - 22) ** 2 < 110
    img[sun] = (250, 220, 90)
    hills = y > 60 + 8 * np.sin(x / 11.0)
    img[hills] = np.stack([40 + 0.3 * x, 120 + 0.4 * y, 50 + 0 * x], -1)[hills]
    return img.clip(0, 255).astype(np.uint8)


def still_life() -> np.ndarray:
    y, x = np.mgrid[0:SIZE, 0:SIZE]
    img = np.full((SIZE, SIZE, 3), (200, 185, 160), float)  # wall
    img[y > 62] = (120, 80, 50)  # table
    bowl = ((x - 48) ** 2 / 900 + (y - 62) ** 2 / 220 < 1) & (y > 58)
    img[bowl] = (230, 230, 240)
    for cx, cy, col in [(38, 50, (220, 40, 40)), (54, 48, (240, 170, 30)), (47, 42, (90, 160, 40))]:
        img[(x - cx) ** 2 + (y - cy) ** 2 < 64] = col
    return img.clip(0, 255).astype(np.uint8)


def stylise(img: np.ndarray, method: str, seed: int) -> Image.Image:
    rng = np.random.default_rng(seed)
    pil = Image.fromarray(img)
    if method == "posterise":
        return Image.fromarray((img // 64 * 64 + 32).astype(np.uint8))
    if method == "soft_blur":
        return pil.filter(ImageFilter.GaussianBlur(2.0))
    if method == "noisy":
        noisy = img.astype(float) + rng.normal(0, 40, img.shape)
        return Image.fromarray(noisy.clip(0, 255).astype(np.uint8))
    if method == "sepia_cast":
        grey = img.mean(axis=2, keepdims=True)
        return Image.fromarray((grey * np.array([1.0, 0.8, 0.55])).clip(0, 255).astype(np.uint8))
    raise ValueError(method)


# made-up human preference: the method listed earlier is preferred
HUMAN_ORDER = ["posterise", "sepia_cast", "soft_blur", "noisy"]
INSTANCES = {
    "landscape_ukiyoe": (landscape, "ukiyo-e woodblock print with flat colour areas"),
    "stilllife_pointillism": (still_life, "pointillist oil painting made of small dots"),
}


def main() -> None:
    (HERE / "images").mkdir(exist_ok=True)
    pairs, human = [], []
    for k, (inst, (draw, style)) in enumerate(INSTANCES.items()):
        src = draw()
        Image.fromarray(src).save(HERE / "images" / f"{inst}_source.png")
        for m, method in enumerate(HUMAN_ORDER):
            stylise(src, method, seed=10 * k + m).save(HERE / "images" / f"{inst}_{method}.png")
        for a, b in itertools.combinations(sorted(HUMAN_ORDER), 2):
            pairs.append(
                {
                    "instance": inst,
                    "style": style,
                    "source_image": f"images/{inst}_source.png",
                    "candidate_a": a,
                    "image_a": f"images/{inst}_{a}.png",
                    "candidate_b": b,
                    "image_b": f"images/{inst}_{b}.png",
                }
            )
            better = a if HUMAN_ORDER.index(a) < HUMAN_ORDER.index(b) else b
            human.append(
                {
                    "instance": inst,
                    "left": a,
                    "right": b,
                    "winner": "left" if better == a else "right",
                    "annotator": "synthetic_rule",
                }
            )
    with open(HERE / "PAIRS.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(pairs[0]))
        w.writeheader()
        w.writerows(pairs)
    with open(HERE / "HUMAN.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(human[0]))
        w.writeheader()
        w.writerows(human)
    questions = [
        {
            "id": "q1",
            "image": "images/landscape_ukiyoe_posterise.png",
            "question": "Are the colours of this image laid down in flat areas?",
            "options": ["Yes", "No"],
            "answer": "Yes",
            "dimension": "color",
            "type": "yes_no",
        },
        {
            "id": "q2",
            "image": "images/landscape_ukiyoe_noisy.png",
            "question": "What most lowers the quality of this image?",
            "options": ["Grainy noise", "Blur", "A colour cast", "Nothing"],
            "answer": "A",
            "dimension": "clarity",
            "type": "what",
        },
        {
            "id": "q3",
            "image": "images/stilllife_pointillism_sepia_cast.png",
            "question": "How would you describe the colour temperature of this image?",
            "options": ["Warm", "Neutral", "Cold"],
            "answer": "Warm",
            "dimension": "color",
            "type": "how",
        },
        {
            "id": "q4",
            "image": "images/stilllife_pointillism_soft_blur.png",
            "question": "How is the aesthetic quality of this image?",
            "options": ["High", "Medium", "Low"],
            "answer": "B",
            "dimension": "overall",
            "type": "how",
        },
    ]
    with open(HERE / "questions.jsonl", "w") as fh:
        for q in questions:
            fh.write(json.dumps(q) + "\n")
    interp = [
        {
            "id": "r1",
            "question": "This image has low aesthetics; explain why.",
            "response": "The picture is covered in coloured grain that hides the hills "
            "and the sun.",
            "reference": "Strong random noise over the whole surface destroys the edges of the "
            "hills and the sun; the composition itself is simple and balanced.",
            "model": "example_model",
        },
        {
            "id": "r2",
            "question": "This image has medium aesthetics; explain why.",
            "response": "It feels dreamy and evokes a nostalgic mood.",
            "reference": "The blur softens the fruit and bowl so the forms read but lose detail; "
            "the warm palette and centred bowl keep it coherent.",
            "model": "example_model",
        },
    ]
    with open(HERE / "interpretations.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(interp[0]))
        w.writeheader()
        w.writerows(interp)


if __name__ == "__main__":
    main()
