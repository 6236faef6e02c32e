"""``dw export`` of the board games (Alveole, Conquer): packages per grid, parity, the torch-free seat, bad input.

The checkpoints are made here: a small BoardPolicyNet with random weights (shaken, so that the policy has
opinions) saved by the trainer's checkpoint writer (``training.ppo.resume.save_checkpoint``) with a real training
config of its game; nothing is trained, so the file's runtime stays a few seconds.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnxscript")

from dw_cli.main import main  # noqa: E402
from policies import games  # noqa: E402
from policies.package import MANIFEST, PackageError, read_package  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DW_PACKAGE = ROOT / "checkpoints" / "small-agent"
SIZE = {"channels": 8, "cell_layers": 1, "land_layers": 0, "head_hidden": 16}
BLOCKER = """
import sys


class NoTorch:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "onnx", "onnxscript"):
            raise ImportError(f"{name} is blocked: this process must play without torch")
        return None


sys.meta_path.insert(0, NoTorch())
"""


def _checkpoint(path: Path, game: dict[str, Any], seed: int) -> Path:
    """Write a ``dw train`` checkpoint (the trainer's own writer and config) of a fresh, shaken network."""
    import torch

    from training.ppo.config import from_dict
    from training.ppo.resume import save_checkpoint

    config = from_dict({"game": game, "network": SIZE, "eval": {"final_games": 0}})
    torch.manual_seed(seed)
    net = games.get(config.game_id).make_network(config.options, SIZE)  # type: ignore[attr-defined]
    with torch.no_grad():
        for p in net.parameters():
            p.add_(0.3 * torch.randn_like(p))
    save_checkpoint(path, net, config, {"env_steps": 4096, "updates": 2}, None)
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("board-export")
    paths = {
        "conquer.pt": _checkpoint(root / "conquer-7.pt", {"name": "conquer", "width": 7, "height": 7}, 1),
        "alveole.pt": _checkpoint(root / "alveole-60.pt", {"name": "alveole", "max_plies": 60}, 2),
        "conquer": root / "exports" / "conquer",
        "alveole": root / "exports" / "alveole",
    }
    args = ["--grid", "9x9", "--grid", "7x7", "--display-name", "es=Conquista", "--no-progress"]
    assert main(["export", str(paths["conquer.pt"]), "-o", str(paths["conquer"]), *args]) == 0
    assert main(["export", str(paths["alveole.pt"]), "-o", str(paths["alveole"]), "--no-progress"]) == 0
    return paths


def _manifest(folder: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((folder / MANIFEST).read_text())
    return data


def test_conquer_package_holds_a_graph_per_grid_named_in_the_manifest(built: dict[str, Path]) -> None:
    import onnx

    folder = built["conquer"]
    assert sorted(p.name for p in folder.iterdir()) == ["model-9x9.onnx", "model.onnx", MANIFEST]
    m = _manifest(folder)
    assert m["name"] == "conquer-7" and m["display_names"]["es"] == "Conquista" and m["flavour"] == "plain"
    assert m["game"]["name"] == "conquer" and m["game"]["rules_version"] == "conquer-rules-1"
    assert m["game"]["trained_options"]["width"] == 7 and "one graph per grid" in m["game"]["accepts_options"]
    assert m["observation"]["version"] == "conquer-obs-v1" and m["observation"]["blocks"]["size"] == 8 * 49
    assert m["provenance"]["env_steps"] == 4096 and m["strength"] == {"source": "none"} and m["parity"] is None
    trained, wide = m["graphs"]
    assert trained["file"] == "model.onnx" and trained["accepts"] == {"width": 7, "height": 7}
    assert wide["accepts"] == {"width": 9, "height": 9} and wide["opset"] == 18
    assert wide["inputs"] == [
        {"name": "observation", "dtype": "int8", "shape": ["batch", 8 * 81]},
        {"name": "action_mask", "dtype": "int8", "shape": ["batch", 82]},
    ]
    assert [o["name"] for o in wide["outputs"]] == ["masked_logits", "action", "value"]
    model = onnx.load(str(folder / "model-9x9.onnx"))
    onnx.checker.check_model(model)
    meta = {p.key: p.value for p in model.metadata_props}
    assert meta["game"] == "conquer" and meta["observation_version"] == "conquer-obs-v1"
    assert json.loads(meta["accepts"]) == {"height": 9, "width": 9}
    assert all(n.domain in ("", "ai.onnx") for n in model.graph.node)
    assert (folder / "model.onnx").stat().st_size < 100_000


def test_alveole_package_has_its_one_grid(built: dict[str, Path]) -> None:
    m = _manifest(built["alveole"])
    assert m["game"]["name"] == "alveole" and m["game"]["trained_options"] == {"max_plies": 60}
    assert m["observation"]["version"] == "alveole-obs-v1"
    assert [(g["file"], g["accepts"]) for g in m["graphs"]] == [("model.onnx", {"width": 9, "height": 9})]
    assert m["graphs"][0]["inputs"][1]["shape"] == ["batch", 486]


@pytest.mark.parametrize(
    ("game_id", "options", "count"),
    [
        ("alveole", {"max_plies": 60}, 200),
        ("conquer", {"width": 7, "height": 7}, 150),
        ("conquer", {"width": 9, "height": 9}, 150),
    ],
    ids=["alveole", "conquer-7x7-trained", "conquer-9x9"],
)
def test_parity_with_the_torch_network_on_positions_of_real_games(
    built: dict[str, Path], game_id: str, options: dict[str, Any], count: int
) -> None:
    from policies import checkpoint
    from policies.board_onnx_policy import grid_key
    from policies.onnx_policy import OnnxGraph
    from training.export.export_parity import collect_board_positions, compare

    game = games.get(game_id)
    opts = game.options_from_dict(options)
    path = built[f"{game_id}.pt"]
    net = checkpoint.build_network(checkpoint.load(path), path).eval()
    obs, masks = collect_board_positions(net, game, opts, count, seed=5)
    assert len({o.tobytes() for o in obs}) > count // 2  # positions of many games, not one repeated
    pkg = read_package(built[game_id])
    result = compare(net, OnnxGraph(pkg, pkg.graph_for(grid_key(game.planes(opts)))), obs, masks, phase_feature=None)
    assert result["positions"] == count and result["agree"] == count
    assert result["max_abs_logit_diff"] < 1e-3


def test_package_seat_plays_legal_games_on_each_grid_greedy_or_seeded(built: dict[str, Path]) -> None:
    conquer = games.get("conquer")
    for width in (7, 9):
        options = conquer.options_from_dict({"width": width, "height": width, "max_plies": 30})
        seats = [conquer.make_seat(str(built["conquer"]), seed=s) for s in range(2)]
        state = conquer.new_game(options)
        while not state.over:
            action = seats[state.turn].act(state, state.turn)
            assert action in state.legal_actions()
            state.play(action)
    assert repr(seats[0]) == "BoardPackagePolicy('conquer-7', game=conquer, greedy=True)"
    assert seats[0].display_name == "Conquista"

    from policies.board_onnx_policy import BoardPackagePolicy

    alveole = games.get("alveole")

    def plies(seed: int, greedy: bool) -> list[int]:
        seat = BoardPackagePolicy(built["alveole"], alveole, seed=seed, greedy=greedy)
        state, out = alveole.new_game(alveole.default_options()), []
        for _ in range(12):
            out.append(seat.act(state, state.turn))
            state.play(out[-1])
        return out

    assert plies(0, True) == plies(9, True)
    assert plies(1, False) == plies(1, False) != plies(2, False)


def test_a_grid_the_package_does_not_accept_is_refused_listing_the_grids(built: dict[str, Path]) -> None:
    conquer = games.get("conquer")
    seat = conquer.make_seat(str(built["conquer"]), seed=0)
    state = conquer.new_game(conquer.options_from_dict({"width": 5, "height": 5}))
    with pytest.raises(PackageError, match=r"no graph for the 5x5 grid; it accepts 7x7, 9x9 .*--grid 5x5"):
        seat.act(state, 0)


def test_the_arena_plays_a_package_without_torch(built: dict[str, Path], tmp_path: Path) -> None:
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(BLOCKER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(shim), str(ROOT)])}
    package = str(built["alveole"])
    args = [sys.executable, "-m", "dw_cli.main", "arena", "--game", "alveole", "--players", package, "random"]
    args += ["--mode", "gauntlet", "--games", "4", "--option", "max_plies=60", "--workers", "2", "--no-progress"]
    run = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300, check=False, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "Arena: Alveole, 4 games" in run.stdout and package in run.stdout
    assert "blocked" not in run.stderr


