"""Domain Wheel: rules engine and reinforcement-learning environments.

Importing the package points numba's on-disk cache at a folder named after a
hash of the project's source files. numba only checks the source file of the
function it caches, not of the kernels that function calls from other files, so
after an edit to ``dw_env/rules/moves.py`` a cached ``apply_action`` would keep
running the old rules. A new hash means a fresh cache after any edit. An
explicit ``NUMBA_CACHE_DIR`` is respected.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

_PACKAGES = ("dw_env", "policies", "training")


def _source_hash() -> str:
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for package in _PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _configure_numba_cache() -> None:
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "domain-wheel-rl"
    cache_dir = str(base / f"numba-{_source_hash()}")
    os.environ["NUMBA_CACHE_DIR"] = cache_dir
    if "numba" in sys.modules:  # numba already read its config: set it directly
        sys.modules["numba"].config.CACHE_DIR = cache_dir


_configure_numba_cache()
