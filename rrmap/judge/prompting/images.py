"""Images for multimodal prompts: checking, loading, downscaling, data URLs, composites, grids.

Encoding is deterministic (same pixels, same bytes), so the cache key of a
request that embeds an image depends only on the image content.

Before a run sends anything, every image a questions or pairs file names is
checked (:func:`image_problem`): it must exist, be a regular file (never a
FIFO or a device, which could block the run), not be empty, be an image
Pillow reads whose header is sound, have at most Pillow's
``Image.MAX_IMAGE_PIXELS`` pixels (89,478,485 by default: a decompression
bomb is refused, never decoded), and lie inside the folder of the file that
names it, unless ``allow_outside`` is given (a path such as ``../x.png`` or
``/home/me/x.png``, or a link leading out of the folder, would otherwise
upload a file the table's author chose, not the user).
"""

from __future__ import annotations

import base64
import functools
import io
import os
import stat
import struct
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from rrmap._util.lazy import optional_module
from rrmap.errors import InputError

__all__ = [
    "composite_2afc",
    "composite_data_url",
    "data_url",
    "downscale",
    "grid_image",
    "image_part",
    "image_problem",
    "load_image",
]


def require_pillow() -> Any:
    """``PIL.Image``, or an :class:`~rrmap.errors.InputError` that says how to install
    Pillow.

    Examples
    --------
    >>> require_pillow().__name__
    'PIL.Image'
    """
    return optional_module("PIL.Image", "images need Pillow", "judge")


def _too_many_pixels(size: tuple[int, int]) -> str | None:
    Image = require_pillow()

    limit = Image.MAX_IMAGE_PIXELS
    w, h = size
    if limit and w * h > limit:
        return (
            f"has {w}×{h} = {w * h:,} pixels, more than the {limit:,} allowed "
            "(Pillow's Image.MAX_IMAGE_PIXELS)"
        )
    return None


def _read_header(path: str) -> str | None:
    """Why the image file at *path* cannot be decoded safely (header and checksums only)."""
    Image = require_pillow()

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as img:
                problem = _too_many_pixels(img.size)
                if problem is None:
                    img.verify()  # structure and checksums, without decoding the pixels
    except (Image.DecompressionBombWarning, Image.DecompressionBombError):
        limit = Image.MAX_IMAGE_PIXELS
        return f"has more than the {limit:,} pixels allowed (Pillow's Image.MAX_IMAGE_PIXELS)"
    except (OSError, SyntaxError, ValueError, EOFError, struct.error, MemoryError) as exc:
        return f"is not a readable image ({' '.join(str(exc).split()) or type(exc).__name__})"
    return problem


def image_problem(
    path: str | os.PathLike[str],
    folder: str | os.PathLike[str] | None = None,
    *,
    allow_outside: bool = False,
    contents: bool = True,
) -> str | None:
    """Why the image file *path* may not be sent, or ``None`` when it may (see the module).

    Parameters
    ----------
    path : path
        The image file.
    folder : path, optional
        The folder of the file that names the image; *path* must lie inside
        it (after following links) unless *allow_outside*.
    allow_outside : bool, default False
        Accept images outside *folder*.
    contents : bool, default True
        Check the file itself too; ``False`` checks only where it lies.

    Returns
    -------
    str or None
        The reason, worded to follow the file name ("is empty").

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from PIL import Image
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> Image.new("RGB", (4, 4)).save(d / "ok.png")
    >>> (d / "empty.png").write_bytes(b"")
    0
    >>> image_problem(d / "ok.png", d) is None, image_problem(d / "empty.png", d)
    (True, 'is empty')
    >>> image_problem(d / "ok.png", d / "sub")
    'is outside the folder ... (give --allow-outside to send it anyway)'
    >>> image_problem(d / f"o{chr(0)}k.png", d)
    'has a NUL character in its name'
    """
    name = os.fspath(path)
    if "\0" in name:  # no file has one: the system refuses such a name outright
        return "has a NUL character in its name"
    if folder is not None and not allow_outside:
        real, base = os.path.realpath(name), os.path.realpath(os.fspath(folder))
        if os.path.commonpath([real, base]) != base:
            return f"is outside the folder {base} (give --allow-outside to send it anyway)"
    if not contents:
        return None
    try:
        st = os.stat(name)
    except FileNotFoundError:
        return "not found"
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file"
    if st.st_size == 0:
        return "is empty"
    return _read_header(name)


