"""The regroup phase (R-7): up to three moves along paths of the player's own territories, land or sea."""

from __future__ import annotations

from frontera_env.rules.context import Context
from frontera_env.state import State


def reachable(ctx: Context, st: State, source: int) -> list[int]:
    """Return the own territories joined to ``source`` through own territories, ascending, without it (A34)."""
    seat = st.owner[source]
    seen = {source}
    stack = [source]
    while stack:
        u = stack.pop()
        for v in ctx.neighbours[u]:
            if v not in seen and st.owner[v] == seat:
                seen.add(v)
                stack.append(v)
    seen.discard(source)
    return sorted(seen)


def regroup(st: State, source: int, dest: int, count: int) -> None:
    """Move ``count`` armies from ``source`` to ``dest`` and spend one move (R-7.1)."""
    st.armies[source] -= count
    st.armies[dest] += count
    st.moves_left -= 1
