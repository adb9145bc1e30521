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

import json
import re
from dataclasses import dataclass
from pathlib import Path

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
  (profile, friends, tokens). A request outside a token's scopes gets 403 `missing_scope` (with
  `scopes`, the ones it lacks); what anyone may read needs no scope (a token without `read` reads it
  as an anonymous visitor would). Each operation's `security` names the scope it needs. A revoked
  token gets 401 everywhere, sockets included. A token is shown once, when it is made; the server
  keeps only its hash. A player holds at most 100 tokens (one more is 409 `too_many_tokens`), and a
  token makes only tokens within its own scopes.
- **Apps (OAuth).** An app of yours signs players in without their password: OAuth 2.0 authorization
  code with PKCE (S256), any `client_id`, no registration. Send the player to `GET /oauth/authorize/`
  (`response_type=code`, `client_id`, `redirect_uri` (https, or http to 127.0.0.1), `code_challenge`,
  `code_challenge_method=S256`, `scope`, `state`); after their consent, trade the code at
  `POST /oauth/token/` (form-encoded `grant_type=authorization_code`, `code`, `code_verifier`,
  `redirect_uri`, `client_id`) for `{access_token, token_type: "Bearer", scope, expires_in}`. The token
  is listed and revoked with the player's others.
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
| 400 | `bad_notation` (a move that does not parse), `invalid_deal`, `bad_board`, `invalid_request` (with `fields`), `bad_filter` (a query parameter a list or board does not take, named in `fields`), `bad_request` |
| 401 | `not_authenticated`, `authentication_failed` |
| 403 | `forbidden`, `missing_scope` |
| 404 | `not_found` (also a game you may not see, and a page past the last) |
| 405, 406, 413, 415 | `method_not_allowed`, `not_acceptable`, `too_large`, `unsupported_media_type` |
| 409 | `ply_conflict` and `game_over` and `too_many_actions` (each with `game`), `too_many_tokens`, `race_started`, `race_full`, `race_over`, `race_not_started`, `race_not_over`, `game_not_won`, `game_not_finished`, `challenge_pending`, `challenge_over`, `already_reported` (one report per player and result), `has_results` (an account with results cannot become a bot) |
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

## Autoplay and scoring

- Autoplay `none` moves nothing by itself. Under `safe`, when a game is dealt and after each player
  action, the server sends cards home one at a time: it looks at the exposed cards in the order columns
  1-8, then free cells a-d, moves the first that qualifies, and starts looking again from column 1; it
  stops when none qualifies. A card of rank r (ace 1, king 13) qualifies when it goes on its foundation
  (the foundation holds r - 1) and r <= 2 or both foundations of the other colour hold r - 1 cards or
  more. Such a card is never needed again in play, so safe autoplay never changes whether a deal can be
  won. A bot can compute it exactly, and the answer's `action.autoplay` lists the moves it made, in order.
- An undo takes back the last move together with the autoplay it caused.
- `moves` counts player actions, undos included (40 moves and 3 undos score 43); autoplay moves are free.
  Par is the move count of the best line the solver found under the same counting (not proven optimal).

{grammar}

## Paging and order

Lists are paged with `page` (from 1, or `last`) and `page_size` (1-200, default 50) and answer
`count`, `next` and `previous` (URLs or null) beside the items; a page past the last is 404
`not_found`, a bad `page` or `page_size`, or a bad value of a filter, 400 `invalid_request`. A query
parameter a list or a board does not take (a misspelt `stauts`) is 400 `bad_filter`, naming it in
`fields`, never ignored. Each list's order is said in its description.

## Streams and sockets

