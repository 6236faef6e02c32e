"""Test-only maps for the rules engine: tiny hand-made FronteraMaps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from frontera_env.board import SYMBOLS, FronteraMap, Region, Territory
from frontera_env.engine import Game
from frontera_env.prng import SplitMix64
from frontera_env.rules.reinforce import start_turn


def make_map(
    regions: Sequence[Sequence[int]],
    land: Sequence[tuple[int, int]],
    sea: Sequence[tuple[int, int]] = (),
    bonuses: Sequence[int] | None = None,
) -> FronteraMap:
    """Return a map with the given regions (territory id lists), land borders and sea links; symbols id mod 3."""
    n = sum(len(r) for r in regions)
    region_of = {t: i for i, r in enumerate(regions) for t in r}
    lands: dict[int, set[int]] = {t: set() for t in range(n)}
    seas: dict[int, set[int]] = {t: set() for t in range(n)}
    for a, b in land:
        lands[a].add(b)
        lands[b].add(a)
    for a, b in sea:
        seas[a].add(b)
        seas[b].add(a)
    bonus = list(bonuses) if bonuses is not None else [(len(r) + 1) // 2 for r in regions]
    return FronteraMap(
        size="custom",
        generator="hand-made",
        world_code="",
        attempt=0,
        regions=tuple(Region(i, f"R{i}", bonus[i], tuple(sorted(r))) for i, r in enumerate(regions)),
        territories=tuple(
            Territory(t, f"T{t}", region_of[t], tuple(sorted(lands[t])), tuple(sorted(seas[t])), SYMBOLS[t % 3])
            for t in range(n)
        ),
        sea_links=tuple(sorted((min(a, b), max(a, b)) for a, b in sea)),
    )


def line_map(n: int, regions: int = 2) -> FronteraMap:
    """Return a path 0-1-...-(n-1) split into ``regions`` consecutive regions."""
    cut = [list(range(i * n // regions, (i + 1) * n // regions)) for i in range(regions)]
    return make_map(cut, [(t, t + 1) for t in range(n - 1)])


class Dice(SplitMix64):
    """A PRNG whose die draws (below(6)) come from a script of faces; any other draw is a test error."""

    def __init__(self, faces: Sequence[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def below(self, n: int) -> int:
        assert n == 6 and self.faces, f"unscripted draw below({n})"
        return self.faces.pop(0) - 1


def position(
    board: FronteraMap,
    owners: Sequence[int],
    armies: Sequence[int] | None = None,
    *,
    current: int = 0,
    hands: dict[int, list[int]] | None = None,
    players: int | None = None,
    trades: dict[int, int] | None = None,
    **options: Any,
) -> Game:
    """Return a game on ``board`` after setup with the given owners and armies, at the start of ``current``'s turn.

    order0 is 0, 1, ..., P-1 and the round is opened by seat 0; ``hands`` deals those cards out of the draw pile.
    """
    p = players or max(owners) + 1
    game = Game.new(board, p, seed=1, **options)
    st = game.state
    st.owner[:] = owners
    st.armies[:] = armies if armies is not None else 1
    st.deploy_left[:] = 0
    st.order0[:] = range(p)
    st.opener, st.round_pos = 0, current
    for seat, cards in (hands or {}).items():
        st.set_hand(seat, cards)
    dealt = {c for cards in (hands or {}).values() for c in cards}
    st.set_draw([c for c in st.draw_pile() if c not in dealt])
    for seat, k in (trades or {}).items():
        st.trades[seat] = k
    start_turn(game.ctx, st, current)
    return game


def roll(game: Game, *faces: int) -> None:
    """Script the next dice of ``game`` (attacker's dice, then the defender's, roll after roll)."""
    game.state.rng = Dice(faces)
