"""URLs of the ndjson streams (served under ASGI: freecell_site/asgi.py routes `/api/stream/` to Django's
ASGI handler)."""

from django.urls import path

from games.streams import views

urlpatterns = [
    path("stream/games/<int:game_id>/", views.GameStreamView.as_view(), name="stream-game"),
    path("stream/races/<str:code>/", views.RaceStreamView.as_view(), name="stream-race"),
    path("stream/events/", views.EventStreamView.as_view(), name="stream-events"),
]
