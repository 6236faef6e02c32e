"""The shared bounded loaders (gamecore.loaders): limits checked before parsing, clear refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gamecore.loaders import json_depth, load_json, parse_json, read_text, read_yaml


class Bad(ValueError):
    pass


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("1", 0),
        ("[]", 1),
        ('{"a": [1, {"b": []}]}', 4),
        ('["[[[[", "]]", {"k": "{{{{"}]', 2),  # brackets inside strings do not count
        (r'["a\"[[[", []]', 2),  # an escaped quote does not end the string
        (b"[[[]]]", 3),
    ],
)
def test_json_depth_counts_only_structural_brackets(text: str | bytes, depth: int) -> None:
    assert json_depth(text) == depth
    if isinstance(text, str):
        json.loads(text)  # every case is valid JSON


def test_parse_json_refuses_deep_nesting_before_parsing() -> None:
    with pytest.raises(Bad, match=r"nested too deeply \(100,000 levels; allowed: at most 64\)"):
        parse_json("[" * 100_000 + "]" * 100_000, 10**7, Bad)
    assert parse_json("[" * 64 + "]" * 64, 10**7, Bad) is not None
    with pytest.raises(Bad, match="at most 3"):
        parse_json("[[[[1]]]]", 100, Bad, max_depth=3)


def test_parse_json_refuses_size_type_and_nonfinite() -> None:
    with pytest.raises(Bad, match="at most 10"):
        parse_json("[" + "1," * 20 + "1]", 10, Bad)
    with pytest.raises(Bad, match="must be a string, got dict"):
        parse_json({}, 10, Bad)
    with pytest.raises(Bad, match="not valid JSON"):
        parse_json("[1,", 10, Bad)
    assert parse_json("[NaN]", 10, Bad) != [0]  # accepted unless finite=True
    with pytest.raises(Bad, match="NaN is not a finite number"):
        parse_json("[NaN]", 10, Bad, finite=True)


def test_read_text_stops_at_the_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b"0" * 5000)
    with pytest.raises(Bad, match="larger than 1,000 bytes"):
        read_text(big, 1000, Bad)
    with pytest.raises(Bad, match="is a directory"):
        read_text(tmp_path, 1000, Bad)
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_text(tmp_path / "missing", 1000, Bad)
    (tmp_path / "latin.json").write_bytes(b'"\xe9"')
    with pytest.raises(Bad, match="not UTF-8"):
        read_text(tmp_path / "latin.json", 1000, Bad)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 1000 + "]" * 1000)
    with pytest.raises(Bad, match=r"deep.json: not valid JSON here: nested too deeply"):
        load_json(deep, 10_000, Bad)


def test_read_yaml_refuses_alias_bombs_at_the_first_anchor() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(20)
    )
    with pytest.raises(Bad, match=r"spec.yaml: line 1: YAML anchors and aliases \(&'a'\) are not allowed"):
        read_yaml(bomb, "spec.yaml", Bad)


def test_read_yaml_refuses_duplicates_depth_size_and_node_count() -> None:
    with pytest.raises(Bad, match="line 2: key 'seed' is given twice"):
        read_yaml("seed: 1\nseed: 2\n", "x", Bad)
    with pytest.raises(Bad, match="nested too deeply; allowed: at most 64 levels"):
        read_yaml("[" * 5000 + "]" * 5000, "x", Bad)
    with pytest.raises(Bad, match="allowed: at most 100"):
        read_yaml("a: " + "b" * 200, "x", Bad, limit=100)
    with pytest.raises(Bad, match="more than 50 values"):
        read_yaml("[" + ", ".join(["1"] * 100) + "]", "x", Bad, max_nodes=50)
    with pytest.raises(Bad, match="not valid YAML"):
        read_yaml("a: [1,", "x", Bad)


def test_read_yaml_reads_plain_documents() -> None:
    assert read_yaml("run: {lr: 1e-4, name: x}\nlist: [1, 2]\n", "x", Bad) == {
        "run": {"lr": 1e-4, "name": "x"},
        "list": [1, 2],
    }
    assert read_yaml("", "x", Bad) is None
