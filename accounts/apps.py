"""App config for accounts: sign-up, login, tokens, profiles and friends."""

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from accounts import checks, receivers  # noqa: F401 (register the deploy check and the receivers)
