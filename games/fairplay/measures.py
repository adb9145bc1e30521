"""The fair-play signals of a finished game, measured from its action timeline: pure Python, no Django.

Each signal has a published threshold (`THRESHOLDS`, GET /api/fair-play/, docs/fair-play.md) and a
side: a result is flagged when a value is below it (`below`), at or below it (`at_or_below`) or above it
(`above`). A signal that cannot be
measured on a game (too few moves to judge a rhythm, no par known, an undo played) gives no value and
never flags it.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Signal:
    """One signal as published: its name, its threshold, the side that flags, and what it means."""

    signal: str
    threshold: float
    flags_when: str  # "below", "at_or_below" or "above"
    words: str

    def crossed(self, value: float) -> bool:
        if self.flags_when == "below":
            return value < self.threshold
        if self.flags_when == "at_or_below":
            return value <= self.threshold
        return value > self.threshold


#: Each side of a threshold in words, as the pages and the docs say it.
SIDE_WORDS = {"below": "below", "at_or_below": "at or below", "above": "above"}

#: The fewest gaps between actions over which a rhythm is judged: a short game says too little.
MIN_GAPS = 10

SIGNALS: tuple[Signal, ...] = (
    Signal(
        "steadiness",
        0.30,
        "below",
        "How much the time between your moves varies: the standard deviation of the natural logarithm of "
        f"those times, over games of more than {MIN_GAPS} moves. People look, pause to think, then play a few "
        "quick moves: a spread of 0.5 to 1 (docs/fair-play.md measures it on models of people's play); a "
        "program that keeps an even beat stays under 0.15, the network's jitter included.",
    ),
    Signal(
        "even_beat",
        0.20,
        "below",
        "How even the beat of your moves is once your longest pauses and quickest runs are set aside: the "
        "spread of the middle half of the times between moves (the interquartile range of their natural "
        f"logarithm over 1.349), over games of more than {MIN_GAPS} moves. A program that pauses now and then "
        "to look human still keeps an even beat in between (under 0.1); people's middle half spreads over 0.3.",
    ),
    Signal(
        "first_move_ms",
        1000,
        "below",
        "Milliseconds from the moment the board is shown to your first move. Reading a new deal takes a "
        "person a few seconds; a program moves at once.",
    ),
    Signal(
        "pace_ms",
        150,
        "below",
        "Average milliseconds per move (undos count as moves) over the whole game. A hand on a mouse, a "
        "finger or keys does not keep up moves faster than this.",
    ),
    Signal(
        "moves_over_par",
        0,
        "at_or_below",
        "Your moves minus the deal's par (the best line the solver found), counted only when you played no "
        "undo: matching or beating the solver's line without a single take-back is what a solver's line "
        "played by a program looks like. Flagged when it is at or under 0 (moves at or under par).",
    ),
    Signal(
        "hints",
        0,
        "above",
        "Hints asked for in the game (the solver's next move). A result made with the solver's help is not "
        "a person's own.",
    ),
)
BY_NAME = {signal.signal: signal for signal in SIGNALS}


@dataclass(frozen=True)
class Timeline:
    """What the signals read of a finished game: the ms from the board shown to each action, in order."""

    action_ms: list[int]
    moves: int
    undos: int
    par: int | None
    hints: int


def spread(gaps: list[int]) -> float | None:
    """The standard deviation of ln(gap) over the gaps between actions (a gap under 1 ms counts as 1)."""
    if len(gaps) < MIN_GAPS:
        return None
    return statistics.pstdev(math.log(max(gap, 1)) for gap in gaps)


def beat(gaps: list[int]) -> float | None:
    """The interquartile range of ln(gap) over 1.349 (the standard deviation's value for a normal law): a
    spread that a few long pauses, which lift the standard deviation of an even beat, leave as it was."""
    if len(gaps) < MIN_GAPS:
        return None
    low, _median, high = statistics.quantiles([math.log(max(gap, 1)) for gap in gaps], n=4)
    return (high - low) / 1.349


def values(timeline: Timeline) -> dict[str, float | None]:
    """Each signal's value for a game (None where it cannot be measured)."""
    times = timeline.action_ms
    gaps = [after - before for before, after in zip(times, times[1:], strict=False)]
    last = times[-1] if times else None
    over_par = None
    if timeline.par and timeline.undos == 0:
        over_par = timeline.moves - timeline.par
    return {
        "steadiness": None if (s := spread(gaps)) is None else round(s, 3),
        "even_beat": None if (b := beat(gaps)) is None else round(b, 3),
        "first_move_ms": times[0] if times else None,
        "pace_ms": round(last / len(times)) if last is not None and times else None,
        "moves_over_par": over_par,
        "hints": timeline.hints,
    }


def reasons(timeline: Timeline, signals: tuple[Signal, ...] = SIGNALS) -> list[dict]:
    """The signals a game crosses: [{signal, value, threshold}], in the published order."""
    measured = values(timeline)
    found = []
    for signal in signals:
        value = measured[signal.signal]
        if value is not None and signal.crossed(value):
            found.append({"signal": signal.signal, "value": value, "threshold": signal.threshold})
    return found


def published(signals: tuple[Signal, ...] = SIGNALS) -> list[dict]:
    """The signals as GET /api/fair-play/ publishes them."""
    return [asdict(signal) for signal in signals]
