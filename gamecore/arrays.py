"""Checks at the boundary of compiled kernels: a state array has the layout its game's options imply.

Every engine's kernels index their state arrays without bounds checks, so each engine checks the arrays a
caller hands it before any kernel sees them (Domain Wheel's ``Game``, Alveole's and Conquer's games).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gamecore.errors import brief


def check_layout(
    value: Any, what: str, dtype: type[np.generic], shape: tuple[int, ...], error: type[ValueError]
) -> None:
    """Raise ``error`` unless ``value`` is a writeable C-contiguous ``dtype`` array of ``shape``."""
    if not isinstance(value, np.ndarray):
        raise error(f"{what} must be a numpy array of {np.dtype(dtype).name} {shape}, got {brief(value)}")
    if value.dtype != dtype or value.shape != shape:
        raise error(
            f"{what} must be an array of dtype {np.dtype(dtype).name} and shape {shape} for these options, "
            f"got dtype {value.dtype} and shape {value.shape}"
        )
    if not value.flags.c_contiguous or not value.flags.writeable:
        raise error(f"{what} must be a writeable C-contiguous array; np.array({what}, order='C') makes one")


class EntryPoints:
    """Compiled kernels bound to one handle type, each called without numba's per-call argument typing.

    A numba dispatcher types every argument on every call and picks the compiled version that fits; a tuple
    of arrays is typed array by array, which costs more than a small kernel's work. An engine that checked
    its arrays once (:func:`check_layout` at its boundary) and keeps them in one compiled handle knows those
    types for good, so it binds each kernel once to ``(handle_type, *extra[name])`` here, on first use
    (compiling or loading numba's cache), and then calls the bare compiled function. That function unboxes
    its arguments as the bound types without asking: pass only handles of ``handle_type`` and arguments of
    ``extra``'s types (Python ints for int64, checked arrays for array types).
    """

    def __init__(self, handle_type: Any, kernels: dict[str, Any], extra: dict[str, tuple[Any, ...]]) -> None:
        self._handle_type = handle_type
        self._kernels = kernels
        self._extra = extra

    def __getattr__(self, name: str) -> Any:
        kernels = self.__dict__.get("_kernels", {})
        if name not in kernels:
            raise AttributeError(name)
        kernel = kernels[name]
        signature = (self._handle_type, *self._extra.get(name, ()))
        kernel.compile(signature)
        entry = kernel.get_overload(signature)
        setattr(self, name, entry)  # later look-ups find the attribute and never come here again
        return entry


def bound_entries(
    bound: dict[Any, EntryPoints], handle: Any, kernels: dict[str, Any], extra: dict[str, tuple[Any, ...]]
) -> EntryPoints:
    """Return the :class:`EntryPoints` of ``handle``'s numba type from ``bound``, binding them on first use."""
    handle_type = handle._type  # a numba StructRefProxy's type: one per combination of field types
    entries = bound.get(handle_type)
    if entries is None:
        entries = bound[handle_type] = EntryPoints(handle_type, kernels, extra)
    return entries
