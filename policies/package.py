"""Strategy packages: a folder with ONNX graphs and a ``strategy.json`` manifest, read and checked strictly.

A strategy package is what ``dw export`` writes and what every seat loader, the browser game and a game
engine port load. The format knows nothing of one game: the manifest names its game and rules version, the
observation layout its graphs read (an encoder of that game writes it) and, per graph, the game options it
accepts (for Domain Wheel the map size, which fixes the observation's shape). See docs/EXPORT.md::

    exports/small-agent/
        strategy.json      the manifest (below)
        model.onnx         the graph for the map the agent was trained on
        model-*.onnx       one more graph per other accepted map

Manifest (JSON object; an unknown or missing key is an error that names it)::

    format, format_version     "strategy-package", 1
    name, display_names        "small-agent", {"en": ..., "es": ...}
    description                one paragraph
    flavour                    "plain" (int8 inputs, masked logits + greedy action) or "ml-agents"
    game                       {"name", "rules_version", "trained_options", "accepts_options"}
    observation                {"version", "dtype", "blocks"}  the layout the graphs read
    action                     {"version", "description"}
    graphs                     [{"file", "sha256", "accepts", "opset", "inputs", "outputs", "roles"}]
    exporter                   {"tool", "versions"}
    provenance                 {"checkpoint", "checkpoint_sha256", "config", "env_steps", "network", "exported_at"}
    strength                   {"source", ...}  arena results measured at export time or copied from a card
    parity                     null or {"positions", "agree", "max_abs_logit_diff", ...}

A graph's ``inputs``/``outputs`` are ``{"name", "dtype", "shape"}`` with ``"batch"`` for the dynamic axis,
and ``roles`` says which tensor is the ``observation``, the ``mask``, the ``logits`` (or null), the
greedy ``action`` and the ``value`` (float32 [B], the acting player's expected result; null or left out in
packages without one, which a search seat cannot run). The same key facts are in each graph's ONNX ``metadata_props``
(:data:`METADATA_KEYS`); the seat checks that graph, manifest and file hashes agree before playing.

Nothing here runs code from a file: the manifest is JSON, validated key by key; the graphs are data that
onnxruntime reads with its standard operators only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from gamecore.loaders import load_json

FORMAT: Final = "strategy-package"
FORMAT_VERSION: Final = 1
MANIFEST: Final = "strategy.json"
MAIN_GRAPH: Final = "model.onnx"
FLAVOURS: Final = ("plain", "ml-agents")
DTYPES: Final = ("int8", "int64", "float32")
ROLES: Final = ("observation", "mask", "logits", "action", "value")
#: roles a graph may leave out (older packages) or set to null: ``logits`` (ML-Agents), ``value`` (the position's
#: value for the player to act, which a search seat over the package needs)
OPTIONAL_ROLES: Final = ("logits", "value")
#: ONNX metadata_props every graph carries (string values); the seat checks them against the manifest
METADATA_KEYS: Final = (
    "package_format",
    "name",
    "game",
    "rules_version",
    "observation_version",
    "accepts",
    "flavour",
    "action_version",
    "trained_options",
    "provenance.checkpoint_sha256",
    "provenance.env_steps",
    "provenance.exported_at",
)
#: the provenance entries repeated in metadata_props (``provenance.KEY``)
PROVENANCE_KEYS: Final = ("checkpoint_sha256", "env_steps", "exported_at")

_TOP_KEYS: Final = (
    "format",
    "format_version",
    "name",
    "display_names",
    "description",
    "flavour",
    "game",
    "observation",
    "action",
    "graphs",
    "exporter",
    "provenance",
    "strength",
    "parity",
)
_GAME_KEYS: Final = ("name", "rules_version", "trained_options", "accepts_options")
_OBS_KEYS: Final = ("version", "dtype", "blocks")
_ACTION_KEYS: Final = ("version", "description")
_GRAPH_KEYS: Final = ("file", "sha256", "accepts", "opset", "inputs", "outputs", "roles")
_TENSOR_KEYS: Final = ("name", "dtype", "shape")
_EXPORTER_KEYS: Final = ("tool", "versions")


class PackageError(ValueError):
    """A strategy package that cannot be used: missing or corrupt file, another version, a disagreement."""


@dataclass(frozen=True)
class TensorSpec:
    """One graph input or output: its name, element type and shape (``"batch"`` marks the dynamic axis)."""

    name: str
    dtype: str
    shape: tuple[int | str, ...]


@dataclass(frozen=True)
class GraphSpec:
    """One ONNX graph of a package and the game options (the map) it accepts."""

    file: str
    sha256: str
    accepts: dict[str, int]
    opset: int
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    roles: dict[str, str | None]

    def tensor(self, role: str) -> TensorSpec | None:
        """Return the input or output that plays ``role`` (observation, mask, logits, action, value), or None."""
        name = self.roles.get(role)
        for spec in (*self.inputs, *self.outputs):
            if spec.name == name:
                return spec
        return None


@dataclass(frozen=True)
class Package:
    """A validated strategy package: its folder, the raw manifest and its graphs."""

    folder: Path
    manifest: dict[str, Any]
    graphs: tuple[GraphSpec, ...]

    @property
    def name(self) -> str:
        return str(self.manifest["name"])

    @property
    def game(self) -> str:
        return str(self.manifest["game"]["name"])

    @property
    def rules_version(self) -> str:
        return str(self.manifest["game"]["rules_version"])

    @property
    def observation_version(self) -> str:
        return str(self.manifest["observation"]["version"])

    @property
    def flavour(self) -> str:
        return str(self.manifest["flavour"])

    def graph_for(self, accepts: Mapping[str, int]) -> GraphSpec:
        """Return the graph made for these options (e.g. the map size); PackageError listing the accepted ones."""
        for graph in self.graphs:
            if all(accepts.get(k) == v for k, v in graph.accepts.items()):
                return graph
        found = ", ".join(f"{k}={v}" for k, v in accepts.items())
        allowed = "; ".join(", ".join(f"{k}={v}" for k, v in g.accepts.items()) for g in self.graphs)
        raise PackageError(
            f"{self.folder / MANIFEST}: this package has no graph for {found}; it accepts: {allowed} "
            f"(export it again with that map to play there)"
        )

    def metadata(self, graph: GraphSpec) -> dict[str, str]:
        """Return the metadata_props a graph of this package must carry."""
        return metadata_for(self.manifest, graph.accepts)


def metadata_for(manifest: Mapping[str, Any], accepts: Mapping[str, int]) -> dict[str, str]:
    """Return the ONNX metadata_props of a graph (key facts of the manifest, as strings)."""
    provenance = manifest["provenance"] if isinstance(manifest["provenance"], dict) else {}
    return {
        "package_format": f"{FORMAT}/{FORMAT_VERSION}",
        "name": str(manifest["name"]),
        "game": str(manifest["game"]["name"]),
        "rules_version": str(manifest["game"]["rules_version"]),
        "observation_version": str(manifest["observation"]["version"]),
        "accepts": json.dumps(dict(accepts), sort_keys=True),
        "flavour": str(manifest["flavour"]),
        "action_version": str(manifest["action"]["version"]),
        "trained_options": json.dumps(manifest["game"]["trained_options"], sort_keys=True),
        **{f"provenance.{k}": str(provenance.get(k)) for k in PROVENANCE_KEYS},
    }


def is_package(path: str | Path) -> bool:
    """Return True if ``path`` is a folder holding a manifest (a strategy package, valid or not)."""
    p = Path(path)
    return p.is_dir() and (p / MANIFEST).is_file()


def sha256_of(data: bytes) -> str:
    """Return the hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------- reading and validation


