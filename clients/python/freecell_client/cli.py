"""The `freecell` command: sign in (through the browser) and out, scoped tokens, play a deal on a text board, the
daily, follow or play a race, challenges, export games and verify."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import webbrowser
from collections.abc import Callable
from typing import TextIO

from freecell_client import bot, config, oauth
from freecell_client.board import render, status_line
from freecell_client.client import FreeCellClient
from freecell_client.errors import ApiError
from freecell_client.models import Game

HELP = "type a move (3a, 57, 1h, ah, 24v3), u to undo, ? for a hint, q to quit"


def make_client(args) -> FreeCellClient:
    url, token = config.settings(args.url, args.token)
    return FreeCellClient(url, token)


def say_error(error: ApiError, out: TextIO) -> None:
    print(f"error: {error.code}: {error.message}", file=out)


# --- sign-in ----------------------------------------------------------------------------------


def cmd_login(args, out: TextIO) -> int:
    """Signs in through the browser (OAuth with PKCE): the player allows the command line on the site's
    consent page, and the token it gets is saved. No password passes through here."""
    client = make_client(args)
    scopes = [scope.strip() for scope in args.scopes.replace(",", " ").split() if scope.strip()]

    def show(url: str) -> None:
        hint = "Open this link" if args.no_browser else "Opening your browser; if it does not open, open this link"
        print(f"{hint} to sign in and allow the command line:\n\n  {url}\n", file=out, flush=True)

    grant = oauth.sign_in(client.base_url, scopes=scopes, show=show, open_browser=None if args.no_browser else webbrowser.open)
    client.token = grant.access_token
    try:
        username = client.me()["username"]
    except ApiError:  # a token without `read` may not read the profile
        username = None
    path = config.save({**config.load(), "url": client.base_url, "token": grant.access_token, "username": username, "scopes": grant.scope.split()})
    who = f" as {username}" if username else ""
    print(f"signed in{who} on {client.base_url} with scopes {grant.scope} (token saved in {path})", file=out)
    return 0


def cmd_logout(args, out: TextIO) -> int:
    """Revokes the saved token on the server and forgets it here."""
    stored = config.load()
    client = make_client(args)
    if not client.token:
        print("not signed in", file=out)
        return 0
    try:
        client.logout()
    except ApiError as error:
        if error.status != 401:  # a token already revoked or expired is as good as logged out
            raise
    if stored.get("token"):
        config.save({key: value for key, value in stored.items() if key not in ("token", "username", "scopes")})
    print(f"signed out of {client.base_url} (the token is revoked)", file=out)
    return 0


# --- playing ----------------------------------------------------------------------------------


def show(game: Game, out: TextIO, color: bool) -> None:
    print(render(game.raw["state"], color=color), file=out)
    print(status_line(game.raw), file=out)


def play_loop(
    client: FreeCellClient, game: Game, read: Callable[[], str | None], out: TextIO, *, color: bool = False, echo: bool = False
) -> Game:
    """Shows the board and reads moves until the game is over, the player quits or input ends.
    `echo` writes each line read after the prompt (input from a pipe or a file, which no terminal shows)."""
    print(HELP, file=out)
    show(game, out, color)
    while game.status == "playing":
        print("move> ", end="", file=out, flush=True)
        line = read()
        if line is None:
            print(file=out)
            break
        typed = line.strip()
        if echo:
            print(typed, file=out)
        if not typed:
            continue
        try:
            if typed.lower() in ("q", "quit"):
                break
            if typed.lower() in ("u", "undo"):
                game = client.undo(game.id, game.ply)
            elif typed == "?":
                hint = client.hint(game.id)
                print(f"hint: {hint.move}" if hint.move else f"no hint: {hint.result}", file=out)
                continue
            else:
                game = client.play_move(game.id, typed, game.ply)
        except ApiError as error:
            say_error(error, out)
            if error.code in ("ply_conflict", "game_over") and isinstance(error.detail.get("game"), dict):
                game = Game.from_dict(error.detail["game"])  # the game as it now is
                show(game, out, color)
            continue
        show(game, out, color)
    if game.status == "won":
        print(f"won in {game.moves} moves ({game.undos} undos)", file=out)
    return game


def reader(stream: TextIO) -> Callable[[], str | None]:
    def read() -> str | None:
        line = stream.readline()
        return line if line else None

    return read


def cmd_play(args, out: TextIO) -> int:
    client = make_client(args)
    game = client.create_game(args.deal, args.autoplay)
    play_loop(client, game, reader(sys.stdin), out, color=out.isatty(), echo=not sys.stdin.isatty())
    return 0


def cmd_daily(args, out: TextIO) -> int:
    client = make_client(args)
    daily = client.daily()
    if args.action == "show":
        par = daily.par if daily.par is not None else "unknown"
        print(f"daily {daily.date}: {daily.deal}  par {par}  players {daily.players}", file=out)
        return 0
    if args.action == "leaderboard":
        board = client.daily_leaderboard(args.date or daily.date, scope=args.scope)
        for entry in board.entries:
            seconds = (entry.elapsed_ms or 0) / 1000
            print(f"{entry.rank:>4}  {entry.username:<20} {entry.moves:>4} moves  {entry.undos:>3} undos  {seconds:8.1f} s", file=out)
        if not board.entries:
            print("no finished games yet", file=out)
        return 0
    game = client.daily_play()
    print(f"daily {daily.date}: ranked, safe autoplay; the clock runs on the server", file=out)
    play_loop(client, game, reader(sys.stdin), out, color=out.isatty(), echo=not sys.stdin.isatty())
    return 0


# --- races ------------------------------------------------------------------------------------


def racer_line(racer: dict) -> str:
    rank = f" #{racer['rank']}" if racer.get("rank") else ""
    return f"{racer['username']}: {racer['moves']} moves, {racer['cards_home']}/52 home, {racer['status']}{rank}"


#: A racer's status only moves forward: waiting, then playing, then won or resigned.
STATUS_ORDER = {"waiting": 0, "playing": 1, "won": 2, "resigned": 2}


def newer(racer: dict, best: dict[str, tuple[int, int]]) -> bool:
    """Whether `racer` says more than the entry kept for them (more moves, or a later status); keeps it
    if so. A `race` frame built before a `progress` frame may arrive after it (docs/websocket.md)."""
    mark = (racer["moves"], STATUS_ORDER.get(racer["status"], 0))
    seen = best.get(racer["username"])
    if seen is not None and mark[0] <= seen[0] and mark[1] <= seen[1]:
        return False
    best[racer["username"]] = (max(mark[0], seen[0]) if seen else mark[0], max(mark[1], seen[1]) if seen else mark[1])
    return True


async def follow_race(client: FreeCellClient, code: str, out: TextIO, *, start: bool = False, timeout: float | None = None) -> dict:
    """Prints the race's changes as they come until it finishes; answers the last race object."""
    last_race: dict = {}
    best: dict[str, tuple[int, int]] = {}
    async with client.race_socket(code) as socket:
        if start:
            await socket.start()
        while True:
            frame = await socket.recv(timeout)
            kind = frame.get("type")
            if kind == "race":
                race = frame["race"]
                if race["status"] != last_race.get("status"):
                    print(f"race {race['code']} on {race['deal']}: {race['status']}", file=out)
                for racer in race["racers"]:
                    if newer(racer, best):
                        print("  " + racer_line(racer), file=out)
                last_race = race
                if race["status"] == "finished":
                    return race
            elif kind == "progress":
                if newer(frame["racer"], best):
                    print("  " + racer_line(frame["racer"]), file=out)
            elif kind == "error":
                print(f"error: {frame.get('code')}: {frame.get('message')}", file=out)


