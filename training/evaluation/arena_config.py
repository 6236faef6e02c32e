"""The arena's configuration: line-ups (one seat spec per player), the modes that build them, and what a run plays.

The game is a parameter (``ArenaConfig.game``, an id of :mod:`policies.games`); Domain Wheel is the default,
so a line-up has three specs unless the game has another number of players.

Shared by the arena (training/evaluation/arena.py), its statistics (training/evaluation/arena_stats.py) and its report,
so that none of them imports another in a circle.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dw_env.info import NUM_PLAYERS
from policies import bounded, games
from policies.games.base import BoardGame

FORMAT = "domain-wheel-arena"
#: 2: varied openings (``opening_plies``), each game's move hash and the distinct-game counts
VERSION = 2
MODES = ("round-robin", "gauntlet", "lineup")
#: every seating of a Domain Wheel line-up: seat s plays lineup[seating[s]] (:func:`seatings` for any game)
SEATINGS: tuple[tuple[int, ...], ...] = tuple(itertools.permutations(range(NUM_PLAYERS)))
#: how Domain Wheel games end, in report order (engine names, dw_env.rules.layout); any game: its adapter's
END_REASONS = games.get(games.DEFAULT_GAME).end_reasons

#: random plies that open every game unless told otherwise: one per colour (see docs/ARENA.md, "Openings")
DEFAULT_OPENING_PLIES = 3
#: the most opening plies allowed: openings vary the start, they must not replace the game
MAX_OPENING_PLIES = 30

Lineup = tuple[str, ...]


#: the most seatings a line-up is played in as every permutation (4 players: 24); above, a balanced rotation
MAX_PERMUTATION_SEATINGS = 24


def seatings(players: int) -> tuple[tuple[int, ...], ...]:
    """Return the seatings of a line-up of ``players`` specs: seat s plays ``lineup[seating[s]]``.

    Every permutation while there are at most :data:`MAX_PERMUTATION_SEATINGS` (2 to 4 players); for 5 and 6
    players (120 and 720 permutations) the balanced rotation of :func:`balanced_rotation`.
    """
    if math.factorial(players) <= MAX_PERMUTATION_SEATINGS:
        return tuple(itertools.permutations(range(players)))
    return balanced_rotation(players)


def balanced_rotation(players: int) -> tuple[tuple[int, ...], ...]:
    """Return 2k seatings of a k-spec line-up: its k rotations, then the k rotations of the reversed line-up.

    Each spec sits in every seat exactly twice, and each spec's neighbours in the line-up sit after it in one
    half and before it in the other (seat order matters where turn order decides who strikes first). All k!
    orders would be 120 or 720 seatings, more than most runs have games.
    """
    k = players
    forward = [tuple((s + r) % k for s in range(k)) for r in range(k)]
    backward = [tuple((r - s) % k for s in range(k)) for r in range(k)]
    return tuple(forward + backward)


# ---- configuration ---------------------------------------------------------------------------------------
def parse_lineup(text: str, players: int = NUM_PLAYERS) -> Lineup:
    """Return the line-up written as ``"a,b,c"`` (one seat spec per player); ValueError names what is wrong."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) != players or not all(parts):
        example = ",".join(["balanced", "random", "random"][:players]) if players <= 3 else "a,b,..."
        raise ValueError(
            f"line-up {text!r} must be exactly {players} strategies separated by commas "
            f"(e.g. {example}), got {len([p for p in parts if p])}"
        )
    return tuple(parts)


_EITHER = "give either --players (modes round-robin, gauntlet) or --lineup a,b,c (mode lineup), not both"


def build_lineups(
    mode: str, players: Sequence[str] = (), lineups: Sequence[str] = (), game: BoardGame | None = None
) -> list[Lineup]:
    """Return the line-ups of a run of ``game`` (default: Domain Wheel, three seats).

    * ``round-robin``: every multiset of k of ``players`` for a k-player game (repetition allowed: a,a,b and
      a,a,a too);
    * ``gauntlet``: ``players[0]`` against k-1 copies of each other player (a,b,b / a,c,c ...);
    * ``lineup``: the given ``"a,b,c"`` line-ups.
    """
    game = game or games.get()
    k = game.num_players
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; allowed: {', '.join(MODES)}")
    if mode == "lineup":
        if players:
            raise ValueError(_EITHER)
        if not lineups:
            raise ValueError("mode lineup needs at least one --lineup a,b,c")
        result = [parse_lineup(t, k) for t in lineups]
    else:
        if lineups:
            raise ValueError(_EITHER)
        if not players:
            raise ValueError(f"mode {mode} needs --players (e.g. --players balanced random)")
        seen = [p for i, p in enumerate(players) if p in players[:i]]
        if seen:
            raise ValueError(f"--players lists {seen[0]!r} more than once")
        if mode == "round-robin":
            result = [tuple(c) for c in itertools.combinations_with_replacement(players, k)]
        else:
            if len(players) < 2:
                raise ValueError("mode gauntlet needs a challenger and at least one opponent: --players X A [B ...]")
            result = [(players[0],) + (p,) * (k - 1) for p in players[1:]]
    for lineup in result:
        for spec in lineup:
            game.check_seat_spec(spec)
    return result


