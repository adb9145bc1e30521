"""Races with two clients: opened, joined and started over REST, followed over the race socket and by
the command line."""

from __future__ import annotations

import asyncio
import io

from freecell_client.cli import follow_race


def open_started_race(new_player):
    owner, owner_name = new_player("owner")
    guest, guest_name = new_player("guest")
    race = owner.create_race("ms:1", autoplay="none")
    assert race.status == "open" and race.owner == owner_name
    joined = guest.join_race(race.code)
    assert {r.username for r in joined.racers} == {owner_name, guest_name}
    started = owner.start_race(race.code)
    assert started.status in ("countdown", "running")
    return owner, owner_name, guest, guest_name, race.code


def test_two_clients_race_and_the_socket_sees_the_other_racers_moves(new_player):
    owner, owner_name, guest, guest_name, code = open_started_race(new_player)

    async def follow() -> list[dict]:
        seen: list[dict] = []
        async with guest.race_socket(code) as socket:
            while True:  # the race as it is on connect, running (the countdown is 0 here)
                frame = await socket.recv(10)
                seen.append(frame)
                if frame["type"] == "race" and frame["race"]["status"] == "running":
                    break
            game_id = next(r["game"] for r in frame["race"]["racers"] if r["username"] == owner_name)
            await asyncio.to_thread(owner.play_move, game_id, "3a", 0)
            while True:
                frame = await socket.recv(10)
                seen.append(frame)
                racer = frame.get("racer") if frame["type"] == "progress" else None
                if racer and racer["username"] == owner_name and racer["moves"] >= 1:
                    return seen

    seen = asyncio.run(asyncio.wait_for(follow(), 30))
    assert seen[-1]["racer"]["cards_home"] == 0
    assert socket_username_is(guest, code, guest_name)


def socket_username_is(client, code: str, username: str) -> bool:
    """The race socket signs in with the client's token (its `auth_ok` names the player)."""

    async def ask() -> str | None:
        async with client.race_socket(code) as socket:
            await socket.send({"type": "ping", "id": "p"})
            while socket.username is None:
                await socket.recv(10)
            return socket.username

    return asyncio.run(asyncio.wait_for(ask(), 20)) == username


def test_the_command_line_follows_a_race_to_its_end(new_player):
    owner, owner_name, guest, guest_name, code = open_started_race(new_player)
    out = io.StringIO()

    async def run() -> dict:
        follower = asyncio.create_task(follow_race(owner, code, out, timeout=10))
        while "running" not in out.getvalue():
            await asyncio.sleep(0.05)
        race = owner.race(code)
        game_id = race.racer(guest_name).game
        await asyncio.to_thread(guest.play_move, game_id, "3a", 0)
        await asyncio.to_thread(guest.resign_race, code)
        await asyncio.to_thread(owner.resign_race, code)
        return await follower

    final = asyncio.run(asyncio.wait_for(run(), 30))
    shown = out.getvalue()
    assert final["status"] == "finished"
    assert f"race {code} on ms:1: running" in shown and f"race {code} on ms:1: finished" in shown
    assert f"{guest_name}: 1 moves, 0/52 home, playing" in shown
    assert f"{guest_name}: 1 moves, 0/52 home, resigned" in shown


def test_quick_play_public_races_and_a_challenge(new_player):
    first, first_name = new_player("quick")
    second, second_name = new_player("quick")
    opened = first.quick_race()
    assert opened.public is True and opened.status == "open" and opened.owner == first_name
    assert opened.code in [race.code for race in second.public_races().results]
    joined = second.quick_race()
    assert joined.code == opened.code and joined.status == "countdown"
    assert {r.username for r in joined.racers} == {first_name, second_name}

    sent = first.challenge(second_name, "ms:3")
    assert (sent.status, sent.challenged, sent.deal, sent.code) == ("open", second_name, "ms:3", None)
    assert [c.id for c in second.challenges()["received"]] == [sent.id]
    accepted = second.accept_challenge(sent.id)
    assert accepted.status == "accepted" and accepted.code
    race = first.race(accepted.code)
    assert race.deal == "ms:3" and race.owner == first_name and race.status in ("countdown", "running")
    back = second.challenge(first_name)
    assert first.decline_challenge(back.id).status == "declined"
    again = second.challenge(first_name)
    assert second.cancel_challenge(again.id).status == "cancelled"
    assert first.get_challenge(again.id).status == "cancelled"
