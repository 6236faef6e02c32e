"""``dw export``: a trained checkpoint as a strategy package (ONNX graphs + ``strategy.json``), no torch to play.

The exporter is torch 2.13's default, the dynamo-based ``torch.onnx.export(..., dynamo=True)`` (it traces with
``torch.export`` and translates with ``onnxscript``), at the pinned opset :data:`OPSET`. Every graph has a
dynamic batch axis and only standard ONNX operators, so onnxruntime's CPU provider runs it with no custom
ops. Node metadata (stack traces) and intermediate shape annotations are stripped: a small-map graph is
about 60 KB.

One graph per accepted map. :class:`policies.network.HexPolicyNet`'s weights do not depend on the map, but
its index tables (which cell sits where on the axial grid, which land owns which cell) do, and so do the
observation's and the action's sizes. Rather than make every port compute those tables and feed them as
inputs, each graph bakes in the tables of one map: ``model.onnx`` is the map the agent was trained on and
``model-l{land_radius}-m{map_radius}.onnx`` each further map given with ``--map``. All other game options
(K, fast knights, the king-alone variant, the round limit) are observation features, so every graph accepts
any of their values.

Flavours (:data:`policies.package.FLAVOURS`):

* ``plain``: inputs ``observation`` int8 [B, D] and ``action_mask`` int8 [B, A]; outputs ``masked_logits``
  float32 [B, A] (illegal actions at :data:`MASKED_LOGIT`) and ``action`` int64 [B] (the greedy action).
* ``ml-agents``: the tensors Unity ML-Agents' model loader expects (:mod:`training.export_mlagents`).

Both action phases run through the same graph: the phase is an observation feature (``phase``, global
block). The package is written to a temporary folder and renamed into place (:func:`policies.package.
stage_package`); with ``measure`` games the exported package is measured in the arena before the rename.
See docs/EXPORT.md.
"""

from __future__ import annotations

import datetime
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
from policies import two_phase
from policies.checkpoint import CheckpointError
from policies.package import (
    FLAVOURS,
    MAIN_GRAPH,
    metadata_for,
    sha256_of,
    stage_package,
    write_manifest,
)

#: the ONNX opset every graph is exported at (onnxruntime >= 1.14 runs it; the dynamo exporter's native one)
OPSET: Final = 18
#: the logit of an illegal action in the plain flavour's ``masked_logits`` (finite: no NaN downstream)
MASKED_LOGIT: Final = -1e9
#: the exporter, named in the manifest
EXPORTER: Final = "torch.onnx.export(dynamo=True)"

PLAIN_INPUTS: Final = ("observation", "action_mask")
PLAIN_OUTPUTS: Final = ("masked_logits", "action")


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


def load_network(path: Path) -> tuple[Any, dict[str, Any]]:
    """Return (HexPolicyNet in eval mode, checkpoint payload); CheckpointError if it is not a policy."""
    from policies import checkpoint
    from policies.network import HexPolicyNet

    payload = checkpoint.load(path, game_id="domain_wheel")
    try:
        options = GameOptions.from_dict(payload["options"])
        net = HexPolicyNet(build_geometry(options.land_radius, options.map_radius), **payload["network"])
        net.load_state_dict(payload["model"])
    except (TypeError, ValueError, RuntimeError, KeyError) as exc:
        raise CheckpointError(f"{path}: not a policy network this version can load ({exc})") from None
    net.eval()
    return net, payload


