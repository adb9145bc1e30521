"""Token authentication for REST and websockets alike (a key names its token and an active user,
found in one query), and whether a socket's sign-in (session or token) still holds."""

from __future__ import annotations

from importlib import import_module
from types import SimpleNamespace

from django.conf import settings
from django.contrib.auth import get_user
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.permissions import SAFE_METHODS

from accounts.permissions import UNDECLARED, scope_needed
from accounts.scopes import DESCRIPTIONS, READ, SCOPES
from accounts.tokens import note_use, token_of_key


def user_of_token(key: str):
    """The active user whose personal access token is `key`, or None."""
    token = token_of_key(key)
    return token.user if token is not None else None


class TokenAuthentication(authentication.TokenAuthentication):
    """`Authorization: Bearer <key>` or `Authorization: Token <key>`: a personal access token.
    `request.auth` is the AccessToken, whose `scopes` the views' scope check reads
    (accounts.permissions.TokenScopes)."""

    keywords = ("Bearer", "Token")

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() not in {word.lower().encode() for word in self.keywords}:
            return None  # another scheme (or none): the session may still sign the request in
        if len(header) != 2:
            raise exceptions.AuthenticationFailed("Invalid token header: give one key after the word Bearer or Token.")
        try:
            key = header[1].decode("ascii")
        except UnicodeError:
            raise exceptions.AuthenticationFailed("Invalid token.") from None
        return self.authenticate_credentials(key)

    def authenticate_credentials(self, key):
        token = token_of_key(key)
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid token: it is wrong, or was revoked.")
        note_use(token)
        return token.user, token

    def authenticate_header(self, request):
        return "Bearer"


def still_signed_in(how: str, key: str, user_id: int) -> bool:
    """Whether a sign-in still holds for the active user `user_id`: an API token (`how` "token", `key`
    the token) or a session (`how` "session", `key` its session key), as a request made with it now
    would find.

    A socket signs in once, when it opens; this is how it learns that its sign-in ended since (a
    logout, a new password, a revoked token, a deactivated account)."""
    if how == "token":
        user = user_of_token(key)
    else:
        # Django's own check of a request's session (its user, backend and password hash).
        user = get_user(SimpleNamespace(session=import_module(settings.SESSION_ENGINE).SessionStore(key)))
    return user is not None and user.is_authenticated and user.is_active and user.pk == user_id


class TokenScheme(OpenApiAuthenticationExtension):
    """The schema's words for TokenAuthentication: a token sent as a bearer token (`tokenAuth`) and how an
    app gets one (`oauth2`, the authorization code flow with its scopes), and for each operation the
    scope it needs, from the view's `scopes` (accounts.permissions.scope_needed).

    OpenAPI 3.0 lets only an oauth2 requirement name scopes: `{"oauth2": ["play"]}` says what a token
    needs, whichever way it was made; `tokenAuth`'s requirement is bare, as the standard asks."""

    target_class = TokenAuthentication
    name = ["tokenAuth", "oauth2"]
    priority = 1  # over drf-spectacular's own scheme for DRF's TokenAuthentication, which says `Token` only

    def get_security_requirement(self, auto_schema):
        needed = scope_needed(auto_schema.view, auto_schema.method)
        if needed is UNDECLARED:  # the permission fails closed the same way
            needed = [READ] if auto_schema.method in SAFE_METHODS else list(SCOPES)
        return [{"tokenAuth": []}, {"oauth2": [] if needed is None else [needed] if isinstance(needed, str) else needed}]

    def get_security_definition(self, auto_schema):
        return [
            {
                "type": "http",
                "scheme": "bearer",
                "description": "A token sent as `Authorization: Bearer <token>` (`Authorization: Token <token>` is "
                "accepted too): a personal access token (POST /api/tokens/ or the account page), or one an app got "
                "through OAuth (`oauth2`). Its scopes limit what it may do, as each operation's `oauth2` requirement "
                "names: a request outside them is refused with 403 `missing_scope`. What anyone may read needs no "
                "scope: a token without `read` reads it as an anonymous visitor would.",
            },
            {
                "type": "oauth2",
                "description": "OAuth 2.0 authorization code with PKCE (S256) for any app, without registration: "
                "any `client_id`, a `redirect_uri` that is https or http to a loopback address, and the player's "
                "consent on the site. The token answered is a bearer token like any other, listed and revocable "
                "in GET /api/tokens/.",
                "flows": {
                    "authorizationCode": {
                        "authorizationUrl": "/oauth/authorize/",
                        "tokenUrl": "/oauth/token/",
                        "scopes": dict(DESCRIPTIONS),
                    }
                },
            },
        ]
