"""Websocket URL routes (the echo route exists only for the benchmark, with BENCH_ECHO=1)."""

from django.urls import path

from games import consumers

websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", consumers.GameConsumer.as_asgi()),
    path("ws/races/<str:code>/", consumers.RaceConsumer.as_asgi()),
]

if consumers.bench_echo_enabled():
    websocket_urlpatterns.append(path("ws/echo/<str:room>/", consumers.EchoConsumer.as_asgi()))