`GET /api/stream/games/<id>/`, `/api/stream/races/<code>/` and `/api/stream/events/` answer
newline-delimited JSON (`application/x-ndjson`): the object first, then one line per change, and an
empty line at least every 10 s; a game's or a race's stream ends with a line `{"type": "end", ...}`
once the game or race is over. `?format=ndjson` and `?format=json` both answer the stream as ndjson
(errors before it starts are JSON either way). The websockets `/ws/games/<id>/`, `/ws/races/<code>/`
and `/ws/deals/<deal>/records/` are described in [/api/asyncapi.json](/api/asyncapi.json); a race is
made over REST (`POST /api/races/`, `.../join/`, `.../start/`), then followed and played on its socket.
More: [streams](/developers/docs/streams/), [websockets](/developers/docs/websocket/), [races](/developers/docs/races/).
""".strip()

#: The notation, one rule a line: the repository's statement of it, shown by the overview and the getting-started page.
NOTATION = [
    "Cards: rank `A 2 3 4 5 6 7 8 9 T J Q K` then suit `C D H S`: `TD` is the ten of diamonds; input also accepts `10` and lower case.",
    "A move is its source then its destination: `1`-`8` the columns (left to right), `a`-`d` the free cells, `h` the foundation of the moved card's suit: `3a`, `a4`, `1h`, `ah`, `57`.",
    "Column to a non-empty column moves the one run whose bottom card fits there: the count is implied.",
    "Column to an empty column moves one card, or n cards written with `v` and n in hex: `24v3`.",
    "A string that does not parse is 400 `bad_notation`; a move that parses but breaks a rule is 422 `illegal_move`.",
    "A line of play is moves separated by white space: `5a 5b 5c`.",
    "Boards are Freecell Solver's text: one line per column from the covered card to the exposed one, with optional `Foundations: H-0 C-0 D-0 S-0` and `Freecells: ...` lines.",
]
#: The deal ids, one rule a line, shown by the same two.
DEAL_IDS = [
    "`ms:N`, N from 1 to 8589934591: the Microsoft numbering (`ms:1` to `ms:1000000` as in Microsoft FreeCell, above 2^31 as Freecell Solver extends it); `ms:11982` cannot be won.",
    "`seed:S`, S from 0 to 2^64 - 1: the service's own shuffle (SplitMix64), the same deal forever.",
    "`daily:YYYY-MM-DD`: the daily of that UTC date; its deal is shown once its day is over.",
    "`random` (`POST /api/games/` only): a fresh `seed:` deal; a race or a challenge given no deal gets a fresh `seed:` deal (`random` there is 400 `invalid_deal`).",
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
    """One operation's words: a description, and a summary for a view that declares none. Its examples
    are recorded answers (EXAMPLES_FILE), never written here."""

    description: str = ""
    summary: str = ""


# --- the operations --------------------------------------------------------------------------

DOCS: dict[tuple[str, str], Doc] = {
    ('/api/auth/register/', 'post'): Doc(
        'Makes an account and answers its API token (with every scope). The username is 1-30 letters, '
        'digits or `.@+-_`; the password must pass the usual strength checks; the e-mail is optional (it '
        'is where password resets go).',
    ),
    ('/api/auth/token/', 'post'): Doc(
        'Your password sign-in token (every scope) in exchange for your username and password. Each call '
        'answers a new key and the key an earlier call answered stops working (keys are stored hashed and '
        'cannot be answered again): keep the key rather than sign in on every run. For tokens limited to '
        'some scopes, use `POST /api/tokens/`; for an app that signs players in, OAuth (the overview).',
    ),
    ('/api/auth/logout/', 'post'): Doc(
        'Signed in by session: ends the session. Signed in by a token: revokes that token (every socket '
        'signed in with it is closed with 4401). Answers 204 without a body; not signed in, 204 too '
        '(nothing to end). A token that is not one (revoked, mistyped) is 401 `authentication_failed`.',
    ),
    ('/api/auth/password/change/', 'post'): Doc(
        'Changes your password. Every other session and every token of the account end; made with a token, the '
        'answer is your new token (200), made with the session it is 204 and the session goes on.',
    ),
    ('/api/auth/password/reset/', 'post'): Doc(
        'Mails a reset link to the address, if an account has it. The answer is 202 either way, so it '
        'says nothing about who has an account.',
    ),
    ('/api/auth/password/reset/confirm/', 'post'): Doc(
        'Sets a new password with the `uid` and `token` of a reset link (204). Every session and every '
        'token of the account end.',
    ),
    ('/api/me/', 'get'): Doc(
        'Your profile: username, e-mail (only you see it), display name, bio and the table settings the '
        'web page uses.',
    ),
    ('/api/me/', 'patch'): Doc(
        'Edits your profile: any of `display_name`, `bio`, `settings`, and `email` (with your current '
        '`password`). Unknown fields are refused with 400 `invalid_request`.',
    ),
    ('/api/users/{username}/', 'get'): Doc(
        "A player's public profile and statistics: games played and won, dailies played and won, the "
        'daily win rate, mean moves over par, best rank and streaks. `friendship` says where you stand '
        'with them: `none`, `friends`, `request_sent` (yours awaits them), `request_received` (theirs awaits '
        'you), or null signed out or on your own profile.',
    ),
    ('/api/users/{username}/games/', 'get'): Doc(
        "A player's finished games that you may see, newest first, each with its line of play (autoplay "
        '`none` notation, replayable by `POST /api/solutions/verify/`). Paged; `?format=ndjson` streams '
        'every game, one JSON object a line, without paging.',
    ),
    ('/api/friends/', 'get'): Doc(
        'Your friends (since when) and the friend requests you have received (`incoming`) and sent '
        '(`outgoing`).',
    ),
    ('/api/friends/requests/', 'post'): Doc(
        'Asks a player to be friends (201). If they had already asked you, you are friends at once (200); '
        'if you had already asked them or are friends, nothing new is sent (200).',
    ),
    ('/api/friends/requests/{username}/accept/', 'post'): Doc(
        "Accepts the player's friend request; answers your friends and requests.",
    ),
    ('/api/friends/requests/{username}/decline/', 'post'): Doc(
        "Declines the player's friend request; answers your friends and requests.",
    ),
    ('/api/friends/{username}/', 'delete'): Doc(
        'Ends a friendship, or withdraws the request you sent (204, no body).',
    ),
    ('/api/deals/{deal}/', 'get'): Doc(
        "A deal's starting layout: `columns` from the covered card to the exposed one, and the same as "
        'Freecell Solver board text. Deal ids: `ms:N` (1-8589934591), `seed:S` (0 to 2^64-1), '
        '`daily:YYYY-MM-DD` (only once its day is over: 403 `forbidden` before).',
    ),
    ('/api/games/', 'get'): Doc(
        'Your games, newest first (by creation), paged; `?status=playing|won|resigned|abandoned` keeps only those.',
    ),
    ('/api/games/', 'post'): Doc(
        'Starts a casual game of any deal (`ms:N`, `seed:S`, a past `daily:DATE`, or `random` for a fresh'
        " `seed:` deal) with autoplay `none` or `safe` (the default). Today's daily is played ranked, by "
        "`POST /api/daily/play/` (403 here). `state.columns` lists each column's cards from the covered "
        'one to the exposed one, `cells` the four free cells (a card or null), `foundations` the top rank'
        " on each suit's foundation (0-13). `moves` counts player actions, undos included (the score); "
        '`ply` is the same count, the one to send back with the next action; `version` grows with every '
        'change, pushes included.',
    ),
    ('/api/games/{game_id}/', 'get'): Doc(
        'A game, with its position also as Freecell Solver board text (`board`). Anyone may read a casual'
        " or finished game; another player's ranked daily only once its day is over, a racer's game only "
        "once the race is over (404 until then). `state.columns` lists each column's cards from the "
        'covered one to the exposed one, `cells` the four free cells (a card or null), `foundations` the '
        "top rank on each suit's foundation (0-13). `moves` counts player actions, undos included (the "
        'score); `ply` is the same count, the one to send back with the next action; `version` grows with'
        ' every change, pushes included.',
    ),
    ('/api/games/{game_id}/moves/', 'post'): Doc(
        "Plays one move in the spec's notation (`3a`, `a4`, `1h`, `57`, `24v3`) on your game. Send the "
        '`ply` you have seen and a `client_id` of your choosing. A resend of the last accepted action '
        '(same `ply`, same action, same `client_id`) is answered again with `"repeated": true` and not '
        'applied twice; a `ply` behind the game is 409 `ply_conflict` with the current `game`. The answer'
        ' is the game after the action (and its safe autoplay), with the `action` stored. A string that '
        'does not parse is 400 `bad_notation`; a move the rules refuse is 422 `illegal_move`.',
    ),
    ('/api/games/{game_id}/undo/', 'post'): Doc(
        'Takes back your last move together with the autoplay it caused. An undo is a player action: it '
        'counts in `moves` and `undos`. Send the `ply` you have seen and a `client_id` of your choosing. '
        'A resend of the last accepted action (same `ply`, same action, same `client_id`) is answered '
        'again with `"repeated": true` and not applied twice; a `ply` behind the game is 409 '
        '`ply_conflict` with the current `game`. The answer is the game after the action (and its safe '
        'autoplay), with the `action` stored.',
    ),
    ('/api/games/{game_id}/resign/', 'post'): Doc(
        'Gives up your game: it ends `resigned` (a resend answers the same with `repeated` true).',
    ),
    ('/api/games/{game_id}/history/', 'get'): Doc(
        'Every action of the game in order: its notation, the autoplay moves it caused and the server '
        'time. `line` (and `?format=text`) is the line of play for autoplay `none`: autoplay written out,'
        ' undone moves left out, replayable by `POST /api/solutions/verify/` and by other FreeCell tools.',
    ),
    ('/api/games/{game_id}/hint/', 'get'): Doc(
        "A move the solver would play from your casual game's position (`result` `solved`), or why there "
        'is none. Not for ranked dailies or races (403). A hint that is refused costs nothing.',
    ),
    ('/api/solutions/verify/', 'post'): Doc(
        'Checks a line of play from a deal (or from any `board` text): `valid` when every move is legal, '
        '`won` when it ends with every card home, `moves` the player actions it took. When not valid, '
        '`error` names the first bad move by its 0-based `index`. No account needed.',
    ),
    ('/api/daily/', 'get'): Doc(
        "Today's challenge (UTC): its deal id, par (the solver's best move count, not proven optimal), "
        "how many have played, when it ends, and your ranked game's id if you have one.",
    ),
    ('/api/daily/play/', 'post'): Doc(
        "Your one ranked game of today's daily, created on the first call (201) and answered again after "
        '(200). Autoplay is `safe` and the clock runs on the server from this call to the winning move. A'
        ' win faster than the ranking floor (150 ms per action on average) is held for review.',
    ),
    ('/api/daily/archive/', 'get'): Doc(
        'Past dailies, newest first, paged: date, deal, par, players and the winner.',
    ),
    ('/api/daily/{date}/', 'get'): Doc(
        'One daily: deal, par, players, results and your game; the par line once the day is over.',
    ),
    ('/api/daily/{date}/leaderboard/', 'get'): Doc(
        "The day's ranked wins: fewest moves, then shortest time, then earliest finish; paged. `me` is "
        'your entry (or null); `?scope=friends` ranks you and your friends only. People rank among people'
        ' (the default), bots among bots (`?players=bots`); each entry says `bot`. Wins held for review '
        'are not listed until cleared.',
    ),
    ('/api/daily/{date}/histogram/', 'get'): Doc(
        "How many players won the day's daily in each number of moves; `me` is your count. People's wins "
        "(the default) or bots' (`?players=bots`).",
    ),
    ('/api/races/', 'get'): Doc(
        'Your races still open or running, and the invitations you have received.',
    ),
    ('/api/races/', 'post'): Doc(
        'Opens a race on a deal (any deal id; left out, a fresh `seed:` deal) and answers its 6-character'
        ' code. Friends join with the code; you start it. `time_limit_s` (default 1800) ends it.',
    ),
    ('/api/races/ghost/', 'post'): Doc(
        "Opens a race against a recorded won game (yours or a friend's): its moves replay at the pace "
        'they were played, as a racer with `ghost` true.',
    ),
    ('/api/races/{code}/', 'get'): Doc(
        "A race: status (`open`, `countdown`, `running`, `finished`), each racer's progress (moves, cards"
        " home, status, rank) and, from the start, each racer's game id. Anyone with the code may read "
        "it; a racer's board stays hidden until the race is over.",
    ),
    ('/api/races/{code}/join/', 'post'): Doc(
        'Joins an open race by its code (at most 8 racers).',
    ),
    ('/api/races/{code}/start/', 'post'): Doc(
        'The owner starts the countdown (`RACE_COUNTDOWN_S`, 3 s); at `starts_at` every racer gets a game'
        ' of the deal, the clocks start together, and the race is `running`. Play your game with `POST '
        '/api/games/<id>/moves/` or on the race socket.',
    ),
    ('/api/races/{code}/invite/', 'post'): Doc(
        'Invites one of your friends; the invitation shows in their `GET /api/races/` and event stream.',
    ),
    ('/api/races/{code}/resign/', 'post'): Doc(
        "Resigns your game in the race; before the start, leaves the race (the owner's leaving calls it "
        'off).',
    ),
    ('/api/races/{code}/rematch/', 'post'): Doc(
        'After a race: a new race with the same racers on a fresh deal (201), or the rematch another '
        'racer already asked for (200).',
    ),
    ('/api/tokens/', 'post'): Doc(
        'Makes a personal access token with a name and scopes (`read`, `play`, `race`, `account`). The '
        'answer is the only time the token is shown: the server keeps only its hash. Needs a session or a'
        ' token with scope `account`.',
        summary='Make a personal access token',
    ),
    ('/api/tokens/', 'get'): Doc(
        'Your personal access tokens (never the tokens themselves): name, scopes, when made and last '
        'used.',
        summary='Your personal access tokens',
    ),
    ('/api/tokens/{id}/', 'delete'): Doc(
        'Revokes a token (204): from then on it gets 401 everywhere, and sockets signed in with it are '
        'closed (4401).',
        summary='Revoke a personal access token',
    ),
    ('/api/stream/games/{id}/', 'get'): Doc(
        'A game as it changes: the first line is the game as `GET /api/games/<id>/` shows it, then one '
        'line per change (a move, an undo, a resign, from any client). The answer is newline-delimited '
        'JSON (`application/x-ndjson`), held open: one JSON object a line, and an empty line at least '
        'every 10 s to keep the connection alive. It follows the change on whichever server process it '
        'happens; the same visibility rules as the REST reads apply.',
        summary='Stream a game',
    ),
    ('/api/stream/races/{code}/', 'get'): Doc(
        'A race as it changes: the race first, then one line per change (joins, the countdown, the start,'
        " each racer's progress, the finish). The answer is newline-delimited JSON "
        '(`application/x-ndjson`), held open: one JSON object a line, and an empty line at least every 10'
        ' s to keep the connection alive. It follows the change on whichever server process it happens; '
        'the same visibility rules as the REST reads apply.',
        summary='Stream a race',
    ),
    ('/api/stream/events/', 'get'): Doc(
        'Your events as they happen: race invitations, races starting, friend requests. The answer is '
        'newline-delimited JSON (`application/x-ndjson`), held open: one JSON object a line, and an empty'
        ' line at least every 10 s to keep the connection alive. It follows the change on whichever '
        'server process it happens; the same visibility rules as the REST reads apply.',
        summary='Stream your events',
    ),
    ('/api/games/{id}/legal-moves/', 'get'): Doc(
        "Every legal action at the game's current position, in the spec's notation, with the `ply` to "
        'send with one of them. A run to an empty column is listed once for each length that may move '
        '(`24`, `24v2`, ...).',
        summary='Legal moves of a game',
    ),
    ('/api/users/', 'get'): Doc(
        'Players whose username starts with `q` (at least 2 characters), alphabetical, paged.',
        summary='Find players',
    ),
    ('/api/deals/{deal}/facts/', 'get'): Doc(
        'What the solver knows of a deal that is not secret: whether it can be won and its par (the best '
        "move count found, not proven optimal). A daily's only once its day is over.",
        summary='Solver facts of a deal',
    ),
    ('/api/deals/{deal}/records/', 'get'): Doc(
        "Each player's best won game of a deal (any `ms:` or `seed:` deal; a daily's once its day is "
        'over), ranked by moves, then time, then finish; one board per autoplay mode '
        '(`?autoplay=none|safe`, default `safe`). `me` is your entry; `?scope=friends` ranks you and your'
        ' friends.',
        summary='Records of a deal',
    ),
    ('/api/ladder/{month}/', 'get'): Doc(
        "The month's ladder (`YYYY-MM`) over its dailies: a ranked win earns more the closer it is to par"
        ' (a daily missed or lost earns nothing); ranked by points. `?scope=friends`.',
        summary="The month's ladder",
    ),
    ('/api/ladder/streaks/', 'get'): Doc(
        'Current and longest streaks of dailies won on consecutive days, ranked by the current streak.',
        summary='Daily streaks',
    ),
}


def _shape(path: str) -> str:
    """A path with its parameters unnamed: `/api/games/{id}/` and `/api/games/{game_id}/` are one."""
    return re.sub(r"\{[^}]+\}", "{}", path)


def shape_key(key: str) -> tuple[str, str]:
    """An examples file key, `GET /api/games/{game_id}/`, as (method, path shape)."""
    method, _, path = key.partition(" ")
    return method.lower(), _shape(path)


def entry_for(path: str, method: str) -> Doc | None:
    return _BY_SHAPE.get((_shape(path), method))


_BY_SHAPE = {(_shape(path), method): doc for (path, method), doc in DOCS.items()}

#: The examples: real answers of the service, recorded by tests/test_docs_examples.py (docs/api-docs.md).
EXAMPLES_FILE = Path(__file__).with_name("api_examples.json")


def recorded_examples() -> dict[tuple[str, str], dict]:
    """The recorded examples by (method, path shape): `{"request": {name: body}, "responses": {status:
    {media: {name: value}}}}`."""
    document = json.loads(EXAMPLES_FILE.read_text())
    return {shape_key(key): entry for key, entry in document.items()}


def apply_docs(result, generator, request, public):
    """drf-spectacular post-processing hook: fills each operation's summary and description from DOCS
    where the view declares none, and gives every answer and request body the recorded examples and no
    others (an example a view writes by hand is dropped: it could say what the service never answers)."""
    examples = recorded_examples()
    for path, item in result.get("paths", {}).items():
        for method, operation in item.items():
            if not isinstance(operation, dict):
                continue
            doc = entry_for(path, method)
            if doc is not None and doc.summary and not operation.get("summary"):
                operation["summary"] = doc.summary
            if doc is not None and doc.description and not operation.get("description"):
                operation["description"] = doc.description
            recorded = examples.get((method, _shape(path)), {})
            for status, answer in operation.get("responses", {}).items():
                for media, content in answer.get("content", {}).items():
                    content.pop("example", None)
                    content.pop("examples", None)
                    found = recorded.get("responses", {}).get(status, {}).get(media)
                    if found:
                        content["examples"] = {name: {"value": value} for name, value in found.items()}
            for media, content in operation.get("requestBody", {}).get("content", {}).items():
                content.pop("example", None)
                content.pop("examples", None)
                if media == "application/json" and recorded.get("request"):
                    content["examples"] = {name: {"value": value} for name, value in recorded["request"].items()}
    _null_branches(result)
    return result


NULL = {"$ref": "#/components/schemas/NullEnum"}


def _null_branches(result: dict) -> None:
    """OpenAPI 3.0 applies `nullable` only beside a `type` (3.0.3): drf-spectacular's nullable object,
    `{"allOf": [{"$ref": ...}], "nullable": true}`, refuses null in a strict validator. Each becomes
    `{"oneOf": [{"$ref": ...}, NullEnum], "nullable": true}`, as drf-spectacular writes a nullable enum."""
    found = False

    def visit(node):
        nonlocal found
        if isinstance(node, dict):
            if node.get("nullable") and "type" not in node and len(node.get("allOf", [])) == 1:
                node["oneOf"] = [node.pop("allOf")[0], NULL]
                found = True
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(result)
    if found:
        result.setdefault("components", {}).setdefault("schemas", {}).setdefault("NullEnum", {"enum": [None]})
