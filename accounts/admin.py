"""Admin pages for profiles, friendships and login-failure counters."""

from django.contrib import admin

from accounts.models import Friendship, LoginFailure, Profile


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ["user", "display_name"]
    search_fields = ["user__username", "display_name"]
    raw_id_fields = ["user"]


@admin.register(Friendship)
class FriendshipAdmin(admin.ModelAdmin):
    list_display = ["from_user", "to_user", "status", "created_at", "accepted_at"]
    list_filter = ["status"]
    search_fields = ["from_user__username", "to_user__username"]
    raw_id_fields = ["from_user", "to_user"]


@admin.register(LoginFailure)
class LoginFailureAdmin(admin.ModelAdmin):
    list_display = ["key", "window", "count"]
    search_fields = ["key"]
