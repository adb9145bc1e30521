"""Fair-play benchmark: how often the fair-play signals flag machine-played and person-like games, beside the old rule.

Run: .venv/bin/python -m bench.fairplay [--games 1000] [--seed 1] [--deals 24] [--par-budget 2] [--browser N] [--json FILE]

The deals ms:1-D are solved first (two processes): each deal's par line under safe autoplay, by the
project's par mode (`par_search`: --par-budget seconds each; a slower machine may find a move more now and
then, which moves the figures by a game or two), its length the par; and the plain solve's line,
which the browser tests play. Then, for every kind below, --games games are drawn (game i of a kind
plays deal i mod D, with a random generator seeded by --seed, the kind and i: the figures are the same
run after run), each turned into the `Timeline` that games/fairplay/measures.py reads: the ms from the
board shown to each action, the moves (undos counted), the undos, the deal's par and the hints. Each
game is judged twice:

- the old rule alone (the baseline): a ranked win was held only when faster than 150 ms a move on
  average (the `pace_ms` signal by itself);
- the new signals (`measures.reasons`): steadiness, first move, pace, moves over par, hints.

Kinds (docs/fair-play.md, "How a person's play is told apart from a machine's", says why each):
- machine: the solver's line played by a program at steady paces, at jittered paces, with a move and
  its undo inserted k times, with long pauses put in; its first move comes after a delay drawn like
  the rest (one kind waits 4 s);
- person-like: a model built from the Keystroke-Level Model's operators (Card, Moran and Newell
  1980), with pauses to think, a first look at the new deal, lines longer than par and undos;
- the browser tests' scripts (tests/test_browser.py): machine-driven play through the page, modelled
  from a measured run of Chromium; with --browser N, N games of each script are also played live
  through the page (Playwright driving /usr/bin/chromium against Daphne on a fresh SQLite file) and
  their timelines read from the database. A script is a program: being flagged is the right outcome,
  and it is not counted as honest-looking.

Under the table: the person-like models with a part taken away (how much the verdict hangs on each),
and the share of games under each steadiness threshold (the sweep the threshold was chosen from),
beside the same for the even beat (the interquartile range of ln gap, `even_beat`).
Figures to read, never assertions in the test suite (tests/test_fairplay_measures.py tests measures.py).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.engine import Board  # noqa: E402
from games.engine.solver import solve  # noqa: E402
from games.fairplay.measures import SIGNALS, Timeline, beat, reasons  # noqa: E402

#: The old rule: a ranked win was held only when faster than this many ms a move on average.
OLD_PACE_MS = 150
SIGNAL_NAMES = [signal.signal for signal in SIGNALS]


# --- deals, lines and par -----------------------------------------------------------------------


@dataclass(frozen=True)
class Deal:
    deal: str
    par: int  # the solver's line length under safe autoplay, par mode: the par
    line: tuple[str, ...]  # that line
    plain: int  # the plain solve's line length (what tests/support/browser.py's winning_line plays)


def par_search(board: Board, budget: float) -> list[str] | None:
    """The par line of a deal under safe autoplay: the project's own par mode (games.engine.solver, as the
    daily's maker and the deal facts run it) for `budget` seconds. None when the deal is not won."""
    found = solve(board, autoplay="safe", par=True, budget=budget)
    return [str(move) for move in found.moves] if found.solved else None


def _solve_one(args: tuple[str, tuple[int, ...]]) -> Deal | None:
    deal, budget = args
    board = Board.from_deal(deal)
    line = par_search(board, budget)
    plain = solve(board, autoplay="safe")
    if not (line and plain.solved):
        return None
    return Deal(deal, len(line), tuple(line), plain.count)


def solve_deals(count: int, budget: float, jobs: int = 2) -> list[Deal]:
    """ms:1-count, each given its par line (`par_search`) and its plain solve: the won ones."""
    work = [(f"ms:{n}", budget) for n in range(1, count + 1)]
    with multiprocessing.Pool(jobs) as pool:
        return [deal for deal in pool.map(_solve_one, work) if deal is not None]


# --- turning the times of actions into a timeline ------------------------------------------------


def network(rng: random.Random) -> float:
    """One action's trip to the server in ms: 20 ms, plus a jitter of 4 ms on average (exponential)."""
    return 20 + rng.expovariate(1 / 4)


