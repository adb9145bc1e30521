"""The REST check of a token's scopes (each API view names the scope each of its methods needs), and of a guest's reach."""

from __future__ import annotations

import functools

from rest_framework import permissions

from accounts.scopes import READ, SCOPES, allows

#: What a view that does not declare a method's scope needs for it: it fails closed, a read needing
#: `read` and any other method a token of every scope.
UNDECLARED = object()


def scope_needed(view, method: str):
    """The scope `method` needs on `view`, from its `scopes` attribute (`{"GET": None | scope, ...}`,
    None for a public read that needs none); UNDECLARED when the view does not say."""
    method = "GET" if method == "HEAD" else method
    return (getattr(view, "scopes", None) or {}).get(method, UNDECLARED)


class TokenScopes(permissions.BasePermission):
    """Refuses a request made with a token that lacks the scope the view declares for the method
    (403 `missing_scope`). A session, and an anonymous visitor, hold every scope a token could:
    what they may do is the other permission classes' to say. A guest's session (accounts/guests.py)
    is refused what only players may do (403 `forbidden`)."""

    def has_permission(self, request, view) -> bool:
        # Imported here: DRF's settings import this module while rest_framework.views, which the
        # models and the error module import in turn, is still loading.
        from accounts.guests import refuse_guest
        from accounts.models import AccessToken
        from freecell_site.errors import ServiceError

        token = request.auth
        if request.method == "OPTIONS":
            return True  # OPTIONS describes the view, the same for everyone
        needed = scope_needed(view, request.method)
        # A guest's session plays casual deals only (accounts/guests.py): known by its name, no query.
        refuse_guest(request, view, needed)
        if not isinstance(token, AccessToken):
            return True
        if needed is None:
            return True
        if needed is UNDECLARED:
            wanted = [READ] if request.method in permissions.SAFE_METHODS else list(SCOPES)
        else:
            wanted = [needed]
        missing = [scope for scope in wanted if not allows(token, scope)]
        if not missing:
            return True
        refusal = ServiceError(
            "missing_scope",
            f"this token lacks the scope {', '.join(f'`{scope}`' for scope in missing)} that {request.method} {request.path} needs: make a token with it",
            status=403,
            extra={"scopes": missing},
        )
        # A view that does not declare its scope fails closed: no reading as a visitor there either.
        if needed == READ and request.method in permissions.SAFE_METHODS and read_as_visitor(request, view, refusal):
            return True
        raise refusal


def read_as_visitor(request, view, refusal) -> bool:
    """What anyone may read needs no scope: a token without `read` reads as an anonymous visitor would
    (a public game, a race, a board; no `me`, nothing private). False, the request untouched, when the
    view serves no visitor (`/api/me/`). Where the visitor's answer is a refusal (a game hidden from
    visitors, such as one's own unfinished ranked daily), the request gets `refusal` (403
    `missing_scope`) instead, since `read` would have shown it."""
    from django.contrib.auth.models import AnonymousUser
    from django.http import Http404
    from rest_framework import exceptions

    from freecell_site.errors import ServiceError

    user, token = request.user, request.auth
    request.user, request.auth = AnonymousUser(), None
    if not all(check.has_permission(request, view) for check in view.get_permissions() if not isinstance(check, TokenScopes)):
        request.user, request.auth = user, token
        return False
    handler = getattr(view, request.method.lower())

    @functools.wraps(handler)
    def as_visitor(*args, **kwargs):
        try:
            return handler(*args, **kwargs)
        except (ServiceError, exceptions.APIException, Http404) as error:
            status = 404 if isinstance(error, Http404) else getattr(error, "status", None) or getattr(error, "status_code", None)
            if status in (401, 403, 404):
                raise refusal from None
            raise

    # The view instance serves this one request (DRF makes one per request), so this wraps nothing else.
    setattr(view, request.method.lower(), as_visitor)
    return True
