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
