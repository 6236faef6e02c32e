"""What the arena, the trainer, the exporter and the benchmarks need from a game: one small adapter per game.

The shared layers (``training.evaluation.arena`` and its statistics, sweeps, ``dw train``, ``dw export``, ``dw bench``)
know nothing of any game's rules. A game plugs in with one :class:`BoardGame` subclass that answers:

* **who plays**: the seat names in turn order (their count is the number of players);
* **options**: the game's defaults, strict parsing from a mapping (a config file, ``--option KEY=VALUE``),
  a one-line description for reports, and how many plies an opening may have;
* **a game**: a fresh engine object (with ``turn``, ``over``, ``copy()``, ``play(action)``), the actions a random
  opening may draw from, an action's integers (for game hashes and records), and the result row of a finished
  game (scores, winners, leaders, ending, rounds, plies, and the game's own per-seat metrics);
* **seats**: the registered names, spec checking and building a seat (:class:`policies.base.Policy`-like:
  ``reset(seed)`` and ``act(game, seat)``) from a name or a file;
* **records**: a recorder the arena feeds every action, saved as the game's own record format.

An engine object may be of any class; the adapter is the only code outside the game's packages that touches it.
Domain Wheel (three players, :mod:`policies.games.domain_wheel`) is the default game.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

#: the name every game uses for a game stopped at its length limit (not a rule ending); always last
TRUNCATION = "truncation"


class GameRecorder(ABC):
    """Collects the actions of one game for its record file."""

    @abstractmethod
    def append(self, action: Any) -> None:
        """Add one action (already played on the arena's game)."""

    @abstractmethod
    def save(self, path: Any) -> None:
        """Write the record (with its result) as the game's record file at ``path``."""


class BoardGame(ABC):
    """A game the shared layers can play, train on and export for."""

    #: stable id used on the command line and in files (``"domain_wheel"``) and the display title
    game_id: str = ""
    title: str = ""
    #: seat names in turn order (``("blue", "green", "red")``); their count is the number of players
    seat_names: tuple[str, ...] = ()
    #: how games end, in report order; rule endings first, :data:`TRUNCATION` last
    end_reasons: tuple[str, ...] = (TRUNCATION,)
    #: per-seat metrics each result row carries (``{"lands_mid": "what it means"}``), averaged in reports
    seat_metrics: Mapping[str, str] = {}
    #: other (scalar) columns of the game's result rows, written to results.csv
    row_columns: tuple[str, ...] = ()
    #: the game's own entries in the arena report's conventions (e.g. what its metrics count)
    conventions: Mapping[str, str] = {}
    #: the playouts a move of the search seat the browser game's menu offers over each agent (a game's moves
    #: differ in cost: Domain Wheel's expand two phases, Alveole's are cheap and its agent needs depth)
    menu_search_playouts: int = 64
    #: whether a ``search:SPEC`` seat over the game's agents exists (the menu offers one over each agent only then)
    takes_search: bool = True

    #: what stops a game that no rule ended, as the arena report names it
    length_limit: str = "ply limit"
    #: whether reports print beside every win rate the fair share of an equally strong strategy (games whose
    #: number of players is an option; the three-seat and two-seat games' reports stay as they were)
    report_fair_share: bool = False
    #: why the game takes no random openings, for the arena's message, where :meth:`max_opening_plies` is always 0
    #: (empty: the game has openings, limited only by its length limit)
    no_openings: str = ""

    @property
    def num_players(self) -> int:
        return len(self.seat_names)

    def for_options(self, options: Any) -> BoardGame:
        """Return the adapter for a game of these options (or their dict form): itself, unless the number of
        players is an option (Frontera), when the adapter with that many seats.
        """
        return self

    def new_seeded_game(self, options: Any, seed: int) -> Any:
        """Return a game whose chance (dice, deal) comes from ``seed``; games without chance ignore it."""
        return self.new_game(options)

    # ---- options ---------------------------------------------------------------------------------------
    @abstractmethod
    def default_options(self) -> Any:
        """Return the game's default options object."""

    @abstractmethod
    def options_from_dict(self, data: Mapping[str, Any]) -> Any:
        """Return options from a mapping (missing keys take defaults); ValueError naming a bad key or value."""

    @abstractmethod
    def options_to_dict(self, options: Any) -> dict[str, Any]:
        """Return the options as plain JSON data (what :meth:`options_from_dict` reads back)."""

    @abstractmethod
    def describe_options(self, options: Mapping[str, Any]) -> str:
        """Return a one-line description of options in their dict form (:meth:`options_to_dict`) for reports."""

    @abstractmethod
    def max_opening_plies(self, options: Any) -> int:
        """Return the most random opening plies these options allow (an opening must not reach the length limit)."""

    # ---- one game --------------------------------------------------------------------------------------
    @abstractmethod
    def new_game(self, options: Any) -> Any:
        """Return an engine object at the initial position."""

    @abstractmethod
    def opening_candidates(self, game: Any) -> list[Any]:
        """Return the actions a random opening may draw from in ``game`` (never empty while the game goes on)."""

    def fallback_action(self, game: Any) -> Any:
        """Return what the seat to act plays when its decision fails, overruns or is illegal (policies/bounded.py).

        Default: the first legal action (the first opening candidate); games with a pass play it (the browser
        game's rooms make the same choice, ``play.games.GameSession.fallback_action``).
        """
        return self.opening_candidates(game)[0]

    @abstractmethod
    def action_ints(self, action: Any) -> tuple[int, ...]:
        """Return an action as integers (the same length for every action of the game): hashes and checks."""

    @abstractmethod
    def round_of(self, game: Any) -> int:
        """Return the round ``game`` is in (1 at the start): every seat acts once per round."""

    def start_metrics(self, game: Any) -> Any:  # noqa: B027 - optional: most games track nothing mid-game
        """Return a tracker of per-game metrics, or None; :meth:`after_action` updates it after every action."""
        return None

    def after_action(self, game: Any, tracker: Any) -> None:  # noqa: B027 - optional, see start_metrics
        """Update ``tracker`` (from :meth:`start_metrics`) after an action was played on ``game``."""

    @abstractmethod
    def result_row(self, game: Any, tracker: Any) -> dict[str, Any]:
        """Return a finished game's result: ``scores`` (per seat), ``winners`` and ``leaders`` (seat names),
        ``end_reason`` (one of :attr:`end_reasons`), ``rounds``, ``plies``, and every :attr:`seat_metrics` key
        (a list per seat) plus any other JSON-ready columns the game reports.
        """

    @abstractmethod
    def new_recorder(self, game: Any, players: Sequence[str]) -> GameRecorder:
        """Return a recorder for a game starting at ``game`` with the named strategy in each seat."""

    # ---- seats -----------------------------------------------------------------------------------------
    @abstractmethod
    def registered_seats(self) -> list[str]:
        """Return the names of the game's built-in seats (scripted AIs, random)."""

    def display_name(self, spec: str) -> str:
        """Return a seat's display name (a registered seat's own name, else the spec)."""
        return spec

    def is_registered(self, spec: str) -> bool:
        return spec in self.registered_seats()

    @abstractmethod
    def check_seat_spec(self, spec: str) -> None:
        """Raise ValueError (or FileNotFoundError) unless ``spec`` names a seat this game can build."""

    @abstractmethod
    def make_seat(self, spec: str, seed: int | None = None) -> Any:
        """Return a seat for ``spec``: ``reset(seed)`` then ``act(game, seat)`` returns a legal action."""

    # ---- helpers ---------------------------------------------------------------------------------------
    def seat_index(self, name: str) -> int:
        return self.seat_names.index(name)

    def __repr__(self) -> str:
        return f"<game {self.game_id}>"