def cmd_race(args, out: TextIO) -> int:
    client = make_client(args)
    code = args.code
    strategy = None
    if args.new is not None or not code:
        if args.play:  # the strategy first: no help on a race's deal once in the race (freecell_client.bot)
            if args.play == "line" and not args.new:
                raise ApiError(0, "no_line", "a bot on the solver line needs the deal: --new DEAL")
            strategy = bot.strategy_for(client, args.play, args.new, args.autoplay)
        race = client.create_race(args.new or None, autoplay=args.autoplay)
        code = race.code
        link = client.base_url + race.link if (race.link or "").startswith("/") else race.link
        print(f"race {code} opened on {race.deal}: join with `freecell race {code} --join` ({link})", file=out, flush=True)
    else:
        if args.play:
            race = client.race(code)
            strategy = bot.strategy_for(client, args.play, race.deal, race.autoplay)
        if args.join:
            client.join_race(code)
    if strategy is not None:
        if args.start:
            client.start_race(code)
        return finish_play(asyncio.run(bot.play_race(client, code, strategy, out, timeout=args.timeout)))
    asyncio.run(follow_race(client, code, out, start=args.start))
    return 0


def finish_play(game: dict) -> int:
    """The exit status of a played race: 0 for a win, 1 else."""
    return 0 if game["status"] == "won" else 1


# --- challenges -------------------------------------------------------------------------------


def challenge_line(challenge, me: str | None) -> str:
    other = challenge.challenger if challenge.challenged == me else challenge.challenged
    way = "from" if challenge.challenged == me else "to"
    race = f"  race {challenge.code}" if challenge.code else ""
    return f"{challenge.id:>6}  {way} {other:<20} {challenge.deal or 'random':<16} {challenge.status}{race}"


