"""URLs of the OAuth endpoints, under /oauth/."""

from django.urls import path

from accounts import oauth_views

urlpatterns = [
    path("authorize/", oauth_views.AuthorizeView.as_view(), name="oauth-authorize"),
    path("token/", oauth_views.TokenView.as_view(), name="oauth-token"),
]