def _where(path: Path, key: str) -> str:
    return f"{path}: {key}"


def _need(obj: Any, keys: tuple[str, ...], path: Path, where: str, optional: tuple[str, ...] = ()) -> None:
    if not isinstance(obj, dict):
        raise PackageError(f"{_where(path, where)} must be a JSON object, found {type(obj).__name__}")
    unknown = [k for k in obj if k not in keys]
    if unknown:
        raise PackageError(f"{_where(path, where)}: unknown key {unknown[0]!r}; allowed: {', '.join(keys)}")
    missing = [k for k in keys if k not in obj and k not in optional]
    if missing:
        raise PackageError(f"{_where(path, where)}: missing key {missing[0]!r}")


def _typed(value: Any, kind: type | tuple[type, ...], path: Path, where: str) -> Any:
    if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise PackageError(f"{_where(path, where)} must be {names}, found {value!r}")
    return value


def _tensor(obj: Any, path: Path, where: str) -> TensorSpec:
    _need(obj, _TENSOR_KEYS, path, where)
    name = _typed(obj["name"], str, path, f"{where}.name")
    dtype = _typed(obj["dtype"], str, path, f"{where}.dtype")
    if dtype not in DTYPES:
        raise PackageError(f"{_where(path, where)}.dtype is {dtype!r}; allowed: {', '.join(DTYPES)}")
    shape = _typed(obj["shape"], list, path, f"{where}.shape")
    for i, dim in enumerate(shape):
        if not (dim == "batch" or (isinstance(dim, int) and not isinstance(dim, bool) and dim >= 1)):
            raise PackageError(f"{_where(path, where)}.shape[{i}] is {dim!r}; expected a size >= 1 or 'batch'")
    return TensorSpec(name, dtype, tuple(shape))