def cmd_challenges(args, out: TextIO) -> int:
    client = make_client(args)
    me = client.me()["username"]
    listed = client.challenges()
    for heading in ("received", "sent"):
        print(f"{heading}:", file=out)
        for challenge in listed[heading]:
            print(challenge_line(challenge, me), file=out)
        if not listed[heading]:
            print("  none", file=out)
    return 0


def cmd_challenge(args, out: TextIO) -> int:
    challenge = make_client(args).challenge(args.username, args.deal)
    print(f"challenge {challenge.id} sent to {challenge.challenged} on {challenge.deal or 'a random deal'}", file=out)
    return 0


def cmd_accept(args, out: TextIO) -> int:
    client = make_client(args)
    strategy = None
    if args.play:  # before accepting: no help on a race's deal once in the race
        asked = client.get_challenge(args.challenge_id)
        if args.play == "line" and not asked.deal:
            raise ApiError(0, "no_line", "a challenge on a random deal has no line to read before it is accepted: --play simple")
        strategy = bot.strategy_for(client, args.play, asked.deal, asked.raw.get("autoplay", "safe"))
    challenge = client.accept_challenge(args.challenge_id)
    print(f"accepted challenge {challenge.id} from {challenge.challenger}: race {challenge.code}", file=out, flush=True)
    if strategy is not None:
        return finish_play(asyncio.run(bot.play_race(client, challenge.code, strategy, out, timeout=args.timeout)))
    return 0


def cmd_decline(args, out: TextIO) -> int:
    challenge = make_client(args).decline_challenge(args.challenge_id)
    print(f"declined challenge {challenge.id} from {challenge.challenger}", file=out)
    return 0


# --- tokens -----------------------------------------------------------------------------------


def scope_list(text: str) -> list[str]:
    return [scope.strip() for scope in text.replace(",", " ").split() if scope.strip()]


def cmd_token(args, out: TextIO) -> int:
    client = make_client(args)
    if args.action == "create":
        token = client.create_token(args.name, scope_list(args.scopes))
        print(token.token, file=out)
        print(f"token {token.id} {token.name!r} with scopes {' '.join(token.scopes)}: its secret is shown only now", file=sys.stderr)
    elif args.action == "list":
        for token in client.tokens():
            print(f"{token.id:>6}  {token.name:<24} {' '.join(token.scopes):<24} last used {token.last_used_at or 'never'}", file=out)
    else:
        if args.id is None:
            raise ApiError(0, "invalid_request", "freecell token revoke needs the token's id (freecell token list)")
        client.revoke_token(args.id)
        print(f"token {args.id} revoked", file=out)
    return 0


# --- a player's games ---------------------------------------------------------------------------


def cmd_games(args, out: TextIO) -> int:
    """A player's finished games, from the export: ndjson (one game a line) or text (board, then line)."""
    client = make_client(args)
    filters = {name: getattr(args, name) for name in ("since", "until", "order", "max", "ids", "deal", "result")}
    if args.format == "text":
        out.write(client.export_games_text(args.username, **filters))
    else:
        for row in client.export_games(args.username, **filters):
            print(json.dumps(row), file=out)
    return 0


# --- export and verify ------------------------------------------------------------------------


def export_text(client: FreeCellClient, game_id: int) -> str:
    """The deal as Freecell Solver board text, a blank line, then the game's line of play (autoplay `none`)."""
    game = client.game(game_id)
    deal = client.deal(game.deal)
    line = client.history_text(game_id)
    return deal.board.rstrip("\n") + "\n\n" + line + "\n"


def cmd_export(args, out: TextIO) -> int:
    out.write(export_text(make_client(args), args.game_id))
    return 0


def cmd_verify(args, out: TextIO) -> int:
    client = make_client(args)
    result = client.verify(" ".join(args.moves), deal=args.deal, autoplay=args.autoplay)
    if result.valid:
        print(f"valid: {result.moves} moves, {'won' if result.won else 'not won'}", file=out)
        return 0
    error = result.error or {}
    print(f"invalid at move {error.get('index', 0) + 1} ({error.get('move')}): {error.get('code')}: {error.get('message')}", file=out)
    return 1


