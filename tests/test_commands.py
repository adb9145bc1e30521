"""Management commands: deal and verify, and usage errors from the command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from games.engine import Board
from tests.support.lines import winning_line

ROOT = Path(__file__).resolve().parent.parent


def test_deal_prints_the_board_text(capsys):
    call_command("deal", "ms:1")
    out = capsys.readouterr().out
    assert Board.from_text(out) == Board.from_deal("ms:1")
    assert "JD KD 2S 4C 3S 6D 6S" in out


def test_deal_refuses_an_invalid_deal():
    with pytest.raises(CommandError, match="invalid_deal"):
        call_command("deal", "ms:0")


def test_deal_prints_a_dailys_board_once_it_is_made(db, capsys):
    """The daily's deal is drawn from the service's secret: the command looks it up, never deals the date."""
    import datetime as dt

    from games.play.services import board_of_deal
    from tests.support.daily import make_test_daily

    with pytest.raises(CommandError, match="not_found: there is no daily for 2026-03-01 yet"):
        call_command("deal", "daily:2026-03-01")
    with pytest.raises(CommandError, match="invalid_deal: 'tomorrow' is not a date"):
        call_command("deal", "daily:tomorrow")
    made = make_test_daily(dt.date(2026, 3, 1))
    call_command("deal", "daily:2026-03-01")
    assert Board.from_text(capsys.readouterr().out) == board_of_deal(made.deal)


def test_verify_says_a_winning_line_is_valid_and_won(capsys):
    call_command("verify", "ms:1", " ".join(winning_line("ms:1")), "--autoplay", "none")
    assert capsys.readouterr().out.startswith("valid and won")


def test_verify_names_the_first_bad_move():
    with pytest.raises(CommandError, match=r"move 1 \('1h'\) is refused: illegal_move"):
        call_command("verify", "ms:1", "3a 1h 57")


def test_verify_says_an_unfinished_line_is_valid_not_won(capsys):
    call_command("verify", "ms:1", "3a")
    assert capsys.readouterr().out.startswith("valid, not won: 1 moves")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["daily", "--ensure", "--date", "2026-02-30"], "'2026-02-30' is not a date"),
        (["daily", "--rebuild", "yesterday"], "'yesterday' is not a date"),
        (["daily", "--ensure", "--par-budget", "soon"], "'soon' is not a budget"),
        (["solve", "ms:1", "--budget", "0"], "'0' is not a budget"),
    ],
)
def test_a_bad_option_value_is_a_usage_error_not_a_traceback(args, message):
    # call_command turns both into CommandError; only a real command line shows the difference.
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert message in done.stderr
    assert "Traceback" not in done.stderr, done.stderr
