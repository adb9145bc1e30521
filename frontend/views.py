"""Page views of the web front end: thin shells that hand the browser ids and a first snapshot.

The pages talk to the REST API and the websockets themselves (static ES modules); these views only
authenticate, create a game where a page promises one, and embed what makes the first paint instant.
"""

from __future__ import annotations

import datetime as dt
import math
import secrets

from django.contrib import messages
from django.contrib.auth import login, logout, password_validation
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import NoReverseMatch, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_http_methods

from accounts import devices, guests, scopes
from accounts import services as accounts
from accounts.closing import is_closed_name
from accounts.selectors import player_named
from accounts.serializers import PasswordResetSerializer, RegisterSerializer
from accounts.services import sign_ins_changed
from accounts.views import check_credentials, client_address, reset_link
from freecell_site import api_docs
from freecell_site.errors import ServiceError
from freecell_site.throttling import AnonRateThrottle
from frontend import developer_docs as developer_docs_module
from frontend import getting_started
from frontend.charts import results_chart
from frontend.pictures import result_svg
from games.daily.services import neighbours, parse_date, published, today, was_made
from games.daily.sharing import SharedResult, format_elapsed, result_path, share_text, shared_result, summary
from games.engine import EngineError, parse_deal
from games.fairplay import selectors as fairplay_selectors
from games.fairplay import services as fairplay
from games.fairplay.measures import SIDE_WORDS
from games.models import Game
from games.play import lines, selectors, services
from games.play.payloads import game_payload, iso
from games.races.clock import ends_at
from games.races.selectors import get_race, race_of_game
from games.statistics import player_statistics as statistics_of

# The spec's Microsoft range; a number typed on the home page outside it is refused with this text.
MS_MAX = 8_589_934_591


#: Pages that are no place to land after signing in (the header's links carry the page they are on).
_ACCOUNT_PAGES = ("/login/", "/signup/", "/logout/", "/reset/")


def _next_url(request, default: str = "/") -> str:
    """The `next` target of a sign-in form, kept on this site and off the account pages."""
    target = request.POST.get("next") or request.GET.get("next") or ""
    # A path only: redirect() takes anything else ("abc") for a URL pattern's name (an error, or a way
    # round the account-pages rule with "page-logout").
    if not target.startswith("/") or target.startswith(_ACCOUNT_PAGES):
        return default
    if target and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return target
    return default


def _password_rules(*, new_account: bool = False) -> list[str]:
    """The password rules of AUTH_PASSWORD_VALIDATORS in words, shown before the first try; sign-up
    leaves out those about the password an account already has (`existing_accounts_only`)."""

    return [
        validator.get_help_text()
        for validator in password_validation.get_default_password_validators()
        if validator.get_help_text() and not (new_account and getattr(validator, "existing_accounts_only", False))
    ]


def _form(names: list[str], field_errors: dict[str, list[str]], helps: tuple[str, ...] = (), focus: str | None = None) -> dict:
    """What a sign-in form's template needs of each field: its errors, `aria-invalid`, the ids its
    `aria-describedby` names (its help text, then its error) and whether it takes the focus (the first
    field in error, else `focus`, else the first field). `""` in `field_errors` is an error of the whole
    form (the summary, id `form-errors`), tied to every field."""
    first = next((name for name in names if field_errors.get(name)), None) or focus or names[0]
    fields = {}
    for name in names:
        errors = field_errors.get(name, [])
        ids = [f"{name}-help"] if name in helps else []
        if errors:
            ids.append(f"{name}-error")
        elif field_errors.get(""):
            ids.append("form-errors")
        fields[name] = {
            "errors": errors,
            "invalid": bool(errors) or bool(field_errors.get("")),
            "describedby": " ".join(ids),
            "autofocus": name == first,
        }
    return fields


FAVICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="12" height="15" x="2" y=".5" rx="2" '
    'fill="#fff" stroke="#111"/><text x="8" y="12" font-size="10" text-anchor="middle" fill="#b3001b">\u2665</text></svg>'
)


