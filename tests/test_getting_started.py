"""The getting-started page's steps, read from the served page and pasted in order into a shell against a live server, answer as the page says."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import urllib.request
from dataclasses import dataclass
from html import unescape
from pathlib import Path

import pytest

from frontend.getting_started import PROGRAMS, STEPS, shown


def substitute(text: str, variables: dict) -> str:
    return re.sub(r"\$([A-Z_]+)", lambda m: variables.get(m.group(1), m.group(0)), text)


def check_answer(output: str, answer, variables: dict) -> None:
    """The output holds the step's answer: its text, or a JSON object with the answer's fields."""
    if isinstance(answer, str):
        assert answer in output, output
        return
    line = next(line for line in output.splitlines() if line.startswith("{"))
    real = json.loads(line)
    for key, expected in answer.items():
        if isinstance(expected, str) and expected.startswith("$"):
            assert str(real.get(key)) == variables[expected[1:]], (key, real)
        else:
            assert real.get(key) == expected, (key, real)


@dataclass
class PageStep:
    """A step as the page shows it: what a developer reads and pastes, nothing else."""

    title: str
    command: str
    program: tuple[str, str] | None  # (file name, text) of a program the page says to save
    answer: object  # a JSON object's shown fields, or text; None when the page shows none
    sets: tuple[str, ...]  # the shell variables the command assigns


def _code(block: str, testid: str) -> re.Match | None:
    return re.search(rf'<code[^>]*data-testid="{testid}"(?: data-file="([^"]*)")?>(.*?)</code>', block, re.S)


def page_steps(html: str) -> list[PageStep]:
    """The steps of /developers/ read from its HTML: commands, programs and answers as shown."""
    steps = []
    for block in re.findall(r'<li id="step-\d+" data-testid="step">(.*?)</li>', html, re.S):
        title = unescape(re.search(r"<h2>(.*?)</h2>", block, re.S).group(1))
        command = unescape(_code(block, "command").group(2))
        program = _code(block, "program")
        shown_answer = _code(block, "answer")
        answer = None
        if shown_answer is not None:
            answer = unescape(shown_answer.group(2))
            if answer.startswith("{") and answer.endswith(", ...}"):
                answer = json.loads(answer[: -len(", ...}")] + "}")
        sets = tuple(dict.fromkeys(re.findall(r"(?:^|\s)([A-Z_]+)=", command)))
        steps.append(PageStep(title, command, program and (program.group(1), unescape(program.group(2))), answer, sets))
    return steps


def read_page(base: str) -> str:
    with urllib.request.urlopen(base + "/developers/", timeout=30) as answer:
        return answer.read().decode()


def run_steps(base: str, folder: Path, *, sockets: bool) -> list[str]:
    """Reads the steps from the served page and runs each as a developer pastes it, in a shell that
    has the variables the steps before it set; answers the steps skipped, each with its reason."""
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    # The steps' python3 is this one, with its packages (websockets).
    (bin_dir / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (bin_dir / "python3").chmod(0o755)
    steps = page_steps(read_page(base))
    assert len(steps) == len(STEPS)
    variables: dict[str, str] = {}
    skipped = []
    for number, step in enumerate(steps, start=1):
        name = f"step {number} ({step.title})"
        if step.program and "import websockets" in step.program[1] and not sockets:
            skipped.append(f"{name}: needs a websocket server (run by the test over Daphne, marked services)")
            continue
        if step.program:
            (folder / step.program[0]).write_text(step.program[1])
        # The earlier steps' variables as a terminal holds them: set in the shell, not exported (a
        # program that reads one from its environment needs its step to export it, as a reader would).
        script = "set -e\n" + "".join(f"{var}={shlex.quote(value)}\n" for var, value in variables.items()) + step.command
        script += "".join(f"\nprintf '\\n__set__ {var}=%s\\n' \"${var}\"" for var in step.sets)
        env = {**{k: v for k, v in os.environ.items() if k not in variables}, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
        done = subprocess.run(["bash", "-c", script], cwd=folder, env=env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, f"{name} failed: {done.stdout}\n{done.stderr}"
        output = []
        for line in done.stdout.splitlines():
            if line.startswith("__set__ "):
                var, _, value = line[len("__set__ ") :].partition("=")
                assert value, f"{name} did not set {var}: {done.stdout}\n{done.stderr}"
                variables[var] = value
            else:
                output.append(line)
        if step.answer:
            check_answer("\n".join(output), step.answer, variables)
    return skipped


@pytest.fixture
def quick_races(settings):
    # No sweeper runs beside live_server to show the boards when a countdown ends: start at once. The
    # Daphne test below runs the default countdown, which the race step waits for by asking again.
    settings.RACE_COUNTDOWN_S = 0


@pytest.mark.django_db(transaction=True)
def test_every_step_answers_as_the_page_says(live_server, tmp_path, quick_races):
    skipped = run_steps(live_server.url, tmp_path, sockets=False)
    for reason in skipped:
        print("skipped", reason)
    # Every step runs but the socket step.
    assert len(skipped) == 1 and "websocket" in skipped[0], skipped


@pytest.mark.services
@pytest.mark.slow
def test_every_step_answers_as_the_page_says_over_daphne(tmp_path):
    """The same steps against a Daphne server on PostgreSQL and Redis: the websocket step runs too."""
    from tests.support.servers import fresh_database, server_env, servers

    with fresh_database("freecell_started") as url, servers(1, server_env(url, os.environ["REDIS_URL"])) as (server,):
        skipped = run_steps(server.base, tmp_path, sockets=True)
    assert skipped == []


def test_a_step_whose_answer_differs_fails(tmp_path):
    """check_answer can fail: a field with another value, or text that is not there."""
    check_answer('{"ply": 1, "repeated": true}', {"ply": 1, "repeated": True}, {})
    with pytest.raises(AssertionError):
        check_answer('{"ply": 1, "repeated": false}', {"ply": 1, "repeated": True}, {})
    with pytest.raises(AssertionError):
        check_answer('{"id": 7}', {"id": "$GAME"}, {"GAME": "8"})
    with pytest.raises(AssertionError):
        check_answer("played 5a", "played 5b", {})


@pytest.mark.django_db
def test_the_page_shows_every_step_and_the_grammars(client):
    from freecell_site.api_docs import DEAL_IDS, NOTATION

    html = client.get("/developers/").content.decode()
    text = unescape(html)
    plain = unescape(re.sub(r"</?code>", "", html))
    for step in STEPS:
        assert step.title in text
        assert step.text.replace("`", "") in plain
        assert step.command.replace("{site}", "http://testserver") in text
        assert shown(step.answer) in text
    for program in PROGRAMS.values():
        assert program[1] in text
    for rule in NOTATION + DEAL_IDS:
        assert rule.replace("`", "") in plain
    for link in ("/api/docs/", "/api/asyncapi.json"):
        assert f'href="{link}"' in html


@pytest.mark.django_db
def test_the_steps_read_from_the_page_are_the_steps(client):
    """What the runner reads from the HTML is each step's command, program and answer, so a page that
    shows something else than what runs cannot pass."""
    steps = page_steps(client.get("/developers/").content.decode())
    assert [step.title for step in steps] == [step.title for step in STEPS]
    for read, step in zip(steps, STEPS, strict=True):
        assert read.command == step.command.replace("{site}", "http://testserver")
        assert read.program == PROGRAMS.get(step.command)
        assert read.answer == step.answer
    assert [step.sets for step in steps if step.sets] == [
        ("BASE",), ("TOKEN",), ("TOKEN",), ("GAME",), ("CODE",), ("RACE_GAME",), ("BOT_TOKEN",), ("LINE",), ("BOT_RACE",), ("BOT_GAME",),
    ]


def test_no_step_waits_a_fixed_time():
    """Where the service is asynchronous a step asks again until the answer is there (`until ...; do
    sleep ...; done`), never sleeps a fixed time and hopes (a race's boards came 3.15-3.64 s after a
    3 s countdown, so `sleep 3` read no game)."""
    for step in STEPS:
        without_polls = re.sub(r"until .*?; do sleep [0-9.]+; done", "", step.command, flags=re.S)
        assert "sleep" not in without_polls, step.title
        for _filename, program in PROGRAMS.values():
            # A program waits only as long as the server asks (a 429's retry_after_ms), never a time of its own.
            assert all("retry_after" in wait for wait in re.findall(r"time\.sleep\(([^)]*)\)", program)), _filename
            assert "asyncio.sleep" not in program
    assert any("until " in step.command for step in STEPS)  # the race step polls
