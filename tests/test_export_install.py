"""``dw export -o DIR`` into an existing folder (issue 45, finding 13): only the package's own files change,
foreign files stay, a symlinked DIR stays a link with nothing left beside it, and an interrupted swap leaves
the old package intact."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnxscript")

from dw_cli.main import main  # noqa: E402
from policies.package import MANIFEST, PackageError, read_package, write_manifest  # noqa: E402
from training.export import export_install  # noqa: E402
from training.export.export_install import install_package  # noqa: E402

AGENT = Path(__file__).resolve().parents[1] / "checkpoints" / "small-agent.pt"


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export") / "small"
    assert main(["export", str(AGENT), "-o", str(out), "--map", "2,2", "--no-progress"]) == 0
    assert len(read_package(out).graphs) == 2
    return out


def _one_graph(package: Path) -> Callable[[Path], None]:
    """Return a fill that writes ``package`` with its first graph only and another description."""

    def fill(stage: Path) -> None:
        manifest = json.loads((package / MANIFEST).read_text())
        manifest["graphs"] = manifest["graphs"][:1]
        manifest["description"] = "the new one"
        shutil.copy(package / manifest["graphs"][0]["file"], stage)
        write_manifest(stage, manifest)

    return fill


def _tree(folder: Path) -> dict[str, str]:
    """Return every file under ``folder`` (links not followed) with a hash of its bytes."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _with_foreign_files(package: Path, folder: Path) -> Path:
    shutil.copytree(package, folder)
    (folder / "NOTES.txt").write_text("my notes")
    (folder / "results").mkdir()
    (folder / "results" / "arena.json").write_text("{}")
    return folder


def test_exporting_into_a_package_replaces_only_the_package_files(package: Path, tmp_path: Path) -> None:
    out = _with_foreign_files(package, tmp_path / "agent")
    old_graphs = {g.file for g in read_package(out).graphs}
    install_package(out, _one_graph(package))
    new = read_package(out)
    assert new.manifest["description"] == "the new one" and len(new.graphs) == 1
    assert (out / "NOTES.txt").read_text() == "my notes"
    assert (out / "results" / "arena.json").read_text() == "{}"
    dropped = old_graphs - {g.file for g in new.graphs}
    assert dropped and not any((out / f).exists() for f in dropped)  # the old package's graph is gone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent"]  # no temporary folder left beside


def test_dw_export_onto_a_package_keeps_foreign_files(package: Path, tmp_path: Path) -> None:
    out = _with_foreign_files(package, tmp_path / "agent")
    assert main(["export", str(AGENT), "-o", str(out), "--no-progress"]) == 0
    assert len(read_package(out).graphs) == 1
    assert (out / "NOTES.txt").read_text() == "my notes" and (out / "results" / "arena.json").is_file()


def test_a_symlinked_output_stays_a_link_and_nothing_is_left_beside(package: Path, tmp_path: Path) -> None:
    real = _with_foreign_files(package, tmp_path / "real")
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    install_package(link, _one_graph(package))
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert read_package(real).manifest["description"] == "the new one"
    assert (real / "NOTES.txt").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real"]


@pytest.mark.parametrize("fail_at", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("interrupt", [KeyboardInterrupt, OSError])
def test_an_interrupted_swap_leaves_the_old_package_intact(
    package: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail_at: int, interrupt: type[BaseException]
) -> None:
    out = _with_foreign_files(package, tmp_path / "agent")
    before = _tree(out)
    calls = []
    replace = os.replace

    def flaky(src: object, dst: object) -> None:
        calls.append(src)
        if len(calls) == fail_at:
            raise interrupt("stop here")
        replace(src, dst)  # type: ignore[arg-type]

    monkeypatch.setattr(export_install.os, "replace", flaky)
    with pytest.raises(interrupt):
        install_package(out, _one_graph(package))
    monkeypatch.setattr(export_install.os, "replace", replace)
    assert _tree(out) == before
    read_package(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent"]


def test_an_error_while_building_leaves_the_old_package_intact(package: Path, tmp_path: Path) -> None:
    out = _with_foreign_files(package, tmp_path / "agent")
    before = _tree(out)

    def fill(stage: Path) -> None:
        (stage / "model.onnx").write_bytes(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        install_package(out, fill)
    assert _tree(out) == before and sorted(p.name for p in tmp_path.iterdir()) == ["agent"]


def test_a_folder_that_is_no_package_or_a_file_is_refused_before_building(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "keep.txt").write_text("mine")
    built: list[Path] = []
    with pytest.raises(PackageError, match=r"mine: a non-empty folder that is not a strategy package"):
        install_package(mine, built.append)
    (tmp_path / "file").write_text("x")
    with pytest.raises(PackageError, match=r"file: exists and is not a folder"):
        install_package(tmp_path / "file", built.append)
    assert not built and sorted(p.name for p in tmp_path.iterdir()) == ["file", "mine"]