def favicon(request):
    """Browsers ask for /favicon.ico whatever the page says; answer with the same small SVG."""
    response = HttpResponse(FAVICON, content_type="image/svg+xml")
    response["Cache-Control"] = "public, max-age=86400"
    return response


@ensure_csrf_cookie
def home(request):
    return render(request, "frontend/home.html", {"page": "home"})


@ensure_csrf_cookie
@require_http_methods(["GET", "POST"])
def signup(request):
    if request.method == "GET" and request.user.is_authenticated and not guests.is_guest(request.user):
        return redirect(_next_url(request))  # already signed in: nothing to do here
    errors: list[str] = []
    field_errors: dict[str, list[str]] = {}  # by field ("" for the form), each message also in `errors`
    username = email = ""
    if request.method == "POST":
        username = request.POST.get("username", "").strip()
        email = request.POST.get("email", "").strip()
        form = RegisterSerializer(
            data={"username": username, "password": request.POST.get("password", ""), "email": request.POST.get("email", "")}
        )
        if request.POST.get("password", "") != request.POST.get("password2", request.POST.get("password", "")):
            errors.append("The two passwords differ.")
            field_errors["password2"] = ["The two passwords differ."]
        elif form.is_valid():
            try:
                if guests.is_guest(request.user):
                    # The guest's account becomes the player's: its games stay theirs, nothing is copied.
                    user = guests.become_player(request.user, **form.validated_data)
                else:
                    user, _ = accounts.register(**form.validated_data, with_token=False)
            except ServiceError as exc:
                errors.append(exc.message)
                field_errors["username"] = [exc.message]
            else:
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
                return redirect(_next_url(request))
        else:
            for field, messages in form.errors.items():
                for message in messages:
                    errors.append(str(message) if field == "non_field_errors" else f"{field.capitalize()}: {message}")
                    field_errors.setdefault("" if field == "non_field_errors" else field, []).append(str(message))
    fields = _form(["username", "password", "password2", "email"], field_errors, helps=("username", "password", "email"))
    return render(
        request,
        "frontend/signup.html",
        {
            "page": "signup",
            "errors": errors,
            "fields": fields,
            "password_rules": _password_rules(new_account=True),
            "username": username,
            "email": email,
            "next": _next_url(request, ""),
        },
        status=400 if errors else 200,
    )


@ensure_csrf_cookie
@require_http_methods(["GET", "POST"])
def login_page(request):
    if request.method == "GET" and request.user.is_authenticated and not guests.is_guest(request.user):
        return redirect(_next_url(request))  # already signed in: nothing to do here
    errors: list[str] = []
    username = ""
    status = 200
    if request.method == "POST":
        username = request.POST.get("username", "").strip()
        try:
            # The API's check: failed attempts are counted per account and address, as for /api/auth/login/.
            user = check_credentials(request, username, request.POST.get("password", ""))
        except ServiceError as exc:
            errors.append(exc.message)
            status = exc.status
        else:
            guest = request.user if guests.is_guest(request.user) else None
            login(request, user)
            if guest is not None:
                guests.sign_in_over_guest(guest, user)  # the guest's games are the player's now
            response = redirect(_next_url(request))
            devices.remember(response, request, user)  # this browser signed in: a guesser cannot lock it out
            return response
    # A refused sign-in does not say which of the two was wrong: the message is tied to both fields, and
    # the password (the one to type again) takes the focus once a username is there.
    fields = _form(["username", "password"], {"": errors} if errors else {}, focus="password" if username else None)
    return render(
        request,
        "frontend/login.html",
        {"page": "login", "errors": errors, "fields": fields, "username": username, "next": _next_url(request, "")},
        status=status,
    )


@ensure_csrf_cookie
@require_http_methods(["GET", "POST"])
def logout_page(request):
    # Signing out changes state, so it takes a POST (the header's button); a GET shows that button.
    if request.method == "POST":

        user = request.user
        logout(request)
        if user.is_authenticated:
            sign_ins_changed(user)  # after the session is flushed: its sockets close
        return redirect("home")
    return render(request, "frontend/logout.html", {"page": "logout"})


