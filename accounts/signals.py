"""Signals accounts sends for other apps: a player's sign-in credentials changed."""

from django.dispatch import Signal

#: Sent with `user_id` after a change that may end some of a player's sign-ins (a new password revokes
#: the API token and ends the other sessions; a logout ends one session or revokes the token). The
#: games app closes the player's sockets whose sign-in no longer holds.
credentials_changed = Signal()

#: Sent with `user` inside `close_account`'s transaction, before anything changes: a receiver that
#: raises a ServiceError refuses the close (a race about to deal the player a game).
account_closing = Signal()

#: Sent with `user` inside `close_account`'s transaction once the account is closed and renamed: the
#: games app leaves the player's open races and resigns the games they were still playing, so every
#: push it sends names the closed account.
account_closed = Signal()

#: Sent with `from_user` and `to_user` once a friend request is committed: the games app tells the
#: player asked (their event streams, docs/streams.md).
friend_requested = Signal()

#: Sent with `from_user` (who asked) and `to_user` (who accepted) once a friendship is committed.
friendship_accepted = Signal()

#: Sent with `guest` and `player` inside the transaction of a guest's browser signing in to `player`'s
#: account (accounts.guests.sign_in_over_guest), before the guest account is deleted: the games app
#: hands the guest's games to the player.
guest_signed_in = Signal()

#: Sent with `user` once a guest account has become a player's by sign-up (accounts.guests.become_player):
#: the games app puts the player's wins on the boards, which do not count guests.
guest_became_player = Signal()
