"""Fuzzing sweep specs and strategy packages' manifests (issue 45): whatever text or mapping comes in, the
loader gives a valid object or its own error (SpecError, PackageError: one bounded line), never another
exception, never a hang. Bounded for CI: few examples of bounded size, a fixed seed, no database (no wall-clock
deadline: load must not decide a test)."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from gamecore.loaders import read_yaml  # noqa: E402
from training.studies.sweep import SpecError, SweepSpec, load_spec, parse_spec  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CI_SPEC = ROOT / "configs" / "sweeps" / "ci.yaml"
CI_TEXT = CI_SPEC.read_text(encoding="utf-8")
FAST = settings(
    max_examples=40,
    deadline=None,  # no wall-clock limit: a loaded machine must not fail it; inputs are bounded by the loaders
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 300),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.sampled_from(["random", "balanced", "x" * 300, "../x", "ci", "name", "seats", "a.onnx"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=8,
)
DELETE = object()


def _paths(node: Any, prefix: tuple[Any, ...] = (), depth: int = 5) -> list[tuple[Any, ...]]:
    """Return the paths to every entry of a nested mapping/list."""
    out = [prefix] if prefix else []
    if depth and isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*prefix, key), depth - 1)
    elif depth and isinstance(node, list):
        for i, value in enumerate(node[:2]):
            out += _paths(value, (*prefix, i), depth - 1)
    return out


def _mutate(node: Any, path: tuple[Any, ...], new: Any) -> Any:
    """Return a copy of ``node`` with the entry at ``path`` replaced by ``new`` (deleted for ``DELETE``)."""
    node = copy.deepcopy(node)
    parent = node
    for part in path[:-1]:
        parent = parent[part]
    if new is DELETE:
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return node


def _one_line_error(exc: BaseException) -> None:
    text = str(exc)
    assert 0 < len(text) < 2000 and "Traceback" not in text


# ---- sweep specs --------------------------------------------------------------------------------------
CI_DATA: dict[str, Any] = read_yaml(CI_TEXT, str(CI_SPEC), ValueError)
SPEC_PATHS = _paths(CI_DATA)
spec_text = st.one_of(
    st.text(max_size=200),
    st.builds(
        lambda at, insert: CI_TEXT[:at] + insert + CI_TEXT[at:],
        st.integers(0, len(CI_TEXT)),
        st.sampled_from(
            [
                "&a ",
                "*a",
                ": ",
                "\n  x: 1\n",
                "\nseed: 1\n",
                "- ",
                "{",
                "]",
                "[" * 100,
                ".nan",
                "1e999",
                "!!python/object/apply:os.system ['true'] ",
                "\t",
                "\nname: " + "x" * 300 + "\n",
                "\ngrid: {max_rounds: [" + ", ".join(map(str, range(10, 20_010))) + "]}\n",
            ]
        ),
    ),
)


@FAST
@given(spec_text)
def test_any_spec_text_gives_a_spec_or_a_spec_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "spec.yaml"
    try:
        path.write_text(text, encoding="utf-8")
    except UnicodeEncodeError:
        return
    try:
        spec = load_spec(path)
    except SpecError as exc:
        _one_line_error(exc)
    else:
        assert isinstance(spec, SweepSpec)


@FAST
@given(st.sampled_from(SPEC_PATHS), st.one_of(values, st.just(DELETE)))
def test_mutated_spec_mappings_give_a_spec_or_a_spec_error(path: tuple[Any, ...], new: Any) -> None:
    data = _mutate(CI_DATA, path, new)
    before = repr(data)
    try:
        spec = parse_spec(data)
    except SpecError as exc:
        _one_line_error(exc)
    else:
        assert isinstance(spec, SweepSpec)
    assert repr(data) == before  # the input is not changed


# ---- strategy package manifests -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnxscript")
    from dw_cli.main import main

    out = tmp_path_factory.mktemp("export") / "small"
    assert main(["export", str(ROOT / "checkpoints" / "small-agent.pt"), "-o", str(out), "--no-progress"]) == 0
    return out


def _read_manifest_text(package: Path, folder: Path, text: str) -> None:
    """Read ``package`` with ``text`` as its manifest: a Package or a PackageError, nothing else."""
    from policies.package import MANIFEST, Package, PackageError, read_package

    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(package, folder)
    (folder / MANIFEST).write_text(text, encoding="utf-8")
    try:
        result = read_package(folder)
    except PackageError as exc:
        _one_line_error(exc)
    else:
        assert isinstance(result, Package)


@FAST
@given(st.data())
def test_mutated_manifests_give_a_package_or_a_package_error(package: Path, tmp_path: Path, data: Any) -> None:
    from policies.package import MANIFEST

    manifest = json.loads((package / MANIFEST).read_text(encoding="utf-8"))
    path = data.draw(st.sampled_from(_paths(manifest)))
    new = data.draw(st.one_of(values, st.just(DELETE)))
    text = json.dumps(_mutate(manifest, path, new), default=repr)
    _read_manifest_text(package, tmp_path / "copy", text)


@FAST
@given(
    st.one_of(
        st.text(max_size=200),
        st.sampled_from(["[" * 10_000, '{"graphs": ' + "[" * 70 + "]" * 70 + "}", "NaN", "1e999", '"x"', "{}"]),
    )
)
def test_any_manifest_text_gives_a_package_error(package: Path, tmp_path: Path, text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return
    _read_manifest_text(package, tmp_path / "copy", text)