def plain_module(net: Any) -> Any:
    """Return the plain flavour's torch module: (int8 observation, int8 mask) -> (masked logits, action)."""
    import torch

    class PlainGraph(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, observation: torch.Tensor, action_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            logits, _ = self.net(observation)
            masked = torch.where(action_mask != 0, logits, torch.full_like(logits, MASKED_LOGIT))
            return masked, masked.argmax(-1)

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
    ]
    roles: dict[str, str | None] = {
        "observation": "observation",
        "mask": "action_mask",
        "logits": "masked_logits",
        "action": "action",
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
    import torch

    geometry = build_geometry(options.land_radius, options.map_radius)
    net.set_geometry(geometry)
    layout = describe_observation(options)
    d, a = layout.size, layout.mask_size
    accepts = two_phase.map_key(options)
    metadata = metadata_for(manifest, accepts)
    if flavour == "plain":
        inputs, outputs, roles = plain_tensors(d, a)
        examples = (torch.zeros(2, d, dtype=torch.int8), torch.ones(2, a, dtype=torch.int8))
        data = to_onnx(plain_module(net), examples, PLAIN_INPUTS, PLAIN_OUTPUTS, metadata)
    else:
        from training import export_mlagents as ml

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
    from training import export_mlagents

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
    import onnx
    import onnxruntime
    import torch

    trained = GameOptions.from_dict(payload["options"])
    name = request.name or request.checkpoint.stem
    counters = payload.get("counters") or {}
    return {
        "format": "strategy-package",
        "format_version": 1,
        "name": name,
        "display_names": _display_names(name, request.display_names),
        "description": request.description
        or (
            f"A PPO self-play agent for {two_phase.GAME}, exported from {request.checkpoint.name} "
            f"(trained on {two_phase.map_text(two_phase.map_key(trained))}). Greedy play by default."
        ),
        "flavour": request.flavour,
        "game": {
            "name": two_phase.GAME,
            "rules_version": two_phase.RULES_VERSION,
            "trained_options": trained.to_dict(),
            "accepts_options": (
                "one graph per map (graphs[].accepts); any turns_to_conquer, fast_knights, king_may_be_alone "
                "and max_rounds (they are observation features; the agent was trained on trained_options)"
            ),
        },
        "observation": _observation_entry(trained),
        "action": {
            "version": two_phase.ACTION_VERSION,
            "description": (
                "Discrete(C + 2): 0..C-1 a cell in the acting player's rotated frame (phase 1 a piece, phase 2 its "
                "destination), C pass, C + 1 end request; docs/OBSERVATION.md"
            ),
        },
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
            "exported_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        },
        "strength": {"source": "none"},
        "parity": None,
    }


def _mlagents_exporter() -> str:
    from training import export_mlagents

    return export_mlagents.EXPORTER


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def export_package(request: ExportRequest) -> dict[str, Any]:
    """Write the strategy package asked for; return its manifest."""
    from tqdm import tqdm

    if request.flavour not in FLAVOURS:
        raise ValueError(f"flavour {request.flavour!r} is not one of {', '.join(FLAVOURS)}")
    if not request.checkpoint.is_file():
        raise FileNotFoundError(f"no such checkpoint: {request.checkpoint}")
    net, payload = load_network(request.checkpoint)
    trained = GameOptions.from_dict(payload["options"])
    maps = [trained] + [
        GameOptions(**{**trained.to_dict(), "land_radius": n, "map_radius": r})
        for n, r in dict.fromkeys(request.maps)
        if (n, r) != (trained.land_radius, trained.map_radius)
    ]
    manifest = base_manifest(request, payload, request.checkpoint.read_bytes())

    def fill(stage: Path) -> None:
        steps = len(maps) + (1 if request.parity else 0) + (1 if request.measure else 0)
        with tqdm(total=steps, desc="export", unit="step", disable=not request.progress) as bar:
            for options in maps:
                data, entry = export_graph(net, options, request.flavour, manifest)
                file = graph_file(options, trained)
                (stage / file).write_bytes(data)
                manifest["graphs"].append({"file": file, "sha256": sha256_of(data), **entry})
                bar.update()
            manifest["strength"] = card_strength(request.checkpoint)
            write_manifest(stage, manifest)
            if request.parity:
                from training.export_parity import parity_report

                bar.set_description("parity")
                manifest["parity"] = parity_report(
                    net, trained, request.checkpoint, stage, request.parity, seed=request.seed
                )
                bar.update()
                write_manifest(stage, manifest)
            if request.measure:
                bar.set_description("arena")
                manifest["strength"] = measure_strength(
                    stage, trained, request.measure, request.workers, request.seed, request.progress
                )
                bar.update()
                write_manifest(stage, manifest)

    stage_package(request.out, fill)
    return manifest


# ---------------------------------------------------------------- the strength card


def measure_strength(
    package: Path, options: GameOptions, games: int, workers: int, seed: int, progress: bool
) -> dict[str, Any]:
    """Return the package's arena results: one seat vs two copies of every scripted AI, every seating."""
    from policies.registry import available
    from training.arena import play_all
    from training.arena_config import ArenaConfig
    from training.arena_stats import summarize

    opponents = list(available())
    results = []
    spec = str(package)
    for opponent in opponents:
        config = ArenaConfig(lineups=((spec, opponent, opponent),), games_per_lineup=games, seed=seed, options=options)
        rows = play_all(config, workers=workers, progress=progress)
        entry = next(s for s in summarize(config, rows)["strategies"] if s["name"] == spec)
        results.append(
            {
                "opponents": f"{opponent} (x2)",
                "games": entry["n"],
                "win_rate": round(entry["win_rate"], 4),
                "ci95": [round(x, 4) for x in entry["ci95"]],
                "by_seat": {k: round(v["win_rate"], 4) for k, v in entry["by_seat"].items()},
                "truncated": sum(1 for r in rows if r["end_reason"] == "truncation"),
            }
        )
    return {
        "source": "measured at export",
        "play": "greedy (the package's default)",
        "mode": "one seat vs two copies of each AI, every seating, Wilson 95% intervals; a shared win counts 1/k",
        "games_per_lineup": games,
        "seed": seed,
        "options": options.to_dict(),
        "opening_plies": ArenaConfig(lineups=(("random",) * 3,)).opening_plies,
        "results": results,
    }


def _cells(line: str) -> list[str]:
    return [c.strip().strip("*").strip() for c in line.strip().strip("|").split("|")]


def _percent(text: str) -> float:
    return round(float(text.strip("*% ")) / 100, 4)


def card_strength(checkpoint: Path) -> dict[str, Any]:
    """Return the table of the checkpoint's model card (``NAME.md`` beside it, section "Arena results") or "none".

    The table is read by its header: the columns ``opponents``, ``games``, ``win rate`` and ``95% CI``.
    """
    card = checkpoint.with_suffix(".md")
    if not card.is_file():
        return {"source": "none"}
    results = []
    section, header = "", None
    for line in card.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section, header = line[3:].strip().lower(), None
        if section != "arena results" or not line.lstrip().startswith("|"):  # the checkpoint's own table only
            continue
        cells = _cells(line)
        names = [c.lower() for c in cells]
        if {"opponents", "games", "win rate", "95% ci"} <= set(names):
            header = {name: i for i, name in enumerate(names)}
            continue
        if header is None or not cells[0].endswith("(x2)") or len(cells) < len(header):
            continue
        try:
            low, high = (_percent(x) for x in cells[header["95% ci"]].strip("[]").split(","))
            results.append(
                {
                    "opponents": cells[header["opponents"]],
                    "games": int(cells[header["games"]]),
                    "win_rate": _percent(cells[header["win rate"]]),
                    "ci95": [low, high],
                }
            )
        except ValueError:
            continue
    if not results:
        return {"source": "none"}
    return {
        "source": f"model card {card.name}",
        "play": "as the card says (the checkpoint's loader samples); not re-measured for this package",
        "results": results,
    }


def parse_map(text: str) -> tuple[int, int]:
    """Return (land_radius, map_radius) from ``"N,R"``; ValueError otherwise."""
    try:
        n, r = (int(x) for x in text.split(","))
    except ValueError:
        raise ValueError(f"a map is LAND_RADIUS,MAP_RADIUS (e.g. 2,4), got {text!r}") from None
    GameOptions(land_radius=n, map_radius=r)  # validates the sizes
    return n, r
