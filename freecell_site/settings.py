"""Django settings, read from the environment with embedded defaults (SQLite, in-memory channel layer)."""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from urllib.parse import urlparse

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from freecell_site.api_docs import DESCRIPTION as API_DESCRIPTION
from freecell_site.env import (
    env_bool,
    env_choice,
    env_float,
    env_int,
    env_list,
    env_networks,
    env_origins,
    env_rate,
    env_url,
)

BASE_DIR = Path(__file__).resolve().parent.parent

# The development default is deliberately weak and named as such: `check --deploy` flags it
# (security.W009), so a production start without SECRET_KEY never passes the deploy check.
DEV_SECRET_KEY = "django-insecure-dev-only-set-SECRET_KEY-in-production"
SECRET_KEY = os.environ.get("SECRET_KEY", "").strip() or DEV_SECRET_KEY
DEBUG = env_bool("DEBUG", default=True)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
if not DEBUG and not ALLOWED_HOSTS:
    # Django would answer every request 400 (with DEBUG on it lets localhost in); `check --deploy`
    # says nothing of it, and Daphne starts regardless.
    raise ImproperlyConfigured("ALLOWED_HOSTS is empty: with DEBUG off every request would be refused; name the site's hosts")
CSRF_TRUSTED_ORIGINS = env_origins("CSRF_TRUSTED_ORIGINS")
# The proxies (addresses or CIDR networks) whose X-Forwarded-For names the client; nobody by default,
# so a client that reaches a server process directly cannot choose its own address for the login and
# request limits (freecell_site/forwarded.py, which HTTP and websockets both pass through).
FORWARDED_ALLOW_IPS = env_networks("FORWARDED_ALLOW_IPS")

# Daily deals derive their seed from this secret and the date, so nobody can compute tomorrow's deal.
DAILY_SECRET = os.environ.get("DAILY_SECRET", "").strip() or SECRET_KEY

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "oauth2_provider",  # OAuth for apps of other developers (accounts/oauth.py)
    "accounts",
    "games",
    "frontend",
]

MIDDLEWARE = [
    # GET /metrics is answered first, before the Host check and the HTTPS redirect (freecell_site/scrape.py).
    "freecell_site.scrape.MetricsMiddleware",
    # The request's id on every log line it causes, and in the answer (freecell_site/logging_context.py).
    "freecell_site.logging_context.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "freecell_site.errors.RejectNulMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "freecell_site.errors.ApiSlashMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "freecell_site.csp.ContentSecurityPolicyMiddleware",
    "freecell_site.errors.ApiErrorMiddleware",
]

ROOT_URLCONF = "freecell_site.urls"
ASGI_APPLICATION = "freecell_site.asgi.application"
WSGI_APPLICATION = "freecell_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "frontend.context_processors.table_settings",
            ],
        },
    },
]

