"""A recorded-style interval rater for the local chat server, and a folder of test corpora."""

from __future__ import annotations

import hashlib
import json
import re

import numpy as np
from PIL import Image

from rrmap.study import MODALITIES, MOVEMENTS


def _text(body) -> str:
    parts = []
    for m in body["messages"]:
        c = m["content"]
        parts.append(
            c
            if isinstance(c, str)
            else " ".join(p.get("text", "") for p in c if p.get("type") == "text")
        )
    return "\n".join(parts)


def interval_model(body) -> str:
    """A recorded-style rater: intervals from a hash of the sheet, criterion and seed.

    'left-right' is first answered in prose (no JSON), then properly after the
    re-ask; 'top-bottom' always answers outside the scale.
    """
    text = _text(body)
    crit = re.search(r"Criterion: (\S+)", text).group(1)
    labels = sorted(set(re.findall(r"Corpus ([A-Z]):", text)))
    last = body["messages"][-1]["content"]
    last = last if isinstance(last, str) else ""
    if crit == "left-right" and "could not be used" not in last:
        return "The generated images are a bit more symmetric than the historical works."
    out = {}
    for lab in labels:
        h = hashlib.sha256(f"{crit}{text[:200]}{lab}{body.get('seed')}".encode()).digest()
        c = 25 + h[0] % 50
        w = 10 + h[1] % 20
        if crit == "top-bottom":
            out[lab] = {"reference": [-10, 120], "generated": [c - w / 4, c + w / 4]}
        else:
            out[lab] = {"reference": [c - w, c + w], "generated": [c - w / 2 + h[2] % 5, c + w / 2]}
    return "```json\n" + json.dumps(out) + "\n```"


def make_corpora(tmp_path):
    rows = ["movement,modality,modality name,query,reference"]
    rng = np.random.default_rng(0)
    for mov, names in MOVEMENTS.items():
        for modality, name in zip(MODALITIES, names, strict=True):
            folder = tmp_path / "gen" / name.replace(" ", "_")
            folder.mkdir(parents=True)
            for i in range(3):
                arr = rng.integers(0, 255, (12, 12, 3), dtype=np.uint8)
                Image.fromarray(arr).save(folder / f"{i}.png")
            rows.append(f"{mov},{modality},{name},gen/{folder.name},the historical works of {name}")
    path = tmp_path / "corpora.csv"
    path.write_text("\n".join(rows) + "\n")
    return path
