"""Error messages quote received values briefly (dw_env/errors.py)."""

from __future__ import annotations

from dw_env.errors import MAX_QUOTED, brief


def test_short_values_are_quoted_whole() -> None:
    assert brief("blue") == "'blue'"
    assert brief([1, "blue"]) == "[1, 'blue']"


def test_huge_values_are_cut() -> None:
    assert len(brief("x" * 20_000_000)) <= MAX_QUOTED
    nested: list[object] = []
    for _ in range(10_000):
        nested = [nested]
    assert len(brief(nested)) <= MAX_QUOTED


def test_a_value_whose_repr_fails_is_named_by_type() -> None:
    class Broken:
        def __repr__(self) -> str:
            raise RuntimeError("no")

    assert brief(Broken()) == "<Broken>"
