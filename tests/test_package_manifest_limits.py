"""A strategy package's manifest is read with the bounded JSON loader (issue 45): a huge or deeply nested
``strategy.json`` is refused with a PackageError naming the file and the limit, never a RecursionError."""

from __future__ import annotations

from pathlib import Path

import pytest

from policies.package import MANIFEST, MAX_MANIFEST_BYTES, PackageError, read_package


def _package(tmp_path: Path, text: str) -> Path:
    (tmp_path / MANIFEST).write_text(text, encoding="utf-8")
    return tmp_path


def test_a_deeply_nested_manifest_is_refused_with_the_depth_allowed(tmp_path: Path) -> None:
    folder = _package(tmp_path, '{"graphs": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(PackageError, match=r"strategy\.json: not valid JSON here: nested too deeply \(100,001 levels"):
        read_package(folder)


def test_a_manifest_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    folder = _package(tmp_path, '{"description": "' + "x" * MAX_MANIFEST_BYTES + '"}')
    with pytest.raises(PackageError, match=r"strategy\.json is larger than 1,048,576 bytes"):
        read_package(folder)


def test_a_manifest_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    (tmp_path / MANIFEST).write_bytes(b'{"name": "\xff"}')
    with pytest.raises(PackageError, match=r"strategy\.json: not UTF-8 text"):
        read_package(tmp_path)
