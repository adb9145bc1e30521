"""App config for games: play, dailies, boards, races and fair play, tied together once the app is ready.

Play (games.play.services) knows nothing of the domains above it: games/wiring.py hands it their
follow-ups in one order (games.play.follow_ups) and their rules (games.play.policies); accounts
announce a closing with a signal, which races and play listen to.
"""

from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from accounts.signals import account_closed, credentials_changed
        from games import guests, wiring
        from games.events import publish_sign_ins_changed
        from games.play import services
        from games.streams import friends

        credentials_changed.connect(publish_sign_ins_changed, dispatch_uid="games.sign_ins")
        wiring.install()  # play's follow-ups in their order, and the rules of the daily and races
        # After races' receiver (connected by wiring.install): a closed account leaves its open races first.
        account_closed.connect(services.resign_games_of_closed, dispatch_uid="games.closed")
        friends.connect()  # friend requests and friendships on the players' event streams
        guests.connect()  # a guest's games follow its browser's sign-in or sign-up (games/guests.py)
