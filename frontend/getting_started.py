"""The getting-started steps of /developers/ as data: shown by the page, run in order by tests/test_getting_started.py.

Each step is a shell command (curl, or Python run from the shell) that a developer pastes in order.
Shell variables carry what a step learns to the next ones: `BASE` (the site), `TOKEN`, `GAME`, `CODE`,
`RACE_GAME`, and for the race of two bots `BOT_TOKEN`, `LINE`, `BOT_RACE`, `BOT_GAME`. `{site}` in a command is the site's address. `answer` is what the step answers: a JSON
object whose fields the real answer has (values naming a variable, `"$GAME"`, stand for its value), or a
piece of text the output contains. The test reads the steps back from the served page and runs them,
so what runs is what a developer sees.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

PASSWORD = "correct horse battery 9"
JSON = "-H 'Content-Type: application/json'"
AUTH = '-H "Authorization: Token $TOKEN"'
#: Reads one field of a JSON answer in the shell (python3 is everywhere jq is not).
FIELD = "python3 -c 'import json, sys; print(json.load(sys.stdin){path})'"


def field(path: str) -> str:
    return FIELD.format(path=path)


TOKEN_OF, ID_OF, BOARD_OF, CODE_OF, PAR_LINE_OF = (field(f'["{name}"]') for name in ("token", "id", "board", "code", "par_line"))
#: Your race game's id, or a failure while the race has not shown its boards (a loop asks again).
FIRST_RACER_GAME_OF = "python3 -c 'import json, sys; print(json.load(sys.stdin)[\"racers\"][0][\"game\"] or sys.exit(1))'"
#: The board text of ms:1 as dealt, as `GET /api/games/<id>/` answers it for a new game.
MS1_BOARD = """\
Foundations: H-0 C-0 D-0 S-0
Freecells: - - - -
: JD KD 2S 4C 3S 6D 6S
: 2D KC KS 5C TD 8S 9C
: 9H 9S 9D TS 4S 8D 2H
: JC 5S QD QH TH QS 6H
: 5D AD JS 4H 8H 6C
: 7H QC AS AC 2C 3D
: 7C KH AH 4D JH 8C
: 5H 3H 3C 7S 7D TC"""


@dataclass(frozen=True)
class Step:
    title: str
    text: str
    command: str
    answer: object = None
    sets: tuple[str, ...] = ()
    language: str = "shell"  # what the page shows the command as
    requires: str = ""  # a Python package the step needs (pip install ...)


PLAY_PY = """\
import json, os, urllib.request

BASE, TOKEN, GAME = os.environ["BASE"], os.environ["TOKEN"], os.environ["GAME"]