@ensure_csrf_cookie
@require_http_methods(["GET", "POST"])
def password_reset_request(request):
    """"Forgot your password?": an e-mail address, then the reset e-mail, as POST
    /api/auth/password/reset/ sends it (same service, same throttle); the answer is the same whether or
    not an account has the address, so the page reveals no accounts."""

    errors: list[str] = []
    email = ""
    status = 200
    if request.method == "POST":
        email = request.POST.get("email", "").strip()
        form = PasswordResetSerializer(data={"email": email})
        if not AnonRateThrottle().allow_request(request, None):
            errors.append("Too many requests from your address: wait a minute and try again.")
            status = 429
        elif not form.is_valid():
            errors.extend(str(message) for messages in form.errors.values() for message in messages)
            status = 400
        else:
            accounts.send_reset_links(form.validated_data["email"], lambda uid, token: reset_link(request, uid, token))
            return render(request, "frontend/reset_sent.html", {"page": "reset", "email": email})
    fields = _form(["email"], {"email": errors} if errors else {})  # the form's one field
    context = {"page": "reset", "errors": errors, "fields": fields, "email": email}
    return render(request, "frontend/reset_request.html", context, status=status)


@ensure_csrf_cookie
@require_http_methods(["GET", "POST"])
def password_reset(request, uid: str, token: str):
    """The page the password-reset e-mail links to: a new password twice, then the player is signed in.

    The password is set by the same service as POST /api/auth/password/reset/confirm/ (validators,
    revoked API token); signing in also spends the link, as the token is of the last login.
    """

    if accounts.user_of_reset_link(uid, token) is None:
        return render(request, "frontend/reset.html", {"page": "reset", "valid": False}, status=400)
    errors: list[str] = []
    field_errors: dict[str, list[str]] = {}
    if request.method == "POST":
        password = request.POST.get("password", "")
        if password != request.POST.get("password2", ""):
            errors.append("The two passwords differ.")
            field_errors["password2"] = errors[-1:]
        else:
            try:
                user = accounts.reset_password(uid=uid, token=token, new_password=password)
            except ServiceError as exc:
                errors.append(exc.message)
                field_errors["password"] = errors[-1:]
            else:
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
                return redirect("home")
    context = {
        "page": "reset",
        "valid": True,
        "errors": errors,
        "fields": _form(["password", "password2"], field_errors, helps=("password",)),
        "password_rules": _password_rules(),
    }
    return render(request, "frontend/reset.html", context, status=400 if errors else 200)


def _deal_from_path(text: str, *, draw: bool = True) -> str:
    """A deal id from the URL: `ms:N`, `seed:S`, a bare Microsoft number, or `random` (a fresh seed;
    with `draw` False, "random" itself), in any case (`MS:1` typed or pasted is `ms:1`)."""
    text = "".join(text.split()).lower()  # "ms: 617" as typed is ms:617
    if text == "random":
        return f"seed:{secrets.randbits(64)}" if draw else text
    if text.isdigit():
        text = f"ms:{text}"
    return str(parse_deal(text))


@require_http_methods(["GET", "POST"])
def play_form(request):
    """The home page's "Deal" form: `deal` (a number, ms:N, seed:S, random or blank for random),
    `autoplay=none`, and a `random` button. POSTed, it deals at once; a GET (the address typed, or an
    old link) goes on to the deal's start page, which deals only when its button is pressed."""
    data = request.POST if request.method == "POST" else request.GET
    deal = "random" if "random" in data else "".join(data.get("deal", "").split()) or "random"
    autoplay = data.get("autoplay")
    try:
        deal = _deal_from_path(deal, draw=False)  # checked here: "a/b", "." or ".." would make another path
        target = reverse("page-play", kwargs={"deal": deal})
    except (EngineError, NoReverseMatch) as exc:
        message = str(exc) if isinstance(exc, EngineError) else f"{deal!r} is not a deal id"
        return render(request, "frontend/error.html", {"title": "No such deal", "message": message}, status=404)
    if request.method == "POST":
        return _deal(request, deal, autoplay)
    return redirect(f"{target}?autoplay={autoplay}" if autoplay in Game.Autoplay.values else target)


