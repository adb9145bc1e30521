"""The spec's error shape, {"error": {"code", "message"}}, for every API error, DRF's or Django's."""

from __future__ import annotations

import logging

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.db import OperationalError
from django.http import Http404, JsonResponse
from rest_framework import exceptions, status
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import exception_handler

from freecell_site.throttling import refund

logger = logging.getLogger(__name__)


class ServiceError(Exception):
    """A refusal by the service layer, carried to clients with its spec code and HTTP status.

    `extra` adds fields beside code and message (for example the current game on a ply conflict).
    """

    status = 400

    def __init__(self, code: str, message: str, *, status: int | None = None, extra: dict | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        if status is not None:
            self.status = status
        self.extra = extra or {}

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message, **self.extra}


# HTTP status for each code the engine raises (bad input is 400; a well-formed move the rules refuse
# is 422, so clients can tell "you typed it wrong" from "that is not allowed").
ENGINE_STATUS = {"bad_notation": 400, "illegal_move": 422, "invalid_deal": 400, "bad_board": 400}

_DRF_CODES = {
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.PermissionDenied: "forbidden",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "rate_limited",
    exceptions.ParseError: "bad_request",
    exceptions.ValidationError: "invalid_request",
}


# DRF's own wordings, said in ours (a message a view chose itself is kept as it is).
_AUTH_WORDS = {
    "Incorrect authentication credentials.": "the credentials sent are not valid",
    "Invalid token.": "the token is not valid (mistyped, or revoked): get one with POST /api/auth/token/",
    "Invalid token header. No credentials provided.": "the Authorization header has no token after its keyword: send `Token <token>`",
    "Invalid token header. Token string should not contain spaces.": "the Authorization header holds more than one word after its keyword: send `Token <token>`",
    "Invalid token header. Token string should not contain invalid characters.": "the token in the Authorization header holds characters no token has",
    "User inactive or deleted.": "this account is closed",
}
_FIELD_WORDS = {
    "This field is required.": "this field is required",
    "This field may not be null.": "this field may not be null",
    "This field may not be blank.": "this field may not be blank",
    "Not a valid string.": "must be a string",
    "A valid integer is required.": "must be a whole number",
    "Must be a valid boolean.": "must be true or false",
    "Invalid data. Expected a dictionary, but got {datatype}.": "must be an object",
}


def _our_words(exc, request, message: str) -> str:
    """The message of a DRF exception: ours when DRF would give its default wording."""
    method = getattr(request, "method", "?")
    path = getattr(request, "path", "?")
    if isinstance(exc, exceptions.NotAuthenticated) and message == exceptions.NotAuthenticated.default_detail:
        return "sign in first: send `Authorization: Token <token>` (or `Bearer <token>`), or use the site's session"
    if isinstance(exc, exceptions.AuthenticationFailed):
        return _AUTH_WORDS.get(message, message)
    if isinstance(exc, exceptions.PermissionDenied):
        if message == exceptions.PermissionDenied.default_detail:
            return "you may not do this"
        if message.startswith("CSRF Failed"):
            return "a request signed in by the session needs the CSRF token (the X-CSRFToken header); API clients send a token instead"
    if isinstance(exc, exceptions.NotFound) and message in (exceptions.NotFound.default_detail, "Invalid page."):
        return f"not found: {path}"
    if isinstance(exc, exceptions.MethodNotAllowed):
        return f"method {method} not allowed on {path}"
    if isinstance(exc, exceptions.NotAcceptable):
        return "no answer in the format the Accept header asks for: this endpoint answers application/json"
    if isinstance(exc, exceptions.UnsupportedMediaType):
        media = getattr(request, "content_type", "") or "none"
        return f"the body's media type {media!r} is not taken here: send application/json"
    if isinstance(exc, exceptions.Throttled):
        wait = f": try again in {int(exc.wait)} s" if exc.wait is not None else ""
        return f"too many requests{wait}"
    if isinstance(exc, exceptions.ParseError):
        if message == exceptions.ParseError.default_detail:
            return "the body could not be read"
        if message.startswith("JSON parse error - "):
            return "the body is not valid JSON: " + message.removeprefix("JSON parse error - ")
    return message


def _reworded_fields(detail):
    """A validation detail with DRF's default field messages said in our words (its codes kept)."""
    if isinstance(detail, dict):
        return {key: _reworded_fields(value) for key, value in detail.items()}
    if isinstance(detail, list):
        return [_reworded_fields(item) for item in detail]
    if isinstance(detail, str):
        worded = _FIELD_WORDS.get(str(detail))
        if worded is None and str(detail).startswith("Invalid data. Expected a dictionary"):
            worded = _FIELD_WORDS["Invalid data. Expected a dictionary, but got {datatype}."]
        return exceptions.ErrorDetail(worded, code=getattr(detail, "code", None)) if worded else detail
    return detail


def error_body(code: str, message: str, **extra) -> dict:
    return {"error": {"code": code, "message": message, **extra}}


def _first_message(detail) -> str:
    """A readable sentence from DRF's nested validation detail."""
    if isinstance(detail, dict):
        for field, value in detail.items():
            inner = _first_message(value)
            return inner if field == "non_field_errors" else f"{field}: {inner}"
        return "invalid request"
    if isinstance(detail, list):
        return _first_message(detail[0]) if detail else "invalid request"
    return str(detail)


