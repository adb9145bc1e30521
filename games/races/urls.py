"""URLs of the race API."""

from django.urls import path

from games.races import views as races

urlpatterns = [
    path("races/", races.RaceListView.as_view(), name="races"),
    path("races/ghost/", races.GhostRaceView.as_view(), name="race-ghost"),
    path("races/<str:code>/", races.RaceView.as_view(), name="race"),
    path("races/<str:code>/join/", races.RaceJoinView.as_view(), name="race-join"),
    path("races/<str:code>/start/", races.RaceStartView.as_view(), name="race-start"),
    path("races/<str:code>/invite/", races.RaceInviteView.as_view(), name="race-invite"),
    path("races/<str:code>/resign/", races.RaceResignView.as_view(), name="race-resign"),
    path("races/<str:code>/rematch/", races.RaceRematchView.as_view(), name="race-rematch"),
]