# --- Database: DATABASE_URL, or a SQLite file beside manage.py ---------------------------------
_database_url = env_url("DATABASE_URL", schemes=("sqlite", "postgres", "postgresql", "pgsql"))
# Under ASGI, connections are not tied to one request thread: PostgreSQL uses psycopg's pool instead of
# persistent connections (Django requires CONN_MAX_AGE=0 with a pool).
_pool_size = env_int("DB_POOL_SIZE", 10, minimum=0)
# Threads that run HTTP views in each server process (freecell_site/asgi.py); each holds a database
# connection while it answers, so more threads than pooled connections would only wait for one.
HTTP_THREADS = env_int("HTTP_THREADS", max(_pool_size, 4), minimum=1)
# A generous lock timeout for SQLite: the dev server has several threads writing games, and a write
# transaction takes its lock when it begins rather than failing with "database is locked" when it
# upgrades a read lock.
SQLITE_OPTIONS = {"timeout": 20, "transaction_mode": "IMMEDIATE"}
if _database_url:
    DATABASES = {"default": dj_database_url.parse(_database_url, conn_max_age=0)}
    if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        DATABASES["default"].setdefault("OPTIONS", {}).update(SQLITE_OPTIONS)
    if DATABASES["default"]["ENGINE"].endswith("postgresql"):
        options = DATABASES["default"].setdefault("OPTIONS", {})
        options["connect_timeout"] = 5
        if env_bool("DB_PREPARED_STATEMENTS", True):
            # Parameters bound by the server and statements prepared after 5 runs: PostgreSQL then plans
            # a move's join once per connection instead of on every move (docs/performance.md). Turn off
            # behind a pooler in transaction mode (PgBouncer), which cannot keep prepared statements.
            options["server_side_binding"] = True
            options["prepare_threshold"] = 5
        if _pool_size:
            # `timeout`: how long a request waits for a free connection before failing.
            options["pool"] = {"min_size": 1, "max_size": _pool_size, "timeout": 10}
            # Django's backend, but the pool hands out no connection PostgreSQL has closed (a restart).
            DATABASES["default"]["ENGINE"] = "freecell_site.postgresql"
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            "OPTIONS": SQLITE_OPTIONS,
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: channel layer and cache; without it, in-process equivalents ------------------------
REDIS_URL = env_url("REDIS_URL", schemes=("redis", "rediss", "unix"))
if REDIS_URL:
    # Redis pub/sub by default: a push is one PUBLISH, delivered at once to every process with a
    # socket in the group. The list-based layer ("lists") costs four Redis round trips per message
    # received, one after another in each process: most of the delay until an opponent sees a move
    # (docs/websocket.md). Pub/sub names are shared by all of Redis's databases, so they are
    # prefixed with the database number of REDIS_URL.
    CHANNEL_LAYER = os.environ.get("CHANNEL_LAYER", "pubsub")
    if CHANNEL_LAYER not in ("pubsub", "lists"):
        raise ImproperlyConfigured("CHANNEL_LAYER must be pubsub or lists")
    if CHANNEL_LAYER == "pubsub":
        redis_db = urlparse(REDIS_URL).path.strip("/") or "0"
        CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
                "CONFIG": {"hosts": [REDIS_URL], "prefix": f"freecell.{redis_db}."},
            }
        }
    else:
        CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "channels_redis.core.RedisChannelLayer",
                "CONFIG": {"hosts": [REDIS_URL], "capacity": 1500, "expiry": 30},
            }
        }
    # django-redis keeps one connection pool per process and Redis server, which every cache object
    # (Django makes one per request context) shares: a request opens no connection of its own.
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 2, "SOCKET_TIMEOUT": 2},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    {"NAME": "accounts.validators.NotTheUsernameValidator"},
    {"NAME": "accounts.validators.NotBlankValidator"},
    {"NAME": "accounts.validators.NotTheCurrentPasswordValidator"},
    # Not a rule: revokes the API token and rechecks sockets once a password has changed.
    {"NAME": "accounts.validators.SignInsFollowThePassword"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
# In production WhiteNoise serves what `collectstatic` wrote (compressed: gzip and Brotli, when a
# client takes them). Until it has run, and always in development, it serves straight from the app
# folders, so `daphne` alone serves the site; those files go uncompressed.
WHITENOISE_USE_FINDERS = DEBUG or not (STATIC_ROOT / "frontend").is_dir()
WHITENOISE_AUTOREFRESH = DEBUG
if not STATIC_ROOT.is_dir():
    # Serving from the app folders is meant until collectstatic runs; WhiteNoise's warning about the
    # missing STATIC_ROOT read like a fault on every start.
    warnings.filterwarnings("ignore", message=f"No directory at: {re.escape(str(STATIC_ROOT))}", category=UserWarning)

# Moves and undos per second per account, over every socket and request together (0: no limit).
ACTIONS_PER_SECOND = env_int("ACTIONS_PER_SECOND", 20, minimum=0)

# --- Game tunables, each settable in the environment (docs/daily.md, docs/races.md, docs/websocket.md)
DAILY_PAR_BUDGET = env_float("DAILY_PAR_BUDGET", 5.0, minimum=0)  # seconds of par search per daily
DAILY_SOLVE_BUDGET = env_float("DAILY_SOLVE_BUDGET", 10.0, minimum=0)  # seconds to prove a seed solvable
DAILY_MAX_SEEDS = env_int("DAILY_MAX_SEEDS", 20, minimum=1)  # seeds of a date tried before giving up
DAILY_WAIT_SECONDS = env_float("DAILY_WAIT_SECONDS", 2.0, minimum=0)  # how long a request waits for a daily being made
DAILY_MIN_MS_PER_MOVE = env_int("DAILY_MIN_MS_PER_MOVE", 150, minimum=0)  # fair play's pace floor (games.fairplay)
# Fair play's automatic review of results (docs/fair-play.md); 0 turns automatic flags off (private servers, tests).
FAIR_PLAY_REVIEW = env_bool("FAIR_PLAY_REVIEW", True)
HINT_BUDGET = env_float("HINT_BUDGET", 3.0, minimum=0.1)  # seconds the solver may think for one hint
HINT_CONCURRENCY = env_int("HINT_CONCURRENCY", 1, minimum=1)  # solver workers for hints, per process
DAILY_SOLVE_IN_WORKER = env_bool("DAILY_SOLVE_IN_WORKER", True)  # make the daily's proof in a process of its own
DAILY_SPAN_MS = env_int("DAILY_SPAN_MS", 10_000, minimum=1)  # width of a span of elapsed time in the leaderboard's tally
HINT_IN_WORKER = env_bool("HINT_IN_WORKER", True)  # solve hints in a worker process (0: in the request's thread)
HINT_SECONDS_PER_MINUTE = env_float("HINT_SECONDS_PER_MINUTE", 10.0, minimum=0.1)  # solver time one player's hints may take a minute
HINT_WAIT_SECONDS = env_float("HINT_WAIT_SECONDS", 0.5, minimum=0)  # wait for a free solver, then 429 (a waiting hint holds an HTTP thread)
DEAL_FACTS_BUDGET = env_float("DEAL_FACTS_BUDGET", 3.0, minimum=0.1)  # seconds of solving for a deal's facts (twice: solvable, then par)
RACE_COUNTDOWN_S = env_float("RACE_COUNTDOWN_S", 3, minimum=0)
RACE_MAX_RACERS = env_int("RACE_MAX_RACERS", 8, minimum=2)
RACE_TIME_LIMIT_S = env_float("RACE_TIME_LIMIT_S", 1800, minimum=1)
RACE_PUBLIC_COUNTDOWN_S = env_float("RACE_PUBLIC_COUNTDOWN_S", 10, minimum=0)  # a public race's, from its second racer; an accepted challenge's
RACE_PUBLIC_WAIT_S = env_float("RACE_PUBLIC_WAIT_S", 300, minimum=1)  # an open public race nobody joins is called off after this
CHALLENGE_EXPIRY_S = env_float("CHALLENGE_EXPIRY_S", 600, minimum=1)  # an unanswered challenge expires after this
WS_HEARTBEAT_S = env_float("WS_HEARTBEAT_S", 20, minimum=1)
# A full garbage collection longer than this freezes what survived it, handed back to the collector
# every GC_UNFREEZE_EVERY_S; a full collection is weighed after every GC_FULL_AFTER_MIDDLE collections
# of the middle generation (CPython's third threshold, 10 by default) (freecell_site/collector.py); 0: off.
GC_FREEZE_AFTER_MS = env_float("GC_FREEZE_AFTER_MS", 2, minimum=0)
GC_UNFREEZE_EVERY_S = env_float("GC_UNFREEZE_EVERY_S", 3600, minimum=1)
GC_FULL_AFTER_MIDDLE = env_int("GC_FULL_AFTER_MIDDLE", 1, minimum=1)
WS_IDLE_TIMEOUT_S = env_float("WS_IDLE_TIMEOUT_S", 60, minimum=1)
WS_AUTH_TIMEOUT_S = env_float("WS_AUTH_TIMEOUT_S", 10, minimum=1)
WS_BUS_CHECK_S = env_float("WS_BUS_CHECK_S", 5, minimum=0.1)
STREAM_KEEPALIVE_S = env_float("STREAM_KEEPALIVE_S", 10, minimum=0.05)  # an empty line on every ndjson stream this often (docs/streams.md)
# An open socket or stream asks whether its sign-in still holds at least this often, besides when told it may have
# ended and at its token's expiry (games/sockets/sign_in.py).
SIGN_IN_CHECK_S = env_float("SIGN_IN_CHECK_S", 300, minimum=0.05)
WS_MOVE_BURST = env_float("WS_MOVE_BURST", 20, minimum=1)  # moves a socket may send at once
WS_MOVE_RATE = env_float("WS_MOVE_RATE", 10, minimum=0.1)  # moves a second a socket's burst refills at
WS_READ_BURST = env_float("WS_READ_BURST", 10, minimum=1)  # auth/sync/start/resign frames a socket may send at once
WS_READ_RATE = env_float("WS_READ_RATE", 5, minimum=0.1)
# Limits over every socket of every process (games/sockets/limits.py; 0: no limit): sockets open per
# address (refused at the handshake) and per account, and frames per address and per account.
# Per address: sized for a school behind one NAT address (100 players, a second tab each, connecting
# at once when the lesson starts); the balancer's 256 requests per address come first (issue 41).
WS_SOCKETS_PER_ADDRESS = env_int("WS_SOCKETS_PER_ADDRESS", 200, minimum=0)
WS_SOCKETS_PER_ACCOUNT = env_int("WS_SOCKETS_PER_ACCOUNT", 16, minimum=0)
WS_ADDRESS_OPEN_BURST = env_float("WS_ADDRESS_OPEN_BURST", 100, minimum=0)  # handshakes an address may make at once
WS_ADDRESS_OPEN_RATE = env_float("WS_ADDRESS_OPEN_RATE", 2, minimum=0.1)  # and a second after that
WS_ADDRESS_FRAME_BURST = env_float("WS_ADDRESS_FRAME_BURST", 400, minimum=0)
WS_ADDRESS_FRAME_RATE = env_float("WS_ADDRESS_FRAME_RATE", 200, minimum=0.1)
WS_ACCOUNT_FRAME_BURST = env_float("WS_ACCOUNT_FRAME_BURST", 30, minimum=0)
WS_ACCOUNT_FRAME_RATE = env_float("WS_ACCOUNT_FRAME_RATE", 15, minimum=0.1)
# Seconds a request to Daphne has to arrive whole, line, headers and body (freecell_site/daphne_requests.py;
# 0: Twisted's idle timer alone, which every byte restarts). The balancer waits for slow clients itself.
DAPHNE_REQUEST_TIMEOUT_S = env_float("DAPHNE_REQUEST_TIMEOUT_S", 15, minimum=0)
# Frames over 4 KiB a socket may send (each answered too_large); the next closes it, 1009 (0: never).
WS_OVERSIZED_FRAMES = env_int("WS_OVERSIZED_FRAMES", 3, minimum=0)
WS_DB_CALLS_PER_ADDRESS = env_int("WS_DB_CALLS_PER_ADDRESS", 2, minimum=0)  # an address's sockets' database calls at once, per process
# Sockets run their database calls in one thread per process (Channels' default) even on PostgreSQL.
WS_DB_ONE_THREAD = env_bool("WS_DB_ONE_THREAD", False)
# The sweeper (games/sweeper.py): how often it looks for races and dailies whose time has come, and
# whether each server process runs it (one at a time, under a lease in the cache).
SWEEP_EVERY_S = env_float("SWEEP_EVERY_S", 0.5, minimum=0.05)
SWEEP_IN_SERVER = env_bool("SWEEP_IN_SERVER", True)

# Password-reset mail. The console backend (the default, for development) writes each mail, reset link
# and token included, to the server's log: `check --deploy` flags it (accounts.checks).
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25, minimum=1)
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
# Mail goes out from one thread (accounts/mail.py): a server that accepts and never answers must not
# hold every later reset mail of the process (Django's default is no timeout).
EMAIL_TIMEOUT = env_float("EMAIL_TIMEOUT", 10.0, minimum=1)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "FreeCell Online <noreply@freecell.invalid>")

