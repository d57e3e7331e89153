"""Who may join a zmq trunk: the CURVE allow list, and a keyless bind kept off the network."""

from __future__ import annotations

import ipaddress


class _AllowList:
    """The ZAP credentials check of a keyed trunk: a worker's CURVE public key must be listed."""

    def __init__(self, allowed):
        self.allowed = frozenset(allowed)

    def callback(self, domain, key: bytes) -> bool:
        return key in self.allowed


def _local_only(bind: str) -> bool:
    """Whether `bind` is reachable from this machine alone: ipc://, or tcp:// on a loopback
    address (127.0.0.0/8, ::1, localhost). A wildcard, an interface name, any other host
    name or address reaches the network."""
    scheme, _, rest = bind.partition("://")
    if scheme == "ipc":
        return True
    host = rest.rsplit(":", 1)[0] if ":" in rest else rest
    host = host.strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
