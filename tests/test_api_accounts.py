"""The accounts API: sign-up, tokens, session login, passwords, profiles, friends, login throttling."""

from __future__ import annotations

import re
import threading

import pytest
from django.contrib.auth.models import User
from django.core.mail.backends import locmem
from rest_framework.test import APIClient

from tests.support.players import PASSWORD, client_for, code_of, sent_mail, token_of


class TestSignUpAndLogin:
    def test_register_answers_the_username_and_a_working_token(self, anon_client, db):
        response = anon_client.post("/api/auth/register/", {"username": "dora", "password": PASSWORD}, format="json")
        assert response.status_code == 201
        body = response.json()
        assert body["username"] == "dora" and body["token"].startswith("fco_") and len(body["token"]) == 47
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
        assert client.get("/api/me/").json()["username"] == "dora"

    def test_register_applies_djangos_password_validators(self, anon_client, db):
        for weak in ["short", "12345678901", "password123", "dorathea1", "DoraTheaDoraThea", "xx-dorathea-xx", " " * 12]:
            response = anon_client.post("/api/auth/register/", {"username": "dorathea", "password": weak}, format="json")
            assert response.status_code == 400, weak
            assert code_of(response) == "invalid_request" and "password" in response.json()["error"]["fields"]

    def test_register_refuses_a_taken_username_in_any_case(self, anon_client, alice):
        response = anon_client.post("/api/auth/register/", {"username": "ALICE", "password": PASSWORD}, format="json")
        assert response.status_code == 400 and "taken" in response.json()["error"]["message"]

    def test_a_token_is_given_for_the_right_password_only(self, anon_client, alice):
        good = anon_client.post("/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json")
        assert good.status_code == 200 and len(good.json()["token"]) == 47
        bad = anon_client.post("/api/auth/token/", {"username": "alice", "password": "nope"}, format="json")
        assert bad.status_code == 401 and code_of(bad) == "authentication_failed"

    def test_session_login_and_logout(self, alice):
        client = APIClient(enforce_csrf_checks=True)
        client.get("/")  # a page sets the CSRF cookie
        forged = client.post("/api/auth/login/", {"username": "alice", "password": PASSWORD}, format="json")
        assert forged.status_code == 403 and code_of(forged) == "forbidden"  # login CSRF refused
        response = client.post(
            "/api/auth/login/", {"username": "alice", "password": PASSWORD}, format="json",
            HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value,
        )
        assert response.status_code == 200 and response.json() == {"username": "alice"}
        assert client.get("/api/me/").status_code == 200
        # Session-authenticated writes need the CSRF token.
        refused = client.post("/api/games/", {"deal": "ms:1"}, format="json")
        assert refused.status_code == 403 and code_of(refused) == "forbidden"
        token = client.cookies["csrftoken"].value
        assert client.post("/api/games/", {"deal": "ms:1"}, format="json", HTTP_X_CSRFTOKEN=token).status_code == 201
        assert client.post("/api/auth/logout/", HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value).status_code == 204
        assert client.get("/api/me/").status_code in (401, 403)