def call(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(BASE + path, data=data, method=method)
    request.add_header("Authorization", f"Token {TOKEN}")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


game = call("GET", f"/api/games/{GAME}/")
print(game["board"])
# ply: the player actions seen so far; client_id: a resend with both is never applied twice.
played = call("POST", f"/api/games/{GAME}/moves/", {"move": "5b", "ply": game["ply"], "client_id": "py-1"})
print("played", played["action"]["move"], "- ply", played["ply"], "- repeated", played["repeated"])
"""

RACE_PY = """\
import asyncio, json, os

import websockets  # pip install websockets

BASE, TOKEN, CODE = os.environ["BASE"], os.environ["TOKEN"], os.environ["CODE"]


async def race():
    url = BASE.replace("http", "ws", 1) + f"/ws/races/{CODE}/"
    # A socket names its site in Origin; the token goes in the first frame, never in the URL.
    async with websockets.connect(url, origin=BASE) as socket:
        await socket.send(json.dumps({"type": "auth", "token": TOKEN}))
        while True:
            frame = json.loads(await socket.recv())
            print("<-", frame["type"])
            if frame["type"] == "state":  # your own race game: play on it
                move = {"type": "move", "move": "5c", "ply": frame["game"]["ply"], "client_id": "ws-1"}
                await socket.send(json.dumps(move))
            elif frame["type"] == "ack":
                print("played", frame["action"]["move"], "- ply", frame["ply"])
                return
            elif frame["type"] == "error":
                raise SystemExit(frame["message"])


asyncio.run(race())
"""

BOT_PY = """\
import json, os, time, urllib.error, urllib.request

BASE, TOKEN, GAME, LINE = os.environ["BASE"], os.environ["TOKEN"], os.environ["BOT_GAME"], os.environ["LINE"]


def call(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    while True:
        request = urllib.request.Request(BASE + path, data=data, method=method)
        request.add_header("Authorization", f"Token {TOKEN}")
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return json.load(answer)
        except urllib.error.HTTPError as refused:
            error = json.load(refused)["error"]
            if error["code"] != "rate_limited":
                raise SystemExit(f"{error['code']}: {error['message']}")
            # More than 20 actions a second: wait as long as the server says, then send the same move again.
            time.sleep(error["retry_after_ms"] / 1000)


game = call("GET", f"/api/games/{GAME}/")
for number, move in enumerate(LINE.split(), start=1):
    game = call("POST", f"/api/games/{GAME}/moves/", {"move": move, "ply": game["ply"], "client_id": f"bot-{number}"})
print(game["status"], "-", game["cards_home"], "cards home")
"""
#: The race's result in a line a developer reads: each racer's name, status and rank.
RESULT_OF = (
    "python3 -c 'import json, sys; race = json.load(sys.stdin); print(race[\"status\"]); "
    "[print(r[\"username\"], r[\"status\"], r[\"rank\"]) for r in race[\"racers\"]]'"
)

#: The bot step's command: wait for the race's boards, then run bot.py.
# The programs read the shell's variables from their environment: exported first, so that the steps
# pasted into a terminal run as they do in CI.
PLAY_COMMAND = "export BASE TOKEN GAME  # what play.py reads from its environment\npython3 play.py"
RACE_COMMAND = "export BASE TOKEN CODE  # what race.py reads from its environment\npython3 race.py"
BOT_COMMAND = (
    f"until BOT_GAME=$(curl -sS --fail-with-body \"$BASE/api/races/$BOT_RACE/\" | {FIRST_RACER_GAME_OF}); do sleep 0.5; done\n"
    "export BASE TOKEN LINE BOT_GAME  # what bot.py reads from its environment\n"
    "python3 bot.py"
)

STEPS = [
    Step(
        "Point at the site",
        "Every step below uses these shell variables. Keep the same terminal open.",
        "BASE={site}",
    ),
    Step(
        "Get a token",
        "Sign up (pick your own username) and keep the token of the answer. It carries every scope; "
        "with an account already, `POST /api/auth/token/` with the same body gives a new key (the key an "
        "earlier sign-in gave stops working). Send it as "
        "`Authorization: Token <token>` (or `Bearer <token>`).",
        f"TOKEN=$(curl -sS --fail-with-body -w '\\n' -X POST \"$BASE/api/auth/register/\" {JSON} \\\n"
        f"  -d '{{\"username\": \"dev_ada\", \"password\": \"{PASSWORD}\"}}' | {TOKEN_OF})\n"
        "echo $TOKEN",
        sets=("TOKEN",),
    ),
    Step(
        "Or make a token for your bot, with only the scopes it needs",
        "A personal access token has a name and scopes: `read`, `play`, `race`, `account`. It is shown "
        "once; revoke it with `DELETE /api/tokens/<id>/` and nothing else stops working.",
        f"TOKEN=$(curl -sS --fail-with-body -w '\\n' -X POST \"$BASE/api/tokens/\" {AUTH} {JSON} \\\n"
        f"  -d '{{\"name\": \"my bot\", \"scopes\": [\"read\", \"play\", \"race\"]}}' | {TOKEN_OF})\n"
        "echo $TOKEN",
        sets=("TOKEN",),
    ),
    Step(
        "Deal a game",
        "Start a casual game of the deal `ms:1` (Microsoft's deal 1) with autoplay `none`. Deal ids "
        "are below; `random` deals a fresh one.",
        f"curl -sS --fail-with-body -w '\\n' -X POST \"$BASE/api/games/\" {AUTH} {JSON} \\\n"
        "  -d '{\"deal\": \"ms:1\", \"autoplay\": \"none\"}' | tee game.json\n"
        f"GAME=$({ID_OF} < game.json)",
        answer={"deal": "ms:1", "status": "playing", "ply": 0, "moves": 0},
        sets=("GAME",),
    ),
    Step(
        "Look at the board",
        "The position as Freecell Solver board text: the foundations, the free cells, then one line per "
        "column, from the covered card to the exposed one, so column 5 ends with the six of clubs.",
        f"curl -sS --fail-with-body -w '\\n' \"$BASE/api/games/$GAME/\" {AUTH} | {BOARD_OF}",
        answer=MS1_BOARD,
    ),
    Step(
        "List the legal moves",
        "Every legal action at the position, in the notation below, with the `ply` to send.",
        f"curl -sS --fail-with-body -w '\\n' \"$BASE/api/games/$GAME/legal-moves/\" {AUTH}",
        answer={"ply": 0},
    ),
    Step(
        "Play a move",
        "`5a` moves the six of clubs from column 5 to free cell a. Send the `ply` you have seen (0 so "
        "far) and a `client_id` of your choosing.",
        f"curl -sS --fail-with-body -w '\\n' -X POST \"$BASE/api/games/$GAME/moves/\" {AUTH} {JSON} \\\n"
        "  -d '{\"move\": \"5a\", \"ply\": 0, \"client_id\": \"move-1\"}'",
        answer={"ply": 1, "moves": 1, "repeated": False},
    ),
    Step(
        "Send it again",
        "Lost the answer? Send the same request again: it is answered with `\"repeated\": true` and not "
        "played twice. A stale `ply` with another move is 409 `ply_conflict`, with the game as it is.",
        f"curl -sS --fail-with-body -w '\\n' -X POST \"$BASE/api/games/$GAME/moves/\" {AUTH} {JSON} \\\n"
        "  -d '{\"move\": \"5a\", \"ply\": 0, \"client_id\": \"move-1\"}'",
        answer={"ply": 1, "moves": 1, "repeated": True},
    ),
    Step(
        "Play from Python",
        "The same in a few lines of Python with the standard library: save as play.py and run it.",
        PLAY_COMMAND,
        answer="played 5b - ply 2 - repeated False",
        language="python",
    ),
    Step(
        "Follow the game as a stream",
        "Newline-delimited JSON, held open: the game first, then one line per change, from any client "
        "(an empty line every 10 s keeps it alive). Here only the first line is read.",
        f"curl -sS -N \"$BASE/api/stream/games/$GAME/\" {AUTH} | head -n 1",
        answer={"id": "$GAME", "ply": 2},
    ),
    Step(
        "Open a race",
        "A race on `ms:1`: friends join with the code (`POST /api/races/<code>/join/`), or you race alone.",
        f"CODE=$(curl -sS --fail-with-body -w '\\n' -X POST \"$BASE/api/races/\" {AUTH} {JSON} \\\n"
        f"  -d '{{\"deal\": \"ms:1\", \"autoplay\": \"none\"}}' | {CODE_OF})\n"
        "echo $CODE",
        sets=("CODE",),
    ),
    Step(
        "Start it",
        "The owner starts the countdown (3 s); at the start instant every racer gets a game of the deal.",
        f"curl -sS --fail-with-body -w '\\n' -X POST \"$BASE/api/races/$CODE/start/\" {AUTH}",
        answer={"code": "$CODE", "owner": "dev_ada"},
    ),
    Step(
        "Play your race game over REST",
        "The boards are shown when the countdown ends: ask for the race until your entry names your game "
        "(or follow `GET /api/stream/races/<code>/`), then play it as any other.",
        f"until RACE_GAME=$(curl -sS --fail-with-body \"$BASE/api/races/$CODE/\" | {FIRST_RACER_GAME_OF}); do sleep 0.5; done\n"
        f"curl -sS --fail-with-body -w '\\n' -X POST \"$BASE/api/games/$RACE_GAME/moves/\" {AUTH} {JSON} \\\n"
        "  -d '{\"move\": \"5a\", \"ply\": 0, \"client_id\": \"race-1\"}'",
        answer={"id": "$RACE_GAME", "ply": 1},
        sets=("RACE_GAME",),
    ),
    Step(
        "Race over the websocket",
        "One race socket is enough to race: it pushes every racer's progress and your own board, and "
        "takes your moves. Save as race.py and run it.",
        RACE_COMMAND,
        answer="played 5c - ply 2",
        language="python",
        requires="websockets",
    ),
    Step(
        "A second bot",
        "Bot against bot: sign up a second account for the other bot and keep its token.",
        f"BOT_TOKEN=$(curl -sS --fail-with-body -w '\\n' -X POST \"$BASE/api/auth/register/\" {JSON} \\\n"
        f"  -d '{{\"username\": \"dev_bob\", \"password\": \"{PASSWORD}\"}}' | {TOKEN_OF})\n"
        "echo $BOT_TOKEN",
        sets=("BOT_TOKEN",),
    ),
    Step(
        "Read the deal's solver line, before the race",
        "The facts of `ms:617` carry a winning line for safe autoplay (`par_line`). A racer gets no help "
        "on the deal of a race they are in (no hints, legal moves or facts until it is over), so a bot "
        "reads the line first.",
        f"LINE=$(curl -sS --fail-with-body \"$BASE/api/deals/ms:617/facts/\" | {PAR_LINE_OF})\n"
        "echo $LINE",
        sets=("LINE",),
    ),
    Step(
        "Both bots in one race",
        "Your bot opens a race on `ms:617` with safe autoplay, the second joins it with the code, and "
        "yours starts it.",
        f"BOT_RACE=$(curl -sS --fail-with-body -w '\\n' -X POST \"$BASE/api/races/\" {AUTH} {JSON} \\\n"
        f"  -d '{{\"deal\": \"ms:617\", \"autoplay\": \"safe\"}}' | {CODE_OF})\n"
        "curl -sS --fail-with-body -o /dev/null -X POST \"$BASE/api/races/$BOT_RACE/join/\" -H \"Authorization: Token $BOT_TOKEN\"\n"
        f"curl -sS --fail-with-body -w '\\n' -X POST \"$BASE/api/races/$BOT_RACE/start/\" {AUTH}",
        answer={"code": "$BOT_RACE", "owner": "dev_ada"},
        sets=("BOT_RACE",),
    ),
    Step(
        "Your bot plays the solver line",
        "Once the countdown ends, your bot plays the line move after move, each with the `ply` it has "
        "seen; past 20 actions a second the service answers 429 `rate_limited` with `retry_after_ms`, "
        "and the bot waits that long. Save as bot.py and run it.",
        BOT_COMMAND,
        answer="won - 52 cards home",
        sets=("BOT_GAME",),
    ),
    Step(
        "The race is won",
        "The second bot resigns (or plays: `POST /api/games/<id>/moves/` with its own token), and the race "
        "is over: your bot is first.",
        "curl -sS --fail-with-body -o /dev/null -X POST \"$BASE/api/races/$BOT_RACE/resign/\" -H \"Authorization: Token $BOT_TOKEN\"\n"
        f"curl -sS --fail-with-body \"$BASE/api/races/$BOT_RACE/\" | {RESULT_OF}",
        answer="finished\ndev_ada won 1\ndev_bob resigned",
    ),
]

#: The Python steps' programs, by the file the page tells to save them as.
PROGRAMS = {PLAY_COMMAND: ("play.py", PLAY_PY), RACE_COMMAND: ("race.py", RACE_PY), BOT_COMMAND: ("bot.py", BOT_PY)}


def inline_code(text: str) -> list[tuple[bool, str]]:
    """A rule's text in pieces, each (is it code, text): the parts between backticks are code."""
    return [(index % 2 == 1, part) for index, part in enumerate(re.split(r"`([^`]*)`", text)) if part]


def shown(answer) -> str:
    """A step's answer as the page shows it: a JSON object with its other fields elided, or the text."""
    if isinstance(answer, dict):
        return json.dumps(answer)[:-1] + ", ...}"
    return answer or ""
