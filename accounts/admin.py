"""Admin pages for players (with closing accounts), profiles, friendships, personal access tokens and
login-failure counters, and the admin's counted sign-in."""

from django.contrib import admin, messages
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group, User
from django.http import HttpResponse

from accounts import (
    oauth_admin,  # noqa: F401 (django-oauth-toolkit's apps, with the checked selection)
    throttle,
)
from accounts.closing import close_account, is_closed_name
from accounts.devices import device_of, remember
from accounts.models import AccessToken, Friendship, LoginFailure, Profile
from accounts.selectors import player_named
from accounts.services import sign_ins_changed
from freecell_site.admin_selection import CheckedSelection
from freecell_site.errors import ServiceError


def admin_login(request, extra_context=None):
    """Django's admin sign-in page, its failures counted and refused like every other login's
    (accounts.throttle): otherwise the admin was the one place to guess a staff password at will."""
    if request.method != "POST":
        return admin.site.login(request, extra_context)
    name = request.POST.get("username", "")
    player = player_named(name)
    keys = throttle.keys_for(player.username if player else name, request.META.get("REMOTE_ADDR"), device_of(request, player.pk if player else None))
    if throttle.is_limited(keys):
        text = "Too many failed sign-ins: wait a few minutes and try again."
        return HttpResponse(text, status=429, content_type="text/plain; charset=utf-8")
    response = admin.site.login(request, extra_context)
    if response.status_code == 200:  # the form again, with its error: not signed in
        throttle.record_failure(keys)
    elif request.user.is_authenticated:  # signed in: this browser is no stranger from now on
        remember(response, request, request.user)
    return response


@admin.register(Profile)
class ProfileAdmin(CheckedSelection, admin.ModelAdmin):
    list_display = ["user", "display_name"]
    search_fields = ["user__username", "display_name"]
    raw_id_fields = ["user"]


@admin.register(Friendship)
class FriendshipAdmin(CheckedSelection, admin.ModelAdmin):
    list_display = ["from_user", "to_user", "status", "created_at", "accepted_at"]
    list_filter = ["status"]
    search_fields = ["from_user__username", "to_user__username"]
    raw_id_fields = ["from_user", "to_user"]


@admin.register(AccessToken)
class AccessTokenAdmin(CheckedSelection, admin.ModelAdmin):
    """Tokens are seen and revoked (deleted) here; players make them (the key is shown only to them)."""

    list_display = ["user", "name", "prefix", "scopes", "created_at", "last_used_at"]
    search_fields = ["user__username", "name", "prefix"]
    readonly_fields = ["user", "name", "scopes", "prefix", "created_at", "last_used_at"]
    exclude = ["key_digest"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def delete_model(self, request, obj) -> None:
        super().delete_model(request, obj)
        sign_ins_changed(obj.user)  # its sockets close

    def delete_queryset(self, request, queryset) -> None:
        users = {token.user for token in queryset.select_related("user")}
        super().delete_queryset(request, queryset)
        for user in users:
            sign_ins_changed(user)


@admin.register(LoginFailure)
class LoginFailureAdmin(CheckedSelection, admin.ModelAdmin):
    list_display = ["key", "window", "count"]
    search_fields = ["key"]


@admin.action(description="Close the selected accounts (for good: personal data erased, games kept)")
def close_accounts_action(modeladmin, request, queryset):
    """A player's erasure, as their own close (accounts/closing.py): deleting the user instead takes
    their finished games out of other players' leaderboards and races."""
    closed = 0
    for user in queryset.filter(is_active=True):
        if user.pk == request.user.pk:
            modeladmin.message_user(request, "Your own account is closed from your account page (/account/), not here.", messages.WARNING)
            continue
        name = user.username
        try:
            close_account(user)
        except ServiceError as exc:
            if exc.code == "race_not_started":
                reason = "in a race's countdown, not closed: try again once the race has started (a few seconds)"
            else:
                reason = exc.message
            modeladmin.message_user(request, f"Player {name} {reason}.", messages.WARNING)
        else:
            closed += 1
    modeladmin.message_user(request, f"{closed} account(s) closed.")


admin.site.unregister(User)


@admin.register(User)
class PlayerAdmin(CheckedSelection, UserAdmin):
    actions = [close_accounts_action]

    def get_readonly_fields(self, request, obj=None):
        # A closed account's name has a space, which the form's username check refuses: every save
        # of its page failed.
        fields = super().get_readonly_fields(request, obj)
        return (*fields, "username") if obj is not None and is_closed_name(obj.username) else fields


# The stock admin of groups, with its actions' selections checked too.
admin.site.unregister(Group)
admin.site.register(Group, type("CheckedGroupAdmin", (CheckedSelection, GroupAdmin), {}))
