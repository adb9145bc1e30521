"""Migration 0018 splits the deal records' crowded move counts by time (RecordSpanTally) from the
records already stored: the move counts holding 256 lines or more, and those only."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.support.migrations import migrate_to, migrate_to_latest

BEFORE = [("games", "0017_daily_game")]
AFTER = [("games", "0018_record_span_tally")]


@pytest.mark.django_db(transaction=True)
def test_the_crowded_move_counts_stored_are_split_by_ten_seconds():
    apps = migrate_to(BEFORE)
    try:
        User, Deal, Game, DealRecord, RecordTally = (
            apps.get_model(*name) for name in (("auth", "User"), ("games", "Deal"), ("games", "Game"), ("games", "DealRecord"), ("games", "RecordTally"))
        )
        players = User.objects.bulk_create(User(username=f"m{i}", password="!") for i in range(300))
        deal = Deal.objects.create(id="seed:7", columns=[[]] * 8)
        finished = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
        # 256 lines with 40 moves (a crowded move count), 44 with 41 (not crowded).
        lines = [(40 if i < 256 else 41, 600_000 + 2_500 * (i % 9)) for i in range(300)]
        games = Game.objects.bulk_create(Game(deal=deal, player=player, state={}) for player in players)
        DealRecord.objects.bulk_create(
            DealRecord(deal=deal.pk, autoplay="safe", player=player, game=game, moves=moves, elapsed_ms=elapsed, finished_at=finished)
            for player, game, (moves, elapsed) in zip(players, games, lines, strict=True)
        )
        RecordTally.objects.bulk_create([RecordTally(deal=deal.pk, autoplay="safe", moves=40, count=256), RecordTally(deal=deal.pk, autoplay="safe", moves=41, count=44)])

        apps = migrate_to(AFTER)
        spans = apps.get_model("games", "RecordSpanTally").objects.values_list("deal", "autoplay", "bot", "moves", "span", "count")
        expected: dict[tuple, int] = {}
        for moves, elapsed in lines:
            if moves == 40:
                key = (deal.pk, "safe", False, 40, elapsed // 10_000)
                expected[key] = expected.get(key, 0) + 1
        assert {row[:-1]: row[-1] for row in spans} == expected
        assert len(expected) == 3  # 600,000 to 620,000 ms: spans 60, 61 and 62
    finally:
        migrate_to_latest()
