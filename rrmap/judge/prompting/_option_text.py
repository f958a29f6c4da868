"""Which options a multiple-choice reply names by their text, and which it only negates.

"It has no grainy noise at all." names the option *Grainy noise* only to say
it is not there: such a mention chooses nothing. A mention is negated when a
negating word comes before it in the same sentence (*no*, *not*, *without*,
*rather than*, *n't* …) or a negating phrase follows it (*is absent*, *is
not*); negating words inside the option's own text ("No visible flaws") are
its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["named_options", "normalise"]


def normalise(text: str) -> str:
    """*text* in lower case, punctuation as blanks, blanks collapsed: how texts are compared.

    Examples
    --------
    >>> normalise("  Grainy-Noise!  ")
    'grainy noise'
    """
    text = text.lower()
    text = re.sub(r"[^\w\s]", " ", text)
    return " ".join(text.split())


# A word before an option's text in the same sentence that negates or sets it aside
# ("no grainy noise", "not blurry", "without", "rather than", "isn't"), or words right
# after it that do ("grainy noise is absent"). Such a mention chooses nothing.
_NEGATION_BEFORE = re.compile(
    r"\b(?:no|not|never|none|neither|nor|without|lacks?|lacking|lacked|absence|absent|"
    r"free|rather|instead|other|except|unlike|hardly|barely|cannot)\b|n['\u2019]t\b",
    re.IGNORECASE,
)
_NEGATION_AFTER = re.compile(
    r"^\s*(?:(?:is|are|was|were|seems?)\s+)?(?:absent|missing|lacking|not\b|"
    r"(?:is|are|was|were)n['\u2019]t\b)",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.;!?\n]+")


def named_options(text: str, options: Sequence[str]) -> tuple[list[int], list[int]]:
    """The options whose text *text* affirms, and those it names only negated.

    Parameters
    ----------
    text : str
        A reply.
    options : sequence of str
        The options as shown.

    Returns
    -------
    affirmed, negated : list of int
        Indices of the options named (as whole words) in some sentence without
        a negation, and of those named only with one.

    Examples
    --------
    >>> named_options("It has no grainy noise at all.", ["Grainy noise", "Blur"])
    ([], [0])
    >>> named_options("Grainy noise, not blur.", ["Grainy noise", "Blur"])
    ([0], [1])
    """
    affirmed: set[int] = set()
    negated: set[int] = set()
    for sentence in _SENTENCE_END.split(text):
        for i, option in enumerate(options):
            words = normalise(option).split()
            if not words:
                continue
            pattern = r"(?<!\w)" + r"\W+".join(map(re.escape, words)) + r"(?!\w)"
            for m in re.finditer(pattern, sentence, re.IGNORECASE):
                before, after = sentence[: m.start()], sentence[m.end() :]
                if _NEGATION_BEFORE.search(before) or _NEGATION_AFTER.match(after):
                    negated.add(i)
                else:
                    affirmed.add(i)
    return sorted(affirmed), sorted(negated - affirmed)
