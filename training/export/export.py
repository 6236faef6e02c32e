"""``dw export``: a trained checkpoint as a strategy package (ONNX graphs + ``strategy.json``), no torch to play.

The exporter is torch 2.13's default, the dynamo-based ``torch.onnx.export(..., dynamo=True)`` (it traces with
``torch.export`` and translates with ``onnxscript``), at the pinned opset :data:`OPSET`. Every graph has a
dynamic batch axis and only standard ONNX operators, so onnxruntime's CPU provider runs it with no custom
ops. Node metadata (stack traces) and intermediate shape annotations are stripped: a small-map graph is
about 60 KB.

One graph per accepted map. :class:`policies.domain_wheel.network.HexPolicyNet`'s weights do not depend on the map, but
its index tables (which cell sits where on the axial grid, which land owns which cell) do, and so do the
observation's and the action's sizes. Rather than make every port compute those tables and feed them as
inputs, each graph bakes in the tables of one map: ``model.onnx`` is the map the agent was trained on and
``model-l{land_radius}-m{map_radius}.onnx`` each further map given with ``--map``. All other game options
(K, fast knights, the king-alone variant, the round limit) are observation features, so every graph accepts
any of their values.

Flavours (:data:`policies.package.FLAVOURS`):

* ``plain``: inputs ``observation`` int8 [B, D] and ``action_mask`` int8 [B, A]; outputs ``masked_logits``
  float32 [B, A] (illegal actions at :data:`MASKED_LOGIT`), ``action`` int64 [B] (the greedy action) and
  ``value`` float32 [B] (the value head: the acting player's expected result, what a search seat over the
  package reads).
* ``ml-agents``: the tensors Unity ML-Agents' model loader expects (:mod:`training.export.export_mlagents`).

Both action phases run through the same graph: the phase is an observation feature (``phase``, global
block).

The board games (Alveole, Conquer: the checkpoint's payload names its game) export through the same code
path; what differs is behind :class:`HexTarget` and :class:`BoardTarget`: the network
(:class:`policies.board_network.BoardPolicyNet`), one graph per grid (``model.onnx`` the trained grid,
``model-{W}x{H}.onnx`` each ``--grid``: the weights do not depend on the grid, ``set_grid`` changes the
shapes), the manifest's game, observation and action entries, the parity positions and the arena.

Frontera's graph network exports through :data:`TARGETS` (:mod:`training.export.export_frontera`): one graph per
map, the three reference maps always in, and a parity check at every export that stops an export above its
tolerance.

The package is written to a temporary folder beside the output, read back, then put in place
(:func:`training.export.export_install.install_package`: into an existing package only the package's own files are
swapped, other files stay); with ``measure`` games the package is measured in the arena before that.
See docs/EXPORT.md.
"""

from __future__ import annotations

import datetime
import importlib
import io
import json
import platform
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from dw_env.envs.observation import OBSERVATION_VERSION, describe_observation
from dw_env.geometry import build_geometry
from dw_env.options import GameOptions
from policies.checkpoint import CheckpointError
from policies.domain_wheel import two_phase
from policies.package import (
    FLAVOURS,
    MAIN_GRAPH,
    metadata_for,
    sha256_of,
    write_manifest,
)
from training.export.export_install import install_package
from training.export.export_strength import card_strength, measure_strength

#: the ONNX opset every graph is exported at (onnxruntime >= 1.14 runs it; the dynamo exporter's native one)
OPSET: Final = 18
#: the logit of an illegal action in the plain flavour's ``masked_logits`` (finite: no NaN downstream)
MASKED_LOGIT: Final = -1e9
#: the exporter, named in the manifest
EXPORTER: Final = "torch.onnx.export(dynamo=True)"

#: game id -> "module:Class" of an export target kept in its own module (it uses this module's builders)
TARGETS: Final = {"frontera": "training.export.export_frontera:FronteraTarget"}

PLAIN_INPUTS: Final = ("observation", "action_mask")
PLAIN_OUTPUTS: Final = ("masked_logits", "action", "value")