def timeline(rng: random.Random, gaps_ms: list[float], kinds: list[str], par: int, hints: int = 0) -> Timeline:
    """The timeline of actions sent after `gaps_ms` (the first: from the board shown), each arriving
    after its own network trip, in order (one socket: no action overtakes another)."""
    sent, arrived, at = 0.0, 0.0, []
    for gap in gaps_ms:
        sent += max(gap, 1.0)
        arrived = max(arrived, sent + network(rng))
        at.append(round(arrived))
    undos = kinds.count("undo")
    return Timeline(action_ms=at, moves=len(kinds), undos=undos, par=par, hints=hints)


def with_inserted_undos(rng: random.Random, length: int, inserted: int) -> list[str]:
    """The actions of a line of `length` moves with a move and its undo inserted `inserted` times,
    each after a random move of the line."""
    kinds = ["move"] * length
    for _ in range(inserted):
        where = rng.randint(1, len(kinds))
        kinds[where:where] = ["move", "undo"]
    return kinds


# --- machine kinds ------------------------------------------------------------------------------


def steady(pace_ms: float) -> Callable[[random.Random], float]:
    return lambda rng: pace_ms


def uniform(pace_ms: float, share: float) -> Callable[[random.Random], float]:
    return lambda rng: pace_ms * rng.uniform(1 - share, 1 + share)


def gaussian(pace_ms: float, sd_share: float) -> Callable[[random.Random], float]:
    return lambda rng: max(0.05 * pace_ms, rng.gauss(pace_ms, sd_share * pace_ms))


def lognormal(median_ms: float, sigma: float) -> Callable[[random.Random], float]:
    return lambda rng: rng.lognormvariate(math.log(median_ms), sigma)


def bot(
    delay: Callable[[random.Random], float],
    undos: int = 0,
    plain: bool = False,
    pauses: int = 0,
    first_ms: float | None = None,
) -> Callable[[random.Random, Deal], Timeline]:
    """The solver's line played by a program: every action (the first too, unless `first_ms`) after a
    delay drawn by `delay`, with a move and its undo inserted `undos` times, and `pauses` pauses of
    4-6 s put in at random. The par line, or with `plain` the plain solve's line (longer: what a
    program that asks the solver for any win plays)."""

    def play(rng: random.Random, deal: Deal) -> Timeline:
        kinds = with_inserted_undos(rng, deal.plain if plain else deal.par, undos)
        gaps = [delay(rng) for _ in kinds]
        if first_ms is not None:
            gaps[0] = first_ms * rng.uniform(0.8, 1.2)
        for where in rng.sample(range(1, len(gaps)), pauses):
            gaps[where] += rng.uniform(4000, 6000)
        return timeline(rng, gaps, kinds, deal.par)

    return play


# --- person-like kinds: the Keystroke-Level Model ------------------------------------------------

#: The Keystroke-Level Model's operators (Card, Moran and Newell 1980), in seconds: mental
#: preparation M, pointing with a mouse P (Fitts' law, 0.8-1.5 s, 1.1 on average), a button press or
#: release B (a click: BB), a keystroke K (0.12 s a good typist, 0.20 an average skilled one, 0.28
#: an average non-secretary).
M, P, B = 1.35, 1.10, 0.10
K_GOOD, K_AVERAGE = 0.12, 0.20


@dataclass(frozen=True)
class Person:
    """A person's play: each move costs its hand time (KLM operators, log-normal around their sum);
    some moves are first chosen (an M); some start a new plan (a pause to think); the first move comes
    after a look at the new deal. The line is longer than par, and some games have undos."""

    motor_s: float  # median hand time of a move (two clicks, two taps or a few keys)
    undo_s: float  # median hand time of an undo (a click on Undo, or the key u)
    m_share: float  # share of moves preceded by a mental operator M
    think_share: float  # share of moves preceded by a pause to think (a new plan)
    think_s: float  # median pause to think
    look_s: float  # median first look at a new deal, before the first move's M and hand time
    extra_share: float  # median of the moves over par, as a share of par
    undos_mean: float  # mean undos in a game (Poisson)
    motor_sigma: float = 0.3  # spread (sd of ln) of the same operator's time, move to move
    m_sigma: float = 0.5
    think_sigma: float = 0.8
    look_sigma: float = 0.5
    extra_sigma: float = 0.7


def poisson(rng: random.Random, mean: float) -> int:
    limit, count, product = math.exp(-mean), 0, rng.random()
    while product > limit:
        count += 1
        product *= rng.random()
    return count


