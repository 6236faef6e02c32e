"""A search-guided run's folder and checkpoint files, shared by the self-play loop and Domain Wheel's value refit."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from training.search_guided.config import Config


def save_run(folder: Path, payload: dict[str, Any]) -> None:
    """Write the run's checkpoint (with the training state) and its policy file (without), each atomically."""
    from policies import checkpoint

    checkpoint.save(folder / "checkpoint.pt", payload)
    checkpoint.save(folder / "policy.pt", checkpoint.export_policy(payload))


def run_folder(config: Config, run_dir: Path | None, overwrite: bool) -> Path:
    """Return the run's folder (``run_dir``, or a new one under run.out_dir), refusing one that holds a run."""
    folder = (
        run_dir or Path(config.run.out_dir) / f"{config.run.name}-s{config.run.seed}-{time.strftime('%Y%m%d-%H%M%S')}"
    )
    if (folder / "checkpoint.pt").exists() and not overwrite:
        raise ValueError(f"{folder} already holds a run; continue it with --resume or replace it with --overwrite")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
