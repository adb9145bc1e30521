"""URLs of the boards API: a deal's records, the month's ladder, streaks."""

from django.urls import path

from games.boards import views

urlpatterns = [
    path("deals/<str:deal>/records/", views.DealRecordsView.as_view(), name="deal-records"),
    path("ladder/streaks/", views.StreaksView.as_view(), name="ladder-streaks"),
    path("ladder/<str:month>/", views.LadderView.as_view(), name="ladder-month"),
]