def person(model: Person) -> Callable[[random.Random, Deal], Timeline]:
    def play(rng: random.Random, deal: Deal) -> Timeline:
        def draw(median: float, sigma: float) -> float:
            return rng.lognormvariate(math.log(median), sigma)

        undos = poisson(rng, model.undos_mean)
        extra = round(deal.par * draw(model.extra_share, model.extra_sigma)) if model.extra_share else 0
        forward = deal.par + extra + undos  # each undone move is played again, otherwise
        kinds = ["move"] * forward
        for _ in range(undos):
            where = rng.randint(1, len(kinds))  # after a move: a take-back of it
            kinds.insert(where, "undo")
        gaps = []
        after_undo = False
        for index, kind in enumerate(kinds):
            seconds = 0.0
            if index == 0:
                seconds += draw(model.look_s, model.look_sigma) + draw(M, model.m_sigma)
            elif kind == "undo":
                seconds += draw(M, model.m_sigma)  # seeing the mistake
            else:
                if after_undo or rng.random() < model.m_share:
                    seconds += draw(M, model.m_sigma)
                if rng.random() < model.think_share:
                    seconds += draw(model.think_s, model.think_sigma)
            hand = model.undo_s if kind == "undo" else model.motor_s
            seconds += draw(hand, model.motor_sigma)
            gaps.append(seconds * 1000)
            after_undo = kind == "undo"
        return timeline(rng, gaps, kinds, deal.par)

    return play


#: Pointing at a card-sized target across the table by Fitts' law at the mouse's measured throughput
#: (about 4-5 bits/s; IDs of 2.5-3 bits): about 0.6 s, for a practised player who knows where to go.
P_PRACTISED = 0.6
#: A tap on a phone's small card (a thumb's reach, a target narrower than the finger): about 0.7 s.
TAP = 0.7

PEOPLE = {
    # Mouse, practised: two points (0.6 s) and two clicks a move; chooses fewer moves (M on 35%),
    # plans less often (8%) and briefly (3 s); reads the deal for 4 s; lines 10% over par; 1 undo.
    "person: fast expert (mouse)": Person(
        motor_s=2 * (P_PRACTISED + 2 * B), undo_s=P_PRACTISED + 2 * B, m_share=0.35, think_share=0.08,
        think_s=3.0, look_s=4.0, extra_share=0.10, undos_mean=1.0,
    ),
    # Mouse, the KLM's own averages: two P and two clicks (2.6 s); M on half the moves; a pause of
    # 6 s every 8 moves; reads the deal for 8 s; lines 30% over par; 3 undos.
    "person: average (mouse)": Person(
        motor_s=2 * (P + 2 * B), undo_s=P + 2 * B, m_share=0.5, think_share=0.12,
        think_s=6.0, look_s=8.0, extra_share=0.30, undos_mean=3.0,
    ),
    # Mouse, a newcomer: hand times half as long again; M on 70%; a pause of 10 s every 5 moves;
    # reads the deal for 15 s; lines 60% over par; 6 undos.
    "person: slow (mouse)": Person(
        motor_s=1.5 * 2 * (P + 2 * B), undo_s=1.5 * (P + 2 * B), m_share=0.7, think_share=0.2,
        think_s=10.0, look_s=15.0, extra_share=0.60, undos_mean=6.0,
    ),
    # Phone: two taps (0.7 s each) a move; as the average player otherwise, plus the interruptions a
    # phone brings (pauses more often, 15%).
    "person: phone": Person(
        motor_s=2 * TAP, undo_s=TAP, m_share=0.5, think_share=0.15,
        think_s=6.0, look_s=8.0, extra_share=0.30, undos_mean=3.0,
    ),
    # Keyboard, fast: a move typed in the notation, two or three keys of a good typist (0.12 s each,
    # K of 0.36 s with the Enter or the page's wait for a count); M on 35%; a pause of 3 s every 10
    # moves; reads the deal for 4 s; lines 10% over par; 1.5 undos (the key u).
    "person: keyboard, fast": Person(
        motor_s=3 * K_GOOD, undo_s=K_GOOD, m_share=0.35, think_share=0.10,
        think_s=3.0, look_s=4.0, extra_share=0.10, undos_mean=1.5,
    ),
}


# --- the browser tests' scripts -----------------------------------------------------------------

# The browser tests' play, measured from the database after live runs (`--browser 6`, four runs on
# 2026-12-04 on this two-core machine while other test suites ran on it: Debian's Chromium headless
# through Playwright, Daphne on SQLite; the figures each run prints under the table, and each gap read
# from its --json file). Each script plays the line the tests play: tests/support/browser.py's
# `winning_line`, the plain solve (longer than par).