class TestLoginThrottling:
    def test_failures_in_a_quarter_hour_lock_the_account_to_strangers_then_the_window_passes(self, anon_client, alice, monkeypatch, settings):
        """(A browser that signed in before is not a stranger: tests/test_hostile.py.)"""
        from accounts import throttle

        clock = [999_900.0]  # the start of a quarter hour
        monkeypatch.setattr(throttle.time, "time", lambda: clock[0])
        for _ in range(settings.LOGIN_ACCOUNT_FAILURES):
            assert anon_client.post("/api/auth/token/", {"username": "alice", "password": "wrong"}, format="json").status_code == 401
        locked = anon_client.post("/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json")
        assert locked.status_code == 429 and code_of(locked) == "rate_limited" and 0 < locked.json()["error"]["retry_after"] <= 901
        clock[0] += 901
        assert anon_client.post("/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json").status_code == 200

    def test_failures_from_one_address_lock_that_address_for_every_account(self, alice, charlie, monkeypatch, settings):
        from accounts import throttle

        settings.LOGIN_NETWORK_FAILURES = 10  # 100 by default, room for a school's NAT
        monkeypatch.setattr(throttle.time, "time", lambda: 2_000_000.0)
        client = APIClient(REMOTE_ADDR="203.0.113.9")
        for index in range(10):
            client.post("/api/auth/token/", {"username": f"ghost{index}", "password": "x"}, format="json")
        response = client.post("/api/auth/login/", {"username": "charlie", "password": PASSWORD}, format="json")
        assert response.status_code == 429
        other = APIClient(REMOTE_ADDR="198.51.100.1")
        assert other.post("/api/auth/token/", {"username": "charlie", "password": PASSWORD}, format="json").status_code == 200

    def test_a_username_of_any_characters_is_counted_in_the_cache_without_a_key_warning(self, db, anon_client, monkeypatch, settings):
        import warnings

        from django.core.cache import CacheKeyWarning

        from accounts import throttle

        settings.REDIS_URL = "redis://counted-in-the-cache"  # the throttle counts in Django's cache (locmem here)
        settings.LOGIN_ACCOUNT_FAILURES = 10
        monkeypatch.setattr(throttle.time, "time", lambda: 4_000_000.0)
        name = "moves \x01 replayed\u00a3"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(10):
                anon_client.post("/api/auth/token/", {"username": name, "password": "wrong"}, format="json")
            assert throttle.is_limited(throttle.keys_for(name, "127.0.0.1"))
        assert [w for w in caught if issubclass(w.category, CacheKeyWarning)] == []

    def test_counting_is_atomic_on_the_database(self, db, monkeypatch, settings):
        from accounts import throttle
        from accounts.models import LoginFailure

        settings.REDIS_URL = None
        monkeypatch.setattr(throttle.time, "time", lambda: 3_000_000.0)
        for _ in range(4):
            throttle.record_failure(["user:x"])
        assert LoginFailure.objects.get(key="user:x").count == 4


