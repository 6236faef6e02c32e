"""Everything that can sit in a seat: scripted AIs, random play, learned networks."""

from policies.base import Policy
from policies.registry import available, display_name, make

__all__ = ["Policy", "available", "display_name", "make"]