def load_image(source: Any) -> Any:
    """Open *source* (a path or a PIL image) as an RGB PIL image.

    Raises
    ------
    InputError
        If the file is missing, not a regular file, not an image Pillow can
        read, or has more pixels than Pillow's ``Image.MAX_IMAGE_PIXELS``.

    Examples
    --------
    >>> from PIL import Image
    >>> load_image(Image.new("L", (4, 3))).mode
    'RGB'
    """
    Image = require_pillow()
    from PIL import UnidentifiedImageError

    if isinstance(source, Image.Image):
        img = source
    else:
        name = os.fspath(source)
        try:
            if not stat.S_ISREG(os.stat(name).st_mode):  # a FIFO would block Image.open
                raise InputError(f"{name}: not a regular file")
            with Image.open(name) as opened:
                too_big = _too_many_pixels(opened.size)
                if too_big:
                    raise InputError(f"{name}: {too_big}")
                opened.load()
                img = opened.copy()
        except FileNotFoundError:
            raise InputError(f"image file not found: {source}") from None
        except Image.DecompressionBombError:
            limit = Image.MAX_IMAGE_PIXELS
            raise InputError(
                f"{name}: has more than the {limit:,} pixels allowed (Pillow's "
                "Image.MAX_IMAGE_PIXELS)"
            ) from None
        except (UnidentifiedImageError, OSError, SyntaxError, EOFError, struct.error) as exc:
            raise InputError(f"{source}: not a readable image ({exc})") from None
    if img.mode != "RGB":
        if img.mode in ("RGBA", "LA", "P"):
            rgba = img.convert("RGBA")
            bg = Image.new("RGB", rgba.size, "white")
            bg.paste(rgba, mask=rgba.getchannel("A"))
            img = bg
        else:
            img = img.convert("RGB")
    return img


def downscale(image: Any, max_side: int | None) -> Any:
    """Shrink *image* so its longer side is at most *max_side* pixels (never enlarge).

    Examples
    --------
    >>> from PIL import Image
    >>> downscale(Image.new("RGB", (800, 400)), 200).size
    (200, 100)
    >>> downscale(Image.new("RGB", (80, 40)), 200).size
    (80, 40)
    """
    if isinstance(image, str | os.PathLike):
        # a file judged in many pairs is decoded and downscaled once (same pixels every time)
        ident = _file_identity(image)
        if ident is None:
            return _shrink(load_image(image), max_side)
        return _downscaled_file(os.fspath(image), ident, max_side)
    return _shrink(load_image(image), max_side)


#: A file as it is now: device, inode, modification time (ns) and size.
_Identity = tuple[int, int, int, int]


