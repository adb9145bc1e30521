"""The getting-started page's steps, pasted in order into a shell against a live server, answer as the page says."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from html import unescape
from pathlib import Path

import pytest

from frontend.getting_started import PROGRAMS, STEPS, shown


def substitute(text: str, variables: dict) -> str:
    return re.sub(r"\$([A-Z_]+)", lambda m: variables.get(m.group(1), m.group(0)), text)


def status_of(base: str, method: str, path: str, variables: dict) -> int:
    """The status the endpoint a step needs answers (only its headers are read: it may be a stream)."""
    request = urllib.request.Request(base + substitute(path, variables), method=method, data=b"{}" if method == "POST" else None)
    request.add_header("Authorization", f"Token {variables['TOKEN']}")
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


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


def run_steps(base: str, folder: Path, *, sockets: bool) -> list[str]:
    """Runs every step as a developer pastes it, each in a shell that has the variables the steps
    before it set; answers the steps skipped, each with its reason."""
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    # The steps' python3 is this one, with its packages (websockets).
    (bin_dir / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    (bin_dir / "python3").chmod(0o755)
    variables = {"BASE": base}
    skipped = []
    for number, step in enumerate(STEPS, start=1):
        name = f"step {number} ({step.title})"
        if step.needs:
            method, path = step.needs
            if status_of(base, method, path, variables) == 404:
                skipped.append(f"{name}: {method} {path} answers 404 on this server (not merged yet)")
                continue
        if step.requires == "websockets" and not sockets:
            skipped.append(f"{name}: needs a websocket server (run by the test over Daphne, marked services)")
            continue
        if step.command in PROGRAMS:
            filename, program = PROGRAMS[step.command]
            (folder / filename).write_text(program)
        script = "set -e\n" + step.command.replace("{site}", base)
        script += "".join(f"\nprintf '\\n__set__ {var}=%s\\n' \"${var}\"" for var in step.sets)
        env = {**os.environ, **variables, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
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
    settings.RACE_COUNTDOWN_S = 0  # the race step waits 3 s as the page says; the race has started by then


@pytest.mark.django_db(transaction=True)
def test_every_step_answers_as_the_page_says(live_server, tmp_path, quick_races):
    skipped = run_steps(live_server.url, tmp_path, sockets=False)
    for reason in skipped:
        print("skipped", reason)
    # Every step runs but those waiting on an endpoint of another branch, and the socket step.
    assert all("answers 404" in reason or "websocket" in reason for reason in skipped)
    assert sum("websocket" in reason for reason in skipped) == 1


@pytest.mark.services
@pytest.mark.slow
def test_every_step_answers_as_the_page_says_over_daphne(tmp_path):
    """The same steps against a Daphne server on PostgreSQL and Redis: the websocket step runs too."""
    from tests.support.servers import fresh_database, server_env, servers

    with fresh_database("freecell_started") as url, servers(1, server_env(url, os.environ["REDIS_URL"])) as (server,):
        skipped = run_steps(server.base, tmp_path, sockets=True)
    assert all("answers 404" in reason for reason in skipped), skipped


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