# Failed sign-ins (accounts/throttle.py, docs/deployment.md): per device that signed in before (its
# device cookie, accounts/devices.py) a minute; per account from every other client, in 15 minutes;
# per network (an IPv4 address, an IPv6 /64) a minute, room for a school's NAT.
LOGIN_DEVICE_FAILURES = env_int("LOGIN_DEVICE_FAILURES", 10, minimum=1)
LOGIN_ACCOUNT_FAILURES = env_int("LOGIN_ACCOUNT_FAILURES", 20, minimum=1)
LOGIN_NETWORK_FAILURES = env_int("LOGIN_NETWORK_FAILURES", 100, minimum=1)
DEVICE_COOKIE_DAYS = env_float("DEVICE_COOKIE_DAYS", 365, minimum=1)
# The site's own address, the start of the links it mails (password resets): never the request's Host
# header, which a client writes. `check --deploy` flags the development default (accounts.checks).
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000").rstrip("/")

LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"

# --- OAuth for apps of other developers (accounts/oauth.py, docs/tokens.md) ---------------------
OAUTH2_PROVIDER = {
    "OAUTH2_SERVER_CLASS": "accounts.oauth.CodeWithPkceServer",
    "OAUTH2_VALIDATOR_CLASS": "accounts.oauth.AnyPublicClient",
    "SCOPES": {"read": "read", "play": "play", "race": "race", "account": "account"},  # accounts.scopes
    "DEFAULT_SCOPES": ["read"],
    # An app's token holds a year (as Lichess's do); the code traded for it, two minutes.
    "ACCESS_TOKEN_EXPIRE_SECONDS": env_int("OAUTH_TOKEN_SECONDS", 31536000, minimum=60),
    "AUTHORIZATION_CODE_EXPIRE_SECONDS": 120,
    "PKCE_REQUIRED": True,
    "REQUEST_APPROVAL_PROMPT": "force",
    "REFRESH_TOKEN_REUSE_PROTECTION": True,
    # RFC 9700's safer behaviours, all on (django-oauth-toolkit's defaults until its 4.0).
    "COMPLIANT_BCP_RFC9700_IMPLICIT_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PASSWORD_GRANT": True,
    "COMPLIANT_BCP_RFC9700_PKCE_METHOD": True,
    "COMPLIANT_BCP_RFC9700_ACCESS_TOKEN_TRANSPORT": True,
    "COMPLIANT_BCP_RFC9700_AUTHZ_RESPONSE_ISS": True,
    "COMPLIANT_BCP_RFC9700_TOKEN_STORAGE": True,
}
# django-oauth-toolkit flags `http` redirect URIs; ours are https, or http to a loopback address only
# (a command line's listener, RFC 8252), which accounts.oauth.acceptable_redirect_uri checks.
SILENCED_SYSTEM_CHECKS = ["oauth2_provider.W008"]

