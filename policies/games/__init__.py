"""The games the shared layers can play: one :class:`policies.games.base.BoardGame` adapter per game.

``dw arena``, ``dw sweep``, ``dw train``, ``dw export`` and ``dw bench`` take ``--game ID`` (default
:data:`DEFAULT_GAME`) and reach the game only through :func:`get`. Adapters are imported on first use, so
listing the games imports no engine.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util

from policies.games.base import TRUNCATION, BoardGame, GameRecorder

#: game id -> "module:class" of its adapter
GAMES: dict[str, str] = {
    "domain_wheel": "policies.games.domain_wheel:DomainWheel",
    "alveole": "policies.games.alveole:Alveole",
    "conquer": "policies.games.conquer:Conquer",
    "frontera": "policies.games.frontera:Frontera",
}
#: the game every command plays unless told otherwise
DEFAULT_GAME = "domain_wheel"


def available() -> list[str]:
    """Return the ids of the games whose adapters are installed."""
    return [gid for gid, target in GAMES.items() if importlib.util.find_spec(target.partition(":")[0]) is not None]


@functools.cache
def get(game_id: str = DEFAULT_GAME) -> BoardGame:
    """Return the adapter of ``game_id``; ValueError naming the games there are."""
    if not isinstance(game_id, str) or game_id not in GAMES or game_id not in available():
        raise ValueError(f"unknown game {str(game_id)[:40]!r}; allowed: {', '.join(available())}")
    module, _, name = GAMES[game_id].partition(":")
    adapter: BoardGame = getattr(importlib.import_module(module), name)()
    return adapter


__all__ = ["DEFAULT_GAME", "GAMES", "TRUNCATION", "BoardGame", "GameRecorder", "available", "get"]
