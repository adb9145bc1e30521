"""URLs of the fair-play API: the policy, reports, bot accounts, and the moderators' queue, verdicts and marks."""

from django.urls import path

from games.fairplay import views

urlpatterns = [
    path("fair-play/", views.PolicyView.as_view(), name="fair-play"),
    path("fair-play/queue/", views.QueueView.as_view(), name="fair-play-queue"),
    path("games/<int:game_id>/report/", views.ReportView.as_view(), name="game-report"),
    path("games/<int:game_id>/review/", views.VerdictView.as_view(), name="game-review"),
    path("account/bot/", views.BotView.as_view(), name="account-bot"),
    path("users/<str:username>/mark/", views.MarkView.as_view(), name="user-mark"),
]
