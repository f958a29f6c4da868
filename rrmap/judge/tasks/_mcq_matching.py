"""The rules that match a multiple-choice reply to an option, one function each.

:func:`rrmap.judge.tasks.mcq.match_option` tries :data:`RULES` in order on the
stripped reply; the first that applies decides. A rule returns ``None`` when
it does not apply, or ``(index, rule)`` when it decides: the 0-based option
index and the rule's name, or ``None`` and why the reply is left unmatched
(a letter outside the options, two letters, several option texts). The rules
are documented in :mod:`rrmap.judge.tasks.mcq`.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Sequence

from rrmap.judge.prompting._option_text import named_options, normalise

__all__ = ["LETTERS", "RULES", "Decision"]

#: The option letters, in order: option 0 is ``A``.
LETTERS = string.ascii_uppercase

#: What a rule decided: the option index (or ``None``, unmatched) and the rule, or why not.
Decision = tuple[int | None, str]

# "answer is B", "Option (C)", "my choice: d." — the keyword in any case; the letter is
# checked by _phrase_letter (an English "a" or "I" is not an option letter)
_PHRASE = re.compile(
    r"(?i:answer|option|choice)(?:\s+(?i:is))?\s*[:\-]?\s*(?:(?i:is)\s*)?"
    r"[\(\[*\"']*([A-Za-z])(?![A-Za-z])([\)\]*\"']*)(?=(?P<after>[^\n]{0,24}))"
)
# "B and C", "B or C", "B, C", "B/C" right after a letter: several answers
_MORE = re.compile(r"^\s*(?:,|/|&|\band\b|\bor\b)\s*[\(\[]?([A-Z])(?![A-Za-z])")
# blanks, markdown emphasis, quotes and brackets around a bare letter, final punctuation
_BARE = re.compile(r"^[\s*_`\"'(\[]+|[\s*_`\"')\].:,;!]+$")
# "B) No", "C. Low, because ...": an upper-case letter and ")", "." or ":" first
_PREFIX = re.compile(r"^[\s*_`\"'(\[]*([A-Z])[\)\].:](?:\s|$)")


def _letter(letter: str, n: int, rule: str) -> Decision:
    """*letter* as the index of one of *n* options, decided by *rule*, or why not."""
    i = LETTERS.find(letter.upper())
    if not 0 <= i < n:
        return None, f"unmatched: letter {letter.upper()!r} is not among the {n} options"
    return i, rule


def bare_letter(text: str, options: Sequence[str]) -> Decision | None:
    """Rule ``letter``: the reply is one letter, dressed or not (``(B)``, ``**B.**``).

    Examples
    --------
    >>> bare_letter("**B.**", ["Yes", "No"]), bare_letter("C", ["Yes", "No"])
    ((1, 'letter'), (None, "unmatched: letter 'C' is not among the 2 options"))
    >>> bare_letter("B) No", ["Yes", "No"]) is None
    True
    """
    bare = _BARE.sub("", text)
    if len(bare) == 1 and bare.isalpha():
        return _letter(bare, len(options), "letter")
    return None


def letter_prefix(text: str, options: Sequence[str]) -> Decision | None:
    """Rule ``letter_prefix``: the reply starts with ``B)``, ``B.`` or ``B:``; the text
    after it, when it is an option's, must be that letter's option.

    Examples
    --------
    >>> letter_prefix("C. Low, because it is blurred", ["High", "Medium", "Low"])
    (2, 'letter_prefix')
    >>> letter_prefix("C) Medium", ["High", "Medium", "Low"])
    (None, "unmatched: letter 'C' but the text of option 'B'")
    """
    m = _PREFIX.match(text)
    if not m:
        return None
    i, rule = _letter(m.group(1), len(options), "letter_prefix")
    if i is None:
        return i, rule
    rest = normalise(text[m.end() :])
    named = [j for j, o in enumerate(options) if rest and normalise(o) == rest]
    if named and named[0] != i:
        return (
            None,
            f"unmatched: letter {m.group(1)!r} but the text of option {LETTERS[named[0]]!r}",
        )
    return i, rule


def _phrase_letter(m: re.Match[str]) -> str | None:
    """The option letter an "answer is X" phrase names, or ``None`` when X is a word.

    An uppercase letter is a letter, except ``I`` followed by a word ("the
    answer is I think B"); a lowercase one only when nothing but punctuation
    follows it ("answer: b."), never before a word ("the answer is a bit
    unclear", "my choice is a medium one").

    Examples
    --------
    >>> [_phrase_letter(m) for m in _PHRASE.finditer("The answer is a bit unclear; option b.")]
    [None, 'B']
    """
    letter, closing, after = m.group(1), m.group(2), m.group("after")
    word_follows = re.match(r"\s+[A-Za-z]", after) is not None and not closing
    if letter.isupper():
        return None if letter == "I" and word_follows else letter
    if word_follows or re.match(r"\s*[A-Za-z]", after):
        return None
    return letter.upper()


def answer_phrase(text: str, options: Sequence[str]) -> Decision | None:
    """Rule ``answer_phrase``: phrases such as ``answer is B``, ``option (C)`` name exactly
    one letter (``B or C`` right after one names two).

    Examples
    --------
    >>> answer_phrase("I think the answer is (B).", ["Yes", "No"])
    (1, 'answer_phrase')
    >>> answer_phrase("Option A or B, hard to say.", ["Yes", "No"])
    (None, "unmatched: the reply names several letters ['A', 'B']")
    """
    letters: list[str] = []
    for m in _PHRASE.finditer(text):
        letter = _phrase_letter(m)
        if letter is None:
            continue
        letters.append(letter)
        more = _MORE.match(m.group("after"))
        if more:
            letters.append(more.group(1))
    named = sorted(set(letters))
    if len(named) > 1:
        return None, f"unmatched: the reply names several letters {named}"
    if len(named) == 1:
        return _letter(named[0], len(options), "answer_phrase")
    return None


def option_text(text: str, options: Sequence[str]) -> Decision | None:
    """Rule ``text``: the reply, lower-cased and without punctuation, is one option's text.

    Examples
    --------
    >>> option_text("Medium!", ["High", "Medium", "Low"])
    (1, 'text')
    """
    normed = normalise(text)
    exact = [i for i, o in enumerate(options) if normalise(o) == normed]
    return (exact[0], "text") if len(exact) == 1 else None


def contained_text(text: str, options: Sequence[str]) -> Decision | None:
    """Rule ``text_contained``: exactly one option's text occurs in the reply as whole
    words, and is not negated (an option inside a longer one that also occurs does not
    count apart).

    Examples
    --------
    >>> contained_text("It has medium appeal.", ["High", "Medium", "Low"])
    (1, 'text_contained')
    >>> contained_text("Not grainy noise at all.", ["Grainy noise", "Blur"])
    (None, "unmatched: the reply names the text of option 'A' only to negate it")
    >>> contained_text("Hard to say.", ["Yes", "No"]) is None
    True
    """
    inside, negated = named_options(text, options)
    inside = [
        i
        for i in inside
        if not any(j != i and normalise(options[i]) in normalise(options[j]) for j in inside)
    ]
    if len(inside) == 1:
        return inside[0], "text_contained"
    if len(inside) > 1:
        return None, "unmatched: the reply contains several options' texts"
    if negated:
        names = ", ".join(repr(LETTERS[i]) for i in negated)
        return None, f"unmatched: the reply names the text of option {names} only to negate it"
    return None


#: The rules, in the order they are tried (the ``llm`` rule is a call, made by the run).
RULES: tuple[Callable[[str, Sequence[str]], Decision | None], ...] = (
    bare_letter,
    letter_prefix,
    answer_phrase,
    option_text,
    contained_text,
)
