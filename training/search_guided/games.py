"""What search-guided training needs of a game, behind one small interface: its engine view, network, images.

The trainer, the self-play workers and ``dw bench selfplay`` reach a game only through :func:`training_game`:

* **a board game** (Alveole, Conquer: an adapter with ``make_network``): the engine object itself is the
  search's game (one decision a turn), the network is the adapter's, the symmetries are the board's;
* **Domain Wheel**: the engine wrapped as :class:`Decisions` (a
  :class:`policies.domain_wheel.two_phase.DecisionGame` valued by rule 9.5's results), where the env's two
  actions of a move (rule 3.2: a piece, then its destination) are two decisions of the same player, so the
  Gumbel max^n search, its improved-policy targets and the learner run unchanged, with one target per
  phase's observation; the network is :class:`policies.domain_wheel.network.HexPolicyNet` (``turn_trunk``
  0, the shipped agents' kind, so ``network.init_from`` takes ``checkpoints/small-agent.pt``). Its
  observations are already in the acting player's rotated frame; the map's mirror images are not used.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from gamecore.errors import brief
from policies.domain_wheel.two_phase import DecisionGame


class BoardTraining:
    """A board game's engine, network and symmetries (the adapter's)."""

    def __init__(self, adapter: Any, options: Any) -> None:
        self.adapter, self.options = adapter, options
        self.players = int(adapter.num_players)

    def new_game(self) -> Any:
        """Return a new game on the engine contract of the search."""
        return self.adapter.new_game(self.options)

    def make_network(self, network: Any) -> Any:
        """Return a fresh network of the config's ``network`` section."""
        size = {"channels": network.channels, "cell_layers": network.cell_layers, "head_hidden": network.head_hidden}
        return self.adapter.make_network(self.options, size)

    def network_size(self, network: Any) -> dict[str, int]:
        """Return the checkpoint's ``network`` entry of the config's section."""
        return {
            "channels": network.channels,
            "cell_layers": network.cell_layers,
            "land_layers": 0,
            "head_hidden": network.head_hidden,
            "turn_trunk": 0,
        }

    def observation_version(self) -> str:
        return str(self.adapter.observation_version())

    def symmetries(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        return self.adapter.symmetries(self.options)  # type: ignore[no-any-return]

    def play_seat(self, game: Any, seat: Any) -> None:
        """Play a scripted seat's move in ``game``."""
        game.play(seat.act(game, int(game.turn)))

    def play_opening(self, game: Any, move: Any) -> None:
        """Play one of the arena's opening plies (an engine move) in ``game``."""
        game.play(move)

    def refits_value(self, config: Any) -> bool:
        """Return whether the run is Domain Wheel's value refit (value_fit.py) rather than self-play.

        A board game ignores a ``value_fit`` section: runs saved before it was optional hold its defaults.
        """
        return False


class Decisions(DecisionGame):
    """Domain Wheel's decisions valued by the game's own results (search.outcome_vector reads ``results``)."""

    def results(self) -> NDArray[np.float64]:
        """Return each player's result of the finished game (rule 9.5: a sole winner +1, the others -1/2; two
        winners +1/2 each, the loser -1; a truncation 0 for all), as the environments and the search seat."""
        from policies.domain_wheel.search import result_values

        return result_values(self.engine)


class DomainWheelTraining(BoardTraining):
    """Domain Wheel as two decisions a move (module docstring)."""

    def __init__(self, adapter: Any, options: Any) -> None:
        from policies.domain_wheel.two_phase import TwoPhaseDriver

        super().__init__(adapter, options)
        self.driver = TwoPhaseDriver(options)

    def new_game(self) -> Any:
        return Decisions(self.adapter.new_game(self.options), self.driver)

    def make_network(self, network: Any) -> Any:
        from policies.domain_wheel.network import HexPolicyNet

        size = self.network_size(network)
        return HexPolicyNet(self.driver.geometry, **size)

    def network_size(self, network: Any) -> dict[str, int]:
        land_layers = 3 if network.land_layers is None else network.land_layers
        return {
            "channels": network.channels,
            "cell_layers": network.cell_layers,
            "land_layers": land_layers,
            "head_hidden": network.head_hidden,
            "turn_trunk": 0,
        }

    def observation_version(self) -> str:
        from policies.domain_wheel.network import HexPolicyNet

        return str(HexPolicyNet.observation_version)

    def symmetries(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        obs, mask = self.new_game().observe()
        return np.arange(obs.size)[None], np.arange(mask.size)[None]

    def play_seat(self, game: Any, seat: Any) -> None:
        game.play_move(seat.act(game.engine.copy(), int(game.turn)))

    def play_opening(self, game: Any, move: Any) -> None:
        game.play_move(move)

    def refits_value(self, config: Any) -> bool:
        return config.value_fit is not None


def training_game(config: Any) -> BoardTraining:
    """Return the search-guided view of ``config``'s game (``game.name`` and its options); ValueError if none."""
    from policies import games

    adapter: Any = games.get(config.game["name"])
    options = adapter.options_from_dict({k: v for k, v in config.game.items() if k != "name"})
    if adapter.game_id == "domain_wheel":
        return DomainWheelTraining(adapter, options)
    if not hasattr(adapter, "make_network"):
        raise ValueError(
            f"game.name: search-guided training plays alveole, conquer and domain_wheel, not {brief(adapter.game_id)}"
        )
    if config.network.land_layers is not None:
        raise ValueError(
            f"network.land_layers: Domain Wheel's network only, got {brief(config.network.land_layers)} for "
            f"{adapter.game_id}; allowed: leave it out"
        )
    return BoardTraining(adapter, options)
