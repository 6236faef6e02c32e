"""Bounded loaders: one way to read a file, a JSON text and a YAML text, for every package.

Every loader refuses what would cost more than its limits *before* it parses: a file is read in chunks up to
its size limit, a JSON text's nesting depth is measured by a linear scan before :func:`json.loads` sees it, and
a YAML text is composed by a strict loader that refuses anchors and aliases (a few hundred bytes of them expand
to gigabytes), keys given twice, nesting deeper than its limit and documents of more nodes than its limit.
Each refusal is the caller's error type (a :class:`ValueError` subclass) with a message that names what was
wrong and what is allowed; nothing is echoed unbounded.

The limits are arguments: a position file, a game record, a strategy package's manifest and a sweep spec each
pass their own.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from gamecore.errors import brief, clip

#: the deepest nesting (arrays and objects inside each other) a JSON or YAML text may have unless told
MAX_DEPTH = 64
#: the most nodes (scalars, lists, mappings) a YAML document may have unless told
MAX_YAML_NODES = 200_000

# a JSON string: a quote, then runs of ordinary characters and escapes, then a quote (linear, no backtracking)
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_OPEN = np.zeros(256, dtype=np.int8)
_OPEN[[ord("["), ord("{")]] = 1
_OPEN[[ord("]"), ord("}")]] = -1


def read_text(path: str | Path, limit: int, error: type[ValueError]) -> str:
    """Return a file's UTF-8 text; ``error`` (naming the file) if it is no file, too big or not UTF-8.

    A missing file raises FileNotFoundError naming it. The file is read in chunks, so a file far over the
    limit costs no more than the limit.
    """
    path = Path(path)
    chunks: list[bytes] = []
    size = 0
    try:
        with path.open("rb") as f:
            while size <= limit:  # in chunks: read(limit + 1) would allocate the whole limit at once
                chunk = f.read(min(1 << 20, limit + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
    except FileNotFoundError:
        raise FileNotFoundError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise error(f"{path} is a directory; give a file") from None
    except OSError as exc:
        raise error(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if size > limit:
        raise error(f"{path} is larger than {limit:,} bytes, the most this loader reads")
    data = b"".join(chunks)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def json_depth(text: str | bytes | bytearray) -> int:
    """Return the deepest nesting of arrays and objects in a JSON text (0 for a scalar), in linear time.

    Brackets inside strings do not count. For a text that is not valid JSON the figure is still an upper
    bound of what a parser would have to nest.
    """
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    if b"[" not in data and b"{" not in data:
        return 0
    if b'"' in data:
        data = _JSON_STRING.sub(b'""', data)
    steps = _OPEN[np.frombuffer(data, dtype=np.uint8)]
    if not steps.any():
        return 0
    return int(np.cumsum(steps, dtype=np.int64).max())


def parse_json(
    text: Any, limit: int, error: type[ValueError], *, max_depth: int = MAX_DEPTH, finite: bool = False
) -> Any:
    """Return the JSON value of ``text``; ``error`` if it is not a string, too long, nested too deeply or not JSON.

    ``finite=True`` also refuses ``NaN``, ``Infinity`` and ``-Infinity`` (Python's json module accepts them).
    """
    if not isinstance(text, str | bytes | bytearray):
        raise error(f"JSON text must be a string, got {type(text).__name__}")
    if len(text) > limit:
        raise error(f"the text is {len(text):,} characters long; allowed: at most {limit:,}")
    depth = json_depth(text)
    if depth > max_depth:
        raise error(f"not valid JSON here: nested too deeply ({depth:,} levels; allowed: at most {max_depth})")
    try:
        if finite:
            return json.loads(text, parse_constant=_refuse_constant)
        return json.loads(text)
    except RecursionError:  # pragma: no cover - the depth check comes first
        raise error(f"not valid JSON here: nested too deeply; allowed: at most {max_depth} levels") from None
    except ValueError as exc:  # JSONDecodeError, an integer of more than 4300 digits, bad UTF-8 bytes
        raise error(f"not valid JSON ({clip(str(exc))})") from None


def load_json(path: str | Path, limit: int, error: type[ValueError], *, max_depth: int = MAX_DEPTH) -> Any:
    """Return the JSON value of a file, read with :func:`read_text` and parsed with :func:`parse_json`."""
    text = read_text(path, limit, error)
    try:
        return parse_json(text, limit, error, max_depth=max_depth)
    except error as exc:
        raise error(f"{path}: {exc}") from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a finite number; allowed: finite numbers only")


def read_yaml(
    text: Any,
    where: str,
    error: type[ValueError],
    *,
    limit: int = 1 << 20,
    max_depth: int = MAX_DEPTH,
    max_nodes: int = MAX_YAML_NODES,
) -> Any:
    """Return the data of YAML ``text`` read strictly; ``error`` whose message starts with ``where``.

    Strict means: at most ``limit`` characters; no anchors or aliases; no key given twice; at most
    ``max_depth`` levels of nesting and ``max_nodes`` nodes; numbers like ``1e-4`` read as numbers (YAML 1.2).
    """
    import yaml

    if not isinstance(text, str):
        raise error(f"{where}: YAML text must be a string, got {type(text).__name__}")
    if len(text) > limit:
        raise error(f"{where}: the text is {len(text):,} characters long; allowed: at most {limit:,}")
    try:
        loader = _strict_loader(yaml)(text)  # the reader refuses control characters here, in the constructor
    except yaml.YAMLError as exc:
        raise error(f"{where}: not valid YAML ({clip(str(exc))})") from None
    loader.refusal = error
    loader.max_depth = max_depth
    loader.max_nodes = max_nodes
    try:
        return loader.get_single_data()
    except _Refused as exc:
        raise error(f"{where}: {exc}") from None
    except RecursionError:
        raise error(f"{where}: nested too deeply; allowed: at most {max_depth} levels") from None
    except yaml.YAMLError as exc:
        raise error(f"{where}: not valid YAML ({clip(str(exc))})") from None
    finally:
        loader.dispose()


class _Refused(Exception):
    """A strict loader's refusal; :func:`read_yaml` turns it into the caller's error."""


_LOADERS: dict[int, type] = {}


def _strict_loader(yaml: Any) -> type:
    """Return (once per process) the SafeLoader subclass :func:`read_yaml` uses."""
    cached = _LOADERS.get(id(yaml))
    if cached is not None:
        return cached

    class StrictLoader(yaml.SafeLoader):  # type: ignore[misc]
        max_depth = MAX_DEPTH
        max_nodes = MAX_YAML_NODES
        refusal: type[ValueError] = ValueError

        def __init__(self, stream: str) -> None:
            super().__init__(stream)
            self._depth = 0
            self._nodes = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            event = self.peek_event()
            line = event.start_mark.line + 1
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
                sign = "*" if isinstance(event, yaml.AliasEvent) else "&"
                raise _Refused(
                    f"line {line}: YAML anchors and aliases ({sign}{brief(event.anchor, 40)}) are not allowed; "
                    "write the values out"
                )
            self._nodes += 1
            if self._nodes > self.max_nodes:
                raise _Refused(f"line {line}: more than {self.max_nodes:,} values; allowed: at most that many")
            self._depth += 1
            try:
                if self._depth > self.max_depth:
                    raise _Refused(f"line {line}: nested too deeply; allowed: at most {self.max_depth} levels")
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                    seen.add(key)
                except TypeError:
                    raise _Refused(f"line {key_node.start_mark.line + 1}: a key must be a plain value") from None
                if duplicate:
                    raise _Refused(
                        f"line {key_node.start_mark.line + 1}: key {brief(key, 60)} is given twice; keep one"
                    )
            return super().construct_mapping(node, deep)

    StrictLoader.add_implicit_resolver(
        "tag:yaml.org,2002:float", re.compile(r"^[-+]?[0-9][0-9_]*(\.[0-9_]*)?[eE][-+]?[0-9]+$"), list("-+0123456789")
    )
    _LOADERS[id(yaml)] = StrictLoader
    return StrictLoader
