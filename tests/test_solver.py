"""The solver: lines that replay to a win, proofs of unsolvability, par mode, hints and the CLI."""

from __future__ import annotations

import itertools
import json
import os

import pytest

from games.engine import Board, verify
from games.engine import solver_core as core
from games.engine.solver import (
    CALIBRATION_WIDTH,
    MAX_BEAM_WIDTH,
    WIDTH_GROWTH,
    Solution,
    hint,
    next_width,
    solve,
)
from games.engine.solver_cli import main, parse_deals, summarize

DEALS = ["ms:1", "ms:2", "ms:617", "ms:1941", "ms:28", "seed:42"]


def replay(board: Board, moves, autoplay: str) -> Board:
    board = board.copy(history=False)
    for move in moves:
        board.play(move, autoplay=autoplay)
    return board


def stuck_position() -> Board:
    """Three free cells hold cards that fit nowhere; every column shows two black cards of ranks 3-10,
    so a top card can only go to the last free cell (and back): nothing can ever go home."""
    tops = [f"{r}C" for r in "3456789T"]
    seconds = [f"{r}S" for r in "3456789T"]
    cells = ["KD", "KH", "QD"]
    used = set(tops) | set(seconds) | set(cells)
    rest = [f"{r}{s}" for r in "A23456789TJQK" for s in "CDHS" if f"{r}{s}" not in used]
    columns = [rest[i::8] + [seconds[i], tops[i]] for i in range(8)]
    text = "Foundations: H-0 C-0 D-0 S-0\nFreecells: " + " ".join(cells) + " -\n"
    return Board.from_text(text + "\n".join(": " + " ".join(c) for c in columns))


@pytest.mark.parametrize("autoplay", ["none", "safe"])
@pytest.mark.parametrize("deal", DEALS)
def test_a_solution_replays_to_a_win(deal, autoplay):
    board = Board.from_deal(deal)
    solution = solve(board, autoplay=autoplay, budget=30)
    assert solution.result == "solved"
    assert solution.count == len(solution.moves)
    assert replay(board, solution.moves, autoplay).is_won()
    checked = verify(board, solution.moves, autoplay=autoplay)
    assert checked.valid and checked.won


def test_the_search_runs_with_the_cyclic_collector_paused_and_leaves_it_as_it_was(monkeypatch):
    """The collector took 15-20% of a plain solve walking the positions the search keeps."""
    import gc

    from games.engine import solver

    seen = []
    real = solver.first_line

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(solver, "first_line", spy)
    assert gc.isenabled()
    assert solve(Board.from_deal("ms:3"), autoplay="safe").result == "solved"
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:  # a caller that had switched it off itself finds it still off
        assert solve(Board.from_deal("ms:3"), autoplay="safe", par=True, budget=0.2).result == "solved"
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_under_no_autoplay_the_line_writes_out_all_52_foundation_moves():
    solution = solve(Board.from_deal("ms:3"), autoplay="none")
    assert sum(1 for m in solution.moves if m.dest == "h") == 52


def test_under_safe_autoplay_the_line_leaves_out_what_autoplay_does():
    none = solve(Board.from_deal("ms:3"), autoplay="none")
    safe = solve(Board.from_deal("ms:3"), autoplay="safe")
    assert sum(1 for m in safe.moves if m.dest == "h") < 52
    assert safe.count < none.count


@pytest.mark.parametrize("autoplay", ["none", "safe"])
@pytest.mark.parametrize(("deal", "played"), [("ms:5", 10), ("ms:100", 25), ("seed:7", 17)])
def test_a_mid_game_position_is_solved(deal, played, autoplay):
    board = Board.from_deal(deal)
    first = solve(board, autoplay=autoplay)
    for move in first.moves[:played]:
        board.play(move, autoplay=autoplay)
    # Through the service's own round trip, as the hint endpoint does it.
    position = Board.from_state(board.state())
    solution = solve(position, autoplay=autoplay)
    assert solution.result == "solved"
    assert replay(position, solution.moves, autoplay).is_won()


def test_a_position_with_cards_in_free_cells_b_and_d_is_solved_with_the_right_letters():
    board = Board.from_deal("ms:9")
    board.play("1b")
    board.play("2d")
    for autoplay in ("none", "safe"):
        solution = solve(board, autoplay=autoplay)
        assert solution.result == "solved"
        assert replay(board, solution.moves, autoplay).is_won()