def clicking(rng: random.Random, deal: Deal) -> Timeline:
    """tests/test_browser.py's first test: three clicked moves, undo by the key u and by the button, then
    the rest of the line, every fourth move typed, each action sent once the last one is confirmed (no
    other wait). Measured (24 games): first move 561-1576 ms after the game was made (median 920, sd of
    ln 0.26; under 1 s in 15); a typed move or an undo 36-160 ms after the last action (median 70); a clicked move waits
    for the cards to land first: 243-520 ms (median 305), and 0.6-1.5 s after a move whose autoplay
    flies several cards (about 1 in 15). Spread 0.68-0.94."""
    length = deal.plain
    kinds = ["move"] * 3 + ["undo"] * 2 + ["move"] * (length - 1)
    gaps = [rng.lognormvariate(math.log(920), 0.26)]
    for index in range(1, len(kinds)):
        if index in (3, 4) or (index >= 5 and (index - 5) % 4 == 0):  # the key u, the button, a typed move
            gaps.append(rng.lognormvariate(math.log(70), 0.4))
        else:
            gap = rng.lognormvariate(math.log(305), 0.15)
            if rng.random() < 1 / 15:
                gap += rng.lognormvariate(math.log(500), 0.5)
            gaps.append(gap)
    return timeline(rng, gaps, kinds, deal.par)


def daily_typing(rng: random.Random, deal: Deal) -> Timeline:
    """tests/test_browser.py's daily test: each move typed, its confirmation awaited, then a sleep that
    keeps 0.2 s a ply on average since the page went live. Measured (24 games): first move 458-1025 ms
    (median 606, sd of ln 0.25); then 200 ms a move, with stalls of a few hundred ms when the machine
    was busy: spread 0.06-0.17 in 15 games, 0.21-0.40 in 9 (5 of them 0.30 or more). Modelled as a
    game on a busy machine 2 times in 5, stalling before 1 move in 12, else 1 in 60."""
    stalls = 1 / 12 if rng.random() < 0.4 else 1 / 60
    gaps = [rng.lognormvariate(math.log(610), 0.25)]
    for _ in range(deal.plain - 1):
        gap = rng.lognormvariate(math.log(200), 0.08)
        if rng.random() < stalls:
            gap += rng.lognormvariate(math.log(300), 0.6)
        gaps.append(gap)
    return timeline(rng, gaps, ["move"] * deal.plain, deal.par)


def daily_rest(rng: random.Random, deal: Deal) -> Timeline:
    """tests/test_browser.py's `win_the_daily_over_the_api` (the other player of the daily test): the line
    over REST as fast as each answer comes back, two undos (each followed by the move again), and a
    sleep before the last move that brings the whole to 0.2 s a ply. Measured (18 games): first move
    62-317 ms after the game was made (median 114, sd of ln 0.42: the test's solve between); a request
    8-248 ms (median 79); the last gap 4.4-6.6 s. Spread 0.60-0.89."""
    kinds = ["move"] * (deal.plain + 4)
    kinds[2], kinds[7] = "undo", "undo"
    gaps = [rng.lognormvariate(math.log(115), 0.42)]
    gaps += [rng.lognormvariate(math.log(80), 0.5) for _ in kinds[2:]]
    total = 0.2 * len(kinds) * 1000
    gaps.append(max(1.0, total - sum(gaps)))
    return timeline(rng, gaps, kinds, deal.par)


SCRIPTS = {
    "browser tests: clicking (model)": clicking,
    "browser tests: daily, typed at 0.2 s a ply (model)": daily_typing,
    "browser tests: daily over REST (model)": daily_rest,
}


# --- the kinds ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    name: str
    group: str  # "machine", "person" (honest-looking), "script" (machine-driven, not honest-looking)
    play: Callable[[random.Random, Deal], Timeline]


#: Person-like models with a part taken away: how much of a person's spread the verdict hangs on.
#: Not kinds of player (printed apart, never counted as honest-looking).
SENSITIVITY = {
    "hand times half as varied (σ 0.15)": {"motor_sigma": 0.15},
    "no pauses to think": {"think_share": 0.0},
    "no M and no pauses: hands only": {"m_share": 0.0, "think_share": 0.0},
    "first look at the deal 1 s": {"look_s": 1.0},
}


