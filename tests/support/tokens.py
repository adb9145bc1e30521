"""Personal access tokens for tests: a key with chosen scopes, an API client signed in with it."""

from __future__ import annotations

from rest_framework.test import APIClient


def key_with(user, *scopes: str, name: str = "a test token") -> str:
    """The key of a new token of `user` holding `scopes`."""
    from accounts import services

    return services.issue_token(user, name=name, scopes=scopes).key


def client_with(key: str, scheme: str = "Bearer") -> APIClient:
    """An API client that sends `Authorization: <scheme> <key>`."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{scheme} {key}")
    return client