def test_a_won_position_is_solved_with_no_moves():
    board = Board.from_text("Foundations: H-K C-K D-K S-K\n" + ":\n" * 8)
    solution = solve(board)
    assert solution.result == "solved" and solution.moves == [] and solution.count == 0


def test_ms_11982_is_proved_unsolvable():
    solution = solve(Board.from_deal("ms:11982"), autoplay="safe")
    assert solution.result == "unsolvable"
    assert solution.moves == []
    assert solution.seconds < 60


def test_a_hand_made_position_with_no_solution_comes_back_unsolvable_quickly():
    board = stuck_position()
    assert not board.is_stuck()  # there are moves, just none that lead anywhere
    solution = solve(board)
    assert solution.result == "unsolvable"
    assert solution.seconds < 1
    assert 1 < solution.states < 100


def test_the_solver_gives_up_when_its_state_limit_is_reached():
    solution = solve(Board.from_deal("ms:11982"), max_states=500)
    assert solution.result == "gave_up" and solution.moves == []


def test_the_solver_gives_up_rather_than_store_more_positions_than_its_memory_bound(monkeypatch):
    monkeypatch.setattr(core, "MAX_STORED", 2000)
    solution = solve(Board.from_deal("ms:11982"))
    assert solution.result == "gave_up"


def test_par_mode_finds_a_line_no_longer_than_the_plain_solve():
    board = Board.from_deal("ms:1")
    plain = solve(board, autoplay="safe")
    par = solve(board, autoplay="safe", par=True, budget=2)
    assert par.result == "solved"
    assert par.count <= plain.count
    assert par.seconds < 4
    assert replay(board, par.moves, "safe").is_won()


def test_the_next_beam_is_sized_from_the_time_left_and_grows_at_most_sixteenfold():
    # 10,000 positions/s for 2 s, a line of 36 moves: 0.85 x 20,000 / 40 = 425 wide
    assert next_width(512, 10_000, 2.0, 36) == 425
    # time enough for a beam of 100,000: limited to 16 x 32 after the calibration beam
    assert next_width(32, 1_000_000, 5.0, 38) == 32 * WIDTH_GROWTH
    assert next_width(5_000, 1e9, 60.0, 30) == MAX_BEAM_WIDTH
    assert next_width(600, 10_000, -0.5, 36) == 0  # past the deadline


def test_par_mode_widens_its_beams_step_by_step(monkeypatch):
    widths = []
    real_beam = core.beam_fast

    def recording_beam(search, width, *args, **kwargs):
        widths.append(width)
        return real_beam(search, width, *args, **kwargs)

    monkeypatch.setattr(core, "beam_fast", recording_beam)
    board = Board.from_deal("ms:5")
    par = solve(board, autoplay="safe", par=True, budget=1.5)
    assert par.result == "solved" and replay(board, par.moves, "safe").is_won()
    assert len(widths) >= 2 and widths[0] == CALIBRATION_WIDTH
    for before, after in itertools.pairwise(widths):
        assert after <= before * WIDTH_GROWTH


def test_par_mode_under_no_autoplay_returns_a_full_line_no_longer_than_the_plain_solve():
    board = Board.from_deal("ms:3")
    plain = solve(board, autoplay="none")
    par = solve(board, autoplay="none", par=True, budget=1)
    assert par.result == "solved" and par.count <= plain.count
    assert verify(board, par.moves, autoplay="none").won


def test_solving_leaves_the_board_as_it_was():
    board = Board.from_deal("ms:4")
    board.play("1a")
    before = board.copy()
    solve(board, autoplay="safe", par=True, budget=0.5)
    assert board == before and board.ply == 1


def test_following_hints_from_a_mid_game_position_wins():
    board = Board.from_deal("ms:21")
    line = solve(board, autoplay="safe").moves
    for move in line[:12]:
        board.play(move, autoplay="safe")
    for _ in range(200):
        if board.is_won():
            break
        move = hint(board, autoplay="safe")
        assert move is not None
        board.play(move, autoplay="safe")
    assert board.is_won()


def test_there_is_no_hint_for_an_unsolvable_position():
    assert hint(stuck_position()) is None


def test_a_solution_reports_its_figures():
    solution = solve(Board.from_deal("ms:1"), autoplay="safe")
    assert isinstance(solution, Solution)
    assert solution.states > 0 and solution.seconds > 0
    data = solution.as_dict()
    assert data["result"] == "solved" and data["count"] == len(data["moves"])


