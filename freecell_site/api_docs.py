"""The API's served documentation in one place: the overview, and each operation's summary, description and examples.

`DOCS` holds one `Doc` per operation, keyed by (path, method) as drf-spectacular writes them
(`/api/games/{game_id}/moves/`, `post`); a path's parameter names do not matter (`{id}` matches
`{game_id}`). The post-processing hook `apply_docs` (SPECTACULAR_SETTINGS) copies each entry into the
schema, filling only what the view left out: a summary, description or example a view declares with
`@extend_schema` stays, since it sits beside the code it describes. An entry for a path the schema does
not have is unused (tests/test_api_docs.py lists them). Examples are real answers of the service (the
game ms:1 after the move 5a, a race of alice and bob), checked against the schema by the same test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: The schema's overview (SPECTACULAR_SETTINGS["DESCRIPTION"]), shown on top of /api/docs/.
DESCRIPTION = """
Play FreeCell, the daily challenge and live races through the same rules engine as the web page. New
here? [Getting started](/developers/) takes you from a token to a played move, a stream and a race in
a few copy-paste steps. The websockets are described by the AsyncAPI document
[/api/asyncapi.json](/api/asyncapi.json).

## Authentication

- **Tokens.** Send `Authorization: Token <key>` or `Authorization: Bearer <key>`. `POST /api/auth/register/`
  and `POST /api/auth/token/` give a token with every scope. Personal access tokens
  (`POST /api/tokens/` `{name, scopes}`, listed by `GET /api/tokens/`, revoked by `DELETE /api/tokens/<id>/`)
  carry only the scopes you give them: `read` (reads, your own private data included), `play` (games,
  moves, undo, resign, hints, the daily), `race` (open, join, start, invite, rematch) and `account`
  (profile, friends, tokens). A request outside a token's scopes gets 403 `missing_scope`; a revoked
  token gets 401 everywhere, sockets included. A token is shown once, when it is made; the server
  keeps only its hash.
- **Sessions.** The web page signs in with `POST /api/auth/login/` and a session cookie; requests that
  change something then need Django's CSRF token (`X-CSRFToken`). API clients use tokens.
- **Anonymous** clients may read what is public: deals, finished and casual games, races by code,
  profiles, leaderboards, and `POST /api/solutions/verify/`.

## Errors

Every error is JSON `{"error": {"code": "...", "message": "..."}}` with a fitting HTTP status; the
`message` is for people, the `code` for programs. Some codes carry more fields: `fields` (the messages
for each field at fault), `game` (the game as it now is), `retry_after` (seconds) or `retry_after_ms`.

| status | codes |
|---|---|
| 400 | `bad_notation` (a move that does not parse), `invalid_deal`, `bad_board`, `invalid_request` (with `fields`), `bad_request` |
| 401 | `not_authenticated`, `authentication_failed` |
| 403 | `forbidden`, `missing_scope` |
| 404 | `not_found` (also a game you may not see, and a page past the last) |
| 405, 406, 413, 415 | `method_not_allowed`, `not_acceptable`, `too_large`, `unsupported_media_type` |
| 409 | `ply_conflict` and `game_over` and `too_many_actions` (each with `game`), `race_started`, `race_full`, `race_over`, `race_not_started`, `race_not_over`, `game_not_won`, `game_not_finished`, `challenge_pending`, `challenge_over` |
| 422 | `illegal_move` (a move that parses but breaks a rule) |
| 429 | `rate_limited` (with `retry_after`, and the `Retry-After` header) |
| 503 | `unavailable`, `daily_pending`, `daily_unavailable`, `hint_unavailable`, `server_busy` (with `retry_after`: try again) |
| 500 | `server_error` (logged on our side) |

## Moves are idempotent: `ply`, `client_id`, `repeated`

`POST /api/games/<id>/moves/` `{move, ply, client_id}` and `POST /api/games/<id>/undo/` `{ply, client_id}`
carry `ply`, the number of player actions (moves and undos) you have seen. The server applies the
action only when `ply` is the game's current ply. When an answer is lost, send the very same request
again: a resend of the last accepted action (same `ply`, same move, same `client_id`) gets the same
answer with `"repeated": true` and is not applied twice. A `ply` behind the game gets 409
`ply_conflict` with the current `game`, so you can catch up without another request. `client_id` is
any string of at most 64 characters you choose per action (a UUID); with it, a different move sent with
the same `ply` is never mistaken for a resend.

## Rate limits

Reads and writes are throttled per account (anonymous clients per address); the solver's endpoints
(`/api/solutions/verify/`, `/api/deals/<deal>/`, hints) have tighter budgets, and moves and undos are
limited per account over REST and sockets together. Throttled endpoints answer with `RateLimit-Limit`,
`RateLimit-Remaining` and `RateLimit-Reset` (seconds); past the limit the answer is 429
`rate_limited` with `Retry-After` (seconds) and `retry_after` in the body. A refused request costs no
budget. Wait as told and send it again (a move resent with its `ply` and `client_id` is safe).

## Ranked dailies: the floor and review

One ranked game per player per daily (`POST /api/daily/play/`), autoplay `safe`, timed by the server
from the moment the game is created to the winning move. Ranking: fewest `moves` (player actions,
undos included), then shortest `elapsed_ms`, then earliest finish. A daily won faster than the
ranking floor, 150 ms per player action on average (`DAILY_MIN_MS_PER_MOVE`), is held for review:
the game is `won`, its `review` is `flagged`, and it is not on the leaderboard until a moderator
clears it (`cleared`; `rejected` keeps it off). A bot that plays a daily paces its moves.

{grammar}

## Paging and order