# --- Production hardening: on whenever DEBUG is off -------------------------------------------
if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000, minimum=0)
    # Both on by default, as `check --deploy` asks; a site whose other subdomains are not all on HTTPS
    # turns them off (a preloaded domain stays HTTPS-only in browsers for months).
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
# Health checks from load balancers come over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # TokenScopes: each API view names the scope of each method (`scopes`), which a token must hold
    # (accounts/permissions.py); views that set their own permission_classes list it too.
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticatedOrReadOnly",
        "accounts.permissions.TokenScopes",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PARSER_CLASSES": [
        "freecell_site.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "freecell_site.parsers.MultiPartParser",
    ],
    "EXCEPTION_HANDLER": "freecell_site.errors.api_exception_handler",
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "freecell_site.negotiation.ContentNegotiation",
    "DEFAULT_PAGINATION_CLASS": "freecell_site.pagination.Pagination",
    "DEFAULT_THROTTLE_CLASSES": [
        "freecell_site.throttling.AnonRateThrottle",
        "freecell_site.throttling.UserRateThrottle",
    ],
    "PAGE_SIZE": 50,
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_rate("THROTTLE_ANON", "120/min"),
        "user": env_rate("THROTTLE_USER", "1200/min"),
        "verify": env_rate("THROTTLE_VERIFY", "60/min"),
        "hint": env_rate("THROTTLE_HINT", "20/min"),
        "report": env_rate("THROTTLE_REPORT", "10/hour"),
        # Sign-ups per network: a class of 150 behind one NAT address signs up in one go (issue 41).
        "signup": env_rate("THROTTLE_SIGNUP", "200/hour"),
    },
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    # Throttles key anonymous clients by REMOTE_ADDR only. DRF's default (None) believes any
    # X-Forwarded-For a client sends, so each made-up address got a fresh allowance. Behind a proxy,
    # REMOTE_ADDR is the client's address when the proxy is in FORWARDED_ALLOW_IPS (freecell_site/forwarded.py).
    "NUM_PROXIES": 0,
}

