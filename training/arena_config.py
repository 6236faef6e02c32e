"""The arena's configuration: line-ups (three seat specs), the modes that build them, and what a run plays.

Shared by the arena (training/arena.py), its statistics (training/arena_stats.py) and its report, so that
none of them imports another in a circle.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dw_env.info import NUM_PLAYERS
from dw_env.options import GameOptions
from policies.files import check_seat_spec

FORMAT = "domain-wheel-arena"
#: 2: varied openings (``opening_plies``), each game's move hash and the distinct-game counts
VERSION = 2
MODES = ("round-robin", "gauntlet", "lineup")
#: every seating of a line-up: seat s plays lineup[seating[s]]
SEATINGS: tuple[tuple[int, ...], ...] = tuple(itertools.permutations(range(NUM_PLAYERS)))
#: how games end, in report order (engine names, dw_env.rules.layout)
END_REASONS = ("centre", "countdown", "end_request", "truncation")

#: random plies that open every game unless told otherwise: one per colour (see docs/ARENA.md, "Openings")
DEFAULT_OPENING_PLIES = 3
#: the most opening plies allowed: openings vary the start, they must not replace the game
MAX_OPENING_PLIES = 30

Lineup = tuple[str, str, str]


# ---- configuration ---------------------------------------------------------------------------------------
def parse_lineup(text: str) -> Lineup:
    """Return the line-up written as ``"a,b,c"`` (three seat specs); ValueError names what is wrong."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) != NUM_PLAYERS or not all(parts):
        raise ValueError(
            f"line-up {text!r} must be exactly {NUM_PLAYERS} strategies separated by commas "
            f"(e.g. balanced,random,random), got {len([p for p in parts if p])}"
        )
    return parts[0], parts[1], parts[2]


_EITHER = "give either --players (modes round-robin, gauntlet) or --lineup a,b,c (mode lineup), not both"


def build_lineups(mode: str, players: Sequence[str] = (), lineups: Sequence[str] = ()) -> list[Lineup]:
    """Return the line-ups of a run.

    * ``round-robin``: every multiset of three of ``players`` (repetition allowed: a,a,b and a,a,a too);
    * ``gauntlet``: ``players[0]`` against two copies of each other player (a,b,b / a,c,c ...);
    * ``lineup``: the given ``"a,b,c"`` line-ups.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; allowed: {', '.join(MODES)}")
    if mode == "lineup":
        if players:
            raise ValueError(_EITHER)
        if not lineups:
            raise ValueError("mode lineup needs at least one --lineup a,b,c")
        result = [parse_lineup(t) for t in lineups]
    else:
        if lineups:
            raise ValueError(_EITHER)
        if not players:
            raise ValueError(f"mode {mode} needs --players (e.g. --players balanced random)")
        seen = [p for i, p in enumerate(players) if p in players[:i]]
        if seen:
            raise ValueError(f"--players lists {seen[0]!r} more than once")
        if mode == "round-robin":
            result = [tuple(c) for c in itertools.combinations_with_replacement(players, NUM_PLAYERS)]  # type: ignore[misc]
        else:
            if len(players) < 2:
                raise ValueError("mode gauntlet needs a challenger and at least one opponent: --players X A [B ...]")
            result = [(players[0], p, p) for p in players[1:]]
    for lineup in result:
        for spec in lineup:
            check_seat_spec(spec)
    return result


@dataclass(frozen=True)
class ArenaConfig:
    """What to play: line-ups, games per line-up (split over the six seatings), seed, options.

    ``opening_plies`` K: every game starts with K random legal plies (:func:`training.arena.opening_moves`),
    the same K plies for game ``j`` of every seating and every line-up; 0 starts every game from the
    initial position.
    """

    lineups: tuple[Lineup, ...]
    games_per_lineup: int = 60
    seed: int = 0
    options: GameOptions = field(default_factory=GameOptions)
    bootstrap: int = 200
    mode: str = "lineup"
    players: tuple[str, ...] = ()
    opening_plies: int = DEFAULT_OPENING_PLIES

    def __post_init__(self) -> None:
        if not self.lineups:
            raise ValueError("an arena needs at least one line-up")
        if isinstance(self.games_per_lineup, bool) or not isinstance(self.games_per_lineup, int):
            raise ValueError(f"games per line-up must be an integer >= 1, got {self.games_per_lineup!r}")
        if self.games_per_lineup < 1:
            raise ValueError(f"games per line-up must be >= 1, got {self.games_per_lineup}")
        if self.seed < 0:
            raise ValueError(f"seed must be >= 0, got {self.seed}")
        if self.bootstrap < 0:
            raise ValueError(f"bootstrap resamples must be >= 0, got {self.bootstrap}")
        check_opening_plies(self.opening_plies, self.options)

    @property
    def strategies(self) -> list[str]:
        """Return the distinct seat specs in order of first appearance."""
        return list(dict.fromkeys(s for lineup in self.lineups for s in lineup))

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "players": list(self.players),
            "lineups": [list(x) for x in self.lineups],
            "games_per_lineup": self.games_per_lineup,
            "seed": self.seed,
            "options": self.options.to_dict(),
            "bootstrap": self.bootstrap,
            "opening_plies": self.opening_plies,
        }


def check_opening_plies(plies: object, options: GameOptions) -> None:
    """Raise ValueError unless ``plies`` is an opening length allowed with these options.

    0..:data:`MAX_OPENING_PLIES`, and fewer than the plies of the first round limit's worth of play (an
    opening must never reach the round limit, which would end the game before any seat has played).
    """
    if isinstance(plies, bool) or not isinstance(plies, int):
        raise ValueError(f"--opening-plies must be an integer 0..{MAX_OPENING_PLIES}, got {plies!r}")
    limit = min(MAX_OPENING_PLIES, NUM_PLAYERS * options.max_rounds - 1)
    if not 0 <= plies <= limit:
        why = "" if limit == MAX_OPENING_PLIES else f" (max rounds {options.max_rounds}: the opening must end first)"
        raise ValueError(f"--opening-plies must be 0..{limit}{why}, got {plies}")
