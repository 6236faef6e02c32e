"""The JSON the Alveole page draws: the static layout (cells) and the state view (board, last move, result, log)."""

from __future__ import annotations

from alveole_env.engine import AlveoleGame, Move
from alveole_env.geometry import CELLS, NUM_CELLS
from alveole_env.options import AlveoleOptions
from alveole_env.position import to_dict
from play.games import JSON

#: the seats' names (seat 0 moves first, A2) as the page's i18n keys ``alveole.seat.NAME``
SEAT_NAMES: tuple[str, ...] = ("black", "white")
#: the seats' default player names (Spanish, like the page's default language)
SEAT_DISPLAY_NAMES: tuple[str, ...] = ("Negras", "Blancas")


def cell(index: int) -> list[int]:
    """Return ``[q, r]`` of a cell."""
    q, r = CELLS[index]
    return [q, r]


def layout(options: AlveoleOptions) -> JSON:
    """Return the board layout: the 61 cells in index order as ``[q, r]`` (spec 1.4) and the options."""
    return {
        "game": "alveole",
        "key": "alveole",
        "cells": [cell(c) for c in range(NUM_CELLS)],
        "seats": list(SEAT_NAMES),
        "options": options.to_dict(),
    }


def move_json(move: Move) -> JSON:
    """Return a move as ``{"from", "to", "capture", "notation"}`` (spec 1.5's text)."""
    return {"from": cell(move.src), "to": cell(move.dst), "capture": move.capture, "notation": move.text()}


def log_entry(game: AlveoleGame, ply: int, seat: int, move: Move) -> JSON:
    """Return the log entry of ``move`` (just played by ``seat``, reaching ``ply``), with the end if it came."""
    entry: JSON = {"ply": ply, "seat": seat, "action": "move", **move_json(move), "events": []}
    if move.capture:
        entry["events"].append({"type": "capture", "cell": cell(move.dst), "player": 1 - seat})
    if game.over:
        entry["events"].append({"type": "game_over", "end_reason": game.end_reason, "winners": game.winners})
    return entry


def view(game: AlveoleGame, ply: int, last: JSON | None = None, log: list[JSON] | None = None) -> JSON:
    """Return the state view every client receives.

    ``board`` holds 61 values (0 empty, 1 seat 0, 2 seat 1) in cell order; ``movable`` the cells of the
    pieces the player to move can move; ``winning_group`` the winner's connected group at the end (R-4.1).
    """
    winners = game.winners
    movable = sorted({m.src for m in game.legal_moves()})
    return {
        "game": "alveole",
        "ply": ply,
        "turn": None if game.over else game.turn,
        "over": game.over,
        "board": [int(v) for v in game.board],
        "movable": [cell(c) for c in movable],
        "pieces": [game.num_pieces(p) for p in range(2)],
        "groups": [game.num_groups(p) for p in range(2)],
        "scores": game.scores(),
        "end_reason": game.end_reason,
        "winners": winners,
        "truncated": game.truncated,
        "winning_group": [cell(c) for c in game.groups(winners[0])[0]] if winners else [],
        "last": last,
        "log": log or [],
        "position": to_dict(game),
    }
