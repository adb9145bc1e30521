"""Friends on a player's event stream: accounts' signals sent on to the players' streams, and the
requests a stream opens with."""

from __future__ import annotations

from accounts.selectors import friends_overview
from accounts.signals import friend_requested, friendship_accepted
from games import events


def request_event(from_username: str) -> dict:
    return {"type": "friend_request", "from": from_username}


def accepted_event(username: str) -> dict:
    return {"type": "friend_accepted", "username": username}


def on_friend_requested(sender, *, from_user, to_user, **kwargs) -> None:
    """accounts.signals.friend_requested: the player asked is told who asks."""
    events.publish_player_event(to_user.pk, request_event(from_user.username))


def on_friendship_accepted(sender, *, from_user, to_user, **kwargs) -> None:
    """accounts.signals.friendship_accepted: the player who asked is told who accepted."""
    events.publish_player_event(from_user.pk, accepted_event(to_user.username))


def pending_events(user) -> list[dict]:
    """The friend requests awaiting the player's answer, oldest first."""
    return [request_event(request["username"]) for request in friends_overview(user)["incoming"]]


def connect() -> None:
    """Wires the receivers (games/apps.py calls it once the app is ready)."""
    friend_requested.connect(on_friend_requested, dispatch_uid="games.streams.friend_requested")
    friendship_accepted.connect(on_friendship_accepted, dispatch_uid="games.streams.friendship_accepted")
