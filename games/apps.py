"""App config for games: deals, games, move histories, dailies and races."""

from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from accounts.signals import credentials_changed
        from games.events import publish_sign_ins_changed

        credentials_changed.connect(publish_sign_ins_changed, dispatch_uid="games.sign_ins")
