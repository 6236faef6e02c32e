"""Plain-data state: what a seat or a training run saves, as numbers, strings, lists and mappings only.

Checkpoints (policies/checkpoint.py) are read with ``torch.load(weights_only=True)``, which builds tensors and
plain containers and runs no code; everything saved must therefore be plain data. The helpers here turn the
stateful objects a run holds (numpy Generators, Python's ``random``) into such data and back, and read it
back strictly: a value of the wrong type, out of range or with keys missing or extra raises
:class:`StateError` naming where it sits, the value (bounded, :func:`dw_env.errors.brief`) and what is
allowed, and nothing is changed.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from dw_env.errors import brief

#: the numpy bit generator every seeded stream here uses (``np.random.default_rng``)
BIT_GENERATOR = "PCG64"
_PCG64_KEYS = ("bit_generator", "state", "has_uint32", "uinteger")
#: Python's Mersenne Twister state: version 3, 624 words plus the position
_MT_WORDS = 625


class StateError(ValueError):
    """Saved state that does not fit what reads it; the message names where, the value and what is allowed."""


def cut(text: str, limit: int = 200) -> str:
    """Return a message from elsewhere (an exception's text) cut to ``limit`` characters, to quote in ours."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check_keys(value: Any, expected: Iterable[str], where: str) -> Mapping[str, Any]:
    """Return ``value`` if it is a mapping with exactly the keys ``expected``; StateError otherwise."""
    names = list(expected)
    if not isinstance(value, Mapping):
        raise StateError(f"{where}: must be a mapping with keys {', '.join(names)}, got {brief(value)}")
    missing = [k for k in names if k not in value]
    extra = [brief(k) for k in value if k not in names]
    if missing or extra:
        parts = [f"missing {', '.join(missing)}"] if missing else []
        parts += [f"unknown {', '.join(extra)}"] if extra else []
        raise StateError(f"{where}: {'; '.join(parts)} (allowed keys: {', '.join(names)})")
    return value


def read_int(value: Any, where: str, low: int, high: int) -> int:
    """Return ``value`` if it is an integer (not a bool) in ``low..high``; StateError otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise StateError(f"{where}: must be an integer in {low}..{high}, got {brief(value)}")
    return int(value)


def read_str(value: Any, where: str, allowed: Iterable[str] | None = None, max_len: int = 200) -> str:
    """Return ``value`` if it is a non-empty string (one of ``allowed`` when given); StateError otherwise."""
    choices = None if allowed is None else list(allowed)
    if not isinstance(value, str) or not value or len(value) > max_len or (choices and value not in choices):
        what = f"one of {', '.join(choices)}" if choices else f"a non-empty string of at most {max_len} characters"
        raise StateError(f"{where}: must be {what}, got {brief(value)}")
    return value


def read_list(value: Any, where: str, max_len: int = 10**7) -> list[Any]:
    """Return ``value`` as a list if it is a list or tuple of at most ``max_len`` items; StateError otherwise."""
    if not isinstance(value, (list, tuple)) or len(value) > max_len:
        raise StateError(f"{where}: must be a list of at most {max_len} items, got {brief(value)}")
    return list(value)


def generator_state(rng: np.random.Generator) -> dict[str, Any]:
    """Return the state of a numpy Generator as plain data (a mapping of ints and strings)."""
    state: Mapping[str, Any] = rng.bit_generator.state
    return {"bit_generator": state["bit_generator"], **{k: state[k] for k in _PCG64_KEYS[1:]}}


def generator_from_state(value: Any, where: str) -> np.random.Generator:
    """Return a new numpy Generator in the state :func:`generator_state` gave; StateError if it is not one."""
    state = check_keys(value, _PCG64_KEYS, where)
    read_str(state["bit_generator"], f"{where}.bit_generator", (BIT_GENERATOR,))
    inner = check_keys(state["state"], ("state", "inc"), f"{where}.state")
    clean = {
        "bit_generator": BIT_GENERATOR,
        "state": {k: read_int(inner[k], f"{where}.state.{k}", 0, 2**128 - 1) for k in ("state", "inc")},
        "has_uint32": read_int(state["has_uint32"], f"{where}.has_uint32", 0, 1),
        "uinteger": read_int(state["uinteger"], f"{where}.uinteger", 0, 2**32 - 1),
    }
    rng = np.random.default_rng(0)
    try:
        rng.bit_generator.state = clean
    except (TypeError, ValueError, OverflowError) as exc:
        raise StateError(f"{where}: not a {BIT_GENERATOR} generator state ({cut(str(exc))})") from None
    return rng


def python_random_state() -> list[Any]:
    """Return the state of Python's ``random`` module as plain data: [version, words, gauss_next]."""
    version, words, gauss = random.getstate()
    return [version, list(words), gauss]


def read_python_random_state(value: Any, where: str) -> tuple[Any, ...]:
    """Return the tuple ``random.setstate`` takes, from :func:`python_random_state`'s data; StateError if not one."""
    items = read_list(value, where, 3)
    if len(items) != 3:
        raise StateError(f"{where}: must be [3, {_MT_WORDS} words, gauss_next], got {brief(value)}")
    read_int(items[0], f"{where}[0] (version)", 3, 3)
    words = read_list(items[1], f"{where}[1] (words)", _MT_WORDS)
    if len(words) != _MT_WORDS:
        raise StateError(f"{where}[1] (words): must hold {_MT_WORDS} integers, got {len(words)}")
    clean = tuple(read_int(w, f"{where}[1][{i}]", 0, 2**32 - 1) for i, w in enumerate(words))
    if clean[-1] > _MT_WORDS - 1:
        raise StateError(f"{where}[1][{_MT_WORDS - 1}] (position): must be in 0..{_MT_WORDS - 1}, got {clean[-1]}")
    gauss = items[2]
    if gauss is not None and (isinstance(gauss, bool) or not isinstance(gauss, float) or not np.isfinite(gauss)):
        raise StateError(f"{where}[2] (gauss_next): must be null or a finite number, got {brief(gauss)}")
    return (3, clean, gauss)


def to_json(value: Any) -> str:
    """Return plain data as compact JSON text (exact for ints of any size and for floats)."""
    return json.dumps(value, separators=(",", ":"), allow_nan=False)


def from_json(text: Any, where: str, max_chars: int = 2**28) -> Any:
    """Return the data of JSON ``text``; StateError naming ``where`` if it is not a string of valid JSON."""
    if not isinstance(text, str) or len(text) > max_chars:
        raise StateError(f"{where}: must be a JSON string, got {brief(text)}")
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as exc:
        raise StateError(f"{where}: not valid JSON ({cut(str(exc))})") from None


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a finite number")
