"""``dw export --flavour ml-agents``: the graph loads the way Unity ML-Agents' model loader reads it.

The loader (ML-Agents' ``SentisModelParamLoader``, model API version 3) finds tensors by name: it reads the
constant outputs ``version_number``, ``memory_size`` and ``discrete_action_output_shape`` from the model,
feeds ``obs_0`` and ``action_masks`` (float32, 1 = allowed) and reads ``discrete_actions`` or
``deterministic_discrete_actions``. This test does the same with the onnx and onnxruntime packages.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnxscript")

from dw_cli.main import main  # noqa: E402
from dw_env.engine import Game  # noqa: E402
from dw_env.options import GameOptions  # noqa: E402
from policies.package import MANIFEST, PackageError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
AGENT = ROOT / "checkpoints" / "small-agent.pt"
D, A = 133 * 15 + 19 * 21 + 26, 135
OUTPUTS = {
    "version_number": ("float32", [1]),
    "memory_size": ("float32", [1]),
    "discrete_actions": ("int64", ["batch", 1]),
    "discrete_action_output_shape": ("float32", [1, 1]),
    "deterministic_discrete_actions": ("int64", ["batch", 1]),
}


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mlagents") / "small-ml"
    assert main(["export", str(AGENT), "-o", str(out), "--flavour", "ml-agents", "--no-progress"]) == 0
    return out


def _constant(model, name: str) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Return the value of a constant output, read from the graph without running it (following Identity)."""
    from onnx import numpy_helper

    for init in model.graph.initializer:
        if init.name == name:
            return numpy_helper.to_array(init)
    for node in model.graph.node:
        if name in node.output:
            if node.op_type == "Constant":
                return numpy_helper.to_array(node.attribute[0].t)
            if node.op_type == "Identity":
                return _constant(model, node.input[0])
    raise AssertionError(f"{name} is not a constant of the graph")


def test_names_dtypes_and_shapes_are_ml_agents(package: Path) -> None:
    import onnx

    model = onnx.load(str(package / "model.onnx"))
    onnx.checker.check_model(model)
    inputs = {i.name: i for i in model.graph.input}
    assert list(inputs) == ["obs_0", "action_masks"]
    for name, width in (("obs_0", D), ("action_masks", A)):
        t = inputs[name].type.tensor_type
        assert t.elem_type == onnx.TensorProto.FLOAT
        assert t.shape.dim[0].dim_param and t.shape.dim[1].dim_value == width  # dynamic batch, fixed width
    assert [o.name for o in model.graph.output] == list(OUTPUTS)
    assert [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] == [15]  # Sentis: 7-15
    assert all(n.domain in ("", "ai.onnx") for n in model.graph.node)
    m = json.loads((package / MANIFEST).read_text())
    assert m["flavour"] == "ml-agents"
    assert {o["name"]: (o["dtype"], o["shape"]) for o in m["graphs"][0]["outputs"]} == OUTPUTS


def test_the_loader_reads_the_constants(package: Path) -> None:
    import onnx

    model = onnx.load(str(package / "model.onnx"))
    assert _constant(model, "version_number").tolist() == [3.0]
    assert _constant(model, "memory_size").tolist() == [0.0]
    assert _constant(model, "discrete_action_output_shape").tolist() == [[float(A)]]


@pytest.mark.parametrize("batch", [1, 4])
def test_all_zero_inputs_run_without_nan(package: Path, batch: int) -> None:
    import onnxruntime as ort

    session = ort.InferenceSession(str(package / "model.onnx"), providers=["CPUExecutionProvider"])
    feed = {"obs_0": np.zeros((batch, D), np.float32), "action_masks": np.zeros((batch, A), np.float32)}
    out = dict(zip([o.name for o in session.get_outputs()], session.run(None, feed), strict=True))
    dtypes = {"float32": np.float32, "int64": np.int64}
    for name, (dtype, shape) in OUTPUTS.items():
        assert out[name].dtype == dtypes[dtype], name
        assert list(out[name].shape) == [batch if d == "batch" else d for d in shape], name
    for name in ("discrete_actions", "deterministic_discrete_actions"):
        assert ((out[name] >= 0) & (out[name] < A)).all()
    assert out["version_number"].tolist() == [3.0] and out["memory_size"].tolist() == [0.0]


def test_sampled_actions_respect_the_mask(package: Path) -> None:
    import onnxruntime as ort

    session = ort.InferenceSession(str(package / "model.onnx"), providers=["CPUExecutionProvider"])
    mask = np.zeros((64, A), np.float32)
    mask[:, [3, 40, A - 2]] = 1.0
    sampled, greedy = session.run(
        ["discrete_actions", "deterministic_discrete_actions"],
        {"obs_0": np.zeros((64, D), np.float32), "action_masks": mask},
    )
    assert set(sampled.ravel()) <= {3, 40, A - 2} and set(greedy.ravel()) <= {3, 40, A - 2}


def test_greedy_actions_match_the_checkpoint(package: Path) -> None:
    from policies.onnx_policy import OnnxGraph
    from policies.package import read_package
    from training.export.export import load_network
    from training.export.export_parity import collect_positions, compare

    options = GameOptions(land_radius=1, map_radius=2, max_rounds=40)
    obs, masks = collect_positions(AGENT, options, 200, seed=5)
    pkg = read_package(package)
    net, _ = load_network(AGENT)
    result = compare(net, OnnxGraph(pkg, pkg.graphs[0]), obs, masks)
    assert result["agree"] == result["positions"] == 200


def test_the_flavour_plays_a_seat_greedy_only(package: Path) -> None:
    from policies.onnx_policy import load

    seats = [load(package, seed=s) for s in range(3)]
    game = Game.new(GameOptions(land_radius=1, map_radius=2, max_rounds=30))
    while not game.over:
        move = seats[game.turn].act(game, game.turn)
        assert move in game.legal_moves()
        game.play(move)
    with pytest.raises(PackageError, match="sampling needs the graph's logits"):
        load(package, greedy=False)
