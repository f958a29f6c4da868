"""A budget for paid calls: at most N calls, at most so many dollars (docs/judge.md).

Prices are per million tokens, input and output, as providers list them
(``--price-in``/``--price-out`` or a prices file). Before a paid call is sent
its worst case is reserved — the largest prompt it can have and a full
``max_tokens`` reply — and the call is not sent when the reservation would
pass the budget; after it, the reservation is replaced by what the endpoint
reported. So a run stops *before* it would exceed the budget, keeping every
answer it has (and the cache), and a rerun with a larger budget continues
where it stopped. Cached answers cost nothing and are not counted.

An answer whose endpoint reports no usable token counts (no ``usage``,
negative, unreadable: :func:`~rrmap.judge.transport.usage.reported_usage`)
is charged the most the call could have cost — its prompt estimate and a
full ``max_tokens`` reply, as reserved — never nothing: whatever a server
says, the budget is not passed.
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rrmap.errors import InputError

__all__ = [
    "Budget",
    "BudgetExhausted",
    "Prices",
    "Reservation",
    "estimate_prompt_tokens",
    "load_prices",
    "usage_warning",
]

#: Prompt tokens assumed per image before any call has reported its usage (a 512-pixel
#: image is about 250–800 tokens with the usual tilings; the estimate errs high).
TOKENS_PER_IMAGE = 1500


class BudgetExhausted(RuntimeError):
    """A call was not sent because it could pass ``max_calls`` or ``max_cost``.

    Examples
    --------
    >>> str(BudgetExhausted("not sent: 10 paid calls reached --max-calls 10"))
    'not sent: 10 paid calls reached --max-calls 10'
    """


@dataclass(frozen=True)
class Prices:
    """US dollars per million tokens.

    Parameters
    ----------
    input, output : float
        Price of a million prompt / completion tokens.
    batch_discount : float, default 0.5
        Factor applied to calls answered through a batch API (about half
        price at the providers that offer one).

    Examples
    --------
    >>> Prices(2.5, 10.0).cost(1_000_000, 100_000)
    3.5
    >>> Prices(2.5, 10.0).cost(1_000_000, 100_000, batch=True)
    1.75
    """

    input: float
    output: float
    batch_discount: float = 0.5

    def __post_init__(self) -> None:
        bad = [
            f"{name} price {value!r}"
            for name, value in (("input", self.input), ("output", self.output))
            if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0)
        ]
        if not 0 < self.batch_discount <= 1:
            bad.append(f"batch discount {self.batch_discount!r} (needs 0 < d <= 1)")
        if bad:
            raise InputError("prices: " + ", ".join(bad) + " is not a usable number")

    def cost(self, prompt_tokens: int, completion_tokens: int, batch: bool = False) -> float:
        """Dollars for one call's tokens."""
        usd = (prompt_tokens * self.input + completion_tokens * self.output) / 1e6
        return usd * (self.batch_discount if batch else 1.0)


def load_prices(path: str | os.PathLike[str], model: str) -> Prices:
    """Read the prices of *model* from a YAML or JSON file.

    The file maps model names to ``{input: …, output: …}`` (USD per million
    tokens, optionally ``batch_discount``); a ``default`` entry serves models
    not listed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "prices.yaml"
    >>> _ = p.write_text("gpt-4o: {input: 2.5, output: 10}\\n")
    >>> load_prices(p, "gpt-4o")
    Prices(input=2.5, output=10.0, batch_discount=0.5)
    """
    import yaml

    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(2, "no such prices file", str(p))
    try:
        text = p.read_text(encoding="utf-8")
        data = json.loads(text) if p.suffix.lower() == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise InputError(f"{p}: not a prices file ({' '.join(str(exc).split())})") from None
    if not isinstance(data, Mapping):
        raise InputError(f"{p}: expected model names mapped to {{input, output}} prices")
    entry = data.get(model, data.get("default"))
    if entry is None:
        raise InputError(f"{p}: no prices for model {model!r} and no 'default' entry")
    if not isinstance(entry, Mapping) or not {"input", "output"} <= set(entry):
        raise InputError(f"{p}: the prices of {model!r} need 'input' and 'output'")
    try:
        return Prices(
            float(entry["input"]),
            float(entry["output"]),
            float(entry.get("batch_discount", 0.5)),
        )
    except (TypeError, ValueError):
        raise InputError(f"{p}: the prices of {model!r} are not numbers") from None