def kinds() -> dict[str, Kind]:
    machine = [
        *(Kind(f"solver, steady {ms} ms", "machine", bot(steady(ms))) for ms in (50, 153, 300, 1000, 2000)),
        Kind("solver, 153 ms ±50% uniform", "machine", bot(uniform(153, 0.5))),
        Kind("solver, 1 s ±50% uniform", "machine", bot(uniform(1000, 0.5))),
        Kind("solver, 1 s gaussian sd 30%", "machine", bot(gaussian(1000, 0.3))),
        Kind("solver, 1.5 s log-normal σ 0.3", "machine", bot(lognormal(1500, 0.3))),
        Kind("solver, 1.5 s log-normal σ 0.6", "machine", bot(lognormal(1500, 0.6))),
        Kind("solver, steady 153 ms, 1 undo inserted", "machine", bot(steady(153), undos=1)),
        Kind("solver, steady 300 ms, 3 undos inserted", "machine", bot(steady(300), undos=3)),
        Kind("solver, 1 s ±50% uniform, 3 undos inserted", "machine", bot(uniform(1000, 0.5), undos=3)),
        Kind("solver, 1.5 s log-normal σ 0.6, 3 undos", "machine", bot(lognormal(1500, 0.6), undos=3)),
        Kind("solver, plain line (over par), 1.5 s σ 0.6", "machine", bot(lognormal(1500, 0.6), plain=True)),
        Kind("solver, steady 300 ms, 3 pauses of 5 s", "machine", bot(steady(300), pauses=3)),
        Kind(
            "solver, steady 300 ms, 3 pauses, first move 4 s, 2 undos",
            "machine",
            bot(steady(300), undos=2, pauses=3, first_ms=4000),
        ),
    ]
    people = [Kind(name, "person", person(model)) for name, model in PEOPLE.items()]
    scripts = [Kind(name, "script", play) for name, play in SCRIPTS.items()]
    stress = [
        Kind(f"{base}, {label}", "sensitivity", person(Person(**{**PEOPLE[base].__dict__, **change})))
        for base in ("person: average (mouse)", "person: keyboard, fast")
        for label, change in SENSITIVITY.items()
    ]
    return {kind.name: kind for kind in machine + people + scripts + stress}


# --- judging ------------------------------------------------------------------------------------


def fast_spread(times: list[int]) -> float:
    """measures.spread (the sd of ln gap), in floats: statistics.pstdev is exact and slow."""
    logs = [math.log(max(b - a, 1)) for a, b in zip(times, times[1:], strict=False)]
    mean = sum(logs) / len(logs)
    return math.sqrt(sum((x - mean) ** 2 for x in logs) / len(logs))


@dataclass
class Tally:
    games: int = 0
    old: int = 0
    new: int = 0
    by_signal: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SIGNAL_NAMES, 0))
    steadiness: list[float] = field(default_factory=list)
    robust: list[float] = field(default_factory=list)

    def add(self, line: Timeline) -> None:
        self.games += 1
        found = reasons(line)
        names = {reason["signal"] for reason in found}
        times = line.action_ms
        if times and times[-1] / len(times) < OLD_PACE_MS:
            self.old += 1
        if found:
            self.new += 1
        for name in names:
            self.by_signal[name] += 1
        if len(times) >= 3:
            self.steadiness.append(fast_spread(times))
            self.robust.append(beat([b - a for a, b in zip(times, times[1:], strict=False)]) or 0.0)

    def rate(self, count: int) -> float:
        return 100 * count / self.games if self.games else 0.0

    def row(self) -> dict:
        return {
            "games": self.games,
            "old_rule_pct": round(self.rate(self.old), 2),
            "new_signals_pct": round(self.rate(self.new), 2),
            "signals_pct": {name: round(self.rate(n), 2) for name, n in self.by_signal.items()},
            "steadiness_median": round(statistics.median(self.steadiness), 3) if self.steadiness else None,
        }


def judge(kind: Kind, deals: list[Deal], games: int, seed: int) -> Tally:
    tally = Tally()
    for index in range(games):
        rng = random.Random(f"{seed}/{kind.name}/{index}")
        tally.add(kind.play(rng, deals[index % len(deals)]))
    return tally


def _judge_named(args: tuple[str, list[Deal], int, int]) -> tuple[str, dict, list[float], list[float]]:
    name, deals, games, seed = args
    tally = judge(kinds()[name], deals, games, seed)
    return name, tally.row(), tally.steadiness, tally.robust


# --- the live run through the page -----------------------------------------------------------------