# --- the parser -------------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="freecell", description="FreeCell Online from the terminal.")
    top.add_argument("--url", help="the server (default: $FREECELL_URL, the saved one, or http://127.0.0.1:8000)")
    top.add_argument("--token", help="an API token (default: $FREECELL_TOKEN or the saved one)")
    sub = top.add_subparsers(dest="command", required=True)

    login = sub.add_parser("login", help="sign in through the browser (OAuth: no password here) and save the token")
    login.add_argument("--no-browser", action="store_true", help="print the link to open instead of opening a browser")
    login.add_argument(
        "--scopes", default=" ".join(oauth.DEFAULT_SCOPES), help="what the token may do: read, play, race, account (default: read play race)"
    )
    login.set_defaults(run=cmd_login)

    logout = sub.add_parser("logout", help="revoke the saved token and forget it")
    logout.set_defaults(run=cmd_logout)

    play = sub.add_parser("play", help="play a deal on a text board")
    play.add_argument("deal", nargs="?", default="random", help="ms:N, seed:S, a past daily:DATE, or random")
    play.add_argument("--autoplay", choices=["none", "safe"], default="safe")
    play.set_defaults(run=cmd_play)

    daily = sub.add_parser("daily", help="today's daily: show it, play it (ranked) or its leaderboard")
    daily.add_argument("action", nargs="?", choices=["show", "play", "leaderboard"], default="show")
    daily.add_argument("--date", help="leaderboard of another day (YYYY-MM-DD)")
    daily.add_argument("--scope", choices=["all", "friends"], default=None)
    daily.set_defaults(run=cmd_daily)

    race = sub.add_parser("race", help="follow a race live (or open one with --new)")
    race.add_argument("code", nargs="?", help="the race's join code")
    race.add_argument("--new", nargs="?", const="", default=None, metavar="DEAL", help="open a race (on DEAL, else a random deal)")
    race.add_argument("--join", action="store_true", help="join the race first")
    race.add_argument("--start", action="store_true", help="start it (owner only)")
    race.add_argument("--autoplay", choices=["none", "safe"], default="safe", help="with --new: the race's autoplay")
    race.add_argument("--play", choices=bot.STRATEGIES, help="play your game as a bot: the solver's line of the deal, or a simple strategy")
    race.add_argument("--timeout", type=float, default=120, help="with --play: seconds to wait for a frame (the start)")
    race.set_defaults(run=cmd_race)

    challenges = sub.add_parser("challenges", help="your challenges to race, received and sent")
    challenges.set_defaults(run=cmd_challenges)
    challenge = sub.add_parser("challenge", help="challenge a player to a race")
    challenge.add_argument("username")
    challenge.add_argument("--deal", help="the deal (else a random one)")
    challenge.set_defaults(run=cmd_challenge)
    accept = sub.add_parser("accept", help="accept a challenge: its race starts")
    accept.add_argument("challenge_id", type=int)
    accept.add_argument("--play", choices=bot.STRATEGIES, help="then play the race as a bot")
    accept.add_argument("--timeout", type=float, default=120, help="with --play: seconds to wait for a frame")
    accept.set_defaults(run=cmd_accept)
    decline = sub.add_parser("decline", help="decline a challenge")
    decline.add_argument("challenge_id", type=int)
    decline.set_defaults(run=cmd_decline)

    token = sub.add_parser("token", help="personal access tokens: create one with chosen scopes, list, revoke")
    token.add_argument("action", choices=["create", "list", "revoke"])
    token.add_argument("id", nargs="?", type=int, help="revoke: the token's id")
    token.add_argument("--name", default="freecell cli", help="create: the token's name")
    token.add_argument("--scopes", default="read", help="create: its scopes, among read, play, race, account (read,play)")
    token.set_defaults(run=cmd_token)

    games = sub.add_parser("games", help="a player's finished games with their lines (the export)")
    games.add_argument("username")
    games.add_argument("--format", choices=["ndjson", "text"], default="ndjson", help="one JSON game a line, or each board then its line")
    games.add_argument("--max", type=int, help="at most this many games")
    games.add_argument("--ids", help="only these game ids, separated by commas")
    games.add_argument("--deal", help="only games of this deal (ms:617, daily:2026-12-01)")
    games.add_argument("--result", choices=["won", "resigned"])
    games.add_argument("--since", help="created from this date or instant")
    games.add_argument("--until", help="created before this date (included) or instant")
    games.add_argument("--order", choices=["newest", "oldest"])
    games.set_defaults(run=cmd_games)

    export = sub.add_parser("export", help="a game as Freecell Solver board text plus its line of play")
    export.add_argument("game_id", type=int)
    export.set_defaults(run=cmd_export)

    verify = sub.add_parser("verify", help="check a line of moves from a deal")
    verify.add_argument("deal")
    verify.add_argument("moves", nargs="+", help="moves, as separate words or one quoted string")
    verify.add_argument("--autoplay", choices=["none", "safe"], default="none")
    verify.set_defaults(run=cmd_verify)
    return top


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    args = parser().parse_args(argv)
    try:
        return args.run(args, out)
    except ApiError as error:
        say_error(error, sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