class TestPasswords:
    def test_change_needs_the_old_password_and_a_valid_new_one(self, alice, alice_client):
        wrong = alice_client.post("/api/auth/password/change/", {"old_password": "nope", "new_password": "a fresh password 7"}, format="json")
        assert wrong.status_code == 400
        weak = alice_client.post("/api/auth/password/change/", {"old_password": PASSWORD, "new_password": "123"}, format="json")
        assert weak.status_code == 400
        ok = alice_client.post("/api/auth/password/change/", {"old_password": PASSWORD, "new_password": "a fresh password 7"}, format="json")
        assert ok.status_code == 200  # made with a token: the answer is the new token (TestTokenRevocation)
        alice.refresh_from_db()
        assert alice.check_password("a fresh password 7")

    def test_a_new_password_must_differ_from_the_current_one(self, alice, alice_client, anon_client):
        """A player who changes a password they fear was seen must not be told it changed when it did
        not; the refusal leaves the password and the API token as they were."""
        same = alice_client.post("/api/auth/password/change/", {"old_password": PASSWORD, "new_password": PASSWORD}, format="json")
        assert same.status_code == 400
        error = same.json()["error"]
        assert error["code"] == "invalid_request"
        assert error["fields"]["new_password"] == ["That is your current password: choose a new one."]
        assert alice_client.get("/api/me/").status_code == 200  # the token was not revoked
        # A reset to the password the account has is refused the same way, and its link still works.
        alice.email = "alice@example.com"
        alice.save()
        assert anon_client.post("/api/auth/password/reset/", {"email": "alice@example.com"}, format="json").status_code == 202
        uid, token = re.search(r"uid=(\S+) token=(\S+)", sent_mail()[0].body).groups()
        confirm = {"uid": uid, "token": token, "new_password": PASSWORD}
        refused = anon_client.post("/api/auth/password/reset/confirm/", confirm, format="json")
        assert refused.status_code == 400 and refused.json()["error"]["fields"]["new_password"][0].startswith("That is your current")
        changed = anon_client.post("/api/auth/password/reset/confirm/", {**confirm, "new_password": "another good one 5"}, format="json")
        assert changed.status_code == 204
        assert User.objects.get(username="alice").check_password("another good one 5")

    def test_one_address_gets_at_most_three_reset_mails_an_hour(self, alice, monkeypatch):
        """The request needs no account and its throttle is per client: without this, anyone could
        fill a player's mailbox. The answer stays 202 (it says nothing about the address)."""
        alice.email = "alice@example.com"
        alice.save()
        for i in range(5):
            answer = APIClient(REMOTE_ADDR=f"10.6.0.{i}").post("/api/auth/password/reset/", {"email": "ALICE@example.com"}, format="json")
            assert answer.status_code == 202
        assert len(sent_mail()) == 3

    def test_the_reset_mail_is_sent_after_the_answer_so_its_timing_reveals_no_account(self, alice, anon_client, settings):
        """Sent in the request, an SMTP round trip made the answer slower exactly when the address
        was a player's. The mail goes out from the sender thread, not the request's."""
        alice.email = "alice@example.com"
        alice.save()
        settings.EMAIL_BACKEND = "tests.test_api_accounts.ThreadNotingBackend"
        ThreadNotingBackend.threads.clear()
        assert anon_client.post("/api/auth/password/reset/", {"email": "alice@example.com"}, format="json").status_code == 202
        assert len(sent_mail()) == 1
        assert ThreadNotingBackend.threads and threading.current_thread().name not in ThreadNotingBackend.threads
        assert all(name.startswith("mail") for name in ThreadNotingBackend.threads)

    def test_a_mail_server_that_fails_is_logged_not_a_server_error(self, alice, anon_client, settings, caplog):
        alice.email = "alice@example.com"
        alice.save()
        settings.EMAIL_BACKEND = "tests.test_api_accounts.RefusingBackend"
        assert anon_client.post("/api/auth/password/reset/", {"email": "alice@example.com"}, format="json").status_code == 202
        sent_mail()
        assert "could not send 1 mail(s) to [['alice@example.com']]" in caplog.text

    def test_reset_by_email_sets_a_new_password(self, alice, anon_client):
        alice.email = "alice@example.com"
        alice.save()
        assert anon_client.post("/api/auth/password/reset/", {"email": "alice@example.com"}, format="json").status_code == 202
        assert anon_client.post("/api/auth/password/reset/", {"email": "nobody@example.com"}, format="json").status_code == 202
        assert len(sent_mail()) == 1
        uid, token = re.search(r"uid=(\S+) token=(\S+)", sent_mail()[0].body).groups()
        bad = anon_client.post("/api/auth/password/reset/confirm/", {"uid": uid, "token": "x-y", "new_password": "another good one 5"}, format="json")
        assert bad.status_code == 400
        good = anon_client.post("/api/auth/password/reset/confirm/", {"uid": uid, "token": token, "new_password": "another good one 5"}, format="json")
        assert good.status_code == 204
        assert User.objects.get(username="alice").check_password("another good one 5")


class TestProfile:
    def test_a_player_edits_their_profile(self, alice_client):
        response = alice_client.patch("/api/me/", {"display_name": "Alice A.", "bio": "aces high"}, format="json")
        assert response.status_code == 200 and response.json()["display_name"] == "Alice A."

    def test_a_display_name_may_not_be_another_players_username(self, alice, bob, alice_client):
        """The profile shows it large under the username: "Bob" on alice's page would pass for bob."""
        for name in ("bob", "BOB", " Bob "):
            refused = alice_client.patch("/api/me/", {"display_name": name, "bio": "hi"}, format="json")
            assert refused.status_code == 400, name
            error = refused.json()["error"]
            assert error["code"] == "invalid_request" and list(error["fields"]) == ["display_name"]
        assert alice_client.get("/api/me/").json()["bio"] == ""  # nothing of the refused edit was kept
        for name in ("Alice", "bobby tables", ""):  # one's own name, in any case, and others are fine
            assert alice_client.patch("/api/me/", {"display_name": name}, format="json").status_code == 200, name

    def test_the_public_profile_shows_statistics_and_friendship(self, alice, bob, bob_client, charlie_client):
        assert bob_client.get("/api/users/alice/").json()["is_friend"] is True
        body = charlie_client.get("/api/users/alice/").json()
        assert body["is_friend"] is False and "stats" in body and "email" not in body

    def test_the_profile_says_whose_friend_request_is_waiting(self, alice, charlie, alice_client, charlie_client, anon_client):
        """The page shows a sent request as pending rather than offering to send it again."""
        assert alice_client.get("/api/users/charlie/").json()["friendship"] == "none"
        assert alice_client.post("/api/friends/requests/", {"username": "charlie"}, format="json").status_code in (200, 201)
        assert alice_client.get("/api/users/charlie/").json()["friendship"] == "request_sent"
        assert charlie_client.get("/api/users/alice/").json()["friendship"] == "request_received"
        assert charlie_client.post("/api/friends/requests/alice/accept/").status_code in (200, 204)
        body = charlie_client.get("/api/users/alice/").json()
        assert body["friendship"] == "friends" and body["is_friend"] is True
        assert anon_client.get("/api/users/alice/").json()["friendship"] is None
        assert alice_client.get("/api/users/alice/").json()["friendship"] is None  # oneself

    def test_an_unknown_player_is_not_found(self, anon_client, db):
        assert code_of(anon_client.get("/api/users/nobody/")) == "not_found"


