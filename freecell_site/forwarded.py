"""The client's address behind a proxy: X-Forwarded-For is believed only from the proxies named in
FORWARDED_ALLOW_IPS, for HTTP and websockets alike, whatever server runs the application.

Daphne's `--proxy-headers` (like any server's switch of that kind) takes the left-most address of
X-Forwarded-For from whoever sends it: a client that reaches a server process directly rotates the
header and has every password guess judged as coming from a new address. This middleware rewrites
`scope["client"]`, which Django's REMOTE_ADDR, DRF's throttles, the login throttle and the sockets all
read, and does so only when the immediate peer is a trusted proxy; the address it takes is the
right-most one in the header that is not itself a trusted proxy (what the outermost trusted proxy saw),
as gunicorn's and uvicorn's FORWARDED_ALLOW_IPS do. Every other peer is its own address, header or not.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def parse_networks(values: Iterable[str], name: str = "FORWARDED_ALLOW_IPS") -> tuple[Network, ...]:
    """Addresses and CIDR networks, each checked: a typo must stop the server, not trust nobody (or
    everybody) in silence."""
    networks = []
    for raw in values:
        value = raw.strip()
        if value == "*":
            # uvicorn's "*" trusts every peer: exactly the hole this setting closes.
            raise ImproperlyConfigured(f"{name} does not take '*': name the proxies' addresses or networks")
        try:
            networks.append(ipaddress.ip_network(value, strict=True))
        except ValueError as exc:
            hint = ""
            try:
                hint = f" (the network is {ipaddress.ip_network(value, strict=False)})"
            except ValueError:
                pass
            raise ImproperlyConfigured(f"{name}: {value!r} is not an IP address or a CIDR network{hint}: {exc}") from None
    return tuple(networks)


def _address(text: str) -> Address | None:
    """An address as servers and proxies write it: `203.0.113.7`, `2001:db8::1`, `[2001:db8::1]:443`
    or `203.0.113.7:51000`; None for anything else."""
    text = text.strip()
    if text.startswith("[") and "]" in text:
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    # A dual-stack listener reports an IPv4 peer as ::ffff:a.b.c.d; the IPv4 networks must match it.
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _trusted(address: Address | None, networks: tuple[Network, ...]) -> bool:
    return address is not None and any(address in network for network in networks)


def client_address(peer: str | None, forwarded_for: list[str], networks: tuple[Network, ...]) -> str | None:
    """The client's address for a request from `peer` carrying these X-Forwarded-For values (in the
    order received), or None to keep the peer's own address."""
    if not networks or not forwarded_for or not _trusted(_address(peer or ""), networks):
        return None
    hops = [hop.strip() for value in forwarded_for for hop in value.split(",")]
    for hop in reversed(hops):
        address = _address(hop)
        if address is None:
            # What a trusted proxy wrote is an address; anything else is a fault of the chain, and
            # going further left would be believing what the client wrote.
            return None
        if not _trusted(address, networks):
            return str(address)
    # Every hop is a proxy of ours (a request from inside): the left-most is the furthest back.
    address = _address(hops[0])
    return str(address) if address is not None else None


class ForwardedForMiddleware:
    """ASGI middleware around the whole application (freecell_site/asgi.py): HTTP and websocket
    scopes get the client's address in `scope["client"]`."""

    def __init__(self, app):
        self.app = app
        self._raw: tuple[str, ...] | None = None
        self._networks: tuple[Network, ...] = ()
        self._load()  # at start: a bad setting fails the server's start, not its first request

    def _load(self) -> tuple[Network, ...]:
        raw = tuple(settings.FORWARDED_ALLOW_IPS or ())
        if raw != self._raw:  # read again when the setting changes (tests override it)
            self._networks, self._raw = parse_networks(raw), raw
        return self._networks

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket"):
            networks = self._load()
            peer = (scope.get("client") or (None, None))[0]
            # Nobody trusted, or a peer that is not a proxy of ours: the header is not even read.
            if networks and _trusted(_address(peer or ""), networks):
                values = [value.decode("latin-1") for name, value in scope.get("headers", ()) if name.lower() == b"x-forwarded-for"]
                address = client_address(peer, values, networks)
                if address is not None:
                    # A copy: the server keeps its own scope (and its own idea of the peer).
                    scope = {**scope, "client": (address, 0)}
        return await self.app(scope, receive, send)
