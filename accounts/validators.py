"""Password rules beyond Django's: no password built on the username, none made of white space alone,
no "new" password that is the current one."""

from __future__ import annotations

from django.contrib.auth.hashers import check_password
from django.core.exceptions import ValidationError

from accounts.services import revoke_all_tokens, sign_ins_changed


class NotTheUsernameValidator:
    """Refuses a password that contains the username (in any case), such as `bobby7bobby7` for
    `bobby7`: Django's similarity check lets it through (the whole strings are only 67% alike), yet it
    is the first guess of anyone who knows the name, and every player's name is public here."""

    def validate(self, password: str, user=None) -> None:
        username = (getattr(user, "username", "") or "").casefold()
        if len(username) >= 3 and username in password.casefold():
            raise ValidationError("The password contains the username.", code="password_has_username")

    def get_help_text(self) -> str:
        return "Your password can’t contain your username."


class NotBlankValidator:
    """Refuses a password of white space only: it passes the length rule but is no secret."""

    def validate(self, password: str, user=None) -> None:
        if not password.strip():
            raise ValidationError("The password is only spaces.", code="password_blank")

    def get_help_text(self) -> str:
        return "Your password can’t be only spaces."


class NotTheCurrentPasswordValidator:
    """Refuses, on a change or a reset, the password the account already has: the player meant to
    replace it (a password they fear was seen, say), and "changed" would tell them it was."""

    existing_accounts_only = True  # the sign-up form does not list this rule

    def validate(self, password: str, user=None) -> None:
        # hashers.check_password, not user.check_password: that one may re-hash and save the password.
        encoded = getattr(user, "password", "") if getattr(user, "pk", None) else ""
        if encoded and check_password(password, encoded):
            raise ValidationError("That is your current password: choose a new one.", code="password_unchanged")

    def get_help_text(self) -> str:
        return "A new password can’t be the one you have now."


class SignInsFollowThePassword:
    """Not a rule: Django tells every password validator when a player's password has changed, after
    the save that stores it, whatever path saved it (the services, the admin's form, `manage.py
    changepassword`, a shell), and not for the rehash of a login under a new hasher. Sessions end by
    themselves (their hash is of the password); API tokens would not, so whoever held one (often the
    reason for the change) would keep the account: they are revoked, and open sockets look again."""

    def validate(self, password: str, user=None) -> None:
        return None

    def password_changed(self, password: str, user=None) -> None:
        if user is None or user.pk is None:
            return
        revoke_all_tokens(user)
        sign_ins_changed(user)

    def get_help_text(self) -> str:
        return ""
