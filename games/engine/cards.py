"""Playing cards: the Card value type and the small-int encoding the engine computes with."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import BadNotation

#: Suits in the engine's order (also the Microsoft deck order): clubs, diamonds, hearts, spades.
SUITS = "CDHS"
#: Rank characters, index 0 is the ace.
RANKS = "A23456789TJQK"
RED_SUITS = frozenset("DH")

# Words, as the page names cards too ("the 6 of spades" in a refusal beside "the six of diamonds"
# in a hint read as two ways of naming cards).
_RANK_NAMES = (
    "ace",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
)
_SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


@dataclass(frozen=True, slots=True)
class Card:
    """A card: ``rank`` 1 (ace) to 13 (king), ``suit`` one of ``C D H S``.

    >>> Card.parse("10d")
    Card(rank=10, suit='D')
    >>> str(Card.parse("TD")), Card.parse("TD").name, Card.parse("TD").is_red
    ('TD', 'ten of diamonds', True)
    """

    rank: int
    suit: str

    def __post_init__(self) -> None:
        if not (isinstance(self.rank, int) and 1 <= self.rank <= 13) or self.suit not in _SUIT_NAMES:
            raise BadNotation(f"no such card: rank {self.rank!r}, suit {self.suit!r}")

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``TD``, ``10D``, ``td`` ...; raises ``BadNotation``."""
        index = CARD_INDEX.get(text)
        if index is None:
            index = CARD_INDEX.get(text.strip().upper())
            if index is None:
                raise BadNotation(
                    f"{text!r} is not a card: write a rank (A 2-9 T J Q K) then a suit (C D H S), e.g. TD"
                )
        return CARDS[index]

    @classmethod
    def from_index(cls, index: int) -> Card:
        """The card with engine index ``index`` (0-51, ``(rank - 1) * 4 + suit``)."""
        return CARDS[index]

    @property
    def index(self) -> int:
        """The engine's small-int code: ``(rank - 1) * 4 + SUITS.index(suit)`` (AC=0, AD=1, ... KS=51)."""
        return (self.rank - 1) * 4 + SUITS.index(self.suit)

    @property
    def is_red(self) -> bool:
        return self.suit in RED_SUITS

    @property
    def name(self) -> str:
        """A player's name of the card, e.g. ``ten of diamonds``."""
        return f"{_RANK_NAMES[self.rank - 1]} of {_SUIT_NAMES[self.suit]}"

    def __str__(self) -> str:
        return RANKS[self.rank - 1] + self.suit


#: The 52 cards by engine index.
CARDS: tuple[Card, ...] = tuple(Card(i // 4 + 1, SUITS[i % 4]) for i in range(52))
#: Text of each card by index (``"AC"``, ``"AD"``, ...).
CARD_TEXT: tuple[str, ...] = tuple(str(c) for c in CARDS)
#: Player's name of each card by index (``"ace of clubs"``, ...).
CARD_NAME: tuple[str, ...] = tuple(c.name for c in CARDS)

#: Every accepted spelling of a card (``TD``, ``td``, ``10D``, ``10d``, ``tD`` ...) -> index.
CARD_INDEX: dict[str, int] = {}
for _i, _text in enumerate(CARD_TEXT):
    for _rank in {_text[0], _text[0].lower(), "10" if _text[0] == "T" else _text[0]}:
        for _suit in (_text[1], _text[1].lower()):
            CARD_INDEX[_rank + _suit] = _i
del _i, _text, _rank, _suit


def card_index(text: str) -> int:
    """Index of a card written as text; raises ``BadNotation``."""
    index = CARD_INDEX.get(text)
    if index is None:
        return Card.parse(text).index
    return index
