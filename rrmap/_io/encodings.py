"""How the bytes of a text file become text (docs/ratings.md, "How the reading is decided").

A byte-order mark says UTF-8, UTF-16 or UTF-32; NUL bytes that UTF-16 or UTF-32 text
explains say so without a mark; otherwise UTF-8 if the bytes decode as UTF-8, else the
legacy code page whose accented characters read as letters of words.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rrmap._io.reading_limits import nul_problem, wide_encoding
from rrmap.errors import RatingsError

__all__ = ["ENCODING_NAMES", "decode_text"]

#: Encodings tried for a file that is not UTF-8, in order of preference.
_LEGACY = ("cp1252", "mac_roman")
ENCODING_NAMES = {
    "utf-8": "UTF-8",
    "utf-8-sig": "UTF-8 with BOM",
    "utf-16": "UTF-16",
    "utf-16-le": "UTF-16 (little-endian, no byte-order mark)",
    "utf-16-be": "UTF-16 (big-endian, no byte-order mark)",
    "utf-32": "UTF-32",
    "utf-32-le": "UTF-32 (little-endian, no byte-order mark)",
    "utf-32-be": "UTF-32 (big-endian, no byte-order mark)",
    "cp1252": "Windows-1252",
    "mac_roman": "Mac Roman",
    "latin-1": "Latin-1",
}


def _line_of(raw: bytes, pos: int) -> int:
    return raw.count(b"\n", 0, pos) + 1


def _decode_error(path: Path, raw: bytes, exc: UnicodeDecodeError, encoding: str) -> RatingsError:
    pos = exc.start
    line = _line_of(raw, pos)
    start = raw.rfind(b"\n", 0, pos) + 1
    context = raw[max(start, pos - 12) : pos + 12].split(b"\n")[0]
    return RatingsError(
        str(path),
        [
            f"line {line}: byte 0x{raw[pos]:02X} cannot be decoded as {encoding} "
            f"(in {context!r}); pass the file's encoding with encoding= (--encoding), "
            "e.g. cp1252 for a Windows 'ANSI' export, mac_roman for an old Mac one"
        ],
    )


def _plausibility(text: str) -> int:
    """How much the non-ASCII characters of *text* look like letters of words.

    A lowercase letter inside a word or an uppercase letter starting one
    scores +1; an uppercase letter inside a word, a symbol between letters
    or a control character scores −1. Decodings of the same bytes with the
    wrong code page score lower (``MŸnter``, ``M¸nter`` against ``Münter``).
    """
    score = 0
    for i, ch in enumerate(text):
        if ch < "\x80":
            continue
        prev = text[i - 1] if i else " "
        nxt = text[i + 1] if i + 1 < len(text) else " "
        if ch.isalpha():
            if ch.islower() or not prev.isalpha():
                score += 1
            else:
                score -= 1
        elif "\x80" <= ch <= "\x9f" or (prev.isalpha() and nxt.isalpha()):
            score -= 1
    return score


def _non_ascii_words(text: str, limit: int = 5) -> list[str]:
    words: list[str] = []
    for m in re.finditer(r"[^\s,;|\t\"]*[^\x00-\x7f][^\s,;|\t\"]*", text):
        w = m.group()
        if w not in words:
            words.append(w)
        if len(words) >= limit:
            break
    return words


def decode_text(path: Path, raw: bytes, encoding: str | None) -> tuple[str, str, dict[str, Any]]:
    """Text of *raw*, the encoding used and notes on how it was chosen.

    Parameters
    ----------
    path : Path
        The file, for messages.
    raw : bytes
        Its content.
    encoding : str or None
        An encoding to use instead of detecting one.

    Returns
    -------
    text : str
        Without a byte-order mark.
    encoding : str
        The codec used (``"utf-8"``, ``"utf-16"``, ``"cp1252"``, …).
    notes : dict
        ``encoding_detected``; for a legacy code page, the first byte that is not
        UTF-8 and a sample of the accented words as read.

    Raises
    ------
    RatingsError
        A byte that cannot be decoded, or NUL bytes that no UTF-16/UTF-32 text explains.

    Examples
    --------
    >>> decode_text(Path("r.csv"), "expert\\nMünter\\n".encode("utf-32"), None)[:2]
    ('expert\\nMünter\\n', 'utf-32')
    """
    notes: dict[str, Any] = {}
    if encoding is not None:
        try:
            text = raw.decode(encoding)
        except LookupError:
            raise RatingsError(str(path), [f"unknown encoding {encoding!r}"]) from None
        except UnicodeDecodeError as exc:
            raise _decode_error(path, raw, exc, encoding) from None
        if text.startswith("\ufeff"):
            text = text[1:]
        return text, encoding, {"encoding_detected": False}
    wide = None
    if raw.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        wide = "utf-32"  # before UTF-16: its mark starts the same
    elif raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        wide = "utf-16"
    elif b"\x00" in raw[:4096]:
        # UTF-16 or UTF-32 without a byte-order mark: ASCII text is interleaved with NULs
        wide = wide_encoding(raw[:4096])
        if wide is None:
            raise RatingsError(str(path), [nul_problem(raw, None, wide_ok=False) or ""])
    if wide is not None:
        try:
            text = raw.decode(wide)
        except UnicodeDecodeError as exc:
            raise _decode_error(path, raw, exc, wide.upper()) from None
        return text.removeprefix("\ufeff"), wide, {"encoding_detected": True}
    if raw.startswith(b"\xef\xbb\xbf"):
        try:
            return raw[3:].decode("utf-8"), "utf-8-sig", {"encoding_detected": True}
        except UnicodeDecodeError as exc:
            raise _decode_error(path, raw, exc, "UTF-8") from None
    try:
        return raw.decode("utf-8"), "utf-8", {"encoding_detected": True}
    except UnicodeDecodeError as exc:
        bad_line, bad_byte = _line_of(raw, exc.start), raw[exc.start]
    best: tuple[int, str, str] | None = None
    for enc in _LEGACY:
        try:
            text = raw.decode(enc)
        except UnicodeDecodeError:
            continue
        score = _plausibility(text)
        if best is None or score > best[0]:
            best = (score, enc, text)
    assert best is not None  # mac_roman decodes every byte
    _, enc, text = best
    notes = {
        "encoding_detected": True,
        "not_utf8": f"byte 0x{bad_byte:02X} on line {bad_line}",
        "non_ascii_sample": _non_ascii_words(text),
    }
    return text, enc, notes
