"""Engine benchmark: validated moves/s, legal-move generation, a 100-move replay and dealing, each beside a baseline.

Run: python bench/engine.py [--quick]. One process, one core; every figure is the best of several
repeats, and each is printed next to a baseline measured in the same run on the same data, so that a
slow machine shows up in both columns. These are figures to read, never assertions in the test suite.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games.engine import Board, Move, verify  # noqa: E402
from games.engine.deals import ms_deal_indices, seed_deal_indices  # noqa: E402

# fc-solve -m -snx's solution of ms:1 (127 moves), the source of the 100-move game.
MS_1_SOLUTION = (
    "5a 5b 5c 5d 5h b2 8b a8 7a b7 58 6b 65 6h 5h 6h 76 b5 81 5b a5 85 8a 8h a2 7a 7h 3h 8h ch "
    "8h 4h 3c b3 4b 48 d4 b7 28 2d 2b a2 b4 31 3a 3b c3 b6 d6 7c 7b 73 34 53 2d 27 25 d7 2d 2h "
    "1h 7h a2 62 32 36 1a 1h 13 71 18 17 1h 8h 8h 2h 2h 4h 6h 4h 1h 7h ah c1 8a 8c 8h c4 a4 6c "
    "6h 6a 67 6h a1 2a 2h c2 a2 4c 4h 2a 2h 8h 1h 46 4h 48 4h bh 4b 4h 3h 4h 7h ch ah 6h 2h 8h "
    "1h 5h dh 1c 1h bh ch"
).split()


def best(fn: Callable[[], object], repeats: int) -> float:
    """Best wall time of `repeats` runs of fn(), in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def random_games(count: int, length: int, seed: int = 1) -> list[tuple[Board, list[str]]]:
    """`count` deals, each with a line of up to `length` random legal moves (as text), preferring
    foundation moves now and then so that lines look like play."""
    rng = random.Random(seed)
    games = []
    for i in range(count):
        start = Board.from_deal(f"ms:{rng.randint(1, 1_000_000)}" if i % 2 else f"seed:{rng.getrandbits(64)}")
        board = start.copy()
        line: list[str] = []
        for _ in range(length):
            moves = board.legal_moves()
            if not moves:
                break
            # play like a person more than like a monkey: home when possible, mostly build on
            # columns, park in a free cell now and then
            home = [m for m in moves if m.dest == "h"]
            builds = [m for m in moves if m.dest in "12345678"]
            if home and rng.random() < 0.8:
                move = rng.choice(home)
            elif builds and rng.random() < 0.8:
                move = rng.choice(builds)
            else:
                move = rng.choice(moves)
            board.play(move)
            line.append(str(move))
        games.append((start, line))
    return games


def row(name: str, value: float, unit: str, baseline_name: str, baseline: float, target: str = "") -> None:
    print(
        f"  {name:<44} {value:>12,.2f} {unit:<9} | {baseline_name:<38} {baseline:>10,.2f} {unit:<8} {target}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer games and repeats")
    args = parser.parse_args()
    repeats = 3 if args.quick else 7
    games = random_games(40 if args.quick else 200, 120)
    total_moves = sum(len(line) for _, line in games)
    print(
        f"Python {sys.version.split()[0]}, {len(games)} random games, {total_moves} moves; best of {repeats}"
    )
    print(f"  {'measure':<44} {'value':>12} {'unit':<9} | {'baseline (same run)':<38} {'value':>10}")

    # 1. validated moves per second: parse the text, check it, apply it (and keep the undo stack)
    def play_all() -> None:
        for start, line in games:
            board = start.copy(history=False)
            play = board.play
            for move in line:
                play(move)

    def copy_only() -> None:
        for start, line in games:
            board = start.copy(history=False)
            for _move in line:
                pass
            del board

    def trivial_per_move() -> None:
        # a floor for any per-move work in Python: one dict lookup and one append per move
        table = {str(Move(s, d)): (s, d) for s in "12345678abcd" for d in "12345678abcdh"}
        for _, line in games:
            out = []
            append = out.append
            for move in line:
                append(table.get(move))

    t_play = best(play_all, repeats) - best(copy_only, repeats)
    t_floor = best(trivial_per_move, repeats)
    row(
        "validated moves/s (parse+check+apply)",
        total_moves / t_play,
        "moves/s",
        "dict lookup + append per move",
        total_moves / t_floor,
        "target >= 100,000",
    )

    # 2. legal-move generation per position
    positions: list[Board] = []
    for start, line in games:
        board = start.copy(history=False)
        positions.append(board.copy(history=False))
        for move in line:
            board.play(move)
            positions.append(board.copy(history=False))
    n_moves = sum(len(p.legal_moves()) for p in positions)

    def legal_all() -> None:
        for p in positions:
            p.legal_moves()

    def copy_all() -> None:
        for p in positions:
            p.copy(history=False)

    t_legal = best(legal_all, repeats)
    t_copy = best(copy_all, repeats)
    row(
        f"legal moves, mid-game ({n_moves / len(positions):.1f} moves avg)",
        t_legal / len(positions) * 1e6,
        "µs",
        "copy the board",
        t_copy / len(positions) * 1e6,
        "target <= 20 µs",
    )

    fresh = [Board.from_deal(f"ms:{n}") for n in range(1, 201)]
    n_fresh = sum(len(p.legal_moves()) for p in fresh)

    def legal_fresh() -> None:
        for p in fresh:
            p.legal_moves()

    def copy_fresh() -> None:
        for p in fresh:
            p.copy(history=False)

    row(
        f"legal moves, fresh deals ({n_fresh / len(fresh):.1f} moves avg)",
        best(legal_fresh, repeats) / len(fresh) * 1e6,
        "µs",
        "copy the board",
        best(copy_fresh, repeats) / len(fresh) * 1e6,
        "target <= 20 µs",
    )

    # 3. replay of a 100-move game (deal ms:1, parse, check, apply every move)
    line_100 = MS_1_SOLUTION[:100]
    assert verify("ms:1", line_100).valid
    start_1 = Board.from_deal("ms:1")
    state_1 = start_1.state()
    reps = 200

    def replay_100() -> None:
        for _ in range(reps):
            verify("ms:1", line_100)

    def json_round_trip() -> None:
        for _ in range(reps):
            Board.from_state(json.loads(json.dumps(state_1)))

    row(
        "replay a 100-move game incl. dealing (verify)",
        best(replay_100, repeats) / reps * 1e3,
        "ms",
        "json round-trip of the state to a Board",
        best(json_round_trip, repeats) / reps * 1e3,
        "target <= 1 ms",
    )

    # 4. deal generation
    numbers = list(range(1, 2001))

    def ms_deals() -> None:
        for n in numbers:
            ms_deal_indices(n)

    def seed_deals() -> None:
        for n in numbers:
            seed_deal_indices(n)

    def python_shuffle() -> None:
        rng = random.Random(5)
        for _ in numbers:
            deck = list(range(52))
            rng.shuffle(deck)
            [deck[c::8] for c in range(8)]

    t_shuffle = best(python_shuffle, repeats) / len(numbers) * 1e6
    row(
        "deal ms:N",
        best(ms_deals, repeats) / len(numbers) * 1e6,
        "µs",
        "random.shuffle + deal (not used)",
        t_shuffle,
    )
    row(
        "deal seed:S",
        best(seed_deals, repeats) / len(numbers) * 1e6,
        "µs",
        "random.shuffle + deal (not used)",
        t_shuffle,
    )


if __name__ == "__main__":
    main()
