"""URLs of the race API: races and challenges."""

from django.urls import path

from games.races import challenge_views as challenges
from games.races import views as races

urlpatterns = [
    path("races/", races.RaceListView.as_view(), name="races"),
    path("races/ghost/", races.GhostRaceView.as_view(), name="race-ghost"),
    path("races/quick/", races.QuickRaceView.as_view(), name="race-quick"),
    path("races/<str:code>/", races.RaceView.as_view(), name="race"),
    path("races/<str:code>/join/", races.RaceJoinView.as_view(), name="race-join"),
    path("races/<str:code>/start/", races.RaceStartView.as_view(), name="race-start"),
    path("races/<str:code>/invite/", races.RaceInviteView.as_view(), name="race-invite"),
    path("races/<str:code>/resign/", races.RaceResignView.as_view(), name="race-resign"),
    path("races/<str:code>/rematch/", races.RaceRematchView.as_view(), name="race-rematch"),
    path("challenges/", challenges.ChallengeListView.as_view(), name="challenges"),
    path("challenges/<int:challenge_id>/", challenges.ChallengeView.as_view(), name="challenge"),
    path("challenges/<int:challenge_id>/accept/", challenges.ChallengeAcceptView.as_view(), name="challenge-accept"),
    path("challenges/<int:challenge_id>/decline/", challenges.ChallengeDeclineView.as_view(), name="challenge-decline"),
    path("challenges/<int:challenge_id>/cancel/", challenges.ChallengeCancelView.as_view(), name="challenge-cancel"),
]
