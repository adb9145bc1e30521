"""Deals: parsing deal ids, the Microsoft numbering with its extended ranges, and pinned seed: deals."""

from __future__ import annotations

from datetime import date

import pytest

from games.engine import Board, DealId, InvalidDeal, deal_columns, parse_deal
from games.engine.deals import seed_deal_indices, splitmix64


def layout(deal: str) -> str:
    return "\n".join(" ".join(str(c) for c in column) for column in deal_columns(deal))


# Published layouts, as Microsoft FreeCell and `make-microsoft-freecell-board -t N` deal them.
MS_1 = """\
JD KD 2S 4C 3S 6D 6S
2D KC KS 5C TD 8S 9C
9H 9S 9D TS 4S 8D 2H
JC 5S QD QH TH QS 6H
5D AD JS 4H 8H 6C
7H QC AS AC 2C 3D
7C KH AH 4D JH 8C
5H 3H 3C 7S 7D TC"""

MS_617 = """\
7D TD TH KD 4C 4S JD
AD 7S QC 5H QS TS KS
5C QD 3H 9S 9C 2H KC
3S AC 9D 3C 9H 5D 4H
5S 6D 6S 8S 7C JC
8C 8H 8D 7H 6H 6C
2D AS 3D 4D 2C JH
AH KH TC JS 2S QH"""

# Freecell Solver's extended ranges (make-microsoft-freecell-board 5.0.0).
MS_2147483647 = """\
9S JH 7S 5S 5D 5C 7D
2H TC 6C AD QH JD 9C
7C TD 3H TH 8C AS 7H
5H QS 8S 3C 6H QC 8H
4C 3S KD 2C 6S AC
6D KH TS AH QD KC
3D 8D 9D 2D 4H 2S
4S JC 4D 9H JS KS"""

MS_2147483648 = """\
QH 3H 7D 4D TS QD 6D
QC JD 3C 5D 7H 6H 4S
2H KC 8S TD JH AD 5S
6S 7C 7S TC 5H 9S AC
2S 8H TH 9C 3S 2D
3D 5C JC AH 6C KH
KS 8D AS 4H 2C 4C
8C 9H QS JS 9D KD"""

MS_4294967296 = """\
TS 3S KC 4H 9H 3H 4D
5S QD 3D 9S 2H 6H KH
2S 7C 9C 8D 6S AH JH
TD 7D 8C 5C 2D QC QH
3C 8S TH 7S TC 7H
AD 5D JD AS 6C 9D
JC 5H 2C 4S KS KD
6D 4C QS JS 8H AC"""

MS_8589934591 = """\
TC 8S 8C 6C 5H 5C 9C
2S TD 6D 8D 9H 9S 6S
JS TH 3S JD 4H QC 3D
5S QS KD AH AS JH 4S
4D 4C 7D JC 2D AD
6H KH TS 7H QD QH
3H 2C KC 2H 5D 9D
7C KS 8H 3C AC 7S"""


@pytest.mark.parametrize(
    ("deal", "expected"),
    [
        ("ms:1", MS_1),
        ("ms:617", MS_617),
        ("ms:2147483647", MS_2147483647),
        ("ms:2147483648", MS_2147483648),
        ("ms:4294967296", MS_4294967296),
        ("ms:8589934591", MS_8589934591),
    ],
)
def test_microsoft_deals_match_the_published_layouts(deal, expected):
    assert layout(deal) == expected


def test_columns_one_to_four_get_seven_cards_and_five_to_eight_six():
    for deal in ["ms:1", "ms:11982", "seed:0", "seed:18446744073709551615"]:
        columns = deal_columns(deal)
        assert [len(c) for c in columns] == [7, 7, 7, 7, 6, 6, 6, 6]
        assert len({str(c) for column in columns for c in column}) == 52


