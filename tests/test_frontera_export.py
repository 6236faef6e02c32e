"""``dw export`` of Frontera's learned agent (docs/FRONTERA.md, "Export"): graphs per map, parity, the torch-free seat.

The checkpoint is made here: configs/frontera_smoke.yaml's network sizes with random weights (shaken, so that the
policy has opinions) saved by the trainer's own checkpoint writer; nothing is trained. One export (three maps and
the export-time parity) is shared by the module; every other test reads it or a copy.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnxscript")
torch = pytest.importorskip("torch")

from dw_cli.main import main  # noqa: E402
from frontera_env.engine import Game  # noqa: E402
from frontera_env.map_file import reference_map  # noqa: E402
from policies.frontera.package_seat import FronteraPackageSeat, map_key  # noqa: E402
from policies.package import MANIFEST, PackageError, sha256_of  # noqa: E402
from tests.frontera_helpers import check_hidden_state_perturbations  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DW_PACKAGE = ROOT / "checkpoints" / "small-agent"
SMOKE_SIZE = {"channels": 8, "cell_layers": 1, "land_layers": 1, "head_hidden": 16}  # configs/frontera_smoke.yaml
BLOCKER = """
import sys


class NoTorch:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("torch", "onnx", "onnxscript"):
            raise ImportError(f"{name} is blocked: this process must play without torch")
        return None


