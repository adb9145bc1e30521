"""The suite's settings and the fixtures every test gets; shared fixtures live in tests/support/."""

from __future__ import annotations

import os

import pytest

# The helpers' asserts report their values as a test's do (pytest rewrites only what it is told to).
pytest.register_assert_rewrite("tests.support")

# The fixture modules of tests/support/; its other modules are plain helpers that tests import.
pytest_plugins = [
    "tests.support.players",
    "tests.support.daily",
    "tests.support.servers",
    "tests.support.browser",
]

# Tests that need real PostgreSQL and Redis run only when both are configured (as in .ci/run).
SERVICES = bool(os.environ.get("DATABASE_URL", "").startswith("postgres") and os.environ.get("REDIS_URL"))


def pytest_collection_modifyitems(config, items):
    skip = pytest.mark.skip(reason="needs PostgreSQL and Redis: set DATABASE_URL=postgres://... and REDIS_URL")
    for item in items:
        if "services" in item.keywords and not SERVICES:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """On PostgreSQL a commit waits for its WAL to reach the disk; the test database is thrown away, so
    commits here return at once (synchronous_commit off: what a commit makes visible stays the same)."""
    from django.conf import settings

    for database in settings.DATABASES.values():
        if "postgresql" in database["ENGINE"]:
            options = database.setdefault("OPTIONS", {})
            options["options"] = f"{options.get('options', '')} -c synchronous_commit=off".strip()


@pytest.fixture(scope="session", autouse=True)
def _flush_postgresql_by_delete():
    """After each transactional test Django empties every table with one TRUNCATE, which on PostgreSQL
    costs a new file per table (a fifth of a second a test here); DELETE empties these few rows at once.
    The foreign keys Django makes are deferred, so the order of the deletes does not matter."""
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or allow_cascade:
            return truncate(self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        return [f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(self.quote_name(table))};" for table in tables]

    DatabaseOperations.sql_flush = sql_flush
    yield
    DatabaseOperations.sql_flush = truncate


@pytest.fixture(scope="session", autouse=True)
def _fast_password_hasher():
    """PBKDF2 is slow on purpose (a few hundred ms a hash); the suite hashes thousands of passwords, so it
    uses MD5 throughout. The servers the browser and multi-process tests start keep the real hasher."""
    from django.test.utils import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(scope="session", autouse=True)
def _no_automatic_review_in_tests():
    """Tests play at machine speed: fair play's automatic review is off (FAIR_PLAY_REVIEW=0, as on a private
    server); the tests of review turn it on (tests/test_fair_play.py)."""
    from django.test.utils import override_settings

    with override_settings(FAIR_PLAY_REVIEW=False):
        yield


@pytest.fixture(scope="session", autouse=True)
def _no_sweeper_in_tests():
    """The in-process server of the socket tests would start the sweeper (games/sweeper.py) in a thread
    of its own; tests run the sweep themselves (`sweeper.sweep()`), when they mean to."""
    from django.test.utils import override_settings

    with override_settings(SWEEP_IN_SERVER=False):
        yield


@pytest.fixture(autouse=True)
def _no_action_limit(settings):
    """Tests replay lines faster than a person plays; the tests of the limit turn it back on."""
    settings.ACTIONS_PER_SECOND = 0


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Throttle counters live in the cache (and the action limit's in the process too); each test starts with none."""
    from django.core.cache import cache

    from games.play import ratelimit

    cache.clear()
    ratelimit.forget()
    yield


@pytest.fixture(autouse=True)
def _no_mail_left_queued():
    """A reset mail still queued when a test ends would land in the next test's outbox."""
    yield
    from accounts.mail import wait_until_sent

    wait_until_sent()