def race_form(request):
    """The home page's "join a race" form without script: `?code=`."""
    code = "".join(ch for ch in request.GET.get("code", "") if ch.isalnum()).upper()[:16]
    if not code:
        return redirect("home")
    return redirect("page-race", code=code)


@require_http_methods(["GET", "POST"])
def play(request, deal: str):
    """The start page of `deal`: a GET shows the deal and a Deal button, whose POST creates a fresh
    casual game and opens its table. A GET creates nothing, so that a browser prefetching the link,
    or a link or image on another site, cannot leave stray games in the player's list."""
    try:
        deal_id = _deal_from_path(deal, draw=False)
    except EngineError as exc:
        return render(request, "frontend/error.html", {"title": "No such deal", "message": str(exc)}, status=404)
    if request.method == "POST":
        return _deal(request, deal_id, request.POST.get("autoplay"))
    refusal = _daily_refusal(request, deal_id)
    if refusal is not None:
        return refusal
    autoplay = "none" if request.GET.get("autoplay") == "none" else "safe"
    return render(request, "frontend/play.html", {"deal": deal_id, "autoplay": autoplay})


def _daily_refusal(request, deal_id: str):
    """A daily is ranked while its day lasts (on to /daily/); past ones are played like any deal, and
    one to come, or a day without one, is not there to start. None for any other deal."""
    if not deal_id.startswith("daily:"):
        return None

    date = dt.date.fromisoformat(deal_id[6:])
    if date == today():
        return redirect("page-daily")
    try:
        published(date)
    except ServiceError as exc:
        return render(request, "frontend/error.html", {"title": "Cannot start that game", "message": exc.message}, status=exc.status)
    return None


def _deal(request, deal: str, autoplay: str | None):
    """Creates the player's fresh casual game of `deal` (`random`: a fresh seed) and opens its table; a
    visitor becomes a guest first (accounts/guests.py), signed in to this browser."""
    deal_id = _deal_from_path(deal)
    refusal = _daily_refusal(request, deal_id)
    if refusal is not None:
        return refusal
    player = request.user if request.user.is_authenticated else None
    try:
        # A guest and its first game are made together: a deal refused leaves no guest behind.
        with transaction.atomic():
            if player is None:
                guests.check_new_guest_allowed(client_address(request))
                player = guests.new_guest()
            game = services.create_game(player=player, deal=deal_id, autoplay=autoplay if autoplay in Game.Autoplay.values else "safe")
    except ServiceError as exc:
        return render(request, "frontend/error.html", {"title": "Cannot start that game", "message": exc.message}, status=exc.status)
    if not request.user.is_authenticated:
        login(request, player, backend="django.contrib.auth.backends.ModelBackend")
    if guests.is_guest(player):
        # A guest's games are kept while the browser keeps its session: each new game renews it.
        request.session.set_expiry(dt.timedelta(days=guests.GUEST_DAYS))
    return redirect("page-game", game_id=game.pk)


def _visible_game(request, game_id: int) -> Game:
    game = selectors.visible_game(game_id, request.user)
    if game is None:
        raise Http404("no such game")
    return game


def _me(request) -> str:
    """The signed-in player's name for a page's script; "" for a visitor and for a guest, whom the pages
    other than a game's treat as a visitor (no daily, races or friends: accounts/guests.py)."""
    return request.user.username if request.user.is_authenticated and not guests.is_guest(request.user) else ""


def _player(request) -> str:
    """The name a game's page compares with its player's: a guest's too, whose game it is."""
    return request.user.username if request.user.is_authenticated else ""


def _invite(request, title: str, message: str, links: list[tuple[str, str]] = ()):
    """The page that invites a visitor or a guest to sign up where only players go."""
    context = {"title": title, "message": message, "links": list(links), "guest": guests.is_guest(request.user)}
    return render(request, "frontend/invite.html", context)