def test_the_search_seat_over_a_package_plays_without_torch(built: dict[str, Path], tmp_path: Path) -> None:
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(BLOCKER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(shim), str(ROOT)])}
    seat = f"search:{built['alveole']}?playouts=16"
    args = [sys.executable, "-m", "dw_cli.main", "arena", "--game", "alveole", "--lineup", f"{seat},random"]
    args += ["--games", "2", "--option", "max_plies=40", "--workers", "1", "--no-progress"]
    run = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300, check=False, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "Arena: Alveole, 2 games" in run.stdout and seat in run.stdout
    assert "blocked" not in run.stderr


def test_a_package_of_another_game_is_refused_naming_both_games(built: dict[str, Path]) -> None:
    from policies.files import make_seat_policy

    alveole, conquer = games.get("alveole"), games.get("conquer")
    with pytest.raises(PackageError, match=r"a strategy package of 'conquer', not of 'alveole'.*--game conquer"):
        alveole.check_seat_spec(str(built["conquer"]))
    with pytest.raises(PackageError, match=r"a strategy package of 'alveole', not of 'conquer'"):
        conquer.make_seat(str(built["alveole"]), seed=0)
    if DW_PACKAGE.is_dir():
        with pytest.raises(PackageError, match=r"of 'domain-wheel', not of 'conquer'.*--game domain_wheel"):
            conquer.check_seat_spec(str(DW_PACKAGE))
    with pytest.raises(PackageError, match=r"'alveole-obs-v1' has no encoder here.*of game 'alveole'"):
        make_seat_policy(str(built["alveole"]), seed=0)  # Domain Wheel's seats


