"""Cards and moves in the spec's notation, and the engine's independence from Django."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import games.engine as engine
from games.engine import CARDS, BadNotation, Card, EngineError, Move, format_moves, parse_moves

ROOT = Path(__file__).resolve().parent.parent


def test_the_engine_imports_nothing_from_django():
    code = (
        "import sys, games.engine, games.engine.testing; "
        "bad = sorted(m for m in sys.modules if m == 'django' or m.startswith(('django.', 'rest_framework'))); "
        "assert not bad, bad"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_every_engine_module_starts_with_a_one_line_docstring():
    for path in sorted((ROOT / "games" / "engine").glob("*.py")):
        if path.name.startswith("solver"):
            continue  # the solver's modules are checked by its own tests
        first = path.read_text().splitlines()[0]
        assert first.startswith('"""') and first.endswith('"""') and len(first) > 6, path.name


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [("TD", 10, "D"), ("10D", 10, "D"), ("td", 10, "D"), ("10d", 10, "D"), ("AC", 1, "C"), ("KS", 13, "S")],
)
def test_a_card_parses_from_its_spellings(text, rank, suit):
    card = Card.parse(text)
    assert (card.rank, card.suit) == (rank, suit)
    assert card == Card(rank, suit)


def test_a_card_writes_itself_with_t_for_ten():
    assert [str(c) for c in CARDS[:5]] == ["AC", "AD", "AH", "AS", "2C"]
    assert str(Card(10, "D")) == "TD"
    assert all(Card.parse(str(c)) is c for c in CARDS)


def test_a_card_knows_its_colour_and_its_name():
    assert Card.parse("TD").name == "ten of diamonds"
    assert Card.parse("7C").name == "seven of clubs"
    assert Card.parse("QH").name == "queen of hearts"
    assert [c.is_red for c in map(Card.parse, ["AC", "AD", "AH", "AS"])] == [False, True, True, False]
    assert [c.index for c in CARDS] == list(range(52))


@pytest.mark.parametrize("text", ["", "1C", "0D", "11H", "TX", "T", "TDD", "XD"])
def test_it_refuses_a_string_that_is_not_a_card(text):
    with pytest.raises(BadNotation):
        Card.parse(text)


def test_it_refuses_to_build_a_card_that_does_not_exist():
    with pytest.raises(BadNotation):
        Card(14, "C")
    with pytest.raises(BadNotation):
        Card(1, "X")


@pytest.mark.parametrize(
    ("text", "source", "dest", "count"),
    [
        ("3a", "3", "a", None),
        ("a4", "a", "4", None),
        ("1h", "1", "h", None),
        ("ah", "a", "h", None),
        ("57", "5", "7", None),
        ("24v3", "2", "4", 3),
        ("18va", "1", "8", 10),
        ("db", "d", "b", None),
    ],
)
def test_a_move_parses_and_round_trips(text, source, dest, count):
    move = Move.parse(text)
    assert (move.source, move.dest, move.count) == (source, dest, count)
    assert str(move) == text
    assert Move.parse(str(move)) == move
    assert eval(repr(move), {"Move": Move}) == move


def test_a_move_accepts_upper_case_and_surrounding_space():
    assert Move.parse(" 3A ") == Move("3", "a")
    assert Move.parse("24V3") == Move("2", "4", 3)
    assert Move.parse("1H") == Move("1", "h")


def test_a_v_count_is_hex_of_at_most_4_digits_leading_zeros_aside():
    assert Move.parse("24v00003") == Move.parse("24v3") == Move("2", "4", 3)
    assert Move.parse("24v000000000000ffff").count == 0xFFFF  # parses: a wrong count is illegal, not malformed
    with pytest.raises(BadNotation, match="more than 4 hex digits"):
        Move.parse("24v010000")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "3",
        "3x",
        "9a",
        "0a",
        "e1",
        "3a4",
        "h1",
        "hh",
        "24v",
        "24v0",
        "24vg",
        "24 v3",
        "2-4",
        "3a v1",
        "24v12345",
    ],
)
def test_it_refuses_a_string_that_is_not_a_move(text):
    with pytest.raises(BadNotation) as info:
        Move.parse(text)
    assert info.value.code == "bad_notation"
    assert isinstance(info.value, EngineError) and isinstance(info.value, ValueError)


def test_it_refuses_to_build_a_move_from_a_foundation_or_with_a_bad_count():
    for args in [("h", "1"), ("9", "1"), ("1", "e"), ("1", "2", 0), ("1", "2", "3")]:
        with pytest.raises(BadNotation):
            Move(*args)


def test_a_line_of_moves_splits_on_white_space_and_names_the_bad_index():
    assert parse_moves("3a  a4\n1h\t24v3") == [
        Move("3", "a"),
        Move("a", "4"),
        Move("1", "h"),
        Move("2", "4", 3),
    ]
    assert format_moves(parse_moves(" 3a a4 ")) == "3a a4"
    with pytest.raises(BadNotation) as info:
        parse_moves("3a a4 zz 1h")
    assert info.value.index == 2
    assert "move 3" in str(info.value)


def test_the_public_api_exports_the_documented_names():
    for name in [
        "EngineError", "BadNotation", "IllegalMove", "InvalidDeal", "BadBoardText",
        "Card", "Move", "parse_moves", "Board", "Played", "DealId", "parse_deal", "deal_columns",
        "verify", "Verification",
    ]:  # fmt: skip
        assert hasattr(engine, name), name
    assert [engine.BadNotation.code, engine.IllegalMove.code, engine.InvalidDeal.code] == [
        "bad_notation",
        "illegal_move",
        "invalid_deal",
    ]
    assert engine.BadBoardText.code == "bad_board" and engine.EngineError.code == "engine_error"


def test_the_examples_in_the_engine_docstrings_hold():
    import doctest
    import importlib

    for name in ["cards", "notation", "deals", "board", "replay"]:
        module = importlib.import_module(f"games.engine.{name}")
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, name