@dataclass(frozen=True)
class ExportRequest:
    """What ``dw export`` was asked for."""

    checkpoint: Path
    out: Path
    name: str | None = None
    display_names: tuple[tuple[str, str], ...] = ()
    description: str | None = None
    flavour: str = "plain"
    maps: tuple[tuple[int, int], ...] = ()  # extra (land_radius, map_radius) beyond the trained map
    measure: int = 0  # arena games per line-up measured at export time (0: copy the model card's)
    parity: int = 0  # positions of the parity check recorded in the manifest (0: none)
    workers: int = 1
    seed: int = 0
    progress: bool = True
    grids: tuple[tuple[int, int], ...] = ()  # board games: extra (width, height) beyond the trained grid
    map_names: tuple[str, ...] = ()  # Frontera: extra maps (a size or a frontera-map/1 file) beyond the reference maps


def load_network(path: Path) -> tuple[Any, dict[str, Any]]:
    """Return (HexPolicyNet in eval mode, checkpoint payload); CheckpointError if it is not a policy."""
    from policies import checkpoint

    payload = checkpoint.load(path, game_id="domain_wheel")
    return _hex_network(payload, path), payload


def _hex_network(payload: dict[str, Any], path: Path) -> Any:
    """Return the HexPolicyNet (eval mode) of a Domain Wheel checkpoint's payload; CheckpointError if not."""
    from policies.domain_wheel.network import HexPolicyNet

    try:
        options = GameOptions.from_dict(payload["options"])
        net = HexPolicyNet(build_geometry(options.land_radius, options.map_radius), **payload["network"])
        net.load_state_dict(payload["model"])
    except (TypeError, ValueError, RuntimeError, KeyError) as exc:
        raise CheckpointError(f"{path}: not a policy network this version can load ({exc})") from None
    return net.eval()


