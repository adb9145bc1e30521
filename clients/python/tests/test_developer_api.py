"""Section 8 and 10 endpoints (tokens, streams, legal moves, random deals, race history, user search,
daily results, deal facts and records, the ladder). They are built on other branches: each test skips
with the reason while the server answers 404, and runs once they are merged."""

from __future__ import annotations

import queue
import threading

import pytest

from freecell_client import ApiError, FreeCellClient

from conftest import skip_unless_served


def test_scoped_tokens_are_made_listed_enforced_and_revoked(server, new_player):
    client, username = new_player()
    made = skip_unless_served(client.create_token, "reader", ["read"])
    assert made.token and made.name == "reader" and made.scopes == ["read"]
    reader = FreeCellClient(server.url, made.token)
    assert reader.me()["username"] == username
    assert reader.transport.scheme == "Bearer"  # a server with tokens takes Bearer
    with pytest.raises(ApiError) as refused:
        reader.create_game("ms:1")
    assert (refused.value.status, refused.value.code) == (403, "missing_scope")
    listed = client.tokens()
    assert [t.name for t in listed if t.id == made.id] == ["reader"] and all(t.token is None for t in listed)
    client.revoke_token(made.id)
    with pytest.raises(ApiError) as revoked:
        reader.me()
    assert revoked.value.status == 401


def test_random_deal(new_player):
    client, _ = new_player()
    try:
        game = client.create_game("random", autoplay="none")
    except ApiError as error:
        if error.code == "invalid_deal":
            pytest.skip("this server does not take deal 'random' yet")
        raise
    assert game.deal.startswith("seed:") and game.ply == 0


def test_legal_moves(new_player):
    client, _ = new_player()
    fixed = client.create_game("ms:1", autoplay="none")
    legal = skip_unless_served(client.legal_moves, fixed.id)
    assert legal.ply == 0 and "3a" in legal.moves and "1h" not in legal.moves


def test_game_stream_sends_the_game_then_each_change(new_player):
    client, _ = new_player()
    game = client.create_game("ms:1", autoplay="none")
    lines = client.stream_game(game.id, read_timeout=15)
    try:
        first = skip_unless_served(next, lines)
        first = first.get("game", first)
        assert first["id"] == game.id and first["ply"] == 0
        client.play_move(game.id, "3a", 0)
        changed = next(lines)
        changed = changed.get("game", changed)
        assert changed["ply"] == 1 and changed["state"]["cells"][0] == "2H"
    finally:
        lines.close()


def test_race_stream_sends_the_race(new_player):
    owner, _ = new_player()
    race = owner.create_race("ms:1")
    lines = owner.stream_race(race.code, read_timeout=15)
    try:
        first = skip_unless_served(next, lines)
        first = first.get("race", first)
        assert first["code"] == race.code and first["status"] == "open"
        owner.start_race(race.code)
        running = next(lines)
        assert running.get("race", running)["status"] in ("countdown", "running")
    finally:
        lines.close()


def test_race_history(new_player):
    owner, _ = new_player()
    race = owner.create_race("ms:1")
    owner.start_race(race.code)
    owner.resign_race(race.code)
    history = skip_unless_served(owner.race_history)
    assert race.code in [r.code for r in history.results]


def test_events_stream_tells_of_a_race_invitation(new_player):
    alice, alice_name = new_player("alice")
    bob, bob_name = new_player("bob")
    alice.request_friend(bob_name)
    bob.accept_friend(alice_name)
    seen: queue.Queue = queue.Queue()

    def listen():
        try:
            for line in bob.stream_events(read_timeout=15):
                seen.put(line)
        except ApiError as error:
            seen.put(error)

    threading.Thread(target=listen, daemon=True).start()
    race = alice.create_race("ms:1")
    # The stream may open after the invitation is sent: invite again until an event names the race.
    for _ in range(10):
        alice.invite_to_race(race.code, bob_name)
        try:
            item = seen.get(timeout=2)
        except queue.Empty:
            continue
        if isinstance(item, ApiError):
            if item.status == 404:
                pytest.skip(f"not served by this server yet: {item.message}")
            raise item
        if race.code in str(item):
            return
    pytest.fail("no event named the race")


def test_user_search_and_daily_results(new_player):
    client, username = new_player("searchme")
    found = skip_unless_served(client.search_users, username[:8])
    assert username in str(found.raw)
    results = skip_unless_served(client.user_daily, username)
    assert results is not None


def test_deal_facts(new_player):
    client, _ = new_player()
    facts = skip_unless_served(client.deal_facts, "ms:1")
    assert facts["deal"] == "ms:1" and facts["solvable"] is True and facts["par"] > 0


def test_records_ladder_and_streaks(new_player):
    client, _ = new_player()
    records = skip_unless_served(client.deal_records, "ms:1", autoplay="safe")
    assert isinstance(records.entries, list)
    month = client.daily().date[:7]
    ladder = skip_unless_served(client.ladder, month)
    assert isinstance(ladder.entries, list)
    streaks = skip_unless_served(client.streaks)
    assert isinstance(streaks.entries, list)
