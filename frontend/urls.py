"""URLs of the web pages."""

from django.urls import path

from frontend import views

urlpatterns = [
    path("", views.home, name="home"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("signup/", views.signup, name="page-signup"),
    path("login/", views.login_page, name="page-login"),
    path("logout/", views.logout_page, name="page-logout"),
    path("reset/", views.password_reset_request, name="page-password-reset-request"),
    path("reset/<str:uid>/<str:token>/", views.password_reset, name="page-password-reset"),
    path("play/", views.play_form, name="page-play-form"),
    path("play/<str:deal>/", views.play, name="page-play"),
    path("games/<int:game_id>/", views.game, name="page-game"),
    path("daily/", views.daily, name="page-daily"),
    path("daily/<str:date>/", views.daily_day, name="page-daily-day"),
    path("daily/<str:date>/result/<str:username>/", views.daily_result, name="page-daily-result"),
    path("daily/<str:date>/result/<str:username>/picture.svg", views.daily_result_picture, name="page-daily-result-picture"),
    path("races/", views.race_form, name="page-race-form"),
    path("races/<str:code>/", views.race, name="page-race"),
    path("challenges/", views.challenges, name="page-challenges"),
    path("u/<str:username>/", views.profile, name="page-profile"),
    path("account/", views.account, name="page-account"),
    path("replay/<int:game_id>/", views.replay, name="page-replay"),
    path("leaderboards/", views.leaderboards, name="page-leaderboards"),
    path("developers/", views.developers, name="page-developers"),
    path("developers/docs/", views.developer_docs, name="page-developer-docs"),
    path("developers/docs/<str:name>/", views.developer_doc, name="page-developer-doc"),
    path("staff/reviews/", views.staff_reviews, name="page-staff-reviews"),
    path("staff/reviews/<int:game_id>/", views.staff_review, name="page-staff-review"),
]
