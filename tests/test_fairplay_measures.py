"""games/fairplay/measures.py: the signals a finished game's timeline crosses (pure Python, no database).

The person-like timelines come from bench/fairplay.py's model (the Keystroke-Level Model's operators,
pauses to think, a first look at the deal, lines over par, undos), the same the docs' figures measure.
"""

from __future__ import annotations

import random

from bench.fairplay import PEOPLE, Deal, bot, person, steady
from games.fairplay.measures import BY_NAME, MIN_GAPS, SIGNALS, Timeline, published, reasons, values

PAR = 36
DEAL = Deal("ms:1", par=PAR, line=(), plain=45)


def flagged(timeline: Timeline) -> set[str]:
    return {reason["signal"] for reason in reasons(timeline)}


def steady_line(pace_ms: int, moves: int = PAR, *, first_ms: int | None = None, undos: int = 0, hints: int = 0) -> Timeline:
    """A program's line: one action every `pace_ms`, give or take a few ms of network."""
    noise = random.Random(7)
    first = pace_ms if first_ms is None else first_ms
    times = [first + pace_ms * i + noise.randint(0, 6) for i in range(moves)]
    return Timeline(action_ms=times, moves=moves, undos=undos, par=PAR, hints=hints)


def test_a_solver_line_at_a_steady_153_ms_is_flagged_on_steadiness_and_first_move_not_on_pace():
    line = steady_line(153)
    found = {reason["signal"]: reason for reason in reasons(line)}
    assert {"steadiness", "first_move_ms"} <= set(found)
    assert found["steadiness"]["value"] < 0.1 and found["steadiness"]["threshold"] == BY_NAME["steadiness"].threshold
    assert found["first_move_ms"]["value"] < 1000
    assert "pace_ms" not in found  # the old rule alone let it through: 153 ms a move is over 150
    assert values(line)["pace_ms"] >= 150


def test_the_bench_bot_at_153_ms_is_flagged_in_every_game():
    play = bot(steady(153))
    for index in range(20):
        assert {"steadiness", "first_move_ms", "moves_over_par"} <= flagged(play(random.Random(index), DEAL))


def test_a_person_like_timeline_from_the_model_is_not_flagged():
    play = person(PEOPLE["person: average (mouse)"])
    line = play(random.Random("one game"), DEAL)
    measured = values(line)
    assert reasons(line) == [], measured
    assert measured["steadiness"] > 0.4 and measured["first_move_ms"] > 3000
    assert line.moves > PAR  # a person's line is longer than par


def test_person_like_models_stay_under_one_percent():
    for name, model in PEOPLE.items():
        play = person(model)
        hits = sum(bool(reasons(play(random.Random(f"{name}/{index}"), DEAL))) for index in range(300))
        assert hits <= 3, (name, hits)


def test_a_game_too_short_for_a_rhythm_has_no_steadiness_value():
    assert MIN_GAPS >= 8  # a handful of gaps says nothing of a rhythm
    assert values(steady_line(153, moves=6))["steadiness"] is None
    short = steady_line(153, moves=MIN_GAPS)  # MIN_GAPS actions: one gap too few
    assert values(short)["steadiness"] is None
    assert "steadiness" not in flagged(short)
    assert "first_move_ms" in flagged(short)  # the other signals still read it
    enough = steady_line(153, moves=MIN_GAPS + 1)
    assert values(enough)["steadiness"] is not None
    assert "steadiness" in flagged(enough)


def test_moves_over_par_counts_only_without_an_undo():
    slow = 2500  # no timing signal: a spread of 0 is steady, so vary the beat like a person
    rng = random.Random(3)
    times, at = [], 4000
    for _ in range(PAR + 2):
        times.append(at)
        at += rng.choice((slow, 3 * slow, 700, 9000))

    def game(moves: int, undos: int) -> Timeline:
        return Timeline(action_ms=times[:moves], moves=moves, undos=undos, par=PAR, hints=0)

    at_par = game(PAR, 0)
    assert values(at_par)["moves_over_par"] == 0 and flagged(at_par) == {"moves_over_par"}
    assert flagged(game(PAR - 1, 0)) == {"moves_over_par"}  # under par: the solver's line beaten
    assert values(game(PAR + 1, 0))["moves_over_par"] == 1 and flagged(game(PAR + 1, 0)) == set()
    with_undo = game(PAR + 2, 1)  # par's moves plus a move and its undo
    assert values(with_undo)["moves_over_par"] is None and flagged(with_undo) == set()
    no_par = Timeline(action_ms=times[:PAR], moves=PAR, undos=0, par=None, hints=0)
    assert values(no_par)["moves_over_par"] is None and flagged(no_par) == set()


def test_hints_flag_a_result():
    person_like = person(PEOPLE["person: slow (mouse)"])(random.Random(5), DEAL)
    assert flagged(person_like) == set()
    helped = Timeline(person_like.action_ms, person_like.moves, person_like.undos, person_like.par, hints=1)
    assert flagged(helped) == {"hints"}
    assert reasons(helped) == [{"signal": "hints", "value": 1, "threshold": 0}]


def test_pace_is_the_average_from_the_board_shown_and_still_flags_a_fast_line():
    fast = steady_line(100, first_ms=5000)
    assert "pace_ms" not in flagged(fast)  # the first look pulls the average over 150 ms a move
    faster = steady_line(60)
    assert {"pace_ms", "steadiness", "first_move_ms"} <= flagged(faster)


def test_the_published_signals_are_the_measured_ones():
    assert [row["signal"] for row in published()] == [signal.signal for signal in SIGNALS]
    assert set(values(steady_line(300))) == {signal.signal for signal in SIGNALS}
    for row in published():
        assert row["flags_when"] in ("below", "at_or_below", "above") and row["words"]