def _walk(messages: Any) -> tuple[int, int]:
    """Characters of text and number of images in chat messages."""
    chars = images = 0
    stack = [messages]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            chars += len(item)
        elif isinstance(item, Mapping):
            if item.get("type") == "image_url" or "image_url" in item:
                images += 1
                continue
            stack.extend(item.values())
        elif isinstance(item, Sequence):
            stack.extend(item)
    return chars, images


def estimate_prompt_tokens(body: Mapping[str, Any]) -> int:
    """A generous estimate of a request's prompt tokens (3 characters a token, 1500 an image).

    Examples
    --------
    >>> estimate_prompt_tokens({"messages": [{"role": "user", "content": "x" * 300}]})
    106
    """
    chars, images = _walk(body.get("messages", []))
    return math.ceil(chars / 3) + TOKENS_PER_IMAGE * images + 4


@dataclass
class Reservation:
    """Calls and dollars set aside for one call, or for every turn of one conversation.

    Besides what it holds, a reservation remembers how it was estimated (the
    first request's prompt estimate, ``max_tokens``, batch price, the turns
    made), so that the budget can re-estimate what it still needs when the
    endpoint reports more tokens than were expected.

    Examples
    --------
    >>> Reservation(calls=3, cost=0.25)
    Reservation(calls=3, cost=0.25)
    """

    calls: int
    cost: float
    guess: int = field(default=0, repr=False)
    max_tokens: int = field(default=0, repr=False)
    batch: bool = field(default=False, repr=False)
    made: int = field(default=0, repr=False)


#: Prompt tokens allowed for the text of each later turn of a conversation (its instruction
#: or a format reminder: a few hundred characters), on top of the earlier replies.
TOKENS_PER_TURN = 400

#: Dollars below which two amounts count as equal (sums of float shares drift).
_EPS = 1e-12


