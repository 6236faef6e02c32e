"""An AI seat's decision in a room: bounded in time (policies/bounded.py), its faults logged and told to the room.

A decision that overruns ``dw play --ai-time-limit``, raises or answers no legal action yields None: the room
plays the game's fallback action (``GameSession.fallback_action``), logs a warning and sends everyone in the
room an ``error`` message with code ``ai_fault`` (the browser shows it as a toast). The decision runs on its own
daemon thread, never on the rooms' worker pool, so a seat that never answers stalls no other room and does not
keep Ctrl-C from ending the server.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from policies import bounded

log = logging.getLogger("play.rooms")


async def decide(room: Any, session: Any, policy: Any, snapshot: Any, seat: int) -> Any:
    """Return the AI's action for ``seat`` on ``snapshot``, or None after a fault (logged and sent to the room)."""
    decision = await bounded.decide_async(policy, lambda: session.ai_action(policy, snapshot, seat))
    if decision.fault is None:
        return decision.action
    log.warning(
        "room %s: the AI of seat %d had a fault (%s: %s); it plays the fallback",
        room.id,
        seat,
        decision.fault,
        decision.detail,
    )
    message = {
        "type": "error",
        "code": "ai_fault",
        "message": f"the AI of seat {seat} plays the fallback action ({decision.fault}: {decision.detail})",
        "seat": seat,
        "fault": decision.fault,
    }
    text = json.dumps(message)
    for connection in room.connections():
        connection.post(text)
    return None