def _ms_between(start: str, end: str) -> int:
    return round((datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds() * 1000)


def read_timeline(db: Path, username: str, par: int | None) -> Timeline:
    """The timeline of the player's last game, from the database: ms from the game's creation (the board
    made for the page) to each stored action."""
    with sqlite3.connect(db) as conn:
        game_id, created, hints, daily_par = conn.execute(
            "SELECT g.id, g.created_at, g.hints, d.par FROM games_game g JOIN auth_user u ON u.id = g.player_id "
            "LEFT JOIN games_dailygame dg ON dg.game_id = g.id AND dg.ranked "
            "LEFT JOIN games_dailychallenge d ON d.date = dg.daily_id WHERE u.username = ? ORDER BY g.id DESC LIMIT 1",
            (username,),
        ).fetchone()
        rows = conn.execute('SELECT kind, created_at FROM games_action WHERE game_id = ? ORDER BY "index"', (game_id,)).fetchall()
    at = [_ms_between(created, when) for _kind, when in rows]
    undos = sum(kind == "undo" for kind, _when in rows)
    return Timeline(action_ms=at, moves=len(rows), undos=undos, par=daily_par or par, hints=hints)


class LiveSite:
    """Daphne on a fresh SQLite file, as tests/support/browser.py's `site` fixture starts it."""

    def __init__(self):
        self.folder = Path(tempfile.mkdtemp(prefix="bench-fairplay-"))
        self.db = self.folder / "db.sqlite3"
        drop = ("DATABASE_URL", "REDIS_URL", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS")
        env = {k: v for k, v in os.environ.items() if k not in drop}
        env.update(
            SQLITE_PATH=str(self.db), DJANGO_SETTINGS_MODULE="freecell_site.settings", DEBUG="1",
            LOG_LEVEL="WARNING", DAILY_PAR_BUDGET="1", DAILY_SOLVE_BUDGET="10",
        )
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True, timeout=180)
        from tests.support.servers import free_port

        port = free_port()
        self.base = f"http://127.0.0.1:{port}"
        self.log = open(self.folder / "daphne.log", "wb")  # noqa: SIM115
        self.server = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "freecell_site.asgi:application"],
            cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 40
        while True:
            try:
                with urllib.request.urlopen(self.base + "/healthz", timeout=2):
                    break
            except OSError:
                if self.server.poll() is not None or time.monotonic() > deadline:
                    self.close()
                    raise RuntimeError("daphne did not start") from None
                time.sleep(0.2)

    def close(self) -> None:
        if self.server.poll() is None:
            self.server.terminate()
            try:
                self.server.wait(10)
            except subprocess.TimeoutExpired:
                self.server.kill()
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


LIVE_CLICKS = "browser tests: clicking (live)"
LIVE_TYPED = "browser tests: daily, typed at 0.2 s a ply (live)"
LIVE_REST = "browser tests: daily over REST (live)"