def _graph(obj: Any, path: Path, where: str) -> GraphSpec:
    _need(obj, _GRAPH_KEYS, path, where)
    file = _typed(obj["file"], str, path, f"{where}.file")
    if Path(file).name != file or not file.endswith(".onnx"):
        raise PackageError(f"{_where(path, where)}.file is {file!r}; expected a file name ending in .onnx")
    sha = _typed(obj["sha256"], str, path, f"{where}.sha256")
    accepts = _typed(obj["accepts"], dict, path, f"{where}.accepts")
    for k, v in accepts.items():
        _typed(v, int, path, f"{where}.accepts.{k}")
    opset = _typed(obj["opset"], int, path, f"{where}.opset")
    inputs = tuple(
        _tensor(t, path, f"{where}.inputs[{i}]") for i, t in enumerate(_typed(obj["inputs"], list, path, ""))
    )
    outputs = tuple(
        _tensor(t, path, f"{where}.outputs[{i}]") for i, t in enumerate(_typed(obj["outputs"], list, path, ""))
    )
    roles = obj["roles"]
    _need(roles, ROLES, path, f"{where}.roles", optional=("value",))
    names = {t.name for t in (*inputs, *outputs)}
    for role in ROLES:
        value = roles.get(role)
        if value is None and role in OPTIONAL_ROLES:
            continue
        if not isinstance(value, str) or value not in names:
            raise PackageError(
                f"{_where(path, where)}.roles.{role} is {value!r}; expected one of the graph's tensors: "
                f"{', '.join(sorted(names))}"
            )
    value_name = roles.get("value")
    if value_name is not None:
        out = {t.name: t for t in outputs}.get(value_name)
        if out is None or out.dtype != "float32" or len(out.shape) != 1:
            raise PackageError(
                f"{_where(path, where)}.roles.value is {value_name!r}; expected one of the graph's outputs of "
                f"dtype float32 and shape [batch]"
            )
    return GraphSpec(file, sha, dict(accepts), opset, inputs, outputs, {"value": None, **roles})


def validate_manifest(manifest: Any, path: Path) -> tuple[GraphSpec, ...]:
    """Return the graphs of a manifest after checking every key; PackageError naming the first problem."""
    _need(manifest, _TOP_KEYS, path, "manifest")
    if manifest["format"] != FORMAT:
        raise PackageError(f"{path}: format is {manifest['format']!r}; expected {FORMAT!r}")
    if manifest["format_version"] != FORMAT_VERSION:
        raise PackageError(
            f"{path}: package format version {manifest['format_version']!r}; this version reads {FORMAT_VERSION}"
        )
    for key in ("name", "description"):
        _typed(manifest[key], str, path, key)
    names = _typed(manifest["display_names"], dict, path, "display_names")
    for lang, text in names.items():
        _typed(text, str, path, f"display_names.{lang}")
    if manifest["flavour"] not in FLAVOURS:
        raise PackageError(f"{path}: flavour is {manifest['flavour']!r}; allowed: {', '.join(FLAVOURS)}")
    _need(manifest["game"], _GAME_KEYS, path, "game")
    _typed(manifest["game"]["name"], str, path, "game.name")
    _typed(manifest["game"]["rules_version"], str, path, "game.rules_version")
    _need(manifest["observation"], _OBS_KEYS, path, "observation")
    _typed(manifest["observation"]["version"], str, path, "observation.version")
    _need(manifest["action"], _ACTION_KEYS, path, "action")
    _need(manifest["exporter"], _EXPORTER_KEYS, path, "exporter")
    _typed(manifest["provenance"], dict, path, "provenance")
    _typed(manifest["strength"], dict, path, "strength")
    if manifest["parity"] is not None:
        _typed(manifest["parity"], dict, path, "parity")
    graphs = _typed(manifest["graphs"], list, path, "graphs")
    if not graphs:
        raise PackageError(f"{path}: graphs is empty; a package needs at least one graph")
    specs = tuple(_graph(g, path, f"graphs[{i}]") for i, g in enumerate(graphs))
    files = [g.file for g in specs]
    if len(set(files)) != len(files):
        raise PackageError(f"{path}: graphs name the same file twice: {files}")
    return specs


#: a manifest larger than this is refused, read no further (a real one is a few kilobytes)
MAX_MANIFEST_BYTES: Final = 1 << 20


def read_package(folder: str | Path) -> Package:
    """Return the package in ``folder`` with its manifest validated and every graph file present and intact.

    Raises FileNotFoundError for a missing folder and :class:`PackageError` naming the file, what was found
    and what was expected for anything else.
    """
    root = Path(folder)
    if not root.is_dir():
        raise FileNotFoundError(f"no such strategy package: {folder}")
    path = root / MANIFEST
    if not path.is_file():
        raise PackageError(f"{root}: not a strategy package ({MANIFEST} is missing)")
    manifest = load_json(path, MAX_MANIFEST_BYTES, PackageError)  # bounded: size and nesting depth
    graphs = validate_manifest(manifest, path)
    for graph in graphs:
        data = graph_bytes(root, graph)
        digest = sha256_of(data)
        if digest != graph.sha256:
            raise PackageError(
                f"{root / graph.file}: SHA-256 is {digest[:16]}..., the manifest expects {graph.sha256[:16]}... "
                f"(corrupt or modified file)"
            )
    return Package(root, manifest, graphs)


def graph_bytes(root: Path, graph: GraphSpec) -> bytes:
    """Return the bytes of a graph file; PackageError if it is missing."""
    file = root / graph.file
    if not file.is_file():
        raise PackageError(f"{file}: missing (the manifest lists it for {graph.accepts})")
    return file.read_bytes()


# ---------------------------------------------------------------- writing


def write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    """Validate ``manifest`` and write it as ``strategy.json`` in ``folder``."""
    validate_manifest(manifest, folder / MANIFEST)
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
