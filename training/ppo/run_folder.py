"""The folder a ``dw train`` run writes: chosen and checked before any work starts, never silently replaced.

A run folder holds ``config.yaml``, ``checkpoint.pt`` (with everything ``--resume`` needs), ``policy.pt``
(the weights for the arena) and TensorBoard's ``events.out.tfevents.*``. Starting a new run in a folder
that already holds one of these is refused, naming the folder and the three ways on: continue it
(``--resume``), choose another folder, or replace it (``--overwrite``, which deletes those files and only
those). The default folder ``out_dir/name-sSEED-YYYYmmdd-HHMMSS`` gets a ``-2``, ``-3``... suffix when a run
started in the same second already took it.

A process killed while writing a checkpoint leaves a temporary ``.checkpoint.pt.XXXXXXXX.tmp`` (the
previous checkpoint is intact: writes are atomic, policies/checkpoint.py); such leftovers of our own two
files are removed when a run starts or resumes in the folder, nothing else.
"""

from __future__ import annotations

import time
from pathlib import Path

from policies.checkpoint import stale_temporaries

#: the files a run writes into its folder (plus TensorBoard's event files)
RUN_FILES: tuple[str, ...] = ("checkpoint.pt", "policy.pt", "config.yaml")
EVENTS_GLOB = "events.out.tfevents.*"
#: checkpoint files whose killed writes leave temporaries behind
CHECKPOINT_FILES: tuple[str, ...] = ("checkpoint.pt", "policy.pt")


class RunFolderError(ValueError):
    """A run folder that cannot be used as asked; the message names it and the choices."""


def run_outputs(folder: Path) -> list[Path]:
    """Return the run files already in ``folder`` (none if it does not exist)."""
    if not folder.is_dir():
        return []
    found = [folder / name for name in RUN_FILES if (folder / name).exists()]
    return found + sorted(folder.glob(EVENTS_GLOB))


def default_folder(out_dir: str, name: str, seed: int) -> Path:
    """Return a fresh folder ``out_dir/name-sSEED-time`` (with a numeric suffix if that one is taken)."""
    base = Path(out_dir) / f"{name}-s{seed}-{time.strftime('%Y%m%d-%H%M%S')}"
    folder, k = base, 1
    while folder.exists():
        k += 1
        folder = base.with_name(f"{base.name}-{k}")
    return folder


def choose(out_dir: str, name: str, seed: int, run_dir: Path | None, resume: Path | None, overwrite: bool) -> Path:
    """Return the folder to write, refusing (RunFolderError) one that holds another run unless ``overwrite``.

    Resuming writes into the checkpoint's own folder unless ``run_dir`` names another one.
    """
    if resume is not None and (run_dir is None or _same(run_dir, resume.parent)):
        return resume.parent
    folder = run_dir if run_dir is not None else default_folder(out_dir, name, seed)
    if folder.exists() and not folder.is_dir():
        raise RunFolderError(f"--run-dir {folder} exists and is not a folder; choose another --run-dir")
    found = run_outputs(folder)
    if found and not overwrite:
        shown = ", ".join(p.name for p in found[:4]) + (f" and {len(found) - 4} more" if len(found) > 4 else "")
        raise RunFolderError(
            f"{folder} already holds a run ({shown}); nothing was changed. To continue that run: dw train "
            f"--resume {folder}; to keep it: choose another --run-dir; to replace it: add --overwrite"
        )
    return folder


def prepare(folder: Path, overwrite: bool, resuming_here: bool) -> list[Path]:
    """Create ``folder``; delete a replaced run's files (``overwrite``) and stale temporaries. Return what went."""
    folder.mkdir(parents=True, exist_ok=True)
    removed = [] if resuming_here or not overwrite else run_outputs(folder)
    removed += stale_temporaries(folder, CHECKPOINT_FILES)
    for path in removed:
        path.unlink(missing_ok=True)
    return removed


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
