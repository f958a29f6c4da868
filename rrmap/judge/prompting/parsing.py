"""Reading structured answers out of model replies, without guessing.

A reply is searched, in this order, for a mapping written as: the whole reply
as JSON or as a Python dict literal; the content of a fenced code block
(```json ...```); any balanced ``{...}`` span inside surrounding prose (JSON
first, then a Python literal). The first mapping holding every required field
wins. Failing that, ``field: value`` / ``field = value`` pairs written in the
prose are accepted, but only when every required field is found and no field
is given two different values. A reply holding two mappings that disagree on
a decision (``{"winner": 0}`` … ``{"winner": 1}``) is invalid, not read as
the first; so is a mapping that gives one key two different values
(``{"winner": 0, "winner": 1}``, which JSON would read as its last). Each
field's value is then checked by its converter. Anything else is *invalid*: the
raw text is kept and no value is made up.

Parsing never raises on a reply, whatever it holds: a mapping nested deeper
than Python can read (``{"a":`` repeated a hundred thousand times) is no
mapping, so such a reply is simply invalid, and a cached copy of it reads
as invalid again on every rerun instead of stopping the run. The work is
linear in the length of the reply, and at most the first :data:`MAX_SPANS`
``{...}`` spans of a reply are tried.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Parsed", "choice01", "extract_mapping", "parse_fields", "score012", "text_field"]

#: Balanced ``{...}`` spans of one reply looked at, at most (the first ones).
MAX_SPANS = 10_000

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n?(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class Parsed:
    """Outcome of parsing one reply: a mapping, or the reason there is none.

    Examples
    --------
    >>> p = parse_fields('{"winner": 1}', {"winner": choice01})
    >>> p.ok, p.value
    (True, {'winner': 1})
    """

    value: dict[str, Any] | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        """``True`` when a valid mapping was read."""
        return self.value is not None


def _balanced_spans(text: str) -> list[str]:
    spans: list[str] = []
    depth = 0
    start = -1
    quote: str | None = None
    escape = False
    prev = ""  # the last character before this one that is not blank (linear, not text[:i])
    for i, ch in enumerate(text):
        last, prev = prev, (prev if ch.isspace() else ch)
        if quote:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == quote:
                quote = None
            continue
        if ch in "\"'" and depth > 0:
            # an apostrophe inside prose-like values would unbalance; only treat as a
            # quote when it opens a string right after a structural character
            if last in "{[,:" or ch == '"':
                quote = ch
            continue
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                spans.append(text[start : i + 1])
    return spans


class _DuplicateKey(Exception):
    """A mapping that gives one key two different values (JSON would keep the last)."""

    def __init__(self, key: Any, first: Any, second: Any) -> None:
        super().__init__(
            f"the reply gives the key {key!r} twice, with different values {first!r} and {second!r}"
        )


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` of :func:`json.loads`: a key repeated with another value is refused."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out and out[key] != value:
            raise _DuplicateKey(key, out[key], value)
        out[key] = value
    return out


def _check_literal_keys(candidate: str) -> None:
    """Raise :class:`_DuplicateKey` when a dict display in *candidate* repeats a key."""
    for node in ast.walk(ast.parse(candidate, mode="eval")):
        if not isinstance(node, ast.Dict):
            continue
        seen: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if not isinstance(key, ast.Constant):
                continue
            val = ast.literal_eval(value)
            if key.value in seen and seen[key.value] != val:
                raise _DuplicateKey(key.value, seen[key.value], val)
            seen[key.value] = val


def _as_mapping(candidate: str) -> dict[str, Any] | None:
    """*candidate* read as a JSON object or a Python dict, or None; :class:`_DuplicateKey`
    when it gives one key two different values."""
    candidate = candidate.strip()
    if not candidate:
        return None
    try:
        value = json.loads(candidate, object_pairs_hook=_unique_pairs)
    except (ValueError, RecursionError, MemoryError):  # nested too deeply: not a mapping
        try:
            value = ast.literal_eval(candidate)
            if isinstance(value, dict):
                _check_literal_keys(candidate)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
    return value if isinstance(value, dict) else None


def extract_mapping(text: str, required: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """Find the first mapping in *text* that holds every *required* key.

    Parameters
    ----------
    text : str
        A model reply.
    required : tuple of str
        Keys the mapping must hold.

    Returns
    -------
    dict or None

    Examples
    --------
    >>> extract_mapping("Sure! ```json\\n{\\"winner\\": 0}\\n``` Hope this helps.")
    {'winner': 0}
    >>> extract_mapping("I think {'winner': 1} because of the colours.")
    {'winner': 1}
    >>> extract_mapping("The left one is better.") is None
    True
    """
    found, duplicate = _mappings(text, required)
    return found[0] if found and duplicate is None else None


def _mappings(text: str, required: tuple[str, ...] = ()) -> tuple[list[dict[str, Any]], str | None]:
    """Every mapping in *text* (whole, fenced, inline) holding the *required* keys, in order,
    and why the reply is invalid when one of them gives a key two different values."""
    candidates = [text]
    candidates += [m.group(2) for m in _FENCE.finditer(text)]
    candidates += _balanced_spans(text)[:MAX_SPANS]
    out = []
    for cand in candidates:
        if required and "\\u" not in cand and not all(k in cand for k in required):
            continue  # cannot hold the keys: not worth parsing (a \u escape could spell one)
        try:
            mapping = _as_mapping(cand)
        except _DuplicateKey as exc:
            return [], str(exc)
        if mapping is not None and all(k in mapping for k in required):
            out.append(mapping)
    return out, None


def _prose_pairs(text: str, fields: tuple[str, ...]) -> tuple[dict[str, Any] | None, str | None]:
    found: dict[str, Any] = {}
    for name in fields:
        pattern = re.compile(
            r"(?<![A-Za-z0-9_])[\"']?" + re.escape(name) + r"[\"']?\s*[:=]\s*"
            r"(\"[^\"]*\"|'[^']*'|[-+]?\d+(?:\.\d+)?|[A-Za-z]+)",
            re.IGNORECASE,
        )
        values = {m.group(1).strip("\"'") for m in pattern.finditer(text)}
        if not values:
            return None, None
        if len(values) > 1:
            return None, f"field {name!r} is given conflicting values {sorted(values)}"
        raw = values.pop()
        found[name] = int(raw) if re.fullmatch(r"[-+]?\d+", raw) else raw
    return found, None


def parse_fields(text: str | None, fields: Mapping[str, Callable[[Any], Any]]) -> Parsed:
    """Read the required *fields* from a reply and check each with its converter.

    Parameters
    ----------
    text : str or None
        The reply.
    fields : mapping of str to callable
        Field name → converter that returns the clean value or raises
        ``ValueError`` with a reason.

    Returns
    -------
    Parsed
        ``value`` holds only the required fields (converted); ``error`` says
        why there is no value.

    Examples
    --------
    >>> parse_fields("winner: 1", {"winner": choice01}).value
    {'winner': 1}
    >>> parse_fields("{'winner': 2}", {"winner": choice01}).error
    "field 'winner': 2 is not 0 or 1"
    >>> parse_fields("Left, clearly.", {"winner": choice01}).error
    'no JSON object or dict with the fields winner'
    """
    if text is None or not text.strip():
        return Parsed(None, "empty reply")
    names = tuple(fields)
    found, duplicate = _mappings(text, names)
    if duplicate is not None:
        return Parsed(None, duplicate)
    conflict = _conflict(found, fields)
    if conflict:
        return Parsed(None, conflict)
    mapping = found[0] if found else None
    if mapping is None:
        mapping, conflict = _prose_pairs(text, names)
        if conflict:
            return Parsed(None, conflict)
        if mapping is None:
            return Parsed(None, f"no JSON object or dict with the fields {', '.join(names)}")
    out: dict[str, Any] = {}
    problems = []
    for name, conv in fields.items():
        try:
            out[name] = conv(mapping[name])
        except (ValueError, TypeError) as exc:
            problems.append(f"field {name!r}: {exc}")
    if problems:
        return Parsed(None, "; ".join(problems))
    return Parsed(out)


def _conflict(
    found: list[dict[str, Any]], fields: Mapping[str, Callable[[Any], Any]]
) -> str | None:
    """Why several mappings in one reply disagree on a decision field (text fields aside)."""
    decisions = [name for name, conv in fields.items() if conv is not text_field]
    seen: dict[str, Any] = {}
    for mapping in found:
        for name in decisions:
            try:
                value = fields[name](mapping[name])
            except (ValueError, TypeError):
                continue
            if name in seen and seen[name] != value:
                return (
                    f"the reply gives conflicting answers: {name!r} is {seen[name]!r} and {value!r}"
                )
            seen.setdefault(name, value)
    return None


def choice01(value: Any) -> int:
    """Converter for a 2AFC answer key: 0/1 (also "0"/"1", "left"/"right").

    Examples
    --------
    >>> choice01("1"), choice01(0), choice01("Left")
    (1, 0, 0)
    """
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not 0 or 1")
    if isinstance(value, int | float) and value in (0, 1):
        return int(value)
    if isinstance(value, str):
        v = value.strip().lower()
        table = {"0": 0, "1": 1, "left": 0, "right": 1}
        if v in table:
            return table[v]
    raise ValueError(f"{value!r} is not 0 or 1")


def score012(value: Any) -> int:
    """Converter for a 0–2 grade (integers only; ``"2"`` is accepted).

    Examples
    --------
    >>> score012("2")
    2
    """
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not 0, 1 or 2")
    if isinstance(value, str) and value.strip() in ("0", "1", "2"):
        return int(value.strip())
    if isinstance(value, int | float) and value in (0, 1, 2):
        return int(value)
    raise ValueError(f"{value!r} is not 0, 1 or 2")


def text_field(value: Any) -> str:
    """Converter for a free-text field (must be a non-empty string).

    Examples
    --------
    >>> text_field(" fine ")
    'fine'
    """
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{value!r} is not a non-empty text")
    return value.strip()
