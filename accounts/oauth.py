"""OAuth 2.0 for apps of other developers (docs/tokens.md, "Apps of other developers"): the authorization code grant with PKCE
(S256) for public clients, any `client_id` welcome without registration, run by django-oauth-toolkit
and oauthlib; the token an app gets is one of our own personal access tokens.

django-oauth-toolkit keeps its Application and Grant rows (an Application is made on first sight of a
`client_id`, public and for the authorization code only); the access token is an `AccessToken` of ours
(an `fco_` key, named after the `client_id`, with the scopes the player granted and an end), so
every sign-in path, scope check, list and revocation treats it as any other token (docs/tokens.md says
why it is not django-oauth-toolkit's own token).
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from oauth2_provider.models import get_application_model, get_grant_model
from oauth2_provider.oauth2_validators import OAuth2Validator
from oauthlib.oauth2 import AuthorizationEndpoint, BearerToken, TokenEndpoint
from oauthlib.oauth2.rfc6749 import errors
from oauthlib.oauth2.rfc6749.grant_types import AuthorizationCodeGrant

from accounts import services
from freecell_site.errors import ServiceError

#: What a `client_id` may be: it names the app's token in the player's list (at most 60 characters),
#: so printable ASCII without spaces, as Lichess takes any such name.
CLIENT_ID = re.compile(r"[\x21-\x7e]{1,60}")
#: The longest redirect_uri taken (the Grant stores it, and the page shows it).
MAX_REDIRECT_URI = 1000
#: An S256 code_challenge: base64url of 32 bytes, unpadded (RFC 7636 section 4.2).
S256_CHALLENGE = re.compile(r"[A-Za-z0-9_-]{43}")
#: The loopback hosts a native app listens on (RFC 8252 section 7.3): plain http is fine there.
LOOPBACK_NAMES = {"localhost"}


def acceptable_client_id(client_id) -> bool:
    return isinstance(client_id, str) and CLIENT_ID.fullmatch(client_id) is not None


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def acceptable_redirect_uri(uri) -> bool:
    """An `https` URL, or an `http` one to a loopback address (a command line's listener); no user
    name, no fragment (RFC 6749 section 3.1.2)."""
    if not isinstance(uri, str) or not uri or len(uri) > MAX_REDIRECT_URI or not uri.isascii():
        return False
    if any(ch.isspace() or ord(ch) < 0x20 for ch in uri):
        return False
    try:
        parts = urlsplit(uri)
        host = parts.hostname or ""
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError:
        return False
    if not host or parts.username is not None or parts.password is not None or parts.fragment or "#" in uri:
        return False
    if parts.scheme == "https":
        return True
    return parts.scheme == "http" and is_loopback(host)


def origin_of(uri: str) -> str:
    """`scheme://host[:port]` of an acceptable redirect_uri, as a Content-Security-Policy source."""
    parts = urlsplit(uri)
    return f"{parts.scheme}://{parts.netloc}"


def token_lifetime() -> dt.timedelta:
    return dt.timedelta(seconds=settings.OAUTH2_PROVIDER["ACCESS_TOKEN_EXPIRE_SECONDS"])


def s256_only(request) -> dict:
    """oauthlib's check before an authorization (`pre_auth`): a code challenge is needed, made by S256
    (the `plain` method would send the verifier itself through the browser)."""
    if not request.code_challenge:
        raise errors.MissingCodeChallengeError(request=request)
    if request.code_challenge_method != "S256":
        raise errors.UnsupportedCodeChallengeMethodError(
            description="code_challenge_method must be S256 (the SHA-256 of the code_verifier, base64url)", request=request
        )
    if not S256_CHALLENGE.fullmatch(request.code_challenge):
        raise errors.InvalidRequestError(
            description="code_challenge must be the base64url of the code_verifier's SHA-256, without padding: 43 characters",
            request=request,
        )
    return {}


class AnyPublicClient(OAuth2Validator):
    """django-oauth-toolkit's validator, for apps nobody registered: an unknown `client_id` becomes a
    public Application on first sight, its redirect_uri checked by rule rather than against a list;
    the token made on the exchange is one of ours."""

    def validate_client_id(self, client_id, request, *args, **kwargs):
        # Called at the authorization endpoint only, where the player is signed in (the view asks
        # first): nobody makes Application rows without an account.
        if self._load_application(client_id, request) is not None:
            return True
        if not acceptable_client_id(client_id):
            return False
        application, _ = get_application_model().objects.get_or_create(
            client_id=client_id,
            defaults={
                "name": client_id,
                "client_type": "public",
                "authorization_grant_type": "authorization-code",
                "redirect_uris": "",
                "client_secret": "",
                "hash_client_secret": False,
            },
        )
        request.client = application
        return True

    def validate_redirect_uri(self, client_id, redirect_uri, request, *args, **kwargs):
        if request.client.redirect_uris:  # an app registered in the admin keeps its own list
            return super().validate_redirect_uri(client_id, redirect_uri, request, *args, **kwargs)
        return acceptable_redirect_uri(redirect_uri)

    def get_default_redirect_uri(self, client_id, request, *args, **kwargs):
        # No list of redirect URIs to take one from: the request must name it (else invalid_request).
        uris = request.client.redirect_uris.split() if request.client else []
        return uris[0] if uris else None

    def save_bearer_token(self, token, request, *args, **kwargs):
        """Spends the code and makes our token in its place (one transaction): of two exchanges of
        one code, one gets a token and the other `invalid_grant`."""
        with transaction.atomic():
            spent, _ = get_grant_model().objects.filter(code=request.code, application=request.client).delete()
            if not spent:
                raise errors.InvalidGrantError(description="the code was already exchanged", request=request)
            try:
                made = services.issue_token(
                    request.user,
                    name=request.client.client_id[:60],
                    scopes=(token.get("scope") or "").split(),
                    expires_at=timezone.now() + dt.timedelta(seconds=int(token["expires_in"])),
                )
            except ServiceError as error:  # too_many_tokens
                raise errors.InvalidGrantError(description=error.message, request=request) from None
        token["access_token"] = made.key
        token["scope"] = " ".join(made.scopes)
        token.pop("refresh_token", None)

    def invalidate_authorization_code(self, client_id, code, request, *args, **kwargs):
        """The code was spent with the token made (save_bearer_token)."""


class CodeWithPkceServer(AuthorizationEndpoint, TokenEndpoint):
    """oauthlib's endpoints for this one flow: response_type `code` and grant_type
    `authorization_code`, PKCE S256 required, no refresh token (an app signs the player in again
    when its token ends). Any other grant or response type is refused in RFC 6749's words."""

    def __init__(self, request_validator, token_expires_in=None, token_generator=None, refresh_token_generator=None, **kwargs):
        grant = AuthorizationCodeGrant(request_validator, refresh_token=False, pre_auth=[s256_only])
        bearer = BearerToken(request_validator, token_generator, token_expires_in, refresh_token_generator)
        AuthorizationEndpoint.__init__(self, default_response_type="code", response_types={"code": grant}, default_token_type=bearer)
        TokenEndpoint.__init__(self, default_grant_type="authorization_code", grant_types={"authorization_code": grant}, default_token_type=bearer)
