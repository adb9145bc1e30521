"""A pytest plugin for runs split over processes (pytest-xdist's `-n`): each worker gets a Redis
database of its own, as pytest-django gives each its own test database.

Loaded with `-p tests.workers` (as `.ci/run` does), so that it runs before pytest-django loads
the settings, which read REDIS_URL once. Without it two workers would share the channel layer's groups
(`game.5` is a different game in each worker's database), the cache and the throttles' counts.
"""

from __future__ import annotations

import os
import re

worker = os.environ.get("PYTEST_XDIST_WORKER", "")
if worker.startswith("gw") and os.environ.get("REDIS_URL"):
    url = os.environ["REDIS_URL"]
    found = re.search(r"/(\d+)$", url)
    base = int(found[1]) if found else 0
    # Redis keeps 16 databases: the workers take the ones after the run's own, wrapping round.
    own = (base + 1 + int(worker[2:])) % 16
    os.environ["REDIS_URL"] = (url[: found.start()] if found else url.rstrip("/")) + f"/{own}"
