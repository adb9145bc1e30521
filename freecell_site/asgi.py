"""ASGI entry point: HTTP to Django in worker threads, websockets to the game and race consumers.

HTTP: every view is synchronous (DRF, the ORM), so requests go to Django's WSGI handler in a pool of
threads (freecell_site/wsgi_bridge.py): one hand-over to a thread and one back per request. Django's own
ASGI handler hands a request from the event loop to a thread and back three times (sync middleware,
async core, sync view) and starts a thread per request, which on this kind of machine cost several
milliseconds a request. The held-open ndjson streams (`/api/stream/`, games/streams/) take the same
path: the bridge sends their async iterators line by line from the loop, so a waiting stream holds no
thread (Django's ASGI handler kept a thread for each request's whole life, a stream's too).
"""

import asyncio
import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "freecell_site.settings")
# Django must be set up before the consumers (and their models) are imported.
django_wsgi_app = get_wsgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402
from django.urls import get_resolver  # noqa: E402

from freecell_site import collector, server_loop  # noqa: E402
from freecell_site.daphne_requests import bound_slow_requests, stop_form_parsing  # noqa: E402
from freecell_site.forwarded import ForwardedForMiddleware  # noqa: E402
from freecell_site.origin import SameOriginValidator  # noqa: E402
from freecell_site.wsgi_bridge import WSGIBridge  # noqa: E402
from games import sweeper  # noqa: E402
from games.routing import websocket_router  # noqa: E402
from games.sockets.limits import AddressGate  # noqa: E402


class RememberLoop:
    """Notes the server's event loop for sync code that must run async work on it (server_loop), and
    starts the sweeper on it (games/sweeper.py)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        loop = asyncio.get_running_loop()
        server_loop.remember(loop)
        sweeper.start_in_server(loop)
        return await self.app(scope, receive, send)


# ForwardedForMiddleware is outermost: every protocol below it sees the client's address, taken from
# X-Forwarded-For only when a proxy named in FORWARDED_ALLOW_IPS sent it.
application = RememberLoop(
    ForwardedForMiddleware(
        ProtocolTypeRouter(
            {
                "http": WSGIBridge(django_wsgi_app, workers=settings.HTTP_THREADS),
                # AddressGate before the session is read: an address with too many sockets costs no query.
                "websocket": AllowedHostsOriginValidator(SameOriginValidator(AddressGate(AuthMiddlewareStack(websocket_router)))),
            }
        )
    )
)


def freeze_what_lives_forever() -> None:
    """Moves every object alive now (Django, the URLconf and every view it loads) out of the garbage
    collector's sight: they live as long as the process, and with 200 sockets open a full collection
    that walked them again held a server's event loop for 80-120 ms (15 ms frozen; docs/performance.md)."""
    get_resolver().url_patterns  # noqa: B018 (imports the URLconf and the views it names)
    gc.collect()
    gc.freeze()


stop_form_parsing()  # before Daphne makes its first request (it imports this module first)
bound_slow_requests(settings.DAPHNE_REQUEST_TIMEOUT_S)
freeze_what_lives_forever()
collector.install(settings.GC_FREEZE_AFTER_MS, settings.GC_UNFREEZE_EVERY_S, settings.GC_FULL_AFTER_MIDDLE)
