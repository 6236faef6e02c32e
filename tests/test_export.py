"""``dw export``: the strategy package (graphs, manifest, metadata), parity with the checkpoint, bad input."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnxscript")

from dw_cli.main import main  # noqa: E402
from dw_env.engine import Game  # noqa: E402
from dw_env.options import GameOptions  # noqa: E402
from policies.files import check_seat_spec, load_policy_file  # noqa: E402
from policies.package import MANIFEST, PackageError, read_package  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
AGENT = ROOT / "checkpoints" / "small-agent.pt"
SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=40)
WIDE = GameOptions(land_radius=2, map_radius=2, max_rounds=40)


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export") / "small"
    code = main(["export", str(AGENT), "-o", str(out), "--map", "2,2", "--display-name", "es=Pequeña", "--no-progress"])
    assert code == 0
    return out


def _copy(package: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(package, tmp_path / "copy"))


def test_package_holds_a_graph_per_map_and_a_complete_manifest(package: Path) -> None:
    assert sorted(p.name for p in package.iterdir()) == ["model-l2-m2.onnx", "model.onnx", MANIFEST]
    m = json.loads((package / MANIFEST).read_text())
    assert m["name"] == "small-agent" and m["display_names"]["es"] == "Pequeña"
    assert m["game"]["name"] == "domain-wheel" and m["game"]["rules_version"]
    assert m["game"]["trained_options"]["land_radius"] == 1
    assert m["observation"]["version"] == "dw-obs-v1" and m["observation"]["dtype"] == "int8"
    assert m["provenance"]["env_steps"] == 3_010_560 and len(m["provenance"]["checkpoint_sha256"]) == 64
    assert m["strength"]["source"] == "model card small-agent.md" and len(m["strength"]["results"]) == 6
    main_graph, wide = m["graphs"]
    assert main_graph["file"] == "model.onnx" and main_graph["accepts"] == {"land_radius": 1, "map_radius": 2}
    assert wide["accepts"] == {"land_radius": 2, "map_radius": 2}
    d = 133 * 15 + 19 * 21 + 26
    assert main_graph["inputs"] == [
        {"name": "observation", "dtype": "int8", "shape": ["batch", d]},
        {"name": "action_mask", "dtype": "int8", "shape": ["batch", 135]},
    ]
    assert [o["name"] for o in main_graph["outputs"]] == ["masked_logits", "action", "value"]
    assert (package / "model.onnx").stat().st_size < 200_000


def test_graphs_carry_the_key_facts_and_standard_operators_only(package: Path) -> None:
    import onnx

    for name, accepts in (("model.onnx", {"land_radius": 1, "map_radius": 2}), ("model-l2-m2.onnx", None)):
        model = onnx.load(str(package / name))
        onnx.checker.check_model(model)
        meta = {p.key: p.value for p in model.metadata_props}
        assert meta["game"] == "domain-wheel" and meta["observation_version"] == "dw-obs-v1"
        assert meta["flavour"] == "plain" and meta["package_format"] == "strategy-package/1"
        if accepts:
            assert json.loads(meta["accepts"]) == accepts
        assert {o.domain for o in model.opset_import} <= {"", "ai.onnx"}
        assert [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] == [18]
        assert all(n.domain in ("", "ai.onnx") for n in model.graph.node)


@pytest.mark.parametrize("options", [SMALL, WIDE], ids=["trained-map", "wider-lands"])
def test_parity_with_the_checkpoint_on_real_positions(package: Path, options: GameOptions) -> None:
    from policies.domain_wheel.two_phase import TwoPhaseDriver, map_key
    from policies.onnx_policy import OnnxGraph
    from training.export.export import load_network
    from training.export.export_parity import collect_positions, compare

    obs, masks = collect_positions(AGENT, options, 300, seed=3)
    pkg = read_package(package)
    net, _ = load_network(AGENT)
    net.set_geometry(TwoPhaseDriver(options).geometry)
    result = compare(net, OnnxGraph(pkg, pkg.graph_for(map_key(options))), obs, masks)
    assert result["positions"] == 300 and result["phase_2"] > 50
    assert result["agree"] == 300
    assert result["max_abs_logit_diff"] < 1e-3


@pytest.mark.parametrize("options", [SMALL, WIDE], ids=["trained-map", "wider-lands"])
def test_package_is_a_seat_that_plays_legal_games(package: Path, options: GameOptions) -> None:
    check_seat_spec(str(package))
    seats = [load_policy_file(package, seed=s) for s in range(3)]
    game = Game.new(options)
    while not game.over:
        move = seats[game.turn].act(game, game.turn)
        assert move in game.legal_moves()
        game.play(move)


def test_greedy_by_default_and_sampling_is_seed_determined(package: Path) -> None:
    from policies.onnx_policy import load

    def moves(seed: int, greedy: bool) -> list[tuple[int, int]]:
        seats = [load(package, seed=seed + s, greedy=greedy) for s in range(3)]
        game, out = Game.new(SMALL), []
        for _ in range(30):
            move = seats[game.turn].act(game, game.turn)
            out.append(tuple(move))
            game.play(move)
        return out

    assert load(package).greedy
    assert moves(0, True) == moves(7, True)
    assert moves(1, False) == moves(1, False)
    assert moves(1, False) != moves(2, False)


def test_a_map_the_package_does_not_accept_is_refused(package: Path) -> None:
    seat = load_policy_file(package, seed=0)
    game = Game.new(GameOptions(land_radius=1, map_radius=3))
    with pytest.raises(PackageError, match=r"no graph for land_radius=1, map_radius=3; it accepts: land_radius=1"):
        seat.act(game, 0)


def test_a_corrupt_graph_is_refused_naming_the_file(package: Path, tmp_path: Path) -> None:
    copy = _copy(package, tmp_path)
    data = bytearray((copy / "model.onnx").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (copy / "model.onnx").write_bytes(bytes(data))
    with pytest.raises(PackageError, match=r"model\.onnx: SHA-256 is .* the manifest expects .*corrupt"):
        load_policy_file(copy)


def test_a_missing_graph_or_manifest_is_refused(package: Path, tmp_path: Path) -> None:
    copy = _copy(package, tmp_path)
    (copy / "model-l2-m2.onnx").unlink()
    with pytest.raises(PackageError, match=r"model-l2-m2\.onnx: missing"):
        read_package(copy)
    (copy / MANIFEST).unlink()
    with pytest.raises(ValueError, match="not a strategy package"):
        load_policy_file(copy)


def _edit(copy: Path, change: object) -> None:
    m = json.loads((copy / MANIFEST).read_text())
    change(m)  # type: ignore[operator]
    (copy / MANIFEST).write_text(json.dumps(m))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m.update(extra=1), r"unknown key 'extra'"),
        (lambda m: m.pop("graphs"), r"missing key 'graphs'"),
        (lambda m: m.update(format_version=2), r"package format version 2; this version reads 1"),
        (lambda m: m["observation"].update(version="dw-obs-v0"), r"observation layout 'dw-obs-v0' has no encoder"),
        (lambda m: m["game"].update(name="hex"), r"made for game 'hex'"),
        (lambda m: m["graphs"][0]["inputs"][0].update(name="obs"), r"roles.observation is 'observation'"),
        (lambda m: m["graphs"][0]["inputs"][0].update(shape=["batch", 7]), r"graph and manifest disagree"),
        (lambda m: m.update(name="other"), r"metadata 'name' is 'small-agent', the manifest says 'other'"),
        (lambda m: m["graphs"][0]["roles"].update(value="observation"), r"roles.value is 'observation'; expected one"),
        (lambda m: m["graphs"][0]["roles"].update(value="action"), r"outputs of dtype float32 and shape \[batch\]"),
        (lambda m: m["graphs"][0]["roles"].update(score="value"), r"unknown key 'score'"),
    ],
    ids=[
        "unknown-key",
        "missing-key",
        "format-version",
        "observation-version",
        "game",
        "roles",
        "shape",
        "meta",
        "value-an-input",
        "value-not-float",
        "unknown-role",
    ],
)
def test_a_bad_manifest_is_refused_with_a_clear_message(package: Path, tmp_path: Path, change, message) -> None:  # type: ignore[no-untyped-def]
    copy = _copy(package, tmp_path)
    _edit(copy, change)
    with pytest.raises(PackageError, match=message):
        load_policy_file(copy)  # refused when loaded, before any game


def test_a_manifest_that_is_not_json_is_refused(package: Path, tmp_path: Path) -> None:
    copy = _copy(package, tmp_path)
    (copy / MANIFEST).write_text("{not json")
    with pytest.raises(PackageError, match=r"strategy\.json: not valid JSON"):
        read_package(copy)


def test_a_checkpoint_that_is_not_a_policy_leaves_nothing_behind(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "notes.pt"
    bad.write_bytes(b"not a checkpoint")
    out = tmp_path / "exports" / "x"
    assert main(["export", str(bad), "-o", str(out), "--no-progress"]) == 2
    assert "notes.pt: not a readable checkpoint" in capsys.readouterr().err
    assert not out.exists()
    assert not (tmp_path / "exports").exists() or not any((tmp_path / "exports").iterdir())


def test_a_torch_file_that_is_not_a_dw_checkpoint_is_refused(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    import torch

    other = tmp_path / "weights.pt"
    torch.save({"state_dict": {"w": torch.zeros(2)}}, other)
    assert main(["export", str(other), "-o", str(tmp_path / "x"), "--no-progress"]) == 2
    assert "weights.pt: not a dw train checkpoint" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_export_refuses_to_overwrite_a_folder_that_is_not_a_package(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "mine"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    assert main(["export", str(AGENT), "-o", str(out), "--no-progress"]) == 2
    assert "a non-empty folder that is not a strategy package" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


def test_batch_axis_is_dynamic(package: Path) -> None:
    from policies.onnx_policy import OnnxGraph

    pkg = read_package(package)
    graph = OnnxGraph(pkg, pkg.graphs[0])
    for b in (1, 5):
        action, logits = graph.run(np.zeros((b, 2420), np.int8), np.ones((b, 135), np.int8))
        assert action.shape == (b,) and logits is not None and logits.shape == (b, 135)


@pytest.mark.parametrize("options", [SMALL, WIDE], ids=["trained map", "wider lands"])
def test_search_seat_over_the_package_reads_the_checkpoints_priors_and_values(
    package: Path, options: GameOptions
) -> None:
    """search:FOLDER runs on onnxruntime the search search:CHECKPOINT runs on torch (same priors, same values)."""
    from policies.domain_wheel.two_phase import TwoPhaseDriver
    from policies.search import OnnxEvaluator, TorchEvaluator, load

    from_package, from_checkpoint = load(f"search:{package}?playouts=8", seed=0), load(f"search:{AGENT}", seed=0)
    assert isinstance(from_package.evaluate, OnnxEvaluator)
    assert isinstance(from_checkpoint.evaluate, TorchEvaluator)
    for seat in (from_package, from_checkpoint):
        seat.evaluate.prepare(options)
    driver, game, compared = TwoPhaseDriver(options), Game.new(options), 0
    while not game.over and compared < 10:
        obs, mask = driver.encode(game, game.turn)
        obs, mask = obs[None].copy(), mask[None].copy()
        logp_p, value_p = from_package.evaluate(obs, mask)
        logp_c, value_c = from_checkpoint.evaluate(obs, mask)
        legal = mask != 0
        assert np.abs(logp_p[legal] - logp_c[legal]).max() < 1e-4 and abs(value_p[0] - value_c[0]) < 1e-4
        assert np.all(logp_p[~legal] < -1e6)  # illegal actions keep no probability
        move = from_package.act(game, game.turn)
        assert move in game.legal_moves()
        game.play(move)
        compared += 1
    assert compared == 10


def test_search_seat_refuses_a_folder_that_is_no_package(tmp_path: Path) -> None:
    from policies.search import check_spec

    with pytest.raises(ValueError, match="is a folder but not a strategy package"):
        check_spec(f"search:{tmp_path}")


def test_a_package_without_a_value_output_plays_but_is_refused_by_the_search(package: Path, tmp_path: Path) -> None:
    """A manifest from before the value output (no ``value`` role, no ``value`` output) still loads and plays."""
    import onnx

    from policies.search import load

    copy = _copy(package, tmp_path)
    m = json.loads((copy / MANIFEST).read_text())
    for graph in m["graphs"]:
        graph["roles"].pop("value")
        graph["outputs"] = [o for o in graph["outputs"] if o["name"] != "value"]
        model = onnx.load(str(copy / graph["file"]))
        kept = [o for o in model.graph.output if o.name != "value"]
        del model.graph.output[:]
        model.graph.output.extend(kept)
        onnx.save(model, str(copy / graph["file"]))
        graph["sha256"] = hashlib.sha256((copy / graph["file"]).read_bytes()).hexdigest()
    (copy / MANIFEST).write_text(json.dumps(m))
    seat = load_policy_file(copy, seed=0)
    game = Game.new(SMALL)
    move = seat.act(game, game.turn)
    assert move in game.legal_moves()
    with pytest.raises(PackageError, match="has no value output, which a search seat needs; export the agent again"):
        load(f"search:{copy}")
