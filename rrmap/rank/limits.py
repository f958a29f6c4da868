"""The sizes :mod:`rrmap.rank` accepts, checked before any work or allocation.

A request past one of these limits fails at once with one line that says the
size asked for, the limit and what to do, instead of exhausting memory after
minutes of work. The memory a fit needs is estimated from the number of
candidates ``k`` and comparisons ``n`` of every group before the first group
is fitted (see docs/rank.md, "Limits and safe outputs").

======================  ==============  ==================================================
limit                   value           what it bounds
======================  ==============  ==================================================
``MEMORY_LIMIT``        2,000,000,000   bytes one fit, filter or design may need (a
                                        Bradley–Terry fit holds about ten dense k × k
                                        float64 matrices: about 5,000 candidates)
``MAX_RESAMPLES``       100,000         bootstrap resamples, Elo orders, split halves
``MAX_PERMUTATIONS``    10,000,000      permutations of one Spearman test
``MAX_QUESTIONS``       1,000,000       questions (rows) of a design, and its instances
``MAX_DESIGN_WORK``     5,000,000,000   pair scans of the per-instance design (instances
                                        × added edges × pairs; about two minutes)
``MAX_FILE_BYTES``      268,435,456     bytes of a JSON file or name list read whole
======================  ==============  ==================================================
"""

from __future__ import annotations

from rrmap.errors import InputError

__all__ = [
    "MAX_DESIGN_WORK",
    "MAX_FILE_BYTES",
    "MAX_PERMUTATIONS",
    "MAX_QUESTIONS",
    "MAX_RESAMPLES",
    "MEMORY_LIMIT",
    "check_count",
    "check_memory",
    "format_bytes",
]

#: Bytes one fit, filter or design may need, estimated before it starts.
MEMORY_LIMIT = 2_000_000_000
#: Bootstrap resamples, Elo orders (``n_shuffles``) and split halves of one call.
MAX_RESAMPLES = 100_000
#: Permutations of one Spearman permutation test.
MAX_PERMUTATIONS = 10_000_000
#: Questions (rows) of one design, and instances named for it.
MAX_QUESTIONS = 1_000_000
#: Candidate-pair scans of the per-instance greedy design (instances × added edges × pairs).
MAX_DESIGN_WORK = 5_000_000_000
#: Bytes of a JSON file (FineArtBench, a ranking) or a list of names read whole.
MAX_FILE_BYTES = 256 * 2**20


def check_count(name: str, value: object, limit: str, minimum: int = 0) -> int:
    """*value* as an integer from *minimum* to the constant named *limit*, or a one-line error.

    Examples
    --------
    >>> check_count("bootstrap", 1000, "MAX_RESAMPLES")
    1000
    >>> check_count("bootstrap", 10**12, "MAX_RESAMPLES")
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: bootstrap 1000000000000 is above the limit of 100000 \
(rrmap.rank.limits.MAX_RESAMPLES)
    """
    maximum = int(globals()[limit])
    ok = not isinstance(value, bool)
    try:
        as_int = int(value)  # type: ignore[call-overload]
        ok = ok and as_int == value and as_int >= minimum
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise InputError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if as_int > maximum:
        raise InputError(
            f"{name} {as_int} is above the limit of {maximum} (rrmap.rank.limits.{limit})"
        )
    return as_int


def format_bytes(n: int) -> str:
    """*n* bytes in decimal units, for messages.

    Examples
    --------
    >>> format_bytes(8_000_000_000), format_bytes(2_000_000_000), format_bytes(1536)
    ('8.0 GB', '2.0 GB', '1.5 kB')
    """
    size = float(n)
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if size < 1000 or unit == "TB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1000
    raise AssertionError("unreachable")


def check_memory(what: str, needed: int, advice: str) -> None:
    """Refuse *what* if its estimated memory *needed* (bytes) is above :data:`MEMORY_LIMIT`.

    Examples
    --------
    >>> check_memory("a fit of 10 candidates", 80_000, "use fewer")
    >>> check_memory("a fit of 10000 candidates", 8 * 10**9, "filter candidates")
    Traceback (most recent call last):
    ...
    rrmap.errors.InputError: a fit of 10000 candidates needs about 8.0 GB of memory, \
above the limit of 2.0 GB (rrmap.rank.limits.MEMORY_LIMIT); filter candidates
    """
    if needed > MEMORY_LIMIT:
        raise InputError(
            f"{what} needs about {format_bytes(needed)} of memory, above the limit of "
            f"{format_bytes(MEMORY_LIMIT)} (rrmap.rank.limits.MEMORY_LIMIT); {advice}"
        )
