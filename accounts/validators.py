"""Password rules beyond Django's: no password built on the username, none made of white space alone."""

from __future__ import annotations

from django.core.exceptions import ValidationError


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
