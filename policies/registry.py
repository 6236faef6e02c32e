"""Registry of seat policies by name (rule 10.1: the six strategies of the original)."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from policies.base import Policy

#: name -> ("module:Class", display name). Order is the original menu's.
_REGISTRY: dict[str, tuple[str, str]] = {
    "balanced": ("policies.domain_wheel.balanced:BalancedPolicy", "Equilibrada"),
    "expansionist": ("policies.domain_wheel.expansionist:ExpansionistPolicy", "Expansionista"),
    "center": ("policies.domain_wheel.center:CenterPolicy", "Directa al centro"),
    "raider": ("policies.domain_wheel.raider:RaiderPolicy", "Saqueadora"),
    "guardian": ("policies.domain_wheel.guardian:GuardianPolicy", "Guardiana"),
    "random": ("policies.domain_wheel.random_policy:RandomPolicy", "Aleatoria"),
}


#: the other games' registered seats: game id -> {id: ("module:Class", Spanish display name, English name)}
_GAME_SEATS: dict[str, dict[str, tuple[str, str, str]]] = {
    "frontera": {
        "random": ("policies.frontera.random_seat:RandomSeat", "Aleatoria", "Random"),
        "expansionist": ("policies.frontera.expansionist:ExpansionistSeat", "Expansionista", "Expansionist"),
        "continental": ("policies.frontera.continental:ContinentalSeat", "Continental", "Continental"),
        "aggressor": ("policies.frontera.aggressor:AggressorSeat", "Agresora", "Aggressor"),
        "defender": ("policies.frontera.defender:DefenderSeat", "Defensora", "Defender"),
        "automatic": ("policies.frontera.automatic:AutomaticSeat", "Automática (reloj)", "Automatic (clock)"),
    },
}


def game_seats(game_id: str) -> dict[str, tuple[str, str, str]]:
    """Return a game's registered seats: id -> ("module:Class", Spanish display name, English name)."""
    if game_id not in _GAME_SEATS:
        raise ValueError(f"no seats registered for game {game_id!r}; games with seats here: {', '.join(_GAME_SEATS)}")
    return dict(_GAME_SEATS[game_id])


def make_game_seat(game_id: str, name: str, seed: int | None = None) -> Policy:
    """Construct the seat ``name`` registered under ``game_id``; ValueError naming the seats there are."""
    seats = game_seats(game_id)
    if name not in seats:
        raise ValueError(f"unknown {game_id} seat {name!r}; available: {', '.join(seats)}")
    module, _, cls = seats[name][0].partition(":")
    factory: Callable[..., Policy] = getattr(importlib.import_module(module), cls)
    return factory(seed=seed)


def register(name: str, target: str, display: str) -> None:
    """Register a policy class given as "module:Class" under ``name``."""
    _REGISTRY[name] = (target, display)


def entries() -> dict[str, tuple[str, str]]:
    """Return a copy of every registration (name -> ("module:Class", display name)), for worker processes."""
    return dict(_REGISTRY)


def register_all(registered: dict[str, tuple[str, str]]) -> None:
    """Register every entry of :func:`entries` (a spawned worker gets its parent's runtime registrations)."""
    for name, (target, display) in registered.items():
        register(name, target, display)


def available() -> list[str]:
    """Return the registered policy names."""
    return list(_REGISTRY)


def display_name(name: str) -> str:
    """Return the display (Spanish) name of a registered policy."""
    return _lookup(name)[1]


def _lookup(name: str) -> tuple[str, str]:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown policy {name!r}; available: {', '.join(_REGISTRY)}") from None


def make(name: str, seed: int | None = None, **kwargs: object) -> Policy:
    """Construct a registered policy by name."""
    module, _, cls = _lookup(name)[0].partition(":")
    factory: Callable[..., Policy] = getattr(importlib.import_module(module), cls)
    return factory(seed=seed, **kwargs)
