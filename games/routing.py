"""Websocket URL routes."""

from django.urls import path

from games import consumers

websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", consumers.GameConsumer.as_asgi()),
    path("ws/races/<str:code>/", consumers.RaceConsumer.as_asgi()),
]