# seed:S is the service's own shuffle (docs/deals.md); these layouts are pinned forever.
SEED_0 = """\
QH 4S 8H 5D JD QS 5H
TC AC AD 9D 5C 5S 8D
3C 3H 8C 6C 7S KD 4C
JC 2H 2C 4D 6D 8S 9S
4H 9H 7H TD AH KS
7C 2S 2D KC 7D AS
QC KH JH 3S TS 9C
3D TH 6H 6S QD JS"""

SEED_42 = """\
2H 6H 4H 5C AS 8H TD
8C 2C JS 9C QC 2D 3C
4C QH 5H KS QD KH 3H
TS TC 4D KC JD 6D 3D
JC 7S 5S 8D 6C 6S
AC JH AD 4S 7C 3S
7H 8S 9D 9S QS AH
7D 5D 2S KD TH 9H"""

SEED_MAX = """\
3H 7H 4S AC 6S 2D KC
KS 5S 4H QH TH 7D AD
QD 5H 9H 7C 4C JC 3D
AS QC TD 6H 8S 8C 2C
4D 5C 6C 2H 6D 3S
TC TS JD KH 9D KD
5D JH JS 3C 2S AH
7S 9C QS 8D 9S 8H"""


@pytest.mark.parametrize(
    ("deal", "expected"),
    [("seed:0", SEED_0), ("seed:42", SEED_42), ("seed:18446744073709551615", SEED_MAX)],
)
def test_seed_deals_are_pinned(deal, expected):
    assert layout(deal) == expected


def test_splitmix64_matches_the_reference_outputs():
    state, outputs = 1234567, []
    for _ in range(5):
        state, value = splitmix64(state)
        outputs.append(value)
    assert outputs == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
        4593380528125082431,
        16408922859458223821,
    ]


def test_different_seeds_give_different_deals():
    layouts = {tuple(map(tuple, seed_deal_indices(seed))) for seed in range(200)}
    assert len(layouts) == 200


@pytest.mark.parametrize(
    ("text", "kind", "value", "canonical"),
    [
        ("ms:1", "ms", 1, "ms:1"),
        ("ms:8589934591", "ms", 8_589_934_591, "ms:8589934591"),
        (" ms:0617 ", "ms", 617, "ms:617"),
        ("seed:0", "seed", 0, "seed:0"),
        ("seed:18446744073709551615", "seed", 2**64 - 1, "seed:18446744073709551615"),
        ("daily:2026-11-30", "daily", date(2026, 11, 30), "daily:2026-11-30"),
    ],
)
def test_it_parses_deal_ids_to_their_canonical_form(text, kind, value, canonical):
    deal = parse_deal(text)
    assert deal == DealId(kind, value)
    assert str(deal) == canonical
    assert parse_deal(deal) == deal


@pytest.mark.parametrize(
    "text",
    [
        "ms:0",
        "ms:8589934592",
        "ms:-1",
        "ms:+5",
        "ms:1.0",
        "ms:0x10",
        "ms:",
        "foo:1",
        "1",
        "",
        "seed:18446744073709551616",
        "seed:-1",
        "daily:2026-02-30",
        "daily:2026-1-5",
        "daily:today",
        "MS 1",
    ],
)
def test_it_refuses_anything_else_as_invalid_deal(text):
    with pytest.raises(InvalidDeal) as info:
        parse_deal(text)
    assert info.value.code == "invalid_deal"
    assert str(info.value)


def test_a_daily_id_is_resolved_by_the_service_not_dealt_by_the_engine():
    with pytest.raises(InvalidDeal, match="seed"):
        deal_columns("daily:2026-11-30")


def test_a_board_remembers_its_deal_and_starts_empty():
    board = Board.from_deal("ms:617")
    assert str(board.deal) == "ms:617"
    assert board.state()["cells"] == [None] * 4
    assert board.foundations == {"C": 0, "D": 0, "H": 0, "S": 0}
    assert Board.from_deal(DealId("ms", 617)) == board
