"""Putting an exported strategy package into its output folder: only the package's own files change.

``dw export -o DIR`` builds the package in a temporary folder beside ``DIR`` and reads it back before ``DIR``
is touched. Then:

* ``DIR`` missing: the temporary folder is renamed to ``DIR`` (one rename).
* ``DIR`` empty, or a strategy package: the files the old package consists of (``strategy.json`` and the
  graphs its manifest lists) and those the new one writes are swapped one by one; every other entry of
  ``DIR`` (a ``NOTES.txt``, a ``results/`` folder) stays as it is. The old manifest leaves first and the new
  one arrives last, so no reader sees a manifest with another package's graphs; an error or an interrupt
  (KeyboardInterrupt, SystemExit) during the swap moves every file back: the old package is left intact.
* ``DIR`` a non-empty folder that is not a package, or not a folder at all: refused before anything is built.

A symlinked ``DIR`` is followed: the package goes into the folder it points at and the link stays a link;
nothing is left beside either (the temporary folder holds the old files until the swap is done).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from gamecore.loaders import load_json
from policies.package import MANIFEST, PackageError, is_package, read_package

#: the most bytes of an old manifest read to learn which files the old package consists of
MAX_OLD_MANIFEST_BYTES = 1 << 20


def install_package(folder: str | Path, fill: Callable[[Path], None]) -> Path:
    """Build a package with ``fill(stage)`` beside ``folder``, check it, then put it in place; return ``folder``."""
    target = Path(folder)
    real = Path(os.path.realpath(target))  # a symlinked output: its folder gets the package, the link stays
    check_output_folder(target, real)
    real.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent))
    try:
        fill(stage)
        read_package(stage)  # what we wrote must read back
        _sync(stage)
        if real.exists():
            _swap_files(stage, real)
        else:
            os.chmod(stage, 0o755)  # mkdtemp makes it private; a package is for everyone to read
            os.replace(stage, real)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return target


def check_output_folder(target: Path, real: Path) -> None:
    """Refuse an output that is not a folder, or a non-empty folder that is not a strategy package."""
    if real.exists() and not real.is_dir():
        raise PackageError(f"{target}: exists and is not a folder; choose another output folder")
    if real.is_dir() and not is_package(real) and any(real.iterdir()):
        raise PackageError(
            f"{target}: a non-empty folder that is not a strategy package (no {MANIFEST}); allowed: a new or "
            "empty folder, or a package to replace"
        )


def package_files(folder: Path) -> set[str]:
    """Return the names of the files an existing package consists of: its manifest and the graphs it lists."""
    files = {MANIFEST}
    try:
        manifest = load_json(folder / MANIFEST, MAX_OLD_MANIFEST_BYTES, PackageError)
    except (OSError, PackageError):
        return files  # an unreadable manifest: only it, and what the new package writes, are replaced
    graphs = manifest.get("graphs") if isinstance(manifest, dict) else None
    for graph in graphs if isinstance(graphs, list) else []:
        name = graph.get("file") if isinstance(graph, dict) else None
        if isinstance(name, str) and name.endswith(".onnx") and Path(name).name == name:
            files.add(name)
    return files


def _swap_files(stage: Path, real: Path) -> None:
    """Replace the old package's files in ``real`` by the staged ones; on any interruption put them back."""
    new = sorted((p.name for p in stage.iterdir()), key=lambda name: name == MANIFEST)  # the manifest last
    old = sorted(
        (name for name in package_files(real) | set(new) if os.path.lexists(real / name)),
        key=lambda name: name != MANIFEST,  # the manifest first
    )
    backup = stage / ".old"  # inside the stage: removed with it, never left beside the package
    backup.mkdir()
    moved_out: list[str] = []
    moved_in: list[str] = []
    try:
        for name in old:
            os.replace(real / name, backup / name)
            moved_out.append(name)
        for name in new:
            os.replace(stage / name, real / name)
            moved_in.append(name)
        _sync_folder(real)
    except BaseException:
        for name in reversed(moved_in):
            os.replace(real / name, stage / name)
        for name in reversed(moved_out):
            os.replace(backup / name, real / name)
        raise


def _sync(stage: Path) -> None:
    for f in stage.iterdir():
        with open(f, "rb") as handle:
            os.fsync(handle.fileno())


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
