"""The Host header check that stops DNS rebinding: a page of ``evil.example`` whose name an attacker points at
this computer reaches the server with ``Host: evil.example``; only names the server answers to pass.

Allowed: loopback names and addresses (``localhost``, ``127.0.0.0/8``, ``::1``), the address the connection
reached (the ASGI scope's ``server``: the interface the server is bound to), and every ``dw play
--allow-host NAME``.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Any

from gamecore.errors import brief
from play.games import InputError

LOOPBACK_NAMES: tuple[str, ...] = ("localhost",)


def host_name(header: str) -> str:
    """Return the name of a Host header without its port, lower case (``[::1]:8000`` -> ``::1``)."""
    text = header.strip().lower()
    if text.startswith("["):
        return text[1 : text.find("]")] if "]" in text else text
    return text.rsplit(":", 1)[0] if text.count(":") == 1 else text


def is_loopback(name: str) -> bool:
    """Return True for a loopback name or address."""
    if name in LOOPBACK_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class HostCheck:
    """The allowed Host names: loopback, the bound address of each connection and ``allow`` (``--allow-host``)."""

    def __init__(self, allow: Iterable[str] = ()) -> None:
        self.allow = frozenset(host_name(a) for a in allow)

    def check(self, scope: Any, headers: Any) -> None:
        """Return if the request's Host is allowed; InputError ``bad_host`` naming it and what is allowed."""
        header = headers.get("host")
        name = host_name(header) if header else ""
        server = scope.get("server") or (None, None)
        bound = host_name(str(server[0])) if server[0] else None
        if name and (is_loopback(name) or name == bound or name in self.allow):
            return
        allowed = ["localhost", "127.0.0.1", "::1", *([bound] if bound else []), *sorted(self.allow)]
        raise InputError(
            "bad_host",
            f"requests for host {brief(header)} are not accepted (a page of another site may be trying DNS "
            "rebinding); start dw play with --allow-host NAME to serve under another name",
            allowed,
        )