def plain_module(net: Any) -> Any:
    """Return the plain flavour's torch module: (int8 observation, int8 mask) -> (masked logits, action, value)."""
    import torch

    class PlainGraph(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(
            self, observation: torch.Tensor, action_mask: torch.Tensor
        ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            logits, value = self.net(observation)
            masked = torch.where(action_mask != 0, logits, torch.full_like(logits, MASKED_LOGIT))
            return masked, masked.argmax(-1), value

    return PlainGraph().eval()


def plain_tensors(d: int, a: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, str | None]]:
    """Return the plain flavour's (inputs, outputs, roles) manifest entries for observation size d, actions a."""
    inputs: list[dict[str, Any]] = [
        {"name": "observation", "dtype": "int8", "shape": ["batch", d]},
        {"name": "action_mask", "dtype": "int8", "shape": ["batch", a]},
    ]
    outputs: list[dict[str, Any]] = [
        {"name": "masked_logits", "dtype": "float32", "shape": ["batch", a]},
        {"name": "action", "dtype": "int64", "shape": ["batch"]},
        {"name": "value", "dtype": "float32", "shape": ["batch"]},
    ]
    roles: dict[str, str | None] = {
        "observation": "observation",
        "mask": "action_mask",
        "logits": "masked_logits",
        "action": "action",
        "value": "value",
    }
    return inputs, outputs, roles


def to_onnx(
    module: Any,
    examples: tuple[Any, ...],
    input_names: Sequence[str],
    output_names: Sequence[str],
    metadata: dict[str, str],
    opset: int = OPSET,
    batch_outputs: Sequence[str] = (),
) -> bytes:
    """Return the serialized ONNX graph of ``module`` (dynamic batch axis, metadata_props set, no stack traces).

    At :data:`OPSET` (18) and above the dynamo exporter runs; below it, the TorchScript exporter
    (``dynamo=False``), the one that writes opsets under 18 natively (the dynamo exporter only converts down,
    and onnx has no down-adapter for Pad from 18). ``batch_outputs`` name the outputs with a batch axis for it.
    """
    import contextlib
    import logging

    import onnx
    import torch

    logging.getLogger("torch.onnx").setLevel(logging.ERROR)  # "torchvision is not installed" and the like
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        if opset >= OPSET:
            batch = torch.export.Dim("batch", min=1)
            program = torch.onnx.export(
                module,
                examples,
                None,
                dynamo=True,
                opset_version=opset,
                input_names=list(input_names),
                output_names=list(output_names),
                dynamic_shapes=tuple({0: batch} for _ in examples),
                verbose=False,
            )
            assert program is not None
            model = program.model_proto
        else:
            buffer = io.BytesIO()
            axes = {name: {0: "batch"} for name in (*input_names, *batch_outputs)}
            torch.onnx.export(  # the TorchScript exporter writes to file objects too
                module,
                examples,
                buffer,  # type: ignore[arg-type]
                dynamo=False,
                opset_version=opset,
                input_names=list(input_names),
                output_names=list(output_names),
                dynamic_axes=axes,
            )
            model = onnx.load_from_string(buffer.getvalue())
    for node in model.graph.node:  # exporter stack traces: large, and they name paths on this machine
        del node.metadata_props[:]
        node.doc_string = ""
    del model.graph.value_info[:]
    del model.metadata_props[:]
    for key, value in metadata.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    model.producer_name, model.producer_version = "domain-wheel-rl dw export", torch.__version__
    return bytes(model.SerializeToString())


def graph_file(options: GameOptions, trained: GameOptions) -> str:
    """Return the file name of the graph for ``options``' map: model.onnx for the trained map."""
    if two_phase.map_key(options) == two_phase.map_key(trained):
        return MAIN_GRAPH
    return f"model-l{options.land_radius}-m{options.map_radius}.onnx"


def export_graph(
    net: Any, options: GameOptions, flavour: str, manifest: dict[str, Any]
) -> tuple[bytes, dict[str, Any]]:
    """Return (ONNX bytes, manifest graph entry without file/sha256) of the network on ``options``' map."""
    geometry = build_geometry(options.land_radius, options.map_radius)
    net.set_geometry(geometry)
    layout = describe_observation(options)
    return flavour_graph(net, layout.size, layout.mask_size, two_phase.map_key(options), flavour, manifest)


def flavour_graph(
    net: Any, d: int, a: int, accepts: dict[str, int], flavour: str, manifest: dict[str, Any]
) -> tuple[bytes, dict[str, Any]]:
    """Return (ONNX bytes, graph entry without file/sha256) of ``net`` (already set to one map or grid) in a flavour.

    ``d`` and ``a`` are the observation's and the mask's sizes there, ``accepts`` the options the graph is for.
    """
    import torch

    metadata = metadata_for(manifest, accepts)
    if flavour == "plain":
        inputs, outputs, roles = plain_tensors(d, a)
        examples = (torch.zeros(2, d, dtype=torch.int8), torch.ones(2, a, dtype=torch.int8))
        data = to_onnx(plain_module(net), examples, PLAIN_INPUTS, PLAIN_OUTPUTS, metadata)
    else:
        from training.export import export_mlagents as ml

        inputs, outputs, roles = ml.tensors(d, a)
        examples = (torch.zeros(2, d), torch.ones(2, a))
        data = to_onnx(ml.module(net, a), examples, ml.INPUTS, ml.OUTPUTS, metadata, ml.OPSET, ml.BATCH_OUTPUTS)
    entry = {
        "accepts": accepts,
        "opset": ml_opset(flavour),
        "inputs": inputs,
        "outputs": outputs,
        "roles": roles,
    }
    return data, entry


def ml_opset(flavour: str) -> int:
    """Return the opset of a flavour's graphs."""
    if flavour == "plain":
        return OPSET
    from training.export import export_mlagents

    return export_mlagents.OPSET


def _display_names(name: str, given: Sequence[tuple[str, str]]) -> dict[str, str]:
    names = {"en": name, "es": f"Red neuronal {name}"}
    names.update(dict(given))
    return names


def _observation_entry(trained: GameOptions) -> dict[str, Any]:
    layout = describe_observation(trained)
    return {
        "version": OBSERVATION_VERSION,
        "dtype": "int8",
        "blocks": {
            "doc": "docs/OBSERVATION.md; sizes of the trained map (cells C, lands L; D = 15 C + 21 L + 26)",
            **{
                k: {"offset": off, "shape": list(shape), "features": list(names)}
                for k, (off, shape, names) in (layout.blocks.items())
            },
            "size": layout.size,
        },
    }


def base_manifest(request: ExportRequest, payload: dict[str, Any], checkpoint_bytes: bytes) -> dict[str, Any]:
    """Return the manifest of a package before its graphs, strength and parity are filled in."""
    trained = GameOptions.from_dict(payload["options"])
    game = {
        "name": two_phase.GAME,
        "rules_version": two_phase.RULES_VERSION,
        "trained_options": trained.to_dict(),
        "accepts_options": (
            "one graph per map (graphs[].accepts); any turns_to_conquer, fast_knights, king_may_be_alone "
            "and max_rounds (they are observation features; the agent was trained on trained_options)"
        ),
    }
    action = {
        "version": two_phase.ACTION_VERSION,
        "description": (
            "Discrete(C + 2): 0..C-1 a cell in the acting player's rotated frame (phase 1 a piece, phase 2 its "
            "destination), C pass, C + 1 end request; docs/OBSERVATION.md"
        ),
    }
    trained_on = two_phase.map_text(two_phase.map_key(trained))
    return package_manifest(
        request, payload, checkpoint_bytes, two_phase.GAME, trained_on, game, _observation_entry(trained), action
    )


def package_manifest(
    request: ExportRequest,
    payload: dict[str, Any],
    checkpoint_bytes: bytes,
    title: str,
    trained_on: str,
    game: dict[str, Any],
    observation: dict[str, Any],
    action: dict[str, Any],
) -> dict[str, Any]:
    """Return a manifest with the game's ``game``, ``observation`` and ``action`` entries, before its graphs."""
    import onnx
    import onnxruntime
    import torch

    name = request.name or request.checkpoint.stem
    counters = payload.get("counters") or {}
    return {
        "format": "strategy-package",
        "format_version": 1,
        "name": name,
        "display_names": _display_names(name, request.display_names),
        "description": request.description
        or (
            f"A PPO self-play agent for {title}, exported from {request.checkpoint.name} "
            f"(trained on {trained_on}). Greedy play by default."
        ),
        "flavour": request.flavour,
        "game": game,
        "observation": observation,
        "action": action,
        "graphs": [],
        "exporter": {
            "tool": EXPORTER if request.flavour == "plain" else _mlagents_exporter(),
            "versions": {
                "torch": torch.__version__,
                "onnx": onnx.__version__,
                "onnxruntime": onnxruntime.__version__,
                "python": platform.python_version(),
            },
        },
        "provenance": {
            "checkpoint": request.checkpoint.name,
            "checkpoint_sha256": sha256_of(checkpoint_bytes),
            "network": dict(payload["network"]),
            "env_steps": int(counters.get("env_steps", 0)),
            "counters": {k: v for k, v in counters.items() if isinstance(v, (int, float))},
            "config": _jsonable(payload.get("config", {})),
            **({"blend": _jsonable(payload["blend"])} if isinstance(payload.get("blend"), dict) else {}),
            "exported_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        },
        "strength": {"source": "none"},
        "parity": None,
    }


def _mlagents_exporter() -> str:
    from training.export import export_mlagents

    return export_mlagents.EXPORTER


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


class HexTarget:
    """What Domain Wheel's export differs in: HexPolicyNet, one graph per map (``--map``), its parity and arena."""

    def __init__(self, request: ExportRequest, payload: dict[str, Any]) -> None:
        if request.grids or request.map_names:
            raise ValueError(
                "--grid is for the board games (Alveole, Conquer); Domain Wheel's graphs are one per map: "
                "give --map LAND_RADIUS,MAP_RADIUS"
            )
        self.request, self.payload = request, payload
        self.net = _hex_network(payload, request.checkpoint)
        self.trained = GameOptions.from_dict(payload["options"])
        trained = self.trained
        self.variants = [trained] + [
            GameOptions(**{**trained.to_dict(), "land_radius": n, "map_radius": r})
            for n, r in dict.fromkeys(request.maps)
            if (n, r) != (trained.land_radius, trained.map_radius)
        ]

    def manifest(self, checkpoint_bytes: bytes) -> dict[str, Any]:
        return base_manifest(self.request, self.payload, checkpoint_bytes)

    def graph(self, options: GameOptions, manifest: dict[str, Any]) -> tuple[str, bytes, dict[str, Any]]:
        data, entry = export_graph(self.net, options, self.request.flavour, manifest)
        return graph_file(options, self.trained), data, entry

    def parity(self, stage: Path) -> dict[str, Any]:
        from training.export.export_parity import parity_report

        r = self.request
        return parity_report(self.net, self.trained, r.checkpoint, stage, r.parity, seed=r.seed)

    def strength(self, stage: Path) -> dict[str, Any]:
        r = self.request
        return measure_strength(stage, self.trained, r.measure, r.workers, r.seed, r.progress)


class BoardTarget:
    """What a board game's export differs in (Alveole, Conquer): BoardPolicyNet, one graph per grid (``--grid``)."""

    def __init__(self, request: ExportRequest, payload: dict[str, Any], game_id: str) -> None:
        from policies import checkpoint, games

        self.game: Any = games.get(game_id)
        if request.maps or request.map_names:
            raise ValueError(
                f"--map is Domain Wheel's (land and map radius) and Frontera's (a map); this is a checkpoint of "
                f"{self.game.title}, whose graphs are one per grid: give --grid WIDTHxHEIGHT"
            )
        self.request, self.payload = request, payload
        self.net = checkpoint.build_network(payload, request.checkpoint).eval()
        self.trained = checkpoint.saved_options(payload, request.checkpoint)
        self.variants = [self.trained]
        keys = [self.grid(self.trained)]
        for width, height in request.grids:
            options = grid_options(self.game, self.trained, width, height)
            if self.grid(options) not in keys:
                self.variants.append(options)
                keys.append(self.grid(options))

    def grid(self, options: Any) -> dict[str, int]:
        from policies.board_onnx_policy import grid_key

        return grid_key(self.game.planes(options))

    def manifest(self, checkpoint_bytes: bytes) -> dict[str, Any]:
        from policies.board_onnx_policy import grid_text

        game, trained = self.game, self.trained
        c, h, w = game.planes(trained)
        enc = game.encoding
        k, e = int(enc.ACTION_PLANES), int(enc.EXTRA_ACTIONS)
        grids = "one grid" if "width" not in game.options_to_dict(trained) else "one graph per grid"
        entry = {
            "name": game.game_id,
            "rules_version": game.rules_version(),
            "trained_options": game.options_to_dict(trained),
            "accepts_options": (
                f"{grids} (graphs[].accepts: width, height); every other option plays with any graph "
                "(the agent was trained on trained_options)"
            ),
        }
        observation = {
            "version": game.observation_version(),
            "dtype": "int8",
            "blocks": {
                "doc": (
                    f"{game.encoding_module}: C planes over the H x W grid, plane-major then row-major, in the "
                    "acting player's frame (own pieces first, the opponent's second, 'on board' last); sizes of "
                    "the trained grid"
                ),
                "planes": {"offset": 0, "shape": [c, h, w], "features": list(getattr(enc, "PLANE_NAMES", ()))},
                "size": c * h * w,
            },
        }
        action = {
            "version": str(getattr(enc, "ACTION_VERSION", f"{game.game_id}-actions-v1")),
            "description": (
                f"Discrete(K*H*W + E), K={k} E={e} ({k * h * w + e} on the trained grid): a < K*H*W is plane "
                "a // (H*W) at grid cell a % (H*W) (row-major), in the absolute frame (the board is never turned); "
                f"the E extra actions follow ({game.encoding_module})"
            ),
        }
        grid, described = grid_text(self.grid(trained)), game.describe_options(entry["trained_options"])
        trained_on = described if described.startswith(grid) else f"the {grid} grid, {described}"
        return package_manifest(
            self.request, self.payload, checkpoint_bytes, game.title, trained_on, entry, observation, action
        )

    def graph(self, options: Any, manifest: dict[str, Any]) -> tuple[str, bytes, dict[str, Any]]:
        from policies.board_onnx_policy import grid_text

        c, h, w = self.game.planes(options)
        self.net.set_grid(h, w)
        key = self.grid(options)
        data, entry = flavour_graph(self.net, c * h * w, self.net.num_actions, key, self.request.flavour, manifest)
        file = MAIN_GRAPH if key == self.grid(self.trained) else f"model-{grid_text(key)}.onnx"
        return file, data, entry

    def parity(self, stage: Path) -> dict[str, Any]:
        from training.export.export_parity import board_parity_report

        r = self.request
        return board_parity_report(self.net, self.game, self.variants, stage, r.parity, seed=r.seed)

    def strength(self, stage: Path) -> dict[str, Any]:
        r = self.request
        return measure_strength(stage, self.trained, r.measure, r.workers, r.seed, r.progress, game=self.game)


def grid_options(game: Any, trained: Any, width: int, height: int) -> Any:
    """Return the trained options of a board game on a ``width x height`` grid; ValueError if it has no such grid."""
    current = game.options_to_dict(trained)
    c, h, w = game.planes(trained)
    if (w, h) == (width, height):
        return trained
    if "width" not in current or "height" not in current:
        raise ValueError(f"{game.title} is played on its one {w}x{h} grid; --grid {width}x{height} is not accepted")
    try:
        options = game.options_from_dict({**current, "width": width, "height": height})
    except ValueError as exc:
        raise ValueError(f"--grid {width}x{height}: not a {game.title} board with the trained options: {exc}") from None
    return options


def export_target(request: ExportRequest) -> Any:
    """Return the game-specific part of an export: the checkpoint's game (read from the file) decides."""
    from policies import checkpoint, games

    payload = checkpoint.load(request.checkpoint)
    game_id = checkpoint.game_of(payload, request.checkpoint)
    if game_id == games.DEFAULT_GAME:
        return HexTarget(request, payload)
    if game_id in TARGETS:  # a plug-in that builds on this module (imported by name: no import cycle)
        module, _, name = TARGETS[game_id].partition(":")
        return getattr(importlib.import_module(module), name)(request, payload)
    return BoardTarget(request, payload, game_id)


def export_package(request: ExportRequest) -> dict[str, Any]:
    """Write the strategy package asked for; return its manifest."""
    from tqdm import tqdm

    if request.flavour not in FLAVOURS:
        raise ValueError(f"flavour {request.flavour!r} is not one of {', '.join(FLAVOURS)}")
    if not request.checkpoint.is_file():
        raise FileNotFoundError(f"no such checkpoint: {request.checkpoint}")
    target = export_target(request)
    manifest = target.manifest(request.checkpoint.read_bytes())

    def fill(stage: Path) -> None:
        parity = request.parity or getattr(target, "always_parity", False)
        steps = len(target.variants) + (1 if parity else 0) + (1 if request.measure else 0)
        with tqdm(total=steps, desc="export", unit="step", disable=not request.progress) as bar:
            for options in target.variants:
                file, data, entry = target.graph(options, manifest)
                (stage / file).write_bytes(data)
                manifest["graphs"].append({"file": file, "sha256": sha256_of(data), **entry})
                bar.update()
            manifest["strength"] = card_strength(request.checkpoint)
            write_manifest(stage, manifest)
            if parity:
                bar.set_description("parity")
                manifest["parity"] = target.parity(stage)
                bar.update()
                write_manifest(stage, manifest)
            if request.measure:
                bar.set_description("arena")
                manifest["strength"] = target.strength(stage)
                bar.update()
                write_manifest(stage, manifest)

    install_package(request.out, fill)
    return manifest


def is_map_name(text: str) -> bool:
    """Return True if ``--map TEXT`` names a Frontera map (a size or a .json file), not Domain Wheel's ``N,R``."""
    from frontera_env.board import SIZES

    return text in SIZES or text.lower().endswith(".json")


def parse_map(text: str) -> tuple[int, int]:
    """Return (land_radius, map_radius) from ``"N,R"``; ValueError otherwise."""
    try:
        n, r = (int(x) for x in text.split(","))
    except ValueError:
        raise ValueError(f"a map is LAND_RADIUS,MAP_RADIUS (e.g. 2,4), got {text!r}") from None
    GameOptions(land_radius=n, map_radius=r)  # validates the sizes
    return n, r


def parse_grid(text: str) -> tuple[int, int]:
    """Return (width, height) from ``"WxH"`` (``9x9``, ``15x11``); ValueError otherwise."""
    try:
        width, height = (int(x) for x in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"a grid is WIDTHxHEIGHT (e.g. 9x9), got {text!r}") from None
    if width < 1 or height < 1:
        raise ValueError(f"a grid is WIDTHxHEIGHT with sides >= 1, got {text!r}")
    return width, height