class TestFriends:
    def test_request_accept_list_and_remove(self, alice, charlie):
        alice_client, charlie_client = client_for(alice), client_for(charlie)
        sent = alice_client.post("/api/friends/requests/", {"username": "charlie"}, format="json")
        assert sent.status_code == 201 and sent.json()["outgoing"][0]["username"] == "charlie"
        assert charlie_client.get("/api/friends/").json()["incoming"][0]["username"] == "alice"
        accepted = charlie_client.post("/api/friends/requests/alice/accept/")
        assert accepted.status_code == 200 and [f["username"] for f in accepted.json()["friends"]] == ["alice"]
        assert [f["username"] for f in alice_client.get("/api/friends/").json()["friends"]] == ["charlie"]
        assert alice_client.delete("/api/friends/charlie/").status_code == 204
        assert charlie_client.get("/api/friends/").json()["friends"] == []

    def test_decline_removes_the_request(self, alice, charlie):
        client_for(alice).post("/api/friends/requests/", {"username": "charlie"}, format="json")
        assert client_for(charlie).post("/api/friends/requests/alice/decline/").status_code == 200
        assert client_for(alice).get("/api/friends/").json()["outgoing"] == []

    def test_asking_back_accepts_the_pending_request(self, alice, charlie):
        client_for(alice).post("/api/friends/requests/", {"username": "charlie"}, format="json")
        body = client_for(charlie).post("/api/friends/requests/", {"username": "alice"}, format="json").json()
        assert [f["username"] for f in body["friends"]] == ["alice"]

    @pytest.mark.parametrize(("name", "code"), [("alice", "invalid_request"), ("nobody", "not_found")])
    def test_bad_requests_are_refused(self, alice_client, name, code):
        assert code_of(alice_client.post("/api/friends/requests/", {"username": name}, format="json")) == code

    def test_answering_a_request_that_does_not_exist_is_not_found(self, alice_client, charlie):
        assert code_of(alice_client.post("/api/friends/requests/charlie/accept/")) == "not_found"

    def test_friends_need_an_account(self, anon_client, db):
        assert anon_client.get("/api/friends/").status_code == 401