@ensure_csrf_cookie
def game(request, game_id: int):
    found = _visible_game(request, game_id)
    payload = game_payload(found)
    race = race_of_game(found)
    # `race`: a race's game is never restarted (the page's Restart says so).
    boot = {"game": payload, "me": _player(request), "endsAt": iso(ends_at(race)) if race else None, "race": race.code if race else None}
    # A numbered or seeded deal has a records board: its table shows the record to beat.
    records = parse_deal(payload["deal"]).kind in ("ms", "seed")
    context = {"page": "game", "game": payload, "boot": boot, "race_code": race.code if race else None, "records": records}
    return render(request, "frontend/game.html", context)


@ensure_csrf_cookie
def daily(request):
    """Today's ranked game (created by the page through POST /api/daily/play/), then the leaderboard; a
    visitor or a guest is invited to sign up (the day's leaderboard is open to all)."""
    if not request.user.is_authenticated or guests.is_guest(request.user):
        message = (
            "The daily is ranked: the same deal for everyone today, one game each, on the day's leaderboard, "
            "the month's ladder and your streak. Sign up or sign in to play it."
        )
        return _invite(request, "Today's daily", message, [(f"/daily/{today().isoformat()}/", "Today's leaderboard")])
    return render(request, "frontend/daily.html", {"page": "daily", "boot": {"date": today().isoformat(), "me": _me(request)}})


@ensure_csrf_cookie
def daily_day(request, date: str):
    try:
        day = parse_date(date)  # YYYY-MM-DD only, as the API takes it
    except ServiceError:
        raise Http404("not a date") from None
    if day > today():
        return render(
            request,
            "frontend/error.html",
            {"title": "Not yet", "message": f"The daily of {day.isoformat()} has not begun."},
            status=404,
        )
    # Today's day page is there even before the sweeper has made its daily (its script says it is being
    # prepared); a past day without one has no page, but links to the nearest days that have one, so the
    # day pages' previous/next links never dead-end.
    if day < today() and not was_made(day):
        before, after = neighbours(day)
        after = after if after != today() else None
        links = [(f"/daily/{d.isoformat()}/", label.format(d.isoformat())) for d, label in ((before, "← {}"), (after, "{} →")) if d]
        return render(
            request,
            "frontend/error.html",
            {
                "title": "No daily that day",
                "message": f"There was no daily challenge on {day.isoformat()}.",
                "links": [*links, ("/daily/", "Today's daily")],
            },
            status=404,
        )
    # The neighbouring days the page links to: the nearest ones that have a daily (today's always has
    # a page), so "← previous" on a new site's first day is no link to a 404.
    current = today()
    before, after = neighbours(day)
    boot = {
        "date": day.isoformat(),
        "today": current.isoformat(),
        "me": _me(request),
        "prev": before.isoformat() if before else None,
        "next": after.isoformat() if after else None,
    }
    return render(request, "frontend/daily_day.html", {"page": "daily-day", "date": day.isoformat(), "boot": boot})


def _shared_result(request, date: str, username: str) -> SharedResult | HttpResponse:
    """The shared result a result page shows, or the error page to answer instead."""
    try:
        day = parse_date(date)  # YYYY-MM-DD only, as the API takes it
    except ServiceError:
        raise Http404("not a date") from None
    player = player_named(username)
    try:
        return shared_result(day, player, request.user)
    except ServiceError as exc:
        title = "Still being played" if exc.code == "game_not_finished" else "No such result"
        message = f"{username}'s daily of {day.isoformat()} is still being played: its result shows here once it ends." if exc.code == "game_not_finished" else exc.message
        links = [(f"/daily/{day.isoformat()}/", "The day's leaderboard")] if day <= today() else []
        return render(request, "frontend/error.html", {"title": title, "message": message, "links": links}, status=exc.status)


def daily_result(request, date: str, username: str):
    """A shared daily result: works for anyone at once, tells nothing of the deal (the numbers and a
    picture of them), and leads to the replay once the day is over (games.daily.sharing)."""
    result = _shared_result(request, date, username)
    if isinstance(result, HttpResponse):
        return result
    page_url = request.build_absolute_uri(result_path(result.date, result.username))
    context = {
        "page": "daily-result",
        "result": result,
        "date": result.date.isoformat(),
        "picture": mark_safe(result_svg(result)),  # built with every text escaped (frontend.pictures)
        "summary": f"{result.username}: {summary(result)}",
        "text": share_text(result, page_url),
        "time": format_elapsed(result.elapsed_ms),
        "page_url": page_url,
        "ends_at": iso(result.day_ends_at),
        "ends_at_text": f"{result.day_ends_at:%H:%M} UTC on {result.day_ends_at:%Y-%m-%d}",
        "is_mine": request.user.is_authenticated and request.user.username == result.username,
    }
    return render(request, "frontend/daily_result.html", context)


