"""URLs of the games API."""

from django.urls import include, path

from games.play import views
from games.play.restart_view import RestartView

urlpatterns = [
    path("ping/", views.PingView.as_view(), name="ping"),
    path("deals/<str:deal>/", views.DealView.as_view(), name="deal"),
    path("deals/<str:deal>/facts/", views.DealFactsView.as_view(), name="deal-facts"),
    path("games/", views.GameListView.as_view(), name="games"),
    path("games/<int:game_id>/", views.GameView.as_view(), name="game"),
    path("games/<int:game_id>/moves/", views.MoveView.as_view(), name="game-moves"),
    path("games/<int:game_id>/undo/", views.UndoView.as_view(), name="game-undo"),
    path("games/<int:game_id>/resign/", views.ResignView.as_view(), name="game-resign"),
    path("games/<int:game_id>/restart/", RestartView.as_view(), name="game-restart"),
    path("games/<int:game_id>/legal-moves/", views.LegalMovesView.as_view(), name="game-legal-moves"),
    path("games/<int:game_id>/history/", views.HistoryView.as_view(), name="game-history"),
    path("games/<int:game_id>/hint/", views.HintView.as_view(), name="game-hint"),
    path("solutions/verify/", views.VerifyView.as_view(), name="verify"),
    path("", include("games.races.urls")),
    path("", include("games.daily.urls")),
    path("", include("games.boards.urls")),
    path("", include("games.streams.urls")),
    path("", include("games.fairplay.urls")),
]
