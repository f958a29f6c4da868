"""rrmap.judge.prompting.images: downscaling, data URLs, the 2AFC composite and grids."""

from __future__ import annotations

import base64
import io

import numpy as np
import pytest
from PIL import Image

from rrmap.errors import InputError
from rrmap.judge.prompting import images
from rrmap.judge.prompting.images import (
    composite_2afc,
    composite_data_url,
    data_url,
    downscale,
    grid_image,
    load_image,
)


def _decode(url: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


@pytest.mark.parametrize(
    ("size", "max_side", "expected"),
    [((800, 400), 200, (200, 100)), ((300, 900), 300, (100, 300)), ((50, 40), 100, (50, 40))],
)
def test_downscale_keeps_aspect_and_never_enlarges(size, max_side, expected):
    assert downscale(Image.new("RGB", size), max_side).size == expected


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP"])
def test_data_url_round_trips(fmt):
    img = Image.new("RGB", (20, 10), (255, 0, 0))
    url = data_url(img, fmt=fmt)
    assert url.startswith(f"data:image/{'jpeg' if fmt == 'JPEG' else fmt.lower()};base64,")
    back = _decode(url)
    assert back.size == (20, 10)
    assert np.abs(np.asarray(back.convert("RGB"), float) - [255, 0, 0]).max() < 8


def test_data_url_is_deterministic_and_downscales():
    img = Image.fromarray(np.random.default_rng(0).integers(0, 255, (64, 64, 3), np.uint8))
    assert data_url(img, 16) == data_url(img.copy(), 16)
    assert _decode(data_url(img, 16)).size == (16, 16)


def _noise(path, seed: int, size=(40, 30)) -> None:
    rng = np.random.default_rng(seed)
    Image.fromarray(rng.integers(0, 255, (size[1], size[0], 3), np.uint8)).save(path)


def test_a_file_is_encoded_once_while_it_is_unchanged_and_again_when_it_changes(tmp_path):
    path = tmp_path / "a.png"
    _noise(path, 0)
    first = data_url(path, 16)
    assert first == data_url(Image.open(path), 16)  # the file's pixels, as before
    images._KEPT.clear()
    assert data_url(str(path), 16) == first
    assert data_url(path, 16) == first
    assert images._KEPT.hits == 1  # str and Path spell the same key
    _noise(path, 1, size=(41, 30))  # another picture (and size) under the same name
    changed = data_url(path, 16)
    assert changed != first and changed == data_url(Image.open(path), 16)


def test_composite_url_is_the_url_of_the_composite_and_follows_the_files(tmp_path):
    paths = [tmp_path / f"{n}.png" for n in ("s", "a", "b")]
    for seed, path in enumerate(paths):
        _noise(path, seed)
    expected = data_url(composite_2afc(*paths, max_side=24))
    images._KEPT.clear()
    for _ in range(3):
        assert composite_data_url(*paths, max_side=24) == expected
    assert images._KEPT.hits == 2
    # images in memory are encoded each time, as the same composite
    pil = [Image.open(p) for p in paths]
    assert composite_data_url(*pil, max_side=24) == expected
    assert composite_data_url(*paths, max_side=24, fmt="jpeg").startswith("data:image/jpeg")
    _noise(paths[2], 7)  # the right candidate replaced
    assert composite_data_url(*paths, max_side=24) == data_url(composite_2afc(*paths, max_side=24))
    assert composite_data_url(*paths, max_side=24) != expected


def test_the_urls_kept_stay_under_their_limit_and_the_last_used_stay(tmp_path, monkeypatch):
    kept = images._KeptUrls()
    monkeypatch.setattr(kept, "limit", 100)
    assert kept.get(("a",), lambda: "a" * 40) == "a" * 40
    assert kept.get(("b",), lambda: "b" * 40) == "b" * 40
    assert kept.get(("a",), lambda: "new") == "a" * 40  # kept, and now the last used
    assert kept.get(("c",), lambda: "c" * 40) == "c" * 40  # 120 > 100: "b" goes
    assert kept.get(("b",), lambda: "b2") == "b2" and kept.hits == 1
    assert kept.get(("big",), lambda: "x" * 101) == "x" * 101  # past the limit: not kept
    assert kept.get(("big",), lambda: "again") == "again"
    assert sum(map(len, kept._urls.values())) == kept._size <= 100


def test_a_missing_file_in_a_composite_is_named(tmp_path):
    paths = [tmp_path / f"{n}.png" for n in ("s", "a")]
    for seed, path in enumerate(paths):
        _noise(path, seed)
    with pytest.raises(InputError, match=r"image file not found: .*gone\.png"):
        composite_data_url(*paths, tmp_path / "gone.png")
    with pytest.raises(InputError, match=r"^image format must be PNG, JPEG or WEBP, got 'GIF'$"):
        composite_data_url(*paths, paths[0], fmt="gif")


def test_composite_places_source_on_top_and_candidates_below():
    src = Image.new("RGB", (40, 20), (255, 0, 0))
    left = Image.new("RGB", (30, 30), (0, 255, 0))
    right = Image.new("RGB", (30, 30), (0, 0, 255))
    im = composite_2afc(src, left, right, max_side=None, gap=10)
    assert im.size == (70, 60)
    px = np.asarray(im)
    assert tuple(px[5, 35]) == (255, 0, 0)  # source, centred on top
    assert tuple(px[45, 10]) == (0, 255, 0)  # left candidate, bottom left
    assert tuple(px[45, 60]) == (0, 0, 255)  # right candidate, bottom right
    assert tuple(px[25, 35]) == (255, 255, 255)  # gap


def test_composite_downscales_each_part():
    big = Image.new("RGB", (1000, 500))
    assert composite_2afc(big, big, big, max_side=100, gap=0).size == (200, 100)


def test_grid_image_layout():
    cells = [Image.new("RGB", (10, 10), (i * 40, 0, 0)) for i in range(5)]
    im = grid_image(cells, columns=3, cell=10, gap=2)
    assert im.size == (34, 22)
    assert tuple(np.asarray(im)[15, 17]) == (160, 0, 0)  # 5th image: row 2, column 2


def test_transparent_images_are_flattened_on_white():
    rgba = Image.new("RGBA", (4, 4), (0, 0, 0, 0))
    assert tuple(np.asarray(load_image(rgba))[0, 0]) == (255, 255, 255)


def test_missing_and_unreadable_files(tmp_path):
    with pytest.raises(InputError, match=r"image file not found: .*nope\.png"):
        load_image(tmp_path / "nope.png")
    (tmp_path / "bad.png").write_text("not an image")
    with pytest.raises(InputError, match=r"bad\.png: not a readable image"):
        load_image(tmp_path / "bad.png")
    with pytest.raises(InputError, match="columns must be at least 1"):
        grid_image([Image.new("RGB", (2, 2))], columns=0)
    with pytest.raises(InputError, match="image format must be PNG, JPEG or WEBP"):
        data_url(Image.new("RGB", (2, 2)), fmt="GIF")


def test_missing_pillow_names_the_extra(monkeypatch, tmp_path):
    import sys

    from click.testing import CliRunner

    from rrmap.cli import main

    path = tmp_path / "a.png"
    Image.new("RGB", (4, 4)).save(path)
    monkeypatch.setitem(sys.modules, "PIL", None)  # as if rrmap[judge] were not installed
    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    with pytest.raises(InputError, match=r"^images need Pillow, which is not installed: "
                       r"pip install 'rrmap\[judge\]'$"):  # fmt: skip
        load_image(str(path))
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("instance,style,source_image,candidate_a,image_a,candidate_b,image_b\n"
                     "i1,ukiyo-e,a.png,x,a.png,y,a.png\n")  # fmt: skip
    res = CliRunner().invoke(main, ["judge", "2afc", str(pairs), "--mode", "base", "--model",
                                    "m", "--base-url", "http://127.0.0.1:9/v1", "--dry-run"])  # fmt: skip
    assert res.exit_code == 1, res.output
    assert res.stderr == (
        "Error: images need Pillow, which is not installed: pip install 'rrmap[judge]'\n"
    )