def daily_result_picture(request, date: str, username: str):
    """The shared result's picture on its own (an SVG image)."""
    result = _shared_result(request, date, username)
    if isinstance(result, HttpResponse):
        return result
    response = HttpResponse(result_svg(result), content_type="image/svg+xml")
    response["Cache-Control"] = "public, max-age=60"  # a rank moves as the day goes on
    return response


@ensure_csrf_cookie
def race(request, code: str):
    try:
        get_race(code)
    except ServiceError:
        return render(
            request, "frontend/error.html", {"title": "No such race", "message": f"No race has the code {code}."}, status=404
        )
    context = {"page": "race", "code": code, "boot": {"code": code, "me": _me(request)}, "guest": guests.is_guest(request.user)}
    return render(request, "frontend/race.html", context)


@login_required
@ensure_csrf_cookie
def challenges(request):
    """Send challenges, answer those received, and be taken to the race once one is accepted (a guest is
    asked to sign up). `?to=<username>` fills the player to challenge."""
    boot = {"me": _me(request), "to": request.GET.get("to", "")[:150]}
    return render(request, "frontend/challenges.html", {"page": "challenges", "boot": boot})


@ensure_csrf_cookie
def profile(request, username: str):
    user = player_named(username)
    if user is not None and guests.is_guest(user) and user.pk != request.user.pk:
        user = None  # a guest has no public page: only the guest sees its own statistics
    if user is None:
        if is_closed_name(username):  # a closed account's games link here from leaderboards and replays
            message = "This player closed their account. Their finished games stay in leaderboards and replays."
            return render(request, "frontend/error.html", {"title": "Account closed", "message": message}, status=404)
        raise Http404("no such player")
    # `today`: a daily won today cannot be raced as a ghost before its day is over.
    boot = {"username": user.username, "me": _me(request), "today": today().isoformat()}
    context = {**_statistics_context(user), "page": "profile", "player": user.username, "shown_name": guests.shown_name(user.username), "guest": guests.is_guest(user), "boot": boot}
    return render(request, "frontend/profile.html", context)


def _statistics_context(user) -> dict:
    """What the profile's statistics panel draws (frontend/_statistics.html): the numbers, times in words,
    the chart's geometry and the deals beside their records."""
    found = statistics_of(user)
    shown = lambda ms: format_elapsed(ms) if ms is not None else "—"  # noqa: E731
    deals = [
        {**deal, "best_time": shown(deal["best_time_ms"]), "record_time": shown(deal["record"]["elapsed_ms"]) if deal["record"] else ""}
        for deal in found["deals"]
    ]
    return {
        "statistics": found,
        "times": {"best": shown(found["time_ms"]["best"]), "mean": shown(found["time_ms"]["mean"])},
        "chart": results_chart(found["by_day"]),
        "deals": deals,
    }


@login_required
@ensure_csrf_cookie
def account(request):
    """One's own settings: display name and bio, table, e-mail address, password, API tokens, closing
    the account (the page's script calls the REST API). A guest has none: sign up instead."""
    if guests.is_guest(request.user):
        return redirect(f"{reverse('page-signup')}?next=/account/")
    token_scopes = list(scopes.DESCRIPTIONS.items())
    return render(request, "frontend/account.html", {"page": "account", "password_rules": _password_rules(), "token_scopes": token_scopes})


@ensure_csrf_cookie
def leaderboards(request):
    """The boards beyond the day: deal records, the month's ladder and streaks (the page's script
    reads them from the REST API)."""
    return render(request, "frontend/leaderboards.html", {"page": "leaderboards", "boot": {"month": today().strftime("%Y-%m"), "me": _me(request)}})


