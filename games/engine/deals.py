"""Deal ids (``ms:N``, ``seed:S``, ``daily:DATE``) and the deals they name; see docs/deals.md."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import date

from .cards import CARDS, Card
from .errors import InvalidDeal, shown

MS_MAX = 8_589_934_591  # 2**33 - 1
SEED_MAX = 2**64 - 1
_MASK64 = 2**64 - 1

_DEAL_RE = re.compile(r"(ms|seed|daily):(.+)")
_DIGITS_RE = re.compile(r"[0-9]{1,25}")
_DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_FORMS = "write a deal as ms:N (1 to 8589934591), seed:S (0 to 2^64-1) or daily:YYYY-MM-DD"


@dataclass(frozen=True, slots=True)
class DealId:
    """A parsed deal id; ``str(deal_id)`` is the canonical id (``ms:1``, ``seed:42``, ``daily:2026-11-30``)."""

    kind: str
    value: int | date

    def __str__(self) -> str:
        if isinstance(self.value, date):
            return f"{self.kind}:{self.value.isoformat()}"
        return f"{self.kind}:{self.value}"


def random_deal() -> str:
    """A fresh deal nobody has seen: `seed:` and 64 random bits from the system's secure source."""
    return f"seed:{secrets.randbits(64)}"


def parse_day(text: str) -> date:
    """A calendar date written YYYY-MM-DD, and nothing else (``date.fromisoformat`` alone also takes
    ``20261201`` and week dates such as ``2026-W49-2``); raises ValueError."""
    if not _DATE_RE.fullmatch(text):
        raise ValueError(f"{text!r} is not written YYYY-MM-DD")
    return date.fromisoformat(text)


def parse_deal(text: str | DealId) -> DealId:
    """Parse a deal id; raises ``InvalidDeal`` with a clear message for anything else.

    >>> parse_deal("ms:617"), str(parse_deal(" seed:042 "))
    (DealId(kind='ms', value=617), 'seed:42')
    """
    if isinstance(text, DealId):
        return _checked(text)
    if not isinstance(text, str):
        raise InvalidDeal(f"{shown(text)} is not a deal id: {_FORMS}")
    match = _DEAL_RE.fullmatch(text.strip())
    if match is None:
        raise InvalidDeal(f"{shown(text)} is not a deal id: {_FORMS}")
    kind, rest = match.groups()
    if kind == "daily":
        if not _DATE_RE.fullmatch(rest):
            raise InvalidDeal(f"{shown(text)} is not a deal id: a daily deal is daily:YYYY-MM-DD")
        try:
            return DealId("daily", parse_day(rest))
        except ValueError:
            raise InvalidDeal(f"{shown(text)} is not a deal id: {rest} is not a calendar date") from None
    if not _DIGITS_RE.fullmatch(rest):
        raise InvalidDeal(
            f"{shown(text)} is not a deal id: the number after {kind}: must be written in decimal digits"
            " (at most 25)"
        )
    return _checked(DealId(kind, int(rest)))


def _checked(deal: DealId) -> DealId:
    if deal.kind == "ms":
        if not (type(deal.value) is int and 1 <= deal.value <= MS_MAX):
            raise InvalidDeal(
                f"there is no deal ms:{deal.value}: Microsoft deals run from ms:1 to ms:{MS_MAX}"
            )
    elif deal.kind == "seed":
        if not (type(deal.value) is int and 0 <= deal.value <= SEED_MAX):
            raise InvalidDeal(f"there is no deal seed:{deal.value}: seeds run from 0 to {SEED_MAX}")
    elif deal.kind == "daily":
        if not isinstance(deal.value, date):
            raise InvalidDeal(f"{deal.value!r} is not a date: a daily deal is daily:YYYY-MM-DD")
    else:
        raise InvalidDeal(f"{deal.kind!r} is not a kind of deal: {_FORMS}")
    return deal


