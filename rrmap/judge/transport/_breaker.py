"""A circuit breaker for a run whose endpoint does not work (docs/judge.md, "Failures").

Every HTTP attempt of a run ends as a success or a failure (a transient
status such as 500 or 503, a timeout, a dropped or refused connection, a
body that is not a chat completion; a 429 asks to slow down and is neither).
The breaker trips — and the run stops with one line — when

- the first :attr:`Breaker.first` attempts of the run all failed (the
  endpoint never worked), or
- over the last :attr:`Breaker.window` attempts, the share that failed
  reached :attr:`Breaker.rate` (``--fail-on-error``; by default 1: every one
  of them, as when the server went away in the middle of the run).

Without it every call would go through all its retries and backoff: 40
calls against a server answering 500 to everything took 318 s and 280
requests.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

__all__ = ["Breaker"]


@dataclass
class Breaker:
    """Counts the outcomes of HTTP attempts and says when to stop.

    Parameters
    ----------
    first : int, default 5
        Failed attempts, with none succeeded before, that stop the run.
    window : int, default 20
        Attempts over which the failure rate is taken.
    rate : float, default 1.0
        Share of failed attempts over a full window that stops the run.

    Examples
    --------
    >>> b = Breaker(first=3)
    >>> [b.record(False) for _ in range(3)][-1]
    'the first 3 attempts all failed'
    >>> b = Breaker(window=4, rate=0.5)
    >>> [b.record(ok) for ok in (True, True, False, False)][-1]
    '2 of the last 4 attempts failed (--fail-on-error 0.5)'
    """

    first: int = 5
    window: int = 20
    rate: float = 1.0
    succeeded: int = 0
    failed: int = 0
    _recent: deque[bool] = field(default_factory=deque, repr=False)

    def __post_init__(self) -> None:
        from rrmap.errors import InputError

        if not 0 < self.rate <= 1:
            raise InputError(f"--fail-on-error must be in (0, 1], got {self.rate}")
        if self.first < 1 or self.window < 1:
            raise InputError("the breaker needs first >= 1 and window >= 1")

    def record(self, ok: bool) -> str | None:
        """Count one attempt; the reason to stop when the breaker trips, else ``None``."""
        if ok:
            self.succeeded += 1
        else:
            self.failed += 1
        self._recent.append(ok)
        if len(self._recent) > self.window:
            self._recent.popleft()
        if not self.succeeded and self.failed >= self.first:
            return f"the first {self.failed} attempts all failed"
        bad = self._recent.count(False)
        if len(self._recent) == self.window and bad >= self.rate * self.window:
            how = f" (--fail-on-error {self.rate:g})" if self.rate < 1 else ""
            return f"{bad} of the last {self.window} attempts failed{how}"
        return None
