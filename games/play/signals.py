"""What play announces: a game changed. Races and dailies listen; play never imports them."""

from django.dispatch import Signal

#: Sent by games.play.services inside the transaction of every change of a game (an action, a resign), with
#: `game` as it is now stored. Receivers write in the same transaction (a race ranks its finisher, a
#: daily puts its winner on the board), so the change and what follows from it commit together; a
#: receiver that raises rolls the change back.
game_changed = Signal()