def test_the_core_safe_autoplay_follows_the_spec():
    found = [1, 1, 1, 0]  # C D S H: aces of C, D, S home
    assert core.is_safe(core.parse_card("AH"), found)
    assert core.is_safe(core.parse_card("2C"), found)  # rank 2: always
    assert not core.is_safe(core.parse_card("3C"), [2, 2, 2, 1])  # H only at 1: 3C not safe
    assert core.is_safe(core.parse_card("3C"), [2, 2, 2, 2])


def test_a_range_parses_into_deals():
    assert parse_deals("ms:3-5") == ["ms:3", "ms:4", "ms:5"]
    assert parse_deals("ms:7") == ["ms:7"]
    assert parse_deals("ms:1-2, seed:9") == ["ms:1", "ms:2", "seed:9"]


@pytest.mark.parametrize(
    "text, words",
    [
        ("ms:1-99999999", "more than 1,000,000 deals"),  # refused before a single deal id is built
        ("ms:1-999999, ms:1-2", "more than 1,000,000 deals"),
        ("ms:8589934590-8589934599", "no deal ms:8589934599"),
        ("ms:5-3", "empty range"),
        ("daily:2026-01-01", "daily --list"),  # its deal is not in the id: not "unsolvable" (exit 1)
        ("ms:1,daily:2026-01-01", "daily --list"),
    ],
)
def test_a_range_too_large_or_past_the_deals_is_a_usage_error(text, words, capsys):
    import tracemalloc

    tracemalloc.start()
    assert main([text, "--no-progress"]) == 3
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert words in capsys.readouterr().err
    assert peak < 5_000_000  # the refusal builds nothing like the range


@pytest.mark.parametrize(
    "option", [["--budget", "-1"], ["--budget", "0"], ["--budget", "nan"], ["--jobs", "-1"], ["--max-states", "0"], ["--autoplay", "x"]]
)
def test_a_bad_option_exits_3_not_the_gave_up_code(option, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["ms:1", *option])
    assert exited.value.code == 3 and "error" in capsys.readouterr().err


def test_jobs_0_uses_every_core(monkeypatch, capsys):
    from games.engine import solver_cli

    used = []
    real = solver_cli.solve_range
    monkeypatch.setattr(solver_cli, "solve_range", lambda deals, *a: used.append(a[3]) or real(deals, *a))
    assert main(["ms:1-2", "--jobs", "0", "--no-progress"]) == 0
    assert used == [os.cpu_count()]


