"""One numba on-disk cache for the whole project, named after a hash of every package's sources.

numba checks only the source file of the function it caches, not the files of the kernels that function calls:
after an edit to ``frontera_env/kernels.py`` a cached kernel in ``frontera_env/vector.py`` that calls it would
keep running the old rules. Importing :mod:`gamecore` calls :func:`configure`, and every package imports
``gamecore`` first, before any of its kernels exists: the cache lives in a folder named after a hash of all the
project's packages' sources, a fresh cache after any edit anywhere. An explicit ``NUMBA_CACHE_DIR`` is respected.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

# every package of the project with compiled kernels, or calling them (a missing one is skipped: an install
# without the extras that ship it)
PACKAGES = (
    "gamecore",
    "dw_env",
    "alveole_env",
    "conquer_env",
    "frontera_env",
    "policies",
    "training",
    "play",
    "dw_cli",
)


def source_hash(root: Path) -> str:
    """The first 16 hex digits of a SHA-256 over every package's ``.py`` files, their paths and contents."""
    digest = hashlib.sha256()
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def configure() -> None:
    """Point numba at ``$XDG_CACHE_HOME/domain-wheel-rl/numba-<hash>`` unless ``NUMBA_CACHE_DIR`` is set (by the
    user, or by an earlier call: once per process)."""
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    root = Path(__file__).resolve().parent.parent
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "domain-wheel-rl"
    cache_dir = str(base / f"numba-{source_hash(root)}")
    os.environ["NUMBA_CACHE_DIR"] = cache_dir
    if "numba" in sys.modules:  # numba already read its config: set it directly
        sys.modules["numba"].config.CACHE_DIR = cache_dir
