"""numba's on-disk cache: one folder for the whole project, named after every package's sources.

numba checks only a cached function's own source file; a kernel calling an edited kernel from another file
would run the old code from the cache. The folder's hash covers every package, so any edit starts a fresh cache.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gamecore import numba_cache

ROOT = Path(__file__).resolve().parent.parent

PROBE = "import importlib, sys; importlib.import_module(sys.argv[1]); import numba; print(numba.config.CACHE_DIR)"


def _cache_dir_after_importing(module: str, env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, module], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize(
    "module", ["frontera_env.kernels", "alveole_env.rules", "conquer_env.kernels", "dw_env.engine", "gamecore.arrays"]
)
def test_every_engine_caches_in_the_hashed_folder_of_the_whole_project(module: str, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    expected = tmp_path / "domain-wheel-rl" / f"numba-{numba_cache.source_hash(ROOT)}"
    assert _cache_dir_after_importing(module, env) == str(expected)


def test_an_explicit_cache_folder_is_kept(tmp_path: Path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "mine")}
    assert _cache_dir_after_importing("frontera_env.kernels", env) == str(tmp_path / "mine")


def test_an_edit_in_any_package_changes_the_hash(tmp_path: Path) -> None:
    for package in numba_cache.PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__", "static"))
    before = numba_cache.source_hash(tmp_path)
    assert numba_cache.source_hash(tmp_path) == before  # the same sources, the same folder
    seen = {before}
    for package in ("frontera_env", "alveole_env", "conquer_env", "gamecore", "play"):
        source = sorted((tmp_path / package).glob("*.py"))[0]
        source.write_text(source.read_text() + "\n# edited\n")
        after = numba_cache.source_hash(tmp_path)
        assert after not in seen, package
        seen.add(after)