sys.meta_path.insert(0, NoTorch())
"""


def _checkpoint(path: Path) -> Path:
    """Write a Frontera ``dw train`` checkpoint (small map, 3 players) of a fresh, shaken smoke-sized network."""
    from policies import games
    from training.ppo.config import from_dict
    from training.ppo.resume import save_checkpoint

    game = {"name": "frontera", "map": "small", "players": 3, "max_turns": 9}
    config = from_dict({"game": game, "network": SMOKE_SIZE, "eval": {"final_games": 0}})
    torch.manual_seed(11)
    net = games.get("frontera").for_options(config.options).make_network(config.options, SMOKE_SIZE)  # type: ignore[attr-defined]
    with torch.no_grad():
        for p in net.parameters():
            p.add_(0.3 * torch.randn_like(p))
    save_checkpoint(path, net, config, {"env_steps": 4096, "updates": 2}, None)
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("frontera-export")
    ckpt = _checkpoint(root / "frontera-tiny.pt")
    out = root / "exports" / "frontera-tiny"
    import contextlib
    import io

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main(["export", str(ckpt), "-o", str(out), "--no-progress"]) == 0
    return {"checkpoint": ckpt, "package": out, "printed": printed.getvalue()}


def _copy(built: dict[str, Any], tmp_path: Path) -> Path:
    copy = tmp_path / "pkg"
    shutil.copytree(built["package"], copy)
    return copy


def _edit_manifest(folder: Path, change: Any) -> None:
    data = json.loads((folder / MANIFEST).read_text())
    change(data)
    (folder / MANIFEST).write_text(json.dumps(data))


# ---------------------------------------------------------------- the package


def test_export_writes_one_graph_per_reference_map_with_the_parity_of_every_case(built: dict[str, Any]) -> None:
    manifest = json.loads((built["package"] / MANIFEST).read_text())
    assert manifest["game"]["name"] == "frontera" and manifest["game"]["trained_options"]["map"] == "small"
    files = [g["file"] for g in manifest["graphs"]]
    assert files == ["model.onnx", "model-medium.onnx", "model-large.onnx"]
    for graph, size in zip(manifest["graphs"], ("small", "medium", "large"), strict=True):
        assert graph["accepts"] == map_key(reference_map(size))
        assert (built["package"] / graph["file"]).is_file()
    parity = manifest["parity"]
    cases = {(c["map"], c["players"], c["fog"]) for c in parity["cases"]}
    maps = {f"the {s} map" for s in ("small", "medium", "large")}
    assert cases == {(m, p, f) for m in maps for p in (2, 3, 4, 6) for f in (False, True)}
    assert parity["positions"] >= 96 and parity["disagree_apart"] == 0
    assert parity["max_abs_logit_diff"] <= parity["tolerance"] == 1e-4
    assert "(tolerance 0.0001)" in built["printed"] and "model-large.onnx" in built["printed"]


@pytest.mark.parametrize("size", ["small", "medium", "large"])
def test_parity_each_map_greedy_actions_and_logits_match_the_checkpoint(built: dict[str, Any], size: str) -> None:
    from policies import checkpoint
    from policies.frontera.inputs import MapGraph
    from policies.onnx_graph import OnnxGraph
    from policies.package import read_package
    from training.export.export_frontera import TOLERANCE, compare, random_positions

    net = checkpoint.build_network(checkpoint.load(built["checkpoint"]), built["checkpoint"]).eval()
    board = reference_map(size)
    net.set_map(MapGraph.of_map(board))
    package = read_package(built["package"])
    graph = OnnxGraph(package, package.graph_for(map_key(board)))
    obs, masks = random_positions(size, 4, True, 12, seed=77)
    result = compare(net, graph, obs, masks)
    assert result["positions"] == 12 and result["disagree_apart"] == 0
    assert result["agree"] >= 12 - result["near_ties"]
    assert result["max_abs_logit_diff"] <= TOLERANCE and result["max_abs_value_diff"] <= TOLERANCE


def test_a_parity_above_the_tolerance_stops_the_export() -> None:
    from training.export.export_frontera import ParityError, check_parity

    case = {"map": "the medium map", "players": 6, "fog": True, "positions": 4, "disagree_apart": 0}
    check_parity({"cases": [{**case, "max_abs_logit_diff": 5e-5}]})
    with pytest.raises(ParityError, match=r"the medium map \(6 players, fog on\).*0\.002 \(allowed: 0\.0001\)"):
        check_parity({"cases": [{**case, "max_abs_logit_diff": 5e-5}, {**case, "max_abs_logit_diff": 2e-3}]})
    with pytest.raises(ParityError, match="1 of 4 greedy actions differ"):
        check_parity({"cases": [{**case, "max_abs_logit_diff": 0.0, "disagree_apart": 1}]})


def test_measure_plays_the_package_against_every_scripted_ai_with_no_random_openings(built: dict[str, Any]) -> None:
    from policies import games
    from policies.games.frontera import FronteraOptions
    from training.export.export_strength import measure_strength

    options = FronteraOptions(map="small", players=2, max_turns=30)
    adapter = games.get("frontera").for_options(options)
    strength = measure_strength(built["package"], options, 2, 1, 0, False, game=adapter)
    assert [row["opponents"] for row in strength["results"]] == adapter.registered_seats()
    assert strength["opening_plies"] == 0  # the arena refuses random openings for Frontera (its games differ by seed)
    assert all(row["games"] == 2 for row in strength["results"])


# ---------------------------------------------------------------- the seat


def test_the_package_seat_plays_a_whole_3_player_small_map_game_in_the_arena_without_torch(
    built: dict[str, Any], tmp_path: Path
) -> None:
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(BLOCKER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(shim), str(ROOT)])}
    package = str(built["package"])
    args = [sys.executable, "-m", "dw_cli.main", "arena", "--game", "frontera", "--option", "map=small"]
    args += ["--option", "players=3", "--lineup", f"{package},expansionist,aggressor", "--games", "2"]
    args += ["--workers", "1", "--seed", "3", "--no-progress"]
    run = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300, check=False, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "blocked" not in run.stderr
    assert "Games: 2" in run.stdout and "truncation 0.0%" in run.stdout  # whole games, ended by a rule
    assert any(line.split()[:2] == [package, "2"] for line in run.stdout.splitlines())  # its two seat-games


def test_importing_and_loading_the_package_seat_imports_no_torch(built: dict[str, Any]) -> None:
    code = (
        "import sys\n"
        "from policies.frontera.package_seat import load\n"
        f"load({str(built['package'])!r})\n"
        "print(sorted(k for k in sys.modules if k.split('.')[0] in ('torch', 'onnx', 'onnxscript')))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


@pytest.mark.parametrize("fog", [False, True], ids=["open", "fog"])
def test_R13_the_package_seat_decides_the_same_when_hidden_state_is_perturbed(built: dict[str, Any], fog: bool) -> None:
    seat = FronteraPackageSeat(built["package"], seed=0)
    assert check_hidden_state_perturbations(fog, seat.inputs, seat._draw) >= 10


def test_the_package_seat_plays_the_learned_agent_s_greedy_moves(built: dict[str, Any]) -> None:
    from policies.frontera.agent_seat import load as load_agent

    game = Game.new(reference_map("medium"), 5, seed=8, fog=True, max_turns=30)
    package, agent = FronteraPackageSeat(built["package"]), load_agent(built["checkpoint"], greedy=True)
    played = 0
    while not game.over and played < 150:
        action = package.act(game, game.current)
        assert action == agent.act(game, game.current)
        game.apply(action)
        played += 1
    assert played == 150 or game.over


def test_a_sampling_package_seat_plays_legal_moves_repeatably_from_its_seed(built: dict[str, Any]) -> None:
    def actions(seed: int) -> list[Any]:
        game = Game.new(reference_map("large"), 6, seed=5, max_turns=30)
        seat = FronteraPackageSeat(built["package"], seed=seed, greedy=False)
        out = []
        while not game.over and len(out) < 120:
            out.append(seat.act(game, game.current))
            game.apply(out[-1])  # IllegalAction (a ValueError) if the seat ever plays outside the rules
        return out

    first = actions(3)
    assert actions(3) == first and actions(4) != first  # the seed decides the draws, and it does change them


# ---------------------------------------------------------------- where seats are offered


def test_the_browser_lists_a_frontera_package_in_its_advanced_list(built: dict[str, Any]) -> None:
    from play import levels, strategies

    found = strategies.discover([built["package"].parent], "frontera")
    entry = next(s for s in found if s.id == "package:frontera-tiny")
    assert entry.kind == "package" and entry.spec == str(built["package"].resolve())
    assert "package:frontera-tiny" in [e["id"] for e in levels.advanced_json(found)]
    assert not [s.id for s in found if s.kind == "search"]  # Frontera has no search seat: none is offered
    assert "package:frontera-tiny" not in [s.id for s in strategies.discover([built["package"].parent], "conquer")]
    from policies import games

    seat = games.get("frontera").make_seat(entry.spec, seed=1)  # what a room does with the chosen entry
    assert isinstance(seat, FronteraPackageSeat)


# ---------------------------------------------------------------- refusals


def test_a_package_of_another_game_is_refused_naming_both(built: dict[str, Any]) -> None:
    from policies import games

    with pytest.raises(
        PackageError, match=r"a strategy package of 'domain-wheel', not of 'frontera'.*--game domain_wheel"
    ):
        games.get("frontera").check_seat_spec(str(DW_PACKAGE))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m.update(format_version=2), "package format version 2; this version reads 1"),
        (lambda m: m["game"].update(rules_version="frontera-rules-0"), "rules 'frontera-rules-0'"),
        (lambda m: m["observation"].update(version="frontera-obs-0"), "observation layout 'frontera-obs-0'"),
    ],
    ids=["format-version", "rules", "observation"],
)
def test_a_package_of_another_version_is_refused(
    built: dict[str, Any], tmp_path: Path, change: Any, message: str
) -> None:
    folder = _copy(built, tmp_path)
    _edit_manifest(folder, change)
    with pytest.raises(PackageError, match=message):
        FronteraPackageSeat(folder)


def test_a_missing_or_corrupt_graph_is_refused_naming_the_file(built: dict[str, Any], tmp_path: Path) -> None:
    folder = _copy(built, tmp_path)
    (folder / "model-medium.onnx").write_bytes(b"not onnx")
    with pytest.raises(PackageError, match=r"model-medium\.onnx: SHA-256 is .*corrupt or modified"):
        FronteraPackageSeat(folder)

    def rehash(m: dict[str, Any]) -> None:  # a damaged graph whose hash was updated too: onnxruntime refuses it
        m["graphs"][1]["sha256"] = sha256_of(b"not onnx")

    _edit_manifest(folder, rehash)
    with pytest.raises(PackageError, match=r"model-medium\.onnx: not a readable ONNX graph"):
        FronteraPackageSeat(folder)
    (folder / "model-medium.onnx").unlink()
    with pytest.raises(PackageError, match=r"model-medium\.onnx: missing"):
        FronteraPackageSeat(folder)


def test_a_map_the_package_has_no_graph_for_is_refused_naming_both_maps(built: dict[str, Any], tmp_path: Path) -> None:
    folder = _copy(built, tmp_path)
    _edit_manifest(folder, lambda m: m.update(graphs=m["graphs"][:1]))
    seat = FronteraPackageSeat(folder)
    game = Game.new(reference_map("medium"), 3, seed=2)
    with pytest.raises(PackageError, match=r"no graph for the medium map; it accepts the small map"):
        seat.act(game, game.current)


def test_the_arena_refuses_a_package_without_the_map_s_graph_before_any_game_naming_package_map_and_maps(
    built: dict[str, Any], tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from training.evaluation import arena

    folder = _copy(built, tmp_path)
    _edit_manifest(folder, lambda m: m.update(graphs=m["graphs"][:1]))
    played: list[Any] = []
    monkeypatch.setattr(arena, "play_all", lambda *a, **k: played.append(a) or [])
    args = ["arena", "--game", "frontera", "--option", "map=medium", "--option", "players=3"]
    args += ["--lineup", f"{folder},expansionist,aggressor", "--games", "1", "--workers", "1", "--no-progress"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert played == []  # refused before any game: no "Seat faults: 186 error" report
    assert f"{folder}: this package has no graph for the medium map; it accepts the small map" in err
    assert FronteraPackageSeat(folder).maps() == ["the small map"]


def test_export_refuses_another_game_s_map_option(built: dict[str, Any], tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "never"
    assert main(["export", str(built["checkpoint"]), "-o", str(out), "--map", "2,4", "--no-progress"]) != 0
    err = capsys.readouterr().err
    assert "Frontera's graphs are one per map: give --map small|medium|large or --map FILE.json" in err
    assert not out.exists()


def test_the_package_s_observation_version_is_the_agent_s() -> None:
    from policies.frontera import package_seat
    from policies.games.frontera import OBSERVATION_VERSION

    assert package_seat.OBSERVATION_VERSION == OBSERVATION_VERSION