SPECTACULAR_SETTINGS = {
    # /api/docs/ serves Swagger UI from our own static files, not from a CDN (whose script would run
    # on this site's origin, with the visitor's session).
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "TITLE": "FreeCell Online API",
    # The overview (authentication, errors, idempotency, limits, notation, deals, paging) and each
    # operation's words and examples live in freecell_site/api_docs.py (docs/api-docs.md).
    "DESCRIPTION": API_DESCRIPTION,
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "freecell_site.schema.add_default_error_response",
        "freecell_site.api_docs.apply_docs",
    ],
    "ENUM_NAME_OVERRIDES": {
        "GameStatusEnum": ["playing", "won", "resigned", "abandoned"],
        "FinishedStatusEnum": ["won", "resigned"],
        "StreamEventTypeEnum": "games.streams.views.EVENT_TYPES",
    },
}

# --- Operating it (docs/operations.md): metrics and logs ----------------------------------------
# GET /metrics (freecell_site/scrape.py) answers only these addresses or networks; loopback by default.
METRICS_ALLOW_IPS = env_networks("METRICS_ALLOW_IPS") or ["127.0.0.1/32", "::1/128"]
# 0: nothing is recorded and /metrics is 404 (bench/metrics.py measures what recording costs).
METRICS_ENABLED = env_bool("METRICS_ENABLED", True)
# plain: one readable line each (the development default); json: one JSON object each, for a log store.
LOG_FORMAT = env_choice("LOG_FORMAT", "plain", ("plain", "json"))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # Time, level and logger on every line: "database unavailable" alone did not say when or where. The
    # request's or socket's id ends the line when one caused it.
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s%(context)s"},
        "json": {"()": "freecell_site.logging_context.json_formatter"},
    },
    "filters": {
        "client_errors_brief": {"()": "freecell_site.logfilters.ClientErrorsWithoutTraceback"},
        "context": {"()": "freecell_site.logging_context.ContextFilter"},
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT, "filters": ["context", "client_errors_brief"]}},
    "root": {"handlers": ["console"], "level": env_choice("LOG_LEVEL", "INFO", ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"))},
    "loggers": {
        # Django's own handler would print each line twice beside the root one.
        "django": {"handlers": ["console"], "level": "INFO", "propagate": False},
        "django.channels.server": {"handlers": ["console"], "level": "WARNING", "propagate": False},
    },
}
