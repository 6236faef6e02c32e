"""The browser game's strategy lists are per game: each game's own AIs and only the files made for it."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from play.games import InputError
from play.strategies import Catalogue, checkpoint_game, package_game

ROOT = Path(__file__).resolve().parents[1]


def _alveole_checkpoint(folder: Path) -> Path:
    from training.ppo.config import from_dict
    from training.ppo.game_setup import make_network
    from training.ppo.resume import save_checkpoint

    config = from_dict({"game": {"name": "alveole"}, "network": {"channels": 8, "cell_layers": 1}})
    path = folder / "alveole-tiny.pt"
    counters = {"env_steps": 0, "updates": 0, "games": 0, "decisions": 0, "seconds": 0.0}
    save_checkpoint(path, make_network(config, torch.device("cpu")), config, counters, None)
    return path


def test_each_game_lists_its_own_seats_and_files(tmp_path: Path) -> None:
    path = _alveole_checkpoint(tmp_path)
    (tmp_path / "broken.pt").write_bytes(b"not a checkpoint")
    assert checkpoint_game(path) == "alveole"
    assert checkpoint_game(tmp_path / "broken.pt") is None
    assert package_game(ROOT / "checkpoints" / "small-agent") == "domain_wheel"
    catalogue = Catalogue([tmp_path])
    dw = {s.id for s in catalogue.entries()}
    alveole = {s.id: s for s in catalogue.entries("alveole")}
    assert {"balanced", "random", "checkpoint:small-agent.pt", "package:small-agent"} <= dw
    assert "checkpoint:alveole-tiny.pt" not in dw and "heuristic" not in dw
    assert {"random", "heuristic", "checkpoint:alveole-tiny.pt", "search:alveole-tiny.pt"} <= set(alveole)
    shipped = {"checkpoint:alveole-agent.pt", "search:alveole-agent.pt", "package:alveole-agent"}
    assert shipped <= set(alveole) and not shipped & dw  # the shipped agent sits only in its own game's menu
    assert not {s for s in alveole if "conquer" in s or "small-agent" in s}
    assert "checkpoint:broken.pt" not in dw | set(alveole)
    assert catalogue.get("heuristic", "alveole").spec == "heuristic"
    with pytest.raises(InputError) as info:
        catalogue.get("balanced", "alveole")
    assert info.value.code == "unknown_strategy" and "heuristic" in info.value.allowed
    # what the menu offers, the game's adapter loads
    from play.games import get

    seat = get("alveole").make_policy(alveole["search:alveole-tiny.pt"].spec, 0)
    game = get("alveole").new_session(get("alveole").parse_options({}), ["a", "b"]).ai_snapshot()
    assert seat.act(game, game.turn) in game.legal_actions()


def test_a_package_with_a_value_output_is_also_a_search_seat_unless_its_checkpoint_has_one(tmp_path: Path) -> None:
    pytest.importorskip("onnxscript")
    from dw_cli.main import main
    from play.games import get

    alone, both = tmp_path / "alone", tmp_path / "both"
    both.mkdir()
    path = _alveole_checkpoint(both)
    assert main(["export", str(path), "-o", str(alone / "alveole-tiny"), "--no-progress"]) == 0
    alveole = {s.id: s for s in Catalogue([alone]).entries("alveole")}
    assert {"package:alveole-tiny", "search:alveole-tiny"} <= set(alveole)
    entry = alveole["search:alveole-tiny"]
    assert entry.kind == "search" and entry.spec.startswith("search:") and "búsqueda" in entry.display_name
    seat = get("alveole").make_policy(entry.spec, 0)  # onnxruntime under the search
    game = get("alveole").new_session(get("alveole").parse_options({}), ["a", "b"]).ai_snapshot()
    assert seat.act(game, game.turn) in game.legal_actions()
    (both / "alveole-tiny").symlink_to(alone / "alveole-tiny", target_is_directory=True)
    listed = {s.id for s in Catalogue([both]).entries("alveole")}
    assert {"search:alveole-tiny.pt", "package:alveole-tiny"} <= listed and "search:alveole-tiny" not in listed
    assert "search:alveole-tiny" not in {s.id for s in Catalogue([tmp_path]).entries()}  # not in Domain Wheel's menu


def test_each_game_sets_the_menu_search_budget() -> None:
    alveole = {s.id: s for s in Catalogue([]).entries("alveole")}
    dw = {s.id: s for s in Catalogue([]).entries()}
    assert alveole["search:alveole-agent.pt"].spec.endswith("?playouts=800")
    assert alveole["search:alveole-agent.pt"].display_name == "alveole-agent + búsqueda (800)"
    assert dw["search:small-agent.pt"].spec.endswith("?playouts=64")
