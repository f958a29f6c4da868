"""A budget for paid calls: at most N calls, at most so many dollars (docs/judge.md).

Prices are per million tokens, input and output, as providers list them
(``--price-in``/``--price-out`` or a prices file). Before a paid call is sent
its worst case is reserved — the largest prompt it can have and a full
``max_tokens`` reply — and the call is not sent when the reservation would
pass the budget; after it, the reservation is replaced by what the endpoint
reported. So a run stops *before* it would exceed the budget, keeping every
answer it has (and the cache), and a rerun with a larger budget continues
where it stopped. Cached answers cost nothing and are not counted.
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

    Examples
    --------
    >>> Reservation(calls=3, cost=0.25)
    Reservation(calls=3, cost=0.25)
    """

    calls: int
    cost: float


@dataclass
class Budget:
    """Limits on the paid calls of a run, enforced before each call is sent.

    A conversation (the three turns of an ArtCoT judgement) reserves all its
    turns before its first call, so a budget buys whole answers, never a
    first turn whose later turns it cannot pay for. A turn's worst case
    counts the prompt growing by a full reply per earlier turn.

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
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

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

    def worst_case(
        self, body: Mapping[str, Any], max_tokens: int, batch: bool = False, turns: int = 1
    ) -> float:
        """The most *turns* calls starting with *body* can cost (0 without prices)."""
        if self.prices is None:
            return 0.0
        prompt = math.ceil(estimate_prompt_tokens(body) * self._ratio)
        return sum(
            self.prices.cost(prompt + t * max_tokens, max_tokens, batch=batch) for t in range(turns)
        )

    def reserve(
        self, body: Mapping[str, Any], max_tokens: int, batch: bool = False, turns: int = 1
    ) -> Reservation:
        """Set aside the worst case of *turns* calls, or raise :class:`BudgetExhausted`."""
        worst = self.worst_case(body, max_tokens, batch, turns)
        with self._lock:
            if self.max_calls is not None and (
                self.calls + self.reserved_calls + turns > self.max_calls
            ):
                raise BudgetExhausted(
                    f"not sent: {self.calls} paid and {self.reserved_calls} reserved call(s) "
                    f"leave no room for {turns} more under --max-calls {self.max_calls}"
                )
            if self.max_cost is not None and self.cost + self.reserved_cost + worst > self.max_cost:
                raise BudgetExhausted(
                    f"not sent: ${self.cost + self.reserved_cost:.4f} spent or reserved and "
                    f"{'this call' if turns == 1 else f'these {turns} calls'} could cost up to "
                    f"${worst:.4f}, over the limit --max-cost {self.max_cost:g}"
                )
            self.reserved_calls += turns
            self.reserved_cost += worst
        return Reservation(turns, worst)

    def use(
        self,
        reservation: Reservation,
        prompt_tokens: int,
        completion_tokens: int,
        *,
        body: Mapping[str, Any] | None = None,
        batch: bool = False,
    ) -> None:
        """Count one answered call against *reservation* (what it cost, from its tokens)."""
        with self._lock:
            share = reservation.cost / reservation.calls if reservation.calls else 0.0
            if reservation.calls:
                reservation.calls -= 1
                reservation.cost -= share
                self.reserved_calls -= 1
                self.reserved_cost -= share
            self.calls += 1
            if self.prices is not None:
                self.cost += self.prices.cost(prompt_tokens, completion_tokens, batch=batch)
            if body is not None:
                # estimates that turn out low are raised for the calls that follow
                guess = estimate_prompt_tokens(body)
                if guess and prompt_tokens > guess * self._ratio:
                    self._ratio = prompt_tokens / guess

    def release(self, reservation: Reservation) -> None:
        """Give back what *reservation* still holds (calls not made)."""
        with self._lock:
            self.reserved_calls -= reservation.calls
            self.reserved_cost -= reservation.cost
            reservation.calls, reservation.cost = 0, 0.0

    def charge(self, prompt_tokens: int, completion_tokens: int, batch: bool = False) -> None:
        """Count a paid call that had no reservation (an answer read back from a batch job)."""
        with self._lock:
            self.calls += 1
            if self.prices is not None:
                self.cost += self.prices.cost(prompt_tokens, completion_tokens, batch=batch)

    def summary(self) -> str:
        """What was spent, against the limits."""
        parts = [f"{self.calls} paid call(s)"]
        if self.max_calls is not None:
            parts[-1] += f" of --max-calls {self.max_calls}"
        if self.prices is not None:
            spent = f"${self.cost:.4f}"
            if self.max_cost is not None:
                spent += f" of --max-cost {self.max_cost:g}"
            parts.append(spent)
        return ", ".join(parts)
