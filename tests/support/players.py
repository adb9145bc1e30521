"""Players and their API clients: alice (the owner), bob (her friend), charlie (a stranger), a staff member."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

PASSWORD = "correct horse battery 9"

# A key of every scope per player (by id), handed out again while it holds: keys are stored hashed, so
# the helpers keep the one they were given (the sign-up's, or one they made).
_keys: dict[int, str] = {}


def make_player(username: str):
    from accounts import services

    user, token = services.register(username=username, password=PASSWORD)
    _keys[user.pk] = token.key
    return user


def client_for(user=None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {token_of(user)}")
    return client


def token_of(user) -> str:
    """A key of every scope of `user`: the same on each call while it holds (the sign-up's token at
    first); a new one once it was revoked (a new password, a logout with it)."""
    from accounts import services, tokens
    from accounts.scopes import SCOPES

    key = _keys.get(user.pk)
    found = tokens.token_of_key(key) if key else None
    if found is None or found.user_id != user.pk:
        key = _keys[user.pk] = services.issue_token(user, name="tests", scopes=SCOPES).key
    return key


def code_of(response) -> str:
    """The `error.code` of an API error answer."""
    return response.json()["error"]["code"]


def befriend(a, b) -> None:
    from accounts import services

    services.request_friend(user=a, username=b.username)
    services.answer_request(user=b, username=a.username, accept=True)


def sent_mail() -> list:
    """The test's outbox once the mail sender thread has sent what was queued (accounts/mail.py)."""
    from django.core import mail

    from accounts.mail import wait_until_sent

    wait_until_sent()
    return mail.outbox


@pytest.fixture
def alice(db):
    return make_player("alice")


@pytest.fixture
def bob(db, alice):
    """Alice's friend."""
    user = make_player("bob")
    befriend(alice, user)
    return user


@pytest.fixture
def charlie(db):
    """A stranger to alice and bob."""
    return make_player("charlie")


@pytest.fixture
def staff(db):
    user = make_player("staffer")
    user.is_staff = True
    user.save()
    return user


@pytest.fixture
def anon_client():
    return APIClient()


@pytest.fixture
def alice_client(alice):
    return client_for(alice)


@pytest.fixture
def bob_client(bob):
    return client_for(bob)


@pytest.fixture
def charlie_client(charlie):
    return client_for(charlie)


@pytest.fixture
def alice_token(alice):
    return token_of(alice)


@pytest.fixture
def bob_token(bob):
    return token_of(bob)


@pytest.fixture
def charlie_token(charlie):
    return token_of(charlie)