Lists are paged with `page` (from 1, or `last`) and `page_size` (1-200, default 50) and answer
`count`, `next` and `previous` (URLs or null) beside the items; a page past the last is 404
`not_found`, a bad `page` or an unknown filter 400 `invalid_request`. Each list's order is said in
its description.

## Streams and sockets

`GET /api/stream/games/<id>/`, `/api/stream/races/<code>/` and `/api/stream/events/` answer
newline-delimited JSON (`application/x-ndjson`): the object first, then one line per change, and an
empty line at least every 10 s. The websockets `/ws/games/<id>/` and `/ws/races/<code>/` are
described in [/api/asyncapi.json](/api/asyncapi.json).
""".strip()

#: The notation (SPEC section 3), one rule a line, as the overview and the getting-started page show it.
NOTATION = [
    "Cards: rank `A 2 3 4 5 6 7 8 9 T J Q K` then suit `C D H S`: `TD` is the ten of diamonds; input also accepts `10` and lower case.",
    "A move is its source then its destination: `1`-`8` the columns (left to right), `a`-`d` the free cells, `h` the foundation of the moved card's suit: `3a`, `a4`, `1h`, `ah`, `57`.",
    "Column to a non-empty column moves the one run whose bottom card fits there: the count is implied.",
    "Column to an empty column moves one card, or n cards written with `v` and n in hex: `24v3`.",
    "A string that does not parse is 400 `bad_notation`; a move that parses but breaks a rule is 422 `illegal_move`.",
    "A line of play is moves separated by white space: `5a 5b 5c`.",
    "Boards are Freecell Solver's text: one line per column from the covered card to the exposed one, with optional `Foundations: H-0 C-0 D-0 S-0` and `Freecells: ...` lines.",
]
#: The deal ids (SPEC section 4).
DEAL_IDS = [
    "`ms:N`, N from 1 to 8589934591: the Microsoft numbering (`ms:1` to `ms:1000000` as in Microsoft FreeCell, above 2^31 as Freecell Solver extends it); `ms:11982` cannot be won.",
    "`seed:S`, S from 0 to 2^64 - 1: the service's own shuffle (SplitMix64), the same deal forever.",
    "`daily:YYYY-MM-DD`: the daily of that UTC date; its deal is shown once its day is over.",
    "`random` (`POST /api/games/`, races): a fresh `seed:` deal.",
    "Leading zeros are dropped (`ms:0617` is `ms:617`); anything else is 400 `invalid_deal`.",
]
DESCRIPTION = DESCRIPTION.replace(
    "{grammar}",
    "## Notation\n\n"
    + "\n".join(f"- {rule}" for rule in NOTATION)
    + "\n\n## Deal ids\n\n"
    + "\n".join(f"- {rule}" for rule in DEAL_IDS),
)


@dataclass(frozen=True)
class Doc:
    """One operation's documentation. `answers` maps a status (or a (status, media type) pair, for
    answers that are not JSON) to an example of its body; `body` is an example request body."""

    description: str = ""
    answers: dict = field(default_factory=dict)
    body: object = None
    summary: str = ""


# --- real answers the examples are made of -----------------------------------------------------

_T0 = "2026-12-03T13:53:07.800289Z"
_T1 = "2026-12-03T13:53:07.818847Z"

#: The deal ms:1 as dealt: columns from the covered card to the exposed one.
MS1_COLUMNS = [
    ["JD", "KD", "2S", "4C", "3S", "6D", "6S"],
    ["2D", "KC", "KS", "5C", "TD", "8S", "9C"],
    ["9H", "9S", "9D", "TS", "4S", "8D", "2H"],
    ["JC", "5S", "QD", "QH", "TH", "QS", "6H"],
    ["5D", "AD", "JS", "4H", "8H", "6C"],
    ["7H", "QC", "AS", "AC", "2C", "3D"],
    ["7C", "KH", "AH", "4D", "JH", "8C"],
    ["5H", "3H", "3C", "7S", "7D", "TC"],
]
MS1_BOARD = (
    "Foundations: H-0 C-0 D-0 S-0\nFreecells: - - - -\n: JD KD 2S 4C 3S 6D 6S\n: 2D KC KS 5C TD 8S 9C\n"
    ": 9H 9S 9D TS 4S 8D 2H\n: JC 5S QD QH TH QS 6H\n: 5D AD JS 4H 8H 6C\n: 7H QC AS AC 2C 3D\n"
    ": 7C KH AH 4D JH 8C\n: 5H 3H 3C 7S 7D TC\n"
)
_AFTER_5A = [*MS1_COLUMNS[:4], MS1_COLUMNS[4][:-1], *MS1_COLUMNS[5:]]

#: A new casual game of ms:1 (`POST /api/games/` {"deal": "ms:1", "autoplay": "none"}).
NEW_GAME = {
    "id": 1,
    "deal": "ms:1",
    "player": "alice",
    "status": "playing",
    "ply": 0,
    "moves": 0,
    "undos": 0,
    "autoplay": "none",
    "ranked": False,
    "review": "none",
    "review_reasons": [],
    "state": {
        "columns": MS1_COLUMNS,
        "cells": [None, None, None, None],
        "foundations": {"C": 0, "D": 0, "H": 0, "S": 0},
    },
    "cards_home": 0,
    "stuck": False,
    "version": 0,
    "created_at": _T0,
    "finished_at": None,
    "elapsed_ms": 0,
    "clock_running": False,
}
#: The same game after the move 5a (the six of clubs to free cell a).
GAME = {
    **NEW_GAME,
    "ply": 1,
    "moves": 1,
    "version": 1,
    "elapsed_ms": 1,
    "clock_running": True,
    "state": {
        "columns": _AFTER_5A,
        "cells": ["6C", None, None, None],
        "foundations": {"C": 0, "D": 0, "H": 0, "S": 0},
    },
}
ACTION = {"index": 0, "kind": "move", "move": "5a", "autoplay": [], "at": _T1, "clock_ms": 0, "via": "api"}
MOVED = {**GAME, "action": ACTION, "repeated": False}

RACER = {
    "username": "alice",
    "game": None,
    "moves": 0,
    "cards_home": 0,
    "status": "waiting",
    "rank": None,
    "elapsed_ms": None,
    "ghost": False,
    "out_of_time": False,
    "review": "none",
}
#: A race alice opened on ms:1 (`POST /api/races/` {"deal": "ms:1", "autoplay": "none"}).
RACE = {
    "code": "5DHRF8",
    "link": "/races/5DHRF8/",
    "deal": "ms:1",
    "status": "open",
    "owner": "alice",
    "autoplay": "none",
    "created_at": "2026-12-03T13:53:08.319152Z",
    "starts_at": None,
    "ends_at": None,
    "finished_at": None,
    "time_limit_s": 1800,
    "version": 1,
    "racers": [RACER],
    "invited": [],
    "ghost": None,
    "rematch": None,
    "rematch_of": None,
    "public": False,
}
_JOINED = {**RACE, "version": 3, "invited": ["bob"], "racers": [RACER, {**RACER, "username": "bob"}]}
_STARTS = "2026-12-03T13:53:08.388486Z"
#: The race once started (with RACE_COUNTDOWN_S 0 the boards are shown at once).
RUNNING_RACE = {
    **RACE,
    "status": "running",
    "starts_at": _STARTS,
    "ends_at": "2026-12-03T14:23:08.388486Z",
    "version": 5,
    "racers": [
        {**RACER, "game": 4, "status": "playing"},
        {**RACER, "username": "bob", "game": 5, "status": "playing"},
    ],
}

#: alice's ranked game of the day (the tests' trivial deal: safe autoplay has taken 7 cards home).
DAILY_GAME = {
    **NEW_GAME,
    "id": 2,
    "deal": "daily:2026-12-03",
    "autoplay": "safe",
    "ranked": True,
    "cards_home": 7,
    "state": {
        "columns": [
            ["KC", "QC", "JC", "TC", "9C", "8C", "7C", "6C", "5C", "4C", "3C", "AC", "2C"],
            ["KD", "QD", "JD", "TD", "9D", "8D", "7D", "6D", "5D", "4D", "3D"],
            ["KH", "QH", "JH", "TH", "9H", "8H", "7H", "6H", "5H", "4H", "3H"],
            ["KS", "QS", "JS", "TS", "9S", "8S", "7S", "6S", "5S", "4S"],
            [],
            [],
            [],
            [],
        ],
        "cells": [None, None, None, None],
        "foundations": {"C": 0, "D": 2, "H": 2, "S": 3},
    },
    "created_at": "2026-12-03T13:53:08.177155Z",
    "elapsed_ms": 1,
    "clock_running": True,
}
ENTRY = {
    "rank": 1,
    "username": "alice",
    "moves": 3,
    "undos": 0,
    "elapsed_ms": 600012,
    "finished_at": "2026-12-03T13:53:08.193005Z",
    "game": 2,
    "bot": False,
}
FRIENDS = {
    "friends": [{"username": "bob", "since": "2026-12-03T13:53:08.285824Z"}],
    "incoming": [],
    "outgoing": [],
}
PROFILE = {
    "username": "alice",
    "email": "",
    "display_name": "Alice",
    "bio": "FreeCell in the morning",
    "settings": {"deck": "classic", "felt": "green"},
    "date_joined": "2026-12-03T13:53:07.769812Z",
    "bot": False,
    "marked": False,
}
TOKEN = "a386a2da112e5c11e52402a86f192e3f55ec8794"
MS1_WIN_LINE = (
    "5a 5b 5c 5d 5h b2 8b a8 7a b7 58 6b 65 6h 5h 6h 76v2 b5 81 5b a5 85v2 8a 8h a2 7a 7h 3h 8h ch 8h 4h 3c b3 "
    "4b 48 d4 b7 28v3 2d 2b a2 b4 31v2 3a 3b c3 b6 d6 7c 7b 73 34v3 53v3 2d 27 25 d7 2d 2h 1h 7h a2 62v2 32v2 "
    "36v2 1a 1h 13 71 18v2 17 1h 8h 8h 2h 2h 4h 6h 4h 1h 7h ah c1 8a 8c 8h c4 a4 6c 6h 6a 67 6h a1 2a 2h c2 a2 "
    "4c 4h 2a 2h 8h 1h 46 4h 48 4h bh 4b 4h 3h 4h 7h ch ah 6h 2h 8h 1h 5h dh 1c 1h bh ch"
)


def error(code: str, message: str, **extra) -> dict:
    return {"error": {"code": code, "message": message, **extra}}


NOT_FOUND = error("not_found", "no game 999999")
PLY_CONFLICT = error("ply_conflict", "the game is at ply 1, not 0: refresh and try again", game=GAME)
ILLEGAL = error("illegal_move", "the six of spades cannot go to the foundation before the ace of spades")
BAD_NOTATION = error(
    "bad_notation",
    "'zz' is not a move: write the source (1-8 a column, a-d a free cell) then the destination "
    "(1-8, a-d, or h for the foundation), e.g. 3a, 1h or 24v3",
)
RATE_LIMITED = error("rate_limited", "Request was throttled. Expected available in 2 seconds.", retry_after=2)
NOT_SIGNED_IN = error("not_authenticated", "Authentication credentials were not provided.")
CREDENTIALS = {"username": "alice", "password": "correct horse battery staple"}

_GAME_RULES = (
    " `state.columns` lists each column's cards from the covered one to the exposed one, `cells` the four"
    " free cells (a card or null), `foundations` the top rank on each suit's foundation (0-13)."
    " `moves` counts player actions, undos included (the score); `ply` is the same count, the one to"
    " send back with the next action; `version` grows with every change, pushes included."
)
_ACTION_RULES = (
    " Send the `ply` you have seen and a `client_id` of your choosing. A resend of the last accepted"
    ' action (same `ply`, same action, same `client_id`) is answered again with `"repeated": true` and'
    " not applied twice; a `ply` behind the game is 409 `ply_conflict` with the current `game`. The"
    " answer is the game after the action (and its safe autoplay), with the `action` stored."
)

# --- the operations --------------------------------------------------------------------------

DOCS: dict[tuple[str, str], Doc] = {
    # accounts
    ("/api/auth/register/", "post"): Doc(
        "Makes an account and answers its API token (with every scope). The username is 1-30 letters,"
        " digits or `.@+-_`; the password must pass the usual strength checks; the e-mail is optional"
        " (it is where password resets go).",
        {
            201: {"username": "alice", "token": TOKEN},
            400: error(
                "invalid_request",
                "username: that username is taken",
                fields={"username": ["that username is taken"]},
            ),
        },
        body={"username": "alice", "password": "correct horse battery staple", "email": "alice@example.com"},
    ),
    ("/api/auth/token/", "post"): Doc(
        "Your API token (every scope) in exchange for your username and password; the same token each"
        " time until you log out with it or change your password. For tokens limited to some scopes, use"
        " `POST /api/tokens/`.",
        {200: {"token": TOKEN}, 401: error("authentication_failed", "wrong username or password")},
        body=CREDENTIALS,
    ),
    ("/api/auth/login/", "post"): Doc(answers={200: {"username": "alice"}}, body=CREDENTIALS),
    ("/api/auth/logout/", "post"): Doc(
        "Signed in by session: ends the session. Signed in by a token: revokes that token (every socket"
        " signed in with it is closed with 4401). Answers 204 without a body.",
        {401: NOT_SIGNED_IN},
    ),
    ("/api/auth/password/change/", "post"): Doc(
        "Changes your password. Every other session and your API token end; made with the token, the"
        " answer is your new token (200), made with the session it is 204 and the session goes on.",
        {
            200: {"token": "2f7fa7cb7fd247f6b098a62977800824d765c223"},
            400: error(
                "invalid_request", "old_password: wrong password", fields={"old_password": ["wrong password"]}
            ),
        },
        body={"old_password": "correct horse battery staple", "new_password": "another horse battery 7"},
    ),
    ("/api/auth/password/reset/", "post"): Doc(
        "Mails a reset link to the address, if an account has it. The answer is 202 either way, so it"
        " says nothing about who has an account.",
        {429: RATE_LIMITED},
        body={"email": "alice@example.com"},
    ),
    ("/api/auth/password/reset/confirm/", "post"): Doc(
        "Sets a new password with the `uid` and `token` of a reset link (204). Every session and the"
        " API token of the account end.",
        {400: error("invalid_request", "the reset link is invalid or has expired")},
        body={"uid": "MQ", "token": "c5x-0a1b2c3d4e5f", "new_password": "another horse battery 7"},
    ),
    ("/api/me/", "get"): Doc(
        "Your profile: username, e-mail (only you see it), display name, bio and the table settings the"
        " web page uses.",
        {200: {**PROFILE, "display_name": "", "bio": ""}},
    ),
    ("/api/me/", "patch"): Doc(
        "Edits your profile: any of `display_name`, `bio`, `settings`, and `email` (with your current"
        " `password`). Unknown fields are refused with 400 `invalid_request`.",
        {200: PROFILE},
        body={"display_name": "Alice", "bio": "FreeCell in the morning"},
    ),
    ("/api/me/close/", "post"): Doc(
        answers={
            400: error("invalid_request", "password: wrong password", fields={"password": ["wrong password"]})
        },
        body={"password": "correct horse battery staple"},
    ),
    ("/api/users/{username}/", "get"): Doc(
        "A player's public profile and statistics: games played and won, dailies played and won, the"
        " daily win rate, mean moves over par, best rank and streaks. `friendship` says where you stand"
        " with them (`none`, `friends`, `incoming`, `outgoing`, or `self`).",
        {
            200: {
                "username": "bob",
                "display_name": "",
                "bio": "",
                "date_joined": "2026-12-03T13:53:07.785436Z",
                "bot": False,
                "marked": False,
                "is_friend": True,
                "friendship": "friends",
                "stats": {
                    "games_played": 2,
                    "games_won": 1,
                    "dailies_played": 1,
                    "dailies_won": 1,
                    "daily_win_rate": 1.0,
                    "mean_moves_over_par": 4.0,
                    "best_rank": 2,
                    "current_streak": 1,
                    "best_streak": 1,
                },
            },
            404: error("not_found", "no player named 'nobody'"),
        },
    ),
    ("/api/users/{username}/games/", "get"): Doc(
        "A player's finished games that you may see, newest first, each with its line of play (autoplay"
        " `none` notation, replayable by `POST /api/solutions/verify/`). Paged; `?format=ndjson` streams"
        " every game, one JSON object a line, without paging.",
        {
            200: {
                "count": 1,
                "next": None,
                "previous": None,
                "results": [
                    {
                        "id": 4,
                        "deal": "ms:1",
                        "status": "won",
                        "moves": 127,
                        "undos": 0,
                        "autoplay": "none",
                        "elapsed_ms": 946,
                        "created_at": _STARTS,
                        "finished_at": "2026-12-03T13:53:09.335404Z",
                        "line": MS1_WIN_LINE,
                    }
                ],
            },
            (200, "application/x-ndjson"): (
                '{"id": 1, "deal": "ms:1", "status": "resigned", "moves": 3, "undos": 1, "autoplay": "none", "elapsed_ms": 334,'
                ' "created_at": "2026-12-03T13:53:07.800289Z", "finished_at": "2026-12-03T13:53:08.153062Z", "line": "5a"}\n'
            ),
        },
    ),
    ("/api/friends/", "get"): Doc(
        "Your friends (since when) and the friend requests you have received (`incoming`) and sent (`outgoing`).",
        {200: FRIENDS},
    ),
    ("/api/friends/requests/", "post"): Doc(
        "Asks a player to be friends (201). If they had already asked you, you are friends at once (200).",
        {
            201: {
                "friends": [],
                "incoming": [],
                "outgoing": [{"username": "bob", "since": "2026-12-03T13:53:08.277893Z"}],
            },
            200: FRIENDS,
            404: error("not_found", "no player named 'nobody'"),
        },
        body={"username": "bob"},
    ),
    ("/api/friends/requests/{username}/accept/", "post"): Doc(
        "Accepts the player's friend request; answers your friends and requests.",
        {
            200: {
                "friends": [{"username": "alice", "since": "2026-12-03T13:53:08.285824Z"}],
                "incoming": [],
                "outgoing": [],
            }
        },
    ),
    ("/api/friends/requests/{username}/decline/", "post"): Doc(
        "Declines the player's friend request; answers your friends and requests.",
        {200: FRIENDS},
    ),
    ("/api/friends/{username}/", "delete"): Doc(
        "Ends a friendship, or withdraws the request you sent (204, no body).",
        {404: error("not_found", "no player named 'carol'")},
    ),
    # deals, games, moves
    ("/api/ping/", "get"): Doc(answers={200: {"ok": True}}),
    ("/api/deals/{deal}/", "get"): Doc(
        "A deal's starting layout: `columns` from the covered card to the exposed one, and the same as"
        " Freecell Solver board text. Deal ids: `ms:N` (1-8589934591), `seed:S` (0 to 2^64-1),"
        " `daily:YYYY-MM-DD` (only once its day is over: 404 before).",
        {
            200: {"deal": "ms:1", "columns": MS1_COLUMNS, "board": MS1_BOARD},
            400: error(
                "invalid_deal", "there is no deal ms:0: Microsoft deals run from ms:1 to ms:8589934591"
            ),
        },
    ),
    ("/api/games/", "get"): Doc(
        "Your games, newest first (by creation), paged; `?status=playing|won|resigned` keeps only those.",
        {200: {"count": 1, "next": None, "previous": None, "results": [GAME]}},
    ),
    ("/api/games/", "post"): Doc(
        "Starts a casual game of any deal (`ms:N`, `seed:S`, a past `daily:DATE`, or `random` for a fresh"
        " `seed:` deal) with autoplay `none` or `safe` (the default). Today's daily is played ranked, by"
        " `POST /api/daily/play/` (403 here)." + _GAME_RULES,
        {
            201: NEW_GAME,
            400: error(
                "invalid_deal", "there is no deal ms:0: Microsoft deals run from ms:1 to ms:8589934591"
            ),
        },
        body={"deal": "ms:1", "autoplay": "none"},
    ),
    ("/api/games/{game_id}/", "get"): Doc(
        "A game, with its position also as Freecell Solver board text (`board`). Anyone may read a casual"
        " or finished game; another player's ranked daily only once its day is over, a racer's game"
        " only once the race is over (404 until then)." + _GAME_RULES,
        {200: {**NEW_GAME, "board": MS1_BOARD}, 404: NOT_FOUND},
    ),
    ("/api/games/{game_id}/moves/", "post"): Doc(
        "Plays one move in the spec's notation (`3a`, `a4`, `1h`, `57`, `24v3`) on your game."
        + _ACTION_RULES
        + " A string that does not parse is 400 `bad_notation`; a move the rules refuse is 422 `illegal_move`.",
        {200: MOVED, 400: BAD_NOTATION, 409: PLY_CONFLICT, 422: ILLEGAL, 429: RATE_LIMITED},
        body={"move": "5a", "ply": 0, "client_id": "7f0c2a9e-move-1"},
    ),
    ("/api/games/{game_id}/undo/", "post"): Doc(
        "Takes back your last move together with the autoplay it caused. An undo is a player action: it"
        " counts in `moves` and `undos`." + _ACTION_RULES,
        {
            200: {
                **NEW_GAME,
                "ply": 2,
                "moves": 2,
                "undos": 1,
                "version": 2,
                "elapsed_ms": 52,
                "clock_running": True,
                "action": {
                    **ACTION,
                    "index": 1,
                    "kind": "undo",
                    "at": "2026-12-03T13:53:07.870868Z",
                    "clock_ms": 52,
                },
                "repeated": False,
            },
            409: PLY_CONFLICT,
        },
        body={"ply": 1, "client_id": "7f0c2a9e-undo-1"},
    ),
    ("/api/games/{game_id}/resign/", "post"): Doc(
        "Gives up your game: it ends `resigned` (a resend answers the same with `repeated` true).",
        {
            200: {
                **GAME,
                "status": "resigned",
                "finished_at": "2026-12-03T13:53:08.153062Z",
                "elapsed_ms": 334,
                "clock_running": False,
                "repeated": False,
            },
            409: error("game_over", "the game is over (won)", game={**GAME, "status": "won"}),
        },
    ),
    ("/api/games/{game_id}/history/", "get"): Doc(
        "Every action of the game in order: its notation, the autoplay moves it caused and the server"
        " time. `line` (and `?format=text`) is the line of play for autoplay `none`: autoplay written out,"
        " undone moves left out, replayable by `POST /api/solutions/verify/` and by other FreeCell tools.",
        {
            200: {
                "game": 1,
                "deal": "ms:1",
                "autoplay": "none",
                "prelude": [],
                "actions": [
                    ACTION,
                    {
                        **ACTION,
                        "index": 1,
                        "kind": "undo",
                        "at": "2026-12-03T13:53:07.870868Z",
                        "clock_ms": 52,
                    },
                    {**ACTION, "index": 2, "at": "2026-12-03T13:53:08.140687Z", "clock_ms": 321},
                ],
                "line": "5a",
            },
            (200, "text/plain"): "5a\n",
        },
    ),
    ("/api/games/{game_id}/hint/", "get"): Doc(
        "A move the solver would play from your casual game's position (`result` `solved`), or why there"
        " is none. Not for ranked dailies or races (403). A hint that is refused costs nothing.",
        {200: {"move": "5a", "result": "solved"}},
    ),
    ("/api/solutions/verify/", "post"): Doc(
        "Checks a line of play from a deal (or from any `board` text): `valid` when every move is legal,"
        " `won` when it ends with every card home, `moves` the player actions it took. When not valid,"
        " `error` names the first bad move by its 0-based `index`. No account needed.",
        {
            200: {
                "valid": False,
                "won": False,
                "moves": 1,
                "error": {
                    "index": 1,
                    "move": "1h",
                    "code": "illegal_move",
                    "message": "the six of spades cannot go to the foundation before the ace of spades",
                },
            }
        },
        body={"deal": "ms:1", "moves": "5a 1h", "autoplay": "none"},
    ),
    # the daily
    ("/api/daily/", "get"): Doc(
        "Today's challenge (UTC): its deal id, par (the solver's best move count, not proven optimal),"
        " how many have played, when it ends, and your ranked game's id if you have one.",
        {
            200: {
                "date": "2026-12-03",
                "deal": "daily:2026-12-03",
                "par": 1,
                "players": 0,
                "ends_at": "2026-12-04T00:00:00Z",
                "ranking_floor_ms_per_move": 150,
                "game": None,
            }
        },
    ),
    ("/api/daily/play/", "post"): Doc(
        "Your one ranked game of today's daily, created on the first call (201) and answered again after"
        " (200). Autoplay is `safe` and the clock runs on the server from this call to the winning move."
        " A win faster than the ranking floor (150 ms per action on average) is held for review.",
        {201: DAILY_GAME, 200: {**DAILY_GAME, "elapsed_ms": 5210}, 401: NOT_SIGNED_IN},
    ),
    ("/api/daily/archive/", "get"): Doc(
        "Past dailies, newest first, paged: date, deal, par, players and the winner.",
        {
            200: {
                "count": 1,
                "page": 1,
                "page_size": 50,
                "next": None,
                "previous": None,
                "dailies": [
                    {"date": "2026-12-02", "deal": "daily:2026-12-02", "par": 1, "players": 0, "winner": None}
                ],
            }
        },
    ),
    ("/api/daily/{date}/", "get"): Doc(
        "One daily: deal, par, players, results and your game; the par line once the day is over.",
        {
            200: {
                "date": "2026-12-03",
                "deal": "daily:2026-12-03",
                "par": 1,
                "players": 2,
                "ends_at": "2026-12-04T00:00:00Z",
                "ranking_floor_ms_per_move": 150,
                "game": 2,
                "par_line": None,
                "results": 2,
            }
        },
    ),
    ("/api/daily/{date}/leaderboard/", "get"): Doc(
        "The day's ranked wins: fewest moves, then shortest time, then earliest finish; paged. `me` is"
        " your entry (or null); `?scope=friends` ranks you and your friends only. People rank among people"
        " (the default), bots among bots (`?players=bots`); each entry says `bot`. Wins held for review"
        " are not listed until cleared.",
        {
            200: {
                "date": "2026-12-03",
                "scope": "all",
                "players": "people",
                "par": 1,
                "count": 2,
                "page": 1,
                "page_size": 50,
                "next": None,
                "previous": None,
                "entries": [
                    ENTRY,
                    {
                        **ENTRY,
                        "rank": 2,
                        "username": "bob",
                        "moves": 5,
                        "elapsed_ms": 600026,
                        "finished_at": "2026-12-03T13:53:08.229384Z",
                        "game": 3,
                    },
                ],
                "me": {**ENTRY, "review": "none"},
            }
        },
    ),
    ("/api/daily/{date}/histogram/", "get"): Doc(
        "How many players won the day's daily in each number of moves; `me` is your count. People's wins"
        " (the default) or bots' (`?players=bots`).",
        {
            200: {
                "date": "2026-12-03",
                "players": "people",
                "par": 1,
                "total": 2,
                "buckets": [{"moves": 3, "count": 1}, {"moves": 5, "count": 1}],
                "me": 3,
            }
        },
    ),
    ("/api/daily/{date}/share/", "get"): Doc(
        answers={
            200: {
                "date": "2026-12-03",
                "username": "alice",
                "status": "won",
                "moves": 3,
                "undos": 0,
                "par": 1,
                "elapsed_ms": 600012,
                "rank": 1,
                "review": "none",
                "game": 2,
                "result_url": "https://freecell.example/daily/2026-12-03/result/alice/",
                "replay_url": "https://freecell.example/replay/2/",
                "replay_open": True,
                "text": "FreeCell Online daily 2026-12-03: won in 3 moves (par 1, +2), 0 undos, 10:00, rank 1 of 2\n"
                "https://freecell.example/daily/2026-12-03/result/alice/",
            }
        }
    ),
    # races
    ("/api/races/", "get"): Doc(
        "Your races still open or running, and the invitations you have received.",
        {
            200: {
                "races": [],
                "invites": [{"code": "5DHRF8", "link": "/races/5DHRF8/", "invited_by": "alice"}],
            }
        },
    ),
    ("/api/races/", "post"): Doc(
        "Opens a race on a deal (any deal id; left out, a fresh `seed:` deal) and answers its 6-character"
        " code. Friends join with the code; you start it. `time_limit_s` (default 1800) ends it.",
        {201: RACE},
        body={"deal": "ms:1", "autoplay": "none"},
    ),
    ("/api/races/ghost/", "post"): Doc(
        "Opens a race against a recorded won game (yours or a friend's): its moves replay at the pace they"
        " were played, as a racer with `ghost` true.",
        {
            201: {
                **RACE,
                "code": "PUYVQM",
                "link": "/races/PUYVQM/",
                "racers": [RACER, {**RACER, "ghost": True}],
                "ghost": {"username": "alice", "moves": 127, "elapsed_ms": 946},
            }
        },
        body={"game": 4},
    ),
    ("/api/races/{code}/", "get"): Doc(
        "A race: status (`open`, `countdown`, `running`, `finished`), each racer's progress (moves, cards"
        " home, status, rank) and, from the start, each racer's game id. Anyone with the code may read it;"
        " a racer's board stays hidden until the race is over.",
        {200: RUNNING_RACE, 404: error("not_found", "no race 'ZZZZZZ'")},
    ),
    ("/api/races/{code}/join/", "post"): Doc(
        "Joins an open race by its code (at most 8 racers).",
        {200: _JOINED, 409: error("race_started", "this race has already started")},
    ),
    ("/api/races/{code}/start/", "post"): Doc(
        "The owner starts the countdown (`RACE_COUNTDOWN_S`, 3 s); at `starts_at` every racer gets a game"
        " of the deal, the clocks start together, and the race is `running`. Play your game with"
        " `POST /api/games/<id>/moves/` or on the race socket.",
        {200: RUNNING_RACE, 403: error("forbidden", "only the race's owner can start it")},
    ),
    ("/api/races/{code}/invite/", "post"): Doc(
        "Invites one of your friends; the invitation shows in their `GET /api/races/` and event stream.",
        {200: {**RACE, "version": 2, "invited": ["bob"]}},
        body={"username": "bob"},
    ),
    ("/api/races/{code}/resign/", "post"): Doc(
        "Resigns your game in the race; before the start, leaves the race (the owner's leaving calls it off).",
        {
            200: {
                **RUNNING_RACE,
                "version": 6,
                "racers": [
                    RUNNING_RACE["racers"][0],
                    {**RUNNING_RACE["racers"][1], "status": "resigned", "elapsed_ms": 29},
                ],
            }
        },
    ),
    ("/api/races/{code}/rematch/", "post"): Doc(
        "After a race: a new race with the same racers on a fresh deal (201), or the rematch another racer"
        " already asked for (200).",
        {
            201: {
                **RACE,
                "code": "A8TFBT",
                "link": "/races/A8TFBT/",
                "deal": "seed:17311581489298329322",
                "racers": [RACER, {**RACER, "username": "bob"}],
                "rematch_of": "5DHRF8",
            },
            200: {
                **RACE,
                "code": "A8TFBT",
                "link": "/races/A8TFBT/",
                "deal": "seed:17311581489298329322",
                "version": 2,
                "racers": [RACER, {**RACER, "username": "bob"}],
                "rematch_of": "5DHRF8",
            },
        },
    ),
}

# --- operations of SPEC sections 8 and 10 (tokens, streams, new reads, boards) ------------------
# Written from the spec's shapes before their views exist; tests/test_api_docs.py checks them against
# the schema once the views are there (PENDING_PATHS there lists those still to come).

_TOKEN = {"id": 3, "name": "my bot", "scopes": ["read", "play"], "created_at": "2026-12-03T14:02:11.513220Z"}
_NDJSON_GAME = (
    '{"id": 1, "deal": "ms:1", "player": "alice", "status": "playing", "ply": 0, "moves": 0, "version": 0, "...": "..."}\n'
    '{"id": 1, "deal": "ms:1", "player": "alice", "status": "playing", "ply": 1, "moves": 1, "version": 1, "...": "..."}\n'
    "\n"
)
_STREAM_RULES = (
    " The answer is newline-delimited JSON (`application/x-ndjson`), held open: one JSON object a line,"
    " and an empty line at least every 10 s to keep the connection alive. It follows the change on"
    " whichever server process it happens; the same visibility rules as the REST reads apply."
)
_PAGED = {"next": None, "previous": None}

DOCS.update(
    {
        ("/api/tokens/", "post"): Doc(
            "Makes a personal access token with a name and scopes (`read`, `play`, `race`, `account`). The"
            " answer is the only time the token is shown: the server keeps only its hash. Needs a session or"
            " a token with scope `account`.",
            {
                201: {**_TOKEN, "token": "fc_pat_4q9ZkV2mW8xR1tN7bY3cH6dJ0sLpE5uA"},
                400: error(
                    "invalid_request",
                    "scopes: 'admin' is not a scope: read, play, race, account",
                    fields={"scopes": ["'admin' is not a scope: read, play, race, account"]},
                ),
            },
            body={"name": "my bot", "scopes": ["read", "play"]},
            summary="Make a personal access token",
        ),
        ("/api/tokens/", "get"): Doc(
            "Your personal access tokens (never the tokens themselves): name, scopes, when made and last used.",
            {
                200: [{**_TOKEN, "last_used_at": "2026-12-03T14:05:40.020311Z"}],
                403: error("missing_scope", "this token lacks the scope 'account'"),
            },
            summary="Your personal access tokens",
        ),
        ("/api/tokens/{id}/", "delete"): Doc(
            "Revokes a token (204): from then on it gets 401 everywhere, and sockets signed in with it are closed (4401).",
            {404: error("not_found", "no token 99")},
            summary="Revoke a personal access token",
        ),
        ("/api/stream/games/{id}/", "get"): Doc(
            "A game as it changes: the first line is the game as `GET /api/games/<id>/` shows it, then one"
            " line per change (a move, an undo, a resign, from any client)." + _STREAM_RULES,
            {(200, "application/x-ndjson"): _NDJSON_GAME, 404: NOT_FOUND},
            summary="Stream a game",
        ),
        ("/api/stream/races/{code}/", "get"): Doc(
            "A race as it changes: the race first, then one line per change (joins, the countdown, the start,"
            " each racer's progress, the finish)." + _STREAM_RULES,
            {
                (
                    200,
                    "application/x-ndjson",
                ): '{"code": "5DHRF8", "status": "open", "version": 1, "...": "..."}\n'
                '{"code": "5DHRF8", "status": "running", "version": 5, "...": "..."}\n'
            },
            summary="Stream a race",
        ),
        ("/api/stream/events/", "get"): Doc(
            "Your events as they happen: race invitations, races starting, friend requests." + _STREAM_RULES,
            {
                (
                    200,
                    "application/x-ndjson",
                ): '{"type": "race_invitation", "race": "5DHRF8", "from": "alice"}\n'
                '{"type": "friend_request", "from": "carol"}\n\n'
            },
            summary="Stream your events",
        ),
        ("/api/games/{id}/legal-moves/", "get"): Doc(
            "Every legal action at the game's current position, in the spec's notation, with the `ply` to"
            " send with one of them. A run to an empty column is listed once for each length that may move"
            " (`24`, `24v2`, ...).",
            {
                200: {"ply": 1, "moves": ["1a", "1b", "2a", "3a", "4a", "5a", "6a", "7a", "8a", "a5", "65"]},
                404: NOT_FOUND,
            },
            summary="Legal moves of a game",
        ),
        ("/api/users/", "get"): Doc(
            "Players whose username starts with `q` (at least 2 characters), alphabetical, paged.",
            {200: {"count": 1, **_PAGED, "results": [{"username": "alice", "display_name": "Alice"}]}},
            summary="Find players",
        ),
        ("/api/deals/{deal}/facts/", "get"): Doc(
            "What the solver knows of a deal that is not secret: whether it can be won and its par (the best"
            " move count found, not proven optimal). A daily's only once its day is over.",
            {200: {"deal": "ms:11982", "solvable": False, "par": None}},
            summary="Solver facts of a deal",
        ),
        ("/api/deals/{deal}/records/", "get"): Doc(
            "Each player's best won game of a deal (any `ms:` or `seed:` deal; a daily's once its day is over),"
            " ranked by moves, then time, then finish; one board per autoplay mode (`?autoplay=none|safe`,"
            " default `safe`). `me` is your entry; `?scope=friends` ranks you and your friends.",
            {
                200: {
                    "entries": [
                        {
                            "rank": 1,
                            "username": "alice",
                            "moves": 127,
                            "undos": 0,
                            "elapsed_ms": 946,
                            "game": 4,
                        }
                    ],
                    "me": None,
                }
            },
            summary="Records of a deal",
        ),
        ("/api/ladder/{month}/", "get"): Doc(
            "The month's ladder (`YYYY-MM`) over its dailies: a ranked win earns more the closer it is to par"
            " (a daily missed or lost earns nothing); ranked by points. `?scope=friends`.",
            {
                200: {
                    "entries": [{"rank": 1, "username": "alice", "points": 100, "played": 1, "won": 1}],
                    "me": None,
                }
            },
            summary="The month's ladder",
        ),
        ("/api/ladder/streaks/", "get"): Doc(
            "Current and longest streaks of dailies won on consecutive days, ranked by the current streak.",
            {200: {"entries": [{"rank": 1, "username": "alice", "current": 1, "longest": 1}], "me": None}},
            summary="Daily streaks",
        ),
    }
)


def _shape(path: str) -> str:
    """A path with its parameters unnamed: `/api/games/{id}/` and `/api/games/{game_id}/` are one."""
    return re.sub(r"\{[^}]+\}", "{}", path)


def entry_for(path: str, method: str) -> Doc | None:
    return _BY_SHAPE.get((_shape(path), method))


_BY_SHAPE = {(_shape(path), method): doc for (path, method), doc in DOCS.items()}


def _example_name(status: int, value) -> str:
    """An example's name in the docs: the error code of an error, else the status."""
    if isinstance(value, dict) and isinstance(value.get("error"), dict):
        return value["error"].get("code", str(status))
    return str(status)


def _media(key) -> tuple[int, str]:
    return key if isinstance(key, tuple) else (key, "application/json")


def apply_docs(result, generator, request, public):
    """drf-spectacular post-processing hook: fills each operation's summary, description and examples
    from DOCS where the view declares none, and sets the overview."""
    for path, item in result.get("paths", {}).items():
        for method, operation in item.items():
            doc = entry_for(path, method)
            if doc is None or not isinstance(operation, dict):
                continue
            if doc.summary and not operation.get("summary"):
                operation["summary"] = doc.summary
            if doc.description and not operation.get("description"):
                operation["description"] = doc.description
            for key, value in doc.answers.items():
                status, media = _media(key)
                content = operation.get("responses", {}).get(str(status), {}).get("content", {}).get(media)
                if content is not None and "example" not in content and "examples" not in content:
                    content["examples"] = {_example_name(status, value): {"value": value}}
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if doc.body is not None and body is not None and "example" not in body and "examples" not in body:
                body["examples"] = {"request": {"value": doc.body}}
    return result
