"""``dw export`` then ``dw arena --lineup PACKAGE,balanced,balanced`` with torch made unimportable.

The arena runs in a subprocess whose ``sitecustomize`` (put first on PYTHONPATH, so the arena's worker
processes load it too) makes ``import torch``, ``import onnx`` and ``import onnxscript`` fail: what the
``play`` extra installs (numpy, numba, onnxruntime) must be enough to play an exported package.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnxscript")

ROOT = Path(__file__).resolve().parents[1]
BLOCKER = '''
import sys

BLOCKED = ("torch", "onnx", "onnxscript")


class NoTorch:
    """Refuse the export-only packages, as in a venv with the play extra only."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{name} is blocked: this process must play without torch")
        return None


sys.meta_path.insert(0, NoTorch())
'''


def test_an_exported_package_plays_in_the_arena_without_torch(tmp_path: Path) -> None:
    from dw_cli.main import main

    package = tmp_path / "exports" / "x"
    assert main(["export", str(ROOT / "checkpoints" / "small-agent.pt"), "-o", str(package), "--no-progress"]) == 0
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(BLOCKER)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(shim), str(ROOT)])}
    probe = subprocess.run(
        [sys.executable, "-c", "import torch"], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert probe.returncode != 0 and "blocked" in probe.stderr  # the shim is active
    args = [sys.executable, "-m", "dw_cli.main", "arena", "--lineup", f"{package},balanced,balanced", "--games", "6"]
    args += ["--land-radius", "1", "--map-radius", "2", "--max-rounds", "40", "--workers", "2", "--no-progress"]
    run = subprocess.run(args, env=env, capture_output=True, text=True, timeout=600, check=False, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert str(package) in run.stdout and "balanced" in run.stdout
    assert "blocked" not in run.stderr