def test_a_corrupt_or_edited_package_is_refused(built: dict[str, Path], tmp_path: Path) -> None:
    alveole = games.get("alveole")
    copy = Path(shutil.copytree(built["alveole"], tmp_path / "copy"))
    data = bytearray((copy / "model.onnx").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (copy / "model.onnx").write_bytes(bytes(data))
    with pytest.raises(PackageError, match=r"model\.onnx: SHA-256 is .*corrupt"):
        alveole.check_seat_spec(str(copy))
    shutil.copy(built["alveole"] / "model.onnx", copy / "model.onnx")
    m = _manifest(copy)
    m["observation"]["version"] = "alveole-obs-v0"
    (copy / MANIFEST).write_text(json.dumps(m))
    with pytest.raises(PackageError, match=r"observation layout 'alveole-obs-v0'.*encodes 'alveole-obs-v1'"):
        alveole.make_seat(str(copy), seed=0)
    (copy / MANIFEST).unlink()
    with pytest.raises(PackageError, match=r"a folder, but not a strategy package"):
        alveole.check_seat_spec(str(copy))


@pytest.mark.parametrize(
    ("which", "extra", "message"),
    [
        ("conquer.pt", ["--map", "2,4"], r"--map is Domain Wheel's .* checkpoint of Conquer.*--grid"),
        ("alveole.pt", ["--grid", "7x7"], r"Alveole is played on its one 9x9 grid; --grid 7x7 is not accepted"),
        ("conquer.pt", ["--grid", "1x9"], r"--grid 1x9: not a Conquer board .*width=1 is out of range"),
        ("conquer.pt", ["--grid", "9by9"], r"a grid is WIDTHxHEIGHT \(e\.g\. 9x9\), got '9by9'"),
    ],
    ids=["map-for-a-board-game", "alveole-other-grid", "grid-out-of-range", "grid-text"],
)
def test_bad_export_input_is_a_clear_error_and_changes_nothing(
    built: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    which: str,
    extra: list[str],
    message: str,
) -> None:
    out = Path(shutil.copytree(built["alveole"], tmp_path / "pkg"))  # an existing package at the target
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert main(["export", str(built[which]), "-o", str(out), *extra, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert re.search(message, err), err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]  # no staging folder left behind


def test_domain_wheel_options_stay_domain_wheels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    agent = ROOT / "checkpoints" / "small-agent.pt"
    if not agent.is_file():
        pytest.skip("the shipped agent is not in this checkout")
    assert main(["export", str(agent), "-o", str(tmp_path / "x"), "--grid", "9x9", "--no-progress"]) == 2
    assert "--grid is for the board games" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_ml_agents_flavour_of_a_board_game_plays_greedy(built: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "ml"
    assert main(["export", str(built["conquer.pt"]), "-o", str(out), "--flavour", "ml-agents", "--no-progress"]) == 0
    m = _manifest(out)
    assert m["flavour"] == "ml-agents" and m["graphs"][0]["roles"]["logits"] is None
    conquer = games.get("conquer")
    seat = conquer.make_seat(str(out), seed=0)
    plain = conquer.make_seat(str(built["conquer"]), seed=0)
    state = conquer.new_game(conquer.options_from_dict({"width": 7, "height": 7, "max_plies": 20}))
    while not state.over:
        action = seat.act(state, state.turn)
        assert action == plain.act(state, state.turn)  # the same greedy action as the plain graph
        state.play(action)
    assert state.ply >= 2
    with pytest.raises(PackageError, match="no logits output, which a search seat needs"):
        conquer.make_seat(f"search:{out}?playouts=4", seed=0)


@pytest.mark.parametrize(
    ("game_id", "options"),
    [("alveole", {"max_plies": 60}), ("conquer", {"width": 7, "height": 7}), ("conquer", {"width": 9, "height": 9})],
    ids=["alveole", "conquer-7x7-trained", "conquer-9x9"],
)
def test_search_seat_over_a_package_reads_the_checkpoints_priors_and_values(
    built: dict[str, Path], game_id: str, options: dict[str, Any]
) -> None:
    """search:FOLDER runs on onnxruntime what search:CHECKPOINT runs on torch: equal priors and values."""
    from policies.board_search import BoardSearchPolicy

    game = games.get(game_id)
    opts = game.options_from_dict({**options, "max_plies": 60})
    from_package = game.make_seat(f"search:{built[game_id]}?playouts=12", seed=3)
    from_checkpoint = game.make_seat(f"search:{built[f'{game_id}.pt']}?playouts=12", seed=3)
    assert isinstance(from_package, BoardSearchPolicy) and isinstance(from_checkpoint, BoardSearchPolicy)
    state, compared = game.new_game(opts), 0
    while not state.over and state.ply < 16:
        for seat in (from_package, from_checkpoint):
            seat.evaluator.fit(state)
        legal_p, priors_p, value_p = from_package.evaluate(state)
        legal_c, priors_c, value_c = from_checkpoint.evaluate(state)
        assert np.array_equal(legal_p, legal_c) and list(legal_p) == state.legal_actions()
        assert np.abs(priors_p - priors_c).max() < 1e-4 and abs(value_p - value_c) < 1e-4
        action = from_package.act(state, state.turn)
        assert action in state.legal_actions()
        state.play(action)
        compared += 1
    assert compared >= 8


def test_search_seat_refuses_a_package_of_another_game(built: dict[str, Path]) -> None:
    alveole = games.get("alveole")
    with pytest.raises(PackageError, match="a strategy package of 'conquer', not of 'alveole'"):
        alveole.check_seat_spec(f"search:{built['conquer']}?playouts=4")
    with pytest.raises(ValueError, match="not a strategy package"):
        alveole.check_seat_spec(f"search:{built['conquer'].parent}?playouts=4")