def developers(request):
    """Getting started with the API: from a token to a played move, a stream and a race."""
    site = request.build_absolute_uri("/").rstrip("/")
    steps = [
        {
            "number": number,
            "step": step,
            "text": getting_started.inline_code(step.text),
            "command": step.command.replace("{site}", site),
            "program": getting_started.PROGRAMS.get(step.command),
            "answer": getting_started.shown(step.answer),
            "multiline": "\n" in getting_started.shown(step.answer),
        }
        for number, step in enumerate(getting_started.STEPS, start=1)
    ]
    grammar = {
        "notation": [getting_started.inline_code(rule) for rule in api_docs.NOTATION],
        "deals": [getting_started.inline_code(rule) for rule in api_docs.DEAL_IDS],
    }
    return render(request, "frontend/developers.html", {"page": "developers", "steps": steps, **grammar})


def developer_docs(request):
    """The repository's docs served to developers: the list."""
    docs = [{"name": name, "title": developer_docs_module.title_of(name), "url": developer_docs_module.url_of(name)} for name in developer_docs_module.names()]
    return render(request, "frontend/developer_docs.html", {"page": "developers", "docs": docs})


def developer_doc(request, name: str):
    """One doc of the repository (docs/<name>.md), rendered; an unknown name is 404."""
    if not developer_docs_module.exists(name):
        raise Http404("no such doc")
    context = {"page": "developers", "title": developer_docs_module.title_of(name), "html": developer_docs_module.render(name)}
    return render(request, "frontend/developer_doc.html", context)


@ensure_csrf_cookie
def replay(request, game_id: int):
    found = _visible_game(request, game_id)
    deal = found.deal
    # Safe autoplay may move cards on the deal itself before the first action: the history's actions
    # start after it, so the page gets that prelude with the layout.
    prelude = lines.prelude(found.line)
    payload = game_payload(found)
    return render(
        request,
        "frontend/replay.html",
        {
            "page": "replay",
            "game": payload,
            "boot": {"game": payload, "columns": deal.columns, "prelude": prelude, "me": _me(request)},
        },
    )



# --- the moderators' pages (fair play, docs/fair-play.md) --------------------------------------------------------


def _staff_only(request) -> None:
    """The moderators' pages are staff's: anyone else gets the site's 404, as if there were none."""
    if not (request.user.is_authenticated and request.user.is_staff):
        raise Http404("no such page")


@ensure_csrf_cookie
def staff_reviews(request):
    """The open review cases, oldest first: results flagged by a signal or reported by players."""
    _staff_only(request)
    found = fairplay_selectors.queue()
    cases = [{**line, "time": format_elapsed(line["elapsed_ms"]) if line["elapsed_ms"] is not None else "—"} for line in found["cases"]]
    return render(request, "frontend/staff_reviews.html", {"page": "staff", "count": found["count"], "cases": cases})


#: The timing chart's drawing: its size, margins and the log scale's floor (a gap under 10 ms draws as 10).
CHART = {"width": 720, "height": 240, "left": 56, "right": 12, "top": 12, "bottom": 30, "floor_ms": 10}
#: The signals drawn on the chart as lines across it: their thresholds are times between actions.
CHART_LINES = {"pace_ms": "pace floor (average)", "first_move_ms": "first move"}


def _ms_words(ms: float) -> str:
    return f"{ms / 1000:g} s" if ms >= 1000 else f"{ms:g} ms"


