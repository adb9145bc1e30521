"""Websocket URL routes: a game's socket, a race's and a deal's board; any other path is answered not_found."""

from channels.routing import URLRouter
from django.urls import path, re_path

from games.sockets.base import NoSuchSocket
from games.sockets.boards import RecordsConsumer
from games.sockets.game import GameConsumer
from games.sockets.race import RaceConsumer

websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", GameConsumer.as_asgi()),
    path("ws/races/<str:code>/", RaceConsumer.as_asgi()),
    path("ws/deals/<str:deal>/records/", RecordsConsumer.as_asgi()),
]

#: What the server routes: the sockets above, then any other path, which is answered not_found and
#: closed with 4404 (NoSuchSocket); Channels' router alone raises "No route found" for it, which
#: Daphne turns into an HTTP 500 and a logged traceback.
websocket_router = URLRouter([*websocket_urlpatterns, re_path(r"^", NoSuchSocket.as_asgi())])
