"""What both sockets share: frames in, answers out, acts in turn, heartbeats, budgets, a bus that may fail.

A socket is a view on the database: every frame it sends is built from committed rows, carries a
`version`, and the channel layer only says "something changed". When the layer drops a message, or
Redis goes away for a while, the socket notices (a version gap, or a failed layer call) and sends the
full current state again, so a client never depends on the bus for correctness. See docs/websocket.md.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import functools
import json
import logging
import time

from autobahn.exception import Disconnected
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from channels.utils import await_many_dispatch
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import OperationalError

from accounts.scopes import PLAY, allows
from accounts.tokens import note_use, token_of_key
from freecell_site import logging_context, metrics
from freecell_site.errors import DATABASE_UNAVAILABLE, RETRY_AFTER_S, ServiceError
from games import events
from games.engine import EngineError
from games.play import selectors, services
from games.play.models import Action
from games.play.payloads import game_payload
from games.sockets import bus, heartbeats, limits
from games.sockets.budget import Budget
from games.sockets.channel import BusChannel
from games.sockets.database import db
from games.sockets.frames import (
    ACTION_FRAMES,
    MAX_FRAME,
    MAX_ID,
    PLAYER_FRAMES,
    BadFrame,
    check_ply_and_client,
    parse_frame,
    string_fault,
)
from games.sockets.sign_in import SignIn

logger = logging.getLogger(__name__)


def iso_to_dt(text: str | None) -> dt.datetime | None:
    if not text:
        return None
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


class Socket(AsyncWebsocketConsumer):
    """What both sockets share: frame parsing, auth frames, heartbeats, rate limit, robust bus."""

    frame_types: tuple[str, ...] = ("auth", "ping", "sync")
    #: The scope a token must hold to send each kind of frame (accounts.scopes); other frames need none.
    frame_scopes: dict[str, str] = {"move": PLAY, "undo": PLAY, "resign": PLAY, "hint": PLAY}

    # --- plumbing ---------------------------------------------------------------------------

    async def __call__(self, scope, receive, send):
        # AsyncConsumer.__call__ with a channel receive that survives the layer going away: Channels'
        # own lets a Redis error in `receive` end the consumer and drop the socket (the Redis restart
        # test, tests/test_redis_outage.py), which its public API has no setting against.
        self.scope = scope
        # This socket's id on every log line its frames cause (the task's context carries it on).
        logging_context.connection_id.set(logging_context.new_id()[:12])
        self.metric_kind = type(self).__name__.removesuffix("Consumer").lower()
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        self.base_send = send
        # This socket's channel on the bus and the groups it is in.
        self.bus_channel = BusChannel(self, self.channel_layer)
        self.tasks: list[asyncio.Task] = []
        self.held: list[dict] = []
        self.answering: set[asyncio.Task] = set()
        self.closed = False
        self.counted_account: str | None = None  # the account this socket counts against (limits)
        self.refused_frames = 0
        self.oversized_frames = 0  # frames over MAX_FRAME this socket sent (refuse_oversized)
        self.address = limits.address_of(scope)
        self.turns = limits.turns.take(self.address)
        sources = [receive]
        # With Redis down the socket opens anyway (state and moves come from the database); its
        # channel is made once it can be, and the watch brings this socket back.
        await self.bus_channel.open()
        if self.channel_layer is not None:
            sources.append(self.bus_channel.receive)
        metrics.opened(metrics.OPEN_SOCKETS, self.metric_kind)  # closed in the `finally` below
        try:
            await await_many_dispatch(sources, self.dispatch)
        except StopConsumer:
            pass
        finally:
            metrics.closed(metrics.OPEN_SOCKETS, self.metric_kind)
            for task in self.tasks:
                task.cancel()
            limits.turns.give_back(self.address)
            if self.counted_account is not None:
                await limits.close_socket(limits.sockets_per_account, self.counted_account)

    async def dispatch(self, message):
        # Channels' dispatch also closes old DB connections on every message; our DB calls already do
        # that around each call, and a push must not wait for a thread hop.
        handler = getattr(self, message["type"].replace(".", "_"), None)
        if handler is None or message["type"].startswith("_"):
            logger.warning("socket got an event it has no handler for: %s", message["type"])
            return
        if message["type"].startswith("websocket."):
            await handler(message)
            return
        if message["type"] in self.after_acks and self.actions_on_the_way:
            self.held.append(message)  # see queue_action
            return
        try:
            await handler(message)
        except Exception:  # an event must never end the socket
            logger.exception("handling %s failed", message["type"])

    async def send_json(self, content: dict) -> None:
        if self.closed:
            return
        try:
            # allow_nan=False: a frame that is not JSON for every client is a bug to log, not to send.
            await self.send(text_data=json.dumps(content, separators=(",", ":"), allow_nan=False))
        except Disconnected:  # the client left while its frames were being answered: no one to tell
            self.closed = True

    async def send_error(self, frame_id, code: str, message: str, **extra) -> None:
        body = {"type": "error", "code": code, "message": message, **extra}
        if frame_id is not None:
            body["id"] = frame_id
        await self.send_json(body)

    async def close_with(self, frame_id, code: str, message: str, close_code: int) -> None:
        await self.send_error(frame_id, code, message)
        self.closed = True
        await self.close(code=close_code)

    # --- lifecycle --------------------------------------------------------------------------

    async def connect(self):
        self.user = self.scope.get("user") or AnonymousUser()
        # How this socket signed in, asked again when it may have ended (games.sockets.sign_in).
        self.sign_in: SignIn | None = None
        self.token = None  # the AccessToken of a token sign-in, whose scopes limit the frames; None: a session
        if self.user.is_authenticated:
            self.sign_in = SignIn("session", self.scope["session"].session_key, self.user.pk)
        loop = asyncio.get_running_loop()
        self.last_seen = loop.time()
        self.budgets = {
            "moves": Budget("moves", settings.WS_MOVE_BURST, settings.WS_MOVE_RATE, loop.time()),
            "reads": Budget("reads", settings.WS_READ_BURST, settings.WS_READ_RATE, loop.time()),
        }
        await self.accept()
        if self.user.is_authenticated:
            if not await self.count_account(self.user):
                return  # refused before any work for the socket
            await self.bus_channel.join(events.account_group(self.user.pk))
        self.next_beat = loop.time() + settings.WS_HEARTBEAT_S
        heartbeats.keep(self)
        bus.watch(self)
        try:
            await self.open()
        except Exception:
            logger.exception("opening a socket failed")
            await self.close_with(None, "server_error", "the server failed; the error was logged", 1011)

    def db(self, func):
        """`db(func)` in this socket's address's turn: each address has a few database calls on the way
        at once (limits.turns), so a flood of one client's sockets does not fill the thread pool ahead
        of everyone else's moves."""
        call = db(func)

        async def in_turn(*args, **kwargs):
            async with self.turns:
                return await call(*args, **kwargs)

        return in_turn

    async def count_account(self, user) -> bool:
        """Counts this socket against its account's sockets in every process; one too many is told
        why and closed (limits.CLOSE_CODE)."""
        if self.counted_account == str(user.pk):
            return True
        if await limits.open_socket(limits.sockets_per_account, str(user.pk)):
            self.counted_account = str(user.pk)
            return True
        await self.send_json(limits.refusal("account"))
        self.closed = True
        await self.close(code=limits.CLOSE_CODE)
        return False

    def spend_shared_budgets(self, kind: str | None, cost: int = 1) -> None:
        """The frame budgets of the socket's address and account, over all their sockets: beyond them
        a frame is refused (rate_limited), and a socket that goes on sending is closed. An account's
        moves and undos are counted by the services' limit instead (ACTIONS_PER_SECOND), once."""
        now = time.monotonic()
        try:
            if self.address:
                limits.frames_per_address.spend(self.address, now, cost)
            if self.user.is_authenticated and kind not in ("move", "undo"):
                limits.frames_per_account.spend(str(self.user.pk), now, cost)
        except ServiceError:
            self.refused_frames += 1
            raise
        self.refused_frames = 0

    async def disconnect(self, code):
        self.closed = True
        bus.unwatch(self)
        heartbeats.drop(self)
        for task in self.tasks:
            task.cancel()
        await self.bus_channel.leave_all()

    def next_due(self) -> float:
        """When the process's beats (games.sockets.heartbeats) next look at this socket: its next
        heartbeat, its idle deadline, or its sign-in's next check, whichever comes first."""
        due = min(self.next_beat, self.last_seen + settings.WS_IDLE_TIMEOUT_S)
        return due if self.sign_in is None else min(due, self.sign_in.next_check)

    def in_background(self, work) -> None:
        """Runs `work` (a coroutine) beside the socket's frames; kept here, as the loop keeps only weak
        references to tasks."""
        task = asyncio.create_task(work)
        self.answering.add(task)
        task.add_done_callback(self.answering.discard)

    async def beat(self) -> float | None:
        """Closes this socket if nothing was heard from it for WS_IDLE_TIMEOUT_S, else sends a heartbeat if
        one is due and starts its sign-in's check if that is due (in the background: the beats of
        every socket wait for this one); returns when it is next due, or None once it is closed."""
        if self.closed:
            return None
        idle = settings.WS_IDLE_TIMEOUT_S
        now = asyncio.get_running_loop().time()
        if now - self.last_seen >= idle:
            await self.close_with(None, "idle_timeout", f"nothing heard for {idle:g} s", 4408)
            return None
        if now >= self.next_beat:
            self.next_beat = now + settings.WS_HEARTBEAT_S
            await self.send_json({"type": "heartbeat"})
        if self.sign_in is not None and self.sign_in.due(now):
            self.in_background(self.check_sign_in())
        return None if self.closed else self.next_due()

    async def bus_back(self, generation: int) -> None:
        """The bus is back after a failure this socket saw (or it opened without the bus): it re-joins
        its groups (a restarted Redis forgot them) and resyncs its client (bus.watch calls it)."""
        self.bus_generation = generation  # first: a join that fails again puts it behind again
        await self.bus_channel.rejoin()
        if await self.check_sign_in():  # a sign-out may have been lost with the bus, too
            await self.resync()
            metrics.resynced("ws", "bus_back")

    # --- frames -----------------------------------------------------------------------------

    async def receive(self, text_data=None, bytes_data=None):
        self.last_seen = asyncio.get_running_loop().time()
        frame_id = kind = None
        try:
            if text_data is None:
                raise BadFrame("frames are JSON text; binary frames are not accepted")
            if len(text_data) > MAX_FRAME or len(text_data.encode("utf-8", "surrogatepass")) > MAX_FRAME:
                await self.refuse_oversized(len(text_data.encode("utf-8", "surrogatepass")))
                return
            try:
                frame = parse_frame(text_data)
            except (ValueError, RecursionError):
                raise BadFrame("not JSON") from None
            if not isinstance(frame, dict):
                raise BadFrame("a frame is a JSON object with a type")
            # The id first, so that the refusals below are answered with it, as every answer is.
            frame_id = frame.get("id")
            if frame_id is not None and not (
                (isinstance(frame_id, str) and len(frame_id) <= MAX_ID)
                or (isinstance(frame_id, int | float) and not isinstance(frame_id, bool) and len(str(frame_id)) <= MAX_ID)
            ):
                frame_id = None
                raise BadFrame(f"id must be a string or number of at most {MAX_ID} characters")
            if string_fault(frame_id):
                frame_id = None  # not echoed: what it holds is the error
            fault = string_fault(frame)
            if fault:
                raise BadFrame(fault)
            kind = frame.get("type")
            if not isinstance(kind, str) or kind not in self.frame_types:
                raise BadFrame(f"unknown frame type {kind!r}: one of {', '.join(self.frame_types)}")
            self.spend_shared_budgets(kind)
            self.check_allowed(kind)
            if kind in PLAYER_FRAMES and not getattr(self.user, "is_authenticated", False):
                raise ServiceError(
                    "not_authenticated",
                    'watchers cannot play: send {"type": "auth", "token": "<key>"} first (or sign in)',
                    status=401,
                )
            self.check_scope(kind)
            if kind in ("auth", "sync", "start", "resign"):
                self.check_rate("reads")
            await getattr(self, f"frame_{kind}")(frame, frame_id)
        except Exception as exc:
            if self.refused_frames > limits.REFUSALS_BEFORE_CLOSE:
                await self.close_with(frame_id, "rate_limited", "too many frames refused: this socket is closed", limits.CLOSE_CODE)
                return
            if isinstance(kind, str) and kind in ACTION_FRAMES and self.actions_on_the_way:
                # Refused at once, but answered in turn: after the answers to the actions before it.
                self.in_turn(frame_id, functools.partial(self.answer_failure, frame_id, exc))
            else:
                await self.answer_failure(frame_id, exc)

    async def refuse_oversized(self, size: int) -> None:
        """A frame over MAX_FRAME bytes: not parsed, answered `too_large` (no `id`: it is not read), and
        charged to the address's and account's frame budgets one frame per 4 KiB it began, so big
        frames spend a flood's budget as fast as their bytes cost; a socket's frame past
        WS_OVERSIZED_FRAMES closes it (1009, "message too big")."""
        self.oversized_frames += 1
        if settings.WS_OVERSIZED_FRAMES and self.oversized_frames > settings.WS_OVERSIZED_FRAMES:
            await self.close_with(
                None, "too_large", f"too many frames over {MAX_FRAME} bytes: this socket is closed", limits.TOO_LARGE_CLOSE_CODE
            )
            return
        try:
            self.spend_shared_budgets(None, cost=-(-size // MAX_FRAME))
        except ServiceError as exc:
            if self.refused_frames > limits.REFUSALS_BEFORE_CLOSE:
                await self.close_with(None, "rate_limited", "too many frames refused: this socket is closed", limits.CLOSE_CODE)
                return
            await self.answer_failure(None, exc)
            return
        await self.send_error(None, "too_large", f"a frame is at most {MAX_FRAME} bytes")

    async def answer_failure(self, frame_id, exc: Exception) -> None:
        """A frame that failed gets an error frame with the spec's code; the socket goes on."""
        if isinstance(exc, BadFrame):
            await self.send_error(frame_id, "bad_frame", str(exc))
        elif isinstance(exc, ServiceError):
            await self.send_error(frame_id, exc.code, exc.message, **exc.extra)
        elif isinstance(exc, EngineError):
            await self.send_error(frame_id, exc.code, str(exc))
        elif isinstance(exc, OperationalError):  # as REST answers it (freecell_site.errors)
            logger.warning("database unavailable: %s", exc)
            await self.send_error(frame_id, *DATABASE_UNAVAILABLE, retry_after=RETRY_AFTER_S)
        else:
            logger.error("frame failed", exc_info=exc)
            await self.send_error(frame_id, "server_error", "the server failed; the error was logged")

    async def frame_ping(self, frame, frame_id):
        body = {"type": "pong"}
        if frame_id is not None:
            body["id"] = frame_id
        await self.send_json(body)

    async def frame_auth(self, frame, frame_id):
        token = frame.get("token")
        if not isinstance(token, str) or not token or len(token) > 64:
            raise BadFrame("auth needs a token")
        found = await self.db(token_of_key)(token)
        if found is None:
            await self.send_error(frame_id, "authentication_failed", "invalid token")
            return
        user = found.user
        if self.user.is_authenticated and self.user.pk != user.pk:
            await self.send_error(frame_id, "forbidden", "this socket is already signed in as someone else")
            return
        if not await self.count_account(user):
            return
        await self.db(note_use)(found)
        self.user, self.sign_in, self.token = user, SignIn("token", token, user.pk, found.expires_at), found
        heartbeats.soon(self)  # its sign-in's first check may come before the socket's next beat
        await self.bus_channel.join(events.account_group(user.pk))
        body = {"type": "auth_ok", "username": user.username}
        if frame_id is not None:
            body["id"] = frame_id
        await self.send_json(body)
        await self.authenticated()

    async def account_sign_ins(self, event):
        """The player signed out somewhere or changed their password (accounts.signals)."""
        await self.check_sign_in()

    async def check_sign_in(self) -> bool:
        """Whether this socket's sign-in still holds; if not, it is closed (4401)."""
        if self.sign_in is None or await self.sign_in.holds():
            heartbeats.soon(self)  # its next check may be due sooner than the socket's next beat
            return True
        await self.close_with(None, "authentication_failed", "signed out: this socket's session or token has ended; connect again", 4401)
        return False

    @property
    def via(self) -> str:
        """How this socket's actions come (docs/fair-play.md): `api` when it signed in with a token, `web` on the site's session."""
        return Action.Via.API if self.token is not None else Action.Via.WEB

    def check_scope(self, kind: str) -> None:
        """Refuses a frame that the socket's token lacks the scope for (`missing_scope`, as REST's 403)."""
        scope = self.frame_scopes.get(kind)
        if scope is not None and not allows(self.token, scope):
            raise ServiceError(
                "missing_scope", f"this socket's token lacks the scope `{scope}` that a {kind} frame needs", status=403, extra={"scopes": [scope]}
            )

    def check_rate(self, bucket: str = "moves") -> None:
        """Per-socket budgets: `moves` (moves and undos) and `reads` (other frames that cost a
        database call: auth, sync, start, resign), so no frame type can flood the database."""
        try:
            self.budgets[bucket].spend(asyncio.get_running_loop().time())
        except ServiceError:
            metrics.throttled(f"socket_{bucket}")
            raise

    # --- games (both sockets play one game: the game socket's, or the racer's own) ------------

    game_id: int | None = None
    game_version = -1

    async def send_game(self, game: dict, frame_id=None) -> None:
        self.game_version = max(self.game_version, game["version"])
        body = {"type": "state", "game": game, "version": game["version"]}
        if frame_id is not None:
            body["id"] = frame_id
        await self.send_json(body)

    async def game_state(self, event):
        """A game changed (pushed by services after commit, from any process)."""
        game = event["game"]
        if game.get("id") != self.game_id or game["version"] <= self.game_version:
            return
        if self.game_version >= 0 and game["version"] > self.game_version + 1:
            fresh = await self.db(selectors.game_state)(self.game_id)  # a gap: something was missed on the bus
            metrics.resynced("ws", "gap")
            if fresh is not None:
                game = fresh if fresh["version"] >= game["version"] else game
        await self.send_game(game)

    async def frame_move(self, frame, frame_id):
        move, ply, client_id = frame.get("move"), frame.get("ply"), frame.get("client_id", "")
        if not isinstance(move, str):  # a string that does not parse is the engine's bad_notation
            raise BadFrame("move needs a move in the spec's notation, such as 3a")
        check_ply_and_client(ply, client_id)
        self.check_rate()
        self.queue_action(frame_id, play, user=self.user, move=move, ply=ply, client_id=client_id, via=self.via)

    async def frame_undo(self, frame, frame_id):
        ply, client_id = frame.get("ply"), frame.get("client_id", "")
        check_ply_and_client(ply, client_id)
        self.check_rate()
        self.queue_action(frame_id, undo, user=self.user, ply=ply, client_id=client_id, via=self.via)

    # Moves, undos and resigns of this socket still to be answered, and the last of them.
    actions_on_the_way = 0
    last_action: asyncio.Task | None = None
    # Pushes that wait for those answers, in the order they came: the new state of a game or a race
    # goes to the mover after the ack of the move that caused it, as when moves were awaited in turn.
    after_acks = ("game.state", "race.state")

    def queue_action(self, frame_id, act, **kwargs) -> None:
        """Plays `act` (a move or undo, in a database thread) on the played game, in turn, and acks it."""

        received = time.perf_counter()
        counted = metrics.counted(act, via=kwargs["via"], transport="ws", kind="undo" if act is undo else "move")

        async def play():
            game_id = await self.played_game()
            result = await self.db(counted)(game_id=game_id, **kwargs)
            await self.send_ack(frame_id, kwargs["client_id"], result)
            metrics.ack_sent(time.perf_counter() - received)

        self.in_turn(frame_id, play)

    def in_turn(self, frame_id, answer) -> None:
        """Runs `answer()`, which acts on a move, undo or resign frame and answers it, once this socket's
        earlier actions are answered, without holding up the socket's other messages; a failure is
        answered with its error frame.

        A consumer handles one message at a time: when it awaited each move, the pushes for a player
        who moves fast (opponents' progress) waited behind their moves, seconds behind under load.
        Actions keep their order; the pushes named in `after_acks` wait for their answers."""
        previous = self.last_action
        self.actions_on_the_way += 1

        async def in_turn():
            try:
                if previous is not None:
                    await asyncio.wait([previous])
                await answer()
            except Exception as exc:
                await self.answer_failure(frame_id, exc)
            finally:
                self.actions_on_the_way -= 1
            while not self.actions_on_the_way and self.held:
                await self.dispatch(self.held.pop(0))

        self.last_action = asyncio.create_task(in_turn())
        self.answering.add(self.last_action)  # the loop keeps only weak references to tasks
        self.last_action.add_done_callback(self.answering.discard)

    async def send_ack(self, frame_id, client_id: str, result: dict) -> None:
        game = result["game"]
        self.game_version = max(self.game_version, game["version"])
        await self.send_json(
            {
                "type": "ack",
                "id": frame_id,
                "client_id": client_id,
                "ply": game["ply"],
                "version": game["version"],
                "game": game,
                "action": result["action"],
                "repeated": result["repeated"],
            }
        )

    # --- hooks ------------------------------------------------------------------------------

    def check_allowed(self, kind: str) -> None:
        pass

    async def open(self) -> None:
        raise NotImplementedError

    async def played_game(self) -> int:
        """The id of the game this socket's moves, undos and resigns play."""
        raise NotImplementedError

    async def authenticated(self) -> None:
        pass

    async def resync(self) -> None:
        pass


# --- the actions a socket plays (in a database thread) -------------------------------------------


def _result(outcome) -> dict:
    action = services.action_payload(outcome.action) if outcome.action is not None else None
    game = outcome.shown if outcome.shown is not None else game_payload(outcome.game)
    return {"game": game, "action": action, "repeated": outcome.repeated}


def play(**kwargs) -> dict:
    return _result(services.play_move(**kwargs))


def undo(**kwargs) -> dict:
    return _result(services.undo(**kwargs))


def resign(*, game_id: int, user) -> dict:
    return _result(services.resign(game_id=game_id, user=user))


class NoSuchSocket(AsyncWebsocketConsumer):
    """Every websocket path that is neither a game's nor a race's: answered as an unknown game or race
    is (a `not_found` error, then close code 4404), which a browser can read, unlike a refused
    handshake (Channels' router would raise, and Daphne answer HTTP 500 and log a traceback)."""

    async def connect(self):
        await self.accept()
        body = {"type": "error", "code": "not_found", "message": "no such socket: the sockets are /ws/games/<id>/ and /ws/races/<code>/"}
        await self.send(text_data=json.dumps(body))
        await self.close(code=4404)