def timing_chart(actions: list[dict], signals: list[dict]) -> dict:
    """An SVG bar chart of each action's gap in ms (the first: from the board shown), on a log scale, with
    the thresholds of the signals that are times: the geometry, drawn by staff_review.html."""
    c = CHART
    plot_w = c["width"] - c["left"] - c["right"]
    plot_h = c["height"] - c["top"] - c["bottom"]
    biggest = max([a["gap_ms"] for a in actions] + [s["threshold"] for s in signals if s["signal"] in CHART_LINES] + [1000])
    low = math.log10(c["floor_ms"])
    high = math.ceil(math.log10(max(biggest, c["floor_ms"] * 10)))

    def y(ms: float) -> float:
        share = (math.log10(max(ms, c["floor_ms"])) - low) / (high - low)
        return round(c["top"] + plot_h * (1 - share), 1)

    bottom = c["top"] + plot_h
    step = plot_w / max(1, len(actions))
    bars = []
    for i, action in enumerate(actions):
        top = min(y(action["gap_ms"]), bottom - 1)  # a gap at the floor still shows a sliver
        kind = "undo" if action["kind"] == "undo" else f"move {action['via'] if action['via'] in ('web', 'api') else 'unknown'}"
        bars.append({
            "x": round(c["left"] + i * step + step * 0.1, 1),
            "y": top,
            "width": round(max(0.6, step * 0.8), 2),
            "height": round(bottom - top, 1),
            "kind": kind,
            "title": f"#{action['index'] + 1} {action['kind']} {action['move']} ({action['via']}): {action['gap_ms']} ms",
        })
    grid = [{"y": y(10**power), "label": _ms_words(10**power)} for power in range(int(low), high + 1)]
    lines = [
        {"y": y(s["threshold"]), "label": f"{CHART_LINES[s['signal']]} {_ms_words(s['threshold'])}", "signal": s["signal"]}
        for s in signals
        if s["signal"] in CHART_LINES
    ]
    gaps = sorted(a["gap_ms"] for a in actions)
    summary = "No actions." if not gaps else (
        f"Time before each of {len(gaps)} actions, log scale: from {gaps[0]} ms to {gaps[-1]} ms, median {gaps[len(gaps) // 2]} ms"
        + "".join(f"; {line['label']} marked" for line in lines)
    )
    return {**c, "plot_right": c["width"] - c["right"], "bottom_y": bottom, "bars": bars, "grid": grid, "lines": lines, "summary": summary}


@ensure_csrf_cookie
@require_http_methods(["GET", "POST"])
def staff_review(request, game_id: int):
    """One case as a moderator reads it (games.fairplay.selectors.case): the result, its timing chart, the
    signals, the reports and the verdict so far; its forms clear or reject the result, and mark or unmark
    the player's account, each with a note. A POST redirects back here with a message."""
    _staff_only(request)
    found = fairplay_selectors.case(game_id)
    if found is None:
        raise Http404("no such game")
    line = found["line"]
    if request.method == "POST":
        action = request.POST.get("action", "")
        note = request.POST.get("note", "").strip()[:500]
        player = found["player"]
        try:
            if action == "clear":
                fairplay.clear(game_id, moderator=request.user, note=note)
                messages.success(request, f"Cleared: game {game_id} ranks on its boards.")
            elif action == "reject":
                fairplay.reject(game_id, moderator=request.user, note=note)
                messages.success(request, f"Rejected: game {game_id} is off the boards.")
            elif action == "mark":
                taken = fairplay.mark_account(player, moderator=request.user, note=note)
                messages.success(request, f"Marked {player.username}: {taken} result{'' if taken == 1 else 's'} taken off the boards.")
            elif action == "unmark":
                given = fairplay.unmark_account(player, moderator=request.user, note=note)
                messages.success(request, f"Unmarked {player.username}: {given} result{'' if given == 1 else 's'} back on the boards.")
            else:
                messages.error(request, "Nothing done: choose clear, reject, mark or unmark.")
        except ServiceError as exc:
            messages.error(request, exc.message)
        return redirect("page-staff-review", game_id=game_id)
    signals = [{**s, "side": SIDE_WORDS[s["flags_when"]], "measured": s["value"] is not None} for s in found["signals"]]
    context = {
        "page": "staff",
        "line": line,
        "time": format_elapsed(line["elapsed_ms"]) if line["elapsed_ms"] is not None else "—",
        "case": found["case"],
        "profile": found["profile"],
        "par": found["par"],
        "actions": found["actions"],
        "signals": signals,
        "reports": found["reports"],
        "chart": timing_chart(found["actions"], found["signals"]),
        "status": found["status"],
    }
    return render(request, "frontend/staff_review.html", context)
