"""URLs of the accounts API."""

from django.urls import path

from accounts import views
from games.play.export import UserGamesExportView

urlpatterns = [
    path("auth/register/", views.RegisterView.as_view(), name="register"),
    path("auth/token/", views.TokenView.as_view(), name="token"),
    path("auth/login/", views.LoginView.as_view(), name="login"),
    path("auth/logout/", views.LogoutView.as_view(), name="logout"),
    path("auth/password/change/", views.PasswordChangeView.as_view(), name="password-change"),
    path("auth/password/reset/", views.PasswordResetView.as_view(), name="password-reset"),
    path("auth/password/reset/confirm/", views.PasswordResetConfirmView.as_view(), name="password-reset-confirm"),
    path("tokens/", views.TokensView.as_view(), name="tokens"),
    path("tokens/<int:token_id>/", views.AccessTokenView.as_view(), name="access-token"),
    path("me/", views.MeView.as_view(), name="me"),
    path("me/close/", views.CloseAccountView.as_view(), name="me-close"),
    path("users/", views.UserSearchView.as_view(), name="users"),
    path("users/<str:username>/", views.UserView.as_view(), name="user"),
    path("users/<str:username>/games/", UserGamesExportView.as_view(), name="user-games"),
    path("friends/", views.FriendsView.as_view(), name="friends"),
    path("friends/requests/", views.FriendRequestView.as_view(), name="friend-request"),
    path("friends/requests/<str:username>/accept/", views.FriendAnswerView.as_view(accept=True), name="friend-accept"),
    path("friends/requests/<str:username>/decline/", views.FriendAnswerView.as_view(accept=False), name="friend-decline"),
    path("friends/<str:username>/", views.FriendView.as_view(), name="friend"),
]
