"""Property tests (hypothesis) of the engine's invariants over random deals and random lines of play."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import BadNotation, Board, IllegalMove, Move
from games.engine.notation import DESTINATIONS, SOURCES

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

deals = st.one_of(
    st.integers(1, 8_589_934_591).map(lambda n: f"ms:{n}"),
    st.integers(0, 2**64 - 1).map(lambda s: f"seed:{s}"),
)
#: Every move the notation can write with a count of None or 1-13.
all_moves = [Move(s, d, n) for s in SOURCES for d in DESTINATIONS for n in (None, *range(1, 14))]


def all_cards(board: Board) -> list[str]:
    state = board.state()
    cards = [c for column in state["columns"] for c in column]
    cards += [c for c in state["cells"] if c is not None]
    return cards


def assert_valid(board: Board) -> None:
    cards = all_cards(board)
    home = board.cards_home()
    assert len(cards) + home == 52
    assert len(set(cards)) == len(cards)
    assert Board.from_state(board.state()) == board
    assert Board.from_text(board.to_text()) == board


@st.composite
def played_boards(draw, autoplay=st.sampled_from(["none", "safe"])):
    """A deal after a random line of legal moves (each picked among the legal ones)."""
    board = Board.from_deal(draw(deals))
    mode = draw(autoplay)
    if mode == "safe":
        board.safe_autoplay()  # as the service does when it deals a game with safe autoplay
    for _ in range(draw(st.integers(0, 60))):
        moves = board.legal_moves()
        if not moves:
            break
        board.play(moves[draw(st.integers(0, len(moves) - 1))], autoplay=mode)
    return board


@st.composite
def random_positions(draw):
    """Any valid position: random foundations, cells and columns (often empty), with runs built in."""
    heights = [draw(st.integers(0, 13)) for _ in range(4)]
    rest = [rank * 4 + suit for suit in range(4) for rank in range(heights[suit], 13)]
    rest = draw(st.permutations(rest))
    pool = list(rest)
    cells = [-1, -1, -1, -1]
    for i in range(4):
        if pool and draw(st.booleans()):
            cells[i] = pool.pop()
    columns: list[list[int]] = [[] for _ in range(8)]
    empties = draw(st.sets(st.integers(0, 7), max_size=4))
    targets = [i for i in range(8) if i not in empties] or [0]
    while pool:
        column = columns[draw(st.sampled_from(targets))]
        fitting = [
            c
            for c in pool
            if column
            and (c >> 2) + 1 == column[-1] >> 2
            and ((c & 3) in (1, 2)) != ((column[-1] & 3) in (1, 2))
        ]
        if fitting and draw(st.integers(0, 3)) > 0:
            card = fitting[0]
            pool.remove(card)
        else:
            card = pool.pop()
        column.append(card)
    board = Board(columns, cells, heights)
    board._validate()
    return board


positions = st.one_of(played_boards(), random_positions())


@SETTINGS
@given(played_boards())
def test_a_board_always_holds_52_distinct_cards_and_round_trips_as_text_and_state(board):
    assert_valid(board)


@SETTINGS
@given(positions)
def test_every_generated_legal_move_is_accepted_and_every_other_parsed_move_is_refused(board):
    legal = board.legal_moves()
    assert len(set(legal)) == len(legal)
    legal_set = set(legal)
    before = board.copy()
    for move in all_moves:
        try:
            normalized = board.check(move)
        except IllegalMove:
            assert move not in legal_set
            continue
        assert normalized in legal_set, move
        if move.count is None or move.count > 1:
            assert normalized.count == move.count or move.count is None
    assert board == before
    for move in legal:
        assert board.check(move) == move
        copy = board.copy()
        copy.play(move)
        assert_valid(copy)
        copy.undo()
        assert copy == board


@SETTINGS
@given(positions)
def test_stuck_means_no_legal_move_and_not_won(board):
    assert board.is_stuck() == (not board.legal_moves() and not board.is_won())


@SETTINGS
@given(deals, st.lists(st.integers(0, 10_000), max_size=80), st.sampled_from(["none", "safe"]))
def test_undo_after_any_sequence_restores_each_position_exactly(deal, picks, mode):
    board = Board.from_deal(deal)
    positions = [board.copy(history=False)]
    for pick in picks:
        moves = board.legal_moves()
        if not moves:
            break
        board.play(moves[pick % len(moves)], autoplay=mode)
        positions.append(board.copy(history=False))
    line = board.line()
    assert Board.from_deal(deal).copy() == positions[0]
    # the line (autoplay written out) replays under autoplay none to the same position
    replayed = Board.from_deal(deal)
    for move in line:
        replayed.play(move)
    assert replayed == board
    while positions:
        assert board == positions.pop()
        if positions:
            board.undo()
    assert board.ply == 0


@SETTINGS
@given(played_boards(autoplay=st.just("safe")))
def test_safe_autoplay_leaves_no_qualifying_card_exposed(board):
    assert board.safe_autoplay() == []


@SETTINGS
@given(st.sampled_from(SOURCES), st.sampled_from(DESTINATIONS), st.one_of(st.none(), st.integers(1, 0xFFFF)))
def test_notation_round_trips(source, dest, count):
    move = Move(source, dest, count)
    assert Move.parse(str(move)) == move
    assert Move.parse(str(move).upper()) == move


@SETTINGS
@given(st.text(max_size=8))
def test_any_string_either_parses_to_a_move_that_writes_back_or_is_bad_notation(text):
    try:
        move = Move.parse(text)
    except BadNotation:
        return
    assert str(move) == text.strip().lower()