@dataclass
class Budget:
    """Limits on the paid calls of a run, enforced before each call is sent.

    A conversation (the three turns of an ArtCoT judgement and its format
    re-ask) reserves all its turns before its first call, so a budget buys
    whole answers, never a first turn whose later turns it cannot pay for. A
    turn's worst case counts the prompt growing by a full reply and
    :data:`TOKENS_PER_TURN` per earlier turn.

    The budget is spent up to its limit and never past it:

    - :meth:`reserve_waiting` waits for calls in flight to settle before it
      refuses; it refuses only when nothing is in flight and the rest of the
      budget cannot cover the worst case asked for;
    - :meth:`use` replaces a call's share of its reservation by what the
      endpoint reported, and when the reported prompt tokens show the
      estimate was low, raises the estimate of every later reservation *and*
      of the reservations still held;
    - :meth:`check` re-estimates, just before a call is sent, what its
      reservation still needs from the actual request, and grows it or
      refuses the call.

    Parameters
    ----------
    max_calls : int, optional
        Paid calls at most (cached answers are free and not counted).
    max_cost : float, optional
        US dollars at most; needs *prices*.
    prices : Prices, optional
        Also used, without a limit, to report what a run cost.

    Examples
    --------
    >>> b = Budget(max_calls=4)
    >>> r = b.reserve({"messages": []}, max_tokens=10, turns=3)
    >>> b.use(r, prompt_tokens=5, completion_tokens=2)
    >>> try:
    ...     b.reserve({"messages": []}, max_tokens=10, turns=3)
    ... except BudgetExhausted as exc:
    ...     print(str(exc)[:45])
    not sent: 1 paid and 2 reserved call(s) leave
    """

    max_calls: int | None = None
    max_cost: float | None = None
    prices: Prices | None = None
    calls: int = 0
    cost: float = 0.0
    reserved_calls: int = 0
    reserved_cost: float = 0.0
    _ratio: float = 1.0
    _out_ratio: float = 1.0
    _seen: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _live: dict[int, Reservation] = field(default_factory=dict, repr=False)
    _waiters: list[Any] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        if self.max_calls is not None and self.max_calls < 0:
            raise InputError(f"max_calls must be >= 0, got {self.max_calls}")
        if self.max_cost is not None:
            if not (math.isfinite(self.max_cost) and self.max_cost >= 0):
                raise InputError(f"max_cost must be a non-negative number, got {self.max_cost}")
            if self.prices is None:
                raise InputError(
                    "max_cost needs prices: --price-in and --price-out (USD per million "
                    "tokens) or --prices FILE"
                )

    @property
    def limited(self) -> bool:
        """Whether any limit is set."""
        return self.max_calls is not None or self.max_cost is not None

    def _turns_cost(
        self, guess: int, max_tokens: int, batch: bool, first: int, turns: int
    ) -> float:
        """Worst case of turns *first* … *first* + *turns* − 1 of a conversation."""
        if self.prices is None:
            return 0.0
        reply = math.ceil(max_tokens * self._out_ratio)
        return sum(
            self.prices.cost(
                math.ceil((guess + t * TOKENS_PER_TURN) * self._ratio) + t * reply, reply, batch
            )
            for t in range(first, first + turns)
        )

    def worst_case(
        self, body: Mapping[str, Any], max_tokens: int, batch: bool = False, turns: int = 1
    ) -> float:
        """The most *turns* calls starting with *body* can cost (0 without prices).

        Examples
        --------
        >>> b = Budget(prices=Prices(1e6, 0.0))  # a dollar a prompt token
        >>> b.worst_case({"messages": []}, max_tokens=10, turns=2)  # 4, then 4 + 10 + 400
        418.0
        """
        return self._turns_cost(estimate_prompt_tokens(body), max_tokens, batch, 0, turns)

    def _refusal(self, turns: int, worst: float) -> str | None:
        """Why *turns* more calls costing up to *worst* do not fit now (``None``: they do)."""
        if self.max_calls is not None and self.calls + self.reserved_calls + turns > self.max_calls:
            return (
                f"not sent: {self.calls} paid and {self.reserved_calls} reserved call(s) "
                f"leave no room for {turns} more under --max-calls {self.max_calls}"
            )
        if self.max_cost is not None and (
            self.cost + self.reserved_cost + worst > self.max_cost + _EPS
        ):
            return (
                f"not sent: ${self.cost + self.reserved_cost:.4f} spent or reserved and "
                f"{'this call' if turns == 1 else f'these {turns} calls'} could cost up to "
                f"${worst:.4f}, over the limit --max-cost {self.max_cost:g}"
            )
        return None

    def _hold(self, body: Mapping[str, Any], max_tokens: int, batch: bool, turns: int) -> Any:
        """Under the lock: a new reservation, or the reason it does not fit."""
        guess = estimate_prompt_tokens(body)
        worst = self._turns_cost(guess, max_tokens, batch, 0, turns)
        why = self._refusal(turns, worst)
        if why is not None:
            return why
        self.reserved_calls += turns
        self.reserved_cost += worst
        res = Reservation(turns, worst, guess, max_tokens, batch)
        self._live[id(res)] = res
        return res

    def reserve(
        self, body: Mapping[str, Any], max_tokens: int, batch: bool = False, turns: int = 1
    ) -> Reservation:
        """Set aside the worst case of *turns* calls, or raise :class:`BudgetExhausted`.

        Examples
        --------
        >>> b = Budget(max_calls=2)
        >>> b.reserve({"messages": []}, max_tokens=5, turns=2)
        Reservation(calls=2, cost=0.0)
        """
        with self._lock:
            got = self._hold(body, max_tokens, batch, turns)
        if isinstance(got, str):
            raise BudgetExhausted(got)
        return got

    async def reserve_waiting(
        self, body: Mapping[str, Any], max_tokens: int, batch: bool = False, turns: int = 1
    ) -> Reservation:
        """:meth:`reserve`, waiting for calls in flight to settle before refusing.

        While other reservations are held, a request that does not fit waits
        until one of them is used or released and tries again; it is refused
        (:class:`BudgetExhausted`) only when no reservation is held, i.e. when
        the budget left cannot cover its worst case however the calls in
        flight end. The caller must hold no reservation itself.

        Examples
        --------
        >>> import asyncio
        >>> b = Budget(max_calls=1)
        >>> held = b.reserve({"messages": []}, max_tokens=5)
        >>> async def second():
        ...     waiting = asyncio.ensure_future(b.reserve_waiting({"messages": []}, 5))
        ...     await asyncio.sleep(0)
        ...     b.release(held)  # the call in flight got no answer: its room is free
        ...     return await waiting
        >>> asyncio.run(second())
        Reservation(calls=1, cost=0.0)
        """
        import asyncio

        while True:
            loop = asyncio.get_running_loop()
            wake = loop.create_future()
            with self._lock:
                got = self._hold(body, max_tokens, batch, turns)
                if isinstance(got, Reservation):
                    return got
                if self.reserved_calls <= 0:
                    raise BudgetExhausted(got)
                self._waiters.append((loop, wake))
            await wake

    def _wake(self) -> None:
        """Under the lock: let every waiting :meth:`reserve_waiting` try again."""
        waiters, self._waiters = self._waiters, []
        for loop, wake in waiters:
            loop.call_soon_threadsafe(_set_done, wake)

    def check(self, reservation: Reservation, body: Mapping[str, Any]) -> None:
        """Before a call under *reservation* is sent: re-estimate and grow it, or refuse.

        What the reservation's remaining calls can cost is estimated again
        from the request actually sent (its prompt has the earlier replies).
        When that is more than the reservation holds, the difference is set
        aside if the budget has room; otherwise the call is refused with
        :class:`BudgetExhausted` (the rest of the reservation stays with its
        owner, who releases it).

        Examples
        --------
        >>> b = Budget(max_cost=20.0, prices=Prices(1e6, 0.0))  # a dollar a prompt token
        >>> r = b.reserve({"messages": []}, max_tokens=0)  # 4 tokens: $4 set aside
        >>> b.check(r, {"messages": ["x" * 30]})  # the request sent has 14 tokens
        >>> r.cost, b.reserved_cost
        (14.0, 14.0)
        """
        if self.prices is None or reservation.calls <= 0:
            return
        with self._lock:
            need = self._turns_cost(
                estimate_prompt_tokens(body),
                reservation.max_tokens,
                reservation.batch,
                0,
                reservation.calls,
            )
            more = need - reservation.cost
            if more <= _EPS:
                return
            why = self._refusal(0, more)
            if why is not None:
                raise BudgetExhausted(why.replace("could cost up to", "could cost up to another"))
            reservation.cost += more
            self.reserved_cost += more

    def use(
        self,
        reservation: Reservation,
        prompt_tokens: int | None,
        completion_tokens: int | None,
        *,
        body: Mapping[str, Any] | None = None,
        batch: bool = False,
    ) -> None:
        """Count one answered call against *reservation* (what it cost, from its tokens).

        When *body* shows that the prompt estimate was low (or the reply
        passed ``max_tokens``), the estimate is raised for every later
        reservation and the reservations still held are estimated again.
        Tokens ``None`` (the endpoint did not say) charge the call's worst
        case, at most what *reservation* holds (:meth:`worst_charge`).

        Examples
        --------
        >>> b = Budget(max_cost=20.0, prices=Prices(1e6, 0.0))  # a dollar a prompt token
        >>> r = b.reserve({"messages": []}, max_tokens=0)  # 4 tokens: $4 set aside
        >>> b.use(r, None, None, body={"messages": []})
        >>> b.cost, b.reserved_cost
        (4.0, 0.0)
        """
        with self._lock:
            if prompt_tokens is None or completion_tokens is None:
                worst = self.worst_charge(body, reservation.max_tokens, batch, reservation)
                self._take(reservation, at_least=worst)
                self.calls += 1
                self.cost += worst
                self._wake()
                return
            self._take(reservation)
            self.calls += 1
            if self.prices is not None:
                self.cost += self.prices.cost(prompt_tokens, completion_tokens, batch=batch)
            self._learn(reservation, prompt_tokens, completion_tokens, body)
            self._wake()

    def worst_charge(
        self,
        body: Mapping[str, Any] | None,
        max_tokens: int,
        batch: bool = False,
        reservation: Reservation | None = None,
    ) -> float:
        """What a call whose tokens are unknown is charged: the most it could cost.

        That is its prompt estimate (at the estimate learnt from the answers
        so far) and a full *max_tokens* reply; never more than *reservation*
        still holds, when it holds calls, so the budget is not passed.

        Examples
        --------
        >>> b = Budget(prices=Prices(1e6, 1e6))  # a dollar a token
        >>> b.worst_charge({"messages": ["x" * 30]}, max_tokens=10)  # 14 in, 10 out
        24.0
        """
        if self.prices is None:
            return 0.0
        guess = estimate_prompt_tokens(body) if body is not None else (reservation or _NONE).guess
        worst = self._turns_cost(guess, max_tokens, batch, 0, 1)
        if reservation is not None and reservation.calls:
            worst = min(worst, reservation.cost)
        return worst

    def _take(self, reservation: Reservation, at_least: float = 0.0) -> None:
        """Under the lock: one call's share out of *reservation* (*at_least* of its dollars,
        when it holds them: what a call of unknown tokens is charged)."""
        if not reservation.calls:
            return
        share = self._turns_cost(
            reservation.guess, reservation.max_tokens, reservation.batch, reservation.made, 1
        )
        share = max(share, at_least)
        share = min(reservation.cost, share) if reservation.calls > 1 else reservation.cost
        reservation.calls -= 1
        reservation.cost -= share
        reservation.made += 1
        self.reserved_calls -= 1
        self.reserved_cost -= share
        if not reservation.calls:
            self._live.pop(id(reservation), None)

    def _learn(
        self,
        reservation: Reservation,
        prompt_tokens: int,
        completion_tokens: int,
        body: Mapping[str, Any] | None,
    ) -> None:
        """Under the lock: the estimates corrected by what an answer reported."""
        raised = False
        guess = estimate_prompt_tokens(body) if body is not None else 0
        if guess and prompt_tokens > 0:
            # the first report replaces the generous default estimate; later ones
            # raise it for the calls that follow (and those reserved) when it was low
            if not self._seen or prompt_tokens > guess * self._ratio:
                raised = prompt_tokens > guess * self._ratio
                self._ratio, self._seen = prompt_tokens / guess, True
        if reservation.max_tokens and completion_tokens > reservation.max_tokens * (
            self._out_ratio
        ):
            self._out_ratio, raised = completion_tokens / reservation.max_tokens, True
        if raised:
            self._reestimate()

    def _reestimate(self) -> None:
        """Under the lock: the reservations still held, at the raised estimate."""
        for res in self._live.values():
            need = self._turns_cost(res.guess, res.max_tokens, res.batch, res.made, res.calls)
            if need > res.cost:
                self.reserved_cost += need - res.cost
                res.cost = need

    def release(self, reservation: Reservation) -> None:
        """Give back what *reservation* still holds (calls not made)."""
        with self._lock:
            self.reserved_calls -= reservation.calls
            self.reserved_cost -= reservation.cost
            reservation.calls, reservation.cost = 0, 0.0
            self._live.pop(id(reservation), None)
            if self.reserved_calls <= 0:
                self.reserved_calls, self.reserved_cost = 0, 0.0
            self._wake()

    def charge(
        self,
        prompt_tokens: int | None,
        completion_tokens: int | None,
        batch: bool = False,
        *,
        body: Mapping[str, Any] | None = None,
        max_tokens: int = 0,
    ) -> None:
        """Count a paid call that had no reservation (an answer read back from a batch job).

        Tokens ``None`` (unknown) charge the worst case of the request *body*
        with a *max_tokens* reply (:meth:`worst_charge`).

        Examples
        --------
        >>> b = Budget(prices=Prices(1e6, 1e6))  # a dollar a token
        >>> b.charge(None, None, body={"messages": []}, max_tokens=10)
        >>> b.cost
        14.0
        """
        with self._lock:
            self.calls += 1
            if prompt_tokens is None or completion_tokens is None:
                self.cost += self.worst_charge(body, max_tokens, batch)
            elif self.prices is not None:
                self.cost += self.prices.cost(prompt_tokens, completion_tokens, batch=batch)
            self._wake()

    def summary(self) -> str:
        """What was spent, against the limits.

        Examples
        --------
        >>> Budget(max_calls=5).summary()
        '0 paid call(s) of --max-calls 5'
        """
        parts = [f"{self.calls} paid call(s)"]
        if self.max_calls is not None:
            parts[-1] += f" of --max-calls {self.max_calls}"
        if self.prices is not None:
            spent = f"${self.cost:.4f}"
            if self.max_cost is not None:
                spent += f" of --max-cost {self.max_cost:g}"
                spent += f" ({100 * self.cost / self.max_cost:.0f} %)" if self.max_cost else ""
            parts.append(spent)
        return ", ".join(parts)


def usage_warning(endpoint: str, problem: str, budget: Budget | None, max_tokens: int) -> str:
    """The warning for answers of *endpoint* without usable token counts (*problem*).

    Examples
    --------
    >>> print(usage_warning("http://h/v1", "no usage", Budget(max_cost=1, prices=Prices(1, 1)),
    ...                     64))  # doctest: +NORMALIZE_WHITESPACE
    http://h/v1 answered without usable token counts (no usage); each such answer is
    charged the most it could cost: its prompt estimate and a full --max-tokens 64 reply
    """
    said = f"{endpoint} answered without usable token counts ({problem}); "
    if budget is not None and budget.prices is not None:
        return said + (
            "each such answer is charged the most it could cost: its prompt estimate and a "
            f"full --max-tokens {max_tokens} reply"
        )
    return said + "the tokens of such answers are not in the totals"


#: The reservation of a call that reserved nothing (its estimate: none).
_NONE = Reservation(0, 0.0)


def _set_done(future: Any) -> None:
    if not future.done():
        future.set_result(None)
