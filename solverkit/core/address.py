"""Network addresses the user gives (a dealer's HOST:PORT, a zmq trunk's tcp://HOST:PORT to bind
or to reach): checked before any socket sees them, because the layers below fail badly on a
bad port: zmq binds tcp://...:70000 as port 4464 and tcp://...:-1 as 65535 without a word, and
Python's sockets raise OverflowError (a traceback) for a port above 65535."""

from __future__ import annotations

from ..errors import ConfigError

MAX_PORT = 65535
#: the longest host name (DNS: 253 characters)
MAX_HOST = 253
#: zmq's wildcard ports for a bind: the system picks a free one
ANY_PORT = ("0", "*", "!")


def check_port(port, what: str, allow_zero: bool = False) -> int:
    """`port` (a decimal string or an int) as an int in 1..65535, or 0 where `allow_zero` (the
    system picks a free port); ConfigError naming `what` and the value otherwise."""
    text = str(port).strip()
    low = 0 if allow_zero else 1
    if (not (text.isascii() and text.isdigit()) or len(text.lstrip("0")) > 10 or isinstance(port, bool)  # int(): 4,300 digits at most
            or not low <= int(text) <= MAX_PORT):
        pick = " (0: a free port picked by the system)" if allow_zero else ""
        raise ConfigError(f"{what}: port {str(port)!r:.40} is invalid: expected a number from {low} to "
                          f"{MAX_PORT}{pick}")
    return int(text)


def split_host_port(address: str, what: str, allow_zero: bool = False) -> tuple[str, int]:
    """'HOST:PORT' (an IPv6 host in brackets: '[::1]:5555') as (host, port), both checked."""
    text = str(address).strip()
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise ConfigError(f"{what} {str(address)!r:.80} is invalid: expected HOST:PORT, e.g. localhost:18791")
    bracketed = host.startswith("[") and host.endswith("]")
    if ":" in host and not bracketed:
        raise ConfigError(f"{what} {str(address)!r:.80} is invalid: host {host!r:.60} is not a host name or "
                          "address (IPv6 addresses go in brackets: [::1]:5555)")
    return check_host(host, what), check_port(port, f"{what} {text!r:.80}", allow_zero)


def check_host(host: str, what: str) -> str:
    """A host name or address as sockets take it ('[::1]' without its brackets): not empty, no
    spaces, at most MAX_HOST characters (DNS's limit; a longer one made an error line of its
    length); ConfigError naming `what` and the value otherwise."""
    text = str(host)
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    if not text or len(text) > MAX_HOST or any(c.isspace() or c in "[]/" or not c.isprintable() for c in text):
        raise ConfigError(f"{what}: host {str(host)!r:.60} is not a host name or address (a name or address of 1 "
                          f"to {MAX_HOST} characters, an IPv6 address in brackets: [::1])")
    return text


def check_endpoint(endpoint: str, what: str, bind: bool) -> str:
    """A zmq endpoint: tcp://HOST:PORT (to bind: port 0, * or ! picks a free one; host * binds
    every interface) or ipc://PATH; ConfigError naming `what`, the value and the valid forms."""
    text = str(endpoint)
    what = what if what.startswith("--") else f"{what} ="  # a command-line option, or a config key
    scheme, sep, rest = text.partition("://")
    if sep and scheme == "ipc":
        if not rest:
            raise ConfigError(f"{what} {text!r}: ipc:// needs a path, e.g. ipc:///tmp/solverkit.sock")
        return text
    if not sep or scheme != "tcp":
        raise ConfigError(f"{what} {text!r:.80} is invalid: expected tcp://HOST:PORT or ipc://PATH")
    host, colon, port = rest.rpartition(":")
    if not colon or not host:
        raise ConfigError(f"{what} {text!r:.80} is invalid: expected tcp://HOST:PORT (a port after the host)")
    if bind and port in ANY_PORT:
        port = "0"
    if not (bind and host == "*"):  # '*' binds every interface
        check_host(host, f"{what} {text!r:.80}")
    if not bind and host == "*":
        raise ConfigError(f"{what} {text!r:.80} is invalid: {host!r} is a wildcard to bind, not a host to connect "
                          "to; give the trunk's host name or address, e.g. tcp://trunk.example.org:5555")
    check_port(port, f"{what} {text!r:.80}", allow_zero=bind)
    return text
