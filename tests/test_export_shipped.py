"""Every agent shipped in checkpoints/ is also shipped as a strategy package that loads and plays legal moves.

Packages of every game (docs/GAMES.md): Domain Wheel's measured against two copies of each AI, the board games'
against each of their AIs; each plays legal moves on every map or grid it accepts.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from dw_env.engine import Game
from dw_env.options import GameOptions
from frontera_env.board import SIZES
from frontera_env.map_file import reference_map
from policies import games
from policies.files import load_policy_file
from policies.frontera.package_seat import map_key
from policies.package import MANIFEST, read_package

ROOT = Path(__file__).resolve().parents[1]
CHECKPOINTS = sorted((ROOT / "checkpoints").glob("*.pt"))
PACKAGES = sorted(p.parent for p in (ROOT / "checkpoints").glob(f"*/{MANIFEST}"))
#: what a package's measured strength must include, by game (the board games': their heuristic and random)
STRONGEST = {"domain-wheel": {"balanced", "random"}, "frontera": {"expansionist", "random"}}


def test_every_shipped_checkpoint_has_its_package() -> None:
    assert CHECKPOINTS
    assert [p.name for p in PACKAGES] == [c.stem for c in CHECKPOINTS]


@pytest.mark.parametrize("folder", PACKAGES, ids=lambda p: p.name)
def test_package_is_small_measured_and_made_from_the_shipped_checkpoint(folder: Path) -> None:
    package = read_package(folder)
    # a graph holds its own copy of the weights (Frontera's package has one graph per reference map)
    sizes = [f.stat().st_size for f in folder.iterdir()]
    assert max(sizes) < 1_000_000 and sum(sizes) < 2_000_000
    m = package.manifest
    assert m["flavour"] == "plain"
    checkpoint = ROOT / "checkpoints" / m["provenance"]["checkpoint"]
    assert hashlib.sha256(checkpoint.read_bytes()).hexdigest() == m["provenance"]["checkpoint_sha256"]
    assert m["strength"]["source"] == "measured at export"
    # the game's strongest scripted AI and random, each in every other seat ("heuristic (x1)" reads "heuristic")
    wanted = STRONGEST.get(package.game, {"heuristic", "random"})
    assert {r["opponents"].split(" (x")[0] for r in m["strength"]["results"]} >= wanted
    parity = m["parity"]
    assert parity["agree"] == parity["positions"] >= 1000
    assert parity["max_abs_logit_diff"] < 1e-3
    assert all(graph.roles["value"] == "value" for graph in package.graphs)  # search:FOLDER runs on it
    assert parity["max_abs_value_diff"] < 1e-3
    card = checkpoint.with_suffix(".md").read_text()
    assert f"checkpoints/{folder.name}/" in card, "the model card's export paragraph names the package"


@pytest.mark.parametrize("folder", PACKAGES, ids=lambda p: p.name)
def test_package_plays_legal_moves_on_every_map_it_accepts(folder: Path) -> None:
    pytest.importorskip("onnxruntime")
    package = read_package(folder)
    if package.game != "domain-wheel":
        adapter = games.get(package.game)
        trained = package.manifest["game"]["trained_options"]
        if package.game == "frontera":  # a graph accepts one map's key: each is played on that reference map
            maps = {map_key(reference_map(size))["map_digest"]: size for size in SIZES}
        for graph in package.graphs:
            if package.game == "frontera":
                accepts = {"map": maps[graph.accepts["map_digest"]]}
            else:  # Alveole's one grid is no option
                accepts = {k: v for k, v in graph.accepts.items() if k in trained}
            options = adapter.options_from_dict({**trained, **accepts})
            adapter = adapter.for_options(options)  # Frontera: the trained number of players
            seats = [adapter.make_seat(str(folder), seed=s) for s in range(adapter.num_players)]
            game = adapter.new_game(options)
            for _ in range(30):
                if game.over:
                    break
                action = seats[game.turn].act(game, game.turn)
                assert action in game.legal_actions(), json.dumps(graph.accepts)
                game.play(action)
        return
    for graph in package.graphs:
        options = GameOptions(**{**package.manifest["game"]["trained_options"], **graph.accepts, "max_rounds": 12})
        seats = [load_policy_file(folder, seed=s) for s in range(3)]
        game = Game.new(options)
        while not game.over:
            move = seats[game.turn].act(game, game.turn)
            assert move in game.legal_moves(), json.dumps(graph.accepts)
            game.play(move)


@pytest.mark.parametrize("folder", PACKAGES, ids=lambda p: p.name)
def test_search_seat_over_the_package_plays_legal_moves(folder: Path) -> None:
    pytest.importorskip("onnxruntime")
    package = read_package(folder)
    spec = f"search:{folder}?playouts=6"
    if package.game != "domain-wheel":
        adapter = games.get(package.game)
        if not adapter.takes_search:  # Frontera: no search seat yet, and the spec says so instead of playing
            with pytest.raises(ValueError, match="unknown .* seat"):
                adapter.make_seat(spec, seed=0)
            return
        options = adapter.options_from_dict(package.manifest["game"]["trained_options"])
        seat, game = adapter.make_seat(spec, seed=0), adapter.new_game(options)
        for _ in range(8):
            action = seat.act(game, game.turn)
            assert action in game.legal_actions()
            game.play(action)
        return
    from policies.search import load

    seat = load(spec, seed=0)
    game = Game.new(GameOptions(**{**package.manifest["game"]["trained_options"], "max_rounds": 12}))
    for _ in range(8):
        move = seat.act(game, game.turn)
        assert move in game.legal_moves()
        game.play(move)