#: the arena's default limit on one seat decision (seconds): it catches a seat that hangs, and it is far above any
#: thinking time, so that a loaded machine (a numba kernel compiled mid-game, other jobs on the cores) never turns
#: a slow move into a fault and a different game. ``dw play`` bounds its AIs more tightly (a person waits).
SEAT_TIME_LIMIT = 60.0


@dataclass(frozen=True)
class ArenaConfig:
    """What to play: the game, line-ups, games per line-up (split over every seating), seed, the game's options.

    ``game`` is an id of :mod:`policies.games` and ``options`` that game's options (None: its defaults).
    ``opening_plies`` K: every game starts with K random legal plies (:func:`training.evaluation.arena.opening_moves`),
    the same K plies for game ``j`` of every seating and every line-up; 0 starts every game from the
    initial position. ``seat_time_limit``: the seconds each seat decision may take (:mod:`policies.bounded`).
    """

    lineups: tuple[Lineup, ...]
    games_per_lineup: int = 60
    seed: int = 0
    options: Any = None
    bootstrap: int = 200
    mode: str = "lineup"
    players: tuple[str, ...] = ()
    opening_plies: int = DEFAULT_OPENING_PLIES
    game: str = games.DEFAULT_GAME
    seat_time_limit: float = SEAT_TIME_LIMIT

    def __post_init__(self) -> None:
        adapter = games.get(self.game)
        if self.options is None:
            object.__setattr__(self, "options", adapter.default_options())
        adapter = adapter.for_options(self.options)
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
        for lineup in self.lineups:
            if len(lineup) != adapter.num_players:
                raise ValueError(f"a {adapter.title} line-up has {adapter.num_players} seats, got {list(lineup)}")
        check_opening_plies(self.opening_plies, self.options, adapter)
        object.__setattr__(self, "seat_time_limit", bounded.check_limit(self.seat_time_limit, "seat time limit"))

    @property
    def adapter(self) -> BoardGame:
        """Return the game's adapter (:mod:`policies.games`), bound to the options' number of players."""
        return games.get(self.game).for_options(self.options)

    @property
    def seatings(self) -> tuple[tuple[int, ...], ...]:
        """Return every seating of a line-up of this game."""
        return seatings(self.adapter.num_players)

    @property
    def strategies(self) -> list[str]:
        """Return the distinct seat specs in order of first appearance."""
        return list(dict.fromkeys(s for lineup in self.lineups for s in lineup))

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "mode": self.mode,
            "players": list(self.players),
            "lineups": [list(x) for x in self.lineups],
            "games_per_lineup": self.games_per_lineup,
            "seed": self.seed,
            "options": self.adapter.options_to_dict(self.options),
            "bootstrap": self.bootstrap,
            "opening_plies": self.opening_plies,
            "seat_time_limit": self.seat_time_limit,
        }


def check_opening_plies(plies: object, options: Any, game: BoardGame | None = None) -> None:
    """Raise ValueError unless ``plies`` is an opening length allowed with these options of ``game``.

    0..:data:`MAX_OPENING_PLIES`, and fewer than the game's length limit allows (an opening must never reach
    the round or ply limit, which would end the game before any seat has played).
    """
    if isinstance(plies, bool) or not isinstance(plies, int):
        raise ValueError(f"--opening-plies must be an integer 0..{MAX_OPENING_PLIES}, got {plies!r}")
    game = game or games.get()
    limit = min(MAX_OPENING_PLIES, game.max_opening_plies(options))
    if not 0 <= plies <= limit and game.no_openings:
        raise ValueError(f"--opening-plies {plies} is not allowed: {game.no_openings}; allowed: 0")
    if not 0 <= plies <= limit:
        rounds = getattr(options, "max_rounds", None)
        why = "" if limit == MAX_OPENING_PLIES else " (the game's length limit: the opening must end first)"
        if rounds is not None and limit != MAX_OPENING_PLIES:
            why = f" (max rounds {rounds}: the opening must end first)"
        raise ValueError(f"--opening-plies must be 0..{limit}{why}, got {plies}")
