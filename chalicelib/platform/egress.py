"""Checks on URLs the service will call on behalf of a customer (webhooks): no SSRF.

A URL is admitted when it is `https`, has a host and no credentials (no `@` at all in
the authority), and every address its host resolves to is a global unicast address:
private, loopback, link-local (which holds the cloud metadata service), multicast,
CGNAT, reserved and unspecified ranges are refused, also as IPv4-mapped IPv6.
Deliveries resolve again and connect to a checked address (DNS rebinding).
`DOMPET_WEBHOOK_ALLOWLIST` admits extra networks (CIDRs), and plain `http` to them,
for local development.

A URL is stored exactly as given and sent exactly as stored, so anything an HTTP
client or another URL parser would strip, re-encode, split a request line at or read
differently is refused: control characters, white space, DEL, non-ASCII (percent-encode
it; an internationalised host name in its `xn--` form), a backslash (WHATWG parsers
read it as `/`, Python's does not), port 0 and a fragment.

Name resolution can be given a time limit (`timeout_s`): the lookup then runs in a
daemon thread and a late answer is a refusal (`WEBHOOK_HOST_UNRESOLVABLE`), so a slow
resolver cannot hold a request or a delivery attempt past its deadline.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from chalicelib.platform.settings import load_settings

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
METADATA = {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}


class UrlRefused(ValueError):  # noqa: N818 - reads as what happened
    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


INVALID_URL = "INVALID_WEBHOOK_URL"
NOT_HTTPS = "WEBHOOK_URL_NOT_HTTPS"
FORBIDDEN_ADDRESS = "WEBHOOK_URL_FORBIDDEN_ADDRESS"
UNRESOLVABLE = "WEBHOOK_HOST_UNRESOLVABLE"


@dataclass(frozen=True)
class Target:
    url: str
    scheme: str
    host: str
    port: int
    path: str  # path and query, as sent in the request line
    addresses: tuple[IpAddress, ...]


def allowed_target(url: str, timeout_s: float | None = None) -> Target:
    """The URL's target with its checked addresses, or UrlRefused. `timeout_s` limits name resolution."""
    # Stored exactly as given and sent exactly as stored (module docstring).
    if any(ord(c) < 0x21 or ord(c) >= 0x7F for c in url):
        raise UrlRefused(INVALID_URL, "the URL contains white space, control or non-ASCII characters")
    if "\\" in url:
        raise UrlRefused(INVALID_URL, "a backslash is not allowed in a URL (percent-encode it as %5C)")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise UrlRefused(INVALID_URL, "not a valid URL") from None
    if port == 0:
        raise UrlRefused(INVALID_URL, "port 0 is not a port a receiver can listen on")
    if parts.fragment or url.endswith("#"):
        raise UrlRefused(INVALID_URL, "a fragment is never sent to a server; remove it")
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise UrlRefused(INVALID_URL, "not an absolute http(s) URL")
    if "@" in parts.netloc:  # also an empty user name or password (`https://@host/`)
        raise UrlRefused(INVALID_URL, "credentials in the URL are not allowed")
    if parts.scheme != "https" and not load_settings().webhook_allowlist_networks:
        raise UrlRefused(NOT_HTTPS, "the URL must use https")
    host = parts.hostname
    port = port or (443 if parts.scheme == "https" else 80)
    addresses = resolve(host, port, timeout_s)
    allowed = [_allowlisted(a) for a in addresses]
    if parts.scheme != "https" and not all(allowed):
        raise UrlRefused(NOT_HTTPS, "the URL must use https")
    for address, listed in zip(addresses, allowed, strict=True):
        if not listed and not _public(address):
            raise UrlRefused(FORBIDDEN_ADDRESS, "the host resolves to a private, local or reserved address")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(url, parts.scheme, host, port, path, addresses)


def resolve(host: str, port: int, timeout_s: float | None = None) -> tuple[IpAddress, ...]:
    """The host's addresses in the resolver's order, without duplicates; within `timeout_s` if given."""
    try:
        literal = ipaddress.ip_address(host.strip("[]"))
        return (literal,)
    except ValueError:
        pass
    infos = _getaddrinfo(host, port) if timeout_s is None else _getaddrinfo_within(host, port, timeout_s)
    found = tuple(dict.fromkeys(ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos))
    if not found:
        raise UrlRefused(UNRESOLVABLE, "the host name does not resolve")
    return found


def _getaddrinfo(host: str, port: int) -> list[tuple[Any, ...]]:
    try:
        return list(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
    except (OSError, UnicodeError):
        raise UrlRefused(UNRESOLVABLE, "the host name does not resolve") from None


def _getaddrinfo_within(host: str, port: int, timeout_s: float) -> list[tuple[Any, ...]]:
    """getaddrinfo has no timeout of its own: wait for it in a daemon thread, at most `timeout_s` (a late answer
    is dropped with its thread)."""
    answer: list[list[tuple[Any, ...]] | UrlRefused] = []

    def lookup() -> None:
        try:
            answer.append(_getaddrinfo(host, port))
        except UrlRefused as exc:
            answer.append(exc)

    worker = threading.Thread(target=lookup, name="egress-resolve", daemon=True)
    worker.start()
    worker.join(max(0.0, timeout_s))
    if not answer:
        raise UrlRefused(UNRESOLVABLE, "the host name did not resolve in time")
    result = answer[0]
    if isinstance(result, UrlRefused):
        raise result
    return result


NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


def _public(address: IpAddress) -> bool:
    if isinstance(address, ipaddress.IPv6Address):
        # IPv6 forms that carry an IPv4 address are judged by that address.
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is None and any(address in net for net in NAT64):
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None:
            return _public(embedded)
        if address.is_site_local:
            return False
    return (
        address.is_global
        and not address.is_multicast
        and not address.is_reserved  # includes ::/8, so IPv4-compatible ::a.b.c.d
        and address not in METADATA
    )


def _allowlisted(address: IpAddress) -> bool:
    return any(address in network for network in load_settings().webhook_allowlist_networks)