def live_browser(games: int, deals: list[Deal]) -> tuple[dict[str, list[Timeline]], dict[str, list[str]]]:
    """Plays `games` games of each browser-test script through the page and reads their timelines; and
    the games that did not play through (the script's own failures, as the tests would report them)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "freecell_site.settings")
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, Site, new_tab, winning_line
    from tests.test_browser import win_the_daily_over_the_api

    def clicking(target, name: str, deal: Deal) -> None:
        """tests/test_browser.py, test_sign_up_and_win_a_microsoft_deal_by_clicking: three clicked moves,
        undo by key and by button, then the line, every fourth move typed (the refused move it also
        tries is no action and is left out)."""
        tab = new_tab(browser, target).sign_up(name)
        try:
            tab.deal(f"/play/{deal.deal.split(':')[1]}/")
            tab.wait_live()
            start = Board.from_deal(deal.deal)
            start.safe_autoplay()
            line = winning_line(start)
            for ply, move in enumerate(line[:3], start=1):
                tab.click_move(move)
                tab.wait_ply(ply)
            tab.page.keyboard.press("u")
            tab.wait_ply(4)
            tab.page.click("[data-action=undo]")
            tab.wait_ply(5)
            ply = 5
            for step, move in enumerate(line[1:], start=1):
                if step % 4 == 1:
                    tab.type_move(move)
                else:
                    tab.click_move(move)
                ply += 1
                tab.wait_ply(ply)
            tab.page.wait_for_selector("[data-testid=status][data-status=won]")
        finally:
            tab.context.close()

    def typing(target, name: str) -> None:
        """test_the_daily_from_start_to_leaderboard: the day's ranked game, a typed move, the wait for it,
        and a sleep that keeps 0.2 s a ply on average."""
        tab = new_tab(browser, target).sign_up(name)
        try:
            page = tab.page
            tab.goto("/daily/")
            page.wait_for_selector("[data-game-panel]:not([hidden])", timeout=90000)
            tab.wait_live()
            t0 = time.monotonic()
            state = page.evaluate("() => window.fc.client.confirmed.state")
            line = winning_line(Board.from_state(state))
            for ply, move in enumerate(line, start=1):
                tab.type_move(move)
                tab.wait_ply(ply)
                time.sleep(max(0, 0.2 * ply - (time.monotonic() - t0)))
            page.wait_for_selector("[data-testid=status][data-status=won]")
        finally:
            tab.context.close()

    site = LiveSite()
    found: dict[str, list[Timeline]] = {LIVE_CLICKS: [], LIVE_TYPED: [], LIVE_REST: []}
    failed: dict[str, list[str]] = {LIVE_CLICKS: [], LIVE_TYPED: [], LIVE_REST: []}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            target = Site(site.base, site.folder / "daphne.log")
            for index in range(games):
                deal = deals[index % len(deals)]
                plays = [
                    (LIVE_CLICKS, f"clicker{index}", lambda name, deal=deal: clicking(target, name, deal), deal.par),
                    (LIVE_TYPED, f"carol{index}", lambda name: typing(target, name), None),
                    # win_the_daily_over_the_api, the daily test's other player: over REST, paced at the end.
                    (LIVE_REST, f"dan{index}", lambda name: win_the_daily_over_the_api(target, name), None),
                ]
                for kind, name, play, par in plays:
                    try:
                        play(name)
                    except (AssertionError, PlaywrightError) as exc:
                        failed[kind].append(f"{name} ({deal.deal}): {str(exc).splitlines()[0][:160]}")
                        continue
                    found[kind].append(read_timeline(site.db, name, par))
            browser.close()
    finally:
        site.close()
    return found, failed


def describe(lines: list[Timeline]) -> str:
    """The measured figures a script's model is made from: gaps' median and spread, first move."""
    gaps = [b - a for t in lines for a, b in zip(t.action_ms, t.action_ms[1:], strict=False)]
    spreads = [statistics.pstdev(math.log(max(b - a, 1)) for a, b in zip(t.action_ms, t.action_ms[1:], strict=False)) for t in lines]
    firsts = [t.action_ms[0] for t in lines]
    return (
        f"gap median {statistics.median(gaps):.0f} ms, spread (sd of ln gap) median {statistics.median(spreads):.3f}, "
        f"first move median {statistics.median(firsts):.0f} ms (min {min(firsts)}, max {max(firsts)}), "
        f"pace median {statistics.median(t.action_ms[-1] / len(t.action_ms) for t in lines):.0f} ms"
    )


# --- the table ----------------------------------------------------------------------------------

GROUPS = {
    "machine": "machine: the solver's line played by a program (catch rate = flag rate, new signals)",
    "person": "person-like: the KLM model (honest-looking: must stay at or under 1%)",
    "script": "the browser tests' scripts (machine-driven: flagged is right; not honest-looking)",
}
SHORT = {"steadiness": "steady", "even_beat": "beat", "first_move_ms": "first", "pace_ms": "pace", "moves_over_par": "par", "hints": "hints"}


def print_table(rows: dict[str, dict], groups: dict[str, str]) -> None:
    width = max(len(name) for name in rows) + 2
    head = f"{'kind':<{width}}{'games':>7}{'old rule':>10}{'new':>8}{'spread':>8}" + "".join(f"{SHORT[n]:>8}" for n in SIGNAL_NAMES)
    print(head)
    print(" " * width + f"{'':>7}{'% flag':>10}{'% flag':>8}{'median':>8}" + "".join(f"{'%':>8}" for _ in SIGNAL_NAMES))
    for group, title in GROUPS.items():
        names = [name for name in rows if groups[name] == group]
        if not names:
            continue
        print(f"-- {title}")
        for name in names:
            row = rows[name]
            spread = "-" if row["steadiness_median"] is None else f"{row['steadiness_median']:.2f}"
            print(
                f"{name:<{width}}{row['games']:>7}{row['old_rule_pct']:>10.1f}{row['new_signals_pct']:>8.1f}{spread:>8}"
                + "".join(f"{row['signals_pct'][n]:>8.1f}" for n in SIGNAL_NAMES)
            )


#: Steadiness thresholds tried in the sweep printed under the table.
SWEEP = (0.25, 0.28, 0.30, 0.32, 0.35, 0.38, 0.40, 0.45)


#: Thresholds of the even beat (measures.beat, the `even_beat` signal) printed beside.
ROBUST_SWEEP = (0.10, 0.15, 0.20, 0.25)


def print_sweep(
    spreads: dict[str, list[float]], robusts: dict[str, list[float]], groups: dict[str, str]
) -> dict[str, dict[str, float]]:
    """The share of games whose spread is under each threshold: the steadiness signal alone; then the
    same for the even beat (the interquartile spread)."""
    shown = [name for name in spreads if groups[name] in ("machine", "person", "script")]
    width = max(len(name) for name in shown) + 2
    print(
        f"{'steadiness alone: % of games under':<{width}}"
        + "".join(f"{t:>6.2f}" for t in SWEEP)
        + "   | even beat alone under"
        + "".join(f"{t:>6.2f}" for t in ROBUST_SWEEP)
    )
    out = {}
    for name in shown:
        values, robust = spreads[name], robusts[name]
        out[name] = {f"{t:.2f}": round(100 * sum(v < t for v in values) / len(values), 2) for t in SWEEP}
        out[name].update(
            {f"iqr {t:.2f}": round(100 * sum(v < t for v in robust) / len(robust), 2) for t in ROBUST_SWEEP}
        )
        print(
            f"{name:<{width}}"
            + "".join(f"{out[name][f'{t:.2f}']:>6.1f}" for t in SWEEP)
            + " " * 34
            + "".join(f"{out[name][f'iqr {t:.2f}']:>6.1f}" for t in ROBUST_SWEEP)
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games of each kind (default 1000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the timing draws (default 1)")
    parser.add_argument("--deals", type=int, default=24, help="deals ms:1-D solved for lines and par (default 24)")
    parser.add_argument(
        "--par-budget", type=float, default=2.0, help="seconds of the solver's par search per deal (default 2)"
    )
    parser.add_argument("--browser", type=int, default=0, metavar="N", help="also play N games of each browser-test script live")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--json", metavar="FILE", help="also write every figure to FILE")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    deals = solve_deals(args.deals, args.par_budget, args.jobs)
    pars = [deal.par for deal in deals]
    print(
        f"deals ms:1-{args.deals}: {len(deals)} won, par (safe autoplay, {args.par_budget:g} s of par search each) "
        f"mean {statistics.mean(pars):.1f}, {min(pars)}-{max(pars)}; {time.perf_counter() - started:.1f} s"
    )
    catalogue = kinds()
    rows: dict[str, dict] = {}
    spreads: dict[str, list[float]] = {}
    robusts: dict[str, list[float]] = {}
    groups = {name: kind.group for name, kind in catalogue.items()}
    with multiprocessing.Pool(args.jobs) as pool:
        work = [(name, deals, args.games, args.seed) for name in catalogue]
        for name, row, spread, robust in pool.imap(_judge_named, work):
            rows[name], spreads[name], robusts[name] = row, spread, robust
    live_notes, live_lines = {}, {}
    if args.browser:
        played, failed = live_browser(args.browser, deals)
        for name, lines in played.items():
            live_lines[name] = [line.__dict__ for line in lines]
            if failed[name]:
                print(f"{name}: {len(failed[name])} game(s) did not play through: {'; '.join(failed[name])}")
            if not lines:
                continue
            tally = Tally()
            for line in lines:
                tally.add(line)
            rows[name], groups[name] = tally.row(), "script"
            live_notes[name] = describe(lines)
    print(f"\n{args.games} games of each kind, seed {args.seed}; old rule: held when under {OLD_PACE_MS} ms a move;")
    print("new: any signal of games/fairplay/measures.py; then the % of games each signal flagged; spread: median sd of ln gap\n")
    print_table(rows, groups)
    for name, note in live_notes.items():
        print(f"{name}: {note}")

    honest = {name: row["new_signals_pct"] for name, row in rows.items() if groups[name] == "person"}
    worst = max(honest, key=honest.get)
    print(f"\nhonest-looking kinds: highest flag rate {honest[worst]:.2f}% ({worst}); limit 1%: {'met' if honest[worst] <= 1 else 'NOT MET'}")
    caught = {name: row["new_signals_pct"] for name, row in rows.items() if groups[name] == "machine"}
    slipped = [name for name, rate in caught.items() if rate < 99]
    print("machine kinds caught by timing or par in 99%+ of games: " f"{len(caught) - len(slipped)} of {len(caught)}; below: " + (", ".join(f"{n} ({caught[n]:.1f}%)" for n in slipped) or "none"))
    print("\nsensitivity: the person-like models with a part taken away (not kinds of player): flag rate, new signals")
    for name, row in rows.items():
        if groups[name] == "sensitivity":
            print(f"  {name}: {row['new_signals_pct']:.2f}% (steadiness {row['signals_pct']['steadiness']:.2f}%)")
    print()
    sweep = print_sweep(spreads, robusts, groups)
    print(f"\ntook {time.perf_counter() - started:.1f} s")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "groups": groups, "sweep": sweep, "live": live_notes, "live_timelines": live_lines}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