def api_exception_handler(exc, context):
    """DRF's handler, reshaped; engine and service errors mapped to their codes. An error is JSON
    whatever format the request asked for (a text history, an NDJSON export): its message is kept."""
    response = _error_response(exc, context)
    if response is not None and context.get("view") is not None:
        refund(context["view"])  # a refused request costs no budget (freecell_site/throttling.py)
    request = context.get("request")
    if response is not None and request is not None:
        request.accepted_renderer, request.accepted_media_type = JSONRenderer(), "application/json"
    return response


def _error_response(exc, context):
    from games.engine import EngineError  # late import: the engine is a library, settings load first

    if isinstance(exc, ServiceError):
        # A wait in the body is also said in the standard header (as DRF's own throttles do).
        retry = {"Retry-After": str(exc.extra["retry_after"])} if "retry_after" in exc.extra else None
        response = Response({"error": exc.as_dict()}, status=exc.status, headers=retry)
        if exc.status >= 500 and retry:
            # A wait the service expects (the daily being made, a hint worker starting again): said
            # as a warning with its reason, not as Django's ERROR "Service Unavailable" without one.
            request = context.get("request")
            logger.warning("%s on %s: %s", exc.code, getattr(request, "path", "?"), exc.message)
            response._has_been_logged = True
        return response
    if isinstance(exc, EngineError):
        return Response(error_body(exc.code, str(exc)), status=ENGINE_STATUS.get(exc.code, 400))
    if isinstance(exc, SuspiciousOperation):
        # Django's limits on a request body (DATA_UPLOAD_MAX_NUMBER_FIELDS, ..._MEMORY_SIZE) are
        # raised while DRF parses it, outside Django's own handling: a client error, not a 500.
        if isinstance(exc, RequestDataTooBig):
            return Response(error_body("too_large", "the request body is too large"), status=413)
        return Response(error_body("bad_request", f"the request was refused: {exc}"), status=400)
    # DRF's handler converts these itself, but only inside: converted here, the code is kept too
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or None)
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    response = exception_handler(exc, context)
    if response is None:
        return None  # an unexpected error: the middleware answers 500 in the same shape
    code = next((c for klass, c in _DRF_CODES.items() if isinstance(exc, klass)), "error")
    detail = getattr(exc, "detail", str(exc))
    if code == "invalid_request":
        detail = _reworded_fields(detail)
    message = _first_message(detail) if code == "invalid_request" else _our_words(exc, context.get("request"), str(detail))
    extra = {"fields": detail} if code == "invalid_request" and isinstance(detail, dict) else {}
    if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
        extra["retry_after"] = int(exc.wait)
    response.data = error_body(code, message, **extra)
    return response


_PLAIN_CODES = {
    400: "bad_request",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "too_large",
    429: "rate_limited",
    500: "server_error",
}


def _wants_json(request) -> bool:
    return request.path == "/api" or request.path.startswith("/api/")


def has_nul(request) -> bool:
    query = request.META.get("QUERY_STRING", "")
    return "\x00" in request.path or "%00" in query or "\x00" in query


class RejectNulMiddleware:
    """Answers 400 to a URL with a NUL character: no player name, code or parameter contains one, and
    PostgreSQL refuses them in queries (which would otherwise surface as a server error)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if has_nul(request):
            return JsonResponse(error_body("bad_request", "the URL contains a NUL character"), status=400)
        return self.get_response(request)


class ApiSlashMiddleware:
    """An API URL without its trailing slash, in a request other than GET or HEAD, is 404 with a JSON
    error that names the URL to use. Django's CommonMiddleware would redirect it (a 301 that makes
    clients resend a POST as a GET, without its body) or, with DEBUG on, fail with a 500."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if _wants_json(request) and not request.path.endswith("/") and request.method not in ("GET", "HEAD"):
            message = f"no such endpoint: {request.path}; the API's URLs end with a slash: {request.path}/"
            return JsonResponse(error_body("not_found", message), status=404)
        return self.get_response(request)


class ApiErrorMiddleware:
    """Gives errors raised outside DRF views (unknown /api/ URLs, crashes) the spec's JSON shape."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            _wants_json(request)
            and response.status_code >= 400
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            code = _PLAIN_CODES.get(response.status_code, "error")
            message = {404: f"no such endpoint: {request.path}", 405: f"method {request.method} not allowed"}.get(
                response.status_code, code.replace("_", " ")
            )
            new = JsonResponse(error_body(code, message), status=response.status_code)
            if response.has_header("Allow"):
                new["Allow"] = response["Allow"]
            return new
        return response

    def process_exception(self, request, exception):
        if not _wants_json(request):
            return None
        if isinstance(exception, OperationalError):
            logger.warning("database unavailable on %s %s: %s", request.method, request.path, exception)
            response = JsonResponse(error_body(*DATABASE_UNAVAILABLE, retry_after=RETRY_AFTER_S), status=503)
            response["Retry-After"] = str(RETRY_AFTER_S)
            return response
        logger.exception("unhandled error on %s %s", request.method, request.path)
        return JsonResponse(error_body("server_error", "the server failed; the error was logged"), status=status.HTTP_500_INTERNAL_SERVER_ERROR)


#: The answer when the database cannot be reached (down, restarting, or every pooled connection busy
#: past the pool's timeout): the request did nothing, and the same request may be sent again.
DATABASE_UNAVAILABLE = ("unavailable", "the database cannot be reached right now: try again in a few seconds")
RETRY_AFTER_S = 2