def ms_deal_indices(number: int) -> list[list[int]]:
    """The 8 columns (bottom card first, engine card indices) of Microsoft deal ``number``.

    Deals 1 to 2^31-1 are Microsoft FreeCell's; above that the extended ranges of Freecell Solver's
    board generator (make-microsoft-freecell-board) apply, see docs/deals.md.
    """
    if not 1 <= number <= MS_MAX:
        raise InvalidDeal(f"there is no deal ms:{number}: Microsoft deals run from ms:1 to ms:{MS_MAX}")
    deck = list(range(52))
    columns: list[list[int]] = [[], [], [], [], [], [], [], []]
    left = 52
    if number < 0x1_0000_0000:
        seed = number
        high = 0 if number < 0x8000_0000 else 0x8000
        for i in range(52):
            seed = (seed * 214013 + 2531011) & 0xFFFF_FFFF
            j = (((seed >> 16) & 0x7FFF) | high) % left
            columns[i & 7].append(deck[j])
            left -= 1
            deck[j] = deck[left]
    else:
        seed = number - 0x1_0000_0000
        for i in range(52):
            seed = (seed * 214013 + 2531011) & 0xFFFF_FFFF
            j = ((seed >> 16) + 1) % left
            columns[i & 7].append(deck[j])
            left -= 1
            deck[j] = deck[left]
    return columns


def splitmix64(state: int) -> tuple[int, int]:
    """One step of SplitMix64: returns ``(new_state, output)``, both 64-bit unsigned."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return state, z ^ (z >> 31)


#: _LIMITS[n]: the largest multiple of n not above 2^64 (rejection bound of an unbiased draw below n).
_LIMITS = [0] + [2**64 - (2**64 % n) for n in range(1, 53)]


def seed_deal_indices(seed: int) -> list[list[int]]:
    """The 8 columns (bottom card first, engine card indices) of deal ``seed:S`` (see docs/deals.md).

    Deck AC AD AH AS 2C ... KS, shuffled by Fisher-Yates from the top index down, each index drawn
    without bias (rejection sampling) from SplitMix64 seeded with S; card k goes to column k mod 8.
    """
    if not (type(seed) is int and 0 <= seed <= SEED_MAX):
        raise InvalidDeal(f"there is no deal seed:{seed}: seeds run from 0 to {SEED_MAX}")
    deck = list(range(52))
    state = seed
    for i in range(51, 0, -1):
        bound = i + 1
        # Values at or above `limit` would make `x % bound` favour small results: draw again.
        limit = _LIMITS[bound]
        while True:
            # splitmix64(), inlined: this loop is the whole cost of dealing
            state = (state + 0x9E3779B97F4A7C15) & _MASK64
            z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
            x = z ^ (z >> 31)
            if x < limit:
                break
        j = x % bound
        deck[i], deck[j] = deck[j], deck[i]
    return [deck[c::8] for c in range(8)]


def deal_indices(deal: str | DealId) -> list[list[int]]:
    """The 8 columns of a deal as engine card indices (fast path of ``deal_columns``)."""
    deal_id = parse_deal(deal)
    if deal_id.kind == "ms":
        assert isinstance(deal_id.value, int)
        return ms_deal_indices(deal_id.value)
    if deal_id.kind == "seed":
        assert isinstance(deal_id.value, int)
        return seed_deal_indices(deal_id.value)
    raise InvalidDeal(
        f"{deal_id} cannot be dealt by the engine: a daily's deal is a seed: deal drawn from the service's secret"
    )


def deal_columns(deal: str | DealId) -> list[list[Card]]:
    """The 8 columns of an ``ms`` or ``seed`` deal, bottom (covered) card first.

    >>> " ".join(map(str, deal_columns("ms:1")[0]))
    'JD KD 2S 4C 3S 6D 6S'
    """
    return [[CARDS[c] for c in column] for column in deal_indices(deal)]
