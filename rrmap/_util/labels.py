"""The ``within`` labels of the tests table: ``movement=cubism``, quoted when a name holds ``=``."""

from __future__ import annotations

__all__ = ["split_within", "within_label"]


def _quote(text: str) -> str:
    """*text*, in double quotes (inner quotes doubled) if it holds ``=`` or starts with a quote."""
    if "=" in text or text.startswith('"'):
        return '"' + text.replace('"', '""') + '"'
    return text


def within_label(column: str, value: object) -> str:
    """The ``within`` label of the subset ``column == value``: ``movement=cubism``.

    A column name or value holding ``=`` is quoted, so that two subsets never
    share a label (category ``a=b`` with option ``c`` is ``"a=b"=c``, category
    ``a`` with option ``b=c`` is ``a="b=c"``).

    Examples
    --------
    >>> within_label("movement", "cubism"), within_label("a=b", "c"), within_label("a", "b=c")
    ('movement=cubism', '"a=b"=c', 'a="b=c"')
    """
    return f"{_quote(str(column))}={_quote(str(value))}"


def split_within(label: str) -> tuple[str, str]:
    """The column and value of a ``within`` label (quotes removed); ``("all", "")`` for ``all``.

    Examples
    --------
    >>> split_within('a="b=c"'), split_within("movement=cubism")
    (('a', 'b=c'), ('movement', 'cubism'))
    """
    if label == "all":
        return "all", ""
    parts: list[str] = []
    i = 0
    for _ in range(2):
        if label.startswith('"', i):
            j = i + 1
            buf = []
            while j < len(label):
                if label[j] == '"':
                    if label.startswith('""', j):
                        buf.append('"')
                        j += 2
                        continue
                    break
                buf.append(label[j])
                j += 1
            parts.append("".join(buf))
            i = j + 2  # closing quote and "="
        else:
            j = label.find("=", i) if not parts else len(label)
            j = len(label) if j < 0 else j
            parts.append(label[i:j])
            i = j + 1
    return parts[0], parts[1]
