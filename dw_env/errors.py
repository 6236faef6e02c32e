"""Bounded error messages for Domain Wheel's engine: :func:`gamecore.errors.brief` (the shared room's)."""

from gamecore.errors import MAX_QUOTED, brief, clip

__all__ = ["MAX_QUOTED", "brief", "clip"]