def with_token(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def session_for(user) -> APIClient:
    """A signed-in web page: session cookie, and the CSRF token it sends back on writes."""
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(user)
    client.get("/")  # sets the csrftoken cookie
    client.defaults["HTTP_X_CSRFTOKEN"] = client.cookies["csrftoken"].value
    return client


def reset_link_of(user) -> tuple[str, str]:
    """The uid and token a reset e-mail to `user` carries."""
    user.email = f"{user.username}@example.com"
    user.save()
    APIClient().post("/api/auth/password/reset/", {"email": user.email}, format="json")
    return re.search(r"uid=(\S+) token=(\S+)", sent_mail()[-1].body).groups()


NEW = "a fresh password 7"


class TestTokenRevocation:
    """A password change, a reset or a token logout ends the API token, as they end sessions."""

    def test_a_change_made_with_a_token_revokes_it_and_answers_the_new_one(self, alice):
        old = token_of(alice)
        response = with_token(old).post("/api/auth/password/change/", {"old_password": PASSWORD, "new_password": NEW}, format="json")
        assert response.status_code == 200
        new = response.json()["token"]
        assert new != old and new.startswith("fco_")
        assert code_of(with_token(old).get("/api/me/")) == "authentication_failed"
        assert with_token(new).get("/api/me/").json()["username"] == "alice"
        # The new password gets a token (a new one: keys are stored hashed), and the old password none.
        fresh = APIClient().post("/api/auth/token/", {"username": "alice", "password": NEW}, format="json").json()["token"]
        assert fresh not in (old, new) and with_token(fresh).get("/api/me/").json()["username"] == "alice"
        assert APIClient().post("/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json").status_code == 401

    def test_a_change_made_in_the_session_keeps_that_session_and_revokes_the_token(self, alice):
        old = token_of(alice)
        page, other_device = session_for(alice), session_for(alice)
        response = page.post("/api/auth/password/change/", {"old_password": PASSWORD, "new_password": NEW}, format="json")
        assert response.status_code == 204 and not response.content  # no token handed to a page's script
        assert page.get("/api/me/").status_code == 200
        assert other_device.get("/api/me/").status_code in (401, 403)
        assert code_of(with_token(old).get("/api/me/")) == "authentication_failed"

    def test_a_refused_change_keeps_the_token(self, alice):
        old = token_of(alice)
        with_token(old).post("/api/auth/password/change/", {"old_password": PASSWORD, "new_password": "123"}, format="json")
        assert with_token(old).get("/api/me/").status_code == 200

    def test_a_reset_revokes_the_token(self, alice):
        old = token_of(alice)
        uid, token = reset_link_of(alice)
        answer = APIClient().post("/api/auth/password/reset/confirm/", {"uid": uid, "token": token, "new_password": NEW}, format="json")
        assert answer.status_code == 204
        assert code_of(with_token(old).get("/api/me/")) == "authentication_failed"
        fresh = APIClient().post("/api/auth/token/", {"username": "alice", "password": NEW}, format="json").json()["token"]
        assert fresh != old

    def test_a_reset_link_works_once_and_not_for_a_deactivated_account(self, alice, charlie):
        uid, token = reset_link_of(alice)
        confirm = {"uid": uid, "token": token, "new_password": NEW}
        assert APIClient().post("/api/auth/password/reset/confirm/", confirm, format="json").status_code == 204
        again = APIClient().post("/api/auth/password/reset/confirm/", {**confirm, "new_password": "yet another one 8"}, format="json")
        assert again.status_code == 400 and "invalid or has expired" in again.json()["error"]["message"]
        uid, token = reset_link_of(charlie)
        User.objects.filter(pk=charlie.pk).update(is_active=False)
        refused = APIClient().post("/api/auth/password/reset/confirm/", {"uid": uid, "token": token, "new_password": NEW}, format="json")
        assert refused.status_code == 400

    def test_a_logout_with_a_token_revokes_that_token(self, alice):
        old = token_of(alice)
        assert with_token(old).post("/api/auth/logout/").status_code == 204
        assert code_of(with_token(old).get("/api/me/")) == "authentication_failed"
        fresh = APIClient().post("/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json").json()["token"]
        assert fresh != old and with_token(fresh).get("/api/me/").status_code == 200

    def test_a_session_logout_leaves_the_token(self, alice):
        old = token_of(alice)
        page = session_for(alice)
        assert page.post("/api/auth/logout/").status_code == 204
        assert page.get("/api/me/").status_code in (401, 403)
        assert with_token(old).get("/api/me/").status_code == 200


class TestUsernames:
    """New names are ASCII (no look-alikes, exact case folding); a typed name finds its player in any case."""

    def test_the_database_keeps_names_unique_in_any_case_when_the_check_is_raced(self, alice):
        # Two sign-ups at the same instant both pass the serializer's check; the index stops the second.
        from accounts import services
        from freecell_site.errors import ServiceError

        with pytest.raises(ServiceError, match="taken"):
            services.register(username="ALICE", password=PASSWORD)
        assert User.objects.filter(username__iexact="alice").count() == 1

    # Accents, the sharp s (which upper-cases to SS), a Cyrillic "а" and a fullwidth "ａ" before "lice".
    @pytest.mark.parametrize("name", ["Ünïcødée0ae", "Straße1x", "\u0430lice", "\uff41lice"])
    def test_sign_up_refuses_a_name_outside_ascii(self, anon_client, db, name):
        response = anon_client.post("/api/auth/register/", {"username": name, "password": PASSWORD}, format="json")
        assert response.status_code == 400 and "username" in response.json()["error"]["fields"]
        assert not User.objects.exists()

    def test_sign_up_takes_letters_digits_and_the_five_signs(self, anon_client, db):
        response = anon_client.post("/api/auth/register/", {"username": "Ann_B.c-d@e+9", "password": PASSWORD}, format="json")
        assert response.status_code == 201 and response.json()["username"] == "Ann_B.c-d@e+9"

    def test_the_display_name_stays_free(self, alice_client):
        response = alice_client.patch("/api/me/", {"display_name": "Ünïcødée Straße"}, format="json")
        assert response.status_code == 200 and response.json()["display_name"] == "Ünïcødée Straße"

    def test_a_token_and_a_session_login_take_the_name_in_any_case(self, anon_client, alice):
        token = anon_client.post("/api/auth/token/", {"username": "ALICE", "password": PASSWORD}, format="json")
        assert token.status_code == 200 and with_token(token.json()["token"]).get("/api/me/").json()["username"] == "alice"
        session = anon_client.post("/api/auth/login/", {"username": "Alice", "password": PASSWORD}, format="json")
        assert session.status_code == 200 and session.json() == {"username": "alice"}
        wrong = anon_client.post("/api/auth/token/", {"username": "Alice", "password": "nope"}, format="json")
        assert wrong.status_code == 401

    def test_failures_in_any_case_count_for_one_account(self, anon_client, alice, monkeypatch, settings):
        from accounts import throttle

        monkeypatch.setattr(throttle.time, "time", lambda: 5_000_700.0)
        settings.LOGIN_ACCOUNT_FAILURES = 10
        for name in ("aLiCe", "ALICE", "Alice", "alice", "alicE") * 2:
            APIClient(REMOTE_ADDR="10.9.0.1").post("/api/auth/token/", {"username": name, "password": "wrong"}, format="json")
        locked = APIClient(REMOTE_ADDR="10.9.0.1").post("/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json")
        assert locked.status_code == 429

    def test_a_guess_spread_over_many_machines_is_stopped_but_the_owners_browser_signs_in(self, alice, monkeypatch, settings):
        from accounts import throttle

        monkeypatch.setattr(throttle.time, "time", lambda: 6_000_300.0)
        browser = APIClient(REMOTE_ADDR="10.8.9.9")
        assert browser.post("/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json").status_code == 200
        for machine in range(settings.LOGIN_ACCOUNT_FAILURES):  # one guess from each machine: the account's own limit
            APIClient(REMOTE_ADDR=f"10.8.1.{machine}").post("/api/auth/token/", {"username": "alice", "password": "wrong"}, format="json")
        locked = APIClient(REMOTE_ADDR="10.8.9.8").post("/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json")
        assert locked.status_code == 429
        # The browser that signed in before is judged by its own failures (accounts/devices.py).
        assert browser.post("/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json").status_code == 200

    def test_a_profile_is_found_in_any_case(self, anon_client, alice):
        response = anon_client.get("/api/users/ALICE/")
        assert response.status_code == 200 and response.json()["username"] == "alice"

    def test_friends_are_asked_answered_and_removed_in_any_case(self, alice, charlie):
        alice_client, charlie_client = client_for(alice), client_for(charlie)
        assert alice_client.post("/api/friends/requests/", {"username": "CHARLIE"}, format="json").status_code == 201
        assert charlie_client.post("/api/friends/requests/Alice/accept/").status_code == 200
        assert [f["username"] for f in alice_client.get("/api/friends/").json()["friends"]] == ["charlie"]
        assert alice_client.delete("/api/friends/Charlie/").status_code == 204
        alice_client.post("/api/friends/requests/", {"username": "charlie"}, format="json")
        assert charlie_client.post("/api/friends/requests/ALICE/decline/").status_code == 200

    def test_the_database_refuses_two_names_that_differ_only_in_case(self, db):
        from django.db import IntegrityError, transaction

        User.objects.create_user(username="Twin")
        with pytest.raises(IntegrityError), transaction.atomic():
            User.objects.create_user(username="twin")


class TestEmailLength:
    """auth_user.email holds 254 characters: a longer address is a 400 naming the field, not a 500."""

    LONG = "a" * 64 + "@" + "b" * 63 + "." + "c" * 63 + "." + "d" * 63 + "." + "e" * 45 + ".com"  # 306 characters
    FITS = "a" * 64 + "@" + "b" * 63 + "." + "c" * 63 + "." + "d" * 57 + ".com"  # 254 characters

    def test_the_addresses_are_as_long_as_they_say(self):
        assert (len(self.LONG), len(self.FITS)) == (306, 254)

    def test_a_profile_refuses_an_address_too_long(self, alice, alice_client):
        response = alice_client.patch("/api/me/", {"email": self.LONG}, format="json")
        assert response.status_code == 400 and code_of(response) == "invalid_request"
        assert "email" in response.json()["error"]["fields"]
        alice.refresh_from_db()
        assert alice.email == ""
        assert alice_client.patch("/api/me/", {"email": self.FITS, "password": PASSWORD}, format="json").json()["email"] == self.FITS

    def test_changing_the_address_needs_the_current_password(self, alice, alice_client):
        """Resets are mailed there: a stolen session or token alone must not move it (then reset the
        password and keep the account)."""
        for body, message in (({"email": "thief@example.com"}, "needed"), ({"email": "thief@example.com", "password": "guess"}, "wrong")):
            response = alice_client.patch("/api/me/", body, format="json")
            assert response.status_code == 400 and message in response.json()["error"]["fields"]["password"][0], response.json()
        alice.refresh_from_db()
        assert alice.email == ""
        # Other fields, or the same address again, need no password.
        assert alice_client.patch("/api/me/", {"bio": "hi", "email": ""}, format="json").status_code == 200
        moved = alice_client.patch("/api/me/", {"email": "alice@new.example", "password": PASSWORD}, format="json")
        assert moved.status_code == 200 and moved.json()["email"] == "alice@new.example" and "password" not in moved.json()
        # The same address with a wrong password was answered 200, as if it had been changed.
        same = alice_client.patch("/api/me/", {"email": "alice@new.example", "password": "guess"}, format="json")
        assert same.status_code == 400 and "wrong" in same.json()["error"]["fields"]["password"][0]

    def test_wrong_current_passwords_are_counted_like_failed_logins(self, alice, alice_client, monkeypatch, settings):
        from accounts import throttle

        monkeypatch.setattr(throttle.time, "time", lambda: 8_000_000.0)
        for _ in range(settings.LOGIN_ACCOUNT_FAILURES):
            alice_client.post("/api/auth/password/change/", {"old_password": "guess", "new_password": "a fresh password 7"}, format="json")
        refused = alice_client.patch("/api/me/", {"email": "x@example.com", "password": PASSWORD}, format="json")
        assert refused.status_code == 429 and code_of(refused) == "rate_limited"

    def test_sign_up_refuses_an_address_too_long(self, anon_client, db):
        response = anon_client.post("/api/auth/register/", {"username": "dora", "password": PASSWORD, "email": self.LONG}, format="json")
        assert response.status_code == 400 and "email" in response.json()["error"]["fields"]
        assert not User.objects.filter(username="dora").exists()

    def test_a_reset_request_refuses_an_address_too_long(self, anon_client, db):
        response = anon_client.post("/api/auth/password/reset/", {"email": self.LONG}, format="json")
        assert response.status_code == 400 and "email" in response.json()["error"]["fields"]


class TestFriendRequestAnswers:
    """201 when a request is made; 200 when nothing new is (a resend, a friend already, theirs accepted)."""

    def test_a_resend_is_200_and_changes_nothing(self, alice, charlie):
        client = client_for(alice)
        first = client.post("/api/friends/requests/", {"username": "charlie"}, format="json")
        again = client.post("/api/friends/requests/", {"username": "charlie"}, format="json")
        assert (first.status_code, again.status_code) == (201, 200)
        assert again.json() == first.json()

    def test_asking_a_friend_is_200(self, alice, bob):
        response = client_for(alice).post("/api/friends/requests/", {"username": "bob"}, format="json")
        assert response.status_code == 200 and [f["username"] for f in response.json()["friends"]] == ["bob"]

    def test_asking_back_accepts_theirs_with_200(self, alice, charlie):
        client_for(alice).post("/api/friends/requests/", {"username": "charlie"}, format="json")
        response = client_for(charlie).post("/api/friends/requests/", {"username": "alice"}, format="json")
        assert response.status_code == 200 and [f["username"] for f in response.json()["friends"]] == ["alice"]


class ThreadNotingBackend(locmem.EmailBackend):
    """Django's test backend, noting the thread each mail was sent from."""

    threads: list[str] = []

    def send_messages(self, messages):
        self.threads.append(threading.current_thread().name)
        return super().send_messages(messages)


class RefusingBackend(locmem.EmailBackend):
    def send_messages(self, messages):
        raise ConnectionRefusedError("the mail server is down")


# --- a login, a change or a reset overlapping another (each is checked on the locked row) ------------


@pytest.mark.django_db
def test_a_token_login_that_a_password_change_overtakes_gets_no_token(alice, monkeypatch):
    """The login checked the old password, then a change went through before its token was read: it
    got the change's new token, and whoever knew the old password kept the account."""
    from accounts import services, views

    checked = views.check_credentials

    def check_then_changed_elsewhere(request, username, password):
        user = checked(request, username, password)
        services.change_password(User.objects.get(pk=user.pk), "a brand new long secret", new_token=True)
        return user  # as read before the change

    monkeypatch.setattr(views, "check_credentials", check_then_changed_elsewhere)
    answer = APIClient().post("/api/auth/token/", {"username": "alice", "password": PASSWORD}, format="json")
    assert answer.status_code == 401 and answer.json()["error"]["code"] == "authentication_failed"


@pytest.mark.django_db
def test_a_password_change_that_another_overtakes_is_refused(alice):
    from accounts import services
    from freecell_site.errors import ServiceError

    stale = User.objects.get(pk=alice.pk)  # as the second request read it, with the same old password
    services.change_password(User.objects.get(pk=alice.pk), "the first new long secret", new_token=True)
    with pytest.raises(ServiceError) as refused:
        services.change_password(stale, "the second new long secret", new_token=True)
    assert refused.value.code == "invalid_request" and "old_password" in refused.value.extra["fields"]
    alice.refresh_from_db()
    assert alice.check_password("the first new long secret")


@pytest.mark.django_db
def test_a_reset_link_sent_twice_at_once_resets_once(alice, monkeypatch):
    from accounts import services
    from freecell_site.errors import ServiceError

    uid, token = reset_link_of(alice)
    stale = services.user_of_reset_link(uid, token)  # the second request read the user before the first reset
    services.reset_password(uid=uid, token=token, new_password="the first new long secret")
    monkeypatch.setattr(services, "user_of_reset_link", lambda uid, token: stale)
    with pytest.raises(ServiceError):
        services.reset_password(uid=uid, token=token, new_password="the second new long secret")
    alice.refresh_from_db()
    assert alice.check_password("the first new long secret")


@pytest.mark.django_db(transaction=True)
def test_the_migration_merges_friend_requests_that_crossed():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = [("accounts", "0002_username_unique_in_any_case")], [("accounts", "0003_one_friendship_per_pair")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    users = apps.get_model("auth", "User")
    friendship = apps.get_model("accounts", "Friendship")
    a, b, c, d = (users.objects.create(username=name) for name in ("ann", "ben", "cy", "dee"))
    friendship.objects.create(from_user=a, to_user=b, status="pending")  # crossed: both asked
    friendship.objects.create(from_user=b, to_user=a, status="pending")
    friendship.objects.create(from_user=c, to_user=d, status="accepted")  # crossed, both accepted
    friendship.objects.create(from_user=d, to_user=c, status="accepted")
    friendship.objects.create(from_user=a, to_user=c, status="pending")  # alone: untouched
    executor = MigrationExecutor(connection)
    executor.migrate(after)
    apps = executor.loader.project_state(after).apps
    rows = sorted(
        (min(r.from_user_id, r.to_user_id), max(r.from_user_id, r.to_user_id), r.status)
        for r in apps.get_model("accounts", "Friendship").objects.all()
    )
    assert rows == sorted([(a.pk, b.pk, "accepted"), (c.pk, d.pk, "accepted"), (a.pk, c.pk, "pending")])
    MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())
