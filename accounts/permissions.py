"""The REST check of a token's scopes (each API view names the scope each of its methods needs), and of a guest's reach."""

from __future__ import annotations

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
        if missing:
            names = ", ".join(f"`{scope}`" for scope in missing)
            raise ServiceError(
                "missing_scope",
                f"this token lacks the scope {names} that {request.method} {request.path} needs: make a token with it",
                status=403,
                extra={"scopes": missing},
            )
        return True