def test_a_reader_that_goes_away_ends_the_run_without_a_traceback():
    """`manage.py solve ms:1-40 --json | head -1` printed a BrokenPipeError traceback."""
    import subprocess
    import sys
    from pathlib import Path

    run = subprocess.Popen(
        [sys.executable, "manage.py", "solve", "ms:1-40", "--json", "--no-progress"],
        cwd=Path(__file__).resolve().parent.parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert json.loads(run.stdout.readline())["deal"] == "ms:1"
    run.stdout.close()  # as `head -1` does
    errors = run.stderr.read().decode()
    assert run.wait(timeout=120) == 141 and "Traceback" not in errors, errors


def test_the_cli_prints_json_and_exits_0_when_solved(capsys):
    assert main(["ms:1", "--json", "--autoplay", "safe"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"deal", "result", "moves", "count", "seconds"}
    assert data["deal"] == "ms:1" and data["result"] == "solved" and data["count"] == len(data["moves"])
    assert verify(Board.from_deal("ms:1"), data["moves"], autoplay="safe").won


def test_the_cli_exits_1_for_an_unsolvable_deal_and_2_when_it_gives_up(capsys, monkeypatch):
    from games.engine import solver_cli

    monkeypatch.setattr(solver_cli, "solve", lambda board, **kw: solve(stuck_position(), **kw))
    assert main(["ms:1", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["result"] == "unsolvable"
    monkeypatch.undo()
    assert main(["ms:11982", "--max-states", "100"]) == 2


def test_the_cli_runs_a_range_with_two_jobs_and_prints_a_summary(capsys):
    assert main(["ms:1-4", "--jobs", "2", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "solved" in out and "median time" in out and "mean length" in out


def test_a_summary_counts_results_and_times():
    rows = [
        {"result": "solved", "count": 10, "seconds": 0.1},
        {"result": "solved", "count": 20, "seconds": 0.3},
        {"result": "unsolvable", "count": 0, "seconds": 2.0},
    ]
    s = summarize(rows)
    assert (s["solved"], s["unsolvable"], s["gave_up"]) == (2, 1, 0)
    assert s["median_seconds"] == 0.3 and s["mean_length"] == 15


def test_the_fast_beam_scores_the_same_moves_and_values_as_the_move_generator():
    import random

    from games.engine.solver import BEAM_PARAMS, to_core

    rng = random.Random(3)
    heur = core.Heuristic(BEAM_PARAMS[0])
    for deal in ("ms:1", "ms:2", "ms:3"):
        state = core.children(to_core(Board.from_deal(deal))[0], True)[0][1]
        for _ in range(40):
            moves = core.children(state, False)
            if not moves:
                break
            expected = {(m, core.key_of(c[0], c[1])) for m, c, _a in moves}
            got = set()
            out: list = []
            core._expand_lazy(heur, state, heur.colsum(state[0]), 0, out, 0)
            for h, _seq, _p, move, i, a, j, b, cells in out:
                child = a if i == -2 else core.lazy_child(state, i, a, j, b, cells)
                got.add((move, core.key_of(child[0], child[1])))
                if not core.is_won(child):
                    assert h == pytest.approx(heur.colsum(child[0]) + heur.rest(child[1], child[2]))
            assert got == expected
            state = rng.choice(moves)[1]


def test_a_known_line_is_renumbered_onto_the_same_position_with_its_columns_in_another_order():
    from games.engine.solver import to_core

    root = to_core(Board.from_deal("ms:5"))[0]
    path = core.Search(root, 1, 1.3, {"runs": 1.0, "cell": 0.6}).run()
    known = core.Known(1)
    known.add(root, path)
    middle = path[len(path) // 2][2]
    cols = list(middle[0])
    cols.reverse()
    permuted = (tuple(cols), middle[1], middle[2])
    key = core.key_of(permuted[0], permuted[1])
    assert known.get(key)[0] == len(path) - len(path) // 2 - 1
    state = permuted
    for move, _auto, after in known.suffix(permuted, key):
        state, _ = core.play(state, move)
        assert state == after
    assert core.is_won(state)


def test_par_mode_returns_lines_the_engine_replays_for_several_deals():
    for deal in ("ms:6", "ms:7"):
        board = Board.from_deal(deal)
        par = solve(board, autoplay="safe", par=True, budget=0.5, cpu_clock=True)
        assert par.result == "solved"
        assert verify(board, par.moves, autoplay="safe").won


@pytest.mark.parametrize("deal", ["ms:1", "ms:617", "seed:42"])
def test_the_move_set_reaches_every_position_one_legal_move_reaches(deal):
    """The solver's proofs of unsolvability (and the optimum of bench/optimal.py) hold only if its
    move set leaves out no position a legal move reaches. Along a winning line and off it, the
    positions of the engine's legal moves (each followed by safe autoplay) are those of
    ``children``, up to the order of the columns; a move that changes nothing is left out."""
    import random

    from games.engine.solver import to_core

    rng = random.Random(deal)
    board = Board.from_deal(deal)
    board.safe_autoplay()
    line = solve(board, autoplay="safe").moves
    checked = 0
    def key(position: Board):
        cols, cells, _found = to_core(position)[0]
        return core.key_of(cols, cells)

    for step in range(len(line)):
        for position in (board, _wander(board, rng)):
            state = to_core(position)[0]
            here = key(position)
            by_engine = set()
            for move in position.legal_moves():
                after = position.copy(history=False)
                after.play(move, autoplay="safe")
                by_engine.add(key(after))
            for full in (True, False):
                by_core = {core.key_of(c[0], c[1]) for _m, c, _a in core.children(state, full)}
                assert by_core - {here} == by_engine - {here}, (deal, step, position.to_text())
            checked += 1
        board.play(line[step], autoplay="safe")
    assert checked >= 2 * len(line) > 0


def _wander(board: Board, rng, steps: int = 6) -> Board:
    """A position a few random legal moves away from ``board`` (safe autoplay after each)."""
    board = board.copy(history=False)
    for _ in range(steps):
        moves = board.legal_moves()
        if not moves or board.is_won():
            break
        board.play(rng.choice(moves), autoplay="safe")
    return board
