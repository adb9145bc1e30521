"""FreeCellClient: one typed method for every endpoint of the FreeCell Online API."""

from __future__ import annotations

import json
import uuid
import webbrowser
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

from freecell_client import __version__, oauth, streams
from freecell_client import models as m
from freecell_client.errors import ApiError
from freecell_client.transport import RetryPolicy, Transport

USER_AGENT = f"freecell-client/{__version__} (python)"


def export_filters(filters: dict) -> dict:
    """The export's filters as query parameters: `ids` may be a list."""
    ids = filters.get("ids")
    if ids is not None and not isinstance(ids, str):
        filters = {**filters, "ids": ",".join(str(i) for i in ids)}
    return filters


def seg(value: Any) -> str:
    """One path segment, escaped (deal ids hold a colon, which is fine; anything odd is escaped)."""
    return quote(str(value), safe=":")


class FreeCellClient:
    """A client of one server. `token` is a personal access token or the one from sign-up or
    sign-in; `register` and `login` set it. Refusals raise `ApiError`."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        timeout: float = 15.0,
        retries: int = 3,
        max_retry_wait: float = 30.0,
        sleep=None,
    ):
        policy = RetryPolicy(retries=retries, max_wait=max_retry_wait)
        if sleep is not None:
            policy.sleep = sleep
        self.transport = Transport(base_url, token, timeout=timeout, retry=policy, user_agent=USER_AGENT)

    # --- plumbing -----------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return self.transport.base_url

    @property
    def token(self) -> str | None:
        return self.transport.token

    @token.setter
    def token(self, value: str | None) -> None:
        self.transport.token = value
        self.transport.scheme = "Bearer"

    @property
    def rate_limit(self) -> dict[str, str]:
        """The `RateLimit-Limit`, `-Remaining` and `-Reset` headers of the last answer that had them."""
        return self.transport.rate_limit

    def get(self, path: str, **params) -> Any:
        return self.transport.request("GET", path, params=params).body

    def post(self, path: str, body: Any = None, *, resend: bool = False) -> Any:
        return self.transport.request("POST", path, body=body if body is not None else {}, resend=resend).body

    def delete(self, path: str) -> None:
        self.transport.request("DELETE", path)

    def page(self, path: str, shape: type | None = None, **params) -> m.Page:
        data = self.get(path, **params)
        page = m.Page.from_dict(data)
        if shape is not None:
            page.results = [shape.from_dict(row) for row in data.get("results", [])]
        return page

    # --- accounts -----------------------------------------------------------------------------

    def ping(self) -> bool:
        return bool(self.get("/api/ping/").get("ok"))

    def register(self, username: str, password: str, email: str | None = None) -> str:
        """Signs up; the client then uses the new account's token (returned)."""
        body = {"username": username, "password": password}
        if email:
            body["email"] = email
        self.token = self.post("/api/auth/register/", body)["token"]
        return self.token

    def login(self, username: str, password: str) -> str:
        """Trades a username and password for the account's API token (every scope); the client uses it."""
        self.token = self.post("/api/auth/token/", {"username": username, "password": password})["token"]
        return self.token

    def sign_in_with_browser(
        self, scopes=oauth.DEFAULT_SCOPES, *, show=print, open_browser=webbrowser.open, client_id: str = oauth.CLIENT_ID
    ) -> str:
        """Signs in through the browser, as an app of your own (OAuth 2.0 with PKCE, `client_id` its
        name on the consent page): `show` gets the link, `open_browser` opens it (None: only shown).
        The client then uses the token it got (returned); no password passes through the program."""
        grant = oauth.sign_in(self.base_url, scopes=scopes, show=show, open_browser=open_browser, client_id=client_id)
        self.token = grant.access_token
        return self.token

    def logout(self) -> None:
        """Revokes the token the client signs in with."""
        self.post("/api/auth/logout/")
        self.token = None

    def change_password(self, old_password: str, new_password: str) -> str | None:
        """Over a token the old token is revoked: the client takes the new one it is given."""
        data = self.post("/api/auth/password/change/", {"old_password": old_password, "new_password": new_password})
        if isinstance(data, dict) and data.get("token"):
            self.token = data["token"]
        return self.token

    def me(self) -> dict:
        return self.get("/api/me/")

    def update_me(self, **fields) -> dict:
        return self.transport.request("PATCH", "/api/me/", body=fields).body

    def close_account(self, password: str) -> None:
        """Closes the account for good (its token stops working); needs the `account` scope."""
        self.post("/api/me/close/", {"password": password})
        self.token = None

    def become_bot(self) -> dict:
        """Marks the account as a bot's: its results go to the bots' boards."""
        return self.post("/api/account/bot/")

    def request_password_reset(self, email: str) -> None:
        """Mails a reset link to the account with that address (answered the same for any address)."""
        self.post("/api/auth/password/reset/", {"email": email})

    def confirm_password_reset(self, uid: str, token: str, new_password: str) -> dict:
        """Sets a new password with the link's `uid` and `token` (the account's API token is revoked)."""
        return self.post("/api/auth/password/reset/confirm/", {"uid": uid, "token": token, "new_password": new_password})

    def user(self, username: str) -> dict:
        """A player's public profile and statistics."""
        return self.get(f"/api/users/{seg(username)}/")

    def search_users(self, q: str, **params) -> m.Page:
        """Players whose name matches `q` (section 8)."""
        return self.page("/api/users/", q=q, **params)

    def user_games(self, username: str, *, page: int | str | None = None, page_size: int | None = None, **filters) -> m.Page:
        """A player's finished games, with their lines (a page of dicts), newest first. `filters`: `since`,
        `until` (ISO dates or datetimes), `order` (`newest`, `oldest`), `max` (at most that many games),
        `ids` (game ids, a list or a comma-separated string), `deal` (`ms:617`, `daily:2026-12-01`),
        `result` (`won`, `resigned`)."""
        return self.page(f"/api/users/{seg(username)}/games/", page=page, page_size=page_size, **export_filters(filters))

    def export_games(self, username: str, **filters) -> Iterator[dict]:
        """Every finished game of a player the filters keep (those of `user_games`), as dicts, not paged:
        the ndjson export, read one line at a time."""
        answer = self.transport.request(
            "GET", f"/api/users/{seg(username)}/games/", params={"format": "ndjson", **export_filters(filters)}, accept="application/x-ndjson"
        )
        return (json.loads(line) for line in answer.text.splitlines() if line.strip())

    def export_games_text(self, username: str, **filters) -> str:
        """The text export: for each game the deal's board text (10 lines, Freecell Solver's format), then
        its line of play (none when it had no move), then a blank line (docs/api.md)."""
        answer = self.transport.request(
            "GET", f"/api/users/{seg(username)}/games/", params={"format": "text", **export_filters(filters)}, accept="text/plain"
        )
        return answer.text

    def user_daily(self, username: str, **params) -> Any:
        """A player's daily results over time (section 8)."""
        return self.get(f"/api/users/{seg(username)}/daily/", **params)

    def friends(self) -> dict:
        return self.get("/api/friends/")

    def request_friend(self, username: str) -> dict:
        return self.post("/api/friends/requests/", {"username": username})

    def accept_friend(self, username: str) -> dict:
        return self.post(f"/api/friends/requests/{seg(username)}/accept/")

    def decline_friend(self, username: str) -> dict:
        return self.post(f"/api/friends/requests/{seg(username)}/decline/")

    def remove_friend(self, username: str) -> None:
        self.delete(f"/api/friends/{seg(username)}/")

    # --- personal access tokens (section 8) ---------------------------------------------------

    def create_token(self, name: str, scopes: list[str]) -> m.Token:
        """A new token; its secret (`.token`) is shown only in this answer."""
        return m.Token.from_dict(self.post("/api/tokens/", {"name": name, "scopes": list(scopes)}))

    def tokens(self) -> list[m.Token]:
        data = self.get("/api/tokens/")
        rows = data.get("results", data.get("tokens")) if isinstance(data, dict) else data
        return [m.Token.from_dict(row) for row in rows or []]

    def revoke_token(self, token_id: int) -> None:
        self.delete(f"/api/tokens/{seg(token_id)}/")

    # --- deals and boards ---------------------------------------------------------------------

    def deal(self, deal: str) -> m.Deal:
        return m.Deal.from_dict(self.get(f"/api/deals/{seg(deal)}/"))

    def deal_facts(self, deal: str) -> dict:
        """Solver facts of a deal that is not secret: solvable, par (section 8)."""
        return self.get(f"/api/deals/{seg(deal)}/facts/")

    def deal_records(self, deal: str, *, autoplay: str | None = None, scope: str | None = None, **params) -> m.Leaderboard:
        """Each player's best won game of a deal (section 10)."""
        return m.Leaderboard.from_dict(self.get(f"/api/deals/{seg(deal)}/records/", autoplay=autoplay, scope=scope, **params))

    def ladder(self, month: str, *, scope: str | None = None, **params) -> m.Ladder:
        """The month's ladder over its dailies; `month` is `YYYY-MM`."""
        return m.Ladder.from_dict(self.get(f"/api/ladder/{seg(month)}/", scope=scope, **params))

    def streaks(self, **params) -> m.Streaks:
        return m.Streaks.from_dict(self.get("/api/ladder/streaks/", **params))

    # --- games --------------------------------------------------------------------------------

    def create_game(self, deal: str = "random", autoplay: str = "safe") -> m.Game:
        """A casual game: `deal` is `ms:N`, `seed:S`, a past `daily:DATE` or `random` (a fresh seed)."""
        return m.Game.from_dict(self.post("/api/games/", {"deal": deal, "autoplay": autoplay}))

    def game(self, game_id: int) -> m.Game:
        return m.Game.from_dict(self.get(f"/api/games/{seg(game_id)}/"))

    def games(self, *, status: str | None = None, page: int | str | None = None, page_size: int | None = None, **filters) -> m.Page:
        """The caller's games (a page of Game); `filters` passes on others the server knows (`since`, `until`)."""
        return self.page("/api/games/", m.Game, status=status, page=page, page_size=page_size, **filters)

    def play_move(self, game_id: int, move: str, ply: int, client_id: str | None = None) -> m.Game:
        """Plays one move seen at `ply`. The body carries a `client_id` (a new uuid unless given), so
        after a network error or a 5xx the very same body is sent again: the server answers a resend of
        its last accepted action with `repeated: true` and never applies it twice."""
        body = {"move": move, "ply": ply, "client_id": client_id or uuid.uuid4().hex}
        return m.Game.from_dict(self.post(f"/api/games/{seg(game_id)}/moves/", body, resend=True))

    def undo(self, game_id: int, ply: int, client_id: str | None = None) -> m.Game:
        """One undo, resent safely as `play_move` is."""
        body = {"ply": ply, "client_id": client_id or uuid.uuid4().hex}
        return m.Game.from_dict(self.post(f"/api/games/{seg(game_id)}/undo/", body, resend=True))

    def resign(self, game_id: int) -> m.Game:
        return m.Game.from_dict(self.post(f"/api/games/{seg(game_id)}/resign/"))

    def restart(self, game_id: int) -> m.Game:
        """A new game of the same deal; the old one is left abandoned."""
        return m.Game.from_dict(self.post(f"/api/games/{seg(game_id)}/restart/"))

    def report_game(self, game_id: int, reason: str) -> dict:
        """Reports a result on a board that looks wrong, for the moderators."""
        return self.post(f"/api/games/{seg(game_id)}/report/", {"reason": reason})

    def game_review(self, game_id: int) -> dict:
        """The fair-play review of your own result."""
        return self.get(f"/api/games/{seg(game_id)}/review/")

    def review_game(self, game_id: int, verdict: str, note: str = "") -> dict:
        """Moderators: clears or rejects a held result (`verdict` `clear` or `reject`)."""
        return self.post(f"/api/games/{seg(game_id)}/review/", {"verdict": verdict, "note": note})

    def fair_play(self) -> dict:
        """The fair-play policy: its signals and their thresholds."""
        return self.get("/api/fair-play/")

    def fair_play_queue(self, **params) -> dict:
        """Moderators: the results held for review."""
        return self.get("/api/fair-play/queue/", **params)

    def mark_user(self, username: str, note: str = "") -> dict:
        """Moderators: marks an account (its results leave the boards)."""
        return self.post(f"/api/users/{seg(username)}/mark/", {"note": note})

    def unmark_user(self, username: str) -> None:
        self.delete(f"/api/users/{seg(username)}/mark/")

    def history(self, game_id: int) -> m.History:
        return m.History.from_dict(self.get(f"/api/games/{seg(game_id)}/history/"))

    def history_text(self, game_id: int) -> str:
        """The line of play for autoplay `none`, as other FreeCell tools replay it."""
        answer = self.transport.request("GET", f"/api/games/{seg(game_id)}/history/", params={"format": "text"}, accept="text/plain")
        return answer.text.strip()

    def hint(self, game_id: int) -> m.Hint:
        return m.Hint.from_dict(self.get(f"/api/games/{seg(game_id)}/hint/"))

    def legal_moves(self, game_id: int) -> m.LegalMoves:
        return m.LegalMoves.from_dict(self.get(f"/api/games/{seg(game_id)}/legal-moves/"))

    def verify(self, moves: str | list[str], *, deal: str | None = None, board: str | None = None, autoplay: str = "none") -> m.VerifyResult:
        """Checks a line from a deal (or from any position given as board text); no account needed."""
        body: dict[str, Any] = {"moves": moves, "autoplay": autoplay}
        if deal is not None:
            body["deal"] = deal
        if board is not None:
            body["board"] = board
        return m.VerifyResult.from_dict(self.post("/api/solutions/verify/", body))

    # --- the daily ----------------------------------------------------------------------------

    def daily(self) -> m.Daily:
        return m.Daily.from_dict(self.get("/api/daily/"))

    def daily_play(self) -> m.Game:
        """The caller's one ranked game of today, created on the first call."""
        return m.Game.from_dict(self.post("/api/daily/play/"))

    def daily_detail(self, date: str) -> dict:
        return self.get(f"/api/daily/{seg(date)}/")

    def daily_archive(self, *, page: int | str | None = None, page_size: int | None = None) -> dict:
        return self.get("/api/daily/archive/", page=page, page_size=page_size)

    def daily_leaderboard(self, date: str, *, scope: str | None = None, **params) -> m.Leaderboard:
        return m.Leaderboard.from_dict(self.get(f"/api/daily/{seg(date)}/leaderboard/", scope=scope, **params))

    def daily_histogram(self, date: str) -> dict:
        return self.get(f"/api/daily/{seg(date)}/histogram/")

    def daily_share(self, date: str, user: str | None = None) -> dict:
        return self.get(f"/api/daily/{seg(date)}/share/", user=user)

    # --- races --------------------------------------------------------------------------------

    def my_races(self) -> dict:
        """`{races, invites}`: the caller's races not over, and open invitations (races as Race)."""
        data = self.get("/api/races/")
        return {**data, "races": [m.Race.from_dict(r) for r in data.get("races", [])]}

    def race_history(self, *, status: str = "finished", **params) -> m.Page:
        """Finished races of the caller (section 8): a page of Race."""
        data = self.get("/api/races/", status=status, **params)
        if "results" not in data:
            # A server without the history answers the list of races not over: not what was asked.
            raise ApiError(404, "not_found", "this server has no race history (GET /api/races/?status=finished)", data)
        page = m.Page.from_dict(data)
        page.results = [m.Race.from_dict(r) for r in data["results"]]
        return page

    def create_race(
        self, deal: str | None = None, *, autoplay: str = "safe", time_limit_s: int | None = None, public: bool = False
    ) -> m.Race:
        """Opens a race on `deal` (a fresh random seed when None); a public one is listed for anyone and
        starts by itself once a second racer is in (section 12)."""
        body: dict[str, Any] = {"autoplay": autoplay}
        if deal:
            body["deal"] = deal
        if time_limit_s is not None:
            body["time_limit_s"] = time_limit_s
        if public:
            body["public"] = True
        return m.Race.from_dict(self.post("/api/races/", body))

    def public_races(self, **params) -> m.Page:
        """The public races one may join now, oldest first (section 12): a page of Race."""
        data = self.get("/api/races/", status="open", public="1", **params)
        page = m.Page.from_dict(data)
        page.results = [m.Race.from_dict(r) for r in data["results"]]
        return page

    def quick_race(self) -> m.Race:
        """Quick play: the oldest public race with room, joined, or a new public race."""
        return m.Race.from_dict(self.post("/api/races/quick/"))

    # --- challenges (section 12) ------------------------------------------------------------------

    def challenge(self, username: str, deal: str | None = None, *, autoplay: str = "safe") -> m.Challenge:
        """Challenges a player to a race on `deal` (a fresh random seed when None)."""
        body: dict[str, Any] = {"username": username, "autoplay": autoplay}
        if deal:
            body["deal"] = deal
        return m.Challenge.from_dict(self.post("/api/challenges/", body))

    def challenges(self) -> dict:
        """`{received, sent}`: lists of Challenge, newest first."""
        data = self.get("/api/challenges/")
        return {key: [m.Challenge.from_dict(c) for c in data.get(key, [])] for key in ("received", "sent")}

    def get_challenge(self, challenge_id: int) -> m.Challenge:
        return m.Challenge.from_dict(self.get(f"/api/challenges/{seg(challenge_id)}/"))

    def accept_challenge(self, challenge_id: int) -> m.Challenge:
        """Accepts: the answer's `code` is the race of the two, its countdown begun."""
        return m.Challenge.from_dict(self.post(f"/api/challenges/{seg(challenge_id)}/accept/"))

    def decline_challenge(self, challenge_id: int) -> m.Challenge:
        return m.Challenge.from_dict(self.post(f"/api/challenges/{seg(challenge_id)}/decline/"))

    def cancel_challenge(self, challenge_id: int) -> m.Challenge:
        return m.Challenge.from_dict(self.post(f"/api/challenges/{seg(challenge_id)}/cancel/"))

    def create_ghost_race(self, game_id: int, time_limit_s: int | None = None) -> m.Race:
        body: dict[str, Any] = {"game": game_id}
        if time_limit_s is not None:
            body["time_limit_s"] = time_limit_s
        return m.Race.from_dict(self.post("/api/races/ghost/", body))

    def race(self, code: str) -> m.Race:
        return m.Race.from_dict(self.get(f"/api/races/{seg(code)}/"))

    def join_race(self, code: str) -> m.Race:
        return m.Race.from_dict(self.post(f"/api/races/{seg(code)}/join/"))

    def start_race(self, code: str) -> m.Race:
        return m.Race.from_dict(self.post(f"/api/races/{seg(code)}/start/"))

    def invite_to_race(self, code: str, username: str) -> m.Race:
        return m.Race.from_dict(self.post(f"/api/races/{seg(code)}/invite/", {"username": username}))

    def resign_race(self, code: str) -> m.Race:
        return m.Race.from_dict(self.post(f"/api/races/{seg(code)}/resign/"))

    def rematch(self, code: str) -> m.Race:
        return m.Race.from_dict(self.post(f"/api/races/{seg(code)}/rematch/"))

    def race_socket(self, code: str):
        """An async context manager on `/ws/races/<code>/`, signed in with the client's token."""
        from freecell_client.sockets import RaceSocket

        return RaceSocket(self.base_url, code, self.token)

    def game_socket(self, game_id: int):
        """An async context manager on `/ws/games/<id>/`, signed in with the client's token."""
        from freecell_client.sockets import GameSocket

        return GameSocket(self.base_url, game_id, self.token)

    def records_socket(self, deal: str, *, autoplay: str = "safe", players: str = "people"):
        """An async context manager on `/ws/deals/<deal>/records/`: the deal's record board, live."""
        from freecell_client.sockets import RecordsSocket

        return RecordsSocket(self.base_url, deal, self.token, autoplay=autoplay, players=players)

    # --- the documents ------------------------------------------------------------------------

    def openapi(self) -> dict:
        """The OpenAPI document of the REST API."""
        return self.get("/api/schema/", format="json")

    def asyncapi(self) -> dict:
        """The AsyncAPI document of the sockets."""
        return self.get("/api/asyncapi.json")

    # --- streams (section 8) ------------------------------------------------------------------

    def stream_game(self, game_id: int, **options) -> Iterator[dict]:
        """The game, then a line per change; ends once the game is over (at the server's end line, not yielded)."""
        return streams.follow(self.transport, f"/api/stream/games/{seg(game_id)}/", over=streams.game_over, **options)

    def stream_race(self, code: str, **options) -> Iterator[dict]:
        """The race, then a line per change; ends once the race is finished (at the server's end line, not yielded)."""
        return streams.follow(self.transport, f"/api/stream/races/{seg(code)}/", over=streams.race_over, **options)

    def stream_events(self, **options) -> Iterator[dict]:
        """The caller's events: race invitations, races starting, friend requests."""
        return streams.follow(self.transport, "/api/stream/events/", **options)