def _file_identity(path: str | os.PathLike[str]) -> _Identity | None:
    """The identity of the file at *path* (one ``stat``), or None where it cannot be had
    (the reader then says why)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size


def _shrink(img: Any, max_side: int | None) -> Any:
    if max_side is None or max(img.size) <= max_side:
        return img
    Image = require_pillow()

    w, h = img.size
    scale = max_side / max(w, h)
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return img.resize(size, Image.Resampling.LANCZOS)


@functools.lru_cache(maxsize=128)
def _downscaled_file(path: str, ident: _Identity, max_side: int | None) -> Any:
    """The downscaled image of a file, kept while the file is unchanged (callers only read it)."""
    return _shrink(load_image(path), max_side)


def data_url(image: Any, max_side: int | None = None, fmt: str = "PNG", quality: int = 90) -> str:
    """Encode *image* (path or PIL image) as a base64 ``data:`` URL.

    The URL of a file is kept while the file is unchanged (its device, inode, modification
    time and size; the URLs last used are kept, up to 64 MB in all): a run that asks about
    one image in many requests, or a run resumed from its cache, encodes it once.

    Parameters
    ----------
    image : path or PIL image
    max_side : int or None
        Downscale first so the longer side is at most this.
    fmt : {"PNG", "JPEG", "WEBP"}
    quality : int
        JPEG/WEBP quality.

    Examples
    --------
    >>> from PIL import Image
    >>> data_url(Image.new("RGB", (2, 2), "red"))[:22]
    'data:image/png;base64,'
    """
    fmt = _checked_format(fmt)
    if isinstance(image, str | os.PathLike):
        ident = _file_identity(image)
        if ident is not None:
            return _file_url(os.fspath(image), ident, max_side, fmt, quality)
    return _encoded(downscale(image, max_side), fmt, quality)


def composite_data_url(
    source: Any, left: Any, right: Any, *, max_side: int | None = 512, fmt: str = "PNG"
) -> str:
    """``data_url(composite_2afc(source, left, right, max_side=max_side), fmt=fmt)``; for
    three files, kept while the files are unchanged (as :func:`data_url` keeps a file's).

    Parameters
    ----------
    source, left, right : path or PIL image
        The source on top, the two candidates below (see :func:`composite_2afc`).
    max_side : int or None, default 512
        Longer side of each part, at most.
    fmt : {"PNG", "JPEG", "WEBP"}
        Encoding of the composite (JPEG and WEBP at quality 90, as :func:`data_url`).

    Returns
    -------
    str
        A base64 ``data:`` URL.

    Raises
    ------
    rrmap.errors.InputError
        An image file that is missing or unreadable, or another format.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from PIL import Image
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for name, colour in (("s", "red"), ("a", "green"), ("b", "blue")):
    ...     Image.new("RGB", (4, 4), colour).save(d / f"{name}.png")
    >>> url = composite_data_url(d / "s.png", d / "a.png", d / "b.png")
    >>> url == data_url(composite_2afc(d / "s.png", d / "a.png", d / "b.png"))
    True
    """
    fmt = _checked_format(fmt)
    parts = (source, left, right)
    if all(isinstance(p, str | os.PathLike) for p in parts):
        idents = tuple(_file_identity(p) for p in parts)
        if None not in idents:
            paths = tuple(os.fspath(p) for p in parts)
            return _composite_url(paths, idents, max_side, fmt)  # type: ignore[arg-type]
    return data_url(composite_2afc(source, left, right, max_side=max_side), fmt=fmt)


def _checked_format(fmt: str) -> str:
    fmt = fmt.upper()
    if fmt not in ("PNG", "JPEG", "WEBP"):
        raise InputError(f"image format must be PNG, JPEG or WEBP, got {fmt!r}")
    return fmt


def _encoded(img: Any, fmt: str, quality: int) -> str:
    buf = io.BytesIO()
    kwargs = {"optimize": False} if fmt == "PNG" else {"quality": quality}
    img.save(buf, format=fmt, **kwargs)
    mime = {"PNG": "png", "JPEG": "jpeg", "WEBP": "webp"}[fmt]
    return f"data:image/{mime};base64," + base64.b64encode(buf.getvalue()).decode("ascii")


class _KeptUrls:
    """Encoded URLs, the least recently used dropped past :attr:`limit` characters in all
    (a 512-pixel composite of photographs is 1–4 MB of base64; the example's are 40 kB)."""

    limit = 64 * 2**20

    def __init__(self) -> None:
        self._urls: OrderedDict[tuple[Any, ...], str] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()
        self.hits = 0

    def get(self, key: tuple[Any, ...], make: Callable[[], str]) -> str:
        with self._lock:
            url = self._urls.get(key)
            if url is not None:
                self._urls.move_to_end(key)
                self.hits += 1
                return url
        url = make()  # outside the lock: the threads of a run encode side by side
        with self._lock:
            if key not in self._urls and len(url) <= self.limit:
                self._urls[key] = url
                self._size += len(url)
                while self._size > self.limit:
                    self._size -= len(self._urls.popitem(last=False)[1])
        return url

    def clear(self) -> None:
        with self._lock:
            self._urls.clear()
            self._size = self.hits = 0


_KEPT = _KeptUrls()


def _file_url(path: str, ident: _Identity, max_side: int | None, fmt: str, quality: int) -> str:
    key = ("file", path, ident, max_side, fmt, quality)  # the pixels of this identity
    return _KEPT.get(key, lambda: _encoded(_downscaled_file(path, ident, max_side), fmt, quality))


def _composite_url(
    paths: tuple[str, str, str],
    idents: tuple[_Identity, _Identity, _Identity],
    max_side: int | None,
    fmt: str,
) -> str:
    key = ("composite", paths, idents, max_side, fmt)
    return _KEPT.get(key, lambda: data_url(composite_2afc(*paths, max_side=max_side), fmt=fmt))


def image_part(url: str) -> dict[str, Any]:
    """A chat-completions content part holding one image URL.

    Examples
    --------
    >>> image_part("data:image/png;base64,AAAA")["type"]
    'image_url'
    """
    return {"type": "image_url", "image_url": {"url": url}}


def composite_2afc(
    source: Any,
    left: Any,
    right: Any,
    *,
    max_side: int | None = 512,
    gap: int = 8,
    background: str = "white",
) -> Any:
    """One picture for a 2AFC question: the source on top, the two candidates below.

    Each input is first downscaled to *max_side*; the candidates are placed
    side by side (left, right) under the horizontally centred source.

    Parameters
    ----------
    source, left, right : path or PIL image
    max_side : int or None
        Longer side of each part, at most.
    gap : int
        Pixels between the parts.
    background : str
        Colour of the empty area.

    Returns
    -------
    PIL.Image.Image

    Examples
    --------
    >>> from PIL import Image
    >>> im = composite_2afc(Image.new("RGB", (100, 50)), Image.new("RGB", (60, 60)),
    ...                     Image.new("RGB", (60, 30)), max_side=None, gap=10)
    >>> im.size
    (130, 120)
    """
    Image = require_pillow()

    src, lft, rgt = (downscale(x, max_side) for x in (source, left, right))
    bottom_w = lft.width + gap + rgt.width
    width = max(src.width, bottom_w)
    bottom_h = max(lft.height, rgt.height)
    canvas = Image.new("RGB", (width, src.height + gap + bottom_h), background)
    canvas.paste(src, ((width - src.width) // 2, 0))
    x0 = (width - bottom_w) // 2
    y0 = src.height + gap
    canvas.paste(lft, (x0, y0))
    canvas.paste(rgt, (x0 + lft.width + gap, y0))
    return canvas


def grid_image(
    images: Sequence[Any],
    columns: int,
    *,
    cell: int = 256,
    gap: int = 4,
    background: str = "white",
) -> Any:
    """A meta-image: *images* in a grid of *columns* columns, each fitted in a square cell.

    Parameters
    ----------
    images : sequence of path or PIL image
    columns : int
    cell : int
        Side of a cell in pixels; each image is downscaled to fit and centred.
    gap : int
    background : str

    Returns
    -------
    PIL.Image.Image

    Examples
    --------
    >>> from PIL import Image
    >>> grid_image([Image.new("RGB", (10, 10))] * 5, columns=2, cell=20, gap=2).size
    (42, 64)
    """
    Image = require_pillow()

    if columns < 1:
        raise InputError(f"columns must be at least 1, got {columns}")
    if not images:
        raise InputError("grid_image needs at least one image")
    rows = -(-len(images) // columns)
    canvas = Image.new(
        "RGB", (columns * cell + (columns - 1) * gap, rows * cell + (rows - 1) * gap), background
    )
    for i, src in enumerate(images):
        img = downscale(src, cell)
        r, c = divmod(i, columns)
        x = c * (cell + gap) + (cell - img.width) // 2
        y = r * (cell + gap) + (cell - img.height) // 2
        canvas.paste(img, (x, y))
    return canvas
