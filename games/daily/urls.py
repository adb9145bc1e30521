"""URLs of the daily API: today's daily, ranked play, archive, and per-date leaderboard, histogram, share."""

from django.urls import path

from games.daily import views as daily

urlpatterns = [
    path("daily/", daily.DailyTodayView.as_view(), name="daily"),
    path("daily/play/", daily.DailyPlayView.as_view(), name="daily-play"),
    path("daily/archive/", daily.DailyArchiveView.as_view(), name="daily-archive"),
    path("daily/<str:date>/", daily.DailyDetailView.as_view(), name="daily-detail"),
    path("daily/<str:date>/leaderboard/", daily.LeaderboardView.as_view(), name="daily-leaderboard"),
    path("daily/<str:date>/histogram/", daily.HistogramView.as_view(), name="daily-histogram"),
    path("daily/<str:date>/share/", daily.ShareView.as_view(), name="daily-share"),
    path("users/<str:username>/daily/", daily.PlayerDailyResultsView.as_view(), name="user-daily"),
]
